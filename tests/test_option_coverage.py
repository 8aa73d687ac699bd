"""Every option of ``assay report`` on every input kind and path: applied (the JSON changes) or refused with
one line (exit 2), never accepted and ignored (issue 18, "Options that a path ignores"; issue 22, item 11).

The harness runs the real command line with each option at a value other than its default, on each kind of
input (predicted labels, a confusion matrix, two-class scores, probabilities of three classes), in memory and
from a directory of parts (read in batches), and compares the JSON with the run without the option.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from assay.cli import main

N = 240

BASE = ["--format", "json", "--bootstrap", "100"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("coverage")
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, N)
    p = np.clip(np.round(0.35 * y + 0.65 * rng.random(N), 3), 0, 1)
    p[:3] = [0.0, 1.0, 0.5]
    yhat = (p >= 0.5).astype(int)
    w = rng.integers(1, 4, N)
    names = np.array(["neg", "pos"])
    two = root / "two.csv"
    two.write_text("y,yhat,p,w\n" + "".join(f"{names[a]},{names[b]},{c},{d}\n" for a, b, c, d in zip(y, yhat, p, w)))
    parts = root / "parts"
    parts.mkdir()
    lines = two.read_text().splitlines()
    for i, chunk in enumerate((lines[1:121], lines[121:])):
        (parts / f"part-{i}.csv").write_text("\n".join([lines[0], *chunk]) + "\n")
    y3 = rng.integers(0, 3, N)
    raw = rng.random((N, 3)) + np.eye(3)[y3] * 0.8
    raw[0] = [0.0, 0.0, 1.0]
    pr = np.round(raw / raw.sum(axis=1, keepdims=True), 4)
    pr[:, 2] = np.round(1 - pr[:, 0] - pr[:, 1], 4)
    classes = np.array(["a", "b", "c"])
    pred3 = classes[pr.argmax(axis=1)]
    three = root / "three.csv"
    three.write_text("y,yhat,a,b,c,w\n" + "".join(
        f"{classes[t]},{q},{r[0]},{r[1]},{r[2]},{d}\n" for t, q, r, d in zip(y3, pred3, pr, w)))
    parts3 = root / "parts3"
    parts3.mkdir()
    lines = three.read_text().splitlines()
    for i, chunk in enumerate((lines[1:121], lines[121:])):
        (parts3 / f"part-{i}.csv").write_text("\n".join([lines[0], *chunk]) + "\n")
    confusion = root / "confusion.csv"
    confusion.write_text(",neg,pos\nneg,80,20\npos,15,85\n")
    costs2 = root / "costs2.csv"
    costs2.write_text(",neg,pos\nneg,0,1\npos,5,0\n")
    costs3 = root / "costs3.csv"
    costs3.write_text(",a,b,c\na,0,1,2\nb,1,0,1\nc,2,1,0\n")
    return {"two": two, "parts": parts, "three": three, "parts3": parts3, "confusion": confusion,
            "costs2": costs2, "costs3": costs3}


def inputs(files, kind, path):
    """The arguments of one input kind on one path ("spilled": in batches, the score summary on disk)."""
    if path == "spilled":
        return [*inputs(files, kind, "batches"), "--memory", "1KB"]
    if kind == "confusion":
        return ["--confusion", str(files["confusion"])]
    if kind in ("labels", "scores"):
        source = str(files["two"] if path == "memory" else files["parts"])
        return [source, "--truth", "y", *(["--pred", "yhat"] if kind == "labels" else ["--score", "p"])]
    source = str(files["three"] if path == "memory" else files["parts3"])
    return [source, "--truth", "y", *(["--pred", "yhat"] if kind == "labels3" else ["--proba", "a,b,c"])]


def options(files, kind):
    """Each option at a value other than its default."""
    two_class = kind in ("labels", "scores", "confusion")
    return {
        "--threshold": ["--threshold", "0.3"],
        "--confidence": ["--confidence", "0.9"],
        "--interval": ["--interval", "clopper-pearson"],
        "--beta": ["--beta", "2"],
        "--top-k": ["--top-k", "2"],
        "--bootstrap": ["--bootstrap", "120"],
        "--seed": ["--seed", "3"],
        "--auc-interval": ["--auc-interval", "bootstrap"],
        "--costs": ["--costs", "fp=1,fn=5"],
        "--prevalence": ["--prevalence", "0.2"],
        "--fpr-range": ["--fpr-range", "0,0.2"],
        "--sensitivity-range": ["--sensitivity-range", "0.8,1"],
        "--lift-depth": ["--lift-depth", "0.25"],
        "--at-specificity": ["--at-specificity", "0.9"],
        "--at-sensitivity": ["--at-sensitivity", "0.9"],
        "--direction": ["--direction", "lower"],
        "--constraint": ["--constraint", "precision>=0.6"],
        "--roc-band": ["--roc-band"],
        "--roc-bins": ["--roc-bins", "8"],
        "--prior": ["--prior", "neg=0.3,pos=0.7" if two_class else "a=0.2,b=0.3,c=0.5"],
        "--clip": ["--clip", "0.01"],
        "--bins": ["--bins", "4"],
        "--calibration": ["--calibration", "quantile"],
        "--calibration parts": ["--calibration", "curve"],
        "--calibration-class": ["--calibration-class", "neg" if two_class else "b"],
        "--positive": ["--positive", "neg" if two_class else "a"],
        "--kappa-weights": ["--kappa-weights", "linear"],
        "--cost-matrix": ["--cost-matrix", str(files["costs2" if two_class else "costs3"])],
        "--weight": ["--weight", "w"],
    }


KINDS = ["labels", "confusion", "scores", "labels3", "proba3"]


def run(args, capsys):
    code = main(["report", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _json(out):
    data = json.loads(out)
    data.pop("source", None)
    return data


def check(files, kind, path, capsys):
    base = [*inputs(files, kind, path), *BASE]
    code, out, err = run(base, capsys)
    assert code == 0, err
    baseline = _json(out)
    ignored = []
    for name, extra in options(files, kind).items():
        code, out, err = run([*base, *extra], capsys)
        if code == 2:
            assert err.count("\n") == 1 and err.startswith("assay: error: "), (name, err)
            continue
        assert code == 0, (name, code, err)
        if _json(out) == baseline:
            ignored.append(name)
    assert ignored == [], f"accepted and ignored with {kind} {path}: {ignored}"


@pytest.mark.parametrize("kind", KINDS)
def test_every_option_is_applied_or_refused_in_memory(files, kind, capsys):
    check(files, kind, "memory", capsys)


@pytest.mark.parametrize("kind", ["labels", "scores", "labels3", "proba3"])
def test_every_option_is_applied_or_refused_in_batches(files, kind, capsys):
    check(files, kind, "batches", capsys)


def test_every_option_is_applied_or_refused_on_a_spilled_summary(files, capsys):
    check(files, "scores", "spilled", capsys)


def test_a_cost_named_twice_is_refused(files, capsys):
    """Issue 22, item 11: --costs fp=1,fn=1,fp=2 kept the last value without a word."""
    code, out, err = run([*inputs(files, "scores", "memory"), "--costs", "fp=1,fn=1,fp=2"], capsys)
    assert code == 2 and err == "assay: error: --costs: 'fp' is given twice\n"


def test_the_library_refuses_what_does_not_apply():
    """The same table in Python: an option at a value other than its default is refused, never ignored."""
    import assay

    with pytest.raises(assay.InvalidInput, match="lift_depth= applies to two-class scores, not to predicted"):
        assay.evaluate([0, 1, 0, 1], [0, 1, 1, 1], lift_depth=0.3)
    with pytest.raises(assay.InvalidInput, match="at_specificity= and roc_band= apply to two-class scores, not "
                                                 "to probabilities of more than two classes"):
        assay.evaluate(["a", "b", "c"], y_proba={"a": [0.8, 0.1, 0.1], "b": [0.1, 0.8, 0.1], "c": [0.1, 0.1, 0.8]},
                       at_specificity=(0.9,), roc_band=True)
    with pytest.raises(assay.InvalidInput, match="prior= applies to two-class scores or probabilities"):
        assay.evaluate_batches([([0, 1, 1], [0, 1, 0])], kind="y_pred", prior=(0.5, 0.5))


# ----------------------------------------------------------------------------
# assay curves: every option on every kind of curve, scores and probabilities, in memory and in batches

CURVE_KINDS = ["roc", "pr", "lift", "thresholds", "hull"]


def curve_options(files, kind):
    two_class = kind == "scores"
    return {
        "--positive": ["--positive", "neg" if two_class else "a"],
        "--class": ["--class", "b"],
        "--at": ["--at", "0.2,0.6"],
        "--costs": ["--costs", "fp=1,fn=5"],
        "--prevalence": ["--prevalence", "0.2"],
        "--roc-bins": ["--roc-bins", "5"],
        "--direction": ["--direction", "lower"],
    }


@pytest.mark.parametrize("kind, path", [("scores", "memory"), ("scores", "batches"), ("scores", "spilled"),
                                        ("proba3", "memory"), ("proba3", "batches")])
def test_every_curves_option_is_applied_or_refused(files, kind, path, capsys):
    for curve in CURVE_KINDS:
        base = [*inputs(files, kind, path), "--kind", curve, "--format", "json"]
        code = main(["curves", *base])
        captured = capsys.readouterr()
        if code == 2:  # this curve does not exist for these predictions: then every option is moot
            continue
        assert code == 0, captured.err
        baseline = captured.out
        ignored = []
        for name, extra in curve_options(files, kind).items():
            code = main(["curves", *base, *extra])
            captured = capsys.readouterr()
            if code == 2:
                assert captured.err.count("\n") == 1 and captured.err.startswith("assay: error: "), (name, captured.err)
                continue
            assert code == 0, (curve, name, captured.err)
            if captured.out == baseline:
                ignored.append(name)
        assert ignored == [], f"curves --kind {curve} accepted and ignored with {kind} {path}: {ignored}"


# ----------------------------------------------------------------------------
# assay compare: every option with labels and scores, two models and three, paired and unpaired


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("compare")
    rng = np.random.default_rng(11)
    n = 200
    y = rng.integers(0, 2, n)
    scores = [np.round(np.clip(q * y + (1 - q) * rng.random(n), 0, 1), 3) for q in (0.45, 0.3, 0.15)]
    names = np.array(["neg", "pos"])
    table = root / "models.csv"
    table.write_text("id,y,a,b,c,pa,pb,pc\n" + "".join(
        f"{i},{names[t]},{names[int(x >= 0.5)]},{names[int(u >= 0.5)]},{names[int(v >= 0.5)]},{x},{u},{v}\n"
        for i, (t, x, u, v) in enumerate(zip(y, *scores))))
    lines = table.read_text().splitlines()
    one, two = root / "one.csv", root / "two.csv"
    one.write_text("\n".join([lines[0], *lines[1:101]]) + "\n")
    two.write_text("\n".join([lines[0], *lines[101:]]) + "\n")
    return {"table": table, "one": one, "two": two}


def compare_inputs(models, kind):
    table = str(models["table"])
    return {
        "labels": [table, "--truth", "y", "--pred", "a", "--pred", "b"],
        "scores": [table, "--truth", "y", "--score", "pa", "--score", "pb"],
        "labels3": [table, "--truth", "y", "--pred", "a", "--pred", "b", "--pred", "c"],
        "scores3": [table, "--truth", "y", "--score", "pa", "--score", "pb", "--score", "pc"],
        "unpaired-labels": [str(models["one"]), str(models["two"]), "--truth", "y", "--pred", "a", "--unpaired"],
        "unpaired-scores": [str(models["one"]), str(models["two"]), "--truth", "y", "--score", "pa", "--unpaired"],
    }[kind]


COMPARE_OPTIONS = {
    "--costs": ["--costs", "fp=1,fn=5"],
    "--prevalence": ["--prevalence", "0.2"],
    "--adjust": ["--adjust", "bonferroni"],
    "--auc-test": ["--auc-test", "bootstrap"],
    "--positive": ["--positive", "neg"],
    "--threshold": ["--threshold", "0.3"],
    "--confidence": ["--confidence", "0.9"],
    "--bootstrap": ["--bootstrap", "150"],
    "--seed": ["--seed", "5"],
    "--direction": ["--direction", "lower"],
    "--name": ["--name", "first", "--name", "second", "--name", "third"],
}


@pytest.mark.parametrize("kind", ["labels", "scores", "labels3", "scores3", "unpaired-labels", "unpaired-scores"])
def test_every_compare_option_is_applied_or_refused(models, kind, capsys):
    base = [*compare_inputs(models, kind), "--format", "json", *([] if "unpaired" in kind else ["--bootstrap", "100"])]
    assert main(["compare", *base]) == 0, capsys.readouterr().err
    baseline = capsys.readouterr().out
    ignored = []
    for name, extra in COMPARE_OPTIONS.items():
        if name == "--name":
            extra = extra[:2 * (3 if kind.endswith("3") else 2)]
        code = main(["compare", *base, *extra])
        captured = capsys.readouterr()
        if code == 2:
            assert captured.err.count("\n") == 1 and captured.err.startswith("assay: error: "), (name, captured.err)
            continue
        assert code == 0, (name, captured.err)
        if captured.out == baseline:
            ignored.append(name)
    assert ignored == [], f"compare accepted and ignored with {kind}: {ignored}"


@pytest.mark.parametrize("kind", ["labels", "scores"])
def test_every_option_is_applied_or_refused_on_spark(spark, files, kind, capsys):
    """The same on the Spark engine (a directory of parts read by Spark, counted on its executors): the
    options of another kind are refused before Spark reads anything; of those it applies, the ones the
    engine hands on by a path of its own are run (the rest reach the same shared evaluation as in batches,
    checked above), each a Spark job of about a second."""
    base = [*inputs(files, kind, "batches"), "--engine", "spark"]
    applied = {"labels": ["--confidence", "--costs", "--kappa-weights", "--cost-matrix"],
               "scores": ["--threshold", "--auc-interval", "--costs", "--prevalence", "--fpr-range",
                          "--at-specificity", "--direction", "--roc-band", "--roc-bins", "--prior", "--cost-matrix"]}[kind]
    shared = {"labels": {"--interval", "--beta", "--bootstrap", "--seed", "--prevalence"},
              "scores": {"--confidence", "--interval", "--beta", "--bootstrap", "--seed", "--sensitivity-range",
                         "--lift-depth", "--at-sensitivity", "--constraint", "--clip", "--bins",
                         "--calibration", "--calibration parts"}}[kind]
    code, out, err = run([*base, *BASE], capsys)
    assert code == 0, err
    baseline = _json(out)
    ignored = []
    for name, extra in options(files, kind).items():
        if name in shared:  # applied by the shared evaluation, as in batches (checked above)
            continue
        code, out, err = run([*base, *BASE, *extra], capsys)
        if code == 2:
            assert err.count("\n") == 1 and err.startswith("assay: error: "), (name, err)
            assert name not in applied, (name, err)
            continue
        assert code == 0, (name, code, err)
        if _json(out) == baseline:
            ignored.append(name)
    assert ignored == [], f"accepted and ignored on Spark with {kind}: {ignored}"
