"""The worked examples of the source documents (shared/seeds), with their errata.

Oracle: the seeds' own printed numbers, to the rounding they print (3 or 4
decimals); where the seeds' README lists an erratum, the corrected value.
"""

import numpy as np
import pytest

import assay
from assay.metrics.confusion import expected_random


# --- seed 004: Wilson interval of the accuracy, table for N = 50 ... 5000 -------------------

@pytest.mark.parametrize(
    ("n", "low", "high"),
    [(50, 0.670, 0.888), (100, 0.711, 0.866), (500, 0.763, 0.833), (1000, 0.774, 0.824), (5000, 0.789, 0.811)],
)
def test_seed004_accuracy_interval_table(n, low, high):
    # The slide prints 3 decimals, mostly rounded but truncated at N = 100 (0.86663 -> 0.866):
    # agree within the printed precision either way.
    r = assay.proportion_ci(int(0.8 * n), n, confidence=0.95)
    assert abs(r.ci.low - low) < 0.001
    assert abs(r.ci.high - high) < 0.001


@pytest.mark.parametrize(("n", "low", "high"), [(100, 0.691, 0.801), (1000, 0.732, 0.767)])
def test_seed004_accuracy_75_percent_at_80(n, low, high):
    # "N=100 => p in [69.1, 80.1] con confidenza del 80%"; N=1000 => [73.2, 76.7]
    r = assay.proportion_ci(int(0.75 * n), n, confidence=0.80)
    assert round(r.ci.low, 3) == low
    assert round(r.ci.high, 3) == high


@pytest.mark.parametrize(("n", "low", "high"), [(1000, 0.233, 0.268), (100, 0.199, 0.309)])
def test_seed002_error_rate_at_80(n, low, high):
    # erratum: [0.203, 0.313] on the slide does not follow from its own formula; [0.199, 0.309] does
    r = assay.proportion_ci(n // 4, n, confidence=0.80)
    assert round(r.ci.low, 3) == low
    assert round(r.ci.high, 3) == high


def test_seed002_wilson_formula_matches_slide_11():
    # p = (f + z²/2N ± z sqrt(f/N - f²/N + z²/4N²)) / (1 + z²/N), z for 80%
    f, n, z = 0.25, 100, 1.2815515655446004
    half = z * np.sqrt(f / n - f * f / n + z * z / (4 * n * n))
    expected = ((f + z * z / (2 * n) - half) / (1 + z * z / n), (f + z * z / (2 * n) + half) / (1 + z * z / n))
    r = assay.proportion_ci(25, 100, confidence=0.80)
    assert r.ci.low == pytest.approx(expected[0], abs=1e-12)
    assert r.ci.high == pytest.approx(expected[1], abs=1e-12)


# --- seed 004: kappa on a 3-class example against the random predictor -------------------

SEED004_MATRIX = [[88, 10, 2], [14, 40, 6], [18, 10, 12]]


def test_seed004_kappa_three_classes():
    r = assay.evaluate_confusion(SEED004_MATRIX, labels=["a", "b", "c"])
    assert r["accuracy"].value == pytest.approx(0.70)
    assert r["chance_agreement"].value == pytest.approx(0.41)
    assert round(r["kappa"].value, 4) == 0.4915


def test_seed004_random_predictor_matrix():
    assert expected_random(np.array(SEED004_MATRIX)).tolist() == [
        [60, 30, 10], [36, 18, 6], [24, 12, 4]
    ]
    r = assay.evaluate_confusion(SEED004_MATRIX, labels=["a", "b", "c"])
    assert r.to_dict()["confusion"]["expected_random"] == [[60, 30, 10], [36, 18, 6], [24, 12, 4]]


def test_seed004_per_class_and_averaged_precision_recall_f1():
    # Precision(a) = TP / (TP + FP) per class, averaged as (P(a) + P(b)) / 2 (macro)
    r = assay.evaluate_confusion([[50, 10], [5, 35]], labels=["a", "b"], positive="a")
    pa, pb = 50 / 55, 35 / 45
    ra, rb = 50 / 60, 35 / 40
    assert r.per_class["a"]["precision"].value == pytest.approx(pa)
    assert r.per_class["b"]["precision"].value == pytest.approx(pb)
    assert r.averages["macro"]["precision"].value == pytest.approx((pa + pb) / 2)
    assert r.averages["macro"]["recall"].value == pytest.approx((ra + rb) / 2)
    fa, fb = 2 * pa * ra / (pa + ra), 2 * pb * rb / (pb + rb)
    assert r.averages["macro"]["f1"].value == pytest.approx((fa + fb) / 2)


# --- seed 002: kappa examples ------------------------------------------------------------------

def test_seed002_kappa_example_1_majority_classifier():
    # 90% class A, 10% class B; everything predicted A: error 10%, P(E) = 0.9, K = 0
    r = assay.evaluate_confusion([[90, 0], [10, 0]], labels=["A", "B"], positive="B")
    assert r["error_rate"].value == pytest.approx(0.10)
    assert r["chance_agreement"].value == pytest.approx(0.90)
    assert r["kappa"].value == pytest.approx(0.0, abs=1e-12)
    # precision of B is undefined (never predicted): null with a reason, not 0
    assert r["precision"].value is None
    assert "no predicted" in r["precision"].note


def test_seed002_kappa_example_2():
    # 90/10 classes, 80% accuracy, the classifier says A 80% of the time: P(E) = 0.74, K = 0.23
    r = assay.evaluate_confusion([[75, 15], [5, 5]], labels=["A", "B"], positive="B")
    assert r["accuracy"].value == pytest.approx(0.80)
    assert r["chance_agreement"].value == pytest.approx(0.74)
    assert round(r["kappa"].value, 2) == 0.23


# --- seed 000: constant, ideal, inverted and random classifiers in ROC space -------------------

@pytest.mark.parametrize(
    ("name", "matrix", "point"),
    [
        # rows actual (neg, pos), columns predicted (neg, pos); 40 negatives, 60 positives
        ("always positive CP", [[0, 40], [0, 60]], (1.0, 1.0)),
        ("always negative CN", [[40, 0], [60, 0]], (0.0, 0.0)),
        ("ideal CI", [[40, 0], [0, 60]], (0.0, 1.0)),
        ("inverted CE", [[0, 40], [60, 0]], (1.0, 0.0)),
        ("coin CC_1/2", [[20, 20], [30, 30]], (0.5, 0.5)),
        # erratum: the bottom-right cell of CC_4/5 is (1/5) TN
        ("biased coin CC_4/5", [[8, 32], [12, 48]], (0.8, 0.8)),
    ],
)
def test_seed000_reference_classifiers(name, matrix, point):
    r = assay.evaluate_confusion(matrix, labels=["neg", "pos"], positive="pos")
    assert (r["fpr"].value, r["recall"].value) == pytest.approx(point)


def test_seed000_random_classifiers_have_no_information():
    for matrix in ([[20, 20], [30, 30]], [[8, 32], [12, 48]]):
        r = assay.evaluate_confusion(matrix, labels=["neg", "pos"], positive="pos")
        assert r["youden_j"].value == pytest.approx(0.0, abs=1e-12)
        assert r["kappa"].value == pytest.approx(0.0, abs=1e-12)


def test_seed000_constant_classifier_has_undefined_ratios():
    r = assay.evaluate_confusion([[0, 40], [0, 60]], labels=["neg", "pos"], positive="pos")
    assert r["specificity"].value == 0.0
    assert r["npv"].value is None and r["npv"].note == "no predicted negatives ('neg')"
    assert r["mcc"].value is None and r["mcc"].note


# seed 000's threshold table: p >= s for s = 0, 0.2, 0.4, 0.6, 0.8, 1 (six thresholds; erratum).
# The seed's first table (which object is predicted positive at each s) is right; its second
# table (FP/TN, VP/TP) is shifted by one column for FP/TN at s = 0.4 and 0.6: at s = 0.4 the
# second object (p = 0.4, negative) is predicted positive, so FP/TN = 1/2, and at s = 0.6 no
# negative is, so FP/TN = 0. These values follow from the first table.
SEED000_Y = [1, 0, 1, 1, 0]
SEED000_P = [0.7, 0.4, 0.8, 0.7, 0.3]


@pytest.mark.parametrize(
    ("s", "fpr", "tpr"),
    [(0.0, 2 / 2, 3 / 3), (0.2, 2 / 2, 3 / 3), (0.4, 1 / 2, 3 / 3), (0.6, 0, 3 / 3), (0.8, 0, 1 / 3), (1.0, 0, 0)],
)
def test_seed000_threshold_table(s, fpr, tpr):
    r = assay.evaluate(SEED000_Y, y_score=SEED000_P, threshold=s, positive=1)
    predicted = [int(p >= s) for p in SEED000_P]
    assert r.confusion.counts[1, 1] == sum(1 for y, q in zip(SEED000_Y, predicted) if y == 1 and q == 1)
    assert r["fpr"].value == pytest.approx(fpr)
    assert r["recall"].value == pytest.approx(tpr)


# --- seed 003: the 20-instance example and its point with 70% accuracy --------------------------

SEED003_CLASS = list("ppnpppnnpnpnpnnnpnpn")
SEED003_SCORE = [.9, .8, .7, .6, .55, .54, .53, .52, .51, .505, .4, .39, .38, .37, .36, .35, .34, .33, .30, .1]


def test_seed003_point_with_70_percent_accuracy():
    # the point (0.1, 0.5): 50% of positives and 90% of negatives right, 14 of 20 correct
    r = assay.evaluate(SEED003_CLASS, y_score=SEED003_SCORE, threshold=0.54, positive="p")
    assert r["fpr"].value == pytest.approx(0.1)
    assert r["recall"].value == pytest.approx(0.5)
    assert r["accuracy"].value == pytest.approx(0.70)
    assert int(np.trace(r.confusion.counts)) == 14


# --- seed 003: accuracy as a joint probability view ------------------------------------------

def test_seed003_joint_probabilities_sum_to_one():
    r = assay.evaluate_confusion([[50, 10], [5, 35]], labels=["n", "p"], positive="p")
    joint = np.array(r.to_dict()["confusion"]["joint"])
    assert joint.sum() == pytest.approx(1.0)
    assert joint[1, 1] == pytest.approx(35 / 100)


# --- seed 004: McNemar ------------------------------------------------------------------------

def test_seed004_mcnemar_example():
    r = assay.mcnemar([[80, 40], [20, 60]])
    assert round(r.statistic, 3) == 6.017
    assert round(r.pvalue, 3) == 0.014
    assert r.significant(0.95)
