"""Cochran's Q: do m >= 2 classifiers have the same accuracy on the same instances?

On an (n, m) table of 0/1 outcomes (instance i classified correctly by model j),
with C_j the number of instances model j gets right, R_i the number of models
that get instance i right and N = sum C_j = sum R_i,

    Q = (m - 1) (m sum_j C_j^2 - N^2) / (m N - sum_i R_i^2),

which under the null hypothesis of equal accuracies is approximately
chi-squared with m - 1 degrees of freedom. Instances that every model gets
right, or every model gets wrong, add nothing to either sum's difference. With
m = 2, Q is McNemar's statistic without continuity correction, (b - c)^2 / (b + c).

References
----------
W. G. Cochran (1950), The comparison of percentages in matched samples,
Biometrika 37:256-266. Oracle: statsmodels ``stats.contingency_tables.cochrans_q``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from assay.errors import InvalidInput
from assay.inference.testing import TwoSidedTest
from assay.inference.distributions import chi2_sf
from assay.inference.estimate import finite_or_none

__all__ = ["CochranResult", "cochran_q", "cochran_q_from_totals"]


@dataclass(frozen=True)
class CochranResult(TwoSidedTest):
    """Cochran's Q, its chi-squared p-value, and the counts to recompute them.

    ``correct_counts`` holds C_j, the instances each model classifies
    correctly. The statistic and p-value are NaN, with a note, when every
    instance is classified correctly by all models or by none.
    """

    ci = None  # a chi-squared test of equal accuracies: no interval
    confidence = None

    statistic: float
    pvalue: float
    df: int
    n_instances: int
    correct_counts: tuple[int, ...]
    note: str | None = None
    method: str = "Cochran's Q test"

    def subject(self) -> str:
        return f"the difference between the accuracies of the {self.n_models} models"

    @property
    def n_models(self) -> int:
        return len(self.correct_counts)

    @property
    def accuracies(self) -> tuple[float, ...]:
        return tuple(c / self.n_instances for c in self.correct_counts)

    def to_dict(self, confidence: float) -> dict[str, Any]:
        return {
            **self.common_dict(confidence),
            "df": self.df,
            "n_models": self.n_models,
            "n_instances": self.n_instances,
            "correct_counts": list(self.correct_counts),
            "accuracies": [finite_or_none(a) for a in self.accuracies],
            "note": self.note,
        }


def cochran_q(correct: Any) -> CochranResult:
    """Cochran's Q test that m classifiers are equally accurate on the same instances.

    Parameters
    ----------
    correct : array-like of shape (n, m), values 0/1 or booleans
        ``correct[i, j]`` is 1 when model j classifies instance i correctly.

    Returns
    -------
    CochranResult
        Q, its chi-squared p-value with m - 1 degrees of freedom, and C_j.

    Raises
    ------
    InvalidInput
        When ``correct`` is not a 2-d table of 0/1 values with at least one row
        and at least two columns.

    Notes
    -----
    The formula is in the module docstring. Its denominator is 0 exactly when
    every instance is classified correctly by all models or by none: Q is then
    undefined (NaN, with a note), not 0.

    Examples
    --------
    Three models on six instances:

    >>> r = cochran_q([[1, 1, 0], [1, 0, 0], [1, 1, 1], [0, 1, 0], [1, 0, 0], [1, 1, 0]])
    >>> round(r.statistic, 4), r.df, r.correct_counts
    (5.2, 2, (5, 4, 1))
    """
    try:
        x = np.asarray(correct)
    except (TypeError, ValueError):
        raise InvalidInput("expected an (n, m) table of 0/1 outcomes", field="correct") from None
    if x.ndim != 2:
        raise InvalidInput(f"expected an (n, m) table of 0/1 outcomes, got shape {x.shape}", field="correct")
    n, m = x.shape
    if m < 2:
        raise InvalidInput(f"needs at least two models (columns), got {m}", field="correct")
    if n < 1:
        raise InvalidInput("needs at least one instance (row)", field="correct")
    if x.dtype != bool:
        if x.dtype.kind not in "iuf":
            raise InvalidInput("expected 0/1 values", field="correct")
        bad = np.argwhere((x != 0) & (x != 1))
        if len(bad):
            i, j = (int(v) for v in bad[0])
            raise InvalidInput(f"column {j}: {x[i, j].item()!r} is not 0 or 1", field="correct", row=i)
    ok = x.astype(np.int64)
    rows = ok.sum(axis=1)
    return cochran_q_from_totals(ok.sum(axis=0), int((rows * rows).sum()), n)


def cochran_q_from_totals(correct_counts: Any, row_squares: int, n: int) -> CochranResult:
    """Cochran's Q from what it depends on: each model's number of correct instances C_j, the sum over the
    instances of R_i^2 (R_i: how many models classify instance i correctly) and the number of instances.
    These add up over batches of instances, so data read in batches gets the same Q as :func:`cochran_q`.

    Examples
    --------
    >>> r = cochran_q_from_totals([5, 4, 1], 20, 6)
    >>> round(r.statistic, 4), r.correct_counts
    (5.2, (5, 4, 1))
    """
    cols = np.asarray(correct_counts, dtype=np.int64)
    m = len(cols)
    total = int(cols.sum())
    counts = tuple(int(c) for c in cols)
    denominator = m * total - int(row_squares)
    if denominator == 0:
        nan = float("nan")
        note = "every instance is classified correctly by all the models or by none: Q is undefined"
        return CochranResult(nan, nan, m - 1, n, counts, note)
    numerator = (m - 1) * (m * int((cols * cols).sum()) - total * total)
    statistic = numerator / denominator
    return CochranResult(float(statistic), float(chi2_sf(statistic, m - 1)), m - 1, n, counts)
