"""One walk feeding every fold (assay.summaries.walk): each fold's result is the same whatever the pieces
(one piece, pieces of a few entries, worked on one thread or two, in memory or counted off ranges of sorted
keys) and equal to an independent computation on the whole summary: DeLong's AUC and variance (the two-pass
formula over the instances' placements), average precision and the trapezoidal PR area (scikit-learn's
``average_precision_score`` and ``auc`` of ``precision_recall_curve``), the ROC convex hull (the upper hull
of every ROC point), the best thresholds (a brute force over every point), the probabilistic losses (one
summary of all the distinct scores), the calibration bins of decreasing scores (``bin_index``). Tolerances:
1e-12 relative between walks (only the order of the sums changes; counts and hull vertices are equal
exactly), 1e-9 against the references."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import auc as sk_auc
from sklearn.metrics import average_precision_score, precision_recall_curve

from assay.evaluation.stream import evaluate_batches
from assay.inference.roc import DeLongFold, delong
from assay.metrics import ranking
from assay.metrics.ranking import (
    BestFold,
    PrFold,
    roc_points,
    threshold_counts,
    walk_summary,
    want,
)
from assay.metrics.roc_space import HullFold, upper_hull
from assay.summaries import disk
from assay.summaries.probabilities import (
    ProbabilityFold,
    ProbabilitySummary,
    bin_index,
    uniform_edges,
)
from assay.summaries.scores import ScoreCounts
from assay.summaries.walk import walk

OBJECTIVES = ((lambda f, t: t - f, "max"), (lambda f, t: np.hypot(f, 1.0 - t), "min"),
              (lambda f, t: 3.0 * f + (1.0 - t), "min"))


def _folds():
    return [DeLongFold(0.9), PrFold(), PrFold(0.2), BestFold(OBJECTIVES), HullFold(thresholds=True),
            ProbabilityFold(("no", "yes"), None, 7)]


def _walk(sc, chunk, workers):
    tc = threshold_counts(sc)
    columns = {"scores": sc.scores, "positives": sc.positives, "negatives": sc.negatives, "tp": tc.tp, "fp": tc.fp}
    return walk(columns, _folds(), n_positive=tc.n_positive, n_negative=tc.n_negative, chunk=chunk, workers=workers)


def _same(a, b):
    """Two walks' results equal: counts and indices exactly, sums to 1e-12 relative."""
    dl_a, dl_b = a[0], b[0]
    assert dl_a.auc == pytest.approx(dl_b.auc, rel=1e-12, abs=1e-15)
    assert (math.isnan(dl_a.se) and math.isnan(dl_b.se)) or dl_a.se == pytest.approx(dl_b.se, rel=1e-9, abs=1e-15)
    for k in (1, 2):
        assert a[k] == pytest.approx(b[k], rel=1e-12, abs=1e-15)
    assert [(i, h) for i, _, h in a[3]] == [(i, h) for i, _, h in b[3]]
    for name in ("index", "fp", "tp", "thresholds"):
        assert np.array_equal(getattr(a[4], name), getattr(b[4], name))
    assert a[5].n == b[5].n and np.array_equal(a[5].bin_count, b[5].bin_count)
    assert float(a[5].log_loss.total.sum()) == pytest.approx(float(b[5].log_loss.total.sum()), rel=1e-12)


@st.composite
def summaries(draw):
    n = draw(st.integers(2, 300))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = rng.random(n) < draw(st.floats(0.05, 0.95))
    y[0], y[1] = True, False  # both classes
    kind = draw(st.sampled_from(["ties", "distinct", "single", "separated"]))
    s = {"ties": lambda: np.round(rng.random(n) * 0.8 + 0.2 * y, 1), "distinct": lambda: rng.random(n),
         "single": lambda: np.full(n, 0.5), "separated": lambda: 0.5 * rng.random(n) + 0.5 * y}[kind]()
    weighted = draw(st.booleans())
    weights = rng.integers(1, 4, n).astype(np.float64) if weighted else None
    return ScoreCounts.from_arrays(y, s, sample_weight=weights, labels=("no", "yes"))


@settings(max_examples=60, deadline=None)
@given(summaries(), st.integers(1, 9), st.sampled_from([1, 2]))
def test_any_pieces_on_any_threads_give_the_one_piece_result(sc, chunk, workers):
    _same(_walk(sc, chunk, workers), _walk(sc, 10**9, 1))


@settings(max_examples=40, deadline=None)
@given(summaries(), st.integers(1, 9))
def test_each_fold_equals_an_independent_computation(sc, chunk):
    dl, (ap, trapezoid), _, found, hull, _ = _walk(sc, chunk, 2)
    tc = threshold_counts(sc)
    pos, neg = np.asarray(sc.positives, float), np.asarray(sc.negatives, float)
    n_pos, n_neg = pos.sum(), neg.sum()
    # DeLong: the placements of every score group, two passes
    v10 = (n_neg - np.cumsum(neg) + 0.5 * neg) / n_neg
    v01 = (np.cumsum(pos) - 0.5 * pos) / n_pos
    area = float((pos * v10).sum() / n_pos)
    assert dl.auc == pytest.approx(area, rel=1e-12)
    if n_pos >= 2 and n_neg >= 2:
        var = (pos * (v10 - area) ** 2).sum() / (n_pos - 1) / n_pos + (neg * (v01 - area) ** 2).sum() / (n_neg - 1) / n_neg
        assert dl.se == pytest.approx(math.sqrt(var), rel=1e-9, abs=1e-12)
    # precision-recall: scikit-learn on the instances (weights as sample weights)
    y = np.concatenate([np.ones(len(pos), bool), np.zeros(len(neg), bool)])
    s = np.concatenate([sc.scores, sc.scores])
    w = np.concatenate([pos, neg])
    held = w > 0
    assert ap == pytest.approx(average_precision_score(y[held], s[held], sample_weight=w[held]), rel=1e-9)
    precision, recall, _ = precision_recall_curve(y[held], s[held], sample_weight=w[held])
    assert trapezoid == pytest.approx(sk_auc(np.concatenate([recall, [0.0]]), np.concatenate([precision, [1.0]])),
                                      rel=1e-9)
    # the hull: the upper hull of every ROC point, on the counts
    fp = np.concatenate(([0], tc.fp))
    tp = np.concatenate(([0], tc.tp))
    assert hull.index.tolist() == upper_hull(fp, tp).tolist()
    # the best thresholds: a brute force over every point
    fpr, tpr, _ = roc_points(tc)
    for (objective, best), (first, value, hits) in zip(OBJECTIVES, found):
        values = objective(fpr, tpr)
        target = values.max() if best == "max" else values.min()
        near = np.flatnonzero(np.abs(values - target) <= 1e-12 * max(1.0, abs(target)))
        assert (first, hits) == (int(near[0]), len(near))
        assert value == pytest.approx(target, rel=1e-12, abs=1e-15)


def test_the_probabilistic_fold_equals_one_summary_of_every_score():
    rng = np.random.default_rng(5)
    y = rng.random(5_000) < 0.3
    sc = ScoreCounts.from_arrays(y, np.round(rng.random(5_000), 3), labels=("no", "yes"))
    whole = ProbabilitySummary.from_score_counts(sc.scores, sc.positives, sc.negatives, labels=("no", "yes"), bins=7)
    got = _walk(sc, 97, 2)[5]
    assert got.n == whole.n and np.array_equal(got.bin_count, whole.bin_count)
    for name in ("quadratic", "absolute", "information", "log_loss"):
        assert getattr(got, name).total == pytest.approx(getattr(whole, name).total, rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 400), st.sampled_from([1, 2, 3, 7, 10, 64, 10_000]))
def test_calibration_bins_of_decreasing_scores_are_those_of_bin_index(seed, n, bins):
    """The bins of a summary's decreasing scores, cut by binary searches, equal scikit-learn's assignment
    (``bin_index``, closed on the right, the first holding 0) summed with ``bincount``: counts exactly, the
    mean predicted probability to 1e-12; scores on the edges, at 0 and 1, and empty bins included."""
    rng = np.random.default_rng(seed)
    edges = uniform_edges(bins)
    pool = np.concatenate([rng.random(n), np.round(rng.random(n), 1), edges, [0.0, 1.0]])
    s = np.unique(rng.choice(pool, n))[::-1].copy()
    pos, neg = rng.integers(0, 3, len(s)), rng.integers(0, 3, len(s))
    got = ProbabilitySummary.from_score_counts(s, pos, neg, labels=("no", "yes"), bins=bins)
    where = bin_index(s, edges)
    both = (pos + neg).astype(np.float64)
    assert got.bin_count.tolist() == np.bincount(where, weights=both, minlength=bins).astype(np.int64).tolist()
    assert got.bin_observed.tolist() == np.bincount(where, weights=pos.astype(np.float64),
                                                    minlength=bins).astype(np.int64).tolist()
    assert got.bin_predicted == pytest.approx(np.bincount(where, weights=both * s, minlength=bins), rel=1e-12,
                                              abs=1e-12)


def test_a_fold_asked_ahead_shares_the_walk_and_is_not_walked_again(monkeypatch):
    sc = ScoreCounts.from_arrays([1, 0, 1, 1, 0, 0], [0.9, 0.8, 0.7, 0.4, 0.3, 0.2])
    walks = []
    real = ranking.walk
    monkeypatch.setattr(ranking, "walk", lambda *a, **k: walks.append(len(a[1])) or real(*a, **k))
    fold = ProbabilityFold(("0", "1"))
    want(sc, fold)
    assert delong(sc).auc == pytest.approx(7 / 9)
    assert walks == [2]  # DeLong's fold and the one asked ahead, in one walk
    assert walk_summary(sc, [fold])[0].n == 6 and walks == [2]
    assert delong(sc).auc == pytest.approx(7 / 9) and walks == [2]  # kept with the summary


def test_a_report_beyond_memory_equals_the_one_in_memory_in_pieces_on_two_threads(monkeypatch):
    """The report's walk in pieces of 7 entries equals one piece in memory (the CLI's paths run the same)."""
    rng = np.random.default_rng(11)
    y = rng.random(3_000) < 0.4
    s = np.round(np.clip(rng.normal(0.4 + 0.2 * y, 0.2), 0, 1), 3)
    whole = evaluate_batches([(y, s)], threshold=0.5).to_dict()
    monkeypatch.setattr(disk, "CHUNK", 7)
    pieces = evaluate_batches([(y, s)], threshold=0.5).to_dict()
    r1, r2 = whole["ranking"], pieces["ranking"]
    assert r2["roc_auc"]["value"] == pytest.approx(r1["roc_auc"]["value"], rel=1e-12)
    assert r2["roc_auc"]["ci"] == pytest.approx(r1["roc_auc"]["ci"], rel=1e-9)
    assert r2["average_precision"]["value"] == pytest.approx(r1["average_precision"]["value"], rel=1e-12)
    assert r2["best_thresholds"] == r1["best_thresholds"]
    assert r2["roc_hull"] == r1["roc_hull"]
    assert pieces["probabilistic"]["brier"]["value"] == pytest.approx(whole["probabilistic"]["brier"]["value"],
                                                                      rel=1e-12)
