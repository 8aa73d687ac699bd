"""What ``assay validate`` shows: estimates, spreads, matrices and comparisons, in words too."""

from __future__ import annotations

from typing import Any

from assay.report.document import Block, Table, _Builder, _compact
from assay.report.format import estimate_cell, level_text, percent, pvalue_text

__all__ = ["validation_document", "METHOD_NAMES"]

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
}


def _settings_text(method: str, settings: dict[str, Any]) -> str:
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


def validation_document(v: Any) -> list[Block]:
    """The blocks of an ``assay validate`` result."""
    b = _Builder()
    level = level_text(v.confidence)
    b.heading("assay validate", 1)
    b.para(f"data set {v.dataset} · {v.n:,} instances · {len(v.labels)} classes · "
           f"{_settings_text(v.method, v.settings)}", "strong")
    for line in v.features:
        b.para(line, "muted")
    for note in v.notes:
        b.para(note, "muted")

    b.heading("Estimated error")
    rows = []
    for name, m in v.models.items():
        est = m.estimate
        acc = m.report.metrics["accuracy"]
        ranking = m.report.ranking
        auc = "—"
        if ranking is not None:
            e = ranking.roc_auc if hasattr(ranking, "roc_auc") else ranking.hand_till
            auc = estimate_cell(e, as_percent=False)
        rows.append([name, percent(est.error), estimate_cell(acc, as_percent=True, sign=False), auc,
                     _spread_text(est.to_dict().get("spread"))])
    b.table(Table(["Model", "Error", f"Accuracy % ({level} CI)", f"AUC ({level} CI)",
                   "Error % by part: mean ± sd (min–max)"], rows, align="lrrrr"))
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
            b.para("recall per class: " + ", ".join(f"{label} {_compact(per_class[label]['recall'])}"
                                                     for label in labels), "muted")
        for tuned in m.tuned:
            accuracy = tuned.get("validation_accuracy")
            b.para(f"tuned on the validation part: {tuned.get('chosen') or 'nothing to tune'}"
                   + (f" (validation accuracy {percent(accuracy)})" if accuracy is not None else ""), "muted")

    words: list[str] = []
    if v.comparisons:
        b.heading("Comparisons")
        rows = []
        for c in v.comparisons:
            stat = c.get("statistic")
            rows.append([TEST_NAMES.get(c["test"], c["test"]), " vs ".join(c["models"]),
                         "—" if stat is None else f"{stat:.3f}", pvalue_text(c.get("pvalue")),
                         "yes" if c.get("significant") else "no"])
        b.table(Table(["Test", "Models", "Statistic", "p-value", f"Significant at {level}"], rows,
                      align="llrrl"))
        pairs: dict[tuple[str, ...], list[str]] = {}
        for c in v.comparisons:
            key = tuple(c["models"])
            sig = "significant" if c.get("significant") else "not significant"
            pairs.setdefault(key, []).append(f"{TEST_NAMES.get(c['test'], c['test'])}: {sig} "
                                             f"({_p_text(c.get('pvalue'))})")
        for key, parts in pairs.items():
            b.para(f"{' vs '.join(key)}: " + "; ".join(parts), "muted")
    best = min(v.models.values(), key=lambda m: m.estimate.error)
    words.append(f"The lowest estimated error is {best.name}'s ({best.title}): {percent(best.estimate.error)} "
                 f"by {_settings_text(v.method, v.settings)}.")
    for c in v.comparisons:
        if c["test"] in ("mcnemar", "corrected_resampled_t") and best.name in c["models"]:
            other = [m for m in c["models"] if m != best.name][0]
            sig = "significant" if c.get("significant") else "not significant"
            words.append(f"At {level}, its difference in error with {other} is {sig} "
                         f"({TEST_NAMES[c['test']]}, {_p_text(c.get('pvalue'))}).")
    b.heading("In words")
    for w in words:
        b.para(w[0].upper() + w[1:])
    return b.blocks
