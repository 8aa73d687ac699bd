"""Files read a batch at a time: a file larger than memory, a directory of parts, a glob.

The engine between the reader of batches (:mod:`assay.io.batches`) and the merging of
summaries (:mod:`assay.evaluation.stream`): what ``assay report`` and ``assay curves``
run on such sources, and ``assay.evaluate_file`` / ``assay.rank_file`` in Python.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from assay.checks import check_integer
from assay.errors import InvalidInput
from assay.evaluation.evaluate import _as_costs, _check_prevalence
from assay.evaluation.ranking import Costs, analyse_scores
from assay.evaluation.result import Evaluation
from assay.evaluation.stream import evaluate_batches, oriented_summary
from assay.io.batches import scan
from assay.limits import DEFAULT_MEMORY

__all__ = ["evaluate_file", "rank_file"]


def evaluate_file(
    source: str,
    *,
    truth: str,
    pred: str | None = None,
    score: str | None = None,
    proba: Sequence[str] | Mapping[str, str] | None = None,
    format: str | None = None,
    na_values: Sequence[str] | None = None,
    delimiter: str | None = None,
    decimal: str | None = None,
    progress: Callable[[int, int | None], None] | None = None,
    memory: int | None = DEFAULT_MEMORY,
    **options: Any,
) -> Evaluation:
    """Evaluate the predictions in a file, a directory of parts or a glob, a batch at a time.

    Parameters
    ----------
    source : str
        A CSV, TSV, Parquet or JSON-lines file (compressed or not), a directory of
        such parts (read recursively, hidden and ``_``-files skipped) or a glob
        (``"preds/*.parquet"``).
    truth : str
        The column of actual classes.
    pred, score : str
        The column of predicted classes, or of scores of the positive class.
    proba : sequence of str, or mapping of class to column
        Or the columns of class probabilities, each named after its class, or given as
        ``{class: column}`` (one of the three).
    format, na_values, delimiter, decimal
        As for :func:`assay.io.tables.read_columns` (a CSV part's delimiter and decimal mark are
        sniffed from it unless given).
    progress : callable (rows read, rows expected or None), optional
    memory : int, default 2 GiB
        The memory budget in bytes: a score summary larger than what it leaves
        (``summary_budget``) is spilled to temporary files, exact all the same. None: no budget.
    **options
        ``positive``, ``threshold``, ``confidence``, ``interval``, ``beta``,
        ``bootstrap``, ``seed``, ``auc_interval``, ``costs``, ``prevalence``,
        ``fpr_range``, ``lift_depth``: as for :func:`assay.evaluate`.

    Returns
    -------
    Evaluation
        Equal to ``evaluate`` on the whole table (the probabilistic losses up to
        floating-point rounding).
    """
    classes = None if proba is None else dict(proba) if isinstance(proba, Mapping) else {c: c for c in proba}
    if sum(x is not None for x in (pred, score, classes)) != 1:
        raise InvalidInput("give exactly one of pred, score or proba")
    if classes is not None and len(classes) < 2:
        raise InvalidInput("needs at least two columns, one per class", field="proba")
    batches = scan(source, text_columns=[truth] + ([pred] if pred else []),
                   number_columns=[score] if score else list((classes or {}).values()), format=format,
                   na_values=na_values,
                   delimiter=delimiter, decimal=decimal)
    expected = batches.rows_expected

    def columns() -> Iterable[tuple[str, int, Any, Any]]:
        done = 0
        for batch in batches:
            prediction = {label: batch.columns[c] for label, c in classes.items()} if classes else \
                batch.columns[pred or score]
            yield batch.part, batch.first_row, batch.columns[truth], prediction
            done += batch.n_rows
            if progress is not None:
                progress(done, expected)

    names = {"y_true": f"column {truth!r}", "y_pred": f"column {pred!r}", "y_score": f"column {score!r}",
             "y_proba": "the probability columns",
             **{f"y_proba[{label!r}]": f"column {c!r}" for label, c in (classes or {}).items()}}
    kind = "y_pred" if pred else "y_score" if score else "y_proba"
    return evaluate_batches(columns(), kind=kind, names=names, score_name=score, memory=summary_budget(memory),
                            **options)


RESERVED = 256 * 1024**2
"""What a scan takes besides the score summary: Python and its libraries, the compiled kernels, one
batch and its sorted keys (about 250 MB measured at 2^20 rows a batch)."""


def summary_budget(memory: int | None) -> int | None:
    """The part of a memory budget (bytes) the score summary may take: the rest is ``RESERVED``
    (or half of a small budget)."""
    if memory is None:
        return None
    memory = check_integer(memory, "memory", low=1)
    return memory - min(RESERVED, memory // 2)


def rank_file(source: str, *, truth: str, score: str, format: str | None = None,
              na_values: Sequence[str] | None = None, delimiter: str | None = None, decimal: str | None = None,
              positive: Any = None, confidence: float = 0.95,
              costs: Costs | Mapping[str, float] | None = None, prevalence: float | None = None,
              fpr_range: tuple[float, float] | None = None, lift_depth: float = 0.1,
              roc_bins: int | None = None, memory: int | None = DEFAULT_MEMORY,
              at_specificity: Sequence[float] = (), at_sensitivity: Sequence[float] = (),
              roc_band: bool = False, sensitivity_range: tuple[float, float] | None = None,
              constraints: Sequence[str] = (), direction: str = "higher") -> Any:
    """The ranking analysis (curves, AUC, hull, thresholds) of the scores in a file, a directory or a glob,
    read a batch at a time: :func:`assay.rank` for data read in batches."""
    from assay.checks import check_confidence

    confidence = check_confidence(confidence)
    batches = scan(source, text_columns=[truth], number_columns=[score], format=format, na_values=na_values,
                   delimiter=delimiter, decimal=decimal)
    items = ((b.part, b.first_row, b.columns[truth], b.columns[score]) for b in batches)
    names = {"y_true": f"column {truth!r}", "y_score": f"column {score!r}"}
    summary, _, _, _ = oriented_summary(items, names, None, positive, score, summary_budget(memory))
    from assay.evaluation.stream import _directed

    notes: list[str] = []
    summary, direction = _directed(summary, direction, notes)
    result = analyse_scores(summary, confidence=confidence, costs=_as_costs(costs),
                          deployment_prevalence=_check_prevalence(prevalence), fpr_range=fpr_range,
                          lift_depth=lift_depth, roc_bins=roc_bins, at_specificity=at_specificity,
                          at_sensitivity=at_sensitivity, roc_band=roc_band,
                          sensitivity_range=sensitivity_range, constraints=constraints, direction=direction)
    return replace(result, notes=tuple(notes) + result.notes) if notes else result


