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

from dataclasses import dataclass, field, replace
from itertools import combinations
from typing import Any, Literal

import numpy as np

from assay.inference.bootstrap import BootstrapSettings
from assay.checks import check_integer
from assay.errors import InvalidInput
from assay.inference.estimate import ConfidenceInterval, Estimate
from assay.inference.proportion import proportion_bounds
from assay.inference.roc import delong, logit_interval
from assay.metrics.ranking import auc_from_keys, pr_points, roc_points, threshold_counts
from assay.metrics.ranking import average_precision as _average_precision
from assay.summaries.scores import ScoreCounts, sort_keys

__all__ = ["one_vs_rest_aucs", "hand_till", "MulticlassRanking", "analyse_multiclass_counts",
           "analyse_multiclass_scores", "BOOTSTRAP_BUDGET", "CurveKind", "CURVE_KINDS", "one_vs_rest_average_precision",
           "top_k_hits",
           "check_top_k", "top_k_accuracy", "rank_classes"]

CurveKind = Literal["roc", "pr"]
CURVE_KINDS: tuple[str, ...] = ("roc", "pr")

BOOTSTRAP_BUDGET = 250_000_000
"""Largest resamples x instances x (k + k(k-1)) curves for which the averages get a bootstrap interval."""


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
    pooled = summaries[0].relabelled(("0", "1"))
    for sc in summaries[1:]:
        pooled = pooled.merge(sc.relabelled(("0", "1")))
    return summary_average_precision(pooled)


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
        from assay.inputs import canonical_label

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


def _auc_rows(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """AUC per row from the positive and negative weight of each score group (ascending)."""
    below = np.cumsum(neg, axis=1) - neg  # negatives strictly below each group
    u = (pos * (below + 0.5 * neg)).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return u / (pos.sum(axis=1) * neg.sum(axis=1))


def _ap_rows(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """Average precision per row from the positive and negative weight of each score group (ascending), as
    scikit-learn's: the sum over thresholds, highest first, of the recall gained times the precision there."""
    pos, neg = pos[:, ::-1], neg[:, ::-1]
    tp, fp = np.cumsum(pos, axis=1), np.cumsum(neg, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(tp + fp > 0, tp / np.where(tp + fp > 0, tp + fp, 1.0), 1.0)
        return (pos * precision).sum(axis=1) / pos.sum(axis=1)


def _bootstrap_averages(matrix: np.ndarray, codes: np.ndarray, confidence: float,
                        settings: BootstrapSettings) -> dict[str, ConfidenceInterval | None]:
    n, k = matrix.shape
    support = np.bincount(codes, minlength=k)
    # for each column and class: that class's instances in score order, and their score groups
    columns = []
    for j in range(k):
        order = np.argsort(matrix[:, j], kind="stable")
        s = matrix[order, j]
        group = np.concatenate(([0], np.cumsum(s[1:] != s[:-1])))
        m = int(group[-1]) + 1
        per_class = []
        for cl in range(k):
            at = np.flatnonzero(codes[order] == cl)
            g = group[at]
            starts = np.concatenate(([0], np.flatnonzero(g[1:] != g[:-1]) + 1)) if len(at) else at
            per_class.append((order[at], starts, g[starts] if len(at) else g))
        columns.append((m, per_class))
    members = [np.flatnonzero(codes == c) for c in range(k)]
    rng = np.random.default_rng(settings.seed)
    chunk = max(1, min(settings.resamples, 2_000_000 // n))
    macro, weighted, ht, ap_macro, ap_weighted = [], [], [], [], []
    done = 0
    while done < settings.resamples:
        c = min(chunk, settings.resamples - done)
        rows = (np.arange(c, dtype=np.int64) * n)[:, None]
        flat = np.concatenate([(idx[rng.integers(0, len(idx), size=(c, len(idx)))] + rows).ravel()
                               for idx in members if len(idx)])
        weights = np.bincount(flat, minlength=c * n).reshape(c, n).astype(np.float32)
        # per column: the resampled weight of each class in each score group
        groups = []
        for m, per_class in columns:
            totals = []
            for instances, starts, group_ids in per_class:
                g = np.zeros((c, m))
                if len(instances):
                    g[:, group_ids] = np.add.reduceat(weights[:, instances], starts, axis=1, dtype=np.float64)
                totals.append(g)
            groups.append(totals)
        ovr = np.column_stack([_auc_rows(groups[j][j], sum(groups[j][cl] for cl in range(k) if cl != j))
                               for j in range(k)])
        macro.append(ovr.mean(axis=1))
        weighted.append((ovr * support).sum(axis=1) / support.sum())
        aps = np.column_stack([_ap_rows(groups[j][j], sum(groups[j][cl] for cl in range(k) if cl != j))
                               for j in range(k)])
        ap_macro.append(aps.mean(axis=1))
        ap_weighted.append((aps * support).sum(axis=1) / support.sum())
        pairs = [(_auc_rows(groups[i][i], groups[i][j]) + _auc_rows(groups[j][j], groups[j][i])) / 2.0
                 for i, j in combinations(range(k), 2)]
        ht.append(np.mean(pairs, axis=0))
        done += c
    alpha = 1.0 - confidence
    out: dict[str, ConfidenceInterval | None] = {}
    for name, chunks in (("macro", macro), ("weighted", weighted), ("hand_till", ht), ("ap_macro", ap_macro),
                         ("ap_weighted", ap_weighted)):
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


def _with_average_precision(ranking: MulticlassRanking, summaries: list[ScoreCounts | None], support: np.ndarray,
                            confidence: float) -> MulticlassRanking:
    """The ranking with each class's one-vs-rest average precision (Boyd et al.'s logit interval, as for
    two classes) and its macro, micro and weighted means, and the summaries for the curves.

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
        if absent else Estimate(float(values.mean()), None, None, AP_AVERAGE_NOTE)
    weighted = Estimate(float(np.average(values, weights=support)), None, None, AP_AVERAGE_NOTE)
    if len(present) == len(labels):
        micro = Estimate(float(one_vs_rest_average_precision(present, support, "micro")), None, None, AP_AVERAGE_NOTE)
    else:
        micro = Estimate.undefined("undefined: the scores of a class with no actual instance were not kept")
    return MulticlassRanking(ranking.per_class, ranking.macro, ranking.weighted, ranking.hand_till,
                             per_class, macro, micro, weighted, tuple(summaries))


def analyse_multiclass_counts(summaries: list[ScoreCounts | None], pair_aucs: np.ndarray, support: np.ndarray,
                              labels: tuple[str, ...], *, confidence: float = 0.95) -> MulticlassRanking:
    """:func:`analyse_multiclass_scores` from summaries: each class's one-vs-rest score counts (None for a
    class with no actual instance), ``pair_aucs[i, j]`` = A(i|j) (column i ranking class i against class
    j), and the classes' supports, as data read in batches give them.

    The averages come without an interval: their bootstrap resamples instances, which a summary does not
    keep."""
    summaries = list(summaries)
    per_class, aucs = _per_class(summaries, labels, confidence)
    absent = [label for label, s in zip(labels, support, strict=True) if s == 0]
    if absent:
        return _with_average_precision(_undefined_averages(per_class, absent), summaries, support, confidence)
    k = len(labels)
    pairs = [(pair_aucs[i, j] + pair_aucs[j, i]) / 2.0 for i, j in combinations(range(k), 2)]
    values = {"macro": float(aucs.mean()), "weighted": float(np.average(aucs, weights=support)),
              "hand_till": float(np.mean(pairs))}
    note = "no interval: data read in batches keep no instances to resample"
    ranking = MulticlassRanking(per_class, *(Estimate(values[name], None, None, note)
                                             for name in ("macro", "weighted", "hand_till")))
    return _with_average_precision(ranking, summaries, support, confidence)


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
    recomputes every curve from per-instance resample counts; it runs when
    resamples x n x (k + k(k-1)) stays within ``BOOTSTRAP_BUDGET``, and otherwise
    the averages come without an interval and a note says how to get one. ``bootstrap=None``: no
    bootstrap, the averages without an interval (for the curves alone).
    """
    n, k = matrix.shape
    support = np.bincount(codes, minlength=k)
    # every column's summary, a class with no actual instance included (all negatives: the micro AP pools it)
    summaries = [ScoreCounts.from_arrays(codes == j, matrix[:, j], labels=("rest", labels[j])) for j in range(k)]
    per_class, aucs = _per_class([sc if support[j] else None for j, sc in enumerate(summaries)], labels, confidence)
    absent = [label for label, s in zip(labels, support, strict=True) if s == 0]
    if absent:
        return _with_average_precision(_undefined_averages(per_class, absent), summaries, support, confidence)
    values = {"macro": float(aucs.mean()), "weighted": float(np.average(aucs, weights=support)),
              "hand_till": hand_till(matrix, codes)}
    if bootstrap is None:
        note = "no interval: not asked for"
        estimates = {name: Estimate(v, None, None, note) for name, v in values.items()}
    elif bootstrap.resamples * n * (k + k * (k - 1)) <= BOOTSTRAP_BUDGET:
        intervals = _bootstrap_averages(matrix, codes, confidence, bootstrap)
        estimates = {name: Estimate(v, intervals[name], "bootstrap-percentile",
                                    None if intervals[name] else "no interval: undefined in resamples")
                     for name, v in values.items()}
        ranking = MulticlassRanking(per_class, estimates["macro"], estimates["weighted"], estimates["hand_till"])
        ranking = _with_average_precision(ranking, summaries, support, confidence)

        def banded(e: Estimate, ci: ConfidenceInterval | None) -> Estimate:
            if e.value is None or ci is None:
                return e
            return Estimate(e.value, ConfidenceInterval(min(ci.low, e.value), max(ci.high, e.value)),
                            "bootstrap-percentile")

        return replace(ranking, average_precision_macro=banded(ranking.average_precision_macro, intervals["ap_macro"]),
                       average_precision_weighted=banded(ranking.average_precision_weighted,
                                                         intervals["ap_weighted"]))
    else:
        note = (f"no interval: the bootstrap of {bootstrap.resamples} resamples is too large for "
                f"{n:,} instances and {k} classes; ask for fewer resamples")
        estimates = {name: Estimate(v, None, None, note) for name, v in values.items()}
    ranking = MulticlassRanking(per_class, estimates["macro"], estimates["weighted"], estimates["hand_till"])
    return _with_average_precision(ranking, summaries, support, confidence)


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
    from assay.checks import check_confidence
    from assay.inputs import as_proba, encode_labels

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
