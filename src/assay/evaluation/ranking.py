"""Everything the scores of a two-class classifier tell, from one ``ScoreCounts``.

AUC with DeLong's interval (or a bootstrap), average precision and the area
under the PR curve with Boyd's logit interval, partial AUC, the ROC convex hull,
the best thresholds (Youden, closest to the ideal corner, least expected cost),
the operating condition's iso-performance slope and its optimal point, the
reference classifiers of Fawcett (2006), and lift at a depth. The curves themselves
(ROC, PR, lift, the threshold table) are methods, for plotting and export.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np

from assay.checks import check_confidence, check_number, check_resamples, check_seed
from assay.errors import InvalidInput
from assay.evaluation import display
from assay.evaluation.costs import Costs, cost_at
from assay.evaluation.display import Displayable
from assay.evaluation.operating_points import (
    MAX_BOOTSTRAP_CURVE_POINTS,
    WEIGHTED,
    ConstrainedThreshold,
    OperatingPoint,
    constrained,
    constraint_list,
    operating_points_of,
    own_units,
    rates_of,
    too_many,
)
from assay.evaluation.options import Options, options_from
from assay.evaluation.thresholds import ThresholdChoice, choices_of
from assay.evaluation.tidy import to_frame
from assay.inference.bootstrap import BootstrapSettings
from assay.inference.estimate import ConfidenceInterval, Estimate, finite_or_none
from assay.inference.proportion import proportion_bounds
from assay.inference.roc import (
    DeLongFold,
    bootstrap_auc_ci,
    bootstrap_curve_statistic,
    bootstrap_operating_points,
    bootstrap_partial_auc,
    logit_interval,
)
from assay.metrics.confusion import BINARY_METRICS, Cells
from assay.metrics.ranking import (
    BestFold,
    PrFold,
    ThresholdCounts,
    counts_at,
    first_index,
    gains_at,
    lift_points,
    mcclish,
    operating_points,
    partial_auc_focus,
    pr_areas,
    pr_points,
    precision_at,
    roc_points,
    threshold_counts,
    walk_summary,
)
from assay.metrics.roc_space import (
    REFERENCE_CLASSIFIERS,
    Hull,
    HullFold,
    inverted,
    iso_performance_slope,
    optimal_point,
    roc_hull,
)
from assay.summaries.ranges import known_entries
from assay.summaries.scores import ScoreCounts
from assay.summaries.spill import CHUNK, gather, release

PICTURE_POINTS = 20_000
"""Distinct thresholds kept for the pictures of a summary spilled to disk (a few pixels' worth each)."""


__all__ = [
    "AUCInterval",
    "Costs",
    "RankingAnalysis",
    "ThresholdChoice",
    "analyse_scores",
    "cost_at",
    "CURVE_OPTIONS",
    "CHUNKED_CURVES",
    "CurveRows",
    "check_curve_options",
    "threshold_rows",
]

AUCInterval = Literal["delong", "bootstrap"]


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
    hull_vertices: Hull | None = field(default=None, compare=False, repr=False)  # hull_index's, as the walk found them
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

        if self.summary.positives.dtype.kind == "f":
            raise InvalidInput("a confidence band needs counts: the sample weights are not whole numbers",
                               field="sample_weight")
        level = self.confidence if confidence is None else check_confidence(confidence)
        grid = np.linspace(0.0, 1.0, 51) if specificities is None else rates_of(specificities, "specificities")
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
        analysis is kept as it is. Made once for each ``points`` (each picture of a report asks for it)."""
        if not self.summary.on_disk:
            return self
        made = self.__dict__.setdefault("_drawn", {})  # not a field: a copy (``replace``) makes its own
        if points not in made:
            made[points] = self._drawable(points)
        return made[points]

    def _drawable(self, points: int) -> RankingAnalysis:
        if len(self.summary) <= points:  # few enough to draw them all: held in memory
            return replace(self, summary=self.summary.held())
        tc = self.counts
        m = len(tc.thresholds)
        keep = [np.linspace(0, m - 1, points).round().astype(np.int64), np.asarray(self.hull_index, np.int64) - 1]
        chosen = [c.threshold for c in self.best.values()] + [self.optimal.threshold] + \
            ([self.operating_point.threshold] if self.operating_point is not None else [])
        # a chosen threshold's entry: the last of the distinct scores at or above it (a binary search on disk)
        known = known_entries(tc.thresholds)
        keep.append(np.array([first_index(m, lambda j, t=t: not tc.thresholds[j] >= t, known) - 1
                              for t in chosen if math.isfinite(t)], dtype=np.int64))
        ends = np.unique(np.concatenate(keep))
        ends = ends[ends >= 0]
        tp, fp = gather(tc.tp, ends), gather(tc.fp, ends)
        thin = ScoreCounts(gather(tc.thresholds, ends), np.diff(tp, prepend=0), np.diff(fp, prepend=0),
                           self.summary.labels)
        return replace(self, summary=thin, hull_index=roc_hull(thin.positives, thin.negatives), hull_vertices=None,
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
        if self.hull_vertices is not None:  # found by the walk with their counts and thresholds: nothing to read
            v = self.hull_vertices
            return {"threshold": self.shown(v.thresholds), "fpr": v.fp / tc.n_negative, "tpr": v.tp / tc.n_positive}
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
        given back). Each chunk's rows are :meth:`curve_rows`'s of that piece of the counts."""
        rows = self.curve_rows(kind, prevalence=prevalence)
        tc = self.counts
        for start in range(0, len(tc.thresholds), chunk):
            part = ThresholdCounts(np.array(tc.thresholds[start:start + chunk]), np.array(tc.tp[start:start + chunk]),
                                   np.array(tc.fp[start:start + chunk]), tc.n_positive, tc.n_negative)
            release(tc.thresholds, tc.tp, tc.fp)
            yield rows.of(part, first=start == 0)

    def curve_rows(self, kind: str, *, prevalence: float | None = None) -> CurveRows:
        """What makes the rows of the curve ``kind`` ("roc", "pr", "lift" or "thresholds", with ``prevalence``
        as :meth:`curve_chunks` takes it) from any piece of consecutive cumulative counts: a small value that
        travels (to Spark's executors, which make each range partition's rows)."""
        prevalence = _curve_prevalence(prevalence)
        if prevalence is not None and kind == "roc":
            raise InvalidInput("the ROC curve does not move with the class balance", field="prevalence")
        if kind not in CHUNKED_CURVES:
            raise ValueError(f"no chunked curve {kind!r}")
        return CurveRows(kind, prevalence, self.costs, self.deployment_prevalence, self.direction)

    def _table(self, t: np.ndarray, cells: Cells, prevalence: float | None = None) -> dict[str, np.ndarray]:
        tc = self.counts
        return threshold_rows(self.shown(t), cells, tc.n_positive, tc.n_negative, self.costs,
                              self.deployment_prevalence, prevalence)

    # output -----------------------------------------------------------------

    def to_frame(self) -> Any:
        """The estimates (AUC, Gini, average precision, PR AUC, lift) as a tidy pandas DataFrame."""
        return to_frame(self)

    def __str__(self) -> str:
        """The text report of the ranking (``print(r)``), as ``print`` gives an Evaluation's."""
        return display.text(self)

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


CHUNKED_CURVES = ("roc", "pr", "lift", "thresholds")
"""The curves whose rows come a piece of the cumulative counts at a time (:class:`CurveRows`)."""


@dataclass(frozen=True)
class CurveRows:
    """The rows of one curve (:meth:`RankingAnalysis.curve_rows`) from any piece of the summary's
    consecutive cumulative counts: the rows of the pieces, one after another, are the curve's rows (the
    ROC curve's first point, (0, 0) at an infinite threshold, comes with the first piece only). Every
    value is a function of its own entry's counts, so a piece needs only the counts before it.

    ``kind`` is "roc", "pr", "lift" or "thresholds"; ``prevalence`` that of :meth:`RankingAnalysis.pr`,
    :meth:`~RankingAnalysis.lift_curve` or :meth:`~RankingAnalysis.threshold_table` (None: the data's);
    ``costs`` and ``deployment_prevalence`` give the threshold table's expected cost; ``direction`` "lower"
    shows the thresholds in the scores' own units (the summary holds the negated scores).
    """
    kind: str
    prevalence: float | None
    costs: Costs
    deployment_prevalence: float
    direction: str = "higher"

    def of(self, part: ThresholdCounts, *, first: bool) -> dict[str, np.ndarray]:
        """The rows of the piece ``part`` (its cumulative counts include those before it); ``first``: the
        piece that starts the curve."""
        shown = -part.thresholds if self.direction == "lower" else part.thresholds
        if self.kind == "roc":
            fpr, tpr, thresholds = roc_points(part)
            skip = 0 if first else 1  # the origin once, at the top
            return {"threshold": (-thresholds if self.direction == "lower" else thresholds)[skip:],
                    "fpr": fpr[skip:], "tpr": tpr[skip:]}
        if self.kind == "pr":
            precision, recall, _ = pr_points(part, self.prevalence)
            return {"threshold": shown, "recall": recall, "precision": precision}
        if self.kind == "lift":
            depth, gains, lift = lift_points(part, self.prevalence)
            return {"threshold": shown, "depth": depth, "gains": gains, "lift": lift}
        tp, fp = part.tp.astype(np.float64), part.fp.astype(np.float64)  # as counts_at gives them
        return threshold_rows(shown, Cells(tp, fp, part.n_positive - tp, part.n_negative - fp), part.n_positive,
                              part.n_negative, self.costs, self.deployment_prevalence, self.prevalence)


def threshold_rows(shown: np.ndarray, cells: Cells, n_positive: Any, n_negative: Any, costs: Costs,
                   deployment_prevalence: float, prevalence: float | None = None) -> dict[str, np.ndarray]:
    """The threshold table's rows (:meth:`RankingAnalysis.threshold_table`) at the thresholds ``shown`` (in
    the scores' own units), whose cells are ``cells``; at a ``prevalence`` pi every column that moves with the
    class balance is at pi; the expected cost is at pi, else at ``deployment_prevalence``."""
    n = n_positive + n_negative
    table = {"threshold": shown, "tp": cells.tp, "fp": cells.fp, "fn": cells.fn, "tn": cells.tn}
    rated = cells
    if prevalence is not None:  # the shares of the four outcomes at that prevalence (they sum to 1)
        pos, neg = float(n_positive), float(n_negative)
        rated = Cells(np.asarray(cells.tp, dtype=np.float64) / pos * prevalence,
                      np.asarray(cells.fp, dtype=np.float64) / neg * (1.0 - prevalence),
                      np.asarray(cells.fn, dtype=np.float64) / pos * prevalence,
                      np.asarray(cells.tn, dtype=np.float64) / neg * (1.0 - prevalence))
    with np.errstate(invalid="ignore", divide="ignore"):
        for name in ("recall", "fpr", "precision", "specificity", "npv", "accuracy", "f1", "youden_j", "mcc"):
            moves = name not in ("recall", "fpr", "specificity", "youden_j")  # the rates do not move
            table[name] = np.asarray(BINARY_METRICS[name].compute(rated if moves else cells), dtype=np.float64)
        table["expected_cost"] = cost_at(costs, deployment_prevalence if prevalence is None else prevalence,
                                         table["fpr"], table["recall"])
    table["predicted_positive"] = (cells.tp + cells.fp) / n if prevalence is None else rated.tp + rated.fp
    return table


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
    options: Options | None = None,
    *,
    threshold: float | None = None,
    costs: Costs | None = None,
    direction: str = "higher",
    **keywords: Any,
) -> RankingAnalysis:
    """Analyse the scores of a two-class classifier (inputs validated: both classes present).
    With ``roc_bins``, everything is computed on the binned counts
    (:meth:`ScoreCounts.binned`, as Spark's ``numBins``) and is approximate: the
    result says so, with the bound on the AUC's error, ½ Σ_b P_b N_b / (P N) over the
    bins (pairs within a bin count one half; exactly, each counts 0, ½ or 1).

    Parameters
    ----------
    sc : ScoreCounts
    options : Options, optional
        The options of the evaluation (:class:`assay.evaluation.options.Options`; keywords named as its
        fields build or change it): the confidence, the AUC's interval and the bootstrap, the deployment
        ``prevalence`` (default: the test data's, for expected costs and the iso-performance slope), the
        partial AUC's ``fpr_range`` and ``sensitivity_range`` (raw and standardised, McClish, with bootstrap
        intervals), ``lift_depth``, the operating points ``at_specificity`` and ``at_sensitivity``,
        ``constraints`` (best thresholds under constraints such as ``"precision>=0.8"``), ``roc_band`` and
        ``roc_bins``.
    threshold : float, optional
        The threshold used for the confusion matrix (in the summary's units), to place it in ROC space.
    costs : Costs, optional
        Costs of the outcomes, for the least-cost threshold and the iso-performance slope (default:
        ``options.costs``, else each error costs 1; a two-class cost matrix's cells are given here).
    direction : {"higher", "lower"}
        "lower": ``sc`` summarises the negated scores (lower scores mean the positive class), and
        every threshold is given and shown in the scores' own units (positive iff score <= it).
    """
    options = options_from(options, keywords)
    costs = options.threshold_costs if costs is None else costs
    confidence, bootstrap, auc_interval = options.confidence, options.settings, options.auc_interval
    deployment_prevalence, fpr_range, sensitivity_range = options.prevalence, options.fpr_range, \
        options.sensitivity_range
    lift_depth, roc_bins, constraints, roc_band = options.lift_depth, options.roc_bins, options.constraints, \
        options.roc_band
    at_specificity, at_sensitivity = options.at_specificity, options.at_sensitivity
    approximation = None
    if roc_bins is not None:
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
    weighted = sc.positives.dtype.kind == "f"

    prevalence = n_pos / (n_pos + n_neg)
    pi = prevalence if deployment_prevalence is None else float(deployment_prevalence)
    source = "test data" if deployment_prevalence is None else "given"
    def cost_of(fpr: np.ndarray, tpr: np.ndarray) -> np.ndarray:
        return cost_at(costs, pi, fpr, tpr)

    # the metrics that reduce over the distinct scores share one walk of them (both cores); the best
    # thresholds' walk too: no curve-long array is held
    criteria = [("youden", lambda fpr, tpr: tpr - fpr, "max"),
                ("closest_to_corner", lambda fpr, tpr: np.hypot(fpr, 1.0 - tpr), "min"),
                ("min_expected_cost", cost_of, "min")]
    dl, (ap, trapezoid), found, hull = walk_summary(sc, [DeLongFold(confidence), PrFold(),
                                                         BestFold(tuple((o, b) for _, o, b in criteria)),
                                                         HullFold(thresholds=True)])
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

    ap_est = Estimate(ap, None, None, WEIGHTED) if weighted else _logit_estimate(ap, n_pos, confidence)
    pr_est = Estimate(trapezoid, None, None, WEIGHTED) if weighted else _logit_estimate(trapezoid, n_pos, confidence)

    pr_at = None
    if deployment_prevalence is not None:
        pr_at = _pr_at_prevalence(sc, tc, float(deployment_prevalence), confidence, bootstrap, weighted)
    partial = None if fpr_range is None else _partial(sc, tc, fpr_range, "fpr", confidence, bootstrap, weighted)
    partial_se = None if sensitivity_range is None else \
        _partial(sc, tc, sensitivity_range, "sensitivity", confidence, bootstrap, weighted)

    hull_index = hull.index
    youden, corner, cheapest = choices_of(tc, criteria, found)
    regret_fp, regret_fn = costs.fp - costs.tn, costs.fn - costs.tp
    if not (math.isfinite(regret_fp) and math.isfinite(regret_fn)):  # beyond the largest double: both halved
        regret_fp, regret_fn = costs.fp / 2 - costs.tn / 2, costs.fn / 2 - costs.tp / 2
    slope = iso_performance_slope(cost_fp=regret_fp, cost_fn=regret_fn, negatives=1 - pi, positives=pi) \
        if costs.fn > costs.tp else math.inf
    hth, hf, ht = hull.thresholds, hull.fp / n_neg, hull.tp / n_pos
    opt = optimal_point(hf, ht, slope)
    optimal = ThresholdChoice("iso_performance", float(hth[opt.index]), opt.fpr, opt.tpr,
                              float(cost_of(np.array([opt.fpr]), np.array([opt.tpr]))[0]),
                              1 if opt.tied_with is None else 2)
    if opt.tied_with is not None:
        notes.append(
            f"the iso-performance line lies along a hull edge: every mix of the thresholds "
            f"{own_units(hth[opt.index], direction):g} and {own_units(hth[opt.tied_with], direction):g} is equally good"
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

    points = operating_points_of(sc, tc, at_specificity, at_sensitivity, confidence, bootstrap, weighted)
    result = RankingAnalysis(
        operating_points=points,
        summary=sc, confidence=confidence, roc_auc=roc_auc, gini=gini, average_precision=ap_est, pr_auc=pr_est,
        partial_auc=partial, partial_auc_sensitivity=partial_se, pr_at_prevalence=pr_at, hull_index=hull_index,
        hull_vertices=hull,
        constrained=tuple(constrained(tc, c, confidence, weighted) for c in constraint_list(constraints)),
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


def _pr_at_prevalence(sc: ScoreCounts, tc: ThresholdCounts, prevalence: float, confidence: float,
                      bootstrap: BootstrapSettings, weighted: bool) -> dict[str, Any]:
    """Average precision and the PR area where the classifier will be used: the precision of each threshold's
    rates at that prevalence (Bayes' rule), with stratified bootstrap intervals."""

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
            estimates[key] = Estimate(value, None, None, too_many(len(sc), bootstrap.resamples))
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
        notes.append(too_many(len(sc), bootstrap.resamples))
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


def _logit_estimate(value: float, n_pos: float, confidence: float) -> Estimate:
    ci = logit_interval(value, n_pos, confidence=confidence)
    if ci is None:
        return Estimate(value, None, "logit", "no interval: the area is 0 or 1")
    return Estimate(value, ci, "logit")


