"""The precision-recall summaries where the classifier will be used (--prevalence P): each threshold's rates
give the precision TPR pi / (TPR pi + FPR (1 - pi)); ROC curves do not move with the class balance, PR curves do
(Fawcett 2006). Checked against the same data re-weighted to that prevalence (frequency weights), exactly."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

import assay
from assay.cli import main

ASAH = str(Path(__file__).resolve().parent / "data" / "asah.csv")


def _asah():
    with open(ASAH, newline="") as f:
        rows = list(csv.DictReader(f))
    return np.array([r["outcome"] for r in rows]), np.array([float(r["s100b"]) for r in rows])


def test_equals_the_data_reweighted_to_that_prevalence():
    y, s = _asah()
    poor = y == "Poor"
    n_pos, n_neg = int(poor.sum()), int((~poor).sum())  # 41 and 72
    # weights 72 for each positive and 41 x 19 for each negative: 5% positives exactly
    w = np.where(poor, n_neg, n_pos * 19)
    reweighted = assay.rank(y, s, pos_label="Poor", sample_weight=w)
    at = assay.rank(y, s, pos_label="Poor", prevalence=0.05, bootstrap=300)
    assert reweighted.prevalence == pytest.approx(0.05, abs=1e-15)
    assert at.pr_at_prevalence["average_precision"]["value"] == pytest.approx(
        reweighted.average_precision.value, rel=1e-12)
    assert at.pr_at_prevalence["pr_auc"]["value"] == pytest.approx(reweighted.pr_auc.value, rel=1e-12)
    np.testing.assert_allclose(at.pr(prevalence=0.05)["precision"], reweighted.pr()["precision"], rtol=1e-12)
    ci = at.pr_at_prevalence["average_precision"]["ci"]
    assert ci[0] < at.pr_at_prevalence["average_precision"]["value"] < ci[1]
    # at the data's own prevalence, the usual numbers
    own = assay.rank(y, s, pos_label="Poor", prevalence=n_pos / (n_pos + n_neg), bootstrap=300)
    assert own.pr_at_prevalence["average_precision"]["value"] == pytest.approx(own.average_precision.value, rel=1e-12)
    assert assay.rank(y, s).pr_at_prevalence is None


def test_cli_prevalence(capsys):
    status = main(["report", ASAH, "--truth", "outcome", "--score", "s100b", "--prevalence", "0.05",
                   "--bootstrap", "300", "--format", "json"])
    out, err = capsys.readouterr()
    assert status == 0, err
    r = json.loads(out)["ranking"]
    assert r["pr_at_prevalence"]["prevalence"] == 0.05 and r["deployment_prevalence"] == 0.05
    status = main(["report", ASAH, "--truth", "outcome", "--score", "s100b", "--prevalence", "0.05",
                   "--bootstrap", "300"])
    out, err = capsys.readouterr()
    assert "Average precision at prevalence 0.05" in out
