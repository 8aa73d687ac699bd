"""Subgroups (issue 21, item 3): ``by=`` / ``--by``.

References and tolerances: each group's rates and fairlearn's disparity summaries equal ``fairlearn.metrics``
(``MetricFrame`` and its ``*_difference``/``*_ratio`` functions) to 1e-12; Newcombe's interval of two
proportions equals the published example (Newcombe 1998, 56/70 vs 48/80: 0.0524 to 0.3339) to 1e-4; Fisher's
exact test and Pearson's chi-squared equal scipy's to 1e-9; a group's report equals ``assay.evaluate`` on the
group's rows exactly.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from fairlearn.metrics import (
    MetricFrame,
    demographic_parity_difference,
    demographic_parity_ratio,
    equal_opportunity_difference,
    equal_opportunity_ratio,
    equalized_odds_difference,
    equalized_odds_ratio,
    false_positive_rate,
    selection_rate,
    true_positive_rate,
)
from helpers import close
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chi2_contingency
from scipy.stats import fisher_exact as scipy_fisher
from sklearn.metrics import accuracy_score

import assay
from assay.cli import main
from assay.errors import InvalidInput
from assay.inference.groups import disparities, fisher_exact, two_proportions


def _data(seed: int, n: int = 3000, groups=("a", "b", "c"), shift: float = 0.1):
    rng = np.random.default_rng(seed)
    g = rng.choice(list(groups), n, p=np.linspace(2, 1, len(groups)) / np.linspace(2, 1, len(groups)).sum())
    y = (rng.random(n) < 0.4).astype(int)
    p = np.round(np.clip(0.3 * y + 0.7 * rng.random(n) + shift * (g == groups[-1]), 0, 1), 3)
    return g, y, p


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(2, 5))
def test_rates_and_disparities_equal_fairlearn(seed, k):
    g, y, p = _data(seed, n=800, groups=tuple("abcde"[:k]))
    r = assay.evaluate(y, y_score=p, threshold=0.5, by=g, bootstrap=100)
    pred = (p >= 0.5).astype(int)
    frame = MetricFrame(metrics={"selection_rate": selection_rate, "tpr": true_positive_rate,
                                 "fpr": false_positive_rate, "accuracy": accuracy_score},
                        y_true=y, y_pred=pred, sensitive_features=g)
    for label, row in frame.by_group.iterrows():
        for rate in ("selection_rate", "tpr", "fpr", "accuracy"):
            assert r.rates[str(label)][rate] == pytest.approx(row[rate], abs=1e-12), (label, rate)
    reference = {"demographic_parity_difference": demographic_parity_difference,
                 "demographic_parity_ratio": demographic_parity_ratio,
                 "equalized_odds_difference": equalized_odds_difference,
                 "equalized_odds_ratio": equalized_odds_ratio,
                 "equal_opportunity_difference": equal_opportunity_difference,
                 "equal_opportunity_ratio": equal_opportunity_ratio}
    for name, function in reference.items():
        assert r.disparities[name].value == pytest.approx(function(y, pred, sensitive_features=g), abs=1e-12), name
        e = r.disparities[name]
        assert e.ci is None or e.ci.low <= e.ci.high


def test_each_group_is_the_report_of_its_rows_and_string_labels_work():
    g, y, p = _data(1)
    labels = np.where(y == 1, "sick", "well")
    r = assay.evaluate(labels, y_score=p, threshold=0.4, positive="sick", by=g, bootstrap=200)
    for label in ("a", "b", "c"):
        rows = g == label
        want = assay.evaluate(labels[rows], y_score=p[rows], threshold=0.4, positive="sick", bootstrap=200)
        assert r[label].to_dict() == want.to_dict()
        assert r.sizes[label] == int(rows.sum())
    assert r.overall.to_dict() == assay.evaluate(labels, y_score=p, threshold=0.4, positive="sick",
                                                 bootstrap=200).to_dict()
    with pytest.raises(KeyError):
        r["nobody"]


def test_a_chosen_threshold_is_chosen_once_and_applied_to_every_group():
    g, y, p = _data(2)
    r = assay.evaluate(y, y_score=p, threshold="youden", by=g, bootstrap=200)
    assert all(ev.threshold == r.overall.threshold for ev in r.groups.values())
    assert any("applies to every group" in note for note in r.notes)


def test_two_groups_are_tested_against_each_other_and_auc_by_delong():
    g, y, p = _data(3, groups=("x", "y"), shift=0.25)
    r = assay.evaluate(y, y_score=p, threshold=0.5, by=g, bootstrap=200)
    tests = [t for t in r.tests if t.rate == "selection_rate"]
    assert len(tests) == 1 and tests[0].group == "x" and tests[0].against == "y"
    rows = g == "x"
    pred = p >= 0.5
    table = np.array([[pred[rows].sum(), (~pred[rows]).sum()], [pred[~rows].sum(), (~pred[~rows]).sum()]])
    _chi2, pvalue, _, _ = chi2_contingency(table, correction=False)
    assert tests[0].pvalue == pytest.approx(pvalue, rel=1e-9) and tests[0].test == "chi-squared"
    assert tests[0].adjusted == pytest.approx(pvalue, rel=1e-9)  # one test: nothing to adjust
    assert len(r.auc_tests) == 1 and r.auc_tests[0]["against"] == "y"
    want = assay.compare_unpaired(assay.evaluate(y[rows], y_score=p[rows], threshold=0.5),
                                  assay.evaluate(y[~rows], y_score=p[~rows], threshold=0.5))
    assert r.auc_tests[0]["pvalue"] == pytest.approx(want.tests["delong_unpaired"].pvalue, rel=1e-12)


def test_more_groups_are_each_tested_against_the_rest_with_holm():
    g, y, p = _data(4, groups=("a", "b", "c", "d"), shift=0.3)
    r = assay.evaluate(y, y_score=p, threshold=0.5, by=g, bootstrap=200)
    tpr = [t for t in r.tests if t.rate == "tpr"]
    assert [t.group for t in tpr] == ["a", "b", "c", "d"] and {t.against for t in tpr} == {"the rest"}
    raw = np.array([t.pvalue for t in tpr])
    from assay.inference.multiple import adjust
    np.testing.assert_allclose([t.adjusted for t in tpr], adjust(raw, "holm"))
    assert any(t.group == "d" for t in r.significant_gaps())
    assert "significant" in str(r)


def test_two_proportions_and_fisher_against_published_and_scipy():
    d, test, p = two_proportions(56, 70, 48, 80)  # Newcombe (1998), table II, example (a)
    assert d.ci.low == pytest.approx(0.0524, abs=1e-4) and d.ci.high == pytest.approx(0.3339, abs=1e-4)
    for table in ([[8, 2], [1, 5]], [[3, 1], [1, 3]], [[0, 5], [6, 1]], [[10, 0], [0, 10]]):
        (a, b), (c, e) = table
        assert fisher_exact(a, b, c, e) == pytest.approx(scipy_fisher(table).pvalue, rel=1e-9)
    _, test, p = two_proportions(2, 10, 7, 12)  # small expected counts: Fisher's
    assert test == "Fisher's exact" and p == pytest.approx(scipy_fisher([[2, 8], [7, 5]]).pvalue, rel=1e-9)
    d, test, p = two_proportions(0, 0, 3, 10)
    assert d.value is None and test is None


def test_small_groups_warn_and_a_one_class_group_is_skipped_with_its_reason():
    g, y, p = _data(5, n=400)
    g = g.astype(object)
    g[:12] = "tiny"
    y[:12] = 1  # one class only
    r = assay.evaluate(y, y_score=p, threshold=0.5, by=g, bootstrap=100)
    assert r.groups["tiny"] is None and r.skipped["tiny"]
    assert "tiny" in r.to_dict()["groups"] and r.to_dict()["groups"]["tiny"]["report"] is None
    g2 = g.copy()
    g2[:12] = "small"
    y2 = y.copy()
    y2[:6] = 0
    small = assay.evaluate(y2, y_score=p, threshold=0.5, by=g2, bootstrap=100)
    assert any("'small'" in w and "too wide" in w for w in small.warnings)
    assert "Warning: group 'small'" in str(small)


def test_undefined_rates_are_null_with_a_reason():
    """A group with no positives has no true positive rate (a group of one class is not evaluated at all by
    ``by=``: it is named with the reason and left out of the gaps)."""
    tables = np.array([[5, 2, 3, 10], [0, 0, 4, 11]])  # (TP, FN, FP, TN): the second group has no positives
    e = disparities(tables, resamples=100)
    assert e["equal_opportunity_difference"].value is None and "no positives" in e["equal_opportunity_difference"].note
    assert e["demographic_parity_difference"].value == pytest.approx(8 / 20 - 4 / 15)


def test_several_columns_and_a_mapping_and_bad_groups():
    g, y, p = _data(6, n=600)
    sex = np.where(np.arange(600) % 2 == 0, "F", "M")
    r = assay.evaluate(y, y_score=p, threshold=0.5, by={"site": g, "sex": sex}, bootstrap=100)
    assert r.by == ("site", "sex") and "a / F" in r.groups
    with pytest.raises(InvalidInput, match="by site.*has 10 values"):
        assay.evaluate(y, y_score=p, threshold=0.5, by={"site": g[:10]})
    with pytest.raises(InvalidInput, match="missing group value"):
        assay.evaluate(y, y_score=p, threshold=0.5, by=np.array([None] + list(g[1:]), dtype=object))


def test_the_command_line(tmp_path, capsys):
    g, y, p = _data(7, n=900)
    path = tmp_path / "preds.csv"
    path.write_text("y,p,site\n" + "\n".join(f"{a},{b},{c}" for a, b, c in zip(y, p, g)) + "\n")
    out = tmp_path / "r.json"
    assert main(["report", str(path), "--truth", "y", "--score", "p", "--by", "site", "--bootstrap", "200",
                 "--format", "json", "-o", str(out)]) == 0
    got = json.loads(out.read_text())
    want = assay.evaluate(y, y_score=p, by={"site": g}, bootstrap=200).to_dict()
    assert got["disparities"] == json.loads(json.dumps(want["disparities"]))
    assert set(got["groups"]) == {"a", "b", "c"} and got["groups"]["a"]["report"]["metrics"]
    html = tmp_path / "r.html"
    assert main(["report", str(path), "--truth", "y", "--score", "p", "--by", "site", "--html", str(html),
                 "--bootstrap", "200"]) == 0
    text = capsys.readouterr().out
    assert "By group" in text and "Each group against the rest" in text and "In words" in text
    assert main(["report", str(path), "--truth", "y", "--score", "p", "--by", "site", "--bootstrap", "200",
                 "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("subgroup,section,metric,group,value,low,high")
    assert {line.split(",")[0] for line in lines[1:]} >= {"(all)", "a", "b", "c", "(gaps)"}
    assert "True positive rate by group" in html.read_text()
    for args, message in ((["--by", "nosuch"], "column 'nosuch' is not in"),
                          (["--by", "site", "--engine", "spark", "--proba", "0=p,1=p"], "one of --pred, --score or --proba")):
        assert main(["report", str(path), "--truth", "y", "--score", "p", *args]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and message in err, err


def _without_notes(d):
    d = json.loads(json.dumps(d))
    d.pop("notes")
    d.pop("input", None)
    for group in d["groups"].values():
        if group["report"] is not None:
            group["report"].pop("notes")
            group["report"].pop("input", None)
    return d


@pytest.mark.parametrize("kind", ["score", "pred"])
def test_in_batches_equals_in_memory(tmp_path, kind, capsys):
    """A group key beside each summary: the file read in parts gives the numbers of the table read whole (the
    probabilistic losses up to rounding, 1e-9 relative)."""
    g, y, p = _data(8, n=2400)
    labels = np.where(y == 1, "yes", "no")
    g = g.astype(object)
    g[:5] = "tiny"  # a group of one class, in the first part only
    labels[:5] = "yes"
    parts = tmp_path / "parts"
    parts.mkdir()
    for k in range(3):
        rows = slice(k * 800, (k + 1) * 800)
        (parts / f"{k}.csv").write_text("y,p,yhat,site\n" + "\n".join(
            f"{a},{b},{'yes' if b >= 0.5 else 'no'},{c}" for a, b, c in zip(labels[rows], p[rows], g[rows])) + "\n")
    if kind == "score":
        whole = assay.evaluate(labels, y_score=p, threshold="youden", by={"site": g}, bootstrap=200)
        read = assay.evaluate_file(str(parts), truth="y", score="p", by=["site"], threshold="youden", bootstrap=200)
    else:
        pred = np.where(p >= 0.5, "yes", "no")
        whole = assay.evaluate(labels, pred, by={"site": g}, bootstrap=200)
        read = assay.evaluate_file(str(parts), truth="y", pred="yhat", by=["site"], bootstrap=200)
    assert read.skipped["tiny"] == whole.skipped["tiny"]
    close(_without_notes(whole.to_dict()), _without_notes(read.to_dict()))
    out = tmp_path / "r.json"
    column = ["--score", "p", "--threshold", "youden"] if kind == "score" else ["--pred", "yhat"]
    assert main(["report", str(parts), "--truth", "y", *column, "--by", "site", "--bootstrap", "200",
                 "--format", "json", "-o", str(out)]) == 0
    capsys.readouterr()
    close(_without_notes(whole.to_dict()), _without_notes(json.loads(out.read_text())))


def test_on_spark_equals_in_memory(spark, tmp_path, capsys):
    """Spark counts each (group, class, score), a group key beside each summary; the driver reports."""
    g, y, p = _data(9, n=1500)
    import pandas as pd

    frame = spark.createDataFrame(pd.DataFrame({"y": y, "p": p, "site": g, "yhat": (p >= 0.5).astype(int)}))
    from assay.spark import evaluate as spark_evaluate
    whole = assay.evaluate(y, y_score=p, threshold=0.5, by={"site": g}, bootstrap=200)
    got = spark_evaluate(frame, truth="y", score="p", by="site", threshold=0.5, bootstrap=200)
    close(_without_notes(whole.to_dict()), _without_notes(got.to_dict()))
    labels = spark_evaluate(frame, truth="y", pred="yhat", by=["site"], bootstrap=200)
    close(_without_notes(assay.evaluate(y, (p >= 0.5).astype(int), by={"site": g}, bootstrap=200).to_dict()),
           _without_notes(labels.to_dict()))
    path = tmp_path / "preds.csv"
    path.write_text("y,p,site\n" + "\n".join(f"{a},{b},{c}" for a, b, c in zip(y, p, g)) + "\n")
    out = tmp_path / "r.json"
    assert main(["report", str(path), "--truth", "y", "--score", "p", "--by", "site", "--engine", "spark",
                 "--bootstrap", "200", "--format", "json", "-o", str(out)]) == 0
    capsys.readouterr()
    close(_without_notes(whole.to_dict()), _without_notes(json.loads(out.read_text())))


def test_combinations_of_columns_are_numbered_as_sorting_them_would():
    """Several columns' combinations present, found by counting, are those a sort finds, in the labels' order."""
    from assay.evaluation.groups import group_codes

    rng = np.random.default_rng(3)
    a = rng.choice(["x", "y", "z"], 500)
    b = rng.integers(0, 7, 500)
    b[a == "y"] = 0  # combinations absent
    names, codes, labels = group_codes({"a": a, "b": b}, 500)
    text = np.array([f"{u} / {v}" for u, v in zip(a, b, strict=True)])
    expected = sorted(set(text.tolist()))
    assert names == ("a", "b") and list(labels) == expected
    assert [labels[c] for c in codes] == text.tolist()
