"""How stable a threshold chosen on the data is: the stratified percentile bootstrap interval of the threshold
that a criterion (Youden's J, the ROC point closest to (0, 1), the least expected cost) picks, and of the
sensitivity and specificity at it, as pROC's ``ci.coords(x = "best")`` gives them.

Each resample draws the positives and the negatives with replacement, each class keeping its size (pROC's
default, ``stratified = TRUE``); on a summary of counts per distinct score that is a multinomial draw of each
class's count over the distinct scores (:func:`assay.inference.roc.resampled_curves`), exactly the
distribution of a bootstrap of the rows. In each resample the threshold is chosen again by the same criterion
and the same rule as on the data (:func:`assay.evaluation.thresholds.choice_of`: the first, highest, ROC point
within 1e-12 of the best), and the sensitivity and specificity are read there. The intervals run between the
(1 - c)/2 and (1 + c)/2 quantiles of the replicates (numpy's default, linear, as every percentile interval in
assay). A threshold is the score at its ROC point (pROC prints the midpoint to the next score: the same
predictions).

References
----------
X. Robin et al. (2011), pROC: an open-source package for R and S+ to analyze and compare ROC curves, BMC
Bioinformatics 12:77 (``ci.coords``). W. J. Youden (1950), Index for rating diagnostic tests, Cancer 3:32-35.
T. Fawcett (2006), An introduction to ROC analysis, Pattern Recognition Letters 27:861-874.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from assay.evaluation.costs import threshold_costs_of
from assay.evaluation.operating_points import (
    WEIGHTED,
    own_units,
)
from assay.evaluation.options import Options
from assay.evaluation.thresholds import choice_of, threshold_criterion
from assay.inference.bootstrap import BootstrapSettings
from assay.inference.estimate import ConfidenceInterval, Estimate, finite_or_none
from assay.inference.paired_bootstrap import percentile_interval
from assay.inference.roc import resampled_curves
from assay.metrics.ranking import counts_at, threshold_counts
from assay.summaries.scores import ScoreCounts

__all__ = ["ThresholdStability", "threshold_stability", "stability_of", "stability_note", "METHOD", "BEYOND_MEMORY",
           "threshold_ends", "share_text"]

METHOD = 'stratified percentile bootstrap, as pROC\'s ci.coords(x = "best")'
"""The method's name, in the JSON and the report."""

BEYOND_MEMORY = ("not computed beyond memory: the summary is kept on disk or on Spark's executors, and each "
                 "resample redraws every distinct score")
"""The note of a summary not held in memory."""

MAX_STABILITY_POINTS = 50_000_000
"""The most curve points (distinct scores x resamples) the chosen threshold's bootstrap redraws: it comes with
every threshold chosen by a criterion, unasked, so it stays within a few seconds (the operating points' asked-for
bootstraps go to ``operating_points.MAX_BOOTSTRAP_CURVE_POINTS``)."""

ONE_CLASS = "no interval: one class has no instances, so there is no ROC curve to choose a threshold on"
ONE_SCORE = ("no interval: a single distinct score, so every resample has the same ROC curve and the same "
             "choice")


@dataclass(frozen=True)
class ThresholdStability:
    """The threshold a criterion chose on the data, with its stratified bootstrap interval, and the
    sensitivity and specificity at it with theirs (each resample's re-chosen threshold), as pROC's
    ``ci.coords(x = "best")``.

    ``threshold`` is in the scores' own units (with ``direction`` "lower", positive iff score <= it); an
    infinite threshold (the point above every score: nothing predicted positive) is null in the JSON.
    ``same`` is the share of resamples that chose the data's threshold; None where no resample was drawn,
    and then ``note`` says why (the estimates' own notes too). ``replicates``: the threshold re-chosen in
    each resample, in the scores' units (not in the JSON)."""

    criterion: str  # "youden", "closest" or "cost"
    threshold: Estimate
    sensitivity: Estimate
    specificity: Estimate
    same: float | None
    confidence: float
    settings: BootstrapSettings
    note: str | None = None
    replicates: np.ndarray | None = field(default=None, repr=False, compare=False)  # each resample's threshold

    def to_dict(self) -> dict[str, Any]:
        return {"criterion": self.criterion, "threshold": self.threshold.to_dict(),
                "sensitivity": self.sensitivity.to_dict(), "specificity": self.specificity.to_dict(),
                "same_threshold_share": finite_or_none(self.same), "confidence": self.confidence,
                "resamples": self.settings.resamples, "seed": self.settings.seed, "method": METHOD,
                "note": self.note}


def threshold_ends(values: np.ndarray, confidence: float) -> ConfidenceInterval:
    """The (1 - c)/2 and (1 + c)/2 quantiles of re-chosen thresholds (numpy's default, linear); unlike
    :func:`assay.inference.paired_bootstrap.percentile_interval` (finite replicates, used for the rates here), an
    infinite replicate (a threshold above every score) counts as the largest (or, with
    ``-inf``, the smallest) value, and an end that interpolates towards it is infinite.

    >>> threshold_ends(np.arange(5.0), 0.5)
    ConfidenceInterval(low=1.0, high=3.0)
    >>> threshold_ends(np.array([1.0, 2.0, np.inf]), 0.5)
    ConfidenceInterval(low=1.5, high=inf)
    """
    alpha = 1.0 - confidence
    qs = [alpha / 2.0, 1.0 - alpha / 2.0]
    values = np.asarray(values, dtype=np.float64)
    if bool(np.all(np.isfinite(values))):
        low, high = np.quantile(values, qs)
        return ConfidenceInterval(float(low), float(high))
    ordered = np.sort(values)
    ends = []
    for q in qs:
        h = (len(ordered) - 1) * q
        i, j = math.floor(h), math.ceil(h)
        a, b, t = float(ordered[i]), float(ordered[j]), h - i
        if i == j or t == 0.0 or a == b or not math.isfinite(a):  # towards an infinite end: that end
            ends.append(a)
        elif not math.isfinite(b):
            ends.append(b)
        else:
            ends.append(a + (b - a) * t)
    return ConfidenceInterval(ends[0], ends[1])


def threshold_stability(criterion: str, summary: ScoreCounts, *, costs: Any = None,
                        prevalence: float | None = None, direction: str = "higher", confidence: float = 0.95,
                        settings: BootstrapSettings = BootstrapSettings()) -> ThresholdStability:
    """The stratified percentile bootstrap interval of the threshold that ``criterion`` chooses on a two-class
    score summary, and of the sensitivity and specificity at the re-chosen threshold, as pROC's
    ``ci.coords(x = "best")``.

    Parameters
    ----------
    criterion : {"youden", "closest", "cost"}
        As :func:`assay.evaluation.thresholds.chosen_threshold` (``costs``, ``prevalence``: as there).
    summary : ScoreCounts
        Counts per distinct score, highest first (oriented: with ``direction`` "lower" the scores are
        negated, and the thresholds returned are in the scores' own units).
    confidence : float
    settings : BootstrapSettings
        Resamples and seed (the same draws as the bootstraps of the operating points).

    Returns
    -------
    ThresholdStability
        The point values (the choice on the data) and the intervals; an interval is None with a note when
        the summary is not held in memory, its counts are weights, it has one class or one distinct score,
        or resamples x distinct scores exceed :data:`MAX_STABILITY_POINTS`.

    Examples
    --------
    >>> sc = ScoreCounts.from_arrays([1, 1, 0, 1, 0, 0], [0.9, 0.8, 0.7, 0.6, 0.5, 0.4])
    >>> r = threshold_stability("youden", sc, settings=BootstrapSettings(200, 0))
    >>> r.threshold.value, r.sensitivity.value, r.specificity.value
    (0.8, 0.6666666666666666, 1.0)
    >>> bool(r.threshold.ci.low <= 0.8 <= r.threshold.ci.high), 0.0 < r.same <= 1.0
    (True, True)
    """
    n_pos, n_neg = float(summary.n_positive), float(summary.n_negative)
    if n_pos <= 0 or n_neg <= 0:
        undefined = Estimate.undefined(ONE_CLASS)
        return ThresholdStability(criterion, undefined, undefined, undefined, None, confidence, settings, ONE_CLASS)
    tc = threshold_counts(summary)
    rule = threshold_criterion(criterion, tc, costs=costs, prevalence=prevalence)
    choice = choice_of(rule.name, tc, rule.objective, best=rule.best)
    point = own_units(choice.threshold, direction)
    at_point = counts_at(tc, np.array([choice.threshold]))  # the rates as the metrics count them: tn / (tn + fp)
    sensitivity = float(at_point.tp[0] / (at_point.tp[0] + at_point.fn[0]))
    specificity = float(at_point.tn[0] / (at_point.tn[0] + at_point.fp[0]))
    note = _why_not(summary, settings)
    if note is not None:
        return ThresholdStability(criterion, Estimate(point, None, None, note),
                                  Estimate(sensitivity, None, None, note), Estimate(specificity, None, None, note),
                                  None, confidence, settings, note)
    thresholds = np.concatenate(([np.inf], np.asarray(summary.scores, dtype=np.float64)))  # the origin first
    chosen, sens, spec = [], [], []
    for tp, fp in resampled_curves(summary, settings):
        fpr, tpr = fp / n_neg, tp / n_pos  # as the walks of the curve divide them
        values = rule.objective(fpr, tpr)
        target = values.max(axis=1) if rule.best == "max" else values.min(axis=1)
        tol = 1e-12 * np.maximum(1.0, np.abs(target))
        at = np.argmax(np.abs(values - target[:, None]) <= tol[:, None], axis=1)  # the first best point
        rows = np.arange(len(at))
        chosen.append(thresholds[at])
        sens.append(tpr[rows, at])
        spec.append((n_neg - fp[rows, at]) / n_neg)
    replicates = np.concatenate(chosen)
    same = float(np.mean(replicates == choice.threshold))
    shown = replicates if direction != "lower" else -replicates
    above = float(np.mean(np.isinf(replicates)))
    note = None
    if above > 0:
        note = (f"the infinite threshold (no instance predicted positive) was chosen in {share_text(above)} of the "
                "resamples: an infinite end of the interval is null in the JSON")
    method = "bootstrap-percentile"
    return ThresholdStability(
        criterion,
        Estimate(point, threshold_ends(shown, confidence), method, note),
        Estimate(sensitivity, percentile_interval(np.concatenate(sens), confidence), method),
        Estimate(specificity, percentile_interval(np.concatenate(spec), confidence), method),
        same, confidence, settings, note, shown)


def _why_not(summary: ScoreCounts, settings: BootstrapSettings) -> str | None:
    """Why no resample is drawn (None: they are)."""
    if summary.on_disk:
        return BEYOND_MEMORY
    if np.asarray(summary.positives).dtype.kind == "f" or np.asarray(summary.negatives).dtype.kind == "f":
        return WEIGHTED
    if len(summary) < 2:
        return ONE_SCORE
    if len(summary) * settings.resamples > MAX_STABILITY_POINTS:
        return (f"no interval: {settings.resamples:,} bootstrap resamples of {len(summary):,} distinct scores "
                f"exceed the {MAX_STABILITY_POINTS:,} curve points this interval, given with every chosen "
                "threshold, draws at most (about 5 s); fewer resamples (--bootstrap) or --roc-bins make it possible")
    return None


def stability_of(options: Options, summary: ScoreCounts, labels: tuple[str, ...], positive: str,
                 direction: str) -> ThresholdStability:
    """:func:`threshold_stability` of the criterion of ``options.threshold``, with the options' costs (a cost
    matrix's, as the choice on the data takes them), prevalence, confidence and bootstrap."""
    criterion = options.threshold
    costs = threshold_costs_of(options.costs, options.cost_matrix, labels, positive) if criterion == "cost" \
        else options.costs
    return threshold_stability(criterion, summary, costs=costs, prevalence=options.prevalence, direction=direction,
                               confidence=options.confidence, settings=options.settings)


def share_text(share: float) -> str:
    """A share of resamples in whole percent, never rounded to 0% or 100% unless it is.

    >>> share_text(0.4325), share_text(0.997), share_text(1.0), share_text(0.001)
    ('43%', '>99%', '100%', '<1%')
    """
    if 0.0 < share < 0.01:
        return "<1%"
    if 0.99 < share < 1.0:
        return ">99%"
    return f"{share:.0%}"


def stability_note(s: ThresholdStability) -> str:
    """The report's line under the chosen threshold: its interval, how often the resamples chose it, and the
    sensitivity and specificity at the re-chosen threshold."""
    level = f"{100 * s.confidence:g}% CI"
    t = s.threshold
    value = "undefined" if t.value is None else f"{t.value:.6g}"
    if t.ci is None:
        return f"threshold {value}: {t.note}"

    def rate(name: str, e: Estimate) -> str:
        return f"{name} {100 * e.value:.1f}% ({level} {100 * e.ci.low:.1f} to {100 * e.ci.high:.1f}%)"

    return (f"threshold {value} ({level} {t.ci.low:.6g} to {t.ci.high:.6g}; stratified bootstrap as pROC's "
            f"ci.coords, {s.settings.resamples:,} resamples; the same threshold in {share_text(s.same)} of them); at the "
            f"threshold re-chosen in each resample, {rate('sensitivity', s.sensitivity)}, "
            f"{rate('specificity', s.specificity)}" + (f"; {t.note}" if t.note else ""))
