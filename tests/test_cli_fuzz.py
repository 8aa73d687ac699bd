"""Malformed tables and options fed to the command line's real entry point.

Whatever the file holds, ``assay`` ends with exit status 0, or 2 and exactly one line on
standard error; never a traceback, never another status. Hypothesis is derandomized in the
suite (tests/conftest.py): these are the same examples on every run.
"""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay.cli import main

NAMES = st.sampled_from(["y", "p", "q", "yhat", "", "y ", '"y"', "NA", "a,b", "é", "y\ty"])
CELLS = st.one_of(
    st.sampled_from(["0", "1", "0.5", "1e308", "-1e308", "nan", "NaN", "inf", "-inf", "", "NA", "null", "a", "b",
                     "1.0", "2", "-0.0", "1e-320", "99999999999999999999999", '"x"', '"', "0x1p3", " 1 ", "∞"]),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(max_size=4),
)


@st.composite
def tables(draw):
    columns = draw(st.lists(NAMES, min_size=1, max_size=4))
    rows = draw(st.lists(st.lists(CELLS, min_size=0, max_size=len(columns) + 1), min_size=0, max_size=12))
    delimiter = draw(st.sampled_from([",", ",", ";", "\t"]))
    text = delimiter.join(columns) + "\n" + "".join(delimiter.join(r) + "\n" for r in rows)
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    return text.encode("utf-8", "surrogatepass") if draw(st.booleans()) else text.encode("utf-8", "replace")


OPTIONS = st.lists(st.sampled_from([
    ["--threshold", "0.5"], ["--threshold", "nan"], ["--positive", "1"], ["--positive", "zzz"], ["--format", "json"],
    ["--format", "markdown"], ["--confidence", "0.9"], ["--bootstrap", "100"], ["--costs", "fp=1,fn=5"],
    ["--prevalence", "0.1"], ["--fpr-range", "0,0.2"], ["--input-format", "csv"], ["--input-format", "jsonl"],
]), max_size=3)


@settings(max_examples=80, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(table=tables(), kind=st.sampled_from(["--pred", "--score", "--proba"]), options=OPTIONS,
       truth=st.sampled_from(["y", "p", "missing"]), other=st.sampled_from(["p", "q", "yhat", "p,q"]))
def test_report_on_malformed_tables(tmp_path_factory, capsys, table, kind, options, truth, other):
    path = tmp_path_factory.mktemp("fuzz") / "t.csv"
    path.write_bytes(table)
    argv = ["report", str(path), "--truth", truth, kind, other, "--bootstrap", "100"] + [o for pair in options
                                                                                          for o in pair]
    status = main(argv)
    out, err = capsys.readouterr()
    assert status in (0, 2), (status, err)
    if status == 2:
        assert err.startswith("assay: error: ") and err.count("\n") == 1, err
    else:
        assert "Traceback" not in err
        if "json" in argv and "--format" in argv[argv.index("json") - 1]:
            json.loads(out)  # strict JSON: no NaN, no Infinity


@pytest.mark.parametrize("command", [
    ["interval", "--successes", "3", "--n", "99999999999999999999999"],
    ["interval", "--rate", "inf", "--n", "10"],
    ["difference", "--e1", "nan", "--n1", "30", "--e2", "0.2", "--n2", "40"],
    ["difference", "--e1", "0.1", "--n1", "0", "--e2", "0.2", "--n2", "40"],
    ["mcnemar", "--table", "-1", "2", "3", "4"],
    ["mcnemar", "--table", "1", "2", "3", "4", "--confidence", "2"],
])
def test_calculators_refuse_in_one_line(capsys, command):
    status = main(command)
    out, err = capsys.readouterr()
    assert status == 2 and err.startswith("assay: error: ") and err.count("\n") == 1, err
