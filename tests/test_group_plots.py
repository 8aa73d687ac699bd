"""The plots of a report by group (``save_plots`` of a ``GroupedEvaluation``, ``assay report --by --plots``).

Oracles: scikit-learn on each group's rows, independently of assay (``accuracy_score``, ``recall_score``,
``confusion_matrix`` for the false positive rate, the share predicted positive, ``roc_auc_score`` with ties
counted half, ``brier_score_loss``; observed / expected events as sums), to 1e-12; the calibration slope by
statsmodels' logistic GLM of y on logit(p), to 1e-7; the points and curves drawn equal the group's own evaluation (``Estimate`` values and
intervals, ``ranking.roc()``) exactly. Scores are rounded to two decimals, so that they tie, and some equal the
threshold (positive iff score >= threshold).
"""

from __future__ import annotations

import dataclasses
import os
import xml.etree.ElementTree as ET

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
import statsmodels.api as sm
from matplotlib.figure import Figure
from sklearn.metrics import (
    accuracy_score,
    brier_score_loss,
    confusion_matrix,
    recall_score,
    roc_auc_score,
)

import assay
from assay.cli import main
from assay.errors import InvalidInput
from assay.inference.estimate import Estimate
from assay.report.group_plots import (
    GROUP_METRICS,
    MOST_GROUPS,
    ROC_GROUPS,
    group_plan,
    group_points,
    plot_metric_by_group,
    plot_roc_by_group,
)
from assay.report.plots import save_plots

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
THRESHOLD = 0.5
GROUPS = {"north east": 500, "Zürich ü": 300, "$x^$ maths": 120, "solo": 40}
"""Group sizes; "solo" has positives only (its AUC and FPR undefined: the group is not evaluated)."""
BY_GROUP = ["by-group-accuracy", "by-group-recall", "by-group-fpr", "by-group-detection_prevalence",
            "by-group-roc_auc", "by-group-brier", "by-group-observed_expected", "by-group-calibration_slope"]


def _data(seed=0, groups=GROUPS):
    rng = np.random.default_rng(seed)
    g = np.concatenate([[label] * n for label, n in groups.items()]).astype(object)
    n = len(g)
    y = rng.integers(0, 2, n)
    y[g == "solo"] = 1
    s = np.clip(np.round(rng.random(n) * 0.7 + 0.3 * y, 2), 0, 1)  # ties, and some exactly 0.5
    order = rng.permutation(n)  # the groups interleaved, as in a real table
    labels = np.where(y[order] == 1, "yes", "no")
    return g[order], labels, s[order]


@pytest.fixture(scope="module")
def data():
    return _data()


@pytest.fixture(scope="module")
def grouped(data):
    g, y, s = data
    return assay.evaluate(y, y_score=s, threshold=THRESHOLD, positive="yes", by={"site": g})


def _stems(paths):
    stems = [os.path.basename(p).rsplit(".", 1)[0] for p in paths]
    assert stems[::2] == stems[1::2]  # svg then png of each
    assert [os.path.splitext(p)[1] for p in paths] == [".svg", ".png"] * (len(paths) // 2)
    return stems[::2]


def _expected(g, y, s, metric):
    """A group's metric by scikit-learn on its rows (None where undefined)."""
    truth = y == "yes"
    pred = s >= THRESHOLD
    if metric == "roc_auc":
        return roc_auc_score(truth, s) if 0 < truth.sum() < len(truth) else None
    if metric == "accuracy":
        return accuracy_score(truth, pred)
    if metric == "recall":
        return recall_score(truth, pred) if truth.any() else None
    if metric == "fpr":
        tn, fp, _, _ = confusion_matrix(truth, pred, labels=[False, True]).ravel()
        return fp / (fp + tn) if fp + tn else None
    if metric == "detection_prevalence":
        return float(np.mean(pred))
    if metric == "brier":
        return brier_score_loss(truth, s)
    if metric == "observed_expected":
        return truth.sum() / s.sum()
    if metric == "calibration_slope":  # p in (0, 1) only, as rms::val.prob
        inside = (s > 0) & (s < 1)
        x = np.log(s[inside] / (1 - s[inside]))
        return sm.GLM(truth[inside].astype(float), sm.add_constant(x),
                      family=sm.families.Binomial()).fit(tol=1e-14).params[1]
    raise AssertionError(metric)


TOLERANCE = {"calibration_slope": 1e-7}
"""Against statsmodels' iterative fit; the others are sums, to 1e-12."""


def _points(ax):
    (line,) = [line for line in ax.get_lines() if line.get_label() == "estimate"]
    return line.get_xydata(), [t.get_text() for t in ax.get_xticklabels()]


# ----------------------------------------------------------------------------
# the files


def test_files_written_all_instances_then_by_group(grouped, tmp_path):
    """Every plot of all the instances under its usual name, then each metric by group and the ROC curves."""
    written = save_plots(grouped, tmp_path / "g")
    alone = _stems(save_plots(grouped.overall, tmp_path / "overall"))
    assert alone[:4] == ["roc", "pr", "gains", "lift"] and "confusion" in alone and "calibration" in alone
    assert _stems(written) == [*alone, *BY_GROUP, "roc-by-group"]
    assert all(os.path.isfile(p) for p in written)
    for path in written:
        with open(path, "rb") as f:
            head = f.read()
        if path.endswith(".png"):
            assert head.startswith(PNG_SIGNATURE)
        else:
            ET.fromstring(head)  # well-formed SVG
            assert b"<dc:date>" not in head
    # the same result gives the same SVG files (no date)
    again = save_plots(grouped, tmp_path / "again")
    for a, b in zip(written, again, strict=True):
        if a.endswith(".svg"):
            with open(a, "rb") as first, open(b, "rb") as second:
                assert first.read() == second.read(), a
    # no group label reaches a file name: the names are fixed
    assert sorted(os.listdir(tmp_path / "g")) == sorted(os.path.basename(p) for p in written)


def test_python_method_and_function_agree(grouped, tmp_path):
    """``result.save_plots(dir)`` (through the result's renderers) writes the files of ``save_plots``."""
    a = grouped.save_plots(str(tmp_path / "a"))
    b = save_plots(grouped, str(tmp_path / "b"))
    assert [os.path.basename(p) for p in a] == [os.path.basename(p) for p in b]


def test_labels_only_and_scores_only(data, tmp_path):
    g, y, s = data
    pred = np.where(s >= THRESHOLD, "yes", "no")
    labels = assay.evaluate(y, pred, positive="yes", by={"site": g})
    assert [stem for stem, _, _ in group_plan(labels)] == BY_GROUP[:4]
    scores = assay.evaluate(y, y_score=s * 10, positive="yes", by={"site": g})  # not probabilities: no labels
    assert [stem for stem, _, _ in group_plan(scores)] == ["by-group-roc_auc", "roc-by-group"]
    stems = _stems(save_plots(scores, tmp_path))
    assert stems[-2:] == ["by-group-roc_auc", "roc-by-group"] and "confusion" not in stems


def test_three_classes_labels_accuracy_only():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 300)
    pred = np.where(rng.random(300) < 0.7, y, rng.integers(0, 3, 300))
    g = np.repeat(["a", "b", "c"], 100)
    r = assay.evaluate(y, pred, by={"g": g})
    assert [stem for stem, _, _ in group_plan(r)] == ["by-group-accuracy"]
    found, missing = group_points(r, "accuracy")
    assert missing == []
    for label, e in found[1:]:
        rows = g == label
        assert abs(e.value - accuracy_score(y[rows], pred[rows])) <= 1e-12


def test_one_group_evaluated_draws_nothing_by_group():
    """A chart needs two values ("(all)" and one group do): with no group evaluated there is none."""
    y = np.array(["yes"] * 10 + ["no"] * 10)
    s = np.linspace(0, 1, 20).round(2)
    g = np.array(["only yes"] * 10 + ["only no"] * 10)
    r = assay.evaluate(y, y_score=s, threshold=THRESHOLD, positive="yes", by={"g": g})
    assert all(ev is None for ev in r.groups.values())
    assert group_plan(r) == []


# ----------------------------------------------------------------------------
# the values drawn


@pytest.mark.parametrize("metric", list(GROUP_METRICS))
def test_a_point_per_group_with_its_value(grouped, data, metric):
    """Each point is the group's value by scikit-learn (1e-12); "(all)" first, then the groups largest first;
    each interval is the group's own; the group with one class has no point (not a 0)."""
    g, y, s = data
    ax = plot_metric_by_group(grouped, metric, Figure().subplots())
    xy, ticks = _points(ax)
    order = ["(all)", "north east", "Zürich ü", "$x^$ maths"]
    assert ticks == order  # "solo" (one class: not evaluated) left out; "$x^$" shown as written
    assert list(xy[:, 0]) == list(range(len(order)))
    for (x, value), label in zip(xy, order, strict=True):
        rows = np.ones(len(g), bool) if label == "(all)" else g == label
        expected = _expected(g[rows], y[rows], s[rows], metric)
        assert expected is not None and abs(value - expected) <= TOLERANCE.get(metric, 1e-12), (label, value, expected)
    intervals = [line.get_ydata() for line in ax.get_lines() if line.get_gid() == "interval"]
    found, missing = group_points(grouped, metric)
    assert missing == ["solo"] and "solo" in ax.get_xlabel()
    assert [list(map(float, i)) for i in intervals] == [[e.ci.low, e.ci.high] for _, e in found]
    assert all(e.ci.low <= e.value <= e.ci.high for _, e in found)
    assert not np.any(xy[:, 1] == 0.0)
    assert ax.get_title().startswith(GROUP_METRICS[metric][0] + " by site (95% CI)")


def test_roc_by_group_curves_and_aucs(grouped, data):
    """Each evaluated group's curve is its ``ranking.roc()``; its AUC in the legend equals scikit-learn's; the
    group with one class is not drawn and is named in the legend's title."""
    g, y, s = data
    ax = plot_roc_by_group(grouped, Figure().subplots())
    lines = {line.get_label(): line for line in ax.get_lines() if not line.get_label().startswith("_")}
    drawn = [name for name in lines if name not in ("random classifiers",)]
    assert [name.split(" (n = ")[0] for name in drawn] == ["(all)", "north east", "Zürich ü", "$x^$ maths"]
    for name in drawn:
        label = name.split(" (n = ")[0]
        ev = grouped.overall if label == "(all)" else grouped.groups[label]
        roc = ev.ranking.roc()
        assert np.array_equal(lines[name].get_xdata(), roc["fpr"]) and np.array_equal(lines[name].get_ydata(),
                                                                                       roc["tpr"])
        rows = np.ones(len(g), bool) if label == "(all)" else g == label
        auc = roc_auc_score(y[rows] == "yes", s[rows])
        assert f"n = {rows.sum():,}, AUC {auc:.3f})" in name
    assert ax.get_legend().get_title().get_text() == "no AUC: 'solo'"
    assert "largest" not in ax.get_title() and "positive class 'yes'" in ax.get_title()


def test_undefined_auc_of_an_evaluated_group_left_out(grouped):
    """A group evaluated but whose AUC is undefined (value None, e.g. no instance of a class) is neither a point
    of the AUC chart nor a curve: it is named, never drawn as 0."""
    ev = grouped.groups["Zürich ü"]
    undefined = dataclasses.replace(ev, ranking=dataclasses.replace(
        ev.ranking, roc_auc=Estimate.undefined("no negative instance")))
    r = dataclasses.replace(grouped, groups={**grouped.groups, "Zürich ü": undefined})
    found, missing = group_points(r, "roc_auc")
    assert [label for label, _ in found] == ["(all)", "north east", "$x^$ maths"]
    assert missing == ["Zürich ü", "solo"]
    ax = plot_metric_by_group(r, "roc_auc", Figure().subplots())
    xy, ticks = _points(ax)
    assert ticks == ["(all)", "north east", "$x^$ maths"] and len(xy) == 3
    assert "'Zürich ü'" in ax.get_xlabel()
    ax = plot_roc_by_group(r, Figure().subplots())
    assert not any(line.get_label().startswith("Zürich") for line in ax.get_lines())
    assert ax.get_legend().get_title().get_text() == "no AUC: 'Zürich ü', 'solo'"
    # the metrics of predicted labels are still drawn for it
    assert "Zürich ü" in _points(plot_metric_by_group(r, "accuracy", Figure().subplots()))[1]


def test_many_groups_the_largest_drawn():
    """45 groups: the 40 largest beside "(all)" in a chart, the 10 largest ROC curves; the titles say so."""
    sizes = {f"g {i:02d}": 30 + i for i in range(45)}
    g, y, s = _data(5, sizes)
    r = assay.evaluate(y, y_score=s, threshold=THRESHOLD, positive="yes", by={"g": g})
    ax = plot_metric_by_group(r, "accuracy", Figure().subplots())
    xy, ticks = _points(ax)
    largest = [f"g {i:02d}" for i in range(44, 44 - MOST_GROUPS, -1)]
    assert ticks == ["(all)", *largest] and len(xy) == MOST_GROUPS + 1
    assert f"the {MOST_GROUPS} largest of 45 groups" in ax.get_title()
    for (_, value), label in zip(xy[1:], largest, strict=True):
        rows = g == label
        assert abs(value - _expected(g[rows], y[rows], s[rows], "accuracy")) <= 1e-12
    ax = plot_roc_by_group(r, Figure().subplots())
    curves = [line.get_label() for line in ax.get_lines() if line.get_label().startswith("g ")]
    assert [c.split(" (n")[0] for c in curves] == largest[:ROC_GROUPS]
    assert f"the {ROC_GROUPS} largest of 45 groups with an AUC" in ax.get_title()


def test_refuses_what_is_not_a_report_by_group(grouped):
    with pytest.raises(InvalidInput, match="no chart by group of 'log_loss'"):
        plot_metric_by_group(grouped, "log_loss", Figure().subplots())
    with pytest.raises(InvalidInput, match="report by group"):
        plot_roc_by_group(grouped.overall, Figure().subplots())


# ----------------------------------------------------------------------------
# in batches, and the command line


def _write_parts(directory, data, parts=3):
    g, y, s = data
    directory.mkdir()
    for k, rows in enumerate(np.array_split(np.arange(len(g)), parts)):
        (directory / f"{k}.csv").write_text("y,p,site\n" + "".join(
            f"{y[i]},{s[i]:.2f},{g[i]}\n" for i in rows), encoding="utf-8")


def test_in_batches_equals_in_memory(grouped, data, tmp_path):
    """A directory of parts read in batches (a 1 MiB budget) draws the same files and the same points."""
    _write_parts(tmp_path / "parts", data)
    read = assay.evaluate_file(str(tmp_path / "parts"), truth="y", score="p", by=["site"], threshold=THRESHOLD,
                               positive="yes", memory=1 << 20)
    assert _stems(save_plots(read, tmp_path / "b")) == _stems(save_plots(grouped, tmp_path / "m"))
    for metric in GROUP_METRICS:
        a, b = group_points(read, metric), group_points(grouped, metric)
        assert [label for label, _ in a[0]] == [label for label, _ in b[0]] and a[1] == b[1]
        for (_, x), (_, z) in zip(a[0], b[0], strict=True):
            assert abs(x.value - z.value) <= 1e-12


@pytest.mark.parametrize("memory", [None, "1MB"])
def test_cli_plots_with_by(data, tmp_path, memory, capsys):
    g, y, s = data
    if memory is None:  # one small file: read whole
        source = tmp_path / "d.csv"
        source.write_text("y,p,site\n" + "".join(f"{a},{b:.2f},{c}\n" for a, b, c in zip(y, s, g)),
                          encoding="utf-8")
    else:  # a directory of parts: read in batches
        source = tmp_path / "parts"
        _write_parts(source, data)
    out = tmp_path / "plots"
    args = ["report", str(source), "--truth", "y", "--score", "p", "--positive", "yes", "--threshold",
            str(THRESHOLD), "--by", "site", "--plots", str(out)] + (["--memory", memory] if memory else [])
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "By group" in text
    names = set(os.listdir(out))
    for stem in ["roc", "pr", "confusion", *BY_GROUP, "roc-by-group"]:
        assert {f"{stem}.svg", f"{stem}.png"} <= names, stem
    assert not any(n.endswith(".tmp") or n.startswith(".") for n in names)
