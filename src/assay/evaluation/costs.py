"""Costs of several classes: a k x k cost matrix, the expected cost of predictions, and the decisions of least
expected cost from class probabilities (the Bayes decision; Witten & Frank, Data Mining, ch. 5, cost-sensitive
classification)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from assay.errors import InvalidInput
from assay.inference.distributions import t_quantile
from assay.inference.estimate import ConfidenceInterval, Estimate

__all__ = ["cost_matrix_of", "cost_decisions", "DecisionCosts"]


def cost_matrix_of(given: Any, labels: Sequence[str]) -> np.ndarray:
    """The k x k costs in label order (rows actual, columns predicted), from a k x k array in label order, a
    mapping {actual: {predicted: cost}}, or (classes, array) as :func:`assay.io.read_cost_matrix` gives. Every
    class of the data needs its row and column; classes of the matrix that are not in the data are left out."""
    from assay.inputs import canonical_label

    k = len(labels)
    if isinstance(given, tuple) and len(given) == 2 and not np.isscalar(given[0]):
        names, values = given
        values = np.asarray(values, dtype=np.float64)
        position = {}
        for i, name in enumerate(names):
            try:
                position[canonical_label(name, labels, field="cost_matrix")] = i
            except InvalidInput:
                continue  # a class of the matrix that the data do not have
        missing = [label for label in labels if label not in position]
        if missing:
            raise InvalidInput(f"has no row and column for the class{'es' if len(missing) > 1 else ''} "
                               f"{', '.join(map(repr, missing))}", field="cost_matrix")
        order = [position[label] for label in labels]
        matrix = values[np.ix_(order, order)]
    elif isinstance(given, Mapping):
        matrix = np.full((k, k), np.nan)
        for actual, row in given.items():
            i = labels.index(canonical_label(actual, labels, field="cost_matrix"))
            if not isinstance(row, Mapping):
                raise InvalidInput(f"expected {{actual: {{predicted: cost}}}}, got {row!r} for {actual!r}",
                                   field="cost_matrix")
            for predicted, cost in row.items():
                matrix[i, labels.index(canonical_label(predicted, labels, field="cost_matrix"))] = cost
        holes = np.argwhere(np.isnan(matrix))
        if len(holes):
            i, j = holes[0]
            raise InvalidInput(f"has no cost for actual {labels[i]!r} predicted {labels[j]!r}", field="cost_matrix")
    else:
        try:
            matrix = np.asarray(given, dtype=np.float64)
        except (TypeError, ValueError):
            raise InvalidInput(f"expected a {k} x {k} matrix of costs, got {given!r}", field="cost_matrix") from None
        if matrix.shape != (k, k):
            raise InvalidInput(f"has shape {matrix.shape}, but the data have {k} classes ({', '.join(labels)}): "
                               f"give a {k} x {k} matrix in that order", field="cost_matrix")
    if not np.isfinite(matrix).all():
        i, j = np.argwhere(~np.isfinite(matrix))[0]
        raise InvalidInput(f"the cost of actual {labels[i]!r} predicted {labels[j]!r} is not a finite number",
                           field="cost_matrix")
    return matrix


def _mean(values: np.ndarray, confidence: float) -> Estimate:
    """A mean with Student's t interval (the instances' own costs: a mean of n values)."""
    n = len(values)
    mean = float(values.mean())
    if n < 2:
        return Estimate(mean, None, None, "no interval: a single instance")
    sd = float(values.std(ddof=1))
    if sd == 0:
        return Estimate(mean, None, "t-mean", "no interval: every instance costs the same")
    half = float(t_quantile(0.5 + confidence / 2.0, n - 1)) * sd / math.sqrt(n)
    return Estimate(mean, ConfidenceInterval(mean - half, mean + half), "t-mean")


class DecisionCosts:
    """The running sums of :func:`cost_decisions` over batches: for the Bayes decisions, the decisions made and
    their paired difference, the count, mean and sum of squared deviations (merged as Chan et al.), and the
    Bayes decisions' confusion counts."""

    def __init__(self, k: int) -> None:
        self.stats = {name: (0, 0.0, 0.0) for name in ("bayes", "made", "difference")}
        self.confusion = np.zeros((k, k), dtype=np.int64)
        self.changed = 0

    def add(self, proba: np.ndarray, true_codes: np.ndarray, pred_codes: np.ndarray, costs: np.ndarray) -> None:
        bayes = np.argmin(np.asarray(proba, dtype=np.float64) @ costs, axis=1)
        values = {"bayes": costs[true_codes, bayes], "made": costs[true_codes, pred_codes]}
        values["difference"] = values["bayes"] - values["made"]
        for name, v in values.items():
            if len(v):
                mean = float(v.mean())
                self._merge_stats(name, (len(v), mean, float(((v - mean) ** 2).sum())))
        k = self.confusion.shape[0]
        self.confusion += np.bincount(true_codes * k + bayes, minlength=k * k).reshape(k, k)
        self.changed += int((bayes != pred_codes).sum())

    def merge(self, other: DecisionCosts) -> DecisionCosts:
        """Both parts' sums in this one (returned)."""
        for name, stats in other.stats.items():
            if stats[0]:
                self._merge_stats(name, stats)
        self.confusion += other.confusion
        self.changed += other.changed
        return self

    def _merge_stats(self, name: str, part: tuple[int, float, float]) -> None:
        n_a, mean_a, m2_a = self.stats[name]
        n_b, mean_b, m2_b = part
        n = n_a + n_b
        delta = mean_b - mean_a
        self.stats[name] = (n, mean_a + delta * n_b / n, m2_a + m2_b + delta * delta * n_a * n_b / n)

    def result(self, *, confidence: float) -> dict[str, Any]:
        return _decisions(*(self._estimate(name, confidence) for name in ("bayes", "made", "difference")),
                          self.confusion, self.changed)

    def _estimate(self, name: str, confidence: float) -> Estimate:
        n, mean, m2 = self.stats[name]
        if n < 2:
            return Estimate(mean, None, None, "no interval: a single instance")
        sd = math.sqrt(m2 / (n - 1))
        if sd == 0:
            return Estimate(mean, None, "t-mean", "no interval: every instance costs the same")
        half = float(t_quantile(0.5 + confidence / 2.0, n - 1)) * sd / math.sqrt(n)
        return Estimate(mean, ConfidenceInterval(mean - half, mean + half), "t-mean")


def _decisions(bayes: Estimate, made: Estimate, difference: Estimate, confusion: np.ndarray,
               changed: int) -> dict[str, Any]:
    return {
        "least_expected_cost": {"cost": bayes.to_dict(), "confusion": {"actual_by_predicted": confusion.tolist()},
                                "changed": changed},
        "as_predicted": {"cost": made.to_dict()},
        "difference": difference.to_dict(),
        "method": "each instance's decision of least expected cost, sum_i p_i c_ij, from its probabilities "
                  "(the Bayes decision); costs per instance on the actual classes with Student's t intervals; "
                  "difference: least expected cost minus as predicted, paired",
    }


def cost_decisions(proba: np.ndarray, true_codes: np.ndarray, pred_codes: np.ndarray, costs: np.ndarray,
                   labels: Sequence[str], *, confidence: float) -> dict[str, Any]:
    """The decisions of least expected cost (for each instance the class j minimising sum_i p_i c_ij, the Bayes
    decision) against the predictions as made (the most probable class, or the threshold's), on the actual
    classes: each one's cost per instance with Student's t interval, and their paired difference."""
    expected = np.asarray(proba, dtype=np.float64) @ costs  # (n, k): the expected cost of each decision
    bayes = np.argmin(expected, axis=1)
    cost_bayes = costs[true_codes, bayes]
    cost_made = costs[true_codes, pred_codes]
    k = len(labels)
    confusion = np.bincount(true_codes * k + bayes, minlength=k * k).reshape(k, k)
    changed = int((bayes != pred_codes).sum())
    return _decisions(_mean(cost_bayes, confidence), _mean(cost_made, confidence),
                      _mean(cost_bayes - cost_made, confidence), confusion, changed)
