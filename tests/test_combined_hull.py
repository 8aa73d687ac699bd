"""The ROC convex hull of several classifiers (seeds 002 and 003).

Oracles: scipy.spatial.ConvexHull (Qhull) on the union of the curves' points,
and hand-worked operating conditions (seed 003: slope 10 for negatives 10:1 with
equal costs, slope 1/10 for balanced classes with false negatives 10x costlier).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial import ConvexHull

import assay
from assay.metrics.roc_space import iso_performance_slope, mix


def _curve_points(r):
    roc = r.roc()
    return np.column_stack([roc["fpr"], roc["tpr"]])


@settings(max_examples=60)
@given(st.integers(0, 10**6), st.integers(2, 4), st.booleans())
def test_combined_hull_equals_qhull(seed, k, same_data):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 80))
    rankings = {}
    y = rng.random(n) < 0.4
    y[0], y[1] = True, False
    for i in range(k):
        if not same_data:
            n_i = int(rng.integers(8, 80))
            y = rng.random(n_i) < 0.4
            y[0], y[1] = True, False
        s = np.round(rng.normal(size=len(y)) + rng.uniform(0, 2) * y, int(rng.integers(0, 3)))
        rankings[f"m{i}"] = assay.rank(y.astype(int), y_score=s)
    hull = assay.combined_hull(rankings)
    points = np.vstack([_curve_points(r) for r in rankings.values()] + [[[1.0, 0.0]]])
    qhull = ConvexHull(points)
    expected = {(round(a, 9), round(b, 9)) for a, b in points[qhull.vertices]} - {(1.0, 0.0)}
    got = {(round(v.fpr, 9), round(v.tpr, 9)) for v in hull.vertices}
    assert got == expected
    # every vertex is really a point of the classifier it names, at that threshold
    for v in hull.vertices:
        if v.classifier:
            roc = rankings[v.classifier].roc()
            at = np.flatnonzero(roc["threshold"] == v.threshold)
            assert len(at) == 1
            assert roc["fpr"][at[0]] == pytest.approx(v.fpr) and roc["tpr"][at[0]] == pytest.approx(v.tpr)


def test_seed003_operating_conditions_choose_different_classifiers():
    # a conservative classifier (low FPR) and a liberal one (high TPR) on the same 20 instances
    y = np.array([1] * 10 + [0] * 10)
    conservative = np.array([9, 8, 7, 6, 5, 1, 1, 1, 1, 1] + [2, 1, 1, 1, 1, 1, 1, 1, 1, 1], float)
    liberal = np.array([9] * 10 + [9, 9, 9, 1, 1, 1, 1, 1, 1, 1], float)
    hull = assay.combined_hull({"conservative": assay.rank(y, y_score=conservative, positive=1),
                                "liberal": assay.rank(y, y_score=liberal, positive=1)})
    assert set(hull.potentially_optimal) == {"conservative", "liberal"}
    alpha = iso_performance_slope(cost_fp=1, cost_fn=1, negatives=10, positives=1)   # 10
    beta = iso_performance_slope(cost_fp=1, cost_fn=10, negatives=1, positives=1)    # 0.1
    assert hull.optimal(alpha)[0].classifier == "conservative"
    assert hull.optimal(beta)[0].classifier == "liberal"


def test_points_between_hull_vertices_are_reached_by_mixing():
    # seed 002: use the second classifier with probability q, the first otherwise
    a, b = (0.1, 0.5), (0.3, 0.9)
    for q in (0.0, 0.25, 0.5, 1.0):
        f, t = mix(a, b, q)
        assert f == pytest.approx(a[0] + q * (b[0] - a[0])) and t == pytest.approx(a[1] + q * (b[1] - a[1]))


def test_a_dominated_classifier_is_not_on_the_hull():
    y = np.array([1, 1, 1, 0, 0, 0])
    good = assay.rank(y, y_score=[0.9, 0.8, 0.7, 0.3, 0.2, 0.1])
    poor = assay.rank(y, y_score=[0.9, 0.2, 0.7, 0.3, 0.8, 0.1])
    hull = assay.combined_hull({"good": good, "poor": poor})
    assert hull.potentially_optimal == ("good",)
