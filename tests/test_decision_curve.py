"""Decision curves (issue 21, item 2): net benefit against the ``dcurves`` package, the bootstrap against a
bootstrap of the rows, the same curve in memory, in batches, spilled and on Spark, and every refusal.

On Spark's executors: tests/test_spark_folds.py (its quantile test asks for the curve). Tolerances: the net
benefit, treat-all and net interventions avoided equal ``dcurves.dca`` to 1e-12 (the same formulas, sums taken
in another order); the intervals of the count bootstrap and of a row bootstrap (4,000
resamples each, different random streams) agree to 0.006 on each bound (Monte Carlo error, about 0.1 of the
intervals' width here); every path of assay gives the same curve to the last bit (the same counts and the same
seeded draws).
"""

from __future__ import annotations

import json

import dcurves  # the reference (in the test extra)
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import assay
from assay.cli import main
from assay.errors import InvalidInput
from assay.evaluation.stream import evaluate_batches
from assay.inference.decision import decision_curve
from assay.metrics.decision import (
    DecisionBinsFold,
    check_thresholds_range,
    threshold_grid,
)
from assay.metrics.ranking import walk_summary
from assay.summaries.scores import ScoreCounts


def _data(seed: int, n: int = 600, digits: int = 2, positives: float = 0.35):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < positives).astype(int)
    p = np.round(np.clip(rng.beta(2, 4, n) + 0.3 * y, 0, 1), digits)  # ties, and values on the thresholds
    return y, p


def _dca(y, p, thresholds, prevalence=None):
    frame = pd.DataFrame({"y": y, "m": p})
    out = dcurves.dca(data=frame, outcome="y", modelnames=["m"], thresholds=thresholds, prevalence=prevalence,
                      nper=100)
    model = out[out.model == "m"].sort_values("threshold")
    everyone = out[out.model == "all"].sort_values("threshold")
    return model, everyone


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), digits=st.sampled_from([1, 2, 3]),
       case_control=st.booleans())
def test_net_benefit_equals_dcurves(seed, digits, case_control):
    y, p = _data(seed, n=300, digits=digits)
    if y.min() == y.max():
        return
    grid = threshold_grid(0.01, 0.99, 0.01)
    prevalence = 0.1 if case_control else None
    r = assay.evaluate(y, y_score=p, net_benefit=True, bootstrap=100, prevalence=prevalence)
    d = r.net_benefit
    model, everyone = _dca(y, p, grid, prevalence)
    np.testing.assert_allclose(d.thresholds, model.threshold.to_numpy(), rtol=0, atol=0)
    np.testing.assert_allclose(d.model, model.net_benefit.to_numpy(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(d.treat_all, everyone.net_benefit.to_numpy(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(d.avoided, model.net_intervention_avoided.to_numpy(), rtol=0, atol=1e-9)


def test_the_standard_example_of_dcurves_and_its_published_shape():
    """dcurves' own example data (its cancer outcome and the cancerpredmarker probabilities)."""
    import os

    frame = pd.read_csv(os.path.join(dcurves.data, "df_binary.csv"))
    y, p = frame["cancer"].to_numpy(), frame["cancerpredmarker"].to_numpy()
    grid = threshold_grid(0.0, 0.35, 0.01)
    r = assay.evaluate(y, y_score=p, thresholds_range=(0.0, 0.35, 0.01), bootstrap=200)
    model, everyone = _dca(y, p, grid)
    np.testing.assert_allclose(r.net_benefit.model, model.net_benefit.to_numpy(), atol=1e-12)
    np.testing.assert_allclose(r.net_benefit.treat_all, everyone.net_benefit.to_numpy(), atol=1e-12)
    assert r.net_benefit.model[0] == pytest.approx(y.mean())  # pt = 0: every instance treated, no harm
    cases = pd.read_csv(os.path.join(dcurves.data, "df_case_control.csv"))  # its case-control example
    y, p = cases["casecontrol"].to_numpy(), cases["cancerpredmarker"].to_numpy()
    r = assay.evaluate(y, y_score=p, thresholds_range=(0.0, 0.35, 0.01), prevalence=0.2, bootstrap=200)
    model, everyone = _dca(y, p, grid, prevalence=0.2)
    np.testing.assert_allclose(r.net_benefit.model, model.net_benefit.to_numpy(), atol=1e-12)
    np.testing.assert_allclose(r.net_benefit.treat_all, everyone.net_benefit.to_numpy(), atol=1e-12)


def test_the_count_bootstrap_is_a_bootstrap_of_the_rows():
    y, p = _data(3, n=400)
    grid = np.array([0.1, 0.2, 0.3, 0.5])
    r = assay.evaluate(y, y_score=p, thresholds_range=(0.1, 0.5, 0.1), bootstrap=4000, seed=5)
    d = r.net_benefit
    keep = np.isin(np.round(d.thresholds, 12), grid)
    rng = np.random.default_rng(11)
    rows = rng.integers(0, len(y), size=(4000, len(y)))
    yy, pp = y[rows], p[rows]
    n = len(y)
    replicates = np.stack([((pp >= t) & (yy == 1)).sum(axis=1) / n - ((pp >= t) & (yy == 0)).sum(axis=1) / n
                           * t / (1 - t) for t in grid], axis=1)
    low, high = np.quantile(replicates, [0.025, 0.975], axis=0)
    band = d.interval("model")
    np.testing.assert_allclose(band[0][keep], low, atol=0.006)
    np.testing.assert_allclose(band[1][keep], high, atol=0.006)
    assert np.all(band[0] <= d.model) and np.all(d.model <= band[1])


def test_a_case_control_bootstrap_keeps_each_class_and_the_given_prevalence():
    pos, neg = np.array([2.0, 3.0, 15.0]), np.array([20.0, 6.0, 4.0])
    d = decision_curve(pos, neg, np.array([0.2, 0.4]), prevalence=0.05, resamples=500, seed=2)
    assert d.prevalence == 0.05 and d.prevalence_given
    assert "each class apart" in d.method
    # the standardized net benefit is the net benefit over the (fixed) prevalence, bounds included
    np.testing.assert_allclose(d.standardized, d.model / 0.05)
    np.testing.assert_allclose(d.interval("standardized")[0], d.interval("model")[0] / 0.05)


def test_the_fold_counts_the_bins_as_the_rows_do():
    y, p = _data(4, n=500)
    grid = threshold_grid(0.05, 0.95, 0.05)
    pos, neg = walk_summary(ScoreCounts.from_arrays(y, p), [DecisionBinsFold(tuple(grid.tolist()))])[0]
    bins = np.searchsorted(grid, p, side="right")
    np.testing.assert_array_equal(pos, np.bincount(bins[y == 1], minlength=len(grid) + 1))
    np.testing.assert_array_equal(neg, np.bincount(bins[y == 0], minlength=len(grid) + 1))


def test_in_memory_in_batches_spilled_and_the_cli_agree(spill_dir, tmp_path, capsys):
    y, p = _data(5, n=6000, digits=4)
    want = assay.evaluate(y, y_score=p, net_benefit=True, costs={"fp": 1, "fn": 9}).to_dict()["net_benefit"]
    parts = [(y[a:a + 700], p[a:a + 700]) for a in range(0, len(y), 700)]
    batched = evaluate_batches(parts, net_benefit=True, costs={"fp": 1, "fn": 9}, memory=32 << 20)
    spilled = evaluate_batches(parts, net_benefit=True, costs={"fp": 1, "fn": 9}, memory=100_000)
    assert spilled.ranking.summary.on_disk
    for other in (batched, spilled):
        assert other.to_dict()["net_benefit"] == want
    path = tmp_path / "preds.csv"
    path.write_text("y,p\n" + "\n".join(f"{a},{b}" for a, b in zip(y, p)) + "\n")
    out = tmp_path / "r.json"
    assert main(["report", str(path), "--truth", "y", "--score", "p", "--net-benefit", "--costs", "fp=1,fn=9",
                 "--format", "json", "-o", str(out)]) == 0
    assert json.loads(out.read_text())["net_benefit"] == json.loads(json.dumps(want))
    capsys.readouterr()


def test_costs_are_a_threshold_probability():
    y, p = _data(6)
    r = assay.evaluate(y, y_score=p, net_benefit=True, costs={"fp": 1, "fn": 4})
    d = r.net_benefit
    assert d.at_costs.thresholds[0] == pytest.approx(0.2)
    i = int(np.flatnonzero(np.isclose(d.thresholds, 0.2))[0])
    assert d.at_costs.model[0] == pytest.approx(d.model[i], abs=1e-15)
    assert r.to_dict()["net_benefit"]["at_costs"]["costs"] == {"fp": 1.0, "fn": 4.0, "tp": 0.0, "tn": 0.0}
    shifted = assay.evaluate(y, y_score=p, net_benefit=True, costs={"fp": 3, "fn": 4, "tn": 2, "tp": 1}).net_benefit
    assert shifted.at_costs.thresholds[0] == pytest.approx(0.25)  # (fp - tn) / ((fp - tn) + (fn - tp))


def test_weights_that_are_not_counts_give_the_curve_without_intervals():
    y, p = _data(7, n=200)
    w = np.linspace(0.5, 1.5, len(y))
    d = assay.evaluate(y, y_score=p, net_benefit=True, sample_weight=w).net_benefit
    assert d.intervals is None and "weighted" in d.interval_note
    tp = np.array([(w * ((p >= t) & (y == 1))).sum() for t in d.thresholds])
    fp = np.array([(w * ((p >= t) & (y == 0))).sum() for t in d.thresholds])
    np.testing.assert_allclose(d.model, tp / w.sum() - fp / w.sum() * d.thresholds / (1 - d.thresholds),
                               atol=1e-12)


def test_string_labels_and_a_chosen_positive():
    y, p = _data(8)
    labels = np.where(y == 1, "sick", "well")
    got = assay.evaluate(labels, y_score=p, positive="sick", net_benefit=True, bootstrap=100).net_benefit
    np.testing.assert_allclose(got.model, assay.evaluate(y, y_score=p, net_benefit=True, bootstrap=100)
                               .net_benefit.model)


def test_refusals_name_the_option():
    y, p = _data(9)
    with pytest.raises(InvalidInput, match="net_benefit.*scores range from 0 to 10"):
        assay.evaluate(y, y_score=p * 10, threshold=5, net_benefit=True)
    with pytest.raises(InvalidInput, match="net_benefit.*scores range from"):
        assay.evaluate(y, y_score=p * 10, net_benefit=True)  # no threshold: the threshold-free path
    with pytest.raises(InvalidInput, match="lower scores mean the positive class"):
        assay.evaluate(y, y_score=1 - p, direction="lower", threshold=0.5, net_benefit=True)
    with pytest.raises(InvalidInput, match="net_benefit= applies to two-class scores, not to predicted labels"):
        assay.evaluate(y, (p > 0.5).astype(int), net_benefit=True)
    for bad in ((0.5, 1.0), (0.3, 0.2), (0.1, 0.5, 0.0), ("a", "b"), (0.1,)):
        with pytest.raises(InvalidInput, match="thresholds_range"):
            check_thresholds_range(bad)


def test_the_command_line_refuses_with_one_line(tmp_path, capsys):
    y, p = _data(10, n=100)
    path = tmp_path / "preds.csv"
    path.write_text("y,p,s,q\n" + "\n".join(f"{a},{b},{b * 10},{1 - b:.2f}" for a, b in zip(y, p)) + "\n")
    cases = [(["--score", "s", "--threshold", "5", "--net-benefit"], "--net-benefit: the decision curve needs"),
             (["--score", "p", "--thresholds-range", "0.1,1"], "--thresholds-range: must be"),
             (["--score", "p", "--thresholds-range", "x"], "--thresholds-range: 'x' is not"),
             (["--pred", "y", "--net-benefit"], "--net-benefit applies to two-class scores")]
    for args, message in cases:
        assert main(["report", str(path), "--truth", "y", *args]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and message in err, err


def test_the_report_shows_a_compact_table_a_sentence_and_the_chart(tmp_path):
    y, p = _data(11, n=800)
    r = assay.evaluate(y, y_score=p, net_benefit=True, costs={"fp": 1, "fn": 9})
    text = str(r)
    assert "Decision curve: net benefit (Vickers & Elkin 2006)" in text and "0.1 (costs)" in text
    table = [line for line in text.split("Decision curve")[1].split("\n\n")[0].splitlines()
             if line[:1].isdigit() or line.startswith("threshold probability ")]
    assert 5 <= len(table) < 12 and max(len(line) for line in table) <= 100
    assert r.net_benefit.verdict() in text
    assert "treating everyone and treating no one" in r.net_benefit.verdict()
    from assay.report.html import render_html
    from assay.report.markdown import render_markdown
    from assay.report.plots import save_plots
    assert "Decision curve" in render_html(r) and "Decision curve" in render_markdown(r)
    written = save_plots(r, tmp_path / "plots")
    assert any(path.endswith("decision.svg") for path in written)


def test_brief_gives_the_sentence(tmp_path, capsys):
    y, p = _data(12, n=300)
    path = tmp_path / "preds.csv"
    path.write_text("y,p\n" + "\n".join(f"{a},{b}" for a, b in zip(y, p)) + "\n")
    assert main(["report", str(path), "--truth", "y", "--score", "p", "--net-benefit", "--brief"]) == 0
    assert "net benefit exceeds" in capsys.readouterr().out


# ----------------------------------------------------------------------------------- two models: compare


def _two(seed: int, n: int = 2000):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(int)
    good = np.round(np.clip(rng.beta(2, 4, n) + 0.35 * y, 0, 1), 3)
    weak = np.round(np.clip(rng.beta(2, 4, n) + 0.1 * y, 0, 1), 3)
    return y, good, weak


def test_the_paired_difference_is_a_paired_bootstrap_of_the_rows():
    y, a, b = _two(20, n=500)
    c = assay.compare(y, {"y_score": a}, {"y_score": b}, names=["a", "b"], thresholds_range=(0.1, 0.5, 0.1),
                      bootstrap=4000, seed=3)
    d = c.net_benefit_differences[0]
    np.testing.assert_allclose(d.a, c.reports[0].net_benefit.model, atol=1e-15)
    np.testing.assert_allclose(d.b, c.reports[1].net_benefit.model, atol=1e-15)
    rng = np.random.default_rng(12)
    rows = rng.integers(0, len(y), size=(4000, len(y)))
    yy, aa, bb = y[rows], a[rows], b[rows]

    def nb(s, t):
        return ((s >= t) & (yy == 1)).mean(axis=1) - ((s >= t) & (yy == 0)).mean(axis=1) * t / (1 - t)

    replicates = np.stack([nb(aa, t) - nb(bb, t) for t in d.thresholds], axis=1)
    low, high = np.quantile(replicates, [0.025, 0.975], axis=0)
    np.testing.assert_allclose(d.interval[0], low, atol=0.006)
    np.testing.assert_allclose(d.interval[1], high, atol=0.006)


def test_compare_in_memory_in_batches_and_on_the_command_line_agree(tmp_path, capsys):
    y, a, b = _two(21)
    whole = assay.compare(y, {"y_score": a}, {"y_score": b}, net_benefit=True, bootstrap=300)
    parts = [(y[i:i + 300], [a[i:i + 300], b[i:i + 300]]) for i in range(0, len(y), 300)]
    batched = assay.compare_batches(parts, net_benefit=True, bootstrap=300)
    want = whole.to_dict()["net_benefit_difference"]
    assert batched.to_dict()["net_benefit_difference"] == want
    assert batched.reports[0].to_dict()["net_benefit"] == whole.reports[0].to_dict()["net_benefit"]
    assert "significantly higher" in whole.net_benefit_differences[0].verdict()
    text = str(whole)
    assert "Decision curves: net benefit of A − B" in text and whole.net_benefit_differences[0].verdict() in text
    parts_dir = tmp_path / "parts"
    parts_dir.mkdir()
    for k in range(2):
        rows = slice(k * 1000, (k + 1) * 1000)
        (parts_dir / f"{k}.csv").write_text("y,A,B\n" + "\n".join(f"{u},{v},{w}" for u, v, w in
                                                                  zip(y[rows], a[rows], b[rows])) + "\n")
    out = tmp_path / "c.json"
    assert main(["compare", str(parts_dir), "--truth", "y", "--score", "A", "--score", "B", "--net-benefit",
                 "--bootstrap", "300", "--format", "json", "-o", str(out)]) == 0
    assert json.loads(out.read_text())["net_benefit_difference"] == json.loads(json.dumps(want))
    capsys.readouterr()


def test_compare_refuses_labels_and_unpaired_files(tmp_path, capsys):
    y, a, b = _two(22, n=200)
    with pytest.raises(InvalidInput, match="B gives predicted labels"):
        assay.compare(y, {"y_score": a}, (b > 0.5).astype(int), net_benefit=True)
    with pytest.raises(InvalidInput, match="these models give predicted labels"):
        assay.compare_batches([(y, [(a > 0.5).astype(int), (b > 0.5).astype(int)])], kind="y_pred",
                              net_benefit=True)
    for name, s in (("a.csv", a), ("b.csv", b)):
        (tmp_path / name).write_text("y,p\n" + "\n".join(f"{u},{v}" for u, v in zip(y, s)) + "\n")
    assert main(["compare", str(tmp_path / "a.csv"), str(tmp_path / "b.csv"), "--truth", "y", "--score", "p",
                 "--unpaired", "--net-benefit"]) == 2
    assert capsys.readouterr().err.strip().startswith("assay: error: --net-benefit applies to paired models")


def test_compare_on_spark_equals_memory(spark):
    y, a, b = _two(23, n=1500)
    frame = spark.createDataFrame(pd.DataFrame({"y": y, "a": a, "b": b})).repartition(3)
    from assay.spark import compare as spark_compare
    got = spark_compare(frame, truth="y", scores=["a", "b"], net_benefit=True, bootstrap=300)
    want = assay.compare(y, {"y_score": a}, {"y_score": b}, names=["a", "b"], net_benefit=True, bootstrap=300)
    assert got.to_dict()["net_benefit_difference"] == want.to_dict()["net_benefit_difference"]
