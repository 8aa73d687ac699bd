"""`assay report --engine spark` from the command line, in each form: predicted labels, scores, scores with the
ranking options, and its errors (a path that names nothing, refused before Spark starts; what Spark raises
while it reads, as one line naming the part; Spark that cannot start; an executor that cannot import a
module). Spark runs in conftest's one session; the few runs that need a Spark of their own are subprocesses.
"""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

from assay.cli import main
from helpers import close

pytest.importorskip("pyspark", reason="pip install 'assay[spark]' (the test extra has it)")

COMMON = ["--bootstrap", "200", "--format", "json"]


def table(seed=5, n=400):
    """Two classes, scores with ties, and the labels they give at 0.5."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.35, "pos", "neg")
    p = np.round(np.clip(rng.normal(0.35 + 0.3 * (y == "pos"), 0.2), 0, 1), 2)
    return pd.DataFrame({"truth": y, "score": p, "predicted": np.where(p >= 0.5, "pos", "neg")})


def run(capsys, *args):
    status = main(["report", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def same_as_local(capsys, spark_args, local_args):
    """The JSON of a Spark run equals the in-memory one's (the input's description aside)."""
    status, out, err = run(capsys, *spark_args, "--engine", "spark", *COMMON)
    assert (status, err) == (0, ""), err
    got = json.loads(out)
    status, out, err = run(capsys, *local_args, *COMMON)
    assert status == 0, err
    want = json.loads(out)
    assert got["input"]["engine"] == "spark"
    for key in set(want) - {"input", "probabilistic"}:
        assert got[key] == want[key], key
    close(got.get("probabilistic"), want.get("probabilistic"))  # sums in another order: to 1e-9
    return got


def test_predicted_labels(spark, tmp_path, capsys):
    """The label branch: the command line's threshold=None once made every such run fail."""
    path = tmp_path / "two_class.csv"
    table().to_csv(path, index=False)
    args = [str(path), "--truth", "truth", "--pred", "predicted", "--costs", "fp=1,fn=4"]
    got = same_as_local(capsys, args, args)
    assert got["n"] == 400 and got["confusion"]["actual_by_predicted"]


def test_scores_with_the_ranking_options(spark, tmp_path, capsys):
    """Scores in a directory of Parquet parts, with the operating points, a range, costs, a constraint and
    the calibration options: the same report as in memory."""
    frame = table(6)
    parts = tmp_path / "preds"
    parts.mkdir()
    frame.iloc[:250].to_parquet(parts / "part-0.parquet")
    frame.iloc[250:].to_parquet(parts / "part-1.parquet")
    whole = tmp_path / "all.parquet"
    frame.to_parquet(whole)
    options = ["--truth", "truth", "--score", "score", "--threshold", "0.45", "--at-specificity", "0.9",
               "--at-sensitivity", "0.8", "--fpr-range", "0,0.3", "--costs", "fp=1,fn=5", "--prevalence", "0.2",
               "--constraint", "precision>=0.5", "--bins", "5", "--calibration", "quantile"]
    got = same_as_local(capsys, [str(parts), *options], [str(whole), *options])
    assert got["ranking"]["operating_points"] and got["ranking"]["partial_auc"] is not None


@pytest.mark.parametrize("make, said", [
    (lambda d: None, "{path}: no such file"),
    (lambda d: d.mkdir(), "{path} is a directory with no table files"),
    (lambda d: (d.mkdir(), table().to_parquet(d / "a.parquet"), table().to_csv(d / "b.csv")),
     "{path} holds files of 2 formats: csv (b.csv), parquet (a.parquet); Spark reads one format at a time: "
     "move the others out, name one format's files with a glob, or say which with --input-format"),
])
def test_a_path_that_names_nothing_is_refused_before_spark_starts(tmp_path, capsys, monkeypatch, make, said):
    from assay.engines import spark as engine

    def no_session(**kwargs):
        raise AssertionError("a Spark session was started")

    monkeypatch.setattr(engine, "session", no_session)
    path = tmp_path / "preds"
    make(path)
    status, out, err = run(capsys, str(path), "--truth", "truth", "--score", "score", "--engine", "spark")
    assert (status, out, err) == (2, "", f"assay: error: {said.format(path=path)}\n")


def test_file_urls_are_local_and_other_schemes_are_sparks(tmp_path, capsys):
    from assay.engines.spark import check_path

    status, out, err = run(capsys, f"file://{tmp_path}/no/*.parquet", "--truth", "truth", "--pred", "predicted",
                           "--engine", "spark")
    assert (status, err) == (2, f"assay: error: file://{tmp_path}/no/*.parquet: no file matches\n")
    (tmp_path / "a.csv").write_text("truth,predicted\na,a\n")
    assert check_path(f"file:{tmp_path}/a.csv") == "csv"
    assert check_path("s3a://bucket/no/such/parts/") is None
    assert check_path(f"{tmp_path}/part-{{0,1}}.parquet") is None  # Hadoop's glob: Spark's to expand


def corrupt(d):
    d.mkdir()
    table().iloc[:200].to_parquet(d / "part-0.parquet")
    table().iloc[200:].to_parquet(d / "part-1.parquet")
    blob = (d / "part-1.parquet").read_bytes()
    (d / "part-1.parquet").write_bytes(blob[:len(blob) // 2] + bytes(100) + blob[-200:])


def text_score(d):
    d.mkdir()
    table().iloc[:200].to_parquet(d / "part-0.parquet")
    later = table().iloc[200:].astype({"score": str})
    later.to_parquet(d / "part-1.parquet")


def csv_named_parquet(d):
    d.mkdir()
    table().iloc[:200].to_parquet(d / "part-0.parquet")
    table().iloc[200:].to_csv(d / "part-1.parquet", index=False)


@pytest.mark.parametrize("make, said", [
    (corrupt, "part-1.parquet: Spark cannot read it: corrupted file: the footer index is not within the file"),
    (text_score, "part-1.parquet: Spark cannot read it: column 'score' is Parquet BINARY in this part, where "
                 "Spark expects double"),
    (csv_named_parquet, "part-1.parquet: Spark cannot read it: it is not a Parquet file."),
])
def test_what_spark_raises_while_it_reads_is_one_line_naming_the_part(spark, tmp_path, capsys, make, said):
    path = tmp_path / "preds"
    make(path)
    status, out, err = run(capsys, str(path), "--truth", "truth", "--score", "score", "--engine", "spark")
    assert (status, out) == (2, "")
    assert err.startswith(f"assay: error: {path / said.split(':')[0]}:") and said in err, err
    assert err.count("\n") == 1 and "\tat " not in err


def test_a_score_written_as_text_is_named_as_in_memory(spark, tmp_path, capsys):
    path = tmp_path / "preds.csv"
    frame = table().astype({"score": str})
    frame.loc[7, "score"] = "high"
    frame.to_csv(path, index=False)
    status, out, err = run(capsys, str(path), "--truth", "truth", "--score", "score", "--engine", "spark")
    assert (status, out) == (2, "")
    assert err == (f"assay: error: {path}: column 'score': 'high' is not a number (a row with truth = "
                   f"{frame.truth[7]!r}, score = 'high')\n")


def test_an_executor_that_cannot_import_a_module_is_one_line(spark, tmp_path, monkeypatch):
    """A function of a module only the driver can import, as assay would be on executors without it: the
    Python worker's ModuleNotFoundError, and its traceback, become one line saying how to install it."""
    from assay.engines.spark import spark_errors
    from assay.errors import InvalidInput

    (tmp_path / "driver_only.py").write_text(textwrap.dedent("""
        def same(batches):
            yield from batches
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    import driver_only

    df = spark.createDataFrame(pd.DataFrame({"x": [1.0, 2.0]}))
    with pytest.raises(InvalidInput) as caught, spark_errors():
        df.mapInArrow(driver_only.same, "x double").collect()
    message = str(caught.value)
    assert message.startswith("Spark's executors cannot import 'driver_only': install it for the Python they "
                              "run (PYSPARK_PYTHON on a local or standalone cluster")
    assert "\n" not in message


def test_assay_need_not_be_on_the_executors(tmp_path):
    """The one function the executors run travels by value: a Python that cannot import assay (as an
    executor's without it) unpickles it and runs it."""
    from pyspark import cloudpickle

    from assay.engines.spark_ranges import as_ipc

    (tmp_path / "blob").write_bytes(cloudpickle.dumps(as_ipc()))
    (tmp_path / "assay").mkdir()
    (tmp_path / "assay" / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'assay'\")\n")
    script = textwrap.dedent("""
        import pickle, sys
        import pyarrow as pa
        function = pickle.loads(open(sys.argv[1], "rb").read())
        batch = pa.RecordBatch.from_pydict({"s": [0.9, 0.1], "pos": [1, 0], "neg": [0, 1]})
        (out,) = function(iter([batch]))
        print(pa.ipc.open_stream(out.column(0)[0].as_py()).read_all().num_rows)
    """)
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "blob")], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": str(tmp_path)}, cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "2\n", "")


def test_verbose_is_for_the_spark_engine(tmp_path, capsys):
    path = tmp_path / "p.csv"
    table().to_csv(path, index=False)
    status, out, err = run(capsys, str(path), "--truth", "truth", "--pred", "predicted", "--verbose")
    assert (status, err) == (2, "assay: error: --verbose shows Spark's own log: it applies to --engine spark\n")


def _cli(args, env=None, timeout=300):
    return subprocess.run([sys.executable, "-m", "assay", *args], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})


def test_spark_that_cannot_start_is_one_line(tmp_path):
    path = tmp_path / "p.csv"
    table().to_csv(path, index=False)
    done = _cli(["report", str(path), "--truth", "truth", "--pred", "predicted", "--engine", "spark"],
                env={"JAVA_HOME": str(tmp_path / "no-java")}, timeout=120)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("assay: error: Spark could not start (it needs Java 17 or later, with java on "
                                  "PATH or JAVA_HOME set): ")
    assert str(tmp_path / "no-java") in done.stderr and done.stderr.count("\n") == 1, done.stderr


def test_a_new_spark_is_quiet_unless_verbose(tmp_path):
    """A Spark of its own (a new JVM): no WARN line, JVM notice or progress bar on standard error (they are
    there without the fix; --verbose keeps them); the report alone on standard output."""
    path = tmp_path / "p.csv"
    table().to_csv(path, index=False)
    args = ["report", str(path), "--truth", "truth", "--pred", "predicted", "--engine", "spark", "--format", "json"]
    done = _cli(args)
    assert (done.returncode, done.stderr) == (0, "")
    assert json.loads(done.stdout)["n"] == 400
