"""What ``assay compare`` shows: both models side by side, the tests, the verdicts."""

from __future__ import annotations

from typing import Any

from assay.report.document import Block, Heading, Paragraph, Table
from assay.report.format import estimate_cell, level_text, pvalue_text

__all__ = ["comparison_document"]

TITLES = {
    "mcnemar": "McNemar (instances where exactly one is right)",
    "accuracy_difference": "Paired bootstrap: accuracy A - B",
    "delong": "DeLong: ROC AUC A - B",
    "difference": "Difference of error rates e_B - e_A (independent test sets)",
}


def comparison_document(c: Any) -> list[Block]:
    level = level_text(c.confidence)
    blocks: list[Block] = [Heading("assay compare", 1)]
    kind = "paired: the same instances" if c.paired else "unpaired: independent test sets"
    blocks.append(Paragraph(f"{c.names[0]} vs {c.names[1]} · {kind}", "strong"))
    for i, source in enumerate(c.sources):
        if source.get("file"):
            blocks.append(Paragraph(f"{c.names[i]}: {source['file']}", "muted"))
    for note in c.notes:
        blocks.append(Paragraph(note, "muted"))
    rows = []
    for name, r in zip(c.names, c.reports, strict=True):
        auc = None
        if r.ranking is not None:
            auc = r.ranking.roc_auc if hasattr(r.ranking, "roc_auc") else r.ranking.hand_till
        rows.append([name, f"{r.n:,}", estimate_cell(r.metrics["accuracy"], as_percent=True),
                     estimate_cell(r.metrics["kappa"], as_percent=False), estimate_cell(auc, as_percent=False)])
    blocks.append(Table(["Model", "n", f"Accuracy ({level} CI)", "Kappa", "ROC AUC"], rows, align="lrrrr"))
    rows = []
    verdicts = []
    for name in c.tests:
        d = c.test_dict(name)
        stat = d.get("statistic")
        ci = d.get("ci")
        diff = d.get("difference")
        rows.append([TITLES.get(name, name), "—" if stat is None else f"{stat:.3f}",
                     "—" if diff is None else f"{diff:+.4f}",
                     "—" if not ci else f"{ci[0]:+.4f} – {ci[1]:+.4f}", pvalue_text(d.get("pvalue"))])
        verdicts.append(d["verdict"])
    blocks.append(Heading("Tests"))
    blocks.append(Table(["Test", "Statistic", "Difference", f"{level} CI", "p-value"], rows, align="lrrrr"))
    blocks.append(Heading("In words"))
    for v in verdicts:
        blocks.append(Paragraph(v[0].upper() + v[1:] + ("" if v.endswith(".") else ".")))
    return blocks
