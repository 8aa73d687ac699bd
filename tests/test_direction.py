"""Which scores mean the positive class (pROC's direction): lower gives exactly the analysis of the negated
scores with every threshold in the scores' own units; auto chooses as pROC does (by the classes' medians) and
says so; an AUC significantly below 0.5 is called inverted. In memory, in batches (spilled too) and on Spark."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import assay
from assay.cli import main
from assay.errors import InvalidInput

ASAH = str(Path(__file__).resolve().parent / "data" / "asah.csv")


def _asah(column="s100b"):
    with open(ASAH, newline="") as f:
        rows = list(csv.DictReader(f))
    return np.array([r["outcome"] for r in rows]), np.array([float(r[column]) for r in rows])


def _plain(d):
    out = json.loads(json.dumps(d))
    out.pop("direction")
    out["notes"] = [n for n in out["notes"] if "iso-performance line" not in n and "inverted" not in n]
    return out


def _flip_thresholds(d):
    """The JSON of a ranking with every threshold negated (the same analysis in the other units)."""
    out = _plain(d)
    for c in out["best_thresholds"].values():
        c["threshold"] = None if c["threshold"] is None else -c["threshold"]
    for key in ("optimal",):
        t = out["iso_performance"][key]["threshold"]
        out["iso_performance"][key]["threshold"] = None if t is None else -t
    if out["operating_point"]:
        out["operating_point"]["threshold"] = -out["operating_point"]["threshold"]
    out["roc_hull"]["thresholds"] = [None if t is None else -t for t in out["roc_hull"]["thresholds"]]
    for p in out["operating_points"] + out["constrained_thresholds"]:
        p["threshold"] = None if p["threshold"] is None else -p["threshold"]
    return out


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(-6, 6)), min_size=6, max_size=40), st.integers(-6, 6))
def test_lower_is_the_negated_scores_in_their_own_units(rows, t):
    y = np.array([r[0] for r in rows])
    y[0], y[1] = True, False
    s = np.array([r[1] for r in rows], dtype=float)  # ties, both signs
    lower = assay.evaluate(y, y_score=s, threshold=float(t), direction="lower", bootstrap=100,
                           at_specificity=[0.5], constraints=["recall>=0.5"])
    negated = assay.evaluate(y, y_score=-s, threshold=float(-t), bootstrap=100, at_specificity=[0.5],
                             constraints=["recall>=0.5"])
    assert lower.threshold == t and lower.direction == "lower"
    assert lower.confusion == negated.confusion
    assert lower.to_dict()["metrics"] == negated.to_dict()["metrics"]
    assert _flip_thresholds(lower.ranking.to_dict()) == _plain(negated.ranking.to_dict())
    # the curves in the scores' units: positive iff score <= threshold
    roc = lower.ranking.roc()
    for threshold, fpr, tpr in zip(roc["threshold"][1:], roc["fpr"][1:], roc["tpr"][1:]):
        assert tpr == pytest.approx((s[y] <= threshold).mean()) and fpr == pytest.approx((s[~y] <= threshold).mean())


def test_asah_lower_and_auto():
    y, s = _asah("s100b")
    lower = assay.evaluate(y, y_score=-s, pos_label="Poor", direction="lower", threshold=-0.205)
    higher = assay.evaluate(y, y_score=s, pos_label="Poor", threshold=0.205)
    assert lower.confusion == higher.confusion and lower.ranking.roc_auc == higher.ranking.roc_auc
    assert lower.ranking.best["youden"].threshold == -higher.ranking.best["youden"].threshold
    assert "predicted positive iff score <= -0.205" in str(lower)
    auto = assay.evaluate(y, y_score=-s, pos_label="Poor", direction="auto")
    assert auto.direction == "lower" and round(auto.ranking.roc_auc.value, 4) == 0.7314
    assert any("as pROC's direction=\"auto\"" in n and "biases the AUC upward" in n for n in auto.notes)
    inverted = assay.rank(y, -s, pos_label="Poor")
    assert any("look inverted" in n for n in inverted.notes)
    with pytest.raises(InvalidInput, match="direction"):
        assay.evaluate(y, y_score=s, direction="down")
    with pytest.raises(InvalidInput, match="direction applies to a score column"):
        assay.evaluate(y, y_proba={"Good": np.ones(len(y)) * 0.5, "Poor": np.ones(len(y)) * 0.5},
                       direction="lower")


@pytest.mark.parametrize("extra", [[], ["--memory", "1KB"]])
def test_cli_direction_streamed_and_spilled(capsys, extra):
    base = ["report", ASAH, "--truth", "outcome", "--score", "s100b", "--threshold", "youden", "--format", "json",
            "--at-specificity", "0.9", "--bootstrap", "200"]
    status = main(base + ["--direction", "lower"] + extra)
    out, err = capsys.readouterr()
    assert status == 0, err
    d = json.loads(out)
    status = main(base + ["--direction", "lower"])
    whole, _ = capsys.readouterr()
    w = json.loads(whole)
    for key in ("threshold", "confusion", "metrics"):
        assert d[key] == w[key]
    assert d["ranking"]["direction"] == "lower" and d["ranking"]["roc_auc"] == w["ranking"]["roc_auc"]
    assert d["ranking"]["operating_points"] == w["ranking"]["operating_points"]
