"""``assay.evaluate``: predictions in, the whole analysis out."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from assay.errors import InvalidInput
from assay.evaluation.applicability import refuse_inapplicable
from assay.evaluation.classification import analyse_confusion, threshold_notes
from assay.evaluation.multiclass_ranking import analyse_multiclass_scores, check_top_k, top_k_accuracy
from assay.evaluation.probabilistic import analyse_probabilities, analyse_score_counts
from assay.evaluation.ranking import AUCInterval, Costs, RankingAnalysis, analyse_scores
from assay.evaluation.result import Evaluation
from assay.inference.bootstrap import BootstrapSettings
from assay.checks import check_confidence, check_count_table, check_number, check_resamples, check_seed
from assay.inference.proportion import ProportionMethod, check_proportion_method
from assay.limits import MAX_COUNT
from assay.inputs import as_proba, as_scores, canonical_label, encode_labels, name_of, sorted_labels
from assay.summaries.confusion import ConfusionCounts
from assay.summaries.scores import ScoreCounts

__all__ = ["evaluate", "evaluate_confusion", "rank", "choose_positive", "DEFAULT_THRESHOLD"]

DEFAULT_THRESHOLD = 0.5
"""The threshold on probabilities when none is given: positive iff p >= 0.5."""

POSITIVE_WORDS = frozenset(
    {"1", "+1", "true", "t", "yes", "y", "pos", "positive", "case", "event", "present", "abnormal",
     "disease", "diseased", "sick", "fraud", "spam", "malignant", "poor", "bad", "default", "churn"}
)
"""Labels that name the positive class when the user does not say which."""


def choose_positive(
    labels: Sequence[str], *, positive: Any = None, score_name: str | None = None
) -> tuple[str, str]:
    """The positive class of a two-class problem, and why it was chosen.

    In order: the one asked for; the class a score column is named after; the
    one label that reads as positive (1, true, yes, pos, ...); else the second
    label in sorted order, as scikit-learn does with {0, 1} and {-1, 1}.

    Examples
    --------
    >>> choose_positive(("neg", "pos"))
    ('pos', "'pos' reads as the positive class")
    >>> choose_positive(("Class1", "Class2"), score_name="Class1")[0]
    'Class1'
    """
    if positive is not None:
        return canonical_label(positive, labels), "as asked"
    if score_name is not None and score_name in labels:
        return score_name, f"the score column is named {score_name!r}"
    marked = [label for label in labels if label.strip().lower() in POSITIVE_WORDS]
    if len(marked) == 1:
        return marked[0], f"{marked[0]!r} reads as the positive class"
    return labels[-1], f"{labels[-1]!r} is the second class in sorted order (choose with positive=)"


def _check_options(confidence: float, interval: str, beta: float, bootstrap: int, seed: int) -> tuple[float, BootstrapSettings]:
    confidence = check_confidence(confidence)
    check_proportion_method(interval)
    check_number(beta, "beta", low=0.0, low_open=True, what="a positive number")
    return confidence, BootstrapSettings(check_resamples(bootstrap), check_seed(seed))


def _require_two_classes(true_codes: np.ndarray, labels: tuple[str, ...], field: str = "y_true") -> None:
    present = np.flatnonzero(np.bincount(true_codes, minlength=len(labels)))
    if len(true_codes) == 0:
        raise InvalidInput("no instances to evaluate", field=field)
    if present.size < 2:
        raise InvalidInput(
            f"has a single class ({labels[present[0]]!r}); at least two classes are needed to evaluate a classifier",
            field=field,
        )


def pos_label_errors(function: Any) -> Any:
    """``function``'s errors about the positive class named as its caller named it: ``pos_label`` when given
    as ``pos_label=`` (scikit-learn's name), ``positive`` otherwise."""
    import functools

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
    sample_weight : array-like of shape (n,), optional
        A weight per instance, as scikit-learn's ``sample_weight``. Whole numbers are
        frequency weights: each instance counts that many times, and every interval
        and test is exact, as if the rows were repeated. Other weights (class-balancing,
        importance weights) give the weighted estimates, equal to scikit-learn's, but
        no intervals or tests, which need counts (a note says so). A weight of 0 leaves
        the instance out.

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
    Seed 000: five objects, the second and fifth negative, thresholded at 0.6.

    >>> r = evaluate([1, 0, 1, 1, 0], y_score=[0.7, 0.4, 0.8, 0.7, 0.3], threshold=0.6)
    >>> r.confusion.counts.tolist()
    [[2, 0], [0, 3]]
    >>> r["recall"].value, r["fpr"].value
    (1.0, 0.0)
    """
    confidence, settings = _check_options(confidence, interval, beta, bootstrap, seed)
    asked = {"threshold": threshold, "auc_interval": auc_interval, "costs": costs, "prevalence": prevalence,
             "fpr_range": fpr_range, "lift_depth": lift_depth, "at_specificity": at_specificity,
             "at_sensitivity": at_sensitivity, "roc_band": roc_band, "sensitivity_range": sensitivity_range,
             "constraints": constraints, "direction": direction, "top_k": top_k, "prior": prior, "clip": clip,
             "calibration_bins": calibration_bins, "calibration_strategy": calibration_strategy, "roc_bins": roc_bins}
    if y_pred is not None and y_score is None and y_proba is None:
        refuse_inapplicable("labels", {k: v for k, v in asked.items() if k != "threshold"})
    prepared, pred_codes, used_threshold = predictions(
        y_true, y_pred=y_pred, y_score=y_score, y_proba=y_proba, labels=labels,
        positive=positive_class(positive, pos_label), threshold=threshold, score_name=score_name,
        allow_disjoint_labels=allow_disjoint_labels, sample_weight=sample_weight, allow_no_threshold=True,
        costs=costs, prevalence=prevalence, direction=direction, cost_matrix=cost_matrix)
    if prepared.scores is None and prepared.matrix is not None and len(prepared.labels) > 2:
        refuse_inapplicable("probabilities", asked)
    if top_k is not None:
        top_k = check_top_k(top_k, prepared.matrix, prepared.labels)
    if pred_codes is None:  # scores that are not probabilities, and no threshold: the threshold-free analysis
        return _threshold_free(prepared, confidence, interval, beta, settings, costs, prevalence,
                               auc_interval=auc_interval, fpr_range=fpr_range, lift_depth=lift_depth,
                               roc_bins=roc_bins, at_specificity=at_specificity, at_sensitivity=at_sensitivity,
                               roc_band=roc_band, sensitivity_range=sensitivity_range, constraints=constraints,
                               direction=prepared.direction, cost_matrix=cost_matrix)
    weights = prepared.weights
    cm = ConfusionCounts.from_codes(prepared.true_codes, pred_codes, labels=prepared.labels, sample_weight=weights)
    matrix_costs = matrix_costs_of(cost_matrix, costs, cm.labels)
    made = pred_codes if matrix_costs is not None and prepared.proba is not None and weights is None else None
    del pred_codes  # as long as the input: not kept while the rest is computed
    notes = list(prepared.notes) + cost_matrix_notes(cost_matrix, cm.labels)
    if prepared.scores is not None:  # a threshold that predicts one class, percentages (one rule for every path)
        notes += threshold_notes(used_threshold, float(prepared.scores.min()), float(prepared.scores.max()),
                                 direction=prepared.direction, predicted=cm.counts.sum(axis=0), labels=cm.labels,
                                 positive=prepared.positive)
    if weights is not None:
        _require_two_weighted_classes(cm)
        notes.append(_weights_note(cm))
    result = _evaluation(cm, prepared.positive, used_threshold, confidence, interval, beta, settings,
                         notes, *_label_costs(costs, prevalence, cm.labels), kappa_weights=kappa_weights,
                         cost_matrix=matrix_costs)
    if top_k is not None:
        top = top_k_accuracy(prepared.matrix, prepared.true_codes, top_k, weights=weights, confidence=confidence,
                             interval=interval)
        result = replace(result, analysis=replace(result.analysis,
                                                  metrics={**result.analysis.metrics, "top_k_accuracy": top}))
    if made is not None:
        from assay.evaluation.costs import cost_decisions

        result = replace(result, cost_decisions=cost_decisions(
            prepared.proba, prepared.true_codes, made, matrix_costs, cm.labels, confidence=confidence,
            positive=prepared.positive, prevalence=_check_prevalence(prevalence) if prepared.positive else None))
    ranking = None
    if prepared.scores is not None:
        ranking = analyse_scores(
            prepared.summary(), confidence=confidence, auc_interval=_check_auc_interval(auc_interval),
            bootstrap=settings, threshold=-used_threshold if prepared.direction == "lower" else used_threshold,
            costs=threshold_costs_of(costs, cost_matrix, prepared.labels, prepared.positive),
            deployment_prevalence=_check_prevalence(prevalence), fpr_range=fpr_range,
            lift_depth=lift_depth, roc_bins=roc_bins, at_specificity=at_specificity, at_sensitivity=at_sensitivity,
            roc_band=roc_band, sensitivity_range=sensitivity_range, constraints=constraints,
            direction=prepared.direction,
        )
    elif prepared.matrix is not None:
        repeated = _repeated(prepared, notes, "the multi-class ROC analysis")
        if repeated is not None:
            ranking = analyse_multiclass_scores(repeated.matrix, repeated.true_codes, prepared.labels,
                                                confidence=confidence, bootstrap=settings)
    probabilistic = None
    result = replace(result, direction=prepared.direction)
    if prepared.direction == "lower":
        notes.append("lower scores mean the positive class, so they are not its probabilities: no probabilistic "
                     "losses or calibration")
        return replace(result, ranking=ranking, notes=tuple(notes), held_labels=prepared.classes)
    if weights is not None and prepared.proba is None and prepared.scores is not None \
            and prepared.scores.min() >= 0 and prepared.scores.max() <= 1:
        if not cm.weighted:  # frequency weights: from the counts per distinct score, exactly
            probabilistic = analyse_score_counts(prepared.summary(), prior=prior, clip=clip, bins=calibration_bins,
                                                 strategy=calibration_strategy, confidence=confidence)
            notes.append("scores within [0, 1] are read as probabilities of the positive class for the losses "
                         "and calibration")
        else:
            notes.append(_NO_WEIGHTED_PART.format(what="the probabilistic losses and calibration"))
        return replace(result, ranking=ranking, probabilistic=probabilistic, notes=tuple(notes),
                       held_labels=prepared.classes)
    source = prepared if weights is None or prepared.proba is None else \
        _repeated(prepared, notes, "the probabilistic losses and calibration")
    proba = source.probabilities() if source is not None else None
    if proba is not None:
        probabilistic = analyse_probabilities(
            proba, source.true_codes, prepared.labels, positive=prepared.positive, prior=prior, clip=clip,
            bins=calibration_bins, strategy=calibration_strategy, confidence=confidence)
        if y_score is not None:
            notes.append("scores within [0, 1] are read as probabilities of the positive class for the losses "
                         "and calibration")
    elif prepared.scores is not None and source is not None:
        notes.append("the scores are not within [0, 1]: no probabilistic losses or calibration")
    return replace(result, ranking=ranking, probabilistic=probabilistic, notes=tuple(notes),
                   held_labels=prepared.classes)


NO_THRESHOLD = ("no threshold: the scores are not probabilities, so there are no predicted labels; give one "
                "(threshold=T, or youden, closest or cost to choose it on these data) for the confusion matrix and "
                "the metrics of predicted labels")
"""The note of a report on scores without a threshold."""

NO_THRESHOLD_ESTIMATE = "no threshold was given: this needs predicted labels"
"""The note of each estimate that a threshold would give."""


def _probabilities(scores: np.ndarray) -> bool:
    return bool(scores.min() >= 0.0 and scores.max() <= 1.0)


def _threshold_free(prepared: _Prepared, confidence: float, interval: str, beta: float, settings: BootstrapSettings,
                    costs: Any, prevalence: Any, **ranking_options: Any) -> Evaluation:
    """The report on scores without predicted labels (see :func:`threshold_free_evaluation`)."""
    weights = prepared.weights
    truth = ConfusionCounts.from_codes(prepared.true_codes, prepared.true_codes, labels=prepared.labels,
                                       sample_weight=weights)
    notes = list(prepared.notes)
    if weights is not None:
        _require_two_weighted_classes(truth)
        notes.append(_weights_note(truth))
    return threshold_free_evaluation(prepared.summary(), truth, prepared.positive, notes, confidence=confidence,
                                     interval=interval, beta=beta, settings=settings, costs=costs,
                                     prevalence=prevalence, classes=prepared.classes, **ranking_options)


def threshold_free_evaluation(summary: ScoreCounts, truth: ConfusionCounts, positive: str, notes: list[str], *,
                              confidence: float, interval: str, beta: float, settings: BootstrapSettings, costs: Any,
                              prevalence: Any, auc_interval: Any, classes: tuple[Any, ...] = (),
                              cost_matrix: Any = None, **ranking_options: Any) -> Evaluation:
    """The report on two-class scores without predicted labels: the ranking analysis of ``summary``, the
    truth's own metrics (prevalence, no-information rate; ``truth`` is the diagonal matrix of the actual
    classes), and every other key of a full report, undefined with a note. What every engine gives for
    scores that are not probabilities when no threshold is asked for."""
    from assay.evaluation.classification import unthresholded

    label_costs, deployment = _label_costs(costs, prevalence, truth.labels)
    full = analyse_confusion(truth, positive=positive, confidence=confidence, interval=interval, beta=beta,
                             bootstrap=BootstrapSettings(resamples=100, seed=settings.seed), costs=label_costs,
                             prevalence=deployment, cost_matrix=matrix_costs_of(cost_matrix, costs, truth.labels))
    notes = [*notes, *cost_matrix_notes(cost_matrix, truth.labels), NO_THRESHOLD]
    if ranking_options.get("direction", "higher") == "higher":  # the scores as given: percentages?
        notes += threshold_notes(None, float(summary.scores[-1]), float(summary.scores[0]))
    ranking = analyse_scores(summary, confidence=confidence, auc_interval=_check_auc_interval(auc_interval),
                             bootstrap=settings, threshold=None,
                             costs=threshold_costs_of(costs, cost_matrix, truth.labels, positive),
                             deployment_prevalence=deployment, **ranking_options)
    notes.append("the scores are not within [0, 1]: no probabilistic losses or calibration")
    totals = truth.actual_totals
    return Evaluation(
        direction=ranking.direction,
        task="binary", confusion=None, analysis=unthresholded(full, NO_THRESHOLD_ESTIMATE), positive=positive,
        threshold=None, confidence=confidence, interval=interval, beta=float(beta), bootstrap=settings,
        notes=tuple(notes), ranking=ranking, held_labels=classes,
        class_totals=tuple((label, float(t) if truth.weighted else int(t)) for label, t in zip(truth.labels, totals)),
    )


MAX_REPEATED = 20_000_000
"""The largest total of whole-number weights for which the analyses that need the instances themselves
(probabilities of several classes) repeat each instance as many times as its weight."""

_NO_WEIGHTED_PART = ("{what}: none, as the sample weights are not whole numbers (they need instances; whole-number "
                     "weights count each instance that many times)")


def _repeated(prepared: _Prepared, notes: list[str], what: str) -> _Prepared | None:
    """The instances, each repeated as many times as its whole-number weight (``prepared`` itself when
    unweighted); None, with a note, when the weights are not whole or their total is too large."""
    w = prepared.weights
    if w is None:
        return prepared
    if not bool(np.all(w == np.floor(w))):
        notes.append(_NO_WEIGHTED_PART.format(what=what))
        return None
    if float(w.sum()) > MAX_REPEATED:
        notes.append(f"{what}: none, as the weights total {float(w.sum()):,.0f}, more than the {MAX_REPEATED:,} "
                     "instances it repeats")
        return None
    times = w.astype(np.int64)

    def rep(a: np.ndarray | None) -> np.ndarray | None:
        return None if a is None else np.repeat(a, times, axis=0)

    return replace(prepared, true_codes=rep(prepared.true_codes), pred_codes=rep(prepared.pred_codes),
                   scores=rep(prepared.scores), matrix=rep(prepared.matrix), proba=rep(prepared.proba), weights=None)


def _weights_note(cm: ConfusionCounts) -> str:
    if cm.weighted:
        return ("sample weights that are not whole numbers: the estimates are weighted (as scikit-learn's "
                "sample_weight), with no intervals or tests, which need counts of instances")
    return f"sample weights are whole numbers: each instance counts that many times ({cm.n:,} in all)"


def _require_two_weighted_classes(cm: ConfusionCounts) -> None:
    present = np.flatnonzero(cm.actual_totals > 0)
    if present.size == 0:
        raise InvalidInput("every weight is 0: no instances to evaluate", field="sample_weight")
    if present.size < 2:
        raise InvalidInput(f"leaves a single class ({cm.labels[present[0]]!r}) with a weight above 0; at least "
                           "two classes are needed to evaluate a classifier", field="sample_weight")


def check_weights(sample_weight: Any, n: int) -> np.ndarray | None:
    """Sample weights: finite numbers >= 0, one per instance, with a total that counts exactly."""
    if sample_weight is None:
        return None
    w = as_scores(sample_weight, "sample_weight").astype(np.float64)
    if w.ndim != 1 or len(w) != n:
        raise InvalidInput(f"has {len(w)} values but y_true has {n}", field="sample_weight")
    if (w < 0).any():
        row = int(np.argmax(w < 0))
        raise InvalidInput(f"{w[row]:g} is negative: weights must be >= 0", field="sample_weight", row=row)
    total = math.fsum(w)  # correctly rounded: a sum of whole weights beyond 2^53 shows
    if not math.isfinite(total) or (bool(np.all(w == np.floor(w))) and total > MAX_COUNT):
        raise InvalidInput(f"the weights total {total:g}: more than the {MAX_COUNT:,} instances counted exactly",
                           field="sample_weight")
    return w


def predictions(
    y_true: Any,
    *,
    y_pred: Any = None,
    y_score: Any = None,
    y_proba: Any = None,
    labels: Sequence[Any] | None = None,
    positive: Any = None,
    threshold: float | None = None,
    score_name: str | None = None,
    allow_disjoint_labels: bool = False,
    sample_weight: Any = None,
    allow_no_threshold: bool = False,
    costs: Any = None,
    prevalence: float | None = None,
    direction: str = "higher",
    cost_matrix: Any = None,
) -> tuple[_Prepared, np.ndarray | None, float | None]:
    """Validated inputs, the predicted class codes, and the threshold used (None for labels).

    What ``evaluate`` counts, per instance: for the paired comparisons that need
    the instances themselves. With ``allow_no_threshold``, scores that are not
    probabilities and no threshold give no predicted codes (None) instead of an error.
    """
    prepared = _prepare(y_true, y_pred=y_pred, y_score=y_score, y_proba=y_proba, labels=labels, positive=positive,
                        score_name=score_name, allow_disjoint_labels=allow_disjoint_labels)
    if sample_weight is not None:
        prepared = replace(prepared, weights=check_weights(sample_weight, len(prepared.true_codes)))
    prepared = _oriented(prepared, direction)
    if prepared.scores is not None:
        lower = prepared.direction == "lower"
        if isinstance(threshold, str):  # a criterion: the threshold chosen on these same data
            chosen_costs = threshold_costs_of(costs, cost_matrix, prepared.labels, prepared.positive) \
                if threshold == "cost" else costs
            used, note = chosen_threshold(threshold, prepared.summary(), costs=chosen_costs, prevalence=prevalence,
                                          direction=prepared.direction)
            used = -used if lower else used
            prepared = replace(prepared, notes=prepared.notes + (note,))
        elif threshold is None and allow_no_threshold and not _probabilities(prepared.scores):
            return prepared, None, None
        else:
            used = _resolve_threshold(threshold, prepared.scores)
        p = prepared.labels.index(prepared.positive)
        positive_side = prepared.scores <= used if lower else prepared.scores >= used
        return prepared, np.where(positive_side, p, 1 - p), used
    if threshold is not None:
        if y_pred is not None:
            raise InvalidInput("a threshold applies to scores or probabilities, not to predicted labels",
                               field="threshold")
        raise InvalidInput("a threshold applies to two classes; with more, the most probable class is predicted",
                           field="threshold")
    return prepared, prepared.pred_codes, None


@dataclass(frozen=True)
class _Prepared:
    """Validated inputs: labels, the truth's codes, and the predictions in one of three forms."""

    labels: tuple[str, ...]
    true_codes: np.ndarray
    positive: str | None
    notes: tuple[str, ...]
    pred_codes: np.ndarray | None = None  # labels, or the argmax of several classes' probabilities
    scores: np.ndarray | None = None  # two classes: the positive class's scores
    matrix: np.ndarray | None = None  # more classes: probabilities, columns in label order
    proba: np.ndarray | None = None  # probabilities given for every class, columns in label order
    weights: np.ndarray | None = None  # sample weights, checked
    classes: tuple[Any, ...] = ()  # the labels as the data held them
    direction: str = "higher"  # "lower": lower scores mean the positive class

    def probabilities(self) -> Any:
        """Class probabilities, columns in label order: given, or 1 - p and p from scores within [0, 1]."""
        if self.proba is not None:
            return self.proba
        if self.direction == "lower":  # lower scores mean the positive class: not its probabilities
            return None
        if self.scores is not None and self.scores.min() >= 0 and self.scores.max() <= 1:
            from assay.summaries.probabilities import TwoClassScores

            return TwoClassScores(self.scores, self.labels.index(self.positive))
        return None

    def summary(self) -> ScoreCounts:
        """The counts per distinct score (whole-number weights: counts; other weights: their totals)."""
        p = self.labels.index(self.positive)
        labels = (self.labels[1 - p], self.positive)
        scores = -self.scores if self.direction == "lower" else self.scores  # the summary ranks higher first
        w = self.weights
        if w is None:
            return ScoreCounts.from_arrays(self.true_codes == p, scores, labels=labels)
        kept = w > 0  # a weight of 0: as if absent
        if bool(np.all(w == np.floor(w))):
            return ScoreCounts.from_counts(self.true_codes[kept] == p, scores[kept], w[kept].astype(np.int64),
                                           labels=labels)
        return ScoreCounts.from_arrays(self.true_codes == p, scores, sample_weight=w, labels=labels)


DIRECTIONS = ("higher", "lower", "auto")
"""Which scores mean the positive class: higher (the default), lower, or chosen on the data (auto)."""


def _oriented(prepared: _Prepared, direction: str) -> _Prepared:
    """``prepared`` with its direction: given, or for "auto" chosen as pROC chooses it (lower when the
    negatives' median score is above the positives'), with a note that says so and that the AUC is then
    biased upward."""
    if direction not in DIRECTIONS:
        raise InvalidInput(f"{direction!r} is not one of {list(DIRECTIONS)}", field="direction")
    if direction == "higher" or prepared.scores is None:
        if direction != "higher" and prepared.proba is not None:
            raise InvalidInput("a direction applies to a score column, not to probabilities", field="direction")
        return prepared
    if prepared.proba is not None:
        raise InvalidInput("a direction applies to a score column, not to probabilities", field="direction")
    notes = list(prepared.notes)
    if direction == "auto":
        p = prepared.labels.index(prepared.positive)
        positives, negatives = prepared.scores[prepared.true_codes == p], prepared.scores[prepared.true_codes != p]
        direction = "lower" if float(np.median(negatives)) > float(np.median(positives)) else "higher"
        notes.append(auto_direction_note(direction))
    else:
        notes.append(LOWER_NOTE)
    return replace(prepared, direction=direction, notes=tuple(notes))


LOWER_NOTE = ("direction lower: lower scores mean the positive class; predicted positive iff score <= the threshold, "
              "and every threshold is in the scores' own units")


def auto_direction_note(direction: str) -> str:
    return (f"direction {direction}, chosen on these data (as pROC's direction=\"auto\": the class with the higher "
            "median score is taken as the one the scores point to): choosing it on the same data biases the AUC "
            "upward" + ("; predicted positive iff score <= the threshold" if direction == "lower" else ""))


def positive_class(positive: Any, pos_label: Any) -> Any:
    """The positive class given as ``pos_label`` (scikit-learn's name) or ``positive`` (the same)."""
    if pos_label is not None and positive is not None and pos_label != positive:
        raise InvalidInput(f"pos_label={pos_label!r} and positive={positive!r} name the same thing: give one",
                           field="pos_label")
    return pos_label if pos_label is not None else positive


SCORE_LIKE = 10
"""Distinct predicted values, not classes of the truth and not whole numbers, from which predicted labels
are taken for scores given by mistake."""


def _check_predicted_labels(labels: Sequence[str], true_codes: np.ndarray, pred_codes: np.ndarray) -> None:
    k = len(labels)
    check_predicted_labels(labels, np.bincount(true_codes, minlength=k) > 0, np.bincount(pred_codes, minlength=k) > 0)


def check_predicted_labels(labels: Sequence[str], in_truth: np.ndarray, in_pred: np.ndarray) -> None:
    """Refuse predictions that cannot be labels of these classes: scores or probabilities given as labels
    (many distinct numbers that are not whole and not classes of the truth), or labels of which none is
    a class of the truth (0/1 against benign/malignant). ``in_truth``, ``in_pred``: whether each label
    occurs in the truth, in the predictions."""
    foreign = [labels[c] for c in np.flatnonzero(in_pred & ~in_truth)]

    def fractional(label: str) -> bool:
        try:
            value = float(label)
        except ValueError:
            return False
        return math.isfinite(value) and not value.is_integer()

    numbers = sum(fractional(label) for label in foreign)
    if numbers >= SCORE_LIKE and numbers * 2 > int(in_pred.sum()):
        raise InvalidInput(f"holds {int(in_pred.sum()):,} distinct values, {numbers:,} of them numbers that are not "
                           f"classes of the truth: scores or probabilities? give them as {{option:y_score}}",
                           field="y_pred")
    if not (in_pred & in_truth).any():
        def some(names: list[str]) -> str:
            return ", ".join(names[:6]) + (f", ... ({len(names):,} in all)" if len(names) > 6 else "")

        truth = [labels[c] for c in np.flatnonzero(in_truth)]
        raise InvalidInput(f"no predicted label is a class of the truth: the truth has {some(truth)}; the "
                           f"predictions have {some(foreign)} (if that is right, {{option:allow_disjoint_labels=True}})",
                           field="y_pred")


def _prepare(y_true: Any, *, y_pred: Any, y_score: Any, y_proba: Any, labels: Sequence[Any] | None,
             positive: Any, score_name: str | None, allow_disjoint_labels: bool = False) -> _Prepared:
    given = [name for name, v in (("y_pred", y_pred), ("y_score", y_score), ("y_proba", y_proba)) if v is not None]
    if len(given) != 1:
        raise InvalidInput("give exactly one of y_pred, y_score or y_proba" +
                           (f" (got {', '.join(given)})" if given else ""))
    if y_pred is not None:
        enc = encode_labels({"y_true": y_true, "y_pred": y_pred}, labels=labels)
        all_labels, true_codes = enc.labels, enc.codes["y_true"]
        if labels is None and not allow_disjoint_labels:
            _check_predicted_labels(enc.labels, true_codes, enc.codes["y_pred"])
        _require_two_classes(true_codes, all_labels)
        chosen, notes = _positive_of(all_labels, positive)
        return _Prepared(all_labels, true_codes, chosen, notes, pred_codes=enc.codes["y_pred"],
                         classes=enc.classes())
    if y_score is not None:
        enc = encode_labels({"y_true": y_true}, labels=labels)
        all_labels, true_codes = enc.labels, enc.codes["y_true"]
        _require_two_classes(true_codes, all_labels)
        if len(all_labels) != 2:
            raise InvalidInput(
                f"has {len(all_labels)} classes; a single score column needs two (give y_proba instead)",
                field="y_true",
            )
        scores = as_scores(y_score, "y_score")
        if len(scores) != len(true_codes):
            raise InvalidInput(f"has {len(scores)} values but y_true has {len(true_codes)}", field="y_score")
        chosen, why = choose_positive(all_labels, positive=positive, score_name=score_name or name_of(y_score))
        return _Prepared(all_labels, true_codes, chosen, (f"positive class {chosen!r}: {why}",), scores=scores,
                         classes=enc.classes())
    column_notes: tuple[str, ...] = ()
    if labels is None and _plain_matrix(y_proba):  # predict_proba's array: its columns are classes_, sorted
        labels, column_notes = _sorted_columns(y_true, y_proba)
    matrix, columns = as_proba(y_proba, labels=labels)
    enc = encode_labels({"y_true": y_true}, labels=columns)
    all_labels = sorted_labels(enc.labels)
    order = np.array([enc.labels.index(label) for label in all_labels], dtype=np.intp)
    matrix = matrix[:, order]
    true_codes = np.argsort(order)[enc.codes["y_true"]]
    held = tuple(enc.classes()[i] for i in order)
    if matrix.shape[0] != len(true_codes):
        raise InvalidInput(f"has {matrix.shape[0]} rows but y_true has {len(true_codes)}", field="y_proba")
    _require_two_classes(true_codes, all_labels)
    if len(all_labels) == 2:
        chosen, notes = _positive_of(all_labels, positive)
        return _Prepared(all_labels, true_codes, chosen, column_notes + notes,
                         scores=matrix[:, all_labels.index(chosen)], proba=matrix, classes=held)
    if positive is not None:
        raise InvalidInput(
            f"a positive class applies to two-class data; these data have {len(all_labels)} classes", field="positive"
        )
    return _Prepared(all_labels, true_codes, None, column_notes, pred_codes=np.argmax(matrix, axis=1), matrix=matrix,
                     proba=matrix, classes=held)


COLUMNS_NOTE = "y_proba's columns"
"""How the note on the columns of an unnamed probability matrix begins."""


def _plain_matrix(y_proba: Any) -> bool:
    """Whether ``y_proba`` is an array of two dimensions (not a mapping or a data frame, whose columns are named)."""
    if isinstance(y_proba, Mapping) or (hasattr(y_proba, "columns") and not isinstance(y_proba, np.ndarray)):
        return False
    try:
        return np.ndim(y_proba) == 2
    except (TypeError, ValueError):
        return False


def _sorted_columns(y_true: Any, y_proba: Any) -> tuple[list[Any], tuple[str, ...]]:
    """The classes of an (n, k) probability array's columns when none are named: the classes of ``y_true`` in
    sorted order, as scikit-learn's ``classes_`` (``np.unique``) are, and ``predict_proba``'s columns follow;
    refused when k is not their number, or when they do not sort (numbers and text mixed)."""
    held = encode_labels({"y_true": y_true}).classes()
    k = np.shape(y_proba)[1]
    try:
        classes = sorted(held)
    except TypeError:
        raise InvalidInput(f"the classes of y_true {list(held)!r} have no sorted order to take the columns in: name "
                           "the class of each column with labels=[...] (predict_proba's: labels=model.classes_)",
                           field="y_proba") from None
    if k != len(classes):
        raise InvalidInput(f"has {k} columns but y_true holds {len(classes)} classes {classes!r}: name the class of "
                           "each column with labels=[...] (predict_proba's: labels=model.classes_, which holds the "
                           "classes the model was trained on)", field="y_proba")
    return classes, (f"{COLUMNS_NOTE} taken as the classes in sorted order, {classes!r}, as scikit-learn's classes_ "
                     "and predict_proba's columns are (labels=[...] names them otherwise)",)


def _positive_of(labels: tuple[str, ...], positive: Any) -> tuple[str | None, tuple[str, ...]]:
    if len(labels) == 2:
        chosen, why = choose_positive(labels, positive=positive)
        return chosen, (f"positive class {chosen!r}: {why}",)
    if positive is not None:
        raise InvalidInput(
            f"a positive class applies to two-class data; these data have {len(labels)} classes", field="positive"
        )
    return None, ()


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
    confidence = check_confidence(confidence)
    prepared = _prepare(y_true, y_pred=None, y_score=y_score, y_proba=y_proba, labels=labels,
                        positive=positive_class(positive, pos_label), score_name=score_name)
    if prepared.scores is None:
        raise InvalidInput("ranking curves need two classes with scores", field="y_proba")
    prepared = _oriented(prepared, direction)
    if sample_weight is not None:
        prepared = replace(prepared, weights=check_weights(sample_weight, len(prepared.true_codes)))
        summary = prepared.summary()
        if not (summary.n_positive > 0 and summary.n_negative > 0):
            raise InvalidInput("leaves a class with no weight above 0: the curves need both", field="sample_weight")
    result = analyse_scores(prepared.summary(), confidence=confidence, costs=_as_costs(costs),
                          deployment_prevalence=_check_prevalence(prevalence), fpr_range=fpr_range,
                          lift_depth=lift_depth, roc_bins=roc_bins, at_specificity=at_specificity,
                          at_sensitivity=at_sensitivity, roc_band=roc_band, sensitivity_range=sensitivity_range,
                          constraints=constraints, direction=prepared.direction,
                          bootstrap=BootstrapSettings(check_resamples(bootstrap), check_seed(seed)))
    said = tuple(note for note in prepared.notes if note.startswith(("direction", COLUMNS_NOTE)))
    return replace(result, notes=said + result.notes) if said else result


def matrix_costs_of(cost_matrix: Any, costs: Any, labels: Sequence[str]) -> np.ndarray | None:
    """A cost matrix in label order, checked; refused beside fp/fn costs (one or the other)."""
    if cost_matrix is None:
        return None
    if costs is not None:
        raise InvalidInput("give the costs as fp/fn ({option:costs}) or as a matrix, not both", field="cost_matrix")
    from assay.evaluation.costs import cost_matrix_of

    return cost_matrix_of(cost_matrix, labels)


def cost_matrix_notes(cost_matrix: Any, labels: Sequence[str]) -> list[str]:
    """The note for a cost matrix that names classes the data do not hold (used without their rows)."""
    if cost_matrix is None:
        return []
    from assay.evaluation.costs import unused_classes_note

    note = unused_classes_note(cost_matrix, labels)
    return [note] if note else []


def threshold_costs_of(costs: Any, cost_matrix: Any, labels: Sequence[str], positive: str | None) -> Costs:
    """The costs of the threshold analysis of two-class scores: fp/fn costs as given (default: each error
    costs 1), or a two-class cost matrix's four cells: one cost everywhere."""
    if cost_matrix is None or positive is None or len(labels) != 2:
        return _as_costs(costs)
    from assay.evaluation.costs import ranking_costs

    return ranking_costs(matrix_costs_of(cost_matrix, costs, labels), labels, positive)


def _check_kappa_weights(value: Any) -> str | None:
    from assay.inference.kappa import KAPPA_WEIGHTS

    if value is None or value in KAPPA_WEIGHTS:
        return value
    raise InvalidInput(f"{value!r} is not one of {list(KAPPA_WEIGHTS)}", field="kappa_weights")


def _check_auc_interval(value: str) -> AUCInterval:
    if value not in ("delong", "bootstrap"):
        raise InvalidInput(f"{value!r} is not one of ['delong', 'bootstrap']", field="auc_interval")
    return value  # type: ignore[return-value]


def _check_prevalence(value: float | None) -> float | None:
    if value is None:
        return None
    return check_number(value, "prevalence", low=0.0, high=1.0, low_open=True, high_open=True,
                        what="a share strictly between 0 and 1")


def _as_costs(costs: Costs | Mapping[str, float] | None) -> Costs:
    """Costs from a mapping such as {"fp": 1, "fn": 10}; errors name the bad key."""
    if costs is None:
        return Costs()
    if isinstance(costs, Costs):
        values = costs.to_dict()
    else:
        values = dict(Costs().to_dict())
        if not isinstance(costs, Mapping):
            raise InvalidInput(f"expected a mapping such as {{'fp': 1, 'fn': 10}}, got {costs!r}", field="costs")
        for key, value in costs.items():
            if key not in values:
                raise InvalidInput(f"{key!r} is not one of fp, fn, tp, tn", field="costs")
            values[key] = value
    checked = {}
    for key, value in values.items():
        try:
            checked[key] = check_number(value, "costs")
        except InvalidInput as e:
            raise InvalidInput(f"the cost of {key} {e.problem}", field="costs") from None
    result = Costs(**checked)
    if result.fp <= result.tn or result.fn <= result.tp:
        raise InvalidInput("an error must cost more than the right answer (fp > tn and fn > tp)", field="costs")
    return result


THRESHOLD_CRITERIA = {"youden": "Youden's J (the largest TPR - FPR)",
                      "closest": "the ROC point closest to the corner (0, 1)",
                      "cost": "the least expected cost"}
"""Criteria that choose a threshold on the data: ``threshold="youden"``, ``"closest"`` or ``"cost"``."""


def chosen_threshold(criterion: str, summary: ScoreCounts, *, costs: Any = None,
                     prevalence: float | None = None, direction: str = "higher") -> tuple[float, str]:
    """The threshold a criterion picks on the ROC curve of a score summary, and the note that says it is
    optimistic. ``cost``: the least expected cost per instance with ``costs`` (default: both errors
    cost 1) at ``prevalence`` (default: the data's)."""
    from assay.evaluation.ranking import choice_of, cost_at
    from assay.metrics.ranking import threshold_counts

    if criterion not in THRESHOLD_CRITERIA:
        raise InvalidInput(f"{criterion!r} is neither a number nor one of {list(THRESHOLD_CRITERIA)}",
                           field="threshold")
    tc = threshold_counts(summary)
    what = THRESHOLD_CRITERIA[criterion]
    if criterion == "youden":
        choice = choice_of("youden", tc, lambda fpr, tpr: tpr - fpr, best="max")
    elif criterion == "closest":
        choice = choice_of("closest_to_corner", tc, lambda fpr, tpr: np.hypot(fpr, 1.0 - tpr), best="min")
    else:
        c = costs if isinstance(costs, Costs) else _as_costs(costs)  # Costs: a cost matrix's cells, as they are
        pi = _check_prevalence(prevalence)
        if pi is None:
            pi = float(tc.n_positive) / (float(tc.n_positive) + float(tc.n_negative))
        choice = choice_of("min_expected_cost", tc, lambda fpr, tpr: cost_at(c, pi, fpr, tpr), best="min")
        what += f" (false positive {c.fp:g}, false negative {c.fn:g}; positives {pi:.4g})"
    shown = -choice.threshold if direction == "lower" else choice.threshold
    return float(choice.threshold), (f"threshold {shown:.6g} chosen by {what} on these same data: the "
                                     "metrics at it are optimistic (choose it on other data to estimate them "
                                     "fairly)")


def _resolve_threshold(threshold: float | None, scores: np.ndarray) -> float:
    if threshold is None:
        low, high = float(scores.min()), float(scores.max())
        if low < 0.0 or high > 1.0:
            raise InvalidInput(
                f"scores range from {low:g} to {high:g}, so they are not probabilities: give a threshold (a "
                f"number, or youden, closest or cost to choose one on these data)",
                field="threshold",
            )
        return DEFAULT_THRESHOLD
    return check_number(threshold, "threshold")


def _evaluation(
    cm: ConfusionCounts,
    positive: str | None,
    threshold: float | None,
    confidence: float,
    interval: str,
    beta: float,
    settings: BootstrapSettings,
    notes: list[str],
    costs: Costs | None = None,
    prevalence: float | None = None,
    kappa_weights: str | None = None,
    cost_matrix: np.ndarray | None = None,
) -> Evaluation:
    analysis = analyse_confusion(cm, positive=positive, confidence=confidence, interval=interval, beta=beta,
                                 bootstrap=settings, costs=costs, prevalence=prevalence,
                                 kappa_weights=_check_kappa_weights(kappa_weights), cost_matrix=cost_matrix)
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
        interval=interval,
        beta=float(beta),
        bootstrap=settings,
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
    Seed 002, kappa example 2: 90% of class A; 80% accuracy, P(E) = 0.74.

    >>> r = evaluate_confusion([[75, 15], [5, 5]], labels=["A", "B"], positive="B")
    >>> round(r["chance_agreement"].value, 2), round(r["kappa"].value, 2)
    (0.74, 0.23)
    """
    confidence, settings = _check_options(confidence, interval, beta, bootstrap, seed)
    if isinstance(matrix, ConfusionCounts):
        cm = matrix if labels is None else matrix.with_labels([canonical_label(v, matrix.labels) for v in labels])
    else:
        counts = check_count_table(matrix, "matrix")
        k = counts.shape[0]
        if labels is None:
            names = tuple(str(i) for i in range(k))
        else:
            from assay.inputs import _label_list

            declared = _label_list(labels)  # a list of labels, or InvalidInput
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
    matrix = matrix_costs_of(cost_matrix, costs, cm.labels)
    return _evaluation(cm, chosen, None, confidence, interval, beta, settings,
                       notes + cost_matrix_notes(cost_matrix, cm.labels),
                       *_label_costs(costs, prevalence, cm.labels), kappa_weights=kappa_weights, cost_matrix=matrix)


def _label_costs(costs: Any, prevalence: Any, labels: Sequence[str]) -> tuple[Costs | None, float | None]:
    """The costs (the predictions' expected cost) and the deployment prevalence (the cost there, and the
    predictive values there) of two classes, checked."""
    if costs is None and prevalence is None:
        return None, None
    if len(labels) != 2:
        field, what = ("costs", "costs of false positives and negatives apply") if costs is not None else \
            ("prevalence", "a prevalence of the positive class applies")
        raise InvalidInput(f"{what} to two classes; these data have {len(labels)}", field=field)
    return (None if costs is None else _as_costs(costs)), _check_prevalence(prevalence)
