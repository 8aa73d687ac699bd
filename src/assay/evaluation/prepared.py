"""Predictions held in memory, checked and coded: the classes, the truth's codes, the positive class, and the
predictions as labels, two-class scores (oriented by the direction) or class probabilities, with any sample
weights. What :func:`assay.evaluate`, :func:`assay.rank` and the paired comparisons start from."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from assay.errors import InvalidInput
from assay.evaluation.costs import threshold_costs_of
from assay.evaluation.directions import LOWER_NOTE, auto_direction_note
from assay.evaluation.options import Options
from assay.evaluation.positive import check_predicted_codes, choose_positive
from assay.evaluation.thresholds import chosen_threshold, resolve_threshold
from assay.inputs import as_proba, as_scores, encode_labels, name_of, sorted_labels
from assay.limits import MAX_COUNT
from assay.summaries.confusion import ConfusionCounts
from assay.summaries.probabilities import TwoClassScores
from assay.summaries.scores import ScoreCounts

__all__ = ["Prepared", "prepare", "predictions", "oriented", "check_weights", "repeated", "weights_note",
           "require_two_weighted_classes", "is_probabilities", "COLUMNS_NOTE", "NO_WEIGHTED_PART", "MAX_REPEATED"]


def require_two_classes(true_codes: np.ndarray, labels: tuple[str, ...], field: str = "y_true") -> None:
    if len(true_codes) == 0:
        raise InvalidInput("no instances to evaluate", field=field)
    if not (true_codes != true_codes[0]).any():  # one comparison a row, not a count of every class
        raise InvalidInput(
            f"has a single class ({labels[true_codes[0]]!r}); at least two classes are needed to evaluate a "
            "classifier", field=field,
        )


def is_probabilities(scores: np.ndarray) -> bool:
    return bool(scores.min() >= 0.0 and scores.max() <= 1.0)


MAX_REPEATED = 20_000_000
"""The largest total of whole-number weights for which the analyses that need the instances themselves
(probabilities of several classes) repeat each instance as many times as its weight."""


NO_WEIGHTED_PART = ("{what}: none, as the sample weights are not whole numbers (they need instances; whole-number "
                     "weights count each instance that many times)")


def repeated(prepared: Prepared, notes: list[str], what: str) -> Prepared | None:
    """The instances, each repeated as many times as its whole-number weight (``prepared`` itself when
    unweighted); None, with a note, when the weights are not whole or their total is too large."""
    w = prepared.weights
    if w is None:
        return prepared
    if not bool(np.all(w == np.floor(w))):
        notes.append(NO_WEIGHTED_PART.format(what=what))
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


def weights_note(cm: ConfusionCounts) -> str:
    if cm.weighted:
        return ("sample weights that are not whole numbers: the estimates are weighted (as scikit-learn's "
                "sample_weight), with no intervals or tests, which need counts of instances")
    return f"sample weights are whole numbers: each instance counts that many times ({cm.n:,} in all)"


def require_two_weighted_classes(cm: ConfusionCounts) -> None:
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
    options: Options,
    *,
    y_pred: Any = None,
    y_score: Any = None,
    y_proba: Any = None,
    labels: Sequence[Any] | None = None,
    positive: Any = None,
    score_name: str | None = None,
    allow_disjoint_labels: bool = False,
    sample_weight: Any = None,
    allow_no_threshold: bool = False,
) -> tuple[Prepared, np.ndarray | None, float | None]:
    """Validated inputs, the predicted class codes, and the threshold used (None for labels).
    What ``evaluate`` counts, per instance, with ``options``' threshold (a number or a criterion), direction and
    costs: for the paired comparisons that need the instances themselves. With ``allow_no_threshold``, scores
    that are not probabilities and no threshold give no predicted codes (None) instead of an error.
    """
    threshold, costs, prevalence = options.threshold, options.costs, options.prevalence
    prepared = prepare(y_true, y_pred=y_pred, y_score=y_score, y_proba=y_proba, labels=labels, positive=positive,
                        score_name=score_name, allow_disjoint_labels=allow_disjoint_labels)
    if sample_weight is not None:
        prepared = replace(prepared, weights=check_weights(sample_weight, len(prepared.true_codes)))
    prepared = oriented(prepared, options.direction)
    if prepared.scores is not None:
        lower = prepared.direction == "lower"
        if isinstance(threshold, str):  # a criterion: the threshold chosen on these same data
            chosen_costs = threshold_costs_of(costs, options.cost_matrix, prepared.labels, prepared.positive) \
                if threshold == "cost" else costs
            used, note = chosen_threshold(threshold, prepared.summary(), costs=chosen_costs, prevalence=prevalence,
                                          direction=prepared.direction)
            used = -used if lower else used
            prepared = replace(prepared, notes=prepared.notes + (note,))
        elif threshold is None and allow_no_threshold and not is_probabilities(prepared.scores):
            return prepared, None, None
        else:
            used = resolve_threshold(threshold, prepared.scores)
        p = prepared.labels.index(prepared.positive)
        positive_side = prepared.scores <= used if lower else prepared.scores >= used
        predicted = positive_side if p == 1 else ~positive_side  # where class 1 (code 1) is predicted
        return prepared, predicted.astype(np.int64), used
    if threshold is not None:
        if y_pred is not None:
            raise InvalidInput("a threshold applies to scores or probabilities, not to predicted labels",
                               field="threshold")
        raise InvalidInput("a threshold applies to two classes; with more, the most probable class is predicted",
                           field="threshold")
    return prepared, prepared.pred_codes, None


@dataclass(frozen=True)
class Prepared:
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
            return TwoClassScores(self.scores, self.labels.index(self.positive))
        return None

    def summary(self) -> ScoreCounts:
        """The counts per distinct score (whole-number weights: counts; other weights: their totals), made
        once (a sort of the scores) and kept: every analysis of these predictions reads the same summary, so
        the folds asked ahead of its walk (:func:`assay.metrics.ranking.want`) share one walk."""
        made = self.__dict__.get("_summary")
        if made is None:
            made = self._summary_made()
            self.__dict__["_summary"] = made
        return made

    def _summary_made(self) -> ScoreCounts:
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


def oriented(prepared: Prepared, direction: str) -> Prepared:
    """``prepared`` with its direction: given, or for "auto" chosen as pROC chooses it (lower when the
    negatives' median score is above the positives'), with a note that says so and that the AUC is then
    biased upward."""
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


def prepare(y_true: Any, *, y_pred: Any, y_score: Any, y_proba: Any, labels: Sequence[Any] | None,
             positive: Any, score_name: str | None, allow_disjoint_labels: bool = False) -> Prepared:
    given = [name for name, v in (("y_pred", y_pred), ("y_score", y_score), ("y_proba", y_proba)) if v is not None]
    if len(given) != 1:
        raise InvalidInput("give exactly one of y_pred, y_score or y_proba" +
                           (f" (got {', '.join(given)})" if given else ""))
    if y_pred is not None:
        enc = encode_labels({"y_true": y_true, "y_pred": y_pred}, labels=labels)
        all_labels, true_codes = enc.labels, enc.codes["y_true"]
        if labels is None and not allow_disjoint_labels:
            check_predicted_codes(enc.labels, true_codes, enc.codes["y_pred"])
        require_two_classes(true_codes, all_labels)
        chosen, notes = _positive_of(all_labels, positive)
        return Prepared(all_labels, true_codes, chosen, notes, pred_codes=enc.codes["y_pred"],
                         classes=enc.classes())
    if y_score is not None:
        enc = encode_labels({"y_true": y_true}, labels=labels)
        all_labels, true_codes = enc.labels, enc.codes["y_true"]
        require_two_classes(true_codes, all_labels)
        if len(all_labels) != 2:
            raise InvalidInput(
                f"has {len(all_labels)} classes; a single score column needs two (give y_proba instead)",
                field="y_true",
            )
        scores = as_scores(y_score, "y_score")
        if len(scores) != len(true_codes):
            raise InvalidInput(f"has {len(scores)} values but y_true has {len(true_codes)}", field="y_score")
        chosen, why = choose_positive(all_labels, positive=positive, score_name=score_name or name_of(y_score))
        return Prepared(all_labels, true_codes, chosen, (f"positive class {chosen!r}: {why}",), scores=scores,
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
    require_two_classes(true_codes, all_labels)
    if len(all_labels) == 2:
        chosen, notes = _positive_of(all_labels, positive)
        return Prepared(all_labels, true_codes, chosen, column_notes + notes,
                         scores=matrix[:, all_labels.index(chosen)], proba=matrix, classes=held)
    if positive is not None:
        raise InvalidInput(
            f"a positive class applies to two-class data; these data have {len(all_labels)} classes", field="positive"
        )
    return Prepared(all_labels, true_codes, None, column_notes, pred_codes=np.argmax(matrix, axis=1), matrix=matrix,
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


