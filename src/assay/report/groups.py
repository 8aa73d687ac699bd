"""What ``assay report --by`` shows: a compact table by group, the gaps between the groups, and words.

Every number comes from the :class:`~assay.evaluation.groups.GroupedEvaluation`; the whole report of each
group is in the JSON (``--format json``), and in Python as ``r["group"]``.
"""

from __future__ import annotations

from typing import Any

from assay.inference.groups import RATES, SUMMARIES
from assay.report.blocks import Block, Builder, Table
from assay.report.document import evaluation_headline
from assay.report.format import estimate_cell, level_text, percent, pvalue_text

__all__ = ["groups_document", "MAX_ROWS"]

MAX_ROWS = 40
"""Groups shown in the text's tables at most (the largest first); the JSON has every one."""


def _metric(ev: Any, name: str) -> Any:
    return ev.metrics.get(name) if ev is not None and ev.thresholded else None


def _auc(ev: Any) -> Any:
    return getattr(ev.ranking, "roc_auc", None) if ev is not None and ev.ranking is not None else None


def _shown(r: Any) -> list[str]:
    labels = sorted(r.groups, key=lambda label: -r.sizes[label])
    return labels[:MAX_ROWS]


SHORT = {"selection_rate": "Selection rate", "tpr": "TPR", "fpr": "FPR", "accuracy": "Accuracy"}
"""The rates' titles in the table's head."""


def groups_document(r: Any, *, brief: bool = False) -> list[Block]:
    """The blocks of a report by group (``brief``: the table by group and the words)."""
    b = Builder()
    level = level_text(r.confidence)
    b.heading(f"assay report by {' and '.join(r.by)}", 1)
    b.para(evaluation_headline(r.overall), "strong")
    b.para(f"{len(r.groups):,} groups of {' / '.join(r.by)}", "muted")
    for note in (*r.overall.notes, *r.notes):
        b.para(note, "muted")
    shown = _shown(r)
    scored = any(_auc(ev) is not None for ev in r.groups.values())
    thresholded = r.overall.thresholded
    two_class = thresholded and r.overall.positive is not None
    head = ["group", "n"]
    if thresholded:
        head += ["Accuracy", "TPR (recall)", "FPR", "Selection rate"] if two_class else ["Accuracy"]
    if scored:
        head.append("ROC AUC")
    rows = []
    for label in ["(all)", *shown]:
        ev = r.overall if label == "(all)" else r.groups[label]
        n = r.overall.n if label == "(all)" else r.sizes[label]
        if ev is None:
            rows.append([label, f"{n:,}", *(["—"] * (len(head) - 2))])
            continue
        row = [label, f"{n:,}"]
        if thresholded:
            row.append(estimate_cell(_metric(ev, "accuracy"), as_percent=True))
        if two_class:
            row += [estimate_cell(_metric(ev, "recall"), as_percent=True),
                    estimate_cell(_metric(ev, "fpr"), as_percent=True),
                    estimate_cell(_metric(ev, "detection_prevalence"), as_percent=True)]
        if scored:
            row.append(estimate_cell(_auc(ev), as_percent=False))
        rows.append(row)
    caption = f"value ({level} CI); every group's whole report is in the JSON"
    if len(r.groups) > len(shown):
        caption += f"; the {len(shown)} largest of {len(r.groups):,} groups shown"
    b.heading("By group")
    b.table(Table(head, rows, align="l" + "r" * (len(head) - 1), caption=caption))
    for label, why in r.skipped.items():
        b.para(f"group {label!r} not evaluated: {why}", "muted")
    for warning in r.warnings:
        b.para(f"Warning: {warning}.", "strong")
    words: list[str] = []
    shown_tables = Builder() if brief else b  # brief: the gaps' tables left out, their words kept
    if r.disparities:
        shown_tables.heading("Gaps between the groups (fairlearn's definitions)")
        shown_tables.table(Table(["Summary", f"Value ({level} CI)", "Method"],
                      [[SUMMARIES[name], estimate_cell(e, as_percent=False), e.method or e.note or ""]
                       for name, e in r.disparities.items()], align="lrl"))
        words += _disparity_words(r, level)
    if r.tests:
        shown_tables.heading("Each group against the rest" if len(r.groups) > 2 else "The two groups")
        columns = list(RATES)
        by_group: dict[str, dict[str, Any]] = {}
        for t in r.tests:
            by_group.setdefault(t.group, {})[t.rate] = t
        rows = []
        for label in [g for g in shown if g in by_group]:
            cells = [label]
            for rate in columns:
                t = by_group[label].get(rate)
                if t is None or t.difference.value is None:
                    cells.append("—")
                    continue
                mark = " *" if t.significant(r.confidence) else ""
                cells.append(f"{t.difference.value * 100:+.1f} pp ({pvalue_text(t.adjusted)}){mark}")
            rows.append(cells)
        against = "the rest" if len(r.groups) > 2 else repr(r.tests[0].against)
        shown_tables.table(Table(["group", *(SHORT[rate] for rate in columns)], rows, align="l" + "r" * len(columns),
                      caption=f"difference from {against} in percentage points (Holm-adjusted p-value; * below "
                              f"{1 - r.confidence:g}); intervals (Newcombe) and tests (chi-squared, or Fisher's "
                              "exact for small counts) in the JSON"))
        words += _gap_words(r)
    if r.auc_tests:
        significant = r.significant_auc_tests()
        words.append(f"ROC AUC: {len(significant)} of {len(r.auc_tests)} group(s) differ significantly from "
                     f"{'the rest' if len(r.groups) > 2 else 'the other'} (DeLong's unpaired test, Holm-adjusted)"
                     + (": " + ", ".join(f"{t['group']} {t['auc']:.3f} vs {t['other']:.3f}" for t in significant[:5])
                        if significant else "") + ".")
    if not words:
        evaluated = sum(ev is not None for ev in r.groups.values())
        words = ["Too few groups evaluated to compare them." if evaluated < 2 else
                 "The gaps between the groups (their rates tested, fairlearn's summaries) are for two classes with "
                 "predicted labels; each group's whole report is in the JSON."]
    b.heading("In words")
    for w in words:
        b.para(w)
    return b.blocks


def _disparity_words(r: Any, level: str) -> list[str]:
    out = []
    for name in ("demographic_parity_difference", "equalized_odds_difference"):
        e = r.disparities.get(name)
        if e is None or e.value is None:
            continue
        ci = f" ({level} CI {e.ci.low:.3f} – {e.ci.high:.3f})" if e.ci is not None else ""
        out.append(f"The {SUMMARIES[name].lower()} is {e.value:.3f}{ci}: the largest gap between two groups in "
                   + ("the share predicted positive." if name.startswith("demographic") else
                      "the true or false positive rate."))
    return out


def _gap_words(r: Any) -> list[str]:
    found = r.significant_gaps()
    if not found:
        return [(f"At {r.confidence:.0%}, no group's rates differ significantly from "
                 f"{'the rest' if len(r.groups) > 2 else 'the other group'} (Holm-adjusted).")]
    found.sort(key=lambda t: t.adjusted)
    parts = [f"{t.group}'s {RATES[t.rate].lower()} {percent(t.value)} vs {percent(t.other)}" for t in found[:5]]
    more = f" and {len(found) - 5} more" if len(found) > 5 else ""
    return [f"At {r.confidence:.0%}, {len(found)} gap(s) are significant (Holm-adjusted): " + "; ".join(parts)
            + more + "."]
