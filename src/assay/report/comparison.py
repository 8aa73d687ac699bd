"""What ``assay compare`` shows: the models side by side, the tests, the verdicts.

With more than two models: Cochran's Q, then one row per pair (McNemar's p-value and its Holm-adjusted
value, the accuracy difference with its interval, DeLong's p-values when both models give scores), and the
pairs that differ in plain words.
"""

from __future__ import annotations

import math
from typing import Any

from assay.report.blocks import Block, Heading, Paragraph, Table
from assay.report.format import estimate_cell, level_text, pvalue_text, statistic_text

__all__ = ["comparison_document", "comparison_headline", "roc_space_blocks"]

TITLES = {
    "mcnemar": "McNemar (instances where exactly one is right)",
    "accuracy_difference": "Paired bootstrap: accuracy {a} − {b}",
    "delong": "DeLong: ROC AUC {a} − {b}",
    "delong_unpaired": "DeLong, unpaired: ROC AUC {a} − {b}",
    "auc_bootstrap_unpaired": "Bootstrap, unpaired: ROC AUC {a} − {b}",
    "difference": "Error rate {b} − {a} (independent test sets)",
    "cochran_q": "Cochran's Q (equal accuracies of all the models)",
}
"""Each test's row, named with the two models; every difference is positive when the first model does better
(a higher accuracy or AUC, a lower error rate)."""


def _row_title(name: str, names: tuple[str, ...]) -> str:
    """A test's row title, naming the two models (the first two of ``names``)."""
    a, b = (names[0], names[1]) if len(names) >= 2 else ("A", "B")
    return TITLES.get(name, name).format(a=a, b=b)


def comparison_headline(c: Any) -> str:
    """ "tree vs forest · paired: the same instances"."""
    kind = "paired: the same instances" if c.paired else "unpaired: independent test sets"
    return f"{' vs '.join(c.names)} · {kind}"


def comparison_document(c: Any) -> list[Block]:
    level = level_text(c.confidence)
    blocks: list[Block] = [Heading("assay compare", 1)]
    blocks.append(Paragraph(comparison_headline(c), "strong"))
    for i, source in enumerate(c.sources):
        if source.get("file"):
            blocks.append(Paragraph(f"{c.names[i]}: {source['file']}", "muted"))
    for note in c.notes:
        blocks.append(Paragraph(note, "muted"))
    rows = []
    reasons: dict[str, list[str]] = {}  # why an estimate shown has no interval: the estimates that give it
    for name, r in zip(c.names, c.reports, strict=True):
        auc = None
        if r.ranking is not None:
            auc = r.ranking.roc_auc if hasattr(r.ranking, "roc_auc") else r.ranking.hand_till
        for title, e in (("accuracy", r.metrics["accuracy"]), ("kappa", r.metrics["kappa"]), ("ROC AUC", auc)):
            if e is not None and e.value is not None and e.ci is None and e.note:
                reasons.setdefault(e.note, []).append(f"{name}'s {title}")
        rows.append([name, f"{r.n:,}", estimate_cell(r.metrics["accuracy"], as_percent=True),
                     estimate_cell(r.metrics["kappa"], as_percent=False), estimate_cell(auc, as_percent=False)])
    caption = "; ".join(f"{_join(what)}: {note}" for note, what in reasons.items()) or None
    blocks.append(Table(["Model", "n", f"Accuracy ({level} CI)", "Kappa", "ROC AUC"], rows, align="lrrrr",
                        caption=caption))
    rows = []
    verdicts = []
    for name in c.tests:
        d = c.test_dict(name)
        stat = d.get("statistic")
        ci = d.get("ci")
        diff = d.get("difference")
        title = _row_title(name, c.names)
        if name == "mcnemar" and "b" in d:  # b and c, the counts its statistic is made of
            title = f"McNemar: b = {d['b']:,} right only by {c.names[0]}, c = {d['c']:,} only by {c.names[1]}"
        rows.append([title, statistic_text(name, stat, d.get("method")),
                     "—" if diff is None else f"{diff:+.4f}",
                     "—" if not ci else f"{ci[0]:+.4f} – {ci[1]:+.4f}", pvalue_text(d.get("pvalue"))])
        verdicts.append(d["verdict"])
    if rows:
        blocks.append(Heading("Tests"))
        differences = [name for name in c.tests if name not in ("mcnemar", "cochran_q")]
        blocks.append(Table(["Test", "Statistic", "Difference", f"{level} CI", "p-value"], rows, align="lrrrr",
                            caption=f"every difference is positive when {c.names[0]} does better (a higher accuracy "
                                    f"or AUC, a lower error rate)" if differences else None))
    if c.pairwise:
        blocks.extend(_pairwise_table(c, level))
        verdicts.extend(_pairwise_words(c, level))
    space = getattr(c, "roc_space", None)
    if space:
        verdicts.extend(roc_space_blocks(blocks, space))
    for d in getattr(c, "net_benefit_differences", ()):
        verdicts.append(_decision_difference(blocks, d, level))
    blocks.append(Heading("In words"))
    for v in verdicts:
        blocks.append(Paragraph(v[0].upper() + v[1:] + ("" if v.endswith(".") else ".")))
    return blocks


def _pairwise_table(c: Any, level: str) -> list[Block]:
    delong = any("delong" in p.tests for p in c.pairwise)
    labelled = any("mcnemar" in p.tests for p in c.pairwise)  # without a threshold: DeLong's alone
    adjusted = any(p.adjusted for p in c.pairwise)
    how = {"holm": "Holm", "bonferroni": "Bonferroni"}[c.pairwise[0].method] if adjusted else None
    header = ["Pair"] + (["McNemar p"] + ([how] if how else []) + [f"Accuracy difference ({level} CI)"]
                         if labelled else [])
    if delong:
        header += ["AUC difference", "DeLong p"] + ([how] if how else [])
    rows = []
    for p in c.pairwise:
        row = [" vs ".join(p.names)]
        if labelled and "mcnemar" not in p.tests:  # one of the two gives scores without a threshold
            row += ["—"] * (3 if how else 2)
        elif labelled:
            diff = p.tests.get("accuracy_difference")
            cell = "—"
            if diff is not None:
                ci = diff.ci
                cell = "—" if diff.difference != diff.difference else f"{diff.difference:+.4f}"
                if ci is not None:
                    cell += f" ({ci.low:+.4f} – {ci.high:+.4f})"
            row += [pvalue_text(p.tests["mcnemar"].pvalue)] + ([pvalue_text(p.adjusted.get("mcnemar"))] if how
                                                                 else []) + [cell]
        if delong:
            row += ["—"] if "delong" not in p.tests else [f"{p.tests['delong'].difference:+.4f}"]
            width = 2 if how else 1
            row += ["—"] * width if "delong" not in p.tests else \
                [pvalue_text(p.tests["delong"].pvalue)] + ([pvalue_text(p.adjusted.get("delong"))] if how else [])
        rows.append(row)
    sizes = {name: n for p in c.pairwise for name, n in p.family.items()}
    families = [f"McNemar's for {sizes['mcnemar']}"] if "mcnemar" in sizes else []
    if "delong" in sizes:
        families.append(f"DeLong's for {sizes['delong']}")
    caption = (f"{how}: the p-value adjusted by {how}'s method for multiple comparisons ({', '.join(families)}); "
               "differences: the first model's minus the second's") if how else \
        "p-values not adjusted for multiple comparisons; differences: the first model's minus the second's"
    return [Heading("Pairs"), Table(header, rows, align="l" + "r" * (len(header) - 1)), Paragraph(caption, "muted")]


def _pairwise_words(c: Any, level: str) -> list[str]:
    """One sentence per family of adjusted tests: which pairs differ, which do not."""
    out = []
    for name, test, what in (("mcnemar", "McNemar's test", "the error rates"),
                             ("delong", "DeLong's test", "the AUCs")):
        pairs = [p for p in c.pairwise if name in p.tests]
        if not pairs:
            continue
        differ, same, untested = [], [], []
        for p in pairs:
            adjusted = p.adjusted.get(name, p.tests[name].pvalue)
            pair = " vs ".join(p.names)
            if adjusted != adjusted:
                untested.append(pair)
            elif adjusted < 1.0 - c.confidence:
                differ.append(pair)
            else:
                same.append(pair)
        if not (differ or same):
            out.append(f"{test} cannot compare {what} of any pair")
            continue
        size = pairs[0].family.get(name)
        how_words = {"holm": "Holm's", "bonferroni": "Bonferroni's"}[pairs[0].method]
        head = (f"at {level}, after {how_words} adjustment for {size} comparison{'' if size == 1 else 's'}, "
                if size is not None else f"at {level}, with no adjustment for multiple comparisons, ") + \
            f"{test} finds {what}"
        every = len(pairs) == len(c.pairwise)  # else some pairs are not its to test (scores without a threshold)
        if not same:
            sentence = f"{head} significantly different for " + (
                "every pair" + (" it can test" if untested else "") if every else _join(differ))
        elif not differ:
            sentence = f"{head} not significantly different for " + (
                "any pair" + (" it can test" if untested else "") if every else _join(same))
        else:
            sentence = f"{head} significantly different for {_join(differ)}, and not for {_join(same)}"
        if untested:
            sentence += f" (it cannot test {_join(untested)})"
        out.append(sentence)
    return out


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def roc_space_blocks(blocks: list[Block], space: dict[str, Any]) -> list[str]:
    """The models in ROC space, their combined hull and the optimal one: blocks, and the sentences."""
    rows = [[m["name"], "—" if m["fpr"] is None else f"{m['fpr']:.3f}", "—" if m["tpr"] is None else f"{m['tpr']:.3f}",
             m["region"] or m["note"] or ""] for m in space["models"]]
    blocks.append(Heading("ROC space"))
    blocks.append(Table(["Model", "FPR", "TPR", "Region"], rows, align="lrrl"))
    hull = space["combined_hull"]
    optimal = space["optimal"]
    vertex = optimal["vertex"]
    where = "predicting nothing positive" if not vertex["classifier"] and vertex["fpr"] == 0 else \
        "predicting everything positive" if not vertex["classifier"] else \
        f"{vertex['classifier']}" + (f" at threshold {vertex['threshold']:.4g}" if vertex["threshold"] is not None
                                     else "")
    blocks.append(Paragraph(f"combined ROC convex hull: {len(hull['vertices'])} vertices; potentially optimal: "
                            f"{', '.join(hull['potentially_optimal']) or 'none'} (the others are never the best choice "
                            "under any costs and class ratio); a point on a hull edge is a random mix of its two ends "
                            "(assay.mix)", "muted"))
    words = [f"With false positives costing {optimal['costs']['fp']:g} and false negatives "
             f"{optimal['costs']['fn']:g} at {optimal['prevalence']:.1%} positives, the best choice is {where} "
             f"(iso-performance slope {optimal['slope']:.3g})"]
    worse = [m["name"] for m in space["models"] if m["region"] == "worse than random"]
    if worse:
        words.append(f"{', '.join(worse)} {'lies' if len(worse) == 1 else 'lie'} below the diagonal: inverting "
                     "the predictions would do better")
    return words



def _decision_difference(blocks: list[Block], d: Any, level: str) -> str:
    """Two models' net benefit at a few threshold probabilities, the difference with its paired interval (the
    whole curve in the JSON), and the sentence."""
    a, b = d.names
    t = d.thresholds
    rows_at = d.rows()
    blocks.append(Heading(f"Decision curves: net benefit of {a} − {b}"))

    def cell(v: float) -> str:
        return "—" if math.isnan(v) else f"{v:.3f}"

    rows = []
    for i in rows_at:
        band = "—" if d.interval is None or d.interval[0][i] != d.interval[0][i] else \
            f"{d.interval[0][i]:+.3f} – {d.interval[1][i]:+.3f}"
        rows.append([f"{t[i]:.2f}", cell(d.a[i]), cell(d.b[i]), "—" if d.difference[i] != d.difference[i]
                     else f"{d.difference[i]:+.3f}", band])
    blocks.append(Table(["threshold probability", a, b, "difference", f"{level} CI"], rows, align="lrrrr",
                        caption=(d.method if d.interval is not None else d.interval_note)
                        + f"; {len(t):,} threshold probabilities in the JSON"))
    return d.verdict()
