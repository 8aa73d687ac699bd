"""Confidence intervals for a binomial proportion (accuracy, recall, ...).

Mitchell (ch. 5) and Witten & Frank (ch. 5) model the classification of a test set as a Bernoulli
process: the observed success rate f = S/N estimates the true rate p, and the
score interval of Wilson (1927) solves |f - p| <= z sqrt(p (1 - p) / N) for p.
That interval is the default; the others are there for comparison and for
readers of papers that use them (Brown, Cai & DasGupta 2001 compare them all).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args

import numpy as np

from assay.checks import check_choice, check_confidence, check_count, check_number
from assay.errors import InvalidInput
from assay.inference.distributions import beta_ppf, normal_quantile
from assay.inference.estimate import ConfidenceInterval

__all__ = ["ProportionMethod", "PROPORTION_METHODS", "ProportionInterval", "proportion_ci", "proportion_bounds",
           "successes_from_rate", "NORMAL_MIN_N", "NORMAL_MIN_SPREAD", "normal_rule_broken", "wald_note"]

ProportionMethod = Literal["wilson", "clopper-pearson", "agresti-coull", "jeffreys", "normal"]
PROPORTION_METHODS: tuple[str, ...] = get_args(ProportionMethod)

METHOD_TITLES = {
    "wilson": "Wilson score",
    "clopper-pearson": "Clopper-Pearson exact",
    "agresti-coull": "Agresti-Coull",
    "jeffreys": "Jeffreys",
    "normal": "normal approximation (Wald)",
}


NORMAL_MIN_N = 30
NORMAL_MIN_SPREAD = 5
"""Mitchell's rules of thumb for the normal approximation of a binomial proportion (Machine Learning, 1997,
ch. 5): n >= ``NORMAL_MIN_N`` instances and n·p(1 - p) >= ``NORMAL_MIN_SPREAD``. Below either, every
normal approximation of a proportion in assay (the normal interval, ``--interval normal`` in a report, the
z test of two error rates) carries a note saying so (:func:`wald_note`, :func:`normal_rule_broken`)."""



def normal_rule(p: str = "p") -> str:
    """Mitchell's rules of thumb in words, for a proportion named ``p``."""
    return f"Mitchell 1997, ch. 5, rules of thumb: n ≥ {NORMAL_MIN_N} and n·{p}(1 − {p}) ≥ {NORMAL_MIN_SPREAD}"


def _number(x: float) -> str:
    return f"{int(x):,}" if float(x).is_integer() else f"{x:,.3g}"


def normal_rule_broken(n: float, p: float, *, n_name: str = "n", p_name: str = "p") -> str | None:
    """Which of Mitchell's rules of thumb a proportion p of n instances breaks ("n = 20 < 30"), or None.

    >>> normal_rule_broken(20, 0.5), normal_rule_broken(100, 0.97), normal_rule_broken(100, 0.5)
    ('n = 20 < 30', 'n·p(1 − p) = 2.91 < 5', None)
    >>> normal_rule_broken(10, 0.1, n_name="n1", p_name="e1")
    'n1 = 10 < 30 and n1·e1(1 − e1) = 0.9 < 5'
    """
    spread = n * p * (1.0 - p)
    broken = ([f"{n_name} = {_number(n)} < {NORMAL_MIN_N}"] if n < NORMAL_MIN_N else []) + \
        ([f"{n_name}·{p_name}(1 − {p_name}) = {_number(spread)} < {NORMAL_MIN_SPREAD}"]
         if spread < NORMAL_MIN_SPREAD else [])
    return " and ".join(broken) or None


def wald_note(successes: float, n: float) -> str | None:
    """Why the normal approximation is unreliable for k successes of n, or None when n >= 30 and
    n·p(1 - p) >= 5 (Mitchell 1997, ch. 5); the note names the exact alternatives.

    >>> wald_note(3, 100)[:70]
    'the normal approximation is unreliable here: n·p(1 − p) = 2.91 < 5 (Mi'
    >>> wald_note(3, 100)[-45:]
    '): use the Wilson or Clopper-Pearson interval'
    >>> wald_note(50, 100) is None
    True
    """
    broken = normal_rule_broken(n, successes / n if n else 0.0)
    if broken is None:
        return None
    return (f"the normal approximation is unreliable here: {broken} ({normal_rule()}): use the Wilson or "
            f"Clopper-Pearson interval")


def check_proportion_method(method: str) -> str:
    check_choice(method, PROPORTION_METHODS, "method")
    return method


def proportion_bounds(
    successes: Any, n: Any, *, confidence: float = 0.95, method: str = "wilson"
) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds, vectorised; inputs validated (0 <= k <= n, n > 0).

    Every method's bounds lie within [0, 1]; at k = 0 the lower bound is 0 and at
    k = n the upper bound is 1.
    """
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    alpha = 1.0 - confidence
    z = normal_quantile(1.0 - alpha / 2.0)
    p = k / n
    if method == "wilson":
        z2 = z * z
        center = (k + z2 / 2.0) / (n + z2)
        half = z * np.sqrt(n) / (n + z2) * np.sqrt(p * (1.0 - p) + z2 / (4.0 * n))
        low, high = center - half, center + half
    elif method == "normal":
        half = z * np.sqrt(p * (1.0 - p) / n)
        low, high = p - half, p + half
    elif method == "agresti-coull":
        n_t = n + z * z
        p_t = (k + z * z / 2.0) / n_t
        half = z * np.sqrt(p_t * (1.0 - p_t) / n_t)
        low, high = p_t - half, p_t + half
    elif method == "clopper-pearson":
        with np.errstate(invalid="ignore"):
            low = np.where(k > 0, beta_ppf(alpha / 2.0, np.maximum(k, 1e-300), n - k + 1.0), 0.0)
            high = np.where(k < n, beta_ppf(1.0 - alpha / 2.0, k + 1.0, np.maximum(n - k, 1e-300)), 1.0)
    elif method == "jeffreys":
        low = np.where(k > 0, beta_ppf(alpha / 2.0, k + 0.5, n - k + 0.5), 0.0)
        high = np.where(k < n, beta_ppf(1.0 - alpha / 2.0, k + 0.5, n - k + 0.5), 1.0)
    else:  # pragma: no cover - validated by callers
        raise ValueError(method)
    low = np.where(k == 0, 0.0, np.clip(low, 0.0, 1.0))
    high = np.where(k == n, 1.0, np.clip(high, 0.0, 1.0))
    return low, high


@dataclass(frozen=True)
class ProportionInterval:
    """A proportion k/n with its confidence interval.

    Keeps ``successes`` and ``n`` so that the result can be recomputed. ``note``
    says when the method is unreliable for these counts (the normal interval with
    n < 30 or n·p(1 - p) < 5, Mitchell's rules of thumb); JSON has the key only then.
    """

    successes: int
    n: int
    estimate: float
    confidence: float
    method: str
    ci: ConfidenceInterval
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {
            "successes": self.successes,
            "n": self.n,
            "estimate": self.estimate,
            "confidence": self.confidence,
            "method": self.method,
            "ci": self.ci.to_list(),
        }
        if self.note is not None:
            out["note"] = self.note
        return out


def proportion_ci(
    successes: int, n: int, *, confidence: float = 0.95, method: ProportionMethod = "wilson"
) -> ProportionInterval:
    """Confidence interval for a proportion from ``successes`` out of ``n``.

    Parameters
    ----------
    successes : int
        Number of successes k, 0 <= k <= n (e.g. correct predictions).
    n : int
        Number of trials (e.g. the size of the test set), n >= 1.
    confidence : float, default 0.95
        Confidence level of the interval.
    method : {"wilson", "clopper-pearson", "agresti-coull", "jeffreys", "normal"}
        ``wilson``: the score interval,
        (f + z²/2N ± z sqrt(f/N - f²/N + z²/4N²)) / (1 + z²/N) (Witten & Frank, ch. 5).
        ``clopper-pearson``: the "exact" interval from Beta quantiles.
        ``agresti-coull``: the Wald interval around (k + z²/2) / (n + z²).
        ``jeffreys``: the Beta(k + 1/2, n - k + 1/2) equal-tailed interval, with
        0 and 1 as the bounds at k = 0 and k = n (Brown, Cai & DasGupta 2001).
        ``normal``: f ± z sqrt(f (1 - f) / n), clipped to [0, 1].

    Returns
    -------
    ProportionInterval
        With ``method="normal"``, ``note`` warns when n < 30 or n·f(1 - f) < 5,
        Mitchell's rules of thumb for the normal approximation (1997, ch. 5).

    Raises
    ------
    InvalidInput
        When k or n are not integers with 0 <= k <= n and n >= 1, or the method
        or confidence is unknown.

    References
    ----------
    E. B. Wilson (1927), J. Amer. Statist. Assoc. 22:209-212. L. D. Brown,
    T. T. Cai, A. DasGupta (2001), Statistical Science 16:101-133.

    Examples
    --------
    Accuracy 0.8 on 100 test instances, at 95% (a textbook table that truncates prints
    [0.711, 0.866]; the bound is 0.86663).

    >>> r = proportion_ci(80, 100)
    >>> round(r.ci.low, 3), round(r.ci.high, 3)
    (0.711, 0.867)

    Error rate 25% on 100 instances, at 80% (Witten & Frank's score interval).

    >>> r = proportion_ci(25, 100, confidence=0.80)
    >>> round(r.ci.low, 3), round(r.ci.high, 3)
    (0.199, 0.309)
    """
    k = check_count(successes, "successes")
    total = check_count(n, "n")
    if total < 1:
        raise InvalidInput(f"must be at least 1, got {total}", field="n")
    if k > total:
        raise InvalidInput(f"{k} is more than n = {total}", field="successes")
    confidence = check_confidence(confidence)
    check_proportion_method(method)
    low, high = proportion_bounds(k, total, confidence=confidence, method=method)
    note = wald_note(k, total) if method == "normal" else None
    return ProportionInterval(k, total, k / total, confidence, method, ConfidenceInterval(float(low), float(high)),
                              note)


def successes_from_rate(rate: float, n: int) -> int:
    """The whole number of successes K that an observed rate F stands for on N trials (K = F N).

    >>> successes_from_rate(0.25, 1000)
    250
    >>> successes_from_rate(0.333, 10)
    Traceback (most recent call last):
    ...
    assay.errors.InvalidInput: rate: 0.333 x n = 10 gives 3.33, which is not a whole number of successes
    """
    f = check_number(rate, "rate", low=0.0, high=1.0)
    total = check_count(n, "n")
    k = f * total
    if abs(k - round(k)) > 1e-9 * max(1, total):
        raise InvalidInput(f"{f:g} x n = {total} gives {k:g}, which is not a whole number of successes", field="rate")
    return int(round(k))
