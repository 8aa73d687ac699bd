"""Partial AUC on either axis, raw and standardised (McClish), with bootstrap intervals, as pROC's auc() and
ci.auc() with partial.auc, partial.auc.focus and partial.auc.correct.

The expected values are those of pROC's own tests (tests/testthat/test-auc.R) on its aSAH data (wfns and ndka for
a Poor outcome; pROC's ranges are in specificity, assay's fpr_range in 1 - specificity). pROC checks them with
testthat's expect_equal (relative 1.5e-8); here to 1e-12.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

import assay
from assay.cli import main
from assay.metrics.ranking import partial_auc_sensitivity, threshold_counts
from assay.summaries.scores import ScoreCounts

ASAH = str(Path(__file__).resolve().parent / "data" / "asah.csv")

# (marker, pROC's range, focus) -> (area, McClish's standardised area or None where pROC gives NA)
PROC = {
    ("wfns", (0.9, 1.0), "sp"): (0.0334417344173442, 0.649693339038653),
    ("wfns", (0.8, 0.9), "sp"): (0.0598373983739837, 0.763749402199904),
    ("wfns", (0.0, 0.5), "sp"): (0.488134475939354, 0.952537903757416),
    ("wfns", (0.0, 1.0), "sp"): (0.823678861788618, 0.823678861788618),
    ("ndka", (0.9, 1.0), "sp"): (0.0107046070460705, 0.530024247610897),
    ("ndka", (0.8, 0.9), "sp"): (0.0277777777777778, 0.575163398692811),
    ("ndka", (0.0, 0.5), "sp"): (0.416836043360434, 0.667344173441734),
    ("wfns", (0.9, 1.0), "se"): (0.0400999322493225, 0.68473648552275),
    ("wfns", (0.8, 0.9), "se"): (0.0609953703703703, 0.770561002178649),
    ("wfns", (0.0, 0.5), "se"): (0.483358739837398, 0.933434959349593),
    ("ndka", (0.9, 1.0), "se"): (0.0037940379403794, None),
    ("ndka", (0.8, 0.9), "se"): (0.0242547425474255, 0.554439662043679),
    ("ndka", (0.0, 0.5), "se"): (0.428523035230352, 0.714092140921409),
    ("ndka", (0.0, 1.0), "se"): (0.611957994579946, 0.611957994579946),
}


def _asah(column: str):
    with open(ASAH, newline="") as f:
        rows = list(csv.DictReader(f))
    return np.array([r["outcome"] for r in rows]), np.array([float(r[column]) for r in rows])


@pytest.mark.parametrize("key", list(PROC), ids=lambda k: f"{k[0]}-{k[1][0]}-{k[1][1]}-{k[2]}")
def test_proc_partial_auc(key):
    marker, (a, b), focus = key
    y, s = _asah(marker)
    if focus == "sp":
        part = assay.rank(y, s, pos_label="Poor", fpr_range=(1 - b, 1 - a), bootstrap=100).partial_auc
    else:
        part = assay.rank(y, s, pos_label="Poor", sensitivity_range=(a, b), bootstrap=100).partial_auc_sensitivity
    area, standardized = PROC[key]
    assert part["value"] == pytest.approx(area, rel=1e-12, abs=1e-15)
    if standardized is None:
        assert part["standardized"] is None and "below the diagonal" in part["note"]
    else:
        assert part["standardized"] == pytest.approx(standardized, rel=1e-12)
    assert part["ci"][0] <= part["value"] <= part["ci"][1]


def test_bootstrap_interval_matches_resampling_the_instances():
    y, s = _asah("wfns")
    part = assay.rank(y, s, pos_label="Poor", sensitivity_range=(0.8, 1.0), bootstrap=3000, seed=2)\
        .partial_auc_sensitivity
    rng = np.random.default_rng(11)
    poor, good = s[y == "Poor"], s[y == "Good"]
    reps = []
    for _ in range(3000):
        a, b = rng.choice(poor, len(poor)), rng.choice(good, len(good))
        labels = np.r_[np.ones(len(a), bool), np.zeros(len(b), bool)]
        tc = threshold_counts(ScoreCounts.from_arrays(labels, np.r_[a, b]))
        reps.append(partial_auc_sensitivity(tc, 0.8, 1.0))
    low, high = np.quantile(reps, [0.025, 0.975])
    assert part["ci"][0] == pytest.approx(low, abs=0.01)
    assert part["ci"][1] == pytest.approx(high, abs=0.01)


def test_weights_give_no_interval():
    y, s = _asah("wfns")
    part = assay.rank(y, s, pos_label="Poor", sensitivity_range=(0.8, 1.0),
                      sample_weight=np.where(y == "Poor", 0.5, 1.0)).partial_auc_sensitivity
    assert part["ci"] is None and "not counts" in part["note"]


def test_cli_sensitivity_range(capsys, tmp_path):
    status = main(["report", ASAH, "--truth", "outcome", "--score", "wfns", "--positive", "Poor",
                   "--sensitivity-range", "0.9,1", "--fpr-range", "0,0.1", "--bootstrap", "200", "--format", "json"])
    out, err = capsys.readouterr()
    assert status == 0, err
    r = json.loads(out)["ranking"]
    assert r["partial_auc_sensitivity"]["value"] == pytest.approx(0.0400999322493225, rel=1e-12)
    assert r["partial_auc"]["value"] == pytest.approx(0.0334417344173442, rel=1e-12)
    status = main(["report", ASAH, "--truth", "outcome", "--score", "wfns", "--sensitivity-range", "0.9,1"])
    out, err = capsys.readouterr()
    assert status == 0 and "Partial AUC, sensitivity 0.9-1" in out and "standardized (McClish)" in out
    status = main(["report", ASAH, "--truth", "outcome", "--score", "wfns", "--sensitivity-range", "0.9,1.5",
                   "-o", str(tmp_path / "x.json")])
    out, err = capsys.readouterr()
    assert status == 2 and "--sensitivity-range" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x.json").exists()
