"""Weighted kappa for ordered classes: linear and quadratic weights by the classes' positions 1..k, with the
Fleiss, Cohen & Everitt (1969) standard errors, checked against statsmodels' cohens_kappa (the same formulas as
SAS's PROC FREQ) and scikit-learn's cohen_kappa_score(weights=) to 1e-10 on many random tables."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import cohens_kappa

import assay
from assay.cli import main
from assay.errors import InvalidInput
from assay.inference.kappa import weighted_kappa_test

TOL = 1e-10


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 6).flatmap(lambda k: st.lists(st.integers(0, 30), min_size=k * k, max_size=k * k)),
       st.sampled_from(["linear", "quadratic"]))
def test_against_statsmodels_and_scikit_learn(cells, weights):
    k = int(round(len(cells) ** 0.5))
    table = np.array(cells).reshape(k, k)
    if table.sum() == 0 or (table.sum(axis=0) > 0).sum() < 2 or (table.sum(axis=1) > 0).sum() < 2:
        return  # a single class on a side: kappa is degenerate (checked below)
    r = weighted_kappa_test(table, weights=weights)
    sm = cohens_kappa(table, wt=weights)
    if not np.isfinite(sm.kappa):
        assert not np.isfinite(r.kappa)
        return
    assert r.kappa == pytest.approx(sm.kappa, abs=TOL)
    assert r.se == pytest.approx(np.sqrt(max(sm.var_kappa, 0.0)), abs=TOL) or r.se == 0.0
    assert r.se_null == pytest.approx(np.sqrt(sm.var_kappa0), abs=TOL)
    y = np.repeat(np.repeat(np.arange(k)[:, None], k, 1).ravel(), table.ravel())
    p = np.repeat(np.tile(np.arange(k), k), table.ravel())
    assert r.kappa == pytest.approx(cohen_kappa_score(y, p, weights=weights), abs=TOL)


def test_in_evaluate_with_ordered_labels_and_an_empty_class():
    y = [1, 2, 3, 4, 5, 5, 4, 3, 2, 1, 3, 3]
    p = [1, 2, 4, 4, 5, 4, 4, 2, 2, 1, 3, 5]
    r = assay.evaluate(y, p, labels=[1, 2, 3, 4, 5, 6], kappa_weights="quadratic")  # 6: never seen
    table = r.confusion.counts
    sm = cohens_kappa(table, wt="quadratic")
    assert r["weighted_kappa"].value == pytest.approx(sm.kappa, abs=TOL)
    assert r["weighted_kappa"].ci.low == pytest.approx(sm.kappa_low, abs=TOL)
    assert r.tests["weighted_kappa"].weights == "quadratic"
    d = r.to_dict()
    json.dumps(d, allow_nan=False)
    assert d["tests"]["weighted_kappa"]["weights"] == "quadratic"
    assert "Weighted kappa" in str(r)
    # string labels weigh by their sorted order; labels= gives the order wanted
    names = np.array(["low", "mid", "high"])
    a = assay.evaluate(names[[0, 1, 2, 2, 1, 0]], names[[0, 2, 2, 1, 1, 0]], labels=["low", "mid", "high"],
                       kappa_weights="linear")
    assert a.labels == ("low", "mid", "high")
    assert a["weighted_kappa"].value == pytest.approx(
        cohen_kappa_score([0, 1, 2, 2, 1, 0], [0, 2, 2, 1, 1, 0], weights="linear"), abs=TOL)


def test_binary_and_weights_and_matrix():
    r = assay.evaluate([0, 0, 1, 1, 1], [0, 1, 1, 1, 0], kappa_weights="linear")
    assert r["weighted_kappa"].value == pytest.approx(r["kappa"].value, abs=TOL)  # two classes: the same
    w = assay.evaluate([1, 2, 3, 3, 2, 1], [1, 3, 3, 2, 2, 1], kappa_weights="linear",
                       sample_weight=[0.5, 1, 2, 1, 1, 1])
    assert w["weighted_kappa"].ci is None and w["weighted_kappa"].value == pytest.approx(
        cohen_kappa_score([1, 2, 3, 3, 2, 1], [1, 3, 3, 2, 2, 1], weights="linear",
                          sample_weight=[0.5, 1, 2, 1, 1, 1]), abs=TOL)
    m = assay.evaluate_confusion([[10, 2, 0], [3, 8, 2], [0, 1, 9]], kappa_weights="quadratic")
    assert m["weighted_kappa"].value == pytest.approx(cohens_kappa(np.array([[10, 2, 0], [3, 8, 2], [0, 1, 9]]),
                                                                   wt="quadratic").kappa, abs=TOL)
    with pytest.raises(InvalidInput, match="kappa_weights"):
        assay.evaluate([0, 1, 1], [0, 1, 0], kappa_weights="cubic")


def test_cli(tmp_path, capsys):
    path = tmp_path / "p.csv"
    rng = np.random.default_rng(0)
    y = rng.integers(1, 6, 200)
    p = np.clip(y + rng.integers(-1, 2, 200), 1, 5)
    path.write_text("y,p\n" + "".join(f"{a},{b}\n" for a, b in zip(y, p)))
    status = main(["report", str(path), "--truth", "y", "--pred", "p", "--kappa-weights", "quadratic",
                   "--format", "json"])
    out, err = capsys.readouterr()
    assert status == 0, err
    whole = json.loads(out)
    assert whole["metrics"]["weighted_kappa"]["value"] == pytest.approx(
        cohen_kappa_score(y, p, weights="quadratic"), abs=TOL)
    status = main(["report", str(path), "--truth", "y", "--pred", "p", "--kappa-weights", "quadratic",
                   "--format", "json", "--memory", "1KB"])
    out, err = capsys.readouterr()
    assert status == 0 and json.loads(out)["metrics"]["weighted_kappa"] == whole["metrics"]["weighted_kappa"]
    status = main(["report", str(path), "--truth", "y", "--pred", "p", "--kappa-weights", "cubic"])
    out, err = capsys.readouterr()
    assert status == 2 and "--kappa-weights" in err
