"""Class probabilities of several classes on Spark (assay.engines.spark_proba): the same report as in memory
and as data read in batches. Counts, confusion matrices, one-vs-rest AUCs with DeLong's interval and the
average precisions exactly (the same integer counts reach the same code); Hand and Till's M and the
averages of the AUCs and average precisions to 1e-12 and without a bootstrap interval (as in batches: no instances to resample); the probabilistic
losses, calibration and the costs of the decisions to 1e-12 relative (sums taken over other pieces, in another
order). Bad values are one line naming the column and the row's values; options the Spark path cannot honour
are refused in one line."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest
from helpers import close

import assay
from assay import InvalidInput
from assay.cli import main
from assay.evaluation.stream import evaluate_batches

pd = pytest.importorskip("pandas")
pytest.importorskip("pyspark", reason="pip install 'assay[spark]' (the test extra has it)")

import assay.spark
from assay.engines import spark as engine
from assay.engines import spark_proba, spark_ranges

CLASSES = ["VF", "F", "M", "L"]
AVERAGES = ("hand_till", "roc_auc_ovr_macro", "roc_auc_ovr_weighted", "average_precision_macro",
            "average_precision_micro", "average_precision_weighted")  # no bootstrap interval from summaries
COST = [[0, 1, 2, 4], [1, 0, 1, 2], [2, 1, 0, 1], [4, 2, 1, 0]]


def table(seed: int = 3, n: int = 240) -> pd.DataFrame:
    """Four classes named as text, probabilities in twentieths (many ties) summing to 1; class L is in the
    truth but never the most probable (a class absent from the predictions)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, n)
    p = rng.dirichlet(np.ones(4), n)
    p[np.arange(n), y] += 1.0
    p[:, 3] *= 0.05
    p /= p.sum(axis=1, keepdims=True)
    p = np.floor(p * 20) / 20
    p[:, 0] = 1 - p[:, 1:].sum(axis=1)  # VF takes the rest: the sums are 1
    p = np.round(p, 2)
    assert not (np.argmax(p, axis=1) == 3).any() and (y == 3).any()
    return pd.DataFrame({"obs": np.array(CLASSES)[y], **{c: p[:, i] for i, c in enumerate(CLASSES)}})


def same(got: dict, want: dict) -> None:
    """Every number of the report equal: exactly, but the averages' value, and the sums over the instances (the
    losses, the calibration, the costs of the decisions: means merged from parts), to 1e-12."""
    assert set(got) == set(want)
    sums = {"probabilistic", "cost_decisions"}
    for key in set(want) - sums - {"ranking", "notes", "input"}:
        assert got[key] == want[key], key
    for key in sums & set(want):
        close(got[key], want[key], key, rel=1e-12)
    ranking, expected = got["ranking"], want["ranking"]
    assert set(ranking) == set(expected)
    for key in set(expected) - set(AVERAGES):
        assert ranking[key] == expected[key], key
    for name in AVERAGES:
        assert ranking[name]["value"] == pytest.approx(expected[name]["value"], rel=1e-12, abs=1e-12), name
        assert ranking[name]["ci"] is None and "no instances to resample" in ranking[name]["note"]


@pytest.mark.parametrize("where", ["executors", "driver"])
def test_several_classes_equal_in_memory_and_in_batches(spark, monkeypatch, spill_dir, where):
    """Executors summarising their partitions (or the driver, where they lack assay), the class counts in
    range partitions of 7 distinct probabilities (each column's run split across them), and one-vs-rest
    summaries past their share of the budget (spilled to the driver's temporary directory)."""
    monkeypatch.setattr(engine, "EXECUTORS_WALK", where == "executors")
    monkeypatch.setattr(engine, "PARTITION_SCORES", 7)
    if where == "driver":  # executors without assay: the counts come to the driver however many they are
        monkeypatch.setattr(spark_proba, "HELD_PROBABILITIES", 0)
    read = []
    monkeypatch.setattr(spark_proba._Stream, "_next", lambda self, next=spark_proba._Stream._next: read.append(1)
                        or next(self))
    frame = table()
    options = {"bootstrap": 200, "top_k": 2, "cost_matrix": COST, "calibration_bins": 5, "clip": 1e-3}
    df = spark.createDataFrame(frame).repartition(3)
    result = assay.spark.evaluate(df, truth="obs", proba=CLASSES, memory=1, **options)
    got = result.to_dict()
    want = assay.evaluate(frame["obs"].to_numpy(), y_proba=frame[CLASSES], **options).to_dict()
    same(got, want)
    assert got["confusion"]["actual_by_predicted"] and got["metrics"]["top_k_accuracy"]["value"] > 0
    assert any("came to the driver a range partition at a time" in note for note in result.notes)
    assert len(read) > 4 and all(summary.on_disk for summary in result.ranking.summaries)  # spilled, read in pieces
    parts = [(frame["obs"].to_numpy()[a:b], frame[CLASSES].iloc[a:b]) for a, b in [(0, 100), (100, 240)]]
    batches = evaluate_batches(parts, kind="y_proba", **options).to_dict()
    assert got["ranking"] == batches["ranking"]  # the same scans' counts, to the last bit
    close(got["probabilistic"], batches["probabilistic"], "probabilistic", rel=1e-12)


@pytest.fixture
def kept(monkeypatch):
    """The class counts kept on the executors (their path forced: at most 10 distinct probabilities of all the
    columns come to the driver), in range partitions of about 7, windows of 16 entries; the entries each read
    on the driver fetches counted."""
    fetched: list[int] = []
    monkeypatch.setattr(spark_proba, "HELD_PROBABILITIES", 10)
    monkeypatch.setattr(engine, "PARTITION_SCORES", 7)
    monkeypatch.setattr(spark_ranges, "WINDOW", 16)
    monkeypatch.setattr(spark_proba, "FETCHED", fetched.append)
    return fetched


def remote_of(summary):
    """The partitions on the executors a one-vs-rest summary reads."""
    return summary.scores.summary.remote


def test_counts_kept_on_the_executors_equal_in_memory_and_in_batches(spark, kept):
    """Each class's one-vs-rest summary kept on the executors (column L's 6 distinct probabilities taken whole,
    the others' walked there), in 10 range partitions of (column, probability) some of which hold the end of
    one column and the start of the next: the counts, the confusion matrix, Hand and Till's pairwise counts
    exactly (M equal to the batches' to the last bit), the areas (sums over other pieces) to 1e-12. Ties: 240
    rows on at most 20 probabilities a column; in each column, a class absent at some of its probabilities."""
    frame = table()
    assert (frame.groupby("obs")[CLASSES].nunique() < frame[CLASSES].nunique()).any().all()
    options = {"bootstrap": 200, "top_k": 2, "cost_matrix": COST}
    df = spark.createDataFrame(frame).repartition(3)
    result = assay.spark.evaluate(df, truth="obs", proba=CLASSES, **options)
    got = result.to_dict()
    want = assay.evaluate(frame["obs"].to_numpy(), y_proba=frame[CLASSES], **options).to_dict()
    for key in set(want) - {"ranking", "notes", "input", "probabilistic", "cost_decisions"}:
        assert got[key] == want[key], key
    for key in set(want["ranking"]) - set(AVERAGES):
        close(got["ranking"][key], want["ranking"][key], key, rel=1e-12)
    for name in AVERAGES:  # no bootstrap interval from summaries
        assert got["ranking"][name]["value"] == pytest.approx(want["ranking"][name]["value"], rel=1e-12), name
    parts = [(frame["obs"].to_numpy()[a:b], frame[CLASSES].iloc[a:b]) for a, b in [(0, 100), (100, 240)]]
    batches = evaluate_batches(parts, kind="y_proba", **options)
    assert result.ranking.hand_till.value == batches.ranking.hand_till.value
    assert any("10 range partitions in all) stayed on the executors" in note for note in result.notes)
    summaries = result.ranking.summaries
    assert [s.on_disk for s in summaries] == [True, False, True, True]  # F, L (6 distinct: taken whole), M, VF
    offsets = remote_of(summaries[0]).kept.offsets
    assert len({index for index, _ in offsets}) < len(offsets)  # partitions shared by two columns
    for mine, theirs in zip(summaries, batches.ranking.summaries, strict=True):  # the same counts
        for column in ("scores", "positives", "negatives"):
            assert np.array_equal(np.asarray(getattr(mine, column)), np.asarray(getattr(theirs, column)))


def test_what_reaches_the_driver_does_not_grow_with_the_probabilities(spark, kept, monkeypatch):
    """Probabilities in twentieths or in thousandths (about 12 times the distinct values), in 4 range
    partitions either way: the driver reads no entry of a summary and collects about as many bytes (partition
    totals, skeletons of 2 entries, partial results), the micro average precision included (the k summaries
    pooled into one more, kept on the executors too), which equals the in-memory one."""
    from pyspark import rdd

    monkeypatch.setattr(spark_proba, "HELD_PROBABILITIES", 0)
    monkeypatch.setattr(spark_ranges, "WINDOW", 2048)  # a skeleton of 2 entries a partition
    collected: list[int] = []
    for name in ("collect", "runJob"):
        owner = rdd.RDD if name == "collect" else type(spark.sparkContext)
        real = getattr(owner, name)

        def counted(*args, real=real, **kwargs):
            out = real(*args, **kwargs)
            collected.append(len(pickle.dumps(out)))
            return out

        monkeypatch.setattr(owner, name, counted)
    rng = np.random.default_rng(9)
    y = rng.integers(0, 3, 400)
    p = rng.dirichlet(np.ones(3), 400)
    p[np.arange(400), y] += 0.5
    p /= p.sum(axis=1, keepdims=True)
    sizes, bytes_ = [], []
    for step in (20, 1000):
        q = np.floor(p * step) / step
        q[:, 0] = 1 - q[:, 1:].sum(axis=1)
        frame = pd.DataFrame({"y": np.array(["a", "b", "c"])[y], "a": q[:, 0], "b": q[:, 1], "c": q[:, 2]})
        distinct = sum(frame[c].nunique() for c in "abc")
        monkeypatch.setattr(engine, "PARTITION_SCORES", -(-distinct // 4))
        collected.clear()
        result = assay.spark.evaluate(spark.createDataFrame(frame), truth="y", proba=["a", "b", "c"])
        assert any("4 range partitions in all) stayed on the executors" in note for note in result.notes)
        assert kept == [] and result.ranking.macro.value > 0.5
        want = assay.evaluate(frame["y"].to_numpy(), y_proba=frame[["a", "b", "c"]])
        assert result.ranking.average_precision_micro.value == pytest.approx(want.ranking.average_precision_micro.value,
                                                                             rel=1e-12)
        sizes.append(distinct)
        bytes_.append(sum(collected))
    assert sizes[1] > 10 * sizes[0] and bytes_[1] < 1.5 * bytes_[0], (sizes, bytes_)


def test_classes_given_as_pairs_and_two_classes_as_a_score(spark):
    frame = table(4, 120)
    df = spark.createDataFrame(frame.rename(columns={c: f"p_{c}" for c in CLASSES}))
    got = assay.spark.evaluate(df, truth="obs", proba={c: f"p_{c}" for c in CLASSES}, bootstrap=200).to_dict()
    same(got, assay.evaluate(frame["obs"].to_numpy(), y_proba=frame[CLASSES], bootstrap=200).to_dict())
    rng = np.random.default_rng(5)
    yes = np.round(rng.random(150), 2)
    y = np.where(rng.random(150) < yes, "yes", "no")
    two = pd.DataFrame({"y": y, "no": 1 - yes, "yes": yes})
    got = assay.spark.evaluate(spark.createDataFrame(two), truth="y", proba=["no", "yes"], bootstrap=200).to_dict()
    want = assay.evaluate(y, y_proba=two[["no", "yes"]], bootstrap=200).to_dict()
    assert got["positive"] == want["positive"] == "yes"
    for key in set(want) - {"probabilistic", "input"}:
        assert got[key] == want[key], key
    close(got["probabilistic"], want["probabilistic"], rel=1e-12)


@pytest.mark.parametrize("change, said", [
    (lambda f: f.assign(M=f["M"].where(f.index != 17, 0.9)),
     (r"^the probability columns: row sums to 1\.\d+, not 1 \(tolerance 1e-6\) \(a row with obs = '\w+', F = "
      r"[\d.]+, L = [\d.]+, M = 0\.9, VF = [\d.]+\)$")),
    (lambda f: f.assign(F=f["F"].where(f.index != 5, -0.5)),
     r"^column 'F': -0\.5 is not a probability in \[0, 1\] \(a row with obs = '\w+', F = -0\.5, L = "),
    (lambda f: f.assign(L=f["L"].where(f.index != 9, np.nan)),
     r"^column 'L': missing value \(a row with obs = '\w+', F = [\d.]+, L = (None|nan), "),
    (lambda f: f.assign(obs=f["obs"].where(f.index != 3, "XX")),
     r"^column 'obs': 'XX' is not one of the classes \['F', 'L', 'M', 'VF'\] \(a row with obs = 'XX', "),
])
def test_a_bad_value_is_one_line_naming_the_column_and_the_row(spark, change, said):
    df = spark.createDataFrame(change(table(6, 60))).repartition(2)
    with pytest.raises(InvalidInput, match=said) as caught:
        assay.spark.evaluate(df, truth="obs", proba=CLASSES)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("options, said", [
    ({"positive": "VF"}, "positive: a positive class applies to two-class data; these data have 4 classes"),
    ({"calibration_strategy": "quantile"}, ("calibration_strategy: quantile calibration bins of several classes "
                                            "are not computed on Spark yet; use uniform bins")),
    ({"labels": CLASSES}, "labels: the classes are the probability columns'"),
    ({"direction": "lower"}, "direction: a direction applies to a score column"),
    ({"threshold": 0.3}, "threshold"),
])
def test_options_it_cannot_honour_are_refused(spark, options, said):
    df = spark.createDataFrame(table(7, 20))
    with pytest.raises(InvalidInput) as caught:
        assay.spark.evaluate(df, truth="obs", proba=CLASSES, **options)
    assert str(caught.value).startswith(said) and "\n" not in str(caught.value)


def run(capsys, *args):
    status = main(["report", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_the_command_line(spark, tmp_path, capsys):
    """``assay report --engine spark --proba`` (a directory of Parquet parts) gives the report of the same rows
    in one CSV file, read in memory; a bad row, an option it cannot honour: exit 2, one line."""
    frame = table(8, 200)
    parts = tmp_path / "preds"
    parts.mkdir()
    frame.iloc[:90].to_parquet(parts / "part-0.parquet")
    frame.iloc[90:].to_parquet(parts / "part-1.parquet")
    whole = tmp_path / "all.csv"
    frame.to_csv(whole, index=False)
    common = ["--truth", "obs", "--top-k", "2", "--bootstrap", "200", "--format", "json"]
    status, out, err = run(capsys, str(parts), "--engine", "spark", "--proba", "VF=VF,F=F,M=M,L=L", *common)
    assert (status, err) == (0, ""), err
    got = json.loads(out)
    status, out, err = run(capsys, str(whole), "--proba", "VF,F,M,L", *common)
    assert status == 0, err
    same(got, json.loads(out))
    assert got["input"]["engine"] == "spark" and got["input"]["proba"] == CLASSES

    bad = frame.copy()
    bad.loc[150, "M"] = 0.9
    path = tmp_path / "bad.csv"
    bad.to_csv(path, index=False)
    status, out, err = run(capsys, str(path), "--engine", "spark", "--truth", "obs", "--proba", "VF,F,M,L")
    assert status == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("assay: error: the probability columns: row sums to 1.") and "a row with obs =" in err
    status, out, err = run(capsys, str(whole), "--engine", "spark", "--truth", "obs", "--proba", "VF,F,M,L",
                           "--calibration", "quantile")
    assert (status, out) == (2, "") and err.count("\n") == 1, err
    assert "quantile calibration bins of several classes are not computed on Spark yet" in err
