"""McNemar's test of two paired proportions.

On the 2 x 2 table of two classifiers' agreements (seed 004)::

                  M2 correct   M2 wrong
    M1 correct        a            b
    M1 wrong          c            d

only the discordant cells b and c carry information. Under the null
hypothesis of marginal homogeneity (p_b = p_c), b ~ Binomial(b + c, 1/2).
The same test on a binary confusion matrix compares its two off-diagonal cells
(false negatives against false positives), as caret reports it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args

import numpy as np

from assay.errors import InvalidInput
from assay.inference.distributions import binom_cdf, chi2_sf
from assay.inference.estimate import finite_or_none

__all__ = ["McNemarMethod", "MCNEMAR_METHODS", "McNemarResult", "mcnemar"]

McNemarMethod = Literal["auto", "chi2-corrected", "chi2", "exact"]
MCNEMAR_METHODS: tuple[str, ...] = get_args(McNemarMethod)

METHOD_TITLES = {
    "chi2-corrected": "McNemar chi-squared with continuity correction",
    "chi2": "McNemar chi-squared without continuity correction",
    "exact": "McNemar exact binomial",
}

EXACT_BELOW = 25
"""With ``method="auto"``, the exact test is used when b + c is below this."""


@dataclass(frozen=True)
class McNemarResult:
    """McNemar's test: statistic, p-value, and the discordant counts.

    ``statistic`` is always the chi-squared value for the chi-squared methods and
    always min(b, c) for the exact one: ``method`` says which, so a field never
    changes meaning with a flag.
    """

    statistic: float
    pvalue: float
    method: str
    b: int
    c: int
    df: int | None

    def significant(self, confidence: float) -> bool:
        return bool(self.pvalue < 1.0 - confidence)

    def verdict(self, confidence: float, *, what: str = "the two kinds of error") -> str:
        level = f"{confidence:.0%}"
        if self.b + self.c == 0:
            return f"no discordant pairs: the test cannot tell {what} apart"
        if self.significant(confidence):
            return f"at {level}, the difference between {what} is significant (p = {_p(self.pvalue)})"
        return f"at {level}, the difference between {what} is not significant (p = {_p(self.pvalue)})"

    def to_dict(self, confidence: float, *, what: str = "the two kinds of error") -> dict[str, Any]:
        return {
            "statistic": finite_or_none(self.statistic),
            "pvalue": finite_or_none(self.pvalue),
            "ci": None,
            "method": self.method,
            "verdict": self.verdict(confidence, what=what),
            "df": self.df,
            "b": self.b,
            "c": self.c,
            "significant": self.significant(confidence),
        }


def _p(p: float) -> str:
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def mcnemar(table: Any, *, method: McNemarMethod = "chi2-corrected") -> McNemarResult:
    """McNemar's test on a 2 x 2 table of paired outcomes.

    Parameters
    ----------
    table : array-like of shape (2, 2)
        ``[[a, b], [c, d]]``; the test uses the discordant cells b and c.
    method : {"chi2-corrected", "chi2", "exact", "auto"}, default "chi2-corrected"
        ``chi2-corrected``: X = (|b - c| - 1)^2 / (b + c) against chi-squared with
        1 degree of freedom (Edwards' continuity correction, seed 004);
        ``chi2``: X = (b - c)^2 / (b + c); ``exact``: the two-sided binomial
        test of b against Binomial(b + c, 1/2), p = min(1, 2 P(X <= min(b, c)));
        ``auto``: ``exact`` when b + c < 25, else ``chi2-corrected``.

    Returns
    -------
    McNemarResult
        With NaN statistic and p-value 1 when b + c = 0.

    Notes
    -----
    The corrected statistic uses max(|b - c| - 1, 0), so b = c gives X = 0 and
    p = 1; R's ``mcnemar.test`` and statsmodels square (|b - c| - 1) instead and
    give 1 / (b + c) in that one case.

    References
    ----------
    Q. McNemar (1947), Psychometrika 12:153-157. A. L. Edwards (1948),
    Psychometrika 13:185-187. T. G. Dietterich (1998), Neural Computation
    10:1895-1923.

    Examples
    --------
    Seed 004: M1 and M2 on the same 200 test instances.

    >>> r = mcnemar([[80, 40], [20, 60]])
    >>> round(r.statistic, 3), round(r.pvalue, 3)
    (6.017, 0.014)
    """
    t = _as_table(table)
    b, c = int(t[0, 1]), int(t[1, 0])
    if method not in MCNEMAR_METHODS:
        raise InvalidInput(f"{method!r} is not one of {list(MCNEMAR_METHODS)}", field="method")
    if method == "auto":
        method = "exact" if b + c < EXACT_BELOW else "chi2-corrected"
    if method == "exact":
        pvalue = 1.0 if b + c == 0 else min(1.0, 2.0 * binom_cdf(min(b, c), b + c, 0.5))
        return McNemarResult(float(min(b, c)), pvalue, "exact", b, c, None)
    if b + c == 0:
        return McNemarResult(float("nan"), 1.0, method, b, c, 1)
    diff = abs(b - c)
    if method == "chi2-corrected":
        diff = max(diff - 1, 0)
    statistic = diff * diff / (b + c)
    return McNemarResult(float(statistic), float(chi2_sf(statistic, 1)), method, b, c, 1)


def _as_table(table: Any) -> np.ndarray:
    try:
        t = np.asarray(table, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidInput("expected a 2 x 2 table of counts", field="table") from None
    if t.size == 4:
        t = t.reshape(2, 2)
    if t.shape != (2, 2):
        raise InvalidInput(f"expected a 2 x 2 table of counts, got shape {t.shape}", field="table")
    if not np.isfinite(t).all() or (t < 0).any() or not np.equal(np.floor(t), t).all():
        raise InvalidInput(f"counts must be whole numbers >= 0, got {t.astype(object).tolist()}", field="table")
    return t
