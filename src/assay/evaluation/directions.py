"""Which scores mean the positive class: higher (the default), lower, or chosen on the data as pROC's
``direction="auto"`` chooses it (the class with the higher median score is the one the scores point to)."""

from __future__ import annotations

import numpy as np

from assay.evaluation.options import DIRECTIONS
from assay.summaries.scores import ScoreCounts

__all__ = ["DIRECTIONS", "LOWER_NOTE", "auto_direction_note", "directed"]

LOWER_NOTE = ("direction lower: lower scores mean the positive class; predicted positive iff score <= the threshold, "
              "and every threshold is in the scores' own units")


def auto_direction_note(direction: str) -> str:
    return (f"direction {direction}, chosen on these data (as pROC's direction=\"auto\": the class with the higher "
            "median score is taken as the one the scores point to): choosing it on the same data biases the AUC "
            "upward" + ("; predicted positive iff score <= the threshold" if direction == "lower" else ""))


def directed(summary: ScoreCounts, direction: str, notes: list[str]) -> tuple[ScoreCounts, str]:
    """The summary as the analysis ranks it (negated where lower scores mean the positive class) and the
    direction, chosen for "auto" as pROC chooses it (from the classes' medians, read off the summary)."""
    if direction == "higher":
        return summary, direction
    if direction == "auto":
        lower = _median(summary.scores, summary.negatives) > _median(summary.scores, summary.positives)
        direction = "lower" if lower else "higher"
        notes.append(auto_direction_note(direction))
    else:
        notes.append(LOWER_NOTE)
    return (summary.negated() if direction == "lower" else summary), direction


def _median(scores: np.ndarray, counts: np.ndarray) -> float:
    """The median of the instances a summary counts (scores decreasing), as R's and numpy's median (the
    counts and scores of a summary spilled to disk are read whole: two arrays of its length)."""
    ascending, weights = np.asarray(scores)[::-1], np.asarray(counts)[::-1]
    cumulative = np.cumsum(weights)
    n = int(cumulative[-1])

    def at(rank: int) -> float:  # the rank-th smallest, 1-based
        return float(ascending[np.searchsorted(cumulative, rank)])

    return at((n + 1) // 2) if n % 2 else (at(n // 2) + at(n // 2 + 1)) / 2.0


