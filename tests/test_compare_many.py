"""``assay.compare`` and ``assay compare`` with more than two models.

References: statsmodels 0.15 ``stats.contingency_tables.cochrans_q`` (Cochran's Q)
and ``stats.multitest.multipletests(p, method="holm")`` (Holm's step-down
adjustment); the pairwise tests against the two-model ``compare`` of each pair,
and the two-model result against the tests it is made of, computed directly.
"""

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from helpers import close
from statsmodels.stats.contingency_tables import cochrans_q
from statsmodels.stats.multitest import multipletests

import assay
from assay import InvalidInput
from assay.cli import main
from assay.inference.mcnemar import mcnemar, paired_table
from assay.inference.multiple import holm
from assay.inference.paired_bootstrap import paired_bootstrap
from assay.inference.roc_compare import delong_test
from assay.metrics.confusion import accuracy

rng = np.random.default_rng(7)
N = 240
Y = rng.integers(0, 2, N)
# scores rounded to two decimals: many ties, within and across models
SCORES = [np.clip(Y * w + rng.random(N) * (1 - w), 0, 1).round(2) for w in (0.5, 0.42, 0.3, 0.05)]
PREDS = [(s >= 0.5).astype(int) for s in SCORES]
BOOT = 200


def run(argv, capsys):
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def refused(status, out, err):
    assert status == 2, err
    assert out == ""
    assert err.startswith("assay: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err


# ----------------------------------------------------------------------------
# Holm's adjustment


P_VALUES = st.lists(st.one_of(st.floats(0, 1), st.sampled_from([0.0, 1.0, 0.05, 0.01, 0.5])), min_size=1,
                    max_size=30)


@settings(max_examples=20)
@given(P_VALUES)
def test_holm_is_statsmodels(p):
    ours = holm(p)
    ref = multipletests(np.asarray(p), method="holm")[1]
    assert np.allclose(ours, ref, rtol=0, atol=1e-12)
    assert np.all(ours >= np.asarray(p) - 1e-15) and np.all(ours <= 1.0)
    order = np.argsort(p, kind="stable")
    assert np.all(np.diff(ours[order]) >= 0)  # monotone in the p-values


@settings(max_examples=20)
@given(P_VALUES, st.lists(st.booleans(), min_size=30, max_size=30))
def test_holm_passes_nan_through_and_leaves_it_out_of_the_family(p, holes):
    p = np.asarray(p, dtype=np.float64)
    holes = np.asarray(holes[: len(p)])
    with_nan = np.where(holes, np.nan, p)
    ours = holm(with_nan)
    assert np.array_equal(np.isnan(ours), holes)
    if (~holes).any():
        ref = multipletests(p[~holes], method="holm")[1]
        assert np.allclose(ours[~holes], ref, rtol=0, atol=1e-12)


def test_holm_edges():
    assert holm([]).shape == (0,)
    assert np.isnan(holm([math.nan, math.nan])).all()
    assert holm([0.2]).tolist() == [0.2]
    assert holm([0.6, 0.6]).tolist() == [1.0, 1.0]
    for bad in ([1.5], [-0.1], [[0.1, 0.2]], ["x"], [math.inf]):
        with pytest.raises(InvalidInput, match="^pvalues"):
            holm(bad)


# ----------------------------------------------------------------------------
# the API


def _same_test(many: dict, two: dict):
    """A pairwise test's JSON against the two-model one: equal but for what adjusting changes."""
    adjusted = {"verdict", "significant", "threshold_confidence", "pvalue_holm"}
    assert {k: v for k, v in many.items() if k not in adjusted} == \
        {k: v for k, v in two.items() if k not in adjusted}


def test_three_models_with_labels():
    c = assay.compare(Y, *PREDS[:3], bootstrap=BOOT)
    assert c.names == ("A", "B", "C")
    table = np.column_stack([p == Y for p in PREDS[:3]]).astype(int)
    ref = cochrans_q(table)
    q = c.tests["cochran_q"]
    assert q.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert q.pvalue == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-15)
    assert set(c.tests) == {"cochran_q"}
    assert [p.names for p in c.pairwise] == [("A", "B"), ("A", "C"), ("B", "C")]
    raw = []
    for pair, (i, j) in zip(c.pairwise, [(0, 1), (0, 2), (1, 2)]):
        two = assay.compare(Y, PREDS[i], PREDS[j], names=pair.names, bootstrap=BOOT)
        assert set(pair.tests) == {"mcnemar", "accuracy_difference"} == set(two.tests)
        m, m2 = pair.tests["mcnemar"], two.tests["mcnemar"]
        assert (m.statistic, m.pvalue, m.method, m.b, m.c) == (m2.statistic, m2.pvalue, m2.method, m2.b, m2.c)
        expected = "exact" if m.b + m.c < 25 else "chi2-corrected"
        assert m.method == expected
        d, d2 = pair.tests["accuracy_difference"], two.tests["accuracy_difference"]
        assert (d.difference, d.ci, d.pvalue) == (d2.difference, d2.ci, d2.pvalue)
        _same_test(pair.to_dict(c.confidence)["accuracy_difference"], two.test_dict("accuracy_difference"))
        _same_test(pair.to_dict(c.confidence)["mcnemar"], two.test_dict("mcnemar"))
        raw.append(m.pvalue)
    ref = multipletests(np.array(raw), method="holm")[1]
    assert np.allclose([p.adjusted["mcnemar"] for p in c.pairwise], ref, rtol=0, atol=1e-12)
    assert all(p.family == {"mcnemar": 3} for p in c.pairwise)


def test_four_models_with_scores():
    c = assay.compare(Y, *({"y_score": s} for s in SCORES), names=["w", "x", "y", "z"], bootstrap=BOOT)
    table = np.column_stack([p == Y for p in PREDS]).astype(int)
    ref = cochrans_q(table)
    assert c.tests["cochran_q"].statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert c.tests["cochran_q"].pvalue == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-15)
    assert len(c.pairwise) == 6
    mc, de = [], []
    for pair in c.pairwise:
        i, j = ("wxyz".index(pair.names[0]), "wxyz".index(pair.names[1]))
        two = assay.compare(Y, {"y_score": SCORES[i]}, {"y_score": SCORES[j]}, names=pair.names, bootstrap=BOOT)
        assert set(pair.tests) == {"mcnemar", "accuracy_difference", "delong"}
        for name in pair.tests:
            _same_test(pair.test_dict(name, c.confidence), two.test_dict(name))
        direct = delong_test(Y == 1, SCORES[i], SCORES[j])
        assert (pair.tests["delong"].statistic, pair.tests["delong"].pvalue) == (direct.statistic, direct.pvalue)
        mc.append(pair.tests["mcnemar"].pvalue)
        de.append(pair.tests["delong"].pvalue)
    assert np.allclose([p.adjusted["mcnemar"] for p in c.pairwise], multipletests(mc, method="holm")[1], atol=1e-12)
    assert np.allclose([p.adjusted["delong"] for p in c.pairwise], multipletests(de, method="holm")[1], atol=1e-12)


def test_the_json_of_many_models():
    c = assay.compare(Y, {"y_score": SCORES[0]}, {"y_score": SCORES[1]}, PREDS[2], bootstrap=BOOT,
                      names=("forest", "logistic", "tree"))
    d = json.loads(json.dumps(c.to_dict(), allow_nan=False))
    assert [k for k in d if k != "roc_space"] == ["models", "paired", "confidence", "tests", "pairwise", "notes"]
    assert "roc_space" in d  # two classes: the models in ROC space (a key added)
    assert [m["name"] for m in d["models"]] == ["forest", "logistic", "tree"]
    assert d["models"][2]["roc_auc"] is None
    assert list(d["tests"]) == ["cochran_q"]
    assert d["tests"]["cochran_q"]["df"] == 2
    assert [p["models"] for p in d["pairwise"]] == [["forest", "logistic"], ["forest", "tree"],
                                                    ["logistic", "tree"]]
    first = d["pairwise"][0]
    assert list(first) == ["models", "mcnemar", "accuracy_difference", "delong"]
    assert ["delong" in p for p in d["pairwise"]] == [True, False, False]  # both need scores
    for p in d["pairwise"]:
        m = p["mcnemar"]
        assert list(m)[:3] == ["statistic", "pvalue", "pvalue_holm"]
        assert "after Holm's adjustment for 3 comparisons" in m["verdict"] and "adjusted p" in m["verdict"]
        assert "error rates of " + " and ".join(p["models"]) in m["verdict"]
        assert m["significant"] == (m["pvalue_holm"] < 0.05)
        assert "pvalue_holm" not in p["accuracy_difference"]
        assert "accuracies of " + " and ".join(p["models"]) in p["accuracy_difference"]["verdict"]
    delong = first["delong"]
    assert delong["pvalue_holm"] == pytest.approx(delong["pvalue"])  # a family of one
    assert "after Holm's adjustment for 1 comparison," in delong["verdict"]
    assert delong["threshold_confidence"] == pytest.approx(1 - delong["pvalue_holm"])
    assert any("Holm's method for 3 comparisons" in note for note in d["notes"])
    assert any("DeLong's as a family of their own (1 comparison)" in note for note in d["notes"])


def test_a_mapping_of_models_is_the_same_as_positional_models():
    by_name = assay.compare(Y, {"tree": PREDS[0], "forest": {"y_pred": PREDS[1]}, "knn": PREDS[2]},
                            bootstrap=BOOT)
    positional = assay.compare(Y, PREDS[0], PREDS[1], PREDS[2], names=["tree", "forest", "knn"], bootstrap=BOOT)
    assert by_name.to_dict() == positional.to_dict()
    assert by_name.pair("knn", "tree").names == ("tree", "knn")
    with pytest.raises(InvalidInput, match="^pair: "):
        by_name.pair("tree", "bayes")
    two = assay.compare(Y, {"tree": PREDS[0], "forest": PREDS[1]}, bootstrap=BOOT)
    assert two.to_dict() == assay.compare(Y, PREDS[0], PREDS[1], names=("tree", "forest"), bootstrap=BOOT).to_dict()


def test_two_models_are_as_before():
    """The two-model result is what it was: the old call, and the tests it is made of computed directly."""
    for a, b, scored in ((PREDS[0], PREDS[1], False), ({"y_score": SCORES[0]}, {"y_score": SCORES[2]}, True)):
        old = assay.compare(Y, a, b, names=("A", "B"), bootstrap=BOOT)
        new = assay.compare(Y, a, b, bootstrap=BOOT)
        assert old.to_dict() == new.to_dict()
        d = new.to_dict()
        assert [k for k in d if k != "roc_space"] == ["models", "paired", "confidence", "tests", "notes"]  # no pairs
        assert new.pairwise == ()
        pa, pb = (PREDS[0], PREDS[1]) if not scored else (PREDS[0], PREDS[2])
        table = paired_table(pa == Y, pb == Y)
        discordant = int(table[0, 1] + table[1, 0])
        mc = mcnemar(table, method="exact" if discordant < 25 else "chi2-corrected")
        expected = {"mcnemar": mc.to_dict(0.95, what="the error rates of A and B"),
                    "accuracy_difference": paired_bootstrap(Y, pa, pb, 2, accuracy, confidence=0.95,
                                                            resamples=BOOT, seed=0).to_dict(0.95)}
        if scored:
            sa, sb = SCORES[0], SCORES[2]
            expected["delong"] = delong_test(Y == 1, sa, sb, confidence=0.95).to_dict(0.95)
        assert d["tests"] == expected
        assert list(d["tests"]["mcnemar"]) == ["statistic", "pvalue", "ci", "method", "verdict", "df", "b", "c",
                                               "significant"]
        assert d["notes"] == ([] if discordant >= 25 else [
            f"only {discordant} instance(s) have exactly one model right: McNemar's exact binomial test is used"])


def test_string_labels_ties_and_an_empty_class():
    r = np.random.default_rng(3)
    n = 90
    y = r.choice(["cat", "dog"], n)  # "eel" is never the truth: an empty class, predicted by one model only
    a = np.where(r.random(n) < 0.8, y, "dog")
    b = np.where(r.random(n) < 0.7, y, "cat")
    c = np.where(r.random(n) < 0.6, y, "eel")
    d = a.copy()  # ties: a fourth model with a's predictions
    many = assay.compare(y, a, b, c, d, names=["a", "b", "c", "d"], bootstrap=BOOT)
    assert many.reports[0].labels == ("cat", "dog", "eel")
    table = np.column_stack([p == y for p in (a, b, c, d)]).astype(int)
    ref = cochrans_q(table)
    assert many.tests["cochran_q"].statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert many.tests["cochran_q"].pvalue == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-15)
    preds = dict(zip("abcd", (a, b, c, d)))
    for pair in many.pairwise:
        two = assay.compare(y, preds[pair.names[0]], preds[pair.names[1]], names=pair.names, bootstrap=BOOT)
        for name in ("mcnemar", "accuracy_difference"):
            _same_test(pair.test_dict(name, many.confidence), two.test_dict(name))
    same = many.pair("a", "d")
    assert same.tests["mcnemar"].b + same.tests["mcnemar"].c == 0
    assert same.test_dict("mcnemar", 0.95)["verdict"] == "no discordant pairs: the test cannot tell the error rates " \
        "of a and d apart"
    assert same.adjusted["mcnemar"] == 1.0
    assert any("exact binomial" in note and "a vs d (0)" in note for note in many.notes)


def test_delong_that_cannot_be_tested_stays_out_of_the_family():
    y = np.array([1, 0] * 20)
    s = np.linspace(0, 1, 40)
    c = assay.compare(y, {"y_score": s}, {"y_score": s}, {"y_score": s[::-1]}, bootstrap=BOOT)
    pvalues = [p.tests["delong"].pvalue for p in c.pairwise]
    adjusted = [p.adjusted["delong"] for p in c.pairwise]
    family = sum(not math.isnan(p) for p in pvalues)
    assert all(p.family["delong"] == family for p in c.pairwise)
    for p, q in zip(pvalues, adjusted):
        assert math.isnan(p) == math.isnan(q)
    json.dumps(c.to_dict(), allow_nan=False)


def test_names_and_models_are_checked():
    a, b, c = PREDS[:3]
    for names in (("A", "B"), ("A", "B", "C", "D"), ("A", "B", "A"), "ABC", ("A", "", "C"), ("A", 2, "C")):
        with pytest.raises(InvalidInput, match="^names: "):
            assay.compare(Y, a, b, c, names=names)
    with pytest.raises(InvalidInput, match="^names: the models need different names, got 'A' twice"):
        assay.compare(Y, a, b, c, names=("A", "B", "A"))
    with pytest.raises(InvalidInput, match="^names: expected two names"):  # two models: as before
        assay.compare(Y, a, b, names=("A", "B", "C"))
    with pytest.raises(InvalidInput, match="^names: "):
        assay.compare(Y, {"tree": a, "forest": b}, names=("x", "y"))
    with pytest.raises(InvalidInput, match="^b: expected two models or more"):
        assay.compare(Y, a)
    with pytest.raises(InvalidInput, match="^b: expected two models or more"):
        assay.compare(Y, {"y_pred": a})
    with pytest.raises(InvalidInput, match="^a: expected two models or more, got 1"):
        assay.compare(Y, {"tree": a})
    with pytest.raises(InvalidInput, match="^a: "):
        assay.compare(Y, {"y_pred": a, "tree": b})
    with pytest.raises(InvalidInput, match="^a: "):
        assay.compare(Y, {1: a, 2: b})
    with pytest.raises(InvalidInput, match=r"^more\[0\]: expected one model's predictions"):
        assay.compare(Y, a, b, {"y_pred": c, "y_score": SCORES[2]})
    with pytest.raises(InvalidInput, match="^C y_pred: has 2 values but y_true has"):
        assay.compare(Y, a, b, [1, 0])
    with pytest.raises(InvalidInput, match="^tree "):
        assay.compare(Y, {"forest": a, "knn": b, "tree": {"y_score": np.full(N, np.nan)}})
    with pytest.raises(InvalidInput):
        assay.compare(Y, a, b, None)


# ----------------------------------------------------------------------------
# the command line


@pytest.fixture
def files(tmp_path):
    """One file with three columns of predictions and scores; the same as three files, shuffled, with ids."""
    frame = pd.DataFrame({"id": np.arange(N), "y": np.where(Y == 1, "yes", "no")})
    for k, name in enumerate(("tree", "forest", "knn")):
        frame[name] = np.where(PREDS[k] == 1, "yes", "no")
        frame["s_" + name] = SCORES[k]
    one = tmp_path / "preds.csv"
    frame.to_csv(one, index=False)
    paths = []
    for k, name in enumerate(("tree", "forest", "knn")):
        part = frame[["id", "y", name, "s_" + name]].rename(columns={name: "p", "s_" + name: "s"})
        path = tmp_path / f"{name}.csv"
        part.sample(frac=1, random_state=k).to_csv(path, index=False)
        paths.append(str(path))
    return str(one), paths


def test_cli_one_file_three_columns(files, capsys):
    one, _ = files
    args = ["compare", one, "--truth", "y", "--pred", "tree", "--pred", "forest", "--pred", "knn",
            "--bootstrap", str(BOOT)]
    status, out, err = run([*args, "--format", "json"], capsys)
    assert status == 0, err
    d = json.loads(out)
    assert [m["name"] for m in d["models"]] == ["tree", "forest", "knn"]
    assert list(d["tests"]) == ["cochran_q"]
    assert len(d["pairwise"]) == 3 and all("pvalue_holm" in p["mcnemar"] for p in d["pairwise"])
    api = assay.compare(np.where(Y == 1, "yes", "no"), *(np.where(p == 1, "yes", "no") for p in PREDS[:3]),
                        names=["tree", "forest", "knn"], bootstrap=BOOT).to_dict()
    assert d["tests"] == api["tests"] and d["pairwise"] == api["pairwise"]
    status, text, err = run(args, capsys)
    assert status == 0, err
    assert "tree vs forest vs knn" in text and "Cochran's Q" in text and "Pairs" in text
    assert "after Holm's adjustment for 3 comparisons" in text
    for pair in ("tree vs forest", "tree vs knn", "forest vs knn"):
        assert pair in text
    status, markdown, err = run([*args, "--format", "markdown"], capsys)
    assert status == 0 and "## Pairs" in markdown


def test_cli_three_files_joined_on_id(files, capsys, tmp_path):
    one, paths = files
    common = ["--truth", "y", "--bootstrap", str(BOOT), "--format", "json", "--positive", "yes"]
    status, out, err = run(["compare", *paths, "--score", "s", "--id", "id", *common, "--html",
                            str(tmp_path / "c.html"), "--plots", str(tmp_path / "plots")], capsys)
    assert status == 0, err
    joined = json.loads(out)
    assert [m["name"] for m in joined["models"]] == ["tree", "forest", "knn"]
    assert [m["input"]["file"] for m in joined["models"]] == paths
    assert len(joined["pairwise"]) == 3 and all("delong" in p for p in joined["pairwise"])
    status, out, err = run(["compare", one, "--score", "s_tree", "--score", "s_forest", "--score", "s_knn",
                            "--name", "tree", "--name", "forest", "--name", "knn", *common], capsys)
    assert status == 0, err
    by_row = json.loads(out)
    assert joined["tests"] == by_row["tests"]
    for p, q in zip(joined["pairwise"], by_row["pairwise"]):  # the bootstrap draws depend on the order of the rows
        assert p["models"] == q["models"] and p["mcnemar"] == q["mcnemar"]
        close(p["delong"], q["delong"])  # sums taken in another order
        assert p["accuracy_difference"]["difference"] == pytest.approx(q["accuracy_difference"]["difference"])
    page = (tmp_path / "c.html").read_text()
    assert "tree vs forest vs knn" in page and page.count('id="roc-models-curve-') == 3
    assert (tmp_path / "plots" / "roc.svg").exists() and (tmp_path / "plots" / "confusion-knn.png").exists()


@pytest.mark.parametrize(("extra", "message"), [
    (["--unpaired"], "--unpaired compares two files"),
    (["--name", "a", "--name", "b"], "--name: give 3 names, one per model (got 2)"),
    (["--pred", "s"], "3 files take one --pred or --score each"),
])
def test_cli_three_files_refused(files, capsys, extra, message):
    _, paths = files
    status, out, err = run(["compare", *paths, "--truth", "y", "--pred", "p", "--id", "id", *extra], capsys)
    refused(status, out, err)
    assert message in err


def test_cli_other_refusals(files, capsys, tmp_path):
    one, paths = files
    three = ["--pred", "tree", "--pred", "forest", "--pred", "knn"]
    for extra, message in ((["--id", "id"], "--id: the columns of one file are paired by row"),
                           (["--unpaired"], "--unpaired: the columns of one file are paired by row"),
                           (["--name", "x"], "--name: give 3 names"),
                           (["--score", "s_knn"], "give two prediction files")):
        status, out, err = run(["compare", one, "--truth", "y", *three, *extra], capsys)
        refused(status, out, err)
        assert message in err, err
    # the third file by row: its truths are in another order
    status, out, err = run(["compare", *paths, "--truth", "y", "--pred", "p"], capsys)
    refused(status, out, err)
    assert "the truths differ" in err
    short = tmp_path / "short.csv"
    short.write_text("id,y,p,s\n0,no,no,0.1\n")
    status, out, err = run(["compare", paths[0], paths[1], str(short), "--truth", "y", "--pred", "p", "--id", "id"],
                           capsys)
    refused(status, out, err)
    assert "is not in short" in err
    status, out, err = run(["compare", "--truth", "y", "--pred", "p"], capsys)
    refused(status, out, err)


HOSTILE = st.sampled_from([None, math.nan, 1, "a", "", [], [[]], {}, {"y_pred": None}, {"tree": [1, 0]},
                           {"y_score": [math.nan] * 8}, [1, 0, 1, 0, 1, 0, 1, 0], ["a"] * 8, np.ones((8, 2)),
                           {"y_proba": {0: [0.5] * 8}}, {"y_pred": [1] * 8, "tree": [0] * 8}])


@settings(max_examples=50)
@given(st.lists(HOSTILE, min_size=1, max_size=4),
       st.sampled_from([None, ("A", "B", "C"), ["x"] * 4, "AB", ("A", None), ()]))
def test_only_invalid_input_escapes(models, names):
    y = [1, 0, 1, 0, 1, 1, 0, 0]
    try:
        c = assay.compare(y, *models, names=names, bootstrap=50)
    except InvalidInput:
        return
    json.dumps(c.to_dict(), allow_nan=False)


def test_bonferroni_and_no_adjustment():
    from statsmodels.stats.multitest import multipletests

    c = assay.compare(Y, PREDS[0], PREDS[1], PREDS[2], bootstrap=BOOT, adjust="bonferroni")
    raw = [p.tests["mcnemar"].pvalue for p in c.pairwise]
    expected = multipletests(raw, method="bonferroni")[1]
    got = [p.to_dict(0.95)["mcnemar"]["pvalue_bonferroni"] for p in c.pairwise]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    assert any("Bonferroni's" in note for note in c.notes)
    none = assay.compare(Y, PREDS[0], PREDS[1], PREDS[2], bootstrap=BOOT, adjust="none")
    assert all(p.adjusted == {} for p in none.pairwise)
    assert "pvalue_holm" not in json.dumps(none.to_dict()) and any("not adjusted" in n for n in none.notes)
    with pytest.raises(InvalidInput, match="adjust"):
        assay.compare(Y, PREDS[0], PREDS[1], PREDS[2], adjust="sidak")


def test_standard_input_with_several_columns(monkeypatch, capsys):
    import io
    import sys

    from assay.cli import main

    text = "y,a,b,c\n" + "".join(f"{t},{p},{q},{r}\n" for t, p, q, r in zip(Y, PREDS[0], PREDS[1], PREDS[2]))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    status = main(["compare", "-", "--truth", "y", "--pred", "a", "--pred", "b", "--pred", "c", "--format", "json",
                   "--bootstrap", str(BOOT)])
    out, err = capsys.readouterr()
    assert status == 0, err
    d = json.loads(out)
    assert [m["input"]["file"] for m in d["models"]] == ["standard input"] * 3
    assert d["tests"]["cochran_q"]["n_models"] == 3
