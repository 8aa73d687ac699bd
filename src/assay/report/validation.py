"""What ``assay validate`` shows: estimates, spreads, matrices and comparisons, in words too."""

from __future__ import annotations

from typing import Any

from assay.report.blocks import Block, Builder, Table
from assay.report.comparison import roc_space_blocks
from assay.report.format import (
    ci_text,
    estimate_cell,
    level_text,
    number,
    percent,
    percent_cell,
    pvalue_text,
    statistic_text,
    value_text,
)
from assay.report.friedman import friedman_document

__all__ = ["validation_document", "regression_validation_document", "datasets_document", "settings_text",
           "METHOD_NAMES", "TEST_NAMES"]

METHOD_NAMES = {
    "resubstitution": "resubstitution (trained and tested on all the data)",
    "holdout": "holdout",
    "repeated-holdout": "repeated random subsampling",
    "cv": "k-fold cross-validation",
    "repeated-cv": "repeated k-fold cross-validation",
    "loo": "leave-one-out cross-validation",
    "bootstrap": "out-of-bag bootstrap",
    "bootstrap632": ".632 bootstrap",
    "bootstrap632plus": ".632+ bootstrap",
    "train-val-test": "train / validation / test, tuned on validation",
}

TEST_NAMES = {
    "mcnemar": "McNemar",
    "paired_bootstrap_accuracy": "paired bootstrap, accuracy",
    "delong": "DeLong, ROC AUC",
    "cochran_q": "Cochran's Q",
    "corrected_resampled_t": "corrected resampled t",
    "paired_t_5x2cv": "5x2cv paired t",
    "f_test_5x2cv": "5x2cv combined F",
    "paired_t": "paired t",
}


def settings_text(method: str, settings: dict[str, Any]) -> str:
    """How the data were split, in words: "k-fold cross-validation, 10 folds, stratified, seed 0"."""
    parts = [METHOD_NAMES.get(method, method)]
    if "folds" in settings and method in ("cv", "repeated-cv"):
        parts.append(f"{settings['folds']} folds")
    if settings.get("repeats"):
        parts.append(f"{settings['repeats']} repetitions" if "bootstrap" not in method
                     else f"{settings['repeats']} rounds")
    if "test_size" in settings and method in ("holdout", "repeated-holdout", "train-val-test"):
        parts.append(f"test share {settings['test_size']:.3g}")
    if settings.get("stratify") is not None and method not in ("loo", "resubstitution") \
            and "bootstrap" not in method:
        parts.append("stratified" if settings["stratify"] else "not stratified")
    parts.append(f"seed {settings.get('seed', 0)}")
    return ", ".join(parts)


def _spread_text(spread: dict[str, Any] | None) -> str:
    if not spread or not spread.get("n"):
        return "—"
    if spread["n"] == 1:
        return percent(spread["mean"])
    return (f"{spread['mean'] * 100:.1f} ± {spread['sd'] * 100:.1f} "
            f"({spread['min'] * 100:.1f}–{spread['max'] * 100:.1f})")


def _p_text(p: float | None) -> str:
    text = pvalue_text(p)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


_ADJUSTED = {"holm": "Holm", "bonferroni": "Bonferroni"}


def _adjustment(comparisons: list[dict[str, Any]]) -> str | None:
    """The adjustment for multiple comparisons the comparisons carry ("holm", "bonferroni"), if any."""
    for c in comparisons:
        if "adjustment" in c:
            return str(c["adjustment"]["method"])
    return None


def _p_words(c: dict[str, Any]) -> str:
    """"p = 0.012", or with an adjusted p-value, "Holm-adjusted p = 0.036"."""
    if "adjustment" in c:
        method = c["adjustment"]["method"]
        return f"{_ADJUSTED.get(method, method)}-adjusted {_p_text(c.get(f'pvalue_{method}'))}"
    return _p_text(c.get("pvalue"))


def validation_document(v: Any, *, diagram: bool = True) -> list[Block]:
    """The blocks of an ``assay validate`` result."""
    if getattr(v, "task", None) == "regression":
        return regression_validation_document(v)
    b = Builder()
    level = level_text(v.confidence)
    b.heading("assay validate", 1)
    b.para(f"data set {v.dataset} · {v.n:,} instances · {len(v.labels)} classes · "
           f"{settings_text(v.method, v.settings)}", "strong")
    for line in v.features:
        b.para(line, "muted")
    for note in v.notes:
        b.para(note, "muted")

    b.heading("Estimated error")
    rows = []
    costed = any("expected_cost" in m.report.metrics for m in v.models.values())
    reasons: dict[str, list[str]] = {}  # why an estimate shown has no interval: the estimates that give it
    for name, m in v.models.items():
        est = m.estimate
        acc = m.report.metrics["accuracy"]
        ranking = m.report.ranking
        auc = "—"
        if ranking is not None:
            e = ranking.roc_auc if hasattr(ranking, "roc_auc") else ranking.hand_till
            auc = estimate_cell(e, as_percent=False)
            if e.value is not None and e.ci is None and e.note:
                reasons.setdefault(e.note, []).append(f"{name}'s AUC")
        if acc.value is not None and acc.ci is None and acc.note:
            reasons.setdefault(acc.note, []).append(f"{name}'s accuracy")
        row = [name, percent(est.error), estimate_cell(acc, as_percent=True, sign=False), auc]
        if costed:
            row.append(estimate_cell(m.report.metrics["expected_cost"], as_percent=False)
                       if "expected_cost" in m.report.metrics else "—")
        rows.append(row + [_spread_text(est.to_dict().get("spread"))])
    b.table(Table(["Model", "Error", f"Accuracy % ({level} CI)", f"AUC ({level} CI)"]
                  + ([f"Expected cost ({level} CI)"] if costed else []) + ["Error % by part: mean ± sd (min–max)"],
                  rows, align="lrrr" + ("r" if costed else "") + "r",
                  caption="; ".join(f"{', '.join(what)}: {note}" for note, what in reasons.items()) or None))
    first = next(iter(v.models.values()))
    b.para("models: " + "; ".join(f"{name} = {m.title}" for name, m in v.models.items()), "muted")
    b.para(f"error: {first.estimate.formula}; accuracy and AUC: on the out-of-fold predictions "
           f"(Wilson and {'DeLong' if len(v.labels) == 2 else 'bootstrap'} intervals)", "muted")

    for name, m in v.models.items():
        counts = m.report.confusion.counts
        labels = m.report.labels
        b.heading(f"{name}: out-of-fold confusion matrix", 3)
        rows = [[label, *[f"{int(c):,}" for c in counts[i]], f"{int(counts[i].sum()):,}"]
                for i, label in enumerate(labels)]
        b.table(Table(["actual \\ predicted", *labels, "total"], rows))
        per_class = m.report.per_class
        if len(labels) > 2:
            b.para("recall per class: " + ", ".join(f"{label} {percent_cell(per_class[label]['recall'])}"
                                                     for label in labels), "muted")
        for tuned in m.tuned:
            accuracy = tuned.get("validation_accuracy")
            b.para(f"tuned on the validation part: {tuned.get('chosen') or 'nothing to tune'}"
                   + (f" (validation accuracy {percent(accuracy)})" if accuracy is not None else ""), "muted")

    words: list[str] = []
    if v.comparisons:
        b.heading("Comparisons")
        rows = []
        adjusted = _adjustment(v.comparisons)
        for c in v.comparisons:
            stat = c.get("statistic")
            row = [TEST_NAMES.get(c["test"], c["test"]), " vs ".join(c["models"]),
                   statistic_text("mcnemar", stat, c.get("method")) if c["test"] == "mcnemar" else
                   "—" if stat is None else f"{stat:.3f}", pvalue_text(c.get("pvalue"))]
            if adjusted:
                row.append(pvalue_text(c.get(f"pvalue_{adjusted}")) if "adjustment" in c else "")
            rows.append(row + ["yes" if c.get("significant") else "no"])
        header = ["Test", "Models", "Statistic", "p-value"] + ([f"{_ADJUSTED[adjusted]} p"] if adjusted else [])
        captions = [f"{_ADJUSTED[adjusted]} p: the p-value adjusted by {_ADJUSTED[adjusted]}'s method for "
                    f"multiple comparisons, on which the verdict rests"] if adjusted else []
        if any(c["test"] == "mcnemar" and c.get("method") == "exact" for c in v.comparisons):
            captions.append("McNemar's exact test (fewer than 25 instances that one model alone gets right): its "
                            "statistic is min(b, c), the smaller of the counts of instances only one of the two gets "
                            "right; chi-squared otherwise (X², continuity-corrected)")
        b.table(Table(header + [f"Significant at {level}"], rows, align="llrr" + ("r" if adjusted else "") + "l",
                      caption="; ".join(captions) or None))
        pairs: dict[tuple[str, ...], list[str]] = {}
        for c in v.comparisons:
            key = tuple(c["models"])
            sig = "significant" if c.get("significant") else "not significant"
            pairs.setdefault(key, []).append(f"{TEST_NAMES.get(c['test'], c['test'])}: {sig} "
                                             f"({_p_words(c)})")
        for key, parts in pairs.items():
            b.para(f"{' vs '.join(key)}: " + "; ".join(parts), "muted")
    best = min(v.models.values(), key=lambda m: m.estimate.error)
    words.append(f"The lowest estimated error is {best.name}'s ({best.title}): {percent(best.estimate.error)} "
                 f"by {settings_text(v.method, v.settings)}.")
    for c in v.comparisons:
        if c["test"] in ("mcnemar", "corrected_resampled_t") and best.name in c["models"]:
            other = [m for m in c["models"] if m != best.name][0]
            sig = "significant" if c.get("significant") else "not significant"
            words.append(f"At {level}, its difference in error with {other} is {sig} "
                         f"({TEST_NAMES[c['test']]}, {_p_words(c)}).")
    ranked = getattr(v, "friedman", None)
    if ranked is not None:
        b.blocks.extend(friedman_document(ranked, title="Ranks over the parts (Friedman, Nemenyi)", level=2,
                                          scores="accuracy on each part", diagram=diagram))
    space = getattr(v, "roc_space", None)
    if space:
        blocks: list[Any] = []
        words += [w + "." for w in roc_space_blocks(blocks, space)]
        b.blocks.extend(blocks)
    b.heading("In words")
    for w in words:
        b.para(w[0].upper() + w[1:])
    return b.blocks


# ---------------------------------------------------------------------------------------------------------------------
# numeric targets


def _fold_text(entry: dict[str, Any] | None) -> str:
    """'2,978 ± 261 (2,653 – 3,302)': the mean over the parts, their sd, and the t interval of the mean."""
    if not entry or entry.get("mean") is None:
        return "—"
    if entry.get("sd") is None:
        return number(entry["mean"])
    text = f"{number(entry['mean'])} ± {number(entry['sd'])}"
    return text + (f" ({number(entry['ci'][0])} – {number(entry['ci'][1])})" if entry.get("ci") else "")


def regression_validation_document(v: Any) -> list[Block]:
    """The blocks of ``assay validate --task regression`` (a ``RegressionValidation``)."""
    b = Builder()
    level = level_text(v.confidence)
    b.heading("assay validate", 1)
    b.para(f"data set {v.dataset} · {v.n:,} instances · numeric target · {settings_text(v.method, v.settings)}",
           "strong")
    for line in v.features:
        b.para(line, "muted")
    for note in v.notes:
        b.para(note, "muted")

    b.heading("Estimated error")
    rows = []
    for name, m in v.models.items():
        r = m.report.metrics
        rows.append([name, number(m.estimate.mse), number(m.estimate.rmse), estimate_cell(r["mae"], as_percent=False),
                     estimate_cell(r["r2"], as_percent=False), estimate_cell(r["correlation"], as_percent=False),
                     _fold_text(m.fold_summary.get("mse"))])
    b.table(Table(["Model", "MSE", "RMSE", f"MAE ({level} CI)", f"R² ({level} CI)", f"Correlation ({level} CI)",
                   f"MSE by part: mean ± sd ({level} t CI)"], rows, align="lrrrrrr"))
    first = next(iter(v.models.values()))
    b.para("models: " + "; ".join(f"{name} = {m.title}" for name, m in v.models.items()), "muted")
    b.para(f"MSE: {first.estimate.formula}; MAE, R² and correlation: on the out-of-fold predictions (percentile "
           "bootstrap intervals); by part: the t interval of the mean over the parts, too narrow since the parts "
           "share training instances (Nadeau & Bengio 2003)", "muted")

    for name, m in v.models.items():
        b.heading(f"{name}: out-of-fold errors", 3)
        rows = []
        for key, e in m.report.metrics.items():
            title, formula = m.report.metric_titles.get(key, (key, ""))
            rows.append([title, value_text(e, as_percent=False), ci_text(e, as_percent=False),
                         _fold_text(m.fold_summary.get(key)), formula])
        b.table(Table(["Measure", "Pooled", f"{level} CI", "By part: mean ± sd (t CI)", "Definition"], rows,
                      align="lrrrl"))

    words: list[str] = []
    if v.comparisons:
        b.heading("Comparisons")
        key = next((k for c in v.comparisons for k in c if k.startswith("pvalue_")), None)
        rows = []
        for c in v.comparisons:
            stat = c.get("statistic")
            row = [TEST_NAMES.get(c["test"], c["test"]), " vs ".join(c["models"]),
                   "—" if c.get("mean_difference") is None else number(c["mean_difference"]),
                   statistic_text("mcnemar", stat, c.get("method")) if c["test"] == "mcnemar" else
                   "—" if stat is None else f"{stat:.3f}", pvalue_text(c.get("pvalue"))]
            if key:
                row.append(pvalue_text(c.get(key)))
            rows.append([*row, "yes" if c.get("significant") else "no"])
        header = ["Test", "Models", "Mean difference in MSE", "Statistic", "p-value"]
        adjusted = [f"{key.removeprefix('pvalue_').capitalize()} p-value"] if key else []
        b.table(Table([*header, *adjusted, f"Significant at {level}"], rows, align="llrrr" + "r" * len(adjusted) + "l"))
        b.para("difference: MSE of the first model minus the second's, per part; the corrected resampled t test "
               "(Nadeau & Bengio 2003) allows for the parts sharing training instances, the plain paired t test "
               "does not", "muted")
    best = min(v.models.values(), key=lambda m: m.estimate.mse)
    words.append(f"The lowest estimated mean squared error is {best.name}'s ({best.title}): "
                 f"{number(best.estimate.mse)} (RMSE {number(best.estimate.rmse)}) by "
                 f"{settings_text(v.method, v.settings)}.")
    preferred = "corrected_resampled_t" if any(c["test"] == "corrected_resampled_t" for c in v.comparisons) \
        else "paired_t"
    for c in v.comparisons:
        if c["test"] == preferred and best.name in c["models"]:
            other = [m for m in c["models"] if m != best.name][0]
            sig = "significant" if c.get("significant") else "not significant"
            key = next((k for k in c if k.startswith("pvalue_")), None)
            how = f", {key.removeprefix('pvalue_').capitalize()}-adjusted" if key else ""
            words.append(f"At {level}, its difference in mean squared error with {other} is {sig} "
                         f"({TEST_NAMES[c['test']]}, {_p_text(c.get(key or 'pvalue'))}{how}).")
    r2 = best.report.metrics["r2"]
    if r2.value is not None:
        words.append(f"Its out-of-fold R² is {r2.value:.3f}: it explains {percent(max(r2.value, 0.0))} of the "
                     "variance of the target around its mean (Witten & Frank, ch. 5).")
    b.heading("In words")
    for w in words:
        b.para(w[0].upper() + w[1:])
    return b.blocks


def datasets_document(r: Any) -> list[Block]:
    """The blocks of ``assay validate`` over several data sets: each one's report, then the ranks over them."""
    blocks = [block for v in r.results.values() for block in validation_document(v)]
    if r.friedman is not None:
        blocks += friedman_document(r.friedman, title="Over the data sets: Friedman and Nemenyi (Demšar 2006)",
                                    level=1, scores=r.score)
    return blocks

