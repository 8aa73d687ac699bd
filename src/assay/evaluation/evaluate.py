"""``assay.evaluate``: predictions in, the whole analysis out."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from assay.checks import check_count_table
from assay.errors import InvalidInput
from assay.evaluation.applicability import refuse_inapplicable
from assay.evaluation.classification import threshold_notes
from assay.evaluation.costs import Costs, cost_decisions, matrix_costs_of
from assay.evaluation.decision import (
    ask_decision_curve,
    decision_curve_of,
    refuse_decision_curve,
)
from assay.evaluation.from_summaries import (
    confusion_evaluation,
    ranking_of,
    threshold_free_evaluation,
)
from assay.evaluation.groups import evaluate_groups, take_rows
from assay.evaluation.multiclass_ranking import (
    analyse_multiclass_scores,
    check_top_k,
    top_k_accuracy,
)
from assay.evaluation.options import Options, keywords_of, options_from
from assay.evaluation.positive import choose_positive, positive_class
from assay.evaluation.prepared import (
    COLUMNS_NOTE,
    NO_WEIGHTED_PART,
    Prepared,
    check_weights,
    oriented,
    predictions,
    prepare,
    repeated,
    require_two_weighted_classes,
    weights_note,
)
from assay.evaluation.probabilistic import (
    CALIBRATION_PARTS,
    analyse_probabilities,
    analyse_score_counts,
    class_calibration,
    shown_calibration,
    two_class_calibration,
)
from assay.evaluation.ranking import AUCInterval, RankingAnalysis, analyse_scores
from assay.evaluation.result import Evaluation
from assay.evaluation.threshold_stability import stability_note, stability_of
from assay.evaluation.thresholds import DEFAULT_THRESHOLD
from assay.inference.calibration import ask_calibration, calibration_hierarchy
from assay.inference.ece import ask_smooth_ece
from assay.inference.proportion import ProportionMethod
from assay.inputs import canonical_label, encode_labels, label_list
from assay.summaries.confusion import ConfusionCounts
from assay.summaries.scores import ScoreCounts

__all__ = ["evaluate", "evaluate_confusion", "rank", "choose_positive", "DEFAULT_THRESHOLD"]


def pos_label_errors(function: Any) -> Any:
    """``function``'s errors about the positive class named as its caller named it: ``pos_label`` when given
    as ``pos_label=`` (scikit-learn's name), ``positive`` otherwise."""

    @functools.wraps(function)
    def named(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except InvalidInput as e:
            field = e.field or ""
            if kwargs.get("pos_label") is not None and kwargs.get("positive") is None and \
                    (field == "positive" or field.endswith(" positive")):
                raise InvalidInput(e.problem, field=field[:-len("positive")] + "pos_label", row=e.row) from None
            raise

    return named


@pos_label_errors
def evaluate(
    y_true: Any,
    y_pred: Any = None,
    *,
    y_score: Any = None,
    y_proba: Any = None,
    labels: Sequence[Any] | None = None,
    pos_label: Any = None,
    positive: Any = None,
    threshold: float | None = None,
    confidence: float = 0.95,
    interval: ProportionMethod = "wilson",
    beta: float = 1.0,
    bootstrap: int = 2000,
    seed: int = 0,
    score_name: str | None = None,
    auc_interval: AUCInterval = "delong",
    costs: Costs | Mapping[str, float] | None = None,
    prevalence: float | None = None,
    fpr_range: tuple[float, float] | None = None,
    lift_depth: float = 0.1,
    prior: Mapping[Any, float] | Sequence[float] | None = None,
    clip: float | None = None,
    calibration_bins: int = 10,
    calibration_strategy: str = "uniform",
    calibration_parts: Sequence[str] = CALIBRATION_PARTS,
    calibration_class: Any = None,
    roc_bins: int | None = None,
    allow_disjoint_labels: bool = False,
    sample_weight: Any = None,
    at_specificity: Sequence[float] = (),
    at_sensitivity: Sequence[float] = (),
    roc_band: bool = False,
    sensitivity_range: tuple[float, float] | None = None,
    constraints: Sequence[str] = (),
    kappa_weights: str | None = None,
    direction: str = "higher",
    cost_matrix: Any = None,
    top_k: int | None = None,
    net_benefit: bool = False,
    thresholds_range: tuple[float, ...] | None = None,
    by: Any = None,
    options: Options | None = None,
) -> Evaluation:
    """Evaluate a classifier's predictions: every metric with its interval, and the tests.

    Give the truth and exactly one of ``y_pred`` (the second argument, as in scikit-learn's
    metrics), ``y_score`` or ``y_proba``.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        The actual classes: strings or numbers (``1``, ``1.0`` and ``"1"`` are one
        class). Lists, numpy arrays, pandas and polars series are accepted.
    y_pred : array-like of shape (n,), optional
        The predicted classes.
    y_score : array-like of shape (n,), optional
        Scores or probabilities of the positive class (two classes only); the
        prediction is positive iff ``y_score >= threshold``.
    y_proba : array-like of shape (n, k), data frame or mapping, optional
        One probability column per class: a data frame whose column names are the
        classes, a mapping of class to column, or a 2-d array with ``labels``
        naming its columns. The prediction is the most probable class (the first
        in label order on ties); with two classes, the positive class iff its
        probability >= ``threshold``.
    labels : sequence, optional
        The classes in the order wanted; classes absent from the data are kept.
    pos_label : label, optional
        The positive class of a two-class problem (scikit-learn's name; ``positive``
        is the same). By default: the class a ``y_score`` series is named after,
        else the one label that reads as positive (1, true, yes, pos, ...), else the
        second in sorted order. The result's ``notes`` say which rule chose it.
    threshold : float or {"youden", "closest", "cost"}, optional
        For ``y_score`` and two-class ``y_proba``; default 0.5 for scores within
        [0, 1]. Other scores without a threshold get the threshold-free analysis
        (ROC, AUC, PR, lift, the best thresholds, the hull; the prevalence), with
        the metrics of predicted labels undefined and a note saying how to get
        them. A criterion chooses it on the same data (Youden's J, the ROC point
        closest to (0, 1), or the least expected cost with ``costs`` at
        ``prevalence``), and a note says that the metrics at it are then optimistic.
    confidence : float, default 0.95
        Confidence level of every interval and test.
    interval : {"wilson", "clopper-pearson", "agresti-coull", "jeffreys", "normal"}
        The interval for proportions (accuracy, recall, precision, ...).
    beta : float, default 1
        With beta != 1, F-beta is reported beside F1.
    bootstrap : int, default 2000
        Resamples for the intervals of F1, MCC, balanced accuracy and averages.
    seed : int, default 0
        Seed of the bootstrap: the same seed gives the same intervals.
    score_name : str, optional
        The name of the score column; when it names a class, that class is the
        positive one (by default the name of a pandas or polars ``y_score``).
    auc_interval : {"delong", "bootstrap"}, default "delong"
        The interval of the AUC: DeLong's, or a stratified percentile bootstrap
        with ``bootstrap`` resamples.
    costs : Costs or mapping, optional
        Costs of the outcomes, e.g. ``{"fp": 1, "fn": 10}`` (also ``tp``, ``tn``):
        for the least-cost threshold, the expected cost per threshold and the
        iso-performance slope. Default: both errors cost 1.
    prevalence : float, optional
        The share of positives where the classifier will be used, for expected
        costs and the iso-performance slope (default: the test data's).
    fpr_range : (float, float), optional
        Also report the partial AUC over this range of false positive rates, raw and
        standardised (McClish), with stratified bootstrap intervals.
    sensitivity_range : (float, float), optional
        Likewise over this range of sensitivities (pROC's ``partial.auc.focus="se"``).
    lift_depth : float, default 0.1
        Report the lift among this share of top-scored instances.
    prior : mapping of class to probability, optional
        The class frequencies of the training data, for the prior classifier
        that the relative losses compare with (default: the test data's, and the
        result says so).
    clip : float, optional
        Clip the probability of the true class to [clip, 1] in the information
        loss; by default a probability of 0 makes it infinite, reported as such.
    calibration_bins : int, default 10
        Bins of the calibration (reliability) table.
    calibration_strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width bins, or bins with equal numbers of instances.
    calibration_parts : names among "table", "hierarchy", "curve", "brier", default all
        What the calibration gives: the reliability table (with the ECE), the mean and weak calibration
        (rms::val.prob's intercept, slope and tests), the lowess curve with its E-statistics and band, the
        Brier score's decomposition (the last three of two-class probabilities).
    calibration_class : a class, optional
        With probabilities of more than two classes: the calibration of this class's probabilities against
        the rest (all of the above, as for two classes) in place of the top label's table.
    roc_bins : int, optional
        Approximate on request: group the distinct scores into about this many bins
        (as Spark's ``BinaryClassificationMetrics(numBins=...)``) before the ranking
        analysis, which then says it is approximate and bounds the AUC's error.
        By default every distinct score is kept: exact.
    allow_disjoint_labels : bool, default False
        Predicted labels are refused when none is a class of the truth (0/1 against
        benign/malignant), or when they look like scores (many distinct numbers that
        are not whole and not classes of the truth): the usual sign of a wrong column.
        True accepts them (or give ``labels``).
    direction : {"higher", "lower", "auto"}, default "higher"
        Which scores mean the positive class (pROC's ``direction``): higher (positive iff
        score >= threshold), lower (positive iff score <= threshold; every threshold stays in
        the scores' own units), or auto: chosen on the data as pROC does (lower when the
        negatives' median is above the positives'), with a note that this biases the AUC upward.
        When the AUC is significantly below 0.5, the result says the scores look inverted.
    constraints : sequence of str, optional
        With scores: the best threshold under each constraint, e.g. ``"precision>=0.8"``
        (the largest recall), ``"fpr<=0.05"`` (the largest recall), ``"recall>=0.9"``
        (the largest specificity), with the rates there (``ranking.constrained``).
    cost_matrix : array-like (k, k), mapping or (classes, array), optional
        The cost of each outcome, rows actual and columns predicted, in label order (or
        ``{actual: {predicted: cost}}``; :func:`assay.io.read_cost_matrix` reads a file laid
        out as a confusion matrix): the metrics add the expected cost per instance of the
        predictions with its interval, and with probabilities ``cost_decisions`` compares
        the decisions of least expected cost (the Bayes decision) with the predictions made.
    kappa_weights : {"linear", "quadratic"}, optional
        For ordered classes: also the weighted kappa, with weights by the classes' positions
        1..k in label order (give ``labels`` for another order), its Fleiss-Cohen-Everitt
        interval and z test (as SAS, R's irr, yardstick and scikit-learn's ``weights=``).
    at_specificity, at_sensitivity : sequence of float, optional
        With scores: the sensitivity at each of these specificities, and the specificity at
        each of these sensitivities, read off the ROC curve with linear interpolation between
        its points (as pROC's ``coords``), each with a stratified bootstrap interval (as
        pROC's ``ci.se`` and ``ci.sp``) and the threshold that reaches it on the curve.
    roc_band : bool, default False
        With scores: also the ROC confidence band, the sensitivity's bootstrap interval at
        specificities 0, 0.02, ..., 1 (``ranking.band``; ``ranking.roc_band()`` for another grid).
    top_k : int, optional
        With probabilities of more than two classes: also the top-k accuracy, the share of
        instances whose actual class is among their ``top_k`` most probable, with the
        proportion's interval (``metrics["top_k_accuracy"]``), as scikit-learn's
        ``top_k_accuracy_score`` (ties: the later class in label order ranks higher).
    net_benefit : bool, default False
        With probabilities of the positive class: also the decision curve (``r.net_benefit``, Vickers &
        Elkin 2006): the net benefit at threshold probabilities against treating everyone and no one, the
        net interventions avoided per 100, the standardized net benefit, each with a percentile bootstrap
        interval (``bootstrap`` resamples), and with ``costs`` the point that their ratio implies.
    thresholds_range : (low, high[, step]), optional
        The threshold probabilities of the decision curve (default 0.01 to 0.99 by 0.01); giving it asks
        for the curve.
    by : array-like, mapping or data frame, optional
        A group per instance (or several columns of them: their combinations are the groups): returns a
        :class:`~assay.evaluation.groups.GroupedEvaluation`, all the instances' evaluation and each group's
        with these options, and the gaps between the groups (their rates tested against the rest,
        fairlearn's disparity summaries with bootstrap intervals, each group's AUC against the rest's).
    sample_weight : array-like of shape (n,), optional
        A weight per instance, as scikit-learn's ``sample_weight``. Whole numbers are
        frequency weights: each instance counts that many times, and every interval
        and test is exact, as if the rows were repeated. Other weights (class-balancing,
        importance weights) give the weighted estimates, equal to scikit-learn's, but
        no intervals or tests, which need counts (a note says so). A weight of 0 leaves
        the instance out.
    options : Options, optional
        All the options above as one object (:class:`assay.Options`), for a set of options used again and
        again; keywords given beside it (those that differ from their defaults) change it.

    Returns
    -------
    Evaluation
        ``.metrics``, ``.per_class``, ``.averages``, ``.tests``, and with scores
        ``.ranking`` (ROC, PR, hull, thresholds, costs); ``.to_dict()`` is the
        JSON of ``assay report``.

    Raises
    ------
    InvalidInput
        On a missing value, lengths that differ, a single class in the truth, an
        unknown positive label, scores that are not finite numbers, ...: the
        message names the argument, the first bad position and its value.

    Examples
    --------
    Five objects, the second and fifth negative, thresholded at 0.6 (a threshold classifier as in Fawcett 2006).

    >>> r = evaluate([1, 0, 1, 1, 0], y_score=[0.7, 0.4, 0.8, 0.7, 0.3], threshold=0.6)
    >>> r.confusion.counts.tolist()
    [[2, 0], [0, 3]]
    >>> r["recall"].value, r["fpr"].value
    (1.0, 0.0)
    """
    options = options_from(options, keywords_of(locals()))
    if by is not None:  # each group evaluated as the whole is, and the gaps between them
        def rows_of(rows: Any, own: Options) -> Evaluation:
            return evaluate(take_rows(y_true, rows), take_rows(y_pred, rows), y_score=take_rows(y_score, rows),
                            y_proba=take_rows(y_proba, rows), labels=labels, positive=positive, pos_label=pos_label,
                            score_name=score_name, allow_disjoint_labels=allow_disjoint_labels,
                            sample_weight=take_rows(sample_weight, rows), options=own)

        return evaluate_groups(by, len(y_true), options, rows_of)
    kind = "labels" if y_pred is not None and y_score is None and y_proba is None else None
    if kind:
        refuse_inapplicable(kind, [name for name in options.asked() if name != "threshold"])
    prepared, pred_codes, used_threshold = predictions(
        y_true, options, y_pred=y_pred, y_score=y_score, y_proba=y_proba, labels=labels,
        positive=positive_class(positive, pos_label), score_name=score_name,
        allow_disjoint_labels=allow_disjoint_labels, sample_weight=sample_weight, allow_no_threshold=True)
    if prepared.scores is None and prepared.matrix is not None and len(prepared.labels) > 2:
        refuse_inapplicable("probabilities", options.asked())
    top_k = None if options.top_k is None else check_top_k(options.top_k, prepared.matrix, prepared.labels)
    if pred_codes is None:  # scores that are not probabilities, and no threshold: the threshold-free analysis
        return _threshold_free(prepared, options)
    decided = None
    if prepared.scores is not None and options.net_benefit:  # refused here when the scores are not probabilities
        decided = {"labels": prepared.labels, "positive": prepared.positive, "low": float(prepared.scores.min()),
                   "high": float(prepared.scores.max()), "direction": prepared.direction}
        ask_decision_curve(prepared.summary(), options, **decided)  # its counts share the ranking's walk
    if prepared.scores is not None and prepared.weights is None and len(prepared.labels) == 2 \
            and prepared.direction == "higher" and prepared.scores.min() >= 0 and prepared.scores.max() <= 1:
        ask_calibration(prepared.summary())  # the calibration's first walk: likewise
        ask_smooth_ece(prepared.summary())  # and the smooth ECE's
    confidence = options.confidence
    weights = prepared.weights
    cm = ConfusionCounts.from_codes(prepared.true_codes, pred_codes, labels=prepared.labels, sample_weight=weights)
    matrix_costs = matrix_costs_of(options.cost_matrix, options.costs, cm.labels)
    made = pred_codes if matrix_costs is not None and prepared.proba is not None and weights is None else None
    del pred_codes  # as long as the input: not kept while the rest is computed
    notes = list(prepared.notes)
    stability = None
    if prepared.scores is not None and isinstance(options.threshold, str):  # under the chosen threshold's note
        stability = stability_of(options, prepared.summary(), prepared.labels, prepared.positive, prepared.direction)
        notes.append(stability_note(stability))
    if prepared.scores is not None:  # a threshold that predicts one class, percentages (one rule for every path)
        notes += threshold_notes(used_threshold, float(prepared.scores.min()), float(prepared.scores.max()),
                                 direction=prepared.direction, predicted=cm.counts.sum(axis=0), labels=cm.labels,
                                 positive=prepared.positive)
    if weights is not None:
        require_two_weighted_classes(cm)
        notes.append(weights_note(cm))
    result = replace(confusion_evaluation(cm, prepared.positive, used_threshold, options, notes),
                     threshold_interval=stability)
    notes = list(result.notes)
    if top_k is not None:
        top = top_k_accuracy(prepared.matrix, prepared.true_codes, top_k, weights=weights, confidence=confidence,
                             interval=options.interval)
        result = replace(result, analysis=replace(result.analysis,
                                                  metrics={**result.analysis.metrics, "top_k_accuracy": top}))
    if made is not None:
        result = replace(result, cost_decisions=cost_decisions(
            prepared.proba, prepared.true_codes, made, matrix_costs, cm.labels, confidence=confidence,
            positive=prepared.positive, prevalence=options.prevalence if prepared.positive else None))
    ranking = None
    if prepared.scores is not None:
        ranking = ranking_of(prepared.summary(), options, labels=prepared.labels, positive=prepared.positive,
                             threshold=-used_threshold if prepared.direction == "lower" else used_threshold,
                             direction=prepared.direction)
    elif prepared.matrix is not None:
        held = repeated(prepared, notes, "the multi-class ROC analysis")
        if held is not None:
            ranking = analyse_multiclass_scores(held.matrix, held.true_codes, prepared.labels,
                                                confidence=confidence, bootstrap=options.settings)
    probabilistic = None
    result = replace(result, direction=prepared.direction)
    if decided is not None:
        result = replace(result, net_benefit=decision_curve_of(prepared.summary(), options, **decided))
    if prepared.direction == "lower":
        notes.append("lower scores mean the positive class, so they are not its probabilities: no probabilistic "
                     "losses or calibration")
        return replace(result, ranking=ranking, notes=tuple(notes), held_labels=prepared.classes)
    calibration = {"prior": options.prior, "clip": options.clip, "bins": options.calibration_bins,
                       "strategy": options.calibration_strategy, "confidence": confidence}
    if weights is not None and prepared.proba is None and prepared.scores is not None \
            and prepared.scores.min() >= 0 and prepared.scores.max() <= 1:
        if not cm.weighted:  # frequency weights: from the counts per distinct score, exactly
            probabilistic = analyse_score_counts(prepared.summary(), **calibration, bootstrap=options.settings)
            notes.append("scores within [0, 1] are read as probabilities of the positive class for the losses "
                         "and calibration")
        else:
            notes.append(NO_WEIGHTED_PART.format(what="the probabilistic losses and calibration"))
        return replace(result, ranking=ranking, notes=tuple(notes), held_labels=prepared.classes,
                       probabilistic=shown_calibration(probabilistic, options.calibration_parts))
    source = prepared if weights is None or prepared.proba is None else \
        repeated(prepared, notes, "the probabilistic losses and calibration")
    proba = source.probabilities() if source is not None else None
    if proba is not None:
        scored = len(prepared.labels) == 2 and prepared.scores is not None and weights is None
        probabilistic = analyse_probabilities(proba, source.true_codes, prepared.labels, positive=prepared.positive,
                                              **calibration, bootstrap=options.settings, smooth=not scored)
        if scored:
            # the positive class's probabilities: mean and weak calibration, from the ranking's summary
            probabilistic = replace(probabilistic,
                                    hierarchy=calibration_hierarchy(prepared.summary(), confidence=confidence),
                                    **two_class_calibration(prepared.summary(), probabilistic.calibration,
                                                            confidence=confidence,
                                                            bootstrap=options.settings))
        if options.calibration_class is not None and len(prepared.labels) > 2:
            j = prepared.labels.index(canonical_label(options.calibration_class, prepared.labels,
                                                      field="calibration_class"))
            one = ScoreCounts.from_arrays(source.true_codes == j, proba[:, j], labels=("rest", prepared.labels[j]))
            probabilistic = class_calibration(probabilistic, one, bins=options.calibration_bins,
                                              strategy=options.calibration_strategy, confidence=confidence,
                                              bootstrap=options.settings)
        if y_score is not None:
            notes.append("scores within [0, 1] are read as probabilities of the positive class for the losses "
                         "and calibration")
    elif prepared.scores is not None and source is not None:
        notes.append("the scores are not within [0, 1]: no probabilistic losses or calibration")
    return replace(result, ranking=ranking, notes=tuple(notes), held_labels=prepared.classes,
                   probabilistic=shown_calibration(probabilistic, options.calibration_parts))


def _threshold_free(prepared: Prepared, options: Options) -> Evaluation:
    """The report on scores without predicted labels (see :func:`threshold_free_evaluation`)."""
    weights = prepared.weights
    truth = ConfusionCounts.from_codes(prepared.true_codes, prepared.true_codes, labels=prepared.labels,
                                       sample_weight=weights)
    notes = list(prepared.notes)
    if weights is not None:
        require_two_weighted_classes(truth)
        notes.append(weights_note(truth))
    return threshold_free_evaluation(prepared.summary(), truth, prepared.positive, notes, options,
                                     direction=prepared.direction, classes=prepared.classes)


@pos_label_errors
def rank(
    y_true: Any,
    y_score: Any = None,
    *,
    y_proba: Any = None,
    labels: Sequence[Any] | None = None,
    pos_label: Any = None,
    positive: Any = None,
    score_name: str | None = None,
    confidence: float = 0.95,
    costs: Costs | Mapping[str, float] | None = None,
    prevalence: float | None = None,
    fpr_range: tuple[float, float] | None = None,
    lift_depth: float = 0.1,
    roc_bins: int | None = None,
    sample_weight: Any = None,
    at_specificity: Sequence[float] = (),
    at_sensitivity: Sequence[float] = (),
    roc_band: bool = False,
    sensitivity_range: tuple[float, float] | None = None,
    constraints: Sequence[str] = (),
    direction: str = "higher",
    bootstrap: int = 2000,
    seed: int = 0,
    options: Options | None = None,
) -> RankingAnalysis:
    """The ranking analysis of two-class scores alone: curves, AUC, hull, thresholds, costs.

    The same as ``evaluate(...).ranking`` without the confusion matrix, for
    curves and plots. Arguments as for :func:`evaluate` (``sample_weight``: whole
    numbers count each instance that many times; other weights give the weighted
    curves and areas, as scikit-learn's, without intervals).

    Examples
    --------
    >>> r = rank([1, 0, 1, 1, 0], y_score=[0.2, 0.4, 0.8, 0.7, 0.7])
    >>> round(r.roc_auc.value, 4), r.roc()["fpr"].tolist()
    (0.5833, [0.0, 0.0, 0.5, 1.0, 1.0])
    """
    options = options_from(options, keywords_of(locals()))
    refuse_decision_curve(options, "in the ranking analysis", "assay.evaluate (assay report) draws it")
    prepared = prepare(y_true, y_pred=None, y_score=y_score, y_proba=y_proba, labels=labels,
                       positive=positive_class(positive, pos_label), score_name=score_name)
    if prepared.scores is None:
        raise InvalidInput("ranking curves need two classes with scores", field="y_proba")
    prepared = oriented(prepared, options.direction)
    if sample_weight is not None:
        prepared = replace(prepared, weights=check_weights(sample_weight, len(prepared.true_codes)))
        summary = prepared.summary()
        if not (summary.n_positive > 0 and summary.n_negative > 0):
            raise InvalidInput("leaves a class with no weight above 0: the curves need both", field="sample_weight")
    result = analyse_scores(prepared.summary(), options, direction=prepared.direction)
    said = tuple(note for note in prepared.notes if note.startswith(("direction", COLUMNS_NOTE)))
    return replace(result, notes=said + result.notes) if said else result


def evaluate_confusion(
    matrix: Any,
    *,
    labels: Sequence[Any] | None = None,
    positive: Any = None,
    confidence: float = 0.95,
    interval: ProportionMethod = "wilson",
    beta: float = 1.0,
    bootstrap: int = 2000,
    seed: int = 0,
    costs: Costs | Mapping[str, float] | None = None,
    prevalence: float | None = None,
    kappa_weights: str | None = None,
    cost_matrix: Any = None,
    options: Options | None = None,
) -> Evaluation:
    """Evaluate a confusion matrix given directly (rows actual, columns predicted).

    Parameters
    ----------
    matrix : ConfusionCounts or array-like of shape (k, k)
        Whole, non-negative counts. With an array, ``labels`` names the classes
        (default ``"0"``, ``"1"``, ...).
    labels, positive, confidence, interval, beta, bootstrap, seed, costs, prevalence, kappa_weights, cost_matrix
        As for :func:`evaluate` (costs: the expected cost per instance of the matrix).

    Examples
    --------
    Kappa on a skewed matrix (Witten & Frank, ch. 5): 90% of class A; 80% accuracy, P(E) = 0.74.

    >>> r = evaluate_confusion([[75, 15], [5, 5]], labels=["A", "B"], positive="B")
    >>> round(r["chance_agreement"].value, 2), round(r["kappa"].value, 2)
    (0.74, 0.23)
    """
    options = options_from(options, keywords_of(locals()))
    refuse_inapplicable("labels", options.asked())
    if isinstance(matrix, ConfusionCounts):
        cm = matrix if labels is None else matrix.with_labels([canonical_label(v, matrix.labels) for v in labels])
    else:
        counts = check_count_table(matrix, "matrix")
        k = counts.shape[0]
        if labels is None:
            names = tuple(str(i) for i in range(k))
        else:
            declared = label_list(labels)  # a list of labels, or InvalidInput
            if len(declared) != k:
                raise InvalidInput(f"{len(declared)} labels for a {k} x {k} matrix", field="labels")
            names = encode_labels({"labels": declared}, labels=declared).labels
        cm = ConfusionCounts(names, counts)
    actual = cm.actual_totals
    if cm.n == 0:
        raise InvalidInput("the matrix has no instances", field="matrix")
    present = np.flatnonzero(actual)
    if present.size < 2:
        raise InvalidInput(
            f"every instance is of class {cm.labels[present[0]]!r}; at least two actual classes are needed",
            field="matrix",
        )
    notes: list[str] = []
    chosen: str | None = None
    if len(cm.labels) == 2:
        chosen, why = choose_positive(cm.labels, positive=positive)
        notes.append(f"positive class {chosen!r}: {why}")
    elif positive is not None:
        raise InvalidInput(
            f"a positive class applies to two-class data; this matrix has {len(cm.labels)} classes", field="positive"
        )
    return confusion_evaluation(cm, chosen, None, options, notes)


