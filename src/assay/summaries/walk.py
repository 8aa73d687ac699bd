"""One walk over a summary that feeds every fold at once, its pieces worked on both cores.

A metric that sums, or otherwise reduces, over the distinct scores of a summary is a *fold*: a function of
one piece of the summary (its class counts and the cumulative counts down to it: ../DESIGN.md, "Ranges and
offsets") and a way to combine the pieces' partial results, in order. Because each piece carries the
cumulative counts before it, the pieces are independent: :func:`walk` reads them one after another (from
memory, from a mapped file, or counted off a range of sorted keys) and hands each to a pool of threads,
which compute every fold's partial of it while the next piece is read. A report's folds (DeLong's AUC and
variance, the precision-recall areas, the best thresholds' first walk, the probabilistic losses) thus read
the summary once, not once each, and use both cores; the same folds run on any piece, which is what lets
the pieces be ranges walked anywhere.

A fold is any object with:

- ``columns``: the names of the columns it reads (of ``scores``, ``positives``, ``negatives``, ``tp``, ``fp``);
- ``piece(p)``: its partial result of the :class:`Piece` ``p`` (called on a worker thread: a pure function);
- ``combine(partials, look)``: its result from the partials of every piece, in order; ``look(other, indices)``
  gives another fold's partials of pieces ``indices`` (a second look at a few pieces, computed where the
  pieces are: the best thresholds' ties).

The pieces are the walks' chunks (``assay.summaries.disk.CHUNK`` entries, aligned the same way in memory
and beyond), so a fold's result does not depend on where the summary is kept. A summary whose pieces are
elsewhere (Spark's executors: :mod:`assay.engines.spark_ranges`) walks itself: its columns' ``summary``
has a ``walk_folds(folds)`` method, which gives the same results up to floating-point rounding (its pieces
are its ranges).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, NamedTuple, Protocol

import numpy as np
from threadpoolctl import threadpool_limits

from assay.summaries import disk
from assay.summaries.disk import release

__all__ = ["COLUMNS", "Fold", "Piece", "in_summary_order", "walk"]

COLUMNS = ("scores", "positives", "negatives", "tp", "fp")

WORKERS = 2
"""Threads computing the folds' partials (numpy's loops release the interpreter's lock)."""

AHEAD = 3
"""Pieces read ahead of the folds at most: what a walk holds in memory besides the summary."""


class Piece(NamedTuple):
    """Entries [start, stop) of a summary: the columns a walk's folds read (absent ones are None), the
    cumulative counts before ``start`` (the offsets) and the summary's class totals."""

    start: int
    stop: int
    scores: np.ndarray | None
    positives: np.ndarray | None
    negatives: np.ndarray | None
    tp: np.ndarray | None
    fp: np.ndarray | None
    tp_before: float
    fp_before: float
    n_positive: float
    n_negative: float


def in_summary_order(scores: np.ndarray) -> bool:
    """Whether ``scores`` are in the order a summary's piece holds them: decreasing (a fold's fast path, which
    finds each bin of the scores as a run of the piece, relies on it; other orders take the general path)."""
    return len(scores) < 2 or bool(np.all(scores[1:] <= scores[:-1]))


class Fold(Protocol):
    columns: tuple[str, ...]

    def piece(self, p: Piece) -> Any: ...

    def combine(self, partials: list[Any], look: Any) -> Any: ...


def _piece(columns: Mapping[str, Any], names: Sequence[str], start: int, stop: int,
           totals: tuple[float, float]) -> Piece:
    read = {name: (columns[name][start:stop] if name in names else None) for name in COLUMNS}
    tp_before = fp_before = 0
    if start > 0:
        tp_before, fp_before = columns["tp"][start - 1], columns["fp"][start - 1]
    release(*(columns[name] for name in names))
    return Piece(start, stop, **read, tp_before=tp_before, fp_before=fp_before, n_positive=totals[0],
                 n_negative=totals[1])


def _partials(folds: Sequence[Fold], p: Piece) -> list[Any]:
    return [fold.piece(p) for fold in folds]


@contextmanager
def _shut(pool: ThreadPoolExecutor) -> Iterator[None]:
    """On leaving (an error or Ctrl-C too), nothing more is started; the pieces under way end in
    milliseconds."""
    try:
        yield
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def walk(columns: Mapping[str, Any], folds: Sequence[Fold], *, n_positive: float, n_negative: float,
         chunk: int | None = None, workers: int = WORKERS) -> list[Any]:
    """Every fold's result, from one walk over the summary whose columns are ``columns`` (a mapping of the
    names in :data:`COLUMNS` to arrays or array-like columns, sliceable; ``tp`` and ``fp`` are needed by
    every walk of more than one piece, for the offsets). ``n_positive`` and ``n_negative`` are the class
    totals. One piece is worked on in the calling thread; more go to ``workers`` threads while the next
    pieces are read."""
    remote = getattr(getattr(columns["tp"], "summary", None), "walk_folds", None)
    if remote is not None:  # the summary's pieces are walked where they are kept
        return remote(folds)
    chunk = disk.CHUNK if chunk is None else chunk  # read at each call (the tests walk in chunks of a few)
    names = sorted({name for fold in folds for name in fold.columns} | {"tp", "fp"})
    length = len(columns["tp"])
    totals = (n_positive, n_negative)
    starts = list(range(0, length, chunk)) or [0]

    def reread(i: int) -> Piece:
        return _piece(columns, names, starts[i], min(starts[i] + chunk, length), totals)

    def look(other: Fold, indices: Sequence[int]) -> list[Any]:
        read = sorted(set(names) | set(other.columns))
        return [other.piece(_piece(columns, read, starts[i], min(starts[i] + chunk, length), totals))
                for i in indices]

    if len(starts) == 1:
        partials = [[part] for part in _partials(folds, reread(0))]
    else:
        by_fold: list[list[Any]] = [[] for _ in folds]
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="assay-walk")
        pending: deque[Future] = deque()
        # one BLAS thread each: OpenBLAS's own threads make concurrent calls wait for each other
        with threadpool_limits(limits=1, user_api="blas"), _shut(pool):
            for i in range(len(starts)):
                pending.append(pool.submit(_partials, folds, reread(i)))
                while len(pending) >= AHEAD or (pending and pending[0].done()):
                    for j, part in enumerate(pending.popleft().result()):
                        by_fold[j].append(part)
            while pending:
                for j, part in enumerate(pending.popleft().result()):
                    by_fold[j].append(part)
        partials = by_fold
    return [fold.combine(parts, look) for fold, parts in zip(folds, partials)]

