"""What ``assay friedman`` says: the average ranks, the tests, the critical difference, a text diagram.

It renders, never computes: every number comes from the ``FriedmanResult``.
"""

from __future__ import annotations

from typing import Any

from assay.report.blocks import Block, Heading, Paragraph, Table
from assay.report.format import level_text, pvalue_text
from assay.report.markdown import render_blocks_markdown
from assay.report.text import render_blocks_text

__all__ = ["friedman_document", "friedman_markdown", "friedman_text", "cd_diagram_lines"]

WIDTH = 80
"""The text diagram fits this many columns."""

_LABEL_MAX = 24

PAIRS_SHOWN = 100
"""The most significantly different pairs listed in text, Markdown and HTML (a table of 25,000 pairs of 500
models is read by no one and takes minutes to lay out); the JSON keeps every pair."""


def _stat(x: float) -> str:
    if x != x:
        return "—"
    return "∞" if x == float("inf") else f"{x:.3f}"


def friedman_document(r: Any, *, diagram: bool = True, title: str = "assay friedman", level: int = 1,
                      scores: str | None = None) -> list[Block]:
    """The report's blocks; ``diagram`` adds the text critical-difference diagram, one paragraph per line.
    ``title`` is a heading of ``level``; ``scores`` says what the scores are ("accuracy ...")."""
    sub = min(level + 1, 3)
    level_words = level_text(r.confidence)
    scale = "higher scores are better" if r.better == "higher" else "lower scores are better"
    order = r.order
    blocks: list[Block] = [
        Heading(title, level),
        Paragraph(f"{r.n_models} models over {r.n_datasets} {r.unit}" + (f" · scores: {scores}" if scores else "")
                  + f" · ranked on each of them, 1 the best "
                  f"({scale}; ties share the average rank)", "muted"),
        Table(["Model", "average rank"],
              [[r.models[i], f"{r.average_ranks[i]:.3f}"] for i in order], align="lr"),
        Heading("Tests", sub),
        Table(["Test", "statistic", "df", "p-value"],
              [["Friedman chi-squared" + ("" if r.tie_correction else " (no tie correction)"), _stat(r.statistic),
                f"{r.n_models - 1}", pvalue_text(r.pvalue)],
               ["Iman-Davenport F", _stat(r.f_statistic),
                f"{r.n_models - 1}, {(r.n_models - 1) * (r.n_datasets - 1)}", pvalue_text(r.f_pvalue)]],
              align="lrrr"),
        Paragraph(f"Nemenyi critical difference at {level_words}: CD = q_alpha sqrt(k(k+1)/(6N)) = "
                  f"{r.q_alpha:.3f} × sqrt({r.n_models}·{r.n_models + 1}/(6·{r.n_datasets})) = "
                  f"{r.critical_difference:.3f}"),
    ]
    different = r.different_pairs()
    if different:
        blocks.append(Heading("Significantly different pairs (Nemenyi)", sub))
        blocks.append(Table(["Better ranked", "worse ranked", "rank difference", "p-value"],
                            [[p.first, p.second, f"{p.rank_difference:.3f}", pvalue_text(p.pvalue)]
                             for p in different[:PAIRS_SHOWN]], align="llrr"))
        if len(different) > PAIRS_SHOWN:
            blocks.append(Paragraph(f"… and {len(different) - PAIRS_SHOWN:,} more of the {len(different):,} pairs "
                                    f"that differ significantly (every pair is in the JSON output, "
                                    f"nemenyi.pairs).", "muted"))
    else:
        blocks.append(Paragraph(f"No two models' average ranks differ by more than the critical difference "
                                f"{r.critical_difference:.3f}.", "muted"))
    if diagram:
        blocks.append(Heading("Critical-difference diagram", sub))
        blocks += [Paragraph(line) for line in cd_diagram_lines(r)]
        blocks.append(Paragraph("Average ranks on the axis (1 = best); models joined by a bar (━) do not differ "
                                "significantly.", "muted"))
    if r.note:
        blocks.append(Paragraph(f"Note: {r.note}.", "strong"))
    blocks.append(Paragraph(r.verdict()))
    blocks.append(Paragraph(f"Method: {r.method}.", "muted"))
    return blocks


def friedman_text(r: Any, *, color: bool | None = False, width: int | None = None) -> str:
    return render_blocks_text(friedman_document(r), color=color, width=width)


def friedman_markdown(r: Any, **document: Any) -> str:
    """Markdown, the diagram in a fenced code block (``document``: as :func:`friedman_document`)."""
    text = render_blocks_markdown(friedman_document(r, diagram=False, **document))
    fence = "\n".join(["## Critical-difference diagram", "", "```", *cd_diagram_lines(r), "```", ""])
    return text + "\n" + fence


def _label(name: str, rank: float, room: int = _LABEL_MAX) -> str:
    if len(name) > room:
        name = name[: room - 1] + "…"
    return f"{name} ({rank:.2f})"


def cd_diagram_lines(r: Any, width: int = WIDTH) -> list[str]:
    """The critical-difference diagram as lines of text at most ``width`` columns wide.

    An axis of average ranks (1 on the left), the critical difference as a bar, a thick bar (━) under
    the axis for each group of models that do not differ significantly, and each model hung from its
    average rank: the better half labelled on the left, the rest on the right.
    """
    k = r.n_models
    order = r.order
    ranks = [float(r.average_ranks[i]) for i in order]
    room = max(8, min(_LABEL_MAX, (width - 30 - 4) // 2 - 7))  # leave the axis at least 30 columns
    labels = [_label(r.models[i], rank, room) for i, rank in zip(order, ranks, strict=True)]
    half = (k + 1) // 2
    left = max(len(s) for s in labels[:half]) + 2
    right = (max(len(s) for s in labels[half:]) + 2) if k > half else 2
    axis = max(min(width - left - right, 60), k)
    total = left + axis + right

    def pos(rank: float) -> int:
        return left + int(round((rank - 1.0) / (k - 1) * (axis - 1)))

    def blank() -> list[str]:
        return [" "] * total

    lines: list[list[str]] = []
    cd = float(r.critical_difference)
    line = blank()
    text = f"CD = {cd:.2f}"
    if 1.0 + cd <= k:
        a, b = pos(1.0), pos(1.0 + cd)
        line[a] = "├"
        for c in range(a + 1, b):
            line[c] = "─"
        line[b] = "┤"
        start = b + 2
    else:
        text += " (longer than the axis)"
        start = left
    for c, ch in enumerate(text):
        if start + c < total:
            line[start + c] = ch
    lines.append(line)
    ticks, bar = blank(), blank()
    for c in range(pos(1.0), pos(float(k)) + 1):
        bar[c] = "─"
    for t in range(1, k + 1):
        p = pos(float(t))
        digits = str(t)
        for c, ch in enumerate(digits):
            if p + c < total:
                ticks[p + c] = ch
        bar[p] = "├" if t == 1 else ("┤" if t == k else "┼")
    lines += [ticks, bar]
    where = [pos(x) for x in ranks]
    position = dict(zip((r.models[i] for i in order), where, strict=True))
    for clique in r.cliques:
        line = blank()
        for p in where:
            line[p] = "│"
        lo, hi = min(position[m] for m in clique), max(position[m] for m in clique)
        for c in range(lo, hi + 1):
            line[c] = "━"
        lines.append(line)
    # the models, hung from the axis: rows from the outside in
    hanging = set(range(k))
    rows = []
    for row in range(max(half, k - half)):
        line = blank()
        ends = []
        if row < half:
            ends.append((row, True))
        j = k - 1 - row
        if j >= half:
            ends.append((j, False))
        for i in hanging:
            line[where[i]] = "│"
        for i, on_left in ends:
            p = where[i]
            s = labels[i]
            if on_left:
                for c in range(left - 1, p):
                    line[c] = "─"
                line[p] = "┘"
                start = left - 2 - len(s)
            else:
                for c in range(p + 1, left + axis):
                    line[c] = "─"
                line[p] = "└"
                start = left + axis + 1
            for c, ch in enumerate(s):
                line[start + c] = ch
            hanging.discard(i)
        rows.append(line)
    lines += rows
    return ["".join(line).rstrip() for line in lines]
