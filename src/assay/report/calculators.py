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
