"""Pictures of numeric predictions with matplotlib: predicted against actual, and residuals.

Each ``plot_*`` function draws on a given ``Axes`` (a new figure's when ``ax`` is None)
and returns it; ``save_regression_plots`` writes them for a ``RegressionEvaluation``
(``assay report --task regression``) or a ``RegressionValidation`` (one pair per model)
as SVG and PNG. The numbers come from the result: nothing is computed here but the
positions of the marks.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from assay.errors import InvalidInput
from assay.report.drawing import write_figures

__all__ = ["plot_predicted_actual", "plot_residuals", "save_regression_plots", "is_regression"]

MAX_POINTS = 20_000
"""Beyond this many instances the scatter shows an evenly spaced sample of them (in the order of the actual
values), so that a picture of millions of predictions stays light; the lines use every instance."""


def is_regression(result: Any) -> bool:
    """Whether ``result`` is about numeric predictions (an evaluation or a validation of regressors)."""
    return getattr(result, "task", None) == "regression" or type(result).__name__ == "RegressionEvaluation"


def _values(result: Any) -> tuple[np.ndarray, np.ndarray]:
    a, p = getattr(result, "y_true", None), getattr(result, "y_pred", None)
    if a is None or p is None:
        raise InvalidInput("this result keeps no predictions to draw (evaluate_regression keeps them)",
                           field="result")
    return np.asarray(a, dtype=np.float64), np.asarray(p, dtype=np.float64)


def _sample(x: np.ndarray, y: np.ndarray, a: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """At most ``MAX_POINTS`` of the (x, y) pairs, evenly spaced in the order of the actual values ``a``
    (default ``x``)."""
    if len(x) <= MAX_POINTS:
        return x, y
    order = np.argsort(x if a is None else a, kind="stable")
    keep = order[np.linspace(0, len(x) - 1, MAX_POINTS).round().astype(np.intp)]
    return x[keep], y[keep]


def _axes(ax: Any) -> Any:
    if ax is not None:
        return ax
    from matplotlib.figure import Figure

    return Figure(figsize=(5.2, 4.8), layout="constrained").add_subplot()


def plot_predicted_actual(result: Any, ax: Any = None, *, title: str | None = None) -> Any:
    """Predicted values against the actual ones, with the identity line p = a.

    Parameters
    ----------
    result : RegressionEvaluation
        From ``evaluate_regression`` (or a model's ``report`` in a validation of regressors).
    ax : matplotlib Axes, optional
        Drawn on; a new figure's when None.

    Returns
    -------
    matplotlib Axes
    """
    a, p = _values(result)
    ax = _axes(ax)
    sa, sp = _sample(a, p)
    ax.scatter(sa, sp, s=10, alpha=0.5, color="#1f77b4", edgecolors="none", label="instances")
    lo = float(min(a.min(), p.min()))
    hi = float(max(a.max(), p.max()))
    if hi == lo:
        lo, hi = lo - 1.0, hi + 1.0
    ax.plot([lo, hi], [lo, hi], color="#d62728", linestyle="--", linewidth=1.2, label="p = a (perfect predictions)")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("actual value a")
    ax.set_ylabel("predicted value p")
    corr = result.metrics["correlation"].value if hasattr(result, "metrics") else None
    shown = f" (correlation {corr:.3f})" if corr is not None else ""
    ax.set_title(title or f"Predicted against actual{shown}")
    ax.legend(loc="upper left", fontsize=8)
    return ax


def plot_residuals(result: Any, ax: Any = None, *, title: str | None = None) -> Any:
    """Residuals p − a against the predicted values, with the zero line and the mean error.

    Returns
    -------
    matplotlib Axes
    """
    a, p = _values(result)
    ax = _axes(ax)
    r = np.asarray(result.residuals, dtype=np.float64) if getattr(result, "residuals", None) is not None else p - a
    sr, sp = _sample(r, p, a)
    ax.scatter(sp, sr, s=10, alpha=0.5, color="#1f77b4", edgecolors="none", label="instances")
    ax.axhline(0.0, color="#d62728", linestyle="--", linewidth=1.2, label="no error")
    mean_error = result.metrics["mean_error"].value if hasattr(result, "metrics") else None
    if mean_error is not None:
        ax.axhline(mean_error, color="#2ca02c", linewidth=1.0, label=f"mean error {mean_error:.4g}")
    ax.set_xlabel("predicted value p")
    ax.set_ylabel("residual p − a")
    ax.set_title(title or "Residuals against predicted")
    ax.legend(loc="upper left", fontsize=8)
    return ax


def _slug(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def save_regression_plots(result: Any, directory: str | os.PathLike[str]) -> list[str]:
    """Write ``predicted-actual`` and ``residuals`` as SVG and PNG in ``directory`` (``-<model>`` after each
    name for a validation of several regressors, and ``folds``, each model's MSE per part).

    Returns
    -------
    list of str
        The paths written.
    """
    if hasattr(result, "models"):
        several = len(result.models) > 1
        reports = [(name, m.report) for name, m in result.models.items()]
    else:
        several = False
        reports = [("", result)]
    plan: list[tuple[str, Any]] = []
    for name, report in reports:
        suffix = f"-{_slug(name)}" if several else ""
        label = f" — {name}" if name else ""
        plan.append((f"predicted-actual{suffix}",
                     lambda ax, r=report, t=label: plot_predicted_actual(r, ax, title=f"Predicted against "
                                                                                       f"actual{t}")))
        plan.append((f"residuals{suffix}",
                     lambda ax, r=report, t=label: plot_residuals(r, ax, title=f"Residuals against predicted{t}")))
    if hasattr(result, "models") and any(m.estimate.per_round is not None for m in result.models.values()):
        plan.append(("folds", lambda ax: _plot_fold_mse(result, ax)))
    return write_figures([(stem, draw, (5.2, 4.8)) for stem, draw in plan], directory)


def _plot_fold_mse(result: Any, ax: Any) -> Any:
    """Each model's mean squared error on each part (or repetition), with the method's estimate."""
    for i, (name, m) in enumerate(result.models.items()):
        values = m.estimate.per_round
        if values is None:
            continue
        x = np.arange(1, len(values) + 1)
        line = ax.plot(x, values, marker="o", linewidth=1.0, label=name)[0]
        ax.axhline(m.estimate.mse, color=line.get_color(), linestyle=":", linewidth=1.0)
    ax.set_xlabel("part")
    ax.set_ylabel("mean squared error")
    ax.set_title("Mean squared error by part (dotted: the estimate)")
    ax.legend(fontsize=8)
    return ax
