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


# ----------------------------------------------------------------------------
# --calibration-class: a class's probabilities against the rest, of several classes' probabilities


@pytest.fixture(scope="module")
def three_parts(files, tmp_path_factory):
    root = tmp_path_factory.mktemp("three")
    lines = files["three"].read_text().splitlines()
    for i in range(2):
        (root / f"part-{i}.csv").write_text("\n".join([lines[0], *lines[1 + i * 200:1 + (i + 1) * 200]]) + "\n")
    return root


def _calibration_json(args, capsys):
    code, out, err = _report([*args, "--format", "json"], capsys)
    assert code == 0, err
    p = json.loads(out)["probabilistic"]
    return {key: p[key] for key in ALL_KEYS if key in p}, p


def _one_vs_rest(path, label):
    rows = [line.split(",") for line in path.read_text().splitlines()[1:]]
    column = {"a": 1, "b": 2, "c": 3}[label]
    return np.array([r[0] == label for r in rows]), np.array([float(r[column]) for r in rows])


@pytest.mark.parametrize("label", ["b", "c"])
def test_a_class_against_the_rest_is_its_two_class_calibration_on_every_path(files, three_parts, capsys, label):
    """Equal to the two-class analysis of that class's probabilities against whether it is the actual class,
    in memory and in batches; the losses stay those of the three classes."""
    memory, whole = _calibration_json([str(files["three"]), "--truth", "y", "--proba", "a,b,c",
                                       "--calibration-class", label], capsys)
    batches, _ = _calibration_json([str(three_parts), "--truth", "y", "--proba", "a,b,c", "--calibration-class",
                                    label, "--memory", "1MB"], capsys)
    assert set(memory) == ALL_KEYS and memory["calibration"]["target"] == f"class {label!r} against the rest"
    is_class, p = _one_vs_rest(files["three"], label)
    binary = assay.evaluate(is_class.astype(int), y_score=p, bootstrap=200).probabilistic
    assert memory["calibration_hierarchy"] == binary.hierarchy.to_dict()
    assert memory["calibration_curve"] == binary.moderate.to_dict()
    assert memory["brier_decomposition"] == binary.brier_decomposition.to_dict()
    assert memory["calibration"]["ece"] == pytest.approx(binary.calibration.ece, abs=1e-12)
    for key in ALL_KEYS:
        assert _close(batches[key], memory[key]), key
    plain, losses = _calibration_json([str(files["three"]), "--truth", "y", "--proba", "a,b,c"], capsys)
    assert whole["log_loss"] == losses["log_loss"]  # the three classes' losses, with a class's calibration too
    assert plain["calibration"]["target"] == "top label" and "calibration_hierarchy" not in plain


def _close(a, b, tol=1e-9):
    """Equal up to the order of floating-point sums (batches merge their parts)."""
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k], tol) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_close(x, y, tol) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= tol * max(1.0, abs(a), abs(b))
    return a == b


def test_a_class_on_spark_equals_in_memory(spark, files, three_parts, capsys):
    memory, _ = _calibration_json([str(files["three"]), "--truth", "y", "--proba", "a,b,c",
                                   "--calibration-class", "b"], capsys)
    on_spark, _ = _calibration_json([str(three_parts), "--truth", "y", "--proba", "a,b,c", "--calibration-class",
                                     "b", "--engine", "spark"], capsys)
    assert set(on_spark) == set(memory)
    for key in ("calibration", "calibration_hierarchy", "brier_decomposition"):
        assert _close(on_spark[key], memory[key]), key


def test_a_class_with_parts_and_the_refusals(files, capsys, tmp_path):
    base = [str(files["three"]), "--truth", "y", "--proba", "a,b,c"]
    chosen, _ = _calibration_json([*base, "--calibration-class", "a", "--calibration", "curve"], capsys)
    assert set(chosen) == {"calibration_curve"}
    code, out, err = _report([*base, "--calibration-class", "d"], capsys)
    assert code == 2 and err.count("\n") == 1 and "'d' is not one of the classes" in err and "--calibration-class" in err
    code, out, err = _report([str(files["whole"]), "--truth", "y", "--score", "p", "--calibration-class", "1"], capsys)
    assert code == 2 and err.count("\n") == 1 and "--calibration-class applies to probabilities of more than two classes" in err
    with pytest.raises(assay.InvalidInput, match="calibration_class"):
        assay.evaluate([0, 1, 0, 1], [0, 1, 1, 1], calibration_class="1")
    r = assay.evaluate(["a", "b", "c", "a", "b", "c"], y_proba={"a": [0.6, 0.2, 0.2, 0.5, 0.3, 0.1],
                                                               "b": [0.2, 0.6, 0.2, 0.3, 0.4, 0.2],
                                                               "c": [0.2, 0.2, 0.6, 0.2, 0.3, 0.7]},
                       calibration_class="c", bootstrap=200)
    assert r.probabilistic.calibration.target == "class 'c' against the rest" and r.probabilistic.hierarchy is not None
    assert r.to_dict()["probabilistic"]["calibration_class"] == "c"
    assert "lowess calibration curve of class 'c' is" in str(r) and "For class 'c', predicted and observed" in str(r)
