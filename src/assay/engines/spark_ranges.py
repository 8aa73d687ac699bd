"""The score summary kept on Spark's executors: the driver holds its ranges' totals and adds partial results.

Spark counts the positives and negatives at each distinct score, range-partitions those counts on the
score, highest first, and keeps each partition (a range of scores, its counts in order) cached on the
executors. The driver takes only each partition's totals and a thin *skeleton* of entries (the first and
last of every window of ``window`` entries, with their cumulative counts within the partition): one small
collect. The totals give every partition's offsets (the cumulative counts before it: ../DESIGN.md,
"Ranges and offsets"), so each partition is a piece that can be walked on its own:

- :meth:`SparkRanges.walk_folds`: the folds of a walk (:mod:`assay.summaries.walk`: DeLong's AUC and
  variance, the precision-recall areas, the best thresholds, the ROC hull, the probabilistic losses) run on
  the executors, one partition each, and only their partial results reach the driver, which combines them;
  a fold's second look at a few pieces (the best thresholds' ties) runs there too;
- any other read of the summary by index (a binary search for a threshold or an operating point, the
  thinned points a picture draws) asks the executors for just those entries: a search first narrows to a
  window between two skeleton entries (read on the driver), then fetches that window once; scattered
  entries are fetched exactly, in one job.

So what reaches the driver depends on the number of partitions and the points asked for, not on the number
of distinct scores. :class:`SparkRanges` is a :class:`~assay.summaries.ranges.RangeSummary` (the same
views: negated, classes swapped), so every metric runs on it unchanged.

The executors run this module's functions: they need assay installed (:func:`executors_have_assay`
checks with one small job; without it the engine walks the summary on the driver instead). pyspark is
imported by the functions that use it (the Spark engine only).
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from typing import Any

import numpy as np

from assay.errors import InvalidInput
from assay.summaries.ranges import Range, RangeSummary
from assay.summaries.scores import ScoreCounts
from assay.summaries.walk import Piece

__all__ = ["Remote", "SparkRanges", "as_ipc", "decreasing", "executors_have_assay", "from_ipc", "kept_summary",
           "unpersist", "window_for"]

WINDOW = 2048
"""Entries of a window at least: a search's last steps read one window, fetched whole."""

SKELETON_WINDOWS = 1 << 15
"""Windows at most: the skeleton (two entries a window) stays under about 3 MB however many the scores."""

WINDOWS_AT_ONCE = 8
"""Windows fetched whole when a read misses at most this many; beyond, the entries asked for alone."""

KEPT_WINDOWS = 64
"""Windows kept on the driver (least recently read dropped first)."""


def window_for(distinct: int) -> int:
    """The window for a summary of ``distinct`` scores: a power of two, at least :data:`WINDOW`, with at
    most :data:`SKELETON_WINDOWS` windows."""
    size = WINDOW
    while distinct > size * SKELETON_WINDOWS:
        size *= 2
    return size


# on the executors --------------------------------------------------------------------------------------


def base_arrays(rows: Iterable[bytes]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A partition's distinct scores (decreasing) and their positives and negatives, from its Arrow IPC
    stream (columns ``s``, ``pos``, ``neg``). Scores Spark kept apart that are one number (0.0 and -0.0) are
    merged."""
    import pyarrow as pa

    parts = [pa.ipc.open_stream(pa.py_buffer(blob)).read_all() for blob in rows]
    if not parts:
        return np.zeros(0), np.zeros(0, np.int64), np.zeros(0, np.int64)
    table = pa.concat_tables(parts) if len(parts) > 1 else parts[0]
    scores = table.column("s").to_numpy(zero_copy_only=False).astype(np.float64) + 0.0
    pos = table.column("pos").to_numpy(zero_copy_only=False).astype(np.int64)
    neg = table.column("neg").to_numpy(zero_copy_only=False).astype(np.int64)
    scores, counts = decreasing(scores, np.column_stack([pos, neg]))
    return scores, counts[:, 0], counts[:, 1]


def decreasing(scores: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct scores in decreasing order and their counts (a row of counts a score), from a run Spark
    sorted: values it kept apart that are one number (0.0 and -0.0) merged, their counts added."""
    if len(scores) > 1 and not (np.diff(scores) < 0).all():
        order = np.argsort(-scores, kind="stable")
        scores, counts = scores[order], counts[order]
        starts = np.concatenate(([0], np.flatnonzero(scores[1:] != scores[:-1]) + 1))
        scores, counts = scores[starts], np.add.reduceat(counts, starts, axis=0)
    return scores, counts


def _stats(window: int, index: int, rows: Iterator[bytes]) -> Iterator[tuple[Any, ...]]:
    """A partition's number, size, class totals and skeleton (the first and last entry of each window:
    local index, score, positives, negatives, cumulative positives and negatives)."""
    scores, pos, neg = base_arrays(rows)
    d = len(scores)
    if not d:
        return
    cp, cn = np.cumsum(pos), np.cumsum(neg)
    starts = np.arange(0, d, window)
    at = np.unique(np.concatenate([starts, np.minimum(starts + window, d) - 1]))
    yield index, d, int(cp[-1]), int(cn[-1]), (at, scores[at], pos[at], neg[at], cp[at], cn[at])


def _entries(requests: dict[int, np.ndarray], rows: Iterator[bytes]) -> list[tuple[Any, ...]]:
    """The entries of this partition at the local indices asked for it: (partition, score, positives,
    negatives, cumulative positives and negatives)."""
    from pyspark import TaskContext

    pid = TaskContext.get().partitionId()
    at = requests.get(pid)
    if at is None:
        return []
    scores, pos, neg = base_arrays(rows)
    last = int(at.max()) + 1 if len(at) else 0
    cp, cn = np.cumsum(pos[:last]), np.cumsum(neg[:last])
    return [(pid, scores[at], pos[at], neg[at], cp[at], cn[at])]


def view_piece(scores: np.ndarray, pos: np.ndarray, neg: np.ndarray, place: tuple[Any, ...]) -> Piece:
    """A partition's piece of the summary as a view sees it: ``place`` is (negated, swapped, start,
    tp before, fp before, positives in all, negatives in all)."""
    negated, swapped, start, tp_before, fp_before, n_positive, n_negative = place
    if swapped:
        pos, neg = neg, pos
    if negated:
        scores, pos, neg = -scores[::-1] + 0.0, pos[::-1], neg[::-1]
    tp = np.cumsum(pos)
    tp += tp_before
    fp = np.cumsum(neg)
    fp += fp_before
    return Piece(start, start + len(scores), scores, pos, neg, tp, fp, tp_before, fp_before, n_positive,
                 n_negative)


def _walk(folds: Sequence[Any], places: dict[int, tuple[Any, ...]], rows: Iterator[bytes]) -> list[tuple[int, list]]:
    """Every fold's partial of this partition, as the view placed by ``places`` sees it."""
    from pyspark import TaskContext

    pid = TaskContext.get().partitionId()
    place = places.get(pid)
    if place is None:
        return []
    p = view_piece(*base_arrays(rows), place)
    return [(pid, [fold.piece(p) for fold in folds])]


def as_ipc() -> Callable[[Iterator[Any]], Iterator[Any]]:
    """The function the executors run: a partition's record batches as one row holding their Arrow IPC stream.

    Defined inside this function so that it travels to the executors by value (cloudpickle pickles a
    module's top-level function by reference, which would need assay installed on every executor): the
    executors need pyarrow only, as pyspark's Arrow functions do.
    """
    def as_ipc(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        sink = pa.BufferOutputStream()
        writer = None
        for batch in batches:
            if writer is None:
                writer = pa.ipc.new_stream(sink, batch.schema)
            writer.write_batch(batch)
        if writer is not None:
            writer.close()
            yield pa.RecordBatch.from_arrays([pa.array([sink.getvalue().to_pybytes()], pa.binary())], names=["ipc"])

    return as_ipc


def from_ipc(blob: bytes) -> Any:
    """The table of an Arrow IPC stream (a partition's, from :func:`as_ipc`)."""
    import pyarrow as pa

    return pa.ipc.open_stream(pa.py_buffer(blob)).read_all()


# on the driver -----------------------------------------------------------------------------------------


def executors_have_assay(sc: Any, version: str) -> bool:
    """Whether Spark's executors import this version of assay (one task; a yes is remembered for the
    application)."""
    key = (sc.applicationId, version)
    if key in _HAVE_ASSAY:
        return True
    try:
        found = sc.parallelize([0], 1).map(_probe_by_value()).collect()
    except Exception:  # noqa: BLE001 - any failure means: walk on the driver
        return False
    if found == [version]:
        _HAVE_ASSAY.add(key)
    return found == [version]


_HAVE_ASSAY: set[tuple[str, str]] = set()
"""The Spark applications (and assay versions) whose executors were found to import assay."""


def _probe_by_value() -> Callable[[Any], str | None]:
    """The probe, defined here so that it travels by value (not by reference to a module of assay)."""
    def probe(_: Any) -> str | None:
        try:
            import assay
        except ImportError:
            return None
        return getattr(assay, "__version__", None)

    return probe


class Remote:
    """A summary's partitions cached on the executors (an RDD of one Arrow IPC blob per partition, range
    partitioned, highest scores first) and what the driver knows of them: the non-empty partitions' ids,
    sizes, class totals and skeletons."""

    def __init__(self, sc: Any, blobs: Any, window: int, fetched: Callable[[int], None] | None = None) -> None:
        self.sc, self.blobs, self.window = sc, blobs, window
        self.fetched = fetched
        found = sorted(blobs.mapPartitionsWithIndex(partial(_stats, window)).collect(), key=lambda row: row[0])
        self.ids = [row[0] for row in found]
        self.distinct = np.array([row[1] for row in found], dtype=np.int64)
        self.positives = [row[2] for row in found]
        self.negatives = [row[3] for row in found]
        self.skeleton = [row[4] for row in found]
        self._windows: OrderedDict[tuple[int, int], tuple[np.ndarray, ...]] = OrderedDict()
        self._lock = threading.Lock()
        weakref.finalize(self, unpersist, blobs)

    def finite(self) -> bool:
        """Whether every score is a finite number: a missing score (null), NaN or an infinity sorts at an end
        of a partition, which the skeleton holds."""
        return all(bool(np.isfinite(sk[1]).all()) for sk in self.skeleton)

    def everything(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The whole summary, in one job: its scores (decreasing), positives and negatives."""
        if not self.ids:
            return np.zeros(0), np.zeros(0, np.int64), np.zeros(0, np.int64)
        got = self._fetch({b: np.arange(int(d)) for b, d in enumerate(self.distinct)})
        return tuple(np.concatenate([got[b][k] for b in range(len(self.ids))]) for k in range(3))

    def ranges(self) -> list[Range]:
        return [Range(p, n, int(d), partial(self.whole, b))
                for b, (p, n, d) in enumerate(zip(self.positives, self.negatives, self.distinct))]

    def whole(self, b: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Partition ``b`` (in order) whole: its scores, positives and negatives."""
        got = self._fetch({b: np.arange(int(self.distinct[b]))})[b]
        return got[0], got[1], got[2]

    def _fetch(self, wanted: dict[int, np.ndarray]) -> dict[int, tuple[np.ndarray, ...]]:
        """Entries of partitions (by position) at local indices, from the executors in one job."""
        requests = {self.ids[b]: np.asarray(at, dtype=np.int64) for b, at in wanted.items()}
        rows = self.sc.runJob(self.blobs, partial(_entries, requests), partitions=sorted(requests))
        position = {pid: b for b, pid in enumerate(self.ids)}
        if self.fetched is not None:
            self.fetched(sum(len(at) for at in requests.values()))
        return {position[row[0]]: row[1:] for row in rows}

    def entries(self, b: np.ndarray, i: np.ndarray) -> list[np.ndarray]:
        """Entries at (partition position, local index) pairs: score, positives, negatives and cumulative
        positives and negatives within the partition; from the windows kept, the skeleton, or the
        executors."""
        out = [np.empty(len(b), np.float64)] + [np.empty(len(b), np.int64) for _ in range(4)]
        have = np.zeros(len(b), dtype=bool)
        w = i // self.window
        with self._lock:
            self._from_windows(b, i, w, out, have)
            self._from_skeleton(b, i, out, have)
            miss = np.flatnonzero(~have)
            if len(miss):
                keys = np.unique(np.stack([b[miss], w[miss]]), axis=1)
                if keys.shape[1] <= WINDOWS_AT_ONCE:
                    wanted: dict[int, list[np.ndarray]] = {}
                    for pb, pw in keys.T.tolist():
                        lo = pw * self.window
                        wanted.setdefault(pb, []).append(np.arange(lo, min(lo + self.window, int(self.distinct[pb]))))
                    got = self._fetch({pb: np.concatenate(parts) for pb, parts in wanted.items()})
                    for pb, parts in wanted.items():
                        at = 0
                        for part in parts:
                            self._windows[(pb, int(part[0]) // self.window)] = tuple(
                                column[at:at + len(part)] for column in got[pb])
                            at += len(part)
                    while len(self._windows) > KEPT_WINDOWS:
                        self._windows.popitem(last=False)
                    self._from_windows(b, i, w, out, have)
                else:
                    self._exact(b[miss], i[miss], miss, out)
        return out

    def _from_windows(self, b: np.ndarray, i: np.ndarray, w: np.ndarray, out: list[np.ndarray],
                      have: np.ndarray) -> None:
        if not self._windows:
            return
        for pb, pw in np.unique(np.stack([b, w]), axis=1).T.tolist():
            kept = self._windows.get((pb, pw))
            if kept is None:
                continue
            self._windows.move_to_end((pb, pw))
            rows = np.flatnonzero((b == pb) & (w == pw) & ~have)
            local = i[rows] - pw * self.window
            for column, values in zip(out, kept):
                column[rows] = values[local]
            have[rows] = True

    def _from_skeleton(self, b: np.ndarray, i: np.ndarray, out: list[np.ndarray], have: np.ndarray) -> None:
        for pb in np.unique(b[~have]).tolist():
            rows = np.flatnonzero((b == pb) & ~have)
            at = self.skeleton[pb][0]
            where = np.minimum(np.searchsorted(at, i[rows]), len(at) - 1)
            hit = at[where] == i[rows]
            rows, where = rows[hit], where[hit]
            for column, values in zip(out, self.skeleton[pb][1:]):
                column[rows] = values[where]
            have[rows] = True

    def _exact(self, b: np.ndarray, i: np.ndarray, rows: np.ndarray, out: list[np.ndarray]) -> None:
        wanted = {}
        for pb in np.unique(b).tolist():
            wanted[pb] = np.unique(i[b == pb])
        got = self._fetch(wanted)
        for pb, at in wanted.items():
            mine = b == pb
            where = np.searchsorted(at, i[mine])
            for column, values in zip(out, got[pb]):
                column[rows[mine]] = values[where]

    def walk(self, folds: Sequence[Any], places: dict[int, tuple[Any, ...]]) -> dict[int, list[Any]]:
        """Every fold's partial of the partitions (by position) placed by ``places``, computed on the
        executors: {position: [partial of each fold]}."""
        by_id = {self.ids[b]: place for b, place in places.items()}
        position = {pid: b for b, pid in enumerate(self.ids)}
        # every partition's task reads it (a Python worker whose task leaves its input unread is not reused: the
        # next task starts another, which imports assay again); else only the partitions placed are run
        if len(by_id) == self.blobs.getNumPartitions():
            rows = self.blobs.mapPartitions(partial(_walk, tuple(folds), by_id)).collect()
        else:
            rows = self.sc.runJob(self.blobs, partial(_walk, tuple(folds), by_id), partitions=sorted(by_id))
        return {position[pid]: partials for pid, partials in rows}

    def close(self) -> None:
        unpersist(self.blobs)


def unpersist(blobs: Any) -> None:
    """Drop a cached RDD from the executors (quietly when the session is gone)."""
    try:
        blobs.unpersist(blocking=False)
    except Exception:  # noqa: BLE001 - the session may be gone: nothing is left to free
        pass


class SparkRanges(RangeSummary):
    """A :class:`~assay.summaries.ranges.RangeSummary` whose ranges are Spark partitions cached on the
    executors (:class:`Remote`): walked there, and read on the driver entry by entry (see the module)."""

    def __init__(self, remote: Remote, *, negated: bool = False, swapped: bool = False) -> None:
        super().__init__(remote.ranges(), [remote], negated=negated, swapped=swapped)
        self.remote = remote
        parts = f"{len(remote.ids)} range partition" + ("s" if len(remote.ids) != 1 else "")
        self.note = (f"the summary of {{n:,}} distinct scores stayed on Spark's executors, in {parts}: they "
                     "computed the metrics' partial results, which the driver combined; every number is exact")
        self._known: np.ndarray | None = None

    def negated(self) -> SparkRanges:
        return SparkRanges(self.remote, negated=not self.negated_view, swapped=self.swapped_view)

    def swapped(self) -> SparkRanges:
        return SparkRanges(self.remote, negated=self.negated_view, swapped=not self.swapped_view)

    def _base(self, index: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The view's range, and the partition's position and local index, of each entry."""
        k = self.locate(index)
        j = index - self.starts[k]
        if not self.negated_view:
            return k, k, j
        b = len(self.order) - 1 - k
        return k, b, self.remote.distinct[b] - 1 - j

    def _take_all(self, index: np.ndarray) -> list[np.ndarray]:
        k, b, i = self._base(index)
        scores, pos, neg, cp, cn = self.remote.entries(b, i)
        if self.negated_view:
            total_p = np.asarray(self.remote.positives, dtype=np.int64)[b]
            total_n = np.asarray(self.remote.negatives, dtype=np.int64)[b]
            scores = -scores + 0.0
            cp, cn = total_p - cp + pos, total_n - cn + neg
        if self.swapped_view:
            pos, neg, cp, cn = neg, pos, cn, cp
        return [scores, pos, neg, self.tp_before[k] + cp, self.fp_before[k] + cn]

    def span(self, name: str, start: int, stop: int) -> np.ndarray:
        if stop <= start:
            return np.zeros(0, dtype=np.float64 if name == "scores" else np.int64)
        return self.take(name, np.arange(start, stop, dtype=np.int64))

    def known_entries(self) -> np.ndarray:
        """The entries the driver holds (the skeleton), as this view numbers them: a search reads them
        before any other."""
        if self._known is None:
            parts = []
            for b, skeleton in enumerate(self.remote.skeleton):
                at = skeleton[0]
                if self.negated_view:
                    k = len(self.order) - 1 - b
                    parts.append(self.starts[k] + (self.remote.distinct[b] - 1 - at))
                else:
                    parts.append(self.starts[b] + at)
            self._known = np.unique(np.concatenate(parts)) if parts else np.zeros(0, np.int64)
        return self._known

    def walk_folds(self, folds: Sequence[Any]) -> list[Any]:
        """Every fold's result, its partials computed on the executors (a piece a partition)."""
        in_order = self.places()
        places = dict(in_order)
        order = [b for b, _ in in_order]
        partials = self.remote.walk(folds, places)

        def look(other: Any, indices: Sequence[int]) -> list[Any]:
            if not len(indices):
                return []
            seen = self.remote.walk([other], {order[k]: places[order[k]] for k in indices})
            return [seen[order[k]][0] for k in indices]

        return [fold.combine([partials[b][f] for b in order], look) for f, fold in enumerate(folds)]

    def places(self) -> list[tuple[int, tuple[Any, ...]]]:
        """Each range of this view, in the view's order: the partition's position (in the remote's order) and
        its place, as :func:`view_piece` takes it (negated, swapped, start, tp before, fp before, positives
        in all, negatives in all)."""
        out = []
        for k in range(len(self.order)):
            b = len(self.order) - 1 - k if self.negated_view else k
            out.append((b, (self.negated_view, self.swapped_view, int(self.starts[k]), int(self.tp_before[k]),
                            int(self.fp_before[k]), self.n_positive, self.n_negative)))
        return out


def kept_summary(ordered: Any, distinct: int, labels: tuple[str, str], *, held: int,
                 fetched: Callable[[int], None] | None = None, bad: Callable[[], None] | None = None) -> Any:
    """The score summary of counts at each distinct score, range partitioned and sorted (``ordered``: columns
    ``s``, ``pos``, ``neg``; about ``distinct`` entries or rows), kept on the executors (they import assay) as
    a :class:`~assay.summaries.scores.ScoreCounts` of :class:`SparkRanges`; one of at most ``held`` distinct
    scores is taken whole in one job. ``bad`` names the first bad row when a score is missing or not finite
    (else such a score is an error of its own)."""
    blobs = ordered.mapInArrow(as_ipc(), "ipc binary").rdd.map(lambda row: row[0])
    blobs.persist(_storage())
    remote = Remote(ordered.sparkSession.sparkContext, blobs, window_for(distinct), fetched=fetched)
    if not remote.finite():
        remote.close()
        if bad is not None:
            bad()
        raise InvalidInput("a score is missing or not finite")
    if int(remote.distinct.sum()) <= held:  # few distinct scores: taken whole, in one job
        scores, pos, neg = remote.everything()
        remote.close()
        return ScoreCounts(scores, pos, neg, labels)
    return ScoreCounts.of_ranges(SparkRanges(remote), labels)


def _storage() -> Any:
    from pyspark import StorageLevel

    return StorageLevel.MEMORY_AND_DISK
