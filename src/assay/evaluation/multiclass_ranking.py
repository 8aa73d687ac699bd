"""Ranking quality of a k-class probability matrix: one-vs-rest AUCs and Hand & Till's M.

One-vs-rest: class j's probability column ranks class j against all others;
the k AUCs are averaged plainly (macro) or by prevalence (weighted). Hand &
Till's M averages, over every pair of classes (i, j), A(i|j) (column i ranking i
against j, other classes left out) and A(j|i).

References
----------
D. J. Hand, R. J. Till (2001), A simple generalisation of the area under the
ROC curve for multiple class classification problems, Machine Learning
45:171-186. T. Fawcett (2006), An introduction to ROC analysis, Pattern
Recognition Letters 27:861-874 (section 9: one ROC curve per class, each class
against the rest).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from itertools import combinations
from typing import Any, Literal

import numpy as np

from assay.checks import check_confidence, check_integer
from assay.errors import InvalidInput
from assay.inference.bootstrap import BootstrapSettings
from assay.inference.estimate import ConfidenceInterval, Estimate
from assay.inference.proportion import proportion_bounds
from assay.inference.roc import delong, logit_interval
from assay.inputs import as_proba, canonical_label, encode_labels
from assay.metrics.ranking import auc_from_keys, pr_points, roc_points, threshold_counts
from assay.metrics.ranking import average_precision as _average_precision
from assay.summaries.scores import ScoreCounts, sort_keys

__all__ = ["one_vs_rest_aucs", "hand_till", "MulticlassRanking", "analyse_multiclass_counts",
           "analyse_multiclass_scores", "BOOTSTRAP_BUDGET", "CurveKind", "CURVE_KINDS", "one_vs_rest_average_precision",
           "top_k_hits",
           "check_top_k", "top_k_accuracy", "rank_classes"]

CurveKind = Literal["roc", "pr"]
CURVE_KINDS: tuple[str, ...] = ("roc", "pr")

MIN_RESAMPLES = 100
"""The fewest resamples a bootstrap is asked for (``assay.checks.check_resamples``)."""

BOOTSTRAP_BUDGET = 250_000_000
"""Largest resamples x instances x classes for which the averages of k classes' probabilities (one-vs-rest AUCs,
Hand & Till's M, average precisions) get a bootstrap interval: a resample costs a few passes over the
instances per class, about 30 ns per instance and class here, so the largest bootstrap takes some 8 s
(2,000 resamples: 12,500 instances of 10 classes, 1,250 of 100)."""


def _auc(is_positive: np.ndarray, scores: np.ndarray) -> float:
    if is_positive.all() or not is_positive.any():
        return float("nan")
    return auc_from_keys(sort_keys(is_positive, scores))


def one_vs_rest_aucs(matrix: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The AUC of each class against the rest (NaN for a class absent from the truth), and supports."""
    k = matrix.shape[1]
    aucs = np.array([_auc(codes == j, matrix[:, j]) for j in range(k)])
    return aucs, np.bincount(codes, minlength=k)


def hand_till(matrix: np.ndarray, codes: np.ndarray, *, average: str = "macro") -> float:
    """Hand & Till's M: the mean over class pairs of (A(i|j) + A(j|i)) / 2.
    ``average="weighted"`` weights each pair by its share of the instances, as
    scikit-learn's ``roc_auc_score(multi_class="ovo", average="weighted")``.

    Examples
    --------
    >>> p = np.array([[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.3, 0.3, 0.4], [0.5, 0.4, 0.1]])
    >>> hand_till(p, np.array([0, 1, 2, 1]))
    1.0
    """
    values, shares = [], []
    for i, j in combinations(range(matrix.shape[1]), 2):
        pair = (codes == i) | (codes == j)
        a_ij = _auc(codes[pair] == i, matrix[pair, i])
        a_ji = _auc(codes[pair] == j, matrix[pair, j])
        values.append((a_ij + a_ji) / 2.0)
        shares.append(pair.mean())
    if not values:
        return float("nan")
    return float(np.average(values, weights=shares if average == "weighted" else None))


def summary_average_precision(sc: ScoreCounts) -> float:
    """Average precision of one summary; 0 when it holds no positive (scikit-learn's convention: with no
    positive, its recall is set to 1 at every threshold, so no step adds any area)."""
    if not sc.n_positive > 0:
        return 0.0
    return _average_precision(threshold_counts(sc))


def one_vs_rest_average_precision(
    summaries: list[ScoreCounts], support: np.ndarray, average: str | None
) -> float | np.ndarray:
    """Average precision of each class against the rest, or their ``average``, from the k one-vs-rest
    summaries (inputs validated: one per class, classes with no positive included).

    As ``sklearn.metrics.average_precision_score`` on the binarized truth: "macro" the plain mean
    (a class with no positive counts 0), "weighted" the mean weighted by ``support`` (0 if no
    support), "micro" the AP of all (instance, class) pairs pooled, which is the AP of the merged
    summaries, and None the per-class values.

    Examples
    --------
    >>> s = [ScoreCounts.from_arrays([1, 0, 0], [0.9, 0.2, 0.1]), ScoreCounts.from_arrays([0, 1, 1], [0.1, 0.8, 0.5])]
    >>> one_vs_rest_average_precision(s, np.array([1, 2]), None).tolist()
    [1.0, 1.0]
    """
    per_class = np.array([summary_average_precision(sc) for sc in summaries])
    if average is None:
        return per_class
    if average == "macro":
        return float(per_class.mean())
    if average == "weighted":
        total = float(np.sum(support))
        return float(np.average(per_class, weights=support)) if total > 0 else 0.0
    return summary_average_precision(_pooled(summaries))


def _pooled(summaries: list[ScoreCounts]) -> ScoreCounts:
    """The k summaries as one, every (instance, class) pair pooled: one sort of them all (merging them one
    after the other would cost k passes over a growing summary)."""
    scores = np.concatenate([np.asarray(sc.scores, dtype=np.float64) for sc in summaries])
    order = np.argsort(-scores, kind="stable")
    scores = scores[order]
    pos = np.concatenate([np.asarray(sc.positives) for sc in summaries])[order]
    neg = np.concatenate([np.asarray(sc.negatives) for sc in summaries])[order]
    starts = np.concatenate(([0], np.flatnonzero(scores[1:] != scores[:-1]) + 1)) if len(scores) else order
    return ScoreCounts(scores[starts], np.add.reduceat(pos, starts) if len(scores) else pos,
                       np.add.reduceat(neg, starts) if len(scores) else neg)


def top_k_hits(matrix: np.ndarray, codes: np.ndarray, k: int) -> np.ndarray:
    """Whether each instance's true class is among its ``k`` highest scores (inputs validated).
    Ties as scikit-learn's ``top_k_accuracy_score``: the columns are ordered by a stable sort of
    the scores, then reversed, so that among equal scores the later column ranks higher.

    >>> top_k_hits(np.array([[0.5, 0.3, 0.2], [0.4, 0.4, 0.2]]), np.array([1, 0]), 1).tolist()
    [False, False]
    """
    if k >= matrix.shape[1]:
        return np.ones(len(codes), dtype=bool)
    order = np.argsort(matrix, axis=1, kind="mergesort")[:, ::-1][:, :k]
    return (order == codes[:, None]).any(axis=1)


def check_top_k(top_k: Any, matrix: np.ndarray | None, labels: tuple[str, ...]) -> int:
    """``top_k`` validated: a whole number >= 1, for probabilities of more than two classes."""
    if matrix is None or len(labels) <= 2:
        raise InvalidInput("applies to probabilities of more than two classes (one column per class)", field="top_k")
    return check_integer(top_k, "top_k", low=1)


def top_k_accuracy(matrix: np.ndarray, codes: np.ndarray, k: int, *, weights: np.ndarray | None = None,
                   confidence: float = 0.95, interval: str = "wilson") -> Estimate:
    """The share of instances whose actual class is among their ``k`` most probable, with the interval of a
    proportion (``interval``, Wilson's by default), as scikit-learn's ``top_k_accuracy_score`` (ties:
    :func:`top_k_hits`). Inputs validated. Whole-number ``weights`` count each instance that many times;
    others give the weighted share without an interval.

    Notes
    -----
    Top-k accuracy = (1/n) sum_i [y_i among the k highest p_i.]; k = 1 is the accuracy of the most
    probable class (ties aside), k >= the number of classes gives 1.

    Examples
    --------
    >>> p = np.array([[0.5, 0.3, 0.2], [0.2, 0.3, 0.5], [0.1, 0.6, 0.3], [0.6, 0.3, 0.1]])
    >>> top_k_accuracy(p, np.array([1, 0, 2, 0]), 2).value
    0.75
    """
    hits = top_k_hits(matrix, codes, k)
    note = f"k = {k}: the actual class among the {k} most probable"
    if k >= matrix.shape[1]:
        note += f" (k >= {matrix.shape[1]} classes: every instance counts, as scikit-learn, which warns)"
    if weights is None:
        successes, n = int(hits.sum()), len(hits)
    elif bool(np.all(weights == np.floor(weights))):
        successes, n = int(weights[hits].sum()), int(weights.sum())
    else:
        total = float(weights.sum())
        if not total > 0:
            return Estimate.undefined("undefined: every weight is 0")
        return Estimate(float(weights[hits].sum() / total), None, None,
                        note + "; no interval: the sample weights are not counts")
    return top_k_estimate(successes, n, k, matrix.shape[1], confidence=confidence, interval=interval)


def top_k_estimate(successes: int, n: int, k: int, classes: int, *, confidence: float = 0.95,
                   interval: str = "wilson") -> Estimate:
    """The top-k accuracy from its counts (instances whose actual class is among their k most probable, of n),
    with the interval of a proportion: what data read in batches add up to."""
    note = f"k = {k}: the actual class among the {k} most probable"
    if k >= classes:
        note += f" (k >= {classes} classes: every instance counts, as scikit-learn, which warns)"
    if n == 0:
        return Estimate.undefined("undefined: no instances")
    low, high = proportion_bounds(successes, n, confidence=confidence, method=interval)
    return Estimate(successes / n, ConfidenceInterval(float(low), float(high)), interval, note)


@dataclass(frozen=True)
class MulticlassRanking:
    """One-vs-rest AUC per class (DeLong intervals), their averages and Hand & Till's M; the average
    precision of each class against the rest and its macro, micro and weighted means; and each class's
    one-vs-rest summary, from which its ROC and precision-recall curves are read (:meth:`roc`, :meth:`pr`).
    """
    per_class: dict[str, Estimate]
    macro: Estimate
    weighted: Estimate
    hand_till: Estimate
    average_precision: dict[str, Estimate] = field(default_factory=dict)
    average_precision_macro: Estimate | None = None
    average_precision_micro: Estimate | None = None
    average_precision_weighted: Estimate | None = None
    summaries: tuple[ScoreCounts | None, ...] = field(default=(), compare=False, repr=False)

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(self.per_class)

    def summary(self, cls: Any) -> ScoreCounts:
        """Class ``cls``'s one-vs-rest score counts (its probability column; that class positive).
        Raises InvalidInput for a label that is not a class, or a class with no actual instance
        (its curves are undefined)."""

        label = canonical_label(cls, self.labels, field="class")
        sc = self.summaries[self.labels.index(label)] if self.summaries else None
        if sc is None or not (sc.n_positive > 0 and sc.n_negative > 0):
            raise InvalidInput(f"{label!r} has no one-vs-rest curve: it needs actual instances of it and of "
                               "another class", field="class")
        return sc

    def roc(self, cls: Any) -> dict[str, np.ndarray]:
        """Class ``cls`` against the rest: the exact ROC curve, one point per distinct probability of the
        class, from (0, 0) at threshold +inf (as ``sklearn.metrics.roc_curve(y == cls, proba[:, cls],
        drop_intermediate=False)``)."""
        fpr, tpr, thresholds = roc_points(threshold_counts(self.summary(cls)))
        return {"threshold": thresholds, "fpr": fpr, "tpr": tpr}

    def pr(self, cls: Any) -> dict[str, np.ndarray]:
        """Class ``cls`` against the rest: precision and recall at each distinct threshold, highest first."""
        precision, recall, thresholds = pr_points(threshold_counts(self.summary(cls)))
        return {"threshold": thresholds, "recall": recall, "precision": precision}

    def curves(self, kind: CurveKind = "roc") -> dict[str, dict[str, np.ndarray]]:
        """Every class's one-vs-rest curve (``kind`` "roc" or "pr"), by class, leaving out the classes
        with no actual instance."""
        if kind not in CURVE_KINDS:
            raise InvalidInput(f"{kind!r} is not one of {list(CURVE_KINDS)}", field="kind")
        read = self.roc if kind == "roc" else self.pr
        return {label: read(label) for label, sc in zip(self.labels, self.summaries, strict=False)
                if sc is not None and sc.n_positive > 0 and sc.n_negative > 0}

    def to_dict(self) -> dict[str, Any]:
        out = {
            "roc_auc_ovr": {label: e.to_dict() for label, e in self.per_class.items()},
            "roc_auc_ovr_macro": self.macro.to_dict(),
            "roc_auc_ovr_weighted": self.weighted.to_dict(),
            "hand_till": self.hand_till.to_dict(),
        }
        if self.average_precision:
            out["average_precision_ovr"] = {label: e.to_dict() for label, e in self.average_precision.items()}
            for name in ("macro", "micro", "weighted"):
                e = getattr(self, f"average_precision_{name}")
                out[f"average_precision_{name}"] = e.to_dict() if e is not None else None
        return out


def _ap_rows(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """Average precision per row from the positive and negative weight of each score group (ascending), as
    scikit-learn's: the sum over thresholds, highest first, of the recall gained times the precision there.
    (The bootstrap reads it through :class:`_Resampler` now; kept for tests/test_multiclass_curves.py.)"""
    pos, neg = pos[:, ::-1], neg[:, ::-1]
    tp, fp = np.cumsum(pos, axis=1), np.cumsum(neg, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(tp + fp > 0, tp / np.where(tp + fp > 0, tp + fp, 1.0), 1.0)
        return (pos * precision).sum(axis=1) / pos.sum(axis=1)


class _Column:
    """One column of scores sorted once, for weighted counts at or above each of its scores.
    ``starts``: where each run of equal scores begins (ascending order); ``runs``: where each run holding
    instances of the column's class (its ``members``, in score order) begins among them, ``run_groups`` which
    run of all it is; ``half``: for each instance q in the order ``at``, where :meth:`half_above` reads the
    members' weight above q plus half of that tied with q.
    """
    def __init__(self, scores: np.ndarray, is_positive: np.ndarray, at: np.ndarray) -> None:
        self.order = np.argsort(scores, kind="stable")
        s = scores[self.order]
        new_run = np.concatenate(([True], s[1:] != s[:-1]))
        self.starts = np.flatnonzero(new_run)
        self.distinct = s[self.starts]
        group_of = np.empty(len(s), dtype=np.intp)
        group_of[self.order] = np.cumsum(new_run) - 1
        self.members = self.order[is_positive[self.order]]
        g = group_of[self.members]
        self.runs = np.flatnonzero(np.concatenate(([True], g[1:] != g[:-1]))) if len(g) else g
        run_groups = g[self.runs]
        self.run_groups = run_groups
        # for each instance (in the order ``at``): the first run of members at or above its score, and whether
        # that run is tied with it; read in [C - R/2 per run, C per run, 0]: C the members' weight at or
        # above a run, R the run's own
        r = len(run_groups)
        q = group_of[at]
        first = np.searchsorted(run_groups, q, side="left")
        tied = np.zeros(len(q), dtype=bool)
        tied[first < r] = run_groups[first[first < r]] == q[first < r]
        self.half = np.where(tied, first, np.where(first < r, r + first, 2 * r))

    @staticmethod
    def _totals(weights: np.ndarray, instances: np.ndarray, starts: np.ndarray) -> np.ndarray:
        w = weights[instances]
        return w if len(starts) == len(instances) else np.add.reduceat(w, starts, axis=0)

    def weights_above(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For each column of ``weights`` (instances x resamples): the members' weight in each of their runs,
        theirs at or above each such run, and everyone's at or above each distinct score."""
        runs = self._totals(weights, self.members, self.runs)
        return runs, _from_top(runs), _from_top(self._totals(weights, self.order, self.starts))

    def half_above(self, runs: np.ndarray, members_above: np.ndarray) -> np.ndarray:
        """For each instance (in the order ``at``): the members' weight scoring above it plus half of that
        tied with it."""
        return np.concatenate((members_above - 0.5 * runs, members_above, np.zeros((1, runs.shape[1]))))[self.half]


def _from_top(x: np.ndarray) -> np.ndarray:
    """Cumulative sums of the rows from the last: x[j] + x[j + 1] + ... (row by row when the rows are long:
    numpy's cumsum down the rows of a C-ordered array walks it column by column, several times slower)."""
    if x.shape[1] < 64:
        return np.cumsum(x[::-1], axis=0)[::-1]
    out = np.empty_like(x)
    total = np.zeros(x.shape[1])
    for j in range(len(x) - 1, -1, -1):
        total += x[j]
        out[j] = total
    return out


def _share(part: np.ndarray, whole: np.ndarray) -> np.ndarray:
    """part / whole, 0 where the whole is 0 (a precision there weighs nothing: no positive was drawn)."""
    return np.divide(part, whole, out=np.zeros_like(part), where=whole > 0)


class _Resampler:
    """The averages of a k-class probability matrix under any weights of its instances (inputs validated:
    every class has instances; each class's weights sum to its size, as a stratified bootstrap's counts do).

    Each column is sorted once. Under weights w, column i gives T_i(q), the weight of class i scoring above
    instance q plus half of that tied with it, from one cumulative sum over class i's instances; the sum
    over the instances q of class j of w_q T_i(q) is the Mann-Whitney count of A(i|j) (Hand & Till 2001),
    n_i n_j its denominator, and summed over j != i it is the count of class i against the rest (Fawcett
    2006, section 9). Average precision: each positive's weight times the precision at or above its score;
    for the micro mean, the (instance, class) pairs at or above a score are counted column by column. So a
    resample costs a few passes over the n instances per class, not one per pair of classes.
    """
    KEPT = 4_000_000
    """The most instances x classes whose sorted columns are kept between calls (some 32 bytes each); more
    are sorted again at each call, so that memory stays a few arrays of n per class."""

    def __init__(self, matrix: np.ndarray, codes: np.ndarray) -> None:
        n, k = matrix.shape
        self.k, self.matrix, self.codes = k, matrix, codes
        self.support = np.bincount(codes, minlength=k).astype(np.float64)
        self.by_class = np.argsort(codes, kind="stable")
        self.class_starts = np.concatenate(([0], np.cumsum(self.support[:-1]).astype(np.intp)))
        self.truth_scores = matrix[np.arange(n), codes]  # the n positive pairs of the micro mean
        self.truth = _Column(self.truth_scores, np.ones(n, dtype=bool), np.arange(n))
        self.pair_weight = 1.0 / (self.support[:, None] * self.support[None, :])  # 1 / (n_i n_j)
        self.kept = list(self._columns()) if n * k <= self.KEPT else None

    def _columns(self) -> Iterator[tuple[_Column, np.ndarray]]:
        """Each column sorted, and where each instance's own class's score falls among its distinct scores."""
        if getattr(self, "kept", None) is not None:
            yield from self.kept
            return
        for j in range(self.k):
            col = _Column(self.matrix[:, j], self.codes == j, self.by_class)
            yield col, np.searchsorted(col.distinct, self.truth_scores, side="left")

    def averages(self, weights: np.ndarray) -> dict[str, np.ndarray]:
        """Per column of ``weights`` (instances x resamples): the macro and weighted one-vs-rest AUCs, Hand and
        Till's M, and the macro, weighted and micro average precisions."""
        k, support = self.k, self.support
        n, c = weights.shape
        w_by_class = weights[self.by_class]
        ovr, aps = np.empty((k, c)), np.empty((k, c))
        pairs = np.zeros(c)
        pooled = np.zeros((n, c))  # the (instance, class) pairs at or above each instance's own class's score
        zero = np.zeros((1, c))
        for i, (col, first_at_or_above) in enumerate(self._columns()):
            runs, members_above, everyone_above = col.weights_above(weights)
            counts = np.add.reduceat(w_by_class * col.half_above(runs, members_above), self.class_starts, axis=0)
            counts[i] = 0.0  # class i against itself: not a pair
            ovr[i] = counts.sum(axis=0) / (support[i] * (support.sum() - support[i]))
            pairs += self.pair_weight[i] @ counts
            aps[i] = (runs * _share(members_above, everyone_above[col.run_groups])).sum(axis=0) / support[i]
            pooled += np.concatenate((everyone_above, zero))[first_at_or_above]
        runs, members_above, _ = self.truth.weights_above(weights)
        truth_above = members_above[self.truth.half]  # every instance is in a run of its own column: tied
        micro = (weights * _share(truth_above, pooled)).sum(axis=0) / support.sum()
        return {"macro": ovr.mean(axis=0), "weighted": support @ ovr / support.sum(),
                "hand_till": pairs / (k * (k - 1)), "ap_macro": aps.mean(axis=0),
                "ap_weighted": support @ aps / support.sum(), "ap_micro": micro}


def _bootstrap_averages(matrix: np.ndarray, codes: np.ndarray, confidence: float, settings: BootstrapSettings,
                        resampler: _Resampler | None = None) -> dict[str, ConfidenceInterval | None]:
    """Percentile intervals of the averages (inputs validated: every class has instances), by a stratified
    bootstrap: each resample draws each class's instances with replacement, as many as it has, and the
    averages are recomputed under the times each instance is drawn (:class:`_Resampler`)."""
    n, k = matrix.shape
    resampler = resampler or _Resampler(matrix, codes)
    members = [np.flatnonzero(codes == c) for c in range(k)]
    rng = np.random.default_rng(settings.seed)
    chunk = max(1, min(settings.resamples, 2_000_000 // n))
    values: dict[str, list[np.ndarray]] = {}
    done = 0
    while done < settings.resamples:
        c = min(chunk, settings.resamples - done)
        rows = (np.arange(c, dtype=np.int64) * n)[:, None]
        flat = np.concatenate([(idx[rng.integers(0, len(idx), size=(c, len(idx)))] + rows).ravel()
                               for idx in members if len(idx)])
        weights = np.bincount(flat, minlength=c * n).reshape(c, n).T.astype(np.float64, order="C")
        for name, v in resampler.averages(weights).items():  # weights: instances x resamples
            values.setdefault(name, []).append(v)
        done += c
    alpha = 1.0 - confidence
    out: dict[str, ConfidenceInterval | None] = {}
    for name, chunks in values.items():
        v = np.concatenate(chunks)
        v = v[np.isfinite(v)]
        if len(v) < 0.99 * settings.resamples:
            out[name] = None
            continue
        low, high = np.quantile(v, [alpha / 2.0, 1.0 - alpha / 2.0])
        out[name] = ConfidenceInterval(float(low), float(high))
    return out


def _per_class(summaries: Any, labels: tuple[str, ...], confidence: float) -> tuple[dict[str, Estimate], np.ndarray]:
    """Each class's one-vs-rest AUC with DeLong's interval, from its summary (None: no actual instance)."""
    per_class: dict[str, Estimate] = {}
    for label, summary in zip(labels, summaries, strict=True):
        if summary is None:
            per_class[label] = Estimate.undefined(f"no actual {label!r}")
            continue
        dl = delong(summary, confidence=confidence)
        per_class[label] = Estimate(dl.auc, dl.ci, "delong" if dl.ci else None,
                                    None if dl.ci else "no interval: DeLong's needs two instances of each class")
    return per_class, np.array([np.nan if e.value is None else e.value for e in per_class.values()])


def _undefined_averages(per_class: dict[str, Estimate], absent: list[str]) -> MulticlassRanking:
    note = f"undefined: no actual instances of {', '.join(repr(a) for a in absent)}"
    return MulticlassRanking(per_class, Estimate.undefined(note), Estimate.undefined(note), Estimate.undefined(note))


AP_AVERAGE_NOTE = "no interval: computed from the per-class summaries"

BATCHES_NOTE = "no interval: data read in batches keep no instances to resample"


def _with_average_precision(ranking: MulticlassRanking, summaries: list[ScoreCounts | None], support: np.ndarray,
                            confidence: float, note: str = AP_AVERAGE_NOTE,
                            micro_value: float | None = None) -> MulticlassRanking:
    """The ranking with each class's one-vs-rest average precision (Boyd et al.'s logit interval, as for
    two classes) and its macro, micro and weighted means (``note`` says why they have no interval; the micro
    mean is ``micro_value`` when already computed), and the summaries for the curves.

    A class with no actual instance has no AP (scikit-learn counts it 0, ``assay.average_precision``
    too); the macro mean is then undefined, the weighted one gives it weight 0, and the micro mean
    needs every class's column (None: a summary of data read in batches that did not keep it)."""
    labels = tuple(ranking.per_class)
    per_class: dict[str, Estimate] = {}
    for label, sc, s in zip(labels, summaries, support, strict=True):
        if sc is None or s == 0:
            per_class[label] = Estimate.undefined(f"no actual {label!r}")
            continue
        ap = summary_average_precision(sc)
        ci = logit_interval(ap, float(s), confidence=confidence)
        per_class[label] = Estimate(ap, ci, "logit", None if ci else "no interval: the area is 0 or 1")
    present = [sc for sc in summaries if sc is not None]
    values = np.array([e.value if e.value is not None else 0.0 for e in per_class.values()])
    absent = [label for label, s in zip(labels, support, strict=True) if s == 0]
    macro = Estimate.undefined(f"undefined: no actual instances of {', '.join(repr(a) for a in absent)}") \
        if absent else Estimate(float(values.mean()), None, None, note)
    weighted = Estimate(float(np.average(values, weights=support)), None, None, note)
    if len(present) == len(labels):
        value = one_vs_rest_average_precision(present, support, "micro") if micro_value is None else micro_value
        micro = Estimate(float(value), None, None, note)
    else:
        micro = Estimate.undefined("undefined: the scores of a class with no actual instance were not kept")
    return MulticlassRanking(ranking.per_class, ranking.macro, ranking.weighted, ranking.hand_till,
                             per_class, macro, micro, weighted, tuple(summaries))


def analyse_multiclass_counts(summaries: list[ScoreCounts | None], pair_aucs: np.ndarray, support: np.ndarray,
                              labels: tuple[str, ...], *, confidence: float = 0.95,
                              micro: float | None = None) -> MulticlassRanking:
    """:func:`analyse_multiclass_scores` from summaries: each class's one-vs-rest score counts (None for a
    class with no actual instance), ``pair_aucs[i, j]`` = A(i|j) (column i ranking class i against class
    j), and the classes' supports, as data read in batches give them. ``micro``: the micro average
    precision where already computed (from a pooled summary kept elsewhere), else made from the summaries.

    The averages come without an interval: their bootstrap resamples instances, which a summary does not
    keep."""
    summaries = list(summaries)
    per_class, aucs = _per_class(summaries, labels, confidence)
    absent = [label for label, s in zip(labels, support, strict=True) if s == 0]
    if absent:
        return _with_average_precision(_undefined_averages(per_class, absent), summaries, support, confidence,
                                       micro_value=micro)
    k = len(labels)
    pairs = [(pair_aucs[i, j] + pair_aucs[j, i]) / 2.0 for i, j in combinations(range(k), 2)]
    values = {"macro": float(aucs.mean()), "weighted": float(np.average(aucs, weights=support)),
              "hand_till": float(np.mean(pairs))}
    ranking = MulticlassRanking(per_class, *(Estimate(values[name], None, None, BATCHES_NOTE)
                                             for name in ("macro", "weighted", "hand_till")))
    return _with_average_precision(ranking, summaries, support, confidence, BATCHES_NOTE, micro)


def analyse_multiclass_scores(
    matrix: np.ndarray,
    codes: np.ndarray,
    labels: tuple[str, ...],
    *,
    confidence: float = 0.95,
    bootstrap: BootstrapSettings | None = BootstrapSettings(),
) -> MulticlassRanking:
    """One-vs-rest AUCs with DeLong intervals; averages and M with a stratified bootstrap.
    The bootstrap resamples instances within each class (class sizes kept) and
    recomputes the averages under the times each instance is drawn (:class:`_Resampler`: a few passes over
    the instances per class); it runs when resamples x n x k stays within ``BOOTSTRAP_BUDGET``, and
    otherwise the averages come without an interval and a note gives the limit and the resamples that
    fit it. The average precisions' bootstrap intervals are widened to hold their estimate where they
    do not. ``bootstrap=None``: no bootstrap, the averages without an interval (for the curves alone).
    """
    n, k = matrix.shape
    support = np.bincount(codes, minlength=k)
    # every column's summary, a class with no actual instance included (all negatives: the micro AP pools it)
    summaries = [ScoreCounts.from_arrays(codes == j, matrix[:, j], labels=("rest", labels[j])) for j in range(k)]
    per_class, aucs = _per_class([sc if support[j] else None for j, sc in enumerate(summaries)], labels, confidence)
    absent = [label for label, s in zip(labels, support, strict=True) if s == 0]
    if absent:
        return _with_average_precision(_undefined_averages(per_class, absent), summaries, support, confidence)
    resampler = _Resampler(matrix, codes)  # M and the micro AP in k passes, not one per pair of classes
    at_once = resampler.averages(np.ones((n, 1)))
    values = {"macro": float(aucs.mean()), "weighted": float(np.average(aucs, weights=support)),
              "hand_till": float(at_once["hand_till"][0])}
    micro = float(at_once["ap_micro"][0])
    if bootstrap is None:
        note = "no interval: not asked for"
    elif bootstrap.resamples * n * k > BOOTSTRAP_BUDGET:
        fit = BOOTSTRAP_BUDGET // (n * k)
        note = (f"no interval: its bootstrap would take resamples x instances x classes = {bootstrap.resamples:,} x "
                f"{n:,} x {k:,}, past the limit of {BOOTSTRAP_BUDGET:,} (a few seconds); "
                + (f"with {fit:,} resamples or fewer it runs" if fit >= MIN_RESAMPLES else
                   f"even {MIN_RESAMPLES} resamples are past it"))
    else:
        intervals = _bootstrap_averages(matrix, codes, confidence, bootstrap, resampler)
        estimates = {name: Estimate(v, intervals[name], "bootstrap-percentile",
                                    None if intervals[name] else "no interval: undefined in resamples")
                     for name, v in values.items()}
        ranking = MulticlassRanking(per_class, estimates["macro"], estimates["weighted"], estimates["hand_till"])
        ranking = _with_average_precision(ranking, summaries, support, confidence, micro_value=micro)

        def banded(e: Estimate | None, ci: ConfidenceInterval | None) -> Estimate | None:
            if e is None or e.value is None:
                return e
            if ci is None:
                return Estimate(e.value, None, None, "no interval: undefined in resamples")
            return Estimate(e.value, ConfidenceInterval(min(ci.low, e.value), max(ci.high, e.value)),
                            "bootstrap-percentile")

        return replace(ranking, average_precision_macro=banded(ranking.average_precision_macro, intervals["ap_macro"]),
                       average_precision_weighted=banded(ranking.average_precision_weighted,
                                                         intervals["ap_weighted"]),
                       average_precision_micro=banded(ranking.average_precision_micro, intervals["ap_micro"]))
    estimates = {name: Estimate(v, None, None, note) for name, v in values.items()}
    ranking = MulticlassRanking(per_class, estimates["macro"], estimates["weighted"], estimates["hand_till"])
    return _with_average_precision(ranking, summaries, support, confidence, note, micro)


def rank_classes(y_true: Any, y_proba: Any, *, labels: Any = None, confidence: float = 0.95) -> MulticlassRanking:
    """The one-vs-rest ranking of k > 2 classes' probabilities alone, for their curves: each class's ROC
    and precision-recall curve (``.roc(c)``, ``.pr(c)``, ``.curves()``), AUC and average precision, Hand
    & Till's M; the averages without the bootstrap of :func:`assay.evaluate`.

    ``y_proba`` as for :func:`assay.evaluate`: a data frame or mapping of class to column, or an (n, k)
    array with ``labels`` naming its columns.

    Examples
    --------
    >>> p = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.2, 0.7], [0.4, 0.2, 0.4]])
    >>> r = rank_classes(["a", "b", "c", "b"], p, labels=["a", "b", "c"])
    >>> r.roc("b")["tpr"].tolist(), r.average_precision["b"].value
    ([0.0, 0.5, 0.5, 1.0], 0.75)
    """
    confidence = check_confidence(confidence)
    matrix, columns = as_proba(y_proba, labels=labels)
    enc = encode_labels({"y_true": y_true}, labels=columns)
    if len(enc.labels) <= 2:
        raise InvalidInput(f"has {len(enc.labels)} columns: one-vs-rest curves are for more than two classes "
                           "(two classes: the curves of the positive class's scores)", field="y_proba")
    if len(enc.codes["y_true"]) != len(matrix):
        raise InvalidInput(f"has {len(matrix)} rows but y_true has {len(enc.codes['y_true'])} values",
                           field="y_proba")
    return analyse_multiclass_scores(matrix, enc.codes["y_true"], enc.labels, confidence=confidence, bootstrap=None)
