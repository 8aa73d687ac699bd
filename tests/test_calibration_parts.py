"""--calibration chooses what the calibration shows (issue 21, item 1): the reliability table, the mean and
weak calibration (the hierarchy), the lowess curve and the Brier decomposition, in text, JSON, HTML and the
Python API, in memory and in batches; a binning with no table, two binnings, unknown words and the parts of
two classes with more classes are refused with one line."""

from __future__ import annotations

import json

import numpy as np
import pytest

import assay
from assay.cli import main

HEADINGS = {"table": "Calibration (positive class", "hierarchy": "Calibration: mean and weak",
            "curve": "Calibration: moderate", "brier": "Brier decomposition"}
KEYS = {"table": {"calibration", "smooth_ece"}, "hierarchy": {"calibration_hierarchy"},
        "curve": {"calibration_curve"}, "brier": {"brier_decomposition"}}
ALL_KEYS = set().union(*KEYS.values())


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("parts")
    rng = np.random.default_rng(5)
    n = 400
    p = np.round(rng.beta(2, 4, n), 2)  # ties, and few enough distinct values for the curve's band
    y = (rng.random(n) < p).astype(int)
    lines = [f"{a},{b}" for a, b in zip(y, p)]
    whole = root / "whole.csv"
    whole.write_text("y,p\n" + "\n".join(lines) + "\n")
    parts = root / "parts"
    parts.mkdir()
    for i in range(2):
        (parts / f"part-{i}.csv").write_text("y,p\n" + "\n".join(lines[i * 200:(i + 1) * 200]) + "\n")
    three = root / "three.csv"
    q = rng.dirichlet([1, 1, 1], n).round(3)
    q[:, 2] = (1 - q[:, 0] - q[:, 1]).round(3)
    three.write_text("y,a,b,c\n" + "".join(f"{'abc'[t]},{r[0]},{r[1]},{r[2]}\n"
                                           for t, r in zip(rng.integers(0, 3, n), q)))
    return {"whole": whole, "parts": parts, "three": three}


def _report(args, capsys):
    code = main(["report", *args, "--bootstrap", "200"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _sections(text):
    shown = {part for part, heading in HEADINGS.items() if heading in text}
    return shown | ({"brier"} if "Brier: reliability" in text else set())  # rows of the curve's table


@pytest.mark.parametrize("path", ["memory", "batches"])
@pytest.mark.parametrize("words, parts", [
    (None, {"table", "hierarchy", "curve", "brier"}),
    ("quantile", {"table", "hierarchy", "curve", "brier"}),
    ("table", {"table"}),
    ("curve", {"curve"}),
    ("hierarchy,brier", {"hierarchy", "brier"}),
    ("quantile,table,curve", {"table", "curve"}),
    ("all", {"table", "hierarchy", "curve", "brier"}),
    ("none", set()),
])
def test_the_parts_asked_for_are_shown_and_no_others(files, capsys, path, words, parts):
    source = str(files["whole"] if path == "memory" else files["parts"])
    args = [source, "--truth", "y", "--score", "p", *(["--calibration", words] if words else []),
            *(["--memory", "1MB"] if path == "batches" else [])]
    code, out, err = _report(args, capsys)
    assert code == 0, err
    assert _sections(out) == parts, (out[-300:], err)
    code, out, err = _report([*args, "--format", "json"], capsys)
    assert code == 0, err
    keys = set(json.loads(out)["probabilistic"]) & ALL_KEYS
    assert keys == set().union(*(KEYS[part] for part in parts))
    if words and "quantile" in words:
        assert json.loads(out)["probabilistic"]["calibration"]["strategy"] == "quantile"


def test_each_part_equals_its_value_in_the_whole_report(files, capsys):
    args = [str(files["whole"]), "--truth", "y", "--score", "p", "--format", "json"]
    whole = json.loads(_report(args, capsys)[1])["probabilistic"]
    for part, keys in KEYS.items():
        alone = json.loads(_report([*args, "--calibration", part], capsys)[1])["probabilistic"]
        for key in keys:
            assert alone[key] == whole[key], (part, key)
        assert alone["brier"] == whole["brier"]  # the losses are always given


@pytest.mark.parametrize("words, message", [
    ("quantile,curve", "quantile bins the calibration table, which 'quantile,curve' leaves out"),
    ("uniform,quantile", "names two binnings"),
    ("none,table", "asks for none and for parts"),
    ("smooth", "'smooth' is not one of uniform, quantile, table, hierarchy, curve, brier, all, none"),
    (",", "--calibration: empty"),
])
def test_bad_words_are_refused_in_one_line(files, capsys, words, message):
    code, out, err = _report([str(files["whole"]), "--truth", "y", "--score", "p", "--calibration", words], capsys)
    assert code == 2 and err.count("\n") == 1 and err.startswith("assay: error: --calibration: "), err
    assert message in err


def test_parts_of_two_classes_are_refused_with_three_classes_and_the_table_is_not(files, capsys):
    base = [str(files["three"]), "--truth", "y", "--proba", "a,b,c"]
    code, out, err = _report([*base, "--calibration", "curve"], capsys)
    assert code == 2 and "curve: of two classes' probabilities; with 3 classes" in err and err.count("\n") == 1
    code, out, err = _report([*base, "--calibration", "quantile,table", "--format", "json"], capsys)
    assert code == 0 and "calibration" in json.loads(out)["probabilistic"]
    code, out, err = _report([*base, "--calibration", "none", "--format", "json"], capsys)
    assert code == 0 and "calibration" not in json.loads(out)["probabilistic"]
    for extra in (["--memory", "1MB"],):  # in batches too
        code, out, err = _report([*base, "--calibration", "hierarchy", *extra], capsys)
        assert code == 2 and "hierarchy: of two classes' probabilities" in err


def test_labels_refuse_the_option(files, tmp_path, capsys):
    labels = tmp_path / "labels.csv"
    labels.write_text("y,yhat\n0,1\n1,1\n0,0\n1,0\n")
    code, out, err = _report([str(labels), "--truth", "y", "--pred", "yhat", "--calibration", "curve"], capsys)
    assert code == 2 and "--calibration" in err and err.count("\n") == 1


def test_the_python_api_and_the_html_report_with_the_curve_alone(files, tmp_path, capsys):
    data = np.genfromtxt(files["whole"], delimiter=",", skip_header=1)
    y, p = data[:, 0].astype(int), data[:, 1]
    r = assay.evaluate(y, y_score=p, calibration_parts=["curve"], bootstrap=200)
    assert r.probabilistic.calibration is None and r.probabilistic.hierarchy is None
    assert r.probabilistic.moderate is not None and r.probabilistic.moderate.computed
    full = assay.evaluate(y, y_score=p, bootstrap=200)
    assert r.probabilistic.moderate.to_dict() == full.probabilistic.moderate.to_dict()
    with pytest.raises(assay.InvalidInput, match="calibration_parts: 'bands' is not one of"):
        assay.evaluate(y, y_score=p, calibration_parts="bands")
    html = tmp_path / "r.html"
    code = main(["report", str(files["whole"]), "--truth", "y", "--score", "p", "--calibration", "curve",
                 "--bootstrap", "200", "--html", str(html), "--format", "json"])
    capsys.readouterr()
    assert code == 0
    page = html.read_text()
    assert "Calibration (reliability)" in page and "lowess, as rms::val.prob" in page and "classifier (ECE" not in page
