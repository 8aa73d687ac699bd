"""The terminal summary, drawn with rich; plain text when output is piped."""

from __future__ import annotations

import io
from typing import Any

from assay.report.document import Block, Heading, Paragraph, Table, evaluation_document

__all__ = ["render_text", "render_blocks_text"]


def _rich_table(t: Table) -> Any:
    from rich import box
    from rich.table import Table as RichTable

    table = RichTable(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for name, a in zip(t.header, t.alignment(), strict=True):
        table.add_column(name, justify="right" if a == "r" else "left", overflow="fold")
    first_total = len(t.rows) - t.total_rows
    for i, row in enumerate(t.rows):
        table.add_row(*row, end_section=(i == first_total - 1 and t.total_rows > 0))
    return table


UNWRAPPED = 100_000
"""The width text is laid out at when no width is given (piped, no COLUMNS): lines are not wrapped."""


def render_blocks_text(blocks: list[Block], *, color: bool | None = None, width: int | None = None) -> str:
    """Lay out blocks for a terminal of ``width`` columns (None: not wrapped); ``color=None`` lets rich
    decide (off when piped). No line ends with blanks."""
    from rich.console import Console
    from rich.text import Text

    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=bool(color), no_color=not color, width=width or UNWRAPPED,
                      highlight=False, emoji=False, soft_wrap=False)
    for block in blocks:
        if isinstance(block, Heading):
            if block.level == 1:
                console.print(Text(block.text, style="bold underline"))
            else:
                console.print()
                console.print(Text(block.text, style="bold"))
        elif isinstance(block, Paragraph):
            style = {"plain": "", "muted": "dim", "strong": "bold"}[block.style]
            console.print(Text(block.text, style=style))
        else:
            console.print(_rich_table(block))
            if block.caption:
                console.print(Text(block.caption, style="dim"))
    return "\n".join(line.rstrip() for line in buffer.getvalue().split("\n"))


def render_text(evaluation: Any, *, color: bool | None = False, width: int | None = None, brief: bool = False) -> str:
    """The terminal summary of an ``Evaluation`` (``brief``: one screen of it)."""
    return render_blocks_text(evaluation_document(evaluation, brief=brief), color=color, width=width)
