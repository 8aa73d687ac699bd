"""Plots and notebook display on the result objects: thin methods over assay.report.

The results are computed in this package; drawing them belongs to the report
layer, imported only when a method is called (so importing assay never imports
matplotlib). Each ``plot_*`` method draws on a given matplotlib ``Axes`` (a new
figure's when ``ax`` is None) and returns it, as scikit-learn's display objects
do; ``_repr_html_`` is what Jupyter shows for a result.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Displayable", "DisplayableModels"]


class Displayable:
    """Plot methods and the notebook view shared by Evaluation, RankingAnalysis, Validation and Comparison."""

    def plot_roc(self, ax: Any = None, **options: Any) -> Any:
        """The ROC curve, with its convex hull, the reference classifiers, the chosen threshold's point
        and the iso-performance line (see ``assay.report.plots.plot_roc`` for the options)."""
        from assay.report.plots import plot_roc

        return plot_roc(self, ax, **options)

    def plot_pr(self, ax: Any = None, **options: Any) -> Any:
        """The precision-recall curve with its prevalence baseline."""
        from assay.report.plots import plot_pr

        return plot_pr(self, ax, **options)

    def plot_lift(self, ax: Any = None, **options: Any) -> Any:
        """Cumulative gains (``kind="gains"``, the default) or lift (``kind="lift"``) against depth."""
        from assay.report.plots import plot_lift

        return plot_lift(self, ax, **options)

    def plot_calibration(self, ax: Any = None, **options: Any) -> Any:
        """The reliability diagram: observed frequency against mean predicted probability, per bin."""
        from assay.report.plots import plot_calibration

        return plot_calibration(self, ax, **options)

    def plot_confusion(self, ax: Any = None, **options: Any) -> Any:
        """The confusion matrix as a heat map (``normalize="actual"``, ``"predicted"`` or None)."""
        from assay.report.plots import plot_confusion

        return plot_confusion(self, ax, **options)

    def plot_cost(self, ax: Any = None, **options: Any) -> Any:
        """Expected cost per instance against the threshold, with the least-cost threshold marked."""
        from assay.report.plots import plot_cost

        return plot_cost(self, ax, **options)

    def save_plots(self, directory: str) -> list[str]:
        """Write every plot that applies to ``directory`` as SVG and PNG; returns the paths written."""
        from assay.report.plots import save_plots

        return save_plots(self, directory)

    def _repr_html_(self) -> str:
        from assay.report.html import render_fragment

        return render_fragment(self)


class DisplayableModels(Displayable):
    """A result about several models fitted on folds: adds the per-fold spread."""

    def plot_folds(self, ax: Any = None, **options: Any) -> Any:
        """Each model's error on each fold (or round), with the method's estimate."""
        from assay.report.plots import plot_folds

        return plot_folds(self, ax, **options)
