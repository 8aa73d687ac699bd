"""Losses of probabilistic predictions, their intervals, the prior classifier and calibration.

Oracles, with their sources:

* seed 002, slides 40-46: the quadratic, absolute and information losses and the
  relative errors against the prior classifier ("classificatore elementare"),
  checked on small examples worked by hand and, on hypothesis-generated inputs,
  against the definitions typed as plain Python loops;
* scikit-learn 1.9: ``brier_score_loss`` (default ``scale_by_half="auto"``),
  ``log_loss`` (clips to [eps, 1 - eps]) and ``calibration_curve`` (uniform and
  quantile bins; it drops empty bins, assay keeps them);
* statsmodels: ``DescrStatsW(x).zconfint_mean`` for the normal interval of a mean
  (assay truncates it to the loss's range, so the oracle is truncated too);
* a direct numeric delta method for the relative losses: the sample covariance of
  (loss, one-hot class) and a finite-difference gradient of the ratio;
* assay's own ``proportion_ci`` (itself checked against statsmodels) for the
  Wilson interval of each calibration bin.

Tolerance: 1e-9 (relative and absolute) against every oracle, except the
finite-difference delta method, 1e-5 relative. Counts must match exactly.

Generated inputs: k = 2..5 classes with string labels, 1..30 rows of class
probabilities made from whole-number weights (exact zeros, exact ones, ties) or
random floats, each row normalised to sum to 1.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from sklearn.calibration import calibration_curve
from sklearn.metrics import brier_score_loss
from sklearn.metrics import log_loss as sk_log_loss
from statsmodels.stats.weightstats import DescrStatsW

from assay.errors import InvalidInput
from assay.evaluation.probabilistic import (
    analyse_probabilities,
    analyse_summary,
    delta_ratio_interval,
    normal_mean_interval,
)
from assay.inference.proportion import proportion_ci
from assay.metrics.probabilistic import (
    absolute_loss,
    absolute_loss_per_instance,
    brier_score,
    brier_score_per_instance,
    class_frequencies,
    information_loss_bits,
    information_loss_bits_per_instance,
    log_loss,
    log_loss_per_instance,
    quadratic_loss,
    quadratic_loss_per_instance,
    relative_loss,
)
from assay.summaries.probabilities import LossMoments, ProbabilitySummary

TOL = 1e-9
EPS = float(np.finfo(np.float64).eps)
NAMES = ("ant", "bee", "cat", "dog", "eel")
MEANS = ("quadratic_loss", "absolute_loss", "information_loss_bits", "brier", "log_loss")
RELATIVES = ("relative_quadratic_loss", "relative_absolute_loss", "relative_information_loss")


def close(a: float, b: float, tol: float = TOL) -> bool:
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


# ----------------------------------------------------------------------------
# generated inputs


WEIGHTS = st.one_of(st.integers(0, 4).map(float), st.floats(0.0, 1.0, allow_subnormal=False))


@st.composite
def predictions(draw, min_n: int = 1, max_n: int = 30, k: int | None = None):
    """(proba (n, k), true codes (n,), labels): string labels in sorted order.

    Rows are whole-number weights (zeros, ties, one-hots) or floats, normalised.
    """
    k = k if k is not None else draw(st.integers(2, 5))
    n = draw(st.integers(min_n, max_n))
    w = np.array(draw(st.lists(WEIGHTS, min_size=n * k, max_size=n * k)), dtype=np.float64).reshape(n, k)
    empty = w.sum(axis=1) == 0.0
    w[empty, draw(st.integers(0, k - 1))] = 1.0
    proba = w / w.sum(axis=1, keepdims=True)
    codes = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)), dtype=np.intp)
    return proba, codes, NAMES[:k]


def onehot(codes: np.ndarray, k: int) -> np.ndarray:
    return np.eye(k)[codes]


# ----------------------------------------------------------------------------
# definitions by hand (seed 002, slides 42-46)


def hand_losses(proba: np.ndarray, codes: np.ndarray) -> dict[str, list[float]]:
    quadratic, absolute, information = [], [], []
    for p, c in zip(proba.tolist(), codes.tolist(), strict=True):
        a = [1.0 if j == c else 0.0 for j in range(len(p))]
        quadratic.append(sum((pj - aj) ** 2 for pj, aj in zip(p, a, strict=True)))
        absolute.append(sum(abs(pj - aj) for pj, aj in zip(p, a, strict=True)))
        information.append(math.inf if p[c] == 0.0 else -math.log2(p[c]))
    return {"quadratic": quadratic, "absolute": absolute, "information": information}


def test_worked_example_seed_002():
    """p = (0.7, 0.2, 0.1) for an instance of class 0 (seed 002's definitions)."""
    p, c = [[0.7, 0.2, 0.1]], [0]
    assert close(quadratic_loss_per_instance(c, p)[0], 0.3**2 + 0.2**2 + 0.1**2)
    assert close(quadratic_loss(c, p), 0.14)
    assert close(absolute_loss(c, p), 0.6)
    assert close(information_loss_bits(c, p), -math.log2(0.7))
    assert close(brier_score(c, p), 0.14)  # three classes: the quadratic loss itself
    assert close(log_loss(c, p), -math.log(0.7))


def test_worked_relative_losses_by_hand():
    """Four instances, three 'no' and one 'yes'; the prior classifier predicts (3/4, 1/4).

    Model P(yes) = 0.1, 0.2, 0.4, 0.6. Quadratic losses 2 (p_yes - y)²: 0.02, 0.08,
    0.32, 0.32, mean 0.185; the prior's: 2 * 0.25² = 0.125 for 'no', 2 * 0.75² =
    1.125 for 'yes', mean 0.375. Absolute 2 |p_yes - y|: mean 0.55; the prior's
    0.5 and 1.5, mean 0.75. Information: the prior's -log2 0.75 and 2 bits.
    """
    p_yes = np.array([0.1, 0.2, 0.4, 0.6])
    proba = np.column_stack([1.0 - p_yes, p_yes])
    codes = np.array([0, 0, 0, 1])
    r = analyse_probabilities(proba, codes, ("no", "yes"))
    assert close(r.quadratic_loss.value, 0.185)
    assert close(r.absolute_loss.value, 0.55)
    assert close(r.brier.value, 0.185 / 2)
    assert close(r.relative_quadratic_loss.value, 0.185 / 0.375)
    assert close(r.relative_absolute_loss.value, 0.55 / 0.75)
    model_bits = -(math.log2(0.9) + math.log2(0.8) + 2 * math.log2(0.6)) / 4
    prior_bits = (3 * -math.log2(0.75) + 2.0) / 4
    assert close(r.information_loss_bits.value, model_bits)
    assert close(r.relative_information_loss.value, model_bits / prior_bits)
    assert r.prior.to_dict() == {"source": "test data", "probabilities": {"no": 0.75, "yes": 0.25}}
    assert r.calibration.target == "positive class 'yes'"


def test_given_uniform_prior_by_hand():
    """A uniform prior over k classes loses 1 - 1/k (quadratic) and log2 k bits on every instance."""
    proba = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]])
    codes = np.array([0, 1, 0])
    r = analyse_probabilities(proba, codes, ("a", "b", "c"), prior={"a": 1 / 3, "c": 1 / 3, "b": 1 / 3})
    q = quadratic_loss(codes, proba)
    assert close(r.relative_quadratic_loss.value, q / (1 - 1 / 3))
    assert close(r.relative_absolute_loss.value, absolute_loss(codes, proba) / (2 * (1 - 1 / 3)))
    assert close(r.relative_information_loss.value, information_loss_bits(codes, proba) / math.log2(3))
    assert r.prior.source == "given"
    assert list(r.to_dict()["prior"]["probabilities"]) == ["a", "b", "c"]
    # a constant prior loss: the ratio's interval is the mean's interval divided by it
    rel, mean = r.relative_quadratic_loss.ci, r.quadratic_loss.ci
    assert close(rel.low, mean.low / (2 / 3)) and close(rel.high, mean.high / (2 / 3))


# ----------------------------------------------------------------------------
# scikit-learn and the definitions


@given(predictions())
def test_losses_match_definitions_and_scikit_learn(data):
    proba, codes, labels = data
    k = len(labels)
    hand = hand_losses(proba, codes)
    assert np.allclose(quadratic_loss_per_instance(codes, proba), hand["quadratic"], rtol=TOL, atol=TOL)
    assert np.allclose(absolute_loss_per_instance(codes, proba), hand["absolute"], rtol=TOL, atol=TOL)
    # allclose counts inf == inf as equal
    assert np.allclose(information_loss_bits_per_instance(codes, proba), hand["information"], rtol=TOL, atol=TOL)
    assert close(quadratic_loss(codes, proba), float(np.mean(hand["quadratic"])))
    assert close(absolute_loss(codes, proba), float(np.mean(hand["absolute"])))
    info = information_loss_bits(codes, proba)
    if math.inf in hand["information"]:
        assert info == math.inf
    else:
        assert close(info, float(np.mean(hand["information"])))

    sk_brier = brier_score_loss(codes, proba, labels=list(range(k)))
    assert close(brier_score(codes, proba), sk_brier)
    assert close(float(brier_score_per_instance(codes, proba).mean()), sk_brier)
    if k == 2:
        # the binary definition: mean (p_pos - y)², half the quadratic loss, from either class
        assert close(sk_brier, brier_score_loss(codes == 1, proba[:, 1], pos_label=True))
        assert close(sk_brier, quadratic_loss(codes, proba) / 2)
    else:
        assert close(sk_brier, quadratic_loss(codes, proba))
    sk_log = sk_log_loss(codes, proba, labels=list(range(k)))
    assert close(log_loss(codes, proba), sk_log)
    assert close(float(log_loss_per_instance(codes, proba).mean()), sk_log)


@given(predictions())
def test_loss_ranges(data):
    proba, codes, _ = data
    for per_instance in (quadratic_loss_per_instance, absolute_loss_per_instance):
        x = per_instance(codes, proba)
        assert np.all(x >= 0.0) and np.all(x <= 2.0 + 1e-12)
    assert np.all(information_loss_bits_per_instance(codes, proba) >= 0.0)
    assert np.all(log_loss_per_instance(codes, proba) <= -math.log(EPS) + 1e-12)


def test_log_loss_at_zero_is_scikit_learns_clipped_value():
    proba, codes = np.array([[0.0, 1.0], [0.5, 0.5]]), np.array([0, 0])
    assert close(log_loss(codes, proba), sk_log_loss(codes, proba, labels=[0, 1]))
    assert close(log_loss_per_instance(codes, proba)[0], -math.log(EPS))
    r = analyse_probabilities(proba, codes, ("a", "b"))
    assert close(r.log_loss.value, sk_log_loss(codes, proba, labels=[0, 1]))
    assert "scikit-learn" in r.log_loss.note and "1 instance(s)" in r.log_loss.note
    assert r.information_loss_bits.value is None  # the honest loss stays infinite


@given(predictions(), st.sampled_from([None, 1e-15, 0.01]))
def test_analysis_agrees_with_the_plain_functions(data, clip):
    proba, codes, labels = data
    r = analyse_probabilities(proba, codes, labels, clip=clip)
    assert r.n == len(codes)
    assert close(r.quadratic_loss.value, quadratic_loss(codes, proba))
    assert close(r.absolute_loss.value, absolute_loss(codes, proba))
    assert close(r.brier.value, brier_score(codes, proba))
    assert close(r.log_loss.value, log_loss(codes, proba))
    info = information_loss_bits(codes, proba, clip=clip)
    if math.isinf(info):
        assert r.information_loss_bits.value is None
    else:
        assert close(r.information_loss_bits.value, info)
    pc = proba[np.arange(len(codes)), codes]
    assert r.infinite_information_loss == int(np.sum(pc == 0.0))


# ----------------------------------------------------------------------------
# infinity and clipping: never hidden


@given(predictions(min_n=2))
def test_infinite_information_loss_is_reported_with_its_count(data):
    proba, codes, labels = data
    proba = proba.copy()
    proba[0] = onehot(np.array([(codes[0] + 1) % len(labels)]), len(labels))[0]  # p_c = 0 on row 0
    zeros = int(np.sum(proba[np.arange(len(codes)), codes] == 0.0))
    r = analyse_probabilities(proba, codes, labels)
    d = r.to_dict()
    assert d["information_loss_bits"]["value"] is None and d["information_loss_bits"]["ci"] is None
    assert d["information_loss_bits"]["note"] == f"infinite: {zeros} instance(s) got probability 0 for their true class"
    assert d["infinite_information_loss"] == zeros
    assert d["relative_information_loss"]["value"] is None
    assert "infinite" in d["relative_information_loss"]["note"]
    assert d["clip"] is None
    json.dumps(d, allow_nan=False)


def test_clip_clips_and_says_so():
    proba, codes = np.array([[0.0, 1.0], [0.5, 0.5], [0.9, 0.1]]), np.array([0, 0, 0])
    r = analyse_probabilities(proba, codes, ("a", "b"), clip=1e-15)
    expected = (-math.log2(1e-15) + 1.0 - math.log2(0.9)) / 3
    assert close(r.information_loss_bits.value, expected)
    note = "clipped: the probability of the true class was raised to 1e-15 in 1 instance(s)"
    assert r.information_loss_bits.note == note
    assert r.to_dict()["clip"] == 1e-15
    assert r.infinite_information_loss == 1  # the zero is still counted
    assert r.information_loss_bits.method == "normal-mean"
    # the clip is part of the loss function: the prior classifier is judged with it too
    assert r.relative_information_loss.value is None and "loss is 0" in r.relative_information_loss.note


# ----------------------------------------------------------------------------
# the prior classifier


@given(predictions(min_n=2))
def test_the_prior_classifier_has_relative_losses_of_one(data):
    _, codes, labels = data
    k = len(labels)
    assume(len(np.unique(codes)) >= 2)  # else the prior's losses are 0 and the ratios undefined
    freq = np.bincount(codes, minlength=k) / len(codes)
    r = analyse_probabilities(np.tile(freq, (len(codes), 1)), codes, labels)
    for name in RELATIVES:
        assert close(getattr(r, name).value, 1.0), name
    # and against a given prior, the model that predicts that prior
    q = np.arange(1, k + 1, dtype=np.float64)
    q /= q.sum()
    r = analyse_probabilities(np.tile(q, (len(codes), 1)), codes, labels, prior=q)
    for name in RELATIVES:
        assert close(getattr(r, name).value, 1.0), name
        assert close(getattr(r, name).ci.low, 1.0) and close(getattr(r, name).ci.high, 1.0)


def test_relative_losses_undefined_when_the_prior_is_certain_or_infinite():
    proba, codes = np.array([[0.7, 0.3], [0.6, 0.4]]), np.array([0, 0])
    r = analyse_probabilities(proba, codes, ("a", "b"))
    for name in RELATIVES:
        e = getattr(r, name)
        assert e.value is None and "loss is 0" in e.note
    r = analyse_probabilities(np.array([[0.7, 0.3], [0.6, 0.4]]), np.array([0, 1]), ("a", "b"), prior=[1.0, 0.0])
    e = r.relative_information_loss
    assert e.value is None and "infinite" in e.note and "'b'" in e.note
    assert r.relative_quadratic_loss.value is not None


# ----------------------------------------------------------------------------
# intervals


def _estimates(r):
    return [getattr(r, name) for name in MEANS + RELATIVES]


@given(predictions(min_n=2), st.sampled_from([None, 1e-15]))
def test_intervals_contain_the_estimate_and_widen_with_confidence(data, clip):
    proba, codes, labels = data
    lo = analyse_probabilities(proba, codes, labels, clip=clip, confidence=0.80)
    hi = analyse_probabilities(proba, codes, labels, clip=clip, confidence=0.99)
    for a, b in zip(_estimates(lo), _estimates(hi), strict=True):
        assert a.value == b.value or (a.value is not None and close(a.value, b.value))
        if a.ci is None:
            assert b.ci is None
            continue
        assert a.ci.low <= a.value <= a.ci.high
        assert b.ci.low <= a.ci.low and a.ci.high <= b.ci.high
        assert a.method in ("normal-mean", "delta-ratio")


def test_one_instance_has_no_interval():
    r = analyse_probabilities(np.array([[0.7, 0.3]]), np.array([0]), ("a", "b"))
    assert r.quadratic_loss.value is not None and r.quadratic_loss.ci is None
    assert r.quadratic_loss.note == "one instance: no interval"


@given(predictions(min_n=2), st.sampled_from([0.8, 0.95, 0.99]))
def test_normal_interval_matches_statsmodels(data, confidence):
    proba, codes, labels = data
    r = analyse_probabilities(proba, codes, labels, confidence=confidence)
    k = len(labels)
    cases = {
        "quadratic_loss": (quadratic_loss_per_instance(codes, proba), 2.0),
        "absolute_loss": (absolute_loss_per_instance(codes, proba), 2.0),
        "information_loss_bits": (information_loss_bits_per_instance(codes, proba), math.inf),
        "brier": (brier_score_per_instance(codes, proba), 1.0 if k == 2 else 2.0),
        "log_loss": (log_loss_per_instance(codes, proba), math.inf),
    }
    for name, (x, top) in cases.items():
        e = getattr(r, name)
        if not np.all(np.isfinite(x)):
            assert e.value is None
            continue
        low, high = DescrStatsW(x).zconfint_mean(alpha=1 - confidence)
        assert e.method == "normal-mean"
        assert close(e.ci.low, max(low, 0.0)), name
        assert close(e.ci.high, min(high, top)), name


def _numeric_delta_se(x: np.ndarray, codes: np.ndarray, k: int, prior_loss, q_fixed) -> tuple[float, float]:
    """Ratio mean(x) / D and its delta-method se, from a finite-difference gradient.

    Z_i = (x_i, one-hot of c_i restricted to the classes present); D is a function
    of the class frequencies pi: Σ_c pi_c L(q, c) with q = pi (test-data prior) or
    q = q_fixed (given prior). se² = ∇fᵀ S ∇f / n, S the sample covariance of Z.
    """
    present = np.flatnonzero(np.bincount(codes, minlength=k))
    z = np.column_stack([x, onehot(codes, k)[:, present]])
    mean = z.mean(axis=0)
    cov = np.atleast_2d(np.cov(z, rowvar=False, ddof=1))

    def ratio(v: np.ndarray) -> float:
        pi = np.zeros(k)
        pi[present] = v[1:]
        q = pi if q_fixed is None else q_fixed
        return v[0] / sum(pi[c] * prior_loss(q, c) for c in present)

    grad = np.empty(len(mean))
    for j in range(len(mean)):
        h = 1e-6 * max(1.0, abs(mean[j]))
        up, down = mean.copy(), mean.copy()
        up[j] += h
        down[j] -= h
        grad[j] = (ratio(up) - ratio(down)) / (2 * h)
    return ratio(mean), math.sqrt(max(grad @ cov @ grad, 0.0) / len(x))


PRIOR_LOSSES = {  # the prior classifier's loss on class c, typed from seed 002's definitions
    "quadratic": lambda q, c: sum((q[j] - (j == c)) ** 2 for j in range(len(q))),
    "absolute": lambda q, c: sum(abs(q[j] - (j == c)) for j in range(len(q))),
    "information": lambda q, c: -math.log2(q[c]),
}


@given(predictions(min_n=3), st.booleans())
def test_delta_ratio_interval_matches_a_direct_numeric_computation(data, given_prior):
    proba, codes, labels = data
    k = len(labels)
    assume(len(np.unique(codes)) >= 2)
    q_fixed = (np.arange(1, k + 1) / (k * (k + 1) / 2)) if given_prior else None
    r = analyse_probabilities(proba, codes, labels, prior=q_fixed, confidence=0.9)
    per_instance = {
        "quadratic": quadratic_loss_per_instance(codes, proba),
        "absolute": absolute_loss_per_instance(codes, proba),
        "information": information_loss_bits_per_instance(codes, proba),
    }
    z = 1.6448536269514722  # the 95th percentile of the standard normal
    for loss, x in per_instance.items():
        e = getattr(r, f"relative_{loss}_loss")
        if not np.all(np.isfinite(x)):
            assert e.value is None
            continue
        value, se = _numeric_delta_se(x, codes, k, PRIOR_LOSSES[loss], q_fixed)
        assert math.isclose(e.value, value, rel_tol=1e-9), loss
        assert e.method == "delta-ratio"
        assert math.isclose(e.ci.high, value + z * se, rel_tol=1e-5, abs_tol=1e-9), loss
        assert math.isclose(e.ci.low, max(value - z * se, 0.0), rel_tol=1e-5, abs_tol=1e-9), loss


def test_delta_ratio_for_a_given_prior_is_the_ratio_of_two_correlated_means():
    """Given prior: se² = Var(x - R y) / (n ȳ²) with y_i the prior's loss on instance i."""
    rng = np.random.default_rng(7)
    codes = rng.integers(0, 3, size=40)
    proba = rng.dirichlet([1.0, 2.0, 3.0], size=40)
    q = np.array([0.2, 0.3, 0.5])
    s = ProbabilitySummary.from_codes(codes, proba, labels=("a", "b", "c"))
    x = quadratic_loss_per_instance(codes, proba)
    y = quadratic_loss_per_instance(codes, np.tile(q, (40, 1)))
    ratio = x.mean() / y.mean()
    se = math.sqrt(np.var(x - ratio * y, ddof=1) / 40) / y.mean()
    r = relative_loss(s, "quadratic", q, prior_from_data=False)
    assert close(r.value, ratio) and close(r.se, se)


def test_interval_helpers():
    assert normal_mean_interval(1.0, 0.5, 1, confidence=0.95) is None
    assert delta_ratio_interval(1.0, math.nan, confidence=0.95) is None
    ci = delta_ratio_interval(1.0, 0.1, confidence=0.95)
    assert close(ci.high - 1.0, 1.959963984540054 * 0.1)


# ----------------------------------------------------------------------------
# the summary's algebra


def assert_summaries_close(a: ProbabilitySummary, b: ProbabilitySummary) -> None:
    assert a._settings() == b._settings()
    for name in ("quadratic", "absolute", "information", "log_loss"):
        ma, mb = getattr(a, name), getattr(b, name)
        assert np.array_equal(ma.count, mb.count), name
        assert np.allclose(ma.total, mb.total, rtol=TOL, atol=TOL), name
        assert np.allclose(ma.m2, mb.m2, rtol=1e-7, atol=1e-9), name
    assert (a.zero_probability, a.clipped, a.log_loss_clipped) == (b.zero_probability, b.clipped, b.log_loss_clipped)
    assert np.array_equal(a.bin_count, b.bin_count) and np.array_equal(a.bin_observed, b.bin_observed)
    assert np.allclose(a.bin_predicted, b.bin_predicted, rtol=TOL, atol=TOL)


def summarise(proba, codes, labels, **options) -> ProbabilitySummary:
    return ProbabilitySummary.from_codes(codes, proba, labels=labels, **options)


OPTIONS = st.fixed_dictionaries({
    "clip": st.sampled_from([None, 1e-15]),
    "bins": st.integers(1, 12),
    "calibration_class": st.sampled_from([None, 0, 1]),
})


@given(predictions(max_n=40), OPTIONS, st.data())
def test_summary_of_a_concatenation_is_the_merge_of_the_summaries(data, options, draw):
    proba, codes, labels = data
    cut = draw.draw(st.integers(0, len(codes)))
    whole = summarise(proba, codes, labels, **options)
    a = summarise(proba[:cut], codes[:cut], labels, **options)
    b = summarise(proba[cut:], codes[cut:], labels, **options)
    assert_summaries_close(whole, a.merge(b))
    assert a.merge(b) == b.merge(a)  # commutative, exactly
    empty = ProbabilitySummary.empty(labels, **options)
    assert a.merge(empty) == a and empty.merge(a) == a  # the identity, exactly


@given(predictions(max_n=40), OPTIONS, st.data())
def test_chunked_equals_one_shot_and_merge_is_associative(data, options, draw):
    proba, codes, labels = data
    n = len(codes)
    cuts = sorted(draw.draw(st.lists(st.integers(0, n), max_size=4)))
    bounds = [0, *cuts, n]
    parts = [summarise(proba[i:j], codes[i:j], labels, **options) for i, j in zip(bounds, bounds[1:])]
    merged = ProbabilitySummary.empty(labels, **options)
    for part in parts:
        merged = merged.merge(part)
    whole = summarise(proba, codes, labels, **options)
    assert_summaries_close(whole, merged)
    if len(parts) >= 3:
        assert_summaries_close(parts[0].merge(parts[1]).merge(parts[2]), parts[0].merge(parts[1].merge(parts[2])))
    # the analysis of the merged summary is the one-shot analysis
    one, many = analyse_summary(whole).to_dict(), analyse_summary(merged).to_dict()
    for name in MEANS + RELATIVES:
        a, b = one[name]["value"], many[name]["value"]
        assert (a is None and b is None) or close(a, b, 1e-7), name
    assert one["prior"] == many["prior"] or all(
        close(x, y) for x, y in zip(one["prior"]["probabilities"].values(), many["prior"]["probabilities"].values())
    )


def test_merge_refuses_other_settings():
    proba, codes = np.array([[0.7, 0.3]]), np.array([0])
    s = summarise(proba, codes, ("a", "b"))
    for other in (summarise(proba, codes, ("b", "a")), summarise(proba, codes, ("a", "b"), clip=1e-15),
                  summarise(proba, codes, ("a", "b"), bins=5),
                  summarise(proba, codes, ("a", "b"), calibration_class=1)):
        with pytest.raises(ValueError, match="cannot merge"):
            s.merge(other)


def test_moments_stay_accurate_for_a_constant_predictor():
    """Raw Σx² - (Σx)²/n would lose every digit here; the centred sums keep the variance 0."""
    proba = np.tile([0.1 + 1e-9, 0.9 - 1e-9], (100_000, 1))
    codes = np.zeros(100_000, dtype=np.intp)
    m = LossMoments.from_values(codes, quadratic_loss_per_instance(codes, proba), k=2)
    assert m.centred_sum_of_squares < 1e-15  # raw sums: about 1e-10 here
    r = analyse_probabilities(proba, codes, ("a", "b"))
    assert r.quadratic_loss.ci.high - r.quadratic_loss.ci.low < 1e-12


# ----------------------------------------------------------------------------
# calibration


def _filled(table):
    return [b for b in table.bins if b.count > 0]


@given(predictions(k=2), st.integers(1, 12), st.sampled_from(["uniform", "quantile"]))
def test_binary_calibration_matches_scikit_learn(data, bins, strategy):
    proba, codes, labels = data
    r = analyse_probabilities(proba, codes, labels, bins=bins, strategy=strategy)
    table = r.calibration
    assert table.target == f"positive class {labels[1]!r}" and table.strategy == strategy
    assert len(table.bins) == bins and sum(b.count for b in table.bins) == len(codes)
    prob_true, prob_pred = calibration_curve(codes, proba[:, 1], n_bins=bins, strategy=strategy, pos_label=1)
    filled = _filled(table)
    assert len(filled) == len(prob_true)
    assert np.allclose([b.observed for b in filled], prob_true, rtol=TOL, atol=TOL)
    assert np.allclose([b.mean_predicted for b in filled], prob_pred, rtol=TOL, atol=TOL)
    _check_table(table, len(codes), 0.95)


@given(predictions(), st.integers(1, 12), st.sampled_from(["uniform", "quantile"]))
def test_top_label_calibration_matches_scikit_learn(data, bins, strategy):
    proba, codes, labels = data
    assume(len(labels) > 2)
    r = analyse_probabilities(proba, codes, labels, bins=bins, strategy=strategy, confidence=0.9)
    assert r.calibration.target == "top label"
    confidence = proba.max(axis=1)
    correct = (np.argmax(proba, axis=1) == codes).astype(int)
    prob_true, prob_pred = calibration_curve(correct, confidence, n_bins=bins, strategy=strategy, pos_label=1)
    filled = _filled(r.calibration)
    assert np.allclose([b.observed for b in filled], prob_true, rtol=TOL, atol=TOL)
    assert np.allclose([b.mean_predicted for b in filled], prob_pred, rtol=TOL, atol=TOL)
    _check_table(r.calibration, len(codes), 0.9)


def _check_table(table, n: int, confidence: float) -> None:
    """ECE and MCE by hand; Wilson intervals from proportion_ci; empty bins kept with nulls."""
    gaps = [(b.count, abs(b.observed - b.mean_predicted)) for b in table.bins if b.count]
    assert close(table.ece, sum(c * g for c, g in gaps) / n)
    assert close(table.mce, max(g for _, g in gaps))
    for b in table.bins:
        if b.count == 0:
            assert b.to_dict() == {"low": b.low, "high": b.high, "count": 0, "mean_predicted": None,
                                   "observed": None, "ci": None}
            continue
        expected = proportion_ci(round(b.observed * b.count), b.count, confidence=confidence).ci
        assert close(b.ci.low, expected.low) and close(b.ci.high, expected.high)
        assert b.ci.low <= b.observed <= b.ci.high


def test_uniform_bins_are_closed_on_the_right_like_scikit_learn():
    proba = np.array([[1.0, 0.0], [0.5, 0.5], [0.49, 0.51], [0.0, 1.0]])
    codes = np.array([0, 1, 1, 1])
    table = analyse_probabilities(proba, codes, ("a", "b"), bins=2).calibration
    assert [b.count for b in table.bins] == [2, 2]  # 0.5 in [0, 0.5]; 1.0 in (0.5, 1]
    assert [(b.low, b.high) for b in table.bins] == [(0.0, 0.5), (0.5, 1.0)]


def test_top_label_ties_go_to_the_first_label():
    proba = np.array([[0.4, 0.4, 0.2]])
    table = analyse_probabilities(proba, np.array([1]), ("a", "b", "c"), bins=5).calibration
    (b,) = _filled(table)
    assert b.mean_predicted == 0.4 and b.observed == 0.0


def test_positive_chooses_the_calibration_class():
    proba = np.array([[0.6, 0.3, 0.1], [0.2, 0.2, 0.6]])
    r = analyse_probabilities(proba, np.array([0, 2]), ("a", "b", "c"), positive="c", bins=2)
    assert r.calibration.target == "positive class 'c'"
    assert [b.count for b in r.calibration.bins] == [1, 1]
    r = analyse_probabilities(proba[:, :2] / proba[:, :2].sum(axis=1, keepdims=True), np.array([0, 1]),
                              ("a", "b"), positive="a")
    assert r.calibration.target == "positive class 'a'"


# ----------------------------------------------------------------------------
# the JSON section and bad input


def test_to_dict_has_exactly_the_contract_keys():
    proba = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4], [0.0, 0.5, 0.5]])
    d = analyse_probabilities(proba, np.array([0, 1, 2, 0]), ("x", "y", "z")).to_dict()
    assert list(d) == [*MEANS, *RELATIVES, "prior", "infinite_information_loss", "clip", "calibration"]
    for name in MEANS + RELATIVES:
        assert list(d[name]) == ["value", "ci", "method", "note"]
    assert d["prior"] == {"source": "test data", "probabilities": {"x": 0.5, "y": 0.25, "z": 0.25}}
    assert list(d["calibration"]) == ["target", "bins", "ece", "mce", "strategy"]
    assert d["calibration"]["strategy"] == "uniform" and len(d["calibration"]["bins"]) == 10
    assert list(d["calibration"]["bins"][0]) == ["low", "high", "count", "mean_predicted", "observed", "ci"]
    assert d["infinite_information_loss"] == 1 and d["clip"] is None
    json.dumps(d, allow_nan=False)


def test_rows_must_sum_to_one():
    proba = np.array([[0.5, 0.5], [0.6, 0.5], [0.2, 0.2]])
    with pytest.raises(InvalidInput) as e:
        analyse_probabilities(proba, np.array([0, 1, 0]), ("a", "b"))
    assert str(e.value) == "y_proba[1]: row sums to 1.1, not 1 (tolerance 1e-6)"
    assert e.value.field == "y_proba" and e.value.row == 1
    nearly = np.array([[0.5, 0.5 + 9e-7], [0.3, 0.7]])
    assert analyse_probabilities(nearly, np.array([0, 1]), ("a", "b")).n == 2


@pytest.mark.parametrize(
    ("prior", "message"),
    [
        ({"a": 0.5}, "prior: no probability for class 'b'"),
        ({"a": 0.5, "b": 0.6}, "prior: sums to 1.1, not 1 (tolerance 1e-6)"),
        ([0.5, 0.25, 0.25], "prior: has 3 probabilities for 2 classes ['a', 'b']"),
        ([1.5, -0.5], "prior: 1.5 for class 'a' is not a probability in [0, 1]"),
        ({"a": 0.5, "c": 0.5}, "prior: 'c' is not one of the classes ['a', 'b']"),
        (["x", "y"], "prior: 'x' for class 'a' is not a number"),
    ],
)
def test_prior_is_validated(prior, message):
    with pytest.raises(InvalidInput) as e:
        analyse_probabilities(np.array([[0.5, 0.5]]), np.array([0]), ("a", "b"), prior=prior)
    assert str(e.value) == message


@pytest.mark.parametrize(
    ("options", "field"),
    [({"clip": 0.0}, "clip"), ({"clip": 1.5}, "clip"), ({"clip": "tiny"}, "clip"), ({"bins": 0}, "bins"),
     ({"bins": 2.5}, "bins"), ({"strategy": "kmeans"}, "strategy"), ({"confidence": 1.0}, "confidence"),
     ({"positive": "c"}, "positive")],
)
def test_options_are_validated(options, field):
    with pytest.raises(InvalidInput) as e:
        analyse_probabilities(np.array([[0.5, 0.5]]), np.array([0]), ("a", "b"), **options)
    assert e.value.field == field


def test_shapes_are_validated():
    with pytest.raises(InvalidInput, match="y_proba"):
        analyse_probabilities(np.array([[0.5, 0.5]]), np.array([0]), ("a", "b", "c"))
    with pytest.raises(InvalidInput, match="y_true"):
        analyse_probabilities(np.array([[0.5, 0.5]]), np.array([0, 1]), ("a", "b"))
    with pytest.raises(InvalidInput, match="no instances"):
        analyse_probabilities(np.zeros((0, 2)), np.zeros(0, dtype=int), ("a", "b"))
    with pytest.raises(InvalidInput, match="class codes"):
        quadratic_loss([2], [[0.5, 0.5]])


def test_an_empty_summary_is_undefined_not_zero():
    r = analyse_summary(ProbabilitySummary.empty(("a", "b")))
    assert all(e.value is None and e.note == "no instances" for e in _estimates(r))
    d = r.to_dict()
    assert d["calibration"]["ece"] is None and d["prior"]["probabilities"] == {"a": None, "b": None}
    assert class_frequencies(ProbabilitySummary.empty(("a", "b"))).shape == (2,)
