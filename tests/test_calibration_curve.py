"""Moderate calibration (assay.inference.calibration_curve) against independent references.

- The curve: a line-by-line port of R's ``clowess`` (src/library/stats/src/lowess.c, iter = 0) run on the rows
  sorted as R's ``lowess`` sorts them (``order``: stable), to 1e-12 absolute, ties included (the counts-based
  curve takes every window's sums over the distinct scores); and statsmodels' ``lowess(y, p, frac=2/3, it=0,
  delta=0.01 * range)`` on rows without ties, to 5e-5 absolute: statsmodels keeps the tricube weights that
  clowess sets to 0 beyond 0.999 of the radius and to 1 within 0.001 of it (weights below 3e-8 and above
  1 - 3e-9), which moves a fit by up to about 2e-5 here. (With ties statsmodels cuts the rightmost tie of a
  window where clowess takes all of it, so it depends on the rows' order; the port is the reference there.)
- The band's compiled kernel (numba_kernels.lowess_resamples): each resample's curve, its values at the grid and
  its E-statistics against lowess_counts of the resample's present probabilities (np.interp, _e_statistics), to
  1e-12; the whole band against the numpy code's (lowess_rows) from the same resamples, to 1e-12.
- Eavg, E50, E90, Emax: rms::val.prob's formulas written out in numpy on the rows (``approx(Sm, xout = p)``,
  ``quantile(er, 0.9)`` type 7 = numpy's linear percentile), to 1e-12.
- The Brier decomposition: Brier = reliability - resolution + uncertainty to 1e-12, each term against a direct
  computation on the rows grouped by distinct probability.
"""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.nonparametric.smoothers_lowess import lowess as sm_lowess

import assay
from assay.evaluation.stream import evaluate_batches
from assay.inference import calibration_curve as curve_module
from assay.inference.bootstrap import BootstrapSettings
from assay.inference.calibration_curve import (
    brier_decomposition,
    calibration_curve,
    lowess_counts,
    lowess_rows,
    weighted_quantile,
)
from assay.report.html_charts import calibration_chart
from assay.summaries import kernels
from assay.summaries.scores import ScoreCounts
from helpers import kernels_on


def clowess(x, y, f=2 / 3, delta=None):
    """R's clowess (stats/src/lowess.c), iter = 0, on rows sorted by x: a direct port, 0-based."""
    x = [float(v) for v in x]
    y = [float(v) for v in y]
    n = len(x)
    if n < 2:
        return list(y)
    delta = 0.01 * (x[-1] - x[0]) if delta is None else delta
    ys = [0.0] * n
    ns = max(2, min(n, int(f * n + 1e-7)))
    span = x[-1] - x[0]
    nleft, nright, last, i = 0, ns - 1, -1, 0
    while True:
        while nright < n - 1 and x[i] - x[nleft] > x[nright + 1] - x[i]:
            nleft += 1
            nright += 1
        xs = x[i]
        h = max(xs - x[nleft], x[nright] - xs)
        w, a, j = {}, 0.0, nleft
        while j < n:  # "pick up all ties on right"
            r = abs(x[j] - xs)
            if r <= 0.999 * h:
                w[j] = 1.0 if r <= 0.001 * h else (1.0 - (r / h) ** 3) ** 3
                a += w[j]
            elif x[j] > xs:
                break
            else:
                w[j] = 0.0
            j += 1
        if a <= 0:
            ys[i] = y[i]
        else:
            w = {k: v / a for k, v in w.items()}
            if h > 0:
                mean = sum(v * x[k] for k, v in w.items())
                c = sum(v * (x[k] - mean) ** 2 for k, v in w.items())
                if np.sqrt(c) > 0.001 * span:
                    b = (xs - mean) / c
                    w = {k: v * (b * (x[k] - mean) + 1.0) for k, v in w.items()}
            ys[i] = sum(v * y[k] for k, v in w.items())
        if last < i - 1:
            for j in range(last + 1, i):
                alpha = (x[j] - x[last]) / (x[i] - x[last])
                ys[j] = alpha * ys[i] + (1.0 - alpha) * ys[last]
        last = i
        cut = x[last] + delta
        i = last + 1
        while i < n and x[i] <= cut:
            if x[i] == x[last]:
                ys[i] = ys[last]
                last = i
            i += 1
        i = max(last + 1, i - 1)
        if last >= n - 1:
            return ys


def by_distinct(y, p):
    xs, inverse, count = np.unique(p, return_inverse=True, return_counts=True)
    events = np.bincount(inverse, weights=y, minlength=len(xs))
    return xs, count, events, inverse


def val_prob(y, p):
    """rms::val.prob's Eavg, E50 (Austin & Steyerberg), E90, Emax on the rows, with the port's curve."""
    order = np.argsort(p, kind="stable")
    fitted = np.array(clowess(p[order], y[order]))
    smooth = np.interp(p, p[order], fitted)  # approx(Sm, xout = p, ties = mean): tied fits are equal
    er = np.abs(p - smooth)
    return np.array([er.mean(), np.percentile(er, 50), np.percentile(er, 90), er.max()])


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 70), st.integers(0, 12), st.integers(0, 2**32 - 1))
def test_the_counts_give_rs_clowess_on_the_rows_ties_included(n, digits, seed):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    if digits:
        p = np.round(p * digits) / digits  # few distinct values: many ties
    y = (rng.random(n) < p).astype(float)
    xs, count, events, inverse = by_distinct(y, p)
    got = lowess_counts(xs, count, events).fitted
    order = np.argsort(p, kind="stable")
    want = np.array(clowess(p[order], y[order]))
    np.testing.assert_allclose(got[inverse[order]], want, rtol=0, atol=1e-12)


@settings(max_examples=15, deadline=None)
@given(st.integers(2, 60), st.booleans(), st.integers(0, 2**32 - 1))
def test_resamples_refitted_together_equal_each_alone(m, ties, seed):
    """The bootstrap's block of resamples (absent probabilities as 0 counts) equals lowess_counts of each, to
    1e-12 (sums taken over more terms, zeros among them)."""
    rng = np.random.default_rng(seed)
    x = np.unique(np.round(rng.random(m), 1)) if ties else np.sort(rng.random(m))
    pos, neg = rng.integers(0, 4, len(x)), rng.integers(0, 4, len(x))
    if pos.sum() + neg.sum() < 2:
        neg[0] += 2
    draws = [rng.multinomial(c.sum(), c / c.sum(), size=5) if c.sum() else np.zeros((5, len(x)), int)
             for c in (pos, neg)]
    count, events = draws[0] + draws[1], draws[0]
    fitted = lowess_rows(x, count, events)
    stats = curve_module._e_statistics_rows(x, count, fitted)
    for r in range(5):
        here = count[r] > 0
        alone = lowess_counts(x[here], count[r, here], events[r, here]).fitted
        np.testing.assert_allclose(fitted[r, here], alone, rtol=0, atol=1e-12)
        assert np.isnan(fitted[r, ~here]).all()
        np.testing.assert_allclose(stats[r], curve_module._e_statistics(x[here], count[r, here], alone), rtol=0, atol=1e-12)


def compiled_band(x, count, events, grid):
    """The compiled kernel's curves of the rows of ``count`` and ``events``, at the grid, and E-statistics."""
    with kernels_on(True):
        compiled = kernels.compiled(1 << 62)
    assert compiled is not None  # numba is a dependency
    rows, m = count.shape
    fitted, curves, estats = np.empty((rows, m)), np.empty((rows, len(grid))), np.empty((rows, 4))
    compiled.lowess_resamples(x, count, events, 2 / 3, grid, fitted, curves, estats)
    return fitted, curves, estats


@st.composite
def resampled_counts(draw):
    """Resamples (rows: instances and positives at each distinct x) as the bootstrap draws them: heavy ties
    (many instances at an x), evenly spaced x (where clowess's comparisons meet equality), a single distinct
    value, two, one class absent from every row or from some."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    kind = draw(st.sampled_from(["continuous", "rounded", "even", "one", "two", "one class", "rare class",
                                 "large"]))
    m = {"one": 1, "two": 2, "large": draw(st.integers(100, 400))}.get(kind, draw(st.integers(3, 60)))
    x = np.unique(np.round(rng.random(m), 1) if kind == "rounded" else rng.random(m))
    if kind == "even":  # x at k/64 (exact): equal distances on both sides, and x exactly delta from another
        x = np.arange(m) / 64.0 if draw(st.booleans()) else np.linspace(0.0, 1.0, 201)
    m = len(x)
    scale = draw(st.sampled_from([2, 4, 40]))
    pos, neg = rng.integers(0, scale, m), rng.integers(0, scale, m)
    if kind == "one class":
        pos[:] = 0
    if kind == "rare class":
        pos[:] = 0
        pos[rng.integers(0, m)] = 1  # absent from about a third of the rows
    if pos.sum() + neg.sum() < 2:
        neg[0] += 2
    rows = 6
    draws = [rng.multinomial(c.sum(), c / c.sum(), size=rows) if c.sum() else np.zeros((rows, m), np.int64)
             for c in (pos, neg)]
    grid = np.linspace(x[0], x[-1], 51) if m > 1 else x[:1].copy()
    return x, draws[0] + draws[1], draws[0], grid


def _assert_each_row_is_its_lowess(x, count, events, grid):
    """The compiled kernel's curve and E-statistics of each row (a resample) equal lowess_counts and the
    E-statistics of that row's present probabilities, to 1e-12."""
    fitted, _, estats = compiled_band(x, count, events, grid)
    for r in range(len(count)):
        here = count[r] > 0
        alone = lowess_counts(x[here], count[r, here], events[r, here]).fitted
        np.testing.assert_allclose(fitted[r, here], alone, rtol=0, atol=1e-12)
        np.testing.assert_allclose(estats[r], curve_module._e_statistics(x[here], count[r, here], alone), rtol=0,
                                   atol=1e-12)


@settings(max_examples=120, deadline=None)
@given(resampled_counts())
def test_the_compiled_kernel_equals_lowess_counts_of_each_resample(data):
    """The compiled band (assay.summaries.numba_kernels.lowess_resamples) against lowess_counts of each row's
    present x (itself checked against the port of R's clowess above), to 1e-12: the curve, the curve at the
    grid (np.interp, NaN beyond the row's range) and rms::val.prob's E-statistics (_e_statistics, checked
    against val_prob below)."""
    x, count, events, grid = data
    fitted, curves, estats = compiled_band(x, count, events, grid)
    for r in range(len(count)):
        here = count[r] > 0
        alone = lowess_counts(x[here], count[r, here], events[r, here]).fitted
        np.testing.assert_allclose(fitted[r, here], alone, rtol=0, atol=1e-12)
        assert np.isnan(fitted[r, ~here]).all()
        np.testing.assert_allclose(curves[r], curve_module._grid_values(x[here], alone, grid), rtol=0, atol=1e-12)
        want = curve_module._e_statistics(x[here], count[r, here], alone)
        np.testing.assert_allclose(estats[r], want, rtol=0, atol=1e-12)


def test_the_compiled_kernel_on_continuous_probabilities():
    """Large resamples of one row each instance (2,000 distinct probabilities, beta-distributed, as a report of
    continuous probabilities): the windows' breakpoints and the quantiles' selection at scale, to 1e-12."""
    rng = np.random.default_rng(11)
    p = np.round(rng.beta(2, 5, 2000), 5)
    y = (rng.random(2000) < p).astype(np.int64)
    x, count, events, _ = by_distinct(y, p)
    pos = events.astype(np.int64)
    neg = count - pos
    draw_pos, draw_neg = curve_module._drawer(pos), curve_module._drawer(neg)
    p_star = draw_pos(rng, 8)
    c_star = p_star + draw_neg(rng, 8)
    grid = np.linspace(x[0], x[-1], 51)
    _assert_each_row_is_its_lowess(x, c_star, p_star, grid)
    # the rows themselves, the E-statistics as val.prob takes them
    _, _, estats = compiled_band(x, count[None, :], pos[None, :], grid)
    np.testing.assert_allclose(estats[0], val_prob(y.astype(float), p), rtol=0, atol=1e-12)


@pytest.mark.parametrize("x", [np.linspace(0.0, 1.0, 201), np.arange(60) / 64.0])
def test_the_compiled_kernel_where_clowess_compares_equals(x):
    """Evenly spaced x: many x exactly delta beyond another (where clowess fits next) and windows with equal
    distances on both sides; every x present in some rows, not in others."""
    rng = np.random.default_rng(12)
    count = rng.integers(1, 40, (4, len(x)))
    count[2:, rng.integers(0, len(x), 10)] = 0
    events = (count * rng.random(count.shape)).astype(np.int64)
    _assert_each_row_is_its_lowess(x, count, events, x)


@pytest.mark.parametrize("per_value", [1, 3, 50])
def test_a_class_is_redrawn_with_as_many_instances(per_value):
    """Each resample of a class has its instances (row sums), only at the probabilities that hold it, and on
    average its counts (the multinomial's mean): drawn instance by instance (few a value) or by a multinomial
    (many: above DRAWS_PER_VALUE); counted by the compiled kernel or by numpy, the same counts."""
    with kernels_on(True):
        compiled = kernels.compiled(1 << 62)
    counts = np.array([0, per_value, 2 * per_value, 0, per_value], dtype=np.int64)
    drawn = curve_module._drawer(counts)(np.random.default_rng(2), 4000)
    assert drawn.dtype == np.int64 and drawn.shape == (4000, 5)
    assert (drawn.sum(axis=1) == counts.sum()).all() and (drawn[:, counts == 0] == 0).all()
    np.testing.assert_allclose(drawn.mean(axis=0), counts, rtol=0.05)
    np.testing.assert_array_equal(curve_module._drawer(counts, compiled)(np.random.default_rng(2), 4000), drawn)
    for kernel in (None, compiled):
        none = curve_module._drawer(np.zeros(3, dtype=np.int64), kernel)(np.random.default_rng(2), 3)
        assert none.shape == (3, 3) and none.dtype == np.int64 and not none.any()


@pytest.mark.parametrize("kind", ["rounded", "one class", "two values", "one value"])
def test_the_band_is_the_same_compiled_or_not(monkeypatch, kind):
    """The same resamples (two seeded streams, blocks sized by the distinct probabilities alone) refitted by
    the kernel or by lowess_rows give the same band and intervals, to 1e-12; on one thread or two, the same."""
    rng = np.random.default_rng(8)
    p = np.round(rng.beta(2, 3, 500), 3)
    y = (rng.random(500) < p).astype(int)
    y[:3] = 1
    if kind == "one class":
        y[:] = 0
    if kind == "two values":
        p = np.where(p < 0.4, 0.2, 0.7)
    if kind == "one value":
        p[:] = 0.3
    sc = ScoreCounts.from_arrays(y, p)
    monkeypatch.setattr(curve_module, "NUMPY_BUDGET", 0)  # the kernel, however small the band
    runs = []
    for on in (True, False):
        with kernels_on(on):
            runs.append(calibration_curve(sc, bootstrap=BootstrapSettings(400, 3), budget=10**10))
    monkeypatch.setattr(curve_module.os, "cpu_count", lambda: 1)
    with kernels_on(True):
        runs.append(calibration_curve(sc, bootstrap=BootstrapSettings(400, 3), budget=10**10))
    compiled, numpy_, one_thread = runs
    assert compiled.resamples == numpy_.resamples == 400
    for got in (numpy_, one_thread):
        np.testing.assert_allclose(got.low, compiled.low, rtol=0, atol=1e-12)
        np.testing.assert_allclose(got.high, compiled.high, rtol=0, atol=1e-12)
        for a, b in zip((got.eavg, got.e50, got.e90, got.emax), (compiled.eavg, compiled.e50, compiled.e90,
                                                                 compiled.emax), strict=True):
            assert a.value == b.value
            assert a.ci.low == pytest.approx(b.ci.low, abs=1e-12) and a.ci.high == pytest.approx(b.ci.high, abs=1e-12)
    assert one_thread.low == compiled.low and one_thread.eavg.ci == compiled.eavg.ci  # the same arithmetic


def test_the_default_budget_gives_continuous_probabilities_their_band():
    """2,000 rows of continuous probabilities (1,965 distinct): every resample with the kernel (BUDGET); without
    it (numpy, NUMPY_BUDGET) no band, and the reason."""
    rng = np.random.default_rng(0)
    p = np.round(rng.beta(2, 5, 2000), 5)
    y = (rng.random(2000) < p * 1.2).astype(int)
    sc = ScoreCounts.from_arrays(y, p)
    with kernels_on(True):
        c = calibration_curve(sc)
    assert c.distinct > 1900 and c.resamples == 2000 and c.note is None and c.eavg.ci is not None
    assert c.eavg.ci.low <= c.eavg.value <= c.eavg.ci.high
    with kernels_on(False):
        slow = calibration_curve(sc)
    assert slow.resamples == 0 and slow.low is None and "budget of 4,000,000" in slow.note
    assert slow.eavg.value == c.eavg.value


def test_statsmodels_lowess_on_the_rows_without_ties():
    rng = np.random.default_rng(1)
    for n in (3, 10, 40, 200, 2000):
        p = rng.random(n)
        y = (rng.random(n) < p).astype(float)
        want = sm_lowess(y, p, frac=2 / 3, it=0, delta=0.01 * (p.max() - p.min()))
        xs, count, events, _ = by_distinct(y, p)
        got = lowess_counts(xs, count, events).fitted
        np.testing.assert_allclose(got[np.searchsorted(xs, want[:, 0])], want[:, 1], rtol=0, atol=5e-5)


def test_small_and_degenerate_inputs():
    one = lowess_counts(np.array([0.3]), np.array([4]), np.array([1]))
    assert one.fitted.tolist() == [0.25]  # a single distinct probability: its observed frequency (clowess too)
    two = lowess_counts(np.array([0.2, 0.6]), np.array([1, 1]), np.array([0, 1]))
    np.testing.assert_allclose(two.fitted, clowess([0.2, 0.6], [0, 1]), atol=1e-15)
    assert weighted_quantile(np.array([3.0, 1.0, 2.0]), np.array([1, 2, 1]), 0.5) == np.percentile([1, 1, 2, 3], 50)


@settings(max_examples=15, deadline=None)
@given(st.integers(5, 60), st.integers(0, 20), st.integers(0, 2**32 - 1))
def test_e_statistics_are_val_probs(n, digits, seed):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    if digits:
        p = np.round(p * digits) / digits
    y = (rng.random(n) < p).astype(int)
    c = calibration_curve(ScoreCounts.from_arrays(y, p), bootstrap=None)
    got = [c.eavg.value, c.e50.value, c.e90.value, c.emax.value]
    np.testing.assert_allclose(got, val_prob(y.astype(float), p), rtol=0, atol=1e-12)
    assert c.low is None and "no bootstrap" in c.note


def test_brier_decomposition_is_exact_and_matches_the_rows():
    rng = np.random.default_rng(3)
    p = np.round(rng.random(500), 1)
    y = (rng.random(500) < np.clip(p + 0.1, 0, 1)).astype(int)
    d = brier_decomposition(ScoreCounts.from_arrays(y, p))
    assert d.brier == pytest.approx(np.mean((p - y) ** 2), abs=1e-12)
    assert d.brier == pytest.approx(d.reliability - d.resolution + d.uncertainty, abs=1e-12)
    xs, count, events, _ = by_distinct(y, p)
    freq, base = events / count, y.mean()
    assert d.reliability == pytest.approx(np.sum(count * (xs - freq) ** 2) / 500, abs=1e-12)
    assert d.resolution == pytest.approx(np.sum(count * (freq - base) ** 2) / 500, abs=1e-12)
    assert d.uncertainty == pytest.approx(base * (1 - base), abs=1e-15)
    assert d.scaled_brier == pytest.approx(1 - np.mean((p - y) ** 2) / np.mean((base - y) ** 2), abs=1e-12)
    one_class = brier_decomposition(ScoreCounts.from_arrays(np.zeros(4, dtype=int), np.array([0.1, 0.2, 0.2, 0.3])))
    assert one_class.scaled_brier is None and "one class" in one_class.note


def _binned_reference(y, p, edges):
    """Stephenson, Coelho & Jolliffe (2008), from the rows: each bin as sklearn's calibration_curve assigns it."""
    at = np.searchsorted(edges[1:-1], p, side="left")
    n, base = len(y), y.mean()
    rel = res = wbv = wbc = 0.0
    for k in np.unique(at):
        pk, yk = p[at == k], y[at == k]
        rel += len(pk) * (pk.mean() - yk.mean()) ** 2
        res += len(pk) * (yk.mean() - base) ** 2
        wbv += np.sum((pk - pk.mean()) ** 2)
        wbc += 2 * np.sum((yk - yk.mean()) * (pk - pk.mean()))
    return rel / n, res / n, base * (1 - base), wbv / n, wbc / n


@pytest.mark.parametrize("seed, decimals", [(0, 1), (1, 3), (2, 6)])
def test_the_binned_decomposition_is_exact_and_equals_the_rows(seed, decimals):
    """Over the table's bins (equal width, equal count, on bin edges and with empty bins), with the two
    within-bin terms: brier = reliability - resolution + uncertainty + variance - covariance to 1e-12."""
    rng = np.random.default_rng(seed)
    p = np.round(rng.beta(2, 5, 700), decimals)
    p[:5] = [0.0, 0.1, 0.5, 1.0, 0.3]  # on the edges
    y = (rng.random(700) < np.clip(1.2 * p, 0, 1)).astype(int)
    for edges in (np.linspace(0, 1, 11), np.array([0, 0.2, 0.25, 0.9, 1.0]),
                  np.unique(np.percentile(p, np.linspace(0, 100, 6)))):
        edges = edges.astype(float)
        edges[0], edges[-1] = min(edges[0], 0.0), max(edges[-1], 1.0)
        d = brier_decomposition(ScoreCounts.from_arrays(y, p), edges, "some bins")
        want = _binned_reference(y, p, edges)
        got = (d.reliability, d.resolution, d.uncertainty, d.within_variance, d.within_covariance)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
        assert d.brier == pytest.approx(np.mean((p - y) ** 2), abs=1e-12)
        assert d.brier == pytest.approx(d.reliability - d.resolution + d.uncertainty + d.within_variance
                                        - d.within_covariance, abs=1e-12)
        assert d.to_dict()["bins"].startswith("some bins")


def test_the_report_decomposes_over_the_tables_bins_on_every_path(spill_dir):
    """Continuous probabilities: over the distinct ones the reliability was nearly the Brier score itself; over
    the table's bins it is the calibration term, the same in memory and in batches (spilled too)."""
    rng = np.random.default_rng(12)
    p = rng.beta(2, 5, 4000)
    y = (rng.random(4000) < p).astype(int)
    memory = assay.evaluate(y, y_score=p, bootstrap=200).probabilistic.brier_decomposition
    assert memory.reliability < 0.01 < memory.brier and "10 equal-width bins" in memory.binning
    want = _binned_reference(y, p, np.linspace(0, 1, 11))
    np.testing.assert_allclose((memory.reliability, memory.resolution, memory.uncertainty, memory.within_variance,
                                memory.within_covariance), want, rtol=0, atol=1e-12)
    parts = [(y[a:a + 500], p[a:a + 500]) for a in range(0, 4000, 500)]
    for budget in (None, 20_000):
        got = evaluate_batches(parts, memory=budget, bootstrap=200).probabilistic.brier_decomposition
        for name in ("reliability", "resolution", "uncertainty", "within_variance", "within_covariance", "brier"):
            assert getattr(got, name) == pytest.approx(getattr(memory, name), rel=1e-9, abs=1e-12), (budget, name)
    quantile = assay.evaluate(y, y_score=p, bootstrap=200, calibration_strategy="quantile")
    edges = quantile.probabilistic.calibration.edges
    d = quantile.probabilistic.brier_decomposition
    np.testing.assert_allclose((d.reliability, d.resolution, d.uncertainty, d.within_variance, d.within_covariance),
                               _binned_reference(y, p, edges), rtol=0, atol=1e-12)
    assert "equal-count" in d.binning or "quantile" in d.binning


def test_the_band_holds_the_curve_and_is_reproducible():
    rng = np.random.default_rng(4)
    p = np.round(rng.beta(2, 3, 400), 2)
    y = (rng.random(400) < p).astype(int)
    sc = ScoreCounts.from_arrays(y, p)
    c = calibration_curve(sc, bootstrap=BootstrapSettings(300, 5), budget=10**8)
    assert c.resamples == 300 and c.note is None
    observed, low, high = (np.array(v, dtype=float) for v in (c.observed, c.low, c.high))
    ok = np.isfinite(low)
    assert ok.mean() > 0.9 and np.all(low[ok] <= observed[ok] + 1e-12) and np.all(observed[ok] <= high[ok] + 1e-12)
    for e in (c.eavg, c.e50, c.e90, c.emax):
        assert e.ci is not None and e.ci.low <= e.ci.high and "bootstrap-percentile" in e.method
    again = calibration_curve(sc, bootstrap=BootstrapSettings(300, 5), budget=10**8)
    assert again.low == c.low and again.eavg.ci == c.eavg.ci


def test_the_budget_cuts_the_resamples_then_the_band_with_a_reason():
    rng = np.random.default_rng(5)
    p = np.round(rng.random(300), 2)
    y = (rng.random(300) < p).astype(int)
    sc = ScoreCounts.from_arrays(y, p)
    fewer = calibration_curve(sc, bootstrap=BootstrapSettings(2000, 0), budget=4_000_000)
    assert 200 <= fewer.resamples < 2000 and "of the 2,000 resamples" in fewer.note
    none = calibration_curve(sc, bootstrap=BootstrapSettings(2000, 0), budget=10_000)
    assert none.resamples == 0 and none.low is None and none.eavg.ci is None and "budget" in none.eavg.note
    assert none.eavg.value == fewer.eavg.value


def test_json_text_and_chart():
    rng = np.random.default_rng(6)
    p = np.round(rng.random(200), 2)
    y = (rng.random(200) < p).astype(int)
    r = assay.evaluate(y, y_score=p, bootstrap=300)
    got = json.loads(json.dumps(r.to_dict()))["probabilistic"]
    assert "calibration_hierarchy" in got  # kept beside the new keys
    curve = got["calibration_curve"]
    assert set(curve["curve"]) == {"p", "observed", "low", "high"} and len(curve["curve"]["p"]) == 51
    assert curve["eavg"]["ci"] is not None and 200 <= curve["resamples"] <= 300 and "rms::val.prob" in curve["method"]
    assert curve["eavg"]["value"] == pytest.approx(val_prob(y.astype(float), p)[0], abs=1e-12)
    brier = got["brier_decomposition"]
    assert brier["brier"] == pytest.approx(got["brier"]["value"], abs=1e-12)
    assert r.probabilistic.moderate.eavg.value == curve["eavg"]["value"]
    text = str(r)
    assert "Calibration: moderate (lowess, as rms::val.prob)" in text and "Eavg" in text and "resolution" in text
    svg = str(calibration_chart(r.probabilistic.calibration, r.probabilistic.moderate).render())
    assert "lowess, as rms::val.prob" in svg and "95% bootstrap band" in svg
    assert "lowess" not in str(calibration_chart(r.probabilistic.calibration).render())


def test_a_summary_kept_on_disk_gets_nulls_and_a_reason(spill_dir):
    rng = np.random.default_rng(9)
    y = (rng.random(30_000) < 0.35).astype(int)
    p = rng.random(30_000) * 0.6 + 0.35 * y
    parts = [(y[a:a + 3000], p[a:a + 3000]) for a in range(0, 30_000, 3000)]
    got = evaluate_batches(parts, memory=200_000)
    assert got.ranking.summary.on_disk
    curve = got.to_dict()["probabilistic"]["calibration_curve"]
    assert curve["eavg"]["value"] is None and curve["curve"]["p"] is None and "on disk" in curve["note"]
    out = got.to_dict()["probabilistic"]  # the ECE's interval and the smooth ECE (tests/test_ece.py): likewise
    assert out["calibration"]["ece"] is not None
    assert out["calibration"]["ece_interval"]["low"] is None and "on disk" in out["calibration"]["ece_interval"]["note"]
    whole = assay.evaluate(y, y_score=p).probabilistic.smooth_ece  # a fold of the walk: on disk too, the same
    assert out["smooth_ece"]["value"] == pytest.approx(whole.value, rel=1e-12) and whole.value is not None
    assert out["smooth_ece"]["bandwidth"] == pytest.approx(whole.bandwidth, rel=1e-12)
    brier = got.to_dict()["probabilistic"]["brier_decomposition"]  # one walk: on disk too
    assert brier["brier"] == pytest.approx(np.mean((p - y) ** 2), rel=1e-9)
    assert "lowess calibration curve (rms::val.prob): not computed" in str(got)


def test_weights_are_refused_with_a_reason():
    sc = ScoreCounts(np.array([0.8, 0.3]), np.array([1.5, 0.5]), np.array([0.5, 2.0]))
    c = calibration_curve(sc)
    assert c.eavg.value is None and "weighted" in c.note


@pytest.mark.parametrize("digits", [None, 2])
def test_beyond_numpys_budget_the_compiled_kernel_fits_the_curve(monkeypatch, digits):
    """Beyond CURVE_BUDGET the compiled kernel fits the curve: lowess_counts' curve and E-statistics to 1e-12, the
    same fits and windows (so the same band budget: none here, with its reason); beyond COMPILED_CURVE_BUDGET (or
    without the kernels), null with the reason, a group's share of the budget named."""
    from assay.inference.calibration_curve import band_share

    rng = np.random.default_rng(7)
    p = rng.random(3000) if digits is None else np.round(rng.random(3000), digits)
    sc = ScoreCounts.from_arrays((rng.random(3000) < p).astype(int), p)
    numpy_fit = calibration_curve(sc, bootstrap=None)
    assert numpy_fit.eavg.value is not None
    monkeypatch.setattr(curve_module, "CURVE_BUDGET", 10)
    compiled_fit = calibration_curve(sc, bootstrap=BootstrapSettings(2000, 0))
    np.testing.assert_allclose(compiled_fit.observed, numpy_fit.observed, rtol=0, atol=1e-12)
    for name in ("eavg", "e50", "e90", "emax"):
        assert getattr(compiled_fit, name).value == pytest.approx(getattr(numpy_fit, name).value, abs=1e-12)
    assert (compiled_fit.fits, compiled_fit.distinct) == (numpy_fit.fits, numpy_fit.distinct)
    monkeypatch.setattr(curve_module, "BUDGET", 10**6)
    banded = calibration_curve(sc, bootstrap=BootstrapSettings(2000, 0))
    assert banded.low is None and "no band" in banded.note and str(compiled_fit.fits) in banded.note
    with kernels_on(False):
        c = calibration_curve(sc)
    assert c.eavg.value is None and c.to_dict()["curve"]["p"] is None and "rounding the probabilities" in c.note
    monkeypatch.setattr(curve_module, "COMPILED_CURVE_BUDGET", 10**5)
    with band_share(0.01):
        c = calibration_curve(sc)
    assert c.eavg.value is None and "this report's 0.01 of one report's" in c.note


def test_reports_made_together_share_one_reports_band_budget():
    """100 groups of 30,000 rows each got a full band (0.25 s a group, 25 s in all): by group, the bands
    together cost about one report's, and each group's note says so."""
    from assay.inference.calibration_curve import band_share

    rng = np.random.default_rng(13)
    p = np.round(rng.random(3000), 3)
    y = (rng.random(3000) < p).astype(int)
    sc = ScoreCounts.from_arrays(y, p)
    whole = calibration_curve(sc, bootstrap=BootstrapSettings(2000, 0))
    with band_share(0.001):
        shared = calibration_curve(sc, bootstrap=BootstrapSettings(2000, 0))
    assert whole.resamples == 2000 and shared.resamples < whole.resamples
    assert "this report's 0.001 of one report's" in (shared.note or "")
    assert shared.eavg.value == whole.eavg.value  # the curve itself is the same
    p = np.round(rng.random(12_000), 3)
    y = (rng.random(12_000) < p).astype(int)
    groups = np.repeat(np.array(["a", "b", "c", "d", "e", "f", "g", "h"]), 1500)
    r = assay.evaluate(y, y_score=p, by={"g": groups}, bootstrap=2000)
    got = r.groups["a"].probabilistic.moderate
    with band_share(1 / 8):
        want = calibration_curve(ScoreCounts.from_arrays(y[:1500], p[:1500]), bootstrap=BootstrapSettings(2000, 0))
    assert 200 <= got.resamples < 2000 and "this report's 0.12 of one report's" in got.note
    assert (got.resamples, got.note, got.eavg.ci) == (want.resamples, want.note, want.eavg.ci)
