"""Score summaries larger than memory: sorted runs on disk, merged into a summary on disk.

Summaries that arrive already counted (Spark's partitions; a range of a file scan
that holds a single score, :mod:`assay.summaries.partition`) merge in memory
(:class:`MergeTree`) until they would hold more than the memory budget; the merged
summary is then written out as a sorted *run* and the memory is free again. At the
end the runs are merged a chunk at a time (:func:`merge_runs`) into a ``ScoreCounts``
whose arrays, and whose cumulative counts, are mapped from disk. Every ranking
metric walks a summary in chunks of ``CHUNK`` distinct scores and calls
:func:`release` after each, so that the pages it has read go back to the system:
memory holds a chunk, not the summary, however many distinct scores there are.

The files are unlinked from the moment they are made (``tempfile.TemporaryFile``),
so they vanish when the process ends, however it ends (Ctrl-C, a kill); the merged
summary's files live as long as the arrays that map them. They go to the system's
temporary directory (``TMPDIR``). A directory too full for them is said in one line, with about how
much room the run needs there (:func:`room_for`), never as a bare ``OSError``.
"""

from __future__ import annotations

import errno
import mmap
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from assay.errors import InvalidInput
from assay.summaries.kernels import compiled
from assay.summaries.scores import ScoreCounts, ThresholdCounts

__all__ = ["spill_amount", "CHUNK", "HELD_BYTES", "MergeTree", "Run", "gather", "is_on_disk", "merge_runs", "release",
           "check_room", "room_for", "temporary_full", "is_full"]

CHUNK = 1 << 17
"""Distinct scores (curve points) handled at a time by the chunked walks."""

HELD_BYTES = 112
"""Memory one distinct score takes while summaries merge: its score and two counts (24 bytes), the
concatenated copy, the sort order and the gathered arrays of a merge (about 64 more), and the
cumulative counts made afterwards (16)."""


# room in the temporary directory ------------------------------------------------------------------


def is_full(error: OSError) -> bool:
    """Whether a write failed for want of room: no space left, a quota exceeded, or numpy's short write
    ("N requested and M written", which carries no errno)."""
    if error.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        return True
    text = str(error)
    return error.errno is None and "requested and" in text and "written" in text


def spill_amount(size: float) -> str:
    """Bytes as people say them: "1.4 GB", "300 MB" (powers of 1024, as --memory reads them)."""
    for unit, scale in (("TB", 1 << 40), ("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if size >= scale:
            value = size / scale
            return f"{value:.1f} {unit}" if value < 10 else f"{value:,.0f} {unit}"
    return f"{int(size)} bytes"


def temporary_full(directory: str | None, need: int | None, least: int | None = None) -> InvalidInput:
    """The one-line error for a temporary directory without the room a run needs: about ``least`` bytes
    and up to ``need`` (or about ``need``), when known."""
    where = os.path.abspath(directory or tempfile.gettempdir())
    try:
        free = f" (it has {spill_amount(shutil.disk_usage(where).free)} free)"
    except OSError:
        free = ""
    if need and least and least < need:
        needs = f": this run needs about {spill_amount(least)} there, up to {spill_amount(need)} when every score is distinct{free}"
    elif need:
        needs = f": this run needs about {spill_amount(need)} there{free}"
    else:
        needs = free
    return InvalidInput(f"the temporary directory {where} is full{needs}; set TMPDIR to a directory with room, "
                        "or give a larger memory budget (--memory), which keeps more in memory")


def check_room(directory: str | None, sure: int, need: int | None = None, least: int | None = None) -> None:
    """Refuse before anything is written when the temporary directory has less room than ``sure`` bytes,
    which are sure to be written; the error says ``least`` and ``need`` (:func:`temporary_full`)."""
    where = directory or tempfile.gettempdir()
    try:
        free = shutil.disk_usage(where).free
    except OSError:
        return  # nothing known: the writes will say
    if free < sure:
        raise temporary_full(where, need or sure, least)


@contextmanager
def room_for(need: int | None = None, directory: str | None = None, least: int | None = None) -> Iterator[None]:
    """Writes to the temporary directory within: a want of room becomes :func:`temporary_full`'s
    one-line error, naming about what the run needs there when known."""
    try:
        yield
    except OSError as e:
        if is_full(e):
            raise temporary_full(directory, need, least) from None
        raise


def _mapping(array: Any) -> Any:
    """The ``mmap`` behind a (view of a) memory-mapped array, else None."""
    while array is not None:
        if isinstance(array, np.memmap) and getattr(array, "_mmap", None) is not None:
            return array._mmap
        array = getattr(array, "base", None)
        if isinstance(array, mmap.mmap):
            return array
    return None


def is_on_disk(array: Any) -> bool:
    """Whether an array is mapped from a file (a spilled summary's)."""
    return _mapping(array) is not None


def release(*arrays: Any) -> None:
    """Give back the pages of disk-mapped arrays that a walk has read (nothing for arrays in memory).

    The pages stay in the system's file cache; they only stop counting in this process's memory.
    """
    for array in arrays:
        mapping = _mapping(array)
        if mapping is not None and hasattr(mapping, "madvise"):
            mapping.madvise(mmap.MADV_DONTNEED)


def gather(array: Any, index: np.ndarray, step: int = 256) -> np.ndarray:
    """``array[index]``; from an array on disk, ``step`` entries at a time, each group's pages given back
    (a few hundred scattered reads map a few megabytes, not the whole file)."""
    if not is_on_disk(array):
        return np.asarray(array)[index]
    out = np.empty(len(index), dtype=array.dtype)
    for start in range(0, len(index), step):
        out[start:start + step] = array[index[start:start + step]]
        release(array)
    return out


class Run:
    """A summary written to an anonymous temporary file: scores, positives and negatives, one after another."""

    def __init__(self, summary: ScoreCounts, directory: str | None = None) -> None:
        self.length = len(summary)
        pos, neg = np.asarray(summary.positives), np.asarray(summary.negatives)
        self.count_dtype = pos.dtype
        # counts in 4 bytes when they fit (the usual case: a few instances a distinct score)
        stored = np.dtype(np.uint32) if pos.dtype.kind in "iu" and self.length and \
            max(int(pos.max()), int(neg.max())) < 2**32 and min(int(pos.min()), int(neg.min())) >= 0 else pos.dtype
        self.columns = ((0, np.dtype(np.float64)), (8 * self.length, stored),
                        (8 * self.length + stored.itemsize * self.length, stored))
        self.nbytes = (8 + 2 * stored.itemsize) * self.length
        self.file = tempfile.TemporaryFile(prefix="assay-run-", dir=directory)
        try:
            # the run, and the merged summary it ends in (five arrays of 8 bytes an entry, at most)
            with room_for(self.nbytes + 40 * self.length, directory):
                np.asarray(summary.scores, dtype=np.float64).tofile(self.file)
                pos.astype(stored, copy=False).tofile(self.file)
                neg.astype(stored, copy=False).tofile(self.file)
                self.file.flush()
        except BaseException:
            self.file.close()
            raise

    def read(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Entries ``start`` to ``stop`` (scores decreasing), counts in their own type."""
        out = []
        for offset, dtype in self.columns:
            self.file.seek(offset + start * dtype.itemsize)
            out.append(np.fromfile(self.file, dtype=dtype, count=stop - start))
        return out[0], out[1].astype(self.count_dtype, copy=False), out[2].astype(self.count_dtype, copy=False)

    def close(self) -> None:
        self.file.close()


def _merge_pieces(pieces: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> tuple[np.ndarray, ...]:
    """Entries of several runs, each decreasing, as one decreasing run of distinct scores."""
    if len(pieces) == 1:
        return pieces[0]
    total = sum(len(p[0]) for p in pieces)
    counts = [np.asarray(p[1]).dtype for p in pieces] + [np.asarray(p[2]).dtype for p in pieces]
    if compiled(total) is not None and all(dtype.kind in "iu" for dtype in counts):
        # pairwise, each merge one compiled pass: O(n log k), no sort
        merged = [ScoreCounts(p[0], p[1].astype(np.int64), p[2].astype(np.int64)) for p in pieces]
        while len(merged) > 1:
            merged = [merged[i].merge(merged[i + 1]) if i + 1 < len(merged) else merged[i]
                      for i in range(0, len(merged), 2)]
        return merged[0].scores, merged[0].positives, merged[0].negatives
    scores = np.concatenate([p[0] for p in pieces])
    order = np.argsort(-scores, kind="stable")
    scores = scores[order]
    pos = np.concatenate([p[1] for p in pieces])[order]
    neg = np.concatenate([p[2] for p in pieces])[order]
    starts = np.concatenate(([0], np.flatnonzero(scores[1:] != scores[:-1]) + 1))
    return scores[starts], np.add.reduceat(pos, starts), np.add.reduceat(neg, starts)


def merge_runs(runs: list[Run], labels: tuple[str, str], *, directory: str | None = None,
               memory: int = 1 << 28) -> ScoreCounts:
    """The summary of all the runs, its arrays and cumulative counts mapped from disk.

    A k-way merge a chunk at a time: from each run a chunk is read; every entry whose score is at or
    above the highest last score among the runs not yet read to their end is final (no later entry of
    any run can reach it), so those entries merge and are written out, and the runs move on.
    """
    chunk = int(max(1 << 12, memory // (HELD_BYTES * max(len(runs), 1))))
    count_dtype = np.result_type(*[run.count_dtype for run in runs])
    need = sum(40 * run.length for run in runs)  # the merged summary, at most: five arrays of 8 bytes an entry
    with room_for(need, directory):
        return _merge_runs(runs, labels, directory, chunk, count_dtype)


def _merge_runs(runs: list[Run], labels: tuple[str, str], directory: str | None, chunk: int,
                count_dtype: np.dtype) -> ScoreCounts:
    files = [tempfile.TemporaryFile(prefix="assay-summary-", dir=directory) for _ in range(5)]
    buffers: list[tuple[np.ndarray, np.ndarray, np.ndarray] | None] = [None] * len(runs)
    read = [0] * len(runs)
    written = 0
    tp_total = count_dtype.type(0)
    fp_total = count_dtype.type(0)
    while True:
        for r, run in enumerate(runs):
            if (buffers[r] is None or len(buffers[r][0]) == 0) and read[r] < run.length:
                stop = min(run.length, read[r] + chunk)
                buffers[r] = run.read(read[r], stop)
                read[r] = stop
        active = [r for r in range(len(runs)) if buffers[r] is not None and len(buffers[r][0])]
        if not active:
            break
        unfinished = [float(buffers[r][0][-1]) for r in active if read[r] < runs[r].length]
        bound = max(unfinished) if unfinished else -np.inf
        pieces = []
        for r in active:
            scores = buffers[r][0]
            take = len(scores) if bound == -np.inf else int(np.searchsorted(-scores, -bound, side="right"))
            if take:
                pieces.append(tuple(a[:take] for a in buffers[r]))
                buffers[r] = tuple(a[take:] for a in buffers[r])
        scores, pos, neg = _merge_pieces(pieces)
        tp = np.cumsum(pos, dtype=count_dtype) + tp_total
        fp = np.cumsum(neg, dtype=count_dtype) + fp_total
        tp_total, fp_total = tp[-1], fp[-1]
        for f, a in zip(files, (scores, pos.astype(count_dtype), neg.astype(count_dtype), tp, fp)):
            a.tofile(f)
        written += len(scores)
    for run in runs:
        run.close()
    arrays = []
    for f, dtype in zip(files, (np.float64, count_dtype, count_dtype, count_dtype, count_dtype)):
        f.flush()
        arrays.append(np.memmap(f, dtype=dtype, mode="r", shape=(written,)))
        f.close()  # the mapping keeps the (unlinked) file until the arrays go
    scores, pos, neg, tp, fp = arrays
    summary = ScoreCounts(scores, pos, neg, labels)
    object.__setattr__(summary, "_threshold_counts", ThresholdCounts(summary.scores, tp, fp, tp_total, fp_total))
    return summary


class MergeTree:
    """Merges summaries as a binary counter does, within a memory budget.

    Each summary takes part in O(log parts) merges, not one per later part, so merging many parts
    costs about as much as summarising them. When the summaries held would take more than
    ``memory`` bytes (``HELD_BYTES`` a distinct score), they are merged and written to disk as a
    run; :meth:`result` then merges the runs from disk.
    """

    def __init__(self, memory: int | None = None, directory: str | None = None) -> None:
        self.memory = None if memory is None else int(memory)
        self.directory = directory
        self.runs: list[Run] = []
        self._levels: list[ScoreCounts | None] = []
        self._held = 0
        self.labels: tuple[str, str] | None = None

    @property
    def spilled(self) -> bool:
        return bool(self.runs)

    def add(self, summary: ScoreCounts) -> None:
        self.labels = summary.labels
        if self.memory is not None and (self._held + len(summary)) * HELD_BYTES > self.memory:
            self._spill()  # before merging, so that no merge goes past the budget
            if len(summary) * HELD_BYTES > self.memory:  # a part larger than the budget on its own
                self.runs.append(Run(summary, self.directory))
                return
        level = 0
        while level < len(self._levels) and self._levels[level] is not None:
            summary = self._levels[level].merge(summary)
            self._levels[level] = None
            level += 1
        if level == len(self._levels):
            self._levels.append(None)
        self._levels[level] = summary
        self._held = sum(len(s) for s in self._levels if s is not None)

    def _in_memory(self) -> ScoreCounts | None:
        out: ScoreCounts | None = None
        for summary in self._levels:
            if summary is not None:
                out = summary if out is None else summary.merge(out)
        return out

    def _spill(self) -> None:
        """Write each summary held as a run of its own (no merge: the runs are merged from disk at the end)."""
        for summary in self._levels:
            if summary is not None and len(summary):
                self.runs.append(Run(summary, self.directory))
        self._levels, self._held = [], 0

    def result(self) -> ScoreCounts:
        """The merged summary: in memory when it fitted, else mapped from disk."""
        if not self.runs:
            out = self._in_memory()
            assert out is not None
            return out
        self._spill()
        runs, self.runs = self.runs, []
        assert self.labels is not None
        return merge_runs(runs, self.labels, directory=self.directory, memory=self.memory or 1 << 28)

    def close(self) -> None:
        for run in self.runs:
            run.close()
        self.runs = []


def negated_on_disk(summary: ScoreCounts, directory: str | None = None) -> ScoreCounts:
    """The summary of the negated scores of a summary mapped from disk, written to disk a chunk at a time
    from its end (its lowest scores become the highest), with its cumulative counts, as :func:`merge_runs`
    leaves a summary: memory holds a chunk."""
    n = len(summary)
    with room_for(40 * n, directory):
        return _negated_on_disk(summary, n, directory)


def _negated_on_disk(summary: ScoreCounts, n: int, directory: str | None) -> ScoreCounts:
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
