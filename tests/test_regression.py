"""Numeric-prediction errors against independent references; their summary's merge laws; the bootstrap.

Oracles
-------
* scikit-learn 1.9 (``sklearn.metrics``): ``mean_squared_error``,
  ``root_mean_squared_error``, ``mean_absolute_error`` and ``r2_score`` (with
  ``force_finite=False``, so that a constant truth is undefined there too, not 0 or 1).
* numpy's ``np.corrcoef`` and SciPy's ``scipy.stats.pearsonr`` for the correlation.
* Direct numpy formulas of seed 002 (slides 48-51) for the rest: the mean error
  mean(p − a); RSE Σ(p−a)²/Σ(a−ā)², RRSE its root, RAE Σ|p−a|/Σ|a−ā|; the errors
  relative to the prediction mean(((p−a)/p)²), its root and mean(|p−a|/|p|).
* A worked example by hand (actual 2, 4, 6, 8; predicted 3, 4, 5, 10).

Tolerance: values agree to 1e-9, relative or absolute (``pytest.approx(rel=1e-9,
abs=1e-9)``). The drawn inputs are well conditioned (a column is constant, or its
spread is at least 1e-6 of its largest magnitude), because beyond that the references
themselves disagree with one another in the last digits they keep. Where a value is
undefined (a constant truth, constant predictions, a prediction equal to 0), assay must
give ``value is None`` with a note, never 0 or NaN.

Summary laws, to 1e-9 relative to each sum's scale for the float sums and exactly for
the counts and the distinct actual values: summary(a + b) == merge(summary(a),
summary(b)); chunked == one shot; merge is commutative (exactly) and associative;
``empty()`` is its identity.

Bootstrap: reproducible from its seed, independent of the block size, one resampling
shared by all metrics, intervals that contain their estimate in typical cases and nest
as the confidence rises, and, for the mean error with n = 500, close to the normal
interval (the tolerance is derived in that test).
"""

from __future__ import annotations

import functools
import json
import math
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy.special import ndtri
from scipy.stats import pearsonr
from sklearn.metrics import mean_absolute_error, mean_squared_error, r2_score, root_mean_squared_error

from assay import BootstrapSettings, InvalidInput
from assay.evaluation.regression import (
    METRIC_TITLES,
    RegressionEvaluation,
    bootstrap_regression,
    evaluate_regression,
)
from assay.metrics.regression import REGRESSION_METRICS
from assay.summaries.regression import RegressionSummary, regression_summary

TOL = {"rel": 1e-9, "abs": 1e-9}
RELATIVE_TO_PREDICTION = ("mse_relative_to_prediction", "rmse_relative_to_prediction", "mae_relative_to_prediction")
FAST = 200  # resamples where the intervals do not matter


def approx(x: float) -> object:
    return pytest.approx(x, **TOL)


# ----------------------------------------------------------------------------
# inputs


def well_conditioned(x: list[float]) -> bool:
    if not x:
        return True
    spread = max(x) - min(x)
    return spread == 0 or spread >= 1e-6 * max(abs(v) for v in x)


@st.composite
def column(draw, n: int, like: list[float] | None = None) -> list[float]:
    """n numbers: a decimal grid (ties, zeros, negatives), wide floats, a constant, few values, or near ``like``."""
    kinds = ["grid", "floats", "constant", "few"] + (["near"] if like is not None else [])
    kind = draw(st.sampled_from(kinds))
    scale = draw(st.sampled_from([1e-3, 1.0, 1e6]))
    grid = st.integers(-100_000, 100_000).map(lambda i: i / 100 * scale)
    if kind == "grid":
        return draw(st.lists(grid, min_size=n, max_size=n))
    if kind == "floats":
        wide = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False, allow_subnormal=False)
        return draw(st.lists(wide.filter(lambda x: x == 0 or abs(x) >= 1e-3), min_size=n, max_size=n))
    if kind == "constant":
        return [draw(grid)] * n
    if kind == "few":
        return draw(st.lists(st.sampled_from(draw(st.lists(grid, min_size=1, max_size=3))), min_size=n, max_size=n))
    noise = draw(st.lists(st.integers(-100, 100).map(lambda i: i / 100), min_size=n, max_size=n))
    return [v + d * max(1.0, abs(v)) * 1e-2 for v, d in zip(like, noise, strict=True)]


@st.composite
def pairs(draw, min_size: int = 2, max_size: int = 40) -> tuple[list[float], list[float]]:
    """(actual, predicted), equal lengths, well conditioned."""
    n = draw(st.integers(min_size, max_size))
    a = draw(column(n))
    p = draw(column(n, like=a))
    assume(well_conditioned(a) and well_conditioned(p))
    return a, p


def values(r: RegressionEvaluation) -> dict[str, float | None]:
    return {name: e.value for name, e in r.metrics.items()}


# ----------------------------------------------------------------------------
# against the references


@given(pairs())
def test_errors_match_scikit_learn_and_seed_formulas(data: tuple[list[float], list[float]]) -> None:
    a, p = data
    r = values(evaluate_regression(a, p, bootstrap=FAST))
    ya, yp = np.array(a), np.array(p)
    e = yp - ya
    assert r["mse"] == approx(mean_squared_error(ya, yp))
    assert r["rmse"] == approx(root_mean_squared_error(ya, yp))
    assert r["mae"] == approx(mean_absolute_error(ya, yp))
    assert r["mean_error"] == approx(float(np.mean(e)))
    if len(set(a)) == 1:
        for name in ("relative_squared_error", "root_relative_squared_error", "relative_absolute_error", "r2"):
            assert r[name] is None
        return
    dev = ya - ya.mean()
    rse = float(np.sum(e**2) / np.sum(dev**2))
    assert r["r2"] == approx(r2_score(ya, yp, force_finite=False))
    assert r["relative_squared_error"] == approx(rse)
    assert r["root_relative_squared_error"] == approx(math.sqrt(rse))
    assert r["relative_absolute_error"] == approx(float(np.sum(np.abs(e)) / np.sum(np.abs(dev))))


@given(pairs())
def test_correlation_matches_numpy_and_scipy(data: tuple[list[float], list[float]]) -> None:
    a, p = data
    result = evaluate_regression(a, p, bootstrap=FAST)["correlation"]
    if len(set(a)) == 1 or len(set(p)) == 1:
        assert result.value is None
        assert result.note in ("every actual value is the same", "every prediction is the same")
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = pearsonr(p, a).statistic
    assert result.value == approx(float(np.corrcoef(p, a)[0, 1]))
    assert result.value == approx(float(reference))
    assert -1.0 <= result.value <= 1.0


@given(pairs(), st.sampled_from([-3.5, -1.0, 0.01, 2.0, 1000.0]))
def test_correlation_ignores_the_scale(data: tuple[list[float], list[float]], k: float) -> None:
    """Seed 002, slide 51: multiplying every p (or every a) by k leaves corr unchanged (sign flips if k < 0)."""
    a, p = data
    assume(len(set(a)) > 1 and len(set(p)) > 1)
    base = evaluate_regression(a, p, bootstrap=FAST)["correlation"].value
    scaled_p = evaluate_regression(a, [k * v for v in p], bootstrap=FAST)["correlation"].value
    scaled_a = evaluate_regression([k * v for v in a], p, bootstrap=FAST)["correlation"].value
    assert scaled_p == approx(math.copysign(1, k) * base)
    assert scaled_a == approx(math.copysign(1, k) * base)


@given(pairs())
def test_errors_relative_to_the_prediction(data: tuple[list[float], list[float]]) -> None:
    """Seed 002, slide 49: (p − a)/p in place of p − a; undefined, naming the row, when some p = 0."""
    a, p = data
    r = evaluate_regression(a, p, bootstrap=FAST)
    ya, yp = np.array(a), np.array(p)
    zeros = np.flatnonzero(yp == 0)
    if zeros.size:
        for name in RELATIVE_TO_PREDICTION:
            assert r[name].value is None
            assert r[name].note.startswith(f"a prediction is 0 (row {zeros[0]}, counting from 0")
        return
    rel = (yp - ya) / yp
    assert r["mse_relative_to_prediction"].value == approx(float(np.mean(rel**2)))
    assert r["rmse_relative_to_prediction"].value == approx(math.sqrt(float(np.mean(rel**2))))
    assert r["mae_relative_to_prediction"].value == approx(float(np.mean(np.abs(yp - ya) / np.abs(yp))))


def test_worked_example_by_hand() -> None:
    """Actual 2, 4, 6, 8 (ā = 5), predicted 3, 4, 5, 10: errors p − a = 1, 0, −1, 2.

    Σe² = 6, Σ|e| = 4, Σe = 2; Σ(a−ā)² = 9 + 1 + 1 + 9 = 20, Σ|a−ā| = 3 + 1 + 1 + 3 = 8;
    p̄ = 5.5, Σ(p−p̄)² = 6.25 + 2.25 + 0.25 + 20.25 = 29, Σ(p−p̄)(a−ā) = 7.5 + 1.5 − 0.5 + 13.5 = 22;
    (p − a)/p = 1/3, 0, −1/5, 1/5.
    """
    r = evaluate_regression([2, 4, 6, 8], [3, 4, 5, 10], bootstrap=FAST)
    expected = {
        "mse": 6 / 4,
        "rmse": math.sqrt(6 / 4),
        "mae": 4 / 4,
        "mean_error": 2 / 4,
        "relative_squared_error": 6 / 20,
        "root_relative_squared_error": math.sqrt(6 / 20),
        "relative_absolute_error": 4 / 8,
        "r2": 1 - 6 / 20,
        "correlation": 22 / math.sqrt(29 * 20),
        "mse_relative_to_prediction": (1 / 9 + 0 + 1 / 25 + 1 / 25) / 4,
        "rmse_relative_to_prediction": math.sqrt((1 / 9 + 0 + 1 / 25 + 1 / 25) / 4),
        "mae_relative_to_prediction": (1 / 3 + 0 + 1 / 5 + 1 / 5) / 4,
    }
    assert list(r.metrics) == list(expected)
    for name, value in expected.items():
        assert r[name].value == approx(value), name
    assert r.actual_mean == 5.0
    assert r.n == 4


# ----------------------------------------------------------------------------
# shared invariances, over the registry


def metric_values(a: list[float], p: list[float]) -> dict[str, float]:
    s = RegressionSummary.from_arrays(a, p)
    return {name: float(m.compute(s)) for name, m in REGRESSION_METRICS.items()}


def assert_same(x: dict[str, float], y: dict[str, float], rel: float = 1e-9, abs_: float = 1e-9) -> None:
    assert x.keys() == y.keys()
    for name in x:
        if math.isnan(x[name]):
            assert math.isnan(y[name]), name
        else:
            assert y[name] == pytest.approx(x[name], rel=rel, abs=abs_), name


@given(pairs(), st.randoms(use_true_random=False))
def test_every_metric_ignores_the_order_of_instances(data, random) -> None:
    a, p = data
    order = list(range(len(a)))
    random.shuffle(order)
    assert_same(metric_values(a, p), metric_values([a[i] for i in order], [p[i] for i in order]))


@pytest.mark.parametrize("k", [1e-3, 0.5, 7.0, 1e4])
@given(data=pairs())
def test_every_metric_scales_with_its_unit_power(k: float, data) -> None:
    a, p = data
    base = metric_values(a, p)
    scaled = metric_values([k * v for v in a], [k * v for v in p])
    expected = {name: base[name] * k ** REGRESSION_METRICS[name].unit_power for name in base}
    assert_same(expected, scaled, abs_=1e-9 * max(1.0, k * k))


@given(pairs(), st.integers(-50, 50))
def test_shifting_both_leaves_every_error_but_those_relative_to_the_prediction(data, c: int) -> None:
    a, p = data
    moved_a, moved_p = [v + c for v in a], [v + c for v in p]
    assume(max(abs(v) for v in a + p) <= 1e3 and well_conditioned(moved_a) and well_conditioned(moved_p))
    base = metric_values(a, p)
    moved = metric_values(moved_a, moved_p)
    for name in RELATIVE_TO_PREDICTION:
        del base[name], moved[name]
    assert_same(base, moved, rel=1e-7, abs_=1e-7)


def test_every_metric_has_a_title_and_a_formula() -> None:
    assert list(METRIC_TITLES) == list(REGRESSION_METRICS)
    for name, (title, formula) in METRIC_TITLES.items():
        assert title and formula, name
    assert METRIC_TITLES["root_relative_squared_error"] == ("Root relative squared error",
                                                            "sqrt(Σ(p−a)² / Σ(a−ā)²)")
    r = evaluate_regression([1, 2, 3], [1, 2, 4], bootstrap=FAST)
    assert r.metric_titles is METRIC_TITLES
    assert list(r.metrics) == list(METRIC_TITLES)


# ----------------------------------------------------------------------------
# undefined values


def test_constant_actuals_leave_the_relative_errors_undefined() -> None:
    r = evaluate_regression([3, 3, 3, 3], [1, 2, 3, 4], bootstrap=FAST)
    for name in ("relative_squared_error", "root_relative_squared_error", "r2"):
        assert r[name].value is None
        assert r[name].note == "every actual value is the same, so Σ(a−ā)² = 0"
    assert r["relative_absolute_error"].note == "every actual value is the same, so Σ|a−ā| = 0"
    assert r["correlation"].note == "every actual value is the same"
    assert r["mse"].value == approx(6 / 4)


def test_constant_predictions_leave_the_correlation_undefined() -> None:
    """0.1 three times has a floating-point mean that is not 0.1: constant all the same."""
    r = evaluate_regression([1, 2, 4], [0.1, 0.1, 0.1], bootstrap=FAST)
    assert r["correlation"].value is None
    assert r["correlation"].note == "every prediction is the same"
    assert r["r2"].value is not None


def test_zero_predictions_name_the_first_row() -> None:
    r = evaluate_regression([1, 2, 3, 4], [1, 0, 3, 0], bootstrap=FAST)
    assert r["mae_relative_to_prediction"].value is None
    assert r["mae_relative_to_prediction"].note == "a prediction is 0 (row 1, counting from 0; 2 predictions are 0)"
    one = evaluate_regression([1, 2, 3], [1, 2, 0], bootstrap=FAST)
    assert one["mse_relative_to_prediction"].note == "a prediction is 0 (row 2, counting from 0)"


def test_overflow_is_undefined_not_infinite() -> None:
    r = evaluate_regression([1e200, -1e200], [-1e200, 1e200], bootstrap=FAST)
    assert r["mse"].value is None
    assert "overflow" in r["mse"].note
    assert r["mae"].value == approx(2e200)


@given(pairs())
def test_output_never_holds_nan_or_a_silent_zero(data) -> None:
    a, p = data
    r = evaluate_regression(a, p, bootstrap=FAST)
    text = json.dumps(r.to_dict(), allow_nan=False)
    assert json.loads(text)["task"] == "regression"
    for name, e in r.metrics.items():
        if e.value is None:
            assert e.note, name
        if e.ci is None:
            assert e.value is None or e.note.startswith("no interval"), name


# ----------------------------------------------------------------------------
# the summary's algebra


def summarize(a: list[float], p: list[float]) -> RegressionSummary:
    return RegressionSummary.from_arrays(a, p)


def assert_summaries_close(x: RegressionSummary, y: RegressionSummary) -> None:
    """Counts and distinct actual values exactly; float sums to 1e-9 of their scale."""
    assert x.n == y.n
    assert x.zero_predictions == y.zero_predictions
    assert np.array_equal(x.actual_values, y.actual_values)
    assert np.array_equal(x.actual_counts, y.actual_counts)
    assert x.min_pred == y.min_pred and x.max_pred == y.max_pred
    assert x.m2_actual == y.m2_actual and x.abs_dev_actual == y.abs_dev_actual and x.sum_actual == y.sum_actual
    pred_scale = x.n * max(abs(x.min_pred), abs(x.max_pred)) if x.n else 0.0
    actual_scale = x.n * float(np.abs(x.actual_values).max()) if x.n else 0.0
    scales = {
        "sum_pred": pred_scale,
        "sum_error": x.sum_abs_error,
        "sum_sq_error": x.sum_sq_error,
        "sum_abs_error": x.sum_abs_error,
        "sum_sq_rel_error": x.sum_sq_rel_error,
        "sum_abs_rel_error": x.sum_abs_rel_error,
        "m2_pred": x.m2_pred + (pred_scale**2 / x.n if x.n else 0.0) * 1e-6,
        # |comoment| <= sqrt(m2_pred m2_actual); rounding of the part means adds ~ eps·max|a|·max|p| per pair
        "comoment": math.sqrt(x.m2_pred * x.m2_actual) + (pred_scale * actual_scale / x.n if x.n else 0.0) * 1e-6,
    }
    for field, scale in scales.items():
        assert abs(getattr(x, field) - getattr(y, field)) <= 1e-9 * scale + 1e-300, field


@st.composite
def two_parts(draw) -> tuple[list[float], list[float], list[float], list[float]]:
    a, p = draw(pairs(min_size=0))
    cut = draw(st.integers(0, len(a)))
    return a[:cut], p[:cut], a[cut:], p[cut:]


@given(two_parts())
def test_summary_of_a_concatenation_is_the_merge(parts) -> None:
    a1, p1, a2, p2 = parts
    assert_summaries_close(summarize(a1 + a2, p1 + p2), summarize(a1, p1).merge(summarize(a2, p2)))


@given(pairs(min_size=0, max_size=60), st.lists(st.integers(0, 60), max_size=6))
def test_chunked_is_one_shot(data, cuts: list[int]) -> None:
    a, p = data
    bounds = [0, *sorted(c for c in cuts if c <= len(a)), len(a)]
    chunks = [summarize(a[i:j], p[i:j]) for i, j in zip(bounds, bounds[1:], strict=False)]
    merged = functools.reduce(RegressionSummary.merge, chunks, RegressionSummary.empty())
    assert_summaries_close(summarize(a, p), merged)
    assert_same(metric_values(a, p), {name: float(m.compute(merged)) for name, m in REGRESSION_METRICS.items()})


@given(two_parts())
def test_merge_is_commutative_exactly(parts) -> None:
    a1, p1, a2, p2 = parts
    x, y = summarize(a1, p1), summarize(a2, p2)
    assert x.merge(y) == y.merge(x)


@given(two_parts(), two_parts())
def test_merge_is_associative(first, second) -> None:
    a1, p1, a2, p2 = first
    a3, p3, _, _ = second
    x, y, z = summarize(a1, p1), summarize(a2, p2), summarize(a3, p3)
    assert_summaries_close(x.merge(y).merge(z), x.merge(y.merge(z)))


@given(pairs(min_size=0))
def test_empty_is_the_identity(data) -> None:
    x = summarize(*data)
    assert x.merge(RegressionSummary.empty()) == x
    assert RegressionSummary.empty().merge(x) == x
    assert summarize([], []) == RegressionSummary.empty()


def test_relative_absolute_error_is_exact_after_a_merge() -> None:
    """Σ|a − ā| needs ā of the whole; the kept distinct values give it exactly."""
    a, p = [1.0, 1.0, 2.0, 10.0, 10.0, 4.0], [2.0, 1.0, 2.0, 8.0, 11.0, 4.0]  # Σ|p − a| = 1 + 2 + 1 = 4
    merged = summarize(a[:2], p[:2]).merge(summarize(a[2:4], p[2:4])).merge(summarize(a[4:], p[4:]))
    assert merged.actual_values.tolist() == [1.0, 2.0, 4.0, 10.0]
    assert merged.actual_counts.tolist() == [2, 1, 1, 2]
    # ā = 28/6 = 14/3; Σ|a − ā| = 2(14/3 − 1) + (14/3 − 2) + (14/3 − 4) + 2(10 − 14/3)
    #                          = 22/3 + 8/3 + 2/3 + 32/3 = 64/3
    assert merged.abs_dev_actual == approx(64 / 3)
    assert float(REGRESSION_METRICS["relative_absolute_error"].compute(merged)) == approx(4 / (64 / 3))


def test_regression_summary_validates_like_the_evaluation() -> None:
    with pytest.raises(InvalidInput, match=r"y_pred\[1\]: 'x' is not a number"):
        regression_summary([1, 2], [1, "x"])
    with pytest.raises(InvalidInput, match="has 1 values but y_true has 2"):
        regression_summary([1, 2], [1])
    assert regression_summary([1, 2, 3], [1, 2, 5]).sum_sq_error == 4.0


# ----------------------------------------------------------------------------
# the bootstrap


def noisy(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.normal(50.0, 10.0, size=n)
    return a, a + rng.normal(0.3, 2.0, size=n)


def test_same_seed_same_intervals_other_seed_others() -> None:
    a, p = noisy(60, 1)
    first = evaluate_regression(a, p, bootstrap=300, seed=7).to_dict()
    assert evaluate_regression(a, p, bootstrap=300, seed=7).to_dict() == first
    other = evaluate_regression(a, p, bootstrap=300, seed=8).to_dict()
    assert other["metrics"]["mse"]["ci"] != first["metrics"]["mse"]["ci"]
    assert first["intervals"] == {"bootstrap": {"resamples": 300, "seed": 7}}


def test_intervals_do_not_depend_on_the_block_size() -> None:
    """The same resamples whatever the block; only the matrix product's rounding (1e-16) may differ."""
    a, p = noisy(37, 2)
    settings = BootstrapSettings(250, 3)
    whole = bootstrap_regression(a, p, confidence=0.9, settings=settings)
    for block in (37, 37 * 7, 1000):
        blocks = bootstrap_regression(a, p, confidence=0.9, settings=settings, max_elements=block)
        assert blocks.keys() == whole.keys()
        for name, b in blocks.items():
            assert (b.ci.low, b.ci.high) == (pytest.approx(whole[name].ci.low, rel=1e-12),
                                             pytest.approx(whole[name].ci.high, rel=1e-12)), name


def test_one_resampling_is_shared_by_every_metric() -> None:
    """With B = 201 the 2.5% and 97.5% quantiles are order statistics 5 and 195: monotone maps carry over."""
    a, p = noisy(80, 3)
    r = evaluate_regression(a, p, bootstrap=201, seed=4)
    mse, rmse = r["mse"].ci, r["rmse"].ci
    assert (rmse.low, rmse.high) == (approx(math.sqrt(mse.low)), approx(math.sqrt(mse.high)))
    rse, rrse, r2 = r["relative_squared_error"].ci, r["root_relative_squared_error"].ci, r["r2"].ci
    assert (rrse.low, rrse.high) == (approx(math.sqrt(rse.low)), approx(math.sqrt(rse.high)))
    assert (r2.low, r2.high) == (approx(1 - rse.high), approx(1 - rse.low))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_intervals_contain_their_estimate_and_nest(seed: int) -> None:
    a, p = noisy(200, 10 + seed)
    wide = evaluate_regression(a, p, confidence=0.95, bootstrap=1000, seed=seed)
    narrow = evaluate_regression(a, p, confidence=0.80, bootstrap=1000, seed=seed)
    for name, e in wide.metrics.items():
        assert e.method == "bootstrap-percentile"
        assert e.ci is not None and e.ci.contains(e.value), name
        inner = narrow[name].ci
        assert e.ci.low <= inner.low <= inner.high <= e.ci.high, name


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mean_error_interval_is_close_to_the_normal_interval(seed: int) -> None:
    """For n = 500 errors drawn from a normal distribution, the bootstrap distribution of the
    mean error is nearly normal, so its percentile interval should match ē ± z·s/√n.

    Tolerance. With B = 2000 the Monte-Carlo standard deviation of an estimated 2.5% quantile is
    sqrt(q(1 − q)/B) / φ(z_q) ≈ 0.0035 / 0.058 ≈ 0.06 standard errors (SE = s/√n); the other
    differences are far smaller: s with n − 1 against the bootstrap's n (a factor 0.999) and the
    skewness of a normal sample of 500 (Edgeworth shift ≈ γ(z² − 1)/(6√n) ≈ 0.002 SE). So each
    end must lie within 0.25 SE (about 4 Monte-Carlo standard deviations) of the normal interval.
    """
    rng = np.random.default_rng(100 + seed)
    a = rng.uniform(0, 100, size=500)
    p = a + rng.normal(1.5, 4.0, size=500)
    e = p - a
    se = e.std(ddof=1) / math.sqrt(e.size)
    z = float(ndtri(0.975))
    ci = evaluate_regression(a, p, bootstrap=2000, seed=seed)["mean_error"].ci
    assert abs(ci.low - (e.mean() - z * se)) <= 0.25 * se
    assert abs(ci.high - (e.mean() + z * se)) <= 0.25 * se


def test_no_interval_when_often_undefined_in_resamples() -> None:
    """Five instances, four of them with actual 1: a resample holds only 1s with chance 0.8⁵ ≈ 33%."""
    r = evaluate_regression([1, 1, 1, 1, 2], [1.1, 0.9, 1.2, 1.0, 1.8], bootstrap=500)
    for name in ("relative_squared_error", "relative_absolute_error", "r2", "correlation"):
        assert r[name].value is not None
        assert r[name].ci is None
        assert r[name].note.startswith("no interval: undefined in 3")
        assert r[name].method == "bootstrap-percentile"
    assert r["mse"].ci is not None and r["mse"].note is None


def test_perfect_predictions_give_degenerate_intervals() -> None:
    a = np.arange(30.0)
    r = evaluate_regression(a, a, bootstrap=FAST)
    assert r["mse"].value == 0.0 and (r["mse"].ci.low, r["mse"].ci.high) == (0.0, 0.0)
    assert r["correlation"].value == 1.0
    assert (r["correlation"].ci.low, r["correlation"].ci.high) == (approx(1.0), 1.0)  # to rounding


# ----------------------------------------------------------------------------
# the result and the boundary


def test_to_dict_shape() -> None:
    r = evaluate_regression([2, 4, 6, 8], [3, 4, 5, 10], confidence=0.9, bootstrap=FAST, seed=3)
    d = r.to_dict()
    assert list(d) == ["task", "n", "confidence", "metrics", "intervals", "actual_mean", "input", "notes"]
    assert (d["task"], d["n"], d["confidence"], d["actual_mean"]) == ("regression", 4, 0.9, 5.0)
    assert d["intervals"] == {"bootstrap": {"resamples": FAST, "seed": 3}}
    assert list(d["metrics"]) == list(REGRESSION_METRICS)
    for m in d["metrics"].values():
        assert list(m) == ["value", "ci", "method", "note"]
    assert all(isinstance(note, str) for note in d["notes"])
    json.dumps(d, allow_nan=False)


def test_lists_numpy_pandas_and_polars_agree() -> None:
    a, p = [1.5, 2.0, 3.25, 4.0, 8.0], [1.0, 2.5, 3.0, 5.0, 7.0]
    reference = evaluate_regression(a, p, bootstrap=FAST).to_dict()
    for make in (np.array, pd.Series, pl.Series, lambda x: np.array(x, dtype=np.float32).astype(np.float64)):
        assert evaluate_regression(make(a), make(p), bootstrap=FAST).to_dict() == reference


@pytest.mark.parametrize(
    ("y_true", "y_pred", "message"),
    [
        ([1, 2, 3], [1, "high", 3], r"^y_pred\[1\]: 'high' is not a number$"),
        ([1, None, 3], [1, 2, 3], r"^y_true\[1\]: missing value$"),
        ([1, 2, float("nan")], [1, 2, 3], r"^y_true\[2\]: missing value$"),
        ([1, 2, 3], [1, 2, float("inf")], r"^y_pred\[2\]: inf is not a finite number$"),
        ([1, 2, 3], [1, 2], r"^y_pred: has 2 values but y_true has 3$"),
        ([1], [1], r"^y_true: has 1 value; at least 2 instances are needed$"),
        ([], [], r"^y_true: has 0 values; at least 2 instances are needed$"),
    ],
)
def test_bad_inputs_name_the_field_and_row(y_true, y_pred, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        evaluate_regression(y_true, y_pred, bootstrap=FAST)


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"confidence": 1.0}, "confidence"),
        ({"confidence": 0}, "confidence"),
        ({"confidence": "high"}, "confidence"),
        ({"bootstrap": 99}, "bootstrap"),
        ({"bootstrap": 150.5}, "bootstrap"),
        ({"bootstrap": True}, "bootstrap"),
        ({"seed": -1}, "seed"),
        ({"seed": 1.5}, "seed"),
    ],
)
def test_bad_options_name_the_option(options: dict, field: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        evaluate_regression([1, 2, 3], [1, 2, 4], **options)
    assert caught.value.field == field
