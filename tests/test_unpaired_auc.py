"""Two ROC curves on different instances (pROC's unpaired roc.test), and scores without a threshold compared by
DeLong's test alone.

pROC's own tests (tests/testthat/test-roc.test.R) give D and p for the aSAH markers compared as unpaired curves;
reproduced here to 1e-12 (pROC checks them with expect_equal, relative 1.5e-8).
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
from assay.inference.roc_compare import unpaired_auc_test
from assay.summaries.scores import ScoreCounts

DATA = Path(__file__).resolve().parent / "data"
ASAH = str(DATA / "asah.csv")


def _asah():
    with open(ASAH, newline="") as f:
        rows = list(csv.DictReader(f))
    y = np.array([r["outcome"] for r in rows])
    return y, {c: np.array([float(r[c]) for r in rows]) for c in ("wfns", "s100b", "ndka")}


@pytest.mark.parametrize("first, second, statistic, pvalue", [
    ("wfns", "s100b", 1.43490640926908, 0.152825378808796),
    ("wfns", "ndka", 3.10125096778969, 0.00220950791756457),
    ("ndka", "s100b", -1.55995743389685, 0.120192832430845),
    ("s100b", "wfns", -1.43490640926908, 0.152825378808796),
])
def test_proc_unpaired_delong(first, second, statistic, pvalue):
    y, x = _asah()
    a = assay.evaluate(y, y_score=x[first], pos_label="Poor")
    b = assay.evaluate(y, y_score=x[second], pos_label="Poor")
    c = assay.compare_unpaired(a, b, names=(first, second))
    t = c.tests["delong_unpaired"]
    assert t.statistic == pytest.approx(statistic, rel=1e-12)
    assert t.pvalue == pytest.approx(pvalue, rel=1e-12)
    assert t.difference == pytest.approx(a.ranking.roc_auc.value - b.ranking.roc_auc.value, abs=1e-15)
    assert t.ci.low < t.difference < t.ci.high
    json.dumps(c.to_dict(), allow_nan=False)


def test_bootstrap_unpaired_agrees_with_delong_on_large_samples():
    rng = np.random.default_rng(3)
    y1 = rng.random(3000) < 0.4
    s1 = rng.normal(size=3000) + 1.0 * y1
    y2 = rng.random(2500) < 0.3
    s2 = rng.normal(size=2500) + 0.8 * y2
    sc1, sc2 = ScoreCounts.from_arrays(y1, s1), ScoreCounts.from_arrays(y2, s2)
    d = unpaired_auc_test(sc1, sc2)
    b = unpaired_auc_test(sc1, sc2, method="bootstrap", resamples=1000, seed=1)
    assert b.difference == d.difference
    assert b.se == pytest.approx(d.se, rel=0.1)  # the bootstrap's spread estimates DeLong's standard error
    assert b.pvalue == pytest.approx(d.pvalue, abs=0.05)
    with pytest.raises(InvalidInput, match="method"):
        unpaired_auc_test(sc1, sc2, method="venkatraman")


def test_paired_scores_without_a_threshold_get_delong_alone():
    y, x = _asah()
    c = assay.compare(y, {"s100b": {"y_score": x["s100b"]}, "ndka": {"y_score": x["ndka"]},
                          "wfns": {"y_score": x["wfns"]}}, pos_label="Poor")
    assert c.tests == {} and all(set(p.tests) == {"delong"} for p in c.pairwise)
    two = assay.compare(y, {"y_score": x["s100b"]}, {"y_score": x["ndka"]}, pos_label="Poor")
    assert set(two.tests) == {"delong"}
    # pROC's paired roc.test(r.s100b, r.ndka): the same DeLong test as with a threshold
    at = assay.compare(y, {"y_score": x["s100b"]}, {"y_score": x["ndka"]}, pos_label="Poor", threshold=0.5)
    assert two.tests["delong"].pvalue == at.tests["delong"].pvalue
    with pytest.raises(InvalidInput, match="some models give scores without a threshold"):
        assay.compare(y, {"y_score": x["s100b"]}, np.where(x["s100b"] > 0.2, "Poor", "Good"), pos_label="Poor")


def test_cli_unpaired_scores(tmp_path, capsys):
    y, x = _asah()
    for name, rows in (("c1", slice(0, 60)), ("c2", slice(60, None))):
        (tmp_path / f"{name}.csv").write_text("outcome,wfns\n" + "".join(
            f"{a},{b}\n" for a, b in zip(y[rows], x["wfns"][rows])))
    status = main(["compare", str(tmp_path / "c1.csv"), str(tmp_path / "c2.csv"), "--truth", "outcome", "--score",
                   "wfns", "--unpaired", "--format", "json"])
    out, err = capsys.readouterr()
    assert status == 0, err
    d = json.loads(out)
    assert "delong_unpaired" in d["tests"] and "difference" not in d["tests"]
    status = main(["compare", str(tmp_path / "c1.csv"), str(tmp_path / "c2.csv"), "--truth", "outcome", "--score",
                   "wfns", "--unpaired", "--auc-test", "bootstrap", "--bootstrap", "300"])
    out, err = capsys.readouterr()
    assert status == 0 and "Bootstrap, unpaired: ROC AUC c1 − c2" in out
    status = main(["compare", ASAH, "--truth", "outcome", "--score", "s100b", "--score", "ndka", "--format", "json"])
    out, err = capsys.readouterr()
    assert status == 0 and set(json.loads(out)["tests"]) == {"delong"}
