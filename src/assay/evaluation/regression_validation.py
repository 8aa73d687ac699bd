"""``assay.validate(..., task="regression")``: estimate regressors' errors on a data set, and compare them.

Every model runs on the very same splits (never stratified: a numeric target has no
classes). For each, ``evaluate_regression`` on its out-of-fold predictions (one per
instance: averaged over the parts that tested it for the repeated methods), the mean
squared error the method defines (``protocols.estimates.regression_estimate``), and the
numeric-prediction measures on every test part with their mean ± t interval over the
parts. Two or more models are compared on the per-part mean squared errors: the paired
t test and Nadeau & Bengio's corrected resampled t test (on one split, holdout or
resubstitution, the paired t test on the instances' squared errors), with Holm's
adjustment when there are three models or more.

References
----------
I. H. Witten and E. Frank, *Data Mining*, ch. 5 (numeric prediction measures, comparing
learning schemes); C. Nadeau and Y. Bengio (2003), Inference for the generalization
error, Machine Learning 52:239-281; S. Holm (1979).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from assay.errors import InvalidInput
from assay.evaluation import display
from assay.evaluation.regression import RegressionEvaluation, evaluate_regression
from assay.inference.distributions import t_quantile
from assay.inference.estimate import finite_or_none
from assay.inference.multiple import ADJUSTMENT_TITLES
from assay.inference.multiple import adjust as adjust_pvalues
from assay.inference.resampled import corrected_resampled_t, paired_t
from assay.protocols.estimates import FOLD_METRICS, regression_estimate, regression_fold_metrics
from assay.protocols.features import (
    REGRESSION_DATASETS,
    features_from_columns,
    features_from_dataset,
    holds_fractions,
    numeric_values,
)
from assay.protocols.learners import learner_title, model_name
from assay.protocols.run import refit_all, run_protocol
from assay.protocols.splits import regression_splits, splitter_splits

__all__ = ["Task", "TASKS", "RegressionModelValidation", "RegressionValidation", "regression_reason",
           "prediction_task", "validate_regression", "named_specs", "MANY_VALUES", "FEW_EXACT"]

TASKS = ("auto", "classification", "regression")
Task = str
"""``task`` of ``validate``: "auto" (numeric when the target holds non-integer numbers, or the data set is
numeric), "classification" or "regression"."""

_STRATIFIED = "stratification keeps the proportions of classes, and a numeric target has none"


@dataclass(frozen=True, eq=False)
class RegressionModelValidation:
    """One regressor's results.

    Attributes
    ----------
    name, title : str
    report : RegressionEvaluation
        ``evaluate_regression`` on the out-of-fold predictions, one per instance.
    estimate : RegressionEstimate
        The mean squared error the method defines, and its per-part values.
    folds : list of dict
        Per test part: sizes and the measures of ``FOLD_METRICS``.
    fold_summary : dict of str to dict
        Per measure: mean over the parts, sd, the t interval of the mean
        (mean ± t_{(1+c)/2, J−1} sd / sqrt(J)), min, max and J (the parts where it is
        defined). The parts share training instances, so this interval is too narrow
        (Nadeau & Bengio 2003): read it as a description of the spread.
    """

    name: str
    title: str
    report: RegressionEvaluation
    estimate: Any
    folds: list[dict[str, Any]]
    fold_summary: dict[str, dict[str, Any]]

    def to_dict(self) -> dict[str, Any]:
        out = self.report.to_dict()
        out["model"] = {"name": self.name, "title": self.title}
        out["folds"] = self.folds
        out["fold_summary"] = self.fold_summary
        out["estimate"] = self.estimate.to_dict()
        return out


@dataclass(frozen=True, eq=False)
class RegressionValidation:
    """The result of ``validate(..., task="regression")``: ``to_dict()`` is the JSON of ``assay validate``."""

    dataset: str
    method: str
    settings: dict[str, Any]
    n: int
    features: tuple[str, ...]
    models: dict[str, RegressionModelValidation]
    comparisons: list[dict[str, Any]]
    confidence: float
    notes: tuple[str, ...] = ()
    _run: Any = None
    final_models: dict[str, Any] | None = None  # with refit=True: each regressor fitted on all the data

    task = "regression"
    labels: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "task": "regression",
            "dataset": self.dataset,
            "method": self.method,
            "settings": self.settings,
            "n": self.n,
            "confidence": self.confidence,
            "features": list(self.features),
            "models": {name: m.to_dict() for name, m in self.models.items()},
            "comparisons": self.comparisons,
            "notes": list(self.notes),
        }

    def predictions(self, model: str, *, ids: Sequence[Any] | None = None) -> tuple[list[str], list[list[Any]]]:
        """The out-of-fold predictions of one model, as a header and rows (every fold and repeat)."""
        return self._run.export_rows(model, ids=ids)

    def plot_predicted_actual(self, model: str | None = None, ax: Any = None) -> Any:
        """One model's out-of-fold predictions against the actual values (the first model by default)."""
        return self._model(model).report.plot_predicted_actual(ax)

    def plot_residuals(self, model: str | None = None, ax: Any = None) -> Any:
        """One model's out-of-fold residuals against its predictions (the first model by default)."""
        return self._model(model).report.plot_residuals(ax)

    def _model(self, model: str | None) -> RegressionModelValidation:
        if model is None:
            return next(iter(self.models.values()))
        if model not in self.models:
            raise InvalidInput(f"{model!r} is not one of the models {list(self.models)}", field="model")
        return self.models[model]

    def _repr_html_(self) -> str:
        return display.fragment(self)

    def __str__(self) -> str:
        """The text report of ``assay validate`` on a numeric target (``print(v)``)."""
        return display.text(self)

    def __repr__(self) -> str:
        shown = ", ".join(f"{name!r}: {m.report.metrics['rmse'].value:.4g}" for name, m in self.models.items()
                          if m.report.metrics.get("rmse") is not None and m.report.metrics["rmse"].value is not None)
        return f"RegressionValidation(dataset={self.dataset!r}, method={self.method!r}, rmse={{{shown}}})"


# ----------------------------------------------------------------------------
# which task


def regression_reason(task: str, *, dataset: str | None, target_values: Any, regressors: bool = False) -> str | None:
    """Why the target is numeric ("asked with task='regression'", ...), or None for classification.

    Raises
    ------
    InvalidInput
        On an unknown ``task``, or ``task="classification"`` with a numeric bundled data set.
    """
    if task not in TASKS:
        raise InvalidInput(f"expected one of {list(TASKS)}, got {task!r}", field="task")
    if dataset is not None and dataset in REGRESSION_DATASETS:
        if task == "classification":
            raise InvalidInput(f"the {dataset} data set has a numeric target: validate regressors on it "
                               "(task 'regression')", field="task")
        asked = "asked for (task 'regression')"
        return asked if task == "regression" else f"the {dataset} data set has a numeric target"
    if task == "regression":
        return "asked for (task 'regression')"
    if task == "auto" and regressors and _many_numbers(target_values):
        return (f"the models are scikit-learn regressors and the target holds more than {MANY_VALUES} distinct "
                "numbers (task 'classification' takes the values for classes)")
    if task == "auto" and target_values is not None and holds_fractions(target_values):
        return "the target holds non-integer numbers, so the models are regressors (task 'classification' " \
               "treats the values as classes)"
    return None


def _many_numbers(values: Any) -> bool:
    """Whether a target holds numbers only, more than ``MANY_VALUES`` distinct ones."""
    if values is None:
        return False
    numbers = numeric_values(values)
    return numbers is not None and len(np.unique(numbers[np.isfinite(numbers)])) > MANY_VALUES


MANY_VALUES = 20
"""More distinct numbers than this in the truth and in the predictions, with few predictions equal to their
actual value (``FEW_EXACT``), are numeric predictions of a numeric target, not that many classes."""

FEW_EXACT = 0.2
"""The share of predictions equal to their actual value below which many distinct numbers are a regression."""


def prediction_task(task: str, y_true: Any, y_pred: Any) -> str | None:
    """Why predicted values are evaluated as numbers (a regression), or None: as classes.

    With ``task="auto"``: numbers when the truth holds non-integer numbers; refused when both the
    truth and the predictions are numbers with more than ``MANY_VALUES`` distinct values each and
    fewer than ``FEW_EXACT`` of the predictions equal their actual value (whole numbers, such as a
    count or a score predicted and rounded: hundreds of "classes" almost never predicted exactly are
    a regression; say which with ``task``); else classes.

    Raises
    ------
    InvalidInput
        On an unknown ``task``; ``task="regression"`` with a truth that is not numbers; the
        ambiguous case above with ``task="auto"``.

    Examples
    --------
    >>> prediction_task("auto", [1.5, 2.0], [1.0, 2.5])[:41]
    'the truth holds non-integer numbers, so t'
    >>> prediction_task("auto", ["a", "b"], ["a", "a"]) is None
    True
    >>> prediction_task("auto", list(range(100)), [v + 1 for v in range(100)])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    assay.errors.InvalidInput: y_pred: ... none of the predictions equal their actual value: ... task=regression ...
    """
    if task not in TASKS:
        raise InvalidInput(f"expected one of {list(TASKS)}, got {task!r}", field="task")
    if task == "classification":
        return None
    truth = numeric_values(y_true)
    if task == "regression":
        if truth is None:
            raise InvalidInput("holds values that are not numbers: a regression needs numbers", field="y_true")
        return "asked for (task 'regression')"
    if truth is None:
        return None
    present = truth[np.isfinite(truth)]
    if present.size and not bool(np.all(present == np.floor(present))):
        return ("the truth holds non-integer numbers, so the predictions are evaluated as numeric "
                "(task 'classification' treats them as classes)")
    predicted = numeric_values(y_pred)
    if predicted is None or len(predicted) != len(truth):
        return None
    both = np.isfinite(truth) & np.isfinite(predicted)
    t, p = truth[both], predicted[both]
    distinct_true, distinct_pred = len(np.unique(t)), len(np.unique(p))
    if distinct_true <= MANY_VALUES or distinct_pred <= MANY_VALUES:
        return None
    exact = float(np.mean(t == p))
    if exact >= FEW_EXACT:
        return None
    shown = "none" if exact == 0 else f"{exact:.0%}" if exact >= 0.01 else "under 1%"
    whole = bool(np.all(p == np.floor(p)))
    classes = f"{len(np.unique(np.concatenate([t, p]))):,} classes" if whole else "classes"
    raise InvalidInput(f"the truth and the predictions are numbers with {distinct_true:,} and {distinct_pred:,} "
                       f"distinct values, and {shown} of the predictions equal their actual value: numeric "
                       f"predictions, not {classes}? evaluate them with {{option:task=regression}} (or "
                       "{option:task=classification} to take each value for a class)", field="y_pred")


def named_specs(models: Sequence[Any]) -> dict[str, Any]:
    """Display name -> model (a name, a path or an estimator); a name given twice for different models gets
    a prime: ``RandomForestRegressor'``."""
    specs: dict[str, Any] = {}
    for m in models:
        name = model_name(m)
        while name in specs and specs[name] is not m:
            name = f"{name}'"
        specs[name] = m
    if not specs:
        raise InvalidInput("give at least one model", field="model")
    return specs


def _check_stratify(stratify: bool | None, cv: Any) -> None:
    if stratify:
        raise InvalidInput(f"cannot stratify a numeric target: {_STRATIFIED}", field="stratify")
    if cv is not None and "stratified" in type(cv).__name__.lower():
        raise InvalidInput(f"{type(cv).__name__} cannot split a numeric target: {_STRATIFIED} (use KFold, "
                           "ShuffleSplit, ...)", field="cv")


# ----------------------------------------------------------------------------
# the pieces


def _splits(cv: Any, features: Any, y: np.ndarray, groups: Any, method: str, folds: int, repeats: int | None,
            test_size: float, seed: int) -> tuple[Any, str]:
    if cv is None:
        splits = regression_splits(method, len(y), folds=folds, repeats=repeats, test_size=test_size, seed=seed)
        return splits, method
    if isinstance(cv, (int, np.integer)) and not isinstance(cv, bool):
        return regression_splits("cv", len(y), folds=int(cv), seed=seed), "cv"
    return splitter_splits(cv, features.X, y, groups)


def _one_per_instance(run: Any, model: str) -> tuple[np.ndarray, np.ndarray, str | None]:
    """Instances tested at least once, and their prediction averaged over the parts that tested them."""
    oof = run.out_of_fold(model)
    n = len(run.y_codes)
    index = np.asarray(oof.index)
    times = np.bincount(index, minlength=n)
    tested = np.flatnonzero(times)
    total = np.bincount(index, weights=np.asarray(oof.y_pred, dtype=np.float64), minlength=n)
    note = None
    if len(tested) < n:
        note = f"{n - len(tested)} instance(s) were never in a test part and are left out of the report"
    return tested, total[tested] / times[tested], note


def _fold_summary(folds: list[dict[str, Any]], confidence: float) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for name in FOLD_METRICS:
        values = np.array([row[name] for row in folds if row.get(name) is not None], dtype=np.float64)
        j = int(values.size)
        entry: dict[str, Any] = {"mean": None, "sd": None, "ci": None, "min": None, "max": None, "n": j}
        if j:
            mean = float(values.mean())
            entry.update(mean=mean, min=float(values.min()), max=float(values.max()))
        if j > 1:
            sd = float(np.std(values, ddof=1))
            half = float(t_quantile(0.5 + confidence / 2.0, j - 1)) * sd / math.sqrt(j)
            entry.update(sd=sd, ci=[mean - half, mean + half])
        out[name] = entry
    return out


def _part_mse(y: np.ndarray, part: Any) -> float:
    return float(np.mean((np.asarray(part.y_pred, dtype=np.float64) - y[np.asarray(part.test_index)]) ** 2))


def _comparisons(run: Any, method: str, names: list[str], confidence: float,
                 adjust: str = "holm") -> tuple[list[dict[str, Any]], list[str]]:
    """The paired t test and the corrected resampled t test of every pair on the per-part MSE differences;
    with three models or more, the p-values adjusted (``adjust``: holm, bonferroni or none) within each
    test's family, the adjusted p-value next to ``pvalue`` as ``pvalue_<adjust>``."""
    y = np.asarray(run.y_codes, dtype=np.float64)
    parts = {m: run.parts(m) for m in names}
    single = len(parts[names[0]]) == 1
    notes: list[str] = []
    tests: list[tuple[str, Any, tuple[str, str], str]] = []
    if single:
        notes.append("one split: the models are compared by the paired t test on the instances' squared errors "
                     "(p − a)² of the test part")
    else:
        sizes = [(len(p.train_index), len(p.test_index)) for p in parts[names[0]]]
        n_train = float(np.mean([s[0] for s in sizes]))
        n_test = float(np.mean([s[1] for s in sizes]))
    for a, b in combinations(names, 2):
        what = f"the mean squared errors of {a} and {b}"
        if single:
            pa, pb = parts[a][0], parts[b][0]
            test_y = y[np.asarray(pa.test_index)]
            diffs = (np.asarray(pa.y_pred) - test_y) ** 2 - (np.asarray(pb.y_pred) - test_y) ** 2
            tests.append(("paired_t", paired_t(diffs, confidence=confidence), (a, b), what))
            continue
        diffs = np.array([_part_mse(y, pa) - _part_mse(y, pb) for pa, pb in zip(parts[a], parts[b], strict=True)])
        tests.append(("paired_t", paired_t(diffs, confidence=confidence), (a, b), what))
        tests.append(("corrected_resampled_t", corrected_resampled_t(diffs, n_train=n_train, n_test=n_test,
                                                                     confidence=confidence), (a, b), what))
    adjusted: dict[int, float] = {}
    family: dict[str, int] = {}
    key = f"pvalue_{adjust}"
    if len(names) > 2 and adjust != "none":
        for kind in ("paired_t", "corrected_resampled_t"):
            members = [i for i, t in enumerate(tests) if t[0] == kind]
            if not members:
                continue
            pvalues = np.array([tests[i][1].pvalue for i in members], dtype=np.float64)
            family[kind] = int(np.count_nonzero(~np.isnan(pvalues)))
            for i, p in zip(members, adjust_pvalues(pvalues, adjust), strict=True):
                adjusted[i] = float(p)
        pairs = len(names) * (len(names) - 1) // 2
        notes.append(f"p-values adjusted by {ADJUSTMENT_TITLES[adjust]} method within each test over the {pairs} "
                     f"pairs of models; the verdicts use the adjusted p-values ({key})")
    out = []
    for i, (kind, result, pair, what) in enumerate(tests):
        entry: dict[str, Any] = {"models": list(pair), "test": kind, "difference_of": "mean squared error"}
        d = result.to_dict(confidence, what=what)
        if i in adjusted:
            how = f"after {ADJUSTMENT_TITLES[adjust]} adjustment for {family[kind]} comparisons"
            d.update(result.common_dict(confidence, what=what, adjusted=adjusted[i], adjustment=how))
            d = dict(_after(d, "pvalue", key, finite_or_none(adjusted[i])))
            d["adjustment"] = {"method": adjust, "family": family[kind]}
        entry.update(d)
        out.append(entry)
    return out, notes


def _after(d: dict[str, Any], anchor: str, key: str, value: Any) -> list[tuple[str, Any]]:
    """The items of ``d`` with ``key: value`` inserted right after ``anchor``."""
    items: list[tuple[str, Any]] = []
    for k, v in d.items():
        items.append((k, v))
        if k == anchor:
            items.append((key, value))
    return items


# ----------------------------------------------------------------------------
# the entry point (called by ``validate``, arguments read there)


def validate_regression(
    *,
    data: Mapping[str, Any] | None,
    target: str | None,
    dataset: str | None,
    source: str,
    specs: dict[str, Any],
    reason: str,
    cv: Any = None,
    groups: Any = None,
    method: str = "cv",
    folds: int = 10,
    repeats: int | None = None,
    test_size: float = 1 / 3,
    stratify: bool | None = None,
    seed: int = 0,
    params: Mapping[str, Mapping[str, Any]] | None = None,
    jobs: int = 1,
    confidence: float = 0.95,
    bootstrap: int = 2000,
    progress: Callable[[int, int], None] | None = None,
    adjust: str = "holm",
    refit: bool = False,
) -> RegressionValidation:
    """Run the regressors of ``specs`` (display name -> name, path or estimator) on one protocol (arguments
    checked by ``validate``).

    Raises
    ------
    InvalidInput
        On stratification (``stratify=True`` or a stratified splitter), a method without an estimate of
        the mean squared error (.632, .632+, train-val-test), a target that is not numeric, and what the
        protocols refuse.
    """
    _check_stratify(stratify, cv)
    if dataset is not None:
        features, y = features_from_dataset(dataset)
        y = np.asarray(y, dtype=np.float64)
    else:
        if target is None:
            raise InvalidInput("name the column of the numeric target", field="target")
        features, y = features_from_columns(data, target=target, task="regression")
    splits, method = _splits(cv, features, y, groups, method, folds, repeats, test_size, seed)
    run = run_protocol(features, y, (), specs, splits, seed=seed, params=params or {}, jobs=jobs,
                       progress=progress, method=method, task="regression")
    notes: list[str] = [f"numeric target: {reason}"]
    if method == "resubstitution":
        notes.append("resubstitution evaluates each model on the data it was trained on: the estimate is "
                     "optimistic (Witten & Frank, ch. 5)")
    if method in ("repeated-holdout", "repeated-cv", "bootstrap"):
        notes.append("the report of each model is on one prediction per instance: its predictions averaged "
                     "over the repetitions that tested it")
    results: dict[str, RegressionModelValidation] = {}
    for m in specs:
        index, predicted, note = _one_per_instance(run, m)
        if note and note not in notes:
            notes.append(note)
        report = evaluate_regression(y[index], predicted, confidence=confidence, bootstrap=bootstrap, seed=seed)
        folds_rows = regression_fold_metrics(run, m)
        results[m] = RegressionModelValidation(m, learner_title(specs[m], task="regression"), report,
                                               regression_estimate(run, m), folds_rows,
                                               _fold_summary(folds_rows, confidence))
    comparisons: list[dict[str, Any]] = []
    if len(specs) > 1:
        comparisons, more = _comparisons(run, method, list(specs), confidence, adjust)
        notes += more
    settings = dict(splits.settings)
    settings.pop("stratify", None)
    final = None
    if refit:
        final = refit_all(features, y, specs, seed=seed, params=params or {}, task="regression")
    return RegressionValidation(source, method, settings, len(y), tuple(features.describe()), results, comparisons,
                                confidence, tuple(notes), run, final_models=final)
