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
