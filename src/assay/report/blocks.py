"""What every report is made of before it is drawn: headings, paragraphs and tables.

A document (an evaluation's, a comparison's, a validation's, ...) is a list of these blocks, its text
already rounded and worded; the terminal, Markdown and HTML renderers only lay them out. ``Builder``
collects them in order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

__all__ = ["Heading", "Paragraph", "Table", "Block", "Builder"]


@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 2


@dataclass(frozen=True)
class Paragraph:
    text: str
    style: Literal["plain", "muted", "strong"] = "plain"


@dataclass(frozen=True)
class Table:
    header: list[str]
    rows: list[list[str]]
    align: str = ""  # one letter per column: l or r (default: first l, rest r)
    total_rows: int = 0  # trailing rows that are totals
    caption: str | None = None
    stub_header: bool = True  # the first column names the rows

    def alignment(self) -> str:
        return self.align or "l" + "r" * (len(self.header) - 1)


Block = Heading | Paragraph | Table


@dataclass
class Builder:
    """The blocks of a document, appended in reading order."""

    blocks: list[Block] = field(default_factory=list)

    def heading(self, text: str, level: int = 2) -> None:
        self.blocks.append(Heading(text, level))

    def para(self, text: str, style: Literal["plain", "muted", "strong"] = "plain") -> None:
        self.blocks.append(Paragraph(text, style))

    def table(self, table: Table) -> None:
        self.blocks.append(table)
