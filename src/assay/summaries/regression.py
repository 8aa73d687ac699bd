"""Sums of numeric predictions: the mergeable summary behind every regression metric.

A ``RegressionSummary`` holds, for one chunk of (actual, predicted) pairs, the sums
that the errors of numeric prediction (Witten & Frank, section 5.8) are made of.
Summaries of disjoint parts of the data merge into the summary of the whole:
``merge`` is commutative and associative (exactly for the counts and the actual
values, to rounding for the float sums), and ``empty()`` is its identity.

What is kept, and why
---------------------
* Plain sums that add up: ``n``, Σp, Σ(p − a), Σ(p − a)², Σ|p − a|, the errors
  relative to the prediction Σ((p − a)/p)² and Σ|p − a|/|p| (over the rows with
  p ≠ 0), the count of p = 0, and the smallest and largest prediction.
* The **distinct actual values with their counts** (sorted). Σ|a − ā|, the
  denominator of the relative absolute error, cannot be built from sums: ā is known
  only once every part is merged, and |a − ā| does not split over a sum. So this
  summary keeps every distinct actual value, and merges them exactly. Its size grows
  with the number of distinct actual values (torchmetrics' "cat" state), not with
  n: integer or rounded targets stay small; continuous targets cost one value and
  one count per instance. From them come Σa, ā and Σ(a − ā)², exactly as one pass
  over all the data would give them, whatever the merge order.
* The spread of the predictions and their co-spread with the actual values as
  **centred** sums, Σ(p − p̄)² and Σ(a − ā)(p − p̄), merged with the update of Chan,
  Golub & LeVeque (1979), instead of the raw power sums Σp², Σap. The raw sums lose
  every digit when the spread is small beside the mean (Σp² − (Σp)²/n is a
  difference of two nearly equal numbers: predictions near 1e6 that vary by 0.01
  leave nothing of the variance in float64); the centred ones keep it.

References
----------
I. H. Witten and E. Frank, *Data Mining*, section 5.8.
T. F. Chan, G. H. Golub and R. J. LeVeque, "Updating formulae and a pairwise
algorithm for computing sample variances", Stanford CS report STAN-CS-79-773 (1979).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from assay.inputs import as_scores, check_lengths

__all__ = ["RegressionSummary", "regression_summary"]

_FLOAT_FIELDS = (
    "sum_pred",
    "min_pred",
    "max_pred",
    "m2_pred",
    "comoment",
    "sum_error",
    "sum_sq_error",
    "sum_abs_error",
    "sum_sq_rel_error",
    "sum_abs_rel_error",
)


@dataclass(frozen=True, eq=False)
class RegressionSummary:
    """Sums over a chunk of (actual a, predicted p) pairs, mergeable across chunks.

    Parameters
    ----------
    n : int
        Number of pairs.
    sum_pred : float
        Σp.
    min_pred, max_pred : float
        The smallest and largest prediction (+inf and -inf when ``n`` is 0). They
        tell constant predictions apart from rounding: the correlation is then
        undefined, not the quotient of two rounding errors.
    m2_pred : float
        Σ(p − p̄)², the predictions' sum of squared deviations.
    comoment : float
        Σ(a − ā)(p − p̄).
    sum_error : float
        Σ(p − a), the signed errors.
    sum_sq_error : float
        Σ(p − a)².
    sum_abs_error : float
        Σ|p − a|.
    sum_sq_rel_error : float
        Σ((p − a)/p)² over the pairs with p ≠ 0.
    sum_abs_rel_error : float
        Σ|p − a|/|p| over the pairs with p ≠ 0.
    zero_predictions : int
        Pairs with p = 0, where the error relative to the prediction is undefined.
    actual_values : ndarray of shape (k,), float64
        The distinct actual values, increasing.
    actual_counts : ndarray of shape (k,), int64
        How often each occurs; they add up to ``n``.

    Examples
    --------
    >>> s = RegressionSummary.from_arrays([2, 4, 6, 8], [3, 4, 5, 10])
    >>> s.n, s.sum_sq_error, s.sum_abs_error, s.mean_actual
    (4, 6.0, 4.0, 5.0)
    >>> s.m2_actual, s.abs_dev_actual
    (20.0, 8.0)
    >>> half = RegressionSummary.from_arrays([2, 4], [3, 4]).merge(RegressionSummary.from_arrays([6, 8], [5, 10]))
    >>> half.sum_sq_error, half.m2_pred, half.comoment
    (6.0, 29.0, 22.0)
    """

    n: int
    sum_pred: float
    min_pred: float
    max_pred: float
    m2_pred: float
    comoment: float
    sum_error: float
    sum_sq_error: float
    sum_abs_error: float
    sum_sq_rel_error: float
    sum_abs_rel_error: float
    zero_predictions: int
    actual_values: np.ndarray
    actual_counts: np.ndarray

    def __post_init__(self) -> None:
        values = np.asarray(self.actual_values, dtype=np.float64).reshape(-1)
        counts = np.asarray(self.actual_counts, dtype=np.int64).reshape(-1)
        if values.shape != counts.shape:
            raise ValueError(f"{values.size} actual values but {counts.size} counts")
        if int(counts.sum()) != int(self.n):
            raise ValueError(f"the counts of the actual values add up to {int(counts.sum())}, not n = {self.n}")
        values = values.copy()
        counts = counts.copy()
        values.setflags(write=False)
        counts.setflags(write=False)
        object.__setattr__(self, "actual_values", values)
        object.__setattr__(self, "actual_counts", counts)
        object.__setattr__(self, "n", int(self.n))
        object.__setattr__(self, "zero_predictions", int(self.zero_predictions))
        for name in _FLOAT_FIELDS:
            object.__setattr__(self, name, float(getattr(self, name)))

    # construction -------------------------------------------------------------

    @classmethod
    def empty(cls) -> RegressionSummary:
        """The identity of ``merge``: no pairs."""
        return cls(0, 0.0, np.inf, -np.inf, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0,
                   np.zeros(0, dtype=np.float64), np.zeros(0, dtype=np.int64))

    @classmethod
    def from_arrays(cls, y_true: Any, y_pred: Any) -> RegressionSummary:
        """The summary of one chunk (inputs validated: equal lengths, finite numbers).

        The centred sums are computed in two passes (deviations from this chunk's
        means), the accurate way.
        """
        a = np.asarray(y_true, dtype=np.float64).reshape(-1)
        p = np.asarray(y_pred, dtype=np.float64).reshape(-1)
        n = a.size
        if n == 0:
            return cls.empty()
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            values, counts = np.unique(a + 0.0, return_counts=True)  # + 0.0 makes -0.0 into 0.0
            e = p - a
            dp = p - p.mean()
            da = a - a.mean()
            nonzero = p != 0
            rel = e[nonzero] / p[nonzero]
            return cls(
                n=n,
                sum_pred=float(p.sum()),
                min_pred=float(p.min()),
                max_pred=float(p.max()),
                m2_pred=float(np.dot(dp, dp)),
                comoment=float(np.dot(da, dp)),
                sum_error=float(e.sum()),
                sum_sq_error=float(np.dot(e, e)),
                sum_abs_error=float(np.abs(e).sum()),
                sum_sq_rel_error=float(np.dot(rel, rel)),
                sum_abs_rel_error=float(np.abs(rel).sum()),
                zero_predictions=int(n - np.count_nonzero(nonzero)),
                actual_values=values,
                actual_counts=counts,
            )

    # algebra ------------------------------------------------------------------

    def merge(self, other: RegressionSummary) -> RegressionSummary:
        """The summary of both parts.

        Plain sums add; the distinct actual values are united and their counts
        added (exact); the centred sums follow Chan et al.:
        M2 = M2_A + M2_B + δ² n_A n_B / n and likewise for the co-moment.
        """
        if other.n == 0:
            return self
        if self.n == 0:
            return other
        n = self.n + other.n
        weight = self.n * other.n / n
        with np.errstate(over="ignore", invalid="ignore"):
            d_pred = other.mean_pred - self.mean_pred
            d_actual = other.mean_actual - self.mean_actual
            values = np.union1d(self.actual_values, other.actual_values)
            counts = np.zeros(values.size, dtype=np.int64)
            counts[np.searchsorted(values, self.actual_values)] += self.actual_counts
            counts[np.searchsorted(values, other.actual_values)] += other.actual_counts
            return RegressionSummary(
                n=n,
                sum_pred=self.sum_pred + other.sum_pred,
                min_pred=min(self.min_pred, other.min_pred),
                max_pred=max(self.max_pred, other.max_pred),
                m2_pred=self.m2_pred + other.m2_pred + d_pred * d_pred * weight,
                comoment=self.comoment + other.comoment + d_actual * d_pred * weight,
                sum_error=self.sum_error + other.sum_error,
                sum_sq_error=self.sum_sq_error + other.sum_sq_error,
                sum_abs_error=self.sum_abs_error + other.sum_abs_error,
                sum_sq_rel_error=self.sum_sq_rel_error + other.sum_sq_rel_error,
                sum_abs_rel_error=self.sum_abs_rel_error + other.sum_abs_rel_error,
                zero_predictions=self.zero_predictions + other.zero_predictions,
                actual_values=values,
                actual_counts=counts,
            )

    def __eq__(self, other: object) -> bool:
        """Exact equality of every field (use a tolerance for merged float sums)."""
        if not isinstance(other, RegressionSummary):
            return NotImplemented
        return (
            self.n == other.n
            and self.zero_predictions == other.zero_predictions
            and all(getattr(self, f) == getattr(other, f) for f in _FLOAT_FIELDS)
            and np.array_equal(self.actual_values, other.actual_values)
            and np.array_equal(self.actual_counts, other.actual_counts)
        )

    def __hash__(self) -> int:
        return hash((self.n, self.zero_predictions, *(getattr(self, f) for f in _FLOAT_FIELDS),
                     self.actual_values.tobytes(), self.actual_counts.tobytes()))

    # reading ------------------------------------------------------------------

    @cached_property
    def sum_actual(self) -> float:
        """Σa, from the distinct values (the same whatever the merge order)."""
        return float(np.sum(self.actual_values * self.actual_counts))

    @property
    def mean_actual(self) -> float:
        """ā = Σa / n: the prediction of the trivial model that always predicts the mean (NaN if n = 0)."""
        return self.sum_actual / self.n if self.n else float("nan")

    @property
    def mean_pred(self) -> float:
        """p̄ = Σp / n (NaN if n = 0)."""
        return self.sum_pred / self.n if self.n else float("nan")

    @property
    def constant_actual(self) -> bool:
        """True when every actual value is the same (or there are none)."""
        return self.actual_values.size <= 1

    @property
    def constant_pred(self) -> bool:
        """True when every prediction is the same (or there are none)."""
        return self.n == 0 or self.min_pred == self.max_pred

    @cached_property
    def m2_actual(self) -> float:
        """Σ(a − ā)², the squared error of always predicting the mean (two passes, exact 0 if constant)."""
        if self.constant_actual:
            return 0.0
        with np.errstate(over="ignore", invalid="ignore"):
            d = self.actual_values - self.mean_actual
            return float(np.dot(d * d, self.actual_counts))

    @cached_property
    def abs_dev_actual(self) -> float:
        """Σ|a − ā|, the absolute error of always predicting the mean (exact 0 if constant)."""
        if self.constant_actual:
            return 0.0
        with np.errstate(over="ignore", invalid="ignore"):
            return float(np.dot(np.abs(self.actual_values - self.mean_actual), self.actual_counts))

    def __repr__(self) -> str:
        return (f"RegressionSummary(n={self.n}, mean_actual={self.mean_actual!r}, mean_pred={self.mean_pred!r}, "
                f"sum_sq_error={self.sum_sq_error!r}, sum_abs_error={self.sum_abs_error!r}, "
                f"distinct_actual={self.actual_values.size})")


def regression_summary(y_true: Any, y_pred: Any) -> RegressionSummary:
    """The summary of actual and predicted numbers (lists, numpy, pandas, polars).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        Actual and predicted values: finite numbers, equal lengths (n may be 0).

    Raises
    ------
    InvalidInput
        Naming the first missing, non-numeric or non-finite value, or lengths that differ.

    Examples
    --------
    >>> s = regression_summary([1, 2, 3], [1, 2, 5])
    >>> s.sum_sq_error, s.sum_error
    (4.0, 2.0)
    """
    a = as_scores(y_true, "y_true")
    p = as_scores(y_pred, "y_pred")
    check_lengths({"y_true": len(a), "y_pred": len(p)})
    return RegressionSummary.from_arrays(a, p)
