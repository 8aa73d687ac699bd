"""Label-based metrics against independent references, and their shared invariances.

Oracles
-------
* scikit-learn 1.9 (``sklearn.metrics``): ``confusion_matrix``, ``accuracy_score``,
  ``recall_score``, ``precision_score``, ``f1_score``, ``fbeta_score``,
  ``precision_recall_fscore_support``, ``balanced_accuracy_score``,
  ``matthews_corrcoef``, ``cohen_kappa_score`` and ``class_likelihood_ratios``.
  scikit-learn's ``zero_division=np.nan`` and ``replace_undefined_by=np.nan`` keep
  undefined values as NaN. ``matthews_corrcoef`` returns 0 when its denominator is 0;
  there the reference is taken as undefined.
* Direct formulas of the four cells ``tp, fp, fn, tn``, which come from
  ``sklearn.metrics.confusion_matrix``. These cover npv, fpr, fnr, fdr, the false
  omission rate, prevalence, detection prevalence, Youden's J (= informedness),
  markedness, the diagnostic odds ratio tp*tn / (fp*fn), chance agreement
  sum_i row_i * col_i / n^2 (Cohen 1960) and the no-information rate (largest actual
  class / n).

Tolerance: values agree to 1e-9, relative or absolute (``pytest.approx(rel=1e-9,
abs=1e-9)``). Where a reference value is undefined (a zero denominator, or NaN from
scikit-learn), assay must give ``value is None`` and a non-empty ``note``. It must
never give 0 there.

The invariance tests in the second half loop over every metric of a result, the way
scikit-learn's ``metrics/tests/test_common.py`` does. They check invariance under
permuting instances, under consistently relabelling classes and under a change of
label type. They also check that every interval contains its estimate and stays in
the metric's range, and that every proportion interval widens as the confidence rises.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.metrics import (
    accuracy_score,
    balanced_accuracy_score,
    class_likelihood_ratios,
    cohen_kappa_score,
    confusion_matrix,
    f1_score,
    fbeta_score,
    matthews_corrcoef,
    precision_recall_fscore_support,
    precision_score,
    recall_score,
)

import assay
from assay import Estimate, PROPORTION_METHODS
from assay.metrics.confusion import BINARY_METRICS, MATRIX_METRICS, one_vs_rest

TOL = {"rel": 1e-9, "abs": 1e-9}
BOOT = 200  # resamples where intervals do not matter (the minimum is 100)

# ----------------------------------------------------------------------------
# data


POOLS: dict[str, list[Any]] = {
    "animals": ["cat", "dog", "emu", "fox", "gnu"],
    "case": ["b", "a", "C", "Zed", "ant"],  # text order: "C" < "Zed" < "a" < "ant" < "b"
    "small_ints": [0, 1, 2, 3, 4],
    "spread_ints": [10, 3, -1, 25, 7],  # numeric order differs from text order
}


def canonical(raw: Any) -> str:
    """assay's label text for the pools above (ints and plain words print as themselves)."""
    return str(raw)


def assay_order(raws: list[Any]) -> tuple[str, ...]:
    """Numeric order when every label is a number, else text order."""
    if all(isinstance(v, int) for v in raws):
        return tuple(canonical(v) for v in sorted(set(raws)))
    return tuple(sorted({canonical(v) for v in raws}))


@dataclass
class Case:
    """Raw labels as a user would pass them, and the classes assay should find."""

    y_true: list[Any]
    y_pred: list[Any]
    labels: list[Any] | None  # declared labels (None: inferred)
    raw_of: dict[str, Any]  # canonical text -> raw label

    @property
    def order(self) -> tuple[str, ...]:
        if self.labels is not None:
            return tuple(canonical(v) for v in self.labels)
        return assay_order(self.y_true + self.y_pred)

    @property
    def raw_order(self) -> list[Any]:
        return [self.raw_of[c] for c in self.order]

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        return np.asarray(self.y_true), np.asarray(self.y_pred)


@st.composite
def pred_codes(draw, truth: list[int], pred_classes: list[int]) -> list[int]:
    """Predictions drawn from ``pred_classes``, each one sometimes a copy of the truth."""
    mode = draw(st.sampled_from(["mixed", "constant", "perfect", "inverted"]))
    n = len(truth)
    if mode == "constant":
        return [draw(st.sampled_from(pred_classes))] * n
    if mode == "perfect":
        return list(truth)
    if mode == "inverted" and len(pred_classes) >= 2:
        return [pred_classes[(pred_classes.index(t) + 1) % len(pred_classes)] if t in pred_classes
                else pred_classes[0] for t in truth]
    choice = st.one_of(st.none(), st.sampled_from(pred_classes))
    picks = draw(st.lists(choice, min_size=n, max_size=n))
    return [t if p is None else p for t, p in zip(truth, picks, strict=True)]


@st.composite
def binary_cases(draw, max_n: int = 30) -> Case:
    pool = draw(st.sampled_from(sorted(POOLS)))
    pair = draw(st.permutations(POOLS[pool]))[:2]
    n = draw(st.integers(2, max_n))
    truth = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    assume(len(set(truth)) == 2)
    pred = draw(pred_codes(truth, [0, 1]))
    return Case([pair[t] for t in truth], [pair[p] for p in pred], None,
                {canonical(v): v for v in pair})


@st.composite
def multiclass_cases(draw, max_n: int = 40, min_k: int = 3) -> Case:
    """k classes; some may be only in the truth, only in predictions, or only declared."""
    pool = draw(st.sampled_from(sorted(POOLS)))
    k = draw(st.integers(min_k, 5))
    classes = draw(st.permutations(POOLS[pool]))[:k]
    true_classes = draw(st.lists(st.integers(0, k - 1), min_size=2, max_size=k, unique=True))
    pred_classes = draw(st.lists(st.integers(0, k - 1), min_size=1, max_size=k, unique=True))
    n = draw(st.integers(2, max_n))
    truth = draw(st.lists(st.sampled_from(true_classes), min_size=n, max_size=n))
    assume(len(set(truth)) >= 2)
    pred = draw(pred_codes(truth, pred_classes))
    declare = draw(st.booleans())
    labels = [classes[i] for i in draw(st.permutations(range(k)))] if declare else None
    return Case([classes[t] for t in truth], [classes[p] for p in pred], labels,
                {canonical(v): v for v in classes})


def div(a: float, b: float) -> float:
    """a / b, NaN (undefined) when b is 0: the references' zero-denominator rule."""
    return float("nan") if b == 0 else a / b


def assert_matches(est: Estimate, ref: float, where: str) -> None:
    """Estimate vs reference: equal to 1e-9, or None with a reason where the reference is undefined."""
    assert isinstance(est, Estimate), where
    if math.isnan(ref):
        assert est.value is None, f"{where}: expected undefined, got {est.value!r}"
        assert est.note, f"{where}: undefined without a note"
    else:
        assert est.value is not None, f"{where}: expected {ref!r}, got None ({est.note})"
        assert est.value == pytest.approx(ref, **TOL), f"{where}: expected {ref!r}, got {est.value!r}"


def quiet(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call a scikit-learn function without its UndefinedMetricWarning noise."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


# ----------------------------------------------------------------------------
# 1. binary metrics: one reference per registered metric


@dataclass
class BinaryRef:
    """A binary problem as the references see it: raw arrays and the four cells."""

    y_true: np.ndarray
    y_pred: np.ndarray
    pos: Any
    neg: Any
    tp: int
    fp: int
    fn: int
    tn: int
    beta: float

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.fn + self.tn

    def sk(self, fn: Callable[..., Any], **kwargs: Any) -> float:
        return float(quiet(fn, self.y_true, self.y_pred, **kwargs))


def _mcc_reference(b: BinaryRef) -> float:
    den = (b.tp + b.fp) * (b.tp + b.fn) * (b.tn + b.fp) * (b.tn + b.fn)
    return float("nan") if den == 0 else b.sk(matthews_corrcoef)  # sklearn's 0 means undefined


def _lr(b: BinaryRef, which: int) -> float:
    return float(quiet(class_likelihood_ratios, b.y_true, b.y_pred, labels=[b.neg, b.pos],
                       replace_undefined_by=np.nan)[which])


BINARY_REFERENCES: dict[str, Callable[[BinaryRef], float]] = {
    "accuracy": lambda b: b.sk(accuracy_score),
    "error_rate": lambda b: 1.0 - b.sk(accuracy_score),
    "recall": lambda b: b.sk(recall_score, pos_label=b.pos, zero_division=np.nan),
    # specificity is the recall of the negative class
    "specificity": lambda b: b.sk(recall_score, pos_label=b.neg, zero_division=np.nan),
    "precision": lambda b: b.sk(precision_score, pos_label=b.pos, zero_division=np.nan),
    "npv": lambda b: div(b.tn, b.tn + b.fn),
    "fpr": lambda b: div(b.fp, b.fp + b.tn),
    "fnr": lambda b: div(b.fn, b.fn + b.tp),
    "fdr": lambda b: div(b.fp, b.fp + b.tp),
    "false_omission_rate": lambda b: div(b.fn, b.fn + b.tn),
    "prevalence": lambda b: div(b.tp + b.fn, b.n),
    "detection_prevalence": lambda b: div(b.tp + b.fp, b.n),
    "f1": lambda b: b.sk(f1_score, pos_label=b.pos, zero_division=np.nan),
    "fbeta": lambda b: b.sk(fbeta_score, beta=b.beta, pos_label=b.pos, zero_division=np.nan),
    "balanced_accuracy": lambda b: b.sk(balanced_accuracy_score),
    "youden_j": lambda b: div(b.tp, b.tp + b.fn) + div(b.tn, b.tn + b.fp) - 1.0,
    "informedness": lambda b: div(b.tp, b.tp + b.fn) + div(b.tn, b.tn + b.fp) - 1.0,
    "markedness": lambda b: div(b.tp, b.tp + b.fp) + div(b.tn, b.tn + b.fn) - 1.0,
    "mcc": _mcc_reference,
    "lr_positive": lambda b: _lr(b, 0),
    "lr_negative": lambda b: _lr(b, 1),
    "diagnostic_odds_ratio": lambda b: div(b.tp * b.tn, b.fp * b.fn),
    "kappa": lambda b: b.sk(cohen_kappa_score, replace_undefined_by=np.nan),
    "chance_agreement": lambda b: div((b.tp + b.fn) * (b.tp + b.fp) + (b.tn + b.fp) * (b.tn + b.fn), b.n ** 2),
    "no_information_rate": lambda b: div(max(b.tp + b.fn, b.tn + b.fp), b.n),
}


def test_every_binary_metric_has_a_reference() -> None:
    """The registries and the reference table name the same metrics (none untested)."""
    binary_names = set(BINARY_METRICS) | {"kappa", "chance_agreement", "no_information_rate", "fbeta"}
    assert binary_names == set(BINARY_REFERENCES)


@given(case=binary_cases(), beta=st.sampled_from([1.0, 0.5, 2.0, 3.0]), choose=st.booleans())
def test_binary_metrics_match_references(case: Case, beta: float, choose: bool) -> None:
    positive = case.raw_order[0] if choose else None  # the first class, or assay's default
    r = assay.evaluate(case.y_true, y_pred=case.y_pred, allow_disjoint_labels=True, positive=positive, beta=beta, bootstrap=BOOT)
    assert r.task == "binary"
    assert r.labels == case.order
    pos_raw = case.raw_of[r.positive]
    neg_raw = next(v for c, v in case.raw_of.items() if c in r.labels and c != r.positive)
    if choose:
        assert r.positive == canonical(positive)
    yt, yp = case.arrays()
    tn, fp, fn, tp = (int(x) for x in confusion_matrix(yt, yp, labels=[neg_raw, pos_raw]).ravel())
    ref = BinaryRef(yt, yp, pos_raw, neg_raw, tp, fp, fn, tn, beta)

    expected = set(BINARY_REFERENCES) - ({"fbeta"} if beta == 1.0 else set())
    assert set(r.metrics) == expected
    for name in expected:
        assert_matches(r[name], BINARY_REFERENCES[name](ref), f"{name} (tp={tp}, fp={fp}, fn={fn}, tn={tn})")


# ----------------------------------------------------------------------------
# 2. multi-class: per class, averages, whole matrix


def _one_vs_rest_cells(cm: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(tp, fp, fn, tn) per class, from a scikit-learn confusion matrix, written out directly."""
    n = cm.sum()
    tp = np.array([cm[i, i] for i in range(len(cm))])
    fp = np.array([cm[:, i].sum() - cm[i, i] for i in range(len(cm))])
    fn = np.array([cm[i, :].sum() - cm[i, i] for i in range(len(cm))])
    return tp, fp, fn, n - tp - fp - fn


PER_CLASS_BY_HAND: dict[str, Callable[[int, int, int, int], float]] = {
    "specificity": lambda tp, fp, fn, tn: div(tn, tn + fp),
    "npv": lambda tp, fp, fn, tn: div(tn, tn + fn),
    "fpr": lambda tp, fp, fn, tn: div(fp, fp + tn),
    "fnr": lambda tp, fp, fn, tn: div(fn, fn + tp),
    "fdr": lambda tp, fp, fn, tn: div(fp, fp + tp),
}


@given(case=multiclass_cases(min_k=2), beta=st.sampled_from([1.0, 0.5, 2.0]))
def test_per_class_and_averages_match_sklearn(case: Case, beta: float) -> None:
    r = assay.evaluate(case.y_true, y_pred=case.y_pred, allow_disjoint_labels=True, labels=case.labels, beta=beta, bootstrap=BOOT)
    assert r.labels == case.order
    yt, yp = case.arrays()
    labels = case.raw_order
    cm = confusion_matrix(yt, yp, labels=labels)
    assert r.confusion.counts.tolist() == cm.tolist()

    prec, rec, f1, support = quiet(precision_recall_fscore_support, yt, yp, labels=labels, zero_division=np.nan)
    fb = quiet(precision_recall_fscore_support, yt, yp, labels=labels, beta=beta, zero_division=np.nan)[2]
    tp, fp, fn, tn = _one_vs_rest_cells(cm)
    refs = {"precision": prec, "recall": rec, "f1": f1}
    if beta != 1.0:
        refs["fbeta"] = fb
    for i, label in enumerate(r.labels):
        entry = r.per_class[label]
        assert entry["support"] == support[i]
        assert entry["predicted"] == cm[:, i].sum()
        for name, values in refs.items():
            assert_matches(entry[name], float(values[i]), f"per_class[{label!r}].{name}")
        for name, formula in PER_CLASS_BY_HAND.items():
            assert_matches(entry[name], formula(tp[i], fp[i], fn[i], tn[i]), f"per_class[{label!r}].{name}")
    assert set(r.per_class) == set(r.classes)  # keyed as the data held them (issue 18.16)

    for name, values in refs.items():
        per_class = np.asarray(values, dtype=float)
        b = beta if name == "fbeta" else 1.0
        which = {"precision": 0, "recall": 1, "f1": 2, "fbeta": 2}[name]

        def sk_average(average: str) -> float:
            return float(quiet(precision_recall_fscore_support, yt, yp, labels=labels, beta=b, average=average,
                               zero_division=np.nan)[which])

        # micro: pooled cells; defined whenever there are instances
        assert_matches(r.averages["micro"][name], sk_average("micro"), f"micro {name}")
        macro = r.averages["macro"][name]
        if np.isnan(per_class).any():
            assert macro.value is None and macro.note, f"macro {name} over an undefined class: {macro}"
        else:
            assert_matches(macro, sk_average("macro"), f"macro {name}")
        weighted = r.averages["weighted"][name]
        if np.isnan(per_class[support > 0]).any():
            assert weighted.value is None and weighted.note, f"weighted {name} over an undefined class: {weighted}"
        else:
            assert_matches(weighted, sk_average("weighted"), f"weighted {name}")


def _gorodkin_denominator(cm: np.ndarray) -> float:
    s, t, p = cm.sum(), cm.sum(axis=1), cm.sum(axis=0)
    return float((s * s - (p * p).sum()) * (s * s - (t * t).sum()))


MATRIX_REFERENCES: dict[str, Callable[[np.ndarray, np.ndarray, np.ndarray], float]] = {
    "accuracy": lambda yt, yp, cm: float(accuracy_score(yt, yp)),
    "error_rate": lambda yt, yp, cm: 1.0 - float(accuracy_score(yt, yp)),
    # as scikit-learn: the mean recall over the classes present in the truth
    "balanced_accuracy": lambda yt, yp, cm: float(quiet(balanced_accuracy_score, yt, yp)),
    "kappa": lambda yt, yp, cm: float(quiet(cohen_kappa_score, yt, yp, replace_undefined_by=np.nan)),
    "chance_agreement": lambda yt, yp, cm: float((cm.sum(axis=1) * cm.sum(axis=0)).sum() / cm.sum() ** 2),
    "mcc": lambda yt, yp, cm: (float("nan") if _gorodkin_denominator(cm) == 0
                               else float(quiet(matthews_corrcoef, yt, yp))),
    "no_information_rate": lambda yt, yp, cm: float(cm.sum(axis=1).max() / cm.sum()),
}


def test_every_matrix_metric_has_a_reference() -> None:
    assert set(MATRIX_METRICS) == set(MATRIX_REFERENCES)


@given(case=multiclass_cases())
def test_whole_matrix_metrics_match_references(case: Case) -> None:
    r = assay.evaluate(case.y_true, y_pred=case.y_pred, allow_disjoint_labels=True, labels=case.labels, bootstrap=BOOT)
    yt, yp = case.arrays()
    cm = confusion_matrix(yt, yp, labels=case.raw_order)
    if r.task == "multiclass":
        assert set(r.metrics) == set(MATRIX_METRICS)
    for name, reference in MATRIX_REFERENCES.items():
        assert_matches(r[name], reference(yt, yp, cm), name)


@given(case=multiclass_cases(min_k=2))
def test_balanced_accuracy_is_macro_recall(case: Case) -> None:
    """Both are the mean of per-class recall: equal when every class occurs in the truth;
    otherwise macro recall is undefined and balanced accuracy averages the classes present."""
    r = assay.evaluate(case.y_true, y_pred=case.y_pred, allow_disjoint_labels=True, labels=case.labels, bootstrap=BOOT)
    ba, macro = r["balanced_accuracy"], r.averages["macro"]["recall"]
    support = np.array([r.per_class[label]["support"] for label in r.labels])
    assert ba.value is not None
    if (support > 0).all():
        assert ba.value == pytest.approx(macro.value, **TOL)
    else:
        assert macro.value is None
        recalls = [r.per_class[label]["recall"].value for label, s in zip(r.labels, support) if s > 0]
        assert ba.value == pytest.approx(float(np.mean(recalls)), **TOL)


# ----------------------------------------------------------------------------
# the vectorised registry: a stack of matrices gives each matrix's value


@settings(max_examples=60)
@given(k=st.integers(2, 4), data=st.data())
def test_registry_is_vectorised(k: int, data: st.DataObject) -> None:
    stack = np.array(data.draw(st.lists(
        st.lists(st.lists(st.integers(0, 6), min_size=k, max_size=k), min_size=k, max_size=k),
        min_size=1, max_size=6)), dtype=np.int64)
    cells = one_vs_rest(stack)
    for j in range(k):
        direct = _one_vs_rest_cells_stack(stack, j)
        assert tuple(np.asarray(c)[..., j].tolist() for c in cells) == tuple(d.tolist() for d in direct)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a vectorised formula must not warn on 0/0
        for name, spec in BINARY_METRICS.items():
            together = np.asarray(spec.compute(cells))
            for b in range(len(stack)):
                for j in range(k):
                    alone = float(spec.compute(one_vs_rest(stack[b], j)))
                    np.testing.assert_equal(together[b, j], alone, err_msg=f"{name} matrix {b} class {j}")
        for name, spec in MATRIX_METRICS.items():
            together = np.asarray(spec.compute(stack))
            for b in range(len(stack)):
                np.testing.assert_equal(together[b], float(spec.compute(stack[b])), err_msg=name)


def _one_vs_rest_cells_stack(stack: np.ndarray, j: int) -> tuple[np.ndarray, ...]:
    tp = stack[:, j, j]
    fp = stack[:, :, j].sum(axis=1) - tp
    fn = stack[:, j, :].sum(axis=1) - tp
    tn = stack.sum(axis=(1, 2)) - tp - fp - fn
    return tp, fp, fn, tn


# ----------------------------------------------------------------------------
# 3. invariances, one loop over every estimate of a result

# The range of each metric: values and intervals must stay inside.
UNIT = (0.0, 1.0)
SIGNED = (-1.0, 1.0)
POSITIVE = (0.0, math.inf)
RANGES: dict[str, tuple[float, float]] = {
    **{name: UNIT for name in BINARY_METRICS},
    **{name: UNIT for name in MATRIX_METRICS},
    "fbeta": UNIT,
    "youden_j": SIGNED, "informedness": SIGNED, "markedness": SIGNED, "mcc": SIGNED, "kappa": SIGNED,
    "lr_positive": POSITIVE, "lr_negative": POSITIVE, "diagnostic_odds_ratio": POSITIVE,
}


def estimates(r: assay.Evaluation) -> Iterator[tuple[str, str, Estimate]]:
    """(where, metric name, Estimate) for every estimate of a result."""
    for name, e in r.metrics.items():
        yield f"metrics.{name}", name, e
    for label, entry in r.per_class.items():
        for name, e in entry.items():
            if isinstance(e, Estimate):
                yield f"per_class[{label!r}].{name}", name, e
    for kind, group in r.averages.items():
        for name, e in group.items():
            yield f"averages.{kind}.{name}", name, e


def test_every_metric_has_a_range() -> None:
    assert set(RANGES) >= set(BINARY_METRICS) | set(MATRIX_METRICS) | {"fbeta"}


any_case = st.one_of(binary_cases(), multiclass_cases())


@given(case=any_case, data=st.data())
def test_permuting_instances_changes_nothing(case: Case, data: st.DataObject) -> None:
    order = data.draw(st.permutations(range(len(case.y_true))))
    r = assay.evaluate(case.y_true, y_pred=case.y_pred, allow_disjoint_labels=True, labels=case.labels, bootstrap=BOOT)
    s = assay.evaluate([case.y_true[i] for i in order], y_pred=[case.y_pred[i] for i in order],
                       labels=case.labels, bootstrap=BOOT, allow_disjoint_labels=True)
    assert s.to_dict() == r.to_dict()


@given(case=any_case, data=st.data())
def test_relabelling_classes_permutes_per_class_only(case: Case, data: st.DataObject) -> None:
    """A bijection of class names: the same numbers under the new names (intervals too,
    except the bootstrap ones, whose draws follow the matrix order)."""
    old = list(case.raw_of)
    new = data.draw(st.permutations(["x-ray", "alpha", "Mike", "zulu", "echo", "Bravo", "kilo"]))[:len(old)]
    rename = dict(zip(old, new, strict=True))
    r = assay.evaluate(case.y_true, y_pred=case.y_pred, allow_disjoint_labels=True, labels=case.labels, bootstrap=BOOT)
    positive = {"positive": rename[r.positive]} if r.positive is not None else {}
    s = assay.evaluate([rename[canonical(v)] for v in case.y_true],
                       y_pred=[rename[canonical(v)] for v in case.y_pred],
                       labels=None if case.labels is None else [rename[canonical(v)] for v in case.labels],
                       bootstrap=BOOT, allow_disjoint_labels=True, **positive)
    if r.positive is not None:
        assert s.positive == rename[r.positive]
    assert set(s.labels) == {rename[label] for label in r.labels}
    index = [s.labels.index(rename[label]) for label in r.labels]
    assert s.confusion.counts[np.ix_(index, index)].tolist() == r.confusion.counts.tolist()

    def same(a: Estimate, b: Estimate, where: str) -> None:
        assert (a.value is None) == (b.value is None), where
        if a.value is not None:
            assert b.value == pytest.approx(a.value, rel=1e-12, abs=1e-12), where
        if a.method != "bootstrap-percentile":
            assert a.method == b.method, where
            assert (a.ci is None) == (b.ci is None), where
            if a.ci is not None:
                assert tuple(b.ci) == pytest.approx(tuple(a.ci), rel=1e-12, abs=1e-12), where

    for name, e in r.metrics.items():
        same(e, s.metrics[name], f"metrics.{name}")
    for label, entry in r.analysis.per_class.items():  # the labels as text, as rename's keys
        for name, e in entry.items():
            other = s.per_class[rename[label]][name]
            if isinstance(e, Estimate):
                same(e, other, f"per_class[{label!r}].{name}")
            else:
                assert e == other, f"per_class[{label!r}].{name}"
    for kind, group in r.averages.items():
        for name, e in group.items():
            same(e, s.averages[kind][name], f"averages.{kind}.{name}")


@given(codes=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=2, max_size=30),
       declare=st.booleans())
def test_label_types_of_the_same_data_agree(codes: list[tuple[int, int]], declare: bool) -> None:
    """1, 1.0, "1", np.int64(1) and np.float64(1.0) are one class: identical results."""
    t = [a for a, _ in codes]
    p = [b for _, b in codes]
    assume(len(set(t)) >= 2)
    spread = [3, 10, 25, 100]  # text order would put "10" first
    t = [spread[i] for i in t]
    p = [spread[i] for i in p]
    labels = spread if declare else None
    variants = {
        "int": (t, p, labels),
        "float": ([float(v) for v in t], [float(v) for v in p], labels),
        "str": ([str(v) for v in t], [str(v) for v in p], None if labels is None else [str(v) for v in labels]),
        "numpy int": (np.array(t), np.array(p), labels),
        "numpy float": (np.array(t, dtype=float), np.array(p, dtype=float), labels),
        "mixed": ([str(v) for v in t], [float(v) for v in p], labels),
    }
    results = {name: assay.evaluate(yt, y_pred=yp, labels=lab, bootstrap=BOOT, allow_disjoint_labels=True).to_dict()
               for name, (yt, yp, lab) in variants.items()}
    first = results["int"]
    expected = [str(v) for v in spread] if declare else [str(v) for v in spread if v in set(t) | set(p)]
    assert first["labels"] == expected
    for name, d in results.items():
        assert d == first, name


def _assert_in_range(x: float, lo: float, hi: float, where: str) -> None:
    assert lo - 1e-12 <= x <= hi + 1e-12, f"{where}: {x!r} outside [{lo}, {hi}]"


@given(case=any_case, confidence=st.sampled_from([0.5, 0.8, 0.9, 0.95, 0.99]),
       interval=st.sampled_from(PROPORTION_METHODS), beta=st.sampled_from([1.0, 2.0]))
def test_intervals_contain_their_estimate_and_stay_in_range(
    case: Case, confidence: float, interval: str, beta: float
) -> None:
    r = assay.evaluate(case.y_true, y_pred=case.y_pred, allow_disjoint_labels=True, labels=case.labels, confidence=confidence,
                       interval=interval, beta=beta, bootstrap=BOOT)
    for where, name, e in estimates(r):
        lo, hi = RANGES[name]
        if e.value is None:
            assert e.note, f"{where}: undefined without a note"
            assert e.ci is None, where
            continue
        _assert_in_range(e.value, lo, hi, where)
        if e.ci is None:
            continue
        slack = 1e-12 * max(1.0, abs(e.value))
        assert e.ci.low - slack <= e.value <= e.ci.high + slack, f"{where}: {e.value!r} not in {e.ci}"
        _assert_in_range(e.ci.low, lo, hi, where)
        _assert_in_range(e.ci.high, lo, hi, where)
        if e.method in PROPORTION_METHODS:
            assert e.method == interval, where
            _assert_in_range(e.ci.low, 0.0, 1.0, where)
            _assert_in_range(e.ci.high, 0.0, 1.0, where)


@given(case=any_case, levels=st.lists(st.sampled_from([0.5, 0.8, 0.9, 0.95, 0.99, 0.999]),
                                        min_size=2, max_size=2, unique=True),
       interval=st.sampled_from(PROPORTION_METHODS))
def test_proportion_intervals_widen_with_confidence(case: Case, levels: list[float], interval: str) -> None:
    low_c, high_c = sorted(levels)
    narrow = assay.evaluate(case.y_true, y_pred=case.y_pred, allow_disjoint_labels=True, labels=case.labels, confidence=low_c,
                            interval=interval, bootstrap=BOOT)
    wide = assay.evaluate(case.y_true, y_pred=case.y_pred, allow_disjoint_labels=True, labels=case.labels, confidence=high_c,
                          interval=interval, bootstrap=BOOT)
    checked = 0
    for (where, _, a), (_, _, b) in zip(estimates(narrow), estimates(wide), strict=True):
        assert a.value == b.value, where
        if a.method in PROPORTION_METHODS and a.ci is not None:
            assert b.ci is not None, where
            assert b.ci.low <= a.ci.low + 1e-12, f"{where}: {b.ci} at {high_c} vs {a.ci} at {low_c}"
            assert b.ci.high >= a.ci.high - 1e-12, f"{where}: {b.ci} at {high_c} vs {a.ci} at {low_c}"
            checked += 1
    assert checked > 0


@given(truth=st.lists(st.integers(0, 3), min_size=2, max_size=40), guess=st.integers(0, 3),
       perfect=st.booleans(), names=st.permutations(["cat", "dog", "emu", "fox"]))
def test_kappa_standard_error_is_zero_for_degenerate_predictors(
    truth: list[int], guess: int, perfect: bool, names: list[str]
) -> None:
    """Two predictors give a Fleiss-Cohen-Everitt variance of exactly 0 (notation of ``kappa_test``).

    * A constant prediction c, with r = the share of actual c: P(A) = P(E) = r and
      kappa = 0. Then A = r * r^2, B = (1 - r) r^2 and C = r^2, so A + B - C = 0.
    * A perfect prediction: kappa = 1. Then A = sum_i p_ii = 1, B = 0 and C = 1, so
      A + B - C = 0.

    The standard error is 0 whatever the class names, so the interval cannot depend
    on which label sorts first.
    """
    assume(len(set(truth)) >= 2)
    y_true = [names[t] for t in truth]
    y_pred = list(y_true) if perfect else [names[guess]] * len(truth)
    results = [assay.evaluate(y_true, y_pred=y_pred, labels=order, bootstrap=BOOT, allow_disjoint_labels=True)
               for order in (["cat", "dog", "emu", "fox"], ["fox", "emu", "dog", "cat"])]
    for r in results:
        assert r["kappa"].value == (1.0 if perfect else 0.0)
        assert r.tests["kappa"].se == pytest.approx(0.0, abs=1e-12), r.confusion
    assert (results[0]["kappa"].ci is None) == (results[1]["kappa"].ci is None)


@given(case=any_case)
def test_evaluate_confusion_gives_the_same_result(case: Case) -> None:
    first = assay.evaluate(case.y_true, y_pred=case.y_pred, allow_disjoint_labels=True, labels=case.labels, bootstrap=BOOT)
    # name the positive class in both calls, so that the notes say the same "as asked"
    r = assay.evaluate(case.y_true, y_pred=case.y_pred, allow_disjoint_labels=True, labels=case.labels, positive=first.positive, bootstrap=BOOT)
    s = assay.evaluate_confusion(r.confusion.counts, labels=list(r.labels), positive=r.positive, bootstrap=BOOT)
    assert s.to_dict() == r.to_dict()


# ----------------------------------------------------------------------------
# 4. the confusion matrix itself


@given(case=multiclass_cases(min_k=2), extra=st.booleans())
def test_confusion_matrix_matches_sklearn(case: Case, extra: bool) -> None:
    labels = case.labels if case.labels is not None else [case.raw_of[c] for c in case.order]
    if extra:  # a class in neither array
        labels = [*labels, "never seen" if isinstance(labels[0], str) else 999]
    cm = assay.confusion_counts(case.y_true, case.y_pred, labels=labels)
    yt, yp = case.arrays()
    assert cm.labels == tuple(canonical(v) for v in labels)
    assert cm.counts.dtype == np.int64
    assert cm.counts.tolist() == confusion_matrix(yt, yp, labels=labels).tolist()
    assert cm.n == len(case.y_true)
    if extra:
        assert cm.counts[-1].sum() == 0 and cm.counts[:, -1].sum() == 0
        r = assay.evaluate(case.y_true, y_pred=case.y_pred, allow_disjoint_labels=True, labels=labels, bootstrap=BOOT)
        assert r.confusion == cm
        absent = r.per_class[canonical(labels[-1])]
        assert absent["support"] == 0 and absent["predicted"] == 0
        for name in ("precision", "recall", "f1"):
            assert absent[name].value is None and absent[name].note, name


@given(case=multiclass_cases(min_k=2))
def test_confusion_matrix_default_labels_are_sorted(case: Case) -> None:
    cm = assay.confusion_counts(case.y_true, case.y_pred)
    expected = assay_order(case.y_true + case.y_pred)
    assert cm.labels == expected
    yt, yp = case.arrays()
    assert cm.counts.tolist() == confusion_matrix(yt, yp, labels=[case.raw_of[c] for c in expected]).tolist()


def test_confusion_matrix_worked_example() -> None:
    """scikit-learn's ``confusion_matrix`` docstring example, with its labels."""
    y_true = ["cat", "ant", "cat", "cat", "ant", "bird"]
    y_pred = ["ant", "ant", "cat", "cat", "ant", "cat"]
    cm = assay.confusion_counts(y_true, y_pred, labels=["ant", "bird", "cat"])
    assert cm.counts.tolist() == [[2, 0, 0], [0, 0, 1], [1, 0, 2]]


# ----------------------------------------------------------------------------
# 5. input types


def _as(kind: str, values: list[Any]) -> Any:
    if kind == "list":
        return list(values)
    if kind == "numpy":
        return np.asarray(values)
    if kind == "pandas":
        return pd.Series(values)
    return pl.Series(values)


KINDS = ["list", "numpy", "pandas", "polars"]


@settings(max_examples=60)
@given(case=any_case, true_kind=st.sampled_from(KINDS), pred_kind=st.sampled_from(KINDS))
def test_input_types_give_identical_results(case: Case, true_kind: str, pred_kind: str) -> None:
    reference = assay.evaluate(case.y_true, y_pred=case.y_pred, allow_disjoint_labels=True, labels=case.labels, bootstrap=BOOT).to_dict()
    for kind in KINDS:
        same_kind = assay.evaluate(_as(kind, case.y_true), y_pred=_as(kind, case.y_pred), labels=case.labels,
                                   bootstrap=BOOT, allow_disjoint_labels=True).to_dict()
        assert same_kind == reference, kind
    mixed = assay.evaluate(_as(true_kind, case.y_true), y_pred=_as(pred_kind, case.y_pred), labels=case.labels,
                           bootstrap=BOOT, allow_disjoint_labels=True).to_dict()
    assert mixed == reference, (true_kind, pred_kind)
