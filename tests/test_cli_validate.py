"""assay validate, assay compare and assay demo, end to end through the real entry point.

The statistics themselves are checked against references in test_protocols.py and
test_comparisons_reference.py; here: the contract, every method from the CLI, the
exports read back, reproducibility, and every usage mistake's one-line error.
"""

import json

import numpy as np
import pytest

from assay.cli import main

REPORT_KEYS = {"task", "n", "labels", "positive", "threshold", "confidence", "confusion", "metrics", "per_class",
               "averages", "ranking", "probabilistic"}


def run(argv, capsys):
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def run_json(argv, capsys):
    status, out, err = run([*argv, "--format", "json"], capsys)
    assert status == 0, err
    return json.loads(out)


def test_validate_contract(capsys):
    d = run_json(["validate", "--dataset", "breast-cancer", "--model", "decision-tree", "--model", "naive-bayes",
                  "--bootstrap", "200"], capsys)
    assert {"dataset", "method", "settings", "models", "comparisons"} <= set(d)
    assert d["dataset"] == "breast-cancer" and d["method"] == "cv" and d["settings"]["folds"] == 10
    for name in ("decision-tree", "naive-bayes"):
        m = d["models"][name]
        assert REPORT_KEYS <= set(m)
        assert m["n"] == 569
        assert len(m["folds"]) == 10
        assert m["estimate"]["error"] == pytest.approx(1 - m["metrics"]["accuracy"]["value"])
        assert m["ranking"]["roc_auc"]["method"] == "delong"
    tests = {c["test"] for c in d["comparisons"]}
    assert {"mcnemar", "paired_bootstrap_accuracy", "delong"} <= tests
    for c in d["comparisons"]:
        assert {"statistic", "pvalue", "method", "verdict", "models"} <= set(c)


def test_validate_text_has_the_comparison_in_words(capsys):
    status, out, _ = run(["validate", "--dataset", "breast-cancer", "--model", "decision-tree", "--model",
                          "naive-bayes", "--bootstrap", "200"], capsys)
    assert status == 0
    assert "Estimated error" in out and "Comparisons" in out
    assert "The lowest estimated error is naive-bayes's" in out
    assert "its difference in error with decision-tree is not significant (McNemar, p = 0.253)" in out


@pytest.mark.parametrize(
    ("method", "extra", "estimate"),
    [
        ("resubstitution", [], "resubstitution"),
        ("holdout", ["--test-size", "0.3"], "holdout"),
        ("repeated-holdout", ["--repeats", "3"], "repeated-holdout"),
        ("cv", ["--folds", "5"], "cv"),
        ("repeated-cv", ["--folds", "3", "--repeats", "2"], "repeated-cv"),
        ("loo", [], "loo"),
        ("bootstrap", ["--repeats", "5"], "bootstrap"),
        ("bootstrap632", ["--repeats", "5"], "bootstrap632"),
        ("bootstrap632plus", ["--repeats", "5"], "bootstrap632plus"),
        ("train-val-test", [], "train-val-test"),
    ],
)
def test_every_method_runs(capsys, method, extra, estimate):
    d = run_json(["validate", "--dataset", "iris", "--model", "naive-bayes", "--model", "zero-r", "--method", method,
                  "--bootstrap", "200", *extra], capsys)
    assert d["method"] == method
    nb = d["models"]["naive-bayes"]
    assert nb["estimate"]["name"] == estimate
    assert 0 <= nb["estimate"]["error"] <= 1
    assert nb["estimate"]["error"] < d["models"]["zero-r"]["estimate"]["error"]
    assert d["comparisons"]
    if method == "resubstitution":
        assert any("optimistic" in n for n in d["notes"])


def test_repeated_methods_compare_with_the_corrected_t(capsys):
    d = run_json(["validate", "--dataset", "iris", "--model", "naive-bayes", "--model", "decision-tree",
                  "--method", "repeated-cv", "--folds", "2", "--repeats", "5", "--bootstrap", "200"], capsys)
    tests = {c["test"] for c in d["comparisons"]}
    assert tests == {"corrected_resampled_t", "paired_t_5x2cv", "f_test_5x2cv"}
    assert d["models"]["naive-bayes"]["n"] == 150  # one averaged prediction per instance


def test_train_val_test_tunes_a_grid(capsys):
    d = run_json(["validate", "--dataset", "wine", "--model", "decision-tree", "--method", "train-val-test",
                  "--grid", "max_depth=1,2,4", "--bootstrap", "200"], capsys)
    tuning = d["models"]["decision-tree"]["tuning"][0]
    assert tuning["chosen"]["max_depth"] in (1, 2, 4)
    assert len(tuning["grid"]) == 3


def test_jobs_give_the_same_results(capsys):
    args = ["validate", "--dataset", "breast-cancer", "--model", "decision-tree", "--model", "knn", "--folds", "5",
            "--bootstrap", "200"]
    assert run_json(args, capsys) == run_json([*args, "--jobs", "2"], capsys)


def test_seed_changes_the_folds(capsys):
    args = ["validate", "--dataset", "breast-cancer", "--model", "decision-tree", "--folds", "5", "--bootstrap",
            "200"]
    a, b = run_json(args, capsys), run_json([*args, "--seed", "1"], capsys)
    assert a["models"]["decision-tree"]["folds"] != b["models"]["decision-tree"]["folds"]


def test_param_for_one_model_and_import_path(capsys):
    d = run_json(["validate", "--dataset", "iris", "--model", "decision-tree", "--model",
                  "sklearn.ensemble.ExtraTreesClassifier", "--param", "decision-tree:max_depth=1",
                  "--param", "sklearn.ensemble.ExtraTreesClassifier:n_estimators=20", "--folds", "3",
                  "--bootstrap", "200"], capsys)
    # a stump separates one iris species from the other two: about a third wrong
    assert d["models"]["decision-tree"]["estimate"]["error"] == pytest.approx(1 / 3, abs=0.02)


def test_table_with_categories_and_missing_values(tmp_path, capsys):
    rng = np.random.default_rng(0)
    n = 120
    colour = rng.choice(["red", "green", "blue"], n)
    size = rng.normal(size=n)
    y = np.where((colour == "red") ^ (size > 0.5), "yes", "no")
    rows = ["id,colour,size,constant,y"]
    for i in range(n):
        c = "" if i % 17 == 0 else colour[i]
        s = "" if i % 13 == 0 else f"{size[i]:.3f}"
        rows.append(f"row{i},{c},{s},1,{y[i]}")
    path = tmp_path / "data.csv"
    path.write_text("\n".join(rows) + "\n")
    d = run_json(["validate", str(path), "--target", "y", "--model", "decision-tree", "--model", "logistic",
                  "--folds", "5", "--bootstrap", "200"], capsys)
    described = " ".join(d["features"])
    assert "colour" in described and "imputed" in described and "dropped" in described
    assert d["models"]["decision-tree"]["n"] == n


def test_predictions_export_reads_back(tmp_path, capsys):
    out = tmp_path / "oof"
    d = run_json(["validate", "--dataset", "breast-cancer", "--model", "decision-tree", "--model", "naive-bayes",
                  "--predictions", str(out), "--bootstrap", "200"], capsys)
    files = sorted(p.name for p in out.iterdir())
    assert files == ["decision-tree.csv", "naive-bayes.csv"]
    header = (out / "naive-bayes.csv").read_text().splitlines()[0].split(",")
    assert header == ["id", "repeat", "fold", "truth", "predicted", "benign", "malignant"]
    report = run_json(["report", str(out / "naive-bayes.csv"), "--truth", "truth", "--proba", "benign,malignant",
                       "--positive", "malignant", "--bootstrap", "200"], capsys)
    nb = d["models"]["naive-bayes"]
    assert report["confusion"]["actual_by_predicted"] == nb["confusion"]["actual_by_predicted"]
    assert report["ranking"]["roc_auc"]["value"] == pytest.approx(nb["ranking"]["roc_auc"]["value"])
    cmp = run_json(["compare", str(out / "decision-tree.csv"), str(out / "naive-bayes.csv"), "--truth", "truth",
                    "--pred", "predicted", "--id", "id", "--bootstrap", "200"], capsys)
    mc = next(c for c in d["comparisons"] if c["test"] == "mcnemar")
    assert cmp["tests"]["mcnemar"]["statistic"] == pytest.approx(mc["statistic"])
    assert cmp["tests"]["mcnemar"]["pvalue"] == pytest.approx(mc["pvalue"])


@pytest.fixture
def pair(tmp_path):
    truth = ["a", "b"] * 30
    pred_a = ["a", "b"] * 25 + ["b", "a"] * 5
    pred_b = ["a", "a"] * 30
    score_a = [0.2, 0.8] * 25 + [0.7, 0.3] * 5
    score_b = [0.6, 0.6] * 30  # predicts b for everyone: half right, no ranking
    a, b = tmp_path / "A.csv", tmp_path / "B.csv"
    a.write_text("id,y,yhat,p\n" + "".join(f"{i},{t},{q},{s}\n" for i, (t, q, s) in
                                             enumerate(zip(truth, pred_a, score_a))))
    # B in reverse row order: only --id pairs them right
    rows = [f"{i},{t},{q},{s}\n" for i, (t, q, s) in enumerate(zip(truth, pred_b, score_b))]
    b.write_text("id,y,yhat,p\n" + "".join(reversed(rows)))
    return a, b


def test_compare_paired_contract(pair, capsys):
    a, b = pair
    d = run_json(["compare", str(a), str(b), "--truth", "y", "--score", "p", "--positive", "b", "--id", "id",
                  "--bootstrap", "200"], capsys)
    assert [m["name"] for m in d["models"]] == ["A", "B"]
    assert {"mcnemar", "accuracy_difference", "delong"} == set(d["tests"])
    for t in d["tests"].values():
        assert {"statistic", "pvalue", "ci", "method", "verdict"} <= set(t)
    assert d["models"][0]["accuracy"]["value"] == pytest.approx(50 / 60)
    assert d["models"][1]["accuracy"]["value"] == pytest.approx(30 / 60)


def test_compare_unpaired_is_seed004s_difference(pair, capsys):
    a, b = pair
    d = run_json(["compare", str(a), str(b), "--truth", "y", "--pred", "yhat", "--unpaired"], capsys)
    t = d["tests"]["difference"]
    assert {"difference", "ci", "pvalue", "significant", "threshold_confidence"} <= set(t)
    assert t["difference"] == pytest.approx(30 / 60 - 10 / 60)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["validate", "--model", "decision-tree"], "give a FILE with --target COL, or --dataset NAME"),
        (["validate", "--dataset", "iris", "--model", "nope"], "--model"),
        (["validate", "--dataset", "iris", "--model", "decision-tree", "--param", "depth=3"], "--param"),
        (["validate", "--dataset", "iris", "--model", "decision-tree", "--param", "knn:n_neighbors=3"],
         "--param: 'knn' is not one of the models"),
        (["validate", "--dataset", "iris", "--model", "decision-tree", "--folds", "80"], "--folds"),
        (["validate", "--dataset", "iris", "--model", "decision-tree", "--repeats", "3"], "--repeats"),
        (["validate", "--dataset", "iris", "--model", "decision-tree", "--method", "holdout", "--test-size", "1.5"],
         "--test-size"),
        (["validate", "--dataset", "iris", "--model", "decision-tree", "--grid", "max_depth"], "--grid"),
        (["validate", "--dataset", "iris", "--model", "sklearn.linear_model.LinearRegression"], "--model"),
        (["validate", "--dataset", "nope"], "Invalid value for '--dataset'"),
    ],
)
def test_validate_usage_errors(capsys, args, message):
    status, out, err = run(args, capsys)
    assert status == 2, out
    assert message in err and err.count("\n") == 1, err


def test_validate_file_errors(tmp_path, capsys):
    path = tmp_path / "d.csv"
    path.write_text("x,y\n1,a\n2,b\n")
    status, _, err = run(["validate", str(path), "--model", "zero-r"], capsys)
    assert status == 2 and "--target COL is required" in err
    status, _, err = run(["validate", str(path), "--target", "z", "--model", "zero-r"], capsys)
    assert status == 2 and "column 'z' is not in" in err


def test_compare_errors(pair, tmp_path, capsys):
    a, b = pair
    status, _, err = run(["compare", str(a), str(b), "--truth", "y", "--pred", "yhat"], capsys)
    assert status == 2 and "the truths differ at row 1" in err
    short = tmp_path / "short.csv"
    short.write_text("id,y,yhat,p\n0,a,a,0.1\n")
    status, _, err = run(["compare", str(a), str(short), "--truth", "y", "--pred", "yhat"], capsys)
    assert status == 2 and "pair them with --id COL" in err
    status, _, err = run(["compare", str(a), str(short), "--truth", "y", "--pred", "yhat", "--id", "id"], capsys)
    assert status == 2 and "is not in short" in err
    status, _, err = run(["compare", str(a), "--truth", "y", "--pred", "yhat"], capsys)
    assert status == 2 and "give two prediction files" in err


def test_demo_contract(capsys):
    d = run_json(["demo"], capsys)
    assert d["dataset"] == "breast-cancer" and d["method"] == "cv"
    assert list(d["models"]) == ["decision-tree", "naive-bayes", "adaboost"]
    assert {c["test"] for c in d["comparisons"]} >= {"cochran_q", "mcnemar", "delong"}


def test_three_models_get_holm_adjusted_pairwise_tests(capsys):
    d = run_json(["validate", "--dataset", "breast-cancer", "--model", "decision-tree", "--model", "naive-bayes",
                  "--model", "knn", "--folds", "5", "--bootstrap", "200"], capsys)
    from assay.inference.multiple import holm

    for test in ("mcnemar", "delong"):
        family = [c for c in d["comparisons"] if c["test"] == test]
        assert len(family) == 3
        expected = holm([c["pvalue"] for c in family])
        for c, p in zip(family, expected, strict=True):
            keys = list(c)
            assert keys[keys.index("pvalue") + 1] == "pvalue_holm"
            assert c["pvalue_holm"] == pytest.approx(p)
            assert c["significant"] == (p < 0.05)
            assert "after Holm's adjustment for 3 comparisons" in c["verdict"]
    assert all("pvalue_holm" not in c for c in d["comparisons"] if c["test"] in ("cochran_q",
                                                                                 "paired_bootstrap_accuracy"))
    assert any("Holm's method" in note for note in d["notes"])


def test_adjust_bonferroni_and_none(capsys):
    base = ["validate", "--dataset", "iris", "--model", "decision-tree", "--model", "naive-bayes", "--model", "knn",
            "--folds", "5", "--bootstrap", "200"]
    bonf = run_json([*base, "--adjust", "bonferroni"], capsys)
    plain = run_json([*base, "--adjust", "none"], capsys)
    for b, p in zip(bonf["comparisons"], plain["comparisons"], strict=True):
        assert "pvalue_holm" not in b and "pvalue_holm" not in p and "pvalue_bonferroni" not in p
        if b["test"] == "mcnemar":
            assert b["pvalue_bonferroni"] == pytest.approx(min(1.0, 3 * p["pvalue"]))
            assert "Bonferroni" in b["verdict"] and "adjust" not in p["verdict"]
    status, out, err = run([*base, "--adjust", "sidak"], capsys)
    assert status == 2 and "--adjust" in err


def test_holm_column_in_the_text_report(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "160")
    status, out, err = run(["validate", "--dataset", "iris", "--model", "decision-tree", "--model", "naive-bayes",
                            "--model", "knn", "--folds", "5", "--bootstrap", "200"], capsys)
    assert status == 0, err
    assert "Holm p" in out and "Holm-adjusted p" in out


def test_two_models_are_not_adjusted(capsys):
    d = run_json(["validate", "--dataset", "iris", "--model", "decision-tree", "--model", "naive-bayes",
                  "--folds", "5", "--bootstrap", "200"], capsys)
    assert all("pvalue_holm" not in c and "adjustment" not in c for c in d["comparisons"])
    assert not any("Holm" in note for note in d["notes"])


def test_several_datasets_add_a_friedman_section(capsys, tmp_path):
    argv = ["validate", "--dataset", "iris", "--dataset", "wine", "--dataset", "breast-cancer", "--model",
            "decision-tree", "--model", "naive-bayes", "--model", "knn", "--folds", "5", "--bootstrap", "200"]
    d = run_json([*argv, "--plots", str(tmp_path)], capsys)
    assert list(d["datasets"]) == ["iris", "wine", "breast-cancer"]
    f = d["friedman"]
    assert f["datasets"] == ["iris", "wine", "breast-cancer"] and f["models"] == ["decision-tree", "naive-bayes", "knn"]
    for i, name in enumerate(f["datasets"]):  # the scores are each data set's accuracy, 1 - the estimated error
        for j, model in enumerate(f["models"]):
            error = d["datasets"][name]["models"][model]["estimate"]["error"]
            assert f["scores"][i][j] == pytest.approx(1 - error)
    from scipy.stats import friedmanchisquare

    assert f["friedman"]["statistic"] == pytest.approx(friedmanchisquare(*np.array(f["scores"]).T).statistic)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["critical-difference.png", "critical-difference.svg"]
    status, out, err = run(argv, capsys)
    assert status == 0, err
    assert "Over the data sets: Friedman and Nemenyi" in out and "Critical-difference diagram" in out


def test_several_datasets_refuse_predictions(capsys, tmp_path):
    status, out, err = run(["validate", "--dataset", "iris", "--dataset", "wine", "--model", "decision-tree",
                            "--model", "naive-bayes", "--predictions", str(tmp_path / "p")], capsys)
    assert status == 2 and "--predictions applies to one data set" in err and out == ""
