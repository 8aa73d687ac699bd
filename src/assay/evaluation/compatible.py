"""Drop-in namesakes of scikit-learn's ranking functions, exact and fast.

``roc_curve``, ``roc_auc``, ``average_precision`` and ``precision_recall_curve``
take the arguments of ``sklearn.metrics.roc_curve``, ``roc_auc_score``,
``average_precision_score`` and ``precision_recall_curve`` and return the same
numbers (``roc_auc`` and ``average_precision`` also for an (n, k) score matrix), computed from one sort of the scores (``ScoreCounts``) instead of an
argsort. Where scikit-learn warns and returns NaN (a single class in the
truth), these raise ``InvalidInput``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from assay.checks import check_number
from assay.errors import InvalidInput
from assay.evaluation.multiclass_ranking import (
    hand_till,
    one_vs_rest_aucs,
    one_vs_rest_average_precision,
)
from assay.inputs import (
    as_proba,
    as_scores,
    canonical_label,
    encode_labels,
    sorted_labels,
)
from assay.metrics.ranking import (
    ThresholdCounts,
    auc,
    auc_from_keys,
    drop_collinear,
    partial_auc,
    threshold_counts,
    threshold_counts_from_keys,
)
from assay.metrics.ranking import (
    average_precision as _average_precision,
)
from assay.summaries.kernels import compiled
from assay.summaries.scores import ScoreCounts, sort_keys

__all__ = ["roc_curve", "roc_auc", "average_precision", "precision_recall_curve", "binary_scores", "APAverage",
           "AP_AVERAGES"]


def binary_scores(
    y_true: Any, y_score: Any, *, pos_label: Any = None, sample_weight: Any = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, tuple[str, str]]:
    """Validated (is_positive, scores, weights, (negative, positive)) of a two-class problem.
    ``pos_label`` defaults as in scikit-learn: 1 (or True) when the classes are
    {0, 1}, {-1, 1} or {False, True}; otherwise it must be given.
    """
    enc = encode_labels({"y_true": y_true})
    labels = enc.labels
    codes = enc.codes["y_true"]
    scores = as_scores(y_score, "y_score")
    if len(scores) != len(codes):
        raise InvalidInput(f"has {len(scores)} values but y_true has {len(codes)}", field="y_score")
    if len(labels) != 2:
        what = "a single class" if len(labels) == 1 else f"{len(labels)} classes"
        raise InvalidInput(f"has {what} {list(labels)}; two are needed", field="y_true")
    if pos_label is None:
        if set(labels) in ({"0", "1"}, {"-1", "1"}):
            positive = "1"
        elif set(labels) == {"False", "True"}:
            positive = "True"
        else:
            raise InvalidInput(f"the classes are {list(labels)}: say which is positive with pos_label",
                               field="pos_label")
    else:
        positive = canonical_label(pos_label, labels, field="pos_label")
    p = labels.index(positive)
    is_positive = codes == p
    weights = None
    if sample_weight is not None:
        weights = as_scores(sample_weight, "sample_weight").astype(np.float64)
        if len(weights) != len(codes):
            raise InvalidInput(f"has {len(weights)} values but y_true has {len(codes)}", field="sample_weight")
        if (weights < 0).any():
            raise InvalidInput("weights must be >= 0", field="sample_weight", row=int(np.argmax(weights < 0)))
    return is_positive, scores, weights, (labels[1 - p], positive)


def _summary(y_true: Any, y_score: Any, pos_label: Any, sample_weight: Any) -> ScoreCounts:
    is_positive, scores, weights, labels = binary_scores(y_true, y_score, pos_label=pos_label,
                                                         sample_weight=sample_weight)
    return ScoreCounts.from_arrays(is_positive, scores, sample_weight=weights, labels=labels)


def _counts(y_true: Any, y_score: Any, pos_label: Any, sample_weight: Any) -> ThresholdCounts:
    """Confusion counts at every distinct threshold: from the sorted keys when unweighted."""
    if sample_weight is not None:
        return threshold_counts(_summary(y_true, y_score, pos_label, sample_weight))
    is_positive, scores, _, _ = binary_scores(y_true, y_score, pos_label=pos_label)
    return threshold_counts_from_keys(sort_keys(is_positive, scores))


def roc_curve(
    y_true: Any, y_score: Any, *, pos_label: Any = None, sample_weight: Any = None, drop_intermediate: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """FPR, TPR and thresholds of the exact ROC curve, as ``sklearn.metrics.roc_curve``.
    One point per distinct score (positive iff score >= threshold), starting at
    (0, 0) with threshold +inf; with ``drop_intermediate`` the points inside
    straight horizontal or vertical runs are dropped (the curve is unchanged).

    Examples
    --------
    >>> fpr, tpr, thresholds = roc_curve([1, 0, 1, 1, 0], [0.7, 0.4, 0.8, 0.7, 0.3], drop_intermediate=False)
    >>> fpr.tolist(), [round(float(t), 3) for t in tpr], thresholds.tolist()
    ([0.0, 0.0, 0.0, 0.5, 1.0], [0.0, 0.333, 1.0, 1.0, 1.0], [inf, 0.8, 0.7, 0.4, 0.3])
    """
    if sample_weight is None:
        is_positive, scores, _, _ = binary_scores(y_true, y_score, pos_label=pos_label)
        keys = sort_keys(is_positive, scores)
        kernels = compiled(keys.n)
        if kernels is not None:
            return _compiled_roc(kernels, keys, drop_intermediate)
        bits = keys.distinct_bits()
        if bits is not None:  # every score distinct: points straight from the class bits
            tp, fp, thresholds = _distinct_roc(keys, bits, drop_intermediate)
            return _rates(tp, fp, thresholds)
        tc = threshold_counts_from_keys(keys)
    else:
        tc = _counts(y_true, y_score, pos_label, sample_weight)
    tp, fp, thresholds = tc.tp, tc.fp, tc.thresholds
    if drop_intermediate and len(fp) > 2:
        keep = drop_collinear(fp, tp)
        tp, fp, thresholds = tp[keep], fp[keep], thresholds[keep]
    return _rates(tp, fp, thresholds)


def _compiled_roc(kernels: Any, keys: Any, drop_intermediate: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The curve in three compiled passes: count the runs, write each run's counts, keep the turns.
    The counts are written from slot 1 (slot 0 is (0, 0) at +inf) and become rates in place."""
    tp, fp, bits = keys.run_counts(kernels, first=1)
    m = len(tp)
    tp[0] = fp[0] = 0
    bits[0] = 0  # slot 0 is +inf (set below): its bits must not be memory left as it was, which may read as a
    # signalling NaN whose conversion numpy reports as an invalid value (a warning, an error under -W error)
    if drop_intermediate:
        m = kernels.keep_turning(tp, fp, bits, 1)
        if 4 * m < len(tp):  # few points kept: let the long buffers go
            tp, fp, bits = tp[:m].copy(), fp[:m].copy(), bits[:m].copy()
    n_pos, n_neg = tp[m - 1], fp[m - 1]
    tpr, fpr = tp[:m].view(np.float64), fp[:m].view(np.float64)
    np.divide(tp[:m], n_pos, out=tpr)
    np.divide(fp[:m], n_neg, out=fpr)
    thresholds = keys.scores_of_bits(bits[:m])
    thresholds[0] = np.inf
    return fpr, tpr, thresholds


def _distinct_roc(keys: Any, bits: np.ndarray, drop_intermediate: bool) -> tuple[np.ndarray, ...]:
    """ROC points when every score is distinct: one per instance, in decreasing score order.
    A point inside a straight run (the classes of the instances before and after it
    agree) is what scikit-learn's drop_intermediate removes.
    """
    tp = np.cumsum(bits, dtype=np.int64)
    n = len(bits)
    if drop_intermediate and n > 2:
        keep = np.flatnonzero(bits[1:-1] != bits[2:])
        keep += 1
        keep = np.concatenate(([0], keep, [n - 1]))
        tp = tp[keep]
        fp = keep + 1 - tp
        return tp, fp, keys.descending_scores(keep)
    fp = np.arange(1, n + 1) - tp
    return tp, fp, keys.descending_scores()


def _rates(tp: np.ndarray, fp: np.ndarray, thresholds: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    m = len(tp)
    fpr, tpr, out_thresholds = np.empty(m + 1), np.empty(m + 1), np.empty(m + 1)
    fpr[0] = tpr[0] = 0.0
    out_thresholds[0] = np.inf
    np.divide(fp, fp[-1], out=fpr[1:])
    np.divide(tp, tp[-1], out=tpr[1:])
    out_thresholds[1:] = thresholds
    return fpr, tpr, out_thresholds


def roc_auc(
    y_true: Any,
    y_score: Any,
    *,
    average: Literal["macro", "weighted"] = "macro",
    sample_weight: Any = None,
    max_fpr: float | None = None,
    multi_class: Literal["ovr", "ovo"] = "ovr",
    labels: Sequence[Any] | None = None,
    pos_label: Any = None,
) -> float:
    """Area under the ROC curve, as ``sklearn.metrics.roc_auc_score``.
    Two classes: ``y_score`` holds the positive class's scores; the AUC is the
    Mann-Whitney statistic with ties counted one half. With ``max_fpr``, the
    partial AUC up to that FPR standardised as McClish (1989), as scikit-learn.
    More classes: ``y_score`` is (n, k) with columns in ``labels`` order (default:
    sorted classes); ``multi_class="ovr"`` averages one-vs-rest AUCs (``average``
    macro or weighted by prevalence) and ``"ovo"`` gives Hand & Till's M.

    Examples
    --------
    >>> roc_auc([1, 0, 1, 1, 0], [0.2, 0.4, 0.8, 0.7, 0.7])
    0.5833333333333334
    """
    if np.ndim(y_score) == 2 and np.shape(y_score)[1] > 2 or isinstance(y_score, dict):
        return _multiclass_auc(y_true, y_score, labels=labels, multi_class=multi_class, average=average)
    if np.ndim(y_score) == 2 and np.shape(y_score)[1] == 2:
        y_score = np.asarray(y_score)[:, 1]  # the positive class's column, as scikit-learn's predict_proba gives
    if max_fpr is not None:
        max_fpr = check_number(max_fpr, "max_fpr", low=0.0, high=1.0, low_open=True)
    if sample_weight is None and max_fpr is None:
        is_positive, scores, _, _ = binary_scores(y_true, y_score, pos_label=pos_label)
        return auc_from_keys(sort_keys(is_positive, scores))
    sc = _summary(y_true, y_score, pos_label, sample_weight)
    if max_fpr is None or max_fpr == 1:
        return auc(sc)
    tc = threshold_counts(sc)
    fpr = np.concatenate(([0.0], tc.fp / tc.n_negative))
    tpr = np.concatenate(([0.0], tc.tp / tc.n_positive))
    area = partial_auc(fpr, tpr, 0.0, max_fpr)
    min_area = 0.5 * max_fpr**2
    return float(0.5 * (1 + (area - min_area) / (max_fpr - min_area)))


APAverage = Literal["macro", "micro", "weighted"]
AP_AVERAGES: tuple[str | None, ...] = ("macro", "micro", "weighted", None)


def average_precision(y_true: Any, y_score: Any, *, pos_label: Any = None, sample_weight: Any = None,
                      average: APAverage | None = "macro", labels: Sequence[Any] | None = None) -> float | np.ndarray:
    """Average precision, sum of (R_k - R_(k-1)) P_k, as ``sklearn.metrics.average_precision_score``.
    When every score is distinct it is the mean, over the positives, of (rank among
    the positives) / (rank among all instances), ranks counted from the top.

    Parameters
    ----------
    y_true : array-like of shape (n,), or (n, k) of 0/1
        The classes; or, with k > 2 score columns, the binarized truth
        (``sklearn.preprocessing.label_binarize``).
    y_score : array-like of shape (n,), or (n, k), data frame or mapping of class to column
        The positive class's scores; or one score column per class, in ``labels`` order
        (default: the sorted classes of ``y_true``), as ``predict_proba`` gives them.
    average : {"macro", "micro", "weighted"} or None, default "macro"
        With k > 2 columns: each class against the rest (``y_true == c`` scored by
        column c), then their plain mean, the AP of all (instance, class) pairs pooled
        ("micro"), the mean weighted by each class's support, or (None) the k values.
    labels : sequence, optional
        The class of each column of a 2-d ``y_score``. A class absent from ``y_true``
        has no positive, so its AP is 0, counted in the macro mean, as scikit-learn
        gives on ``label_binarize(y_true, classes=labels)`` (with a warning there).
        Without ``labels``, the columns must match the classes present, as in
        scikit-learn.

    Notes
    -----
    Micro: AP of the pooled pairs, which is the AP of the k one-vs-rest summaries
    merged. Weighted: sum_c AP_c s_c / sum_c s_c, s_c the (weighted) count of class c
    (0 when no class has support, as scikit-learn).

    Examples
    --------
    >>> round(average_precision([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]), 4)
    0.8333
    >>> p = [[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.2, 0.7], [0.4, 0.2, 0.4]]
    >>> average_precision(["a", "b", "c", "b"], p, average=None).tolist()
    [1.0, 0.75, 1.0]
    """
    if np.ndim(y_score) == 2 and np.shape(y_score)[1] > 2 or isinstance(y_score, dict) \
            or hasattr(y_score, "columns"):
        return _multiclass_average_precision(y_true, y_score, labels=labels, average=average,
                                             sample_weight=sample_weight)
    if np.ndim(y_score) == 2 and np.shape(y_score)[1] == 2:
        y_score = np.asarray(y_score)[:, 1]  # the positive class's column, as scikit-learn's predict_proba gives
    if sample_weight is None:
        is_positive, scores, _, _ = binary_scores(y_true, y_score, pos_label=pos_label)
        keys = sort_keys(is_positive, scores)
        kernels = compiled(keys.n)
        if kernels is not None:
            total, area, positives_before, instances_before = int(is_positive.sum()), 0.0, 0, 0
            for part, _ in keys.descending_parts():
                area += float(kernels.average_precision(part, total, positives_before, instances_before))
                positives_before += int(np.count_nonzero(keys.class_bits(part)))
                instances_before += len(part)
            return area
        bits = keys.distinct_bits()
        if bits is not None:
            rank = np.flatnonzero(bits)
            rank += 1
            return float((np.arange(1, len(rank) + 1) / rank).sum() / len(rank))
        return _average_precision(threshold_counts_from_keys(keys))
    return _average_precision(_counts(y_true, y_score, pos_label, sample_weight))


def precision_recall_curve(
    y_true: Any, y_score: Any, *, pos_label: Any = None, sample_weight: Any = None, drop_intermediate: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Precision, recall and thresholds, as ``sklearn.metrics.precision_recall_curve``.
    Thresholds increase; precision and recall have one more point, (1, 0), at the end.
    """
    tc = _counts(y_true, y_score, pos_label, sample_weight)
    tp, fp, thresholds = tc.tp, tc.fp, tc.thresholds
    if drop_intermediate and len(fp) > 2:
        keep = np.flatnonzero(np.concatenate(([True], (np.diff(tp[:-1]) != 0) | (np.diff(tp[1:]) != 0), [True])))
        tp, fp, thresholds = tp[keep], fp[keep], thresholds[keep]
    precision = tp / (tp + fp)
    recall = tp / tp[-1]
    return (np.concatenate((precision[::-1], [1.0])), np.concatenate((recall[::-1], [0.0])), thresholds[::-1].copy())


def _multiclass_auc(y_true: Any, y_score: Any, *, labels: Sequence[Any] | None, multi_class: str,
                    average: str) -> float:

    matrix, columns = as_proba(y_score, labels=labels if labels is not None else _default_columns(y_true, y_score))
    enc = encode_labels({"y_true": y_true}, labels=columns)
    if average not in ("macro", "weighted"):
        raise InvalidInput(f"{average!r} is not one of ['macro', 'weighted']", field="average")
    if multi_class == "ovo":
        return hand_till(matrix, enc.codes["y_true"], average=average)
    if multi_class != "ovr":
        raise InvalidInput(f"{multi_class!r} is not one of ['ovr', 'ovo']", field="multi_class")
    aucs, support = one_vs_rest_aucs(matrix, enc.codes["y_true"])
    if average == "macro":
        return float(np.mean(aucs))
    if average == "weighted":
        return float(np.average(aucs, weights=support))
    raise InvalidInput(f"{average!r} is not one of ['macro', 'weighted']", field="average")


def _score_matrix(y_score: Any, labels: Sequence[Any] | None) -> tuple[np.ndarray, list[Any] | None]:
    """(n, k) finite scores and the class of each column (None: not named)."""
    if isinstance(y_score, dict) or hasattr(y_score, "columns"):
        columns = list(y_score.keys()) if isinstance(y_score, dict) else [str(c) for c in y_score.columns]
        arrays = [as_scores(y_score[c], f"y_score[{c!r}]") for c in (y_score if isinstance(y_score, dict)
                                                                       else y_score.columns)]
        if len({len(a) for a in arrays}) > 1:
            raise InvalidInput("the score columns differ in length", field="y_score")
        return np.column_stack(arrays).astype(np.float64), columns
    try:
        matrix = np.asarray(y_score, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidInput("expected an (n, k) array of scores", field="y_score") from None
    bad = ~np.isfinite(matrix)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise InvalidInput(f"{float(matrix[row, col])!r} is not a finite number", field=f"y_score[:, {col}]",
                           row=int(row))
    return matrix, list(labels) if labels is not None else None


def _multiclass_average_precision(y_true: Any, y_score: Any, *, labels: Sequence[Any] | None, average: Any,
                                  sample_weight: Any) -> float | np.ndarray:

    if average not in AP_AVERAGES:
        raise InvalidInput(f"{average!r} is not one of {list(AP_AVERAGES)}", field="average")
    matrix, columns = _score_matrix(y_score, labels)
    n, k = matrix.shape
    if np.ndim(y_true) == 2:  # the binarized truth
        truth = np.asarray(y_true)
        if truth.shape != matrix.shape:
            raise InvalidInput(f"has shape {truth.shape} but y_score has {matrix.shape}", field="y_true")
        if not np.isin(truth, (0, 1)).all():
            raise InvalidInput("a binarized truth holds 0 and 1 only", field="y_true")
        indicator = truth.astype(bool)
    else:
        if columns is None:
            present = list(sorted_labels(encode_labels({"y_true": y_true}).labels))
            if len(present) != k:
                raise InvalidInput(f"has {k} columns but y_true holds {len(present)} classes {present}: name "
                                   "the class of each column with labels=[...] (a class absent from y_true then "
                                   "has average precision 0)", field="y_score")
            columns = present
        elif len(columns) != k:
            raise InvalidInput(f"has {k} columns but {len(columns)} labels were given", field="y_score")
        codes = encode_labels({"y_true": y_true}, labels=columns).codes["y_true"]
        if len(codes) != n:
            raise InvalidInput(f"has {n} rows but y_true has {len(codes)} values", field="y_score")
        indicator = codes[:, None] == np.arange(k)[None, :]
    weights = None
    if sample_weight is not None:
        weights = as_scores(sample_weight, "sample_weight").astype(np.float64)
        if len(weights) != n:
            raise InvalidInput(f"has {len(weights)} values but y_true has {n}", field="sample_weight")
        if (weights < 0).any():
            raise InvalidInput("weights must be >= 0", field="sample_weight", row=int(np.argmax(weights < 0)))
    summaries = [ScoreCounts.from_arrays(indicator[:, j], matrix[:, j], sample_weight=weights) for j in range(k)]
    support = (indicator * (weights[:, None] if weights is not None else 1)).sum(axis=0)
    return one_vs_rest_average_precision(summaries, support, average)


def _default_columns(y_true: Any, y_score: Any) -> list[str] | None:
    if isinstance(y_score, dict) or hasattr(y_score, "columns"):
        return None
    return list(sorted_labels(encode_labels({"y_true": y_true}).labels))
