"""``assay.compare``: two classifiers' predictions, and whether one is really better.

Paired (the same instances): McNemar's test of the instances on which exactly one
of the two is right (exact when there are fewer than 25 of them), a paired
bootstrap of the accuracy difference, and DeLong's test of the two AUCs when both
give scores. Unpaired (independent test sets, seed 004): the interval of the
difference of the two error rates, its p-value, and the confidence at which it
would become significant.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Mapping
from typing import Any

import numpy as np

from assay.errors import InvalidInput
from assay.evaluation.display import Displayable
from assay.evaluation.evaluate import evaluate, positive_class, predictions
from assay.evaluation.result import Evaluation
from assay.checks import check_confidence

__all__ = ["Comparison", "compare", "compare_unpaired"]


@dataclass(frozen=True)
class Comparison(Displayable):
    """Two models' reports and the tests between them; ``to_dict()`` is the JSON of ``assay compare``."""

    names: tuple[str, str]
    reports: tuple[Evaluation, Evaluation]
    tests: dict[str, Any]
    paired: bool
    confidence: float
    notes: tuple[str, ...] = ()
    sources: tuple[dict[str, Any], dict[str, Any]] = field(default_factory=lambda: ({}, {}))

    def _model(self, i: int) -> dict[str, Any]:
        r = self.reports[i]
        ranking = r.ranking
        auc = None
        if ranking is not None:
            auc = (ranking.roc_auc if hasattr(ranking, "roc_auc") else ranking.hand_till).to_dict()
        return {"name": self.names[i], "n": r.n, "labels": list(r.labels), "positive": r.positive,
                "accuracy": r.metrics["accuracy"].to_dict(), "error_rate": r.metrics["error_rate"].to_dict(),
                "kappa": r.metrics["kappa"].to_dict(), "roc_auc": auc, "input": dict(self.sources[i])}

    def test_dict(self, name: str) -> dict[str, Any]:
        """One test as JSON, its verdict naming the two models."""
        test = self.tests[name]
        if name == "mcnemar":
            return test.to_dict(self.confidence, what=f"the error rates of {self.names[0]} and {self.names[1]}")
        return test.to_dict(self.confidence)

    def to_dict(self) -> dict[str, Any]:
        return {
            "models": [self._model(0), self._model(1)],
            "paired": self.paired,
            "confidence": self.confidence,
            "tests": {name: self.test_dict(name) for name in self.tests},
            "notes": list(self.notes),
        }


def compare(
    y_true: Any,
    a: Any,
    b: Any,
    *,
    names: tuple[str, str] = ("A", "B"),
    pos_label: Any = None,
    positive: Any = None,
    threshold: float | None = None,
    confidence: float = 0.95,
    bootstrap: int = 2000,
    seed: int = 0,
) -> Comparison:
    """Compare two classifiers' predictions on the same instances (paired tests).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        The actual classes, one per instance, shared by both.
    a, b : array-like or mapping
        Each model's predicted labels (``compare(y_true, pred_a, pred_b)``), or its
        predictions as the keyword ``evaluate`` takes: ``{"y_pred": ...}``,
        ``{"y_score": ...}`` or ``{"y_proba": ...}``.
    pos_label : label, optional
        The positive class (``positive`` is the same).
    names : (str, str)
    positive, threshold, confidence, bootstrap, seed
        As for :func:`evaluate`.

    Examples
    --------
    >>> y = [1, 1, 1, 1, 0, 0, 0, 0]
    >>> c = compare(y, {"y_pred": [1, 1, 1, 1, 0, 0, 0, 1]}, {"y_pred": [1, 0, 0, 1, 0, 1, 0, 1]})
    >>> c.tests["mcnemar"].method, c.tests["mcnemar"].b, c.tests["mcnemar"].c
    ('exact', 3, 0)
    """
    from assay.inference.mcnemar import mcnemar, paired_table
    from assay.inference.paired_bootstrap import paired_bootstrap
    from assay.metrics.confusion import accuracy

    confidence = check_confidence(confidence)
    names = _check_names(names)
    positive = positive_class(positive, pos_label)
    # predicted labels given as they are, as scikit-learn's metrics take them
    a, b = (spec if isinstance(spec, Mapping) else {"y_pred": spec} for spec in (a, b))
    for spec, field_name in ((a, "a"), (b, "b")):
        if not (isinstance(spec, Mapping) and len(spec) == 1 and set(spec) <= {"y_pred", "y_score", "y_proba"}):
            raise InvalidInput("expected one model's predictions as {'y_pred': ...}, {'y_score': ...} or "
                               f"{{'y_proba': ...}}, got {type(spec).__name__}", field=field_name)
    labels = _shared_labels(y_true, a, b)
    prepared, reports = [], []
    for spec, name in ((a, names[0]), (b, names[1])):
        try:
            prepared.append(predictions(y_true, labels=labels, positive=positive, threshold=threshold, **spec))
            reports.append(evaluate(y_true, labels=labels, positive=positive, threshold=threshold,
                                    confidence=confidence, bootstrap=bootstrap, seed=seed, **spec))
        except InvalidInput as e:
            raise InvalidInput(e.problem, field=f"{name} {e.field}" if e.field else name, row=e.row) from None
    ra, rb = reports
    (prep_a, pred_a, _), (prep_b, pred_b, _) = prepared
    if prep_a.labels != prep_b.labels:
        raise InvalidInput(f"the two models' classes differ: {list(prep_a.labels)} and {list(prep_b.labels)}",
                           field="labels")
    truth = prep_a.true_codes
    k = len(prep_a.labels)
    table = paired_table(pred_a == truth, pred_b == truth)
    discordant = int(table[0, 1] + table[1, 0])
    tests: dict[str, Any] = {}
    tests["mcnemar"] = mcnemar(table, method="exact" if discordant < 25 else "chi2-corrected")
    tests["accuracy_difference"] = paired_bootstrap(truth, pred_a, pred_b, k, accuracy, confidence=confidence,
                                                    resamples=bootstrap, seed=seed)
    notes = []
    if discordant < 25:
        notes.append(f"only {discordant} instance(s) have exactly one model right: McNemar's exact binomial "
                     "test is used")
    if prep_a.scores is not None and prep_b.scores is not None:
        from assay.inference.roc_compare import delong_test

        p = prep_a.labels.index(prep_a.positive)
        tests["delong"] = delong_test(truth == p, prep_a.scores, prep_b.scores, confidence=confidence)
    return Comparison(tuple(names), (ra, rb), tests, True, confidence, tuple(notes))


def _shared_labels(y_true: Any, a: dict[str, Any], b: dict[str, Any]) -> list[str] | None:
    """With predicted labels, the classes of the truth and of both models' predictions, together."""
    if "y_pred" in a and "y_pred" in b:
        from assay.inputs import encode_labels

        return list(encode_labels({"y_true": y_true, "y_pred A": a["y_pred"], "y_pred B": b["y_pred"]}).labels)
    return None


def compare_unpaired(
    a: Evaluation, b: Evaluation, *, names: tuple[str, str] = ("A", "B"), confidence: float = 0.95
) -> Comparison:
    """Compare two classifiers evaluated on independent test sets (seed 004).

    The interval of the difference of their error rates (e_B - e_A), its two-sided
    p-value, and the confidence below which it would be significant.
    """
    from assay.inference.difference import error_difference_from_counts

    confidence = check_confidence(confidence)
    names = _check_names(names)
    for r, field_name in ((a, "a"), (b, "b")):
        if not isinstance(r, Evaluation):
            raise InvalidInput(f"expected the result of assay.evaluate(), got {type(r).__name__}", field=field_name)
    errors = [int(r.confusion.n - np.trace(r.confusion.counts)) for r in (a, b)]
    diff = error_difference_from_counts(errors[0], a.n, errors[1], b.n, confidence=confidence)
    return Comparison(tuple(names), (a, b), {"difference": diff}, False, confidence,
                      ("independent test sets: the difference of the error rates (Mitchell 1997, ch. 5), e_B - e_A",))


def _check_names(names: Any) -> tuple[str, str]:
    """Two distinct model names."""
    if isinstance(names, str) or not isinstance(names, (tuple, list)) or len(names) != 2 \
            or not all(isinstance(n, str) and n for n in names):
        raise InvalidInput(f"expected two names, one per model, e.g. ('tree', 'bayes'), got {names!r}",
                           field="names")
    if names[0] == names[1]:
        raise InvalidInput(f"the two models need different names, got {names[0]!r} twice", field="names")
    return names[0], names[1]
