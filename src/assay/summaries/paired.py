"""Mergeable summaries of models compared on the same instances, for data read in batches.

What the paired tests depend on, gathered a batch at a time and added up:

- :class:`JointGroups`: the instances grouped by (actual class, model 1's prediction, model 2's), with
  each group's size and first row. McNemar's table and the paired bootstrap of the accuracy difference
  (:func:`assay.inference.paired_bootstrap.paired_bootstrap_groups`, which draws the groups in the order
  of their first instance) need nothing else.
- :class:`CochranTotals`: each model's number of correct instances and the sum of the squares of the
  number of models right on each instance: Cochran's Q.
- :class:`PlacementMoments`: by class, the sums and sums of squares of the placements about each
  model's AUC, and of every pair's differences about the difference of their AUCs: DeLong's variances
  and covariance. Centred on the AUCs (known from the summaries before the second pass), the sums stay
  accurate, and two models that rank alike give differences of exactly 0. Each instance's placements under
  every model, paired, come from :mod:`assay.summaries.placements`.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np

__all__ = ["CochranTotals", "JointGroups", "PlacementMoments", "joint_cells"]


class JointGroups:
    """Instances grouped by (actual class, prediction 1, prediction 2), as labels: each group's first row
    (counted from 0 over all the batches) and size."""

    def __init__(self) -> None:
        self.groups: dict[tuple[str, str, str], list[int]] = {}

    def add(self, labels: Sequence[str], truth: np.ndarray, pred1: np.ndarray, pred2: np.ndarray,
            first_row: int) -> None:
        """A batch's codes (into ``labels``), its first row counted from 0 over all the batches."""
        self.add_cells(labels, *joint_cells(len(labels), truth, pred1, pred2), first_row)

    def add_cells(self, labels: Sequence[str], cells: np.ndarray, first: np.ndarray, counts: np.ndarray,
                  first_row: int) -> None:
        """A batch's groups as :func:`joint_cells` gives them, its first row counted from 0 over all the batches."""
        k = len(labels)
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


SMALL_TABLE = 1 << 12
"""Cells of (actual class, prediction 1, prediction 2) counted in a table (k^3 of them, k classes) rather than
found by sorting."""

HEAD = 4096
"""Instances of a batch where each group's first instance is looked for first (nearly always found there)."""


def joint_cells(k: int, truth: np.ndarray, pred1: np.ndarray, pred2: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The groups of a batch's instances by (actual class, prediction 1, prediction 2), as codes into k
    classes: each group's cell (truth * k + prediction 1) * k + prediction 2, increasing, its first
    instance and its size.

    >>> cells, first, counts = joint_cells(2, np.array([1, 0, 1, 1]), np.array([1, 0, 0, 1]), np.array([1, 1, 0, 1]))
    >>> cells.tolist(), first.tolist(), counts.tolist()
    ([1, 4, 7], [1, 2, 0], [1, 1, 2])
    """
    if k ** 3 > SMALL_TABLE:
        joint = (truth.astype(np.int64) * k + pred1) * k + pred2
        return np.unique(joint, return_index=True, return_counts=True)
    joint = truth.astype(np.int16)
    joint *= k
    joint += pred1
    joint *= k
    joint += pred2
    counts = np.bincount(joint, minlength=k ** 3)
    cells = np.flatnonzero(counts)
    head = joint[:HEAD]
    first = []
    for cell in cells:
        seen = np.flatnonzero(head == cell)
        first.append(int(seen[0]) if len(seen) else int(np.argmax(joint == cell)))
    return cells, np.array(first, dtype=np.int64), counts[cells]


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
            self.add_class(c, [p[rows] for p in placements])

    def add_class(self, c: int, placements: Sequence[np.ndarray]) -> None:
        """The placements of instances of class c (0: positives, 1: negatives), one array per model."""
        self.add_centred(c, [p - a for p, a in zip(placements, self.aucs, strict=True)])

    def add_centred(self, c: int, centred: Sequence[np.ndarray], work: np.ndarray | None = None) -> None:
        """The placements of instances of class c less each model's AUC, one array per model (``work``: an
        array as long, for the differences)."""
        self.n[c] += len(centred[0])
        for i, x in enumerate(centred):
            self.linear[c, i] += float(x.sum())
            self.squares[c, i] += float(np.dot(x, x))
        for q, (i, j) in enumerate(self.pairs):
            d = np.subtract(centred[i], centred[j], out=work)
            self.pair_linear[c, q] += float(d.sum())
            self.pair_squares[c, q] += float(np.dot(d, d))

    def merge(self, other: PlacementMoments) -> None:
        """Add the sums of other instances (about the same AUCs)."""
        self.n += other.n
        self.linear += other.linear
        self.squares += other.squares
        self.pair_linear += other.pair_linear
        self.pair_squares += other.pair_squares

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

