"""The decision curve of an evaluation (net benefit against threshold probability), drawn with matplotlib."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from assay.errors import InvalidInput
from assay.report.drawing import literal_text, new_axes
from assay.report.plotted import one_model

__all__ = ["plot_decision_curve"]


@literal_text
def plot_decision_curve(result: Any, ax: Any = None, *, model: str | None = None) -> Any:
    """Draw the decision curve: the model's net benefit with its bootstrap interval, treating everyone and
    treating no one, across threshold probabilities (Vickers & Elkin 2006).

    Parameters
    ----------
    result : Evaluation
        An evaluation asked for its decision curve (``net_benefit=True``).
    ax : matplotlib Axes, optional
    model : str, optional
        Which model of several.

    Returns
    -------
    matplotlib Axes

    Notes
    -----
    The y axis runs from a little below 0 to a little above the highest net benefit: treating everyone falls
    steeply as the threshold probability grows, and its line leaves the plot at the bottom, as the decision
    curves of ``dcurves`` and ``rmda`` are drawn. With costs, their threshold probability is marked.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from assay import evaluate
    >>> e = evaluate([1, 1, 0, 0, 1], y_score=[0.9, 0.6, 0.3, 0.2, 0.4], thresholds_range=(0.1, 0.5, 0.1))
    >>> line = plot_decision_curve(e, Figure().subplots()).get_lines()[-1]
    >>> [round(v, 3) for v in line.get_ydata().tolist()]
    [0.556, 0.5, 0.514, 0.6, 0.4]
    """
    name, entry = one_model(result, model)
    d = getattr(entry, "net_benefit", None)
    if d is None:
        raise InvalidInput("a decision curve needs net_benefit=True (--net-benefit) with probabilities")
    ax = new_axes(ax)
    t = np.asarray(d.thresholds, dtype=np.float64)
    band = d.interval("model")
    top = max(float(np.nanmax(d.model)) if np.isfinite(d.model).any() else 0.0, float(d.prevalence)) * 1.1 or 0.1
    if band is not None:
        ok = np.isfinite(band[0]) & np.isfinite(band[1])
        ax.fill_between(t[ok], band[0][ok], band[1][ok], color="C0", alpha=0.2, lw=0,
                        label=f"{round(d.confidence * 100, 1):g}% bootstrap interval")
    ax.plot(t, d.treat_all, color="0.5", lw=1.2, label="treat everyone")
    ax.axhline(0.0, color="0.2", lw=1, ls="--", label="treat no one")
    if d.at_costs is not None and math.isfinite(float(d.at_costs.model[0])):
        ax.plot([float(d.at_costs.thresholds[0])], [float(d.at_costs.model[0])], "o", color="k",
                label=f"the costs' threshold probability {float(d.at_costs.thresholds[0]):.3g}")
    ax.plot(t, d.model, color="C0", lw=1.6, label="model")
    ax.set_xlim(float(t.min()), float(t.max()) if t.max() > t.min() else float(t.min()) + 0.01)
    ax.set_ylim(-0.15 * top, top)
    ax.set_xlabel("Threshold probability")
    ax.set_ylabel("Net benefit")
    ax.set_title("Decision curve" + ("" if name is None else ": " + name))
    ax.legend(loc="upper right", fontsize="small")
    ax.grid(True, alpha=0.3)
    return ax
