"""A result's estimates as CSV: the rows of ``to_frame()`` (``assay report --format csv``), full precision."""

from __future__ import annotations

import csv
import io
from typing import Any

from assay.evaluation.tidy import COLUMNS, estimate_rows

__all__ = ["render_csv"]


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value) if value == value else ""
    return str(value)


def render_csv(result: Any) -> str:
    """section, metric, group, value, low, high, method, note; an empty cell for what is undefined."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in estimate_rows(result):
        writer.writerow([_cell(row[c]) for c in COLUMNS])
    return out.getvalue()
