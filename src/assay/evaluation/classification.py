"""Every label-based metric of a confusion matrix, each with its interval.

Which interval a figure gets follows from what it is:

* a binomial proportion (accuracy, recall, precision, ...): the chosen
  proportion interval, Wilson by default;
* kappa: the large-sample interval of Fleiss, Cohen & Everitt (1969);
* the likelihood ratios: Katz's log interval of a ratio of proportions; the
  diagnostic odds ratio: Woolf's log interval;
* anything else (F1, MCC, balanced accuracy, macro averages, ...): a percentile
  bootstrap that redraws the matrix, seeded, one pass shared by all of them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from assay.evaluation.costs import costs_matrix, expected_cost_estimate
from assay.inference.binomial import NIRTestResult, accuracy_vs_nir
from assay.inference.bootstrap import BootstrapSettings, bootstrap_matrix_ci
from assay.inference.estimate import ConfidenceInterval, Estimate
from assay.inference.kappa import (
    KappaResult,
    agreement_weights,
    kappa_test,
    weighted_kappa_test,
)
from assay.inference.mcnemar import McNemarResult, mcnemar
from assay.inference.proportion import proportion_bounds, wald_note
from assay.inference.ratios import odds_ratio_ci, risk_ratio_ci
from assay.metrics.confusion import (
    BINARY_METRICS,
    MATRIX_METRICS,
    BinaryMetric,
    Cells,
    MatrixMetric,
    expected_random,
    fbeta,
    one_vs_rest,
)
from assay.summaries.confusion import ConfusionCounts

__all__ = ["ConfusionAnalysis", "analyse_confusion", "unthresholded", "threshold_notes", "PER_CLASS_METRICS",
           "AVERAGED_METRICS"]

PER_CLASS_METRICS = ("precision", "recall", "f1", "specificity", "npv", "fpr", "fnr", "fdr")
AVERAGED_METRICS = ("precision", "recall", "f1")


@dataclass(frozen=True)
class ConfusionAnalysis:
    """Estimates of a confusion matrix, ready to render."""
    metrics: dict[str, Estimate]
    per_class: dict[str, dict[str, Any]]
    averages: dict[str, dict[str, Estimate]]
    tests: dict[str, NIRTestResult | McNemarResult | KappaResult]
    matrices: dict[str, list[list[float | None]]]


MAX_CLASSES_BOOTSTRAPPED_PER_CLASS = 100
"""Above this many classes, the per-class F1 (and the like) get no bootstrap interval: each would be another
statistic over every resample, and the report would take minutes. Per-class proportions keep their exact
intervals, and the averages their bootstrap ones."""


WEIGHTED_NOTE = "no interval: the sample weights are not counts"
"""The note of an estimate from weights that are not whole numbers (the report's notes say more)."""


class _Pending:
    """Collects statistics whose interval comes from the one shared bootstrap, and the binomial proportions,
    whose intervals come from one vectorised call (:func:`_proportion_estimates`)."""
    def __init__(self) -> None:
        self.functions: dict[str, Callable[[np.ndarray], np.ndarray]] = {}
        self.proportions: dict[str, tuple[float, float]] = {}  # successes and trials
        self.values: dict[str, float] = {}
        self.skipped: dict[str, str] = {}
        self.skip_note: str | None = None
        self.no_interval: str | None = None  # weights that are not counts: estimates alone, with this note

    def add(self, key: str, value: float, fn: Callable[[np.ndarray], np.ndarray]) -> str:
        """Register a statistic for the bootstrap (or, while ``skip_note`` is set, its value alone)."""
        if self.no_interval is not None or self.skip_note is not None:
            self.skipped[key] = self.no_interval or self.skip_note
        else:
            self.functions[key] = fn
        self.values[key] = value
        return key

    def add_proportion(self, key: str, value: float, successes: float, trials: float) -> str:
        """Register a binomial proportion for the proportions' interval."""
        self.proportions[key] = (successes, trials)
        self.values[key] = value
        return key


def _proportion_estimates(pending: _Pending, confidence: float, interval: str) -> dict[str, Estimate]:
    """Every registered proportion's estimate, the bounds of all of them from one call of
    :func:`proportion_bounds` (elementwise: the same numbers as one call each)."""
    if not pending.proportions:
        return {}
    k, n = (np.array(column, dtype=np.float64) for column in zip(*pending.proportions.values()))
    low, high = proportion_bounds(k, n, confidence=confidence, method=interval)
    return {key: Estimate(pending.values[key], ConfidenceInterval(float(lo), float(hi)), interval,
                          _normal_note(successes, trials, interval))
            for key, successes, trials, lo, hi in zip(pending.proportions, k, n, low, high)}


def _fbeta_metric(beta: float) -> BinaryMetric:
    return BinaryMetric(
        "fbeta",
        f"F-beta score (beta = {beta:g})",
        "(1 + b²) TP / ((1 + b²) TP + b² FN + FP)",
        lambda c: fbeta(c, beta),
        BINARY_METRICS["f1"].undefined,
    )


def _predictive_values(prevalence: float) -> dict[str, BinaryMetric]:
    """PPV and NPV where the classifier will be used: Bayes' rule from sensitivity and specificity at a
    prevalence pi (they do not move with the class balance; predictive values do)."""

    def ppv(c: Cells) -> np.ndarray:
        tp, fp, fn, tn = (np.asarray(x, dtype=np.float64) for x in c)
        with np.errstate(invalid="ignore", divide="ignore"):
            sens, spec = tp / (tp + fn), tn / (tn + fp)
            return sens * prevalence / (sens * prevalence + (1 - spec) * (1 - prevalence))

    def npv(c: Cells) -> np.ndarray:
        tp, fp, fn, tn = (np.asarray(x, dtype=np.float64) for x in c)
        with np.errstate(invalid="ignore", divide="ignore"):
            sens, spec = tp / (tp + fn), tn / (tn + fp)
            return spec * (1 - prevalence) / (spec * (1 - prevalence) + (1 - sens) * prevalence)

    def undefined(c: Cells, P: str, N: str) -> str | None:
        if float(c.tp + c.fn) == 0 or float(c.fp + c.tn) == 0:
            return f"no {P} or no {N}: sensitivity and specificity need both"
        return "nothing predicted on that side at this prevalence (0/0)"

    return {
        "ppv_at_prevalence": BinaryMetric(
            "ppv_at_prevalence", f"PPV at prevalence {prevalence:g}",
            "sens pi / (sens pi + (1 - spec)(1 - pi))", ppv, undefined),
        "npv_at_prevalence": BinaryMetric(
            "npv_at_prevalence", f"NPV at prevalence {prevalence:g}",
            "spec (1 - pi) / (spec (1 - pi) + (1 - sens) pi)", npv, undefined),
    }


def _binary_estimate(
    spec: BinaryMetric,
    cells: Cells,
    cells_of: Callable[[np.ndarray], Cells],
    P: str,
    N: str,
    key: str,
    pending: _Pending,
    confidence: float,
    interval: str,
) -> Estimate | str:
    """An Estimate, or the key under which its interval will come (the bootstrap's or the proportions')."""
    value = float(spec.compute(cells))
    if not np.isfinite(value):
        return Estimate.undefined(spec.undefined(cells, P, N) or "undefined")
    if pending.no_interval is not None:
        return Estimate(value, None, None, pending.no_interval)
    if spec.kind == "proportion" and spec.proportion is not None:
        return pending.add_proportion(key, value, *spec.proportion(cells))
    if spec.kind == "risk-ratio":
        if spec.name == "lr_positive":
            ci = risk_ratio_ci(float(cells.tp), float(cells.positives), float(cells.fp), float(cells.negatives),
                               confidence=confidence)
        else:
            ci = risk_ratio_ci(float(cells.fn), float(cells.positives), float(cells.tn), float(cells.negatives),
                               confidence=confidence)
        note = None if ci else "no interval: the log method needs every count in the ratio to be positive"
        return Estimate(value, ci, "katz-log", note)
    if spec.kind == "odds-ratio":
        ci = odds_ratio_ci(float(cells.tp), float(cells.fn), float(cells.fp), float(cells.tn), confidence=confidence)
        note = None if ci else "no interval: the log method needs every cell to be positive"
        return Estimate(value, ci, "woolf-log", note)
    return pending.add(key, value, lambda stack: spec.compute(cells_of(stack)))


def _normal_note(k: float, n: float, interval: str) -> str | None:
    """The normal interval's warning on small counts (:func:`assay.inference.proportion.wald_note`), or None."""
    return wald_note(float(k), float(n)) if interval == "normal" and n > 0 else None


def _matrix_estimate(
    spec: MatrixMetric, counts: np.ndarray, key: str, pending: _Pending, kappa: KappaResult | None,
) -> Estimate | str:
    value = float(spec.compute(counts))
    if not np.isfinite(value):
        return Estimate.undefined(spec.undefined(counts) or "undefined")
    if spec.kind == "descriptive":
        return Estimate(value)
    if pending.no_interval is not None:
        return Estimate(value, None, None, pending.no_interval)
    if spec.kind == "proportion" and spec.proportion is not None:
        return pending.add_proportion(key, value, *spec.proportion(counts))
    if spec.kind == "kappa":
        note = None
        if kappa.se == 0:
            note = ("no interval: the standard error is 0 (perfect agreement)" if value == 1.0 else
                    "no interval: the standard error is 0 (one class predicted for every instance, "
                    "or a single actual class)")
        return Estimate(value, None if note else kappa.ci, kappa.method, note)
    if spec.kind == "descriptive":
        return Estimate(value)
    return pending.add(key, value, spec.compute)


def _average(values: list[Any], weights: np.ndarray | None, labels: tuple[str, ...], what: str) -> tuple[float, str | None]:
    """Mean of per-class values (weighted or not); NaN and a reason if one is undefined."""
    vals = np.array([np.nan if isinstance(v, Estimate) and v.value is None else
                     (v.value if isinstance(v, Estimate) else v) for v in values], dtype=np.float64)
    if weights is None:
        bad = np.flatnonzero(np.isnan(vals))
        if bad.size:
            return float("nan"), f"{what} is undefined for class {labels[bad[0]]!r}"
        return float(vals.mean()), None
    used = weights > 0
    bad = np.flatnonzero(np.isnan(vals) & used)
    if bad.size:
        return float("nan"), f"{what} is undefined for class {labels[bad[0]]!r}"
    return float((vals[used] * weights[used]).sum() / weights[used].sum()), None


def _matrices(cm: ConfusionCounts) -> dict[str, list[list[float | None]]]:
    m = cm.counts.astype(np.float64)
    rows = m.sum(axis=1, keepdims=True)
    cols = m.sum(axis=0, keepdims=True)
    n = m.sum()

    def listed(a: np.ndarray) -> list[list[float | None]]:
        return [[None if not np.isfinite(x) else float(x) for x in row] for row in a]

    with np.errstate(invalid="ignore", divide="ignore"):
        return {
            "actual_by_predicted": cm.counts.tolist(),
            "normalized_by_actual": listed(np.where(rows > 0, m / np.where(rows > 0, rows, 1), np.nan)),
            "normalized_by_predicted": listed(np.where(cols > 0, m / np.where(cols > 0, cols, 1), np.nan)),
            "joint": listed(m / n),
            "expected_random": listed(expected_random(m)),
        }


def analyse_confusion(
    cm: ConfusionCounts,
    *,
    positive: str | None,
    confidence: float,
    interval: str,
    beta: float = 1.0,
    bootstrap: BootstrapSettings = BootstrapSettings(),
    costs: Any = None,
    prevalence: float | None = None,
    kappa_weights: str | None = None,
    cost_matrix: np.ndarray | None = None,
) -> ConfusionAnalysis:
    """All metrics, per-class values, averages and tests of a confusion matrix.
    Inputs validated: ``cm`` has instances of at least two actual classes, and
    ``positive`` (binary only) is one of its labels. With ``costs`` (two classes), the
    metrics add ``expected_cost``: per instance, at the data's class balance or at
    ``prevalence``, with Student's t interval (:func:`assay.evaluation.costs.expected_cost_estimate`); with ``prevalence``, ``ppv_at_prevalence``
    and ``npv_at_prevalence`` (Bayes' rule from sensitivity and specificity). With ``kappa_weights``
    ("linear" or "quadratic"), the metrics add ``weighted_kappa`` for ordered classes (in label order),
    with the Fleiss-Cohen-Everitt interval, and the tests its z test. With ``cost_matrix`` (k x k in label
    order, rows actual, columns predicted), the metrics add ``expected_cost``: sum c_ij n_ij / n, the cost per
    instance of the predictions (two classes: at ``prevalence`` when given), with Student's t interval.
    """
    counts = cm.counts
    labels = cm.labels
    k = len(labels)
    pending = _Pending()
    if cm.weighted:
        pending.no_interval = WEIGHTED_NOTE
    kappa = None if cm.weighted else kappa_test(counts, confidence=confidence)
    binary_specs = dict(BINARY_METRICS)
    if beta != 1.0:
        binary_specs["fbeta"] = _fbeta_metric(beta)
    if prevalence is not None and positive is not None:
        binary_specs.update(_predictive_values(prevalence))

    metrics: dict[str, Estimate | str] = {}
    if positive is not None:
        p = labels.index(positive)
        neg = labels[1 - p]
        cells = one_vs_rest(counts, p)
        P, N = f"positives ({positive!r})", f"negatives ({neg!r})"
        for name, spec in binary_specs.items():
            metrics[name] = _binary_estimate(
                spec, cells, lambda s, p=p: one_vs_rest(s, p), P, N, f"metrics.{name}", pending,
                confidence, interval,
            )
        for name in ("kappa", "chance_agreement", "no_information_rate"):
            metrics[name] = _matrix_estimate(MATRIX_METRICS[name], counts, f"metrics.{name}", pending, kappa)
    else:
        for name, spec in MATRIX_METRICS.items():
            metrics[name] = _matrix_estimate(spec, counts, f"metrics.{name}", pending, kappa)

    if cost_matrix is not None or (costs is not None and positive is not None):
        # one expected cost however the costs are given: Student's t on the per-instance costs (costs.py says why)
        c = costs_matrix(costs, labels, positive) if cost_matrix is None else np.asarray(cost_matrix, np.float64)
        metrics["expected_cost"] = expected_cost_estimate(counts, c, confidence=confidence, labels=labels,
                                                          positive=positive, prevalence=prevalence,
                                                          no_interval=pending.no_interval)
    weighted_kappa = None
    if kappa_weights is not None:
        weighted_kappa = None if cm.weighted else weighted_kappa_test(counts, weights=kappa_weights,
                                                                      confidence=confidence)
        if weighted_kappa is not None and not np.isfinite(weighted_kappa.kappa):
            metrics["weighted_kappa"] = Estimate.undefined("chance agreement is 1: every instance in one class")
        elif weighted_kappa is None:
            metrics["weighted_kappa"] = Estimate(_weighted_value(counts, kappa_weights), None, None,
                                                 pending.no_interval)
        elif weighted_kappa.se == 0:
            metrics["weighted_kappa"] = Estimate(weighted_kappa.kappa, None, weighted_kappa.method,
                                                 "no interval: the standard error is 0")
        else:
            metrics["weighted_kappa"] = Estimate(weighted_kappa.kappa, weighted_kappa.ci, weighted_kappa.method)

    per_class: dict[str, dict[str, Any]] = {}
    actual = counts.sum(axis=1)
    if k > MAX_CLASSES_BOOTSTRAPPED_PER_CLASS:
        pending.skip_note = (f"no interval: with more than {MAX_CLASSES_BOOTSTRAPPED_PER_CLASS} classes the "
                             "per-class bootstrap is skipped (the averages keep theirs)")
    predicted = counts.sum(axis=0)
    class_metrics = PER_CLASS_METRICS + (("fbeta",) if beta != 1.0 else ())
    for j, label in enumerate(labels):
        cells = one_vs_rest(counts, j)
        other = f"{labels[1 - j]!r}" if k == 2 else "other classes"
        entry: dict[str, Any] = {}
        for name in class_metrics:
            entry[name] = _binary_estimate(
                binary_specs[name], cells, lambda s, j=j: one_vs_rest(s, j), repr(label), other,
                f"per_class.{j}.{name}", pending, confidence, interval,
            )
        entry["support"] = float(actual[j]) if cm.weighted else int(actual[j])
        entry["predicted"] = float(predicted[j]) if cm.weighted else int(predicted[j])
        per_class[label] = entry
    pending.skip_note = None

    averages: dict[str, dict[str, Estimate | str]] = {"micro": {}, "macro": {}, "weighted": {}}
    pooled = one_vs_rest(counts)
    micro = Cells(pooled.tp.sum(), pooled.fp.sum(), pooled.fn.sum(), pooled.tn.sum())

    def pooled_cells(stack: np.ndarray) -> Cells:
        c = one_vs_rest(stack)
        return Cells(c.tp.sum(-1), c.fp.sum(-1), c.fn.sum(-1), c.tn.sum(-1))

    averaged = AVERAGED_METRICS + (("fbeta",) if beta != 1.0 else ())
    for name in averaged:
        spec = binary_specs[name]
        averages["micro"][name] = _binary_estimate(
            spec, micro, pooled_cells, "instances", "instances", f"averages.micro.{name}", pending,
            confidence, interval,
        )
        raw = [per_class[label][name] for label in labels]
        raw_values = [pending.values[v] if isinstance(v, str) else v for v in raw]
        for kind, weights in (("macro", None), ("weighted", actual.astype(np.float64))):
            value, note = _average(raw_values, weights, labels, name)
            if note:
                averages[kind][name] = Estimate.undefined(note)
                continue

            def fn(stack: np.ndarray, spec: BinaryMetric = spec, kind: str = kind) -> np.ndarray:
                c = one_vs_rest(stack)
                v = spec.compute(c)
                if kind == "macro":
                    return v.mean(axis=-1)
                w = c.positives  # each class's support
                used = w > 0
                total = np.where(used, v * w, 0.0).sum(axis=-1) / w.sum(axis=-1)
                return np.where((np.isnan(v) & used).any(axis=-1), np.nan, total)

            averages[kind][name] = pending.add(f"averages.{kind}.{name}", value, fn)

    intervals = bootstrap_matrix_ci(counts, pending.functions, confidence=confidence, settings=bootstrap) \
        if pending.functions else {}
    proportions = _proportion_estimates(pending, confidence, interval)

    def resolve(v: Estimate | str) -> Estimate:
        if isinstance(v, Estimate):
            return v
        if v in proportions:
            return proportions[v]
        if v in pending.skipped:
            return Estimate(pending.values[v], None, None, pending.skipped[v])
        b = intervals[v]
        return Estimate(pending.values[v], b.ci, "bootstrap-percentile", b.note)

    tests: dict[str, Any] = {} if cm.weighted else {  # the tests need counts
        "accuracy_vs_nir": accuracy_vs_nir(int(np.trace(counts)), int(counts.sum()),
                                           float(actual.max() / counts.sum())),
        "kappa": kappa,
    }
    if weighted_kappa is not None:
        tests["weighted_kappa"] = weighted_kappa
    if positive is not None and not cm.weighted:
        p = labels.index(positive)
        # off-diagonal cells: false negatives (actual positive) and false positives
        fn_count, fp_count = int(counts[p, 1 - p]), int(counts[1 - p, p])
        tests["mcnemar"] = mcnemar([[0, fn_count], [fp_count, 0]], method="chi2-corrected")

    return ConfusionAnalysis(
        metrics={name: resolve(v) for name, v in metrics.items()},
        per_class={label: {name: (resolve(v) if isinstance(v, (Estimate, str)) else v) for name, v in entry.items()}
                   for label, entry in per_class.items()},
        averages={kind: {name: resolve(v) for name, v in group.items()} for kind, group in averages.items()},
        tests=tests,
        matrices=_matrices(cm),
    )


def _weighted_value(counts: np.ndarray, weights: str) -> float:
    """The weighted kappa of a table of weight totals (its value only)."""
    w = agreement_weights(counts.shape[0], weights)
    p = counts / counts.sum()
    pe = float((w * np.outer(p.sum(axis=1), p.sum(axis=0))).sum())
    return (float((w * p).sum()) - pe) / (1.0 - pe)


THRESHOLD_FREE = ("prevalence", "no_information_rate")
"""Metrics of the truth alone, which need no predicted labels."""


def unthresholded(analysis: ConfusionAnalysis, note: str) -> ConfusionAnalysis:
    """The analysis of scores without predicted labels, with the keys of ``analysis`` (computed on any
    matrix with the same actual classes): the metrics of the truth alone (prevalence, no-information
    rate) and each class's support are kept; every other estimate is undefined with ``note``; no tests."""
    def undefined(name: str, e: Any) -> Any:
        if name in ("support",) or name in THRESHOLD_FREE:
            return e
        if name == "predicted":
            return None
        return Estimate.undefined(note) if isinstance(e, Estimate) else e

    return ConfusionAnalysis(
        metrics={name: undefined(name, e) for name, e in analysis.metrics.items()},
        per_class={label: {name: undefined(name, v) for name, v in entry.items()}
                   for label, entry in analysis.per_class.items()},
        averages={kind: {name: Estimate.undefined(note) for name in group} for kind, group in analysis.averages.items()},
        tests={},
        matrices={name: None for name in analysis.matrices},  # type: ignore[misc]
    )


def threshold_notes(threshold: float | None, low: float, high: float, *, direction: str = "higher",
                    predicted: Any = None, labels: tuple[str, ...] = (), positive: str | None = None) -> list[str]:
    """What to say about a threshold on two-class scores: where every prediction falls in one class (a
    threshold outside the scores' range), and where the scores look like percentages.

    The one place every path that puts a threshold on scores (in memory, in batches, on Spark, and the
    threshold-free analysis with ``threshold=None``) takes its notes from. Inputs validated.

    Parameters
    ----------
    threshold : float or None
        The threshold used, in the scores' own units; None: no threshold (the threshold-free analysis).
    low, high : float
        The least and greatest score, as given.
    direction : {"higher", "lower"}
        "higher": positive iff score >= threshold; "lower": positive iff score <= threshold.
    predicted : array of shape (2,), optional
        The instances (or weights) predicted in each class of ``labels`` at ``threshold``.
    labels, positive
        The two classes in matrix order, and the positive one.

    Examples
    --------
    >>> threshold_notes(1.5, 0.02, 0.97, predicted=[200, 0], labels=("0", "1"), positive="1")[0][:60]
    'threshold 1.5 is above every score (the highest is 0.97): ev'
    >>> threshold_notes(None, 0.0, 97.5)
    ['the scores lie within [0, 100] (from 0 to 97.5): if they are percentages, a threshold of 50 reads them at 0.5']
    """
    notes: list[str] = []
    lower = direction == "lower"
    looks_like_percentages = not lower and low >= 0.0 and 1.0 < high <= 100.0
    if threshold is None:
        if looks_like_percentages:
            notes.append(f"the scores lie within [0, 100] (from {low:g} to {high:g}): if they are percentages, a "
                         "threshold of 50 reads them at 0.5")
        return notes
    t = float(threshold)
    totals = np.asarray(predicted if predicted is not None else [], dtype=np.float64)
    held = np.flatnonzero(totals > 0)
    if len(labels) == 2 and positive in labels and len(held) == 1:
        only = labels[int(held[0])]
        side = "positive" if only == positive else "negative"
        if t > high:
            where = f"is above every score (the highest is {high:g})"
        elif t < low:
            where = f"is below every score (the lowest is {low:g})"
        elif t == low and not lower or t == high and lower:
            where = f"is at the {'highest' if lower else 'lowest'} score"
        else:
            where = f"lies within the scores ({low:g} to {high:g})"
        notes.append(f"threshold {t:g} {where}: every instance is predicted {only!r} ({side}); choose a threshold "
                     "within the scores' range, or youden, closest or cost")
    if looks_like_percentages and t <= 1.0:
        notes.append(f"the scores run up to {high:g}, like percentages: if they are, a threshold of {100 * t:g} "
                     f"means {t:g}")
    return notes
