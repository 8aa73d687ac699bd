"""Losses of probabilistic predictions, per instance and as a mergeable summary.

A classifier that outputs a probability distribution p = (p_1, ..., p_k) over the
classes is judged by a *loss function* of p and of the true class c (Witten &
Frank, *Data Mining*, section 5.6). With a the one-hot vector of the truth
(a_j = 1 if j = c, else 0):

* quadratic loss  Σ_j (p_j - a_j)²,   in [0, 2];
* absolute loss   Σ_j |p_j - a_j|,    in [0, 2];
* information loss  -log2 p_c bits,   in [0, ∞], infinite when p_c = 0.

``*_per_instance`` functions give each instance's loss; a ``ProbabilitySummary``
keeps, for a chunk of instances, what the means, their intervals, the relative
losses against the prior classifier and a fixed-bin reliability table need.
Summaries of disjoint chunks merge into the summary of their union (``merge`` is
commutative, associative up to floating-point rounding, and ``empty`` is its
identity), so the same metrics run on chunks of a stream or on the partitions of
a distributed engine.

Why per class: the prior classifier predicts the same distribution q for every
instance, so its loss on an instance depends only on the instance's class. With
each loss's count, sum and centred sum of squares kept *per true class*, the
prior's mean losses and every cross product the delta method needs follow
exactly, even when q is the class frequency of the merged data, known only after
the last merge. Centred sums of squares (merged with the update of Chan, Golub &
LeVeque 1979) rather than raw sums of squares keep the variances accurate when
the losses barely vary (a raw Σx² - (Σx)²/n loses every digit for a constant
predictor).

Every function here trusts its inputs (validated by the caller): ``proba`` is a
float (n, k) array of probabilities in [0, 1] whose rows sum to 1 and whose
columns follow ``labels``; ``y_true_codes`` holds indices into ``labels``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from assay.summaries.kernels import compiled
from assay.summaries.walk import in_summary_order

__all__ = [
    "LOG_LOSS_EPS",
    "quadratic_loss_per_instance",
    "absolute_loss_per_instance",
    "information_loss_bits_per_instance",
    "brier_score_per_instance",
    "log_loss_per_instance",
    "brier_scale",
    "uniform_edges",
    "bin_index",
    "binned_sums",
    "calibration_values",
    "LossMoments",
    "ProbabilityFold",
    "ProbabilitySummary",
    "TwoClassScores",
]

LOG_LOSS_EPS: float = float(np.finfo(np.float64).eps)
"""scikit-learn's ``log_loss`` clips probabilities to [eps, 1 - eps] with this eps."""


# ----------------------------------------------------------------------------
# per-instance losses


CHUNK = 1 << 17  # rows summarised at a time: a few MB of temporaries


class TwoClassScores:
    """The (n, 2) probabilities (1 - s, s) of a two-class classifier's scores s, made a slice at a time.

    Summaries read probabilities in chunks of rows; with scores, a chunk is all they need, so the
    n x 2 array is never made. Indexing a range of rows (``p[a:b]``) gives those rows as an array,
    and ``p[:, j]`` a column; ``np.asarray(p)`` makes the whole array.
    """

    ndim = 2
    dtype = np.dtype(np.float64)

    def __init__(self, scores: np.ndarray, positive: int) -> None:
        self.scores = np.asarray(scores, dtype=np.float64)
        self.positive = positive
        self.shape = (len(self.scores), 2)

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, index: Any) -> np.ndarray:
        if isinstance(index, tuple):
            rows, column = index
            s = self.scores[rows]
            return s if column == self.positive else 1.0 - s
        s = self.scores[index]
        out = np.empty((len(s), 2))
        out[:, self.positive] = s
        out[:, 1 - self.positive] = 1.0 - s
        return out

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        out = self[:]
        return out if dtype is None else out.astype(dtype, copy=False)


def _arrays(y_true_codes, proba) -> tuple[np.ndarray, Any]:
    if isinstance(proba, TwoClassScores):
        return np.asarray(y_true_codes, dtype=np.intp), proba
    return np.asarray(y_true_codes, dtype=np.intp), np.asarray(proba, dtype=np.float64)


def _true_class_probability(codes: np.ndarray, proba: np.ndarray) -> np.ndarray:
    # entry (i, codes[i]) of the rows laid end to end: one index array, not two (under half the time)
    return proba.reshape(-1)[np.arange(len(codes)) * proba.shape[1] + codes]


def _residuals(codes: np.ndarray, proba: np.ndarray) -> np.ndarray:
    """p - a, with a the one-hot truth."""
    d = proba.copy()
    d[np.arange(len(codes)), codes] -= 1.0
    return d


def quadratic_loss_per_instance(y_true_codes, proba) -> np.ndarray:
    """Quadratic loss of each instance: Σ_j (p_j - a_j)².

    Parameters
    ----------
    y_true_codes : array-like of int, shape (n,)
        Index of each instance's true class among the columns of ``proba``.
    proba : array-like of float, shape (n, k)
        Predicted class probabilities; each row sums to 1.

    Returns
    -------
    ndarray of shape (n,)
        Each value lies in [0, 2]: 0 for certainty in the true class, 2 for
        certainty in a wrong one.

    Notes
    -----
    With a_j = 1 for the true class c and 0 otherwise,
    Σ_j (p_j - a_j)² = Σ_{j != c} p_j² + (1 - p_c)². Its expectation is
    minimised by predicting the true class distribution.

    References
    ----------
    I. H. Witten, E. Frank, *Data Mining*, section 5.6.

    Examples
    --------
    True class 0 predicted with (0.7, 0.2, 0.1): 0.3² + 0.2² + 0.1² = 0.14.

    >>> quadratic_loss_per_instance([0], [[0.7, 0.2, 0.1]]).tolist()
    [0.14]
    """
    codes, p = _arrays(y_true_codes, proba)
    d = _residuals(codes, p)
    return np.einsum("ij,ij->i", d, d)


def absolute_loss_per_instance(y_true_codes, proba) -> np.ndarray:
    """Absolute loss of each instance: Σ_j |p_j - a_j|.

    Parameters
    ----------
    y_true_codes : array-like of int, shape (n,)
        Index of each instance's true class among the columns of ``proba``.
    proba : array-like of float, shape (n, k)
        Predicted class probabilities; each row sums to 1.

    Returns
    -------
    ndarray of shape (n,)
        Each value lies in [0, 2]; it equals 2 (1 - p_c) when the row sums to 1.

    References
    ----------
    I. H. Witten, E. Frank, *Data Mining*, section 5.6.

    Examples
    --------
    True class 0 predicted with (0.7, 0.2, 0.1): 0.3 + 0.2 + 0.1 = 0.6.

    >>> absolute_loss_per_instance([0], [[0.7, 0.2, 0.1]]).tolist()
    [0.6]
    """
    codes, p = _arrays(y_true_codes, proba)
    return np.abs(_residuals(codes, p)).sum(axis=1)


def information_loss_bits_per_instance(y_true_codes, proba, *, clip: float | None = None) -> np.ndarray:
    """Information loss of each instance in bits: -log2 p_c.

    Parameters
    ----------
    y_true_codes : array-like of int, shape (n,)
        Index of each instance's true class among the columns of ``proba``.
    proba : array-like of float, shape (n, k)
        Predicted class probabilities; each row sums to 1.
    clip : float, optional
        When given, p_c is raised to ``clip`` first: -log2 max(p_c, clip). By
        default nothing is clipped and p_c = 0 gives an infinite loss.

    Returns
    -------
    ndarray of shape (n,)
        Values in [0, ∞]; ``inf`` where p_c = 0 (and no ``clip``).

    Notes
    -----
    -log2 p_c is the number of bits the best code spends on an event of
    probability p_c; only the probability given to the true class counts.

    References
    ----------
    I. H. Witten, E. Frank, *Data Mining*, section 5.6.

    Examples
    --------
    >>> information_loss_bits_per_instance([0, 1], [[0.5, 0.5], [0.75, 0.25]]).tolist()
    [1.0, 2.0]
    >>> information_loss_bits_per_instance([1], [[1.0, 0.0]]).tolist()
    [inf]
    """
    codes, p = _arrays(y_true_codes, proba)
    pc = _true_class_probability(codes, p)
    if clip is not None:
        pc = np.maximum(pc, clip)
    with np.errstate(divide="ignore"):
        return -np.log2(pc)


def brier_scale(k: int) -> float:
    """scikit-learn's default Brier scaling: 1/2 for two classes, 1 for more.

    ``brier_score_loss(..., scale_by_half="auto")`` halves Σ_j (p_j - a_j)² for
    two classes only, so that the binary Brier score is mean (p_pos - y)².
    """
    return 0.5 if k < 3 else 1.0


def brier_score_per_instance(y_true_codes, proba) -> np.ndarray:
    """Brier score of each instance, as scikit-learn defines it by default.

    Parameters
    ----------
    y_true_codes : array-like of int, shape (n,)
        Index of each instance's true class among the columns of ``proba``.
    proba : array-like of float, shape (n, k)
        Predicted class probabilities; each row sums to 1.

    Returns
    -------
    ndarray of shape (n,)
        For two classes, half the quadratic loss, which is (p_pos - y)² with y
        the 0/1 truth of either class; for three or more, the quadratic loss
        Σ_j (p_j - a_j)² itself (``sklearn.metrics.brier_score_loss`` with its
        default ``scale_by_half="auto"``).

    References
    ----------
    G. W. Brier (1950), Monthly Weather Review 78:1-3; scikit-learn 1.9,
    ``brier_score_loss``.

    Examples
    --------
    Positive class predicted with 0.8: (1 - 0.8)² = 0.04.

    >>> brier_score_per_instance([1], [[0.2, 0.8]]).tolist()
    [0.04]
    """
    p = np.asarray(proba, dtype=np.float64)
    return brier_scale(p.shape[1]) * quadratic_loss_per_instance(y_true_codes, p)


def log_loss_per_instance(y_true_codes, proba) -> np.ndarray:
    """Log loss of each instance in nats, exactly as scikit-learn computes it.

    Parameters
    ----------
    y_true_codes : array-like of int, shape (n,)
        Index of each instance's true class among the columns of ``proba``.
    proba : array-like of float, shape (n, k)
        Predicted class probabilities; each row sums to 1.

    Returns
    -------
    ndarray of shape (n,)
        -ln clip(p_c, eps, 1 - eps) with eps = 2.220446049250313e-16, the machine
        epsilon of float64: ``sklearn.metrics.log_loss`` clips (it never returns
        infinity), so p_c = 0 costs -ln eps = 36.04 nats and p_c = 1 costs eps.
        The information loss in bits is the unclipped, honest version.

    References
    ----------
    scikit-learn 1.9, ``log_loss``; C. M. Bishop (2006), *Pattern Recognition and
    Machine Learning*, p. 209.

    Examples
    --------
    >>> log_loss_per_instance([0, 0], [[0.5, 0.5], [0.0, 1.0]]).round(4).tolist()
    [0.6931, 36.0437]
    """
    codes, p = _arrays(y_true_codes, proba)
    pc = np.clip(_true_class_probability(codes, p), LOG_LOSS_EPS, 1.0 - LOG_LOSS_EPS)
    return -np.log(pc)


# ----------------------------------------------------------------------------
# calibration bins


def uniform_edges(bins: int) -> np.ndarray:
    """``bins`` equal-width bins on [0, 1]: ``np.linspace(0, 1, bins + 1)`` as scikit-learn."""
    return np.linspace(0.0, 1.0, bins + 1)


def bin_index(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """The bin of each value, as ``sklearn.calibration.calibration_curve`` assigns it.

    Bins are closed on the right, (low, high], and the first also holds its low
    edge: [0, e1], (e1, e2], ..., (e_{b-1}, 1]. So 1.0 falls in the last bin and a
    value on an inner edge in the bin below it.

    >>> bin_index(np.array([0.0, 0.5, 0.51, 1.0]), uniform_edges(2)).tolist()
    [0, 0, 1, 1]
    """
    inner = edges[1:-1]
    if len(inner) > 8 and np.array_equal(edges, uniform_edges(len(edges) - 1)):
        # equal widths: a direct guess from the value, then corrected exactly against the edges
        b = len(edges) - 1
        guess = np.clip(np.ceil(values * b).astype(np.intp) - 1, 0, b - 1)
        guess -= (guess > 0) & (values <= edges[guess])
        guess += (guess < b - 1) & (values > edges[np.minimum(guess + 1, b)])
        return guess
    return np.searchsorted(inner, values, side="left")


def binned_sums(scores: np.ndarray, edges: np.ndarray, weights: Sequence[np.ndarray]) -> np.ndarray:
    """Each of ``weights`` (one value per score) summed over the bins of :func:`bin_index`: an array of
    ``len(weights)`` rows of ``len(edges) - 1`` bins.

    Scores in decreasing order, as a piece of a score summary holds them, fill each bin in one run, found by a
    binary search a bin edge: the runs are summed (``np.add.reduceat``, pairwise) with no bin index made (0.01 s,
    not 0.1 s, for 10^7 scores). Other scores are binned one by one (``np.bincount``).

    >>> s = np.array([1.0, 0.7, 0.5, 0.5, 0.0])
    >>> binned_sums(s, uniform_edges(2), [np.ones(5), s]).tolist()
    [[3.0, 2.0], [1.0, 1.7]]
    >>> binned_sums(s[::-1].copy(), uniform_edges(2), [np.ones(5)]).tolist()
    [[3.0, 2.0]]
    """
    bins = len(edges) - 1
    out = np.zeros((len(weights), bins))
    if not len(scores):
        return out
    if in_summary_order(scores):
        # above[k - 1]: the scores above the k-th inner edge (in bins k and up), which come first; so bin k is
        # the run [above[k], above[k - 1]), the last bin's first (above[b - 1] = 0, above[-1] = all)
        above = len(scores) - np.searchsorted(scores[::-1], edges[1:-1], side="right")
        starts, ends = np.append(above, 0), np.insert(above, 0, len(scores))
        filled = np.flatnonzero(ends > starts)[::-1]  # in the order of their runs: each ends where the next starts
        for row, w in zip(out, weights, strict=True):
            row[filled] = np.add.reduceat(np.asarray(w, dtype=np.float64), starts[filled])
        return out
    where = bin_index(scores, edges)
    for row, w in zip(out, weights, strict=True):
        row[:] = np.bincount(where, weights=w, minlength=bins)
    return out


def calibration_values(
    y_true_codes: np.ndarray, proba: np.ndarray, calibration_class: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """What a reliability table bins: predicted probabilities and 0/1 outcomes.

    With ``calibration_class`` = c: the probability of class c, and whether the
    instance is of class c. With None: the top-label confidence max_j p_j, and
    whether the top label (the first in label order on ties, as ``argmax`` and
    scikit-learn's ``predict``) is the true class.
    """
    codes, p = _arrays(y_true_codes, proba)
    if calibration_class is None:
        top = np.argmax(p, axis=1)
        return _true_class_probability(top, p), top == codes
    return p[:, calibration_class], codes == calibration_class


# ----------------------------------------------------------------------------
# summaries


def _class_indicators(codes: np.ndarray, k: int) -> np.ndarray:
    """The k x n matrix of 0/1 class indicators, for per-class sums by matrix products."""
    return (codes == np.arange(k)[:, None]).astype(np.float64)


def _frozen(a: np.ndarray, dtype) -> np.ndarray:
    a = np.array(a, dtype=dtype, copy=True)
    a.setflags(write=False)
    return a


def _sum_classes(a: LossMoments, b: LossMoments) -> LossMoments:
    """Moments of classes held apart (each class in one of the two, zero in the other)."""
    return LossMoments(a.count + b.count, a.total + b.total, a.m2 + b.m2)


_LOSSES = ("quadratic", "absolute", "information", "log_loss")


def _losses(s: np.ndarray, weights: tuple[np.ndarray, np.ndarray], clip: float | None
            ) -> tuple[dict[str, LossMoments], tuple[int, int, int]]:
    """The loss moments of two-class scores given per distinct score, and the instances at a probability of
    0, below ``clip``, below the log loss's epsilon (:meth:`ProbabilitySummary.from_score_counts`)."""
    moments: dict[str, LossMoments] = {}
    zero = clipped = log_clipped = 0
    for c in (0, 1):  # each class at the scores it holds instances at
        held = weights[c] > 0
        w, p1 = weights[c][held], s[held]
        p0 = 1.0 - p1  # the probability of class 0, as TwoClassScores makes it
        pc = p1 if c == 1 else p0
        with np.errstate(divide="ignore"):
            information = -np.log2(pc if clip is None else np.clip(pc, clip, 1.0))
        losses = {"quadratic": np.maximum(p0 * p0 + p1 * p1 - 2.0 * pc + 1.0, 0.0),
                  "absolute": (p0 + p1) - 2.0 * pc + 1.0, "information": information,
                  "log_loss": -np.log(np.clip(pc, LOG_LOSS_EPS, 1.0 - LOG_LOSS_EPS))}
        for name, x in losses.items():
            finite = np.isfinite(x)
            xf, wf = (x, w) if finite.all() else (x[finite], w[finite])
            count = int(wf.sum())
            total = float(wf @ xf)
            m2 = float(wf @ ((xf - total / max(count, 1)) ** 2))
            part = LossMoments(np.array([count, 0] if c == 0 else [0, count]),
                               np.array([total, 0.0] if c == 0 else [0.0, total]),
                               np.array([m2, 0.0] if c == 0 else [0.0, m2]))
            moments[name] = part if c == 0 else _sum_classes(moments[name], part)
        zero += int(w[pc == 0.0].sum())  # counts: any order of the sum is exact
        clipped += int(w[pc < clip].sum()) if clip is not None else 0
        log_clipped += int(w[pc < LOG_LOSS_EPS].sum())
    return moments, (zero, clipped, log_clipped)


def _compiled_losses(kernels: Any, s: np.ndarray, weights: tuple[np.ndarray, np.ndarray], clip: float | None
                     ) -> tuple[dict[str, LossMoments], tuple[int, int, int]]:
    """:func:`_losses` in one compiled pass (``kernels.score_losses``): the same values, summed in order."""
    sums = np.zeros((2, 4, 3))
    flagged = np.zeros((2, 3))
    kernels.score_losses(s, weights[0], weights[1], -1.0 if clip is None else float(clip), LOG_LOSS_EPS,
                         np.empty((4, len(s))), sums, flagged)
    moments = {}
    for k, name in enumerate(_LOSSES):
        count = np.floor(sums[:, k, 0]).astype(np.int64)
        moments[name] = LossMoments(count, sums[:, k, 1].copy(), sums[:, k, 2].copy())
    zero, clipped, log_clipped = (int(np.floor(flagged[0, j])) + int(np.floor(flagged[1, j])) for j in range(3))
    return moments, (zero, clipped, log_clipped)


@dataclass(frozen=True, eq=False)
class LossMoments:
    """Count, sum and centred sum of squares of one loss, per true class.

    Parameters
    ----------
    count : ndarray of shape (k,), int64
        Instances of each class whose loss is counted (finite losses only).
    total : ndarray of shape (k,), float64
        Σ of their losses.
    m2 : ndarray of shape (k,), float64
        Σ of squared deviations of their losses from their class mean.

    Examples
    --------
    >>> m = LossMoments.from_values([0, 0, 1], [1.0, 3.0, 5.0], k=2)
    >>> m.total.tolist(), m.m2.tolist(), m.mean, m.centred_sum_of_squares
    ([4.0, 5.0], [2.0, 0.0], 3.0, 8.0)
    """

    count: np.ndarray
    total: np.ndarray
    m2: np.ndarray

    def __post_init__(self) -> None:
        object.__setattr__(self, "count", _frozen(self.count, np.int64))
        object.__setattr__(self, "total", _frozen(self.total, np.float64))
        object.__setattr__(self, "m2", _frozen(self.m2, np.float64))
        if not self.count.shape == self.total.shape == self.m2.shape or self.count.ndim != 1:
            raise ValueError("count, total and m2 must be 1-d arrays of one length")

    @classmethod
    def empty(cls, k: int) -> LossMoments:
        return cls(np.zeros(k, np.int64), np.zeros(k), np.zeros(k))

    @classmethod
    def from_values(cls, y_true_codes, values, *, k: int, count: np.ndarray | None = None) -> LossMoments:
        """Moments of finite ``values`` per class (two passes; infinities skipped).

        ``count`` may pass the per-class counts already made, when every value is finite.
        """
        codes = np.asarray(y_true_codes, dtype=np.intp)
        x = np.asarray(values, dtype=np.float64)
        finite = np.isfinite(x)
        if not finite.all():
            codes, x = codes[finite], x[finite]
            count = None
        if count is None:
            count = np.bincount(codes, minlength=k)
        total = np.bincount(codes, weights=x, minlength=k)
        mean = total / np.maximum(count, 1)
        m2 = np.bincount(codes, weights=(x - mean[codes]) ** 2, minlength=k)
        return cls(count, total, m2)

    @classmethod
    def from_column(cls, y_true_codes: np.ndarray, x: np.ndarray, *, k: int, count: np.ndarray,
                    onehot: np.ndarray) -> LossMoments:
        """Moments of one loss by products with the class indicators (k x n) made once.

        total = S x and m2 = S (x - mean[class])^2, centred on each class's own mean
        (so that a constant loss has m2 exactly 0). A loss with infinite values
        takes the plain path.
        """
        codes = np.asarray(y_true_codes, dtype=np.intp)
        x = np.asarray(x, dtype=np.float64)
        if len(codes) == 0 or not np.isfinite(x.sum()):
            return cls.from_values(codes, x, k=k)
        total = onehot @ x
        mean = total / np.maximum(count, 1)
        x -= np.take(mean, codes)  # x is this loss's own array, made for this call
        x *= x
        return cls(count, total, onehot @ x)

    def merge(self, other: LossMoments) -> LossMoments:
        """Moments of both parts (Chan, Golub & LeVeque's pairwise update, per class)."""
        na, nb = self.count.astype(np.float64), other.count.astype(np.float64)
        both = (na > 0) & (nb > 0)
        delta = self.total / np.maximum(na, 1.0) - other.total / np.maximum(nb, 1.0)
        extra = np.where(both, delta * delta * (na * nb / np.maximum(na + nb, 1.0)), 0.0)
        return LossMoments(self.count + other.count, self.total + other.total, self.m2 + other.m2 + extra)

    # reading ----------------------------------------------------------------

    @property
    def n(self) -> int:
        return int(self.count.sum())

    @property
    def mean(self) -> float:
        """The mean over all classes; NaN when nothing is counted."""
        n = self.n
        return float(self.total.sum() / n) if n else float("nan")

    @property
    def centred_sum_of_squares(self) -> float:
        """Σ_i (x_i - mean)²: within-class plus between-class parts."""
        return self.centred_cross(np.zeros(len(self.count)), 0.0)

    def centred_cross(self, g: np.ndarray, r: float) -> float:
        """Σ_i ((x_i - x̄) - r (g[c_i] - ḡ))², with ḡ the mean of g over the instances.

        ``g`` is a value per class; the sum is computed within and between classes,
        so it is never negative and loses no digits to cancellation.
        """
        n = self.n
        if n == 0:
            return float("nan")
        present = self.count > 0
        count = self.count[present]
        g = np.asarray(g, dtype=np.float64)[present]
        g_bar = float(np.dot(count, g) / n)
        between = (self.total[present] / count - self.mean) - r * (g - g_bar)
        return float(self.m2[present].sum() + np.dot(count, between * between))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LossMoments):
            return NotImplemented
        return (np.array_equal(self.count, other.count) and np.array_equal(self.total, other.total)
                and np.array_equal(self.m2, other.m2))

    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True, eq=False)
class ProbabilitySummary:
    """What the evaluation of probabilistic predictions needs, for a chunk of instances.

    Parameters
    ----------
    labels : tuple of str
        The k classes, in column order.
    clip : float or None
        The information loss's clip (None: unclipped, honestly infinite).
    bins : int
        Number of equal-width calibration bins on [0, 1].
    calibration_class : int or None
        The class whose probability the reliability table bins; None bins the
        top-label confidence against whether the top label is right.
    quadratic, absolute, information, log_loss : LossMoments
        Per-class moments of each per-instance loss. ``information`` counts
        finite losses only; ``quadratic.count`` is the class count.
    zero_probability : int
        Instances that gave probability 0 to their true class (infinite
        information loss unless clipped).
    clipped : int
        Instances whose p_c was raised to ``clip`` (0 without a clip).
    log_loss_clipped : int
        Instances with p_c < eps, which scikit-learn's log loss raises to eps.
    bin_count, bin_predicted, bin_observed : ndarray of shape (bins,)
        Per calibration bin: instances, Σ predicted probability, Σ 0/1 outcome.

    Examples
    --------
    >>> s = ProbabilitySummary.from_codes([0, 1], [[0.7, 0.3], [0.4, 0.6]], labels=("a", "b"))
    >>> s.n, s.quadratic.mean, s.merge(s).quadratic.mean
    (2, 0.25, 0.25)
    """

    labels: tuple[str, ...]
    clip: float | None
    bins: int
    calibration_class: int | None
    quadratic: LossMoments
    absolute: LossMoments
    information: LossMoments
    log_loss: LossMoments
    zero_probability: int
    clipped: int
    log_loss_clipped: int
    bin_count: np.ndarray
    bin_predicted: np.ndarray
    bin_observed: np.ndarray

    def __post_init__(self) -> None:
        k = len(self.labels)
        object.__setattr__(self, "labels", tuple(self.labels))
        if len(set(self.labels)) != k:
            raise ValueError(f"labels repeat: {self.labels}")
        for name in ("quadratic", "absolute", "information", "log_loss"):
            if len(getattr(self, name).count) != k:
                raise ValueError(f"{name} must have one entry per class ({k})")
        object.__setattr__(self, "bin_count", _frozen(self.bin_count, np.int64))
        object.__setattr__(self, "bin_predicted", _frozen(self.bin_predicted, np.float64))
        object.__setattr__(self, "bin_observed", _frozen(self.bin_observed, np.int64))
        for name in ("bin_count", "bin_predicted", "bin_observed"):
            if getattr(self, name).shape != (self.bins,):
                raise ValueError(f"{name} must have shape ({self.bins},)")

    # construction ---------------------------------------------------------

    @classmethod
    def empty(
        cls,
        labels: Sequence[str],
        *,
        clip: float | None = None,
        bins: int = 10,
        calibration_class: int | None = None,
    ) -> ProbabilitySummary:
        """The identity of ``merge``: no instances."""
        k = len(labels)
        none = LossMoments.empty(k)
        return cls(tuple(labels), clip, bins, calibration_class, none, none, none, none, 0, 0, 0,
                   np.zeros(bins, np.int64), np.zeros(bins), np.zeros(bins, np.int64))

    @classmethod
    def from_codes(
        cls,
        y_true_codes,
        proba,
        *,
        labels: Sequence[str],
        clip: float | None = None,
        bins: int = 10,
        calibration_class: int | None = None,
    ) -> ProbabilitySummary:
        """Summarise a chunk (inputs validated: see the module docstring).

        Long inputs are summarised ``CHUNK`` rows at a time and merged, so the temporaries stay
        small whatever the number of rows (the merge is exact for the counts and sums, and
        Chan et al.'s update for the centred sums of squares).
        """
        codes, p = _arrays(y_true_codes, proba)
        if not isinstance(p, TwoClassScores):
            p = p.reshape(len(codes), len(labels))
        if len(codes) <= CHUNK:
            return cls._from_chunk(codes, p[:], labels=labels, clip=clip, bins=bins,
                                   calibration_class=calibration_class)
        summary = None
        for start in range(0, len(codes), CHUNK):
            part = cls._from_chunk(codes[start:start + CHUNK], p[start:start + CHUNK], labels=labels, clip=clip,
                                   bins=bins, calibration_class=calibration_class)
            summary = part if summary is None else summary.merge(part)
        return summary

    @classmethod
    def _from_chunk(cls, codes: np.ndarray, p: np.ndarray, *, labels: Sequence[str], clip: float | None,
                    bins: int, calibration_class: int | None) -> ProbabilitySummary:
        k = len(labels)
        # every loss follows from three numbers per row: the true class's probability p_c, the
        # row sum and the sum of squares (all p_j >= 0 and p_c <= 1, inputs validated):
        # quadratic = sum_j p_j^2 - 2 p_c + 1, absolute = sum_j p_j + 1 - 2 p_c
        pc = _true_class_probability(codes, p)
        if k == 2:
            row_sum = p[:, 0] + p[:, 1]
            squares = p[:, 0] * p[:, 0] + p[:, 1] * p[:, 1]
        else:
            row_sum = p.sum(axis=1)
            squares = np.einsum("ij,ij->i", p, p)
        count = np.bincount(codes, minlength=k)
        onehot = _class_indicators(codes, k)

        def quadratic() -> np.ndarray:
            q = squares - 2.0 * pc
            q += 1.0
            return np.maximum(q, 0.0, out=q)

        def absolute() -> np.ndarray:
            a = row_sum - 2.0 * pc
            a += 1.0
            return a

        def information() -> np.ndarray:
            with np.errstate(divide="ignore"):
                return -np.log2(pc if clip is None else np.clip(pc, clip, 1.0))

        def log_loss() -> np.ndarray:
            return -np.log(np.clip(pc, LOG_LOSS_EPS, 1.0 - LOG_LOSS_EPS))

        # one loss at a time, each reduced before the next is made: memory stays O(n)
        moments = {name: LossMoments.from_column(codes, make(), k=k, count=count, onehot=onehot)
                   for name, make in (("quadratic", quadratic), ("absolute", absolute),
                                      ("information", information), ("log_loss", log_loss))}
        value, outcome = calibration_values(codes, p, calibration_class)
        where = bin_index(value, uniform_edges(bins))
        return cls(
            tuple(labels), clip, bins, calibration_class,
            **moments,
            zero_probability=int(np.count_nonzero(pc == 0.0)),
            clipped=int(np.count_nonzero(pc < clip)) if clip is not None else 0,
            log_loss_clipped=int(np.count_nonzero(pc < LOG_LOSS_EPS)),
            bin_count=np.bincount(where, minlength=bins),
            bin_predicted=np.bincount(where, weights=value, minlength=bins),
            bin_observed=np.bincount(where, weights=outcome, minlength=bins).astype(np.int64),
        )

    @classmethod
    def from_score_counts(cls, scores, positives, negatives, *, labels: Sequence[str], clip: float | None = None,
                          bins: int = 10, kernels: Any = None) -> ProbabilitySummary:
        """The summary of two-class scores given per distinct score (a ``ScoreCounts``' arrays).

        ``scores`` are the probabilities s of class 1 (``labels[1]``), within [0, 1]; ``positives`` and
        ``negatives`` count the instances of class 1 and class 0 at each. Each instance's losses and
        calibration bin depend only on its score and class, so this equals :meth:`from_codes` on the
        instances (calibrated on class 1) up to the order of the sums, at the cost of one pass over the
        distinct scores instead of the instances. ``kernels`` (:func:`assay.summaries.kernels.compiled`'s)
        computes the losses in one compiled pass, the same expressions (the sums in another order).
        """
        s = np.asarray(scores, dtype=np.float64)
        weights = (np.asarray(negatives, dtype=np.float64), np.asarray(positives, dtype=np.float64))
        if kernels is not None:
            moments, (zero, clipped, log_clipped) = _compiled_losses(kernels, s, weights, clip)
        else:
            moments, (zero, clipped, log_clipped) = _losses(s, weights, clip)
        both = weights[0] + weights[1]
        if len(s) > 1 and (s[1:] < s[:-1]).all():  # decreasing, as a summary's: each bin a run, cut by searches
            ends = len(s) - np.searchsorted(s[::-1], uniform_edges(bins)[1:-1], side="right")  # bins high to low
            starts = np.concatenate(([0], ends[::-1]))
            stops = np.concatenate((ends[::-1], [len(s)]))

            def binned(values: np.ndarray) -> np.ndarray:
                total = np.concatenate(([0.0], np.cumsum(values)))
                return (total[stops] - total[starts])[::-1]  # of the highest bin first: reversed

            counts = [binned(both), binned(weights[1])]
            # each bin's own sum (no difference of running totals: no cancellation); an empty bin's is 0
            predicted = np.add.reduceat(np.append(both * s, 0.0), starts)  # a last bin's sum runs to the end
            predicted[starts == stops] = 0.0
            predicted = predicted[::-1]
        else:
            where = bin_index(s, uniform_edges(bins))
            counts = [np.bincount(where, weights=w, minlength=bins) for w in (both, weights[1])]
            predicted = np.bincount(where, weights=both * s, minlength=bins)

        return cls(
            tuple(labels), clip, bins, 1,
            **moments,
            zero_probability=zero,
            clipped=clipped,
            log_loss_clipped=log_clipped,
            bin_count=np.rint(counts[0]).astype(np.int64),
            bin_predicted=predicted,
            bin_observed=np.rint(counts[1]).astype(np.int64),
        )

    # algebra ----------------------------------------------------------------

    def _settings(self) -> tuple:
        return (self.labels, self.clip, self.bins, self.calibration_class)

    def merge(self, other: ProbabilitySummary) -> ProbabilitySummary:
        """The summary of both chunks. Refuses summaries made with other settings."""
        if self._settings() != other._settings():
            raise ValueError(
                "cannot merge probability summaries with different (labels, clip, bins, calibration_class): "
                f"{self._settings()} and {other._settings()}"
            )
        return ProbabilitySummary(
            self.labels, self.clip, self.bins, self.calibration_class,
            self.quadratic.merge(other.quadratic),
            self.absolute.merge(other.absolute),
            self.information.merge(other.information),
            self.log_loss.merge(other.log_loss),
            self.zero_probability + other.zero_probability,
            self.clipped + other.clipped,
            self.log_loss_clipped + other.log_loss_clipped,
            self.bin_count + other.bin_count,
            self.bin_predicted + other.bin_predicted,
            self.bin_observed + other.bin_observed,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ProbabilitySummary):
            return NotImplemented
        return (
            self._settings() == other._settings()
            and self.quadratic == other.quadratic
            and self.absolute == other.absolute
            and self.information == other.information
            and self.log_loss == other.log_loss
            and (self.zero_probability, self.clipped, self.log_loss_clipped)
            == (other.zero_probability, other.clipped, other.log_loss_clipped)
            and np.array_equal(self.bin_count, other.bin_count)
            and np.array_equal(self.bin_predicted, other.bin_predicted)
            and np.array_equal(self.bin_observed, other.bin_observed)
        )

    __hash__ = None  # type: ignore[assignment]

    # reading ----------------------------------------------------------------

    @property
    def n(self) -> int:
        """Number of instances."""
        return self.quadratic.n

    @property
    def class_counts(self) -> np.ndarray:
        """Instances of each true class."""
        return self.quadratic.count

    @property
    def edges(self) -> np.ndarray:
        """The calibration bins' edges."""
        return uniform_edges(self.bins)

    def __repr__(self) -> str:
        return (f"ProbabilitySummary(labels={self.labels!r}, n={self.n}, clip={self.clip!r}, "
                f"bins={self.bins}, calibration_class={self.calibration_class!r})")


@dataclass(frozen=True)
class ProbabilityFold:
    """:meth:`ProbabilitySummary.from_score_counts` as a fold of one walk over a two-class score summary
    (:mod:`assay.summaries.walk`): each piece of distinct scores is summarised, and the pieces merged in
    order, as the chunks of one walk were."""

    labels: tuple[str, ...]
    clip: float | None = None
    bins: int = 10
    columns = ("scores", "positives", "negatives")

    def piece(self, p: Any) -> ProbabilitySummary:
        return ProbabilitySummary.from_score_counts(p.scores, p.positives, p.negatives, labels=self.labels,
                                                    clip=self.clip, bins=self.bins,
                                                    kernels=compiled(int(p.n_positive + p.n_negative)))

    def combine(self, partials: list[ProbabilitySummary], look: Any) -> ProbabilitySummary:
        total = partials[0]
        for part in partials[1:]:
            total = total.merge(part)
        return total
