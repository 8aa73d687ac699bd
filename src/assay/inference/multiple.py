"""Adjusting p-values for multiple comparisons.

Holm's step-down method (Holm 1979) controls the family-wise error rate, the
probability of calling at least one true null hypothesis significant, at the
level alpha, for any dependence between the tests. With the k p-values in
ascending order p_(1) <= ... <= p_(k), the adjusted p-values are

    p~_(i) = min(1, max_{j <= i} (k - j + 1) p_(j)),

and hypothesis (i) is rejected at level alpha exactly when p~_(i) <= alpha, the
same decisions as the step-down procedure. It is uniformly more powerful than
Bonferroni's k p_(i).

References
----------
S. Holm (1979), A simple sequentially rejective multiple test procedure,
Scandinavian Journal of Statistics 6:65-70. Oracle: statsmodels
``stats.multitest.multipletests(p, method="holm")`` (and ``method="bonferroni"``
for Bonferroni's k p_i, capped at 1).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from assay.errors import InvalidInput

__all__ = ["holm", "bonferroni", "adjust", "ADJUSTMENTS", "ADJUSTMENT_TITLES"]

ADJUSTMENTS = ("holm", "bonferroni", "none")
"""The adjustments for multiple comparisons: Holm's step-down, Bonferroni's, or none."""

ADJUSTMENT_TITLES = {"holm": "Holm's", "bonferroni": "Bonferroni's"}
"""How a sentence names each adjustment: "after Holm's adjustment for 3 comparisons"."""


def holm(pvalues: Any) -> np.ndarray:
    """Holm's step-down adjustment of a family of p-values.

    Parameters
    ----------
    pvalues : array-like of shape (k,)
        The p-values of the family, each in [0, 1]; NaN for a test that could not
        be made.

    Returns
    -------
    ndarray of shape (k,), float64
        The adjusted p-values, in the order given: at least the p-values
        themselves, at most 1, and in the same order as them (a smaller p-value
        never gets a larger adjusted one). A NaN stays NaN and does not count in
        the size of the family.

    Raises
    ------
    InvalidInput
        On values that are not numbers in [0, 1] (or NaN), or an array that is not 1-d.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03]).tolist()
    [0.03, 0.06, 0.06]
    >>> holm([0.01, float("nan"), 0.04]).tolist()
    [0.02, nan, 0.04]
    """
    p = _checked(pvalues)
    out = np.full(p.shape, np.nan)
    tested = np.flatnonzero(~np.isnan(p))
    k = tested.size
    if k == 0:
        return out
    order = tested[np.argsort(p[tested], kind="stable")]
    steps = np.maximum.accumulate(p[order] * np.arange(k, 0, -1))
    out[order] = np.minimum(steps, 1.0)
    return out


def bonferroni(pvalues: Any) -> np.ndarray:
    """Bonferroni's adjustment of a family of p-values: min(1, k p_i).

    Parameters
    ----------
    pvalues : array-like of shape (k,)
        The p-values of the family, each in [0, 1]; NaN for a test that could not be made.

    Returns
    -------
    ndarray of shape (k,), float64
        The adjusted p-values, in the order given; a NaN stays NaN and does not count in the
        size of the family.

    Raises
    ------
    InvalidInput
        As :func:`holm`.

    Examples
    --------
    >>> bonferroni([0.01, 0.04, 0.03]).tolist()
    [0.03, 0.12, 0.09]
    >>> bonferroni([0.01, float("nan"), 0.6]).tolist()
    [0.02, nan, 1.0]
    """
    p = _checked(pvalues)
    k = int(np.count_nonzero(~np.isnan(p)))
    return np.minimum(p * k, 1.0)


def adjust(pvalues: Any, method: str) -> np.ndarray:
    """The p-values adjusted by ``method``, one of :data:`ADJUSTMENTS` (``"none"``: as they are).

    >>> adjust([0.01, 0.04], "none").tolist(), adjust([0.01, 0.04], "holm").tolist()
    ([0.01, 0.04], [0.02, 0.04])
    """
    if method == "holm":
        return holm(pvalues)
    if method == "bonferroni":
        return bonferroni(pvalues)
    if method == "none":
        return _checked(pvalues)
    raise InvalidInput(f"expected one of {', '.join(ADJUSTMENTS)}, got {method!r}", field="adjust")


def _checked(pvalues: Any) -> np.ndarray:
    try:
        p = np.asarray(pvalues, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidInput("expected a 1-d array of p-values", field="pvalues") from None
    if p.ndim != 1:
        raise InvalidInput(f"expected a 1-d array of p-values, got shape {p.shape}", field="pvalues")
    bad = np.flatnonzero(~np.isnan(p) & ~((p >= 0.0) & (p <= 1.0)))
    if bad.size:
        raise InvalidInput(f"{p[bad[0]].item()!r} is not a p-value (between 0 and 1)", field="pvalues",
                           row=int(bad[0]))
    return p
