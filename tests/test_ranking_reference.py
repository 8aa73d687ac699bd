"""Ranking metrics (ROC, AUC, PR, lift, hull, DeLong, bootstrap) against independent references.

Oracles
-------
* scikit-learn 1.9 (``sklearn.metrics``): ``roc_curve`` (``drop_intermediate`` True and
  False), ``roc_auc_score`` (binary, ``max_fpr``, multiclass ``ovr``/``ovo`` with
  ``average`` macro/weighted and ``labels``), ``average_precision_score``,
  ``precision_recall_curve`` (``drop_intermediate`` True and False) and
  ``confusion_matrix``. Curves and areas agree to 1e-12 absolute (thresholds exactly);
  the standardised partial AUC (``max_fpr``) to 1e-9.
* Direct O(P*N) computations written here from the definitions: the Mann-Whitney
  statistic with ties counted 1/2 (Hanley & McNeil 1982); DeLong's placement values
  V10 (per positive) and V01 (per negative) with var = var(V10, ddof=1)/P +
  var(V01, ddof=1)/N (DeLong et al. 1988), to 1e-12; the step walk of seed 001
  (AUROC = (1/m-) * sum over negatives of the TPR reached there); lift and gains by
  sorting instances by decreasing score (seed 002); brute-force searches for the least
  expected cost, Youden's J and the point closest to (0, 1), in exact rational
  arithmetic (``fractions.Fraction``).
* SciPy: ``scipy.spatial.ConvexHull`` for the ROC convex hull (vertex sets equal, the
  helper point (N, 0) and collinear points excluded), ``scipy.stats.norm`` for the
  logit interval of Boyd, Eng & Page (2013), computed from its formula.
* Published values: pROC (Robin et al. 2011) on its aSAH data (copy in
  ``tests/data/asah.csv``, outcome ``Poor`` positive). pROC's test print outputs
  (``tests/testthat/print_output/r.s100b``, ``r.wfns``, ``r.ndka``, ``r.s100b.partial1``,
  ``r.wfns.partial1`` in github.com/xrobin/pROC) give the AUCs 0.7314, 0.8237, 0.612 and
  the partial AUCs over specificity 0.99-0.9 (FPR 0.01-0.1) 0.02983 and 0.03305; the
  s100b DeLong interval 0.6301-0.8326 and the "best" (Youden) point at specificity
  0.8056, sensitivity 0.6341 (threshold printed 0.205, a midpoint) are pROC's
  documented ``ci.auc`` / ``coords(roc, "best")`` output. The wfns interval 0.7485-0.8988
  comes from the brief (pROC print output; not found through the search index). These
  agree to the 4 (3 for ndka) decimals pROC prints.
* The seeds' worked examples: 000 (AUC 1 and 7/12 = 0.5833, the threshold table for
  p >= s, corrected as its erratum says), 001 (AUC by sorting, PR curve not monotone),
  002 (lift chart, mixing two classifiers), 003 (the 20-instance ROC example, the
  iso-performance slopes 10 and 1/10). Exact values (1e-12).

Monte-Carlo tolerances are justified beside the bootstrap tests. Sample weights in the
property tests are multiples of 1/4 so every sum is exact in floating point, and the
exact equalities (merge laws, thresholds) are not at the mercy of summation order.
"""

from __future__ import annotations

import csv
import math
from fractions import Fraction
from functools import reduce
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.spatial import ConvexHull
from scipy.stats import norm
from sklearn import metrics as skm

import assay
from assay.errors import InvalidInput
from assay.evaluation import compatible as C
from assay.evaluation.evaluate import rank
from assay.evaluation.multiclass_ranking import analyse_multiclass_scores, hand_till, one_vs_rest_aucs
from assay.evaluation.ranking import Costs, analyse_scores
from assay.inference.bootstrap import BootstrapSettings
from assay.inference.roc import bootstrap_auc_ci, delong, logit_interval, placements
from assay.metrics.ranking import (
    auc,
    auc_from_keys,
    counts_at,
    gains_at,
    lift_points,
    partial_auc,
    roc_points,
    threshold_counts,
    threshold_counts_from_keys,
)
from assay.metrics.roc_space import (
    expected_cost,
    iso_performance_slope,
    mix,
    optimal_point,
    roc_hull,
    upper_hull,
)
from assay.summaries.scores import ScoreCounts, sort_keys

DATA = Path(__file__).parent / "data"
EXACT = dict(rtol=0, atol=1e-12)


# ── strategies and direct references ──────────────────────────────────────────


@st.composite
def score_arrays(draw, n):
    """n scores: heavy ties (rounded to 0-2 decimals) or raw floats, float32 or float64,
    negative values and -0.0 included, huge and subnormal magnitudes too (float32 turns
    the subnormal ones into +-0.0)."""
    decimals = draw(st.sampled_from([0, 1, 2, None]))
    low, high = draw(st.sampled_from([(0.0, 1.0), (-3.0, 3.0), (-1e3, 1e3), (-1e30, 1e30), (-1e-310, 1e-310)]))
    raw = np.array(draw(st.lists(st.floats(low, high, allow_nan=False), min_size=n, max_size=n)),
                   dtype=np.float64)
    if decimals is not None:
        raw = np.round(raw, decimals)  # rounding small negatives gives -0.0
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    return raw.astype(dtype)


@st.composite
def scored(draw, min_n=2, max_n=60, min_each=1, weighted=False):
    """(is_positive, scores, weights or None) with both classes, any balance."""
    n = draw(st.integers(max(min_n, 2 * min_each), max_n))
    n_pos = draw(st.integers(min_each, n - min_each))
    order = draw(st.permutations(range(n)))
    y = np.zeros(n, dtype=bool)
    y[list(order[:n_pos])] = True
    s = draw(score_arrays(n))
    w = None
    if weighted:
        w = np.array(draw(st.lists(st.integers(1, 12), min_size=n, max_size=n)), dtype=np.float64) / 4
    return y, s, w


@st.composite
def labelled(draw, min_n=0, max_n=40):
    """(is_positive, scores) of any classes, possibly one class or none at all."""
    n = draw(st.integers(min_n, max_n))
    y = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    return y, draw(score_arrays(n))


def mann_whitney(y, s, w=None):
    """P(positive > negative) + 1/2 P(tie), over all P*N pairs (weighted by w_i w_j)."""
    s = np.asarray(s, dtype=np.float64)
    w = np.ones(len(s)) if w is None else np.asarray(w, dtype=np.float64)
    diff = s[y][:, None] - s[~y][None, :]
    pair = w[y][:, None] * w[~y][None, :]
    return float((pair * ((diff > 0) + 0.5 * (diff == 0))).sum() / pair.sum())


def delong_direct(y, s):
    """AUC and DeLong's standard error from the P x N matrix of comparisons."""
    s = np.asarray(s, dtype=np.float64)
    diff = s[y][:, None] - s[~y][None, :]
    psi = (diff > 0) + 0.5 * (diff == 0)
    v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
    var = v10.var(ddof=1) / len(v10) + v01.var(ddof=1) / len(v01)
    return float(v10.mean()), math.sqrt(var), v10, v01


def roc_counts(sc):
    """Integer (FP, TP) at (0, 0) and after each score group."""
    tp = np.concatenate(([0], np.cumsum(sc.positives)))
    fp = np.concatenate(([0], np.cumsum(sc.negatives)))
    return fp, tp


def sk_labels(y):
    return y.astype(np.int64)


# ── 1. the drop-in functions against scikit-learn ──────────────────────────────


@given(scored(weighted=False), st.booleans(), st.booleans())
def test_roc_curve_matches_sklearn(data, drop, use_weights):
    y, s, _ = data
    w = None
    if use_weights:
        w = (np.arange(len(y)) % 5 + 1) / 4.0
    got = C.roc_curve(sk_labels(y), s, sample_weight=w, drop_intermediate=drop)
    want = skm.roc_curve(sk_labels(y), s, sample_weight=w, drop_intermediate=drop)
    for g, e in zip(got, want, strict=True):
        assert g.shape == e.shape
    np.testing.assert_allclose(got[0], want[0], **EXACT)
    np.testing.assert_allclose(got[1], want[1], **EXACT)
    np.testing.assert_array_equal(got[2], np.asarray(want[2], dtype=np.float64))


@given(scored(weighted=True), st.booleans())
def test_roc_curve_weighted_matches_sklearn(data, drop):
    y, s, w = data
    got = C.roc_curve(sk_labels(y), s, sample_weight=w, drop_intermediate=drop)
    want = skm.roc_curve(sk_labels(y), s, sample_weight=w, drop_intermediate=drop)
    assert got[0].shape == want[0].shape
    np.testing.assert_allclose(got[0], want[0], **EXACT)
    np.testing.assert_allclose(got[1], want[1], **EXACT)
    np.testing.assert_array_equal(got[2], np.asarray(want[2], dtype=np.float64))


@given(scored(), st.booleans())
def test_roc_auc_matches_sklearn(data, weighted):
    y, s, _ = data
    w = (np.arange(len(y)) % 7 + 1) / 4.0 if weighted else None
    assert C.roc_auc(sk_labels(y), s, sample_weight=w) == pytest.approx(
        skm.roc_auc_score(sk_labels(y), s, sample_weight=w), rel=0, abs=1e-12)


@given(scored(weighted=True), st.one_of(st.floats(0.01, 0.99), st.sampled_from([0.1, 0.25, 0.5, 0.75])),
       st.booleans())
def test_roc_auc_max_fpr_matches_sklearn(data, max_fpr, weighted):
    y, s, w = data
    w = w if weighted else None
    got = C.roc_auc(sk_labels(y), s, sample_weight=w, max_fpr=max_fpr)
    want = skm.roc_auc_score(sk_labels(y), s, sample_weight=w, max_fpr=max_fpr)
    assert got == pytest.approx(want, rel=0, abs=1e-9)


@given(scored(weighted=True), st.booleans())
def test_average_precision_matches_sklearn(data, weighted):
    y, s, w = data
    w = w if weighted else None
    got = C.average_precision(sk_labels(y), s, sample_weight=w)
    want = skm.average_precision_score(sk_labels(y), s, sample_weight=w)
    assert got == pytest.approx(want, rel=0, abs=1e-12)


@given(scored(weighted=True), st.booleans(), st.booleans())
def test_precision_recall_curve_matches_sklearn(data, drop, weighted):
    y, s, w = data
    w = w if weighted else None
    got = C.precision_recall_curve(sk_labels(y), s, sample_weight=w, drop_intermediate=drop)
    want = skm.precision_recall_curve(sk_labels(y), s, sample_weight=w, drop_intermediate=drop)
    for g, e in zip(got, want, strict=True):
        assert g.shape == e.shape
    np.testing.assert_allclose(got[0], want[0], **EXACT)
    np.testing.assert_allclose(got[1], want[1], **EXACT)
    np.testing.assert_array_equal(got[2], np.asarray(want[2], dtype=np.float64))


@given(scored(), st.sampled_from([("cat", "dog"), ("no", "yes"), ("Good", "Poor")]), st.booleans())
def test_string_labels_with_pos_label_match_sklearn(data, names, first_is_positive):
    y, s, _ = data
    truth = np.where(y, names[0] if first_is_positive else names[1], names[1] if first_is_positive else names[0])
    pos = names[0] if first_is_positive else names[1]
    for drop in (True, False):
        got = C.roc_curve(truth, s, pos_label=pos, drop_intermediate=drop)
        want = skm.roc_curve(truth, s, pos_label=pos, drop_intermediate=drop)
        np.testing.assert_allclose(got[0], want[0], **EXACT)
        np.testing.assert_allclose(got[1], want[1], **EXACT)
    got = C.precision_recall_curve(truth, s, pos_label=pos)
    want = skm.precision_recall_curve(truth, s, pos_label=pos)
    np.testing.assert_allclose(got[0], want[0], **EXACT)
    np.testing.assert_allclose(got[1], want[1], **EXACT)
    assert C.average_precision(truth, s, pos_label=pos) == pytest.approx(
        skm.average_precision_score(truth, s, pos_label=pos), rel=0, abs=1e-12)
    # roc_auc_score takes the greater label as positive; the AUC of the other is 1 - AUC
    sk = skm.roc_auc_score(truth, s)
    expected = sk if pos == max(names) else 1.0 - sk
    assert C.roc_auc(truth, s, pos_label=pos) == pytest.approx(expected, rel=0, abs=1e-12)


@given(scored(), st.sampled_from([(-1, 1), (False, True)]))
def test_default_positive_label_as_sklearn(data, classes):
    y, s, _ = data
    truth = np.where(y, classes[1], classes[0])
    got = C.roc_curve(truth, s)
    want = skm.roc_curve(truth, s)
    np.testing.assert_allclose(got[1], want[1], **EXACT)
    assert C.roc_auc(truth, s) == pytest.approx(skm.roc_auc_score(truth, s), rel=0, abs=1e-12)


@st.composite
def multiclass(draw, max_n=60):
    k = draw(st.integers(3, 5))
    n = draw(st.integers(k + 1, max_n))
    codes = np.array([*range(k), *draw(st.lists(st.integers(0, k - 1), min_size=n - k, max_size=n - k))])
    codes = codes[np.array(draw(st.permutations(range(n))))]
    # small integer weights, normalised: rows sum to 1 and columns are full of ties
    cells = np.array(draw(st.lists(st.integers(0, 4), min_size=n * k, max_size=n * k)), dtype=np.float64)
    matrix = cells.reshape(n, k) + draw(st.sampled_from([0.5, 1.0]))
    return matrix / matrix.sum(axis=1, keepdims=True), codes


@pytest.mark.parametrize("multi_class", ["ovr", "ovo"])
@pytest.mark.parametrize("average", ["macro", "weighted"])
@settings(max_examples=60)
@given(data=multiclass(), string_labels=st.booleans())
def test_multiclass_roc_auc_matches_sklearn(multi_class, average, data, string_labels):
    matrix, codes = data
    k = matrix.shape[1]
    names = ["ant", "bee", "cat", "dog", "eel"][:k] if string_labels else list(range(k))
    truth = np.array(names, dtype=object)[codes] if string_labels else codes
    want = skm.roc_auc_score(truth, matrix, multi_class=multi_class, average=average, labels=names)
    got = C.roc_auc(truth, matrix, multi_class=multi_class, average=average, labels=names)
    assert got == pytest.approx(want, rel=0, abs=1e-12)
    if not string_labels:
        assert C.roc_auc(truth, matrix, multi_class=multi_class, average=average) == pytest.approx(
            want, rel=0, abs=1e-12)


def test_zero_weight_is_the_same_as_leaving_the_instance_out():
    """sklearn drops zero-weight instances before building its curves; a drop-in must too.

    An instance of weight 0 changes no count, so it cannot add a threshold, and the
    precision where only weight-0 instances are flagged is not 0/0 but absent.
    """
    y = np.array([1, 0, 1, 0, 1, 0])
    s = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4])
    w = np.array([0.0, 1.0, 2.0, 1.0, 1.0, 3.0])  # the top-scored instance weighs nothing
    with np.errstate(invalid="ignore"):  # show the wrong values, not only the 0/0 warning
        curves = [
            (C.roc_curve(y, s, sample_weight=w, drop_intermediate=False),
             skm.roc_curve(y, s, sample_weight=w, drop_intermediate=False)),
            (C.precision_recall_curve(y, s, sample_weight=w), skm.precision_recall_curve(y, s, sample_weight=w)),
        ]
        ap = C.average_precision(y, s, sample_weight=w)
    kept = w > 0
    assert ap == pytest.approx(skm.average_precision_score(y[kept], s[kept], sample_weight=w[kept]), rel=0, abs=1e-12)
    for got, want in curves:
        for g, e in zip(got, want, strict=True):
            assert g.shape == e.shape
            np.testing.assert_allclose(g, e, **EXACT)


@settings(max_examples=60)
@given(scored(weighted=True), st.data())
def test_zero_weights_change_nothing(data, draw):
    y, s, w = data
    zero = np.array(draw.draw(st.lists(st.booleans(), min_size=len(y), max_size=len(y))))
    assume((y & ~zero).any() and (~y & ~zero).any())
    w0 = np.where(zero, 0.0, w)
    keep = ~zero
    assert C.roc_auc(sk_labels(y), s, sample_weight=w0) == pytest.approx(
        C.roc_auc(sk_labels(y[keep]), s[keep], sample_weight=w[keep]), rel=0, abs=1e-12)
    with np.errstate(invalid="ignore"):
        ap = C.average_precision(sk_labels(y), s, sample_weight=w0)
    assert ap == pytest.approx(skm.average_precision_score(sk_labels(y), s, sample_weight=w0), rel=0, abs=1e-12)
    got = C.roc_curve(sk_labels(y), s, sample_weight=w0, drop_intermediate=False)
    want = skm.roc_curve(sk_labels(y), s, sample_weight=w0, drop_intermediate=False)
    np.testing.assert_array_equal(got[2], np.asarray(want[2], dtype=np.float64))


@pytest.mark.parametrize("function", [C.roc_curve, C.roc_auc, C.average_precision, C.precision_recall_curve])
def test_single_class_raises_where_sklearn_returns_nan(function):
    with pytest.raises(InvalidInput):
        function([1, 1, 1], [0.2, 0.5, 0.9])


# ── 2. ScoreCounts: a mergeable summary ────────────────────────────────────────


def reference_counts(y, s, w=None):
    """Distinct scores (decreasing) with class counts, by np.unique and bincount.

    An instance of weight 0 is left out, as scikit-learn does (see
    test_zero_weight_is_the_same_as_leaving_the_instance_out).
    """
    if w is not None:
        keep = np.asarray(w) != 0
        y, s, w = np.asarray(y)[keep], np.asarray(s)[keep], np.asarray(w)[keep]
    s = np.asarray(s).astype(np.float64) + 0.0
    values, inverse = np.unique(s, return_inverse=True)
    m = len(values)
    weights = np.ones(len(s)) if w is None else np.asarray(w, dtype=np.float64)
    pos = np.bincount(inverse[y], weights=weights[y], minlength=m)
    neg = np.bincount(inverse[~y], weights=weights[~y], minlength=m)
    return values[::-1], pos[::-1], neg[::-1]


@given(labelled())
def test_counts_equal_unique_and_bincount(data):
    y, s = data
    sc = ScoreCounts.from_arrays(y, s)
    values, pos, neg = reference_counts(y, s)
    np.testing.assert_array_equal(sc.scores, values)
    np.testing.assert_array_equal(sc.positives, pos)
    np.testing.assert_array_equal(sc.negatives, neg)
    assert sc.n_positive == y.sum() and sc.n_negative == (~y).sum()
    assert np.all(np.diff(sc.scores) < 0)


@given(labelled(min_n=1), st.data())
def test_weighted_counts_equal_bincount(data, draw):
    y, s = data
    w = np.array(draw.draw(st.lists(st.integers(0, 12), min_size=len(y), max_size=len(y)))) / 4
    sc = ScoreCounts.from_arrays(y, s, sample_weight=w)
    values, pos, neg = reference_counts(y, s, w)
    np.testing.assert_array_equal(sc.scores, values)
    np.testing.assert_array_equal(sc.positives, pos)
    np.testing.assert_array_equal(sc.negatives, neg)


def test_minus_zero_and_zero_are_one_score():
    for dtype in (np.float64, np.float32):
        s = np.array([0.0, -0.0, -0.0, 0.5, -0.5], dtype=dtype)
        y = np.array([True, False, True, False, True])
        sc = ScoreCounts.from_arrays(y, s)
        assert sc.scores.tolist() == [0.5, 0.0, -0.5]
        assert sc.positives.tolist() == [0, 2, 1] and sc.negatives.tolist() == [1, 1, 0]
        w = ScoreCounts.from_arrays(y, s, sample_weight=np.ones(5))
        assert w.scores.tolist() == [0.5, 0.0, -0.5] and w.positives.tolist() == [0, 2, 1]
        # an AUC with the tie at 0 counted one half: pairs (+,-) = 3 x 2
        assert auc(sc) == pytest.approx(mann_whitney(y, s), abs=1e-12)
        assert auc_from_keys(sort_keys(y, s)) == pytest.approx(mann_whitney(y, s), abs=1e-12)


def _same_dtype_pair(draw):
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    a = draw(labelled())
    b = draw(labelled())
    return (a[0], a[1].astype(dtype)), (b[0], b[1].astype(dtype))


@given(st.data())
def test_summary_of_concatenation_is_merge_of_summaries(draw):
    (ya, sa), (yb, sb) = _same_dtype_pair(draw.draw)
    whole = ScoreCounts.from_arrays(np.concatenate([ya, yb]), np.concatenate([sa, sb]))
    assert whole == ScoreCounts.from_arrays(ya, sa).merge(ScoreCounts.from_arrays(yb, sb))


@given(st.data())
def test_weighted_summary_of_concatenation_is_merge_of_summaries(draw):
    (ya, sa), (yb, sb) = _same_dtype_pair(draw.draw)
    wa = (np.arange(len(ya)) % 4 + 1) / 4.0
    wb = (np.arange(len(yb)) % 3 + 1) / 2.0
    whole = ScoreCounts.from_arrays(np.concatenate([ya, yb]), np.concatenate([sa, sb]),
                                    sample_weight=np.concatenate([wa, wb]))
    parts = ScoreCounts.from_arrays(ya, sa, sample_weight=wa).merge(ScoreCounts.from_arrays(yb, sb, sample_weight=wb))
    assert whole == parts


@given(labelled(max_n=80), st.data())
def test_chunked_equals_one_shot(data, draw):
    y, s = data
    cuts = sorted(draw.draw(st.lists(st.integers(0, len(y)), max_size=12)))
    pieces = np.split(np.arange(len(y)), cuts)
    merged = reduce(lambda acc, idx: acc.merge(ScoreCounts.from_arrays(y[idx], s[idx])), pieces, ScoreCounts.empty())
    assert merged == ScoreCounts.from_arrays(y, s)


@given(labelled(), labelled(), labelled())
def test_merge_is_commutative_and_associative_with_identity(a, b, c):
    sa, sb, sc = (ScoreCounts.from_arrays(*x) for x in (a, b, c))
    assert sa.merge(sb) == sb.merge(sa)
    assert sa.merge(sb).merge(sc) == sa.merge(sb.merge(sc))
    empty = ScoreCounts.empty()
    assert sa.merge(empty) == sa and empty.merge(sa) == sa
    assert ScoreCounts.from_arrays([], []) == empty


def test_merge_refuses_other_classes():
    a = ScoreCounts.from_arrays([True, False], [0.3, 0.2], labels=("neg", "pos"))
    b = ScoreCounts.from_arrays([True, False], [0.3, 0.2], labels=("no", "yes"))
    with pytest.raises(ValueError):
        a.merge(b)
    with pytest.raises(ValueError):
        a.merge(ScoreCounts.empty(("no", "yes")))


@given(labelled(min_n=1))
def test_threshold_counts_from_keys_equal_from_counts(data):
    y, s = data
    a = threshold_counts(ScoreCounts.from_arrays(y, s))
    b = threshold_counts_from_keys(sort_keys(y, s))
    np.testing.assert_array_equal(a.thresholds, b.thresholds)
    np.testing.assert_array_equal(a.tp, b.tp)
    np.testing.assert_array_equal(a.fp, b.fp)
    assert a.n_positive == b.n_positive and a.n_negative == b.n_negative


# ── 3. AUC three ways, and the ROC curve's shape ─────────────────────────────────


@given(scored())
def test_auc_three_ways_agree(data):
    y, s, _ = data
    sc = ScoreCounts.from_arrays(y, s)
    direct = mann_whitney(y, s)
    assert auc(sc) == pytest.approx(direct, rel=0, abs=1e-12)
    assert auc_from_keys(sort_keys(y, s)) == pytest.approx(direct, rel=0, abs=1e-12)
    assert 0.0 <= auc(sc) <= 1.0


@given(scored(weighted=True))
def test_weighted_auc_is_weighted_mann_whitney(data):
    y, s, w = data
    assert auc(ScoreCounts.from_arrays(y, s, sample_weight=w)) == pytest.approx(mann_whitney(y, s, w), abs=1e-12)


@given(scored())
def test_flipped_scores_give_one_minus_auc(data):
    y, s, _ = data
    a = auc(ScoreCounts.from_arrays(y, s))
    assert auc(ScoreCounts.from_arrays(y, -s)) == pytest.approx(1.0 - a, rel=0, abs=1e-12)
    assert auc_from_keys(sort_keys(y, -s)) == pytest.approx(1.0 - a, rel=0, abs=1e-12)
    # swapping the classes flips it too
    assert auc(ScoreCounts.from_arrays(~y, s)) == pytest.approx(1.0 - a, rel=0, abs=1e-12)


@given(scored(), st.data())
def test_auc_invariant_to_strictly_increasing_transforms(data, draw):
    y, s, _ = data
    values, inverse = np.unique(s.astype(np.float64) + 0.0, return_inverse=True)
    # any strictly increasing map of the distinct scores: random positive gaps, any origin
    gaps = np.array(draw.draw(st.lists(st.integers(1, 1000), min_size=len(values), max_size=len(values))))
    mapped = (np.cumsum(gaps) + draw.draw(st.integers(-5000, 5000))).astype(np.float64)[inverse]
    a = auc(ScoreCounts.from_arrays(y, s))
    assert auc(ScoreCounts.from_arrays(y, mapped)) == pytest.approx(a, rel=0, abs=1e-12)
    # and a concrete one, exact in floating point: scaling by 4
    shifted = s.astype(np.float64) * 4.0
    assert auc_from_keys(sort_keys(y, shifted)) == pytest.approx(a, rel=0, abs=1e-12)


@given(scored())
def test_roc_points_monotone_from_origin_to_corner(data):
    y, s, _ = data
    fpr, tpr, thresholds = roc_points(threshold_counts(ScoreCounts.from_arrays(y, s)))
    assert (fpr[0], tpr[0]) == (0.0, 0.0) and (fpr[-1], tpr[-1]) == (1.0, 1.0)
    assert np.all(np.diff(fpr) >= 0) and np.all(np.diff(tpr) >= 0)
    assert thresholds[0] == np.inf and np.all(np.diff(thresholds) < 0)
    # the AUC is the trapezoidal area under these points
    assert np.trapezoid(tpr, fpr) == pytest.approx(auc(ScoreCounts.from_arrays(y, s)), abs=1e-12)


@given(scored(), st.floats(0, 1), st.floats(0, 1), st.floats(0, 1))
def test_partial_auc_is_additive_and_sums_to_auc(data, a, b, c):
    y, s, _ = data
    sc = ScoreCounts.from_arrays(y, s)
    fpr, tpr, _ = roc_points(threshold_counts(sc))
    low, mid, high = sorted((a, b, c))
    assume(low < mid < high)
    assert partial_auc(fpr, tpr, 0.0, 1.0) == pytest.approx(auc(sc), abs=1e-12)
    assert partial_auc(fpr, tpr, low, mid) + partial_auc(fpr, tpr, mid, high) == pytest.approx(
        partial_auc(fpr, tpr, low, high), abs=1e-12)
    # between the areas of the lowest and highest curves possible on that strip
    assert 0.0 <= partial_auc(fpr, tpr, low, high) <= high - low + 1e-15


# ── 4. DeLong ───────────────────────────────────────────────────────────────────


@given(scored(min_n=4, max_n=40, min_each=2))
def test_delong_matches_direct_placements(data):
    y, s, _ = data
    sc = ScoreCounts.from_arrays(y, s)
    area, se, v10, v01 = delong_direct(y, s)
    r = delong(sc)
    assert r.auc == pytest.approx(area, rel=0, abs=1e-12)
    assert r.se == pytest.approx(se, rel=0, abs=1e-12)
    z = norm.ppf(0.975)
    assert r.ci.low == pytest.approx(max(0.0, area - z * se), abs=1e-12)
    assert r.ci.high == pytest.approx(min(1.0, area + z * se), abs=1e-12)
    # the grouped placements, expanded back to instances, are the direct ones
    g10, g01 = placements(sc)
    group = {v: i for i, v in enumerate(sc.scores.tolist())}
    idx = np.array([group[float(v) + 0.0] for v in s.astype(np.float64)])
    np.testing.assert_allclose(np.sort(g10[idx[y]]), np.sort(v10), **EXACT)
    np.testing.assert_allclose(np.sort(g01[idx[~y]]), np.sort(v01), **EXACT)


@given(scored(min_n=4, max_n=40, min_each=2), st.floats(0.5, 0.99), st.floats(0.5, 0.99))
def test_delong_interval_contains_auc_and_widens(data, c1, c2):
    y, s, _ = data
    sc = ScoreCounts.from_arrays(y, s)
    lo, hi = sorted((c1, c2))
    a, b = delong(sc, confidence=lo), delong(sc, confidence=hi)
    assert a.ci.contains(a.auc)
    assert b.ci.low <= a.ci.low + 1e-15 and a.ci.high <= b.ci.high + 1e-15
    assert 0.0 <= b.ci.low and b.ci.high <= 1.0


def _asah():
    with open(DATA / "asah.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    outcome = np.array([r["outcome"] for r in rows])
    return outcome, {c: np.array([float(r[c]) for r in rows]) for c in ("s100b", "wfns", "ndka")}


@pytest.fixture(scope="module")
def asah():
    return _asah()


@pytest.mark.parametrize("marker, area, ci", [
    ("s100b", 0.7314, (0.6301, 0.8326)),
    ("wfns", 0.8237, (0.7485, 0.8988)),
])
def test_proc_asah_auc_and_delong_interval(asah, marker, area, ci):
    outcome, x = asah
    r = assay.evaluate(outcome, y_score=x[marker], threshold=0.5).ranking
    assert r.summary.labels == ("Good", "Poor")
    assert round(r.roc_auc.value, 4) == area
    assert r.roc_auc.method == "delong"
    assert (round(r.roc_auc.ci.low, 4), round(r.roc_auc.ci.high, 4)) == ci
    assert r.summary.n_positive == 41 and r.summary.n_negative == 72


def test_proc_asah_ndka_auc(asah):
    outcome, x = asah
    assert round(rank(outcome, y_score=x["ndka"]).roc_auc.value, 3) == 0.612


@pytest.mark.parametrize("marker, value", [("s100b", 0.02983), ("wfns", 0.03305)])
def test_proc_asah_partial_auc(asah, marker, value):
    outcome, x = asah
    r = assay.evaluate(outcome, y_score=x[marker], threshold=0.5, fpr_range=(0.01, 0.1)).ranking
    assert round(r.partial_auc["value"], 5) == value
    fpr, tpr, _ = roc_points(r.counts)
    assert round(partial_auc(fpr, tpr, 0.01, 0.1), 5) == value


def test_proc_asah_best_youden_threshold(asah):
    outcome, x = asah
    r = rank(outcome, y_score=x["s100b"])
    best = r.best["youden"]
    assert round(1 - best.fpr, 4) == 0.8056 and round(best.tpr, 4) == 0.6341
    # pROC prints the midpoint 0.205 between the scores 0.19 and 0.22; assay the score itself
    assert best.threshold == 0.22
    s = x["s100b"]
    assert s[s < 0.22].max() == 0.19 and (0.19 + 0.22) / 2 == pytest.approx(0.205)


def test_evaluate_and_rank_agree(asah):
    outcome, x = asah
    a = assay.evaluate(outcome, y_score=x["s100b"], threshold=0.5).ranking
    b = rank(outcome, y_score=x["s100b"])
    assert a.summary == b.summary
    for key in ("fpr", "tpr", "threshold"):
        np.testing.assert_array_equal(a.roc()[key], b.roc()[key])
    assert a.roc_auc == b.roc_auc


# ── 5. the bootstrap interval of the AUC ─────────────────────────────────────────


def _normal_scores(rng, n_pos, n_neg, shift, decimals=2):
    pos = np.round(rng.normal(shift, 1.0, n_pos), decimals)
    neg = np.round(rng.normal(0.0, 1.0, n_neg), decimals)
    y = np.concatenate([np.ones(n_pos, bool), np.zeros(n_neg, bool)])
    return y, np.concatenate([pos, neg])


def test_bootstrap_is_reproducible_from_its_seed():
    y, s = _normal_scores(np.random.default_rng(1), 40, 60, 0.8)
    sc = ScoreCounts.from_arrays(y, s)
    a = bootstrap_auc_ci(sc, settings=BootstrapSettings(500, 7))
    assert a == bootstrap_auc_ci(sc, settings=BootstrapSettings(500, 7))
    assert a != bootstrap_auc_ci(sc, settings=BootstrapSettings(500, 8))
    assert a.low <= auc(sc) <= a.high


def test_bootstrap_refuses_weights():
    sc = ScoreCounts.from_arrays([True, False, True], [0.1, 0.2, 0.3], sample_weight=[1.0, 2.0, 1.0])
    with pytest.raises(ValueError):
        bootstrap_auc_ci(sc)


def test_bootstrap_matches_brute_force_stratified_bootstrap():
    """Both draw B = 2000 stratified resamples of n = 300 (120 positives, 180 negatives).

    Tolerance: the 2.5% quantile of B draws has Monte-Carlo standard error
    sqrt(p (1 - p) / B) / f(q), about 0.06 sigma for a normal sampling distribution
    (f(q) = phi(1.96) / sigma); here sigma (DeLong's SE) is about 0.03, so each bound
    carries about 0.002 of Monte-Carlo error and the difference of two independent runs
    about 0.003. 0.01 is more than three times that; a systematic error (a resample that
    is not stratified, a wrong tie count) moves the bounds by more.
    """
    rng = np.random.default_rng(2024)
    y, s = _normal_scores(rng, 120, 180, 0.9, decimals=1)  # heavy ties
    sc = ScoreCounts.from_arrays(y, s)
    got = bootstrap_auc_ci(sc, settings=BootstrapSettings(2000, 3))
    pos, neg = s[y], s[~y]
    labels = np.concatenate([np.ones(len(pos)), np.zeros(len(neg))])
    values = np.empty(2000)
    for b in range(2000):
        values[b] = skm.roc_auc_score(labels, np.concatenate([rng.choice(pos, len(pos)), rng.choice(neg, len(neg))]))
    low, high = np.quantile(values, [0.025, 0.975])
    se = delong(sc).se
    assert 0.02 < se < 0.04  # the premise of the tolerance
    assert got.low == pytest.approx(low, abs=0.01)
    assert got.high == pytest.approx(high, abs=0.01)


def test_bootstrap_close_to_delong_for_large_n():
    """n = 1000: the percentile bootstrap and DeLong's normal interval agree within 0.02.

    Both estimate the same sampling distribution, which is close to normal at this size
    (DeLong's SE is about 0.014 here); the bounds differ by the skewness of the AUC's
    distribution and by Monte-Carlo error (about 0.001), well under 0.02.
    """
    y, s = _normal_scores(np.random.default_rng(5), 400, 600, 1.0)
    sc = ScoreCounts.from_arrays(y, s)
    boot = bootstrap_auc_ci(sc, settings=BootstrapSettings(2000, 11))
    dl = delong(sc)
    assert boot.low == pytest.approx(dl.ci.low, abs=0.02)
    assert boot.high == pytest.approx(dl.ci.high, abs=0.02)


def test_evaluate_bootstrap_interval_is_bootstrap_auc_ci(asah):
    outcome, x = asah
    r = assay.evaluate(outcome, y_score=x["s100b"], threshold=0.5, auc_interval="bootstrap", bootstrap=500,
                       seed=9).ranking
    assert r.roc_auc.method == "bootstrap-percentile"
    assert r.roc_auc.ci == bootstrap_auc_ci(r.summary, settings=BootstrapSettings(500, 9))


# ── 6. Boyd, Eng & Page's logit interval ────────────────────────────────────────


@given(st.floats(1e-6, 1 - 1e-6), st.integers(1, 10_000), st.floats(0.5, 0.999))
def test_logit_interval_formula(value, n, confidence):
    ci = logit_interval(value, n, confidence=confidence)
    z = norm.ppf(0.5 + confidence / 2)
    eta = math.log(value / (1 - value))
    half = z / math.sqrt(n * value * (1 - value))
    from scipy.special import expit  # a stable logistic (the plain formula overflows at the extremes)
    assert ci.low == pytest.approx(expit(eta - half), rel=1e-9, abs=1e-15)
    assert ci.high == pytest.approx(expit(eta + half), rel=1e-9, abs=1e-15)
    assert ci.low <= value <= ci.high
    wider = logit_interval(value, n, confidence=min(0.9999, confidence + 0.0005))
    assert wider.low <= ci.low and ci.high <= wider.high


def test_logit_interval_undefined_at_the_ends():
    assert logit_interval(0.0, 10) is None
    assert logit_interval(1.0, 10) is None
    assert logit_interval(0.5, 0) is None


@given(scored(min_n=4))
def test_ranking_ap_interval_is_logit_interval(data):
    y, s, _ = data
    sc = ScoreCounts.from_arrays(y, s)
    r = analyse_scores(sc)
    ap = skm.average_precision_score(y, s)
    assert r.average_precision.value == pytest.approx(ap, abs=1e-12)
    if 0 < r.average_precision.value < 1:
        assert r.average_precision.ci == logit_interval(r.average_precision.value, float(y.sum()))
    else:
        assert r.average_precision.ci is None and r.average_precision.note


# ── 7. the seeds' worked examples ────────────────────────────────────────────────

SEED000_Y = [1, 0, 1, 1, 0]


def test_seed_000_auc_examples():
    assert rank(SEED000_Y, y_score=[0.7, 0.4, 0.8, 0.7, 0.3]).roc_auc.value == 1.0
    r = rank(SEED000_Y, y_score=[0.2, 0.4, 0.8, 0.7, 0.7])
    assert r.roc_auc.value == pytest.approx(7 / 12, abs=1e-12)
    assert round(r.roc_auc.value, 4) == 0.5833
    assert C.roc_auc(SEED000_Y, [0.2, 0.4, 0.8, 0.7, 0.7]) == pytest.approx(7 / 12, abs=1e-12)


def test_seed_000_threshold_table():
    """Positive iff p >= s. The seed's first table gives FP/TN = 2/2, 2/2, 1/2, 0, 0, 0 (its
    second table shifts FP/TN by a column at s = 0.4 and 0.6)."""
    r = rank(SEED000_Y, y_score=[0.7, 0.4, 0.8, 0.7, 0.3])
    t = r.threshold_table(np.array([0, 0.2, 0.4, 0.6, 0.8, 1]))
    np.testing.assert_allclose(t["fpr"], [1, 1, 0.5, 0, 0, 0], **EXACT)
    np.testing.assert_allclose(t["recall"], [1, 1, 1, 1, 1 / 3, 0], **EXACT)
    np.testing.assert_array_equal(t["tp"], [3, 3, 3, 3, 1, 0])
    np.testing.assert_array_equal(t["fp"], [2, 2, 1, 0, 0, 0])
    np.testing.assert_array_equal(t["tn"], [0, 0, 1, 2, 2, 2])
    np.testing.assert_array_equal(t["fn"], [0, 0, 0, 0, 2, 3])
    # the first table, row by row: each object's class at each s
    p = np.array([0.7, 0.4, 0.8, 0.7, 0.3])
    table = (p[:, None] >= np.array([0, 0.2, 0.4, 0.6, 0.8, 1])[None, :]).astype(int)
    assert table.tolist() == [[1, 1, 1, 1, 0, 0], [1, 1, 1, 0, 0, 0], [1, 1, 1, 1, 1, 0],
                              [1, 1, 1, 1, 0, 0], [1, 1, 0, 0, 0, 0]]
    y = np.array(SEED000_Y, bool)
    np.testing.assert_array_equal(t["tp"], table[y].sum(axis=0))
    np.testing.assert_array_equal(t["fp"], table[~y].sum(axis=0))


SEED003_CLASSES = "p p n p p p n n p n p n p n n n p n p n".split()
SEED003_SCORES = [.9, .8, .7, .6, .55, .54, .53, .52, .51, .505, .4, .39, .38, .37, .36, .35, .34, .33, .30, .1]


def test_seed_003_twenty_instance_roc():
    r = rank(SEED003_CLASSES, y_score=SEED003_SCORES, positive="p")
    roc = r.roc()
    points = dict(zip(roc["threshold"].tolist(), zip(roc["fpr"].tolist(), roc["tpr"].tolist())))
    assert points[np.inf] == (0.0, 0.0)
    assert points[0.9] == (0.0, 0.1)            # "diminuindo o limiar para 0,9 ... ponto (0; 0,1)"
    assert points[0.54] == pytest.approx((0.1, 0.5))
    row = r.threshold_table(np.array([0.54]))
    assert row["accuracy"][0] == pytest.approx(0.7)   # 14 of 20 right
    assert (row["tp"][0] + row["tn"][0]) == 14
    assert row["recall"][0] == pytest.approx(0.5) and row["specificity"][0] == pytest.approx(0.9)
    # the step walk of seed 001: sorted by decreasing score, add TPR/m- at each negative
    order = np.argsort(-np.array(SEED003_SCORES), kind="stable")
    classes = np.array(SEED003_CLASSES)[order]
    m_pos, m_neg = (classes == "p").sum(), (classes == "n").sum()
    tpr, walk, path = 0.0, 0.0, [(0.0, 0.0)]
    fpr = 0.0
    for c in classes:
        if c == "p":
            tpr += 1 / m_pos
        else:
            fpr += 1 / m_neg
            walk += tpr / m_neg
        path.append((fpr, tpr))
    assert r.roc_auc.value == pytest.approx(walk, abs=1e-12)
    assert r.roc_auc.value == pytest.approx(skm.roc_auc_score(np.array(SEED003_CLASSES) == "p", SEED003_SCORES),
                                            abs=1e-12)
    np.testing.assert_allclose(np.column_stack([roc["fpr"], roc["tpr"]]), np.array(path), **EXACT)


@given(st.data())
def test_seed_001_step_walk_equals_auc_without_ties(draw):
    y, s = draw.draw(untied())
    order = np.argsort(-s)
    walk, tpr = 0.0, 0.0
    for i in order:
        if y[i]:
            tpr += 1 / y.sum()
        else:
            walk += tpr / (~y).sum()
    assert auc(ScoreCounts.from_arrays(y, s)) == pytest.approx(walk, abs=1e-12)


def test_seed_001_pr_curve_is_not_monotone():
    r = rank(SEED003_CLASSES, y_score=SEED003_SCORES, positive="p")
    precision = r.pr()["precision"]
    steps = np.diff(precision)
    assert (steps > 0).any() and (steps < 0).any()
    # the smallest case: + - + gives precision 1, 1/2, 2/3
    small = rank([1, 0, 1], y_score=[0.9, 0.8, 0.7]).pr()
    np.testing.assert_allclose(small["precision"], [1, 1 / 2, 2 / 3], **EXACT)
    np.testing.assert_allclose(small["recall"], [1 / 2, 1 / 2, 1], **EXACT)


def test_seed_003_iso_performance_slopes():
    assert iso_performance_slope(cost_fp=1, cost_fn=1, negatives=10, positives=1) == 10.0
    assert iso_performance_slope(cost_fp=1, cost_fn=10, negatives=1, positives=1) == pytest.approx(0.1)
    # the same through the analysis: deployment prevalence 1/11 with equal costs, and
    # balanced classes with a false negative 10 times as costly
    sc = ScoreCounts.from_arrays(np.array(SEED003_CLASSES) == "p", SEED003_SCORES)
    assert analyse_scores(sc, prevalence=1 / 11).slope == pytest.approx(10.0)
    assert analyse_scores(sc, costs=Costs(fn=10.0), prevalence=0.5).slope == pytest.approx(0.1)


@pytest.mark.parametrize("hull_fpr, hull_tpr, conservative, liberal", [
    ([0, 0.1, 0.3, 1], [0, 0.5, 0.8, 1], 0, 3),
    ([0, 0.02, 0.1, 0.4, 1], [0, 0.4, 0.7, 0.97, 1], 1, 3),
])
def test_seed_003_optimal_point_conservative_and_liberal(hull_fpr, hull_tpr, conservative, liberal):
    f, t = np.array(hull_fpr, float), np.array(hull_tpr, float)
    alpha = optimal_point(f, t, 10.0)   # negatives outnumber positives 10 to 1
    beta = optimal_point(f, t, 0.1)     # a false negative 10 times as costly
    assert alpha.index == conservative and beta.index == liberal
    assert alpha.fpr < beta.fpr and alpha.tpr < beta.tpr
    # the point of least expected cost under each scenario, by brute force
    a_cost = expected_cost(f, t, prevalence=1 / 11, cost_fp=1, cost_fn=1)
    b_cost = expected_cost(f, t, prevalence=0.5, cost_fp=1, cost_fn=10)
    assert alpha.index == int(np.argmin(a_cost)) and beta.index == int(np.argmin(b_cost))


@given(st.tuples(st.floats(0, 1), st.floats(0, 1)), st.tuples(st.floats(0, 1), st.floats(0, 1)), st.floats(0, 1))
def test_seed_002_mixing_two_classifiers_lies_on_the_segment(a, b, q):
    f, t = mix(a, b, q)
    assert f == pytest.approx(q * b[0] + (1 - q) * a[0], abs=1e-12)
    assert t == pytest.approx(q * b[1] + (1 - q) * a[1], abs=1e-12)
    # collinear with a and b, and between them
    cross = (b[0] - a[0]) * (t - a[1]) - (b[1] - a[1]) * (f - a[0])
    assert abs(cross) <= 1e-12
    assert min(a[0], b[0]) - 1e-12 <= f <= max(a[0], b[0]) + 1e-12
    assert min(a[1], b[1]) - 1e-12 <= t <= max(a[1], b[1]) + 1e-12
    assert mix(a, b, 0.0) == pytest.approx(a, abs=1e-15) and mix(a, b, 1.0) == pytest.approx(b, abs=1e-15)


def _hull_reference(fp, tp):
    """Vertices of the upper ROC hull by scipy: the hull of the points and (N, 0), less (N, 0)."""
    n_neg, n_pos = int(fp[-1]), int(tp[-1])
    points = np.column_stack([fp, tp]).astype(np.float64)
    helper = np.array([[n_neg, 0.0]])
    all_points = np.vstack([points, helper])
    hull = ConvexHull(all_points)
    vertices = {tuple(map(int, all_points[i])) for i in hull.vertices}
    vertices.discard((n_neg, 0))
    assert (0, 0) in vertices and (n_neg, n_pos) in vertices
    return vertices


@given(scored())
def test_roc_hull_matches_scipy_convex_hull(data):
    y, s, _ = data
    sc = ScoreCounts.from_arrays(y, s)
    fp, tp = roc_counts(sc)
    idx = roc_hull(sc.positives, sc.negatives)
    got = {(int(fp[i]), int(tp[i])) for i in idx}
    assert got == _hull_reference(fp, tp)
    # the same as the upper hull of every point, without the candidate filter
    assert upper_hull(fp, tp).tolist() == idx.tolist()
    # vertices in order, every interior one a strict right turn
    hx, hy = fp[idx], tp[idx]
    assert idx[0] == 0 and idx[-1] == len(fp) - 1 and np.all(np.diff(idx) > 0)
    cross = (hx[1:-1] - hx[:-2]) * (hy[2:] - hy[1:-1]) - (hy[1:-1] - hy[:-2]) * (hx[2:] - hx[1:-1])
    assert np.all(cross < 0)
    # every ROC point lies on or under the hull
    for x, yv in zip(fp, tp, strict=True):
        assert yv <= np.interp(x, hx, hy) + 1e-9


@given(scored())
def test_ranking_hull_and_curves(data):
    y, s, _ = data
    r = analyse_scores(ScoreCounts.from_arrays(y, s))
    roc, hull = r.roc(), r.hull()
    np.testing.assert_array_equal(hull["fpr"], roc["fpr"][r.hull_index])
    want = skm.roc_curve(y, s, drop_intermediate=False)
    np.testing.assert_allclose(roc["fpr"], want[0], **EXACT)
    np.testing.assert_allclose(roc["tpr"], want[1], **EXACT)
    # pr(): sklearn's curve without its final (recall 0, precision 1) point, highest threshold first
    p, rc, th = skm.precision_recall_curve(y, s)
    pr = r.pr()
    np.testing.assert_allclose(pr["precision"], p[:-1][::-1], **EXACT)
    np.testing.assert_allclose(pr["recall"], rc[:-1][::-1], **EXACT)
    np.testing.assert_array_equal(pr["threshold"], np.asarray(th[::-1], dtype=np.float64))


# ── 8. lift, gains and the threshold table ───────────────────────────────────────


@st.composite
def untied(draw, max_n=60):
    n = draw(st.integers(2, max_n))
    n_pos = draw(st.integers(1, n - 1))
    y = np.zeros(n, bool)
    y[list(draw(st.permutations(range(n)))[:n_pos])] = True
    s = (np.array(draw(st.permutations(range(n))), dtype=np.float64) - n / 3) / 7.0
    return y, s


@given(untied())
def test_lift_and_gains_by_sorting_instances(data):
    y, s = data
    n, n_pos = len(y), y.sum()
    order = np.argsort(-s)
    found = np.cumsum(y[order])
    depth_ref = np.arange(1, n + 1) / n
    gains_ref = found / n_pos
    lift_ref = (found / np.arange(1, n + 1)) / (n_pos / n)
    tc = threshold_counts(ScoreCounts.from_arrays(y, s))
    depth, gains, lift = lift_points(tc)
    np.testing.assert_allclose(depth, depth_ref, **EXACT)
    np.testing.assert_allclose(gains, gains_ref, **EXACT)
    np.testing.assert_allclose(lift, lift_ref, rtol=1e-12, atol=1e-12)
    assert lift[-1] == pytest.approx(1.0, abs=1e-12)
    for i in range(n):
        assert gains_at(tc, (i + 1) / n) == pytest.approx(gains_ref[i], abs=1e-12)
    curve = analyse_scores(ScoreCounts.from_arrays(y, s)).lift_curve()
    np.testing.assert_allclose(curve["lift"], lift_ref, rtol=1e-12, atol=1e-12)


@given(scored(), st.floats(0.01, 1.0))
def test_gains_with_ties_are_the_mean_over_tie_orders(data, depth):
    """gains_at splits a tie evenly: the expected share found when ties are broken at random."""
    y, s, _ = data
    sc = ScoreCounts.from_arrays(y, s)
    tc = threshold_counts(sc)
    n = len(y)
    take = depth * n
    found, seen = 0.0, 0
    for p, q in zip(sc.positives.tolist(), sc.negatives.tolist(), strict=True):
        size = p + q
        if seen + size <= take:
            found += p
            seen += size
        else:
            found += (take - seen) * p / size
            break
    assert gains_at(tc, depth) == pytest.approx(found / y.sum(), abs=1e-12)
    d, g, lift = lift_points(tc)
    assert np.all(np.diff(g) >= 0) and np.all(np.diff(d) > 0)
    assert d[-1] == pytest.approx(1.0) and lift[-1] == pytest.approx(1.0, abs=1e-12)
    r = analyse_scores(sc, lift_depth=depth)
    assert r.lift.value == pytest.approx(found / y.sum() / depth, abs=1e-9)


@given(scored(), st.lists(st.floats(-1e3, 1e3, allow_nan=False), max_size=5))
def test_threshold_table_matches_sklearn_confusion_matrix(data, extra):
    y, s, _ = data
    s64 = s.astype(np.float64)
    mids = (np.unique(s64)[1:] + np.unique(s64)[:-1]) / 2
    thresholds = np.concatenate([np.unique(s64), mids, np.array(extra), [s64.min() - 1, s64.max() + 1]])
    r = analyse_scores(ScoreCounts.from_arrays(y, s))
    table = r.threshold_table(thresholds)
    for i, t in enumerate(thresholds):
        tn, fp, fn, tp = skm.confusion_matrix(y, s64 >= t, labels=[False, True]).ravel()
        assert (table["tp"][i], table["fp"][i], table["fn"][i], table["tn"][i]) == (tp, fp, fn, tn)
        assert table["recall"][i] == pytest.approx(tp / (tp + fn), abs=1e-12)
        assert table["fpr"][i] == pytest.approx(fp / (fp + tn), abs=1e-12)
        assert table["accuracy"][i] == pytest.approx((tp + tn) / len(y), abs=1e-12)
        if tp + fp:
            assert table["precision"][i] == pytest.approx(tp / (tp + fp), abs=1e-12)
        assert table["predicted_positive"][i] == pytest.approx((tp + fp) / len(y), abs=1e-12)
    # the default table has one row per distinct score, as threshold_counts
    default = r.threshold_table()
    np.testing.assert_array_equal(default["tp"], r.counts.tp)
    np.testing.assert_array_equal(default["threshold"], r.counts.thresholds)
    cells = counts_at(r.counts, np.array([np.inf, -np.inf]))
    assert cells.tp.tolist() == [0, y.sum()] and cells.fp.tolist() == [0, (~y).sum()]


# ── 9. best thresholds by brute force ─────────────────────────────────────────────


def _candidates(y, s):
    """Every threshold (+inf, then each distinct score) with its exact (TP, FP)."""
    s = s.astype(np.float64)
    out = [(np.inf, 0, 0)]
    for t in np.unique(s)[::-1]:
        out.append((float(t), int((y & (s >= t)).sum()), int((~y & (s >= t)).sum())))
    return out


def _first_best(values, best):
    target = best(values)
    hits = [i for i, v in enumerate(values) if v == target]
    return hits[0], len(hits)


@given(scored(), st.integers(1, 20), st.integers(1, 20))
def test_min_expected_cost_threshold_by_brute_force(data, c_fp, c_fn):
    y, s, _ = data
    cand = _candidates(y, s)
    P, N = int(y.sum()), int((~y).sum())
    # deployment prevalence = the data's: expected cost = (c_fp FP + c_fn FN) / n
    costs = [c_fp * fp + c_fn * (P - tp) for _, tp, fp in cand]
    i, ties = _first_best(costs, min)
    r = analyse_scores(ScoreCounts.from_arrays(y, s), costs=Costs(fp=float(c_fp), fn=float(c_fn)))
    got = r.best["min_expected_cost"]
    assert got.threshold == cand[i][0]
    assert got.ties == ties
    assert got.value == pytest.approx(costs[i] / (P + N), abs=1e-12)
    # the iso-performance optimum on the hull has the same least cost
    assert r.optimal.value == pytest.approx(costs[i] / (P + N), abs=1e-12)
    assert r.slope == pytest.approx((c_fp * N) / (c_fn * P), rel=1e-12)


@given(scored())
def test_youden_and_closest_to_corner_by_brute_force(data):
    y, s, _ = data
    cand = _candidates(y, s)
    P, N = int(y.sum()), int((~y).sum())
    j = [Fraction(tp, P) - Fraction(fp, N) for _, tp, fp in cand]
    d2 = [Fraction(fp, N) ** 2 + Fraction(P - tp, P) ** 2 for _, tp, fp in cand]
    r = analyse_scores(ScoreCounts.from_arrays(y, s))
    i, ties = _first_best(j, max)
    assert r.best["youden"].threshold == cand[i][0] and r.best["youden"].ties == ties
    assert r.best["youden"].value == pytest.approx(float(j[i]), abs=1e-12)
    k, ties = _first_best(d2, min)
    assert r.best["closest_to_corner"].threshold == cand[k][0] and r.best["closest_to_corner"].ties == ties
    assert r.best["closest_to_corner"].value == pytest.approx(math.sqrt(d2[k]), abs=1e-12)


# ── 10. several classes ───────────────────────────────────────────────────────────


@settings(max_examples=60)
@given(multiclass())
def test_one_vs_rest_and_hand_till_match_sklearn(data):
    matrix, codes = data
    k = matrix.shape[1]
    aucs, support = one_vs_rest_aucs(matrix, codes)
    for j in range(k):
        assert aucs[j] == pytest.approx(skm.roc_auc_score(codes == j, matrix[:, j]), abs=1e-12)
        assert aucs[j] == pytest.approx(mann_whitney(codes == j, matrix[:, j]), abs=1e-12)
    np.testing.assert_array_equal(support, np.bincount(codes, minlength=k))
    assert hand_till(matrix, codes) == pytest.approx(
        skm.roc_auc_score(codes, matrix, multi_class="ovo", average="macro"), abs=1e-12)


@settings(max_examples=25)
@given(multiclass(max_n=40))
def test_multiclass_analysis_per_class_delong(data):
    matrix, codes = data
    k = matrix.shape[1]
    labels = tuple(f"c{j}" for j in range(k))
    r = analyse_multiclass_scores(matrix, codes, labels, bootstrap=BootstrapSettings(200, 1))
    aucs, _ = one_vs_rest_aucs(matrix, codes)
    for j, label in enumerate(labels):
        e = r.per_class[label]
        assert e.value == pytest.approx(aucs[j], abs=1e-12)
        positive = codes == j
        if positive.sum() >= 2 and (~positive).sum() >= 2:
            area, se, _, _ = delong_direct(positive, matrix[:, j])
            assert e.ci is not None and e.ci.contains(e.value)
            z = norm.ppf(0.975)
            assert e.ci.low == pytest.approx(max(0.0, area - z * se), abs=1e-12)
            assert e.ci.high == pytest.approx(min(1.0, area + z * se), abs=1e-12)
        else:
            assert e.ci is None and e.note
    assert r.macro.value == pytest.approx(aucs.mean(), abs=1e-12)
    assert r.hand_till.value == pytest.approx(skm.roc_auc_score(codes, matrix, multi_class="ovo"), abs=1e-12)
