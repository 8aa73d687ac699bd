"""Class probabilities of several classes on Spark: the same summaries as data read in batches, counted by Spark.

:func:`evaluate_proba` gives what :func:`assay.evaluate` gives for ``y_proba`` of k > 2 classes (one column
per class), from a pyspark DataFrame, in two counting jobs:

1. **Per-partition summaries, merged on the driver.** Each partition of the rows is validated and summarised
   by :func:`assay.evaluation.stream.proba_partials`, the function data read in batches run on each batch: the
   confusion counts of the most probable class, the probability summary (losses, calibration), the top-k hits
   and the decisions of least expected cost. Only these (a few kilobytes a partition) reach the driver, which
   merges them. This needs assay on the executors (one small task checks, as for the score summary); where
   they cannot import it, the partitions' rows come to the driver one partition at a time (Arrow IPC, which the
   executors make with pyarrow alone) and the driver summarises them: exact, but every row passes through it.
2. **The class counts at each distinct probability of each column.** One ``groupBy`` on (class index j, the
   probability in column j), the actual class as k counts beside it ("one more key column"), is range
   partitioned on (j, probability decreasing) and sorted within each partition. Where the executors import
   assay, the partitions stay cached there (one Arrow IPC blob each, as the score summary of two classes,
   :mod:`assay.engines.spark_ranges`), and the driver collects only each partition's totals: for each column
   it holds (a partition may hold the end of column j and the start of column j + 1: each run is counted
   apart), the count of each class, which give every partition's offsets (the count of each class above it in
   its column). Then, on the executors, a partition at a time:

   - Hand and Till's pairwise counts (twice the Mann-Whitney U of column j ranking class j against each class
     l), by :func:`assay.summaries.partition.pair_counts` from the partition's run and its offsets, the very
     function the driver's pass of data read in batches runs (:func:`~assay.summaries.partition.one_vs_rest`):
     one job for every column, exact integers, k partial counts a run reaching the driver;
   - class j's one-vs-rest summary is a :class:`~assay.engines.spark_ranges.SparkRanges` over the partitions
     holding column j (each read as (probability, class j's count, the others')): DeLong's AUC and variance,
     the average precision and every other fold are walked there, and only partial results reach the driver.
     A column of at most :data:`HELD_PROBABILITIES` distinct probabilities is taken whole.

   Where the executors cannot import assay (or all the columns hold at most :data:`HELD_PROBABILITIES`
   distinct probabilities), the partitions come to the driver one at a time (``toLocalIterator``: at most
   ``partition_scores`` distinct probabilities held at once), and for each class j in turn
   :func:`~assay.summaries.partition.one_vs_rest` reads those pieces as it reads a scan of data read in
   batches: class j's one-vs-rest summary (held in memory within its share of the budget, written to the
   driver's temporary directory past it) and Hand and Till's pairwise counts.

The merged summaries go to :func:`assay.evaluation.stream.evaluate_proba_summaries`, the very function data
read in batches end with, so every number is the batch path's (and the in-memory one's: the counts exactly,
the probabilistic losses and the areas walked in pieces up to the order of their sums).

The micro average precision pools the k one-vs-rest summaries (every (instance, class) pair): Spark pools
the class counts at each (column, probability) into one more score summary of two classes, counted at each
probability over the columns (one more shuffle, of the counts, not the rows), kept and walked on the executors
as the others (:func:`_pooled`).

pyspark and pyarrow are imported inside the functions that use them (the Spark engine only).
"""

from __future__ import annotations

import math
import pickle
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

import numpy as np

from assay.engines.spark_ranges import (
    Remote,
    SparkRanges,
    as_ipc,
    decreasing,
    from_ipc,
    kept_summary,
    unpersist,
    window_for,
)
from assay.errors import InvalidInput
from assay.evaluation.applicability import refuse_inapplicable
from assay.evaluation.multiclass_ranking import summary_average_precision
from assay.evaluation.options import Options
from assay.evaluation.positive import choose_positive
from assay.evaluation.result import Evaluation
from assay.evaluation.stream import (
    evaluate_proba_summaries,
    proba_options,
    proba_partials,
)
from assay.inputs import canonical_label, encode_labels, sorted_labels
from assay.summaries.partition import pair_counts
from assay.summaries.scores import ScoreCounts

__all__ = ["evaluate_proba", "positive_column", "proba_classes"]

ENTRY_BYTES = 40
"""Bytes a distinct probability takes in a one-vs-rest summary held in memory (its score and four counts),
as :meth:`assay.summaries.partition.ScoreScan.fits` counts them."""

HELD_PROBABILITIES = 1 << 16
"""Distinct probabilities of all the columns at most that come to the driver (about 8 (k + 1) bytes each):
fewer Spark jobs than keeping them on the executors. A column's summary of at most this many distinct
probabilities kept on the executors is taken whole too (as :data:`assay.engines.spark.HELD_SCORES`)."""

FETCHED: Callable[[int], None] | None = None
"""Told the number of entries of a one-vs-rest summary each read on the driver fetches from the executors."""


def proba_classes(proba: Any) -> dict[str, str]:
    """The classes and their columns: a list of columns named after their classes, or ``{class: column}``."""
    if isinstance(proba, Mapping):
        classes = {str(label): column for label, column in proba.items()}
    elif isinstance(proba, (list, tuple)):
        classes = {column: column for column in proba}
    else:
        raise InvalidInput(f"expected the probability columns' names, got {type(proba).__name__}", field="proba")
    for label, column in classes.items():
        if not isinstance(column, str):
            raise InvalidInput(f"expected a column name, got {type(column).__name__}", field=f"proba[{label!r}]")
    if len(classes) < 2:
        raise InvalidInput("needs at least two columns, one per class", field="proba")
    if len(set(classes.values())) < len(classes):
        raise InvalidInput("names a column twice", field="proba")
    return classes


def _ordered(classes: dict[str, str]) -> tuple[tuple[str, ...], list[str]]:
    """The classes in assay's order (as data read in batches order them) and their columns."""
    labels = tuple(sorted_labels(list(classes)))
    if len(labels) < len(classes):
        raise InvalidInput(f"names one class twice (the classes {list(classes)} are {list(labels)})", field="proba")
    by_label = {canonical_label(label, labels, field="proba"): column for label, column in classes.items()}
    return labels, [by_label[label] for label in labels]


def _names(truth: str, labels: Sequence[str], columns: Sequence[str]) -> dict[str, str]:
    """How errors name the columns (as :func:`assay.engines.files.evaluate_file` names them)."""
    return {"y_true": f"column {truth!r}", "y_proba": "the probability columns",
            **{f"y_proba[{label!r}]": f"column {column!r}" for label, column in zip(labels, columns, strict=True)}}


# on the executors (or, where they lack assay, on the driver) ----------------------------------------------


def _summarised(truth: str, columns: Sequence[str], labels: tuple[str, ...], clip: float | None, bins: int,
                top_k: int | None, costs: np.ndarray | None, batches: Iterator[Any]) -> dict[str, Any]:
    """A partition's summaries (:func:`proba_partials`, merged over its record batches), the raw values of its
    truth with their class codes, or its first bad row: ``error`` = (problem, field)."""
    names = _names(truth, labels, columns)
    out: dict[str, Any] = {"cm": None, "probabilities": None, "hits": 0, "decisions": None, "truths": {},
                           "error": None}
    for batch in batches:
        if not batch.num_rows:
            continue
        y = batch.column(0)
        proba = {label: batch.column(1 + i) for i, label in enumerate(labels)}
        try:
            cm, summary, extras, _, _ = proba_partials((None, 1, y, proba), names, labels, clip, bins, top_k, costs)
            distinct = y.unique()
            codes = encode_labels({"y_true": distinct}, labels=list(labels)).codes["y_true"]
        except InvalidInput as e:
            out["error"] = _described(e, batch, truth, columns)
            return out
        out["truths"].update({value: int(code) for value, code in zip(distinct.to_pylist(), codes, strict=True)})
        out["cm"] = cm if out["cm"] is None else out["cm"].merge(cm)
        out["probabilities"] = summary if out["probabilities"] is None else out["probabilities"].merge(summary)
        out["hits"] += extras.get("hits", 0)
        if "decisions" in extras:
            out["decisions"] = extras["decisions"] if out["decisions"] is None else \
                out["decisions"].merge(extras["decisions"])
    return out


def _described(error: InvalidInput, batch: Any, truth: str, columns: Sequence[str]) -> tuple[str, str | None]:
    """A bad row's problem with the row's values (Spark's rows have no number), as :func:`first_bad` says it."""
    if error.row is None:
        return error.problem, error.field
    values = ", ".join(f"{name} = {batch.column(i)[error.row].as_py()!r}"
                       for i, name in enumerate([truth, *columns]))
    return f"{error.problem} (a row with {values})", error.field


def _partition_summaries(truth: str, columns: Sequence[str], labels: tuple[str, ...], clip: float | None,
                         bins: int, top_k: int | None, costs: np.ndarray | None,
                         batches: Iterator[Any]) -> Iterator[Any]:
    """(On an executor, by reference: it imports assay) a partition's summaries as one pickled row."""
    import pyarrow as pa

    out = _summarised(truth, columns, labels, clip, bins, top_k, costs, batches)
    yield pa.RecordBatch.from_arrays([pa.array([pickle.dumps(out)], pa.binary())], names=["blob"])


def _column_runs(k: int, rows: Iterator[bytes]) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """(On an executor) each column's run of a range partition of the class counts (Arrow IPC: columns ``j``,
    ``s``, ``c0`` ... ``c{k-1}``, ordered by column then probability decreasing): the column, its distinct
    probabilities (decreasing) and the count of each class at each (a column a class)."""
    tables = [from_ipc(blob) for blob in rows]
    for table in tables:
        if not table.num_rows:
            continue
        j = table.column("j").to_numpy(zero_copy_only=False).astype(np.int64)
        s = table.column("s").to_numpy(zero_copy_only=False).astype(np.float64) + 0.0
        c = np.column_stack([table.column(f"c{i}").to_numpy(zero_copy_only=False).astype(np.int64)
                             for i in range(k)])
        for column in np.unique(j).tolist():
            at = j == column
            scores, counts = decreasing(s[at], c[at])
            yield int(column), scores, counts


def _totals_of(k: int, index: int, rows: Iterator[bytes]) -> Iterator[tuple[int, list[tuple[int, int, list[int]]]]]:
    """(On an executor) a range partition's number and, for each column it holds, the column, its distinct
    probabilities there and each class's count."""
    yield index, [(j, len(scores), [int(x) for x in counts.sum(axis=0)]) for j, scores, counts in _column_runs(k, rows)]


def _pairs_of(k: int, support: list[int], offsets: dict[tuple[int, int], list[int]], index: int,
              rows: Iterator[bytes]) -> Iterator[tuple[int, list[int]]]:
    """(On an executor) for each column j a range partition holds, Hand and Till's pairwise counts of its run
    (:func:`~assay.summaries.partition.pair_counts`), its offsets (each class's count above it in column j)
    given."""
    totals = np.asarray(support, dtype=np.int64)
    for j, _, counts in _column_runs(k, rows):
        yield j, pair_counts(counts, j, np.asarray(offsets[(index, j)], dtype=np.int64), totals)


def _one_column(j: int, k: int, rows: Iterator[bytes]) -> Iterator[bytes]:
    """(On an executor) column j's run of a range partition as the summary of class j against the rest: one
    Arrow IPC blob of ``s``, ``pos`` (class j's count) and ``neg`` (the others'), as
    :class:`~assay.engines.spark_ranges.Remote` reads a partition; nothing where the partition holds none."""
    import pyarrow as pa

    for column, scores, counts in _column_runs(k, rows):
        if column != j:
            continue
        pos = counts[:, j]
        batch = pa.RecordBatch.from_arrays([pa.array(scores), pa.array(pos), pa.array(counts.sum(axis=1) - pos)],
                                           names=["s", "pos", "neg"])
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, batch.schema) as writer:
            writer.write_batch(batch)
        yield sink.getvalue().to_pybytes()


# on the driver ---------------------------------------------------------------------------------------------


def _merged(parts: Iterator[dict[str, Any]]) -> dict[str, Any]:
    """The partitions' summaries merged, in partition order; the first bad row raised."""
    total: dict[str, Any] = {"cm": None, "probabilities": None, "hits": 0, "decisions": None, "truths": {}}
    for part in parts:
        if part["error"] is not None:
            problem, field = part["error"]
            raise InvalidInput(problem, field=field)
        if part["cm"] is None:
            continue
        total["cm"] = part["cm"] if total["cm"] is None else total["cm"].merge(part["cm"])
        total["probabilities"] = part["probabilities"] if total["probabilities"] is None else \
            total["probabilities"].merge(part["probabilities"])
        total["hits"] += part["hits"]
        if part["decisions"] is not None:
            total["decisions"] = part["decisions"] if total["decisions"] is None else \
                total["decisions"].merge(part["decisions"])
        total["truths"].update(part["truths"])
    return total


def _summaries(df: Any, truth: str, columns: Sequence[str], labels: tuple[str, ...], options: Options,
               costs: np.ndarray | None, executors: Callable[[], bool]) -> dict[str, Any]:
    """The rows' summaries (:func:`_summarised`), made on the executors where they import assay, else on the
    driver a partition at a time."""
    rows = df.select(truth, *columns)
    run = partial(_summarised, truth, columns, labels, options.clip, options.calibration_bins, options.top_k, costs)
    if executors():
        blobs = rows.mapInArrow(partial(_partition_summaries, truth, columns, labels, options.clip,
                                        options.calibration_bins, options.top_k, costs), "blob binary").collect()
        return _merged(pickle.loads(row[0]) for row in blobs)
    return _merged(run(iter(from_ipc(row[0]).to_batches())) for row in rows.mapInArrow(as_ipc(), "ipc binary")
                   .toLocalIterator())


def _as_double(df: Any, column: str) -> Any:
    """A column as doubles (text that is a number included: the rows are validated already)."""
    from pyspark.sql import functions as F

    if str(dict(df.dtypes).get(column, "")).startswith(("string", "varchar", "char")):
        return F.expr(f"try_cast(`{column.replace('`', '``')}` AS DOUBLE)")
    return F.col(column).cast("double")


class _Stream:
    """The class counts at each distinct probability of every column, as Spark streams them to the driver a
    range partition at a time, ordered by column then probability (decreasing): each column's pieces in turn."""

    def __init__(self, partitions: Iterator[Any], k: int, progress: Callable[[int], None] | None) -> None:
        self.partitions = partitions
        self.k = k
        self.pending: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self.progress = progress

    def _next(self) -> bool:
        row = next(self.partitions, None)
        if row is None:
            return False
        table = from_ipc(row[0])
        j = table.column("j").to_numpy(zero_copy_only=False).astype(np.int64)
        s = table.column("s").to_numpy(zero_copy_only=False).astype(np.float64) + 0.0
        c = np.column_stack([table.column(f"c{i}").to_numpy(zero_copy_only=False).astype(np.int64)
                             for i in range(self.k)])
        self.pending = (j, s, c)
        if self.progress is not None:
            self.progress(int(c.sum()))
        return True

    def pieces(self, column: int) -> Iterator[tuple[np.ndarray, ...]]:
        """(probabilities decreasing, then each class's count) of ``column``, a partition's run at a time."""
        while True:
            if self.pending is None and not self._next():
                return
            assert self.pending is not None
            j, s, c = self.pending
            start, stop = np.searchsorted(j, column, "left"), np.searchsorted(j, column, "right")
            if start < stop:
                scores, counts = decreasing(s[start:stop], c[start:stop])
                yield (scores, *(counts[:, i] for i in range(self.k)))
            if stop < len(j):
                self.pending = (j[stop:], s[stop:], c[stop:])
                return
            self.pending = None


class _ColumnScan:
    """Column j's class counts at each distinct probability, read as :func:`one_vs_rest` reads a
    :class:`~assay.summaries.partition.ScoreScan` of k classes."""

    directory = None

    def __init__(self, stream: _Stream, column: int, distinct: int, memory: int | None) -> None:
        self.stream, self.column, self.distinct, self.memory = stream, column, distinct, memory

    def fits(self) -> bool:
        """Whether its one-vs-rest summary takes at most a quarter of its share of the budget."""
        return self.memory is None or self.distinct * ENTRY_BYTES <= self.memory // 4

    def pieces(self) -> Iterator[tuple[np.ndarray, ...]]:
        return self.stream.pieces(self.column)

    def close(self) -> None:
        """Nothing to drop: the stream's partitions are read once."""


class _Kept:
    """The class counts at each (column, distinct probability), range partitioned and cached on the executors
    (one Arrow IPC blob a partition), and what the driver knows of them: the distinct probabilities of each
    column and each partition's offsets (the count of each class above it in its column), from one small
    collect of the partitions' totals. A partition may hold the end of one column and the start of the next:
    each of its runs is counted apart."""

    def __init__(self, ordered: Any, k: int) -> None:
        from pyspark import StorageLevel

        self.sc, self.k = ordered.sparkSession.sparkContext, k
        self.blobs = ordered.mapInArrow(as_ipc(), "ipc binary").rdd.map(lambda row: row[0])
        self.blobs.persist(StorageLevel.MEMORY_AND_DISK)
        weakref.finalize(self, unpersist, self.blobs)
        self.distinct = [0] * k
        self.offsets: dict[tuple[int, int], list[int]] = {}
        above = [[0] * k for _ in range(k)]
        for index, runs in sorted(self.blobs.mapPartitionsWithIndex(partial(_totals_of, k)).collect()):
            for j, d, totals in runs:
                self.offsets[(index, j)] = list(above[j])
                above[j] = [a + t for a, t in zip(above[j], totals, strict=True)]
                self.distinct[j] += d
        self._pairs: list[list[int]] | None = None

    def one_vs_rest(self, j: int, support: np.ndarray, labels: tuple[str, str]) -> tuple[ScoreCounts, np.ndarray]:
        """Class j's one-vs-rest summary (a :class:`~assay.engines.spark_ranges.SparkRanges` walked on the
        executors, or taken whole when small) and its pairwise counts, both made there: what
        :func:`~assay.summaries.partition.one_vs_rest` gives for a scan of data read in batches."""
        u2 = np.array(self.pairs(support)[j], dtype=object)
        remote = _ColumnRemote(self, j)
        if self.distinct[j] <= HELD_PROBABILITIES:  # few distinct probabilities: taken whole, in one job
            scores, pos, neg = remote.everything()
            return ScoreCounts(scores, pos, neg, labels), u2
        return ScoreCounts.of_ranges(SparkRanges(remote), labels), u2

    def pairs(self, support: np.ndarray) -> list[list[int]]:
        """Each column's pairwise counts (twice the Mann-Whitney U of column j ranking class j against each
        class), summed over its partitions' partial counts, made on the executors in one job."""
        if self._pairs is None:
            totals = [int(x) for x in support]
            out = [[0] * self.k for _ in range(self.k)]
            for j, u2 in self.blobs.mapPartitionsWithIndex(partial(_pairs_of, self.k, totals, self.offsets)).collect():
                out[j] = [a + b for a, b in zip(out[j], u2, strict=True)]
            self._pairs = out
        return self._pairs


class _ColumnRemote(Remote):
    """Class j's one-vs-rest summary as the partitions of the cached class counts that hold column j, each
    read as (probability, class j's count, the others') on the executors (:func:`_one_column`)."""

    def __init__(self, kept: _Kept, j: int) -> None:
        super().__init__(kept.sc, kept.blobs.mapPartitions(partial(_one_column, j, kept.k)),
                         window_for(kept.distinct[j]), fetched=FETCHED)
        self.kept = kept  # the cached partitions live while a summary reads them


def _class_counts(df: Any, truth: str, columns: Sequence[str], truths: dict[Any, int], k: int) -> Any:
    """The count of each actual class at each (column j, distinct probability in it), on the executors."""
    from pyspark.sql import functions as F

    code = F.lit(None).cast("int")
    for c in range(k):
        raws = [value for value, got in truths.items() if got == c]
        if raws:
            code = F.when(F.col(truth).isin(raws), F.lit(c)).otherwise(code)
    pairs = F.explode(F.array(*[F.struct(F.lit(j).alias("j"), _as_double(df, column).alias("s"))
                                for j, column in enumerate(columns)])).alias("e")
    exploded = df.select(code.alias("y"), pairs).select("y", "e.j", "e.s")
    return exploded.groupBy("j", "s").agg(*[F.sum((F.col("y") == c).cast("long")).alias(f"c{c}") for c in range(k)])


def evaluate_proba(df: Any, truth: str, classes: dict[str, str], options: Options, data: dict[str, Any],
                   progress: Callable[[int, int | None], None] | None, *, executors: Callable[[], bool],
                   partition_scores: int) -> Evaluation:
    """The evaluation of k > 2 classes' probabilities in a DataFrame (the columns checked): as data read in
    batches (:func:`assay.evaluation.stream.evaluate_batches`), the counting done by Spark.

    ``data`` holds the data's own keywords (``positive``: refused, as for data read in batches; ``labels``:
    refused, the classes are the columns'; ``memory``: the driver's budget in bytes for the one-vs-rest
    summaries, shared by the classes, None for none). ``executors``: asked whether the executors import assay (they summarise their partitions);
    ``partition_scores``: the distinct probabilities of a range partition, the most the driver holds at once.
    """
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    labels, columns = _ordered(classes)
    k = len(labels)
    if data.get("labels") is not None:
        raise InvalidInput("the classes are the probability columns' (proba={class: column}); labels applies to "
                           "predicted labels", field="labels")
    if options.kappa_weights is not None:
        raise InvalidInput("a weighted kappa applies to predicted labels here (on Spark: pred=)",
                           field="kappa_weights")
    if options.direction != "higher":
        raise InvalidInput("a direction applies to a score column", field="direction")
    refuse_inapplicable("probabilities", options.asked())
    costs = proba_options(labels, options, data.get("positive"), where="on Spark")
    memory = data.get("memory")
    if progress is not None:
        progress(0, None)
    total = _summaries(df, truth, columns, labels, options, costs, executors)
    cm = total["cm"]
    if cm is None or cm.n == 0:
        raise InvalidInput("no instances to evaluate", field=f"column {truth!r}")
    n = int(cm.n)
    if progress is not None:
        progress(0, n * k)
    counts = _class_counts(df, truth, columns, total["truths"], k).persist(StorageLevel.MEMORY_AND_DISK)
    kept = None
    try:
        distinct = dict.fromkeys(range(k), 0)
        distinct.update({int(row["j"]): int(row["count"]) for row in counts.groupBy("j").count().collect()})
        ordered = (counts.repartitionByRange(max(1, math.ceil(sum(distinct.values()) / partition_scores)),
                                             F.col("j"), F.col("s").desc())
                   .sortWithinPartitions(F.col("j"), F.col("s").desc()))
        micro = None
        if sum(distinct.values()) > HELD_PROBABILITIES and executors():
            kept = _Kept(ordered, k)
            if int(np.count_nonzero(total["cm"].actual_totals)) == k:  # every class present: the micro AP is defined
                micro = summary_average_precision(_pooled(counts, k, sum(distinct.values()), partition_scores))
            counts.unpersist(blocking=False)  # the partitions cached on the executors hold them now
        if kept is not None:
            if progress is not None:
                progress(n * k, n * k)
            scans: list[Any] = []
        else:
            done = 0

            def told(rows: int) -> None:
                nonlocal done
                done += rows
                if progress is not None:
                    progress(done, n * k)

            stream = _Stream(ordered.mapInArrow(as_ipc(), "ipc binary").toLocalIterator(), k, told)
            share = None if memory is None else max(int(memory) // k, 1)
            scans = [_ColumnScan(stream, j, distinct[j], share) for j in range(k)]
        result = evaluate_proba_summaries(cm, total["probabilities"], total["hits"], total["decisions"], scans,
                                          labels, options, field=f"column {truth!r}", micro=micro,
                                          made=None if kept is None else kept.one_vs_rest)
    finally:
        counts.unpersist(blocking=False)
    if kept is not None:
        parts = len({index for index, _ in kept.offsets})
        note = (f"on Spark: each class's one-vs-rest summary (the {k} classes' counts at each distinct probability "
                f"of its column, {parts} range partitions in all) stayed on the executors: they computed the "
                "metrics' partial results and Hand and Till's pairwise counts, which the driver combined; every "
                "count is exact. The micro average precision is walked there too, on the summaries pooled")
    else:
        note = (f"on Spark: each class's one-vs-rest summary (the {k} classes' counts at each distinct probability "
                "of its column) came to the driver a range partition at a time, held within memory= and spilled "
                "past it")
    return _noted(result, note)


def _pooled(counts: Any, k: int, distinct: int, partition_scores: int) -> ScoreCounts:
    """The k one-vs-rest summaries pooled (every (instance, class) pair: the micro average precision's), from
    the class counts at each (column, probability) (``counts``), counted and kept on the executors as the score
    summary of two classes is (:func:`~assay.engines.spark_ranges.kept_summary`): at each probability, the
    instances of class j at that probability of column j, and the others, summed over the columns."""
    from pyspark.sql import functions as F

    own = F.coalesce(*[F.when(F.col("j") == i, F.col(f"c{i}")) for i in range(k)])
    every = sum((F.col(f"c{i}") for i in range(1, k)), F.col("c0"))
    pooled = (counts.select(F.col("s"), own.alias("own"), (every - own).alias("other"))
              .repartitionByRange(max(1, math.ceil(distinct / partition_scores)), F.col("s").desc())
              .groupBy("s").agg(F.sum("own").alias("pos"), F.sum("other").alias("neg"))
              .sortWithinPartitions(F.col("s").desc()))
    return kept_summary(pooled, distinct, ("rest", "class"), held=HELD_PROBABILITIES, fetched=FETCHED)


def _noted(result: Evaluation, note: str) -> Evaluation:
    return replace(result, notes=(*result.notes, note))


def positive_column(df: Any, truth: str, classes: dict[str, str], positive: Any, *,
                    executors: Callable[[], bool]) -> tuple[str, str]:
    """Two classes' probabilities: the rows checked as for k classes (each row sums to 1, the truth among the
    classes), and the positive class's column with the class (chosen as data read in batches choose it): a
    score column."""
    labels, columns = _ordered(classes)
    _summaries(df, truth, columns, labels, Options(), None, executors)
    chosen, _ = choose_positive(labels, positive=positive)
    return columns[labels.index(chosen)], chosen

