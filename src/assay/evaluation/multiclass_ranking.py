"""Ranking quality of a k-class probability matrix: one-vs-rest AUCs and Hand & Till's M.

One-vs-rest: class j's probability column ranks class j against all others;
the k AUCs are averaged plainly (macro) or by prevalence (weighted). Hand &
Till's M averages, over every pair of classes (i, j), A(i|j) (column i ranking i
against j, other classes left out) and A(j|i).

References
----------
D. J. Hand, R. J. Till (2001), A simple generalisation of the area under the
ROC curve for multiple class classification problems, Machine Learning
45:171-186.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from assay.inference.bootstrap import BootstrapSettings
from assay.inference.estimate import ConfidenceInterval, Estimate
from assay.inference.roc import delong
from assay.metrics.ranking import auc_from_keys
from assay.summaries.scores import ScoreCounts, sort_keys

__all__ = ["one_vs_rest_aucs", "hand_till", "MulticlassRanking", "analyse_multiclass_counts",
           "analyse_multiclass_scores", "BOOTSTRAP_BUDGET"]

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


@dataclass(frozen=True)
class MulticlassRanking:
    """One-vs-rest AUC per class (DeLong intervals), their averages and Hand & Till's M."""

    per_class: dict[str, Estimate]
    macro: Estimate
    weighted: Estimate
    hand_till: Estimate

    def to_dict(self) -> dict[str, Any]:
        return {
            "roc_auc_ovr": {label: e.to_dict() for label, e in self.per_class.items()},
            "roc_auc_ovr_macro": self.macro.to_dict(),
            "roc_auc_ovr_weighted": self.weighted.to_dict(),
            "hand_till": self.hand_till.to_dict(),
        }


def _auc_rows(pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """AUC per row from the positive and negative weight of each score group (ascending)."""
    below = np.cumsum(neg, axis=1) - neg  # negatives strictly below each group
    u = (pos * (below + 0.5 * neg)).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return u / (pos.sum(axis=1) * neg.sum(axis=1))


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
    macro, weighted, ht = [], [], []
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
        pairs = [(_auc_rows(groups[i][i], groups[i][j]) + _auc_rows(groups[j][j], groups[j][i])) / 2.0
                 for i, j in combinations(range(k), 2)]
        ht.append(np.mean(pairs, axis=0))
        done += c
    alpha = 1.0 - confidence
    out: dict[str, ConfidenceInterval | None] = {}
    for name, chunks in (("macro", macro), ("weighted", weighted), ("hand_till", ht)):
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


def analyse_multiclass_counts(summaries: list[ScoreCounts | None], pair_aucs: np.ndarray, support: np.ndarray,
                              labels: tuple[str, ...], *, confidence: float = 0.95) -> MulticlassRanking:
    """:func:`analyse_multiclass_scores` from summaries: each class's one-vs-rest score counts (None for a
    class with no actual instance), ``pair_aucs[i, j]`` = A(i|j) (column i ranking class i against class
    j), and the classes' supports, as data read in batches give them.

    The averages come without an interval: their bootstrap resamples instances, which a summary does not
    keep."""
    per_class, aucs = _per_class(summaries, labels, confidence)
    absent = [label for label, s in zip(labels, support, strict=True) if s == 0]
    if absent:
        return _undefined_averages(per_class, absent)
    k = len(labels)
    pairs = [(pair_aucs[i, j] + pair_aucs[j, i]) / 2.0 for i, j in combinations(range(k), 2)]
    values = {"macro": float(aucs.mean()), "weighted": float(np.average(aucs, weights=support)),
              "hand_till": float(np.mean(pairs))}
    note = "no interval: data read in batches keep no instances to resample"
    return MulticlassRanking(per_class, *(Estimate(values[name], None, None, note)
                                          for name in ("macro", "weighted", "hand_till")))


def analyse_multiclass_scores(
    matrix: np.ndarray,
    codes: np.ndarray,
    labels: tuple[str, ...],
    *,
    confidence: float = 0.95,
    bootstrap: BootstrapSettings = BootstrapSettings(),
) -> MulticlassRanking:
    """One-vs-rest AUCs with DeLong intervals; averages and M with a stratified bootstrap.

    The bootstrap resamples instances within each class (class sizes kept) and
    recomputes every curve from per-instance resample counts; it runs when
    resamples x n x (k + k(k-1)) stays within ``BOOTSTRAP_BUDGET``, and otherwise
    the averages come without an interval and a note says how to get one.
    """
    n, k = matrix.shape
    support = np.bincount(codes, minlength=k)
    summaries = (ScoreCounts.from_arrays(codes == j, matrix[:, j]) if support[j] else None for j in range(k))
    per_class, aucs = _per_class(summaries, labels, confidence)
    absent = [label for label, s in zip(labels, support, strict=True) if s == 0]
    if absent:
        return _undefined_averages(per_class, absent)
    values = {"macro": float(aucs.mean()), "weighted": float(np.average(aucs, weights=support)),
              "hand_till": hand_till(matrix, codes)}
    cost = bootstrap.resamples * n * (k + k * (k - 1))
    if cost <= BOOTSTRAP_BUDGET:
        intervals = _bootstrap_averages(matrix, codes, confidence, bootstrap)
        estimates = {name: Estimate(v, intervals[name], "bootstrap-percentile",
                                    None if intervals[name] else "no interval: undefined in resamples")
                     for name, v in values.items()}
    else:
        note = (f"no interval: the bootstrap of {bootstrap.resamples} resamples is too large for "
                f"{n:,} instances and {k} classes; ask for fewer resamples")
        estimates = {name: Estimate(v, None, None, note) for name, v in values.items()}
    return MulticlassRanking(per_class, estimates["macro"], estimates["weighted"], estimates["hand_till"])
