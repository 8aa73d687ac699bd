"""``assay.validate``: estimate learners' error on a data set, and compare them honestly.

Every model runs on the very same splits. For each, the report of ``evaluate``
on its out-of-fold predictions (one per instance: averaged over repetitions for
the repeated methods, so that no instance counts twice and the intervals are not
too narrow), the estimate the method itself defines (cross-validation's pooled
error, the .632 combination, ...), and the spread over folds or rounds. Then the
comparisons the method allows: on one pass of predictions (holdout, k-fold,
leave-one-out, train-validation-test) McNemar's test, DeLong's test of the AUCs
and a paired bootstrap of the accuracy difference, and Cochran's Q for more
than two models; on repetitions, the corrected resampled t-test of Nadeau &
Bengio, and the 5x2cv t and F tests when the method is 5 repetitions of 2-fold
cross-validation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations
from typing import Any

import numpy as np

from assay.checks import check_integer
from assay.errors import InvalidInput
from assay.evaluation import display
from assay.evaluation.comparison import roc_space
from assay.evaluation.costs import cost_decisions, matrix_costs_of
from assay.evaluation.decision import refuse_decision_curve
from assay.evaluation.display import DisplayableModels
from assay.evaluation.evaluate import evaluate
from assay.evaluation.options import Options, keywords_of, options_from
from assay.evaluation.positive import choose_positive
from assay.evaluation.regression_validation import (
    named_specs,
    regression_reason,
    validate_regression,
)
from assay.evaluation.result import Evaluation
from assay.evaluation.tidy import to_frame
from assay.inference.cochran import cochran_q
from assay.inference.estimate import finite_or_none
from assay.inference.friedman import friedman_nemenyi
from assay.inference.mcnemar import mcnemar as mcnemar_test
from assay.inference.mcnemar import paired_table
from assay.inference.multiple import ADJUSTMENT_TITLES, ADJUSTMENTS
from assay.inference.multiple import adjust as adjust_pvalues
from assay.inference.paired_bootstrap import paired_bootstrap
from assay.inference.resampled import (
    corrected_resampled_t,
    f_test_5x2cv,
    paired_t_5x2cv,
)
from assay.inference.roc_compare import delong_test
from assay.inference.testing import significance_verdict
from assay.metrics.confusion import accuracy
from assay.protocols.estimates import fold_metrics, method_estimate
from assay.protocols.features import (
    encode_target,
    features_from_columns,
    features_from_dataset,
)
from assay.protocols.learners import is_estimator, learner_title, model_name
from assay.protocols.run import refit_all, run_protocol
from assay.protocols.splits import make_splits, splitter_splits

__all__ = ["SINGLE_PASS", "ModelValidation", "Validation", "validate"]

SINGLE_PASS = ("resubstitution", "holdout", "cv", "loo", "train-val-test")
"""Methods whose test parts hold each instance at most once."""


@dataclass(frozen=True)
class ModelValidation:
    """One model's results: the out-of-fold report, the method's estimate, the per-fold spread."""
    name: str
    title: str
    report: Evaluation
    estimate: Any  # protocols.estimates.MethodEstimate
    folds: list[dict[str, Any]]
    predicted: np.ndarray  # per instance of the report: the predicted class's code
    correct: np.ndarray  # per instance of the report: 1 if right, for the paired tests
    scores: np.ndarray | None  # two classes: the positive class's out-of-fold probability
    tuned: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out = self.report.to_dict()
        out["model"] = {"name": self.name, "title": self.title}
        out["folds"] = self.folds
        out["estimate"] = self.estimate.to_dict()
        if self.tuned:
            out["tuning"] = self.tuned
        return out


@dataclass(frozen=True)
class Validation(DisplayableModels):
    """The result of ``validate``: ``to_dict()`` is the JSON of ``assay validate``."""
    dataset: str
    method: str
    settings: dict[str, Any]
    n: int
    labels: tuple[str, ...]
    features: tuple[str, ...]
    models: dict[str, ModelValidation]
    comparisons: list[dict[str, Any]]
    confidence: float
    notes: tuple[str, ...] = ()
    _run: Any = None
    roc_space: dict[str, Any] | None = None  # two classes, several models: ROC space and the combined hull
    final_models: dict[str, Any] | None = None  # with refit=True: each model fitted on all the data
    friedman: Any = None  # three or more models over five or more parts: Friedman and Nemenyi over the parts

    def to_dict(self) -> dict[str, Any]:
        extra: dict[str, Any] = {"roc_space": self.roc_space} if self.roc_space is not None else {}
        if self.friedman is not None:
            extra["friedman"] = self.friedman.to_dict()
        return {**self._dict(), **extra}

    def _dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "method": self.method,
            "settings": self.settings,
            "n": self.n,
            "labels": list(self.labels),
            "confidence": self.confidence,
            "features": list(self.features),
            "models": {name: m.to_dict() for name, m in self.models.items()},
            "comparisons": self.comparisons,
            "notes": list(self.notes),
        }

    def predictions(self, model: str, *, ids: Sequence[Any] | None = None) -> tuple[list[str], list[list[Any]]]:
        """The out-of-fold predictions of one model, as a header and rows (every fold and repeat)."""
        return self._run.export_rows(model, ids=ids)

    def to_frame(self) -> Any:
        """Every estimate as a tidy pandas DataFrame: model, section, metric, group, value, low, high, method,
        note; each model's report (as ``Evaluation.to_frame()``) and the method's estimate of its error, then
        the tests between the models (``model`` "a vs b"; ``group`` the statistic, the p-value, the
        difference with its interval)."""

        return to_frame(self)

    def __str__(self) -> str:
        """The text report of ``assay validate`` (``print(v)``)."""
        return display.text(self)

    def __repr__(self) -> str:
        errors = ", ".join(f"{name!r}: {float(m.estimate.error):.4g}" for name, m in self.models.items())
        return (f"Validation(dataset={self.dataset!r}, method={self.method!r}, n={self.n}, classes={len(self.labels)}, "
                f"error={{{errors}}})")


def _one_per_instance(run: Any, model: str, k: int) -> tuple[np.ndarray, np.ndarray | None, np.ndarray, str | None]:
    """Instances tested at least once, with their prediction averaged over the parts testing them.
    Returns (index, proba or None, predicted codes, note). Where each instance is tested
    once (cross-validation, holdout, ...), the prediction is the model's own ``predict()``,
    the very labels the method's error counts; where repetitions test it several times, the
    most probable class of the averaged probabilities, or without them the majority vote
    (ties to the first class in label order, as ``predict()`` breaks them).
    """
    oof = run.out_of_fold(model)
    n = len(run.y_codes)
    index = np.asarray(oof.index)
    times = np.bincount(index, minlength=n)
    tested = np.flatnonzero(times)
    note = None
    if len(tested) < n:
        note = f"{n - len(tested)} instance(s) were never in a test part and are left out of the report"
    proba = None
    if oof.proba is not None:
        total = np.zeros((n, k))
        np.add.at(total, index, oof.proba)
        proba = total[tested] / times[tested, None]
    if len(tested) and times.max() == 1:  # one prediction each: predict()'s labels as they are
        made = np.empty(n, dtype=np.intp)
        made[index] = oof.y_pred
        return tested, proba, made[tested], note
    if proba is not None:
        return tested, proba, np.argmax(proba, axis=1), note
    votes = np.zeros((n, k))
    np.add.at(votes, (index, np.asarray(oof.y_pred)), 1.0)
    return tested, None, np.argmax(votes[tested], axis=1), note


def _class_weights(costs: Any, cost_matrix: Any, cost_method: Any, labels: tuple[str, ...],
                   positive: Any) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The weight of each class in cost-sensitive learning (None without ``cost_method``), and the cost matrix
    in label order (None without one): c_FN for the positive class and c_FP for the negative one, or a
    class's row of the matrix averaged off the diagonal; scaled to a mean of 1 over the classes."""
    if cost_method not in (None, "weight", "resample"):
        raise InvalidInput(f"{cost_method!r} is not one of ['weight', 'resample']", field="cost_method")
    matrix = matrix_costs_of(cost_matrix, costs, labels)
    if costs is not None and len(labels) != 2:
        raise InvalidInput(f"costs of false positives and negatives apply to two classes; these data have "
                           f"{len(labels)} (give a cost matrix)", field="costs")
    if cost_method is None:
        return None, matrix
    if matrix is not None:
        k = len(labels)
        weights = (matrix.sum(axis=1) - np.diag(matrix)) / max(k - 1, 1)
    elif costs is not None:
        c = costs
        chosen, _ = choose_positive(labels, positive=positive)
        weights = np.where(np.array(labels) == chosen, c.fn - c.tp, c.fp - c.tn).astype(np.float64)
    else:
        raise InvalidInput("cost-sensitive learning needs costs: give costs or a cost matrix", field="cost_method")
    if not (weights > 0).all():
        raise InvalidInput("every class needs a positive cost of being misclassified to weigh its instances",
                           field="cost_method")
    return weights / weights.mean(), matrix


def _report(labels: tuple[str, ...], y: np.ndarray, proba: np.ndarray | None, pred: np.ndarray, *,
            positive: Any, confidence: float, bootstrap: int, seed: int, costs: Any = None,
            cost_matrix: Any = None) -> tuple[Evaluation, np.ndarray]:
    """The report on one prediction per instance, and the predicted codes behind its matrix.
    One prediction rule for the matrix, the metrics of labels and the method's error: the
    predicted classes ``pred`` (never the probabilities thresholded again, which differ from
    ``predict()`` on ties and for models whose ``predict`` is not their most probable class).
    The probabilities give the ranking analysis (ROC, AUC, ...), the losses and the Bayes
    decisions of a cost matrix; the ranking has no operating point at a threshold.
    """
    names = np.asarray(labels, dtype=object)
    truth = names[y]
    report = evaluate(truth, y_pred=names[pred], labels=list(labels), positive=positive, confidence=confidence,
                      bootstrap=bootstrap, seed=seed, costs=costs, cost_matrix=cost_matrix)
    if proba is None:
        return report, pred
    scored = evaluate(truth, y_proba={label: proba[:, j] for j, label in enumerate(labels)}, labels=list(labels),
                      positive=positive, confidence=confidence, bootstrap=bootstrap, seed=seed, costs=costs,
                      cost_matrix=cost_matrix)
    ranking = scored.ranking
    if ranking is not None and getattr(ranking, "operating_point", None) is not None:
        ranking = replace(ranking, operating_point=None)
    decisions = None
    if scored.cost_decisions is not None:
        decisions = cost_decisions(proba, np.asarray(y), pred, matrix_costs_of(cost_matrix, costs, labels),
                                   report.labels, confidence=confidence, positive=report.positive)
    notes = report.notes + tuple(note for note in scored.notes  # not about a threshold: the labels are predict()'s
                                 if note not in report.notes and not note.startswith("threshold "))
    return replace(report, ranking=ranking, probabilistic=scored.probabilistic, cost_decisions=decisions,
                   notes=notes), pred


def _test(name: str, pair: Sequence[str], result: Any, confidence: float, **extra: Any) -> dict[str, Any]:
    entry = {"models": list(pair), "test": name}
    entry.update(result.to_dict(confidence) if not isinstance(result, dict) else result)
    entry.update(extra)
    return entry


def _comparisons(run: Any, method: str, models: dict[str, ModelValidation], settings: dict[str, Any],
                 confidence: float, seed: int, bootstrap: int) -> list[dict[str, Any]]:

    names = list(models)
    out: list[dict[str, Any]] = []
    k = len(run.labels)
    if method in SINGLE_PASS:
        if len(names) > 2:
            correct = np.column_stack([models[m].correct for m in names])
            out.append(_test("cochran_q", names, cochran_q(correct), confidence))
        y = run.y_codes[_tested_index(run, names[0])]
        for a, b in combinations(names, 2):
            ma, mb = models[a], models[b]
            table = paired_table(ma.correct, mb.correct)
            exact = table[0, 1] + table[1, 0] < 25
            mc = mcnemar_test(table, method="exact" if exact else "chi2-corrected")
            out.append(_test("mcnemar", (a, b), mc.to_dict(confidence, what=f"the error rates of {a} and {b}"),
                             confidence))
            boot = paired_bootstrap(y, ma.predicted, mb.predicted, k, accuracy, confidence=confidence,
                                    resamples=bootstrap, seed=seed)
            out.append(_test("paired_bootstrap_accuracy", (a, b), boot, confidence, difference_of="accuracy"))
            if ma.scores is not None and mb.scores is not None:
                p = run.labels.index(ma.report.positive)
                out.append(_test("delong", (a, b), delong_test(y == p, ma.scores, mb.scores, confidence=confidence),
                                 confidence, difference_of="ROC AUC"))
        return out
    # repetitions: per-part differences of the error rate
    parts = {m: run.parts(m) for m in names}
    y = np.asarray(run.y_codes)
    sizes = [(len(p.train_index), len(p.test_index)) for p in parts[names[0]]]
    n_train = float(np.mean([s[0] for s in sizes]))
    n_test = float(np.mean([s[1] for s in sizes]))

    for a, b in combinations(names, 2):
        diffs = np.array([_part_error(y, pa) - _part_error(y, pb) for pa, pb in zip(parts[a], parts[b],
                                                                                     strict=True)])
        out.append(_test("corrected_resampled_t", (a, b),
                         corrected_resampled_t(diffs, n_train=n_train, n_test=n_test, confidence=confidence),
                         confidence, difference_of="error rate"))
        if method == "repeated-cv" and settings.get("folds") == 2 and settings.get("repeats") == 5:
            table = diffs.reshape(5, 2)
            out.append(_test("paired_t_5x2cv", (a, b), paired_t_5x2cv(table), confidence,
                             difference_of="error rate"))
            out.append(_test("f_test_5x2cv", (a, b), f_test_5x2cv(table), confidence,
                             difference_of="error rate"))
    return out


ADJUSTED_TESTS = {"mcnemar": "the difference between the error rates of {a} and {b}",
                  "delong": "the difference between the AUCs of {a} and {b}",
                  "corrected_resampled_t": "the difference between the error rates of {a} and {b}",
                  "paired_t_5x2cv": "the difference between the error rates of {a} and {b}",
                  "f_test_5x2cv": "the difference between the error rates of {a} and {b}"}
"""The pairwise tests whose p-values are adjusted for multiple comparisons (each test a family), and what
their verdicts are about."""

_TEST_WORDS = {"mcnemar": "McNemar's", "delong": "DeLong's", "corrected_resampled_t": "the corrected resampled t",
               "paired_t_5x2cv": "the 5x2cv paired t", "f_test_5x2cv": "the 5x2cv combined F"}


def _check_adjust(adjust: Any) -> None:

    if adjust not in ADJUSTMENTS:
        raise InvalidInput(f"expected one of {', '.join(ADJUSTMENTS)}, got {adjust!r}", field="adjust")


def _adjusted(comparisons: list[dict[str, Any]], adjust: str, confidence: float) -> tuple[list[dict[str, Any]], str]:
    """The comparisons with the pairwise tests' p-values adjusted (each test a family of its own), the adjusted
    p-value next to ``pvalue`` and the verdict, ``significant`` and ``threshold_confidence`` about it; and a
    note saying so. The paired bootstrap's intervals (and their p-values) and Cochran's Q are not adjusted."""

    out = [dict(c) for c in comparisons]
    key = f"pvalue_{adjust}"
    sizes: dict[str, int] = {}
    for test, subject in ADJUSTED_TESTS.items():
        members = [i for i, c in enumerate(out) if c.get("test") == test]
        if not members:
            continue
        raw = [np.nan if out[i].get("pvalue") is None else float(out[i]["pvalue"]) for i in members]
        family = int(np.count_nonzero(~np.isnan(raw)))
        sizes[test] = len(members)
        how = f"after {ADJUSTMENT_TITLES[adjust]} adjustment for {family} comparison{'' if family == 1 else 's'}"
        for i, p in zip(members, adjust_pvalues(raw, adjust), strict=True):
            c, p = out[i], float(p)
            a, b = c["models"]
            entry: dict[str, Any] = {}
            for name, value in c.items():
                entry[name] = value
                if name == "pvalue":
                    entry[key] = finite_or_none(p)
            entry["verdict"] = significance_verdict(subject.format(a=a, b=b), p, confidence, note=c.get("note"),
                                                    adjustment=how)
            entry["significant"] = bool(p < 1.0 - confidence)
            entry["threshold_confidence"] = finite_or_none(1.0 - p)
            entry["adjustment"] = {"method": adjust, "family": family}
            out[i] = entry
    tests = ", ".join(f"{_TEST_WORDS[t]} ({n} pairs)" for t, n in sizes.items())
    note = (f"p-values of the pairwise tests adjusted by {ADJUSTMENT_TITLES[adjust]} method for multiple "
            f"comparisons, each test a family of its own: {tests}; the verdicts use the adjusted p-values "
            f"({key}); the paired bootstrap's intervals and p-values are not adjusted")
    return out, note


def _part_error(y: np.ndarray, part: Any) -> float:
    return float(np.mean(np.asarray(part.y_pred) != y[np.asarray(part.test_index)]))


def _tested_index(run: Any, model: str) -> np.ndarray:
    return np.flatnonzero(np.bincount(np.asarray(run.out_of_fold(model).index), minlength=len(run.y_codes)))


def _columns_of(data: Any) -> Mapping[str, Any]:
    """A table's columns: a mapping as it is, a pandas or polars data frame by its column names."""
    if isinstance(data, Mapping):
        return data
    if hasattr(data, "columns") and not isinstance(data, np.ndarray):
        return {str(c): data[c] for c in data.columns}
    raise InvalidInput(f"expected a table (a dict of columns, or a pandas or polars data frame), got "
                       f"{type(data).__name__}", field="data")


def _table_of(X: Any, y: Any) -> tuple[dict[str, Any], str]:
    """X (a 2-d array, or a data frame) and y as one table, and the name of its target column."""
    if hasattr(X, "columns") and not isinstance(X, np.ndarray):
        columns = dict(_columns_of(X))
    else:
        try:
            matrix = np.asarray(X)
        except Exception:  # noqa: BLE001 - anything that is not an array
            raise InvalidInput(f"expected a 2-d array or a data frame, got {type(X).__name__}", field="X") from None
        if matrix.ndim != 2:
            raise InvalidInput(f"expected a 2-d array (n instances, p features), got shape {matrix.shape}", field="X")
        columns = {f"x{j}": matrix[:, j] for j in range(matrix.shape[1])}
    target = "y"
    while target in columns:
        target = f"_{target}"
    if hasattr(y, "to_numpy"):
        y = y.to_numpy()
    columns[target] = y
    return columns, target


def _splits_of(cv: Any, features: Any, y: np.ndarray, groups: Any, seed: int, stratify: bool,
               labels: tuple[str, ...], folds: int, repeats: int | None) -> tuple[Any, str]:
    """The parts of ``cv`` (a number of folds, or a scikit-learn splitter object), and the method they follow:
    k-fold cross-validation when the test parts are disjoint, else repeated holdout (the mean over parts)."""

    if isinstance(cv, (int, np.integer)) and not isinstance(cv, bool):
        return make_splits("cv", y, folds=int(cv), seed=seed, stratify=stratify, labels=labels), "cv"
    return splitter_splits(cv, features.X, y, groups)


def validate(
    model: Any = None,
    X: Any = None,
    y: Any = None,
    *,
    cv: Any = None,
    groups: Any = None,
    data: Any = None,
    target: str | None = None,
    dataset: str | None = None,
    name: str | None = None,
    models: Sequence[Any] | None = None,
    method: str = "cv",
    folds: int = 10,
    repeats: int | None = None,
    test_size: float = 1 / 3,
    stratify: bool | None = None,
    seed: int = 0,
    params: Mapping[str, Mapping[str, Any]] | None = None,
    grids: Mapping[str, Mapping[str, Sequence[Any]]] | None = None,
    jobs: int = 1,
    confidence: float = 0.95,
    bootstrap: int = 2000,
    positive: Any = None,
    progress: Callable[[int, int], None] | None = None,
    adjust: str = "holm",
    task: str = "auto",
    costs: Any = None,
    prevalence: float | None = None,
    cost_matrix: Any = None,
    cost_method: str | None = None,
    refit: bool = False,
    options: Options | None = None,
) -> Validation:
    """Estimate learners' error on a data set with a protocol, and compare them.
    As scikit-learn's ``cross_validate``: ``validate(estimator, X, y, cv=...)``; or with a table
    and its target column (``validate(data, target="y", models=[...])``), or a bundled data set.

    Parameters
    ----------
    model : estimator or str, optional
        One model: a scikit-learn classifier or Pipeline (cloned for every training part,
        never fitted in place), a short name or an import path. (A table given here, as
        the first argument, is read as ``data``.)
    X, y : optional
        The inputs (a numpy array, a pandas or polars data frame) and the classes.
    cv : int or splitter, optional
        The folds of k-fold cross-validation, or any scikit-learn splitter object
        (``StratifiedKFold(5, shuffle=True)``, ``GroupKFold`` with ``groups``,
        ``TimeSeriesSplit``, ``ShuffleSplit``, ...): its parts are used as they are
        (instances it never tests are left out of the report, and said so).
    groups : array-like, optional
        The groups of a group splitter.
    data : mapping of column name to values, or a pandas/polars data frame, optional
        A table with the class in ``target``; or give ``dataset``.
    target : str
        The column of classes in ``data``.
    dataset : {"breast-cancer", "iris", "wine", "digits", "diabetes"}, optional
        A real data set that scikit-learn ships (diabetes: a numeric target, validated with regressors).
    name : str, optional
        How the report names the data (a file's name); default the data set's, or "the table".
    models : sequence of str or estimators, optional
        Several models, all run on the same splits: short names (zero-r, decision-tree,
        naive-bayes, knn, logistic, svm, random-forest, bagging, adaboost), import paths
        ("sklearn.ensemble.ExtraTreesClassifier") or estimator objects. Default: ``model``,
        else a decision tree.
    method : str, default "cv"
        resubstitution, holdout, repeated-holdout, cv, repeated-cv, loo, bootstrap,
        bootstrap632, bootstrap632plus or train-val-test.
    folds, repeats, test_size, stratify, seed
        The protocol's settings; the same seed reproduces every split. ``stratify``
        (default: stratified for classes) is refused for a numeric target.
    params : mapping of model name to its parameters, optional
    grids : mapping of model name to a hyperparameter grid (train-val-test), optional
    jobs : int, default 1
        Fit in parallel; the results are the same as with 1.
    confidence, bootstrap, positive
        As for :func:`evaluate`.
    progress : callable(done, total), optional
    adjust : {"holm", "bonferroni", "none"}, default "holm"
        With three or more models, how the p-values of the pairwise tests (McNemar, DeLong, the
        corrected resampled t and the 5x2cv tests) are adjusted for multiple comparisons, each
        test a family of its own: the adjusted p-value is added next to ``pvalue``
        (``pvalue_holm`` or ``pvalue_bonferroni``) and the verdicts use it. With two models
        there is one comparison and nothing is adjusted.
    costs, cost_matrix : optional
        The costs of the outcomes, ``{"fp": 1, "fn": 10}`` (two classes) or a k x k matrix as
        :func:`evaluate` takes it: each model's expected cost per instance is reported beside
        its error, and with two classes the optimal model in ROC space is the one for these
        costs (at ``prevalence``, default the data's).
    options : Options, optional
        ``confidence``, ``bootstrap``, ``seed``, ``costs``, ``prevalence`` and ``cost_matrix`` as one object
        (:class:`assay.Options`; keywords beside it change it).
    cost_method : {"weight", "resample"}, optional
        Cost-sensitive learning (Witten & Frank, ch. 5): inside each training part only,
        each instance is weighted by the cost of misclassifying its class (its row of the
        cost matrix, averaged off the diagonal; c_FN for positives and c_FP for negatives),
        through the estimator's ``sample_weight`` ("weight"), or the part is resampled in
        proportion to those weights ("resample"). Default: no cost-sensitive learning.
    refit : bool, default False
        Also fit each model on all the data once its error is estimated (the final model uses
        all the data; Witten & Frank, ch. 5), with the same parameters and cost-sensitive
        learning: ``result.final_models`` (scikit-learn pipelines; ``assay validate
        --save-model DIR`` saves them with joblib beside their estimates).
    task : {"auto", "classification", "regression"}, default "auto"
        "regression" validates regressors on a numeric target (the short names mean
        ``learners.REGRESSORS``: zero-r, linear, ridge, decision-tree, knn, random-forest,
        bagging, adaboost) and returns a ``RegressionValidation``
        (``assay.evaluation.regression_validation``); "auto" does so when the target holds
        non-integer numbers or the bundled data set is numeric (``diabetes``).

    Returns
    -------
    Validation, or RegressionValidation for a numeric target
    """


    options = options_from(options, keywords_of(locals()))
    refuse_decision_curve(options, "in a validation", "give the out-of-fold probabilities to assay.evaluate "
                          "(assay report --net-benefit)")
    confidence, bootstrap, seed = options.confidence, options.bootstrap, options.seed
    costs, prevalence, cost_matrix = options.costs, options.prevalence, options.cost_matrix
    _check_adjust(adjust)
    check_integer(jobs, "jobs", low=-1)
    if model is not None and not isinstance(model, str) and not is_estimator(model):
        if X is not None and y is None and not isinstance(model, Mapping):  # validate(X, y): no model named
            model, X, y = None, model, X
        else:  # validate(table, target=...): the table, first
            if data is not None:
                raise InvalidInput("give the table once (data=)", field="data")
            model, data = None, model
    if models is None:
        models = [model] if model is not None else ["decision-tree"]
    elif model is not None:
        raise InvalidInput("give one model or a list of models (models=), not both", field="model")
    if isinstance(models, str) or is_estimator(models) or not isinstance(models, Sequence) or \
            not all(isinstance(m, str) or is_estimator(m) for m in models):
        raise InvalidInput(f"expected a list of model names or scikit-learn estimators, e.g. ['decision-tree', "
                           f"'naive-bayes'], got {models!r}", field="models")
    if dataset is not None and not isinstance(dataset, str):
        raise InvalidInput(f"expected the name of a bundled data set, got {dataset!r}", field="dataset")
    if X is not None or y is not None:
        if X is None or y is None or data is not None or dataset is not None:
            raise InvalidInput("give X and y together, or a table with its target column, or a bundled data set",
                               field="X")
        data, target = _table_of(X, y)
    if (data is None) == (dataset is None):
        raise InvalidInput("give a table (with its target column) or a bundled data set, not both", field="dataset")

    columns = _columns_of(data) if data is not None else None
    from sklearn.base import is_regressor

    reason = regression_reason(task, dataset=dataset,  # why the target is numeric, or None: classes
                               target_values=columns.get(target) if columns is not None and target else None,
                               regressors=any(is_estimator(m) and is_regressor(m) for m in models))
    if reason is not None and (costs is not None or cost_matrix is not None or cost_method is not None):
        raise InvalidInput("costs of classes apply to classifiers; this target is numeric", field="costs")
    if reason is not None:  # a numeric target: regressors (evaluation.regression_validation)
        return validate_regression(data=columns, target=target, dataset=dataset, source=dataset or name or
                                   "the table", specs=named_specs(models), reason=reason, cv=cv, groups=groups,
                                   method=method, folds=folds, repeats=repeats, test_size=test_size,
                                   stratify=stratify, seed=seed, params=params, jobs=jobs, confidence=confidence,
                                   bootstrap=bootstrap, progress=progress, adjust=adjust, refit=refit)
    stratify = True if stratify is None else stratify
    if dataset is not None:
        features, y_labels = features_from_dataset(dataset)
        source = dataset
    else:
        if target is None:
            raise InvalidInput("name the column of classes", field="target")
        features, y_labels = features_from_columns(_columns_of(data), target=target)
        source = name or "the table"
    labels, y_codes = encode_target(y_labels, field=target or "y")
    specs: dict[str, Any] = {}
    for m in models:
        name = model_name(m)
        while name in specs and specs[name] is not m:
            name = f"{name}'"
        specs[name] = m
    names = list(specs)
    if not names:
        raise InvalidInput("give at least one model", field="model")
    if cv is not None:
        splits, method = _splits_of(cv, features, y_codes, groups, seed, stratify, labels, folds, repeats)
    else:
        splits = make_splits(method, y_codes, folds=folds, repeats=repeats, test_size=test_size, seed=seed,
                             stratify=stratify, labels=labels)
    y = y_codes
    class_weights, matrix = _class_weights(costs, cost_matrix, cost_method, labels, positive)
    run = run_protocol(features, y, labels, specs, splits, seed=seed, params=params or {},
                       grids=grids, jobs=jobs, progress=progress, method=method, class_weights=class_weights,
                       cost_method=cost_method or "weight")
    k = len(labels)
    notes: list[str] = []
    if class_weights is not None:
        notes.append(f"cost-sensitive learning: in each training part, every instance "
                     f"{'weighted by' if (cost_method or 'weight') == 'weight' else 'drawn in proportion to'} the cost "
                     "of misclassifying its class (" + ", ".join(f"{label} {w:.3g}" for label, w in
                                                                zip(labels, class_weights)) + "); the test parts untouched")
    if method == "resubstitution":
        notes.append("resubstitution evaluates each model on the data it was trained on: the estimate is "
                     "optimistic (Witten & Frank, ch. 5)")
    if method not in SINGLE_PASS:
        notes.append("the report of each model is on one prediction per instance: its probabilities averaged "
                     "over the repetitions that tested it")
    results: dict[str, ModelValidation] = {}
    for m in names:
        index, proba, pred, note = _one_per_instance(run, m, k)
        if note and note not in notes:
            notes.append(note)
        report, predicted = _report(labels, y[index], proba, pred, positive=positive, confidence=confidence,
                                    bootstrap=bootstrap, seed=seed, costs=costs, cost_matrix=matrix)
        correct = (predicted == y[index]).astype(np.int8)
        scores = proba[:, labels.index(report.positive)] if proba is not None and report.positive else None
        tuned = [p.tuned for p in run.parts(m) if getattr(p, "tuned", None)]
        results[m] = ModelValidation(m, learner_title(specs[m]), report, method_estimate(run, m), fold_metrics(run, m),
                                     predicted, correct, scores, tuned)
    comparisons = _comparisons(run, method, results, dict(splits.settings), confidence, seed, bootstrap) \
        if len(names) > 1 else []
    if len(names) > 2 and adjust != "none":
        comparisons, adjust_note = _adjusted(comparisons, adjust, confidence)
        notes.append(adjust_note)
    ranked = None
    parts_of = [results[m].folds for m in names]
    if len(names) > 2 and len(parts_of[0]) >= 5 and method != "train-val-test":
        table = np.array([[f["accuracy"] for f in parts] for parts in parts_of], dtype=np.float64).T
        if np.isfinite(table).all():
            ranked = replace(friedman_nemenyi(table, models=names,
                                              datasets=[f"repeat {f['repeat']} fold {f['fold']}" for f in parts_of[0]],
                                              better="higher", confidence=confidence), unit="parts")
            notes.append("Friedman's test and the Nemenyi post-hoc test rank the models on each part's accuracy "
                         "(Demšar 2006); the parts share training data, so they are not independent as data "
                         "sets are: read the ranks as a summary, and the tests as optimistic")
    space = None
    if len(labels) == 2 and len(names) > 1:
        space = roc_space({m: results[m].report for m in names}, costs, prevalence)
    final = None
    if refit:
        final = refit_all(features, y, specs, seed=seed, params=params or {}, class_weights=class_weights,
                          cost_method=cost_method or "weight")
    return Validation(source, method, dict(splits.settings), len(y), labels, tuple(features.describe()), results,
                      comparisons, confidence, tuple(notes), run, roc_space=space, final_models=final,
                      friedman=ranked)


@dataclass(frozen=True)
class ValidationOverDatasets:
    """Several data sets, each validated as alone, and the models ranked over them by their accuracy
    (1 - the method's estimated error) with Friedman's test and the Nemenyi test (Demšar 2006).
    ``to_dict()`` is the JSON of ``assay validate`` with several data sets."""

    results: dict[str, Validation]
    friedman: Any  # inference.friedman.FriedmanResult, or None with a single model
    score: str = "accuracy (1 - the method's estimated error)"

    def to_dict(self) -> dict[str, Any]:
        return {"datasets": {name: v.to_dict() for name, v in self.results.items()},
                "friedman": None if self.friedman is None else {"score": self.score, **self.friedman.to_dict()}}

    def __str__(self) -> str:

        return display.text(self)


def validate_over_datasets(sources: Sequence[Any], *, progress: Callable[[str], Any] | None = None,
                           **settings: Any) -> ValidationOverDatasets:
    """Validate the same models on several data sets and rank them over the data sets (Demšar 2006).
    ``sources``: bundled data set names, or ``(name, table, target)`` triples of your own tables; the other
    arguments as for :func:`validate` (the same models, method and seed on every data set; ``options=`` too). ``progress``,
    given a data set's name, returns the callable :func:`validate` reports to (or None).

    >>> r = validate_over_datasets(["iris", "wine"], models=["naive-bayes", "knn"], folds=3, bootstrap=200)
    >>> sorted(r.results), r.friedman.n_datasets
    (['iris', 'wine'], 2)
    """
    if isinstance(sources, str) or not hasattr(sources, "__len__") or not hasattr(sources, "__iter__") \
            or len(sources) < 2:
        raise InvalidInput("give two data sets or more to rank the models over them", field="dataset")
    given: list[tuple[str, dict[str, Any]]] = []
    for source in sources:  # every source checked, a name given twice refused, before any model is fitted
        if isinstance(source, str):
            name, kwargs = source, {"dataset": source}
        elif isinstance(source, (tuple, list)) and len(source) == 3:
            name, table, target = source
            kwargs = {"data": table, "target": target, "name": name}
        else:
            raise InvalidInput(f"expected the name of a bundled data set or a (name, table, target) triple, got "
                               f"{source!r:.80}", field="dataset")
        if any(name == seen for seen, _ in given):
            raise InvalidInput(f"{name!r} is given twice: give each data set once", field="dataset")
        given.append((name, kwargs))
    results: dict[str, Validation] = {}
    for name, kwargs in given:
        results[name] = validate(progress=progress(name) if progress else None, **kwargs, **settings)
    models = list(next(iter(results.values())).models)
    scores = []
    for name, v in results.items():
        if getattr(v, "task", "classification") == "regression":
            raise InvalidInput(f"{name}: several data sets are compared by the accuracy of classifiers; validate a "
                               "numeric target alone", field="dataset")
        scores.append([1.0 - float(v.models[m].estimate.error) for m in models])
    ranked = friedman_nemenyi(scores, models=models, datasets=list(results), better="higher",
                              confidence=next(iter(results.values())).confidence) if len(models) > 1 else None
    return ValidationOverDatasets(results, ranked)
