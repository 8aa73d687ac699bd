"""Reads of a score summary that walk it as folds or read a few entries by index, never the whole of it on the
driver: the quantile reliability table's bins (``CalibrationBinsFold``, one walk) and ``ScoreCounts.binned``
(Spark's numBins: differences of the cumulative counts at the groups' ends).

In memory and on disk, the fold equals the loop it replaced (a chunk of distinct scores at a time, binned with
``bin_index`` and summed with ``bincount``): counts exactly, the sums of scores to 1e-12 relative (weights:
their counts to 1e-12 too); ``binned`` equals ``np.add.reduceat`` over the groups (counts exactly). On Spark,
with the summary kept on the executors in several range partitions, ``--calibration quantile`` and
``roc_bins`` equal the in-memory result, and the entries fetched to the driver do not grow with the distinct
scores (the oracle: the in-memory evaluation; the old loop, written out below).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import close, same_hierarchy, without_notes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import assay
from assay.cli import main
from assay.evaluation.probabilistic import quantile_table_of_counts
from assay.metrics.ranking import threshold_counts, walk_summary
from assay.summaries import disk, spill
from assay.summaries.probabilities import ProbabilityFold, bin_index
from assay.summaries.scores import ScoreCounts
from assay.summaries.spill import Run, merge_runs


def old_loop(summary, edges, chunk):
    """The binning loop ``quantile_table_of_counts`` ran before the fold: every chunk read on the caller."""
    bins = len(edges) - 1
    count, predicted, observed = np.zeros(bins), np.zeros(bins), np.zeros(bins)
    for start in range(0, len(summary), chunk):
        scores = np.asarray(summary.scores[start:start + chunk], dtype=np.float64)
        pos = np.asarray(summary.positives[start:start + chunk], dtype=np.float64)
        neg = np.asarray(summary.negatives[start:start + chunk], dtype=np.float64)
        where = bin_index(scores, edges)
        count += np.bincount(where, weights=pos + neg, minlength=bins)
        predicted += np.bincount(where, weights=(pos + neg) * scores, minlength=bins)
        observed += np.bincount(where, weights=pos, minlength=bins)
    return count, predicted, observed


@st.composite
def summaries(draw):
    """Two-class scores in [0, 1]: ties, one distinct score, a class absent, integer counts or weights."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.integers(1, 300))
    kind = draw(st.sampled_from(["ties", "distinct", "single", "one class"]))
    y = rng.random(n) < 0.4
    if kind == "ties":
        s = np.round(rng.random(n), 1)
    elif kind == "single":
        s = np.full(n, 0.3)
    else:
        s = rng.random(n)
    if kind == "one class":
        y[:] = draw(st.booleans())
    weights = rng.random(n) * 3 + 0.1 if draw(st.booleans()) else None
    return ScoreCounts.from_arrays(y, s, sample_weight=weights, labels=("no", "yes"))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(summaries(), st.integers(1, 12), st.sampled_from([5, 64, 1 << 17]))
def test_the_quantile_bins_fold_equals_the_loop_it_replaced(monkeypatch, sc, bins, chunk):
    with monkeypatch.context() as m:  # pieces of `chunk` distinct scores, worked on two threads
        m.setattr(disk, "CHUNK", chunk)
        m.setattr(spill, "CHUNK", chunk)
        table = quantile_table_of_counts(sc, bins=bins)
    edges = np.array([table.bins[0].low] + [b.high for b in table.bins])
    count, predicted, observed = old_loop(sc, edges, chunk)
    assert [b.count for b in table.bins] == count.astype(np.int64).tolist()
    if sc.positives.dtype.kind != "f":
        assert sum(b.count for b in table.bins) == int(sc.positives.sum() + sc.negatives.sum())
    for b, c, p, o in zip(table.bins, count, predicted, observed, strict=True):
        if b.count:  # mean predicted and observed of a bin: its sums over its count
            assert b.mean_predicted == pytest.approx(p / int(c), rel=1e-12)
            assert b.observed == pytest.approx(int(o) / int(c), rel=1e-12)


def test_the_quantile_bins_of_a_summary_on_disk_equal_the_ones_in_memory(monkeypatch, spill_dir):
    monkeypatch.setattr(disk, "CHUNK", 7)
    monkeypatch.setattr(spill, "CHUNK", 7)
    rng = np.random.default_rng(5)
    y = rng.random(600) < 0.3
    s = np.round(rng.beta(2, 3, 600) * 0.8 + 0.2 * y, 2)  # heavy ties
    memory = ScoreCounts.from_arrays(y, s, labels=("no", "yes"))
    on_disk = merge_runs([Run(memory.relabelled(memory.labels))], memory.labels, memory=1)
    assert on_disk.on_disk
    close(quantile_table_of_counts(on_disk, bins=7).to_dict(), quantile_table_of_counts(memory, bins=7).to_dict(),
          rel=1e-12)
    del on_disk


def reduceat(sc, bins):
    """``binned`` as it was: each group summed."""
    grouping = len(sc) // bins
    starts = np.arange(0, len(sc), grouping)
    return (np.asarray(sc.scores)[starts], np.add.reduceat(np.asarray(sc.positives), starts),
            np.add.reduceat(np.asarray(sc.negatives), starts))


@settings(max_examples=25, deadline=None)
@given(summaries(), st.integers(1, 40), st.booleans())
def test_binned_equals_the_groups_sums(sc, bins, cumulative):
    if cumulative:
        threshold_counts(sc)  # the summary carries its cumulative counts: the groups read from them
    got = sc.binned(bins)
    if len(sc) // bins < 2:
        assert got is sc
        return
    scores, pos, neg = reduceat(sc, bins)
    assert np.array_equal(got.scores, scores) and got.labels == sc.labels
    if sc.positives.dtype.kind == "f":  # weights: summed as before, the same floats
        assert np.array_equal(got.positives, pos) and np.array_equal(got.negatives, neg)
    else:
        assert got.positives.dtype == np.int64
        assert got.positives.tolist() == pos.tolist() and got.negatives.tolist() == neg.tolist()


def test_the_uniform_calibration_sums_do_not_depend_on_the_pieces(monkeypatch):
    """A summary walked in pieces (beyond ``disk.CHUNK`` distinct scores in memory; Spark's range partitions)
    gives the mean predicted probabilities of one piece (a piece's last score once fell out of the sum of its
    lowest non-empty bin when the bins below it were empty)."""
    rng = np.random.default_rng(1)
    y, s = rng.random(3000) < 0.4, np.round(rng.random(3000), 3)
    fold = ProbabilityFold(("0", "1"), None, 10)
    whole = walk_summary(ScoreCounts.from_arrays(y, s), [fold])[0]
    monkeypatch.setattr(disk, "CHUNK", 100)
    pieces = walk_summary(ScoreCounts.from_arrays(y, s), [fold])[0]
    assert pieces.bin_predicted == pytest.approx(whole.bin_predicted, rel=1e-12)


# on Spark ------------------------------------------------------------------------------------------------

pd = pytest.importorskip("pandas")
pytest.importorskip("pyspark", reason="pip install 'assay[spark]' (the test extra has it)")

import assay.spark


def probabilities(seed, n, digits):
    """Scores in [0, 1] with ties: more distinct scores with more digits."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.4, 1, 0)
    s = np.clip(np.round(rng.random(n) * 0.6 + 0.4 * y, digits), 0.0, 1.0)
    return y, s


def test_quantile_calibration_and_roc_bins_on_the_executors_equal_in_memory(spark, on_executors):
    """4 range partitions; the entries fetched stay about the same while the distinct scores grow 30-fold.
    (With the quantile table; the uniform one is checked in pieces above.)"""
    fetched = {}
    options = {"calibration_strategy": "quantile", "calibration_bins": 7, "roc_bins": 20,
               "thresholds_range": (0.05, 0.95, 0.05)}  # the decision curve's counts: a fold walked there too
    for digits in (2, 5):
        y, s = probabilities(7, 3000, digits)
        df = spark.createDataFrame(pd.DataFrame({"y": y, "p": s})).repartition(3)
        on_executors.clear()
        got = assay.spark.evaluate(df, truth="y", score="p", threshold=0.5, **options)
        assert any("stayed on Spark's executors, in 4 range partitions" in note for note in got.notes)
        want = assay.evaluate(y, y_score=s, threshold=0.5, **options)
        mine, theirs = without_notes(got), without_notes(want)
        same_hierarchy(mine, theirs)  # on the executors: Newton's steps each walk them, sums in another order
        close(mine, theirs, rel=1e-12)
        assert got.probabilistic.calibration.strategy == "quantile"
        assert [b.count for b in got.probabilistic.calibration.bins] == \
            [b.count for b in want.probabilistic.calibration.bins]
        assert got.ranking.approximation["bins"] == want.ranking.approximation["bins"]
        fetched[len(np.unique(s))] = sum(on_executors)
    few, many = sorted(fetched)
    assert many > 10 * few
    assert fetched[many] < 2 * fetched[few] + 100, fetched
    assert fetched[many] < many / 5, fetched  # a few windows, never the summary


def test_the_cli_report_and_curves_with_roc_bins_on_spark_equal_the_local_engine(spark, on_executors, tmp_path,
                                                                                 capsys):
    y, s = probabilities(8, 3000, 4)
    path = tmp_path / "preds.parquet"
    pd.DataFrame({"truth": y, "score": s}).to_parquet(path)
    common = [str(path), "--truth", "truth", "--score", "score", "--roc-bins", "25"]
    outputs = {}
    for engine_name in ("local", "spark"):
        status = main(["report", *common, "--calibration", "quantile", "--format", "json", "--engine", engine_name])
        captured = capsys.readouterr()
        assert status == 0, captured.err
        outputs["report", engine_name] = captured.out
        for kind in ("roc", "pr", "hull"):
            status = main(["curves", *common, "--kind", kind, "--engine", engine_name])
            captured = capsys.readouterr()
            assert status == 0, captured.err
            outputs[kind, engine_name] = captured.out
    for kind in ("roc", "pr", "hull"):  # the binned curve: a few dozen points, exactly the local engine's
        assert outputs[kind, "spark"] == outputs[kind, "local"]
        assert outputs[kind, "spark"].count("\n") < 40
    local, remote = json.loads(outputs["report", "local"]), json.loads(outputs["report", "spark"])
    for d in (local, remote):
        d.pop("notes"), d.pop("input", None)
    same_hierarchy(remote, local)
    close(remote, local, rel=1e-12)
    assert sum(on_executors) < 1000  # of about 4,000 distinct scores: index reads only
