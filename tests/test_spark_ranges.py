"""The score summary kept on Spark's executors (assay.engines.spark_ranges): the executors walk its range
partitions and the driver combines their partial results and fetches single entries. Results equal the
in-memory ones (counts exactly, areas and variances to 1e-12: the pieces differ, so sums round
differently), every view (negated, classes swapped) reads the same entries as the materialised summary,
and what reaches the driver depends on the partitions and the entries read, not on the distinct scores."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import close, without_notes, without_threshold_interval
from hypothesis import given, settings
from hypothesis import strategies as st

import assay
from assay.metrics.ranking import first_index
from assay.summaries.scores import ScoreCounts

pd = pytest.importorskip("pandas")
pytest.importorskip("pyspark", reason="pip install 'assay[spark]' (the test extra has it)")

import assay.spark  # noqa: E402
from assay.engines import spark as engine  # noqa: E402
from assay.engines import spark_ranges  # noqa: E402


def data(seed: int, n: int = 3000):
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.4, 1, 0)
    s = np.round(rng.normal(size=n) + y, 2)  # both signs, ties: about 500 distinct scores
    return y, s


CASES = [
    dict(threshold=0.0, fpr_range=(0.1, 0.5), at_specificity=0.8, at_sensitivity=[0.5, 0.9]),
    dict(direction="lower", threshold="youden"),
    dict(positive=0, threshold="cost", costs={"fp": 1, "fn": 5}),
]


@pytest.mark.parametrize("options", CASES, ids=["threshold", "lower", "positive 0"])
def test_a_summary_kept_on_the_executors_equals_the_in_memory_result(spark, on_executors, options):
    y, s = data(1)
    df = spark.createDataFrame(pd.DataFrame({"y": y, "p": s})).repartition(3)
    got = assay.spark.evaluate(df, truth="y", score="p", **options)
    mine = dict(options)
    want = assay.evaluate(y, y_score=s, pos_label=mine.pop("positive", None), **mine)
    assert any("stayed on Spark's executors, in 4 range partitions" in note for note in got.notes)
    assert got.ranking.summary.on_disk  # read on demand, never whole
    mine, theirs = without_notes(got), without_notes(want)
    without_threshold_interval(mine, theirs)  # a criterion's threshold: its bootstrap needs the summary in memory
    close(mine, theirs)
    assert got.ranking.roc_auc.value == pytest.approx(want.ranking.roc_auc.value, abs=1e-14)
    if "fpr_range" not in options:  # (a partial AUC's bootstrap resamples a small summary whole)
        # the driver read a few windows and entries, not the summary
        assert 0 < sum(on_executors) < len(want.ranking.summary) / 2


def test_rank_and_the_curves_read_the_executors(spark, on_executors):
    y, s = data(2)
    df = spark.createDataFrame(pd.DataFrame({"y": y, "p": s})).repartition(2)
    got = assay.spark.rank(df, truth="y", score="p")
    want = assay.rank(y, y_score=s, positive=1)
    assert got.roc_auc.value == pytest.approx(want.roc_auc.value, abs=1e-14)
    for a, b in zip(got.roc().values(), want.roc().values(), strict=True):  # every point: the whole curve
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(got.hull()["fpr"], want.hull()["fpr"])


@pytest.mark.parametrize("negate", [False, True])
@pytest.mark.parametrize("swap", [False, True])
def test_every_view_reads_the_entries_of_the_materialised_summary(spark, on_executors, negate, swap):
    y, s = data(3, 2000)
    df = spark.createDataFrame(pd.DataFrame({"y": y, "p": s})).repartition(3)
    summary, *_ = engine.score_summary(df, "y", "p", 1, score_name="p")
    want = ScoreCounts.from_arrays(y == 1, s)
    if negate:
        summary, want = summary.negated(), want.negated()
    if swap:
        summary, want = summary.relabelled(summary.labels, swap=True), want.relabelled(want.labels, swap=True)
    got_tc, want_tc = summary.__dict__["_threshold_counts"], np.cumsum
    rng = np.random.default_rng(0)
    index = rng.integers(0, len(want), 300)
    for name in ("scores", "positives", "negatives"):
        np.testing.assert_array_equal(getattr(summary, name)[index], np.asarray(getattr(want, name))[index])
        np.testing.assert_array_equal(getattr(summary, name)[17:421], np.asarray(getattr(want, name))[17:421])
    np.testing.assert_array_equal(got_tc.tp[index], want_tc(want.positives)[index])
    np.testing.assert_array_equal(got_tc.fp[len(want) - 1], want_tc(want.negatives)[-1])
    known = summary.scores.summary.known_entries()
    assert known[0] == 0 and known[-1] == len(want) - 1 and np.all(np.diff(known) > 0)


def test_without_assay_on_the_executors_the_driver_walks(spark, monkeypatch, on_executors):
    monkeypatch.setattr(engine, "executors_have_assay", lambda sc, version: False)
    y, s = data(4)
    df = spark.createDataFrame(pd.DataFrame({"y": y, "p": s}))
    got = assay.spark.evaluate(df, truth="y", score="p", threshold=0.5)
    assert not any("executors" in note for note in got.notes)
    assert got.ranking.summary == assay.evaluate(y, y_score=s, threshold=0.5).ranking.summary
    assert on_executors == []


def test_the_local_executors_import_assay(spark):
    assert spark_ranges.executors_have_assay(spark.sparkContext, assay.__version__)
    assert not spark_ranges.executors_have_assay(spark.sparkContext, "0.0.0-other")


@pytest.mark.parametrize("bad", [(1, float("nan")), (1, None), (0, float("inf")), (1, float("-inf")), (None, 0.5)],
                         ids=["nan", "null", "inf", "-inf", "no class"])
def test_a_bad_score_is_named_on_the_executors_path(spark, on_executors, monkeypatch, bad):
    """A missing or non-finite score sorts at an end of its range partition (4 here), found there and named
    with its row; a missing class is found as the classes are counted."""
    monkeypatch.setattr(engine, "PARTITION_SCORES", 10)
    rows = [(int(i % 2), float(i) / 100) for i in range(40)]
    rows[17] = bad
    df = spark.createDataFrame(rows, "y int, p double").repartition(2)
    with pytest.raises(assay.InvalidInput, match="missing value|not a finite number") as caught:
        assay.spark.evaluate(df, truth="y", score="p")
    assert "row" in str(caught.value) and "\n" not in str(caught.value)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=60), st.data())
def test_a_search_reading_known_entries_first_finds_the_same_index(flags, draw):
    """first_index with cheap entries read first equals the plain binary search (false then true)."""
    n = len(flags)
    cut = draw.draw(st.integers(0, n))
    reached = [j >= cut for j in range(n)]
    known = np.array(sorted(draw.draw(st.sets(st.integers(0, n + 3), max_size=10))), dtype=np.int64)
    asked = []

    def probe(j):
        asked.append(j)
        return reached[j]

    assert first_index(n, probe, known) == first_index(n, reached.__getitem__) == cut
    assert all(0 <= j < n for j in asked)
