"""The seam between the engines and the evaluation: summaries in, result out.

Every engine ends here. The in-memory evaluation (:func:`assay.evaluate`), files read in batches
(:func:`assay.evaluate_batches`, :func:`assay.evaluate_file`) and Spark (:func:`assay.spark.evaluate`) each
reduce their rows to the same mergeable summaries (confusion counts; class counts per distinct score) and hand
them, with the one :class:`~assay.evaluation.options.Options` object, to the functions here:

- :func:`evaluate_confusion_counts`: merged confusion counts of predicted labels (or of the most probable
  class) -> the whole evaluation of labels;
- :func:`evaluate_score_counts`: a two-class score summary -> the whole evaluation of scores (thresholded,
  or the threshold-free analysis of scores that are not probabilities), with the ranking analysis and, for
  probabilities, the losses and calibration;
- :func:`confusion_evaluation` and :func:`ranking_of`: the two halves, for an engine that holds more than the
  summaries (the in-memory path adds what needs instances: weights, top-k, the Bayes decisions);
- :func:`threshold_free_evaluation`: scores without predicted labels.

The probabilities of several classes have their entries of the same shape beside the ranking's
(:func:`assay.evaluation.multiclass_ranking.analyse_multiclass_counts` for the one-vs-rest score summaries,
:func:`assay.evaluation.probabilistic.analyse_summary` for the merged
:class:`~assay.summaries.probabilities.ProbabilitySummary`), and numeric predictions theirs
(:class:`~assay.summaries.regression.RegressionSummary`, the mergeable moments, read by
:func:`assay.evaluate_regression`; no engine reads them in batches yet: ``--task regression`` needs the
table in memory). No engine computes a metric itself.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from assay.errors import InvalidInput
from assay.evaluation.classification import (
    analyse_confusion,
    threshold_notes,
    unthresholded,
)
from assay.evaluation.costs import (
    cost_matrix_notes,
    label_costs,
    matrix_costs_of,
    threshold_costs_of,
)
from assay.evaluation.decision import ask_decision_curve, decision_curve_of
from assay.evaluation.directions import directed
from assay.evaluation.options import Options
from assay.evaluation.positive import choose_positive
from assay.evaluation.probabilistic import analyse_score_counts, probability_fold, shown_calibration
from assay.evaluation.ranking import RankingAnalysis, analyse_scores
from assay.evaluation.regression_validation import FEW_EXACT, MANY_VALUES
from assay.evaluation.result import Evaluation
from assay.evaluation.threshold_stability import stability_note, stability_of
from assay.evaluation.thresholds import chosen_threshold, resolve_threshold
from assay.inference.bootstrap import BootstrapSettings
from assay.inference.calibration import ask_calibration
from assay.inference.ece import ask_smooth_ece
from assay.metrics.ranking import counts_at, threshold_counts, want
from assay.summaries.confusion import ConfusionCounts
from assay.summaries.scores import ScoreCounts

__all__ = ["evaluate_confusion_counts", "evaluate_score_counts", "confusion_evaluation", "ranking_of",
           "threshold_free_evaluation", "refuse_numeric_targets", "NO_THRESHOLD", "NO_THRESHOLD_ESTIMATE"]


NO_THRESHOLD = ("no threshold: the scores are not probabilities, so there are no predicted labels; give one "
                "(threshold=T, or youden, closest or cost to choose it on these data) for the confusion matrix and "
                "the metrics of predicted labels")
"""The note of a report on scores without a threshold."""


NO_THRESHOLD_ESTIMATE = "no threshold was given: this needs predicted labels"
"""The note of each estimate that a threshold would give."""


def threshold_free_evaluation(summary: ScoreCounts, truth: ConfusionCounts, positive: str, notes: list[str],
                              options: Options, *, direction: str = "higher",
                              classes: tuple[Any, ...] = ()) -> Evaluation:
    """The report on two-class scores without predicted labels: the ranking analysis of ``summary`` (oriented:
    ``direction`` is the one it was read in), the truth's own metrics (prevalence, no-information rate;
    ``truth`` is the diagonal matrix of the actual classes), and every other key of a full report, undefined
    with a note. What every engine gives for scores that are not probabilities when no threshold is asked for."""
    decision_curve_of(summary, options, labels=truth.labels, positive=positive, low=float(summary.scores[-1]),
                      high=float(summary.scores[0]), direction=direction)  # refused: not probabilities
    costs, deployment = label_costs(options.costs, options.prevalence, truth.labels)
    full = analyse_confusion(truth, positive=positive, confidence=options.confidence, interval=options.interval,
                             beta=options.beta, bootstrap=BootstrapSettings(resamples=100, seed=options.seed),
                             costs=costs, prevalence=deployment,
                             cost_matrix=matrix_costs_of(options.cost_matrix, options.costs, truth.labels))
    notes = [*notes, *cost_matrix_notes(options.cost_matrix, truth.labels), NO_THRESHOLD]
    if direction == "higher":  # the scores as given: percentages?
        notes += threshold_notes(None, float(summary.scores[-1]), float(summary.scores[0]))
    ranking = ranking_of(summary, options, labels=truth.labels, positive=positive, threshold=None,
                         direction=direction)
    notes.append("the scores are not within [0, 1]: no probabilistic losses or calibration")
    totals = truth.actual_totals
    return Evaluation(
        direction=ranking.direction,
        task="binary", confusion=None, analysis=unthresholded(full, NO_THRESHOLD_ESTIMATE), positive=positive,
        threshold=None, confidence=options.confidence, interval=options.interval, beta=float(options.beta),
        bootstrap=options.settings, notes=tuple(notes), ranking=ranking, held_labels=classes,
        class_totals=tuple((label, float(t) if truth.weighted else int(t)) for label, t in zip(truth.labels, totals)),
    )


def ranking_of(summary: ScoreCounts, options: Options, *, labels: tuple[str, ...], positive: str,
               threshold: float | None, direction: str) -> RankingAnalysis:
    """The ranking analysis of a two-class score summary (oriented by ``direction``; ``threshold`` in the
    summary's units), with the threshold analysis's costs: the fp/fn costs, or a two-class cost matrix's cells."""
    return analyse_scores(summary, options, threshold=threshold, direction=direction,
                          costs=threshold_costs_of(options.costs, options.cost_matrix, labels, positive))


def confusion_evaluation(cm: ConfusionCounts, positive: str | None, threshold: float | None, options: Options,
                         notes: list[str]) -> Evaluation:
    """The evaluation of confusion counts (predicted labels, or scores cut at ``threshold``): every metric with
    its interval, the tests, the costs (fp/fn at the deployment prevalence, or a cost matrix) and the notes."""
    costs, prevalence = label_costs(options.costs, options.prevalence, cm.labels)
    confidence = options.confidence
    notes = notes + cost_matrix_notes(options.cost_matrix, cm.labels)
    analysis = analyse_confusion(cm, positive=positive, confidence=confidence, interval=options.interval,
                                 beta=options.beta, bootstrap=options.settings, costs=costs, prevalence=prevalence,
                                 kappa_weights=options.kappa_weights,
                                 cost_matrix=matrix_costs_of(options.cost_matrix, options.costs, cm.labels))
    if prevalence is not None and positive is not None:
        notes.append(f"PPV and NPV at prevalence {prevalence:g} (where the classifier will be used): Bayes' rule "
                     "from the sensitivity and specificity measured here")
    empty = [label for label, entry in analysis.per_class.items() if entry["support"] == 0]
    if empty:
        notes.append(f"no actual instances of {', '.join(repr(e) for e in empty)}")
    if threshold is None:  # predicted labels given (thresholded scores have the ranking's "inverted" note)
        notes.extend(_worse_than_random(analysis.metrics.get("balanced_accuracy"), len(cm.labels), confidence))
    return Evaluation(
        task="binary" if len(cm.labels) == 2 else "multiclass",
        confusion=cm,
        analysis=analysis,
        positive=positive,
        threshold=threshold,
        confidence=confidence,
        interval=options.interval,
        beta=float(options.beta),
        bootstrap=options.settings,
        notes=tuple(notes),
    )


def _worse_than_random(balanced: Any, k: int, confidence: float) -> list[str]:
    """The note when predicted labels do significantly worse than random ones: a balanced accuracy (the mean
    recall) whose interval lies below 1/k, what predictions drawn independently of the truth get. With two
    classes they lie below the ROC diagonal, where swapping the predictions does better (Fawcett 2006)."""
    if balanced is None or balanced.ci is None or balanced.value is None or not balanced.ci.high < 1.0 / k:
        return []
    found = (f"the predictions look worse than random: balanced accuracy {balanced.value:.1%} "
             f"({confidence * 100:.10g}% CI {balanced.ci.low * 100:.1f} – {balanced.ci.high:.1%}) is significantly "
             f"below random predictions' {100 / k:.3g}%")
    if k == 2:
        return [found + "; swapping the two predicted classes would do better (check how they are coded)"]
    return [found + "; check that the predictions code the classes as the truth does"]


def refuse_numeric_targets(cm: ConfusionCounts) -> None:
    """The rule of ``prediction_task`` on merged counts (the batches and Spark keep no instances): classes
    that are all whole numbers, more than ``MANY_VALUES`` of them among the actual and the predicted values
    each, with fewer than ``FEW_EXACT`` of the predictions equal to their actual value, are numeric predictions
    of a numeric target; refused, as in memory, with the way to say which was meant."""
    try:
        values = np.array([float(label) for label in cm.labels])
    except (TypeError, ValueError):
        return
    if not np.all(np.isfinite(values) & (values == np.floor(values))):
        return
    actual, predicted = np.asarray(cm.actual_totals), np.asarray(cm.predicted_totals)
    distinct_true, distinct_pred = int(np.count_nonzero(actual)), int(np.count_nonzero(predicted))
    if distinct_true <= MANY_VALUES or distinct_pred <= MANY_VALUES:
        return
    exact = float(np.trace(np.asarray(cm.counts))) / float(cm.n)
    if exact >= FEW_EXACT:
        return
    shown = "none" if exact == 0 else f"{exact:.0%}" if exact >= 0.01 else "under 1%"
    raise InvalidInput(f"the truth and the predictions are numbers with {distinct_true:,} and {distinct_pred:,} "
                       f"distinct values, and {shown} of the predictions equal their actual value: numeric "
                       f"predictions, not {len(cm.labels):,} classes? evaluate them with {{option:task=regression}} "
                       "(a table read whole; or {option:task=classification} to take each value for a class)",
                       field="y_pred")


SPILLED = ("the summary of {n:,} distinct scores was larger than the memory budget: it was spilled (not held "
           "whole: kept as its sorted scores, or on disk) and read back a chunk at a time; every number is exact")
"""The note of a score summary spilled to disk."""


def kept_note(summary: ScoreCounts) -> str:
    """Where a summary not held in memory was kept: spilled (:data:`SPILLED`), or its own note (a summary
    kept on Spark's executors says so)."""
    note = getattr(getattr(summary.scores, "summary", None), "note", None)
    return (note or SPILLED).format(n=len(summary))


def evaluate_confusion_counts(cm: ConfusionCounts, options: Options, *, positive: Any = None,
                              predicted_labels: bool = True) -> Evaluation:
    """The evaluation of merged confusion counts: what every engine ends with for predicted labels
    (``predicted_labels=False``: the most probable classes of probabilities)."""
    if cm.n == 0:
        raise InvalidInput("no instances to evaluate", field="y_true")
    present = np.flatnonzero(cm.actual_totals)
    if present.size < 2:
        raise InvalidInput(f"has a single class ({cm.labels[present[0]]!r}); at least two classes are needed "
                           "to evaluate a classifier", field="y_true")
    if predicted_labels:
        refuse_numeric_targets(cm)
    chosen, notes = None, []
    if len(cm.labels) == 2:
        chosen, why = choose_positive(cm.labels, positive=positive)
        notes.append(f"positive class {chosen!r}: {why}")
    elif positive is not None:
        raise InvalidInput(f"a positive class applies to two-class data; these data have {len(cm.labels)} "
                           "classes", field="positive")
    return confusion_evaluation(cm, chosen, None, options, notes)


def evaluate_score_counts(summary: ScoreCounts, all_labels: tuple[str, ...], chosen: str, why: str,
                          options: Options) -> Evaluation:
    """The whole evaluation from a two-class score summary whose positive class is ``chosen`` (``why`` it is):
    what every engine (batches, Spark) ends with for scores. With ``direction`` "lower" (or "auto" choosing
    it), the summary's scores are negated and every threshold stays in the scores' own units."""
    notes = [f"positive class {chosen!r}: {why}"]
    threshold, costs, prevalence = options.threshold, options.costs, options.prevalence
    low_end, high_end = float(summary.scores[-1]), float(summary.scores[0])  # the scores as given
    summary, direction = directed(summary, options.direction, notes)
    lower = direction == "lower"
    if isinstance(threshold, str):  # a criterion: chosen on these same data
        chosen_costs = threshold_costs_of(costs, options.cost_matrix, all_labels, chosen) if threshold == "cost" \
            else costs
        used, note = chosen_threshold(threshold, summary, costs=chosen_costs, prevalence=prevalence,
                                      direction=direction)
        notes.append(note)
        stability = stability_of(options, summary, all_labels, chosen, direction)
        notes.append(stability_note(stability))  # under the chosen threshold's note
        used = -used if lower else used
    elif threshold is None and (low_end < 0 or high_end > 1):  # not probabilities
        p = all_labels.index(chosen)
        totals = np.zeros(2, dtype=np.int64)
        totals[p], totals[1 - p] = int(summary.n_positive), int(summary.n_negative)
        if summary.on_disk:
            notes.append(kept_note(summary))
        return threshold_free_evaluation(summary, ConfusionCounts(all_labels, np.diag(totals)), chosen, notes,
                                         options, direction=direction)
    else:
        used = resolve_threshold(threshold, np.array([low_end, high_end]))
    cells = counts_at(threshold_counts(summary), np.array([-used if lower else used]))
    p = all_labels.index(chosen)
    counts = np.zeros((2, 2), dtype=np.int64)
    counts[p, p], counts[p, 1 - p] = int(cells.tp[0]), int(cells.fn[0])
    counts[1 - p, p], counts[1 - p, 1 - p] = int(cells.fp[0]), int(cells.tn[0])
    notes += threshold_notes(used, low_end, high_end, direction=direction, predicted=counts.sum(axis=0),
                             labels=all_labels, positive=chosen)
    result = confusion_evaluation(ConfusionCounts(all_labels, counts), chosen, used, options, notes)
    if isinstance(threshold, str):
        result = replace(result, threshold_interval=stability)
    probabilities = not lower and low_end >= 0 and high_end <= 1  # not lower: the scores as given
    fold = probability_fold(summary, clip=options.clip, bins=options.calibration_bins) if probabilities else None
    if fold is not None:  # the losses share the ranking metrics' walk of the summary
        want(summary, fold)
    if probabilities:  # and the calibration hierarchy's first walk, and the smooth ECE's
        ask_calibration(summary)
        ask_smooth_ece(summary)
    decided = {"labels": all_labels, "positive": chosen, "low": low_end, "high": high_end, "direction": direction}
    ask_decision_curve(summary, options, **decided)  # likewise the decision curve's counts
    ranking = ranking_of(summary, options, labels=all_labels, positive=chosen, threshold=-used if lower else used,
                         direction=direction)
    probabilistic = None
    notes = list(result.notes)
    result = replace(result, direction=direction)
    if summary.on_disk:
        notes.append(kept_note(summary))
    if lower:
        notes.append("lower scores mean the positive class, so they are not its probabilities: no probabilistic "
                     "losses or calibration")
    elif probabilities:  # probabilities of the positive class
        probabilistic = analyse_score_counts(summary, prior=options.prior, clip=options.clip,
                                             bins=options.calibration_bins, strategy=options.calibration_strategy,
                                             confidence=options.confidence, bootstrap=options.settings)
        notes.append("scores within [0, 1] are read as probabilities of the positive class for the losses "
                     "and calibration")
    else:
        notes.append("the scores are not within [0, 1]: no probabilistic losses or calibration")
    return replace(result, ranking=ranking, notes=tuple(notes), net_benefit=decision_curve_of(summary, options, **decided),
                   probabilistic=shown_calibration(probabilistic, options.calibration_parts))
