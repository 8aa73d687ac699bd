"""The few distribution functions inference needs, from ``scipy.special``.

``scipy.stats`` costs about a second to import; these ufuncs cost a tenth of
that, which keeps a whole ``assay report`` process quick to start.
"""

from __future__ import annotations

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
