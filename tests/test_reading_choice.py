"""How a FILE is read: a Parquet file of scores larger than PARQUET_IN_BATCHES is read in batches (measured
faster and lighter than whole), with the same numbers; what needs the whole table (weights, regression,
several classes' probabilities) keeps reading it whole. The size is lowered here so that small files show it."""

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from assay.cli import common, main
from assay.engines import files
from helpers import close


@pytest.fixture
def parquet(tmp_path):
    rng = np.random.default_rng(3)
    y = rng.random(4000) < 0.3
    p = np.clip(rng.normal(0.35 + 0.3 * y, 0.2), 0, 1).astype(np.float32)
    path = tmp_path / "scores.parquet"
    pq.write_table(pa.table({"y": y.astype(np.int8), "p": p, "q": np.clip(p + rng.normal(0, 0.1, 4000), 0, 1),
                             "w": rng.integers(1, 3, 4000)}), path)
    return path


@pytest.fixture
def in_batches(monkeypatch):
    """The files read in batches, recorded."""
    read = []
    for name in ("evaluate_file", "compare_file", "rank_file"):
        original = getattr(files, name)

        def recorded(source, *args, _original=original, _name=name, **kwargs):
            read.append(_name)
            return _original(source, *args, **kwargs)

        monkeypatch.setattr(files, name, recorded)
    return read


def _json(tmp_path, *args):
    out = tmp_path / "out.json"
    assert main([*args, "--format", "json", "-o", str(out)]) == 0
    return json.loads(out.read_text())


def test_a_large_parquet_file_of_scores_is_read_in_batches_with_the_same_numbers(parquet, tmp_path, monkeypatch,
                                                                                   in_batches):
    args = ["report", str(parquet), "--truth", "y", "--score", "p", "--threshold", "0.4"]
    whole = _json(tmp_path, *args)
    assert in_batches == []
    monkeypatch.setattr(common, "PARQUET_IN_BATCHES", 1000)
    batched = _json(tmp_path, *args)
    assert in_batches == ["evaluate_file"]
    for d in (whole, batched):
        d.pop("probabilistic")  # sums in another order: compared to 1e-9 below
    close(batched, whole)
    assert _json(tmp_path, "compare", str(parquet), "--truth", "y", "--score", "p", "--score", "q")["models"]
    assert in_batches[-1] == "compare_file"
    assert main(["curves", str(parquet), "--truth", "y", "--score", "p", "-o", str(tmp_path / "roc.csv")]) == 0
    assert in_batches[-1] == "rank_file"


def test_what_needs_the_whole_table_keeps_reading_it_whole(parquet, tmp_path, monkeypatch, in_batches):
    monkeypatch.setattr(common, "PARQUET_IN_BATCHES", 1000)
    weighted = _json(tmp_path, "report", str(parquet), "--truth", "y", "--score", "p", "--threshold", "0.4",
                     "--weight", "w")
    assert weighted["input"]["weight"] == "w"
    _json(tmp_path, "report", str(parquet), "--truth", "y", "--pred", "y")  # labels: read whole as before
    assert in_batches == []
