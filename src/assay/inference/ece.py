"""The expected calibration error's bootstrap interval, and the smooth ECE of Błasiok & Nakkiran (2023).

Both work on *cells*: the distinct (probability, outcome) pairs with their instance counts, which is
what a two-class score summary held in memory keeps (a distinct score's positives and negatives), and
what rows of probabilities reduce to. Redrawing n instances with replacement is a multinomial draw of
n over the cells with probabilities count / n, so the bootstrap resamples exactly the instances
(Efron & Tibshirani 1993, ch. 13 percentile interval) at a cost per resample of the number of cells.

* :func:`ece_interval`: the percentile interval of the binned ECE (the reliability table's bins,
  equal-width fixed; quantile edges recomputed on each resample, as the table computes them), within a
  budget of ``BUDGET`` terms (resamples x cells); beyond it, fewer resamples or none, with the reason.
* :func:`smooth_ece`: smECE_σ = (1/n) ∫_0^1 |Σ_i K_σ(t, f_i)(f_i - y_i)| dt, K_σ the reflected Gaussian
  kernel on [0, 1], at the bandwidth σ* with smECE_σ* = σ* (the paper's fixed point, found by bisection
  as relplot's ``smECE`` finds it). The masses are linearly binned on a grid of ``GRID`` intervals and
  convolved with the kernel, infinitely reflected, by FFT.

References
----------
J. Błasiok, P. Nakkiran (2023), "Smooth ECE: Principled Reliability Diagrams via Kernel Smoothing",
arXiv:2309.12236 (ICLR 2024); reference implementation ``relplot`` (apple/ml-calibration).
M. P. Naeini, G. F. Cooper, M. Hauskrecht (2015), AAAI 29:2901-2907 (ECE).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from assay.inference.bootstrap import BootstrapSettings
from assay.metrics.ranking import walk_summary, want
from assay.summaries.disk import is_on_disk

__all__ = [
    "BUDGET",
    "GRID",
    "MIN_BANDWIDTH",
    "MIN_RESAMPLES",
    "SMOOTH_BUDGET",
    "EceInterval",
    "SmoothEce",
    "binning_text",
    "cell_count",
    "cells_of_summary",
    "cells_of_values",
    "ece_interval",
    "ece_interval_of_summary",
    "SmoothEceFold",
    "ask_smooth_ece",
    "smooth_ece",
    "smooth_ece_of_masses",
    "smooth_ece_of_summary",
]

BUDGET = 1_000_000
"""The ECE bootstrap's cost at most, in terms (resamples x cells): numpy's multinomial draw takes about
100 ns a term here (2 cores shared), so about 0.1 s at most: all 2,000 resamples up to 500 cells, 200 (the
least) up to 5,000 cells; beyond, no interval, with the reason."""

MIN_RESAMPLES = 200
"""Fewer resamples than this give no interval (at 200, a 95% interval's bounds rest on 5 resamples each)."""

SMOOTH_BUDGET = 2_000_000
"""The smooth ECE's rows or cells at most, where they are given as such (the top label's confidence of several
classes, two classes' probabilities given as two columns): binning them on the grid is one pass (about 30 ms per
10^6 here; then about 1 ms per bisection step); beyond, not computed, with the reason. Two classes' scores are
binned by a fold of the summary's walk (:class:`SmoothEceFold`), at any size."""

GRID = 1 << 13
"""Grid intervals on [0, 1] for the smooth ECE's convolution (spacing 1.2e-4, below ``MIN_BANDWIDTH`` / 8)."""

MIN_BANDWIDTH = 0.001
"""The smallest bandwidth searched, as relplot's ``smECE(eps=0.001)``."""

BISECTIONS = 16
"""Bisection steps for the fixed point σ* on [0, 1] (precision 1.5e-5; relplot takes 10)."""

ON_DISK = ("not computed: the summary is kept on disk or on Spark's executors, and each resample would read all "
           "its distinct scores again (not yet)")


def binning_text(strategy: str, bins: int) -> str:
    """The bins an ECE was computed over, in words: '10 equal-width bins (uniform)'."""
    kind = "equal-width" if strategy == "uniform" else "equal-count"
    return f"{bins} {kind} bins ({strategy}), as sklearn.calibration.calibration_curve bins"


@dataclass(frozen=True)
class EceInterval:
    """The percentile bootstrap interval of the binned ECE, or None with the reason (``note``)."""

    low: float | None
    high: float | None
    method: str | None
    resamples: int
    confidence: float
    binning: str
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"low": self.low, "high": self.high, "method": self.method, "resamples": self.resamples,
                "binning": self.binning, "note": self.note}


@dataclass(frozen=True)
class SmoothEce:
    """The smooth ECE and its bandwidth σ* (smECE_σ* = σ*), or None with the reason (``note``)."""

    value: float | None
    bandwidth: float | None
    method: str
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "bandwidth": self.bandwidth, "method": self.method, "note": self.note}


SMOOTH_METHOD = ("smooth ECE (Błasiok & Nakkiran 2023): reflected Gaussian kernel, bandwidth at the fixed point "
                 "smECE_σ = σ")


def cells_of_values(value: np.ndarray, outcome: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(values ascending, outcomes, counts) of the distinct (value, outcome) pairs of some instances."""
    distinct, where = np.unique(np.asarray(value, dtype=np.float64), return_inverse=True)
    pos = np.bincount(where.reshape(-1), weights=np.asarray(outcome, dtype=np.float64), minlength=len(distinct))
    both = np.bincount(where.reshape(-1), minlength=len(distinct))
    c = np.stack([both - pos, pos], axis=1).reshape(-1).astype(np.int64)
    v = np.repeat(distinct, 2)
    o = np.tile(np.array([False, True]), len(distinct))
    keep = c > 0
    return v[keep], o[keep], c[keep]


def cells_of_summary(summary: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray] | str:
    """The cells of a two-class score summary in memory (scores the probabilities of ``labels[1]``, kept
    descending), ascending by value, or the reason there are none. No sort: the scores are reversed."""
    reason = _not_in_memory(summary)
    if reason is not None:
        return reason
    s = np.asarray(summary.scores, dtype=np.float64)[::-1]
    c = np.stack([np.asarray(summary.negatives)[::-1], np.asarray(summary.positives)[::-1]], axis=1)
    v = np.repeat(s, 2)
    o = np.tile(np.array([False, True]), len(s))
    c = c.reshape(-1).astype(np.int64)
    keep = c > 0
    return v[keep], o[keep], c[keep]


def cell_count(summary: Any) -> int:
    """The (probability, class) cells with instances of a two-class score summary in memory."""
    return int(np.count_nonzero(np.asarray(summary.positives)) + np.count_nonzero(np.asarray(summary.negatives)))


def _not_in_memory(summary: Any) -> str | None:
    if getattr(summary, "on_disk", False) or is_on_disk(summary.scores):
        return ON_DISK
    pos = np.asarray(summary.positives)
    neg = np.asarray(summary.negatives)
    if pos.dtype.kind == "f" and (np.any(pos != np.round(pos)) or np.any(neg != np.round(neg))):
        return "not computed: the instances are weighted (non-integer weights), so there are no instances to redraw"
    return None


def _quantile_edges(values: np.ndarray, counts: np.ndarray, bins: int) -> np.ndarray:
    """np.percentile(instances, linspace(0, 100, bins + 1)) of the instances the ascending cells count."""
    n = int(counts.sum())
    ends = np.cumsum(counts)
    virtual = (n - 1) * np.linspace(0.0, 1.0, bins + 1)
    below = np.floor(virtual)
    gamma = virtual - below
    below = np.minimum(below.astype(np.int64), n - 1)
    above = np.minimum(below + 1, n - 1)
    a = values[np.searchsorted(ends, below, side="right")]
    b = values[np.searchsorted(ends, above, side="right")]
    d = b - a
    return np.where(gamma >= 0.5, b - d * (1.0 - gamma), a + d * gamma)


def _ece_of(values: np.ndarray, outcome: np.ndarray, counts: np.ndarray, edges: np.ndarray,
            bin_of: Any) -> np.ndarray:
    """The ECE of each row of ``counts`` (resamples x cells), cells binned at ``edges``."""
    where = bin_of(values, edges)
    starts = np.flatnonzero(np.r_[True, where[1:] != where[:-1]])  # cells ascending: bins are contiguous
    gap = np.add.reduceat(counts * (values - outcome), starts, axis=1)
    return np.abs(gap).sum(axis=1) / counts.sum(axis=1)


def _refusal(cells: int, confidence: float, binning: str, bootstrap: BootstrapSettings | None,
             budget: int) -> EceInterval | None:
    """No interval, with the reason, when no bootstrap is asked for or it would exceed the budget."""
    if bootstrap is None:
        return EceInterval(None, None, None, 0, confidence, binning, "no interval: no bootstrap asked for")
    if bootstrap.resamples < MIN_RESAMPLES:
        return EceInterval(None, None, None, 0, confidence, binning, (
            f"no interval: {bootstrap.resamples:,} resamples asked for, fewer than {MIN_RESAMPLES}"))
    if budget // max(cells, 1) < MIN_RESAMPLES:
        return EceInterval(None, None, None, 0, confidence, binning, _beyond(budget))
    return None


def _beyond(budget: int) -> str:
    return (f"no interval: more than {budget // MIN_RESAMPLES:,} distinct (probability, class) cells, so "
            f"{MIN_RESAMPLES} resamples would exceed the budget of {budget:,} terms (resamples x cells); rounding "
            "the probabilities (e.g. to 3 decimals) gives the interval")


def ece_interval_of_summary(summary: Any, *, edges: np.ndarray, strategy: str, bin_of: Any, confidence: float,
                            bootstrap: BootstrapSettings | None, budget: int = BUDGET) -> EceInterval:
    """:func:`ece_interval` of a two-class score summary's probabilities (of ``labels[1]``): in memory only;
    the cells are counted before they are built, so a summary beyond the budget costs one count."""
    binning = binning_text(strategy, len(edges) - 1)
    reason = _not_in_memory(summary)
    if reason is not None:
        return EceInterval(None, None, None, 0, confidence, binning, reason)
    refused = _refusal(cell_count(summary), confidence, binning, bootstrap, budget)
    if refused is not None:
        return refused
    cells = cells_of_summary(summary)
    assert not isinstance(cells, str)
    return ece_interval(*cells, edges=edges, strategy=strategy, bin_of=bin_of, confidence=confidence,
                        bootstrap=bootstrap, budget=budget)


def ece_interval_of_rows(value: np.ndarray, outcome: np.ndarray, *, edges: np.ndarray, strategy: str, bin_of: Any,
                         confidence: float, bootstrap: BootstrapSettings | None,
                         budget: int = BUDGET) -> EceInterval:
    """:func:`ece_interval` of instances given one a row (the value binned, whether it is an event). The rows
    are reduced to cells (one sort), unless a first block of them already holds more distinct values than the
    budget affords cells: then no interval, with the reason, at the cost of that block's sort."""
    binning = binning_text(strategy, len(edges) - 1)
    value = np.asarray(value, dtype=np.float64)
    most = budget // MIN_RESAMPLES
    if len(value) > most and len(np.unique(value[:4 * most])) > most:
        return EceInterval(None, None, None, 0, confidence, binning, _beyond(budget))
    return ece_interval(*cells_of_values(value, outcome), edges=edges, strategy=strategy, bin_of=bin_of,
                        confidence=confidence, bootstrap=bootstrap, budget=budget)


def smooth_ece_of_rows(value: np.ndarray, outcome: np.ndarray, *, budget: int = SMOOTH_BUDGET) -> SmoothEce:
    """:func:`smooth_ece` of instances given one a row (no sort: each row is binned on the grid)."""
    v = np.asarray(value, dtype=np.float64)
    if len(v) > budget:
        return SmoothEce(None, None, SMOOTH_METHOD, (
            f"not computed: {len(v):,} instances to bin, beyond the budget of {budget:,}"))
    return _smooth(v, v - np.asarray(outcome, dtype=np.float64), float(len(v)), budget)


def ece_interval(values: np.ndarray, outcome: np.ndarray, counts: np.ndarray, *, edges: np.ndarray,
                 strategy: str, bin_of: Any, confidence: float,
                 bootstrap: BootstrapSettings | None, budget: int = BUDGET) -> EceInterval:
    """The percentile bootstrap interval of the ECE of cells (values ascending, inputs validated).

    Each resample redraws the n instances with replacement (a multinomial draw over the cells); with
    ``strategy="quantile"`` the edges are the resample's own quantiles, else ``edges``.
    ``bin_of(values, edges)`` is the table's binning (``assay.summaries.probabilities.bin_index``).

    >>> from assay.summaries.probabilities import bin_index
    >>> v, o, c = cells_of_values(np.array([0.1, 0.2, 0.8, 0.9] * 5), np.array([0, 1, 1, 1] * 5))
    >>> r = ece_interval(v, o, c, edges=np.linspace(0, 1, 11), strategy="uniform", bin_of=bin_index,
    ...                  confidence=0.95, bootstrap=BootstrapSettings(2000, 0))
    >>> r.low <= 0.3 <= r.high, r.resamples
    (True, 2000)
    """
    bins = len(edges) - 1
    binning = binning_text(strategy, bins)
    m = len(values)
    refused = _refusal(m, confidence, binning, bootstrap, budget)
    if refused is not None:
        return refused
    assert bootstrap is not None
    n = int(counts.sum())
    if n < 2:
        return EceInterval(None, None, None, 0, confidence, binning, "no interval: fewer than 2 instances")
    used = int(min(bootstrap.resamples, budget // max(m, 1)))
    rng = np.random.default_rng(bootstrap.seed)
    p = counts / n
    v = values
    o = outcome.astype(np.float64)
    block = max(1, min(used, 1_000_000 // max(m, 1)))
    out = np.empty(used)
    for first in range(0, used, block):
        size = min(block, used - first)
        drawn = rng.multinomial(n, p, size=size).astype(np.float64)
        if strategy == "quantile":
            for r in range(size):
                keep = drawn[r] > 0
                e = _quantile_edges(v[keep], drawn[r][keep], bins)
                out[first + r] = _ece_of(v[keep], o[keep], drawn[r:r + 1, keep], e, bin_of)[0]
        else:
            out[first:first + size] = _ece_of(v, o, drawn, edges, bin_of)
    alpha = 1.0 - confidence
    low, high = np.quantile(out, [alpha / 2.0, 1.0 - alpha / 2.0])
    note = None
    if used < bootstrap.resamples:
        note = (f"from {used:,} of the {bootstrap.resamples:,} resamples asked for (budget of {budget:,} terms: "
                f"resamples x {m:,} cells)")
    if strategy == "quantile":
        extra = "the quantile edges recomputed on each resample"
        note = extra if note is None else f"{note}; {extra}"
    return EceInterval(float(low), float(high), f"bootstrap-percentile ({used:,} resamples, instances redrawn)",
                       used, confidence, binning, note)


# ----------------------------------------------------------------------------
# smooth ECE


def _grid_masses(values: np.ndarray, weights: np.ndarray, grid: int) -> np.ndarray:
    """Linear binning of the masses ``weights`` at ``values`` in [0, 1] onto grid + 1 points i / grid."""
    x = np.clip(values, 0.0, 1.0) * grid
    i = np.minimum(np.floor(x).astype(np.int64), grid - 1)
    frac = x - i
    return (np.bincount(i, weights=weights * (1.0 - frac), minlength=grid + 1)
            + np.bincount(i + 1, weights=weights * frac, minlength=grid + 1))


def _reflected_kernel_fft(sigma: float, grid: int) -> np.ndarray:
    """The DFT of Σ_k φ_σ(d - 2k) (period 2: the infinitely reflected Gaussian) sampled at d = j / grid,
    j = 0 .. 2 grid - 1, times 1 / grid: its Fourier coefficients exp(-(π m σ)² / 2), m = 0 .. grid (the
    aliasing of the sampling is below 1e-100 for σ >= ``MIN_BANDWIDTH`` and ``GRID``)."""
    m = np.arange(grid + 1)
    return np.exp(-0.5 * (np.pi * m * sigma) ** 2)


def _even_periodic(mass: np.ndarray) -> np.ndarray:
    """The grid masses on [0, 1] extended evenly to period 2: reflection at 0 and 1, forever."""
    return np.concatenate([mass, mass[-2:0:-1]])


def smooth_ece_of_masses(values: np.ndarray, residual: np.ndarray, n: float, *,
                         grid: int = GRID) -> tuple[float, float]:
    """(smECE_σ*, σ*) of instances at ``values`` in [0, 1] with residual sums ``residual`` (Σ (f - y) of
    the instances at each value), n instances in all. Inputs validated.

    smECE_σ = (1/n) ∫_0^1 |Σ_j K_σ(t, v_j) r_j| dt, by the trapezoidal rule on the grid (the reflected
    kernel keeps each instance's mass on [0, 1], so the density's integral, relplot's denominator, is n).
    """
    return _smooth_of_grid(_grid_masses(values, residual, grid), n, grid)


def _smooth_of_grid(mass: np.ndarray, n: float, grid: int) -> tuple[float, float]:
    """:func:`smooth_ece_of_masses` from the residuals already binned on the grid (:func:`_grid_masses`)."""
    r_hat = np.fft.rfft(_even_periodic(mass))
    trapezoid = np.ones(grid + 1)
    trapezoid[[0, -1]] = 0.5

    def at(sigma: float) -> float:
        smooth_r = np.fft.irfft(r_hat * _reflected_kernel_fft(sigma, grid), 2 * grid)[:grid + 1]
        return float((trapezoid * np.abs(smooth_r)).sum() / n)

    low, high = 0.0, 1.0  # smECE_σ - σ decreases in σ; at σ = 1, smECE < 1
    at_high = at(high)  # each σ's smECE computed once (an FFT each)
    if at_high >= 1.0:
        return at_high, high
    for _ in range(BISECTIONS):
        mid = (low + high) / 2.0
        if mid < MIN_BANDWIDTH:
            low = mid
            continue
        at_mid = at(mid)
        if mid < at_mid:
            low = mid
        else:
            high, at_high = mid, at_mid
    return at_high, high


def smooth_ece(values: np.ndarray, outcome: np.ndarray, counts: np.ndarray, *,
               budget: int = SMOOTH_BUDGET) -> SmoothEce:
    """The smooth ECE of cells (values the predicted probabilities in [0, 1], outcomes, instance counts).

    >>> v, o, c = cells_of_values(np.array([0.2, 0.2, 0.8, 0.8]), np.array([0, 0, 1, 1]))
    >>> s = smooth_ece(v, o, c)
    >>> 0.15 < s.value < 0.25, abs(s.value - s.bandwidth) < 1e-4
    (True, True)
    """
    w = np.asarray(counts, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    return _smooth(values, w * (values - np.asarray(outcome, dtype=np.float64)), float(w.sum()), budget)


@dataclass(frozen=True)
class SmoothEceFold:
    """The smooth ECE's residuals binned on its grid, from a two-class score summary's probabilities (of
    ``labels[1]``), as a fold of one walk: each piece's Σ (p − y) at each distinct p, weighted by its instances,
    binned linearly on the grid, and its instances; the pieces' grids add up. The result: (masses, n)."""

    grid: int = GRID
    columns = ("scores", "positives", "negatives")

    def piece(self, p: Any) -> tuple[np.ndarray, float]:
        s = np.asarray(p.scores, dtype=np.float64)
        pos = np.asarray(p.positives, dtype=np.float64)
        both = pos + np.asarray(p.negatives, dtype=np.float64)
        return _grid_masses(s, both * s - pos, self.grid), float(both.sum())

    def combine(self, partials: list[tuple[np.ndarray, float]], look: Any) -> tuple[np.ndarray, float]:
        mass, n = np.zeros(self.grid + 1), 0.0
        for part, count in partials:  # in order, as one loop over the pieces adds them
            mass += part
            n += count
        return mass, n


def ask_smooth_ece(summary: Any) -> None:
    """Ask the smooth ECE's fold of the summary's next walk (:func:`assay.metrics.ranking.want`), so that it
    shares the ranking metrics' walk."""
    want(summary, SmoothEceFold())


def smooth_ece_of_summary(summary: Any) -> SmoothEce:
    """The smooth ECE of a two-class score summary's probabilities (of ``labels[1]``), from one walk
    (:class:`SmoothEceFold`): in memory, on disk or on Spark's executors alike, at any size (the walk's cost
    grows with the distinct probabilities, as the other folds')."""
    if np.dtype(getattr(summary.positives, "dtype", np.int64)).kind == "f":  # weights: are they counts?
        reason = _not_in_memory(summary)
        if reason is not None:
            return SmoothEce(None, None, SMOOTH_METHOD, reason)
    mass, n = walk_summary(summary, [SmoothEceFold()])[0] if len(summary) else (np.zeros(GRID + 1), 0.0)
    if n == 0:
        return SmoothEce(None, None, SMOOTH_METHOD, "undefined: no instances")
    return _smooth_result(*_smooth_of_grid(mass, n, GRID))


def _smooth(values: np.ndarray, residual: np.ndarray, n: float, budget: int) -> SmoothEce:
    if len(values) > budget:
        return SmoothEce(None, None, SMOOTH_METHOD, (
            f"not computed: {len(values):,} distinct probabilities, beyond the budget of {budget:,}; "
            "rounding the probabilities gives it"))
    if n == 0:
        return SmoothEce(None, None, SMOOTH_METHOD, "undefined: no instances")
    return _smooth_result(*smooth_ece_of_masses(values, residual, n))


def _smooth_result(value: float, sigma: float) -> SmoothEce:
    note = None
    if sigma <= MIN_BANDWIDTH * 1.001:
        note = f"the bandwidth is at the floor of {MIN_BANDWIDTH} (relplot's eps): smECE stays below it"
    return SmoothEce(value, sigma, SMOOTH_METHOD, note)
