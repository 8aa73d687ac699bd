"""Mean and weak calibration of two-class probabilities, and Spiegelhalter's test: the first levels of the
calibration hierarchy (Van Calster et al. 2016), with the definitions of R's ``rms::val.prob`` (rms 6.x).

The probabilities p of the positive class are checked against the outcomes y:

- **mean calibration** ("calibration in the large"): the ratio of observed to expected events, O/E = Σy / Σp,
  with its interval from O as a Poisson count (log scale: O/E · exp(±z/√O), Debray et al. 2017); and the
  calibration intercept, the intercept α of the logistic model logit P(y = 1) = α + logit(p) (logit(p) an
  offset), with its Wald interval and the Wald test of α = 0 (Van Calster's val.prob.ci.2);
- **weak calibration**: the logistic recalibration logit P(y = 1) = a + b·logit(p) (val.prob's "Intercept" and
  "Slope": a = 0 and b = 1 for probabilities calibrated in this sense), with Wald intervals, the Wald test of
  b = 1, and val.prob's unreliability test of a = 0 and b = 1 together: the likelihood-ratio χ² on 2 degrees of
  freedom, U:Chi-sq = D(0, 1) − D(a, b) (D the deviance), and the index U = (χ² − 2)/n;
- **Spiegelhalter's z**: Σ (y − p)(1 − 2p) / √(Σ (1 − 2p)² p (1 − p)), two-sided normal p-value (val.prob's
  S:z, S:p), over every instance.

As in val.prob, an instance whose p is 0 or 1 (an infinite logit) is left out of the two logistic models (and
counted: ``excluded``); O/E and Spiegelhalter's z take every instance.

The models are fitted in a few walks of the score summary (:mod:`assay.summaries.walk`: the sums of each piece of
distinct scores, each weighted by its instances), so the same code runs in memory, on a summary spilled to disk
and on Spark's executors:

1. one walk (:class:`CalibrationStartFold`, which can share the report's ranking walk: :func:`ask_calibration`)
   gives O/E's and Spiegelhalter's sums, the deviance at a = 0, b = 1 (the log loss), the extremes of p in each
   class, and the instances in ``START_BINS`` bins of logit(p), 0.01 wide, with the first three moments of
   logit(p) in each bin;
2. both models are fitted, in memory, to the bins, each bin stood for by two points that keep its instances'
   mean, variance and skewness of logit(p) (the two-point distribution with these moments): the start, within
   about 1e-11 of the exact estimates (the error is of the order of the bins' fourth moments);
3. Newton's method from that start (from (0, 1), val.prob's start, if the binned fit fails), each step of both
   models one walk (:class:`LogisticFold`), halving a step that raises the deviance, until a step is at most
   ``TOLERANCE`` (1e-10) of the estimates: typically one walk, at times two. The last walk also gives the
   information matrix and the deviance (less the last step's gain, by Newton's quadratic model).

The folds take fewer passes over a block whose p are all within (0, 1): the first walk's, when the scores are in
a summary's order (decreasing: each bin of logit(p) is a run of the block), with the same numbers bit for bit;
Newton's, with logit(p) and its products with the instances once for both models and no exp at b = 1 (exp(η) =
e^a·p/(1 − p)), the same sums to rounding, the free model's deviance (the unreliability test's) bit for bit.

Where the classes are separated by the scores (no finite maximum likelihood: the greatest p of one class is at
most the least of the other, known from the first walk), or the fit does not converge, the models are undefined
and say so.

References
----------
Van Calster B, Nieboer D, Vergouwe Y, De Cock B, Pencina MJ, Steyerberg EW. A calibration hierarchy for risk
models was defined: from utopia to empirical data. J Clin Epidemiol 2016;74:167-176.
Spiegelhalter DJ. Probabilistic prediction in patient management and clinical trials. Stat Med 1986;5:421-433.
Harrell FE. rms: Regression Modeling Strategies, ``val.prob``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from assay.inference.distributions import chi2_sf, critical_z, normal_two_sided_p
from assay.inference.estimate import ConfidenceInterval, Estimate, finite_or_none
from assay.metrics.ranking import walk_summary, want
from assay.summaries.walk import in_summary_order

__all__ = ["CalibrationHierarchy", "CalibrationStart", "CalibrationStartFold", "CalibrationSumsFold", "LogisticFold",
           "ask_calibration", "calibration_hierarchy", "miscalibration"]

MAX_STEPS = 50
"""Newton steps at most (a fit that has not converged by then is reported undefined)."""

LARGEST_SLOPE = 1e6
"""A recalibration slope beyond this is taken as the scores separating the classes (no finite fit)."""

TOLERANCE = 1e-10
"""Newton's method stops at a step of at most this, relative to the estimates (at least 1)."""

START_BINS = 4096
"""Bins of logit(p) of the first walk, uniform over ``[-START_RANGE, START_RANGE]`` (the end bins take what is
beyond): 0.01 wide."""

START_RANGE = 20.48
"""Half the span of the bins of logit(p): p from 1.3e-9 to 1 − 1.3e-9."""

BLOCK = 1 << 17
"""Entries of a piece worked on at a time (a walk's piece in memory or on disk is as long; a range of Spark's
executors is one piece, however long): the temporaries stay about 1 MiB each."""


def _summary_blocks(p: Any) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, Any]]:
    """A piece's scores (as floats) and instances of each class (as kept), ``BLOCK`` entries at a time, with the
    block's cumulative counts (tp, fp, tp before, fp before) where the piece has them as whole counts (else None)."""
    tp, fp = (None if c is None else np.asarray(c) for c in (getattr(p, "tp", None), getattr(p, "fp", None)))
    whole = tp is not None and fp is not None and tp.dtype.kind in "iu" and fp.dtype.kind in "iu"
    for start in range(0, len(p.scores), BLOCK):
        stop = start + BLOCK
        cumulative = None
        if whole:
            before = (p.tp_before, p.fp_before) if start == 0 else (tp[start - 1], fp[start - 1])
            cumulative = (tp[start:stop], fp[start:stop], *before)
        yield (np.asarray(p.scores[start:stop], dtype=np.float64), np.asarray(p.positives[start:stop]),
               np.asarray(p.negatives[start:stop]), cumulative)


def _as_floats(s: np.ndarray, positives: np.ndarray, negatives: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """A block's scores and instances of each class as floats, with which scores are within (0, 1) (None: all
    of them)."""
    inside = (s > 0.0) & (s < 1.0)
    return (s, np.asarray(positives, dtype=np.float64), np.asarray(negatives, dtype=np.float64),
            None if inside.all() else inside)


def _in_order(s: np.ndarray) -> bool:
    """Whether a block's scores are as a summary keeps them: decreasing, all within (0, 1) (the folds' fast
    paths; else the general ones)."""
    return len(s) > 0 and 0.0 < s[-1] and s[0] < 1.0 and in_summary_order(s)


def _logistic_sums(x: np.ndarray, xx: np.ndarray, w1: np.ndarray, n: np.ndarray, a: float, b: float) -> np.ndarray:
    """[g_a, g_b, H_aa, H_ab, H_bb, deviance] of logit P(y = 1) = a + b·x over points x (xx = x²) with w1 events
    among n instances each."""
    eta = x * b
    eta += a
    e = np.abs(eta)
    np.negative(e, out=e)
    np.exp(e, out=e)  # exp(-|η|): no overflow; μ = 1/(1 + e) above 0, e/(1 + e) below
    inv = e + 1.0
    np.reciprocal(inv, out=inv)
    e *= inv  # e/(1 + e)
    fitted = np.where(eta >= 0.0, inv, e)
    fitted *= n  # n·μ
    e *= inv
    e *= n  # n·μ(1 − μ)
    np.log(inv, out=inv)  # −log(1 + e): log(1 + exp(η)) = max(η, 0) + log(1 + e)
    events_eta = w1 @ eta
    np.maximum(eta, 0.0, out=eta)
    deviance = 2.0 * (n @ eta - n @ inv - events_eta)  # Σ n·log(1 + exp(η)) − y·η
    return np.array([w1.sum() - fitted.sum(), w1 @ x - fitted @ x, e.sum(), e @ x, e @ xx, deviance])


def _general_logistic_sums(s: np.ndarray, positives: np.ndarray, negatives: np.ndarray,
                           points: tuple[tuple[float, float], ...], out: np.ndarray) -> None:
    """Add :func:`_logistic_sums` at each (a, b) of ``points`` to the rows of ``out``, over the instances of a block
    whose p is within (0, 1)."""
    s, w1, w0, inside = _as_floats(s, positives, negatives)
    if inside is not None:
        s, w1, w0 = s[inside], w1[inside], w0[inside]
    x = 1.0 - s
    np.divide(s, x, out=x)
    np.log(x, out=x)  # logit(p)
    xx, n = x * x, w1 + w0
    for row, (a, b) in zip(out, points):
        row += _logistic_sums(x, xx, w1, n, a, b)


def _free_logistic_sums(x: np.ndarray, nx: np.ndarray, nxx: np.ndarray, w1: np.ndarray, n: np.ndarray, events: float,
                        events_x: float, a: float, b: float) -> np.ndarray:
    """:func:`_logistic_sums` given n·x and n·x² (x = logit(p)), Σ y and Σ y·x: its deviance bit for bit (the same
    operations on the same arrays), the other sums to rounding."""
    eta = x * b
    eta += a
    e = np.copysign(eta, -1.0)  # −|η|
    np.exp(e, out=e)
    inv = e + 1.0
    np.divide(1.0, inv, out=inv)  # as np.reciprocal, bit for bit (numpy's divide is vectorised, its reciprocal not)
    e *= inv  # e/(1 + e)
    fitted = np.where(eta >= 0.0, inv, e)
    fitted *= n  # n·μ
    e *= inv  # μ(1 − μ)
    np.log(inv, out=inv)  # −log(1 + e)
    events_eta = w1 @ eta
    np.maximum(eta, 0.0, out=eta)
    deviance = 2.0 * (n @ eta - n @ inv - events_eta)  # Σ n·log(1 + exp(η)) − y·η
    return np.array([events - fitted.sum(), events_x - fitted @ x, n @ e, nx @ e, nxx @ e, deviance])


LARGEST_ETA = 700.0
"""At b = 1, :class:`LogisticFold` takes exp(η) = e^a·p/(1 − p) itself where η = a + logit(p) is at most this over a
block (exp overflows beyond 709.78); else exp(−|η|), as :func:`_logistic_sums`."""


def _fast_logistic_sums(s: np.ndarray, positives: np.ndarray, negatives: np.ndarray, cumulative: Any,
                        points: tuple[tuple[float, float], ...], out: np.ndarray, span: tuple[float, float]) -> None:
    """Add :func:`_logistic_sums` at each (a, b) of ``points`` to the rows of ``out``, over a block of scores within
    (0, 1) whose logit(p) spans ``span`` (least, greatest; to a few ulps), in fewer passes: logit(p), n·logit(p)
    and n·logit(p)² once for every point; at b = 1 (the offset-only model) no exp: with t = exp(η) = e^a·p/(1 − p),
    μ = t/(1 + t), μ(1 − μ) = μ/(1 + t) and log(1 + exp(η)) = log(1 + t), the same sums to rounding; at another b
    (the free model) :func:`_free_logistic_sums`, its deviance bit for bit."""
    w1 = np.asarray(positives, dtype=np.float64)
    n = np.asarray(positives + negatives, dtype=np.float64)
    odds = 1.0 - s
    np.divide(s, odds, out=odds)  # p/(1 − p)
    x = np.log(odds)  # logit(p)
    events = float(cumulative[0][-1] - cumulative[2]) if cumulative is not None else w1.sum()
    events_x = w1 @ x
    nx = n * x
    nxx = nx * x
    for row, (a, b) in zip(out, points):
        if b != 1.0:
            row += _free_logistic_sums(x, nx, nxx, w1, n, events, events_x, a, b)
            continue
        if a + span[1] > LARGEST_ETA:  # exp(η) could overflow
            row += _logistic_sums(x, x * x, w1, n, a, b)
            continue
        t = odds * math.exp(a)
        inv = t + 1.0
        np.divide(1.0, inv, out=inv)  # 1 − μ
        t *= inv  # μ
        fitted = n * t
        t *= inv  # μ(1 − μ)
        np.log(inv, out=inv)  # −log(1 + exp(η))
        deviance = 2.0 * (-(n @ inv) - (a * events + events_x))  # Σ n·log(1 + exp(η)) − y·η
        row += [events - fitted.sum(), events_x - fitted @ x, n @ t, nx @ t, nxx @ t, deviance]


@dataclass(frozen=True)
class LogisticFold:
    """The score (gradient), the information matrix and the deviance of the logistic recalibration
    logit P(y = 1) = a + b·logit(p) at (a, b), over the instances whose p is within (0, 1), as a fold of one walk
    of a two-class score summary. The result: [g_a, g_b, H_aa, H_ab, H_bb, deviance]; with ``more`` points
    ((a, b) pairs), an array of one such row for (a, b) and then each of them (one logit(p) for all)."""

    a: float
    b: float
    more: tuple[tuple[float, float], ...] = ()
    columns = ("scores", "positives", "negatives", "tp", "fp")

    def piece(self, p: Any) -> np.ndarray:
        points = ((self.a, self.b), *self.more)
        out = np.zeros((len(points), 6))
        for s, positives, negatives, cumulative in _summary_blocks(p):
            low, high = (s.min(), s.max()) if len(s) else (0.0, 0.0)
            if 0.0 < low and high < 1.0:  # every p within (0, 1)
                _fast_logistic_sums(s, positives, negatives, cumulative, points, out,
                                    (math.log(low / (1.0 - low)), math.log(high / (1.0 - high))))
                continue
            _general_logistic_sums(s, positives, negatives, points, out)
        return out[0] if not self.more else out

    def combine(self, partials: list[np.ndarray], look: Any) -> np.ndarray:
        if partials:
            return np.sum(partials, axis=0)
        return np.zeros(6) if not self.more else np.zeros((1 + len(self.more), 6))


@dataclass(frozen=True)
class CalibrationSumsFold:
    """Sums over every instance of a two-class score summary: instances, events (O), expected events (E = Σp),
    Spiegelhalter's numerator Σ (y − p)(1 − 2p) and variance Σ (1 − 2p)² p (1 − p), and the instances at p = 0 or
    1 (outside the logistic models)."""

    columns = ("scores", "positives", "negatives")

    def piece(self, p: Any) -> np.ndarray:
        s = np.asarray(p.scores, dtype=np.float64)
        w1 = np.asarray(p.positives, dtype=np.float64)
        w0 = np.asarray(p.negatives, dtype=np.float64)
        n = w1 + w0
        tilt = 1.0 - 2.0 * s
        return np.array([n.sum(), w1.sum(), n @ s, (w1 * (1.0 - s) - w0 * s) @ tilt, n @ (tilt * tilt * s * (1.0 - s)),
                         n[(s <= 0.0) | (s >= 1.0)].sum()])

    def combine(self, partials: list[np.ndarray], look: Any) -> np.ndarray:
        return np.sum(partials, axis=0) if partials else np.zeros(6)


@functools.cache
def _bin_edges(bins: int) -> np.ndarray:
    """The inner edges of ``bins`` bins of logit(p) (:data:`START_BINS`): bin j holds [edges[j − 1], edges[j])."""
    edges = -START_RANGE + (2.0 * START_RANGE / bins) * np.arange(1, bins)
    edges.flags.writeable = False
    return edges


@dataclass(frozen=True)
class CalibrationStart:
    """What the first walk gives (:class:`CalibrationStartFold`): ``sums`` as :class:`CalibrationSumsFold`'s;
    over the instances with p within (0, 1), ``fixed`` = [deviance at a = 0, b = 1, events, Σ y·logit(p),
    non-events], ``extremes`` = [least and greatest p of the events, of the non-events] (±inf where none),
    and ``moments``: per bin of logit(p) (rows), the instances and the sums of d, d², d³, d = logit(p) − the bin's
    centre."""

    sums: np.ndarray
    fixed: np.ndarray
    extremes: np.ndarray
    moments: np.ndarray


@dataclass(frozen=True)
class CalibrationStartFold:
    """The first walk of :func:`calibration_hierarchy` (see the module): a :class:`CalibrationStart`."""

    bins: int = START_BINS
    columns = ("scores", "positives", "negatives", "tp", "fp")

    def piece(self, p: Any) -> CalibrationStart:
        sums, fixed = np.zeros(6), np.zeros(4)
        extremes = np.array([np.inf, -np.inf, np.inf, -np.inf])
        moments = np.zeros((self.bins, 4))
        for s, positives, negatives, cumulative in _summary_blocks(p):
            if _in_order(s):
                self._ordered_block(s, positives, negatives, cumulative, sums, fixed, extremes, moments)
            else:
                self._block(*_as_floats(s, positives, negatives), sums, fixed, extremes, moments)
        return CalibrationStart(sums, fixed, extremes, moments)

    def _ordered_block(self, s: np.ndarray, positives: np.ndarray, negatives: np.ndarray, cumulative: Any,
                       sums: np.ndarray, fixed: np.ndarray, extremes: np.ndarray, moments: np.ndarray) -> None:
        """:meth:`_block` of a block of a summary's scores (decreasing, within (0, 1): :func:`_in_order`) in fewer
        passes, its numbers bit for bit: the classes' extremes where their cumulative counts first and last grow,
        and each bin of logit(p) a run of the block, found by binary searches (checked at the runs' ends against
        :meth:`_bin_of`: else binned as :meth:`_block` bins)."""
        w1, w0 = np.asarray(positives, dtype=np.float64), np.asarray(negatives, dtype=np.float64)
        n = w1 + w0
        if cumulative is not None:  # whole counts: their sums are exact, and the cumulative counts have them
            events, non_events = float(cumulative[0][-1] - cumulative[2]), float(cumulative[1][-1] - cumulative[3])
        else:
            events, non_events = w1.sum(), w0.sum()
        tilt = s * -2.0
        tilt += 1.0
        residual = n * s
        expected = residual.sum()
        np.subtract(w1, residual, out=residual)  # y − p
        rest = 1.0 - s
        log_s, log_rest = np.log(s), np.log(rest)  # log(1 − p) to 1.2e-16 (absolute), as log1p but faster
        rest *= s
        rest *= tilt
        rest *= tilt  # (1 − 2p)² p (1 − p)
        sums += [events + non_events if cumulative is not None else n.sum(), events, expected, residual @ tilt,
                 n @ rest, 0.0]
        below = np.subtract(log_rest, log_s, out=tilt)  # −logit(p): increasing
        fixed += [-2.0 * (w1 @ log_s + w0 @ log_rest), events, -(w1 @ below), non_events]
        for i, w, counts in ((0, positives, None if cumulative is None else cumulative[0::2]),
                             (2, negatives, None if cumulative is None else cumulative[1::2])):
            if counts is not None:  # the first entry that holds some of the class, and the last
                first = int(np.searchsorted(counts[0], counts[1], side="right"))
                last = int(np.searchsorted(counts[0], counts[0][-1], side="left")) if first < len(s) else -1
            else:
                held = w > 0
                first = int(np.argmax(held))
                last = len(s) - 1 - int(np.argmax(held[::-1])) if held[first] else -1
            if last >= 0:
                extremes[i], extremes[i + 1] = min(extremes[i], s[last]), max(extremes[i + 1], s[first])
        edges = _bin_edges(self.bins)
        top, bottom = np.searchsorted(edges, [-below[0], -below[-1]], side="right")
        # bin j holds logit(p) within [edges[j − 1], edges[j]): the runs of the bins from top's down to bottom's
        starts = np.concatenate(([0], np.searchsorted(below, -edges[bottom:top], side="right")[::-1]))
        stops = np.append(starts[1:], len(s))
        held = stops > starts
        k, starts, stops = np.arange(top, bottom - 1, -1)[held], starts[held], stops[held]
        if not np.array_equal(self._bin_of(-below[np.concatenate((starts, stops - 1))]), np.concatenate((k, k))):
            self._moments(-below, n, moments)  # a run's ends binned otherwise by _block (logit(p) at an edge)
            return
        width = 2.0 * START_RANGE / self.bins
        d = below  # the runs cover the block, in order: each entry's bin centre by one np.repeat
        d += np.repeat((k + 0.5) * width - START_RANGE, stops - starts)  # −(logit(p) − its bin's centre)
        nd = n * d
        nd2 = nd * d
        d *= nd2
        if cumulative is not None:  # whole counts: each run's instances from the cumulative counts at its ends
            tp, fp, tp_before, fp_before = cumulative
            at = np.concatenate((starts, [len(s)])) - 1
            so_far = np.where(at >= 0, tp[at] + fp[at], tp_before + fp_before)
            instances = np.diff(so_far).astype(np.float64)
        else:
            instances = np.add.reduceat(n, starts)
        moments[k] += np.stack([instances, -np.add.reduceat(nd, starts), np.add.reduceat(nd2, starts),
                                -np.add.reduceat(d, starts)], axis=1)

    def _block(self, s: np.ndarray, w1: np.ndarray, w0: np.ndarray, inside: np.ndarray | None, sums: np.ndarray,
               fixed: np.ndarray, extremes: np.ndarray, moments: np.ndarray) -> None:
        """Add a block's sums, extremes and moments to the piece's."""
        n = w1 + w0
        tilt = 1.0 - 2.0 * s
        residual = n * s
        expected = residual.sum()
        np.subtract(w1, residual, out=residual)  # y − p
        spread = 1.0 - s
        spread *= s
        spread *= tilt
        spread *= tilt  # (1 − 2p)² p (1 − p)
        sums += [n.sum(), w1.sum(), expected, residual @ tilt, n @ spread,
                 0.0 if inside is None else n[~inside].sum()]
        if inside is not None:
            s, w1, w0, n = s[inside], w1[inside], w0[inside], n[inside]
        if not len(s):
            return
        log_s, log_1s = np.log(s), np.log(1.0 - s)  # log(1 − p) to 1.2e-16 (absolute), as log1p but faster
        x = log_s - log_1s
        fixed += [-2.0 * (w1 @ log_s + w0 @ log_1s), w1.sum(), w1 @ x, w0.sum()]
        ordered = in_summary_order(s)
        for i, w in ((0, w1), (2, w0)):  # the classes' extremes of p (logit(p) is increasing in p: the same order)
            held = w > 0
            if ordered and held.any():  # the least is the last held, the greatest the first
                low, high = s[len(s) - 1 - np.argmax(held[::-1])], s[np.argmax(held)]
            else:
                low, high = np.where(held, s, np.inf).min(), np.where(held, s, -np.inf).max()
            extremes[i], extremes[i + 1] = min(extremes[i], low), max(extremes[i + 1], high)
        self._moments(x, n, moments)

    def _bin_of(self, x: np.ndarray) -> np.ndarray:
        """The bins of logit(p) ``x``, as indices."""
        k = x + START_RANGE
        k *= 1.0 / (2.0 * START_RANGE / self.bins)
        np.floor(k, out=k)
        np.clip(k, 0, self.bins - 1, out=k)
        return k.astype(np.intp)

    def _moments(self, x: np.ndarray, n: np.ndarray, moments: np.ndarray) -> None:
        """Add the instances ``n`` at logit(p) ``x`` to the moments of their bins."""
        width = 2.0 * START_RANGE / self.bins
        k = self._bin_of(x)
        d = k + 0.5
        d *= width
        d -= START_RANGE
        np.subtract(x, d, out=d)  # logit(p) − its bin's centre
        nd = n * d
        nd2 = nd * d
        d *= nd2
        columns = (n, nd, nd2, d)
        if np.all(k[1:] <= k[:-1]):  # scores in decreasing order (a summary's): each bin is a run
            starts = np.flatnonzero(np.concatenate(([True], k[1:] != k[:-1])))
            moments[k[starts]] += np.stack([np.add.reduceat(c, starts) for c in columns], axis=1)
        else:
            moments += np.stack([np.bincount(k, weights=c, minlength=self.bins) for c in columns], axis=1)

    def combine(self, partials: list[CalibrationStart], look: Any) -> CalibrationStart:
        if not partials:
            return CalibrationStart(np.zeros(6), np.zeros(4), np.array([np.inf, -np.inf, np.inf, -np.inf]),
                                    np.zeros((self.bins, 4)))
        extremes = np.array([e.extremes for e in partials])
        return CalibrationStart(np.sum([e.sums for e in partials], axis=0), np.sum([e.fixed for e in partials], axis=0),
                                np.array([extremes[:, 0].min(), extremes[:, 1].max(), extremes[:, 2].min(),
                                          extremes[:, 3].max()]),
                                np.sum([e.moments for e in partials], axis=0))


def ask_calibration(summary: Any) -> None:
    """Ask the first walk of :func:`calibration_hierarchy` of the summary's next walk
    (:func:`assay.metrics.ranking.want`), so that it shares the ranking metrics' walk."""
    want(summary, CalibrationStartFold())


def miscalibration(test: str, estimate: float) -> str:
    """How probabilities are off when a test rejects: the calibration ``intercept`` (against 0) below 0 means
    they are too high on average; the ``slope`` (against 1) below 1 that they are too extreme."""
    if test == "intercept":
        return "too high on average" if estimate < 0 else "too low on average"
    return "too extreme (slope below 1)" if estimate < 1 else "too moderate (slope above 1)"


@dataclass(frozen=True)
class CalibrationHierarchy:
    """Mean and weak calibration and Spiegelhalter's test of two-class probabilities (see the module)."""

    n: float
    excluded: float
    observed: float
    expected: float
    observed_expected: Estimate
    intercept: Estimate
    intercept_pvalue: float | None
    slope: Estimate
    slope_pvalue: float | None
    recalibration_intercept: Estimate
    unreliability_chi2: float | None
    unreliability_pvalue: float | None
    unreliability_index: float | None
    spiegelhalter_z: float | None
    spiegelhalter_pvalue: float | None
    confidence: float
    note: str | None = None

    def verdict(self, subject: str = "the probabilities") -> str:
        """The sentence under the numbers: whether the probabilities (``subject``) are significantly
        miscalibrated, at the confidence level, on average (the intercept tested against 0) or in spread (the
        slope against 1)."""
        if self.slope.value is None or self.intercept.value is None:
            why = (self.slope.note or self.intercept.note or "undefined").removeprefix("undefined: ")
            return f"The calibration intercept and slope are undefined: {why}."
        alpha = 1.0 - self.confidence
        off = []
        if self.intercept_pvalue is not None and self.intercept_pvalue < alpha:
            off.append(miscalibration("intercept", self.intercept.value))
        if self.slope_pvalue is not None and self.slope_pvalue < alpha:
            off.append(miscalibration("slope", self.slope.value))
        if not off:
            return (f"At {self.confidence:.0%}, {subject} are not significantly miscalibrated on average or in "
                    "spread (calibration intercept 0 and slope 1 not rejected).")
        return f"At {self.confidence:.0%}, {subject} are significantly miscalibrated: {' and '.join(off)}."

    @classmethod
    def skipped(cls, n: float, confidence: float, reason: str) -> CalibrationHierarchy:
        """Not computed, for ``reason``: every value null."""
        none = Estimate.undefined(reason)
        return cls(n, 0.0, math.nan, math.nan, none, none, None, none, None, none, None, None, None, None, None,
                   float(confidence), reason)

    def to_dict(self) -> dict[str, Any]:
        """JSON ``probabilistic.calibration_hierarchy`` (full precision; null where undefined)."""
        return {
            "mean": {
                "observed": finite_or_none(self.observed),
                "expected": finite_or_none(self.expected),
                "observed_expected": self.observed_expected.to_dict(),
                "intercept": {**self.intercept.to_dict(), "pvalue": finite_or_none(self.intercept_pvalue),
                              "test": "Wald z of intercept = 0 (slope fixed at 1: logit(p) as offset)"},
            },
            "weak": {
                "slope": {**self.slope.to_dict(), "pvalue": finite_or_none(self.slope_pvalue),
                          "test": "Wald z of slope = 1"},
                "recalibration_intercept": self.recalibration_intercept.to_dict(),
                "unreliability": {"chi2": finite_or_none(self.unreliability_chi2), "df": 2,
                                  "pvalue": finite_or_none(self.unreliability_pvalue),
                                  "index": finite_or_none(self.unreliability_index),
                                  "test": "likelihood ratio of intercept = 0 and slope = 1 (rms::val.prob's U)"},
            },
            "spiegelhalter": {"z": finite_or_none(self.spiegelhalter_z),
                              "pvalue": finite_or_none(self.spiegelhalter_pvalue)},
            "n": finite_or_none(self.n),
            "excluded": finite_or_none(self.excluded),
            "confidence": self.confidence,
            "note": self.note,
        }


def _two_points(moments: np.ndarray, bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Points and weights standing for the binned instances: in each bin, the two-point distribution with the
    bin's instances, mean, variance and third central moment of logit(p)."""
    width = 2.0 * START_RANGE / bins
    kept = moments[:, 0] > 0
    n, s1, s2, s3 = moments[kept].T
    centre = -START_RANGE + (np.flatnonzero(kept) + 0.5) * width
    mean = s1 / n
    var = np.maximum(s2 / n - mean * mean, 0.0)
    third = s3 / n - 3.0 * mean * (s2 / n) + 2.0 * mean ** 3
    sd = np.sqrt(var)
    spread = sd > 1e-9 * np.maximum(1.0, np.abs(centre))
    skew = np.where(spread, third / np.where(spread, sd ** 3, 1.0), 0.0)
    root = np.sqrt(skew * skew + 4.0)
    low, high = (skew - root) / 2.0, (skew + root) / 2.0  # standardized points: mean 0, variance 1, skewness
    x = np.concatenate([centre + mean + sd * low, centre + mean + sd * high])
    w = np.concatenate([n * high / root, -n * low / root])
    return x, w


def _binned_fit(start: CalibrationStart, bins: int, slope_free: bool) -> tuple[float, float] | None:
    """Newton's method from (0, 1) on the binned instances (:func:`_two_points`) with the exact events and
    Σ y·logit(p): a start near the exact estimates (None where it fails)."""
    x, w = _two_points(start.moments, bins)
    events, events_x = start.fixed[1], start.fixed[2]
    a, b = 0.0, 1.0
    objective, step = math.inf, np.zeros(2)
    for _ in range(100):
        eta = a + b * x
        e = np.exp(-np.abs(eta))
        inv = 1.0 / (1.0 + e)
        mu = np.where(eta >= 0.0, inv, e * inv)
        v = w * e * inv * inv
        value = w @ (np.maximum(eta, 0.0) + np.log1p(e)) - a * events - b * events_x  # − log-likelihood
        if not math.isfinite(value):
            return None
        if value > objective + 1e-12 * max(1.0, abs(objective)):
            a, b = a - step[0] / 2, b - step[1] / 2
            step = step / 2
            continue
        objective = value
        fitted = w @ mu
        g = np.array([events - fitted, events_x - (w * mu) @ x])
        if slope_free:
            info = np.array([[v.sum(), v @ x], [v @ x, v @ (x * x)]])
            try:
                step = np.linalg.solve(info, g)
            except np.linalg.LinAlgError:
                return None
        else:
            h = v.sum()
            if not h > 0:
                return None
            step = np.array([g[0] / h, 0.0])
        if not np.all(np.isfinite(step)):
            return None
        a, b = a + step[0], b + step[1]
        if abs(a) > LARGEST_SLOPE or abs(b) > LARGEST_SLOPE:
            return None
        if np.max(np.abs(step)) <= 1e-13 * max(1.0, abs(a), abs(b)):
            return a, b
    return None


class _Newton:
    """Newton's method for (a, b) (or a alone, b = 1) from ``start``, fed the gradient, information and deviance
    at ``point`` by one walk a step: ``done`` with the estimates, the information matrix and the deviance at
    them, or ``failed`` (classes separated by the scores, or no convergence in ``MAX_STEPS``)."""

    def __init__(self, start: tuple[float, float], slope_free: bool) -> None:
        self.point = start
        self.slope_free = slope_free
        self.deviance = math.inf
        self.step_taken = np.zeros(2)
        self.steps = 0
        self.done: tuple[float, float, np.ndarray, float] | None = None
        self.failed = False

    def feed(self, sums: np.ndarray) -> None:
        g0, g1, h00, h01, h11, dev = sums
        self.steps += 1
        if not math.isfinite(dev):
            self.failed = True
            return
        info = np.array([[h00, h01], [h01, h11]])
        if self.slope_free:
            try:
                step = np.linalg.solve(info, np.array([g0, g1]))
            except np.linalg.LinAlgError:
                self.failed = True
                return
        else:
            if h00 <= 0:
                self.failed = True
                return
            step = np.array([g0 / h00, 0.0])
        a, b = self.point
        if dev > self.deviance + 1e-9 * max(1.0, abs(self.deviance)):  # a step too long: halved
            self.point = (a - self.step_taken[0] / 2, b - self.step_taken[1] / 2)
            self.step_taken = self.step_taken / 2
        else:
            self.deviance = dev
            a, b = a + step[0], b + step[1]
            if abs(b) > LARGEST_SLOPE or abs(a) > LARGEST_SLOPE:
                self.failed = True
                return
            if np.max(np.abs(step)) <= TOLERANCE * max(1.0, abs(a), abs(b)):
                # converged: the information and deviance of this walk, the deviance less the last step's gain
                self.done = a, b, info, float(dev - (step[0] * g0 + step[1] * g1))
                return
            self.point, self.step_taken = (a, b), step
        if self.steps >= MAX_STEPS:
            self.failed = True


def _fit(summary: Any, models: list[tuple[tuple[float, float], bool]]
         ) -> list[tuple[float, float, np.ndarray, float] | None]:
    """Each model, (start, slope_free), by Newton's method (:class:`_Newton`; slope_free False: the offset-only
    model, the slope fixed at 1), all in the same walks: one :class:`LogisticFold` of the points still moving."""
    fits = [_Newton(start, slope_free) for start, slope_free in models]
    while True:
        moving = [fit for fit in fits if fit.done is None and not fit.failed]
        if not moving:
            return [fit.done for fit in fits]
        points = [fit.point for fit in moving]
        fold = LogisticFold(*points[0], more=tuple(points[1:]))
        sums = walk_summary(summary, [fold])[0]
        for fit, row in zip(moving, np.atleast_2d(sums)):
            fit.feed(row)


def _wald(value: float, se: float, z: float, method: str = "Wald") -> Estimate:
    if not (math.isfinite(se) and se > 0):
        return Estimate(value, None, None, "no interval: no information")
    return Estimate(value, ConfidenceInterval(value - z * se, value + z * se), method)


def calibration_hierarchy(summary: Any, *, confidence: float = 0.95) -> CalibrationHierarchy:
    """Mean and weak calibration and Spiegelhalter's test of the probabilities of a two-class score summary
    (scores within [0, 1], the probabilities of ``summary.labels[1]``), at ``confidence``.

    >>> from assay.summaries.scores import ScoreCounts
    >>> y = np.array([0, 0, 1, 0, 1, 1, 0, 1, 1, 0])
    >>> p = np.array([0.1, 0.2, 0.3, 0.3, 0.5, 0.6, 0.6, 0.8, 0.9, 0.4])
    >>> h = calibration_hierarchy(ScoreCounts.from_arrays(y, p))
    >>> [round(float(v), 3) for v in (h.observed_expected.value, h.slope.value, h.spiegelhalter_z)]
    [1.064, 1.587, -0.49]
    """
    z = critical_z(confidence)
    first = walk_summary(summary, [CalibrationStartFold()])[0]
    n, observed, expected, numerator, variance, excluded = (float(v) for v in first.sums)
    if observed > 0 and expected > 0:
        ratio = observed / expected
        half = z / math.sqrt(observed)
        oe = Estimate(ratio, ConfidenceInterval(ratio * math.exp(-half), ratio * math.exp(half)),
                      "Poisson (log scale)")
    else:
        oe = Estimate(observed / expected if expected > 0 else None, None, None,
                      "no interval: no events" if expected > 0 else "undefined: every probability is 0")
    spiegel = numerator / math.sqrt(variance) if variance > 0 else None
    spiegel_p = float(normal_two_sided_p(spiegel)) if spiegel is not None else None
    used = n - excluded
    note = None if not excluded else \
        f"{excluded:,.0f} instance(s) with probability 0 or 1 left out of the logistic models (as rms::val.prob)"
    offset = free = None
    events, non_events = first.fixed[1], first.fixed[3]
    if used > 0 and events > 0 and non_events > 0:  # else no finite fit: a is ±inf
        low1, high1, low0, high0 = first.extremes
        separated = low1 >= high0 or low0 >= high1  # a threshold on p separates the classes: b is ±inf
        models = [(_binned_fit(first, START_BINS, slope_free) or (0.0, 1.0), slope_free)
                  for slope_free in ((False,) if separated else (False, True))]
        offset, free = (*_fit(summary, models), None)[:2]
    why = "undefined: no instance with a probability within (0, 1)" if used <= 0 else \
        "undefined: the logistic model has no finite fit (the scores separate the classes)"
    if offset is None:
        intercept, intercept_p = Estimate.undefined(why), None
    else:
        se = 1.0 / math.sqrt(offset[2][0, 0])
        intercept = _wald(float(offset[0]), se, z)
        intercept_p = float(normal_two_sided_p(offset[0] / se))
    if free is None:
        slope = recal = Estimate.undefined(why)
        slope_p = chi2 = chi2_p = index = None
    else:
        a, b, info = float(free[0]), float(free[1]), free[2]
        cov = np.linalg.inv(info)
        se_a, se_b = (math.sqrt(v) if v > 0 else math.nan for v in (cov[0, 0], cov[1, 1]))  # nan: no information
        slope = _wald(b, se_b, z)
        recal = _wald(a, se_a, z)
        slope_p = float(normal_two_sided_p((b - 1.0) / se_b)) if math.isfinite(se_b) else None
        chi2 = max(float(first.fixed[0] - free[3]), 0.0)
        chi2_p = float(chi2_sf(chi2, 2))
        index = (chi2 - 2.0) / used
    return CalibrationHierarchy(float(n), float(excluded), float(observed), float(expected), oe, intercept,
                                intercept_p, slope, slope_p, recal, chi2, chi2_p, index, spiegel, spiegel_p,
                                float(confidence), note)
