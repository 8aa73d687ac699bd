"""The confusion matrix as a heat map, drawn with matplotlib."""

from __future__ import annotations

import math
from typing import Any, Literal, get_args

import numpy as np

from assay.errors import InvalidInput
from assay.evaluation.result import Evaluation
from assay.report.drawing import literal_text, new_axes
from assay.report.plotted import one_model

__all__ = ["CONFUSION_NORMALIZATIONS", "ConfusionNormalization", "plot_confusion"]


ConfusionNormalization = Literal["actual", "predicted"]
CONFUSION_NORMALIZATIONS: tuple[str, ...] = get_args(ConfusionNormalization)


def _evaluation(entry: Any, what: str) -> Any:
    """The entry, an Evaluation; a ranking (assay.rank) has no predicted labels."""
    if not isinstance(entry, Evaluation):
        raise InvalidInput(f"{what} needs an evaluation (assay.evaluate); a ranking (assay.rank) holds the scores "
                           "only")
    return entry


@literal_text
def plot_confusion(result: Any, ax: Any = None, *, normalize: ConfusionNormalization | None = "actual",
                   model: str | None = None) -> Any:
    """Draw the confusion matrix as a heatmap of counts, rows actual and columns predicted.

    Parameters
    ----------
    result : Evaluation, Validation or Comparison
    ax : matplotlib Axes, optional
    normalize : {"actual", "predicted"} or None, default "actual"
        Each cell shows its count and its share of the row (``"actual"``: the
        share of the actual class), of the column (``"predicted"``), or the
        count only (None). The colour follows the count.
    model : str, optional
        Which model of a Validation or Comparison.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from assay import evaluate
    >>> e = evaluate(["a", "b", "b", "a"], y_pred=["a", "b", "a", "a"], positive="b")
    >>> ax = plot_confusion(e, Figure().subplots())
    >>> [t.get_text() for t in ax.texts]
    ['2\\n100.0%', '0\\n0.0%', '1\\n50.0%', '1\\n50.0%']
    """
    if normalize is not None and normalize not in CONFUSION_NORMALIZATIONS:
        raise InvalidInput(f"must be one of {', '.join(map(repr, CONFUSION_NORMALIZATIONS))} or None, got "
                           f"{normalize!r}", field="normalize")
    name, entry = one_model(result, model)
    evaluation = _evaluation(entry, "a confusion matrix")
    if not evaluation.thresholded:
        raise InvalidInput("scores without a threshold have no confusion matrix: evaluate them with threshold=T")
    counts = np.asarray(evaluation.confusion.counts)
    labels = [str(label) for label in evaluation.confusion.labels]
    k = len(labels)
    shares = None
    if normalize is not None:
        key = "normalized_by_actual" if normalize == "actual" else "normalized_by_predicted"
        shares = np.array(evaluation.analysis.matrices[key], dtype=np.float64)
    ax = new_axes(ax)
    image = ax.imshow(counts, cmap="Blues", interpolation="nearest", vmin=0)
    dark = counts.max() / 2.0 if counts.size else 0.0
    size = "medium" if k <= 4 else "small" if k <= 8 else "x-small"
    for i in range(k):
        for j in range(k):
            c = counts[i, j]
            text = f"{int(c):,}" if float(c).is_integer() else f"{c:.4g}"
            if shares is not None:
                share = shares[i, j]
                text += "\n" + ("—" if share is None or not math.isfinite(share) else f"{share * 100:.1f}%")
            ax.text(j, i, text, ha="center", va="center", fontsize=size,
                    color="white" if c > dark else "black")
    ax.set_xticks(range(k), labels)
    ax.set_yticks(range(k), labels)
    ax.set_xlabel("predicted")
    ax.set_ylabel("actual")
    what = {"actual": "; % of each actual class", "predicted": "; % of each predicted class", None: ""}[normalize]
    ax.set_title(f"Confusion matrix{'' if name is None else ': ' + name} (rows actual{what})", fontsize="medium")
    image.set_label("counts")
    return ax
