"""Intervals for means of per-instance values and for ratios of means.

The losses of probabilistic predictions (Witten & Frank, *Data Mining*, section
5.6) are means of per-instance losses; their intervals come from the central
limit theorem. A relative loss is a ratio of two correlated means, whose interval
comes from the delta method.
"""

from __future__ import annotations

import math

from assay.inference.distributions import normal_quantile
from assay.inference.estimate import ConfidenceInterval

__all__ = ["Range", "ANY", "normal_mean_interval", "delta_ratio_interval"]


def _z(confidence: float) -> float:
    return float(normal_quantile(0.5 + confidence / 2.0))


Range = tuple[float, float]
"""The values a quantity can take; intervals are truncated to it."""

ANY: Range = (-math.inf, math.inf)


def _truncated(center: float, half: float, within: Range) -> ConfidenceInterval:
    return ConfidenceInterval(max(center - half, within[0]), min(center + half, within[1]))


def normal_mean_interval(
    mean: float, sd: float, n: int, *, confidence: float, within: Range = ANY
) -> ConfidenceInterval | None:
    """The central-limit interval of a mean: mean ± z s / √n; None when n < 2.

    ``within`` is the range of the values averaged (e.g. (0, 2) for the quadratic
    loss): the interval is truncated to it, as the normal interval of a
    proportion is truncated to [0, 1].

    Examples
    --------
    Losses 0 and 1: mean 0.5, s = 0.7071, half-width 1.95996 * 0.7071 / √2 = 0.97998.

    >>> ci = normal_mean_interval(0.5, math.sqrt(0.5), 2, confidence=0.95)
    >>> round(ci.low, 5), round(ci.high, 5)
    (-0.47998, 1.47998)
    >>> normal_mean_interval(0.5, math.sqrt(0.5), 2, confidence=0.95, within=(0.0, 1.0)).to_list()
    [0.0, 1.0]
    """
    if n < 2 or not (math.isfinite(mean) and math.isfinite(sd)):
        return None
    return _truncated(mean, _z(confidence) * sd / math.sqrt(n), within)


def delta_ratio_interval(
    value: float, se: float, *, confidence: float, within: Range = ANY
) -> ConfidenceInterval | None:
    """The delta-method interval of a ratio: R ± z se, truncated to ``within``; None when se is not finite."""
    if not (math.isfinite(value) and math.isfinite(se)):
        return None
    return _truncated(value, _z(confidence) * se, within)
