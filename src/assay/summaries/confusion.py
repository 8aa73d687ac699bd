"""Confusion counts: the mergeable summary behind every label-based metric.

A ``ConfusionCounts`` is a k x k table of counts with its class labels, rows for
the actual class and columns for the predicted class. Summaries of disjoint parts
of the data add up to the summary of the whole (``merge`` is associative and
commutative, and ``empty`` is its identity), which is what lets the same metrics
run on chunks of a stream or on the partitions of a distributed engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from assay.checks import check_count_table
from assay.inputs import encode_labels
from assay.limits import MAX_COUNT

__all__ = ["ConfusionCounts", "confusion_counts"]


@dataclass(frozen=True, eq=False)
class ConfusionCounts:
    """Counts of (actual, predicted) class pairs.

    Parameters
    ----------
    labels : tuple of str
        The k class labels, in matrix order.
    counts : ndarray of shape (k, k), int64
        ``counts[i, j]`` is the number of instances of actual class ``labels[i]``
        predicted as ``labels[j]``.
    weighted : bool, default False
        True for totals of sample weights that are not whole numbers (float64):
        estimates can be computed from them, but not the intervals and tests that
        need counts.

    Examples
    --------
    >>> cm = ConfusionCounts.from_codes([0, 0, 1, 1], [0, 1, 1, 1], labels=("neg", "pos"))
    >>> cm.counts.tolist()
    [[1, 1], [0, 2]]
    >>> cm.merge(cm).counts.tolist()
    [[2, 2], [0, 4]]
    """

    labels: tuple[str, ...]
    counts: np.ndarray
    weighted: bool = False

    def __post_init__(self) -> None:
        counts = np.asarray(self.counts)
        k = len(self.labels)
        if counts.shape != (k, k):
            raise ValueError(f"counts must have shape ({k}, {k}), got {counts.shape}")
        if len(set(self.labels)) != k:
            raise ValueError(f"labels repeat: {self.labels}")
        if self.weighted:
            counts = np.array(counts, dtype=np.float64)
            if not (np.isfinite(counts).all() and (counts >= 0).all()):
                raise ValueError("weighted counts must be finite and >= 0")
            counts.setflags(write=False)
            object.__setattr__(self, "labels", tuple(self.labels))
            object.__setattr__(self, "counts", counts)
            return
        if counts.dtype.kind not in "iu" or (counts.dtype.kind == "u" and counts.size and counts.max() > MAX_COUNT):
            counts = check_count_table(self.counts, "counts", shape=(k, k))  # floats, big integers: exact or refused
        counts = counts.astype(np.int64, copy=True)
        counts.setflags(write=False)
        object.__setattr__(self, "labels", tuple(self.labels))
        object.__setattr__(self, "counts", counts)

    # construction ---------------------------------------------------------

    @classmethod
    def empty(cls, labels: Sequence[str]) -> ConfusionCounts:
        """The identity of ``merge``: no instances."""
        k = len(labels)
        return cls(tuple(labels), np.zeros((k, k), dtype=np.int64))

    @classmethod
    def from_codes(
        cls, true_codes: Sequence[int] | np.ndarray, pred_codes: Sequence[int] | np.ndarray, *, labels: Sequence[str],
        sample_weight: np.ndarray | None = None,
    ) -> ConfusionCounts:
        """Count pairs of integer class codes (inputs validated: codes in range; weights finite, >= 0).

        Whole-number weights count each instance that many times (the counts stay whole and exact up
        to 2^53); other weights give a ``weighted`` table of totals.

        >>> ConfusionCounts.from_codes([0, 1, 1], [0, 1, 0], labels=("a", "b"), sample_weight=[2, 1, 3]).counts.tolist()
        [[2, 0], [3, 1]]
        """
        k = len(labels)
        t = np.asarray(true_codes, dtype=np.intp)
        p = np.asarray(pred_codes, dtype=np.intp)
        if sample_weight is None:
            return cls(tuple(labels), np.bincount(t * k + p, minlength=k * k).reshape(k, k))
        w = np.asarray(sample_weight, dtype=np.float64)
        flat = np.bincount(t * k + p, weights=w, minlength=k * k).reshape(k, k)
        if bool(np.all(w == np.floor(w))):
            return cls(tuple(labels), flat.astype(np.int64))  # whole: exact below 2^53, checked by the caller
        return cls(tuple(labels), flat, weighted=True)

    # algebra ----------------------------------------------------------------

    def merge(self, other: ConfusionCounts) -> ConfusionCounts:
        """The summary of both parts. Refuses summaries with other labels."""
        if self.labels != other.labels:
            raise ValueError(
                f"cannot merge confusion counts with labels {self.labels} and {other.labels}; "
                "align them first with with_labels()"
            )
        weighted = self.weighted or other.weighted
        return ConfusionCounts(self.labels, self.counts + other.counts, weighted=weighted)

    def with_labels(self, labels: Sequence[str]) -> ConfusionCounts:
        """The same counts over a superset of the labels, in the given order."""
        labels = tuple(labels)
        missing = set(self.labels) - set(labels)
        if missing:
            raise ValueError(f"labels {sorted(missing)} would be dropped")
        index = np.array([labels.index(label) for label in self.labels], dtype=np.intp)
        counts = np.zeros((len(labels), len(labels)), dtype=self.counts.dtype)
        counts[np.ix_(index, index)] = self.counts
        return ConfusionCounts(labels, counts, weighted=self.weighted)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ConfusionCounts):
            return NotImplemented
        return self.labels == other.labels and self.weighted == other.weighted and \
            np.array_equal(self.counts, other.counts)

    def __hash__(self) -> int:
        return hash((self.labels, self.counts.tobytes()))

    # reading ----------------------------------------------------------------

    @property
    def n(self) -> int | float:
        """Number of instances (the total weight of a ``weighted`` table)."""
        return float(self.counts.sum()) if self.weighted else int(self.counts.sum())

    @property
    def actual_totals(self) -> np.ndarray:
        """Instances of each actual class (row sums)."""
        return self.counts.sum(axis=1)

    @property
    def predicted_totals(self) -> np.ndarray:
        """Instances predicted as each class (column sums)."""
        return self.counts.sum(axis=0)

    def __repr__(self) -> str:
        return f"ConfusionCounts(labels={self.labels!r}, counts={self.counts.tolist()!r})"


def confusion_counts(y_true, y_pred, *, labels: Sequence[object] | None = None) -> ConfusionCounts:
    """The confusion counts of two label arrays (lists, numpy, pandas, polars).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        Actual and predicted classes; ``1``, ``1.0`` and ``"1"`` are one class.
    labels : sequence, optional
        The classes in matrix order; by default those seen, sorted.

    Examples
    --------
    >>> confusion_counts(["a", "b", "b"], ["a", "a", "b"]).counts.tolist()
    [[1, 0], [1, 1]]
    """
    enc = encode_labels({"y_true": y_true, "y_pred": y_pred}, labels=labels)
    return ConfusionCounts.from_codes(enc.codes["y_true"], enc.codes["y_pred"], labels=enc.labels)
