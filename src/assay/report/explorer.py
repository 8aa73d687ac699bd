"""The threshold explorer of the HTML report: the exact counts and rates at each threshold it holds, and its
controls.

The library computes every row (``RankingAnalysis.threshold_table``); the page's script only moves between
them. Every distinct threshold is held up to ``EXPLORER_THRESHOLDS``; beyond, that many evenly spaced ones and
the thresholds the report names.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from markupsafe import Markup

from assay.report.svg import Chart

__all__ = ["EXPLORER_COLUMNS", "EXPLORER_THRESHOLDS", "explorer_data", "explorer_section"]


EXPLORER_THRESHOLDS = 2000
"""At most this many thresholds are embedded for the explorer (all of them when there are fewer)."""

EXPLORER_COLUMNS = ("tp", "fp", "fn", "tn", "recall", "specificity", "fpr", "precision", "npv", "accuracy", "f1",
                    "mcc", "youden_j", "expected_cost", "predicted_positive")


def _finite(values: np.ndarray, digits: int | None = None) -> list[float | None]:
    out = []
    for v in np.asarray(values, dtype=float):
        if not math.isfinite(v):
            out.append(None)
        else:
            out.append(round(float(v), digits) if digits is not None else float(v))
    return out


def _explorer_thresholds(ranking: Any) -> tuple[np.ndarray, bool]:
    """The thresholds the explorer holds, ascending, in the scores' own units, with the one that predicts
    nothing positive (+inf; -inf where lower scores mean the positive class) at the end that has it."""
    lower = getattr(ranking, "direction", "higher") == "lower"
    distinct = np.sort(-np.asarray(ranking.summary.scores, dtype=float) if lower
                       else np.asarray(ranking.summary.scores, dtype=float))
    exact = len(distinct) <= EXPLORER_THRESHOLDS and ranking.drawn_from is None
    if exact:
        chosen = distinct
    else:
        idx = np.unique(np.linspace(0, len(distinct) - 1, EXPLORER_THRESHOLDS).round().astype(int))
        extra = [c.threshold for c in ranking.best.values()]
        if ranking.operating_point is not None:
            extra.append(ranking.operating_point.threshold)
        chosen = np.unique(np.concatenate([distinct[idx], [e for e in extra if math.isfinite(e)]]))
    if lower:
        return np.concatenate([[-np.inf], chosen]), exact
    return np.concatenate([chosen, [np.inf]]), exact


def explorer_data(ranking: Any, roc: Chart, pr: Chart, key: str, positive_first: bool = False) -> dict[str, Any]:
    thresholds, exact = _explorer_thresholds(ranking)
    table = ranking.threshold_table(thresholds)
    columns = {name: _finite(table[name]) for name in EXPLORER_COLUMNS}
    at = getattr(ranking, "given_prevalence", None)  # the PR chart's cursor: on its curve, at the prevalence given
    precision = np.asarray(table["precision"] if at is None else
                           ranking.threshold_table(thresholds, prevalence=at)["precision"], dtype=float)
    start = 0
    if ranking.operating_point is not None:
        if getattr(ranking, "direction", "higher") == "lower":  # the last held threshold at or below it
            start = max(int(np.searchsorted(thresholds, ranking.operating_point.threshold, side="right")) - 1, 0)
        else:  # the first held threshold at or above it
            start = int(np.searchsorted(thresholds, ranking.operating_point.threshold, side="left"))
        start = min(start, len(thresholds) - 1)
    labels = ranking.summary.labels
    return {
        "key": key,
        "exact": exact,
        "distinct": ranking.distinct,
        "negative": labels[0],
        "positive": labels[1],
        "positive_first": bool(positive_first),
        "lower": getattr(ranking, "direction", "higher") == "lower",
        "thresholds": _finite(thresholds),
        "rows": columns,
        "roc": {"cx": _finite(roc.px(table["fpr"]), 2), "cy": _finite(roc.py(table["recall"]), 2)},
        "pr": {"cx": _finite(pr.px(table["recall"]), 2),
               "cy": [None if not math.isfinite(p) else round(float(pr.py(p)), 2) for p in precision]},
        "start": start,
        # the operating point's row shows the threshold as the report gives it, not the score it lands on
        "given": ({"index": start, "text": repr(float(ranking.operating_point.threshold))}
                  if ranking.operating_point is not None and math.isfinite(ranking.operating_point.threshold)
                  else None),
    }


def explorer_section(data: dict[str, Any]) -> Markup:
    key = data["key"]
    n = len(data["thresholds"])
    note = ("every distinct threshold is here: the numbers are exact for any threshold you type" if data["exact"]
            else f"{n - 1:,} of the {data['distinct']:,} distinct thresholds are here (exact counts at each); a "
                 "typed threshold moves to the nearest one held")
    metrics = [("recall", "Recall (TPR)"), ("specificity", "Specificity"), ("fpr", "False positive rate"),
               ("precision", "Precision"), ("npv", "NPV"), ("accuracy", "Accuracy"), ("f1", "F1"),
               ("mcc", "MCC"), ("youden_j", "Youden's J"), ("expected_cost", "Expected cost")]
    rows = Markup("").join(Markup('<tr><th>{}</th><td class="num" data-metric="{}"></td></tr>').format(title, name)
                           for name, title in metrics)
    # the classes in the order of the confusion matrix above it
    order = [(data["negative"], ("tn", "fp")), (data["positive"], ("fn", "tp"))]
    if data["positive_first"]:
        order = [(data["positive"], ("tp", "fn")), (data["negative"], ("fp", "tn"))]
    head = Markup("").join(Markup("<th>{}</th>").format(label) for label, _ in order)
    body = Markup("").join(
        Markup('<tr><th>{}</th><td class="num" data-cell="{}"></td><td class="num" data-cell="{}"></td></tr>').format(
            label, *cells) for label, cells in order)
    return Markup('''
<section class="explorer" data-explorer="{key}">
  <h3>Threshold explorer</h3>
  <p class="muted">{note}. Use the slider (or the arrow keys on it), or type a threshold and press Enter;
  predicted {pos} iff score {op} threshold.</p>
  <div class="controls">
    <label for="threshold-slider-{key}">threshold</label>
    <input type="range" id="threshold-slider-{key}" class="threshold-slider" min="0" max="{last}" step="1"
           value="{start}" aria-label="threshold (index among the held thresholds)">
    <input type="number" id="threshold-value-{key}" class="threshold-value" step="any"
           aria-label="threshold value">
    <span class="threshold-note" id="threshold-note-{key}" aria-live="polite"></span>
  </div>
  <div class="explorer-body">
    <table class="explorer-matrix" id="explorer-matrix-{key}">
      <thead><tr><th>actual \\ predicted</th>{head}</tr></thead>
      <tbody>{body}</tbody>
    </table>
    <table class="explorer-metrics" id="explorer-metrics-{key}"><tbody>{rows}</tbody></table>
  </div>
</section>''').format(key=key, note=note, pos=data["positive"], op=Markup("&lt;=" if data["lower"] else "&gt;="),
                      head=head, body=body, last=n - 1,
                      start=data["start"], rows=rows)
