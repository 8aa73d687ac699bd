"""Each instance's placement values (DeLong 1988) under models compared on the same instances, at any size:
the instances scattered into buckets of scores, each bucket counted on its own, once per model.

A placement depends only on an instance's score and class and on the class counts around that score: a
positive scoring s places at (negatives below s + half those at s) / N, a negative at (positives above s +
half those at s) / P. Cut a model's scores into buckets of consecutive scores (../DESIGN.md, "Ranges and
offsets"): the negatives below a bucket and the positives above it are the totals of the buckets below and
above, and the counts inside it come from its own instances. So a pass over the instances needs of a
model's summary only where its buckets end (:func:`cuts`: a few entries; of a summary kept as its sorted
keys, the range at each end counted once), never the summary's counts, and each bucket gives its
instances' placements alone, in any order, on any thread.

The placements are paired: DeLong's covariance needs each instance's placements under every model at once.
A :class:`PlacementPass` scatters the instances by model 0's score into its buckets, each instance carrying
its scores under the other models (:class:`Buckets`: kept in memory, or appended to unlinked temporary files
closed as their buckets are worked); each bucket gives its instances' placements under model 0; the
instances, now carrying those, are scattered by model 1's score into its buckets, and so on, and the last
model's buckets give every model's placements of each instance together, added up by class
(:class:`assay.summaries.paired.PlacementMoments`). Every instance is written and read once per model (for
two models with float32 scores, 8 bytes: one model's score in the upper half of a 64-bit word, the other's
score or placement in the lower).

A bucket is counted in a table indexed by key where its keys lie close together (:func:`dense_ranks`: float32
scores of many instances, most of them tied with others; no sort, and the records come grouped by pieces of
the table small enough for a core's cache, :func:`layout`), else sorted (:func:`ranks`).

Exact: a placement is counted as an integer, twice its numerator (2 x negatives below + negatives tied, for
a positive), and divided once. The buckets' class totals are checked against the summaries': instances
that differ from those summarised in a way that moves them between buckets (rows added or dropped, scores
changed beyond their bucket) are refused, never compared.
"""

from __future__ import annotations

import errno
import os
import tempfile
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor, Future, wait
from collections import deque
from typing import Any, NamedTuple

import numpy as np
from threadpoolctl import threadpool_limits

from assay.errors import InvalidInput
from assay.summaries.disk import CHUNK, room_for
from assay.summaries.kernels import compiled
from assay.summaries.paired import PlacementMoments
from assay.summaries.partition import Keys, Splitters, batch_keys
from assay.summaries.ranges import RangeColumn, Segment, read_segments, write_segments

__all__ = ["BUCKET_ROWS", "BUCKET_ROW_BYTES", "FILES", "MAX_BUCKETS", "PIECE_KEYS", "PIECE_ROWS", "Buckets", "Cuts",
           "Layout", "PlacementPass", "Scratch", "WiderKeys", "bucket_rows", "cuts", "dense_ranks", "layout",
           "model_keys", "ranks"]

BUCKET_ROWS = (1 << 12, 1 << 21)
"""Instances of a bucket (at least, at most; a single score may hold more): within the memory budget, each of
the threads sorting one bucket while the next are read (``BUCKET_ROW_BYTES`` an instance)."""

BUCKET_ROW_BYTES = 128
"""Memory an instance of a bucket takes, at most, while the bucket is counted: its record read (8 bytes for two
models' float32 scores, 16 for float64), its key's index in the table (or its sort order), its numerator, the
counts of its distinct score, the records scattered into the next model's buckets (measured: about 100 bytes
for two models' float64 scores, sorted; 60 for float32 scores, counted in a table)."""

MAX_BUCKETS = 1 << 14
"""Buckets of a model at most (the scatter numbers them in 16 bits)."""

PIECE_KEYS = 1 << 16
"""Keys a piece of a bucket spans, at most, where its keys lie close together. The scatter into the buckets
groups each batch's records by piece at no cost, so that counting a bucket in its table (8 bytes a key)
reads it a piece's part at a time, which fits a core's cache: the whole table did not (three times as long)."""

PIECE_ROWS = 1 << 12
"""Instances of a piece at least, on average (fewer pieces otherwise)."""

FILES = 16
"""Temporary files a model's buckets are kept in (beyond memory): each closed once its buckets are worked."""


def bucket_rows(memory: int | None, threads: int, rows: int) -> int:
    """Instances of a bucket for a memory budget (None: none) shared by ``threads`` sorting ones and the
    results waiting to be stored, for ``rows`` instances in all."""
    low, high = BUCKET_ROWS
    size = high if memory is None else max(low, min(high, memory // (BUCKET_ROW_BYTES * (threads + 2))))
    return max(size, -(-rows // MAX_BUCKETS))


class WiderKeys(Exception):
    """Model ``model``'s scores were keyed as float32 (4-byte keys), and a batch holds a value that no float32
    equals: the pass starts again with 8-byte keys for that model."""

    def __init__(self, model: int) -> None:
        super().__init__(f"model {model} needs 8-byte keys")
        self.model = model


# where a model's buckets end ------------------------------------------------------------------------------


class Cuts(NamedTuple):
    """A model's buckets of consecutive distinct scores as its summary ranks them (highest first): the highest
    and lowest score of each, and its positives, negatives and distinct scores (1: a single score, however
    many instances hold it)."""

    highest: np.ndarray
    lowest: np.ndarray
    positives: np.ndarray
    negatives: np.ndarray
    distinct: np.ndarray


class _Blocks:
    """A summary's entries a block at a time: the ranges of one kept as its sorted keys (each counted when
    read), else ``CHUNK`` entries of its arrays; the last two blocks read are kept."""

    def __init__(self, scores: Any, tp: Any, fp: Any) -> None:
        if isinstance(scores, RangeColumn):
            ranges = scores.summary
            self.starts = np.asarray(ranges.starts, dtype=np.int64)
            self.before = np.asarray(ranges.tp_before + ranges.fp_before, dtype=np.int64)
            self._read = lambda k: _counted(ranges, k)
        else:
            d = len(scores)
            self.starts = np.append(np.arange(0, d, CHUNK, dtype=np.int64), d)
            ends = self.starts[1:] - 1
            self.before = np.concatenate(([0], np.asarray(tp[ends], dtype=np.int64) +
                                          np.asarray(fp[ends], dtype=np.int64)))
            self._read = lambda k: tuple(np.asarray(a[self.starts[k]:self.starts[k + 1]]) for a in (scores, tp, fp))
        self._kept: dict[int, tuple[np.ndarray, ...]] = {}

    def block(self, k: int) -> tuple[np.ndarray, ...]:
        if k not in self._kept:
            if len(self._kept) >= 2:
                self._kept.pop(next(iter(self._kept)))
            self._kept[k] = self._read(k)
        return self._kept[k]

    def through(self, rows: int) -> int:
        """How many entries (from the top) hold at most ``rows`` instances in all (fewer than them all)."""
        k = int(np.searchsorted(self.before, rows, side="right")) - 1
        _, tp, fp = self.block(k)
        return int(self.starts[k]) + int(np.searchsorted(tp + fp, rows, side="right"))

    def entry(self, e: int) -> tuple[float, int, int]:
        """Entry e's score and cumulative counts."""
        k = int(np.searchsorted(self.starts, e, side="right")) - 1
        scores, tp, fp = self.block(k)
        at = e - int(self.starts[k])
        return float(scores[at]), int(tp[at]), int(fp[at])


def _counted(ranges: Any, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Range k of a summary kept as its ranges (:class:`assay.summaries.ranges.RangeSummary`), as that summary
    gives it (scores, cumulative positives and negatives), counted here alone: ``range(k)`` would count the
    next one too, ahead of a walk, and the ends of the buckets lie ranges apart."""
    scores, pos, neg = ranges.order[k].count()
    if ranges.swapped_view:
        pos, neg = neg, pos
    if ranges.negated_view:
        scores, pos, neg = -scores[::-1] + 0.0, pos[::-1], neg[::-1]
    return scores, np.cumsum(pos) + ranges.tp_before[k], np.cumsum(neg) + ranges.fp_before[k]


def cuts(scores: Any, tp: Any, fp: Any, rows: int) -> Cuts:
    """A model's buckets from its summary as the analysis ranks it (``scores`` decreasing, cumulative counts
    ``tp`` and ``fp``): consecutive distinct scores holding at most ``rows`` instances, or a single score that
    holds more. Reads the entries at the buckets' ends only.

    >>> c = cuts(np.array([0.9, 0.8, 0.5, 0.2]), np.array([2, 3, 3, 4]), np.array([0, 1, 4, 5]), 4)
    >>> c.highest.tolist(), c.lowest.tolist(), c.positives.tolist(), c.negatives.tolist(), c.distinct.tolist()
    ([0.9, 0.5, 0.2], [0.8, 0.5, 0.2], [3, 0, 1], [1, 3, 1], [2, 1, 1])
    """
    blocks = _Blocks(scores, tp, fp)
    entries, total = int(blocks.starts[-1]), int(blocks.before[-1])
    highest, lowest, pos, neg, distinct = [], [], [], [], []
    a, tp_a, fp_a = 0, 0, 0  # the first entry of the next bucket, and the counts above it
    while a < entries:
        highest.append(blocks.entry(a)[0])  # in the block of the last bucket's end, nearly always
        target = tp_a + fp_a + rows
        b = entries if target >= total else max(blocks.through(target), a + 1)
        score, tp_b, fp_b = blocks.entry(b - 1)
        lowest.append(score)
        pos.append(tp_b - tp_a)
        neg.append(fp_b - fp_a)
        distinct.append(b - a)
        a, tp_a, fp_a = b, tp_b, fp_b
    return Cuts(np.array(highest, dtype=np.float64), np.array(lowest, dtype=np.float64),
                np.array(pos, dtype=np.int64), np.array(neg, dtype=np.int64), np.array(distinct, dtype=np.int64))


# keys ------------------------------------------------------------------------------------------------------


def model_keys(is_positive: np.ndarray, scores: np.ndarray, *, wide: bool, lower: bool, model: int = 0,
               kernels: Any = None) -> Keys:
    """The order-preserving keys of a model's scores as it ranks them (``lower``: lower scores rank higher,
    the keys inverted), the positives' and the negatives' apart: 8 bytes (``wide``) or 4 (the scores float32;
    a value no float32 equals raises :class:`WiderKeys`)."""
    if wide:
        scores = scores.astype(np.float64, copy=False)
    elif scores.dtype != np.float32:
        narrow = scores.astype(np.float32)
        if not np.array_equal(narrow, scores):
            raise WiderKeys(model)
        scores = narrow
    keys = batch_keys(is_positive, scores, kernels)
    if lower:
        np.invert(keys.positive, out=keys.positive)
        np.invert(keys.negative, out=keys.negative)
    return keys


def _keys_of(ranked: np.ndarray, *, wide: bool, lower: bool) -> np.ndarray:
    """The keys of scores as a summary ranks them (negated when lower scores rank higher)."""
    scores = (-ranked if lower else ranked).astype(np.float64 if wide else np.float32)
    return model_keys(np.ones(len(scores), dtype=bool), scores, wide=wide, lower=lower).positive


class Layout(NamedTuple):
    """A model's buckets in pieces, ascending: ``splitters`` where the pieces begin (piece p holds keys from
    ``splitters[p - 1]`` up to, not including, ``splitters[p]``), and where each bucket's pieces begin
    (``starts``, one more than the buckets, lowest bucket first). The pieces only order the records of a
    bucket: a bucket is kept and worked whole."""

    splitters: np.ndarray
    starts: np.ndarray


def layout(c: Cuts, *, wide: bool, lower: bool) -> Layout:
    """A model's buckets, each cut further into pieces of ``PIECE_KEYS`` keys where its keys lie close
    together (``DENSE``), so that a piece's tables fit a core's cache; at most ``MAX_BUCKETS`` pieces."""
    high, low = (_keys_of(x[::-1], wide=wide, lower=lower).astype(object) for x in (c.highest, c.lowest))
    rows = (c.positives + c.negatives)[::-1]
    distinct = c.distinct[::-1]
    room = max(MAX_BUCKETS // max(len(rows), 1), 1)
    splitters: list[int] = []
    starts = [0]
    for q in range(len(rows)):
        if q:
            splitters.append(int(low[q]))
        span = int(high[q]) - int(low[q]) + 1
        pieces = 1
        if distinct[q] > 1 and span <= DENSE * int(rows[q]) + DENSE_LEAST:
            pieces = int(min(-(-span // PIECE_KEYS), max(int(rows[q]) // PIECE_ROWS, 1), room))
        splitters += [int(low[q]) + span * i // pieces for i in range(1, pieces)]
        starts.append(starts[-1] + pieces)
    return Layout(np.array(splitters, dtype=np.uint64 if wide else np.uint32), np.array(starts, dtype=np.int64))


# buckets of records ----------------------------------------------------------------------------------------


class Scratch:
    """Arrays reused from one bucket to the next: a large new array's pages are faulted in and zeroed each
    time, which took a fifth of the work of a bucket.

    ``array(name, n, dtype)``: the calling thread's array of that name, n entries (grown when need be), good
    until the thread asks for that name again. ``spare(n, dtype)``: an array to hand to another thread, made
    of one given ``back`` when one is large enough."""

    def __init__(self) -> None:
        self._local = threading.local()
        self._lock = threading.Lock()
        self._spares: list[np.ndarray] = []

    def array(self, name: str, n: int, dtype: Any) -> np.ndarray:
        held = self._local.__dict__.setdefault("arrays", {})
        dtype = np.dtype(dtype)
        need = n * dtype.itemsize
        buffer = held.get(name)
        if buffer is None or len(buffer) < need:
            buffer = held[name] = np.empty(need + need // 4, dtype=np.uint8)
        return buffer[:need].view(dtype)

    def spare(self, n: int, dtype: Any) -> np.ndarray:
        dtype = np.dtype(dtype)
        need = n * dtype.itemsize
        with self._lock:
            for i, buffer in enumerate(self._spares):
                if len(buffer) >= need:
                    return self._spares.pop(i)[:need].view(dtype)
        return np.empty(need + need // 4, dtype=np.uint8)[:need].view(dtype)

    def back(self, array: np.ndarray) -> None:
        base = array
        while isinstance(base.base, np.ndarray):
            base = base.base
        if base.dtype == np.uint8 and base.ndim == 1:
            with self._lock:
                if len(self._spares) < 8:
                    self._spares.append(base)


_HALF = np.uint64(32)
_UPPER = 1 if np.little_endian else 0  # where the upper half of a 64-bit word is, among its two 32-bit halves


def _packed(upper: np.ndarray, lower: np.ndarray, words: np.ndarray | None = None) -> np.ndarray:
    """Two columns of 4 bytes as one of 8 (into ``words``), the first in the upper half."""
    words = np.empty(len(upper), dtype=np.uint64) if words is None else words
    halves = words.view(np.uint32)
    halves[_UPPER::2] = upper
    halves[1 - _UPPER::2] = lower
    return words


def _halves(words: np.ndarray) -> list[np.ndarray]:
    """The upper and lower halves of 8-byte words (views)."""
    halves = words.view(np.uint32)
    return [halves[_UPPER::2], halves[1 - _UPPER::2]]


def _spread(values: np.ndarray, counts: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """The values of distinct keys, ascending, one for each of ``keys`` (ascending; ``counts`` of each)."""
    held = values[counts > 0]
    if len(held) == len(keys):  # no two alike
        return held
    starts = np.empty(len(keys), dtype=bool)
    starts[:1] = True
    np.not_equal(keys[1:], keys[:-1], out=starts[1:])
    run = np.cumsum(starts)
    run -= 1
    return held[run]


class Buckets:
    """Records of the two classes (columns of equal length: the key first, then what each instance carries)
    scattered into buckets of keys split at ``splitters``: kept in memory, or appended to unlinked temporary
    files (``in_memory`` False), consecutive buckets to each of ``FILES`` files, each closed once its buckets
    are ``done`` (their disk and pages given back as the buckets are worked, not at the end). Two columns of
    4 bytes are kept as one of 8, the key in the upper half, sorted as one.

    ``scatter`` (on any thread) groups some records by bucket, ``write`` (on any thread) puts them in the
    files, ``append`` (in the order of the records) keeps where they are; ``read`` gives a bucket's records
    of a class, in that order."""

    def __init__(self, splitters: np.ndarray, dtypes: Sequence[Any], *, in_memory: bool, starts: Any = None,
                 directory: str | None = None) -> None:
        self.splitters = splitters
        self.starts = np.arange(len(splitters) + 2) if starts is None else np.asarray(starts, dtype=np.int64)
        self.dtypes = [np.dtype(d) for d in dtypes]
        self.packed = len(self.dtypes) == 2 and all(d == np.uint32 for d in self.dtypes)
        self.stored = [np.dtype(np.uint64)] if self.packed else self.dtypes
        self.size = len(self.starts) - 1
        pieces = len(splitters) + 1
        self.table = Splitters.of(splitters.astype(np.uint64) << _HALF) if self.packed and pieces > 1 else None
        self.counts = np.zeros((self.size, 2), dtype=np.int64)
        self.parts: list[list[list[Any]]] = [[[], []] for _ in range(self.size)]
        self.in_memory, self.directory = in_memory, directory
        groups = min(self.size, FILES)
        self.group = np.arange(self.size) * groups // self.size  # the file of each bucket
        self.first = np.searchsorted(self.group, np.arange(groups), side="left")  # each file's buckets
        self.last = np.searchsorted(self.group, np.arange(groups), side="right") - 1
        self.files: list[Any] = [None] * groups
        self.ends = [0] * groups
        self._lock = threading.Lock()
        self._turn = 0

    @property
    def record_bytes(self) -> int:
        """Bytes a record takes, as kept."""
        return sum(d.itemsize for d in self.stored)

    def scatter(self, columns: Sequence[np.ndarray], kernels: Any = None, scratch: Scratch | None = None
                ) -> tuple[list[np.ndarray], np.ndarray]:
        """Records grouped by bucket (and within a bucket by piece), as kept, and where each bucket's start
        (one more than the buckets); with ``scratch``, the records are grouped in its thread's arrays, into a
        spare one."""
        n = len(columns[0])
        if self.packed:
            stored = [_packed(columns[0], columns[1], None if scratch is None else
                              scratch.array("words", n, np.uint64))]
        else:
            stored = [np.ascontiguousarray(c, dtype=d) for c, d in zip(columns, self.dtypes, strict=True)]
        offsets = np.zeros(len(self.splitters) + 2, dtype=np.int64)  # of the pieces
        if not len(self.splitters) or not n:
            offsets[1:] = n
            stored = [a.copy() for a in stored]  # the records are kept: none is a thread's reused array
        elif self.table is not None and kernels is not None:
            out = np.empty_like(stored[0]) if scratch is None else scratch.spare(n, np.uint64)
            kernels.scatter(stored[0], self.table.keys, self.table.table, self.table.shift, out, offsets)
            stored = [out]
        else:
            piece = np.searchsorted(self.splitters, columns[0], side="right").astype(np.uint16)
            order = np.argsort(piece, kind="stable")
            np.cumsum(np.bincount(piece, minlength=len(offsets) - 1), out=offsets[1:])
            stored = [a[order] for a in stored]
        return stored, offsets[self.starts]

    def write(self, stored: Sequence[np.ndarray], offsets: np.ndarray, scratch: Scratch | None = None) -> Any:
        """(On any thread) records scattered by :meth:`scatter` written to the files, each file's part where
        room is taken for it (the records then go ``back`` to ``scratch``); in memory, kept as they are. What
        it gives goes to :meth:`append`."""
        if self.in_memory:
            return stored
        counts = np.diff(offsets)
        places = []
        present = np.unique(self.group[np.flatnonzero(counts)])
        with self._lock:  # each writer begins at another file: two threads writing one file wait for each other
            self._turn += 1
            present = np.roll(present, -self._turn)
        with room_for(None, self.directory):
            for g in present:
                begin, end = int(offsets[self.first[g]]), int(offsets[self.last[g] + 1])
                with self._lock:
                    if self.files[g] is None:
                        self.files[g] = tempfile.TemporaryFile(prefix="assay-paired-", dir=self.directory)
                    at = self.ends[g]
                    self.ends[g] += (end - begin) * self.record_bytes
                bases = []
                for a in stored:
                    write_segments(self.files[g].fileno(), [Segment(at, end - begin, a.dtype)], a[begin:end])
                    bases.append(at - begin * a.itemsize)
                    at += (end - begin) * a.itemsize
                places.append((int(g), bases))
        if scratch is not None:
            for a in stored:
                scratch.back(a)
        return places

    def append(self, c: int, offsets: np.ndarray, written: Any) -> None:
        """(In the order of the records) class c's records scattered by :meth:`scatter`, as :meth:`write`
        gave them."""
        counts = np.diff(offsets)
        self.counts[:, c] += counts
        present = np.flatnonzero(counts)
        if self.in_memory:
            for p in present:
                self.parts[p][c].append([a[offsets[p]:offsets[p + 1]] for a in written])
            return
        for g, bases in written:
            for p in present[(present >= self.first[g]) & (present <= self.last[g])]:
                self.parts[p][c].append([Segment(at + int(offsets[p]) * d.itemsize, int(counts[p]), d)
                                         for at, d in zip(bases, self.stored, strict=True)])

    def read(self, p: int, c: int, scratch: Scratch | None = None) -> list[np.ndarray]:
        """Bucket p's records of class c, as kept: new arrays, or the calling thread's of ``scratch``."""
        parts = self.parts[p][c]
        n = int(self.counts[p, c])
        out = [np.empty(n, dtype=d) if scratch is None else scratch.array(f"read{c}.{i}", n, d)
               for i, d in enumerate(self.stored)]
        for i, column in enumerate(out):
            if self.in_memory:
                if parts:
                    np.concatenate([part[i] for part in parts], out=column)
            elif parts:
                _read_into(self.files[self.group[p]].fileno(), [part[i] for part in parts], column)
        return out

    def pieces(self, p: int, c: int, rows: int) -> Iterator[list[np.ndarray]]:
        """Bucket p's records of class c, as kept, ``rows`` or fewer at a time."""
        for part in self.parts[p][c]:
            n = len(part[0]) if self.in_memory else part[0].count
            for start in range(0, n, rows):
                stop = min(n, start + rows)
                if self.in_memory:
                    yield [a[start:stop].copy() for a in part]
                else:
                    fileno = self.files[self.group[p]].fileno()
                    yield [read_segments(fileno, [Segment(s.offset + start * s.dtype.itemsize, stop - start,
                                                          s.dtype)], s.dtype) for s in part]

    def done(self, p: int) -> None:
        """Bucket p is worked (and every one before it): its records go, and the file they were in once it
        holds no other bucket's."""
        self.parts[p] = [[], []]
        g = self.group[p]
        if (p + 1 == self.size or self.group[p + 1] != g) and self.files[g] is not None:
            self.files[g].close()
            self.files[g] = None

    def unpacked(self, stored: list[np.ndarray]) -> list[np.ndarray]:
        """The columns of records as kept."""
        return _halves(stored[0]) if self.packed else stored

    def sorted_columns(self, stored: list[np.ndarray]) -> list[np.ndarray]:
        """The columns of records as kept, sorted by key (the records given are sorted in place)."""
        if self.packed:
            stored[0].sort()
            return self.unpacked(stored)
        order = np.argsort(stored[0])
        return [a[order] for a in stored]

    def close(self) -> None:
        for g, f in enumerate(self.files):
            if f is not None:
                f.close()
                self.files[g] = None
        self.parts = [[[], []] for _ in range(self.size)]


def _read_into(fileno: int, segments: Sequence[Segment], out: np.ndarray) -> None:
    """The keys of some segments of a file, one after another, into ``out`` (of their type)."""
    view = memoryview(out).cast("B")
    at = 0
    for s in segments:
        begin, end = at, at + s.count * out.itemsize
        while at < end:
            read = os.preadv(fileno, [view[at:end]], s.offset + at - begin)
            if read == 0:  # a write lost to a full disk (numpy reports no error for a small one)
                raise OSError(errno.ENOSPC, "the temporary file is shorter than what was written to it")
            at += read


DENSE = 4
"""A bucket's keys are counted in a table indexed by key (no sort) when they span at most ``DENSE`` times its
instances (plus ``DENSE_LEAST``): float32 scores of many instances (from 10^7 or so), the keys close together,
many tied with others."""

DENSE_LEAST = 1 << 12


def dense_ranks(positive: np.ndarray, negative: np.ndarray, *, below: int = 0, above: int = 0,
                dtype: Any = np.int64, scratch: Scratch | None = None, span: int | None = None
                ) -> tuple[np.ndarray, np.ndarray] | None:
    """What :func:`ranks` gives, for keys in any order (each class's numerators in the order of its keys),
    counted in a table indexed by key; None when the keys spread too thinly for a table (over ``DENSE`` keys an
    instance, or over ``span`` keys in all when given). With ``scratch``, in the calling thread's arrays.

    >>> a, b = dense_ranks(np.array([5, 2, 5], dtype=np.uint32), np.array([7, 1, 2], dtype=np.uint32))
    >>> a.tolist(), b.tolist()
    ([4, 3, 4], [0, 6, 5])
    """
    n = len(positive) + len(negative)
    if not n:
        return np.zeros(0, dtype), np.zeros(0, dtype)
    present = [k for k in (positive, negative) if len(k)]
    low = min(int(k.min()) for k in present)
    limit = DENSE * n + DENSE_LEAST if span is None else span
    span = max(int(k.max()) for k in present) - low + 1
    if span > limit:
        return None
    index = []
    for c, keys in enumerate((positive, negative)):
        at = np.empty(len(keys), dtype=np.intp) if scratch is None else scratch.array(f"index{c}", len(keys), np.intp)
        np.subtract(keys, keys.dtype.type(low), out=at, casting="unsafe")
        index.append(at)
    out = [None if scratch is None else scratch.array(f"at{c}", len(keys), dtype)
           for c, keys in enumerate((positive, negative))]
    table = np.empty(span, dtype=np.int64) if scratch is None else scratch.array("table", span, np.int64)
    narrow = None if scratch is None else scratch.array("narrow", span, dtype)

    def taken(index: np.ndarray, out: np.ndarray | None) -> np.ndarray:
        if narrow is None:
            return np.take(table.astype(dtype, copy=False), index, out=out)
        np.copyto(narrow, table, casting="unsafe")
        return np.take(narrow, index, out=out)

    counts = np.bincount(index[1], minlength=span)  # negatives at each key
    np.cumsum(counts, out=table)
    table += table
    table -= counts  # 2 x the negatives below + those tied
    table += 2 * below
    at_positive = taken(index[0], out[0])
    counts = np.bincount(index[0], minlength=span)  # positives at each key
    np.cumsum(counts, out=table)
    np.subtract(len(positive) + above, table, out=table)
    table += table
    table += counts  # 2 x the positives above + those tied
    return at_positive, taken(index[1], out[1])


def ranks(positive: np.ndarray, negative: np.ndarray, kernels: Any = None, *, below: int = 0, above: int = 0,
          dtype: Any = np.int64) -> tuple[np.ndarray, np.ndarray]:
    """For a bucket's keys of each class, ascending: twice the numerator of each positive's placement (2 x the
    negatives below it + those tied with it) and of each negative's (2 x the positives above it + those tied
    with it), counting ``below`` negatives below the bucket and ``above`` positives above it, as ``dtype``.

    >>> a, b = ranks(np.array([2, 5, 5], dtype=np.uint32), np.array([1, 2, 7], dtype=np.uint32))
    >>> a.tolist(), b.tolist()
    ([3, 4, 4], [6, 5, 0])
    """
    if kernels is not None and len(positive) and len(negative):
        n = len(positive) + len(negative)
        keys, pos, neg = np.empty(n, positive.dtype), np.empty(n, np.int64), np.empty(n, np.int64)
        d = kernels.count_sorted(positive, negative, keys, pos, neg)
        pos, neg = pos[:d][::-1], neg[:d][::-1]  # ascending
        at_positive = np.cumsum(neg)  # negatives at or below each distinct key
        at_positive += at_positive
        at_positive -= neg  # 2 x below + tied
        at_negative = np.cumsum(pos)
        np.subtract(len(positive), at_negative, out=at_negative)  # positives above each distinct key
        at_negative += at_negative
        at_negative += pos  # 2 x above + tied
        at_positive, at_negative = _spread(at_positive, pos, positive), _spread(at_negative, neg, negative)
    else:
        at_positive = np.searchsorted(negative, positive, side="left") + \
            np.searchsorted(negative, positive, side="right")
        at_negative = 2 * len(positive) - np.searchsorted(positive, negative, side="left") - \
            np.searchsorted(positive, negative, side="right")
    at_positive = at_positive.astype(np.int64, copy=False) + 2 * below
    at_negative = at_negative.astype(np.int64, copy=False) + 2 * above
    return at_positive.astype(dtype, copy=False), at_negative.astype(dtype, copy=False)


# the pass -------------------------------------------------------------------------------------------------


class PlacementPass:
    """The placements of instances given in batches under ``len(cuts)`` models, paired, and their moments
    about the models' AUCs (see the module).

    ``keyed`` a batch's instances (on any thread), ``add`` what it gives (in the order of the batches), then
    ``moments``. ``wide`` and ``lower``: each model's keys of 8 bytes, and its lower scores ranking higher.
    ``rows``: a bucket's instances (the cuts'). ``in_memory``: the records kept in memory, not in temporary
    files (in ``directory``)."""

    def __init__(self, model_cuts: Sequence[Cuts], *, wide: Sequence[bool], lower: Sequence[bool], rows: int,
                 in_memory: bool, directory: str | None = None) -> None:
        self.cuts = list(model_cuts)
        self.aucs: list[float] = []
        self.wide, self.lower = list(wide), list(lower)
        self.rows = rows
        self.in_memory, self.directory = in_memory, directory
        self.m = len(self.cuts)
        self.n_positive = int(self.cuts[0].positives.sum())
        self.n_negative = int(self.cuts[0].negatives.sum())
        self.numerator = np.dtype(np.uint32 if 2 * max(self.n_positive, self.n_negative) < 1 << 32 else np.uint64)
        self.keys = [np.dtype(np.uint64 if w else np.uint32) for w in self.wide]
        self.layouts = [layout(c, wide=w, lower=lo) for c, w, lo in zip(self.cuts, self.wide, self.lower,
                                                                          strict=True)]
        self.scratch = Scratch()
        self.stores: list[Buckets | None] = [None] * self.m
        self.stores[0] = self._store(0)

    def _store(self, t: int) -> Buckets:
        """The buckets of model t: records of its key, the later models' keys, the earlier ones' numerators."""
        return Buckets(self.layouts[t].splitters, self.keys[t:] + [self.numerator] * t, in_memory=self.in_memory,
                       starts=self.layouts[t].starts, directory=self.directory)

    def keyed(self, is_positive: np.ndarray, scores: Sequence[np.ndarray]) -> list[tuple[int, np.ndarray, Any]]:
        """A batch's instances (whether each is positive, and its score under each model) scattered into
        model 0's buckets and written (on the calling thread): for :meth:`add`."""
        kernels = compiled(len(is_positive))
        keys = [model_keys(is_positive, s, wide=w, lower=lo, model=i, kernels=kernels)
                for i, (s, w, lo) in enumerate(zip(scores, self.wide, self.lower, strict=True))]
        store = self.stores[0]
        assert store is not None
        return [self._written(store, c, [k[c] for k in keys], kernels) for c in (0, 1)]

    def add(self, keyed: list[tuple[int, np.ndarray, Any]]) -> None:
        store = self.stores[0]
        assert store is not None
        for c, offsets, written in keyed:
            store.append(c, offsets, written)

    def _written(self, store: Buckets, c: int, columns: list[np.ndarray], kernels: Any) -> tuple[int, np.ndarray, Any]:
        """Class c's records scattered into ``store``'s buckets and written (on the calling thread), for
        ``append``."""
        stored, offsets = store.scatter(columns, kernels, self.scratch)
        return c, offsets, store.write(stored, offsets, self.scratch)

    def moments(self, aucs: Sequence[float], pool: Executor, threads: int) -> PlacementMoments:
        """The placements' moments about the models' AUCs ``aucs``, model after model, the buckets worked on
        ``threads`` threads of ``pool`` (at most ``threads + 1`` buckets' results held at once; one BLAS
        thread each, as the walks)."""
        self.aucs = list(aucs)
        with threadpool_limits(limits=1, user_api="blas"):
            return self._moments(pool, threads)

    def _moments(self, pool: Executor, threads: int) -> PlacementMoments:
        total = PlacementMoments(self.aucs)
        for t in range(self.m):
            store = self.stores[t]
            assert store is not None
            self._check(t, store)
            last = t == self.m - 1
            if not last:
                self.stores[t + 1] = self._store(t + 1)
            counts = store.counts
            negatives_below = np.concatenate(([0], np.cumsum(counts[:, 1])))[:-1]
            positives_above = self.n_positive - np.cumsum(counts[:, 0])
            pending: deque[tuple[int, Future]] = deque()

            def take(p: int | None, result: Any) -> None:
                """A bucket's result (``p``: the bucket, whose future it is; None, the result itself)."""
                if p is not None:
                    result = result.result()
                    store.done(p)
                if last:
                    total.merge(result)
                    return
                following = self.stores[t + 1]
                assert following is not None
                for c, offsets, written in result:
                    following.append(c, offsets, written)

            try:
                for p in range(store.size):  # the buckets, lowest first
                    below, above = int(negatives_below[p]), int(positives_above[p])
                    if self.cuts[t].distinct[store.size - 1 - p] == 1:  # a single score: here, part by part
                        while pending:
                            take(*pending.popleft())
                        for result in self._single(t, p, below, above):
                            take(None, result)
                        store.done(p)
                        continue
                    pending.append((p, pool.submit(self._bucket, t, p, below, above)))
                    while len(pending) > threads:
                        take(*pending.popleft())
                while pending:
                    take(*pending.popleft())
            finally:  # on an error, no bucket is read from files about to close
                for _, future in pending:
                    future.cancel()
                wait([future for _, future in pending])
            store.close()
            self.stores[t] = None
        return total

    def _check(self, t: int, store: Buckets) -> None:
        """That model t's buckets hold the instances its summary counted, class by class."""
        c = self.cuts[t]
        expected = np.column_stack([c.positives[::-1], c.negatives[::-1]])
        if not np.array_equal(store.counts, expected):
            raise InvalidInput("the instances read again for the paired test differ from those read first (the "
                               "data changed while it was compared)")

    def _carried(self, t: int, columns: list[list[np.ndarray]], numerators: list[np.ndarray]) -> Any:
        """What a bucket of model t gives, from each class's carried columns and model t's numerators: the
        records scattered into model t + 1's buckets, or (the last model) the moments of the placements."""
        if t == self.m - 1:
            part = PlacementMoments(self.aucs)
            for c, (carried, numerator) in enumerate(zip(columns, numerators, strict=True)):
                twice = 2.0 * (self.n_negative if c == 0 else self.n_positive)
                n = len(numerator)
                centred = []
                for i, (x, auc) in enumerate(zip([*carried, numerator], self.aucs, strict=True)):
                    placement = np.divide(x, twice, out=self.scratch.array(f"placement{i}", n, np.float64))
                    placement -= auc
                    centred.append(placement)
                part.add_centred(c, centred, self.scratch.array("difference", n, np.float64))
            return part
        following = self.stores[t + 1]
        assert following is not None
        kernels = compiled(sum(len(x) for x in numerators))
        return [self._written(following, c, [*carried, numerator.astype(self.numerator, copy=False)], kernels)
                for c, (carried, numerator) in enumerate(zip(columns, numerators, strict=True))]

    def _bucket(self, t: int, p: int, below: int, above: int) -> Any:
        """Bucket p of model t (``below``: the negatives in the buckets below it; ``above``: the positives in
        those above it): its instances' numerators under model t, counted in a table by key (a piece at a
        time: the bucket's records grouped by piece first) or sorted."""
        store = self.stores[t]
        assert store is not None
        stored = [store.read(p, c, self.scratch) for c in (0, 1)]
        kernels = compiled(sum(len(x[0]) for x in stored))
        first, stop = int(store.starts[p]), int(store.starts[p + 1])
        pieces = stop - first > 1 and store.table is not None and kernels is not None
        if pieces:
            counted = self._pieces(store, stored, first, stop, below, above, kernels)
            if counted is not None:
                grouped, numerators = counted
                return self._carried(t, [[_halves(words)[1]] for words in grouped], numerators)
        positive, negative = (store.unpacked(x) for x in stored)
        numerators = None if pieces else dense_ranks(positive[0], negative[0], below=below, above=above,
                                                      dtype=self.numerator, scratch=self.scratch)
        if numerators is None:  # keys too far apart for a table: sorted
            positive, negative = (store.sorted_columns(x) for x in stored)
            keys = [np.ascontiguousarray(positive[0]), np.ascontiguousarray(negative[0])]
            numerators = ranks(*keys, kernels, below=below, above=above, dtype=self.numerator)
        return self._carried(t, [positive[1:], negative[1:]], list(numerators))

    def _pieces(self, store: Buckets, stored: list[list[np.ndarray]], first: int, stop: int, below: int,
                above: int, kernels: Any) -> tuple[list[np.ndarray], list[np.ndarray]] | None:
        """A bucket of records kept two to a word, its pieces ``first`` to ``stop``: the records of each class
        grouped by piece (as words), and their numerators, counted a piece at a time in tables that fit a
        core's cache; None when a piece's keys spread wider than a piece (the data changed: sorted then)."""
        assert store.table is not None
        grouped, offsets = [], []
        for c in (0, 1):
            words = stored[c][0]
            out = self.scratch.array(f"grouped{c}", len(words), np.uint64)
            at = np.zeros(len(store.splitters) + 2, dtype=np.int64)
            kernels.scatter(words, store.table.keys, store.table.table, store.table.shift, out, at)
            grouped.append(out)
            offsets.append(at[first:stop + 1].tolist())
        numerators = [self.scratch.array(f"numerator{c}", len(grouped[c]), self.numerator) for c in (0, 1)]
        negatives_below = below  # those of the pieces below, as the pieces go up
        positives_above = above + len(grouped[0])
        for k in range(stop - first):
            pieces = [grouped[c][offsets[c][k]:offsets[c][k + 1]] for c in (0, 1)]
            positives_above -= len(pieces[0])
            counted = dense_ranks(_halves(pieces[0])[0], _halves(pieces[1])[0], below=negatives_below,
                                  above=positives_above, dtype=self.numerator, scratch=self.scratch,
                                  span=2 * PIECE_KEYS)  # a piece's table is small however few its keys
            if counted is None:
                return None
            for c in (0, 1):
                numerators[c][offsets[c][k]:offsets[c][k + 1]] = counted[c]
            negatives_below += len(pieces[1])
        return grouped, numerators

    def _single(self, t: int, p: int, below: int, above: int) -> Iterator[Any]:
        """Bucket p of model t, whose instances share a single score (any number of them): the same
        numerator for each class, a piece of ``rows`` records at a time."""
        store = self.stores[t]
        assert store is not None
        positives, negatives = (int(x) for x in store.counts[p])
        numerators = (2 * below + negatives, 2 * above + positives)
        for c in (0, 1):
            for piece in store.pieces(p, c, self.rows):
                columns = store.unpacked(piece)
                n = len(columns[0])
                empty = [np.zeros(0, dtype=x.dtype) for x in columns[1:]]
                carried = [columns[1:], empty] if c == 0 else [empty, columns[1:]]
                numbers = [np.full(n if k == c else 0, numerators[c], dtype=self.numerator) for k in (0, 1)]
                yield self._carried(t, carried, numbers)

    def close(self) -> None:
        for store in self.stores:
            if store is not None:
                store.close()
        self.stores = [None] * self.m
