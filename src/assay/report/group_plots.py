"""The plots of a report by group (``assay.evaluate(..., by=...)``, ``assay report --by``), drawn with matplotlib.

What the HTML report draws by group, as files: each metric by group with its interval ("(all)" first, then
the largest groups, at most :data:`MOST_GROUPS`), and with two-class scores each group's ROC curve on one
plane (the largest :data:`ROC_GROUPS`). They render, never compute: every value is a group's own evaluation's
(its metric's ``Estimate``, its ranking's ``roc()`` and ``roc_auc``), so a plot, the HTML page and the JSON
agree. A value that is undefined for a group (a group not evaluated, one class only: no AUC) is left out and
named, never drawn as 0.

Group labels reach the plots as text only (tick labels, the legend), shown as written; the file names are
fixed (``by-group-<metric>``, ``roc-by-group``).
"""

from __future__ import annotations

import math
from typing import Any

from assay.errors import InvalidInput
from assay.evaluation.groups import GroupedEvaluation
from assay.inference.estimate import Estimate
from assay.report.drawing import draw_line, literal_text, new_axes, unit_axes
from assay.report.plotted import ranking_or_reason

__all__ = ["GROUP_METRICS", "IDEAL", "MOST_GROUPS", "PROPORTIONS", "ROC_GROUPS", "group_plan", "group_points",
           "group_range", "plot_metric_by_group", "plot_roc_by_group"]

GROUP_METRICS: dict[str, tuple[str, bool]] = {
    "accuracy": ("Accuracy", True),
    "recall": ("True positive rate", True),
    "fpr": ("False positive rate", True),
    "detection_prevalence": ("Selection rate", True),
    "roc_auc": ("ROC AUC", False),
    "brier": ("Brier score", False),
    "observed_expected": ("Observed / expected events", False),
    "calibration_slope": ("Calibration slope", False),
}
"""The metrics drawn by group, as the HTML report draws them: name -> (title, shown as a percentage). The
metrics of predicted labels need labels (accuracy) or two classes (the rates); the AUC needs two-class scores;
the Brier score probabilities; observed / expected events and the calibration slope two-class probabilities
(or ``calibration_class``'s).
A metric is drawn when at least two of "(all)" and the groups have a value."""

IDEAL = {"observed_expected": 1.0, "calibration_slope": 1.0}
"""The value of perfect calibration, drawn as a dashed line in the charts of these metrics."""

PROPORTIONS = ("accuracy", "recall", "fpr", "detection_prevalence", "roc_auc")
"""The metrics within [0, 1], drawn on that scale; the others on the span of their values, intervals and ideal."""


def group_range(metric: str, found: list[tuple[str, Estimate]]) -> tuple[float, float]:
    """The value axis of a chart of ``metric`` by group, for the points ``found`` (:func:`group_points`): [0, 1]
    for a proportion or an AUC, else the span of the values, the intervals and the ideal, a little wider (from 0
    when that span is within [0, 1], as a Brier score's)."""
    if metric in PROPORTIONS:
        return 0.0, 1.0
    ends = [float(v) for _, e in found for v in (e.value, *((e.ci.low, e.ci.high) if e.ci is not None else ()))
            if v is not None and math.isfinite(v)]
    if metric in IDEAL:
        ends.append(IDEAL[metric])
    low, high = (min(ends), max(ends)) if ends else (0.0, 1.0)
    if low >= 0.0 and high <= 1.0 and metric not in IDEAL:
        return 0.0, max(high * 1.1, 1e-9)
    pad = 0.08 * (high - low) or 0.5
    return low - pad, high + pad


MOST_GROUPS = 40
"""Groups at most in a chart of a metric by group (the largest), after "(all)"."""

ROC_GROUPS = 10
"""Groups at most whose ROC curves share one plane (the largest); the title says when some are left out."""


def _check(result: Any) -> GroupedEvaluation:
    if not isinstance(result, GroupedEvaluation):
        raise InvalidInput(f"expected a report by group (assay.evaluate(..., by=...)), got a "
                           f"{type(result).__name__}", field="result")
    return result


def _largest(result: GroupedEvaluation) -> list[str]:
    """The groups' labels, the largest first (ties in the labels' order, as the report's tables)."""
    return sorted(result.groups, key=lambda label: -result.sizes[label])


def _estimate(ev: Any, metric: str) -> Estimate | None:
    if ev is None:
        return None
    if metric == "roc_auc":
        return getattr(ev.ranking, "roc_auc", None) if ev.ranking is not None else None
    if metric in ("brier", "observed_expected", "calibration_slope"):
        p = ev.probabilistic
        if p is None:
            return None
        if metric == "brier":
            return p.brier
        h = p.hierarchy
        return None if h is None else (h.observed_expected if metric == "observed_expected" else h.slope)
    return ev.metrics.get(metric) if ev.thresholded else None


def group_points(result: Any, metric: str, *, most: int = MOST_GROUPS) -> tuple[list[tuple[str, Estimate]], list[str]]:
    """The points of a metric by group: ("(all)", its estimate) then each of the ``most`` largest groups with a
    value, as the HTML report's chart has them; and the labels of those groups left out for want of a value
    (not evaluated, or the metric undefined for them)."""
    result = _check(result)
    labels = _largest(result)[:most]
    found, missing = [], []
    for label, ev in [("(all)", result.overall), *((label, result.groups[label]) for label in labels)]:
        e = _estimate(ev, metric)
        if e is not None and e.value is not None:
            found.append((label, e))
        elif label != "(all)":
            missing.append(label)
    return found, missing


def _short(label: str, width: int = 18) -> str:
    return label if len(label) <= width else label[:width - 1] + "…"


def _names(labels: list[str], most: int = 5) -> str:
    return ", ".join(map(repr, labels[:most])) + (f" and {len(labels) - most} more" if len(labels) > most else "")


@literal_text
def plot_metric_by_group(result: Any, metric: str, ax: Any = None) -> Any:
    """Draw one metric by group: each group's value (a dot) with its confidence interval (a bar).

    Parameters
    ----------
    result : GroupedEvaluation
    metric : str
        One of :data:`GROUP_METRICS`.
    ax : matplotlib Axes, optional
        Where to draw; a new figure's axes when None.

    Returns
    -------
    matplotlib Axes
        "(all)" first (black, with a dotted line at its value across the plot), then the largest groups with
        a value (at most :data:`MOST_GROUPS`), at x = 0, 1, 2, ... with the groups' labels as ticks. The
        points are the line labelled "estimate", each interval a line of gid "interval"; the groups without
        a value are named under the axis.
    """
    if metric not in GROUP_METRICS:
        raise InvalidInput(f"no chart by group of {metric!r}: expected one of {', '.join(GROUP_METRICS)}",
                           field="metric")
    result = _check(result)
    title, _ = GROUP_METRICS[metric]
    found, missing = group_points(result, metric)
    ax = new_axes(ax)
    xs = list(range(len(found)))
    values = [float(e.value) for _, e in found]
    for x, (label, e) in zip(xs, found, strict=True):
        if e.ci is not None and e.ci.low is not None and e.ci.high is not None:
            ax.plot([x, x], [e.ci.low, e.ci.high], "-", color="black" if label == "(all)" else "C0", lw=1.5,
                    gid="interval")
    if found and found[0][0] == "(all)":
        ax.axhline(values[0], ls=":", color="0.5", lw=1)
    ax.plot(xs, values, "o", color="C0", ms=6, ls="none", label="estimate", zorder=3)
    if found and found[0][0] == "(all)":
        ax.plot([0], [values[0]], "o", color="black", ms=6, zorder=4)
    ax.set_xticks(xs, [_short(label) for label, _ in found], rotation=45 if len(found) > 6 else 0,
                  ha="right" if len(found) > 6 else "center", fontsize="small")
    ax.set_xlim(-0.6, max(len(found), 1) - 0.4)
    if metric in IDEAL:
        ax.axhline(IDEAL[metric], ls="--", color="0.3", lw=1, gid="ideal")
    ax.set_ylim(*group_range(metric, found))
    ax.set_ylabel(title)
    level = f"{result.confidence * 100:g}%"
    shown = len(result.groups) > MOST_GROUPS
    ax.set_title(f"{title} by {' / '.join(result.by)} ({level} CI)"
                 + (f"; the {MOST_GROUPS} largest of {len(result.groups):,} groups" if shown else ""),
                 fontsize="medium")
    if missing:
        ax.set_xlabel(f"no value: {_names(missing)}", fontsize="small", color="0.3")
    return ax


def _rankings(result: GroupedEvaluation) -> tuple[list[tuple[str, Any]], list[str]]:
    """Each group's two-class ranking with a defined AUC, the largest groups first, and the labels of the groups
    without one (not evaluated, one class only, no scores)."""
    found, missing = [], []
    for label in _largest(result):
        ev = result.groups[label]
        ranking = None if ev is None else ranking_or_reason(ev, "ROC")[0]
        auc = getattr(ranking, "roc_auc", None)
        if ranking is None or auc is None or auc.value is None:
            missing.append(label)
        else:
            found.append((label, ranking))
    return found, missing


def _auc_text(ranking: Any) -> str:
    approx = bool(getattr(ranking, "approximation", False))
    return f"AUC {'≈ ' if approx else ''}{ranking.roc_auc.value:.3f}{', binned' if approx else ''}"


@literal_text
def plot_roc_by_group(result: Any, ax: Any = None, *, most: int = ROC_GROUPS) -> Any:
    """Draw each group's ROC curve on one plane, each with its AUC in the legend, and all the instances' dashed.

    Parameters
    ----------
    result : GroupedEvaluation
        Of two classes with scores.
    ax : matplotlib Axes, optional
    most : int, default ROC_GROUPS
        Groups drawn at most: the largest with a defined AUC; the title says when some are left out.

    Returns
    -------
    matplotlib Axes
        The curves are the groups' ``ranking.roc()`` points joined by straight lines (tied scores a diagonal,
        as the AUC counts them), labelled "<group> (n = N, AUC A)". Groups with no AUC (not evaluated, or one
        class only) are not drawn: the legend's title names them.
    """
    result = _check(result)
    found, missing = _rankings(result)
    overall = ranking_or_reason(result.overall, "ROC")[0]
    ax = new_axes(ax)
    ax.plot([0.0, 1.0], [0.0, 1.0], ls=":", color="0.5", lw=1, label="random classifiers")
    if overall is not None:
        roc = overall.roc()
        draw_line(ax, roc["fpr"], roc["tpr"], "--", color="black", lw=1.2,
                  label=f"(all) (n = {result.overall.n:,}, {_auc_text(overall)})")
    for i, (label, ranking) in enumerate(found[:most]):
        roc = ranking.roc()
        draw_line(ax, roc["fpr"], roc["tpr"], "-", color=f"C{i % 10}", lw=1.4,
                  label=f"{_short(label, 30)} (n = {result.sizes[label]:,}, {_auc_text(ranking)})")
    unit_axes(ax, "False positive rate (1 − specificity)", "True positive rate (sensitivity)")
    positive = result.overall.positive
    title = f"ROC curves by {' / '.join(result.by)}" + (f" (positive class {positive!r})" if positive is not None
                                                        else "")
    if len(found) > most:
        title += f"\nthe {most} largest of {len(found):,} groups with an AUC"
    ax.set_title(title, fontsize="medium")
    ax.legend(loc="lower right", fontsize="small", title=f"no AUC: {_names(missing)}" if missing else None,
              title_fontsize="small")
    return ax


def group_plan(result: Any) -> list[tuple[str, Any, tuple[float, float]]]:
    """(file stem, how to draw on an Axes, figure size) of each plot by group that applies: ``by-group-<metric>``
    for each metric of :data:`GROUP_METRICS` with at least two values, then ``roc-by-group`` with two-class
    scores (all the instances' ranking and at least one group's)."""
    result = _check(result)
    plan: list[tuple[str, Any, tuple[float, float]]] = []
    for metric in GROUP_METRICS:
        found, _ = group_points(result, metric)
        if len(found) >= 2:
            plan.append((f"by-group-{metric}", lambda ax, m=metric: plot_metric_by_group(result, m, ax),
                         (max(4.8, 0.45 * len(found) + 2.0), 4.8)))
    if ranking_or_reason(result.overall, "ROC")[0] is not None and _rankings(result)[0]:
        plan.append(("roc-by-group", lambda ax: plot_roc_by_group(result, ax), (6.4, 6.4)))
    return plan
