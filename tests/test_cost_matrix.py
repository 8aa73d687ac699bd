"""A k x k cost matrix (rows actual, columns predicted): the expected cost of the predictions with its interval,
and with probabilities the decisions of least expected cost (the Bayes decision) against those made; checked
by direct computation on random data (exactly, or to 1e-12)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import assay
from assay.cli import main
from assay.errors import InvalidInput

NAMES = np.array(["low", "mid", "high"])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([2, 3]))
def test_expected_cost_of_labels_and_the_bayes_decision(seed, k):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 80))
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)
    proba = rng.dirichlet(np.ones(k), n)
    costs = rng.integers(0, 10, (k, k)).astype(float)
    labels = list(NAMES[:k])
    mapping = {labels[i]: {labels[j]: costs[i, j] for j in range(k)} for i in range(k)}
    r = assay.evaluate(NAMES[y], y_proba={labels[j]: proba[:, j] for j in range(k)}, cost_matrix=mapping,
                       bootstrap=200)
    if k == 2:
        p = labels.index(r.positive)
        pred = np.where(proba[:, p] >= 0.5, p, 1 - p)
    else:
        pred = proba.argmax(axis=1)
    assert r["expected_cost"].value == pytest.approx(costs[y, pred].mean(), rel=1e-12, abs=1e-12)
    bayes = (proba @ costs).argmin(axis=1)
    d = r.cost_decisions
    assert d["least_expected_cost"]["cost"]["value"] == pytest.approx(costs[y, bayes].mean(), rel=1e-12, abs=1e-12)
    assert d["as_predicted"]["cost"]["value"] == pytest.approx(costs[y, pred].mean(), rel=1e-12, abs=1e-12)
    assert d["least_expected_cost"]["changed"] == int((bayes != pred).sum())
    json.dumps(r.to_dict(), allow_nan=False)


def test_two_classes_match_the_fp_fn_costs_and_a_matrix_file_in_any_order(tmp_path):
    y = [0, 0, 1, 1, 1, 0, 1, 0, 0, 1]
    p = [0, 1, 1, 0, 1, 0, 1, 1, 0, 1]
    by_costs = assay.evaluate(y, p, costs={"fp": 2, "fn": 7}, bootstrap=200)
    by_matrix = assay.evaluate(y, p, cost_matrix=[[0, 2], [7, 0]], bootstrap=200)
    assert by_matrix["expected_cost"].value == pytest.approx(by_costs["expected_cost"].value, rel=1e-15)
    mapping = assay.evaluate(y, p, cost_matrix={1: {1: 0, 0: 7}, 0: {0: 0, 1: 2}}, bootstrap=200)
    assert mapping["expected_cost"] == by_matrix["expected_cost"]
    from assay.io.confusion_file import read_cost_matrix

    path = tmp_path / "c.csv"
    path.write_text("actual,1,0,9\n1,0,7,1\n0,2,0,1\n9,1,1,0\n")  # another order, and a class the data lack
    filed = assay.evaluate(y, p, cost_matrix=read_cost_matrix(str(path)), bootstrap=200)
    assert filed["expected_cost"] == by_matrix["expected_cost"]
    m = assay.evaluate_confusion([[3, 2], [1, 4]], cost_matrix=[[0, 2], [7, 0]])
    assert m["expected_cost"].value == pytest.approx((2 * 2 + 7 * 1) / 10)


@pytest.mark.parametrize("matrix, message", [
    ([[0, 1], [1, 0]], "has shape (2, 2), but the data have 3 classes"),
    ({"low": {"low": 0}}, "has no cost for actual 'high' predicted 'high'"),
    ([[0, 1, np.inf], [1, 0, 1], [1, 1, 0]], "is not a finite number"),
])
def test_bad_matrices(matrix, message):
    with pytest.raises(InvalidInput, match=message.replace("(", r"\(").replace(")", r"\)")):
        assay.evaluate(["low", "mid", "high"], ["low", "mid", "mid"], cost_matrix=matrix)
    with pytest.raises(InvalidInput, match="not both"):
        assay.evaluate([0, 1], [0, 1], costs={"fp": 1, "fn": 2}, cost_matrix=[[0, 1], [2, 0]])


def test_cli_cost_matrix(tmp_path, capsys):
    rng = np.random.default_rng(1)
    n = 120
    y = rng.integers(0, 3, n)
    proba = rng.dirichlet([2, 2, 2], n)
    proba[np.arange(n), y] += 0.4
    proba /= proba.sum(axis=1, keepdims=True)
    data = tmp_path / "p.csv"
    data.write_text("y,low,mid,high,pred\n" + "".join(
        f"{NAMES[a]},{b[0]},{b[1]},{b[2]},{NAMES[b.argmax()]}\n" for a, b in zip(y, proba)))
    costs = tmp_path / "costs.csv"
    costs.write_text("actual,high,low,mid\nlow,10,0,1\nmid,1,1,0\nhigh,0,5,1\n")
    matrix = np.array([[0, 1, 10], [1, 0, 1], [5, 1, 0]], dtype=float)
    status = main(["report", str(data), "--truth", "y", "--proba", "low,mid,high", "--cost-matrix", str(costs),
                   "--format", "json", "--bootstrap", "200"])
    out, err = capsys.readouterr()
    assert status == 0, err
    d = json.loads(out)
    assert d["metrics"]["expected_cost"]["value"] == pytest.approx(matrix[y, proba.argmax(axis=1)].mean(), rel=1e-12)
    assert d["cost_decisions"]["least_expected_cost"]["cost"]["value"] == pytest.approx(
        matrix[y, (proba @ matrix).argmin(axis=1)].mean(), rel=1e-12)
    base = ["report", str(data), "--truth", "y", "--pred", "pred", "--cost-matrix", str(costs), "--format", "json",
            "--bootstrap", "200"]
    main(base)
    whole = json.loads(capsys.readouterr()[0])
    status = main(base + ["--memory", "1KB"])
    streamed = json.loads(capsys.readouterr()[0])
    assert status == 0 and streamed["metrics"]["expected_cost"] == whole["metrics"]["expected_cost"]
    status = main(["report", str(data), "--truth", "y", "--proba", "low,mid,high", "--cost-matrix", str(costs)])
    out, err = capsys.readouterr()
    assert "Decisions of least expected cost" in out
    bad = tmp_path / "bad.csv"
    bad.write_text("actual,low,mid\nlow,0,1\nmid,1,0\n")
    for extra, message in ((["--cost-matrix", str(bad)], "no row and column for the class 'high'"),
                           (["--cost-matrix", str(costs), "--costs", "fp=1,fn=2"], "not both")):
        status = main(["report", str(data), "--truth", "y", "--pred", "pred", *extra])
        out, err = capsys.readouterr()
        assert status == 2 and message in err and len(err.strip().splitlines()) == 1


def test_batches_equal_the_whole_for_several_classes_and_scores(tmp_path, capsys):
    rng = np.random.default_rng(8)
    n = 400
    y = rng.integers(0, 3, n)
    proba = rng.dirichlet([2, 2, 2], n)
    proba[np.arange(n), y] += 0.3
    proba /= proba.sum(axis=1, keepdims=True)
    data = tmp_path / "p.csv"
    data.write_text("y,low,mid,high,s\n" + "".join(
        f"{NAMES[a]},{b[0]},{b[1]},{b[2]},{b[2]}\n" for a, b in zip(y, proba)))
    costs = tmp_path / "costs.csv"
    costs.write_text("actual,low,mid,high\nlow,0,1,10\nmid,1,0,1\nhigh,5,1,0\n")
    base = ["report", str(data), "--truth", "y", "--proba", "low,mid,high", "--cost-matrix", str(costs),
            "--top-k", "2", "--format", "json", "--bootstrap", "200"]
    assert main(base) == 0
    whole = json.loads(capsys.readouterr()[0])
    assert main(base + ["--memory", "1KB"]) == 0
    batches = json.loads(capsys.readouterr()[0])
    assert batches["metrics"]["top_k_accuracy"] == whole["metrics"]["top_k_accuracy"]
    assert batches["metrics"]["expected_cost"] == whole["metrics"]["expected_cost"]
    for key in ("least_expected_cost", "as_predicted"):
        a, b = batches["cost_decisions"][key], whole["cost_decisions"][key]
        assert a["cost"]["value"] == pytest.approx(b["cost"]["value"], rel=1e-12)
        assert a["cost"]["ci"] == pytest.approx(b["cost"]["ci"], rel=1e-9)
    assert batches["cost_decisions"]["least_expected_cost"]["confusion"] == \
        whole["cost_decisions"]["least_expected_cost"]["confusion"]
    # two classes' scores in batches: the expected cost of the thresholded predictions
    two = tmp_path / "two.csv"
    two.write_text("y,s\n" + "".join(f"{int(a == 2)},{b[2]}\n" for a, b in zip(y, proba)))
    pair = tmp_path / "pair.csv"
    pair.write_text("actual,0,1\n0,0,1\n1,7,0\n")
    base = ["report", str(two), "--truth", "y", "--score", "s", "--cost-matrix", str(pair), "--format", "json",
            "--bootstrap", "200"]
    assert main(base) == 0
    whole = json.loads(capsys.readouterr()[0])
    assert main(base + ["--memory", "1KB"]) == 0
    assert json.loads(capsys.readouterr()[0])["metrics"]["expected_cost"] == whole["metrics"]["expected_cost"]
