"""The pictures of the HTML report: SVG charts drawn from the computed curves, and the confusion matrix as a
heat map.

Every curve is the result's own (``roc()``, ``hull()``, ``pr()``, ``lift_curve()``, ``threshold_table()``, the
calibration table, the per-fold errors), thinned for display within half a pixel: the numbers stay exact.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from markupsafe import Markup

from assay.report.group_plots import IDEAL, group_points, group_range
from assay.report.svg import PALETTE, Chart
from assay.report.thinning import thin

__all__ = [
    "COMPACT_HEATMAP_CLASSES",
    "LABEL_CHAR_WIDTH",
    "REGRESSION_POINTS",
    "calibration_chart",
    "class_charts",
    "corner_label_dy",
    "cost_chart",
    "folds_chart",
    "gains_chart",
    "heatmap",
    "lift_chart",
    "pr_chart",
    "regression_charts",
    "roc_chart",
    "thinned",
]


def _share(value: float | None) -> str:
    """A share of a row or column as a percentage; "—" where the row or column is empty (undefined)."""
    return "—" if value is None or value != value else f"{value * 100:.1f}%"


COMPACT_HEATMAP_CLASSES = 6
"""From this many classes the heat map is compact: a cell holds its count and row share on two short lines
(its column share in the tooltip), with no minimum width, and an empty cell is blank, so that 12 classes fit
a laptop's width (1280 px); wider matrices scroll inside their box instead of being cut off."""


def heatmap(labels: tuple[str, ...], counts: np.ndarray, matrices: dict[str, Any], *,
            table_id: str = "confusion") -> Markup:
    """The confusion matrix as a heat map: counts with the analysis's row and column shares (compact from
    ``COMPACT_HEATMAP_CLASSES`` classes, an empty cell then blank)."""
    by_actual, by_predicted = matrices["normalized_by_actual"], matrices["normalized_by_predicted"]
    compact = len(labels) >= COMPACT_HEATMAP_CLASSES
    narrow = Markup(' style="min-width:0;padding:.2rem .35rem"') if compact else Markup("")
    header = Markup("").join(Markup('<th scope="col"{}>{}</th>').format(
        Markup(' style="max-width:9rem;overflow-wrap:break-word;padding:.25rem .3rem"') if compact else Markup(""), label) for label in labels)
    rows = []
    for i, actual in enumerate(labels):
        cells = []
        for j, predicted in enumerate(labels):
            row_share, column_share = _share(by_actual[i][j]), _share(by_predicted[i][j])
            shade = 0.0 if row_share == "—" else by_actual[i][j]
            count = f"{int(counts[i, j]):,}"
            css = "correct" if i == j else "wrong"
            if compact and counts[i, j] == 0:  # nothing here: a blank cell, the tooltip still says so
                cells.append(Markup(
                    '<td class="cell {} empty" style="--share:0;{}" data-actual="{}" data-predicted="{}" '
                    'title="no actual {} predicted {}"></td>').format(
                    css, Markup("min-width:0") if compact else Markup(""), actual, predicted, actual, predicted))
                continue
            shares = Markup('{}').format(row_share) if compact else Markup('{} · {}').format(row_share, column_share)
            cells.append(Markup(
                '<td class="cell {}" style="--share:{:.3f}{}" data-actual="{}" data-predicted="{}" '
                'title="{} of actual {} ({} of the row, {} of the column)">'
                '<span class="count">{}</span><span class="share">{}</span></td>').format(
                css, shade, Markup(";min-width:0;padding:.2rem .35rem") if compact else Markup(""), actual,
                predicted, count, actual, row_share, column_share, count, shares))
        rows.append(Markup('<tr><th scope="row">{}</th>{}<td class="num"{}>{}</td></tr>').format(
            actual, Markup("").join(cells), narrow, f"{int(counts[i].sum()):,}"))
    totals = Markup("").join(Markup('<td class="num"{}>{}</td>').format(narrow, f"{int(c):,}")
                             for c in counts.sum(axis=0))
    caption = ("rows: actual class · columns: predicted class · each cell: count and % of its row (% of its column "
               "in its tooltip); an empty cell: none") if compact else \
        "rows: actual class · columns: predicted class · each cell: count, % of its row · % of its column"
    return Markup(
        '<div class="heatmap-box" style="max-width:100%;overflow-x:auto">'
        '<table class="heatmap{}" id="{}"><thead><tr><th>actual \\ predicted</th>{}<th>total</th></tr></thead>'
        '<tbody>{}<tr class="total"><th>total</th>{}<td class="num"{}>{}</td></tr></tbody></table></div>'
        '<p class="muted">{}</p>').format(" compact" if compact else "", table_id, header, Markup("").join(rows),
                                          totals, narrow, f"{int(counts.sum()):,}", caption)


# ---------------------------------------------------------------------------------------------------------------------
# curves


def class_charts(ranking: Any, *, chart_id: str) -> list[Chart]:
    """One-vs-rest ROC and precision-recall charts of k classes: one curve per class (thinned to half a
    pixel), its AUC or average precision in the legend; colours cycle past the palette, dashed the second
    time round."""
    roc = Chart("ROC curves, each class vs the rest", "False positive rate (1 - specificity)",
                "True positive rate (sensitivity)", chart_id=chart_id)
    pr = Chart("Precision-recall, each class vs the rest", "Recall (TPR)", "Precision (PPV)",
               chart_id=f"{chart_id}-pr")
    roc.line(np.array([0, 1]), np.array([0, 1]), color="#999", width=1, dash="4 4", label="random classifiers")
    for i, label in enumerate(ranking.labels):
        try:
            curve, precision_recall = ranking.roc(label), ranking.pr(label)
        except Exception:  # a class with no actual instance has no curve; its table row says why
            continue
        color, dash = PALETTE[i % len(PALETTE)], None if i < len(PALETTE) else "5 2"
        auc, ap = ranking.per_class[label].value, ranking.average_precision[label].value
        x, y = thinned(roc, curve["fpr"], curve["tpr"])
        roc.line(x, y, color=color, dash=dash, css="curve", label=f"{label} (AUC {auc:.3f})",
                 mark_id=f"{chart_id}-curve-{i}")
        r = np.concatenate(([0.0], precision_recall["recall"]))
        p = np.concatenate(([1.0], precision_recall["precision"]))
        x, y = thinned(pr, r, p)
        pr.line(x, y, color=color, dash=dash, css="curve", label=f"{label} (AP {ap:.3f})",
                mark_id=f"{chart_id}-pr-curve-{i}")
    return [roc, pr]


def thinned(chart: Chart, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    keep = thin(x, y, chart.pixel_tolerance())
    return np.asarray(x)[keep], np.asarray(y)[keep]


def roc_chart(curves: list[tuple[str, Any]], *, chart_id: str, explorer: bool) -> Chart:
    """ROC plane: each classifier's exact curve (thinned to half a pixel), hull, references, points."""
    chart = Chart("ROC curve", "False positive rate (1 - specificity)", "True positive rate (sensitivity)",
                  chart_id=chart_id)
    chart.line(np.array([0, 1]), np.array([0, 1]), color="#999", width=1, dash="4 4", label="random classifiers")
    marked: list[tuple[float, float]] = []  # the points drawn, which the corners' labels keep clear of
    for (name, ranking), color in zip(curves, PALETTE, strict=False):
        roc = ranking.roc()
        x, y = thinned(chart, roc["fpr"], roc["tpr"])
        auc = f"AUC {'≈ ' if ranking.approximation else ''}{ranking.roc_auc.value:.3f}" + \
            (" (binned)" if ranking.approximation else "")
        label = f"{name} ({auc})" if name else auc
        band = getattr(ranking, "band", None)
        if band is not None and len(curves) == 1:
            chart.area(np.array(band["fpr"]), np.array(band["low"]), np.array(band["high"]), color=color,
                       label=f"{band['confidence'] * 100:g}% confidence band", css="band")
        chart.line(x, y, color=color, label=label, css="curve", mark_id=f"{chart_id}-curve-{chart.legend_size}")
        hull = ranking.hull()
        if len(curves) == 1:
            for k, p in enumerate(getattr(ranking, "operating_points", ())):
                fpr, tpr = (1.0 - p.target, p.value.value) if p.given == "specificity" else \
                    (1.0 - p.value.value, p.target)
                ci = p.value.ci
                if ci is not None:  # the interval of the rate read off the curve, across it
                    if p.given == "specificity":
                        chart.line(np.array([fpr, fpr]), np.array([ci.low, ci.high]), color="#555", width=1.5)
                    else:
                        chart.line(np.array([1.0 - ci.high, 1.0 - ci.low]), np.array([tpr, tpr]), color="#555",
                                   width=1.5)
                marked.append((fpr, tpr))
                chart.point(fpr, tpr, color="#555", radius=4, label="operating points" if k == 0 else None,
                            title=f"{p.reads} {p.value.value:.3f} at {p.given} {p.target:g}"
                                  + (f" ({ci.low:.3f}–{ci.high:.3f})" if ci else "")
                                  + f"; threshold {p.threshold:.4g}")
            for k, c in enumerate(getattr(ranking, "constrained", ())):
                rec, spec = c.rates["recall"].value, c.rates["specificity"].value
                if rec is not None and spec is not None:
                    marked.append((1.0 - spec, rec))
                    chart.point(1.0 - spec, rec, color="#b5651d", radius=5, hollow=True,
                                label="best threshold under a constraint" if k == 0 else None,
                                title=f"{c.constraint}, maximising {c.maximized}: threshold {c.threshold:.4g}")
            chart.line(hull["fpr"], hull["tpr"], color=color, width=1.2, dash="6 3", label="convex hull")
            if math.isfinite(ranking.slope) and ranking.optimal is not None:
                o = ranking.optimal
                xs = np.array([0.0, 1.0])
                ys = o.tpr + ranking.slope * (xs - o.fpr)
                inside = (ys >= 0) & (ys <= 1)
                if inside.sum() < 2:  # clip the line to the unit square
                    x_at = np.clip((np.array([0.0, 1.0]) - o.tpr) / ranking.slope + o.fpr, 0, 1)
                    xs = np.sort(np.concatenate([xs[inside], x_at]))
                    ys = np.clip(o.tpr + ranking.slope * (xs - o.fpr), 0, 1)
                chart.line(xs, ys, color="#888", width=1, dash="2 3",
                           label=f"iso-performance (slope {ranking.slope:.3g})")
                marked.append((o.fpr, o.tpr))
                chart.point(o.fpr, o.tpr, color="#888", radius=4, hollow=True,
                            title=f"optimal for the costs and class ratio: threshold {o.threshold:.4g}")
            op = ranking.operating_point
            if op is not None:
                marked.append((op.fpr, op.tpr))
                chart.point(op.fpr, op.tpr, color="#000", radius=5, label="chosen threshold",
                            mark_id=f"{chart_id}-point" if explorer else "",
                            title=f"threshold {op.threshold:.4g}: FPR {op.fpr:.3f}, TPR {op.tpr:.3f}")
    for (name, (fx, ty)) in (("always negative", (0, 0)), ("always positive", (1, 1)), ("ideal", (0, 1)),
                             ("always wrong", (1, 0))):
        chart.point(fx, ty, color="#666", radius=3)
        chart.text(fx, ty, name, anchor="start" if fx == 0 else "end", dx=6 if fx == 0 else -6,
                   dy=corner_label_dy(chart, fx, ty, name, marked), size=10)
    return chart


LABEL_CHAR_WIDTH = 6.0
"""The width of a character of a 10 px label, in pixels (a generous average, so that a box holds its text)."""


def corner_label_dy(chart: Chart, fx: float, ty: float, text: str, marked: list[tuple[float, float]]) -> float:
    """How far below (a top corner) or above (a bottom corner) its point the label of a corner of the ROC plane
    sits: next to the point, or moved along the edge, away from the corner, until no marked point (the chosen
    threshold, the optimum, ...) lies under it."""
    width = LABEL_CHAR_WIDTH * len(text)
    left = float(chart.px(fx)) + (6 if fx == 0 else -6 - width)
    top_corner = ty == 1
    for step in range(12):
        dy = (12 + 14 * step) if top_corner else (-6 - 14 * step)
        baseline = float(chart.py(ty)) + dy
        box = (left - 7, baseline - 10 - 7, left + width + 7, baseline + 2 + 7)  # with a point's radius around it
        if not any(box[0] <= float(chart.px(x)) <= box[2] and box[1] <= float(chart.py(y)) <= box[3]
                   for x, y in marked):
            return dy
    return 12 if top_corner else -6


def pr_chart(ranking: Any, *, chart_id: str, explorer: bool) -> Chart:
    """The PR curve where the classifier will be used: at the deployment prevalence given to the analysis
    (its precision TPR pi / (TPR pi + FPR (1 - pi)), its average precision, the baseline at pi), else the
    test data's."""
    at = getattr(ranking, "given_prevalence", None)
    at = at if at is not None and getattr(ranking, "pr_at_prevalence", None) else None
    chart = Chart("Precision-recall curve", "Recall (TPR)", "Precision (PPV)", chart_id=chart_id)
    pr = ranking.pr(at)
    ap = ranking.average_precision.value if at is None else ranking.pr_at_prevalence["average_precision"]["value"]
    baseline = ranking.prevalence if at is None else at
    x, y = thinned(chart, pr["recall"], pr["precision"])
    chart.line(x, y, color=PALETTE[0], label=f"average precision {ap:.3f}"
               + (f" at prevalence {at:g}" if at is not None else ""), css="curve", mark_id=f"{chart_id}-curve")
    chart.line(np.array([0, 1]), np.array([baseline] * 2), color="#999", width=1, dash="4 4",
               label=f"baseline: prevalence {baseline:.3f}" + (" (given)" if at is not None else ""))
    op = ranking.operating_point
    if op is not None:
        tc = ranking.threshold_table(np.array([op.threshold]), prevalence=at)
        precision = float(tc["precision"][0])
        if math.isfinite(precision):
            chart.point(op.tpr, precision, color="#000", label="chosen threshold",
                        mark_id=f"{chart_id}-point" if explorer else "")
    return chart


def gains_chart(ranking: Any) -> Chart:
    lift = ranking.lift_curve()
    chart = Chart("Cumulative gains (lift chart)", "Share of instances, highest scores first",
                  "Share of positives found")
    x, y = thinned(chart, np.concatenate(([0.0], lift["depth"])), np.concatenate(([0.0], lift["gains"])))
    chart.line(x, y, color=PALETTE[0], label="classifier")
    chart.line(np.array([0, 1]), np.array([0, 1]), color="#999", width=1, dash="4 4", label="random order")
    p = ranking.prevalence
    chart.line(np.array([0, p, 1]), np.array([0, 1, 1]), color="#2ca02c", width=1, dash="6 3", label="ideal")
    d = ranking.lift_depth
    chart.point(d, ranking.lift.value * d, color="#000", radius=4,
                title=f"lift {ranking.lift.value:.2f} in the top {d:.0%}")
    return chart


def lift_chart(ranking: Any) -> Chart:
    """Lift against depth: how many times the prevalence the top of the ranking holds."""
    lift = ranking.lift_curve()
    depth, values = np.asarray(lift["depth"], dtype=float), np.asarray(lift["lift"], dtype=float)
    top = max(float(np.nanmax(values)) if len(values) else 1.0, 1.0)
    chart = Chart("Lift", "Share of instances, highest scores first", "Lift (precision / prevalence)",
                  y_range=(0.0, top * 1.05))
    x, y = thinned(chart, depth, values)
    chart.line(x, y, color=PALETTE[0], label="classifier")
    chart.line(np.array([0, 1]), np.array([1, 1]), color="#999", width=1, dash="4 4", label="random order (lift 1)")
    d = ranking.lift_depth
    chart.point(d, ranking.lift.value, color="#000", radius=4,
                label=f"lift {ranking.lift.value:.2f} in the top {d:.0%}")
    return chart


def calibration_chart(table: Any, curve: Any = None) -> Chart:
    """The reliability table's points with their Wilson intervals over the histogram of the predictions, and,
    given the moderate calibration (``curve``: a computed ``CalibrationCurve``), its lowess curve with its
    bootstrap band (``table`` None: the curve alone)."""
    target = f" ({table.target})" if table is not None else ""
    chart = Chart("Calibration (reliability)", f"Mean predicted probability{target}", "Observed frequency")
    bins = table.bins if table is not None else []
    total = max(sum(b.count for b in bins), 1)
    for b in bins:
        if b.count:
            chart.bar(b.low, b.high, min(1.0, 3 * b.count / total), color="#bbb", opacity=0.4)
    xs = [b.mean_predicted for b in bins if b.count and b.mean_predicted is not None]
    ys = [b.observed for b in bins if b.count and b.observed is not None]
    chart.line(np.array([0, 1]), np.array([0, 1]), color="#999", width=1, dash="4 4", label="perfectly calibrated")
    if curve is not None and curve.computed:
        p, observed = np.asarray(curve.p, dtype=float), np.asarray(curve.observed, dtype=float)
        if curve.low is not None and curve.high is not None:
            low, high = np.asarray(curve.low, dtype=float), np.asarray(curve.high, dtype=float)
            ok = np.isfinite(low) & np.isfinite(high)
            if ok.any():
                chart.area(p[ok], np.clip(low[ok], 0.0, 1.0), np.clip(high[ok], 0.0, 1.0), color=PALETTE[1],
                           label=f"{curve.confidence * 100:g}% bootstrap band", css="band")
        ok = np.isfinite(observed)
        chart.line(p[ok], np.clip(observed[ok], 0.0, 1.0), color=PALETTE[1],
                   label=f"lowess, as rms::val.prob (Eavg {curve.eavg.value:.3f})")
    if xs:
        chart.line(np.array(xs), np.array(ys), color=PALETTE[0], label=f"classifier (ECE {table.ece:.3f})")
        for b in table.bins:
            if b.count and b.mean_predicted is not None and b.ci is not None:
                chart.line(np.array([b.mean_predicted] * 2), np.array([b.ci.low, b.ci.high]), color=PALETTE[0],
                           width=1)
                chart.point(b.mean_predicted, b.observed, color=PALETTE[0], radius=3,
                            title=f"{b.count} instances: predicted {b.mean_predicted:.3f}, observed {b.observed:.3f}")
    return chart


def decision_chart(d: Any) -> Chart:
    """The decision curve: the model's net benefit with its bootstrap band, treating everyone, and no one (0),
    down to a little below 0 (treating everyone falls steeply: its line stops at the chart's floor)."""
    t = np.asarray(d.thresholds, dtype=float)
    model, everyone = np.asarray(d.model, dtype=float), np.asarray(d.treat_all, dtype=float)
    band = d.interval("model")
    top = max(float(np.nanmax(model)) if np.isfinite(model).any() else 0.0, float(d.prevalence),
              float(np.nanmax(band[1])) if band is not None and np.isfinite(band[1]).any() else 0.0)
    top = top * 1.1 or 0.1
    floor = -0.15 * top
    lo, hi = float(t.min()), float(t.max())
    chart = Chart("Decision curve", "Threshold probability", "Net benefit",
                  x_range=(lo, hi if hi > lo else lo + 0.01), y_range=(floor, top))
    if band is not None:
        ok = np.isfinite(band[0]) & np.isfinite(band[1])
        chart.area(t[ok], np.maximum(band[0][ok], floor), np.minimum(band[1][ok], top), color=PALETTE[0],
                   label=f"{d.confidence * 100:g}% bootstrap interval", css="band")
    shown = everyone >= floor
    if shown.any():
        chart.line(t[shown], everyone[shown], color="#999", width=1.5, label="treat everyone")
    chart.line(np.array([lo, hi]), np.zeros(2), color="#000", width=1, dash="4 4", label="treat no one")
    ok = np.isfinite(model)
    chart.line(t[ok], np.maximum(model[ok], floor), color=PALETTE[0], label="model")
    if d.at_costs is not None and math.isfinite(float(d.at_costs.model[0])):
        chart.point(float(d.at_costs.thresholds[0]), float(d.at_costs.model[0]), color="#000",
                    label=f"the costs' threshold {float(d.at_costs.thresholds[0]):.3g}")
    return chart


def group_chart(r: Any, metric: str, title: str, *, percent: bool = True) -> Chart | None:
    """One metric by group with its interval (all the instances first, then the largest groups with a value:
    :func:`assay.report.group_plots.group_points`, as the plot files have them)."""
    found, _ = group_points(r, metric)
    if len(found) < 2:
        return None
    low, high = group_range(metric, found)
    chart = Chart(f"{title} by group", "", title, x_range=(0, len(found)), y_range=(low, high), height=300,
                  width=max(420, 40 * len(found) + 80), x_ticks=False)
    if metric in IDEAL:
        chart.line(np.array([0.0, len(found)]), np.array([IDEAL[metric]] * 2), color="#888", width=1, dash="4 3",
                   label=f"ideal ({IDEAL[metric]:g})")
    for i, (label, e) in enumerate(found):
        color = "#000" if i == 0 else PALETTE[0]
        if e.ci is not None:
            chart.line(np.array([i + 0.5] * 2), np.array([e.ci.low, e.ci.high]), color=color, width=1.5)
        shown = f"{e.value * 100:.1f}%" if percent else f"{e.value:.3f}"
        chart.point(i + 0.5, e.value, color=color, radius=4, title=f"{label}: {shown}"
                    + (f" ({e.ci.low:.3f} to {e.ci.high:.3f})" if e.ci is not None else ""))
        chart.text(i + 0.5, low, label if len(label) <= 10 else label[:9] + "…", anchor="middle", dx=0, dy=16,
                   size=10)
    return chart


def cost_chart(ranking: Any) -> Chart:
    table = ranking.threshold_table()
    t = np.asarray(table["threshold"], dtype=float)
    cost = np.asarray(table["expected_cost"], dtype=float)
    finite = np.isfinite(t) & np.isfinite(cost)
    t, cost = t[finite][::-1], cost[finite][::-1]
    lo, hi = float(t.min()), float(t.max())
    if hi == lo:
        hi = lo + 1.0
    top = float(cost.max()) * 1.05 or 1.0
    chart = Chart("Expected cost per instance", "Threshold (positive iff score >= threshold)", "Expected cost",
                  x_range=(lo, hi), y_range=(0.0, top))
    x, y = thinned(chart, t, cost)
    chart.line(x, y, color=PALETTE[3], label="expected cost")
    best = ranking.best["min_expected_cost"]
    if math.isfinite(best.threshold):
        chart.point(best.threshold, best.value, color="#000", label=f"least cost at {best.threshold:.4g}")
    return chart


def folds_chart(validation: Any) -> Chart:
    names = list(validation.models)
    values = {m: [f.get("error_rate") for f in v.folds if f.get("error_rate") is not None]
              for m, v in validation.models.items()}
    top = max([max(v) for v in values.values() if v] + [0.05]) * 1.1
    chart = Chart("Error by fold or round", "", "Error rate", x_range=(0, len(names)), y_range=(0, top),
                  height=300, x_ticks=False)
    for i, name in enumerate(names):
        color = PALETTE[i % len(PALETTE)]
        errs = values[name]
        for j, e in enumerate(errs):
            jitter = (j % 7 - 3) * 0.04
            chart.point(i + 0.5 + jitter, e, color=color, radius=3, hollow=True, title=f"{name}: {e:.3f}")
        est = validation.models[name].estimate.error
        chart.line(np.array([i + 0.2, i + 0.8]), np.array([est, est]), color=color, width=3)
        chart.text(i + 0.5, 0, name, anchor="middle", dx=0, dy=16, size=11)
    return chart


# ---------------------------------------------------------------------------------------------------------------------
# numeric predictions


REGRESSION_POINTS = 2000
"""At most this many instances are drawn in the HTML scatter plots (evenly spaced in the order of the actual
values); the tables use every instance."""


def _regression_sample(report: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a, p, r = (np.asarray(v, dtype=float) for v in (report.y_true, report.y_pred, report.residuals))
    if len(a) > REGRESSION_POINTS:
        keep = np.argsort(a, kind="stable")[np.linspace(0, len(a) - 1, REGRESSION_POINTS).round().astype(np.intp)]
        a, p, r = a[keep], p[keep], r[keep]
    return a, p, r


def _padded(lo: float, hi: float) -> tuple[float, float]:
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return (lo - 1.0, lo + 1.0) if math.isfinite(lo) else (0.0, 1.0)
    pad = 0.04 * (hi - lo)
    return lo - pad, hi + pad


def regression_charts(report: Any, key: str) -> list[Chart]:
    """Predicted against actual with the identity line, and residuals against predicted with the zero line."""
    if report.y_true is None or report.y_pred is None:
        return []
    a, p, r = _regression_sample(report)
    every_a, every_p, every_r = report.y_true, report.y_pred, report.residuals
    span = _padded(float(min(every_a.min(), every_p.min())), float(max(every_a.max(), every_p.max())))
    fit = Chart("Predicted against actual", "Actual value a", "Predicted value p", x_range=span, y_range=span,
                chart_id=f"predicted-actual-{key}")
    fit.line(np.array(span), np.array(span), color=PALETTE[1], width=1.5, dash="6 4",
             label="p = a (perfect predictions)")
    for x, y in zip(a, p, strict=True):
        fit.point(float(x), float(y), color=PALETTE[0], radius=2)
    fit.add_legend(f"instances ({len(every_a):,}{', a sample drawn' if len(a) < len(every_a) else ''})",
                   PALETTE[0], "point")
    x_span = _padded(float(every_p.min()), float(every_p.max()))
    bound = float(np.max(np.abs(every_r))) if len(every_r) else 1.0
    residual = Chart("Residuals against predicted", "Predicted value p", "Residual p − a", x_range=x_span,
                     y_range=_padded(-bound, bound), chart_id=f"residuals-{key}")
    residual.line(np.array(x_span), np.array([0.0, 0.0]), color=PALETTE[1], width=1.5, dash="6 4",
                  label="no error")
    mean_error = report.metrics["mean_error"].value
    if mean_error is not None:
        residual.line(np.array(x_span), np.array([mean_error, mean_error]), color=PALETTE[2], width=1,
                      label=f"mean error {mean_error:.4g}")
    for x, y in zip(p, r, strict=True):
        residual.point(float(x), float(y), color=PALETTE[0], radius=2)
    return [fit, residual]
