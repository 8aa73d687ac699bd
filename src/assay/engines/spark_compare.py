"""Models compared on the same rows of a pyspark DataFrame: ``assay.spark.compare``, exact, the instances
never leaving the executors.

What reaches the driver is what the paired tests depend on (:mod:`assay.summaries.paired`), computed by
Spark:

- **Predicted labels**: one ``groupBy`` of (truth, every model's prediction) with each group's size and
  first row (``monotonically_increasing_id``, which follows the DataFrame's order, the order ``collect``
  gives): each model's confusion counts, every pair's groups (McNemar's table and the paired bootstrap,
  drawn in the order of their first rows as in memory), Cochran's totals.
- **Scores**: each model's score summary and report as ``assay.spark.evaluate`` gives them. Then, on the
  executors, each model's table of placement values (DeLong 1988): its distinct scores (as its analysis
  ranks them) with their class counts, range-partitioned and sorted, each partition's cumulative counts
  offset by the totals of the partitions before it (one small collect of the partitions' totals); the rows
  are joined to each table on their score, and the moments of the placements by class (and of every
  pair's differences) are summed by Spark. With a threshold, the predicted labels' groups as for labels.

The result equals :func:`assay.compare` on the collected columns (DeLong's test up to floating-point
rounding: Spark adds in its own order).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from itertools import combinations
from typing import Any

import numpy as np

from assay.engines.files import summary_budget
from assay.engines.spark import (
    PARTITION_SCORES,
    boolean_text,
    check_columns,
    first_bad,
    functions,
    options_and_data,
    score_summary,
    spark_errors,
)
from assay.errors import InvalidInput
from assay.evaluation.comparison import (
    Comparison,
    assemble,
    check_names,
    decision_differences,
)
from assay.evaluation.from_summaries import (
    evaluate_confusion_counts,
    evaluate_score_counts,
)
from assay.evaluation.options import Options
from assay.evaluation.paired import (
    cochran_of,
    model_columns,
    own_options,
    pair_tests,
    refuse_score_options,
    score_pair_tests,
)
from assay.inference.roc import placement_formula
from assay.inputs import encode_labels
from assay.limits import DEFAULT_MEMORY
from assay.summaries.confusion import ConfusionCounts
from assay.summaries.paired import CochranTotals, JointGroups, PlacementMoments

__all__ = ["compare"]

ROW = "__assay_row"
"""The column of each row's position (``monotonically_increasing_id``): the groups' first rows."""


def compare(df: Any, *, truth: str, scores: Sequence[str] | None = None, preds: Sequence[str] | None = None,
            names: Sequence[str] | None = None, progress: Callable[[int, int | None], None] | None = None,
            **options: Any) -> Comparison:
    """Compare two or more models whose predictions are columns of the same rows of a pyspark DataFrame.

    Parameters
    ----------
    df : pyspark.sql.DataFrame
    truth : str
        The column of actual classes.
    scores, preds : sequence of str
        The models' columns (two or more): scores of the positive class, or predicted labels.
    names : sequence of str, optional
        The models' names (default: the columns').
    progress : callable (models summarised, models), optional
    **options
        ``positive``, ``labels``, ``adjust``, ``memory`` (the driver's budget for each score summary, as
        for :func:`assay.spark.evaluate`) and the options of :func:`assay.compare` (``threshold``,
        ``direction``, ``confidence``, ``bootstrap``, ``seed``, ``costs``, ``prevalence``; or ``options=``).

    Returns
    -------
    Comparison
        Equal to :func:`assay.compare` on the collected columns (DeLong's test up to rounding).
    """
    with spark_errors():
        return _compare(df, truth, scores, preds, names, progress, options)


def _compare(df: Any, truth: str, scores: Sequence[str] | None, preds: Sequence[str] | None,
             names: Sequence[str] | None, progress: Callable[[int, int | None], None] | None,
             options: dict[str, Any]) -> Comparison:
    columns = model_columns(scores, preds)
    check_columns(df, [truth, *columns])
    for column in columns:
        first_bad(df, truth, column, numeric=scores is not None)
    chosen, data = options_and_data(options, ("positive", "labels", "memory", "adjust"))
    model_names = check_names(list(columns) if names is None else list(names), len(columns))
    adjust = data.get("adjust", "holm")
    if preds is not None:
        refuse_score_options(chosen)
        return _compare_labels(df, truth, columns, model_names, chosen, data, adjust)
    return _compare_scores(df, truth, columns, model_names, chosen, data, adjust, progress)


def _with_rows(df: Any) -> Any:
    return df.withColumn(ROW, functions().monotonically_increasing_id())


def _groups(df: Any, keys: list[str]) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """Each distinct combination of ``keys`` (as object arrays), its count and its first row."""
    F = functions()
    rows = _with_rows(df).groupBy(*keys).agg(F.count(F.lit(1)).alias("__n"), F.min(ROW).alias("__first")).collect()
    values = [np.array([row[i] for row in rows], dtype=object) for i in range(len(keys))]
    return values, np.array([row["__n"] for row in rows], dtype=np.int64), \
        np.array([row["__first"] for row in rows], dtype=np.int64)


def _pair_groups(labels: Sequence[str], truth: np.ndarray, preds: list[np.ndarray], counts: np.ndarray,
                 first: np.ndarray) -> list[JointGroups]:
    """Every pair's groups from the groups of all the models' predictions together."""
    out = []
    for i, j in combinations(range(len(preds)), 2):
        groups = JointGroups()
        for t, a, b, n, at in zip(truth.tolist(), preds[i].tolist(), preds[j].tolist(), counts.tolist(),
                                  first.tolist(), strict=True):
            groups.add_group((labels[t], labels[a], labels[b]), at, n)
        out.append(groups)
    return out


def _cochran(truth: np.ndarray, preds: list[np.ndarray], counts: np.ndarray) -> Any:
    """Cochran's Q of three models or more from the groups of their predictions (each ``counts`` instances)."""
    totals = CochranTotals(len(preds))
    totals.add(np.column_stack([pred == truth for pred in preds]), counts)
    return cochran_of(totals)


def _compare_labels(df: Any, truth: str, columns: list[str], names: tuple[str, ...], options: Options,
                    data: dict[str, Any], adjust: str) -> Comparison:
    values, counts, first = _groups(df, [truth, *columns])
    values = [boolean_text(v) for v in values]  # the user's classes: booleans written as files write them
    fields = {"y_true": values[0], **{f"y_pred[{i}]": v for i, v in enumerate(values[1:])}}
    try:
        enc = encode_labels(fields, labels=data.get("labels"))
    except InvalidInput as e:
        where = truth if e.field == "y_true" else columns[int(e.field[7:-1])] if e.field else None
        raise InvalidInput(e.problem, field=f"column {where!r}" if where else None) from None
    labels, k = enc.labels, len(enc.labels)
    t = enc.codes["y_true"]
    preds = [enc.codes[f"y_pred[{i}]"] for i in range(len(columns))]
    reports = []
    for pred, name in zip(preds, names, strict=True):
        matrix = np.zeros(k * k, dtype=np.int64)
        np.add.at(matrix, t * k + pred, counts)
        try:
            reports.append(evaluate_confusion_counts(ConfusionCounts(labels, matrix.reshape(k, k)),
                                                     own_options(options, False), positive=data.get("positive")))
        except InvalidInput as e:
            raise InvalidInput(e.problem, field=f"{name} {e.field}" if e.field else name, row=e.row) from None
    tests = [pair_tests(g, labels, options) for g in _pair_groups(labels, t, preds, counts, first)]
    cochran = None if len(columns) == 2 else _cochran(t, preds, counts)
    return assemble(names, reports, tests, cochran, [None] * len(columns), options, adjust)


def _compare_scores(df: Any, truth: str, columns: list[str], names: tuple[str, ...], options: Options,
                    data: dict[str, Any], adjust: str, progress: Callable[[int, int | None], None] | None
                    ) -> Comparison:
    F = functions()
    m = len(columns)
    budget = summary_budget(data.get("memory", DEFAULT_MEMORY))
    share = None if budget is None else max(1, budget // m)
    reports, positives, distinct = [], None, []
    for i, (column, name) in enumerate(zip(columns, names, strict=True)):
        summary, labels, chosen, why, positives = score_summary(df, truth, column, data.get("positive"), share,
                                                                score_name=None)
        distinct.append(len(summary))
        try:
            reports.append(evaluate_score_counts(summary, labels, chosen, why, own_options(options, True)))
        except InvalidInput as e:
            raise InvalidInput(e.problem, field=f"{name} {e.field}" if e.field else name, row=e.row) from None
        if progress is not None:
            progress(i + 1, m)
    p = labels.index(chosen)
    is_positive = F.col(truth).isin(positives)
    # each model's score as its analysis ranks it: negated where lower scores mean the positive class
    ranked = [(-F.col(c).cast("double") if r.direction == "lower" else F.col(c).cast("double")) + F.lit(0.0)
              for c, r in zip(columns, reports, strict=True)]
    rows = df.select(is_positive.alias("__y"), *(s.alias(f"__s{i}") for i, s in enumerate(ranked)),
                     *(F.col(c).cast("double").alias(f"__raw{i}") for i, c in enumerate(columns)))
    aucs = [r.ranking.roc_auc.value for r in reports]
    moments = _placement_moments(rows, m, aucs, distinct)
    thresholded = all(r.thresholded for r in reports)
    groups = cochran = None
    if thresholded:
        predicted = [(F.col(f"__raw{i}") <= r.threshold) if r.direction == "lower" else
                     (F.col(f"__raw{i}") >= r.threshold) for i, r in enumerate(reports)]
        values, counts, first = _groups(rows.select("__y", *(x.alias(f"__p{i}") for i, x in enumerate(predicted))),
                                        ["__y", *(f"__p{i}" for i in range(m))])
        code = np.array([p, 1 - p])  # True: the positive class's code
        t = np.where(values[0].astype(bool), p, 1 - p)
        preds = [code[(~v.astype(bool)).astype(int)] for v in values[1:]]
        groups = _pair_groups(labels, t, preds, counts, first)
        cochran = None if m == 2 else _cochran(t, preds, counts)
    result = assemble(names, reports, score_pair_tests(moments, groups, labels, options), cochran,
                      [r.direction for r in reports], options, adjust)
    if not options.net_benefit:
        return result
    joint = _joint_bins(rows, m, options.decision_thresholds)
    return replace(result, net_benefit_differences=decision_differences(names, joint, options))


def _joint_bins(rows: Any, m: int, thresholds: np.ndarray) -> list[np.ndarray]:
    """Each pair's instances counted by (class, bin of one model, bin of the other) on the executors, as
    :func:`assay.metrics.decision.joint_bins` counts them: one row of counts per partition and pair reaches the
    driver, where they are added."""
    pairs = list(combinations(range(m), 2))
    size = 2 * (len(thresholds) + 1) ** 2
    parts = rows.select("__y", *(f"__raw{i}" for i in range(m))).mapInArrow(
        _joint_counts(np.asarray(thresholds, dtype=np.float64), pairs), "pair int, counts binary").collect()
    totals = [np.zeros(size) for _ in pairs]
    for row in parts:
        totals[row["pair"]] += np.frombuffer(row["counts"], dtype=np.float64)
    return totals


def _joint_counts(thresholds: np.ndarray, pairs: list[tuple[int, int]]) -> Callable[[Iterator[Any]], Iterator[Any]]:
    """A partition's joint counts of each pair (runs on the executors; travels by value: numpy and pyarrow
    only). The bins are ``np.searchsorted(thresholds, score, side="right")``: the thresholds at or below a score."""
    bins = len(thresholds) + 1

    def counts(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        totals = [np.zeros(2 * bins * bins) for _ in pairs]
        for batch in batches:
            if batch.num_rows == 0:
                continue
            y = batch.column(0).to_numpy(zero_copy_only=False).astype(np.int64)
            where = [np.searchsorted(thresholds, batch.column(1 + i).to_numpy(zero_copy_only=False), side="right")
                     for i in range(batch.num_columns - 1)]
            for total, (i, j) in zip(totals, pairs):
                total += np.bincount((y * bins + where[i]) * bins + where[j], minlength=2 * bins * bins)
        yield pa.RecordBatch.from_arrays([pa.array(list(range(len(pairs))), pa.int32()),
                                          pa.array([t.tobytes() for t in totals], pa.binary())],
                                         names=["pair", "counts"])

    return counts


def _placement_moments(rows: Any, m: int, aucs: list[float], distinct: list[int]) -> PlacementMoments:
    """By class, the sums of each model's placements about its AUC (and their squares), and of every pair's
    differences about the difference of their AUCs: each model's table of placements (of ``distinct``
    scores) made on the executors, joined to the rows on the score."""
    F = functions()
    joined = rows
    held = []
    try:
        for i in range(m):
            table, ordered = _placement_table(rows.select(F.col("__y"), F.col(f"__s{i}").alias("s")), distinct[i])
            held.append(ordered)
            joined = joined.join(table.withColumnRenamed("s", f"__s{i}").withColumnRenamed("v10", f"__v10_{i}")
                                 .withColumnRenamed("v01", f"__v01_{i}"), on=f"__s{i}", how="inner")
        return _sums(joined, m, aucs)
    finally:
        for frame in held:
            frame.unpersist()


def _sums(joined: Any, m: int, aucs: list[float]) -> PlacementMoments:
    """The moments of :class:`assay.summaries.paired.PlacementMoments`, summed by Spark."""
    F = functions()
    v = [F.when(F.col("__y"), F.col(f"__v10_{i}")).otherwise(F.col(f"__v01_{i}")) for i in range(m)]
    centred = [x - F.lit(a) for x, a in zip(v, aucs, strict=True)]
    pairs = list(combinations(range(m), 2))
    differences = [v[i] - v[j] - F.lit(aucs[i] - aucs[j]) for i, j in pairs]
    sums = [F.count(F.lit(1)).alias("n")]
    sums += [F.sum(x).alias(f"l{i}") for i, x in enumerate(centred)]
    sums += [F.sum(x * x).alias(f"q{i}") for i, x in enumerate(centred)]
    sums += [F.sum(d).alias(f"dl{q}") for q, d in enumerate(differences)]
    sums += [F.sum(d * d).alias(f"dq{q}") for q, d in enumerate(differences)]
    by_class = {bool(row["__y"]): row for row in joined.groupBy("__y").agg(*sums).collect()}
    moments = PlacementMoments(aucs)
    for c, key in ((0, True), (1, False)):  # class 0: the positives
        row = by_class.get(key)
        if row is None:
            continue
        moments.n[c] = int(row["n"])
        moments.linear[c] = [float(row[f"l{i}"]) for i in range(m)]
        moments.squares[c] = [float(row[f"q{i}"]) for i in range(m)]
        moments.pair_linear[c] = [float(row[f"dl{q}"]) for q in range(len(pairs))]
        moments.pair_squares[c] = [float(row[f"dq{q}"]) for q in range(len(pairs))]
    return moments


def _placement_table(rows: Any, distinct: int) -> tuple[Any, Any]:
    """A DataFrame (s, v10, v01) of one model's placements by distinct score ``s``, made on the executors,
    and the persisted frame it reads (unpersisted by the caller once the table is used): the class counts by
    score, range-partitioned ascending and sorted; each partition's totals reach the driver (one row a
    partition), whose offsets (the negatives below the partition, the positives above it) are broadcast to
    the partitions that turn counts into placements."""
    F = functions()
    counts = rows.groupBy("s").agg(F.sum(F.col("__y").cast("long")).alias("pos"),
                                   F.sum((~F.col("__y")).cast("long")).alias("neg"))
    parts = max(1, -(-distinct // PARTITION_SCORES))
    ordered = counts.repartitionByRange(parts, F.col("s").asc()).sortWithinPartitions(F.col("s").asc()).persist()
    try:
        totals = ordered.mapInArrow(_totals(), "low double, pos long, neg long").collect()
    except BaseException:
        ordered.unpersist()
        raise
    totals = sorted((float(r["low"]), int(r["pos"]), int(r["neg"])) for r in totals)
    n_pos = sum(t[1] for t in totals)
    n_neg = sum(t[2] for t in totals)
    offsets, below_neg, below_pos = {}, 0, 0
    for low, pos, neg in totals:  # ascending: the partitions below come first
        offsets[low] = (below_neg, n_pos - below_pos - pos)
        below_neg += neg
        below_pos += pos
    return ordered.mapInArrow(_placements(offsets, n_pos, n_neg), "s double, v10 double, v01 double"), ordered


def _totals() -> Callable[[Iterator[Any]], Iterator[Any]]:
    """A partition's lowest score and class totals (runs on the executors; travels by value: pyarrow only)."""
    def totals(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa
        import pyarrow.compute as pc

        low, pos, neg = None, 0, 0
        for batch in batches:
            if batch.num_rows == 0:
                continue
            first = batch.column("s")[0].as_py()
            low = first if low is None else min(low, first)
            pos += int(pc.sum(batch.column("pos")).as_py() or 0)
            neg += int(pc.sum(batch.column("neg")).as_py() or 0)
        if low is not None:
            yield pa.RecordBatch.from_arrays([pa.array([low], pa.float64()), pa.array([pos], pa.int64()),
                                              pa.array([neg], pa.int64())], names=["low", "pos", "neg"])

    return totals


def _placements(offsets: dict[float, tuple[int, int]], n_pos: int, n_neg: int
                ) -> Callable[[Iterator[Any]], Iterator[Any]]:
    """A partition's placements by score, from its counts and its offsets (found by its lowest score), by
    :func:`assay.inference.roc.placement_formula` (runs on the executors: numpy and pyarrow only)."""
    formula = placement_formula()

    def placements(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa  # numpy, the module's own, travels by reference: the executors have it

        collected = [b for b in batches if b.num_rows]
        if not collected:
            return
        table = pa.Table.from_batches(collected)
        s = table.column("s").to_numpy()
        pos = table.column("pos").to_numpy().astype(np.float64)
        neg = table.column("neg").to_numpy().astype(np.float64)
        below_neg, above_pos = offsets[float(s[0])]
        v10, v01 = formula(below_neg + np.cumsum(neg) - neg, neg, above_pos + (pos.sum() - np.cumsum(pos)), pos,
                           n_neg, n_pos)
        yield pa.RecordBatch.from_arrays([pa.array(s), pa.array(v10), pa.array(v01)], names=["s", "v10", "v01"])

    return placements
