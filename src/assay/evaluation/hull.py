"""The ROC convex hull of several classifiers together (Fawcett 2006): the curves of those given as scores and
the points of those given as labels, which of them are potentially optimal, and the optimal one for an
iso-performance slope."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from assay.errors import InvalidInput
from assay.evaluation.ranking import RankingAnalysis
from assay.inference.estimate import finite_or_none
from assay.metrics.ranking import ThresholdCounts, threshold_counts
from assay.metrics.roc_space import optimal_point, upper_hull
from assay.summaries.disk import gather

__all__ = ["HullVertex", "CombinedHull", "combined_hull"]


def _curve_counts(name: Any, r: Any) -> ThresholdCounts:
    """The ROC points of a ranking, or the single point of a discrete two-class classifier."""
    ranking = r if isinstance(r, RankingAnalysis) else getattr(r, "ranking", None)
    if isinstance(ranking, RankingAnalysis):
        # the hull of the curves is the hull of their hulls' vertices: a few points of each, not its whole curve
        tc = threshold_counts(ranking.summary)
        index = np.asarray(ranking.hull_index)
        index = index[index > 0] - 1  # point g + 1 follows score group g; the corners are added below
        return ThresholdCounts(gather(tc.thresholds, index), gather(tc.tp, index), gather(tc.fp, index),
                               tc.n_positive, tc.n_negative)
    confusion = getattr(r, "confusion", None)
    positive = getattr(r, "positive", None)
    if confusion is None or positive is None:
        raise InvalidInput(f"{name!r} is a {type(r).__name__}, not the result of assay.rank() or of assay.evaluate() "
                           "on two classes", field="rankings")
    p = confusion.labels.index(positive)
    counts = confusion.counts
    tp, fn, fp, tn = counts[p, p], counts[p, 1 - p], counts[1 - p, p], counts[1 - p, 1 - p]
    return ThresholdCounts(np.array([np.nan]), np.array([tp]), np.array([fp]), tp + fn, fp + tn)


@dataclass(frozen=True)
class HullVertex:
    """A vertex of a combined ROC hull: which classifier, at which threshold."""
    classifier: str
    threshold: float
    fpr: float
    tpr: float

    def to_dict(self) -> dict[str, Any]:
        return {"classifier": self.classifier, "threshold": finite_or_none(self.threshold), "fpr": self.fpr,
                "tpr": self.tpr}


@dataclass(frozen=True)
class CombinedHull:
    """The ROC convex hull of several classifiers' curves (Fawcett 2006; Witten & Frank, ch. 5).
    Only classifiers with a vertex on the hull can be optimal under some
    operating condition; any point on an edge is reached by mixing its two ends
    at random (``assay.metrics.roc_space.mix``).
    """
    vertices: tuple[HullVertex, ...]
    classifiers: tuple[str, ...]

    @property
    def potentially_optimal(self) -> tuple[str, ...]:
        """The classifiers with at least one vertex on the hull (the others can be discarded)."""
        on = {v.classifier for v in self.vertices if v.classifier}
        return tuple(c for c in self.classifiers if c in on)

    def optimal(self, slope: float) -> tuple[HullVertex, HullVertex | None]:
        """The vertex an iso-performance line of this slope touches first, and a tied one."""
        fpr = np.array([v.fpr for v in self.vertices])
        tpr = np.array([v.tpr for v in self.vertices])
        point = optimal_point(fpr, tpr, slope)
        tied = self.vertices[point.tied_with] if point.tied_with is not None else None
        return self.vertices[point.index], tied

    def to_dict(self) -> dict[str, Any]:
        return {"vertices": [v.to_dict() for v in self.vertices],
                "potentially_optimal": list(self.potentially_optimal)}


def combined_hull(rankings: dict[str, Any]) -> CombinedHull:
    """The convex hull of several classifiers' ROC curves, each vertex with its origin.
    A classifier is its ranking (``assay.rank``, or an ``assay.evaluate`` result with scores), or a
    discrete classifier (an ``assay.evaluate`` result of predicted labels, two classes): one point in
    ROC space, whose threshold is NaN.

    When every classifier was scored on data with the same numbers of positives
    and negatives (the same test set), the hull is computed exactly on counts;
    otherwise on rates. The corners (0, 0) and (1, 1) belong to every curve
    (predict nothing or everything) and are attributed to no classifier.

    Examples
    --------
    A finds two of three positives with no false alarm; B finds all three at
    the cost of one: each is on the hull, and the condition picks one.

    >>> from assay import rank
    >>> a = rank([1, 1, 0, 0, 1, 0], y_score=[0.9, 0.8, 0.7, 0.6, 0.3, 0.2])
    >>> b = rank([1, 1, 0, 0, 1, 0], y_score=[0.5, 0.6, 0.1, 0.7, 0.8, 0.2])
    >>> hull = combined_hull({"A": a, "B": b})
    >>> [(v.classifier, round(v.fpr, 2), round(v.tpr, 2)) for v in hull.vertices]
    [('', 0.0, 0.0), ('A', 0.0, 0.67), ('B', 0.33, 1.0), ('', 1.0, 1.0)]
    >>> hull.optimal(10.0)[0].classifier, hull.optimal(0.1)[0].classifier
    ('A', 'B')
    """
    if not isinstance(rankings, Mapping) or not rankings:
        raise InvalidInput("expected a mapping of names to rank() results, e.g. {'A': rank(...), 'B': rank(...)}",
                           field="rankings")
    counts = []
    for name, r in rankings.items():
        counts.append(_curve_counts(name, r))
    names = [str(name) for name in rankings]
    same = len({(float(c.n_positive), float(c.n_negative)) for c in counts}) == 1
    xs, ys, owner, thresholds = [], [], [], []
    for name, tc in zip(names, counts, strict=True):
        if same:
            xs.append(np.asarray(tc.fp)), ys.append(np.asarray(tc.tp))
        else:
            xs.append(tc.fp / tc.n_negative), ys.append(tc.tp / tc.n_positive)
        owner.append(np.full(len(tc.fp), names.index(name)))
        thresholds.append(tc.thresholds)
    total_x = counts[0].n_negative if same else 1.0
    total_y = counts[0].n_positive if same else 1.0
    x = np.concatenate(xs)
    y = np.concatenate(ys)
    who = np.concatenate(owner)
    th = np.concatenate(thresholds)
    order = np.lexsort((-y, x))  # by x, and the highest y first at each x
    x, y, who, th = x[order], y[order], who[order], th[order]
    first = np.concatenate(([True], x[1:] != x[:-1]))  # only the top point at each x can be a vertex
    x, y, who, th = x[first], y[first], who[first], th[first]
    keep = y >= np.maximum.accumulate(y)  # a point lower than one to its left is below the hull
    # the corners belong to every classifier (predict nothing, predict everything): discrete ones too
    x = np.concatenate(([0], x[keep], [total_x]))
    y = np.concatenate(([0], y[keep], [total_y]))
    who = np.concatenate(([-1], who[keep], [-1]))
    th = np.concatenate(([np.inf], th[keep], [-np.inf]))
    hull = upper_hull(x, y, tolerance=0.0 if same else 1e-12)
    vertices = []
    for xv, yv, w, t in zip(x[hull], y[hull], who[hull], th[hull], strict=True):
        fpr, tpr = float(xv / total_x), float(yv / total_y)
        corner = (fpr, tpr) in ((0.0, 0.0), (1.0, 1.0))
        vertices.append(HullVertex("" if corner else names[w], float(t) if not corner else
                                   (np.inf if fpr == 0.0 else -np.inf), fpr, tpr))
    vertices = tuple(vertices)
    return CombinedHull(vertices, tuple(names))


