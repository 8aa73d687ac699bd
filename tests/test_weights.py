"""sample_weight: whole numbers are frequency weights (exactly the rows repeated), other weights give
scikit-learn's weighted estimates without intervals; the CLI's --weight COL."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import assay
from assay.errors import InvalidInput
from assay.cli import main

REL = 1e-12
"""Tolerance against scikit-learn: relative, for sums taken in another order."""


class _Run:
    def __init__(self, status: int, out: str, err: str) -> None:
        self.exit_code, self.output, self.error = status, out, err


def run_cli(capsys, *argv: str) -> _Run:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return _Run(status, out, err)


def _without_notes(d: dict) -> dict:
    return {k: v for k, v in d.items() if k != "notes"}


def _repeat(w: np.ndarray, *arrays: np.ndarray) -> list[np.ndarray]:
    index = np.repeat(np.arange(len(w)), w)
    return [a[index] for a in arrays]


@st.composite
def _weighted_labels(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = draw(st.integers(4, 40))
    names = np.array(["ant", "bee", "cat"][: draw(st.integers(2, 3))], dtype=object)
    y = names[np.array(draw(st.lists(st.integers(0, len(names) - 1), min_size=n, max_size=n)))]
    p = names[np.array(draw(st.lists(st.integers(0, len(names) - 1), min_size=n, max_size=n)))]
    w = np.array(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)))
    return y, p, w


@settings(max_examples=40, deadline=None)
@given(_weighted_labels())
def test_whole_weights_are_the_rows_repeated(case):
    y, p, w = case
    kept = w > 0  # a weight of 0 leaves the row out (a class seen only there would stay, empty)
    ry, rp = _repeat(w, y, p)
    try:
        expected = assay.evaluate(ry, rp, allow_disjoint_labels=True)
    except InvalidInput:
        with pytest.raises(InvalidInput):
            assay.evaluate(y[kept], p[kept], sample_weight=w[kept], allow_disjoint_labels=True)
        return
    got = assay.evaluate(y[kept], p[kept], sample_weight=w[kept], allow_disjoint_labels=True)
    assert _without_notes(got.to_dict()) == _without_notes(expected.to_dict())
    whole = assay.evaluate(y, p, sample_weight=w, allow_disjoint_labels=True)
    assert whole.n == expected.n and whole["accuracy"] == expected["accuracy"]


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000))
def test_whole_weights_with_scores_are_the_rows_repeated(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(6, 60))
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s = rng.integers(0, 6, n) / 5.0  # ties
    w = rng.integers(1, 4, n)
    ry, rs = _repeat(w, y, s)
    got = assay.evaluate(y, y_score=s, sample_weight=w, bootstrap=200)
    expected = assay.evaluate(ry, y_score=rs, bootstrap=200)
    a, b = _without_notes(got.to_dict()), _without_notes(expected.to_dict())
    # the losses and calibration come from the counts per distinct score: equal up to rounding
    pa, pb = a.pop("probabilistic"), b.pop("probabilistic")
    assert a == b
    _close(pa, pb)


def _close(a, b, path=""):
    if isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for k in a:
            _close(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for i, (u, v) in enumerate(zip(a, b)):
            _close(u, v, f"{path}[{i}]")
    elif isinstance(a, float) and isinstance(b, float):
        assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12), path
    else:
        assert a == b, path


def test_whole_weights_with_several_classes_probabilities():
    rng = np.random.default_rng(3)
    n = 90
    y = rng.integers(0, 3, n)
    proba = rng.dirichlet([1, 1, 1], n)
    w = rng.integers(0, 3, n)
    ry, rp = _repeat(w, y, proba)
    got = assay.evaluate(y, y_proba=proba, labels=[0, 1, 2], sample_weight=w, bootstrap=200)
    expected = assay.evaluate(ry, y_proba=rp, labels=[0, 1, 2], bootstrap=200)
    a, b = _without_notes(got.to_dict()), _without_notes(expected.to_dict())
    _close(a.pop("probabilistic"), b.pop("probabilistic"))  # sums over another memory layout: rounding
    assert a == b
    assert any("whole numbers" in note for note in got.notes)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([2, 3]))
def test_other_weights_give_scikit_learns_estimates(seed, k):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(10, 80))
    names = np.array(["no", "yes", "maybe"][:k])
    y = names[rng.integers(0, k, n)]
    y[:k] = names
    p = names[rng.integers(0, k, n)]
    w = rng.random(n) * 3
    w[rng.random(n) < 0.1] = 0.0
    w[:k] = 0.5  # every class keeps a weight
    r = assay.evaluate(y, p, sample_weight=w, pos_label="yes" if k == 2 else None)
    assert r.confusion.weighted
    cm = skm.confusion_matrix(y, p, labels=list(r.labels), sample_weight=w)
    np.testing.assert_allclose(r.confusion.counts, cm, rtol=REL)
    assert math.isclose(r["accuracy"].value, skm.accuracy_score(y, p, sample_weight=w), rel_tol=REL)
    assert math.isclose(r["balanced_accuracy"].value, skm.balanced_accuracy_score(y, p, sample_weight=w),
                        rel_tol=REL, abs_tol=1e-15)
    kappa = skm.cohen_kappa_score(y, p, sample_weight=w)
    if r["kappa"].value is not None:
        assert math.isclose(r["kappa"].value, kappa, rel_tol=1e-9, abs_tol=1e-12)
    mcc = skm.matthews_corrcoef(y, p, sample_weight=w)
    if r["mcc"].value is not None:
        assert math.isclose(r["mcc"].value, mcc, rel_tol=1e-9, abs_tol=1e-12)
    for average in ("macro", "weighted", "micro"):
        expected = skm.f1_score(y, p, average=average, sample_weight=w, zero_division=np.nan)
        value = r.averages[average]["f1"].value
        if value is not None and not math.isnan(expected):
            assert math.isclose(value, expected, rel_tol=1e-9, abs_tol=1e-12), average
    for label in r.labels:
        got = r.per_class[label]["recall"].value
        expected = skm.recall_score(y, p, labels=[label], average="macro", sample_weight=w, zero_division=np.nan)
        if got is not None:
            assert math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-12)
    # no interval and no test claims counts the weights are not
    assert all(e.ci is None for e in r.metrics.values())
    assert r.tests == {}
    assert any("not whole numbers" in note for note in r.notes)
    json.dumps(r.to_dict(), allow_nan=False)
    assert "no tests" in str(r)


def test_other_weights_with_scores_match_scikit_learn():
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 120)
    s = np.round(np.clip(y * 0.3 + rng.random(120) * 0.7, 0, 1), 2)  # ties
    w = rng.random(120)
    r = assay.evaluate(y, y_score=s, sample_weight=w)
    assert math.isclose(r.ranking.roc_auc.value, skm.roc_auc_score(y, s, sample_weight=w), rel_tol=REL)
    assert math.isclose(r.ranking.average_precision.value, skm.average_precision_score(y, s, sample_weight=w),
                        rel_tol=REL)
    assert r.ranking.roc_auc.ci is None and r.ranking.average_precision.ci is None and r.ranking.lift.ci is None
    assert r.probabilistic is None and any("probabilistic losses" in note for note in r.notes)
    f1 = skm.f1_score(y, (s >= 0.5).astype(int), sample_weight=w)
    assert math.isclose(r["f1"].value, f1, rel_tol=REL)
    ranking = assay.rank(y, s, sample_weight=w)
    fpr, tpr, _ = skm.roc_curve(y, s, sample_weight=w, drop_intermediate=False)
    np.testing.assert_allclose(ranking.roc()["fpr"], fpr, rtol=REL)
    np.testing.assert_allclose(ranking.roc()["tpr"], tpr, rtol=REL)


def test_weights_of_zero_leave_the_instance_out():
    y = np.array([0, 1, 0, 1, 1, 0])
    s = np.array([0.1, 0.9, 0.35, 0.8, 0.2, 0.77])
    w = np.array([1, 1, 1, 1, 0, 0])
    got = assay.rank(y, s, sample_weight=w)
    expected = assay.rank(y[:4], s[:4])
    assert got.to_dict() == expected.to_dict()


@pytest.mark.parametrize("weights, message", [
    ([-1, 1, 1, 1], "sample_weight[0]: -1 is negative"),
    ([1, 1, 1], "sample_weight: has 3 values but y_true has 4"),
    ([0, 0, 0, 0], "every weight is 0"),
    ([1, 1, 0, 0], "leaves a single class ('0')"),
    (["x", 1, 1, 1], "sample_weight[0]: 'x' is not a number"),
    ([math.inf, 1, 1, 1], "sample_weight[0]: inf is not a finite number"),
    ([2.0**53, 1, 1, 1], "more than the"),
])
def test_bad_weights_are_refused(weights, message):
    with pytest.raises(InvalidInput) as e:
        assay.evaluate([0, 0, 1, 1], [0, 1, 1, 1], sample_weight=weights)
    assert message in str(e.value)


def test_cli_weight_column(tmp_path, capsys):
    rng = np.random.default_rng(5)
    n = 60
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s = np.round(rng.random(n), 2)
    w = rng.integers(0, 3, n)
    w[:2] = 1
    path = tmp_path / "p.csv"
    path.write_text("y,s,w,f\n" + "".join(f"{a},{b},{c},{c / 3}\n" for a, b, c in zip(y, s, w)))
    index = np.repeat(np.arange(n), w)
    repeated = tmp_path / "r.csv"
    repeated.write_text("y,s\n" + "".join(f"{a},{b}\n" for a, b in zip(y[index], s[index])))
    got = run_cli(capsys, "report", str(path), "--truth", "y", "--score", "s", "--weight", "w", "--format", "json")
    expected = run_cli(capsys, "report", str(repeated), "--truth", "y", "--score", "s", "--format", "json")
    assert got.exit_code == 0 and expected.exit_code == 0
    a, b = json.loads(got.output), json.loads(expected.output)
    for key in ("confusion", "metrics", "ranking", "tests", "n"):
        assert a[key] == b[key], key
    fractional = run_cli(capsys, "report", str(path), "--truth", "y", "--score", "s", "--weight", "f")
    assert fractional.exit_code == 0
    assert "no tests: the sample weights are not whole numbers" in fractional.output
    assert "sample weights 'f'" in fractional.output


@pytest.mark.parametrize("extra, message", [
    (["--weight", "nope"], "column 'nope' is not in"),
    (["--weight", "s"], "column 's'"),  # a column of weights that leaves one class: named as the column
    (["--weight", "w", "--memory", "1"], "--weight needs the table in memory"),
])
def test_cli_weight_refusals(tmp_path, capsys, extra, message):
    path = tmp_path / "p.csv"
    path.write_text("y,s,w\n0,0,1\n0,0,1\n1,0.9,2\n1,0.7,1\n")
    out = tmp_path / "out.json"
    result = run_cli(capsys, "report", str(path), "--truth", "y", "--score", "s", *extra, "-o", str(out))
    assert result.exit_code == 2, result.output
    assert result.output == ""
    lines = result.error.strip().splitlines()
    assert len(lines) == 1 and message in lines[0]
    assert not out.exists()


def test_cli_weight_with_a_confusion_matrix_is_refused(tmp_path, capsys):
    matrix = tmp_path / "m.csv"
    matrix.write_text(",a,b\na,5,1\nb,2,7\n")
    result = run_cli(capsys, "report", "--confusion", str(matrix), "--weight", "w")
    assert result.exit_code == 2
    assert "--weight applies to a FILE of predictions" in result.error


def test_regression_frequency_weights(tmp_path, capsys):
    rng = np.random.default_rng(4)
    a = rng.normal(size=30)
    p = a + rng.normal(scale=0.3, size=30)
    w = rng.integers(0, 4, 30)
    got = assay.evaluate_regression(a, p, sample_weight=w, bootstrap=200)
    want = assay.evaluate_regression(np.repeat(a, w), np.repeat(p, w), bootstrap=200)
    assert got.to_dict() == want.to_dict()
    with pytest.raises(InvalidInput, match="not a whole number"):
        assay.evaluate_regression(a, p, sample_weight=w + 0.5)
    path = tmp_path / "r.csv"
    path.write_text("a,p,w\n" + "".join(f"{x},{y},{z}\n" for x, y, z in zip(a, p, w)))
    status, out, err = main(["report", str(path), "--truth", "a", "--pred", "p", "--weight", "w", "--format", "json",
                             "--bootstrap", "200"]), *capsys.readouterr()
    assert status == 0, err
    assert json.loads(out)["metrics"]["mse"]["value"] == pytest.approx(got["mse"].value, rel=1e-12)
