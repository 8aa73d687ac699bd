"""Every shortcut taken for speed agrees exactly with the plain computation it replaces.

Oracles: numpy's own searchsorted / unique / cumsum, and the un-cached functions.
Exact equality unless stated.
"""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from assay.inputs import encode_labels
from assay.metrics.ranking import ThresholdCounts, auc, auc_from_keys, threshold_counts
from assay.summaries.probabilities import bin_index, uniform_edges
from assay.summaries.scores import ScoreCounts, sort_keys

scores = st.lists(st.sampled_from([-2.5, -1.0, -0.0, 0.0, 1e-300, 0.1, 0.3, 0.30000000000000004, 0.5, 0.7, 1.0,
                                   3.0]) | st.floats(-5, 5, allow_nan=False), min_size=2, max_size=60)


@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=200), st.integers(1, 40))
def test_uniform_bin_index_equals_searchsorted(values, bins):
    v = np.array(values + [0.0, 1.0] + list(uniform_edges(bins)))
    edges = uniform_edges(bins)
    assert np.array_equal(bin_index(v, edges), np.searchsorted(edges[1:-1], v, side="left"))


@given(st.lists(st.integers(-3, 3), min_size=1, max_size=50))
def test_small_integer_labels_equal_unique(values):
    enc = encode_labels({"y": np.array(values)})
    uniques, codes = np.unique(values, return_inverse=True)
    assert enc.labels == tuple(str(u) for u in uniques)
    assert np.array_equal(enc.codes["y"], codes)


@given(scores, st.randoms(use_true_random=False))
def test_cumulative_from_keys_equals_cumsum_of_counts(values, rnd):
    s = np.array(values)
    y = np.array([rnd.random() < 0.4 for _ in values])
    keys = sort_keys(y, s)
    thresholds, tp, fp = keys.cumulative()
    u, inverse = np.unique(s + 0.0, return_inverse=True)
    pos = np.bincount(inverse, weights=y, minlength=len(u))[::-1]
    neg = np.bincount(inverse, weights=~y, minlength=len(u))[::-1]
    assert np.array_equal(thresholds, u[::-1])
    assert np.array_equal(tp, np.cumsum(pos)) and np.array_equal(fp, np.cumsum(neg))
    if y.any() and not y.all():
        assert auc_from_keys(keys) == auc(ScoreCounts.from_arrays(y, s))


@given(scores, st.randoms(use_true_random=False))
def test_cached_threshold_counts_equal_recomputed(values, rnd):
    s = np.array(values)
    y = np.array([rnd.random() < 0.5 for _ in values])
    sc = ScoreCounts.from_arrays(y, s)  # built from keys: carries its cumulative counts
    cached = threshold_counts(sc)
    fresh = ScoreCounts(sc.scores.copy(), sc.positives.copy(), sc.negatives.copy(), sc.labels)
    recomputed = threshold_counts(fresh)
    assert isinstance(cached, ThresholdCounts)
    assert np.array_equal(cached.tp, recomputed.tp) and np.array_equal(cached.fp, recomputed.fp)
    assert cached.n_positive == recomputed.n_positive and cached.n_negative == recomputed.n_negative


def test_class_bits_is_a_bool_view_of_bit_zero():
    y = np.array([True, False, True, True])
    keys = sort_keys(y, np.array([0.4, 0.1, 0.4, 0.9]))
    bits = keys.class_bits(keys.positive_keys)
    assert bits.dtype == bool
    assert bits.tolist() == [False, True, True, True]


@given(st.lists(st.sampled_from([0.0, 0.1, 0.2, 0.25, 0.5, 0.75, 1.0]) | st.floats(0, 1, allow_nan=False),
                max_size=80),
       st.sampled_from([1, 2, 4, 10, 15]), st.booleans(), st.booleans())
def test_binned_sums_of_a_summarys_order_equal_bincount(values, bins, decreasing, quantile_edges):
    """binned_sums (runs of decreasing scores summed by reduceat; else bincount) equals bincount over bin_index,
    to 1e-12 relative (sums of the same terms in another order); counts exactly. Edges on the values, empty bins,
    repeated edges (quantile edges of tied scores) and no scores at all included."""
    from assay.summaries.probabilities import binned_sums

    v = np.array(values, dtype=np.float64)
    if decreasing:
        v = -np.sort(-v)
    edges = uniform_edges(bins)
    if quantile_edges and len(v):
        edges = np.percentile(v, np.linspace(0, 100, bins + 1))
    weights = [np.ones(len(v)), v, np.arange(len(v), dtype=np.float64) % 3]
    got = binned_sums(v, edges, weights)
    where = bin_index(v, edges)
    expected = np.array([np.bincount(where, weights=w, minlength=bins) for w in weights]).reshape(3, bins)
    assert got.shape == (3, bins)
    assert np.array_equal(got[0], expected[0]) and np.array_equal(got[2], expected[2])
    assert np.allclose(got[1], expected[1], rtol=1e-12, atol=1e-15)
