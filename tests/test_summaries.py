"""The algebra of confusion counts, the mergeable summary behind every label metric.

The laws, checked with hypothesis:

* the summary of a concatenation is the merge of the summaries:
  confusion_counts(a + b) == confusion_counts(a).merge(confusion_counts(b));
* counting in many chunks gives the same result as counting in one pass;
* merge is commutative and associative, and ``empty(labels)`` is its identity;
* merge refuses summaries over other labels, including the same labels in another
  order;
* ``with_labels`` moves every count to its labels' new row and column, fills the new
  classes with zeros, refuses to drop a class and commutes with merge.

Oracle for counting: ``np.add.at`` on a zero k x k table (one increment per pair).
Counts are whole numbers and must match exactly.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import assay
from assay import ConfusionCounts, confusion_counts

POOLS: list[list[Any]] = [
    ["cat", "dog", "emu", "fox"],
    [0, 1, 2, 3],
    [10, 3, -1, 25],
]


def text(labels: list[Any]) -> tuple[str, ...]:
    """assay's label text for the pools above."""
    return tuple(str(v) for v in labels)


@st.composite
def labelled_pairs(draw, min_size: int = 0, max_size: int = 60) -> tuple[list[Any], list[Any], list[Any]]:
    """(labels in a drawn order, y_true, y_pred) over those labels, possibly empty."""
    pool = draw(st.sampled_from(POOLS))
    labels = draw(st.permutations(pool))[: draw(st.integers(2, len(pool)))]
    pairs = draw(st.lists(st.tuples(st.sampled_from(labels), st.sampled_from(labels)),
                          min_size=min_size, max_size=max_size))
    return labels, [t for t, _ in pairs], [p for _, p in pairs]


@st.composite
def count_tables(draw, labels: tuple[str, ...] | None = None) -> ConfusionCounts:
    """A ConfusionCounts with arbitrary whole counts (large ones too)."""
    if labels is None:
        labels = tuple(draw(st.permutations(["a", "b", "c", "d"]))[: draw(st.integers(2, 4))])
    k = len(labels)
    cells = draw(st.lists(st.integers(0, 2**40), min_size=k * k, max_size=k * k))
    return ConfusionCounts(labels, np.array(cells, dtype=np.int64).reshape(k, k))


def add_at(true_codes: np.ndarray, pred_codes: np.ndarray, k: int) -> np.ndarray:
    table = np.zeros((k, k), dtype=np.int64)
    np.add.at(table, (np.asarray(true_codes, dtype=np.intp), np.asarray(pred_codes, dtype=np.intp)), 1)
    return table


# ----------------------------------------------------------------------------
# counting


@given(k=st.integers(1, 6), data=st.data())
def test_from_codes_matches_add_at(k: int, data: st.DataObject) -> None:
    n = data.draw(st.integers(0, 80))
    t = data.draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))
    p = data.draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))
    labels = tuple(f"class {i}" for i in range(k))
    cm = ConfusionCounts.from_codes(np.array(t, dtype=np.intp), np.array(p, dtype=np.intp), labels=labels)
    assert cm.labels == labels
    assert cm.counts.dtype == np.int64
    np.testing.assert_array_equal(cm.counts, add_at(np.array(t), np.array(p), k))
    assert cm.n == n
    np.testing.assert_array_equal(cm.actual_totals, np.bincount(t, minlength=k))
    np.testing.assert_array_equal(cm.predicted_totals, np.bincount(p, minlength=k))
    # plain lists count the same
    assert ConfusionCounts.from_codes(t, p, labels=labels) == cm


@given(case=labelled_pairs())
def test_confusion_counts_matches_add_at(case: tuple[list[Any], list[Any], list[Any]]) -> None:
    labels, t, p = case
    cm = confusion_counts(t, p, labels=labels)
    index = {v: i for i, v in enumerate(labels)}
    assert cm.labels == text(labels)
    np.testing.assert_array_equal(cm.counts, add_at(np.array([index[v] for v in t], dtype=np.intp),
                                                    np.array([index[v] for v in p], dtype=np.intp), len(labels)))


# ----------------------------------------------------------------------------
# the merge law


@given(case=labelled_pairs(), data=st.data())
def test_summary_of_concatenation_is_merge_of_summaries(case: tuple[list[Any], list[Any], list[Any]],
                                                        data: st.DataObject) -> None:
    labels, t, p = case
    cut = data.draw(st.integers(0, len(t)))
    whole = confusion_counts(t, p, labels=labels)
    left = confusion_counts(t[:cut], p[:cut], labels=labels)
    right = confusion_counts(t[cut:], p[cut:], labels=labels)
    assert left.merge(right) == whole
    assert right.merge(left) == whole
    assert left.n + right.n == whole.n == len(t)


@given(case=labelled_pairs(), data=st.data())
def test_chunked_counting_equals_one_shot(case: tuple[list[Any], list[Any], list[Any]], data: st.DataObject) -> None:
    labels, t, p = case
    cuts = sorted(data.draw(st.lists(st.integers(0, len(t)), max_size=12)))
    bounds = [0, *cuts, len(t)]
    as_array = data.draw(st.booleans())  # chunks as numpy arrays or as lists
    chunks = []
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        ct, cp = t[lo:hi], p[lo:hi]
        if as_array and ct:
            ct, cp = np.asarray(ct), np.asarray(cp)
        chunks.append(confusion_counts(ct, cp, labels=labels))
    streamed = functools.reduce(ConfusionCounts.merge, chunks, ConfusionCounts.empty(text(labels)))
    assert streamed == confusion_counts(t, p, labels=labels)


@given(x=count_tables(labels=("a", "b", "c")), y=count_tables(labels=("a", "b", "c")),
       z=count_tables(labels=("a", "b", "c")))
def test_merge_is_commutative_and_associative(x: ConfusionCounts, y: ConfusionCounts, z: ConfusionCounts) -> None:
    assert x.merge(y) == y.merge(x)
    assert x.merge(y).merge(z) == x.merge(y.merge(z))
    np.testing.assert_array_equal(x.merge(y).counts, x.counts + y.counts)


@given(x=count_tables())
def test_empty_is_the_identity(x: ConfusionCounts) -> None:
    e = ConfusionCounts.empty(x.labels)
    assert e.n == 0 and e.labels == x.labels and e.counts.shape == x.counts.shape
    assert x.merge(e) == x
    assert e.merge(x) == x
    assert e.merge(e) == e


@given(labels=st.permutations(["cat", "dog", "emu"]))
def test_empty_data_counts_to_empty(labels: list[str]) -> None:
    assert confusion_counts([], [], labels=labels) == ConfusionCounts.empty(labels)


@given(x=count_tables(), data=st.data())
def test_merge_refuses_other_labels(x: ConfusionCounts, data: st.DataObject) -> None:
    others = [
        tuple(reversed(x.labels)),  # the same classes in another order
        (*x.labels, "zz"),  # one more class
        x.labels[:-1] if len(x.labels) > 2 else ("p", "q"),  # one fewer
        tuple(f"{v}!" for v in x.labels),  # other names
    ]
    for labels in others:
        y = data.draw(count_tables(labels=labels))
        with pytest.raises(ValueError, match="cannot merge"):
            x.merge(y)
        with pytest.raises(ValueError, match="cannot merge"):
            y.merge(x)


def test_merge_does_not_change_its_operands() -> None:
    x = ConfusionCounts(("a", "b"), np.array([[1, 2], [3, 4]]))
    y = ConfusionCounts(("a", "b"), np.array([[5, 6], [7, 8]]))
    assert x.merge(y).counts.tolist() == [[6, 8], [10, 12]]
    assert x.counts.tolist() == [[1, 2], [3, 4]] and y.counts.tolist() == [[5, 6], [7, 8]]
    with pytest.raises(ValueError):
        x.counts[0, 0] = 99  # read-only: a summary cannot be changed in place


# ----------------------------------------------------------------------------
# with_labels


@st.composite
def supersets(draw, labels: tuple[str, ...]) -> tuple[str, ...]:
    extra = draw(st.lists(st.sampled_from(["new1", "new2", "new3"]), unique=True))
    return tuple(draw(st.permutations([*labels, *extra])))


@given(x=count_tables(), data=st.data())
def test_with_labels_reorders_and_expands(x: ConfusionCounts, data: st.DataObject) -> None:
    wider = data.draw(supersets(x.labels))
    y = x.with_labels(wider)
    assert y.labels == wider
    assert y.n == x.n
    for i, a in enumerate(x.labels):
        for j, b in enumerate(x.labels):
            assert y.counts[wider.index(a), wider.index(b)] == x.counts[i, j]
    for new in set(wider) - set(x.labels):
        m = wider.index(new)
        assert y.counts[m].sum() == 0 and y.counts[:, m].sum() == 0
    # back to the original order: nothing lost
    if set(wider) == set(x.labels):
        assert y.with_labels(x.labels) == x
    assert x.with_labels(x.labels) == x


@given(x=count_tables(), data=st.data())
def test_with_labels_refuses_to_drop_a_class(x: ConfusionCounts, data: st.DataObject) -> None:
    dropped = data.draw(st.sampled_from(x.labels))
    kept = [v for v in x.labels if v != dropped] + ["new1"]
    with pytest.raises(ValueError, match="dropped"):
        x.with_labels(kept)


@given(case=labelled_pairs(), data=st.data())
def test_with_labels_commutes_with_merge(case: tuple[list[Any], list[Any], list[Any]], data: st.DataObject) -> None:
    """Align then merge == merge then align; and counting over a superset == counting then aligning."""
    labels, t, p = case
    cut = data.draw(st.integers(0, len(t)))
    wider = data.draw(supersets(text(labels)))
    left = confusion_counts(t[:cut], p[:cut], labels=labels)
    right = confusion_counts(t[cut:], p[cut:], labels=labels)
    assert left.with_labels(wider).merge(right.with_labels(wider)) == left.merge(right).with_labels(wider)
    if t:
        seen = confusion_counts(t, p)  # only the classes seen, sorted
        declared = [*labels, *(v for v in wider if v not in text(labels))]
        aligned = seen.with_labels(text(declared))
        assert aligned == confusion_counts(t, p, labels=declared)


@given(case=labelled_pairs(min_size=1), data=st.data())
def test_parts_seen_with_different_classes_merge_after_alignment(
    case: tuple[list[Any], list[Any], list[Any]], data: st.DataObject
) -> None:
    """Two chunks, each summarised over the classes it saw, aligned to the union: the whole."""
    labels, t, p = case
    cut = data.draw(st.integers(1, len(t)))
    whole = confusion_counts(t, p, labels=labels)
    parts = [confusion_counts(t[:cut], p[:cut])]
    if cut < len(t):
        parts.append(confusion_counts(t[cut:], p[cut:]))
    aligned = [part.with_labels(text(labels)) for part in parts]
    assert functools.reduce(ConfusionCounts.merge, aligned) == whole


# ----------------------------------------------------------------------------
# construction and equality


def test_construction_validates_shape_and_labels() -> None:
    with pytest.raises(ValueError, match="shape"):
        ConfusionCounts(("a", "b"), np.zeros((3, 3)))
    with pytest.raises(ValueError, match="repeat"):
        ConfusionCounts(("a", "a"), np.zeros((2, 2)))


@given(x=count_tables())
def test_equality_and_hash_follow_labels_and_counts(x: ConfusionCounts) -> None:
    copy = ConfusionCounts(list(x.labels), x.counts.copy())
    assert copy == x and hash(copy) == hash(x)
    bumped = x.counts.copy()
    bumped[0, 0] += 1
    assert ConfusionCounts(x.labels, bumped) != x
    assert x != "not a summary" and x != x.counts.tolist()
    assert isinstance(x, assay.ConfusionCounts)
