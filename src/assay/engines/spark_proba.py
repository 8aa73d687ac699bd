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
   partitioned on (j, probability decreasing), sorted within each partition, and taken to the driver one
   partition at a time (``toLocalIterator``: at most ``partition_scores`` distinct probabilities held at
   once). For each class j in turn, :func:`assay.summaries.partition.one_vs_rest` reads those pieces as it
   reads a scan of data read in batches: it gives class j's one-vs-rest summary (held in memory within its
   share of the budget, written to the driver's temporary directory past it) and the Mann-Whitney counts of
   Hand and Till's pairwise AUCs, in exact integers.

The merged summaries go to :func:`assay.evaluation.stream.evaluate_proba_summaries`, the very function data
read in batches end with, so every number is the batch path's (and the in-memory one's: the counts exactly,
the probabilistic losses up to the order of their sums).

The one-vs-rest summaries are not kept on the executors as the score summary of two classes is
(:mod:`assay.engines.spark_ranges`): Hand and Till's pairwise AUCs need every class's count at each distinct
probability, in order, which is what the driver's pass reads; so the distinct probabilities of each column pass
through the driver (about 8 (k + 1) bytes each), bounded and spilled, as the score summary does where the
executors lack assay.

pyspark and pyarrow are imported inside the functions that use them (the Spark engine only).
"""

from __future__ import annotations

import math
import pickle
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

import numpy as np

from assay.engines.spark_ranges import as_ipc, decreasing, from_ipc
from assay.errors import InvalidInput
from assay.evaluation.applicability import refuse_inapplicable
from assay.evaluation.options import Options
from assay.evaluation.positive import choose_positive
from assay.evaluation.result import Evaluation
from assay.evaluation.stream import evaluate_proba_summaries, proba_options, proba_partials
from assay.inputs import canonical_label, encode_labels, sorted_labels

__all__ = ["evaluate_proba", "positive_column", "proba_classes"]

ENTRY_BYTES = 40
"""Bytes a distinct probability takes in a one-vs-rest summary held in memory (its score and four counts),
as :meth:`assay.summaries.partition.ScoreScan.fits` counts them."""


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
    try:
        distinct = dict.fromkeys(range(k), 0)
        distinct.update({int(row["j"]): int(row["count"]) for row in counts.groupBy("j").count().collect()})
        ordered = (counts.repartitionByRange(max(1, math.ceil(sum(distinct.values()) / partition_scores)),
                                             F.col("j"), F.col("s").desc())
                   .sortWithinPartitions(F.col("j"), F.col("s").desc()))
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
                                          labels, options, field=f"column {truth!r}")
    finally:
        counts.unpersist(blocking=False)
    note = (f"on Spark: each class's one-vs-rest summary (the {k} classes' counts at each distinct probability "
            f"of its column) came to the driver a range partition at a time, held within memory= and spilled past "
            "it: Hand and Till's pairwise AUCs read every class's counts in order")
    return _noted(result, note)


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

