"""The HTML report: one self-contained file, readable offline, with a threshold explorer.

Everything the page shows comes from the result objects: the tables and
sentences are the same blocks as the terminal and Markdown reports, the charts
are SVG drawn here from the computed curves (thinned for display within half a
pixel; the numbers stay exact), and the threshold explorer looks up exact counts
and rates that the library computed at each threshold it embeds. The page's
script computes nothing: it moves between precomputed rows.

Every string that comes from the data (class labels, column and file names) is
escaped: the page is built with ``markupsafe`` templates and the embedded JSON
escapes ``<``, ``>`` and ``&``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from importlib import resources
from typing import Any

import numpy as np
from markupsafe import Markup

from assay import __version__
from assay.metrics.confusion import BINARY_METRICS, MATRIX_METRICS
from assay.report.document import Block, Heading, Paragraph, Table
from assay.report.svg import PALETTE, Chart
from assay.report.thinning import thin

__all__ = ["EXPLORER_THRESHOLDS", "embedded_json", "render_fragment", "render_html"]

EXPLORER_THRESHOLDS = 2000
"""At most this many thresholds are embedded for the explorer (all of them when there are fewer)."""

EXPLORER_COLUMNS = ("tp", "fp", "fn", "tn", "recall", "specificity", "fpr", "precision", "npv", "accuracy", "f1",
                    "mcc", "youden_j", "expected_cost", "predicted_positive")

_DEFINITIONS = {spec.title: f"{spec.formula}" for spec in list(BINARY_METRICS.values()) + list(MATRIX_METRICS.values())}


def embedded_json(data: Any) -> Markup:
    """JSON safe inside a <script> element: <, > and & (and line separators) escaped."""
    text = json.dumps(data, allow_nan=False, separators=(",", ":"))
    text = (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))
    return Markup(text)


def _asset(name: str) -> str:
    return resources.files("assay.report").joinpath("templates", name).read_text(encoding="utf-8")


def _finite(values: np.ndarray, digits: int | None = None) -> list[float | None]:
    out = []
    for v in np.asarray(values, dtype=float):
        if not math.isfinite(v):
            out.append(None)
        else:
            out.append(round(float(v), digits) if digits is not None else float(v))
    return out


# ---------------------------------------------------------------------------------------------------------------------
# blocks (the same as text and Markdown)


def _cell(text: str, header: bool = False) -> Markup:
    tag = "th" if header else "td"
    definition = _DEFINITIONS.get(text)
    if definition:
        return Markup("<{0}><abbr title=\"{1}\">{2}</abbr></{0}>").format(tag, definition, text)
    return Markup("<{0}>{1}</{0}>").format(tag, text)


def _table(t: Table) -> Markup:
    align = t.alignment()
    head = Markup("").join(Markup('<th class="{}">{}</th>').format("num" if a == "r" else "", h)
                           for h, a in zip(t.header, align, strict=True))
    rows = []
    first_total = len(t.rows) - t.total_rows
    for i, row in enumerate(t.rows):
        cells = Markup("").join(
            (_cell(c) if j == 0 else Markup('<td class="{}">{}</td>').format("num" if align[j] == "r" else "", c))
            for j, c in enumerate(row))
        rows.append(Markup('<tr class="{}">{}</tr>').format("total" if i >= first_total else "", cells))
    caption = Markup('<p class="muted">{}</p>').format(t.caption) if t.caption else ""
    return Markup('<table><thead><tr>{}</tr></thead><tbody>{}</tbody></table>{}').format(
        head, Markup("").join(rows), caption)


def split_prelude(blocks: list[Block]) -> tuple[list[Paragraph], list[Block]]:
    """The paragraphs before the first section heading (headline, input, notes), and the sections."""
    prelude: list[Paragraph] = []
    for i, block in enumerate(blocks):
        if isinstance(block, Heading) and block.level == 1:
            continue
        if not isinstance(block, Paragraph):
            return prelude, blocks[i:]
        prelude.append(block)
    return prelude, []


def _is_confusion(block: Block) -> bool:
    return isinstance(block, Table) and bool(block.header) and block.header[0] == "actual \\ predicted"


def render_blocks_html(blocks: list[Block], *, skip_confusion: bool = True) -> Markup:
    """Headings, paragraphs and tables; a confusion table (drawn as a heat map elsewhere) and its heading are
    left out when ``skip_confusion``."""
    out = []
    for i, block in enumerate(blocks):
        if isinstance(block, Heading):
            following = blocks[i + 1] if i + 1 < len(blocks) else None
            if block.level == 1 or (skip_confusion and following is not None and _is_confusion(following)):
                continue
            out.append(Markup("<h{0}>{1}</h{0}>").format(min(block.level, 4), block.text))
        elif isinstance(block, Paragraph):
            out.append(Markup('<p class="{}">{}</p>').format(block.style, block.text))
        elif skip_confusion and _is_confusion(block):
            continue
        else:
            out.append(_table(block))
    return Markup("\n").join(out)


# ---------------------------------------------------------------------------------------------------------------------
# pictures


def _share(value: float | None) -> str:
    """A share of a row or column as a percentage; "—" where the row or column is empty (undefined)."""
    return "—" if value is None or value != value else f"{value * 100:.1f}%"


COMPACT_HEATMAP_CLASSES = 6
"""From this many classes the heat map is compact: a cell holds its count and row share on two short lines
(its column share in the tooltip), with no minimum width, and an empty cell is blank, so that 12 classes fit
a laptop's width (1280 px); wider matrices scroll inside their box instead of being cut off."""


def _heatmap(labels: tuple[str, ...], counts: np.ndarray, matrices: dict[str, Any], *,
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


def _two_class(ranking: Any) -> bool:
    """Whether a result's ranking is the two-class analysis of scores (not the one-vs-rest of k classes)."""
    from assay.evaluation.ranking import RankingAnalysis

    return isinstance(ranking, RankingAnalysis)


def _class_charts(ranking: Any, *, chart_id: str) -> list[Chart]:
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
        x, y = _thinned(roc, curve["fpr"], curve["tpr"])
        roc.line(x, y, color=color, dash=dash, css="curve", label=f"{label} (AUC {auc:.3f})",
                 mark_id=f"{chart_id}-curve-{i}")
        r = np.concatenate(([0.0], precision_recall["recall"]))
        p = np.concatenate(([1.0], precision_recall["precision"]))
        x, y = _thinned(pr, r, p)
        pr.line(x, y, color=color, dash=dash, css="curve", label=f"{label} (AP {ap:.3f})",
                mark_id=f"{chart_id}-pr-curve-{i}")
    return [roc, pr]


def _thinned(chart: Chart, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    keep = thin(x, y, chart.pixel_tolerance())
    return np.asarray(x)[keep], np.asarray(y)[keep]


def _roc_chart(curves: list[tuple[str, Any]], *, chart_id: str, explorer: bool) -> Chart:
    """ROC plane: each classifier's exact curve (thinned to half a pixel), hull, references, points."""
    chart = Chart("ROC curve", "False positive rate (1 - specificity)", "True positive rate (sensitivity)",
                  chart_id=chart_id)
    chart.line(np.array([0, 1]), np.array([0, 1]), color="#999", width=1, dash="4 4", label="random classifiers")
    marked: list[tuple[float, float]] = []  # the points drawn, which the corners' labels keep clear of
    for (name, ranking), color in zip(curves, PALETTE, strict=False):
        roc = ranking.roc()
        x, y = _thinned(chart, roc["fpr"], roc["tpr"])
        auc = f"AUC {'≈ ' if ranking.approximation else ''}{ranking.roc_auc.value:.3f}" + \
            (" (binned)" if ranking.approximation else "")
        label = f"{name} ({auc})" if name else auc
        band = getattr(ranking, "band", None)
        if band is not None and len(curves) == 1:
            chart.area(np.array(band["fpr"]), np.array(band["low"]), np.array(band["high"]), color=color,
                       label=f"{band['confidence'] * 100:g}% confidence band", css="band")
        chart.line(x, y, color=color, label=label, css="curve", mark_id=f"{chart_id}-curve-{len(chart._legend)}")
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


def _pr_chart(ranking: Any, *, chart_id: str, explorer: bool) -> Chart:
    """The PR curve where the classifier will be used: at the deployment prevalence given to the analysis
    (its precision TPR pi / (TPR pi + FPR (1 - pi)), its average precision, the baseline at pi), else the
    test data's."""
    at = getattr(ranking, "given_prevalence", None)
    at = at if at is not None and getattr(ranking, "pr_at_prevalence", None) else None
    chart = Chart("Precision-recall curve", "Recall (TPR)", "Precision (PPV)", chart_id=chart_id)
    pr = ranking.pr(at)
    ap = ranking.average_precision.value if at is None else ranking.pr_at_prevalence["average_precision"]["value"]
    baseline = ranking.prevalence if at is None else at
    x, y = _thinned(chart, pr["recall"], pr["precision"])
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


def _gains_chart(ranking: Any) -> Chart:
    lift = ranking.lift_curve()
    chart = Chart("Cumulative gains (lift chart)", "Share of instances, highest scores first",
                  "Share of positives found")
    x, y = _thinned(chart, np.concatenate(([0.0], lift["depth"])), np.concatenate(([0.0], lift["gains"])))
    chart.line(x, y, color=PALETTE[0], label="classifier")
    chart.line(np.array([0, 1]), np.array([0, 1]), color="#999", width=1, dash="4 4", label="random order")
    p = ranking.prevalence
    chart.line(np.array([0, p, 1]), np.array([0, 1, 1]), color="#2ca02c", width=1, dash="6 3", label="ideal")
    d = ranking.lift_depth
    chart.point(d, ranking.lift.value * d, color="#000", radius=4,
                title=f"lift {ranking.lift.value:.2f} in the top {d:.0%}")
    return chart


def _lift_chart(ranking: Any) -> Chart:
    """Lift against depth: how many times the prevalence the top of the ranking holds."""
    lift = ranking.lift_curve()
    depth, values = np.asarray(lift["depth"], dtype=float), np.asarray(lift["lift"], dtype=float)
    top = max(float(np.nanmax(values)) if len(values) else 1.0, 1.0)
    chart = Chart("Lift", "Share of instances, highest scores first", "Lift (precision / prevalence)",
                  y_range=(0.0, top * 1.05))
    x, y = _thinned(chart, depth, values)
    chart.line(x, y, color=PALETTE[0], label="classifier")
    chart.line(np.array([0, 1]), np.array([1, 1]), color="#999", width=1, dash="4 4", label="random order (lift 1)")
    d = ranking.lift_depth
    chart.point(d, ranking.lift.value, color="#000", radius=4,
                label=f"lift {ranking.lift.value:.2f} in the top {d:.0%}")
    return chart


def _calibration_chart(table: Any) -> Chart:
    chart = Chart("Calibration (reliability)", f"Mean predicted probability ({table.target})", "Observed frequency")
    total = max(sum(b.count for b in table.bins), 1)
    for b in table.bins:
        if b.count:
            chart.bar(b.low, b.high, min(1.0, 3 * b.count / total), color="#bbb", opacity=0.4)
    xs = [b.mean_predicted for b in table.bins if b.count and b.mean_predicted is not None]
    ys = [b.observed for b in table.bins if b.count and b.observed is not None]
    chart.line(np.array([0, 1]), np.array([0, 1]), color="#999", width=1, dash="4 4", label="perfectly calibrated")
    if xs:
        chart.line(np.array(xs), np.array(ys), color=PALETTE[0], label=f"classifier (ECE {table.ece:.3f})")
        for b in table.bins:
            if b.count and b.mean_predicted is not None and b.ci is not None:
                chart.line(np.array([b.mean_predicted] * 2), np.array([b.ci.low, b.ci.high]), color=PALETTE[0],
                           width=1)
                chart.point(b.mean_predicted, b.observed, color=PALETTE[0], radius=3,
                            title=f"{b.count} instances: predicted {b.mean_predicted:.3f}, observed {b.observed:.3f}")
    return chart


def _cost_chart(ranking: Any) -> Chart:
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
    x, y = _thinned(chart, t, cost)
    chart.line(x, y, color=PALETTE[3], label="expected cost")
    best = ranking.best["min_expected_cost"]
    if math.isfinite(best.threshold):
        chart.point(best.threshold, best.value, color="#000", label=f"least cost at {best.threshold:.4g}")
    return chart


def _folds_chart(validation: Any) -> Chart:
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
# explorer


def _explorer_thresholds(ranking: Any) -> tuple[np.ndarray, bool]:
    """The thresholds the explorer holds, ascending, in the scores' own units, with the one that predicts
    nothing positive (+inf; -inf where lower scores mean the positive class) at the end that has it."""
    lower = getattr(ranking, "direction", "higher") == "lower"
    distinct = np.sort(-np.asarray(ranking.summary.scores, dtype=float) if lower
                       else np.asarray(ranking.summary.scores, dtype=float))
    exact = len(distinct) <= EXPLORER_THRESHOLDS and ranking.drawn_from is None
    if exact:
        chosen = distinct
    else:
        idx = np.unique(np.linspace(0, len(distinct) - 1, EXPLORER_THRESHOLDS).round().astype(int))
        extra = [c.threshold for c in ranking.best.values()]
        if ranking.operating_point is not None:
            extra.append(ranking.operating_point.threshold)
        chosen = np.unique(np.concatenate([distinct[idx], [e for e in extra if math.isfinite(e)]]))
    if lower:
        return np.concatenate([[-np.inf], chosen]), exact
    return np.concatenate([chosen, [np.inf]]), exact


def _explorer_data(ranking: Any, roc: Chart, pr: Chart, key: str, positive_first: bool = False) -> dict[str, Any]:
    thresholds, exact = _explorer_thresholds(ranking)
    table = ranking.threshold_table(thresholds)
    columns = {name: _finite(table[name]) for name in EXPLORER_COLUMNS}
    at = getattr(ranking, "given_prevalence", None)  # the PR chart's cursor: on its curve, at the prevalence given
    precision = np.asarray(table["precision"] if at is None else
                           ranking.threshold_table(thresholds, prevalence=at)["precision"], dtype=float)
    start = 0
    if ranking.operating_point is not None:
        if getattr(ranking, "direction", "higher") == "lower":  # the last held threshold at or below it
            start = max(int(np.searchsorted(thresholds, ranking.operating_point.threshold, side="right")) - 1, 0)
        else:  # the first held threshold at or above it
            start = int(np.searchsorted(thresholds, ranking.operating_point.threshold, side="left"))
        start = min(start, len(thresholds) - 1)
    labels = ranking.summary.labels
    return {
        "key": key,
        "exact": exact,
        "distinct": ranking.distinct,
        "negative": labels[0],
        "positive": labels[1],
        "positive_first": bool(positive_first),
        "lower": getattr(ranking, "direction", "higher") == "lower",
        "thresholds": _finite(thresholds),
        "rows": columns,
        "roc": {"cx": _finite(roc.px(table["fpr"]), 2), "cy": _finite(roc.py(table["recall"]), 2)},
        "pr": {"cx": _finite(pr.px(table["recall"]), 2),
               "cy": [None if not math.isfinite(p) else round(float(pr.py(p)), 2) for p in precision]},
        "start": start,
        # the operating point's row shows the threshold as the report gives it, not the score it lands on
        "given": ({"index": start, "text": repr(float(ranking.operating_point.threshold))}
                  if ranking.operating_point is not None and math.isfinite(ranking.operating_point.threshold)
                  else None),
    }


def _explorer(data: dict[str, Any]) -> Markup:
    key = data["key"]
    n = len(data["thresholds"])
    note = ("every distinct threshold is here: the numbers are exact for any threshold you type" if data["exact"]
            else f"{n - 1:,} of the {data['distinct']:,} distinct thresholds are here (exact counts at each); a "
                 "typed threshold moves to the nearest one held")
    metrics = [("recall", "Recall (TPR)"), ("specificity", "Specificity"), ("fpr", "False positive rate"),
               ("precision", "Precision"), ("npv", "NPV"), ("accuracy", "Accuracy"), ("f1", "F1"),
               ("mcc", "MCC"), ("youden_j", "Youden's J"), ("expected_cost", "Expected cost")]
    rows = Markup("").join(Markup('<tr><th>{}</th><td class="num" data-metric="{}"></td></tr>').format(title, name)
                           for name, title in metrics)
    # the classes in the order of the confusion matrix above it
    order = [(data["negative"], ("tn", "fp")), (data["positive"], ("fn", "tp"))]
    if data["positive_first"]:
        order = [(data["positive"], ("tp", "fn")), (data["negative"], ("fp", "tn"))]
    head = Markup("").join(Markup("<th>{}</th>").format(label) for label, _ in order)
    body = Markup("").join(
        Markup('<tr><th>{}</th><td class="num" data-cell="{}"></td><td class="num" data-cell="{}"></td></tr>').format(
            label, *cells) for label, cells in order)
    return Markup('''
<section class="explorer" data-explorer="{key}">
  <h3>Threshold explorer</h3>
  <p class="muted">{note}. Use the slider (or the arrow keys on it), or type a threshold and press Enter;
  predicted {pos} iff score {op} threshold.</p>
  <div class="controls">
    <label for="threshold-slider-{key}">threshold</label>
    <input type="range" id="threshold-slider-{key}" class="threshold-slider" min="0" max="{last}" step="1"
           value="{start}" aria-label="threshold (index among the held thresholds)">
    <input type="number" id="threshold-value-{key}" class="threshold-value" step="any"
           aria-label="threshold value">
    <span class="threshold-note" id="threshold-note-{key}" aria-live="polite"></span>
  </div>
  <div class="explorer-body">
    <table class="explorer-matrix" id="explorer-matrix-{key}">
      <thead><tr><th>actual \\ predicted</th>{head}</tr></thead>
      <tbody>{body}</tbody>
    </table>
    <table class="explorer-metrics" id="explorer-metrics-{key}"><tbody>{rows}</tbody></table>
  </div>
</section>''').format(key=key, note=note, pos=data["positive"], op=Markup("&lt;=" if data["lower"] else "&gt;="),
                      head=head, body=body, last=n - 1,
                      start=data["start"], rows=rows)


# ---------------------------------------------------------------------------------------------------------------------
# pages


def _page(title: str, headline: str, subtitle: list[str], body: Markup, data: dict[str, Any]) -> str:
    template = _asset("page.html")
    from jinja2 import Environment

    env = Environment(autoescape=True)
    return env.from_string(template).render(
        title=title, headline=headline, subtitle=subtitle, body=body, data=embedded_json(data),
        css=Markup(_asset("report.css")), script=Markup(_asset("explorer.js")), version=__version__)


def _evaluation_sections(ev: Any, *, key: str, explorers: list[dict[str, Any]] | None,
                         notes: bool = True) -> Markup:
    """Heat map, threshold explorer (unless ``explorers`` is None), charts and the report's tables."""
    from assay.report.document import evaluation_document

    parts = [Markup("<h2>Confusion matrix</h2>"),
             _heatmap(ev.labels, ev.confusion.counts, ev.analysis.matrices,
                      table_id=f"confusion-{key}" if key != "0" else "confusion")] if ev.thresholded else []
    ranking = ev.ranking
    charts = []
    if ranking is not None and _two_class(ranking):
        roc = _roc_chart([("", ranking)], chart_id=f"roc-{key}", explorer=explorers is not None)
        pr = _pr_chart(ranking, chart_id=f"pr-{key}", explorer=explorers is not None)
        charts += [roc, pr, _gains_chart(ranking), _lift_chart(ranking), _cost_chart(ranking)]
        if explorers is not None:
            data = _explorer_data(ranking, roc, pr, key, positive_first=ev.labels[0] == ev.positive)
            explorers.append(data)
            parts.append(_explorer(data))
    elif ranking is not None and getattr(ranking, "average_precision", None):
        charts += _class_charts(ranking, chart_id=f"roc-{key}")
    if ev.probabilistic is not None:
        charts.append(_calibration_chart(ev.probabilistic.calibration))
    if charts:
        parts.append(Markup("<h2>Charts</h2><div class=\"charts\">{}</div>").format(
            Markup("").join(c.render() for c in charts)))
    _, sections = split_prelude(evaluation_document(ev))
    if notes:  # inside a page about several models, each model's own notes head its section
        parts.insert(0, Markup("").join(Markup('<p class="muted">{}</p>').format(note) for note in ev.notes))
    parts.append(render_blocks_html(sections))
    return Markup("\n").join(parts)


@dataclass
class _Contents:
    title: str
    headline: str
    subtitle: list[str]
    body: Markup
    explorers: list[dict[str, Any]] | None
    kind: str


def _contents(result: Any, *, explorer: bool) -> _Contents:
    from assay.evaluation.comparison import Comparison
    from assay.evaluation.ranking import RankingAnalysis
    from assay.evaluation.result import Evaluation
    from assay.evaluation.validation import Validation

    explorers: list[dict[str, Any]] | None = [] if explorer else None
    if _is_regression(result):  # numeric predictions: their own renderer, at the end of this module
        return _regression_contents(result)
    if isinstance(result, RankingAnalysis):
        result = result.drawable()  # a summary on disk: drawn through some of its exact points
    elif isinstance(result, Evaluation) and isinstance(result.ranking, RankingAnalysis):
        result = replace(result, ranking=result.ranking.drawable())
    if isinstance(result, Evaluation):
        from assay.report.document import _headline, _input_line

        body = _evaluation_sections(result, key="0", explorers=explorers, notes=False)
        line = _input_line(result)
        return _Contents("assay report", _headline(result), ([line] if line else []) + list(result.notes), body,
                         explorers, "report")
    if isinstance(result, Validation):
        return _validation_contents(result, explorers)
    if isinstance(result, Comparison):
        return _comparison_contents(result, explorers)
    if isinstance(result, RankingAnalysis):
        return _ranking_contents(result)
    from assay.inference.friedman import FriedmanResult

    if isinstance(result, FriedmanResult):
        return _friedman_contents(result)
    raise TypeError(f"no HTML report for {type(result).__name__}")


def _friedman_contents(r: Any, *, title: str = "assay friedman") -> _Contents:
    """Friedman's and Nemenyi's tests: the critical-difference diagram (SVG) and the report's tables."""
    from assay.report.cd_plot import cd_svg
    from assay.report.friedman import friedman_document

    _, sections = split_prelude(friedman_document(r, diagram=False, title=title))
    body = Markup('<div class="charts"><figure class="cd">{}</figure></div>').format(Markup(cd_svg(r))) + \
        render_blocks_html(sections)
    return _Contents(title, f"{r.n_models} models over {r.n_datasets} data sets · Friedman and Nemenyi "
                            f"(Demšar 2006)", [], body, None, "friedman")


def render_html(result: Any) -> str:
    """The self-contained HTML page of an Evaluation, a Validation or a Comparison."""
    c = _contents(result, explorer=True)
    return _page(c.title, c.headline, c.subtitle, c.body, {"explorers": c.explorers or [], "kind": c.kind})


def render_fragment(result: Any) -> str:
    """The report as a fragment for a notebook cell: the same tables and charts, without the script
    (notebooks do not run it) and with its style scoped to the fragment."""
    c = _contents(result, explorer=False)
    subtitle = Markup("").join(Markup('<p class="muted">{}</p>').format(line) for line in c.subtitle)
    return str(Markup('<div class="assay-fragment"><style>{}</style><p class="strong">{}</p>{}{}</div>').format(
        Markup(_asset("fragment.css")), c.headline, subtitle, c.body))


def _ranking_contents(ranking: Any) -> _Contents:
    from assay.report.format import estimate_cell

    level = f"{ranking.confidence:.0%}"
    rows = [[name, estimate_cell(e, as_percent=False), e.method or ""]
            for name, e in (("ROC AUC", ranking.roc_auc), ("Average precision", ranking.average_precision),
                            (f"Lift in the top {ranking.lift_depth:.0%}", ranking.lift))]
    table = Table(["Metric", f"Value ({level} CI)", "Interval method"], rows, align="lrl")
    charts = [_roc_chart([("", ranking)], chart_id="roc-ranking", explorer=False),
              _pr_chart(ranking, chart_id="pr-ranking", explorer=False), _gains_chart(ranking), _cost_chart(ranking)]
    body = Markup("{}<div class=\"charts\">{}</div>").format(_table(table), Markup("").join(c.render() for c in charts))
    labels = ranking.summary.labels
    n = int(ranking.summary.n_positive + ranking.summary.n_negative)
    headline = f"ranking by the scores · n = {n:,} · positive class {labels[1]!r} · " \
               f"{ranking.distinct:,} distinct scores"
    return _Contents("assay ranking", headline, [], body, None, "ranking")


def _validation_contents(v: Any, explorers: list[dict[str, Any]] | None) -> _Contents:
    from assay.report.validation import _settings_text, validation_document

    # the page draws the critical-difference diagram as a picture (the text one is left out), under the section's
    # own heading
    sections = split_prelude(validation_document(v, diagram=False))[1]
    parts = [render_blocks_html(sections)]
    if getattr(v, "friedman", None) is not None:
        from assay.report.cd_plot import cd_svg

        figure = Markup('<figure class="cd">{}</figure>').format(Markup(cd_svg(v.friedman)))
        ranks = next((i for i, block in enumerate(sections) if isinstance(block, Heading)
                      and block.text.startswith("Ranks over the parts")), None)
        parts = [render_blocks_html(sections[:ranks + 1]) + figure + render_blocks_html(sections[ranks + 1:])] \
            if ranks is not None else [Markup("<h2>Ranks over the parts</h2>") + figure, *parts]
    binary = [(name, m.report.ranking) for name, m in v.models.items()
              if m.report.ranking is not None and _two_class(m.report.ranking)]
    charts = [_folds_chart(v)]
    if binary:
        chart = _roc_chart(binary, chart_id="roc-models", explorer=False)
        space = getattr(v, "roc_space", None)
        if space:  # the combined hull of the models' curves
            hull = space["combined_hull"]["vertices"]
            chart.line(np.array([h["fpr"] for h in hull]), np.array([h["tpr"] for h in hull]), color="#222",
                       width=1.2, dash="6 3", label="combined convex hull")
        charts.insert(0, chart)
    parts.insert(0, Markup("<div class=\"charts\">{}</div>").format(Markup("").join(c.render() for c in charts)))
    for i, (name, m) in enumerate(v.models.items()):
        parts.append(Markup('<details class="model"{}><summary><h2>{} ({})</h2></summary>{}</details>').format(
            Markup(" open") if i == 0 else "", name, m.title,
            _evaluation_sections(m.report, key=str(i), explorers=explorers)))
    headline = f"data set {v.dataset} · {v.n:,} instances · {len(v.labels)} classes · " \
               f"{_settings_text(v.method, v.settings)}"
    return _Contents("assay validate", headline, list(v.features) + list(v.notes), Markup("\n").join(parts),
                     explorers, "validate")


def _comparison_contents(c: Any, explorers: list[dict[str, Any]] | None) -> _Contents:
    from assay.report.comparison import comparison_document, comparison_headline

    _, sections = split_prelude(comparison_document(c))
    parts = [render_blocks_html(sections)]
    binary = [(name, r.ranking) for name, r in zip(c.names, c.reports, strict=True)
              if r.ranking is not None and _two_class(r.ranking)]
    space = getattr(c, "roc_space", None)
    if binary or space:
        chart = _roc_chart(binary, chart_id="roc-models", explorer=False)
        if space:  # the combined hull, and the models that give labels as points
            hull = space["combined_hull"]["vertices"]
            chart.line(np.array([v["fpr"] for v in hull]), np.array([v["tpr"] for v in hull]), color="#222",
                       width=1.2, dash="6 3", label="combined convex hull")
            for k, m in enumerate(space["models"]):
                if m["fpr"] is not None and m["threshold"] is None:
                    chart.point(m["fpr"], m["tpr"], color=PALETTE[(len(binary) + k) % len(PALETTE)], radius=5,
                                label=f"{m['name']} ({m['region']})", title=f"{m['name']}: FPR {m['fpr']:.3f}, "
                                                                          f"TPR {m['tpr']:.3f}, {m['region']}")
        parts.insert(0, Markup("<div class=\"charts\">{}</div>").format(chart.render()))
    for i, (name, r) in enumerate(zip(c.names, c.reports, strict=True)):
        parts.append(Markup('<details class="model"><summary><h2>{}</h2></summary>{}</details>').format(
            name, _evaluation_sections(r, key=str(i), explorers=explorers)))
    return _Contents("assay compare", comparison_headline(c), list(c.notes),
                     Markup("\n").join(parts), explorers, "compare")


# ---------------------------------------------------------------------------------------------------------------------
# numeric predictions (assay report --task regression, assay validate --task regression)

REGRESSION_POINTS = 2000
"""At most this many instances are drawn in the HTML scatter plots (evenly spaced in the order of the actual
values); the tables use every instance."""


def _is_regression(result: Any) -> bool:
    return getattr(result, "task", None) == "regression" or type(result).__name__ == "RegressionEvaluation"


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


def _regression_charts(report: Any, key: str) -> list[Chart]:
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
    fit._legend.append((f"instances ({len(every_a):,}{', a sample drawn' if len(a) < len(every_a) else ''})",
                        PALETTE[0], "point"))
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


def _charts_markup(charts: list[Chart]) -> Markup:
    return Markup("<div class=\"charts\">{}</div>").format(Markup("").join(c.render() for c in charts)) \
        if charts else Markup("")


def _regression_contents(result: Any) -> _Contents:
    from assay.report.document import regression_document

    if not hasattr(result, "models"):  # a RegressionEvaluation
        prelude, sections = split_prelude(regression_document(result))
        body = Markup("\n").join([Markup("<h2>Charts</h2>"), _charts_markup(_regression_charts(result, "0")),
                                   render_blocks_html(sections)])
        headline = prelude[0].text if prelude else "numeric predictions"
        return _Contents("assay report", headline, [p.text for p in prelude[1:]], body, None, "report")
    from assay.report.validation import _settings_text, regression_validation_document

    parts = [render_blocks_html(split_prelude(regression_validation_document(result))[1])]
    for i, (name, m) in enumerate(result.models.items()):
        parts.append(Markup('<details class="model"{}><summary><h2>{} ({})</h2></summary>{}</details>').format(
            Markup(" open") if i == 0 else "", name, m.title, _charts_markup(_regression_charts(m.report, str(i)))))
    headline = f"data set {result.dataset} · {result.n:,} instances · numeric target · " \
               f"{_settings_text(result.method, result.settings)}"
    return _Contents("assay validate", headline, list(result.features) + list(result.notes),
                     Markup("\n").join(parts), None, "validate")
