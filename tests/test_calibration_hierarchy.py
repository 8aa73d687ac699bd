"""Mean and weak calibration and Spiegelhalter's test (assay.inference.calibration) against independent references:
statsmodels' GLM (binomial, logit link) for the calibration intercept (logit(p) as offset) and the logistic
recalibration (intercept, slope, their standard errors, the deviances of the unreliability test), and the
formulas of rms::val.prob written out in numpy for Spiegelhalter's z and O/E. Tolerances: coefficients 1e-8,
standard errors 1e-6 relative (both fits converge to about 1e-10), sums 1e-10 relative. Ties, probabilities
of 0 and 1 (left out of the logistic models, as val.prob does), frequency weights, string labels, separated
classes and a zero variance are covered; in memory, in batches and spilled to disk the numbers are the same (to
1e-9 relative; kept on Spark's executors: tests/test_spark_folds.py), each fit in a few walks of the summary."""

import json

import numpy as np
import pytest
import statsmodels.api as sm
from helpers import close
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import assay
from assay.cli import main
from assay.evaluation.stream import evaluate_batches
from assay.inference.calibration import calibration_hierarchy
from assay.metrics import ranking as ranking_module
from assay.summaries import disk
from assay.summaries.scores import ScoreCounts

Z95 = stats.norm.ppf(0.975)


def references(y, p, weights=None):
    """statsmodels' fits and val.prob's formulas on the instances."""
    w = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=float)
    keep = (p > 0) & (p < 1)
    x = np.log(p[keep] / (1 - p[keep]))
    fit = sm.GLM(y[keep], sm.add_constant(x, has_constant="add"), family=sm.families.Binomial(),
                 freq_weights=w[keep]).fit(tol=1e-13, maxiter=200)
    offset = sm.GLM(y[keep], np.ones(keep.sum()), family=sm.families.Binomial(), offset=x,
                    freq_weights=w[keep]).fit(tol=1e-13, maxiter=200)
    fixed = 2 * np.sum(w[keep] * (y[keep] * np.logaddexp(0, -x) + (1 - y[keep]) * np.logaddexp(0, x)))
    spiegel = np.sum(w * (y - p) * (1 - 2 * p)) / np.sqrt(np.sum(w * (1 - 2 * p) ** 2 * p * (1 - p)))
    return fit, offset, fixed - fit.deviance, spiegel, np.sum(w * y) / np.sum(w * p), w[~keep].sum()


def check(h, y, p, weights=None):
    fit, offset, chi2, spiegel, oe, excluded = references(y, p, weights)
    assert h.slope.value == pytest.approx(fit.params[1], abs=1e-8)
    assert h.recalibration_intercept.value == pytest.approx(fit.params[0], abs=1e-8)
    assert (h.slope.ci.high - h.slope.value) / Z95 == pytest.approx(fit.bse[1], rel=1e-6)
    assert (h.recalibration_intercept.ci.high - h.recalibration_intercept.value) / Z95 == \
        pytest.approx(fit.bse[0], rel=1e-6)
    assert h.intercept.value == pytest.approx(offset.params[0], abs=1e-8)
    assert (h.intercept.ci.high - h.intercept.value) / Z95 == pytest.approx(offset.bse[0], rel=1e-6)
    assert h.intercept_pvalue == pytest.approx(offset.pvalues[0], rel=1e-6, abs=1e-300)
    assert h.slope_pvalue == pytest.approx(2 * stats.norm.sf(abs(fit.params[1] - 1) / fit.bse[1]), rel=1e-6,
                                           abs=1e-300)
    assert h.unreliability_chi2 == pytest.approx(chi2, rel=1e-8, abs=1e-8)
    assert h.unreliability_pvalue == pytest.approx(stats.chi2.sf(chi2, 2), rel=1e-6, abs=1e-300)
    assert h.spiegelhalter_z == pytest.approx(spiegel, rel=1e-10)
    assert h.observed_expected.value == pytest.approx(oe, rel=1e-12)
    assert h.excluded == excluded


@st.composite
def predictions(draw):
    n = draw(st.integers(60, 400))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    lp = rng.normal(size=n) * draw(st.floats(0.3, 2.0)) - draw(st.floats(0.0, 1.5))
    truth = rng.random(n) < 1 / (1 + np.exp(-(draw(st.floats(-0.5, 0.5)) + draw(st.floats(0.5, 1.5)) * lp)))
    p = np.round(1 / (1 + np.exp(-lp)), draw(st.sampled_from([2, 3, 12])))  # ties
    if draw(st.booleans()):  # some probabilities of exactly 0 and 1
        p[:3], p[3:6] = 0.0, 1.0
    if truth.all() or not truth.any():
        truth[0] = not truth[0]
    return truth.astype(int), p


@settings(max_examples=25, deadline=None)
@given(predictions())
def test_equal_to_statsmodels_and_val_prob_formulas(case):
    y, p = case
    check(calibration_hierarchy(ScoreCounts.from_arrays(y, p)), y, p)


def test_frequency_weights_equal_statsmodels_freq_weights():
    rng = np.random.default_rng(4)
    y = (rng.random(300) < 0.4).astype(int)
    p = np.round(np.clip(rng.random(300) * 0.7 + 0.2 * y, 0.01, 0.99), 2)
    w = rng.integers(1, 5, 300).astype(float)
    check(calibration_hierarchy(ScoreCounts.from_arrays(y, p, sample_weight=w)), y, p, w)


def test_published_example_of_val_prob_help():
    """rms::val.prob's help example (a perfectly calibrated model's probabilities): by hand, Spiegelhalter's z of
    ten instances is -0.490 and O/E 1.064; statsmodels gives the slope 1.587 (SE 1.032)."""
    y = np.array([0, 0, 1, 0, 1, 1, 0, 1, 1, 0])
    p = np.array([0.1, 0.2, 0.3, 0.3, 0.5, 0.6, 0.6, 0.8, 0.9, 0.4])
    h = calibration_hierarchy(ScoreCounts.from_arrays(y, p))
    assert round(h.spiegelhalter_z, 3) == -0.490 and round(h.observed_expected.value, 3) == 1.064
    assert round(h.slope.value, 3) == 1.587
    check(h, y, p)


def test_separated_classes_and_a_zero_variance_are_undefined_with_a_reason():
    y = np.array([0, 0, 0, 1, 1, 1])
    p = np.array([0.1, 0.2, 0.3, 0.7, 0.8, 0.9])  # every positive above every negative: no finite slope
    h = calibration_hierarchy(ScoreCounts.from_arrays(y, p))
    assert h.slope.value is None and "separate" in h.slope.note and h.unreliability_chi2 is None
    assert h.spiegelhalter_z is not None and h.observed_expected.value == pytest.approx(1.0)
    half = calibration_hierarchy(ScoreCounts.from_arrays(np.array([0, 1, 1, 0]), np.full(4, 0.5)))
    assert half.spiegelhalter_z is None and half.spiegelhalter_pvalue is None  # (1 - 2p) = 0: no variance
    ends = calibration_hierarchy(ScoreCounts.from_arrays(np.array([0, 1, 1]), np.array([0.0, 1.0, 1.0])))
    assert ends.excluded == 3 and ends.slope.value is None and "within (0, 1)" in ends.slope.note
    assert ends.to_dict()["weak"]["slope"]["value"] is None


def test_quasi_complete_separation_is_undefined_not_an_error():
    """Ties at the one probability where the classes meet (every positive at or above it, every negative at or
    below): no finite maximum likelihood (Albert & Anderson 1984), known from the first walk. Newton's method
    alone stopped there with a slope near 90 and a standard error of 1e7, or raised (singular information)."""
    for seed in (3, 4, 15):
        rng = np.random.default_rng(seed)
        p = np.round(1 / (1 + np.exp(-(rng.normal(size=200) * 3 - 1))), 1)
        y = np.zeros(200, dtype=int)
        y[np.argsort(p, kind="stable")[100:]] = 1
        assert p[y == 1].min() == p[y == 0].max()  # they meet at one tied probability
        h = calibration_hierarchy(ScoreCounts.from_arrays(y, p))
        assert h.slope.value is None and "separate" in h.slope.note and h.unreliability_chi2 is None
        assert h.intercept.value is not None  # the offset-only model has a finite fit: both classes present
        _, offset, _, spiegel, _, _ = references(y, p)
        assert h.intercept.value == pytest.approx(offset.params[0], abs=1e-8)
        assert h.spiegelhalter_z == pytest.approx(spiegel, rel=1e-10)


def test_in_memory_in_batches_and_json_and_text_agree(spill_dir):
    rng = np.random.default_rng(7)
    y = np.where(rng.random(5000) < 0.3, "sick", "well")
    p = np.round(np.clip(rng.beta(2, 5, 5000) + 0.25 * (y == "sick"), 0, 1), 4)
    whole = assay.evaluate(y, y_score=p, positive="sick", threshold=0.5)
    free = assay.evaluate(y, y_score=p, positive="sick")  # no threshold: the summaries' path
    parts = [(y[a:a + 700], p[a:a + 700]) for a in range(0, 5000, 700)]
    batched = evaluate_batches(parts, positive="sick", threshold=0.5, memory=32 << 20)
    want = whole.to_dict()["probabilistic"]["calibration_hierarchy"]
    for other in (free, batched):
        got = other.to_dict()["probabilistic"]["calibration_hierarchy"]
        for section in ("mean", "weak"):
            for key, value in want[section].items():
                if isinstance(value, dict) and value.get("value") is not None:
                    assert got[section][key]["value"] == pytest.approx(value["value"], rel=1e-9), key
        assert got["spiegelhalter"]["z"] == pytest.approx(want["spiegelhalter"]["z"], rel=1e-9)
    check(whole.probabilistic.hierarchy, (y == "sick").astype(int), p)
    text = str(whole)
    assert "Calibration: mean and weak" in text and "Spiegelhalter" in text
    rows = [line for line in text.splitlines() if line.startswith(("Calibration slope", "Spiegelhalter's z"))]
    assert rows and max(len(line) for line in rows) <= 100  # the table fits a terminal


def test_the_cli_gives_the_hierarchy_in_json(tmp_path, capsys):
    rng = np.random.default_rng(8)
    y = (rng.random(400) < 0.3).astype(int)
    p = np.round(np.clip(rng.random(400) * 0.6 + 0.3 * y, 0, 1), 3)
    path = tmp_path / "preds.csv"
    path.write_text("y,p\n" + "\n".join(f"{a},{b}" for a, b in zip(y, p)) + "\n")
    out = tmp_path / "r.json"
    assert main(["report", str(path), "--truth", "y", "--score", "p", "--format", "json", "-o", str(out)]) == 0
    capsys.readouterr()
    got = json.loads(out.read_text())["probabilistic"]["calibration_hierarchy"]
    assert set(got) >= {"mean", "weak", "spiegelhalter", "n", "excluded"}
    check_dict = assay.evaluate(y, y_score=p).to_dict()["probabilistic"]["calibration_hierarchy"]
    assert got["weak"]["slope"]["value"] == pytest.approx(check_dict["weak"]["slope"]["value"], rel=1e-9)


def test_a_summary_spilled_to_disk_gives_the_in_memory_values(spill_dir):
    """Spilled: the same walks (a first one, then Newton's steps) read the summary from disk; the sums are taken
    in another order, so the values agree to 1e-9 relative (about 1e-13 in practice)."""
    rng = np.random.default_rng(9)
    y = (rng.random(30_000) < 0.35).astype(int)
    p = rng.random(30_000) * 0.6 + 0.35 * y
    parts = [(y[a:a + 3000], p[a:a + 3000]) for a in range(0, 30_000, 3000)]
    got = evaluate_batches(parts, memory=200_000)  # the summary past a quarter of it: kept on disk
    assert got.ranking.summary.on_disk
    h = got.to_dict()["probabilistic"]["calibration_hierarchy"]
    want = assay.evaluate(y, y_score=p).to_dict()["probabilistic"]["calibration_hierarchy"]
    assert h["weak"]["slope"]["value"] is not None and h["note"] is None
    close(h, want, rel=1e-9)
    check(got.probabilistic.hierarchy, y, p)
    assert "Calibration: mean and weak" in str(got)


def count_walks(monkeypatch):
    """The walks of a summary from now on: each a list of its folds' class names."""
    walks = []
    real = ranking_module.walk

    def counted(columns, folds, **kwargs):
        walks.append([type(fold).__name__ for fold in folds])
        return real(columns, folds, **kwargs)

    monkeypatch.setattr(ranking_module, "walk", counted)
    return walks


def test_the_fits_take_a_first_walk_and_one_or_two_newton_steps(monkeypatch):
    """The first walk's binned fit starts Newton's method within about 1e-11 of the estimates: typically one
    exact step (one walk, both models) is below the tolerance; never more than two here. (Pieces of 1,000
    distinct scores: the walks' partials are combined.)"""
    monkeypatch.setattr(disk, "CHUNK", 1000)
    walks = count_walks(monkeypatch)
    for seed, digits in ((10, 12), (11, 3), (12, 2)):
        rng = np.random.default_rng(seed)
        lp = rng.normal(size=20_000) * rng.uniform(0.5, 2) - 1
        y = (rng.random(20_000) < 1 / (1 + np.exp(-(0.3 + 0.8 * lp)))).astype(int)
        p = np.round(1 / (1 + np.exp(-lp)), digits)
        walks.clear()
        h = calibration_hierarchy(ScoreCounts.from_arrays(y, p))
        assert walks[0] == ["CalibrationStartFold"] and 2 <= len(walks) <= 3, walks
        assert all(walk == ["LogisticFold"] for walk in walks[1:])  # both models' points: one fold
        check(h, y, p)
    y = np.array([0, 0, 0, 1, 1, 1])  # separated: known from the first walk, the offset-only model still fitted
    walks.clear()
    h = calibration_hierarchy(ScoreCounts.from_arrays(y, np.array([0.1, 0.2, 0.3, 0.7, 0.8, 0.9])))
    assert h.slope.value is None and h.intercept.value is not None and len(walks) <= 3


def test_the_first_walk_shares_the_reports_ranking_walk(monkeypatch, spill_dir):
    """Asked of the summary ahead (assay.metrics.ranking.want) by the summaries' path (data read in batches, the
    summary held in memory or spilled; Spark's): the first walk of the hierarchy is the ranking metrics' (with
    DeLong's fold), then one or two walks of Newton's steps."""
    walks = count_walks(monkeypatch)
    rng = np.random.default_rng(13)
    y = (rng.random(20_000) < 0.3).astype(int)
    p = np.clip(rng.beta(2, 5, 20_000) + 0.25 * y, 0, 1)
    parts = [(y[a:a + 5000], p[a:a + 5000]) for a in range(0, 20_000, 5000)]
    for run in (lambda: evaluate_batches(parts, threshold=0.5),
                lambda: evaluate_batches(parts, threshold=0.5, memory=200_000)):
        walks.clear()
        run()
        first = [walk for walk in walks if "CalibrationStartFold" in walk]
        assert len(first) == 1 and len(first[0]) > 1, walks  # with the ranking's folds
        assert 1 <= sum(walk == ["LogisticFold"] for walk in walks) <= 2, walks
