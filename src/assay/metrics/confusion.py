"""Metrics of a confusion matrix: pure functions of the counts.

Two families, both vectorised over leading axes so that the very same formula
gives the point estimate and every bootstrap replicate:

* binary metrics take the four cells ``Cells(tp, fp, fn, tn)`` (numbers or
  arrays); a multi-class matrix gives them one class at a time, one-vs-rest;
* whole-matrix metrics (accuracy, kappa, multi-class MCC, ...) take matrices
  of shape ``(..., k, k)``, rows actual and columns predicted.

A value whose formula divides by zero is NaN here; the registry entry of each
metric says in words why (``undefined``). Nothing is silently 0.

References
----------
T. Fawcett (2006), An introduction to ROC analysis; I. H. Witten, E. Frank, *Data
Mining*, ch. 5; Cohen (1960) and Carletta (1996) for kappa; Matthews (1975) and
Gorodkin (2004) for MCC; Powers (2011) for informedness and markedness.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, NamedTuple

import numpy as np

__all__ = [
    "Cells",
    "one_vs_rest",
    "BinaryMetric",
    "MatrixMetric",
    "BINARY_METRICS",
    "MATRIX_METRICS",
    "fbeta",
    "expected_random",
    "chance_agreement",
]


class Cells(NamedTuple):
    """The four cells of a binary confusion matrix (numbers or arrays)."""

    tp: np.ndarray
    fp: np.ndarray
    fn: np.ndarray
    tn: np.ndarray

    @property
    def positives(self) -> np.ndarray:
        return self.tp + self.fn

    @property
    def negatives(self) -> np.ndarray:
        return self.fp + self.tn

    @property
    def predicted_positives(self) -> np.ndarray:
        return self.tp + self.fp

    @property
    def predicted_negatives(self) -> np.ndarray:
        return self.fn + self.tn

    @property
    def n(self) -> np.ndarray:
        return self.tp + self.fp + self.fn + self.tn


class MatrixStack(np.ndarray):
    """A stack of confusion matrices of whole counts (shape (B, k, k)) that computes its one-vs-rest cells once.

    The bootstrap asks for the cells of every class, one statistic at a time: from a
    plain array each request would sum the whole stack again (k requests of B k²
    each, cubic in k); from a ``MatrixStack`` they are read off one computation.
    """

    def ovr(self) -> Cells:
        cells = getattr(self, "_ovr", None)
        if cells is None:
            m = np.asarray(self, dtype=np.float64)
            # whole counts: their sums are exact in any order, so einsum's (a few times faster than numpy's
            # reductions over axes this short) are the very same numbers
            cells = _cells(m, np.einsum("...ij->...i", m), np.einsum("...ij->...j", m))
            self._ovr = cells
        return cells


def one_vs_rest(matrices: np.ndarray, index: int | None = None) -> Cells:
    """Cells of class ``index`` against all others (every class when None).

    ``matrices`` has shape ``(..., k, k)``; with ``index=None`` each cell array
    gains a trailing axis of length k.

    Examples
    --------
    >>> c = one_vs_rest(np.array([[5, 1], [2, 7]]), 1)
    >>> float(c.tp), float(c.fp), float(c.fn), float(c.tn)
    (7.0, 1.0, 2.0, 5.0)
    """
    cells = matrices.ovr() if isinstance(matrices, MatrixStack) else _one_vs_rest(matrices)
    if index is None:
        return cells
    return Cells(cells.tp[..., index], cells.fp[..., index], cells.fn[..., index], cells.tn[..., index])


def _one_vs_rest(matrices: np.ndarray) -> Cells:
    m = np.asarray(matrices, dtype=np.float64)
    return _cells(m, m.sum(axis=-1), m.sum(axis=-2))


def _cells(m: np.ndarray, actual: np.ndarray, predicted: np.ndarray) -> Cells:
    """The one-vs-rest cells of every class of matrices ``m`` (floats) from their row and column sums."""
    diag = np.diagonal(m, axis1=-2, axis2=-1)
    total = m.sum(axis=(-2, -1))[..., None]
    tp, fp, fn = diag, predicted - diag, actual - diag
    tn = total - tp - fp - fn
    return Cells(tp, fp, fn, tn)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, NaN where den is 0 (inf where only the result is infinite)."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = num / den
    return np.where(den == 0, np.where(num == 0, np.nan, np.inf), out)


def _safe_ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, NaN wherever den is 0."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.full(np.broadcast_shapes(num.shape, den.shape), np.nan)
    return np.divide(num, den, out=out, where=den != 0)  # divides only where den is not 0


# ----------------------------------------------------------------------------
# binary metrics


def recall(c: Cells) -> np.ndarray:
    return _safe_ratio(c.tp, c.positives)


def specificity(c: Cells) -> np.ndarray:
    return _safe_ratio(c.tn, c.negatives)


def precision(c: Cells) -> np.ndarray:
    return _safe_ratio(c.tp, c.predicted_positives)


def npv(c: Cells) -> np.ndarray:
    return _safe_ratio(c.tn, c.predicted_negatives)


def fbeta(c: Cells, beta: float) -> np.ndarray:
    """F-beta = (1 + b^2) TP / ((1 + b^2) TP + b^2 FN + FP).

    The harmonic form, defined whenever the class occurs in the truth or the
    predictions; ``beta`` > 1 weighs recall more.
    """
    b2 = beta * beta
    return _safe_ratio((1 + b2) * c.tp, (1 + b2) * c.tp + b2 * c.fn + c.fp)


def mcc_binary(c: Cells) -> np.ndarray:
    num = c.tp * c.tn - c.fp * c.fn
    den = np.sqrt(c.predicted_positives * c.positives * c.negatives * c.predicted_negatives)
    return _safe_ratio(num, den)


def _names(P: str, N: str) -> dict[str, str]:
    return {"P": P, "N": N}


def _first(*pairs: tuple[np.ndarray, str]) -> str | None:
    for condition, message in pairs:
        if bool(condition):
            return message
    return None


Kind = Literal["proportion", "risk-ratio", "odds-ratio", "other"]


@dataclass(frozen=True)
class BinaryMetric:
    """A metric of the four cells, and what to say when it is undefined.

    ``proportion(c)`` gives (successes, trials) when the metric is a binomial
    proportion, so that inference can give it a binomial interval; ``kind``
    tells the other shapes apart (``risk-ratio`` for the likelihood ratios,
    ``odds-ratio`` for the diagnostic odds ratio). ``undefined(c, P, N)`` says why
    the value is NaN, with ``P``/``N`` naming the positive/negative side.
    """

    name: str
    title: str
    formula: str
    compute: Callable[[Cells], np.ndarray]
    undefined: Callable[[Cells, str, str], str | None]
    kind: Kind = "other"
    proportion: Callable[[Cells], tuple[np.ndarray, np.ndarray]] | None = None
    percent: bool = True


def _no_actual_pos(c: Cells, P: str, N: str) -> str | None:
    return _first((c.positives == 0, f"no actual {P}"))


def _no_actual_neg(c: Cells, P: str, N: str) -> str | None:
    return _first((c.negatives == 0, f"no actual {N}"))


def _no_pred_pos(c: Cells, P: str, N: str) -> str | None:
    return _first((c.predicted_positives == 0, f"no predicted {P}"))


def _no_pred_neg(c: Cells, P: str, N: str) -> str | None:
    return _first((c.predicted_negatives == 0, f"no predicted {N}"))


def _no_actual_either(c: Cells, P: str, N: str) -> str | None:
    return _first((c.positives == 0, f"no actual {P}"), (c.negatives == 0, f"no actual {N}"))


def _empty_margin(c: Cells, P: str, N: str) -> str | None:
    return _first(
        (c.positives == 0, f"no actual {P}"),
        (c.negatives == 0, f"no actual {N}"),
        (c.predicted_positives == 0, f"no predicted {P}"),
        (c.predicted_negatives == 0, f"no predicted {N}"),
    )


def _f_undefined(c: Cells, P: str, N: str) -> str | None:
    return _first((c.positives + c.predicted_positives == 0, f"no actual or predicted {P}"))


def _lr_pos_undefined(c: Cells, P: str, N: str) -> str | None:
    return _first(
        (c.positives == 0, f"no actual {P}"),
        (c.negatives == 0, f"no actual {N}"),
        ((c.fp == 0) & (c.tp == 0), f"no predicted {P} (0/0)"),
        (c.fp == 0, "infinite: no false positives"),
    )


def _lr_neg_undefined(c: Cells, P: str, N: str) -> str | None:
    return _first(
        (c.positives == 0, f"no actual {P}"),
        (c.negatives == 0, f"no actual {N}"),
        ((c.tn == 0) & (c.fn == 0), f"no predicted {N} (0/0)"),
        (c.tn == 0, "infinite: no true negatives"),
    )


def _dor_undefined(c: Cells, P: str, N: str) -> str | None:
    both = c.tp * c.tn
    cross = c.fp * c.fn
    return _first(
        ((cross == 0) & (both == 0), "0/0: a false cell and a true cell are both empty"),
        (cross == 0, "infinite: no false positives or no false negatives"),
    )


def _accuracy_cells(c: Cells) -> tuple[np.ndarray, np.ndarray]:
    return c.tp + c.tn, c.n


_BINARY: list[BinaryMetric] = [
    BinaryMetric("accuracy", "Accuracy", "(TP + TN) / n", lambda c: _safe_ratio(c.tp + c.tn, c.n),
                 lambda c, P, N: _first((c.n == 0, "no instances")), "proportion", _accuracy_cells),
    BinaryMetric("error_rate", "Error rate", "(FP + FN) / n", lambda c: _safe_ratio(c.fp + c.fn, c.n),
                 lambda c, P, N: _first((c.n == 0, "no instances")), "proportion", lambda c: (c.fp + c.fn, c.n)),
    BinaryMetric("recall", "Recall (sensitivity, TPR)", "TP / (TP + FN)", recall, _no_actual_pos,
                 "proportion", lambda c: (c.tp, c.positives)),
    BinaryMetric("specificity", "Specificity (TNR)", "TN / (TN + FP)", specificity, _no_actual_neg,
                 "proportion", lambda c: (c.tn, c.negatives)),
    BinaryMetric("precision", "Precision (PPV)", "TP / (TP + FP)", precision, _no_pred_pos,
                 "proportion", lambda c: (c.tp, c.predicted_positives)),
    BinaryMetric("npv", "Negative predictive value", "TN / (TN + FN)", npv, _no_pred_neg,
                 "proportion", lambda c: (c.tn, c.predicted_negatives)),
    BinaryMetric("fpr", "False positive rate", "FP / (FP + TN)", lambda c: _safe_ratio(c.fp, c.negatives),
                 _no_actual_neg, "proportion", lambda c: (c.fp, c.negatives)),
    BinaryMetric("fnr", "False negative rate", "FN / (FN + TP)", lambda c: _safe_ratio(c.fn, c.positives),
                 _no_actual_pos, "proportion", lambda c: (c.fn, c.positives)),
    BinaryMetric("fdr", "False discovery rate", "FP / (FP + TP)",
                 lambda c: _safe_ratio(c.fp, c.predicted_positives), _no_pred_pos, "proportion",
                 lambda c: (c.fp, c.predicted_positives)),
    BinaryMetric("false_omission_rate", "False omission rate", "FN / (FN + TN)",
                 lambda c: _safe_ratio(c.fn, c.predicted_negatives), _no_pred_neg, "proportion",
                 lambda c: (c.fn, c.predicted_negatives)),
    BinaryMetric("prevalence", "Prevalence", "(TP + FN) / n", lambda c: _safe_ratio(c.positives, c.n),
                 lambda c, P, N: _first((c.n == 0, "no instances")), "proportion",
                 lambda c: (c.positives, c.n)),
    BinaryMetric("detection_prevalence", "Detection prevalence", "(TP + FP) / n",
                 lambda c: _safe_ratio(c.predicted_positives, c.n),
                 lambda c, P, N: _first((c.n == 0, "no instances")), "proportion",
                 lambda c: (c.predicted_positives, c.n)),
    BinaryMetric("f1", "F1 score", "2 TP / (2 TP + FP + FN)", lambda c: fbeta(c, 1.0), _f_undefined),
    BinaryMetric("balanced_accuracy", "Balanced accuracy", "(TPR + TNR) / 2",
                 lambda c: (recall(c) + specificity(c)) / 2, _no_actual_either),
    BinaryMetric("youden_j", "Youden's J", "TPR + TNR - 1", lambda c: recall(c) + specificity(c) - 1,
                 _no_actual_either, percent=False),
    BinaryMetric("informedness", "Informedness", "TPR + TNR - 1", lambda c: recall(c) + specificity(c) - 1,
                 _no_actual_either, percent=False),
    BinaryMetric("markedness", "Markedness", "PPV + NPV - 1", lambda c: precision(c) + npv(c) - 1,
                 lambda c, P, N: _first((c.predicted_positives == 0, f"no predicted {P}"),
                                        (c.predicted_negatives == 0, f"no predicted {N}")), percent=False),
    BinaryMetric("mcc", "Matthews correlation (MCC)", "(TP TN - FP FN) / sqrt(PP P N PN)", mcc_binary,
                 _empty_margin, percent=False),
    BinaryMetric("lr_positive", "Positive likelihood ratio", "TPR / FPR",
                 lambda c: _ratio(recall(c), _safe_ratio(c.fp, c.negatives)), _lr_pos_undefined,
                 "risk-ratio", percent=False),
    BinaryMetric("lr_negative", "Negative likelihood ratio", "FNR / TNR",
                 lambda c: _ratio(_safe_ratio(c.fn, c.positives), specificity(c)), _lr_neg_undefined,
                 "risk-ratio", percent=False),
    BinaryMetric("diagnostic_odds_ratio", "Diagnostic odds ratio", "(TP TN) / (FP FN)",
                 lambda c: _ratio(c.tp * c.tn, c.fp * c.fn), _dor_undefined, "odds-ratio", percent=False),
]

BINARY_METRICS: dict[str, BinaryMetric] = {m.name: m for m in _BINARY}
"""Every binary metric by name, in display order."""


# ----------------------------------------------------------------------------
# whole-matrix metrics


def expected_random(matrix: np.ndarray) -> np.ndarray:
    """The matrix of the random predictor with the same marginals: the baseline of kappa.

    Cell (i, j) is ``actual_i * predicted_j / n``: a predictor that guesses class
    j as often as the classifier does, independently of the truth.

    Examples
    --------
    >>> expected_random(np.array([[88, 10, 2], [14, 40, 6], [18, 10, 12]])).tolist()
    [[60.0, 30.0, 10.0], [36.0, 18.0, 6.0], [24.0, 12.0, 4.0]]
    """
    m = np.asarray(matrix, dtype=np.float64)
    n = m.sum(axis=(-2, -1))[..., None, None]
    return _safe_ratio(m.sum(axis=-1)[..., :, None] * m.sum(axis=-2)[..., None, :], n)


def chance_agreement(matrices: np.ndarray) -> np.ndarray:
    """P(E) = sum_i p_i q_i: the accuracy expected by chance (Cohen, 1960; Carletta, 1996)."""
    m = np.asarray(matrices, dtype=np.float64)
    n = m.sum(axis=(-2, -1))
    return _safe_ratio((m.sum(axis=-1) * m.sum(axis=-2)).sum(axis=-1), n * n)


def accuracy(matrices: np.ndarray) -> np.ndarray:
    m = np.asarray(matrices, dtype=np.float64)
    return _safe_ratio(np.trace(m, axis1=-2, axis2=-1), m.sum(axis=(-2, -1)))


def kappa(matrices: np.ndarray) -> np.ndarray:
    """Cohen's kappa = (P(A) - P(E)) / (1 - P(E))."""
    pa = accuracy(matrices)
    pe = chance_agreement(matrices)
    return _safe_ratio(pa - pe, 1 - pe)


def mcc(matrices: np.ndarray) -> np.ndarray:
    """Matthews correlation for k classes (Gorodkin's R_K; the binary MCC when k = 2)."""
    m = np.asarray(matrices, dtype=np.float64)
    c = np.trace(m, axis1=-2, axis2=-1)
    s = m.sum(axis=(-2, -1))
    t = m.sum(axis=-1)
    p = m.sum(axis=-2)
    num = c * s - (t * p).sum(axis=-1)
    den = np.sqrt((s * s - (p * p).sum(axis=-1)) * (s * s - (t * t).sum(axis=-1)))
    return _safe_ratio(num, den)


def macro_recall(matrices: np.ndarray) -> np.ndarray:
    """Balanced accuracy for k classes: the mean recall over the classes present in the truth.

    As scikit-learn's ``balanced_accuracy_score``: a class with no actual instances
    (predicted only) has no recall and does not take part.
    """
    c = one_vs_rest(matrices)
    present = c.positives > 0
    total = np.where(present, recall(c), 0.0).sum(axis=-1)
    return _safe_ratio(total, present.sum(axis=-1))


def no_information_rate(matrices: np.ndarray) -> np.ndarray:
    """The accuracy of always predicting the largest actual class."""
    m = np.asarray(matrices, dtype=np.float64)
    return _safe_ratio(m.sum(axis=-1).max(axis=-1), m.sum(axis=(-2, -1)))


@dataclass(frozen=True)
class MatrixMetric:
    """A metric of the whole k x k matrix. ``proportion`` as for BinaryMetric.

    ``descriptive`` marks a quantity that describes the matrix rather than the
    classifier's performance (chance agreement): it is shown without interval.
    """

    name: str
    title: str
    formula: str
    compute: Callable[[np.ndarray], np.ndarray]
    undefined: Callable[[np.ndarray], str | None]
    kind: Literal["proportion", "kappa", "descriptive", "other"] = "other"
    proportion: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]] | None = None
    percent: bool = True


def _no_instances(m: np.ndarray) -> str | None:
    return "no instances" if m.sum() == 0 else None


def _kappa_undefined(m: np.ndarray) -> str | None:
    if m.sum() == 0:
        return "no instances"
    if chance_agreement(m) == 1:
        return "chance agreement is 1: truth and predictions are one and the same single class"
    return None


def _mcc_undefined(m: np.ndarray) -> str | None:
    if m.sum() == 0:
        return "no instances"
    if (m.sum(axis=0) > 0).sum() < 2:
        return "every instance is predicted as one class"
    if (m.sum(axis=1) > 0).sum() < 2:
        return "every instance belongs to one class"
    return None


MATRIX_METRICS: dict[str, MatrixMetric] = {
    m.name: m
    for m in [
        MatrixMetric("accuracy", "Accuracy", "trace / n", accuracy, _no_instances, "proportion",
                     lambda m: (np.trace(m), m.sum())),
        MatrixMetric("error_rate", "Error rate", "1 - trace / n", lambda m: 1 - accuracy(m), _no_instances,
                     "proportion", lambda m: (m.sum() - np.trace(m), m.sum())),
        MatrixMetric("balanced_accuracy", "Balanced accuracy", "mean recall over the classes in the truth",
                     macro_recall, _no_instances),
        MatrixMetric("kappa", "Cohen's kappa", "(P(A) - P(E)) / (1 - P(E))", kappa, _kappa_undefined, "kappa",
                     percent=False),
        MatrixMetric("chance_agreement", "Chance agreement P(E)", "sum_i p_i q_i", chance_agreement,
                     _no_instances, "descriptive"),
        MatrixMetric("mcc", "Matthews correlation (MCC)", "Gorodkin's R_K", mcc, _mcc_undefined, percent=False),
        MatrixMetric("no_information_rate", "No-information rate", "largest class / n", no_information_rate,
                     _no_instances, "proportion", lambda m: (m.sum(axis=1).max(), m.sum())),
    ]
}
"""Every whole-matrix metric by name, in display order."""
