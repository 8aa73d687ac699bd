"""The columns a reader hands on: each wanted column present and present once, never nested, and labels
from typed files (Parquet, JSON lines) as text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from assay.errors import InvalidInput

__all__ = ["missing_column", "check_names", "is_nested", "as_text"]


def missing_column(name: str, source: str, available: Sequence[str]) -> InvalidInput:
    """The error for a column not in a table, naming the table's first 20 columns."""
    shown = ", ".join(repr(c) for c in list(available)[:20])
    more = f" and {len(available) - 20} more" if len(available) > 20 else ""
    return InvalidInput(f"column {name!r} is not in {source} (its columns: {shown}{more})")


def is_nested(kind: Any) -> bool:
    """Whether an arrow type holds lists, structs or maps (directly or as a dictionary's values)."""
    return pa.types.is_nested(kind) or (pa.types.is_dictionary(kind) and pa.types.is_nested(kind.value_type))


def check_names(names: Sequence[str], wanted: Sequence[str], source: str) -> None:
    """Every wanted column present, and present once."""
    for name in wanted:
        if name not in names:
            raise missing_column(name, source, names)
        positions = [i + 1 for i, n in enumerate(names) if n == name]
        if len(positions) > 1:
            raise InvalidInput(f"column {name!r} appears {len(positions)} times in {source} (columns "
                               f"{', '.join(map(str, positions))}); rename all but one")


def as_text(column: Any) -> Any:
    """A non-text column (from Parquet or JSON) as text, numbers kept as numbers would print."""
    import pyarrow.compute as pc  # lazy (assay.lazy_imports): only labels typed by a Parquet or JSON file need it

    if pa.types.is_dictionary(column.type):
        return column.cast(pa.string()) if pa.types.is_string(column.type.value_type) else column
    if pa.types.is_integer(column.type) or pa.types.is_boolean(column.type):
        return pc.cast(column, pa.string())
    return column  # floats stay numbers: 1.0 and 1 are one class either way
