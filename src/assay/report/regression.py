"""What ``assay report --task regression`` shows: every error of the numeric predictions with its interval, the
definitions, and the main ones in words (Witten & Frank, ch. 5)."""

from __future__ import annotations

from typing import Any

from assay.report.blocks import Block, Builder, Table
from assay.report.estimate_tables import brief_table, intervals_heading
from assay.report.format import ci_text, level_text, method_title, percent, value_text

__all__ = ["regression_document", "BRIEF_REGRESSION"]


BRIEF_REGRESSION = ("rmse", "mae", "mean_error", "relative_absolute_error", "r2", "correlation")
"""The measures of ``--brief`` with numeric predictions."""


def regression_document(r: Any, *, brief: bool = False) -> list[Block]:
    """The blocks of an ``assay report --task regression`` (numeric predictions, Witten & Frank ch. 5); ``brief``: one
    screen of it (the main measures with their intervals, no definitions, and the words)."""
    b = Builder()
    if not brief:
        b.heading("assay report", 1)
    b.para(f"numeric predictions · n = {r.n:,} · mean of the actual values {r.actual_mean:.4g}", "strong")
    src = getattr(r, "source", None) or {}
    if src.get("file"):
        b.para(f"file {src['file']} · actual {src.get('truth')!r} · predicted {src.get('pred')!r}", "muted")
    for note in r.notes:
        b.para(note, "muted")
    level = level_text(r.confidence)
    if brief:
        b.para("")
        brief_table(b, [(r.metric_titles.get(name, (name, ""))[0], r.metrics[name], False)
                        for name in BRIEF_REGRESSION if name in r.metrics], level, "Measure")
    else:
        rows = []
        for name, e in r.metrics.items():
            title, formula = r.metric_titles.get(name, (name, ""))
            method = method_title(e.method)
            if e.value is None or (e.ci is None and e.note):
                method = e.note or method
            rows.append([title, value_text(e, as_percent=False), ci_text(e, as_percent=False), formula, method])
        b.heading(intervals_heading("Errors", rows, level))
        b.table(Table(["Measure", "Value", f"{level} CI", "Definition", "Interval"], rows, align="lrrll"))
        b.para("p = predicted, a = actual, ā = mean of the actual values; relative errors compare with always "
               "predicting ā", "muted")
    b.heading("In words")
    m = r.metrics
    if m["mae"].value is not None:
        b.para(f"Predictions are off by {m['mae'].value:.4g} on average (mean absolute error, {level} CI "
               f"{ci_text(m['mae'], as_percent=False)}), and by {m['rmse'].value:.4g} in root mean square.")
    rae = m["relative_absolute_error"]
    if rae.value is not None:
        b.para(f"That is {percent(rae.value)} of the absolute error of always predicting the mean "
               f"(relative absolute error); below 100% the model beats that baseline.")
    corr = m["correlation"]
    if corr.value is not None:
        b.para(f"Predicted and actual values correlate at {corr.value:.3f}.")
    return b.blocks
