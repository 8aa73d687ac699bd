"""Every result's renderers, found by the result's type: the report layer's side of the door.

A result is plain typed data; it reaches its text, its notebook HTML and its plots through
:mod:`assay.evaluation.display` only, which imports this module on first use. Here each result type is
matched with the functions that render it, so that a result's methods name none of them:

==================================  =========================================================
``text(result)``                    the terminal report (``str(result)``), from ``document``
``document(result)``                the blocks of that report, by the result's type
``fragment(result)``                the HTML of a notebook cell (``result._repr_html_()``)
``plot(result, which, ax)``         one matplotlib figure: ``which`` one of ``PLOTS``
``save_plots(result, directory)``   every plot that applies, as SVG and PNG
==================================  =========================================================

A new result type registers its document with ``document.register``; a new figure goes into ``PLOTS``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import singledispatch
from typing import Any

from assay.errors import InvalidInput
from assay.evaluation.comparison import Comparison
from assay.evaluation.groups import GroupedEvaluation
from assay.evaluation.ranking import RankingAnalysis
from assay.evaluation.regression import RegressionEvaluation
from assay.evaluation.regression_validation import RegressionValidation
from assay.evaluation.result import Evaluation
from assay.evaluation.validation import Validation, ValidationOverDatasets
from assay.inference.friedman import FriedmanResult
from assay.report import plots
from assay.report.blocks import Block
from assay.report.comparison import comparison_document
from assay.report.document import evaluation_document
from assay.report.friedman import friedman_document
from assay.report.groups import groups_document
from assay.report.html import render_fragment
from assay.report.ranking import ranking_document
from assay.report.regression import regression_document
from assay.report.regression_plots import plot_predicted_actual, plot_residuals
from assay.report.text import render_blocks_text
from assay.report.validation import (
    datasets_document,
    regression_validation_document,
    validation_document,
)

__all__ = ["PLOTS", "document", "fragment", "plot", "save_plots", "text"]


@singledispatch
def document(result: Any, **options: Any) -> list[Block]:
    """The blocks of a result's report; ``options`` are its document function's (``brief=True``, ...)."""
    raise TypeError(f"no report for a {type(result).__name__}")


document.register(Evaluation, evaluation_document)
document.register(RankingAnalysis, ranking_document)
document.register(Comparison, comparison_document)
document.register(Validation, validation_document)
document.register(ValidationOverDatasets, datasets_document)
document.register(RegressionEvaluation, regression_document)
document.register(RegressionValidation, regression_validation_document)
document.register(FriedmanResult, friedman_document)
document.register(GroupedEvaluation, groups_document)


def text(result: Any, *, color: bool | None = False, width: int | None = None, **options: Any) -> str:
    """The terminal report of a result: its document laid out by rich (no colour by default: ``print(r)``)."""
    return render_blocks_text(document(result, **options), color=color, width=width)


def fragment(result: Any) -> str:
    """The report as HTML for a notebook cell (what Jupyter shows for a result)."""
    return render_fragment(result)


PLOTS: dict[str, Callable[..., Any]] = {
    "roc": plots.plot_roc,
    "pr": plots.plot_pr,
    "lift": plots.plot_lift,
    "calibration": plots.plot_calibration,
    "confusion": plots.plot_confusion,
    "cost": plots.plot_cost,
    "folds": plots.plot_folds,
    "predicted_actual": plot_predicted_actual,
    "residuals": plot_residuals,
}
"""Each kind of figure ``plot`` draws, and the function that draws it on an ``Axes``."""


def plot(result: Any, which: str, ax: Any = None, /, **options: Any) -> Any:
    """Draw the ``which`` figure of a result on ``ax`` (a new figure's when None) with its own ``options``;
    the ``Axes``."""
    if which not in PLOTS:
        raise InvalidInput(f"expected one of {', '.join(map(repr, PLOTS))}, got {which!r}", field="which")
    return PLOTS[which](result, ax, **options)


def save_plots(result: Any, directory: str | os.PathLike[str]) -> list[str]:
    """Every plot that applies to the result, written to ``directory`` as SVG and PNG; the paths written."""
    return plots.save_plots(result, directory)

