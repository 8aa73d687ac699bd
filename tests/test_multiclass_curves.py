"""Many classes, drawn: one-vs-rest ROC and PR curves per class, average precision per class and its
averages, top-k accuracy, and the reports that show them.

Oracles: scikit-learn's ``roc_curve`` and ``roc_auc_score`` on ``label_binarize``'s columns,
``average_precision_score`` (per class, macro, micro, weighted; tolerance 1e-12) and
``top_k_accuracy_score`` (exact). The real data set is yardstick's ``hpc_cv`` (tests/data/hpc_cv.csv),
whose Hand & Till AUC yardstick documents as 0.829 (``roc_auc(hpc_cv, obs, VF:L)``); its per-class
average precisions come from scikit-learn here (yardstick's published examples group it by resample).
"""

import csv
import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import average_precision_score, roc_auc_score, roc_curve, top_k_accuracy_score
from sklearn.preprocessing import label_binarize

import assay
from assay.cli import main
from assay.errors import InvalidInput
from assay.evaluation.multiclass_ranking import rank_classes

DATA = Path(__file__).parent / "data"
HPC = DATA / "hpc_cv.csv"
HPC_CLASSES = ["VF", "F", "M", "L"]
TOL = 1e-12


def run(argv, capsys):
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def _hpc():
    with open(HPC, newline="") as f:
        rows = list(csv.DictReader(f))
    y = np.array([r["obs"] for r in rows])
    p = np.array([[float(r[c]) for c in HPC_CLASSES] for r in rows])
    return y, p


def _tied(rng, n, k, levels=4):
    """Probabilities with many ties: whole-number weights over their row sum."""
    w = rng.integers(1, levels + 1, size=(n, k)).astype(float)
    return w / w.sum(axis=1, keepdims=True)


@pytest.fixture(scope="module")
def hpc():
    y, p = _hpc()
    return y, p, assay.evaluate(y, y_proba=p, labels=HPC_CLASSES, bootstrap=100)


# --- curves per class -------------------------------------------------------------------------------


def test_roc_per_class_matches_sklearn(hpc):
    y, p, r = hpc
    truth = label_binarize(y, classes=HPC_CLASSES)
    for j, c in enumerate(HPC_CLASSES):
        fpr, tpr, thresholds = roc_curve(truth[:, j], p[:, j], drop_intermediate=False)
        curve = r.ranking.roc(c)
        np.testing.assert_allclose(curve["fpr"], fpr, rtol=0, atol=TOL)
        np.testing.assert_allclose(curve["tpr"], tpr, rtol=0, atol=TOL)
        np.testing.assert_array_equal(curve["threshold"][1:], thresholds[1:])
        assert r.ranking.per_class[c].value == pytest.approx(roc_auc_score(truth[:, j], p[:, j]), abs=TOL)


def test_hand_till_is_yardsticks_published_value(hpc):
    # yardstick's documentation: roc_auc(hpc_cv, obs, VF:L) -> 0.829 (Hand & Till)
    assert round(hpc[2].ranking.hand_till.value, 3) == 0.829


def test_pr_per_class_and_curves(hpc):
    y, p, r = hpc
    for j, c in enumerate(HPC_CLASSES):
        curve = r.ranking.pr(c)
        # AP from the curve's steps is the per-class AP
        recall = np.concatenate(([0.0], curve["recall"]))
        assert float((np.diff(recall) * curve["precision"]).sum()) == pytest.approx(
            r.ranking.average_precision[c].value, abs=TOL)
    both = r.ranking.curves("pr")
    assert sorted(both) == sorted(HPC_CLASSES)
    assert set(r.ranking.curves()["L"]) == {"threshold", "fpr", "tpr"}
    with pytest.raises(InvalidInput, match="not one of"):
        r.ranking.curves("lift")


def test_average_precision_per_class_and_averages_match_sklearn(hpc):
    y, p, r = hpc
    truth = label_binarize(y, classes=HPC_CLASSES)
    per_class = average_precision_score(truth, p, average=None)
    for j, c in enumerate(HPC_CLASSES):
        e = r.ranking.average_precision[c]
        assert e.value == pytest.approx(per_class[j], abs=TOL)
        assert e.ci.low < e.value < e.ci.high
    for average in ("macro", "micro", "weighted"):
        assert getattr(r.ranking, f"average_precision_{average}").value == pytest.approx(
            average_precision_score(truth, p, average=average), abs=TOL)
        assert assay.average_precision(y, p, labels=HPC_CLASSES, average=average) == pytest.approx(
            average_precision_score(truth, p, average=average), abs=TOL)


def test_json_keys_added_never_renamed(hpc):
    d = hpc[2].to_dict()["ranking"]
    for key in ("roc_auc_ovr", "roc_auc_ovr_macro", "roc_auc_ovr_weighted", "hand_till",
                "average_precision_ovr", "average_precision_macro", "average_precision_micro",
                "average_precision_weighted"):
        assert key in d
    assert set(d["average_precision_ovr"]) == set(HPC_CLASSES)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(8, 60), k=st.integers(3, 6))
def test_random_inputs_with_ties_match_sklearn(seed, n, k):
    rng = np.random.default_rng(seed)
    p = _tied(rng, n, k)
    y = rng.integers(0, k, size=n)
    y[:k] = np.arange(k)  # every class present
    labels = list(range(k))
    truth = label_binarize(y, classes=labels)
    r = rank_classes(y, p, labels=labels)
    for j in range(k):
        fpr, tpr, _ = roc_curve(truth[:, j], p[:, j], drop_intermediate=False)
        curve = r.roc(j)
        np.testing.assert_allclose(curve["fpr"], fpr, atol=TOL)
        np.testing.assert_allclose(curve["tpr"], tpr, atol=TOL)
    expected = average_precision_score(truth, p, average=None)
    np.testing.assert_allclose(assay.average_precision(y, p, average=None), expected, atol=TOL)
    for average in ("macro", "micro", "weighted"):
        assert assay.average_precision(y, p, average=average) == pytest.approx(
            average_precision_score(truth, p, average=average), abs=TOL)
    for top in range(1, k):
        got = assay.evaluate(y, y_proba=p, labels=labels, top_k=top, bootstrap=100)["top_k_accuracy"]
        assert got.value == top_k_accuracy_score(y, p, k=top, labels=labels)
        assert got.ci.low <= got.value <= got.ci.high


# --- assay.average_precision, scikit-learn's arguments -------------------------------------------------


def test_average_precision_string_labels():
    rng = np.random.default_rng(7)
    y = rng.choice(["cat", "dog", "emu"], size=80)
    p = _tied(rng, 80, 3)
    for average in ("macro", "micro", "weighted", None):
        np.testing.assert_allclose(assay.average_precision(y, p, average=average),
                                   average_precision_score(y, p, average=average), atol=TOL)


def test_average_precision_class_absent_from_truth_is_zero_as_sklearn():
    # scikit-learn on the binarized truth: a column with no positive has AP 0 (it warns), counted in the macro mean
    rng = np.random.default_rng(11)
    p = _tied(rng, 50, 4)
    y = rng.integers(0, 3, size=50)  # class 3 never occurs
    truth = label_binarize(y, classes=[0, 1, 2, 3])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        expected = {a: average_precision_score(truth, p, average=a) for a in ("macro", "micro", "weighted", None)}
    for average, value in expected.items():
        np.testing.assert_allclose(assay.average_precision(y, p, labels=[0, 1, 2, 3], average=average), value,
                                   atol=TOL)
        np.testing.assert_allclose(assay.average_precision(truth, p, average=average), value, atol=TOL)
    assert assay.average_precision(y, p, labels=[0, 1, 2, 3], average=None)[3] == 0.0
    # without labels the columns must match the classes present, as scikit-learn refuses too
    with pytest.raises(InvalidInput, match="labels="):
        assay.average_precision(y, p)


def test_average_precision_sample_weight_and_bad_average():
    rng = np.random.default_rng(5)
    p = _tied(rng, 60, 3)
    y = rng.integers(0, 3, size=60)
    w = rng.random(60)
    truth = label_binarize(y, classes=[0, 1, 2])
    for average in ("macro", "micro", "weighted"):
        assert assay.average_precision(y, p, sample_weight=w, average=average) == pytest.approx(
            average_precision_score(truth, p, sample_weight=w, average=average), abs=TOL)
    with pytest.raises(InvalidInput, match="average"):
        assay.average_precision(y, p, average="samples")


def test_evaluation_with_absent_class_documents_undefined_averages():
    rng = np.random.default_rng(3)
    p = _tied(rng, 40, 4)
    y = rng.integers(0, 3, size=40)
    r = assay.evaluate(y, y_proba=p, labels=[0, 1, 2, 3], bootstrap=100)
    assert r.ranking.average_precision["3"].value is None
    assert r.ranking.average_precision_macro.value is None  # as the macro AUC: undefined, with the reason
    truth = label_binarize(y, classes=[0, 1, 2, 3])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        assert r.ranking.average_precision_weighted.value == pytest.approx(
            average_precision_score(truth, p, average="weighted"), abs=TOL)
        assert r.ranking.average_precision_micro.value == pytest.approx(
            average_precision_score(truth, p, average="micro"), abs=TOL)
    with pytest.raises(InvalidInput, match="no one-vs-rest curve"):
        r.ranking.roc(3)
    assert list(r.ranking.curves()) == ["0", "1", "2"]


# --- top-k accuracy ----------------------------------------------------------------------------------


def test_top_k_accuracy_hpc_cv(hpc):
    y, p, _ = hpc
    r = assay.evaluate(y, y_proba=p, labels=HPC_CLASSES, top_k=2, bootstrap=100)
    e = r["top_k_accuracy"]
    order = np.argsort(HPC_CLASSES)  # scikit-learn wants the labels sorted, the columns in that order
    assert e.value == top_k_accuracy_score(y, p[:, order], k=2, labels=sorted(HPC_CLASSES))
    assert e.method == "wilson" and e.ci.low < e.value < e.ci.high
    assert r.to_dict()["metrics"]["top_k_accuracy"]["value"] == e.value


def test_top_k_ties_follow_sklearn():
    p = np.array([[0.4, 0.4, 0.2], [0.25, 0.25, 0.5], [0.2, 0.4, 0.4]])
    y = np.array([0, 0, 1])
    for k in (1, 2):
        assert assay.evaluate(y, y_proba=p, labels=[0, 1, 2], top_k=k, bootstrap=100)["top_k_accuracy"].value \
            == top_k_accuracy_score(y, p, k=k, labels=[0, 1, 2])


def test_top_k_refused_where_it_does_not_apply():
    with pytest.raises(InvalidInput, match="top_k"):
        assay.evaluate([0, 1, 1, 0], [0, 1, 0, 0], top_k=1)
    p = np.full((3, 3), 1 / 3)
    with pytest.raises(InvalidInput, match="at least 1"):
        assay.evaluate([0, 1, 2], y_proba=p, labels=[0, 1, 2], top_k=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        assert top_k_accuracy_score([0, 1, 2], p, k=3) == 1.0
    e = assay.evaluate([0, 1, 2], y_proba=p, labels=[0, 1, 2], top_k=3, bootstrap=100)["top_k_accuracy"]
    assert e.value == 1.0 and "every instance counts" in e.note


# --- command line -------------------------------------------------------------------------------------


def test_cli_curves_one_class(capsys):
    status, out, err = run(["curves", str(HPC), "--truth", "obs", "--proba", "VF,F,M,L", "--class", "M",
                            "--kind", "pr"], capsys)
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0] == "threshold,recall,precision"
    y, p = _hpc()
    assert len(lines) - 1 == len(np.unique(p[:, 2]))


def test_cli_curves_every_class_csv_and_json(capsys):
    status, out, err = run(["curves", str(HPC), "--truth", "obs", "--proba", "VF,F,M,L"], capsys)
    assert status == 0, err
    rows = list(csv.DictReader(out.splitlines()))
    assert list(rows[0]) == ["class", "threshold", "fpr", "tpr"]
    assert list(dict.fromkeys(r["class"] for r in rows)) == HPC_CLASSES
    status, out, err = run(["curves", str(HPC), "--truth", "obs", "--proba", "VF,F,M,L", "--kind", "pr",
                            "--format", "json"], capsys)
    assert status == 0, err
    payload = json.loads(out)
    assert payload["kind"] == "pr" and payload["classes"] == HPC_CLASSES
    assert set(payload["columns"]) == {"class", "threshold", "recall", "precision"}
    assert len({len(v) for v in payload["columns"].values()}) == 1


def test_cli_curves_score_unchanged(capsys, tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("y,p\n1,0.7\n0,0.4\n1,0.8\n1,0.7\n0,0.3\n")
    status, out, err = run(["curves", str(path), "--truth", "y", "--score", "p"], capsys)
    assert status == 0, err
    assert out.splitlines()[0] == "threshold,fpr,tpr"


@pytest.mark.parametrize("argv, needle", [
    (["--class", "nope"], "--class"),
    (["--class", "VF", "--kind", "lift"], "--kind lift"),
])
def test_cli_curves_errors_one_line(capsys, argv, needle):
    status, out, err = run(["curves", str(HPC), "--truth", "obs", "--proba", "VF,F,M,L", *argv], capsys)
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and needle in err


def test_cli_report_top_k_and_average_precision(capsys):
    status, out, err = run(["report", str(HPC), "--truth", "obs", "--proba", "VF,F,M,L", "--top-k", "2",
                            "--format", "json", "--bootstrap", "100"], capsys)
    assert status == 0, err
    d = json.loads(out)
    assert d["metrics"]["top_k_accuracy"]["ci"] is not None
    assert {"average_precision_ovr", "average_precision_macro", "average_precision_micro",
            "average_precision_weighted"} <= set(d["ranking"])
    status, out, err = run(["report", str(HPC), "--truth", "obs", "--proba", "VF,F,M,L", "--top-k", "2",
                            "--bootstrap", "100"], capsys)
    assert status == 0 and "Top-2 accuracy" in out and "Average precision" in out and "micro" in out
    status, out, err = run(["report", str(HPC), "--truth", "obs", "--proba", "VF,F,M,L", "--top-k", "2",
                            "--format", "markdown", "--bootstrap", "100"], capsys)
    assert status == 0 and "| Top-2 accuracy |" in out


def test_cli_top_k_zero_exit_2(capsys):
    status, out, err = run(["report", str(HPC), "--truth", "obs", "--proba", "VF,F,M,L", "--top-k", "0"], capsys)
    assert status == 2 and len(err.strip().splitlines()) == 1 and "--top-k" in err


# --- pictures -----------------------------------------------------------------------------------------


def test_html_has_one_curve_per_class(capsys, tmp_path):
    page = tmp_path / "r.html"
    status, _, err = run(["report", str(HPC), "--truth", "obs", "--proba", "VF,F,M,L", "--html", str(page),
                          "--bootstrap", "100"], capsys)
    assert status == 0, err
    html = page.read_text()
    for i in range(len(HPC_CLASSES)):
        assert f'id="roc-0-curve-{i}"' in html and f'id="roc-0-pr-curve-{i}"' in html
    assert "(AUC 0.915)" in html and html.count("(AP 0.") == len(HPC_CLASSES)


def test_plots_written(capsys, tmp_path):
    status, _, err = run(["report", str(HPC), "--truth", "obs", "--proba", "VF,F,M,L", "--plots",
                          str(tmp_path / "plots"), "--bootstrap", "100"], capsys)
    assert status == 0, err
    for stem in ("roc", "pr"):
        assert (tmp_path / "plots" / f"{stem}.svg").stat().st_size > 0


def test_plot_functions_one_line_per_class(hpc):
    from matplotlib.figure import Figure

    from assay.report.plots import plot_pr, plot_roc

    ax = plot_roc(hpc[2], Figure().subplots())
    labels = [line.get_label() for line in ax.get_lines() if not line.get_label().startswith("_")]
    assert labels[1:] == [f"{c} (AUC {hpc[2].ranking.per_class[c].value:.3f})" for c in sorted(HPC_CLASSES)]
    ax = plot_pr(hpc[2], Figure().subplots())
    assert len([line for line in ax.get_lines() if "(AP " in line.get_label()]) == len(HPC_CLASSES)


# --- twelve classes stay readable ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def twelve():
    rng = np.random.default_rng(3)
    k, n = 12, 400
    labels = [f"class_{c:02d}" for c in range(k)]
    y = rng.integers(0, k, n)
    logits = rng.normal(size=(n, k))
    logits[np.arange(n), y] += 2.5
    pred = logits.argmax(axis=1)
    return assay.evaluate([labels[i] for i in y], [labels[i] for i in pred], labels=labels), labels


def test_twelve_class_text_nothing_cut_empty_blank(twelve):
    from assay.report.text import render_text

    r, labels = twelve
    out = render_text(r, color=False, width=200)
    block = out[out.index("Confusion matrix"):out.index("Metrics")]
    for i, label in enumerate(labels):
        assert f"{i + 1} {label}" in block  # every class, untruncated, as a numbered row (columns numbered alike)
    counts = r.confusion.counts
    assert (counts == 0).any()
    first = next(line for line in block.splitlines() if line.startswith(f"1 {labels[0]}"))
    assert len(first.split()) == 2 + int((counts[0] > 0).sum()) + 1  # empty cells blank: no 0 printed
    narrow = render_text(r, color=False, width=100)
    table = narrow[narrow.index("Confusion matrix"):narrow.index("rows: actual class")]
    assert all(len(line) <= 100 for line in table.splitlines())  # fits 100 columns: no name broken


def test_twelve_class_heatmap_compact_and_blank(twelve):
    from assay.report.html import render_html

    r, labels = twelve
    html = render_html(r)
    table = html[html.index('<table class="heatmap compact"'):]
    table = table[:table.index("</table>")]
    assert "0.0% · 0.0%" not in table and "—" not in table
    assert table.count('class="cell') == 144
    assert table.count(" empty\"") == int((r.confusion.counts == 0).sum())
    assert 'overflow-x:auto' in html  # wider than the page: it scrolls, never cut


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000))
def test_the_bootstraps_average_precision_per_row_is_scikit_learns(seed):
    from sklearn.metrics import average_precision_score

    from assay.evaluation.multiclass_ranking import _ap_rows

    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    y = rng.random(n) < 0.4
    y[:2] = [True, False]
    s = np.round(rng.random(n), 1)  # ties
    w = rng.integers(1, 4, n).astype(float)  # resample counts
    order = np.argsort(s, kind="stable")
    group = np.concatenate(([0], np.cumsum(s[order][1:] != s[order][:-1])))
    pos = np.zeros((1, group[-1] + 1))
    neg = np.zeros((1, group[-1] + 1))
    np.add.at(pos[0], group, np.where(y[order], w[order], 0.0))
    np.add.at(neg[0], group, np.where(y[order], 0.0, w[order]))
    assert _ap_rows(pos, neg)[0] == pytest.approx(average_precision_score(y, s, sample_weight=w), abs=1e-12)


def test_averaged_average_precision_has_a_bootstrap_interval():
    rng = np.random.default_rng(2)
    n = 200
    y = rng.integers(0, 3, n)
    proba = rng.dirichlet([2, 2, 2], n)
    r = assay.evaluate(y, y_proba=proba, labels=[0, 1, 2], bootstrap=200)
    for e in (r.ranking.average_precision_macro, r.ranking.average_precision_weighted):
        assert e.method == "bootstrap-percentile" and e.ci.low <= e.value <= e.ci.high
