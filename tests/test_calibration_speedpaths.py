"""The fast paths of the decision curve's and the calibration hierarchy's folds over a summary's pieces (scores
decreasing, as every walk gives them) against their general paths and independent references.

- ``DecisionBinsFold``: a piece's bins are runs found by binary searches, their counts differences of the
  cumulative counts; checked against a plain count (each score's bin: the thresholds at or below it), exactly,
  with scores equal to thresholds, empty bins, weights, pieces without cumulative counts and unsorted pieces.
- ``CalibrationStartFold``: the same numbers as its general path, bit for bit (sums, extremes, moments).
- ``LogisticFold``: the same sums as its general path to rounding (1e-12 of the sums' scale), the free model's
  deviance bit for bit, with a slope of 1 (no exp), negative and zero slopes, and η beyond ``LARGEST_ETA``.
- the bootstrap band of a decision curve: the percentiles of every column at once equal numpy's quantile of each
  column's finite values, exactly, with NaN, infinities and all-NaN columns.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.inference import calibration
from assay.inference import decision as inference_decision
from assay.metrics.decision import DecisionBinsFold
from assay.metrics.ranking import walk_summary
from assay.summaries import disk
from assay.summaries.scores import ScoreCounts
from assay.summaries.walk import Piece

GRID = np.round(np.arange(0.0, 1.0001, 0.05), 2)  # scores and thresholds share it: ties between them


def plain_bins(thresholds, scores, positives, negatives):
    """Each score's bin counted one at a time: the thresholds at or below it."""
    pos, neg = np.zeros(len(thresholds) + 1), np.zeros(len(thresholds) + 1)
    for s, a, b in zip(scores.tolist(), positives.tolist(), negatives.tolist()):
        j = sum(t <= s for t in thresholds)
        pos[j] += a
        neg[j] += b
    return pos, neg


def piece_of(scores, positives, negatives, *, cumulative=True, before=(0, 0)):
    tp = np.cumsum(positives) + before[0] if cumulative else None
    fp = np.cumsum(negatives) + before[1] if cumulative else None
    return Piece(0, len(scores), scores, positives, negatives, tp, fp, before[0], before[1], 0, 0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(GRID.tolist()), min_size=1, max_size=8, unique=True),
       st.lists(st.sampled_from(GRID.tolist()), min_size=0, max_size=15, unique=True),
       st.integers(0, 2**31 - 1), st.sampled_from(["counts", "weights", "no cumulative", "unsorted", "float32"]))
def test_decision_bins_of_a_piece_are_a_plain_count(thresholds, scores, seed, kind):
    rng = np.random.default_rng(seed)
    thresholds = tuple(sorted(thresholds))
    s = np.array(sorted(scores, reverse=True), dtype=np.float64)
    if kind == "weights":
        pos, neg = np.round(rng.random(len(s)) * 3, 3), np.round(rng.random(len(s)), 3)
    else:
        pos, neg = rng.integers(0, 3, len(s)), rng.integers(0, 3, len(s))  # zeros: empty bins
    if kind == "unsorted":
        order = rng.permutation(len(s))
        s, pos, neg = s[order], pos[order], neg[order]
    if kind == "float32":
        s = s.astype(np.float32)
    before = (int(rng.integers(0, 9)), int(rng.integers(0, 9))) if kind != "weights" else (0.5, 1.25)
    got = DecisionBinsFold(thresholds).piece(piece_of(s, pos, neg, cumulative=kind != "no cumulative",
                                                      before=before))
    want = plain_bins(thresholds, s.astype(np.float64), pos, neg)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        if kind == "weights":  # the same additions in the same order as the plain count
            np.testing.assert_allclose(g, w, rtol=1e-15, atol=0)
        else:
            assert g.tolist() == w.tolist()


def test_decision_bins_walked_in_pieces_equal_one_count(monkeypatch):
    """Pieces of 7 distinct scores (the cumulative counts carried over) give the counts of the whole."""
    monkeypatch.setattr(disk, "CHUNK", 7)
    rng = np.random.default_rng(4)
    p = np.round(rng.random(500), 2)
    y = (rng.random(500) < p).astype(int)
    summary = ScoreCounts.from_arrays(y, p)
    thresholds = tuple(np.round(np.arange(0.01, 1.0, 0.01), 2).tolist())
    pos, neg = walk_summary(summary, [DecisionBinsFold(thresholds)])[0]
    want = plain_bins(thresholds, p, y, 1 - y)
    assert pos.tolist() == want[0].tolist() and neg.tolist() == want[1].tolist()
    assert pos.sum() == y.sum() and neg.sum() == (1 - y).sum()


def summaries(seed):
    """Two-class summaries with ties (rounded probabilities), probabilities of 0 and 1, weights."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 3000))
    lp = rng.normal(size=n) * rng.uniform(0.3, 3) + rng.uniform(-2, 1)
    p = 1 / (1 + np.exp(-lp))
    digits = int(rng.choice([2, 3, 6, 17]))
    p = np.round(p, digits)
    y = (rng.random(n) < 1 / (1 + np.exp(-(0.2 + 0.7 * lp)))).astype(int)
    weights = np.round(rng.uniform(0.5, 3, n), 2) if rng.random() < 0.3 else None
    return ScoreCounts.from_arrays(y, p, sample_weight=weights)


def walked(summary, fold):
    summary.__dict__.pop("_walked", None)
    return walk_summary(summary, [fold])[0]


@pytest.mark.parametrize("seed", range(12))
def test_the_start_fold_is_its_general_path_bit_for_bit(monkeypatch, seed):
    monkeypatch.setattr(disk, "CHUNK", 97)
    summary = summaries(seed)
    fast = walked(summary, calibration.CalibrationStartFold())
    monkeypatch.setattr(calibration, "_in_order", lambda s: False)
    general = walked(summary, calibration.CalibrationStartFold())
    for field in ("sums", "fixed", "extremes", "moments"):
        assert np.array_equal(getattr(fast, field), getattr(general, field)), field


def general_logistic(monkeypatch):
    """Every block of LogisticFold summed by its general path."""
    monkeypatch.setattr(calibration, "_fast_logistic_sums", lambda s, positives, negatives, cumulative, points, out,
                        span: calibration._general_logistic_sums(s, positives, negatives, points, out))


def assert_same_sums(fast, general, summary, tolerance=1e-12):
    n = float(np.sum(summary.positives) + np.sum(summary.negatives))
    scale = np.array([n, n * 40, n, n * 40, n * 1600, n * 40])  # |logit(p)| < 40: each sum's terms' bound
    assert np.all(np.abs(fast - general) <= tolerance * scale), (fast - general) / scale


@pytest.mark.parametrize("seed", range(12))
def test_the_logistic_fold_is_its_general_path_to_rounding(monkeypatch, seed):
    monkeypatch.setattr(disk, "CHUNK", 97)
    summary = summaries(seed)
    points = ((0.3, 1.0), (-0.2, 1.7), (0.1, -0.6), (0.4, 0.0), (-0.1, -2.5))
    fast = walked(summary, calibration.LogisticFold(*points[0], more=points[1:]))
    general_logistic(monkeypatch)
    general = walked(summary, calibration.LogisticFold(*points[0], more=points[1:]))
    assert_same_sums(fast, general, summary)
    free = [i for i, (a, b) in enumerate(points) if b != 1.0]  # the unreliability test's deviance: bit for bit
    assert fast[free, 5].tolist() == general[free, 5].tolist()


def test_the_logistic_fold_beyond_largest_eta_takes_exp_of_minus_its_size(monkeypatch):
    """Where exp(η) could overflow (η beyond LARGEST_ETA over a block), the general way's exp(−|η|); the same sums
    (and finite)."""
    monkeypatch.setattr(disk, "CHUNK", 50)
    rng = np.random.default_rng(8)
    p = np.concatenate([rng.uniform(0.05, 0.95, 150), 1 - 10.0 ** -rng.uniform(8, 15, 50)])
    summary = ScoreCounts.from_arrays((rng.random(200) < 0.5).astype(int), p)
    points = ((-3.0, 60.0), (2.0, -60.0), (0.5, 1.0))  # η up to about 2,000 at the greatest p, or the least
    assert max(abs(a) + abs(b) * np.log(p / (1 - p)).max() for a, b in points[:2]) > calibration.LARGEST_ETA
    fast = walked(summary, calibration.LogisticFold(*points[0], more=points[1:]))
    assert np.all(np.isfinite(fast))
    general_logistic(monkeypatch)
    assert_same_sums(fast, walked(summary, calibration.LogisticFold(*points[0], more=points[1:])), summary)


def test_the_offset_only_model_takes_no_exp_of_each_eta(monkeypatch):
    """At b = 1, exp(η) = e^a·p/(1 − p): numpy's exp is called on no array (the general path, of a piece with a
    probability of 0 or 1, takes exp(−|η|))."""
    rng = np.random.default_rng(5)
    p = np.round(rng.uniform(0.01, 0.99, 400), 3)
    summary = ScoreCounts.from_arrays((rng.random(400) < p).astype(int), p)
    real = np.exp
    calls = []

    def counted(x, *args, **kwargs):
        calls.append(np.shape(x))
        return real(x, *args, **kwargs)

    monkeypatch.setattr(np, "exp", counted)
    walked(summary, calibration.LogisticFold(0.25, 1.0))
    assert all(shape == () for shape in calls), calls


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 300), st.integers(1, 12), st.sampled_from([0.0, 0.001, 0.02, 0.5, 1.0]),
       st.sampled_from([0.5, 0.9, 0.95, 0.99]), st.integers(0, 2**31 - 1))
def test_the_band_is_nanquantile_column_by_column(rows, columns, undefined, confidence, seed):
    rng = np.random.default_rng(seed)
    replicates = rng.normal(size=(rows, columns))
    mask = rng.random(replicates.shape) < undefined
    replicates[mask] = rng.choice([np.nan, np.inf, -np.inf], mask.sum())
    alpha = 1 - confidence
    finite = np.isfinite(replicates)
    want_low, want_high = np.full(columns, np.nan), np.full(columns, np.nan)
    for j in range(columns):
        values = replicates[finite[:, j], j]
        if len(values) and finite[:, j].mean() >= inference_decision.MIN_DEFINED:
            want_low[j], want_high[j] = np.quantile(values, [alpha / 2, 1 - alpha / 2])
    low, high = inference_decision._band(replicates, confidence)
    assert np.array_equal(low, want_low, equal_nan=True) and np.array_equal(high, want_high, equal_nan=True)
