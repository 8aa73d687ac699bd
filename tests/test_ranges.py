"""A summary beyond its budget kept as its sorted keys (assay.summaries.ranges): every entry, slice and index of
its columns equal the materialised summary's (ScoreCounts.from_arrays), negated and with the classes swapped
too; the temporary file holds the keys alone (4 or 8 bytes a row); each range is counted a bounded number of
times by a report's walks; the report equals the one in memory."""

import json
import os

import numpy as np
import pytest
from helpers import close, cut, kernels_on
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay.evaluation.operating_points import curve_at
from assay.evaluation.stream import evaluate_batches
from assay.metrics.ranking import threshold_counts
from assay.summaries import partition, ranges
from assay.summaries.partition import ScoreScan, batch_keys
from assay.summaries.ranges import RangeColumn
from assay.summaries.scores import ScoreCounts


def _scan(y, s, memory, sizes=(), compiled=True):
    with kernels_on(compiled):
        scan = ScoreScan(memory, threads=2)
        for a, b in cut(len(y), list(sizes)):
            scan.add(batch_keys(y[a:b], s[a:b]))
        return scan.ranges()


def _columns(sc):
    tc = threshold_counts(sc)
    return {"scores": sc.scores, "positives": sc.positives, "negatives": sc.negatives, "tp": tc.tp, "fp": tc.fp}


@st.composite
def data(draw):
    n = draw(st.integers(1, 400))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = rng.random(n) < draw(st.floats(0.0, 1.0))
    kind = draw(st.sampled_from(["ties", "distinct", "both signs", "single"]))
    s = {"ties": lambda: np.round(rng.random(n) + 0.3 * y, 1), "distinct": lambda: rng.random(n) + y,
         "both signs": lambda: np.round(rng.normal(size=n) * 10, 1), "single": lambda: np.full(n, 0.5)}[kind]()
    if draw(st.booleans()):
        s = s.astype(np.float32)
    return y, s, draw(st.lists(st.integers(0, 120), max_size=5))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data(), st.sampled_from([1, 500, 4_000]), st.booleans(), st.booleans(), st.booleans(),
       st.integers(0, 2**32 - 1))
def test_every_entry_slice_and_index_equals_the_materialised_summary(spill_dir, case, memory, negate, swap, compiled,
                                                                      seed):
    y, s, sizes = case
    kept = _scan(y, s, memory, sizes, compiled)
    got = ScoreCounts.of_ranges(kept, ("no", "yes"))
    expected = ScoreCounts.from_arrays(y, np.asarray(s, dtype=np.float64), labels=("no", "yes"))
    if swap:
        got, expected = got.relabelled(("yes", "no"), swap=True), expected.relabelled(("yes", "no"), swap=True)
    if negate:
        got, expected = got.negated(), expected.negated()
    assert isinstance(got.scores, RangeColumn) and got.on_disk and len(got) == len(expected)
    assert (got.n_positive, got.n_negative) == (expected.n_positive, expected.n_negative)
    rng = np.random.default_rng(seed)
    m = len(expected)
    for name, column in _columns(got).items():
        whole = np.asarray(_columns(expected)[name])
        assert column.dtype == whole.dtype and len(column) == m
        assert np.array_equal(np.asarray(column), whole)
        for _ in range(4):
            a, b = sorted(rng.integers(-m - 2, m + 3, 2))
            step = int(rng.choice([1, 1, 2, 3, -1, -2]))
            assert np.array_equal(column[a:b:step], whole[a:b:step])
        index = rng.integers(-m, m, 7)
        assert np.array_equal(column[index], whole[index])
        assert column[int(index[0])] == whole[int(index[0])]
        with pytest.raises(IndexError):
            column[m]
    kept.close()


@pytest.mark.parametrize("dtype, width", [(np.float64, 8), (np.float32, 4)])
def test_the_temporary_file_holds_the_keys_alone(spill_dir, monkeypatch, dtype, width):
    """Every score distinct, keys on disk: the file is one key a row, and the summary has nothing else there."""
    monkeypatch.setattr(partition, "PARTITIONS", 16)
    rng = np.random.default_rng(3)
    n = 50_000
    y = rng.random(n) < 0.3
    s = (rng.random(n) + 0.2 * y).astype(dtype)
    kept = _scan(y, s, 200_000, [5_000] * 9)
    files = [f for f in kept.owners if hasattr(f, "fileno")]
    assert len(files) == 1 and os.fstat(files[0].fileno()).st_size == n * width
    assert len(kept.ranges) > 4
    assert ScoreCounts.of_ranges(kept) == ScoreCounts.from_arrays(y, s.astype(np.float64))
    kept.close()
    del kept, files


def test_a_report_counts_each_range_a_bounded_number_of_times(spill_dir, monkeypatch):
    """The walks of a report read each range in order, chunk after chunk: each counts every range about once,
    whatever the ranges' sizes against a chunk (the small ones are kept until they hold a few chunks)."""
    monkeypatch.setattr(partition, "PARTITIONS", 64)
    counted = []
    real = ranges.RangeSummary._count
    monkeypatch.setattr(ranges.RangeSummary, "_count", lambda self, k: counted.append(k) or real(self, k))
    rng = np.random.default_rng(4)
    n = 300_000
    y = rng.random(n) < 0.2
    s = rng.normal(size=n) + y
    whole = evaluate_batches([(y, s)], threshold=0.5)
    got = evaluate_batches([(y[a:b], s[a:b]) for a, b in cut(n, [30_000] * 9)], memory=2_000_000, threshold=0.5)
    assert any("spilled" in note for note in got.notes)
    a, b = got.to_dict(), whole.to_dict()
    a.pop("notes"), b.pop("notes")
    close(a, b)
    walks = len(counted) / len(set(counted))
    # one walk of every fold, then the reads by index (operating points, thresholds, calibration bins, the drawn
    # points): each range counted about 5 times (about 7 while the best thresholds looked at their best piece
    # again, 18 when each metric walked on its own); a range counted per chunk (or per column) would be hundreds
    assert 4 <= walks <= 9, walks


def test_a_small_tmpfs_holds_the_keys_and_the_report_completes(tmp_path):
    """Where a tmpfs can be mounted (root): 600,000 float64 scores, nearly all distinct, with a 32MB budget and
    TMPDIR on 8 MB: the keys (4.6 MB) fit where the materialised summary (up to 27 MB) would not; the report
    completes and equals the one of the whole file, and nothing is left there."""
    import subprocess
    import sys

    import pyarrow as pa
    import pyarrow.parquet as pq

    spill = tmp_path / "small"
    spill.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(spill)],
                                           capture_output=True, check=False).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        rng = np.random.default_rng(2)
        y = rng.integers(0, 2, 600_000).astype(np.int8)
        pq.write_table(pa.table({"y": y, "p": rng.random(600_000) + 0.1 * y}), tmp_path / "mid.parquet")

        def report(*extra, env=None):
            done = subprocess.run([sys.executable, "-m", "assay", "report", "mid.parquet", "--truth", "y", "--score",
                                   "p", "--threshold", "0.5", "--format", "json", *extra], cwd=tmp_path,
                                  capture_output=True, env=env, timeout=300, check=False)
            assert done.returncode == 0, done.stderr.decode()
            return json.loads(done.stdout)

        spilled = report("--memory", "32MB", env={**os.environ, "TMPDIR": str(spill)})
        whole = report()
        assert any("was spilled" in note for note in spilled["notes"])
        assert spilled["ranking"]["roc_auc"] == whole["ranking"]["roc_auc"]
        assert spilled["ranking"]["best_thresholds"] == whole["ranking"]["best_thresholds"]
        assert os.listdir(spill) == []
    finally:
        subprocess.run(["umount", str(spill)], capture_output=True, check=False)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 300), st.sampled_from([1, 2, 10]),
       st.sampled_from(["specificity", "sensitivity"]))
def test_operating_points_read_off_windows_equal_the_whole_curve(seed, n, spread, given_rate):
    """At given specificities or sensitivities a summary beyond memory is read at a few entries around each
    target (binary searches), not whole: the same values, exact points, thresholds and rates as the whole
    curve, ties, exact hits and the ends (0 and 1) included."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.5
    y[:2] = [True, False]
    s = rng.integers(0, max(2, n // spread), n).astype(np.float64)
    sc = ScoreCounts.from_arrays(y, s)
    tc = threshold_counts(sc)
    rates = (tc.n_negative - tc.fp) / tc.n_negative if given_rate == "specificity" else tc.tp / tc.n_positive
    targets = np.unique(np.concatenate(([0.0, 1.0], rates[rng.integers(0, len(rates), 3)], rng.random(4))))
    whole = curve_at(tc, targets, given_rate)
    windows = curve_at(tc, targets, given_rate, windows=True)
    for a, b in zip(windows, whole):
        assert np.array_equal(a, b, equal_nan=True)
