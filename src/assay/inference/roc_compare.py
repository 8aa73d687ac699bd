"""DeLong's test of two correlated AUCs: two classifiers scored on the same instances.

With P positives and N negatives, each classifier r = 1, 2 gives every positive
i the placement V10_r(i) (the share of negatives it outscores, ties one half)
and every negative j the placement V01_r(j) (the share of positives that
outscore it). Its AUC A_r is the mean of either. S10 and S01, the 2 x 2 sample
covariance matrices of the placements of the positives and of the negatives,
give

    var(A1 - A2) = (S10_11 + S10_22 - 2 S10_12) / P + (S01_11 + S01_22 - 2 S01_12) / N,

z = (A1 - A2) / sqrt(var), a two-sided normal p-value and the interval
A1 - A2 ± z_{(1+c)/2} sqrt(var) (kept within [-1, 1]).

Cost: each classifier's placements come from its ``ScoreCounts`` summary (one
sort; ``inference.roc.placements``), and are mapped back to the instances
with ``np.searchsorted`` on the distinct scores: O(n log n) in all, never
O(P N). The variance is computed as the sample variances of the per-instance
placement *differences* V10_1 - V10_2 and V01_1 - V01_2, which equal the
expressions above exactly in arithmetic and are exactly 0 in floating point
when the two classifiers rank alike.

References
----------
E. R. DeLong, D. M. DeLong, D. L. Clarke-Pearson (1988), Comparing the areas
under two or more correlated receiver operating characteristic curves: a
nonparametric approach, Biometrics 44:837-845. X. Sun, W. Xu (2014), Fast
implementation of DeLong's algorithm for comparing the areas under correlated
receiver operating characteristic curves, IEEE Signal Processing Letters
21:1389-1393. X. Robin et al. (2011), pROC, BMC Bioinformatics 12:77
(``roc.test``, whose conventions for identical curves are followed here).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from assay.errors import InvalidInput
from assay.inference.testing import TwoSidedTest, validate_confidence
from assay.inference.distributions import normal_quantile, normal_two_sided_p, t_quantile, t_two_sided_p
from assay.inference.estimate import ConfidenceInterval, finite_or_none
from assay.inference.roc import delong, placements
from assay.inputs import as_scores, check_lengths
from assay.summaries.scores import ScoreCounts

__all__ = ["DeLongTestResult", "delong_test", "instance_placements", "paired_delong"]


@dataclass(frozen=True)
class DeLongTestResult(TwoSidedTest):
    """Two correlated AUCs, their difference auc1 - auc2, its interval and DeLong's z test.

    ``ci`` is the interval at ``confidence``; ``interval(c)`` gives it at any
    other level. When the two classifiers' placements coincide (the variance
    and the difference are both 0) the statistic is NaN and the p-value 1, as
    pROC reports identical curves; when only the variance is 0, or a class has
    fewer than two instances, statistic and p-value are NaN and ``note`` says why.
    """

    WHAT = "the difference between the two AUCs"

    auc1: float
    auc2: float
    difference: float
    se: float
    statistic: float
    pvalue: float
    confidence: float
    ci: ConfidenceInterval | None
    n_positive: int
    n_negative: int
    correlation: float
    note: str | None = None
    method: str = "DeLong test of two correlated AUCs"

    def interval(self, confidence: float) -> ConfidenceInterval | None:
        """A1 - A2 ± z SE at another confidence level, kept within [-1, 1]."""
        if not self.se == self.se or not self.pvalue == self.pvalue:
            return None
        z = float(normal_quantile(0.5 + confidence / 2.0))
        d = self.difference
        return ConfidenceInterval(max(d - z * self.se, -1.0), min(d + z * self.se, 1.0))

    def to_dict(self, confidence: float | None = None) -> dict[str, Any]:
        confidence = self.confidence if confidence is None else validate_confidence(confidence)
        return {
            **self.common_dict(confidence),
            "difference": finite_or_none(self.difference),
            "auc1": finite_or_none(self.auc1),
            "auc2": finite_or_none(self.auc2),
            "se": finite_or_none(self.se),
            "correlation": finite_or_none(self.correlation),
            "n_positive": self.n_positive,
            "n_negative": self.n_negative,
            "confidence": confidence,
            "note": self.note,
        }


def instance_placements(is_positive: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Every instance's placement: V10 for a positive, V01 for a negative (inputs validated).

    Computed on the ``ScoreCounts`` summary, one value per distinct score, then
    mapped to the instances by binary search on the distinct scores.

    Examples
    --------
    >>> y = np.array([True, True, False, False])
    >>> instance_placements(y, np.array([0.9, 0.4, 0.4, 0.1])).tolist()
    [1.0, 0.75, 0.75, 1.0]
    """
    sc = ScoreCounts.from_arrays(is_positive, scores)
    v10, v01 = placements(sc)
    ascending = sc.scores[::-1]
    group = len(ascending) - 1 - np.searchsorted(ascending, scores.astype(np.float64) + 0.0)
    return np.where(is_positive, v10[group], v01[group])


def _as_is_positive(values: Any) -> np.ndarray:
    try:
        y = np.asarray(values)
    except (TypeError, ValueError):
        raise InvalidInput("expected a 1-d array of booleans (or 0/1)", field="is_positive") from None
    if y.ndim != 1:
        raise InvalidInput(f"expected a 1-d array of booleans (or 0/1), got shape {y.shape}", field="is_positive")
    if y.dtype == bool:
        return y
    if y.dtype.kind in "iuf":
        bad = np.flatnonzero((y != 0) & (y != 1))
        if bad.size == 0:
            return y == 1
        value = y[bad[0]].item()
    else:
        bad = np.flatnonzero([not (isinstance(v, (bool, np.bool_)) or v in (0, 1)) for v in y])
        if bad.size == 0:
            return np.array([bool(v) for v in y], dtype=bool)
        value = y[bad[0]]
        value = value.item() if isinstance(value, np.generic) else value
    raise InvalidInput(f"{value!r} is not a boolean (or 0/1)", field="is_positive", row=int(bad[0]))


def delong_test(is_positive: Any, scores1: Any, scores2: Any, *, confidence: float = 0.95) -> DeLongTestResult:
    """DeLong's test of the difference between the AUCs of two classifiers on the same instances.

    Parameters
    ----------
    is_positive : array-like of bool (or 0/1), shape (n,)
        Whether each instance is of the positive class.
    scores1, scores2 : array-like of float, shape (n,)
        The two classifiers' scores, higher meaning more likely positive.
    confidence : float in (0, 1), default 0.95

    Returns
    -------
    DeLongTestResult
        ``difference`` = auc1 - auc2 with its standard error, interval, z
        statistic and two-sided p-value, and the correlation of the two AUC
        estimates.

    Raises
    ------
    InvalidInput
        On lengths that differ, a score that is missing or not finite, a label
        that is not a boolean, or a confidence outside (0, 1).

    Notes
    -----
    See the module docstring for the formula. With fewer than two positives or
    two negatives the covariances are undefined: the AUCs are given, the test
    is not (NaN with a note).

    Examples
    --------
    >>> y = [1, 1, 1, 0, 0, 0]
    >>> r = delong_test(y, [0.9, 0.8, 0.4, 0.5, 0.2, 0.1], [0.9, 0.3, 0.6, 0.7, 0.2, 0.1])
    >>> round(r.auc1, 4), round(r.auc2, 4), round(r.difference, 4)
    (0.8889, 0.7778, 0.1111)
    """
    y = _as_is_positive(is_positive)
    s1 = as_scores(scores1, field="scores1")
    s2 = as_scores(scores2, field="scores2")
    check_lengths({"is_positive": len(y), "scores1": len(s1), "scores2": len(s2)})
    confidence = validate_confidence(confidence)
    n_pos = int(y.sum())
    n_neg = len(y) - n_pos
    nan = float("nan")
    if n_pos == 0 or n_neg == 0:
        return DeLongTestResult(nan, nan, nan, nan, nan, nan, confidence, None, n_pos, n_neg, nan,
                                "the AUC needs both positive and negative instances")
    p1 = instance_placements(y, s1)
    p2 = instance_placements(y, s2)
    auc1 = float(p1[y].mean())
    auc2 = float(p2[y].mean())
    if n_pos < 2 or n_neg < 2:
        return paired_delong(auc1, auc2, nan, nan, nan, n_pos, n_neg, confidence)
    diff = p1 - p2
    var = float(np.var(diff[y], ddof=1)) / n_pos + float(np.var(diff[~y], ddof=1)) / n_neg
    var1 = float(np.var(p1[y], ddof=1)) / n_pos + float(np.var(p1[~y], ddof=1)) / n_neg
    var2 = float(np.var(p2[y], ddof=1)) / n_pos + float(np.var(p2[~y], ddof=1)) / n_neg
    return paired_delong(auc1, auc2, var, var1, var2, n_pos, n_neg, confidence)


def paired_delong(auc1: float, auc2: float, var: float, var1: float, var2: float, n_pos: int, n_neg: int,
                  confidence: float = 0.95) -> DeLongTestResult:
    """DeLong's test from the two AUCs and the variances of their difference and of each (the placements'
    sample variances by class, each divided by its class's size): what :func:`delong_test` computes from the
    instances, and data read in batches from the placements' moments (:mod:`assay.evaluation.paired`).

    Examples
    --------
    >>> r = paired_delong(0.8, 0.7, 0.002, 0.003, 0.003, 40, 60)
    >>> round(r.statistic, 4), round(r.correlation, 4)
    (2.2361, 0.6667)
    """
    nan = float("nan")
    d = auc1 - auc2
    if n_pos < 2 or n_neg < 2:
        return DeLongTestResult(auc1, auc2, d, nan, nan, nan, confidence, None, n_pos, n_neg, nan,
                                "DeLong's variance needs at least two positive and two negative instances")
    cov = (var1 + var2 - var) / 2.0
    correlation = cov / math.sqrt(var1 * var2) if var1 > 0 and var2 > 0 else nan
    se = math.sqrt(max(var, 0.0))
    if se == 0.0:
        if d == 0.0:
            note = "the two classifiers' placements are identical: no difference to test (p = 1)"
            return DeLongTestResult(auc1, auc2, d, 0.0, nan, 1.0, confidence, ConfidenceInterval(0.0, 0.0),
                                    n_pos, n_neg, correlation, note)
        note = "the variance of the difference is 0 while the difference is not: the z statistic is undefined"
        return DeLongTestResult(auc1, auc2, d, 0.0, nan, nan, confidence, None, n_pos, n_neg, correlation, note)
    z = d / se
    half = float(normal_quantile(0.5 + confidence / 2.0)) * se
    ci = ConfidenceInterval(max(d - half, -1.0), min(d + half, 1.0))
    return DeLongTestResult(auc1, auc2, d, se, z, float(normal_two_sided_p(z)), confidence, ci,
                            n_pos, n_neg, correlation)


@dataclass(frozen=True)
class UnpairedAUCTestResult(TwoSidedTest):
    """Two AUCs measured on different instances, their difference auc1 - auc2 and its test.

    DeLong's (as pROC's unpaired ``roc.test``): D = (A1 - A2) / sqrt(V1 + V2) with each AUC's DeLong
    variance, referred to Student's t with Welch's degrees of freedom, df = (V1 + V2)^2 / (V1^2 / (n1 - 1) +
    V2^2 / (n2 - 1)), n the instances of each curve. The bootstrap's (pROC's ``method="bootstrap"``):
    D = (A1 - A2) / s, s the standard deviation of the difference over stratified resamples of each
    curve on its own, referred to the normal distribution.
    """

    WHAT = "the difference between the two AUCs"

    auc1: float
    auc2: float
    difference: float
    se: float
    statistic: float
    pvalue: float
    confidence: float
    ci: ConfidenceInterval | None
    df: float | None
    method: str = "DeLong's test for two ROC curves on different instances"
    note: str | None = None

    def interval(self, confidence: float) -> ConfidenceInterval | None:
        if not (self.se == self.se and self.se > 0):
            return None
        q = 0.5 + confidence / 2.0
        crit = float(t_quantile(q, self.df)) if self.df is not None else float(normal_quantile(q))
        return ConfidenceInterval(max(self.difference - crit * self.se, -1.0),
                                  min(self.difference + crit * self.se, 1.0))

    def to_dict(self, confidence: float | None = None) -> dict[str, Any]:
        confidence = self.confidence if confidence is None else validate_confidence(confidence)
        return {**self.common_dict(confidence), "difference": finite_or_none(self.difference),
                "auc1": finite_or_none(self.auc1), "auc2": finite_or_none(self.auc2), "se": finite_or_none(self.se),
                "df": finite_or_none(self.df) if self.df is not None else None, "confidence": confidence,
                "note": self.note}


def unpaired_auc_test(sc1: ScoreCounts, sc2: ScoreCounts, *, method: str = "delong", confidence: float = 0.95,
                      resamples: int = 2000, seed: int = 0) -> UnpairedAUCTestResult:
    """The test of two AUCs on different instances (independent test sets): DeLong's or the bootstrap's,
    as :class:`UnpairedAUCTestResult` describes them."""
    confidence = validate_confidence(confidence)
    d1, d2 = delong(sc1, confidence=confidence), delong(sc2, confidence=confidence)
    difference = d1.auc - d2.auc
    nan = float("nan")
    if method == "delong":
        v1, v2 = d1.se ** 2, d2.se ** 2
        n1, n2 = float(sc1.n_positive + sc1.n_negative), float(sc2.n_positive + sc2.n_negative)
        total = v1 + v2
        if not total > 0:
            return UnpairedAUCTestResult(d1.auc, d2.auc, difference, 0.0, nan, nan, confidence, None, None,
                                         note="no test: both AUCs have a variance of 0")
        df = total ** 2 / (v1 ** 2 / (n1 - 1) + v2 ** 2 / (n2 - 1))
        statistic = difference / math.sqrt(total)
        result = UnpairedAUCTestResult(d1.auc, d2.auc, difference, math.sqrt(total), statistic,
                                       float(t_two_sided_p(statistic, df)), confidence, None, df)
    elif method == "bootstrap":
        diffs = _bootstrap_aucs(sc1, resamples, seed, 0) - _bootstrap_aucs(sc2, resamples, seed, 1)
        s = float(np.std(diffs, ddof=1))
        if not s > 0:
            return UnpairedAUCTestResult(d1.auc, d2.auc, difference, 0.0, nan, nan, confidence, None, None,
                                         method="bootstrap test for two ROC curves on different instances",
                                         note="no test: the difference does not vary over the resamples")
        statistic = difference / s
        result = UnpairedAUCTestResult(d1.auc, d2.auc, difference, s, statistic,
                                       float(normal_two_sided_p(statistic)), confidence, None, None,
                                       method="bootstrap test for two ROC curves on different instances")
    else:
        raise InvalidInput(f"{method!r} is not one of ['delong', 'bootstrap']", field="method")
    return replace(result, ci=result.interval(confidence))


def _bootstrap_aucs(sc: ScoreCounts, resamples: int, seed: int, stream: int) -> np.ndarray:
    """The AUCs of stratified resamples of one curve's instances (multinomial draws per distinct score)."""
    cp = np.asarray(sc.positives)
    cn = np.asarray(sc.negatives)
    if cp.dtype.kind == "f":
        raise InvalidInput("the bootstrap needs counts, not weights", field="method")
    n_pos, n_neg = int(cp.sum()), int(cn.sum())
    rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(2)[stream])
    m = len(cp)
    per_chunk = max(1, min(resamples, 4_000_000 // (m + 1)))
    out = np.empty(resamples)
    done = 0
    while done < resamples:
        c = min(per_chunk, resamples - done)
        pos = rng.multinomial(n_pos, cp / n_pos, size=c).astype(np.float64)
        neg = rng.multinomial(n_neg, cn / n_neg, size=c).astype(np.float64)
        below = n_neg - np.cumsum(neg, axis=1)  # negatives scored below each distinct score (scores decrease)
        out[done:done + c] = (pos * (below + 0.5 * neg)).sum(axis=1) / (n_pos * n_neg)
        done += c
    return out
