"""Curve points as CSV or JSON, full precision, for plotting elsewhere."""

from __future__ import annotations

import io
import json
import math
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

__all__ = ["curve_cells", "curve_csv", "curve_csv_pieces", "curve_json", "curve_json_pieces", "curve_values"]


def _cell(x: Any) -> str:
    f = float(x)
    if math.isnan(f):
        return ""
    if math.isinf(f):
        return "inf" if f > 0 else "-inf"
    return repr(f) if not f.is_integer() else str(int(f)) if abs(f) < 2**53 else repr(f)


def curve_csv(table: dict[str, np.ndarray]) -> str:
    """Columns in the table's order; an undefined value is an empty cell, +inf is 'inf'."""
    out = io.StringIO()
    names = list(table)
    out.write(",".join(names) + "\n")
    columns = [np.asarray(table[n]) for n in names]
    for row in zip(*columns, strict=True):
        out.write(",".join(_cell(v) for v in row) + "\n")
    return out.getvalue()


def curve_json(table: dict[str, np.ndarray], *, kind: str, positive: str | None) -> str:
    """{"kind", "positive", "columns": {name: [values]}}; null for undefined or infinite values."""
    payload = {"kind": kind, "positive": positive, "columns": curve_values(table)}
    return json.dumps(payload, indent=1, allow_nan=False) + "\n"


def curve_cells(table: dict[str, np.ndarray]) -> dict[str, list[str | None]]:
    """The cells of :func:`curve_csv`, column by column, None for an empty one (an undefined value): what a
    CSV writer that leaves null cells empty writes as the same text.

    >>> curve_cells({"threshold": np.array([np.inf, 0.5]), "tp": np.array([0.0, 3.0]), "x": np.array([np.nan, 0.25])})
    {'threshold': ['inf', '0.5'], 'tp': ['0', '3'], 'x': [None, '0.25']}
    """
    return {name: [_cell(v) or None for v in np.asarray(values)] for name, values in table.items()}


def curve_values(table: dict[str, np.ndarray]) -> dict[str, list[float | None]]:
    """The values of :func:`curve_json`, column by column: None (JSON's null) for undefined or infinite ones."""
    return {name: [_finite(v) for v in np.asarray(values)] for name, values in table.items()}


def _finite(v: Any) -> float | None:
    f = float(v)
    return f if math.isfinite(f) else None


def curve_csv_pieces(chunks: Iterable[dict[str, np.ndarray]]) -> Iterator[str]:
    """:func:`curve_csv` of a curve given a chunk of rows at a time, a piece of text per chunk."""
    header = False
    for table in chunks:
        text = curve_csv(table)
        yield text if not header else text.split("\n", 1)[1]
        header = True


def curve_json_pieces(chunks: Callable[[], Iterable[dict[str, np.ndarray]]], *, kind: str,
                      positive: str | None) -> Iterator[str]:
    """:func:`curve_json` of a curve given a chunk of rows at a time, the same text: ``chunks()`` walks
    the curve anew for each column (the JSON holds the columns one after another)."""
    yield "{\n" + f' "kind": {json.dumps(kind)},\n "positive": {json.dumps(positive)},\n "columns": {{'
    names: list[str] = []
    for table in chunks():
        names = list(table)
        break
    for c, name in enumerate(names):
        yield ("," if c else "") + f"\n  {json.dumps(name)}: ["
        empty = True
        for table in chunks():
            values = [float(v) for v in np.asarray(table[name])]
            if values:
                yield ("" if empty else ",") + ",".join(
                    "\n   " + json.dumps(v if math.isfinite(v) else None) for v in values)
                empty = False
        yield "]" if empty else "\n  ]"
    yield ("\n }" if names else "}") + "\n}\n"
