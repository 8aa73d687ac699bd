"""The count of streamed keys by ranges of scores (assay.summaries.partition) against the count of all the
instances at once (``ScoreCounts.from_arrays``): equal exactly, in memory, on disk, partitioned twice and
merged, for ties, every score distinct, scores of both signs, -0.0, a single score, float32 and float64
batches mixed, empty batches and batches of one class; compiled and numpy passes alike."""


import numpy as np
from helpers import cut, kernels_on
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay.metrics import ranking as metrics
from assay.summaries import partition
from assay.summaries.partition import (
    Keys,
    ScoreScan,
    Splitters,
    batch_keys,
    decode_keys,
)
from assay.summaries.scores import ScoreCounts


@st.composite
def streams(draw):
    n = draw(st.integers(1, 600))
    kind = draw(st.sampled_from(["ties", "distinct", "both signs", "zeros", "single", "probabilities", "adjacent"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = rng.random(n) < draw(st.floats(0.0, 1.0))
    if kind == "ties":
        s = np.round(rng.random(n) + 0.3 * y, 1)
    elif kind == "distinct":
        s = rng.random(n) * 10 + 2 * y
    elif kind == "both signs":
        s = np.round(rng.normal(size=n) * 1e3 + y, 1)
    elif kind == "zeros":
        s = rng.choice([0.0, -0.0, 1.0, -1.0, 5e-324, -5e-324], n)
    elif kind == "single":
        s = np.full(n, -0.25)
    elif kind == "adjacent":  # a few dozen neighbouring float32 values: their keys are counted in place, unsorted
        s = 0.25 + rng.integers(0, 40, n) * 2.0**-25 + 2.0**-25 * y
    else:
        s = np.clip(rng.beta(2, 5, n) + 0.2 * y, 0, 1)
    dtypes = draw(st.sampled_from(["float64", "float32", "mixed"]))
    if dtypes == "float32":
        s = s.astype(np.float32)
    elif dtypes == "mixed":  # float32 values; some batches handed over as float64
        s = s.astype(np.float32).astype(np.float64)
    if draw(st.booleans()):  # one class first, then the other
        order = np.argsort(y, kind="stable")
        y, s = y[order], s[order]
    sizes = draw(st.lists(st.integers(0, 150), max_size=8))
    batches = []
    for i, (a, b) in enumerate(cut(n, sizes)):
        part = s[a:b]
        if dtypes == "mixed" and i % 2:
            part = part.astype(np.float32)
        batches.append((y[a:b], part))
    return y, s, batches


def scanned(batches, memory, threads=2, compiled=True, scattered=False):
    """The scan's summary; ``scattered``: each batch's keys scattered into the ranges before they are added,
    as the threads keying batches do once the ranges are drawn (only where the kernels are compiled)."""
    with kernels_on(compiled):
        scan = ScoreScan(memory, threads=threads)
        for y, s in batches:
            keys = batch_keys(y, s, scan.kernels)
            scan.add(scan.scattered(keys) if scattered else keys)
        return scan.result(("no", "yes"))


def equal_to_all(got, y, s):
    expected = ScoreCounts.from_arrays(y, np.asarray(s, dtype=np.float64), labels=("no", "yes"))
    assert got == expected
    assert got.positives.dtype == np.int64 and got.negatives.dtype == np.int64
    tc = metrics.threshold_counts(got)
    assert np.array_equal(tc.tp, np.cumsum(expected.positives)) and np.array_equal(tc.fp, np.cumsum(expected.negatives))
    assert (tc.n_positive, tc.n_negative) == (int(y.sum()), int((~y).sum()))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(streams(), st.sampled_from([None, 1, 200, 5_000, 10**8]), st.booleans(), st.booleans())
def test_the_scan_equals_the_count_of_all_instances(spill_dir, case, memory, compiled, scattered):
    y, s, batches = case
    got = scanned(batches, memory, compiled=compiled, scattered=scattered)
    equal_to_all(got, y, s)
    # a summary that could take more than a quarter of the budget is on disk
    assert got.on_disk == (memory is not None and len(y) * 40 > memory // 4 and len(got) > 0)
    del got


def test_ranges_too_large_are_partitioned_again_or_merged(spill_dir, monkeypatch):
    rng = np.random.default_rng(5)
    n = 20_000
    y = rng.random(n) < 0.4
    # a third of the rows hold one score: its range cannot be split, and is counted a part at a time
    s = np.where(rng.random(n) < 0.33, 0.5, np.round(rng.random(n), 3))
    monkeypatch.setattr(partition, "PARTITIONS", 4)  # few ranges, each far past a thread's share
    real = ScoreScan._ranges_of_large
    for compiled in (True, False):
        calls = []
        monkeypatch.setattr(ScoreScan, "_ranges_of_large",
                            lambda self, segments, owners: (calls.append(self.depth), real(self, segments, owners))[1])
        batches = [(y[a:b], s[a:b]) for a, b in cut(n, [1000] * 19)]
        got = scanned(batches, 20_000, compiled=compiled)  # held: 416 rows; a range: 208
        equal_to_all(got, y, s)
        assert 0 in calls and 1 in calls  # partitioned again, then merged
        del got


def test_keys_order_as_the_scores_and_decode_back():
    values = np.array([-np.inf, -1e300, -1.5, -5e-324, -0.0, 0.0, 5e-324, 1e-300, 0.5, 1.0, 3e38, np.inf])
    for compiled in (True, False):
        with kernels_on(compiled):
            from assay.summaries.kernels import compiled as loaded

            for dtype in (np.float32, np.float64):
                with np.errstate(over="ignore"):  # +-1e300 are +-inf in float32
                    s = values.astype(dtype)
                keys = batch_keys(np.ones(len(s), bool), s, loaded(1 << 62)).positive
                assert keys.dtype == (np.uint32 if dtype == np.float32 else np.uint64)
                assert np.all(keys[1:] >= keys[:-1]) and keys[4] == keys[5]  # -0.0 is 0.0
                assert np.array_equal(decode_keys(keys), np.where(s == 0, 0.0, s).astype(np.float64))


def test_the_splitters_table_finds_each_range():
    rng = np.random.default_rng(2)
    for dtype, scores in ((np.float32, rng.beta(2, 5, 50_000).astype(np.float32)),
                          (np.float64, rng.normal(size=50_000) * 10)):
        keys = batch_keys(np.ones(len(scores), bool), scores).positive
        splitters = Splitters.of(np.unique(np.sort(keys)[::997]))
        for compiled in (True, False):
            with kernels_on(compiled):
                out, offsets = partition._scattered(keys, splitters, partition.compiled(1 << 62))
            bucket = np.searchsorted(splitters.keys, keys, side="right")
            assert np.array_equal(offsets, np.concatenate(([0], np.cumsum(np.bincount(bucket, minlength=len(splitters) + 1)))))
            assert np.array_equal(out, keys[np.argsort(bucket, kind="stable")])


def test_an_interrupted_scan_leaves_no_file(spill_dir):
    scan = ScoreScan(64)
    rng = np.random.default_rng(1)
    for _ in range(5):
        scan.add(batch_keys(rng.random(100) < 0.5, rng.random(100)))
    assert scan.file is not None
    pieces = scan.pieces()
    next(pieces)
    pieces.close()  # as when Ctrl-C stops the walk: the file is still the scan's, then closed
    scan.close()
    assert scan.file is None


def test_keys_swapped_exchange_the_classes():
    k = Keys(np.array([1], np.uint32), np.array([2, 3], np.uint32))
    assert k.n == 3 and k.swapped().positive.tolist() == [2, 3]


def test_batches_scattered_before_they_are_added_and_ranges_kept_as_counts(spill_dir, monkeypatch):
    """Once the ranges are drawn, batches scattered into them on the keying threads are gathered range by range;
    a range of few distinct scores is written back as its counts (read without counting again), one of many
    as its sorted keys: the summary equals the count of all instances either way."""
    rng = np.random.default_rng(11)
    n = 30_000
    y = rng.random(n) < 0.3
    s = np.where(rng.random(n) < 0.5, np.round(rng.random(n), 2), rng.random(n)).astype(np.float32)  # half tied
    kept, gathered = [], []
    runs, append = partition._runs_range, partition._appended
    monkeypatch.setattr(partition, "_runs_range", lambda *a: (kept.append(len(a[2])), runs(*a))[1])
    monkeypatch.setattr(partition, "_appended", lambda f, pieces, at: (gathered.append(len(pieces)), append(f, pieces, at))[1])
    batches = [(y[a:b], s[a:b]) for a, b in cut(n, [700] * 42)]
    with kernels_on(True):
        scan = ScoreScan(48 * 4_000, threads=2)  # held: 4,000 rows, then 1,000 between writes
        for i, (yy, ss) in enumerate(batches):
            keys = batch_keys(yy, ss, scan.kernels)
            scan.add(scan.scattered(keys) if i % 3 else keys)  # some batches scattered, some not
        got = scan.result(("no", "yes"))
        equal_to_all(got, y, s)
        del got
    assert max(gathered) > 1  # a write took several scattered batches, range by range
    assert kept  # some ranges kept as counts...
    assert sum(kept) < len(np.unique(s))  # ...not all: the ranges of distinct scores stay keys
    # neighbouring float32 scores: each range's keys counted in place of sorting, kept as counts or as keys
    dense = []
    count = partition._dense_count
    def counted(*a):
        result = count(*a)
        dense.append(result is not None)
        return result

    monkeypatch.setattr(partition, "_dense_count", counted)
    for width in (30, 40_000):  # 30 values among 30,000 rows: kept as counts; 40,000: as keys, counted unsorted
        s = (0.25 + rng.integers(0, width, n) * 2.0**-25).astype(np.float32)
        kept.clear()
        dense.clear()
        equal_to_all(scanned([(y[a:b], s[a:b]) for a, b in cut(n, [700] * 42)], 48 * 4_000), y, s)
        assert any(dense)
        assert bool(kept) == (width == 30)
