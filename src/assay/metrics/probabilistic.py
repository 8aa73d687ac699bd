"""Losses of probabilistic predictions: plain functions, and numbers from a summary.

The plain functions take the true class codes and an (n, k) probability array and
return a mean loss (the ``*_per_instance`` variants, from
``assay.summaries.probabilities``, return each instance's loss):

============================  =======================================  ========
function                      mean of                                  range
============================  =======================================  ========
``quadratic_loss``            Σ_j (p_j - a_j)²                          [0, 2]
``absolute_loss``             Σ_j |p_j - a_j|                           [0, 2]
``information_loss_bits``     -log2 p_c (infinite when some p_c = 0)   [0, ∞]
``brier_score``               scikit-learn's: quadratic / 2 for k = 2  [0, 2]
``log_loss``                  scikit-learn's: -ln clip(p_c, eps, 1-eps) [0, 36.04]
============================  =======================================  ========

The summary functions give what the intervals need: a mean with its sample
standard deviation (``mean_loss``), the losses of the prior classifier
(``prior_class_losses``) and the relative loss with its delta-method standard
error (``relative_loss``), and the calibration errors of a binned reliability
table (``calibration_errors``). ``CalibrationBinsFold`` sums a reliability table's
bins over a two-class score summary as a fold of one walk
(``assay.summaries.walk``: in memory, on disk, or on Spark's executors).

References
----------
I. H. Witten, E. Frank, *Data Mining*, section 5.6 (loss functions); the relative
loss compares a model with the prior classifier, which gives each class its relative
frequency, as section 5.8 compares numeric errors with those of predicting the mean.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal, get_args

import numpy as np

from assay.errors import InvalidInput
from assay.summaries.probabilities import (
    ProbabilitySummary,
    absolute_loss_per_instance,
    binned_sums,
    brier_scale,
    brier_score_per_instance,
    information_loss_bits_per_instance,
    log_loss_per_instance,
    quadratic_loss_per_instance,
)

__all__ = [
    "quadratic_loss",
    "absolute_loss",
    "information_loss_bits",
    "brier_score",
    "log_loss",
    "quadratic_loss_per_instance",
    "absolute_loss_per_instance",
    "information_loss_bits_per_instance",
    "brier_score_per_instance",
    "log_loss_per_instance",
    "MeanLossName",
    "MEAN_LOSSES",
    "RelativeLossName",
    "RELATIVE_LOSSES",
    "MeanLoss",
    "mean_loss",
    "class_frequencies",
    "prior_class_losses",
    "RelativeLoss",
    "relative_loss",
    "calibration_errors",
    "CalibrationBinsFold",
]

MeanLossName = Literal["quadratic", "absolute", "information", "brier", "log_loss"]
MEAN_LOSSES: tuple[str, ...] = get_args(MeanLossName)

RelativeLossName = Literal["quadratic", "absolute", "information"]
RELATIVE_LOSSES: tuple[str, ...] = get_args(RelativeLossName)


# ----------------------------------------------------------------------------
# plain functions


def _checked(y_true_codes, proba) -> tuple[np.ndarray, np.ndarray]:
    """Shapes only: codes (n,) in range, proba (n, k), n >= 1."""
    codes = np.asarray(y_true_codes)
    p = np.asarray(proba, dtype=np.float64)
    if p.ndim != 2 or p.shape[1] < 2:
        raise InvalidInput(f"expected an (n, k) array of probabilities with k >= 2, got shape {p.shape}",
                           field="proba")
    if codes.ndim != 1 or len(codes) != p.shape[0]:
        raise InvalidInput(f"expected {p.shape[0]} class codes, got shape {codes.shape}", field="y_true_codes")
    if len(codes) == 0:
        raise InvalidInput("no instances", field="y_true_codes")
    if codes.dtype.kind not in "iu" or codes.min() < 0 or codes.max() >= p.shape[1]:
        raise InvalidInput(f"class codes must be whole numbers from 0 to {p.shape[1] - 1}", field="y_true_codes")
    return codes.astype(np.intp, copy=False), p


def quadratic_loss(y_true_codes, proba) -> float:
    """Mean quadratic loss: (1/n) Σ_i Σ_j (p_ij - a_ij)².

    Parameters
    ----------
    y_true_codes : array-like of int, shape (n,)
        Index of each instance's true class among the columns of ``proba``.
    proba : array-like of float, shape (n, k)
        Predicted class probabilities; each row sums to 1.

    Returns
    -------
    float
        In [0, 2]. Equal to ``brier_score`` for three or more classes and to twice
        it for two.

    Raises
    ------
    InvalidInput
        When the shapes disagree or a code is out of range.

    Notes
    -----
    a_ij = 1 when class j is the true class of instance i, else 0.

    References
    ----------
    I. H. Witten, E. Frank, *Data Mining*, section 5.6.

    Examples
    --------
    (0.3² + 0.2² + 0.1²) = 0.14 and (0.5² + 0.5² + 0²) = 0.5, mean 0.32:

    >>> quadratic_loss([0, 1], [[0.7, 0.2, 0.1], [0.5, 0.5, 0.0]])
    0.32
    """
    codes, p = _checked(y_true_codes, proba)
    return float(quadratic_loss_per_instance(codes, p).mean())


def absolute_loss(y_true_codes, proba) -> float:
    """Mean absolute loss: (1/n) Σ_i Σ_j |p_ij - a_ij|.

    Parameters
    ----------
    y_true_codes : array-like of int, shape (n,)
        Index of each instance's true class among the columns of ``proba``.
    proba : array-like of float, shape (n, k)
        Predicted class probabilities; each row sums to 1.

    Returns
    -------
    float
        In [0, 2]; (2/n) Σ_i (1 - p_i,c_i) when the rows sum to 1.

    Raises
    ------
    InvalidInput
        When the shapes disagree or a code is out of range.

    References
    ----------
    I. H. Witten, E. Frank, *Data Mining*, section 5.6.

    Examples
    --------
    (0.3 + 0.2 + 0.1) = 0.6 and (0.5 + 0.5 + 0) = 1.0, mean 0.8:

    >>> absolute_loss([0, 1], [[0.7, 0.2, 0.1], [0.5, 0.5, 0.0]])
    0.8
    """
    codes, p = _checked(y_true_codes, proba)
    return float(absolute_loss_per_instance(codes, p).mean())


def information_loss_bits(y_true_codes, proba, *, clip: float | None = None) -> float:
    """Mean information loss in bits: (1/n) Σ_i -log2 p_i,c_i.

    Parameters
    ----------
    y_true_codes : array-like of int, shape (n,)
        Index of each instance's true class among the columns of ``proba``.
    proba : array-like of float, shape (n, k)
        Predicted class probabilities; each row sums to 1.
    clip : float, optional
        Raise each p_c to at least ``clip`` first. By default nothing is clipped.

    Returns
    -------
    float
        In [0, ∞]: ``inf`` when an instance got probability 0 for its true class
        (and no ``clip``): the information loss can be infinite.

    Raises
    ------
    InvalidInput
        When the shapes disagree or a code is out of range.

    References
    ----------
    I. H. Witten, E. Frank, *Data Mining*, section 5.6.

    Examples
    --------
    -log2 0.5 = 1 bit and -log2 0.25 = 2 bits, mean 1.5:

    >>> information_loss_bits([0, 1], [[0.5, 0.5], [0.75, 0.25]])
    1.5
    >>> information_loss_bits([1], [[1.0, 0.0]])
    inf
    """
    codes, p = _checked(y_true_codes, proba)
    return float(information_loss_bits_per_instance(codes, p, clip=clip).mean())


def brier_score(y_true_codes, proba) -> float:
    """Brier score as ``sklearn.metrics.brier_score_loss`` computes it by default.

    Parameters
    ----------
    y_true_codes : array-like of int, shape (n,)
        Index of each instance's true class among the columns of ``proba``.
    proba : array-like of float, shape (n, k)
        Predicted class probabilities; each row sums to 1.

    Returns
    -------
    float
        For two classes, (1/n) Σ_i (p_i,pos - y_i)², half the quadratic loss, in
        [0, 1]; for three or more, (1/n) Σ_i Σ_j (p_ij - a_ij)², the quadratic loss,
        in [0, 2] (scikit-learn 1.9's ``scale_by_half="auto"``). A lower score is
        better, despite the name.

    Raises
    ------
    InvalidInput
        When the shapes disagree or a code is out of range.

    References
    ----------
    G. W. Brier (1950), Monthly Weather Review 78:1-3; scikit-learn 1.9,
    ``brier_score_loss``.

    Examples
    --------
    Positives predicted with 0.9 and 0.8, a negative with 0.3:
    (0.01 + 0.04 + 0.09) / 3 = 0.14 / 3.

    >>> round(brier_score([1, 1, 0], [[0.1, 0.9], [0.2, 0.8], [0.7, 0.3]]), 6)
    0.046667
    """
    codes, p = _checked(y_true_codes, proba)
    return float(brier_score_per_instance(codes, p).mean())


def log_loss(y_true_codes, proba) -> float:
    """Log loss in nats, exactly as ``sklearn.metrics.log_loss``: it clips.

    Parameters
    ----------
    y_true_codes : array-like of int, shape (n,)
        Index of each instance's true class among the columns of ``proba``.
    proba : array-like of float, shape (n, k)
        Predicted class probabilities; each row sums to 1.

    Returns
    -------
    float
        (1/n) Σ_i -ln clip(p_i,c_i, eps, 1 - eps), eps = 2.220446049250313e-16
        (float64's machine epsilon), so never infinite: an instance with p_c = 0
        costs 36.04 nats. ``information_loss_bits`` is the unclipped loss (in
        bits, ln 2 = 0.693 nats each).

    Raises
    ------
    InvalidInput
        When the shapes disagree or a code is out of range.

    References
    ----------
    scikit-learn 1.9, ``log_loss``; C. M. Bishop (2006), *Pattern Recognition and
    Machine Learning*, p. 209.

    Examples
    --------
    -ln 0.5 = ln 2 = 0.693147...:

    >>> round(log_loss([0, 1], [[0.5, 0.5], [0.5, 0.5]]), 6)
    0.693147
    """
    codes, p = _checked(y_true_codes, proba)
    return float(log_loss_per_instance(codes, p).mean())


# ----------------------------------------------------------------------------
# from a summary


@dataclass(frozen=True)
class MeanLoss:
    """The mean of per-instance losses and what its normal interval needs.

    ``mean`` is ``inf`` when ``infinite`` > 0 and NaN when ``n`` = 0; ``sd`` is the
    sample standard deviation (divisor n - 1), NaN when n < 2 or the mean is
    not finite.
    """

    n: int
    mean: float
    sd: float
    infinite: int = 0


def mean_loss(summary: ProbabilitySummary, loss: MeanLossName) -> MeanLoss:
    """Mean and sample standard deviation of one per-instance loss.

    Examples
    --------
    >>> s = ProbabilitySummary.from_codes([0, 0], [[0.5, 0.5], [0.0, 1.0]], labels=("a", "b"))
    >>> mean_loss(s, "quadratic")
    MeanLoss(n=2, mean=1.25, sd=1.0606601717798212, infinite=0)
    >>> mean_loss(s, "information").mean, mean_loss(s, "information").infinite
    (inf, 1)
    """
    n = summary.n
    scale = 1.0
    if loss == "brier":
        scale, loss = brier_scale(len(summary.labels)), "quadratic"
    moments = getattr(summary, loss)
    infinite = n - moments.n
    if infinite:
        return MeanLoss(n, math.inf, math.nan, infinite)
    if n == 0:
        return MeanLoss(0, math.nan, math.nan)
    sd = math.sqrt(moments.centred_sum_of_squares / (n - 1)) if n > 1 else math.nan
    return MeanLoss(n, scale * moments.mean, scale * sd)


def class_frequencies(summary: ProbabilitySummary) -> np.ndarray:
    """Relative frequency of each class among the summarised instances."""
    n = summary.n
    return summary.class_counts / n if n else np.full(len(summary.labels), np.nan)


def prior_class_losses(prior, loss: RelativeLossName, *, clip: float | None = None) -> np.ndarray:
    """The prior classifier's loss on an instance of each class.

    The prior classifier predicts the same distribution q for every instance, so
    its loss depends on the true class c only: Σ_j q_j² - 2 q_c + 1 (quadratic),
    Σ_j |q_j - a_j| = 2 (1 - q_c) (absolute) and -log2 q_c (information, raised to
    ``clip`` as for the model).

    Examples
    --------
    >>> prior_class_losses([0.75, 0.25], "information").tolist()
    [0.4150374992788438, 2.0]
    >>> prior_class_losses([0.75, 0.25], "quadratic").tolist()
    [0.125, 1.125]
    """
    q = np.asarray(prior, dtype=np.float64)
    rows = np.broadcast_to(q, (len(q), len(q)))
    codes = np.arange(len(q))
    if loss == "quadratic":
        return quadratic_loss_per_instance(codes, rows)
    if loss == "absolute":
        return absolute_loss_per_instance(codes, rows)
    return information_loss_bits_per_instance(codes, rows, clip=clip)


@dataclass(frozen=True)
class RelativeLoss:
    """A model's mean loss relative to the prior classifier's, with its standard error.

    ``value`` = ``model_loss`` / ``prior_loss``; ``value`` and ``se`` are NaN when
    either loss is infinite or NaN, or the prior's loss is 0 (``se`` also when
    n < 2). ``prior_loss`` is the prior classifier's mean loss on the same
    instances.
    """

    value: float
    se: float
    model_loss: float
    prior_loss: float
    n: int


def relative_loss(
    summary: ProbabilitySummary, loss: RelativeLossName, prior, *, prior_from_data: bool
) -> RelativeLoss:
    """The relative loss R = mean model loss / mean prior-classifier loss (the trivial baseline).

    Parameters
    ----------
    summary : ProbabilitySummary
    loss : {"quadratic", "absolute", "information"}
    prior : array-like of shape (k,)
        The prior classifier's distribution q, in label order.
    prior_from_data : bool
        True when q is the class frequency of these same instances, so that its
        variability enters the standard error.

    Returns
    -------
    RelativeLoss

    Notes
    -----
    With x_i the model's loss on instance i and g(c) the prior's loss on an
    instance of class c, D = (1/n) Σ_i g(c_i) and R = x̄ / D. The delta method
    gives Var R ≈ (1/n) Var(ψ) with the influence

        ψ_i = [(x_i - x̄) - R (G(c_i) - Ḡ)] / D,

    estimated with divisor n - 1, so se = sqrt(Σ ψ_i² / ((n - 1) n)). For a given
    prior G = g: R is the ratio of two correlated means. When q is the test
    data's class frequency π, D = Σ_c π_c g_π(c) and G(c) = ∂D/∂π_c (up to a
    constant, which cancels). The quadratic and information losses are proper
    scoring rules: π minimises the prior's expected loss, its first-order effect
    vanishes and again G = g. The absolute loss is not: D = 2 (1 - Σ_c π_c²)
    and G(c) = g(c) - 2 π_c.

    Examples
    --------
    The prior classifier evaluated as the model has relative loss 1:

    >>> s = ProbabilitySummary.from_codes([0, 0, 0, 1], [[0.75, 0.25]] * 4, labels=("a", "b"))
    >>> relative_loss(s, "quadratic", class_frequencies(s), prior_from_data=True).value
    1.0
    """
    n = summary.n
    q = np.asarray(prior, dtype=np.float64)
    model = mean_loss(summary, loss).mean
    if n == 0:
        return RelativeLoss(math.nan, math.nan, model, math.nan, 0)
    g = prior_class_losses(q, loss, clip=summary.clip)
    counts = summary.class_counts
    present = counts > 0
    prior_loss = float(np.dot(counts[present], g[present]) / n)
    if not (math.isfinite(model) and math.isfinite(prior_loss) and prior_loss > 0.0):
        return RelativeLoss(math.nan, math.nan, model, prior_loss, n)
    r = model / prior_loss
    influence_g = g
    if prior_from_data and loss == "absolute":
        influence_g = g - 2.0 * q
    elif prior_from_data and loss == "information" and summary.clip is not None:
        # D = -Σ π_c log2 max(π_c, clip): the -1/ln 2 of d/dπ (π log2 π) is lost below the clip
        influence_g = g - np.where(q >= summary.clip, 1.0 / math.log(2.0), 0.0)
    if n < 2:
        return RelativeLoss(r, math.nan, model, prior_loss, n)
    ss = getattr(summary, loss).centred_cross(np.where(present, influence_g, 0.0), r)
    se = math.sqrt(ss / ((n - 1) * n)) / prior_loss
    return RelativeLoss(r, se, model, prior_loss, n)


def calibration_errors(count, predicted_sum, observed) -> tuple[float, float]:
    """Expected and maximum calibration error of a binned reliability table.

    ECE = Σ_b (n_b / n) |o_b - p̄_b| = (1/n) Σ_b |O_b - P_b| and
    MCE = max_b |o_b - p̄_b| over the non-empty bins, where bin b holds n_b
    instances, P_b = Σ of their predicted probabilities (p̄_b = P_b / n_b) and
    O_b of them were positive (o_b = O_b / n_b). NaN for an empty table.

    References
    ----------
    M. P. Naeini, G. F. Cooper, M. Hauskrecht (2015), AAAI 29:2901-2907.

    Examples
    --------
    Bin 1: 2 instances predicted 0.2 on average, none positive; bin 2: 2 at 0.7,
    both positive. ECE = (2 * 0.2 + 2 * 0.3) / 4 = 0.25, MCE = 0.3.

    >>> ece, mce = calibration_errors([2, 2], [0.4, 1.4], [0, 2])
    >>> round(ece, 12), round(mce, 12)
    (0.25, 0.3)
    """
    count = np.asarray(count, dtype=np.float64)
    predicted_sum = np.asarray(predicted_sum, dtype=np.float64)
    observed = np.asarray(observed, dtype=np.float64)
    n = count.sum()
    filled = count > 0
    if n == 0:
        return math.nan, math.nan
    gap = np.abs(observed[filled] - predicted_sum[filled])
    return float(gap.sum() / n), float((gap / count[filled]).max())


@dataclass(frozen=True)
class CalibrationBinsFold:
    """A reliability table's sums over a two-class score summary, in the bins cut by ``edges``, as a fold
    of one walk (:mod:`assay.summaries.walk`): each piece of distinct scores is binned as
    ``sklearn.calibration.calibration_curve`` bins (:func:`~assay.summaries.probabilities.bin_index`), each
    score weighted by its instances, and the pieces' sums added in order.

    The result is (count, predicted, observed), float64 arrays of ``len(edges) - 1`` bins: the instances,
    the sum of their scores (the probabilities of the positive class) and the positives of each bin. The
    counts are exact while they stay below 2**53.

    Examples
    --------
    >>> from assay.summaries.walk import Piece
    >>> fold = CalibrationBinsFold((0.0, 0.5, 1.0))
    >>> s, pos, neg = np.array([0.9, 0.5, 0.2]), np.array([2, 1, 0]), np.array([0, 1, 3])
    >>> part = fold.piece(Piece(0, 3, s, pos, neg, None, None, 0, 0, 3, 4))
    >>> [a.tolist() for a in fold.combine([part], None)]
    [[5.0, 2.0], [1.6, 1.8], [1.0, 2.0]]
    """

    edges: tuple[float, ...]
    columns = ("scores", "positives", "negatives")

    def piece(self, p: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        scores = np.asarray(p.scores, dtype=np.float64)
        pos = np.asarray(p.positives, dtype=np.float64)
        both = pos + np.asarray(p.negatives, dtype=np.float64)
        count, predicted, observed = binned_sums(scores, np.asarray(self.edges, dtype=np.float64),
                                                 [both, both * scores, pos])
        return count, predicted, observed

    def combine(self, partials: list[tuple[np.ndarray, ...]], look: Any) -> tuple[np.ndarray, ...]:
        bins = len(self.edges) - 1
        count, predicted, observed = np.zeros(bins), np.zeros(bins), np.zeros(bins)
        for c, p, o in partials:  # in order, as one loop over the pieces adds them
            count += c
            predicted += p
            observed += o
        return count, predicted, observed
