"""Every estimate of a result as rows of one table: section, metric, group, value, low, high, method, note.

The tidy form a data frame, a spreadsheet or ``assay report --format csv`` wants: one row per number,
the interval's bounds in their own columns, the method that made them named. ``group`` is the class
of a per-class value, the average of an averaged one (micro, macro, weighted), else empty.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from assay.inference.estimate import Estimate

__all__ = ["COLUMNS", "estimate_rows", "to_frame"]

COLUMNS = ("section", "metric", "group", "value", "low", "high", "method", "note")


def _row(section: str, metric: str, group: str | None, e: Estimate) -> dict[str, Any]:
    return {"section": section, "metric": metric, "group": group, "value": e.value,
            "low": e.ci.low if e.ci is not None else None, "high": e.ci.high if e.ci is not None else None,
            "method": e.method, "note": e.note}


def _ranking_rows(ranking: Any) -> Iterator[dict[str, Any]]:
    from assay.evaluation.multiclass_ranking import MulticlassRanking

    if isinstance(ranking, MulticlassRanking):
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
    from assay.evaluation.ranking import RankingAnalysis
    from assay.evaluation.result import Evaluation

    if isinstance(result, RankingAnalysis):
        return list(_ranking_rows(result))
    if not isinstance(result, Evaluation):  # numeric predictions: their errors
        return [_row("metrics", name, None, e) for name, e in result.metrics.items() if isinstance(e, Estimate)]
    rows = [_row("metrics", name, None, e) for name, e in result.metrics.items() if isinstance(e, Estimate)]
    for label, values in result.per_class.items():
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
    return rows


def to_frame(result: Any) -> Any:
    """The rows as a pandas DataFrame (pandas is needed for this alone)."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is there in the tests
        raise ImportError("to_frame() needs pandas: pip install pandas") from None
    return pd.DataFrame(estimate_rows(result), columns=list(COLUMNS))
