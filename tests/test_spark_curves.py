"""A curve's points as Spark output (assay.engines.spark_curves): `assay.spark.curve` and `assay curves
--engine spark`. With the score summary kept on the executors in several range partitions, each partition's
points are made there from the partition and the counts before it, and never pass through the driver; the
rows equal the in-memory curve's exactly (counts and rates alike: every value is a function of its own
cumulative counts, made by the same code, so there is no tolerance), in the curve's order across the
partitions, for every kind, both directions, either positive class and string labels. The command line
writes parts whose concatenation is the local engine's output."""

from __future__ import annotations

import glob
import json
import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import assay
import assay.evaluation.ranking
from assay.cli import main

pd = pytest.importorskip("pandas")
pytest.importorskip("pyspark", reason="pip install 'assay[spark]' (the test extra has it)")

import assay.spark  # noqa: E402
from assay.engines import spark as engine  # noqa: E402
from assay.engines import spark_curves  # noqa: E402


def data(seed: int = 1, n: int = 3000, labels=(0, 1)):
    """Both signs, ties: about 500 distinct scores (four range partitions of 750 rows)."""
    rng = np.random.default_rng(seed)
    positive = rng.random(n) < 0.4
    y = np.where(positive, labels[1], labels[0])
    s = np.round(rng.normal(size=n) + positive, 2)
    return y, s


def in_memory(y, s, kind, *, positive, direction="higher", prevalence=None, costs=None, thresholds=None):
    r = assay.rank(y, y_score=s, positive=positive, direction=direction, costs=costs)
    if kind == "roc":
        return r.roc()
    if kind == "pr":
        return r.pr(prevalence)
    if kind == "lift":
        return r.lift_curve(prevalence)
    if kind == "hull":
        return r.hull()
    return r.threshold_table(None if thresholds is None else np.asarray(thresholds, float), prevalence=prevalence)


def assert_same(frame, want):
    got = frame.toPandas()
    assert list(got.columns) == list(want)
    assert len(got) == len(next(iter(want.values())))
    for name, values in want.items():  # exactly: the same code on the same counts
        assert np.array_equal(got[name].to_numpy(), np.asarray(values, dtype=np.float64), equal_nan=True), name


CASES = [
    dict(kind="roc"),
    dict(kind="roc", direction="lower"),
    dict(kind="pr", prevalence=0.2, positive=0),
    dict(kind="lift", direction="lower", labels=("ham", "spam"), positive="spam"),
    dict(kind="thresholds", prevalence=0.3, costs={"fp": 1, "fn": 4}, labels=("ham", "spam"), positive="ham",
         direction="lower"),
]


@pytest.mark.parametrize("case", CASES, ids=["roc", "roc lower", "pr positive 0", "lift lower strings",
                                             "thresholds swapped lower"])
def test_the_executors_make_every_point_of_the_in_memory_curve(spark, on_executors, case):
    case = dict(case)
    labels = case.pop("labels", (0, 1))
    positive = case.pop("positive", labels[1])
    kind = case.pop("kind")
    y, s = data(labels=labels)
    df = spark.createDataFrame(pd.DataFrame({"y": y, "p": s})).repartition(3)
    frame = assay.spark.curve(df, truth="y", score="p", kind=kind, positive=positive, **case)
    read_before = sum(on_executors)
    assert read_before < len(np.unique(s)) / 2  # the analysis read a few windows, not the summary
    assert frame.rdd.getNumPartitions() == 4  # a range partition each, in the curve's order
    assert_same(frame, in_memory(y, s, kind, positive=positive, **case))
    assert sum(on_executors) == read_before  # the points were made and collected without a read of the summary


@settings(max_examples=3, deadline=None)
@example(seed=1, decimals=2, size=40, chunk=7, kind="thresholds", lower=True, swap=True)
@given(seed=st.integers(0, 2**16), decimals=st.sampled_from([1, 2, 3]), size=st.sampled_from([40, 97, 150]),
       chunk=st.sampled_from([7, 50, 1000]), kind=st.sampled_from(["roc", "pr", "lift", "thresholds"]),
       lower=st.booleans(), swap=st.booleans())
def test_any_partitions_and_chunks_give_the_in_memory_curve(spark, seed, decimals, size, chunk, kind, lower, swap):
    """Range partitions of any size, several chunks each (the chunks of a partition stay in order when the
    partitions are moved for a lower direction)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(300, 900))
    y = (rng.random(n) < rng.uniform(0.2, 0.8)).astype(int)
    s = np.round(rng.normal(size=n) + y, decimals)
    positive, direction = (0 if swap else 1), ("lower" if lower else "higher")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(engine, "HELD_SCORES", 0)
        patch.setattr(engine, "PARTITION_SCORES", size)
        patch.setattr(spark_curves, "CHUNK", chunk)
        df = spark.createDataFrame(pd.DataFrame({"y": y, "p": s}))
        frame = assay.spark.curve(df, truth="y", score="p", kind=kind, positive=positive, direction=direction)
    assert frame.rdd.getNumPartitions() >= len(np.unique(s)) // size
    assert_same(frame, in_memory(y, s, kind, positive=positive, direction=direction))


def test_the_points_never_reach_the_driver(spark, on_executors, monkeypatch):
    """The driver makes no point of the curve (it names the columns from no entry), and fetches no entry of
    the summary while Spark makes the points."""
    made_on_driver = []
    real = assay.evaluation.ranking.CurveRows.of

    def counted(self, part, *, first):
        made_on_driver.append(len(part.thresholds))
        return real(self, part, first=first)

    monkeypatch.setattr(assay.evaluation.ranking.CurveRows, "of", counted)  # the driver's, not the executors'
    y, s = data(2)
    df = spark.createDataFrame(pd.DataFrame({"y": y, "p": s}))
    frame = assay.spark.curve(df, truth="y", score="p", kind="thresholds")
    on_executors.clear()
    assert frame.count() == len(np.unique(s))
    assert on_executors == [] and made_on_driver == [0]


def test_few_points_and_a_summary_the_driver_holds_are_made_there(spark, on_executors, monkeypatch):
    y, s = data(3, labels=("a", "b"))
    df = spark.createDataFrame(pd.DataFrame({"y": y, "p": s}))
    assert_same(assay.spark.curve(df, truth="y", score="p", kind="hull", positive="a"),
                in_memory(y, s, "hull", positive="a"))
    at = [-1.0, 0.0, 0.5, 2.0]
    assert_same(assay.spark.curve(df, truth="y", score="p", kind="thresholds", thresholds=at, direction="lower"),
                in_memory(y, s, "thresholds", positive="b", direction="lower", thresholds=at))
    monkeypatch.setattr(engine, "executors_have_assay", lambda sc, version: False)
    assert_same(assay.spark.curve(df, truth="y", score="p", kind="roc", direction="lower"),
                in_memory(y, s, "roc", positive="b", direction="lower"))


@pytest.mark.parametrize("options, said", [
    (dict(kind="roc", prevalence=0.2), "prevalence"),
    (dict(kind="pr", costs={"fp": 1}), "costs"),
    (dict(kind="roc", direction="auto"), "reads every distinct score on the driver"),
    (dict(kind="band"), "not one of"),
])
def test_options_a_curve_does_not_take_are_refused(spark, options, said):
    df = spark.createDataFrame(pd.DataFrame({"y": [0, 1, 0, 1], "p": [0.1, 0.4, 0.35, 0.8]}))
    with pytest.raises(assay.InvalidInput, match=said):
        assay.spark.curve(df, truth="y", score="p", **options)


# the command line ------------------------------------------------------------------------------------------


def run(capsys, *args):
    status = main(["curves", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def table(tmp_path):
    y, s = data(4, n=3000, labels=("neg", "pos"))  # four range partitions of 750 rows
    path = tmp_path / "preds.parquet"
    pd.DataFrame({"truth": y, "score": s}).to_parquet(path)
    return str(path)


def parts(directory):
    files = sorted(glob.glob(os.path.join(directory, "part-*")))
    assert files and not glob.glob(os.path.join(os.path.dirname(directory), ".assay-*"))
    return [Path(f).read_text() for f in files]


@pytest.mark.parametrize("args", [["--kind", "roc", "--direction", "lower"],
                                  ["--kind", "thresholds", "--prevalence", "0.2", "--costs", "fp=1,fn=3",
                                   "--positive", "neg"]],
                         ids=["roc lower", "thresholds"])
def test_the_cli_writes_parts_that_are_the_local_output(spark, on_executors, table, tmp_path, capsys, args):
    common = [table, "--truth", "truth", "--score", "score", *args]
    status, local, err = run(capsys, *common)
    assert status == 0, err
    out = tmp_path / "points"
    out.mkdir()  # an empty directory is replaced
    status, printed, err = run(capsys, *common, "--engine", "spark", "-o", str(out))
    assert (status, printed, err) == (0, "", "")
    texts = parts(str(out))
    assert len(texts) == 4  # one a range partition, each with its header
    header = local.split("\n", 1)[0] + "\n"
    assert all(text.startswith(header) for text in texts)
    assert header + "".join(text[len(header):] for text in texts) == local
    # without -o: the same text, printed a chunk at a time
    status, printed, err = run(capsys, *common, "--engine", "spark")
    assert (status, printed, err) == (0, local, "")


def test_the_cli_writes_json_lines(spark, on_executors, table, tmp_path, capsys):
    common = [table, "--truth", "truth", "--score", "score", "--kind", "pr", "--prevalence", "0.3",
              "--format", "json"]
    status, local, err = run(capsys, *common)
    assert status == 0, err
    want = json.loads(local)["columns"]
    status, printed, err = run(capsys, *common, "--engine", "spark", "-o", f"file://{tmp_path}/pr")
    assert status == 0, err  # a path with a scheme: written and renamed through Hadoop's file system
    lines = [json.loads(line) for text in parts(str(tmp_path / "pr")) for line in text.splitlines()]
    assert {name: [row[name] for row in lines] for name in want} == want
    status, printed, err = run(capsys, *common, "--engine", "spark")
    assert (status, printed) == (0, local), err


@pytest.mark.parametrize("args, said", [
    (["--roc-bins", "10", "-o", "points"], "--roc-bins does not apply to curves with --engine spark and -o DIR"),
    (["--direction", "auto"], "--direction auto does not apply with --engine spark"),
    (["--prevalence", "0.2"], "applies to the pr, lift and thresholds curves"),
    (["--na-values", "NA"], "--na-values applies to files read by assay"),
])
def test_the_cli_refuses_what_it_cannot_honour(table, capsys, args, said):
    status, out, err = run(capsys, table, "--truth", "truth", "--score", "score", "--engine", "spark", *args)
    assert status == 2 and out == "" and err.count("\n") == 1 and said in err, err


def test_the_cli_refuses_proba_and_verbose_without_spark(table, capsys):
    status, _, err = run(capsys, table, "--truth", "truth", "--proba", "neg,pos", "--engine", "spark")
    assert status == 2 and err.count("\n") == 1 and "--proba does not apply" in err
    status, _, err = run(capsys, table, "--truth", "truth", "--score", "score", "--verbose")
    assert status == 2 and err.count("\n") == 1 and "applies to --engine spark" in err


def test_the_cli_never_writes_over_an_input_or_a_full_directory(table, tmp_path, capsys):
    """Refused before Spark starts."""
    common = [table, "--truth", "truth", "--score", "score", "--engine", "spark"]
    before = Path(table).read_bytes()
    status, _, err = run(capsys, *common, "-o", table)
    assert status == 2 and err.count("\n") == 1 and "it is an input of this run" in err
    assert Path(table).read_bytes() == before
    full = tmp_path / "full"
    full.mkdir()
    (full / "keep.txt").write_text("mine")
    status, _, err = run(capsys, *common, "-o", str(full))
    assert status == 2 and err.count("\n") == 1 and "exists and is not empty" in err
    assert os.listdir(full) == ["keep.txt"]
    status, _, err = run(capsys, *common, "-o", str(tmp_path / "no" / "such"))
    assert status == 2 and "no such directory" in err


@pytest.mark.parametrize("bad, column, on_executors_path", [
    ("null", "score", False), ("null", "score", True), ("nan", "score", False), ("nan", "score", True),
    ("null", "truth", True),
], ids=["missing score", "missing score on the executors", "nan", "nan on the executors", "missing class"])
def test_the_cli_names_a_bad_row_in_one_line(spark, monkeypatch, tmp_path, capsys, bad, column, on_executors_path):
    """A missing score, a NaN or a missing class in the second part of a directory: exit status 2, one line
    naming the part, the column and the row's values, nothing printed or written; where the summary would be
    held by the driver and where it would stay on the executors (four range partitions)."""
    if on_executors_path:
        monkeypatch.setattr(engine, "HELD_SCORES", 0)
        monkeypatch.setattr(engine, "PARTITION_SCORES", 150)
    y, s = data(5, n=600, labels=("neg", "pos"))
    truth, missing = list(y), np.zeros(len(s), bool)
    if column == "truth":
        truth[417] = None
    elif bad == "null":
        missing[417] = True
    else:
        s[417] = np.nan  # written as a NaN by pyarrow (pandas' to_parquet would write a null)
    table = pa.table({"truth": pa.array(truth, pa.string()), "score": pa.array(s, mask=missing)})
    (tmp_path / "parts").mkdir()
    pq.write_table(table.slice(0, 300), tmp_path / "parts" / "part-0.parquet")
    pq.write_table(table.slice(300), tmp_path / "parts" / "part-1.parquet")
    out = tmp_path / "points"
    status, printed, err = run(capsys, str(tmp_path / "parts"), "--truth", "truth", "--score", "score",
                               "--kind", "roc", "--engine", "spark", "-o", str(out))
    assert status == 2 and printed == "", (status, err)
    assert err.count("\n") == 1 and "part-1.parquet" in err and f"column {column!r}: missing value" in err, err
    assert {"nan": "score = nan)", "null": "score = None)"}[bad] in err or column == "truth", err
    assert not out.exists() or os.listdir(out) == []
