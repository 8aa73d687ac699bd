"""Tests of two models from per-fold differences of a metric under resampling.

Each function takes the differences p = metric(model A) - metric(model B)
measured on the same folds (same training and test sets for both models), e.g.
differences of error rates, and tests whether their expectation is 0.

* ``paired_t_5x2cv`` (Dietterich 1998): 5 replications of 2-fold
  cross-validation, differences p_i^(j) of shape (5, 2). With p̄_i the mean of
  replication i and s_i^2 = (p_i^(1) - p̄_i)^2 + (p_i^(2) - p̄_i)^2,
  t = p_1^(1) / sqrt((1/5) sum_i s_i^2), Student t with 5 degrees of freedom.
* ``f_test_5x2cv`` (Alpaydin 1999): the same design,
  F = sum_i sum_j (p_i^(j))^2 / (2 sum_i s_i^2), F with (10, 5) degrees of
  freedom; more robust than the t version (it does not depend on which fold
  comes first).
* ``corrected_resampled_t`` (Nadeau & Bengio 2003): J results of repeated
  random subsampling or repeated k-fold, with n_train training and n_test test
  instances each; t = mean / sqrt((1/J + n_test/n_train) s^2), s^2 the sample
  variance (ddof 1), Student t with J - 1 degrees of freedom. The term
  n_test/n_train corrects for the overlap of the training sets, which makes the
  results correlated.
* ``paired_t``: the plain resampled paired t, t = mean / sqrt(s^2 / J). It
  treats correlated results as independent and so is *optimistic*: its type I
  error is far above the nominal level (Dietterich 1998; Nadeau & Bengio
  2003). It is here to be shown beside the corrected one, not instead of it.

The t tests come with the interval of the quantity they test, estimate ±
t_{(1+c)/2, df} SE, so that the interval excludes 0 exactly when the test is
significant; the F test has none.

References
----------
T. G. Dietterich (1998), Approximate statistical tests for comparing supervised
classification learning algorithms, Neural Computation 10:1895-1923.
E. Alpaydin (1999), Combined 5 x 2 cv F test for comparing supervised
classification learning algorithms, Neural Computation 11:1885-1892.
C. Nadeau, Y. Bengio (2003), Inference for the generalization error, Machine
Learning 52:239-281. R. R. Bouckaert, E. Frank (2004), Evaluating the
replicability of significance tests for comparing learning algorithms, PAKDD.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real
from typing import Any

import numpy as np

from assay.errors import InvalidInput
from assay.inference.testing import TwoSidedTest, validate_confidence
from assay.inference.distributions import f_sf, t_quantile, t_two_sided_p
from assay.inference.estimate import ConfidenceInterval, finite_or_none

__all__ = [
    "ResampledTResult",
    "FTestResult",
    "paired_t_5x2cv",
    "f_test_5x2cv",
    "corrected_resampled_t",
    "paired_t",
]

WHAT = "the difference between the two models"
NO_DIFFERENCE = "the two models' results are equal on every fold: no difference to test (p = 1)"
NO_VARIANCE = "the differences do not vary, so the statistic is undefined"


def _nested(x: np.ndarray) -> list[Any]:
    return [finite_or_none(v) for v in x] if x.ndim == 1 else [_nested(row) for row in x]


@dataclass(frozen=True, eq=False)
class ResampledTResult(TwoSidedTest):
    """A t test on resampled differences, with the interval of the quantity it tests.

    ``difference`` is the estimate the statistic is built on: the mean of the
    differences, or p_1^(1) for the 5 x 2 cv t test (``mean_difference`` is
    always the mean of all of them). ``se`` is the standard error in the
    denominator of t; ``ci`` = difference ± t_{(1+c)/2, df} se.

    When the differences do not vary, the statistic is NaN; the p-value is 1
    (and the interval [0, 0]) when they are all 0, NaN otherwise, and ``note``
    says why.
    """

    difference: float
    se: float
    statistic: float
    df: int
    pvalue: float
    confidence: float
    ci: ConfidenceInterval | None
    differences: np.ndarray
    method: str
    n_train: float | None = None
    n_test: float | None = None
    note: str | None = None

    def __post_init__(self) -> None:
        self.differences.setflags(write=False)

    @property
    def mean_difference(self) -> float:
        return _mean(self.differences)

    def interval(self, confidence: float) -> ConfidenceInterval | None:
        """difference ± t SE at another confidence level."""
        if not self.pvalue == self.pvalue:
            return None
        half = float(t_quantile(0.5 + confidence / 2.0, self.df)) * self.se
        return ConfidenceInterval(self.difference - half, self.difference + half)

    def to_dict(self, confidence: float | None = None, *, what: str = WHAT) -> dict[str, Any]:
        confidence = self.confidence if confidence is None else validate_confidence(confidence)
        return {
            **self.common_dict(confidence, what=what),
            "difference": finite_or_none(self.difference),
            "mean_difference": finite_or_none(self.mean_difference),
            "se": finite_or_none(self.se),
            "df": self.df,
            "differences": _nested(self.differences),
            "n_train": self.n_train,
            "n_test": self.n_test,
            "confidence": confidence,
            "note": self.note,
        }


@dataclass(frozen=True, eq=False)
class FTestResult(TwoSidedTest):
    """Alpaydin's combined 5 x 2 cv F test (no interval)."""

    ci = None  # an F test: no interval
    confidence = None

    statistic: float
    pvalue: float
    df_numerator: int
    df_denominator: int
    differences: np.ndarray
    note: str | None = None
    method: str = "combined 5x2cv F test (Alpaydin 1999)"

    def __post_init__(self) -> None:
        self.differences.setflags(write=False)

    @property
    def mean_difference(self) -> float:
        return _mean(self.differences)

    def to_dict(self, confidence: float, *, what: str = WHAT) -> dict[str, Any]:
        return {
            **self.common_dict(confidence, what=what),
            "mean_difference": finite_or_none(self.mean_difference),
            "df": [self.df_numerator, self.df_denominator],
            "differences": _nested(self.differences),
            "note": self.note,
        }


# ----------------------------------------------------------------------------
# validation


def _differences(values: Any, *, shape: tuple[int, int] | None = None) -> np.ndarray:
    try:
        x = np.array(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidInput("expected numbers (the per-fold differences of a metric)", field="differences") from None
    if shape is not None:
        if x.shape != shape:
            raise InvalidInput(f"expected shape {shape} (5 replications of 2-fold cross-validation), "
                               f"got {x.shape}", field="differences")
    elif x.ndim != 1 or len(x) < 2:
        raise InvalidInput(f"expected a 1-d array of at least two differences, got shape {x.shape}",
                           field="differences")
    finite = np.isfinite(x)
    if not finite.all():
        row = int(np.argmin(finite.reshape(-1)))
        raise InvalidInput(f"{x.reshape(-1)[row]!r} is not a finite number", field="differences", row=row)
    return x


def _positive(value: Any, field: str) -> int | float:
    if isinstance(value, bool) or not isinstance(value, Real) or not (math.isfinite(value) and value > 0):
        raise InvalidInput(f"expected a number of instances > 0, got {value!r}", field=field)
    return int(value) if float(value).is_integer() else float(value)


def _t_result(estimate: float, se: float, df: int, x: np.ndarray, confidence: float, method: str,
              n_train: float | None = None, n_test: float | None = None) -> ResampledTResult:
    nan = float("nan")
    if se == 0.0:
        if not x.any():
            return ResampledTResult(estimate, 0.0, nan, df, 1.0, confidence, ConfidenceInterval(0.0, 0.0), x,
                                    method, n_train, n_test, NO_DIFFERENCE)
        return ResampledTResult(estimate, 0.0, nan, df, nan, confidence, None, x, method, n_train, n_test,
                                NO_VARIANCE)
    t = estimate / se
    half = float(t_quantile(0.5 + confidence / 2.0, df)) * se
    return ResampledTResult(estimate, se, t, df, float(t_two_sided_p(t, df)), confidence,
                            ConfidenceInterval(estimate - half, estimate + half), x, method, n_train, n_test)


def _replication_variances(x: np.ndarray) -> np.ndarray:
    """s_i^2 of each replication of the 5 x 2 design, in units of ``_scale(x)`` squared."""
    y = x / _scale(x)
    centred = y - y.mean(axis=1, keepdims=True)
    return (centred * centred).sum(axis=1)


def _scale(x: np.ndarray) -> float:
    """The largest |difference| (1 when all are 0): sums of squares are taken in its units, so that large
    finite differences do not overflow; each test's statistic is the same in any unit."""
    top = float(np.max(np.abs(x))) if x.size else 0.0
    return top if top > 0.0 else 1.0


def _mean(x: np.ndarray) -> float:
    """The mean, in units of ``_scale(x)`` (the sum of large differences overflows)."""
    scale = _scale(x)
    return scale * float((x / scale).mean())


def _sample_variance_root(x: np.ndarray) -> float:
    """The sample standard deviation s (ddof 1), in units of ``_scale(x)`` then back: no overflow inside."""
    scale = _scale(x)
    return scale * math.sqrt(float(np.var(x / scale, ddof=1)))


# ----------------------------------------------------------------------------
# the tests


def paired_t_5x2cv(differences: Any, *, confidence: float = 0.95) -> ResampledTResult:
    """Dietterich's 5 x 2 cv paired t test.

    Parameters
    ----------
    differences : array-like of shape (5, 2)
        ``differences[i][j]``: metric(A) - metric(B) when training on one half
        of replication i and testing on the other (j = 0, 1), both models on
        the same halves.
    confidence : float in (0, 1), default 0.95

    Returns
    -------
    ResampledTResult
        t = p_1^(1) / sqrt((1/5) sum_i s_i^2) with 5 degrees of freedom; the
        interval is p_1^(1) ± t_{(1+c)/2, 5} SE.

    Raises
    ------
    InvalidInput
        When ``differences`` is not a (5, 2) table of finite numbers.

    Examples
    --------
    >>> d = [[0.1, 0.0], [0.05, 0.05], [0.0, 0.1], [0.1, 0.1], [0.05, 0.0]]
    >>> r = paired_t_5x2cv(d)
    >>> round(r.statistic, 4), r.df
    (2.1082, 5)
    """
    x = _differences(differences, shape=(5, 2))
    confidence = validate_confidence(confidence)
    se = _scale(x) * math.sqrt(_replication_variances(x).sum() / 5.0)
    return _t_result(float(x[0, 0]), se, 5, x, confidence, "5x2cv paired t test (Dietterich 1998)")


def f_test_5x2cv(differences: Any) -> FTestResult:
    """Alpaydin's combined 5 x 2 cv F test.

    Parameters
    ----------
    differences : array-like of shape (5, 2)
        As for ``paired_t_5x2cv``.

    Returns
    -------
    FTestResult
        F = sum p_i^(j)^2 / (2 sum_i s_i^2) against F(10, 5). NaN with a note
        when the s_i are all 0 (p = 1 when the differences are all 0).

    Examples
    --------
    >>> d = [[0.1, 0.0], [0.05, 0.05], [0.0, 0.1], [0.1, 0.1], [0.05, 0.0]]
    >>> r = f_test_5x2cv(d)
    >>> round(r.statistic, 4), (r.df_numerator, r.df_denominator)
    (2.1111, (10, 5))
    """
    x = _differences(differences, shape=(5, 2))
    denominator = 2.0 * float(_replication_variances(x).sum())
    nan = float("nan")
    if denominator == 0.0:
        if not x.any():
            return FTestResult(nan, 1.0, 10, 5, x, NO_DIFFERENCE)
        return FTestResult(nan, nan, 10, 5, x, NO_VARIANCE)
    y = x / _scale(x)
    statistic = float((y * y).sum()) / denominator
    return FTestResult(statistic, float(f_sf(statistic, 10, 5)), 10, 5, x)


def corrected_resampled_t(differences: Any, *, n_train: float, n_test: float,
                          confidence: float = 0.95) -> ResampledTResult:
    """Nadeau & Bengio's corrected resampled t test, with the interval of the mean difference.

    Parameters
    ----------
    differences : array-like of shape (J,), J >= 2
        metric(A) - metric(B) on each of J train/test splits (repeated random
        subsampling, or every fold of repeated k-fold cross-validation).
    n_train, n_test : number > 0
        The sizes of each split's training and test sets (for k-fold,
        n_test / n_train = 1 / (k - 1)).
    confidence : float in (0, 1), default 0.95

    Returns
    -------
    ResampledTResult
        t = mean / sqrt((1/J + n_test/n_train) s^2) with J - 1 degrees of
        freedom, and mean ± t_{(1+c)/2, J-1} SE.

    Raises
    ------
    InvalidInput
        On fewer than two differences, a difference that is not finite, or a
        size that is not a number > 0.

    Examples
    --------
    10-fold cross-validation repeated once, 90 training and 10 test instances:

    >>> d = [0.02, 0.05, -0.01, 0.03, 0.04, 0.0, 0.02, 0.06, 0.01, 0.03]
    >>> r = corrected_resampled_t(d, n_train=90, n_test=10)
    >>> round(r.statistic, 4), r.df
    (2.5039, 9)
    """
    x = _differences(differences)
    n_train = _positive(n_train, "n_train")
    n_test = _positive(n_test, "n_test")
    confidence = validate_confidence(confidence)
    j = len(x)
    se = math.sqrt(1.0 / j + n_test / n_train) * _sample_variance_root(x)
    return _t_result(_mean(x), se, j - 1, x, confidence,
                     "corrected resampled t test (Nadeau & Bengio 2003)", n_train, n_test)


def paired_t(differences: Any, *, confidence: float = 0.95) -> ResampledTResult:
    """The plain resampled paired t test: optimistic, kept for comparison.

    t = mean / sqrt(s^2 / J) with J - 1 degrees of freedom. On results of
    overlapping training sets (cross-validation, repeated subsampling) the
    differences are correlated and this t is too large: use
    ``corrected_resampled_t`` (or the 5 x 2 cv tests) to decide.

    Examples
    --------
    >>> r = paired_t([0.02, 0.05, -0.01, 0.03, 0.04, 0.0, 0.02, 0.06, 0.01, 0.03])
    >>> round(r.statistic, 4), round(r.difference, 3)
    (3.638, 0.025)
    """
    x = _differences(differences)
    confidence = validate_confidence(confidence)
    se = _sample_variance_root(x) / math.sqrt(len(x))
    return _t_result(_mean(x), se, len(x) - 1, x, confidence,
                     "resampled paired t test (uncorrected, optimistic)")
