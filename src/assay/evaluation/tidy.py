"""Every estimate of a result as rows of one table: section, metric, group, value, low, high, method, note.

The tidy form a data frame, a spreadsheet or ``assay report --format csv`` wants: one row per number,
the interval's bounds in their own columns, the method that made them named. ``group`` is the class
of a per-class value, the average of an averaged one (micro, macro, weighted), else empty.

The results import this module (their ``to_frame()``), so it imports none of them: a result is told
apart by what it holds (an Evaluation its ``analysis``, a ranking its ``roc_auc``, a Comparison its
``reports``, a Validation its ``models``), never by its class.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from assay.inference.estimate import Estimate, finite_or_none

__all__ = ["COLUMNS", "MODEL_COLUMNS", "GROUP_COLUMNS", "estimate_rows", "model_rows", "subgroup_rows", "to_frame"]

COLUMNS = ("section", "metric", "group", "value", "low", "high", "method", "note")

MODEL_COLUMNS = ("model", *COLUMNS)
"""The columns of a result about several models (``validate``, ``compare``): the model's name first, or for a
test the models it compares ("tree vs forest")."""


def _row(section: str, metric: str, group: str | None, e: Estimate) -> dict[str, Any]:
    return {"section": section, "metric": metric, "group": group, "value": e.value,
            "low": e.ci.low if e.ci is not None else None, "high": e.ci.high if e.ci is not None else None,
            "method": e.method, "note": e.note}


def _ranking_rows(ranking: Any) -> Iterator[dict[str, Any]]:
    """The estimates of a two-class RankingAnalysis, or of a MulticlassRanking (which has Hand & Till's M)."""
    if hasattr(ranking, "hand_till"):  # several classes, one against the rest
        for label, e in ranking.per_class.items():
            yield _row("ranking", "roc_auc_ovr", label, e)
        yield _row("ranking", "roc_auc_ovr", "macro", ranking.macro)
        yield _row("ranking", "roc_auc_ovr", "weighted", ranking.weighted)
        yield _row("ranking", "hand_till", None, ranking.hand_till)
        return
    for name in ("roc_auc", "gini", "average_precision", "pr_auc", "lift"):
        yield _row("ranking", name, None, getattr(ranking, name))


def estimate_rows(result: Any) -> list[dict[str, Any]]:
    """The rows of an Evaluation (metrics, per class, averages, ranking, probabilistic losses), of a
    ranking analysis alone, or of the evaluation of numeric predictions."""
    if hasattr(result, "roc_auc"):  # a RankingAnalysis
        return list(_ranking_rows(result))
    if not hasattr(result, "analysis"):  # not an Evaluation: numeric predictions, their errors
        return [_row("metrics", name, None, e) for name, e in result.metrics.items() if isinstance(e, Estimate)]
    rows = [_row("metrics", name, None, e) for name, e in result.metrics.items() if isinstance(e, Estimate)]
    for label, values in result.analysis.per_class.items():  # the labels as text, as the JSON's
        rows += [_row("per_class", name, label, e) for name, e in values.items() if isinstance(e, Estimate)]
    for average, values in result.averages.items():
        rows += [_row("averages", name, average, e) for name, e in values.items() if isinstance(e, Estimate)]
    if result.ranking is not None:
        rows += list(_ranking_rows(result.ranking))
    p = result.probabilistic
    if p is not None:
        for name in ("quadratic_loss", "absolute_loss", "information_loss_bits", "brier", "log_loss",
                     "relative_quadratic_loss", "relative_absolute_loss", "relative_information_loss"):
            rows.append(_row("probabilistic", name, None, getattr(p, name)))
    d = getattr(result, "net_benefit", None)
    if d is not None:  # the decision curve: a row per threshold probability and statistic
        for name, key in (("net_benefit", "model"), ("interventions_avoided_per_100", "avoided"),
                          ("standardized_net_benefit", "standardized"), ("advantage", "advantage")):
            values, band = getattr(d, key), d.interval(key)
            for i, t in enumerate(d.thresholds):
                rows.append({"section": "net_benefit", "metric": name, "group": f"pt={t:.12g}",
                             "value": finite_or_none(values[i]),
                             "low": None if band is None else finite_or_none(band[0][i]),
                             "high": None if band is None else finite_or_none(band[1][i]),
                             "method": d.method if band is not None else None, "note": d.interval_note})
    return rows


def _test_rows(models: list[str], name: str, test: dict[str, Any]) -> list[dict[str, Any]]:
    """A test (its JSON) as rows whose ``group`` says which number: the statistic, the p-value (and an
    adjusted one, ``pvalue_holm``), and the difference with its interval where the test gives one."""
    who = " vs ".join(models) if len(models) == 2 else ", ".join(models)
    method, note = test.get("method"), test.get("note")

    def row(group: str, value: Any, ci: Any = None) -> dict[str, Any]:
        low, high = ci if ci is not None else (None, None)
        return {"model": who, "section": "tests", "metric": name, "group": group, "value": value, "low": low,
                "high": high, "method": method, "note": note}

    rows = [row("statistic", test.get("statistic"))]
    rows += [row(key, value) for key, value in test.items() if key == "pvalue" or key.startswith("pvalue_")]
    if "difference" in test or test.get("ci") is not None:
        rows.append(row("difference", test.get("difference", test.get("statistic")), test.get("ci")))
    return rows


def model_rows(result: Any) -> list[dict[str, Any]]:
    """The rows of a Validation or a Comparison: each model's estimates (:func:`estimate_rows` of its report,
    and for a Validation the method's estimate of its error), then the tests between the models."""
    rows: list[dict[str, Any]] = []
    if hasattr(result, "reports"):  # a Comparison
        for name, report in zip(result.names, result.reports, strict=True):
            rows += [{"model": name, **r} for r in estimate_rows(report)]
        for test in result.tests:
            models = list(result.names) if result.pairwise else list(result.names[:2])
            rows += _test_rows(models, test, result.test_dict(test))
        for pair in result.pairwise:
            rows += [r for test in pair.tests for r in _test_rows(list(pair.names), test,
                                                                 pair.test_dict(test, result.confidence))]
        return rows
    for name, m in result.models.items():
        rows += [{"model": name, **r} for r in estimate_rows(m.report)]
        e = m.estimate
        rows += [{"model": name, "section": "estimate", "metric": metric, "group": None, "value": value,
                  "low": None, "high": None, "method": e.name, "note": e.formula}
                 for metric, value in (("error", e.error), ("accuracy", e.accuracy))]
    for test in result.comparisons:
        rows += _test_rows(list(test["models"]), test["test"], test)
    return rows


GROUP_COLUMNS = ("subgroup", *COLUMNS)
"""The columns of a report by group (``by=``): the group's label first ("(all)" for all the instances, "(gaps)"
for the gaps between the groups)."""


def subgroup_rows(result: Any) -> list[dict[str, Any]]:
    """The rows of a report by group: all the instances' estimates, each group's, then the disparity summaries,
    each group's rates tested against the rest (the difference with its interval, the Holm-adjusted p) and its
    calibration intercept and slope tested (section ``calibration_test``: the p-value and the Holm-adjusted one in
    the note)."""
    rows = [{"subgroup": "(all)", **r} for r in estimate_rows(result.overall)]
    for label, ev in result.groups.items():
        if ev is not None:
            rows += [{"subgroup": label, **r} for r in estimate_rows(ev)]
    for name, e in result.disparities.items():
        rows.append({"subgroup": "(gaps)", **_row("disparities", name, None, e)})
    for t in result.tests:
        rows.append({"subgroup": t.group, **_row("against_the_rest", t.rate, t.against, t.difference),
                     "note": f"pvalue_holm={t.adjusted!r}" if t.adjusted is not None else t.difference.note})
    for t in result.calibration_tests:  # each group's calibration intercept against 0, slope against 1
        ci = t["ci"] or (None, None)
        rows.append({"subgroup": t["group"], "section": "calibration_test", "metric": t["test"], "group": None,
                     "value": t["estimate"], "low": ci[0], "high": ci[1], "method": t["method"],
                     "note": f"pvalue={t['pvalue']!r}; pvalue_holm={t['pvalue_holm']!r}" if t["pvalue"] is not None
                     else t["note"]})
    return rows


def to_frame(result: Any) -> Any:
    """The rows as a pandas DataFrame (pandas is needed for this alone); a result about several models
    (Validation, Comparison) has the model's name in a first column, ``model``."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is there in the tests
        raise ImportError("to_frame() needs pandas: pip install pandas") from None
    if hasattr(result, "models") or hasattr(result, "reports"):  # a Validation or a Comparison
        return pd.DataFrame(model_rows(result), columns=list(MODEL_COLUMNS))
    if hasattr(result, "groups") and hasattr(result, "overall"):  # a report by group
        return pd.DataFrame(subgroup_rows(result), columns=list(GROUP_COLUMNS))
    return pd.DataFrame(estimate_rows(result), columns=list(COLUMNS))
