"""Everything the scores of a two-class classifier tell, from one ``ScoreCounts``.

AUC with DeLong's interval (or a bootstrap), average precision and the area
under the PR curve with Boyd's logit interval, partial AUC, the ROC convex hull,
the best thresholds (Youden, closest to the ideal corner, least expected cost),
the operating condition's iso-performance slope and its optimal point, the
reference classifiers of seed 000, and lift at a depth. The curves themselves
(ROC, PR, lift, the threshold table) are methods, for plotting and export.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np

from assay.checks import check_integer, check_number, check_range
from assay.errors import InvalidInput
from assay.evaluation.display import Displayable
from assay.inference.bootstrap import BootstrapSettings
from assay.inference.estimate import ConfidenceInterval, Estimate, finite_or_none
from assay.inference.proportion import proportion_bounds
from assay.inference.roc import bootstrap_auc_ci, delong, logit_interval
from assay.metrics.confusion import BINARY_METRICS, Cells
from assay.metrics.ranking import (
    ThresholdCounts,
    _first_index,
    best_point,
    counts_at,
    gains_at,
    lift_points,
    pr_areas,
    pr_points,
    roc_point,
    roc_points,
    threshold_counts,
)
from assay.metrics.roc_space import (
    REFERENCE_CLASSIFIERS,
    expected_cost,
    inverted,
    iso_performance_slope,
    optimal_point,
    roc_hull,
    upper_hull,
)
from assay.summaries.scores import ScoreCounts
from assay.summaries.spill import CHUNK, gather, release

PICTURE_POINTS = 20_000
"""Distinct thresholds kept for the pictures of a summary spilled to disk (a few pixels' worth each)."""



__all__ = [
    "AUCInterval",
    "CombinedHull",
    "Costs",
    "HullVertex",
    "RankingAnalysis",
    "ThresholdChoice",
    "analyse_scores",
    "combined_hull",
    "cost_at",
    "CURVE_OPTIONS",
    "check_curve_options",
]

AUCInterval = Literal["delong", "bootstrap"]


@dataclass(frozen=True)
class Costs:
    """Costs of the four outcomes (by default a false positive and a false negative cost 1)."""

    fp: float = 1.0
    fn: float = 1.0
    tp: float = 0.0
    tn: float = 0.0

    def to_dict(self) -> dict[str, float]:
        return {"fp": self.fp, "fn": self.fn, "tp": self.tp, "tn": self.tn}

    @property
    def is_default(self) -> bool:
        return self == Costs()


def cost_at(costs: Costs, prevalence: float, fpr: Any, tpr: Any) -> np.ndarray:
    """The expected cost per instance at ROC points (``expected_cost`` of :mod:`assay.metrics.roc_space`) in a
    scale that cannot overflow: the costs divided by the power of two at or above the largest of them (exact),
    the result multiplied back. Bit for bit the plain formula where that does not overflow; finite for any
    finite costs (a mean of costs is no larger than the largest)."""
    e = _cost_exponent(costs)
    scaled = np.ldexp(expected_cost(fpr, tpr, prevalence=prevalence, cost_fp=math.ldexp(costs.fp, -e),
                                    cost_fn=math.ldexp(costs.fn, -e), cost_tp=math.ldexp(costs.tp, -e),
                                    cost_tn=math.ldexp(costs.tn, -e)), e)
    return np.asarray(scaled, dtype=np.float64)


def _cost_exponent(costs: Costs) -> int:
    largest = max(abs(costs.fp), abs(costs.fn), abs(costs.tp), abs(costs.tn))
    return math.frexp(largest)[1] if largest > 0 else 0


@dataclass(frozen=True)
class ThresholdChoice:
    """A threshold chosen by a criterion, and where it puts the classifier."""

    criterion: str
    threshold: float
    fpr: float
    tpr: float
    value: float
    ties: int = 1

    def to_dict(self) -> dict[str, Any]:
        return {"threshold": finite_or_none(self.threshold), "fpr": self.fpr, "tpr": self.tpr,
                "value": finite_or_none(self.value), "ties": self.ties, "criterion": self.criterion}


@dataclass(frozen=True)
class OperatingPoint:
    """The sensitivity at a given specificity (or the specificity at a given sensitivity), read off the
    ROC curve with linear interpolation between its points, as pROC's ``coords``; its interval is a
    stratified bootstrap, as pROC's ``ci.se`` (``ci.sp``). ``threshold`` is the score at which the
    classifier reaches the target on the curve itself (the lowest threshold whose specificity is at
    least the target; the highest whose sensitivity is), and ``at_threshold`` its rates there."""

    given: str  # "specificity" or "sensitivity"
    target: float
    value: Estimate  # the other rate
    threshold: float
    at_threshold: dict[str, float]
    exact: bool

    @property
    def reads(self) -> str:
        return "sensitivity" if self.given == "specificity" else "specificity"

    def to_dict(self) -> dict[str, Any]:
        return {"given": self.given, self.given: self.target, self.reads: self.value.to_dict(),
                "threshold": finite_or_none(self.threshold), "at_threshold": dict(self.at_threshold),
                "interpolated": not self.exact,
                "method": "read off the ROC curve, linear interpolation between its points (as pROC's coords); "
                          "stratified bootstrap percentile interval (as pROC's ci.se and ci.sp)"}


CONSTRAINED_RATES = {"precision": "recall", "ppv": "recall", "fpr": "recall", "specificity": "recall",
                     "recall": "specificity", "sensitivity": "specificity", "tpr": "specificity",
                     "npv": "specificity"}
"""The rates a constraint may bound, and the rate then maximised: a bound on precision or on the false
positives maximises recall; a bound on recall maximises specificity."""


@dataclass(frozen=True)
class ConstrainedThreshold:
    """The best threshold under a constraint ("precision>=0.8": the largest recall among the thresholds whose
    precision is at least 0.8), its rates with their intervals (Wilson, at that threshold; chosen on the same
    data, so optimistic)."""

    constraint: str
    maximized: str
    threshold: float
    rates: dict[str, Estimate]

    def to_dict(self) -> dict[str, Any]:
        return {"constraint": self.constraint, "maximized": self.maximized, "threshold": finite_or_none(self.threshold),
                "rates": {k: e.to_dict() for k, e in self.rates.items()},
                "note": "chosen on these same data: the rates at it are optimistic"}


@dataclass(frozen=True)
class RankingAnalysis(Displayable):
    """The ranking part of an evaluation (JSON ``ranking``)."""

    summary: ScoreCounts
    confidence: float
    roc_auc: Estimate
    gini: Estimate
    average_precision: Estimate
    pr_auc: Estimate
    partial_auc: dict[str, Any] | None
    hull_index: np.ndarray
    best: dict[str, ThresholdChoice]
    costs: Costs
    deployment_prevalence: float
    prevalence_source: str
    slope: float
    optimal: ThresholdChoice
    operating_point: ThresholdChoice | None
    lift_depth: float
    lift: Estimate
    notes: tuple[str, ...] = field(default_factory=tuple)
    approximation: dict[str, Any] | None = None  # with roc_bins: the binning and the AUC's error bound
    drawn_from: int | None = None  # a copy for pictures (drawable): the distinct scores of the whole summary
    operating_points: tuple[OperatingPoint, ...] = ()
    band: dict[str, Any] | None = None  # the ROC confidence band, when asked for (roc_band)
    partial_auc_sensitivity: dict[str, Any] | None = None  # over a range of sensitivities
    pr_at_prevalence: dict[str, Any] | None = None  # the PR summaries at the deployment prevalence, when given
    constrained: tuple[ConstrainedThreshold, ...] = ()
    direction: str = "higher"  # "lower": the summary holds the negated scores; thresholds are shown as given

    def shown(self, thresholds: Any) -> Any:
        """Thresholds of the summary in the scores' own units (negated back where lower scores mean the
        positive class: predicted positive iff score <= the threshold shown)."""
        return -thresholds if self.direction == "lower" else thresholds

    def roc_band(self, specificities: Any = None, *, confidence: float | None = None, resamples: int = 2000,
                 seed: int = 0) -> dict[str, Any]:
        """A confidence band of the ROC curve: at each specificity of a grid (default 0, 0.02, ..., 1), the
        sensitivity read off the curve and its stratified bootstrap interval, as pROC's ``ci.se`` over
        ``specificities``. Returns ``specificity``, ``sensitivity``, ``low``, ``high`` (lists), the
        confidence and the method; ``fpr`` is 1 - specificity, to draw it on the curve."""
        from assay.checks import check_confidence, check_resamples, check_seed
        from assay.inference.roc import bootstrap_operating_points
        from assay.metrics.ranking import operating_points

        if np.asarray(self.summary.positives).dtype.kind == "f":
            raise InvalidInput("a confidence band needs counts: the sample weights are not whole numbers",
                               field="sample_weight")
        level = self.confidence if confidence is None else check_confidence(confidence)
        grid = np.linspace(0.0, 1.0, 51) if specificities is None else _targets(specificities, "specificities")
        tc = self.counts
        tp = np.concatenate(([0], np.asarray(tc.tp)))
        fp = np.concatenate(([0], np.asarray(tc.fp)))
        values = operating_points(tp, fp, tc.n_positive, tc.n_negative, grid, given="specificity")[0][0]
        settings = BootstrapSettings(check_resamples(resamples), check_seed(seed))
        intervals = bootstrap_operating_points(self.summary, grid, given="specificity", confidence=level,
                                               settings=settings)
        return {"specificity": grid.tolist(), "fpr": (1.0 - grid).tolist(), "sensitivity": values.tolist(),
                "low": [ci.low for ci in intervals], "high": [ci.high for ci in intervals], "confidence": level,
                "resamples": settings.resamples, "seed": settings.seed,
                "method": "stratified bootstrap percentile interval of the sensitivity at each specificity "
                          "(as pROC's ci.se)"}

    # curves -----------------------------------------------------------------

    @property
    def counts(self) -> ThresholdCounts:
        return threshold_counts(self.summary)

    @property
    def distinct(self) -> int:
        """The number of distinct scores (of the whole summary, for a copy made for pictures)."""
        return self.drawn_from if self.drawn_from is not None else len(self.summary)

    def drawable(self, points: int = PICTURE_POINTS) -> RankingAnalysis:
        """This analysis, or for a summary spilled to disk a copy for pictures whose summary keeps about
        ``points`` of the distinct thresholds, and every vertex of the ROC hull and every threshold chosen,
        each with its exact cumulative counts: the curves drawn through them pass exactly through the
        exact curves' points, and the hull and the chosen points are the exact ones. Every number of the
        analysis is kept as it is."""
        if not self.summary.on_disk or len(self.summary) <= points:
            return self
        tc = self.counts
        m = len(tc.thresholds)
        keep = [np.linspace(0, m - 1, points).round().astype(np.int64), np.asarray(self.hull_index, np.int64) - 1]
        chosen = [c.threshold for c in self.best.values()] + [self.optimal.threshold] + \
            ([self.operating_point.threshold] if self.operating_point is not None else [])
        # a chosen threshold's entry: the last of the distinct scores at or above it (a binary search on disk)
        keep.append(np.array([_first_index(m, lambda j, t=t: not tc.thresholds[j] >= t) - 1
                              for t in chosen if math.isfinite(t)], dtype=np.int64))
        ends = np.unique(np.concatenate(keep))
        ends = ends[ends >= 0]
        tp, fp = gather(tc.tp, ends), gather(tc.fp, ends)
        thin = ScoreCounts(gather(tc.thresholds, ends), np.diff(tp, prepend=0), np.diff(fp, prepend=0),
                           self.summary.labels)
        return replace(self, summary=thin, hull_index=roc_hull(thin.positives, thin.negatives),
                       drawn_from=len(self.summary))

    @property
    def prevalence(self) -> float:
        tc = self.counts
        return float(tc.n_positive / (tc.n_positive + tc.n_negative))

    def roc(self) -> dict[str, np.ndarray]:
        """The exact ROC curve: one point per distinct threshold, from (0, 0)."""
        fpr, tpr, thresholds = roc_points(self.counts)
        return {"threshold": self.shown(thresholds), "fpr": fpr, "tpr": tpr}

    def hull(self) -> dict[str, np.ndarray]:
        """The vertices of the ROC convex hull (read at their indices: no whole curve is made)."""
        tc, idx = self.counts, self.hull_index
        after, at_origin = np.maximum(idx - 1, 0), idx == 0
        return {"threshold": self.shown(np.where(at_origin, np.inf, gather(tc.thresholds, after))),
                "fpr": np.where(at_origin, 0.0, gather(tc.fp, after) / tc.n_negative),
                "tpr": np.where(at_origin, 0.0, gather(tc.tp, after) / tc.n_positive)}

    @property
    def given_prevalence(self) -> float | None:
        """The deployment prevalence given to the analysis (where the classifier will be used), or None when
        it is the test data's: what a picture of the PR curve is drawn at."""
        return self.deployment_prevalence if self.prevalence_source == "given" else None

    def pr(self, prevalence: float | None = None) -> dict[str, np.ndarray]:
        """Precision and recall at each distinct threshold, highest threshold first; at a ``prevalence``,
        the precision the same rates give there (ROC curves do not move with the class balance; PR
        curves do: Fawcett 2006)."""
        precision, recall, thresholds = pr_points(self.counts, _curve_prevalence(prevalence))
        return {"threshold": self.shown(thresholds), "recall": recall, "precision": precision}

    def lift_curve(self, prevalence: float | None = None) -> dict[str, np.ndarray]:
        """Depth, cumulative gains and lift at each distinct threshold (Witten & Frank ch. 5); at a ``prevalence`` pi,
        those of a population with that share of positives: the depth pi TPR + (1 - pi) FPR (the share
        flagged moves with the class balance), the gains TPR (they do not), the lift gains / depth.
        Equal to the data re-weighted to that prevalence."""
        depth, gains, lift = lift_points(self.counts, _curve_prevalence(prevalence))
        return {"threshold": self.shown(self.counts.thresholds), "depth": depth, "gains": gains, "lift": lift}

    def threshold_table(self, thresholds: np.ndarray | None = None, *,
                        prevalence: float | None = None) -> dict[str, np.ndarray]:
        """Counts and rates at given thresholds (default: every distinct score), as Fawcett (2006) tabulates them; the
        expected cost at the deployment prevalence. At a ``prevalence`` pi, every column that moves with the
        class balance (precision, NPV, accuracy, F1, MCC, the share predicted positive, the expected cost) is
        at pi, from each threshold's TPR and FPR; the counts stay the data's."""
        tc = self.counts
        t = tc.thresholds if thresholds is None else self.shown(_check_thresholds(thresholds))
        return self._table(t, counts_at(tc, t), _curve_prevalence(prevalence))

    def curve_chunks(self, kind: str, chunk: int = CHUNK, *,
                     prevalence: float | None = None) -> Iterator[dict[str, np.ndarray]]:
        """The rows of ``roc()``, ``pr()``, ``lift_curve()`` or ``threshold_table()`` (``kind`` "roc", "pr",
        "lift" or "thresholds"; with ``prevalence`` as they take it), ``chunk`` distinct thresholds at a time:
        a curve of a summary spilled to disk is written out without being held whole (the pages read are
        given back)."""
        prevalence = _curve_prevalence(prevalence)
        if prevalence is not None and kind == "roc":
            raise InvalidInput("the ROC curve does not move with the class balance", field="prevalence")
        tc = self.counts
        for start in range(0, len(tc.thresholds), chunk):
            part = ThresholdCounts(np.array(tc.thresholds[start:start + chunk]), np.array(tc.tp[start:start + chunk]),
                                   np.array(tc.fp[start:start + chunk]), tc.n_positive, tc.n_negative)
            release(tc.thresholds, tc.tp, tc.fp)
            if kind == "roc":
                fpr, tpr, thresholds = roc_points(part)
                first = 0 if start == 0 else 1  # the origin once, at the top
                yield {"threshold": self.shown(thresholds[first:]), "fpr": fpr[first:], "tpr": tpr[first:]}
            elif kind == "pr":
                precision, recall, thresholds = pr_points(part, prevalence)
                yield {"threshold": self.shown(thresholds), "recall": recall, "precision": precision}
            elif kind == "lift":
                depth, gains, lift = lift_points(part, prevalence)
                yield {"threshold": self.shown(part.thresholds), "depth": depth, "gains": gains, "lift": lift}
            elif kind == "thresholds":
                tp, fp = part.tp.astype(np.float64), part.fp.astype(np.float64)  # as counts_at gives them
                yield self._table(part.thresholds, Cells(tp, fp, tc.n_positive - tp, tc.n_negative - fp),
                                  prevalence)
            else:
                raise ValueError(f"no chunked curve {kind!r}")

    def _table(self, t: np.ndarray, cells: Cells, prevalence: float | None = None) -> dict[str, np.ndarray]:
        tc = self.counts
        n = tc.n_positive + tc.n_negative
        table = {"threshold": self.shown(t), "tp": cells.tp, "fp": cells.fp, "fn": cells.fn, "tn": cells.tn}
        rated = cells
        if prevalence is not None:  # the shares of the four outcomes at that prevalence (they sum to 1)
            pos, neg = float(tc.n_positive), float(tc.n_negative)
            rated = Cells(np.asarray(cells.tp, dtype=np.float64) / pos * prevalence,
                          np.asarray(cells.fp, dtype=np.float64) / neg * (1.0 - prevalence),
                          np.asarray(cells.fn, dtype=np.float64) / pos * prevalence,
                          np.asarray(cells.tn, dtype=np.float64) / neg * (1.0 - prevalence))
        with np.errstate(invalid="ignore", divide="ignore"):
            for name in ("recall", "fpr", "precision", "specificity", "npv", "accuracy", "f1", "youden_j", "mcc"):
                moves = name not in ("recall", "fpr", "specificity", "youden_j")  # the rates do not move
                table[name] = np.asarray(BINARY_METRICS[name].compute(rated if moves else cells), dtype=np.float64)
            table["expected_cost"] = self._cost(table["fpr"], table["recall"], prevalence)
        table["predicted_positive"] = (cells.tp + cells.fp) / n if prevalence is None else rated.tp + rated.fp
        return table

    def _cost(self, fpr: np.ndarray, tpr: np.ndarray, prevalence: float | None = None) -> np.ndarray:
        return cost_at(self.costs, self.deployment_prevalence if prevalence is None else prevalence, fpr, tpr)

    # output -----------------------------------------------------------------

    def to_frame(self) -> Any:
        """The estimates (AUC, Gini, average precision, PR AUC, lift) as a tidy pandas DataFrame."""
        from assay.evaluation.tidy import to_frame

        return to_frame(self)

    def __str__(self) -> str:
        """The text report of the ranking (``print(r)``), as ``print`` gives an Evaluation's."""
        from assay.report.document import ranking_document
        from assay.report.text import render_blocks_text

        return render_blocks_text(ranking_document(self), color=False)

    def __repr__(self) -> str:
        e = self.roc_auc
        n = self.summary.n_positive + self.summary.n_negative
        ci = f", ci=({e.ci.low:.4g}, {e.ci.high:.4g})" if e.ci is not None else ""
        return (f"RankingAnalysis(n={n:g}, positive={self.summary.labels[1]!r}, roc_auc={e.value:.4g}{ci}, "
                f"distinct_scores={self.distinct})")

    def to_dict(self) -> dict[str, Any]:
        hull = self.hull()
        return {
            "direction": self.direction,
            "roc_auc": self.roc_auc.to_dict(),
            "gini": self.gini.to_dict(),
            "average_precision": self.average_precision.to_dict(),
            "pr_auc": self.pr_auc.to_dict(),
            "prevalence": self.prevalence,
            "partial_auc": self.partial_auc,
            "partial_auc_sensitivity": self.partial_auc_sensitivity,
            "pr_at_prevalence": self.pr_at_prevalence,
            "constrained_thresholds": [c.to_dict() for c in self.constrained],
            "roc_hull": {"fpr": hull["fpr"].tolist(), "tpr": hull["tpr"].tolist(),
                         "thresholds": [finite_or_none(t) for t in hull["threshold"]]},
            "best_thresholds": {k: v.to_dict() for k, v in self.best.items()},
            "costs": self.costs.to_dict(),
            "deployment_prevalence": self.deployment_prevalence,
            "deployment_prevalence_source": self.prevalence_source,
            "iso_performance": {"slope": finite_or_none(self.slope), "optimal": self.optimal.to_dict(),
                                **({} if math.isfinite(self.slope) else {"note": _INFINITE_SLOPE})},
            "operating_point": self.operating_point.to_dict() if self.operating_point else None,
            "references": {
                **{k: list(v) for k, v in REFERENCE_CLASSIFIERS.items()},
                "random": "every point with fpr = tpr",
                "inverted_operating_point": (list(inverted(self.operating_point.fpr, self.operating_point.tpr))
                                             if self.operating_point else None),
            },
            "lift": {"depth": self.lift_depth, **self.lift.to_dict()},
            "operating_points": [p.to_dict() for p in self.operating_points],
            "roc_band": self.band,
            "n_thresholds": len(self.summary),
            "approximation": self.approximation,
            "notes": list(self.notes),
        }


CURVE_OPTIONS: dict[str, frozenset[str]] = {
    "roc": frozenset(),
    "hull": frozenset(),
    "pr": frozenset({"prevalence"}),
    "lift": frozenset({"prevalence"}),
    "thresholds": frozenset({"prevalence", "costs", "thresholds"}),
}
"""The options each curve of :class:`RankingAnalysis` takes: the PR curve, the lift chart (its depth) and the
threshold table (precision, NPV, accuracy, F1, MCC, expected cost) move with the class balance, so they take
a ``prevalence``; the ROC curve and its hull do not (Fawcett 2006); only the threshold table holds costs (its
expected cost column) and given thresholds."""

_CURVE_WHY = {"prevalence": "the ROC curve and its hull do not move with the class balance (Fawcett 2006)",
              "costs": "only the threshold table has an expected cost column",
              "thresholds": "the other curves hold every distinct threshold"}


def check_curve_options(kind: str, given: Any) -> None:
    """Refuse each option in ``given`` (names: "prevalence", "costs", "thresholds") that the curve ``kind``
    does not take (:data:`CURVE_OPTIONS`): applied or refused, never ignored."""
    if kind not in CURVE_OPTIONS:
        raise InvalidInput(f"{kind!r} is not one of {list(CURVE_OPTIONS)}", field="kind")
    for option in given:
        if option not in CURVE_OPTIONS[kind]:
            takers = [k for k, taken in CURVE_OPTIONS.items() if option in taken]
            named = takers[0] if len(takers) == 1 else ", ".join(takers[:-1]) + " and " + takers[-1]
            raise InvalidInput(f"applies to the {named} curve{'s' if len(takers) > 1 else ''}, not to the {kind} "
                               f"curve: {_CURVE_WHY[option]}", field=option)


def _curve_prevalence(prevalence: Any) -> float | None:
    """A prevalence asked of a curve, checked (None: the test data's)."""
    if prevalence is None:
        return None
    return check_number(prevalence, "prevalence", low=0.0, high=1.0, low_open=True, high_open=True,
                        what="a share strictly between 0 and 1")


def choice_of(criterion: str, tc: ThresholdCounts, objective: Any, *, best: Literal["max", "min"]) -> ThresholdChoice:
    """The first ROC point that is best for ``objective(fpr, tpr)``, and how many tie with it (to 1e-12)."""
    i, value, hits = best_point(tc, objective, best=best)
    threshold, fpr, tpr = roc_point(tc, i)
    return ThresholdChoice(criterion, threshold, fpr, tpr, value, hits)


def _check_thresholds(values: Any) -> np.ndarray:
    """Thresholds asked for: a 1-d array of numbers, none NaN (an infinity is a legal threshold)."""
    try:
        t = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidInput(f"expected numbers, got {values!r}", field="thresholds") from None
    if t.ndim != 1 or t.size == 0:
        raise InvalidInput(f"expected a list of thresholds, got shape {t.shape}", field="thresholds")
    if np.isnan(t).any():
        raise InvalidInput("a threshold is NaN, not a number", field="thresholds")
    return t


_INFINITE_SLOPE = ("the iso-performance slope is infinite (in double precision, a false positive costs infinitely "
                   "more than a miss at this prevalence): the optimum is the hull point with the fewest false "
                   "positives")


def _why_no_spread(sc: ScoreCounts, auc: float) -> str:
    """Why DeLong's standard error is 0: separated classes, or scores that do not rank at all."""
    if len(sc) == 1:
        return "every instance has the same score, so the scores do not rank the instances"
    if auc in (0.0, 1.0):
        return "the classes are perfectly separated"
    return "the scores of each class are tied among themselves"


def analyse_scores(
    sc: ScoreCounts,
    *,
    confidence: float = 0.95,
    auc_interval: AUCInterval = "delong",
    bootstrap: BootstrapSettings = BootstrapSettings(),
    threshold: float | None = None,
    costs: Costs = Costs(),
    deployment_prevalence: float | None = None,
    fpr_range: tuple[float, float] | None = None,
    lift_depth: float = 0.1,
    roc_bins: int | None = None,
    at_specificity: Any = (),
    at_sensitivity: Any = (),
    roc_band: bool = False,
    sensitivity_range: tuple[float, float] | None = None,
    constraints: Any = (),
    direction: str = "higher",
) -> RankingAnalysis:
    """Analyse the scores of a two-class classifier (inputs validated: both classes present).

    With ``roc_bins``, everything is computed on the binned counts
    (:meth:`ScoreCounts.binned`, as Spark's ``numBins``) and is approximate: the
    result says so, with the bound on the AUC's error, ½ Σ_b P_b N_b / (P N) over the
    bins (pairs within a bin count one half; exactly, each counts 0, ½ or 1).

    Parameters
    ----------
    sc : ScoreCounts
    confidence : float
    auc_interval : {"delong", "bootstrap"}
        DeLong's interval (default) or a stratified percentile bootstrap.
    bootstrap : BootstrapSettings
    threshold : float, optional
        The threshold used for the confusion matrix, to place it in ROC space.
    costs : Costs
        Costs of the outcomes, for the least-cost threshold and the
        iso-performance slope.
    deployment_prevalence : float, optional
        The share of positives where the classifier will be used (default: the
        test data's), for expected costs and the iso-performance slope.
    fpr_range : (float, float), optional
        Report the partial AUC over this FPR range (pROC's ``partial.auc`` over the specificities
        1 - high to 1 - low), raw and standardised (McClish), with bootstrap intervals.
    direction : {"higher", "lower"}
        "lower": ``sc`` summarises the negated scores (lower scores mean the positive class), and
        every threshold is given and shown in the scores' own units (positive iff score <= it).
    constraints : sequence of str, optional
        Best thresholds under constraints, e.g. ``"precision>=0.8"`` (the largest recall with
        precision at least 0.8), ``"fpr<=0.05"`` (the largest recall), ``"recall>=0.9"`` (the
        largest specificity): :class:`ConstrainedThreshold`. A constraint that no threshold meets
        is an error.
    sensitivity_range : (float, float), optional
        Likewise over this range of sensitivities (pROC's ``partial.auc.focus = "sensitivity"``).
    lift_depth : float, default 0.1
        The share of top-scored instances at which lift is reported.
    at_specificity, at_sensitivity : sequence of float
        Report the sensitivity at each of these specificities, and the specificity at each of
        these sensitivities, with intervals (:class:`OperatingPoint`).
    roc_band : bool, default False
        Also compute the ROC confidence band (:meth:`RankingAnalysis.roc_band`) with ``bootstrap``.
    """
    if fpr_range is not None:
        fpr_range = check_range(fpr_range, "fpr_range")
    if sensitivity_range is not None:
        sensitivity_range = check_range(sensitivity_range, "sensitivity_range")
    lift_depth = check_number(lift_depth, "lift_depth", low=0.0, high=1.0, low_open=True, what="in (0, 1]")
    approximation = None
    if roc_bins is not None:
        roc_bins = check_integer(roc_bins, "roc_bins", low=2, high=10_000_000)
        exact_thresholds = len(sc)
        sc = sc.binned(roc_bins)
        pairs = float(np.dot(np.asarray(sc.positives, dtype=np.float64), np.asarray(sc.negatives, dtype=np.float64)))
        bound = 0.5 * pairs / (float(sc.n_positive) * float(sc.n_negative))
        approximation = {"roc_bins": roc_bins, "exact": False, "distinct_scores": exact_thresholds,
                         "bins": len(sc), "auc_error_bound": bound,
                         "method": "consecutive distinct scores grouped as Spark's BinaryClassificationMetrics "
                                   "numBins; pairs within a bin count one half"}
    tc = threshold_counts(sc)
    n_pos, n_neg = float(tc.n_positive), float(tc.n_negative)
    notes: list[str] = []
    weighted = np.asarray(sc.positives).dtype.kind == "f"

    dl = delong(sc, confidence=confidence)
    if weighted:
        roc_auc = Estimate(dl.auc, None, None, WEIGHTED)
    elif auc_interval == "bootstrap":
        if sc.on_disk:
            raise InvalidInput(f"the bootstrap interval of the AUC needs the summary in memory, and its "
                               f"{len(sc):,} distinct scores were spilled to disk: use DeLong's interval, or "
                               "a larger memory budget", field="auc_interval")
        ci = bootstrap_auc_ci(sc, confidence=confidence, settings=bootstrap)
        roc_auc = Estimate(dl.auc, ci, "bootstrap-percentile")
    elif dl.ci is None:
        roc_auc = Estimate(dl.auc, None, "delong", "no interval: DeLong's needs two instances of each class")
    elif dl.se == 0:
        roc_auc = Estimate(dl.auc, None, "delong", "no interval: the standard error is 0 (" + _why_no_spread(sc, dl.auc)
                           + ")")
    else:
        roc_auc = Estimate(dl.auc, dl.ci, "delong")
    gini_ci = ConfidenceInterval(2 * roc_auc.ci.low - 1, 2 * roc_auc.ci.high - 1) if roc_auc.ci else None
    gini = Estimate(2 * dl.auc - 1, gini_ci, roc_auc.method, roc_auc.note)

    ap, trapezoid = pr_areas(tc)
    ap_est = Estimate(ap, None, None, WEIGHTED) if weighted else _logit_estimate(ap, n_pos, confidence)
    pr_est = Estimate(trapezoid, None, None, WEIGHTED) if weighted else _logit_estimate(trapezoid, n_pos, confidence)

    pr_at = None
    if deployment_prevalence is not None:
        pr_at = _pr_at_prevalence(sc, tc, float(deployment_prevalence), confidence, bootstrap, weighted)
    partial = None if fpr_range is None else _partial(sc, tc, fpr_range, "fpr", confidence, bootstrap, weighted)
    partial_se = None if sensitivity_range is None else \
        _partial(sc, tc, sensitivity_range, "sensitivity", confidence, bootstrap, weighted)

    hull_index = roc_hull(sc.positives, sc.negatives, tp=tc.tp, fp=tc.fp)
    prevalence = n_pos / (n_pos + n_neg)
    pi = prevalence if deployment_prevalence is None else float(deployment_prevalence)
    source = "test data" if deployment_prevalence is None else "given"
    def cost_of(fpr: np.ndarray, tpr: np.ndarray) -> np.ndarray:
        return cost_at(costs, pi, fpr, tpr)

    # every choice walks the curve in chunks: no curve-long array is held
    youden = choice_of("youden", tc, lambda fpr, tpr: tpr - fpr, best="max")
    corner = choice_of("closest_to_corner", tc, lambda fpr, tpr: np.hypot(fpr, 1.0 - tpr), best="min")
    cheapest = choice_of("min_expected_cost", tc, cost_of, best="min")
    regret_fp, regret_fn = costs.fp - costs.tn, costs.fn - costs.tp
    if not (math.isfinite(regret_fp) and math.isfinite(regret_fn)):  # beyond the largest double: both halved
        regret_fp, regret_fn = costs.fp / 2 - costs.tn / 2, costs.fn / 2 - costs.tp / 2
    slope = iso_performance_slope(cost_fp=regret_fp, cost_fn=regret_fn, negatives=1 - pi, positives=pi) \
        if costs.fn > costs.tp else math.inf
    after, at_origin = np.maximum(hull_index - 1, 0), hull_index == 0
    hth = np.where(at_origin, np.inf, gather(tc.thresholds, after))
    hf = np.where(at_origin, 0.0, gather(tc.fp, after) / n_neg)
    ht = np.where(at_origin, 0.0, gather(tc.tp, after) / n_pos)
    opt = optimal_point(hf, ht, slope)
    optimal = ThresholdChoice("iso_performance", float(hth[opt.index]), opt.fpr, opt.tpr,
                              float(cost_of(np.array([opt.fpr]), np.array([opt.tpr]))[0]),
                              1 if opt.tied_with is None else 2)
    if opt.tied_with is not None:
        notes.append(
            f"the iso-performance line lies along a hull edge: every mix of the thresholds "
            f"{_unit(hth[opt.index], direction):g} and {_unit(hth[opt.tied_with], direction):g} is equally good"
        )

    operating = None
    if threshold is not None:
        cells = counts_at(tc, np.array([threshold]))
        op_fpr = float(cells.fp[0] / n_neg)
        op_tpr = float(cells.tp[0] / n_pos)
        operating = ThresholdChoice("given", float(threshold), op_fpr, op_tpr,
                                    float(cost_at(costs, pi, np.array([op_fpr]), np.array([op_tpr]))[0]))

    # lift = precision among the top share / prevalence: the precision's Wilson interval, scaled
    gains = gains_at(tc, lift_depth)
    top = lift_depth * (n_pos + n_neg)
    found = gains * n_pos
    low, high = proportion_bounds(min(found, top), top, confidence=confidence, method="wilson")
    value = gains / lift_depth
    # the same number reached by two roundings: keep the value inside its own interval
    interval = ConfidenceInterval(min(float(low) / prevalence, value), max(float(high) / prevalence, value))
    lift = Estimate(value, None, None, WEIGHTED) if weighted else Estimate(value, interval, "wilson")
    if approximation is not None:
        notes.insert(0, f"approximate: the scores were binned into {len(sc):,} groups of consecutive distinct "
                        f"scores (of {approximation['distinct_scores']:,}; --roc-bins {roc_bins}, as Spark's "
                        f"numBins); the exact AUC is within ±{approximation['auc_error_bound']:.2g} of the one "
                        "shown, and every curve, interval and threshold comes from the binned counts")
        roc_auc = replace(roc_auc, method=f"{roc_auc.method} (binned, approximate)" if roc_auc.method else None)

    points = _operating_points(sc, tc, at_specificity, at_sensitivity, confidence, bootstrap, weighted)
    result = RankingAnalysis(
        operating_points=points,
        summary=sc, confidence=confidence, roc_auc=roc_auc, gini=gini, average_precision=ap_est, pr_auc=pr_est,
        partial_auc=partial, partial_auc_sensitivity=partial_se, pr_at_prevalence=pr_at, hull_index=hull_index,
        constrained=tuple(_constrained(tc, c, confidence, weighted) for c in _constraint_list(constraints)),
        best={"youden": youden, "closest_to_corner": corner,
                                                          "min_expected_cost": cheapest},
        costs=costs, deployment_prevalence=pi, prevalence_source=source, slope=slope, optimal=optimal,
        operating_point=operating, lift_depth=lift_depth, lift=lift, notes=tuple(notes), approximation=approximation,
    )
    if roc_band and not weighted:
        result = replace(result, band=result.roc_band(confidence=confidence, resamples=bootstrap.resamples,
                                                      seed=bootstrap.seed))
    if direction == "lower":  # every threshold in the scores' own units
        def flip(c: Any) -> Any:
            return None if c is None else replace(c, threshold=-c.threshold)

        result = replace(result, direction="lower", best={k: flip(c) for k, c in result.best.items()},
                         optimal=flip(result.optimal), operating_point=flip(result.operating_point),
                         operating_points=tuple(flip(p) for p in result.operating_points),
                         constrained=tuple(flip(c) for c in result.constrained))
    elif roc_auc.value == 0.0 or (not weighted and roc_auc.ci is not None and roc_auc.ci.high < 0.5):
        why = "every positive scores below every negative (AUC 0)" if roc_auc.value == 0.0 else \
            "the AUC is significantly below 0.5"
        result = replace(result, notes=result.notes + (
            f"the scores look inverted: {why}, so lower scores go with the positive "
            "class; direction=\"lower\" analyses them that way (or name the other class positive)",))
    return result


MAX_BOOTSTRAP_CURVE_POINTS = 500_000_000
"""The most curve points (distinct scores x resamples) that the bootstraps of a partial AUC and of operating
points redraw; beyond, they give no interval and say why (fewer resamples, or --roc-bins, make it possible)."""


def _too_many(points: int, resamples: int) -> str:
    return (f"no interval: {resamples:,} bootstrap resamples of {points:,} distinct scores exceed "
            f"{MAX_BOOTSTRAP_CURVE_POINTS:,} curve points; fewer resamples (--bootstrap) or --roc-bins make it "
            "possible")


def _unit(threshold: float, direction: str) -> float:
    """A threshold of the summary in the scores' own units."""
    return -threshold if direction == "lower" else threshold


def _constraint_list(constraints: Any) -> list[str]:
    if constraints is None:
        return []
    if isinstance(constraints, str):
        return [constraints]
    return [str(c) for c in constraints]


def _constrained(tc: ThresholdCounts, text: str, confidence: float, weighted: bool) -> ConstrainedThreshold:
    """The best threshold under one constraint, as :class:`ConstrainedThreshold` describes it."""
    import re

    match = re.fullmatch(r"\s*([a-z]+)\s*(>=|<=)\s*([-+0-9.eE]+)\s*", text.lower())
    if not match or match.group(1) not in CONSTRAINED_RATES:
        raise InvalidInput(f"{text!r} is not a constraint such as precision>=0.8, fpr<=0.05 or recall>=0.9 (rates: "
                           f"{', '.join(CONSTRAINED_RATES)})", field="constraints")
    name, op = match.group(1), match.group(2)
    bound = check_number(float(match.group(3)), "constraints", low=0.0, high=1.0, what="a rate within [0, 1]")
    tp = np.asarray(tc.tp, dtype=np.float64)
    fp = np.asarray(tc.fp, dtype=np.float64)
    n_pos, n_neg = float(tc.n_positive), float(tc.n_negative)
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = {"recall": tp / n_pos, "specificity": 1.0 - fp / n_neg, "fpr": fp / n_neg,
                 "precision": tp / (tp + fp), "npv": (n_neg - fp) / (n_neg - fp + n_pos - tp)}
    rates["sensitivity"] = rates["tpr"] = rates["recall"]
    rates["ppv"] = rates["precision"]
    values = rates[name]
    met = values >= bound - 1e-12 if op == ">=" else values <= bound + 1e-12
    met &= np.isfinite(values)
    if not met.any():
        raise InvalidInput(f"no threshold meets {name} {op} {bound:g}", field="constraints")
    maximized = CONSTRAINED_RATES[name]
    objective = np.where(met, rates[maximized], -np.inf)
    i = int(np.argmax(objective))  # the first, highest threshold among ties
    counts = {"recall": (tp[i], n_pos), "specificity": (n_neg - fp[i], n_neg), "precision": (tp[i], tp[i] + fp[i])}
    out: dict[str, Estimate] = {}
    for key, (k, n) in counts.items():
        if n <= 0:
            out[key] = Estimate.undefined("nothing predicted positive at this threshold")
        elif weighted:
            out[key] = Estimate(k / n, None, None, WEIGHTED)
        else:
            low, high = proportion_bounds(int(round(k)), int(round(n)), confidence=confidence, method="wilson")
            out[key] = Estimate(k / n, ConfidenceInterval(float(low), float(high)), "wilson")
    return ConstrainedThreshold(f"{name} {op} {bound:g}", maximized, float(tc.thresholds[i]), out)


def _pr_at_prevalence(sc: ScoreCounts, tc: ThresholdCounts, prevalence: float, confidence: float,
                      bootstrap: BootstrapSettings, weighted: bool) -> dict[str, Any]:
    """Average precision and the PR area where the classifier will be used: the precision of each threshold's
    rates at that prevalence (Bayes' rule), with stratified bootstrap intervals."""
    from assay.inference.roc import bootstrap_curve_statistic
    from assay.metrics.ranking import precision_at

    ap, trapezoid = pr_areas(tc, prevalence)

    def areas(tp: np.ndarray, fp: np.ndarray, n_pos: float, n_neg: float, which: int) -> np.ndarray:
        recall = tp / float(n_pos)
        precision = precision_at(tp, fp, n_pos, n_neg, prevalence)
        gained = np.diff(recall, axis=1)
        if which == 0:
            return (gained * precision[:, 1:]).sum(axis=1)
        before = np.concatenate((np.ones((len(tp), 1)), precision[:, 1:-1]), axis=1)
        return (gained * (precision[:, 1:] + before) / 2.0).sum(axis=1)

    estimates = {}
    for which, (key, value) in enumerate((("average_precision", ap), ("pr_auc", trapezoid))):
        if weighted:
            estimates[key] = Estimate(value, None, None, WEIGHTED)
        elif len(sc) * bootstrap.resamples > MAX_BOOTSTRAP_CURVE_POINTS:
            estimates[key] = Estimate(value, None, None, _too_many(len(sc), bootstrap.resamples))
        else:
            ci = bootstrap_curve_statistic(sc, lambda tp, fp, p, n, w=which: areas(tp, fp, p, n, w),
                                           confidence=confidence, settings=bootstrap)
            estimates[key] = Estimate(value, ci, "bootstrap-percentile" if ci else None,
                                      None if ci else "no interval: undefined in over 1% of resamples")
    return {"prevalence": prevalence, "baseline": prevalence,
            **{key: e.to_dict() for key, e in estimates.items()},
            "method": "precision at each threshold as its rates would give it at this prevalence, "
                      "TPR pi / (TPR pi + FPR (1 - pi)); stratified bootstrap percentile intervals"}


def _partial(sc: ScoreCounts, tc: ThresholdCounts, bounds: tuple[float, float], focus: str, confidence: float,
             bootstrap: BootstrapSettings, weighted: bool) -> dict[str, Any]:
    """The partial AUC over an FPR or sensitivity range: raw, standardised (McClish), with stratified
    bootstrap intervals (DeLong's is for the whole area; pROC, too, bootstraps a partial one)."""
    from assay.inference.roc import bootstrap_partial_auc
    from assay.metrics.ranking import mcclish, partial_auc_focus

    low, high = bounds
    area = partial_auc_focus(tc, low, high, focus)
    standardized = mcclish(area, low, high, focus)
    out: dict[str, Any] = {("fpr_range" if focus == "fpr" else "sensitivity_range"): [low, high], "value": area,
                           "standardized": standardized, "ci": None, "standardized_ci": None,
                           "method": "trapezoid on the exact curve; standardized as McClish (1989); stratified "
                                     "bootstrap percentile intervals (as pROC's ci.auc of a partial AUC)",
                           "note": None}
    notes = []
    if standardized is None:
        notes.append("no standardized value: the curve lies below the diagonal over this range (McClish's "
                     "correction is not defined there, as pROC says)")
    if weighted:
        notes.append(WEIGHTED)
    elif len(sc) * bootstrap.resamples > MAX_BOOTSTRAP_CURVE_POINTS:
        notes.append(_too_many(len(sc), bootstrap.resamples))
    else:
        ci, std_ci, share = bootstrap_partial_auc(sc, low, high, focus=focus, confidence=confidence,
                                                  settings=bootstrap)
        out["ci"] = [ci.low, ci.high]
        out["standardized_ci"] = [std_ci.low, std_ci.high] if std_ci is not None else None
        if share < 1.0:
            notes.append(f"the standardized interval leaves out the {1 - share:.1%} of resamples below the "
                         "diagonal, as pROC leaves out undefined replicates")
    out["note"] = "; ".join(notes) or None
    return out


def _targets(values: Any, field: str) -> np.ndarray:
    if values is None:
        return np.empty(0)
    if isinstance(values, (int, float)):
        values = [values]
    return np.array([check_number(v, field, low=0.0, high=1.0, what="a rate within [0, 1]") for v in values],
                    dtype=np.float64)


def _operating_points(sc: ScoreCounts, tc: ThresholdCounts, at_specificity: Any, at_sensitivity: Any,
                      confidence: float, bootstrap: BootstrapSettings, weighted: bool) -> tuple[OperatingPoint, ...]:
    from assay.inference.roc import bootstrap_operating_points
    from assay.metrics.ranking import operating_points

    out: list[OperatingPoint] = []
    for given, targets in (("specificity", _targets(at_specificity, "at_specificity")),
                           ("sensitivity", _targets(at_sensitivity, "at_sensitivity"))):
        if targets.size == 0:
            continue
        tp = np.concatenate(([0], np.asarray(tc.tp)))
        fp = np.concatenate(([0], np.asarray(tc.fp)))
        values, exact = operating_points(tp, fp, tc.n_positive, tc.n_negative, targets, given=given)
        sens = tp / float(tc.n_positive)
        spec = (float(tc.n_negative) - fp) / float(tc.n_negative)
        if given == "specificity":  # the lowest threshold that keeps the specificity
            reach = np.clip(np.searchsorted(-spec, -targets, side="right") - 1, 0, len(tp) - 1)
        else:  # the highest threshold that reaches the sensitivity
            reach = np.clip(np.searchsorted(sens, targets, side="left"), 0, len(tp) - 1)
        thresholds = np.concatenate(([np.inf], np.asarray(tc.thresholds)))
        note = WEIGHTED if weighted else _too_many(len(sc), bootstrap.resamples) \
            if len(sc) * bootstrap.resamples > MAX_BOOTSTRAP_CURVE_POINTS else None
        if note is not None:
            intervals: list[Any] = [None] * len(targets)
        else:
            intervals = bootstrap_operating_points(sc, targets, given=given, confidence=confidence,
                                                   settings=bootstrap)
        for k, target in enumerate(targets):
            value = float(values[0, k])
            estimate = Estimate(value, intervals[k], None if note else "bootstrap-percentile", note)
            r = int(reach[k])
            out.append(OperatingPoint(given, float(target), estimate, float(thresholds[r]),
                                      {"sensitivity": float(sens[r]), "specificity": float(spec[r])},
                                      bool(exact[0, k] >= 0)))
    return tuple(out)


WEIGHTED = "no interval: the sample weights are not counts"
"""The note of an estimate from weights that are not whole numbers."""


def _logit_estimate(value: float, n_pos: float, confidence: float) -> Estimate:
    ci = logit_interval(value, n_pos, confidence=confidence)
    if ci is None:
        return Estimate(value, None, "logit", "no interval: the area is 0 or 1")
    return Estimate(value, ci, "logit")


def _curve_counts(name: Any, r: Any) -> ThresholdCounts:
    """The ROC points of a ranking, or the single point of a discrete two-class classifier."""
    if isinstance(r, RankingAnalysis):
        return threshold_counts(r.summary)
    ranking = getattr(r, "ranking", None)
    if isinstance(ranking, RankingAnalysis):
        return threshold_counts(ranking.summary)
    confusion = getattr(r, "confusion", None)
    positive = getattr(r, "positive", None)
    if confusion is None or positive is None:
        raise InvalidInput(f"{name!r} is a {type(r).__name__}, not the result of assay.rank() or of assay.evaluate() "
                           "on two classes", field="rankings")
    p = confusion.labels.index(positive)
    counts = confusion.counts
    tp, fn, fp, tn = counts[p, p], counts[p, 1 - p], counts[1 - p, p], counts[1 - p, 1 - p]
    return ThresholdCounts(np.array([np.nan]), np.array([tp]), np.array([fp]), tp + fn, fp + tn)


@dataclass(frozen=True)
class HullVertex:
    """A vertex of a combined ROC hull: which classifier, at which threshold."""

    classifier: str
    threshold: float
    fpr: float
    tpr: float

    def to_dict(self) -> dict[str, Any]:
        return {"classifier": self.classifier, "threshold": finite_or_none(self.threshold), "fpr": self.fpr,
                "tpr": self.tpr}


@dataclass(frozen=True)
class CombinedHull:
    """The ROC convex hull of several classifiers' curves (seeds 002, 003).

    Only classifiers with a vertex on the hull can be optimal under some
    operating condition; any point on an edge is reached by mixing its two ends
    at random (``assay.metrics.roc_space.mix``).
    """

    vertices: tuple[HullVertex, ...]
    classifiers: tuple[str, ...]

    @property
    def potentially_optimal(self) -> tuple[str, ...]:
        """The classifiers with at least one vertex on the hull (the others can be discarded)."""
        on = {v.classifier for v in self.vertices if v.classifier}
        return tuple(c for c in self.classifiers if c in on)

    def optimal(self, slope: float) -> tuple[HullVertex, HullVertex | None]:
        """The vertex an iso-performance line of this slope touches first, and a tied one."""
        fpr = np.array([v.fpr for v in self.vertices])
        tpr = np.array([v.tpr for v in self.vertices])
        point = optimal_point(fpr, tpr, slope)
        tied = self.vertices[point.tied_with] if point.tied_with is not None else None
        return self.vertices[point.index], tied

    def to_dict(self) -> dict[str, Any]:
        return {"vertices": [v.to_dict() for v in self.vertices],
                "potentially_optimal": list(self.potentially_optimal)}


def combined_hull(rankings: dict[str, Any]) -> CombinedHull:
    """The convex hull of several classifiers' ROC curves, each vertex with its origin.

    A classifier is its ranking (``assay.rank``, or an ``assay.evaluate`` result with scores), or a
    discrete classifier (an ``assay.evaluate`` result of predicted labels, two classes): one point in
    ROC space, whose threshold is NaN.

    When every classifier was scored on data with the same numbers of positives
    and negatives (the same test set), the hull is computed exactly on counts;
    otherwise on rates. The corners (0, 0) and (1, 1) belong to every curve
    (predict nothing or everything) and are attributed to no classifier.

    Examples
    --------
    A finds two of three positives with no false alarm; B finds all three at
    the cost of one: each is on the hull, and the condition picks one.

    >>> from assay import rank
    >>> a = rank([1, 1, 0, 0, 1, 0], y_score=[0.9, 0.8, 0.7, 0.6, 0.3, 0.2])
    >>> b = rank([1, 1, 0, 0, 1, 0], y_score=[0.5, 0.6, 0.1, 0.7, 0.8, 0.2])
    >>> hull = combined_hull({"A": a, "B": b})
    >>> [(v.classifier, round(v.fpr, 2), round(v.tpr, 2)) for v in hull.vertices]
    [('', 0.0, 0.0), ('A', 0.0, 0.67), ('B', 0.33, 1.0), ('', 1.0, 1.0)]
    >>> hull.optimal(10.0)[0].classifier, hull.optimal(0.1)[0].classifier
    ('A', 'B')
    """
    if not isinstance(rankings, Mapping) or not rankings:
        raise InvalidInput("expected a mapping of names to rank() results, e.g. {'A': rank(...), 'B': rank(...)}",
                           field="rankings")
    counts = []
    for name, r in rankings.items():
        counts.append(_curve_counts(name, r))
    names = [str(name) for name in rankings]
    same = len({(float(c.n_positive), float(c.n_negative)) for c in counts}) == 1
    xs, ys, owner, thresholds = [], [], [], []
    for name, tc in zip(names, counts, strict=True):
        if same:
            xs.append(np.asarray(tc.fp)), ys.append(np.asarray(tc.tp))
        else:
            xs.append(tc.fp / tc.n_negative), ys.append(tc.tp / tc.n_positive)
        owner.append(np.full(len(tc.fp), names.index(name)))
        thresholds.append(tc.thresholds)
    total_x = counts[0].n_negative if same else 1.0
    total_y = counts[0].n_positive if same else 1.0
    x = np.concatenate(xs)
    y = np.concatenate(ys)
    who = np.concatenate(owner)
    th = np.concatenate(thresholds)
    order = np.lexsort((-y, x))  # by x, and the highest y first at each x
    x, y, who, th = x[order], y[order], who[order], th[order]
    first = np.concatenate(([True], x[1:] != x[:-1]))  # only the top point at each x can be a vertex
    x, y, who, th = x[first], y[first], who[first], th[first]
    keep = y >= np.maximum.accumulate(y)  # a point lower than one to its left is below the hull
    # the corners belong to every classifier (predict nothing, predict everything): discrete ones too
    x = np.concatenate(([0], x[keep], [total_x]))
    y = np.concatenate(([0], y[keep], [total_y]))
    who = np.concatenate(([-1], who[keep], [-1]))
    th = np.concatenate(([np.inf], th[keep], [-np.inf]))
    hull = upper_hull(x, y, tolerance=0.0 if same else 1e-12)
    vertices = []
    for xv, yv, w, t in zip(x[hull], y[hull], who[hull], th[hull], strict=True):
        fpr, tpr = float(xv / total_x), float(yv / total_y)
        corner = (fpr, tpr) in ((0.0, 0.0), (1.0, 1.0))
        vertices.append(HullVertex("" if corner else names[w], float(t) if not corner else
                                   (np.inf if fpr == 0.0 else -np.inf), fpr, tpr))
    vertices = tuple(vertices)
    return CombinedHull(vertices, tuple(names))
