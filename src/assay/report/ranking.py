"""What a ranking analysis shows: AUC, Gini, average precision and lift with their intervals, the thresholds
each criterion chooses, the convex hull, the constrained thresholds and the operating points, in words too.

The same section heads a RankingAnalysis's own report (``print(assay.rank(...))``) and sits inside an
evaluation's report of scores.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from assay.report.blocks import Block, Builder, Table
from assay.report.estimate_tables import estimate_row, metrics_table
from assay.report.format import ci_text, level_text, method_title, percent, value_text

__all__ = ["ranking_section", "ranking_document", "ranking_headline", "threshold_text"]


def threshold_text(t: float) -> str:
    return "above every score" if t == float("inf") else f"{t:.4g}"


def ranking_section(b: Builder, ev: Any) -> list[str]:
    """Tables of the ranking analysis, and the sentences that go under them."""
    r = ev.ranking
    level = level_text(ev.confidence)
    if not hasattr(r, "best"):  # several classes
        b.heading("Ranking (from the class probabilities)")
        rows = [estimate_row(f"{label} vs rest", e) for label, e in r.per_class.items()]
        for title, e in (("macro average (one vs rest)", r.macro), ("weighted by prevalence", r.weighted),
                         ("Hand & Till's M", r.hand_till)):
            rows.append(estimate_row(title, e))
        b.table(metrics_table(rows, level, "ROC AUC"))
        if getattr(r, "average_precision", None):
            rows = [estimate_row(f"{label} vs rest", e) for label, e in r.average_precision.items()]
            for title, e in (("macro average", r.average_precision_macro),
                             ("micro average (pairs pooled)", r.average_precision_micro),
                             ("weighted by prevalence", r.average_precision_weighted)):
                if e is not None:
                    rows.append(estimate_row(title, e))
            b.table(metrics_table(rows, level, "Average precision"))
            b.para("each class's probability ranks it against all the others (one vs rest); average precision: "
                   "sum over thresholds of the gain in recall times the precision there, as scikit-learn",
                   "muted")
        if r.hand_till.value is None:
            return []
        return [f"Averaged over every pair of classes, the probabilities rank an instance of one class above "
                f"an instance of the other {percent(r.hand_till.value)} of the time (Hand & Till's M)."]

    tc = r.counts
    b.heading(f"Ranking (from the scores: {len(r.summary):,} distinct thresholds)")
    rows = []
    for title, e, pct in (("ROC AUC", r.roc_auc, False), ("Gini (2 AUC - 1)", r.gini, False),
                          ("Average precision", r.average_precision, False),
                          ("PR AUC (trapezoid)", r.pr_auc, False),
                          (f"Lift in the top {percent(r.lift_depth, 0)}", r.lift, False)):
        method = method_title(e.method)
        if e.ci is None and e.note:
            method = f"{method}: {e.note}" if method else e.note
        rows.append([title, value_text(e, as_percent=pct), ci_text(e, as_percent=pct), method])
    at = getattr(r, "pr_at_prevalence", None)
    if at is not None:
        for key, title in (("average_precision", "Average precision"), ("pr_auc", "PR AUC (trapezoid)")):
            e = at[key]
            ci = e["ci"]
            rows.append([f"{title} at prevalence {at['prevalence']:.3g}", f"{e['value']:.3f}",
                         f"{ci[0]:.3f} – {ci[1]:.3f}" if ci else "—", "bootstrap" if ci else (e["note"] or "")])
    for part, axis, key in ((r.partial_auc, "FPR", "fpr_range"),
                            (getattr(r, "partial_auc_sensitivity", None), "sensitivity", "sensitivity_range")):
        if part is None:
            continue
        low, high = part[key]
        std, ci, std_ci = part["standardized"], part["ci"], part["standardized_ci"]
        rows.append([f"Partial AUC, {axis} {low:g}-{high:g}", f"{part['value']:.4f}",
                     f"{ci[0]:.4f} – {ci[1]:.4f}" if ci else "—", "bootstrap" if ci else (part["note"] or "")])
        if std is not None:
            rows.append(["  standardized (McClish)", f"{std:.3f}",
                         f"{std_ci[0]:.3f} – {std_ci[1]:.3f}" if std_ci else "—", "bootstrap" if std_ci else ""])
    b.table(metrics_table(rows, level, "Metric"))
    b.para(f"baseline of average precision: the prevalence, {percent(r.prevalence)}", "muted")

    choices = [("Youden's J (max TPR - FPR)", r.best["youden"], f"J = {r.best['youden'].value:.3f}"),
               ("Closest to the ideal corner (0, 1)", r.best["closest_to_corner"],
                f"distance {r.best['closest_to_corner'].value:.3f}"),
               ("Least expected cost", r.best["min_expected_cost"],
                f"cost {r.best['min_expected_cost'].value:.4g} per instance"),
               ("Iso-performance optimum on the hull", r.optimal, f"slope {r.slope:.3g}")]
    if r.operating_point is not None:
        choices.append(("The threshold used above", r.operating_point,
                        f"cost {r.operating_point.value:.4g} per instance"))
    b.heading("Thresholds")
    b.table(Table(["Criterion", "Threshold", "FPR", "TPR", "Note"],
                  [[title, threshold_text(c.threshold), percent(c.fpr), percent(c.tpr),
                    note + (f" ({c.ties} tied)" if c.ties > 1 else "")] for title, c, note in choices],
                  align="lrrrl"))
    costs = r.costs
    b.para(f"costs: false positive {costs.fp:g}, false negative {costs.fn:g}"
           + (f", true positive {costs.tp:g}, true negative {costs.tn:g}" if costs.tp or costs.tn else "")
           + f" · positives where the classifier is used: {percent(r.deployment_prevalence)} "
           f"({r.prevalence_source}) · iso-performance slope m = (c_FP N) / (c_FN P) = {r.slope:.3g}", "muted")
    hull = r.hull()
    shown = [threshold_text(t) for t in hull["threshold"][1:-1]]
    b.para(f"ROC convex hull: {len(hull['threshold'])} vertices"
           + (f"; thresholds on it: {', '.join(shown[:12])}" + (" ..." if len(shown) > 12 else "")
              if shown else ""), "muted")
    for note in r.notes:
        b.para(note, "muted")
    constrained = getattr(r, "constrained", ())
    if constrained:
        b.heading("Thresholds under a constraint")
        b.table(Table(["Constraint", "Maximises", "Threshold", "Recall", "Specificity", "Precision"],
                      [[c.constraint, c.maximized, threshold_text(c.threshold),
                        *[(f"{percent(e.value)} ({ci_text(e, as_percent=True)})" if e.ci else
                           (percent(e.value) if e.value is not None else "—"))
                          for e in (c.rates["recall"], c.rates["specificity"], c.rates["precision"])]]
                       for c in constrained], align="llrrrr"))
        b.para(f"rates at the threshold with {level} Wilson intervals; the threshold was chosen on these same "
               "data, so they are optimistic", "muted")
    points = getattr(r, "operating_points", ())
    if points:
        b.heading("Operating points")
        b.table(Table(["Given", "Reads", "Value", f"{level} CI", "Threshold", "Sensitivity there", "Specificity there"],
                      [[f"{p.given} {percent(p.target)}", p.reads, percent(p.value.value),
                        ci_text(p.value, as_percent=True) if p.value.ci else "—", threshold_text(p.threshold),
                        percent(p.at_threshold["sensitivity"]), percent(p.at_threshold["specificity"])]
                       for p in points], align="llrrrrr"))
        b.para("values read off the ROC curve with linear interpolation between its points (as pROC's coords); "
               "stratified bootstrap percentile intervals (as pROC's ci.se and ci.sp); the threshold is where "
               "the curve itself reaches the given rate", "muted")

    words = []
    auc = r.roc_auc
    words.append(f"The scores rank a random positive above a random negative {percent(auc.value)} of the time "
                 f"(ROC AUC" + (f", {level} CI {ci_text(auc, as_percent=False)}" if auc.ci else "") + ").")
    words.append(f"Average precision is {r.average_precision.value:.3f}, against {r.prevalence:.3f} for "
                 f"scores that know nothing (the prevalence).")
    cheapest = r.best["min_expected_cost"]
    if not costs.is_default or r.prevalence_source == "given":
        words.append(f"With these costs and {percent(r.deployment_prevalence)} positives, the cheapest "
                     f"threshold is {threshold_text(cheapest.threshold)} (FPR {percent(cheapest.fpr)}, "
                     f"TPR {percent(cheapest.tpr)}).")
    for p in points:
        if p.given == "specificity":
            words.append(f"At a specificity of {percent(p.target)}, the scores find {percent(p.value.value)} of "
                         f"the positives" + (f" ({level} CI {ci_text(p.value, as_percent=True)})" if p.value.ci
                                             else "") + f"; a threshold of {threshold_text(p.threshold)} keeps "
                         f"the specificity at {percent(p.at_threshold['specificity'])}.")
        else:
            words.append(f"To find {percent(p.target)} of the positives, the specificity falls to "
                         f"{percent(p.value.value)}" + (f" ({level} CI {ci_text(p.value, as_percent=True)})"
                                                        if p.value.ci else "")
                         + f"; a threshold of {threshold_text(p.threshold)} reaches it.")
    del tc
    return words


def ranking_headline(r: Any) -> str:
    """ "ranking by the scores · n = 569 · positive class '1' · 540 distinct scores"."""
    n = r.summary.n_positive + r.summary.n_negative
    count = f"{int(n):,}" if float(n).is_integer() else f"{float(n):,.6g} (sum of weights)"
    return f"ranking by the scores · n = {count} · positive class {r.summary.labels[1]!r} · " \
           f"{r.distinct:,} distinct scores"


def ranking_document(r: Any) -> list[Block]:
    """The blocks of a RankingAnalysis: its headline, then the tables and sentences of a report's ranking
    section (AUC, Gini, average precision, lift; the thresholds; the hull)."""
    b = Builder()
    b.heading("assay ranking", 1)
    b.para(ranking_headline(r), "strong")
    words = ranking_section(b, SimpleNamespace(ranking=r, confidence=r.confidence))
    if words:
        b.heading("In words")
        for w in words:
            b.para(w)
    return b.blocks
