"""Files read a batch at a time: a file larger than memory, a directory of parts, a glob.

The engine between the reader of batches (:mod:`assay.io.batches`) and the merging of
summaries (:mod:`assay.evaluation.stream`): what ``assay report`` and ``assay curves``
run on such sources, and ``assay.evaluate_file`` / ``assay.rank_file`` in Python.

The memory budget covers the data assay holds: the blocks being read and the batches being
counted (:func:`read_block` sets their size: at most ``READ_AHEAD`` blocks are in memory at
once), and the score summary with its sort buffers (:func:`summary_budget`, the rest). It does
not cover the interpreter, its libraries and the compiled kernels, a constant of about 300 MiB
(measured on Linux with pyarrow 26 and numba 0.6x). Beyond its share the summary goes to the
temporary directory, which then needs up to ``ROW_ON_DISK`` bytes a row.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from assay.checks import check_integer
from assay.errors import InvalidInput
from assay.evaluation.comparison import Comparison
from assay.evaluation.costs import Costs
from assay.evaluation.decision import refuse_decision_curve
from assay.evaluation.directions import directed
from assay.evaluation.grouped_batches import evaluate_batches_by
from assay.evaluation.options import NAMES, Options, keywords_of, options_from
from assay.evaluation.paired import compare_batches, model_columns
from assay.evaluation.ranking import analyse_scores
from assay.evaluation.result import Evaluation
from assay.evaluation.stream import evaluate_batches, oriented_summary
from assay.io.batches import BLOCK, Scan, scan
from assay.io.tables import compression_of, detect_format
from assay.limits import DEFAULT_MEMORY
from assay.summaries.partition import ROW_BYTES as KEY_ROW_BYTES
from assay.summaries.spill import check_room, room_for, spill_amount

__all__ = ["compare_file", "evaluate_file", "rank_file", "MIN_MEMORY", "check_memory", "read_block", "summary_budget"]

MIN_MEMORY = 32 * 1024**2
"""The smallest memory budget for data read in batches (32 MiB): a block of 128 KiB read at a time, and a
summary of about 350,000 rows before it goes to disk. Below it the sort of the scores splits into ever
smaller ranges and a large input takes hours (2·10^7 rows at 10 bytes ran for 14 minutes before it was
stopped). An input smaller than ``SMALL_INPUT`` takes any budget: it is read in one block, and a tiny
budget only makes it go to disk (the tests follow that path with 1 KB)."""

SMALL_INPUT = 64 * 1024
"""Bytes of input below which a budget under ``MIN_MEMORY`` is taken."""

READ_AHEAD = 48
"""Blocks of a CSV part in memory at once, at most: pyarrow's reader reads up to 32 ahead of the one it
parses, and batches of others are counted on several threads (4 MiB blocks took about 200 MiB here)."""

MIN_BLOCK = 128 * 1024
"""The smallest block read (bytes); the largest is :data:`assay.io.batches.BLOCK` (4 MiB)."""

ROW_ON_DISK = 8
"""Bytes a row takes in the temporary directory when the summary goes there: its key (8 bytes for a float64
score, 4 for a float32), and nothing else: the summary is kept as its sorted keys
(:mod:`assay.summaries.ranges`)."""


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
    by: Sequence[str] | None = None,
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
        The memory budget in bytes for the data held (the blocks read, the batches counted, the score
        summary and its sort buffers; not the interpreter and its libraries): a score summary larger
        than its share (``summary_budget``) is kept as its sorted keys in temporary files (4 or 8 bytes a row), exact all the same. At least
        ``MIN_MEMORY`` (32 MiB) for an input of 64 KiB or more. None: no budget.
    by : sequence of str, optional
        Columns of groups: every group evaluated too, and the gaps between them (a
        :class:`~assay.evaluation.groups.GroupedEvaluation`, as ``assay.evaluate(..., by=...)``), each group's
        summary held in memory.
    **options
        ``positive``, ``labels``, ``allow_disjoint_labels`` and every option of :func:`assay.evaluate`
        (``threshold``, ``confidence``, ``costs``, ``fpr_range``, ...; or ``options=``, an
        :class:`assay.Options`): as for :func:`assay.evaluate_batches`.

    Returns
    -------
    Evaluation
        Equal to ``evaluate`` on the whole table (the probabilistic losses up to
        floating-point rounding).
    """
    source = _names_as_text(source, truth=truth, pred=pred, score=score)
    if proba is not None and not (isinstance(proba, Mapping) or isinstance(proba, (list, tuple))
                                  and all(isinstance(c, str) for c in proba)):
        raise InvalidInput(f"expected the probability columns' names, got {type(proba).__name__}", field="proba")
    classes = None if proba is None else dict(proba) if isinstance(proba, Mapping) else {c: c for c in proba}
    _names_as_text(source, **{f"proba[{label!r}]": c for label, c in (classes or {}).items()})
    if sum(x is not None for x in (pred, score, classes)) != 1:
        raise InvalidInput("give exactly one of pred, score or proba")
    if classes is not None and len(classes) < 2:
        raise InvalidInput("needs at least two columns, one per class", field="proba")
    by = [by] if isinstance(by, str) else list(by or [])
    _names_as_text(source, **{f"by[{i}]": column for i, column in enumerate(by)})
    batches = scan(source, text_columns=[truth] + ([pred] if pred else []) + by,
                   number_columns=[score] if score else list((classes or {}).values()), format=format,
                   na_values=na_values,
                   delimiter=delimiter, decimal=decimal, block=read_block(memory))
    check_memory(memory, batches.size)
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
    if by:
        chosen = options_from(options.pop("options", None), {k: v for k, v in options.items() if k in NAMES})
        extra = {k: v for k, v in options.items() if k not in NAMES}
        unknown = set(extra) - {"positive", "allow_disjoint_labels"}
        if unknown:
            raise InvalidInput(f"{sorted(unknown)[0]}: not an option of a report by group", field="by")
        def with_groups() -> Iterable[tuple[str, int, Any, Any, list[Any]]]:
            done = 0
            for batch in batches:
                prediction = {label: batch.columns[c] for label, c in classes.items()} if classes else \
                    batch.columns[pred or score]
                yield batch.part, batch.first_row, batch.columns[truth], prediction, [batch.columns[c] for c in by]
                done += batch.n_rows
                if progress is not None:
                    progress(done, expected)

        return evaluate_batches_by(with_groups(), by=by, kind=kind,
                                   names={**names, **{f"by {c}": f"column {c!r}" for c in by}}, options=chosen,
                                   positive=extra.get("positive"), score_name=score, memory=summary_budget(memory))
    with _temporary_room(batches, memory, kind):
        return evaluate_batches(columns(), kind=kind, names=names, score_name=score,
                                memory=summary_budget(memory), **options)


def _names_as_text(source: Any, **columns: Any) -> str:
    """The path (text, or a path object) and the column names (text, or None) given to the file functions,
    refused with InvalidInput when they are anything else (a list, a number, an array)."""

    if not isinstance(source, (str, os.PathLike)) or not isinstance(os.fspath(source), str):
        raise InvalidInput(f"expected a path, got {type(source).__name__}", field="source")
    for field, name in columns.items():
        if name is not None and not isinstance(name, str):
            raise InvalidInput(f"expected a column name, got {type(name).__name__}", field=field)
    return os.fspath(source)


def read_block(memory: int | None) -> int:
    """The bytes of a CSV part read at a time within a memory budget: ``READ_AHEAD`` of them take a
    quarter of it, between ``MIN_BLOCK`` and 4 MiB (a Parquet part's batches hold about a third as many
    rows)."""
    if memory is None:
        return BLOCK
    return int(min(BLOCK, max(MIN_BLOCK, int(memory) // (4 * READ_AHEAD))))


def summary_budget(memory: int | None) -> int | None:
    """The part of a memory budget (bytes) the score summary and its sort may take: what the blocks read
    at once leave (half of a budget too small for them)."""
    if memory is None:
        return None
    memory = check_integer(memory, "memory", low=1)
    return max(memory - READ_AHEAD * read_block(memory), memory // 2, 1)


def check_memory(memory: int | None, input_bytes: int) -> None:
    """Refuse a budget too small for data read in batches (below ``MIN_MEMORY``, for an input of at least
    ``SMALL_INPUT`` bytes): the run would crawl for hours instead of finishing."""
    if memory is None:
        return
    memory = check_integer(memory, "memory", low=1)
    if memory < MIN_MEMORY and input_bytes >= SMALL_INPUT:
        raise InvalidInput(f"{spill_amount(memory)} is below the smallest budget for data read in batches, "
                           f"{spill_amount(MIN_MEMORY)} (the budget covers the blocks read and the score summary)",
                           field="memory")


def _estimated_rows(batches: Scan) -> int | None:
    """The rows of a scan: from the Parquet footers, else from the CSV parts' sizes and the length of the
    first part's first lines; None for compressed parts."""
    if batches.rows_expected is not None:
        return batches.rows_expected

    try:
        with open(batches.parts[0], "rb") as f:
            head = f.read(1 << 16)
    except OSError:
        return None
    plain_text = detect_format(batches.parts[0], head) in ("csv", "tsv") and compression_of(head) is None
    if not plain_text or b"\n" not in head:
        return None
    lines = head[: head.rfind(b"\n") + 1]
    return int(batches.size / (len(lines) / max(lines.count(b"\n"), 1)))


def _temporary_room(batches: Scan, memory: int | None, kind: str, models: int = 1, *, paired: bool = False) -> Any:
    """A context for a scan's writes to the temporary directory: its room checked before the scan starts
    where the rows are known, and a want of it said in one line with about what the run needs there.
    ``paired``: a paired comparison's second pass also writes each row's scores into buckets, two models'
    buckets at a time (:mod:`assay.summaries.placements`)."""
    rows = _estimated_rows(batches)
    if rows is None or kind == "y_pred":
        return room_for(None)
    # each model's keys: 8 bytes a row for float64 scores, 4 for float32 (the summary is kept as its sorted keys)
    need, least = rows * ROW_ON_DISK * models, rows * 4 * models
    if paired:
        need, least = need + 2 * rows * ROW_ON_DISK * models, least + 2 * rows * 4 * models
    budget = summary_budget(memory)
    if budget is not None and rows * KEY_ROW_BYTES * models > budget:
        # the keys go to disk: 4 bytes a row at least (float32 scores), of half the rows when they are
        # estimated from the size of a CSV file
        check_room(None, rows * 4 // (1 if batches.rows_expected is not None else 2), need, least)
    return room_for(need, None, least)


def rank_file(source: str, *, truth: str, score: str, format: str | None = None,
              na_values: Sequence[str] | None = None, delimiter: str | None = None, decimal: str | None = None,
              positive: Any = None, confidence: float = 0.95,
              costs: Costs | Mapping[str, float] | None = None, prevalence: float | None = None,
              fpr_range: tuple[float, float] | None = None, lift_depth: float = 0.1,
              roc_bins: int | None = None, memory: int | None = DEFAULT_MEMORY,
              at_specificity: Sequence[float] = (), at_sensitivity: Sequence[float] = (),
              roc_band: bool = False, sensitivity_range: tuple[float, float] | None = None,
              constraints: Sequence[str] = (), direction: str = "higher", options: Options | None = None) -> Any:
    """The ranking analysis (curves, AUC, hull, thresholds) of the scores in a file, a directory or a glob,
    read a batch at a time: :func:`assay.rank` for data read in batches (``options``: as for it)."""
    options = options_from(options, keywords_of({**locals(), "memory": None}))
    refuse_decision_curve(options, "in the ranking analysis", "assay.evaluate_file (assay report) draws it")
    source = _names_as_text(source, truth=truth, score=score)
    batches = scan(source, text_columns=[truth], number_columns=[score], format=format, na_values=na_values,
                   delimiter=delimiter, decimal=decimal, block=read_block(memory))
    check_memory(memory, batches.size)
    items = ((b.part, b.first_row, b.columns[truth], b.columns[score]) for b in batches)
    names = {"y_true": f"column {truth!r}", "y_score": f"column {score!r}"}
    with _temporary_room(batches, memory, "y_score"):
        summary, _, _, _ = oriented_summary(items, names, None, positive, score, summary_budget(memory))
    notes: list[str] = []
    summary, direction = directed(summary, options.direction, notes)
    result = analyse_scores(summary, options, direction=direction)
    return replace(result, notes=tuple(notes) + result.notes) if notes else result


def compare_file(
    source: str,
    *,
    truth: str,
    scores: Sequence[str] | None = None,
    preds: Sequence[str] | None = None,
    names: Sequence[str] | None = None,
    format: str | None = None,
    na_values: Sequence[str] | None = None,
    delimiter: str | None = None,
    decimal: str | None = None,
    progress: Callable[[int, int | None], None] | None = None,
    memory: int | None = DEFAULT_MEMORY,
    **options: Any,
) -> Comparison:
    """Compare two or more models whose predictions are columns of the same rows of a file, a directory of
    parts or a glob, read a batch at a time: :func:`assay.compare` at any size, exact.

    Parameters
    ----------
    source : str
        As for :func:`evaluate_file`.
    truth : str
        The column of actual classes.
    scores, preds : sequence of str
        The models' columns (two or more): scores of the positive class (read twice: once for each
        model's summary and report, once for DeLong's paired test and the predicted labels at the
        threshold), or predicted labels (read once).
    names : sequence of str, optional
        The models' names (default: the columns').
    format, na_values, delimiter, decimal, progress
        As for :func:`evaluate_file` (``progress`` counts the rows of both passes).
    memory : int, default 2 GiB
        As for :func:`evaluate_file`; the models' score summaries share it.
    **options
        ``positive``, ``labels``, ``adjust`` and the options of :func:`assay.compare` (``threshold``,
        ``direction``, ``confidence``, ``bootstrap``, ``seed``, ``costs``, ``prevalence``; or ``options=``).

    Returns
    -------
    Comparison
        Equal to :func:`assay.compare` on the whole table (DeLong's test up to floating-point rounding).
    """
    source = _names_as_text(source, truth=truth)
    given = model_columns(scores, preds)
    batches = scan(source, text_columns=[truth] + ([] if scores is not None else given),
                   number_columns=given if scores is not None else [], format=format, na_values=na_values,
                   delimiter=delimiter, decimal=decimal, block=read_block(memory))
    check_memory(memory, batches.size)
    passes = 2 if scores is not None else 1
    expected = None if batches.rows_expected is None else batches.rows_expected * passes

    def started() -> Iterable[tuple[str, int, Any, list[Any]]]:
        for batch in batches:
            yield batch.part, batch.first_row, batch.columns[truth], [batch.columns[c] for c in given]

    kind = "y_score" if scores is not None else "y_pred"
    columns = {"y_true": f"column {truth!r}", **{f"{kind}[{i}]": f"column {c!r}" for i, c in enumerate(given)}}
    with _temporary_room(batches, memory, kind, models=len(given), paired=kind == "y_score"):
        return compare_batches(started, kind=kind, names=list(given) if names is None else names, columns=columns,
                               memory=summary_budget(memory),
                               progress=None if progress is None else lambda done: progress(done, expected),
                               **options)
