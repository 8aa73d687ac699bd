"""The calculators end to end: assay interval, assay mcnemar, assay difference (seed 004 examples)."""

import json

import pytest

from assay.cli import main


def run(argv, capsys):
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_mcnemar_seed004(capsys):
    status, out, err = run(["mcnemar", "--table", "80", "40", "20", "60", "--format", "json"], capsys)
    assert status == 0, err
    d = json.loads(out)
    assert {"statistic", "pvalue", "method"} <= set(d)
    assert round(d["statistic"], 3) == 6.017 and round(d["pvalue"], 3) == 0.014
    assert d["method"] == "chi2-corrected" and d["significant"] is True
    status, out, _ = run(["mcnemar", "--table", "80", "40", "20", "60"], capsys)
    assert "is significant (p = 0.014)" in out


def test_mcnemar_exact_and_auto(capsys):
    _, out, _ = run(["mcnemar", "--table", "10", "5", "1", "10", "--method", "auto", "--format", "json"], capsys)
    d = json.loads(out)
    assert d["method"] == "exact" and d["statistic"] == 1.0


def test_difference_seed004(capsys):
    status, out, err = run(["difference", "--e1", "0.15", "--n1", "30", "--e2", "0.25", "--n2", "5000",
                            "--format", "json"], capsys)
    assert status == 0, err
    d = json.loads(out)
    assert {"difference", "ci", "pvalue", "significant", "threshold_confidence"} <= set(d)
    assert d["difference"] == pytest.approx(0.10)
    assert (d["ci"][1] - d["ci"][0]) / 2 == pytest.approx(0.128, abs=5e-4)
    assert d["significant"] is False
    assert round(d["threshold_confidence"], 4) == 0.8733
    status, out, _ = run(["difference", "--e1", "0.15", "--n1", "30", "--e2", "0.25", "--n2", "5000"], capsys)
    assert "not significant" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["mcnemar", "--table", "1", "2", "3"], "--table"),
        (["mcnemar", "--table", "1", "-2", "3", "4"], "--table"),
        (["mcnemar", "--table", "1", "2", "3", "4", "--confidence", "1"], "--confidence"),
        (["difference", "--e1", "1.5", "--n1", "30", "--e2", "0.2", "--n2", "50"], "--e1"),
        (["difference", "--e1", "0.1", "--n1", "0", "--e2", "0.2", "--n2", "50"], "--n1"),
        (["difference", "--e1", "0.1", "--n1", "30", "--e2", "0.2"], "--n2"),
    ],
)
def test_calculator_bad_input(capsys, args, message):
    status, out, err = run(args, capsys)
    assert status == 2
    assert message in err and err.count("\n") == 1
