"""Errors of numeric predictions: pure functions of a regression summary.

Every function reads the sums of a :class:`~assay.summaries.regression.RegressionSummary`
and returns a number, or reads a :class:`RegressionSums` whose fields are arrays (one
entry per bootstrap resample) and returns an array: the same formula gives the point
estimate and every replicate.

With p the prediction, a the actual value, ā the mean of the actual values and n the
number of instances (Witten & Frank, section 5.8):

=================================  ==============================================
mse                                Σ(p−a)² / n
rmse                               sqrt(Σ(p−a)² / n)
mae                                Σ|p−a| / n
mean_error                         Σ(p−a) / n  (the bias: > 0 when p runs high)
relative_squared_error             Σ(p−a)² / Σ(a−ā)²
root_relative_squared_error        sqrt(Σ(p−a)² / Σ(a−ā)²)
relative_absolute_error            Σ|p−a| / Σ|a−ā|
r2                                 1 − Σ(p−a)² / Σ(a−ā)²
correlation                        S_PA / (S_P S_A)
mse_relative_to_prediction         Σ((p−a)/p)² / n
rmse_relative_to_prediction        sqrt(Σ((p−a)/p)² / n)
mae_relative_to_prediction         Σ(|p−a| / |p|) / n
=================================  ==============================================

The relative errors compare the model with the trivial one that always predicts ā,
the mean of the actual values evaluated (as scikit-learn's ``r2_score`` does).
Witten & Frank take ā from the training data when it is at hand; with a test set of
fair size the two hardly differ.

A formula that divides by zero gives NaN here, never 0: the relative errors and r2
when every actual value is the same, the correlation when the actual values or the
predictions are constant, the errors relative to the prediction when some p = 0. The
registry entry of each metric says why in words (``undefined``).

References
----------
I. H. Witten and E. Frank, *Data Mining: Practical Machine Learning Tools and
Techniques*, Morgan Kaufmann, section 5.8 "Evaluating numeric prediction".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, NamedTuple, Protocol

import numpy as np

__all__ = [
    "RegressionSums",
    "RegressionMetric",
    "REGRESSION_METRICS",
    "METRIC_TITLES",
    "mean_squared_error",
    "root_mean_squared_error",
    "mean_absolute_error",
    "mean_error",
    "relative_squared_error",
    "root_relative_squared_error",
    "relative_absolute_error",
    "r2_score",
    "correlation",
    "mse_relative_to_prediction",
    "rmse_relative_to_prediction",
    "mae_relative_to_prediction",
]


class Sums(Protocol):
    """What a metric reads: a RegressionSummary, or RegressionSums of arrays."""

    @property
    def n(self) -> int | np.ndarray: ...
    @property
    def sum_error(self) -> float | np.ndarray: ...
    @property
    def sum_sq_error(self) -> float | np.ndarray: ...
    @property
    def sum_abs_error(self) -> float | np.ndarray: ...
    @property
    def sum_sq_rel_error(self) -> float | np.ndarray: ...
    @property
    def sum_abs_rel_error(self) -> float | np.ndarray: ...
    @property
    def zero_predictions(self) -> int | np.ndarray: ...
    @property
    def m2_actual(self) -> float | np.ndarray: ...
    @property
    def abs_dev_actual(self) -> float | np.ndarray: ...
    @property
    def m2_pred(self) -> float | np.ndarray: ...
    @property
    def comoment(self) -> float | np.ndarray: ...
    @property
    def constant_actual(self) -> bool | np.ndarray: ...
    @property
    def constant_pred(self) -> bool | np.ndarray: ...


class RegressionSums(NamedTuple):
    """The sums the metrics read, as numbers or as arrays of bootstrap replicates.

    The field names are those of ``RegressionSummary``, so a metric takes either.
    ``constant_actual`` and ``constant_pred`` say, exactly, that every actual value
    (prediction) is the same; the centred sums alone cannot, being rounded.
    """

    n: int | np.ndarray
    sum_error: np.ndarray
    sum_sq_error: np.ndarray
    sum_abs_error: np.ndarray
    sum_sq_rel_error: np.ndarray
    sum_abs_rel_error: np.ndarray
    zero_predictions: np.ndarray
    m2_actual: np.ndarray
    abs_dev_actual: np.ndarray
    m2_pred: np.ndarray
    comoment: np.ndarray
    constant_actual: np.ndarray
    constant_pred: np.ndarray


def _ratio(num: float | np.ndarray, den: float | np.ndarray, undefined: bool | np.ndarray = False) -> np.ndarray:
    """num / den, NaN where den is 0 or ``undefined`` holds."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    bad = (den == 0) | np.asarray(undefined, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.where(bad, np.nan, num / np.where(bad, 1.0, den))


def _sqrt(x: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return np.sqrt(x)


# ----------------------------------------------------------------------------
# the errors themselves


def mean_squared_error(s: Sums) -> np.ndarray:
    """Mean squared error, MSE = Σ(p−a)² / n (lower is better).

    The error function most used for numeric prediction: easy to handle
    mathematically and, under suitable hypotheses, the one that maximises the
    likelihood of the data.

    Parameters
    ----------
    s : RegressionSummary or RegressionSums
        The sums of the instances (arrays of them for bootstrap replicates).

    Returns
    -------
    float ndarray
        MSE, NaN when there are no instances.

    References
    ----------
    Witten & Frank, *Data Mining*, section 5.8.

    Examples
    --------
    Errors p − a of 1, 0, −1 and 2: (1 + 0 + 1 + 4) / 4 = 1.5.

    >>> from assay.summaries.regression import RegressionSummary
    >>> float(mean_squared_error(RegressionSummary.from_arrays([2, 4, 6, 8], [3, 4, 5, 10])))
    1.5
    """
    return _ratio(s.sum_sq_error, s.n)


def root_mean_squared_error(s: Sums) -> np.ndarray:
    """Root mean squared error, RMSE = sqrt(Σ(p−a)² / n), in the units of the data.

    Parameters
    ----------
    s : RegressionSummary or RegressionSums

    Returns
    -------
    float ndarray

    References
    ----------
    Witten & Frank, section 5.8.

    Examples
    --------
    Errors 3, −4, 0 and 0: sqrt((9 + 16) / 4) = 2.5.

    >>> from assay.summaries.regression import RegressionSummary
    >>> float(root_mean_squared_error(RegressionSummary.from_arrays([0, 4, 1, 1], [3, 0, 1, 1])))
    2.5
    """
    return _sqrt(mean_squared_error(s))


def mean_absolute_error(s: Sums) -> np.ndarray:
    """Mean absolute error, MAE = Σ|p−a| / n: less sensitive to outliers than MSE.

    Parameters
    ----------
    s : RegressionSummary or RegressionSums

    Returns
    -------
    float ndarray

    References
    ----------
    Witten & Frank, section 5.8.

    Examples
    --------
    Errors 1, 0, −1 and 2: (1 + 0 + 1 + 2) / 4 = 1.

    >>> from assay.summaries.regression import RegressionSummary
    >>> float(mean_absolute_error(RegressionSummary.from_arrays([2, 4, 6, 8], [3, 4, 5, 10])))
    1.0
    """
    return _ratio(s.sum_abs_error, s.n)


def mean_error(s: Sums) -> np.ndarray:
    """Mean (signed) error, the bias: Σ(p−a) / n; positive when predictions run high.

    Parameters
    ----------
    s : RegressionSummary or RegressionSums

    Returns
    -------
    float ndarray

    References
    ----------
    Witten & Frank, section 5.8 (the errors p − a whose squares and absolute values
    the other measures average).

    Examples
    --------
    Errors 1, 0, −1 and 2: (1 + 0 − 1 + 2) / 4 = 0.5.

    >>> from assay.summaries.regression import RegressionSummary
    >>> float(mean_error(RegressionSummary.from_arrays([2, 4, 6, 8], [3, 4, 5, 10])))
    0.5
    """
    return _ratio(s.sum_error, s.n)


def relative_squared_error(s: Sums) -> np.ndarray:
    """Relative squared error, RSE = Σ(p−a)² / Σ(a−ā)².

    The squared error against that of always predicting ā, the mean of the actual
    values: 0 is perfect, 1 is no better than the mean. Undefined (NaN) when every
    actual value is the same.

    Parameters
    ----------
    s : RegressionSummary or RegressionSums

    Returns
    -------
    float ndarray

    References
    ----------
    Witten & Frank, section 5.8.

    Examples
    --------
    Actual 2, 4, 6, 8 (ā = 5, Σ(a−ā)² = 9 + 1 + 1 + 9 = 20); Σ(p−a)² = 6: 6/20 = 0.3.

    >>> from assay.summaries.regression import RegressionSummary
    >>> float(relative_squared_error(RegressionSummary.from_arrays([2, 4, 6, 8], [3, 4, 5, 10])))
    0.3
    """
    return _ratio(s.sum_sq_error, s.m2_actual, s.constant_actual)


def root_relative_squared_error(s: Sums) -> np.ndarray:
    """Root relative squared error, RRSE = sqrt(Σ(p−a)² / Σ(a−ā)²).

    Parameters
    ----------
    s : RegressionSummary or RegressionSums

    Returns
    -------
    float ndarray

    References
    ----------
    Witten & Frank, section 5.8.

    Examples
    --------
    Actual 0, 2 (Σ(a−ā)² = 2); errors 1 and −1 (Σ(p−a)² = 2): sqrt(2/2) = 1.

    >>> from assay.summaries.regression import RegressionSummary
    >>> float(root_relative_squared_error(RegressionSummary.from_arrays([0, 2], [1, 1])))
    1.0
    """
    return _sqrt(relative_squared_error(s))


def relative_absolute_error(s: Sums) -> np.ndarray:
    """Relative absolute error, RAE = Σ|p−a| / Σ|a−ā|.

    Undefined (NaN) when every actual value is the same. The summary keeps the
    distinct actual values, so Σ|a−ā| is exact after any merge.

    Parameters
    ----------
    s : RegressionSummary or RegressionSums

    Returns
    -------
    float ndarray

    References
    ----------
    Witten & Frank, section 5.8.

    Examples
    --------
    Actual 2, 4, 6, 8 (Σ|a−ā| = 3 + 1 + 1 + 3 = 8); Σ|p−a| = 4: 4/8 = 0.5.

    >>> from assay.summaries.regression import RegressionSummary
    >>> float(relative_absolute_error(RegressionSummary.from_arrays([2, 4, 6, 8], [3, 4, 5, 10])))
    0.5
    """
    return _ratio(s.sum_abs_error, s.abs_dev_actual, s.constant_actual)


def r2_score(s: Sums) -> np.ndarray:
    """Coefficient of determination, R² = 1 − Σ(p−a)² / Σ(a−ā)² (higher is better).

    As scikit-learn's ``r2_score`` with ``force_finite=False``: 1 − RSE, undefined
    (NaN, not scikit-learn's default 0 or 1) when every actual value is the same.

    Parameters
    ----------
    s : RegressionSummary or RegressionSums

    Returns
    -------
    float ndarray

    References
    ----------
    Witten & Frank, section 5.8 (the relative squared error, RSE).

    Examples
    --------
    RSE = 0.3, so R² = 0.7.

    >>> from assay.summaries.regression import RegressionSummary
    >>> round(float(r2_score(RegressionSummary.from_arrays([2, 4, 6, 8], [3, 4, 5, 10]))), 12)
    0.7
    """
    return 1.0 - relative_squared_error(s)


def correlation(s: Sums) -> np.ndarray:
    """Pearson's correlation of predictions and actual values, S_PA / (S_P S_A).

    With S_PA = Σ(p−p̄)(a−ā)/(n−1), S_P² = Σ(p−p̄)²/(n−1), S_A² = Σ(a−ā)²/(n−1);
    the (n−1) cancel. In [−1, 1], higher is better, and unchanged when every p (or
    every a) is multiplied by the same positive factor. Undefined (NaN) when the
    actual values or the predictions are constant.

    Parameters
    ----------
    s : RegressionSummary or RegressionSums

    Returns
    -------
    float ndarray

    References
    ----------
    Witten & Frank, section 5.8.

    Examples
    --------
    Actual 2, 4, 6, 8 and predicted 3, 4, 5, 10: Σ(p−p̄)(a−ā) = 22, Σ(p−p̄)² = 29,
    Σ(a−ā)² = 20, so 22 / sqrt(29 · 20) = 22 / sqrt(580).

    >>> from assay.summaries.regression import RegressionSummary
    >>> r = float(correlation(RegressionSummary.from_arrays([2, 4, 6, 8], [3, 4, 5, 10])))
    >>> round(r, 6), round(22 / 580 ** 0.5, 6)
    (0.9135, 0.9135)
    """
    undefined = np.asarray(s.constant_actual) | np.asarray(s.constant_pred)
    with np.errstate(over="ignore", invalid="ignore"):
        den = np.sqrt(np.asarray(s.m2_pred, dtype=np.float64)) * np.sqrt(np.asarray(s.m2_actual, dtype=np.float64))
    return np.clip(_ratio(s.comoment, den, undefined), -1.0, 1.0)


def mse_relative_to_prediction(s: Sums) -> np.ndarray:
    """Mean squared error relative to the prediction, Σ((p−a)/p)² / n.

    Sometimes the absolute error p − a is replaced by the error relative to the
    prediction, (p − a)/p. Undefined (NaN) when some p = 0.

    Parameters
    ----------
    s : RegressionSummary or RegressionSums

    Returns
    -------
    float ndarray

    References
    ----------
    Witten & Frank, section 5.8.

    Examples
    --------
    Predicted 2 and 4 for actual 1 and 5: relative errors 1/2 and −1/4, so
    (1/4 + 1/16) / 2 = 0.15625.

    >>> from assay.summaries.regression import RegressionSummary
    >>> float(mse_relative_to_prediction(RegressionSummary.from_arrays([1, 5], [2, 4])))
    0.15625
    """
    return _ratio(s.sum_sq_rel_error, s.n, np.asarray(s.zero_predictions) > 0)


def rmse_relative_to_prediction(s: Sums) -> np.ndarray:
    """Root mean squared error relative to the prediction, sqrt(Σ((p−a)/p)² / n).

    Undefined (NaN) when some p = 0.

    Parameters
    ----------
    s : RegressionSummary or RegressionSums

    Returns
    -------
    float ndarray

    References
    ----------
    Witten & Frank, section 5.8.

    Examples
    --------
    Predicted 2 and 4 for actual 0 and 1: relative errors 1 and 3/4, so
    sqrt((1 + 9/16) / 2) = sqrt(25/32) = 0.8839...

    >>> from assay.summaries.regression import RegressionSummary
    >>> round(float(rmse_relative_to_prediction(RegressionSummary.from_arrays([0, 1], [2, 4]))), 6)
    0.883883
    """
    return _sqrt(mse_relative_to_prediction(s))


def mae_relative_to_prediction(s: Sums) -> np.ndarray:
    """Mean absolute error relative to the prediction, Σ(|p−a| / |p|) / n.

    Undefined (NaN) when some p = 0.

    Parameters
    ----------
    s : RegressionSummary or RegressionSums

    Returns
    -------
    float ndarray

    References
    ----------
    Witten & Frank, section 5.8.

    Examples
    --------
    Predicted 2 and −4 for actual 1 and −5: |1|/2 and |1|/4, so (1/2 + 1/4) / 2 = 0.375.

    >>> from assay.summaries.regression import RegressionSummary
    >>> float(mae_relative_to_prediction(RegressionSummary.from_arrays([1, -5], [2, -4])))
    0.375
    """
    return _ratio(s.sum_abs_rel_error, s.n, np.asarray(s.zero_predictions) > 0)


# ----------------------------------------------------------------------------
# the registry


def _when(*pairs: tuple[bool, str]) -> str | None:
    for condition, message in pairs:
        if bool(condition):
            return message
    return None


def _no_instances(s: Sums) -> str | None:
    return _when((s.n == 0, "no instances"))


def _equal_actuals(what: str) -> Callable[[Sums], str | None]:
    def undefined(s: Sums) -> str | None:
        return _when((s.n == 0, "no instances"),
                     (s.constant_actual, f"every actual value is the same, so {what} = 0"))

    return undefined


def _correlation_undefined(s: Sums) -> str | None:
    return _when((s.n == 0, "no instances"),
                 (s.constant_actual, "every actual value is the same"),
                 (s.constant_pred, "every prediction is the same"))


def _zero_prediction(s: Sums) -> str | None:
    k = int(s.zero_predictions)
    return _when((s.n == 0, "no instances"),
                 (k > 0, f"a prediction is 0 ({k} of {int(s.n)} predictions)"))


Direction = Literal["lower", "higher", "zero"]
"""Which values are better: lower, higher, or closer to zero (the bias)."""


@dataclass(frozen=True)
class RegressionMetric:
    """A regression metric, how to show it, and what to say when it is undefined.

    ``unit_power`` is the power of the data's unit the metric carries: multiplying
    every actual value and prediction by k > 0 multiplies the metric by
    k**unit_power (2 for MSE, 1 for RMSE, 0 for the relative errors and the
    correlation). ``percent`` marks ratios usually shown as percentages (the relative
    errors, as in Witten & Frank's tables).
    """

    name: str
    title: str
    formula: str
    compute: Callable[[Sums], np.ndarray]
    undefined: Callable[[Sums], str | None]
    better: Direction = "lower"
    unit_power: int = 0
    percent: bool = False


REGRESSION_METRICS: dict[str, RegressionMetric] = {
    m.name: m
    for m in [
        RegressionMetric("mse", "Mean squared error", "Σ(p−a)² / n", mean_squared_error, _no_instances,
                         unit_power=2),
        RegressionMetric("rmse", "Root mean squared error", "sqrt(Σ(p−a)² / n)", root_mean_squared_error,
                         _no_instances, unit_power=1),
        RegressionMetric("mae", "Mean absolute error", "Σ|p−a| / n", mean_absolute_error, _no_instances,
                         unit_power=1),
        RegressionMetric("mean_error", "Mean error (bias)", "Σ(p−a) / n", mean_error, _no_instances,
                         better="zero", unit_power=1),
        RegressionMetric("relative_squared_error", "Relative squared error", "Σ(p−a)² / Σ(a−ā)²",
                         relative_squared_error, _equal_actuals("Σ(a−ā)²"), percent=True),
        RegressionMetric("root_relative_squared_error", "Root relative squared error",
                         "sqrt(Σ(p−a)² / Σ(a−ā)²)", root_relative_squared_error, _equal_actuals("Σ(a−ā)²"), percent=True),
        RegressionMetric("relative_absolute_error", "Relative absolute error", "Σ|p−a| / Σ|a−ā|",
                         relative_absolute_error, _equal_actuals("Σ|a−ā|"), percent=True),
        RegressionMetric("r2", "Coefficient of determination (R²)", "1 − Σ(p−a)² / Σ(a−ā)²", r2_score,
                         _equal_actuals("Σ(a−ā)²"), better="higher"),
        RegressionMetric("correlation", "Correlation coefficient",
                         "Σ(p−p̄)(a−ā) / sqrt(Σ(p−p̄)² Σ(a−ā)²)", correlation, _correlation_undefined,
                         better="higher"),
        RegressionMetric("mse_relative_to_prediction", "Mean squared error relative to the prediction",
                         "Σ((p−a)/p)² / n", mse_relative_to_prediction, _zero_prediction),
        RegressionMetric("rmse_relative_to_prediction", "Root mean squared error relative to the prediction",
                         "sqrt(Σ((p−a)/p)² / n)", rmse_relative_to_prediction, _zero_prediction),
        RegressionMetric("mae_relative_to_prediction", "Mean absolute error relative to the prediction",
                         "Σ(|p−a| / |p|) / n", mae_relative_to_prediction, _zero_prediction),
    ]
}
"""Every regression metric by name, in display order."""

METRIC_TITLES: dict[str, tuple[str, str]] = {name: (m.title, m.formula) for name, m in REGRESSION_METRICS.items()}
"""Name -> (human title, formula), for renderers, in display order.

For example ``METRIC_TITLES["root_relative_squared_error"]`` is
``("Root relative squared error", "sqrt(Σ(p−a)² / Σ(a−ā)²)")``.
"""
