"""An evaluation for every subgroup (``by=``), and the gaps between the groups.

:func:`evaluate_groups` evaluates all the instances, then each group with the same options (every metric with
its interval, the AUC with DeLong's, calibration: whatever the report gives), and for two-class predicted
labels compares the groups' rates (selection rate, true and false positive rates, accuracy: each group against
the rest, the differences with their intervals and tests, Holm-adjusted), the usual disparity summaries of
``fairlearn.metrics`` with bootstrap intervals (:mod:`assay.inference.groups`), with scores each group's
AUC against the rest's (DeLong's unpaired test), and with two-class probabilities whether each group's are
calibrated (its calibration intercept tested against 0 and its slope against 1, Holm-adjusted over the
groups). A threshold chosen on the data (``youden``, ...) is chosen once, on all the instances, and applied to
every group, so that the groups are compared at one threshold. A group too small to conclude anything is named
in a warning rather than shown as a bare number.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from assay.errors import InvalidInput
from assay.evaluation import display
from assay.evaluation.options import Options
from assay.evaluation.result import Evaluation
from assay.evaluation.tidy import to_frame
from assay.inference.calibration_curve import band_share
from assay.inference.estimate import Estimate, finite_or_none
from assay.inference.groups import SUMMARIES, GroupTest, disparities, group_tests
from assay.inference.multiple import adjust as adjusted_p
from assay.inference.roc_compare import unpaired_auc_test
from assay.inputs import value_codes
from assay.summaries.scores import ScoreCounts

__all__ = ["GroupedEvaluation", "evaluate_groups", "group_codes", "group_options", "grouped", "take_rows",
           "SMALL_GROUP", "MAX_GROUPS"]

SMALL_GROUP = (30, 10)
"""A group with fewer instances than the first number, or fewer of either class than the second, gets a
warning: intervals too wide to conclude."""

MAX_GROUPS = 10_000
"""Groups at most (a column of ids given as groups is refused)."""

MAX_AUC_TESTS = 20
"""Groups whose AUCs are always tested against the rest's; more are tested while the work allows it
(:data:`AUC_TEST_WORK`). Beyond, the groups' AUCs and intervals are given, and a note says the tests are not."""

AUC_TEST_WORK = 25_000_000
"""Groups x distinct scores of all the instances at most for the tests of more than ``MAX_AUC_TESTS`` groups:
each test makes the rest's summary and its DeLong variance, about 90 ns a distinct score (10^6 distinct scores:
0.09 s a group, best of 3, on the 2-core machine of the suite), so about 2 s at most."""


def group_codes(by: Any, n: int) -> tuple[tuple[str, ...], np.ndarray, tuple[str, ...]]:
    """The names of the grouping columns, each instance's group code and the groups' labels (sorted; with
    several columns, their values joined by " / ") from ``by``: one array-like of n values (a pandas Series
    keeps its name), a mapping of names to array-likes, or a pandas DataFrame of several columns."""
    if hasattr(by, "columns") and hasattr(by, "__getitem__") and not isinstance(by, np.ndarray):  # a data frame
        columns = {str(name): by[name] for name in by.columns}
    elif isinstance(by, Mapping):
        columns = {str(name): values for name, values in by.items()}
    else:
        columns = {str(getattr(by, "name", None) or "group"): by}
    if not columns:
        raise InvalidInput("no grouping column", field="by")
    codes = np.zeros(n, dtype=np.int64)
    labels: list[str] = [""]
    for name, column in columns.items():
        own, own_labels = _column_codes(column, name, n)
        codes = codes * len(own_labels) + own  # each combination of the columns' values, its own code
        labels = [f"{a} / {b}" if a else b for a in labels for b in own_labels]
    if len(columns) > 1:  # the combinations present (each column's values all are), counted where they fit
        codes, present = _present_codes(codes, len(labels))
        labels = [labels[i] for i in present]
    if len(labels) > MAX_GROUPS:
        raise InvalidInput(f"{len(labels):,} groups; at most {MAX_GROUPS:,} (is it a column of ids?)",
                           field=f"by {next(iter(columns))}")
    order = sorted(range(len(labels)), key=labels.__getitem__)  # the groups in the order of their labels' text
    rank = np.empty(len(labels), dtype=np.intp)
    rank[order] = np.arange(len(labels))
    codes, labels = rank[codes], [labels[i] for i in order]
    return tuple(columns), codes.astype(np.intp), tuple(labels)


def _present_codes(codes: np.ndarray, space: int) -> tuple[np.ndarray, np.ndarray]:
    """Codes renumbered 0, 1, ... over the values present, and those values (increasing), of codes within
    [0, space): by counting when the space is at most 4 codes an instance, else by sorting."""
    if space <= 4 * max(len(codes), 1 << 16):
        present = np.flatnonzero(np.bincount(codes, minlength=space))
        renumbered = np.zeros(space, dtype=np.int64)
        renumbered[present] = np.arange(len(present))
        return renumbered[codes], present
    present, codes = np.unique(codes, return_inverse=True)
    return codes.reshape(-1), present


def _column_codes(column: Any, name: str, n: int) -> tuple[np.ndarray, list[str]]:
    """A grouping column's code per instance and its values as text (each text once: 1 and "1" are one group,
    as a table read from a file has them), found by hashing or counting the values, never by sorting them."""
    try:
        codes, distinct = value_codes(column, f"by {name}")
    except InvalidInput as e:
        raise InvalidInput("a missing group value" if e.problem == "missing value" else e.problem, field=e.field,
                           row=e.row) from None
    if len(codes) != n:
        raise InvalidInput(f"has {len(codes)} values but the predictions have {n}", field=f"by {name}")
    text, merged = np.unique(np.array([str(v) for v in distinct], dtype=object).astype(str), return_inverse=True)
    return merged.reshape(-1)[codes].astype(np.int64), [str(t) for t in text]


@dataclass(frozen=True)
class GroupedEvaluation(display.Displayable):
    """All the instances' evaluation (``overall``), each group's (``groups``: label -> Evaluation, None with
    ``skipped`` naming why), and the gaps between the groups (two classes with predicted labels: ``rates`` by
    group, ``tests`` of each group against the rest, ``disparities``; with scores, ``auc_tests``)."""

    by: tuple[str, ...]
    overall: Evaluation
    groups: dict[str, Evaluation | None]
    sizes: dict[str, int]
    skipped: dict[str, str] = field(default_factory=dict)
    rates: dict[str, dict[str, float | None]] = field(default_factory=dict)
    tests: tuple[GroupTest, ...] = ()
    disparities: dict[str, Estimate] = field(default_factory=dict)
    auc_tests: tuple[dict[str, Any], ...] = ()
    calibration_tests: tuple[dict[str, Any], ...] = ()
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def confidence(self) -> float:
        return self.overall.confidence

    def __getitem__(self, group: str) -> Evaluation:
        found = self.groups.get(str(group))
        if found is None:
            raise KeyError(self.skipped.get(str(group), f"no group {group!r}; the groups are: "
                                                        f"{', '.join(map(repr, self.groups))}"))
        return found

    def significant_gaps(self) -> list[GroupTest]:
        """The tests whose Holm-adjusted p-value is below 1 − confidence."""
        return [t for t in self.tests if t.significant(self.confidence)]

    def significant_auc_tests(self) -> list[dict[str, Any]]:
        """The groups whose AUC differs significantly from the rest's (Holm-adjusted DeLong)."""
        return [t for t in self.auc_tests
                if t.get("pvalue_holm") is not None and t["pvalue_holm"] < 1.0 - self.confidence]

    def significant_calibration(self) -> list[dict[str, Any]]:
        """The groups' calibration tests (intercept 0, slope 1) whose Holm-adjusted p-value is below
        1 − confidence."""
        return [t for t in self.calibration_tests
                if t.get("pvalue_holm") is not None and t["pvalue_holm"] < 1.0 - self.confidence]

    def to_dict(self) -> dict[str, Any]:
        """JSON of ``assay report --by``: the report of all the instances (every key of ``assay report``'s),
        with every group's report and the gaps between the groups added."""
        overall = self.overall.to_dict()
        return {
            **overall,
            "by": list(self.by),
            "groups": {label: {"n": self.sizes[label],
                               "report": None if ev is None else ev.to_dict(),
                               "skipped": self.skipped.get(label)}
                       for label, ev in self.groups.items()},
            "group_rates": {label: {rate: finite_or_none(v) for rate, v in values.items()}
                            for label, values in self.rates.items()},
            "group_tests": [t.to_dict() for t in self.tests],
            "disparities": {name: {**e.to_dict(), "title": SUMMARIES[name]} for name, e in self.disparities.items()},
            "group_auc_tests": list(self.auc_tests),
            "group_calibration_tests": list(self.calibration_tests),
            "group_warnings": list(self.warnings),
            "notes": [*overall["notes"], *self.notes],
        }

    def to_frame(self) -> Any:
        """Every estimate as a tidy pandas DataFrame: ``subgroup`` ("(all)", each group's label, "(gaps)"), then
        the columns of ``Evaluation.to_frame()``; the disparity summaries and each group's rates against the rest
        last."""
        return to_frame(self)

    def __str__(self) -> str:
        return display.text(self)


def evaluate_groups(by: Any, n: int, options: Options, evaluate_rows: Callable[[np.ndarray | None, Options],
                                                                                 Evaluation]) -> GroupedEvaluation:
    """The evaluation of all the instances and of each group of ``by`` (see :func:`group_codes`), each made by
    ``evaluate_rows(rows, options)`` (rows None: all of them), and the gaps between the groups."""
    names, codes, labels = group_codes(by, n)
    overall = evaluate_rows(None, options)
    own, notes = group_options(options, overall)
    small = codes.astype(np.int16) if len(labels) <= np.iinfo(np.int16).max else codes
    order = np.argsort(small, kind="stable")  # each group's rows in their order (a radix sort of small codes)
    bounds = np.searchsorted(small[order], np.arange(len(labels) + 1))
    rows = {label: order[bounds[g]:bounds[g + 1]] for g, label in enumerate(labels)}
    return grouped(names, overall, {label: (lambda r=r: evaluate_rows(r, own)) for label, r in rows.items()},
                   {label: len(r) for label, r in rows.items()}, options, notes)


def group_options(options: Options, overall: Evaluation) -> tuple[Options, list[str]]:
    """The options each group is evaluated with: a threshold or direction chosen on the data is the one chosen
    on all the instances (so that the groups are compared at one threshold), and the notes that say so."""
    notes = []
    own = options
    if isinstance(options.threshold, str) and overall.threshold is not None:
        own = options.replace(threshold=float(overall.threshold))
        notes.append(f"the threshold chosen on all the instances ({options.threshold}), {overall.threshold:.6g}, "
                     "applies to every group")
    if options.direction == "auto" and overall.ranking is not None:
        own = own.replace(direction=overall.direction)
        notes.append(f"the direction chosen on all the instances ({overall.direction} scores mean the positive "
                     "class) applies to every group")
    return own, notes


def grouped(names: tuple[str, ...], overall: Evaluation, makers: Mapping[str, Callable[[], Evaluation]],
            sizes: dict[str, int], options: Options, notes: list[str]) -> GroupedEvaluation:
    """The result from the evaluation of all the instances and each group's evaluation as ``makers`` make it (a
    group whose data cannot be evaluated, a single class, ...: None, its reason in ``skipped``), with the small
    groups' warnings and the gaps between the groups. What every path (in memory, in batches, Spark) ends with."""
    groups: dict[str, Evaluation | None] = {}
    skipped: dict[str, str] = {}
    with band_share(1.0 / max(len(makers), 1)):  # the groups' calibration bands together cost about one report's
        for label, make in makers.items():
            try:
                groups[label] = make()
            except InvalidInput as e:
                groups[label], skipped[label] = None, e.describe()
    notes = list(notes)
    if skipped:
        notes.append(f"{len(skipped)} group(s) not evaluated ({', '.join(map(repr, list(skipped)[:5]))}"
                     f"{', ...' if len(skipped) > 5 else ''}), so left out of the gaps between groups")
    warnings = _small(groups, sizes, overall)
    result = GroupedEvaluation(names, overall, groups, sizes, skipped, warnings=tuple(warnings),
                               notes=tuple(notes))
    return _gaps(result, options)


def _small(groups: Mapping[str, Evaluation | None], sizes: Mapping[str, int], overall: Evaluation) -> list[str]:
    least_n, least_class = SMALL_GROUP
    out = []
    for label, ev in groups.items():
        if ev is None:
            continue
        totals = _class_totals(ev)
        fewest = min(totals) if totals else 0
        if sizes[label] < least_n or fewest < least_class:
            out.append(f"group {label!r}: {sizes[label]:,} instances ({fewest:,} in its smallest class): its "
                       "intervals are too wide to conclude much")
    return out


def _class_totals(ev: Evaluation) -> list[int]:
    if ev.confusion is not None:
        return [int(v) for v in np.asarray(ev.confusion.counts).sum(axis=1)]
    return [int(total) for _, total in ev.class_totals]


def _table(ev: Evaluation) -> np.ndarray | None:
    """A two-class evaluation's (TP, FN, FP, TN)."""
    if ev.confusion is None or ev.positive is None or len(ev.labels) != 2:
        return None
    counts = np.asarray(ev.confusion.counts, dtype=np.float64)
    p = list(ev.labels).index(ev.positive)
    q = 1 - p
    return np.array([counts[p, p], counts[p, q], counts[q, p], counts[q, q]])


def _gaps(result: GroupedEvaluation, options: Options) -> GroupedEvaluation:
    evaluated = [(label, ev) for label, ev in result.groups.items() if ev is not None]
    if len(evaluated) < 2:
        return result
    names = [label for label, _ in evaluated]
    changes: dict[str, Any] = {}
    tables = [_table(ev) for _, ev in evaluated]
    if all(t is not None for t in tables):
        stacked = np.array(tables)
        rates = {}
        for label, t in zip(names, stacked, strict=True):
            tp, fn, fp, tn = t
            rates[label] = {
                "selection_rate": (tp + fp) / t.sum() if t.sum() else None,
                "tpr": tp / (tp + fn) if tp + fn else None,
                "fpr": fp / (fp + tn) if fp + tn else None,
                "accuracy": (tp + tn) / t.sum() if t.sum() else None,
            }
        changes["rates"] = rates
        changes["tests"] = tuple(group_tests(names, stacked, confidence=options.confidence))
        changes["disparities"] = disparities(stacked, confidence=options.confidence, resamples=options.bootstrap,
                                             seed=options.seed)
    overall = getattr(result.overall.ranking, "summary", None)
    if len(evaluated) <= MAX_AUC_TESTS or (overall is not None and len(evaluated) * len(overall) <= AUC_TEST_WORK):
        auc = _auc_tests(result, evaluated, options)
        if auc:
            changes["auc_tests"] = auc
    elif any(getattr(ev.ranking, "roc_auc", None) is not None for _, ev in evaluated):
        changes["notes"] = (*result.notes, f"each group's AUC is given with its interval; the tests of each AUC "
                                           f"against the rest's are made for at most {MAX_AUC_TESTS} groups, or "
                                           f"more while groups x distinct scores is at most {AUC_TEST_WORK:,}")
    calibration = _calibration_tests(evaluated)
    if calibration:
        changes["calibration_tests"] = calibration
    return replace(result, **changes)


CALIBRATION_TESTS = (("intercept", "calibration intercept = 0", "intercept_pvalue"),
                     ("slope", "calibration slope = 1", "slope_pvalue"))
"""The two tests of each group's calibration: (the estimate's name, the hypothesis, the p-value's name in
:class:`~assay.inference.calibration.CalibrationHierarchy`)."""


def _calibration_tests(evaluated: Sequence[tuple[str, Evaluation]]) -> tuple[dict[str, Any], ...]:
    """Each group's calibration intercept tested against 0 and slope against 1 (Wald, as its own report gives
    them), the p-values of all the groups' tests adjusted together by Holm's method."""
    found = []
    for label, ev in evaluated:
        h = ev.probabilistic.hierarchy if ev.probabilistic is not None else None
        if h is None:
            continue
        for name, hypothesis, pvalue in CALIBRATION_TESTS:
            e = getattr(h, name)
            found.append({"group": label, "test": name, "hypothesis": hypothesis,
                          "estimate": finite_or_none(e.value),
                          "ci": e.ci.to_list() if e.ci is not None else None,
                          "pvalue": finite_or_none(getattr(h, pvalue)), "method": "Wald z",
                          "note": e.note})
    adjusted = adjusted_p(np.array([np.nan if f["pvalue"] is None else f["pvalue"] for f in found]), "holm")
    for f, a in zip(found, adjusted, strict=True):  # a test not made (NaN) stays so, outside the family
        f["pvalue_holm"] = finite_or_none(float(a))
    return tuple(found)


def _auc_tests(result: GroupedEvaluation, evaluated: Sequence[tuple[str, Evaluation]],
               options: Options) -> tuple[dict[str, Any], ...]:
    """Each group's AUC against the rest's (two groups: against the other), DeLong's unpaired test, the
    p-values adjusted by Holm's method."""
    overall = getattr(result.overall.ranking, "summary", None)
    summaries = [getattr(ev.ranking, "summary", None) for _, ev in evaluated]
    if overall is None or any(s is None or getattr(s, "on_disk", False) for s in [overall, *summaries]):
        return ()
    if any(not hasattr(ev.ranking, "roc_auc") for _, ev in evaluated):
        return ()
    pairs = [(0, summaries[1], evaluated[1][0])] if len(evaluated) == 2 else \
        [(g, _rest(overall, s), "the rest") for g, s in enumerate(summaries)]
    found = []
    for g, other, against in pairs:
        if other is None or other.n_positive == 0 or other.n_negative == 0:
            continue
        t = unpaired_auc_test(summaries[g], other, confidence=options.confidence)
        found.append({"group": evaluated[g][0], "against": against, "auc": finite_or_none(t.auc1),
                      "other": finite_or_none(t.auc2), "difference": finite_or_none(t.difference),
                      "ci": t.ci.to_list() if t.ci is not None else None, "pvalue": finite_or_none(t.pvalue),
                      "test": "DeLong's test for two ROC curves on different instances", "note": t.note})
    pvalues = np.array([np.nan if f["pvalue"] is None else f["pvalue"] for f in found])
    tested = ~np.isnan(pvalues)
    if tested.any():
        adjusted = np.full(len(found), np.nan)
        adjusted[tested] = adjusted_p(pvalues[tested], "holm")
        for f, a in zip(found, adjusted, strict=True):
            f["pvalue_holm"] = finite_or_none(float(a))
    return tuple(found)


def _rest(overall: ScoreCounts, part: ScoreCounts) -> ScoreCounts | None:
    """The counts of the instances outside ``part`` (a group's summary, its scores among the overall's)."""
    scores = np.asarray(overall.scores)
    where = len(scores) - 1 - np.searchsorted(scores[::-1], np.asarray(part.scores))  # both highest first
    if np.any(where < 0) or not np.array_equal(scores[where], part.scores):
        return None
    positives = np.array(overall.positives, copy=True)
    negatives = np.array(overall.negatives, copy=True)
    positives[where] -= part.positives
    negatives[where] -= part.negatives
    keep = (positives + negatives) > 0
    return ScoreCounts(np.asarray(overall.scores)[keep], positives[keep], negatives[keep], overall.labels)


def take_rows(value: Any, rows: np.ndarray | None) -> Any:
    """``value`` (an array-like of one value per instance, a 2-d array, a data frame, or a mapping of class to
    column) at ``rows`` (None: as it is)."""
    if rows is None or value is None:
        return value
    if hasattr(value, "iloc"):  # pandas
        return value.iloc[rows]
    if isinstance(value, Mapping):
        return {key: take_rows(column, rows) for key, column in value.items()}
    if hasattr(value, "columns") and hasattr(value, "__getitem__") and hasattr(value, "select"):  # polars
        return value[rows]
    return np.asarray(value)[rows]
