"""What ``assay report --by`` shows: a compact table by group (and, for probabilities, their calibration by
group), the gaps between the groups, and words.

Every number comes from the :class:`~assay.evaluation.groups.GroupedEvaluation`; the whole report of each
group is in the JSON (``--format json``), and in Python as ``r["group"]``.
"""

from __future__ import annotations

import math
from typing import Any

from assay.inference.calibration import miscalibration
from assay.inference.estimate import ConfidenceInterval, Estimate
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
    words += _calibration_by_group(shown_tables, r, shown, level)
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


def _calibration_by_group(b: Builder, r: Any, shown: list[str], level: str) -> list[str]:
    """Probabilities: each group's Brier score, mean and weak calibration and ECE with their intervals (a table),
    and a sentence naming the groups whose calibration intercept or slope is off (Holm-adjusted)."""
    analyses = {label: None if ev is None else ev.probabilistic for label, ev in
                [("(all)", r.overall), *((label, r.groups[label]) for label in shown)]}
    if not any(p is not None for p in analyses.values()):
        return []
    hierarchy = any(p is not None and p.hierarchy is not None for p in analyses.values())
    table = any(p is not None and p.calibration is not None for p in analyses.values())
    one = next((p.calibration_class for p in analyses.values() if p is not None and p.calibration_class), None)
    head = ["group", "Brier" if one is None else "Brier (all classes)"] + \
        (["O/E", "Intercept", "Slope"] if hierarchy else []) + (["ECE"] if table else [])
    rows = []
    for label, p in analyses.items():
        if p is None:
            rows.append([label, *(["—"] * (len(head) - 1))])
            continue
        row = [label, estimate_cell(p.brier, as_percent=False)]
        if hierarchy:
            h = p.hierarchy
            row += ["—"] * 3 if h is None else [estimate_cell(e, as_percent=False)
                                                for e in (h.observed_expected, h.intercept, h.slope)]
        if table:
            row.append("—" if p.calibration is None else estimate_cell(_ece(p.calibration), as_percent=True))
        rows.append(row)
    of = f" of class {one!r}" if one is not None else ""
    b.heading(f"Calibration by group{of}" if hierarchy or table else "Brier score by group")
    caption = [f"value ({level} CI)", *(["ideal O/E 1, intercept 0, slope 1 (rms::val.prob's)"] if hierarchy else []),
               *([f"ECE in %, {_binning(analyses)}"] if table else [])]
    why = next((p.calibration.ece_interval.note for p in analyses.values() if p is not None and p.calibration
                is not None and p.calibration.ece_interval is not None and p.calibration.ece_interval.low is None
                and p.calibration.ece_interval.note), None)
    if why:  # an ECE shown without its interval: the first reason (the same budget for each)
        caption.append(f"an ECE without an interval: {why.removeprefix('no interval: ')}")
    b.table(Table(head, rows, align="l" + "r" * (len(head) - 1), caption="; ".join(caption)))
    if not r.calibration_tests:
        return []
    off = r.significant_calibration()
    tested = len({t["group"] for t in r.calibration_tests if t.get("pvalue_holm") is not None})
    if not off:
        return [f"At {r.confidence:.0%}, no group's probabilities{of} are significantly miscalibrated (calibration "
                f"intercept 0 and slope 1 not rejected in any of {tested} group(s), Holm-adjusted)."]
    how: dict[str, list[str]] = {}
    for t in off:
        how.setdefault(t["group"], []).append(miscalibration(t["test"], t["estimate"]))
    named = [f"{label} ({' and '.join(ways)})" for label, ways in list(how.items())[:5]]
    more = f" and {len(how) - 5} more" if len(how) > 5 else ""
    return [f"At {r.confidence:.0%}, the probabilities{of} of {len(how)} of {tested} group(s) are significantly "
            f"miscalibrated (calibration intercept against 0, slope against 1; Holm-adjusted): "
            + "; ".join(named) + more + "."]


def _ece(table: Any) -> Estimate:
    """The binned ECE of a calibration table with its bootstrap interval (where it has one)."""
    interval = table.ece_interval
    ci = ConfidenceInterval(interval.low, interval.high) \
        if interval is not None and interval.low is not None and interval.high is not None else None
    return Estimate(table.ece if math.isfinite(table.ece) else None, ci)


def _binning(analyses: dict[str, Any]) -> str:
    """'10 equal-width bins', as the calibration tables bin the probabilities."""
    cal = next(p.calibration for p in analyses.values() if p is not None and p.calibration is not None)
    return f"{len(cal.bins)} {'equal-width' if cal.strategy == 'uniform' else 'equal-count'} bins"


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
