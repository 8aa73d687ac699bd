"""The Spark engine: a local Spark session (local[2], conftest's, one for the whole run) gives exactly the
in-memory result, with only summaries reaching the driver."""

import json

import numpy as np
import pandas as pd
import pytest

import assay
from assay import InvalidInput
from assay.cli import main
from helpers import close

pyspark = pytest.importorskip("pyspark", reason="pip install 'assay[spark]' (the test extra has it)")


def data(seed=0, n=3000):
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.3, "pos", "neg")
    s = np.round(rng.random(n) + 0.3 * (y == "pos"), 2) / 1.3  # ties, within [0, 1]
    pred = np.where(rng.random(n) < 0.8, y, np.where(y == "pos", "neg", "pos"))
    return y, s, pred


@pytest.mark.parametrize("seed", [0, 1])
def test_scores_on_spark_equal_the_in_memory_result(spark, seed):
    y, s, _ = data(seed)
    df = spark.createDataFrame(pd.DataFrame({"y": y, "p": s})).repartition(3)
    got = assay.spark.evaluate(df, truth="y", score="p", threshold=0.4, bootstrap=200, fpr_range=(0, 0.2)).to_dict()
    want = assay.evaluate(y, y_score=s, threshold=0.4, bootstrap=200, fpr_range=(0, 0.2)).to_dict()
    for key in want:
        if key != "probabilistic":
            assert got[key] == want[key], key
    close(got["probabilistic"], want["probabilistic"])


def test_labels_on_spark_equal_the_in_memory_result(spark):
    y, _, pred = data(2)
    df = spark.createDataFrame(pd.DataFrame({"y": y, "yhat": pred}))
    assert assay.spark.evaluate(df, truth="y", pred="yhat", bootstrap=200).to_dict() == \
        assay.evaluate(y, y_pred=pred, bootstrap=200).to_dict()
    costs = {"fp": 1, "fn": 10}  # the expected cost of the labels, as in memory
    assert assay.spark.evaluate(df, truth="y", pred="yhat", bootstrap=200, costs=costs).to_dict() == \
        assay.evaluate(y, y_pred=pred, bootstrap=200, costs=costs).to_dict()
    matrix = {"neg": {"neg": 0, "pos": 2}, "pos": {"neg": 7, "pos": 0}}  # a cost matrix and the weighted kappa
    assert assay.spark.evaluate(df, truth="y", pred="yhat", bootstrap=200, cost_matrix=matrix,
                                kappa_weights="quadratic").to_dict() == \
        assay.evaluate(y, y_pred=pred, bootstrap=200, cost_matrix=matrix, kappa_weights="quadratic").to_dict()


def test_numeric_labels_and_negative_scores(spark):
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 500)
    s = np.round(rng.normal(size=500) + y, 1)
    df = spark.createDataFrame(pd.DataFrame({"y": y, "p": s}))
    got = assay.spark.rank(df, truth="y", score="p")
    want = assay.rank(y, y_score=s)
    assert got.to_dict() == want.to_dict()


def test_bad_values_are_named(spark):
    df = spark.createDataFrame(pd.DataFrame({"y": ["a", "b", "a"], "p": [0.1, float("nan"), 0.3]}))
    with pytest.raises(InvalidInput, match="column 'p': missing value"):
        assay.spark.evaluate(df, truth="y", score="p")
    with pytest.raises(InvalidInput, match="column 'q' is not in the DataFrame"):
        assay.spark.evaluate(df, truth="y", score="q")
    with pytest.raises(InvalidInput, match="expected a pyspark DataFrame"):
        assay.spark.evaluate(pd.DataFrame({"y": [1]}), truth="y", score="y")


def test_report_engine_spark_equals_local(spark, tmp_path, capsys):
    y, s, _ = data(3, 800)
    directory = tmp_path / "preds"
    spark.createDataFrame(pd.DataFrame({"y": y, "p": s})).repartition(2).write.parquet(str(directory))
    whole = tmp_path / "all.csv"
    whole.write_text("y,p\n" + "".join(f"{a},{float(b)!r}\n" for a, b in zip(y, s)))
    common = ["--truth", "y", "--score", "p", "--threshold", "0.4", "--bootstrap", "200", "--format", "json"]
    assert main(["report", str(directory), "--engine", "spark", *common]) == 0
    got = json.loads(capsys.readouterr().out)
    assert main(["report", str(whole), *common]) == 0
    want = json.loads(capsys.readouterr().out)
    for key in want:
        if key not in ("probabilistic", "input"):
            assert got[key] == want[key], key
    assert got["input"]["engine"] == "spark"


def test_range_partitions_and_a_summary_spilled_on_the_driver(spark, monkeypatch, tmp_path):
    """Distinct scores in many range partitions (40 a partition here), streamed to the driver, merged and
    spilled past a tiny budget: equal to the in-memory result (counts exactly, areas to 1e-12)."""
    import tempfile

    from assay.engines import spark as engine

    monkeypatch.setattr(engine, "PARTITION_SCORES", 40)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    rng = np.random.default_rng(4)
    y = np.where(rng.random(2000) < 0.4, 1, 0)
    s = np.round(rng.normal(size=2000) + y, 2)  # both signs, ties: about 500 distinct scores
    df = spark.createDataFrame(pd.DataFrame({"y": y, "p": s})).repartition(3)
    told = []
    result = assay.spark.evaluate(df, truth="y", score="p", threshold=0.0, memory=1, fpr_range=(0.1, 0.5),
                                  progress=lambda done, total: told.append((done, total)))
    assert result.ranking.summary.on_disk
    # the progress: nothing known, then the rows in all, then the rows counted as each range arrives
    assert told[0] == (0, None) and told[1] == (0, 2000) and told[-1] == (2000, 2000) and len(told) > 4
    assert all(a[0] <= b[0] for a, b in zip(told[1:], told[2:]))
    got = result.to_dict()
    want = assay.evaluate(y, y_score=s, threshold=0.0, fpr_range=(0.1, 0.5)).to_dict()
    got["notes"] = [note for note in got["notes"] if "spilled" not in note]
    for key in set(want) - {"input"}:
        close(got[key], want[key])
    assert result.ranking.summary == assay.evaluate(y, y_score=s, threshold=0.0).ranking.summary
    assert list(tmp_path.iterdir()) == []


def test_direction_lower_and_auto_as_in_memory(spark):
    import csv
    from pathlib import Path

    with open(Path(__file__).resolve().parent / "data" / "asah.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    y, s = np.array([r["outcome"] for r in rows]), np.array([float(r["ndka"]) for r in rows])
    df = spark.createDataFrame(pd.DataFrame({"y": y, "s": -s}))
    got = assay.spark.evaluate(df, truth="y", score="s", positive="Poor", direction="auto")
    want = assay.evaluate(y, y_score=-s, pos_label="Poor", direction="auto")
    assert got.direction == want.direction == "lower"
    assert got.ranking.roc_auc == want.ranking.roc_auc
    assert got.to_dict()["ranking"]["best_thresholds"] == want.to_dict()["ranking"]["best_thresholds"]


@pytest.mark.parametrize("kind", ["--score", "--pred", "compare"])
def test_boolean_classes_are_named_as_files_name_them(spark, tmp_path, capsys, kind):
    """A column of true/false read by Spark came back as the classes 'True' and 'False', and by assay's own
    reader (in memory and in batches) as 'true' and 'false': the same file now gives the same classes."""
    rng = np.random.default_rng(4)
    y = rng.random(60) < 0.4
    a, b = rng.random(60) < 0.5, rng.random(60) < 0.5
    s = np.round(rng.random(60), 2)
    path = tmp_path / "bools.csv"
    path.write_text("y,a,b,s\n" + "".join(f"{str(t).lower()},{str(u).lower()},{str(v).lower()},{w}\n"
                                          for t, u, v, w in zip(y, a, b, s)))
    args = {"--score": ["report", str(path), "--truth", "y", "--score", "s"],
            "--pred": ["report", str(path), "--truth", "y", "--pred", "a"],
            "compare": ["compare", str(path), "--truth", "y", "--pred", "a", "--pred", "b"]}[kind]
    outputs = []
    for engine in (["--engine", "spark"], [], ["--memory", "1MB"]):
        assert main([*args, "--format", "json", *engine]) == 0
        outputs.append(capsys.readouterr().out)
    spark_out, memory_out, batches_out = outputs
    assert '"true"' in memory_out and '"True"' not in spark_out
    for key in ("labels", "positive"):
        if key in json.loads(memory_out):
            assert json.loads(spark_out)[key] == json.loads(memory_out)[key] == json.loads(batches_out)[key]
