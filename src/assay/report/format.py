"""Numbers for people: rounded, with units, and "undefined" rather than a blank."""

from __future__ import annotations

import math

from assay.inference.estimate import Estimate

__all__ = ["percent", "number", "value_text", "ci_text", "estimate_cell", "percent_cell", "pvalue_text",
           "method_title", "level_text", "statistic_text"]

METHOD_TITLES = {
    "wilson": "Wilson",
    "clopper-pearson": "Clopper-Pearson",
    "agresti-coull": "Agresti-Coull",
    "jeffreys": "Jeffreys",
    "normal": "normal (Wald)",
    "bootstrap-percentile": "bootstrap",
    "fleiss-cohen-everitt": "Fleiss-Cohen-Everitt",
    "fleiss-cohen-everitt-weighted": "Fleiss-Cohen-Everitt (weighted)",
    "katz-log": "log (Katz)",
    "woolf-log": "log (Woolf)",
    "delong": "DeLong",
    "logit": "logit (Boyd et al.)",
    "normal-mean": "normal (CLT)",
    "delta-ratio": "delta method",
    "t-mean": "Student's t",
}


def method_title(method: str | None) -> str:
    if method is None:
        return ""
    return METHOD_TITLES.get(method, method)


def level_text(confidence: float) -> str:
    """95% for 0.95, 99.9% for 0.999."""
    text = f"{confidence * 100:.10g}"
    return f"{text}%"


def percent(x: float, digits: int = 1) -> str:
    return f"{x * 100:.{digits}f}%"


def number(x: float) -> str:
    """Three decimals below 1 (kappa, MCC, ...), three significant digits above (ratios).

    >>> number(0.49153), number(8.0), number(14.446), number(36.0), number(1234.5)
    ('0.492', '8.00', '14.4', '36.0', '1,234')
    """
    if not math.isfinite(x):
        return "infinite" if x > 0 else "undefined"
    a = abs(x)
    if a >= 1e15:  # past double precision's digits: not 300 digits of noise (a cost near the largest double)
        return f"{x:.4g}"
    if a >= 1000:
        return f"{x:,.0f}"
    if a >= 100:
        return f"{x:.0f}"
    if a >= 10:
        return f"{x:.1f}"
    if a >= 1:
        return f"{x:.2f}"
    return f"{x:.3f}"


def value_text(e: Estimate, *, as_percent: bool) -> str:
    if e.value is None:
        return "undefined"
    return percent(e.value) if as_percent else number(e.value)


def decimals(x: float) -> int:
    """The decimals :func:`number` gives ``x``."""
    a = abs(x)
    return 0 if a >= 100 else 1 if a >= 10 else 2 if a >= 1 else 3


def ci_text(e: Estimate, *, as_percent: bool) -> str:
    """The interval, its bounds at the decimals of the estimate (``0.999`` with ``0.993 – 1.000``, never
    ``1.00``), so that neighbouring cells read alike.

    >>> from assay.inference.estimate import ConfidenceInterval
    >>> ci_text(Estimate(0.999, ConfidenceInterval(0.9931, 1.0)), as_percent=False)
    '0.993 – 1.000'
    """
    if e.ci is None:
        return "—"
    if as_percent:
        return f"{e.ci.low * 100:.1f} – {e.ci.high * 100:.1f}%"
    low, high = e.ci.low, e.ci.high
    if not (math.isfinite(low) and math.isfinite(high)) or max(abs(low), abs(high)) >= 1e15:
        return f"{number(low)} – {number(high)}"
    d = decimals(e.value if e.value is not None and math.isfinite(e.value) else max(abs(low), abs(high)))
    return f"{low:,.{d}f} – {high:,.{d}f}"


def estimate_cell(e: Estimate | None, *, as_percent: bool, sign: bool = True) -> str:
    """An estimate with its interval in one table cell: '92.3% (89.8–94.2)' or '0.917 (0.893–0.941)'."""
    if e is None or e.value is None:
        return "—"
    if as_percent:
        text = f"{e.value * 100:.1f}" + ("%" if sign else "")
        return text if e.ci is None else f"{text} ({e.ci.low * 100:.1f}–{e.ci.high * 100:.1f})"
    text = f"{e.value:.3f}"
    dash = " – " if e.ci is not None and e.ci.low < 0 else "–"  # '(-0.988 – -0.856)', not '(-0.988–-0.856)'
    return text if e.ci is None else f"{text} ({e.ci.low:.3f}{dash}{e.ci.high:.3f})"


def percent_cell(e: Estimate) -> str:
    """A percentage with its interval in one cell, '80.0% (71.2–86.6)'; 'undefined' without a value."""
    if e.value is None:
        return "undefined"
    return estimate_cell(e, as_percent=True)


def pvalue_text(p: float | None) -> str:
    if p is None or not math.isfinite(p):
        return "—"
    if p < 0.001:
        return "< 0.001"
    return f"{p:.3f}"


SYMBOLS = {"delong": "z", "delong_unpaired": "t", "auc_bootstrap_unpaired": "D", "difference": "z", "cochran_q": "Q"}
"""The letter of each test's statistic (McNemar's depends on its method, the paired bootstrap has none)."""


def statistic_text(name: str, statistic: float | None, method: str | None = None) -> str:
    """A test's statistic with what it is: 'X² = 4.000' for McNemar's chi-squared, 'min(b, c) = 3' for its
    exact test (whose statistic is the smaller discordant count), 'z = 2.689' for DeLong's.

    >>> statistic_text("mcnemar", 3.0, "exact"), statistic_text("mcnemar", 4.0, "chi2-corrected")
    ('min(b, c) = 3', 'X² = 4.000')
    """
    if statistic is None or statistic != statistic:
        return "—"
    if name == "mcnemar":
        return f"min(b, c) = {statistic:.0f}" if method == "exact" else f"X² = {statistic:.3f}"
    symbol = SYMBOLS.get(name)
    return f"{symbol} = {statistic:.3f}" if symbol else "—"
