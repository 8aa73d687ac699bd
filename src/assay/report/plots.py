"""Plots of assay's results, drawn with matplotlib on a given ``Axes``.

Each ``plot_*`` function draws one figure of a result on ``ax`` (a new figure's
when ``ax`` is None) and returns the ``Axes``, as scikit-learn's display objects
do. They render, never compute: every number drawn is one the result already
holds (``RankingAnalysis.roc()``, ``.hull()``, ``.pr()``, ``.lift_curve()``,
``.threshold_table()``, the calibration table, the confusion counts, the
per-fold errors), so a plot and the JSON report always agree.

The results accepted:

* ``Evaluation`` (``assay.evaluate``) and ``RankingAnalysis`` (``assay.rank``):
  one model;
* ``Validation`` (``assay.validate``) and ``Comparison`` (``assay.compare``):
  several models; the curves (ROC, PR, gains, lift) put every model with scores
  on one plane, the single-model plots (calibration, confusion, cost) take
  ``model=`` to say which;
* ``GroupedEvaluation`` (``assay.evaluate(..., by=...)``): ``save_plots`` writes
  all the instances' plots and the plots by group
  (:mod:`~assay.report.group_plots`: each metric by group, each group's ROC curve).

This module is the plots' one place to import from: each figure lives in a
module of its own (:mod:`~assay.report.ranking_plots` for ROC, precision-recall,
gains and lift; :mod:`~assay.report.calibration_plot`;
:mod:`~assay.report.confusion_plot`; :mod:`~assay.report.cost_plot`;
:mod:`~assay.report.folds_plot`; what they share in
:mod:`~assay.report.plotted` and :mod:`~assay.report.drawing`), and ``save_plots`` here writes every plot that
applies as SVG and PNG.

matplotlib is imported inside the functions only: importing this module, or
assay, never imports it.
"""

from __future__ import annotations

import os
import re
from typing import Any

from assay.evaluation.groups import GroupedEvaluation
from assay.evaluation.result import Evaluation
from assay.evaluation.validation import Validation
from assay.report.calibration_plot import plot_calibration
from assay.report.confusion_plot import (
    CONFUSION_NORMALIZATIONS,
    ConfusionNormalization,
    plot_confusion,
)
from assay.report.cost_plot import plot_cost
from assay.report.decision_plot import plot_decision_curve
from assay.report.drawing import PLOT_FORMATS, write_figures
from assay.report.folds_plot import plot_folds
from assay.report.group_plots import group_plan, plot_metric_by_group, plot_roc_by_group
from assay.report.plotted import class_ranking, plotted_models, ranking_or_reason
from assay.report.ranking_plots import (
    LIFT_KINDS,
    LiftKind,
    plot_lift,
    plot_pr,
    plot_roc,
)
from assay.report.ranking_plots import unit_square_segment as _unit_square_segment  # noqa: F401 (the old name)

__all__ = [
    "CONFUSION_NORMALIZATIONS",
    "LIFT_KINDS",
    "PLOT_FORMATS",
    "ConfusionNormalization",
    "LiftKind",
    "plot_calibration",
    "plot_decision_curve",
    "plot_confusion",
    "plot_cost",
    "plot_folds",
    "plot_lift",
    "plot_metric_by_group",
    "plot_pr",
    "plot_roc",
    "plot_roc_by_group",
    "save_plots",
    "write_figures",
]


def _file_part(name: str | None) -> str:
    return "" if name is None else "-" + (re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "model")


def _plan(result: Any) -> list[tuple[str, Any, tuple[float, float]]]:
    """(file stem, how to draw on an Axes, figure size) of every plot that applies to the result."""
    if isinstance(result, GroupedEvaluation):  # all the instances' plots, then the plots by group
        return _plan(result.overall) + group_plan(result)
    entries = plotted_models(result)
    several = entries[0][0] is not None
    scored = [name for name, entry in entries if ranking_or_reason(entry, "")[0] is not None]
    plan: list[tuple[str, Any, tuple[float, float]]] = []
    if scored:
        plan += [
            ("roc", lambda ax: plot_roc(result, ax), (6.4, 6.4)),
            ("pr", lambda ax: plot_pr(result, ax), (6.4, 6.4)),
            ("gains", lambda ax: plot_lift(result, ax, kind="gains"), (6.4, 6.4)),
            ("lift", lambda ax: plot_lift(result, ax, kind="lift"), (6.4, 4.8)),
        ]
    elif class_ranking(result) is not None:
        plan += [("roc", lambda ax: plot_roc(result, ax), (6.4, 6.4)),
                 ("pr", lambda ax: plot_pr(result, ax), (6.4, 6.4))]
    for name, entry in entries:
        model = name if several else None
        if getattr(getattr(entry, "probabilistic", None), "calibration", None) is not None:
            plan.append(("calibration" + _file_part(name),
                         lambda ax, m=model: plot_calibration(result, ax, model=m), (6.4, 6.4)))
    for name, entry in entries:
        model = name if several else None
        if getattr(entry, "net_benefit", None) is not None:
            plan.append(("decision" + _file_part(name),
                         lambda ax, m=model: plot_decision_curve(result, ax, model=m), (6.4, 4.8)))
    for name, entry in entries:
        model = name if several else None
        if isinstance(entry, Evaluation) and entry.thresholded:
            side = max(4.8, 1.0 * len(entry.labels) + 2.4)
            plan.append(("confusion" + _file_part(name),
                         lambda ax, m=model: plot_confusion(result, ax, model=m), (side, side)))
    for name in scored:
        model = name if several else None
        plan.append(("cost" + _file_part(name), lambda ax, m=model: plot_cost(result, ax, model=m), (6.4, 4.8)))
    if isinstance(result, Validation):
        plan.append(("folds", lambda ax: plot_folds(result, ax), (max(4.8, 1.6 * len(result.models) + 2), 4.8)))
    return plan


def save_plots(result: Any, directory: str | os.PathLike[str]) -> list[str]:
    """Write every plot that applies to the result as SVG and PNG files in ``directory``.

    Parameters
    ----------
    result : Evaluation, RankingAnalysis, Validation, Comparison or GroupedEvaluation
    directory : path
        Created if missing. Existing files of the same names are replaced.

    Returns
    -------
    list of str
        The paths written, ``<plot>.svg`` then ``<plot>.png`` for each plot in
        this order: roc, pr, gains, lift (with two-class scores), calibration
        (with probabilities), decision (with ``net_benefit``), confusion (evaluations), cost (with two-class
        scores), folds (a Validation). For several models the single-model
        plots are written once per model, as ``confusion-<model>``. A report
        by group (``GroupedEvaluation``): the plots of all the instances, as
        above, then each metric by group that applies, ``by-group-<metric>``
        (accuracy, recall, fpr, detection_prevalence, roc_auc: those with at
        least two values), and ``roc-by-group`` with two-class scores (see
        :mod:`~assay.report.group_plots`).

    Notes
    -----
    Each file is written to a temporary file in the directory, then renamed
    over its name, so that a reader never sees half a plot. The figures are
    ``matplotlib.figure.Figure`` objects outside pyplot: no GUI backend is
    touched and nothing is left open. SVG files carry no date, so the same
    result gives the same files.
    """
    return write_figures(_plan(result), directory)
