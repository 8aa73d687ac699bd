"""Intervals for the area under the ROC and precision-recall curves.

DeLong's variance comes from the placement values of the instances: for a
positive, the share of negatives it outscores (ties one half); for a negative,
the share of positives that outscore it. Instances with the same score and
class share their placement, so the variance is a sum over the distinct scores
of the ``ScoreCounts`` summary: after its one sort, O(distinct scores), which is
the fast midrank algorithm of Sun & Xu (2014) on grouped data.

References
----------
E. R. DeLong, D. M. DeLong, D. L. Clarke-Pearson (1988), Comparing the areas
under two or more correlated receiver operating characteristic curves: a
nonparametric approach, Biometrics 44:837-845. X. Sun, W. Xu (2014), Fast
implementation of DeLong's algorithm, IEEE Signal Processing Letters
21:1389-1393. K. Boyd, K. H. Eng, C. D. Page (2013), Area under the
precision-recall curve: point estimates and confidence intervals, ECML PKDD.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from assay.inference.bootstrap import BootstrapSettings
from assay.inference.distributions import normal_quantile
from assay.inference.estimate import ConfidenceInterval
from assay.metrics.ranking import (
    mcclish,
    operating_points,
    partial_auc,
    threshold_counts,
    walk_summary,
)
from assay.summaries.scores import ScoreCounts
from assay.summaries.walk import Piece

__all__ = ["DeLongFold", "DeLongResult", "delong", "placement_formula", "placements", "bootstrap_auc_ci", "logit_interval"]


@dataclass(frozen=True)
class DeLongResult:
    """AUC with DeLong's standard error and interval (clipped to [0, 1])."""

    auc: float
    se: float
    confidence: float
    ci: ConfidenceInterval | None
    method: str = "delong"


def placement_formula() -> Callable[..., tuple[np.ndarray, np.ndarray]]:
    """DeLong's placement values of score groups from their class counts and the counts around them:
    ``formula(neg_below, neg_at, pos_above, pos_at, n_neg, n_pos)`` gives

    V10[g] = (negatives below g + 1/2 negatives at g) / N, the positives' placements;
    V01[g] = (positives above g + 1/2 positives at g) / P, the negatives'.

    The one definition, for every engine: made inside this function so that it travels to Spark's executors by
    value (cloudpickle pickles a module's top-level function by reference, which would need assay there)."""
    def formula(neg_below: Any, neg_at: Any, pos_above: Any, pos_at: Any, n_neg: float, n_pos: float
                ) -> tuple[np.ndarray, np.ndarray]:
        return (neg_below + 0.5 * neg_at) / n_neg, (pos_above + 0.5 * pos_at) / n_pos

    return formula


def placements(sc: ScoreCounts) -> tuple[np.ndarray, np.ndarray]:
    """Placement value of each score group for positives (V10) and negatives (V01) (:func:`placement_formula`).
    The AUC is the positives' mean V10 and also the negatives' mean V01."""
    tc = threshold_counts(sc)
    n_pos, n_neg = float(tc.n_positive), float(tc.n_negative)
    return placement_formula()(n_neg - tc.fp, sc.negatives, tc.tp - sc.positives, sc.positives, n_neg, n_pos)


def delong(sc: ScoreCounts, *, confidence: float = 0.95) -> DeLongResult:
    """AUC, DeLong's standard error and the normal interval AUC ± z SE.

    var = S10 / P + S01 / N, with S10 the sample variance of the positives'
    placements and S01 that of the negatives'. Needs at least two instances of
    each class (the interval is None otherwise).

    Examples
    --------
    >>> sc = ScoreCounts.from_arrays([1, 1, 1, 0, 0, 0], [0.9, 0.8, 0.4, 0.5, 0.2, 0.1])
    >>> r = delong(sc)
    >>> round(r.auc, 4), round(r.se, 4)
    (0.8889, 0.1571)
    """
    return walk_summary(sc, [DeLongFold(confidence)])[0]


@dataclass(frozen=True)
class DeLongFold:
    """:func:`delong` as a fold of one walk (:func:`assay.metrics.ranking.walk_summary`): each piece gives
    its positives' and negatives' placement sums and their spread about the piece's own mean, which
    combine exactly (Chan, Golub and LeVeque's pairwise update): one walk, where the two-pass formula
    needed two."""

    confidence: float = 0.95
    columns = ("positives", "negatives", "tp", "fp")

    def piece(self, p: Piece) -> tuple[float, ...]:
        n_pos, n_neg = float(p.n_positive), float(p.n_negative)
        pos = p.positives.astype(np.float64)
        neg = p.negatives.astype(np.float64)
        v10 = (n_neg - p.fp + 0.5 * neg) / n_neg
        v01 = (p.tp - 0.5 * pos) / n_pos
        out = []
        for weight, value in ((pos, v10), (neg, v01)):
            mass = float(weight.sum())
            total = float((weight * value).sum())
            spread = float((weight * (value - total / mass) ** 2).sum()) if mass > 0 else 0.0
            out += [mass, total, spread]
        return tuple(out)

    def combine(self, partials: list[tuple[float, ...]], look: Any) -> DeLongResult:
        n_pos = sum(part[0] for part in partials)
        n_neg = sum(part[3] for part in partials)
        area = sum(part[1] for part in partials) / n_pos
        if n_pos < 2 or n_neg < 2:
            return DeLongResult(area, float("nan"), self.confidence, None)
        s10 = sum(spread + mass * (total / mass - area) ** 2
                  for mass, total, spread, *_ in partials if mass > 0) / (n_pos - 1)
        s01 = sum(spread + mass * (total / mass - area) ** 2
                  for *_, mass, total, spread in partials if mass > 0) / (n_neg - 1)
        se = math.sqrt(max(s10 / n_pos + s01 / n_neg, 0.0))
        z = float(normal_quantile(0.5 + self.confidence / 2.0))
        ci = ConfidenceInterval(max(area - z * se, 0.0), min(area + z * se, 1.0))
        return DeLongResult(area, se, self.confidence, ci)


def bootstrap_auc_ci(
    sc: ScoreCounts, *, confidence: float = 0.95, settings: BootstrapSettings = BootstrapSettings()
) -> ConfidenceInterval:
    """Stratified percentile bootstrap interval of the AUC, vectorised.

    Each resample draws P positives and N negatives with replacement (each
    class keeps its size, as pROC's default). On the summary that is: draw the
    score group of every resampled negative and count them per group, turn the
    counts into each group's placement, and sum the placements of the resampled
    positives. Replicates go in chunks, so memory stays O(chunk x n), never
    n x replicates; two seeded streams of replicates run on two threads and give
    the same interval on any machine.
    """
    cp = np.asarray(sc.positives)
    cn = np.asarray(sc.negatives)
    if cp.dtype.kind == "f":
        raise ValueError("the bootstrap of the AUC needs counts, not weights")
    m = len(cp)
    n_pos, n_neg = int(cp.sum()), int(cn.sum())
    group_of_pos = np.repeat(np.arange(m, dtype=np.int32), cp)
    group_of_neg = np.repeat(np.arange(m, dtype=np.int32), cn)
    per_chunk = max(1, min(settings.resamples, 4_000_000 // (n_pos + n_neg + m)))
    values = np.empty(settings.resamples)

    def run(seed: np.random.SeedSequence, start: int, stop: int) -> None:
        rng = np.random.default_rng(seed)
        done = start
        while done < stop:
            c = min(per_chunk, stop - done)
            rows = np.arange(c, dtype=np.int64) * m
            neg_groups = group_of_neg[rng.integers(0, n_neg, size=(c, n_neg), dtype=np.int32)]
            counts = np.bincount((neg_groups + rows[:, None]).ravel(), minlength=c * m).reshape(c, m)
            # twice each group's placement, in integers: 2 (negatives below) + negatives at it
            doubled = 2 * n_neg - 2 * np.cumsum(counts, axis=1, dtype=np.int64) + counts
            pos_groups = group_of_pos[rng.integers(0, n_pos, size=(c, n_pos), dtype=np.int32)]
            values[done:done + c] = doubled.ravel()[pos_groups + rows[:, None]].sum(axis=1)
            done += c

    # two seeded streams, each filling its half: the same numbers however many threads run them
    streams = np.random.SeedSequence(settings.seed).spawn(2)
    half = settings.resamples // 2
    spans = [(streams[0], 0, half), (streams[1], half, settings.resamples)]
    if settings.resamples * (n_pos + n_neg) > 2_000_000:
        with ThreadPoolExecutor(2) as pool:
            for future in [pool.submit(run, *span) for span in spans]:
                future.result()
    else:
        for span in spans:
            run(*span)
    values /= 2.0 * n_pos * n_neg
    alpha = 1.0 - confidence
    low, high = np.quantile(values, [alpha / 2.0, 1.0 - alpha / 2.0])
    return ConfidenceInterval(float(low), float(high))


def logit_interval(value: float, n: float, *, confidence: float = 0.95) -> ConfidenceInterval | None:
    """Boyd, Eng & Page's logit interval for an area in (0, 1) estimated from n positives.

    logistic(logit(v) ± z / sqrt(n v (1 - v))); None at v = 0 or 1.
    """
    if not 0.0 < value < 1.0 or n <= 0:
        return None
    z = float(normal_quantile(0.5 + confidence / 2.0))
    eta = math.log(value / (1.0 - value))
    half = z / math.sqrt(n * value * (1.0 - value))
    return ConfidenceInterval(_logistic(eta - half), _logistic(eta + half))


def _logistic(x: float) -> float:
    """1 / (1 + e^-x), without overflow for large |x|."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def resampled_curves(sc: ScoreCounts, settings: BootstrapSettings) -> Any:
    """The stratified bootstrap of a summary, ``settings.resamples`` curves a chunk at a time: each resample
    draws P positives and N negatives with replacement, which on the summary is a multinomial draw of each
    class's count at every distinct score (the same resamples as drawing the instances). Yields cumulative
    counts ``(tp, fp)`` of shape (c, m + 1), highest score first, the origin prepended; memory stays
    O(chunk x distinct scores)."""
    cp = np.asarray(sc.positives)
    cn = np.asarray(sc.negatives)
    if cp.dtype.kind == "f":
        raise ValueError("the bootstrap needs counts, not weights")
    n_pos, n_neg = int(cp.sum()), int(cn.sum())
    m = len(cp)
    rng = np.random.default_rng(settings.seed)
    per_chunk = max(1, min(settings.resamples, 4_000_000 // (m + 1)))
    done = 0
    while done < settings.resamples:
        c = min(per_chunk, settings.resamples - done)
        tp = np.zeros((c, m + 1), dtype=np.int64)
        fp = np.zeros((c, m + 1), dtype=np.int64)
        np.cumsum(rng.multinomial(n_pos, cp / n_pos, size=c), axis=1, out=tp[:, 1:])
        np.cumsum(rng.multinomial(n_neg, cn / n_neg, size=c), axis=1, out=fp[:, 1:])
        yield tp, fp
        done += c


def bootstrap_operating_points(
    sc: ScoreCounts, targets: np.ndarray, *, given: str, confidence: float = 0.95,
    settings: BootstrapSettings = BootstrapSettings(),
) -> list[ConfidenceInterval | None]:
    """Stratified percentile bootstrap intervals of the sensitivity at given specificities (or the
    specificity at given sensitivities), as pROC's ``ci.se`` (``ci.sp``) computes them.

    Each resample draws P positives and N negatives with replacement; on the summary that is a
    multinomial draw of each class's count at every distinct score, the same resamples as drawing the
    instances. Each resampled curve is read as :func:`assay.metrics.ranking.operating_points` reads the
    curve, and the interval runs between the (1 - c)/2 and (1 + c)/2 quantiles of the replicates
    (R's default quantile, as pROC). Memory stays O(chunk x distinct scores).
    """
    targets = np.asarray(targets, dtype=np.float64)
    n_pos, n_neg = int(np.sum(sc.positives)), int(np.sum(sc.negatives))
    values = np.concatenate([operating_points(tp, fp, n_pos, n_neg, targets, given=given)[0]
                             for tp, fp in resampled_curves(sc, settings)])
    alpha = 1.0 - confidence
    bounds = np.quantile(values, [alpha / 2.0, 1.0 - alpha / 2.0], axis=0)
    return [ConfidenceInterval(float(low), float(high)) for low, high in bounds.T]


def bootstrap_partial_auc(
    sc: ScoreCounts, low: float, high: float, *, focus: str, confidence: float = 0.95,
    settings: BootstrapSettings = BootstrapSettings(),
) -> tuple[ConfidenceInterval, ConfidenceInterval | None, float]:
    """Stratified percentile bootstrap intervals of a partial AUC and of its McClish standardisation, as
    pROC's ``ci.auc`` of a partial AUC (which has no DeLong interval either). Resamples as
    :func:`bootstrap_operating_points`; replicates whose standardisation is undefined (below the
    diagonal) are left out of its interval, as pROC leaves out NA replicates. Returns both intervals and
    the share of replicates in which the standardisation is defined."""
    n_pos, n_neg = int(np.sum(sc.positives)), int(np.sum(sc.negatives))
    raw = np.empty(settings.resamples)
    standard = np.empty(settings.resamples)
    b = 0
    for tp, fp in resampled_curves(sc, settings):
        for tpr, fpr in zip(tp / n_pos, fp / n_neg, strict=True):  # one resampled curve at a time
            raw[b] = partial_auc(fpr, tpr, low, high) if focus == "fpr" else partial_auc(tpr, 1.0 - fpr, low, high)
            s = mcclish(raw[b], low, high, focus)
            standard[b] = np.nan if s is None else s
            b += 1
    alpha = 1.0 - confidence
    qs = [alpha / 2.0, 1.0 - alpha / 2.0]
    lo, hi = np.quantile(raw, qs)
    defined = standard[np.isfinite(standard)]
    share = len(defined) / settings.resamples
    std_ci = ConfidenceInterval(*map(float, np.quantile(defined, qs))) if len(defined) else None
    return ConfidenceInterval(float(lo), float(hi)), std_ci, share


def bootstrap_curve_statistic(
    sc: ScoreCounts, statistic: Any, *, confidence: float = 0.95, settings: BootstrapSettings = BootstrapSettings(),
) -> ConfidenceInterval | None:
    """Stratified percentile bootstrap interval of a statistic of the ROC curve, vectorised: ``statistic(tp,
    fp, n_positive, n_negative)`` maps cumulative counts of shape (c, m + 1) (the origin first) to c values.
    Resamples as :func:`bootstrap_operating_points`; None when the statistic is undefined in over 1% of them."""
    n_pos, n_neg = int(np.sum(sc.positives)), int(np.sum(sc.negatives))
    values = np.concatenate([statistic(tp, fp, n_pos, n_neg) for tp, fp in resampled_curves(sc, settings)])
    finite = values[np.isfinite(values)]
    if len(finite) < 0.99 * len(values):
        return None
    alpha = 1.0 - confidence
    low, high = np.quantile(finite, [alpha / 2.0, 1.0 - alpha / 2.0])
    return ConfidenceInterval(float(low), float(high))
