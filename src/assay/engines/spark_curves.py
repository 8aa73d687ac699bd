"""A curve's points as a Spark DataFrame: every point made on the executors, none through the driver.

:func:`curve` gives the points of :meth:`assay.spark.rank(...).roc() <assay.evaluation.ranking.RankingAnalysis.roc>`,
``pr()``, ``lift_curve()``, ``threshold_table()`` or ``hull()`` as a DataFrame, one row per point, in the
curve's order across its partitions: ``curve(...).write.csv(DIR, header=True)`` writes the parts in order.

Where the score summary stays on the executors (:class:`~assay.engines.spark_ranges.SparkRanges`, a range
partition of about a million distinct scores each, highest first), the driver holds each partition's class
totals, hence the counts before it (its offsets: ../DESIGN.md, "Ranges and offsets"). Each executor makes
its partition's points from the partition and those offsets with the code that makes a chunk of any curve
in memory (:class:`assay.evaluation.ranking.CurveRows`, which the spilled summary's ``curve_chunks`` runs
too: one formula, every engine), a chunk of :data:`CHUNK` points at a time, as Arrow IPC messages that
become the DataFrame's rows. Where lower scores mean the positive class the curve runs from the lowest
score up, the partitions' reverse: their points are moved (a shuffle between executors, by partition,
never through the driver) so that the first partition holds the curve's start.

The hull's vertices and a threshold table at given thresholds are few: the driver computes them (as
:meth:`~assay.evaluation.ranking.RankingAnalysis.hull` and ``threshold_table(thresholds)`` do) and hands
them to Spark. So does a summary the driver holds: one of at most
:data:`~assay.engines.spark.HELD_SCORES` distinct scores, or any summary where the executors cannot import
assay (the driver then walked it): its points are made on the driver a chunk at a time and reach the
executors from there (Spark keeps them in the driver's memory until they are written).
"""

from __future__ import annotations

import os
import re
import shutil
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

import numpy as np

from assay.engines.spark import rank, spark_errors
from assay.engines.spark_ranges import SparkRanges, base_arrays, view_piece
from assay.errors import InvalidInput
from assay.evaluation.ranking import CHUNKED_CURVES, CurveRows, check_curve_options
from assay.metrics.ranking import ThresholdCounts
from assay.summaries.disk import CHUNK

__all__ = ["CHUNK", "CurveKind", "check_output_dir", "curve", "curve_frame", "has_scheme", "write_points"]

CurveKind = Literal["roc", "pr", "lift", "thresholds", "hull"]
"""The curves (:data:`assay.evaluation.ranking.CURVE_OPTIONS`, which checks them)."""

DIRECTIONS = ("higher", "lower")
"""The directions a curve on Spark takes ("auto" chooses from the classes' medians, which reads every
distinct score on the driver)."""


def curve(df: Any, *, truth: str, score: str, kind: CurveKind = "roc", positive: Any = None,
          direction: str = "higher", prevalence: float | None = None, costs: Any = None,
          thresholds: Sequence[float] | None = None, memory: int | None = None) -> Any:
    """The points of a curve of a DataFrame's scores, as a Spark DataFrame made on the executors.

    Parameters
    ----------
    df : pyspark.sql.DataFrame
    truth, score : str
        The column of actual classes (two), and of scores of the positive class.
    kind : {"roc", "pr", "lift", "thresholds", "hull"}
        The curve: the ROC curve (``threshold``, ``fpr``, ``tpr``, from (0, 0) at an infinite threshold),
        precision-recall (``threshold``, ``recall``, ``precision``), lift and cumulative gains
        (``threshold``, ``depth``, ``gains``, ``lift``), the threshold table (``threshold``, the four
        cells, the rates, ``expected_cost``, ``predicted_positive``) or the ROC convex hull's vertices: the
        columns and values of :func:`assay.rank`'s ``roc()``, ``pr()``, ``lift_curve()``,
        ``threshold_table()`` and ``hull()``.
    positive : optional
        The positive class (default: chosen as :func:`assay.rank` chooses it).
    direction : {"higher", "lower"}
        "lower": lower scores mean the positive class (positive iff score <= threshold); the curve runs
        from the lowest score up.
    prevalence : float, optional
        For "pr", "lift" and "thresholds": the share of positives where the classifier is used (the
        columns that move with the class balance are at it; default: the data's).
    costs : dict or Costs, optional
        For "thresholds": the costs of its expected cost column (default: each error costs 1).
    thresholds : sequence of float, optional
        For "thresholds": these thresholds only (default: every distinct score).
    memory : int, optional
        The driver's budget in bytes (default 2 GiB) for a summary the driver walks (where the executors
        cannot import assay).

    Returns
    -------
    pyspark.sql.DataFrame
        One row per point, in the curve's order (the first partition holds its start, the last its end),
        every column a double: equal to the in-memory curve's, value for value (each point is made from
        its own cumulative counts, as in memory). Where the executors import assay and the summary has
        more than :data:`~assay.engines.spark.HELD_SCORES` distinct scores, the points of "roc", "pr",
        "lift" and "thresholds" without ``thresholds`` are made on the executors and never pass through
        the driver; the others (few points, or a summary the driver holds) are made on the driver and
        handed to Spark. The DataFrame keeps the analysis, and so the summary cached on the executors,
        while it lives; one derived from it (``select``, ...) after it is gone counts the summary again
        from ``df`` when it runs.

    Raises
    ------
    InvalidInput
        An option the curve does not take (``prevalence`` for "roc"), ``direction="auto"``, a missing
        column or value, or an error Spark raised (one line).

    Examples
    --------
    ::

        points = assay.spark.curve(df, truth="label", score="probability", kind="roc")
        points.write.csv("s3a://bucket/roc/", header=True)      # the parts, in order
    """
    return curve_frame(df, truth=truth, score=score, kind=kind, positive=positive, direction=direction,
                       prevalence=prevalence, costs=costs, thresholds=thresholds, memory=memory)


def curve_frame(df: Any, *, truth: str, score: str, kind: str = "roc", positive: Any = None,
                direction: str = "higher", prevalence: float | None = None, costs: Any = None,
                thresholds: Sequence[float] | None = None, memory: int | None = None,
                render: Callable[[dict[str, np.ndarray]], dict[str, list]] | None = None,
                render_type: str = "double") -> Any:
    """:func:`curve`, each chunk of points passed through ``render`` (where they are made: a function of
    assay's, importable on the executors, such as :func:`assay.report.curves.curve_cells`) into columns of
    ``render_type`` ("double" or "string"; None is Spark's null)."""
    asked = {"prevalence": prevalence, "costs": costs, "thresholds": thresholds}
    check_curve_options(kind, [name for name, value in asked.items() if value is not None])
    if direction not in DIRECTIONS:
        why = (": choosing it from the classes' medians reads every distinct score on the driver; give "
               "\"higher\" or \"lower\"") if direction == "auto" else f"; expected one of {list(DIRECTIONS)}"
        raise InvalidInput(f"{direction!r} is not taken by a curve on Spark{why}", field="direction")
    if render_type not in ("double", "string"):
        raise ValueError(f"render_type {render_type!r}")
    options: dict[str, Any] = {"direction": direction}
    if costs is not None:
        options["costs"] = costs
    if memory is not None:
        options["memory"] = memory
    r = rank(df, truth=truth, score=score, positive=positive, **options)
    with spark_errors():
        spark = df.sparkSession
        summary = getattr(r.summary.scores, "summary", None)
        if isinstance(summary, SparkRanges) and kind in CHUNKED_CURVES and thresholds is None:
            rows = r.curve_rows(kind, prevalence=prevalence)
            blobs = _on_executors(summary, rows, render, render_type)
            names = list(rows.of(_empty(r), first=True))
        else:
            if kind == "hull":
                tables: Any = [r.hull()]
            elif kind == "thresholds" and thresholds is not None:
                tables = [r.threshold_table(np.asarray(thresholds, dtype=np.float64), prevalence=prevalence)]
            else:
                tables = r.curve_chunks(kind, prevalence=prevalence)
            found, names = [], []
            for table in tables:
                names = names or list(table)
                found.append(_ipc(render(table) if render is not None else table, render_type))
            blobs = spark.sparkContext.parallelize(found, max(1, len(found)))
        schema = ", ".join(f"`{name}` {render_type}" for name in names)
        frame = spark.createDataFrame(blobs.map(_row()), "ipc binary").mapInArrow(_from_ipc_rows(), schema)
    frame._assay_ranking = r  # the summary stays cached on the executors while the DataFrame lives
    return frame


def _empty(r: Any) -> ThresholdCounts:
    """No entry of the summary, with its class totals: what names a curve's columns."""
    tc = r.counts
    return ThresholdCounts(np.zeros(0), np.zeros(0, np.int64), np.zeros(0, np.int64), tc.n_positive, tc.n_negative)


@dataclass(frozen=True)
class Points:
    """What the executors need to make the points of a view's range partitions: the rows' maker, the
    render, and each partition's (by id) order in the view and place (:func:`view_piece`)."""
    rows: CurveRows
    render: Callable[[dict[str, np.ndarray]], dict[str, list]] | None
    render_type: str
    places: dict[int, tuple[int, tuple[Any, ...]]]
    chunk: int = CHUNK


def _on_executors(summary: SparkRanges, rows: CurveRows, render: Any, render_type: str = "double") -> Any:
    """An RDD of the curve's points, Arrow IPC messages of at most :data:`CHUNK` points (the driver's value),
    in the curve's order across its partitions, made on the executors."""
    remote = summary.remote
    placed = summary.places()
    job = Points(rows, render, render_type, {remote.ids[b]: (k, place) for k, (b, place) in enumerate(placed)},
                 CHUNK)
    made = remote.blobs.mapPartitionsWithIndex(partial(make_points, job))
    if not summary.negated_view:  # partition k holds the view's range k already
        return made.map(_third())
    # the view runs the other way: range k is partition len - 1 - k; each chunk goes to partition k
    return made.map(_keyed()).partitionBy(max(1, len(placed)), _identity).mapPartitions(_in_order)


def make_points(job: Points, index: int, rows: Iterator[bytes]) -> Iterator[tuple[int, int, bytes]]:
    """On an executor: the points of partition ``index`` (its range of scores, as the view sees it, with the
    counts before it), a chunk at a time: (its order in the view, the chunk's, the chunk's Arrow IPC
    message)."""
    found = job.places.get(index)
    if found is None:
        return
    k, place = found
    p = view_piece(*base_arrays(rows), place)
    step = job.chunk
    for c, start in enumerate(range(0, len(p.scores), step)):
        part = ThresholdCounts(p.scores[start:start + step], p.tp[start:start + step], p.fp[start:start + step],
                               p.n_positive, p.n_negative)
        table = job.rows.of(part, first=k == 0 and start == 0)
        yield k, c, _ipc(job.render(table) if job.render is not None else table, job.render_type)


def _ipc(table: dict[str, Any], render_type: str) -> bytes:
    """A chunk of points as one Arrow IPC message (None is null)."""
    import pyarrow as pa

    kind = pa.float64() if render_type == "double" else pa.string()
    arrays = [pa.array(np.asarray(v, dtype=np.float64) if isinstance(v, np.ndarray) else v, type=kind)
              for v in table.values()]
    batch = pa.RecordBatch.from_arrays(arrays, names=list(table))
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, batch.schema) as writer:
        writer.write_batch(batch)
    return sink.getvalue().to_pybytes()


def _identity(key: int) -> int:
    return key


def _in_order(chunks: Iterator[tuple[int, tuple[int, bytes]]]) -> Iterator[bytes]:
    """A partition's chunks (of one range) in their order."""
    for _, (_, blob) in sorted(chunks, key=lambda item: item[1][0]):
        yield blob


def _third() -> Callable[[tuple[int, int, bytes]], bytes]:
    return lambda item: item[2]


def _keyed() -> Callable[[tuple[int, int, bytes]], tuple[int, tuple[int, bytes]]]:
    return lambda item: (item[0], (item[1], item[2]))


def _row() -> Callable[[bytes], tuple[bytes]]:
    """A message as a row (by value: the executors need not import assay)."""
    return lambda blob: (blob,)


def _from_ipc_rows() -> Callable[[Iterator[Any]], Iterator[Any]]:
    """The function the executors run: rows of Arrow IPC messages into their record batches (defined here so
    that it travels by value: it needs pyarrow only)."""
    def from_ipc(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        for batch in batches:
            for blob in batch.column(0).to_pylist():
                yield from pa.ipc.open_stream(pa.py_buffer(blob)).read_all().to_batches()

    return from_ipc


_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+:")


def write_points(frame: Any, path: str, *, format: Literal["csv", "json"], inputs: Sequence[str] = ()) -> None:
    """Write a DataFrame of points (:func:`curve_frame`) to the directory ``path`` with Spark, whole or not
    at all: CSV parts each with its header line (a null is an empty cell), or JSON lines (a null is written,
    not left out). Spark writes to a hidden sibling directory (``.assay-*.tmp``), renamed to ``path`` once
    complete (removed on any error). ``path`` may not exist, or be an empty directory (replaced); anything
    else there is refused, and so is a path that is, holds or lies inside one of the ``inputs``.

    A path without a scheme is the driver's file system (Python renames it: atomic); one with a scheme
    (``file:``, ``s3a://``, ``hdfs://``, ...) is Hadoop's (its rename: atomic on HDFS and local disks, a
    copy on object stores).

    Raises
    ------
    InvalidInput
        ``path`` is refused, or Spark failed to write (one line).
    """
    if _SCHEME.match(path):
        _write_hadoop(frame, path, format, inputs)
        return
    target = check_output_dir(path, inputs)
    tmp = os.path.join(os.path.dirname(target), f".assay-{uuid.uuid4().hex}.tmp")
    try:
        with spark_errors():
            _writer(frame, format).save(tmp)
        os.replace(tmp, target)  # over an empty directory too, atomically
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def has_scheme(path: str) -> bool:
    """Whether a path names its file system (``s3a://``, ``hdfs://``, ``file:``...): Hadoop's to write."""
    return _SCHEME.match(path) is not None


def check_output_dir(path: str, inputs: Sequence[str] = ()) -> str:
    """Refuse a local output directory (no scheme) as :func:`write_points` does, before anything is counted;
    the directory to write (a link followed, as :func:`assay.io.atomic.write_atomic` follows one)."""
    real = os.path.realpath(path)
    for source in inputs:
        if _SCHEME.match(source) and not source.lower().startswith("file:"):
            continue
        source = os.path.realpath(_glob_root(re.sub(r"^file:(//(localhost)?)?", "", source, flags=re.IGNORECASE)))
        if real == source or real.startswith(source.rstrip(os.sep) + os.sep) or \
                source.startswith(real.rstrip(os.sep) + os.sep):
            raise InvalidInput(f"{path}: it is an input of this run, or holds one or lies in one; choose another "
                               "output directory")
    if os.path.lexists(real):
        if not os.path.isdir(real):
            raise InvalidInput(f"{path}: it exists and is not a directory (Spark writes a directory of parts "
                               "there); choose another path")
        if os.listdir(real):
            raise InvalidInput(f"{path}: the directory exists and is not empty; choose another, or empty it")
    parent = os.path.dirname(real)
    if not os.path.isdir(parent):
        raise InvalidInput(f"{path}: no such directory {parent}")
    return real


def _glob_root(path: str) -> str:
    """The directory a glob's matches lie in (the path itself when it is no glob)."""
    parts = path.split(os.sep)
    for i, part in enumerate(parts):
        if any(c in part for c in "*?[]{}"):
            return os.sep.join(parts[:i]) or os.sep
    return path


def _writer(frame: Any, format: str) -> Any:
    writer = frame.write.mode("errorifexists")
    if format == "csv":
        return writer.format("csv").option("header", True).option("nullValue", "")
    return writer.format("json").option("ignoreNullFields", False)


def _write_hadoop(frame: Any, path: str, format: str, inputs: Sequence[str]) -> None:
    """:func:`write_points` to a path with a scheme, through Hadoop's file system."""
    spark = frame.sparkSession
    jvm, conf = spark._jvm, spark._jsc.hadoopConfiguration()  # Hadoop's file system is reached through the JVM
    with spark_errors(path):
        target = jvm.org.apache.hadoop.fs.Path(path)
        fs = target.getFileSystem(conf)
        target = fs.makeQualified(target)
        name = target.toString().rstrip("/")
        for source in inputs:
            if not _SCHEME.match(source):
                source = "file:" + os.path.abspath(_glob_root(source))
            src = fs.makeQualified(jvm.org.apache.hadoop.fs.Path(_glob_root(source))).toString().rstrip("/") \
                if source.split(":", 1)[0].lower() == name.split(":", 1)[0].lower() else None
            if src is not None and (src == name or name.startswith(src + "/") or src.startswith(name + "/")):
                raise InvalidInput(f"{path}: it is an input of this run, or holds one or lies in one; choose "
                                   "another output directory")
        if fs.exists(target):
            if not fs.getFileStatus(target).isDirectory():
                raise InvalidInput(f"{path}: it exists and is not a directory (Spark writes a directory of parts "
                                   "there); choose another path")
            if len(fs.listStatus(target)):
                raise InvalidInput(f"{path}: the directory exists and is not empty; choose another, or empty it")
        tmp = jvm.org.apache.hadoop.fs.Path(target.getParent(), f".assay-{uuid.uuid4().hex}.tmp")
        try:
            _writer(frame, format).save(tmp.toString())
            if fs.exists(target):
                fs.delete(target, False)  # empty: Hadoop's rename would move the parts inside it
            if not fs.rename(tmp, target):
                raise InvalidInput(f"{path}: the parts were written but could not be renamed there")
        except BaseException:
            try:
                fs.delete(tmp, True)
            except Exception:  # noqa: BLE001 - the session may be gone: nothing more to clean
                pass
            raise
