"""Score counts: the mergeable summary behind every ranking metric.

A ``ScoreCounts`` holds the distinct scores, in decreasing order, with the
number (or weight) of positive and negative instances at each. Every threshold
curve (ROC, precision-recall, lift, the threshold table), AUC and its DeLong
variance are functions of it, and the summaries of disjoint parts of the data
merge into the summary of the whole, exactly.

Building it is one sort. Each score's IEEE-754 bits are turned into an
order-preserving unsigned integer key, shifted left one bit, and the class goes
into the freed lowest bit; a single ``np.sort`` of these keys orders the
instances by score and, within equal scores, puts negatives before positives.
The distinct scores and their class counts are then runs in one sorted array,
found with vectorised comparisons: no argsort, no Python loop, no compiled
extension. (A non-negative float's top bit is 0, so the shift loses nothing;
negative scores are keyed and sorted apart with their bits inverted, which
orders them and frees their top bit too.)
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from assay.summaries.disk import CHUNK, is_on_disk, release, room_for
from assay.summaries.kernels import compiled
from assay.summaries.ranges import RangeColumn, RangeSummary

__all__ = ["ScoreCounts", "SortedKeys", "ThresholdCounts", "concatenate_keys", "make_keys", "sort_keys"]


@dataclass(frozen=True)
class SortedKeys:
    """Instances sorted by score, classes in the lowest bit (the summary, unmaterialised).

    ``negative_keys`` and ``positive_keys`` are the ascending keys of the
    instances whose *score* is negative and non-negative, respectively (the
    class is bit 0 of each key). Inputs validated.
    """

    negative_keys: np.ndarray
    positive_keys: np.ndarray
    float_dtype: np.dtype

    @property
    def n(self) -> int:
        return len(self.negative_keys) + len(self.positive_keys)

    def descending_parts(self) -> list[tuple[np.ndarray, bool]]:
        """(keys, inverted) for each non-empty part, the part of the higher scores first."""
        return self.parts()[::-1]

    def parts(self) -> list[tuple[np.ndarray, bool]]:
        """(keys, inverted) for each non-empty part, in ascending score order."""
        out = []
        if len(self.negative_keys):
            out.append((self.negative_keys, True))
        if len(self.positive_keys):
            out.append((self.positive_keys, False))
        return out

    def class_bits(self, keys: np.ndarray) -> np.ndarray:
        """Whether each key is a positive, read through a byte view (no full-size temporary).

        A bool array, so that ``np.flatnonzero`` and ``np.cumsum`` take numpy's fast paths.
        """
        return (keys.view(np.uint8)[:: keys.itemsize] & np.uint8(1)).view(bool)

    def distinct_bits(self) -> np.ndarray | None:
        """Class bits in decreasing score order when every score is distinct, else None.

        With no ties each instance is its own threshold, so the curves need no run
        detection: one comparison pass decides.
        """
        if len(self.negative_keys) and len(self.positive_keys):
            return None
        keys = self.positive_keys if len(self.positive_keys) else self.negative_keys
        if len(keys) < 2 or not ((keys[1:] ^ keys[:-1]) > keys.dtype.type(1)).all():
            return None
        return self.class_bits(keys)[::-1]

    def descending_scores(self, index: np.ndarray | None = None) -> np.ndarray:
        """Scores in decreasing order (of a single part), optionally at some positions."""
        keys, inverted = self.parts()[0] if len(self.parts()) == 1 else (None, False)
        if keys is None:
            raise ValueError("scores of both signs: use cumulative()")
        desc = keys[::-1]
        return self.decode(desc if index is None else desc[index], inverted)

    def cumulative(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Distinct scores, decreasing, with the positives and negatives scoring >= each.

        The confusion counts at every distinct threshold, read off the runs of
        equal scores in the sorted keys with one cumulative count of positives.
        """
        kernels = compiled(self.n)
        if kernels is not None:
            tp, fp, bits = self.run_counts(kernels, first=0)
            return self.scores_of_bits(bits), tp, fp
        values, pos_before, start = [], [], []
        offset = 0
        positives_so_far = 0
        for keys, inverted in self.parts():
            one = keys.dtype.type(1)
            starts = np.flatnonzero((keys[1:] ^ keys[:-1]) > one)
            starts += 1
            starts = np.concatenate(([0], starts))
            cum = np.cumsum(self.class_bits(keys), dtype=np.int64)
            before = np.empty(len(starts), dtype=np.int64)
            before[0] = 0
            np.take(cum, starts[1:] - 1, out=before[1:])
            values.append(self.decode(keys[starts], inverted))
            pos_before.append(before + positives_so_far)
            start.append(starts + offset)
            offset += len(keys)
            positives_so_far += int(cum[-1])
        if not values:
            empty = np.zeros(0, dtype=np.int64)
            return np.zeros(0), empty, empty
        n_pos = positives_so_far
        ascending = np.concatenate(values) if len(values) > 1 else values[0]
        tp = n_pos - (np.concatenate(pos_before) if len(pos_before) > 1 else pos_before[0])
        at_or_above = self.n - (np.concatenate(start) if len(start) > 1 else start[0])
        fp = at_or_above - tp
        return ascending[::-1], tp[::-1], fp[::-1]

    def run_counts(self, kernels, first: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Cumulative (tp, fp) and the score bits of every distinct score, decreasing, from slot ``first``
        of the arrays (the slots before are left for the caller): the compiled passes, part after part,
        each part's counts carried on by those above it."""
        parts = self.descending_parts()
        sizes = [kernels.runs(keys) for keys, _ in parts]
        m = first + sum(sizes)
        dtype = parts[0][0].dtype if parts else np.uint64
        tp, fp, bits = np.empty(m, np.int64), np.empty(m, np.int64), np.empty(m, dtype)
        slot = first
        for (keys, inverted), size in zip(parts, sizes):
            kernels.run_counts(keys, tp, fp, bits, slot, inverted)
            if slot > first:
                tp[slot:slot + size] += tp[slot - 1]
                fp[slot:slot + size] += fp[slot - 1]
            slot += size
        return tp, fp, bits

    def counts(self, labels: tuple[str, str] = ("0", "1")) -> ScoreCounts:
        """Materialise the summary: distinct scores (decreasing) with their class counts."""
        scores, tp, fp = self.cumulative()
        if len(scores) == 0:
            return ScoreCounts.empty(labels)
        sc = ScoreCounts(scores, _steps(tp), _steps(fp), labels)
        # keep the cumulative counts made on the way: every curve starts from them
        object.__setattr__(sc, "_threshold_counts", ThresholdCounts(scores, tp, fp, tp[-1], fp[-1]))
        return sc

    def scores_of_bits(self, bits: np.ndarray) -> np.ndarray:
        """Float64 scores from their IEEE bits (as the keys hold them, shifted back)."""
        if self.float_dtype == np.float32:
            return bits.view(np.float32).astype(np.float64)
        return bits.view(np.float64)

    def decode(self, keys: np.ndarray, inverted: bool) -> np.ndarray:
        """The scores of some keys of one part."""
        if self.float_dtype == np.float32:
            bits = (keys >> np.uint32(1)).astype(np.uint32)
            if inverted:
                bits = ~bits
            return bits.view(np.float32).astype(np.float64)
        bits = keys >> np.uint64(1)
        if inverted:
            bits = ~bits
        return bits.view(np.float64)


def _steps(cumulative: np.ndarray) -> np.ndarray:
    """The counts whose running sums are ``cumulative``: ``np.diff(cumulative, prepend=0)``, written into one
    new array (np.diff's concatenation first makes another, and cost 0.2 s, not 0.01 s, for 10^7 counts)."""
    out = np.empty_like(cumulative)
    out[:1] = cumulative[:1]
    np.subtract(cumulative[1:], cumulative[:-1], out=out[1:])
    return out


def sort_keys(is_positive: np.ndarray, scores: np.ndarray) -> SortedKeys:
    """Sort instances by score with their class in the lowest bit of each key.

    Parameters
    ----------
    is_positive : bool ndarray of shape (n,)
    scores : float32 or float64 ndarray of shape (n,), finite (inputs validated)
    """
    keys = make_keys(is_positive, scores, compiled(len(scores)))
    keys.negative_keys.sort()
    keys.positive_keys.sort()
    return keys


def make_keys(is_positive: np.ndarray, scores: np.ndarray, kernels=None) -> SortedKeys:
    """The keys of :func:`sort_keys`, not yet sorted (the parts of several batches concatenate before
    one sort: :func:`concatenate_keys`). ``kernels``: the compiled kernels, or None for numpy's passes."""
    if scores.dtype == np.float32:
        uint, shift = np.uint32, np.uint32(1)
    else:
        scores = scores.astype(np.float64, copy=False)
        uint, shift = np.uint64, np.uint64(1)
    if kernels is not None:  # one compiled pass makes the keys, unless a score is negative
        keys = np.empty(len(scores), dtype=uint)
        sign = uint(1) << uint(8 * keys.itemsize - 1)
        bits = np.ascontiguousarray(scores).view(uint)
        if kernels.make_keys(bits, is_positive.view(np.uint8), keys, sign):
            return SortedKeys(np.zeros(0, uint), keys, scores.dtype)
        del keys  # a score is negative: two parts, split in one more compiled pass
        negatives = int(np.count_nonzero(scores < 0))
        neg, pos = np.empty(negatives, uint), np.empty(len(scores) - negatives, uint)
        kernels.split_keys(bits, is_positive.view(np.uint8), neg, pos, sign)
        return SortedKeys(neg, pos, scores.dtype)
    # + 0.0 makes a copy and turns -0.0 into 0.0, so that equal scores get equal keys
    normalized = np.add(scores, scores.dtype.type(0.0))
    keys = normalized.view(uint)
    labels = is_positive.view(np.uint8)
    if not normalized.min(initial=0) < 0:
        keys <<= shift
        keys |= labels
        return SortedKeys(np.zeros(0, uint), keys, scores.dtype)
    negative = normalized < 0
    # a negative float's bits, inverted, order it among negatives, with the top bit freed
    neg = ~keys[negative]
    pos = keys[~negative]
    for part, part_labels in ((neg, labels[negative]), (pos, labels[~negative])):
        part <<= shift
        part |= part_labels
    return SortedKeys(neg, pos, scores.dtype)


def concatenate_keys(pieces: Sequence[SortedKeys]) -> SortedKeys:
    """The unsorted keys of several batches of one float type as one (sort both parts next)."""
    if len(pieces) == 1:
        return pieces[0]
    return SortedKeys(np.concatenate([p.negative_keys for p in pieces]),
                      np.concatenate([p.positive_keys for p in pieces]), pieces[0].float_dtype)


@dataclass(frozen=True)
class ThresholdCounts:
    """Confusion counts at every distinct threshold, highest threshold first: the cumulative form of a
    ``ScoreCounts``, which every curve and area reads (``assay.metrics.ranking.threshold_counts``).

    ``tp[i]`` and ``fp[i]`` count the positives and negatives with score >=
    ``thresholds[i]``; ``n_positive`` and ``n_negative`` are the totals.
    """

    thresholds: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    n_positive: float
    n_negative: float


@dataclass(frozen=True, eq=False)
class ScoreCounts:
    """Per-distinct-score class counts, scores in decreasing order.

    Parameters
    ----------
    scores : float64 ndarray of shape (m,)
        The distinct scores, strictly decreasing.
    positives, negatives : ndarray of shape (m,)
        Count (int64) or total weight (float64) of positive and negative
        instances at each score.
    labels : (str, str)
        The negative and the positive class.

    Examples
    --------
    >>> sc = ScoreCounts.from_arrays([True, False, True, True, False], [0.7, 0.4, 0.8, 0.7, 0.3])
    >>> sc.scores.tolist(), sc.positives.tolist(), sc.negatives.tolist()
    ([0.8, 0.7, 0.4, 0.3], [1, 2, 0, 0], [0, 0, 1, 1])
    """

    scores: np.ndarray
    positives: np.ndarray
    negatives: np.ndarray
    labels: tuple[str, str] = ("0", "1")

    def __post_init__(self) -> None:
        for name in ("scores", "positives", "negatives"):
            if isinstance(getattr(self, name), RangeColumn):  # a summary kept as its sorted keys: read on demand
                continue
            array = np.asarray(getattr(self, name))
            array.setflags(write=False)
            object.__setattr__(self, name, array)
        if not (len(self.scores) == len(self.positives) == len(self.negatives)):
            raise ValueError("scores, positives and negatives must have the same length")

    # construction ---------------------------------------------------------

    @classmethod
    def empty(cls, labels: Sequence[str] = ("0", "1"), *, weighted: bool = False) -> ScoreCounts:
        """The identity of ``merge``."""
        dtype = np.float64 if weighted else np.int64
        return cls(np.zeros(0), np.zeros(0, dtype), np.zeros(0, dtype), tuple(labels))  # type: ignore[arg-type]

    @classmethod
    def from_arrays(
        cls,
        is_positive: Sequence[bool] | np.ndarray,
        scores: Sequence[float] | np.ndarray,
        *,
        sample_weight: np.ndarray | None = None,
        labels: Sequence[str] = ("0", "1"),
    ) -> ScoreCounts:
        """Count instances by distinct score (inputs validated: finite scores)."""
        y = np.asarray(is_positive, dtype=bool)
        s = np.asarray(scores)
        if s.dtype not in (np.float32, np.float64):
            s = s.astype(np.float64)
        if sample_weight is not None:
            return _weighted_counts(y, s, np.asarray(sample_weight, dtype=np.float64), tuple(labels))
        if len(s) == 0:
            return cls.empty(labels)
        return sort_keys(y, s).counts(tuple(labels))  # type: ignore[arg-type]

    @classmethod
    def from_counts(
        cls,
        is_positive: Sequence[bool] | np.ndarray,
        scores: Sequence[float] | np.ndarray,
        counts: Sequence[int] | np.ndarray,
        *,
        labels: Sequence[str] = ("0", "1"),
    ) -> ScoreCounts:
        """From (class, score, count) rows, as an engine's aggregation gives them (inputs validated: finite
        scores, whole counts >= 0); the same rows in any order, repeated or not, give the same summary.

        >>> ScoreCounts.from_counts([True, False, True], [0.7, 0.7, 0.9], [2, 1, 1]).positives.tolist()
        [1, 2]
        """
        y = np.asarray(is_positive, dtype=bool)
        s = np.asarray(scores, dtype=np.float64) + 0.0  # -0.0 is 0.0
        c = np.asarray(counts, dtype=np.int64)
        if len(s) == 0:
            return cls.empty(labels)
        order = np.argsort(-s, kind="stable")
        s, y, c = s[order], y[order], c[order]
        starts = np.concatenate(([0], np.flatnonzero(s[1:] != s[:-1]) + 1))
        return cls(s[starts], np.add.reduceat(np.where(y, c, 0), starts), np.add.reduceat(np.where(y, 0, c), starts),
                   tuple(labels))

    @classmethod
    def of_ranges(cls, ranges: RangeSummary, labels: Sequence[str] = ("0", "1")) -> ScoreCounts:
        """The summary of ranges of sorted keys (:mod:`assay.summaries.ranges`), with its cumulative counts:
        each entry is counted from its range when read."""
        scores, pos, neg, tp, fp = (RangeColumn(ranges, name) for name in ("scores", "positives", "negatives",
                                                                             "tp", "fp"))
        summary = cls(scores, pos, neg, tuple(labels))  # type: ignore[arg-type]
        object.__setattr__(summary, "_threshold_counts",
                           ThresholdCounts(scores, tp, fp, np.int64(ranges.n_positive), np.int64(ranges.n_negative)))
        return summary

    # algebra ----------------------------------------------------------------

    def merge(self, other: ScoreCounts) -> ScoreCounts:
        """The summary of both parts, exactly. Refuses summaries of other classes."""
        if self.labels != other.labels:
            raise ValueError(f"cannot merge score counts of classes {self.labels} and {other.labels}")
        n = len(self.scores) + len(other.scores)
        if n == 0:
            return self
        kernels = compiled(n)
        counts = np.asarray(self.positives).dtype
        if kernels is not None and counts == np.int64 and np.asarray(other.positives).dtype == np.int64:
            scores, pos, neg = np.empty(n), np.empty(n, np.int64), np.empty(n, np.int64)
            m = kernels.merge_counts(np.asarray(self.scores, dtype=np.float64), self.positives, self.negatives,
                                     np.asarray(other.scores, dtype=np.float64), other.positives, other.negatives,
                                     scores, pos, neg)
            if m < n:  # shared scores: give the unused tail back (shrunk in place, not copied)
                for array in (scores, pos, neg):
                    array.resize(m, refcheck=False)
            return ScoreCounts(scores, pos, neg, self.labels)
        scores = np.concatenate([self.scores, other.scores])
        order = np.argsort(-scores, kind="stable")
        scores = scores[order]
        pos = np.concatenate([self.positives, other.positives])[order]
        neg = np.concatenate([self.negatives, other.negatives])[order]
        starts = np.concatenate(([0], np.flatnonzero(scores[1:] != scores[:-1]) + 1))
        return ScoreCounts(scores[starts], np.add.reduceat(pos, starts), np.add.reduceat(neg, starts), self.labels)

    def relabelled(self, labels: Sequence[str], *, swap: bool = False) -> ScoreCounts:
        """The same counts under other class names (negative, positive); with ``swap``, the classes
        exchanged. Cumulative counts already made are kept, so a summary on disk stays cheap."""
        if isinstance(self.scores, RangeColumn):
            ranges = self.scores.summary
            return ScoreCounts.of_ranges(ranges.swapped() if swap else ranges, labels)
        pos, neg = (self.negatives, self.positives) if swap else (self.positives, self.negatives)
        out = ScoreCounts(self.scores, pos, neg, tuple(labels))  # type: ignore[arg-type]
        tc = self.__dict__.get("_threshold_counts")
        if tc is not None:
            if swap:
                tc = type(tc)(tc.thresholds, tc.fp, tc.tp, tc.n_negative, tc.n_positive)
            object.__setattr__(out, "_threshold_counts", tc)
        return out

    def held(self) -> ScoreCounts:
        """This summary with its arrays in memory (a copy of one on disk: for a small one)."""
        if not self.on_disk:
            return self
        tc = self.__dict__.get("_threshold_counts")
        out = ScoreCounts(np.array(self.scores[:]), np.array(self.positives[:]), np.array(self.negatives[:]),
                          self.labels)
        if tc is not None:
            object.__setattr__(out, "_threshold_counts", ThresholdCounts(out.scores, np.array(tc.tp[:]),
                                                                         np.array(tc.fp[:]), tc.n_positive,
                                                                         tc.n_negative))
        return out

    @property
    def on_disk(self) -> bool:
        """Whether the counts are mapped from disk (a summary spilled beyond the memory budget)."""
        return is_on_disk(self.scores)

    def negated(self) -> ScoreCounts:
        """The summary of the negated scores: for scores where lower values mean the positive class (a
        summary spilled to disk is negated to disk, a chunk at a time).

        >>> ScoreCounts.from_arrays([True, False], [0.2, 0.9]).negated().scores.tolist()
        [-0.2, -0.9]
        """
        if isinstance(self.scores, RangeColumn):
            return ScoreCounts.of_ranges(self.scores.summary.negated(), self.labels)
        if self.on_disk:
            return _negated_on_disk(self)
        return ScoreCounts(-np.asarray(self.scores)[::-1] + 0.0, np.asarray(self.positives)[::-1].copy(),
                           np.asarray(self.negatives)[::-1].copy(), self.labels)

    def binned(self, bins: int) -> ScoreCounts:
        """The counts in about ``bins`` groups of consecutive distinct scores, each at its highest score.

        Spark's ``BinaryClassificationMetrics(numBins=bins)`` downsampling: groups of
        ``len // bins`` distinct scores (no grouping below 2); an approximation, which
        treats the instances of a group as tied.

        >>> ScoreCounts(np.array([0.9, 0.8, 0.7, 0.6, 0.5]), np.array([1, 1, 0, 1, 0]),
        ...             np.array([0, 0, 1, 0, 1])).binned(2).scores.tolist()
        [0.9, 0.7, 0.5]

        Counts: a group's counts are the differences of the cumulative counts at the groups' last
        entries, where the summary carries them (its ``ThresholdCounts``): index reads of about
        ``bins`` entries, which a summary kept elsewhere (on disk, in ranges, on Spark's executors)
        serves without reading the rest. Otherwise, and for weights (a difference of float sums would
        round otherwise than the group's own sum), each group is summed (``np.add.reduceat``).
        """
        grouping = len(self.scores) // bins
        if grouping < 2:
            return self
        starts = np.arange(0, len(self.scores), grouping)
        tc = self.__dict__.get("_threshold_counts")
        if tc is not None and np.dtype(self.positives.dtype).kind in "iu":
            ends = np.append(starts[1:] - 1, len(self.scores) - 1)
            positives = np.diff(np.asarray(tc.tp[ends], dtype=np.int64), prepend=0)
            negatives = np.diff(np.asarray(tc.fp[ends], dtype=np.int64), prepend=0)
        else:
            positives = np.add.reduceat(self.positives, starts)
            negatives = np.add.reduceat(self.negatives, starts)
        return ScoreCounts(np.asarray(self.scores[starts], dtype=np.float64), positives, negatives, self.labels)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ScoreCounts):
            return NotImplemented
        return (self.labels == other.labels and len(self) == len(other)
                and all(np.array_equal(getattr(self, name)[:], getattr(other, name)[:])
                        for name in ("scores", "positives", "negatives")))

    __hash__ = None  # type: ignore[assignment]

    # reading ----------------------------------------------------------------

    @property
    def n_positive(self):
        return self.positives.sum()

    @property
    def n_negative(self):
        return self.negatives.sum()

    def __len__(self) -> int:
        return len(self.scores)

    def __repr__(self) -> str:
        return (f"ScoreCounts({len(self.scores)} distinct scores, {self.n_positive} positive "
                f"and {self.n_negative} negative, classes {self.labels})")


def _weighted_counts(y: np.ndarray, s: np.ndarray, w: np.ndarray, labels: tuple[str, str]) -> ScoreCounts:
    if (w == 0).any():  # an instance of weight 0 is as if absent: it makes no score group
        keep = w != 0
        y, s, w = y[keep], s[keep], w[keep]
    if len(s) == 0:
        return ScoreCounts.empty(labels, weighted=True)
    s = s.astype(np.float64) + 0.0
    order = np.argsort(-s, kind="stable")
    s = s[order]
    starts = np.concatenate(([0], np.flatnonzero(s[1:] != s[:-1]) + 1))
    wp = np.where(y, w, 0.0)[order]
    wn = np.where(y, 0.0, w)[order]
    return ScoreCounts(s[starts], np.add.reduceat(wp, starts), np.add.reduceat(wn, starts), labels)


def _negated_on_disk(summary: ScoreCounts, directory: str | None = None) -> ScoreCounts:
    """The summary of the negated scores of a summary mapped from disk, written to disk a chunk at a time
    from its end (its lowest scores become the highest), with its cumulative counts, as
    :func:`assay.summaries.spill.merge_runs` leaves a summary: memory holds a chunk."""
    n = len(summary)
    with room_for(40 * n, directory):
        return _negated_to_files(summary, n, directory)


def _negated_to_files(summary: ScoreCounts, n: int, directory: str | None) -> ScoreCounts:
    count_dtype = np.asarray(summary.positives[:0]).dtype
    files = [tempfile.TemporaryFile(prefix="assay-summary-", dir=directory) for _ in range(5)]
    tp_total = count_dtype.type(0)
    fp_total = count_dtype.type(0)
    for stop in range(n, 0, -CHUNK):
        start = max(0, stop - CHUNK)
        scores = -np.asarray(summary.scores[start:stop], dtype=np.float64)[::-1] + 0.0
        pos = np.asarray(summary.positives[start:stop])[::-1].astype(count_dtype)
        neg = np.asarray(summary.negatives[start:stop])[::-1].astype(count_dtype)
        release(summary.scores, summary.positives, summary.negatives)
        tp = np.cumsum(pos, dtype=count_dtype) + tp_total
        fp = np.cumsum(neg, dtype=count_dtype) + fp_total
        tp_total, fp_total = tp[-1], fp[-1]
        for f, a in zip(files, (scores, pos, neg, tp, fp)):
            a.tofile(f)
    arrays = []
    for f, dtype in zip(files, (np.float64, count_dtype, count_dtype, count_dtype, count_dtype)):
        f.flush()
        arrays.append(np.memmap(f, dtype=dtype, mode="r", shape=(n,)))
        f.close()
    scores, pos, neg, tp, fp = arrays
    negated = ScoreCounts(scores, pos, neg, summary.labels)
    object.__setattr__(negated, "_threshold_counts", ThresholdCounts(negated.scores, tp, fp, tp_total, fp_total))
    return negated
