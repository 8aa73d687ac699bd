"""Text for the calculators: ``assay interval`` (and the tests' calculators)."""

from __future__ import annotations

from typing import Any

from assay.report.document import Block, Heading, Paragraph, Table
from assay.report.format import level_text, percent
from assay.report.text import render_blocks_text

__all__ = ["interval_document", "render_interval_text"]

_TITLES = {
    "wilson": "Wilson score interval",
    "clopper-pearson": "Clopper-Pearson exact interval",
    "agresti-coull": "Agresti-Coull interval",
    "jeffreys": "Jeffreys interval",
    "normal": "normal-approximation (Wald) interval",
}


def interval_document(r: Any) -> list[Block]:
    level = level_text(r.confidence)
    low, high = r.ci
    return [
        Heading("assay interval", 1),
        Paragraph(f"{r.successes:,} successes out of {r.n:,}: {percent(r.estimate)}", "strong"),
        Table(
            ["", "estimate", "low", "high"],
            [[f"{level} {_TITLES[r.method]}", f"{r.estimate:.4f}", f"{low:.4f}", f"{high:.4f}"]],
        ),
        Paragraph(
            f"With {level} confidence, the true rate lies between {percent(low)} and {percent(high)} "
            f"({_TITLES[r.method]}, n = {r.n:,})."
        ),
    ]


def render_interval_text(r: Any, *, color: bool | None = False) -> str:
    return render_blocks_text(interval_document(r), color=color)


def interval_markdown(r: Any) -> str:
    from assay.report.markdown import render_blocks_markdown

    return render_blocks_markdown(interval_document(r))


def mcnemar_document(r: Any, table: tuple[int, int, int, int], confidence: float) -> list[Block]:
    from assay.inference.mcnemar import METHOD_TITLES
    from assay.report.format import pvalue_text

    a, b, c, d = table
    stat = "—" if r.statistic != r.statistic else f"{r.statistic:.3f}"
    return [
        Heading("assay mcnemar", 1),
        Table(["", "model 2 right", "model 2 wrong"],
              [["model 1 right", f"{a:,}", f"{b:,}"], ["model 1 wrong", f"{c:,}", f"{d:,}"]]),
        Paragraph(f"only one of the two is right on {b + c:,} instances: {b:,} times model 1, {c:,} times model 2",
                  "muted"),
        Table(["Test", "Statistic", "p-value"], [[METHOD_TITLES.get(r.method, r.method), stat,
                                                   pvalue_text(r.pvalue)]], align="lrr"),
        Paragraph(r.verdict(confidence, what="the two classifiers' errors")[0].upper()
                  + r.verdict(confidence, what="the two classifiers' errors")[1:] + "."),
    ]


def difference_document(r: Any, confidence: float) -> list[Block]:
    level = level_text(confidence)
    low, high = r.ci if r.ci is not None else (float("nan"), float("nan"))
    verdict = r.verdict(confidence)
    return [
        Heading("assay difference", 1),
        Table(["", "error rate", "test set"],
              [["model 1", percent(r.e1), f"{r.n1:,}"], ["model 2", percent(r.e2), f"{r.n2:,}"]]),
        Table(["d = e2 - e1", f"{level} CI", "z", "p-value", "significant from a confidence below"],
              [[f"{r.difference:+.4f}", f"{low:+.4f} – {high:+.4f}", f"{r.statistic:.3f}", f"{r.pvalue:.4f}",
                f"{r.threshold_confidence:.4f}"]], align="rrrrr"),
        Paragraph(verdict[0].upper() + verdict[1:] + ("" if verdict.endswith(".") else ".")),
    ]
