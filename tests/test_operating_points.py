"""Operating points with intervals (the sensitivity at a specificity, the specificity at a sensitivity) and the
ROC confidence band, as pROC's coords, ci.se and ci.sp.

pROC's own tests (tests/testthat/test-coords.R) give the values on its aSAH data, s100b for a Poor outcome, at
specificities and sensitivities 0, 0.1, ..., 1; they are reproduced here to 1e-12 (pROC prints 15 digits).
"""

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
from assay.metrics.ranking import operating_points

ASAH = str(Path(__file__).resolve().parent / "data" / "asah.csv")
GRID = np.round(np.arange(11) / 10, 1)
PROC_SENSITIVITY_AT_SPECIFICITY = [1, 0.975609756097561, 0.921951219512195, 0.879674796747967, 0.823693379790941,
                                   0.774390243902439, 0.675609756097561, 0.655284552845528, 0.634146341463415,
                                   0.390243902439024, 0.292682926829268]
PROC_SPECIFICITY_AT_SENSITIVITY = [1, 1, 1, 0.972222222222222, 0.888888888888889, 0.833333333333333,
                                   0.805555555555556, 0.56875, 0.447222222222222, 0.230555555555556, 0]


def _asah(column: str = "s100b"):
    with open(ASAH, newline="") as f:
        rows = list(csv.DictReader(f))
    return np.array([r["outcome"] for r in rows]), np.array([float(r[column]) for r in rows])


def run(argv, capsys):
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_proc_coords_on_asah():
    y, s = _asah()
    r = assay.rank(y, s, pos_label="Poor", at_specificity=GRID, at_sensitivity=GRID, bootstrap=200)
    by_spec = [p for p in r.operating_points if p.given == "specificity"]
    by_sens = [p for p in r.operating_points if p.given == "sensitivity"]
    np.testing.assert_allclose([p.value.value for p in by_spec], PROC_SENSITIVITY_AT_SPECIFICITY, rtol=0, atol=1e-12)
    np.testing.assert_allclose([p.value.value for p in by_sens], PROC_SPECIFICITY_AT_SENSITIVITY, rtol=0, atol=1e-12)
    # pROC's thresholds: exact points only (NA where interpolated); at specificity 1 pROC prints 0.51, the
    # midpoint between the scores 0.50 and 0.52; assay gives the score at the point: the same predictions
    assert [p.exact for p in by_spec] == [True] + [False] * 9 + [True]
    assert by_spec[-1].threshold == 0.52 and sorted(set(s))[sorted(set(s)).index(0.52) - 1] == 0.50
    for p in by_spec:  # the threshold keeps the specificity, and is the lowest that does
        assert p.at_threshold["specificity"] >= p.target
    for p in by_sens:
        assert p.at_threshold["sensitivity"] >= p.target


def _proc_coords(sens: np.ndarray, spec: np.ndarray, x: float, given: str) -> float:
    """pROC's coords(input=..., ret=...) as its R code reads the curve (the points in increasing threshold
    order: specificity rises, sensitivity falls), written out literally as the reference."""
    se, sp = sens[::-1], spec[::-1]  # pROC's order
    inputs, outputs = (sp, se) if given == "specificity" else (se, sp)
    decreasing = given == "sensitivity"
    idx = np.flatnonzero(inputs == x)
    if len(idx) > 0:
        return float(outputs[idx[-1] if decreasing else idx[0]])
    nxt = int(np.argmax(inputs < x)) if decreasing else int(np.argmax(inputs > x))
    proportion = (x - inputs[nxt]) / (inputs[nxt - 1] - inputs[nxt])
    return float(outputs[nxt] + proportion * (outputs[nxt - 1] - outputs[nxt]))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 8)), min_size=4, max_size=40),
       st.lists(st.integers(0, 20), min_size=1, max_size=6), st.sampled_from(["specificity", "sensitivity"]))
def test_reading_the_curve_as_proc_does(rows, targets, given_rate):
    y = np.array([r[0] for r in rows])
    s = np.array([r[1] for r in rows], dtype=float)  # ties
    if y.all() or not y.any():
        y[0], y[1] = True, False
    r = assay.rank(y, s)
    roc = r.roc()
    sens = roc["tpr"]
    t = np.array(targets) / 20.0
    tc = r.counts
    values, _ = operating_points(np.r_[0, tc.tp], np.r_[0, tc.fp], tc.n_positive, tc.n_negative, t, given=given_rate)
    for k, x in enumerate(t):
        # pROC compares specificities computed as tn / N; the same here, so equality finds the same points
        spec_exact = (tc.n_negative - np.r_[0, tc.fp]) / tc.n_negative
        expected = _proc_coords(sens, spec_exact, x, given_rate)
        assert values[0, k] == pytest.approx(expected, abs=1e-12)


def test_bootstrap_interval_matches_resampling_the_instances():
    """The multinomial draw per distinct score is the stratified resampling of instances: the same
    distribution (checked by an instance-level bootstrap, tolerance 0.03 for Monte Carlo error)."""
    y, s = _asah("ndka")
    r = assay.rank(y, s, pos_label="Poor", at_specificity=[0.5, 0.9], bootstrap=4000, seed=1)
    rng = np.random.default_rng(7)
    poor, good = s[y == "Poor"], s[y == "Good"]
    reps = []
    for _ in range(4000):
        a, b = rng.choice(poor, len(poor)), rng.choice(good, len(good))
        ys = np.r_[np.ones(len(a), bool), np.zeros(len(b), bool)]
        rr = assay.rank(ys, np.r_[a, b])
        tc = rr.counts
        reps.append(operating_points(np.r_[0, tc.tp], np.r_[0, tc.fp], tc.n_positive, tc.n_negative,
                                     np.array([0.5, 0.9]), given="specificity")[0][0])
    low, high = np.quantile(np.array(reps), [0.025, 0.975], axis=0)
    for k, p in enumerate(r.operating_points):
        assert p.value.ci.low == pytest.approx(low[k], abs=0.03)
        assert p.value.ci.high == pytest.approx(high[k], abs=0.03)
        assert p.value.method == "bootstrap-percentile"


def test_same_seed_same_interval_and_weights():
    y, s = _asah()
    a = assay.rank(y, s, at_specificity=[0.9], bootstrap=300, seed=3).operating_points[0]
    b = assay.rank(y, s, at_specificity=[0.9], bootstrap=300, seed=3).operating_points[0]
    assert a == b
    w = np.where(y == "Poor", 1.5, 1.0)
    weighted = assay.rank(y, s, at_specificity=[0.9], sample_weight=w).operating_points[0]
    assert weighted.value.ci is None and "not counts" in weighted.value.note


def test_roc_band():
    y, s = _asah()
    r = assay.evaluate(y, y_score=s, pos_label="Poor", roc_band=True, bootstrap=300)
    band = r.ranking.band
    assert len(band["specificity"]) == 51 and band["confidence"] == 0.95
    assert all(lo <= v + 1e-12 and v <= hi + 1e-12 for lo, v, hi in zip(band["low"], band["sensitivity"],
                                                                         band["high"]))
    json.dumps(r.to_dict()["ranking"]["roc_band"], allow_nan=False)
    other = r.ranking.roc_band([0.8, 0.9], resamples=300)
    assert other["specificity"] == [0.8, 0.9]
    from matplotlib.collections import PolyCollection
    from matplotlib.figure import Figure

    from assay.report.plots import plot_roc

    ax = plot_roc(r, Figure().subplots())
    assert any(isinstance(c, PolyCollection) for c in ax.collections)
    plain = assay.rank(y, s)
    assert plain.band is None and not any(isinstance(c, PolyCollection)
                                          for c in plot_roc(plain, Figure().subplots()).collections)
    assert any(isinstance(c, PolyCollection) for c in plot_roc(plain, Figure().subplots(), band=True).collections)


@pytest.mark.parametrize("bad", [1.5, -0.1, float("nan")])
def test_bad_targets_are_refused(bad):
    y, s = _asah()
    with pytest.raises(InvalidInput, match="at_specificity"):
        assay.rank(y, s, at_specificity=[bad])


def test_cli_operating_points(capsys, tmp_path):
    base = ["report", ASAH, "--truth", "outcome", "--score", "s100b", "--at-specificity", "0.9",
            "--at-sensitivity", "0.95", "--bootstrap", "300"]
    status, out, err = run(base + ["--format", "json"], capsys)
    assert status == 0, err
    points = json.loads(out)["ranking"]["operating_points"]
    assert [p["given"] for p in points] == ["specificity", "sensitivity"]
    assert points[0]["sensitivity"]["value"] == pytest.approx(0.390243902439024, abs=1e-12)
    status, streamed, err = run(base + ["--format", "json", "--memory", "1KB"], capsys)
    assert status == 0 and json.loads(streamed)["ranking"]["operating_points"] == points
    status, out, err = run(base, capsys)
    assert "Operating points" in out and "At a specificity of 90.0%" in out
    output = tmp_path / "out.json"
    status, out, err = run(["report", ASAH, "--truth", "outcome", "--score", "s100b", "--at-specificity", "1.5",
                            "-o", str(output)], capsys)
    assert status == 2 and len(err.strip().splitlines()) == 1 and "--at-specificity" in err
    assert not output.exists()
    status, out, err = run(["report", ASAH, "--truth", "outcome", "--score", "s100b", "--roc-band", "--bootstrap",
                            "200", "--format", "json"], capsys)
    assert status == 0 and len(json.loads(out)["ranking"]["roc_band"]["low"]) == 51


def test_html_draws_the_band_the_operating_points_and_the_constrained_threshold(capsys, tmp_path):
    page = tmp_path / "r.html"
    status, out, err = run(["report", ASAH, "--truth", "outcome", "--score", "s100b", "--roc-band", "--at-specificity",
                            "0.9", "--constraint", "precision>=0.8", "--bootstrap", "200", "--html", str(page),
                            "--format", "json"], capsys)
    assert status == 0, err
    html = page.read_text()
    assert '<polygon' in html and 'class="band"' in html
    assert "operating points" in html and "sensitivity 0.390 at specificity 0.9" in html
    assert "best threshold under a constraint" in html and "precision &gt;= 0.8, maximising recall" in html
