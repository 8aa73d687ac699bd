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
counted: ``excluded``); O/E and Spiegelhalter's z take every instance. The models are fitted by Newton's method
from (0, 1) (val.prob's start), each step one walk of the score summary (:mod:`assay.summaries.walk`: the sums
of each piece of distinct scores, each weighted by its instances), so the same code runs in memory, on a summary
spilled to disk and on Spark's executors. Where the classes are separated by the scores (no finite maximum
likelihood), the models are undefined and say so.

References
----------
Van Calster B, Nieboer D, Vergouwe Y, De Cock B, Pencina MJ, Steyerberg EW. A calibration hierarchy for risk
models was defined: from utopia to empirical data. J Clin Epidemiol 2016;74:167-176.
Spiegelhalter DJ. Probabilistic prediction in patient management and clinical trials. Stat Med 1986;5:421-433.
Harrell FE. rms: Regression Modeling Strategies, ``val.prob``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from assay.inference.distributions import chi2_sf, critical_z, normal_two_sided_p
from assay.inference.estimate import ConfidenceInterval, Estimate, finite_or_none
from assay.metrics.ranking import walk_summary

__all__ = ["ON_DISK", "CalibrationHierarchy", "CalibrationSumsFold", "LogisticFold", "calibration_hierarchy"]

MAX_STEPS = 50
"""Newton steps at most (a fit that has not converged by then is reported undefined)."""

LARGEST_SLOPE = 1e6
"""A recalibration slope beyond this is taken as the scores separating the classes (no finite fit)."""


ON_DISK = ("not computed: the summary is kept on disk or on Spark's executors, and each step of the logistic fits "
           "would walk it again (not yet)")
"""Why a summary beyond memory gets no calibration intercept, slope or tests (yet)."""


def _logit(s: np.ndarray) -> np.ndarray:
    return np.log(s) - np.log1p(-s)


@dataclass(frozen=True)
class LogisticFold:
    """The score (gradient), the information matrix and the deviance of the logistic recalibration
    logit P(y = 1) = a + b·logit(p) at (a, b), over the instances whose p is within (0, 1), as a fold of one walk
    of a two-class score summary. The result: [g_a, g_b, H_aa, H_ab, H_bb, deviance]."""

    a: float
    b: float
    columns = ("scores", "positives", "negatives")

    def piece(self, p: Any) -> np.ndarray:
        s = np.asarray(p.scores, dtype=np.float64)
        inside = (s > 0.0) & (s < 1.0)
        x = _logit(s[inside])
        w1 = np.asarray(p.positives, dtype=np.float64)[inside]
        w0 = np.asarray(p.negatives, dtype=np.float64)[inside]
        eta = self.a + self.b * x
        mu = 0.5 * (1.0 + np.tanh(0.5 * eta))  # the logistic function, no overflow
        residual = w1 - (w1 + w0) * mu
        v = (w1 + w0) * mu * (1.0 - mu)
        deviance = 2.0 * (w1 @ np.logaddexp(0.0, -eta) + w0 @ np.logaddexp(0.0, eta))
        return np.array([residual.sum(), residual @ x, v.sum(), v @ x, v @ (x * x), deviance])

    def combine(self, partials: list[np.ndarray], look: Any) -> np.ndarray:
        return np.sum(partials, axis=0) if partials else np.zeros(6)


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

    def verdict(self) -> str:
        """The sentence under the numbers: whether the probabilities are significantly miscalibrated, at the
        confidence level, on average (the intercept tested against 0) or in spread (the slope against 1)."""
        if self.slope.value is None or self.intercept.value is None:
            why = (self.slope.note or self.intercept.note or "undefined").removeprefix("undefined: ")
            return f"The calibration intercept and slope are undefined: {why}."
        alpha = 1.0 - self.confidence
        off = []
        if self.intercept_pvalue is not None and self.intercept_pvalue < alpha:
            off.append("too high on average" if self.intercept.value < 0 else "too low on average")
        if self.slope_pvalue is not None and self.slope_pvalue < alpha:
            off.append("too extreme (slope below 1)" if self.slope.value < 1 else "too moderate (slope above 1)")
        if not off:
            return (f"At {self.confidence:.0%}, the probabilities are not significantly miscalibrated on average or in "
                    "spread (calibration intercept 0 and slope 1 not rejected).")
        return f"At {self.confidence:.0%}, the probabilities are significantly miscalibrated: {' and '.join(off)}."

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


def _fit(summary: Any, slope_free: bool, start: tuple[float, float] = (0.0, 1.0)
         ) -> tuple[float, float, np.ndarray] | None:
    """Newton's method for (a, b) (or a alone, b = 1) from ``start``: the estimates and the information matrix at
    them (None when it does not converge: classes separated by the scores)."""
    a, b = start
    deviance = math.inf
    step_taken = np.zeros(2)
    for _ in range(MAX_STEPS):
        g0, g1, h00, h01, h11, dev = walk_summary(summary, [LogisticFold(a, b)])[0]
        if not math.isfinite(dev):
            return None
        if slope_free:
            info = np.array([[h00, h01], [h01, h11]])
            try:
                step = np.linalg.solve(info, np.array([g0, g1]))
            except np.linalg.LinAlgError:
                return None
        else:
            if h00 <= 0:
                return None
            step = np.array([g0 / h00, 0.0])
        if dev > deviance + 1e-9 * max(1.0, abs(deviance)):  # a step too long: halved
            a, b = a - step_taken[0] / 2, b - step_taken[1] / 2
            step_taken = step_taken / 2
            continue
        deviance = dev
        a, b = a + step[0], b + step[1]
        step_taken = step
        if abs(b) > LARGEST_SLOPE or abs(a) > LARGEST_SLOPE:
            return None
        if np.max(np.abs(step)) <= 1e-10 * max(1.0, abs(a), abs(b)):
            g0, g1, h00, h01, h11, _ = walk_summary(summary, [LogisticFold(a, b)])[0]
            return a, b, np.array([[h00, h01], [h01, h11]])
    return None


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
    if getattr(summary, "on_disk", False):
        return CalibrationHierarchy.skipped(float(summary.n_positive + summary.n_negative), confidence, ON_DISK)
    z = critical_z(confidence)
    n, observed, expected, numerator, variance, excluded = (float(v) for v in
                                                             walk_summary(summary, [CalibrationSumsFold()])[0])
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
    if used > 0:
        offset, free = _fit(summary, slope_free=False), _fit(summary, slope_free=True)
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
        slope = _wald(b, math.sqrt(cov[1, 1]), z)
        recal = _wald(a, math.sqrt(cov[0, 0]), z)
        slope_p = float(normal_two_sided_p((b - 1.0) / math.sqrt(cov[1, 1])))
        fixed = walk_summary(summary, [LogisticFold(0.0, 1.0)])[0][5]
        fitted = walk_summary(summary, [LogisticFold(a, b)])[0][5]
        chi2 = max(float(fixed - fitted), 0.0)
        chi2_p = float(chi2_sf(chi2, 2))
        index = (chi2 - 2.0) / used
    return CalibrationHierarchy(float(n), float(excluded), float(observed), float(expected), oe, intercept,
                                intercept_p, slope, slope_p, recal, chi2, chi2_p, index, spiegel, spiegel_p,
                                float(confidence), note)
