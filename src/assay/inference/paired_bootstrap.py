"""The paired bootstrap of the difference of a metric between two models on the same instances.

Resampling the n instances with replacement, and computing both models'
confusion matrices on each resample, keeps the pairing: an instance that both
models get wrong is drawn, or not, for both. Only three things about an
instance matter, its actual class and the two predictions, so the instances
fall into at most k^3 groups (t, p1, p2) and a resample is fully described by
how many instances it draws from each group: a multinomial draw of n over the
groups with the observed proportions. That is what is drawn here, in chunks of
replicates, with no per-instance work after one pass over the data; each
replicate's two k x k matrices are sums of its group counts.

The groups are drawn in the order of their first instance in the data, which
does not depend on which model is called 1 or 2: with the same seed, swapping
the models gives exactly the negated replicates, so the difference, the
interval and the p-value flip (or keep) exactly.

Reported: the observed difference metric(model 1) - metric(model 2), the
percentile interval of the replicates (its upper bound computed as minus the
lower quantile of the negated replicates, the same number in exact arithmetic,
so that the interval is exactly antisymmetric), and the two-sided bootstrap
p-value 2 min((1 + #replicates <= 0) / (R + 1), (1 + #replicates >= 0) / (R + 1)), at
most 1 (Davison & Hinkley 1997, section 4.4: never 0 from finitely many replicates). A replicate in
which the metric is undefined (NaN) is left out; when that happens in more than
1% of them there is no interval or p-value.

References
----------
B. Efron, R. J. Tibshirani (1993), An Introduction to the Bootstrap, Chapman &
Hall, chapters 13 and 16. P. Koehn (2004), Statistical significance tests for
machine translation evaluation, EMNLP (the paired bootstrap of two systems).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from numbers import Integral
from typing import Any

import numpy as np

from assay.errors import InvalidInput
from assay.inference.bootstrap import MIN_DEFINED
from assay.inference.testing import TwoSidedTest, validate_confidence
from assay.inference.estimate import ConfidenceInterval, finite_or_none
from assay.inputs import check_lengths

__all__ = ["PairedBootstrapResult", "paired_bootstrap", "paired_bootstrap_groups", "percentile_interval"]

CELLS_PER_CHUNK = 1_000_000
"""Memory bound: replicates per chunk times groups stays below this many counts."""

WHAT = "the difference between the two models"


def percentile_interval(replicates: np.ndarray, confidence: float) -> ConfidenceInterval:
    """The percentile interval of finite replicates, exactly antisymmetric under negation.

    Examples
    --------
    >>> r = np.arange(101.0)
    >>> percentile_interval(r, 0.9), percentile_interval(-r, 0.9)
    (ConfidenceInterval(low=5.0, high=95.0), ConfidenceInterval(low=-95.0, high=-5.0))
    """
    tail = (1.0 - confidence) / 2.0
    low = float(np.quantile(replicates, tail))
    high = -float(np.quantile(-replicates, tail))
    return ConfidenceInterval(low, high)


@dataclass(frozen=True, eq=False)
class PairedBootstrapResult(TwoSidedTest):
    """The observed difference of a metric between two models, its interval and bootstrap p-value.

    ``replicates`` holds the B replicated differences (NaN where undefined);
    ``interval(c)`` reads the interval at any confidence from them.
    """

    difference: float
    value1: float
    value2: float
    ci: ConfidenceInterval | None
    pvalue: float
    confidence: float
    resamples: int
    seed: int
    n_instances: int
    defined: float
    replicates: np.ndarray = field(repr=False)
    note: str | None = None
    method: str = "paired bootstrap (percentile)"

    def __post_init__(self) -> None:
        self.replicates.setflags(write=False)

    def statistic_value(self) -> float:
        return self.difference

    def interval(self, confidence: float) -> ConfidenceInterval | None:
        if not self.pvalue == self.pvalue:
            return None
        return percentile_interval(self.replicates[np.isfinite(self.replicates)], confidence)

    def to_dict(self, confidence: float | None = None, *, what: str = WHAT) -> dict[str, Any]:
        confidence = self.confidence if confidence is None else validate_confidence(confidence)
        return {
            **self.common_dict(confidence, what=what),
            "difference": finite_or_none(self.difference),
            "value1": finite_or_none(self.value1),
            "value2": finite_or_none(self.value2),
            "resamples": self.resamples,
            "seed": self.seed,
            "n_instances": self.n_instances,
            "defined": self.defined,
            "confidence": confidence,
            "note": self.note,
        }


def _codes(values: Any, k: int, name: str) -> np.ndarray:
    try:
        x = np.asarray(values)
    except (TypeError, ValueError):
        raise InvalidInput(f"expected a 1-d array of class codes 0 .. {k - 1}", field=name) from None
    if x.ndim != 1:
        raise InvalidInput(f"expected a 1-d array of class codes, got shape {x.shape}", field=name)
    if x.dtype.kind not in "iub":
        if x.dtype.kind == "f" and np.isfinite(x).all() and np.array_equal(x, np.trunc(x)):
            x = x.astype(np.int64)
        else:
            raise InvalidInput(f"expected integer class codes 0 .. {k - 1}, got {x.dtype} values", field=name)
    bad = np.flatnonzero((x < 0) | (x >= k))
    if bad.size:
        raise InvalidInput(f"{x[bad[0]].item()!r} is not a class code 0 .. {k - 1}", field=name, row=int(bad[0]))
    return x.astype(np.int64, copy=False)


def _whole(value: Any, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or int(value) < minimum:
        raise InvalidInput(f"expected a whole number >= {minimum}, got {value!r}", field=name)
    return int(value)


def _apply(metric: Callable[[np.ndarray], Any], stack: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.asarray(metric(stack), dtype=np.float64)
    return values.reshape(stack.shape[0])


def paired_bootstrap(
    true_codes: Any,
    pred1_codes: Any,
    pred2_codes: Any,
    k: int,
    metric: Callable[[np.ndarray], Any],
    *,
    confidence: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
) -> PairedBootstrapResult:
    """Paired bootstrap of metric(model 1) - metric(model 2) on the same instances.

    Parameters
    ----------
    true_codes, pred1_codes, pred2_codes : array-like of int, shape (n,)
        The actual class and the two models' predicted classes of each
        instance, as codes 0 .. k - 1 (e.g. from ``assay.inputs.encode_labels``).
    k : int >= 2
        The number of classes.
    metric : callable
        Maps a stack of confusion matrices of shape (B, k, k) (rows actual,
        columns predicted, int64 counts) to B values, NaN where undefined:
        e.g. ``assay.metrics.confusion.accuracy``, or
        ``lambda m: recall(one_vs_rest(m, 1))`` for a binary metric.
    confidence : float in (0, 1), default 0.95
    resamples : int >= 1, default 2000
    seed : int, default 0
        The same seed gives the same replicates.

    Returns
    -------
    PairedBootstrapResult

    Raises
    ------
    InvalidInput
        On codes outside 0 .. k - 1, lengths that differ, no instances, or a
        bad ``k``, ``resamples``, ``seed`` or ``confidence``.

    Notes
    -----
    See the module docstring. The p-value cannot go below about 2 / B; with no
    replicate on one side of 0 it is 0, and the note says so.

    Examples
    --------
    >>> from assay.metrics.confusion import accuracy
    >>> y = [0, 0, 0, 0, 1, 1, 1, 1]
    >>> r = paired_bootstrap(y, [0, 0, 0, 1, 1, 1, 1, 0], [0, 0, 1, 1, 1, 0, 1, 0], 2, accuracy)
    >>> r.value1, r.value2, r.difference
    (0.75, 0.5, 0.25)
    >>> r.ci.low <= r.difference <= r.ci.high
    True
    """
    k = _whole(k, "k", 2)
    t = _codes(true_codes, k, "true_codes")
    p1 = _codes(pred1_codes, k, "pred1_codes")
    p2 = _codes(pred2_codes, k, "pred2_codes")
    n = check_lengths({"true_codes": len(t), "pred1_codes": len(p1), "pred2_codes": len(p2)})
    if n == 0:
        raise InvalidInput("no instances", field="true_codes")

    # the groups of instances with the same (truth, prediction 1, prediction 2), in order of first instance
    joint = (t * k + p1) * k + p2
    cells, first, counts = np.unique(joint, return_index=True, return_counts=True)
    order = np.argsort(first, kind="stable")
    return paired_bootstrap_groups(cells[order], counts[order], k, metric, confidence=confidence,
                                   resamples=resamples, seed=seed)


def paired_bootstrap_groups(
    cells: Any,
    counts: Any,
    k: int,
    metric: Callable[[np.ndarray], Any],
    *,
    confidence: float = 0.95,
    resamples: int = 2000,
    seed: int = 0,
) -> PairedBootstrapResult:
    """:func:`paired_bootstrap` from the groups of instances alone: ``cells`` the codes
    (truth * k + prediction 1) * k + prediction 2 of the groups, in the order of their first instance in
    the data, and ``counts`` how many instances each holds. What data read in batches gathers (the groups
    and their first rows add up over batches), with the same replicates as the instances themselves give.

    Examples
    --------
    >>> from assay.metrics.confusion import accuracy
    >>> r = paired_bootstrap_groups([0, 1, 3], [3, 1, 4], 2, accuracy)
    >>> r.value1, r.value2, r.n_instances
    (0.5, 0.375, 8)
    """
    k = _whole(k, "k", 2)
    cells = np.asarray(cells, dtype=np.int64)
    counts = np.asarray(counts, dtype=np.int64)
    n = int(counts.sum())
    if n == 0:
        raise InvalidInput("no instances", field="counts")
    if not callable(metric):
        raise InvalidInput(f"expected a function of a stack of confusion matrices, got {metric!r}", field="metric")
    resamples = _whole(resamples, "resamples", 1)
    seed = _whole(seed, "seed", 0)
    confidence = validate_confidence(confidence)
    kk = k * k
    cell1 = cells // k  # truth * k + prediction 1
    cell2 = (cells // kk) * k + cells % k  # truth * k + prediction 2

    def matrices(draws: np.ndarray, cell: np.ndarray) -> np.ndarray:
        c = draws.shape[0]
        index = (cell[None, :] + (np.arange(c, dtype=np.int64) * kk)[:, None]).ravel()
        flat = np.bincount(index, weights=draws.ravel(), minlength=c * kk)
        return np.rint(flat).astype(np.int64).reshape(c, k, k)

    observed = counts[None, :].astype(np.float64)
    value1 = float(_apply(metric, matrices(observed, cell1))[0])
    value2 = float(_apply(metric, matrices(observed, cell2))[0])
    difference = value1 - value2

    rng = np.random.default_rng(seed)
    probabilities = counts / n
    per_chunk = max(1, min(resamples, CELLS_PER_CHUNK // max(len(cells), kk)))
    replicates = np.empty(resamples)
    done = 0
    while done < resamples:
        c = min(per_chunk, resamples - done)
        draws = rng.multinomial(n, probabilities, size=c)
        replicates[done:done + c] = (_apply(metric, matrices(draws, cell1))
                                     - _apply(metric, matrices(draws, cell2)))
        done += c

    finite = np.isfinite(replicates)
    defined = float(finite.mean())
    nan = float("nan")
    common = (confidence, resamples, seed, n, defined, replicates)
    if not math.isfinite(difference):
        note = "the metric is undefined on the observed data for at least one model"
        return PairedBootstrapResult(difference, value1, value2, None, nan, *common, note)
    if defined < MIN_DEFINED:
        note = f"no interval or test: the metric is undefined in {1 - defined:.1%} of bootstrap resamples"
        return PairedBootstrapResult(difference, value1, value2, None, nan, *common, note)
    kept = replicates[finite]
    # Davison & Hinkley (1997), section 4.4: (1 + count) / (R + 1) on each side, never 0
    below = (1.0 + float((kept <= 0).sum())) / (len(kept) + 1.0)
    above = (1.0 + float((kept >= 0).sum())) / (len(kept) + 1.0)
    pvalue = min(1.0, 2.0 * min(below, above))
    note = None
    if min((kept <= 0).sum(), (kept >= 0).sum()) == 0:
        note = f"every replicate lies on one side of 0: p is at its floor, 2 / ({len(kept)} + 1)"
    ci = percentile_interval(kept, confidence)
    return PairedBootstrapResult(difference, value1, value2, ci, pvalue, *common, note)
