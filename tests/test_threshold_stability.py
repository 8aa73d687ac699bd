"""The stability of a threshold chosen on the data (--threshold youden|closest|cost): its stratified percentile
bootstrap interval and the sensitivity and specificity at the threshold re-chosen in each resample, as pROC's
ci.coords(x = "best").

Oracles: each resample expanded to rows and the threshold chosen again with scikit-learn's ``roc_curve``
(every distinct score, ``drop_intermediate=False``) and the criterion written out here (argmax of TPR - FPR,
argmin of the distance to (0, 1), argmin of the expected cost; the first point within 1e-12 of the best, the
rule of ``choice_of``); the intervals are ``np.quantile`` (linear) of those choices. pROC's point on aSAH's
s100b (Youden): sensitivity 0.6341, specificity 0.8056 (pROC's ``coords(r, "best")``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_curve

import assay
from assay.cli import main
from assay.evaluation import threshold_stability as module
from assay.evaluation.costs import Costs
from assay.evaluation.operating_points import WEIGHTED
from assay.evaluation.stream import evaluate_batches
from assay.evaluation.threshold_stability import (
    BEYOND_MEMORY,
    ONE_CLASS,
    ONE_SCORE,
    threshold_ends,
    threshold_stability,
)
from assay.inference.bootstrap import BootstrapSettings
from assay.summaries.scores import ScoreCounts

ASAH = str(Path(__file__).resolve().parent / "data" / "asah.csv")


def resamples(sc: ScoreCounts, b: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The stratified resamples as counts per distinct score: a multinomial draw of each class over the
    distinct scores (the distribution of a bootstrap of the rows; the draws of a seed in one chunk)."""
    rng = np.random.default_rng(seed)
    cp, cn = np.asarray(sc.positives), np.asarray(sc.negatives)
    pos = rng.multinomial(int(cp.sum()), cp / cp.sum(), size=b)
    neg = rng.multinomial(int(cn.sum()), cn / cn.sum(), size=b)
    return pos, neg


def reference_choice(y: np.ndarray, s: np.ndarray, criterion: str, costs: Costs, prevalence: float):
    """(threshold, sensitivity, specificity) that ``criterion`` picks on scikit-learn's ROC curve."""
    fpr, tpr, thr = roc_curve(y, s, drop_intermediate=False)
    thr = thr.astype(np.float64)
    thr[0] = np.inf  # the origin (scikit-learn >= 1.3 says inf too)
    if criterion == "youden":
        values, best = tpr - fpr, np.max
    elif criterion == "closest":
        values, best = np.sqrt(fpr**2 + (1.0 - tpr) ** 2), np.min
    else:  # the expected cost per instance (Fawcett 2006, with tp and tn costs)
        values = prevalence * (tpr * costs.tp + (1 - tpr) * costs.fn) + (1 - prevalence) * (fpr * costs.fp
                                                                                            + (1 - fpr) * costs.tn)
        best = np.min
    target = best(values)
    i = int(np.flatnonzero(np.abs(values - target) <= 1e-12 * max(1.0, abs(target)))[0])
    n_neg = np.sum(y == 0)
    return thr[i], tpr[i], (n_neg - np.round(fpr[i] * n_neg)) / n_neg  # tn / (tn + fp), as the metrics count it


def ends(confidence):
    """The quantiles of a percentile interval, as assay computes them (alpha = 1 - c)."""
    alpha = 1.0 - confidence
    return [alpha / 2.0, 1.0 - alpha / 2.0]


@st.composite
def cases(draw):
    n_pos, n_neg = draw(st.integers(1, 25)), draw(st.integers(1, 25))
    levels = draw(st.integers(2, 12))  # few levels: many ties
    pos = draw(st.lists(st.integers(0, levels), min_size=n_pos, max_size=n_pos))
    neg = draw(st.lists(st.integers(0, levels), min_size=n_neg, max_size=n_neg))
    y = np.array([1] * n_pos + [0] * n_neg)
    s = np.array(pos + neg, dtype=np.float64) / levels
    criterion = draw(st.sampled_from(["youden", "closest", "cost"]))
    costs = Costs(fp=draw(st.sampled_from([1.0, 2.0, 0.5])), fn=draw(st.sampled_from([1.0, 5.0, 3.0])))
    prevalence = draw(st.sampled_from([None, 0.1, 0.5]))
    return y, s, criterion, costs, prevalence, draw(st.integers(0, 2**31))


@settings(max_examples=40, deadline=None)
@given(cases())
def test_each_resample_chooses_the_threshold_scikit_learns_curve_gives(case):
    y, s, criterion, costs, prevalence, seed = case
    sc = ScoreCounts.from_arrays(y == 1, s)
    if len(sc) < 2:
        return
    b = 25
    r = threshold_stability(criterion, sc, costs=costs, prevalence=prevalence, confidence=0.9,
                            settings=BootstrapSettings(b, seed))
    pi = prevalence if prevalence is not None else y.mean()
    pos, neg = resamples(sc, b, seed)
    want = []
    for k in range(b):
        rows_y = np.concatenate([np.ones(pos[k].sum(), dtype=int), np.zeros(neg[k].sum(), dtype=int)])
        rows_s = np.concatenate([np.repeat(sc.scores, pos[k]), np.repeat(sc.scores, neg[k])])
        want.append(reference_choice(rows_y, rows_s, criterion, costs, pi))
    thresholds, sens, spec = (np.array(column) for column in zip(*want))
    np.testing.assert_array_equal(r.replicates, thresholds)
    # the point: the same rule on the data
    point = reference_choice(y, s, criterion, costs, pi)
    assert (r.threshold.value, r.sensitivity.value, r.specificity.value) == pytest.approx(point, abs=1e-15)
    assert r.same == np.mean(thresholds == point[0])
    # the intervals: np.quantile of the re-chosen values, as every percentile interval in assay
    if np.all(np.isfinite(thresholds)):
        assert tuple(r.threshold.ci) == tuple(np.quantile(thresholds, ends(0.9)))
    assert tuple(r.sensitivity.ci) == pytest.approx(tuple(np.quantile(sens, ends(0.9))), abs=1e-15)
    assert tuple(r.specificity.ci) == pytest.approx(tuple(np.quantile(spec, ends(0.9))), abs=1e-15)


def test_the_interval_is_the_quantiles_of_the_rechosen_thresholds():
    rng = np.random.default_rng(4)
    y = rng.random(400) < 0.4
    s = np.round(rng.normal(size=400) + y, 1)
    r = threshold_stability("youden", ScoreCounts.from_arrays(y, s), confidence=0.95,
                            settings=BootstrapSettings(500, 7))
    assert len(r.replicates) == 500 and np.all(np.isfinite(r.replicates))
    assert tuple(r.threshold.ci) == tuple(np.quantile(r.replicates, ends(0.95)))
    assert r.threshold.ci.low <= r.threshold.value <= r.threshold.ci.high
    assert r.same == np.mean(r.replicates == r.threshold.value)
    wider = threshold_stability("youden", ScoreCounts.from_arrays(y, s), confidence=0.99,
                                settings=BootstrapSettings(500, 7))
    assert wider.threshold.ci.low <= r.threshold.ci.low and wider.threshold.ci.high >= r.threshold.ci.high


def test_an_infinite_replicate_is_the_end_it_interpolates_towards():
    assert tuple(threshold_ends(np.array([1.0, 2.0, np.inf]), 0.5)) == (1.5, np.inf)
    assert tuple(threshold_ends(np.array([-np.inf, 1.0, 2.0]), 0.5)) == (-np.inf, 1.5)
    assert tuple(threshold_ends(np.array([np.inf] * 3), 0.9)) == (np.inf, np.inf)
    values = np.arange(10.0)
    assert tuple(threshold_ends(values, 0.8)) == tuple(np.quantile(values, ends(0.8)))


def test_lower_scores_give_the_thresholds_in_their_own_units():
    rng = np.random.default_rng(1)
    y = rng.random(200) < 0.5
    s = np.round(rng.normal(size=200) - y, 1)  # lower means positive
    r = assay.evaluate(y, y_score=s, threshold="youden", direction="lower", bootstrap=200)
    t = r.threshold_interval
    assert t.threshold.value == r.threshold
    assert t.threshold.ci.low <= r.threshold <= t.threshold.ci.high
    negated = threshold_stability("youden", ScoreCounts.from_arrays(y, s).negated(),
                                  settings=BootstrapSettings(200, 0))
    np.testing.assert_array_equal(t.replicates, -negated.replicates)
    assert t.sensitivity.value == r["recall"].value and t.specificity.value == r["specificity"].value


def test_pROC_point_on_asah():
    import csv

    with open(ASAH, newline="") as f:
        rows = list(csv.DictReader(f))
    y = np.array([r["outcome"] for r in rows])
    s = np.array([float(r["s100b"]) for r in rows])
    r = assay.evaluate(y, y_score=s, pos_label="Poor", threshold="youden", bootstrap=500)
    t = r.threshold_interval
    assert t.sensitivity.value == pytest.approx(0.6341, abs=1e-4)
    assert t.specificity.value == pytest.approx(0.8056, abs=1e-4)
    assert t.threshold.value == r.threshold == pytest.approx(0.22)
    d = r.to_dict()["threshold_interval"]
    assert d["resamples"] == 500 and d["method"] == 'stratified percentile bootstrap, as pROC\'s ci.coords(x = "best")'
    assert d["threshold"]["ci"][0] <= 0.22 <= d["threshold"]["ci"][1]
    i = r.notes.index(next(n for n in r.notes if " chosen by " in n))
    assert r.notes[i + 1].startswith("threshold 0.22 (95% CI ")  # the line under the chosen threshold


# the command line ---------------------------------------------------------------------------------------------


def _csv(tmp_path):
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 300)
    p = np.clip(0.3 * y + rng.normal(0.35, 0.2, 300), 0, 1).round(2)
    path = tmp_path / "f.csv"
    path.write_text("y,p\n" + "".join(f"{a},{b}\n" for a, b in zip(y, p)))
    return str(path)


def _json(args, capsys):
    status = main(args)
    out, err = capsys.readouterr()
    assert status == 0, err
    return json.loads(out)


@pytest.mark.parametrize("criterion", ["youden", "closest", "cost"])
def test_the_report_has_the_interval_in_memory_and_in_batches_alike(tmp_path, capsys, criterion):
    path = _csv(tmp_path)
    base = ["report", path, "--truth", "y", "--score", "p", "--threshold", criterion, "--format", "json",
            "--bootstrap", "300"]
    whole = _json(base, capsys)
    batches = _json(base + ["--memory", "1MB"], capsys)
    t = whole["threshold_interval"]
    assert t == batches["threshold_interval"]
    assert t["criterion"] == criterion and t["threshold"]["value"] == whole["threshold"]
    assert t["threshold"]["ci"][0] <= whole["threshold"] <= t["threshold"]["ci"][1]
    assert t["sensitivity"]["value"] == whole["metrics"]["recall"]["value"]
    assert t["specificity"]["value"] == whole["metrics"]["specificity"]["value"]
    assert 0 < t["same_threshold_share"] <= 1 and t["resamples"] == 300 and t["note"] is None
    assert list(whole).index("threshold_interval") == list(whole).index("threshold") + 1
    given = _json(base[:7] + ["0.5"] + base[8:], capsys)  # a number given: nothing chosen
    assert "threshold_interval" not in given
    status = main(base[:-4] + ["--bootstrap", "300"])
    out, _ = capsys.readouterr()
    assert status == 0
    lines = out.splitlines()
    chosen = next(i for i, line in enumerate(lines) if " chosen by " in line)
    assert lines[chosen + 1].startswith(f"threshold {whole['threshold']:g} (95% CI ") and "300 resamples" in out


def test_a_summary_spilled_to_disk_says_it_is_not_computed():
    rng = np.random.default_rng(5)
    y = np.where(rng.random(300) < 0.4, "yes", "no")
    s = np.round(rng.random(300) + 0.3 * (y == "yes"), 2)
    parts = [(y[:100], s[:100]), (y[100:], s[100:])]
    spilled = evaluate_batches(parts, memory=1, threshold="youden", bootstrap=200)
    whole = assay.evaluate(y, y_score=s, threshold="youden", bootstrap=200)
    assert spilled.ranking.summary.on_disk
    t = spilled.threshold_interval
    assert t.note == BEYOND_MEMORY and t.threshold.ci is None and t.same is None
    assert t.threshold.value == whole.threshold_interval.threshold.value  # the point is the data's
    assert any(note.startswith("threshold ") and "not computed beyond memory" in note for note in spilled.notes)


# undefined: null with a reason, never a crash -----------------------------------------------------------------


def test_a_single_class_or_no_instances_gives_null_with_the_reason():
    for sc in (ScoreCounts.from_arrays([1, 1, 1], [0.2, 0.5, 0.9]), ScoreCounts.from_arrays([0, 0], [0.1, 0.3]),
               ScoreCounts.from_arrays(np.array([], dtype=bool), np.array([]))):
        for criterion in ("youden", "closest", "cost"):
            r = threshold_stability(criterion, sc, settings=BootstrapSettings(100, 0))
            d = r.to_dict()
            assert d["note"] == ONE_CLASS and d["threshold"]["value"] is None and d["threshold"]["ci"] is None
            assert d["sensitivity"]["value"] is None and d["same_threshold_share"] is None


def test_a_single_distinct_score_gives_the_point_and_no_interval():
    sc = ScoreCounts.from_arrays([1, 0, 1, 0], [0.5, 0.5, 0.5, 0.5])
    r = threshold_stability("youden", sc, settings=BootstrapSettings(100, 0))
    assert r.note == ONE_SCORE and r.threshold.ci is None and r.sensitivity.ci is None
    r = assay.evaluate([1, 0, 1, 0], y_score=[0.5] * 4, threshold="closest", bootstrap=100)
    assert r.to_dict()["threshold_interval"]["note"] == ONE_SCORE


def test_weights_that_are_not_counts_give_no_interval_and_whole_weights_do():
    y, s = [1, 0, 1, 0, 1, 0], [0.9, 0.8, 0.7, 0.4, 0.3, 0.2]
    r = assay.evaluate(y, y_score=s, sample_weight=[0.5, 1.5, 1, 1, 2, 1], threshold="youden", bootstrap=100)
    assert r.threshold_interval.note == WEIGHTED and r.threshold_interval.threshold.ci is None
    r = assay.evaluate(y, y_score=s, sample_weight=[1, 2, 1, 1, 3, 1], threshold="youden", bootstrap=100)
    assert r.threshold_interval.threshold.ci is not None


def test_beyond_the_budget_of_curve_points_gives_the_reason(monkeypatch):
    monkeypatch.setattr(module, "MAX_STABILITY_POINTS", 1000)
    sc = ScoreCounts.from_arrays(np.arange(20) % 2 == 0, np.arange(20.0))
    r = threshold_stability("youden", sc, settings=BootstrapSettings(100, 0))
    assert r.threshold.ci is None and r.note.startswith("no interval: 100 bootstrap resamples of 20 distinct")
    assert r.threshold.value is not None
