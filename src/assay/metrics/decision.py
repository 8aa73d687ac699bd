"""Net benefit (Vickers & Elkin 2006): the arithmetic of a decision curve, and its counts from a summary.

Treating the instances whose probability is at least a threshold probability ``pt`` gains the true positives
and costs the false positives, each weighed by the odds ``pt / (1 - pt)`` (the harm of an unnecessary
treatment relative to the benefit of a necessary one, which is what choosing ``pt`` says):

    net benefit = TP / n - FP / n * pt / (1 - pt)

or, at a prevalence ``pi`` given for the population (a case-control sample, as ``rmda`` and ``dcurves`` take
it), ``TPR * pi - FPR * (1 - pi) * pt / (1 - pt)``. Treating everyone gives ``pi - (1 - pi) * pt / (1 - pt)``
and treating no one 0. The net interventions avoided per 100 are ``(NB - NB_all) / (pt / (1 - pt)) * 100``
and the standardized net benefit ``NB / pi`` (Kerr et al. 2016).

An instance is treated when its probability is >= ``pt``, as ``dcurves`` compares them. The counts a curve
needs are the instances of each class between consecutive thresholds: ``DecisionBinsFold`` counts them in one
walk of a two-class score summary (in memory, on disk, or on Spark's executors), so the curve is exact at any
scale and its bootstrap resamples those few counts.

>>> import numpy as np
>>> nb = net_benefit(np.array([3.0]), np.array([1.0]), 4.0, 4.0, np.array([0.25]))
>>> float(nb[0])
0.3333333333333333
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from assay.errors import InvalidInput
from assay.summaries.walk import in_summary_order

__all__ = [
    "DEFAULT_THRESHOLDS_RANGE",
    "MAX_THRESHOLDS",
    "DecisionBinsFold",
    "check_thresholds_range",
    "costs_threshold",
    "net_benefit",
    "odds",
    "threshold_grid",
    "treat_all",
    "treated_counts",
]

DEFAULT_THRESHOLDS_RANGE = (0.01, 0.99, 0.01)
"""The threshold probabilities of a decision curve when none are given: 0.01 to 0.99 by 0.01."""

MAX_THRESHOLDS = 100_000
"""Threshold probabilities of one decision curve at most."""


def check_thresholds_range(value: Any, field: str = "thresholds_range") -> tuple[float, float, float]:
    """(low, high, step) of threshold probabilities: 0 <= low <= high < 1, step > 0 (a pair takes step 0.01).

    >>> check_thresholds_range((0.05, 0.5))
    (0.05, 0.5, 0.01)
    >>> check_thresholds_range((0.5, 1.0, 0.1))
    Traceback (most recent call last):
    ...
    assay.errors.InvalidInput: thresholds_range: must be low,high[,step] with 0 <= low <= high < 1 and step > 0 \
(a threshold probability of 1 would weigh a false positive infinitely), got (0.5, 1.0, 0.1)
    """
    wanted = ("must be low,high[,step] with 0 <= low <= high < 1 and step > 0 (a threshold probability of 1 would "
              f"weigh a false positive infinitely), got {value!r}")
    try:
        parts = tuple(float(v) for v in value)
    except (TypeError, ValueError):
        raise InvalidInput(wanted, field=field) from None
    if len(parts) == 2:
        parts = (*parts, DEFAULT_THRESHOLDS_RANGE[2])
    if len(parts) != 3 or not all(np.isfinite(parts)):
        raise InvalidInput(wanted, field=field)
    low, high, step = parts
    if not (0.0 <= low <= high < 1.0 and step > 0.0):
        raise InvalidInput(wanted, field=field)
    if (high - low) / step + 1 > MAX_THRESHOLDS:
        raise InvalidInput(f"{(high - low) / step + 1:,.0f} threshold probabilities; at most {MAX_THRESHOLDS:,} "
                           "(a larger step)", field=field)
    return low, high, step


def threshold_grid(low: float, high: float, step: float) -> np.ndarray:
    """The threshold probabilities low, low + step, ... up to high (included when on the grid), each rounded
    to 12 decimals so that 0.07 is the number a file's "0.07" reads as (a probability equal to a threshold is
    treated).

    >>> threshold_grid(0.05, 0.2, 0.05).tolist()
    [0.05, 0.1, 0.15, 0.2]
    """
    count = int(np.floor((high - low) / step + 1e-9)) + 1
    return np.unique(np.round(low + step * np.arange(count), 12))


def costs_threshold(fp: float, fn: float, tp: float = 0.0, tn: float = 0.0) -> float | None:
    """The threshold probability that costs imply: treating is worth it when ``p * (fn - tp) >= (1 - p) *
    (fp - tn)``, so ``pt = (fp - tn) / ((fp - tn) + (fn - tp))`` (None when that is not within (0, 1)).

    >>> costs_threshold(1.0, 9.0)
    0.1
    """
    harm, benefit = fp - tn, fn - tp
    if harm <= 0 or benefit <= 0:
        return None
    return harm / (harm + benefit)


def odds(pt: np.ndarray) -> np.ndarray:
    """The exchange rate of a threshold probability: ``pt / (1 - pt)`` false positives per true positive."""
    pt = np.asarray(pt, dtype=np.float64)
    return pt / (1.0 - pt)


@dataclass(frozen=True)
class DecisionBinsFold:
    """The instances of each class between consecutive thresholds, as a fold of one walk over a two-class
    score summary (:mod:`assay.summaries.walk`).

    Bin ``j`` holds the scores with exactly ``j`` thresholds at or below them: bin 0 is below the first
    threshold, bin ``m`` at or above the last. The result is (positives, negatives), float64 arrays of
    ``len(thresholds) + 1`` bins (exact counts while they stay below 2**53).

    A summary's piece has its scores in decreasing order: each bin is a run of it, found by a binary search a
    threshold, and its whole counts are differences of the piece's cumulative counts (weights are added in order,
    as for a piece in any other order, whose scores are each looked up).

    >>> from assay.summaries.walk import Piece
    >>> fold = DecisionBinsFold((0.2, 0.5))
    >>> s, pos, neg = np.array([0.9, 0.5, 0.2, 0.1]), np.array([2, 1, 0, 1]), np.array([0, 1, 3, 2])
    >>> [a.tolist() for a in fold.combine([fold.piece(Piece(0, 4, s, pos, neg, None, None, 0, 0, 4, 6))], None)]
    [[1.0, 0.0, 3.0], [2.0, 3.0, 1.0]]
    """

    thresholds: tuple[float, ...]
    columns = ("scores", "positives", "negatives", "tp", "fp")

    def piece(self, p: Any) -> tuple[np.ndarray, np.ndarray]:
        bins = len(self.thresholds) + 1
        pt = np.asarray(self.thresholds, dtype=np.float64)
        scores = np.asarray(p.scores, dtype=np.float64)
        if len(scores) and in_summary_order(scores):
            down = np.negative(scores)  # increasing: searched
            # a summary's piece: the scores at or above threshold j are its first above[j], so each bin is a run
            above = np.searchsorted(down, -pt, side="right")
            edges = np.concatenate(([0], above[::-1], [len(down)]))  # bin m first, bin 0 last
            tp, fp = (None if c is None else np.asarray(c) for c in (p.tp, p.fp))
            if tp is not None and fp is not None and tp.dtype.kind in "iu" and fp.dtype.kind in "iu":
                # whole counts: a bin's are differences of the cumulative counts (exact), read at the runs' ends
                return (self._runs(tp, p.tp_before, edges)[::-1].astype(np.float64),
                        self._runs(fp, p.fp_before, edges)[::-1].astype(np.float64))
            where = np.repeat(np.arange(bins)[::-1], np.diff(edges))  # weights: summed as below, in order
        else:
            where = np.searchsorted(pt, scores, side="right")
        return (np.bincount(where, weights=np.asarray(p.positives, dtype=np.float64), minlength=bins),
                np.bincount(where, weights=np.asarray(p.negatives, dtype=np.float64), minlength=bins))

    @staticmethod
    def _runs(cumulative: np.ndarray, before: Any, edges: np.ndarray) -> np.ndarray:
        """The counts of entries [edges[k], edges[k + 1]) of a piece from its cumulative counts (``before``
        the piece's)."""
        at = cumulative[np.maximum(edges - 1, 0)].astype(np.int64)
        at[edges == 0] = int(before)
        return np.diff(at)

    def combine(self, partials: list[tuple[np.ndarray, np.ndarray]], look: Any) -> tuple[np.ndarray, np.ndarray]:
        bins = len(self.thresholds) + 1
        positives, negatives = np.zeros(bins), np.zeros(bins)
        for pos, neg in partials:  # in order, as one loop over the pieces adds them
            positives += pos
            negatives += neg
        return positives, negatives


def joint_bins(positive: np.ndarray, a: np.ndarray, b: np.ndarray, thresholds: np.ndarray,
               weights: np.ndarray | None = None) -> np.ndarray:
    """Two models' instances on the same rows counted by (class, bin of a, bin of b), flattened: the summary of a
    paired decision curve (``2 * (m + 1) ** 2`` cells for ``m`` thresholds; bins as :class:`DecisionBinsFold`'s).
    Counts of several batches add up.

    >>> joint_bins(np.array([True, False]), np.array([0.9, 0.1]), np.array([0.2, 0.6]), np.array([0.5])).tolist()
    [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0]
    """
    pt = np.asarray(thresholds, dtype=np.float64)
    bins = len(pt) + 1
    ia = np.searchsorted(pt, np.asarray(a, dtype=np.float64), side="right")
    ib = np.searchsorted(pt, np.asarray(b, dtype=np.float64), side="right")
    cells = (np.asarray(positive).astype(np.int64) * bins + ia) * bins + ib
    return np.bincount(cells, weights=weights, minlength=2 * bins * bins).astype(np.float64)


def treated_counts(bins: np.ndarray) -> np.ndarray:
    """From the counts of one class per bin (the last axis: ``m + 1`` bins), the instances at or above each of
    the ``m`` thresholds: the true positives (of the positives) or false positives (of the negatives)."""
    bins = np.asarray(bins, dtype=np.float64)
    above = np.cumsum(bins[..., ::-1], axis=-1)[..., ::-1]  # at or above bin j
    return above[..., 1:]


def net_benefit(tp: np.ndarray, fp: np.ndarray, n_positive: Any, n_negative: Any, pt: np.ndarray, *,
                prevalence: float | None = None) -> np.ndarray:
    """The net benefit at each threshold probability ``pt`` (broadcast over leading axes of ``tp``/``fp``,
    with ``n_positive``/``n_negative`` of shape ``(..., 1)`` or scalars): ``TP/n - FP/n * odds``, or at a given
    ``prevalence`` ``TPR * pi - FPR * (1 - pi) * odds``. NaN where a class is empty and the formula needs it."""
    tp, fp = np.asarray(tp, dtype=np.float64), np.asarray(fp, dtype=np.float64)
    n_positive, n_negative = np.asarray(n_positive, dtype=np.float64), np.asarray(n_negative, dtype=np.float64)
    w = odds(pt)
    with np.errstate(divide="ignore", invalid="ignore"):
        if prevalence is None:
            n = n_positive + n_negative
            return tp / n - fp / n * w
        return tp / n_positive * prevalence - fp / n_negative * (1.0 - prevalence) * w


def treat_all(prevalence: Any, pt: np.ndarray) -> np.ndarray:
    """The net benefit of treating everyone: ``pi - (1 - pi) * pt / (1 - pt)``."""
    prevalence = np.asarray(prevalence, dtype=np.float64)
    return prevalence - (1.0 - prevalence) * odds(pt)
