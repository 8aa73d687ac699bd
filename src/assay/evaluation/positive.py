"""The positive class of two-class data, and the checks that predicted labels are labels of these classes.

The positive class is the one asked for, else the class a score column is named after, else the one label
that reads as positive (1, true, yes, pos, ...), else the second in sorted order, as scikit-learn does.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from assay.errors import InvalidInput
from assay.inputs import canonical_label

__all__ = ["POSITIVE_WORDS", "SCORE_LIKE", "choose_positive", "positive_class", "check_predicted_labels",
           "check_predicted_codes"]


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


def positive_class(positive: Any, pos_label: Any) -> Any:
    """The positive class given as ``pos_label`` (scikit-learn's name) or ``positive`` (the same)."""
    if pos_label is not None and positive is not None and pos_label != positive:
        raise InvalidInput(f"pos_label={pos_label!r} and positive={positive!r} name the same thing: give one",
                           field="pos_label")
    return pos_label if pos_label is not None else positive


SCORE_LIKE = 10
"""Distinct predicted values, not classes of the truth and not whole numbers, from which predicted labels
are taken for scores given by mistake."""


def check_predicted_codes(labels: Sequence[str], true_codes: np.ndarray, pred_codes: np.ndarray) -> None:
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


