"""The one door from a result to its renderers: its text, its notebook HTML and its plots.

A result is plain typed data. Showing it is the report layer's work, and the report layer sits above
the results: it imports them, to read them. So a result never imports a renderer; it hands itself over
through this door, as scikit-learn's metrics hand their curves to a ``RocCurveDisplay`` that they never
import, and as pandas reaches its plotting backend through one accessor. Every method of a result that
renders calls one of the functions here (``display.text(self)``, ``display.plot(self, "roc", ax)``, ...),
and the report layer's :mod:`assay.report.renderers` finds the renderer by the result's type.

Why one lazy import
-------------------
:func:`renderers` holds the evaluation package's only import of ``assay.report``, inside the function,
on purpose: at the top it would close a circle (the report imports the results, which would import the
report), and it keeps ``import assay`` and importing a result from importing the renderers (the report
modules, markupsafe; matplotlib, rich and jinja2 are imported later still, by the renderer that needs
them). This is the one place the results depend on the layer above them.

``Displayable`` gives a result the plot methods and the notebook view through the same door; each
``plot_*`` method draws on a given matplotlib ``Axes`` (a new figure's when ``ax`` is None) and returns
it, as scikit-learn's display objects do; ``_repr_html_`` is what Jupyter shows for a result.
"""

from __future__ import annotations

import os
from types import ModuleType
from typing import Any

__all__ = ["Displayable", "DisplayableModels", "fragment", "plot", "renderers", "save_plots", "text"]


def renderers() -> ModuleType:
    """The report layer's renderers (:mod:`assay.report.renderers`), imported on first use (see above)."""
    from assay.report import renderers as found

    return found


def text(result: Any, **options: Any) -> str:
    """The terminal report of a result (``str(result)``); ``options``: ``color``, ``width``, ``brief``, ..."""
    return renderers().text(result, **options)


def fragment(result: Any) -> str:
    """The report as HTML for a notebook cell (``result._repr_html_()``)."""
    return renderers().fragment(result)


def plot(result: Any, which: str, ax: Any = None, /, **options: Any) -> Any:
    """The ``which`` matplotlib figure of a result ("roc", "pr", "lift", "calibration", "confusion", "cost",
    "folds", "predicted_actual", "residuals") on ``ax``; the ``Axes``. ``options`` are the figure's own
    (``kind="lift"``, ``model="tree"``, ...)."""
    return renderers().plot(result, which, ax, **options)


def save_plots(result: Any, directory: str | os.PathLike[str]) -> list[str]:
    """Every plot that applies to a result, written to ``directory`` as SVG and PNG; the paths written."""
    return renderers().save_plots(result, directory)



class Displayable:
    """Plot methods and the notebook view shared by Evaluation, RankingAnalysis, Validation and Comparison."""

    def plot_roc(self, ax: Any = None, **options: Any) -> Any:
        """The ROC curve, with its convex hull, the reference classifiers, the chosen threshold's point
        and the iso-performance line (see ``assay.report.plots.plot_roc`` for the options)."""
        return plot(self, "roc", ax, **options)

    def plot_pr(self, ax: Any = None, **options: Any) -> Any:
        """The precision-recall curve with its prevalence baseline."""
        return plot(self, "pr", ax, **options)

    def plot_lift(self, ax: Any = None, **options: Any) -> Any:
        """Cumulative gains (``kind="gains"``, the default) or lift (``kind="lift"``) against depth."""
        return plot(self, "lift", ax, **options)

    def plot_calibration(self, ax: Any = None, **options: Any) -> Any:
        """The reliability diagram: observed frequency against mean predicted probability, per bin."""
        return plot(self, "calibration", ax, **options)

    def plot_confusion(self, ax: Any = None, **options: Any) -> Any:
        """The confusion matrix as a heat map (``normalize="actual"``, ``"predicted"`` or None)."""
        return plot(self, "confusion", ax, **options)

    def plot_cost(self, ax: Any = None, **options: Any) -> Any:
        """Expected cost per instance against the threshold, with the least-cost threshold marked."""
        return plot(self, "cost", ax, **options)

    def save_plots(self, directory: str) -> list[str]:
        """Write every plot that applies to ``directory`` as SVG and PNG; returns the paths written."""
        return save_plots(self, directory)

    def _repr_html_(self) -> str:
        return fragment(self)


class DisplayableModels(Displayable):
    """A result about several models fitted on folds: adds the per-fold spread."""

    def plot_folds(self, ax: Any = None, **options: Any) -> Any:
        """Each model's error on each fold (or round), with the method's estimate."""
        return plot(self, "folds", ax, **options)
