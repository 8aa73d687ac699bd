"""Log-scale intervals for ratios of proportions and odds.

The likelihood ratios are ratios of two independent proportions,
LR+ = (TP/P) / (FP/N) and LR- = (FN/P) / (TN/N), so they get the log interval of
a risk ratio (Katz et al. 1978; Simel, Samsa & Matchar 1991 for likelihood
ratios). The diagnostic odds ratio (TP TN) / (FP FN) is the odds ratio of the
2 x 2 table and gets Woolf's (1955) log interval.
"""

from __future__ import annotations

import math

from assay.inference.distributions import normal_quantile
from assay.inference.estimate import ConfidenceInterval

__all__ = ["risk_ratio_ci", "odds_ratio_ci"]


def risk_ratio_ci(a: float, n1: float, c: float, n2: float, *, confidence: float) -> ConfidenceInterval | None:
    """Katz's log interval of (a/n1) / (c/n2); None when a or c is 0.

    exp(log RR ± z sqrt(1/a - 1/n1 + 1/c - 1/n2)).

    Examples
    --------
    >>> ci = risk_ratio_ci(80, 100, 10, 100, confidence=0.95)
    >>> round(ci.low, 3), round(ci.high, 3)
    (4.408, 14.52)
    """
    if a <= 0 or c <= 0 or n1 <= 0 or n2 <= 0:
        return None
    log_rr = math.log((a / n1) / (c / n2))
    se = math.sqrt(max(1.0 / a - 1.0 / n1 + 1.0 / c - 1.0 / n2, 0.0))
    z = float(normal_quantile(0.5 + confidence / 2.0))
    return ConfidenceInterval(math.exp(log_rr - z * se), math.exp(log_rr + z * se))


def odds_ratio_ci(a: float, b: float, c: float, d: float, *, confidence: float) -> ConfidenceInterval | None:
    """Woolf's log interval of (a d) / (b c); None when a cell is 0.

    exp(log OR ± z sqrt(1/a + 1/b + 1/c + 1/d)).
    """
    if min(a, b, c, d) <= 0:
        return None
    log_or = math.log(a * d / (b * c))
    se = math.sqrt(1.0 / a + 1.0 / b + 1.0 / c + 1.0 / d)
    z = float(normal_quantile(0.5 + confidence / 2.0))
    return ConfidenceInterval(math.exp(log_or - z * se), math.exp(log_or + z * se))
