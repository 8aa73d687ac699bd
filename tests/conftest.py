"""Shared test settings: hypothesis profiles kept small enough for a 2-core CI."""

import os
import tempfile

import pytest

# numba's colorama highlighting swaps sys.stdout from the thread that compiles (assay.summaries.kernels sets
# this too, before it imports numba): for the tests that import numba themselves
os.environ.setdefault("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", "1")
from hypothesis import HealthCheck, settings

settings.register_profile(
    # derandomized: CI runs the same examples every time (a failure reproduces, nothing flakes); set
    # ASSAY_HYPOTHESIS_RANDOM=1 (and raise ASSAY_HYPOTHESIS_EXAMPLES) to search afresh
    "ci", max_examples=int(os.environ.get("ASSAY_HYPOTHESIS_EXAMPLES", "70")), deadline=None,
    derandomize=not os.environ.get("ASSAY_HYPOTHESIS_RANDOM"),
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("ci")


@pytest.fixture(scope="session")
def spark():
    """One local Spark session (local[2], quiet) for every test that asks for it: each new session costs
    seconds. Skips where pyspark is not installed (the test extra has it)."""
    pytest.importorskip("pyspark", reason="pip install 'assay[spark]' (the test extra has it)")
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[2]").appName("assay-tests")
               .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4")
               .config("spark.ui.showConsoleProgress", "false").config("spark.driver.memory", "1g").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture
def on_executors(monkeypatch):
    """The Spark engine's score summary kept on the executors whatever its size, in range partitions of
    about 750 rows (3,000 rows: 4 partitions), windows of 16 entries; the entries each read on the driver
    fetches are counted (the list returned)."""
    from assay.engines import spark as engine
    from assay.engines import spark_ranges

    fetched: list[int] = []
    monkeypatch.setattr(engine, "HELD_SCORES", 0)
    monkeypatch.setattr(engine, "PARTITION_SCORES", 750)
    monkeypatch.setattr(spark_ranges, "WINDOW", 16)
    monkeypatch.setattr(engine, "FETCHED", fetched.append)
    return fetched


@pytest.fixture
def spill_dir(tmp_path, monkeypatch):
    """The temporary directory spilled files would go to (the scans' keys, the summaries' runs), checked
    empty at the end: every file is unlinked as it is made."""
    directory = tmp_path / "tmp"
    directory.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(directory))
    yield directory
    assert os.listdir(directory) == []
