"""Moderate calibration of two-class probabilities: the flexible calibration curve of R's ``rms::val.prob``
with its E-statistics and a bootstrap band (Van Calster et al. 2016's third level), and the Brier score's
decomposition (Murphy 1973).

The curve is R's ``lowess(p, y, iter = 0)`` (``stats::lowess``, C function ``clowess``: span f = 2/3, no
robustness iterations, delta = 0.01 · range(p)), computed from the counts of each class at each distinct
probability, never from the rows: the window of each local fit, the nearest ⌊f·n⌋ instances, is found on the
cumulative counts, and its weighted sums are taken over the distinct probabilities in it, each weighted by its
instances. This is exact, ties included: clowess's window always takes every instance tied with its rightmost
one, and an instance tied with its leftmost one but outside the window lies at the full radius, whose
tricube weight is 0, so the rows' order within a tie never counts (the one exception, a window wholly inside
one tie, is the mean of that tie, as here).

From the curve, over the instances (each distinct probability weighted by its instances), as val.prob's:
``Eavg`` = mean |curve(p) − p|, ``E90`` its 90th percentile (R's ``quantile`` type 7), ``Emax`` its maximum,
and ``E50`` its median (Austin & Steyerberg 2019, who name these with a loess curve; their ICI is Eavg from
``loess``, not lowess: the lowess one here is val.prob's Eavg).

The band: the curve of each bootstrap resample (the instances of each class redrawn with replacement, as
many as it has: a multinomial over that class's counts at the distinct probabilities), at a grid of
probabilities (linear interpolation, as val.prob's ``approx``), and the percentile interval at each; the
E-statistics' intervals are percentile intervals of the same resamples. A resample costs about as much as
the curve, ``(fits) x (distinct probabilities in a window)``: at most ``BUDGET`` such terms are spent on the
band, with fewer resamples than asked if need be, and none (a null band with the reason) below
``MIN_RESAMPLES``. A curve of more than about 75,000 distinct probabilities is fitted by the compiled kernel
below (one resample's refit, of the instances themselves: 0.1 s at 10^6), up to about 4.5 million; its band
would cost 2,000 times as much and is left out, with the reason. The resamples are refitted by a compiled kernel
(``assay.summaries.numba_kernels.lowess_resamples``, on two threads) where numba is there, else by
:func:`lowess_rows` (numpy, a block at a time, within the smaller ``NUMPY_BUDGET``); both give the same
curves (to 1e-12) from the same resamples, which are drawn the same way whichever refits them.

References
----------
Van Calster B, Nieboer D, Vergouwe Y, De Cock B, Pencina MJ, Steyerberg EW. A calibration hierarchy for risk
models was defined: from utopia to empirical data. J Clin Epidemiol 2016;74:167-176.
Austin PC, Steyerberg EW. The Integrated Calibration Index (ICI) and related metrics for quantifying the
calibration of logistic regression models. Stat Med 2019;38:4051-4065.
Cleveland WS. Robust locally weighted regression and smoothing scatterplots. JASA 1979;74:829-836.
Murphy AH. A new vector partition of the probability score. J Appl Meteorol 1973;12:595-600.
Harrell FE. rms: Regression Modeling Strategies, ``val.prob``.
"""

from __future__ import annotations

import math
import os
import warnings
from bisect import bisect_right
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import numpy as np

from assay.inference.bootstrap import BootstrapSettings
from assay.inference.estimate import ConfidenceInterval, Estimate, finite_or_none
from assay.metrics.ranking import walk_summary
from assay.summaries.kernels import compiled
from assay.summaries.probabilities import binned_sums

__all__ = ["band_share", "BUDGET", "COMPILED_CURVE_BUDGET", "CURVE_BUDGET", "DRAWS_PER_VALUE", "GRID", "METHOD", "MIN_RESAMPLES", "NUMPY_BUDGET", "ON_DISK",
           "PER_FIT", "BrierDecomposition", "BrierFold", "CalibrationCurve", "LowessFit", "brier_decomposition",
           "calibration_curve", "lowess_counts", "lowess_rows", "weighted_quantile"]

SPAN = 2.0 / 3.0
"""lowess's f (R's default, val.prob's)."""

GRID = 51
"""Probabilities at which the curve and its band are reported: equally spaced over the range of the scores."""

BUDGET = 800_000_000
"""The band's cost at most, in terms summed over the resamples: each resample's local fits (about 100) times
(the distinct probabilities in a fit's window, about 2/3 of them, + ``PER_FIT`` for a fit's fixed cost), when
the compiled kernel refits them (numba; else ``NUMPY_BUDGET``). The whole band (drawing the resamples, refitting
them, the percentiles) takes about 0.2 ns a term on the 2 cores here (0.20 at 2,000 distinct probabilities,
0.21 at 5,000 and at 20,000; 0.35 at 200, where fixed costs count) and 0.36-0.39 ns on one (the other busy):
so 0.16-0.31 s at most, once numba is loaded (0.45 s, once a process; compiling the kernels takes 3 s, once an
installation). All 2,000 resamples up to about 5,000 distinct probabilities (at 2,000: 0.06 s, 0.12 s on one
core; at 5,000: 0.15 s, 0.28 s), about 580 at 20,000, and no band (fewer than ``MIN_RESAMPLES``) above about
60,000; ``budget=`` of :func:`calibration_curve` asks for more. Measured as the best of 3 runs of, for about m
distinct probabilities::

    python -c "import time, numpy as np; from assay.summaries.scores import ScoreCounts as S
    from assay.inference.calibration_curve import calibration_curve as cc, BootstrapSettings as B
    r = np.random.default_rng(0); m = 2000; p = np.round(r.beta(2, 5, m + m // 50 + 5), 5)
    s = S.from_arrays((r.random(len(p)) < p * 1.2).astype(int), p); cc(s)
    t = time.perf_counter(); c = cc(s, bootstrap=B(2000), budget=10**12); print(time.perf_counter() - t)"

(one statement a line; 7 decimals from 10,000), divided by 2,000 x the terms of a resample (``fits`` x (the
mean window + ``PER_FIT``) of the curve), with Python 3.11, numba 0.68 and numpy 2.4 on the machine of issue 19."""

NUMPY_BUDGET = 4_000_000
"""The band's cost at most without the compiled kernel (numba missing, or ``ASSAY_NO_COMPILED`` set): the
resamples are refitted a block at a time by :func:`lowess_rows`, at about 20 ns a term here (measured as
``BUDGET``, 1,000 rows), so about 0.1 s at most: all 2,000 resamples up to about 20 distinct probabilities
(0.06 s at 18), some 400 at 80 (probabilities to 2 decimals), and no band above about 150. A band that fits
within it is refitted so even where numba is there, which then need not be loaded (0.45 s)."""

PER_FIT = 80
"""A local fit's fixed cost, in terms."""

DRAWS_PER_VALUE = 8
"""A class with more instances than this many per distinct probability holding it is resampled by a
multinomial over those probabilities (about 60 ns each a resample); else each of its instances is drawn (about
6 ns each)."""

CURVE_BUDGET = 5_000_000
"""The curve's own cost at most where numpy fits it, in terms of (fits x distinct probabilities in a window; about
100 fits over 2/3 of them): up to about 75,000 distinct probabilities. Measured: 10^3 distinct probabilities
0.013 s, 10^4 0.08 s. Beyond it the compiled kernel fits the curve (``COMPILED_CURVE_BUDGET``); without numba, the
curve is not computed, with the reason."""

COMPILED_CURVE_BUDGET = 300_000_000
"""The curve's cost at most where the compiled kernel fits it (numba; beyond ``CURVE_BUDGET``), in the same
terms: about 1.5 ns a term on one core here (0.01 s at 10^5 distinct probabilities, 0.1 s at 10^6; 1.6 s at
10^7, beyond it, where the windows no longer fit in the caches), so about 0.5 s at most, up to about 4.5 million
distinct probabilities. Reports made together (each group's of a report by group) share it, as the band's
``BUDGET``: a group's is ``1/groups`` of it, but never less than ``CURVE_BUDGET``."""

MIN_RESAMPLES = 200
"""Fewer resamples than this give no band or intervals (at 200, a 95% band's bounds rest on 5 resamples each)."""

METHOD = "lowess(p, y, iter = 0), as rms::val.prob (f = 2/3, delta = 0.01 range(p))"

ON_DISK = ("not computed: the summary is kept on disk or on Spark's executors, and each local fit of the lowess "
           "curve would read a window of it again (not yet)")
"""Why a summary beyond memory gets no flexible calibration curve (yet)."""

WEIGHTED = "not computed: the instances are weighted, and rms::val.prob's lowess has no weights"


@dataclass(frozen=True)
class LowessFit:
    """The lowess curve at each distinct probability (ascending) and what it cost: the number of local fits
    and the sum of their windows' lengths in distinct probabilities."""

    fitted: np.ndarray
    fits: int
    work: int


def lowess_counts(x: np.ndarray, count: np.ndarray, events: np.ndarray, *, f: float = SPAN,
                  delta: float | None = None) -> LowessFit:
    """R's ``lowess(p, y, f, iter = 0, delta)`` at each distinct p, from the instances ``count`` and the
    positives ``events`` at each distinct ``x`` (strictly increasing; counts > 0; inputs validated).

    clowess fits at x[0], then at the farthest x within ``delta`` of the last fit (or the next x), and
    interpolates linearly between: the fits' places depend on x alone, so they are found first, and the fits'
    weighted sums are taken together, a block of fits at a time.

    >>> x = np.array([0.1, 0.3, 0.5, 0.7, 0.9])
    >>> fit = lowess_counts(x, np.array([2, 2, 2, 2, 2]), np.array([0, 1, 1, 1, 2]))
    >>> [round(float(v), 4) + 0.0 for v in fit.fitted]
    [0.0, 0.5, 0.5, 0.5, 1.0]
    """
    x = np.asarray(x, dtype=np.float64)
    count = np.asarray(count, dtype=np.float64)
    events = np.asarray(events, dtype=np.float64)
    m = len(x)
    starts = np.concatenate(([0], np.cumsum(count, dtype=np.int64)))  # the first instance of each x
    n = int(starts[-1])
    if m == 1 or n < 2:
        return LowessFit(events / count, 1, m)
    span = float(x[-1] - x[0])
    if delta is None:
        delta = 0.01 * span
    ns = max(2, min(n, int(f * n + 1e-7)))
    # where clowess fits: x[0], then max(next, the farthest x within delta)
    places = [0]
    listed = x.tolist()
    while places[-1] < m - 1:
        g = places[-1]
        places.append(max(g + 1, bisect_right(listed, listed[g] + delta) - 1))
    fit_at = np.array(places)
    xs = x[fit_at]
    # clowess moves its window right while x[i] - x[left] > x[right + 1] - x[i]: monotone in left (and in
    # x[i]), constant between the breakpoints where left or right + 1 enters another distinct x
    last_left = n - ns
    breaks = np.unique(np.clip(np.concatenate((starts[:-1], starts[1:] - ns, [last_left])), 0, last_left))
    at_left = x[np.searchsorted(starts, breaks, side="right") - 1]
    at_beyond = x[np.searchsorted(starts, np.minimum(breaks + ns, n - 1), side="right") - 1]

    def moves(j: np.ndarray) -> np.ndarray:
        return (breaks[j] < last_left) & (xs - at_left[j] > at_beyond[j] - xs)

    j = np.minimum(np.searchsorted(at_left + at_beyond, 2.0 * xs, side="left"), len(breaks) - 1)
    while True:  # the first breakpoint where the window stops (one or two steps from the guess)
        back = (j > 0) & ~moves(np.maximum(j - 1, 0))
        on = moves(j)
        if not (back.any() or on.any()):
            break
        j = j - back + on
    left = breaks[j]
    gl = np.searchsorted(starts, left, side="right") - 1
    gr = np.searchsorted(starts, left + ns - 1, side="right") - 1  # and every instance tied with the rightmost
    values = np.empty(len(fit_at))
    longest = int((gr - gl).max()) + 1
    step = max(1, (1 << 15) // longest)
    for first in range(0, len(fit_at), step):
        k = slice(first, first + step)
        values[k] = _local_fits(x, count, events, starts, xs[k], left[k], gl[k], gr[k], span)
    fitted = np.interp(x, xs, values)  # clowess's interpolation between fits
    fitted[fit_at] = values
    return LowessFit(fitted, len(fit_at), int((gr - gl + 1).sum()))


def _local_fits(x: np.ndarray, count: np.ndarray, events: np.ndarray, starts: np.ndarray, xs: np.ndarray,
                left: np.ndarray, gl: np.ndarray, gr: np.ndarray, span: float) -> np.ndarray:
    """clowess's local linear fits at ``xs``, each over the distinct x gl..gr (instances from ``left`` on)."""
    offsets = np.arange(int((gr - gl).max()) + 1)
    index = gl[:, None] + offsets[None, :]
    outside = index > gr[:, None]
    np.minimum(index, len(x) - 1, out=index)
    cut = (starts[gl + 1] - left) / count[gl]  # the leftmost x may be cut (its weight is then 0: full radius)
    h = np.maximum(xs - x[gl], x[gr] - xs)[:, None]
    d = x[index]
    d -= xs[:, None]
    r = np.abs(d)
    t = np.divide(r, h, out=np.zeros_like(r), where=h > 0.0)
    w = t * t
    w *= t
    np.subtract(1.0, w, out=w)
    w *= w * w
    w[r <= 0.001 * h] = 1.0
    w[(r > 0.999 * h) | outside] = 0.0
    w[:, 0] *= cut
    cww = count[index] * w
    ewd = events[index] * w
    a = cww.sum(axis=1)
    mean = np.einsum("ij,ij->i", cww, d) / a  # in x - xs
    d -= mean[:, None]
    c = np.einsum("ij,ij,ij->i", cww, d, d) / a
    e0 = ewd.sum(axis=1)
    e1 = np.einsum("ij,ij->i", ewd, d)
    sloped = (h[:, 0] > 0.0) & (np.sqrt(c) > 0.001 * span)
    slope = np.divide(-mean, c, out=np.zeros_like(c), where=sloped)
    return (e0 + slope * e1) / a


def weighted_quantile(values: np.ndarray, weights: np.ndarray, q: float) -> float:
    """R's ``quantile(v, q)`` (type 7, numpy's "linear") of the instances, ``weights[i]`` (whole numbers) of
    them at ``values[i]``.

    >>> weighted_quantile(np.array([3.0, 1.0, 2.0]), np.array([1, 2, 1]), 0.5)
    1.5
    """
    order = np.argsort(values, kind="stable")
    v = values[order]
    ends = np.cumsum(weights[order])
    n = int(ends[-1])
    virtual = (n - 1) * q
    below = math.floor(virtual)
    gamma = virtual - below
    a = v[np.searchsorted(ends, below, side="right")]
    b = v[np.searchsorted(ends, min(below + 1, n - 1), side="right")]
    return float(a + (b - a) * gamma) if gamma else float(a)


def _e_statistics(x: np.ndarray, count: np.ndarray, fitted: np.ndarray) -> np.ndarray:
    """Eavg, E50, E90, Emax of |curve(p) - p| over the instances."""
    er = np.abs(x - fitted)
    return np.array([float(count @ er) / float(count.sum()), weighted_quantile(er, count, 0.5),
                     weighted_quantile(er, count, 0.9), float(er[count > 0].max())])


@dataclass(frozen=True)
class CalibrationCurve:
    """The flexible calibration curve at a grid of probabilities, with its percentile band, and its
    E-statistics (see the module). ``resamples`` is how many the band and intervals rest on (0: none)."""

    p: tuple[float, ...]
    observed: tuple[float, ...]
    low: tuple[float, ...] | None
    high: tuple[float, ...] | None
    eavg: Estimate
    e50: Estimate
    e90: Estimate
    emax: Estimate
    n: float
    distinct: int
    fits: int
    resamples: int
    confidence: float
    note: str | None = None

    @classmethod
    def skipped(cls, n: float, confidence: float, reason: str) -> CalibrationCurve:
        """Not computed, for ``reason``: every value null."""
        none = Estimate.undefined(reason)
        return cls((), (), None, None, none, none, none, none, n, 0, 0, 0, float(confidence), reason)

    @property
    def computed(self) -> bool:
        return bool(self.p)

    def to_dict(self) -> dict[str, Any]:
        """JSON ``probabilistic.calibration_curve`` (full precision; null where not computed)."""
        def column(values: tuple[float, ...] | None) -> list[float | None] | None:
            return None if values is None or not self.p else [finite_or_none(v) for v in values]

        return {
            "curve": {"p": column(self.p), "observed": column(self.observed), "low": column(self.low),
                      "high": column(self.high)},
            "eavg": self.eavg.to_dict(),
            "e50": self.e50.to_dict(),
            "e90": self.e90.to_dict(),
            "emax": self.emax.to_dict(),
            "n": finite_or_none(self.n),
            "distinct": self.distinct,
            "fits": self.fits,
            "resamples": self.resamples,
            "confidence": self.confidence,
            "method": METHOD,
            "note": self.note,
        }


def _terms(distinct: int) -> float:
    """About how many terms lowess_counts would take over ``distinct`` x: its fits (one per delta = 1% of the
    range, at most one per distinct x) times 2/3 of the distinct x."""
    return min(distinct, 101) * SPAN * distinct


def _compiled_fit(kernels: Any, x: np.ndarray, count: np.ndarray, events: np.ndarray) -> tuple[LowessFit, np.ndarray]:
    """:func:`lowess_counts` and :func:`_e_statistics` by the compiled kernel (one resample's refit, of the
    instances themselves): the same curve to 1e-12, about 1.5 ns a term (0.1 s at 10^6 distinct probabilities,
    where numpy's takes about 1 s)."""
    fitted, stats = np.empty((1, len(x))), np.empty((1, 6))
    kernels.lowess_resamples(np.ascontiguousarray(x, dtype=np.float64), count.astype(np.int64)[None, :],
                             events.astype(np.int64)[None, :], SPAN, np.empty(0), fitted, np.empty((1, 0)), stats)
    return LowessFit(fitted[0], int(stats[0, 4]), int(stats[0, 5])), stats[0, :4].copy()


def _grid_values(x: np.ndarray, fitted: np.ndarray, grid: np.ndarray) -> np.ndarray:
    out = np.interp(grid, x, fitted)
    out[(grid < x[0]) | (grid > x[-1])] = np.nan  # a resample's curve stops at its extreme probabilities
    return out


def calibration_curve(summary: Any, *, confidence: float = 0.95,
                      bootstrap: BootstrapSettings | None = BootstrapSettings(),
                      budget: int | None = None) -> CalibrationCurve:
    """The lowess calibration curve of a two-class score summary (scores within [0, 1], the probabilities of
    ``summary.labels[1]``), its E-statistics and their bootstrap band and intervals at ``confidence``
    (``bootstrap=None``: none), spending at most ``budget`` terms on the band (default: ``BUDGET`` where the
    compiled kernel refits the resamples, else ``NUMPY_BUDGET``).

    >>> from assay.summaries.scores import ScoreCounts
    >>> y = np.array([0, 0, 1, 0, 1, 1, 0, 1, 1, 0])
    >>> p = np.array([0.1, 0.2, 0.3, 0.3, 0.5, 0.6, 0.6, 0.8, 0.9, 0.4])
    >>> c = calibration_curve(ScoreCounts.from_arrays(y, p), bootstrap=None)
    >>> [round(float(e.value), 4) for e in (c.eavg, c.e90, c.emax)]
    [0.0609, 0.1262, 0.1437]
    """
    n = float(summary.n_positive + summary.n_negative)
    if getattr(summary, "on_disk", False):
        return CalibrationCurve.skipped(n, confidence, ON_DISK)
    if np.asarray(summary.positives).dtype.kind == "f":
        return CalibrationCurve.skipped(n, confidence, WEIGHTED)
    distinct = len(summary.scores)
    if _terms(distinct) > CURVE_BUDGET:  # too many before the curve's copies are made, unless most are empty
        distinct = int(np.count_nonzero(np.asarray(summary.positives) + np.asarray(summary.negatives)))
    kernels = compiled(1 << 62) if _terms(distinct) > CURVE_BUDGET else None
    limit = CURVE_BUDGET if kernels is None else max(CURVE_BUDGET, int(COMPILED_CURVE_BUDGET * _SHARE.get()))
    if _terms(distinct) > limit:
        share = f", this report's {_SHARE.get():.2g} of one report's" if kernels is not None and _SHARE.get() < 1 \
            else ""
        return CalibrationCurve.skipped(n, confidence, (
            f"not computed: {distinct:,} distinct probabilities would take about {_terms(distinct):,.0f} terms (fits "
            f"x distinct probabilities in a window), beyond the budget of {limit:,}{share}; rounding the "
            "probabilities (e.g. to 4 decimals) gives the curve"))
    x = np.asarray(summary.scores, dtype=np.float64)[::-1]
    pos = np.asarray(summary.positives, dtype=np.int64)[::-1]
    neg = np.asarray(summary.negatives, dtype=np.int64)[::-1]
    keep = (pos + neg) > 0
    x, pos, neg = x[keep], pos[keep], neg[keep]
    if not len(x):
        return CalibrationCurve.skipped(n, confidence, "undefined: no instances")
    count = pos + neg
    if kernels is None:
        fit = lowess_counts(x, count, pos)
        stats = _e_statistics(x, count, fit.fitted)
    else:
        fit, stats = _compiled_fit(kernels, x, count, pos)
    grid = np.linspace(x[0], x[-1], GRID) if x[-1] > x[0] else x[:1]
    observed = _grid_values(x, fit.fitted, grid)
    low = high = None
    intervals: list[ConfidenceInterval | None] = [None] * 4
    used, note = 0, None
    method = f"bootstrap-percentile ({bootstrap.resamples:,} resamples)" if bootstrap is not None else None
    if bootstrap is None:
        note = "no band: no bootstrap asked for"
    elif count.sum() < 2:
        note = "no band: one instance"
    else:
        per = max(fit.work + PER_FIT * fit.fits, 1)  # a resample's terms
        share = ""
        if budget is None:
            budget = BUDGET if (bootstrap.resamples * per > NUMPY_BUDGET and compiled(1 << 62) is not None) \
                else NUMPY_BUDGET
            if _SHARE.get() < 1.0:  # one of many reports made together (each group's): its share of one's
                budget = int(budget * _SHARE.get())
                share = f", this report's {_SHARE.get():.2g} of one report's"
        used = int(min(bootstrap.resamples, budget // per))
        if used < MIN_RESAMPLES:
            note = (f"no band or intervals: {bootstrap.resamples:,} resamples of {fit.fits} local fits over windows "
                    f"of {fit.work / fit.fits:,.0f} distinct probabilities on average would exceed the budget of "
                    f"{budget:,} terms{share} (resamples x fits x (distinct probabilities in a window + {PER_FIT})); "
                    f"{used} affordable, fewer than {MIN_RESAMPLES}")
            used = 0
        else:
            if used < bootstrap.resamples:
                note = (f"band and intervals from {used:,} of the {bootstrap.resamples:,} resamples asked for "
                        f"(budget of {budget:,} terms{share}: resamples x fits x (distinct probabilities in a window "
                        f"+ {PER_FIT}))")
                method = f"bootstrap-percentile ({used:,} resamples)"
            kernels = compiled(1 << 62) if used * per > NUMPY_BUDGET else None  # numpy's within its budget
            curves, estats = _resample(x, pos, neg, grid, used, bootstrap.seed, kernels)
            alpha = 1.0 - confidence
            with warnings.catch_warnings():  # a grid point beyond every resample's range: NaN (never seen)
                warnings.simplefilter("ignore", RuntimeWarning)
                bounds = np.nanpercentile(curves, [100 * alpha / 2, 100 * (1 - alpha / 2)], axis=0)
            low, high = tuple(bounds[0].tolist()), tuple(bounds[1].tolist())
            e_bounds = np.percentile(estats, [100 * alpha / 2, 100 * (1 - alpha / 2)], axis=0)
            intervals = [ConfidenceInterval(float(e_bounds[0, k]), float(e_bounds[1, k])) for k in range(4)]
    estimates = [Estimate(float(v), ci, method if ci is not None else None, None if ci is not None else note)
                 for v, ci in zip(stats, intervals, strict=True)]
    return CalibrationCurve(tuple(grid.tolist()), tuple(observed.tolist()), low, high, *estimates, n=n,
                            distinct=len(x), fits=fit.fits, resamples=used, confidence=float(confidence),
                            note=note)


_SHARE: ContextVar[float] = ContextVar("assay_band_share", default=1.0)


@contextmanager
def band_share(share: float) -> Iterator[None]:
    """Within it, the band's default budget is ``share`` of one report's: for reports made together, as each
    group's of a report by group (``1 / groups``), so that the bands of all of them cost about one report's.
    Per thread (a context variable): set it in the thread that makes the report."""
    token = _SHARE.set(min(1.0, max(float(share), 0.0)))
    try:
        yield
    finally:
        _SHARE.reset(token)


def lowess_rows(x: np.ndarray, count: np.ndarray, events: np.ndarray, *, f: float = SPAN) -> np.ndarray:
    """:func:`lowess_counts` of each row of ``count`` and ``events`` (R x m: each row one resample's instances at
    the distinct ``x``, 0 where it has none; every row the same number of instances, at least 2), at once: the
    curve at each x a row has (NaN elsewhere). Equal to :func:`lowess_counts` of each row's present x."""
    rows, m = count.shape
    count = count.astype(np.float64)
    events = events.astype(np.float64)
    n = round(count[0].sum())
    ns = max(2, min(n, int(f * n + 1e-7)))
    here = count > 0
    at = np.broadcast_to(np.arange(m), (rows, m))
    before = np.maximum.accumulate(np.where(here, at, -1), axis=1)  # the last x present at or before
    after = np.minimum.accumulate(np.where(here, at, m)[:, ::-1], axis=1)[:, ::-1]  # the first at or after
    first, last = after[:, 0], before[:, -1]
    span = x[last] - x[first]
    delta = 0.01 * span
    # where clowess fits, every row at once: x[first], then max(the next x present, the last within delta)
    places = [first]
    g = first
    while True:
        done = g >= last
        if done.all():
            break
        cut = np.searchsorted(x, x[g] + delta, side="right") - 1
        step = np.maximum(after[np.arange(rows), np.minimum(g + 1, m - 1)], before[np.arange(rows), cut])
        g = np.where(done, g, step)
        places.append(np.where(done, -1, g))
    fit_at = np.array(places).T  # rows x fits, -1 past a row's last fit
    fitting = fit_at >= 0
    r_of, k_of = np.nonzero(fitting)
    g_of = fit_at[r_of, k_of]
    xs = x[g_of]
    # each fit's window: the first left where clowess stops moving it (a binary search on the instances)
    ends = np.cumsum(count.ravel()).astype(np.int64)  # the instances of every row, one after another
    base = r_of.astype(np.int64) * n

    def x_of(instance: np.ndarray) -> np.ndarray:
        return x[np.searchsorted(ends, base + instance, side="right") % m]

    low = np.zeros(len(xs), dtype=np.int64)
    high = np.full(len(xs), n - ns, dtype=np.int64)  # the window stops there at the latest
    while (low < high).any():
        mid = (low + high) // 2
        moves = xs - x_of(mid) > x_of(mid + ns) - xs
        low = np.where(moves & (low < high), mid + 1, low)
        high = np.where(~moves & (low < high), mid, high)
    left = low
    flat_ends = np.concatenate(([0], ends))
    gl = np.searchsorted(ends, base + left, side="right")
    gr = np.searchsorted(ends, base + left + ns - 1, side="right")
    values = np.empty(len(xs))
    longest = int((gr - gl).max()) + 1
    step = max(1, (1 << 15) // longest)
    flat_x = np.tile(x, rows)
    flat_count, flat_events = count.ravel(), events.ravel()
    for start in range(0, len(xs), step):
        k = slice(start, start + step)
        values[k] = _local_fits(flat_x, flat_count, flat_events, flat_ends, xs[k], base[k] + left[k], gl[k], gr[k],
                                span[r_of[k]])
    fitted = np.full((rows, m), np.nan)
    bounds = np.searchsorted(r_of, np.arange(rows + 1))
    for r in range(rows):
        present = here[r]
        sl = slice(bounds[r], bounds[r + 1])
        fitted[r, present] = np.interp(x[present], xs[sl], values[sl])
        fitted[r, g_of[sl]] = values[sl]
    return fitted


ROWS_AT_ONCE = 200_000
"""Resamples are drawn and refitted together, as many as make this many (resample, distinct probability) cells."""

NO_ROWS = np.empty((0, 0))
"""The compiled kernel's curves at each distinct probability, not wanted by the band."""


def _resample(x: np.ndarray, pos: np.ndarray, neg: np.ndarray, grid: np.ndarray, resamples: int, seed: int,
              kernels: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Each resample's curve at ``grid`` and its E-statistics: each class's instances redrawn with replacement,
    as many as it has, a block of resamples at a time, refitted by the compiled kernel (``kernels``, from
    :func:`assay.summaries.kernels.compiled`) or by :func:`lowess_rows`.

    Two seeded streams each draw half of the resamples, in blocks whose size depends on the number of distinct
    probabilities alone: the same resamples whichever refits them and however many threads run the halves."""
    m = len(x)
    x = np.ascontiguousarray(x, dtype=np.float64)
    grid = np.ascontiguousarray(grid, dtype=np.float64)
    curves = np.empty((resamples, len(grid)))
    estats = np.empty((resamples, 4))
    block = max(1, ROWS_AT_ONCE // m)
    draw_pos, draw_neg = _drawer(pos, kernels), _drawer(neg, kernels)

    def run(stream: np.random.SeedSequence, start: int, stop: int) -> None:
        rng = np.random.default_rng(stream)
        for first in range(start, stop, block):
            size = min(block, stop - first)
            p_star = draw_pos(rng, size)
            c_star = p_star + draw_neg(rng, size)
            rows = slice(first, first + size)
            if kernels is not None:
                kernels.lowess_resamples(x, c_star, p_star, SPAN, grid, NO_ROWS, curves[rows], estats[rows])
                continue
            fitted = lowess_rows(x, c_star, p_star)
            for r in range(size):
                here = c_star[r] > 0
                curves[first + r] = _grid_values(x[here], fitted[r, here], grid)
            estats[rows] = _e_statistics_rows(x, c_star, fitted)

    streams = np.random.SeedSequence(seed).spawn(2)
    half = resamples // 2
    spans = [(streams[0], 0, half), (streams[1], half, resamples)]
    if kernels is not None and (os.cpu_count() or 1) > 1:  # the kernel lets go of the GIL
        with ThreadPoolExecutor(2, thread_name_prefix="assay-lowess") as pool:
            for future in [pool.submit(run, *span) for span in spans]:
                future.result()
    else:
        for span in spans:
            run(*span)
    return curves, estats


def _drawer(counts: np.ndarray, kernels: Any = None) -> Any:
    """How one class's instances (``counts`` at each distinct probability) are redrawn with replacement, as
    many as it has: ``draw(rng, size)`` gives ``size`` resamples' counts (size x distinct probabilities, int64),
    by a multinomial over the probabilities holding the class when they hold many instances each (more than
    ``DRAWS_PER_VALUE``), else by drawing each instance (counted by the compiled ``kernels`` if given): the same
    distribution, at the lesser cost."""
    m = len(counts)
    total = int(counts.sum())
    at = np.flatnonzero(counts)
    if total > DRAWS_PER_VALUE * len(at):
        shares = counts[at] / total

        def draw(rng: np.random.Generator, size: int) -> np.ndarray:
            out = np.zeros((size, m), dtype=np.int64)
            out[:, at] = rng.multinomial(total, shares, size=size)
            return out
        return draw
    of_instance = np.repeat(at, counts[at])  # each instance's distinct probability

    def draw_each(rng: np.random.Generator, size: int) -> np.ndarray:
        if not total:
            return np.zeros((size, m), dtype=np.int64)
        drawn = rng.integers(0, total, size=(size, total))
        if kernels is not None:
            out = np.zeros((size, m), dtype=np.int64)
            kernels.count_draws(of_instance, drawn, out)
            return out
        drawn = of_instance[drawn]
        drawn += (np.arange(size, dtype=np.int64) * m)[:, None]
        return np.bincount(drawn.ravel(), minlength=size * m).reshape(size, m).astype(np.int64, copy=False)
    return draw_each


def _e_statistics_rows(x: np.ndarray, count: np.ndarray, fitted: np.ndarray) -> np.ndarray:
    """:func:`_e_statistics` of each row (instances ``count``, curve ``fitted``: NaN where a row has none)."""
    rows = len(count)
    er = np.abs(x - fitted)
    er = np.where(count > 0, er, np.inf)  # absent: sorted last, counted never
    n = int(count[0].sum())
    order = np.argsort(er, axis=1, kind="stable")
    sorted_er = np.take_along_axis(er, order, axis=1)
    ends = np.cumsum(np.take_along_axis(count, order, axis=1), axis=1)

    def quantile(q: float) -> np.ndarray:
        virtual = (n - 1) * q
        below = math.floor(virtual)
        gamma = virtual - below
        a = sorted_er[np.arange(rows), (ends > below).argmax(axis=1)]
        b = sorted_er[np.arange(rows), (ends > min(below + 1, n - 1)).argmax(axis=1)]
        return a + (b - a) * gamma if gamma else a

    finite = np.where(count > 0, er, 0.0)
    return np.column_stack(((count * finite).sum(axis=1) / n, quantile(0.5), quantile(0.9), finite.max(axis=1)))


# ----------------------------------------------------------------------------
# the Brier score's decomposition


class BrierFold:
    """Sums over the distinct probabilities of a two-class score summary, as a fold of one walk, in each bin of
    ``edges`` (None: each distinct probability its own bin): per bin, instances n, Σp, Σp², events Σy and Σp·y;
    and over all, Σ squared error."""

    columns = ("scores", "positives", "negatives")

    def __init__(self, edges: np.ndarray | None = None) -> None:
        self.edges = None if edges is None else np.asarray(edges, dtype=np.float64)

    def piece(self, p: Any) -> dict[str, np.ndarray]:
        s = np.asarray(p.scores, dtype=np.float64)
        w1 = np.asarray(p.positives, dtype=np.float64)
        w0 = np.asarray(p.negatives, dtype=np.float64)
        n = w1 + w0
        ns, w1s = n * s, w1 * s
        sums = [n, ns, ns * s, w1, w1s]  # per distinct probability
        squared = w1 @ ((1.0 - s) ** 2) + w0 @ (s * s)
        binned = binned_sums(s, self.edges, sums) if self.edges is not None else np.stack(sums)
        return {"bins": binned, "squared": np.array([squared])}

    def combine(self, partials: list[dict[str, np.ndarray]], look: Any) -> dict[str, np.ndarray]:
        if not partials:
            return {"bins": np.zeros((5, 0)), "squared": np.zeros(1)}
        if self.edges is not None:
            bins = np.sum([q["bins"] for q in partials], axis=0)
        else:  # distinct probabilities: each piece's own
            bins = np.concatenate([q["bins"] for q in partials], axis=1)
        return {"bins": bins, "squared": np.sum([q["squared"] for q in partials], axis=0)}


@dataclass(frozen=True)
class BrierDecomposition:
    """The partition of the Brier score over bins of the probabilities (Murphy 1973), with the two within-bin
    terms of Stephenson, Coelho & Jolliffe (2008) that make it exact: brier = reliability − resolution +
    uncertainty + within-bin variance − within-bin covariance (both 0 over the distinct probabilities); and the
    scaled Brier score 1 − brier / uncertainty (the uncertainty being the Brier score of the prevalence given
    to every instance). ``binning`` names the bins."""

    brier: float | None
    reliability: float | None
    resolution: float | None
    uncertainty: float | None
    scaled_brier: float | None
    n: float
    note: str | None = None
    within_variance: float | None = 0.0
    within_covariance: float | None = 0.0
    binning: str = "distinct probabilities (exact: brier = reliability - resolution + uncertainty)"

    def to_dict(self) -> dict[str, Any]:
        """JSON ``probabilistic.brier_decomposition``."""
        return {
            "brier": finite_or_none(self.brier),
            "reliability": finite_or_none(self.reliability),
            "resolution": finite_or_none(self.resolution),
            "uncertainty": finite_or_none(self.uncertainty),
            "within_bin_variance": finite_or_none(self.within_variance),
            "within_bin_covariance": finite_or_none(self.within_covariance),
            "scaled_brier": finite_or_none(self.scaled_brier),
            "n": finite_or_none(self.n),
            "bins": self.binning,
            "method": "Murphy 1973" if self.within_variance == 0.0 and self.within_covariance == 0.0 and
                      self.binning.startswith("distinct") else "Murphy 1973, with Stephenson et al. 2008's "
                                                              "within-bin terms",
            "note": self.note,
        }


def brier_decomposition(summary: Any, edges: np.ndarray | None = None, binning: str | None = None
                        ) -> BrierDecomposition:
    """Reliability, resolution and uncertainty of the Brier score of a two-class score summary's
    probabilities (of ``summary.labels[1]``), over the bins of ``edges`` (as the calibration table bins,
    named by ``binning``) with the within-bin variance and covariance that make the partition exact, or over
    the distinct probabilities (``edges`` None); in memory, on disk or on Spark's executors (one walk).

    Over the distinct probabilities of continuous probabilities each bin holds an instance or two, so the
    reliability is nearly the Brier score itself and the resolution nearly the uncertainty: the table's bins
    are the meaningful partition there (as R's ``verification::brier`` bins, here made exact).

    >>> from assay.summaries.scores import ScoreCounts
    >>> d = brier_decomposition(ScoreCounts.from_arrays([0, 1, 1, 0], [0.2, 0.2, 0.8, 0.8]))
    >>> [round(v, 4) for v in (d.brier, d.reliability, d.resolution, d.uncertainty, d.scaled_brier)]
    [0.34, 0.09, 0.0, 0.25, -0.36]
    >>> d = brier_decomposition(ScoreCounts.from_arrays([0, 1, 1, 0], [0.1, 0.3, 0.8, 0.9]), np.array([0, .5, 1]))
    >>> [round(v, 4) for v in (d.brier, d.reliability, d.resolution, d.uncertainty, d.within_variance,
    ...                        d.within_covariance)]
    [0.3375, 0.1063, 0.0, 0.25, 0.0062, 0.025]
    """
    sums = walk_summary(summary, [BrierFold(edges)])[0]
    bins, squared = sums["bins"], float(sums["squared"][0])
    count, sum_p, sum_p2, events, sum_py = bins
    n, o = float(count.sum()), float(events.sum())
    if n <= 0:
        return BrierDecomposition(None, None, None, None, None, n, "undefined: no instances")
    here = count > 0
    count, sum_p, sum_p2, events, sum_py = (v[here] for v in (count, sum_p, sum_p2, events, sum_py))
    mean_p, freq = sum_p / count, events / count
    base = o / n
    uncertainty = base * (1.0 - base)
    reliability = float(count @ ((mean_p - freq) ** 2)) / n
    resolution = float(count @ ((freq - base) ** 2)) / n
    within_variance = max(float((sum_p2 - count * mean_p * mean_p).sum()) / n, 0.0) if edges is not None else 0.0
    within_covariance = 2.0 * float((sum_py - count * mean_p * freq).sum()) / n if edges is not None else 0.0
    brier = squared / n
    scaled = 1.0 - brier / uncertainty if uncertainty > 0 else None
    note = None if uncertainty > 0 else "no scaled Brier score: one class only (the prevalence's Brier score is 0)"
    named = binning if binning is not None else (f"{len(edges) - 1} bins" if edges is not None else None)
    extra = {} if named is None else {"binning": f"{named} (exact with the within-bin terms: brier = reliability - "
                                                 "resolution + uncertainty + within_bin_variance - "
                                                 "within_bin_covariance)"}
    return BrierDecomposition(brier, reliability, resolution, uncertainty, scaled, n, note, within_variance,
                              within_covariance, **extra)
