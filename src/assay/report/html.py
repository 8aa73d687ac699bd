"""The HTML report: one self-contained file, readable offline, with a threshold explorer.

Everything the page shows comes from the result objects: the tables and
sentences are the same blocks as the terminal and Markdown reports, the charts
are SVG drawn from the computed curves (:mod:`assay.report.html_charts`:
thinned for display within half a pixel; the numbers stay exact), and the
threshold explorer (:mod:`assay.report.explorer`) looks up exact counts and
rates that the library computed at each threshold it embeds. The page's script
computes nothing: it moves between precomputed rows. This module lays out the
blocks and puts each result's page together.

jinja2 is imported inside the function that fills the page's template (a
deliberate lazy import: a notebook's fragment does not need it).

Every string that comes from the data (class labels, column and file names) is
escaped: the page is built with ``markupsafe`` templates and the embedded JSON
escapes ``<``, ``>`` and ``&``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from importlib import resources
from typing import Any

import numpy as np
from markupsafe import Markup

from assay import __version__
from assay.evaluation.comparison import Comparison
from assay.evaluation.groups import GroupedEvaluation
from assay.evaluation.ranking import RankingAnalysis
from assay.evaluation.result import Evaluation
from assay.evaluation.validation import Validation
from assay.inference.friedman import FriedmanResult
from assay.metrics.confusion import BINARY_METRICS, MATRIX_METRICS
from assay.report.blocks import Block, Heading, Paragraph, Table
from assay.report.cd_plot import cd_svg
from assay.report.comparison import comparison_document, comparison_headline
from assay.report.document import (
    evaluation_document,
    evaluation_headline,
    input_line,
    regression_document,
)
from assay.report.explorer import EXPLORER_THRESHOLDS, explorer_data, explorer_section
from assay.report.format import estimate_cell
from assay.report.friedman import friedman_document
from assay.report.group_plots import GROUP_METRICS
from assay.report.groups import groups_document
from assay.report.html_charts import (
    calibration_chart,
    class_charts,
    cost_chart,
    decision_chart,
    folds_chart,
    gains_chart,
    group_chart,
    heatmap,
    lift_chart,
    pr_chart,
    regression_charts,
    roc_chart,
)
from assay.report.svg import PALETTE, Chart
from assay.report.validation import (
    regression_validation_document,
    settings_text,
    validation_document,
)

__all__ = ["EXPLORER_THRESHOLDS", "embedded_json", "render_blocks_html", "render_fragment", "render_html",
           "split_prelude"]


_DEFINITIONS = {spec.title: f"{spec.formula}" for spec in list(BINARY_METRICS.values()) + list(MATRIX_METRICS.values())}


def embedded_json(data: Any) -> Markup:
    """JSON safe inside a <script> element: <, > and & (and line separators) escaped."""
    text = json.dumps(data, allow_nan=False, separators=(",", ":"))
    text = (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))
    return Markup(text)


def _asset(name: str) -> str:
    return resources.files("assay.report").joinpath("templates", name).read_text(encoding="utf-8")


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
# pages


def _two_class(ranking: Any) -> bool:
    """Whether a result's ranking is the two-class analysis of scores (not the one-vs-rest of k classes)."""
    return isinstance(ranking, RankingAnalysis)


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
    parts = [Markup("<h2>Confusion matrix</h2>"),
             heatmap(ev.labels, ev.confusion.counts, ev.analysis.matrices,
                     table_id=f"confusion-{key}" if key != "0" else "confusion")] if ev.thresholded else []
    ranking = ev.ranking
    charts = []
    if ranking is not None and _two_class(ranking):
        roc = roc_chart([("", ranking)], chart_id=f"roc-{key}", explorer=explorers is not None)
        pr = pr_chart(ranking, chart_id=f"pr-{key}", explorer=explorers is not None)
        charts += [roc, pr, gains_chart(ranking), lift_chart(ranking), cost_chart(ranking)]
        if explorers is not None:
            data = explorer_data(ranking, roc, pr, key, positive_first=ev.labels[0] == ev.positive)
            explorers.append(data)
            parts.append(explorer_section(data))
    elif ranking is not None and getattr(ranking, "average_precision", None):
        charts += class_charts(ranking, chart_id=f"roc-{key}")
    if ev.probabilistic is not None and (ev.probabilistic.calibration is not None
                                         or getattr(ev.probabilistic, "moderate", None) is not None):
        charts.append(calibration_chart(ev.probabilistic.calibration, getattr(ev.probabilistic, "moderate", None)))
    if getattr(ev, "net_benefit", None) is not None:
        charts.append(decision_chart(ev.net_benefit))
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
    explorers: list[dict[str, Any]] | None = [] if explorer else None
    if _is_regression(result):  # numeric predictions: their own renderer, at the end of this module
        return _regression_contents(result)
    if isinstance(result, RankingAnalysis):
        result = result.drawable()  # a summary on disk: drawn through some of its exact points
    elif isinstance(result, Evaluation) and isinstance(result.ranking, RankingAnalysis):
        result = replace(result, ranking=result.ranking.drawable())
    if isinstance(result, Evaluation):
        body = _evaluation_sections(result, key="0", explorers=explorers, notes=False)
        line = input_line(result)
        return _Contents("assay report", evaluation_headline(result), ([line] if line else []) + list(result.notes),
                         body, explorers, "report")
    if isinstance(result, Validation):
        return _validation_contents(result, explorers)
    if isinstance(result, Comparison):
        return _comparison_contents(result, explorers)
    if isinstance(result, RankingAnalysis):
        return _ranking_contents(result)
    if isinstance(result, FriedmanResult):
        return _friedman_contents(result)
    if isinstance(result, GroupedEvaluation):
        return _groups_contents(result)
    raise TypeError(f"no HTML report for {type(result).__name__}")


def _friedman_contents(r: Any, *, title: str = "assay friedman") -> _Contents:
    """Friedman's and Nemenyi's tests: the critical-difference diagram (SVG) and the report's tables."""
    _, sections = split_prelude(friedman_document(r, diagram=False, title=title))
    body = Markup('<div class="charts"><figure class="cd">{}</figure></div>').format(Markup(cd_svg(r))) + \
        render_blocks_html(sections)
    return _Contents(title, f"{r.n_models} models over {r.n_datasets} data sets · Friedman and Nemenyi "
                            f"(Demšar 2006)", [], body, None, "friedman")


def _groups_contents(r: Any) -> _Contents:
    """A report by group: each metric by group with its interval, then the tables of the report."""
    charts = [c for c in (group_chart(r, metric, title, percent=percent)
                          for metric, (title, percent) in GROUP_METRICS.items()) if c is not None]
    _, sections = split_prelude(groups_document(r))
    body = Markup("<h2>By group</h2><div class=\"charts\">{}</div>{}").format(
        Markup("").join(c.render() for c in charts), render_blocks_html(sections))
    return _Contents(f"assay report by {' and '.join(r.by)}", evaluation_headline(r.overall),
                     [f"{len(r.groups):,} groups of {' / '.join(r.by)}", *r.notes], body, None, "groups")


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
    level = f"{ranking.confidence:.0%}"
    rows = [[name, estimate_cell(e, as_percent=False), e.method or ""]
            for name, e in (("ROC AUC", ranking.roc_auc), ("Average precision", ranking.average_precision),
                            (f"Lift in the top {ranking.lift_depth:.0%}", ranking.lift))]
    table = Table(["Metric", f"Value ({level} CI)", "Interval method"], rows, align="lrl")
    charts = [roc_chart([("", ranking)], chart_id="roc-ranking", explorer=False),
              pr_chart(ranking, chart_id="pr-ranking", explorer=False), gains_chart(ranking), cost_chart(ranking)]
    body = Markup("{}<div class=\"charts\">{}</div>").format(_table(table), Markup("").join(c.render() for c in charts))
    labels = ranking.summary.labels
    n = int(ranking.summary.n_positive + ranking.summary.n_negative)
    headline = f"ranking by the scores · n = {n:,} · positive class {labels[1]!r} · " \
               f"{ranking.distinct:,} distinct scores"
    return _Contents("assay ranking", headline, [], body, None, "ranking")


def _validation_contents(v: Any, explorers: list[dict[str, Any]] | None) -> _Contents:
    # the page draws the critical-difference diagram as a picture (the text one is left out), under the section's
    # own heading
    sections = split_prelude(validation_document(v, diagram=False))[1]
    parts = [render_blocks_html(sections)]
    if getattr(v, "friedman", None) is not None:
        figure = Markup('<figure class="cd">{}</figure>').format(Markup(cd_svg(v.friedman)))
        ranks = next((i for i, block in enumerate(sections) if isinstance(block, Heading)
                      and block.text.startswith("Ranks over the parts")), None)
        parts = [render_blocks_html(sections[:ranks + 1]) + figure + render_blocks_html(sections[ranks + 1:])] \
            if ranks is not None else [Markup("<h2>Ranks over the parts</h2>") + figure, *parts]
    binary = [(name, m.report.ranking) for name, m in v.models.items()
              if m.report.ranking is not None and _two_class(m.report.ranking)]
    charts = [folds_chart(v)]
    if binary:
        chart = roc_chart(binary, chart_id="roc-models", explorer=False)
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
               f"{settings_text(v.method, v.settings)}"
    return _Contents("assay validate", headline, list(v.features) + list(v.notes), Markup("\n").join(parts),
                     explorers, "validate")


def _comparison_contents(c: Any, explorers: list[dict[str, Any]] | None) -> _Contents:
    _, sections = split_prelude(comparison_document(c))
    # a summary on disk (a comparison read in batches): drawn through some of its exact points
    c = replace(c, reports=tuple(replace(r, ranking=r.ranking.drawable()) if isinstance(r.ranking, RankingAnalysis)
                                 else r for r in c.reports))
    parts = [render_blocks_html(sections)]
    binary = [(name, r.ranking) for name, r in zip(c.names, c.reports, strict=True)
              if r.ranking is not None and _two_class(r.ranking)]
    space = getattr(c, "roc_space", None)
    if binary or space:
        chart = roc_chart(binary, chart_id="roc-models", explorer=False)
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


def _is_regression(result: Any) -> bool:
    return getattr(result, "task", None) == "regression" or type(result).__name__ == "RegressionEvaluation"


def _charts_markup(charts: list[Chart]) -> Markup:
    return Markup("<div class=\"charts\">{}</div>").format(Markup("").join(c.render() for c in charts)) \
        if charts else Markup("")


def _regression_contents(result: Any) -> _Contents:
    if not hasattr(result, "models"):  # a RegressionEvaluation
        prelude, sections = split_prelude(regression_document(result))
        body = Markup("\n").join([Markup("<h2>Charts</h2>"), _charts_markup(regression_charts(result, "0")),
                                   render_blocks_html(sections)])
        headline = prelude[0].text if prelude else "numeric predictions"
        return _Contents("assay report", headline, [p.text for p in prelude[1:]], body, None, "report")
    parts = [render_blocks_html(split_prelude(regression_validation_document(result))[1])]
    for i, (name, m) in enumerate(result.models.items()):
        parts.append(Markup('<details class="model"{}><summary><h2>{} ({})</h2></summary>{}</details>').format(
            Markup(" open") if i == 0 else "", name, m.title, _charts_markup(regression_charts(m.report, str(i)))))
    headline = f"data set {result.dataset} · {result.n:,} instances · numeric target · " \
               f"{settings_text(result.method, result.settings)}"
    return _Contents("assay validate", headline, list(result.features) + list(result.notes),
                     Markup("\n").join(parts), None, "validate")
