"""Markdown: the same report as the terminal's, as pipe tables."""

from __future__ import annotations

from typing import Any

from assay.report.blocks import Block, Heading, Paragraph, Table
from assay.report.document import evaluation_document

__all__ = ["render_markdown", "render_blocks_markdown"]


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _table(t: Table) -> list[str]:
    lines = ["| " + " | ".join(_cell(h) for h in t.header) + " |"]
    lines.append("|" + "|".join(":---" if a == "l" else "---:" for a in t.alignment()) + "|")
    first_total = len(t.rows) - t.total_rows
    for i, row in enumerate(t.rows):
        cells = [_cell(c) for c in row]
        if i >= first_total:
            cells = [f"**{c}**" if c else c for c in cells]
        lines.append("| " + " | ".join(cells) + " |")
    if t.caption:
        lines.append("")
        lines.append(f"*{_cell(t.caption)}*")
    return lines


def render_blocks_markdown(blocks: list[Block]) -> str:
    out: list[str] = []
    for block in blocks:
        if isinstance(block, Heading):
            out.append("#" * block.level + " " + block.text)
        elif isinstance(block, Paragraph):
            text = _cell(block.text)
            out.append({"plain": text, "muted": f"*{text}*", "strong": f"**{text}**"}[block.style])
        else:
            out.extend(_table(block))
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def render_markdown(evaluation: Any) -> str:
    """The report of an ``Evaluation`` as Markdown."""
    return render_blocks_markdown(evaluation_document(evaluation))
