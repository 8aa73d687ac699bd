"""The result of ``assay.evaluate``: what ``assay report`` shows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from assay.errors import InvalidInput
from assay.evaluation import display
from assay.evaluation.classification import ConfusionAnalysis
from assay.evaluation.display import Displayable
from assay.evaluation.tidy import to_frame
from assay.inference.bootstrap import BootstrapSettings
from assay.inference.estimate import Estimate, finite_or_none
from assay.inputs import canonical_label
from assay.summaries.confusion import ConfusionCounts

__all__ = ["Evaluation"]


class ByLabel(dict):
    """Per class, keyed by the class as the data held it (``r.classes``: 0 and 1 for integer labels), in matrix
    order; a class is also found by its text (``"0"``, the JSON's key) or by an equal value (``0.0``,
    ``True``), with ``[]``, ``in`` and ``get``."""

    def __init__(self, entries: dict[str, Any], classes: tuple[Any, ...]) -> None:
        super().__init__(zip(classes, entries.values()))
        self._held = dict(zip(entries, classes))  # text -> the class as held

    def _find(self, key: Any) -> Any:
        """The held class ``key`` names, or a KeyError."""
        try:
            if isinstance(key, str) and key in self._held:
                return self._held[key]
            if not isinstance(key, str):
                return self._held[canonical_label(key, tuple(self._held))]
        except (InvalidInput, TypeError):
            pass
        raise KeyError(f"no class {key!r}; the classes are: {', '.join(map(repr, self))}")

    def __missing__(self, key: Any) -> Any:
        return dict.__getitem__(self, self._find(key))

    def __contains__(self, key: Any) -> bool:
        if dict.__contains__(self, key):
            return True
        try:
            self._find(key)
        except (KeyError, TypeError):
            return False
        return True

    def get(self, key: Any, default: Any = None) -> Any:
        return self[key] if key in self else default

    def __reduce__(self) -> Any:  # pickled and copied with its lookups
        return ByLabel, ({text: dict.__getitem__(self, held) for text, held in self._held.items()},
                         tuple(self._held.values()))


def total_of_weights(total: float) -> int | float:
    """A count, or a total of sample weights as JSON: whole as an integer, else to 12 significant digits (a sum
    of weights such as 0.1 carries rounding noise: 574.5999999999974 is 574.6).

    >>> total_of_weights(500.0), total_of_weights(574.5999999999974)
    (500, 574.6)
    """
    value = float(total)
    if value.is_integer():
        return int(value)
    return float(f"{value:.12g}")


@dataclass(frozen=True)
class Evaluation(Displayable):
    """A classifier's evaluation: the matrix, every metric with its interval, the tests.

    ``to_dict()`` gives the JSON contract of ``assay report``; ``str()`` the
    terminal summary.
    """

    task: Literal["binary", "multiclass"]
    confusion: ConfusionCounts | None  # None: scores without a threshold, so no predicted labels
    analysis: ConfusionAnalysis
    positive: str | None
    threshold: float | None
    confidence: float
    interval: str
    beta: float = 1.0
    bootstrap: BootstrapSettings = BootstrapSettings()
    notes: tuple[str, ...] = ()
    source: dict[str, Any] = field(default_factory=dict)
    ranking: Any = None
    probabilistic: Any = None
    held_labels: tuple[Any, ...] = ()  # the classes as the data held them (see ``classes``)
    class_totals: tuple[Any, ...] = ()  # without a confusion matrix: the labels and instances of each class
    direction: str = "higher"  # "lower": predicted positive iff score <= threshold
    cost_decisions: dict[str, Any] | None = None  # with a cost matrix and probabilities: the Bayes decisions
    net_benefit: Any = None  # asked for (net_benefit=True): the decision curve (assay.inference.decision)
    threshold_interval: Any = None  # a threshold chosen by a criterion: its bootstrap interval (ThresholdStability)

    # convenient views ---------------------------------------------------------

    @property
    def n(self) -> int | float:
        if self.confusion is None:
            return sum(total for _, total in self.class_totals)
        return self.confusion.n

    @property
    def labels(self) -> tuple[str, ...]:
        """The classes as text, in matrix order (the JSON's ``labels``)."""
        if self.confusion is None:
            return tuple(label for label, _ in self.class_totals)
        return self.confusion.labels

    @property
    def thresholded(self) -> bool:
        """Whether there are predicted labels (False: scores that are not probabilities, no threshold given)."""
        return self.confusion is not None

    @property
    def weighted(self) -> bool:
        """Whether the counts are totals of sample weights that are not whole numbers."""
        return self.confusion is not None and self.confusion.weighted

    @property
    def classes(self) -> tuple[Any, ...]:
        """The classes as the data held them, in matrix order: ``(0, 1)`` for integer labels, as
        scikit-learn's ``classes_`` (``labels`` has them as text)."""
        if len(self.held_labels) == len(self.labels):
            return self.held_labels
        return self.labels

    @property
    def pos_label(self) -> Any:
        """The positive class as the data held it (``positive`` is its text); None with more classes."""
        if self.positive is None:
            return None
        return self.classes[self.labels.index(self.positive)]

    @property
    def metrics(self) -> dict[str, Estimate]:
        return self.analysis.metrics

    @property
    def per_class(self) -> dict[Any, dict[str, Any]]:
        """Per class, keyed as ``classes`` (the classes as the data held them: ``1 in r.per_class`` for
        integer labels), and found by the label as text too: ``r.per_class[0]`` is ``r.per_class["0"]``.
        The JSON's ``per_class`` is keyed by the text."""
        return ByLabel(self.analysis.per_class, self.classes)

    @property
    def averages(self) -> dict[str, dict[str, Estimate]]:
        return self.analysis.averages

    @property
    def tests(self) -> dict[str, Any]:
        return self.analysis.tests

    def __getitem__(self, name: str) -> Estimate:
        """``result["recall"]`` is ``result.metrics["recall"]``; an unknown name is a KeyError that lists
        the names there are."""
        try:
            return self.analysis.metrics[name]
        except KeyError:
            raise KeyError(f"no metric {name!r}; the metrics are: {', '.join(self.analysis.metrics)}") from None

    # output -------------------------------------------------------------------

    def to_frame(self) -> Any:
        """Every estimate as a tidy pandas DataFrame: section, metric, group (the class, or the
        average), value, low, high, method, note: one row per number."""
        return to_frame(self)

    def to_dict(self) -> dict[str, Any]:
        """The JSON contract of ``assay report`` (full precision; null for undefined)."""
        return {
            "task": self.task,
            "n": total_of_weights(self.n),
            "labels": list(self.labels),
            "positive": self.positive,
            "threshold": finite_or_none(self.threshold),
            **({"threshold_interval": self.threshold_interval.to_dict()} if self.threshold_interval is not None
               else {}),
            "confidence": self.confidence,
            "confusion": self.analysis.matrices,
            "metrics": {name: e.to_dict() for name, e in self.metrics.items()},
            "per_class": {
                label: {name: (v.to_dict() if isinstance(v, Estimate) else v) for name, v in entry.items()}
                for label, entry in self.analysis.per_class.items()
            },
            "averages": {kind: {name: e.to_dict() for name, e in group.items()} for kind, group in self.averages.items()},
            "ranking": self.ranking.to_dict() if self.ranking is not None else None,
            "probabilistic": self.probabilistic.to_dict() if self.probabilistic is not None else None,
            **({"cost_decisions": self.cost_decisions} if self.cost_decisions is not None else {}),
            **({"net_benefit": self.net_benefit.to_dict()} if self.net_benefit is not None else {}),
            "tests": {name: self._test_dict(name, t) for name, t in self.tests.items()},
            "intervals": {
                "proportion": self.interval,
                "bootstrap": self.bootstrap.to_dict(),
            },
            "beta": self.beta,
            "input": dict(self.source),
            "notes": list(self.notes),
        }

    def _test_dict(self, name: str, test: Any) -> dict[str, Any]:
        if name == "mcnemar":
            return test.to_dict(self.confidence, what="false negatives and false positives")
        return test.to_dict(self.confidence)

    def __str__(self) -> str:
        """The text report of ``assay report`` (``print(r)``)."""
        return display.text(self)

    def __repr__(self) -> str:
        e = self.metrics.get("accuracy") if self.thresholded else getattr(self.ranking, "roc_auc",
                                                                            getattr(self.ranking, "hand_till", None))
        name = "accuracy" if self.thresholded else ("roc_auc" if hasattr(self.ranking, "roc_auc") else "hand_till")
        headline = ""
        if e is not None and e.value is not None:
            headline = f", {name}={e.value:.4g}" + (f", ci=({e.ci.low:.4g}, {e.ci.high:.4g})" if e.ci else "")
        positive = f", positive={self.pos_label!r}" if self.positive is not None else ""
        classes = repr(self.classes) if len(self.classes) <= 10 else str(len(self.classes))  # one line, always
        return f"Evaluation(task={self.task!r}, n={self.n:g}, classes={classes}{positive}{headline})"
