"""Costs in validate: each model's expected cost beside its error, cost-sensitive learning inside each training part
(weights through scikit-learn's sample_weight, or resampling), and the models in ROC space for the costs."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import assay
from assay.cli import main
from assay.errors import InvalidInput


@pytest.fixture(scope="module")
def data():
    X, y = load_breast_cancer(return_X_y=True)
    return X[:300], y[:300]


def test_weights_are_scikit_learns_sample_weight_in_each_training_part(data):
    X, y = data
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    v = assay.validate(LogisticRegression(max_iter=2000), X, y, cv=cv, costs={"fp": 1, "fn": 10},
                       cost_method="weight", bootstrap=200)
    # class 1 is the positive one: misclassifying it costs fn = 10, class 0 costs fp = 1; scaled to mean 1
    weights = np.array([1.0, 10.0]) / 5.5
    pipe = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    proba = cross_val_predict(pipe, X, y, cv=cv, method="predict_proba",
                              params={"logisticregression__sample_weight": weights[y]})[:, 1]
    model = next(iter(v.models.values()))
    assert model.report.ranking.roc_auc.value == pytest.approx(assay.roc_auc(y, proba), abs=1e-12)
    pred = (proba >= 0.5).astype(int)
    cost = ((pred == 1) & (y == 0)).sum() * 1 + ((pred == 0) & (y == 1)).sum() * 10
    assert model.report["expected_cost"].value == pytest.approx(cost / len(y), abs=1e-12)
    assert any("cost-sensitive learning" in note for note in v.notes)


def test_expected_cost_without_learning_and_the_resampling(data):
    X, y = data
    plain = assay.validate(dataset="breast-cancer", models=["naive-bayes", "logistic"], folds=3,
                           costs={"fp": 1, "fn": 5}, bootstrap=200)
    for m in plain.models.values():
        c = m.report.confusion.counts
        p = m.report.labels.index(m.report.positive)
        expected = (c[1 - p, p] * 1 + c[p, 1 - p] * 5) / c.sum()
        assert m.report["expected_cost"].value == pytest.approx(expected, abs=1e-12)
    assert plain.roc_space["optimal"]["costs"]["fn"] == 5.0
    a = assay.validate(dataset="breast-cancer", models=["knn"], folds=3, costs={"fp": 1, "fn": 5},
                       cost_method="resample", bootstrap=200)
    b = assay.validate(dataset="breast-cancer", models=["knn"], folds=3, costs={"fp": 1, "fn": 5},
                       cost_method="resample", bootstrap=200)
    assert a.to_dict() == b.to_dict()  # seeded
    with pytest.raises(InvalidInput, match="cannot weight its training instances"):
        assay.validate(dataset="breast-cancer", models=["knn"], folds=3, costs={"fp": 1, "fn": 5},
                       cost_method="weight")
    with pytest.raises(InvalidInput, match="needs costs"):
        assay.validate(dataset="breast-cancer", models=["knn"], folds=3, cost_method="weight")
    with pytest.raises(InvalidInput, match="numeric"):
        assay.validate(dataset="diabetes", models=["linear"], folds=3, costs={"fp": 1, "fn": 5})


def test_a_cost_matrix_for_three_classes():
    matrix = [[0, 1, 1], [5, 0, 1], [5, 1, 0]]
    v = assay.validate(dataset="iris", models=["decision-tree"], folds=3, cost_matrix=matrix,
                       cost_method="weight", bootstrap=200)
    m = next(iter(v.models.values()))
    c = m.report.confusion.counts
    assert m.report["expected_cost"].value == pytest.approx((c * np.array(matrix)).sum() / c.sum(), abs=1e-12)
    assert any("setosa 0.429" in note for note in v.notes)  # rows averaged off the diagonal 1, 3, 3; mean 1


def test_cli(tmp_path, capsys):
    status = main(["validate", "--dataset", "breast-cancer", "--model", "logistic", "--model", "decision-tree",
                   "--folds", "3", "--costs", "fp=1,fn=10", "--cost-method", "weight", "--bootstrap", "200",
                   "--format", "json"])
    out, err = capsys.readouterr()
    assert status == 0, err
    d = json.loads(out)
    assert "expected_cost" in d["models"]["logistic"]["metrics"] and d["roc_space"]["optimal"]["costs"]["fn"] == 10
    status = main(["validate", "--dataset", "breast-cancer", "--model", "logistic", "--model", "decision-tree",
                   "--folds", "3", "--costs", "fp=1,fn=10", "--bootstrap", "200"])
    out, err = capsys.readouterr()
    assert "Expected cost" in out and "ROC space" in out
    status = main(["validate", "--dataset", "breast-cancer", "--model", "knn", "--folds", "3", "--costs", "fp=1,fn=10",
                   "--cost-method", "weight"])
    out, err = capsys.readouterr()
    assert status == 2 and "--cost-method resample" in err and len(err.strip().splitlines()) == 1


def test_save_model_refits_on_all_the_data(tmp_path, capsys):
    import joblib
    from sklearn.datasets import load_iris
    from sklearn.tree import DecisionTreeClassifier

    out = tmp_path / "models"
    status = main(["validate", "--dataset", "iris", "--model", "decision-tree", "--folds", "3", "--bootstrap", "200",
                   "--save-model", str(out), "--format", "json"])
    _, err = capsys.readouterr()
    assert status == 0, err
    model = joblib.load(out / "decision-tree.joblib")
    meta = json.loads((out / "decision-tree.json").read_text())
    X, y = load_iris(return_X_y=True)
    assert meta["classes"] == ["setosa", "versicolor", "virginica"] and meta["estimate"]["name"] == "cv"
    # fitted on all 150 instances: a tree that fits the training data as a fresh one does
    fresh = DecisionTreeClassifier(random_state=0).fit(X, y)
    assert (model.predict(X) == fresh.predict(X)).mean() > 0.99
    v = assay.validate(dataset="iris", models=["logistic"], folds=3, refit=True, bootstrap=200)
    assert set(v.final_models) == {"logistic"} and "final_models" not in v.to_dict()
    regressors = assay.validate(dataset="diabetes", models=["linear"], folds=3, refit=True, bootstrap=200)
    from sklearn.datasets import load_diabetes

    Xd, yd = load_diabetes(return_X_y=True)
    assert regressors.final_models["linear"].predict(Xd[:3]).shape == (3,)
