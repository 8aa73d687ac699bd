"""The Python API a scikit-learn user expects (issue 18, items 14 to 17).

- ``evaluate(y, y_proba=P)`` with ``predict_proba``'s (n, k) array: its columns are the classes in sorted order, as
  scikit-learn's ``classes_`` (``np.unique``) are; checked against ``roc_auc_score`` on the same matrix.
- ``print`` and ``repr`` of ``validate``, ``compare`` and ``rank`` results; ``to_frame()`` of the first two.
- ``per_class`` keyed as ``classes``; ``ConfidenceInterval`` read as a pair; errors naming ``pos_label``.
- The bootstrap of the k-class averages: under any resample's counts, the averages equal scikit-learn's on the
  data repeated that many times (``roc_auc_score`` macro/weighted and ovo, ``average_precision_score`` macro,
  weighted and micro, to 1e-12), and the digits data set (1,797 instances, 10 classes) keeps its intervals at the
  default 2,000 resamples.
"""

import json

import numpy as np
import pytest
from sklearn.datasets import load_digits, load_iris
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import average_precision_score, roc_auc_score
from sklearn.naive_bayes import GaussianNB
from sklearn.preprocessing import label_binarize

import assay
from assay import InvalidInput
from assay.evaluation import multiclass_ranking
from assay.evaluation.multiclass_ranking import _Resampler, analyse_multiclass_scores
from assay.evaluation.tidy import COLUMNS
from assay.inference.bootstrap import BootstrapSettings

BOOT = 100


# --- 14: predict_proba's array --------------------------------------------------------------------------------


def test_predict_proba_array_is_read_in_sorted_class_order():
    X, y = load_iris(return_X_y=True)
    names = np.array(["virginica", "setosa", "versicolor"])[y]  # text classes, not in sorted order of appearance
    model = LogisticRegression(max_iter=2000).fit(X, names)
    P = model.predict_proba(X)
    r = assay.evaluate(names, y_proba=P, bootstrap=BOOT)
    assert r.classes == tuple(model.classes_) == ("setosa", "versicolor", "virginica")
    assert r.ranking.hand_till.value == pytest.approx(roc_auc_score(names, P, multi_class="ovo"), abs=1e-12)
    assert r.ranking.macro.value == pytest.approx(roc_auc_score(names, P, multi_class="ovr"), abs=1e-12)
    assert r.metrics["accuracy"].value == pytest.approx((model.predict(X) == names).mean(), abs=1e-12)
    named = assay.evaluate(names, y_proba=P, labels=list(model.classes_), bootstrap=BOOT)
    assert r.to_dict()["metrics"] == named.to_dict()["metrics"]
    assert any(note.startswith("y_proba's columns taken as the classes in sorted order, ['setosa', 'versicolor', "
                               "'virginica'], as scikit-learn's classes_") for note in r.notes)


def test_two_class_proba_array():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 60)
    p = np.clip(y * 0.4 + rng.random(60) * 0.6, 0, 1)
    r = assay.evaluate(y, y_proba=np.column_stack([1 - p, p]), bootstrap=BOOT)
    assert r.pos_label == 1 and r.ranking.roc_auc.value == pytest.approx(roc_auc_score(y, p), abs=1e-12)
    assert r.to_dict()["metrics"] == assay.evaluate(y, y_proba={0: 1 - p, 1: p}, bootstrap=BOOT).to_dict()["metrics"]
    ranked = assay.rank(y, y_proba=np.column_stack([1 - p, p]))
    assert any(note.startswith("y_proba's columns") for note in ranked.notes)


def test_a_proba_array_with_other_columns_than_classes_is_refused():
    y = [0, 1, 1, 0]
    with pytest.raises(InvalidInput, match=r"has 3 columns but y_true holds 2 classes \[0, 1\]: .*labels=model"
                                           r"\.classes_") as e:
        assay.evaluate(y, y_proba=np.full((4, 3), 1 / 3))
    assert e.value.field == "y_proba"
    with pytest.raises(InvalidInput, match="no sorted order"):
        assay.evaluate([1, "a", 1, "a"], y_proba=np.full((4, 2), 0.5))


# --- 15: print, repr, to_frame -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def validation():
    return assay.validate(dataset="iris", models=["naive-bayes", "knn", "decision-tree"], folds=3, bootstrap=BOOT)


def test_print_and_repr_of_a_validation(validation):
    text = str(validation)
    assert text.startswith("assay validate\n") and "naive-bayes" in text and "array(" not in text
    assert len(text) < 20_000  # the dataclass dump it replaced was over 100 KB
    line = repr(validation)
    assert "\n" not in line and len(line) < 300
    assert line.startswith("Validation(dataset='iris', method='cv', n=150, classes=3, error={'naive-bayes': ")


def test_validation_to_frame(validation):
    f = validation.to_frame()
    assert list(f.columns) == ["model", *COLUMNS]
    for name, m in validation.models.items():
        row = f[(f.model == name) & (f.section == "metrics") & (f.metric == "accuracy")].iloc[0]
        assert (row.value, row.low, row.high) == (m.report["accuracy"].value, *m.report["accuracy"].ci)
        error = f[(f.model == name) & (f.section == "estimate") & (f.metric == "error")].iloc[0]
        assert error.value == m.estimate.error and error.method == "cv"
    test = next(c for c in validation.comparisons if c["test"] == "mcnemar")
    who = " vs ".join(test["models"])
    rows = f[(f.model == who) & (f.metric == "mcnemar")].set_index("group")
    assert rows.loc["pvalue", "value"] == test["pvalue"] and rows.loc["pvalue_holm", "value"] == test["pvalue_holm"]
    assert set(f[f.metric == "cochran_q"].model) == {"naive-bayes, knn, decision-tree"}


def test_print_repr_and_frame_of_a_comparison_and_a_ranking():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 200)
    s1, s2 = y * 0.5 + rng.random(200), y * 0.2 + rng.random(200)
    c = assay.compare(y, {"forest": {"y_score": s1}, "tree": {"y_score": s2}}, threshold=0.6, bootstrap=BOOT)
    text = str(c)
    assert text.startswith("assay compare\nforest vs tree") and "array(" not in text and len(text) < 10_000
    assert repr(c) == ("Comparison(models=['forest', 'tree'], paired=True, n=200, accuracy={'forest': "
                       f"{c.reports[0]['accuracy'].value:.4g}, 'tree': {c.reports[1]['accuracy'].value:.4g}}}, "
                       "tests=['mcnemar', 'accuracy_difference', 'delong'])")
    f = c.to_frame()
    assert list(f.columns) == ["model", *COLUMNS] and set(f.model) == {"forest", "tree", "forest vs tree"}
    delong = f[(f.metric == "delong") & (f.group == "difference")].iloc[0]
    d = c.test_dict("delong")
    assert (delong.value, delong.low, delong.high) == (d["difference"], *d["ci"])
    r = assay.rank(y, s1, bootstrap=BOOT)
    assert str(r).startswith("assay ranking\nranking by the scores · n = 200 · positive class '1'")
    assert "ROC AUC" in str(r) and "\n" not in repr(r) and repr(r).startswith("RankingAnalysis(n=200, positive='1', ")
    e = assay.evaluate(y, y_score=s1, threshold=0.6, bootstrap=BOOT)
    assert "\n" not in repr(e) and repr(e).startswith("Evaluation(task='binary', n=200, classes=(0, 1), positive=1, ")


# --- 16: per_class keys, the interval as a pair, pos_label in errors ------------------------------------------


def test_per_class_is_keyed_as_the_classes():
    r = assay.evaluate(np.array([0, 1, 1, 0, 2]), [0, 1, 0, 0, 2], bootstrap=BOOT)
    assert list(r.per_class) == list(r.classes) == [0, 1, 2]
    assert 1 in r.per_class and "1" in r.per_class and 1.0 in r.per_class and 7 not in r.per_class
    assert r.per_class[1] is r.per_class["1"] and r.per_class.get(2) is r.per_class["2"]
    assert r.per_class.get(7) is None
    assert list(r.to_dict()["per_class"]) == ["0", "1", "2"]  # the JSON keeps text
    assert set(r.to_frame().query("section == 'per_class'").group) == {"0", "1", "2"}
    s = assay.evaluate(["b", "a", "b"], ["b", "b", "b"], bootstrap=BOOT)
    assert list(s.per_class) == ["a", "b"]


def test_an_interval_is_a_pair():
    r = assay.evaluate([0, 1, 1, 0, 1, 1], [0, 1, 0, 0, 1, 1], bootstrap=BOOT)
    ci = r["recall"].ci
    low, high = ci
    assert (ci[0], ci[1], ci[-1], len(ci), tuple(ci)) == (ci.low, ci.high, ci.high, 2, (low, high))


@pytest.mark.parametrize("call", [
    lambda **kw: assay.evaluate([0, 1, 0, 1], [0, 1, 1, 1], **kw),
    lambda **kw: assay.rank([0, 1, 0, 1], [0.1, 0.7, 0.3, 0.6], **kw),
    lambda **kw: assay.compare([0, 1, 0, 1], [0, 1, 1, 1], [1, 1, 0, 1], **kw),
])
def test_errors_about_the_positive_class_name_the_parameter_given(call):
    with pytest.raises(InvalidInput, match="7 is not one of the classes") as e:
        call(pos_label=7)
    assert e.value.field.endswith("pos_label")
    with pytest.raises(InvalidInput) as e:
        call(positive=7)
    assert e.value.field.endswith("positive")
    with pytest.raises(InvalidInput, match="pos_label: a positive class applies to two-class data"):
        assay.evaluate([0, 1, 2, 1], [0, 1, 1, 1], pos_label=1)


# --- 17: the bootstrap of the k-class averages ---------------------------------------------------------------


def _hand_till(P, y, k):
    """Hand & Till's M by its definition, each A(i|j) scikit-learn's AUC of column i on classes i and j."""
    pairs = []
    for i in range(k):
        for j in range(i + 1, k):
            kept = (y == i) | (y == j)
            pairs.append((roc_auc_score(y[kept] == i, P[kept, i]) + roc_auc_score(y[kept] == j, P[kept, j])) / 2)
    return float(np.mean(pairs))


def _sklearn_averages(P, y, k):
    truth = label_binarize(y, classes=range(k))
    return {"macro": roc_auc_score(truth, P, average="macro"), "weighted": roc_auc_score(truth, P, average="weighted"),
            "hand_till": _hand_till(P, y, k),
            "ap_macro": average_precision_score(truth, P, average="macro"),
            "ap_weighted": average_precision_score(truth, P, average="weighted"),
            "ap_micro": average_precision_score(truth, P, average="micro")}


@pytest.mark.parametrize("decimals", [None, 1])  # distinct scores, and many ties within and across classes
@pytest.mark.parametrize("resamples", [3, 70])  # both ways of summing down the rows
def test_resampled_averages_equal_sklearn_on_the_resampled_data(decimals, resamples, monkeypatch):
    rng = np.random.default_rng(2)
    k, n = 4, 90
    y = np.arange(n) % k
    P = rng.dirichlet(np.ones(k), size=n)
    P[np.arange(n), y] += rng.random(n) * 0.5
    P /= P.sum(axis=1, keepdims=True)
    if decimals is not None:
        P = P.round(decimals)
    draws = [np.arange(n)] + [np.concatenate([rng.choice(np.flatnonzero(y == c), size=np.sum(y == c))
                                              for c in range(k)]) for _ in range(resamples - 1)]
    weights = np.column_stack([np.bincount(d, minlength=n) for d in draws]).astype(np.float64)
    got = _Resampler(P, y).averages(weights)
    monkeypatch.setattr(_Resampler, "KEPT", 0)  # the sorted columns made again at each call: the same numbers
    again = _Resampler(P, y).averages(weights)
    assert all(np.array_equal(got[name], again[name]) for name in got)
    for j in sorted({0, 1, resamples - 1}):  # the data themselves, and resamples
        d = draws[j]
        for name, value in _sklearn_averages(P[d], y[d], k).items():
            assert got[name][j] == pytest.approx(value, abs=1e-12), (name, j)


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return GaussianNB().fit(X, y).predict_proba(X), y


def test_digits_keep_the_intervals_of_their_averages(digits):
    P, y = digits
    r = analyse_multiclass_scores(P, y, tuple(map(str, range(10))), bootstrap=BootstrapSettings(2000, 0))
    for name in ("macro", "weighted", "hand_till", "average_precision_macro", "average_precision_weighted",
                 "average_precision_micro"):
        e = getattr(r, name)
        assert e.method == "bootstrap-percentile" and e.note is None, (name, e.note)
        assert e.ci.low <= e.value <= e.ci.high, name
    assert r.hand_till.value == pytest.approx(_hand_till(P, y, 10), abs=1e-12)


def test_past_the_limit_every_average_says_why(digits, monkeypatch):
    P, y = digits
    monkeypatch.setattr(multiclass_ranking, "BOOTSTRAP_BUDGET", 1797 * 10 * 150)
    r = analyse_multiclass_scores(P, y, tuple(map(str, range(10))), bootstrap=BootstrapSettings(2000, 0))
    expected = ("no interval: its bootstrap would take resamples x instances x classes = 2,000 x 1,797 x 10, past "
                "the limit of 2,695,500 (a few seconds); with 150 resamples or fewer it runs")
    for name in ("macro", "weighted", "hand_till", "average_precision_macro", "average_precision_weighted",
                 "average_precision_micro"):
        e = getattr(r, name)
        assert e.ci is None and e.note == expected, name
    assert r.per_class["3"].method == "delong" and r.average_precision["3"].method == "logit"
    d = json.loads(json.dumps(r.to_dict()))
    assert d["average_precision_macro"]["note"] == expected


def test_numeric_results_print_their_report_and_a_short_repr():
    """Issue 18, item 15, for numeric predictions too: print gives the report, repr one line."""
    from sklearn.datasets import load_diabetes
    from sklearn.linear_model import LinearRegression

    X, y = load_diabetes(return_X_y=True)
    r = assay.evaluate_regression(y, 0.9 * y, bootstrap=200)
    assert str(r).startswith("assay report\nnumeric predictions") and "\n" not in repr(r) and len(repr(r)) < 200
    v = assay.validate(LinearRegression(), X, y, cv=3, bootstrap=200)  # a regressor: validated as one
    assert type(v).__name__ == "RegressionValidation" and "'LinearRegression'" in repr(v)
    assert str(v).startswith("assay validate") and len(str(v)) < 10_000
