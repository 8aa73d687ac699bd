"""Costs and the deployment prevalence reach every path (issues 18.5, 18.6, 18.9 and 22.6).

- A two-class cost matrix is the threshold analysis's costs (fp, fn, tp, tn) in memory, in batches and
  spilled, as ``costs=`` gives them; the expected cost of the predictions is one number with one interval,
  Student's t on the per-instance costs (checked against scipy's t quantile on the instances' costs).
- A matrix naming a class the data do not hold is noted; one missing a class of the data is refused.
- Costs near the largest double give finite expected costs (no overflow, no internal error).
- ``--prevalence`` moves the PR curve, the lift chart and the threshold table, each equal to the data
  re-weighted to that prevalence with whole-number frequency weights (as tests/test_prevalence_pr.py); the ROC
  curve and its hull refuse it; the PR chart of the plots and of the HTML page is drawn at it.
"""

from __future__ import annotations

import csv
import io
import json
import math
import warnings

import numpy as np
import pytest
from scipy import stats

import assay
from assay.cli import main
from assay.evaluation.ranking import Costs
from assay.evaluation.stream import evaluate_batches

N = 120


def _data(seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Actual classes good/bad (bad the positive class) and the probability of bad."""
    rng = np.random.default_rng(seed)
    bad = rng.random(N) < 0.45
    p = np.clip(0.35 * bad + rng.normal(0.3, 0.22, N), 0.0, 1.0).round(3)
    return np.where(bad, "bad", "good"), p


MATRIX = {"good": {"good": 0.0, "bad": 1.0}, "bad": {"good": 10.0, "bad": 0.0}}  # a missed 'bad' costs 10


def _write(tmp_path, y, p):
    path = tmp_path / "p.csv"
    path.write_text("y,good,bad\n" + "".join(f"{a},{1 - b:.3f},{b:.3f}\n" for a, b in zip(y, p)))
    costs = tmp_path / "costs.csv"
    costs.write_text("actual,good,bad\ngood,0,1\nbad,10,0\n")
    return path, costs


def _run(args, capsys):
    status = main(args)
    out, err = capsys.readouterr()
    return status, out, err


# 18.5: one cost everywhere ------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["memory", "batches", "spilled"])
def test_a_two_class_cost_matrix_is_the_threshold_analysis_costs(path):
    y, p = _data()
    by_costs = assay.evaluate(y, y_score=p, pos_label="bad", costs={"fp": 1, "fn": 10}, bootstrap=100)
    if path == "memory":
        by_matrix = assay.evaluate(y, y_score=p, pos_label="bad", cost_matrix=MATRIX, bootstrap=100)
        chosen = assay.evaluate(y, y_score=p, pos_label="bad", cost_matrix=MATRIX, threshold="cost", bootstrap=100)
    else:
        parts = [(y[:50], p[:50]), (y[50:], p[50:])]
        memory = 1 if path == "spilled" else None
        by_matrix = evaluate_batches(parts, positive="bad", cost_matrix=MATRIX, bootstrap=100, memory=memory)
        chosen = evaluate_batches(parts, positive="bad", cost_matrix=MATRIX, threshold="cost", bootstrap=100,
                                  memory=memory)
        assert by_matrix.ranking.summary.on_disk == (path == "spilled")
    r = by_matrix.ranking
    assert r.costs == Costs(fp=1.0, fn=10.0, tp=0.0, tn=0.0)
    assert r.best["min_expected_cost"] == by_costs.ranking.best["min_expected_cost"]
    assert r.slope == by_costs.ranking.slope and r.optimal == by_costs.ranking.optimal
    assert r.operating_point.value == pytest.approx(by_matrix["expected_cost"].value, rel=1e-12)
    by_cost = assay.evaluate(y, y_score=p, pos_label="bad", costs={"fp": 1, "fn": 10}, threshold="cost",
                             bootstrap=100)
    assert chosen.threshold == by_cost.threshold != 0.5


def test_the_threshold_free_analysis_takes_the_matrix_too():
    y, p = _data()
    s = 10 * p - 3  # not probabilities: no threshold, the threshold-free analysis
    for result in (assay.evaluate(y, y_score=s, pos_label="bad", cost_matrix=MATRIX, bootstrap=100),
                   evaluate_batches([(y, s)], positive="bad", cost_matrix=MATRIX, bootstrap=100)):
        assert result.threshold is None and result.ranking.costs == Costs(fp=1.0, fn=10.0)


def _t_interval(values, confidence=0.95):
    n = len(values)
    half = stats.t.ppf(0.5 + confidence / 2, n - 1) * values.std(ddof=1) / math.sqrt(n)
    return values.mean() - half, values.mean() + half


def test_the_expected_cost_of_the_predictions_is_one_number_with_one_interval():
    y, p = _data()
    proba = {"good": 1 - p, "bad": p}
    r = assay.evaluate(y, y_proba=proba, cost_matrix=MATRIX, bootstrap=100)
    e = r["expected_cost"]
    assert e.to_dict() == r.cost_decisions["as_predicted"]["cost"]  # the same number, the same interval
    pred = np.where(p >= 0.5, "bad", "good")
    per_instance = np.array([MATRIX[a][b] for a, b in zip(y, pred)])
    assert e.method == "t-mean"
    assert e.value == pytest.approx(per_instance.mean(), rel=1e-12)
    assert list(e.ci) == pytest.approx(_t_interval(per_instance), rel=1e-12)
    # the fp/fn costs give the same estimate as the matrix of those costs
    labels = assay.evaluate(y, pred, pos_label="bad", costs={"fp": 1, "fn": 10}, bootstrap=100)
    assert labels["expected_cost"].to_dict() == e.to_dict()


def test_at_a_deployment_prevalence_the_cost_is_the_stratified_mean_with_welch_degrees_of_freedom():
    y, p = _data()
    pi = 0.2
    pred = np.where(p >= 0.5, "bad", "good")
    r = assay.evaluate(y, y_proba={"good": 1 - p, "bad": p}, cost_matrix=MATRIX, prevalence=pi, bootstrap=100)
    cost = np.array([MATRIX[a][b] for a, b in zip(y, pred)])
    pos, neg = cost[y == "bad"], cost[y == "good"]
    value = pi * pos.mean() + (1 - pi) * neg.mean()
    v_pos, v_neg = pi**2 * pos.var(ddof=1) / len(pos), (1 - pi)**2 * neg.var(ddof=1) / len(neg)
    df = (v_pos + v_neg) ** 2 / (v_pos**2 / (len(pos) - 1) + v_neg**2 / (len(neg) - 1))
    half = stats.t.ppf(0.975, df) * math.sqrt(v_pos + v_neg)
    e = r["expected_cost"]
    assert e.value == pytest.approx(value, rel=1e-12)
    assert list(e.ci) == pytest.approx([value - half, value + half], rel=1e-10)
    assert r.cost_decisions["as_predicted"]["cost"] == e.to_dict()
    assert r.ranking.operating_point.value == pytest.approx(value, rel=1e-12)  # the ranking's cost at pi too


def test_the_report_shows_the_matrix_costs_in_the_thresholds_and_one_interval(tmp_path, capsys):
    y, p = _data()
    path, costs = _write(tmp_path, y, p)
    status, out, err = _run(["report", str(path), "--truth", "y", "--proba", "good,bad", "--cost-matrix", str(costs),
                             "--bootstrap", "100"], capsys)
    assert status == 0, err
    assert "costs: false positive 1, false negative 10" in out
    row = next(line for line in out.splitlines() if line.startswith("Expected cost per instance"))
    assert row.rstrip().endswith("Student's t")
    status, out, err = _run(["report", str(path), "--truth", "y", "--proba", "good,bad", "--cost-matrix", str(costs),
                             "--bootstrap", "100", "--format", "json"], capsys)
    d = json.loads(out)
    assert d["metrics"]["expected_cost"] == d["cost_decisions"]["as_predicted"]["cost"]
    assert d["ranking"]["costs"] == {"fp": 1.0, "fn": 10.0, "tp": 0.0, "tn": 0.0}


# 18.9: classes the data do not hold, and classes missing ------------------------------------------------------


def test_a_matrix_with_a_class_the_data_do_not_hold_is_noted_and_one_missing_a_class_refused(tmp_path, capsys):
    y, p = _data()
    path, _ = _write(tmp_path, y, p)
    extra = tmp_path / "extra.csv"
    extra.write_text("actual,good,bad,other\ngood,0,1,1\nbad,10,0,1\nother,1,1,0\n")
    for options in (["--proba", "good,bad"], ["--score", "bad"]):
        status, out, err = _run(["report", str(path), "--truth", "y", *options, "--cost-matrix", str(extra),
                                 "--bootstrap", "100", "--format", "json"], capsys)
        assert status == 0, err
        d = json.loads(out)
        said = [n for n in d["notes"] if "'other'" in n]
        assert len(said) == 1 and str(extra) in said[0] and "not used" in said[0]
        assert d["ranking"]["costs"]["fn"] == 10.0
    from assay.io.confusion_file import read_cost_matrix

    matrix = read_cost_matrix(str(extra))
    pred = np.where(p >= 0.5, "bad", "good")
    for result in (assay.evaluate(y, pred, cost_matrix=matrix),
                   evaluate_batches([(y, pred)], kind="y_pred", cost_matrix=matrix),
                   assay.evaluate_confusion(assay.evaluate(y, pred).confusion, cost_matrix=matrix)):
        assert any("'other'" in n for n in result.notes)
    missing = tmp_path / "missing.csv"
    missing.write_text("actual,good,other\ngood,0,1\nother,10,0\n")
    status, out, err = _run(["report", str(path), "--truth", "y", "--proba", "good,bad", "--cost-matrix",
                             str(missing)], capsys)
    assert status == 2 and len(err.strip().splitlines()) == 1
    assert "'bad'" in err and str(missing) in err and "Traceback" not in err


# 22.6: costs near the largest double --------------------------------------------------------------------------


def test_costs_near_the_largest_double_give_finite_costs_and_intervals(tmp_path, capsys):
    rng = np.random.default_rng(5)
    n = 90
    y = rng.integers(0, 3, n)
    proba = rng.dirichlet(np.ones(3), n).round(4)
    proba[:, 2] = 1 - proba[:, 0] - proba[:, 1]
    names = np.array(["a", "b", "c"])
    data = tmp_path / "three.csv"
    data.write_text("y,a,b,c\n" + "".join(f"{names[t]},{q[0]},{q[1]},{q[2]}\n" for t, q in zip(y, proba)))
    big = np.array([[0, 1e308, 5e307], [1e308, 0, 1e308], [2e307, 1e308, 0]])
    costs = tmp_path / "big.csv"
    costs.write_text("actual,a,b,c\n" + "".join(f"{names[i]},{','.join(repr(float(v)) for v in row)}\n"
                                                for i, row in enumerate(big)))
    args = ["report", str(data), "--truth", "y", "--proba", "a,b,c", "--cost-matrix", str(costs), "--bootstrap", "100"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no overflow on the way
        status, out, err = _run(args, capsys)
        assert status == 0, err
        assert "Expected cost per instance" in out and "e+307" in out
        status, out, err = _run([*args, "--format", "json"], capsys)
    assert status == 0, err
    d = json.loads(out)
    made = proba.argmax(axis=1)
    scale = 1e300  # the oracle, in a scale that cannot overflow either
    scaled = big / scale
    bayes = (proba @ scaled).argmin(axis=1)
    assert d["metrics"]["expected_cost"]["value"] == pytest.approx(scaled[y, made].mean() * scale, rel=1e-12)
    assert d["metrics"]["expected_cost"]["ci"] is not None and None not in d["metrics"]["expected_cost"]["ci"]
    difference = d["cost_decisions"]["difference"]
    assert (bayes != made).any()
    assert difference["value"] == pytest.approx((scaled[y, bayes] - scaled[y, made]).mean() * scale, rel=1e-9)
    assert difference["ci"] is not None and difference["note"] is None
    # two classes: the threshold analysis, too
    y2, p2 = _data()
    path, _ = _write(tmp_path, y2, p2)
    huge = tmp_path / "huge.csv"
    huge.write_text("actual,good,bad\ngood,0,1e308\nbad,1.7e308,0\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        status, out, err = _run(["report", str(path), "--truth", "y", "--proba", "good,bad", "--cost-matrix",
                                 str(huge), "--bootstrap", "100", "--format", "json"], capsys)
    assert status == 0, err
    d = json.loads(out)
    assert d["ranking"]["best_thresholds"]["min_expected_cost"]["value"] is not None
    assert d["ranking"]["operating_point"]["value"] == pytest.approx(d["metrics"]["expected_cost"]["value"],
                                                                     rel=1e-12)


# 18.6: the prevalence moves the PR curve, the lift chart and the threshold table --------------------------------


def _reweighted(y, s, pi_num=1, pi_den=10, **options):
    """The data re-weighted to a prevalence pi_num / pi_den with whole-number weights."""
    bad = y == "bad"
    n_pos, n_neg = int(bad.sum()), int((~bad).sum())
    w = np.where(bad, n_neg * pi_num, n_pos * (pi_den - pi_num))
    return assay.rank(y, y_score=s, pos_label="bad", sample_weight=w, **options)


def _csv(text):
    rows = list(csv.DictReader(io.StringIO(text)))
    return {k: np.array([float(r[k]) if r[k] != "" else np.nan for r in rows]) for k in rows[0]}


def test_curves_at_a_prevalence_equal_the_data_reweighted(tmp_path, capsys):
    y, p = _data()
    path, _ = _write(tmp_path, y, p)
    reweighted = _reweighted(y, p, costs={"fp": 1, "fn": 10})
    base = ["curves", str(path), "--truth", "y", "--score", "bad", "--prevalence", "0.1"]
    status, out, err = _run([*base, "--kind", "pr"], capsys)
    assert status == 0, err
    np.testing.assert_allclose(_csv(out)["precision"], reweighted.pr()["precision"], rtol=1e-12)
    status, out, err = _run([*base, "--kind", "lift"], capsys)
    got, want = _csv(out), reweighted.lift_curve()
    for column in ("depth", "gains", "lift"):
        np.testing.assert_allclose(got[column], want[column], rtol=1e-12)
    status, out, err = _run([*base, "--kind", "thresholds", "--costs", "fp=1,fn=10"], capsys)
    assert status == 0, err
    got, want = _csv(out), reweighted.threshold_table()
    for column in ("recall", "fpr", "precision", "npv", "accuracy", "f1", "mcc", "expected_cost",
                   "predicted_positive"):
        np.testing.assert_allclose(got[column], want[column], rtol=1e-10, atol=1e-15, err_msg=column)
    assert got["tp"].sum() == pytest.approx(assay.rank(y, y_score=p, pos_label="bad").threshold_table()["tp"].sum())
    # the API: the same curves from the analysis
    r = assay.rank(y, y_score=p, pos_label="bad", prevalence=0.1)
    np.testing.assert_allclose(r.pr(prevalence=0.1)["precision"], reweighted.pr()["precision"], rtol=1e-12)
    np.testing.assert_allclose(r.lift_curve(prevalence=0.1)["depth"], reweighted.lift_curve()["depth"], rtol=1e-12)


def test_spilled_curves_at_a_prevalence_equal_the_whole():
    y, p = _data()
    spilled = evaluate_batches([(y[:60], p[:60]), (y[60:], p[60:])], positive="bad", memory=1,
                               prevalence=0.1, bootstrap=100).ranking
    whole = assay.rank(y, y_score=p, pos_label="bad", prevalence=0.1)
    assert spilled.summary.on_disk
    for kind, method in (("pr", whole.pr), ("lift", whole.lift_curve)):
        chunks = list(spilled.curve_chunks(kind, prevalence=0.1))
        want = method(prevalence=0.1)
        for column in want:
            np.testing.assert_allclose(np.concatenate([c[column] for c in chunks]), want[column], rtol=1e-12)
    chunks = list(spilled.curve_chunks("thresholds", prevalence=0.1))
    np.testing.assert_allclose(np.concatenate([c["precision"] for c in chunks]),
                               whole.threshold_table(prevalence=0.1)["precision"], rtol=1e-12)


@pytest.mark.parametrize("args, flag", [
    (["--kind", "roc", "--prevalence", "0.1"], "--prevalence"),
    (["--kind", "hull", "--prevalence", "0.1"], "--prevalence"),
    (["--kind", "roc", "--costs", "fp=1,fn=2"], "--costs"),
    (["--kind", "lift", "--costs", "fp=1,fn=2"], "--costs"),
    (["--kind", "pr", "--at", "0.5"], "--at"),
])
def test_curves_refuse_what_they_do_not_take(tmp_path, capsys, args, flag):
    y, p = _data()
    path, _ = _write(tmp_path, y, p)
    status, out, err = _run(["curves", str(path), "--truth", "y", "--score", "bad", *args], capsys)
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1 and flag in err


def test_curves_of_several_classes_refuse_the_options_of_two(tmp_path, capsys):
    data = tmp_path / "three.csv"
    data.write_text("y,a,b,c\n" + "a,0.7,0.2,0.1\nb,0.2,0.5,0.3\nc,0.1,0.2,0.7\na,0.4,0.4,0.2\nc,0.3,0.3,0.4\n")
    for extra in (["--prevalence", "0.1"], ["--costs", "fp=1,fn=2"], ["--roc-bins", "4"], ["--positive", "a"]):
        status, out, err = _run(["curves", str(data), "--truth", "y", "--proba", "a,b,c", "--kind", "pr", *extra],
                                capsys)
        assert status == 2 and len(err.strip().splitlines()) == 1 and extra[0] in err


def test_the_pr_chart_is_drawn_at_the_prevalence_given(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from assay.report.plots import plot_pr

    y, p = _data()
    r = assay.rank(y, y_score=p, pos_label="bad", prevalence=0.1, bootstrap=100)
    ax = plot_pr(r, Figure().subplots())
    curve, baseline = ax.get_lines()[0], ax.get_lines()[1]
    np.testing.assert_allclose(curve.get_ydata()[1:], r.pr(prevalence=0.1)["precision"], rtol=1e-12)
    assert list(baseline.get_ydata()) == [0.1, 0.1] and "given" in baseline.get_label()
    assert f"{r.pr_at_prevalence['average_precision']['value']:.3f}" in curve.get_label()
    path, _ = _write(tmp_path, y, p)
    page = tmp_path / "r.html"
    status, out, err = _run(["report", str(path), "--truth", "y", "--score", "bad", "--prevalence", "0.1",
                             "--bootstrap", "100", "--html", str(page)], capsys)
    assert status == 0, err
    html = page.read_text()
    assert "baseline: prevalence 0.100 (given)" in html
    assert f"average precision {r.pr_at_prevalence['average_precision']['value']:.3f} at prevalence 0.1" in html
