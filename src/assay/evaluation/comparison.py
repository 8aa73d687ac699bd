"""``assay.compare``: two or more classifiers' predictions, and whether one is really better.

Paired (the same instances): McNemar's test of the instances on which exactly one
of the two is right (exact when there are fewer than 25 of them), a paired
bootstrap of the accuracy difference, and DeLong's test of the two AUCs when both
give scores. With more than two models: Cochran's Q test that all are equally
accurate, and the same tests for every pair, the p-values of the pairwise McNemar
tests (and, as a family of their own, of the DeLong tests) adjusted by Holm's
method for the number of pairs. Unpaired (independent test sets, Mitchell ch. 5, two
models): the interval of the difference of the two error rates, its p-value, and
the confidence at which it would become significant.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from itertools import combinations
from typing import Any

import numpy as np

from assay.checks import check_confidence, check_resamples, check_seed
from assay.errors import InvalidInput
from assay.evaluation import display
from assay.evaluation.costs import Costs
from assay.evaluation.decision import decision_field
from assay.evaluation.display import Displayable
from assay.evaluation.evaluate import evaluate, pos_label_errors
from assay.evaluation.hull import combined_hull
from assay.evaluation.options import Options, keywords_of, options_from
from assay.evaluation.positive import positive_class
from assay.evaluation.prepared import predictions
from assay.evaluation.result import Evaluation
from assay.evaluation.tidy import to_frame
from assay.inference.cochran import cochran_q
from assay.inference.decision import decision_difference_of_counts
from assay.inference.difference import error_difference_from_counts
from assay.inference.estimate import finite_or_none
from assay.inference.mcnemar import mcnemar, paired_table
from assay.inference.multiple import ADJUSTMENT_TITLES, ADJUSTMENTS
from assay.inference.multiple import adjust as adjusted_p
from assay.inference.paired_bootstrap import paired_bootstrap
from assay.inference.roc_compare import delong_test, unpaired_auc_test
from assay.inputs import encode_labels
from assay.metrics.confusion import accuracy
from assay.metrics.decision import joint_bins
from assay.metrics.roc_space import roc_region

__all__ = ["Comparison", "PairComparison", "assemble", "check_names", "check_ranked_only", "compare", "compare_unpaired",
           "default_names", "decision_options", "decision_differences", "refuse_labels_decision"]

SPEC_KEYS = frozenset({"y_pred", "y_score", "y_proba"})
"""The keys of one model's predictions given as a mapping."""

_MISSING: Any = object()


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


@dataclass(frozen=True)
class PairComparison:
    """Two of several models compared on the same instances: the tests of a comparison of two, with
    Holm's adjusted p-values.

    ``tests`` holds ``mcnemar``, ``accuracy_difference`` and, when both models give scores, ``delong``;
    ``adjusted`` the Holm-adjusted p-values of ``mcnemar`` and ``delong``, and ``family`` the number of
    comparisons each was adjusted for.
    """
    names: tuple[str, str]
    tests: dict[str, Any]
    adjusted: dict[str, float]
    family: dict[str, int]
    method: str = "holm"  # the adjustment: "holm" or "bonferroni"

    def adjustment(self, name: str) -> str:
        """How a test's p-value is adjusted, in words: "after Holm's adjustment for 3 comparisons"."""
        return f"after {ADJUSTMENT_TITLES[self.method]} adjustment for {_plural(self.family[name], 'comparison')}"

    def test_dict(self, name: str, confidence: float) -> dict[str, Any]:
        """One test as JSON, its verdict naming the two models; an adjusted test's verdict, ``significant``
        (and ``threshold_confidence``) are those of its adjusted p-value, ``pvalue_holm``."""
        test = self.tests[name]
        a, b = self.names
        adjusted = self.adjusted.get(name)
        how = self.adjustment(name) if adjusted is not None else None
        if name == "mcnemar":
            d = test.to_dict(confidence, what=f"the error rates of {a} and {b}", adjusted=adjusted, adjustment=how)
        elif name == "accuracy_difference":
            d = test.to_dict(confidence, what=f"the difference between the accuracies of {a} and {b}")
        elif name == "delong":  # its to_dict names no models: the shared keys again, about this pair
            d = {**test.to_dict(confidence), **test.common_dict(
                confidence, what=f"the difference between the AUCs of {a} and {b}", adjusted=adjusted,
                adjustment=how)}
        else:
            d = test.to_dict(confidence)
        if adjusted is None:
            return d
        out = {}
        for key, value in d.items():  # the adjusted p-value next to the test's own
            out[key] = value
            if key == "pvalue":
                out[f"pvalue_{self.method}"] = finite_or_none(adjusted)
        return out

    def to_dict(self, confidence: float) -> dict[str, Any]:
        return {"models": list(self.names), **{name: self.test_dict(name, confidence) for name in self.tests}}


@dataclass(frozen=True)
class Comparison(Displayable):
    """The models' reports and the tests between them; ``to_dict()`` is the JSON of ``assay compare``.
    With two models, ``tests`` holds the tests between them. With more (paired), ``tests`` holds
    Cochran's Q (``cochran_q``) and ``pairwise`` the tests of every pair, (0, 1), (0, 2), ..., (1, 2), ...
    """
    names: tuple[str, ...]
    reports: tuple[Evaluation, ...]
    tests: dict[str, Any]
    paired: bool
    confidence: float
    notes: tuple[str, ...] = ()
    sources: tuple[dict[str, Any], ...] = field(default_factory=lambda: ({}, {}))
    pairwise: tuple[PairComparison, ...] = ()
    roc_space: dict[str, Any] | None = None  # two classes: each model in ROC space, and their combined hull
    net_benefit_differences: tuple[Any, ...] = ()  # net_benefit=True: each pair's decision curves and difference

    def _model(self, i: int) -> dict[str, Any]:
        r = self.reports[i]
        ranking = r.ranking
        auc = None
        if ranking is not None:
            auc = (ranking.roc_auc if hasattr(ranking, "roc_auc") else ranking.hand_till).to_dict()
        source = self.sources[i] if i < len(self.sources) else {}
        return {"name": self.names[i], "n": r.n, "labels": list(r.labels), "positive": r.positive,
                "accuracy": r.metrics["accuracy"].to_dict(), "error_rate": r.metrics["error_rate"].to_dict(),
                "kappa": r.metrics["kappa"].to_dict(), "roc_auc": auc, "input": dict(source)}

    def test_dict(self, name: str) -> dict[str, Any]:
        """One test as JSON, its verdict naming the two models."""
        test = self.tests[name]
        if name == "mcnemar":
            return test.to_dict(self.confidence, what=f"the error rates of {self.names[0]} and {self.names[1]}")
        return test.to_dict(self.confidence)

    def pair(self, a: str, b: str) -> PairComparison:
        """The tests between two of several models, by name (in either order: the pair as computed)."""
        for p in self.pairwise:
            if set(p.names) == {a, b} and a != b:
                return p
        raise InvalidInput(f"no pair {a!r} and {b!r}: the models are {', '.join(map(repr, self.names))}"
                           + ("" if self.pairwise else " (with two, the tests between them are in .tests)"),
                           field="pair")

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "models": [self._model(i) for i in range(len(self.names))],
            "paired": self.paired,
            "confidence": self.confidence,
            "tests": {name: self.test_dict(name) for name in self.tests},
        }
        if self.pairwise:
            d["pairwise"] = [p.to_dict(self.confidence) for p in self.pairwise]
        if self.roc_space is not None:
            d["roc_space"] = self.roc_space
        if self.net_benefit_differences:
            d["net_benefit_difference"] = [n.to_dict() for n in self.net_benefit_differences]
        d["notes"] = list(self.notes)
        return d

    def to_frame(self) -> Any:
        """Every estimate as a tidy pandas DataFrame: model, section, metric, group, value, low, high, method,
        note; each model's report (as ``Evaluation.to_frame()``), then the tests (``model`` "a vs b", or the
        models Cochran's Q compares; ``group`` the statistic, the p-value and an adjusted one, the difference
        with its interval)."""

        return to_frame(self)

    def __str__(self) -> str:
        """The text report of ``assay compare`` (``print(c)``)."""
        return display.text(self)

    def __repr__(self) -> str:
        sizes = sorted({r.n for r in self.reports})
        n = f"{sizes[0]:g}" if len(sizes) == 1 else "[" + ", ".join(f"{r.n:g}" for r in self.reports) + "]"
        if all(r.thresholded for r in self.reports):
            what, values = "accuracy", [r.metrics["accuracy"].value for r in self.reports]
        else:
            what = "roc_auc"
            values = [getattr(r.ranking, "roc_auc", getattr(r.ranking, "hand_till", None)) for r in self.reports]
            values = [None if e is None else e.value for e in values]
        shown = ", ".join(f"{name!r}: " + ("None" if v is None else f"{v:.4g}") for name, v in zip(self.names, values))
        tests = list(self.tests) + ([f"{len(self.pairwise)} pairs"] if self.pairwise else [])
        return (f"Comparison(models={list(self.names)!r}, paired={self.paired}, n={n}, {what}={{{shown}}}, "
                f"tests={tests!r})")


@pos_label_errors
def compare(
    y_true: Any,
    a: Any,
    b: Any = _MISSING,
    *more: Any,
    names: Any = None,
    pos_label: Any = None,
    positive: Any = None,
    threshold: float | None = None,
    confidence: float = 0.95,
    bootstrap: int = 2000,
    seed: int = 0,
    costs: Any = None,
    prevalence: float | None = None,
    adjust: str = "holm",
    direction: str = "higher",
    net_benefit: bool = False,
    thresholds_range: tuple[float, ...] | None = None,
    options: Options | None = None,
) -> Comparison:
    """Compare two or more classifiers' predictions on the same instances (paired tests).
    Parameters
    ----------
    y_true : array-like of shape (n,)
        The actual classes, one per instance, shared by all the models.
    a, b, *more : array-like or mapping
        Each model's predicted labels (``compare(y_true, pred_a, pred_b)``), or its
        predictions as the keyword ``evaluate`` takes: ``{"y_pred": ...}``,
        ``{"y_score": ...}`` or ``{"y_proba": ...}``. Any number of models from two.
        Or, alone, one mapping of model names to predictions:
        ``compare(y_true, {"tree": pred_1, "forest": {"y_score": s}, "knn": pred_3})``.
    names : sequence of str, optional
        One distinct name per model; by default "A", "B", "C", ... (the keys of a
        mapping of models).
    pos_label : label, optional
        The positive class (``positive`` is the same).
    positive, threshold, confidence, bootstrap, seed
        As for :func:`evaluate`.
    direction : {"higher", "lower", "auto"}, default "higher"
        Which scores mean the positive class, for every model given as scores (``y_score``), as
        :func:`evaluate` takes it (pROC's ``direction``): "lower" reads each score model as predicting
        positive iff score <= threshold, and its AUC (and DeLong's test) ranks lower scores first; "auto"
        chooses for each model on the data. Refused when no model gives scores. A score model whose AUC is
        significantly below 0.5 (or 0: every pair wrong) gets a note naming it: it looks inverted.
    net_benefit, thresholds_range
        Models given as probabilities: each model's decision curve (as :func:`evaluate` gives it) and, for each
        pair, the difference of their net benefits along the curve with a paired bootstrap interval
        (``net_benefit_differences``); with ``prevalence``, a case-control sample.
    options : Options, optional
        These options as one object (:class:`assay.Options`; keywords beside it change it). ``costs`` and
        ``prevalence`` choose the optimal model in ROC space; the threshold and the direction apply to the
        models given as scores.

    Returns
    -------
    Comparison
        With two models, ``tests`` holds McNemar's test (``mcnemar``: exact when
        fewer than 25 instances have exactly one model right, else chi-squared with
        continuity correction), the paired bootstrap of the accuracy difference
        (``accuracy_difference``) and, when both give scores, DeLong's test of the
        AUCs (``delong``). With more, ``tests`` holds Cochran's Q test that all are
        equally accurate (``cochran_q``), and ``pairwise`` those three tests for
        every pair, in the order (0, 1), (0, 2), ..., (1, 2), ...; the p-values of
        the pairwise McNemar tests, and separately those of the DeLong tests, are
        adjusted by Holm's method (``PairComparison.adjusted``), and the verdicts
        use the adjusted p-values.

    Examples
    --------
    >>> y = [1, 1, 1, 1, 0, 0, 0, 0]
    >>> c = compare(y, {"y_pred": [1, 1, 1, 1, 0, 0, 0, 1]}, {"y_pred": [1, 0, 0, 1, 0, 1, 0, 1]})
    >>> c.tests["mcnemar"].method, c.tests["mcnemar"].b, c.tests["mcnemar"].c
    ('exact', 3, 0)
    >>> c = compare(y, [1, 1, 1, 1, 0, 0, 0, 1], [1, 0, 0, 1, 0, 1, 0, 1], [0, 0, 0, 0, 1, 1, 1, 1],
    ...             names=["tree", "forest", "knn"])
    >>> c.tests["cochran_q"].correct_counts, [p.names for p in c.pairwise]
    ((7, 4, 0), [('tree', 'forest'), ('tree', 'knn'), ('forest', 'knn')])
    """
    options = options_from(options, keywords_of(locals()))
    confidence, direction = options.confidence, options.direction
    specs, names = _models(a, b, more, names)
    positive = positive_class(positive, pos_label)
    _check_direction(direction, specs)
    labels = _shared_labels(y_true, specs, names)
    prepared, preds, reports = [], [], []
    for spec, name in zip(specs, names, strict=True):
        if "y_pred" in spec:
            refuse_labels_decision(options, name)
        try:
            # a threshold is for the models that give scores, a direction for score columns
            own = Options(threshold=None if "y_pred" in spec else options.threshold,
                          direction=direction if "y_score" in spec else "higher", confidence=confidence,
                          bootstrap=options.bootstrap, seed=options.seed,
                          **decision_options(options, "y_pred" not in spec))
            prep, pred, _ = predictions(y_true, own, labels=labels, positive=positive, allow_no_threshold=True,
                                        **spec)
            reports.append(evaluate(y_true, labels=labels, positive=positive, options=own, **spec))
        except InvalidInput as e:
            raise InvalidInput(e.problem, field=f"{name} {e.field}" if e.field else name, row=e.row) from None
        prepared.append(prep)
        preds.append(pred)
    first = prepared[0]
    for name, prep in zip(names[1:], prepared[1:], strict=True):
        if prep.labels != first.labels:
            if len(names) == 2:
                raise InvalidInput(f"the two models' classes differ: {list(first.labels)} and {list(prep.labels)}",
                                   field="labels")
            raise InvalidInput(f"the models' classes differ: {names[0]} has {list(first.labels)}, {name} has "
                               f"{list(prep.labels)}", field="labels")
    truth = first.true_codes
    k = len(first.labels)
    check_ranked_only(preds, [p.scores is not None for p in prepared])
    scored = [p for p in prepared if p.scores is not None]
    positive_code = scored[0].labels.index(scored[0].positive) if scored else None
    # each score model's scores as its analysis ranks them: negated where lower scores mean the positive class
    scores = [None if p.scores is None else -p.scores if p.direction == "lower" else p.scores for p in prepared]
    directions = [p.direction if p.scores is not None else None for p in prepared]
    resampling = {"confidence": confidence, "bootstrap": options.bootstrap, "seed": options.seed}
    pairs = [_pair_tests(truth, k, [preds[i], preds[j]], [scores[i], scores[j]], positive_code, **resampling)
             for i, j in combinations(range(len(names)), 2)]
    ranked_only = any(pred is None for pred in preds)
    cochran = None if ranked_only or len(names) == 2 else \
        cochran_q(np.column_stack([pred == truth for pred in preds]))
    result = assemble(names, reports, pairs, cochran, directions, options, adjust)
    if not options.net_benefit:
        return result
    joint = [joint_bins(truth == positive_code, prepared[i].scores, prepared[j].scores, options.decision_thresholds,
                        prepared[i].weights) for i, j in combinations(range(len(names)), 2)]
    return replace(result, net_benefit_differences=decision_differences(tuple(names), joint, options))


def decision_options(options: Options, scores: bool) -> dict[str, Any]:
    """The decision curve's options of one model as a comparison evaluates it (a model given as scores: the
    curve asked for, its threshold probabilities, and the prevalence of a case-control sample)."""
    if not scores or not options.net_benefit:
        return {}
    return {"net_benefit": True, "thresholds_range": options.thresholds_range, "prevalence": options.prevalence}


def refuse_labels_decision(options: Options, name: str) -> None:
    """A decision curve asked of a model that gives predicted labels: refused in one line."""
    if options.net_benefit:
        who = f"{name} gives" if name else "these models give"
        raise InvalidInput(f"a decision curve needs probabilities of the positive class; {who} predicted labels",
                           field=decision_field(options))


def decision_differences(names: tuple[str, ...], joint: list[Any], options: Options) -> tuple[Any, ...]:
    """Each pair's decision curves and their paired difference, from the pairs' joint counts (in the order
    (0, 1), (0, 2), ..., (1, 2), ...: :func:`assay.metrics.decision.joint_bins`, added over the batches)."""
    return tuple(decision_difference_of_counts(counts, options.decision_thresholds, names=(names[i], names[j]),
                                               prevalence=options.prevalence, confidence=options.confidence,
                                               resamples=options.bootstrap, seed=options.seed)
                 for (i, j), counts in zip(combinations(range(len(names)), 2), joint, strict=True))


def check_ranked_only(preds: list[Any], scored: list[bool]) -> None:
    """Refuse models of which some give scores without a threshold (no predicted labels) and others not."""
    if any(pred is None for pred in preds) and not all(scored):
        raise InvalidInput("some models give scores without a threshold and others do not: compare them at a "
                           "threshold ({option:threshold}), or give every model as scores for DeLong's test alone",
                           field="threshold")


def assemble(names: tuple[str, ...], reports: list[Evaluation], pairs: list[tuple[dict[str, Any], int | None]],
             cochran: Any, directions: list[str | None], options: Options, adjust: str) -> Comparison:
    """The comparison of models on the same instances from their reports and the tests of every pair, in the
    order (0, 1), (0, 2), ..., (1, 2), ... (each with how many instances only one of the two gets right), and
    Cochran's Q of three models or more: what :func:`compare` gives from the instances, and data read in
    batches (:mod:`assay.evaluation.paired`) from their summaries."""
    confidence = options.confidence
    ranked_only = not all(r.thresholded for r in reports)  # scores without a threshold: DeLong's test alone
    said = _direction_notes(names, directions, reports, options.direction)
    sources = tuple({} for _ in names)
    if len(names) == 2:
        tests, discordant = pairs[0]
        notes = ([RANKED_ONLY] if ranked_only else []) + said
        if discordant is not None and discordant < 25:
            notes.append(f"only {discordant} instance(s) have exactly one model right: McNemar's exact binomial "
                         "test is used")
        return Comparison(tuple(names), tuple(reports), tests, True, confidence, tuple(notes), sources,
                          roc_space=roc_space(dict(zip(names, reports, strict=True)), options.costs, options.prevalence))

    if adjust not in ADJUSTMENTS:
        raise InvalidInput(f"{adjust!r} is not one of {list(ADJUSTMENTS)}", field="adjust")

    tests = {} if cochran is None else {"cochran_q": cochran}
    named, exact = [], []
    for (i, j), (pair_tests, discordant) in zip(combinations(range(len(names)), 2), pairs, strict=True):
        named.append(((names[i], names[j]), pair_tests))
        if discordant is not None and discordant < 25:
            exact.append(f"{names[i]} vs {names[j]} ({discordant})")
    adjusted: list[dict[str, float]] = [{} for _ in named]
    family: dict[str, int] = {}
    for name in ("mcnemar", "delong"):
        members = [i for i, (_, t) in enumerate(named) if name in t]
        pvalues = np.array([named[i][1][name].pvalue for i in members], dtype=np.float64)
        family[name] = int(np.count_nonzero(~np.isnan(pvalues)))
        if adjust == "none":
            continue
        for i, p in zip(members, adjusted_p(pvalues, adjust), strict=True):
            adjusted[i][name] = float(p)
    pairwise = tuple(PairComparison(pair, t, adj, {n: family[n] for n in adj}, adjust if adjust != "none" else "holm")
                     for (pair, t), adj in zip(named, adjusted, strict=True))
    if adjust == "none":
        notes = [f"the p-values of the {_plural(len(named), 'pairwise comparison')} are not adjusted for multiple "
                 "comparisons (adjust='none'): with many pairs, some will look significant by chance"]
    else:
        notes = [_holm_note(len(named), family.get("delong", 0), any("delong" in t for _, t in named))
                 .replace("Holm's", ADJUSTMENT_TITLES[adjust]).replace("pvalue_holm", f"pvalue_{adjust}")]
    if ranked_only:
        notes = [RANKED_ONLY, notes[0] if adjust == "none" else
                 f"p-values of the pairwise DeLong tests adjusted by {ADJUSTMENT_TITLES[adjust]} method for "
                 f"{_plural(len(named), 'comparison')}; the verdicts use the adjusted p-values"]
    if exact:
        notes.append("McNemar's exact binomial test is used for the pairs that fewer than 25 instances tell apart "
                     "(exactly one of the two right): " + ", ".join(exact))
    return Comparison(tuple(names), tuple(reports), tests, True, confidence, tuple(notes + said), sources, pairwise,
                      roc_space=roc_space(dict(zip(names, reports, strict=True)), options.costs, options.prevalence))


def _check_direction(direction: Any, specs: list[dict[str, Any]]) -> None:
    """``direction`` validated: one of DIRECTIONS, and other than "higher" only when a model gives scores."""
    if direction != "higher" and not any("y_score" in spec for spec in specs):
        raise InvalidInput("a direction applies to models given as scores ({option:y_score}): none of these is",
                           field="direction")


def _direction_notes(names: tuple[str, ...], directions: list[str | None], reports: list[Evaluation],
                     direction: str) -> list[str]:
    """What the comparison says of each score model's direction (``directions``: each model's, None for one
    that gives no scores): the direction used where it is not the default, and a model whose AUC is
    significantly below 0.5 (or 0) as looking inverted (pROC's caveat: a classifier worse than chance is one
    whose scores point the other way)."""
    notes = []
    lower = [name for name, d in zip(names, directions, strict=True) if d == "lower"]
    if direction == "auto":
        chosen = [f"{name} {d}" for name, d in zip(names, directions, strict=True) if d is not None]
        notes.append(f"direction chosen for each score model on these data (as pROC's direction=\"auto\": the class "
                     f"with the higher median score is taken as the one the scores point to): {', '.join(chosen)}; "
                     "choosing it on the same data biases the AUC upward")
    elif lower:
        notes.append(f"direction lower for {', '.join(lower)}: lower scores mean the positive class (predicted "
                     "positive iff score <= the threshold; the AUC and DeLong's test rank lower scores first)")
    for name, d, r in zip(names, directions, reports, strict=True):
        auc = getattr(r.ranking, "roc_auc", None) if d is not None else None
        if auc is None or auc.value is None:
            continue
        if auc.value == 0.0 or (auc.ci is not None and auc.ci.high < 0.5):
            why = "every positive scores below every negative (AUC 0)" if auc.value == 0.0 else \
                f"its AUC, {auc.value:.3g} ({auc.ci.low:.3g} to {auc.ci.high:.3g}), is significantly below 0.5"
            other = "higher" if d == "lower" else "lower"
            notes.append(f"{name} looks inverted: {why}, so its scores point the other way: try direction "
                         f"{other} (--direction {other}; direction=\"{other}\" in Python)")
    return notes


RANKED_ONLY = ("scores without a threshold: the models are compared by DeLong's test of their AUCs alone "
               "(McNemar's test and the accuracy difference need predicted labels: give a threshold)")


def roc_space(reports: dict[str, Evaluation], costs: Any, prevalence: float | None) -> dict[str, Any] | None:
    """Two-class models in ROC space (Fawcett 2006): where each one's predictions lie (its region:
    conservative, liberal, balanced, random, worse than random), the convex hull of them all (curves of scores, points of
    labels), which models are potentially optimal, and the optimal one for the costs at the class ratio
    (the first test set's, or ``prevalence``); any point on a hull edge is a random mix of its two ends
    (``assay.mix``)."""
    if any(r.positive is None or r.weighted for r in reports.values()):
        return None
    c = costs if costs is not None else Costs()
    points = []
    for name, r in reports.items():
        if not r.thresholded:
            points.append({"name": name, "fpr": None, "tpr": None, "region": None, "threshold": None,
                           "note": "scores without a threshold: a curve, no point"})
            continue
        p = r.labels.index(r.positive)
        m = r.confusion.counts
        fpr = float(m[1 - p, p] / m[1 - p].sum()) if m[1 - p].sum() else float("nan")
        tpr = float(m[p, p] / m[p].sum()) if m[p].sum() else float("nan")
        points.append({"name": name, "fpr": fpr, "tpr": tpr, "region": roc_region(fpr, tpr),
                       "threshold": r.threshold, "note": None})
    hull = combined_hull(reports)
    first = next(iter(reports.values()))
    n_pos = float(first.confusion.counts[first.labels.index(first.positive)].sum()) if first.thresholded else \
        float(dict(first.class_totals)[first.positive])
    n = float(first.n)
    pi = prevalence
    share = pi if pi is not None else n_pos / n
    slope = (c.fp - c.tn) * (1.0 - share) / ((c.fn - c.tp) * share)
    best, tied = hull.optimal(slope)
    return {"models": points, "combined_hull": hull.to_dict(),
            "optimal": {"slope": slope, "costs": c.to_dict(), "prevalence": share,
                        "prevalence_source": "given" if pi is not None else "the first test set",
                        "vertex": best.to_dict(), "tied_with": tied.to_dict() if tied else None},
            "method": "ROC convex hull of the models' curves (scores) and points (labels), Fawcett 2006; "
                      "regions by the diagonal and the anti-diagonal"}


def _holm_note(n_pairs: int, n_delong: int, any_delong: bool) -> str:
    note = f"p-values of the pairwise tests adjusted by Holm's method for {_plural(n_pairs, 'comparison')}: McNemar's"
    if any_delong:
        note += f", and DeLong's as a family of their own ({_plural(n_delong, 'comparison')})"
    return note + "; the verdicts use the adjusted p-values (pvalue_holm); the accuracy differences and their " \
        "intervals are not adjusted"


def _pair_tests(truth: np.ndarray, k: int, preds: list[np.ndarray], scores: list[np.ndarray | None],
                positive_code: int | None, *, confidence: float, bootstrap: int, seed: int
                ) -> tuple[dict[str, Any], int | None]:
    """The tests between two models on the same instances, and how many instances only one gets right."""
    pred_a, pred_b = preds
    tests: dict[str, Any] = {}
    discordant = None
    if pred_a is not None and pred_b is not None:
        table = paired_table(pred_a == truth, pred_b == truth)
        discordant = int(table[0, 1] + table[1, 0])
        tests["mcnemar"] = mcnemar(table, method="exact" if discordant < 25 else "chi2-corrected")
        tests["accuracy_difference"] = paired_bootstrap(truth, pred_a, pred_b, k, accuracy, confidence=confidence,
                                                        resamples=bootstrap, seed=seed)
    if scores[0] is not None and scores[1] is not None and positive_code is not None:
        tests["delong"] = delong_test(truth == positive_code, scores[0], scores[1], confidence=confidence)
    return tests, discordant


def default_names(m: int) -> list[str]:
    """ "A", "B", ..., "Z", "AA", "AB", ...: one per model."""
    out = []
    for i in range(m):
        name = ""
        i += 1
        while i:
            i, r = divmod(i - 1, 26)
            name = chr(65 + r) + name
        out.append(name)
    return out


def _is_spec(x: Any) -> bool:
    return isinstance(x, Mapping) and len(x) == 1 and set(x) <= SPEC_KEYS


def _models(a: Any, b: Any, more: tuple[Any, ...], names: Any) -> tuple[list[dict[str, Any]], tuple[str, ...]]:
    """Each model's predictions as ``evaluate``'s keyword, and the models' names."""
    if b is _MISSING:
        if isinstance(a, Mapping) and not _is_spec(a) and set(a) & SPEC_KEYS:
            raise InvalidInput("expected one model's predictions as {'y_pred': ...}, {'y_score': ...} or "
                               "{'y_proba': ...}, or a mapping of model names to predictions, got a mapping with keys "
                               f"{sorted(map(str, a))}", field="a")
        if not isinstance(a, Mapping) or _is_spec(a):
            raise InvalidInput("expected two models or more: compare(y_true, a, b, ...), or one mapping of model "
                               "names to predictions, compare(y_true, {'tree': pred_1, 'forest': pred_2})",
                               field="b")
        if names is not None:
            raise InvalidInput("the keys of the mapping of models are their names: give no names=", field="names")
        if len(a) < 2:
            raise InvalidInput(f"expected two models or more, got {len(a)}", field="a")
        bad = next((key for key in a if not (isinstance(key, str) and key)), None)
        if bad is not None:
            raise InvalidInput(f"the keys of the mapping of models are their names, expected non-empty strings, "
                               f"got {bad!r}", field="a")
        models, fields = list(a.values()), list(a.keys())
        names = tuple(fields)
    else:
        models = [a, b, *more]
        fields = ["a", "b", *(f"more[{i}]" for i in range(len(more)))]
        names = check_names(default_names(len(models)) if names is None else names, len(models))
    # predicted labels given as they are, as scikit-learn's metrics take them
    specs = [spec if isinstance(spec, Mapping) else {"y_pred": spec} for spec in models]
    for spec, field_name in zip(specs, fields, strict=True):
        if not _is_spec(spec):
            raise InvalidInput("expected one model's predictions as {'y_pred': ...}, {'y_score': ...} or "
                               f"{{'y_proba': ...}}, got {type(spec).__name__}", field=field_name)
    return specs, names


def _shared_labels(y_true: Any, specs: list[dict[str, Any]], names: tuple[str, ...]) -> list[str] | None:
    """With predicted labels, the classes of the truth and of every model's predictions, together."""
    if all("y_pred" in spec for spec in specs):
        columns = {f"{name} y_pred": spec["y_pred"] for name, spec in zip(names, specs, strict=True)}
        try:
            return list(encode_labels({"y_true": y_true, **columns}).labels)
        except InvalidInput as e:
            if e.field in columns:  # one model's predictions: "tree y_pred row 4", as evaluate's errors say
                name = names[list(columns).index(e.field)]
                raise InvalidInput(e.problem, field=f"{name} y_pred", row=e.row) from None
            raise
    return None


def compare_unpaired(
    a: Evaluation, b: Evaluation, *, names: tuple[str, str] = ("A", "B"), confidence: float = 0.95,
    auc_test: str = "delong", bootstrap: int = 2000, seed: int = 0,
) -> Comparison:
    """Compare two classifiers evaluated on independent test sets (Mitchell 1997, ch. 5).
    The interval of the difference of their error rates (e_B - e_A), its two-sided
    p-value, and the confidence below which it would be significant. When both give
    two-class scores, the test of their AUCs on different instances too, as pROC's
    unpaired ``roc.test``: DeLong's (``auc_test="delong"``, test ``delong_unpaired``) or
    the bootstrap's (``"bootstrap"``, ``auc_bootstrap_unpaired``, ``bootstrap`` resamples).
    Scores without a threshold have no error rate: their AUCs alone are compared.
    """
    confidence = check_confidence(confidence)
    names = check_names(names)
    for r, field_name in ((a, "a"), (b, "b")):
        if not isinstance(r, Evaluation):
            raise InvalidInput(f"expected the result of assay.evaluate(), got {type(r).__name__}", field=field_name)
    if auc_test not in ("delong", "bootstrap"):
        raise InvalidInput(f"{auc_test!r} is not one of ['delong', 'bootstrap']", field="auc_test")
    tests: dict[str, Any] = {}
    notes = []
    if a.thresholded and b.thresholded and not (a.weighted or b.weighted):
        errors = [int(r.confusion.n - np.trace(r.confusion.counts)) for r in (a, b)]
        tests["difference"] = error_difference_from_counts(errors[0], a.n, errors[1], b.n, confidence=confidence)
        notes.append("independent test sets: the difference of the error rates (Mitchell 1997, ch. 5), "
                     f"{names[1]}'s minus {names[0]}'s")
    else:
        notes.append("independent test sets: scores without a threshold have no error rate; their AUCs are compared")
    ranked = [getattr(r.ranking, "summary", None) if r.ranking is not None else None for r in (a, b)]
    if all(s is not None for s in ranked) and a.positive is not None and b.positive is not None:
        key = "delong_unpaired" if auc_test == "delong" else "auc_bootstrap_unpaired"
        tests[key] = unpaired_auc_test(ranked[0], ranked[1], method=auc_test, confidence=confidence,
                                       resamples=check_resamples(bootstrap), seed=check_seed(seed))
        notes.append("the AUCs on different instances: " + (
            "DeLong's test for two unpaired ROC curves (as pROC's roc.test(paired = FALSE)), Student's t with "
            "Welch's degrees of freedom" if auc_test == "delong" else
            "the bootstrap test for two unpaired ROC curves (as pROC's roc.test(method = \"bootstrap\")), each "
            "curve resampled on its own") + f", {names[0]}'s AUC minus {names[1]}'s")
    return Comparison(tuple(names), (a, b), tests, False, confidence, tuple(notes),
                      roc_space=roc_space({names[0]: a, names[1]: b}, None, None))


def check_names(names: Any, m: int = 2) -> tuple[str, ...]:
    """m distinct model names."""
    if isinstance(names, str) or not isinstance(names, (tuple, list)) or len(names) != m \
            or not all(isinstance(n, str) and n for n in names):
        if m == 2:
            raise InvalidInput(f"expected two names, one per model, e.g. ('tree', 'bayes'), got {names!r}",
                               field="names")
        raise InvalidInput(f"expected {m} names, one per model, e.g. ('tree', 'bayes', 'knn'), got {names!r}",
                           field="names")
    if m == 2 and names[0] == names[1]:
        raise InvalidInput(f"the two models need different names, got {names[0]!r} twice", field="names")
    seen = set()
    for n in names:
        if n in seen:
            raise InvalidInput(f"the models need different names, got {n!r} twice", field="names")
        seen.add(n)
    return tuple(names)
