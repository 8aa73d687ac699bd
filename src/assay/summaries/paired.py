"""Mergeable summaries of models compared on the same instances, for data read in batches.

What the paired tests depend on, gathered a batch at a time and added up:

- :class:`JointGroups`: the instances grouped by (actual class, model 1's prediction, model 2's), with
  each group's size and first row. McNemar's table and the paired bootstrap of the accuracy difference
  (:func:`assay.inference.paired_bootstrap.paired_bootstrap_groups`, which draws the groups in the order
  of their first instance) need nothing else.
- :class:`CochranTotals`: each model's number of correct instances and the sum of the squares of the
  number of models right on each instance: Cochran's Q.
- :class:`PlacementTable`: one model's placement values (DeLong 1988) by distinct score, read off its
  score summary; a placement depends only on an instance's score and class, so a second pass over the
  instances looks each one up (grouped by chunk of the summary, which is read in order).
- :class:`PlacementMoments`: by class, the sums and sums of squares of the placements about each
  model's AUC, and of every pair's differences about the difference of their AUCs: DeLong's variances
  and covariance. Centred on the AUCs (known from the summaries before the second pass), the sums stay
  accurate, and two models that rank alike give differences of exactly 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np

from assay.summaries.disk import CHUNK, release
from assay.summaries.scores import ScoreCounts

__all__ = ["CochranTotals", "JointGroups", "PlacementMoments", "PlacementTable"]


class JointGroups:
    """Instances grouped by (actual class, prediction 1, prediction 2), as labels: each group's first row
    (counted from 0 over all the batches) and size."""

    def __init__(self) -> None:
        self.groups: dict[tuple[str, str, str], list[int]] = {}

    def add(self, labels: Sequence[str], truth: np.ndarray, pred1: np.ndarray, pred2: np.ndarray,
            first_row: int) -> None:
        """A batch's codes (into ``labels``), its first row counted from 0 over all the batches."""
        k = len(labels)
        joint = (truth.astype(np.int64) * k + pred1) * k + pred2
        cells, first, counts = np.unique(joint, return_index=True, return_counts=True)
        for cell, at, count in zip(cells.tolist(), first.tolist(), counts.tolist(), strict=True):
            self.add_group((labels[cell // (k * k)], labels[(cell // k) % k], labels[cell % k]), first_row + at, count)

    def add_group(self, key: tuple[str, str, str], first_row: int, count: int) -> None:
        """``count`` instances of the group ``key`` (truth, prediction 1, prediction 2), the first at ``first_row``."""
        group = self.groups.get(key)
        if group is None:
            self.groups[key] = [first_row, count]
        else:
            group[0] = min(group[0], first_row)
            group[1] += count

    def cells(self, labels: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """The groups' codes (truth * k + prediction 1) * k + prediction 2 in ``labels``, in the order of
        their first instance, and their sizes: what ``paired_bootstrap_groups`` takes."""
        k = len(labels)
        index = {label: i for i, label in enumerate(labels)}
        ordered = sorted(self.groups.items(), key=lambda item: item[1][0])
        cells = np.array([(index[t] * k + index[a]) * k + index[b] for (t, a, b), _ in ordered], dtype=np.int64)
        counts = np.array([count for _, (_, count) in ordered], dtype=np.int64)
        return cells, counts

    def table(self) -> np.ndarray:
        """McNemar's 2 x 2 table: [[both right, only 1 right], [only 2 right, both wrong]]."""
        out = np.zeros((2, 2), dtype=np.int64)
        for (t, a, b), (_, count) in self.groups.items():
            out[int(a != t), int(b != t)] += count
        return out


class CochranTotals:
    """For m models on the same instances: each model's correct instances, the sum over the instances of
    the square of how many models are right, and the number of instances."""

    def __init__(self, m: int) -> None:
        self.correct = np.zeros(m, dtype=np.int64)
        self.row_squares = 0
        self.n = 0

    def add(self, correct: np.ndarray, counts: np.ndarray | None = None) -> None:
        """A batch's (n, m) table of whether each model is right (each row standing for ``counts`` instances,
        or one)."""
        right = correct.astype(np.int64)
        rows = right.sum(axis=1)
        weight = np.ones(len(right), dtype=np.int64) if counts is None else np.asarray(counts, dtype=np.int64)
        self.correct += (right * weight[:, None]).sum(axis=0)
        self.row_squares += int((rows * rows * weight).sum())
        self.n += int(weight.sum())


class PlacementTable:
    """A model's placement values (DeLong 1988), read off its score summary (distinct scores decreasing)
    and its cumulative class counts ``tp`` and ``fp``: a positive scoring s has (negatives below s + half
    the negatives at s) / N, a negative (positives above s + half those at s) / P, as
    :func:`assay.inference.roc.placements` gives them.

    Nothing is copied: the instances are sorted by score and looked up a ``CHUNK`` of distinct scores at a
    time, each chunk's instances found from the chunks' first scores (a small array), searched in order in
    the chunk and its pages given back: a summary mapped from disk is read in order, once per call,
    whatever the number of instances, so a call should look up many (millions of) instances at once."""

    def __init__(self, summary: ScoreCounts, tp: np.ndarray, fp: np.ndarray) -> None:
        self.summary, self.tp, self.fp = summary, tp, fp
        self.n_positive, self.n_negative = float(summary.n_positive), float(summary.n_negative)
        # the chunks' first scores, negated: increasing
        self.starts = -np.asarray(summary.scores[::CHUNK], dtype=np.float64)
        release(summary.scores)

    def lookup(self, scores: np.ndarray, is_positive: np.ndarray) -> np.ndarray:
        """The placements of instances (scores as the summary ranks them, each one in it)."""
        sc = self.summary
        keys = -np.asarray(scores, dtype=np.float64) + 0.0  # increasing as the summary's scores decrease
        order = np.argsort(keys)
        keys = keys[order]
        # the instances of chunk c, in order: keys[bounds[c]:bounds[c + 1]]
        bounds = np.append(np.searchsorted(keys, self.starts, side="left"), len(keys))
        bounds[0] = 0
        out = np.empty(len(keys), dtype=np.float64)
        ascending = np.arange(min(CHUNK, len(sc)) - 1, -1, -1)  # a chunk's entries, lowest score first
        for c in range(len(self.starts)):
            begin, end = int(bounds[c]), int(bounds[c + 1])
            if end == begin:
                continue
            lo, hi = c * CHUNK, min(len(sc), (c + 1) * CHUNK)
            # a binary search of increasing scores in the chunk's decreasing ones, as they are (no copy)
            rank = np.searchsorted(sc.scores[lo:hi], -keys[begin:end][::-1],
                                   sorter=ascending[len(ascending) - (hi - lo):])
            local = (hi - lo - 1 - rank)[::-1]  # the entries looked up, in the chunk
            # the chunk's cumulative counts, read once as a slice (mapped, or counted off a range), and the
            # entry before it
            chunk_fp = np.asarray(self.fp[lo:hi], dtype=np.float64)
            chunk_tp = np.asarray(self.tp[lo:hi], dtype=np.float64)
            fp_above = float(self.fp[lo - 1]) if lo else 0.0
            tp_above = float(self.tp[lo - 1]) if lo else 0.0
            fp, tp = chunk_fp[local], chunk_tp[local]
            previous = np.maximum(local - 1, 0)
            first = local == 0
            fp_before = np.where(first, fp_above, chunk_fp[previous])
            tp_before = np.where(first, tp_above, chunk_tp[previous])
            rows = order[begin:end]
            out[rows] = np.where(is_positive[rows], (self.n_negative - fp + 0.5 * (fp - fp_before)) / self.n_negative,
                                 (tp - 0.5 * (tp - tp_before)) / self.n_positive)
            release(sc.scores, self.tp, self.fp)
        return out


class PlacementMoments:
    """By class (0: positives, 1: negatives), for m models with AUCs ``aucs``: the count, the sums of
    (placement - AUC) and of its square per model, and per pair (i < j) the sums of
    (placement_i - placement_j - (AUC_i - AUC_j)) and of its square."""

    def __init__(self, aucs: Sequence[float]) -> None:
        self.aucs = np.asarray(aucs, dtype=np.float64)
        m = len(self.aucs)
        self.pairs = list(combinations(range(m), 2))
        self.n = np.zeros(2, dtype=np.int64)
        self.linear = np.zeros((2, m))
        self.squares = np.zeros((2, m))
        self.pair_linear = np.zeros((2, len(self.pairs)))
        self.pair_squares = np.zeros((2, len(self.pairs)))

    def add(self, placements: Sequence[np.ndarray], is_positive: np.ndarray) -> None:
        """A batch's placements, one array per model."""
        for c, rows in enumerate((is_positive, ~is_positive)):
            self.n[c] += int(np.count_nonzero(rows))
            centred = [p[rows] - a for p, a in zip(placements, self.aucs, strict=True)]
            for i, x in enumerate(centred):
                self.linear[c, i] += float(x.sum())
                self.squares[c, i] += float(np.dot(x, x))
            for q, (i, j) in enumerate(self.pairs):
                d = placements[i][rows] - placements[j][rows] - (self.aucs[i] - self.aucs[j])
                self.pair_linear[c, q] += float(d.sum())
                self.pair_squares[c, q] += float(np.dot(d, d))

    def _variance(self, c: int, linear: float, squares: float) -> float:
        n = int(self.n[c])
        return max(squares - linear * linear / n, 0.0) / (n - 1)

    def auc(self, i: int) -> float:
        """Model i's AUC as the positives' mean placement."""
        return float(self.aucs[i] + self.linear[0, i] / self.n[0])

    def variances(self, i: int, j: int) -> tuple[float, float, float]:
        """DeLong's variances of AUC_i - AUC_j, of AUC_i and of AUC_j (each class's sample variance over its
        size, summed over the two classes); needs two instances of each class."""
        q = self.pairs.index((i, j))
        out = []
        for linear, squares in ((self.pair_linear[:, q], self.pair_squares[:, q]),
                                (self.linear[:, i], self.squares[:, i]), (self.linear[:, j], self.squares[:, j])):
            out.append(sum(self._variance(c, float(linear[c]), float(squares[c])) / int(self.n[c]) for c in (0, 1)))
        return out[0], out[1], out[2]

