"""The terminal summary, drawn with rich; plain text when output is piped.

rich is imported inside the functions that draw (a deliberate lazy import: it takes some 50 ms, which
importing this module, for a document or a plot, does not pay).
"""

from __future__ import annotations

import io
import re
import textwrap
from dataclasses import replace
from typing import Any

from assay.report.blocks import Block, Heading, Paragraph, Table
from assay.report.document import evaluation_document

__all__ = ["render_text", "render_blocks_text"]


GAP = 3
"""Columns between two table columns as rich draws them here (a padding, the blank rule, a padding)."""


def _tokens(text: str, hyphens: bool) -> list[str]:
    """The pieces a cell may be broken between: words, and with ``hyphens`` the parts of a hyphenated word
    (each keeping its hyphen)."""
    words = text.split()
    if not hyphens:
        return words
    return [piece for word in words for piece in re.findall(r"[^-]*-+|[^-]+$", word) or [word]]


def _column_widths(t: Table, width: int) -> tuple[list[int], bool | None]:
    """Widths that fit ``width`` columns without breaking a word: the text columns narrow first (the widest
    first), then the numeric ones, each down to its longest word; only if that is not enough, down to its
    longest part of a hyphenated word. Returns the widths and whether hyphens may break; None when even that
    does not fit: the widest columns are then narrowed further, and their longest words folded (rather than
    cut off)."""
    rows = [t.header, *t.rows]
    k = len(t.header)
    natural = [max((len(line) for row in rows for line in row[j].split("\n")), default=0) for j in range(k)]
    budget = width - GAP * (k - 1)
    widths = list(natural)
    text_columns = [j for j, a in enumerate(t.alignment()) if a == "l"]
    for hyphens in (False, True):
        least = [max((len(w) for row in rows for w in _tokens(row[j], hyphens)), default=1) for j in range(k)]
        for columns in (text_columns, list(range(k))):
            while sum(widths) > budget:
                candidates = [j for j in columns if widths[j] > least[j]]
                if not candidates:
                    break
                widest = max(candidates, key=lambda j: widths[j])
                widths[widest] -= 1
        if sum(widths) <= budget:
            return widths, hyphens
    while sum(widths) > max(budget, k):
        widest = max(range(k), key=lambda j: widths[j])
        widths[widest] -= 1
    return widths, None


def _wrapped(text: str, width: int, hyphens: bool | None) -> str:
    """A cell's text wrapped at blanks to ``width`` (at hyphens too, when ``hyphens`` and blanks are not
    enough); a word is cut only when ``hyphens`` is None (a table that cannot fit otherwise)."""
    if all(len(line) <= width for line in text.split("\n")):
        return text
    lines = textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)
    if hyphens is not False and any(len(line) > width for line in lines):
        lines = textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=True)
    if hyphens is None:  # the last resort: a word longer than its column is folded, not lost
        lines = [line[i:i + width] for line in lines for i in range(0, len(line), width)]
    return "\n".join(lines)


def _rich_table(t: Table, width: int | None = None) -> Any:
    """The table for rich; at a given ``width`` its cells are wrapped here, between words, so that rich never
    folds one in the middle."""
    from rich import box
    from rich.table import Table as RichTable

    t = replace(t, header=[str(h) for h in t.header], rows=[[str(c) for c in row] for row in t.rows])
    widths: list[int | None] = [None] * len(t.header)
    header, rows = list(t.header), [list(r) for r in t.rows]
    if width is not None:
        fitted, hyphens = _column_widths(t, width)
        natural = [max((len(line) for row in [header, *rows] for line in row[j].split("\n")), default=0)
                   for j in range(len(header))]
        if fitted != natural:
            widths = list(fitted)
            header = [_wrapped(h, w, hyphens) for h, w in zip(header, fitted, strict=True)]
            rows = [[_wrapped(c, w, hyphens) for c, w in zip(row, fitted, strict=True)] for row in rows]
    table = RichTable(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for name, a, w in zip(header, t.alignment(), widths, strict=True):
        table.add_column(name, justify="right" if a == "r" else "left", overflow="fold", width=w,
                         no_wrap=w is not None)
    first_total = len(rows) - t.total_rows
    for i, row in enumerate(rows):
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
            console.print(_rich_table(block, width))
            if block.caption:
                console.print(Text(block.caption, style="dim"))
    return "\n".join(line.rstrip() for line in buffer.getvalue().split("\n"))


def render_text(evaluation: Any, *, color: bool | None = False, width: int | None = None, brief: bool = False,
                probabilities: bool = False) -> str:
    """The terminal summary of an ``Evaluation`` (``brief``: one screen of it; ``probabilities``: with the
    sentences of the probabilities' losses and calibration, when an option of theirs was asked for)."""
    return render_blocks_text(evaluation_document(evaluation, brief=brief, probabilities=probabilities),
                              color=color, width=width)
