"""Learners by short name, or any scikit-learn classifier by import path.

Every model is a fresh ``Pipeline(preprocessor, estimator)``: the preprocessing
(imputation, one-hot encoding, scaling) is a pipeline step, so whichever part
of the data the model is fitted on is also the only part the preprocessing
learns from.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from assay.errors import InvalidInput
from assay.protocols.features import Features, preprocessor

__all__ = ["LearnerSpec", "LEARNERS", "REGRESSORS", "make_model", "make_estimator", "parse_params", "learner_title",
           "default_grid", "is_estimator", "model_name"]


@dataclass(frozen=True)
class LearnerSpec:
    """A named learner.

    Attributes
    ----------
    name : str
        The short name used by ``--model``.
    title : str
        A name for people.
    scaled : bool
        Whether its numeric inputs are standardised (distance- and
        gradient-based learners need it; trees do not).
    grid : dict of str to list
        The hyperparameters tuned on the validation part by train-val-test.
    build : callable (seed) -> estimator
        The estimator with assay's defaults and ``random_state=seed`` when it is
        stochastic.
    """

    name: str
    title: str
    scaled: bool
    grid: dict[str, list[Any]]
    build: Callable[[int], Any] = field(repr=False)

    def make(self, seed: int, params: Mapping[str, Any] | None = None) -> Any:
        """The estimator (not the pipeline) with ``params`` set; unknown names are refused."""
        return _with_params(self.build(seed), params or {}, self.name)


def _zero_r(seed: int) -> Any:
    from sklearn.dummy import DummyClassifier

    return DummyClassifier(strategy="most_frequent")


def _tree(seed: int) -> Any:
    from sklearn.tree import DecisionTreeClassifier

    return DecisionTreeClassifier(random_state=seed)


def _naive_bayes(seed: int) -> Any:
    from sklearn.naive_bayes import GaussianNB

    return GaussianNB()


def _knn(seed: int) -> Any:
    from sklearn.neighbors import KNeighborsClassifier

    return KNeighborsClassifier()


def _logistic(seed: int) -> Any:
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(max_iter=1000, random_state=seed)


def _svm(seed: int) -> Any:
    from sklearn.svm import SVC

    return SVC(probability=True, random_state=seed)


def _forest(seed: int) -> Any:
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(random_state=seed)


def _bagging(seed: int) -> Any:
    from sklearn.ensemble import BaggingClassifier
    from sklearn.tree import DecisionTreeClassifier

    return BaggingClassifier(estimator=DecisionTreeClassifier(), random_state=seed)


def _adaboost(seed: int) -> Any:
    from sklearn.ensemble import AdaBoostClassifier

    return AdaBoostClassifier(random_state=seed)


LEARNERS: dict[str, LearnerSpec] = {
    spec.name: spec
    for spec in (
        LearnerSpec("zero-r", "ZeroR (the majority class)", False, {}, _zero_r),
        LearnerSpec("decision-tree", "decision tree (CART)", False,
                    {"max_depth": [None, 2, 4, 8], "min_samples_leaf": [1, 5]}, _tree),
        LearnerSpec("naive-bayes", "Gaussian naive Bayes", False, {"var_smoothing": [1e-9, 1e-6, 1e-3]},
                    _naive_bayes),
        LearnerSpec("knn", "k nearest neighbours", True, {"n_neighbors": [1, 3, 5, 9, 15]}, _knn),
        LearnerSpec("logistic", "logistic regression", True, {"C": [0.01, 0.1, 1.0, 10.0, 100.0]}, _logistic),
        LearnerSpec("svm", "support vector machine (RBF kernel)", True,
                    {"C": [0.1, 1.0, 10.0], "gamma": ["scale", 0.01, 0.1]}, _svm),
        LearnerSpec("random-forest", "random forest", False,
                    {"max_features": ["sqrt", 0.5], "min_samples_leaf": [1, 5]}, _forest),
        LearnerSpec("bagging", "bagging of decision trees", False, {"n_estimators": [10, 50]}, _bagging),
        LearnerSpec("adaboost", "AdaBoost (boosting of decision stumps)", False,
                    {"n_estimators": [50, 100], "learning_rate": [0.5, 1.0]}, _adaboost),
    )
}
"""The named learners, in the order they are listed to users."""


def _mean(seed: int) -> Any:
    from sklearn.dummy import DummyRegressor

    return DummyRegressor(strategy="mean")


def _linear(seed: int) -> Any:
    from sklearn.linear_model import LinearRegression

    return LinearRegression()


def _ridge(seed: int) -> Any:
    from sklearn.linear_model import Ridge

    return Ridge()


def _tree_regressor(seed: int) -> Any:
    from sklearn.tree import DecisionTreeRegressor

    return DecisionTreeRegressor(random_state=seed)


def _knn_regressor(seed: int) -> Any:
    from sklearn.neighbors import KNeighborsRegressor

    return KNeighborsRegressor()


def _forest_regressor(seed: int) -> Any:
    from sklearn.ensemble import RandomForestRegressor

    return RandomForestRegressor(random_state=seed)


def _bagging_regressor(seed: int) -> Any:
    from sklearn.ensemble import BaggingRegressor
    from sklearn.tree import DecisionTreeRegressor

    return BaggingRegressor(estimator=DecisionTreeRegressor(), random_state=seed)


def _adaboost_regressor(seed: int) -> Any:
    from sklearn.ensemble import AdaBoostRegressor

    return AdaBoostRegressor(random_state=seed)


REGRESSORS: dict[str, LearnerSpec] = {
    spec.name: spec
    for spec in (
        LearnerSpec("zero-r", "ZeroR (the mean of the training values)", False, {}, _mean),
        LearnerSpec("linear", "linear regression (least squares)", True, {}, _linear),
        LearnerSpec("ridge", "ridge regression", True, {"alpha": [0.01, 0.1, 1.0, 10.0, 100.0]}, _ridge),
        LearnerSpec("decision-tree", "regression tree (CART)", False,
                    {"max_depth": [None, 2, 4, 8], "min_samples_leaf": [1, 5]}, _tree_regressor),
        LearnerSpec("knn", "k nearest neighbours (mean of their values)", True, {"n_neighbors": [1, 3, 5, 9, 15]},
                    _knn_regressor),
        LearnerSpec("random-forest", "random forest of regression trees", False,
                    {"max_features": [1.0, 0.5], "min_samples_leaf": [1, 5]}, _forest_regressor),
        LearnerSpec("bagging", "bagging of regression trees", False, {"n_estimators": [10, 50]}, _bagging_regressor),
        LearnerSpec("adaboost", "AdaBoost.R2 (boosting of regression trees)", False,
                    {"n_estimators": [50, 100], "learning_rate": [0.5, 1.0]}, _adaboost_regressor),
    )
}
"""The named learners of numeric targets (``task="regression"``): the classifiers' names map to their
regressor variants; ``linear`` and ``ridge`` are for numbers only."""

TASKS = ("classification", "regression")


# ----------------------------------------------------------------------------
# parameters


def parse_params(items: Iterable[str], *, field: str = "param") -> dict[str, Any]:
    """``key=value`` strings as a dict; values are Python literals, else text.

    Examples
    --------
    >>> parse_params(["max_depth=3", "criterion=entropy", "class_weight=None"])
    {'max_depth': 3, 'criterion': 'entropy', 'class_weight': None}

    Raises
    ------
    InvalidInput
        On an item without ``=``, with an empty name, or a name given twice.
    """
    params: dict[str, Any] = {}
    for item in items:
        if not isinstance(item, str) or "=" not in item:
            raise InvalidInput(f"{item!r} is not of the form name=value (e.g. max_depth=3)", field=field)
        key, _, text = item.partition("=")
        key = key.strip()
        if not key.isidentifier():
            raise InvalidInput(f"{item!r}: {key!r} is not a parameter name", field=field)
        if key in params:
            raise InvalidInput(f"{key!r} is given twice", field=field)
        text = text.strip()
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            value = text
        params[key] = value
    return params


def _with_params(estimator: Any, params: Mapping[str, Any], what: str) -> Any:
    if not params:
        return estimator
    known = estimator.get_params(deep=True)
    for key in params:
        if key not in known:
            names = ", ".join(sorted(k for k in known if "__" not in k))
            raise InvalidInput(f"{key!r} is not a parameter of {what} (its parameters: {names})", field="param")
    try:
        estimator.set_params(**params)
    except (ValueError, TypeError) as e:
        raise InvalidInput(f"cannot set {dict(params)} on {what}: {e}", field="param") from None
    return estimator


# ----------------------------------------------------------------------------
# import paths


def _import_class(path: str) -> Any:
    module_name, _, class_name = path.rpartition(".")
    if not module_name or not class_name:
        raise InvalidInput(f"{path!r} is not a known learner {list(LEARNERS)} nor an import path "
                           "package.module.ClassName (e.g. sklearn.tree.ExtraTreeClassifier)", field="model")
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise InvalidInput(f"{path!r}: cannot import module {module_name!r} ({e})", field="model") from None
    except Exception as e:  # noqa: BLE001 - a third-party module failing on import
        raise InvalidInput(f"{path!r}: importing {module_name!r} failed: {type(e).__name__}: {e}",
                           field="model") from None
    if not hasattr(module, class_name):
        raise InvalidInput(f"{path!r}: module {module_name!r} has no {class_name!r}", field="model")
    cls = getattr(module, class_name)
    if not isinstance(cls, type):
        raise InvalidInput(f"{path!r} is not a class", field="model")
    for method in ("fit", "predict", "get_params", "set_params"):
        if not callable(getattr(cls, method, None)):
            raise InvalidInput(f"{path!r} has no {method}() method: not a scikit-learn estimator", field="model")
    return cls


def _is_classifier(estimator: Any) -> bool:
    return _is_kind(estimator, "classification")


def _is_kind(estimator: Any, task: str) -> bool:
    """Whether ``estimator`` is a classifier (``task="classification"``) or a regressor."""
    from sklearn.base import is_classifier, is_regressor

    kind = "classifier" if task == "classification" else "regressor"
    try:
        if (is_classifier if kind == "classifier" else is_regressor)(estimator):
            return True
    except Exception:  # noqa: BLE001 - estimators without tags
        pass
    return getattr(estimator, "_estimator_type", None) == kind


def _not_kind(what: str, task: str) -> str:
    kind = "classifier" if task == "classification" else "regressor"
    mixin = "ClassifierMixin" if task == "classification" else "RegressorMixin"
    hint = "" if task == "regression" else " (give task='regression' / --task regression for numeric targets)"
    return (f"{what} is not a {kind} (a scikit-learn {kind} has _estimator_type {kind!r}, e.g. through "
            f"{mixin}){hint}")


def _learners(task: str) -> dict[str, LearnerSpec]:
    if task not in TASKS:
        raise InvalidInput(f"expected one of {list(TASKS)}, got {task!r}", field="task")
    return LEARNERS if task == "classification" else REGRESSORS


def make_estimator(name_or_path: str, *, seed: int = 0, params: Mapping[str, Any] | None = None,
                   task: str = "classification") -> tuple[Any, bool]:
    """The estimator (without preprocessing) and whether its inputs are scaled.

    A short name from ``LEARNERS`` (``REGRESSORS`` when ``task="regression"``), or an
    import path ``package.module.ClassName`` of a scikit-learn-compatible classifier
    (regressor): it gets ``random_state=seed`` when it has that parameter (and ``params``
    do not set it), and scaled inputs.

    Raises
    ------
    InvalidInput
        ``field="model"``: an unknown name, a path that does not import, or a
        class that is not a classifier (regressor); ``field="param"``: an unknown parameter.
    """
    learners = _learners(task)
    example = "sklearn.tree.ExtraTreeClassifier" if task == "classification" else "sklearn.tree.ExtraTreeRegressor"
    if is_estimator(name_or_path):  # the user's own estimator or Pipeline: a fresh, unfitted copy
        from sklearn.base import clone

        estimator = clone(name_or_path)
        if not _is_kind(estimator, task):
            raise InvalidInput(_not_kind(type(estimator).__name__, task), field="model")
        return _with_params(estimator, dict(params or {}), type(estimator).__name__), True
    if not isinstance(name_or_path, str) or not name_or_path.strip():
        raise InvalidInput(f"expected a learner name {list(learners)}, an import path or a scikit-learn "
                           f"estimator, got {name_or_path!r}", field="model")
    name = name_or_path.strip()
    params = dict(params or {})
    if name in learners:
        spec = learners[name]
        return spec.make(seed, params), spec.scaled
    if "." not in name:
        kind = "learner" if task == "classification" else "regressor"
        raise InvalidInput(f"{name!r} is not a known {kind} {list(learners)} nor an import path "
                           f"package.module.ClassName (e.g. {example})", field="model")
    cls = _import_class(name)
    try:
        estimator = cls()
    except Exception as e:  # noqa: BLE001 - a constructor that needs arguments
        raise InvalidInput(f"{name!r} cannot be made without arguments: {type(e).__name__}: {e}",
                           field="model") from None
    if not _is_kind(estimator, task):
        raise InvalidInput(_not_kind(repr(name), task), field="model")
    if "random_state" not in params:
        try:
            if "random_state" in estimator.get_params(deep=False):
                estimator.set_params(random_state=seed)
        except Exception:  # noqa: BLE001 - get_params of a third-party estimator
            pass
    return _with_params(estimator, params, name), True


def make_model(
    name_or_path: str,
    *,
    features: Features,
    seed: int = 0,
    params: Mapping[str, Any] | None = None,
    task: str = "classification",
) -> Any:
    """A fresh, unfitted ``Pipeline([("features", preprocessor), ("model", estimator)])``.

    Parameters
    ----------
    name_or_path : str
        A key of ``LEARNERS`` or an import path ``package.module.ClassName``.
    features : Features
        Which columns are numeric and categorical (nothing is fitted here).
    seed : int
        ``random_state`` of stochastic learners.
    params : mapping, optional
        Hyperparameters of the estimator (see ``parse_params``); names are
        checked against ``estimator.get_params()``.
    task : {"classification", "regression"}, default "classification"
        Which learners the short names mean (``LEARNERS`` or ``REGRESSORS``).

    Examples
    --------
    >>> import numpy as np
    >>> from assay.protocols.features import features_from_columns
    >>> f, _ = features_from_columns({"x": np.arange(4.0), "y": np.array(["a", "b", "a", "b"])}, target="y")
    >>> model = make_model("decision-tree", features=f, seed=1, params={"max_depth": 2})
    >>> [name for name, _ in model.steps], model.get_params()["model__max_depth"]
    (['features', 'model'], 2)
    """
    from sklearn.pipeline import Pipeline

    estimator, scaled = make_estimator(name_or_path, seed=seed, params=params, task=task)
    return Pipeline([("features", preprocessor(features, scale=scaled)), ("model", estimator)])


def is_estimator(model: Any) -> bool:
    """Whether ``model`` is an estimator object (scikit-learn's API: ``fit`` and ``get_params``), not a name."""
    return not isinstance(model, str) and hasattr(model, "fit") and hasattr(model, "get_params")


def model_name(model: Any) -> str:
    """How a model is named in results: its short name or import path, or an estimator's class name (a
    Pipeline's by its last step: ``Pipeline(LogisticRegression)``)."""
    if not is_estimator(model):
        return model
    steps = getattr(model, "steps", None)
    if steps:
        return f"{type(model).__name__}({type(steps[-1][1]).__name__})"
    return type(model).__name__


def learner_title(name_or_path: Any, *, task: str = "classification") -> str:
    """A name for people: the learner's title, or the class name of an import path or an estimator."""
    if is_estimator(name_or_path):
        return model_name(name_or_path)
    spec = (REGRESSORS if task == "regression" else LEARNERS).get(name_or_path)
    return spec.title if spec else name_or_path.rpartition(".")[2]


def default_grid(name_or_path: Any) -> dict[str, list[Any]]:
    """The hyperparameter grid train-val-test tunes by default (empty for import paths and estimators)."""
    if is_estimator(name_or_path):
        return {}
    spec = LEARNERS.get(name_or_path)
    return {k: list(v) for k, v in spec.grid.items()} if spec else {}
