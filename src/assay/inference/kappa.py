"""Cohen's kappa with its large-sample standard error and interval."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from assay.checks import check_choice, check_confidence, check_count_table
from assay.errors import InvalidInput
from assay.inference.distributions import normal_quantile, normal_two_sided_p
from assay.inference.estimate import ConfidenceInterval, finite_or_none

__all__ = ["KappaResult", "kappa_test", "weighted_kappa_test", "KAPPA_WEIGHTS"]

KAPPA_WEIGHTS = ("linear", "quadratic")
"""Weights of the weighted kappa: agreement 1 - |i - j| / (k - 1), or 1 - (i - j)^2 / (k - 1)^2, by the classes'
positions 1..k in their order (as SAS, R's irr, yardstick and scikit-learn weigh them)."""


@dataclass(frozen=True)
class KappaResult:
    """Kappa, its standard errors, interval and the test of kappa = 0.

    ``se`` is the asymptotic standard error of Fleiss, Cohen & Everitt (1969)
    used for the interval; ``se_null`` is the one under kappa = 0, used for the
    z test (as SAS and statsmodels report them).
    """

    kappa: float
    chance_agreement: float
    se: float
    se_null: float
    confidence: float
    ci: ConfidenceInterval | None
    statistic: float
    pvalue: float
    method: str = "fleiss-cohen-everitt"
    weights: str | None = None  # the weighted kappa's weights ("linear", "quadratic"), None for Cohen's kappa

    def significant(self, confidence: float) -> bool:
        return bool(self.pvalue < 1.0 - confidence)

    def verdict(self, confidence: float) -> str:
        level = f"{confidence:.0%}"
        if not self.pvalue == self.pvalue:
            return "kappa is undefined: the test cannot be made"
        if self.significant(confidence) and self.kappa < 0:  # the test is two-sided
            return f"at {level}, the agreement with the truth is significantly worse than chance (kappa < 0)"
        if self.significant(confidence):
            return f"at {level}, the agreement with the truth is significantly better than chance (kappa > 0)"
        return f"at {level}, the agreement with the truth is not significantly different from chance"

    def to_dict(self, confidence: float | None = None) -> dict[str, Any]:
        confidence = self.confidence if confidence is None else confidence
        return {
            "statistic": finite_or_none(self.statistic),
            "pvalue": finite_or_none(self.pvalue),
            "verdict": self.verdict(confidence),
            "significant": self.significant(confidence),
            "kappa": finite_or_none(self.kappa),
            "chance_agreement": finite_or_none(self.chance_agreement),
            "se": finite_or_none(self.se),
            "se_null": finite_or_none(self.se_null),
            "ci": self.ci.to_list() if self.ci else None,
            "method": "z test of kappa = 0 (Fleiss, Cohen & Everitt standard error)",
            **({"weights": self.weights} if self.weights else {}),
        }


def kappa_test(matrix: Any, *, confidence: float = 0.95) -> KappaResult:
    """Cohen's kappa of a k x k agreement table, with interval and z test.

    Parameters
    ----------
    matrix : array-like of shape (k, k)
        Counts, rows actual and columns predicted (inputs validated).
    confidence : float, default 0.95

    Returns
    -------
    KappaResult
        NaN fields where the value is undefined (chance agreement of 1).

    Notes
    -----
    With p_ij = n_ij / n, row and column margins p_i. and p_.j, observed
    agreement P(A) = sum p_ii and chance agreement P(E) = sum p_i. p_.i,
    kappa = (P(A) - P(E)) / (1 - P(E)) and

    var = [A + B - C] / (n (1 - P(E))^2), where
    A = sum_i p_ii (1 - (p_i. + p_.i)(1 - kappa))^2,
    B = (1 - kappa)^2 sum_{i != j} p_ij (p_.i + p_j.)^2,
    C = (kappa - P(E)(1 - kappa))^2.

    The interval is kappa ± z sqrt(var), kept within [-1, 1].

    References
    ----------
    J. L. Fleiss, J. Cohen, B. S. Everitt (1969), Large sample standard errors of
    kappa and weighted kappa, Psychological Bulletin 72:323-327.

    Examples
    --------
    A 3-class example (kappa against the random predictor with the same marginals):

    >>> r = kappa_test([[88, 10, 2], [14, 40, 6], [18, 10, 12]])
    >>> round(r.kappa, 4), round(r.chance_agreement, 2)
    (0.4915, 0.41)
    """
    m = check_count_table(matrix, "matrix").astype(np.float64)
    confidence = check_confidence(confidence)
    n = m.sum()
    if n == 0:
        raise InvalidInput("the table has no instances", field="matrix")
    p = m / n
    rows = p.sum(axis=1)
    cols = p.sum(axis=0)
    pa = np.trace(p)
    pe = float(rows @ cols)
    if pe >= 1.0:
        nan = float("nan")
        return KappaResult(nan, pe, nan, nan, confidence, None, nan, nan)
    kappa = (pa - pe) / (1.0 - pe)
    diag = np.diag(p)
    term_a = float((diag * (1.0 - (rows + cols) * (1.0 - kappa)) ** 2).sum())
    weights = (cols[:, None] + rows[None, :]) ** 2
    off = p * weights
    np.fill_diagonal(off, 0.0)
    term_b = (1.0 - kappa) ** 2 * float(off.sum())
    term_c = (kappa - pe * (1.0 - kappa)) ** 2
    var = (term_a + term_b - term_c) / ((1.0 - pe) ** 2 * n)
    var_null = (pe + pe * pe - float((rows * cols * (rows + cols)).sum())) / ((1.0 - pe) ** 2 * n)
    return _result(m, float(kappa), pe, var, var_null, confidence)


def _result(m: np.ndarray, kappa: float, pe: float, var: float, var_null: float, confidence: float,
            **extra: Any) -> KappaResult:
    """Kappa's standard errors, interval and z test from its two variances (the estimate's, and under
    kappa = 0), shared by Cohen's and the weighted kappa."""
    # With a single non-empty row or column, kappa is 0 by construction and both variances
    # are 0: the test cannot be made (computed, they would be rounding noise).
    degenerate = (m.sum(axis=0) > 0).sum() < 2 or (m.sum(axis=1) > 0).sum() < 2
    se_null = 0.0 if degenerate else float(np.sqrt(max(var_null, 0.0)))
    # a constant or a perfect predictor: the variance is 0 exactly
    se = 0.0 if degenerate or np.count_nonzero(m - np.diag(np.diag(m))) == 0 else float(np.sqrt(max(var, 0.0)))
    z = float(normal_quantile(0.5 + confidence / 2.0))
    ci = ConfidenceInterval(max(kappa - z * se, -1.0), min(kappa + z * se, 1.0))
    if se_null > 0:
        statistic = kappa / se_null
        pvalue = float(normal_two_sided_p(statistic))
    else:
        statistic, pvalue = float("nan"), float("nan")
    return KappaResult(kappa, pe, se, se_null, confidence, ci, float(statistic), pvalue, **extra)


def agreement_weights(k: int, weights: str) -> np.ndarray:
    """The k x k agreement weights of the weighted kappa: 1 - |i - j| / (k - 1) (linear) or
    1 - (i - j)^2 / (k - 1)^2 (quadratic), by the classes' positions."""
    distance = np.abs(np.arange(k)[:, None] - np.arange(k)[None, :]) / max(k - 1, 1)
    return 1.0 - (distance if weights == "linear" else distance ** 2)


def weighted_kappa_test(matrix: Any, *, weights: str, confidence: float = 0.95) -> KappaResult:
    """Weighted kappa of a k x k table of ordered classes, with the Fleiss, Cohen & Everitt (1969) standard
    error, its interval and the z test of kappa_w = 0 (as SAS's PROC FREQ and statsmodels' ``cohens_kappa``).

    With agreement weights w_ij (``KAPPA_WEIGHTS``), p_o = sum w_ij p_ij, p_e = sum w_ij p_i. p_.j,
    kappa_w = (p_o - p_e) / (1 - p_e); with wbar_i = sum_j p_.j w_ij and wbar_j = sum_i p_i. w_ij,

    var = [sum p_ij (w_ij - (wbar_i + wbar_j)(1 - kappa_w))^2 - (kappa_w - p_e (1 - kappa_w))^2] / (n (1 - p_e)^2),
    var_0 = [sum p_i. p_.j (w_ij - (wbar_i + wbar_j))^2 - p_e^2] / (n (1 - p_e)^2).

    >>> r = weighted_kappa_test([[88, 10, 2], [14, 40, 6], [18, 10, 12]], weights="linear")
    >>> round(r.kappa, 4)
    0.4737
    """
    check_choice(weights, KAPPA_WEIGHTS, "kappa_weights")
    m = check_count_table(matrix, "matrix").astype(np.float64)
    confidence = check_confidence(confidence)
    n = m.sum()
    k = m.shape[0]
    if n == 0:
        raise InvalidInput("the table has no instances", field="matrix")
    if k < 2:
        raise InvalidInput("a weighted kappa needs at least two classes", field="matrix")
    w = agreement_weights(k, weights)
    p = m / n
    rows, cols = p.sum(axis=1), p.sum(axis=0)
    po = float((w * p).sum())
    pe = float((w * np.outer(rows, cols)).sum())
    if pe >= 1.0:
        nan = float("nan")
        return KappaResult(nan, pe, nan, nan, confidence, None, nan, nan, weights=weights)
    kappa = (po - pe) / (1.0 - pe)
    wbar_rows = w @ cols  # wbar_i. = sum_j p_.j w_ij
    wbar_cols = rows @ w  # wbar_.j = sum_i p_i. w_ij
    spread = wbar_rows[:, None] + wbar_cols[None, :]
    var = (float((p * (w - spread * (1.0 - kappa)) ** 2).sum()) - (kappa - pe * (1.0 - kappa)) ** 2) \
        / (n * (1.0 - pe) ** 2)
    var_null = (float((np.outer(rows, cols) * (w - spread) ** 2).sum()) - pe * pe) / (n * (1.0 - pe) ** 2)
    return _result(m, float(kappa), pe, var, var_null, confidence, method="fleiss-cohen-everitt-weighted",
                   weights=weights)
