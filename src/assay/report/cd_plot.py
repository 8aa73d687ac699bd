"""The critical-difference diagram of Demšar (2006), drawn with matplotlib.

An axis of average ranks (1, the best, on the left), each model hung from its
average rank, the critical difference drawn as a bar of its length above the
axis, and each group of models that do not differ significantly (a clique of
the Nemenyi test) joined by a thick bar. It renders, never computes: every
number comes from the ``FriedmanResult``.

matplotlib is imported inside the functions only.
"""

from __future__ import annotations

import io
import os
from typing import Any

from assay.errors import InvalidInput
from assay.report.drawing import write_figures

__all__ = ["plot_critical_difference", "save_cd_plot"]


def plot_critical_difference(result: Any, ax: Any = None) -> Any:
    """Draw the critical-difference diagram of a Friedman/Nemenyi result.

    Parameters
    ----------
    result : FriedmanResult
        From ``assay.friedman``.
    ax : matplotlib Axes, optional
        Drawn on a new figure's axes when None.

    Returns
    -------
    matplotlib Axes

    References
    ----------
    J. Demšar (2006), Statistical comparisons of classifiers over multiple data sets,
    JMLR 7:1-30, Figure 1.
    """
    if not hasattr(result, "critical_difference") or not hasattr(result, "average_ranks"):
        raise InvalidInput(f"expected a FriedmanResult (assay.friedman), got {type(result).__name__}",
                           field="result")
    if ax is not None and not hasattr(ax, "set_xlim"):
        raise InvalidInput(f"expected a matplotlib Axes or None, got {type(ax).__name__}", field="ax")
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=_size(result))
    k = result.n_models
    order = result.order
    ranks = [float(result.average_ranks[i]) for i in order]
    names = [result.models[i] for i in order]
    half = (k + 1) // 2
    ax.set_xlim(0.5, k + 0.5)
    rows = max(half, k - half)
    below = 0.22 * len(result.cliques)  # the cliques' bars lie between the axis and the first model
    bottom = -(rows + 1.0 + below)
    ax.set_ylim(bottom, 2.2)
    ax.axis("off")
    # the axis of ranks, 1 on the left
    ax.plot([1, k], [0, 0], color="black", lw=1)
    for r in range(1, k + 1):
        ax.plot([r, r], [0, 0.18], color="black", lw=1)
        ax.text(r, 0.3, str(r), ha="center", va="bottom", fontsize=9)
    # the critical difference
    cd = float(result.critical_difference)
    if cd <= k - 1:
        ax.plot([1, 1 + cd], [1.5, 1.5], color="black", lw=1.5)
        for x in (1, 1 + cd):
            ax.plot([x, x], [1.4, 1.6], color="black", lw=1)
        ax.text(1 + cd / 2, 1.65, f"CD = {cd:.2f}", ha="center", va="bottom", fontsize=9)
    else:
        ax.text(1, 1.65, f"CD = {cd:.2f} (longer than the axis)", ha="left", va="bottom", fontsize=9)
    # the models: the better half to the left, the rest to the right
    for i, (name, rank) in enumerate(zip(names, ranks, strict=True)):
        left = i < half
        row = i if left else k - 1 - i
        y = -(row + 1.0 + below)
        x_end = 0.55 if left else k + 0.45
        ax.plot([rank, rank, x_end], [0, y, y], color="black", lw=0.8)
        ax.text(x_end, y + 0.08, f"{name} ({rank:.2f})", ha="left" if left else "right",
                va="bottom", fontsize=9)
    # the cliques: a thick bar under the axis from the first to the last member
    position = {name: rank for name, rank in zip(names, ranks, strict=True)}
    for j, clique in enumerate(result.cliques):
        lo = min(position[m] for m in clique)
        hi = max(position[m] for m in clique)
        y = -0.25 - 0.22 * j
        ax.plot([lo - 0.03, hi + 0.03], [y, y], color="black", lw=3, solid_capstyle="butt")
    level = f"{result.confidence * 100:.10g}%"
    ax.set_title(f"Average ranks (1 = best) · Nemenyi test at {level}", fontsize=10)
    return ax


def _size(result: Any) -> tuple[float, float]:
    return max(6.4, 0.9 * result.n_models + 2.0), 1.6 + 0.35 * ((result.n_models + 1) // 2) + 0.2 * len(
        result.cliques)


def save_cd_plot(result: Any, directory: str | os.PathLike[str], *, stem: str = "critical-difference") -> list[str]:
    """Write the diagram to ``directory`` as ``<stem>.svg`` and ``<stem>.png`` (atomically); the paths written."""
    return write_figures([(stem, lambda ax: plot_critical_difference(result, ax), _size(result))], directory)


def cd_svg(result: Any) -> str:
    """The critical-difference diagram as SVG text, for an HTML page (no date in it: the same result gives the
    same page)."""
    from matplotlib import rc_context
    from matplotlib.figure import Figure

    with rc_context({"svg.hashsalt": "assay", "svg.fonttype": "path", "text.parse_math": False}):
        figure = Figure(figsize=_size(result), layout="constrained")
        plot_critical_difference(result, figure.add_subplot())
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None})
        figure.clear()
    text = buffer.getvalue()
    return text[text.index("<svg"):]  # the element alone, without the XML prologue
