"""The error each protocol defines, from its predictions.

Every method has its own estimator of the true error (Witten & Frank, ch. 5;
Han & Kamber 2006; Efron & Tibshirani 1997 for .632+):

============== ===============================================================
resubstitution errors on the training data / n (the apparent error)
holdout        errors on the test part / its size
repeated-ho.   mean over the repetitions of each test part's error
cv, loo        total errors over the folds / total instances
repeated-cv    mean over the repetitions of each repetition's pooled error
bootstrap      mean over the rounds of the out-of-bag error
bootstrap632   (1/k) Σ_i (0.632·err_test_i + 0.368·err_train_i)
.632+          (1/k) Σ_i [(1 − w_i)·err_train_i + w_i·err'_test_i]
train-val-test errors on the untouched test part / its size
============== ===============================================================
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from assay.errors import InvalidInput
from assay.metrics.ranking import auc_from_keys
from assay.metrics.regression import REGRESSION_METRICS
from assay.protocols.run import FoldPredictions, ProtocolRun
from assay.summaries.regression import RegressionSummary
from assay.summaries.scores import sort_keys

__all__ = [
    "MethodEstimate",
    "method_estimate",
    "fold_metrics",
    "spread",
    "bootstrap632_rounds",
    "bootstrap632plus_rounds",
    "no_information_error",
    "RegressionEstimate",
    "regression_estimate",
    "regression_fold_metrics",
    "FOLD_METRICS",
]

_W = 0.632  # 1 - 1/e, the share of distinct instances in a bootstrap sample (Witten & Frank, section 5.4)


@dataclass(frozen=True, eq=False)
class MethodEstimate:
    """A method's estimate of a learner's error.

    Attributes
    ----------
    error : float
        The estimated error rate.
    accuracy : float
        ``1 - error``.
    name : str
        The method (``splits.METHODS``).
    formula : str
        How ``error`` was computed, in words and symbols.
    notes : tuple of str
        What to keep in mind when reading it.
    per_round : ndarray or None
        The per-repetition values the estimate averages (per fold for ``cv``);
        None for single-part methods and LOO.
    """

    error: float
    accuracy: float
    name: str
    formula: str
    notes: tuple[str, ...] = ()
    per_round: np.ndarray | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: full precision, lists for arrays."""
        return {
            "name": self.name,
            "error": _num(self.error),
            "accuracy": _num(self.accuracy),
            "formula": self.formula,
            "notes": list(self.notes),
            "per_round": None if self.per_round is None else [_num(v) for v in self.per_round],
            "spread": None if self.per_round is None else spread(self.per_round),
        }


def _num(value: Any) -> float | None:
    value = float(value)
    return value if np.isfinite(value) else None


# ----------------------------------------------------------------------------
# kernels (inputs validated)


def bootstrap632_rounds(err_test: Any, err_train: Any) -> np.ndarray:
    """The .632 bootstrap value of each round: 0.632·err_test + 0.368·err_train.

    ``err_test`` is round i's out-of-bag error and ``err_train`` the error of
    round i's model on its own bootstrap sample (duplicates included). The
    estimate is their mean, (1/k) Σ_i (...): the sum over the k rounds divided
    by k (Efron & Tibshirani 1997).

    Examples
    --------
    >>> bootstrap632_rounds([0.25, 0.30], [0.0, 0.10]).round(4).tolist()
    [0.158, 0.2264]
    """
    test = np.asarray(err_test, dtype=np.float64)
    train = np.asarray(err_train, dtype=np.float64)
    return _W * test + (1 - _W) * train


def bootstrap632plus_rounds(err_test: Any, err_train: Any, gamma: Any) -> np.ndarray:
    """The .632+ value of each round (Efron & Tibshirani 1997), given its no-information error γ.

    Notes
    -----
    With err'_test = min(err_test, γ),

    R = (err'_test − err_train) / (γ − err_train) when err'_test > err_train and
    γ > err_train, else 0 (the relative overfitting rate, in [0, 1]);
    w = 0.632 / (1 − 0.368·R); and the round's value is
    (1 − w)·err_train + w·err'_test. With R = 0 it is the .632 value (when
    err_test ≤ γ); with R = 1 it is err'_test.

    Examples
    --------
    A model that memorises (err_train = 0) and guesses out of bag
    (err_test = γ = 0.5) gets R = 1, w = 1: the .632+ value is 0.5, where .632
    says 0.316 (the limiting case Witten & Frank, section 5.4, warn of).

    >>> bootstrap632plus_rounds([0.5], [0.0], [0.5]).tolist()
    [0.5]
    >>> bootstrap632_rounds([0.5], [0.0]).tolist()
    [0.316]
    """
    test = np.asarray(err_test, dtype=np.float64)
    train = np.asarray(err_train, dtype=np.float64)
    gamma = np.asarray(gamma, dtype=np.float64)
    capped = np.minimum(test, gamma)
    overfit = (capped > train) & (gamma > train)
    denominator = np.where(overfit, gamma - train, 1.0)
    rate = np.where(overfit, (capped - train) / denominator, 0.0)
    weight = _W / (1 - (1 - _W) * rate)
    return (1 - weight) * train + weight * capped


def no_information_error(y_true: Any, y_pred: Any, k: int) -> float:
    """γ = Σ_c p_c (1 − q_c): the error if predictions were independent of the classes.

    ``p_c`` is the share of class c among ``y_true`` and ``q_c`` the share of
    predictions of class c (codes 0..k-1), both over the whole data.

    Examples
    --------
    >>> no_information_error([0, 0, 0, 1], [0, 1, 1, 1], 2)  # 0.75·0.75 + 0.25·0.25
    0.625
    """
    true = np.asarray(y_true, dtype=np.intp)
    pred = np.asarray(y_pred, dtype=np.intp)
    p = np.bincount(true, minlength=k) / len(true)
    q = np.bincount(pred, minlength=k) / len(pred)
    return float(np.sum(p * (1 - q)))


def spread(values: Any) -> dict[str, Any]:
    """Mean, standard deviation (n − 1), min, max and count of the finite values.

    Examples
    --------
    >>> spread([0.1, 0.2, 0.3])["mean"], spread([0.1, 0.2, 0.3])["n"]
    (0.2, 3)
    >>> spread([])
    {'mean': None, 'sd': None, 'min': None, 'max': None, 'n': 0}
    """
    array = np.asarray(values, dtype=np.float64).reshape(-1)
    array = array[np.isfinite(array)]
    n = int(array.size)
    if n == 0:
        return {"mean": None, "sd": None, "min": None, "max": None, "n": 0}
    return {
        "mean": float(np.mean(array)),
        "sd": float(np.std(array, ddof=1)) if n > 1 else None,
        "min": float(np.min(array)),
        "max": float(np.max(array)),
        "n": n,
    }


# ----------------------------------------------------------------------------
# from a run


def _errors(y: np.ndarray, part: FoldPredictions) -> int:
    return int(np.count_nonzero(part.y_pred != y[part.test_index]))


def _test_error(y: np.ndarray, part: FoldPredictions) -> float:
    return _errors(y, part) / len(part.test_index)


def _train_error(y: np.ndarray, part: FoldPredictions, method: str) -> float:
    if part.train_pred is None:
        raise InvalidInput(f"the {method} estimate needs the predictions on each training sample "
                           "(run_protocol records them for the bootstrap methods)", field="run")
    return float(np.mean(part.train_pred != y[part.train_index]))


_FORMULAS = {
    "resubstitution": "errors on the training data / n (the apparent error)",
    "holdout": "errors on the test part / test size",
    "repeated-holdout": "(1/k) Σ_i err_test_i over the k repetitions",
    "cv": "total errors over the k folds / total instances",
    "repeated-cv": "(1/r) Σ_j (errors of repetition j over its k folds / n) over the r repetitions",
    "loo": "total errors over the n folds / n",
    "bootstrap": "(1/k) Σ_i err_oob_i, the mean out-of-bag error over the k rounds",
    "bootstrap632": "(1/k) Σ_i (0.632·err_test_i + 0.368·err_train_i) over the k rounds",
    "bootstrap632plus": ("(1/k) Σ_i [(1 − w_i)·err_train_i + w_i·err'_i], err'_i = min(err_test_i, γ_i), "
                         "w_i = 0.632/(1 − 0.368·R_i), R_i = (err'_i − err_train_i)/(γ_i − err_train_i) "
                         "(0 unless err'_i > err_train_i and γ_i > err_train_i), γ_i = Σ_c p_c (1 − q_ic)"),
    "train-val-test": "errors on the untouched test part / test size, the model refitted on train + validation "
                      "with the parameters chosen on validation",
}

_NOTES = {
    "resubstitution": ("optimistic: the model is evaluated on the data it was trained on",),
    "holdout": ("pessimistic: the model learns from part of the data only (2/3 by default)",
                "one random split: another seed gives another estimate"),
    "repeated-holdout": ("the test parts overlap between repetitions, so the repetitions are not independent",),
    "cv": ("the pooled predictions and their confusion matrix come from k models, one per fold",),
    "repeated-cv": ("each repetition's pooled predictions come from k models; the repetitions share instances",),
    "loo": ("no random sampling: the same estimate for every seed",
            "n models, each trained on n − 1 instances"),
    "bootstrap": ("pessimistic: each round trains on about 63.2% of the distinct instances",),
    "bootstrap632": ("err_train_i is the error of round i's model on its own bootstrap sample, duplicates included",
                     "optimistic for a model that memorises its training data; .632+ corrects it"),
    "bootstrap632plus": ("p_c: the class shares of the whole data; q_ic: the share of predictions of class c by "
                         "round i's model over the whole data",),
    "train-val-test": ("the test part is used once, after tuning",),
}


def method_estimate(run: ProtocolRun, model: str) -> MethodEstimate:
    """The estimate of ``model``'s error that ``run.method`` defines.

    Parameters
    ----------
    run : ProtocolRun
        From ``run_protocol``.
    model : str
        One of ``run.models``.

    Returns
    -------
    MethodEstimate

    References
    ----------
    I. H. Witten and E. Frank, *Data Mining*, ch. 5 (resubstitution, holdout,
    k-fold "total errors / total instances", LOO, bootstrap, .632); J. Han and
    M. Kamber (2006) (random subsampling: the mean of the repetitions; .632
    averaged over the k rounds); B. Efron and R. Tibshirani,
    "Improvements on cross-validation: the .632+ bootstrap method", JASA 92
    (1997) 548-560.
    """
    parts = run.parts(model)
    method = run.method
    y = run.y_codes
    per_round: np.ndarray | None = None
    notes = list(_NOTES.get(method, ()))
    if method in ("resubstitution", "holdout", "train-val-test"):
        error = _test_error(y, parts[0])
        if method == "train-val-test" and parts[0].tuned is not None:
            chosen = parts[0].tuned.get("chosen") or {}
            shown = ", ".join(f"{key}={value!r}" for key, value in chosen.items()) or "the defaults"
            notes.append(f"chosen on validation: {shown}")
    elif method == "repeated-holdout":
        per_round = np.array([_test_error(y, p) for p in parts])
        error = float(np.mean(per_round))
    elif method in ("cv", "loo"):
        errors = sum(_errors(y, p) for p in parts)
        total = sum(len(p.test_index) for p in parts)
        error = errors / total
        if method == "cv":
            per_round = np.array([_test_error(y, p) for p in parts])
    elif method == "repeated-cv":
        repeats = sorted({p.repeat for p in parts})
        per_round = np.array([
            sum(_errors(y, p) for p in parts if p.repeat == r) / sum(len(p.test_index) for p in parts if p.repeat == r)
            for r in repeats
        ])
        error = float(np.mean(per_round))
    elif method == "bootstrap":
        per_round = np.array([_test_error(y, p) for p in parts])
        error = float(np.mean(per_round))
    elif method in ("bootstrap632", "bootstrap632plus"):
        test = np.array([_test_error(y, p) for p in parts])
        train = np.array([_train_error(y, p, method) for p in parts])
        if method == "bootstrap632":
            per_round = bootstrap632_rounds(test, train)
        else:
            k = len(run.labels)
            if any(p.all_pred is None for p in parts):
                raise InvalidInput("the .632+ estimate needs each round's predictions on every instance",
                                   field="run")
            gamma = np.array([no_information_error(y, p.all_pred, k) for p in parts])
            per_round = bootstrap632plus_rounds(test, train, gamma)
        error = float(np.mean(per_round))
    else:
        raise InvalidInput(f"{method!r} is not a known method", field="method")
    error = float(error)
    return MethodEstimate(error=error, accuracy=1.0 - error, name=method, formula=_FORMULAS[method],
                          notes=tuple(notes), per_round=per_round)


def fold_metrics(run: ProtocolRun, model: str) -> list[dict[str, Any]]:
    """Per part: sizes, errors, accuracy, error rate, and ROC AUC for two classes.

    ``roc_auc`` is None (with ``roc_auc_note``) when the model gives no
    probabilities, there are more than two classes, or the test part holds one
    class only. The bootstrap methods add ``train_error`` (on the bootstrap
    sample); train-val-test adds ``chosen`` and ``validation_accuracy``.
    """
    y = run.y_codes
    two = len(run.labels) == 2
    rows = []
    for part in run.parts(model):
        truth = y[part.test_index]
        errors = int(np.count_nonzero(part.y_pred != truth))
        n_test = len(part.test_index)
        row: dict[str, Any] = {
            "repeat": part.repeat,
            "fold": part.fold,
            "n_train": len(part.train_index),
            "n_test": n_test,
            "errors": errors,
            "accuracy": (n_test - errors) / n_test,
            "error_rate": errors / n_test,
            "roc_auc": None,
            "roc_auc_note": None,
        }
        if part.proba is None:
            row["roc_auc_note"] = "the model gives no probabilities"
        elif not two:
            row["roc_auc_note"] = "more than two classes"
        elif len(np.unique(truth)) < 2:
            row["roc_auc_note"] = "the test part holds one class only"
        else:
            row["roc_auc"] = float(auc_from_keys(sort_keys(truth == 1, np.asarray(part.proba[:, 1], np.float64))))
        if part.train_pred is not None:
            row["train_error"] = float(np.mean(part.train_pred != y[part.train_index]))
        if part.tuned is not None:
            row["chosen"] = dict(part.tuned.get("chosen") or {})
            row["validation_accuracy"] = part.tuned.get("validation_accuracy")
        rows.append(row)
    return rows



# ----------------------------------------------------------------------------
# numeric targets

FOLD_METRICS: tuple[str, ...] = ("mse", "rmse", "mae", "mean_error", "relative_absolute_error",
                                 "root_relative_squared_error", "r2", "correlation")
"""The numeric-prediction measures computed on every test part (Witten & Frank, *Data Mining*, ch. 5)."""

_REGRESSION_FORMULAS = {
    "resubstitution": "Σ(p − a)² / n on the training data (the apparent mean squared error)",
    "holdout": "Σ(p − a)² / test size on the test part",
    "repeated-holdout": "(1/k) Σ_i MSE_test_i over the k repetitions",
    "cv": "Σ(p − a)² over the k folds / total instances (the pooled mean squared error)",
    "repeated-cv": "(1/r) Σ_j (Σ(p − a)² of repetition j over its k folds / n) over the r repetitions",
    "loo": "Σ(p − a)² over the n folds / n",
    "bootstrap": "(1/k) Σ_i MSE_oob_i, the mean out-of-bag mean squared error over the k rounds",
}


_REGRESSION_NOTES = {
    "cv": ("the pooled predictions come from k models, one per fold",),
    "bootstrap": ("pessimistic: each round trains on about 63.2% of the distinct instances; the .632 corrections "
                  "are defined for error rates and are not applied",),
}


@dataclass(frozen=True, eq=False)
class RegressionEstimate:
    """A method's estimate of a regressor's mean squared error (the counterpart of ``MethodEstimate``).

    Attributes
    ----------
    mse : float
        The estimated mean squared error.
    rmse : float
        ``sqrt(mse)``.
    name, formula, notes, per_round
        As for ``MethodEstimate``; ``per_round`` holds the per-part (cv: per-fold) or
        per-repetition MSE the estimate averages, None for single-part methods and LOO.
    """

    mse: float
    rmse: float
    name: str
    formula: str
    notes: tuple[str, ...] = ()
    per_round: np.ndarray | None = None

    @property
    def error(self) -> float:
        """The estimate (the MSE), under the name ``MethodEstimate`` uses."""
        return self.mse

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: full precision, lists for arrays."""
        return {
            "name": self.name,
            "mse": _num(self.mse),
            "rmse": _num(self.rmse),
            "formula": self.formula,
            "notes": list(self.notes),
            "per_round": None if self.per_round is None else [_num(v) for v in self.per_round],
            "spread": None if self.per_round is None else spread(self.per_round),
        }


def _sq_errors(y: np.ndarray, part: FoldPredictions) -> np.ndarray:
    return (np.asarray(part.y_pred, dtype=np.float64) - y[part.test_index]) ** 2


def regression_estimate(run: ProtocolRun, model: str) -> RegressionEstimate:
    """The estimate of ``model``'s mean squared error that ``run.method`` defines (``run.task == "regression"``).

    The same combinations as ``method_estimate`` with the squared error in place of the
    0/1 loss: pooled over the folds for cv and LOO, the mean of the per-part values for
    the repeated methods and the bootstrap.

    Raises
    ------
    InvalidInput
        On a run that is not of numeric predictions, or a method without an MSE estimate
        (.632, .632+, train-val-test).
    """
    if run.task != "regression":
        raise InvalidInput("expected the run of a numeric target (task='regression')", field="run")
    parts = run.parts(model)
    method = run.method
    if method not in _REGRESSION_FORMULAS:
        raise InvalidInput(f"{method!r} has no estimate of the mean squared error; use one of "
                           f"{list(_REGRESSION_FORMULAS)}", field="method")
    y = np.asarray(run.y_codes, dtype=np.float64)
    per_round: np.ndarray | None = None
    if method in ("resubstitution", "holdout"):
        mse = float(np.mean(_sq_errors(y, parts[0])))
    elif method in ("cv", "loo"):
        mse = float(np.concatenate([_sq_errors(y, p) for p in parts]).mean())
        if method == "cv":
            per_round = np.array([np.mean(_sq_errors(y, p)) for p in parts])
    elif method == "repeated-cv":
        repeats = sorted({p.repeat for p in parts})
        per_round = np.array([np.concatenate([_sq_errors(y, p) for p in parts if p.repeat == r]).mean()
                              for r in repeats])
        mse = float(np.mean(per_round))
    else:  # repeated-holdout, bootstrap
        per_round = np.array([np.mean(_sq_errors(y, p)) for p in parts])
        mse = float(np.mean(per_round))
    notes = _REGRESSION_NOTES.get(method, _NOTES.get(method, ()))
    return RegressionEstimate(mse=mse, rmse=math.sqrt(mse), name=method, formula=_REGRESSION_FORMULAS[method],
                              notes=notes, per_round=per_round)


def regression_fold_metrics(run: ProtocolRun, model: str) -> list[dict[str, Any]]:
    """Per part: sizes and the measures of ``FOLD_METRICS`` on its test part (None when undefined, e.g. R²
    on a part whose actual values are all equal, or any relative measure on a part of one instance)."""
    y = np.asarray(run.y_codes, dtype=np.float64)
    rows = []
    for part in run.parts(model):
        summary = RegressionSummary.from_arrays(y[part.test_index], np.asarray(part.y_pred, dtype=np.float64))
        row: dict[str, Any] = {"repeat": part.repeat, "fold": part.fold, "n_train": len(part.train_index),
                               "n_test": len(part.test_index)}
        for name in FOLD_METRICS:
            row[name] = _num(REGRESSION_METRICS[name].compute(summary))
        if part.train_pred is not None:
            row["train_mse"] = float(np.mean((np.asarray(part.train_pred) - y[part.train_index]) ** 2))
        rows.append(row)
    return rows
