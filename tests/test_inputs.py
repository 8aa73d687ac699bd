"""The boundary: what users pass in Python becomes validated arrays, or a clear InvalidInput."""

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import assay
from assay import InvalidInput
from assay.inputs import as_proba, as_scores, canonical_label, encode_labels, sorted_labels


def test_numbers_and_their_text_are_one_class():
    enc = encode_labels({"y_true": [1, 0, 1], "y_pred": ["1", "1.0", "0"]})
    assert enc.labels == ("0", "1")
    assert enc.codes["y_true"].tolist() == [1, 0, 1]
    assert enc.codes["y_pred"].tolist() == [1, 1, 0]


def test_numeric_labels_sort_numerically_and_text_as_text():
    assert encode_labels({"y": [10, 9, 1]}).labels == ("1", "9", "10")
    assert encode_labels({"y": ["b", "a", "C"]}).labels == ("C", "a", "b")
    assert sorted_labels(["2.5", "-1", "10"]) == ("-1", "2.5", "10")


def test_boolean_labels():
    assert encode_labels({"y": [True, False, True]}).labels == ("False", "True")
    r = assay.evaluate([True, False, True, False], y_pred=[True, True, True, False])
    assert r.positive == "True"
    assert r["recall"].value == 1.0


def test_mixed_text_and_numbers():
    enc = encode_labels({"y": ["a", 1, "b", 1.0]})
    assert enc.labels == ("1", "a", "b")
    assert enc.codes["y"].tolist() == [1, 0, 2, 0]


@pytest.mark.parametrize(
    "convert",
    [list, np.asarray, pd.Series, lambda v: pd.Series(v, dtype="category"), pl.Series, pa.array,
     lambda v: pa.chunked_array([v[:3], v[3:]])],
    ids=["list", "numpy", "pandas", "pandas-category", "polars", "pyarrow", "pyarrow-chunked"],
)
def test_every_container_gives_the_same_result(convert):
    truth = ["cat", "dog", "dog", "cat", "emu", "dog"]
    pred = ["cat", "dog", "cat", "cat", "dog", "emu"]
    expected = assay.evaluate(truth, y_pred=pred, bootstrap=200).to_dict()
    got = assay.evaluate(convert(truth), y_pred=convert(pred), bootstrap=200).to_dict()
    assert got == expected


@pytest.mark.parametrize("missing", [None, float("nan"), pd.NA])
def test_missing_label_is_named(missing):
    with pytest.raises(InvalidInput, match=r"y_pred\[2\]: missing value"):
        assay.evaluate(["a", "b", "a"], y_pred=["a", "b", missing])


def test_missing_in_float_labels():
    with pytest.raises(InvalidInput, match=r"y_true\[1\]: missing value"):
        assay.evaluate([0.0, np.nan, 1.0], y_pred=[0, 1, 1])


def test_lengths_that_differ():
    with pytest.raises(InvalidInput, match="y_pred: has 2 values but y_true has 3"):
        assay.evaluate(["a", "b", "a"], y_pred=["a", "b"])
    with pytest.raises(InvalidInput, match="y_score: has 2 values but y_true has 3"):
        assay.evaluate(["a", "b", "a"], y_score=[0.1, 0.2])


def test_single_class_in_truth():
    with pytest.raises(InvalidInput, match=r"y_true: has a single class \('a'\)"):
        assay.evaluate(["a", "a"], y_pred=["a", "b"])


def test_unknown_positive():
    with pytest.raises(InvalidInput, match="positive: 'x' is not one of the classes"):
        assay.evaluate(["a", "b"], y_pred=["a", "b"], positive="x")


def test_positive_on_multiclass_is_refused():
    with pytest.raises(InvalidInput, match="a positive class applies to two-class data"):
        assay.evaluate(["a", "b", "c"], y_pred=["a", "b", "c"], positive="a")


@pytest.mark.parametrize(
    ("scores", "message"),
    [
        ([0.1, "high", 0.3], r"y_score\[1\]: 'high' is not a number"),
        ([0.1, None, 0.3], r"y_score\[1\]: missing value"),
        ([0.1, np.nan, 0.3], r"y_score\[1\]: missing value"),
        ([0.1, np.inf, 0.3], r"y_score\[1\]: inf is not a finite number"),
        ([0.1, -np.inf, 0.3], r"y_score\[1\]: -inf is not a finite number"),
    ],
)
def test_bad_scores(scores, message):
    with pytest.raises(InvalidInput, match=message):
        assay.evaluate(["a", "b", "a"], y_score=scores)


def test_scores_outside_unit_interval_get_the_threshold_free_report():
    free = assay.evaluate(["a", "b", "a"], y_score=[-1, 2, 0])
    assert not free.thresholded and free.threshold is None and free.ranking.roc_auc.value == 1.0
    r = assay.evaluate(["a", "b", "a"], y_score=[-1, 2, 0], threshold=0)
    assert r.threshold == 0.0


def test_score_needs_two_classes():
    with pytest.raises(InvalidInput, match="a single score column needs two"):
        assay.evaluate(["a", "b", "c"], y_score=[0.1, 0.2, 0.3])


def test_exactly_one_prediction_kind():
    with pytest.raises(InvalidInput, match="give exactly one of y_pred, y_score or y_proba"):
        assay.evaluate(["a", "b"])
    with pytest.raises(InvalidInput, match=r"\(got y_pred, y_score\)"):
        assay.evaluate(["a", "b"], y_pred=["a", "b"], y_score=[0.1, 0.9])


def test_pandas_score_name_chooses_positive():
    r = assay.evaluate(["Class1", "Class2", "Class1"], y_score=pd.Series([0.9, 0.2, 0.7], name="Class1"))
    assert r.positive == "Class1"
    assert "the score column is named 'Class1'" in r.notes[0]


def test_positive_rules():
    assert assay.evaluate(["no", "yes"], y_pred=["no", "yes"]).positive == "yes"
    assert assay.evaluate([0, 1], y_pred=[0, 1]).positive == "1"
    assert assay.evaluate([-1, 1], y_pred=[-1, 1]).positive == "1"
    r = assay.evaluate(["apple", "pear"], y_pred=["apple", "pear"])
    assert r.positive == "pear" and "second class in sorted order" in r.notes[0]
    assert assay.evaluate(["apple", "pear"], y_pred=["apple", "pear"], positive="apple").positive == "apple"


def test_declared_labels_keep_empty_classes():
    r = assay.evaluate(["a", "b", "a"], y_pred=["a", "b", "b"], labels=["a", "b", "c"], bootstrap=200)
    assert r.labels == ("a", "b", "c")
    assert r.per_class["c"]["support"] == 0
    assert r.per_class["c"]["recall"].value is None
    assert r.per_class["c"]["recall"].note == "no actual 'c'"
    assert any("no actual instances of 'c'" in n for n in r.notes)


def test_declared_labels_must_cover_the_data():
    with pytest.raises(InvalidInput, match=r"y_pred\[2\]: 'c' is not one of the classes \['a', 'b'\]"):
        assay.evaluate(["a", "b", "a"], y_pred=["a", "b", "c"], labels=["a", "b"])


def test_proba_forms():
    truth = ["x", "y", "z", "x"]
    matrix = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4], [0.2, 0.5, 0.3]])
    a = assay.evaluate(truth, y_proba=matrix, labels=["x", "y", "z"], bootstrap=200)
    b = assay.evaluate(truth, y_proba=pd.DataFrame(matrix, columns=["x", "y", "z"]), bootstrap=200)
    c = assay.evaluate(truth, y_proba={"z": matrix[:, 2], "x": matrix[:, 0], "y": matrix[:, 1]}, bootstrap=200)
    assert a.to_dict() == b.to_dict() == c.to_dict()
    assert a.confusion.counts.tolist() == [[1, 1, 0], [0, 1, 0], [0, 0, 1]]


def test_proba_ties_go_to_the_first_class_in_label_order():
    r = assay.evaluate(["a", "b", "c"], y_proba={"c": [0.5, 0, 0.5], "a": [0.5, 0.5, 0.5], "b": [0, 0.5, 0]},
                       bootstrap=200)
    assert r.confusion.counts.tolist() == [[1, 0, 0], [1, 0, 0], [1, 0, 0]]


def test_binary_proba_uses_threshold_on_positive_column():
    truth = ["n", "p", "p"]
    proba = {"n": [0.6, 0.5, 0.3], "p": [0.4, 0.5, 0.7]}
    r = assay.evaluate(truth, y_proba=proba, positive="p")
    assert r.threshold == 0.5
    assert r.confusion.counts.tolist() == [[1, 0], [0, 2]]  # 0.5 >= 0.5 is positive
    r = assay.evaluate(truth, y_proba=proba, positive="p", threshold=0.6)
    assert r.confusion.counts.tolist() == [[1, 0], [1, 1]]


@pytest.mark.parametrize(
    ("proba", "message"),
    [
        ({"a": [0.5, 1.2], "b": [0.5, 0.0]}, r"y_proba\['a'\]\[1\]: 1.2 is not a probability"),
        ({"a": [0.5, np.nan], "b": [0.5, 0.0]}, r"y_proba\['a'\]\[1\]: missing value"),
        ({"a": [0.5, 0.5]}, "at least two probability columns"),
    ],
)
def test_bad_proba(proba, message):
    with pytest.raises(InvalidInput, match=message):
        assay.evaluate(["a", "b"], y_proba=proba)


def test_proba_array_needs_labels():
    with pytest.raises(InvalidInput, match="name the class of each column"):
        as_proba(np.eye(2))


def test_as_scores_keeps_float32():
    assert as_scores(np.array([0.5, 0.25], dtype=np.float32)).dtype == np.float32
    assert as_scores(np.array([1, 0])).dtype == np.float64


def test_canonical_label():
    assert canonical_label(1, ("0", "1")) == "1"
    assert canonical_label("1.0", ("0", "1")) == "1"
    assert canonical_label(True, ("0", "1")) == "1"
    with pytest.raises(InvalidInput):
        canonical_label("2", ("0", "1"))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"confidence": 1.0}, "confidence: must be between 0 and 1"),
        ({"interval": "exact"}, "'exact' is not one of"),
        ({"beta": 0}, "beta: must be a positive number"),
        ({"bootstrap": 10}, "bootstrap: must be a whole number of at least 100"),
    ],
)
def test_bad_options(kwargs, message):
    with pytest.raises(InvalidInput, match=message):
        assay.evaluate(["a", "b"], y_pred=["a", "b"], **kwargs)


def test_bad_confusion_matrix():
    with pytest.raises(InvalidInput, match="not a whole count"):
        assay.evaluate_confusion([[1, 2.5], [3, 4]])
    with pytest.raises(InvalidInput, match="square table"):
        assay.evaluate_confusion([[1, 2, 3], [3, 4, 5]])
    with pytest.raises(InvalidInput, match="no instances"):
        assay.evaluate_confusion([[0, 0], [0, 0]])


@pytest.mark.parametrize("values", [
    ["b", "a", "b", "", "a\x00b", "ab", "c"],  # empty text, an embedded NUL, a prefix of another value
    ["é", "e", "é", "x"],  # not ASCII: Arrow's conversion of each value
    ["", "", ""],
    ["a"],
])
def test_text_arrays_code_as_arrow_does(values):
    """A numpy text array's codes (the ASCII ones hashed as fixed-width bytes) equal the codes of the same values
    as a Python list (Arrow strings): the same values, in the order of their first row."""
    from assay.inputs import value_codes

    codes, distinct = value_codes(np.array(values), "y")
    expected_codes, expected = value_codes(list(values), "y")
    assert distinct == expected and [type(v) for v in distinct] == [str] * len(distinct)
    assert codes.tolist() == expected_codes.tolist()
    assert [distinct[c] for c in codes] == [str(v) for v in np.array(values)]
