"""A result's estimates as CSV: the rows of ``to_frame()`` (``assay report --format csv``), full precision."""

from __future__ import annotations

import csv
import io
from typing import Any

from assay.evaluation.tidy import COLUMNS, GROUP_COLUMNS, estimate_rows, subgroup_rows

__all__ = ["render_csv"]


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value) if value == value else ""
    return str(value)


def render_csv(result: Any) -> str:
    """section, metric, group, value, low, high, method, note; an empty cell for what is undefined (a report by
    group: its ``subgroup`` first)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    grouped = hasattr(result, "groups") and hasattr(result, "overall")
    columns = GROUP_COLUMNS if grouped else COLUMNS
    writer.writerow(columns)
    for row in (subgroup_rows(result) if grouped else estimate_rows(result)):
        writer.writerow([_cell(row[c]) for c in columns])
    return out.getvalue()
