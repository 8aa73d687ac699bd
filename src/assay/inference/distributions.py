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

from assay import checks
from assay.errors import InvalidInput

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
    "studentized_range_sf",
    "critical_z",
    "z_confidence",
    "NormalTableEntry",
    "normal_table",
]


def check_confidence(confidence: float) -> float:
    """The confidence level as a float in (0, 1); see :func:`assay.checks.check_confidence`."""
    return checks.check_confidence(confidence)


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


RANGE_STEP = 0.02
"""The step, in z and in q, of :func:`studentized_range_sf`'s trapezoid rule and of its table."""

RANGE_ZERO = 60.0
"""Past this q the studentized range's tail is below 1e-300 for any k up to 10^5 (at most k^2 Phi(-q/sqrt 2)):
:func:`studentized_range_sf` gives 0 there."""

_BLOCK = 2_000_000  # cells of one block of the quadrature (16 MB of float64)


def studentized_range_sf(q: Any, k: int) -> np.ndarray:
    """P(R >= q) for R the range of k independent standard normals: the studentized range with infinitely
    many degrees of freedom, at many q at once.

    Parameters
    ----------
    q : array-like of float
        The points (any shape); q <= 0 gives 1, q >= ``RANGE_ZERO`` gives 0.
    k : int >= 2
        The number of normals (of models, for the Nemenyi test).

    Returns
    -------
    numpy.ndarray of the shape of ``q``

    Notes
    -----
    With the largest of the k at z and at least one of the others below z - q,

        P(R >= q) = k ∫ φ(z) Φ(z)^(k-1) [1 - (1 - Φ(z - q)/Φ(z))^(k-1)] dz,

    the bracket computed as -expm1((k - 1) log1p(-r)), so that a small tail keeps its relative
    accuracy (SciPy's ``studentized_range.sf`` is 1 minus its cdf, to about 1e-11 absolute). The
    integral is the trapezoid rule with step ``RANGE_STEP`` over z in [-10, 10 + max(q/2, sqrt(2 ln k))]
    (for k = 2, where P = 2 Φ(-q/sqrt 2), within 1e-12 relative up to q = 50; SciPy's values within
    1e-12 absolute). The integral is taken once per distinct q; when there are more distinct q than a
    table over [0, max q] at step ``RANGE_STEP`` has nodes, it is taken at those nodes instead and
    log P interpolated by a cubic spline: within 1e-8 relative of the direct integral (checked for
    k = 2 to 5,000). Either way the cost does not grow with the number of q beyond a sort.

    Examples
    --------
    >>> [round(float(p), 4) for p in studentized_range_sf([0.0, 2.772, 3.314], 2)]
    [1.0, 0.05, 0.0191]
    """
    values = np.asarray(q, dtype=np.float64)
    flat = values.ravel()
    out = np.ones(flat.shape)
    out[np.isnan(flat)] = np.nan
    inside = (flat > 0.0) & (flat < RANGE_ZERO)
    out[flat >= RANGE_ZERO] = 0.0
    if inside.any():
        distinct, where = np.unique(flat[inside], return_inverse=True)
        top = float(distinct[-1])
        nodes = np.arange(0.0, top + 2.0 * RANGE_STEP, RANGE_STEP)
        if distinct.size <= nodes.size:
            out[inside] = _range_sf_integral(distinct, k)[where]
        else:
            from scipy.interpolate import CubicSpline  # lazy (assay.lazy_imports): only a long table of statistics

            tail = _range_sf_integral(nodes, k)
            positive = tail > 0.0
            last = float(nodes[positive][-1])
            spline = CubicSpline(nodes[positive], np.log(tail[positive]))
            table = np.where(distinct <= last, np.exp(spline(np.minimum(distinct, last))), 0.0)
            out[inside] = np.minimum(table, 1.0)[where]
    return out.reshape(values.shape)


def _range_sf_integral(q: np.ndarray, k: int) -> np.ndarray:
    """:func:`studentized_range_sf` by the trapezoid rule at each of ``q`` (finite, >= 0; inputs validated)."""
    top = 10.0 + max(float(q.max(initial=0.0)) / 2.0, math.sqrt(2.0 * math.log(k)))
    z = np.arange(-10.0, top + RANGE_STEP, RANGE_STEP)
    log_cdf = special.log_ndtr(z)
    weight = RANGE_STEP * np.exp(math.log(k) - 0.5 * z * z - 0.5 * math.log(2.0 * math.pi) + (k - 1) * log_cdf)
    keep = weight > 0.0  # the density of the largest of the k: zero far on the left when k is large
    z, log_cdf, weight = z[keep], log_cdf[keep], weight[keep]
    out = np.empty(q.shape)
    step = max(1, _BLOCK // max(z.size, 1))
    with np.errstate(divide="ignore"):
        for start in range(0, q.size, step):
            ratio = np.exp(special.log_ndtr(z[None, :] - q[start:start + step, None]) - log_cdf[None, :])
            out[start:start + step] = -np.expm1((k - 1) * np.log1p(-np.minimum(ratio, 1.0))) @ weight
    return np.minimum(out, 1.0)


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
    tail = (1.0 - c) / 2.0 if _check_flag(two_sided, "two_sided") else 1.0 - c
    return float(-special.ndtri(tail))  # from the small tail: accurate near c = 1


def z_confidence(z: float, *, two_sided: bool = True) -> float:
    """The confidence level of z (``critical_z`` inverted): P(-|z| <= Z <= |z|), or P(Z <= z) one-sided.

    Examples
    --------
    >>> round(z_confidence(1.53), 4), round(z_confidence(1.53, two_sided=False), 4)
    (0.874, 0.937)
    """
    x = checks.check_number(z, "z")
    if _check_flag(two_sided, "two_sided"):
        return float(special.erf(abs(x) / math.sqrt(2.0)))
    return float(special.ndtr(x))


def _check_flag(value: Any, field: str) -> bool:
    """True or False (numpy's too), refusing anything else: ``if value`` on an array raises ValueError."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise InvalidInput(f"must be True or False, got {checks.check_text(value)}", field=field)


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
    if (confidence is None) == (z is None):
        raise InvalidInput("give exactly one of confidence and z")
    two_sided = _check_flag(two_sided, "two_sided")
    if confidence is not None:
        c = check_confidence(confidence)
        return NormalTableEntry(critical_z(c, two_sided=two_sided), c, bool(two_sided), "z")
    x = checks.check_number(z, "z")
    return NormalTableEntry(x, z_confidence(x, two_sided=two_sided), bool(two_sided), "confidence")
