"""The normal table (assay.critical_z, assay.normal_table, ``assay z``) and the warning on the normal (Wald)
interval where it fails.

Oracles: scipy.stats.norm (to 1e-12, relative); the tables of Witten & Frank (Data Mining, ch. 5: P(X >= z)
against z) and Mitchell (Machine Learning, ch. 5: two-sided N% against z_N), printed to two decimals.
"""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

import assay
from assay.cli import main
from assay.errors import InvalidInput


def run(argv, capsys):
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("confidence", [0.5, 0.68, 0.8, 0.9, 0.95, 0.98, 0.99, 0.999, 1e-6, 1 - 1e-9])
def test_two_sided_z_is_scipy(confidence):
    assert assay.critical_z(confidence) == pytest.approx(norm.isf((1 - confidence) / 2), rel=1e-12)
    if confidence <= 0.999:
        assert assay.critical_z(confidence) == pytest.approx(norm.ppf((1 + confidence) / 2), rel=1e-12)


@pytest.mark.parametrize("confidence", [0.5, 0.8, 0.9, 0.95, 0.99, 0.999, 0.3, 1e-3])
def test_one_sided_z_is_scipy(confidence):
    assert assay.critical_z(confidence, two_sided=False) == pytest.approx(norm.ppf(confidence), rel=1e-12,
                                                                          abs=1e-15)


@settings(max_examples=30, deadline=None)
@given(confidence=st.floats(0.001, 0.999999), two_sided=st.booleans())
def test_z_and_confidence_invert_each_other(confidence, two_sided):
    z = assay.critical_z(confidence, two_sided=two_sided)
    expected = norm.isf((1 - confidence) / 2) if two_sided else norm.ppf(confidence)
    assert z == pytest.approx(expected, rel=1e-12, abs=1e-15)
    assert assay.z_confidence(z, two_sided=two_sided) == pytest.approx(confidence, rel=1e-12)


@settings(max_examples=30, deadline=None)
@given(low=st.floats(0.01, 0.98), step=st.floats(0.001, 0.5))
def test_z_grows_with_the_confidence(low, step):
    high = min(low + step, 0.999)
    assert assay.critical_z(low) < assay.critical_z(high)


# Witten & Frank, ch. 5: P(X >= z) -> z
WITTEN_FRANK = [(0.001, 3.09), (0.005, 2.58), (0.01, 2.33), (0.05, 1.65), (0.10, 1.28), (0.20, 0.84), (0.40, 0.25)]
# Mitchell, ch. 5: two-sided confidence N% -> z_N
MITCHELL = [(0.50, 0.67), (0.68, 1.00), (0.80, 1.28), (0.90, 1.64), (0.95, 1.96), (0.98, 2.33), (0.99, 2.58)]


@pytest.mark.parametrize(("tail", "z"), WITTEN_FRANK)
def test_witten_frank_table(tail, z):
    """Their P(X >= z) is the one-sided tail: a two-sided interval at 1 - 2 tail."""
    assert assay.critical_z(1 - 2 * tail) == pytest.approx(z, abs=0.006)
    assert assay.normal_table(1 - 2 * tail).upper_tail == pytest.approx(tail, rel=1e-12)


@pytest.mark.parametrize(("confidence", "z"), MITCHELL)
def test_mitchell_table(confidence, z):
    assert assay.critical_z(confidence) == pytest.approx(z, abs=0.006)


def test_normal_table_both_ways():
    e = assay.normal_table(0.9)
    assert e.solved_for == "z" and e.two_sided and e.z == pytest.approx(1.6448536269514722, rel=1e-12)
    e = assay.normal_table(z=1.53)
    assert e.solved_for == "confidence"
    assert e.two_sided_confidence == pytest.approx(1 - 2 * norm.sf(1.53), rel=1e-12)
    assert e.one_sided_confidence == pytest.approx(norm.cdf(1.53), rel=1e-12)
    e = assay.normal_table(z=1.53, two_sided=False)
    assert e.confidence == pytest.approx(norm.cdf(1.53), rel=1e-12)


@pytest.mark.parametrize(("kwargs", "field"), [({"confidence": 1.5}, "confidence"), ({"confidence": 0}, "confidence"),
                                               ({"z": float("nan")}, "z"), ({}, None),
                                               ({"confidence": 0.9, "z": 1.0}, None)])
def test_normal_table_refusals(kwargs, field):
    with pytest.raises(InvalidInput) as e:
        assay.normal_table(**kwargs)
    assert e.value.field == field


# ----------------------------------------------------------------------------
# assay z


def test_cli_z_of_a_confidence(capsys):
    status, out, err = run(["z", "--confidence", "0.9", "--format", "json"], capsys)
    assert status == 0, err
    d = json.loads(out)
    assert d["z"] == pytest.approx(norm.ppf(0.95), rel=1e-12) and d["two_sided"] is True
    assert {"z", "confidence", "two_sided_confidence", "one_sided_confidence", "method", "sentence"} <= set(d)
    status, out, _ = run(["z", "--confidence", "0.9"], capsys)
    assert status == 0 and "1.6449" in out and "±1.645" in out


def test_cli_one_sided(capsys):
    status, out, _ = run(["z", "--confidence", "0.95", "--one-sided", "--format", "json"], capsys)
    assert status == 0
    assert json.loads(out)["z"] == pytest.approx(norm.ppf(0.95), rel=1e-12)


def test_cli_confidence_of_a_z(capsys):
    status, out, _ = run(["z", "--z", "1.53", "--format", "json"], capsys)
    d = json.loads(out)
    assert status == 0 and d["solved_for"] == "confidence"
    assert d["two_sided_confidence"] == pytest.approx(0.8739832710720431, rel=1e-12)
    assert d["one_sided_confidence"] == pytest.approx(norm.cdf(1.53), rel=1e-12)
    status, out, _ = run(["z", "--z", "1.53"], capsys)
    assert "87.3983%" in out and "93.6992%" in out


def test_cli_z_markdown(capsys):
    status, out, _ = run(["z", "--confidence", "0.95", "--format", "markdown"], capsys)
    assert status == 0 and "1.9600" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["z"], "give exactly one of --confidence C or --z Z"),
    (["z", "--confidence", "0.9", "--z", "1"], "give exactly one"),
    (["z", "--confidence", "1.5"], "--confidence"),
    (["z", "--z", "nan"], "--z"),
])
def test_cli_z_refusals(capsys, tmp_path, argv, message):
    path = tmp_path / "z.json"
    status, out, err = run([*argv, "-o", str(path)], capsys)
    assert status == 2 and out == "" and message in err and err.count("\n") == 1
    assert not path.exists()


def test_cli_z_help(capsys):
    status, out, _ = run(["z", "--help"], capsys)
    assert status == 0 and "Example" in out and "assay z --confidence 0.9" in out


# ----------------------------------------------------------------------------
# the normal approximation where it fails: Mitchell's rules of thumb (1997, ch. 5), n >= 30 and
# n·p(1 - p) >= 5; for McNemar's chi-squared, b + c >= 25 (the usual rule). Issue 18.12: only
# `interval --method normal` warned, and only below n·p = 5.


@pytest.mark.parametrize(("k", "n", "words"), [
    (3, 100, "n·p(1 − p) = 2.91 < 5"), (97, 100, "n·p(1 − p) = 2.91 < 5"),
    (0, 10, "n = 10 < 30 and n·p(1 − p) = 0 < 5"), (10, 20, "n = 20 < 30"), (4, 8, "n = 8 < 30"),
])
def test_wald_note(k, n, words):
    r = assay.proportion_ci(k, n, method="normal")
    assert r.note is not None and words in r.note and "Wilson or Clopper-Pearson" in r.note
    assert "Mitchell 1997, ch. 5" in r.note and "n ≥ 30 and n·p(1 − p) ≥ 5" in r.note
    assert r.to_dict()["note"] == r.note


@pytest.mark.parametrize(("k", "n", "method"), [(15, 30, "normal"), (50, 100, "normal"), (3, 100, "wilson"),
                                                (3, 100, "clopper-pearson")])
def test_no_wald_note(k, n, method):
    r = assay.proportion_ci(k, n, method=method)
    assert r.note is None and "note" not in r.to_dict()


def test_cli_interval_warns(capsys):
    status, out, err = run(["interval", "-k", "3", "-n", "100", "--method", "normal"], capsys)
    assert status == 0, err
    assert "Warning: the normal approximation is unreliable here: n·p(1 − p) = 2.91 < 5" in out
    status, out, _ = run(["interval", "-k", "3", "-n", "100", "--method", "normal", "--format", "json"], capsys)
    assert "unreliable" in json.loads(out)["note"]
    status, out, _ = run(["interval", "-k", "3", "-n", "100"], capsys)
    assert "unreliable" not in out
    status, out, _ = run(["interval", "-k", "50", "-n", "100", "--method", "normal", "--format", "markdown"], capsys)
    assert "unreliable" not in out


def _three_ways(argv, capsys):
    """The text, the Markdown and the JSON of one command."""
    outputs = []
    for fmt in ("text", "markdown", "json"):
        status, out, err = run([*argv, "--format", fmt], capsys)
        assert status == 0, err
        outputs.append(out)
    return outputs[0], outputs[1], json.loads(outputs[2])


def test_difference_warns_on_small_test_sets(capsys):
    """`assay difference` with n1 = n2 = 10 said nothing."""
    text, markdown, d = _three_ways(["difference", "--e1", "0.1", "--n1", "10", "--e2", "0.3", "--n2", "10"], capsys)
    for out in (text, markdown, d["note"]):
        assert "normal approximation is unreliable here: n1 = 10 < 30" in out
        assert "Wilson or Clopper-Pearson" in out and "Mitchell 1997, ch. 5" in out
    _, _, large = _three_ways(["difference", "--e1", "0.3", "--n1", "100", "--e2", "0.4", "--n2", "200"], capsys)
    assert large["note"] is None
    assert assay.error_difference(0.15, 30, 0.25, 5000).note.count("n1·e1(1 − e1) = 3.82 < 5") == 1


def test_mcnemar_chi_squared_warns_below_25_discordant_pairs(capsys):
    """`assay mcnemar` used the chi-squared approximation at b + c = 7 without a word."""
    text, markdown, d = _three_ways(["mcnemar", "--table", "10", "4", "3", "20"], capsys)
    for out in (text, markdown, d["note"]):
        assert "chi-squared approximation is unreliable here: b + c = 7 < 25" in out
        assert "usual rule of thumb" in out and "exact binomial test" in out
    for argv in (["--table", "10", "4", "3", "20", "--method", "exact"], ["--table", "80", "40", "20", "60"]):
        text, _, d = _three_ways(["mcnemar", *argv], capsys)
        assert "note" not in d and "unreliable" not in text
    assert assay.mcnemar([[0, 4], [3, 0]], method="chi2").note is not None
    assert assay.mcnemar([[0, 4], [3, 0]], method="auto").note is None


def test_report_interval_normal_warns(tmp_path, capsys):
    """`assay report --interval normal` on 5 instances said nothing."""
    path = tmp_path / "five.csv"
    path.write_text("y,yhat\n1,1\n0,0\n1,0\n0,0\n1,1\n")
    argv = ["report", str(path), "--truth", "y", "--pred", "yhat", "--interval", "normal"]
    text, markdown, d = _three_ways(argv, capsys)
    for out in (text, markdown):
        assert "Warning: Accuracy: the normal approximation is unreliable here: n = 5 < 30" in out
    assert "n = 5 < 30" in d["metrics"]["accuracy"]["note"] and d["metrics"]["accuracy"]["method"] == "normal"
    assert "n = 3 < 30" in d["metrics"]["recall"]["note"]
    text, _, d = _three_ways(argv[:-2], capsys)  # Wilson's: no warning
    assert "normal approximation is unreliable here: n =" not in text and d["metrics"]["accuracy"]["note"] is None


def test_the_reports_own_mcnemar_warns_in_text_on_few_discordant_errors(tmp_path, capsys):
    """Issue 18, item 12: the report's McNemar test (false negatives against false positives) is the
    chi-squared approximation; with b + c = 7 the text says so under the tests, as the JSON does."""
    from assay.cli import main

    rows = [("a", "a")] * 40 + [("b", "b")] * 40 + [("a", "b")] * 4 + [("b", "a")] * 3
    path = tmp_path / "few.csv"
    path.write_text("y,yhat\n" + "".join(f"{a},{b}\n" for a, b in rows))
    assert main(["report", str(path), "--truth", "y", "--pred", "yhat"]) == 0
    out = capsys.readouterr().out
    assert "Warning: McNemar's chi-squared approximation is unreliable here: b + c = 7 < 25" in out
