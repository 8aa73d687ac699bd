"""The Spark engine: a pyspark DataFrame in, the same exact result as :func:`assay.evaluate` out.

The rows never leave the executors. Spark aggregates them into the summaries assay's
metrics read (for predicted labels, the count of each (actual, predicted) pair; for
scores, the count of each (actual class, distinct score) pair) and only those reach the
driver, through Arrow. Every metric, interval, curve and test is then computed by the
same code as in memory, so the numbers are the same.

The score summary holds one entry per distinct score. Spark range-partitions it on the
score and keeps the partitions cached on the executors, which walk them: every metric that
reduces over the distinct scores is computed there, a partition at a time, and only the
partial results reach the driver (:mod:`assay.engines.spark_ranges`). The executors need assay
for that (one small task checks); where they cannot import it, the driver takes the partitions
one at a time into the merge tree files read in batches use, spilled past the memory budget to
the driver's temporary directory, so even a summary of every score distinct fits. A summary of
at most :data:`HELD_SCORES` distinct scores is taken whole.

pyspark is an optional dependency: ``pip install 'assay[spark]'`` (it needs Java 17).

An error Spark raises while it reads or counts (a corrupt part, a part of another format, a column whose
type differs between parts, an executor that cannot import a module) is an :class:`InvalidInput` of one
line naming the part when Spark names it; the Java exception is its ``__cause__``.

Examples
--------
On a cluster, from ``spark-submit`` or a Databricks notebook::

    import assay.spark
    df = spark.read.parquet("s3://bucket/predictions/")
    r = assay.spark.evaluate(df, truth="label", score="probability")
    print(r)                      # the report; r.to_dict() is the JSON
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any
from urllib.parse import unquote

import numpy as np

from assay import __version__
from assay.engines.files import summary_budget
from assay.engines.spark_proba import evaluate_proba, positive_column, proba_classes
from assay.engines.spark_ranges import (
    as_ipc,
    executors_have_assay,
    from_ipc,
    kept_summary,
)
from assay.errors import InvalidInput
from assay.evaluation.applicability import refuse_inapplicable
from assay.evaluation.directions import directed
from assay.evaluation.from_summaries import (
    evaluate_confusion_counts,
    evaluate_score_counts,
)
from assay.evaluation.grouped_batches import (
    ENTRY_BYTES,
    grouped_labels,
    grouped_scores,
    probabilities_by,
)
from assay.evaluation.options import NAMES as OPTION_NAMES
from assay.evaluation.options import Options, options_from
from assay.evaluation.positive import choose_positive
from assay.evaluation.ranking import analyse_scores
from assay.inputs import as_scores, encode_labels
from assay.io.batches import parts_of
from assay.io.tables import detect_format
from assay.limits import DEFAULT_MEMORY
from assay.summaries.confusion import ConfusionCounts
from assay.summaries.scores import ScoreCounts
from assay.summaries.spill import MergeTree

__all__ = ["PARTITION_SCORES", "boolean_text", "check_columns", "check_path", "evaluate", "first_bad", "functions", "options_and_data", "rank", "read",
           "score_summary", "session", "spark_errors"]


def functions() -> Any:
    try:
        from pyspark.sql import functions
    except ImportError:
        raise InvalidInput("the Spark engine needs pyspark: pip install 'assay[spark]'") from None
    return functions


def check_columns(df: Any, columns: list[str]) -> None:
    if not hasattr(df, "groupBy") or not hasattr(df, "columns"):
        raise InvalidInput(f"expected a pyspark DataFrame, got {type(df).__name__}", field="df")
    for name in columns:
        if name not in df.columns:
            raise InvalidInput(f"column {name!r} is not in the DataFrame (its columns: {', '.join(df.columns)})")
        if df.columns.count(name) > 1:
            raise InvalidInput(f"column {name!r} appears {df.columns.count(name)} times in the DataFrame")


def first_bad(df: Any, truth: str, other: str, numeric: bool) -> None:
    """Name a missing or non-finite value, or a text that is not a number, as the in-memory checks do, with
    the part (file) it was read from where Spark knows it (``input_file_name``; Spark rows have no number: the
    message shows the row's values instead). One row at most reaches the driver."""
    F = functions()
    t, o = F.col(truth), F.col(other)
    bad = t.isNull() | o.isNull()
    if numeric:
        number = _as_number(df, other)
        bad = bad | number.isNull() | F.isnan(number) | (number == float("inf")) | (number == float("-inf"))
    rows = df.select(truth, other, F.input_file_name()).where(bad).limit(1).collect()
    if rows:
        row = rows[0]
        part = str(row[2] or "")
        part = unquote(part[len("file://"):]) if part.startswith("file://") else part  # a local path as given
        name = truth if row[0] is None else other
        value = row[0] if row[0] is None else row[1]
        if value is None or (isinstance(value, float) and value != value):
            what = "missing value"
        elif isinstance(value, str) and not _is_number(value):
            what = f"{value!r} is not a number"
        else:
            what = f"{value!r} is not a finite number"
        raise InvalidInput(f"{what} (a row with {truth} = {row[0]!r}, {other} = {row[1]!r})",
                           field=f"{part}: column {name!r}" if part else f"column {name!r}")


def _as_number(df: Any, column: str) -> Any:
    """A column as doubles: text that is not a number is null (``try_cast``: no error under ANSI mode)."""
    F = functions()
    if dict(df.dtypes).get(column) in ("string", "varchar", "char") or \
            str(dict(df.dtypes).get(column, "")).startswith(("varchar", "char")):
        return F.expr(f"try_cast(`{column.replace('`', '``')}` AS DOUBLE)")
    return F.col(column).cast("double")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def boolean_text(values: Any) -> np.ndarray:
    """Class values collected from Spark, booleans written ``true`` and ``false``, as Spark and Arrow write
    them and as assay reads a boolean column of a file (Python's ``True`` and ``False`` would make other
    class names on Spark than for the same file read by assay)."""
    values = np.asarray(values)
    if values.dtype == np.bool_:
        return np.where(values, "true", "false").astype(object)
    if values.dtype == object and any(isinstance(v, (bool, np.bool_)) for v in values.tolist()):
        return np.array([("true" if v else "false") if isinstance(v, (bool, np.bool_)) else v
                         for v in values.tolist()], dtype=object)
    return values


def _aggregate(df: Any, keys: list[str]) -> dict[str, np.ndarray]:
    """The count of each distinct combination of ``keys``, computed on the executors, as numpy arrays
    (booleans as their text: :func:`boolean_text`)."""
    F = functions()
    grouped = df.groupBy(*keys).agg(F.count(F.lit(1)).alias("__count"))
    if hasattr(grouped, "toArrow"):  # Spark 4: Arrow straight to the driver
        table = grouped.toArrow()
        columns = {name: table.column(name).to_numpy(zero_copy_only=False) for name in [*keys, "__count"]}
    else:
        frame = grouped.toPandas()  # the aggregate (one row per distinct key), never the rows
        columns = {name: frame[name].to_numpy() for name in [*keys, "__count"]}
    return {name: boolean_text(values) if name in keys else values for name, values in columns.items()}


def evaluate(df: Any, *, truth: str, pred: str | None = None, score: str | None = None,
             proba: Sequence[str] | Mapping[str, str] | None = None,
             progress: Callable[[int, int | None], None] | None = None, **options: Any) -> Any:
    """Evaluate the predictions in a pyspark DataFrame, exactly, with only summaries reaching the driver.

    Parameters
    ----------
    df : pyspark.sql.DataFrame
    truth : str
        The column of actual classes.
    pred, score : str
        The column of predicted classes, or of scores of the positive class (one of them).
    proba : sequence of str, or mapping of class to column
        Or the columns of class probabilities, each named after its class, or given as ``{class: column}``
        (:mod:`assay.engines.spark_proba`: the executors summarise their partitions; each class's
        one-vs-rest summary comes to the driver a range partition at a time, within ``memory``).
    progress : callable (rows counted, rows in all or None), optional
        Told as the score summary is counted (and as it reaches the driver, where the executors
        cannot walk it).
    **options
        As for :func:`assay.evaluate` (``positive``, ``threshold``, ``confidence``,
        ``bootstrap``, ``costs``, ``roc_bins``, ...), and ``memory``: the driver's
        budget in bytes (default 2 GiB), past which a score summary the driver walks (where
        the executors cannot import assay) is spilled to disk.

    Returns
    -------
    Evaluation
        Equal to ``assay.evaluate`` on the collected columns (sums over the distinct scores,
        such as the areas and the probabilistic losses, up to floating-point rounding).

    Raises
    ------
    InvalidInput
        A missing column or value, or an error Spark raised while it read or counted (one line naming
        the part when Spark names it; the Spark exception is its ``__cause__``).
    """
    with spark_errors():
        by = options.pop("by", None)
        if by is not None:
            return _evaluate_by(df, truth, pred, score, proba, [by] if isinstance(by, str) else list(by), options)
        return _evaluate(df, truth, pred, score, progress, options, proba)


def _evaluate_by(df: Any, truth: str, pred: str | None, score: str | None, proba: Any, by: list[str],
                 options: dict[str, Any]) -> Any:
    """The report by group of the ``by`` columns: Spark counts each (group, class, score) or (group, class,
    prediction), a group key beside each summary; the driver makes each group's summary of them (within
    ``memory``) and the report as in memory (:mod:`assay.evaluation.grouped_batches`)."""
    if sum(x is not None for x in (pred, score, proba)) != 1:
        raise InvalidInput("give exactly one of pred, score or proba")
    if not by or not all(isinstance(c, str) for c in by):
        raise InvalidInput("expected the names of the grouping columns", field="by")
    classes = proba_classes(proba) if proba is not None else {}
    others = list(classes.values()) if proba is not None else [pred or score]
    check_columns(df, [truth, *others, *by])
    for other in others:
        first_bad(df, truth, other, numeric=pred is None)
    for column in by:
        missing = df.select(column).where(functions().col(column).isNull()).limit(1).collect()
        if missing:
            raise InvalidInput("a missing group value", field=f"column {column!r}")
    if proba is not None:
        return _proba_by(df, truth, classes, by, options)
    other = others[0]
    chosen, data = options_and_data(options, ("positive", "memory", "allow_disjoint_labels"))
    F = functions()
    keys = [F.col(c).cast("string") for c in by]
    group = keys[0] if len(keys) == 1 else F.concat_ws(" / ", *keys)
    value = _as_number(df, score) if score is not None else F.col(pred).cast("string")
    counted = df.select(group.alias("__g"), F.col(truth).cast("string").alias("__y"), value.alias("__v")) \
        .groupBy("__g", "__y", "__v").count()
    budget = summary_budget(data.get("memory", DEFAULT_MEMORY))
    entries = counted.count()
    if budget is not None and entries * ENTRY_BYTES > budget:
        raise InvalidInput(f"the groups' summaries ({entries:,} entries) exceed the driver's memory budget: groups "
                           "on Spark bring each group's counts to the driver (a larger memory, or fewer groups)",
                           field="by")
    rows = counted.collect()
    if not rows:
        raise InvalidInput("no instances to evaluate", field="y_true")
    if pred is not None:
        pairs: dict[str, dict[tuple[str, str], int]] = {}
        for row in rows:
            pairs.setdefault(row["__g"], {})[(row["__y"], row["__v"])] = int(row["count"])
        return grouped_labels(pairs, by, chosen, data.get("positive"))
    seen = sorted({row["__y"] for row in rows})
    if len(seen) > 2:
        raise InvalidInput(f"has {len(seen)} classes; a score column needs two", field=f"column {truth!r}")
    reference = seen[-1]
    per_group: dict[str, dict[float, list[int]]] = {}
    for row in rows:
        cell = per_group.setdefault(row["__g"], {}).setdefault(float(row["__v"]), [0, 0])
        cell[0 if row["__y"] == reference else 1] += int(row["count"])
    summaries = {}
    for key, cells in per_group.items():
        scores = np.array(sorted(cells, reverse=True))
        summaries[key] = ScoreCounts(scores, np.array([cells[s][0] for s in scores], dtype=np.int64),
                                     np.array([cells[s][1] for s in scores], dtype=np.int64), ("0", "1"))
    return grouped_scores(summaries, seen, by, chosen, data.get("positive"), score)


def _proba_by(df: Any, truth: str, classes: dict[str, str], by: list[str], options: dict[str, Any]) -> Any:
    """Probabilities of several classes by group (the columns checked): the rows come to the driver a
    partition at a time (Arrow IPC, made by the executors with pyarrow alone) and are held within ``memory``,
    then evaluated by group as files read in batches are (:func:`assay.evaluation.grouped_batches.probabilities_by`):
    the numbers of the table in memory; every row passes through the driver. The classes, truth and groups are
    Spark's text of them, as for scores by group."""
    chosen, data = options_and_data(options, ("positive", "memory"))
    F = functions()
    labels = list(classes)
    selected = df.select(F.col(truth).cast("string").alias("__y"),
                         *[_as_number(df, column).alias(f"__p{j}") for j, column in enumerate(classes.values())],
                         *[F.col(column).cast("string").alias(f"__g{i}") for i, column in enumerate(by)])

    def batches() -> Iterator[tuple[None, int, Any, Any, list[Any]]]:
        first = 1
        for row in selected.mapInArrow(as_ipc(), "ipc binary").toLocalIterator():
            part = from_ipc(row[0])
            y = part.column("__y").to_numpy(zero_copy_only=False)
            yield None, first, y, \
                {label: part.column(f"__p{j}").to_numpy(zero_copy_only=False) for j, label in enumerate(labels)}, \
                [part.column(f"__g{i}").to_numpy(zero_copy_only=False) for i in range(len(by))]
            first += len(y)

    names = {"y_true": f"column {truth!r}", "y_proba": f"columns {', '.join(map(repr, classes.values()))}",
             **{f"by {c}": f"column {c!r}" for c in by}}
    return probabilities_by(batches(), by=by, names=names, options=chosen, positive=data.get("positive"),
                            memory=summary_budget(data.get("memory", DEFAULT_MEMORY)))


def options_and_data(options: dict[str, Any], data_keys: tuple[str, ...]) -> tuple[Options, dict[str, Any]]:
    """The keywords of a call split into the evaluation's options (one :class:`Options`) and the data's own
    keywords (``positive``, ``labels``, ``memory``: the driver's budget); a name that is neither is refused."""
    data = {k: options.pop(k) for k in data_keys if k in options}
    given = options.pop("options", None)
    unknown = set(options) - set(OPTION_NAMES)
    if unknown:
        raise InvalidInput(f"unknown options {sorted(unknown)}")
    return options_from(given, options), data


def _evaluate(df: Any, truth: str, pred: str | None, score: str | None,
              progress: Callable[[int, int | None], None] | None, options: dict[str, Any],
              proba: Sequence[str] | Mapping[str, str] | None = None) -> Any:
    if sum(x is not None for x in (pred, score, proba)) != 1:
        raise InvalidInput("give exactly one of pred, score or proba")
    named: str | None = None  # the score column's name, which may choose the positive class
    if proba is not None:  # probabilities of several classes; of two, the positive class's column is a score
        classes = proba_classes(proba)
        check_columns(df, [truth, *classes.values()])
        chosen, data = options_and_data(options, ("positive", "labels", "memory"))

        def executors() -> bool:  # asked once the options are checked (one small job)
            return EXECUTORS_WALK and executors_have_assay(df.sparkSession.sparkContext, __version__)

        if len(classes) > 2:
            budget = summary_budget(data.get("memory", DEFAULT_MEMORY))  # the one-vs-rest summaries' share
            return evaluate_proba(df, truth, classes, chosen, {**data, "memory": budget}, progress,
                                  executors=executors, partition_scores=PARTITION_SCORES)
        if data.get("labels") is not None:
            raise InvalidInput("the classes are the probability columns' (proba={class: column}); labels applies "
                               "to predicted labels", field="labels")
        score, _ = positive_column(df, truth, classes, data.get("positive"), executors=executors)
        options = {**data, "options": chosen}
    else:
        named = score
    other = pred or score
    check_columns(df, [truth, other])
    if pred is not None:  # a score column is checked as it is counted
        first_bad(df, truth, other, numeric=False)
    chosen, data = options_and_data(options, ("positive", "labels", "memory"))
    if pred is not None:
        refuse_inapplicable("labels", chosen.asked())
        if progress is not None:
            progress(0, None)
        cm = _confusion(df, truth, pred, data.get("labels"))
        if progress is not None:
            progress(int(cm.counts.sum()), int(cm.counts.sum()))
        return evaluate_confusion_counts(cm, chosen, positive=data.get("positive"))
    if chosen.kappa_weights is not None:
        raise InvalidInput("a weighted kappa applies to predicted labels here (on Spark: pred=)",
                           field="kappa_weights")
    if chosen.top_k is not None:
        raise InvalidInput("applies to probabilities of more than two classes (one column per class)", field="top_k")
    summary, labels, positive, why, _ = score_summary(df, truth, score, data.get("positive"),
                                                      summary_budget(data.get("memory", DEFAULT_MEMORY)), progress,
                                                      score_name=named)
    result = evaluate_score_counts(summary, labels, positive, why, chosen)
    if proba is not None:  # probabilities given as such: no note that scores are read as probabilities
        result = replace(result, notes=tuple(n for n in result.notes if not n.startswith("scores within [0, 1]")))
    return result


def rank(df: Any, *, truth: str, score: str, positive: Any = None, **options: Any) -> Any:
    """The ranking analysis (curves, AUC with DeLong's interval, hull, thresholds) of a DataFrame's scores:
    :func:`assay.rank` with Spark doing the counting (keywords as for it, or ``options=``)."""
    chosen, data = options_and_data(options, ("memory",))
    with spark_errors():
        check_columns(df, [truth, score])
        summary, _, _, _ = _scores(df, truth, score, positive, summary_budget(data.get("memory", DEFAULT_MEMORY)))
    notes: list[str] = []
    summary, direction = directed(summary, chosen.direction, notes)
    result = analyse_scores(summary, chosen, direction=direction)
    return replace(result, notes=tuple(notes) + result.notes) if notes else result


def read(spark: Any, path: str, *, format: str | None = None) -> Any:
    """A DataFrame of the table(s) at ``path``: Parquet, CSV with a header, or JSON lines.

    Unless ``format`` says, the format is that of a local path's files (by extension, else by their first
    bytes: a directory of parts of several formats is refused), or by the extension of a remote path,
    Parquet without one. A local path (no scheme, or ``file:``) that names nothing is refused before Spark
    reads anything (:func:`check_path`); an error Spark raises is one line (:func:`spark_errors`).
    """
    fmt = check_path(path, format=format)
    if fmt is None:
        name = path.lower().rstrip("/*")
        fmt = detect_format(name) if name.endswith((".csv", ".tsv", ".json", ".jsonl")) else "parquet"
    with spark_errors(path):
        if fmt == "parquet":
            return spark.read.parquet(path)
        if fmt in ("csv", "tsv"):
            return spark.read.csv(path, header=True, inferSchema=True, sep="\t" if fmt == "tsv" else ",")
        return spark.read.json(path)


def _format_of(path: str, local: str, parts: tuple[str, ...]) -> str:
    """The one format of local files (by extension, else by their first bytes)."""
    kinds: dict[str, str] = {}
    for part in parts:
        try:
            with open(part, "rb") as f:
                head = f.read(64)
        except OSError:
            head = None
        kinds.setdefault(detect_format(part, head), part)
    if len(kinds) > 1:
        found = ", ".join(f"{kind} ({os.path.relpath(part, local) if os.path.isdir(local) else part})"
                          for kind, part in sorted(kinds.items()))
        raise InvalidInput(f"{path} holds files of {len(kinds)} formats: {found}; Spark reads one format at "
                           "a time: move the others out, name one format's files with a glob, or say which "
                           "with {option:format}")
    return next(iter(kinds))


_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]+):")


def check_path(path: str, *, format: str | None = None) -> str | None:
    """Refuse a local path that names nothing Spark could read, before a Spark session is started; the
    format of its files.

    A path with a scheme other than ``file:`` (``s3a://``, ``hdfs://``, ``dbfs:/``, ...) is Spark's to
    find, and so is a glob with Hadoop's ``[...]`` or ``{a,b}``: None. Otherwise the file, the directory's
    table files (not ``_SUCCESS`` or ``.crc``) or the glob's matches must exist, and unless ``format`` is
    given they must be of one format (by extension, else by their first bytes), which is returned.

    >>> check_path("no/such/dir")
    Traceback (most recent call last):
    ...
    assay.errors.InvalidInput: no/such/dir: no such file
    """
    scheme = _SCHEME.match(path)
    local = path
    if scheme:
        if scheme.group(1).lower() != "file":
            return None
        local = re.sub(r"^file:(//(localhost)?)?", "", path, flags=re.IGNORECASE)
    if any(c in local for c in "[]{}"):
        return None
    try:
        parts = parts_of(local)
    except InvalidInput as e:
        raise InvalidInput(e.problem.replace(local, path, 1)) from None
    return format or _format_of(path, local, parts)


def session(*, verbose: bool = False) -> Any:
    """The active Spark session, or a new one: spark-submit's (under it), or a local one.

    A new session is quiet unless ``verbose``: Spark's log (its WARN lines, the JVM's notices) goes to a
    temporary file instead of standard error, and the console progress bars are off (both as Spark's
    own, with ``verbose``). The JVM's standard output never mixes with this process's: it goes to
    standard error, or to that file. An active session is used as it is.

    Raises
    ------
    InvalidInput
        pyspark is not installed, or Spark could not start (no Java, say): the last line it wrote.
    """
    functions()
    from pyspark import SparkConf, SparkContext
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    conf = SparkConf(loadDefaults=False).setAppName("assay")
    conf.set("spark.ui.showConsoleProgress", "true" if verbose else "false")
    if not verbose:
        conf.set("spark.log.level", "ERROR")
    gateway = None
    if getattr(SparkContext, "_gateway", None) is None and "PYSPARK_GATEWAY_PORT" not in os.environ:
        gateway = _launch(conf, verbose)
    try:
        if SparkContext._active_spark_context is None:  # type: ignore[attr-defined]
            SparkContext(conf=conf, gateway=gateway)
        return SparkSession.builder.getOrCreate()
    except Exception as e:
        if _is_spark(e):
            raise InvalidInput(f"Spark could not start: {_one_line(e)}") from e
        raise


def _launch(conf: Any, verbose: bool) -> Any:
    """Start Spark's JVM (as pyspark does) with its output away from this process's standard output."""
    from pyspark.java_gateway import launch_gateway

    log = None
    if not verbose:
        try:
            log = tempfile.TemporaryFile()  # nameless: gone with the JVM
        except OSError:
            log = open(os.devnull, "wb")  # noqa: SIM115 - the JVM writes to it for its whole life
    try:
        return launch_gateway(conf, popen_kwargs={"stdout": log if log is not None else 2, "stderr": log})
    except Exception as e:
        said = ""
        if log is not None and hasattr(log, "seek"):
            try:
                log.seek(0)
                lines = [line.strip() for line in log.read().decode("utf-8", "replace").splitlines() if line.strip()]
                # the line about Java when there is one ("JAVA_HOME is not set", ".../bin/java: No such file")
                said = next((line for line in lines if "java" in line.lower()), lines[-1] if lines else "")
                said = re.sub(r"^\S*spark-(class|submit): line \d+: ", "", said)
            except OSError:
                pass
        if not said:
            said = _one_line(e) if _is_spark(e) else f"{type(e).__name__}: {e}"
        raise InvalidInput(f"Spark could not start (it needs Java 17 or later, with java on PATH or JAVA_HOME "
                           f"set): {said}") from e
    finally:
        if log is not None:
            log.close()  # the JVM keeps its own descriptor


def _is_spark(error: BaseException) -> bool:
    """Whether an exception comes from Spark (py4j, pyspark's errors, a Java exception)."""
    return any(getattr(t, "__module__", "").split(".")[0] in ("py4j", "pyspark") for t in type(error).__mro__)


@contextmanager
def spark_errors(source: str | None = None) -> Iterator[None]:
    """Turn an error Spark raises inside the block into an :class:`InvalidInput` of one line (the
    Spark exception as its ``__cause__``); anything else passes through."""
    try:
        yield
    except InvalidInput:
        raise
    except Exception as e:
        if not _is_spark(e):
            raise
        raise InvalidInput(_problem(e, source)) from e


_CONDITION = re.compile(r"^\[([A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)\]\s*")
_JAVA_CLASS = re.compile(r"^(?:Caused by: )?(?:[a-z_$][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error|Throwable)(?:: |$)")
_SQLSTATE = re.compile(r"\s*SQLSTATE: \w+\.?\s*$")
_READING = re.compile(r"Encountered error while reading file (\S+?)\.(?:\s|$)")


def _local(path: str) -> str:
    """A path as the user would write it: ``file:///x`` and ``file:/x`` read ``/x``."""
    return re.sub(r"^file:(//)?(?=/)", "", path)


def _one_line(error: BaseException) -> str:
    """The message of a Spark error without its error class, SQL state or stack."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    for line in lines:
        if line.startswith("at ") or line.startswith("An error occurred while calling"):
            continue
        line = _JAVA_CLASS.sub("", line.lstrip(": ").strip())
        line = _SQLSTATE.sub("", _CONDITION.sub("", line)).strip()
        if line:
            return _local_paths(line)
    return type(error).__name__


def _local_paths(text: str) -> str:
    return re.sub(r"file:(?://)?(/\S*)", r"\1", text)


def _problem(error: BaseException, source: str | None) -> str:
    """One line for an error Spark raised: what failed, where (the part, when Spark names it), and what to
    do when that is known."""
    text = str(error)
    missing = re.search(r"(?:ModuleNotFoundError|ImportError): No module named '([\w.]+)'", text)
    if missing:
        module = missing.group(1).split(".")[0]
        return (f"Spark's executors cannot import {module!r}: install it for the Python they run "
                "(PYSPARK_PYTHON on a local or standalone cluster, a cluster library on Databricks, "
                "--py-files or --archives with spark-submit)")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    causes = [_JAVA_CLASS.sub("", line).strip() for line in lines if line.startswith("Caused by: ")]
    head = _one_line(error)
    conditions = (_CONDITION.match(_JAVA_CLASS.sub("", line.lstrip(": "))) for line in lines)
    condition = next((m.group(1) for m in conditions if m), None)  # Spark's error class, "[PATH_NOT_FOUND]"
    reading = _READING.search(text)
    if reading:
        part = _local(reading.group(1))
        detail = _READING.sub("", head).strip()
        mismatch = re.search(r"Parquet column \[(.+?)\]\. Expected Spark type (\w+), actual Parquet type (\w+)",
                             text)
        if mismatch:
            column, expected, actual = mismatch.groups()
            detail = (f"column {column!r} is Parquet {actual} in this part, where Spark expects {expected} (the "
                      "type in the parts it read first): the parts disagree on the column's type")
        elif causes and (not detail or "not a Parquet file" in causes[-1] or "footer" in detail.lower()):
            detail = _local_paths(causes[-1])
            for prefix in (reading.group(1), part, "file:" + part):
                if detail.startswith(prefix + " "):
                    detail = "it" + detail[len(prefix):]
                    break
            if "is not a Parquet file" in detail:
                if source is None or os.path.abspath(_local(source)) != part:
                    detail += (" (the parts hold a file of another kind: move it out, or name the Parquet parts "
                               "with a glob such as DIR/*.parquet)")
                else:
                    detail += " (give {option:format} to read it as another format)"
        return f"{part}: Spark cannot read it: {detail or (condition or 'unreadable')}"
    detail = head if head != type(error).__name__ else (condition or head)
    if causes and _local_paths(causes[-1]) not in detail:
        detail += f" ({_local_paths(causes[-1])})"
    if source is not None:
        return f"{source}: Spark cannot read it: {detail}"
    return f"Spark failed: {detail}"


def _confusion(df: Any, truth: str, pred: str, labels: Any) -> Any:
    agg = _aggregate(df, [truth, pred])
    enc = encode_labels({"y_true": agg[truth], "y_pred": agg[pred]}, labels=labels)
    k = len(enc.labels)
    counts = np.zeros(k * k, dtype=np.int64)
    np.add.at(counts, enc.codes["y_true"] * k + enc.codes["y_pred"], agg["__count"].astype(np.int64))
    return ConfusionCounts(enc.labels, counts.reshape(k, k))


PARTITION_SCORES = 1 << 20
"""Distinct scores per range partition of the score summary: a piece the executors walk (or, where they
cannot import assay, what the driver holds of it at a time)."""

EXECUTORS_WALK = True
"""Whether the executors walk the score summary where they can import assay (else the driver does)."""

HELD_SCORES = 1 << 16
"""Distinct scores the driver takes whole at most (about 1.5 MB): a small summary is read in fewer Spark jobs
than the executors' walk and its reads need."""

FETCHED: Callable[[int], None] | None = None
"""Told the number of entries of the summary each read on the driver fetches from the executors."""


def _scores(df: Any, truth: str, score: str, positive: Any, memory: int | None = None,
            progress: Callable[[int, int | None], None] | None = None) -> tuple[Any, tuple[str, ...], str, str]:
    """The score summary, its classes, the positive class and why (:func:`score_summary`)."""
    summary, labels, chosen, why, _ = score_summary(df, truth, score, positive, memory, progress, score_name=score)
    return summary, labels, chosen, why


def score_summary(df: Any, truth: str, score: str, positive: Any, memory: int | None = None,
                  progress: Callable[[int, int | None], None] | None = None, *, score_name: str | None
                  ) -> tuple[Any, tuple[str, ...], str, str, list[Any]]:
    """The score summary, counted and kept on the executors; its classes, the positive class (chosen as
    for a score column named ``score_name``), why, and the raw values of the truth that mean the positive
    class. A missing or non-finite value is named (:func:`first_bad`).

    One small job counts the rows of each class (``groupBy`` on the truth). Then one shuffle: the rows are
    range-partitioned on the score, highest first (``repartitionByRange``, about
    :data:`PARTITION_SCORES` rows a partition), and each partition counts its positives and negatives at
    each of its distinct scores (``groupBy`` on the score, which the range partitioning already satisfies:
    Spark adds no second exchange), sorts them and turns them into one Arrow IPC message
    (``mapInArrow``). Where the executors import assay, the partitions stay cached there
    (:class:`~assay.engines.spark_ranges.SparkRanges`: they walk them, the driver combines the partial
    results and fetches single entries); a summary of at most :data:`HELD_SCORES` distinct scores is taken
    whole. Otherwise the driver takes the partitions one after another (``toLocalIterator``) into the same
    merge tree as files read in batches, which spills to disk past ``memory``. No row and no whole summary
    is collected. Bad values are found from the partitions' ends (a missing or non-finite score sorts
    first or last), so a clean DataFrame is read twice in all: once for the classes, once for the counts.
    """
    F = functions()
    if progress is not None:
        progress(0, None)
    found = df.groupBy(truth).count().limit(3).collect()
    if any(row[0] is None for row in found):  # a missing class: named with its row
        first_bad(df, truth, score, numeric=True)
    raw = [row[0] for row in found]
    rows = sum(int(row[1]) for row in found)
    enc = encode_labels({"y_true": boolean_text(np.array(raw, dtype=object))})
    if not enc.labels:
        raise InvalidInput("no instances to evaluate", field=f"column {truth!r}")
    if len(enc.labels) != 2:
        what = "a single class" if len(enc.labels) == 1 else f"{len(enc.labels)} classes"
        raise InvalidInput(f"has {what}; a score column needs two", field=f"column {truth!r}")
    chosen, why = choose_positive(enc.labels, positive=positive, score_name=score_name)
    p = enc.labels.index(chosen)
    positives_raw = [value for value, code in zip(raw, enc.codes["y_true"]) if code == p]
    is_positive = F.col(truth).isin(positives_raw).cast("long")
    if progress is not None:
        progress(0, rows)
    counts = (df.select(_as_number(df, score).alias("s"), is_positive.alias("y"))
              .repartitionByRange(max(1, -(-rows // PARTITION_SCORES)), F.col("s").desc())
              .groupBy("s").agg(F.sum("y").alias("pos"), (F.count(F.lit(1)) - F.sum("y")).alias("neg"))
              .sortWithinPartitions(F.col("s").desc()))
    labels = (enc.labels[1 - p], chosen)
    summary = _summary_of(counts, rows, labels, lambda: first_bad(df, truth, score, numeric=True), score,
                          memory, progress)
    return summary, enc.labels, chosen, why, positives_raw


def _summary_of(ordered: Any, rows: int, labels: tuple[str, str], bad: Callable[[], None], score: str,
                memory: int | None, progress: Callable[[int, int | None], None] | None) -> ScoreCounts:
    """The summary of the counts at each distinct score, range-partitioned and sorted (``ordered``): kept on
    the executors where they import assay, else streamed to the driver's merge tree. ``bad`` names the
    first bad row (a score that is missing or not finite)."""
    sc = ordered.sparkSession.sparkContext
    if EXECUTORS_WALK and rows > HELD_SCORES and executors_have_assay(sc, __version__):
        summary = kept_summary(ordered, rows, labels, held=HELD_SCORES, fetched=FETCHED, bad=bad)
        if progress is not None:
            progress(rows, rows)
        return summary
    tree = MergeTree(memory)
    done = 0
    for row in ordered.mapInArrow(as_ipc(), "ipc binary").toLocalIterator():
        part = from_ipc(row[0])
        values = part.column("s").to_numpy(zero_copy_only=False).astype(np.float64)
        if not np.isfinite(values).all():
            bad()
        scores = as_scores(values, f"column {score!r}") + 0.0
        pos = part.column("pos").to_numpy(zero_copy_only=False).astype(np.int64)
        neg = part.column("neg").to_numpy(zero_copy_only=False).astype(np.int64)
        if len(scores) > 1 and not (np.diff(scores) < 0).all():  # not in order after all: sort it here
            tree.add(ScoreCounts.from_counts(np.concatenate([np.ones(len(pos), bool), np.zeros(len(neg), bool)]),
                                             np.concatenate([scores, scores]), np.concatenate([pos, neg]),
                                             labels=labels))
        elif len(scores):
            tree.add(ScoreCounts(scores, pos, neg, labels))
        done += int(pos.sum() + neg.sum())
        if progress is not None:
            progress(done, rows)
    return tree.result()

