"""ROC space: the convex hull, operating conditions, costs and reference classifiers.

In ROC space (Fawcett, 2006) a classifier is a point (FPR, TPR); the constant,
ideal, inverted and random classifiers sit at the corners and on the diagonal;
mixing two classifiers at random reaches every point of the segment between
them, so only the convex hull of the available points matters; and the best
point for an operating condition (class ratio and costs) is where a line of
slope m = (c_FP N) / (c_FN P) first touches the hull from the upper left.

References
----------
F. Provost, T. Fawcett (2001), Robust classification for imprecise
environments, Machine Learning 42:203-231. T. Fawcett (2006), An introduction
to ROC analysis, Pattern Recognition Letters 27:861-874.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from assay.checks import check_number, check_text
from assay.errors import InvalidInput
from assay.summaries.walk import walk

__all__ = [
    "Hull",
    "HullFold",
    "roc_hull",
    "upper_hull",
    "iso_performance_slope",
    "OptimalPoint",
    "optimal_point",
    "mix",
    "inverted",
    "REFERENCE_CLASSIFIERS",
    "expected_cost",
    "roc_region",
    "REGIONS",
]


def upper_hull(x: np.ndarray, y: np.ndarray, *, tolerance: float = 0.0) -> np.ndarray:
    """Indices of the vertices of the upper convex hull of points sorted by x.

    The points run from (0, 0) to (1, 1) with x non-decreasing (an ROC curve, or
    several merged and sorted). A point is dropped while it lies on or below the
    chord of its two neighbours, which is always safe, so every pass drops them
    all at once, vectorised; passes repeat until none is left. Give integer
    counts (FP, TP) to make the test exact; collinear points are not vertices. On
    rates (curves from different test sets), ``tolerance`` treats turns smaller
    than it as straight, so that rounding does not make a vertex of a collinear point.

    Examples
    --------
    >>> upper_hull(np.array([0, 0, 1, 2, 4]), np.array([0, 2, 3, 3, 4])).tolist()
    [0, 1, 2, 4]
    """
    x = np.asarray(x)
    y = np.asarray(y)
    idx = np.arange(len(x))
    while len(idx) > 2:
        xa, ya = x[idx], y[idx]
        dx1, dy1 = xa[1:-1] - xa[:-2], ya[1:-1] - ya[:-2]
        dx2, dy2 = xa[2:] - xa[1:-1], ya[2:] - ya[1:-1]
        right_turn = dx1 * dy2 < dy1 * dx2 - tolerance
        if right_turn.all():
            break
        idx = idx[np.concatenate(([True], right_turn, [True]))]
    return idx


def roc_hull(positives: np.ndarray, negatives: np.ndarray, *, tp: np.ndarray | None = None,
             fp: np.ndarray | None = None) -> np.ndarray:
    """Vertices of the ROC convex hull of one classifier, from its score counts.

    ``positives`` and ``negatives`` are the class counts of the distinct scores,
    highest score first (``ScoreCounts``). Returns indices into the ROC points
    (index 0 is (0, 0), index g + 1 is the point after score group g).
    ``tp`` and ``fp`` may pass the cumulative counts when they are already made.
    The walk is :class:`HullFold`'s.
    """
    tp = np.cumsum(positives) if tp is None else tp
    fp = np.cumsum(negatives) if fp is None else fp
    columns = {"scores": None, "positives": positives, "negatives": negatives, "tp": tp, "fp": fp}
    n_positive = tp[-1] if len(tp) else 0
    n_negative = fp[-1] if len(fp) else 0
    return walk(columns, [HullFold()], n_positive=n_positive, n_negative=n_negative)[0].index


@dataclass(frozen=True)
class Hull:
    """The vertices of an ROC convex hull: their indices among the ROC points (0 is the origin), their
    cumulative counts and thresholds (+inf at the origin; None unless asked for)."""

    index: np.ndarray
    fp: np.ndarray
    tp: np.ndarray
    thresholds: np.ndarray | None


@dataclass(frozen=True)
class HullFold:
    """The ROC convex hull as a fold of one walk (:mod:`assay.summaries.walk`): the hull of the whole curve
    is the hull of the pieces' hulls, so each piece gives its own hull's vertices (with their counts and,
    ``thresholds`` asked for, their thresholds) and the last hull is taken of those.

    Only a point entered by a step with positives (up) and left by a step with negatives (right) can be a
    vertex: that filter keeps about a fifth of the points of a continuous score before the exact pruning on
    integer counts (a piece's last point, whose next step is in the next piece, is kept for the last hull
    to judge).
    """

    thresholds: bool = False

    @property
    def columns(self) -> tuple[str, ...]:
        return ("positives", "negatives", "tp", "fp") + (("scores",) if self.thresholds else ())

    def piece(self, p: Any) -> tuple[np.ndarray, ...]:
        candidate = np.asarray(p.positives) > 0
        candidate[:-1] &= np.asarray(p.negatives)[1:] > 0
        candidate[-1:] = True
        chosen = np.flatnonzero(candidate)
        x, y = np.asarray(p.fp)[chosen], np.asarray(p.tp)[chosen]
        keep = upper_hull(x, y)
        at = chosen[keep]
        thresholds = np.asarray(p.scores)[at] if self.thresholds else np.zeros(0)
        return at + p.start + 1, x[keep], y[keep], thresholds

    def combine(self, partials: list[tuple[np.ndarray, ...]], look: Any) -> Hull:
        origin = [(np.zeros(1, dtype=np.int64), np.zeros(1, dtype=part[1].dtype), np.zeros(1, dtype=part[2].dtype),
                   np.full(1, np.inf)) for part in partials[:1]]
        ids, x, y, thresholds = (np.concatenate(column) for column in zip(*(origin + partials)))
        keep = upper_hull(x, y)
        return Hull(ids[keep], x[keep], y[keep], thresholds[keep] if self.thresholds else None)


def iso_performance_slope(*, cost_fp: float, cost_fn: float, negatives: float, positives: float) -> float:
    """The slope m = (c_FP N) / (c_FN P) of the lines of equal expected cost (Fawcett, 2006).

    ``negatives`` and ``positives`` may be counts or a ratio (e.g. 10 and 1).

    Examples
    --------
    Fawcett's (2006) scenario alpha: negatives outnumber positives 10 to 1, equal costs.

    >>> iso_performance_slope(cost_fp=1, cost_fn=1, negatives=10, positives=1)
    10.0

    Scenario beta: balanced classes, a false negative 10 times as costly.

    >>> iso_performance_slope(cost_fp=1, cost_fn=10, negatives=1, positives=1)
    0.1
    """
    return float(cost_fp * negatives) / float(cost_fn * positives)


@dataclass(frozen=True)
class OptimalPoint:
    """The hull vertex that minimises expected cost for a slope.

    When the iso-performance line lies along a hull edge, both of its ends (and,
    by mixing them, every point between) are optimal: ``tied_with`` is then the
    other end's index.
    """

    index: int
    fpr: float
    tpr: float
    slope: float
    tied_with: int | None = None


def optimal_point(fpr: np.ndarray, tpr: np.ndarray, slope: float) -> OptimalPoint:
    """The point maximising TPR - m FPR: the first the iso-performance line touches.

    Examples
    --------
    >>> hull_fpr, hull_tpr = np.array([0, 0.1, 0.5, 1]), np.array([0, 0.5, 0.9, 1])
    >>> optimal_point(hull_fpr, hull_tpr, 10.0).index   # negatives 10:1: be conservative
    0
    >>> optimal_point(hull_fpr, hull_tpr, 0.1).index    # misses 10x costlier: be liberal
    3
    >>> optimal_point(hull_fpr, hull_tpr, 1.0).index
    1
    """
    fpr = np.asarray(fpr, dtype=np.float64)
    tpr = np.asarray(tpr, dtype=np.float64)
    if math.isinf(slope):  # only false positives count: the fewest of them, then the most true positives
        value = np.where(fpr == fpr.min(), tpr, -np.inf)
    else:
        value = tpr - slope * fpr
    best = float(value.max())
    tol = 1e-12 * max(1.0, abs(best))
    winners = np.flatnonzero(value >= best - tol)
    i = int(winners[0])
    tied = int(winners[-1]) if len(winners) > 1 else None
    return OptimalPoint(i, float(fpr[i]), float(tpr[i]), float(slope), tied)


def mix(a: tuple[float, float], b: tuple[float, float], q: float) -> tuple[float, float]:
    """Use classifier b with probability q and a otherwise: the point between (Provost & Fawcett 2001).

    Parameters
    ----------
    a, b : (fpr, tpr)
        Two classifiers' points in ROC space, each rate in [0, 1].
    q : float in [0, 1]
        The probability of using b.

    Raises
    ------
    InvalidInput
        On a point that is not two rates in [0, 1], or q outside [0, 1].

    >>> mix((0.1, 0.5), (0.5, 0.9), 0.25)
    (0.2, 0.6)
    """
    a, b = _point(a, "a"), _point(b, "b")
    q = check_number(q, "q", low=0.0, high=1.0, what="a probability in [0, 1]")
    return (round((1 - q) * a[0] + q * b[0], 15), round((1 - q) * a[1] + q * b[1], 15))


def _point(value: object, field: str) -> tuple[float, float]:
    """A point (fpr, tpr) of ROC space: two rates in [0, 1]."""
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__len__") or not hasattr(value, "__getitem__"):
        raise InvalidInput(f"must be a point (fpr, tpr) of two rates in [0, 1], got {check_text(value)}", field=field)
    try:
        size = len(value)  # type: ignore[arg-type]
    except TypeError:
        size = -1
    if size != 2:
        raise InvalidInput(f"must be a point (fpr, tpr) of two rates in [0, 1], got {check_text(value)}", field=field)
    fpr, tpr = value[0], value[1]  # type: ignore[index]
    return (check_number(fpr, f"{field}[0] (fpr)", low=0.0, high=1.0, what="a rate in [0, 1]"),
            check_number(tpr, f"{field}[1] (tpr)", low=0.0, high=1.0, what="a rate in [0, 1]"))


REGIONS: tuple[str, ...] = ("worse than random", "random", "conservative", "balanced", "liberal")
"""The names :func:`roc_region` gives, from the lower right of ROC space to the upper left and right."""


def roc_region(fpr: float, tpr: float) -> str:
    """Where a discrete classifier lies in ROC space (Fawcett 2006, section 2.1).

    - "worse than random": below the ascending diagonal TPR = FPR (the lower-right triangle); its
      inverse, every answer reversed, is better.
    - "random": on the ascending diagonal, where guessing the positive class at random with
      probability p lands at (p, p).
    - "conservative": above it, on the left-hand side of the descending diagonal TPR = TNR, near the
      lower left: positive only on strong evidence, so few false positives and often few true
      positives; better on the negative class than on the positive one.
    - "balanced": on the descending diagonal TPR = TNR (FPR + TPR = 1, to rounding): equally good on
      both classes. The ideal classifier (0, 1) is here.
    - "liberal": on its right-hand side, toward the upper right: positive on weak evidence, so nearly
      every positive is found and many negatives are called positive; better on the positive class.

    Parameters
    ----------
    fpr, tpr : float in [0, 1]
        The false- and true-positive rates.

    Raises
    ------
    InvalidInput
        On a rate that is not a number in [0, 1] (NaN included: a test set without one of the classes
        has no point).

    References
    ----------
    T. Fawcett (2006), An introduction to ROC analysis, Pattern Recognition Letters 27:861-874,
    section 2.1 and figure 2.

    >>> roc_region(0.1, 0.5), roc_region(0.6, 0.9), roc_region(0.7, 0.2), roc_region(0.3, 0.3)
    ('conservative', 'liberal', 'worse than random', 'random')
    >>> roc_region(0.0, 1.0), roc_region(0.2, 0.8)
    ('balanced', 'balanced')
    """
    fpr = check_number(fpr, "fpr", low=0.0, high=1.0, what="a rate in [0, 1]")
    tpr = check_number(tpr, "tpr", low=0.0, high=1.0, what="a rate in [0, 1]")
    if tpr < fpr:
        return "worse than random"
    if tpr == fpr:
        return "random"
    excess = fpr + tpr - 1.0  # TPR - TNR
    if abs(excess) <= 4.0 * np.finfo(np.float64).eps:  # two rates of counts that sum to 1, rounded
        return "balanced"
    return "conservative" if excess < 0.0 else "liberal"


def inverted(fpr: float, tpr: float) -> tuple[float, float]:
    """The classifier that answers the opposite: (1 - FPR, 1 - TPR) (Fawcett, 2006)."""
    return (1.0 - fpr, 1.0 - tpr)


REFERENCE_CLASSIFIERS: dict[str, tuple[float, float]] = {
    "always_negative": (0.0, 0.0),
    "always_positive": (1.0, 1.0),
    "ideal": (0.0, 1.0),
    "always_wrong": (1.0, 0.0),
}
"""Where the constant, ideal and inverted-ideal classifiers stand in ROC space; random ones lie on FPR = TPR."""


def expected_cost(
    fpr: np.ndarray,
    tpr: np.ndarray,
    *,
    prevalence: float,
    cost_fp: float,
    cost_fn: float,
    cost_tp: float = 0.0,
    cost_tn: float = 0.0,
) -> np.ndarray:
    """Expected cost per instance at each operating point, for a class prevalence.

    pi (c_FN FNR + c_TP TPR) + (1 - pi) (c_FP FPR + c_TN TNR), with pi the share
    of positives where the classifier will be used (by default, the test data's).
    """
    fpr = np.asarray(fpr, dtype=np.float64)
    tpr = np.asarray(tpr, dtype=np.float64)
    pi = prevalence
    return pi * (cost_fn * (1 - tpr) + cost_tp * tpr) + (1 - pi) * (cost_fp * fpr + cost_tn * (1 - fpr))
