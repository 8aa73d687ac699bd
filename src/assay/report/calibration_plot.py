"""The reliability diagram of an evaluation's probabilities, drawn with matplotlib."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from assay.errors import InvalidInput
from assay.report.drawing import literal_text, new_axes, unit_axes
from assay.report.plotted import one_model

__all__ = ["plot_calibration"]


@literal_text
def plot_calibration(result: Any, ax: Any = None, *, model: str | None = None) -> Any:
    """Draw the reliability diagram of the calibration table.

    Parameters
    ----------
    result : Evaluation, Validation or Comparison
        An evaluation with probabilities (``y_proba``, or scores within [0, 1]).
    ax : matplotlib Axes, optional
    model : str, optional
        Which model of a Validation or Comparison.

    Returns
    -------
    matplotlib Axes

    Notes
    -----
    One point per non-empty bin: the observed frequency against the mean
    predicted probability, with the bin's Wilson interval; a perfectly
    calibrated model lies on the diagonal. Bars along the bottom show how many
    instances each bin holds, scaled so that the fullest reaches 0.2. The
    title gives the expected calibration error (ECE): the mean over bins of
    |observed − predicted|, weighted by the bins' counts.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from assay import evaluate
    >>> e = evaluate([1, 1, 0, 0], y_score=[0.9, 0.6, 0.3, 0.2], positive=1)
    >>> points = plot_calibration(e, Figure().subplots()).containers[0].lines[0]
    >>> points.get_xdata().tolist(), points.get_ydata().tolist()
    ([0.2, 0.3, 0.6, 0.9], [0.0, 0.0, 1.0, 1.0])
    """
    name, entry = one_model(result, model)
    probabilistic = getattr(entry, "probabilistic", None)
    if probabilistic is None:
        raise InvalidInput("a reliability diagram needs probabilities: give y_proba (or scores within [0, 1])")
    table = probabilistic.calibration
    if table is None:
        raise InvalidInput("a reliability diagram draws the calibration table, which was not asked for: add "
                           "\"table\" to the calibration parts")
    ax = new_axes(ax)
    filled = [b for b in table.bins if b.count > 0 and b.mean_predicted is not None]
    ax.plot([0.0, 1.0], [0.0, 1.0], ls=":", color="0.5", lw=1, label="perfect calibration")
    x = np.array([b.mean_predicted for b in filled], dtype=np.float64)
    y = np.array([b.observed for b in filled], dtype=np.float64)
    low = np.array([b.ci.low if b.ci is not None else o for b, o in zip(filled, y, strict=True)])
    high = np.array([b.ci.high if b.ci is not None else o for b, o in zip(filled, y, strict=True)])
    ax.errorbar(x, y, yerr=[np.maximum(y - low, 0.0), np.maximum(high - y, 0.0)], fmt="o-", color="C0", lw=1.4,
                capsize=3, zorder=4,
                label=f"observed frequency ({round(probabilistic.confidence * 100, 1):g}% Wilson interval)")
    if filled:
        most = max(b.count for b in filled)
        ax.bar([b.low for b in table.bins], [0.2 * b.count / most for b in table.bins],
               width=[b.high - b.low for b in table.bins], align="edge", color="C0", alpha=0.2, edgecolor="C0",
               lw=0.5, label=f"instances per bin (fullest: {most:,})")
    unit_axes(ax, f"Mean predicted probability ({table.target})", "Observed frequency")
    ece = "undefined" if not math.isfinite(table.ece) else f"{table.ece:.3f}"
    ax.set_title(f"Reliability diagram{'' if name is None else ': ' + name} (ECE {ece})")
    ax.legend(loc="upper left", fontsize="small")
    return ax
