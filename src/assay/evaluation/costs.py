"""Costs of several classes: a k x k cost matrix, the expected cost of predictions, and the decisions of least
expected cost from class probabilities (the Bayes decision; Witten & Frank, Data Mining, ch. 5, cost-sensitive
classification).

Every expected cost here is a mean of per-instance costs, with Student's t interval on those costs
(:func:`expected_cost_estimate`). The sums are taken in a scale that cannot overflow: the costs divided by the
power of two at or above the largest absolute cost (exact in binary floating point), multiplied back at the end,
so any finite costs (up to the largest double) give a finite expected cost."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from assay.checks import check_number
from assay.errors import InvalidInput
from assay.inference.distributions import t_quantile
from assay.inference.estimate import ConfidenceInterval, Estimate
from assay.inputs import canonical_label
from assay.metrics.roc_space import expected_cost


@dataclass(frozen=True)
class Costs:
    """Costs of the four outcomes (by default a false positive and a false negative cost 1)."""
    fp: float = 1.0
    fn: float = 1.0
    tp: float = 0.0
    tn: float = 0.0

    def to_dict(self) -> dict[str, float]:
        return {"fp": self.fp, "fn": self.fn, "tp": self.tp, "tn": self.tn}

    @property
    def is_default(self) -> bool:
        return self == Costs()


def cost_at(costs: Costs, prevalence: float, fpr: Any, tpr: Any) -> np.ndarray:
    """The expected cost per instance at ROC points (``expected_cost`` of :mod:`assay.metrics.roc_space`) in a
    scale that cannot overflow: the costs divided by the power of two at or above the largest of them (exact),
    the result multiplied back. Bit for bit the plain formula where that does not overflow; finite for any
    finite costs (a mean of costs is no larger than the largest)."""
    e = _cost_exponent(costs)
    scaled = np.ldexp(expected_cost(fpr, tpr, prevalence=prevalence, cost_fp=math.ldexp(costs.fp, -e),
                                    cost_fn=math.ldexp(costs.fn, -e), cost_tp=math.ldexp(costs.tp, -e),
                                    cost_tn=math.ldexp(costs.tn, -e)), e)
    return np.asarray(scaled, dtype=np.float64)


def _cost_exponent(costs: Costs) -> int:
    largest = max(abs(costs.fp), abs(costs.fn), abs(costs.tp), abs(costs.tn))
    return math.frexp(largest)[1] if largest > 0 else 0


def as_costs(costs: Costs | Mapping[str, float] | None) -> Costs:
    """Costs from a mapping such as {"fp": 1, "fn": 10}; errors name the bad key."""
    if costs is None:
        return Costs()
    if isinstance(costs, Costs):
        values = costs.to_dict()
    else:
        values = dict(Costs().to_dict())
        if not isinstance(costs, Mapping):
            raise InvalidInput(f"expected a mapping such as {{'fp': 1, 'fn': 10}}, got {costs!r}", field="costs")
        for key, value in costs.items():
            if key not in values:
                raise InvalidInput(f"{key!r} is not one of fp, fn, tp, tn", field="costs")
            values[key] = value
    checked = {}
    for key, value in values.items():
        try:
            checked[key] = check_number(value, "costs")
        except InvalidInput as e:
            raise InvalidInput(f"the cost of {key} {e.problem}", field="costs") from None
    result = Costs(**checked)
    if result.fp <= result.tn or result.fn <= result.tp:
        raise InvalidInput("an error must cost more than the right answer (fp > tn and fn > tp)", field="costs")
    return result



__all__ = ["Costs", "as_costs", "cost_at", "label_costs", "matrix_costs_of", "cost_matrix_notes", "threshold_costs_of", "cost_matrix_of", "unused_classes_note", "ranking_costs", "costs_matrix", "expected_cost_estimate",
           "cost_decisions", "DecisionCosts", "T_METHOD"]

T_METHOD = "t-mean"
"""The interval method of every expected cost: Student's t on the per-instance costs."""

# Why Student's t rather than the percentile bootstrap: the expected cost per instance is a mean of n
# per-instance costs, for which Student's t is the textbook interval (Mitchell, Machine Learning, ch. 5: the
# mean of a sample, and the paired difference of two means); the percentile bootstrap of a mean is in effect the
# normal interval with the standard deviation shrunk by sqrt((n - 1) / n) and z in place of t, too narrow in
# small samples. t needs only each class's count, mean and sum of squared deviations of the costs: the
# confusion counts give them exactly, so every path (in memory, in batches, Spark) gives the same interval, with
# no resampling seed; the paired difference against the decisions of least expected cost is the same t on the
# per-instance differences. At a deployment prevalence the cost is a weighted sum of the two classes' means (a
# stratified mean), whose t uses the Welch-Satterthwaite degrees of freedom. The interval is cut to the range a
# mean of these costs can take (between the smallest and the largest cost).


def _source(given: Any) -> str:
    """How messages name a matrix read from a file (``read_cost_matrix`` keeps the file's name)."""
    source = getattr(given, "source", None)
    return f"{source} " if source else ""


def _names(given: Any) -> list[Any] | None:
    """The classes a matrix names (rows of (classes, array), rows and columns of a mapping); None for an
    array in label order."""
    if isinstance(given, tuple) and len(given) == 2 and not np.isscalar(given[0]):
        return list(given[0])
    if isinstance(given, Mapping):
        names = list(given)
        for row in given.values():
            if isinstance(row, Mapping):
                names.extend(c for c in row if c not in names)
        return names
    return None


def _label_of(name: Any, labels: Sequence[str]) -> str | None:

    try:
        return canonical_label(name, labels, field="cost_matrix")
    except InvalidInput:
        return None


def unused_classes_note(given: Any, labels: Sequence[str]) -> str | None:
    """The note for a matrix that names classes the data do not hold (their rows and columns are not used);
    None when it names none. (A class of the data missing from the matrix is refused by
    :func:`cost_matrix_of`.)"""
    names = _names(given)
    if not names:
        return None
    unused = [str(n) for n in names if _label_of(n, labels) is None]
    if not unused:
        return None
    many = len(unused) > 1
    return (f"the cost matrix {_source(given)}names the class{'es' if many else ''} "
            f"{', '.join(map(repr, unused))}, which the data do not hold: "
            f"{'their rows and columns are' if many else 'its row and column are'} not used (the data's classes: "
            f"{', '.join(map(repr, labels))})")


def cost_matrix_of(given: Any, labels: Sequence[str]) -> np.ndarray:
    """The k x k costs in label order (rows actual, columns predicted), from a k x k array in label order, a
    mapping {actual: {predicted: cost}}, or (classes, array) as :func:`assay.io.read_cost_matrix` gives.

    Every class of the data needs its row and column: a matrix without one is refused, naming the class (and
    the file). Classes of the matrix that the data do not hold are left out; :func:`unused_classes_note` gives
    the note that says so."""
    k = len(labels)
    names = _names(given)
    if names is not None and not isinstance(given, Mapping):  # a mapping's missing cells are named below
        found = {_label_of(n, labels) for n in names}
        missing = [label for label in labels if label not in found]
        if missing:
            raise InvalidInput(f"{_source(given)}has no row and column for the class{'es' if len(missing) > 1 else ''} "
                               f"{', '.join(map(repr, missing))} of the data (its classes: "
                               f"{', '.join(repr(str(n)) for n in names)})", field="cost_matrix")
    if isinstance(given, tuple) and names is not None:
        values = np.asarray(given[1], dtype=np.float64)
        position = {}
        for i, name in enumerate(names):
            label = _label_of(name, labels)
            if label is not None:
                position[label] = i
        order = [position[label] for label in labels]
        matrix = values[np.ix_(order, order)]
    elif isinstance(given, Mapping):
        matrix = np.full((k, k), np.nan)
        for actual, row in given.items():
            label = _label_of(actual, labels)
            if label is None:
                continue  # a row of a class the data do not hold
            if not isinstance(row, Mapping):
                raise InvalidInput(f"expected {{actual: {{predicted: cost}}}}, got {row!r} for {actual!r}",
                                   field="cost_matrix")
            i = labels.index(label)
            for predicted, cost in row.items():
                column = _label_of(predicted, labels)
                if column is not None:
                    matrix[i, labels.index(column)] = cost
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


def ranking_costs(matrix: np.ndarray, labels: Sequence[str], positive: str) -> Any:
    """A two-class cost matrix (label order) as the costs of the threshold analysis: ``Costs(fp, fn, tp, tn)``
    from its cells (a false positive: actual negative, predicted positive). Any finite cells: where an error
    costs no more than the right answer, one decision dominates, and the least-cost threshold and the
    iso-performance optimum say so (every instance positive, or none)."""
    p = labels.index(positive)
    n = 1 - p
    return Costs(fp=float(matrix[n, p]), fn=float(matrix[p, n]), tp=float(matrix[p, p]), tn=float(matrix[n, n]))


def costs_matrix(costs: Any, labels: Sequence[str], positive: str) -> np.ndarray:
    """Two-class costs (``Costs``: fp, fn, tp, tn) as the 2 x 2 cost matrix in label order."""
    p = labels.index(positive)
    n = 1 - p
    matrix = np.zeros((2, 2))
    matrix[p, p], matrix[p, n], matrix[n, p], matrix[n, n] = costs.tp, costs.fn, costs.fp, costs.tn
    return matrix


# the scale ---------------------------------------------------------------------------------------------------


def _exponent(matrix: np.ndarray) -> int:
    """e with every |cost| / 2^e <= 1: the costs are divided by 2^e (exact) before any sum."""
    largest = float(np.max(np.abs(matrix))) if np.size(matrix) else 0.0
    return math.frexp(largest)[1] if largest > 0 else 0


def _scaled(matrix: np.ndarray) -> tuple[np.ndarray, int]:
    e = _exponent(matrix)
    return np.ldexp(np.asarray(matrix, dtype=np.float64), -e), e


def _unscaled(x: float, e: int) -> float:
    """x 2^e, infinite past the largest double (a difference of two costs near it)."""
    try:
        return math.ldexp(x, e)
    except OverflowError:
        return math.copysign(math.inf, x)


# the estimate -------------------------------------------------------------------------------------------------

Stats = tuple[float, float, float]
"""(count, mean, sum of squared deviations) of per-instance costs, in the scaled units."""


def _merge(a: Stats, b: Stats) -> Stats:
    """Chan et al.'s merge of two parts' stats."""
    n_a, mean_a, m2_a = a
    n_b, mean_b, m2_b = b
    if n_b == 0:
        return a
    if n_a == 0:
        return b
    n = n_a + n_b
    delta = mean_b - mean_a
    return n, mean_a + delta * n_b / n, m2_a + m2_b + delta * delta * n_a * n_b / n


def _class_stats(counts: np.ndarray, scaled: np.ndarray) -> list[Stats]:
    """Each actual class's stats of the costs of its instances, from the confusion counts (rows actual)."""
    stats = []
    for row, costs in zip(np.asarray(counts, dtype=np.float64), scaled, strict=True):
        n = float(row.sum())
        if n == 0:
            stats.append((0, 0.0, 0.0))
            continue
        mean = float((row * costs).sum() / n)
        stats.append((n, mean, float((row * (costs - mean) ** 2).sum())))
    return stats


def _estimate(stats: Sequence[Stats], *, exponent: int, bounds: tuple[float, float], confidence: float,
              weights: Sequence[float] | None = None, labels: Sequence[str] = (),
              no_interval: str | None = None) -> Estimate:
    """The mean cost per instance with Student's t interval, from each actual class's stats (scaled units):
    pooled over the instances, or with ``weights`` (a deployment prevalence) the weighted sum of the classes'
    means with its stratified standard error and Welch-Satterthwaite degrees of freedom."""
    if weights is None:
        n, mean, m2 = (0, 0.0, 0.0)
        for s in stats:
            n, mean, m2 = _merge((n, mean, m2), s)
        if n == 0:
            return Estimate.undefined("no instances")
        se2, df = (m2 / (n - 1) / n, n - 1) if n >= 2 else (math.nan, 0)
        single = "no interval: a single instance" if n < 2 else None
    else:
        used = [(w, s, label) for w, s, label in zip(weights, stats, labels, strict=True) if w > 0]
        empty = [label for _, s, label in used if s[0] == 0]
        if empty:
            return Estimate.undefined(f"no instances of {empty[0]!r}: the cost at a prevalence needs both classes")
        mean = sum(w * s[1] for w, s, _ in used)
        ones = [label for _, s, label in used if s[0] < 2]
        single = f"no interval: a single instance of {ones[0]!r}" if ones else None
        parts = [(w * w * s[2] / (s[0] - 1) / s[0], s[0]) for w, s, _ in used] if not ones else []
        se2 = sum(v for v, _ in parts) if parts else math.nan
        df = se2 * se2 / sum(v * v / (m - 1) for v, m in parts) if parts and se2 > 0 else 0
    value = _unscaled(mean, exponent)
    if not math.isfinite(value):
        return Estimate.undefined("beyond double precision: the costs are too large for the expected cost to be "
                                  "represented")
    if no_interval is not None:
        return Estimate(value, None, None, no_interval)
    if single is not None:
        return Estimate(value, None, None, single)
    if not se2 > 0:
        return Estimate(value, None, T_METHOD, "no interval: every instance costs the same")
    half = float(t_quantile(0.5 + confidence / 2.0, df)) * math.sqrt(se2)
    low, high = max(mean - half, bounds[0]), min(mean + half, bounds[1])
    ci = ConfidenceInterval(_unscaled(low, exponent), _unscaled(high, exponent))
    if not (math.isfinite(ci.low) and math.isfinite(ci.high)):
        return Estimate(value, None, T_METHOD, "no interval: its ends are beyond double precision")
    return Estimate(value, ci, T_METHOD)


def _weights(prevalence: float | None, labels: Sequence[str], positive: str | None) -> list[float] | None:
    """Each actual class's weight at a deployment prevalence (two classes), or None: the data's balance."""
    if prevalence is None or positive is None or len(labels) != 2:
        return None
    p = labels.index(positive)
    return [prevalence if i == p else 1.0 - prevalence for i in range(2)]


def expected_cost_estimate(counts: np.ndarray, matrix: np.ndarray, *, confidence: float,
                           labels: Sequence[str] = (), positive: str | None = None, prevalence: float | None = None,
                           no_interval: str | None = None) -> Estimate:
    """The expected cost per instance of predictions whose confusion counts are ``counts`` (k x k, rows actual,
    columns predicted) under the cost ``matrix`` (same order), with Student's t interval.

    Notes
    -----
    At the data's class balance, the mean of the instances' costs, sum c_ij n_ij / n, with the t interval
    mean +- t_(n-1) s / sqrt(n), s the standard deviation of the per-instance costs (from the counts). At a
    deployment ``prevalence`` pi (two classes; ``positive`` names the positive class), the classes' mean costs
    weighted pi and 1 - pi: pi (c_TP TPR + c_FN FNR) + (1 - pi)(c_FP FPR + c_TN TNR), whose variance is
    pi^2 s_P^2 / n_P + (1 - pi)^2 s_N^2 / n_N, with the Welch-Satterthwaite degrees of freedom. The interval is
    cut to [min c, max c], where a mean of these costs lies. ``no_interval``: the reason there is none (counts
    that are not whole numbers).

    Examples
    --------
    Seven instances cost 0, two cost 2 and one costs 7: the mean is 1.1.

    >>> e = expected_cost_estimate([[3, 2], [1, 4]], [[0, 2], [7, 0]], confidence=0.95)
    >>> round(e.value, 12), e.method
    (1.1, 't-mean')
    """
    scaled, exponent = _scaled(matrix)
    bounds = (float(scaled.min()), float(scaled.max()))
    return _estimate(_class_stats(np.asarray(counts), scaled), exponent=exponent, bounds=bounds,
                     confidence=confidence, weights=_weights(prevalence, labels, positive), labels=labels,
                     no_interval=no_interval)


# the decisions of least expected cost ---------------------------------------------------------------------------


class DecisionCosts:
    """The running sums of :func:`cost_decisions` over batches: for the decisions of least expected cost and
    for their paired difference with those made, each actual class's count, mean and sum of squared deviations
    (scaled units, merged as Chan et al.), and the confusion counts of both decisions."""

    def __init__(self, k: int) -> None:
        self.stats: dict[str, list[Stats]] = {name: [(0, 0.0, 0.0)] * k for name in ("bayes", "difference")}
        self.confusion = np.zeros((k, k), dtype=np.int64)  # of the decisions of least expected cost
        self.made = np.zeros((k, k), dtype=np.int64)  # of the decisions made
        self.changed = 0
        self.costs: np.ndarray | None = None

    def add(self, proba: np.ndarray, true_codes: np.ndarray, pred_codes: np.ndarray, costs: np.ndarray) -> None:
        self.costs = np.asarray(costs, dtype=np.float64)
        scaled, _ = _scaled(self.costs)
        bayes = np.argmin(np.asarray(proba, dtype=np.float64) @ scaled, axis=1)
        values = {"bayes": scaled[true_codes, bayes]}
        values["difference"] = values["bayes"] - scaled[true_codes, pred_codes]
        k = self.confusion.shape[0]
        n = np.bincount(true_codes, minlength=k)
        for name, v in values.items():
            with np.errstate(invalid="ignore", divide="ignore"):
                mean = np.bincount(true_codes, weights=v, minlength=k) / n
            m2 = np.bincount(true_codes, weights=(v - mean[true_codes]) ** 2, minlength=k)
            self.stats[name] = [_merge(s, (int(n[c]), float(mean[c]), float(m2[c])) if n[c] else (0, 0.0, 0.0))
                                for c, s in enumerate(self.stats[name])]
        self.confusion += np.bincount(true_codes * k + bayes, minlength=k * k).reshape(k, k)
        self.made += np.bincount(true_codes * k + pred_codes, minlength=k * k).reshape(k, k)
        self.changed += int((bayes != pred_codes).sum())

    def merge(self, other: DecisionCosts) -> DecisionCosts:
        """Both parts' sums in this one (returned)."""
        for name, stats in other.stats.items():
            self.stats[name] = [_merge(a, b) for a, b in zip(self.stats[name], stats, strict=True)]
        self.confusion += other.confusion
        self.made += other.made
        self.changed += other.changed
        if self.costs is None:
            self.costs = other.costs
        return self

    def result(self, *, confidence: float, labels: Sequence[str] = (), positive: str | None = None,
               prevalence: float | None = None) -> dict[str, Any]:
        costs = self.costs if self.costs is not None else np.zeros(self.confusion.shape)
        scaled, exponent = _scaled(costs)
        low, high = float(scaled.min()), float(scaled.max())
        weights = _weights(prevalence, labels, positive)
        made = expected_cost_estimate(self.made, costs, confidence=confidence, labels=labels, positive=positive,
                                      prevalence=prevalence)
        bayes = _estimate(self.stats["bayes"], exponent=exponent, bounds=(low, high), confidence=confidence,
                          weights=weights, labels=labels)
        difference = _estimate(self.stats["difference"], exponent=exponent, bounds=(low - high, high - low),
                               confidence=confidence, weights=weights, labels=labels)
        return _decisions(bayes, made, difference, self.confusion, self.changed, prevalence if weights else None)


def _decisions(bayes: Estimate, made: Estimate, difference: Estimate, confusion: np.ndarray,
               changed: int, prevalence: float | None) -> dict[str, Any]:
    where = "on the actual classes" if prevalence is None else \
        f"at prevalence {prevalence:g} (each class's mean cost weighted by its share there)"
    return {
        "least_expected_cost": {"cost": bayes.to_dict(), "confusion": {"actual_by_predicted": confusion.tolist()},
                                "changed": changed},
        "as_predicted": {"cost": made.to_dict()},
        "difference": difference.to_dict(),
        "method": "each instance's decision of least expected cost, sum_i p_i c_ij, from its probabilities "
                  f"(the Bayes decision); costs per instance {where} with Student's t intervals (as_predicted is "
                  "the metrics' expected_cost); difference: least expected cost minus as predicted, paired",
    }


def cost_decisions(proba: np.ndarray, true_codes: np.ndarray, pred_codes: np.ndarray, costs: np.ndarray,
                   labels: Sequence[str], *, confidence: float, positive: str | None = None,
                   prevalence: float | None = None) -> dict[str, Any]:
    """The decisions of least expected cost (for each instance the class j minimising sum_i p_i c_ij, the Bayes
    decision) against the predictions as made (the most probable class, or the threshold's), on the actual
    classes (or, two classes, at a deployment ``prevalence``): each one's cost per instance with Student's t
    interval, and their paired difference. The predictions' cost is :func:`expected_cost_estimate` of their
    confusion counts: the metrics' ``expected_cost``, the same number and interval."""
    decisions = DecisionCosts(len(labels))
    decisions.add(proba, np.asarray(true_codes), np.asarray(pred_codes), costs)
    return decisions.result(confidence=confidence, labels=labels, positive=positive, prevalence=prevalence)


def matrix_costs_of(cost_matrix: Any, costs: Any, labels: Sequence[str]) -> np.ndarray | None:
    """A cost matrix in label order, checked; refused beside fp/fn costs (one or the other)."""
    if cost_matrix is None:
        return None
    if costs is not None:
        raise InvalidInput("give the costs as fp/fn ({option:costs}) or as a matrix, not both", field="cost_matrix")
    return cost_matrix_of(cost_matrix, labels)


def cost_matrix_notes(cost_matrix: Any, labels: Sequence[str]) -> list[str]:
    """The note for a cost matrix that names classes the data do not hold (used without their rows)."""
    if cost_matrix is None:
        return []
    note = unused_classes_note(cost_matrix, labels)
    return [note] if note else []


def threshold_costs_of(costs: Any, cost_matrix: Any, labels: Sequence[str], positive: str | None) -> Costs:
    """The costs of the threshold analysis of two-class scores: fp/fn costs as given (default: each error
    costs 1), or a two-class cost matrix's four cells: one cost everywhere."""
    if cost_matrix is None or positive is None or len(labels) != 2:
        return as_costs(costs) if costs is not None else Costs()
    return ranking_costs(matrix_costs_of(cost_matrix, costs, labels), labels, positive)


def label_costs(costs: Any, prevalence: Any, labels: Sequence[str]) -> tuple[Costs | None, float | None]:
    """The costs (the predictions' expected cost) and the deployment prevalence (the cost there, and the
    predictive values there) of two classes, checked."""
    if costs is None and prevalence is None:
        return None, None
    if len(labels) != 2:
        field, what = ("costs", "costs of false positives and negatives apply") if costs is not None else \
            ("prevalence", "a prevalence of the positive class applies")
        raise InvalidInput(f"{what} to two classes; these data have {len(labels)}", field=field)
    return (None if costs is None else as_costs(costs)), prevalence


