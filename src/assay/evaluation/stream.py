"""Evaluation of predictions that arrive in batches: files larger than memory, directories of parts.

Each batch becomes the same mergeable summaries the in-memory evaluation builds
(confusion counts for predicted labels; for scores, class counts per distinct score,
gathered by :class:`assay.summaries.partition.ScoreScan` within the memory budget), and
every metric, interval and curve is computed from the whole summary by the very
functions :func:`assay.evaluate` uses. So the result is exact and equal to the
in-memory one, whatever the number of rows.

The probabilistic losses and the calibration table come from the same summaries (each
instance's loss depends only on its score and class), equal to the in-memory ones up to
floating-point rounding. Class probabilities of several classes give the most probable
class's confusion counts, a probability summary, and a scan of each column by actual
class (one-vs-rest AUCs with DeLong's interval, Hand and Till's M); the averages come
without the bootstrap interval, which resamples instances.
"""

from __future__ import annotations

import itertools
import os
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from functools import partial
from typing import Any

import numpy as np

from assay.errors import InvalidInput
from assay.evaluation.applicability import refuse_inapplicable
from assay.evaluation.costs import Costs, DecisionCosts, matrix_costs_of
from assay.evaluation.from_summaries import (
    evaluate_confusion_counts,
    evaluate_score_counts,
)
from assay.evaluation.multiclass_ranking import (
    analyse_multiclass_counts,
    top_k_estimate,
    top_k_hits,
)
from assay.evaluation.options import Options, keywords_of, options_from
from assay.evaluation.positive import check_predicted_labels, choose_positive
from assay.evaluation.probabilistic import (
    CALIBRATION_PARTS,
    analyse_summary,
    check_rows,
    class_calibration,
    shown_calibration,
)
from assay.evaluation.ranking import AUCInterval
from assay.evaluation.result import Evaluation
from assay.inputs import as_proba, as_scores, canonical_label, encode_labels, sorted_labels
from assay.limits import MAX_CLASSES
from assay.summaries.confusion import ConfusionCounts
from assay.summaries.kernels import compiled
from assay.summaries.partition import (
    Keys,
    Scattered,
    ScoreScan,
    batch_keys,
    one_vs_rest,
)
from assay.summaries.probabilities import ProbabilitySummary
from assay.summaries.scores import ScoreCounts

__all__ = ["evaluate_batches", "oriented_summary", "batch_items", "located", "score_summaries", "SCAN_THREADS",
           "proba_options", "proba_partials", "evaluate_proba_summaries"]

def evaluate_batches(
    batches: Iterable[Any],
    *,
    kind: str = "y_score",
    names: Mapping[str, str] | None = None,
    labels: Sequence[Any] | None = None,
    positive: Any = None,
    threshold: float | None = None,
    confidence: float = 0.95,
    interval: str = "wilson",
    beta: float = 1.0,
    bootstrap: int = 2000,
    seed: int = 0,
    score_name: str | None = None,
    auc_interval: AUCInterval = "delong",
    costs: Costs | Mapping[str, float] | None = None,
    prevalence: float | None = None,
    fpr_range: tuple[float, float] | None = None,
    lift_depth: float = 0.1,
    at_specificity: Sequence[float] = (),
    at_sensitivity: Sequence[float] = (),
    roc_band: bool = False,
    sensitivity_range: tuple[float, float] | None = None,
    constraints: Sequence[str] = (),
    direction: str = "higher",
    cost_matrix: Any = None,
    top_k: Any = None,
    kappa_weights: str | None = None,
    prior: Mapping[Any, float] | Sequence[float] | None = None,
    clip: float | None = None,
    calibration_bins: int = 10,
    calibration_strategy: str = "uniform",
    calibration_parts: Sequence[str] = CALIBRATION_PARTS,
    calibration_class: Any = None,
    roc_bins: int | None = None,
    memory: int | None = None,
    allow_disjoint_labels: bool = False,
    net_benefit: bool = False,
    thresholds_range: tuple[float, ...] | None = None,
    options: Options | None = None,
) -> Evaluation:
    """Evaluate predictions given as batches of (truth, prediction) columns.

    Parameters
    ----------
    batches : iterable
        Each item is ``(y_true, y_pred_or_score)`` (two array-likes of one length:
        lists, numpy, pandas or polars series, pyarrow arrays), or ``(part, first_row,
        y_true, y_pred_or_score)`` so that errors name the part and its row, or a
        pandas/polars DataFrame or pyarrow RecordBatch with columns ``y_true`` and
        ``y_pred`` or ``y_score``.
    kind : {"y_score", "y_pred", "y_proba"}
        What the second column holds: scores, predicted labels, or class probabilities (an (n, k)
        array whose columns follow ``labels``, or a data frame or mapping whose columns are named
        after the classes, as :func:`assay.evaluate`'s ``y_proba``).
    names : mapping, optional
        How errors name the columns (``{"y_score": "column 'p'"}``).
    labels, positive, threshold, confidence, ... : as for :func:`assay.evaluate`.
    memory : int, optional
        A budget in bytes for the score summary (one entry per distinct score): beyond it the
        summary is kept as its sorted keys (in temporary files past the budget), each range of scores
        counted when read, a chunk at a time; every number stays exact. None: no budget.
    options : Options, optional
        The options as one object (:class:`assay.Options`); keywords beside it change it.

    Examples
    --------
    >>> parts = [([1, 0, 1], [0.9, 0.2, 0.6]), ([0, 1], [0.4, 0.7])]
    >>> r = evaluate_batches(parts)
    >>> round(r.ranking.roc_auc.value, 4), r.confusion.counts.tolist()
    (1.0, [[2, 0], [0, 3]])
    """
    if not isinstance(kind, str) or kind not in ("y_score", "y_pred", "y_proba"):
        raise InvalidInput(f"{kind!r} is not one of ['y_score', 'y_pred', 'y_proba']", field="kind")
    options = options_from(options, keywords_of(locals()))
    names = dict(names or {})
    fixed = None if labels is None else list(encode_labels({"labels": list(labels)}, labels=list(labels)).labels)
    if kind == "y_pred":
        refuse_inapplicable("labels", options.asked())
    if options.direction != "higher" and kind != "y_score":
        raise InvalidInput("a direction applies to a score column", field="direction")
    if kind == "y_pred":
        cm = _confusion_of(batches, names, fixed)
        if fixed is None and not allow_disjoint_labels:
            try:
                check_predicted_labels(cm.labels, np.asarray(cm.actual_totals) > 0, np.asarray(cm.predicted_totals) > 0)
            except InvalidInput as e:
                raise InvalidInput(e.problem, field=names.get("y_pred", "y_pred")) from None
        return evaluate_confusion_counts(cm, options, positive=positive)
    if options.kappa_weights is not None:
        raise InvalidInput("a weighted kappa here applies to predicted labels (in batches: --pred)",
                           field="kappa_weights")
    if kind == "y_proba":
        items = iter(batch_items(batches, "y_proba"))
        first = next(items, None)
        if first is None:
            raise InvalidInput("no instances to evaluate", field=names.get("y_true", "y_true"))
        all_labels = _proba_columns(first, names, fixed)
        items = itertools.chain([first], items)
        if len(all_labels) == 2:  # two classes: the positive class's column is a score column
            chosen, _ = choose_positive(all_labels, positive=positive)
            column = all_labels.index(chosen)
            batches = ((part, row, y_true, _proba_matrix(part, row, proba, names, all_labels)[:, column])
                       for part, row, y_true, proba in items)
            names = {**names, "y_score": names.get("y_proba", "y_proba")}
            fixed = list(all_labels)
        else:
            refuse_inapplicable("probabilities", options.asked())
            return _evaluate_proba(items, all_labels, names, options, positive=positive)
    if options.top_k is not None:
        raise InvalidInput("applies to probabilities of more than two classes (one column per class)", field="top_k")
    summary, all_labels, chosen, why = oriented_summary(batches, names, fixed, positive, score_name, options.memory)
    result = evaluate_score_counts(summary, all_labels, chosen, why, options)
    if kind == "y_proba":  # probabilities given as such: no note that scores are read as probabilities
        result = replace(result, notes=tuple(n for n in result.notes if not n.startswith("scores within [0, 1]")))
    return result


def oriented_summary(batches: Iterable[Any], names: Mapping[str, str], fixed: list[str] | None, positive: Any,
                     score_name: str | None, memory: int | None = None) -> tuple[ScoreCounts, tuple[str, ...], str, str]:
    """The merged score summary with the positive class as its positive, the two classes, the positive and why.

    Within ``memory`` bytes (None: no limit) the summary is held in memory; beyond, it is spilled to disk
    (:mod:`assay.summaries.spill`) and the result maps it from there."""
    summary, all_labels, reference = _scores_of(batches, names, fixed, memory)
    if len(all_labels) != 2:
        what = "a single class" if len(all_labels) == 1 else f"{len(all_labels)} classes"
        raise InvalidInput(f"has {what}; a score column needs two", field=names.get("y_true", "y_true"))
    chosen, why = choose_positive(all_labels, positive=positive, score_name=score_name)
    if chosen != reference:  # the summary counted the other class as positive: turn it round
        summary = summary.relabelled((reference, chosen), swap=True)
    return summary, all_labels, chosen, why


def batch_items(batches: Iterable[Any], kind: str) -> Iterable[tuple[str | None, int, Any, Any]]:
    """(part, first row, truth, prediction) from each of the shapes a batch may take."""
    if isinstance(batches, (str, bytes)) or not hasattr(batches, "__iter__"):
        raise InvalidInput(f"expected an iterable of batches, got {type(batches).__name__}", field="batches")
    for item in batches:
        if isinstance(item, tuple) and len(item) == 4:
            yield item
        elif isinstance(item, tuple) and len(item) == 2:
            yield None, 1, item[0], item[1]
        elif hasattr(item, "column_names") or hasattr(item, "columns"):
            columns = list(getattr(item, "column_names", None) or item.columns)
            if "y_true" not in columns or kind not in columns:
                raise InvalidInput(f"a batch needs the columns 'y_true' and {kind!r}, it has {columns}",
                                   field="batches")
            yield None, 1, item["y_true"] if not hasattr(item, "column") else item.column("y_true"), \
                item[kind] if not hasattr(item, "column") else item.column(kind)
        else:
            raise InvalidInput(f"expected (y_true, {kind}) pairs or data frames, got {type(item).__name__}",
                               field="batches")


def located(e: InvalidInput, part: str | None, first_row: int, names: Mapping[str, str]) -> InvalidInput:
    """The error of a batch, its row counted in the part and the part named."""
    field = names.get(e.field, e.field) if e.field else None
    if part is not None:
        field = f"{part}: {field}" if field else part
    row = None if e.row is None else e.row + first_row - 1
    return InvalidInput(e.problem, field=field, row=row)


def _confusion_of(batches: Iterable[Any], names: Mapping[str, str], fixed: list[str] | None) -> ConfusionCounts:
    total: ConfusionCounts | None = None
    for part, first_row, y_true, y_pred in batch_items(batches, "y_pred"):
        try:
            enc = encode_labels({"y_true": y_true, "y_pred": y_pred}, labels=fixed)
        except InvalidInput as e:
            raise located(e, part, first_row, names) from None
        cm = ConfusionCounts.from_codes(enc.codes["y_true"], enc.codes["y_pred"], labels=enc.labels)
        if total is None:
            total = cm
        else:
            union = tuple(sorted_labels(list(dict.fromkeys(total.labels + cm.labels)))) if fixed is None \
                else tuple(fixed)
            if len(union) > MAX_CLASSES:
                raise InvalidInput(f"holds more than {MAX_CLASSES:,} distinct values: assay evaluates at most "
                                   f"{MAX_CLASSES:,} classes", field=names.get("y_pred", "y_pred"))
            total = total.with_labels(union).merge(cm.with_labels(union))
    if total is None:
        raise InvalidInput("no instances to evaluate", field="y_true")
    return total


SCAN_THREADS = max(1, min(4, os.cpu_count() or 1))
"""Batches keyed, and ranges of scores sorted, at once while the next batches are read (reading, sorting
and the compiled passes release the GIL, so the threads run in parallel)."""


def _keyed(item: tuple[str | None, int, Any, Any], names: Mapping[str, str],
           fixed: list[str] | None, columns: int, scans: Sequence[ScoreScan] = ()
           ) -> tuple[list[str], str, list[Keys | Scattered]]:
    """(On a worker thread) a batch's classes present, in label order, its first class, and each score
    column's keys counting that first class as positive (``columns`` > 1: the item holds a list of columns,
    named ``y_score[i]`` in errors), scattered into the ranges of its column's scan in ``scans`` once that
    has drawn them (:meth:`ScoreScan.scattered`)."""
    part, first_row, y_true, y_score = item
    given = [y_score] if columns == 1 else list(y_score)
    fields = ["y_score"] if columns == 1 else [f"y_score[{i}]" for i in range(columns)]
    try:
        enc = encode_labels({"y_true": y_true}, labels=fixed)
        if len(given) != columns:
            raise InvalidInput(f"expected {columns} score columns, got {len(given)}", field="y_score")
        all_scores = []
        for field, column in zip(fields, given, strict=True):
            scores = as_scores(column, field)
            if len(scores) != len(enc.codes["y_true"]):
                raise InvalidInput(f"has {len(scores)} values but y_true has {len(enc.codes['y_true'])}",
                                   field=field)
            all_scores.append(scores)
    except InvalidInput as e:
        raise located(e, part, first_row, names) from None
    codes = enc.codes["y_true"]
    # without fixed labels, a batch's labels are the values it holds: every one present
    present = list(enc.labels) if fixed is None else \
        [enc.labels[c] for c in np.flatnonzero(np.bincount(codes, minlength=len(enc.labels)))]
    first = enc.labels[0] if enc.labels else "other"
    keys = [batch_keys(codes == 0, scores, compiled(1 << 62)) for scores in all_scores]
    return present, first, [scan.scattered(k) for scan, k in zip(scans, keys, strict=True)] if scans else keys


def _scores_of(batches: Iterable[Any], names: Mapping[str, str], fixed: list[str] | None,
               memory: int | None) -> tuple[ScoreCounts, tuple[str, ...], str]:
    """The merged score summary (the first class met counted as positive), the classes, and that class."""
    summaries, labels, reference = score_summaries(batch_items(batches, "y_score"), names, fixed, memory)
    return summaries[0], labels, reference


def score_summaries(items: Iterable[tuple[str | None, int, Any, Any]], names: Mapping[str, str],
                    fixed: list[str] | None, memory: int | None, columns: int = 1
                    ) -> tuple[list[ScoreCounts], tuple[str, ...], str]:
    """The merged score summary of each of ``columns`` score columns of the same rows (the first class met
    counted as positive), the classes, and that class. Items are (part, first row, truth, scores), the
    scores a list of columns when ``columns`` > 1; the budget is shared equally by the columns.

    Batches are keyed by ``SCAN_THREADS`` threads while the next are read, and their keys gathered here
    in the order of the batches (so an error names the first bad batch) into a :class:`ScoreScan` per
    column, which counts them within the memory budget (partitioned on disk beyond it).
    """
    reference: str | None = None
    seen: list[str] = []
    share = None if memory is None else max(1, memory // columns)
    scans = [ScoreScan(share, threads=SCAN_THREADS) for _ in range(columns)]

    def take(present: list[str], first: str, keys: list[Keys | Scattered]) -> None:
        nonlocal reference
        seen.extend(label for label in present if label not in seen)
        if len(seen) > 2:
            raise InvalidInput(f"has {len(seen)} classes ({', '.join(map(repr, seen))}); a score column needs two "
                               "(class probabilities are not read in batches yet)",
                               field=names.get("y_true", "y_true"))
        if reference is None and seen:
            reference = seen[0]
        if reference is not None:
            # the batch counted its first class as positive: turned round when that is not the reference
            for scan, column in zip(scans, keys, strict=True):
                scan.add(column if first == reference else column.swapped())

    _scan_batches(items, partial(_keyed, names=names, fixed=fixed, columns=columns, scans=scans), take, scans)
    if reference is None:
        for scan in scans:
            scan.close()
        raise InvalidInput("no instances to evaluate", field=names.get("y_true", "y_true"))
    labels = tuple(sorted_labels(seen)) if fixed is None else tuple(fixed)
    other = next((label for label in labels if label != reference), "other")
    return [scan.result((other, reference)) for scan in scans], labels, reference


# class probabilities of several classes ------------------------------------------------


def _proba_matrix(part: str | None, first_row: int, proba: Any, names: Mapping[str, str],
                  labels: tuple[str, ...]) -> np.ndarray:
    """A batch's probability matrix, validated (each row sums to 1), its columns in ``labels``' order."""
    try:
        matrix, columns = as_proba(proba, labels=labels if _unnamed(proba) else None)
        columns = [str(c) for c in columns]
        if sorted(columns) != sorted(labels) or len(columns) != len(labels):
            raise InvalidInput(f"has the columns {columns}; the first batch had {list(labels)}", field="y_proba")
        check_rows(matrix)
    except InvalidInput as e:
        raise located(e, part, first_row, names) from None
    order = [columns.index(label) for label in labels]
    return matrix[:, order] if order != list(range(len(order))) else matrix


def _unnamed(proba: Any) -> bool:
    return not isinstance(proba, Mapping) and not (hasattr(proba, "columns") and not isinstance(proba, np.ndarray))


def _proba_columns(item: tuple[str | None, int, Any, Any], names: Mapping[str, str],
                   fixed: list[str] | None) -> tuple[str, ...]:
    """The classes, in label order, that the first batch's probability columns name."""
    part, first_row, _, proba = item
    try:
        _, columns = as_proba(proba, labels=fixed)
    except InvalidInput as e:
        raise located(e, part, first_row, names) from None
    return tuple(sorted_labels([str(c) for c in columns]))


def _proba_summaries(item: tuple[str | None, int, Any, Any], names: Mapping[str, str], labels: tuple[str, ...],
                     clip: float | None, bins: int, top_k: int | None = None, costs: np.ndarray | None = None
                     ) -> tuple[ConfusionCounts, ProbabilitySummary, list[list[np.ndarray]], dict[str, Any]]:
    """(On a worker thread) a batch's confusion counts of the most probable class, its probability summary,
    and for each column the keys of its probabilities by actual class."""
    cm, summary, extras, codes, matrix = proba_partials(item, names, labels, clip, bins, top_k, costs)
    k = len(labels)
    order = np.argsort(codes, kind="stable")
    bounds = np.concatenate(([0], np.cumsum(np.bincount(codes, minlength=k))))
    kernels = compiled(1 << 62)
    keys = []
    for j in range(k):
        column = batch_keys(np.ones(len(codes), bool), matrix[order, j], kernels).positive
        keys.append([column[bounds[c]:bounds[c + 1]] for c in range(k)])
    return cm, summary, keys, extras


def proba_partials(item: tuple[str | None, int, Any, Any], names: Mapping[str, str], labels: tuple[str, ...],
                   clip: float | None, bins: int, top_k: int | None = None, costs: np.ndarray | None = None
                   ) -> tuple[ConfusionCounts, ProbabilitySummary, dict[str, Any], np.ndarray, np.ndarray]:
    """A batch (part, first row, truth, probabilities) of k > 2 classes validated (an error names the part
    and the row), and what it adds to the evaluation: the confusion counts of the most probable class, the
    probability summary, ``extras`` (``"hits"``: the top-k hits, with ``top_k``; ``"decisions"``: the
    :class:`DecisionCosts` of the decisions of least expected cost, with ``costs``), and the actual classes'
    codes and the probability matrix (columns in ``labels``' order). Each part merges (Spark's executors run
    this on their partitions)."""
    part, first_row, y_true, proba = item
    matrix = _proba_matrix(part, first_row, proba, names, labels)
    try:
        enc = encode_labels({"y_true": y_true}, labels=list(labels))
        if matrix.shape[0] != len(enc.codes["y_true"]):
            raise InvalidInput(f"has {matrix.shape[0]} rows but y_true has {len(enc.codes['y_true'])}",
                               field="y_proba")
    except InvalidInput as e:
        raise located(e, part, first_row, names) from None
    codes = enc.codes["y_true"].astype(np.intp)
    made = np.argmax(matrix, axis=1)
    cm = ConfusionCounts.from_codes(codes, made, labels=labels)
    summary = ProbabilitySummary.from_codes(codes, matrix, labels=labels, clip=clip, bins=bins)
    extras: dict[str, Any] = {}
    if top_k is not None:
        extras["hits"] = int(top_k_hits(matrix, codes, top_k).sum())
    if costs is not None:
        extras["decisions"] = DecisionCosts(len(labels))
        extras["decisions"].add(matrix, codes, made, costs)
    return cm, summary, extras, codes, matrix


def proba_options(labels: tuple[str, ...], options: Options, positive: Any, where: str = "on data read in batches"
                  ) -> np.ndarray | None:
    """The options of k > 2 classes' probabilities that summaries merged from parts honour (a positive class,
    quantile calibration bins refused, with ``where`` they are not computed), and the cost matrix in
    ``labels``' order (None without one)."""
    if positive is not None:
        raise InvalidInput(f"a positive class applies to two-class data; these data have {len(labels)} classes",
                           field="positive")
    if options.calibration_strategy != "uniform":
        raise InvalidInput(f"quantile calibration bins of several classes are not computed {where} "
                           "yet; use uniform bins", field="calibration_strategy")
    return None if options.cost_matrix is None else matrix_costs_of(options.cost_matrix, None, labels)


def _evaluate_proba(items: Iterable[Any], labels: tuple[str, ...], names: Mapping[str, str], options: Options, *,
                    positive: Any) -> Evaluation:
    """The evaluation of k > 2 classes' probabilities read in batches: the most probable class's confusion
    counts, each class's one-vs-rest ROC summary (a scan of its column by actual class), Hand and Till's
    pairwise AUCs from the same scans, and the merged probability summary."""
    costs = proba_options(labels, options, positive)
    clip, bins, top_k, memory = options.clip, options.calibration_bins, options.top_k, options.memory
    k = len(labels)
    hits = 0
    decisions: Any = None
    share = None if memory is None else max(memory // k, 1)
    scans = [ScoreScan(share, classes=k, threads=SCAN_THREADS) for _ in range(k)]
    cm: ConfusionCounts | None = None
    probabilities: ProbabilitySummary | None = None
    def take(part_cm: ConfusionCounts, part_summary: ProbabilitySummary, keys: list[list[np.ndarray]],
             extras: dict[str, Any]) -> None:
        nonlocal cm, probabilities, hits, decisions
        hits += extras.get("hits", 0)
        if "decisions" in extras:
            decisions = extras["decisions"] if decisions is None else decisions.merge(extras["decisions"])
        cm = part_cm if cm is None else cm.merge(part_cm)
        probabilities = part_summary if probabilities is None else probabilities.merge(part_summary)
        for scan, column in zip(scans, keys, strict=True):
            scan.add(tuple(column))

    _scan_batches(items, partial(_proba_summaries, names=names, labels=labels, clip=clip, bins=bins, top_k=top_k,
                                 costs=costs), take, scans)
    return evaluate_proba_summaries(cm, probabilities, hits, decisions, scans, labels, options,
                                    field=names.get("y_true", "y_true"))


def _scan_batches(items: Iterable[Any], work: Callable[[Any], tuple[Any, ...]], take: Callable[..., None],
                  scans: Sequence[Any]) -> None:
    """Each batch of ``items`` worked on by ``work`` on ``SCAN_THREADS`` threads (as many ahead, while the next
    is read), its results handed to ``take`` in the batches' order; on an error or an interrupt the scans are
    closed (their temporary files removed) and it is raised."""
    pool = ThreadPoolExecutor(max_workers=SCAN_THREADS, thread_name_prefix="assay-scan")
    pending: deque[Any] = deque()
    try:
        for item in items:
            pending.append(pool.submit(work, item))
            while len(pending) > SCAN_THREADS:
                take(*pending.popleft().result())
        while pending:
            take(*pending.popleft().result())
    except BaseException:
        for scan in scans:
            scan.close()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def evaluate_proba_summaries(cm: ConfusionCounts | None, probabilities: ProbabilitySummary | None, hits: int,
                             decisions: DecisionCosts | None, scans: Sequence[Any], labels: tuple[str, ...],
                             options: Options, *, field: str = "y_true", micro: float | None = None,
                             made: Callable[[int, np.ndarray, tuple[str, str]], tuple[ScoreCounts, np.ndarray]] | None
                             = None) -> Evaluation:
    """The evaluation of k > 2 classes' probabilities from their merged summaries: the most probable class's
    confusion counts ``cm``, the probability summary, the top-k ``hits`` (with ``options.top_k``), the
    decisions of least expected cost (None without a cost matrix), and for each class j a scan of column j
    by actual class (a :class:`ScoreScan` of k classes, or an object with its ``pieces``, ``fits``,
    ``directory`` and ``close``), which gives class j's one-vs-rest summary and Hand and Till's pairwise
    AUCs (:func:`~assay.summaries.partition.one_vs_rest`). The scans are closed, on errors too. ``field``
    names the truth in "no instances"; ``micro``: the micro average precision where computed already (Spark's
    pooled summary), else made from the one-vs-rest summaries; ``made(j, support, labels)``: class j's one-vs-rest
    summary and pairwise counts where they are made elsewhere (on Spark's executors), in place of the scans."""
    k = len(labels)
    confidence, top_k = options.confidence, options.top_k
    try:
        if cm is None or probabilities is None or cm.n == 0:
            raise InvalidInput("no instances to evaluate", field=field)
        result = evaluate_confusion_counts(cm, options, predicted_labels=False)
        if top_k is not None:
            top = top_k_estimate(hits, cm.n, top_k, k, confidence=confidence, interval=options.interval)
            result = replace(result, analysis=replace(result.analysis,
                                                      metrics={**result.analysis.metrics, "top_k_accuracy": top}))
        if decisions is not None:
            result = replace(result, cost_decisions=decisions.result(confidence=confidence))
        support = np.asarray(cm.actual_totals, dtype=np.int64)
        summaries: list[ScoreCounts | None] = []
        pair_aucs = np.full((k, k), np.nan)
        for j in range(k):
            summary, u2 = made(j, support, ("rest", labels[j])) if made is not None else \
                one_vs_rest(scans[j], j, support, ("rest", labels[j]))
            summaries.append(summary if support[j] else None)
            for col in range(k):
                if col != j and support[j] and support[col]:
                    pair_aucs[j, col] = u2[col] / (2 * int(support[j]) * int(support[col]))
    finally:
        for scan in scans:
            scan.close()
    ranking = analyse_multiclass_counts(summaries, pair_aucs, support, labels, confidence=confidence, micro=micro)
    probabilistic = analyse_summary(probabilities, prior=options.prior, confidence=confidence)
    if options.calibration_class is not None:  # the class's one-vs-rest summary, made for the ranking
        j = labels.index(canonical_label(options.calibration_class, labels, field="calibration_class"))
        if summaries[j] is None:
            raise InvalidInput(f"class {labels[j]!r} has no instances: its calibration against the rest is "
                               "undefined", field="calibration_class")
        probabilistic = class_calibration(probabilistic, summaries[j], bins=options.calibration_bins,
                                          strategy=options.calibration_strategy, confidence=confidence,
                                          bootstrap=options.settings)
    return replace(result, ranking=ranking, probabilistic=shown_calibration(probabilistic, options.calibration_parts))
