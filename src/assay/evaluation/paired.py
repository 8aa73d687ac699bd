"""Models compared on the same instances read in batches: ``assay.compare_batches``, exact at any size.

Columns of predictions of the same rows (one per model), read a batch at a time, give the comparison
:func:`assay.compare` gives on the whole table, test for test:

- **Predicted labels** (one pass): each model's confusion counts, and for every pair the instances grouped
  by (actual class, prediction 1, prediction 2) with each group's first row
  (:class:`assay.summaries.paired.JointGroups`): McNemar's table, and the paired bootstrap of the accuracy
  difference drawn from the groups in the order of their first instance, as in memory, so that the same
  seed gives the same replicates. Three models or more: Cochran's Q from its totals.
- **Scores** (two passes): the first gathers each model's score summary within the memory budget (on
  disk beyond it, as ``evaluate_batches`` does) and gives each model's whole report, its threshold and
  its AUC. A placement value (DeLong 1988) depends only on an instance's score and class, so the second
  pass scatters the instances into buckets of each model's scores in turn, cut from its summary, and
  counts each bucket on its own (:mod:`assay.summaries.placements`: no summary read again), and adds up,
  by class, the moments of the placements and of every pair's differences about the AUCs
  (:class:`assay.summaries.paired.PlacementMoments`): DeLong's paired test, equal to
  :func:`assay.delong_test` on the whole columns up to floating-point rounding (1e-9 in the tests). With
  a threshold, the same pass counts the predicted labels' groups. Where the options settle how each report
  ranks and cuts the scores (a direction given, a threshold given or none), the second pass reads the
  batches while the reports are made (checked against them after: read again otherwise).
"""

from __future__ import annotations

import itertools
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import replace
from itertools import combinations
from typing import Any, NamedTuple

import numpy as np

from assay.errors import InvalidInput
from assay.evaluation.comparison import (
    Comparison,
    assemble,
    check_names,
    decision_differences,
    decision_options,
    default_names,
    refuse_labels_decision,
)
from assay.evaluation.directions import directed
from assay.evaluation.from_summaries import (
    evaluate_confusion_counts,
    evaluate_score_counts,
)
from assay.evaluation.options import Options, keywords_of, options_from
from assay.evaluation.positive import choose_positive, positive_class
from assay.evaluation.stream import SCAN_THREADS, located, score_summaries
from assay.evaluation.thresholds import resolve_threshold
from assay.inference.cochran import cochran_q_from_totals
from assay.inference.mcnemar import mcnemar
from assay.inference.paired_bootstrap import paired_bootstrap_groups
from assay.inference.roc_compare import paired_delong
from assay.inputs import as_scores, encode_labels, sorted_labels
from assay.limits import MAX_CLASSES
from assay.metrics.confusion import accuracy
from assay.metrics.decision import joint_bins
from assay.metrics.ranking import threshold_counts
from assay.summaries.confusion import ConfusionCounts
from assay.summaries.paired import (
    CochranTotals,
    JointGroups,
    PlacementMoments,
    joint_cells,
)
from assay.summaries.placements import PlacementPass, WiderKeys, bucket_rows, cuts

__all__ = ["compare_batches", "model_columns", "own_options", "pair_tests", "refuse_score_options", "score_pair_tests",
           "cochran_of"]

Batches = Callable[[], Iterable[Any]] | Sequence[Any]


def compare_batches(
    batches: Batches,
    *,
    kind: str = "y_score",
    names: Sequence[str] | None = None,
    columns: Mapping[str, str] | None = None,
    labels: Sequence[Any] | None = None,
    positive: Any = None,
    pos_label: Any = None,
    threshold: float | None = None,
    confidence: float = 0.95,
    bootstrap: int = 2000,
    seed: int = 0,
    costs: Any = None,
    prevalence: float | None = None,
    adjust: str = "holm",
    direction: str = "higher",
    net_benefit: bool = False,
    thresholds_range: tuple[float, ...] | None = None,
    memory: int | None = None,
    progress: Callable[[int], None] | None = None,
    options: Options | None = None,
) -> Comparison:
    """Compare two or more models on the same instances given in batches: what :func:`assay.compare` gives
    on the whole table, exact (see the module's docstring for how).

    Parameters
    ----------
    batches : sequence, or a function returning an iterable
        Each item is ``(y_true, [model 1's column, model 2's, ...])`` or ``(part, first_row, y_true,
        [columns])`` so that errors name the part and its row. Scores are read twice: give a sequence (a
        list of batches) or a function that starts the batches again each time it is called.
    kind : {"y_score", "y_pred"}
        What the columns hold: scores of the positive class (two classes), or predicted labels.
    names : sequence of str, optional
        One distinct name per model; by default "A", "B", "C", ...
    columns : mapping, optional
        How errors name the columns (``{"y_true": "column 'y'", "y_score[0]": "column 'p_tree'"}``).
    labels, positive, threshold, confidence, bootstrap, seed, costs, prevalence, adjust, direction, options
        As for :func:`assay.compare`.
    memory : int, optional
        A budget in bytes for the score summaries (shared by the models): beyond it they are spilled to
        temporary files, exact all the same. None: no budget.
    progress : callable (rows read), optional
        Called after each batch of each pass.

    Returns
    -------
    Comparison
        As :func:`assay.compare` gives it.

    Examples
    --------
    >>> parts = [([1, 1, 0], [[0.9, 0.8, 0.3], [0.7, 0.4, 0.6]]), ([0, 1, 0], [[0.2, 0.6, 0.1], [0.5, 0.9, 0.2]])]
    >>> c = compare_batches(parts, names=["new", "old"])
    >>> round(c.tests["delong"].difference, 4), c.tests["mcnemar"].b, c.tests["mcnemar"].c
    (0.2222, 3, 0)
    """
    options = options_from(options, keywords_of(locals()))
    if not isinstance(kind, str) or kind not in ("y_score", "y_pred"):
        raise InvalidInput(f"{kind!r} is not one of ['y_score', 'y_pred'] (class probabilities of several "
                           "classes are compared in memory)", field="kind")
    start = _restartable(batches, two_passes=kind == "y_score")
    columns = dict(columns or {})
    positive = positive_class(positive, pos_label)
    fixed = None if labels is None else list(encode_labels({"labels": list(labels)}, labels=list(labels)).labels)
    items = iter(_items(start()))
    first = next(items, None)
    if first is None:
        raise InvalidInput("no instances to compare", field=columns.get("y_true", "y_true"))
    m = len(first[3])
    model_names = _names(names, m)
    first_pass = itertools.chain([first], items)  # the batches read once: the first one included
    if kind == "y_pred":
        refuse_score_options(options)
        return _compare_labels(first_pass, m, model_names, columns, fixed, positive, options, adjust, progress)
    return _compare_scores(first_pass, start, m, model_names, columns, fixed, positive, options, adjust, memory,
                           progress)


def model_columns(scores: Sequence[str] | None, preds: Sequence[str] | None) -> list[str]:
    """The models' columns of a table, given as ``scores`` or as ``preds`` (two or more names)."""
    if (scores is None) == (preds is None):
        raise InvalidInput("give the models' columns as scores or as preds (one of the two)", field="scores")
    given = scores if scores is not None else preds
    field = "scores" if scores is not None else "preds"
    if isinstance(given, str) or not all(isinstance(c, str) for c in given) or len(given) < 2:
        raise InvalidInput("expected two column names or more, one per model", field=field)
    return list(given)


def refuse_score_options(options: Options) -> None:
    """A direction or a threshold given for models that give predicted labels: refused, never ignored."""
    if options.direction != "higher":
        raise InvalidInput("a direction applies to models given as scores ({option:y_score}): none of these is",
                           field="direction")
    if options.threshold is not None:
        raise InvalidInput("a threshold applies to scores or probabilities, not to predicted labels",
                           field="threshold")
    refuse_labels_decision(options, "")


def _restartable(batches: Batches, *, two_passes: bool) -> Callable[[], Iterable[Any]]:
    """A function that starts the batches (again)."""
    if callable(batches):
        return batches
    if isinstance(batches, (str, bytes)) or not hasattr(batches, "__iter__"):
        raise InvalidInput(f"expected batches, got {type(batches).__name__}", field="batches")
    if two_passes and iter(batches) is batches:
        raise InvalidInput("scores are read twice: give a list of batches, or a function that starts them again",
                           field="batches")
    return lambda: batches


def _items(batches: Iterable[Any]) -> Iterable[tuple[str | None, int, Any, list[Any]]]:
    """(part, first row, truth, [columns]) from each item."""
    for item in batches:
        if isinstance(item, tuple) and len(item) == 4:
            part, row, y_true, given = item
        elif isinstance(item, tuple) and len(item) == 2:
            part, row, (y_true, given) = None, 1, item
        else:
            raise InvalidInput(f"expected (y_true, [columns]) pairs, got {type(item).__name__}", field="batches")
        if isinstance(given, (str, bytes)) or not isinstance(given, Sequence) or len(given) < 2:
            raise InvalidInput("expected a list of two columns or more, one per model", field="batches")
        yield part, row, y_true, list(given)


def _names(names: Sequence[str] | None, m: int) -> tuple[str, ...]:
    return check_names(default_names(m) if names is None else names, m)


def own_options(options: Options, scores: bool) -> Options:
    """One model's options, as :func:`assay.compare` evaluates each: the threshold and the direction for
    scores, the confidence and the resampling."""
    return Options(threshold=options.threshold if scores else None, direction=options.direction if scores else
                   "higher", confidence=options.confidence, bootstrap=options.bootstrap, seed=options.seed,
                   **decision_options(options, scores))


def pair_tests(groups: JointGroups | None, labels: Sequence[str], options: Options,
                delong: Any = None) -> tuple[dict[str, Any], int | None]:
    tests: dict[str, Any] = {}
    discordant = None
    if groups is not None:
        table = groups.table()
        discordant = int(table[0, 1] + table[1, 0])
        tests["mcnemar"] = mcnemar(table, method="exact" if discordant < 25 else "chi2-corrected")
        cells, counts = groups.cells(labels)
        tests["accuracy_difference"] = paired_bootstrap_groups(
            cells, counts, len(labels), accuracy, confidence=options.confidence, resamples=options.bootstrap,
            seed=options.seed)
    if delong is not None:
        tests["delong"] = delong
    return tests, discordant


def _compare_labels(items: Iterable[Any], m: int, names: tuple[str, ...], columns: Mapping[str, str],
                    fixed: list[str] | None, positive: Any, options: Options, adjust: str,
                    progress: Callable[[int], None] | None) -> Comparison:
    """Predicted labels, one pass: confusion counts, the groups of every pair, Cochran's totals."""
    fields = [f"y_pred[{i}]" for i in range(m)]
    pairs = list(combinations(range(m), 2))
    groups = [JointGroups() for _ in pairs]
    cochran = CochranTotals(m)
    matrices: list[ConfusionCounts | None] = [None] * m
    row = done = 0
    for part, first_row, y_true, given in items:
        if len(given) != m:
            raise located(InvalidInput(f"expected {m} columns, got {len(given)}", field="batches"), part,
                          first_row, columns)
        try:
            enc = encode_labels({"y_true": y_true, **dict(zip(fields, given, strict=True))}, labels=fixed)
        except InvalidInput as e:
            raise located(e, part, first_row, columns) from None
        truth = enc.codes["y_true"]
        preds = [enc.codes[f] for f in fields]
        for i, pred in enumerate(preds):
            cm = ConfusionCounts.from_codes(truth, pred, labels=enc.labels)
            matrices[i] = cm if matrices[i] is None else _merged(matrices[i], cm, fixed, columns)
        for g, (i, j) in zip(groups, pairs, strict=True):
            g.add(enc.labels, truth, preds[i], preds[j], row)
        if m > 2:
            cochran.add(np.column_stack([pred == truth for pred in preds]))
        row += len(truth)
        done += len(truth)
        if progress is not None:
            progress(done)
    if row == 0:
        raise InvalidInput("no instances to compare", field=columns.get("y_true", "y_true"))
    labels = tuple(fixed) if fixed is not None else \
        tuple(sorted_labels(list(dict.fromkeys(label for cm in matrices for label in cm.labels))))
    reports = []
    for cm, name in zip(matrices, names, strict=True):
        try:
            reports.append(evaluate_confusion_counts(cm.with_labels(labels), own_options(options, False),
                                                     positive=positive))
        except InvalidInput as e:
            raise InvalidInput(e.problem, field=f"{name} {e.field}" if e.field else name, row=e.row) from None
    tests = [pair_tests(g, labels, options) for g in groups]
    return assemble(names, reports, tests, cochran_of(cochran if m > 2 else None), [None] * m, options, adjust)


def _merged(total: ConfusionCounts, cm: ConfusionCounts, fixed: list[str] | None,
            columns: Mapping[str, str]) -> ConfusionCounts:
    union = tuple(sorted_labels(list(dict.fromkeys(total.labels + cm.labels)))) if fixed is None else tuple(fixed)
    if len(union) > MAX_CLASSES:
        raise InvalidInput(f"holds more than {MAX_CLASSES:,} distinct values: assay evaluates at most "
                           f"{MAX_CLASSES:,} classes", field=columns.get("y_true", "y_true"))
    return total.with_labels(union).merge(cm.with_labels(union))


def _compare_scores(items: Iterable[Any], start: Callable[[], Iterable[Any]], m: int, names: tuple[str, ...],
                    columns: Mapping[str, str], fixed: list[str] | None, positive: Any, options: Options, adjust: str,
                    memory: int | None, progress: Callable[[int], None] | None) -> Comparison:
    """Scores, two passes: the summaries and reports (``items``, the batches started), then the placements and
    predicted labels (the batches started again)."""
    done = 0

    def counted(items: Iterable[Any]) -> Iterable[Any]:
        nonlocal done
        for item in items:
            if len(item[3]) != m:
                raise located(InvalidInput(f"expected {m} columns, got {len(item[3])}", field="batches"), item[0],
                              item[1], columns)
            yield item
            done += len(item[3][0])
            if progress is not None:
                progress(done)

    summaries, labels, reference = score_summaries(counted(items), columns, fixed, memory, m)
    chosen, why = choose_positive(labels, positive=positive)
    if len(labels) != 2:
        what = "a single class" if len(labels) == 1 else f"{len(labels)} classes"
        raise InvalidInput(f"has {what}; a score column needs two", field=columns.get("y_true", "y_true"))
    if chosen != reference:  # the summaries counted the other class as positive: turned round
        summaries = [s.relabelled((reference, chosen), swap=True) for s in summaries]

    def second_pass(plans: list[_Plan]) -> _SecondPass:
        ranked = [directed(summary, plan.direction, [])[0] for summary, plan in zip(summaries, plans, strict=True)]
        return _SecondPass(lambda: counted(_items(start())), labels, chosen, plans, ranked, columns, memory,
                           options.decision_thresholds if options.net_benefit else None)

    foreseen = _foreseen(summaries, options)
    passes = [] if foreseen is None else [second_pass(foreseen)]  # read again beside the reports
    try:
        if passes:
            passes[0].start()
        reports = []
        for summary, name in zip(summaries, names, strict=True):
            try:
                reports.append(evaluate_score_counts(summary, labels, chosen, why, own_options(options, True)))
            except InvalidInput as e:
                raise InvalidInput(e.problem, field=f"{name} {e.field}" if e.field else name, row=e.row) from None
        plans = [_Plan(r.direction, r.threshold if r.thresholded else None) for r in reports]
        if passes and plans == foreseen:
            passes[0].join()
        else:  # the reports chose otherwise (or nothing was foreseen): read again now
            for p in passes:
                p.close()
            passes = [second_pass(plans)]
            passes[0].read()
        second = passes[0]
        moments = second.moments([r.ranking.roc_auc.value for r in reports])
    finally:
        for p in passes:
            p.close()
    result = assemble(names, reports, score_pair_tests(moments, second.groups, labels, options),
                      cochran_of(second.cochran), [r.direction for r in reports], options, adjust)
    if second.decision is None:
        return result
    return replace(result, net_benefit_differences=decision_differences(names, second.decision, options))


def cochran_of(totals: CochranTotals | None) -> Any:
    """Cochran's Q of three models or more from their totals (None: two models, or no predicted labels)."""
    return None if totals is None else cochran_q_from_totals(totals.correct, totals.row_squares, totals.n)


def score_pair_tests(moments: PlacementMoments, groups: list[JointGroups] | None, labels: Sequence[str],
                     options: Options) -> list[tuple[dict[str, Any], int | None]]:
    """The tests of every pair of score models, (0, 1), (0, 2), ..., (1, 2), ...: DeLong's paired test from
    the placements' moments, and McNemar's and the paired bootstrap from the groups (None: no threshold)."""
    n_pos, n_neg = int(moments.n[0]), int(moments.n[1])
    tests = []
    for q, (i, j) in enumerate(moments.pairs):
        variances = moments.variances(i, j) if min(n_pos, n_neg) >= 2 else (float("nan"),) * 3
        delong = paired_delong(moments.auc(i), moments.auc(j), *variances, n_pos, n_neg, options.confidence)
        tests.append(pair_tests(groups[q] if groups else None, labels, options, delong))
    return tests


class _Plan(NamedTuple):
    """How a model's report ranks its scores and where it cuts them: its direction, and its threshold (None:
    no predicted labels)."""

    direction: str
    threshold: float | None


def _foreseen(summaries: list[Any], options: Options) -> list[_Plan] | None:
    """Each model's plan as its report will make it, where the options and the scores' ends settle it (a
    direction given, a threshold given or none): the second pass then reads the batches again while the
    reports are made, and the reports' plans are checked against these. None where a report chooses (a
    direction chosen on the data, a criterion's threshold)."""
    if options.direction not in ("higher", "lower") or isinstance(options.threshold, str):
        return None
    plans = []
    for summary in summaries:
        low, high = float(summary.scores[-1]), float(summary.scores[0])
        if options.threshold is None and (low < 0 or high > 1):  # not probabilities: no predicted labels
            plans.append(_Plan(options.direction, None))
            continue
        try:
            plans.append(_Plan(options.direction, resolve_threshold(options.threshold, np.array([low, high]))))
        except InvalidInput:  # the report says so
            return None
    return plans


class _SecondPass:
    """The second pass over the batches (``start`` starts them again): each instance's placements under every
    model, paired (:mod:`assay.summaries.placements`: the models' buckets cut from their summaries ``ranked``,
    as ``plans`` rank the scores), and the predicted labels' groups at each model's threshold.

    ``read`` the batches (or ``start`` reading them on a thread of its own, then ``join``), then ``moments``
    about the models' AUCs; ``close`` (also on errors, or to stop a reading thread). Read once more, with
    8-byte keys, should a model's scores read as float32 hold a value no float32 equals further on."""

    def __init__(self, start: Callable[[], Iterable[Any]], labels: tuple[str, ...], chosen: str, plans: list[_Plan],
                 ranked: list[Any], columns: Mapping[str, str], memory: int | None,
                 thresholds: np.ndarray | None = None) -> None:
        self.started, self.labels, self.chosen, self.plans = start, labels, chosen, plans
        self.thresholds = thresholds  # the decision curves' threshold probabilities, when asked for
        self.decision: list[np.ndarray] | None = None  # each pair's joint counts (metrics.decision.joint_bins)
        self.ranked, self.columns, self.memory = ranked, columns, memory
        self.m = len(plans)
        self.rows = bucket_rows(memory, SCAN_THREADS, int(ranked[0].n_positive + ranked[0].n_negative))
        self.pool = ThreadPoolExecutor(max_workers=SCAN_THREADS, thread_name_prefix="assay-paired")
        self.placements: PlacementPass | None = None
        self.groups: list[JointGroups] | None = None
        self.cochran: CochranTotals | None = None
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        self._stop = threading.Event()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._read_here, name="assay-paired-reading", daemon=True)
        self._thread.start()

    def _read_here(self) -> None:
        try:
            self.read()
        except BaseException as e:  # noqa: BLE001 - handed to the thread that joins
            self._error = e

    def join(self) -> None:
        assert self._thread is not None
        self._thread.join()
        self._thread = None
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def read(self) -> None:
        model_cuts = list(self.pool.map(lambda summary: cuts(summary.scores, *_cumulative(summary), self.rows),
                                        self.ranked))
        wide: list[bool | None] = [None] * self.m
        while True:
            try:
                self._read(model_cuts, wide)
                return
            except WiderKeys as e:
                wide[e.model] = True

    def _read(self, model_cuts: list[Any], wide: list[bool | None]) -> None:
        """One pass over the batches: each decoded and keyed on a worker thread (its instances scattered into
        model 0's buckets, its groups of predicted labels counted), taken here in the order read. ``wide``:
        each model's keys of 8 bytes (None: as its scores come in the first batch)."""
        m, labels, plans = self.m, self.labels, self.plans
        p = labels.index(self.chosen)
        thresholded = all(plan.threshold is not None for plan in plans)
        pairs = list(combinations(range(m), 2))
        groups = [JointGroups() for _ in pairs] if thresholded else None
        cochran = CochranTotals(m) if thresholded and m > 2 else None
        grid = self.thresholds
        decision = None if grid is None else [np.zeros(2 * (len(grid) + 1) ** 2) for _ in pairs]

        def decoded(item: tuple[Any, ...]) -> tuple[np.ndarray, list[np.ndarray]]:
            part, first_row, y_true, given = item
            try:
                truth = encode_labels({"y_true": y_true}, labels=list(labels)).codes["y_true"]
                scores = [as_scores(column, f"y_score[{i}]") for i, column in enumerate(given)]
                for i, s in enumerate(scores):
                    if len(s) != len(truth):
                        raise InvalidInput(f"has {len(s)} values but y_true has {len(truth)}", field=f"y_score[{i}]")
            except InvalidInput as e:  # the file changed between the passes
                raise located(e, part, first_row, self.columns) from None
            return truth, scores

        def prepared(truth: np.ndarray, scores: list[np.ndarray]) -> tuple[int, Any, Any, Any, Any]:
            keyed = placements.keyed(truth == p, scores)
            cells = correct = None
            joint = None if grid is None else [joint_bins(truth == p, scores[i], scores[j], grid) for i, j in pairs]
            if thresholded:
                preds = []
                for s, plan in zip(scores, plans, strict=True):
                    side = s <= plan.threshold if plan.direction == "lower" else s >= plan.threshold  # positive
                    preds.append((side if p == 1 else ~side).view(np.int8))  # the predicted class's code
                cells = [joint_cells(len(labels), truth, preds[i], preds[j]) for i, j in pairs]
                if cochran is not None:
                    correct = np.column_stack([pred == truth for pred in preds])
            return len(truth), keyed, cells, correct, joint

        row = 0

        def take(result: tuple[int, Any, Any, Any, Any]) -> None:
            nonlocal row
            n, keyed, cells, correct, joint = result
            placements.add(keyed)
            if decision is not None:
                for total, counts in zip(decision, joint, strict=True):
                    total += counts
            if groups is not None:
                for g, c in zip(groups, cells, strict=True):
                    g.add_cells(labels, *c, row)
            if cochran is not None:
                cochran.add(correct)
            row += n

        items = iter(self.started())
        first = next(items, None)
        head = None if first is None else decoded(first)
        widths = [bool(w) if w is not None or head is None else bool(head[1][i].dtype != np.float32)
                  for i, w in enumerate(wide)]
        n = int(model_cuts[0].positives.sum() + model_cuts[0].negatives.sum())
        held = 2 * n * sum(8 if w else 4 for w in widths)  # the records of two models' buckets, at once
        if self.placements is not None:
            self.placements.close()
        placements = self.placements = PlacementPass(
            model_cuts, wide=widths, lower=[plan.direction == "lower" for plan in plans], rows=self.rows,
            in_memory=self.memory is None or held <= self.memory // 8)  # else on disk
        pending: deque[Any] = deque()
        try:
            if head is not None:
                pending.append(self.pool.submit(prepared, *head))
            for item in items:
                if self._stop.is_set():
                    raise _Stopped()
                pending.append(self.pool.submit(lambda item: prepared(*decoded(item)), item))
                while len(pending) > SCAN_THREADS:
                    take(pending.popleft().result())
            while pending:
                take(pending.popleft().result())
        finally:
            for future in pending:
                future.cancel()
            wait(pending)
        self.groups, self.cochran, self.decision = groups, cochran, decision

    def moments(self, aucs: list[float]) -> PlacementMoments:
        """The placements' moments about the models' AUCs, the buckets worked model after model."""
        assert self.placements is not None
        return self.placements.moments(aucs, self.pool, SCAN_THREADS)

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self.placements is not None:
            self.placements.close()
            self.placements = None
        self.pool.shutdown(wait=True, cancel_futures=True)


class _Stopped(Exception):
    """A second pass read on a thread of its own, stopped (its result is not wanted)."""


def _cumulative(summary: Any) -> tuple[Any, Any]:
    """A summary's cumulative counts (tp, fp)."""
    tc = threshold_counts(summary)
    return tc.tp, tc.fp
