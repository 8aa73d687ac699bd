"""Which rows train a model and which test it: every protocol's parts, from a seed.

The methods of Witten & Frank, ch. 5, Han & Kamber (2006) and Mitchell (1997), ch. 5:

- ``resubstitution``: train and test on all the data (optimistic).
- ``holdout``: 1/3 tested, 2/3 trained, stratified by default.
- ``repeated-holdout``: the holdout repeated on ``repeats`` random subsamples.
- ``cv``: k-fold cross-validation, stratified by default (10 folds).
- ``repeated-cv``: k-fold cross-validation repeated with ``repeats`` shuffles.
- ``loo``: leave-one-out, n folds of one instance.
- ``bootstrap``, ``bootstrap632``, ``bootstrap632plus``: ``repeats`` rounds; each
  trains on n draws with replacement (duplicates kept) and tests on the
  instances never drawn (out of bag).
- ``train-val-test``: a test part held out (1/3), the rest split 2:1 into train
  and validation (for tuning), stratified.

The stratified methods use scikit-learn's splitters with ``random_state=seed``
(``StratifiedShuffleSplit``, ``StratifiedKFold``, ``RepeatedStratifiedKFold``),
so a user can rebuild the very same parts with scikit-learn; the bootstrap
draws come from ``numpy.random.default_rng(seed)``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args, overload

import numpy as np

from assay.checks import check_integer, check_seed
from assay.errors import InvalidInput

__all__ = ["Method", "METHODS", "REPEATED_METHODS", "BOOTSTRAP_METHODS", "Split", "Splits", "make_splits",
           "DEFAULT_REPEATS", "REGRESSION_METHODS", "regression_splits", "splitter_splits"]

Method = Literal["resubstitution", "holdout", "repeated-holdout", "cv", "repeated-cv", "loo", "bootstrap",
                 "bootstrap632", "bootstrap632plus", "train-val-test"]
METHODS: tuple[str, ...] = get_args(Method)
BOOTSTRAP_METHODS: tuple[str, ...] = ("bootstrap", "bootstrap632", "bootstrap632plus")
REPEATED_METHODS: tuple[str, ...] = ("repeated-holdout", "repeated-cv", *BOOTSTRAP_METHODS)
DEFAULT_REPEATS: dict[str, int] = {"repeated-holdout": 10, "repeated-cv": 10, "bootstrap": 50, "bootstrap632": 50,
                                   "bootstrap632plus": 50}
"""How many repetitions (or bootstrap rounds) each repeated method makes by default."""


@dataclass(frozen=True, eq=False)
class Split:
    """One training part and its test part (row indices).

    ``train`` keeps duplicates for the bootstrap methods (n draws with
    replacement); ``validation`` is set by train-val-test only. ``repeat`` and
    ``fold`` number the part from 0.
    """

    train: np.ndarray
    test: np.ndarray
    repeat: int
    fold: int
    validation: np.ndarray | None = None


@dataclass(frozen=True, eq=False)
class Splits(Sequence[Split]):
    """The parts of one protocol: a sequence of ``Split`` that knows its method and settings."""

    method: str
    settings: dict[str, Any]
    parts: tuple[Split, ...] = field(repr=False)

    def __len__(self) -> int:
        return len(self.parts)

    @overload
    def __getitem__(self, i: int) -> Split: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[Split]: ...
    def __getitem__(self, i: Any) -> Any:
        return self.parts[i]

    def __iter__(self) -> Iterator[Split]:
        return iter(self.parts)

    @property
    def n_repeats(self) -> int:
        return 1 + max((s.repeat for s in self.parts), default=0)


# ----------------------------------------------------------------------------
# validation


def _check_int(value: Any, field: str, low: int) -> int:
    return check_integer(value, field, low=low)


def _check_seed(seed: Any) -> int:
    return check_seed(seed)


def _check_codes(y_codes: Any) -> np.ndarray:
    y = np.asarray(y_codes)
    if y.ndim != 1:
        raise InvalidInput(f"expected a 1-d array of class codes, got shape {y.shape}", field="y_codes")
    if y.dtype.kind not in "iu":
        if y.dtype.kind == "f" and y.size and np.all(np.isfinite(y)) and np.array_equal(y, np.trunc(y)):
            y = y.astype(np.intp)
        else:
            raise InvalidInput("expected integer class codes (see features.encode_target)", field="y_codes")
    if y.size and y.min() < 0:
        raise InvalidInput("class codes must be >= 0", field="y_codes", row=int(np.argmax(y < 0)))
    if len(np.unique(y)) < 2:
        raise InvalidInput("a single class is present; at least two are needed", field="y_codes")
    return y.astype(np.intp, copy=False)


def _class_name(code: int, labels: Sequence[str] | None) -> str:
    if labels is not None and 0 <= code < len(labels):
        return repr(labels[code])
    return f"with code {code}"


def _smallest_class(y: np.ndarray) -> tuple[int, int]:
    present, counts = np.unique(y, return_counts=True)
    i = int(np.argmin(counts))
    return int(present[i]), int(counts[i])


def _check_holdout_sizes(y: np.ndarray, test_size: float, stratify: bool, labels: Sequence[str] | None,
                         what: str) -> None:
    """Both parts non-empty and, when stratified, room for every class in each."""
    n = len(y)
    n_test = math.ceil(test_size * n)
    n_train = n - n_test
    if n_test < 1 or n_train < 1:
        raise InvalidInput(f"{test_size} of {n} instances leaves {n_train} to train and {n_test} to test "
                           f"in the {what}", field="test_size")
    if stratify:
        code, count = _smallest_class(y)
        if count < 2:
            raise InvalidInput(f"class {_class_name(code, labels)} has {count} instance; a stratified {what} "
                               "needs at least 2 of every class (or turn stratification off)", field="stratify")
        k = len(np.unique(y))
        if n_test < k or n_train < k:
            raise InvalidInput(f"{test_size} of {n} instances gives {n_test} to test and {n_train} to train in "
                               f"the {what}; a stratified split needs at least {k} (one per class) in each",
                               field="test_size")


# ----------------------------------------------------------------------------
# the methods


def _shuffle_splits(y: np.ndarray, *, n_splits: int, test_size: float, seed: int, stratify: bool) -> list[tuple]:
    from sklearn.model_selection import ShuffleSplit, StratifiedShuffleSplit

    splitter = (StratifiedShuffleSplit if stratify else ShuffleSplit)(
        n_splits=n_splits, test_size=test_size, random_state=seed)
    X = np.zeros((len(y), 1))
    return list(splitter.split(X, y))


def _bootstrap(n: int, rounds: int, seed: int) -> list[Split]:
    """n draws with replacement per round; a draw that leaves nothing out of bag is drawn again."""
    rng = np.random.default_rng(seed)
    everyone = np.arange(n)
    parts = []
    for r in range(rounds):
        while True:
            train = rng.integers(0, n, size=n)
            drawn = np.zeros(n, dtype=bool)
            drawn[train] = True
            test = everyone[~drawn]
            if test.size:
                break
        parts.append(Split(train=train, test=test, repeat=r, fold=0))
    return parts


def make_splits(
    method: str,
    y_codes: Any,
    *,
    folds: int = 10,
    repeats: int | None = None,
    test_size: float = 1 / 3,
    seed: int = 0,
    stratify: bool = True,
    labels: Sequence[str] | None = None,
) -> Splits:
    """The training and test parts of a protocol.

    Parameters
    ----------
    method : str
        One of ``METHODS``.
    y_codes : array of int, shape (n,)
        The class code of each instance (stratification needs it; the others
        only its length).
    folds : int, default 10
        Folds of ``cv`` and ``repeated-cv``.
    repeats : int, optional
        Repetitions of ``repeated-holdout`` (default 10) and ``repeated-cv``
        (default 10), rounds of the bootstrap methods (default 50). Refused
        for the other methods.
    test_size : float, default 1/3
        Share of the instances held out by ``holdout``, ``repeated-holdout``
        and ``train-val-test`` (whose remaining part is split 2:1 into train
        and validation).
    seed : int, default 0
        Everything random follows from it.
    stratify : bool, default True
        Keep the class proportions in every part (holdout, repeated-holdout,
        cv, repeated-cv, train-val-test). LOO and the bootstrap are not
        stratified.
    labels : sequence of str, optional
        Class names, only to name a class in an error message.

    Returns
    -------
    Splits
        A sequence of ``Split(train, test, repeat, fold, validation)``, with
        ``method`` and the ``settings`` used.

    Raises
    ------
    InvalidInput
        Naming the option: an unknown ``method``; ``folds`` < 2, or more folds
        than the smallest class has instances (stratified) or than there are
        instances; ``test_size`` outside (0, 1) or leaving a part empty;
        ``repeats`` < 1 or given to a method that does not repeat; ``seed`` not
        a whole number in [0, 2**32).

    Examples
    --------
    >>> y = [0, 0, 0, 0, 1, 1, 1, 1]
    >>> splits = make_splits("cv", y, folds=4, seed=0)
    >>> len(splits), sorted(int(i) for s in splits for i in s.test) == list(range(8))
    (4, True)
    >>> [len(s.test) for s in make_splits("loo", y)] == [1] * 8
    True
    """
    if method not in METHODS:
        raise InvalidInput(f"{method!r} is not one of {list(METHODS)}", field="method")
    y = _check_codes(y_codes)
    n = len(y)
    seed = _check_seed(seed)
    stratify = bool(stratify)
    if repeats is not None:
        repeats = _check_int(repeats, "repeats", 1)
        if method not in REPEATED_METHODS:
            raise InvalidInput(f"the {method} method does not repeat; repeats applies to {list(REPEATED_METHODS)}",
                               field="repeats")
    if isinstance(test_size, bool) or not isinstance(test_size, (int, float, np.integer, np.floating)) \
            or not 0 < float(test_size) < 1:
        raise InvalidInput(f"must be a share strictly between 0 and 1, got {test_size!r}", field="test_size")
    test_size = float(test_size)
    rounds = repeats if repeats is not None else DEFAULT_REPEATS.get(method, 1)

    settings: dict[str, Any] = {"n": n, "seed": seed}
    parts: list[Split] = []
    everyone = np.arange(n)
    if method == "resubstitution":
        parts = [Split(train=everyone, test=everyone.copy(), repeat=0, fold=0)]
    elif method in ("holdout", "repeated-holdout"):
        _check_holdout_sizes(y, test_size, stratify, labels, "holdout")
        count = 1 if method == "holdout" else rounds
        parts = [Split(train=np.asarray(tr, np.intp), test=np.asarray(te, np.intp), repeat=r, fold=0)
                 for r, (tr, te) in enumerate(_shuffle_splits(y, n_splits=count, test_size=test_size, seed=seed,
                                                              stratify=stratify))]
        settings.update(test_size=test_size, stratify=stratify)
        if method == "repeated-holdout":
            settings["repeats"] = rounds
    elif method in ("cv", "repeated-cv"):
        folds = _check_int(folds, "folds", 2)
        if folds > n:
            raise InvalidInput(f"{folds} folds for {n} instances: at most one fold per instance", field="folds")
        if stratify:
            code, count = _smallest_class(y)
            if folds > count:
                raise InvalidInput(f"{folds} stratified folds need at least {folds} instances of every class, "
                                   f"but class {_class_name(code, labels)} has {count}", field="folds")
        from sklearn.model_selection import KFold, RepeatedKFold, RepeatedStratifiedKFold, StratifiedKFold

        X = np.zeros((n, 1))
        if method == "cv":
            splitter: Any = (StratifiedKFold if stratify else KFold)(n_splits=folds, shuffle=True, random_state=seed)
            pairs = [(0, f, tr, te) for f, (tr, te) in enumerate(splitter.split(X, y))]
        else:
            splitter = (RepeatedStratifiedKFold if stratify else RepeatedKFold)(
                n_splits=folds, n_repeats=rounds, random_state=seed)
            pairs = [(i // folds, i % folds, tr, te) for i, (tr, te) in enumerate(splitter.split(X, y))]
        parts = [Split(train=np.asarray(tr, np.intp), test=np.asarray(te, np.intp), repeat=r, fold=f)
                 for r, f, tr, te in pairs]
        settings.update(folds=folds, stratify=stratify)
        if method == "repeated-cv":
            settings["repeats"] = rounds
    elif method == "loo":
        parts = [Split(train=np.delete(everyone, i), test=np.array([i], dtype=np.intp), repeat=0, fold=i)
                 for i in range(n)]
        settings["folds"] = n
    elif method in BOOTSTRAP_METHODS:
        parts = _bootstrap(n, rounds, seed)
        settings["repeats"] = rounds
    else:  # train-val-test
        _check_holdout_sizes(y, test_size, stratify, labels, "test hold-out")
        ((rest, test),) = _shuffle_splits(y, n_splits=1, test_size=test_size, seed=seed, stratify=stratify)
        rest = np.asarray(rest, np.intp)
        _check_holdout_sizes(y[rest], 1 / 3, stratify, labels, "train/validation split")
        ((tr, va),) = _shuffle_splits(y[rest], n_splits=1, test_size=1 / 3, seed=seed, stratify=stratify)
        parts = [Split(train=rest[tr], test=np.asarray(test, np.intp), repeat=0, fold=0, validation=rest[va])]
        settings.update(test_size=test_size, validation_size=(1 - test_size) / 3, stratify=stratify)
    return Splits(method=method, settings=settings, parts=tuple(parts))


REGRESSION_METHODS: tuple[str, ...] = ("resubstitution", "holdout", "repeated-holdout", "cv", "repeated-cv", "loo",
                                       "bootstrap")
"""The methods that apply to a numeric target (never stratified)."""


def regression_splits(method: str, n: int, *, folds: int = 10, repeats: int | None = None, test_size: float = 1 / 3,
                      seed: int = 0) -> Splits:
    """The parts of a protocol for a numeric target: ``make_splits`` without stratification.

    The same seed gives the same parts as ``make_splits(..., stratify=False)`` (scikit-learn's ``KFold``,
    ``RepeatedKFold`` and ``ShuffleSplit`` with ``random_state=seed``; the bootstrap from
    ``numpy.random.default_rng(seed)``), so a user can rebuild them with scikit-learn.

    Raises
    ------
    InvalidInput
        On ``bootstrap632``, ``bootstrap632plus`` and ``train-val-test`` (defined for a classifier's error
        rate and accuracy), fewer than 2 instances, and what ``make_splits`` refuses.

    Examples
    --------
    >>> [len(s.test) for s in regression_splits("cv", 6, folds=3)]
    [2, 2, 2]
    """
    if method in ("bootstrap632", "bootstrap632plus"):
        raise InvalidInput(f"{method} combines a classifier's error rate with its no-information rate; for numeric "
                           f"predictions use {', '.join(REGRESSION_METHODS)}", field="method")
    if method == "train-val-test":
        raise InvalidInput("train-val-test tunes on the validation accuracy, which numeric predictions do not "
                           f"have; use {', '.join(REGRESSION_METHODS)}", field="method")
    n = check_integer(n, "n", low=2)
    # unstratified methods read only the length of y_codes: two alternating codes stand in for the target
    return make_splits(method, np.arange(n) % 2, folds=folds, repeats=repeats, test_size=test_size, seed=seed,
                       stratify=False)


def splitter_splits(cv: Any, X: Any, y: np.ndarray, groups: Any = None) -> tuple[Splits, str]:
    """The parts a scikit-learn splitter object (``StratifiedKFold``, ``GroupKFold``, ``TimeSeriesSplit``, ...)
    gives, and the method they follow: k-fold cross-validation when the test parts are disjoint, else
    repeated holdout (the mean over parts). A user's mistake is ``InvalidInput`` naming ``cv`` or ``groups``."""
    if isinstance(cv, str) or not hasattr(cv, "split"):
        raise InvalidInput(f"expected a number of folds or a scikit-learn splitter (with .split), got {cv!r}",
                           field="cv")
    if groups is not None:
        groups = np.asarray(groups)
        if len(groups) != len(y):
            raise InvalidInput(f"has {len(groups)} values but y has {len(y)}", field="groups")
    try:
        parts = [(np.asarray(train), np.asarray(test)) for train, test in cv.split(X, y, groups)]
    except (ValueError, TypeError) as e:
        raise InvalidInput(f"{type(cv).__name__} cannot split these data: {e}", field="cv") from None
    if not parts or any(len(train) == 0 or len(test) == 0 for train, test in parts):
        raise InvalidInput(f"{type(cv).__name__} gave an empty training or test part", field="cv")
    tested = np.concatenate([test for _, test in parts])
    disjoint = len(np.unique(tested)) == len(tested)
    method = "cv" if disjoint else "repeated-holdout"
    splits = Splits(method, {"splitter": repr(cv), "parts": len(parts)},
                    tuple(Split(train, test, 0 if disjoint else i, i if disjoint else 0)
                          for i, (train, test) in enumerate(parts)))
    return splits, method
