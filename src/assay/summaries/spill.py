"""Score summaries larger than memory: sorted runs on disk, merged into a summary on disk.

Summaries that arrive already counted (Spark's partitions; a range of a file scan
that holds a single score, :mod:`assay.summaries.partition`) merge in memory
(:class:`MergeTree`) until they would hold more than the memory budget; the merged
summary is then written out as a sorted *run* and the memory is free again. At the
end the runs are merged a chunk at a time (:func:`merge_runs`) into a ``ScoreCounts``
whose arrays, and whose cumulative counts, are mapped from disk. Every ranking
metric walks a summary in chunks of ``CHUNK`` distinct scores and calls
``release`` after each (:mod:`assay.summaries.disk`), so that the pages it has read go back to the
system: memory holds a chunk, not the summary, however many distinct scores there are.

The files are unlinked from the moment they are made (``tempfile.TemporaryFile``),
so they vanish when the process ends, however it ends (Ctrl-C, a kill); the merged
summary's files live as long as the arrays that map them. They go to the system's
temporary directory (``TMPDIR``). A directory too full for them is said in one line, with about how
much room the run needs there (``room_for``), never as a bare ``OSError``.
"""

from __future__ import annotations

import tempfile

import numpy as np

from assay.summaries.disk import (
    CHUNK,
    check_room,
    gather,
    is_full,
    is_on_disk,
    release,
    room_for,
    spill_amount,
    temporary_full,
)
from assay.summaries.kernels import compiled
from assay.summaries.scores import ScoreCounts, ThresholdCounts

__all__ = ["spill_amount", "CHUNK", "HELD_BYTES", "MergeTree", "Run", "gather", "is_on_disk", "merge_runs", "release",
           "check_room", "room_for", "temporary_full", "is_full"]
"""The names of :mod:`assay.summaries.disk` are here too, where the code that spills summaries has always
found them."""

HELD_BYTES = 112
"""Memory one distinct score takes while summaries merge: its score and two counts (24 bytes), the
concatenated copy, the sort order and the gathered arrays of a merge (about 64 more), and the
cumulative counts made afterwards (16)."""


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
