"""Gaps between groups of instances: rates per group, the usual disparity summaries with bootstrap intervals,
and each group tested against the others.

The data are each group's two-class confusion counts (TP, FN, FP, TN), so the same numbers come from the
instances in memory, in batches or from any engine's counts. The rates of a group:

- **selection rate**: the share it predicts positive, (TP + FP) / n;
- **true positive rate** TP / (TP + FN) and **false positive rate** FP / (FP + TN);
- **accuracy** (TP + TN) / n.

The summaries, with the definitions of ``fairlearn.metrics`` (``method="between_groups"``):

- **demographic parity difference**: the largest selection rate minus the smallest; its **ratio** the
  smallest over the largest;
- **equalized odds difference**: the larger of the true positive rates' and the false positive rates'
  differences; its **ratio** the smaller of their ratios;
- **equal opportunity difference** and **ratio**: those of the true positive rates.

Each with a percentile bootstrap interval: each group's counts resampled on their own (a multinomial of the
group's size over its four cells), as a bootstrap of the instances stratified by group.

A group is tested against the rest of the instances (with two groups: against the other) for each rate: the
difference of two independent proportions with Newcombe's hybrid score interval (from Wilson's, Newcombe 1998,
method 10), and Pearson's chi-squared test of the 2 x 2 table, or Fisher's exact test when an expected count is
below 5 (as the usual rule has it); the p-values of the groups are adjusted for multiple testing (Holm, as
``assay compare`` adjusts its pairs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from assay.inference.bootstrap import MIN_DEFINED
from assay.inference.distributions import chi2_sf
from assay.inference.estimate import ConfidenceInterval, Estimate, finite_or_none
from assay.inference.multiple import adjust as adjusted_p
from assay.inference.proportion import proportion_bounds

__all__ = ["RATES", "SUMMARIES", "GroupTest", "rates_of", "disparities", "group_tests", "two_proportions",
           "fisher_exact"]

RATES = {
    "selection_rate": "Selection rate (predicted positive)",
    "tpr": "True positive rate",
    "fpr": "False positive rate",
    "accuracy": "Accuracy",
}
"""The rates compared between groups, with their titles."""

SUMMARIES = {
    "demographic_parity_difference": "Demographic parity difference",
    "demographic_parity_ratio": "Demographic parity ratio",
    "equalized_odds_difference": "Equalized odds difference",
    "equalized_odds_ratio": "Equalized odds ratio",
    "equal_opportunity_difference": "Equal opportunity difference",
    "equal_opportunity_ratio": "Equal opportunity ratio",
}
"""The disparity summaries (fairlearn's names), with their titles."""

_PARTS = {"selection_rate": ((0, 2), (0, 1, 2, 3)), "tpr": ((0,), (0, 1)), "fpr": ((2,), (2, 3)),
          "accuracy": ((0, 3), (0, 1, 2, 3))}
"""Each rate as (cells counted, cells of its denominator) of a table (TP, FN, FP, TN)."""


def rates_of(tables: np.ndarray) -> dict[str, np.ndarray]:
    """Each rate of each group from tables of shape (..., groups, 4) in the order TP, FN, FP, TN (NaN where a
    denominator is 0)."""
    t = np.asarray(tables, dtype=np.float64)
    out = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        for name, (top, bottom) in _PARTS.items():
            out[name] = t[..., list(top)].sum(axis=-1) / t[..., list(bottom)].sum(axis=-1)
    return out


def _summaries(rates: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The disparity summaries over the groups (the last axis) of the rates; NaN where a group's rate is."""
    def gap(r: np.ndarray) -> np.ndarray:
        return r.max(axis=-1) - r.min(axis=-1)

    def ratio(r: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            top = r.max(axis=-1)
            return np.where(top > 0, r.min(axis=-1) / np.where(top > 0, top, 1.0), np.nan)

    s, tpr, fpr = rates["selection_rate"], rates["tpr"], rates["fpr"]
    return {
        "demographic_parity_difference": gap(s),
        "demographic_parity_ratio": ratio(s),
        "equalized_odds_difference": np.maximum(gap(tpr), gap(fpr)),
        "equalized_odds_ratio": np.minimum(ratio(tpr), ratio(fpr)),
        "equal_opportunity_difference": gap(tpr),
        "equal_opportunity_ratio": ratio(tpr),
    }


def disparities(tables: np.ndarray, *, confidence: float = 0.95, resamples: int = 2000,
                seed: int = 0) -> dict[str, Estimate]:
    """The disparity summaries of the groups' tables (shape (groups, 4): TP, FN, FP, TN), each with its
    percentile bootstrap interval (each group resampled within itself). Null with the reason where a group's
    rate is undefined (no positives for the true positive rate, ...).

    >>> e = disparities(np.array([[40, 10, 5, 45], [30, 20, 10, 40]]), resamples=200)
    >>> round(e["demographic_parity_difference"].value, 2), round(e["equal_opportunity_difference"].value, 2)
    (0.05, 0.2)
    """
    t = np.asarray(tables, dtype=np.float64)
    point = _summaries(rates_of(t))
    whole = bool(np.all(t == np.floor(t)))
    replicates = None
    if whole and resamples:
        rng = np.random.default_rng(seed)
        draws = np.zeros((resamples, *t.shape))
        for g in range(t.shape[0]):
            n = int(t[g].sum())
            if n:
                draws[:, g, :] = rng.multinomial(n, t[g] / n, size=resamples)
        replicates = _summaries(rates_of(draws))
    method = f"percentile bootstrap, {resamples:,} resamples of each group"
    alpha = 1.0 - confidence
    out = {}
    for name, value in point.items():
        v = float(value)
        if not math.isfinite(v):
            out[name] = Estimate.undefined(_why_undefined(name, t))
            continue
        if replicates is None:
            out[name] = Estimate(v, None, None, "no interval: weighted instances (not whole counts)" if not whole
                                 else None)
            continue
        r = replicates[name]
        finite = np.isfinite(r)
        if finite.mean() < MIN_DEFINED:
            out[name] = Estimate(v, None, None, f"no interval: undefined in {1 - finite.mean():.1%} of the "
                                                "bootstrap resamples (a group's rate)")
            continue
        low, high = np.quantile(r[finite], [alpha / 2.0, 1.0 - alpha / 2.0])
        out[name] = Estimate(v, ConfidenceInterval(float(low), float(high)), method)
    return out


def _why_undefined(name: str, tables: np.ndarray) -> str:
    rates = rates_of(tables)
    needs = {"demographic": ("selection_rate",), "equal_opportunity": ("tpr",), "equalized_odds": ("tpr", "fpr")}
    for prefix, used in needs.items():
        if name.startswith(prefix):
            for rate in used:
                if not np.all(np.isfinite(rates[rate])):
                    return (f"undefined: a group has no {'positives' if rate == 'tpr' else 'negatives'}"
                            if rate in ("tpr", "fpr") else "undefined: a group has no instances")
            if name.endswith("ratio"):
                return "undefined: the largest rate is 0"
    return "undefined"


@dataclass(frozen=True)
class GroupTest:
    """One rate of one group against the rest (or the other group): the two rates, their difference with
    its interval, the test's p-value and its adjusted one."""

    rate: str
    group: str
    against: str
    value: float | None
    other: float | None
    difference: Estimate
    test: str | None
    pvalue: float | None
    adjusted: float | None = None

    def significant(self, confidence: float) -> bool:
        """Whether the Holm-adjusted p-value is below 1 − ``confidence``."""
        return self.adjusted is not None and self.adjusted < 1.0 - confidence

    def to_dict(self) -> dict[str, Any]:
        return {"rate": self.rate, "group": self.group, "against": self.against,
                "value": finite_or_none(self.value), "other": finite_or_none(self.other),
                "difference": self.difference.to_dict(), "test": self.test, "pvalue": finite_or_none(self.pvalue),
                "pvalue_holm": finite_or_none(self.adjusted)}


def fisher_exact(a: int, b: int, c: int, d: int) -> float:
    """Fisher's exact test of the 2 x 2 table [[a, b], [c, d]], two-sided: the probability of the tables with
    the same margins no more likely than this one (as R's ``fisher.test``, to a relative 1e-7).

    >>> round(fisher_exact(8, 2, 1, 5), 4)
    0.035
    """
    row1, col1, n = a + b, a + c, a + b + c + d
    low, high = max(0, col1 - (n - row1)), min(row1, col1)

    def log_p(x: int) -> float:
        return (math.lgamma(row1 + 1) + math.lgamma(n - row1 + 1) + math.lgamma(col1 + 1) + math.lgamma(n - col1 + 1)
                - math.lgamma(n + 1) - math.lgamma(x + 1) - math.lgamma(row1 - x + 1) - math.lgamma(col1 - x + 1)
                - math.lgamma(n - row1 - col1 + x + 1))

    logs = np.array([log_p(x) for x in range(low, high + 1)])
    observed = log_p(a)
    peak = logs.max()
    probabilities = np.exp(logs - peak)
    kept = probabilities[logs <= observed + math.log1p(1e-7)].sum()
    return float(min(1.0, kept / probabilities.sum()))


def two_proportions(k1: float, n1: float, k2: float, n2: float, *, confidence: float = 0.95
                    ) -> tuple[Estimate, str | None, float | None]:
    """The difference k1/n1 − k2/n2 with Newcombe's hybrid score interval, and the test of equal proportions:
    Pearson's chi-squared (no continuity correction), or Fisher's exact test when an expected count is below 5.
    (None where a group has no instances for this rate.)

    >>> d, test, p = two_proportions(56, 70, 48, 80)
    >>> round(d.value, 4), [round(x, 4) for x in d.ci.to_list()], test
    (0.2, [0.0524, 0.3339], 'chi-squared')
    """
    if n1 <= 0 or n2 <= 0:
        return Estimate.undefined("undefined: a side has no instances for this rate"), None, None
    p1, p2 = k1 / n1, k2 / n2
    low_end, high_end = proportion_bounds(np.array([k1, k2]), np.array([n1, n2]), confidence=confidence,
                                          method="wilson")
    l1, l2 = (float(v) for v in low_end)
    u1, u2 = (float(v) for v in high_end)
    d = p1 - p2
    low = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    estimate = Estimate(d, ConfidenceInterval(low, high), "Newcombe (hybrid score)")
    a, b, c, e = int(k1), int(n1 - k1), int(k2), int(n2 - k2)
    n = a + b + c + e
    cols = (a + c, b + e)
    expected = [r * col / n for r in (a + b, c + e) for col in cols]
    if min(cols) == 0:
        return estimate, None, None  # one outcome only: nothing to test
    if min(expected) < 5:
        return estimate, "Fisher's exact", fisher_exact(a, b, c, e)
    chi2 = n * (a * e - b * c) ** 2 / ((a + b) * (c + e) * cols[0] * cols[1])
    return estimate, "chi-squared", float(chi2_sf(chi2, 1))


def group_tests(names: list[str], tables: np.ndarray, *, confidence: float = 0.95) -> list[GroupTest]:
    """Each rate of each group against the rest of the instances (with two groups: the first against the
    second), the p-values of a rate adjusted over the groups by Holm's method."""
    t = np.asarray(tables, dtype=np.float64)
    total = t.sum(axis=0)
    pairs = [0] if len(names) == 2 else list(range(len(names)))
    out: list[GroupTest] = []
    for rate, (top, bottom) in _PARTS.items():
        found = []
        for g in pairs:
            rest = t[1] if len(names) == 2 else total - t[g]
            against = names[1] if len(names) == 2 else "the rest"
            k1, n1 = t[g, list(top)].sum(), t[g, list(bottom)].sum()
            k2, n2 = rest[list(top)].sum(), rest[list(bottom)].sum()
            diff, test, p = two_proportions(k1, n1, k2, n2, confidence=confidence)
            found.append(GroupTest(rate, names[g], against, k1 / n1 if n1 else None, k2 / n2 if n2 else None,
                                   diff, test, p))
        pvalues = np.array([np.nan if f.pvalue is None else f.pvalue for f in found])
        tested = ~np.isnan(pvalues)
        adjusted = np.full(len(found), np.nan)
        if tested.any():
            adjusted[tested] = adjusted_p(pvalues[tested], "holm")
        out += [GroupTest(f.rate, f.group, f.against, f.value, f.other, f.difference, f.test, f.pvalue,
                          None if math.isnan(a) else float(a)) for f, a in zip(found, adjusted, strict=True)]
    return out

