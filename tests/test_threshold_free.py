"""Scores that are not probabilities, without a threshold: the threshold-free analysis (pROC's first command),
and thresholds chosen on the data by a criterion, including the least expected cost.

pROC's aSAH data (``tests/data/asah.csv``; see tests/data/README.md): s100b for a Poor outcome has
AUC 0.7314 with DeLong's 95% interval 0.6301-0.8326 (pROC's ``ci.auc``), to the 4 decimals pROC prints.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

import assay
from assay.cli import main
from assay.errors import InvalidInput

DATA = Path(__file__).resolve().parent / "data"
ASAH = str(DATA / "asah.csv")


def _asah(column: str = "s100b") -> tuple[np.ndarray, np.ndarray]:
    with open(ASAH, newline="") as f:
        rows = list(csv.DictReader(f))
    return np.array([r["outcome"] for r in rows]), np.array([float(r[column]) for r in rows])


def run(argv, capsys):
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_asah_without_a_threshold_gives_the_threshold_free_report():
    y, s = _asah()
    r = assay.evaluate(y, y_score=s, pos_label="Poor")
    assert not r.thresholded and r.threshold is None and r.confusion is None
    assert round(r.ranking.roc_auc.value, 4) == 0.7314
    assert [round(b, 4) for b in r.ranking.roc_auc.ci] == [0.6301, 0.8326]
    assert r.n == 113 and r.labels == ("Good", "Poor") and r.per_class["Poor"]["support"] == 41
    assert round(r["prevalence"].value, 6) == round(41 / 113, 6) and r["prevalence"].ci is not None
    assert r["accuracy"].value is None and "no threshold" in r["accuracy"].note
    assert r.tests == {}
    assert any(note.startswith("no threshold: the scores are not probabilities") for note in r.notes)
    d = r.to_dict()
    json.dumps(d, allow_nan=False)
    # every key of a full report is there, undefined where it needs predicted labels
    full = assay.evaluate(y, y_score=s, pos_label="Poor", threshold=0.2).to_dict()
    assert d.keys() == full.keys()
    assert d["metrics"].keys() == full["metrics"].keys()
    assert d["confusion"].keys() == full["confusion"].keys() and set(d["confusion"].values()) == {None}
    assert d["per_class"]["Poor"].keys() == full["per_class"]["Poor"].keys()
    assert d["averages"].keys() == full["averages"].keys()
    assert d["ranking"]["roc_auc"] == full["ranking"]["roc_auc"]
    assert d["ranking"]["operating_point"] is None
    text = str(r)
    assert "no threshold" in text and "Confusion matrix" not in text and "ROC AUC" in text
    assert len(r.to_frame()) > 0


def test_probabilities_keep_their_default_threshold():
    r = assay.evaluate([0, 1, 0, 1], y_score=[0.2, 0.7, 0.6, 0.9])
    assert r.thresholded and r.threshold == 0.5


def test_the_ranking_is_the_one_at_any_threshold():
    y, s = _asah("ndka")
    free = assay.evaluate(y, y_score=s, pos_label="Poor")
    given = assay.evaluate(y, y_score=s, pos_label="Poor", threshold=10.0)
    a, b = free.ranking.to_dict(), given.ranking.to_dict()
    for d in (a, b):  # the operating point, and in ROC space where it lies
        d.pop("operating_point"), d["references"].pop("inverted_operating_point", None)
    assert a == b


def test_weights_without_a_threshold():
    y, s = _asah()
    w = np.where(y == "Poor", 2, 1)
    r = assay.evaluate(y, y_score=s, pos_label="Poor", sample_weight=w)
    repeated = assay.evaluate(np.repeat(y, w), y_score=np.repeat(s, w), pos_label="Poor")
    assert r.n == repeated.n == 154
    assert r.ranking.roc_auc == repeated.ranking.roc_auc


@pytest.mark.parametrize("costs, prevalence", [(None, None), ({"fp": 1, "fn": 5}, None), ({"fp": 2, "fn": 1}, 0.1)])
def test_threshold_cost_is_the_least_expected_cost_on_the_curve(costs, prevalence):
    y, s = _asah()
    r = assay.evaluate(y, y_score=s, pos_label="Poor", threshold="cost", costs=costs, prevalence=prevalence)
    c = {"fp": 1.0, "fn": 1.0, **(costs or {})}
    pi = prevalence if prevalence is not None else 41 / 113
    # the direct computation: every distinct score as a threshold, positive iff score >= t
    best = None
    poor = y == "Poor"
    for t in np.unique(np.r_[s, np.inf]):
        tpr = (s[poor] >= t).mean()
        fpr = (s[~poor] >= t).mean()
        cost = pi * (1 - tpr) * c["fn"] + (1 - pi) * fpr * c["fp"]
        if best is None or cost < best[0] - 1e-12 or (abs(cost - best[0]) <= 1e-12 and t > best[1]):
            best = (cost, t)
    got_cost = r.ranking.best["min_expected_cost"].value
    assert got_cost == pytest.approx(best[0], abs=1e-12)
    assert r.threshold == r.ranking.best["min_expected_cost"].threshold
    assert any("least expected cost" in note and "optimistic" in note for note in r.notes)


def test_cli_without_a_threshold(capsys, tmp_path):
    status, out, err = run(["report", ASAH, "--truth", "outcome", "--score", "s100b", "--format", "json"], capsys)
    assert status == 0, err
    d = json.loads(out)
    assert d["threshold"] is None and d["confusion"]["actual_by_predicted"] is None
    assert round(d["ranking"]["roc_auc"]["value"], 4) == 0.7314
    assert any("--threshold T, or youden, closest or cost" in note for note in d["notes"])
    status, out, err = run(["report", ASAH, "--truth", "outcome", "--score", "s100b", "--brief"], capsys)
    assert status == 0 and "ROC AUC" in out and "no threshold" in out
    html, plots = tmp_path / "r.html", tmp_path / "plots"
    status, out, err = run(["report", ASAH, "--truth", "outcome", "--score", "s100b", "--html", str(html),
                            "--plots", str(plots)], capsys)
    assert status == 0, err
    assert "Threshold explorer" in html.read_text() and not (plots / "confusion.svg").exists()
    assert (plots / "roc.svg").exists()


def test_cli_streamed_without_a_threshold_equals_in_memory(capsys):
    base = ["report", ASAH, "--truth", "outcome", "--score", "s100b", "--format", "json"]
    _, whole, _ = run(base, capsys)
    status, streamed, err = run(base + ["--memory", "1KB"], capsys)
    assert status == 0, err
    a, b = json.loads(whole), json.loads(streamed)
    for key in ("n", "threshold", "confusion", "metrics", "per_class", "averages", "tests"):
        assert a[key] == b[key], key
    assert a["ranking"]["roc_auc"] == b["ranking"]["roc_auc"]


def test_cli_threshold_cost(capsys):
    status, out, err = run(["report", ASAH, "--truth", "outcome", "--score", "s100b", "--threshold", "cost",
                            "--costs", "fp=1,fn=5", "--format", "json"], capsys)
    assert status == 0, err
    d = json.loads(out)
    assert d["threshold"] == d["ranking"]["best_thresholds"]["min_expected_cost"]["threshold"]
    status, out, err = run(["report", ASAH, "--truth", "outcome", "--score", "s100b", "--threshold", "cheap"], capsys)
    assert status == 2 and "neither a number nor youden, closest or cost" in err


def test_a_criterion_that_is_not_one_is_refused():
    y, s = _asah()
    with pytest.raises(InvalidInput, match="neither a number nor one of"):
        assay.evaluate(y, y_score=s, threshold="best")
