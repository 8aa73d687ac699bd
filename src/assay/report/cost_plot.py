"""The expected cost per instance against the threshold, drawn with matplotlib."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from assay.errors import InvalidInput
from assay.report.drawing import draw_line, literal_text, new_axes, short_number
from assay.report.plotted import one_model, ranking_or_reason

__all__ = ["plot_cost"]


@literal_text
def plot_cost(result: Any, ax: Any = None, *, model: str | None = None) -> Any:
    """Draw the expected cost per instance against the threshold, the least-cost threshold marked.

    Parameters
    ----------
    result : Evaluation, RankingAnalysis, Validation or Comparison
        Scores of two classes; the costs and the deployment prevalence are the
        ones given to ``evaluate`` (by default each error costs 1, at the test
        data's prevalence: the cost is the error rate).
    ax : matplotlib Axes, optional
    model : str, optional
        Which model of a Validation or Comparison.

    Returns
    -------
    matplotlib Axes

    Notes
    -----
    ``ranking.threshold_table()["expected_cost"]`` at each distinct score t
    (positive iff score ≥ t); between two scores the cost is the one at the
    higher, hence the steps. The dotted line is the cost of predicting no
    positive at all (a threshold above every score).

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from assay import rank
    >>> r = rank([1, 1, 0, 0, 1, 0], y_score=[0.9, 0.8, 0.7, 0.6, 0.3, 0.2])
    >>> ax = plot_cost(r, Figure().subplots())
    >>> ax.get_lines()[0].get_ydata().round(3).tolist()
    [0.333, 0.167, 0.333, 0.5, 0.333, 0.5]
    """
    name, entry = one_model(result, model)
    ranking, reason = ranking_or_reason(entry, "a cost curve")
    if ranking is None:
        raise InvalidInput(reason)
    table = ranking.threshold_table()
    none = float(ranking.threshold_table(np.array([np.inf]))["expected_cost"][0])
    ax = new_axes(ax)
    draw_line(ax, table["threshold"], table["expected_cost"], color="C0", lw=1.6, drawstyle="steps-post",
              label="expected cost")
    ax.axhline(none, ls=":", color="0.5", lw=1, label=f"predict no positive ({none:.3g})")
    best = ranking.best["min_expected_cost"]
    ties = f", {best.ties} tied" if best.ties > 1 else ""
    if math.isfinite(best.threshold):
        ax.plot([best.threshold], [best.value], "*", color="C3", ms=12, mec="black", zorder=5,
                label=f"least cost {best.value:.3g} at threshold {short_number(best.threshold)}{ties}")
    else:
        ax.plot([], [], "*", color="C3", label=f"least cost {best.value:.3g}: predict no positive")
    op = ranking.operating_point
    if op is not None and math.isfinite(op.threshold):
        ax.axvline(op.threshold, ls="--", color="0.3", lw=1, label=f"threshold used {short_number(op.threshold)}")
    c = ranking.costs
    ax.set_xlabel("Threshold (positive iff score ≥ threshold)")
    ax.set_ylabel("Expected cost per instance")
    ax.set_ylim(bottom=0.0)
    ax.set_title(f"Expected cost{'' if name is None else ': ' + name} (costs FP {c.fp:g}, FN {c.fn:g}, "
                 f"TP {c.tp:g}, TN {c.tn:g}; prevalence {short_number(ranking.deployment_prevalence)})",
                 fontsize="medium")
    ax.legend(loc="best", fontsize="small")
    return ax
