"""A summary larger than its budget kept as its sorted keys: ranges of scores and their offsets.

A scan (:class:`assay.summaries.partition.ScoreScan`) scatters the keys into ranges of scores. Once each
range is sorted (in place: in the scan's temporary file, or in memory), the range's class totals and its
number of distinct scores are all that is needed to place it: the cumulative counts before a range are the
totals of the ranges above it (../DESIGN.md, "Ranges and offsets"). A :class:`RangeSummary` keeps only
that: the sorted keys (4 or 8 bytes a row, where the materialised summary took 40 a distinct score), the
totals, and the offsets. Any entry of the summary (a distinct score, its class counts, its cumulative
counts) is made from its range when asked for: the range's runs are counted off its sorted keys, and the
offsets added.

:meth:`assay.summaries.scores.ScoreCounts.of_ranges` gives a :class:`~assay.summaries.scores.ScoreCounts` whose columns are
:class:`RangeColumn` objects: they index and slice like the arrays of a summary mapped from disk (which
every metric already walks a chunk at a time), so every metric runs on them unchanged, with one
implementation. A range counted is kept while the walk reads it, and the next one is counted on the other
core meanwhile.
"""

from __future__ import annotations

import errno
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, NamedTuple

import numpy as np

from assay.summaries.disk import CHUNK

__all__ = ["KEPT_ENTRIES", "Range", "RangeColumn", "RangeSummary", "known_entries", "read_segments", "write_segments"]

COLUMNS = ("scores", "positives", "negatives", "tp", "fp")

KEPT = 3
"""Ranges counted and kept at least: the one a walk reads, the one before (a chunk across the boundary) and
the next one, counted ahead."""

KEPT_ENTRIES = 4 * CHUNK
"""Entries kept beyond those at most (40 bytes each): small ranges are kept until they hold this many (or
what the budget allows, at least a chunk's worth), so that a walk reading a chunk of each column in turn,
each chunk across several ranges, counts each range once."""


TAKEN = 64
"""Index arrays whose entries (of every column) are kept: the entries read at an index array (up to
``TAKEN_ENTRIES`` of them) are read again at the same index, of another column."""

TAKEN_ENTRIES = 4096


class Segment(NamedTuple):
    """Keys of one class in a file: ``count`` keys of ``dtype`` from byte ``offset``."""

    offset: int
    count: int
    dtype: np.dtype


def read_segments(fileno: int, segments: Sequence[Segment], dtype: np.dtype,
                  widen: Callable[[np.ndarray], np.ndarray] | None = None) -> np.ndarray:
    """The keys of some segments of a file, one after another, as ``dtype`` (``widen`` turns keys of
    another type into it)."""
    out = np.empty(sum(s.count for s in segments), dtype=dtype)
    at = 0
    for s in segments:
        part = out[at:at + s.count] if s.dtype == dtype else np.empty(s.count, s.dtype)
        _pread(fileno, part, s.offset)
        if s.dtype != dtype:
            assert widen is not None
            out[at:at + s.count] = widen(part)
        at += s.count
    return out


def write_segments(fileno: int, segments: Sequence[Segment], keys: np.ndarray) -> None:
    """``keys`` written over the segments of a file, in order (each segment of the keys' type)."""
    at = 0
    for s in segments:
        view = memoryview(keys[at:at + s.count]).cast("B")
        done = 0
        while done < len(view):
            done += os.pwrite(fileno, view[done:], s.offset + done)
        at += s.count


def _pread(fileno: int, part: np.ndarray, offset: int) -> None:
    view = memoryview(part).cast("B")
    done = 0
    while done < len(view):
        read = os.preadv(fileno, [view[done:]], offset + done)
        if read == 0:  # a write lost to a full disk (numpy reports no error for a small one)
            raise OSError(errno.ENOSPC, "the temporary file is shorter than what was written to it")
        done += read


class Range(NamedTuple):
    """One range of scores of a summary: its class totals, its number of distinct scores, and how to count
    it: ``count()`` gives its (scores decreasing, positives, negatives)."""

    positives: int
    negatives: int
    distinct: int
    count: Callable[[], tuple[np.ndarray, np.ndarray, np.ndarray]]


class RangeSummary:
    """The summary of ranges of scores, highest range first, each counted when read (see the module).

    ``owners``: what must live as long as the summary (the temporary files the ranges read)."""

    def __init__(self, ranges: Sequence[Range], owners: Sequence[Any] = (), *, negated: bool = False,
                 swapped: bool = False, kept_entries: int = KEPT_ENTRIES) -> None:
        self.ranges = [r for r in ranges if r.distinct]
        self.kept_entries = kept_entries
        self.owners = list(owners)
        self.negated_view, self.swapped_view = negated, swapped
        order = self.ranges[::-1] if negated else self.ranges
        self.order = order
        sizes = np.array([r.distinct for r in order], dtype=np.int64)
        pos = np.array([r.negatives if swapped else r.positives for r in order], dtype=np.int64)
        neg = np.array([r.positives if swapped else r.negatives for r in order], dtype=np.int64)
        self.starts = np.concatenate(([0], np.cumsum(sizes)))
        self.tp_before = np.concatenate(([0], np.cumsum(pos)))
        self.fp_before = np.concatenate(([0], np.cumsum(neg)))
        self.length = int(self.starts[-1])
        self.n_positive = int(self.tp_before[-1])
        self.n_negative = int(self.fp_before[-1])
        self._lock = threading.Lock()
        self._kept: OrderedDict[int, Future] = OrderedDict()
        self._taken: OrderedDict[bytes, list[np.ndarray]] = OrderedDict()
        self._pool: ThreadPoolExecutor | None = None

    def __len__(self) -> int:
        return self.length

    def negated(self) -> RangeSummary:
        """The summary of the negated scores: the same ranges, in the other order, each read backwards."""
        return RangeSummary(self.ranges, self.owners, negated=not self.negated_view, swapped=self.swapped_view,
                            kept_entries=self.kept_entries)

    def swapped(self) -> RangeSummary:
        """The summary with the two classes exchanged."""
        return RangeSummary(self.ranges, self.owners, negated=self.negated_view, swapped=not self.swapped_view,
                            kept_entries=self.kept_entries)

    # a range, counted ----------------------------------------------------------------------------------

    def _count(self, k: int) -> tuple[np.ndarray, ...]:
        scores, pos, neg = self.order[k].count()
        if self.swapped_view:
            pos, neg = neg, pos
        if self.negated_view:
            scores = -scores[::-1] + 0.0
            pos, neg = pos[::-1], neg[::-1]
        tp = np.cumsum(pos, dtype=np.int64)
        tp += self.tp_before[k]
        fp = np.cumsum(neg, dtype=np.int64)
        fp += self.fp_before[k]
        for column in (scores, pos, neg, tp, fp):  # kept and handed out as views: nobody writes to them
            column.setflags(write=False)
        return scores, pos, neg, tp, fp

    def range(self, k: int) -> tuple[np.ndarray, ...]:
        """The columns (scores, positives, negatives, tp, fp) of range ``k`` (in this summary's order),
        counting the next one ahead on another thread."""
        with self._lock:
            future = self._kept.get(k)
            if future is None:
                future = self._submit(k, now=True)
            self._kept.move_to_end(k)
            if k + 1 < len(self.order) and k + 1 not in self._kept:
                self._submit(k + 1, now=False)
            while len(self._kept) > KEPT and sum(self.order[j].distinct for j in self._kept) > self.kept_entries:
                self._kept.popitem(last=False)
        return future.result()

    def _submit(self, k: int, *, now: bool) -> Future:
        if now:
            future: Future = Future()
            try:
                future.set_result(self._count(k))
            except BaseException as e:  # noqa: BLE001 - handed to the reader, as a pool would
                future.set_exception(e)
        else:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="assay-range-ahead")
            future = self._pool.submit(self._count, k)
        self._kept[k] = future
        return future

    def locate(self, index: np.ndarray) -> np.ndarray:
        """The range of each entry."""
        return np.searchsorted(self.starts, index, side="right") - 1

    def take(self, name: str, index: np.ndarray) -> np.ndarray:
        """Column ``name`` at entries ``index`` (in [0, len)). Every column is read at those entries and kept
        for a while: the same entries of the other columns (a hull's vertices: their thresholds, then their
        counts) are read next, and would count the ranges again."""
        index = np.asarray(index, dtype=np.int64)
        if not len(index):
            return np.zeros(0, dtype=np.float64 if name == "scores" else np.int64)
        key = index.tobytes() if len(index) <= TAKEN_ENTRIES else None
        with self._lock:
            columns = self._taken.get(key) if key is not None else None
        if columns is None:
            columns = self._take_all(index)
            if key is not None:
                with self._lock:
                    self._taken[key] = columns
                    while len(self._taken) > TAKEN:
                        self._taken.popitem(last=False)
        return columns[COLUMNS.index(name)].copy()

    def _take_all(self, index: np.ndarray) -> list[np.ndarray]:
        out = [np.empty(len(index), dtype=np.float64 if c == 0 else np.int64) for c in range(len(COLUMNS))]
        where = self.locate(index)
        order = np.argsort(where, kind="stable")
        bounds = np.flatnonzero(np.diff(where[order])) + 1
        for group in np.split(order, bounds):
            k = int(where[group[0]])
            counted = self.range(k)
            at = index[group] - self.starts[k]
            for c in range(len(COLUMNS)):
                out[c][group] = counted[c][at]
        return out

    def span(self, name: str, start: int, stop: int) -> np.ndarray:
        """Column ``name`` over entries [start, stop)."""
        column = COLUMNS.index(name)
        if stop <= start:
            return np.zeros(0, dtype=np.float64 if column == 0 else np.int64)
        first, last = int(self.locate(np.array([start]))[0]), int(self.locate(np.array([stop - 1]))[0])
        parts = []
        for k in range(first, last + 1):
            values = self.range(k)[column]
            lo, hi = max(start - int(self.starts[k]), 0), min(stop - int(self.starts[k]), len(values))
            parts.append(values[lo:hi])
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        self._kept.clear()
        self._taken.clear()


class RangeColumn:
    """One column of a :class:`RangeSummary` (``scores``, ``positives``, ``negatives``, or the cumulative
    ``tp`` and ``fp``), read like an array mapped from disk: an entry, a slice (any step) or the entries at
    an index array. ``np.asarray`` of the whole column counts every range (a full array in memory): the
    walks read it a chunk at a time."""

    on_disk = True
    ndim = 1

    def __init__(self, summary: RangeSummary, name: str) -> None:
        self.summary = summary
        self.name = name
        self.dtype = np.dtype(np.float64 if name == "scores" else np.int64)

    def __len__(self) -> int:
        return self.summary.length

    @property
    def shape(self) -> tuple[int]:
        return (self.summary.length,)

    @property
    def size(self) -> int:
        return self.summary.length

    def __getitem__(self, index: Any) -> Any:
        n = self.summary.length
        if isinstance(index, slice):
            start, stop, step = index.indices(n)
            if step == 1:
                return self.summary.span(self.name, start, stop)
            return self.summary.take(self.name, np.arange(start, stop, step))
        if isinstance(index, (int, np.integer)):
            i = int(index) + (n if index < 0 else 0)
            if not 0 <= i < n:
                raise IndexError(f"index {int(index)} is out of bounds for a column of {n} entries")
            return self.summary.take(self.name, np.array([i]))[0]
        index = np.asarray(index)
        if index.dtype == bool:
            index = np.flatnonzero(index)
        index = index.astype(np.int64, copy=False)
        if len(index) and (index.min() < -n or index.max() >= n):
            raise IndexError(f"an index is out of bounds for a column of {n} entries")
        return self.summary.take(self.name, np.where(index < 0, index + n, index))

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        if os.environ.get("ASSAY_STRICT_RANGES"):
            raise AssertionError(f"the whole column {self.name!r} of a summary kept as its sorted keys")
        whole = self.summary.span(self.name, 0, self.summary.length)
        return whole if dtype is None else whole.astype(dtype, copy=False)

    def sum(self, *args: Any, **kwargs: Any) -> Any:
        if self.name == "positives":
            return np.int64(self.summary.n_positive)
        if self.name == "negatives":
            return np.int64(self.summary.n_negative)
        return np.asarray(self).sum(*args, **kwargs)

    def __repr__(self) -> str:
        return f"RangeColumn({self.name!r}, {self.summary.length} entries in {len(self.summary.order)} ranges)"


def known_entries(column: Any, shift: int = 0) -> np.ndarray | None:
    """The entries of a column that are cheap to read, increasing (plus ``shift``), or None where every
    entry costs the same: a summary kept elsewhere (Spark's executors) holds a few on hand, which a binary
    search reads first (:func:`assay.metrics.ranking.first_index`)."""
    known = getattr(getattr(column, "summary", None), "known_entries", None)
    return None if known is None else known() + shift
