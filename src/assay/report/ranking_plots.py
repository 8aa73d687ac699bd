"""The curves of a ranking, drawn with matplotlib: ROC (with its convex hull, the reference classifiers and
the iso-performance line), precision-recall, cumulative gains and lift.

One model or several on one plane; an evaluation of k > 2 classes' probabilities draws one curve per class
against the rest (Fawcett 2006, section 9).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal, get_args

import numpy as np

from assay.errors import InvalidInput
from assay.evaluation.hull import combined_hull
from assay.inference.estimate import ConfidenceInterval, Estimate
from assay.metrics.roc_space import REFERENCE_CLASSIFIERS
from assay.report.drawing import draw_line, literal_text, new_axes, short_number, unit_axes
from assay.report.plotted import class_ranking, plotted_models, ranking_or_reason

__all__ = ["LIFT_KINDS", "LiftKind", "plot_lift", "plot_pr", "plot_roc", "unit_square_segment"]


LiftKind = Literal["gains", "lift"]
LIFT_KINDS: tuple[str, ...] = get_args(LiftKind)


_REFERENCE_TEXT = {
    # name in REFERENCE_CLASSIFIERS: (label, text offset in points, horizontal alignment, vertical alignment)
    "always_negative": ("always negative", (5, 4), "left", "bottom"),
    "always_positive": ("always positive", (-5, -4), "right", "top"),
    "ideal": ("ideal", (5, -4), "left", "top"),
    "always_wrong": ("always wrong", (-5, 4), "right", "bottom"),
}


def _predicted_point(result: Any, name: str | None) -> tuple[float, float] | None:
    """(FPR, TPR) of a model's predicted labels of two classes, when they come from no threshold (the
    model's own predict(), as in validate), else None."""
    entry = dict(plotted_models(result)).get(name)
    confusion = getattr(entry, "confusion", None)
    if confusion is None or getattr(entry, "threshold", None) is not None or len(confusion.labels) != 2:
        return None
    try:
        fpr, tpr = entry["fpr"].value, entry["recall"].value
    except (KeyError, TypeError, AttributeError):
        return None
    return None if fpr is None or tpr is None else (float(fpr), float(tpr))


def _class_curves(ranking: Any, ax: Any, kind: str) -> Any:
    """One curve per class against the rest (Fawcett 2006, section 9), its AUC or AP in the legend; a class
    with no actual instance has none. Colours cycle through matplotlib's ten, dashed the second time."""
    ax = new_axes(ax)
    if kind == "roc":
        ax.plot([0.0, 1.0], [0.0, 1.0], ls=":", color="0.5", lw=1, label="random classifiers")
    for i, (label, curve) in enumerate(ranking.curves(kind).items()):
        style = dict(color=f"C{i % 10}", lw=1.4, ls="-" if i < 10 else "--")
        if kind == "roc":
            draw_line(ax, curve["fpr"], curve["tpr"], label=f"{label} (AUC {ranking.per_class[label].value:.3f})",
                      **style)
        else:
            recall = np.concatenate(([0.0], curve["recall"]))
            precision = np.concatenate((curve["precision"][:1], curve["precision"]))
            draw_line(ax, recall, precision, drawstyle="steps-pre",
                      label=f"{label} (AP {ranking.average_precision[label].value:.3f})", **style)
    if kind == "roc":
        unit_axes(ax, "False positive rate (1 − specificity)", "True positive rate (sensitivity)")
        h = ranking.hand_till.value
        ax.set_title("ROC curves, each class against the rest" + (f": Hand & Till's M {h:.3f}" if h is not None
                                                                     else ""), fontsize="medium")
        ax.legend(loc="lower right", fontsize="small")
    else:
        unit_axes(ax, "Recall (sensitivity)", "Precision (positive predictive value)")
        ax.set_ylim(0.0, 1.02)
        m = ranking.average_precision_macro
        ax.set_title("Precision-recall curves, each class against the rest"
                     + (f": macro AP {m.value:.3f}" if m is not None and m.value is not None else ""),
                     fontsize="medium")
        ax.legend(loc="lower left", fontsize="small")
    return ax


def _rankings(result: Any, what: str) -> tuple[list[tuple[str | None, Any]], list[str]]:
    """Every model with a two-class ranking, and the names of those left out.

    Raises InvalidInput when no model has one.
    """
    entries = plotted_models(result)
    found, skipped, reasons = [], [], []
    for name, entry in entries:
        ranking, reason = ranking_or_reason(entry, what)
        if ranking is None:
            skipped.append(name)
            reasons.append(reason if name is None else f"{name!r}: {reason}")
        else:
            found.append((name, ranking))
    if not found:
        if len(entries) == 1:
            raise InvalidInput(reasons[0])
        raise InvalidInput(f"{what} needs scores of two classes, and no model has them: " + "; ".join(reasons))
    return found, [s for s in skipped if s is not None]


def _positive_text(entries: Sequence[tuple[str | None, Any]]) -> str:
    positives = {getattr(entry, "positive", None) for _, entry in entries}
    if len(positives) == 1 and None not in positives:
        return f" (positive class {next(iter(positives))!r})"
    return ""


def unit_square_segment(x0: float, y0: float, slope: float) -> tuple[list[float], list[float]]:
    """The part of the line through (x0, y0) with this slope that lies in the unit square."""
    if math.isinf(slope):
        return [x0, x0], [0.0, 1.0]
    low, high = 0.0, 1.0
    if slope != 0.0:
        at_bottom, at_top = x0 - y0 / slope, x0 + (1.0 - y0) / slope
        low, high = max(low, min(at_bottom, at_top)), min(high, max(at_bottom, at_top))
    return [low, high], [y0 + slope * (low - x0), y0 + slope * (high - x0)]


@literal_text
def plot_roc(
    result: Any,
    ax: Any = None,
    *,
    hull: bool = True,
    references: bool = True,
    operating_point: bool = True,
    iso_performance: bool = True,
    label: str | None = None,
    band: bool | None = None,
) -> Any:
    """Draw the exact ROC curve, its convex hull, the reference classifiers and the operating point.

    Parameters
    ----------
    result : Evaluation, RankingAnalysis, Validation or Comparison
        An evaluation of two classes with scores, a ranking, or several models
        (every model with scores on one plane, each labelled with its AUC;
        models without scores are named in the legend's title). An evaluation of
        probabilities of k > 2 classes: one curve per class against the rest,
        each labelled with its AUC (the other options do not apply).
    ax : matplotlib Axes, optional
        Where to draw; a new figure's axes when None.
    hull : bool, default True
        Draw the ROC convex hull, dashed (of the curve; with several models,
        their combined hull, ``assay.combined_hull``).
    references : bool, default True
        Draw the random classifiers' diagonal and mark the corners of ROC
        space (Fawcett 2006): always negative (0, 0), always positive (1, 1),
        ideal (0, 1), always wrong (1, 0).
    operating_point : bool, default True
        Mark the point of the threshold the confusion matrix used.
    iso_performance : bool, default True
        Draw the iso-performance line of slope ``ranking.slope`` (costs and
        deployment prevalence) through the optimal hull point, within the unit
        square.
    label : str, optional
        The curve's name for one model (default "ROC"); several models are
        named by their names.
    band : bool, optional
        Shade the ROC confidence band (the sensitivity's stratified bootstrap
        interval at each specificity, as pROC's ``ci.se``): the one computed with
        ``roc_band=True``, or, with True, computed now (2000 resamples, seed 0).
        Default: drawn when the result holds one.

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    InvalidInput
        When no model has scores of two classes.

    Notes
    -----
    The curve joins the points of ``ranking.roc()`` (one per distinct
    threshold, from (0, 0)) with straight lines: a group of tied scores is a
    diagonal segment, whose area is the half counted by the AUC.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from assay import rank
    >>> r = rank([1, 1, 0, 0, 1, 0], y_score=[0.9, 0.8, 0.7, 0.6, 0.3, 0.2])
    >>> ax = Figure().subplots()
    >>> plot_roc(r, ax) is ax
    True
    >>> [line.get_label() for line in ax.get_lines() if not line.get_label().startswith("_")][:3]
    ['random classifiers', 'ROC (AUC 0.778)', 'ROC convex hull']
    """
    classes = class_ranking(result)
    if classes is not None:  # k > 2 classes: one curve per class against the rest
        return _class_curves(classes, ax, "roc")
    scored, skipped = _rankings(result, "ROC")
    ax = new_axes(ax)
    several = len(scored) > 1 or scored[0][0] is not None
    if references:
        ax.plot([0.0, 1.0], [0.0, 1.0], ls=":", color="0.5", lw=1, label="random classifiers")
        for key, (x, y) in REFERENCE_CLASSIFIERS.items():
            text, offset, ha, va = _REFERENCE_TEXT[key]
            ax.plot([x], [y], "s", color="0.3", ms=5, clip_on=False, zorder=4)
            ax.annotate(text, (x, y), xytext=offset, textcoords="offset points", ha=ha, va=va, fontsize="small",
                        color="0.3")
    for i, (name, ranking) in enumerate(scored):
        color = f"C{i}"
        roc = ranking.roc()
        title = name if several else (label or "ROC")
        draw_line(ax, roc["fpr"], roc["tpr"], "-", color=color, lw=1.6,
                  label=f"{title} (AUC {'≈ ' if ranking.approximation else ''}{ranking.roc_auc.value:.3f}"
                        f"{', binned' if ranking.approximation else ''})")
        shown = ranking.band if band is None else (ranking.band or ranking.roc_band()) if band else None
        if shown is not None:
            ax.fill_between(shown["fpr"], shown["low"], shown["high"], color=color, alpha=0.15, lw=0,
                            label=f"{shown['confidence'] * 100:g}% confidence band")
        if hull and not several:
            h = ranking.hull()
            ax.plot(h["fpr"], h["tpr"], "--", color=color, lw=1.2, label="ROC convex hull")
        if operating_point and ranking.operating_point is not None:
            op = ranking.operating_point
            where = f"{name} at threshold" if several else "operating point, threshold"
            ax.plot([op.fpr], [op.tpr], "o", color=color, mec="black", ms=7, zorder=5, clip_on=False,
                    label=f"{where} {short_number(op.threshold)}")
        elif operating_point and (point := _predicted_point(result, name)) is not None:
            # labels of the model's own (predict(), as validate uses): their point in ROC space, no threshold
            ax.plot([point[0]], [point[1]], "o", color=color, mec="black", ms=7, zorder=5, clip_on=False,
                    label=f"{name} as predicted" if several else "as predicted")
    combined = None
    if several and (hull or iso_performance):
        combined = combined_hull({name: ranking for name, ranking in scored})
        if hull:
            ax.plot([v.fpr for v in combined.vertices], [v.tpr for v in combined.vertices], "--", color="0.2",
                    lw=1.2, label="combined ROC convex hull")
    if iso_performance:
        slopes = {ranking.slope for _, ranking in scored}
        if len(slopes) == 1:  # several models scored under other conditions have no common line
            slope = slopes.pop()
            if combined is None:
                best = scored[0][1].optimal
                x0, y0, text = best.fpr, best.tpr, f"optimal threshold {short_number(best.threshold)}"
            else:
                vertex, _ = combined.optimal(slope)
                x0, y0 = vertex.fpr, vertex.tpr
                text = f"optimal: {vertex.classifier or 'a corner'} at threshold {short_number(vertex.threshold)}"
            xs, ys = unit_square_segment(x0, y0, slope)
            ax.plot(xs, ys, "-.", color="C3", lw=1, label=f"iso-performance line (slope {short_number(slope)})")
            ax.plot([x0], [y0], "*", color="C3", ms=11, mec="black", zorder=6, clip_on=False, label=text)
    unit_axes(ax, "False positive rate (1 − specificity)", "True positive rate (sensitivity)")
    ax.set_title("ROC curve" + _positive_text(plotted_models(result)))
    ax.legend(loc="lower right", bbox_to_anchor=(1.0, 0.06), fontsize="small",
              title=f"no scores: {', '.join(skipped)}" if skipped else None, title_fontsize="small")
    return ax


@literal_text
def plot_pr(result: Any, ax: Any = None) -> Any:
    """Draw the precision-recall curve as the steps average precision sums, and the prevalence baseline.

    Parameters
    ----------
    result : Evaluation, RankingAnalysis, Validation or Comparison
        As for :func:`plot_roc`.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes

    Notes
    -----
    Average precision is AP = Σ (R_n − R_{n−1}) P_n over the points of
    ``ranking.pr()`` (increasing recall R, from R = 0): the curve holds the
    precision P_n over each recall interval (R_{n−1}, R_n] (``steps-pre``) and
    starts at recall 0 at the first point's precision, so the area under the
    drawn steps is AP. A random classifier's precision is the prevalence at
    every recall: the baseline. With a deployment prevalence π given to the
    analysis (``prevalence=``, ``--prevalence``), the curve is drawn where the
    classifier will be used: each threshold's precision TPR·π / (TPR·π +
    FPR·(1 − π)), its average precision (``ranking.pr_at_prevalence``), and the
    baseline at π (ROC curves do not move with the class balance; PR curves
    do: Fawcett 2006).

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from assay import rank
    >>> r = rank([1, 1, 0, 0, 1, 0], y_score=[0.9, 0.8, 0.7, 0.6, 0.3, 0.2])
    >>> ax = plot_pr(r, Figure().subplots())  # AP = (1 + 1 + 3/5) / 3
    >>> ax.get_lines()[0].get_label(), ax.get_lines()[1].get_label()
    ('PR (AP 0.867)', 'baseline (prevalence 0.5)')
    """
    classes = class_ranking(result)
    if classes is not None:  # k > 2 classes: one curve per class against the rest
        return _class_curves(classes, ax, "pr")
    scored, skipped = _rankings(result, "a precision-recall curve")
    ax = new_axes(ax)
    several = len(scored) > 1 or scored[0][0] is not None
    curves = [(name, ranking, *_pr_where_used(ranking)) for name, ranking in scored]
    for i, (name, _, at, pr, ap) in enumerate(curves):
        recall = np.concatenate(([0.0], pr["recall"]))
        precision = np.concatenate((pr["precision"][:1], pr["precision"]))
        draw_line(ax, recall, precision, color=f"C{i}", lw=1.6, drawstyle="steps-pre",
                  label=f"{name if several else 'PR'} (AP {ap.value:.3f}"
                        + (f" at prevalence {short_number(at)})" if at is not None else ")"))
    # a random classifier's precision: the prevalence where the curve is drawn (given, or the test data's)
    baselines = [(name, ranking.prevalence if at is None else at, at is not None)
                 for name, ranking, at, _, _ in curves]
    prevalences = list(dict.fromkeys(b for _, b, _ in baselines))
    for j, prevalence in enumerate(prevalences):
        owners = [(name, given) for name, b, given in baselines if b == prevalence]
        owner = ", ".join(str(name) for name, _ in owners) + " " if len(prevalences) > 1 else ""
        where = ", given" if any(given for _, given in owners) else ""
        ax.axhline(prevalence, ls=":", color="0.5" if j == 0 else f"C{j}", lw=1,
                   label=f"{owner}baseline (prevalence {short_number(prevalence)}{where})")
    unit_axes(ax, "Recall (sensitivity)", "Precision (positive predictive value)")
    ax.set_ylim(0.0, 1.02)
    if several:
        ax.set_title("Precision-recall curve" + _positive_text(plotted_models(result)))
    else:
        at, _, ap = _pr_where_used(scored[0][1])
        interval = f" [{ap.ci.low:.3f}, {ap.ci.high:.3f}]" if ap.ci is not None else ""
        where = f" at prevalence {short_number(at)}" if at is not None else ""
        ax.set_title(f"Precision-recall curve: average precision{where} {ap.value:.3f}{interval}"
                     + _positive_text(plotted_models(result)), fontsize="medium")
    ax.legend(loc="lower left", fontsize="small",
              title=f"no scores: {', '.join(skipped)}" if skipped else None, title_fontsize="small")
    return ax


def _pr_where_used(ranking: Any) -> tuple[float | None, dict[str, np.ndarray], Any]:
    """The PR curve and its average precision where the classifier will be used: at the deployment prevalence
    given to the analysis (with that prevalence), else the test data's (None)."""
    at = getattr(ranking, "given_prevalence", None)
    summary = getattr(ranking, "pr_at_prevalence", None)
    if at is None or not summary:
        return None, ranking.pr(), ranking.average_precision

    ap = summary["average_precision"]
    ci = ConfidenceInterval(*ap["ci"]) if ap.get("ci") and None not in ap["ci"] else None
    return at, ranking.pr(at), Estimate(ap["value"], ci, ap.get("method"), ap.get("note"))


@literal_text
def plot_lift(result: Any, ax: Any = None, *, kind: LiftKind = "gains") -> Any:
    """Draw the cumulative gains chart or the lift chart (Witten & Frank, ch. 5).

    Parameters
    ----------
    result : Evaluation, RankingAnalysis, Validation or Comparison
        As for :func:`plot_roc`.
    ax : matplotlib Axes, optional
    kind : {"gains", "lift"}, default "gains"
        ``"gains"``: the share of positives found against the share of
        instances flagged (highest scores first), from (0, 0), with the random
        classifiers' diagonal and the ideal classifier's curve, which finds
        every positive first. ``"lift"``: the lift (precision over prevalence)
        against the depth, with the random classifiers' lift 1 and, for one
        model, the lift reported at ``ranking.lift_depth`` with its interval.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from assay import rank
    >>> r = rank([1, 1, 0, 0, 1, 0], y_score=[0.9, 0.8, 0.7, 0.6, 0.3, 0.2])
    >>> line = plot_lift(r, Figure().subplots()).get_lines()[0]
    >>> line.get_xdata().round(2).tolist(), line.get_ydata().round(2).tolist()
    ([0.0, 0.17, 0.33, 0.5, 0.67, 0.83, 1.0], [0.0, 0.33, 0.67, 0.67, 0.67, 1.0, 1.0])
    """
    if kind not in LIFT_KINDS:
        raise InvalidInput(f"must be one of {', '.join(map(repr, LIFT_KINDS))}, got {kind!r}", field="kind")
    what = "a gains chart" if kind == "gains" else "a lift chart"
    scored, skipped = _rankings(result, what)
    ax = new_axes(ax)
    several = len(scored) > 1 or scored[0][0] is not None
    for i, (name, ranking) in enumerate(scored):
        curve = ranking.lift_curve()
        if kind == "gains":
            draw_line(ax, np.concatenate(([0.0], curve["depth"])), np.concatenate(([0.0], curve["gains"])),
                      color=f"C{i}", lw=1.6, label=name if several else "model")
        else:
            draw_line(ax, curve["depth"], curve["lift"], color=f"C{i}", lw=1.6, label=name if several else "model")
    if kind == "gains":
        ax.plot([0.0, 1.0], [0.0, 1.0], ls=":", color="0.5", lw=1, label="random classifiers")
        for j, prevalence in enumerate(dict.fromkeys(ranking.prevalence for _, ranking in scored)):
            ax.plot([0.0, prevalence, 1.0], [0.0, 1.0, 1.0], "--", color="0.3" if j == 0 else f"C{j}", lw=1,
                    label=f"ideal (prevalence {short_number(prevalence)})")
        unit_axes(ax, "Share of instances flagged (highest scores first)", "Share of positives found")
        ax.set_title("Cumulative gains" + _positive_text(plotted_models(result)))
        loc = "lower right"
    else:
        ax.axhline(1.0, ls=":", color="0.5", lw=1, label="random classifiers (lift 1)")
        if not several:
            ranking = scored[0][1]
            lift = ranking.lift
            # max(0, ...): the interval's ends can miss the value by a rounding error
            yerr = None if lift.ci is None else [[max(0.0, lift.value - lift.ci.low)],
                                                 [max(0.0, lift.ci.high - lift.value)]]
            ax.errorbar([ranking.lift_depth], [lift.value], yerr=yerr, fmt="o", color="C3", capsize=3, zorder=5,
                        label=f"lift at depth {short_number(ranking.lift_depth)}: {lift.value:.2f}")
        top = max(float(np.nanmax(ranking.lift_curve()["lift"])) for _, ranking in scored)
        ax.set_xlim(0.0, 1.0)
        ax.set_ylim(0.0, max(top, 1.0) * 1.08)
        ax.set_xlabel("Depth: share of instances flagged (highest scores first)")
        ax.set_ylabel("Lift (precision / prevalence)")
        ax.set_title("Lift" + _positive_text(plotted_models(result)))
        loc = "upper right"
    ax.legend(loc=loc, fontsize="small", title=f"no scores: {', '.join(skipped)}" if skipped else None,
              title_fontsize="small")
    return ax
