"""What every test result shares: its verdict in words, significance and the common JSON keys.

A result is a frozen dataclass with (at least) ``pvalue``, ``confidence``,
``ci``, ``method`` and ``note``; mixing in ``TwoSidedTest`` gives it
``significant``, ``threshold_confidence``, ``verdict`` and ``common_dict``.
"""

from __future__ import annotations

import math
from typing import Any

from assay.checks import check_confidence
from assay.inference.estimate import ConfidenceInterval, finite_or_none

__all__ = ["format_pvalue", "format_level", "significance_verdict", "validate_confidence", "TwoSidedTest"]


def format_pvalue(p: float) -> str:
    """A p-value as verdicts print it: "p = " with three decimals, or "p < 0.001".

    >>> format_pvalue(0.12670), format_pvalue(0.0004)
    ('p = 0.127', 'p < 0.001')
    """
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def format_level(confidence: float) -> str:
    """A confidence level as a percentage without needless digits.

    >>> format_level(0.95), format_level(0.975)
    ('95%', '97.5%')
    """
    return f"{confidence * 100:.10g}%"


def significance_verdict(what: str, pvalue: float, confidence: float, *, note: str | None = None,
                         adjustment: str | None = None) -> str:
    """The plain sentence of a two-sided test at one confidence level.

    Parameters
    ----------
    what : str
        The subject, e.g. ``"the difference between the two error rates"``.
    pvalue : float
        NaN when the test cannot be made; ``note`` then says why.
    confidence : float
    adjustment : str, optional
        When ``pvalue`` is adjusted for multiple comparisons, how, e.g.
        ``"after Holm's adjustment for 3 comparisons"``: said after the level, and
        the p-value is called "adjusted p".

    Returns
    -------
    str
        The verdict, followed by the confidence at which it would change: the
        difference is significant exactly at the confidence levels below 1 - p.
        The level quoted is rounded *towards* the side that keeps the sentence
        true (down when not significant, up when significant).

    Examples
    --------
    >>> print(significance_verdict("the difference between the two error rates", 0.1267, 0.95))
    at 95%, the difference between the two error rates is not significant (p = 0.127);
    it would be at a confidence below 87.3%
    >>> print(significance_verdict("the difference", 0.014, 0.95))
    at 95%, the difference is significant (p = 0.014); it would not be at a confidence of 98.6% or more
    >>> print(significance_verdict("the difference", 0.042, 0.95, adjustment="after Holm's adjustment"))
    at 95%, after Holm's adjustment, the difference is significant (adjusted p = 0.042);
    it would not be at a confidence of 95.8% or more
    """
    lead = f"at {format_level(confidence)}, " + (f"{adjustment}, " if adjustment else "")
    if not pvalue == pvalue:
        reason = f": {note}" if note else ""
        return f"{lead}{what} cannot be tested{reason}"
    threshold = 1.0 - pvalue
    head = f"{lead}{what} is"
    ptext = ("adjusted " if adjustment else "") + format_pvalue(pvalue)
    if pvalue < 1.0 - confidence:
        sentence = f"{head} significant ({ptext})"
        if pvalue >= 0.001:
            above = math.ceil(threshold * 1000.0 - 1e-9) / 10.0
            sentence += f"; it would not be at a confidence of {above:.1f}% or more"
        return sentence
    sentence = f"{head} not significant ({ptext})"
    below = math.floor(threshold * 1000.0 + 1e-9) / 10.0
    if below > 0:
        sentence += f"; it would be at a confidence below {below:.1f}%"
    elif pvalue >= 1.0:
        sentence += "; it would not be at any confidence"
    else:
        sentence += "; it would not be at any usual confidence"
    return sentence


def validate_confidence(confidence: Any) -> float:
    """The confidence level as a float in (0, 1); InvalidInput naming ``confidence`` otherwise."""
    return check_confidence(confidence)


# ----------------------------------------------------------------------------
# the difference of two independent error rates


class TwoSidedTest:
    """Shared behaviour of a two-sided test's result (a mixin for frozen dataclasses)."""

    WHAT = "the difference between the two models"

    def subject(self) -> str:
        """What the verdict is about, e.g. "the difference between the two AUCs"."""
        return self.WHAT

    @property
    def threshold_confidence(self) -> float:
        """The confidence below which the difference is significant: 1 - p."""
        return 1.0 - self.pvalue

    def significant(self, confidence: float) -> bool:
        return bool(self.pvalue < 1.0 - confidence)

    def interval(self, confidence: float) -> ConfidenceInterval | None:
        """The interval at another confidence level (by default none beyond the one computed)."""
        return self.ci if confidence == self.confidence else None

    def verdict(self, confidence: float | None = None, *, what: str | None = None, adjusted: float | None = None,
                adjustment: str | None = None) -> str:
        """The sentence at ``confidence``; with ``adjusted`` (a p-value adjusted for multiple comparisons,
        ``adjustment`` saying how), about that p-value instead of the test's own."""
        confidence = self.confidence if confidence is None else confidence
        if adjusted is not None:
            return significance_verdict(what or self.subject(), adjusted, confidence, note=self.note,
                                        adjustment=adjustment or "after adjustment for multiple comparisons")
        return significance_verdict(what or self.subject(), self.pvalue, confidence, note=self.note)

    def statistic_value(self) -> float:
        return self.statistic

    def common_dict(self, confidence: float | None = None, *, what: str | None = None,
                    adjusted: float | None = None, adjustment: str | None = None) -> dict[str, Any]:
        """The keys every test has: statistic, pvalue, ci, method, verdict, significant, threshold_confidence.

        With ``adjusted``, a p-value adjusted for multiple comparisons (``adjustment`` says how), the
        verdict, ``significant`` and ``threshold_confidence`` are those of the adjusted p-value; ``pvalue``
        stays the test's own.
        """
        confidence = self.confidence if confidence is None else validate_confidence(confidence)
        ci = self.ci if confidence == self.confidence else self.interval(confidence)
        if adjusted is None:
            significant, threshold = self.significant(confidence), self.threshold_confidence
        else:
            significant, threshold = bool(adjusted < 1.0 - confidence), 1.0 - adjusted
        return {
            "statistic": finite_or_none(self.statistic_value()),
            "pvalue": finite_or_none(self.pvalue),
            "ci": ci.to_list() if ci is not None else None,
            "method": self.method,
            "verdict": self.verdict(confidence, what=what, adjusted=adjusted, adjustment=adjustment),
            "significant": significant,
            "threshold_confidence": finite_or_none(threshold),
        }
