"""Power and sample size (assay.plan, ``assay plan``): pROC's published numbers, Connor's, Witten & Frank's,
round trips and the command line.

Oracles:

- pROC 1.18's tests (tests/testthat/test-power.roc.test.R) and manual (man/power.roc.test.Rd): the numbers
  below are copied from there, with the tolerance of pROC's own test (``expect_equal(..., tolerance =
  1e-6)``, a relative difference; 1e-7 where pROC uses the default, its numbers printed to 9 digits).
  The AUCs of pROC's aSAH curves are U / (41 x 72) counted on that data set: s100b 2159/2952 (0.7313686),
  ndka 1806.5/2952 (0.6119580), wfns 2431.5/2952 (0.8236789); their DeLong variances and covariances
  are those of pROC's test-var.R and test-cov.R.
- Connor (1987), p. 209: p01 = 0.45, p10 = 0.05, alpha 0.05, power 0.8 -> 23 pairs.
- Witten & Frank (Data Mining, ch. 5) / Mitchell (ch. 5): 80% within ±5 points at 95% with the normal
  interval needs 246 instances.
- Monte Carlo simulations with a fixed seed for McNemar's test and the difference of two error rates.
"""

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import assay
from assay import plan
from assay.cli import main
from assay.errors import InvalidInput
from assay.inference.proportion import proportion_bounds

S100B_AUC = 2159 / 2952
NDKA_AUC = 1806.5 / 2952
WFNS_AUC = 2431.5 / 2952
VAR = {"s100b": 0.00266868245717244, "ndka": 0.0031908105493913, "wfns": 0.00146991470882363}
COV = {("ndka", "wfns"): -0.000532967856762438, ("s100b", "ndka"): -0.000756164938056579}
AUC = {"s100b": S100B_AUC, "ndka": NDKA_AUC, "wfns": WFNS_AUC}
OB_PARAMS = {"a1": 2.6, "b1": 1, "a2": 1.9, "b2": 1, "rn": 0.6, "ra": 0.6, "fpr_range": (0, 0.2)}


def run(argv, capsys):
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


# ----------------------------------------------------------------------------
# one ROC curve: pROC's power.roc.test(auc=...)


def test_proc_power_of_one_curve():
    assert plan.auc_power(0.73, ncases=41, ncontrols=72, sig_level=0.05).power == pytest.approx(0.9897453, rel=1e-6)
    assert plan.auc_power(0.73, ncases=41, ncontrols=72).power == pytest.approx(0.9897453, rel=1e-6)
    # power.roc.test(r.s100b): the curve's own AUC and group sizes
    r = plan.auc_power(S100B_AUC, ncases=41, ncontrols=72)
    assert r.power == pytest.approx(0.9904833, rel=1e-6)
    assert r.solved_for == "power" and r.sig_level == 0.05


def test_proc_sample_size_of_one_curve():
    r = plan.auc_power(S100B_AUC, sig_level=0.05, power=0.95, kappa=1.7)
    assert r.ncases == pytest.approx(29.29764, rel=1e-6)
    assert r.ncontrols == pytest.approx(49.806, rel=1e-6)
    assert (r.ncases_whole, r.ncontrols_whole) == (30, 50)
    # "kappa works with a single ROC curve": kappa from the data (72 / 41), then kappa = 1
    r = plan.auc_power(S100B_AUC, power=0.9, kappa=72 / 41)
    assert r.ncases == pytest.approx(23.5598674, rel=1e-7)
    assert r.ncontrols == pytest.approx(41.3734257, rel=1e-7)
    r = plan.auc_power(S100B_AUC, power=0.9, kappa=1)
    assert r.ncases == pytest.approx(29.5697422, rel=1e-7) and r.ncontrols == r.ncases


def test_proc_significance_level_of_one_curve():
    r = plan.auc_power(0.73, ncases=41, ncontrols=72, power=0.95, sig_level=None)
    assert r.solved_for == "sig_level"
    assert r.sig_level == pytest.approx(0.009238584, rel=1e-6)


def test_proc_detectable_auc():
    """pROC finds the AUC with R's uniroot at its default tolerance (1.2e-4 in x): 0.6961054. assay solves
    the same equation on the same bracket to 1e-13, so it agrees within that tolerance, and its root
    satisfies pROC's equation (the power there is the power asked)."""
    r = plan.auc_power(ncases=41, ncontrols=72, sig_level=0.05, power=0.95)
    assert r.solved_for == "auc"
    assert r.auc == pytest.approx(0.6961054, abs=1.3e-4)
    assert plan.auc_power(r.auc, ncases=41, ncontrols=72).power == pytest.approx(0.95, abs=1e-10)


KAPPAS = [0.25, 0.5, 1, 2, 4]
THETAS = [0.6, 0.7, 0.8, 0.9, 0.95]
# Obuchowski et al. (2004), table 4, as corrected in pROC's test (at least 10 in each group)
TABLE4_CONTROLS = [[84, 20, 10, 10, 10], [101, 25, 10, 10, 10], [135, 33, 14, 10, 10], [203, 50, 21, 20, 20],
                   [340, 84, 40, 40, 40]]
TABLE4_CASES = [[334, 80, 40, 40, 40], [202, 49, 20, 20, 20], [135, 33, 14, 10, 10], [102, 25, 11, 10, 10],
                [85, 21, 10, 10, 10]]


@pytest.mark.parametrize(("i", "kappa"), list(enumerate(KAPPAS)))
@pytest.mark.parametrize(("j", "theta"), list(enumerate(THETAS)))
def test_obuchowski_2004_table_4(i, kappa, j, theta):
    """pROC's "results from literature": one-sided, 5% level, 90% power; its rounding rule, exactly."""
    r = plan.auc_power(theta, sig_level=0.05, power=0.9, kappa=kappa, alternative="one-sided")
    controls = max(10, (10 if math.ceil(r.ncases) < 10 else 0) * kappa, math.ceil(r.ncontrols))
    cases = max(10, (10 if math.ceil(r.ncontrols) < 10 else 0) / kappa, math.ceil(r.ncases))
    assert controls == TABLE4_CONTROLS[i][j]
    assert cases == TABLE4_CASES[i][j]


# ----------------------------------------------------------------------------
# two ROC curves: binormal parameters (Obuchowski & McClish 1997, example 2) and pilot variances (DeLong)


def test_proc_binormal_pair():
    r = plan.auc_pair_power(0.037, **OB_PARAMS, power=0.8, sig_level=0.05)
    assert r.ncases == pytest.approx(107.0238, rel=1e-6)
    assert r.ncontrols == pytest.approx(107.0238, rel=1e-6)
    assert (r.ncases_whole, r.ncontrols_whole) == (108, 108)
    r = plan.auc_pair_power(0.037, **OB_PARAMS, power=0.8, sig_level=None, ncases=107)
    assert r.sig_level == pytest.approx(0.05004012, rel=1e-6) and r.ncontrols == 107
    r = plan.auc_pair_power(0.037, **OB_PARAMS, power=None, sig_level=0.05, ncases=107)
    assert r.power == pytest.approx(0.7999286, rel=1e-6)


def _pilot(a, b, **kwargs):
    cov = COV.get((a, b), COV.get((b, a)))
    return plan.auc_pair_power_pilot(AUC[a], AUC[b], var1=VAR[a], var2=VAR[b], cov=cov, pilot_ncases=41,
                                     pilot_ncontrols=72, **kwargs)


def test_proc_pair_from_pilot_delong():
    """power.roc.test(r.ndka, r.wfns, ...) with DeLong's variances, from pROC's tests."""
    assert _pilot("ndka", "wfns", ncases=41).power == pytest.approx(0.7131594, rel=1e-6)
    r = _pilot("ndka", "wfns", power=0.9)
    assert r.ncases == pytest.approx(64.77777, rel=1e-6)
    assert r.ncontrols == pytest.approx(113.7561, rel=1e-6)
    r = _pilot("ndka", "wfns", ncases=41, power=0.9, sig_level=None)
    assert r.sig_level == pytest.approx(0.1836639, rel=1e-6)
    r = _pilot("s100b", "ndka", power=0.9)
    assert r.ncases == pytest.approx(213.117677, rel=1e-7)
    assert r.ncontrols == pytest.approx(374.255432, rel=1e-7)


def test_pair_pilot_matches_delong_test():
    """The variances the pilot form takes are those assay's DeLong test uses: its z statistic is the
    difference over sqrt(var1 + var2 - 2 cov)."""
    rng = np.random.default_rng(7)
    y = np.r_[np.ones(40, bool), np.zeros(60, bool)]
    s1 = rng.normal(size=100) + 1.2 * y
    s2 = s1 + rng.normal(size=100) * 0.8
    t = assay.delong_test(y, s1, s2)
    var1, var2 = 0.0025, t.se ** 2  # any split with var1 + var2 - 2 cov = se² gives the same alternative variance
    cov = (var1 + var2 - t.se ** 2) / 2
    r = plan.auc_pair_power_pilot(t.auc1, t.auc2, var1=var1, var2=var2, cov=cov, pilot_ncases=40,
                                  pilot_ncontrols=60, ncases=40)
    assert r.va / 40 == pytest.approx(t.se ** 2, rel=1e-12)


# ----------------------------------------------------------------------------
# McNemar (Connor 1987) and the difference of two error rates (Mitchell 1997)


def test_connor_example():
    r = plan.mcnemar_n(0.05, 0.45, confidence=0.95, power=0.8)
    assert r.n == 23 and r.power >= 0.8
    assert plan.mcnemar_n(0.45, 0.05).n == 23  # symmetric in the two classifiers


def test_connor_closed_form():
    p10, p01, z, zb = 0.15, 0.05, 1.959963984540054, 0.8416212335729143
    psi, d = p10 + p01, p10 - p01
    expected = math.ceil((z * math.sqrt(psi) + zb * math.sqrt(psi - d * d)) ** 2 / d ** 2)
    assert plan.mcnemar_n(p10, p01, power=0.8).n == expected == 155


@pytest.mark.parametrize(("n", "p10", "p01"), [(155, 0.15, 0.05), (23, 0.05, 0.45), (400, 0.10, 0.06)])
def test_mcnemar_power_by_simulation(n, p10, p01):
    """McNemar's test simulated: Connor's power lies between the rejection rates of the continuity-corrected
    chi-squared test (assay mcnemar's default, more conservative) and of the uncorrected one (Connor's
    unconditional variance makes his formula a little conservative for it), within 4 Monte Carlo errors."""
    reps = 20_000
    rng = np.random.default_rng(20240601)
    cells = rng.multinomial(n, [p10, p01, 1 - p10 - p01], size=reps)
    b, c = cells[:, 0], cells[:, 1]
    discordant = np.maximum(b + c, 1)
    uncorrected = float(np.mean(np.abs(b - c) / np.sqrt(discordant) > 1.959963984540054))
    corrected = float(np.mean((np.abs(b - c) - 1) / np.sqrt(discordant) > 1.959963984540054))
    power = plan.mcnemar_power(p10, p01, n).power
    slack = 4 * math.sqrt(power * (1 - power) / reps)
    assert corrected - slack <= power <= uncorrected + slack


def test_difference_power_by_simulation():
    """The z test of assay.error_difference, simulated on independent test sets of the planned size."""
    e1, e2 = 0.15, 0.25
    r = plan.difference_n(e1, e2, power=0.8)
    n, reps = r.n1, 20_000
    rng = np.random.default_rng(1998)
    f1 = rng.binomial(n, e1, size=reps) / n
    f2 = rng.binomial(n, e2, size=reps) / n
    z = (f2 - f1) / np.sqrt(f1 * (1 - f1) / n + f2 * (1 - f2) / n)
    rate = float(np.mean(np.abs(z) > 1.959963984540054))
    assert abs(rate - r.power) < 4 * math.sqrt(r.power * (1 - r.power) / reps) + 0.01


def test_difference_matches_error_difference():
    """At the planned size, an observed difference equal to the expected one is significant: the z of
    assay.error_difference exceeds the critical value by z_beta."""
    r = plan.difference_n(0.10, 0.20, power=0.5, confidence=0.95)
    test = assay.error_difference(0.10, r.n1, 0.20, r.n2, confidence=0.95)
    assert test.significant(0.95)
    smaller = assay.error_difference(0.10, r.n1 - 1, 0.20, r.n2 - 1, confidence=0.95)
    assert smaller.pvalue > 0.05 - 1e-3  # one fewer and the observed difference is (about) no longer enough


# ----------------------------------------------------------------------------
# a proportion's interval to a given half-width


def test_witten_frank_246():
    r = plan.proportion_n(0.8, 0.05, confidence=0.95, method="normal")
    assert r.n == 246 and r.achieved_half_width <= 0.05
    assert r.n == math.ceil(1.959963984540054 ** 2 * 0.8 * 0.2 / 0.05 ** 2)


@pytest.mark.parametrize("method", ["wilson", "clopper-pearson", "agresti-coull", "jeffreys"])
def test_proportion_n_is_the_smallest(method):
    r = plan.proportion_n(0.8, 0.05, method=method)
    low, high = proportion_bounds(0.8 * r.n, r.n, confidence=0.95, method=method)
    assert (high - low) / 2 <= 0.05
    low, high = proportion_bounds(0.8 * (r.n - 1), r.n - 1, confidence=0.95, method=method)
    assert (high - low) / 2 > 0.05


@pytest.mark.parametrize("method", ["wilson", "clopper-pearson", "agresti-coull", "jeffreys", "normal"])
def test_half_width_at_whole_counts_is_assay_interval(method):
    """Where k = p n is whole, the planned half-width is that of assay.proportion_ci on k of n."""
    r = plan.proportion_half_width(0.8, 100, method=method)
    ci = assay.proportion_ci(80, 100, method=method).ci
    assert r.half_width == pytest.approx((ci.high - ci.low) / 2, rel=1e-12)


# ----------------------------------------------------------------------------
# round trips (hypothesis)

METHODS = st.sampled_from(["wilson", "clopper-pearson", "agresti-coull", "jeffreys", "normal"])


@settings(max_examples=30, deadline=None)
@given(p=st.floats(0.02, 0.98), h=st.floats(0.01, 0.3), confidence=st.floats(0.5, 0.999), method=METHODS)
def test_proportion_round_trip(p, h, confidence, method):
    n = plan.proportion_n(p, h, confidence=confidence, method=method).n
    assert plan.proportion_half_width(p, n, confidence=confidence, method=method).half_width <= h
    if n > 1:
        assert plan.proportion_half_width(p, n - 1, confidence=confidence, method=method).half_width > h


@settings(max_examples=30, deadline=None)
@given(auc=st.floats(0.55, 0.97), power=st.floats(0.5, 0.99), kappa=st.floats(0.25, 4),
       sig=st.floats(0.001, 0.2), one_sided=st.booleans())
def test_auc_round_trip(auc, power, kappa, sig, one_sided):
    alternative = "one-sided" if one_sided else "two-sided"
    r = plan.auc_power(auc, power=power, kappa=kappa, sig_level=sig, alternative=alternative)
    back = plan.auc_power(auc, ncases=r.ncases, ncontrols=r.ncontrols, sig_level=sig, alternative=alternative)
    assert back.power == pytest.approx(power, abs=1e-9)
    whole = plan.auc_power(auc, ncases=r.ncases_whole, ncontrols=r.ncontrols_whole, sig_level=sig,
                           alternative=alternative)
    assert whole.power >= power
    sig_back = plan.auc_power(auc, ncases=r.ncases, ncontrols=r.ncontrols, power=power, sig_level=None,
                              alternative=alternative)
    assert sig_back.sig_level == pytest.approx(sig, rel=1e-8)


@settings(max_examples=30, deadline=None)
@given(ncases=st.integers(20, 500), kappa=st.floats(0.5, 3), power=st.floats(0.5, 0.95))
def test_detectable_auc_round_trip(ncases, kappa, power):
    r = plan.auc_power(ncases=ncases, ncontrols=kappa * ncases, power=power)
    assert 0.5 < r.auc < 1
    assert plan.auc_power(r.auc, ncases=ncases, ncontrols=kappa * ncases).power == pytest.approx(power, abs=1e-8)


@settings(max_examples=30, deadline=None)
@given(p10=st.floats(0.01, 0.45), p01=st.floats(0.01, 0.45), power=st.floats(0.5, 0.99),
       confidence=st.floats(0.8, 0.999))
def test_mcnemar_round_trip(p10, p01, power, confidence):
    if abs(p10 - p01) < 0.005:
        return
    n = plan.mcnemar_n(p10, p01, confidence=confidence, power=power).n
    assert plan.mcnemar_power(p10, p01, n, confidence=confidence).power >= power
    if n > 1:
        assert plan.mcnemar_power(p10, p01, n - 1, confidence=confidence).power < power


@settings(max_examples=30, deadline=None)
@given(e1=st.floats(0.0, 0.5), e2=st.floats(0.0, 0.5), power=st.floats(0.5, 0.99),
       confidence=st.floats(0.8, 0.999))
def test_difference_round_trip(e1, e2, power, confidence):
    if abs(e1 - e2) < 0.01:
        return
    r = plan.difference_n(e1, e2, confidence=confidence, power=power)
    assert r.n1 == r.n2 and r.power >= power
    assert plan.difference_power(e1, e2, r.n1, r.n2, confidence=confidence).power >= power
    if r.n1 > 1:
        assert plan.difference_power(e1, e2, r.n1 - 1, r.n2 - 1, confidence=confidence).power < power
    # swapping the two models changes nothing
    assert plan.difference_n(e2, e1, confidence=confidence, power=power).n1 == r.n1


# ----------------------------------------------------------------------------
# refusals in Python


@pytest.mark.parametrize(("call", "field"), [
    (lambda: plan.proportion_n(0.8, 0), "half_width"),
    (lambda: plan.proportion_n(1.5, 0.05), "p"),
    (lambda: plan.proportion_n(0.0, 0.05, method="normal"), "p"),
    (lambda: plan.proportion_n(0.5, 1e-9), "half_width"),
    (lambda: plan.auc_power(0.8, power=1.5), "power"),
    (lambda: plan.auc_power(0.4, power=0.9), "auc"),
    (lambda: plan.auc_power(0.8, ncases=10, ncontrols=20, kappa=3, power=0.8), "kappa"),
    (lambda: plan.auc_power(ncases=1, ncontrols=1, power=0.99), "power"),
    (lambda: plan.mcnemar_n(0.1, 0.1), "p01"),
    (lambda: plan.mcnemar_n(0.7, 0.5), "p01"),
    (lambda: plan.difference_n(0.2, 0.2), "e2"),
    (lambda: plan.difference_power(0.0, 1.0, 10, 10), "e2"),
    (lambda: plan.auc_pair_power(0.0, **OB_PARAMS, power=0.8), "delta"),
])
def test_refusals_name_the_argument(call, field):
    with pytest.raises(InvalidInput) as e:
        call()
    assert e.value.field == field


@pytest.mark.parametrize("kwargs", [
    {"auc": 0.8},  # sample size and power both left out
    {"auc": 0.8, "ncases": 10, "power": 0.8},  # nothing left out
    {"ncases": 10},
])
def test_auc_power_wants_exactly_one_unknown(kwargs):
    with pytest.raises(InvalidInput, match="leave out exactly one"):
        plan.auc_power(**kwargs)


def test_results_serialize():
    for r in (plan.proportion_n(0.8, 0.05), plan.auc_power(0.8, power=0.9),
              plan.auc_pair_power(0.037, **OB_PARAMS, power=0.8), plan.mcnemar_n(0.15, 0.05),
              plan.difference_power(0.15, 0.25, 30, 5000)):
        d = json.loads(json.dumps(r.to_dict(), allow_nan=False))
        assert {"question", "solved_for", "method", "sentence"} <= set(d)
        assert "seed" not in d["sentence"].lower()


def test_plan_is_reachable_from_assay():
    assert assay.plan.proportion_n is plan.proportion_n
    assert "plan" in dir(assay)


# ----------------------------------------------------------------------------
# the command line

CLI_CASES = [
    (["plan", "proportion", "--p", "0.8", "--half-width", "0.05", "--method", "normal"], {"n": 246}),
    (["plan", "proportion", "--p", "0.8", "--n", "100"], {"solved_for": "half_width"}),
    (["plan", "auc", "--auc", "0.73", "--ncases", "41", "--ncontrols", "72"], {"solved_for": "power"}),
    (["plan", "auc", "--auc", "0.8", "--power", "0.9"], {"solved_for": "n", "ncases_whole": 17}),
    (["plan", "auc", "--auc", "0.73", "--ncases", "41", "--ncontrols", "72", "--power", "0.95"],
     {"solved_for": "sig_level"}),
    (["plan", "auc", "--ncases", "41", "--ncontrols", "72", "--power", "0.95"], {"solved_for": "auc"}),
    (["plan", "auc-pair", "--delta", "0.037", "--a1", "2.6", "--b1", "1", "--a2", "1.9", "--b2", "1", "--rn",
      "0.6", "--ra", "0.6", "--fpr-range", "0,0.2", "--power", "0.8"], {"ncases_whole": 108}),
    (["plan", "mcnemar", "--p10", "0.05", "--p01", "0.45", "--power", "0.8"], {"n": 23}),
    (["plan", "mcnemar", "--p10", "0.15", "--p01", "0.05", "--n", "100"], {"solved_for": "power"}),
    (["plan", "difference", "--e1", "0.15", "--e2", "0.25", "--power", "0.8"], {"n1": 248, "n2": 248}),
    (["plan", "difference", "--e1", "0.15", "--e2", "0.25", "--n1", "30", "--n2", "5000"], {"solved_for": "power"}),
]


@pytest.mark.parametrize(("argv", "expected"), CLI_CASES)
def test_cli_json(capsys, argv, expected):
    status, out, err = run([*argv, "--format", "json"], capsys)
    assert status == 0, err
    d = json.loads(out)
    assert {"question", "solved_for", "method", "sentence"} <= set(d)
    for key, value in expected.items():
        assert d[key] == value


@pytest.mark.parametrize(("argv", "expected"), CLI_CASES)
def test_cli_text(capsys, argv, expected):
    status, out, err = run(argv, capsys)
    assert status == 0, err
    assert out.startswith("assay plan") and "computed" in out and "Method:" in out


def test_cli_auc_matches_proc_in_json(capsys):
    status, out, _ = run(["plan", "auc", "--auc", "0.73", "--ncases", "41", "--ncontrols", "72", "--power", "0.95",
                          "--format", "json"], capsys)
    assert status == 0
    assert json.loads(out)["sig_level"] == pytest.approx(0.009238584, rel=1e-6)


def test_cli_markdown_and_output_file(capsys, tmp_path):
    path = tmp_path / "plan.md"
    status, out, err = run(["plan", "mcnemar", "--p10", "0.15", "--p01", "0.05", "--power", "0.8", "--format",
                            "markdown", "-o", str(path)], capsys)
    assert status == 0, err
    assert out == "" and "155" in path.read_text()


@pytest.mark.parametrize(("argv", "message"), [
    (["plan", "auc", "--auc", "0.8", "--power", "1.5"], "--power"),
    (["plan", "proportion", "--p", "0.8", "--half-width", "0"], "--half-width"),
    (["plan", "proportion", "--p", "0.8"], "--half-width"),
    (["plan", "proportion", "--p", "0.8", "--half-width", "0.05", "--n", "10"], "--half-width"),
    (["plan", "auc", "--auc", "0.8"], "leave out exactly one"),
    (["plan", "auc", "--auc", "0.8", "--ncases", "10", "--power", "0.9", "--sig-level", "0.05"], "nothing is left"),
    (["plan", "auc", "--ncases", "1", "--ncontrols", "1", "--power", "0.99"], "no AUC below 1"),
    (["plan", "auc", "--auc", "0.8", "--power", "0.9", "--kappa", "-1"], "--kappa"),
    (["plan", "auc-pair", "--delta", "0.037", "--a1", "2.6", "--b1", "1", "--a2", "1.9", "--b2", "1", "--rn", "0.6",
      "--ra", "0.6", "--fpr-range", "0.3,0.2", "--power", "0.8"], "--fpr-range"),
    (["plan", "mcnemar", "--p10", "0.1", "--p01", "0.1", "--power", "0.8"], "--p01"),
    (["plan", "mcnemar", "--p10", "0.1", "--p01", "0.2"], "leave out exactly one"),
    (["plan", "difference", "--e1", "0.1", "--e2", "0.2", "--n1", "30"], "--n2"),
    (["plan", "difference", "--e1", "0.1", "--e2", "1.5", "--power", "0.8"], "--e2"),
])
def test_cli_refusals(capsys, tmp_path, argv, message):
    path = tmp_path / "out.json"
    status, out, err = run([*argv, "--format", "json", "-o", str(path)], capsys)
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("assay: error:") and message in err
    assert "Traceback" not in err
    assert not path.exists()


def test_cli_help_shows_examples(capsys):
    for argv in (["plan", "--help"], ["plan", "proportion", "--help"], ["plan", "auc", "--help"],
                 ["plan", "auc-pair", "--help"], ["plan", "mcnemar", "--help"], ["plan", "difference", "--help"]):
        status, out, _ = run(argv, capsys)
        assert status == 0 and "Example" in out and "assay plan" in out
        assert "seed" not in out.lower()


# ----------------------------------------------------------------------------
# issue 22.5 and 22.11: a difference so small that its square underflows, and groups past 2^53

TOO_MANY = "the answer needs more than 9,007,199,254,740,992 instances"
PAIR = ["--a1", "1", "--b1", "1", "--a2", "1", "--b2", "1", "--rn", "0.5", "--ra", "0.5"]


@pytest.mark.parametrize(("argv", "option"), [
    (["plan", "mcnemar", "--p10", "1e-300", "--p01", "0", "--power", "0.8"], "--p01"),
    (["plan", "mcnemar", "--p10", "5e-324", "--p01", "0", "--power", "0.8"], "--p01"),
    (["plan", "difference", "--e1", "0", "--e2", "1e-300", "--power", "0.8"], "--e2"),
    (["plan", "auc-pair", "--delta", "1e-300", *PAIR, "--power", "0.8"], "--power"),
    (["plan", "proportion", "--p", "0.5", "--half-width", "1e-300", "--method", "normal"], "--half-width"),
    (["plan", "auc", "--auc", "0.7", "--kappa", "1e300", "--power", "0.8"], "--kappa"),
])
def test_too_small_a_difference_is_refused_with_the_limit(capsys, argv, option):
    """Before: ZeroDivisionError (delta² underflowed to 0) for the first four; 1.95e301 controls for the last."""
    status, out, err = run(argv, capsys)
    assert status == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"assay: error: {option}: {TOO_MANY}"), err


@pytest.mark.parametrize("call", [
    lambda: plan.mcnemar_n(1e-300, 0.0), lambda: plan.difference_n(0.0, 1e-300),
    lambda: plan.auc_pair_power(1e-300, a1=1, b1=1, a2=1, b2=1, rn=0.5, ra=0.5, power=0.8),
    lambda: plan.auc_power(0.7, kappa=1e300, power=0.8), lambda: plan.proportion_n(0.5, 1e-300, method="normal"),
])
def test_too_small_a_difference_is_refused_in_the_api(call):
    with pytest.raises(InvalidInput, match=TOO_MANY):
        call()


@pytest.mark.parametrize(("kwargs", "field", "words"), [
    ({"kappa": 1e300, "ncases": 10}, "kappa", r"implies 1e\+301 controls"),
    ({"ncontrols": 1e300, "ncases": 10}, "ncontrols", "at most 9,007,199,254,740,992"),
    ({"ncases": 1e20}, "ncases", "at most 9,007,199,254,740,992"),
    ({"ncases": 5e-324, "kappa": 1e-300}, "kappa", "a group needs a positive size"),
])
def test_auc_groups_past_the_largest_count_are_refused(kwargs, field, words):
    """Before: plan auc --kappa 1e300 computed the power of 1e301 controls (the other plans cap at 2^53)."""
    with pytest.raises(InvalidInput, match=words) as e:
        plan.auc_power(0.7, **kwargs)
    assert e.value.field == field


def test_low_power_plans_end_quickly():
    """Before: mcnemar_n stepped one instance at a time from a closed form that is far off below 50% power
    (p10 = 1e-9, power 0.05: hours); now a bisection of a few dozen steps. In a subprocess, with a timeout."""
    import subprocess
    import sys

    code = ("from assay import plan\n"
            "for p10 in (1e-9, 1e-16):\n"
            "    r = plan.mcnemar_n(p10, 0.0, power=0.05)\n"
            "    assert r.power >= 0.05 and (r.n == 1 or plan.mcnemar_power(p10, 0.0, r.n - 1).power < 0.05)\n"
            "print('done')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "done", done.stderr


@pytest.mark.parametrize(("p10", "p01", "power"), [(0.05, 0.45, 0.8), (0.15, 0.05, 0.8), (0.3, 0.1, 0.5),
                                                   (0.2, 0.1, 0.3), (0.01, 0.02, 0.9)])
def test_mcnemar_n_is_the_smallest(p10, p01, power):
    r = plan.mcnemar_n(p10, p01, power=power)
    assert r.power >= power
    assert r.n == 1 or plan.mcnemar_power(p10, p01, r.n - 1).power < power
