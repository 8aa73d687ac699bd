"""McNemar's test of two paired proportions.

On the 2 x 2 table of two classifiers' agreements (Dietterich 1998)::

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

from assay.checks import check_choice, check_count_table
from assay.errors import InvalidInput
from assay.inference.distributions import binom_cdf, chi2_sf
from assay.inference.estimate import finite_or_none
from assay.inputs import check_lengths, encode_labels

__all__ = ["McNemarMethod", "MCNEMAR_METHODS", "McNemarResult", "mcnemar", "paired_table", "mcnemar_predictions",
           "chi2_note"]

McNemarMethod = Literal["auto", "chi2-corrected", "chi2", "exact"]
MCNEMAR_METHODS: tuple[str, ...] = get_args(McNemarMethod)

METHOD_TITLES = {
    "chi2-corrected": "McNemar chi-squared with continuity correction",
    "chi2": "McNemar chi-squared without continuity correction",
    "exact": "McNemar exact binomial",
}

EXACT_BELOW = 25
"""With ``method="auto"``, the exact test is used when b + c is below this: the usual rule of thumb for the
chi-squared approximation of McNemar's test (b + c >= 25). The chi-squared methods asked for below it carry
a note (:data:`McNemarResult.note`) naming the rule and the exact test."""


def chi2_note(b: int, c: int) -> str | None:
    """The warning of a chi-squared McNemar test on fewer than 25 discordant pairs, or None.

    >>> chi2_note(4, 3)[:70]
    "McNemar's chi-squared approximation is unreliable here: b + c = 7 < 25"
    """
    if not 0 < b + c < EXACT_BELOW:
        return None
    return (f"McNemar's chi-squared approximation is unreliable here: b + c = {b + c:,} < {EXACT_BELOW} (the usual "
            f"rule of thumb asks b + c ≥ {EXACT_BELOW}): use the exact binomial test (method exact, or auto)")


@dataclass(frozen=True)
class McNemarResult:
    """McNemar's test: statistic, p-value, and the discordant counts.

    ``statistic`` is always the chi-squared value for the chi-squared methods and
    always min(b, c) for the exact one: ``method`` says which, so a field never
    changes meaning with a flag. ``note`` warns when a chi-squared method was used
    on fewer than 25 discordant pairs (JSON has the key only then).
    """

    statistic: float
    pvalue: float
    method: str
    b: int
    c: int
    df: int | None
    note: str | None = None

    def significant(self, confidence: float) -> bool:
        return bool(self.pvalue < 1.0 - confidence)

    def verdict(self, confidence: float, *, what: str = "the two kinds of error", adjusted: float | None = None,
                adjustment: str | None = None) -> str:
        """The sentence at ``confidence``; with ``adjusted`` (the p-value adjusted for multiple comparisons,
        ``adjustment`` saying how, e.g. "after Holm's adjustment for 3 comparisons"), about that p-value."""
        level = f"{confidence:.0%}"
        if self.b + self.c == 0:
            return f"no discordant pairs: the test cannot tell {what} apart"
        if adjusted is not None:
            how = adjustment or "after adjustment for multiple comparisons"
            word = "significant" if adjusted < 1.0 - confidence else "not significant"
            return f"at {level}, {how}, the difference between {what} is {word} (adjusted {_p(adjusted)})"
        if self.significant(confidence):
            return f"at {level}, the difference between {what} is significant ({_p(self.pvalue)})"
        return f"at {level}, the difference between {what} is not significant ({_p(self.pvalue)})"

    def to_dict(self, confidence: float, *, what: str = "the two kinds of error", adjusted: float | None = None,
                adjustment: str | None = None) -> dict[str, Any]:
        """The test as JSON; with ``adjusted``, its verdict and ``significant`` are those of the adjusted
        p-value (``pvalue`` stays the test's own)."""
        significant = self.significant(confidence) if adjusted is None else bool(adjusted < 1.0 - confidence)
        out = {
            "statistic": finite_or_none(self.statistic),
            "pvalue": finite_or_none(self.pvalue),
            "ci": None,
            "method": self.method,
            "verdict": self.verdict(confidence, what=what, adjusted=adjusted, adjustment=adjustment),
            "df": self.df,
            "b": self.b,
            "c": self.c,
            "significant": significant,
        }
        if self.note is not None:
            out["note"] = self.note
        return out


def _p(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def mcnemar(table: Any, *, method: McNemarMethod = "chi2-corrected") -> McNemarResult:
    """McNemar's test on a 2 x 2 table of paired outcomes.

    Parameters
    ----------
    table : array-like of shape (2, 2)
        ``[[a, b], [c, d]]``; the test uses the discordant cells b and c.
    method : {"chi2-corrected", "chi2", "exact", "auto"}, default "chi2-corrected"
        ``chi2-corrected``: X = (|b - c| - 1)^2 / (b + c) against chi-squared with
        1 degree of freedom (Edwards' continuity correction, Dietterich 1998);
        ``chi2``: X = (b - c)^2 / (b + c); ``exact``: the two-sided binomial
        test of b against Binomial(b + c, 1/2), p = min(1, 2 P(X <= min(b, c)));
        ``auto``: ``exact`` when b + c < 25, else ``chi2-corrected``.

    Returns
    -------
    McNemarResult
        With NaN statistic and p-value 1 when b + c = 0; with a ``note`` when a
        chi-squared method is used on b + c < 25 (the usual rule of thumb), which
        names the exact test.

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
    Two models, M1 and M2, on the same 200 test instances.

    >>> r = mcnemar([[80, 40], [20, 60]])
    >>> round(r.statistic, 3), round(r.pvalue, 3)
    (6.017, 0.014)
    """
    t = _as_table(table)
    b, c = int(t[0, 1]), int(t[1, 0])
    check_choice(method, MCNEMAR_METHODS, "method")
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
    return McNemarResult(float(statistic), float(chi2_sf(statistic, 1)), method, b, c, 1, chi2_note(b, c))


def _as_table(table: Any) -> np.ndarray:
    try:
        flat = np.asarray(table, dtype=object)
    except (TypeError, ValueError):
        flat = None
    if flat is not None and flat.size == 4 and flat.shape != (2, 2):
        table = flat.reshape(2, 2)
    return check_count_table(table, "table", shape=(2, 2))


def _as_correct(values: Any, field: str) -> np.ndarray:
    try:
        x = np.asarray(values)
    except (TypeError, ValueError):
        raise InvalidInput("expected a 1-d array of booleans (or 0/1)", field=field) from None
    if x.ndim != 1:
        raise InvalidInput(f"expected a 1-d array of booleans (or 0/1), got shape {x.shape}", field=field)
    if x.dtype == bool:
        return x
    if x.dtype.kind not in "iuf":
        raise InvalidInput("expected booleans (or 0/1)", field=field)
    bad = np.flatnonzero((x != 0) & (x != 1))
    if bad.size:
        raise InvalidInput(f"{x[bad[0]].item()!r} is not a boolean (or 0/1)", field=field, row=int(bad[0]))
    return x == 1


def paired_table(correct1: Any, correct2: Any) -> np.ndarray:
    """The 2 x 2 table of two classifiers' outcomes on the same instances (Dietterich 1998).

    Parameters
    ----------
    correct1, correct2 : array-like of bool (or 0/1), shape (n,)
        Whether model 1 (model 2) classifies each instance correctly.

    Returns
    -------
    ndarray of shape (2, 2), int64
        ``[[both correct, only model 1 correct], [only model 2 correct, both wrong]]``,
        the layout ``mcnemar`` takes (b = only model 1 correct, c = only model 2).

    Raises
    ------
    InvalidInput
        On values that are not booleans or 0/1, or lengths that differ.

    Examples
    --------
    >>> paired_table([1, 1, 0, 0, 1], [1, 0, 1, 0, 0]).tolist()
    [[1, 2], [1, 1]]
    """
    a = _as_correct(correct1, "correct1")
    b = _as_correct(correct2, "correct2")
    check_lengths({"correct1": len(a), "correct2": len(b)})
    cells = np.bincount((~a).astype(np.int64) * 2 + (~b).astype(np.int64), minlength=4)
    return cells.reshape(2, 2)


def mcnemar_predictions(y_true: Any, pred1: Any, pred2: Any, *, method: McNemarMethod = "auto") -> McNemarResult:
    """McNemar's test of two classifiers' predictions on the same instances.

    Parameters
    ----------
    y_true, pred1, pred2 : array-like of labels, shape (n,)
        The actual classes and the two models' predictions (any number of
        classes: only whether each prediction is right matters).
    method : {"auto", "chi2-corrected", "chi2", "exact"}, default "auto"
        ``auto`` is the exact binomial test when b + c < 25, else the
        chi-squared test with continuity correction.

    Returns
    -------
    McNemarResult
        With b the instances only model 1 gets right and c those only model 2
        gets right. Pass ``what="the two models' error rates"`` to its
        ``verdict`` and ``to_dict``.

    Raises
    ------
    InvalidInput
        On a missing label or lengths that differ (``y_true``, ``pred1``,
        ``pred2``), or an unknown method.

    Examples
    --------
    >>> y = ["a", "b", "a", "b", "a", "b"]
    >>> r = mcnemar_predictions(y, ["a", "b", "a", "b", "b", "a"], ["b", "a", "a", "a", "a", "a"])
    >>> r.method, r.b, r.c
    ('exact', 3, 1)
    """
    check_choice(method, MCNEMAR_METHODS, "method")
    codes = encode_labels({"y_true": y_true, "pred1": pred1, "pred2": pred2}).codes
    table = paired_table(codes["pred1"] == codes["y_true"], codes["pred2"] == codes["y_true"])
    return mcnemar(table, method=method)
