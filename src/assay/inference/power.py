"""Power and sample size: how large a test set a question needs, and what a given one can tell.

Every calculation here answers one question both ways: the smallest test set that
gives the precision or the power asked for, and the precision or power that a
given test set has.

- ``proportion_n`` / ``proportion_half_width``: a proportion's confidence interval
  (accuracy, error rate, recall, ...) to a given half-width: Witten & Frank's and
  Mitchell's tables of intervals read backwards.
- ``auc_power``: one ROC curve's AUC against 0.5, as pROC's ``power.roc.test``
  with ``auc=`` (Obuchowski, Lieber & Wians 2004, formula 3 for the variance).
- ``auc_pair_power`` and ``auc_pair_power_pilot``: the difference of two paired
  AUCs (Obuchowski & McClish 1997), from binormal parameters or from the
  variances measured on a pilot test set (pROC's ``power.roc.test(roc1, roc2)``).
- ``mcnemar_n`` / ``mcnemar_power``: McNemar's test of two classifiers on the same
  instances (Connor 1987).
- ``difference_n`` / ``difference_power``: two error rates measured on
  independent test sets, with the normal approximation of Mitchell (1997, ch. 5).

Each returns a frozen dataclass whose ``solved_for`` names the quantity computed,
whose ``sentence`` says the answer in plain words and whose ``to_dict()`` feeds JSON.

References
----------
I. H. Witten, E. Frank (2005), Data Mining, 2nd ed., ch. 5. T. M. Mitchell
(1997), Machine Learning, ch. 5. R. J. Connor (1987), Sample size for testing
differences in proportions for the paired-sample design, Biometrics 43:207-211.
N. A. Obuchowski, D. K. McClish (1997), Sample size determination for
diagnostic accuracy studies involving binormal ROC curve indices, Statistics in
Medicine 16:1529-1542. N. A. Obuchowski, M. L. Lieber, F. H. Wians (2004), ROC
curves in Clinical Chemistry: uses, misuses, and possible solutions, Clinical
Chemistry 50:1118-1125. X. Robin et al. (2011), pROC, BMC Bioinformatics 12:77.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal, get_args

import numpy as np
from scipy import special

from assay.checks import (
    check_choice,
    check_confidence,
    check_integer,
    check_number,
    check_range,
)
from assay.errors import InvalidInput
from assay.inference.distributions import normal_cdf, normal_quantile
from assay.inference.proportion import METHOD_TITLES as PROPORTION_TITLES
from assay.inference.proportion import PROPORTION_METHODS, proportion_bounds
from assay.limits import MAX_COUNT

__all__ = [
    "Alternative",
    "ALTERNATIVES",
    "ProportionPlan",
    "proportion_n",
    "proportion_half_width",
    "AUCPlan",
    "auc_power",
    "AUCPairPlan",
    "auc_pair_power",
    "auc_pair_power_pilot",
    "McNemarPlan",
    "mcnemar_n",
    "mcnemar_power",
    "DifferencePlan",
    "difference_n",
    "difference_power",
]

Alternative = Literal["two-sided", "one-sided"]
ALTERNATIVES: tuple[str, ...] = get_args(Alternative)

NULL_AUC_VARIANCE = 0.0792
"""pROC's (and Obuchowski 2004's) variance of an AUC of 0.5 for one case and kappa controls per case, over
(1 + 1/kappa): formula 3 at A = 0, 0.0099 x 8."""


# ----------------------------------------------------------------------------
# shared wording


def _level(x: float) -> str:
    """0.95 -> "95%", 0.975 -> "97.5%", 0.0092386 -> "0.924%"."""
    if x >= 0.01:
        return f"{x * 100:.4g}%"
    return f"{x * 100:.3g}%"


def _pct(x: float) -> str:
    """A proportion as percentage points, for a half-width: 0.05 -> "5", 0.0123 -> "1.23"."""
    return f"{x * 100:.3g}"


def _count(x: float) -> str:
    return f"{int(x):,}" if float(x).is_integer() else f"{x:,.2f}"


def _groups(ncases: float, ncontrols: float) -> str:
    """"41 cases and 72 controls" ("1 case", and 2.50 cases when pROC's real numbers are given)."""
    return (f"{_count(ncases)} {'case' if ncases == 1 else 'cases'} and "
            f"{_count(ncontrols)} {'control' if ncontrols == 1 else 'controls'}")


def _z(q: float) -> float:
    return float(normal_quantile(q))


def _upper_z(tail: float) -> float:
    """z with P(Z >= z) = tail, accurate for small tails."""
    return -float(normal_quantile(tail))


def _too_large(n: float, field: str) -> InvalidInput:
    size = f"{n:.3g}" if math.isfinite(n) else "more than 1e+308"
    return InvalidInput(f"the answer needs more than {MAX_COUNT:,} instances ({size}): no test set is that large",
                        field=field)


def _smallest_n(enough: Any, guess: int, field: str) -> int:
    """The smallest n >= 1 with ``enough(n)`` (which holds from some n on: the power grows with n), by
    bisection from a closed-form ``guess``: a few dozen evaluations wherever the answer lies (stepping one
    instance at a time from the guess ran for hours when the guess was far off, as at a power below 50%)."""
    high = max(1, guess)
    while not enough(high):
        if high > MAX_COUNT:
            raise _too_large(float(high), field)
        high *= 2
    low = 0  # enough(low) is false, or low = 0
    if high > 1 and not enough(high - 1):
        return high
    while high - low > 1:
        mid = (low + high) // 2
        if enough(mid):
            high = mid
        else:
            low = mid
    if high > MAX_COUNT:
        raise _too_large(float(high), field)
    return high


def _squared_ratio(numerator: float, delta: float) -> float:
    """(numerator / delta)², divided before squaring: a tiny delta gives infinity, never 0 in a denominator."""
    ratio = numerator / abs(delta)
    return ratio * ratio


def _check_power(power: Any, field: str = "power") -> float:
    return check_number(power, field, low=0.0, high=1.0, low_open=True, high_open=True,
                        what="a probability between 0 and 1 (exclusive), e.g. 0.8")


def _check_alternative(alternative: Any) -> str:
    return check_choice(alternative, ALTERNATIVES, "alternative")


# ----------------------------------------------------------------------------
# 1. a proportion's interval to a given half-width


@dataclass(frozen=True)
class ProportionPlan:
    """The test-set size and the half-width of a proportion's confidence interval.

    ``half_width`` is the half-width asked for when ``solved_for`` is ``"n"`` and
    the one the ``n`` given achieves when it is ``"half_width"``;
    ``achieved_half_width`` is always the half-width at ``n``.
    """

    p: float
    n: int
    half_width: float
    achieved_half_width: float
    confidence: float
    method: str
    solved_for: str

    @property
    def sentence(self) -> str:
        title = PROPORTION_TITLES[self.method]
        level = _level(self.confidence)
        if self.solved_for == "n":
            return (f"To know a proportion near {_level(self.p)} within ±{_pct(self.half_width)} percentage points "
                    f"with {level} confidence ({title} interval), test on at least {self.n:,} instances.")
        return (f"On {self.n:,} instances, a proportion near {_level(self.p)} is known within "
                f"±{_pct(self.half_width)} percentage points with {level} confidence ({title} interval).")

    def to_dict(self) -> dict[str, Any]:
        return {"question": "proportion", "solved_for": self.solved_for, "p": self.p, "n": self.n,
                "half_width": self.half_width, "achieved_half_width": self.achieved_half_width,
                "confidence": self.confidence, "method": self.method, "sentence": self.sentence}


def _half_width(p: float, n: int, confidence: float, method: str) -> float:
    """The half-width of the interval at proportion p on n instances (inputs validated).

    ``normal``: z sqrt(p (1 - p) / n), unclipped, as the textbooks' tables. The
    others: (high - low) / 2 of :func:`proportion_bounds` with k = p n taken as a
    real number (Wilson's closed form is continuous in k; the Beta quantiles of
    Clopper-Pearson and Jeffreys are too).
    """
    if method == "normal":
        return _upper_z((1.0 - confidence) / 2.0) * math.sqrt(p * (1.0 - p) / n)
    low, high = proportion_bounds(p * n, n, confidence=confidence, method=method)
    return float(high - low) / 2.0


def _check_p(p: Any, method: str) -> float:
    if method == "normal":
        return check_number(p, "p", low=0.0, high=1.0, low_open=True, high_open=True,
                            what="a proportion strictly between 0 and 1 (the normal interval has no width at 0 "
                                 "or 1)")
    return check_number(p, "p", low=0.0, high=1.0, what="a proportion between 0 and 1")


def proportion_n(p: float, half_width: float, *, confidence: float = 0.95, method: str = "wilson") -> ProportionPlan:
    """The smallest test set whose interval of a proportion near ``p`` is at most ``half_width`` either side.

    Parameters
    ----------
    p : float
        The proportion expected (accuracy, error rate, recall, ...), in [0, 1];
        strictly between 0 and 1 for the normal interval.
    half_width : float in (0, 1)
        The precision wanted: the interval's half-width, e.g. 0.05 for ±5 points.
    confidence : float in (0, 1), default 0.95
    method : {"wilson", "clopper-pearson", "agresti-coull", "jeffreys", "normal"}, default "wilson"

    Returns
    -------
    ProportionPlan
        ``n``, the smallest whole number of instances with half-width <= ``half_width``.

    Raises
    ------
    InvalidInput
        On a value out of range, or when the answer exceeds the largest count assay takes.

    Notes
    -----
    ``normal``: n = ceil(z² p (1 - p) / h²), z the (1 + c)/2 normal quantile
    (Witten & Frank ch. 5; Mitchell ch. 5). The other methods have no closed
    form: their half-width is that of :func:`proportion_bounds` at k = p n, with
    k taken as a real number, and n is found by bisection (the half-width falls
    as n grows). With an observed k, rounded, the interval may differ a little.

    Examples
    --------
    An accuracy of 80% to within ±5 points at 95% with the normal interval:

    >>> proportion_n(0.8, 0.05, method="normal").n
    246
    >>> proportion_n(0.8, 0.05).n  # Wilson's
    245
    """
    method = check_choice(method, PROPORTION_METHODS, "method")
    p = _check_p(p, method)
    h = check_number(half_width, "half_width", low=0.0, high=1.0, low_open=True, high_open=True,
                     what="a half-width between 0 and 1 (exclusive), e.g. 0.05")
    confidence = check_confidence(confidence)

    def half(n: int) -> float:
        return _half_width(p, n, confidence, method)

    if method == "normal":
        z = _upper_z((1.0 - confidence) / 2.0)
        guess = _squared_ratio(z * math.sqrt(p * (1.0 - p)), h)
        if not guess <= MAX_COUNT:
            raise _too_large(guess, "half_width")
        n = max(1, math.ceil(guess))
        while n > 1 and half(n - 1) <= h:  # rounding of the closed form, either way
            n -= 1
        while half(n) > h:
            n += 1
    else:
        if half(1) <= h:
            n = 1
        else:
            high = 2
            while half(high) > h:
                if high > MAX_COUNT:
                    raise _too_large(float(high), "half_width")
                high *= 2
            low = high // 2  # half(low) > h >= half(high)
            while high - low > 1:
                mid = (low + high) // 2
                if half(mid) > h:
                    low = mid
                else:
                    high = mid
            n = high
    if n > MAX_COUNT:
        raise _too_large(float(n), "half_width")
    return ProportionPlan(p, n, h, half(n), confidence, method, "n")


def proportion_half_width(p: float, n: int, *, confidence: float = 0.95, method: str = "wilson") -> ProportionPlan:
    """The half-width of the interval of a proportion near ``p`` on ``n`` instances (``proportion_n`` inverted).

    Examples
    --------
    >>> round(proportion_half_width(0.8, 100, method="normal").half_width, 4)
    0.0784
    """
    method = check_choice(method, PROPORTION_METHODS, "method")
    p = _check_p(p, method)
    n = check_integer(n, "n", low=1, high=MAX_COUNT)
    confidence = check_confidence(confidence)
    h = _half_width(p, n, confidence, method)
    return ProportionPlan(p, n, h, h, confidence, method, "half_width")


# ----------------------------------------------------------------------------
# 2. AUC: one ROC curve against 0.5, and two paired ROC curves (pROC's power.roc.test)


def var_theta_obuchowski(theta: float, kappa: float) -> float:
    """Variance of an AUC for one case (with kappa controls per case): Obuchowski et al. 2004, formula 3.

    A = 1.414 Φ⁻¹(θ); V = 0.0099 exp(-A²/2) ((5A² + 8) + (A² + 8)/κ), the constants as pROC has them.
    """
    a = _z(theta) * 1.414
    return 0.0099 * math.exp(-a * a / 2.0) * ((5.0 * a * a + 8.0) + (a * a + 8.0) / kappa)


def _solve_nd(za: float, zb: float, v0: float, va: float, delta: float) -> float:
    """Cases needed: (zα sqrt(v0) + zβ sqrt(va))² / δ² (Obuchowski & McClish 1997, formula 2)."""
    return _squared_ratio(za * math.sqrt(v0) + zb * math.sqrt(va), delta)


def _solve_zbeta(nd: float, za: float, v0: float, va: float, delta: float) -> float:
    return (math.sqrt(nd * delta * delta) - za * math.sqrt(v0)) / math.sqrt(va)


def _solve_zalpha(nd: float, zb: float, v0: float, va: float, delta: float) -> float:
    return (math.sqrt(nd * delta * delta) - zb * math.sqrt(va)) / math.sqrt(v0)


def _tail(sig_level: float, alternative: str) -> float:
    """The one tail the formulas use: sig_level / 2 when two-sided, as pROC does."""
    return sig_level / 2.0 if alternative == "two-sided" else sig_level


def _sides(alternative: str) -> str:
    return "two-sided" if alternative == "two-sided" else "one-sided"


def _group_sizes(ncases: Any, ncontrols: Any, kappa: Any) -> tuple[float | None, float | None, float]:
    """ncases, ncontrols and kappa = ncontrols / ncases completed from any two (kappa 1 when it is not given)."""
    if ncases is not None:
        ncases = _check_group(ncases, "ncases", "cases")
    if ncontrols is not None:
        ncontrols = _check_group(ncontrols, "ncontrols", "controls")
    if kappa is not None:
        kappa = check_number(kappa, "kappa", low=0.0, low_open=True,
                             what="a positive ratio of controls to cases")
    if ncases is not None and ncontrols is not None:
        ratio = ncontrols / ncases
        if kappa is not None and not math.isclose(kappa, ratio, rel_tol=1e-9):
            raise InvalidInput(f"is {kappa:g} but ncontrols / ncases = {ratio:g}: give two of ncases, ncontrols "
                               "and kappa", field="kappa")
        return ncases, ncontrols, ratio
    kappa = 1.0 if kappa is None else kappa
    if ncases is not None:
        return ncases, _implied(kappa * ncases, "controls"), kappa
    if ncontrols is not None:
        return _implied(ncontrols / kappa, "cases"), ncontrols, kappa
    return None, None, kappa


def _check_group(value: Any, field: str, what: str) -> float:
    """A number of cases or controls: positive (pROC takes real numbers) and at most ``MAX_COUNT``."""
    return check_number(value, field, low=0.0, high=float(MAX_COUNT), low_open=True,
                        what=f"a positive number of {what}, at most {MAX_COUNT:,}")


def _implied(size: float, what: str, field: str = "kappa") -> float:
    """The group size that kappa implies, refused past ``MAX_COUNT`` as a given one is (and at 0, where
    the product of two tiny numbers underflows)."""
    if not size <= MAX_COUNT:
        raise InvalidInput(f"implies {size:.3g} {what}, more than {MAX_COUNT:,}: no test set is that large",
                           field=field)
    if not size > 0.0:
        raise InvalidInput(f"implies {size:.3g} {what}: a group needs a positive size", field=field)
    return size


def _one_unknown(given: dict[str, bool], hint: str) -> str:
    """The one quantity left out; an error naming them otherwise."""
    missing = [name for name, known in given.items() if not known]
    if len(missing) == 1:
        return missing[0]
    names = ", ".join(given)
    if not missing:
        raise InvalidInput(f"nothing is left to compute: leave out exactly one of {names} ({hint})")
    raise InvalidInput(f"{' and '.join(missing)} are left out: leave out exactly one of {names} ({hint})")


def _check_solved_groups(ncases: float, kappa: float) -> None:
    """Refuse a solved sample size whose cases, or controls (kappa per case), exceed ``MAX_COUNT``."""
    if not ncases <= MAX_COUNT:
        raise _too_large(ncases, "power")
    if not kappa * ncases <= MAX_COUNT:
        raise _too_large(kappa * ncases, "kappa")


def _whole_groups(ncases: float, kappa: float, power_at: Any, target: float) -> tuple[int, int]:
    """Whole numbers of cases and controls, each the real solution rounded up, with at least the power asked."""
    nd = max(1, math.ceil(ncases * (1.0 - 1e-12)))
    nc = max(1, math.ceil(kappa * ncases * (1.0 - 1e-12)))
    while power_at(nd, nc) < target * (1.0 - 1e-12):
        nd += 1
        nc = max(nc, math.ceil(kappa * nd * (1.0 - 1e-12)))
        if nd > MAX_COUNT:  # pragma: no cover - the power grows with n
            raise _too_large(float(nd), "power")
    return nd, nc


@dataclass(frozen=True)
class AUCPlan:
    """One ROC curve: the AUC, the numbers of cases and controls, the significance level and the power.

    ``solved_for`` is ``"n"``, ``"power"``, ``"sig_level"`` or ``"auc"``. ``ncases``
    and ``ncontrols`` are real numbers as pROC gives them; when the sample size
    is solved for, ``ncases_whole`` and ``ncontrols_whole`` round them up (the
    power at those is at least the power asked).
    """

    auc: float
    ncases: float
    ncontrols: float
    kappa: float
    sig_level: float
    power: float
    alternative: str
    solved_for: str
    ncases_whole: int | None = None
    ncontrols_whole: int | None = None
    method: str = "one ROC curve against AUC 0.5, Obuchowski (2004) variance, as pROC's power.roc.test"

    @property
    def sentence(self) -> str:
        level = f"{_level(self.sig_level)} level ({_sides(self.alternative)})"
        if self.solved_for == "n":
            return (f"To show that an AUC of {self.auc:.3g} is better than chance (0.5) with {_level(self.power)} "
                    f"power at the {level}, test on {self.ncases_whole:,} cases and {self.ncontrols_whole:,} "
                    f"controls (positives and negatives).")
        groups = _groups(self.ncases, self.ncontrols)
        if self.solved_for == "power":
            return (f"With {groups}, a test at the {level} shows an AUC of {self.auc:.3g} to be better than chance "
                    f"(0.5) with {_level(self.power)} power.")
        if self.solved_for == "sig_level":
            return (f"With {groups} and {_level(self.power)} power, an AUC of {self.auc:.3g} is shown better than "
                    f"chance at the {level}.")
        return (f"With {groups}, the smallest AUC shown better than chance (0.5) with {_level(self.power)} power "
                f"at the {level} is {self.auc:.3f}.")

    def to_dict(self) -> dict[str, Any]:
        return {"question": "auc", "solved_for": self.solved_for, "auc": self.auc, "ncases": self.ncases,
                "ncontrols": self.ncontrols, "kappa": self.kappa, "sig_level": self.sig_level, "power": self.power,
                "alternative": self.alternative, "ncases_whole": self.ncases_whole,
                "ncontrols_whole": self.ncontrols_whole, "method": self.method, "sentence": self.sentence}


def _auc_power_at(auc: float, ncases: float, ncontrols: float, tail: float) -> float:
    kappa = ncontrols / ncases
    zb = _solve_zbeta(ncases, _upper_z(tail), NULL_AUC_VARIANCE * (1.0 + 1.0 / kappa),
                      var_theta_obuchowski(auc, kappa), auc - 0.5)
    return float(normal_cdf(zb))


def auc_power(auc: float | None = None, *, ncases: float | None = None, ncontrols: float | None = None,
              kappa: float | None = None, sig_level: float | None = 0.05, power: float | None = None,
              alternative: Alternative = "two-sided") -> AUCPlan:
    """Power or sample size of the test of one AUC against 0.5, as pROC's ``power.roc.test(auc=...)``.

    Give all but one of ``auc``, the sample size (``ncases`` and ``ncontrols``, or
    one of them with ``kappa``), ``sig_level`` and ``power``: the one left out
    (``None``) is computed. ``sig_level`` is 0.05 unless set to ``None``.

    Parameters
    ----------
    auc : float in (0.5, 1), optional
        The AUC expected.
    ncases, ncontrols : float > 0, optional
        The numbers of cases (positives) and controls (negatives).
    kappa : float > 0, optional
        ncontrols / ncases; 1 when neither it nor both group sizes are given.
    sig_level : float in (0, 1) or None, default 0.05
    power : float in (0, 1), optional
    alternative : {"two-sided", "one-sided"}, default "two-sided"
        Two-sided halves ``sig_level`` for the one tail the formula uses, as pROC.

    Returns
    -------
    AUCPlan

    Raises
    ------
    InvalidInput
        On a value out of range, when not exactly one quantity is left out, or
        when no value of it gives the others (e.g. no AUC below 1 reaches the
        power with so few cases).

    Notes
    -----
    Obuchowski et al. (2004), formulas 2 and 3, with pROC's constants:
    V(θ) = 0.0099 exp(-A²/2) ((5A² + 8) + (A² + 8)/κ), A = 1.414 Φ⁻¹(θ), the null
    variance V0 = 0.0792 (1 + 1/κ), and ncases = (zα √V0 + zβ √V(θ))² / (θ - 0.5)².
    The AUC is the root of that equation in (0.5, 1) (to 1e-12, where R's
    ``uniroot`` default stops at 1.2e-4).

    Examples
    --------
    pROC's manual: 41 cases, 72 controls, AUC 0.73.

    >>> round(auc_power(0.73, ncases=41, ncontrols=72).power, 7)
    0.9897453
    >>> r = auc_power(0.73, power=0.95, kappa=1.7)
    >>> round(r.ncases, 4), r.ncases_whole, r.ncontrols_whole
    (29.6702, 30, 51)
    """
    alternative = _check_alternative(alternative)
    if auc is not None:
        auc = check_number(auc, "auc", low=0.5, high=1.0, low_open=True, high_open=True,
                           what="an AUC between 0.5 and 1 (exclusive; below 0.5, invert the scores)")
    if sig_level is not None:
        sig_level = _check_power(sig_level, "sig_level")
    if power is not None:
        power = _check_power(power)
    ncases, ncontrols, kappa = _group_sizes(ncases, ncontrols, kappa)
    unknown = _one_unknown({"auc": auc is not None, "ncases": ncases is not None, "power": power is not None,
                            "sig_level": sig_level is not None}, "sig_level=None to compute it")
    v0 = NULL_AUC_VARIANCE * (1.0 + 1.0 / kappa)
    if unknown == "ncases":
        assert auc is not None and power is not None and sig_level is not None
        tail = _tail(sig_level, alternative)
        nd = _solve_nd(_upper_z(tail), _z(power), v0, var_theta_obuchowski(auc, kappa), auc - 0.5)
        _check_solved_groups(nd, kappa)
        whole = _whole_groups(nd, kappa, lambda a, b: _auc_power_at(auc, a, b, tail), power)
        return AUCPlan(auc, nd, kappa * nd, kappa, sig_level, power, alternative, "n", *whole)
    assert ncases is not None and ncontrols is not None
    if unknown == "power":
        assert auc is not None and sig_level is not None
        power = _auc_power_at(auc, ncases, ncontrols, _tail(sig_level, alternative))
        return AUCPlan(auc, ncases, ncontrols, kappa, sig_level, power, alternative, "power")
    if unknown == "sig_level":
        assert auc is not None and power is not None
        za = _solve_zalpha(ncases, _z(power), v0, var_theta_obuchowski(auc, kappa), auc - 0.5)
        tail = float(normal_cdf(-za))
        sig = 2.0 * tail if alternative == "two-sided" else tail
        if not 0.0 < sig < 1.0:
            raise InvalidInput(f"no significance level gives {_level(power)} power for an AUC of {auc:g} with "
                               f"{_groups(ncases, ncontrols)}: ask for less power or more cases", field="power")
        return AUCPlan(auc, ncases, ncontrols, kappa, sig, power, alternative, "sig_level")
    assert power is not None and sig_level is not None
    za, zb = _upper_z(_tail(sig_level, alternative)), _z(power)

    def excess(theta: float) -> float:  # pROC's power_roc_test_optimize_auc_function
        return _solve_nd(za, zb, v0, var_theta_obuchowski(theta, kappa), theta - 0.5) - ncases

    low, high = 0.5 + 1e-9, 1.0 - 1e-16
    if not (excess(low) > 0.0 > excess(high)):
        raise InvalidInput(f"no AUC below 1 reaches {_level(power)} power at the {_level(sig_level)} level with "
                           f"{_groups(ncases, ncontrols)}: ask for less power or "
                           "give more instances", field="power")
    from scipy import optimize  # lazy (assay.lazy_imports): only here, and it takes a few tenths of a second

    theta = float(optimize.brentq(excess, low, high, xtol=1e-13, rtol=4 * np.finfo(float).eps))
    return AUCPlan(theta, ncases, ncontrols, kappa, sig_level, power, alternative, "auc")


# two paired ROC curves: Obuchowski & McClish (1997), table 1 and formulas 4-5, as pROC's obuchowski.R


def _binormal_f_g(a: float, b: float, fpr_range: tuple[float, float] | None) -> tuple[float, float]:
    """f and g of Obuchowski & McClish (1997), table 1: the derivatives of the (partial) AUC in A and B.

    For a partial AUC over FPR in [e1, e2], g has the sign of pROC's ``g.partial`` (which reverses the
    paper's, as pROC notes).
    """
    e1 = math.exp(-a * a / (2.0 * (1.0 + b * b)))
    e2 = 1.0 + b * b
    f = e1 / math.sqrt(2.0 * math.pi * e2)
    g = -e1 * a * b / math.sqrt(2.0 * math.pi * e2 ** 3)
    if fpr_range is None:
        return f, g
    c1, c2 = ((float(special.ndtri(fpr)) + a * b / e2) * math.sqrt(e2) for fpr in fpr_range)
    e3 = float(special.ndtr(c1) - special.ndtr(c2))
    e4 = math.exp(-c1 * c1 / 2.0) - math.exp(-c2 * c2 / 2.0)
    return f * e3, e1 / (2.0 * math.pi * e2) * (-e4) - a * b * e1 / math.sqrt(2.0 * math.pi * e2 ** 3) * e3


def _binormal_var(a: float, b: float, kappa: float, fpr_range: tuple[float, float] | None) -> float:
    """Obuchowski & McClish (1997), formula 4: the variance of one (partial) AUC, for one case."""
    f, g = _binormal_f_g(a, b, fpr_range)
    return f * f * (1.0 + b * b / kappa + a * a / 2.0) + g * g * b * b * (1.0 + kappa) / (2.0 * kappa)


def _binormal_cov(a1: float, b1: float, a2: float, b2: float, rn: float, ra: float, kappa: float,
                  fpr_range: tuple[float, float] | None) -> float:
    """Obuchowski & McClish (1997), formula 5: the covariance of two paired (partial) AUCs, for one case."""
    f1, g1 = _binormal_f_g(a1, b1, fpr_range)
    f2, g2 = _binormal_f_g(a2, b2, fpr_range)
    return (f1 * f2 * (ra + rn * b1 * b2 / kappa + ra * ra * a1 * a2 / 2.0)
            + g1 * g2 * (b1 * b2 * (rn * rn + kappa * ra * ra) / (2.0 * kappa))
            + f1 * g2 * (ra * ra * a1 * b2 / 2.0) + f2 * g1 * (ra * ra * a2 * b1 / 2.0))


@dataclass(frozen=True)
class AUCPairPlan:
    """Two paired ROC curves: the difference of their AUCs, the sample size, significance level and power.

    ``v0`` and ``va`` are the variances of the difference for one case under the
    null hypothesis (curve 1 as reference: 2 var1 - 2 cov) and under the
    alternative (var1 + var2 - 2 cov), as pROC; ``source`` says where the
    variances come from (``"binormal"`` parameters or a ``"pilot"`` test set).
    """

    delta: float
    v0: float
    va: float
    ncases: float
    ncontrols: float
    kappa: float
    sig_level: float
    power: float
    alternative: str
    solved_for: str
    source: str
    ncases_whole: int | None = None
    ncontrols_whole: int | None = None

    @property
    def method(self) -> str:
        how = "binormal parameters" if self.source == "binormal" else "variances from a pilot test set"
        return f"two paired ROC curves, Obuchowski & McClish (1997) with {how}, as pROC's power.roc.test"

    @property
    def sentence(self) -> str:
        level = f"{_level(self.sig_level)} level ({_sides(self.alternative)})"
        what = f"a difference of {abs(self.delta):.3g} between the two AUCs"
        if self.solved_for == "n":
            return (f"To detect {what} with {_level(self.power)} power at the {level}, test both classifiers on "
                    f"the same {self.ncases_whole:,} cases and {self.ncontrols_whole:,} controls.")
        groups = _groups(self.ncases, self.ncontrols)
        if self.solved_for == "power":
            return f"With {groups}, a test at the {level} detects {what} with {_level(self.power)} power."
        return f"With {groups} and {_level(self.power)} power, {what} is detected at the {level}."

    def to_dict(self) -> dict[str, Any]:
        return {"question": "auc_pair", "solved_for": self.solved_for, "delta": self.delta, "v0": self.v0,
                "va": self.va, "ncases": self.ncases, "ncontrols": self.ncontrols, "kappa": self.kappa,
                "sig_level": self.sig_level, "power": self.power, "alternative": self.alternative,
                "ncases_whole": self.ncases_whole, "ncontrols_whole": self.ncontrols_whole, "source": self.source,
                "method": self.method, "sentence": self.sentence}


def _pair_solve(delta: float, v0: float, va: float, ncases: float | None, kappa: float, sig_level: float | None,
                power: float | None, alternative: str, source: str) -> AUCPairPlan:
    """The one of ncases, power and sig_level left out (pROC's solve.nd / solve.zbeta / solve.zalpha)."""
    unknown = _one_unknown({"ncases": ncases is not None, "power": power is not None,
                            "sig_level": sig_level is not None}, "sig_level=None to compute it")
    if not (v0 > 0.0 and va > 0.0):
        raise InvalidInput(f"the variance of the difference is not positive (null {v0:.3g}, alternative {va:.3g}): "
                           "check the correlations and parameters")
    if unknown == "ncases":
        assert power is not None and sig_level is not None
        tail = _tail(sig_level, alternative)
        za, zb = _upper_z(tail), _z(power)
        nd = _solve_nd(za, zb, v0, va, delta)
        _check_solved_groups(nd, kappa)

        def power_at(cases: float, controls: float) -> float:
            return float(normal_cdf(_solve_zbeta(cases, za, v0, va, delta)))

        whole = _whole_groups(nd, kappa, power_at, power)
        return AUCPairPlan(delta, v0, va, nd, kappa * nd, kappa, sig_level, power, alternative, "n", source, *whole)
    assert ncases is not None
    if unknown == "power":
        assert sig_level is not None
        zb = _solve_zbeta(ncases, _upper_z(_tail(sig_level, alternative)), v0, va, delta)
        return AUCPairPlan(delta, v0, va, ncases, kappa * ncases, kappa, sig_level, float(normal_cdf(zb)),
                           alternative, "power", source)
    assert power is not None
    za = _solve_zalpha(ncases, _z(power), v0, va, delta)
    tail = float(normal_cdf(-za))
    sig = 2.0 * tail if alternative == "two-sided" else tail
    if not 0.0 < sig < 1.0:
        raise InvalidInput(f"no significance level gives {_level(power)} power with "
                           f"{_groups(ncases, kappa * ncases)}: ask for less power or more cases", field="power")
    return AUCPairPlan(delta, v0, va, ncases, kappa * ncases, kappa, sig, power, alternative, "sig_level", source)


def _check_correlation(value: Any, field: str) -> float:
    return check_number(value, field, low=-1.0, high=1.0, what="a correlation between -1 and 1")


def auc_pair_power(delta: float, *, a1: float, b1: float, a2: float, b2: float, rn: float, ra: float,
                   fpr_range: tuple[float, float] | None = None, ncases: float | None = None,
                   ncontrols: float | None = None, kappa: float | None = None, sig_level: float | None = 0.05,
                   power: float | None = None, alternative: Alternative = "two-sided") -> AUCPairPlan:
    """Power or sample size of the test of two paired AUCs from binormal parameters (pROC's list form).

    Two classifiers scored on the same instances, each with a binormal ROC curve
    TPR = Φ(A + B Φ⁻¹(FPR)). Give all but one of the sample size (``ncases``,
    or ``ncontrols``, with ``kappa``), ``sig_level`` and ``power``.

    Parameters
    ----------
    delta : float
        The difference of the two (partial) AUCs to detect.
    a1, b1, a2, b2 : float
        The binormal parameters of curve 1 and curve 2 (B > 0).
    rn, ra : float in [-1, 1]
        The correlation of the two classifiers' scores among controls (negatives) and among cases (positives).
    fpr_range : (low, high), optional
        A partial AUC over this range of false-positive rates, for both curves; the full AUC by default.
    ncases, ncontrols, kappa, sig_level, power, alternative
        As :func:`auc_power`; kappa (ncontrols / ncases) is 1 unless given or implied, and enters the variances.

    Notes
    -----
    Var and Cov from Obuchowski & McClish (1997), formulas 4 and 5 and table 1
    (with pROC's sign of g for a partial AUC); v0 = 2 var1 - 2 cov, va = var1 +
    var2 - 2 cov; ncases = (zα √v0 + zβ √va)² / δ².

    Examples
    --------
    Obuchowski & McClish (1997), example 2, as pROC's manual:

    >>> r = auc_pair_power(0.037, a1=2.6, b1=1, a2=1.9, b2=1, rn=0.6, ra=0.6, fpr_range=(0, 0.2), power=0.8)
    >>> round(r.ncases, 4)
    107.0238
    """
    alternative = _check_alternative(alternative)
    delta = check_number(delta, "delta", low=-1.0, high=1.0, what="a difference of AUCs between -1 and 1")
    if delta == 0.0:
        raise InvalidInput("must not be 0: no test set can detect a difference of nothing", field="delta")
    a1, a2 = check_number(a1, "a1"), check_number(a2, "a2")
    b1 = check_number(b1, "b1", low=0.0, low_open=True, what="a positive binormal slope")
    b2 = check_number(b2, "b2", low=0.0, low_open=True, what="a positive binormal slope")
    rn, ra = _check_correlation(rn, "rn"), _check_correlation(ra, "ra")
    if fpr_range is not None:
        fpr_range = check_range(fpr_range, "fpr_range")
    if sig_level is not None:
        sig_level = _check_power(sig_level, "sig_level")
    if power is not None:
        power = _check_power(power)
    ncases, _, kappa = _group_sizes(ncases, ncontrols, kappa)
    var1 = _binormal_var(a1, b1, kappa, fpr_range)
    var2 = _binormal_var(a2, b2, kappa, fpr_range)
    cov = _binormal_cov(a1, b1, a2, b2, rn, ra, kappa, fpr_range)
    return _pair_solve(delta, 2.0 * var1 - 2.0 * cov, var1 + var2 - 2.0 * cov, ncases, kappa, sig_level, power,
                       alternative, "binormal")


def auc_pair_power_pilot(auc1: float, auc2: float, *, var1: float, var2: float, cov: float, pilot_ncases: int,
                         pilot_ncontrols: int, ncases: float | None = None, sig_level: float | None = 0.05,
                         power: float | None = None, alternative: Alternative = "two-sided") -> AUCPairPlan:
    """Power or sample size for two paired AUCs from a pilot test set (pROC's ``power.roc.test(roc1, roc2)``).

    ``var1``, ``var2`` and ``cov`` are the variances and covariance of the two AUCs
    measured on a pilot of ``pilot_ncases`` cases and ``pilot_ncontrols`` controls
    (DeLong's, as :func:`assay.delong_test` computes them). They are scaled to one
    case (times ``pilot_ncases``) and the new study keeps the pilot's ratio of
    controls to cases. Give ``ncases`` to get the power (pROC uses the pilot's
    own), ``power`` to get the cases needed, ``power`` and ``sig_level=None`` to
    get the significance level.

    Examples
    --------
    >>> r = auc_pair_power_pilot(0.6120, 0.8237, var1=0.002, var2=0.0013, cov=0.0003, pilot_ncases=41,
    ...                          pilot_ncontrols=72, ncases=41)
    >>> r.solved_for
    'power'
    """
    alternative = _check_alternative(alternative)
    auc1 = check_number(auc1, "auc1", low=0.0, high=1.0)
    auc2 = check_number(auc2, "auc2", low=0.0, high=1.0)
    if auc1 == auc2:
        raise InvalidInput("equals auc1: no test set can detect a difference of nothing", field="auc2")
    var1 = check_number(var1, "var1", low=0.0, low_open=True, what="a positive variance")
    var2 = check_number(var2, "var2", low=0.0, low_open=True, what="a positive variance")
    cov = check_number(cov, "cov", what="a finite covariance")
    if cov * cov > var1 * var2 * (1.0 + 1e-12):
        raise InvalidInput(f"{cov:g} is larger than sqrt(var1 var2) = {math.sqrt(var1 * var2):g}", field="cov")
    nd = check_integer(pilot_ncases, "pilot_ncases", low=1, high=MAX_COUNT)
    nc = check_integer(pilot_ncontrols, "pilot_ncontrols", low=1, high=MAX_COUNT)
    if ncases is not None:
        ncases = _check_group(ncases, "ncases", "cases")
        _implied(ncases * nc / nd, "controls at the pilot's ratio", "ncases")
    if sig_level is not None:
        sig_level = _check_power(sig_level, "sig_level")
    if power is not None:
        power = _check_power(power)
    v1, v2, c = var1 * nd, var2 * nd, cov * nd
    return _pair_solve(auc1 - auc2, 2.0 * v1 - 2.0 * c, v1 + v2 - 2.0 * c, ncases, nc / nd, sig_level, power,
                       alternative, "pilot")


# ----------------------------------------------------------------------------
# 3. McNemar's test (Connor 1987)


@dataclass(frozen=True)
class McNemarPlan:
    """McNemar's test: the discordant shares p10 and p01, the number of instances and the power.

    ``p10``: the share of instances that classifier 1 gets right and classifier 2
    wrong; ``p01``: the reverse.
    """

    p10: float
    p01: float
    n: int
    confidence: float
    power: float
    solved_for: str
    method: str = "McNemar's test, normal approximation (Connor 1987)"

    @property
    def sentence(self) -> str:
        shares = (f"classifier 1 alone is right on {_level(self.p10)} of instances and classifier 2 alone on "
                  f"{_level(self.p01)}")
        if self.solved_for == "n":
            return (f"If {shares}, test both on the same {self.n:,} instances to find the difference significant "
                    f"at {_level(self.confidence)} confidence with {_level(self.power)} power.")
        return (f"If {shares}, McNemar's test on {self.n:,} instances finds the difference significant at "
                f"{_level(self.confidence)} confidence with {_level(self.power)} power.")

    def to_dict(self) -> dict[str, Any]:
        return {"question": "mcnemar", "solved_for": self.solved_for, "p10": self.p10, "p01": self.p01,
                "n": self.n, "confidence": self.confidence, "power": self.power, "method": self.method,
                "sentence": self.sentence}


def _check_discordant(p10: Any, p01: Any) -> tuple[float, float]:
    p10 = check_number(p10, "p10", low=0.0, high=1.0, what="a share between 0 and 1")
    p01 = check_number(p01, "p01", low=0.0, high=1.0, what="a share between 0 and 1")
    if p10 + p01 > 1.0 + 1e-12:
        raise InvalidInput(f"p10 + p01 = {p10 + p01:g} is more than 1: they are shares of the same instances",
                           field="p01")
    if p10 == p01:
        raise InvalidInput(f"equals p10 = {p10:g}: no test set can detect a difference of nothing", field="p01")
    if max(p10, p01) >= 1.0:
        raise InvalidInput("one classifier alone is right on every instance: the difference needs no test",
                           field="p10" if p10 >= 1.0 else "p01")
    return p10, p01


def _mcnemar_power_at(n: float, p10: float, p01: float, z: float) -> float:
    """Connor (1987): P(reject) = Φ((|δ|√n - z√ψ)/√(ψ - δ²)) + Φ((-|δ|√n - z√ψ)/√(ψ - δ²))."""
    psi, delta = p10 + p01, abs(p10 - p01)
    sd = math.sqrt(psi - delta * delta)
    return float(normal_cdf((delta * math.sqrt(n) - z * math.sqrt(psi)) / sd)
                 + normal_cdf((-delta * math.sqrt(n) - z * math.sqrt(psi)) / sd))


def mcnemar_n(p10: float, p01: float, *, confidence: float = 0.95, power: float = 0.8) -> McNemarPlan:
    """The number of instances McNemar's test needs to detect discordant shares p10 against p01 (Connor 1987).

    Parameters
    ----------
    p10, p01 : float in [0, 1)
        The shares of instances on which only classifier 1 (p10) or only
        classifier 2 (p01) is right; p10 + p01 <= 1 and p10 != p01.
    confidence : float in (0, 1), default 0.95
        The test is two-sided at this confidence (alpha = 1 - confidence).
    power : float in (0, 1), default 0.8

    Returns
    -------
    McNemarPlan

    Notes
    -----
    With ψ = p10 + p01 and δ = p10 - p01 (Connor 1987, p. 209):
    n = ceil((z_{1-α/2} √ψ + z_{1-β} √(ψ - δ²))² / δ²).
    The power of a given n adds the (tiny) other tail.

    Examples
    --------
    >>> mcnemar_n(0.05, 0.45).n
    23
    """
    p10, p01 = _check_discordant(p10, p01)
    confidence = check_confidence(confidence)
    power = _check_power(power)
    psi, delta = p10 + p01, p10 - p01
    z = _upper_z((1.0 - confidence) / 2.0)
    n_real = _squared_ratio(z * math.sqrt(psi) + _z(power) * math.sqrt(psi - delta * delta), delta)
    if not n_real <= MAX_COUNT:
        raise _too_large(n_real, "p01")
    n = _smallest_n(lambda m: _mcnemar_power_at(m, p10, p01, z) >= power, math.ceil(n_real * (1.0 - 1e-12)), "p01")
    return McNemarPlan(p10, p01, n, confidence, _mcnemar_power_at(n, p10, p01, z), "n")


def mcnemar_power(p10: float, p01: float, n: int, *, confidence: float = 0.95) -> McNemarPlan:
    """The power of McNemar's test on ``n`` instances (``mcnemar_n`` inverted; Connor 1987).

    Examples
    --------
    >>> round(mcnemar_power(0.05, 0.45, 23).power, 3)
    0.819
    """
    p10, p01 = _check_discordant(p10, p01)
    n = check_integer(n, "n", low=1, high=MAX_COUNT)
    confidence = check_confidence(confidence)
    z = _upper_z((1.0 - confidence) / 2.0)
    return McNemarPlan(p10, p01, n, confidence, _mcnemar_power_at(n, p10, p01, z), "power")


# ----------------------------------------------------------------------------
# 4. two error rates on independent test sets (Mitchell 1997, ch. 5)


@dataclass(frozen=True)
class DifferencePlan:
    """Two error rates on independent test sets: the sizes n1 and n2 and the power of the z test."""

    e1: float
    e2: float
    n1: int
    n2: int
    confidence: float
    power: float
    solved_for: str
    method: str = "z test of two independent error rates, normal approximation (Mitchell 1997, ch. 5)"

    @property
    def difference(self) -> float:
        return self.e2 - self.e1

    @property
    def sentence(self) -> str:
        rates = f"error rates of {_level(self.e1)} and {_level(self.e2)}"
        if self.solved_for == "n":
            return (f"To find {rates} significantly different at {_level(self.confidence)} confidence with "
                    f"{_level(self.power)} power, test each model on {self.n1:,} instances of its own.")
        return (f"With {self.n1:,} and {self.n2:,} test instances, {rates} are found significantly different at "
                f"{_level(self.confidence)} confidence with {_level(self.power)} power.")

    def to_dict(self) -> dict[str, Any]:
        return {"question": "difference", "solved_for": self.solved_for, "e1": self.e1, "e2": self.e2,
                "difference": self.difference, "n1": self.n1, "n2": self.n2, "confidence": self.confidence,
                "power": self.power, "method": self.method, "sentence": self.sentence}


def _difference_power_at(e1: float, n1: float, e2: float, n2: float, z: float) -> float:
    """P(|d̂| / σ > z) with d̂ ~ N(d, σ²), σ² = e1 (1 - e1) / n1 + e2 (1 - e2) / n2 (inputs validated, σ > 0).

    σ is computed in units of the larger e (1 - e), so that a tiny rate over many instances does not
    underflow to σ = 0."""
    v1, v2 = e1 * (1.0 - e1), e2 * (1.0 - e2)
    unit = max(v1, v2)
    sigma = math.sqrt(unit) * math.sqrt(v1 / unit / n1 + v2 / unit / n2)
    shift = abs(e2 - e1) / sigma
    return float(normal_cdf(shift - z) + normal_cdf(-shift - z))


def _check_rates(e1: Any, e2: Any) -> tuple[float, float]:
    e1 = check_number(e1, "e1", low=0.0, high=1.0, what="an error rate between 0 and 1")
    e2 = check_number(e2, "e2", low=0.0, high=1.0, what="an error rate between 0 and 1")
    if e1 * (1.0 - e1) + e2 * (1.0 - e2) == 0.0:
        raise InvalidInput("both error rates are 0 or 1: the normal approximation has no variance", field="e2")
    return e1, e2


def difference_n(e1: float, e2: float, *, confidence: float = 0.95, power: float = 0.8) -> DifferencePlan:
    """The size of each test set for error rates e1 and e2 to differ significantly (Mitchell 1997, ch. 5).

    Parameters
    ----------
    e1, e2 : float in [0, 1]
        The error rates expected of model 1 and model 2 (e1 != e2).
    confidence : float in (0, 1), default 0.95
        The two-sided z test of :func:`assay.error_difference` at this confidence.
    power : float in (0, 1), default 0.8

    Returns
    -------
    DifferencePlan
        ``n1 = n2``, the smallest equal size with at least the power asked.

    Notes
    -----
    d̂ = ê2 - ê1 ~ N(d, σ²), σ² = e1 (1 - e1)/n + e2 (1 - e2)/n, the variance of
    the interval of the difference; the power is P(|d̂|/σ > z_{(1+c)/2}) =
    Φ(|d|/σ - z) + Φ(-|d|/σ - z), which grows with n: n is found by bisection
    from the one-tail closed form n ≈ (z + z_β)² (e1 (1 - e1) + e2 (1 - e2)) / d².

    Examples
    --------
    >>> difference_n(0.15, 0.25).n1
    248
    """
    e1, e2 = _check_rates(e1, e2)
    if e1 == e2:
        raise InvalidInput(f"equals e1 = {e1:g}: no test set can detect a difference of nothing", field="e2")
    confidence = check_confidence(confidence)
    power = _check_power(power)
    z = _upper_z((1.0 - confidence) / 2.0)
    d = e2 - e1
    guess = _squared_ratio((z + _z(power)) * math.sqrt(e1 * (1.0 - e1) + e2 * (1.0 - e2)), d)
    if not guess <= MAX_COUNT:
        raise _too_large(guess, "e2")

    def power_at(n: int) -> float:
        return _difference_power_at(e1, n, e2, n, z)

    high = _smallest_n(lambda n: power_at(n) >= power, math.ceil(guess), "e2")
    return DifferencePlan(e1, e2, high, high, confidence, power_at(high), "n")


def difference_power(e1: float, e2: float, n1: int, n2: int, *, confidence: float = 0.95) -> DifferencePlan:
    """The power of the z test of two error rates on independent test sets of n1 and n2 instances.

    Examples
    --------
    Model 1 with 15% error on 30 instances, model 2 with 25% on 5,000 (Mitchell 1997, ch. 5):

    >>> round(difference_power(0.15, 0.25, 30, 5000).power, 3)
    0.333
    """
    e1, e2 = _check_rates(e1, e2)
    n1 = check_integer(n1, "n1", low=1, high=MAX_COUNT)
    n2 = check_integer(n2, "n2", low=1, high=MAX_COUNT)
    confidence = check_confidence(confidence)
    z = _upper_z((1.0 - confidence) / 2.0)
    return DifferencePlan(e1, e2, n1, n2, confidence, _difference_power_at(e1, n1, e2, n2, z), "power")
