"""The Spark engine: a pyspark DataFrame in, the same exact result as :func:`assay.evaluate` out.

The rows never leave the executors. Spark aggregates them into the summaries assay's
metrics read (for predicted labels, the count of each (actual, predicted) pair; for
scores, the count of each (actual class, distinct score) pair) and only those reach the
driver, through Arrow. Every metric, interval, curve and test is then computed by the
same code as in memory, so the numbers are the same.

The score summary holds one entry per distinct score. Spark range-partitions it on the
score and the driver takes it a partition (about a million distinct scores) at a time
into the merge tree files read in batches use: past the memory budget it is spilled to
the driver's temporary directory, so even a summary of every score distinct fits.

pyspark is an optional dependency: ``pip install 'assay[spark]'`` (it needs Java 17).

Examples
--------
On a cluster, from ``spark-submit`` or a Databricks notebook::

    import assay.spark
    df = spark.read.parquet("s3://bucket/predictions/")
    r = assay.spark.evaluate(df, truth="label", score="probability")
    print(r)                      # the report; r.to_dict() is the JSON
"""

from __future__ import annotations

from typing import Any

import numpy as np

from assay.engines.files import summary_budget
from assay.errors import InvalidInput
from assay.limits import DEFAULT_MEMORY
from assay.summaries.scores import ScoreCounts

__all__ = ["evaluate", "rank", "read"]


def _functions() -> Any:
    try:
        from pyspark.sql import functions
    except ImportError:
        raise InvalidInput("the Spark engine needs pyspark: pip install 'assay[spark]'") from None
    return functions


def _check_columns(df: Any, columns: list[str]) -> None:
    if not hasattr(df, "groupBy") or not hasattr(df, "columns"):
        raise InvalidInput(f"expected a pyspark DataFrame, got {type(df).__name__}", field="df")
    for name in columns:
        if name not in df.columns:
            raise InvalidInput(f"column {name!r} is not in the DataFrame (its columns: {', '.join(df.columns)})")
        if df.columns.count(name) > 1:
            raise InvalidInput(f"column {name!r} appears {df.columns.count(name)} times in the DataFrame")


def _first_bad(df: Any, truth: str, other: str, numeric: bool) -> None:
    """Name a missing or non-finite value, as the in-memory checks do (Spark rows have no number: the
    message shows the row's values instead). One row at most reaches the driver."""
    F = _functions()
    t, o = F.col(truth), F.col(other)
    bad = t.isNull() | o.isNull()
    if numeric:
        bad = bad | F.isnan(o) | (o == float("inf")) | (o == float("-inf"))
    rows = df.select(truth, other).where(bad).limit(1).collect()
    if rows:
        row = rows[0]
        name = truth if row[0] is None else other
        value = row[0] if row[0] is None else row[1]
        what = "missing value" if value is None or value != value else f"{value!r} is not a finite number"
        raise InvalidInput(f"{what} (a row with {truth} = {row[0]!r}, {other} = {row[1]!r})",
                           field=f"column {name!r}")


def _aggregate(df: Any, keys: list[str]) -> dict[str, np.ndarray]:
    """The count of each distinct combination of ``keys``, computed on the executors, as numpy arrays."""
    F = _functions()
    grouped = df.groupBy(*keys).agg(F.count(F.lit(1)).alias("__count"))
    if hasattr(grouped, "toArrow"):  # Spark 4: Arrow straight to the driver
        table = grouped.toArrow()
        return {name: table.column(name).to_numpy(zero_copy_only=False) for name in [*keys, "__count"]}
    frame = grouped.toPandas()  # the aggregate (one row per distinct key), never the rows
    return {name: frame[name].to_numpy() for name in [*keys, "__count"]}


def evaluate(df: Any, *, truth: str, pred: str | None = None, score: str | None = None, **options: Any) -> Any:
    """Evaluate the predictions in a pyspark DataFrame, exactly, with only summaries reaching the driver.

    Parameters
    ----------
    df : pyspark.sql.DataFrame
    truth : str
        The column of actual classes.
    pred, score : str
        The column of predicted classes, or of scores of the positive class (one of them).
    **options
        As for :func:`assay.evaluate` (``positive``, ``threshold``, ``confidence``,
        ``bootstrap``, ``costs``, ``roc_bins``, ...), and ``memory``: the driver's
        budget in bytes (default 2 GiB), past which the score summary is spilled to disk.

    Returns
    -------
    Evaluation
        Equal to ``assay.evaluate`` on the collected columns (the probabilistic losses
        up to floating-point rounding).
    """
    from assay.evaluation.evaluate import _check_options
    from assay.evaluation.stream import evaluate_confusion_counts, evaluate_score_counts

    if (pred is None) == (score is None):
        raise InvalidInput("give exactly one of pred or score")
    other = pred or score
    _check_columns(df, [truth, other])
    _first_bad(df, truth, other, numeric=score is not None)
    general = {k: options.pop(k) for k in ("confidence", "interval", "beta", "bootstrap", "seed") if k in options}
    confidence, settings = _check_options(general.get("confidence", 0.95), general.get("interval", "wilson"),
                                          general.get("beta", 1.0), general.get("bootstrap", 2000),
                                          general.get("seed", 0))
    if pred is not None:
        cm = _confusion(df, truth, pred, options.pop("labels", None))
        positive = options.pop("positive", None)
        costs, prevalence = options.pop("costs", None), options.pop("prevalence", None)
        kappa_weights = options.pop("kappa_weights", None)
        cost_matrix = options.pop("cost_matrix", None)
        if options:
            raise InvalidInput(f"options {sorted(options)} apply to scores, not to predicted labels")
        return evaluate_confusion_counts(cm, positive=positive, confidence=confidence,
                                         interval=general.get("interval", "wilson"), beta=general.get("beta", 1.0),
                                         settings=settings, costs=costs, prevalence=prevalence,
                                         kappa_weights=kappa_weights, cost_matrix=cost_matrix)
    summary, labels, chosen, why = _scores(df, truth, score, options.pop("positive", None),
                                           summary_budget(options.pop("memory", DEFAULT_MEMORY)))
    known = {"threshold": None, "auc_interval": "delong", "costs": None, "prevalence": None, "fpr_range": None,
             "lift_depth": 0.1, "prior": None, "clip": None, "calibration_bins": 10,
             "calibration_strategy": "uniform", "roc_bins": None, "at_specificity": (), "at_sensitivity": (),
             "roc_band": False, "sensitivity_range": None,
             "constraints": (), "direction": "higher"}
    unknown = set(options) - set(known)
    if unknown:
        raise InvalidInput(f"unknown options {sorted(unknown)}")
    return evaluate_score_counts(summary, labels, chosen, why, confidence=confidence, settings=settings,
                                 interval=general.get("interval", "wilson"), beta=general.get("beta", 1.0),
                                 **{**known, **options})


def rank(df: Any, *, truth: str, score: str, positive: Any = None, **options: Any) -> Any:
    """The ranking analysis (curves, AUC with DeLong's interval, hull, thresholds) of a DataFrame's scores:
    :func:`assay.rank` with Spark doing the counting."""
    from assay.evaluation.evaluate import _as_costs, _check_prevalence
    from assay.evaluation.ranking import analyse_scores

    _check_columns(df, [truth, score])
    _first_bad(df, truth, score, numeric=True)
    summary, _, _, _ = _scores(df, truth, score, positive, summary_budget(options.pop("memory", DEFAULT_MEMORY)))
    costs = options.pop("costs", None)
    prevalence = options.pop("prevalence", None)
    return analyse_scores(summary, costs=_as_costs(costs), deployment_prevalence=_check_prevalence(prevalence),
                          **options)


def read(spark: Any, path: str, *, format: str | None = None) -> Any:
    """A DataFrame of the table(s) at ``path`` (Parquet, CSV with a header, JSON lines), by extension unless
    ``format`` says."""
    from assay.io.tables import detect_format

    fmt = format or detect_format(path.rstrip("/*"))
    if fmt == "parquet" or (format is None and not path.lower().rstrip("/*").endswith((".csv", ".tsv", ".json",
                                                                                      ".jsonl"))):
        return spark.read.parquet(path)
    if fmt in ("csv", "tsv"):
        return spark.read.csv(path, header=True, inferSchema=True, sep="\t" if fmt == "tsv" else ",")
    return spark.read.json(path)


def _confusion(df: Any, truth: str, pred: str, labels: Any) -> Any:
    from assay.inputs import encode_labels
    from assay.summaries.confusion import ConfusionCounts

    agg = _aggregate(df, [truth, pred])
    enc = encode_labels({"y_true": agg[truth], "y_pred": agg[pred]}, labels=labels)
    k = len(enc.labels)
    counts = np.zeros(k * k, dtype=np.int64)
    np.add.at(counts, enc.codes["y_true"] * k + enc.codes["y_pred"], agg["__count"].astype(np.int64))
    return ConfusionCounts(enc.labels, counts.reshape(k, k))


PARTITION_SCORES = 1 << 20
"""Distinct scores per range partition of the score summary: what the driver holds of it at a time."""


def _scores(df: Any, truth: str, score: str, positive: Any,
            memory: int | None = None) -> tuple[Any, tuple[str, ...], str, str]:
    """The score summary, counted on the executors and streamed to the driver a range of scores at a time.

    The executors count the positives and negatives at each distinct score (``groupBy``), range-partition
    those counts on the score, highest first (``repartitionByRange``), sort each partition, and turn it
    into one Arrow IPC message (``mapInArrow``); the driver takes the partitions one after another
    (``toLocalIterator``) into the same merge tree as files read in batches, which spills to disk past
    ``memory``. No row and no whole summary is collected.
    """
    from assay.evaluation.evaluate import choose_positive
    from assay.inputs import as_scores, encode_labels
    from assay.summaries.spill import MergeTree

    F = _functions()
    raw = [row[0] for row in df.select(truth).distinct().limit(3).collect()]
    enc = encode_labels({"y_true": np.array(raw, dtype=object)})
    if len(enc.labels) != 2:
        what = "a single class" if len(enc.labels) == 1 else f"{len(enc.labels)} classes"
        raise InvalidInput(f"has {what}; a score column needs two", field=f"column {truth!r}")
    chosen, why = choose_positive(enc.labels, positive=positive, score_name=score)
    p = enc.labels.index(chosen)
    positives_raw = [value for value, code in zip(raw, enc.codes["y_true"]) if code == p]
    is_positive = F.col(truth).isin(positives_raw).cast("long")
    counts = (df.select(F.col(score).cast("double").alias("s"), is_positive.alias("y"))
              .groupBy("s").agg(F.sum("y").alias("pos"), (F.count(F.lit(1)) - F.sum("y")).alias("neg")))
    distinct = counts.count()
    if distinct == 0:
        raise InvalidInput("no instances to evaluate", field=f"column {truth!r}")
    ordered = (counts.repartitionByRange(max(1, -(-distinct // PARTITION_SCORES)), F.col("s").desc())
               .sortWithinPartitions(F.col("s").desc()))
    labels = (enc.labels[1 - p], chosen)
    tree = MergeTree(memory)
    for row in ordered.mapInArrow(_as_ipc, "ipc binary").toLocalIterator():
        part = _from_ipc(row[0])
        scores = as_scores(part.column("s").to_numpy(zero_copy_only=False), f"column {score!r}") + 0.0
        pos = part.column("pos").to_numpy(zero_copy_only=False).astype(np.int64)
        neg = part.column("neg").to_numpy(zero_copy_only=False).astype(np.int64)
        if len(scores) > 1 and not (np.diff(scores) < 0).all():  # not in order after all: sort it here
            tree.add(ScoreCounts.from_counts(np.concatenate([np.ones(len(pos), bool), np.zeros(len(neg), bool)]),
                                             np.concatenate([scores, scores]), np.concatenate([pos, neg]),
                                             labels=labels))
        elif len(scores):
            tree.add(ScoreCounts(scores, pos, neg, labels))
    return tree.result(), enc.labels, chosen, why


def _as_ipc(batches: Any) -> Any:
    """(On an executor) a partition's record batches as one row holding their Arrow IPC stream."""
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


def _from_ipc(blob: bytes) -> Any:
    import pyarrow as pa

    return pa.ipc.open_stream(pa.py_buffer(blob)).read_all()
