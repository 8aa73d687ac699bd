"""The command line with scores and probabilities: ranking, probabilistic, curves, regression.

End to end through ``assay.cli.main``; the numbers themselves are checked against
references in test_ranking_reference.py, test_probabilistic.py and test_regression.py.
"""

import json
from pathlib import Path

import numpy as np
import pytest
from sklearn import metrics as skm

from assay.cli import main

DATA = Path(__file__).parent / "data"
TWO = str(DATA / "two_class_example.csv")
HPC = str(DATA / "hpc_cv.csv")
ASAH = str(DATA / "asah.csv")
M_KEYS = {"value", "ci", "method", "note"}


def run(argv, capsys):
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_ranking_and_probabilistic_sections_in_json(capsys):
    status, out, err = run(["report", TWO, "--truth", "truth", "--score", "Class1", "--format", "json"], capsys)
    assert status == 0, err
    d = json.loads(out)
    r = d["ranking"]
    for key in ("roc_auc", "average_precision", "pr_auc", "gini", "lift"):
        assert M_KEYS <= set(r[key]), key
    assert round(r["roc_auc"]["value"], 3) == 0.939  # yardstick's published roc_auc(two_class_example)
    assert r["roc_auc"]["method"] == "delong"
    assert r["roc_hull"]["fpr"][0] == 0.0 and r["roc_hull"]["tpr"][-1] == 1.0
    assert set(r["best_thresholds"]) == {"youden", "closest_to_corner", "min_expected_cost"}
    p = d["probabilistic"]
    for key in ("quadratic_loss", "absolute_loss", "information_loss_bits", "brier", "log_loss",
                "relative_quadratic_loss", "relative_absolute_loss"):
        assert M_KEYS <= set(p[key]), key
    assert p["prior"]["source"] == "test data"
    assert "calibration" in p and len(p["calibration"]["bins"]) == 10


def test_multiclass_ranking_has_hand_till(capsys):
    status, out, err = run(["report", HPC, "--truth", "obs", "--proba", "VF,F,M,L", "--format", "json",
                            "--bootstrap", "200"], capsys)
    assert status == 0, err
    r = json.loads(out)["ranking"]
    assert round(r["hand_till"]["value"], 3) == 0.829
    assert set(r["roc_auc_ovr"]) == {"VF", "F", "M", "L"}
    assert r["hand_till"]["ci"] is not None


def test_costs_and_prevalence_move_the_cheapest_threshold(capsys):
    base = ["report", TWO, "--truth", "truth", "--score", "Class1", "--format", "json"]
    _, out, _ = run(base, capsys)
    equal = json.loads(out)["ranking"]
    _, out, _ = run(base + ["--costs", "fp=1,fn=10"], capsys)
    costly_misses = json.loads(out)["ranking"]
    assert costly_misses["iso_performance"]["slope"] < equal["iso_performance"]["slope"]
    assert (costly_misses["best_thresholds"]["min_expected_cost"]["threshold"]
            <= equal["best_thresholds"]["min_expected_cost"]["threshold"])
    _, out, _ = run(base + ["--prevalence", "0.05"], capsys)
    rare = json.loads(out)["ranking"]
    assert rare["deployment_prevalence"] == 0.05 and rare["deployment_prevalence_source"] == "given"
    assert rare["iso_performance"]["slope"] == pytest.approx(0.95 / 0.05)


def test_partial_auc_and_bootstrap_auc(capsys):
    _, out, _ = run(["report", ASAH, "--truth", "outcome", "--score", "s100b", "--positive", "Poor",
                     "--threshold", "0.2", "--fpr-range", "0.01,0.1", "--auc-interval", "bootstrap",
                     "--format", "json"], capsys)
    r = json.loads(out)["ranking"]
    assert round(r["partial_auc"]["value"], 5) == 0.02983  # pROC, partial.auc = c(0.99, 0.9)
    assert r["roc_auc"]["method"] == "bootstrap-percentile"
    assert r["roc_auc"]["ci"][0] < 0.7314 < r["roc_auc"]["ci"][1]


def test_text_report_speaks_about_ranking_and_losses(capsys):
    status, out, _ = run(["report", TWO, "--truth", "truth", "--score", "Class1"], capsys)
    assert status == 0
    assert "Ranking (from the scores" in out and "DeLong" in out
    assert "The scores rank a random positive above a random negative 93.9% of the time" in out
    assert "Probabilistic predictions" in out and "Calibration" in out


@pytest.mark.parametrize("kind", ["roc", "pr", "lift", "thresholds", "hull"])
def test_curves_csv_and_json(capsys, kind):
    status, out, err = run(["curves", TWO, "--truth", "truth", "--score", "Class1", "--kind", kind], capsys)
    assert status == 0, err
    header, *rows = out.strip().splitlines()
    assert header.split(",")[0] == "threshold"
    assert len(rows) >= 3
    status, out, _ = run(["curves", TWO, "--truth", "truth", "--score", "Class1", "--kind", kind,
                          "--format", "json"], capsys)
    d = json.loads(out)
    assert d["kind"] == kind and d["positive"] == "Class1"


def test_curves_roc_equals_sklearn(capsys):
    import pyarrow.csv as pcsv

    table = pcsv.read_csv(TWO)
    y = np.array(table["truth"].to_pylist()) == "Class1"
    s = np.asarray(table["Class1"])
    _, out, _ = run(["curves", TWO, "--truth", "truth", "--score", "Class1", "--format", "json"], capsys)
    cols = json.loads(out)["columns"]
    fpr, tpr, thr = skm.roc_curve(y, s, drop_intermediate=False)
    assert np.allclose(cols["fpr"], fpr) and np.allclose(cols["tpr"], tpr)
    assert cols["threshold"][0] is None and np.allclose(cols["threshold"][1:], thr[1:])


def test_curves_threshold_table_at_given_thresholds(capsys):
    _, out, _ = run(["curves", ASAH, "--truth", "outcome", "--score", "s100b", "--positive", "Poor",
                     "--kind", "thresholds", "--at", "0.1,0.2,0.5"], capsys)
    header, *rows = out.strip().splitlines()
    assert len(rows) == 3
    assert header.startswith("threshold,tp,fp,fn,tn,recall,fpr")


def test_curves_output_file(tmp_path, capsys):
    path = tmp_path / "roc.csv"
    status, out, _ = run(["curves", TWO, "--truth", "truth", "--score", "Class1", "-o", str(path)], capsys)
    assert status == 0 and out == ""
    assert path.read_text().startswith("threshold,fpr,tpr")


def test_regression_report(tmp_path, capsys):
    path = tmp_path / "reg.csv"
    path.write_text("actual,forecast\n2.5,3\n4,4.2\n6.1,5\n8,10\n10,9.5\n3,2.5\n7.2,7\n")
    status, out, err = run(["report", str(path), "--truth", "actual", "--pred", "forecast", "--format", "json",
                            "--bootstrap", "200"], capsys)
    assert status == 0, err
    d = json.loads(out)
    assert d["task"] == "regression" and d["n"] == 7
    a = np.array([2.5, 4, 6.1, 8, 10, 3, 7.2])
    p = np.array([3, 4.2, 5, 10, 9.5, 2.5, 7])
    assert d["metrics"]["mse"]["value"] == pytest.approx(skm.mean_squared_error(a, p), abs=1e-12)
    assert d["metrics"]["mae"]["value"] == pytest.approx(skm.mean_absolute_error(a, p), abs=1e-12)
    assert "non-integer numbers" in d["notes"][0]
    status, out, _ = run(["report", str(path), "--truth", "actual", "--pred", "forecast", "--bootstrap", "200"],
                         capsys)
    assert "Predictions are off by" in out
    status, out, _ = run(["report", str(path), "--truth", "actual", "--pred", "forecast", "--format", "markdown",
                          "--bootstrap", "200"], capsys)
    assert out.startswith("# assay report") and "| Mean squared error |" in out


@pytest.mark.parametrize("args, flag", [(["--threshold", "0.3"], "--threshold"), (["--costs", "fp=1,fn=2"], "--costs"),
                                        (["--interval", "clopper-pearson"], "--interval"),
                                        (["--positive", "3"], "--positive"),
                                        (["--confidence", "0.9", "--cost-matrix", "m.csv"], "--cost-matrix")])
def test_a_classifier_option_is_refused_for_a_regression(tmp_path, capsys, args, flag):
    """A regression's report applies --confidence, --bootstrap and --seed; any other option is one line, not
    silently dropped (auto-detected: it also says how to read the predictions as labels)."""
    path = tmp_path / "reg.csv"
    path.write_text("actual,forecast\n2.5,3\n4,4.2\n6.1,5\n8,10\n10,9.5\n3,2.5\n7.2,7\n")
    (tmp_path / "m.csv").write_text(",a,b\na,0,1\nb,1,0\n")
    for task, said in ((["--task", "regression"], "asked with --task regression"),
                       ([], "give --task classification")):
        given = [str(tmp_path / a) if a == "m.csv" else a for a in args]
        status, out, err = run(["report", str(path), "--truth", "actual", "--pred", "forecast", *task, *given],
                               capsys)
        assert (status, out) == (2, ""), err
        assert err.startswith(f"assay: error: {flag} applies to"), err  # auto: --threshold is refused for labels
        assert said in err or (not task and flag == "--threshold"), err
        assert err.count("\n") == 1


def test_integer_truth_stays_classification_unless_asked(tmp_path, capsys):
    path = tmp_path / "ints.csv"
    path.write_text("y,yhat\n1,1\n2,2\n3,1\n1,1\n2,3\n")
    _, out, _ = run(["report", str(path), "--truth", "y", "--pred", "yhat", "--format", "json"], capsys)
    assert json.loads(out)["task"] == "multiclass"
    _, out, _ = run(["report", str(path), "--truth", "y", "--pred", "yhat", "--format", "json", "--task",
                     "regression", "--bootstrap", "200"], capsys)
    assert json.loads(out)["task"] == "regression"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--score", "Class1", "--costs", "fp=1,fn"], "--costs: 'fn' is not of the form name=number"),
        (["--score", "Class1", "--costs", "fp=1,xx=2"], "--costs: 'xx' is not one of fp, fn, tp, tn"),
        (["--score", "Class1", "--costs", "fp=a"], "--costs: 'a' is not a number"),
        (["--score", "Class1", "--costs", "fp=0,fn=1,tn=1"], "--costs: an error must cost more"),
        (["--score", "Class1", "--prevalence", "1.5"], "--prevalence: must be a share strictly between 0 and 1"),
        (["--score", "Class1", "--fpr-range", "0.5"], "--fpr-range: '0.5' is not two comma-separated numbers"),
        (["--score", "Class1", "--fpr-range", "0.5,0.1"], "--fpr-range: must satisfy 0 <= low < high <= 1"),
        (["--score", "Class1", "--prior", "Class1=0.5,Nope=0.5"], "--prior"),
        (["--score", "Class1", "--bins", "0"], "--bins"),
        (["--score", "Class1", "--lift-depth", "0"], "--lift-depth: must be in (0, 1]"),
        (["--pred", "predicted", "--task", "regression"], "holds values that are not numbers"),
        (["--score", "Class1", "--task", "regression"], "--task regression compares --truth with --pred"),
    ],
)
def test_bad_options_exit_2(capsys, args, message):
    status, out, err = run(["report", TWO, "--truth", "truth", *args], capsys)
    assert status == 2, out
    assert message in err, err
    assert err.count("\n") == 1


def test_curves_bad_usage(capsys):
    status, _, err = run(["curves", TWO, "--truth", "truth", "--pred", "predicted"], capsys)
    assert status == 2 and "--pred does not apply here" in err
    status, out, err = run(["curves", HPC, "--truth", "obs", "--proba", "VF,F,M,L"], capsys)
    assert status == 0 and out.splitlines()[0] == "class,threshold,fpr,tpr"  # every class, one vs rest
    status, _, err = run(["curves", HPC, "--truth", "obs", "--proba", "VF,F,M,L", "--kind", "lift"], capsys)
    assert status == 2 and "--kind lift" in err
    status, _, err = run(["curves", TWO, "--truth", "truth", "--score", "Class1", "--kind", "thresholds",
                          "--at", "a,b"], capsys)
    assert status == 2 and "--at" in err
