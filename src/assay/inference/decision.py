"""Decision curves with bootstrap intervals (Vickers & Elkin 2006; Vickers, Cronin, Elkin & Gonen 2008).

:func:`decision_curve` takes the instances of each class between consecutive threshold probabilities (the
counts :class:`assay.metrics.decision.DecisionBinsFold` walks from a score summary) and gives, at every
threshold probability ``pt``: the model's net benefit, that of treating everyone and of treating no one (0),
the net interventions avoided per 100 instances, the standardized net benefit (net benefit / prevalence,
Kerr et al. 2016), and the model's advantage over the better of the two defaults, ``NB - max(NB_all, 0)``.

Intervals are percentile bootstrap intervals. Resampling the instances is resampling these counts: a
multinomial draw over the bins (of both classes together in a cohort, so the prevalence varies as it would; of
each class on its own when the prevalence is given for a case-control sample, as ``rmda`` resamples cases and
controls apart). The draws have exactly the distribution of a bootstrap of the rows, at a cost that does not grow
with the instances. Every statistic of one resample is computed from the same draw, so the advantage's interval
is paired.

>>> import numpy as np
>>> pos, neg = np.array([5.0, 10.0, 35.0]), np.array([30.0, 15.0, 5.0])
>>> c = decision_curve(pos, neg, np.array([0.2, 0.5]), confidence=0.95, resamples=200, seed=1)
>>> [round(float(v), 4) for v in c.model]
[0.4, 0.3]
>>> [round(float(v), 4) for v in c.treat_all]
[0.375, 0.0]
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from assay.inference.bootstrap import MIN_DEFINED
from assay.inference.estimate import finite_or_none
from assay.metrics.decision import (
    joint_bins,
    net_benefit,
    odds,
    treat_all,
    treated_counts,
)

__all__ = ["MAX_RESAMPLED_THRESHOLDS", "DecisionCurve", "DecisionDifference", "decision_curve", "decision_difference",
           "decision_difference_of_counts", "shown_rows"]

MAX_RESAMPLED_THRESHOLDS = 200_000_000
"""Resamples x threshold probabilities at most for the bootstrap's intervals (about 1.6 GB a statistic
beyond): more gives the curve without intervals, and says so."""

PER_100 = 100.0

USUAL = (0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9)
"""The threshold probabilities a compact table shows when the curve has them."""


def shown_rows(thresholds: np.ndarray, count: int = 7) -> list[int]:
    """The indices of a few threshold probabilities for a compact table: the usual ones (0.05, 0.1, 0.2, 0.3,
    0.5, 0.7, 0.9) where the grid has at least four of them, else about ``count`` spread over the curve."""
    m = len(thresholds)
    if m <= count:
        return list(range(m))
    usual = [int(i) for t in USUAL for i in np.flatnonzero(np.abs(np.asarray(thresholds) - t) < 1e-9)[:1]]
    if len(usual) >= 4:
        return usual
    return sorted(set(np.round(np.linspace(0, m - 1, count)).astype(int).tolist()))


def _ranges(thresholds: np.ndarray, mask: np.ndarray) -> list[tuple[float, float]]:
    """The runs of consecutive thresholds where ``mask`` holds, as (first, last)."""
    out: list[tuple[float, float]] = []
    start = None
    for i, on in enumerate(mask):
        if on and start is None:
            start = i
        if not on and start is not None:
            out.append((float(thresholds[start]), float(thresholds[i - 1])))
            start = None
    if start is not None:
        out.append((float(thresholds[start]), float(thresholds[-1])))
    return out


def _spans(ranges: list[tuple[float, float]]) -> str:
    return ", ".join(f"{a:.2g}" if a == b else f"{a:.2g} to {b:.2g}" for a, b in ranges)


@dataclass(frozen=True)
class DecisionCurve:
    """The decision curve of two-class probabilities at threshold probabilities ``thresholds``.

    Arrays are of the thresholds' length; ``*_low``/``*_high`` the percentile bootstrap interval at each (NaN
    where the statistic is undefined in more than 1% of resamples; None with ``interval_note`` when there is no
    bootstrap). ``prevalence`` is the data's, or the one given (``prevalence_given``); ``at_costs`` the curve at
    the one threshold probability that ``costs`` imply, when costs were given (a cost ratio is a threshold
    probability: false positives costing ``fp`` and false negatives ``fn`` make ``pt = fp / (fp + fn)``).
    """

    thresholds: np.ndarray
    model: np.ndarray
    treat_all: np.ndarray
    avoided: np.ndarray
    standardized: np.ndarray
    advantage: np.ndarray
    intervals: dict[str, tuple[np.ndarray, np.ndarray]] | None
    prevalence: float
    prevalence_given: bool
    n_positive: float
    n_negative: float
    confidence: float
    resamples: int
    seed: int
    interval_note: str | None = None
    at_costs: DecisionCurve | None = None
    costs: dict[str, float] | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def method(self) -> str:
        how = "of each class apart (case-control: the prevalence given)" if self.prevalence_given else \
            "of the instances"
        return f"percentile bootstrap, {self.resamples:,} resamples {how}"

    def interval(self, name: str) -> tuple[np.ndarray, np.ndarray] | None:
        """The (low, high) arrays of ``name`` (model, avoided, standardized, advantage), or None."""
        return None if self.intervals is None else self.intervals[name]

    def beats_both(self) -> list[tuple[float, float]]:
        """The ranges of threshold probabilities where the model's net benefit is above both treating everyone
        and treating no one (point estimates)."""
        return _ranges(self.thresholds, self.advantage > 0)

    def significantly_better(self) -> list[tuple[float, float]] | None:
        """The ranges where the advantage's interval is above 0 (None without intervals)."""
        band = self.interval("advantage")
        if band is None:
            return None
        return _ranges(self.thresholds, np.nan_to_num(band[0], nan=-np.inf) > 0)

    def verdict(self) -> str:
        """The sentence under the numbers: where using the model does more good than either default."""
        beats = self.beats_both()
        if not beats:
            return ("At no threshold probability shown does the model's net benefit exceed both treating everyone "
                    "and treating no one.")
        text = (f"The model's net benefit exceeds both treating everyone and treating no one at threshold "
                f"probabilities {_spans(beats)}")
        sure = self.significantly_better()
        if sure is None:
            return text + "."
        if not sure:
            return text + f"; at {self.confidence:.0%}, nowhere significantly."
        return text + f"; at {self.confidence:.0%}, significantly at {_spans(sure)}."

    def rows(self, count: int = 7) -> list[int]:
        """The indices of a few thresholds for a compact table (:func:`shown_rows`)."""
        return shown_rows(self.thresholds, count)

    def point(self, i: int) -> dict[str, Any]:
        """The curve at its ``i``-th threshold probability, each statistic with its interval."""
        def one(name: str, a: np.ndarray) -> dict[str, Any]:
            band = self.interval(name)
            return {"value": finite_or_none(float(a[i])),
                    "low": None if band is None else finite_or_none(float(band[0][i])),
                    "high": None if band is None else finite_or_none(float(band[1][i]))}

        return {"threshold": float(self.thresholds[i]), "model": one("model", self.model),
                "treat_all": finite_or_none(float(self.treat_all[i])),
                "interventions_avoided_per_100": one("avoided", self.avoided),
                "standardized": one("standardized", self.standardized), "advantage": one("advantage", self.advantage)}

    def to_dict(self) -> dict[str, Any]:
        """JSON ``net_benefit``: the whole curve, full precision, null where undefined."""
        def values(a: np.ndarray) -> list[float | None]:
            return [finite_or_none(float(v)) for v in a]

        def with_interval(name: str, a: np.ndarray) -> dict[str, Any]:
            band = self.interval(name)
            return {"value": values(a), "low": None if band is None else values(band[0]),
                    "high": None if band is None else values(band[1])}

        return {
            "thresholds": values(self.thresholds),
            "model": with_interval("model", self.model),
            "treat_all": values(self.treat_all),
            "treat_none": [0.0] * len(self.thresholds),
            "interventions_avoided_per_100": with_interval("avoided", self.avoided),
            "standardized": with_interval("standardized", self.standardized),
            "advantage": with_interval("advantage", self.advantage),
            "beats_both": [list(r) for r in self.beats_both()],
            "significantly_better": None if self.intervals is None else [list(r) for r in
                                                                         self.significantly_better() or []],
            "prevalence": finite_or_none(self.prevalence),
            "prevalence_source": "given" if self.prevalence_given else "data",
            "n_positive": finite_or_none(self.n_positive),
            "n_negative": finite_or_none(self.n_negative),
            "confidence": self.confidence,
            "method": self.method if self.intervals is not None else None,
            "resamples": self.resamples if self.intervals is not None else 0,
            "seed": self.seed,
            "interval_note": self.interval_note,
            "treated_when": "probability >= threshold",
            "at_costs": None if self.at_costs is None else {**self.at_costs.point(0), "costs": self.costs},
            "notes": list(self.notes),
        }


def _statistics(pos: np.ndarray, neg: np.ndarray, pt: np.ndarray, prevalence: float | None) -> dict[str, np.ndarray]:
    """Every statistic of the curve from counts per bin (leading axes: resamples)."""
    n_pos = pos.sum(axis=-1, keepdims=True)
    n_neg = neg.sum(axis=-1, keepdims=True)
    model = net_benefit(treated_counts(pos), treated_counts(neg), n_pos, n_neg, pt, prevalence=prevalence)
    with np.errstate(divide="ignore", invalid="ignore"):
        pi = n_pos / (n_pos + n_neg) if prevalence is None else np.full_like(n_pos, prevalence)
        everyone = treat_all(pi, pt)
        avoided = (model - everyone) / odds(pt) * PER_100
        standardized = model / pi
    return {"model": model, "treat_all": everyone, "avoided": avoided, "standardized": standardized,
            "advantage": model - np.maximum(everyone, 0.0)}


def decision_curve(positives: np.ndarray, negatives: np.ndarray, thresholds: np.ndarray, *,
                   prevalence: float | None = None, confidence: float = 0.95, resamples: int = 2000,
                   seed: int = 0) -> DecisionCurve:
    """The decision curve from the instances of each class per bin (``len(thresholds) + 1`` bins, as
    :class:`~assay.metrics.decision.DecisionBinsFold` counts them), with percentile bootstrap intervals.

    ``prevalence``: the population's share of positives for a case-control sample (the net benefit then
    weighs the rates by it, and the bootstrap resamples each class apart); default the data's.
    Whole counts are resampled; weighted counts give the curve without intervals.
    """
    pos = np.asarray(positives, dtype=np.float64)
    neg = np.asarray(negatives, dtype=np.float64)
    pt = np.asarray(thresholds, dtype=np.float64)
    n_pos, n_neg = float(pos.sum()), float(neg.sum())
    point = _statistics(pos, neg, pt, prevalence)
    notes: list[str] = []
    intervals: dict[str, tuple[np.ndarray, np.ndarray]] | None = None
    interval_note = _why_no_interval(np.concatenate([pos, neg]), resamples, len(pt))
    if interval_note is None:
        intervals = _bootstrap(pos, neg, pt, prevalence, confidence, resamples, seed)
    return DecisionCurve(
        thresholds=pt, model=point["model"], treat_all=point["treat_all"], avoided=point["avoided"],
        standardized=point["standardized"], advantage=point["advantage"], intervals=intervals,
        prevalence=float(prevalence) if prevalence is not None else n_pos / (n_pos + n_neg),
        prevalence_given=prevalence is not None, n_positive=n_pos, n_negative=n_neg,
        confidence=float(confidence), resamples=int(resamples), seed=int(seed), interval_note=interval_note,
        notes=tuple(notes))


def _why_no_interval(counts: np.ndarray, resamples: int, thresholds: int) -> str | None:
    """Why the counts get no bootstrap interval (None: they do)."""
    if resamples == 0:
        return "no interval: no bootstrap resamples were asked for"
    if not bool(np.all(counts == np.floor(counts))):
        return "no interval: weighted instances (not whole counts) cannot be resampled"
    if resamples * thresholds > MAX_RESAMPLED_THRESHOLDS:
        return (f"no interval: {resamples:,} resamples at {thresholds:,} thresholds exceed "
                f"{MAX_RESAMPLED_THRESHOLDS:,}; fewer thresholds or resamples make it possible")
    return None


def _bootstrap(pos: np.ndarray, neg: np.ndarray, pt: np.ndarray, prevalence: float | None, confidence: float,
               resamples: int, seed: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    names = ("model", "avoided", "standardized", "advantage")
    replicates: dict[str, list[np.ndarray]] = {name: [] for name in names}
    bins = len(pos)
    # a cohort: every instance resampled, so the prevalence varies; a case-control sample: each class apart
    for draw in _draws(np.concatenate([pos, neg]), prevalence is not None, resamples, seed):
        stats = _statistics(draw[:, :bins], draw[:, bins:], pt, prevalence)
        for name in names:
            replicates[name].append(stats[name])
    # one band of the four statistics side by side (each threshold's column on its own, as apart)
    low, high = _band(np.concatenate([np.concatenate(replicates[name]) for name in names], axis=1), confidence)
    m = len(pt)
    return {name: (low[k * m:(k + 1) * m], high[k * m:(k + 1) * m]) for k, name in enumerate(names)}


def _draws(counts: np.ndarray, stratified: bool, resamples: int, seed: int) -> Iterator[np.ndarray]:
    """Bootstrap resamples of the instances that ``counts`` holds (a multinomial draw of their number over the
    cells holding some: a row bootstrap's distribution), a block of (resamples, cells) at a time; with
    ``stratified``, each half of the cells (a class) drawn apart, keeping its size."""
    rng = np.random.default_rng(seed)
    held = np.flatnonzero(counts)
    half = len(counts) // 2
    groups = [held[held < half], held[held >= half]] if stratified else [held]
    per_chunk = max(1, min(resamples, 8_000_000 // max(len(counts), 1)))
    done = 0
    while done < resamples:
        size = min(per_chunk, resamples - done)
        draw = np.zeros((size, len(counts)))
        for group in groups:
            if len(group):
                total = counts[group].sum()
                draw[:, group] = rng.multinomial(int(total), counts[group] / total, size=size)
        yield draw
        done += size


def _band(replicates: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """The percentile interval at each threshold of replicates (resamples x thresholds): NaN where the statistic
    is undefined in more than 1% of the resamples."""
    finite = np.isfinite(replicates)
    defined = finite.mean(axis=0) >= MIN_DEFINED
    alpha = 1.0 - confidence
    if not finite.any():
        return np.full(replicates.shape[1], np.nan), np.full(replicates.shape[1], np.nan)
    levels = [alpha / 2.0, 1.0 - alpha / 2.0]
    whole = finite.all(axis=0)
    if whole.all():  # every column at once (sorted first: faster), the numbers nanquantile gives column by column
        low, high = np.quantile(np.sort(replicates.T, axis=1), levels, axis=1)
    else:
        low, high = np.empty((2, replicates.shape[1]))
        low[whole], high[whole] = np.quantile(np.sort(replicates[:, whole].T, axis=1), levels, axis=1)
        with np.errstate(invalid="ignore"), warnings.catch_warnings():  # a column never defined: NaN, said below
            warnings.simplefilter("ignore", RuntimeWarning)
            low[~whole], high[~whole] = np.nanquantile(np.where(finite[:, ~whole], replicates[:, ~whole], np.nan),
                                                       levels, axis=0)
    return np.where(defined, low, np.nan), np.where(defined, high, np.nan)


@dataclass(frozen=True)
class DecisionDifference:
    """Two models' net benefit on the same instances, and its difference ``a - b`` with a paired percentile
    bootstrap interval at each threshold probability (NaN where undefined; None without a bootstrap)."""

    names: tuple[str, str]
    thresholds: np.ndarray
    a: np.ndarray
    b: np.ndarray
    difference: np.ndarray
    interval: tuple[np.ndarray, np.ndarray] | None
    confidence: float
    resamples: int
    prevalence_given: bool
    interval_note: str | None = None

    @property
    def method(self) -> str:
        how = "of each class apart (case-control)" if self.prevalence_given else "of the instances"
        return f"paired percentile bootstrap, {self.resamples:,} resamples {how}"

    def rows(self, count: int = 7) -> list[int]:
        """The indices of a few thresholds for a compact table (:func:`shown_rows`)."""
        return shown_rows(self.thresholds, count)

    def significant(self) -> tuple[list[tuple[float, float]], list[tuple[float, float]]] | None:
        """The ranges of threshold probabilities where a's net benefit is significantly above b's, and below."""
        if self.interval is None:
            return None
        low = np.nan_to_num(self.interval[0], nan=-np.inf)
        high = np.nan_to_num(self.interval[1], nan=np.inf)
        return _ranges(self.thresholds, low > 0), _ranges(self.thresholds, high < 0)

    def verdict(self) -> str:
        """The sentence under the numbers."""
        a, b = self.names
        found = self.significant()
        if found is None:
            return f"The difference in net benefit between {a} and {b} has no interval: {self.interval_note}."
        above, below = found
        level = f"{self.confidence:.0%}"
        if not above and not below:
            return (f"At {level}, the net benefits of {a} and {b} do not differ significantly at any threshold "
                    "probability shown.")
        parts = []
        if above:
            parts.append(f"{a}'s net benefit is significantly higher than {b}'s at threshold probabilities "
                         f"{_spans(above)}")
        if below:
            parts.append(f"{a}'s net benefit is significantly lower than {b}'s at threshold probabilities "
                         f"{_spans(below)}")
        return f"At {level}, " + "; ".join(parts) + "."

    def to_dict(self) -> dict[str, Any]:
        def values(a: np.ndarray) -> list[float | None]:
            return [finite_or_none(float(v)) for v in a]

        found = self.significant()
        return {
            "models": list(self.names),
            "thresholds": values(self.thresholds),
            "net_benefit": {self.names[0]: values(self.a), self.names[1]: values(self.b)},
            "difference": {"value": values(self.difference),
                           "low": None if self.interval is None else values(self.interval[0]),
                           "high": None if self.interval is None else values(self.interval[1])},
            "significantly_higher": None if found is None else [list(r) for r in found[0]],
            "significantly_lower": None if found is None else [list(r) for r in found[1]],
            "confidence": self.confidence,
            "method": self.method if self.interval is not None else None,
            "interval_note": self.interval_note,
        }


def decision_difference(truth: np.ndarray, score_a: np.ndarray, score_b: np.ndarray, thresholds: np.ndarray, *,
                        names: tuple[str, str] = ("A", "B"), prevalence: float | None = None,
                        confidence: float = 0.95, resamples: int = 2000, seed: int = 0,
                        weights: np.ndarray | None = None) -> DecisionDifference:
    """Two models' decision curves on the same instances (``truth`` 1 for the positive class), and the paired
    bootstrap of their difference (:func:`decision_difference_of_counts` of their :func:`joint_bins`).

    >>> y = np.array([1, 1, 0, 0, 1, 0])
    >>> d = decision_difference(y, np.array([.9, .8, .2, .3, .7, .6]), np.array([.5, .4, .6, .2, .9, .1]),
    ...                         np.array([0.5]), resamples=200)
    >>> round(float(d.difference[0]), 4)
    0.1667
    """
    joint = joint_bins(truth, score_a, score_b, thresholds, weights)
    return decision_difference_of_counts(joint, thresholds, names=names, prevalence=prevalence,
                                         confidence=confidence, resamples=resamples, seed=seed)


def decision_difference_of_counts(joint: np.ndarray, thresholds: np.ndarray, *, names: tuple[str, str] = ("A", "B"),
                                  prevalence: float | None = None, confidence: float = 0.95, resamples: int = 2000,
                                  seed: int = 0) -> DecisionDifference:
    """The paired decision curves from the instances counted by (class, bin of a, bin of b)
    (:func:`~assay.metrics.decision.joint_bins`, added over batches or partitions), and the paired percentile
    bootstrap of their difference: each resample draws those joint counts (a multinomial over the cells that
    hold instances; of each class apart with a given ``prevalence``), so both curves of a resample come from the
    same instances, as a bootstrap of the rows would give them."""
    pt = np.asarray(thresholds, dtype=np.float64)
    bins = len(pt) + 1
    joint = np.asarray(joint, dtype=np.float64)

    def curves(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        c = counts.reshape(*counts.shape[:-1], 2, bins, bins)
        neg_a, pos_a = c[..., 0, :, :].sum(axis=-1), c[..., 1, :, :].sum(axis=-1)
        neg_b, pos_b = c[..., 0, :, :].sum(axis=-2), c[..., 1, :, :].sum(axis=-2)
        n_pos = pos_a.sum(axis=-1, keepdims=True)
        n_neg = neg_a.sum(axis=-1, keepdims=True)
        one = net_benefit(treated_counts(pos_a), treated_counts(neg_a), n_pos, n_neg, pt, prevalence=prevalence)
        two = net_benefit(treated_counts(pos_b), treated_counts(neg_b), n_pos, n_neg, pt, prevalence=prevalence)
        return one, two

    a, b = curves(joint)
    interval = None
    note = _why_no_interval(joint, resamples, len(pt))
    if note is None:  # both curves of a resample from the same instances (of each class apart: prevalence given)
        replicates = [np.subtract(*curves(draw)) for draw in _draws(joint, prevalence is not None, resamples, seed)]
        interval = _band(np.concatenate(replicates), confidence)
    return DecisionDifference(names=tuple(names), thresholds=pt, a=a, b=b, difference=a - b, interval=interval,
                              confidence=float(confidence), resamples=int(resamples),
                              prevalence_given=prevalence is not None, interval_note=note)
