"""The decision curve of an evaluation: net benefit at threshold probabilities, from its score summary.

One function for every engine: the counts the curve needs are walked from the two-class score summary (in memory,
spilled to disk, or on Spark's executors, :class:`assay.metrics.decision.DecisionBinsFold`), so the curve is the
same exact one on every path; its intervals resample those counts (:func:`assay.inference.decision.decision_curve`).
Costs, when given, are a threshold probability too (false positives costing ``fp`` and false negatives ``fn``
make ``pt = fp / (fp + fn)``): the curve there is given beside the grid.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from assay.errors import InvalidInput
from assay.evaluation.costs import threshold_costs_of
from assay.evaluation.options import Options
from assay.inference.decision import DecisionCurve, decision_curve
from assay.metrics.decision import DecisionBinsFold, costs_threshold
from assay.metrics.ranking import walk_summary, want

__all__ = ["decision_curve_of", "ask_decision_curve", "refuse_decision_curve", "decision_field", "NOT_PROBABILITIES"]

NOT_PROBABILITIES = ("the decision curve needs probabilities of the positive class: {why}")
"""Why a decision curve is refused."""


def decision_field(options: Options) -> str:
    """The option that asked for the decision curve, as errors name it: ``thresholds_range`` when given."""
    return "thresholds_range" if options.thresholds_range is not None else "net_benefit"


def refuse_decision_curve(options: Options, where: str, instead: str) -> None:
    """Refuse ``net_benefit`` (and ``thresholds_range``) where no decision curve is drawn yet, in one line that
    says what to do instead."""
    if options.net_benefit:
        raise InvalidInput(f"no decision curve {where} (not yet): {instead}", field=decision_field(options))


def _folds(options: Options, labels: tuple[str, ...], positive: str | None) -> tuple[list[DecisionBinsFold], Any]:
    """The folds of the curve (the grid, and the costs' threshold probability when costs are given) and the
    costs."""
    folds = [DecisionBinsFold(tuple(options.decision_thresholds.tolist()))]
    costs = None
    if options.costs is not None or options.cost_matrix is not None:
        costs = threshold_costs_of(options.costs, options.cost_matrix, labels, positive)
        at = costs_threshold(costs.fp, costs.fn, costs.tp, costs.tn)
        if at is not None:
            folds.append(DecisionBinsFold((at,)))
    return folds, costs


def ask_decision_curve(summary: Any, options: Options, *, labels: tuple[str, ...], positive: str | None,
                       low: float, high: float, direction: str = "higher") -> None:
    """Check that the decision curve asked for applies (else raise, naming the option) and ask its counts of
    the summary's next walk (:func:`assay.metrics.ranking.want`), so that they share the ranking's walk. Called
    before the ranking analysis; :func:`decision_curve_of` then reads them."""
    if not options.net_benefit:
        return
    _check(options, low, high, direction)
    for fold in _folds(options, labels, positive)[0]:
        want(summary, fold)


def _check(options: Options, low: float, high: float, direction: str) -> None:
    field = decision_field(options)
    if direction == "lower":
        raise InvalidInput(NOT_PROBABILITIES.format(why="lower scores mean the positive class here"), field=field)
    if low < 0.0 or high > 1.0:
        raise InvalidInput(NOT_PROBABILITIES.format(why=f"the scores range from {low:g} to {high:g}"), field=field)


def decision_curve_of(summary: Any, options: Options, *, labels: tuple[str, ...], positive: str | None,
                      low: float, high: float, direction: str = "higher") -> DecisionCurve | None:
    """The decision curve of a two-class score summary when ``options.net_benefit`` asks for it (else None).

    ``low``/``high`` are the scores' range as given and ``direction`` the one the summary was read in: scores
    that are not probabilities of the positive class (outside [0, 1], or lower meaning positive) are refused,
    naming the option, rather than read as probabilities.
    """
    if not options.net_benefit:
        return None
    _check(options, low, high, direction)
    folds, costs = _folds(options, labels, positive)
    counts = walk_summary(summary, folds)  # one walk for the grid and the costs' threshold (or none: asked ahead)
    settings = {"prevalence": options.prevalence, "confidence": options.confidence, "resamples": options.bootstrap,
                    "seed": options.seed}
    curve = decision_curve(*counts[0], np.array(folds[0].thresholds), **settings)
    if costs is None:
        return curve
    cost_values = {"fp": costs.fp, "fn": costs.fn, "tp": costs.tp, "tn": costs.tn}
    at_costs = decision_curve(*counts[1], np.array(folds[1].thresholds), **settings) if len(counts) > 1 else None
    return replace(curve, costs=cost_values, at_costs=at_costs)
