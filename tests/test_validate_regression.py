"""Validating regressors: ``validate(..., task="regression")`` and ``assay validate --task regression``, and the
pictures of numeric predictions (HTML charts, matplotlib plots).

Oracles: scikit-learn's ``cross_val_score(scoring="neg_mean_squared_error")`` and ``cross_val_predict`` on the
same ``KFold`` splits; SciPy's ``ttest_rel`` on the per-fold MSEs; Nadeau & Bengio's corrected t written out.
"""

import json
import math
import os

import numpy as np
import pytest
from scipy import stats
from sklearn.datasets import load_diabetes
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import (
    KFold,
    StratifiedKFold,
    cross_val_predict,
    cross_val_score,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

import assay
from assay.cli import main
from assay.errors import InvalidInput
from assay.evaluation.regression import evaluate_regression
from assay.inference.multiple import holm


@pytest.fixture(scope="module")
def small():
    X, y = load_diabetes(return_X_y=True)
    return X[:150], y[:150] + 0.5  # non-integer targets: regression is detected


def _fold_mse(v, model):
    return np.array([row["mse"] for row in v.models[model].folds])


def test_kfold_mse_per_fold_equals_cross_val_score(small):
    X, y = small
    cv = KFold(5, shuffle=True, random_state=3)
    # the named decision-tree: DecisionTreeRegressor(random_state=seed) on the raw features
    v = assay.validate(X, y, models=["decision-tree"], cv=cv, bootstrap=200)
    oracle = -cross_val_score(DecisionTreeRegressor(random_state=0), X, y, cv=cv, scoring="neg_mean_squared_error")
    np.testing.assert_allclose(_fold_mse(v, "decision-tree"), oracle, rtol=0, atol=1e-10)
    # an estimator object is standardised first, as make_pipeline(StandardScaler(), ...) does (a tree casts its
    # inputs to float32, so standardising can change its splits)
    v = assay.validate(DecisionTreeRegressor(random_state=0), X, y, cv=cv, bootstrap=200)
    oracle = -cross_val_score(make_pipeline(StandardScaler(), DecisionTreeRegressor(random_state=0)), X, y, cv=cv,
                              scoring="neg_mean_squared_error")
    np.testing.assert_allclose(_fold_mse(v, "DecisionTreeRegressor"), oracle, rtol=0, atol=1e-10)
    v = assay.validate(LinearRegression(), X, y, cv=cv, bootstrap=200)
    oracle = -cross_val_score(make_pipeline(StandardScaler(), LinearRegression()), X, y, cv=cv,
                              scoring="neg_mean_squared_error")
    np.testing.assert_allclose(_fold_mse(v, "LinearRegression"), oracle, rtol=1e-10, atol=0)
    # k-fold: the estimate is the pooled MSE, total squared error / n
    est = v.models["LinearRegression"].estimate
    sizes = np.array([len(test) for _, test in cv.split(X)])
    assert est.mse == pytest.approx(float(np.sum(oracle * sizes) / len(y)), rel=1e-12)
    assert est.per_round == pytest.approx(oracle, rel=1e-10)


def test_pooled_out_of_fold_metrics_equal_evaluate_regression_on_cross_val_predict(small):
    X, y = small
    cv = KFold(4, shuffle=True, random_state=0)
    v = assay.validate(X, y, models=["decision-tree"], cv=cv, bootstrap=300, seed=5)
    oof = cross_val_predict(DecisionTreeRegressor(random_state=5), X, y, cv=cv)  # learners get random_state=seed
    expected = evaluate_regression(y, oof, bootstrap=300, seed=5)
    got = v.models["decision-tree"].report
    for name, e in expected.metrics.items():
        g = got.metrics[name]
        if e.value is None:
            assert g.value is None
            continue
        assert g.value == pytest.approx(e.value, rel=1e-10, abs=1e-12)
        assert g.ci.low == pytest.approx(e.ci.low, rel=1e-10, abs=1e-12)
        assert g.ci.high == pytest.approx(e.ci.high, rel=1e-10, abs=1e-12)
    np.testing.assert_allclose(got.y_pred, oof, atol=1e-12)


def test_auto_detection_is_said(small, tmp_path, capsys):
    X, y = small
    v = assay.validate(X, y, models=["linear"], cv=3, bootstrap=200)
    assert isinstance(v, assay.evaluation.regression_validation.RegressionValidation)
    assert any("non-integer numbers" in note for note in v.notes)
    path = tmp_path / "data.csv"
    rows = ["x1,x2,target"] + [f"{a:.6f},{b:.6f},{t}" for a, b, t in zip(X[:60, 2], X[:60, 3], y[:60], strict=True)]
    path.write_text("\n".join(rows) + "\n")
    status = main(["validate", str(path), "--target", "target", "--model", "linear", "--folds", "3",
                   "--bootstrap", "200"])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "numeric target: the target holds non-integer numbers" in out
    assert "Mean squared error" in out


def test_stratification_is_refused(small, capsys):
    X, y = small
    with pytest.raises(InvalidInput, match="cannot stratify a numeric target"):
        assay.validate(X, y, models=["linear"], stratify=True, folds=3)
    with pytest.raises(InvalidInput, match="StratifiedKFold cannot split a numeric target"):
        assay.validate(X, y, models=["linear"], cv=StratifiedKFold(3))
    status = main(["validate", "--dataset", "diabetes", "--model", "linear", "--stratify", "--folds", "3"])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "--stratify" in err and "numeric target" in err


def test_two_regressors_paired_t_and_corrected_t(small):
    X, y = small
    cv = KFold(5, shuffle=True, random_state=1)
    v = assay.validate(X, y, models=["linear", "decision-tree"], cv=cv, bootstrap=200)
    a, b = _fold_mse(v, "linear"), _fold_mse(v, "decision-tree")
    tests = {c["test"]: c for c in v.comparisons}
    assert set(tests) == {"paired_t", "corrected_resampled_t"}
    oracle = stats.ttest_rel(a, b)
    assert tests["paired_t"]["statistic"] == pytest.approx(oracle.statistic, abs=1e-10)
    assert tests["paired_t"]["pvalue"] == pytest.approx(oracle.pvalue, abs=1e-10)
    d = a - b
    n_test = len(y) / 5
    t = d.mean() / math.sqrt((1 / 5 + n_test / (len(y) - n_test)) * d.var(ddof=1))  # Nadeau & Bengio
    assert tests["corrected_resampled_t"]["statistic"] == pytest.approx(t, rel=1e-10)
    assert tests["corrected_resampled_t"]["pvalue"] == pytest.approx(2 * stats.t.sf(abs(t), 4), abs=1e-10)
    assert "pvalue_holm" not in tests["paired_t"]  # two models: one comparison, nothing to adjust
    # swapping the models flips the sign
    w = assay.validate(X, y, models=["decision-tree", "linear"], cv=cv, bootstrap=200)
    assert w.comparisons[0]["statistic"] == pytest.approx(-tests["paired_t"]["statistic"], rel=1e-12)


def test_three_regressors_holm(small):
    X, y = small
    v = assay.validate(X, y, models=["linear", "ridge", "knn"], cv=KFold(4, shuffle=True, random_state=0),
                       bootstrap=200)
    for kind in ("paired_t", "corrected_resampled_t"):
        family = [c for c in v.comparisons if c["test"] == kind]
        assert len(family) == 3
        expected = holm([c["pvalue"] for c in family])
        assert [c["pvalue_holm"] for c in family] == pytest.approx(expected.tolist(), abs=1e-12)
        assert all(c["significant"] == (c["pvalue_holm"] < 0.05) for c in family)


@pytest.mark.parametrize("method", ["holdout", "repeated-holdout", "repeated-cv", "loo", "bootstrap"])
def test_other_protocols(small, method):
    X, y = small
    X, y = X[:40], y[:40]
    repeats = 3 if method in ("repeated-holdout", "repeated-cv", "bootstrap") else None
    v = assay.validate(X, y, models=["linear", "decision-tree"], method=method, folds=3, repeats=repeats,
                       bootstrap=200)
    for m in v.models.values():
        assert m.report.n == 40 or method in ("holdout", "repeated-holdout", "bootstrap")
        assert m.estimate.mse >= 0 and math.isfinite(m.estimate.mse)
    assert {c["test"] for c in v.comparisons} >= {"paired_t"}
    json.dumps(v.to_dict())


def test_refusals(small):
    X, y = small
    for method in ("bootstrap632", "bootstrap632plus", "train-val-test"):
        with pytest.raises(InvalidInput) as e:
            assay.validate(X, y, models=["linear"], method=method)
        assert e.value.field == "method"
    with pytest.raises(InvalidInput, match="not a known regressor"):
        assay.validate(X, y, models=["naive-bayes"], cv=3)
    with pytest.raises(InvalidInput, match="is not a regressor"):
        assay.validate(DecisionTreeClassifier(), X, y, cv=3)
    with pytest.raises(InvalidInput, match="numeric target"):
        assay.validate(dataset="diabetes", task="classification")


def test_named_regressors_and_import_paths():
    from assay.protocols.learners import REGRESSORS, make_estimator

    expected = {"linear": "LinearRegression", "ridge": "Ridge", "decision-tree": "DecisionTreeRegressor",
                "random-forest": "RandomForestRegressor", "knn": "KNeighborsRegressor",
                "bagging": "BaggingRegressor", "adaboost": "AdaBoostRegressor", "zero-r": "DummyRegressor"}
    assert set(expected) <= set(REGRESSORS)
    for name, cls in expected.items():
        assert type(make_estimator(name, task="regression")[0]).__name__ == cls
    assert type(make_estimator("sklearn.tree.ExtraTreeRegressor", task="regression")[0]).__name__ == \
        "ExtraTreeRegressor"
    with pytest.raises(InvalidInput, match="is not a regressor"):
        make_estimator("sklearn.tree.ExtraTreeClassifier", task="regression")
    X, y = load_diabetes(return_X_y=True)
    v = assay.validate(RandomForestRegressor(n_estimators=5, random_state=0), X[:60], y[:60],
                       cv=KFold(3, shuffle=True, random_state=0), task="regression", bootstrap=200)
    assert list(v.models) == ["RandomForestRegressor"]


def test_cli_diabetes_json(capsys):
    status = main(["validate", "--dataset", "diabetes", "--task", "regression", "--models", "linear,ridge",
                   "--method", "cv", "--folds", "5", "--bootstrap", "200", "--format", "json"])
    out, err = capsys.readouterr()
    assert status == 0, err
    data = json.loads(out)
    assert data["task"] == "regression" and data["dataset"] == "diabetes" and data["n"] == 442
    assert set(data["models"]) == {"linear", "ridge"}
    model = data["models"]["linear"]
    assert {"metrics", "folds", "fold_summary", "estimate", "model"} <= set(model)
    assert {"mse", "rmse", "mae", "r2", "correlation"} <= set(model["metrics"])
    assert len(model["folds"]) == 5 and model["estimate"]["name"] == "cv"
    assert model["fold_summary"]["mse"]["ci"][0] < model["fold_summary"]["mse"]["mean"]
    assert {c["test"] for c in data["comparisons"]} == {"paired_t", "corrected_resampled_t"}
    assert "seed 00" not in out


def test_cli_markdown_and_predictions(tmp_path, capsys):
    status = main(["validate", "--dataset", "diabetes", "--models", "linear", "--method", "holdout",
                   "--bootstrap", "200", "--format", "markdown", "--predictions", str(tmp_path / "oof")])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "numeric target" in out and "Mean squared error" in out
    lines = (tmp_path / "oof" / "linear.csv").read_text().splitlines()
    assert lines[0] == "id,repeat,fold,truth,predicted" and len(lines) == 1 + 148


def test_validate_html_and_plots(tmp_path, capsys):
    html, plots = tmp_path / "v.html", tmp_path / "plots"
    status = main(["validate", "--dataset", "diabetes", "--models", "linear,knn", "--folds", "3", "--bootstrap",
                   "200", "--html", str(html), "--plots", str(plots)])
    _out, err = capsys.readouterr()
    assert status == 0, err
    page = html.read_text()
    for chart in ("predicted-actual-0", "residuals-0", "predicted-actual-1", "residuals-1"):
        assert f'id="{chart}"' in page
    assert "Predicted against actual" in page and "Residuals against predicted" in page
    written = sorted(os.listdir(plots))
    for stem in ("predicted-actual-linear", "residuals-linear", "predicted-actual-knn", "residuals-knn", "folds"):
        assert f"{stem}.svg" in written and f"{stem}.png" in written


def test_report_regression_html_and_plots(tmp_path, capsys):
    path = tmp_path / "pred.csv"
    path.write_text("a,p\n1.5,1.7\n2.25,2.1\n3.5,2.9\n4.1,4.4\n5.3,5.0\n6.8,7.1\n")
    html, plots = tmp_path / "r.html", tmp_path / "plots"
    status = main(["report", str(path), "--truth", "a", "--pred", "p", "--task", "regression", "--bootstrap", "200",
                   "--html", str(html), "--plots", str(plots)])
    _out, err = capsys.readouterr()
    assert status == 0, err
    page = html.read_text()
    assert 'id="predicted-actual-0"' in page and 'id="residuals-0"' in page
    assert sorted(os.listdir(plots)) == ["predicted-actual.png", "predicted-actual.svg", "residuals.png",
                                         "residuals.svg"]


def test_plot_functions_draw_on_given_axes():
    from matplotlib.figure import Figure

    from assay.report.regression_plots import plot_predicted_actual, plot_residuals

    r = evaluate_regression([1.0, 2.0, 3.5, 4.0], [1.5, 1.5, 3.0, 4.5], bootstrap=200)
    fig = Figure()
    ax1, ax2 = fig.subplots(1, 2)
    assert plot_predicted_actual(r, ax1) is ax1
    assert plot_residuals(r, ax2) is ax2
    xs, ys = ax2.collections[0].get_offsets().T
    np.testing.assert_allclose(xs, [1.5, 1.5, 3.0, 4.5])
    np.testing.assert_allclose(ys, [0.5, -0.5, -0.5, 0.5])
    line = ax1.get_lines()[0]
    np.testing.assert_allclose(line.get_xdata(), line.get_ydata())  # the identity line p = a
