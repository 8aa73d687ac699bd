"""Probabilistic predictions in, every loss with its interval and a reliability table out.

``analyse_probabilities`` is the entry point: it validates what only it can check
(rows that sum to 1, the prior, the options), summarises the predictions into a
mergeable ``ProbabilitySummary`` and analyses that. ``analyse_summary`` analyses a
summary built elsewhere, e.g. merged from the chunks of a stream or the folds of
a cross-validation.

Intervals, each named in its ``method``:

* ``"normal-mean"``: a mean of per-instance losses (quadratic, absolute,
  information, Brier, log loss) gets the central-limit interval
  mean ± z s / √n, s the sample standard deviation (divisor n - 1);
* ``"delta-ratio"``: a relative loss, the ratio of the model's mean loss to the
  prior classifier's on the same instances, gets R ± z se with se from the delta
  method (``assay.metrics.probabilistic.relative_loss``);
* both are truncated to the range of the quantity ([0, 2] for the quadratic and
  absolute losses, [0, 1] for the two-class Brier score, [0, ∞) otherwise), as
  the normal interval of a proportion is truncated to [0, 1];
* each bin of the reliability table gets the Wilson interval of its observed
  frequency.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, get_args

import numpy as np

from assay.checks import check_choice, check_confidence, check_integer, check_number
from assay.errors import InvalidInput
from assay.inference.bootstrap import BootstrapSettings
from assay.inference.calibration import CalibrationHierarchy, calibration_hierarchy
from assay.inference.calibration_curve import (
    BrierDecomposition,
    CalibrationCurve,
    brier_decomposition,
    calibration_curve,
)
from assay.inference.ece import (
    EceInterval,
    SmoothEce,
    binning_text,
    ece_interval_of_rows,
    ece_interval_of_summary,
    smooth_ece_of_rows,
    smooth_ece_of_summary,
)
from assay.inference.estimate import ConfidenceInterval, Estimate, finite_or_none
from assay.inference.means import Range, delta_ratio_interval, normal_mean_interval
from assay.inference.proportion import proportion_bounds
from assay.inputs import canonical_label
from assay.metrics.probabilistic import (
    CalibrationBinsFold,
    MeanLoss,
    RelativeLoss,
    calibration_errors,
    class_frequencies,
    mean_loss,
    relative_loss,
)
from assay.metrics.ranking import first_index, threshold_counts, walk_summary
from assay.summaries.probabilities import CHUNK as ROW_CHUNK
from assay.summaries.probabilities import (
    LOG_LOSS_EPS,
    ProbabilityFold,
    ProbabilitySummary,
    TwoClassScores,
    bin_index,
    brier_scale,
    calibration_values,
)
from assay.summaries.ranges import known_entries
from assay.summaries.spill import CHUNK, release

__all__ = [
    "CalibrationStrategy",
    "CALIBRATION_PARTS",
    "CALIBRATION_STRATEGIES",
    "PriorSource",
    "ROW_SUM_TOLERANCE",
    "PriorClassifier",
    "CalibrationBin",
    "CalibrationTable",
    "ProbabilisticAnalysis",
    "analyse_probabilities",
    "probability_fold",
    "analyse_summary",
    "two_class_calibration",
    "calibration_table",
    "quantile_calibration_table",
    "quantile_table_of_counts",
    "normal_mean_interval",
    "delta_ratio_interval",
    "check_bins",
    "check_clip",
    "check_parts",
    "check_strategy",
    "shown_calibration",
    "class_calibration",
    "check_rows",
    "MAX_CALIBRATION_BINS",
]

CalibrationStrategy = Literal["uniform", "quantile"]
CALIBRATION_STRATEGIES: tuple[str, ...] = get_args(CalibrationStrategy)

CALIBRATION_PARTS: tuple[str, ...] = ("table", "hierarchy", "curve", "brier")
"""What the calibration shows (all by default): ``table``, the reliability table with the expected calibration
error, its interval, the maximum and the smooth ECE; ``hierarchy``, the mean and weak calibration of
rms::val.prob (observed/expected, the calibration intercept and slope, the unreliability test, Spiegelhalter's
z); ``curve``, the lowess calibration curve with its E-statistics and bootstrap band; ``brier``, the Brier
score's decomposition. The last three are of two-class probabilities."""

TWO_CLASS_PARTS = frozenset({"hierarchy", "curve", "brier"})

PriorSource = Literal["given", "test data"]

ROW_SUM_TOLERANCE = 1e-6
"""How far from 1 a row of probabilities (or a given prior) may sum."""

MAX_CALIBRATION_BINS = 10_000
"""More calibration bins than this cannot be read off a table or a plot."""


# ----------------------------------------------------------------------------
# results


@dataclass(frozen=True)
class PriorClassifier:
    """The prior classifier of Witten & Frank (ch. 5): class frequencies for every instance.
    ``source`` is ``"given"`` (e.g. the training data's frequencies, passed by the
    caller) or ``"test data"`` (the frequencies of the evaluated instances).
    """
    labels: tuple[str, ...]
    probabilities: tuple[float, ...]
    source: PriorSource

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "probabilities": {label: finite_or_none(p) for label, p in zip(self.labels, self.probabilities,
                                                                         strict=True)},
        }


@dataclass(frozen=True)
class CalibrationBin:
    """One bin of a reliability table.
    ``mean_predicted`` and ``observed`` are None for an empty bin; ``ci`` is the
    Wilson interval of ``observed``.
    """
    low: float
    high: float
    count: int
    mean_predicted: float | None
    observed: float | None
    ci: ConfidenceInterval | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "low": self.low,
            "high": self.high,
            "count": self.count,
            "mean_predicted": finite_or_none(self.mean_predicted),
            "observed": finite_or_none(self.observed),
            "ci": self.ci.to_list() if self.ci is not None else None,
        }


@dataclass(frozen=True)
class CalibrationTable:
    """A reliability table: predicted probability against observed frequency, per bin.
    ``target`` says what is binned: ``"positive class 'x'"`` (the probability of
    class x against whether the instance is of class x) or ``"top label"`` (the
    largest probability against whether its class is the true one). ``ece`` and
    ``mce`` are the expected and maximum calibration errors over the non-empty
    bins (NaN, shown as null, when there is no instance). ``ece_interval`` is the
    ECE's percentile bootstrap interval, for two-class probabilities (None, and no
    JSON key, for more classes: their summary keeps only the bins' sums, which a
    stream's parts merge, not the instances to redraw).
    """
    target: str
    strategy: CalibrationStrategy
    bins: tuple[CalibrationBin, ...]
    ece: float
    mce: float
    ece_interval: EceInterval | None = None

    @property
    def binning(self) -> str:
        """The bins in words: '10 equal-width bins (uniform), as sklearn.calibration.calibration_curve bins'."""
        return binning_text(self.strategy, len(self.bins))

    @property
    def edges(self) -> np.ndarray:
        """The bins' edges, low to high (one more than the bins)."""
        return np.array([b.low for b in self.bins] + [self.bins[-1].high])

    def to_dict(self) -> dict[str, Any]:
        out = {
            "target": self.target,
            "bins": [b.to_dict() for b in self.bins],
            "ece": finite_or_none(self.ece),
            "mce": finite_or_none(self.mce),
            "strategy": self.strategy,
        }
        if self.ece_interval is not None:  # two-class probabilities (null bounds with the reason beyond memory)
            out["binning"] = self.binning
            out["ece_interval"] = self.ece_interval.to_dict()
        return out


@dataclass(frozen=True)
class ProbabilisticAnalysis:
    """Losses of probabilistic predictions with their intervals, and calibration.
    Every loss is an ``Estimate``: ``value`` None (never a silent number) with a
    ``note`` when it is undefined, e.g. an information loss that is infinite.
    ``infinite_information_loss`` counts the instances that gave probability 0 to
    their true class (with ``clip``, they are among the clipped ones). ``summary``
    keeps the counts to recompute or merge.
    """
    n: int
    labels: tuple[str, ...]
    confidence: float
    quadratic_loss: Estimate
    absolute_loss: Estimate
    information_loss_bits: Estimate
    brier: Estimate
    log_loss: Estimate
    relative_quadratic_loss: Estimate
    relative_absolute_loss: Estimate
    relative_information_loss: Estimate
    prior: PriorClassifier
    infinite_information_loss: int
    clip: float | None
    calibration: CalibrationTable | None  # None: not asked for (calibration_parts without "table")
    summary: ProbabilitySummary
    hierarchy: CalibrationHierarchy | None = None  # two-class scores: mean and weak calibration, Spiegelhalter
    moderate: CalibrationCurve | None = None  # two-class scores: the lowess curve of rms::val.prob, E-statistics
    brier_decomposition: BrierDecomposition | None = None  # two-class scores: Murphy's partition, scaled Brier
    smooth_ece: SmoothEce | None = None  # the table's target in memory: Błasiok & Nakkiran's smooth ECE
    calibration_class: str | None = None  # several classes: the class whose calibration against the rest is given

    @property
    def estimates(self) -> dict[str, Estimate]:
        """Every loss by its JSON name, in the JSON's order."""
        return {name: getattr(self, name) for name in _ESTIMATE_NAMES}

    def to_dict(self) -> dict[str, Any]:
        """The ``probabilistic`` section of the JSON contract (full precision; null for undefined)."""
        out: dict[str, Any] = {name: e.to_dict() for name, e in self.estimates.items()}
        out["prior"] = self.prior.to_dict()
        out["infinite_information_loss"] = self.infinite_information_loss
        out["clip"] = self.clip
        if self.calibration is not None:
            out["calibration"] = self.calibration.to_dict()
        if self.hierarchy is not None:
            out["calibration_hierarchy"] = self.hierarchy.to_dict()
        if self.moderate is not None:
            out["calibration_curve"] = self.moderate.to_dict()
        if self.brier_decomposition is not None:
            out["brier_decomposition"] = self.brier_decomposition.to_dict()
        if self.smooth_ece is not None:
            out["smooth_ece"] = self.smooth_ece.to_dict()
        if self.calibration_class is not None:
            out["calibration_class"] = self.calibration_class
        return out


_ESTIMATE_NAMES = (
    "quadratic_loss",
    "absolute_loss",
    "information_loss_bits",
    "brier",
    "log_loss",
    "relative_quadratic_loss",
    "relative_absolute_loss",
    "relative_information_loss",
)


# ----------------------------------------------------------------------------
# estimates


def _infinite_note(count: int) -> str:
    return f"infinite: {count} instance(s) got probability 0 for their true class"


def _mean_estimate(m: MeanLoss, confidence: float, within: Range, note: str | None = None) -> Estimate:
    if m.n == 0:
        return Estimate.undefined("no instances")
    if m.infinite:
        return Estimate.undefined(_infinite_note(m.infinite))
    ci = normal_mean_interval(m.mean, m.sd, m.n, confidence=confidence, within=within)
    if ci is None:
        return Estimate(m.mean, None, None, note or "one instance: no interval")
    return Estimate(m.mean, ci, "normal-mean", note)


def _relative_estimate(
    r: RelativeLoss, loss: str, summary: ProbabilitySummary, prior: np.ndarray, confidence: float
) -> Estimate:
    if r.n == 0:
        return Estimate.undefined("no instances")
    if math.isinf(r.model_loss):
        return Estimate.undefined(_infinite_note(summary.zero_probability))
    if math.isinf(r.prior_loss):
        present = summary.class_counts > 0
        zero = [repr(label) for label, q, here in zip(summary.labels, prior, present, strict=True)
                if here and q == 0.0]
        return Estimate.undefined(
            "the prior classifier's information loss is infinite: it gives probability 0 to "
            f"{', '.join(zero)}, found in the data"
        )
    if r.prior_loss == 0.0:
        return Estimate.undefined(f"the prior classifier's {loss} loss is 0 (it is certain of every true class)")
    if not math.isfinite(r.value):
        return Estimate.undefined(f"undefined: model loss {r.model_loss!r}, prior classifier loss {r.prior_loss!r}")
    ci = delta_ratio_interval(r.value, r.se, confidence=confidence, within=(0.0, math.inf))
    if ci is None:
        return Estimate(r.value, None, None, "one instance: no interval")
    return Estimate(r.value, ci, "delta-ratio", None)


# ----------------------------------------------------------------------------
# calibration


def _target_text(labels: Sequence[str], calibration_class: int | None) -> str:
    return "top label" if calibration_class is None else f"positive class {labels[calibration_class]!r}"


def _table(
    target: str, strategy: CalibrationStrategy, edges: np.ndarray, count: np.ndarray, predicted: np.ndarray,
    observed: np.ndarray, confidence: float,
) -> CalibrationTable:
    filled = count > 0
    safe = np.maximum(count, 1)
    low, high = proportion_bounds(observed, safe, confidence=confidence, method="wilson")
    bins = tuple(
        CalibrationBin(
            low=float(edges[b]),
            high=float(edges[b + 1]),
            count=int(count[b]),
            mean_predicted=float(predicted[b] / count[b]) if filled[b] else None,
            observed=float(observed[b] / count[b]) if filled[b] else None,
            ci=ConfidenceInterval(float(low[b]), float(high[b])) if filled[b] else None,
        )
        for b in range(len(count))
    )
    ece, mce = calibration_errors(count, predicted, observed)
    return CalibrationTable(target, strategy, bins, ece, mce)


def calibration_table(summary: ProbabilitySummary, *, confidence: float = 0.95) -> CalibrationTable:
    """The reliability table of a summary's equal-width bins on [0, 1].
    Bins are (low, high], the first also holding 0, as in
    ``sklearn.calibration.calibration_curve(strategy="uniform")``; unlike it,
    empty bins are kept (with ``count`` 0 and null values).
    """
    return _table(_target_text(summary.labels, summary.calibration_class), "uniform", summary.edges,
                  summary.bin_count, summary.bin_predicted, summary.bin_observed, confidence)


def quantile_calibration_table(
    y_true_codes,
    proba,
    *,
    labels: Sequence[str],
    calibration_class: int | None,
    bins: int = 10,
    confidence: float = 0.95,
) -> CalibrationTable:
    """A reliability table whose bins hold (about) equal numbers of instances.
    The edges are the 0, 1/b, ..., 1 quantiles of the binned probabilities
    (``np.percentile``, linear interpolation), exactly as
    ``sklearn.calibration.calibration_curve(strategy="quantile")``. Quantile bins
    depend on all the data at once, so they are **not mergeable**: this table is
    computed directly from the predictions, never from a ``ProbabilitySummary``.
    Tied probabilities give repeated edges and so empty bins, which are kept.
    """
    value, outcome = calibration_values(y_true_codes, proba, calibration_class)
    edges = np.percentile(value, np.linspace(0.0, 1.0, bins + 1) * 100.0)
    where = bin_index(value, edges)
    count = np.bincount(where, minlength=bins)
    predicted = np.bincount(where, weights=value, minlength=bins)
    observed = np.bincount(where[outcome], minlength=bins)
    return _table(_target_text(labels, calibration_class), "quantile", edges, count, predicted, observed,
                  confidence)


# ----------------------------------------------------------------------------
# validation


def check_clip(clip: Any) -> float | None:
    if clip is None:
        return None
    return check_number(clip, "clip", low=0.0, high=1.0, low_open=True, high_open=True)


def check_bins(bins: Any) -> int:
    return check_integer(bins, "bins", low=1, high=MAX_CALIBRATION_BINS, what="a whole number of bins")


def check_strategy(strategy: Any) -> CalibrationStrategy:
    check_choice(strategy, CALIBRATION_STRATEGIES, "strategy")
    return strategy


def check_parts(parts: Any) -> tuple[str, ...]:
    """The parts of the calibration to show (:data:`CALIBRATION_PARTS`), in that order: a name or names."""
    if isinstance(parts, str):
        parts = (parts,)
    try:
        given = tuple(parts)
    except TypeError:
        raise InvalidInput(f"expected names among {list(CALIBRATION_PARTS)}, got {parts!r}",
                           field="calibration_parts") from None
    for part in given:
        check_choice(part, CALIBRATION_PARTS, "calibration_parts")
    return tuple(part for part in CALIBRATION_PARTS if part in given)


def shown_calibration(analysis: ProbabilisticAnalysis | None,
                      parts: Sequence[str] = CALIBRATION_PARTS) -> ProbabilisticAnalysis | None:
    """The analysis with the calibration's ``parts`` only (:data:`CALIBRATION_PARTS`; the losses always). Parts
    of two-class probabilities asked for by name with more classes are refused, as an option that does not
    apply."""
    if analysis is None or tuple(parts) == CALIBRATION_PARTS:
        return analysis
    asked = set(parts)
    if len(analysis.labels) > 2 and asked & TWO_CLASS_PARTS and analysis.calibration_class is None:
        names = ", ".join(part for part in CALIBRATION_PARTS if part in asked & TWO_CLASS_PARTS)
        raise InvalidInput(f"{names}: of two classes' probabilities; with {len(analysis.labels)} classes the "
                           "calibration is the table (of the top label's confidence), or a class's against the "
                           "rest with calibration_class", field="calibration_parts")
    table = "table" in asked
    return replace(analysis, calibration=analysis.calibration if table else None,
                   smooth_ece=analysis.smooth_ece if table else None,
                   hierarchy=analysis.hierarchy if "hierarchy" in asked else None,
                   moderate=analysis.moderate if "curve" in asked else None,
                   brier_decomposition=analysis.brier_decomposition if "brier" in asked else None)


def class_calibration(analysis: ProbabilisticAnalysis, summary: Any, *, bins: int = 10,
                      strategy: CalibrationStrategy = "uniform", confidence: float = 0.95,
                      bootstrap: BootstrapSettings | None = BootstrapSettings()) -> ProbabilisticAnalysis:
    """The analysis of several classes' probabilities with the calibration of one class against the rest in
    place of the top label's: ``summary`` is that class's one-vs-rest score summary (its probabilities, by
    whether the class is the actual one; labels ("rest", class)), analysed as two-class probabilities are
    (:func:`analyse_score_counts`: the table, the ECE's interval, the smooth ECE, the mean and weak
    calibration, the lowess curve and the Brier decomposition). The losses stay those of all the classes."""
    binary = analyse_score_counts(summary, bins=bins, strategy=strategy, confidence=confidence, bootstrap=bootstrap)
    table = replace(binary.calibration, target=f"class {summary.labels[1]!r} against the rest")
    return replace(analysis, calibration=table, smooth_ece=binary.smooth_ece, hierarchy=binary.hierarchy,
                   moderate=binary.moderate, brier_decomposition=binary.brier_decomposition,
                   calibration_class=str(summary.labels[1]))


def check_rows(proba: np.ndarray) -> None:
    for start in range(0, len(proba), ROW_CHUNK):  # a chunk at a time: no n-long temporaries
        sums = proba[start:start + ROW_CHUNK].sum(axis=1)
        bad = np.flatnonzero(np.abs(sums - 1.0) > ROW_SUM_TOLERANCE)
        if bad.size:
            i = int(bad[0])
            raise InvalidInput(f"row sums to {float(sums[i])!r}, not 1 (tolerance 1e-6)", field="y_proba",
                               row=start + i)


def _prior_vector(prior: Any, labels: tuple[str, ...]) -> np.ndarray:
    """A given prior as probabilities in label order: a mapping label -> p, or a sequence."""
    k = len(labels)
    if isinstance(prior, Mapping):
        q = np.full(k, np.nan)
        for key, value in prior.items():
            j = labels.index(canonical_label(key, labels, field="prior"))
            if not np.isnan(q[j]):
                raise InvalidInput(f"class {labels[j]!r} is given twice", field="prior")
            q[j] = _prior_value(value, labels[j])
        missing = [label for label, v in zip(labels, q, strict=True) if np.isnan(v)]
        if missing:
            raise InvalidInput(f"no probability for class {missing[0]!r}", field="prior")
    else:
        values = list(np.asarray(prior, dtype=object).reshape(-1)) if not isinstance(prior, str) else [prior]
        if len(values) != k:
            raise InvalidInput(f"has {len(values)} probabilities for {k} classes {list(labels)}", field="prior")
        q = np.array([_prior_value(v, label) for v, label in zip(values, labels, strict=True)])
    total = float(q.sum())
    if abs(total - 1.0) > ROW_SUM_TOLERANCE:
        raise InvalidInput(f"sums to {total!r}, not 1 (tolerance 1e-6)", field="prior")
    return q


def _prior_value(value: Any, label: str) -> float:
    try:
        f = float(value)
    except (TypeError, ValueError):
        raise InvalidInput(f"{value!r} for class {label!r} is not a number", field="prior") from None
    if isinstance(value, (bool, np.bool_)) or not (0.0 <= f <= 1.0):
        raise InvalidInput(f"{value!r} for class {label!r} is not a probability in [0, 1]", field="prior")
    return f


# ----------------------------------------------------------------------------
# entry points


def analyse_summary(
    summary: ProbabilitySummary, *, prior: Any = None, confidence: float = 0.95
) -> ProbabilisticAnalysis:
    """Analyse a (possibly merged) summary; the reliability table uses its uniform bins.
    Parameters
    ----------
    summary : ProbabilitySummary
    prior : mapping of label to probability, or sequence in label order, optional
        The prior classifier's distribution, e.g. the training data's class
        frequencies; by default the summarised instances' own frequencies.
    confidence : float, default 0.95

    Returns
    -------
    ProbabilisticAnalysis
    """
    confidence = check_confidence(confidence)
    labels = summary.labels
    if prior is None:
        q, source = class_frequencies(summary), "test data"
    else:
        q, source = _prior_vector(prior, labels), "given"
    unbounded = (0.0, math.inf)
    estimates = {
        "quadratic_loss": _mean_estimate(mean_loss(summary, "quadratic"), confidence, (0.0, 2.0)),
        "absolute_loss": _mean_estimate(mean_loss(summary, "absolute"), confidence, (0.0, 2.0)),
        "information_loss_bits": _mean_estimate(mean_loss(summary, "information"), confidence, unbounded,
                                                _clip_note(summary)),
        "brier": _mean_estimate(mean_loss(summary, "brier"), confidence, (0.0, 2.0 * brier_scale(len(labels)))),
        "log_loss": _mean_estimate(mean_loss(summary, "log_loss"), confidence, unbounded, _log_loss_note(summary)),
    }
    for loss in ("quadratic", "absolute", "information"):
        r = relative_loss(summary, loss, q, prior_from_data=source == "test data")
        estimates[f"relative_{loss}_loss"] = _relative_estimate(r, loss, summary, q, confidence)
    return ProbabilisticAnalysis(
        n=summary.n,
        labels=labels,
        confidence=confidence,
        **estimates,
        prior=PriorClassifier(labels, tuple(float(p) for p in q), source),
        infinite_information_loss=summary.zero_probability,
        clip=summary.clip,
        calibration=calibration_table(summary, confidence=confidence),
        summary=summary,
    )


def _clip_note(summary: ProbabilitySummary) -> str | None:
    if summary.clip is None:
        return None
    return f"clipped: the probability of the true class was raised to {summary.clip!r} in {summary.clipped} instance(s)"


def _log_loss_note(summary: ProbabilitySummary) -> str | None:
    if not summary.log_loss_clipped:
        return None
    return (f"as scikit-learn: the probability of the true class was raised to eps = {LOG_LOSS_EPS!r} "
            f"in {summary.log_loss_clipped} instance(s)")


def analyse_probabilities(
    proba: np.ndarray,
    true_codes: np.ndarray,
    labels: Sequence[str],
    *,
    positive: str | None = None,
    prior: Any = None,
    clip: float | None = None,
    bins: int = 10,
    strategy: CalibrationStrategy = "uniform",
    confidence: float = 0.95,
    bootstrap: BootstrapSettings | None = None,
    smooth: bool = True,
) -> ProbabilisticAnalysis:
    """Evaluate probabilistic predictions: losses, relative losses, calibration.
    Parameters
    ----------
    proba : ndarray of shape (n, k)
        Predicted probabilities in [0, 1] (validated by the caller), columns in
        the order of ``labels``. Each row must sum to 1 within 1e-6.
    true_codes : ndarray of int, shape (n,)
        Index of each instance's true class in ``labels``.
    labels : sequence of str
        The k >= 2 classes.
    positive : str, optional
        The class whose probability the reliability table bins. Default: with two
        classes, the second label (as scikit-learn's ``pos_label`` for {0, 1});
        with more, none: the table bins the top-label confidence against whether
        the top label (the first in label order on ties) is right.
    prior : mapping of label to probability, or sequence in label order, optional
        The prior classifier's class distribution, e.g. the frequencies of the
        training data; by default the test data's own class frequencies.
    clip : float, optional
        Raise the probability of the true class to at least ``clip`` (e.g. 1e-15)
        in the information loss, for the model and the prior classifier alike; the
        result says so. By default nothing is clipped: an instance with
        probability 0 for its true class makes the information loss infinite,
        reported as null with the count of such instances.
    bins : int, default 10
        Calibration bins.
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width bins on [0, 1] (mergeable, kept in the summary) or bins with
        equal numbers of instances (computed from the data, not mergeable).
    confidence : float, default 0.95
        Confidence level of every interval.
    bootstrap : BootstrapSettings, optional
        Resamples and seed of the ECE's percentile interval (rows redrawn with
        replacement, :func:`assay.inference.ece.ece_interval`); None: no interval,
        with that reason. With two classes only, as the smooth ECE: more classes
        are summarised as the bins' sums, which a stream's parts merge, so that
        parts and whole report the same (neither).
    smooth : bool, default True
        Give the smooth ECE of two classes from the rows; False: left out, for a caller that gives it from
        the score summary (:func:`two_class_calibration`, as every other path does).

    Returns
    -------
    ProbabilisticAnalysis
        ``.to_dict()`` is the ``probabilistic`` section of the JSON contract.

    Raises
    ------
    InvalidInput
        On a row that does not sum to 1 (naming the first), a prior that is not a
        distribution over ``labels``, or an invalid option.

    Notes
    -----
    Losses (Witten & Frank, section 5.6): quadratic Σ_j (p_j - a_j)², absolute
    Σ_j |p_j - a_j|, information -log2 p_c bits; ``brier`` and ``log_loss`` are
    scikit-learn 1.9's ``brier_score_loss`` (halved for two classes only) and
    ``log_loss`` (natural log, p clipped to [eps, 1 - eps]). The relative losses
    divide the mean loss by that of the prior classifier, which predicts the
    prior distribution for every instance.

    References
    ----------
    I. H. Witten, E. Frank, *Data Mining*, section 5.6.

    Examples
    --------
    Witten & Frank's definitions by hand: true class 0 predicted with (0.7, 0.2, 0.1),
    true class 1 with (0.2, 0.5, 0.3).

    >>> r = analyse_probabilities(np.array([[0.7, 0.2, 0.1], [0.2, 0.5, 0.3]]), np.array([0, 1]),
    ...                           ("a", "b", "c"))

    Quadratic (0.14 + 0.38) / 2, absolute (0.6 + 1.0) / 2:

    >>> round(r.quadratic_loss.value, 12), round(r.absolute_loss.value, 12)
    (0.26, 0.8)
    >>> round(r.information_loss_bits.value, 4)   # (-log2 0.7 - log2 0.5) / 2
    0.7573
    >>> r.prior.to_dict()
    {'source': 'test data', 'probabilities': {'a': 0.5, 'b': 0.5, 'c': 0.0}}
    """
    confidence = check_confidence(confidence)
    labels = tuple(labels)
    k = len(labels)
    lazy = isinstance(proba, TwoClassScores)  # rows (1 - s, s): made a chunk at a time, summing to 1
    p = proba if lazy else np.asarray(proba, dtype=np.float64)
    codes = np.asarray(true_codes)
    if p.ndim != 2 or p.shape[1] != k:
        raise InvalidInput(f"expected an (n, {k}) array of probabilities, got shape {p.shape}", field="y_proba")
    if codes.shape != (p.shape[0],):
        raise InvalidInput(f"has {codes.size} values but y_proba has {p.shape[0]} rows", field="y_true")
    if p.shape[0] == 0:
        raise InvalidInput("no instances to evaluate", field="y_proba")
    codes = codes.astype(np.intp, copy=False)
    if not lazy:
        check_rows(p)
    clip = check_clip(clip)
    bins = check_bins(bins)
    strategy = check_strategy(strategy)
    if positive is not None:
        calibration_class: int | None = labels.index(canonical_label(positive, labels))
    else:
        calibration_class = k - 1 if k == 2 else None
    summary = ProbabilitySummary.from_codes(codes, p, labels=labels, clip=clip, bins=bins,
                                            calibration_class=calibration_class)
    analysis = analyse_summary(summary, prior=prior, confidence=confidence)
    if strategy == "quantile":
        table = quantile_calibration_table(codes, p, labels=labels, calibration_class=calibration_class,
                                           bins=bins, confidence=confidence)
        analysis = replace(analysis, calibration=table)
    if k != 2:  # as a stream's parts give them: only the bins' sums are kept
        return analysis
    # the ECE's interval and the smooth ECE, of the instances the table bins (rows redrawn as cells)
    value, outcome = calibration_values(codes, p, calibration_class)
    table = analysis.calibration
    interval = ece_interval_of_rows(value, outcome, edges=table.edges, strategy=strategy, bin_of=bin_index,
                                    confidence=confidence, bootstrap=bootstrap)
    return replace(analysis, calibration=replace(table, ece_interval=interval),
                   smooth_ece=smooth_ece_of_rows(value, outcome) if smooth else None)


def probability_fold(summary: Any, *, clip: float | None = None, bins: int = 10) -> ProbabilityFold | None:
    """The fold of one walk that :func:`analyse_score_counts` reads for a summary of counts (None for
    weights, whose instances are regenerated): asked of the summary ahead
    (:func:`assay.metrics.ranking.want`), it shares the ranking metrics' walk."""
    if summary.positives.dtype.kind == "f":
        return None
    return ProbabilityFold(tuple(summary.labels), check_clip(clip), check_bins(bins))


def analyse_score_counts(
    summary: Any,
    *,
    prior: Any = None,
    clip: float | None = None,
    bins: int = 10,
    strategy: CalibrationStrategy = "uniform",
    confidence: float = 0.95,
    rows_at_a_time: int = 1 << 20,
    bootstrap: BootstrapSettings | None = BootstrapSettings(),
) -> ProbabilisticAnalysis:
    """The probabilistic analysis of two-class scores in [0, 1] from their per-distinct-score counts.
    The scores are the probabilities of the positive class (``summary.labels[1]``).
    Each instance's losses depend only on its score and its class, so each distinct
    score counts once, weighted by its instances (``ProbabilitySummary.from_score_counts``),
    a chunk of distinct scores at a time. The result equals :func:`analyse_probabilities`
    on the instances up to floating-point rounding (the sums are taken in another order).
    Weighted summaries regenerate their instances, ``rows_at_a_time`` at a time.

    With ``strategy="quantile"`` the reliability table is :func:`quantile_table_of_counts`. The mean and weak
    calibration and Spiegelhalter's test (:func:`assay.inference.calibration.calibration_hierarchy`) are walked
    from the same summary; so are the moderate calibration (:func:`two_class_calibration`: the lowess curve of
    rms::val.prob, its E-statistics and their band from ``bootstrap``) and the Brier decomposition; so are
    the ECE's percentile interval (instances redrawn from the distinct scores' counts,
    :func:`assay.inference.ece.ece_interval_of_summary`) and the smooth ECE of Błasiok & Nakkiran (2023), both
    for a summary in memory only (on disk or on Spark: null with the reason).
    """
    confidence = check_confidence(confidence)
    clip = check_clip(clip)
    bins = check_bins(bins)
    strategy = check_strategy(strategy)
    labels = tuple(summary.labels)  # (negative, positive): positive is class 1
    total: ProbabilitySummary | None = None
    fold = probability_fold(summary, clip=clip, bins=bins)
    if fold is None:  # weights: the instances are regenerated
        for scores, codes in _instances(summary, rows_at_a_time):
            part = ProbabilitySummary.from_codes(codes, TwoClassScores(scores, 1), labels=labels, clip=clip,
                                                 bins=bins, calibration_class=1)
            total = part if total is None else total.merge(part)
    else:  # counts: one pass over the distinct scores, each weighted by its instances
        total = walk_summary(summary, [fold])[0] if len(summary) else None
    if total is None or total.n == 0:
        raise InvalidInput("no instances to evaluate", field="y_score")
    analysis = analyse_summary(total, prior=prior, confidence=confidence)
    if strategy == "quantile":
        analysis = replace(analysis, calibration=quantile_table_of_counts(summary, bins=bins, confidence=confidence))
    table = analysis.calibration
    interval = ece_interval_of_summary(summary, edges=table.edges, strategy=strategy, bin_of=bin_index,
                                       confidence=confidence, bootstrap=bootstrap)
    analysis = replace(analysis, calibration=replace(table, ece_interval=interval))
    return replace(analysis, hierarchy=calibration_hierarchy(summary, confidence=confidence),
                   **two_class_calibration(summary, table, confidence=confidence, bootstrap=bootstrap))


def two_class_calibration(summary: Any, table: CalibrationTable, *, confidence: float = 0.95,
                          bootstrap: BootstrapSettings | None = BootstrapSettings()) -> dict[str, Any]:
    """The smooth ECE, the moderate calibration (:func:`assay.inference.calibration_curve.calibration_curve`)
    and the Brier decomposition of a two-class score summary's probabilities (the last over the bins of the
    calibration ``table``), as the fields ``smooth_ece``, ``moderate`` and ``brier_decomposition`` of a
    :class:`ProbabilisticAnalysis` (``replace(analysis, **these)``): the same on every path, from the summary."""
    return {"smooth_ece": smooth_ece_of_summary(summary),
            "moderate": calibration_curve(summary, confidence=confidence, bootstrap=bootstrap),
            "brier_decomposition": brier_decomposition(summary, table.edges, table.binning)}


def quantile_table_of_counts(summary: Any, *, bins: int = 10, confidence: float = 0.95) -> CalibrationTable:
    """:func:`quantile_calibration_table` of two-class scores given per distinct score (a ``ScoreCounts``,
    scores the probabilities of ``labels[1]``; in memory or on disk).

    The edges are ``np.percentile``'s linear interpolation between two order statistics, each found by
    a binary search on the cumulative counts (a few entries read); the distinct scores are then binned,
    each weighted by its instances, by a fold of one walk (:class:`~assay.metrics.probabilistic.CalibrationBinsFold`:
    a piece at a time on both cores, or on Spark's executors, where only each piece's sums reach the
    driver). Equal to the table of the instances.
    """
    tc = threshold_counts(summary)
    n = int(tc.n_positive + tc.n_negative)
    q = np.linspace(0.0, 1.0, bins + 1) * 100.0 / 100.0
    virtual = (n - 1) * q  # as numpy's linear method computes it, to the last bit
    below = np.floor(virtual)
    gamma = virtual - below
    below = np.minimum(below.astype(np.int64), n - 1)
    above = np.minimum(below + 1, n - 1)

    known = known_entries(tc.tp)

    def smallest(k: int) -> float:  # the k-th smallest score (0-based): the (n - 1 - k)-th largest
        j = n - 1 - k
        i = first_index(len(tc.tp), lambda i: float(tc.tp[i] + tc.fp[i]) > j, known)
        return float(tc.thresholds[i])

    a = np.array([smallest(int(k)) for k in below])
    b = np.array([smallest(int(k)) for k in above])
    release(tc.tp, tc.fp, tc.thresholds)
    difference = b - a
    edges = np.where(gamma >= 0.5, b - difference * (1.0 - gamma), a + difference * gamma)
    if len(summary):  # the bins: a fold of one walk (on Spark, on the executors)
        count, predicted, observed = walk_summary(summary, [CalibrationBinsFold(tuple(edges.tolist()))])[0]
    else:
        count, predicted, observed = np.zeros(bins), np.zeros(bins), np.zeros(bins)
    return _table(_target_text(tuple(summary.labels), 1), "quantile", edges, count.astype(np.int64), predicted,
                  observed.astype(np.int64), confidence)


def _instances(summary: Any, step: int) -> Any:
    """(scores, class codes) of the instances a score summary counts, at most ``step`` at a time.
    The summary is read ``CHUNK`` distinct scores at a time (a summary spilled to disk is never
    read whole), and a score shared by more than ``step`` instances comes in several pieces.
    """
    for column, code in ((summary.positives, 1), (summary.negatives, 0)):
        scores_out: list[np.ndarray] = []
        held = 0
        for first in range(0, len(summary.scores), CHUNK):
            counts = np.asarray(column[first:first + CHUNK], dtype=np.int64)
            scores = np.asarray(summary.scores[first:first + CHUNK], dtype=np.float64)
            release(column, summary.scores)
            keep = counts > 0
            counts, scores = counts[keep], scores[keep]
            while len(counts):
                # the whole groups that fit in what is left of this step, else a piece of the next group
                ends = np.cumsum(counts)
                whole = int(np.searchsorted(ends, step - held, side="right"))
                if whole:
                    scores_out.append(np.repeat(scores[:whole], counts[:whole]))
                    held += int(ends[whole - 1])
                    counts, scores = counts[whole:], scores[whole:]
                if len(counts) and held < step:
                    piece = step - held
                    scores_out.append(np.full(piece, scores[0]))
                    held += piece
                    counts = counts.copy()
                    counts[0] -= piece
                if held >= step:
                    out = np.concatenate(scores_out)
                    yield out, np.full(len(out), code, dtype=np.intp)
                    scores_out, held = [], 0
        if held:
            out = np.concatenate(scores_out)
            yield out, np.full(len(out), code, dtype=np.intp)
