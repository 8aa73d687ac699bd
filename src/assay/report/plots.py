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
  ``model=`` to say which.

``save_plots`` writes every plot that applies as SVG and PNG.

matplotlib is imported inside the functions only: importing this module, or
assay, never imports it.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Sequence
from typing import Any, Literal, get_args

import numpy as np

from assay.errors import InvalidInput

__all__ = [
    "CONFUSION_NORMALIZATIONS",
    "LIFT_KINDS",
    "PLOT_FORMATS",
    "ConfusionNormalization",
    "LiftKind",
    "plot_calibration",
    "plot_confusion",
    "plot_cost",
    "plot_folds",
    "plot_lift",
    "plot_pr",
    "plot_roc",
    "save_plots",
]

LiftKind = Literal["gains", "lift"]
LIFT_KINDS: tuple[str, ...] = get_args(LiftKind)

ConfusionNormalization = Literal["actual", "predicted"]
CONFUSION_NORMALIZATIONS: tuple[str, ...] = get_args(ConfusionNormalization)

PLOT_FORMATS: tuple[str, ...] = ("svg", "png")
"""The files ``save_plots`` writes for each plot, in this order."""

_RASTERIZE_ABOVE = 20_000
"""Curves with more points than this are rasterized inside vector files (SVG), which stay small."""

_REFERENCE_TEXT = {
    # name in REFERENCE_CLASSIFIERS: (label, text offset in points, horizontal alignment, vertical alignment)
    "always_negative": ("always negative", (5, 4), "left", "bottom"),
    "always_positive": ("always positive", (-5, -4), "right", "top"),
    "ideal": ("ideal", (5, -4), "left", "top"),
    "always_wrong": ("always wrong", (-5, 4), "right", "bottom"),
}


# ----------------------------------------------------------------------------
# what a result holds


def _entries(result: Any) -> list[tuple[str | None, Any]]:
    """The models of a result as (name, Evaluation or RankingAnalysis); the name is None for one model."""
    from assay.evaluation.comparison import Comparison
    from assay.evaluation.ranking import RankingAnalysis
    from assay.evaluation.result import Evaluation
    from assay.evaluation.validation import Validation

    if isinstance(result, Validation):
        return [(name, m.report) for name, m in result.models.items()]
    if isinstance(result, Comparison):
        return list(zip(result.names, result.reports, strict=True))
    if isinstance(result, (Evaluation, RankingAnalysis)):
        return [(None, result)]
    raise InvalidInput(
        f"cannot plot a {type(result).__name__}: expected the result of assay.evaluate, assay.rank, "
        "assay.validate or assay.compare",
        field="result",
    )


def _predicted_point(result: Any, name: str | None) -> tuple[float, float] | None:
    """(FPR, TPR) of a model's predicted labels of two classes, when they come from no threshold (the
    model's own predict(), as in validate), else None."""
    entry = dict(_entries(result)).get(name)
    confusion = getattr(entry, "confusion", None)
    if confusion is None or getattr(entry, "threshold", None) is not None or len(confusion.labels) != 2:
        return None
    try:
        fpr, tpr = entry["fpr"].value, entry["recall"].value
    except (KeyError, TypeError, AttributeError):
        return None
    return None if fpr is None or tpr is None else (float(fpr), float(tpr))


def _ranking_or_reason(entry: Any, what: str) -> tuple[Any, str | None]:
    """The entry's two-class RankingAnalysis, or None and why there is none."""
    from assay.evaluation.ranking import RankingAnalysis

    if isinstance(entry, RankingAnalysis):
        return entry.drawable(), None  # a summary on disk: drawn through some of its exact points
    ranking = entry.ranking
    if ranking is None:
        return None, f"{what} needs scores: give y_score or y_proba"
    if not isinstance(ranking, RankingAnalysis):
        return None, (f"{what} needs two classes, got {len(entry.labels)} "
                      f"({', '.join(map(repr, entry.labels))}); with more, assay gives one-vs-rest AUCs only")
    return ranking.drawable(), None


def _class_ranking(result: Any) -> Any:
    """The one-vs-rest ranking of an evaluation of k > 2 classes' probabilities with curves to draw, else None."""
    from assay.evaluation.multiclass_ranking import MulticlassRanking
    from assay.evaluation.result import Evaluation

    if isinstance(result, Evaluation) and isinstance(result.ranking, MulticlassRanking) \
            and result.ranking.curves("roc"):
        return result.ranking
    return None


def _class_curves(ranking: Any, ax: Any, kind: str) -> Any:
    """One curve per class against the rest (Fawcett 2006, section 9), its AUC or AP in the legend; a class
    with no actual instance has none. Colours cycle through matplotlib's ten, dashed the second time."""
    ax = _axes(ax)
    if kind == "roc":
        ax.plot([0.0, 1.0], [0.0, 1.0], ls=":", color="0.5", lw=1, label="random classifiers")
    for i, (label, curve) in enumerate(ranking.curves(kind).items()):
        style = dict(color=f"C{i % 10}", lw=1.4, ls="-" if i < 10 else "--")
        if kind == "roc":
            _line(ax, curve["fpr"], curve["tpr"], label=f"{label} (AUC {ranking.per_class[label].value:.3f})",
                  **style)
        else:
            recall = np.concatenate(([0.0], curve["recall"]))
            precision = np.concatenate((curve["precision"][:1], curve["precision"]))
            _line(ax, recall, precision, drawstyle="steps-pre",
                  label=f"{label} (AP {ranking.average_precision[label].value:.3f})", **style)
    if kind == "roc":
        _unit_axes(ax, "False positive rate (1 − specificity)", "True positive rate (sensitivity)")
        h = ranking.hand_till.value
        ax.set_title("ROC curves, each class against the rest" + (f": Hand & Till's M {h:.3f}" if h is not None
                                                                     else ""), fontsize="medium")
        ax.legend(loc="lower right", fontsize="small")
    else:
        _unit_axes(ax, "Recall (sensitivity)", "Precision (positive predictive value)")
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
    entries = _entries(result)
    found, skipped, reasons = [], [], []
    for name, entry in entries:
        ranking, reason = _ranking_or_reason(entry, what)
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


def _one(result: Any, model: str | None) -> tuple[str | None, Any]:
    """The single model a plot is about: the only one, or the one named by ``model``."""
    entries = _entries(result)
    names = [name for name, _ in entries]
    if model is None:
        if len(entries) > 1:
            raise InvalidInput(f"this result holds {len(entries)} models: name one of "
                               f"{', '.join(map(repr, names))}", field="model")
        return entries[0]
    if len(entries) == 1 and entries[0][0] is None:
        raise InvalidInput(f"this result holds one model: 'model' names one of a Validation's or "
                           f"Comparison's, got {model!r}", field="model")
    for name, entry in entries:
        if name == model:
            return name, entry
    raise InvalidInput(f"no model {model!r}: expected one of {', '.join(map(repr, names))}", field="model")


def _evaluation(entry: Any, what: str) -> Any:
    from assay.evaluation.result import Evaluation

    if not isinstance(entry, Evaluation):
        raise InvalidInput(f"{what} needs an evaluation (assay.evaluate); a ranking (assay.rank) holds the scores "
                           "only")
    return entry


def _positive_text(entries: Sequence[tuple[str | None, Any]]) -> str:
    positives = {getattr(entry, "positive", None) for _, entry in entries}
    if len(positives) == 1 and None not in positives:
        return f" (positive class {next(iter(positives))!r})"
    return ""


def _name(name: str | None, default: str) -> str:
    return default if name is None else name


# ----------------------------------------------------------------------------
# drawing helpers


def _literal_text(plot: Any) -> Any:
    """Draw with matplotlib's mathtext off: class labels and model names are shown as written
    (``$x^$`` would stop the drawing and ``$\\alpha$`` would become a Greek letter)."""
    import functools

    @functools.wraps(plot)
    def draw(*args: Any, **kwargs: Any) -> Any:
        from matplotlib import rc_context

        from matplotlib.text import Text

        with rc_context({"text.parse_math": False}):
            ax = plot(*args, **kwargs)
        for text in ax.findobj(Text):  # the title and axis labels were made with the axes, before
            text.set_parse_math(False)
        for axis in (ax.xaxis, ax.yaxis):  # and tick labels made at drawing time copy the first tick's
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                tick.label1.set_parse_math(False)
                tick.label2.set_parse_math(False)
        return ax

    return draw


def _axes(ax: Any) -> Any:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots()
    return ax


def _line(ax: Any, x: Any, y: Any, *args: Any, **kwargs: Any) -> Any:
    (line,) = ax.plot(x, y, *args, **kwargs)
    if len(np.atleast_1d(x)) > _RASTERIZE_ABOVE:
        line.set_rasterized(True)
    return line


def _fmt(x: float) -> str:
    return f"{x:.3g}" if math.isfinite(x) else ("+inf" if x > 0 else "-inf")


def _unit_square_segment(x0: float, y0: float, slope: float) -> tuple[list[float], list[float]]:
    """The part of the line through (x0, y0) with this slope that lies in the unit square."""
    if math.isinf(slope):
        return [x0, x0], [0.0, 1.0]
    low, high = 0.0, 1.0
    if slope != 0.0:
        at_bottom, at_top = x0 - y0 / slope, x0 + (1.0 - y0) / slope
        low, high = max(low, min(at_bottom, at_top)), min(high, max(at_bottom, at_top))
    return [low, high], [y0 + slope * (low - x0), y0 + slope * (high - x0)]


def _unit_axes(ax: Any, xlabel: str, ylabel: str, *, equal: bool = True) -> None:
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if equal:
        ax.set_aspect("equal")


# ----------------------------------------------------------------------------
# ROC


@_literal_text
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
        Draw the random classifiers' diagonal and mark the corners of seed 000's
        reference classifiers: always negative (0, 0), always positive (1, 1),
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
    from assay.metrics.roc_space import REFERENCE_CLASSIFIERS

    classes = _class_ranking(result)
    if classes is not None:  # k > 2 classes: one curve per class against the rest
        return _class_curves(classes, ax, "roc")
    scored, skipped = _rankings(result, "ROC")
    ax = _axes(ax)
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
        _line(ax, roc["fpr"], roc["tpr"], "-", color=color, lw=1.6,
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
                    label=f"{where} {_fmt(op.threshold)}")
        elif operating_point and (point := _predicted_point(result, name)) is not None:
            # labels of the model's own (predict(), as validate uses): their point in ROC space, no threshold
            ax.plot([point[0]], [point[1]], "o", color=color, mec="black", ms=7, zorder=5, clip_on=False,
                    label=f"{name} as predicted" if several else "as predicted")
    combined = None
    if several and (hull or iso_performance):
        from assay.evaluation.ranking import combined_hull

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
                x0, y0, text = best.fpr, best.tpr, f"optimal threshold {_fmt(best.threshold)}"
            else:
                vertex, _ = combined.optimal(slope)
                x0, y0 = vertex.fpr, vertex.tpr
                text = f"optimal: {vertex.classifier or 'a corner'} at threshold {_fmt(vertex.threshold)}"
            xs, ys = _unit_square_segment(x0, y0, slope)
            ax.plot(xs, ys, "-.", color="C3", lw=1, label=f"iso-performance line (slope {_fmt(slope)})")
            ax.plot([x0], [y0], "*", color="C3", ms=11, mec="black", zorder=6, clip_on=False, label=text)
    _unit_axes(ax, "False positive rate (1 − specificity)", "True positive rate (sensitivity)")
    ax.set_title("ROC curve" + _positive_text(_entries(result)))
    ax.legend(loc="lower right", bbox_to_anchor=(1.0, 0.06), fontsize="small",
              title=f"no scores: {', '.join(skipped)}" if skipped else None, title_fontsize="small")
    return ax


# ----------------------------------------------------------------------------
# precision-recall


@_literal_text
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
    classes = _class_ranking(result)
    if classes is not None:  # k > 2 classes: one curve per class against the rest
        return _class_curves(classes, ax, "pr")
    scored, skipped = _rankings(result, "a precision-recall curve")
    ax = _axes(ax)
    several = len(scored) > 1 or scored[0][0] is not None
    curves = [(name, ranking, *_pr_where_used(ranking)) for name, ranking in scored]
    for i, (name, _, at, pr, ap) in enumerate(curves):
        recall = np.concatenate(([0.0], pr["recall"]))
        precision = np.concatenate((pr["precision"][:1], pr["precision"]))
        _line(ax, recall, precision, color=f"C{i}", lw=1.6, drawstyle="steps-pre",
              label=f"{name if several else 'PR'} (AP {ap.value:.3f}"
                    + (f" at prevalence {_fmt(at)})" if at is not None else ")"))
    # a random classifier's precision: the prevalence where the curve is drawn (given, or the test data's)
    baselines = [(name, ranking.prevalence if at is None else at, at is not None)
                 for name, ranking, at, _, _ in curves]
    prevalences = list(dict.fromkeys(b for _, b, _ in baselines))
    for j, prevalence in enumerate(prevalences):
        owners = [(name, given) for name, b, given in baselines if b == prevalence]
        owner = ", ".join(str(name) for name, _ in owners) + " " if len(prevalences) > 1 else ""
        where = ", given" if any(given for _, given in owners) else ""
        ax.axhline(prevalence, ls=":", color="0.5" if j == 0 else f"C{j}", lw=1,
                   label=f"{owner}baseline (prevalence {_fmt(prevalence)}{where})")
    _unit_axes(ax, "Recall (sensitivity)", "Precision (positive predictive value)")
    ax.set_ylim(0.0, 1.02)
    if several:
        ax.set_title("Precision-recall curve" + _positive_text(_entries(result)))
    else:
        at, _, ap = _pr_where_used(scored[0][1])
        interval = f" [{ap.ci.low:.3f}, {ap.ci.high:.3f}]" if ap.ci is not None else ""
        where = f" at prevalence {_fmt(at)}" if at is not None else ""
        ax.set_title(f"Precision-recall curve: average precision{where} {ap.value:.3f}{interval}"
                     + _positive_text(_entries(result)), fontsize="medium")
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
    from assay.inference.estimate import ConfidenceInterval, Estimate

    ap = summary["average_precision"]
    ci = ConfidenceInterval(*ap["ci"]) if ap.get("ci") and None not in ap["ci"] else None
    return at, ranking.pr(at), Estimate(ap["value"], ci, ap.get("method"), ap.get("note"))


# ----------------------------------------------------------------------------
# gains and lift


@_literal_text
def plot_lift(result: Any, ax: Any = None, *, kind: LiftKind = "gains") -> Any:
    """Draw the cumulative gains chart or the lift chart (seed 002).

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
    ax = _axes(ax)
    several = len(scored) > 1 or scored[0][0] is not None
    for i, (name, ranking) in enumerate(scored):
        curve = ranking.lift_curve()
        if kind == "gains":
            _line(ax, np.concatenate(([0.0], curve["depth"])), np.concatenate(([0.0], curve["gains"])),
                  color=f"C{i}", lw=1.6, label=name if several else "model")
        else:
            _line(ax, curve["depth"], curve["lift"], color=f"C{i}", lw=1.6, label=name if several else "model")
    if kind == "gains":
        ax.plot([0.0, 1.0], [0.0, 1.0], ls=":", color="0.5", lw=1, label="random classifiers")
        for j, prevalence in enumerate(dict.fromkeys(ranking.prevalence for _, ranking in scored)):
            ax.plot([0.0, prevalence, 1.0], [0.0, 1.0, 1.0], "--", color="0.3" if j == 0 else f"C{j}", lw=1,
                    label=f"ideal (prevalence {_fmt(prevalence)})")
        _unit_axes(ax, "Share of instances flagged (highest scores first)", "Share of positives found")
        ax.set_title("Cumulative gains" + _positive_text(_entries(result)))
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
                        label=f"lift at depth {_fmt(ranking.lift_depth)}: {lift.value:.2f}")
        top = max(float(np.nanmax(ranking.lift_curve()["lift"])) for _, ranking in scored)
        ax.set_xlim(0.0, 1.0)
        ax.set_ylim(0.0, max(top, 1.0) * 1.08)
        ax.set_xlabel("Depth: share of instances flagged (highest scores first)")
        ax.set_ylabel("Lift (precision / prevalence)")
        ax.set_title("Lift" + _positive_text(_entries(result)))
        loc = "upper right"
    ax.legend(loc=loc, fontsize="small", title=f"no scores: {', '.join(skipped)}" if skipped else None,
              title_fontsize="small")
    return ax


# ----------------------------------------------------------------------------
# calibration


@_literal_text
def plot_calibration(result: Any, ax: Any = None, *, model: str | None = None) -> Any:
    """Draw the reliability diagram of the calibration table.

    Parameters
    ----------
    result : Evaluation, Validation or Comparison
        An evaluation with probabilities (``y_proba``, or scores within [0, 1]).
    ax : matplotlib Axes, optional
    model : str, optional
        Which model of a Validation or Comparison.

    Returns
    -------
    matplotlib Axes

    Notes
    -----
    One point per non-empty bin: the observed frequency against the mean
    predicted probability, with the bin's Wilson interval; a perfectly
    calibrated model lies on the diagonal. Bars along the bottom show how many
    instances each bin holds, scaled so that the fullest reaches 0.2. The
    title gives the expected calibration error (ECE): the mean over bins of
    |observed − predicted|, weighted by the bins' counts.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from assay import evaluate
    >>> e = evaluate([1, 1, 0, 0], y_score=[0.9, 0.6, 0.3, 0.2], positive=1)
    >>> points = plot_calibration(e, Figure().subplots()).containers[0].lines[0]
    >>> points.get_xdata().tolist(), points.get_ydata().tolist()
    ([0.2, 0.3, 0.6, 0.9], [0.0, 0.0, 1.0, 1.0])
    """
    name, entry = _one(result, model)
    probabilistic = getattr(entry, "probabilistic", None)
    if probabilistic is None:
        raise InvalidInput("a reliability diagram needs probabilities: give y_proba (or scores within [0, 1])")
    table = probabilistic.calibration
    ax = _axes(ax)
    filled = [b for b in table.bins if b.count > 0 and b.mean_predicted is not None]
    ax.plot([0.0, 1.0], [0.0, 1.0], ls=":", color="0.5", lw=1, label="perfect calibration")
    x = np.array([b.mean_predicted for b in filled], dtype=np.float64)
    y = np.array([b.observed for b in filled], dtype=np.float64)
    low = np.array([b.ci.low if b.ci is not None else o for b, o in zip(filled, y, strict=True)])
    high = np.array([b.ci.high if b.ci is not None else o for b, o in zip(filled, y, strict=True)])
    ax.errorbar(x, y, yerr=[np.maximum(y - low, 0.0), np.maximum(high - y, 0.0)], fmt="o-", color="C0", lw=1.4,
                capsize=3, zorder=4,
                label=f"observed frequency ({round(probabilistic.confidence * 100, 1):g}% Wilson interval)")
    if filled:
        most = max(b.count for b in filled)
        ax.bar([b.low for b in table.bins], [0.2 * b.count / most for b in table.bins],
               width=[b.high - b.low for b in table.bins], align="edge", color="C0", alpha=0.2, edgecolor="C0",
               lw=0.5, label=f"instances per bin (fullest: {most:,})")
    _unit_axes(ax, f"Mean predicted probability ({table.target})", "Observed frequency")
    ece = "undefined" if not math.isfinite(table.ece) else f"{table.ece:.3f}"
    ax.set_title(f"Reliability diagram{'' if name is None else ': ' + name} (ECE {ece})")
    ax.legend(loc="upper left", fontsize="small")
    return ax


# ----------------------------------------------------------------------------
# confusion matrix


@_literal_text
def plot_confusion(result: Any, ax: Any = None, *, normalize: ConfusionNormalization | None = "actual",
                   model: str | None = None) -> Any:
    """Draw the confusion matrix as a heatmap of counts, rows actual and columns predicted.

    Parameters
    ----------
    result : Evaluation, Validation or Comparison
    ax : matplotlib Axes, optional
    normalize : {"actual", "predicted"} or None, default "actual"
        Each cell shows its count and its share of the row (``"actual"``: the
        share of the actual class), of the column (``"predicted"``), or the
        count only (None). The colour follows the count.
    model : str, optional
        Which model of a Validation or Comparison.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from assay import evaluate
    >>> e = evaluate(["a", "b", "b", "a"], y_pred=["a", "b", "a", "a"], positive="b")
    >>> ax = plot_confusion(e, Figure().subplots())
    >>> [t.get_text() for t in ax.texts]
    ['2\\n100.0%', '0\\n0.0%', '1\\n50.0%', '1\\n50.0%']
    """
    if normalize is not None and normalize not in CONFUSION_NORMALIZATIONS:
        raise InvalidInput(f"must be one of {', '.join(map(repr, CONFUSION_NORMALIZATIONS))} or None, got "
                           f"{normalize!r}", field="normalize")
    name, entry = _one(result, model)
    evaluation = _evaluation(entry, "a confusion matrix")
    if not evaluation.thresholded:
        raise InvalidInput("scores without a threshold have no confusion matrix: evaluate them with threshold=T")
    counts = np.asarray(evaluation.confusion.counts)
    labels = [str(label) for label in evaluation.confusion.labels]
    k = len(labels)
    shares = None
    if normalize is not None:
        key = "normalized_by_actual" if normalize == "actual" else "normalized_by_predicted"
        shares = np.array(evaluation.analysis.matrices[key], dtype=np.float64)
    ax = _axes(ax)
    image = ax.imshow(counts, cmap="Blues", interpolation="nearest", vmin=0)
    dark = counts.max() / 2.0 if counts.size else 0.0
    size = "medium" if k <= 4 else "small" if k <= 8 else "x-small"
    for i in range(k):
        for j in range(k):
            c = counts[i, j]
            text = f"{int(c):,}" if float(c).is_integer() else f"{c:.4g}"
            if shares is not None:
                share = shares[i, j]
                text += "\n" + ("—" if share is None or not math.isfinite(share) else f"{share * 100:.1f}%")
            ax.text(j, i, text, ha="center", va="center", fontsize=size,
                    color="white" if c > dark else "black")
    ax.set_xticks(range(k), labels)
    ax.set_yticks(range(k), labels)
    ax.set_xlabel("predicted")
    ax.set_ylabel("actual")
    what = {"actual": "; % of each actual class", "predicted": "; % of each predicted class", None: ""}[normalize]
    ax.set_title(f"Confusion matrix{'' if name is None else ': ' + name} (rows actual{what})", fontsize="medium")
    image.set_label("counts")
    return ax


# ----------------------------------------------------------------------------
# cost


@_literal_text
def plot_cost(result: Any, ax: Any = None, *, model: str | None = None) -> Any:
    """Draw the expected cost per instance against the threshold, the least-cost threshold marked.

    Parameters
    ----------
    result : Evaluation, RankingAnalysis, Validation or Comparison
        Scores of two classes; the costs and the deployment prevalence are the
        ones given to ``evaluate`` (by default each error costs 1, at the test
        data's prevalence: the cost is the error rate).
    ax : matplotlib Axes, optional
    model : str, optional
        Which model of a Validation or Comparison.

    Returns
    -------
    matplotlib Axes

    Notes
    -----
    ``ranking.threshold_table()["expected_cost"]`` at each distinct score t
    (positive iff score ≥ t); between two scores the cost is the one at the
    higher, hence the steps. The dotted line is the cost of predicting no
    positive at all (a threshold above every score).

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from assay import rank
    >>> r = rank([1, 1, 0, 0, 1, 0], y_score=[0.9, 0.8, 0.7, 0.6, 0.3, 0.2])
    >>> ax = plot_cost(r, Figure().subplots())
    >>> ax.get_lines()[0].get_ydata().round(3).tolist()
    [0.333, 0.167, 0.333, 0.5, 0.333, 0.5]
    """
    name, entry = _one(result, model)
    ranking, reason = _ranking_or_reason(entry, "a cost curve")
    if ranking is None:
        raise InvalidInput(reason)
    table = ranking.threshold_table()
    none = float(ranking.threshold_table(np.array([np.inf]))["expected_cost"][0])
    ax = _axes(ax)
    _line(ax, table["threshold"], table["expected_cost"], color="C0", lw=1.6, drawstyle="steps-post",
          label="expected cost")
    ax.axhline(none, ls=":", color="0.5", lw=1, label=f"predict no positive ({none:.3g})")
    best = ranking.best["min_expected_cost"]
    ties = f", {best.ties} tied" if best.ties > 1 else ""
    if math.isfinite(best.threshold):
        ax.plot([best.threshold], [best.value], "*", color="C3", ms=12, mec="black", zorder=5,
                label=f"least cost {best.value:.3g} at threshold {_fmt(best.threshold)}{ties}")
    else:
        ax.plot([], [], "*", color="C3", label=f"least cost {best.value:.3g}: predict no positive")
    op = ranking.operating_point
    if op is not None and math.isfinite(op.threshold):
        ax.axvline(op.threshold, ls="--", color="0.3", lw=1, label=f"threshold used {_fmt(op.threshold)}")
    c = ranking.costs
    ax.set_xlabel("Threshold (positive iff score ≥ threshold)")
    ax.set_ylabel("Expected cost per instance")
    ax.set_ylim(bottom=0.0)
    ax.set_title(f"Expected cost{'' if name is None else ': ' + name} (costs FP {c.fp:g}, FN {c.fn:g}, "
                 f"TP {c.tp:g}, TN {c.tn:g}; prevalence {_fmt(ranking.deployment_prevalence)})", fontsize="medium")
    ax.legend(loc="best", fontsize="small")
    return ax


# ----------------------------------------------------------------------------
# folds


@_literal_text
def plot_folds(validation: Any, ax: Any = None) -> Any:
    """Draw each model's error rate per test part (fold, round) with the method's estimate.

    Parameters
    ----------
    validation : Validation
        The result of ``assay.validate``.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes

    Notes
    -----
    One dot per test part (every fold of every repetition, spread sideways in
    part order), a box of their quartiles, and a diamond at the error the
    method estimates (``models[name].estimate.error``: the pooled error for
    cross-validation, the .632 combination for bootstrap632, ...), which need
    not be the dots' mean.
    """
    from assay.evaluation.validation import Validation

    if not isinstance(validation, Validation):
        raise InvalidInput(f"a per-fold plot needs a Validation (assay.validate), got {type(validation).__name__}",
                           field="validation")
    ax = _axes(ax)
    names = list(validation.models)
    rates = [np.array([f["error_rate"] for f in validation.models[n].folds], dtype=np.float64) for n in names]
    ax.boxplot(rates, positions=range(len(names)), widths=0.5, showfliers=False, medianprops={"color": "0.3"},
               boxprops={"color": "0.6"}, whiskerprops={"color": "0.6"}, capprops={"color": "0.6"})
    for i, (name, errors) in enumerate(zip(names, rates, strict=True)):
        spread = np.linspace(-0.15, 0.15, len(errors)) if len(errors) > 1 else np.zeros(len(errors))
        ax.scatter(i + spread, errors, s=18, color=f"C{i}", alpha=0.8, zorder=3,
                   label="error rate per part" if i == 0 else None)
        ax.scatter([i], [validation.models[name].estimate.error], marker="D", s=50, color="C3",
                   edgecolors="black", zorder=4, label=f"{validation.method} estimate" if i == 0 else None)
    ax.set_xticks(range(len(names)), names)
    ax.set_xlim(-0.6, len(names) - 0.4)
    ax.set_ylim(bottom=0.0)
    ax.set_ylabel("Error rate")
    ax.set_title(f"Error rate per test part: {validation.method} on {validation.dataset}")
    ax.legend(loc="best", fontsize="small")
    return ax


# ----------------------------------------------------------------------------
# files


def _file_part(name: str | None) -> str:
    return "" if name is None else "-" + (re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "model")


def _plan(result: Any) -> list[tuple[str, Any, tuple[float, float]]]:
    """(file stem, how to draw on an Axes, figure size) of every plot that applies to the result."""
    from assay.evaluation.result import Evaluation
    from assay.evaluation.validation import Validation

    entries = _entries(result)
    several = entries[0][0] is not None
    scored = [name for name, entry in entries if _ranking_or_reason(entry, "")[0] is not None]
    plan: list[tuple[str, Any, tuple[float, float]]] = []
    if scored:
        plan += [
            ("roc", lambda ax: plot_roc(result, ax), (6.4, 6.4)),
            ("pr", lambda ax: plot_pr(result, ax), (6.4, 6.4)),
            ("gains", lambda ax: plot_lift(result, ax, kind="gains"), (6.4, 6.4)),
            ("lift", lambda ax: plot_lift(result, ax, kind="lift"), (6.4, 4.8)),
        ]
    elif _class_ranking(result) is not None:
        plan += [("roc", lambda ax: plot_roc(result, ax), (6.4, 6.4)),
                 ("pr", lambda ax: plot_pr(result, ax), (6.4, 6.4))]
    for name, entry in entries:
        model = name if several else None
        if getattr(entry, "probabilistic", None) is not None:
            plan.append(("calibration" + _file_part(name),
                         lambda ax, m=model: plot_calibration(result, ax, model=m), (6.4, 6.4)))
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


def _write(figure: Any, path: str, fmt: str) -> None:
    """Save the figure to ``path`` through the one output writer (atomic for a file, never over an input)."""
    import io

    from assay.io.atomic import write_atomic

    buffer = io.BytesIO()
    figure.savefig(buffer, format=fmt, metadata={"Date": None} if fmt == "svg" else None)
    write_atomic(path, buffer.getvalue())


def save_plots(result: Any, directory: str | os.PathLike[str]) -> list[str]:
    """Write every plot that applies to the result as SVG and PNG files in ``directory``.

    Parameters
    ----------
    result : Evaluation, RankingAnalysis, Validation or Comparison
    directory : path
        Created if missing. Existing files of the same names are replaced.

    Returns
    -------
    list of str
        The paths written, ``<plot>.svg`` then ``<plot>.png`` for each plot in
        this order: roc, pr, gains, lift (with two-class scores), calibration
        (with probabilities), confusion (evaluations), cost (with two-class
        scores), folds (a Validation). For several models the single-model
        plots are written once per model, as ``confusion-<model>``.

    Notes
    -----
    Each file is written to a temporary file in the directory, then renamed
    over its name, so that a reader never sees half a plot. The figures are
    ``matplotlib.figure.Figure`` objects outside pyplot: no GUI backend is
    touched and nothing is left open. SVG files carry no date, so the same
    result gives the same files.
    """
    return write_figures(_plan(result), directory)


def write_figures(plan: Sequence[tuple[str, Callable[[Any], Any], tuple[float, float]]],
                  directory: str | os.PathLike[str]) -> list[str]:
    """Draw each (stem, draw(ax), size) of ``plan`` on a figure of its own and write it to ``directory`` as
    ``<stem>.svg`` and ``<stem>.png``, each atomically; the paths written."""
    from matplotlib import rc_context
    from matplotlib.figure import Figure

    directory = os.fspath(directory)
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as e:
        raise InvalidInput(f"cannot create the directory: {e.strerror}", field="directory") from None
    written: list[str] = []
    with rc_context({"svg.hashsalt": "assay", "svg.fonttype": "path", "text.parse_math": False}):
        for stem, draw, size in plan:
            figure = Figure(figsize=size, layout="constrained")
            draw(figure.add_subplot())
            for fmt in PLOT_FORMATS:
                path = os.path.join(directory, f"{stem}.{fmt}")
                _write(figure, path, fmt)
                written.append(path)
            figure.clear()
    return written
