"""``evaluate_regression``: numeric predictions in, every error with its interval out.

The point values come from one :class:`~assay.summaries.regression.RegressionSummary`
through the formulas of :mod:`assay.metrics.regression` (Witten & Frank, ch. 5).
The intervals come from one percentile bootstrap over the instances, shared by all
metrics, seeded and reproducible.

How the bootstrap is computed
-----------------------------
A resample of the n instances drawn with replacement is a vector of n counts (how
often each instance was drawn). Every sum the metrics need is then a weighted sum,
so a block of resamples is one (chunk, n) matrix of counts times an (n, 11) matrix
of per-instance terms: no Python loop per resample. Blocks are cut so that
chunk × n stays below ``MAX_ELEMENTS`` (2e6, a few tens of MB of temporaries); the
n × B matrix of all resamples never exists. The draws are the same whatever the
block size, so the intervals depend only on the data, ``bootstrap`` and ``seed`` (the
block size can change the rounding of the matrix product, in the 16th digit).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from assay.errors import InvalidInput
from assay.evaluation import display
from assay.evaluation.options import Options, keywords_of, options_from
from assay.evaluation.prepared import MAX_REPEATED, check_weights
from assay.evaluation.tidy import to_frame
from assay.inference.bootstrap import MIN_DEFINED, BootstrapInterval, BootstrapSettings
from assay.inference.estimate import ConfidenceInterval, Estimate, finite_or_none
from assay.inputs import as_scores
from assay.metrics.regression import METRIC_TITLES, REGRESSION_METRICS, RegressionSums
from assay.summaries.regression import RegressionSummary

__all__ = ["RegressionEvaluation", "evaluate_regression", "bootstrap_regression", "METRIC_TITLES", "MAX_ELEMENTS"]

MAX_ELEMENTS = 2_000_000
"""Resamples are drawn in blocks of at most this many (resample, instance) cells."""

METHOD = "bootstrap-percentile"

_RELATIVE_TO_PREDICTION = ("mse_relative_to_prediction", "rmse_relative_to_prediction", "mae_relative_to_prediction")

# Columns of the per-instance terms whose weighted sums the resamples need.
_E, _E2, _ABS_E, _REL2, _ABS_REL, _ZERO, _DA, _DP, _DA2, _DP2, _DADP = range(11)


@dataclass(frozen=True)
class RegressionEvaluation:
    """The evaluation of numeric predictions: every error with its interval.

    Attributes
    ----------
    metrics : dict of str to Estimate
        In the order of ``METRIC_TITLES``: mse, rmse, mae, mean_error,
        relative_squared_error, root_relative_squared_error,
        relative_absolute_error, r2, correlation, mse_relative_to_prediction,
        rmse_relative_to_prediction, mae_relative_to_prediction. An undefined value
        is None with a note saying why.
    summary : RegressionSummary
        The sums behind every value (``summary.n``, ``summary.mean_actual``, ...).
    confidence : float
        The confidence level of the intervals.
    bootstrap : BootstrapSettings
        Resamples and seed of the shared percentile bootstrap.
    notes : tuple of str
        What a reader should know to read the numbers.
    y_true, y_pred : ndarray of float64 or None
        The actual and predicted values evaluated (weights expanded), for the
        pictures (predicted against actual, residuals); not in ``to_dict()``.
    """

    metrics: dict[str, Estimate]
    summary: RegressionSummary
    confidence: float
    bootstrap: BootstrapSettings
    notes: tuple[str, ...] = ()
    source: dict[str, Any] = field(default_factory=dict)
    y_true: np.ndarray | None = field(default=None, repr=False, compare=False)
    y_pred: np.ndarray | None = field(default=None, repr=False, compare=False)

    @property
    def residuals(self) -> np.ndarray | None:
        """p − a per instance (None when the values are not kept)."""
        if self.y_true is None or self.y_pred is None:
            return None
        return self.y_pred - self.y_true

    def plot_predicted_actual(self, ax: Any = None) -> Any:
        """Predicted against actual values, with the identity line p = a (a new figure's Axes when ``ax`` is
        None)."""
        return display.plot(self, "predicted_actual", ax)

    def plot_residuals(self, ax: Any = None) -> Any:
        """Residuals p − a against the predicted values, with the zero line."""
        return display.plot(self, "residuals", ax)

    def _repr_html_(self) -> str:
        return display.fragment(self)

    def __str__(self) -> str:
        """The text report of ``assay report --task regression`` (``print(r)``)."""
        return display.text(self)

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={self.metrics[name].value:.4g}" for name in ("rmse", "mae")
                          if name in self.metrics and self.metrics[name].value is not None)
        return f"RegressionEvaluation(n={self.n:g}, {shown})"

    @property
    def n(self) -> int:
        """Number of instances."""
        return self.summary.n

    @property
    def actual_mean(self) -> float:
        """ā, the prediction of the trivial model the relative errors compare with."""
        return self.summary.mean_actual

    @property
    def metric_titles(self) -> dict[str, tuple[str, str]]:
        """Name -> (human title, formula) of each metric, for renderers."""
        return METRIC_TITLES

    def __getitem__(self, name: str) -> Estimate:
        """``result["rmse"]`` is ``result.metrics["rmse"]``."""
        return self.metrics[name]

    def to_frame(self) -> Any:
        """Every error with its interval as a tidy pandas DataFrame (section, metric, group, value, low,
        high, method, note)."""
        return to_frame(self)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (full precision; null for undefined values)."""
        return {
            "task": "regression",
            "n": self.n,
            "confidence": self.confidence,
            "metrics": {name: e.to_dict() for name, e in self.metrics.items()},
            "intervals": {"bootstrap": self.bootstrap.to_dict()},
            "actual_mean": finite_or_none(self.actual_mean),
            "input": dict(self.source),
            "notes": list(self.notes),
        }


# ----------------------------------------------------------------------------
# the boundary


def _is_whole(x: Any) -> bool:
    if isinstance(x, (bool, np.bool_)):
        return False
    if isinstance(x, (int, np.integer)):
        return True
    return isinstance(x, (float, np.floating)) and math.isfinite(x) and float(x).is_integer()


def evaluate_regression(
    y_true: Any,
    y_pred: Any,
    *,
    confidence: float = 0.95,
    bootstrap: int = 2000,
    seed: int = 0,
    sample_weight: Any = None,
    options: Options | None = None,
) -> RegressionEvaluation:
    """Evaluate numeric predictions: every error of Witten & Frank (ch. 5) with a bootstrap interval.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        The actual values a: finite numbers (lists, numpy, pandas, polars).
    y_pred : array-like of shape (n,)
        The predicted values p, in the same order.
    confidence : float, default 0.95
        Confidence level of every interval, in (0, 1).
    bootstrap : int, default 2000
        Resamples of the percentile bootstrap (at least 100). The work is
        O(n · bootstrap); for millions of instances a few hundred resamples
        already give intervals far narrower than any difference that matters, and
        cost proportionally less.
    seed : int, default 0
        Seed of the bootstrap: the same seed gives the same intervals.
    sample_weight : array-like of shape (n,), optional
        Whole numbers: frequency weights, each instance counted that many times (as if
        the rows were repeated, intervals included). Weights that are not whole numbers
        are refused here: the bootstrap resamples instances, which needs counts.
    options : Options, optional
        ``confidence``, ``bootstrap`` and ``seed`` as one object (:class:`assay.Options`; keywords beside it
        change it). The options of classifiers (thresholds, costs, ...) do not apply to numeric predictions
        and are refused.

    Returns
    -------
    RegressionEvaluation
        ``.metrics`` maps mse, rmse, mae, mean_error, relative_squared_error,
        root_relative_squared_error, relative_absolute_error, r2, correlation and
        the three errors relative to the prediction to an Estimate; ``.to_dict()``
        is JSON-ready.

    Raises
    ------
    InvalidInput
        On a missing, non-numeric or non-finite value (naming its row), lengths that
        differ, fewer than 2 instances, a confidence outside (0, 1), fewer than 100
        resamples or a negative seed.

    Notes
    -----
    With p the prediction, a the actual value and ā the mean of the actual values:
    MSE = Σ(p−a)²/n, RMSE = sqrt(MSE), MAE = Σ|p−a|/n, mean error = Σ(p−a)/n,
    RSE = Σ(p−a)²/Σ(a−ā)², RRSE = sqrt(RSE), RAE = Σ|p−a|/Σ|a−ā|, R² = 1 − RSE,
    correlation = S_PA/(S_P S_A), and MSE, RMSE and MAE of the errors relative to
    the prediction (p−a)/p.

    Undefined values are None with a note: the relative errors and R² when every
    actual value is the same, the correlation when the actual values or the
    predictions are constant, the errors relative to the prediction when some p = 0
    (the note names the first such row, counting from 0 as Python does).

    Every interval is the percentile interval of one bootstrap: B resamples of the
    n instances drawn with replacement, the same resamples for every metric. An
    interval is given only when the metric is defined in at least 99% of the
    resamples (with few instances a resample may, for instance, hold a single
    actual value); otherwise it is None with a note.

    References
    ----------
    I. H. Witten and E. Frank, *Data Mining*, section 5.8;
    B. Efron and R. J. Tibshirani, *An Introduction to the Bootstrap* (1993), ch. 13.

    Examples
    --------
    Actual 2, 4, 6, 8 (ā = 5) and predicted 3, 4, 5, 10: errors 1, 0, −1, 2.

    >>> r = evaluate_regression([2, 4, 6, 8], [3, 4, 5, 10], bootstrap=200)
    >>> r["mse"].value, r["mae"].value, r["mean_error"].value
    (1.5, 1.0, 0.5)
    >>> r["relative_squared_error"].value, r["relative_absolute_error"].value  # 6/20 and 4/8
    (0.3, 0.5)
    >>> r["mse"].method
    'bootstrap-percentile'
    >>> evaluate_regression([1, 1, 1], [1, 2, 3], bootstrap=200)["r2"].note
    'every actual value is the same, so Σ(a−ā)² = 0'
    """
    options = options_from(options, keywords_of(locals()))
    wrong = [name for name in options.asked() if name not in ("confidence", "bootstrap", "seed")]
    if wrong:
        raise InvalidInput(f"{', '.join(wrong)}: options of classifiers, not of numeric predictions",
                           field="options")
    confidence, settings = options.confidence, options.settings
    a = as_scores(y_true, "y_true").astype(np.float64, copy=False)
    p = as_scores(y_pred, "y_pred").astype(np.float64, copy=False)
    if len(p) != len(a):
        raise InvalidInput(f"has {len(p)} values but y_true has {len(a)}", field="y_pred")
    if sample_weight is not None:
        w = check_weights(sample_weight, len(a))
        if not bool(np.all(w == np.floor(w))):
            row = int(np.flatnonzero(w != np.floor(w))[0])
            raise InvalidInput(f"{w[row]:g} is not a whole number: numeric predictions take frequency weights "
                               "(each instance counted that many times)", field="sample_weight", row=row)
        if float(w.sum()) > MAX_REPEATED:
            raise InvalidInput(f"the weights total {float(w.sum()):,.0f}, more than the {MAX_REPEATED:,} instances "
                               "the bootstrap of numeric predictions resamples", field="sample_weight")
        times = w.astype(np.int64)
        a, p = np.repeat(a, times), np.repeat(p, times)
    if len(a) < 2:
        raise InvalidInput(f"has {len(a)} value{'s' if len(a) != 1 else ''}; at least 2 instances are needed",
                           field="y_true")
    summary = RegressionSummary.from_arrays(a, p)
    zeros = np.flatnonzero(p == 0)

    values: dict[str, float] = {}
    reasons: dict[str, str] = {}
    for name, spec in REGRESSION_METRICS.items():
        value = float(spec.compute(summary))
        if math.isfinite(value):
            values[name] = value
            continue
        reason = spec.undefined(summary)
        if name in _RELATIVE_TO_PREDICTION and zeros.size:
            reason = f"a prediction is 0 (row {int(zeros[0])}, counting from 0"
            reason += f"; {zeros.size} predictions are 0)" if zeros.size > 1 else ")"
        reasons[name] = reason or "not representable: the sums overflow the floating-point range"

    intervals = bootstrap_regression(a, p, values.keys(), confidence=confidence, settings=settings)
    metrics: dict[str, Estimate] = {}
    for name in REGRESSION_METRICS:
        if name in reasons:
            metrics[name] = Estimate.undefined(reasons[name])
        else:
            b = intervals[name]
            metrics[name] = Estimate(values[name], b.ci, METHOD, b.note)

    notes = (
        "relative errors and R² compare with always predicting the mean of the actual values, "
        f"ā = {summary.mean_actual:.6g}",
        f"intervals: percentile bootstrap over the instances, {settings.resamples} resamples (seed {settings.seed})",
    )
    return RegressionEvaluation(metrics, summary, confidence, settings, notes, y_true=a, y_pred=p)


# ----------------------------------------------------------------------------
# the bootstrap


def _may_be_constant(x: np.ndarray, resamples: int) -> bool:
    """Whether some resample could hold a single distinct value of x.

    A resample is constant only if all n draws fall on one value; the chance is at
    most B · share**n, with share the frequency of the commonest value. Below 1e-12
    the exact (and costly) check is skipped.
    """
    _, counts = np.unique(x, return_counts=True)
    if counts.size == 1:
        return True
    n = x.size
    share = counts.max() / n
    return math.log(resamples) + n * math.log(share) > math.log(1e-12)


def _constant_rows(selected: np.ndarray, x: np.ndarray) -> np.ndarray:
    """For each resample (row of ``selected``), whether its chosen values of x are all equal."""
    low = np.where(selected, x, np.inf).min(axis=1)
    high = np.where(selected, x, -np.inf).max(axis=1)
    return low == high


def bootstrap_regression(
    y_true: np.ndarray,
    y_pred: np.ndarray,
    names: Iterable[str] | None = None,
    *,
    confidence: float,
    settings: BootstrapSettings = BootstrapSettings(),
    max_elements: int = MAX_ELEMENTS,
) -> dict[str, BootstrapInterval]:
    """Percentile bootstrap intervals of regression metrics, one resampling shared by all.

    Parameters
    ----------
    y_true, y_pred : ndarray of shape (n,)
        Actual and predicted values (inputs validated: finite float64, n >= 1).
    names : iterable of str, optional
        Metrics of ``REGRESSION_METRICS`` to resample; all of them by default.
    confidence : float
        Confidence level, in (0, 1).
    settings : BootstrapSettings
        Resamples B and seed.
    max_elements : int, default MAX_ELEMENTS
        Largest block of (resample, instance) cells drawn at once; the resamples do
        not depend on it (the rounding of the sums may, in the last digit).

    Returns
    -------
    dict of name to BootstrapInterval
        The interval between the (1 − c)/2 and (1 + c)/2 quantiles of the
        replicates, or None with a note when the metric is undefined in more than
        1% of them.

    Notes
    -----
    O(n · B) time; memory O(max_elements), never O(n · B). Each block draws a
    (chunk, n) matrix of instance indices, turns it into counts per instance, and
    multiplies the counts by the per-instance terms. The spreads are centred at the
    full sample's means, so the resampled sums of squares keep their precision.
    Σ|a − ā*| (ā* the resample's mean) does not split into sums and is computed
    cell by cell.

    Examples
    --------
    >>> a = np.arange(50.0)
    >>> r = bootstrap_regression(a, a + 1, ["mean_error"], confidence=0.95)
    >>> r["mean_error"].ci
    ConfidenceInterval(low=1.0, high=1.0)
    """
    a = np.asarray(y_true, dtype=np.float64)
    p = np.asarray(y_pred, dtype=np.float64)
    chosen = list(REGRESSION_METRICS) if names is None else list(names)
    n = a.size
    resamples = settings.resamples
    rng = np.random.default_rng(settings.seed)
    per_chunk = max(1, min(resamples, max_elements // n))
    check_actual = _may_be_constant(a, resamples)
    check_pred = _may_be_constant(p, resamples)

    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        da = a - a.mean()
        dp = p - p.mean()
        e = p - a
        zero = p == 0
        rel = np.where(zero, 0.0, e / np.where(zero, 1.0, p))
        terms = np.column_stack([e, e * e, np.abs(e), rel * rel, np.abs(rel), zero.astype(np.float64),
                                 da, dp, da * da, dp * dp, da * dp])

    replicates: dict[str, list[np.ndarray]] = {name: [] for name in chosen}
    done = 0
    while done < resamples and chosen:
        size = min(per_chunk, resamples - done)
        index = rng.integers(0, n, size=(size, n))
        index += (np.arange(size) * n)[:, None]
        weights = np.bincount(index.reshape(-1), minlength=size * n).reshape(size, n).astype(np.float64)
        del index
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            s = weights @ terms
            mda = s[:, _DA] / n
            mdp = s[:, _DP] / n
            deviation = np.abs(da[None, :] - mda[:, None])
            abs_dev = np.einsum("ij,ij->i", deviation, weights)
            del deviation
            selected = weights > 0
            sums = RegressionSums(
                n=n,
                sum_error=s[:, _E],
                sum_sq_error=s[:, _E2],
                sum_abs_error=s[:, _ABS_E],
                sum_sq_rel_error=s[:, _REL2],
                sum_abs_rel_error=s[:, _ABS_REL],
                zero_predictions=np.rint(s[:, _ZERO]),
                m2_actual=np.maximum(s[:, _DA2] - n * mda * mda, 0.0),
                abs_dev_actual=abs_dev,
                m2_pred=np.maximum(s[:, _DP2] - n * mdp * mdp, 0.0),
                comoment=s[:, _DADP] - n * mda * mdp,
                constant_actual=_constant_rows(selected, a) if check_actual else np.zeros(size, dtype=bool),
                constant_pred=_constant_rows(selected, p) if check_pred else np.zeros(size, dtype=bool),
            )
            for name in chosen:
                replicates[name].append(np.asarray(REGRESSION_METRICS[name].compute(sums), dtype=np.float64))
        done += size

    alpha = 1.0 - confidence
    out: dict[str, BootstrapInterval] = {}
    for name in chosen:
        values = np.concatenate(replicates[name])
        finite = np.isfinite(values)
        share = float(finite.mean())
        if share < MIN_DEFINED:
            note = f"no interval: undefined in {1 - share:.1%} of bootstrap resamples"
            out[name] = BootstrapInterval(None, share, note)
            continue
        low, high = np.quantile(values[finite], [alpha / 2.0, 1.0 - alpha / 2.0])
        out[name] = BootstrapInterval(ConfidenceInterval(float(low), float(high)), share)
    return out
