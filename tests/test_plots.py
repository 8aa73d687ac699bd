"""Plots draw the library's numbers: every artist's data is checked against the API, no golden images.

Oracle: the result objects themselves (``RankingAnalysis.roc()``, ``.hull()``,
``.pr()``, ``.lift_curve()``, ``.threshold_table()``, the calibration table, the
confusion counts, the per-fold errors); the drawn data must equal them exactly
(or, for derived geometry such as the iso-performance segment, to 1e-12).
"""

import csv
import math
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.figure import Figure

import assay
from assay import InvalidInput
from assay.evaluation.hull import combined_hull
from assay.report.plots import (
    plot_calibration,
    plot_confusion,
    plot_cost,
    plot_folds,
    plot_lift,
    plot_pr,
    plot_roc,
    save_plots,
)

DATA = Path(__file__).parent / "data"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


# ----------------------------------------------------------------------------
# fixtures: small real data, computed once


def _two_class_rows():
    with open(DATA / "two_class_example.csv", newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def rows():
    return _two_class_rows()


@pytest.fixture(scope="module")
def scored(rows):
    """Two classes with probabilities: ranking, calibration and a matrix at threshold 0.5."""
    y = [r["truth"] for r in rows]
    p = [float(r["Class1"]) for r in rows]
    return assay.evaluate(y, y_proba={"Class1": p, "Class2": [1 - x for x in p]}, positive="Class1",
                          bootstrap=200)


@pytest.fixture(scope="module")
def labels_only(rows):
    return assay.evaluate([r["truth"] for r in rows], y_pred=[r["predicted"] for r in rows], positive="Class1",
                          bootstrap=200)


@pytest.fixture(scope="module")
def four_classes():
    with open(DATA / "hpc_cv.csv", newline="") as f:
        table = list(csv.DictReader(f))
    return assay.evaluate([r["obs"] for r in table], y_pred=[r["pred"] for r in table], bootstrap=200)


@pytest.fixture(scope="module")
def validation():
    return assay.validate(dataset="breast-cancer", models=["naive-bayes", "zero-r"], method="cv", folds=3,
                          bootstrap=200)


@pytest.fixture(scope="module")
def iris():
    return assay.validate(dataset="iris", models=["naive-bayes", "zero-r"], method="cv", folds=3, bootstrap=200)


@pytest.fixture(scope="module")
def comparison(rows):
    y = [r["truth"] for r in rows]
    p = np.array([float(r["Class1"]) for r in rows])
    noisy = np.clip(p + np.random.default_rng(0).normal(0, 0.3, len(p)), 0, 1)
    return assay.compare(y, {"y_score": p}, {"y_score": noisy}, names=("sharp", "noisy"), positive="Class1",
                         bootstrap=100)


def _ax():
    return Figure().subplots()


def _line(ax, label):
    found = [line for line in ax.get_lines() if line.get_label() == label]
    assert len(found) == 1, [line.get_label() for line in ax.get_lines()]
    return found[0]


def _labelled(ax, prefix):
    return [line for line in ax.get_lines() if line.get_label().startswith(prefix)]


# ----------------------------------------------------------------------------
# ROC


def test_roc_curve_hull_and_operating_point_are_the_rankings(scored):
    r = scored.ranking
    ax = _ax()
    assert plot_roc(scored, ax) is ax
    roc, hull = r.roc(), r.hull()
    curve = _line(ax, f"ROC (AUC {r.roc_auc.value:.3f})")
    assert np.array_equal(curve.get_xdata(), roc["fpr"]) and np.array_equal(curve.get_ydata(), roc["tpr"])
    assert curve.get_drawstyle() == "default"  # straight lines between the points: ties are diagonals
    h = _line(ax, "ROC convex hull")
    assert h.get_linestyle() == "--"
    assert np.array_equal(h.get_xdata(), hull["fpr"]) and np.array_equal(h.get_ydata(), hull["tpr"])
    op = _line(ax, "operating point, threshold 0.5")
    assert (op.get_xdata()[0], op.get_ydata()[0]) == (r.operating_point.fpr, r.operating_point.tpr)
    diagonal = _line(ax, "random classifiers")
    assert list(diagonal.get_xdata()) == [0, 1] and list(diagonal.get_ydata()) == [0, 1]
    assert ax.get_xlim() == (0.0, 1.0) and ax.get_ylim() == (0.0, 1.0)
    assert ax.get_xlabel() == "False positive rate (1 − specificity)"
    assert ax.get_ylabel() == "True positive rate (sensitivity)"
    assert ax.get_aspect() == 1.0
    assert ax.get_legend() is not None
    assert "'Class1'" in ax.get_title()


def test_roc_marks_seed_000_reference_classifiers(scored):
    ax = plot_roc(scored, _ax())
    where = {t.get_text(): t.xy for t in ax.texts}
    assert where == {"always negative": (0.0, 0.0), "always positive": (1.0, 1.0), "ideal": (0.0, 1.0),
                     "always wrong": (1.0, 0.0)}
    corners = {(float(line.get_xdata()[0]), float(line.get_ydata()[0])) for line in ax.get_lines()
               if line.get_marker() == "s"}
    assert corners == {(0.0, 0.0), (1.0, 1.0), (0.0, 1.0), (1.0, 0.0)}


def _check_iso_line(ax, x0, y0, slope):
    line = _labelled(ax, "iso-performance line")[0]
    xs, ys = np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)
    assert line.get_label() == f"iso-performance line (slope {slope:.3g})"
    assert np.all((xs >= 0) & (xs <= 1) & (ys >= -1e-12) & (ys <= 1 + 1e-12))
    # each end on the square's boundary; the line has the slope and passes through the optimal point
    for x, y in zip(xs, ys, strict=True):
        assert min(x, 1 - x, abs(y), abs(1 - y)) < 1e-12
    assert (ys[1] - ys[0]) == pytest.approx(slope * (xs[1] - xs[0]), abs=1e-12)
    assert y0 == pytest.approx(ys[0] + slope * (x0 - xs[0]), abs=1e-12)


def test_roc_iso_performance_line_through_the_optimal_point(scored):
    r = scored.ranking
    ax = plot_roc(scored, _ax())
    _check_iso_line(ax, r.optimal.fpr, r.optimal.tpr, r.slope)
    star = _line(ax, f"optimal threshold {r.optimal.threshold:.3g}")
    assert (star.get_xdata()[0], star.get_ydata()[0]) == (r.optimal.fpr, r.optimal.tpr)


def test_roc_iso_performance_line_follows_the_costs(rows):
    y = [r["truth"] for r in rows]
    p = [float(r["Class1"]) for r in rows]
    e = assay.evaluate(y, y_score=p, positive="Class1", costs={"fp": 1, "fn": 10}, bootstrap=100)
    assert e.ranking.slope == pytest.approx(0.1 * 242 / 258)
    ax = plot_roc(e, _ax())
    _check_iso_line(ax, e.ranking.optimal.fpr, e.ranking.optimal.tpr, e.ranking.slope)


def test_roc_options_switch_off_each_layer(scored):
    ax = plot_roc(scored, _ax(), hull=False, references=False, operating_point=False, iso_performance=False,
                  label="logistic")
    assert [line.get_label() for line in ax.get_lines()] == [f"logistic (AUC {scored.ranking.roc_auc.value:.3f})"]
    assert len(ax.texts) == 0


def test_roc_of_a_ranking_has_no_operating_point():
    r = assay.rank([1, 1, 0, 0, 1, 0], y_score=[0.9, 0.8, 0.7, 0.6, 0.3, 0.2])
    ax = plot_roc(r, _ax())
    assert not _labelled(ax, "operating point")
    curve = _line(ax, "ROC (AUC 0.778)")  # 7 of the 9 (positive, negative) pairs in order
    assert np.array_equal(curve.get_xdata(), r.roc()["fpr"])


def test_roc_of_a_validation_has_one_curve_per_model_and_their_combined_hull(validation):
    ax = plot_roc(validation, _ax())
    for name, m in validation.models.items():
        r = m.report.ranking
        curve = _line(ax, f"{name} (AUC {r.roc_auc.value:.3f})")
        assert np.array_equal(curve.get_xdata(), r.roc()["fpr"])
        assert np.array_equal(curve.get_ydata(), r.roc()["tpr"])
        # the labels are the model's own predict() (issue 18, item 7): their point, with no threshold
        point = _labelled(ax, f"{name} as predicted")
        assert len(point) == 1
        report = m.report
        assert (point[0].get_xdata()[0], point[0].get_ydata()[0]) == (report["fpr"].value, report["recall"].value)
    hull = combined_hull({name: m.report.ranking for name, m in validation.models.items()})
    drawn = _line(ax, "combined ROC convex hull")
    assert list(drawn.get_xdata()) == [v.fpr for v in hull.vertices]
    assert list(drawn.get_ydata()) == [v.tpr for v in hull.vertices]
    vertex, _ = hull.optimal(validation.models["naive-bayes"].report.ranking.slope)
    _check_iso_line(ax, vertex.fpr, vertex.tpr, validation.models["naive-bayes"].report.ranking.slope)
    assert "'malignant'" in ax.get_title()


def test_roc_of_a_comparison_labels_each_model(comparison):
    ax = plot_roc(comparison, _ax())
    curves = [line for line in ax.get_lines() if "(AUC " in line.get_label()]
    assert [c.get_label() for c in curves] == [f"{name} (AUC {r.ranking.roc_auc.value:.3f})"
                                               for name, r in zip(comparison.names, comparison.reports,
                                                                  strict=True)]


def test_roc_names_the_models_without_scores(rows, labels_only):
    y = [r["truth"] for r in rows]
    c = assay.compare(y, {"y_pred": [r["predicted"] for r in rows]}, {"y_score": [float(r["Class1"]) for r in rows]},
                      names=("voted", "scored"), positive="Class1", bootstrap=100)
    ax = plot_roc(c, _ax())
    assert len([line for line in ax.get_lines() if "(AUC " in line.get_label()]) == 1
    assert ax.get_legend().get_title().get_text() == "no scores: voted"


@settings(max_examples=20)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 6)), min_size=2, max_size=40)
       .filter(lambda xs: len({t for t, _ in xs}) == 2),
       st.floats(0.05, 20))
def test_roc_and_pr_draw_any_curve_exactly(pairs, cost_fn):
    # ties (scores from 7 values) give diagonal ROC segments; any costs give any slope
    y = [int(t) for t, _ in pairs]
    s = [float(v) for _, v in pairs]
    e = r = assay.rank(y, y_score=s, positive=1, costs={"fp": 1, "fn": cost_fn})
    ax = plot_roc(e, _ax())
    curve = _labelled(ax, "ROC (AUC")[0]
    assert np.array_equal(curve.get_xdata(), r.roc()["fpr"]) and np.array_equal(curve.get_ydata(), r.roc()["tpr"])
    _check_iso_line(ax, r.optimal.fpr, r.optimal.tpr, r.slope)
    ax = plot_pr(e, _ax())
    steps = _labelled(ax, "PR (AP")[0]
    x, p = np.asarray(steps.get_xdata()), np.asarray(steps.get_ydata())
    assert float(np.sum(np.diff(x) * p[1:])) == pytest.approx(r.average_precision.value, abs=1e-12)


# ----------------------------------------------------------------------------
# precision-recall


def test_pr_steps_are_the_points_and_integrate_to_average_precision(scored):
    r = scored.ranking
    ax = plot_pr(scored, _ax())
    ap = r.average_precision.value
    steps = _line(ax, f"PR (AP {ap:.3f})")
    pr = r.pr()
    x, y = np.asarray(steps.get_xdata()), np.asarray(steps.get_ydata())
    assert np.array_equal(x[1:], pr["recall"]) and np.array_equal(y[1:], pr["precision"])
    assert (x[0], y[0]) == (0.0, pr["precision"][0])
    assert steps.get_drawstyle() == "steps-pre"
    assert float(np.sum(np.diff(x) * y[1:])) == pytest.approx(ap, abs=1e-12)
    baseline = _line(ax, "baseline (prevalence 0.516)")
    assert list(baseline.get_ydata()) == [r.prevalence, r.prevalence] and r.prevalence == 258 / 500
    assert f"average precision {ap:.3f}" in ax.get_title()


def test_pr_of_a_validation_has_one_curve_per_model(validation):
    ax = plot_pr(validation, _ax())
    for name, m in validation.models.items():
        r = m.report.ranking
        steps = _line(ax, f"{name} (AP {r.average_precision.value:.3f})")
        assert np.array_equal(steps.get_xdata()[1:], r.pr()["recall"])
    assert len(_labelled(ax, "baseline (prevalence")) == 1  # the same data: one baseline


# ----------------------------------------------------------------------------
# gains and lift


def test_gains_chart_is_the_lift_curve_from_the_origin(scored):
    r = scored.ranking
    ax = plot_lift(scored, _ax())
    curve, lc = _line(ax, "model"), r.lift_curve()
    assert np.array_equal(curve.get_xdata(), np.concatenate(([0.0], lc["depth"])))
    assert np.array_equal(curve.get_ydata(), np.concatenate(([0.0], lc["gains"])))
    ideal = _line(ax, "ideal (prevalence 0.516)")
    assert list(ideal.get_xdata()) == [0.0, r.prevalence, 1.0] and list(ideal.get_ydata()) == [0.0, 1.0, 1.0]
    assert list(_line(ax, "random classifiers").get_ydata()) == [0.0, 1.0]


def test_lift_chart_is_the_lift_curve_with_the_reported_lift(scored):
    r = scored.ranking
    ax = plot_lift(scored, _ax(), kind="lift")
    curve, lc = _line(ax, "model"), r.lift_curve()
    assert np.array_equal(curve.get_xdata(), lc["depth"]) and np.array_equal(curve.get_ydata(), lc["lift"])
    assert list(_line(ax, "random classifiers (lift 1)").get_ydata()) == [1.0, 1.0]
    (point, *_), *_ = [c for c in ax.containers if c.get_label().startswith("lift at depth")]
    assert (point.get_xdata()[0], point.get_ydata()[0]) == (r.lift_depth, r.lift.value)


def test_lift_chart_of_several_models(comparison):
    ax = plot_lift(comparison, _ax(), kind="lift")
    for name, e in zip(comparison.names, comparison.reports, strict=True):
        assert np.array_equal(_line(ax, name).get_ydata(), e.ranking.lift_curve()["lift"])


def test_lift_kind_is_checked(scored):
    with pytest.raises(InvalidInput, match="kind: must be one of 'gains', 'lift', got 'roc'"):
        plot_lift(scored, _ax(), kind="roc")


# ----------------------------------------------------------------------------
# calibration


def test_reliability_diagram_is_the_calibration_table(scored):
    table = scored.probabilistic.calibration
    ax = plot_calibration(scored, _ax())
    (points, _caps, (bars,)), counts = ax.containers
    filled = [b for b in table.bins if b.count]
    assert list(points.get_xdata()) == [b.mean_predicted for b in filled]
    assert list(points.get_ydata()) == [b.observed for b in filled]
    ends = np.array([(seg[0][1], seg[1][1]) for seg in bars.get_segments()])
    np.testing.assert_allclose(ends, [(b.ci.low, b.ci.high) for b in filled], rtol=0, atol=1e-12)
    heights = np.array([patch.get_height() for patch in counts])
    assert heights == pytest.approx(0.2 * np.array([b.count for b in table.bins]) / max(b.count for b in table.bins))
    assert [patch.get_x() for patch in counts] == [b.low for b in table.bins]
    assert list(_line(ax, "perfect calibration").get_ydata()) == [0.0, 1.0]
    assert f"ECE {table.ece:.3f}" in ax.get_title()
    assert table.target in ax.get_xlabel()


def test_reliability_diagram_of_one_model_of_a_validation(iris):
    table = iris.models["naive-bayes"].report.probabilistic.calibration
    ax = plot_calibration(iris, _ax(), model="naive-bayes")
    points = ax.containers[0].lines[0]
    assert list(points.get_ydata()) == [b.observed for b in table.bins if b.count]
    assert "naive-bayes" in ax.get_title() and table.target == "top label"


# ----------------------------------------------------------------------------
# confusion matrix


@pytest.mark.parametrize("normalize, key", [("actual", "normalized_by_actual"),
                                            ("predicted", "normalized_by_predicted"), (None, None)])
def test_confusion_heatmap_is_the_counts(four_classes, normalize, key):
    counts = four_classes.confusion.counts
    ax = plot_confusion(four_classes, _ax(), normalize=normalize)
    (image,) = ax.get_images()
    assert np.array_equal(image.get_array(), counts)
    k = len(four_classes.labels)
    texts = {(round(t.get_position()[1]), round(t.get_position()[0])): t.get_text() for t in ax.texts}
    assert len(texts) == k * k
    for i in range(k):
        for j in range(k):
            lines = texts[i, j].split("\n")
            assert lines[0] == f"{counts[i, j]:,}"
            if key is None:
                assert len(lines) == 1
            else:
                assert lines[1] == f"{four_classes.analysis.matrices[key][i][j] * 100:.1f}%"
    assert [t.get_text() for t in ax.get_xticklabels()] == list(four_classes.labels)
    assert [t.get_text() for t in ax.get_yticklabels()] == list(four_classes.labels)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("predicted", "actual")


def test_confusion_rows_are_actual(labels_only):
    ax = plot_confusion(labels_only, _ax())
    assert [t.get_text() for t in ax.texts] == ["227\n88.0%", "31\n12.0%", "50\n20.7%", "192\n79.3%"]


def test_confusion_normalize_is_checked(labels_only):
    with pytest.raises(InvalidInput, match="normalize: must be one of 'actual', 'predicted' or None"):
        plot_confusion(labels_only, _ax(), normalize="all")


# ----------------------------------------------------------------------------
# cost


def test_cost_curve_is_the_threshold_tables_expected_cost(scored):
    r = scored.ranking
    table = r.threshold_table()
    ax = plot_cost(scored, _ax())
    curve = _line(ax, "expected cost")
    assert np.array_equal(curve.get_xdata(), table["threshold"])
    assert np.array_equal(curve.get_ydata(), table["expected_cost"])
    best = r.best["min_expected_cost"]
    star = _labelled(ax, "least cost")[0]
    assert (star.get_xdata()[0], star.get_ydata()[0]) == (best.threshold, best.value)
    assert best.value == pytest.approx(np.min(table["expected_cost"]), abs=1e-15)
    none = _labelled(ax, "predict no positive")[0]
    assert none.get_ydata()[0] == pytest.approx(r.prevalence)  # predicting none misses every positive
    used = _line(ax, "threshold used 0.5")
    assert list(used.get_xdata()) == [0.5, 0.5]


# ----------------------------------------------------------------------------
# folds


def test_folds_plot_holds_each_models_errors_and_estimate(validation):
    ax = plot_folds(validation, _ax())
    names = list(validation.models)
    dots = [c for c in ax.collections if c.get_offsets().shape[0] > 1]
    diamonds = [c for c in ax.collections if c.get_offsets().shape[0] == 1]
    assert len(dots) == len(names) == len(diamonds)
    for i, name in enumerate(names):
        m = validation.models[name]
        offsets = dots[i].get_offsets()
        assert list(offsets[:, 1]) == [f["error_rate"] for f in m.folds]
        assert np.all(np.abs(offsets[:, 0] - i) < 0.5)
        assert tuple(diamonds[i].get_offsets()[0]) == (i, m.estimate.error)
    assert [t.get_text() for t in ax.get_xticklabels()] == names


def test_folds_plot_needs_a_validation(scored):
    with pytest.raises(InvalidInput, match="needs a Validation"):
        plot_folds(scored, _ax())


# ----------------------------------------------------------------------------
# axes


def test_every_plot_draws_on_the_given_axes_and_returns_it(scored, validation):
    fig = Figure()
    axes = fig.subplots(2, 4).ravel()
    drawn = [plot_roc(scored, axes[0]), plot_pr(scored, axes[1]), plot_lift(scored, axes[2]),
             plot_calibration(scored, axes[3]), plot_confusion(scored, axes[4]), plot_cost(scored, axes[5]),
             plot_folds(validation, axes[6]), plot_lift(scored, axes[7], kind="lift")]
    assert all(a is b for a, b in zip(drawn, axes, strict=True))
    assert all(a.has_data() for a in axes)


def test_without_axes_a_new_figure_is_made(scored):
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    ax = plot_roc(scored)
    try:
        assert ax.figure.number not in before
    finally:
        plt.close(ax.figure)


def test_importing_the_plots_does_not_import_matplotlib():
    code = "import sys, assay, assay.report.plots; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ----------------------------------------------------------------------------
# bad uses


def test_roc_without_scores_says_what_to_give(labels_only):
    for plot in (plot_roc, plot_pr, plot_lift, plot_cost):
        with pytest.raises(InvalidInput, match="needs scores: give y_score or y_proba"):
            plot(labels_only, _ax())
    with pytest.raises(InvalidInput, match=r"^ROC needs scores: give y_score or y_proba$"):
        plot_roc(labels_only, _ax())


def test_roc_of_several_classes_is_refused(iris):
    with pytest.raises(InvalidInput, match="ROC needs scores of two classes, and no model has them: "
                                           "'naive-bayes': ROC needs two classes, got 3"):
        plot_roc(iris, _ax())


def test_calibration_and_confusion_need_what_they_draw(labels_only):
    r = assay.rank([1, 1, 0, 0, 1, 0], y_score=[0.9, 0.8, 0.7, 0.6, 0.3, 0.2])
    with pytest.raises(InvalidInput, match="reliability diagram needs probabilities"):
        plot_calibration(labels_only, _ax())
    with pytest.raises(InvalidInput, match="reliability diagram needs probabilities"):
        plot_calibration(r, _ax())
    with pytest.raises(InvalidInput, match="confusion matrix needs an evaluation"):
        plot_confusion(r, _ax())


def test_single_model_plots_of_several_models_need_a_name(validation, scored):
    with pytest.raises(InvalidInput, match="model: this result holds 2 models: name one of 'naive-bayes', 'zero-r'"):
        plot_confusion(validation, _ax())
    with pytest.raises(InvalidInput, match="model: no model 'svm'"):
        plot_cost(validation, _ax(), model="svm")
    with pytest.raises(InvalidInput, match="model: this result holds one model"):
        plot_cost(scored, _ax(), model="naive-bayes")
    ax = plot_confusion(validation, _ax(), model="zero-r")
    assert np.array_equal(ax.get_images()[0].get_array(), validation.models["zero-r"].report.confusion.counts)


def test_other_objects_are_refused():
    with pytest.raises(InvalidInput, match="result: cannot plot a dict"):
        plot_roc({"fpr": [0, 1]}, _ax())
    with pytest.raises(InvalidInput, match="cannot plot a list"):
        save_plots([1, 2], "unused")


# ----------------------------------------------------------------------------
# files


def _check_files(directory, paths, stems):
    expected = [os.path.join(directory, f"{stem}.{fmt}") for stem in stems for fmt in ("svg", "png")]
    assert paths == expected
    assert sorted(os.listdir(directory)) == sorted(os.path.basename(p) for p in expected)  # no temporary left
    for path in paths:
        content = Path(path).read_bytes()
        assert content
        if path.endswith(".png"):
            assert content.startswith(PNG_SIGNATURE)
        else:
            assert ET.fromstring(content).tag == "{http://www.w3.org/2000/svg}svg"


def test_save_plots_of_an_evaluation(scored, tmp_path):
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    target = tmp_path / "plots"
    paths = save_plots(scored, target)
    _check_files(str(target), paths, ["roc", "pr", "gains", "lift", "calibration", "confusion", "cost"])
    assert plt.get_fignums() == before  # no pyplot figure left open
    again = save_plots(scored, target)  # the same result, the same SVG files (no date, fixed ids)
    assert again == paths


def test_save_plots_is_deterministic(labels_only, tmp_path):
    save_plots(labels_only, tmp_path / "a")
    save_plots(labels_only, tmp_path / "b")
    assert (tmp_path / "a" / "confusion.svg").read_bytes() == (tmp_path / "b" / "confusion.svg").read_bytes()


def test_save_plots_of_a_validation_writes_one_file_per_model(validation, tmp_path):
    paths = save_plots(validation, tmp_path)
    _check_files(str(tmp_path), paths, ["roc", "pr", "gains", "lift", "calibration-naive-bayes",
                                        "calibration-zero-r", "confusion-naive-bayes", "confusion-zero-r",
                                        "cost-naive-bayes", "cost-zero-r", "folds"])


def test_save_plots_writes_only_what_applies(four_classes, iris, tmp_path):
    _check_files(str(tmp_path / "hpc"), save_plots(four_classes, tmp_path / "hpc"), ["confusion"])
    _check_files(str(tmp_path / "iris"), save_plots(iris, tmp_path / "iris"),
                 ["calibration-naive-bayes", "calibration-zero-r", "confusion-naive-bayes", "confusion-zero-r",
                  "folds"])


def test_save_plots_replaces_atomically(labels_only, tmp_path, monkeypatch):
    old = tmp_path / "confusion.svg"
    old.write_text("previous")

    def broken(self, out, **kwargs):
        out.write(b"<svg")
        raise OSError("disk full")

    monkeypatch.setattr(Figure, "savefig", broken)
    with pytest.raises(OSError, match="disk full"):
        save_plots(labels_only, tmp_path)
    assert old.read_text() == "previous"  # the old file intact, half a plot never visible
    assert os.listdir(tmp_path) == ["confusion.svg"]  # and no temporary file left


def test_math_of_the_unit_square_segment():
    from assay.report.plots import _unit_square_segment

    xs, ys = _unit_square_segment(0.2, 0.8, 1.0)  # leaves through the top at x = 0.4
    assert xs == pytest.approx([0.0, 0.4]) and ys == pytest.approx([0.6, 1.0])
    xs, ys = _unit_square_segment(0.5, 0.5, 4.0)  # from the bottom at 0.375 to the top at 0.625
    assert xs == pytest.approx([0.375, 0.625]) and ys == pytest.approx([0.0, 1.0])
    assert _unit_square_segment(0.3, 0.5, 0.0) == ([0.0, 1.0], [0.5, 0.5])
    assert _unit_square_segment(0.3, 0.5, math.inf) == ([0.3, 0.3], [0.0, 1.0])
