"""The boundary: every number and array a user gives is checked once, and only InvalidInput escapes.

Each test named after a defect of the reliability audit failed before its fix. The fuzz at the end
calls the public API with random, often hostile, arguments and asserts that nothing but
``InvalidInput`` (or a result) comes out: no TypeError, IndexError, OverflowError, numpy AxisError,
pyarrow error or hang.
"""

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import assay
from assay import InvalidInput
from assay.checks import CONFIDENCE_MAX, check_confidence, check_count_table, check_number, check_range
from assay.cli import main

Y = [1, 0, 1, 1, 0, 0, 1, 0]
P = [0.9, 0.2, 0.7, 0.6, 0.4, 0.1, 0.8, 0.55]


def cli(argv, capsys):
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def one_line_error(status, err):
    assert status == 2
    assert err.startswith("assay: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err


@pytest.fixture
def scores_csv(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("y,p,yhat\n" + "".join(f"{y},{p},{int(p >= 0.5)}\n" for y, p in zip(Y * 5, P * 5)))
    return path


# ----------------------------------------------------------------------------
# the checks themselves


@pytest.mark.parametrize("value", [0.0, 1.0, 1.5, -0.1, math.nan, math.inf, "high", None, 0.9999999999999999,
                                   True, [0.95], 1j])
def test_confidence_refused(value):
    with pytest.raises(InvalidInput, match="^confidence: "):
        check_confidence(value)


@pytest.mark.parametrize("value", [1e-9, 0.5, 0.95, CONFIDENCE_MAX, np.float32(0.9)])
def test_confidence_accepted(value):
    assert check_confidence(value) == float(value)


def test_confidence_at_the_limit_gives_finite_intervals():
    r = assay.proportion_ci(5, 10, confidence=CONFIDENCE_MAX)
    assert 0.0 <= r.ci.low < 0.5 < r.ci.high <= 1.0


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, "one", None, [1.0], 2 + 0j])
def test_number_refused(value):
    with pytest.raises(InvalidInput, match="^x: must be"):
        check_number(value, "x")


def test_number_huge_integer_is_refused_not_overflowing():
    with pytest.raises(InvalidInput):
        check_number(10**400, "x")


@pytest.mark.parametrize("value", [(0.1,), (0.3, 0.2), (0, 2), "0,1", None, (math.nan, 1)])
def test_range_refused(value):
    with pytest.raises(InvalidInput, match="^fpr_range: "):
        check_range(value, "fpr_range")


@pytest.mark.parametrize("table", [[[5, -3], [2, 7]], [[1e20, 1], [1, 1]], [[2**64, 1], [1, 1]], [[1.5, 1], [1, 1]],
                                   [[math.nan, 1], [1, 1]], [[1, 2, 3]], [[1]], "ab", [["a", 1], [1, 1]],
                                   [[2**53, 2**53], [1, 1]]])
def test_count_table_refused(table):
    with pytest.raises(InvalidInput, match="^matrix: "):
        check_count_table(table)


def test_count_table_exact_for_python_ints():
    assert check_count_table([[2**52, 1], [1, 1]]).tolist() == [[2**52, 1], [1, 1]]


# ----------------------------------------------------------------------------
# the API's defects (audit item 8)


def test_seed_bootstrap_and_ranges_are_checked():
    with pytest.raises(InvalidInput, match="^seed: "):
        assay.evaluate(Y, y_pred=Y, seed=-1)
    with pytest.raises(InvalidInput, match="^bootstrap: "):
        assay.evaluate(Y, y_pred=Y, bootstrap=math.nan)
    with pytest.raises(InvalidInput, match="^bootstrap: "):
        assay.evaluate(Y, y_pred=Y, bootstrap=10**20)
    with pytest.raises(InvalidInput, match="^fpr_range: "):
        assay.evaluate(Y, y_score=P, fpr_range=(0.1,))
    with pytest.raises(InvalidInput, match="^lift_depth: "):
        assay.evaluate(Y, y_score=P, lift_depth=math.nan)
    with pytest.raises(InvalidInput, match="^threshold: "):
        assay.evaluate(Y, y_score=P, threshold=math.inf)


def test_confusion_cells_beyond_the_exact_range_are_refused():
    with pytest.raises(InvalidInput, match="^matrix: cell \\(1, 1\\)"):
        assay.evaluate_confusion([[16, 5], [5, 10**20]])
    r = assay.evaluate_confusion([[16, 5], [5, 10**9]])
    assert "accuracy" in str(r)


def test_kappa_test_checks_its_table():
    with pytest.raises(InvalidInput, match="cell \\(0, 1\\) is -3"):
        assay.kappa_test([[5, -3], [2, 7]])
    with pytest.raises(InvalidInput):
        assay.kappa_test([[0, 0], [0, 0]])
    r = assay.kappa_test([[88, 10, 2], [14, 40, 6], [18, 10, 12]])  # seed 004's example
    assert round(r.kappa, 4) == 0.4915 and r.ci.low <= r.kappa <= r.ci.high


def test_mcnemar_counts_beyond_int64_are_refused():
    with pytest.raises(InvalidInput, match="^table: "):
        assay.mcnemar([[1, 2**64], [3, 4]])
    with pytest.raises(InvalidInput, match="^method: "):
        assay.mcnemar([[1, 2], [3, 4]], method=["exact"])


@pytest.mark.parametrize("labels", [[1j, 2j, 1j, 2j], np.array([1j, 2j, 1j, 2j]), [{"a": 1}, {"a": 2}] * 2,
                                    [[1], [2]] * 2, [(1, 2), (3, 4)] * 2])
def test_labels_that_are_not_labels(labels):
    with pytest.raises(InvalidInput, match="^y_true"):
        assay.evaluate(labels, y_pred=labels)


@pytest.mark.parametrize(("dtype", "values"), [(np.int8, [-100, 0, 100]), (np.int8, [-128, 127]),
                                               (np.int16, [-32768, 0, 32767]), (np.uint8, [0, 128, 255]),
                                               (np.uint64, [2**64 - 1, 2**64 - 3, 2**64 - 2])])
def test_integer_labels_at_the_edges_of_their_type(dtype, values):
    """Issue 22.10: array - low in int8 overflowed (100 - (-100)): ValueError from np.bincount, in
    confusion_counts, evaluate, roc_curve, average_precision and compare."""
    y = np.array(values * 2, dtype=dtype)
    assert assay.confusion_counts(y, y).counts.tolist() == (2 * np.eye(len(values), dtype=int)).tolist()
    assert assay.evaluate(y, y_pred=y).metrics["accuracy"].value == 1.0
    assert sorted(assay.evaluate(y, y_pred=y).classes) == sorted(values)
    two = np.array([values[0], values[-1]] * 3, dtype=dtype)
    scores = [0.1, 0.9, 0.3, 0.6, 0.4, 0.8]
    assert assay.roc_auc(two, scores, pos_label=values[-1]) == 1.0
    assert assay.average_precision(two, scores, pos_label=values[-1]) == 1.0
    assert assay.roc_curve(two, scores, pos_label=values[-1])[1][-1] == 1.0
    assert assay.compare(two, two, two[::-1].copy(), bootstrap=200).tests["mcnemar"].b == 6  # the second all wrong


def test_combined_hull_of_nothing():
    with pytest.raises(InvalidInput, match="^rankings: "):
        assay.combined_hull({})
    with pytest.raises(InvalidInput, match="^rankings: "):
        assay.combined_hull({"A": 0.5})


def test_compare_names_and_specs():
    a, b = {"y_pred": [1, 0, 1, 1, 0, 0, 1, 1]}, {"y_pred": [1, 1, 1, 0, 0, 0, 1, 0]}
    with pytest.raises(InvalidInput, match="^names: "):
        assay.compare(Y, a, b, names=("A",))
    with pytest.raises(InvalidInput, match="^names: "):
        assay.compare(Y, a, b, names=("A", "A"))
    with pytest.raises(InvalidInput, match="has 2 values but y_true has 8"):  # labels as they are, of another length
        assay.compare(Y, [1, 0], b)
    with pytest.raises(InvalidInput, match="^b: expected one model's predictions"):
        assay.compare(Y, a, {"y_pred": [1] * 8, "y_score": [0.5] * 8})
    with pytest.raises(InvalidInput, match="^a: "):
        assay.compare_unpaired(None, None)


def test_roc_auc_of_a_column_vector_equals_the_flat_one():
    column = np.asarray(P).reshape(-1, 1)
    assert assay.roc_auc(Y, column) == assay.roc_auc(Y, P)


def test_labels_argument_must_be_a_list():
    with pytest.raises(InvalidInput, match="^labels: "):
        assay.confusion_counts(Y, Y, labels=3.0)
    with pytest.raises(InvalidInput, match="^labels: "):
        assay.evaluate(Y, y_pred=Y, labels="01")


# ----------------------------------------------------------------------------
# silently wrong or misleading (audit item 5)


def test_all_scores_tied_is_not_called_separated():
    r = assay.evaluate(Y, y_score=[0.5] * len(Y))
    note = r.ranking.roc_auc.note
    assert r.ranking.roc_auc.value == 0.5
    assert "separated" not in note and "same score" in note


def test_separated_classes_are_called_separated():
    r = assay.evaluate([0, 0, 0, 1, 1, 1], y_score=[0.1, 0.2, 0.3, 0.7, 0.8, 0.9])
    assert "perfectly separated" in r.ranking.roc_auc.note


def test_infinite_iso_performance_slope_gives_valid_json_with_a_note(scores_csv, capsys):
    for extra in (["--costs", "fp=1e308,fn=1e-308"], ["--prevalence", "1e-320"]):
        status, out, err = cli(["report", str(scores_csv), "--truth", "y", "--score", "p", "--format", "json",
                                *extra], capsys)
        assert status == 0, err
        iso = json.loads(out)["ranking"]["iso_performance"]
        assert iso["slope"] is None and "infinite" in iso["note"]
        assert iso["optimal"]["fpr"] == 0.0  # only false positives count: none of them


def test_json_never_holds_nan_or_infinity():
    from assay.report.json import render_json

    text = render_json({"a": math.nan, "b": [math.inf, 1.0], "c": {"d": -math.inf}})
    assert json.loads(text) == {"a": None, "b": [None, 1.0], "c": {"d": None}}


def test_plots_show_labels_as_written(tmp_path):
    from matplotlib.figure import Figure

    from assay.report.plots import plot_confusion, plot_roc

    y = ["$x^$", "$\\alpha$"] * 10
    r = assay.evaluate(y, y_score=[0.1, 0.9] * 10, positive="$x^$", bootstrap=100)
    for plot in (plot_confusion, plot_roc):
        figure = Figure()
        ax = plot(r, figure.add_subplot())
        figure.savefig(tmp_path / "x.svg")  # mathtext would stop here on "$x^$"
        assert any("$\\alpha$" in t.get_text() for t in ax.get_yticklabels() + ax.get_xticklabels()
                   + [ax.title]) or plot is plot_roc


def test_validate_feature_too_large_names_the_column(tmp_path, capsys):
    rng = np.random.default_rng(1)
    rows = [f"{rng.random()},{1e308 if i == 3 else rng.random()},{'ab'[i % 2]}" for i in range(40)]
    path = tmp_path / "f.csv"
    path.write_text("x1,x2,y\n" + "\n".join(rows) + "\n")
    status, out, err = cli(["validate", str(path), "--target", "y", "--model", "naive-bayes", "--folds", "3"], capsys)
    one_line_error(status, err)
    assert "column 'x2' row 4" in err and "1e+308" in err


# ----------------------------------------------------------------------------
# the command line's numbers (audit items 4 and 5)


@pytest.mark.parametrize("extra, option", [
    (["--seed", "-1"], "--seed"),
    (["--confidence", "0.9999999999999999"], "--confidence"),
    (["--confidence", "nan"], "--confidence"),
    (["--bootstrap", "100000000000000000000"], "--bootstrap"),
    (["--threshold", "inf"], "--threshold"),
    (["--lift-depth", "nan"], "--lift-depth"),
    (["--prevalence", "nan"], "--prevalence"),
    (["--costs", "fp=nan,fn=1"], "--costs"),
    (["--fpr-range", "0.3,0.1"], "--fpr-range"),
    (["--bins", "0"], "--bins"),
    (["--clip", "inf"], "--clip"),
])
def test_report_numbers_checked(scores_csv, capsys, extra, option):
    status, out, err = cli(["report", str(scores_csv), "--truth", "y", "--score", "p", *extra], capsys)
    one_line_error(status, err)
    assert err.startswith(f"assay: error: {option}"), err


def test_curves_at_nan(scores_csv, capsys):
    status, out, err = cli(["curves", str(scores_csv), "--truth", "y", "--score", "p", "--kind", "thresholds",
                            "--at", "nan"], capsys)
    one_line_error(status, err)
    assert out == "" and "--at" in err


def test_interval_rate_nan(capsys):
    status, out, err = cli(["interval", "--rate", "nan", "--n", "10"], capsys)
    one_line_error(status, err)
    assert "--rate" in err


def test_compare_confidence_is_named(scores_csv, capsys):
    status, out, err = cli(["compare", str(scores_csv), str(scores_csv), "--truth", "y", "--pred", "yhat",
                            "--confidence", "1.5"], capsys)
    one_line_error(status, err)
    assert err.startswith("assay: error: --confidence: must be between 0 and 1"), err


def test_mcnemar_calculator_counts_beyond_int64(capsys):
    status, out, err = cli(["mcnemar", "--table", "1", str(2**64), "3", "4"], capsys)
    one_line_error(status, err)


# ----------------------------------------------------------------------------
# the API fuzz: only InvalidInput escapes

HOSTILE = st.sampled_from([None, math.nan, math.inf, -math.inf, -1, 0, 1, 0.5, 1.5, 1e308, 2**64, 10**20, 1e-320,
                           "a", "", [], [[]], (), {}, 1j, True, (0.1,), (0.2, 0.1), np.array([[1, 2]]),
                           {"fp": math.nan}, {"fp": 1e308, "fn": 1e-308}, [1, 2, 3]])


def _labels(n):
    return st.one_of(
        st.lists(st.sampled_from([0, 1]), min_size=n, max_size=n),
        st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n),
        st.lists(st.sampled_from([0, 1, None, math.nan]), min_size=n, max_size=n),
        st.lists(st.sampled_from([1j, {"a": 1}, (1,), 0]), min_size=n, max_size=n),
        st.lists(st.sampled_from([0, 1.0, "1", True]), min_size=n, max_size=n),
        # integer labels at the edges of their type: a - low overflowed in int8 (issue 22.10)
        st.tuples(st.sampled_from([(np.int8, -128, 127), (np.int8, -100, 100), (np.int16, -32768, 32767),
                                   (np.uint8, 0, 255), (np.uint64, 2**64 - 3, 2**64 - 1),
                                   (np.int64, -2**63, -2**63 + 2)]),
                  st.lists(st.integers(0, 2), min_size=n, max_size=n))
        .map(lambda t: np.array([(t[0][1], (t[0][1] + t[0][2]) // 2, t[0][2])[i] for i in t[1]], dtype=t[0][0])),
    )


def _scores(n):
    return st.one_of(
        st.lists(st.floats(0, 1), min_size=n, max_size=n),
        st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=n, max_size=n),
        st.lists(st.sampled_from([0.5]), min_size=n, max_size=n),
        st.lists(st.floats(0, 1), min_size=n, max_size=n).map(lambda v: np.asarray(v).reshape(-1, 1)),
        st.lists(st.sampled_from(["0.1", "x", None]), min_size=n, max_size=n),
        st.lists(st.floats(0, 1), min_size=n + 1, max_size=n + 1),
    )


def _maybe(default, alternative=None):
    return st.one_of(st.just(default), HOSTILE) if alternative is None else \
        st.one_of(st.just(default), alternative, HOSTILE)


FUZZED = ["evaluate", "evaluate_confusion", "rank", "roc_auc", "roc_curve", "average_precision",
          "precision_recall_curve", "proportion_ci", "mcnemar", "kappa_test", "error_difference", "compare",
          "delong_test", "mcnemar_predictions", "cochran_q", "corrected_resampled_t", "combined_hull",
          "evaluate_regression", "confusion_counts", "compare_unpaired", "friedman", "weighted_kappa_test"]
"""The public functions the fuzz covered first."""

NEWER = ["error_difference_from_counts", "f_test_5x2cv", "paired_t_5x2cv", "paired_bootstrap", "validate",
         "validate_over_datasets", "evaluate_batches", "evaluate_file", "rank_file", "critical_z", "z_confidence",
         "normal_table", "plot_critical_difference", "mix", "roc_region", *(f"plan.{f}" for f in [
             "proportion_n", "proportion_half_width", "auc_power", "auc_pair_power", "auc_pair_power_pilot",
             "mcnemar_n", "mcnemar_power", "difference_n", "difference_power"])]
"""The public functions added since (issue 22.10): with FUZZED, every function of ``assay.__all__`` and of
``assay.plan``."""

TWO_CLASS = str(Path(__file__).resolve().parent / "data" / "two_class_example.csv")


@st.composite
def api_calls(draw, only=None):
    n = draw(st.sampled_from([0, 1, 2, 6, 12]))
    y = draw(_maybe(draw(_labels(n))))
    name = only or draw(st.sampled_from(FUZZED + NEWER))
    if name in NEWER:
        return name, _newer_call(draw, name, n, y)
    f = getattr(assay, name)
    options = {"confidence": draw(_maybe(0.95)), "seed": draw(_maybe(0)), "bootstrap": draw(_maybe(200))}
    matrix = st.lists(st.lists(st.one_of(st.integers(-2, 30), st.sampled_from([1e20, 2**64, 1.5, math.nan])),
                               min_size=2, max_size=3), min_size=1, max_size=3)
    if name == "evaluate":
        which = draw(st.sampled_from(["y_pred", "y_score"]))
        prediction = draw(_maybe(draw(_labels(n) if which == "y_pred" else _scores(n))))
        extra = {k: draw(_maybe(d)) for k, d in [("threshold", None), ("costs", None), ("prevalence", None),
                                                 ("fpr_range", None), ("lift_depth", 0.1), ("positive", None),
                                                 ("labels", None), ("beta", 1.0)]}
        # the options added since: each drawn now and then, hostile or plausible
        later = {"sample_weight": _maybe(None, _scores(n)), "direction": _maybe("higher", st.sampled_from(
                     ["lower", "auto", "down"])), "at_specificity": _maybe((), st.just([0.9])),
                 "at_sensitivity": _maybe((), st.just([0.5, 1.0])), "constraints": _maybe((), st.sampled_from(
                     [["precision>=0.5"], ["fpr<=0.1"], ["recall >= 2"], ["nonsense"]])),
                 "sensitivity_range": _maybe(None, st.just((0.8, 1.0))), "kappa_weights": _maybe(
                     None, st.just("linear")), "cost_matrix": _maybe(None, st.just([[0, 1], [5, 0]])),
                 "top_k": _maybe(None, st.just(2)), "threshold": _maybe(None, st.sampled_from(
                     ["youden", "closest", "cost", "best"]))}
        for key in draw(st.lists(st.sampled_from(sorted(later)), max_size=3, unique=True)):
            extra[key] = draw(later[key])
        return name, lambda: f(y, **{which: prediction}, **options, **extra)
    if name == "evaluate_confusion":
        m = draw(_maybe([[5, 3], [2, 7]], matrix))
        return name, lambda: str(f(m, **options, positive=draw(_maybe(None)), labels=draw(_maybe(None))))
    if name == "rank":
        s = draw(_scores(n))
        extra = {k: draw(_maybe(d)) for k, d in [("costs", None), ("prevalence", None), ("fpr_range", None),
                                                 ("lift_depth", 0.1), ("confidence", 0.95)]}
        later = {"sample_weight": _maybe(None, _scores(n)), "direction": _maybe("higher", st.just("lower")),
                 "at_specificity": _maybe((), st.just([0.5])), "roc_band": st.booleans(),
                 "constraints": _maybe((), st.just(["recall>=0.5"])),
                 "sensitivity_range": _maybe(None, st.just((0.0, 0.5))), "bootstrap": _maybe(200)}
        for key in draw(st.lists(st.sampled_from(sorted(later)), max_size=3, unique=True)):
            extra[key] = draw(later[key])
        return name, lambda: f(y, y_score=s, **extra)
    if name in ("roc_auc", "roc_curve", "average_precision", "precision_recall_curve"):
        s = draw(_scores(n))
        extra = {"pos_label": draw(_maybe(None)), "sample_weight": draw(_maybe(None))}
        return name, lambda: f(y, s, **extra)
    if name == "proportion_ci":
        return name, lambda: f(draw(_maybe(3)), draw(_maybe(10)), confidence=options["confidence"],
                               method=draw(_maybe("wilson")))
    if name in ("mcnemar", "kappa_test"):
        m = draw(_maybe([[5, 3], [2, 7]], matrix))
        return name, lambda: f(m) if name == "mcnemar" else f(m, confidence=options["confidence"])
    if name == "error_difference":
        return name, lambda: f(draw(_maybe(0.15)), draw(_maybe(30)), draw(_maybe(0.25)), draw(_maybe(5000)),
                               confidence=options["confidence"])
    if name == "compare":
        a, b = {"y_pred": draw(_labels(n))}, {"y_pred": draw(_labels(n))}
        return name, lambda: f(y, draw(_maybe(a)), draw(_maybe(b)), names=draw(_maybe(("A", "B"))), **options)
    if name == "delong_test":
        return name, lambda: f(y, draw(_scores(n)), draw(_scores(n)), confidence=options["confidence"])
    if name == "mcnemar_predictions":
        return name, lambda: f(y, draw(_labels(n)), draw(_labels(n)), method=draw(_maybe("auto")))
    if name == "cochran_q":
        return name, lambda: f(draw(_maybe(np.ones((n, 3), dtype=bool), matrix)))
    if name == "corrected_resampled_t":
        return name, lambda: f(draw(_scores(n)), n_train=draw(_maybe(90)), n_test=draw(_maybe(10)),
                               confidence=options["confidence"])
    if name == "combined_hull":
        return name, lambda: f(draw(_maybe({})))
    if name == "evaluate_regression":
        return name, lambda: f(draw(_scores(n)), draw(_scores(n)), **options)
    if name == "friedman":
        return name, lambda: f(draw(_maybe(np.ones((4, 3)), matrix)), confidence=options["confidence"])
    if name == "weighted_kappa_test":
        return name, lambda: f(draw(_maybe([[5, 3], [2, 7]], matrix)), weights=draw(_maybe("linear")),
                               confidence=options["confidence"])
    if name == "confusion_counts":
        return name, lambda: f(y, draw(_labels(n)), labels=draw(_maybe(None)))
    return name, lambda: f(draw(HOSTILE), draw(HOSTILE), confidence=options["confidence"])


def _newer_call(draw, name, n, y):
    """A call of one of the NEWER functions, each argument plausible or hostile."""
    confidence = draw(_maybe(0.95))
    if name.startswith("plan."):
        f = getattr(assay.plan, name[5:])
        number = st.one_of(st.sampled_from([5e-324, 1e-300, 1e-16, 0.0, 0.05, 0.3, 0.5, 0.7, 0.8, 0.95, 1.0,
                                            1e15, 1e300, 10**20]), st.floats(0, 1), HOSTILE)
        level = st.one_of(st.none(), number)
        if name == "plan.auc_pair_power":
            return lambda: f(draw(number), a1=draw(_maybe(1.0)), b1=draw(_maybe(1.0)), a2=draw(_maybe(1.5)),
                             b2=draw(_maybe(1.0)), rn=draw(_maybe(0.5)), ra=draw(_maybe(0.5)),
                             fpr_range=draw(_maybe(None, st.just((0.0, 0.2)))), ncases=draw(level),
                             kappa=draw(level), sig_level=draw(_maybe(0.05, level)), power=draw(level))
        if name == "plan.auc_pair_power_pilot":
            return lambda: f(draw(number), draw(number), var1=draw(number), var2=draw(number), cov=draw(number),
                             pilot_ncases=draw(_maybe(40)), pilot_ncontrols=draw(_maybe(70)), ncases=draw(level),
                             sig_level=draw(_maybe(0.05, level)), power=draw(level))
        if name == "plan.auc_power":
            return lambda: f(draw(level), ncases=draw(level), ncontrols=draw(level), kappa=draw(level),
                             sig_level=draw(_maybe(0.05, level)), power=draw(level))
        if name in ("plan.proportion_n", "plan.proportion_half_width"):
            return lambda: f(draw(number), draw(number), confidence=confidence, method=draw(_maybe(
                "wilson", st.sampled_from(["normal", "clopper-pearson", "jeffreys", "agresti-coull"]))))
        if name in ("plan.mcnemar_n", "plan.difference_n"):
            return lambda: f(draw(number), draw(number), confidence=confidence, power=draw(_maybe(0.8, number)))
        if name == "plan.mcnemar_power":
            return lambda: f(draw(number), draw(number), draw(number), confidence=confidence)
        return lambda: f(draw(number), draw(number), draw(number), draw(number), confidence=confidence)
    f = getattr(assay, name)
    if name == "error_difference_from_counts":
        return lambda: f(draw(_maybe(5)), draw(_maybe(30)), draw(_maybe(20)), draw(_maybe(200)),
                         confidence=confidence)
    if name in ("f_test_5x2cv", "paired_t_5x2cv"):
        table = _maybe(np.full((5, 2), 0.01), st.lists(st.lists(st.floats(allow_nan=True, allow_infinity=True),
                                                                 min_size=2, max_size=2), min_size=4, max_size=6))
        return (lambda: f(draw(table))) if name == "f_test_5x2cv" else \
            (lambda: f(draw(table), confidence=confidence))
    if name == "paired_bootstrap":
        codes = _maybe([0, 1, 1, 0, 1, 0], st.lists(st.integers(-1, 3), min_size=n, max_size=n))
        from assay.metrics.confusion import accuracy

        return lambda: f(draw(codes), draw(codes), draw(codes), draw(_maybe(2)), draw(_maybe(accuracy)),
                         confidence=confidence, resamples=draw(_maybe(200)), seed=draw(_maybe(0)))
    if name == "validate":
        return lambda: f(dataset=draw(_maybe("iris", st.just("nope"))), models=draw(_maybe(["zero-r"], st.just(
            ["naive-bayes", "zero-r"]))), method=draw(_maybe("cv", st.sampled_from(["holdout", "unknown"]))),
            folds=draw(_maybe(2)), bootstrap=draw(_maybe(100)), seed=draw(_maybe(0)), confidence=confidence,
            costs=draw(_maybe(None)))
    if name == "validate_over_datasets":
        small = {"x": [0.1, 0.5, 0.9, 0.2, 0.8, 0.3, 0.7, 0.4], "y": [0, 1, 1, 0, 1, 0, 1, 0]}
        return lambda: f(draw(_maybe([("a", small, "y"), ("b", small, "y")], st.just(["iris"]))),
                         models=draw(_maybe(["zero-r"])), folds=draw(_maybe(2)), bootstrap=draw(_maybe(100)))
    if name == "evaluate_batches":
        part = st.tuples(_maybe(draw(_labels(n))), _maybe(draw(_scores(n))))
        return lambda: f(draw(_maybe([draw(part)], st.lists(part, max_size=3))),
                         kind=draw(_maybe("y_score", st.just("y_pred"))), confidence=confidence,
                         bootstrap=draw(_maybe(200)), memory=draw(_maybe(None, st.just(1 << 20))))
    if name in ("evaluate_file", "rank_file"):
        source = _maybe(TWO_CLASS, st.just("/nonexistent/x.csv"))
        columns = {"truth": draw(_maybe("truth", st.just("nope"))), "score": draw(_maybe("Class1"))}
        extra = {"positive": draw(_maybe("Class1"))} if name == "rank_file" else {
            "positive": draw(_maybe("Class1")), "bootstrap": draw(_maybe(200))}
        return lambda: f(draw(source), **columns, confidence=confidence, **extra)
    if name == "critical_z":
        return lambda: f(confidence, two_sided=draw(_maybe(True)))
    if name == "z_confidence":
        return lambda: f(draw(_maybe(1.96)), two_sided=draw(_maybe(True)))
    if name == "normal_table":
        return lambda: f(draw(_maybe(None, st.just(0.9))), z=draw(_maybe(None, st.just(1.53))),
                         two_sided=draw(_maybe(True)))
    if name == "plot_critical_difference":
        return lambda: f(draw(_maybe(assay.friedman(np.array([[0.9, 0.8, 0.7], [0.8, 0.7, 0.6]])))),
                         draw(_maybe(None)))
    if name == "mix":
        point = _maybe((0.1, 0.5), st.tuples(st.floats(allow_nan=True), st.floats(allow_nan=True)))
        return lambda: f(draw(point), draw(point), draw(_maybe(0.25, st.floats(allow_nan=True))))
    assert name == "roc_region"
    return lambda: f(draw(_maybe(0.1, st.floats(allow_nan=True))), draw(_maybe(0.5, st.floats(allow_nan=True))))


@settings(max_examples=300)
@given(api_calls())
def test_api_fuzz_only_invalid_input_escapes(call):
    name, thunk = call
    try:
        thunk()
    except InvalidInput:
        pass


@pytest.mark.parametrize("name", NEWER)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_api_fuzz_each_newer_function(name, data):
    """Issue 22.10: every public function the fuzz above did not reach, 25 calls each."""
    _, thunk = data.draw(api_calls(only=name))
    try:
        thunk()
    except InvalidInput:
        pass
    finally:
        if "matplotlib.pyplot" in sys.modules:
            sys.modules["matplotlib.pyplot"].close("all")
