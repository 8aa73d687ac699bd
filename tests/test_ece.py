"""The ECE's bootstrap interval and the smooth ECE (issue 21, item 1).

Oracles: the interval against a direct percentile bootstrap of the rows (np.random.Generator.integers
indices, ECE recomputed as sklearn.calibration.calibration_curve bins); Monte Carlo tolerance 0.01 on
each bound (about 4 standard errors of the difference of two 2.5% quantiles of 2,000 resamples each; the
bootstrap sd is about 0.015 here).
The smooth ECE against a direct implementation on the rows of Błasiok & Nakkiran (2023)'s definition
(the reflected Gaussian kernel summed over reflections, integrated on a fine grid, the bandwidth by
bisection to the fixed point), tolerance 2e-4. Against relplot 1.0.3's smECE (apple/ml-calibration; not a test
dependency: it pulls seaborn), checked by hand: 0.10737 vs 0.10704 at n = 300, 0.11070 vs 0.11049 at n = 5,000
(relplot integrates on 200 points and reflects once).
"""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

import assay
from assay.evaluation.probabilistic import analyse_probabilities, analyse_score_counts
from assay.inference import ece as ece_module
from assay.inference.bootstrap import BootstrapSettings
from assay.inference.ece import cells_of_values, ece_interval, smooth_ece
from assay.metrics.probabilistic import calibration_errors
from assay.summaries.probabilities import bin_index
from assay.summaries.scores import ScoreCounts


def _data(n: int, seed: int, digits: int = 2) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = np.round(rng.random(n), digits)
    y = (rng.random(n) < p ** 1.4).astype(int)
    return p, y


def _ece_rows(p: np.ndarray, y: np.ndarray, edges: np.ndarray) -> float:
    where = bin_index(p, edges)
    bins = len(edges) - 1
    return calibration_errors(np.bincount(where, minlength=bins), np.bincount(where, weights=p, minlength=bins),
                              np.bincount(where, weights=y, minlength=bins))[0]


def _row_bootstrap(p, y, *, quantile: bool, resamples: int = 2000, seed: int = 123) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    out = np.empty(resamples)
    edges = np.linspace(0.0, 1.0, 11)
    for r in range(resamples):
        i = rng.integers(0, len(p), len(p))
        if quantile:
            edges = np.percentile(p[i], np.linspace(0.0, 1.0, 11) * 100.0)
        out[r] = _ece_rows(p[i], y[i], edges)
    low, high = np.quantile(out, [0.025, 0.975])
    return float(low), float(high)


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_the_interval_is_a_row_bootstrap_of_the_ece(strategy):
    p, y = _data(300, 1)
    v, o, c = cells_of_values(p, y)
    assert len(v) < 200  # cells, not rows
    got = ece_interval(v, o, c, edges=np.linspace(0.0, 1.0, 11), strategy=strategy, bin_of=bin_index,
                       confidence=0.95, bootstrap=BootstrapSettings(2000, 5))
    low, high = _row_bootstrap(p, y, quantile=strategy == "quantile")
    assert got.low == pytest.approx(low, abs=0.01) and got.high == pytest.approx(high, abs=0.01)
    assert got.resamples == 2000 and "bootstrap-percentile" in got.method
    again = ece_interval(v, o, c, edges=np.linspace(0.0, 1.0, 11), strategy=strategy, bin_of=bin_index,
                         confidence=0.95, bootstrap=BootstrapSettings(2000, 5))
    assert (again.low, again.high) == (got.low, got.high)  # the seed reproduces it


def test_rows_and_the_score_summary_give_the_same_interval_and_binning_named():
    p, y = _data(400, 2)
    settings = BootstrapSettings(500, 3)
    rows = analyse_probabilities(np.stack([1 - p, p], axis=1), y, ("no", "yes"), bootstrap=settings)
    counts = analyse_score_counts(ScoreCounts.from_arrays(y, p), bootstrap=settings)
    a, b = rows.calibration.ece_interval, counts.calibration.ece_interval
    assert a.low <= rows.calibration.ece <= a.high
    assert (a.low, a.high) == pytest.approx((b.low, b.high), abs=1e-12)  # the same cells, the same draws
    got = json.loads(json.dumps(counts.to_dict()))
    cal = got["calibration"]
    assert {"ece", "mce", "strategy", "bins", "binning", "ece_interval"} <= set(cal)
    assert cal["binning"] == "10 equal-width bins (uniform), as sklearn.calibration.calibration_curve bins"
    assert set(cal["ece_interval"]) >= {"low", "high", "method", "resamples", "note"}
    assert set(got["smooth_ece"]) == {"value", "bandwidth", "method", "note"}
    assert got["smooth_ece"]["value"] == pytest.approx(rows.smooth_ece.value, abs=1e-12)
    quantile = analyse_score_counts(ScoreCounts.from_arrays(y, p), strategy="quantile", bins=5, bootstrap=settings)
    assert quantile.to_dict()["calibration"]["binning"].startswith("5 equal-count bins (quantile)")


def test_the_text_line_names_the_interval_the_bins_and_the_smooth_ece():
    p, y = _data(300, 4)
    r = assay.evaluate(y, y_score=p, bootstrap=300)
    got = json.loads(json.dumps(r.to_dict()))["probabilistic"]
    assert "ece_interval" in got["calibration"] and got["smooth_ece"]["value"] is not None
    line = _ece_line(str(r))
    assert "10 equal-width bins" in line and "smooth ECE" in line and "(Błasiok & Nakkiran 2023)" in line
    counts = analyse_score_counts(ScoreCounts.from_arrays(y, p), bootstrap=BootstrapSettings(300, 0))
    line = _ece_line(str(replace(r, probabilistic=counts)))
    i = counts.calibration.ece_interval
    assert f"(95% CI {i.low * 100:.1f}–{i.high * 100:.1f}%; 10 equal-width bins)" in line


def _ece_line(text: str) -> str:
    return next(x for x in text.splitlines() if "expected calibration error" in x)


def _smooth_direct(f: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Błasiok & Nakkiran's smECE on rows: K_σ(t, f) = Σ_k φ_σ(t - f - 2k) + φ_σ(t + f - 2k), the integral
    over [0, 1] by the trapezoidal rule on 2,001 points, σ* by 25 bisection steps (images beyond the first
    reflection weigh below φ(3 / σ*) at σ* ≈ 0.1: nothing)."""
    t = np.linspace(0.0, 1.0, 2001)
    w = np.full(len(t), 1.0 / (len(t) - 1))
    w[[0, -1]] /= 2

    def at(sigma: float) -> float:
        k = np.zeros((len(t), len(f)))
        for shift in (-1, 0, 1):
            for image in (f + 2 * shift, -f + 2 * shift):
                z = (t[:, None] - image[None, :]) / sigma
                k += np.exp(-0.5 * z * z) / (sigma * np.sqrt(2 * np.pi))
        return float((w * np.abs(k @ (f - y))).sum() / len(f))

    low, high = 0.0, 1.0
    for _ in range(25):
        mid = (low + high) / 2
        low, high = (mid, high) if mid < at(mid) else (low, mid)
    return at(high), high


@pytest.mark.parametrize("seed", [0, 1])
def test_smooth_ece_is_the_definition_on_the_rows(seed):
    rng = np.random.default_rng(seed)
    f = rng.random(120) ** 0.7
    y = (rng.random(120) < f ** 2).astype(int)
    got = smooth_ece(*cells_of_values(f, y))
    value, sigma = _smooth_direct(f, y)
    assert got.value == pytest.approx(value, abs=2e-4) and got.bandwidth == pytest.approx(sigma, abs=2e-4)
    assert got.note is None and "Błasiok & Nakkiran 2023" in got.method


def test_budgets_and_undefined_cases_give_a_reason():
    p, y = _data(3000, 5, digits=4)
    v, o, c = cells_of_values(p, y)
    args = {"edges": np.linspace(0.0, 1.0, 11), "strategy": "uniform", "bin_of": bin_index, "confidence": 0.95}
    cut = ece_interval(v, o, c, bootstrap=BootstrapSettings(2000, 0), budget=300 * len(v), **args)
    assert cut.resamples == 300 and "from 300 of the 2,000 resamples" in cut.note
    none = ece_interval(v, o, c, bootstrap=BootstrapSettings(2000, 0), budget=100 * len(v), **args)
    assert none.low is None and "budget" in none.note and "rounding" in none.note
    assert "no bootstrap" in ece_interval(v, o, c, bootstrap=None, **args).note
    assert smooth_ece(v, o, c, budget=10).value is None
    weighted = ScoreCounts(np.array([0.8, 0.3]), np.array([1.5, 0.5]), np.array([0.5, 2.0]))
    assert "weighted" in ece_module.smooth_ece_of_summary(weighted).note


def test_more_than_two_classes_have_neither_key_as_a_streams_parts():
    rng = np.random.default_rng(3)
    proba = rng.dirichlet(np.ones(3), 50)
    d = analyse_probabilities(proba, rng.integers(0, 3, 50), ("a", "b", "c"), bootstrap=BootstrapSettings()).to_dict()
    assert "smooth_ece" not in d and "ece_interval" not in d["calibration"]
