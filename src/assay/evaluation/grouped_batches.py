"""Subgroups of data read in batches: a group key beside each summary.

:func:`evaluate_batches_by` reads each batch once and adds its rows to their group's summary (the counts per
distinct score of two-class scores, or the confusion counts of predicted labels); each group is then evaluated
from its summary as any engine's summary is (:func:`assay.evaluation.from_summaries.evaluate_score_counts`,
``evaluate_confusion_counts``), all the instances from the groups' merged summaries, and the gaps between the
groups as in memory (:func:`assay.evaluation.groups.grouped`): the same numbers as ``assay.evaluate(...,
by=...)`` on the whole table. The groups' summaries are held in memory (``memory`` bounds them).

Probabilities of several classes have no such summary per group yet: their rows (the actual class, the
probabilities and the group) are validated batch by batch (an error names the part and the row), held within
``memory``, and evaluated by group as a table read whole is (:func:`assay.evaluation.evaluate.evaluate`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from assay.errors import InvalidInput
from assay.evaluation.evaluate import evaluate
from assay.evaluation.from_summaries import (
    evaluate_confusion_counts,
    evaluate_score_counts,
)
from assay.evaluation.groups import (
    MAX_GROUPS,
    GroupedEvaluation,
    group_options,
    grouped,
)
from assay.evaluation.options import Options
from assay.evaluation.positive import choose_positive
from assay.evaluation.probabilistic import check_rows
from assay.evaluation.stream import located
from assay.inputs import as_proba, as_scores, sorted_labels
from assay.summaries.confusion import ConfusionCounts
from assay.summaries.scores import ScoreCounts

__all__ = ["evaluate_batches_by", "grouped_scores", "grouped_labels", "probabilities_by", "ENTRY_BYTES"]

ENTRY_BYTES = 24
"""Bytes of a summary's entry held in memory (a score and two counts)."""

SINGLE = "has a single class ({label!r}); at least two classes are needed to evaluate a classifier"


def _text(values: Any) -> np.ndarray:
    """A column's values as text (as the labels of a table read whole are)."""
    array = np.asarray(values, dtype=object)
    return np.array(["" if v is None else str(v) for v in array], dtype=object)


def evaluate_batches_by(items: Iterable[tuple[str | None, int, Any, Any, Sequence[Any]]], *, by: Sequence[str],
                        kind: str, names: Mapping[str, str], options: Options, positive: Any = None,
                        score_name: str | None = None, memory: int | None = None) -> GroupedEvaluation:
    """The evaluation of every group of the ``by`` columns, of batches ``(part, first row, truth, prediction,
    [group columns])`` (``kind``: "y_score" or "y_pred")."""
    if kind == "y_proba":
        return probabilities_by(items, by=by, names=names, options=options, positive=positive, memory=memory)
    if kind not in ("y_score", "y_pred"):
        raise InvalidInput(f"groups of data read in batches take scores, probabilities or predicted labels, not "
                           f"{kind}", field="by")
    scores: dict[str, ScoreCounts] = {}
    pairs: dict[str, dict[tuple[str, str], int]] = {}
    seen: list[str] = []  # the truth's labels in the order met: the second one counted as positive
    held = 0
    for part, first_row, y_true, prediction, columns in items:
        truth = _text(y_true)
        keys = _text(columns[0]) if len(columns) == 1 else \
            np.array([" / ".join(parts) for parts in zip(*(_text(c) for c in columns))], dtype=object)
        for label in dict.fromkeys(truth.tolist()):
            if label not in seen:
                seen.append(label)
        if kind == "y_score" and len(seen) > 2:
            raise located(InvalidInput(f"has {len(seen)} classes; a score column needs two", field="y_true"),
                          part, first_row, names)
        try:
            values = as_scores(prediction, "y_score") if kind == "y_score" else _text(prediction)
        except InvalidInput as e:
            raise located(e, part, first_row, names) from None
        groups, codes = np.unique(keys.astype(str), return_inverse=True)
        for g, key in enumerate(groups):
            rows = codes == g
            if kind == "y_score":
                part_counts = ScoreCounts.from_arrays(truth[rows] == seen[-1] if len(seen) == 2 else
                                                      np.zeros(int(rows.sum()), dtype=bool), values[rows],
                                                      labels=("0", "1"))
                before = len(scores[key]) if key in scores else 0
                scores[key] = scores[key].merge(part_counts) if key in scores else part_counts
                held += len(scores[key]) - before
            else:
                counted = pairs.setdefault(key, {})
                found, counts = np.unique(np.stack([truth[rows].astype(str), values[rows].astype(str)]), axis=1,
                                          return_counts=True)
                for (t, p), c in zip(found.T.tolist(), counts.tolist(), strict=True):
                    counted[(t, p)] = counted.get((t, p), 0) + int(c)
        if len(scores) + len(pairs) > MAX_GROUPS:
            raise InvalidInput(f"more than {MAX_GROUPS:,} groups (is it a column of ids?)", field=f"by {by[0]}")
        if memory is not None and held * ENTRY_BYTES > memory:
            raise InvalidInput(f"the groups' summaries ({held:,} distinct scores) exceed the memory budget: groups "
                               "of data read in batches keep them in memory (a larger --memory, or fewer groups)",
                               field="by")
    if not seen:
        raise InvalidInput("no instances to evaluate", field="y_true")
    if kind == "y_score":
        return grouped_scores(scores, seen, by, options, positive, score_name)
    return grouped_labels(pairs, by, options, positive)


def probabilities_by(items: Iterable[tuple[str | None, int, Any, Any, Sequence[Any]]], *, by: Sequence[str],
                      names: Mapping[str, str], options: Options, positive: Any, memory: int | None
                      ) -> GroupedEvaluation:
    """Probabilities by group, read in batches (of files, or of Spark's partitions): each batch validated where
    it is (part and row named), the rows held (within ``memory``: the probabilities, 8 bytes each, and the class
    and groups), then evaluated by group as the whole table is."""
    truths: list[np.ndarray] = []
    matrices: list[np.ndarray] = []
    keys: list[list[np.ndarray]] = [[] for _ in by]
    columns: list[Any] | None = None
    held = 0
    for part, first_row, y_true, proba, groups in items:
        try:
            matrix, found = as_proba(proba)
            check_rows(matrix)
        except InvalidInput as e:
            raise located(e, part, first_row, names) from None
        if columns is None:
            columns = list(found)
        truths.append(_text(y_true))
        matrices.append(matrix)
        for held_keys, column in zip(keys, groups, strict=True):
            held_keys.append(_text(column))
        held += matrix.nbytes + 8 * len(matrix) * (1 + len(by))
        if memory is not None and held > memory:
            raise InvalidInput(f"probabilities by group read in batches are held in memory, and "
                               f"{sum(len(m) for m in matrices):,} rows already exceed the memory budget (a larger "
                               "--memory, or fewer rows)", field="by")
    if columns is None:
        raise InvalidInput("no instances to evaluate", field="y_true")
    matrix = np.concatenate(matrices)
    return evaluate(np.concatenate(truths), y_proba={label: matrix[:, j] for j, label in enumerate(columns)},
                    by={column: np.concatenate(parts) for column, parts in zip(by, keys, strict=True)},
                    positive=positive, options=options)


def grouped_scores(scores: dict[str, ScoreCounts], seen: list[str], by: Sequence[str], options: Options,
                   positive: Any, score_name: str | None) -> GroupedEvaluation:
    """The report by group from each group's score summary, counted with ``seen[1]`` as the positive class
    (``seen``: the truth's labels, in the order met), whichever engine counted them."""
    labels = tuple(sorted_labels(seen))
    if len(labels) < 2:
        raise InvalidInput(SINGLE.format(label=labels[0]), field="y_true")
    reference = seen[1]  # the class counted as positive
    chosen, why = choose_positive(labels, positive=positive, score_name=score_name)
    negative = next(label for label in labels if label != reference)

    def as_chosen(summary: ScoreCounts) -> ScoreCounts:
        counted = summary.relabelled((negative, reference))
        return counted if chosen == reference else counted.relabelled((reference, chosen), swap=True)

    keys = sorted(scores)
    total = scores[keys[0]]
    for key in keys[1:]:
        total = total.merge(scores[key])
    overall = evaluate_score_counts(as_chosen(total), labels, chosen, why, options)
    own, notes = group_options(options, overall)
    summaries = {key: as_chosen(scores[key]) for key in keys}

    def report(summary: ScoreCounts) -> Any:
        present = [label for label, n in ((summary.labels[1], summary.n_positive),
                                          (summary.labels[0], summary.n_negative)) if n > 0]
        if len(present) < 2:  # as the rows of one class are refused in memory
            raise InvalidInput(SINGLE.format(label=present[0]), field="y_true")
        return evaluate_score_counts(summary, labels, chosen, why, own)

    return grouped(tuple(by), overall, {key: (lambda s=s: report(s)) for key, s in summaries.items()},
                   {key: int(s.n_positive + s.n_negative) for key, s in summaries.items()}, options, notes)


def grouped_labels(pairs: dict[str, dict[tuple[str, str], int]], by: Sequence[str], options: Options,
                   positive: Any) -> GroupedEvaluation:
    """The report by group from each group's counts of (actual, predicted) labels, whichever engine counted
    them."""
    def matrix(counted: Mapping[tuple[str, str], int]) -> ConfusionCounts:
        labels = tuple(sorted_labels(list(dict.fromkeys(label for pair in counted for label in pair))))
        index = {label: i for i, label in enumerate(labels)}
        counts = np.zeros((len(labels), len(labels)), dtype=np.int64)
        for (t, p), c in counted.items():
            counts[index[t], index[p]] += c
        return ConfusionCounts(labels, counts)

    keys = sorted(pairs)
    everything: dict[tuple[str, str], int] = {}
    for key in keys:
        for pair, c in pairs[key].items():
            everything[pair] = everything.get(pair, 0) + c
    overall = evaluate_confusion_counts(matrix(everything), options, positive=positive)
    own, notes = group_options(options, overall)
    matrices = {key: matrix(pairs[key]) for key in keys}
    return grouped(tuple(by), overall,
                   {key: (lambda cm=cm: evaluate_confusion_counts(cm, own, positive=positive))
                    for key, cm in matrices.items()},
                   {key: int(cm.n) for key, cm in matrices.items()}, options, notes)
