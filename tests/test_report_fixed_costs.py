"""The per-report shortcuts give the very numbers of the plain computations (issue 21: a report by group
pays each report's fixed costs once per group).

Each shortcut is checked, bit for bit (tolerance 0), against the computation it replaces, written out here:
the bootstrap's intervals against ``np.quantile`` of each statistic's own replicates; the proportions' intervals
(one vectorised call) against ``proportion_bounds`` one proportion at a time, for every method; the stack's
one-vs-rest cells (einsum sums of whole counts) against numpy's sums; the best thresholds of one look at the
pieces against a brute force over every ROC point; the smooth ECE against the bisection that evaluates its
bandwidth again; the true class's probability and the class indicators against their definitions. With ties,
empty classes and zero denominators.
"""

from __future__ import annotations

import numpy as np
import pytest

from assay.evaluation.classification import analyse_confusion
from assay.inference.bootstrap import BootstrapSettings, bootstrap_matrix_ci
from assay.inference.ece import GRID, MIN_BANDWIDTH, smooth_ece_of_masses
from assay.inference.proportion import PROPORTION_METHODS, proportion_bounds
from assay.metrics.confusion import (
    BINARY_METRICS,
    MATRIX_METRICS,
    Cells,
    MatrixStack,
    one_vs_rest,
)
from assay.metrics.ranking import BestFold, roc_points, threshold_counts
from assay.summaries.confusion import ConfusionCounts
from assay.summaries.probabilities import (
    ProbabilitySummary,
    information_loss_bits_per_instance,
)
from assay.summaries.scores import ScoreCounts
from assay.summaries.walk import walk

# ----------------------------------------------------------------------------
# the bootstrap: one quantile call for the statistics defined in every resample


def test_bootstrap_intervals_are_each_statistics_own_quantiles():
    counts = np.array([[40, 3, 0], [5, 30, 2], [1, 0, 4]])  # a small class: ties among the replicates
    seen: dict[str, list[np.ndarray]] = {}

    def kept(name, fn):
        def statistic(stack):
            values = np.asarray(fn(stack), dtype=np.float64)
            seen.setdefault(name, []).append(values.copy())
            return values
        return statistic

    def sometimes_undefined(stack):  # NaN in about 0.5% of the resamples: the interval of the rest
        v = MATRIX_METRICS["accuracy"].compute(stack)
        return np.where(np.arange(len(v)) % 200 == 7, np.nan, v)

    def mostly_undefined(stack):  # NaN in half of them: no interval
        v = MATRIX_METRICS["kappa"].compute(stack)
        return np.where(np.arange(len(v)) % 2 == 0, np.nan, v)

    statistics = {"accuracy": kept("accuracy", MATRIX_METRICS["accuracy"].compute),
                  "kappa": kept("kappa", MATRIX_METRICS["kappa"].compute),
                  "recall_2": kept("recall_2", lambda s: BINARY_METRICS["recall"].compute(one_vs_rest(s, 2))),
                  "some": kept("some", sometimes_undefined), "most": kept("most", mostly_undefined)}
    got = bootstrap_matrix_ci(counts, statistics, confidence=0.9, settings=BootstrapSettings(3000, 5))
    assert list(got) == list(statistics)
    for name, chunks in seen.items():
        replicates = np.concatenate(chunks)
        finite = np.isfinite(replicates)
        assert got[name].defined == finite.mean()
        if finite.mean() < 0.99:
            assert got[name].ci is None and "undefined in 50.0%" in got[name].note
            continue
        low, high = np.quantile(replicates[finite], [0.05, 0.95])
        assert (got[name].ci.low, got[name].ci.high) == (float(low), float(high))
    assert 0.99 <= got["some"].defined < 1.0


@pytest.mark.parametrize("k", [2, 3, 6])
def test_a_stacks_cells_are_the_plain_sums_of_its_counts(k):
    rng = np.random.default_rng(k)
    stack = rng.integers(0, 50, (300, k, k))
    stack[:, 0, :] = 0  # an empty actual class
    stack[:, :, k - 1] = 0  # a class never predicted
    fast = one_vs_rest(stack.view(MatrixStack))
    plain = one_vs_rest(stack.astype(np.float64))
    for a, b in zip(fast, plain):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    recall = BINARY_METRICS["recall"].compute(fast)
    assert np.isnan(recall[:, 0]).all()  # no actual instances: 0 / 0 is NaN, not 0


def test_ratios_are_nan_where_the_denominator_is_zero_only():
    c = Cells(np.array([0.0, 3.0, 0.0, 2.0]), np.array([0.0, 1.0, 4.0, 0.0]), np.array([0.0, 0.0, 1.0, 0.0]),
              np.array([5.0, 2.0, 0.0, 0.0]))
    precision = BINARY_METRICS["precision"].compute(c)
    npv = BINARY_METRICS["npv"].compute(c)
    assert np.isnan(precision[0]) and precision[1:].tolist() == [3.0 / 4.0, 0.0, 1.0]
    assert npv[:3].tolist() == [1.0, 1.0, 0.0] and np.isnan(npv[3])
    assert BINARY_METRICS["accuracy"].compute(Cells(*(np.float64(0.0),) * 4)).shape == ()


# ----------------------------------------------------------------------------
# the proportions' intervals: one vectorised call


@pytest.mark.parametrize("method", PROPORTION_METHODS)
@pytest.mark.parametrize("counts", [
    [[50, 7], [9, 34]],
    [[60, 0], [1, 0]],  # one actual positive, nothing predicted positive: zero denominators
    [[20, 3, 0], [4, 15, 0], [0, 2, 0]],  # a class never predicted, one never right
])
def test_each_proportions_interval_is_its_own_call(method, counts):
    counts = np.array(counts)
    k = len(counts)
    labels = tuple("abc"[:k])
    positive = "b" if k == 2 else None
    analysis = analyse_confusion(ConfusionCounts(labels, counts), positive=positive, confidence=0.9,
                                 interval=method)
    checked = 0

    def check(estimate, successes, trials):
        nonlocal checked
        if estimate.value is None:
            assert trials == 0
            return
        low, high = proportion_bounds(successes, trials, confidence=0.9, method=method)
        assert (estimate.ci.low, estimate.ci.high) == (float(low), float(high)) and estimate.method == method
        checked += 1

    for j, label in enumerate(labels):
        cells = one_vs_rest(counts, j)
        for name in ("precision", "recall", "specificity", "npv", "fpr", "fnr", "fdr"):
            check(analysis.per_class[label][name], *BINARY_METRICS[name].proportion(cells))
    if positive is not None:
        cells = one_vs_rest(counts, 1)
        for name, spec in BINARY_METRICS.items():
            if spec.kind == "proportion":
                check(analysis.metrics[name], *spec.proportion(cells))
    check(analysis.metrics["no_information_rate"], *MATRIX_METRICS["no_information_rate"].proportion(counts))
    assert checked >= 10


# ----------------------------------------------------------------------------
# the best thresholds: a piece whose best is the best of all is not looked at again


def test_the_best_thresholds_of_one_look_are_the_brute_forces():
    # objectives with exact ties across pieces and values within 1e-12 of the best without being it
    objectives = ((lambda f, t: np.round(t - f, 1), "max"),
                  (lambda f, t: np.round(t - f, 1) + 1e-14 * f, "max"),
                  (lambda f, t: np.round(f - t, 1) - 1e-14 * t, "min"),
                  (lambda f, t: np.round(t - f, 1) + 1.5e-12 * f, "max"),  # near sets that differ by piece
                  (lambda f, t: np.round(f - t, 1) - 1.5e-12 * t, "min"),
                  (lambda f, t: np.hypot(f, 1.0 - t), "min"))
    rng = np.random.default_rng(11)
    for trial in range(200):
        n = int(rng.integers(2, 120))
        y = rng.random(n) < 0.4
        y[0], y[1] = True, False
        s = np.round(rng.random(n), 1) if trial % 2 else rng.random(n)
        sc = ScoreCounts.from_arrays(y, s, labels=("no", "yes"))
        tc = threshold_counts(sc)
        fpr, tpr, _ = roc_points(tc)
        columns = {"scores": sc.scores, "positives": sc.positives, "negatives": sc.negatives, "tp": tc.tp,
                   "fp": tc.fp}
        chunk = int(rng.integers(1, 8))
        found = walk(columns, [BestFold(objectives)], n_positive=tc.n_positive, n_negative=tc.n_negative,
                     chunk=chunk, workers=1)[0]
        for (objective, best), (first, value, hits) in zip(objectives, found):
            values = objective(fpr, tpr)
            target = values.max() if best == "max" else values.min()
            near = np.flatnonzero(np.abs(values - target) <= 1e-12 * max(1.0, abs(target)))
            assert (first, value, hits) == (int(near[0]), float(values[near[0]]), len(near))


# ----------------------------------------------------------------------------
# the smooth ECE: each bandwidth's value computed once


def _smooth_ece_plain(values, residual, n):
    """smECE by the bisection written plainly: the value at the final bandwidth computed again."""
    x = np.clip(values, 0.0, 1.0) * GRID
    i = np.minimum(np.floor(x).astype(np.int64), GRID - 1)
    frac = x - i
    mass = (np.bincount(i, weights=residual * (1.0 - frac), minlength=GRID + 1)
            + np.bincount(i + 1, weights=residual * frac, minlength=GRID + 1))
    r_hat = np.fft.rfft(np.concatenate([mass, mass[-2:0:-1]]))
    trapezoid = np.ones(GRID + 1)
    trapezoid[[0, -1]] = 0.5

    def at(sigma):
        kernel = np.exp(-0.5 * (np.pi * np.arange(GRID + 1) * sigma) ** 2)
        return float((trapezoid * np.abs(np.fft.irfft(r_hat * kernel, 2 * GRID)[:GRID + 1])).sum() / n)

    low, high = 0.0, 1.0
    if at(1.0) >= 1.0:
        return at(1.0), 1.0
    for _ in range(16):
        mid = (low + high) / 2.0
        if mid < MIN_BANDWIDTH or mid < at(mid):
            low = mid
        else:
            high = mid
    return at(high), high


@pytest.mark.parametrize("case", ["calibrated", "ties", "perfect", "one_class"])
def test_the_smooth_ece_is_the_plain_bisections(case):
    rng = np.random.default_rng(3)
    p = {"calibrated": rng.random(500), "ties": np.round(rng.random(500), 1), "perfect": np.repeat([0.0, 1.0], 250),
         "one_class": np.full(500, 0.7)}[case]
    y = (rng.random(500) < p).astype(float) if case != "one_class" else np.zeros(500)
    assert smooth_ece_of_masses(p, p - y, 500.0) == _smooth_ece_plain(p, p - y, 500.0)


# ----------------------------------------------------------------------------
# the probability summary's per-row reads


def test_the_true_class_probability_is_read_from_each_row():
    rng = np.random.default_rng(8)
    proba = rng.dirichlet([1, 1, 1], 200)
    proba[:5] = [1.0, 0.0, 0.0]  # probability 0 for the true class: infinite information loss
    codes = rng.integers(0, 3, 200)
    codes[:5] = 1
    for p in (proba, np.asfortranarray(proba), proba[::-1][::-1]):
        got = information_loss_bits_per_instance(codes, p)
        with np.errstate(divide="ignore"):
            assert np.array_equal(got, np.array([-np.log2(p[i, c]) for i, c in enumerate(codes)]))
    summary = ProbabilitySummary.from_codes(codes, proba, labels=("a", "b", "c"))
    assert summary.quadratic.count.tolist() == [int((codes == j).sum()) for j in range(3)]
    empty = ProbabilitySummary.from_codes(np.zeros(4, dtype=int), np.tile([0.6, 0.4, 0.0], (4, 1)),
                                          labels=("a", "b", "c"))
    assert empty.quadratic.count.tolist() == [4, 0, 0] and empty.quadratic.total[1:].tolist() == [0.0, 0.0]
