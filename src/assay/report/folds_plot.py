"""Each model's error rate per test part of a validation, drawn with matplotlib."""

from __future__ import annotations

from typing import Any

import numpy as np

from assay.errors import InvalidInput
from assay.evaluation.validation import Validation
from assay.report.drawing import literal_text, new_axes

__all__ = ["plot_folds"]


@literal_text
def plot_folds(validation: Any, ax: Any = None) -> Any:
    """Draw each model's error rate per test part (fold, round) with the method's estimate.

    Parameters
    ----------
    validation : Validation
        The result of ``assay.validate``.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes

    Notes
    -----
    One dot per test part (every fold of every repetition, spread sideways in
    part order), a box of their quartiles, and a diamond at the error the
    method estimates (``models[name].estimate.error``: the pooled error for
    cross-validation, the .632 combination for bootstrap632, ...), which need
    not be the dots' mean.
    """
    if not isinstance(validation, Validation):
        raise InvalidInput(f"a per-fold plot needs a Validation (assay.validate), got {type(validation).__name__}",
                           field="validation")
    ax = new_axes(ax)
    names = list(validation.models)
    rates = [np.array([f["error_rate"] for f in validation.models[n].folds], dtype=np.float64) for n in names]
    ax.boxplot(rates, positions=range(len(names)), widths=0.5, showfliers=False, medianprops={"color": "0.3"},
               boxprops={"color": "0.6"}, whiskerprops={"color": "0.6"}, capprops={"color": "0.6"})
    for i, (name, errors) in enumerate(zip(names, rates, strict=True)):
        spread = np.linspace(-0.15, 0.15, len(errors)) if len(errors) > 1 else np.zeros(len(errors))
        ax.scatter(i + spread, errors, s=18, color=f"C{i}", alpha=0.8, zorder=3,
                   label="error rate per part" if i == 0 else None)
        ax.scatter([i], [validation.models[name].estimate.error], marker="D", s=50, color="C3",
                   edgecolors="black", zorder=4, label=f"{validation.method} estimate" if i == 0 else None)
    ax.set_xticks(range(len(names)), names)
    ax.set_xlim(-0.6, len(names) - 0.4)
    ax.set_ylim(bottom=0.0)
    ax.set_ylabel("Error rate")
    ax.set_title(f"Error rate per test part: {validation.method} on {validation.dataset}")
    ax.legend(loc="best", fontsize="small")
    return ax
