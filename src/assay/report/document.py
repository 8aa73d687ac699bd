"""What the report of a classifier says, before it is drawn: headings, tables and sentences.

``evaluation_document`` turns an ``Evaluation`` into a list of blocks whose text
is already rounded and worded; the terminal and Markdown renderers only lay
them out. Nothing here computes a metric: every number comes from the result.
The blocks themselves are in :mod:`assay.report.blocks`; a ranking's section in
:mod:`assay.report.ranking`, numeric predictions' report in
:mod:`assay.report.regression` (both also importable from here).
"""

from __future__ import annotations

import math
from typing import Any

from assay.evaluation.result import Evaluation
from assay.inference.estimate import Estimate
from assay.metrics.confusion import BINARY_METRICS, MATRIX_METRICS
from assay.report.blocks import Block, Builder, Heading, Paragraph, Table
from assay.report.estimate_tables import (
    brief_table,
    estimate_row,
    intervals_heading,
    metrics_table,
)
from assay.report.format import (
    ci_text,
    level_text,
    method_title,
    number,
    percent,
    percent_cell,
    pvalue_text,
    value_text,
)
from assay.report.ranking import ranking_document, ranking_headline, ranking_section
from assay.report.regression import regression_document

__all__ = ["Heading", "Paragraph", "Table", "Block", "evaluation_document", "evaluation_headline", "input_line",
           "ranking_document", "ranking_headline", "regression_document"]


# metrics whose text shows them as percentages
def _is_percent(name: str) -> bool:
    spec = BINARY_METRICS.get(name) or MATRIX_METRICS.get(name)
    if spec is None:
        return name in ("fbeta", "ppv_at_prevalence", "npv_at_prevalence", "top_k_accuracy")
    return spec.percent


def _title(name: str, beta: float) -> str:
    if name == "fbeta":
        return f"F-beta (beta = {beta:g})"
    if name == "expected_cost":
        return "Expected cost per instance"
    if name == "weighted_kappa":
        return "Weighted kappa"
    if name in ("ppv_at_prevalence", "npv_at_prevalence"):
        return f"{name[:3].upper()} at the prevalence given"
    spec = BINARY_METRICS.get(name) or MATRIX_METRICS.get(name)
    return spec.title if spec else name


def _metric_row(name: str, e: Estimate, beta: float) -> list[str]:
    as_pct = _is_percent(name)
    method = method_title(e.method)
    title = _title(name, beta)
    if name == "top_k_accuracy":  # its note starts "k = K: ..."
        k = (e.note or "").split(":", 1)[0].removeprefix("k = ")
        title = f"Top-{k} accuracy" if k.isdigit() else "Top-k accuracy"
        note = (e.note or "").split(":", 1)[-1].split("; ", 1)
        if e.value is not None and len(note) > 1:
            method = f"{method}: {note[1]}" if method else note[1]
        return [title, value_text(e, as_percent=as_pct), ci_text(e, as_percent=as_pct), method] \
            if e.value is not None else [title, "undefined", "—", e.note or ""]
    return estimate_row(title, e, as_percent=as_pct)


def input_line(ev: Evaluation) -> str | None:
    """What was read, in one line: the file, the truth, the predictions or scores, the weights; None if nothing."""
    src = ev.source
    parts = []
    if src.get("file"):
        parts.append(f"file {src['file']}")
    if src.get("truth"):
        parts.append(f"truth {src['truth']!r}")
    if src.get("pred"):
        parts.append(f"predicted labels {src['pred']!r}")
    if src.get("score"):
        parts.append(f"scores {src['score']!r}")
    if src.get("proba"):
        parts.append(f"probabilities {', '.join(repr(c) for c in src['proba'])}")
    if src.get("weight"):
        parts.append(f"sample weights {src['weight']!r}")
    if src.get("confusion"):
        parts.append(f"confusion matrix {src['confusion']}")
    return " · ".join(parts) if parts else None


def evaluation_headline(ev: Evaluation, *, short: bool = False) -> str:
    """The report's first line (``short``: the threshold as 'score >= 0.5', for one screen)."""
    k = len(ev.labels)
    kind = "binary classification" if ev.task == "binary" else f"{k}-class classification"
    text = f"{kind} · total weight {_count(ev.n)}" if ev.weighted else f"{kind} · n = {_count(ev.n)}"
    if ev.positive is not None:
        text += f" · positive class {ev.positive!r}"
    if ev.threshold is not None:
        text += f" · {'' if short else 'predicted positive iff '}score {'<=' if ev.direction == 'lower' else '>='} " \
                f"{ev.threshold:g}"
    elif not ev.thresholded:
        text += " · no threshold"
    return text


MAX_CLASSES_DRAWN = 60
"""Above this many classes, a text or Markdown report describes the confusion matrix instead of drawing
it (a million cells fit no terminal); the JSON keeps every cell."""


COMPACT_CLASSES = 6
"""Classes from which the confusion matrix is drawn compact: counts in one table, row percentages in a
second, empty cells left blank."""


def _confusion_tables(ev: Evaluation) -> list[Table]:
    """The confusion matrix: counts with row percentages in each cell; from ``COMPACT_CLASSES`` classes,
    counts alone (a zero left blank) and the row percentages in a second table, so that neither wraps."""
    counts = ev.confusion.counts
    by_actual = ev.analysis.matrices["normalized_by_actual"]
    k = len(ev.labels)
    compact = k >= COMPACT_CLASSES
    # many classes with long names: the columns are numbered and the rows carry the numbers, so that the
    # tables stay narrow at any terminal width and no name is broken across lines
    numbered = compact and max(len(label) for label in ev.labels) > len(str(k)) + 2
    columns = [str(j + 1) for j in range(k)] if numbered else list(ev.labels)
    names = [f"{i + 1} {label}" for i, label in enumerate(ev.labels)] if numbered else list(ev.labels)
    header = ["actual \\ predicted", *columns, "total"]
    key = " · columns numbered as the rows" if numbered else ""
    rows = []
    for i, label in enumerate(names):
        cells = []
        for j in range(k):
            share = by_actual[i][j]
            if compact:
                cells.append(_count(counts[i, j]) if counts[i, j] else "")
            else:
                cells.append(_count(counts[i, j]) + (f" ({share * 100:.1f}%)" if share is not None else ""))
        rows.append([label, *cells, _count(counts[i].sum())])
    rows.append(["total", *[_count(c) for c in counts.sum(axis=0)], _count(counts.sum())])
    if not compact:
        return [Table(header, rows, total_rows=1,
                      caption="rows: actual class · columns: predicted class · (row percentages)")]
    shares = [[label, *[f"{by_actual[i][j] * 100:.1f}" if counts[i, j] and by_actual[i][j] is not None else ""
                        for j in range(k)]] for i, label in enumerate(ev.labels)]
    shares = [[names[i], *row[1:]] for i, row in enumerate(shares)]
    return [Table(header, rows, total_rows=1, caption="rows: actual class · columns: predicted class · counts" + key),
            Table(header[:-1], shares, caption="row percentages: the share of each actual class predicted as "
                                                "each class (empty: none)" + key)]


def _in_brackets(name: str, e: Estimate, level: str) -> str:
    """' (recall 80.0%, 95% CI 71.2–86.6%)': the interval only when there is one."""
    if e.ci is None:
        return f" ({name} {percent(e.value)})"
    return f" ({name} {percent(e.value)}, {level} CI {ci_text(e, as_percent=True)})"


def _words_binary(ev: Evaluation) -> list[str]:
    pos = ev.positive
    assert pos is not None
    labels = ev.labels
    p = labels.index(pos)
    neg = labels[1 - p]
    c = ev.confusion.counts
    tp, fn, fp, tn = c[p, p], c[p, 1 - p], c[1 - p, p], c[1 - p, 1 - p]
    m = ev.metrics
    level = level_text(ev.confidence)
    out = []
    recall = m["recall"]
    out.append(
        f"Of the {_count(tp + fn)} actual {pos!r}, the classifier found {_count(tp)}"
        + (_in_brackets("recall", recall, level) + "." if recall.value is not None else ".")
    )
    precision = m["precision"]
    if tp + fp:
        out.append(f"When it predicted {pos!r} it was right {_count(tp)} times out of {_count(tp + fp)}"
                   + _in_brackets("precision", precision, level) + ".")
    else:
        out.append(f"It never predicted {pos!r}, so its precision is undefined.")
    fpr = m["fpr"]
    if fp + tn:
        out.append(
            f"Of the {_count(fp + tn)} actual {neg!r}, it wrongly flagged {_count(fp)} as {pos!r}"
            f" (false positive rate {percent(fpr.value)})."
        )
    return out


def _kappa_words(kappa: float | None) -> str | None:
    """Landis & Koch (1977)'s names for ranges of kappa."""
    if kappa is None:
        return None
    for bound, word in ((0.0, "poor"), (0.2, "slight"), (0.4, "fair"), (0.6, "moderate"), (0.8, "substantial")):
        if kappa <= bound:
            return word
    return "almost perfect"


def _count(value: Any) -> str:
    """A count with thousands separators; a total of weights that are not whole to 4 significant digits."""
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{float(value):,.4g}" if abs(float(value)) < 1e4 else f"{float(value):,.0f}"


def _tests_table(ev: Evaluation) -> tuple[Table | None, list[str]]:
    rows = []
    verdicts = []
    if "accuracy_vs_nir" not in ev.tests:  # weights that are not counts
        return None, []
    nir = ev.tests["accuracy_vs_nir"]
    rows.append(["Accuracy > no-information rate", f"{nir.correct:,} correct", pvalue_text(nir.pvalue),
                 "exact binomial, one-sided"])
    verdicts.append(nir.verdict(ev.confidence))
    kappa = ev.tests["kappa"]
    rows.append([f"Kappa {'<' if kappa.kappa < 0 else '>'} 0",  # two-sided: the side the estimate lies on
                 f"z = {kappa.statistic:.2f}" if kappa.statistic == kappa.statistic else "—",
                 pvalue_text(kappa.pvalue), "z test, Fleiss-Cohen-Everitt"])
    if "weighted_kappa" in ev.tests:
        wk = ev.tests["weighted_kappa"]
        rows.append([f"Weighted kappa > 0 ({wk.weights})", f"z = {wk.statistic:.2f}" if wk.statistic == wk.statistic
                     else "—", pvalue_text(wk.pvalue), "z test, Fleiss-Cohen-Everitt"])
        verdicts.append(wk.verdict(ev.confidence).replace("kappa > 0", "weighted kappa > 0"))
    if "mcnemar" in ev.tests:
        mc = ev.tests["mcnemar"]
        stat = f"X² = {mc.statistic:.3f}" if mc.statistic == mc.statistic else "—"
        rows.append([f"McNemar: FN ({mc.b:,}) vs FP ({mc.c:,})", stat, pvalue_text(mc.pvalue),
                     "chi-squared, continuity-corrected"])
        verdicts.append(mc.verdict(ev.confidence, what="false negatives and false positives"))
    return Table(["Test", "Statistic", "p-value", "Method"], rows, align="lrrl"), verdicts


def _per_class_table(ev: Evaluation) -> Table:
    names = ["precision", "recall", "f1", "specificity"]
    if ev.beta != 1.0:
        names.append("fbeta")
    header = ["class", "support", *[_title(n, ev.beta).split(" (")[0] for n in names]]
    rows = []
    for label, entry in ev.analysis.per_class.items():  # the labels as text
        rows.append([str(label), _count(entry["support"]), *[percent_cell(entry[n]) for n in names]])
    intervals = any(isinstance(e, Estimate) and e.ci is not None for entry in ev.per_class.values()
                    for e in entry.values())
    return Table(header, rows, caption=f"value ({level_text(ev.confidence)} CI, in %)" if intervals else
                 "value in %" + ("; no intervals: the sample weights are not counts" if ev.weighted else ""))


def _averages_table(ev: Evaluation) -> Table:
    names = list(next(iter(ev.averages.values())).keys())
    header = ["average", *[_title(n, ev.beta).split(" (")[0] for n in names]]
    rows = []
    for kind, group in ev.averages.items():
        rows.append([kind, *[percent_cell(group[n]) for n in names]])
    return Table(header, rows, caption="micro: pooled counts · macro: mean over classes · weighted: by support")


def _undefined_notes(ev: Evaluation) -> list[str]:
    notes = []
    for label, entry in ev.analysis.per_class.items():  # the labels as text
        for name, e in entry.items():
            if isinstance(e, Estimate) and e.value is None and e.note:
                notes.append(f"{label} {name}: {e.note}")
    for kind, group in ev.averages.items():
        for name, e in group.items():
            if e.value is None and e.note:
                notes.append(f"{kind} {name}: {e.note}")
    return notes


BRIEF_METRICS = ("accuracy", "balanced_accuracy", "recall", "precision", "specificity", "f1", "kappa", "mcc")
"""The metrics of ``--brief``, those that apply."""


BRIEF_LEFT_OUT = (
    "scores within [0, 1] are read as probabilities",
    "the scores are not within [0, 1]: no probabilistic",
    "lower scores mean the positive class, so they are not its probabilities",
    "the iso-performance line lies along a hull edge",
    "the probabilistic losses and calibration: none",
)
"""The beginnings of the notes about sections that ``--brief`` leaves out (the probabilistic losses and
calibration, the thresholds); every other note, the ranking's included, is kept."""


def _brief_notes(ev: Evaluation) -> list[str]:
    """The notes of one screen: the evaluation's and the ranking's (where 'the scores look inverted' is),
    but those about the sections left out."""
    ranking = getattr(ev.ranking, "notes", ()) if ev.ranking is not None else ()
    return [note for note in (*ev.notes, *ranking) if not note.startswith(BRIEF_LEFT_OUT)]


def _brief_ranking(ev: Evaluation) -> list[tuple[str, Estimate | None, bool]]:
    """The ranking's headline estimates: ROC AUC and average precision; with several classes, the macro
    averages and Hand & Till's M."""
    r = ev.ranking
    if r is None:
        return []
    if hasattr(r, "roc_auc"):
        return [("ROC AUC", r.roc_auc, False), ("Average precision", r.average_precision, False)]
    items = [("ROC AUC, macro (one vs rest)", r.macro, False), ("Hand & Till's M", r.hand_till, False)]
    if getattr(r, "average_precision_macro", None) is not None:
        items.append(("Average precision, macro", r.average_precision_macro, False))
    return items


def _p(p: float | None) -> str:
    text = pvalue_text(p)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def _brief_words(ev: Evaluation) -> list[str]:
    """The tests in one short sentence each, at the report's confidence level."""
    words = []
    tests, confidence = ev.tests, ev.confidence
    if "accuracy_vs_nir" in tests:
        t = tests["accuracy_vs_nir"]
        words.append(f"Accuracy is {'' if t.significant(confidence) else 'not '}significantly above the largest "
                     f"class's {percent(t.nir)} ({_p(t.pvalue)}).")
    for name, title in (("kappa", "Kappa"), ("weighted_kappa", "Weighted kappa")):
        t = tests.get(name)
        if t is None or t.kappa != t.kappa or t.pvalue != t.pvalue:
            continue
        if name == "weighted_kappa":
            title = f"Weighted kappa ({t.weights})"
        # the z test is two-sided: a kappa significantly below 0 is agreement worse than chance
        verdict = "not significantly different from 0" if not t.significant(confidence) else \
            "significantly above 0" if t.kappa > 0 else "significantly below 0"
        words.append(f"{title} {t.kappa:.3f} is {verdict} ({_p(t.pvalue)}): {_kappa_words(t.kappa)} agreement.")
    if "mcnemar" in tests:
        t = tests["mcnemar"]
        if t.b + t.c == 0:
            words.append("No false negatives or false positives: nothing for McNemar's test to compare.")
        else:
            words.append(f"FN {t.b:,} vs FP {t.c:,}: {'' if t.significant(confidence) else 'not '}significantly "
                         f"different (McNemar, {_p(t.pvalue)}).")
    return words


def _brief_document(b: Builder, ev: Evaluation, probabilities: bool = False) -> list[Block]:
    """One screen: the headline metrics with their intervals, and the tests in a sentence each
    (``probabilities``: and the probabilities' sentences)."""
    level = level_text(ev.confidence)
    items = [(_title(name, ev.beta), ev.metrics[name], _is_percent(name)) for name in BRIEF_METRICS
             if name in ev.metrics and not (name in ("recall", "precision", "specificity") and ev.positive is None)]
    brief_table(b, items + _brief_ranking(ev), level)
    words = _brief_words(ev) + _brief_probabilities(ev, probabilities)
    if ev.net_benefit is not None:
        words.append(ev.net_benefit.verdict())
    if words:  # none with weights that are not counts: the notes say why
        b.heading(f"In words (tests at {level}; kappa on Landis & Koch's scale)")
        for w in words:
            b.para(w)
    return b.blocks


def _brief_probabilities(ev: Evaluation, asked: bool) -> list[str]:
    """The sentences of the probabilities' losses and calibration for one screen, when an option of theirs was
    asked for (``--calibration``, ``--bins``, ``--prior``, ...): the sections are left out, their sentences kept."""
    if not asked or ev.probabilistic is None:
        return []
    return _probabilistic_section(Builder(), ev.probabilistic)


def _threshold_free_document(b: Builder, ev: Evaluation, brief: bool, probabilities: bool = False
                             ) -> list[Block]:
    """Scores without a threshold: the ranking analysis, the truth's prevalence, and words."""
    level = level_text(ev.confidence)
    prevalence = ev.metrics.get("prevalence")
    words = []
    if prevalence is not None and prevalence.value is not None:
        words.append(f"{percent(prevalence.value)} of the instances are {ev.positive!r}"
                     + (f" ({level} CI {ci_text(prevalence, as_percent=True)})." if prevalence.ci else "."))
    extra = Builder() if brief else b
    if brief:
        brief_table(b, _brief_ranking(ev), level)
    words += ranking_section(extra, ev) + _brief_probabilities(ev, brief and probabilities)
    b.heading("In words")
    for w in words:
        b.para(w)
    return b.blocks


def _cost_decisions_section(b: Builder, ev: Evaluation) -> list[str]:
    """The decisions of least expected cost against the predictions made, when a cost matrix and
    probabilities are given; the sentence in words."""
    d = getattr(ev, "cost_decisions", None)
    if not d:
        return []
    level = level_text(ev.confidence)

    def cell(e: dict[str, Any]) -> list[str]:
        ci = e["ci"]
        return [f"{e['value']:.4g}", f"{ci[0]:.4g} – {ci[1]:.4g}" if ci else "—"]

    b.heading("Decisions of least expected cost")
    b.table(Table(["Decisions", "Cost per instance", f"{level} CI"],
                  [["as predicted", *cell(d["as_predicted"]["cost"])],
                   ["least expected cost (Bayes)", *cell(d["least_expected_cost"]["cost"])],
                   ["difference", *cell(d["difference"])]], align="lrr"))
    b.para(f"each instance's decision minimises its expected cost sum_i p_i c_ij under the cost matrix "
           f"({d['least_expected_cost']['changed']:,} decisions differ from the predictions); Student's t intervals; "
           "difference: least expected cost minus as predicted, paired", "muted")
    diff = d["difference"]
    if diff["ci"] is None:
        return []
    if diff["ci"][1] < 0:
        return [f"At {level}, deciding by least expected cost lowers the cost per instance by "
                f"{-diff['value']:.4g} ({level} CI {-diff['ci'][1]:.4g} – {-diff['ci'][0]:.4g})"]
    if diff["ci"][0] > 0:
        return [f"At {level}, deciding by least expected cost raises the cost per instance by {diff['value']:.4g}: "
                "the probabilities are not calibrated enough to trust them with these costs"]
    return [f"At {level}, deciding by least expected cost does not change the cost per instance significantly"]


def _tests_section(b: Builder, ev: Evaluation) -> None:
    b.heading("Tests")
    table = _tests_table(ev)[0]
    if table is None:
        b.para("no tests: the sample weights are not whole numbers, so they are not counts of instances", "muted")
    else:
        b.table(table)
        note = getattr(ev.tests.get("mcnemar"), "note", None)
        if note:  # the chi-squared approximation on few discordant errors
            b.para(f"Warning: {note}", "strong")


def evaluation_document(ev: Evaluation, *, brief: bool = False, probabilities: bool = False) -> list[Block]:
    """The blocks of an ``assay report`` on one classifier (``brief``: one screen of it; ``probabilities``: with
    the sentences of the probabilities' losses and calibration, when an option of theirs was asked for)."""
    b = Builder()
    if not brief:  # one screen starts with the headline
        b.heading("assay report", 1)
    b.para(evaluation_headline(ev, short=brief), "strong")
    line = input_line(ev)
    if line:
        b.para(line, "muted")
    for note in _brief_notes(ev) if brief else ev.notes:
        b.para(note, "muted")
    if brief:
        b.para("")
    if not ev.thresholded:
        return _threshold_free_document(b, ev, brief, probabilities)
    if brief:
        return _brief_document(b, ev, probabilities)

    b.heading("Confusion matrix")
    if len(ev.labels) <= MAX_CLASSES_DRAWN:
        for table in _confusion_tables(ev):
            b.table(table)
    else:
        b.para(f"{len(ev.labels):,} × {len(ev.labels):,} classes: too many to draw as a table here; "
               "--format json has every cell (rows actual, columns predicted).", "muted")

    level = level_text(ev.confidence)
    rows = [_metric_row(name, e, ev.beta) for name, e in ev.metrics.items()]
    b.heading(intervals_heading("Metrics", rows, level))
    b.table(metrics_table(rows, level))
    # the normal intervals' warning on small counts (each estimate's note; JSON has them all)
    warned = [(_title(name, ev.beta), e.note) for name, e in ev.metrics.items()
              if e.method == "normal" and e.ci is not None and e.note]
    if warned:
        more = (f" ({len(warned) - 1} more normal intervals carry this warning with their own counts: each "
                f"metric's note in the JSON output)") if len(warned) > 1 else ""
        b.para(f"Warning: {warned[0][0]}: {warned[0][1]}{more}.", "strong")

    if ev.task == "multiclass" or len(ev.labels) > 2:
        b.heading("Per class (one vs rest)")
        b.table(_per_class_table(ev))
        b.heading("Averages")
        b.table(_averages_table(ev))
    else:
        b.heading("Per class and averages")
        b.table(_per_class_table(ev))
        b.table(_averages_table(ev))

    for note in _undefined_notes(ev):
        b.para(f"undefined: {note}", "muted")

    _tests_section(b, ev)
    verdicts = _tests_table(ev)[1]
    verdicts += _cost_decisions_section(b, ev)

    ranking_words: list[str] = []
    if ev.ranking is not None:
        ranking_words = ranking_section(b, ev)
    if ev.probabilistic is not None:
        ranking_words += _probabilistic_section(b, ev.probabilistic)
    if ev.net_benefit is not None:
        ranking_words += decision_section(b, ev.net_benefit)

    b.heading("In words")
    for w in _words(ev, verdicts, ranking_words):
        b.para(w)
    return b.blocks


def _words(ev: Evaluation, verdicts: list[str], ranking_words: list[str]) -> list[str]:
    """The report's sentences in plain words."""
    level = level_text(ev.confidence)
    words: list[str] = []
    if ev.task == "binary" and ev.positive is not None:
        words.extend(_words_binary(ev))
    acc = ev.metrics["accuracy"]
    words.append(f"It is right on {percent(acc.value)} of the instances" + (
        f" ({level} CI {ci_text(acc, as_percent=True)})." if acc.ci is not None else "."))
    words.extend(v[0].upper() + v[1:] + "." for v in verdicts)
    kappa = ev.metrics["kappa"]
    kw = _kappa_words(kappa.value)
    if kw:
        words.append(
            f"Kappa {kappa.value:.3f} is {kw} agreement beyond chance (Landis & Koch's scale); "
            f"chance alone would get {percent(ev.metrics['chance_agreement'].value)} right."
        )
    cost = ev.metrics.get("expected_cost")
    if isinstance(cost, Estimate) and cost.value is not None:
        words.append(f"With these costs the predictions cost {number(cost.value)} per instance on average"
                     + (f" ({level} CI {ci_text(cost, as_percent=False)})" if cost.ci else "") + ".")
    words.extend(ranking_words)
    return words


_LOSS_TITLES = {
    "quadratic_loss": ("Quadratic loss", "mean of sum_j (p_j - a_j)², in [0, 2]"),
    "absolute_loss": ("Absolute loss", "mean of sum_j |p_j - a_j|, in [0, 2]"),
    "information_loss_bits": ("Information loss (bits)", "mean of -log2 p(true class)"),
    "brier": ("Brier score", "as scikit-learn's brier_score_loss"),
    "log_loss": ("Log loss (nats)", "as scikit-learn's log_loss"),
    "relative_quadratic_loss": ("Relative quadratic loss", "over the prior classifier's"),
    "relative_absolute_loss": ("Relative absolute loss", "over the prior classifier's"),
    "relative_information_loss": ("Relative information loss", "over the prior classifier's"),
}


def _probabilistic_section(b: Builder, p: Any) -> list[str]:
    """Losses of the probabilities, against the prior classifier, and their calibration."""
    level = level_text(p.confidence)
    b.heading("Probabilistic predictions")
    rows = []
    for name, (title, definition) in _LOSS_TITLES.items():
        e = getattr(p, name)
        method = method_title(e.method)
        if e.note:
            method = f"{method}: {e.note}" if method else e.note
        rows.append([title, value_text(e, as_percent=False), ci_text(e, as_percent=False), method])
    b.table(metrics_table(rows, level, "Loss (lower is better)"))
    prior = ", ".join(f"{label} {percent(q)}" for label, q in zip(p.prior.labels, p.prior.probabilities,
                                                                  strict=True))
    source = "training data (given)" if p.prior.source == "given" else p.prior.source
    b.para(f"prior classifier (predicts the class frequencies of the {source}): {prior}", "muted")
    words = []
    rel = p.relative_quadratic_loss
    if rel.value is not None:
        better = "better" if rel.value < 1 else "no better"
        words.append(f"The probabilities' quadratic loss is {rel.value:.2f} times the prior classifier's: "
                     f"{better} than predicting the class frequencies for everyone.")
    if p.infinite_information_loss:
        words.append(f"{p.infinite_information_loss:,} instance(s) got probability 0 for their true class, "
                     f"so the information loss is infinite.")
    return words + _calibration_sections(b, p, level)


def _calibration_sections(b: Builder, p: Any, level: str) -> list[str]:
    """The calibration's sections that the probabilistic analysis ``p`` holds (the table and ECE, mean and weak
    calibration, the lowess curve's E-statistics, the Brier decomposition: ``--calibration`` chooses), and
    their sentences."""
    cal = p.calibration
    if cal is not None:  # not asked for: calibration parts without the table
        b.heading(f"Calibration ({cal.target}, {cal.strategy} bins)")
        rows = []
        for bin_ in cal.bins:
            rows.append([f"{bin_.low:.2f} – {bin_.high:.2f}", f"{bin_.count:,}",
                         "—" if bin_.mean_predicted is None else percent(bin_.mean_predicted),
                         "—" if bin_.observed is None else percent(bin_.observed),
                         "—" if bin_.ci is None else f"{bin_.ci.low * 100:.1f} – {bin_.ci.high * 100:.1f}%"])
        b.table(Table(["predicted", "instances", "mean predicted", "observed", f"{level} CI (Wilson)"], rows,
                      align="lrrrr"))
        b.para(_ece_line(cal, getattr(p, "smooth_ece", None), level), "muted")
    one = getattr(p, "calibration_class", None)  # several classes: one class's probabilities against the rest
    of_class = "" if one is None else f" of class {one!r}"
    hierarchy_words = _calibration_hierarchy(b, p.hierarchy, level, f"the probabilities{of_class}") \
        if p.hierarchy is not None else []
    if getattr(p, "moderate", None) is not None or getattr(p, "brier_decomposition", None) is not None:
        hierarchy_words += _calibration_moderate(b, p.moderate, getattr(p, "brier_decomposition", None), level,
                                                 of_class)
    words = []
    if cal is not None:
        words.append(f"{'Predicted' if one is None else f'For class {one!r}, predicted'} and observed frequencies "
                     f"differ by {percent(cal.ece)} on average (expected calibration error).")
    return words + hierarchy_words


def _ece_line(cal: Any, smooth: Any, level: str) -> str:
    """'expected calibration error 4.1% (95% CI 3.2–5.0%; 10 equal-width bins) · maximum 9.0% · smooth ECE
    3.8% (Błasiok & Nakkiran 2023)', each missing part with its reason."""
    kind = "equal-width" if cal.strategy == "uniform" else "equal-count"
    bins = f"{len(cal.bins)} {kind} bins"
    interval = getattr(cal, "ece_interval", None)
    if not math.isfinite(cal.ece):
        ece = "undefined"
    elif interval is not None and interval.low is not None:
        ece = f"{percent(cal.ece)} ({level} CI {interval.low * 100:.1f}–{interval.high * 100:.1f}%; {bins})"
    else:
        reason = f"; {interval.note}" if interval is not None and interval.note else ""
        ece = f"{percent(cal.ece)} ({bins}{reason})"
    line = f"expected calibration error {ece} · maximum {percent(cal.mce)}"
    if smooth is not None and smooth.value is not None:
        line += f" · smooth ECE {percent(smooth.value)} (Błasiok & Nakkiran 2023)"
    elif smooth is not None and smooth.note:
        line += f" · smooth ECE (Błasiok & Nakkiran 2023) {smooth.note}"
    return line


def _calibration_hierarchy(b: Builder, h: Any, level: str, subject: str = "the probabilities") -> list[str]:
    """Mean and weak calibration and Spiegelhalter's test (rms::val.prob's definitions), and a sentence."""
    if h.observed_expected.value is None and h.note:  # not computed (a summary beyond memory)
        b.para(f"calibration intercept, slope and tests: {h.note}", "muted")
        return []
    b.heading("Calibration: mean and weak (Van Calster et al. 2016)")

    def row(title: str, e: Any, pvalue: float | None, ideal: str, test: str) -> list[str]:
        return [title, value_text(e, as_percent=False), ci_text(e, as_percent=False), pvalue_text(pvalue), ideal, test]

    rows = [row("Observed / expected events", h.observed_expected, None, "1", "Poisson"),
            row("Calibration intercept", h.intercept, h.intercept_pvalue, "0", "Wald"),
            row("Calibration slope", h.slope, h.slope_pvalue, "1", "Wald"),
            row("Unreliability (χ², 2 df)", Estimate(h.unreliability_chi2), h.unreliability_pvalue, "0", "LR"),
            row("Spiegelhalter's z", Estimate(h.spiegelhalter_z), h.spiegelhalter_pvalue, "0", "normal")]
    b.table(Table(["", "value", f"{level} CI", "p-value", "ideal", "test"], rows, align="lrrrrl"))
    b.para(f"{h.observed:,.0f} events observed, {h.expected:,.1f} expected · intercept: logit P(y) = a + logit(p); "
           "slope: logit P(y) = a + b·logit(p); unreliability: a = 0 and b = 1 together (rms::val.prob's U)"
           + (f" · {h.note}" if h.note else ""), "muted")
    return [h.verdict(subject)]


def _calibration_moderate(b: Builder, c: Any, d: Any, level: str, of_class: str = "") -> list[str]:
    """The E-statistics of the lowess calibration curve (rms::val.prob), the Brier decomposition, a sentence
    (either may be None: not asked for)."""
    brier = d is not None and d.brier is not None
    if c is not None and c.computed:
        b.heading("Calibration: moderate (lowess, as rms::val.prob)")
        rows = [[title, value_text(e, as_percent=False), ci_text(e, as_percent=False)]
                for title, e in (("Eavg: mean |curve(p) − p|", c.eavg), ("E50: median", c.e50),
                                 ("E90: 90th percentile", c.e90), ("Emax: largest", c.emax))]
        if brier:
            for title, v in _brier_rows(d):
                rows.append([title, "—" if v is None else f"{v:.4f}", ""])
        b.table(Table(["", "value", f"{level} CI"], rows, align="lrr"))
        band = f"band and intervals: percentile bootstrap of {c.resamples:,} resamples" if c.resamples else \
            "no band"
        murphy = f"; {_brier_words(d)}" if brier else ""
        b.para(f"curve: lowess(p, y, iter = 0) over {c.distinct:,} distinct probabilities ({c.fits} local fits); "
               f"{band}{murphy}" + (f" · {c.note}" if c.note else ""), "muted")
        return [f"The lowess calibration curve{of_class} is {c.eavg.value:.3f} from the diagonal on average (Eavg), "
                f"{c.e90.value:.3f} at the 90th percentile of the instances (E90)."]
    if c is not None:
        b.para(f"lowess calibration curve (rms::val.prob): {c.note}", "muted")
    if brier:
        values = ", ".join(f"{title[len('Brier: '):] if title.startswith('Brier: ') else 'scaled Brier'} {v:.4f}"
                           for title, v in _brier_rows(d) if v is not None)
        b.para(f"Brier decomposition: {values}; {_brier_words(d)}", "muted")
    return []


def _brier_rows(d: Any) -> list[tuple[str, float | None]]:
    """The Brier decomposition's rows: the within-bin terms only when the bins hold several probabilities."""
    rows = [("Brier: reliability", d.reliability), ("Brier: resolution", d.resolution),
            ("Brier: uncertainty", d.uncertainty)]
    if d.within_variance or d.within_covariance:
        rows += [("Brier: within-bin variance", d.within_variance),
                 ("Brier: within-bin covariance", d.within_covariance)]
    return rows + [("Scaled Brier (1 − Brier / uncertainty)", d.scaled_brier)]


def _brier_words(d: Any) -> str:
    if d.binning.startswith("distinct"):
        return "Brier = reliability − resolution + uncertainty over the distinct probabilities (Murphy 1973)"
    return (f"Brier = reliability − resolution + uncertainty + within-bin variance − covariance over "
            f"{d.binning.split(' (exact')[0]} (Murphy 1973; Stephenson et al. 2008)")


def _signed(value: float | None, digits: int = 3) -> str:
    return "—" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def _band(low: Any, high: Any, i: int, digits: int = 3) -> str:
    if low is None or low[i] != low[i] or high[i] != high[i]:
        return "—"
    return f"{low[i]:.{digits}f} – {high[i]:.{digits}f}"


def decision_section(b: Builder, d: Any) -> list[str]:
    """The decision curve at a few threshold probabilities (every one in the JSON), the point the costs imply,
    and a sentence: where the model does more good than treating everyone or no one."""
    level = level_text(d.confidence)
    b.heading("Decision curve: net benefit (Vickers & Elkin 2006)")

    def row(c: Any, i: int, label: str) -> list[str]:
        lo, hi = c.interval("model") or (None, None)
        alo, ahi = c.interval("avoided") or (None, None)
        return [label, _signed(float(c.model[i])), _band(lo, hi, i), _signed(float(c.treat_all[i])),
                _signed(float(c.avoided[i]), 1), _band(alo, ahi, i, 1)]

    rows = [row(d, i, f"{d.thresholds[i]:.2f}") for i in d.rows()]
    if d.at_costs is not None:
        rows.append(row(d.at_costs, 0, f"{d.at_costs.thresholds[0]:.3g} (costs)"))
    b.table(Table(["threshold probability", "net benefit", f"{level} CI", "treat all", "avoided / 100",
                   f"{level} CI"], rows, align="lrrrrr"))
    given = "given: a case-control sample" if d.prevalence_given else "the data's"
    interval = d.method if d.intervals is not None else (d.interval_note or "no interval")
    b.para(f"treated when the probability is at least the threshold probability pt; net benefit = TP/n − FP/n · "
           f"pt/(1 − pt); treating no one is 0; prevalence {percent(d.prevalence)} ({given}); {interval}; "
           f"{len(d.thresholds):,} threshold probabilities in the JSON"
           + (f" · costs fp {d.costs['fp']:g}, fn {d.costs['fn']:g}: pt = fp/(fp + fn)" if d.costs else "")
           + "".join(f" · {n}" for n in d.notes), "muted")
    return [d.verdict()]
