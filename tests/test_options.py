"""One options object: every option of an evaluation is a field of ``assay.Options``, checked once where the
object is made, with its default in one place; every entry point builds it from its keywords (or takes it
whole), and the command line builds it from its flags through one table."""

import inspect
import json

import numpy as np
import pytest

import assay
from assay.cli.options import FLAGS
from assay.errors import InvalidInput
from assay.evaluation.options import DEFAULTS, NAMES, Options, options_from

from helpers import run_cli

rng = np.random.default_rng(7)
Y = rng.integers(0, 2, 300)
S = np.round(np.clip(Y * 0.3 + rng.random(300) * 0.7, 0, 1), 2)  # ties
LABELS = np.where(Y == 1, "yes", "no")
PRED = np.where(S >= 0.5, "yes", "no")


@pytest.mark.parametrize("changes, field", [
    ({"confidence": 1.5}, "confidence"), ({"interval": "wald"}, "method"), ({"auc_interval": "exact"}, "auc_interval"),
    ({"beta": 0}, "beta"), ({"bootstrap": 10}, "bootstrap"), ({"seed": -1}, "seed"),
    ({"costs": {"fp": 1, "fx": 2}}, "costs"), ({"costs": {"fp": 0, "tn": 1}}, "costs"),
    ({"prevalence": 1.0}, "prevalence"), ({"fpr_range": (0.3, 0.1)}, "fpr_range"),
    ({"sensitivity_range": (0.5,)}, "sensitivity_range"), ({"lift_depth": 0}, "lift_depth"),
    ({"at_specificity": [1.2]}, "at_specificity"), ({"at_sensitivity": "high"}, "at_sensitivity"),
    ({"roc_bins": 1}, "roc_bins"), ({"clip": 1.0}, "clip"), ({"calibration_bins": 0}, "bins"),
    ({"calibration_strategy": "kmeans"}, "strategy"), ({"top_k": 0}, "top_k"),
    ({"kappa_weights": "cubic"}, "kappa_weights"), ({"direction": "up"}, "direction"),
    ({"threshold": "best"}, "threshold"), ({"threshold": float("nan")}, "threshold"), ({"memory": 0}, "memory"),
])
def test_a_bad_value_is_refused_where_the_options_are_made_naming_the_option(changes, field):
    with pytest.raises(InvalidInput) as e:
        Options(**changes)
    assert e.value.field == field


def test_the_options_are_frozen_normalised_and_say_what_was_asked():
    o = Options(costs={"fn": 10}, at_specificity=[0.9, 0.95], constraints="precision>=0.8", threshold=np.float64(0.3))
    assert o.costs == assay.Costs(fn=10.0) and o.at_specificity == (0.9, 0.95)
    assert o.constraints == ("precision>=0.8",) and o.threshold == 0.3 and type(o.threshold) is float
    assert o.asked() == ["threshold", "costs", "at_specificity", "constraints"]
    assert Options().asked() == [] and Options(memory=1 << 30).asked() == []
    with pytest.raises(AttributeError):
        o.threshold = 0.5  # type: ignore[misc]
    assert o.replace(threshold=None).asked() == ["costs", "at_specificity", "constraints"]
    assert o == Options(costs={"fp": 1, "fn": 10}, at_specificity=(0.9, 0.95), constraints=["precision>=0.8"],
                        threshold=0.3)


def test_keywords_that_differ_from_their_default_change_a_given_object():
    base = Options(threshold=0.3, confidence=0.9)
    assert options_from(base, {"confidence": 0.95, "lift_depth": 0.2}) == Options(threshold=0.3, confidence=0.9,
                                                                                    lift_depth=0.2)
    assert options_from(None, {"at_specificity": []}) == Options()
    with pytest.raises(InvalidInput, match="Options"):
        options_from({"threshold": 0.3}, {})


PUBLIC = [assay.evaluate, assay.rank, assay.evaluate_confusion, assay.evaluate_batches, assay.rank_file,
          assay.compare, assay.compare_batches, assay.validate, assay.evaluate_regression]


@pytest.mark.parametrize("function", PUBLIC, ids=lambda f: f.__name__)
def test_every_keyword_option_of_a_public_function_has_the_options_default(function):
    """The keywords stay (no user code breaks), but their defaults are the object's: a drift fails here."""
    parameters = inspect.signature(function).parameters
    assert "options" in parameters
    shared = [name for name in parameters if name in NAMES]
    assert shared, function.__name__
    for name in shared:
        default = parameters[name].default
        if name == "memory":
            continue  # the files' whole budget, of which the summary's share is Options.memory
        assert default == DEFAULTS[name] or (default is None and DEFAULTS[name] == ()), (function.__name__, name)


def _close(a, b, where=""):
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), where
        for k in a:
            _close(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _close(x, y, f"{where}[{i}]")
    elif isinstance(a, float) and isinstance(b, float):
        assert a == pytest.approx(b, rel=1e-9, abs=1e-12, nan_ok=True), where
    else:
        assert a == b, where


def _same(a, b):
    """Equal results (the probabilistic losses of batches and memory agree up to floating-point rounding)."""
    _close(json.loads(json.dumps(a.to_dict(), default=str)), json.loads(json.dumps(b.to_dict(), default=str)))


def test_keywords_and_the_object_give_the_same_result_on_every_entry_point(tmp_path):
    asked = dict(threshold="youden", costs={"fp": 1, "fn": 4}, prevalence=0.2, fpr_range=(0, 0.2),
                 at_specificity=(0.9,), constraints=("recall>=0.8",), bootstrap=200, seed=3, confidence=0.9)
    o = Options(**asked)
    _same(assay.evaluate(Y, y_score=S, **asked), assay.evaluate(Y, y_score=S, options=o))
    _same(assay.rank(Y, S, **{k: v for k, v in asked.items() if k != "threshold"}),
          assay.rank(Y, S, options=o.replace(threshold=None)))
    parts = [(Y[:150], S[:150]), (Y[150:], S[150:])]
    _same(assay.evaluate_batches(parts, **asked), assay.evaluate_batches(parts, options=o))
    _same(assay.evaluate_batches(parts, options=o), assay.evaluate(Y, y_score=S, options=o))
    path = tmp_path / "p.csv"
    path.write_text("y,p\n" + "".join(f"{y},{s}\n" for y, s in zip(Y, S)))
    _same(assay.evaluate_file(str(path), truth="y", score="p", options=o), assay.evaluate(Y, y_score=S, options=o))
    labelled = Options(costs={"fp": 1, "fn": 4}, prevalence=0.2, bootstrap=200, kappa_weights="linear")
    _same(assay.evaluate(LABELS, PRED, options=labelled),
          assay.evaluate(LABELS, PRED, costs={"fp": 1, "fn": 4}, prevalence=0.2, bootstrap=200,
                         kappa_weights="linear"))
    cm = assay.evaluate(LABELS, PRED).confusion
    _same(assay.evaluate_confusion(cm, options=labelled), assay.evaluate(LABELS, PRED, options=labelled))
    c1 = assay.compare(Y, {"y_score": S}, {"y_score": 1 - S}, threshold=0.5, bootstrap=200, costs={"fn": 3})
    c2 = assay.compare(Y, {"y_score": S}, {"y_score": 1 - S}, options=Options(threshold=0.5, bootstrap=200,
                                                                              costs={"fn": 3}))
    _same(c1, c2)


def test_an_option_that_does_not_apply_is_refused_when_given_as_the_object_too():
    with pytest.raises(InvalidInput, match="threshold: options of classifiers"):
        assay.evaluate_regression([1.0, 2.5, 3.0], [1.2, 2.0, 3.1], options=Options(threshold=0.3))
    assert assay.evaluate_regression([1.0, 2.5, 3.0, 4.5], [1.2, 2.0, 3.1, 4.0], options=Options(bootstrap=100)) \
        .bootstrap == assay.evaluate_regression([1.0, 2.5, 3.0, 4.5], [1.2, 2.0, 3.1, 4.0], bootstrap=100).bootstrap
    with pytest.raises(InvalidInput, match="lift_depth"):
        assay.evaluate(LABELS, PRED, options=Options(lift_depth=0.2))
    with pytest.raises(InvalidInput, match="fpr_range"):
        assay.evaluate_confusion([[5, 1], [2, 6]], options=Options(fpr_range=(0, 0.1)))
    with pytest.raises(InvalidInput, match="fpr_range"):
        assay.evaluate_batches([(LABELS, PRED)], kind="y_pred", options=Options(fpr_range=(0, 0.1)))


def test_the_command_line_maps_its_flags_onto_the_options_in_one_table():
    from assay.cli import cli

    params = {p.name: p for command in cli.commands.values() for p in command.params}
    for option, (param, flag, _) in FLAGS.items():
        assert option in NAMES, option
        assert param in params, (option, param)
        assert flag in params[param].opts, (option, flag)
    report = {p.name: p for p in cli.commands["report"].params}
    for option, (param, _, parse) in FLAGS.items():  # a flag's default is the option's default
        default = report[param].default if param in report else None
        if parse is None and isinstance(default, (bool, int, float, str)):  # click's "unset" is a sentinel
            assert default == DEFAULTS[option], option


def test_a_bad_flag_value_is_one_line_naming_the_flag(tmp_path, capsys):
    path = tmp_path / "p.csv"
    path.write_text("y,p\n1,0.9\n0,0.2\n1,0.6\n0,0.4\n")
    for args, flag in ((["--lift-depth", "2"], "--lift-depth"), (["--bins", "0"], "--bins"),
                       (["--confidence", "1"], "--confidence"), (["--costs", "fp=0,tn=1"], "--costs")):
        status, out, err = run_cli(["report", str(path), "--truth", "y", "--score", "p", *args], capsys)
        assert status == 2 and err.count("\n") == 1 and flag in err, err


def test_the_engines_end_at_the_seam_and_compute_no_metric():
    """Files in batches and Spark hand their summaries to ``assay.evaluation.from_summaries`` with the one
    options object: they import no metric, interval or test of their own, and no engine keeps a list of the
    options or their defaults (the Spark engine once did)."""
    import ast
    from pathlib import Path

    root = Path(assay.__file__).parent
    engines = {"files": root / "engines" / "files.py", "spark": root / "engines" / "spark.py",
               "stream": root / "evaluation" / "stream.py"}
    for name, path in engines.items():
        tree = ast.parse(path.read_text())
        imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
        assert not {m for m in imported if m.startswith(("assay.metrics", "assay.inference"))}, name
        texts = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
        assert not {"sensitivity_range", "calibration_strategy", "lift_depth"} <= set(texts), name
    spark_imports = {a.name for node in ast.walk(ast.parse(engines["spark"].read_text()))
                     if isinstance(node, ast.ImportFrom) and node.module == "assay.evaluation.from_summaries"
                     for a in node.names}
    assert {"evaluate_confusion_counts", "evaluate_score_counts"} <= spark_imports


def test_validate_takes_a_cost_matrix_from_the_command_line_through_the_options(tmp_path, capsys):
    """--cost-matrix reaches validate inside the options object (it once stopped at --cost-method's check)."""
    matrix = tmp_path / "costs.csv"
    matrix.write_text(",setosa,versicolor,virginica\nsetosa,0,1,1\nversicolor,5,0,1\nvirginica,1,1,0\n")
    status, out, err = run_cli(["validate", "--dataset", "iris", "--model", "decision-tree", "--folds", "3",
                                "--bootstrap", "200", "--cost-matrix", str(matrix), "--cost-method", "resample",
                                "--format", "json"], capsys)
    assert status == 0, err
    model = json.loads(out)["models"]["decision-tree"]
    assert model["metrics"]["expected_cost"]["value"] is not None


def test_many_data_sets_take_the_options_object_to_every_data_set_and_the_ranking():
    r = assay.validate_over_datasets(["iris", "wine"], models=["naive-bayes", "zero-r"], folds=3,
                                     options=Options(bootstrap=100, confidence=0.9))
    assert r.friedman.confidence == 0.9
    assert all(v.confidence == 0.9 for v in r.results.values())
