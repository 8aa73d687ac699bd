"""What a plotted result holds: its models, the one a single-model plot is about, and their rankings.

The plots (:mod:`assay.report.plots`) accept one model (``Evaluation``, ``RankingAnalysis``) or several
(``Validation``, ``Comparison``): :func:`plotted_models` lists them, :func:`one_model` picks the one a
single-model plot is about, :func:`ranking_or_reason` finds a model's two-class ranking or says why there is
none, :func:`class_ranking` the one-vs-rest curves of k > 2 classes.
"""

from __future__ import annotations

from typing import Any

from assay.errors import InvalidInput
from assay.evaluation.comparison import Comparison
from assay.evaluation.multiclass_ranking import MulticlassRanking
from assay.evaluation.ranking import RankingAnalysis
from assay.evaluation.result import Evaluation
from assay.evaluation.validation import Validation

__all__ = ["class_ranking", "one_model", "plotted_models", "ranking_or_reason"]


def plotted_models(result: Any) -> list[tuple[str | None, Any]]:
    """The models of a result as (name, Evaluation or RankingAnalysis); the name is None for one model."""
    if isinstance(result, Validation):
        return [(name, m.report) for name, m in result.models.items()]
    if isinstance(result, Comparison):
        return list(zip(result.names, result.reports, strict=True))
    if isinstance(result, (Evaluation, RankingAnalysis)):
        return [(None, result)]
    raise InvalidInput(
        f"cannot plot a {type(result).__name__}: expected the result of assay.evaluate, assay.rank, "
        "assay.validate or assay.compare",
        field="result",
    )


def ranking_or_reason(entry: Any, what: str) -> tuple[Any, str | None]:
    """The entry's two-class RankingAnalysis, or None and why there is none."""
    if isinstance(entry, RankingAnalysis):
        return entry.drawable(), None  # a summary on disk: drawn through some of its exact points
    ranking = entry.ranking
    if ranking is None:
        return None, f"{what} needs scores: give y_score or y_proba"
    if not isinstance(ranking, RankingAnalysis):
        return None, (f"{what} needs two classes, got {len(entry.labels)} "
                      f"({', '.join(map(repr, entry.labels))}); with more, assay gives one-vs-rest AUCs only")
    return ranking.drawable(), None


def class_ranking(result: Any) -> Any:
    """The one-vs-rest ranking of an evaluation of k > 2 classes' probabilities with curves to draw, else None."""
    if isinstance(result, Evaluation) and isinstance(result.ranking, MulticlassRanking) \
            and result.ranking.curves("roc"):
        return result.ranking
    return None


def one_model(result: Any, model: str | None) -> tuple[str | None, Any]:
    """The single model a plot is about: the only one, or the one named by ``model``."""
    entries = plotted_models(result)
    names = [name for name, _ in entries]
    if model is None:
        if len(entries) > 1:
            raise InvalidInput(f"this result holds {len(entries)} models: name one of "
                               f"{', '.join(map(repr, names))}", field="model")
        return entries[0]
    if len(entries) == 1 and entries[0][0] is None:
        raise InvalidInput(f"this result holds one model: 'model' names one of a Validation's or "
                           f"Comparison's, got {model!r}", field="model")
    for name, entry in entries:
        if name == model:
            return name, entry
    raise InvalidInput(f"no model {model!r}: expected one of {', '.join(map(repr, names))}", field="model")
