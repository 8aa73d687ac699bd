"""The difference of two error rates measured on independent test sets (Mitchell 1997, ch. 5).

Model M1 is tested on n1 instances with error rate e1, model M2 on another n2
instances with error rate e2. Each rate is approximately normal with variance
e(1 - e)/n, and the two are independent, so the difference d = e2 - e1 is
approximately normal with

    sigma^2 = e1 (1 - e1) / n1 + e2 (1 - e2) / n2.

The interval at confidence c is d ± z sigma, with z the (1 + c)/2 normal
quantile; the test of "no difference" is the z statistic d / sigma, whose
two-sided p-value p is also the threshold of the verdict: the difference is
significant at every confidence below 1 - p, and at none above it.

This module also holds the sentence every comparison in assay ends with
(``significance_verdict``), so that the tests of ``roc_compare``, ``cochran``,
``resampled`` and ``paired_bootstrap`` speak alike.

References
----------
T. M. Mitchell (1997), Machine Learning, section 5.5 (the worked example: e1 = 0.15,
significant from confidence 0.8733).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real
from typing import Any

from assay.errors import InvalidInput
from assay.inference.distributions import normal_quantile, normal_two_sided_p
from assay.inference.estimate import ConfidenceInterval, finite_or_none
from assay.inference.proportion import normal_rule, normal_rule_broken
from assay.inference.testing import (  # noqa: F401  (re-exported)
    TwoSidedTest,
    format_level,
    format_pvalue,
    significance_verdict,
    validate_confidence,
)

__all__ = [
    "DifferenceResult",
    "error_difference",
    "error_difference_from_counts",
    "significance_verdict",
    "format_pvalue",
    "format_level",
    "validate_confidence",
]


# ----------------------------------------------------------------------------
# the sentences shared by every comparison


@dataclass(frozen=True)
class DifferenceResult(TwoSidedTest):
    """Two independent error rates, their difference e2 - e1, its interval and z test.

    ``ci`` is the interval at ``confidence``; ``interval(c)`` gives it at any
    other level. ``statistic`` and ``pvalue`` are NaN, ``ci`` None and ``note``
    says why, when sigma is 0 (each rate 0 or 1). Otherwise ``note`` warns when a
    test set breaks Mitchell's rules of thumb for the normal approximation
    (n >= 30 and n·e(1 - e) >= 5).
    """

    WHAT = "the difference between the two error rates"

    difference: float
    se: float
    statistic: float
    pvalue: float
    confidence: float
    ci: ConfidenceInterval | None
    e1: float
    n1: int
    e2: float
    n2: int
    note: str | None = None
    method: str = "z test of two independent error rates (normal approximation)"

    def interval(self, confidence: float) -> ConfidenceInterval | None:
        """d ± z sigma at another confidence level."""
        if not self.se > 0:
            return None
        z = float(normal_quantile(0.5 + confidence / 2.0))
        return ConfidenceInterval(self.difference - z * self.se, self.difference + z * self.se)

    def to_dict(self, confidence: float | None = None) -> dict[str, Any]:
        confidence = self.confidence if confidence is None else validate_confidence(confidence)
        return {
            **self.common_dict(confidence),
            "difference": finite_or_none(self.difference),
            "se": finite_or_none(self.se),
            "e1": finite_or_none(self.e1),
            "n1": self.n1,
            "e2": finite_or_none(self.e2),
            "n2": self.n2,
            "confidence": confidence,
            "note": self.note,
        }


def _size(n: Any, field: str) -> int:
    if isinstance(n, bool) or not isinstance(n, Real) or not math.isfinite(float(n)) or float(n) != int(n):
        raise InvalidInput(f"expected a whole number of instances >= 1, got {n!r}", field=field)
    if int(n) < 1:
        raise InvalidInput(f"expected a whole number of instances >= 1, got {n!r}", field=field)
    return int(n)


def _rate(e: Any, field: str) -> float:
    if isinstance(e, bool) or not isinstance(e, Real) or not 0.0 <= float(e) <= 1.0:
        raise InvalidInput(f"expected an error rate between 0 and 1, got {e!r}", field=field)
    return float(e)


def error_difference(e1: float, n1: int, e2: float, n2: int, *, confidence: float = 0.95) -> DifferenceResult:
    """Interval and z test of the difference of two error rates on independent test sets.

    Parameters
    ----------
    e1, e2 : float in [0, 1]
        The error rates of model 1 and model 2.
    n1, n2 : int >= 1
        The sizes of their (independent) test sets.
    confidence : float in (0, 1), default 0.95

    Returns
    -------
    DifferenceResult
        ``difference`` = e2 - e1, ``se`` = sigma, ``ci`` = d ± z sigma,
        ``statistic`` = d / sigma, the two-sided ``pvalue`` and
        ``threshold_confidence`` = 1 - p.

    Raises
    ------
    InvalidInput
        On a rate outside [0, 1], a size that is not a whole number >= 1, or a
        confidence outside (0, 1), naming the argument.

    Notes
    -----
    sigma^2 = e1 (1 - e1) / n1 + e2 (1 - e2) / n2 (the unpooled Wald variance).
    The approximation wants, in each test set, n >= 30 and n e (1 - e) >= 5
    (Mitchell 1997, ch. 5, rules of thumb): below either, ``note`` says so and
    points to each rate's Wilson or Clopper-Pearson interval, which do not rely on
    it. When both rates are 0 or 1, sigma = 0: the statistic and p-value are NaN,
    the interval None, with a note.

    Examples
    --------
    M1 with 15% error on 30 instances, M2 with 25% on 5000.

    >>> r = error_difference(0.15, 30, 0.25, 5000)
    >>> round(r.difference, 3), round(r.ci.high - r.difference, 3)
    (0.1, 0.128)
    >>> r.significant(0.95), round(r.threshold_confidence, 4)
    (False, 0.8733)
    """
    e1, e2 = _rate(e1, "e1"), _rate(e2, "e2")
    n1, n2 = _size(n1, "n1"), _size(n2, "n2")
    confidence = validate_confidence(confidence)
    d = e2 - e1
    se = math.sqrt(e1 * (1.0 - e1) / n1 + e2 * (1.0 - e2) / n2)
    if se == 0.0:
        nan = float("nan")
        note = "both error rates are 0 or 1, so the normal approximation has no variance"
        return DifferenceResult(d, 0.0, nan, nan, confidence, None, e1, n1, e2, n2, note)
    z = d / se
    half = float(normal_quantile(0.5 + confidence / 2.0)) * se
    pvalue = float(normal_two_sided_p(z))
    return DifferenceResult(d, se, z, pvalue, confidence, ConfidenceInterval(d - half, d + half), e1, n1, e2, n2,
                            _normal_note(e1, n1, e2, n2))


def _normal_note(e1: float, n1: int, e2: float, n2: int) -> str | None:
    """The warning when a test set breaks Mitchell's rules of thumb, or None."""
    broken = [b for b in (normal_rule_broken(n1, e1, n_name="n1", p_name="e1"),
                          normal_rule_broken(n2, e2, n_name="n2", p_name="e2")) if b]
    if not broken:
        return None
    return (f"the normal approximation is unreliable here: {'; '.join(broken)} ({normal_rule('e')}, in each test "
            f"set): the Wilson or Clopper-Pearson interval of each error rate does not rely on it")


def error_difference_from_counts(k1: int, n1: int, k2: int, n2: int, *, confidence: float = 0.95) -> DifferenceResult:
    """``error_difference`` from the numbers of errors k1 of n1 and k2 of n2.

    Raises
    ------
    InvalidInput
        When a count is not a whole number between 0 and its n.

    Examples
    --------
    >>> r = error_difference_from_counts(3, 30, 10, 40)
    >>> r.e1, r.e2, r.difference
    (0.1, 0.25, 0.15)
    """
    n1, n2 = _size(n1, "n1"), _size(n2, "n2")
    for k, n, field in ((k1, n1, "k1"), (k2, n2, "k2")):
        if isinstance(k, bool) or not isinstance(k, Real) or not math.isfinite(float(k)) or float(k) != int(k) \
                or not 0 <= int(k) <= n:
            raise InvalidInput(f"expected a whole number of errors between 0 and {n}, got {k!r}", field=field)
    return error_difference(int(k1) / n1, n1, int(k2) / n2, n2, confidence=confidence)
