"""Operating points of a ranking: the sensitivity at a given specificity and the specificity at a given
sensitivity, read off the ROC curve as pROC's ``coords`` (with ``ci.se``/``ci.sp``'s stratified bootstrap
intervals), and the best threshold under a constraint such as ``precision>=0.8``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from assay.checks import check_number
from assay.errors import InvalidInput
from assay.inference.bootstrap import BootstrapSettings
from assay.inference.estimate import ConfidenceInterval, Estimate, finite_or_none
from assay.inference.proportion import proportion_bounds
from assay.inference.roc import bootstrap_operating_points
from assay.metrics.ranking import ThresholdCounts, first_index, operating_points
from assay.summaries.disk import is_on_disk
from assay.summaries.ranges import known_entries
from assay.summaries.scores import ScoreCounts

__all__ = ["OperatingPoint", "curve_at", "ConstrainedThreshold", "CONSTRAINED_RATES", "constrained", "constraint_list",
           "operating_points_of", "MAX_BOOTSTRAP_CURVE_POINTS", "too_many", "WEIGHTED", "own_units", "rates_of"]


@dataclass(frozen=True)
class OperatingPoint:
    """The sensitivity at a given specificity (or the specificity at a given sensitivity), read off the
    ROC curve with linear interpolation between its points, as pROC's ``coords``; its interval is a
    stratified bootstrap, as pROC's ``ci.se`` (``ci.sp``). ``threshold`` is the score at which the
    classifier reaches the target on the curve itself (the lowest threshold whose specificity is at
    least the target; the highest whose sensitivity is), and ``at_threshold`` its rates there."""

    given: str  # "specificity" or "sensitivity"
    target: float
    value: Estimate  # the other rate
    threshold: float
    at_threshold: dict[str, float]
    exact: bool

    @property
    def reads(self) -> str:
        return "sensitivity" if self.given == "specificity" else "specificity"

    def to_dict(self) -> dict[str, Any]:
        return {"given": self.given, self.given: self.target, self.reads: self.value.to_dict(),
                "threshold": finite_or_none(self.threshold), "at_threshold": dict(self.at_threshold),
                "interpolated": not self.exact,
                "method": "read off the ROC curve, linear interpolation between its points (as pROC's coords); "
                          "stratified bootstrap percentile interval (as pROC's ci.se and ci.sp)"}


CONSTRAINED_RATES = {"precision": "recall", "ppv": "recall", "fpr": "recall", "specificity": "recall",
                     "recall": "specificity", "sensitivity": "specificity", "tpr": "specificity",
                     "npv": "specificity"}
"""The rates a constraint may bound, and the rate then maximised: a bound on precision or on the false
positives maximises recall; a bound on recall maximises specificity."""


@dataclass(frozen=True)
class ConstrainedThreshold:
    """The best threshold under a constraint ("precision>=0.8": the largest recall among the thresholds whose
    precision is at least 0.8), its rates with their intervals (Wilson, at that threshold; chosen on the same
    data, so optimistic)."""

    constraint: str
    maximized: str
    threshold: float
    rates: dict[str, Estimate]

    def to_dict(self) -> dict[str, Any]:
        return {"constraint": self.constraint, "maximized": self.maximized, "threshold": finite_or_none(self.threshold),
                "rates": {k: e.to_dict() for k, e in self.rates.items()},
                "note": "chosen on these same data: the rates at it are optimistic"}


MAX_BOOTSTRAP_CURVE_POINTS = 500_000_000
"""The most curve points (distinct scores x resamples) that the bootstraps of a partial AUC and of operating
points redraw; beyond, they give no interval and say why (fewer resamples, or --roc-bins, make it possible)."""


def too_many(points: int, resamples: int) -> str:
    return (f"no interval: {resamples:,} bootstrap resamples of {points:,} distinct scores exceed "
            f"{MAX_BOOTSTRAP_CURVE_POINTS:,} curve points; fewer resamples (--bootstrap) or --roc-bins make it "
            "possible")


def own_units(threshold: float, direction: str) -> float:
    """A threshold of the summary in the scores' own units."""
    return -threshold if direction == "lower" else threshold


def constraint_list(constraints: Any) -> list[str]:
    if constraints is None:
        return []
    if isinstance(constraints, str):
        return [constraints]
    return [str(c) for c in constraints]


def constrained(tc: ThresholdCounts, text: str, confidence: float, weighted: bool) -> ConstrainedThreshold:
    """The best threshold under one constraint, as :class:`ConstrainedThreshold` describes it."""
    match = re.fullmatch(r"\s*([a-z]+)\s*(>=|<=)\s*([-+0-9.eE]+)\s*", text.lower())
    if not match or match.group(1) not in CONSTRAINED_RATES:
        raise InvalidInput(f"{text!r} is not a constraint such as precision>=0.8, fpr<=0.05 or recall>=0.9 (rates: "
                           f"{', '.join(CONSTRAINED_RATES)})", field="constraints")
    name, op = match.group(1), match.group(2)
    bound = check_number(float(match.group(3)), "constraints", low=0.0, high=1.0, what="a rate within [0, 1]")
    tp = np.asarray(tc.tp, dtype=np.float64)
    fp = np.asarray(tc.fp, dtype=np.float64)
    n_pos, n_neg = float(tc.n_positive), float(tc.n_negative)
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = {"recall": tp / n_pos, "specificity": 1.0 - fp / n_neg, "fpr": fp / n_neg,
                 "precision": tp / (tp + fp), "npv": (n_neg - fp) / (n_neg - fp + n_pos - tp)}
    rates["sensitivity"] = rates["tpr"] = rates["recall"]
    rates["ppv"] = rates["precision"]
    values = rates[name]
    met = values >= bound - 1e-12 if op == ">=" else values <= bound + 1e-12
    met &= np.isfinite(values)
    if not met.any():
        raise InvalidInput(f"no threshold meets {name} {op} {bound:g}", field="constraints")
    maximized = CONSTRAINED_RATES[name]
    objective = np.where(met, rates[maximized], -np.inf)
    i = int(np.argmax(objective))  # the first, highest threshold among ties
    counts = {"recall": (tp[i], n_pos), "specificity": (n_neg - fp[i], n_neg), "precision": (tp[i], tp[i] + fp[i])}
    out: dict[str, Estimate] = {}
    for key, (k, n) in counts.items():
        if n <= 0:
            out[key] = Estimate.undefined("nothing predicted positive at this threshold")
        elif weighted:
            out[key] = Estimate(k / n, None, None, WEIGHTED)
        else:
            low, high = proportion_bounds(int(round(k)), int(round(n)), confidence=confidence, method="wilson")
            out[key] = Estimate(k / n, ConfidenceInterval(float(low), float(high)), "wilson")
    return ConstrainedThreshold(f"{name} {op} {bound:g}", maximized, float(tc.thresholds[i]), out)


def rates_of(values: Any, field: str) -> np.ndarray:
    if values is None:
        return np.empty(0)
    if isinstance(values, (int, float)):
        values = [values]
    return np.array([check_number(v, field, low=0.0, high=1.0, what="a rate within [0, 1]") for v in values],
                    dtype=np.float64)


def curve_at(tc: ThresholdCounts, targets: np.ndarray, given: str, *, windows: bool = False) -> tuple[np.ndarray, ...]:
    """The curve at given specificities or sensitivities: :func:`assay.metrics.ranking.operating_points`'s
    values and exact indices, and for each target the threshold, sensitivity and specificity of the point that
    reaches it (the lowest threshold that keeps the specificity, the highest that reaches the sensitivity).

    ``windows``: each target's point found by a binary search on the cumulative counts, and the values read
    off the two points around it (a few entries of a summary beyond memory read, not the whole curve); the
    same numbers as the whole curve gives."""
    n_pos, n_neg = float(tc.n_positive), float(tc.n_negative)
    if not windows:
        tp = np.concatenate(([0], np.asarray(tc.tp)))
        fp = np.concatenate(([0], np.asarray(tc.fp)))
        values, exact = operating_points(tp, fp, tc.n_positive, tc.n_negative, targets, given=given)
        sens = tp / n_pos
        spec = (n_neg - fp) / n_neg
        if given == "specificity":  # the lowest threshold that keeps the specificity
            reach = np.clip(np.searchsorted(-spec, -targets, side="right") - 1, 0, len(tp) - 1)
        else:  # the highest threshold that reaches the sensitivity
            reach = np.clip(np.searchsorted(sens, targets, side="left"), 0, len(tp) - 1)
        thresholds = np.concatenate(([np.inf], np.asarray(tc.thresholds)))
        return values, exact, thresholds[reach], sens[reach], spec[reach]
    last = len(tc.tp)  # the curve's points: the origin, then one a distinct threshold

    def counts(j: int) -> tuple[float, float]:
        return (0.0, 0.0) if j == 0 else (float(tc.tp[j - 1]), float(tc.fp[j - 1]))

    known = known_entries(tc.tp, shift=1)  # point j is after entry j - 1
    values, exact = np.empty((1, len(targets))), np.empty((1, len(targets)), dtype=np.int64)
    thresholds = np.empty(len(targets))
    sens, spec = np.empty(len(targets)), np.empty(len(targets))
    for k, t in enumerate(targets):
        if given == "specificity":  # the last point whose specificity reaches t, and the one after it
            i = min(max(first_index(last + 1, lambda j, t=t: (n_neg - counts(j)[1]) / n_neg < t, known) - 1, 0), last)
            lo, hi = i, min(i + 1, last)
        else:  # the first point whose sensitivity reaches t, and the one before it
            i = min(first_index(last + 1, lambda j, t=t: not counts(j)[0] / n_pos < t, known), last)
            lo, hi = max(i - 1, 0), i
        window = np.array([counts(j) for j in range(lo, hi + 1)])
        value, at = operating_points(window[:, 0], window[:, 1], tc.n_positive, tc.n_negative, np.array([t]),
                                     given=given)
        values[0, k], exact[0, k] = value[0, 0], at[0, 0] + lo if at[0, 0] >= 0 else -1
        thresholds[k] = np.inf if i == 0 else float(tc.thresholds[i - 1])
        sens[k], spec[k] = window[i - lo, 0] / n_pos, (n_neg - window[i - lo, 1]) / n_neg
    return values, exact, thresholds, sens, spec


def operating_points_of(sc: ScoreCounts, tc: ThresholdCounts, at_specificity: Any, at_sensitivity: Any,
                      confidence: float, bootstrap: BootstrapSettings, weighted: bool) -> tuple[OperatingPoint, ...]:

    out: list[OperatingPoint] = []
    for given, targets in (("specificity", rates_of(at_specificity, "at_specificity")),
                           ("sensitivity", rates_of(at_sensitivity, "at_sensitivity"))):
        if targets.size == 0:
            continue
        values, exact, thresholds, sens, spec = curve_at(tc, targets, given, windows=is_on_disk(tc.tp))
        note = WEIGHTED if weighted else too_many(len(sc), bootstrap.resamples) \
            if len(sc) * bootstrap.resamples > MAX_BOOTSTRAP_CURVE_POINTS else None
        if note is not None:
            intervals: list[Any] = [None] * len(targets)
        else:
            intervals = bootstrap_operating_points(sc, targets, given=given, confidence=confidence,
                                                   settings=bootstrap)
        for k, target in enumerate(targets):
            value = float(values[0, k])
            estimate = Estimate(value, intervals[k], None if note else "bootstrap-percentile", note)
            out.append(OperatingPoint(given, float(target), estimate, float(thresholds[k]),
                                      {"sensitivity": float(sens[k]), "specificity": float(spec[k])},
                                      bool(exact[0, k] >= 0)))
    return tuple(out)


WEIGHTED = "no interval: the sample weights are not counts"
"""The note of an estimate from weights that are not whole numbers."""


