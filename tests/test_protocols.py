"""Protocols that estimate a learner's error (issue 4): splits, runs, estimates.

Oracles: scikit-learn's own splitters and learners on the same seeds
(``StratifiedKFold``, ``RepeatedStratifiedKFold``, ``LeaveOneOut``,
``train_test_split``, ``cross_val_predict``), exact equality expected; the .632
and .632+ formulas (002 slides 19-21, 003 with the README erratum; Efron &
Tibshirani 1997) against hand computations, to 1e-12 unless said otherwise.
"""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pytest
from sklearn.base import BaseEstimator, TransformerMixin

from assay.errors import InvalidInput
from assay.protocols import learners as learners_module
from assay.protocols.estimates import (
    MethodEstimate,
    bootstrap632_rounds,
    bootstrap632plus_rounds,
    fold_metrics,
    method_estimate,
    no_information_error,
    spread,
)
from assay.protocols.features import (
    Features,
    encode_target,
    features_from_columns,
    features_from_dataset,
    preprocessor,
)
from assay.protocols.learners import LEARNERS, make_estimator, make_model, parse_params
from assay.protocols.run import FoldPredictions, ProtocolRun, run_protocol
from assay.protocols.splits import METHODS, Split, Splits, make_splits

# ----------------------------------------------------------------------------
# shared data


@pytest.fixture(scope="module")
def cancer():
    features, y = features_from_dataset("breast-cancer")
    labels, codes = encode_target(y)
    return features, labels, codes


@pytest.fixture(scope="module")
def iris():
    features, y = features_from_dataset("iris")
    labels, codes = encode_target(y)
    return features, labels, codes


def _messy_table(n: int = 60, seed: int = 3) -> dict[str, np.ndarray]:
    """Numbers with NaNs, text with missing values and a rare category, a bool, and columns to drop."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.4, "yes", "no")
    x1 = rng.normal(size=n) + (y == "yes")
    x1[rng.choice(n, 7, replace=False)] = np.nan
    x2 = rng.normal(size=n)
    colour = rng.choice(np.array(["red", "green", "blue"], dtype=object), size=n)
    colour[rng.choice(n, 5, replace=False)] = None
    colour[0] = "violet"  # a category that only one part can hold
    flag = rng.random(n) < 0.5
    return {
        "id": np.array([f"row{i}" for i in range(n)]),
        "x1": x1,
        "colour": colour,
        "x2": x2,
        "flag": flag,
        "constant": np.full(n, 4.0),
        "notes": np.full(n, None, dtype=object),
        "y": y,
    }


def _imbalanced_codes() -> np.ndarray:
    return np.repeat(np.arange(3), [50, 30, 17])[np.random.default_rng(5).permutation(97)]


# ----------------------------------------------------------------------------
# splits


@pytest.mark.parametrize("method", ["holdout", "repeated-holdout", "cv", "repeated-cv", "train-val-test"])
def test_stratification_keeps_class_proportions_within_one(method):
    y = _imbalanced_codes()
    share = np.bincount(y) / len(y)
    splits = make_splits(method, y, folds=5, repeats=3 if method.startswith("repeated") else None, seed=11)
    assert len(splits) > 0
    for split in splits:
        for part in (split.train, split.test, split.validation):
            if part is None:
                continue
            counts = np.bincount(y[part], minlength=3)
            assert np.all(np.abs(counts - share * len(part)) <= 1), (split.repeat, split.fold, counts)


@pytest.mark.parametrize("method,repeats", [("cv", None), ("repeated-cv", 3)])
@pytest.mark.parametrize("stratify", [True, False])
def test_cv_folds_partition_the_data(method, repeats, stratify):
    y = _imbalanced_codes()
    n = len(y)
    splits = make_splits(method, y, folds=7, repeats=repeats, seed=2, stratify=stratify)
    assert len(splits) == 7 * (repeats or 1)
    for r in range(repeats or 1):
        parts = [s for s in splits if s.repeat == r]
        assert [s.fold for s in parts] == list(range(7))
        tests = np.concatenate([s.test for s in parts])
        assert np.array_equal(np.sort(tests), np.arange(n))  # every instance in exactly one test fold
        for s in parts:
            assert np.intersect1d(s.train, s.test).size == 0
            assert np.array_equal(np.sort(np.concatenate([s.train, s.test])), np.arange(n))


def test_loo_gives_n_folds_of_one():
    y = np.array([0, 1] * 6)
    splits = make_splits("loo", y)
    assert len(splits) == 12 and splits.settings["folds"] == 12
    assert sorted(int(s.test[0]) for s in splits) == list(range(12))
    for s in splits:
        assert len(s.test) == 1 and len(s.train) == 11 and s.test[0] not in s.train


@pytest.mark.parametrize("method", ["bootstrap", "bootstrap632", "bootstrap632plus"])
def test_bootstrap_test_parts_are_the_instances_never_drawn(method):
    y = np.array([0] * 20 + [1] * 13)
    splits = make_splits(method, y, seed=4)
    assert len(splits) == 50  # default rounds
    duplicates = 0
    for s in splits:
        assert len(s.train) == len(y)  # n draws with replacement
        assert np.array_equal(s.test, np.setdiff1d(np.arange(len(y)), s.train))
        duplicates += len(s.train) - len(np.unique(s.train))
    assert duplicates > 0
    assert len(make_splits(method, y, repeats=7)) == 7


def test_resubstitution_and_train_val_test_parts():
    y = _imbalanced_codes()
    (resub,) = make_splits("resubstitution", y)
    assert np.array_equal(resub.train, np.arange(97)) and np.array_equal(resub.test, np.arange(97))
    (tvt,) = make_splits("train-val-test", y, seed=1)
    parts = [tvt.train, tvt.validation, tvt.test]
    assert np.array_equal(np.sort(np.concatenate(parts)), np.arange(97))  # disjoint and complete
    assert len(tvt.test) == 33 and len(tvt.validation) == 22 and len(tvt.train) == 42  # 1/3, then 2:1


def test_holdout_is_scikit_learns_train_test_split(cancer):
    from sklearn.model_selection import train_test_split

    _, _, y = cancer
    (split,) = make_splits("holdout", y, seed=42)
    train, test = train_test_split(np.arange(len(y)), test_size=1 / 3, stratify=y, random_state=42)
    assert np.array_equal(split.train, train) and np.array_equal(split.test, test)


@pytest.mark.parametrize("method", METHODS)
def test_same_seed_same_splits_other_seed_other_splits(method):
    y = _imbalanced_codes()
    repeats = 3 if method.startswith(("repeated", "bootstrap")) else None
    a = make_splits(method, y, folds=4, repeats=repeats, seed=7)
    b = make_splits(method, y, folds=4, repeats=repeats, seed=7)
    c = make_splits(method, y, folds=4, repeats=repeats, seed=8)

    def key(splits):
        return [(s.train.tolist(), s.test.tolist(), None if s.validation is None else s.validation.tolist())
                for s in splits]

    assert key(a) == key(b)
    if method in ("resubstitution", "loo"):
        assert key(a) == key(c)  # nothing random
    else:
        assert key(a) != key(c)


# ----------------------------------------------------------------------------
# runs against scikit-learn


def test_cv_matches_cross_val_predict(cancer):
    """Same StratifiedKFold, same learners: the same out-of-fold predictions and cv error."""
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    features, labels, y = cancer
    seed = 3
    splits = make_splits("cv", y, folds=10, seed=seed)
    run = run_protocol(features, y, labels, {"tree": "decision-tree", "nb": "naive-bayes", "knn": "knn"}, splits,
                       seed=seed)
    cv = StratifiedKFold(10, shuffle=True, random_state=seed)
    oracles = {
        "tree": DecisionTreeClassifier(random_state=seed),
        "nb": GaussianNB(),
        "knn": make_pipeline(StandardScaler(), KNeighborsClassifier()),
    }
    for name, estimator in oracles.items():
        expected = cross_val_predict(estimator, features.X, y, cv=cv)
        oof = run.out_of_fold(name)
        got = np.empty(len(y), dtype=np.intp)
        got[oof.index] = oof.y_pred
        assert np.array_equal(np.sort(oof.index), np.arange(len(y)))
        assert np.array_equal(got, expected), name
        estimate = method_estimate(run, name)
        assert estimate.error == pytest.approx(np.mean(expected != y), abs=1e-15)  # total errors / n
        assert estimate.accuracy == pytest.approx(1 - estimate.error)
    expected_proba = cross_val_predict(GaussianNB(), features.X, y, cv=cv, method="predict_proba")
    oof = run.out_of_fold("nb")
    np.testing.assert_allclose(oof.proba, expected_proba[oof.index], rtol=0, atol=1e-12)


def test_repeated_cv_matches_repeated_stratified_kfold(cancer):
    from sklearn.model_selection import RepeatedStratifiedKFold
    from sklearn.naive_bayes import GaussianNB

    features, labels, y = cancer
    splits = make_splits("repeated-cv", y, folds=5, repeats=3, seed=9)
    run = run_protocol(features, y, labels, {"nb": "naive-bayes"}, splits, seed=9)
    per_repeat = np.zeros(3)
    for i, (train, test) in enumerate(RepeatedStratifiedKFold(n_splits=5, n_repeats=3, random_state=9).split(
            features.X, y)):
        assert np.array_equal(splits[i].test, test)
        pred = GaussianNB().fit(features.X[train], y[train]).predict(features.X[test])
        per_repeat[i // 5] += np.count_nonzero(pred != y[test]) / len(y)
    estimate = method_estimate(run, "nb")
    np.testing.assert_allclose(estimate.per_round, per_repeat, atol=1e-15)
    assert estimate.error == pytest.approx(per_repeat.mean(), abs=1e-15)
    assert len(run.out_of_fold("nb")) == 3 * len(y)  # every repetition kept


def test_loo_matches_scikit_learn(iris):
    from sklearn.model_selection import LeaveOneOut, cross_val_predict
    from sklearn.naive_bayes import GaussianNB

    features, labels, y = iris
    run = run_protocol(features, y, labels, {"nb": "naive-bayes"}, make_splits("loo", y))
    expected = cross_val_predict(GaussianNB(), features.X, y, cv=LeaveOneOut())
    oof = run.out_of_fold("nb")
    assert np.array_equal(oof.index, np.arange(150)) and np.array_equal(oof.y_pred, expected)
    assert method_estimate(run, "nb").error == pytest.approx(np.mean(expected != y), abs=1e-15)
    assert method_estimate(run, "nb").per_round is None


def test_holdout_and_repeated_holdout_estimates(cancer):
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    features, labels, y = cancer
    splits = make_splits("repeated-holdout", y, repeats=3, seed=5)
    run = run_protocol(features, y, labels, {"lr": "logistic"}, splits, seed=5)
    errors = []
    for s in splits:
        model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000, random_state=5))
        pred = model.fit(features.X[s.train], y[s.train]).predict(features.X[s.test])
        errors.append(np.mean(pred != y[s.test]))
    estimate = method_estimate(run, "lr")
    np.testing.assert_allclose(estimate.per_round, errors, atol=1e-15)
    assert estimate.error == pytest.approx(np.mean(errors), abs=1e-15)  # the mean of the repetitions (003)
    holdout = run_protocol(features, y, labels, {"lr": "logistic"}, make_splits("holdout", y, seed=5), seed=5)
    assert method_estimate(holdout, "lr").error == pytest.approx(errors[0], abs=1e-15)


@pytest.mark.parametrize("method", ["bootstrap", "bootstrap632", "bootstrap632plus"])
def test_bootstrap_estimates_match_a_direct_computation(method, iris):
    """Each round refitted by hand with scikit-learn on the same draw."""
    from sklearn.tree import DecisionTreeClassifier

    features, labels, y = iris
    splits = make_splits(method, y, repeats=6, seed=2)
    run = run_protocol(features, y, labels, {"tree": "decision-tree"}, splits, seed=2,
                       params={"tree": {"max_depth": 2}})
    test_err, train_err, gammas = [], [], []
    for s in splits:
        model = DecisionTreeClassifier(max_depth=2, random_state=2).fit(features.X[s.train], y[s.train])
        everywhere = model.predict(features.X)
        test_err.append(np.mean(everywhere[s.test] != y[s.test]))
        train_err.append(np.mean(everywhere[s.train] != y[s.train]))  # on the draw, duplicates included
        p = np.bincount(y, minlength=3) / len(y)
        q = np.bincount(everywhere, minlength=3) / len(y)
        gammas.append(np.sum(p * (1 - q)))
    test_err, train_err, gammas = map(np.array, (test_err, train_err, gammas))
    part = run.folds["tree"][0]
    assert np.array_equal(part.train_pred, part.all_pred[part.train_index])
    estimate = method_estimate(run, "tree")
    if method == "bootstrap":
        expected = test_err
    elif method == "bootstrap632":
        expected = 0.632 * test_err + 0.368 * train_err
    else:
        expected = bootstrap632plus_rounds(test_err, train_err, gammas)
    np.testing.assert_allclose(estimate.per_round, expected, atol=1e-12)
    assert estimate.error == pytest.approx(np.mean(expected), abs=1e-12)


# ----------------------------------------------------------------------------
# .632 and .632+ by hand


def test_632_and_632plus_formulas_by_hand():
    err_test = [0.30, 0.20, 0.45, 0.10]
    err_train = [0.05, 0.00, 0.10, 0.15]
    gamma = [0.50, 0.50, 0.40, 0.50]
    # .632: 0.632*0.30 + 0.368*0.05 = 0.208; 0.632*0.20 = 0.1264; 0.632*0.45 + 0.368*0.10 = 0.3212;
    #       0.632*0.10 + 0.368*0.15 = 0.1184
    np.testing.assert_allclose(bootstrap632_rounds(err_test, err_train), [0.208, 0.1264, 0.3212, 0.1184],
                               atol=1e-12)
    # .632+, round 1: R = 0.25/0.45 = 5/9, w = 0.632/(1 - 0.368*5/9), value 0.05 + w*0.25
    w1 = 0.632 / (1 - 0.368 * 5 / 9)
    # round 2: R = 0.2/0.5 = 0.4, w = 0.632/0.8528, value 0.2 w
    w2 = 0.632 / (1 - 0.368 * 0.4)
    # round 3: err_test 0.45 > gamma 0.4 is capped at 0.4, so R = 0.3/0.3 = 1, w = 1: value 0.4
    # round 4: err_test 0.10 < err_train 0.15, so R = 0, w = 0.632: value 0.368*0.15 + 0.632*0.10 = 0.1184
    expected = [(1 - w1) * 0.05 + w1 * 0.30, w2 * 0.20, 0.4, 0.1184]
    np.testing.assert_allclose(bootstrap632plus_rounds(err_test, err_train, gamma), expected, atol=1e-12)
    np.testing.assert_allclose(expected[:2], [0.2486034, 0.1482176], atol=1e-6)
    # gamma at or below the training error: no overfitting correction (R = 0)
    assert bootstrap632plus_rounds([0.3], [0.4], [0.35])[0] == pytest.approx(0.368 * 0.4 + 0.632 * 0.3)
    # gamma = sum_k p_k (1 - q_k)
    assert no_information_error([0, 0, 0, 1], [0, 1, 1, 1], 2) == pytest.approx(0.75 * 0.75 + 0.25 * 0.25)


def _hand_run(method: str) -> ProtocolRun:
    """Two bootstrap rounds on six instances with predictions fixed by hand."""
    y = np.array([0, 0, 0, 1, 1, 1])

    def part(r, train, all_pred):
        train = np.array(train)
        test = np.setdiff1d(np.arange(6), train)
        all_pred = np.array(all_pred)
        return FoldPredictions("m", r, 0, test, all_pred[test], None, train, all_pred[train], None, all_pred)

    parts = [
        # round 0: train [0,0,1,3,4,4], out of bag [2,5]: err_train 0, err_test 2/2, q = (1/2, 1/2), gamma 1/2
        part(0, [0, 0, 1, 3, 4, 4], [0, 0, 1, 1, 1, 0]),
        # round 1: train [0,1,1,2,3,3], out of bag [4,5]: err_train 1/6 (only row 2, predicted 1, is wrong),
        # err_test 0, q = (2/6, 4/6), gamma 1/2
        part(1, [0, 1, 1, 2, 3, 3], [0, 0, 1, 1, 1, 1]),
    ]
    return ProtocolRun(method, {}, ("a", "b"), y, {"m": parts})


def test_632_estimates_from_a_run_by_hand():
    assert method_estimate(_hand_run("bootstrap"), "m").error == pytest.approx((1 + 0) / 2)
    # round 0: 0.632*1 + 0.368*0 = 0.632; round 1: 0.632*0 + 0.368/6
    e632 = method_estimate(_hand_run("bootstrap632"), "m")
    np.testing.assert_allclose(e632.per_round, [0.632, 0.368 / 6], atol=1e-12)
    assert e632.error == pytest.approx((0.632 + 0.368 / 6) / 2, abs=1e-12)
    # .632+: round 0 err_test 1 capped at gamma 0.5, R = 1, w = 1 -> 0.5; round 1 err_test 0 <= err_train: R = 0
    plus = method_estimate(_hand_run("bootstrap632plus"), "m")
    np.testing.assert_allclose(plus.per_round, [0.5, 0.368 / 6], atol=1e-12)
    assert plus.error == pytest.approx((0.5 + 0.368 / 6) / 2, abs=1e-12)
    assert plus.accuracy == pytest.approx(1 - plus.error)
    document = json.loads(json.dumps(plus.to_dict()))
    assert document["name"] == "bootstrap632plus" and document["spread"]["n"] == 2


# ----------------------------------------------------------------------------
# reproducibility and parallelism


def _same_run(a: ProtocolRun, b: ProtocolRun) -> bool:
    for name in a.folds:
        for p, q in zip(a.folds[name], b.folds[name], strict=True):
            if not (np.array_equal(p.y_pred, q.y_pred) and np.array_equal(p.test_index, q.test_index)):
                return False
            if (p.proba is None) != (q.proba is None) or (p.proba is not None and not np.array_equal(p.proba, q.proba)):
                return False
            if (p.all_pred is None) != (q.all_pred is None) or (
                    p.all_pred is not None and not np.array_equal(p.all_pred, q.all_pred)):
                return False
    return True


def test_same_seed_same_predictions_other_seed_other_predictions(cancer):
    features, labels, y = cancer
    models = {"forest": "random-forest"}
    params = {"forest": {"n_estimators": 15}}

    def run(seed):
        return run_protocol(features, y, labels, models, make_splits("cv", y, folds=3, seed=seed), seed=seed,
                            params=params)

    a, b, c = run(1), run(1), run(2)
    assert _same_run(a, b)
    assert not _same_run(a, c)


def test_parallel_jobs_give_identical_results(cancer):
    features, labels, y = cancer
    models = {"tree": "decision-tree", "forest": "random-forest", "nb": "naive-bayes", "bag": "bagging"}
    params = {"forest": {"n_estimators": 20}}
    splits = make_splits("bootstrap632plus", y, repeats=4, seed=6)
    calls: list[tuple[int, int]] = []
    one = run_protocol(features, y, labels, models, splits, seed=6, params=params, jobs=1)
    two = run_protocol(features, y, labels, models, splits, seed=6, params=params, jobs=2,
                       progress=lambda done, total: calls.append((done, total)))
    assert _same_run(one, two)
    assert calls == [(i, 16) for i in range(1, 17)]
    for name in models:
        assert method_estimate(one, name).error == method_estimate(two, name).error


# ----------------------------------------------------------------------------
# leakage


class _RowSpy(BaseEstimator, TransformerMixin):
    """Records the marker column (the row number) of every row it is fitted on."""

    seen: list[np.ndarray] = []

    def __init__(self, column: int = 0):
        self.column = column

    def fit(self, X, y=None):
        _RowSpy.seen.append(np.asarray(X[:, self.column], dtype=np.float64).astype(np.intp))
        return self

    def transform(self, X):
        return X


@pytest.mark.parametrize("method", METHODS)
def test_no_preprocessing_step_ever_fits_on_a_test_row(method, monkeypatch):
    """A marker column holds each row's number; a spy before the preprocessing records the rows of every fit."""
    from sklearn.pipeline import Pipeline

    table = _messy_table(45)
    table["marker"] = np.arange(45) + 0.25  # numeric, all distinct, not whole: kept as a feature (row + 0.25)
    features, y_text = features_from_columns(table, target="y")
    labels, y = encode_target(y_text)
    column = features.names.index("marker")
    real = learners_module.preprocessor

    def spied(features, *, scale):
        return Pipeline([("spy", _RowSpy(column)), ("pre", real(features, scale=scale))])

    monkeypatch.setattr(learners_module, "preprocessor", spied)
    splits = make_splits(method, y, folds=3, repeats=2 if method.startswith(("repeated", "bootstrap")) else None,
                         seed=1)
    _RowSpy.seen = []
    run_protocol(features, y, labels, {"tree": "decision-tree"}, splits, seed=1)
    seen = _RowSpy.seen
    if method == "train-val-test":
        (split,) = splits
        n_grid = len(LEARNERS["decision-tree"].grid["max_depth"]) * len(LEARNERS["decision-tree"].grid[
            "min_samples_leaf"])
        assert len(seen) == n_grid + 1
        for rows in seen[:-1]:  # tuning sees the training part only
            assert np.array_equal(np.sort(rows), np.sort(split.train))
        assert np.array_equal(np.sort(seen[-1]), np.sort(np.concatenate([split.train, split.validation])))
        for rows in seen:
            assert np.intersect1d(rows, split.test).size == 0
        return
    assert len(seen) == len(splits)
    for rows, split in zip(seen, splits, strict=True):
        assert np.array_equal(np.sort(rows), np.sort(split.train))  # duplicates of a bootstrap draw included
        if method != "resubstitution":  # resubstitution tests on its training data by definition
            assert np.intersect1d(rows, split.test).size == 0


def test_imputation_and_encoding_learn_from_the_training_part_only():
    table = _messy_table(40)
    features, _ = features_from_columns(table, target="y")
    train = np.arange(20)
    model = make_model("logistic", features=features, seed=0)
    from sklearn.preprocessing import LabelEncoder

    y = LabelEncoder().fit_transform(table["y"])
    model.fit(features.X[train], y[train])
    columns = model.named_steps["features"]
    numeric = columns.named_transformers_["numeric"]
    x1 = np.asarray(features.X[train, features.names.index("x1")], dtype=np.float64)
    assert numeric.named_steps["impute"].statistics_[features.numeric.index("x1")] == np.nanmedian(x1)
    categories = columns.named_transformers_["categorical"].named_steps["encode"].categories_
    colour_train = {v for v in features.X[train, features.names.index("colour")] if isinstance(v, str)}
    assert set(categories[features.categorical.index("colour")]) == colour_train
    # 'violet' (row 0) is in training here; a model trained without row 0 never heard of it
    model.fit(features.X[20:], y[20:])
    encoder = model.named_steps["features"].named_transformers_["categorical"].named_steps["encode"]
    assert "violet" not in set(encoder.categories_[features.categorical.index("colour")])
    assert model.predict(features.X[:1]).shape == (1,)  # unknown category at prediction: ignored, no error


# ----------------------------------------------------------------------------
# features


def test_features_from_a_messy_table_describe_what_was_done():
    table = _messy_table(60)
    features, y = features_from_columns(table, target="y")
    assert features.names == ("x1", "colour", "x2", "flag")
    assert features.numeric == ("x1", "x2") and features.categorical == ("colour", "flag")
    assert dict(features.dropped) == {"id": "every value distinct: an identifier",
                                      "constant": "constant: every value is 4", "notes": "all missing"}
    assert features.missing == {"x1": 7, "colour": 5}
    assert features.categories == {"colour": 4, "flag": 2}
    assert features.X.dtype == object and features.X.shape == (60, 4)
    assert set(y) == {"yes", "no"}
    lines = features.describe()
    assert "encoded one-hot: colour (4 categories), flag (2)" in lines
    assert "imputed inside each training part: x1 (median, 7 missing), colour (most frequent, 5 missing)" in lines
    assert "dropped: id (every value distinct: an identifier)" in lines
    assert "dropped: notes (all missing)" in lines
    # the same table as pyarrow arrays (nulls for missing) gives the same features
    arrow = {name: pa.array(values.tolist() if values.dtype == object else values, from_pandas=True)
             for name, values in table.items()}
    from_arrow, y2 = features_from_columns(arrow, target="y")
    assert from_arrow.names == features.names and from_arrow.missing == features.missing
    assert from_arrow.dropped == features.dropped and list(y2) == list(y)
    np.testing.assert_array_equal(np.asarray(from_arrow.X[:, 0], float), np.asarray(features.X[:, 0], float))


def test_text_that_reads_as_numbers_is_numeric_and_all_numeric_is_float():
    features, _ = features_from_columns({"a": pa.array(["1.5", None, "3", "4"]), "b": np.array([1, 2, 3, 5]),
                                         "y": np.array([0, 1, 0, 1])}, target="y")
    assert features.numeric == ("a", "b") and features.X.dtype == np.float64
    assert np.isnan(features.X[1, 0]) and features.missing == {"a": 1}


@pytest.mark.parametrize("learner", list(LEARNERS))
def test_every_learner_runs_on_missing_values_and_categories(learner):
    table = _messy_table(60)
    features, y_text = features_from_columns(table, target="y")
    labels, y = encode_target(y_text)
    run = run_protocol(features, y, labels, {learner: learner}, make_splits("cv", y, folds=3, seed=0), seed=0)
    oof = run.out_of_fold(learner)
    assert np.array_equal(np.sort(oof.index), np.arange(60))
    assert set(oof.y_pred.tolist()) <= {0, 1}
    assert oof.proba is not None and oof.proba.shape == (60, 2)
    np.testing.assert_allclose(oof.proba.sum(axis=1), 1.0, atol=1e-9)
    assert 0 <= method_estimate(run, learner).error <= 1
    assert run.features_notes == features.describe()


def test_bad_tables():
    with pytest.raises(InvalidInput, match="'label' is not a column") as err:
        features_from_columns({"x": [1, 2]}, target="label")
    assert err.value.field == "target"
    with pytest.raises(InvalidInput) as err:
        features_from_columns({"x": [1.0, 2.0, 3.0], "y": ["a", None, "b"]}, target="y")
    assert err.value.field == "y" and err.value.row == 1
    with pytest.raises(InvalidInput, match="no feature column is left: id .*identifier.*; c .*constant"):
        features_from_columns({"id": ["a", "b", "c"], "c": [1, 1, 1], "y": ["p", "q", "p"]}, target="y")
    with pytest.raises(InvalidInput, match="single class"):
        features_from_columns({"x": [1.0, 2.0], "y": ["a", "a"]}, target="y")
    with pytest.raises(InvalidInput, match="has 2 values") as err:
        features_from_columns({"x": [1.0, 2.0], "y": ["a", "b", "a"]}, target="y")
    assert err.value.field == "x"


def test_preprocessor_is_a_column_transformer():
    from sklearn.compose import ColumnTransformer

    features, _ = features_from_columns(_messy_table(30), target="y")
    pre = preprocessor(features, scale=True)
    assert isinstance(pre, ColumnTransformer)
    out = pre.fit_transform(features.X)
    assert out.shape[0] == 30 and np.isfinite(out).all()
    assert isinstance(features, Features)


# ----------------------------------------------------------------------------
# learners and parameters


def test_parse_params_good_and_bad():
    assert parse_params(["max_depth=3", "criterion=entropy", " class_weight = None", "ccp_alpha=0.01",
                         "hidden=(5, 2)", "name=a=b"]) == {
        "max_depth": 3, "criterion": "entropy", "class_weight": None, "ccp_alpha": 0.01, "hidden": (5, 2),
        "name": "a=b"}
    for bad in (["max_depth"], ["=3"], ["1x=3"], ["a=1", "a=2"]):
        with pytest.raises(InvalidInput) as err:
            parse_params(bad)
        assert err.value.field == "param"


def test_learner_parameters_are_checked():
    features, _ = features_from_columns({"x": np.arange(6.0), "y": np.array([0, 1] * 3)}, target="y")
    model = make_model("bagging", features=features, seed=4, params=parse_params(["estimator__max_depth=2"]))
    assert model.get_params()["model__estimator__max_depth"] == 2 and model.get_params()["model__random_state"] == 4
    with pytest.raises(InvalidInput, match="'max_dept' is not a parameter of decision-tree") as err:
        make_model("decision-tree", features=features, seed=0, params={"max_dept": 3})
    assert err.value.field == "param"
    for name, spec in LEARNERS.items():
        estimator = spec.make(7, {})
        if "random_state" in estimator.get_params() and name != "zero-r":
            assert estimator.get_params()["random_state"] == 7, name
        for key in spec.grid:
            assert key in estimator.get_params(), (name, key)
    scaled = {name for name, spec in LEARNERS.items() if spec.scaled}
    assert scaled == {"knn", "logistic", "svm"}


def test_import_path_learners(iris):
    features, labels, y = iris
    run = run_protocol(features, y, labels, {"extra": "sklearn.tree.ExtraTreeClassifier"},
                       make_splits("cv", y, folds=3, seed=0), seed=0, params={"extra": {"max_depth": 3}})
    assert method_estimate(run, "extra").error < 0.5
    estimator, scaled = make_estimator("sklearn.tree.ExtraTreeClassifier", seed=5)
    assert estimator.random_state == 5 and scaled
    bad = {
        "sklearn.linear_model.LinearRegression": "not a classifier",
        "nosuchpackage.module.Classifier": "cannot import module 'nosuchpackage.module'",
        "sklearn.tree.NoSuchTree": "has no 'NoSuchTree'",
        "sklearn.tree": "not a class",
        "collections.OrderedDict": "no fit",
        "gradient-boosting": "not a known learner",
        "sklearn.neighbors.KNeighborsClassifier.extra": "cannot import|has no",
    }
    for path, message in bad.items():
        with pytest.raises(InvalidInput, match=message) as err:
            make_model(path, features=features, seed=0)
        assert err.value.field == "model", path
    with pytest.raises(InvalidInput) as err:
        run_protocol(features, y, labels, {"m": "sklearn.tree.ExtraTreeClassifier"},
                     make_splits("cv", y, folds=3), params={"m": {"depth": 2}})
    assert err.value.field == "param" and "'depth'" in str(err.value)


# ----------------------------------------------------------------------------
# train-val-test


def test_train_val_test_tunes_on_validation_and_tests_once(cancer):
    from sklearn.tree import DecisionTreeClassifier

    features, labels, y = cancer
    splits = make_splits("train-val-test", y, seed=8)
    run = run_protocol(features, y, labels, {"tree": "decision-tree"}, splits, seed=8,
                       grids={"tree": {"max_depth": [1, 2, 3, None]}})
    (split,) = splits
    (part,) = run.folds["tree"]
    accuracies = []
    for depth in (1, 2, 3, None):
        model = DecisionTreeClassifier(max_depth=depth, random_state=8).fit(features.X[split.train], y[split.train])
        accuracies.append(np.mean(model.predict(features.X[split.validation]) == y[split.validation]))
    assert [g["validation_accuracy"] for g in part.tuned["grid"]] == pytest.approx(accuracies, abs=1e-15)
    best = (1, 2, 3, None)[int(np.argmax(accuracies))]
    assert part.tuned["chosen"] == {"max_depth": best}
    both = np.concatenate([split.train, split.validation])
    final = DecisionTreeClassifier(max_depth=best, random_state=8).fit(features.X[both], y[both])
    assert np.array_equal(part.y_pred, final.predict(features.X[split.test]))
    estimate = method_estimate(run, "tree")
    assert estimate.error == pytest.approx(np.mean(part.y_pred != y[split.test]), abs=1e-15)
    assert any("chosen on validation" in note for note in estimate.notes)
    assert fold_metrics(run, "tree")[0]["chosen"] == {"max_depth": best}


def test_user_parameters_are_not_tuned(iris):
    features, labels, y = iris
    run = run_protocol(features, y, labels, {"tree": "decision-tree", "zero": "zero-r"},
                       make_splits("train-val-test", y, seed=0), params={"tree": {"max_depth": 2}})
    tuned = run.folds["tree"][0].tuned
    assert run.settings["grids"]["tree"] == {"min_samples_leaf": [1, 5]}
    assert [g["params"] for g in tuned["grid"]] == [{"min_samples_leaf": 1}, {"min_samples_leaf": 5}]
    assert tuned["chosen"]["max_depth"] == 2
    assert run.folds["zero"][0].tuned == {"grid": [], "chosen": {}, "validation_accuracy": None}


# ----------------------------------------------------------------------------
# results


def test_probabilities_cover_every_label_even_when_a_training_part_lacks_a_class(iris):
    features, labels, y = iris
    no_virginica = np.flatnonzero(y != 2)
    train = no_virginica[::2]
    test = np.setdiff1d(np.arange(150), train)
    run = run_protocol(features, y, labels, {"nb": "naive-bayes"},
                       [Split(train=train, test=test, repeat=0, fold=0)], method="holdout")
    (part,) = run.folds["nb"]
    assert part.proba.shape == (len(test), 3)
    assert np.all(part.proba[:, 2] == 0) and np.allclose(part.proba.sum(axis=1), 1)
    assert set(part.y_pred.tolist()) <= {0, 1}
    assert method_estimate(run, "nb").error >= 50 / len(test)  # every virginica is wrong


def test_out_of_fold_export_and_fold_metrics(iris, cancer):
    from sklearn.metrics import roc_auc_score

    features, labels, y = iris
    splits = make_splits("repeated-cv", y, folds=3, repeats=2, seed=0)
    run = run_protocol(features, y, labels, {"nb": "naive-bayes"}, splits)
    index, fold, repeat, y_true, y_pred, proba = run.out_of_fold("nb")
    assert len(index) == 300 and np.array_equal(np.bincount(index), np.full(150, 2))
    assert np.array_equal(y_true, y[index]) and set(repeat.tolist()) == {0, 1} and set(fold.tolist()) == {0, 1, 2}
    header, rows = run.export_rows("nb")
    assert header == ["id", "repeat", "fold", "truth", "predicted", "setosa", "versicolor", "virginica"]
    assert len(rows) == 300 and rows[0][3] in labels and sum(rows[0][5:]) == pytest.approx(1.0)
    header, rows = run.export_rows("nb", ids=[f"flower{i + 1}" for i in range(150)])
    assert rows[0][0] == f"flower{index[0] + 1}"
    with pytest.raises(InvalidInput):
        run.out_of_fold("nope")

    features, labels, y = cancer
    run = run_protocol(features, y, labels, {"nb": "naive-bayes", "zero": "zero-r"}, make_splits("cv", y, folds=4))
    rows = fold_metrics(run, "nb")
    assert len(rows) == 4 and sum(r["n_test"] for r in rows) == len(y)
    for row, part in zip(rows, run.folds["nb"], strict=True):
        truth = y[part.test_index]
        assert row["roc_auc"] == pytest.approx(roc_auc_score(truth, part.proba[:, 1]), abs=1e-12)
        assert row["accuracy"] + row["error_rate"] == pytest.approx(1.0)
    zero = method_estimate(run, "zero")
    assert zero.error == pytest.approx(np.mean(y != np.argmax(np.bincount(y))), abs=1e-15)  # the majority class
    resub = run_protocol(features, y, labels, {"nb": "naive-bayes"}, make_splits("resubstitution", y))
    estimate = method_estimate(resub, "nb")
    assert estimate.notes[0].startswith("optimistic") and estimate.per_round is None
    assert isinstance(estimate, MethodEstimate) and json.dumps(estimate.to_dict())


def test_spread():
    s = spread([0.1, 0.2, np.nan, 0.6])
    assert s["n"] == 3 and s["mean"] == pytest.approx(0.3) and s["min"] == 0.1 and s["max"] == 0.6
    assert s["sd"] == pytest.approx(np.std([0.1, 0.2, 0.6], ddof=1))
    assert spread([0.5])["sd"] is None


# ----------------------------------------------------------------------------
# bad settings


@pytest.mark.parametrize("kwargs,field,message", [
    ({"method": "kfold"}, "method", "'kfold' is not one of"),
    ({"method": "cv", "folds": 1}, "folds", "at least 2"),
    ({"method": "cv", "folds": 18}, "folds", "class 'c' has 17"),
    ({"method": "repeated-cv", "folds": 18}, "folds", "class 'c' has 17"),
    ({"method": "cv", "folds": 98, "stratify": False}, "folds", "98 folds for 97"),
    ({"method": "holdout", "test_size": 0}, "test_size", "between 0 and 1"),
    ({"method": "holdout", "test_size": 1.5}, "test_size", "between 0 and 1"),
    ({"method": "train-val-test", "test_size": 1.0}, "test_size", "between 0 and 1"),
    ({"method": "holdout", "test_size": 0.01}, "test_size", "one per class"),
    ({"method": "bootstrap", "repeats": 0}, "repeats", "at least 1"),
    ({"method": "cv", "repeats": 3}, "repeats", "does not repeat"),
    ({"method": "cv", "seed": -1}, "seed", "at least 0"),
    ({"method": "cv", "folds": 2.5}, "folds", "whole number"),
])
def test_bad_settings_name_the_option(kwargs, field, message):
    kwargs = dict(kwargs)
    method = kwargs.pop("method")
    with pytest.raises(InvalidInput, match=message) as err:
        make_splits(method, _imbalanced_codes(), labels=("a", "b", "c"), **kwargs)
    assert err.value.field == field


def test_bad_run_settings(iris):
    features, labels, y = iris
    splits = make_splits("cv", y, folds=3)
    with pytest.raises(InvalidInput) as err:
        run_protocol(features, y, labels, {"nb": "naive-bayes"}, splits, jobs=0)
    assert err.value.field == "jobs"
    with pytest.raises(InvalidInput) as err:
        run_protocol(features, y[:10], labels, {"nb": "naive-bayes"}, splits)
    assert err.value.field == "y_codes"
    with pytest.raises(InvalidInput) as err:
        run_protocol(features, y, labels, {"nb": "nearest-centroid"}, splits)
    assert err.value.field == "model"
    with pytest.raises(InvalidInput) as err:
        run_protocol(features, y, labels, {"nb": "naive-bayes"}, list(splits))  # a plain list needs method=
    assert err.value.field == "method"
    plain = run_protocol(features, y, labels, {"nb": "naive-bayes"}, list(splits), method="cv")
    assert plain.method == "cv" and isinstance(splits, Splits) and isinstance(splits[0], Split)
    with pytest.raises(InvalidInput, match="single class|one class|two classes") as err:
        make_splits("holdout", np.zeros(10, dtype=int))
    with pytest.raises(InvalidInput, match="class 'b' has 1 instance") as err:
        make_splits("holdout", np.array([0] * 9 + [1]), labels=("a", "b"))
    assert err.value.field == "stratify"


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_model_that_cannot_fit_a_part_is_a_clear_error(jobs):
    """A bootstrap draw of 7 'a' and 1 'b' often holds one class: logistic regression cannot fit it."""
    features, y_text = features_from_columns({"x": np.arange(8.0), "y": np.array(["a"] * 7 + ["b"])}, target="y")
    labels, y = encode_target(y_text)
    with pytest.raises(InvalidInput, match=r"'lr' failed to fit on repeat \d+ fold 0 \(8 training rows, 1 class\)") \
            as err:
        run_protocol(features, y, labels, {"lr": "logistic"}, make_splits("bootstrap", y, repeats=5), jobs=jobs)
    assert err.value.field == "model"
