"""The few distribution functions inference needs, from ``scipy.special``.

``scipy.stats`` costs about a second to import; these ufuncs cost a tenth of
that, which keeps a whole ``assay report`` process quick to start.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

__all__ = [
    "normal_quantile",
    "normal_two_sided_p",
    "normal_cdf",
    "chi2_sf",
    "binom_sf_at_least",
    "binom_cdf",
    "beta_ppf",
    "check_confidence",
    "t_cdf",
    "t_two_sided_p",
    "t_quantile",
    "f_sf",
    "critical_z",
    "z_confidence",
    "NormalTableEntry",
    "normal_table",
]


def check_confidence(confidence: float) -> float:
    """The confidence level as a float in (0, 1); see :func:`assay.checks.check_confidence`."""
    from assay.checks import check_confidence as check

    return check(confidence)


def normal_quantile(q: float | np.ndarray) -> float | np.ndarray:
    """Standard normal quantile: z with P(Z <= z) = q."""
    return special.ndtri(q)


def normal_cdf(z: float | np.ndarray) -> float | np.ndarray:
    return special.ndtr(z)


def normal_two_sided_p(z: float | np.ndarray) -> float | np.ndarray:
    """P(|Z| >= |z|) for a standard normal Z."""
    return 2.0 * special.ndtr(-np.abs(z))


def chi2_sf(x: float | np.ndarray, df: float) -> float | np.ndarray:
    """P(X >= x) for X chi-squared with ``df`` degrees of freedom."""
    return special.chdtrc(df, x)


def binom_sf_at_least(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p)."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    return float(special.bdtrc(k - 1, n, p))


def binom_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    return float(special.bdtr(k, n, p))


def beta_ppf(q: float | np.ndarray, a: float | np.ndarray, b: float | np.ndarray) -> float | np.ndarray:
    """Quantile of the Beta(a, b) distribution."""
    return special.betaincinv(a, b, q)


def t_cdf(t: float | np.ndarray, df: float) -> float | np.ndarray:
    """P(T <= t) for T Student-t with ``df`` degrees of freedom."""
    return special.stdtr(df, t)


def t_two_sided_p(t: float | np.ndarray, df: float) -> float | np.ndarray:
    """P(|T| >= |t|) for T Student-t with ``df`` degrees of freedom."""
    return 2.0 * special.stdtr(df, -np.abs(t))


def t_quantile(q: float | np.ndarray, df: float) -> float | np.ndarray:
    """Student-t quantile: t with P(T <= t) = q, ``df`` degrees of freedom."""
    return special.stdtrit(df, q)


def f_sf(x: float | np.ndarray, dfn: float, dfd: float) -> float | np.ndarray:
    """P(F >= x) for F Fisher-Snedecor with (``dfn``, ``dfd``) degrees of freedom."""
    return special.fdtrc(dfn, dfd, x)


# ----------------------------------------------------------------------------
# the normal table of the textbooks


def critical_z(confidence: float, *, two_sided: bool = True) -> float:
    """The z of a confidence level: the interval mean ± z sigma holds the true value with that confidence.

    Two-sided (the default), P(-z <= Z <= z) = confidence, the z of Witten & Frank's
    and Mitchell's tables (1.65 for 90%, 1.96 for 95%); one-sided, P(Z <= z) = confidence.

    Parameters
    ----------
    confidence : float in (0, 1)
    two_sided : bool, default True

    Raises
    ------
    InvalidInput
        On a confidence outside (0, 1).

    Examples
    --------
    >>> round(critical_z(0.9), 3), round(critical_z(0.95), 3), round(critical_z(0.95, two_sided=False), 3)
    (1.645, 1.96, 1.645)
    """
    c = check_confidence(confidence)
    tail = (1.0 - c) / 2.0 if two_sided else 1.0 - c
    return float(-special.ndtri(tail))  # from the small tail: accurate near c = 1


def z_confidence(z: float, *, two_sided: bool = True) -> float:
    """The confidence level of z (``critical_z`` inverted): P(-|z| <= Z <= |z|), or P(Z <= z) one-sided.

    Examples
    --------
    >>> round(z_confidence(1.53), 4), round(z_confidence(1.53, two_sided=False), 4)
    (0.874, 0.937)
    """
    from assay.checks import check_number

    x = check_number(z, "z")
    if two_sided:
        return float(special.erf(abs(x) / math.sqrt(2.0)))
    return float(special.ndtr(x))


@dataclass(frozen=True)
class NormalTableEntry:
    """A line of the normal table: z and its confidence levels, two-sided and one-sided.

    ``confidence`` is the level of the side asked for (``two_sided``);
    ``solved_for`` is ``"z"`` or ``"confidence"``.
    """

    z: float
    confidence: float
    two_sided: bool
    solved_for: str
    method: str = "standard normal distribution"

    @property
    def two_sided_confidence(self) -> float:
        """P(-|z| <= Z <= |z|)."""
        return float(special.erf(abs(self.z) / math.sqrt(2.0)))

    @property
    def one_sided_confidence(self) -> float:
        """P(Z <= z)."""
        return float(special.ndtr(self.z))

    @property
    def upper_tail(self) -> float:
        """P(Z >= z), the column of Witten & Frank's table."""
        return float(special.ndtr(-self.z))

    @property
    def sentence(self) -> str:
        level = f"{self.confidence * 100:.10g}%" if self.solved_for == "z" else f"{self.confidence * 100:.4g}%"
        if self.two_sided:
            return (f"With {level} confidence the true value lies within ±{self.z:.4g} standard deviations of "
                    f"the estimate (two-sided: {self.upper_tail * 100:.4g}% in each tail).")
        return (f"With {level} confidence the true value lies below the estimate + {self.z:.4g} standard "
                f"deviations (one-sided: {self.upper_tail * 100:.4g}% above).")

    def to_dict(self) -> dict[str, Any]:
        return {"solved_for": self.solved_for, "z": self.z, "confidence": self.confidence,
                "two_sided": self.two_sided, "two_sided_confidence": self.two_sided_confidence,
                "one_sided_confidence": self.one_sided_confidence, "upper_tail": self.upper_tail,
                "method": self.method, "sentence": self.sentence}


def normal_table(confidence: float | None = None, *, z: float | None = None,
                 two_sided: bool = True) -> NormalTableEntry:
    """The normal table both ways: the z of a confidence level, or the confidence level of a z.

    Give exactly one of ``confidence`` and ``z``.

    Raises
    ------
    InvalidInput
        When both or neither are given, or on a value out of range.

    Examples
    --------
    Witten & Frank, ch. 5: P(X >= z) = 5% at z = 1.65, a 90% two-sided interval.

    >>> e = normal_table(0.9)
    >>> round(e.z, 3), round(e.upper_tail, 3)
    (1.645, 0.05)
    >>> round(normal_table(z=1.53).two_sided_confidence, 3)
    0.874
    """
    from assay.errors import InvalidInput

    if (confidence is None) == (z is None):
        raise InvalidInput("give exactly one of confidence and z")
    if confidence is not None:
        c = check_confidence(confidence)
        return NormalTableEntry(critical_z(c, two_sided=two_sided), c, bool(two_sided), "z")
    from assay.checks import check_number

    x = check_number(z, "z")
    return NormalTableEntry(x, z_confidence(x, two_sided=two_sided), bool(two_sided), "confidence")
