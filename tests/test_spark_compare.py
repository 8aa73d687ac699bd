"""assay.spark.compare and `assay compare --engine spark`: models compared on the same rows of a DataFrame
equal assay.compare on the collected columns (DeLong's sums to 1e-9: Spark adds in its own order), with the
placements made on the executors and only sums, totals and groups reaching the driver. Spark runs in
conftest's one session."""

import json

import numpy as np
import pandas as pd
import pytest

import assay
from assay import InvalidInput
from assay.cli import main
from helpers import close

pytest.importorskip("pyspark", reason="pip install 'assay[spark]' (the test extra has it)")
import assay.spark  # noqa: E402


def table(seed=0, n=2000):
    """Two classes, three score models (ties; one pointing down, not within [0, 1]) and three label models."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.3, "pos", "neg")
    return pd.DataFrame({
        "y": y,
        "a": np.round(rng.random(n) + 0.3 * (y == "pos"), 2) / 1.3,
        "b": np.round(rng.random(n) + 0.2 * (y == "pos"), 2) / 1.3,
        "c": np.round(rng.normal(size=n) - (y == "pos"), 1),
        "ta": np.where(rng.random(n) < 0.8, y, "neg"),
        "tb": np.where(rng.random(n) < 0.7, y, "pos"),
        "tc": np.where(rng.random(n) < 0.6, y, "pos"),
    })


def in_memory(frame, columns, kind, **options):
    return assay.compare(frame["y"].to_numpy(), *({kind: frame[c].to_numpy()} for c in columns), names=columns,
                         **options)


def test_scores_on_spark_equal_the_collected_columns(spark):
    frame = table()
    df = spark.createDataFrame(frame)  # its order is the frame's: the groups' first rows agree
    # (two models at a number threshold: the command line's test below)
    options = {"direction": "auto", "threshold": "youden", "bootstrap": 200, "adjust": "bonferroni"}
    got = assay.spark.compare(df, truth="y", scores=["a", "b", "c"], **options)
    want = in_memory(frame, ["a", "b", "c"], "y_score", **options)
    close(got.to_dict(), want.to_dict())
    assert [r.direction for r in got.reports] == ["higher", "higher", "lower"]
    assert got.pair("a", "c").tests["delong"].pvalue == pytest.approx(want.pair("a", "c").tests["delong"].pvalue,
                                                                      rel=1e-9)


def test_labels_on_spark_equal_the_collected_columns(spark):
    frame = table(1)
    df = spark.createDataFrame(frame)
    got = assay.spark.compare(df, truth="y", preds=["ta", "tb", "tc"], bootstrap=200)
    want = in_memory(frame, ["ta", "tb", "tc"], "y_pred", bootstrap=200)
    close(got.to_dict(), want.to_dict())
    assert got.tests["cochran_q"].correct_counts == want.tests["cochran_q"].correct_counts


def test_the_command_line_compares_a_directory_on_spark(spark, tmp_path, capsys):
    frame = table(2, 600)
    (tmp_path / "parts").mkdir()
    frame.iloc[:300].to_parquet(tmp_path / "parts" / "part-0.parquet")
    frame.iloc[300:].to_parquet(tmp_path / "parts" / "part-1.parquet")
    args = ["compare", str(tmp_path / "parts"), "--truth", "y", "--score", "a", "--score", "b", "--threshold", "0.4",
            "--bootstrap", "200", "--format", "json"]
    assert main([*args, "--engine", "spark", "-o", str(tmp_path / "spark.json")]) == 0
    assert main([*args, "-o", str(tmp_path / "local.json")]) == 0
    got, want = (json.loads((tmp_path / f).read_text()) for f in ("spark.json", "local.json"))
    assert [m["input"]["engine"] for m in got["models"]] == ["spark", "spark"]
    for d in (got, want):
        for m in d["models"]:
            m.pop("input")
        # the bootstrap draws the groups in the order of their first row: Spark's order of the parts (it packs
        # them by size) is not the local reader's, so its replicates are others of the same distribution
        d["tests"].pop("accuracy_difference")
    close(got, want)
    capsys.readouterr()
    assert main(["compare", str(tmp_path / "parts"), "--truth", "y", "--score", "a", "--score", "nope",
                 "--engine", "spark"]) == 2
    err = capsys.readouterr().err
    assert "'nope'" in err and len(err.strip().splitlines()) == 1


def test_bad_calls_are_refused(spark):
    df = spark.createDataFrame(table(3, 50))
    with pytest.raises(InvalidInput, match="one of the two"):
        assay.spark.compare(df, truth="y")
    with pytest.raises(InvalidInput, match="two column names"):
        assay.spark.compare(df, truth="y", scores=["a"])
    with pytest.raises(InvalidInput, match="threshold applies"):
        assay.spark.compare(df, truth="y", preds=["ta", "tb"], threshold=0.5)
    with pytest.raises(InvalidInput, match="unknown options"):
        assay.spark.compare(df, truth="y", scores=["a", "b"], fpr_rang=(0, 1))


@pytest.mark.parametrize("flag", [["--na-values", "NA"], ["--delimiter", ";"], ["--decimal", ","]])
@pytest.mark.parametrize("command", [["report", "--score", "p"], ["compare", "--score", "p", "--score", "q"]])
def test_options_of_assay_s_own_reader_are_refused_on_spark(tmp_path, capsys, flag, command):
    path = tmp_path / "s.csv"
    path.write_text("y,p,q\n1,0.3,0.2\n0,0.2,0.1\n")
    assert main([command[0], str(path), "--truth", "y", *command[1:], "--engine", "spark", *flag]) == 2
    err = capsys.readouterr().err
    assert f"{flag[0]} applies to files read by assay" in err and len(err.strip().splitlines()) == 1



# many partitions, summaries kept on the executors ----------------------------------------------------------


@pytest.fixture
def many_partitions(on_executors, monkeypatch):
    """conftest's ``on_executors`` (every score summary kept on the executors, range partitions of 750
    rows) and each model's placement table in range partitions of 20 distinct scores (patched where
    spark_compare reads it: it imports PARTITION_SCORES from assay.engines.spark by name). Recorded: the
    range partitions of each summary kept on the executors, and of each placement table made."""
    from assay.engines import spark as engine
    from assay.engines import spark_compare
    from assay.engines.spark_ranges import SparkRanges

    monkeypatch.setattr(spark_compare, "PARTITION_SCORES", 20)
    made = {"summaries": [], "placements": []}
    kept, placed = engine.kept_summary, spark_compare._placement_table

    def kept_summary(*args, **kwargs):
        summary = kept(*args, **kwargs)
        ranges = getattr(summary.scores, "summary", None)
        made["summaries"].append(len(ranges.order) if isinstance(ranges, SparkRanges) else 0)
        return summary

    def placement_table(rows, distinct):
        table, ordered = placed(rows, distinct)
        made["placements"].append(ordered.rdd.getNumPartitions())
        return table, ordered

    monkeypatch.setattr(engine, "kept_summary", kept_summary)
    monkeypatch.setattr(spark_compare, "_placement_table", placement_table)
    return made


def same(a, b):
    """Two test results equal field by field (arrays element by element)."""
    assert type(a) is type(b)
    for name, value in vars(a).items():
        if isinstance(value, np.ndarray):
            assert np.array_equal(value, getattr(b, name)), name
        else:
            assert value == getattr(b, name), name


def test_many_partitions_and_summaries_on_the_executors_equal_the_collected_columns(spark, many_partitions):
    """Three models (ties, one pointing down with scores of both signs, string classes) at a threshold:
    each model's summary kept on the executors in 3 range partitions and its placements in 4 or more;
    DeLong's paired statistic and p-value equal assay.delong_test on the collected columns (each model's
    scores negated where lower means positive) to 1e-9; McNemar, the accuracy difference's bootstrap and
    Cochran's Q equal the in-memory compare exactly (they are counts), the rest to 1e-9."""
    frame = table(4)
    df = spark.createDataFrame(frame)  # in the frame's order: the groups' first rows agree
    options = {"direction": "auto", "threshold": 0.4, "bootstrap": 200}
    got = assay.spark.compare(df, truth="y", scores=["a", "b", "c"], **options)
    want = in_memory(frame, ["a", "b", "c"], "y_score", **options)
    assert many_partitions["summaries"] == [3, 3, 3], many_partitions
    assert len(many_partitions["placements"]) == 3 and min(many_partitions["placements"]) >= 4, many_partitions
    assert [r.direction for r in got.reports] == ["higher", "higher", "lower"]
    is_positive = frame["y"].to_numpy() == "pos"
    ranked = {c: (-1 if r.direction == "lower" else 1) * frame[c].to_numpy() for c, r in zip("abc", got.reports)}
    for first, second in (("a", "b"), ("a", "c"), ("b", "c")):
        tests, theirs = got.pair(first, second).tests, want.pair(first, second).tests
        reference = assay.delong_test(is_positive, ranked[first], ranked[second])
        delong = tests["delong"]
        for name in ("statistic", "pvalue", "difference", "se", "auc1", "auc2", "correlation"):
            assert getattr(delong, name) == pytest.approx(getattr(reference, name), rel=1e-9, abs=1e-15), name
        assert (delong.n_positive, delong.n_negative) == (reference.n_positive, reference.n_negative)
        same(tests["mcnemar"], theirs["mcnemar"])
        same(tests["accuracy_difference"], theirs["accuracy_difference"])
    same(got.tests["cochran_q"], want.tests["cochran_q"])
    close(got.to_dict(), want.to_dict())


def test_the_command_line_on_the_executors_in_many_partitions(spark, many_partitions, on_executors, monkeypatch,
                                                             tmp_path, capsys):
    """`assay compare --engine spark` with each summary kept on the executors in 4 range partitions and each
    placement table in 6 or more: the JSON equals the local engine's (where each input was read aside)."""
    from assay.engines import spark as engine

    monkeypatch.setattr(engine, "PARTITION_SCORES", 150)
    frame = table(5, 600)
    frame.to_parquet(tmp_path / "scores.parquet")
    args = ["compare", str(tmp_path / "scores.parquet"), "--truth", "y", "--score", "a", "--score", "c",
            "--direction", "auto", "--threshold", "0.4", "--bootstrap", "200", "--format", "json"]
    assert main([*args, "--engine", "spark", "-o", str(tmp_path / "spark.json")]) == 0
    assert main([*args, "-o", str(tmp_path / "local.json")]) == 0
    got, want = (json.loads((tmp_path / f).read_text()) for f in ("spark.json", "local.json"))
    assert many_partitions["summaries"] == [4, 4], many_partitions
    assert len(many_partitions["placements"]) == 2 and min(many_partitions["placements"]) >= 3, many_partitions
    assert on_executors  # the driver read entries of the summaries from the executors
    for d in (got, want):
        for m in d["models"]:
            m.pop("input")
    close(got, want)


# bad data --------------------------------------------------------------------------------------------------

BAD = [  # (what the row holds, the column named, the problem)
    (("pos", 0.4, None, "pos", "neg"), "b", "missing value"),
    (("neg", 0.4, float("nan"), "pos", "neg"), "b", "missing value"),
    ((None, 0.4, 0.5, "pos", "neg"), "y", "missing value"),
    (("pos", 0.4, float("inf"), "pos", "neg"), "b", "inf is not a finite number"),
    (("neg", 0.4, 0.5, "pos", None), "tb", "missing value"),
]


@pytest.mark.parametrize("bad, column, problem", BAD,
                         ids=["missing score", "nan", "missing class", "infinite", "missing label"])
def test_a_bad_row_is_named_in_one_line(spark, bad, column, problem):
    """A missing or non-finite score, a missing class or a missing predicted label, among clean rows: the
    error is one line naming the column, with the row's values (Spark rows have no number)."""
    rows = [("pos" if i % 3 else "neg", i / 40, (i % 7) / 7, "pos", "neg" if i % 2 else "pos") for i in range(40)]
    rows[23] = bad
    df = spark.createDataFrame(rows, "y string, a double, b double, ta string, tb string").repartition(2)
    models = {"preds": ["ta", "tb"]} if column == "tb" else {"scores": ["a", "b"], "threshold": 0.5}
    with pytest.raises(InvalidInput) as caught:
        assay.spark.compare(df, truth="y", **models)
    message = str(caught.value)
    assert f"column {column!r}" in message and problem in message, message
    assert "\n" not in message and "a row with y = " in message, message
