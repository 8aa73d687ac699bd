"""Fit every model on every training part and keep its predictions on the test part.

Each (model, split) task builds a fresh pipeline (preprocessing included) from
the model's spec with ``random_state=seed``, fits it on the training rows only
and predicts the test rows. No task draws from a shared random generator, so
running the tasks in parallel (``jobs``) gives exactly the results of running
them one after the other.
"""

from __future__ import annotations

import signal
import threading
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from assay.errors import InvalidInput
from assay.protocols.features import Features
from assay.protocols.learners import default_grid, make_model
from assay.protocols.splits import BOOTSTRAP_METHODS, METHODS, Split, Splits

__all__ = ["FoldPredictions", "OutOfFold", "ProtocolRun", "run_protocol", "grid_points"]


@dataclass(frozen=True, eq=False)
class FoldPredictions:
    """What one model, fitted on one training part, predicted.

    Attributes
    ----------
    model : str
        The model's name (a key of ``ProtocolRun.folds``).
    repeat, fold : int
        Which part (from 0).
    test_index : ndarray of int
        The test rows.
    y_pred : ndarray of int
        Predicted class codes of the test rows.
    proba : ndarray of shape (len(test_index), k) or None
        Probabilities of every class in label order (0 for a class absent from
        the training part); None when the model has no ``predict_proba``.
    train_index : ndarray of int
        The rows the model was fitted on (duplicates kept for the bootstrap;
        train plus validation for train-val-test).
    train_pred : ndarray of int or None
        Predictions on ``train_index`` (row by row, duplicates included), for
        the bootstrap methods; else None.
    tuned : dict or None
        train-val-test: ``{"grid": [{"params", "validation_accuracy"}, ...],
        "chosen": {...}, "validation_accuracy": best}``; else None.
    all_pred : ndarray of int or None
        Predictions on every instance 0..n-1, for the bootstrap methods (the
        .632+ no-information rate needs them); else None.
    """

    model: str
    repeat: int
    fold: int
    test_index: np.ndarray
    y_pred: np.ndarray
    proba: np.ndarray | None
    train_index: np.ndarray
    train_pred: np.ndarray | None = None
    tuned: dict[str, Any] | None = None
    all_pred: np.ndarray | None = None


@dataclass(frozen=True, eq=False)
class OutOfFold:
    """The test-part predictions of one model, concatenated over its parts.

    Unpacks as ``index, fold, repeat, y_true, y_pred, proba = run.out_of_fold(m)``.
    With repeated methods an instance appears once per repetition that tested it.
    """

    index: np.ndarray
    fold: np.ndarray
    repeat: np.ndarray
    y_true: np.ndarray
    y_pred: np.ndarray
    proba: np.ndarray | None

    def __iter__(self) -> Iterator[Any]:
        return iter((self.index, self.fold, self.repeat, self.y_true, self.y_pred, self.proba))

    def __len__(self) -> int:
        return len(self.index)


@dataclass(frozen=True, eq=False)
class ProtocolRun:
    """Every model's predictions under one protocol.

    Attributes
    ----------
    method : str
        One of ``splits.METHODS``.
    settings : dict
        The protocol's settings (n, seed, folds, repeats, test_size, stratify,
        as they apply) and the models' specs and parameters.
    labels : tuple of str
        The classes; codes index them.
    y_codes : ndarray of int
        The true class of every instance.
    folds : dict of str to list of FoldPredictions
        Per model, its parts in split order.
    features_notes : list of str
        ``Features.describe()``: what was done to the columns.
    task : {"classification", "regression"}
        With "regression", ``y_codes`` holds the numeric target (float64), ``labels``
        is empty, and every ``y_pred`` holds numeric predictions (``proba`` None).
    """

    method: str
    settings: dict[str, Any]
    labels: tuple[str, ...]
    y_codes: np.ndarray
    folds: dict[str, list[FoldPredictions]]
    features_notes: list[str] = field(default_factory=list)
    task: str = "classification"

    @property
    def models(self) -> list[str]:
        return list(self.folds)

    def parts(self, model: str) -> list[FoldPredictions]:
        """The model's parts (``folds[model]``), with a clear error for an unknown model."""
        if model not in self.folds:
            raise InvalidInput(f"{model!r} is not one of the models {list(self.folds)}", field="model")
        return self.folds[model]

    def out_of_fold(self, model: str) -> OutOfFold:
        """The model's test-part predictions, concatenated over its parts (in split order)."""
        parts = self.parts(model)
        index = np.concatenate([p.test_index for p in parts]).astype(np.intp, copy=False)
        fold = np.concatenate([np.full(len(p.test_index), p.fold, dtype=np.intp) for p in parts])
        repeat = np.concatenate([np.full(len(p.test_index), p.repeat, dtype=np.intp) for p in parts])
        y_pred = np.concatenate([p.y_pred for p in parts])
        if self.task != "regression":
            y_pred = y_pred.astype(np.intp, copy=False)
        proba = None
        if all(p.proba is not None for p in parts):
            proba = np.concatenate([p.proba for p in parts], axis=0)
        return OutOfFold(index, fold, repeat, self.y_codes[index], y_pred, proba)

    def export_rows(self, model: str, *, ids: Sequence[Any] | None = None) -> tuple[list[str], list[list[Any]]]:
        """Header and rows of a CSV of the model's out-of-fold predictions.

        Columns: ``id`` (the 0-based row index, or ``ids[row]`` when given),
        ``repeat``, ``fold``, ``truth``, ``predicted`` (class labels), and one
        probability column per class named by its label (when the model gives
        probabilities). A label that clashes with the first five names is
        prefixed with ``proba_``.
        """
        oof = self.out_of_fold(model)
        base = ["id", "repeat", "fold", "truth", "predicted"]
        header = list(base)
        if oof.proba is not None:
            header += [label if label not in base else f"proba_{label}" for label in self.labels]
        if ids is not None and len(ids) != len(self.y_codes):
            raise InvalidInput(f"has {len(ids)} values but the data has {len(self.y_codes)} rows", field="ids")
        labels = self.labels
        rows: list[list[Any]] = []
        if self.task == "regression":  # numbers: the actual and predicted values as they are
            return base, [[ids[i] if ids is not None else i, int(r), int(f), float(t), float(p)]
                          for i, r, f, t, p in zip(oof.index.tolist(), oof.repeat, oof.fold, oof.y_true, oof.y_pred,
                                                   strict=True)]
        for j in range(len(oof)):
            i = int(oof.index[j])
            row: list[Any] = [ids[i] if ids is not None else i, int(oof.repeat[j]), int(oof.fold[j]),
                              labels[int(oof.y_true[j])], labels[int(oof.y_pred[j])]]
            if oof.proba is not None:
                row += [float(v) for v in oof.proba[j]]
            rows.append(row)
        return header, rows


# ----------------------------------------------------------------------------
# one task


def grid_points(grid: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    """Every combination of a grid, in scikit-learn's ``ParameterGrid`` order (empty grid: ``[{}]``).

    >>> grid_points({"max_depth": [2, 4], "criterion": ["gini"]})
    [{'criterion': 'gini', 'max_depth': 2}, {'criterion': 'gini', 'max_depth': 4}]
    """
    from sklearn.model_selection import ParameterGrid

    return [dict(p) for p in ParameterGrid(dict(grid))] if grid else [{}]


def _fit(model: Any, X: np.ndarray, y: np.ndarray, name: str, where: str, regression: bool = False,
         fit_params: Mapping[str, Any] | None = None) -> None:
    try:
        with warnings.catch_warnings():
            # scikit-learn 1.9 deprecates SVC(probability=True), which the 'svm' learner is defined by
            warnings.filterwarnings("ignore", message="The `probability` parameter was deprecated",
                                    category=FutureWarning)
            model.fit(X, y, **(fit_params or {}))
    except InvalidInput:
        raise
    except (ValueError, TypeError) as e:
        message = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        if regression:
            raise InvalidInput(f"{name!r} failed to fit on {where} ({len(y)} training rows): {message}",
                               field="model") from None
        classes = len(np.unique(y))
        raise InvalidInput(f"{name!r} failed to fit on {where} ({len(y)} training rows, {classes} "
                           f"class{'es' if classes != 1 else ''}): {message}", field="model") from None


def _proba(model: Any, X: np.ndarray, k: int, name: str, where: str) -> np.ndarray | None:
    """Probabilities over all k classes in code order; 0 for classes the model never saw."""
    if not hasattr(model, "predict_proba"):
        return None
    try:
        p = np.asarray(model.predict_proba(X), dtype=np.float64)
    except (AttributeError, NotImplementedError):
        return None
    if not np.isfinite(p).all():  # the model's arithmetic failed (not the user's input): say which model
        raise InvalidInput(f"{name!r} predicted probabilities that are not numbers on {where} (its arithmetic "
                           "overflowed: rescale large features)", field="model")
    full = np.zeros((len(p), k))
    full[:, np.asarray(model.classes_).astype(np.intp)] = p
    return full


def _codes(pred: Any) -> np.ndarray:
    return np.asarray(pred).astype(np.intp, copy=False)


def _fit_costed(model: Any, X: np.ndarray, y: np.ndarray, train: np.ndarray, name: str, where: str,
                class_weights: np.ndarray | None, cost_method: str, seed: int, split: Split) -> None:
    """Fit on the training part; with ``class_weights`` (cost-sensitive learning, inside this training part
    only), each instance weighted by its class's weight (``cost_method="weight"``: the estimator's
    ``sample_weight``) or the part resampled with probabilities in proportion to them ("resample")."""
    if class_weights is None:
        _fit(model, X[train], y[train], name, where)
        return
    w = np.asarray(class_weights, dtype=np.float64)[y[train]]
    if cost_method == "resample":
        rng = np.random.default_rng([seed, split.repeat, split.fold, 17])
        drawn = rng.choice(train, size=len(train), replace=True, p=w / w.sum())
        _fit(model, X[drawn], y[drawn], name, where + " (resampled by cost)")
        return
    from sklearn.utils.validation import has_fit_parameter

    final = model.steps[-1][1] if hasattr(model, "steps") else model
    if not has_fit_parameter(final, "sample_weight"):
        raise InvalidInput(f"{name!r} cannot weight its training instances (its fit takes no sample_weight): "
                           "resample them by cost instead ({option:cost_method=resample})", field="cost_method")
    key = f"{model.steps[-1][0]}__sample_weight" if hasattr(model, "steps") else "sample_weight"
    _fit(model, X[train], y[train], name, where, fit_params={key: w})


def _task(name: str, spec: str, features: Features, y: np.ndarray, k: int, split: Split, seed: int,
          params: Mapping[str, Any], grid: Mapping[str, Sequence[Any]], record_all: bool,
          task: str = "classification", class_weights: np.ndarray | None = None,
          cost_method: str = "weight") -> FoldPredictions:
    """Fit one model on one training part and predict (inputs validated)."""
    if task == "regression":
        return _regression_task(name, spec, features, y, split, seed, params, record_all)
    X = features.X
    where = f"repeat {split.repeat} fold {split.fold}"
    tuned = None
    if split.validation is not None:
        points = []
        best: tuple[float, dict[str, Any]] | None = None
        for point in grid_points(grid) if grid else []:
            model = make_model(spec, features=features, seed=seed, params={**params, **point})
            _fit_costed(model, X, y, split.train, name, "the training part", class_weights, cost_method, seed, split)
            accuracy = float(np.mean(_codes(model.predict(X[split.validation])) == y[split.validation]))
            points.append({"params": dict(point), "validation_accuracy": accuracy})
            if best is None or accuracy > best[0]:
                best = (accuracy, dict(point))
        chosen = {**params, **(best[1] if best else {})}
        tuned = {"grid": points, "chosen": chosen, "validation_accuracy": best[0] if best else None}
        train = np.concatenate([split.train, split.validation])
        model = make_model(spec, features=features, seed=seed, params=chosen)
        _fit_costed(model, X, y, train, name, "train + validation", class_weights, cost_method, seed, split)
    else:
        train = split.train
        model = make_model(spec, features=features, seed=seed, params=params)
        _fit_costed(model, X, y, train, name, where, class_weights, cost_method, seed, split)
    train_pred = all_pred = None
    if record_all:
        all_pred = _codes(model.predict(X))
        y_pred = all_pred[split.test]
        train_pred = all_pred[train]
    else:
        y_pred = _codes(model.predict(X[split.test]))
    proba = _proba(model, X[split.test], k, name, where)
    return FoldPredictions(model=name, repeat=split.repeat, fold=split.fold, test_index=split.test, y_pred=y_pred,
                           proba=proba, train_index=train, train_pred=train_pred, tuned=tuned, all_pred=all_pred)


def _regression_task(name: str, spec: str, features: Features, y: np.ndarray, split: Split, seed: int,
                     params: Mapping[str, Any], record_all: bool) -> FoldPredictions:
    """``_task`` for a numeric target: numeric predictions, no probabilities, no tuning (inputs validated)."""
    X = features.X
    where = f"repeat {split.repeat} fold {split.fold}"
    model = make_model(spec, features=features, seed=seed, params=params, task="regression")
    _fit(model, X[split.train], y[split.train], name, where, regression=True)
    train_pred = all_pred = None
    if record_all:
        all_pred = _numbers(model.predict(X), name, where)
        y_pred = all_pred[split.test]
        train_pred = all_pred[split.train]
    else:
        y_pred = _numbers(model.predict(X[split.test]), name, where)
    return FoldPredictions(model=name, repeat=split.repeat, fold=split.fold, test_index=split.test, y_pred=y_pred,
                           proba=None, train_index=split.train, train_pred=train_pred, all_pred=all_pred)


def _numbers(pred: Any, name: str, where: str) -> np.ndarray:
    values = np.asarray(pred, dtype=np.float64).reshape(-1)
    if not np.isfinite(values).all():
        raise InvalidInput(f"{name!r} predicted values that are not finite numbers on {where} (its arithmetic "
                           "overflowed: rescale large features)", field="model")
    return values


@contextmanager
def _workers_ignore_interrupt() -> Iterator[None]:
    """Start the worker processes with Ctrl-C ignored (they inherit it), so that a Ctrl-C while they
    load prints no traceback of theirs; the main process takes Ctrl-C again as soon as they are started."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _task_in_worker(*args: Any) -> FoldPredictions | tuple[str, str | None, int | None]:
    """``_task`` for a joblib worker: a user's mistake comes back as a value, intact.

    The worker ignores Ctrl-C: a terminal sends it to every process of the group, and
    the main process alone stops the run and says so (in one line, not a traceback per worker).
    """
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # a worker thread, not a process: nothing to do
        pass
    try:
        return _task(*args)
    except InvalidInput as e:
        return (e.problem, e.field, e.row)


# ----------------------------------------------------------------------------
# the protocol


def _check_jobs(jobs: Any) -> int:
    if isinstance(jobs, bool) or not isinstance(jobs, (int, np.integer)) or (jobs < 1 and jobs != -1):
        raise InvalidInput(f"must be a whole number >= 1 (or -1 for every core), got {jobs!r}", field="jobs")
    return int(jobs)


def run_protocol(
    features: Features,
    y_codes: Any,
    labels: Sequence[str],
    models: Mapping[str, str],
    splits: Splits | Sequence[Split],
    *,
    seed: int = 0,
    params: Mapping[str, Mapping[str, Any]] | None = None,
    grids: Mapping[str, Mapping[str, Sequence[Any]]] | None = None,
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
    method: str | None = None,
    task: str = "classification",
    class_weights: Sequence[float] | None = None,
    cost_method: str = "weight",
) -> ProtocolRun:
    """Fit every model on every training part; keep the predictions on each test part.

    Parameters
    ----------
    features : Features
        The inputs (``features_from_columns`` / ``features_from_dataset``).
    y_codes : array of int, shape (n,)
        Class codes indexing ``labels`` (``encode_target``).
    labels : sequence of str
        The classes.
    models : mapping of str to str
        Display name to spec: a ``LEARNERS`` name or an import path.
    splits : Splits or sequence of Split
        From ``make_splits``; a plain sequence needs ``method``.
    seed : int, default 0
        ``random_state`` of every stochastic learner in every task.
    params : mapping, optional
        Per model name, fixed hyperparameters.
    grids : mapping, optional
        Per model name, the grid train-val-test tunes on the validation part
        (default: the learner's ``LEARNERS`` grid, none for import paths;
        parameters fixed in ``params`` are not tuned).
    jobs : int, default 1
        Tasks run in parallel (joblib) when > 1; -1 uses every core. The
        results are identical to ``jobs=1``.
    progress : callable (done, total), optional
        Called after each (model, split) task.
    method : str, optional
        The protocol, when ``splits`` is a plain sequence.
    task : {"classification", "regression"}, default "classification"
        With "regression", ``y_codes`` is the numeric target (finite numbers), ``labels``
        is empty, the models are regressors (``learners.REGRESSORS`` by name) and their
        predictions are kept as numbers. train-val-test (tuned on accuracy) is refused.

    Returns
    -------
    ProtocolRun

    Notes
    -----
    For the bootstrap methods every round's model also predicts every
    instance (``all_pred``), which gives its predictions on its own training
    sample (``train_pred``, for .632) and the share of each predicted class
    (for the .632+ no-information rate). For train-val-test each grid point is
    fitted on the training part and scored (accuracy) on the validation part;
    the best (the first on ties) is refitted on train + validation and scored
    on the untouched test part.

    Raises
    ------
    InvalidInput
        On an unknown model or parameter (``field="model"`` / ``"param"``),
        mismatched lengths, ``jobs`` < 1, or a model that fails to fit (naming
        the part).
    """
    if not isinstance(features, Features):
        raise InvalidInput("expected Features (see features_from_columns)", field="features")
    y = np.asarray(y_codes)
    if task not in ("classification", "regression"):
        raise InvalidInput(f"expected 'classification' or 'regression', got {task!r}", field="task")
    regression = task == "regression"
    if regression:
        if y.ndim != 1 or y.dtype.kind not in "iuf" or not np.isfinite(y).all():
            raise InvalidInput("expected a 1-d array of finite numbers (the numeric target)", field="y")
        y = y.astype(np.float64, copy=False)
        labels = ()
    elif y.ndim != 1 or y.dtype.kind not in "iu":
        raise InvalidInput("expected a 1-d array of integer class codes", field="y_codes")
    else:
        y = y.astype(np.intp, copy=False)
    labels = tuple(str(label) for label in labels)
    k = len(labels)
    n = features.n_rows
    if len(y) != n:
        raise InvalidInput(f"has {len(y)} values but the features have {n} rows", field="y_codes")
    if not regression and y.size and (y.min() < 0 or y.max() >= k):
        row = int(np.argmax((y < 0) | (y >= k)))
        raise InvalidInput(f"code {int(y[row])} is not a class of {list(labels)}", field="y_codes", row=row)
    if not models:
        raise InvalidInput("no model given", field="model")
    jobs = _check_jobs(jobs)
    params = {name: dict(p) for name, p in (params or {}).items()}
    grids = dict(grids or {})
    for option, given in (("param", params), ("grid", grids)):
        for name in given:
            if name not in models:
                raise InvalidInput(f"{name!r} is not one of the models {list(models)}", field=option)

    if isinstance(splits, Splits):
        method = splits.method
        settings: dict[str, Any] = dict(splits.settings)
    else:
        if method is None:
            method = "train-val-test" if any(s.validation is not None for s in splits) else None
        if method not in METHODS:
            raise InvalidInput(f"say which method made these splits, one of {list(METHODS)}", field="method")
        settings = {"n": n}
    parts = list(splits)
    if not parts:
        raise InvalidInput("no split given", field="splits")
    for s in parts:
        for what in ("train", "test", "validation"):
            index = getattr(s, what)
            if index is not None and index.size and (index.min() < 0 or index.max() >= n):
                raise InvalidInput(f"repeat {s.repeat} fold {s.fold}: a {what} index is outside 0..{n - 1}",
                                   field="splits")
        if not len(s.test) or not len(s.train):
            raise InvalidInput(f"repeat {s.repeat} fold {s.fold}: the training and test parts must not be empty",
                               field="splits")

    # validate every spec and parameter once, before any work
    tuning = method == "train-val-test"
    if regression and tuning:
        raise InvalidInput("train-val-test tunes on the validation accuracy, which numeric predictions do not "
                           "have: use holdout, cv, repeated-cv, loo or bootstrap", field="method")
    model_grids: dict[str, dict[str, list[Any]]] = {}
    for name, spec in models.items():
        make_model(spec, features=features, seed=seed, params=params.get(name),
                   task="regression" if regression else "classification")
        if tuning:
            grid = {key: list(values) for key, values in (grids.get(name) or default_grid(spec)).items()
                    if key not in params.get(name, {})}
            for key, values in grid.items():
                if not values:
                    raise InvalidInput(f"the grid of {key!r} for {name!r} is empty", field="grid")
            for point in grid_points(grid) if grid else []:
                make_model(spec, features=features, seed=seed, params={**params.get(name, {}), **point})
            model_grids[name] = grid

    record_all = method in BOOTSTRAP_METHODS
    tasks = [(name, spec, split) for name, spec in models.items() for split in parts]
    total = len(tasks)

    def call(item: tuple[str, str, Split]) -> tuple[Any, ...]:
        name, spec, split = item
        return (name, spec, features, y, k, split, seed, params.get(name, {}), model_grids.get(name, {}),
                record_all, "regression" if regression else "classification",
                None if class_weights is None else np.asarray(class_weights, dtype=np.float64), cost_method)

    results: list[FoldPredictions] = []
    if jobs == 1 or total == 1:
        for item in tasks:
            results.append(_task(*call(item)))
            if progress is not None:
                progress(len(results), total)
    else:
        from joblib import Parallel, delayed  # lazy (assay.lazy_imports): only folds run in parallel need it

        with _workers_ignore_interrupt():
            stream = Parallel(n_jobs=jobs, return_as="generator")(delayed(_task_in_worker)(*call(t))
                                                                  for t in tasks)
        try:
            for result in stream:
                if isinstance(result, tuple):
                    problem, field_name, row = result
                    raise InvalidInput(problem, field=field_name, row=row)
                results.append(result)
                if progress is not None:
                    progress(len(results), total)
        finally:
            with warnings.catch_warnings():  # stopping early on an error cancels the tasks still running
                warnings.filterwarnings("ignore", message=".*tasks which were still being processed",
                                        category=UserWarning)
                stream.close()

    folds: dict[str, list[FoldPredictions]] = {name: [] for name in models}
    for result in results:
        folds[result.model].append(result)
    settings.update(method=method, models=dict(models), params=params)
    if settings.get("seed", seed) != seed:
        settings["learner_seed"] = seed
    if tuning:
        settings["grids"] = model_grids
    return ProtocolRun(method=method, settings=settings, labels=labels, y_codes=y, folds=folds,
                       features_notes=features.describe(),
                       task="regression" if regression else "classification")


def refit_all(features: Features, y: Any, models: Mapping[str, str], *, seed: int = 0,
              params: Mapping[str, Mapping[str, Any]] | None = None, class_weights: Sequence[float] | None = None,
              cost_method: str = "weight", task: str = "classification") -> dict[str, Any]:
    """Every model fitted on all the data, after its error was estimated (Witten & Frank, ch. 5: the final
    model uses all the data), with the same parameters and cost-sensitive learning as in the protocol."""
    y = np.asarray(y)
    everything = Split(repeat=0, fold=0, train=np.arange(len(y)), test=np.arange(0))
    fitted: dict[str, Any] = {}
    for name, spec in models.items():
        model = make_model(spec, features=features, seed=seed, params=(params or {}).get(name), task=task)
        if task == "regression":
            _fit(model, features.X, y.astype(np.float64), name, "all the data", regression=True)
        else:
            _fit_costed(model, features.X, y.astype(np.intp), everything.train, name, "all the data",
                        None if class_weights is None else np.asarray(class_weights, dtype=np.float64), cost_method,
                        seed, everything)
        fitted[name] = model
    return fitted
