"""Ranking metrics: ROC, precision-recall, lift, thresholds, all from ``ScoreCounts``.

Every curve is a thin layer over one primitive, ``threshold_counts``: the
confusion counts at each distinct threshold, with an instance predicted
positive iff its score >= the threshold (Fawcett, 2006). Thresholds run from the
highest score down, so the ROC curve runs from (0, 0) to (1, 1); instances
with equal scores move together, so ties make diagonal segments.

References
----------
T. Fawcett (2006), An introduction to ROC analysis, Pattern Recognition
Letters 27:861-874. J. A. Hanley, B. J. McNeil (1982), Radiology
143:29-36 (AUC as the Mann-Whitney statistic).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from assay.metrics.confusion import Cells
from assay.summaries.disk import CHUNK, is_on_disk, release
from assay.summaries.kernels import compiled
from assay.summaries.ranges import known_entries
from assay.summaries.scores import ScoreCounts, SortedKeys, ThresholdCounts
from assay.summaries.walk import Piece, walk

__all__ = [
    "ThresholdCounts",
    "threshold_counts",
    "threshold_counts_from_keys",
    "roc_points",
    "roc_point",
    "roc_chunks",
    "best_point",
    "best_points",
    "BestFold",
    "NearFold",
    "PartialAucFold",
    "PrFold",
    "walk_summary",
    "walk_threshold_counts",
    "want",
    "auc",
    "auc_from_keys",
    "partial_auc",
    "pr_points",
    "average_precision",
    "pr_auc_trapezoid",
    "pr_areas",
    "lift_points",
    "gains_at",
    "counts_at",
    "drop_collinear",
    "partial_auc_of",
    "first_index",
]


def threshold_counts_from_keys(keys: SortedKeys) -> ThresholdCounts:
    """The primitive straight from the sorted keys (the unweighted fast path)."""
    thresholds, tp, fp = keys.cumulative()
    return ThresholdCounts(thresholds, tp, fp, tp[-1] if len(tp) else 0, fp[-1] if len(fp) else 0)


def threshold_counts(sc: ScoreCounts) -> ThresholdCounts:
    """The primitive: cumulative class counts down the distinct scores (computed once per summary).

    Examples
    --------
    >>> sc = ScoreCounts.from_arrays([1, 0, 1, 1, 0], [0.7, 0.4, 0.8, 0.7, 0.3])
    >>> tc = threshold_counts(sc)
    >>> tc.thresholds.tolist(), tc.tp.tolist(), tc.fp.tolist()
    ([0.8, 0.7, 0.4, 0.3], [1, 3, 3, 3], [0, 0, 1, 2])
    """
    cached = sc.__dict__.get("_threshold_counts")
    if cached is not None:
        return cached
    tp = np.cumsum(sc.positives)
    fp = np.cumsum(sc.negatives)
    n_pos = tp[-1] if len(tp) else 0
    n_neg = fp[-1] if len(fp) else 0
    tc = ThresholdCounts(sc.scores, tp, fp, n_pos, n_neg)
    object.__setattr__(sc, "_threshold_counts", tc)  # a pure function of the frozen counts
    return tc


def walk_summary(sc: ScoreCounts, folds: list[Any]) -> list[Any]:
    """Every fold's result from one walk over the summary (:func:`assay.summaries.walk.walk`): the metrics
    that reduce over the distinct scores share one read of them, on both cores. The folds asked of the
    summary ahead (:func:`want`) are computed in the same walk, and every result is kept with the summary
    (a pure function of its frozen counts): a fold already computed is not walked again."""
    done = sc.__dict__.setdefault("_walked", {})
    todo = list(dict.fromkeys([fold for fold in folds if fold not in done]
                              + [fold for fold in sc.__dict__.get("_wanted", ()) if fold not in done]))
    if todo:
        tc = threshold_counts(sc)
        columns = {"scores": sc.scores, "positives": sc.positives, "negatives": sc.negatives, "tp": tc.tp,
                   "fp": tc.fp}
        done.update(zip(todo, walk(columns, todo, n_positive=tc.n_positive, n_negative=tc.n_negative)))
        sc.__dict__.pop("_wanted", None)
    return [done[fold] for fold in folds]


def want(sc: ScoreCounts, fold: Any) -> None:
    """Ask for ``fold``'s result in the next walk of the summary, whichever metric starts it: a fold needed
    later (the probabilistic losses, after the ranking metrics) shares the ranking metrics' walk."""
    sc.__dict__.setdefault("_wanted", []).append(fold)


def walk_threshold_counts(tc: ThresholdCounts, folds: list[Any]) -> list[Any]:
    """:func:`walk_summary` for folds that read the cumulative counts only."""
    columns = {"scores": tc.thresholds, "positives": None, "negatives": None, "tp": tc.tp, "fp": tc.fp}
    return walk(columns, folds, n_positive=tc.n_positive, n_negative=tc.n_negative)


def roc_points(tc: ThresholdCounts) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """FPR, TPR and thresholds, starting at (0, 0) with threshold +inf (as scikit-learn).

    Inputs validated: both classes present.
    """
    fpr = np.concatenate(([0.0], tc.fp / tc.n_negative))
    tpr = np.concatenate(([0.0], tc.tp / tc.n_positive))
    thresholds = np.concatenate(([np.inf], tc.thresholds))
    return fpr, tpr, thresholds


POINT_CHUNK = CHUNK  # ROC points handled at a time by the chunked walks


def roc_point(tc: ThresholdCounts, i: int) -> tuple[float, float, float]:
    """(threshold, FPR, TPR) of ROC point ``i`` of ``roc_points`` (0 is (0, 0) at +inf)."""
    if i == 0:
        return math.inf, 0.0, 0.0
    return float(tc.thresholds[i - 1]), float(tc.fp[i - 1] / tc.n_negative), float(tc.tp[i - 1] / tc.n_positive)


def roc_chunks(tc: ThresholdCounts):
    """(first index, FPR, TPR) of the ROC points of ``roc_points``, ``POINT_CHUNK`` at a time: what a walk
    over a long curve needs without holding it whole."""
    m = len(tc.tp) + 1
    for start in range(0, m, POINT_CHUNK):
        stop = min(m, start + POINT_CHUNK)
        lo = max(start - 1, 0)
        fpr = tc.fp[lo:stop - 1] / tc.n_negative
        tpr = tc.tp[lo:stop - 1] / tc.n_positive
        if start == 0:
            fpr = np.concatenate(([0.0], fpr))
            tpr = np.concatenate(([0.0], tpr))
        release(tc.fp, tc.tp)
        yield start, fpr, tpr


def best_point(tc: ThresholdCounts, objective, *, best: str) -> tuple[int, float, int]:
    """(first index, value, number of points within 1e-12 of it) of the ROC point that maximises (``best``
    "max") or minimises ``objective(fpr, tpr)``; two chunked walks, no curve-long arrays."""
    return best_points(tc, [(objective, best)])[0]


def best_points(tc: ThresholdCounts, objectives) -> list[tuple[int, float, int]]:
    """:func:`best_point` of each (objective, best) pair, all in one walk (:class:`BestFold`)."""
    return walk_threshold_counts(tc, [BestFold(tuple(objectives))])[0]


def _roc_of_piece(p: Piece) -> tuple[int, np.ndarray, np.ndarray]:
    """(index of the first ROC point, FPR, TPR) of a piece's points (:func:`roc_points` numbering: the
    point after entry i is i + 1; the first piece starts at the origin)."""
    fpr = p.fp / p.n_negative
    tpr = p.tp / p.n_positive
    if p.start == 0:
        return 0, np.concatenate(([0.0], fpr)), np.concatenate(([0.0], tpr))
    return p.start + 1, fpr, tpr


def _near(values: np.ndarray, start: int, target: float, tol: float) -> tuple[int, float, int]:
    """(index, value) of the first of ``values`` (points ``start`` on) within ``tol`` of ``target``, and the
    number of them; (-1, target, 0) if none."""
    near = np.flatnonzero(np.abs(values - target) <= tol)
    return (start + int(near[0]), float(values[near[0]]), len(near)) if len(near) else (-1, target, 0)


def _tolerance(target: float) -> float:
    return 1e-12 * max(1.0, abs(target))


@dataclass(frozen=True)
class BestFold:
    """The ROC points best for each (objective, best) pair, as a fold (:func:`walk_summary`): each piece
    gives its best value of each objective, with the first of its points within 1e-12 of that value and
    their number; then only the pieces whose best is near the best of all without being it are looked at
    again (:class:`NearFold`), for the first point within 1e-12 of the best of all and the number of points
    that are (:func:`best_points`). A piece whose best is the best of all has counted them already (one
    summary of at most a chunk of distinct scores, the common case, is walked once).
    """

    objectives: tuple[tuple[Any, str], ...]
    columns = ("tp", "fp")

    def piece(self, p: Piece) -> list[tuple[float, tuple[int, float, int]]]:
        start, fpr, tpr = _roc_of_piece(p)
        out = []
        for objective, best in self.objectives:
            values = objective(fpr, tpr)
            extreme = float(values.max()) if best == "max" else float(values.min())
            out.append((extreme, _near(values, start, extreme, _tolerance(extreme))))
        return out

    def combine(self, partials: list[list[tuple[float, tuple[int, float, int]]]],
                look: Any) -> list[tuple[int, float, int]]:
        columns = [[part[j][0] for part in partials] for j in range(len(self.objectives))]
        targets = tuple(max(column) if best == "max" else min(column)
                        for column, (_, best) in zip(columns, self.objectives))
        tols = tuple(_tolerance(target) for target in targets)
        # a piece whose best is farther from every target has no point near one; one whose best is the
        # target has its points near it counted; the others are looked at again
        near = [i for i in range(len(partials))
                if any(abs(column[i] - t) <= tol for column, t, tol in zip(columns, targets, tols))]
        again = [i for i in near if any(abs(column[i] - t) <= tol and column[i] != t
                                        for column, t, tol in zip(columns, targets, tols))]
        seen = dict(zip(again, look(NearFold(self.objectives, targets, tols), again)))
        found = []
        for j, target in enumerate(targets):
            first, value, hits = -1, target, 0
            for i in near:
                if abs(columns[j][i] - target) > tols[j]:
                    continue
                at, at_value, count = partials[i][j][1] if columns[j][i] == target else seen[i][j]
                if count and first < 0:
                    first, value = at, at_value
                hits += count
            found.append((first, value, hits))
        return found


@dataclass(frozen=True)
class NearFold:
    """:class:`BestFold`'s second look at a piece: for each objective, the first point within ``tols`` of
    its target (index, value; -1 if none) and the number of points that are."""

    objectives: tuple[tuple[Any, str], ...]
    targets: tuple[float, ...]
    tols: tuple[float, ...]
    columns = ("tp", "fp")

    def piece(self, p: Piece) -> list[tuple[int, float, int]]:
        start, fpr, tpr = _roc_of_piece(p)
        return [_near(objective(fpr, tpr), start, target, tol)
                for (objective, _), target, tol in zip(self.objectives, self.targets, self.tols)]

    def combine(self, partials: list[Any], look: Any) -> list[Any]:
        return partials


def auc(sc: ScoreCounts) -> float:
    """Area under the ROC curve: the Mann-Whitney statistic, ties counted one half.

    AUC = P(score of a random positive > score of a random negative)
    + 1/2 P(equal), which is the trapezoidal area under the exact ROC curve.

    Examples
    --------
    Five instances: probabilities consistent with the labels (AUC 1), then degraded.

    >>> auc(ScoreCounts.from_arrays([1, 0, 1, 1, 0], [0.7, 0.4, 0.8, 0.7, 0.3]))
    1.0
    >>> round(auc(ScoreCounts.from_arrays([1, 0, 1, 1, 0], [0.2, 0.4, 0.8, 0.7, 0.7])), 4)
    0.5833
    """
    pos = sc.positives.astype(np.float64)
    neg = sc.negatives.astype(np.float64)
    n_pos, n_neg = pos.sum(), neg.sum()
    below = n_neg - np.cumsum(neg)  # negatives with a lower score than this group
    return float((pos * (below + 0.5 * neg)).sum() / (n_pos * n_neg))


def auc_from_keys(keys: SortedKeys) -> float:
    """AUC straight from the sorted keys, without materialising the groups.

    With instances in ascending order and, among equal scores, negatives first,
    the negatives before a positive at position i are i - r (r = its rank among
    positives): all lower negatives and all tied ones. So
    U = sum_i (i - r) - 1/2 sum_groups n_pos n_neg, and the tie term needs only
    the few places where a negative and a positive share a score.
    """
    parts = keys.parts()
    kernels = compiled(keys.n)
    if kernels is not None:  # part by part: the positives of a higher part rank above the negatives below
        twice_u = n_pos = n_neg = 0
        for part, _ in keys.descending_parts():
            u, p, q = kernels.auc_twice_u(part)
            twice_u += int(u) + 2 * n_pos * int(q)
            n_pos += int(p)
            n_neg += int(q)
        return float(twice_u) / 2.0 / (n_pos * n_neg)
    offset = 0
    u = 0.0
    n_pos = 0
    for part, _ in parts:
        one = part.dtype.type(1)
        positions = np.flatnonzero(keys.class_bits(part))
        k = len(positions)
        u += float(positions.sum()) + offset * k - (n_pos * k + k * (k - 1) / 2)
        n_pos += k
        offset += len(part)
        # ties across classes: a run of equal scores holding both classes has exactly one
        # adjacent (negative, positive) pair, where the keys differ in bit 0 only
        boundary = np.flatnonzero((part[1:] ^ part[:-1]) == one)
        if len(boundary):
            first_pos = boundary + 1
            neg_run = first_pos - np.searchsorted(part, part[boundary], side="left")
            pos_run = np.searchsorted(part, part[first_pos], side="right") - first_pos
            u -= 0.5 * float((neg_run * pos_run).sum())
    n_neg = keys.n - n_pos
    return u / (n_pos * n_neg)


def partial_auc(fpr: np.ndarray, tpr: np.ndarray, low: float, high: float) -> float:
    """Area under the (piecewise linear) ROC curve between FPR = low and FPR = high.

    Exact for the curve with diagonal tie segments; the points are those of
    ``roc_points`` (FPR non-decreasing).
    """
    grid = np.concatenate(([low], fpr[(fpr > low) & (fpr < high)], [high]))
    # where the curve is vertical (several points at one FPR), each piece starts at the
    # top of the step on its left and ends at the bottom of the step on its right
    starts = _interp_right(grid[:-1], fpr, tpr)
    ends = _interp_left(grid[1:], fpr, tpr)
    return float(((starts + ends) * np.diff(grid)).sum() / 2.0)


def partial_auc_of(tc: ThresholdCounts, low: float, high: float) -> float:
    """``partial_auc`` of the ROC curve of ``tc``, walked a piece at a time (:class:`PartialAucFold`: no
    curve-long arrays)."""
    return walk_threshold_counts(tc, [PartialAucFold(low, high)])[0]


@dataclass(frozen=True)
class PartialAucFold:
    """The area under the ROC curve over FPR in [low, high], as a fold: the area is additive over FPR, so
    each piece, led by the point before it, gives the part of [low, high] it spans (with the same one-sided
    limits at its ends), and the parts add up."""

    low: float
    high: float
    columns = ("tp", "fp")

    def piece(self, p: Piece) -> float:
        fpr = np.concatenate(([p.fp_before / p.n_negative], p.fp / p.n_negative))
        tpr = np.concatenate(([p.tp_before / p.n_positive], p.tp / p.n_positive))
        a, b = max(self.low, float(fpr[0])), min(self.high, float(fpr[-1]))
        return partial_auc(fpr, tpr, a, b) if b > a else 0.0

    def combine(self, partials: list[float], look: Any) -> float:
        return float(sum(partials))


def _interp_right(x: np.ndarray, fpr: np.ndarray, tpr: np.ndarray) -> np.ndarray:
    """TPR just right of x (the highest TPR at a vertical step)."""
    i = np.searchsorted(fpr, x, side="right") - 1
    i = np.clip(i, 0, len(fpr) - 2)
    x0, x1 = fpr[i], fpr[i + 1]
    y0, y1 = tpr[i], tpr[i + 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(x1 > x0, (x - x0) / (x1 - x0), 1.0)
    return y0 + t * (y1 - y0)


def _interp_left(x: np.ndarray, fpr: np.ndarray, tpr: np.ndarray) -> np.ndarray:
    """TPR just left of x (the lowest TPR at a vertical step)."""
    i = np.searchsorted(fpr, x, side="left")
    i = np.clip(i, 1, len(fpr) - 1)
    x0, x1 = fpr[i - 1], fpr[i]
    y0, y1 = tpr[i - 1], tpr[i]
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(x1 > x0, (x - x0) / (x1 - x0), 0.0)
    return y0 + t * (y1 - y0)


def pr_points(tc: ThresholdCounts, prevalence: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Precision, recall and thresholds at every distinct threshold, highest first.

    Precision is TP / (TP + FP); it is not monotone in the threshold (Davis & Goadrich,
    2006). At a ``prevalence`` pi (where the classifier will be used), the precision the
    same rates would give there: TPR pi / (TPR pi + FPR (1 - pi)) (Bayes' rule; recall
    does not move).
    """
    recall = tc.tp / tc.n_positive
    return precision_at(tc.tp, tc.fp, tc.n_positive, tc.n_negative, prevalence), recall, tc.thresholds


def precision_at(tp: np.ndarray, fp: np.ndarray, n_positive: float, n_negative: float,
                 prevalence: float | None) -> np.ndarray:
    """TP / (TP + FP), or at a prevalence pi, TPR pi / (TPR pi + FPR (1 - pi)); 1 where nothing is predicted."""
    tp = np.asarray(tp, dtype=np.float64)
    fp = np.asarray(fp, dtype=np.float64)
    if prevalence is None:
        hits, predicted = tp, tp + fp
    else:
        hits = tp / float(n_positive) * prevalence
        predicted = hits + fp / float(n_negative) * (1.0 - prevalence)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(predicted > 0, hits / np.where(predicted > 0, predicted, 1.0), 1.0)


def average_precision(tc: ThresholdCounts) -> float:
    """Average precision: sum over thresholds of (R_k - R_(k-1)) P_k, as scikit-learn.

    The step-wise area: each gain in recall is weighted by the precision
    reached there, with no interpolation (which would be optimistic).
    """
    return pr_areas(tc)[0]


def pr_areas(tc: ThresholdCounts, prevalence: float | None = None) -> tuple[float, float]:
    """Average precision and the trapezoidal PR area, sharing one walk over the points (:class:`PrFold`);
    at a ``prevalence``, of the precision there (:func:`pr_points`)."""
    return walk_threshold_counts(tc, [PrFold(prevalence)])[0]


@dataclass(frozen=True)
class PrFold:
    """Average precision and the trapezoidal PR area as a fold (:func:`walk_summary`): a piece's terms need
    only its counts and the point before it (the origin's precision is 1)."""

    prevalence: float | None = None
    columns = ("tp", "fp")

    def piece(self, p: Piece) -> tuple[float, float]:
        precision = precision_at(p.tp, p.fp, p.n_positive, p.n_negative, self.prevalence)
        recall = p.tp / p.n_positive
        last_recall = float(p.tp_before / p.n_positive)
        last_precision = float(precision_at(np.array([p.tp_before]), np.array([p.fp_before]), p.n_positive,
                                            p.n_negative, self.prevalence)[0])
        gained = np.diff(recall, prepend=last_recall)
        previous = np.concatenate(([last_precision], precision[:-1]))
        return float((gained * precision).sum()), float((gained * (precision + previous) / 2.0).sum())

    def combine(self, partials: list[tuple[float, float]], look: Any) -> tuple[float, float]:
        ap = trapezoid = 0.0
        for a, t in partials:
            ap += a
            trapezoid += t
        return ap, trapezoid


def pr_auc_trapezoid(tc: ThresholdCounts) -> float:
    """Trapezoidal area under the precision-recall points, from (0, 1).

    What scikit-learn's ``auc(recall, precision)`` gives on its
    ``precision_recall_curve``. Linear interpolation between PR points is
    optimistic (Davis & Goadrich 2006); average precision is the better summary.
    """
    precision, recall, _ = pr_points(tc)
    r = np.concatenate(([0.0], recall))
    p = np.concatenate(([1.0], precision))
    return float((np.diff(r) * (p[1:] + p[:-1]) / 2.0).sum())


def lift_points(tc: ThresholdCounts, prevalence: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Depth (share of instances flagged), gains (share of positives found) and lift.

    Instances sorted by decreasing score; at each distinct threshold the top
    (TP + FP) / n of them are taken (the lift chart of Witten & Frank, *Data Mining*,
    section 5.7). Lift is the precision there over the prevalence. At a ``prevalence``
    pi (where the classifier will be used), those of a population with that share of
    positives: the depth pi TPR + (1 - pi) FPR, the gains TPR (they do not move), the
    lift gains / depth (the precision there over pi), as the data re-weighted to pi
    give them.
    """
    gains = tc.tp / tc.n_positive
    if prevalence is None:
        depth = (tc.tp + tc.fp) / (tc.n_positive + tc.n_negative)
    else:
        depth = prevalence * gains + (1.0 - prevalence) * (tc.fp / tc.n_negative)
    with np.errstate(invalid="ignore", divide="ignore"):
        lift = gains / depth
    return depth, gains, lift


def gains_at(tc: ThresholdCounts, depth: float) -> float:
    """Share of positives among the top ``depth`` of instances, ties split evenly.

    Linear between the two distinct thresholds around that depth: a tie is split
    in proportion, the expected value over the orders of the tied instances.
    """
    n = float(tc.n_positive + tc.n_negative)
    target = depth * n
    # the first threshold with at least ``target`` instances at or above it (tp + fp increases)
    i = first_index(len(tc.tp), lambda j: float(tc.tp[j] + tc.fp[j]) >= target, known_entries(tc.tp))
    if i >= len(tc.tp):
        return 1.0
    hi_n, hi_tp = float(tc.tp[i] + tc.fp[i]), float(tc.tp[i])
    lo_n, lo_tp = (float(tc.tp[i - 1] + tc.fp[i - 1]), float(tc.tp[i - 1])) if i > 0 else (0.0, 0.0)
    found = lo_tp + (hi_tp - lo_tp) * (target - lo_n) / (hi_n - lo_n) if hi_n > lo_n else hi_tp
    release(tc.tp, tc.fp)
    return float(found / tc.n_positive)


def first_index(n: int, reached, known: np.ndarray | None = None) -> int:
    """The first j in [0, n) with ``reached(j)`` true (false then true along j), else n: a binary search.

    ``known``: indices (increasing) that are cheap to read (:func:`assay.summaries.ranges.known_entries`):
    searched first, so that the rest of the search stays between two of them."""
    lo, hi = 0, n
    if known is not None:
        known = known[known < n]
        g_lo, g_hi = 0, len(known)
        while g_lo < g_hi:
            mid = (g_lo + g_hi) // 2
            if reached(int(known[mid])):
                g_hi = mid
            else:
                g_lo = mid + 1
        if g_lo < len(known):
            hi = int(known[g_lo])
        if g_lo > 0:
            lo = int(known[g_lo - 1]) + 1
    while lo < hi:
        mid = (lo + hi) // 2
        if reached(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def counts_at(tc: ThresholdCounts, thresholds: np.ndarray) -> Cells:
    """The four cells at arbitrary thresholds (positive iff score >= threshold)."""
    t = np.asarray(thresholds, dtype=np.float64)
    # number of distinct scores >= t (scores are decreasing)
    if is_on_disk(tc.thresholds):  # a binary search each, reading a few entries from disk
        m = len(tc.thresholds)
        known = known_entries(tc.thresholds)
        k = np.array([first_index(m, lambda j, x=x: not tc.thresholds[j] >= x, known) for x in t.ravel()],
                     dtype=np.int64).reshape(t.shape)
    else:
        k = np.searchsorted(-tc.thresholds, -t, side="right")
    tp = np.where(k > 0, tc.tp[np.maximum(k - 1, 0)], 0) if len(tc.tp) else np.zeros_like(t)
    fp = np.where(k > 0, tc.fp[np.maximum(k - 1, 0)], 0) if len(tc.fp) else np.zeros_like(t)
    tp = np.asarray(tp, dtype=np.float64)
    fp = np.asarray(fp, dtype=np.float64)
    release(tc.thresholds, tc.tp, tc.fp)
    return Cells(tp, fp, tc.n_positive - tp, tc.n_negative - fp)


def drop_collinear(fp: np.ndarray, tp: np.ndarray) -> np.ndarray:
    """Indices of the points kept by scikit-learn's ``drop_intermediate``.

    A point is dropped when it lies on a straight horizontal or vertical run
    (the second difference of both coordinates is zero); the ends are kept.
    """
    if len(fp) <= 2:
        return np.arange(len(fp))
    keep = np.concatenate(([True], (np.diff(fp, 2) != 0) | (np.diff(tp, 2) != 0), [True]))
    return np.flatnonzero(keep)


def operating_points(tp: np.ndarray, fp: np.ndarray, n_positive: float, n_negative: float, targets: np.ndarray,
                     *, given: str) -> tuple[np.ndarray, np.ndarray]:
    """The sensitivity at given specificities (``given="specificity"``), or the specificity at given
    sensitivities (``given="sensitivity"``), read off ROC curves as pROC's ``coords`` reads them.

    ``tp`` and ``fp`` are cumulative counts at each distinct threshold, highest first, with the origin
    (0, 0) prepended: shape (m + 1,), or (B, m + 1) for B curves at once. A curve point that has the
    target exactly gives its value (of several, the best: the highest sensitivity at a specificity, the
    highest specificity at a sensitivity); otherwise the value is linearly interpolated between the two
    consecutive points on either side of the target. Returns the values, shape (..., len(targets)), and
    the index of the exact point (-1 where interpolated).

    >>> tp = np.array([0, 1, 2, 2, 3]); fp = np.array([0, 0, 1, 2, 2])
    >>> operating_points(tp, fp, 3, 2, np.array([1.0, 0.75]), given="specificity")[0].tolist()
    [[0.3333333333333333, 0.5]]
    """
    tp = np.atleast_2d(np.asarray(tp, dtype=np.float64))
    fp = np.atleast_2d(np.asarray(fp, dtype=np.float64))
    sens = tp / float(n_positive)
    spec = (float(n_negative) - fp) / float(n_negative)
    rows = np.arange(sens.shape[0])[:, None]
    last = sens.shape[1] - 1
    t = np.asarray(targets, dtype=np.float64)[None, :]
    if given == "specificity":  # specificity falls along the curve: the last point that still reaches it
        i = np.clip(np.stack([np.searchsorted(-row, -t[0], side="right") for row in spec]) - 1, 0, last)
        j = np.minimum(i + 1, last)
        at, nxt = spec[rows, i], spec[rows, j]
        exact = at == t
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.where(exact | (nxt == at), 0.0, (at - t) / (at - nxt))
        values = sens[rows, i] + share * (sens[rows, j] - sens[rows, i])
    elif given == "sensitivity":  # sensitivity rises along the curve: the first point that reaches it
        i = np.clip(np.stack([np.searchsorted(row, t[0], side="left") for row in sens]), 0, last)
        j = np.maximum(i - 1, 0)
        at, before = sens[rows, i], sens[rows, j]
        exact = at == t
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.where(exact | (at == before), 0.0, (at - t) / (at - before))
        values = spec[rows, i] + share * (spec[rows, j] - spec[rows, i])
    else:
        raise ValueError(f"given must be 'specificity' or 'sensitivity', not {given!r}")
    return values, np.where(exact, i, -1)


def partial_auc_sensitivity(tc: ThresholdCounts, low: float, high: float) -> float:
    """The partial AUC over a range of sensitivities, as pROC's ``partial.auc.focus = "sensitivity"``: the
    area under the specificity, as a function of the sensitivity along the curve, for sensitivity in
    [low, high] (the axes swapped; the area between the curve and the right edge, within that band)."""
    fpr, tpr, _ = roc_points(tc)
    return partial_auc(tpr, 1.0 - fpr, low, high)


def partial_auc_focus(tc: ThresholdCounts, low: float, high: float, focus: str) -> float:
    """The partial AUC over FPR in [low, high] (``focus="fpr"``) or sensitivity in [low, high]."""
    return partial_auc_of(tc, low, high) if focus == "fpr" else partial_auc_sensitivity(tc, low, high)


def mcclish(area: float, low: float, high: float, focus: str) -> float | None:
    """McClish's (1989) standardised partial AUC, 1/2 (1 + (A - min) / (max - min)), with max the width of
    the range and min the area of the diagonal over it; None where it is not defined (a range of zero
    width, or a curve below the diagonal there, as pROC refuses it)."""
    width = high - low
    minimum = (high * high - low * low) / 2.0 if focus == "fpr" else width - (high * high - low * low) / 2.0
    if width <= minimum or area < minimum:
        return None
    return 0.5 * (1.0 + (area - minimum) / (width - minimum))
