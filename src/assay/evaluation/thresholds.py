"""Thresholds: the default on probabilities, a number checked against the scores, or one chosen on the data by a
criterion (Youden's J, the ROC point closest to (0, 1), the least expected cost; Fawcett 2006)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from assay.checks import check_number
from assay.errors import InvalidInput
from assay.evaluation.costs import Costs, as_costs, cost_at
from assay.evaluation.options import THRESHOLD_CRITERIA
from assay.inference.estimate import finite_or_none
from assay.metrics.ranking import (
    ThresholdCounts,
    best_points,
    roc_point,
    threshold_counts,
)
from assay.summaries.scores import ScoreCounts

__all__ = ["ThresholdChoice", "choice_of", "choices_of", "DEFAULT_THRESHOLD", "THRESHOLD_CRITERIA", "chosen_threshold",
           "resolve_threshold", "ThresholdCriterion", "threshold_criterion"]


DEFAULT_THRESHOLD = 0.5
"""The threshold on probabilities when none is given: positive iff p >= 0.5."""


def chosen_threshold(criterion: str, summary: ScoreCounts, *, costs: Any = None,
                     prevalence: float | None = None, direction: str = "higher") -> tuple[float, str]:
    """The threshold a criterion picks on the ROC curve of a score summary, and the note that says it is
    optimistic. ``cost``: the least expected cost per instance with ``costs`` (default: both errors
    cost 1) at ``prevalence`` (default: the data's)."""
    tc = threshold_counts(summary)
    criterion_of = threshold_criterion(criterion, tc, costs=costs, prevalence=prevalence)
    choice = choice_of(criterion_of.name, tc, criterion_of.objective, best=criterion_of.best)
    shown = -choice.threshold if direction == "lower" else choice.threshold
    return float(choice.threshold), (f"threshold {shown:.6g} chosen by {criterion_of.what} on these same data: the "
                                     "metrics at it are optimistic (choose it on other data to estimate them "
                                     "fairly)")


@dataclass(frozen=True)
class ThresholdCriterion:
    """A criterion of :data:`THRESHOLD_CRITERIA` as the ROC curve is searched with it: the name of its
    :class:`ThresholdChoice`, ``objective(fpr, tpr)`` (elementwise, any shape), whether its ``best`` is the
    "max" or the "min", and ``what`` it is in words."""
    name: str
    objective: Any
    best: Literal["max", "min"]
    what: str


def threshold_criterion(criterion: str, tc: ThresholdCounts, *, costs: Any = None,
                        prevalence: float | None = None) -> ThresholdCriterion:
    """The objective of a criterion (``youden``, ``closest`` or ``cost``), defined once for the choice on
    the data (:func:`chosen_threshold`) and for its re-choice in each bootstrap resample
    (:mod:`assay.evaluation.threshold_stability`). ``cost``: ``costs`` (default: both errors cost 1) at
    ``prevalence`` (default: the share of positives in ``tc``)."""
    if criterion not in THRESHOLD_CRITERIA:
        raise InvalidInput(f"{criterion!r} is neither a number nor one of {list(THRESHOLD_CRITERIA)}",
                           field="threshold")
    what = THRESHOLD_CRITERIA[criterion]
    if criterion == "youden":
        return ThresholdCriterion("youden", lambda fpr, tpr: tpr - fpr, "max", what)
    if criterion == "closest":
        return ThresholdCriterion("closest_to_corner", lambda fpr, tpr: np.hypot(fpr, 1.0 - tpr), "min", what)
    c = costs if isinstance(costs, Costs) else as_costs(costs)  # Costs: a cost matrix's cells, as they are
    pi = prevalence
    if pi is None:
        pi = float(tc.n_positive) / (float(tc.n_positive) + float(tc.n_negative))
    return ThresholdCriterion("min_expected_cost", lambda fpr, tpr: cost_at(c, pi, fpr, tpr), "min",
                              what + f" (false positive {c.fp:g}, false negative {c.fn:g}; positives {pi:.4g})")


def resolve_threshold(threshold: float | None, scores: np.ndarray) -> float:
    """The threshold to use: as given, else the default 0.5 when the scores are probabilities (an error when they
    are not: a number or a criterion is then needed)."""
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


@dataclass(frozen=True)
class ThresholdChoice:
    """A threshold chosen by a criterion, and where it puts the classifier."""
    criterion: str
    threshold: float
    fpr: float
    tpr: float
    value: float
    ties: int = 1

    def to_dict(self) -> dict[str, Any]:
        return {"threshold": finite_or_none(self.threshold), "fpr": self.fpr, "tpr": self.tpr,
                "value": finite_or_none(self.value), "ties": self.ties, "criterion": self.criterion}


def choice_of(criterion: str, tc: ThresholdCounts, objective: Any, *, best: Literal["max", "min"]) -> ThresholdChoice:
    """The first ROC point that is best for ``objective(fpr, tpr)``, and how many tie with it (to 1e-12)."""
    return choices_of(tc, [(criterion, objective, best)])[0]


def choices_of(tc: ThresholdCounts, criteria: list[tuple[str, Any, str]],
               found: list[tuple[int, float, int]] | None = None) -> list[ThresholdChoice]:
    """:func:`choice_of` of each (criterion, objective, best), all found in the same walk of the curve; or
    from the points ``found`` by a walk shared with other metrics (:class:`assay.metrics.ranking.BestFold`
    of the same objectives)."""
    if found is None:
        found = best_points(tc, [(o, b) for _, o, b in criteria])
    out = []
    for (criterion, _, _), (i, value, hits) in zip(criteria, found):
        threshold, fpr, tpr = roc_point(tc, i)
        out.append(ThresholdChoice(criterion, threshold, fpr, tpr, value, hits))
    return out


