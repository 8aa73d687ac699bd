"""Tables of estimates: one row per estimate with its value, its interval and the interval's method (or why
there is none), the table that holds them, its heading, and one screen's version of it (``--brief``).

Shared by the documents of an evaluation, of a ranking and of numeric predictions.
"""

from __future__ import annotations

from assay.inference.estimate import Estimate
from assay.report.blocks import Builder, Table
from assay.report.format import ci_text, method_title, value_text

__all__ = ["estimate_row", "metrics_table", "intervals_heading", "brief_table"]


def estimate_row(title: str, e: Estimate | None, *, as_percent: bool = False) -> list[str]:
    """A row of a metrics table: title, value, interval, and the interval's method, or why there is none."""
    if e is None or e.value is None:
        return [title, "undefined", "—", (e.note if e is not None else None) or ""]
    method = method_title(e.method)
    if e.ci is None and e.note:
        method = f"{method}: {e.note}" if method else e.note
    return [title, value_text(e, as_percent=as_percent), ci_text(e, as_percent=as_percent), method]


def metrics_table(rows: list[list[str]], level: str, first: str = "Metric") -> Table:
    """Metric, value, interval and method; with no interval at all (weights that are not counts) the interval
    column is left out, and a reason every row gives is said once, under the table."""
    if any(row[2] != "—" for row in rows):
        return Table([first, "Value", f"{level} CI", "Interval method"], rows, align="lrrl")
    notes = {row[3] for row in rows if row[3]}
    shared = notes.pop() if len(notes) == 1 and sum(1 for row in rows if row[3]) > 1 else None
    rows = [[row[0], row[1], "" if row[3] == shared else row[3]] for row in rows]
    if not any(row[2] for row in rows):
        return Table([first, "Value"], [row[:2] for row in rows], align="lr", caption=shared)
    return Table([first, "Value", "Note"], rows, align="lrl", caption=shared)


def intervals_heading(title: str, rows: list[list[str]], level: str) -> str:
    """'Metrics (95% confidence intervals)', or 'Metrics' when no row has one."""
    return f"{title} ({level} confidence intervals)" if any(row[2] != "—" for row in rows) else title


def brief_table(b: Builder, items: list[tuple[str, Estimate | None, bool]], level: str,
                first: str = "Metric") -> None:
    """The estimates of one screen; why an estimate has no interval is said under the table, once for the
    estimates that share a reason, so that the rows stay one line each."""
    rows, reasons = [], {}
    for title, e, as_percent in items:
        row = estimate_row(title, e, as_percent=as_percent)
        if e is not None and e.ci is None and e.note:
            row[3] = ""
            reasons.setdefault(e.note, []).append(title)
        rows.append(row)
    b.table(metrics_table(rows, level, first))
    if len(reasons) == 1 and len(next(iter(reasons.values()))) == len(rows):
        b.para(next(iter(reasons)), "muted")
        return
    for note, titles in reasons.items():
        names = titles[0] if len(titles) == 1 else ", ".join(titles[:-1]) + " and " + titles[-1]
        b.para(f"{names}: {note}", "muted")
