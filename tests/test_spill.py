"""Summaries larger than the memory budget: spilled to disk as sorted runs, merged from disk, and walked a
chunk at a time; every number equals the in-memory one (counts exactly, areas to 1e-12)."""

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import close as _close
from helpers import cut, same_hierarchy
from hypothesis import given, settings
from hypothesis import strategies as st

import assay
from assay import InvalidInput
from assay.cli import main
from assay.evaluation.probabilistic import _instances
from assay.evaluation.stream import evaluate_batches
from assay.metrics import ranking as metrics
from assay.metrics.roc_space import roc_hull
from assay.summaries import disk, spill
from assay.summaries.scores import ScoreCounts
from assay.summaries.spill import MergeTree, Run, merge_runs


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of 7 curve points, so that small data cross many chunk boundaries."""
    monkeypatch.setattr(disk, "CHUNK", 7)
    monkeypatch.setattr(spill, "CHUNK", 7)
    monkeypatch.setattr(metrics, "POINT_CHUNK", 7)



def close(a, b, where=""):
    """Equal; floats to 1e-12: chunked sums are taken in another order."""
    _close(a, b, where, rel=1e-12)


def without_spill_note(d):
    d = dict(d)
    assert any("was spilled" in note for note in d["notes"])
    d["notes"] = [note for note in d["notes"] if "spilled" not in note]
    return d


@st.composite
def scored(draw):
    n = draw(st.integers(6, 400))
    kind = draw(st.sampled_from(["ties", "distinct", "negative", "single", "probabilities"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = rng.random(n) < draw(st.floats(0.1, 0.9))
    y[0], y[1] = True, False
    if kind == "ties":
        s = np.round(rng.random(n) + 0.3 * y, 1)
    elif kind == "distinct":
        s = rng.random(n) * 10 + 2 * y
    elif kind == "negative":
        s = np.round(rng.normal(size=n) + y, 2)
    elif kind == "single":
        s = np.full(n, 0.5)
    else:
        s = np.clip(np.round(rng.beta(2, 2, n) * 0.7 + 0.3 * y, 2), 0, 1)
    sizes = draw(st.lists(st.integers(0, 90), max_size=7))
    one_class_part = draw(st.booleans())
    if one_class_part:  # a part holding negatives only, at the front
        order = np.argsort(y, kind="stable")
        y, s = y[order], s[order]
    return np.where(y, "yes", "no"), s, sizes


@settings(max_examples=40, deadline=None)
@given(scored())
def test_spilled_scores_equal_the_whole(case):
    y, s, sizes = case
    threshold = float(np.median(s))
    options = {"threshold": threshold, "bootstrap": 200, "fpr_range": (0.05, 0.4), "lift_depth": 0.2}
    whole = assay.evaluate(y, y_score=s, **options).to_dict()
    parts = [(y[a:b], s[a:b]) for a, b in cut(len(y), sizes)]
    spilled = evaluate_batches(parts, memory=1, **options)
    assert spilled.ranking.summary.on_disk or len(parts) == 1 and len(spilled.ranking.summary) == 0
    got = without_spill_note(spilled.to_dict())
    whole.pop("input"), got.pop("input")
    same_hierarchy(got, whole)
    close(got, whole)


def test_walks_in_small_chunks_equal_the_walks_in_memory(small_chunks, spill_dir):
    rng = np.random.default_rng(3)
    y = rng.random(500) < 0.3
    s = np.round(rng.normal(size=500) + y, 1)  # heavy ties, both signs
    memory = ScoreCounts.from_arrays(y, s, labels=("no", "yes"))
    disk = merge_runs([Run(memory.relabelled(memory.labels))], memory.labels, memory=1)
    assert disk.on_disk and not memory.on_disk and disk == memory
    tm, td = metrics.threshold_counts(memory), metrics.threshold_counts(disk)
    assert np.array_equal(roc_hull(disk.positives, disk.negatives, tp=td.tp, fp=td.fp),
                          roc_hull(memory.positives, memory.negatives))
    for low, high in ((0, 1), (0.1, 0.35), (0.2, 0.2000001)):
        fpr, tpr, _ = metrics.roc_points(tm)
        assert metrics.partial_auc_of(td, low, high) == pytest.approx(metrics.partial_auc(fpr, tpr, low, high),
                                                                      abs=1e-13)
    assert metrics.pr_areas(td) == pytest.approx(metrics.pr_areas(tm), abs=1e-13)
    for depth in (0.001, 0.1, 0.5, 1.0):
        assert metrics.gains_at(td, depth) == metrics.gains_at(tm, depth)
    at = np.array([np.inf, 3.0, 0.5, 0.0, -0.05, -10.0, -np.inf] + list(np.unique(s)))
    for a, b in zip(metrics.counts_at(td, at), metrics.counts_at(tm, at)):
        assert np.array_equal(a, b)
    pieces = list(_instances(disk, 13))  # the instances regenerated for the losses, 13 at a time
    assert all(len(scores) <= 13 for scores, _ in pieces)
    scores = np.concatenate([p[0] for p in pieces])
    codes = np.concatenate([p[1] for p in pieces])
    assert np.array_equal(np.sort(scores[codes == 1]), np.sort(s[y])) and (codes == 0).sum() == (~y).sum()
    del disk, td


def test_the_merge_of_runs_crosses_chunks_and_ties_between_runs(spill_dir):
    rng = np.random.default_rng(8)
    pieces = []
    for i in range(4):  # runs sharing many scores, each longer than one chunk of the merge (4096)
        n = 12_000 + 1000 * i
        pieces.append(ScoreCounts.from_arrays(rng.random(n) < 0.5, np.round(rng.random(n), 4)))
    expected = pieces[0].merge(pieces[1]).merge(pieces[2]).merge(pieces[3])
    merged = merge_runs([Run(p) for p in pieces], pieces[0].labels, memory=1)
    assert merged == expected
    tc = metrics.threshold_counts(merged)
    assert np.array_equal(tc.tp, np.cumsum(expected.positives)) and np.array_equal(tc.fp, np.cumsum(expected.negatives))


def test_the_tree_spills_only_past_its_budget(spill_dir):
    parts = [ScoreCounts.from_arrays([True, False, True], [0.1 * i, 0.2, 0.3]) for i in range(10)]
    roomy, tight = MergeTree(memory=10**9), MergeTree(memory=500)
    for p in parts:
        roomy.add(p)
        tight.add(p)
    assert not roomy.spilled and tight.spilled
    a, b = roomy.result(), tight.result()
    assert a == b and b.on_disk and not a.on_disk


def test_no_file_is_left_after_an_interrupted_scan(spill_dir):
    def batches():
        rng = np.random.default_rng(1)
        for i in range(20):
            yield rng.random(1000) < 0.5, rng.random(1000)
            if i == 10:
                raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        evaluate_batches(batches(), memory=1)
    # spill_dir checks that the directory is empty: the runs were unlinked as they were made


def test_the_bootstrap_auc_interval_needs_the_summary_in_memory(spill_dir):
    parts = [([1, 0, 1, 0], [0.9, 0.2, 0.6, 0.4]), ([0, 1], [0.3, 0.8])]
    with pytest.raises(InvalidInput, match="spilled to disk"):
        evaluate_batches(parts, memory=1, auc_interval="bootstrap")


@pytest.fixture
def parts(tmp_path):
    rng = np.random.default_rng(11)
    directory = tmp_path / "preds"
    directory.mkdir()
    ys, ss = [], []
    for i in range(3):
        y = np.where(rng.random(500) < 0.4, "pos", "neg")
        s = np.round(rng.beta(2, 3, 500) * 0.8 + 0.2 * (y == "pos"), 3)
        pq.write_table(pa.table({"y": y, "p": s}), directory / f"part-{i}.parquet")
        ys.append(y)
        ss.append(s)
    whole = tmp_path / "all.parquet"
    pq.write_table(pa.table({"y": np.concatenate(ys), "p": np.concatenate(ss)}), whole)
    return directory, whole


def _run(argv, capsys):
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_spilled_report_equals_the_whole_file(parts, capsys, spill_dir):
    directory, whole = parts
    common = ["--truth", "y", "--score", "p", "--threshold", "0.5", "--bootstrap", "200", "--format", "json"]
    status, out, err = _run(["report", str(whole), *common], capsys)
    assert status == 0, err
    reference = json.loads(out)
    status, out, err = _run(["report", str(directory), *common, "--memory", "1KB"], capsys)
    assert status == 0, err
    spilled = without_spill_note(json.loads(out))
    for key in ("input", "source"):
        spilled.pop(key, None), reference.pop(key, None)
    same_hierarchy(spilled, reference)
    close(spilled["probabilistic"], reference["probabilistic"])
    spilled.pop("probabilistic"), reference.pop("probabilistic")
    assert spilled == reference


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_cli_curves_of_a_spilled_summary_are_written_a_chunk_at_a_time(parts, capsys, spill_dir, monkeypatch, fmt):
    from assay.evaluation import ranking as ranking_module

    chunks = []
    real = ranking_module.RankingAnalysis.curve_chunks
    monkeypatch.setattr(ranking_module.RankingAnalysis, "curve_chunks",
                        lambda self, kind, chunk=7: (chunks.append(kind), real(self, kind, chunk))[1])
    directory, whole = parts
    common = ["--truth", "y", "--score", "p", "--format", fmt]
    for kind in ("roc", "pr", "lift", "thresholds", "hull"):
        status, streamed, err = _run(["curves", str(directory), *common, "--memory", "1KB", "--kind", kind], capsys)
        assert status == 0, err
        status, reference, err = _run(["curves", str(whole), *common, "--kind", kind], capsys)
        assert streamed == reference, kind
    assert set(chunks) == {"roc", "pr", "lift", "thresholds"}
    target = directory.parent / f"roc.{fmt}"  # to a file: written atomically, piece after piece
    status, out, err = _run(["curves", str(directory), *common, "--memory", "1KB", "-o", str(target)], capsys)
    assert status == 0 and out == "", err
    assert target.read_text() == _run(["curves", str(whole), *common], capsys)[1]


def test_cli_pictures_of_a_spilled_summary(parts, capsys, spill_dir, tmp_path):
    directory, _ = parts
    page, plots = tmp_path / "r.html", tmp_path / "plots"
    status, out, err = _run(["report", str(directory), "--truth", "y", "--score", "p", "--memory", "1KB", "--html",
                             str(page), "--plots", str(plots), "--format", "json"], capsys)
    assert status == 0, err
    assert page.exists() and (plots / "roc.svg").exists() and (plots / "pr.svg").exists()
    assert f"{json.loads(out)['ranking']['roc_hull']['fpr'].__len__()}" and "distinct" in page.read_text()


def test_a_drawable_copy_keeps_exact_points_the_hull_and_the_chosen_thresholds(spill_dir):
    rng = np.random.default_rng(12)
    y = rng.random(3000) < 0.4
    s = np.round(rng.normal(size=3000) + y, 3)
    parts = [(y[i:i + 500], s[i:i + 500]) for i in range(0, 3000, 500)]
    spilled = evaluate_batches(parts, memory=1, threshold=0.3).ranking
    exact = assay.evaluate(y, y_score=s, threshold=0.3).ranking
    assert spilled.summary.on_disk
    drawn = spilled.drawable(points=40)
    assert not drawn.summary.on_disk and len(drawn.summary) < len(spilled.summary) and drawn.distinct == len(exact.summary)
    # every point kept is a point of the exact curve, at its own threshold
    table, reference = drawn.threshold_table(), exact.threshold_table(drawn.summary.scores)
    for column in ("tp", "fp", "fn", "tn"):
        assert np.array_equal(table[column], reference[column])
    for column in ("fpr", "tpr", "threshold"):
        assert np.array_equal(drawn.hull()[column], exact.hull()[column])
    for choice in (*exact.best.values(), exact.operating_point):
        assert choice.threshold in set(drawn.summary.scores.tolist())
    assert drawn.to_dict()["roc_auc"] == exact.to_dict()["roc_auc"]
    assert exact.drawable() is exact  # in memory: nothing to thin
    del spilled, drawn


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([None, 0.01]), st.integers(1, 12))
def test_the_probability_summary_from_counts_equals_the_one_from_instances(seed, clip, bins):
    """Losses and calibration bins from the distinct scores weighted by their counts (what a summary on disk
    gives) against the instances themselves: counts exactly, sums to 1e-9; with exact 0 and 1 scores."""
    from assay.summaries.probabilities import ProbabilitySummary, TwoClassScores

    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 300))
    s = rng.choice(np.array([0.0, 1.0, 0.5, 0.25, 0.1, 0.9, *rng.random(5)]), n)
    y = rng.random(n) < 0.4
    sc = ScoreCounts.from_arrays(y, s, labels=("neg", "pos"))
    got = ProbabilitySummary.from_score_counts(sc.scores, sc.positives, sc.negatives, labels=sc.labels, clip=clip,
                                               bins=bins)
    want = ProbabilitySummary.from_codes(y.astype(np.intp), TwoClassScores(s, 1), labels=sc.labels, clip=clip,
                                         bins=bins, calibration_class=1)
    for name in ("quadratic", "absolute", "information", "log_loss"):
        a, b = getattr(got, name), getattr(want, name)
        assert np.array_equal(a.count, b.count), name
        assert np.allclose(a.total, b.total, rtol=1e-9, atol=1e-9) and np.allclose(a.m2, b.m2, rtol=1e-9, atol=1e-9)
    for name in ("zero_probability", "clipped", "log_loss_clipped"):
        assert getattr(got, name) == getattr(want, name), name
    assert np.array_equal(got.bin_count, want.bin_count) and np.array_equal(got.bin_observed, want.bin_observed)
    assert np.allclose(got.bin_predicted, want.bin_predicted, rtol=1e-12, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 15))
def test_quantile_bins_from_counts_equal_the_ones_from_instances(seed, bins):
    """The quantile reliability table from the distinct scores (binary searches for the order statistics)
    equals np.percentile's on the instances: edges exactly, counts exactly, sums to 1e-12."""
    from assay.evaluation.probabilistic import (
        quantile_calibration_table,
        quantile_table_of_counts,
    )
    from assay.summaries.probabilities import TwoClassScores

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    s = rng.choice(np.round(rng.random(int(rng.integers(1, 30))), 3), n)
    y = rng.random(n) < 0.5
    sc = ScoreCounts.from_arrays(y, s, labels=("no", "yes"))
    got = quantile_table_of_counts(sc, bins=bins).to_dict()
    want = quantile_calibration_table(y.astype(np.intp), TwoClassScores(s, 1), labels=("no", "yes"),
                                      calibration_class=1, bins=bins).to_dict()
    close(got, want)
