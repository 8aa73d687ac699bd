"""Curve points as CSV or JSON, full precision, for plotting elsewhere."""

from __future__ import annotations

import io
import json
import math
from typing import Any

import numpy as np

__all__ = ["curve_csv", "curve_json"]


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
    def clean(v: float) -> float | None:
        f = float(v)
        return f if math.isfinite(f) else None

    payload = {"kind": kind, "positive": positive,
               "columns": {name: [clean(v) for v in np.asarray(values)] for name, values in table.items()}}
    return json.dumps(payload, indent=1, allow_nan=False) + "\n"
