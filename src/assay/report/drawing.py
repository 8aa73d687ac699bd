"""Drawing with matplotlib: the helpers every plot of a result uses, and writing figures to files.

matplotlib is imported inside the functions only (a deliberate lazy import: importing assay, a result or
this module never imports it).
"""

from __future__ import annotations

import functools
import io
import math
import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from assay.errors import InvalidInput
from assay.io.atomic import write_atomic

__all__ = [
    "PLOT_FORMATS",
    "RASTERIZE_ABOVE",
    "draw_line",
    "literal_text",
    "new_axes",
    "short_number",
    "unit_axes",
    "write_figures",
]

PLOT_FORMATS: tuple[str, ...] = ("svg", "png")
"""The files ``save_plots`` writes for each plot, in this order."""

RASTERIZE_ABOVE = 20_000
"""Curves with more points than this are rasterized inside vector files (SVG), which stay small."""


def literal_text(plot: Any) -> Any:
    """Draw with matplotlib's mathtext off: class labels and model names are shown as written
    (``$x^$`` would stop the drawing and ``$\\alpha$`` would become a Greek letter)."""

    @functools.wraps(plot)
    def draw(*args: Any, **kwargs: Any) -> Any:
        from matplotlib import rc_context
        from matplotlib.text import Text

        with rc_context({"text.parse_math": False}):
            ax = plot(*args, **kwargs)
        for text in ax.findobj(Text):  # the title and axis labels were made with the axes, before
            text.set_parse_math(False)
        for axis in (ax.xaxis, ax.yaxis):  # and tick labels made at drawing time copy the first tick's
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                tick.label1.set_parse_math(False)
                tick.label2.set_parse_math(False)
        return ax

    return draw


def new_axes(ax: Any) -> Any:
    """``ax``, or a new figure's axes (through pyplot, so that it shows) when None."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots()
    return ax


def draw_line(ax: Any, x: Any, y: Any, *args: Any, **kwargs: Any) -> Any:
    """``ax.plot`` of one line, rasterized inside vector files beyond ``RASTERIZE_ABOVE`` points."""
    (line,) = ax.plot(x, y, *args, **kwargs)
    if len(np.atleast_1d(x)) > RASTERIZE_ABOVE:
        line.set_rasterized(True)
    return line


def short_number(x: float) -> str:
    """Three significant digits, or +inf and -inf (a threshold above or below every score)."""
    return f"{x:.3g}" if math.isfinite(x) else ("+inf" if x > 0 else "-inf")


def unit_axes(ax: Any, xlabel: str, ylabel: str, *, equal: bool = True) -> None:
    """Both axes from 0 to 1, labelled; square unless ``equal`` is False."""
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if equal:
        ax.set_aspect("equal")


# ----------------------------------------------------------------------------
# files


def _write(figure: Any, path: str, fmt: str) -> None:
    """Save the figure to ``path`` through the one output writer (atomic for a file, never over an input)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format=fmt, metadata={"Date": None} if fmt == "svg" else None)
    write_atomic(path, buffer.getvalue())


def write_figures(plan: Sequence[tuple[str, Callable[[Any], Any], tuple[float, float]]],
                  directory: str | os.PathLike[str]) -> list[str]:
    """Draw each (stem, draw(ax), size) of ``plan`` on a figure of its own and write it to ``directory`` as
    ``<stem>.svg`` and ``<stem>.png``, each atomically; the paths written."""
    from matplotlib import rc_context
    from matplotlib.figure import Figure

    directory = os.fspath(directory)
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as e:
        raise InvalidInput(f"cannot create the directory: {e.strerror}", field="directory") from None
    written: list[str] = []
    with rc_context({"svg.hashsalt": "assay", "svg.fonttype": "path", "text.parse_math": False}):
        for stem, draw, size in plan:
            figure = Figure(figsize=size, layout="constrained")
            draw(figure.add_subplot())
            for fmt in PLOT_FORMATS:
                path = os.path.join(directory, f"{stem}.{fmt}")
                _write(figure, path, fmt)
                written.append(path)
            figure.clear()
    return written
