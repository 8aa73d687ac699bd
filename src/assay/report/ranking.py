"""The text of a ranking analysis alone (``assay.rank``; ``print(r)``): the ranking section of a report."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from assay.report.document import Block, _Builder, _ranking_section

__all__ = ["ranking_document", "ranking_headline"]


def ranking_headline(r: Any) -> str:
    """ "ranking by the scores · n = 569 · positive class '1' · 540 distinct scores"."""
    n = r.summary.n_positive + r.summary.n_negative
    count = f"{int(n):,}" if float(n).is_integer() else f"{float(n):,.6g} (sum of weights)"
    return f"ranking by the scores · n = {count} · positive class {r.summary.labels[1]!r} · " \
           f"{r.distinct:,} distinct scores"


def ranking_document(r: Any) -> list[Block]:
    """The blocks of a RankingAnalysis: its headline, then the tables and sentences of a report's ranking
    section (AUC, Gini, average precision, lift; the thresholds; the hull)."""
    b = _Builder()
    b.heading("assay ranking", 1)
    b.para(ranking_headline(r), "strong")
    words = _ranking_section(b, SimpleNamespace(ranking=r, confidence=r.confidence))
    if words:
        b.heading("In words")
        for w in words:
            b.para(w)
    return b.blocks
