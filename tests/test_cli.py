"""The command line, end to end through its real entry point.

Most tests call ``assay.cli.main(argv)`` in-process (the same function the
console script runs); a few run the installed ``assay`` script in a subprocess
to check exit statuses, streams and the absence of tracebacks for real.
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from assay.cli import main

DATA = Path(__file__).parent / "data"

CONTRACT_KEYS = {"task", "n", "labels", "positive", "threshold", "confidence", "confusion", "metrics",
                 "per_class", "averages", "ranking", "probabilistic"}
M_KEYS = {"value", "ci", "method", "note"}


def run(argv, capsys, stdin=None, monkeypatch=None):
    if stdin is not None:
        import io

        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def preds(tmp_path):
    path = tmp_path / "preds.csv"
    rows = ["y,yhat,p"]
    truth = ["pos"] * 100 + ["neg"] * 100
    pred = ["pos"] * 80 + ["neg"] * 20 + ["pos"] * 10 + ["neg"] * 90
    score = [0.9] * 80 + [0.2] * 20 + [0.7] * 10 + [0.1] * 90
    rows += [f"{t},{q},{s}" for t, q, s in zip(truth, pred, score)]
    path.write_text("\n".join(rows) + "\n")
    return path


def test_report_json_contract(preds, capsys):
    status, out, err = run(["report", str(preds), "--truth", "y", "--pred", "yhat", "--format", "json"], capsys)
    assert status == 0 and err == ""
    d = json.loads(out)
    assert CONTRACT_KEYS <= set(d)
    assert d["task"] == "binary" and d["n"] == 200
    assert d["labels"] == ["neg", "pos"] and d["positive"] == "pos"
    assert d["threshold"] is None and d["confidence"] == 0.95
    assert d["confusion"]["actual_by_predicted"] == [[90, 10], [20, 80]]
    for name in ("accuracy", "error_rate", "recall", "specificity", "precision", "npv", "fpr", "fnr", "fdr",
                 "f1", "balanced_accuracy", "mcc", "kappa", "prevalence"):
        assert set(d["metrics"][name]) == M_KEYS, name
    assert d["metrics"]["accuracy"]["value"] == 0.85
    assert d["metrics"]["accuracy"]["method"] == "wilson"
    assert d["metrics"]["recall"]["ci"][0] < 0.8 < d["metrics"]["recall"]["ci"][1]
    assert set(d["per_class"]["pos"]) >= {"precision", "recall", "f1", "support"}
    assert d["per_class"]["pos"]["support"] == 100
    assert set(d["averages"]) == {"micro", "macro", "weighted"}
    for group in d["averages"].values():
        assert set(group) >= {"precision", "recall", "f1"}


def test_report_score_threshold(preds, capsys):
    status, out, _ = run(["report", str(preds), "--truth", "y", "--score", "p", "--threshold", "0.5",
                          "--positive", "pos", "--format", "json"], capsys)
    assert status == 0
    d = json.loads(out)
    assert d["threshold"] == 0.5
    assert d["confusion"]["actual_by_predicted"] == [[90, 10], [20, 80]]


def test_report_threshold_is_inclusive(preds, capsys):
    # positive iff score >= threshold (seed 000): at 0.7 the ten 0.7 negatives are positive
    _, out, _ = run(["report", str(preds), "--truth", "y", "--score", "p", "--threshold", "0.7",
                     "--positive", "pos", "--format", "json"], capsys)
    assert json.loads(out)["confusion"]["actual_by_predicted"] == [[90, 10], [20, 80]]
    _, out, _ = run(["report", str(preds), "--truth", "y", "--score", "p", "--threshold", "0.71",
                     "--positive", "pos", "--format", "json"], capsys)
    assert json.loads(out)["confusion"]["actual_by_predicted"] == [[100, 0], [20, 80]]


def test_report_text_labels_both_axes_and_speaks_in_words(preds, capsys):
    status, out, _ = run(["report", str(preds), "--truth", "y", "--pred", "yhat"], capsys)
    assert status == 0
    assert "actual \\ predicted" in out
    assert "rows: actual class" in out
    assert "Wilson" in out and "95% CI" in out
    assert "Of the 100 actual 'pos', the classifier found 80" in out
    assert "\x1b[" not in out  # no colour codes when not a terminal


def test_report_markdown(preds, capsys):
    status, out, _ = run(["report", str(preds), "--truth", "y", "--pred", "yhat", "--format", "markdown"], capsys)
    assert status == 0
    assert out.startswith("# assay report")
    assert "| actual \\\\ predicted | neg | pos | total |" in out
    assert "| Accuracy | 85.0% | 79.4 – 89.3% | Wilson |" in out


def test_report_undefined_metric_is_null_with_note(tmp_path, capsys):
    path = tmp_path / "p.csv"
    path.write_text("y,yhat\n" + "a,a\n" * 5 + "b,a\n" * 3)
    status, out, _ = run(["report", str(path), "--truth", "y", "--pred", "yhat", "--positive", "b",
                          "--format", "json"], capsys)
    assert status == 0
    d = json.loads(out)
    assert d["metrics"]["precision"] == {"value": None, "ci": None, "method": None,
                                         "note": "no predicted positives ('b')"}
    status, out, _ = run(["report", str(path), "--truth", "y", "--pred", "yhat", "--positive", "b"], capsys)
    assert "undefined" in out


def test_report_multiclass_proba(capsys):
    status, out, _ = run(["report", str(DATA / "hpc_cv.csv"), "--truth", "obs", "--proba", "VF,F,M,L",
                          "--format", "json"], capsys)
    assert status == 0
    d = json.loads(out)
    assert d["task"] == "multiclass" and d["positive"] is None
    assert d["labels"] == ["F", "L", "M", "VF"]
    assert set(d["metrics"]) >= {"accuracy", "error_rate", "kappa", "mcc"}
    assert set(d["per_class"]) == {"F", "L", "M", "VF"}


def test_report_confusion_file(tmp_path, capsys):
    path = tmp_path / "m.csv"
    path.write_text("actual\\predicted,a,b,c\na,88,10,2\nb,14,40,6\nc,18,10,12\n")
    status, out, _ = run(["report", "--confusion", str(path), "--format", "json"], capsys)
    assert status == 0
    d = json.loads(out)
    assert round(d["metrics"]["kappa"]["value"], 4) == 0.4915
    assert d["confusion"]["actual_by_predicted"] == [[88, 10, 2], [14, 40, 6], [18, 10, 12]]


def test_report_confusion_file_columns_in_another_order(tmp_path, capsys):
    path = tmp_path / "m.csv"
    path.write_text(",pos,neg\nneg,10,90\npos,80,20\n")
    _, out, _ = run(["report", "--confusion", str(path), "--positive", "pos", "--format", "json"], capsys)
    d = json.loads(out)
    assert d["labels"] == ["neg", "pos"]
    assert d["confusion"]["actual_by_predicted"] == [[90, 10], [20, 80]]


def test_report_stdin(preds, capsys, monkeypatch):
    status, out, _ = run(["report", "-", "--truth", "y", "--pred", "yhat", "--format", "json"], capsys,
                         stdin=preds.read_text(), monkeypatch=monkeypatch)
    assert status == 0
    assert json.loads(out)["n"] == 200


def test_report_output_file_atomic(preds, tmp_path, capsys):
    out_path = tmp_path / "r.json"
    out_path.write_text("old")
    status, out, _ = run(["report", str(preds), "--truth", "y", "--pred", "yhat", "--format", "json",
                          "-o", str(out_path)], capsys)
    assert status == 0 and out == ""
    assert json.loads(out_path.read_text())["n"] == 200
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".assay-")] == []


def test_seed_is_reproducible_and_changes_bootstrap(preds, capsys):
    args = ["report", str(preds), "--truth", "y", "--pred", "yhat", "--format", "json"]
    _, a, _ = run(args, capsys)
    _, b, _ = run(args, capsys)
    _, c, _ = run(args + ["--seed", "7"], capsys)
    assert a == b
    assert json.loads(a)["metrics"]["f1"]["ci"] != json.loads(c)["metrics"]["f1"]["ci"]


@pytest.mark.parametrize(
    ("content", "args", "message"),
    [
        ("y,yhat\na,a\nb,\n", ["--pred", "yhat"], "column 'yhat' row 2: missing value"),
        ("y,yhat\na,a\n,b\n", ["--pred", "yhat"], "column 'y' row 2: missing value"),
        ("y,s\na,0.1\nb,high\n", ["--score", "s"], "column 's' row 2: 'high' is not a number"),
        ("y,s\na,0.1\nb,inf\n", ["--score", "s"], "column 's' row 2: inf is not a finite number"),
        ("y,s\na,0.1\nb,\n", ["--score", "s"], "column 's' row 2: missing value"),
        ("y,yhat\na,a\na,b\n", ["--pred", "yhat"], "column 'y': has a single class ('a')"),
        ("y,yhat\na,a\nb,b\n", ["--pred", "yhat", "--positive", "c"], "--positive: 'c' is not one of the classes"),
        ("y,yhat\na,a\nb,b\n", ["--pred", "nope"], "column 'nope' is not in"),
        ("y,yhat\na,a\nb,b\n", ["--pred", "yhat", "--threshold", "0.5"], "--threshold"),
        ("y,a,b\na,0.5,0.5\nc,0.2,0.8\n", ["--proba", "a,b"], "column 'y' row 2: 'c' is not one of the classes"),
        ("y,a,b\na,0.5,0.5\nb,0.2,1.8\n", ["--proba", "a,b"], "column 'b' row 2: 1.8 is not a probability in [0, 1]"),
        ("y,yhat\na,a\nb,b,c\n", ["--pred", "yhat"], "cannot be read as CSV"),
        ("y,yhat\n", ["--pred", "yhat"], "has a header but no rows"),
        ("", ["--pred", "yhat"], "is empty"),
    ],
)
def test_bad_input_gets_exit_2_and_one_line(tmp_path, capsys, content, args, message):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    status, out, err = run(["report", str(path), "--truth", "y", *args], capsys)
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("assay: error: ")
    assert message in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["report"], "give a FILE of predictions"),
        (["report", "x.csv", "--pred", "p"], "--truth COL is required"),
        (["report", "x.csv", "--truth", "y"], "give exactly one of --pred, --score or --proba"),
        (["report", "nonexistent.csv", "--truth", "y", "--pred", "p"], "nonexistent.csv: no such file"),
        (["report", "x.csv", "--truth", "y", "--pred", "p", "--confidence", "abc"], "Invalid value for '--confidence'"),
        (["report", "x.csv", "--truth", "y", "--pred", "p", "--nope"], "No such option"),
        (["interval", "--successes", "5", "--n", "3"], "--successes: 5 is more than n = 3"),
        (["interval", "--n", "3"], "give exactly one of --successes K or --rate F"),
        (["interval", "--rate", "0.33", "--n", "10"], "is not a whole number of successes"),
        (["report", "--confusion", "m.csv", "x.csv"], "--confusion takes a matrix file instead of FILE"),
    ],
)
def test_usage_errors_exit_2(tmp_path, capsys, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.csv").write_text("y,p\na,a\nb,b\n")
    status, out, err = run(args, capsys)
    assert status == 2
    assert message in err
    assert err.count("\n") == 1


def test_confidence_out_of_range_is_named(preds, capsys):
    status, _, err = run(["report", str(preds), "--truth", "y", "--pred", "yhat", "--confidence", "1.5"], capsys)
    assert status == 2 and "--confidence: must be between 0 and 1" in err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (",a,b\na,1,2\nb,3\n", "row 3: 2 cells, but the first row has 3"),
        (",a,b\na,1,2\nb,3,x\n", "row 3 (actual 'b'), column 'b': 'x' is not a whole count"),
        (",a,b\na,1,2\nb,3,-1\n", "is not a whole count"),
        (",a,b\na,1,2\nc,3,4\n", "rows and columns must name the same classes"),
        (",a\na,1\n", "at least two predicted classes"),
        (",a,b\na,1,2\nb,0,0\n", "every instance is of class 'a'"),
    ],
)
def test_bad_confusion_file(tmp_path, capsys, content, message):
    path = tmp_path / "m.csv"
    path.write_text(content)
    status, _, err = run(["report", "--confusion", str(path)], capsys)
    assert status == 2
    assert message in err


def test_interval_seed_examples(capsys):
    status, out, _ = run(["interval", "--successes", "80", "--n", "100", "--format", "json"], capsys)
    d = json.loads(out)
    assert status == 0
    assert set(d) == {"successes", "n", "estimate", "confidence", "method", "ci"}
    assert (round(d["ci"][0], 3), round(d["ci"][1], 3)) == (0.711, 0.867)
    _, out, _ = run(["interval", "--rate", "0.25", "--n", "100", "--confidence", "0.8", "--format", "json"], capsys)
    d = json.loads(out)
    assert (round(d["ci"][0], 3), round(d["ci"][1], 3)) == (0.199, 0.309)
    _, out, _ = run(["interval", "--successes", "80", "--n", "100"], capsys)
    assert "With 95% confidence, the true rate lies between 71.1% and 86.7%" in out


@pytest.mark.parametrize("method", ["wilson", "clopper-pearson", "agresti-coull", "jeffreys", "normal"])
def test_interval_methods(capsys, method):
    status, out, _ = run(["interval", "-k", "40", "-n", "50", "--method", method, "--format", "json"], capsys)
    assert status == 0 and json.loads(out)["method"] == method


def test_help_shows_an_example(capsys):
    for command in (["--help"], ["report", "--help"], ["interval", "--help"], ["demo", "--help"]):
        status, out, _ = run(command, capsys)
        assert status == 0
        assert "assay" in out and ("Example" in out or "Start with" in out)


def _script():
    exe = shutil.which("assay")
    return [exe] if exe else [sys.executable, "-m", "assay"]


def test_real_process_bad_input_has_no_traceback(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("y,s\na,0.1\nb,high\n")
    proc = subprocess.run([*_script(), "report", str(path), "--truth", "y", "--score", "s"],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == "assay: error: column 's' row 2: 'high' is not a number\n"


def test_real_process_json_and_python_m(preds):
    proc = subprocess.run([sys.executable, "-m", "assay", "report", str(preds), "--truth", "y", "--pred", "yhat",
                           "--format", "json"], capture_output=True, text=True)
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["n"] == 200
