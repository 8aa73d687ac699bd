"""Models in ROC space (Fawcett 2006): discrete classifiers as points with their region, the combined convex hull of
curves and points, the potentially optimal models, and the optimal one for costs and a class ratio, checked by
brute force (the expected cost of every hull vertex)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import assay
from assay.cli import main
from assay.metrics.roc_space import mix, roc_region

ASAH = str(Path(__file__).resolve().parent / "data" / "asah.csv")


def test_regions():
    assert roc_region(0.1, 0.5) == "conservative" and roc_region(0.6, 0.9) == "liberal"
    assert roc_region(0.7, 0.2) == "worse than random" and roc_region(0.4, 0.4) == "random"
    assert mix((0.1, 0.5), (0.5, 0.9), 0.25) == pytest.approx((0.2, 0.6))


def test_descending_diagonal_is_balanced():
    """Issue 18.13: TPR = TNR (equal performance on both classes; Fawcett 2006, and Lima & Peres 2017 after
    him) was called "liberal", the ideal (0, 1) included. Every point of counts up to 12 + 12 instances,
    against exact fractions."""
    from fractions import Fraction

    assert roc_region(0.0, 1.0) == "balanced" and roc_region(0.2, 0.8) == "balanced"
    assert roc_region(1.0, 0.0) == "worse than random" and roc_region(0.5, 0.5) == "random"
    for positives in range(1, 13):
        for negatives in range(1, 13):
            for tp in range(positives + 1):
                for fp in range(negatives + 1):
                    tpr, fpr = Fraction(tp, positives), Fraction(fp, negatives)
                    expected = ("worse than random" if tpr < fpr else "random" if tpr == fpr else
                                "balanced" if tpr == 1 - fpr else "conservative" if tpr < 1 - fpr else "liberal")
                    assert roc_region(fp / negatives, tp / positives) == expected, (tp, positives, fp, negatives)


def test_compare_names_a_balanced_model():
    y = [1, 1, 1, 1, 0, 0, 0, 0]
    c = assay.compare(y, {"even": [1, 1, 1, 0, 1, 0, 0, 0], "eager": [1, 1, 1, 1, 1, 1, 0, 0]}, bootstrap=200)
    regions = {m["name"]: m["region"] for m in c.to_dict()["roc_space"]["models"]}
    assert regions == {"even": "balanced", "eager": "liberal"}


@pytest.mark.parametrize("args, match", [
    ((float("nan"), 0.5), "fpr: must be a rate in"), ((2, -1), "fpr: must be a rate in"),
    ((0.5, 1.5), "tpr: must be a rate in"), (("x", 0.5), "fpr: must be a number"), ((None, 0.5), "fpr"),
    (([0.1], 0.5), "fpr"), ((10**400, 0.5), "fpr"),
])
def test_roc_region_checks_its_rates(args, match):
    """Issue 22.10: NaN was "liberal", (2, -1) "worse than random", other types raised TypeError."""
    with pytest.raises(assay.InvalidInput, match=match):
        roc_region(*args)


@pytest.mark.parametrize("args, match", [
    (((0, 0), (1, 1), 2), "q: must be a probability"), (((0, 0), (1, 1), float("nan")), "q:"),
    (((0, 0), (1, 1), "half"), "q: must be a number"), (("ab", (1, 1), 0.5), "a: must be a point"),
    (((0, 0, 0), (1, 1), 0.5), "a: must be a point"), ((None, (1, 1), 0.5), "a: must be a point"),
    (((0, 0), (1.5, 1), 0.5), r"b\[0\] \(fpr\): must be a rate"), (((0, 0), (1, 10**400), 0.5), r"b\[1\]"),
    (((0, 0), {"a": 1, "b": 2}, 0.5), "b: must be a point"), ((5, (1, 1), 0.5), "a: must be a point"),
])
def test_mix_checks_its_points_and_probability(args, match):
    """Issue 22.10: mix((0, 0), (1, 1), 2) returned (2, 2); other types raised TypeError or OverflowError."""
    with pytest.raises(assay.InvalidInput, match=match):
        mix(*args)
    assert mix(np.array([0.0, 0.2]), [1, 1], np.float32(0.5)) == pytest.approx((0.5, 0.6))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 4), st.sampled_from([(1, 1), (1, 5), (4, 1)]))
def test_discrete_models_hull_and_optimal_by_brute_force(seed, m, cost):
    rng = np.random.default_rng(seed)
    n = 60
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    preds = {f"m{i}": np.where(rng.random(n) < 0.7, y, 1 - y) if i % 2 else rng.integers(0, 2, n) for i in range(m)}
    c = assay.compare(y, preds, costs={"fp": cost[0], "fn": cost[1]}, bootstrap=200)
    space = c.to_dict()["roc_space"]
    points = {}
    for name, p in preds.items():
        fpr, tpr = float(((p == 1) & (y == 0)).sum() / (y == 0).sum()), float(((p == 1) & (y == 1)).sum() / y.sum())
        points[name] = (fpr, tpr)
        got = next(q for q in space["models"] if q["name"] == name)
        assert (got["fpr"], got["tpr"]) == pytest.approx((fpr, tpr)) and got["region"] == roc_region(fpr, tpr)
    # the optimal choice: the least expected cost over the models' points and the two corners
    pi = y.mean()
    candidates = list(points.values()) + [(0.0, 0.0), (1.0, 1.0)]
    costs = [(1 - pi) * f * cost[0] + pi * (1 - t) * cost[1] for f, t in candidates]
    v = space["optimal"]["vertex"]
    best = (1 - pi) * v["fpr"] * cost[0] + pi * (1 - v["tpr"]) * cost[1]
    assert best == pytest.approx(min(costs), abs=1e-12)
    # a model off the hull is never potentially optimal: some mix of two others does better everywhere
    on = set(space["combined_hull"]["potentially_optimal"])
    vertices = {(round(q["fpr"], 12), round(q["tpr"], 12)) for q in space["combined_hull"]["vertices"]}
    for name, (f, t) in points.items():
        if name in on:
            assert (round(f, 12), round(t, 12)) in vertices


def test_curves_and_points_together(capsys, tmp_path):
    import csv

    with open(ASAH, newline="") as f:
        rows = list(csv.DictReader(f))
    y = np.array([r["outcome"] for r in rows])
    wfns = np.array([float(r["wfns"]) for r in rows])
    s100b = np.array([float(r["s100b"]) for r in rows])
    rule = np.where(s100b > 0.3, "Poor", "Good")
    c = assay.compare(y, {"wfns": {"y_score": wfns}, "rule": rule}, pos_label="Poor", threshold=3)
    space = c.to_dict()["roc_space"]
    assert space["combined_hull"]["potentially_optimal"] == ["wfns"]  # the rule lies under wfns's curve
    json.dumps(c.to_dict(), allow_nan=False)
    data = tmp_path / "p.csv"
    data.write_text("y,a,b\n" + "".join(f"{t},{p},{q}\n" for t, p, q in zip(y, rule, np.where(wfns > 2, "Poor",
                                                                                               "Good"))))
    page = tmp_path / "c.html"
    status = main(["compare", str(data), "--truth", "y", "--pred", "a", "--pred", "b", "--costs", "fp=1,fn=5",
                   "--html", str(page), "--format", "json"])
    out, err = capsys.readouterr()
    assert status == 0, err
    d = json.loads(out)["roc_space"]
    assert d["optimal"]["costs"]["fn"] == 5.0 and {m["region"] for m in d["models"]} <= {"conservative", "liberal"}
    assert "combined convex hull" in page.read_text()
    status = main(["compare", str(data), "--truth", "y", "--pred", "a", "--pred", "b"])
    out, err = capsys.readouterr()
    assert "ROC space" in out and "the best choice is" in out
    status = main(["compare", str(data), "--truth", "y", "--pred", "a", "--pred", "b", "--costs", "fp=0,fn=1"])
    out, err = capsys.readouterr()
    assert status == 2 and "--costs" in err
