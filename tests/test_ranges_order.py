"""Ranges in any number, walked in any order and in parallel (assay.summaries.ranges, the scan of
assay.summaries.partition): each range of a summary kept as its sorted keys is placed by the class totals
of the ranges before it alone (../DESIGN.md, "Ranges and offsets"), so its pieces can be counted and walked
in any order, on several threads, and still combine into the one-piece walk of the materialised summary;
and a report equals the in-memory one whatever the number of ranges and the order of the rows' batches.

The number of ranges is drawn: ``PARTITIONS`` (the ranges a spilled scan scatters its keys into), the budget
(1 byte: every batch spilled, and ranges over 16 rows partitioned again; 4 or 10 kB: spilled, or the keys held
but too many for the summary to be made, cut into ranges of ``RANGE_ROWS`` rows; none: a scan's keys held and
cut so, a report's summary made in memory), down to a single range. Ties, scores of both signs, float32, one
score for every row, and one instance of a class are drawn too. Tolerances: counts, indices and
hull vertices exactly; sums 1e-12 relative (only the order of the additions changes), DeLong's standard error
1e-9; the report 1e-9 (its intervals), as tests/helpers.close."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from helpers import close, cut, same_hierarchy
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import assay
from assay.evaluation.stream import evaluate_batches
from assay.inference.roc import DeLongFold
from assay.metrics.ranking import BestFold, PartialAucFold, PrFold, threshold_counts
from assay.metrics.roc_space import HullFold
from assay.summaries import partition
from assay.summaries.partition import ScoreScan, batch_keys
from assay.summaries.probabilities import ProbabilityFold
from assay.summaries.scores import ScoreCounts
from assay.summaries.walk import Piece, walk

OBJECTIVES = ((lambda f, t: t - f, "max"), (lambda f, t: np.hypot(f, 1.0 - t), "min"),
              (lambda f, t: 3.0 * f + (1.0 - t), "min"))


def folds(probabilities: bool):
    out = [DeLongFold(0.9), PrFold(), PrFold(0.2), PartialAucFold(0.1, 0.4), BestFold(OBJECTIVES),
           HullFold(thresholds=True)]
    return out + ([ProbabilityFold(("no", "yes"), None, 7)] if probabilities else [])


def rows(n, seed, share, kind, float32):
    """``n`` rows of both classes (one instance of a class is possible) and their scores: ties (probabilities),
    distinct (probabilities), ties of both signs, or one score for every row; and whether they are
    probabilities."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < share
    y[0], y[1] = True, False
    s = {"ties": lambda: np.round(rng.random(n) * 0.8 + 0.2 * y, 1), "distinct": lambda: rng.random(n),
         "both signs": lambda: np.round(rng.normal(size=n) * 3 + y, 1), "single": lambda: np.full(n, 0.5)}[kind]()
    return y, s.astype(np.float32) if float32 else s, kind != "both signs"


@st.composite
def scores(draw, low=2):
    return rows(draw(st.integers(low, 400)), draw(st.integers(0, 2**32 - 1)), draw(st.floats(0.05, 0.95)),
                draw(st.sampled_from(["ties", "distinct", "both signs", "single"])), draw(st.booleans()))


RANGE_COUNTS = st.tuples(st.sampled_from([1, 2, 3, 7, 64, 256]),  # PARTITIONS
                         st.sampled_from([1, 4_000, 10_000, None]),  # the budget, bytes
                         st.sampled_from([1, 5, 40, 1 << 20]))  # RANGE_ROWS (keys held in memory)


def _one_piece(sc, fs):
    tc = threshold_counts(sc)
    columns = {"scores": sc.scores, "positives": sc.positives, "negatives": sc.negatives, "tp": tc.tp, "fp": tc.fp}
    return walk(columns, fs, n_positive=tc.n_positive, n_negative=tc.n_negative, chunk=10**9, workers=1)


def _range_piece(summary, k: int) -> Piece:
    """Range ``k`` as a piece, counted off its keys and placed by the offsets alone."""
    scores, pos, neg, tp, fp = summary.range(k)
    return Piece(int(summary.starts[k]), int(summary.starts[k + 1]), scores, pos, neg, tp, fp,
                 int(summary.tp_before[k]), int(summary.fp_before[k]), summary.n_positive, summary.n_negative)


def _walk_ranges_in_order(summary, fs, order):
    """Every fold's partial of every range, the ranges counted and walked in ``order`` on two threads, then
    combined in the summary's order (``combine`` takes the pieces in order: the work is what is permuted)."""
    def partials(k):
        p = _range_piece(summary, k)
        return k, [fold.piece(p) for fold in fs]

    with ThreadPoolExecutor(max_workers=2) as pool:
        done = dict(pool.map(partials, order))
    assert sorted(done) == list(range(len(summary.order)))

    def look(other, indices):
        return [other.piece(_range_piece(summary, i)) for i in indices]

    return [fold.combine([done[k][j] for k in range(len(done))], look) for j, fold in enumerate(fs)]


def _same(got, want):
    """The folds' results equal: counts, indices and hull vertices exactly, sums to 1e-12 relative, DeLong's
    standard error (a square root of differences) to 1e-9."""
    dl_a, dl_b = got[0], want[0]
    assert dl_a.auc == pytest.approx(dl_b.auc, rel=1e-12, abs=1e-15)
    assert np.isnan(dl_a.se) == np.isnan(dl_b.se)
    if not np.isnan(dl_b.se):
        assert dl_a.se == pytest.approx(dl_b.se, rel=1e-9, abs=1e-15)
    for k in (1, 2):
        assert got[k] == pytest.approx(want[k], rel=1e-12, abs=1e-15)
    assert got[3] == pytest.approx(want[3], rel=1e-12, abs=1e-15)
    assert [(i, h) for i, _, h in got[4]] == [(i, h) for i, _, h in want[4]]
    assert [v for _, v, _ in got[4]] == pytest.approx([v for _, v, _ in want[4]], rel=1e-12, abs=1e-15)
    for name in ("index", "fp", "tp", "thresholds"):
        assert np.array_equal(getattr(got[5], name), getattr(want[5], name)), name
    if len(want) > 6:
        assert got[6].n == want[6].n and np.array_equal(got[6].bin_count, want[6].bin_count)
        for name in ("quadratic", "absolute", "information", "log_loss"):
            assert float(getattr(got[6], name).total.sum()) == pytest.approx(float(getattr(want[6], name).total.sum()),
                                                                             rel=1e-12, abs=1e-15)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
# many ranges of the keys held in memory; spilled within a few kilobytes; the single range of a small summary
@example(rows(300, 1, 0.3, "distinct", False), (256, None, 5), 1, True, False, [40, 0, 100])
@example(rows(400, 2, 0.5, "both signs", True), (7, 4_000, 1 << 20), 2, False, True, [90, 90])
@example(rows(200, 3, 0.6, "ties", False), (1, None, 1 << 20), 3, False, False, [])
@given(scores(), RANGE_COUNTS, st.integers(0, 2**32 - 1), st.booleans(), st.booleans(),
       st.lists(st.integers(0, 120), max_size=5))
def test_ranges_walked_in_any_order_on_two_threads_combine_into_the_whole(spill_dir, monkeypatch, case, counts,
                                                                          seed, negate, swap, sizes):
    y, s, probabilities = case
    parts, memory, range_rows = counts
    monkeypatch.setattr(partition, "PARTITIONS", parts)
    monkeypatch.setattr(partition, "RANGE_ROWS", range_rows)
    scan = ScoreScan(memory, threads=2)
    for a, b in cut(len(y), sizes):
        scan.add(batch_keys(y[a:b], s[a:b]))
    kept = scan.ranges()
    scan.close()
    summary, expected = kept, ScoreCounts.from_arrays(y, np.asarray(s, dtype=np.float64), labels=("no", "yes"))
    if swap:
        summary, expected = summary.swapped(), expected.relabelled(("yes", "no"), swap=True)
    if negate:
        summary, expected = summary.negated(), expected.negated()
    distinct = len(np.unique(s))
    assert len(summary) == len(expected) == distinct
    if memory is None and range_rows == 1 << 20 or distinct == 1:
        assert len(summary.order) == 1  # a single range
    if memory == 1 and parts > 1 and distinct > 16:
        assert len(summary.order) > 1
    fs = folds(probabilities and not negate)
    want = _one_piece(expected, fs)
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(summary.order))
    _same(_walk_ranges_in_order(summary, fs, order), want)
    # the walk itself, in chunks that cut across the ranges, worked on two threads
    sc = ScoreCounts.of_ranges(summary, expected.labels)
    tc = threshold_counts(sc)
    columns = {"scores": sc.scores, "positives": sc.positives, "negatives": sc.negatives, "tp": tc.tp, "fp": tc.fp}
    chunked = walk(columns, fs, n_positive=summary.n_positive, n_negative=summary.n_negative,
                   chunk=int(rng.integers(1, 30)), workers=2)
    _same(chunked, want)
    kept.close()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@example(rows(150, 4, 0.3, "distinct", False), (256, 10_000, 5), 4, [50, 50])  # keys held, 30 ranges
@example(rows(400, 5, 0.5, "both signs", True), (7, 4_000, 1 << 20), 5, [90, 0, 90])
@given(scores(low=6), RANGE_COUNTS, st.integers(0, 2**32 - 1), st.lists(st.integers(0, 90), max_size=6))
def test_a_report_is_the_same_whatever_the_ranges_and_the_order_of_the_rows(spill_dir, monkeypatch, case, counts,
                                                                           seed, sizes):
    """The rows in another order, cut into other batches, scattered into a drawn number of ranges within a
    drawn budget: the whole report (operating points, best thresholds, hull, partial AUC, lift, the losses
    where the scores are probabilities) equals assay.evaluate on the rows in their order (beyond memory, less
    the intervals that need the summary in memory, which say so: tests/helpers.same_hierarchy)."""
    y, s, _ = case
    parts, memory, range_rows = counts
    monkeypatch.setattr(partition, "PARTITIONS", parts)
    monkeypatch.setattr(partition, "RANGE_ROWS", range_rows)
    labels = np.where(y, "yes", "no")
    threshold = float(np.median(s))
    options = {"threshold": threshold, "bootstrap": 200, "fpr_range": (0.05, 0.4), "lift_depth": 0.2,
               "at_specificity": 0.8}
    whole = assay.evaluate(labels, y_score=s, **options).to_dict()
    order = np.random.default_rng(seed).permutation(len(y))
    batches = [(labels[order[a:b]], s[order[a:b]]) for a, b in cut(len(y), sizes)]
    report = evaluate_batches(batches, memory=memory, **options)
    got = report.to_dict()
    for d in (whole, got):
        d.pop("input", None)
        d.pop("notes")
    if report.ranking.summary.on_disk:  # beyond memory: the intervals that resample the instances say so
        same_hierarchy(got, whole)
    close(got, whole)
