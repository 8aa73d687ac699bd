"""assay on real prediction data that other tools document (copies in tests/data, see its README).

Oracles: the values yardstick publishes for its example data (README, 3 decimals),
and scikit-learn on the same columns (1e-9).
"""

from pathlib import Path

import numpy as np
import pytest
from sklearn import metrics as skm

import assay
from assay.io.tables import read_columns

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def two_class():
    return read_columns(str(DATA / "two_class_example.csv"), text_columns=["truth", "predicted"],
                        number_columns=["Class1", "Class2"]).columns


@pytest.fixture(scope="module")
def hpc():
    return read_columns(str(DATA / "hpc_cv.csv"), text_columns=["obs", "pred"],
                        number_columns=["VF", "F", "M", "L"]).columns


def test_yardstick_two_class_example_published_values(two_class):
    r = assay.evaluate(two_class["truth"], y_pred=two_class["predicted"], positive="Class1")
    assert round(r["accuracy"].value, 3) == 0.838
    assert round(r["kappa"].value, 3) == 0.675


def test_two_class_example_against_sklearn(two_class):
    y = np.asarray(two_class["truth"].to_pylist())
    yhat = np.asarray(two_class["predicted"].to_pylist())
    r = assay.evaluate(y, y_pred=yhat, positive="Class1")
    assert r["recall"].value == pytest.approx(skm.recall_score(y, yhat, pos_label="Class1"), abs=1e-9)
    assert r["precision"].value == pytest.approx(skm.precision_score(y, yhat, pos_label="Class1"), abs=1e-9)
    assert r["f1"].value == pytest.approx(skm.f1_score(y, yhat, pos_label="Class1"), abs=1e-9)
    assert r["mcc"].value == pytest.approx(skm.matthews_corrcoef(y, yhat), abs=1e-9)


def test_two_class_example_probabilities_give_the_same_matrix_as_its_predictions(two_class):
    by_label = assay.evaluate(two_class["truth"], y_pred=two_class["predicted"])
    by_proba = assay.evaluate(two_class["truth"], y_proba={"Class1": two_class["Class1"],
                                                           "Class2": two_class["Class2"]}, positive="Class2")
    assert by_label.confusion == by_proba.confusion


def test_yardstick_hpc_cv_published_values(hpc):
    r = assay.evaluate(hpc["obs"], y_pred=hpc["pred"])
    assert round(r.averages["macro"]["precision"].value, 3) == 0.631
    assert round(r.averages["micro"]["precision"].value, 3) == 0.709
    assert round(r["accuracy"].value, 3) == 0.709


def test_hpc_cv_against_sklearn(hpc):
    y = np.asarray(hpc["obs"].to_pylist())
    yhat = np.asarray(hpc["pred"].to_pylist())
    r = assay.evaluate(y, y_pred=yhat)
    assert r.labels == ("F", "L", "M", "VF")
    assert r.confusion.counts.tolist() == skm.confusion_matrix(y, yhat, labels=list(r.labels)).tolist()
    assert r["kappa"].value == pytest.approx(skm.cohen_kappa_score(y, yhat), abs=1e-9)
    assert r["mcc"].value == pytest.approx(skm.matthews_corrcoef(y, yhat), abs=1e-9)
    for avg in ("macro", "weighted"):
        p, rec, f, _ = skm.precision_recall_fscore_support(y, yhat, average=avg)
        assert r.averages[avg]["precision"].value == pytest.approx(p, abs=1e-9)
        assert r.averages[avg]["recall"].value == pytest.approx(rec, abs=1e-9)
        assert r.averages[avg]["f1"].value == pytest.approx(f, abs=1e-9)


def test_hpc_cv_argmax_of_probabilities(hpc):
    proba = {c: hpc[c] for c in ("VF", "F", "M", "L")}
    r = assay.evaluate(hpc["obs"], y_proba=proba)
    matrix = np.column_stack([np.asarray(hpc[c]) for c in ("F", "L", "M", "VF")])
    yhat = np.array(["F", "L", "M", "VF"])[matrix.argmax(axis=1)]
    y = np.asarray(hpc["obs"].to_pylist())
    assert r.confusion.counts.tolist() == skm.confusion_matrix(y, yhat, labels=["F", "L", "M", "VF"]).tolist()
