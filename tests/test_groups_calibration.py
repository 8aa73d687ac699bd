"""Calibration by group (issue 21, items 1 and 3): each group's calibration intercept and slope tested (Holm over
the groups), a table by group in the text, Markdown and HTML, and charts of O/E and the slope by group.

References and tolerances: each group's intercept and slope and their p-values equal statsmodels' GLM (logit(p) as
offset; logit(p) as covariate, the slope's Wald test of 1) to 1e-6; Holm's adjustment equals a direct step-down
written here, exactly; a group's row in the table is its own report's estimates, as the text rounds them.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import statsmodels.api as sm
from scipy.stats import norm

import assay
from assay.cli import main
from assay.report.group_plots import group_range, plot_metric_by_group


def _data(n: int = 2400, seed: int = 3):
    """Groups 'a' and 'b' calibrated (y drawn from p); 'c' too high (its p shifted up on the logit scale); 'd'
    probabilities 0 and 1 only (outside the logistic models)."""
    rng = np.random.default_rng(seed)
    g = rng.choice(["a", "b", "c"], n)
    p = 1.0 / (1.0 + np.exp(-rng.normal(-0.5, 1.2, n)))
    y = (rng.random(n) < p).astype(int)
    shown = np.where(g == "c", 1.0 / (1.0 + np.exp(-(np.log(p / (1 - p)) + 1.2))), p)
    d = np.array([0, 1, 1, 0, 1, 0, 0, 1, 1, 0])
    return (np.concatenate([g, ["d"] * len(d)]), np.concatenate([y, d]),
            np.round(np.concatenate([shown, d.astype(float)]), 6))


def _holm(p: list[float]) -> list[float]:
    order = sorted(range(len(p)), key=lambda i: p[i])
    out, running = [0.0] * len(p), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[i]))
        out[i] = running
    return out


def test_each_groups_intercept_and_slope_are_tested_and_holm_adjusted_together():
    g, y, p = _data()
    r = assay.evaluate(y, y_score=p, threshold=0.5, by=g, bootstrap=200)
    tests = {(t["group"], t["test"]): t for t in r.calibration_tests}
    assert {group for group, _ in tests} == {"a", "b", "c", "d"}
    for label in "abc":
        rows = g == label
        x = np.log(p[rows] / (1 - p[rows]))
        offset = sm.GLM(y[rows], np.ones((rows.sum(), 1)), family=sm.families.Binomial(), offset=x).fit(tol=1e-14)
        free = sm.GLM(y[rows], sm.add_constant(x), family=sm.families.Binomial()).fit(tol=1e-14)
        slope_p = 2 * norm.sf(abs((free.params[1] - 1) / free.bse[1]))
        assert tests[label, "intercept"]["estimate"] == pytest.approx(offset.params[0], abs=1e-6)
        assert tests[label, "intercept"]["pvalue"] == pytest.approx(offset.pvalues[0], rel=1e-6, abs=1e-300)
        assert tests[label, "slope"]["estimate"] == pytest.approx(free.params[1], abs=1e-6)
        assert tests[label, "slope"]["pvalue"] == pytest.approx(slope_p, rel=1e-6)
        h = r[label].probabilistic.hierarchy  # the group's own report's
        assert tests[label, "slope"]["pvalue"] == h.slope_pvalue and tests[label, "slope"]["ci"] == \
            [h.slope.ci.low, h.slope.ci.high]
    # 'd': probabilities 0 and 1 only: no fit, no p-value, outside the family Holm adjusts
    assert tests["d", "intercept"]["pvalue"] is None and tests["d", "intercept"]["pvalue_holm"] is None
    assert tests["d", "slope"]["note"].startswith("undefined")
    made = [t for t in r.calibration_tests if t["pvalue"] is not None]
    assert [t["pvalue_holm"] for t in made] == pytest.approx(_holm([t["pvalue"] for t in made]), rel=1e-15)
    off = {(t["group"], t["test"]) for t in r.significant_calibration()}
    assert ("c", "intercept") in off and not {("a", "intercept"), ("b", "intercept")} & off
    got = json.loads(json.dumps(r.to_dict()))["group_calibration_tests"]
    assert [t["pvalue_holm"] for t in got] == [t["pvalue_holm"] for t in r.calibration_tests]


def test_the_table_and_the_words(tmp_path, capsys):
    g, y, p = _data()
    path = tmp_path / "preds.csv"
    path.write_text("y,p,site\n" + "\n".join(f"{a},{float(b)!r},{c}" for a, b, c in zip(y, p, g)) + "\n")
    assert main(["report", str(path), "--truth", "y", "--score", "p", "--by", "site", "--bootstrap", "200"]) == 0
    text = capsys.readouterr().out
    table = text.split("Calibration by group")[1].split("\n\n")[0]
    r = assay.evaluate(y, y_score=p, threshold=0.5, by={"site": g}, bootstrap=200)
    row = next(line for line in table.splitlines() if line.startswith("c "))
    h = r["c"].probabilistic.hierarchy
    assert f"{r['c'].probabilistic.brier.value:.3f}" in row and f"{h.observed_expected.value:.3f}" in row
    assert f"{h.intercept.value:.3f} ({h.intercept.ci.low:.3f} – {h.intercept.ci.high:.3f})" in row
    assert f"{r['c'].probabilistic.calibration.ece * 100:.1f}%" in row
    d_row = next(line for line in table.splitlines() if line.startswith("d "))
    assert d_row.split()[-4:-2] == ["—", "—"] and "1.000 (" in d_row  # no fit; O/E 5/5 with its interval
    words = text.split("In words")[1]
    assert "significantly miscalibrated" in words and "c (too high on average" in words
    assert "a (" not in words.split("miscalibrated")[1].split(".")[0]
    # --brief keeps the words, not the table; --calibration none keeps the Brier score alone
    assert main(["report", str(path), "--truth", "y", "--score", "p", "--by", "site", "--bootstrap", "200",
                 "--brief"]) == 0
    brief = capsys.readouterr().out
    assert "Calibration by group" not in brief and "c (too high on average" in brief
    assert main(["report", str(path), "--truth", "y", "--score", "p", "--by", "site", "--bootstrap", "200",
                 "--calibration", "none"]) == 0
    bare = capsys.readouterr().out
    assert "Brier score by group" in bare and "miscalibrated" not in bare
    assert main(["report", str(path), "--truth", "y", "--score", "p", "--by", "site", "--bootstrap", "200",
                 "--format", "markdown"]) == 0
    assert "## Calibration by group" in capsys.readouterr().out
    assert main(["report", str(path), "--truth", "y", "--score", "p", "--by", "site", "--bootstrap", "200",
                 "--format", "csv"]) == 0
    tested = [line.split(",") for line in capsys.readouterr().out.splitlines() if ",calibration_test," in line]
    assert [(row[0], row[2]) for row in tested] == [(t["group"], t["test"]) for t in r.calibration_tests]
    assert tested[0][-1].startswith("pvalue=") and "pvalue_holm=" in tested[0][-1]
    html = tmp_path / "r.html"
    assert main(["report", str(path), "--truth", "y", "--score", "p", "--by", "site", "--bootstrap", "200",
                 "--html", str(html)]) == 0
    capsys.readouterr()
    page = html.read_text()
    assert "Calibration slope by group" in page and "Observed / expected events by group" in page
    assert "ideal (1)" in page


def test_labels_alone_have_no_calibration_by_group(capsys):
    g, y, p = _data(n=600)
    r = assay.evaluate(y, (p >= 0.5).astype(int), by=g, bootstrap=200)
    assert r.calibration_tests == () and r.to_dict()["group_calibration_tests"] == []
    assert "Calibration by group" not in str(r) and "Brier" not in str(r)


def test_the_slope_chart_shows_its_ideal():
    pytest.importorskip("matplotlib")
    g, y, p = _data(n=1500)
    r = assay.evaluate(y, y_score=p, threshold=0.5, by=g, bootstrap=200)
    ax = plot_metric_by_group(r, "calibration_slope")
    low, high = ax.get_ylim()
    assert low < 1.0 < high
    assert [line.get_gid() for line in ax.get_lines()].count("ideal") == 1
    values = [t["estimate"] for t in r.calibration_tests if t["test"] == "slope" and t["estimate"] is not None]
    assert low < min(values) and max(values) < high
    assert group_range("accuracy", []) == (0.0, 1.0)


def test_an_ece_without_its_interval_says_why():
    g, y, p = _data(n=12_000)  # more distinct (probability, class) cells than the ECE's bootstrap affords
    r = assay.evaluate(y, y_score=p, threshold=0.5, by=g, bootstrap=200)
    assert r.overall.probabilistic.calibration.ece_interval.low is None
    table = str(r).split("Calibration by group")[1].split("\n\n")[0]
    assert "an ECE without an interval: more than" in " ".join(table.split())


def test_one_class_of_several_by_group():
    rng = np.random.default_rng(5)
    z = rng.normal(size=(1500, 3))
    proba = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    y = np.array(["x", "y", "z"])[[rng.choice(3, p=q) for q in proba]]
    g = rng.choice(["a", "b"], 1500)
    r = assay.evaluate(y, y_proba=proba, labels=["x", "y", "z"], by=g, calibration_class="y", bootstrap=200)
    assert {t["group"] for t in r.calibration_tests} == {"a", "b"}
    assert r.calibration_tests[0]["pvalue"] == r["a"].probabilistic.hierarchy.intercept_pvalue
    text = str(r)
    assert "Calibration by group of class 'y'" in text and "Brier (all classes)" in text
    plain = str(assay.evaluate(y, y_proba=proba, labels=["x", "y", "z"], by=g, bootstrap=200))
    assert "Calibration by group\n" in plain and "O/E" not in plain.split("Calibration by group")[1].split("\n\n")[0]
