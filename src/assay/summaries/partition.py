"""Class counts per distinct score of any number of rows, within a memory budget: a sample sort.

Each batch's scores become order-preserving unsigned keys (a score's IEEE bits, a negative one's
inverted and a non-negative one's with the top bit set, so that keys compare as scores do), kept
apart by class. While the keys fit in the budget they stay in memory; past it, splitters are drawn
from a sample of the keys held, and from then on every batch's keys are scattered into
``PARTITIONS`` ranges of scores and appended to one temporary file. At the end each range is read
back, sorted and counted on its own (on several threads), from the highest range down, so that
the distinct scores come out already in decreasing order: no merge. The summary is assembled in
memory when small; else it is not made: each range is sorted in place (in the file, or in memory) and
kept as its sorted keys with its class totals and number of distinct scores, and any part of the
summary is counted off its range when read (:mod:`assay.summaries.ranges`): the disk holds the keys
alone.

Each row is written once and read once (4 bytes for a float32 score, 8 for a float64), and each
sort holds one range: a range larger than its share of the budget (scores that drifted away from
the sample, or one score held by a great many rows) is partitioned again from a sample of its own,
or, when its keys cannot be split (a single score), counted a part at a time and merged.

The file is unlinked from the moment it is made, so it vanishes however the process ends.
"""

from __future__ import annotations

import errno
import os
import tempfile
import threading
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple

import numpy as np

from assay.summaries.disk import CHUNK, release
from assay.summaries.kernels import compiled
from assay.summaries.ranges import (
    KEPT_ENTRIES,
    Range,
    RangeSummary,
    Segment,
    read_segments,
    write_segments,
)
from assay.summaries.scores import ScoreCounts, ThresholdCounts
from assay.summaries.spill import MergeTree

__all__ = ["PARTITIONS", "Keys", "Scattered", "ScoreScan", "Splitters", "assemble", "batch_keys", "decode_keys",
           "one_vs_rest", "pair_counts"]

PARTITIONS = 256
"""Ranges of scores the keys are scattered into once they pass the budget."""

SAMPLE = 1 << 16
"""Keys sampled to draw the splitters."""

ROW_BYTES = 48
"""Memory one row takes while its range is counted: its key, and at worst (every score distinct) the
distinct key, its score, two counts and two cumulative counts."""

IN_MEMORY_SPLIT = 1 << 20
"""Keys held in memory from which ranges are sorted on several threads."""

_SIGN = {np.dtype(np.uint32): np.uint32(1 << 31), np.dtype(np.uint64): np.uint64(1 << 63)}
_FLOAT = {np.dtype(np.uint32): np.dtype(np.float32), np.dtype(np.uint64): np.dtype(np.float64)}


class Keys(NamedTuple):
    """A batch's order-preserving score keys, the positive instances' and the negative ones' apart."""

    positive: np.ndarray
    negative: np.ndarray

    @property
    def n(self) -> int:
        return len(self.positive) + len(self.negative)

    @property
    def dtype(self) -> np.dtype:
        return self.positive.dtype

    def swapped(self) -> Keys:
        return Keys(self.negative, self.positive)


def batch_keys(is_positive: np.ndarray, scores: np.ndarray, kernels: Any = None) -> Keys:
    """The keys of finite scores (float32 scores get 4-byte keys, others 8), -0.0 read as 0.0.

    ``kernels``: the compiled kernels (one pass), or None for numpy's passes.
    """
    is_positive = np.asarray(is_positive, dtype=bool)
    if scores.dtype != np.float32:
        scores = scores.astype(np.float64, copy=False)
    uint = np.dtype(np.uint32) if scores.dtype == np.float32 else np.dtype(np.uint64)
    sign = _SIGN[uint]
    bits = np.ascontiguousarray(scores).view(uint)
    if kernels is not None:
        positives = int(np.count_nonzero(is_positive))
        out = Keys(np.empty(positives, uint), np.empty(len(bits) - positives, uint))
        kernels.order_keys(bits, is_positive.view(np.uint8), out.positive, out.negative, sign)
        return out
    bits = np.where(bits == sign, uint.type(0), bits)  # -0.0 is 0.0
    keys = np.where(bits & sign, ~bits, bits | sign)
    return Keys(keys[is_positive], keys[~is_positive])


def decode_keys(keys: np.ndarray) -> np.ndarray:
    """The float64 scores of some keys."""
    sign = _SIGN[keys.dtype]
    bits = np.where(keys & sign, keys ^ sign, ~keys)
    return bits.view(_FLOAT[keys.dtype]).astype(np.float64, copy=False)


def _widened(keys: np.ndarray) -> np.ndarray:
    """4-byte keys as the 8-byte keys of the same scores (a float32 is exactly a float64)."""
    if keys.dtype == np.uint64:
        return keys
    scores = decode_keys(keys)
    return batch_keys(np.ones(len(scores), dtype=bool), scores).positive


def _runs(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of sorted keys and how many times each occurs."""
    if not len(keys):
        return keys, np.zeros(0, np.int64)
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    return keys[starts], np.diff(np.append(starts, len(keys))).astype(np.int64)


def _count_classes(arrays: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    """(Sorted in place) the distinct keys of a range over any number of classes, decreasing, with how
    many of each class hold each."""
    runs = []
    for keys in arrays:
        keys.sort()
        runs.append(_runs(keys))
    distinct = np.unique(np.concatenate([r[0] for r in runs]))
    out = [distinct[::-1]]
    for values, counts in runs:
        column = np.zeros(len(distinct), np.int64)
        column[np.searchsorted(distinct, values)] = counts
        out.append(column[::-1])
    return tuple(out)


def _merged(pieces: list[tuple[np.ndarray, ...]]) -> tuple[np.ndarray, ...]:
    """Pieces of (decreasing keys or scores, counts of each class) as one, equal keys adding their counts."""
    values = np.concatenate([p[0] for p in pieces])
    order = np.argsort(-values, kind="stable") if values.dtype.kind == "f" else np.argsort(values)[::-1]
    values = values[order]
    starts = np.flatnonzero(np.concatenate(([True], values[1:] != values[:-1]))) if len(values) else \
        np.zeros(0, np.intp)
    out = [values[starts]]
    for c in range(1, len(pieces[0])):
        counts = np.concatenate([p[c] for p in pieces])[order]
        out.append(np.add.reduceat(counts, starts) if len(starts) else counts)
    return tuple(out)


def _count(positive: np.ndarray, negative: np.ndarray, kernels: Any) -> tuple[np.ndarray, ...]:
    """(Sorted in place) the distinct keys of a range, decreasing, with their positives and negatives."""
    positive.sort()
    negative.sort()
    return _count_sorted(positive, negative, kernels)


def _count_sorted(positive: np.ndarray, negative: np.ndarray, kernels: Any) -> tuple[np.ndarray, ...]:
    """The distinct keys of a range whose keys are sorted, decreasing, with their positives and negatives."""
    if kernels is not None:
        n = len(positive) + len(negative)
        keys, pos, neg = np.empty(n, positive.dtype), np.empty(n, np.int64), np.empty(n, np.int64)
        m = kernels.count_sorted(positive, negative, keys, pos, neg)
        return keys[:m], pos[:m], neg[:m]
    up, cp = np.unique(positive, return_counts=True)
    un, cn = np.unique(negative, return_counts=True)
    keys = np.union1d(up, un)
    pos, neg = np.zeros(len(keys), np.int64), np.zeros(len(keys), np.int64)
    pos[np.searchsorted(keys, up)] = cp
    neg[np.searchsorted(keys, un)] = cn
    return keys[::-1], pos[::-1], neg[::-1]


_TABLE_BITS = {np.dtype(np.uint32): 16, np.dtype(np.uint64): 20}


class Splitters(NamedTuple):
    """The keys that split ranges (ascending, distinct) and the table of the range of each top-bits
    prefix (:func:`assay.summaries.numba_kernels.scatter`)."""

    keys: np.ndarray
    table: np.ndarray
    shift: Any

    @classmethod
    def of(cls, keys: np.ndarray) -> Splitters:
        bits = _TABLE_BITS[keys.dtype]
        shift = keys.dtype.type(8 * keys.itemsize - bits)
        prefixes = np.arange(1 << bits, dtype=keys.dtype) << shift
        return cls(keys, np.searchsorted(keys, prefixes, side="right").astype(np.uint16), shift)

    def __len__(self) -> int:
        return len(self.keys)


def _scattered(keys: np.ndarray, splitters: Splitters, kernels: Any) -> tuple[np.ndarray, np.ndarray]:
    """(keys grouped by range, where each range starts) for ranges split at ``splitters``."""
    parts = len(splitters) + 1
    if kernels is not None and len(keys):
        out, offsets = np.empty_like(keys), np.zeros(parts + 1, np.int64)
        kernels.scatter(keys, splitters.keys, splitters.table, splitters.shift, out, offsets)
        return out, offsets
    bucket = np.searchsorted(splitters.keys, keys, side="right")
    out = keys[np.argsort(bucket, kind="stable")]
    offsets = np.zeros(parts + 1, np.int64)
    np.cumsum(np.bincount(bucket, minlength=parts), out=offsets[1:])
    return out, offsets


class Scattered:
    """A batch's keys already scattered into the ranges of ``splitters`` (:meth:`ScoreScan.scattered`, on the
    thread that keyed the batch): for each class, its keys grouped by range and where each range starts.
    Read as a sequence, the keys of each class (in some order), as ``ScoreScan.add`` takes a batch."""

    __slots__ = ("parts", "splitters")

    def __init__(self, splitters: Splitters, parts: tuple[tuple[np.ndarray, np.ndarray], ...]) -> None:
        self.splitters = splitters
        self.parts = parts

    def __len__(self) -> int:
        return len(self.parts)

    def __getitem__(self, kind: int) -> np.ndarray:
        return self.parts[kind][0]

    def __iter__(self) -> Iterator[np.ndarray]:
        return (keys for keys, _ in self.parts)

    def swapped(self) -> Scattered:
        return Scattered(self.splitters, self.parts[::-1])


def _appended(fileno: int, pieces: list[tuple[np.ndarray, np.ndarray]], at: int) -> np.ndarray:
    """Batches' keys, each grouped by range (keys, where each range starts), written to a file from byte ``at``
    range by range: range 0 of every batch in turn, then range 1, and so on, each range's slices in one
    vectored write (no copy of the keys is made). Returns the keys of each range."""
    counts = sum(np.diff(offsets) for _, offsets in pieces)
    for p in range(len(counts)):
        buffers = [memoryview(keys[offsets[p]:offsets[p + 1]]).cast("B") for keys, offsets in pieces
                   if offsets[p + 1] > offsets[p]]
        while buffers:
            written = os.pwritev(fileno, buffers[:IOV_MAX], at)
            if written <= 0:
                raise OSError(errno.ENOSPC, "no room left for the temporary file")
            at += written
            while buffers and written >= len(buffers[0]):
                written -= len(buffers[0])
                buffers.pop(0)
            if written:
                buffers[0] = buffers[0][written:]
    return counts


IOV_MAX = 1024
"""Buffers one vectored write takes at most (POSIX's least ``IOV_MAX``)."""


class _Segment(NamedTuple):
    kind: int  # the class: 0 the positives' keys, 1 the negatives' (of two)
    dtype: np.dtype
    offset: int  # in bytes, in the file
    count: int


class ScoreScan:
    """Class counts per distinct score of batches of keys (:func:`batch_keys`), in ``memory`` bytes
    (None: no limit, everything in memory) and the system's temporary directory beyond.

    ``add`` the batches' keys (a sequence of one array per class: for two, :class:`Keys`), then
    ``result`` gives the summary of two classes, or ``pieces`` the counts of each class; ``close``
    (also on errors) drops the temporary file. ``threads`` ranges are sorted at once.
    """

    def __init__(self, memory: int | None = None, *, classes: int = 2, threads: int = 1,
                 directory: str | None = None, depth: int = 0) -> None:
        self.classes = int(classes)
        self.memory = None if memory is None else max(int(memory), 1)
        self.threads = max(1, int(threads))
        self.directory = directory
        self.depth = depth
        self.kernels = compiled(1 << 62)  # whatever the batches' sizes, unless turned off
        self.dtype: np.dtype | None = None
        self.buffer: list[Keys] = []
        self.buffered = 0
        self.rows = 0
        self.splitters: Splitters | None = None
        self.file: Any = None
        self.size = 0
        self.segments: list[list[_Segment]] = []
        self._appending = threading.Lock()

    # reading ------------------------------------------------------------------

    @property
    def held_rows(self) -> int:
        """Rows kept in memory before the keys go to disk (and, once there, between two writes)."""
        if self.memory is None:
            return 1 << 62
        limit = self.memory // ROW_BYTES
        return limit if self.splitters is None else max(limit // 4, 1)

    @property
    def range_rows(self) -> int:
        """The most rows of one range sorted in memory (each of the threads holds one)."""
        return 1 << 62 if self.memory is None else max(self.memory // (self.threads * ROW_BYTES), 16)

    def scattered(self, keys: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...] | Scattered:
        """(On the thread that keyed a batch) the batch's keys scattered into the ranges, once they are drawn
        (else the keys as they are): ``add`` then writes them range by range as they are, so the scattering of
        batches runs on the threads that key them rather than on the one that reads."""
        splitters = self.splitters  # drawn once, on the reading thread: read once here
        if splitters is None or self.kernels is None or any(a.dtype != splitters.keys.dtype for a in keys):
            return keys
        return Scattered(splitters, tuple(_scattered(a, splitters, self.kernels) for a in keys))

    def add(self, keys: tuple[np.ndarray, ...] | Scattered) -> None:
        n = sum(len(a) for a in keys)
        if not n:
            return
        if isinstance(keys, Scattered) and keys.splitters is not self.splitters:
            keys = tuple(keys)  # scattered for ranges since redrawn (widened): the keys, in some order
        dtype = keys[0].dtype
        if self.dtype is None:
            self.dtype = dtype
        elif dtype != self.dtype:
            if dtype == np.uint32:  # a float32 batch among float64 ones
                keys = tuple(_widened(a) for a in keys)
            else:  # a float64 batch among float32 ones: all keys held become 8 bytes
                self.buffer = [tuple(_widened(a) for a in k) for k in self.buffer]
                if self.splitters is not None:
                    self.splitters = Splitters.of(_widened(self.splitters.keys))
                self.dtype = dtype
        self.buffer.append(keys if isinstance(keys, Scattered) else tuple(keys))
        self.buffered += n
        self.rows += n
        if self.buffered >= self.held_rows:
            self._write()

    def _sample(self, sources: list[tuple[np.ndarray, ...]]) -> np.ndarray:
        total = sum(len(a) for k in sources for a in k)
        step = max(1, total // SAMPLE)
        sample = np.concatenate([a[::step] for k in sources for a in k] or [np.zeros(0, self.dtype)])
        sample.sort()
        return sample

    def _splitters(self, sample: np.ndarray, parts: int) -> Splitters:
        if not len(sample) or parts < 2:
            return Splitters.of(np.zeros(0, dtype=sample.dtype))
        return Splitters.of(np.unique(sample[(np.arange(1, parts) * len(sample)) // parts]))

    def _write(self) -> None:
        """The keys held, scattered into the ranges and appended to the file."""
        if self.splitters is None:
            self.splitters = self._splitters(self._sample(self.buffer), PARTITIONS)
            self.segments = [[] for _ in range(len(self.splitters) + 1)]
            self.file = tempfile.TemporaryFile(prefix="assay-keys-", dir=self.directory)
        for kind in range(self.classes):
            arrays = [k[kind] for k in self.buffer if not isinstance(k, Scattered) and len(k[kind])]
            pieces = [k.parts[kind] for k in self.buffer if isinstance(k, Scattered) and len(k[kind])]
            if arrays:
                keys = np.concatenate(arrays) if len(arrays) > 1 else arrays[0]
                del arrays
                pieces.append(_scattered(keys, self.splitters, self.kernels))
                del keys
            if not pieces:
                continue
            dtype = pieces[0][0].dtype
            for p, count in enumerate(_appended(self.file.fileno(), pieces, self.size).tolist()):
                if count:
                    self.segments[p].append(_Segment(kind, dtype, self.size, count))
                    self.size += count * dtype.itemsize
            del pieces
        self.buffer, self.buffered = [], 0

    def _read(self, segments: list[_Segment], kind: int) -> np.ndarray:
        assert self.dtype is not None
        return read_segments(self.file.fileno(), [Segment(s.offset, s.count, s.dtype) for s in segments
                                                  if s.kind == kind], self.dtype, _widened)

    # counting -----------------------------------------------------------------

    def _range(self, *arrays: np.ndarray) -> tuple[np.ndarray, ...]:
        """(scores, then the counts of each class) of a range's keys, scores decreasing."""
        counted = _count(*arrays, self.kernels) if self.classes == 2 else _count_classes(arrays)
        return (decode_keys(counted[0]), *counted[1:])

    def _read_all(self, segments: list[_Segment]) -> tuple[np.ndarray, ...]:
        return tuple(self._read(segments, kind) for kind in range(self.classes))

    def _alone(self, segment: _Segment) -> tuple[np.ndarray, ...]:
        """The keys of one segment, in its class's place, the other classes' empty."""
        empty = np.zeros(0, self.dtype)
        return tuple(self._read([segment], kind) if kind == segment.kind else empty for kind in range(self.classes))

    def _pieces_of_file(self) -> Iterator[tuple[np.ndarray, ...]]:
        return self._by_range(lambda segments: self._range(*self._read_all(segments)), self._pieces_of_large)

    def _by_range(self, small: Any, large: Any) -> Iterator[Any]:
        """For each range of the file, highest first: ``small(segments)``, ``threads`` ranges at once, or, for
        a range too large to sort at once, what ``large(segments)`` yields; in order."""
        pool = ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="assay-ranges")
        pending: deque[Any] = deque()
        try:
            for segments in reversed(self.segments):
                rows = sum(s.count for s in segments)
                if not rows:
                    continue
                if rows > self.range_rows:  # too large to sort at once: partitioned again
                    while pending:
                        yield pending.popleft().result()
                    yield from large(segments)
                    continue
                pending.append(pool.submit(small, segments))
                while len(pending) > self.threads:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def _pieces_of_large(self, segments: list[_Segment]) -> Iterator[tuple[np.ndarray, ...]]:
        """A range too large to sort at once: partitioned again from its own sample, or, when that
        cannot split it (a single score, or too deep), counted a segment at a time and merged."""
        sample = self._sample([self._read_all(segments[:8])])
        if self.depth < 2 and len(sample) and sample[0] != sample[-1]:
            inner = ScoreScan(self.memory, classes=self.classes, threads=self.threads, directory=self.directory,
                              depth=self.depth + 1)
            try:
                for s in segments:
                    inner.add(self._alone(s))
                yield from inner.pieces()
            finally:
                inner.close()
            return
        if self.classes != 2:  # several classes: the segments' counts merged in memory
            yield _merged([self._range(*self._alone(s)) for s in segments])
            return
        tree = MergeTree(self.memory, self.directory)
        try:
            for s in segments:
                scores, pos, neg = self._range(*self._alone(s))
                tree.add(ScoreCounts(scores, pos, neg, ("0", "1")))
            merged = tree.result()
        finally:
            tree.close()
        for start in range(0, len(merged), CHUNK):
            stop = start + CHUNK
            yield (np.array(merged.scores[start:stop]), np.array(merged.positives[start:stop], dtype=np.int64),
                   np.array(merged.negatives[start:stop], dtype=np.int64))
            release(merged.scores, merged.positives, merged.negatives)

    def _pieces_in_memory(self) -> Iterator[tuple[np.ndarray, ...]]:
        """All keys held: ranges split in memory, one a thread."""
        parts = 1 if self.buffered < IN_MEMORY_SPLIT else 4 * self.threads
        splitters = self._splitters(self._sample(self.buffer), parts)
        grouped = []
        for kind in range(self.classes):
            arrays = [k[kind] for k in self.buffer if len(k[kind])] or [np.zeros(0, self.dtype)]
            keys = np.concatenate(arrays) if len(arrays) > 1 else arrays[0]
            grouped.append(_scattered(keys, splitters, self.kernels) if len(splitters) else
                           (keys, np.array([0, len(keys)])))
        self.buffer, self.buffered = [], 0
        if len(splitters) == 0:
            yield self._range(*(keys for keys, _ in grouped))
            return
        pool = ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="assay-ranges")
        try:
            futures = [pool.submit(self._range, *(keys[at[p]:at[p + 1]] for keys, at in grouped))
                       for p in reversed(range(len(splitters) + 1))]
            for future in futures:
                yield future.result()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def pieces(self) -> Iterator[tuple[np.ndarray, ...]]:
        """(scores, then the counts of each class: for two, positives and negatives) of consecutive runs
        of distinct scores, highest first."""
        if self.dtype is None:
            return
        if self.splitters is None:
            yield from (piece for piece in self._pieces_in_memory() if len(piece[0]))
            return
        if self.buffered:
            self._write()
        yield from (piece for piece in self._pieces_of_file() if len(piece[0]))

    def result(self, labels: tuple[str, str] = ("0", "1")) -> ScoreCounts:
        """The summary with its cumulative counts: in memory when it takes at most a quarter of the
        budget, else kept as its sorted keys, each range counted when read (:meth:`ranges`)."""
        try:
            if self.fits() or self.classes != 2:
                return assemble(self.pieces(), labels, in_memory=self.fits(), directory=self.directory)
            return ScoreCounts.of_ranges(self.ranges(), labels)
        finally:
            self.close()

    def ranges(self) -> RangeSummary:
        """The summary as its ranges, each sorted in place (in the temporary file, or in memory) and known by
        its class totals and its number of distinct scores (:mod:`assay.summaries.ranges`): the disk holds
        the keys alone. The file passes to the summary, which keeps it while it lives."""
        kept = KEPT_ENTRIES if self.memory is None else min(max(self.memory // 160, CHUNK), KEPT_ENTRIES)
        if self.dtype is None:
            return RangeSummary([])
        if self.splitters is None:
            return RangeSummary(self._ranges_in_memory(), kept_entries=kept)
        if self.buffered:
            self._write()
        ranges, owners = self._ranges_of_file()
        file, self.file = self.file, None  # the summary's now
        return RangeSummary(ranges, [file, *owners], kept_entries=kept)

    def _counter(self, positive: np.ndarray, negative: np.ndarray) -> Range:
        """The range of sorted keys held in memory."""
        counted = _count_sorted(positive, negative, self.kernels)
        return Range(len(positive), len(negative), len(counted[0]),
                     lambda: _decoded(_count_sorted(positive, negative, self.kernels)))

    def _ranges_in_memory(self) -> list[Range]:
        """All keys held: split into ranges of about ``RANGE_ROWS`` rows, each sorted in place, one a thread."""
        parts = int(min(max(1, -(-self.buffered // RANGE_ROWS)), 1 << 12))
        splitters = self._splitters(self._sample(self.buffer), parts)
        grouped = []
        for kind in range(2):
            arrays = [k[kind] for k in self.buffer if len(k[kind])] or [np.zeros(0, self.dtype)]
            keys = np.concatenate(arrays) if len(arrays) > 1 else arrays[0]
            grouped.append(_scattered(keys, splitters, self.kernels) if len(splitters) else
                           (keys, np.array([0, len(keys)])))
        self.buffer, self.buffered = [], 0

        def sort(p: int) -> Range:
            positive, negative = (keys[at[p]:at[p + 1]] for keys, at in grouped)
            positive.sort()
            negative.sort()
            return self._counter(positive, negative)

        with ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="assay-ranges") as pool:
            return list(pool.map(sort, reversed(range(len(splitters) + 1))))

    def _sorted_in_file(self, segments: list[_Segment]) -> Range:
        """A range of the file sorted in place: its keys read, counted (value by value where they lie close
        together, :func:`_dense_count`, else sorted), and written back in order over the same segments (or,
        when some were of the other float type, appended in this scan's type). Where its distinct scores are
        few enough (:func:`_runs_fit`), its counts are written over its segments instead, which the walk then
        reads without counting them again."""
        assert self.file is not None and self.dtype is not None
        fileno, dtype = self.file.fileno(), self.dtype
        positive, negative = self._read(segments, 0), self._read(segments, 1)
        rows = len(positive) + len(negative)
        counted = _dense_count(positive, negative, self.kernels)
        unsorted = counted is not None
        if counted is None:
            positive.sort()
            negative.sort()
            counted = _count_sorted(positive, negative, self.kernels)
        keys, pos, neg = counted
        if all(s.dtype == dtype for s in segments) and _runs_fit(len(keys), rows, dtype):
            return _runs_range(fileno, segments, keys, pos, neg)
        if unsorted:  # the keys in order, from their counts
            positive, negative = np.repeat(keys[::-1], pos[::-1]), np.repeat(keys[::-1], neg[::-1])
        places = []
        for kind, sorted_keys in ((0, positive), (1, negative)):
            wanted = [Segment(s.offset, s.count, s.dtype) for s in segments if s.kind == kind]
            if any(s.dtype != dtype for s in wanted):
                with self._appending:
                    wanted, self.size = [Segment(self.size, len(sorted_keys), dtype)], self.size + sorted_keys.nbytes
            write_segments(fileno, wanted, sorted_keys)
            places.append(wanted)
        del positive, negative
        (pos_at, neg_at), kernels = places, self.kernels

        def count() -> tuple[np.ndarray, ...]:
            return _decoded(_count_sorted(read_segments(fileno, pos_at, dtype), read_segments(fileno, neg_at, dtype),
                                          kernels))

        return Range(int(pos.sum()), int(neg.sum()), len(keys), count)

    def _ranges_of_file(self) -> tuple[list[Range], list[Any]]:
        """Every range of the file sorted in place, highest first, ``threads`` at a time; a range too large to
        sort at once partitioned again (its own ranges, in its own file) or, when it cannot be split,
        counted a segment at a time and merged (kept as counts). Returns the ranges and what they need
        kept alive."""
        owners: list[Any] = []
        ranges = list(self._by_range(self._sorted_in_file, lambda segments: self._ranges_of_large(segments, owners)))
        return ranges, owners

    def _ranges_of_large(self, segments: list[_Segment], owners: list[Any]) -> list[Range]:
        sample = self._sample([self._read_all(segments[:8])])
        if self.depth < 2 and len(sample) and sample[0] != sample[-1]:
            inner = ScoreScan(self.memory, classes=2, threads=self.threads, directory=self.directory,
                              depth=self.depth + 1)
            try:
                for s in segments:
                    inner.add(self._alone(s))
                summary = inner.ranges()
            finally:
                inner.close()
            owners.extend(summary.owners)
            return summary.ranges
        out = []
        for piece in self._pieces_of_large(segments):  # counted pieces of a single score (or too deep)
            out.append(Range(int(piece[1].sum()), int(piece[2].sum()), len(piece[0]), lambda p=piece: p))
        return out

    def fits(self) -> bool:
        """Whether the summary, at worst one entry (40 bytes with its cumulative counts) a row, takes at
        most a quarter of the budget."""
        return self.memory is None or self.rows * 40 <= self.memory // 4

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None
        self.buffer, self.buffered = [], 0


DENSE_SPAN = 2
"""A range's keys are counted in place of sorting them when their values span at most this many times its
rows (a float32 score held by many rows: a billion rows of float32 probabilities), in one count a value."""


def _dense_count(positive: np.ndarray, negative: np.ndarray, kernels: Any) -> tuple[np.ndarray, ...] | None:
    """A range's distinct keys, decreasing, with their positives and negatives, counted without sorting
    (:func:`assay.summaries.numba_kernels.dense_counts`) where the keys' span allows; else None."""
    rows = len(positive) + len(negative)
    if kernels is None or not rows or rows >= 1 << 32:
        return None
    present = [a for a in (positive, negative) if len(a)]
    low, high = min(int(a.min()) for a in present), max(int(a.max()) for a in present)
    span = high - low + 1
    if span > DENSE_SPAN * rows:
        return None
    size = min(span, rows)
    keys, pos, neg = np.empty(size, positive.dtype), np.empty(size, np.int64), np.empty(size, np.int64)
    m = kernels.dense_counts(positive, negative, positive.dtype.type(low), np.zeros(2 * span, np.uint32), keys, pos,
                             neg)
    return keys[:m], pos[:m], neg[:m]


def _runs_fit(distinct: int, rows: int, dtype: np.dtype) -> bool:
    """Whether a range's counts (each distinct key and its two counts, 4 bytes each) take no more room than
    its keys, so that they can be written over them."""
    return rows < 1 << 32 and distinct * (dtype.itemsize + 8) <= rows * dtype.itemsize


def _runs_range(fileno: int, segments: list[_Segment], keys: np.ndarray, pos: np.ndarray, neg: np.ndarray) -> Range:
    """A range whose counts (distinct keys decreasing, then the positives' and the negatives' counts as
    4-byte integers) are written over its own segments, in order: read back as they are, not counted."""
    m, size = len(keys), keys.dtype.itemsize
    data = np.concatenate([np.ascontiguousarray(keys).view(np.uint8), pos.astype(np.uint32).view(np.uint8),
                           neg.astype(np.uint32).view(np.uint8)])
    places, left = [], len(data)
    for s in segments:
        if not left:
            break
        take = min(left, s.count * s.dtype.itemsize)
        places.append(Segment(s.offset, take, np.dtype(np.uint8)))
        left -= take
    write_segments(fileno, places, data)
    dtype = keys.dtype

    def read() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        raw = read_segments(fileno, places, np.dtype(np.uint8))
        counts = raw[m * size:].view(np.uint32)
        return (decode_keys(raw[:m * size].view(dtype)), counts[:m].astype(np.int64),
                counts[m:].astype(np.int64))

    return Range(int(pos.sum()), int(neg.sum()), m, read)


RANGE_ROWS = 1 << 20
"""Rows of a range of keys held in memory (a summary kept as its sorted keys is counted a range at a time)."""


def _decoded(counted: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(scores, positives, negatives) of counted keys."""
    return decode_keys(counted[0]), counted[1], counted[2]


def assemble(pieces: Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]], labels: tuple[str, str], *,
             in_memory: bool, directory: str | None = None) -> ScoreCounts:
    """A summary with its cumulative counts from (scores, positives, negatives) pieces, scores decreasing
    from piece to piece: concatenated in memory, or written to unlinked files and mapped from them."""
    chunks: list[tuple[np.ndarray, ...]] = []
    files: list[Any] = []
    written = 0
    tp_total = fp_total = np.int64(0)
    try:
        for scores, pos, neg in pieces:
            if not len(scores):
                continue
            tp = np.cumsum(pos) + tp_total
            fp = np.cumsum(neg) + fp_total
            tp_total, fp_total = tp[-1], fp[-1]
            columns = (scores, pos, neg, tp, fp)
            written += len(scores)
            if in_memory:
                chunks.append(columns)
                continue
            if not files:
                files = [tempfile.TemporaryFile(prefix="assay-summary-", dir=directory) for _ in range(5)]
            for f, a in zip(files, columns):
                a.tofile(f)
        if not written:
            return ScoreCounts.empty(labels)
        if in_memory:
            arrays = [np.concatenate(c) if len(chunks) > 1 else c[0] for c in zip(*chunks)]
        else:
            arrays = []
            for f, dtype in zip(files, (np.float64, np.int64, np.int64, np.int64, np.int64)):
                f.flush()
                arrays.append(np.memmap(f, dtype=dtype, mode="r", shape=(written,)))
    finally:
        for f in files:
            f.close()  # a mapping keeps its (unlinked) file until the arrays go
    scores, pos, neg, tp, fp = arrays
    summary = ScoreCounts(scores, pos, neg, labels)
    object.__setattr__(summary, "_threshold_counts", ThresholdCounts(scores, tp, fp, tp_total, fp_total))
    return summary


def pair_counts(counts: np.ndarray, j: int, above: np.ndarray, totals: np.ndarray) -> list[int]:
    """Twice the Mann-Whitney U counts of a piece of column ``j`` of a k-class probability matrix: ``u2[l]``
    counts the pairs (an instance of class j in the piece, one of class l scoring below it) twice and the
    tied ones once; ``u2[j]`` is 0. Summed over a column's pieces, highest first, it is :func:`one_vs_rest`'s
    ``u2``; pieces may be counted apart (on Spark's executors, a partition each) as each knows ``above``.
    Exact integers.

    ``counts``: the count of each class (a column a class) at each distinct score of the piece (a row a
    score, decreasing); ``above``: each class's instances scoring above the piece; ``totals``: each class's
    instances in all (inputs validated).

    Examples
    --------
    Class 0 at 0.9 and 0.5, class 1 at 0.5 and 0.1: A(0|1) = (2 + 2 + 1 + 2) / 8 = 7/8, in two pieces.

    >>> totals = np.array([2, 2])
    >>> c1, c2 = np.array([[1, 0]]), np.array([[1, 1], [0, 1]])
    >>> [a + b for a, b in zip(pair_counts(c1, 0, np.zeros(2, np.int64), totals),
    ...                        pair_counts(c2, 0, c1.sum(axis=0), totals))]
    [0, 7]
    """
    counts = np.asarray(counts, dtype=np.int64)
    through = np.cumsum(counts, axis=0) + above  # instances of each class scoring at or above
    pos = counts[:, j]
    u2 = [0] * len(totals)
    for col in range(len(totals)):
        if col != j:  # the pairs (an instance of j, one of col below it or tied)
            u2[col] = int(np.dot(pos, 2 * (totals[col] - through[:, col]) + counts[:, col]))
    return u2


def one_vs_rest(scan: ScoreScan, j: int, support: np.ndarray, labels: tuple[str, str]) -> tuple[ScoreCounts, np.ndarray]:
    """From a scan of column ``j`` of a k-class probability matrix (keys by actual class): the summary
    of class j against the rest, and twice the Mann-Whitney U of column j ranking class j against each
    class l (``u2[l] / (2 n_j n_l)`` is Hand and Till's A(j|l); ties count one half), in exact integers
    (:func:`pair_counts`, a piece at a time).

    ``support``: each class's number of instances."""
    totals = np.asarray(support, dtype=np.int64)
    u2 = [0] * len(totals)
    above = np.zeros(len(totals), np.int64)

    def pieces() -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        nonlocal above
        for scores, *counts in scan.pieces():
            c = np.column_stack(counts)
            for col, value in enumerate(pair_counts(c, j, above, totals)):
                u2[col] += value
            above = above + c.sum(axis=0)
            pos = c[:, j]
            yield scores, pos, c.sum(axis=1) - pos

    try:
        summary = assemble(pieces(), labels, in_memory=scan.fits(), directory=scan.directory)
    finally:
        scan.close()
    return summary, np.array(u2, dtype=object)
