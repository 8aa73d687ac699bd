"""Text for the calculators: ``assay interval``, the tests' calculators, ``assay z`` and ``assay plan``."""

from __future__ import annotations

from typing import Any

from assay.inference.mcnemar import METHOD_TITLES as MCNEMAR_TITLES
from assay.inference.proportion import METHOD_TITLES as INTERVAL_TITLES
from assay.report.blocks import Block, Heading, Paragraph, Table
from assay.report.format import level_text, percent, pvalue_text
from assay.report.markdown import render_blocks_markdown
from assay.report.text import render_blocks_text

__all__ = ["interval_document", "render_interval_text", "normal_table_document", "plan_document"]

_TITLES = {
    "wilson": "Wilson score interval",
    "clopper-pearson": "Clopper-Pearson exact interval",
    "agresti-coull": "Agresti-Coull interval",
    "jeffreys": "Jeffreys interval",
    "normal": "normal-approximation (Wald) interval",
}


def interval_document(r: Any) -> list[Block]:
    level = level_text(r.confidence)
    low, high = r.ci
    blocks: list[Block] = [
        Heading("assay interval", 1),
        Paragraph(f"{r.successes:,} successes out of {r.n:,}: {percent(r.estimate)}", "strong"),
        Table(
            ["", "estimate", "low", "high"],
            [[f"{level} {_TITLES[r.method]}", f"{r.estimate:.4f}", f"{low:.4f}", f"{high:.4f}"]],
        ),
        Paragraph(
            f"With {level} confidence, the true rate lies between {percent(low)} and {percent(high)} "
            f"({_TITLES[r.method]}, n = {r.n:,})."
        ),
    ]
    return blocks + _warning(r)


def _warning(r: Any) -> list[Block]:
    """The result's note (a normal approximation on small counts, say) as the warning every calculator ends with:
    the text and Markdown show it as JSON has it."""
    note = getattr(r, "note", None)
    return [Paragraph(f"Warning: {note}.", "strong")] if note else []


def render_interval_text(r: Any, *, color: bool | None = False) -> str:
    return render_blocks_text(interval_document(r), color=color)


def interval_markdown(r: Any) -> str:
    return render_blocks_markdown(interval_document(r))


def mcnemar_document(r: Any, table: tuple[int, int, int, int], confidence: float) -> list[Block]:
    a, b, c, d = table
    stat = "—" if r.statistic != r.statistic else f"{r.statistic:.3f}"
    return [
        Heading("assay mcnemar", 1),
        Table(["", "model 2 right", "model 2 wrong"],
              [["model 1 right", f"{a:,}", f"{b:,}"], ["model 1 wrong", f"{c:,}", f"{d:,}"]]),
        Paragraph(f"only one of the two is right on {b + c:,} instances: {b:,} times model 1, {c:,} times model 2",
                  "muted"),
        Table(["Test", "Statistic", "p-value"], [[MCNEMAR_TITLES.get(r.method, r.method), stat,
                                                   pvalue_text(r.pvalue)]], align="lrr"),
        Paragraph(r.verdict(confidence, what="the two classifiers' errors")[0].upper()
                  + r.verdict(confidence, what="the two classifiers' errors")[1:] + "."),
        *_warning(r),
    ]


def difference_document(r: Any, confidence: float) -> list[Block]:
    level = level_text(confidence)
    low, high = r.ci if r.ci is not None else (float("nan"), float("nan"))
    verdict = r.verdict(confidence)
    return [
        Heading("assay difference", 1),
        Table(["", "error rate", "test set"],
              [["model 1", percent(r.e1), f"{r.n1:,}"], ["model 2", percent(r.e2), f"{r.n2:,}"]]),
        Table(["d = e2 - e1", f"{level} CI", "z", "p-value", "significant from a confidence below"],
              [[f"{r.difference:+.4f}", f"{low:+.4f} – {high:+.4f}", f"{r.statistic:.3f}", f"{r.pvalue:.4f}",
                f"{r.threshold_confidence:.4f}"]], align="rrrrr"),
        Paragraph(verdict[0].upper() + verdict[1:] + ("" if verdict.endswith(".") else ".")),
        *_warning(r),
    ]


def normal_table_document(r: Any) -> list[Block]:
    """``assay z``: a line of the normal table, both sides."""
    def level(c: float, side_two: bool) -> str:
        given = r.solved_for == "z" and side_two == r.two_sided
        return level_text(r.confidence) if given else _percent4(c)

    return [
        Heading("assay z", 1),
        Table(["z", "two-sided confidence", "one-sided confidence", "P(Z >= z)"],
              [[f"{r.z:.4f}", level(r.two_sided_confidence, True), level(r.one_sided_confidence, False),
                _percent4(r.upper_tail)]], align="rrrr", stub_header=False),
        Paragraph(r.sentence),
        Paragraph("The standard normal table (Witten & Frank, Data Mining, ch. 5; Mitchell, Machine Learning, ch. 5).",
                  "muted"),
    ]


def _percent4(x: float) -> str:
    """A level of the normal table to 4 decimals, its trailing zeros dropped, as the level given is written:
    95% beside 90%, 93.6992% beside 87.3983%."""
    return f"{x * 100:.4f}".rstrip("0").rstrip(".") + "%"


def _share(x: float) -> str:
    return f"{x * 100:.4g}%"


def _real(x: float) -> str:
    return f"{int(x):,}" if float(x).is_integer() else f"{x:,.2f}"


def _plan_rows(r: Any) -> list[tuple[str, str, bool]]:
    """(quantity, value rounded for people, whether it is the one computed) for a plan result."""
    d = r.to_dict()
    q, solved = d["question"], d["solved_for"]
    if q == "proportion":
        return [("proportion expected", _share(r.p), False),
                ("half-width", f"±{r.half_width * 100:.3g} points", solved == "half_width"),
                ("confidence", level_text(r.confidence), False),
                ("interval", INTERVAL_TITLES[r.method], False),
                ("instances", f"{r.n:,}", solved == "n")]
    if q in ("auc", "auc_pair"):
        rows = [("AUC", f"{r.auc:.4f}", solved == "auc")] if q == "auc" else \
            [("difference of the AUCs", f"{r.delta:.4g}", False)]
        if solved == "n":
            rows += [("cases (positives)", f"{r.ncases_whole:,} ({r.ncases:.2f} as pROC gives it)", True),
                     ("controls (negatives)", f"{r.ncontrols_whole:,} ({r.ncontrols:.2f})", True)]
        else:
            rows += [("cases (positives)", _real(r.ncases), False), ("controls (negatives)", _real(r.ncontrols), False)]
        return rows + [("controls per case (kappa)", f"{r.kappa:.4g}", False),
                       ("significance level", f"{r.sig_level:.4g} ({r.alternative})", solved == "sig_level"),
                       ("power", _share(r.power), solved == "power")]
    if q == "mcnemar":
        return [("only classifier 1 right (p10)", _share(r.p10), False),
                ("only classifier 2 right (p01)", _share(r.p01), False),
                ("confidence", level_text(r.confidence), False),
                ("instances (pairs)", f"{r.n:,}", solved == "n"),
                ("power", _share(r.power), solved == "power")]
    return [("error rate of model 1", _share(r.e1), False), ("error rate of model 2", _share(r.e2), False),
            ("confidence", level_text(r.confidence), False),
            ("test set of model 1", f"{r.n1:,}", solved == "n"), ("test set of model 2", f"{r.n2:,}", solved == "n"),
            ("power", _share(r.power), solved == "power")]


def plan_document(r: Any) -> list[Block]:
    """``assay plan ...``: the quantities, the one computed marked, the sentence and the method."""
    d = r.to_dict()
    rows = [[name, value, "computed" if computed else ""] for name, value, computed in _plan_rows(r)]
    method = r.method
    if d["question"] == "proportion":
        method = (f"the half-width of the {INTERVAL_TITLES[r.method]} interval at k = p·n, as the tables of "
                  "Witten & Frank (ch. 5) and Mitchell (ch. 5) read backwards")
        if r.method == "normal":
            method += "; n = z² p (1 − p) / h², rounded up"
    return [
        Heading(f"assay plan {d['question'].replace('_', '-')}", 1),
        Table(["", "value", ""], rows, align="lrl"),
        Paragraph(r.sentence, "strong"),
        Paragraph(f"Method: {method}.", "muted"),
    ]
