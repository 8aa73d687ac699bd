"""One rule per decision, and a note where a rule gives a surprising answer (issues 18 and 22).

- validate: the out-of-fold matrix counts the errors the method's estimate counts (predict()'s labels);
- validate: an infinite feature is refused like any value that is not a finite number; a data set named twice
  is refused;
- a threshold outside the scores' range, predictions all of one class, and percentages with the default
  threshold get a note;
- a numeric target given as predicted "classes" points to ``--task regression``.
"""


import numpy as np
import pytest

from helpers import run_cli as run, run_cli_json as run_json


# ---------------------------------------------------------------------------------------------------------------
# 18.7: one prediction rule for the matrix and the error


def test_validate_matrix_counts_the_errors_of_the_estimate(capsys):
    # bagging's probabilities tie at 0.5 on some instances of breast cancer: thresholding them at 0.5 again
    # (26 errors) disagreed with predict() (28 errors, the 4.9% of cross-validation)
    d = run_json(["validate", "--dataset", "breast-cancer", "--model", "bagging", "--folds", "5",
                  "--bootstrap", "100"], capsys)
    m = d["models"]["bagging"]
    matrix = np.array(m["confusion"]["actual_by_predicted"])
    errors = int(matrix.sum() - np.trace(matrix))
    assert errors == round(m["estimate"]["error"] * d["n"]) == 28
    assert m["metrics"]["accuracy"]["value"] == pytest.approx(1 - m["estimate"]["error"])


# ---------------------------------------------------------------------------------------------------------------
# 22.11: an infinite feature is refused like 1e31; a data set named twice is refused


def _table(path, bad):
    rng = np.random.default_rng(0)
    rows = ["a,b,y"]
    for i in range(30):
        a = bad if i == 3 else f"{rng.random():.3f}"
        rows.append(f"{a},{rng.random():.3f},{'yes' if i % 2 else 'no'}")
    path.write_text("\n".join(rows) + "\n")
    return str(path)


@pytest.mark.parametrize("bad, said", [("inf", "inf is not a finite number"), ("-inf", "-inf is not a finite number"),
                                       ("1e31", "too large")])
def test_validate_refuses_an_infinite_feature_as_it_refuses_a_huge_one(tmp_path, capsys, bad, said):
    status, out, err = run(["validate", _table(tmp_path / "t.csv", bad), "--target", "y", "--folds", "3",
                            "--bootstrap", "100"], capsys)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("assay: error: column 'a' row 4: ") and said in err, err


def test_validate_api_refuses_an_infinite_feature_in_any_form():
    from assay import validate
    from assay.errors import InvalidInput

    X = np.random.default_rng(1).random((30, 2))
    y = np.array(["no", "yes"] * 15)
    X[5, 1] = np.inf
    with pytest.raises(InvalidInput, match=r"\[5\]: inf is not a finite number"):
        validate(X, y, folds=3, bootstrap=100)
    text = {"a": [f"{v:.3f}" for v in X[:, 0]], "b": ["inf" if i == 5 else "0.5" if i % 2 else "0.25"
                                                       for i in range(30)], "y": list(y)}
    with pytest.raises(InvalidInput, match="inf is not a finite number"):  # text that reads as infinity: refused
        validate(text, target="y", folds=3, bootstrap=100)


def test_a_dataset_named_twice_is_refused_before_any_fit(capsys):
    status, out, err = run(["validate", "--dataset", "iris", "--dataset", "wine", "--dataset", "iris"], capsys)
    assert status == 2 and out == ""
    assert err == "assay: error: --dataset 'iris' is given twice: give each data set once\n"


def test_validate_over_datasets_refuses_a_name_twice_before_fitting(monkeypatch):
    from assay.errors import InvalidInput
    from assay.evaluation import validation

    def never(**_):
        raise AssertionError("fitted before the sources were checked")

    monkeypatch.setattr(validation, "validate", never)
    with pytest.raises(InvalidInput, match="'iris' is given twice"):
        validation.validate_over_datasets(["iris", "wine", "iris"], models=["naive-bayes"])


# ---------------------------------------------------------------------------------------------------------------
# 18.10: a threshold that predicts one class, and percentages, get a note on every path


@pytest.fixture
def scores(tmp_path):
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 120)
    p = np.clip(0.3 * y + 0.7 * rng.random(120), 0.01, 0.999)  # percentages from 1 to 99.9
    rows = ["y,p,pct"] + [f"{a},{b:.3f},{100 * b:.1f}" for a, b in zip(y, p)]
    one = tmp_path / "s.csv"
    one.write_text("\n".join(rows) + "\n")
    parts = tmp_path / "parts"  # read in batches (evaluation.stream), as every engine but the in-memory one
    parts.mkdir()
    (parts / "a.csv").write_text("\n".join(rows[:61]) + "\n")
    (parts / "b.csv").write_text("\n".join([rows[0], *rows[61:]]) + "\n")
    return str(one), str(parts)


def _notes(argv, capsys):
    return run_json([*argv, "--bootstrap", "100"], capsys)["notes"]


@pytest.mark.parametrize("path", [0, 1], ids=["in-memory", "batches"])
def test_a_threshold_above_every_probability_is_said(scores, capsys, path):
    notes = _notes(["report", scores[path], "--truth", "y", "--score", "p", "--threshold", "1.5"], capsys)
    said = [n for n in notes if n.startswith("threshold 1.5 is above every score")]
    assert len(said) == 1 and "every instance is predicted '0' (negative)" in said[0], notes
    assert not any(n.startswith("threshold") for n in _notes(["report", scores[path], "--truth", "y", "--score", "p",
                                                               "--threshold", "0.5"], capsys))


@pytest.mark.parametrize("path", [0, 1], ids=["in-memory", "batches"])
def test_percentages_are_said_with_a_probability_threshold_and_without_one(scores, capsys, path):
    notes = _notes(["report", scores[path], "--truth", "y", "--score", "pct", "--threshold", "0.5"], capsys)
    assert any(n.startswith("threshold 0.5 is below every score") and "predicted '1' (positive)" in n
               for n in notes), notes
    assert any("like percentages: if they are, a threshold of 50 means 0.5" in n for n in notes), notes
    notes = _notes(["report", scores[path], "--truth", "y", "--score", "pct"], capsys)  # no threshold
    assert any(n.startswith("the scores lie within [0, 100]") and "a threshold of 50" in n for n in notes), notes
    notes = _notes(["report", scores[path], "--truth", "y", "--score", "pct", "--threshold", "50"], capsys)
    assert not any("percentages" in n or n.startswith("threshold") for n in notes), notes


def test_the_note_is_in_the_brief_text_and_the_api(scores, capsys):
    from assay import evaluate

    status, out, err = run(["report", scores[0], "--truth", "y", "--score", "p", "--threshold", "1.5", "--brief"],
                           capsys)
    assert status == 0 and "threshold 1.5 is above every score" in " ".join(out.split()), err
    r = evaluate([0, 1, 0, 1], y_score=[0.2, 0.7, 0.4, 0.9], direction="lower", threshold=0.1)
    assert any(n.startswith("threshold 0.1 is below every score") and "predicted '0' (negative)" in n
               for n in r.notes), r.notes


def test_the_note_comes_from_the_summary_every_engine_ends_with():
    # Spark and the batches give evaluate_score_counts their summary: the note is made there
    from assay.evaluation.stream import evaluate_batches

    r = evaluate_batches([([1, 0, 1], [0.9, 0.2, 0.6]), ([0, 1], [0.4, 0.7])], threshold=0.95)
    assert any(n.startswith("threshold 0.95 is above every score (the highest is 0.9)") for n in r.notes), r.notes


# ---------------------------------------------------------------------------------------------------------------
# 18.11: a numeric target with numeric predictions points to --task regression


@pytest.fixture
def diabetes(tmp_path):
    from sklearn.datasets import load_diabetes
    from sklearn.linear_model import LinearRegression

    X, y = load_diabetes(return_X_y=True)
    p = LinearRegression().fit(X, y).predict(X)
    path = tmp_path / "diab.csv"
    path.write_text("y,yhat,yhat_dec\n" + "".join(f"{int(a)},{int(round(b))},{b:.3f}\n" for a, b in zip(y, p)))
    return str(path)


@pytest.mark.parametrize("column", ["yhat", "yhat_dec"], ids=["rounded", "decimal"])
def test_numeric_predictions_of_a_whole_number_target_point_to_regression(diabetes, capsys, column):
    status, out, err = run(["report", diabetes, "--truth", "y", "--pred", column], capsys)
    assert status == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith(f"assay: error: column {column!r}: the truth and the predictions are numbers with 214 ")
    assert "--task regression" in err and "--task classification" in err
    d = run_json(["report", diabetes, "--truth", "y", "--pred", column, "--task", "regression",
                  "--bootstrap", "100"], capsys)
    assert d["task"] == "regression" and d["n"] == 442


def test_insisting_on_classes_and_true_many_class_labels_stay_classification(diabetes, tmp_path, capsys):
    d = run_json(["report", diabetes, "--truth", "y", "--pred", "yhat", "--task", "classification",
                  "--bootstrap", "100"], capsys)
    assert d["task"] == "multiclass"
    rng = np.random.default_rng(2)  # 30 classes coded as numbers, mostly predicted right: classes
    y = rng.integers(0, 30, 600)
    pred = np.where(rng.random(600) < 0.7, y, rng.integers(0, 30, 600))
    path = tmp_path / "many.csv"
    path.write_text("y,yhat\n" + "".join(f"{a},{b}\n" for a, b in zip(y, pred)))
    d = run_json(["report", str(path), "--truth", "y", "--pred", "yhat", "--bootstrap", "100"], capsys)
    assert d["task"] == "multiclass" and len(d["labels"]) == 30


def test_prediction_task_rule_at_its_edges():
    from assay.errors import InvalidInput
    from assay.evaluation.regression_validation import FEW_EXACT, MANY_VALUES, prediction_task

    n = 200
    truth = np.arange(n) % (MANY_VALUES + 1)  # 21 distinct values
    off = (truth + 1) % (MANY_VALUES + 1)
    with pytest.raises(InvalidInput, match="task=regression"):
        prediction_task("auto", truth, off)
    few = np.arange(n) % MANY_VALUES  # 20 distinct values: classes
    assert prediction_task("auto", few, (few + 1) % MANY_VALUES) is None
    exact = np.where(np.arange(n) < FEW_EXACT * n, truth, off)  # a fifth predicted exactly: classes
    assert prediction_task("auto", truth, exact) is None
    assert prediction_task("classification", truth, off) is None
    assert prediction_task("auto", [0.5, 1.0, 2.0], [1, 1, 2]).startswith("the truth holds non-integer numbers")


def test_a_numeric_target_read_in_batches_is_refused_as_in_memory(tmp_path):
    """Issue 18, item 11, on the path that keeps no instances: the rule reads the merged counts."""
    from assay.errors import InvalidInput
    from assay.evaluation.stream import evaluate_batches

    rng = np.random.default_rng(3)
    y = rng.integers(25, 346, 400)
    yhat = np.clip(y + rng.integers(-40, 41, 400), 25, 346)
    with pytest.raises(InvalidInput, match="numeric predictions, not .* classes"):
        evaluate_batches([(y[:200], yhat[:200]), (y[200:], yhat[200:])], kind="y_pred")
    # many numeric classes mostly predicted right stay classes
    right = np.where(rng.random(400) < 0.7, y, yhat)
    assert evaluate_batches([(y, right)], kind="y_pred").task == "multiclass"
