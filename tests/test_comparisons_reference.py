"""Comparing two (or more) models: every test against an independent reference.

Oracles, and where their expected values come from:

* Seed 004 (shared/seeds/004_d909da66256c9120.txt, with the erratum in
  shared/seeds/README.md): M1 with e1 = 0.15 on n1 = 30, M2 with e2 = 0.25 on
  n2 = 5000 gives d = 0.100 ± 0.128 at 95%, not significant, z = 1.527, and the
  difference becomes significant below the confidence 0.8733 (exact; the slide's
  0.874 and p 0.126 are read off a printed table: the exact p is 0.1267).
  Significant at 0.871, not at 0.874 (the slide's two checks). McNemar 6.017,
  p 0.014 on [[80, 40], [20, 60]].
* statsmodels 0.15: ``stats.proportion.test_proportions_2indep`` and
  ``confint_proportions_2indep`` (``method="wald"``, ``compare="diff"``: the
  unpooled Wald test and interval of two independent proportions);
  ``stats.contingency_tables.cochrans_q``; ``stats.contingency_tables.mcnemar``
  (exact, and chi-squared with continuity correction).
* pROC (Robin et al. 2011) on its aSAH data (``tests/data/asah.csv``, outcome
  ``Poor`` positive): the expected values of pROC's own test suite,
  ``tests/testthat/test-roc.test.R`` of github.com/xrobin/pROC (commit
  0bc764d2702cfea130a80dd41ea43fd21d169752), test "roc.test statistic and p are
  as expected with defaults": ``roc.test(r.wfns, r.s100b)`` Z = 2.20898359144091,
  p = 0.0271757822291882, 95% CI 0.0104061769564846 .. 0.174214419249478;
  ``roc.test(r.wfns, r.ndka)`` Z = 2.79777591868904, p = 0.00514557970691098,
  CI 0.0634011709339876 .. 0.3600405634833566; ``roc.test(r.ndka, r.s100b)``
  Z = -1.39077002573558, p = 0.164295175223054, CI -0.2876917446341914 ..
  0.0488706064228094; and ``roc.test(r.wfns, r.wfns)`` p = 1. These are printed
  to 15 significant digits; assay agrees to 1e-12 relative.
* A direct O(P N) DeLong computation written here from the definitions (pairwise
  comparisons, ties 1/2; S10 and S01 as 2 x 2 covariance matrices), to 1e-12;
  scikit-learn's ``roc_auc_score`` for the two AUCs.
* SciPy: ``stats.t`` and ``stats.f`` for the p-values and quantiles of the
  resampled tests, whose statistics are recomputed here with explicit loops
  from the formulas of Dietterich (1998), Alpaydin (1999) and Nadeau & Bengio
  (2003); 1e-12.
* mlxtend (optional, skipped when not installed): ``evaluate.paired_ttest_5x2cv``
  and ``combined_ftest_5x2cv`` run on real estimators, with a recording scorer
  that captures the ten per-fold differences they use; assay's tests on those
  differences agree to 1e-12.
* A brute-force paired bootstrap that resamples instance indices with numpy,
  for the multinomial paired bootstrap; Monte-Carlo tolerances justified at the
  test. scikit-learn's ``confusion_matrix`` / ``f1_score`` for the observed values.

Tolerances: 1e-12 (relative and absolute) where the reference evaluates the same
formula in floating point (direct DeLong, the hand computations, SciPy's
distributions, mlxtend, pROC's 15-digit values); 1e-9 against statsmodels, whose
arithmetic takes other routes; half a unit of the last printed digit for seed
004's rounded values; Monte-Carlo tolerances for the bootstrap, justified in
``test_paired_bootstrap_matches_brute_force``.

Properties (hypothesis): swapping the two models flips the sign of every
difference and of its interval and leaves p-values unchanged (exactly for the
bootstrap with the same seed); intervals contain their estimate and widen with
the confidence level; NaN never reaches ``to_dict`` (``json.dumps(...,
allow_nan=False)`` succeeds); each ``to_dict`` has the common keys.

Intended differences from the references (documented, asserted here):

* DeLong with two identical classifiers: pROC reports Z = 0, p = 1; assay
  reports p = 1 and no statistic (0 / 0), with a note.
* The DeLong interval is kept within [-1, 1] (pROC does not clip; no clipping
  happens on the aSAH examples).
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import confusion_matrix, f1_score, roc_auc_score
from statsmodels.stats.contingency_tables import cochrans_q
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats import proportion as sm_proportion

from assay.errors import InvalidInput
from assay.inference.cochran import cochran_q
from assay.inference.difference import error_difference, error_difference_from_counts, significance_verdict
from assay.inference.mcnemar import mcnemar, mcnemar_predictions, paired_table
from assay.inference.paired_bootstrap import paired_bootstrap
from assay.inference.resampled import corrected_resampled_t, f_test_5x2cv, paired_t, paired_t_5x2cv
from assay.inference.roc_compare import delong_test
from assay.metrics.confusion import accuracy, fbeta, one_vs_rest, recall

DATA = Path(__file__).parent / "data"
COMMON_KEYS = {"statistic", "pvalue", "ci", "method", "verdict", "significant"}


def close(x: float, ref: float, *, rel: float = 1e-12, abs: float = 1e-12) -> bool:
    return x == pytest.approx(ref, rel=rel, abs=abs, nan_ok=True)


def json_safe(d: dict) -> dict:
    """The dict has the common keys and survives JSON without NaN."""
    assert COMMON_KEYS <= set(d), set(d)
    json.dumps(d, allow_nan=False)
    return d


confidences = st.floats(min_value=0.5, max_value=0.999, allow_nan=False)
confidence_pairs = st.tuples(confidences, confidences).map(sorted)


# ==========================================================================
# 1. the difference of two error rates on independent test sets (seed 004)


def test_seed_004_difference_of_two_error_rates():
    r = error_difference(0.15, 30, 0.25, 5000)
    assert round(r.difference, 3) == 0.100
    assert round(r.se**2, 4) == 0.0043
    assert round(r.ci.high - r.difference, 3) == 0.128 and close(r.ci.high - r.difference, r.difference - r.ci.low)
    assert r.ci.contains(0.0) and not r.significant(0.95)
    assert round(r.statistic, 3) == 1.527
    assert round(r.threshold_confidence, 4) == 0.8733  # erratum: exact, not the table's 0.874
    assert round(r.pvalue, 4) == 0.1267
    assert r.significant(0.871) and not r.significant(0.874)  # the slide's two checks
    assert r.verdict() == ("at 95%, the difference between the two error rates is not significant (p = 0.127); "
                           "it would be at a confidence below 87.3%")
    d = json_safe(r.to_dict(0.95))
    for key in ("difference", "ci", "pvalue", "significant", "threshold_confidence"):  # the product contract
        assert key in d
    assert d["threshold_confidence"] == r.threshold_confidence and d["significant"] is False
    assert (d["e1"], d["n1"], d["e2"], d["n2"]) == (0.15, 30, 0.25, 5000)
    at_80 = r.to_dict(0.8)
    assert at_80["significant"] is True and at_80["ci"][0] > 0
    assert at_80["verdict"].startswith("at 80%, the difference between the two error rates is significant")


@given(n1=st.integers(1, 3000), n2=st.integers(1, 3000), data=st.data(), confidence=confidences)
@example(n1=30, n2=40, data=None, confidence=0.95)
def test_difference_matches_statsmodels_wald(n1, n2, data, confidence):
    if data is None:
        k1, k2 = 3, 10
    else:
        k1, k2 = data.draw(st.integers(0, n1)), data.draw(st.integers(0, n2))
    assume(0 < k1 < n1 or 0 < k2 < n2)
    r = error_difference_from_counts(k1, n1, k2, n2, confidence=confidence)
    with np.errstate(divide="ignore", invalid="ignore"):  # statsmodels also computes ratios it does not return
        ref = sm_proportion.test_proportions_2indep(k2, n2, k1, n1, method="wald", compare="diff")
    assert close(r.difference, k2 / n2 - k1 / n1)
    assert close(r.statistic, ref.statistic, rel=1e-9, abs=1e-9)
    assert close(r.pvalue, ref.pvalue, rel=1e-9, abs=1e-12)
    low, high = sm_proportion.confint_proportions_2indep(k2, n2, k1, n1, method="wald", compare="diff",
                                                         alpha=1 - confidence)
    assert close(r.ci.low, low, rel=1e-9, abs=1e-12) and close(r.ci.high, high, rel=1e-9, abs=1e-12)
    rates = error_difference(k1 / n1, n1, k2 / n2, n2, confidence=confidence)
    assert (rates.statistic, rates.pvalue, rates.ci) == (r.statistic, r.pvalue, r.ci)


@given(e1=st.floats(0, 1), n1=st.integers(1, 10**6), e2=st.floats(0, 1), n2=st.integers(1, 10**6),
       confidences=confidence_pairs)
@example(e1=0.0, n1=10, e2=0.0, n2=20, confidences=[0.9, 0.95])
@example(e1=0.0, n1=10, e2=1.0, n2=20, confidences=[0.9, 0.95])
def test_difference_properties(e1, n1, e2, n2, confidences):
    lo, hi = confidences
    a = error_difference(e1, n1, e2, n2, confidence=lo)
    b = error_difference(e2, n2, e1, n1, confidence=lo)
    assert b.difference == -a.difference and b.statistic == pytest.approx(-a.statistic, nan_ok=True)
    assert b.pvalue == pytest.approx(a.pvalue, nan_ok=True)
    json_safe(a.to_dict(lo))
    json_safe(a.to_dict(hi))
    if a.ci is None:
        assert a.se == 0 and math.isnan(a.pvalue) and a.note and a.to_dict()["pvalue"] is None
        assert "cannot be tested" in a.verdict()
        return
    assert a.ci.contains(a.difference)
    assert close(b.ci.low, -a.ci.high) and close(b.ci.high, -a.ci.low)
    wide = a.interval(hi)
    assert wide.low <= a.ci.low + 1e-15 and a.ci.high <= wide.high + 1e-15
    assert a.significant(lo) == (not a.ci.contains(0.0)) or abs(abs(a.statistic) - stats.norm.ppf(0.5 + lo / 2)) < 1e-9


@pytest.mark.parametrize("args, field", [
    ((1.5, 30, 0.2, 40), "e1"), ((0.1, 30, -0.2, 40), "e2"), ((0.1, 0, 0.2, 40), "n1"),
    ((0.1, 30, 0.2, 2.5), "n2"), ((0.1, 30, 0.2, True), "n2"), ((float("nan"), 30, 0.2, 40), "e1"),
])
def test_difference_rejects_bad_input(args, field):
    with pytest.raises(InvalidInput) as err:
        error_difference(*args)
    assert err.value.field == field


def test_difference_from_counts_rejects_bad_counts():
    with pytest.raises(InvalidInput) as err:
        error_difference_from_counts(31, 30, 1, 40)
    assert err.value.field == "k1"
    with pytest.raises(InvalidInput) as err:
        error_difference_from_counts(1, 30, 1.5, 40)
    assert err.value.field == "k2"
    with pytest.raises(InvalidInput) as err:
        error_difference(0.1, 30, 0.2, 40, confidence=1.0)
    assert err.value.field == "confidence"


def test_verdict_sentences():
    assert significance_verdict("the difference", 0.014, 0.95) == (
        "at 95%, the difference is significant (p = 0.014); it would not be at a confidence of 98.6% or more")
    assert significance_verdict("the difference", 1e-6, 0.95) == "at 95%, the difference is significant (p < 0.001)"
    assert significance_verdict("the difference", 1.0, 0.95).endswith("; it would not be at any confidence")
    assert significance_verdict("x", float("nan"), 0.975, note="no data") == "at 97.5%, x cannot be tested: no data"
    # the quoted level never crosses the exact threshold 1 - p
    for p in (0.12670952, 0.0499, 0.0501, 0.2):
        text = significance_verdict("d", p, 0.95)
        quoted = float(text.rsplit(" ", 1)[-1].rstrip("%")) / 100 if "below" in text else \
            float(text.split("confidence of ")[1].split("%")[0]) / 100
        assert (quoted <= 1 - p) if "below" in text else (quoted >= 1 - p)


# ==========================================================================
# 2. DeLong's test of two correlated AUCs


def direct_delong(y: np.ndarray, s1: np.ndarray, s2: np.ndarray) -> tuple[float, float, float]:
    """AUC1, AUC2 and var(AUC1 - AUC2) by all P x N comparisons (DeLong et al. 1988)."""
    pos, neg = y.astype(bool), ~y.astype(bool)
    v10, v01 = [], []
    for s in (s1, s2):
        psi = (s[pos][:, None] > s[neg][None, :]) + 0.5 * (s[pos][:, None] == s[neg][None, :])
        v10.append(psi.mean(axis=1))
        v01.append(psi.mean(axis=0))
    m, n = pos.sum(), neg.sum()
    s10 = np.cov(np.vstack(v10), ddof=1)
    s01 = np.cov(np.vstack(v01), ddof=1)
    var = (s10[0, 0] + s10[1, 1] - 2 * s10[0, 1]) / m + (s01[0, 0] + s01[1, 1] - 2 * s01[0, 1]) / n
    return float(v10[0].mean()), float(v10[1].mean()), float(var)


@st.composite
def paired_scores(draw, max_n: int = 40):
    n = draw(st.integers(4, max_n))
    y = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    assume(2 <= y.sum() <= n - 2)
    values = st.sampled_from([-1.5, -0.0, 0.0, 0.1, 0.25, 0.5, 0.75, 1.0, 3.0]) | st.floats(-5, 5, width=32)
    s1 = np.array(draw(st.lists(values, min_size=n, max_size=n)))
    s2 = np.array(draw(st.lists(values, min_size=n, max_size=n)))
    if draw(st.booleans()):
        s1 = s1.astype(np.float32)
    return y, s1, s2


@given(data=paired_scores())
def test_delong_matches_direct_computation(data):
    y, s1, s2 = data
    r = delong_test(y, s1, s2)
    a1, a2, var = direct_delong(y, s1.astype(np.float64), s2)
    assert close(r.auc1, a1) and close(r.auc2, a2)
    assert close(r.auc1, roc_auc_score(y, s1)) and close(r.auc2, roc_auc_score(y, s2))
    assert close(r.difference, a1 - a2)
    assert close(r.se**2, max(var, 0.0))
    if r.se > 0:
        assert close(r.statistic, (a1 - a2) / math.sqrt(var), rel=1e-9, abs=1e-9)
        assert close(r.pvalue, 2 * stats.norm.sf(abs((a1 - a2) / math.sqrt(var))), rel=1e-9, abs=1e-12)
    json_safe(r.to_dict())


@given(data=paired_scores(), confidences=confidence_pairs)
def test_delong_properties(data, confidences):
    y, s1, s2 = data
    lo, hi = confidences
    a = delong_test(y, s1, s2, confidence=lo)
    b = delong_test(y, s2, s1, confidence=lo)
    assert b.difference == -a.difference and b.pvalue == a.pvalue
    assert b.statistic == pytest.approx(-a.statistic, nan_ok=True)
    json_safe(a.to_dict(lo))
    json_safe(a.to_dict(hi))
    if a.ci is None:
        assert a.note and a.to_dict()["pvalue"] is None
        return
    assert close(b.ci.low, -a.ci.high) and close(b.ci.high, -a.ci.low)
    assert a.ci.contains(a.difference) and -1.0 <= a.ci.low and a.ci.high <= 1.0
    wide = a.interval(hi)
    assert wide.low <= a.ci.low + 1e-15 and a.ci.high <= wide.high + 1e-15


def _asah():
    with open(DATA / "asah.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    poor = np.array([r["outcome"] == "Poor" for r in rows])
    return poor, {c: np.array([float(r[c]) for r in rows]) for c in ("s100b", "wfns", "ndka")}


@pytest.mark.parametrize("first, second, z, p, ci", [
    ("wfns", "s100b", 2.20898359144091, 0.0271757822291882, (0.0104061769564846, 0.174214419249478)),
    ("wfns", "ndka", 2.79777591868904, 0.00514557970691098, (0.0634011709339876, 0.3600405634833566)),
    ("ndka", "s100b", -1.39077002573558, 0.164295175223054, (-0.2876917446341914, 0.0488706064228094)),
])
def test_delong_matches_proc_roc_test_on_asah(first, second, z, p, ci):
    """pROC tests/testthat/test-roc.test.R, "roc.test statistic and p are as expected with defaults"."""
    poor, x = _asah()
    r = delong_test(poor, x[first], x[second])
    assert (r.n_positive, r.n_negative) == (41, 72)
    assert close(r.statistic, z) and close(r.pvalue, p)
    assert close(r.ci.low, ci[0]) and close(r.ci.high, ci[1])
    # pROC's "reversed" test: the same p-value, the opposite statistic
    rev = delong_test(poor, x[second], x[first])
    assert close(rev.statistic, -z) and close(rev.pvalue, p)
    d = json_safe(r.to_dict())
    assert d["significant"] == (p < 0.05)


def test_delong_identical_curves_like_proc():
    """pROC: roc.test(r.wfns, r.wfns) gives p = 1 (and Z = 0; assay: no statistic, with a note)."""
    poor, x = _asah()
    r = delong_test(poor, x["wfns"], x["wfns"])
    assert r.pvalue == 1.0 and r.difference == 0.0 and r.se == 0.0
    assert (r.ci.low, r.ci.high) == (0.0, 0.0) and r.note
    d = json_safe(r.to_dict())
    assert d["statistic"] is None and d["significant"] is False and d["correlation"] == 1.0


def test_delong_degenerate_inputs():
    one_pos = delong_test([1, 0, 0, 0], [0.9, 0.1, 0.2, 0.3], [0.5, 0.1, 0.2, 0.3])
    assert one_pos.auc1 == 1.0 and math.isnan(one_pos.pvalue) and one_pos.ci is None and one_pos.note
    json_safe(one_pos.to_dict())
    no_pos = delong_test([0, 0, 0], [0.9, 0.1, 0.2], [0.5, 0.1, 0.2])
    assert math.isnan(no_pos.auc1) and no_pos.note
    json_safe(no_pos.to_dict())
    # perfect against constant: both placement differences are constant, the difference is 0.5
    flat = delong_test([1, 1, 0, 0], [0.9, 0.8, 0.2, 0.1], [0.5, 0.5, 0.5, 0.5])
    assert flat.difference == 0.5 and flat.se == 0.0 and math.isnan(flat.pvalue) and flat.note
    json_safe(flat.to_dict())


def test_delong_scales_without_pairwise_work():
    """200 000 instances: O(P N) would need 1e10 comparisons; the summary needs one sort each."""
    rng = np.random.default_rng(3)
    y = rng.random(200_000) < 0.3
    s1 = y + rng.normal(size=y.size)
    s2 = np.round(y * 0.8 + rng.normal(size=y.size), 1)  # many ties
    r = delong_test(y, s1, s2)
    assert close(r.auc1, roc_auc_score(y, s1), rel=1e-10) and close(r.auc2, roc_auc_score(y, s2), rel=1e-10)
    assert r.pvalue < 1e-6


def test_delong_rejects_bad_input():
    with pytest.raises(InvalidInput) as err:
        delong_test([1, 0, 2], [0.1, 0.2, 0.3], [0.1, 0.2, 0.3])
    assert (err.value.field, err.value.row) == ("is_positive", 2)
    with pytest.raises(InvalidInput) as err:
        delong_test([1, 0, 1], [0.1, float("nan"), 0.3], [0.1, 0.2, 0.3])
    assert (err.value.field, err.value.row) == ("scores1", 1)
    with pytest.raises(InvalidInput) as err:
        delong_test([1, 0, 1], [0.1, 0.2, 0.3], [0.1, 0.2])
    assert err.value.field == "scores2"


# ==========================================================================
# 3. Cochran's Q


@st.composite
def outcome_tables(draw):
    n = draw(st.integers(1, 60))
    m = draw(st.integers(2, 6))
    cells = draw(st.lists(st.booleans(), min_size=n * m, max_size=n * m))
    return np.array(cells).reshape(n, m)


@given(x=outcome_tables())
def test_cochran_matches_statsmodels(x):
    r = cochran_q(x)
    json_safe(r.to_dict(0.95))
    assert r.df == x.shape[1] - 1 and r.correct_counts == tuple(int(c) for c in x.sum(axis=0))
    rows = x.sum(axis=1)
    if ((rows == 0) | (rows == x.shape[1])).all():
        assert math.isnan(r.statistic) and math.isnan(r.pvalue) and r.note
        return
    ref = cochrans_q(x.astype(int))
    assert close(r.statistic, ref.statistic, rel=1e-9, abs=1e-9) and close(r.pvalue, ref.pvalue, rel=1e-9)
    assert r.df == ref.df
    # the order of the models does not matter
    perm = cochran_q(x[:, ::-1])
    assert close(perm.statistic, r.statistic) and close(perm.pvalue, r.pvalue)


@given(x=outcome_tables().filter(lambda t: t.shape[1] == 2))
def test_cochran_with_two_models_is_mcnemar_without_correction(x):
    r = cochran_q(x)
    m = mcnemar(paired_table(x[:, 0], x[:, 1]), method="chi2")
    if math.isnan(r.statistic):
        assert m.b + m.c == 0
    else:
        assert close(r.statistic, m.statistic) and close(r.pvalue, m.pvalue)


def test_cochran_example_and_bad_input():
    r = cochran_q([[1, 1, 0], [1, 0, 0], [1, 1, 1], [0, 1, 0], [1, 0, 0], [1, 1, 0]])
    assert r.statistic == 5.2 and r.accuracies[0] == 5 / 6
    assert r.verdict(0.95).startswith("at 95%, the difference between the accuracies of the 3 models is not")
    for bad, problem in (([[1, 0, 2]], "not 0 or 1"), ([1, 0, 1], "shape"), ([[1], [0]], "two models")):
        with pytest.raises(InvalidInput, match=problem) as err:
            cochran_q(bad)
        assert err.value.field == "correct"


# ==========================================================================
# 4. tests on resampled differences


TABLE_5X2 = np.array([[0.031, -0.012], [0.024, 0.008], [0.015, 0.027], [-0.004, 0.019], [0.022, 0.011]])


def hand_5x2(p: np.ndarray) -> tuple[float, float]:
    """Dietterich's t and Alpaydin's F with explicit loops."""
    s2_sum, squares = 0.0, 0.0
    for i in range(5):
        mean = (p[i][0] + p[i][1]) / 2
        s2_sum += (p[i][0] - mean) ** 2 + (p[i][1] - mean) ** 2
        squares += p[i][0] ** 2 + p[i][1] ** 2
    return p[0][0] / math.sqrt(s2_sum / 5), squares / (2 * s2_sum)


def test_5x2cv_tests_by_hand_and_scipy():
    t, f = hand_5x2(TABLE_5X2)
    r = paired_t_5x2cv(TABLE_5X2)
    assert close(r.statistic, t) and r.df == 5
    assert close(r.pvalue, 2 * stats.t.sf(abs(t), 5))
    half = stats.t.ppf(0.975, 5) * r.se
    assert close(r.ci.low, 0.031 - half) and close(r.ci.high, 0.031 + half)
    assert r.difference == 0.031 and close(r.mean_difference, TABLE_5X2.mean())
    g = f_test_5x2cv(TABLE_5X2)
    assert close(g.statistic, f) and close(g.pvalue, stats.f.sf(f, 10, 5))
    assert (g.df_numerator, g.df_denominator) == (10, 5)
    for d in (json_safe(r.to_dict()), json_safe(g.to_dict(0.95))):
        assert np.array(d["differences"]).shape == (5, 2)


def test_corrected_resampled_t_by_hand_and_scipy():
    d = np.array([0.02, 0.05, -0.01, 0.03, 0.04, 0.0, 0.02, 0.06, 0.01, 0.03])
    j, mean = len(d), d.mean()
    s2 = sum((v - mean) ** 2 for v in d) / (j - 1)
    t = mean / math.sqrt((1 / j + 10 / 90) * s2)
    r = corrected_resampled_t(d, n_train=90, n_test=10, confidence=0.9)
    assert close(r.statistic, t) and r.df == 9 and close(r.pvalue, 2 * stats.t.sf(abs(t), 9))
    half = stats.t.ppf(0.95, 9) * math.sqrt((1 / j + 10 / 90) * s2)
    assert close(r.ci.low, mean - half) and close(r.ci.high, mean + half)
    plain = paired_t(d, confidence=0.9)
    assert close(plain.statistic, stats.ttest_1samp(d, 0.0).statistic)
    assert close(plain.pvalue, stats.ttest_1samp(d, 0.0).pvalue)
    # the correction can only shrink t: here it turns a significant result into a non-significant one
    assert close(r.statistic, plain.statistic * math.sqrt((1 / j) / (1 / j + 10 / 90)))
    assert plain.significant(0.99) and not r.significant(0.99)
    d_dict = json_safe(r.to_dict())
    assert (d_dict["n_train"], d_dict["n_test"], d_dict["df"]) == (90, 10, 9)
    json_safe(corrected_resampled_t(d, n_train=np.int64(90), n_test=np.float32(10.5)).to_dict())


def test_resampled_with_mlxtend():
    """The same ten per-fold differences as mlxtend's 5x2cv tests, captured by a recording scorer."""
    pytest.importorskip("mlxtend")
    from mlxtend.evaluate import combined_ftest_5x2cv, paired_ttest_5x2cv
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression
    from sklearn.tree import DecisionTreeClassifier

    X, y = make_classification(n_samples=300, n_features=8, random_state=0)
    for mlx, ours in ((paired_ttest_5x2cv, paired_t_5x2cv), (combined_ftest_5x2cv, f_test_5x2cv)):
        scores: list[float] = []

        def scorer(estimator, X_, y_):
            scores.append(float((estimator.predict(X_) == y_).mean()))
            return scores[-1]

        statistic, pvalue = mlx(LogisticRegression(), DecisionTreeClassifier(random_state=0), X, y,
                                scoring=scorer, random_seed=1)
        differences = (np.array(scores[0::2]) - np.array(scores[1::2])).reshape(5, 2)
        r = ours(differences)
        assert close(r.statistic, statistic) and close(r.pvalue, pvalue)


finite_differences = st.floats(-1, 1, allow_nan=False, allow_subnormal=False)


@given(p=st.lists(finite_differences, min_size=10, max_size=10), confidences=confidence_pairs)
@example(p=[0.0] * 10, confidences=[0.9, 0.95])
@example(p=[0.1] * 10, confidences=[0.9, 0.95])
def test_5x2cv_properties(p, confidences):
    lo, hi = confidences
    x = np.array(p).reshape(5, 2)
    for fn in (paired_t_5x2cv, lambda v, confidence: f_test_5x2cv(v)):
        a, b = fn(x, confidence=lo), fn(-x, confidence=lo)
        assert b.pvalue == pytest.approx(a.pvalue, nan_ok=True)
        json_safe(a.to_dict(lo))
        json_safe(a.to_dict(hi))
    a, b = paired_t_5x2cv(x, confidence=lo), paired_t_5x2cv(-x, confidence=lo)
    assert b.statistic == pytest.approx(-a.statistic, nan_ok=True)
    if not x.any():
        assert a.pvalue == 1.0 and (a.ci.low, a.ci.high) == (0.0, 0.0)
    if a.ci is not None:
        assert a.ci.contains(a.difference)
        assert close(b.ci.low, -a.ci.high) and close(b.ci.high, -a.ci.low)
        wide = a.interval(hi)
        assert wide.low <= a.ci.low + 1e-15 and a.ci.high <= wide.high + 1e-15


@given(d=st.lists(finite_differences, min_size=2, max_size=30), ratio=st.floats(0.01, 1.0),
       confidences=confidence_pairs)
def test_resampled_t_properties(d, ratio, confidences):
    lo, hi = confidences
    x = np.array(d)
    for fn in (lambda v, c: corrected_resampled_t(v, n_train=100, n_test=100 * ratio, confidence=c),
               lambda v, c: paired_t(v, confidence=c)):
        a, b = fn(x, lo), fn(-x, lo)
        assert b.difference == -a.difference and b.pvalue == pytest.approx(a.pvalue, nan_ok=True)
        json_safe(a.to_dict(lo))
        json_safe(a.to_dict(hi))
        if a.ci is None:
            assert a.note and math.isnan(a.pvalue)
            continue
        assert a.ci.contains(a.difference)
        assert close(b.ci.low, -a.ci.high) and close(b.ci.high, -a.ci.low)
        wide = a.interval(hi)
        assert wide.low <= a.ci.low + 1e-15 and a.ci.high <= wide.high + 1e-15
        assert a.significant(lo) == (not a.ci.contains(0.0)) or abs(abs(a.statistic)
                                                                   - stats.t.ppf(0.5 + lo / 2, a.df)) < 1e-6


@pytest.mark.parametrize("call, field", [
    (lambda: paired_t_5x2cv(np.zeros((5, 3))), "differences"),
    (lambda: f_test_5x2cv([[0.1, float("inf")]] * 5), "differences"),
    (lambda: corrected_resampled_t([0.1], n_train=9, n_test=1), "differences"),
    (lambda: corrected_resampled_t([0.1, 0.2], n_train=0, n_test=1), "n_train"),
    (lambda: corrected_resampled_t([0.1, 0.2], n_train=9, n_test="1"), "n_test"),
    (lambda: paired_t([0.1, 0.2], confidence=95), "confidence"),
])
def test_resampled_rejects_bad_input(call, field):
    with pytest.raises(InvalidInput) as err:
        call()
    assert err.value.field == field


# ==========================================================================
# 5. the paired bootstrap


def brute_force_paired_bootstrap(t, p1, p2, k, metric, B, seed):
    """Resample instance indices with replacement, B times, and compute both matrices."""
    rng = np.random.default_rng(seed)
    n = len(t)
    out = np.empty(B)
    for b in range(B):
        i = rng.integers(0, n, n)
        m1 = np.zeros((k, k), np.int64)
        m2 = np.zeros((k, k), np.int64)
        np.add.at(m1, (t[i], p1[i]), 1)
        np.add.at(m2, (t[i], p2[i]), 1)
        out[b] = metric(m1[None])[0] - metric(m2[None])[0]
    return out


def three_class_predictions(n=300, seed=0):
    """Two correlated models: model 2 repeats model 1 on ~80% of the instances, as real models do."""
    rng = np.random.default_rng(seed)
    t = rng.integers(0, 3, n)
    p1 = np.where(rng.random(n) < 0.75, t, rng.integers(0, 3, n))
    p2 = np.where(rng.random(n) < 0.8, p1, np.where(rng.random(n) < 0.5, t, rng.integers(0, 3, n)))
    return t, p1, p2


def macro_f1(m):
    return fbeta(one_vs_rest(m), 1.0).mean(axis=-1)


@pytest.mark.parametrize("metric", [accuracy, macro_f1])
def test_paired_bootstrap_matches_brute_force(metric):
    """The multinomial draw of group counts against resampling instances.

    Monte-Carlo tolerance: both runs draw B = 4000 replicates independently. For
    a replicate sd sigma, the means differ with sd sigma sqrt(2 / B) = 0.022
    sigma (tolerance 0.1 sigma, 4.5 sd); the sample sds differ relatively by
    about 1 / sqrt(B) = 0.016 (tolerance 8%, 5 sd); a 2.5% or 97.5% quantile has
    sd sqrt(q (1 - q) / B) / f(x_q) ~ 0.042 sigma for a near-normal
    distribution, 0.06 sigma for the difference of two runs (tolerance 0.3
    sigma, 5 sd); the share of replicates <= 0 has binomial sd
    sqrt(2 s (1 - s) / B) (tolerance 5 sd + 0.002; s is about 0.03 here). An
    unpaired scheme (the two models' instances resampled independently) nearly
    doubles the sd on these correlated models (0.031 against 0.017), and drawing
    the groups with wrong weights moves the mean: either fails by far.
    """
    t, p1, p2 = three_class_predictions()
    B = 4000
    r = paired_bootstrap(t, p1, p2, 3, metric, resamples=B, seed=5)
    ref = brute_force_paired_bootstrap(t, p1, p2, 3, metric, B, seed=6)
    ours = r.replicates
    sigma = ref.std()
    assert abs(ours.mean() - ref.mean()) < 0.1 * sigma
    assert abs(ours.std() / sigma - 1) < 0.08
    for q in (0.025, 0.975):
        assert abs(np.quantile(ours, q) - np.quantile(ref, q)) < 0.3 * sigma
    share = (ref <= 0).mean()
    assert abs((ours <= 0).mean() - share) < 5 * math.sqrt(2 * share * (1 - share) / B) + 0.002
    # the observed values are the metrics of the two confusion matrices
    m1 = confusion_matrix(t, p1, labels=[0, 1, 2])
    m2 = confusion_matrix(t, p2, labels=[0, 1, 2])
    assert close(r.value1, metric(m1[None])[0]) and close(r.value2, metric(m2[None])[0])
    if metric is macro_f1:
        assert close(r.value1, f1_score(t, p1, average="macro"))
    assert r.ci.contains(r.difference)
    assert json_safe(r.to_dict())["method"] == "paired bootstrap (percentile)"


def test_paired_bootstrap_is_reproducible_and_exact_for_one_model():
    t, p1, p2 = three_class_predictions(200, 1)
    a = paired_bootstrap(t, p1, p2, 3, accuracy, resamples=500, seed=7)
    b = paired_bootstrap(t, p1, p2, 3, accuracy, resamples=500, seed=7)
    c = paired_bootstrap(t, p1, p2, 3, accuracy, resamples=500, seed=8)
    assert np.array_equal(a.replicates, b.replicates) and a.ci == b.ci and a.pvalue == b.pvalue
    assert not np.array_equal(a.replicates, c.replicates)
    same = paired_bootstrap(t, p1, p1, 3, accuracy, resamples=500, seed=7)
    assert same.difference == 0.0 and (same.ci.low, same.ci.high) == (0.0, 0.0) and same.pvalue == 1.0
    assert not (same.replicates != 0).any()
    d = json_safe(same.to_dict())
    assert (d["resamples"], d["seed"], d["significant"]) == (500, 7, False)


def test_paired_bootstrap_binary_metric_and_undefined_replicates():
    rng = np.random.default_rng(2)
    t = (rng.random(400) < 0.3).astype(int)
    p1 = np.where(rng.random(400) < 0.85, t, 1 - t)
    p2 = np.where(rng.random(400) < 0.75, t, 1 - t)
    r = paired_bootstrap(t, p1, p2, 2, lambda m: recall(one_vs_rest(m, 1)), resamples=1000)
    assert close(r.value1, (p1[t == 1] == 1).mean()) and r.ci.contains(r.difference)
    assert r.significant(0.95) == (r.pvalue < 0.05)
    # recall of a class with a single instance: undefined in ~37% of resamples
    t2 = np.array([1] + [0] * 99)
    rare = paired_bootstrap(t2, t2, np.zeros(100, int), 2, lambda m: recall(one_vs_rest(m, 1)), resamples=500)
    assert rare.ci is None and math.isnan(rare.pvalue) and 0.5 < rare.defined < 0.8 and rare.note
    json_safe(rare.to_dict())


@settings(max_examples=40)
@given(n=st.integers(1, 60), k=st.integers(2, 4), seed=st.integers(0, 2**32 - 1), data=st.data(),
       confidences=confidence_pairs)
def test_paired_bootstrap_properties(n, k, seed, data, confidences):
    lo, hi = confidences
    codes = st.lists(st.integers(0, k - 1), min_size=n, max_size=n)
    t, p1, p2 = (np.array(data.draw(codes)) for _ in range(3))
    a = paired_bootstrap(t, p1, p2, k, accuracy, confidence=lo, resamples=200, seed=seed)
    b = paired_bootstrap(t, p2, p1, k, accuracy, confidence=lo, resamples=200, seed=seed)
    assert np.array_equal(b.replicates, -a.replicates)
    assert b.difference == -a.difference and b.pvalue == a.pvalue
    assert (b.ci.low, b.ci.high) == (-a.ci.high, -a.ci.low)
    assert a.ci.contains(a.difference)  # a difference of accuracies is a mean: never outside its percentiles
    wide = a.interval(hi)
    assert wide.low <= a.ci.low and a.ci.high <= wide.high
    json_safe(a.to_dict(lo))
    json_safe(a.to_dict(hi))


def test_paired_bootstrap_rejects_bad_input():
    for kwargs, field in (({"pred1_codes": [0, 3]}, "pred1_codes"), ({"k": 1}, "k"),
                          ({"true_codes": [0]}, "pred1_codes"), ({"resamples": 0}, "resamples"),
                          ({"confidence": 0}, "confidence"), ({"metric": None}, "metric"),
                          ({"true_codes": [0.5, 1]}, "true_codes")):
        args = {"true_codes": [0, 1], "pred1_codes": [0, 1], "pred2_codes": [1, 1], "k": 2,
                "metric": accuracy} | kwargs
        with pytest.raises(InvalidInput) as err:
            paired_bootstrap(args.pop("true_codes"), args.pop("pred1_codes"), args.pop("pred2_codes"),
                             args.pop("k"), args.pop("metric"), **args)
        assert err.value.field == field, kwargs


# ==========================================================================
# 6. McNemar on two classifiers' predictions


def test_paired_table_and_seed_004_mcnemar_from_predictions():
    # 80 both right, 40 only M1 right, 20 only M2 right, 60 both wrong (seed 004)
    y = np.array(["a", "b"] * 100)
    other = np.where(y == "a", "b", "a")
    right1 = np.r_[np.ones(120, bool), np.zeros(80, bool)]
    right2 = np.r_[np.ones(80, bool), np.zeros(40, bool), np.ones(20, bool), np.zeros(60, bool)]
    pred1, pred2 = np.where(right1, y, other), np.where(right2, y, other)
    assert paired_table(right1, right2).tolist() == [[80, 40], [20, 60]]
    r = mcnemar_predictions(y, pred1, pred2, method="chi2-corrected")
    assert (round(r.statistic, 3), round(r.pvalue, 3), r.b, r.c) == (6.017, 0.014, 40, 20)
    assert mcnemar_predictions(y, pred1, pred2).method == "chi2-corrected"  # auto: b + c = 60 >= 25
    json_safe(r.to_dict(0.95, what="the two models' error rates"))


@given(data=st.data(), n=st.integers(1, 150), k=st.integers(2, 4))
def test_mcnemar_predictions_match_statsmodels(data, n, k):
    labels = st.lists(st.integers(0, k - 1), min_size=n, max_size=n)
    y, p1, p2 = (np.array(data.draw(labels)) for _ in range(3))
    c1, c2 = p1 == y, p2 == y
    table = paired_table(c1, c2)
    assert table.tolist() == [[int((c1 & c2).sum()), int((c1 & ~c2).sum())],
                              [int((~c1 & c2).sum()), int((~c1 & ~c2).sum())]]
    b, c = table[0, 1], table[1, 0]
    exact = mcnemar_predictions(y, p1, p2, method="exact")
    ref = sm_mcnemar(table, exact=True)
    assert exact.statistic == ref.statistic and close(exact.pvalue, ref.pvalue, rel=1e-9)
    auto = mcnemar_predictions(y, p1, p2)
    assert auto.method == ("exact" if b + c < 25 else "chi2-corrected")
    if b != c:
        corrected = mcnemar_predictions(y, p1, p2, method="chi2-corrected")
        ref = sm_mcnemar(table, exact=False, correction=True)
        assert close(corrected.statistic, ref.statistic, rel=1e-9) and close(corrected.pvalue, ref.pvalue, rel=1e-9)
    swapped = mcnemar_predictions(y, p2, p1, method="auto")
    assert (swapped.b, swapped.c) == (auto.c, auto.b) and swapped.pvalue == auto.pvalue
    json_safe(auto.to_dict(0.95))


def test_mcnemar_predictions_rejects_bad_input():
    with pytest.raises(InvalidInput) as err:
        mcnemar_predictions([0, 1], [0, 1], [0, 1, 1])
    assert err.value.field == "pred2"
    with pytest.raises(InvalidInput) as err:
        mcnemar_predictions([0, 1], [0, 1], [0, 1], method="fisher")
    assert err.value.field == "method"
    with pytest.raises(InvalidInput) as err:
        paired_table([1, 0, 2], [1, 0, 1])
    assert (err.value.field, err.value.row) == ("correct1", 2)
