"""Models compared on the same rows read in batches (assay.compare_batches, compare_file, `assay compare DIR`)
equal the in-memory comparison: random data with ties, string labels, two and three models, thresholds,
directions, any batch cuts, summaries in memory and spilled. Floats to 1e-9 relative (sums taken in another
order); counts, verdicts and the bootstrap's replicates exactly."""

import gc
import json
import os
import tempfile
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import assay
from assay.cli import main
from assay.errors import InvalidInput
from assay.evaluation import paired
from assay.evaluation.paired import compare_batches
from assay.inference.roc_compare import delong_test
from assay.metrics.ranking import threshold_counts
from assay.summaries.kernels import compiled
from assay.summaries.partition import ScoreScan, batch_keys
from assay.summaries.scores import ScoreCounts
from assay.summaries import placements
from helpers import close, cut, kernels_on


def _data(seed, n, m, ties, labels=("no", "yes")):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2], y[2:4] = 0, 1  # both classes, two of each
    scores = [rng.normal(size=n) + (0.3 + 0.4 * j) * y for j in range(m)]
    if ties:
        scores = [np.round(s, 1) for s in scores]
    truth = np.array(labels)[y]
    return truth, scores


def _batches(truth, columns, sizes):
    return [(f"part{k}", 1, truth[a:b], [c[a:b] for c in columns]) for k, (a, b) in enumerate(cut(len(truth), sizes))]


def _agree(in_memory, in_batches):
    """Both refuse the data (a single class: each says so in its words), or give the same comparison."""
    try:
        whole = in_memory()
    except InvalidInput as e:
        assert "class" in e.problem
        with pytest.raises(InvalidInput, match="class"):
            in_batches()
        return
    _same(in_batches(), whole)


def _same(streamed, whole):
    close(streamed.to_dict(), whole.to_dict())
    for name in streamed.tests:
        test = streamed.tests[name]
        if hasattr(test, "replicates"):
            assert np.array_equal(test.replicates, whole.tests[name].replicates, equal_nan=True)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(8, 300), m=st.sampled_from([2, 3]), ties=st.booleans(),
       threshold=st.sampled_from([None, 0.0, "youden"]), direction=st.sampled_from(["higher", "lower", "auto"]),
       sizes=st.lists(st.integers(0, 120), max_size=4), memory=st.sampled_from([None, 1]),
       rows=st.sampled_from([None, 1, 7]))
def test_scores_in_batches_equal_the_whole(seed, n, m, ties, threshold, direction, sizes, memory, rows):
    truth, scores = _data(seed, n, m, ties)
    names = [f"m{j}" for j in range(m)]
    options = {"threshold": threshold, "direction": direction, "bootstrap": 200}
    buckets = placements.BUCKET_ROWS if rows is None else (rows, rows)  # one bucket, or many
    with mock.patch.object(placements, "BUCKET_ROWS", buckets):
        _agree(lambda: assay.compare(truth, *({"y_score": s} for s in scores), names=names, **options),
               lambda: compare_batches(_batches(truth, scores, sizes), names=names, memory=memory, **options))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 300), m=st.sampled_from([2, 3, 4]), k=st.sampled_from([2, 3]),
       sizes=st.lists(st.integers(0, 120), max_size=4), adjust=st.sampled_from(["holm", "bonferroni", "none"]))
def test_labels_in_batches_equal_the_whole(seed, n, m, k, sizes, adjust):
    rng = np.random.default_rng(seed)
    classes = np.array(["cat", "dog", "eel"][:k])
    truth = classes[rng.integers(0, k, n)]
    preds = [np.where(rng.random(n) < 0.6 + 0.1 * j, truth, classes[rng.integers(0, k, n)]) for j in range(m)]
    names = [f"m{j}" for j in range(m)]
    _agree(lambda: assay.compare(truth, *preds, names=names, bootstrap=200, adjust=adjust),
           lambda: compare_batches(_batches(truth, preds, sizes), kind="y_pred", names=names, bootstrap=200,
                                   adjust=adjust))


def test_delong_equals_delong_test_on_the_collected_columns():
    truth, (a, b) = _data(7, 5000, 2, ties=True)
    streamed = compare_batches(_batches(truth, [a, b], [777, 1, 0, 2000]), memory=1).tests["delong"]
    direct = delong_test(truth == "yes", a, b)
    assert streamed.statistic == pytest.approx(direct.statistic, rel=1e-9, abs=1e-12)
    assert streamed.pvalue == pytest.approx(direct.pvalue, rel=1e-9, abs=1e-300)
    assert streamed.correlation == pytest.approx(direct.correlation, rel=1e-9)


def test_models_that_rank_alike_differ_by_exactly_nothing():
    truth, (a,) = _data(3, 400, 1, ties=True)
    c = compare_batches(_batches(truth, [a, 2 * a + 1], [100, 50]))  # the same ranking
    d = c.tests["delong"]
    assert d.difference == 0.0 and d.se == 0.0 and d.pvalue == 1.0 and "identical" in d.note


def test_scores_are_read_twice_so_a_one_shot_iterator_is_refused():
    truth, (a, b) = _data(1, 50, 2, ties=False)
    with pytest.raises(InvalidInput, match="read twice"):
        compare_batches(iter(_batches(truth, [a, b], [20])))
    # a function that starts them again is taken
    c = compare_batches(lambda: iter(_batches(truth, [a, b], [20])))
    assert c.tests["delong"].n_positive == int((truth == "yes").sum())


def test_labels_read_once_may_come_from_a_one_shot_iterator():
    rng = np.random.default_rng(4)
    truth = np.array(["a", "b"])[rng.integers(0, 2, 90)]
    preds = [np.where(rng.random(90) < 0.7, truth, "a"), np.where(rng.random(90) < 0.8, truth, "b")]
    listed = compare_batches(_batches(truth, preds, [30, 30]), kind="y_pred", bootstrap=100)
    once = compare_batches(iter(_batches(truth, preds, [30, 30])), kind="y_pred", bootstrap=100)
    assert once.reports[0].n == 90  # the first batch, read to count the models, is counted too
    _same(once, listed)


def test_a_bad_value_names_its_part_row_and_column():
    truth, (a, b) = _data(1, 50, 2, ties=False)
    b = b.astype(object)
    b[33] = "oops"
    columns = {"y_true": "column 'y'", "y_score[0]": "column 'a'", "y_score[1]": "column 'b'"}
    with pytest.raises(InvalidInput) as e:
        compare_batches(_batches(truth, [a, b], [20]), columns=columns)
    assert e.value.field == "part1: column 'b'" and e.value.row == 13  # 0-based: row 14 of part1 in words


def test_spilled_files_vanish(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    truth, scores = _data(5, 3000, 2, ties=False)
    c = compare_batches(_batches(truth, scores, [1000, 1000]), memory=1)
    assert any("spilled" in note for note in c.reports[0].notes)
    assert os.listdir(tmp_path) == []


def _write_parts(directory, truth, columns, names, sizes):
    directory.mkdir()
    for k, (a, b) in enumerate(cut(len(truth), sizes)):
        lines = [",".join(["y", *names])]
        lines += [",".join([truth[i], *(repr(float(c[i])) if isinstance(c[i], float | np.floating) else str(c[i])
                                       for c in columns)]) for i in range(a, b)]
        (directory / f"part{k}.csv").write_text("\n".join(lines) + "\n")


def test_the_command_line_streams_a_directory_and_agrees_with_the_whole_file(tmp_path):
    truth, scores = _data(11, 600, 3, ties=True)
    names = ["p_new", "p_old", "p_base"]
    _write_parts(tmp_path / "parts", truth, scores, names, [200, 150])
    whole = tmp_path / "whole.csv"
    whole.write_text("\n".join([",".join(["y", *names])] + [",".join([truth[i], *(repr(float(s[i])) for s in scores)])
                                                           for i in range(len(truth))]) + "\n")
    args = ["--truth", "y", *sum((["--score", c] for c in names), []), "--threshold", "0.2", "--format", "json",
            "--bootstrap", "300"]
    assert main(["compare", str(tmp_path / "parts"), *args, "-o", str(tmp_path / "a.json")]) == 0
    assert main(["compare", str(whole), *args, "-o", str(tmp_path / "b.json")]) == 0
    a, b = (json.loads((tmp_path / f).read_text()) for f in ("a.json", "b.json"))
    for model in a["models"] + b["models"]:
        model.pop("input")
    close(a, b)
    assert a["tests"]["cochran_q"]["statistic"] is not None and len(a["pairwise"]) == 3


def test_the_command_line_streams_labels_and_says_a_bad_row_in_one_line(tmp_path, capsys):
    rng = np.random.default_rng(2)
    truth = np.array(["a", "b"])[rng.integers(0, 2, 300)]
    preds = [np.where(rng.random(300) < 0.7, truth, "a"), np.where(rng.random(300) < 0.8, truth, "b")]
    _write_parts(tmp_path / "parts", truth, preds, ["tree", "forest"], [100])
    out = tmp_path / "c.json"
    assert main(["compare", str(tmp_path / "parts"), "--truth", "y", "--pred", "tree", "--pred", "forest",
                 "--format", "json", "-o", str(out)]) == 0
    streamed = json.loads(out.read_text())
    whole = assay.compare(truth, *preds, names=["tree", "forest"]).to_dict()
    for model in streamed["models"] + whole["models"]:
        model.pop("input")
    close(streamed, whole)
    part = tmp_path / "parts" / "part1.csv"
    lines = part.read_text().splitlines()
    lines[5] = "b,a,"  # a missing prediction in row 5 of part1
    part.write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    assert main(["compare", str(tmp_path / "parts"), "--truth", "y", "--pred", "tree", "--pred", "forest"]) == 2
    err = capsys.readouterr().err
    assert "part1.csv" in err and "row 5" in err and "'forest'" in err, err
    assert len(err.strip().splitlines()) == 1


def test_options_that_do_not_apply_are_refused_in_one_line(tmp_path, capsys):
    truth, scores = _data(1, 100, 2, ties=False)
    _write_parts(tmp_path / "parts", truth, scores, ["a", "b"], [50])
    for extra, says in ((["--id", "k"], "--id"), (["--unpaired"], "--unpaired"), (["--adjust", "none"], "--adjust"),
                        (["--auc-test", "bootstrap"], "--auc-test"), (["--proba", "a,b"], "two columns")):
        status = main(["compare", str(tmp_path / "parts"), "--truth", "y", "--score", "a", "--score", "b", *extra])
        err = capsys.readouterr().err
        assert status == 2 and says in err and len(err.strip().splitlines()) == 1, (extra, err)
    with pytest.raises(InvalidInput, match="threshold applies to scores"):
        compare_batches(_batches(truth, [truth, truth], [50]), kind="y_pred", threshold=0.5)


# the placements of the second pass: buckets of each model's scores (assay.summaries.placements) ------------


def _scored(seed, n, m, values, float32, labels=("no", "yes")):
    """Classes and m models' scores: ``values`` distinct values or so (None: nearly all distinct; "adjacent":
    float32 scores one float32 apart, keys that lie close together, as at 10^8 float32 scores), float32 or
    float64."""
    truth, scores = _data(seed, n, m, ties=False, labels=labels)
    if values == "adjacent":
        return truth, [np.float32(0.5) + np.round(s * 20).astype(np.float32) * np.float32(2.0 ** -24)
                       for s in scores]
    if values is not None:
        scores = [np.clip(np.round(s * values / 4), -values, values) for s in scores]
    return truth, [s.astype(np.float32) if float32 else s for s in scores]


def _delong_pairs(comparison, m):
    if m == 2:
        return [comparison.tests["delong"]]
    return [pair.tests["delong"] for pair in comparison.pairwise]


def _same_delong(streamed, direct):
    """To 1e-9 (relative; NaN where delong_test gives NaN: no variance)."""
    for name, least in (("statistic", 1e-12), ("pvalue", 1e-300), ("difference", 1e-12), ("se", 1e-15),
                        ("correlation", 1e-12)):
        assert getattr(streamed, name) == pytest.approx(getattr(direct, name), rel=1e-9, abs=least, nan_ok=True), name


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(4, 400), m=st.sampled_from([2, 3]),
       values=st.sampled_from([None, 2, 40, "adjacent"]), float32=st.booleans(), lower=st.booleans(),
       rows=st.sampled_from([1, 3, 50, None]), table=st.sampled_from([None, True, False]), pieces=st.booleans(),
       compiled=st.booleans(), memory=st.sampled_from([None, 1]), sizes=st.lists(st.integers(0, 150), max_size=3))
def test_paired_delong_from_buckets_equals_delong_test(seed, n, m, values, float32, lower, rows, table, pieces,
                                                       compiled, memory, sizes):
    """Buckets of one instance to all of them (``rows``), a single score held by many more instances than a
    bucket (``values`` 2), float32 scores (two models: kept two to a 64-bit word; adjacent ones counted in a
    table, by pieces) and float64 ones, each
    model's scores ranked either way, counted in a table or sorted (``table``; None: as they come), buckets
    in pieces of a few keys (``pieces``), with the compiled kernels or numpy's, in memory or on disk:
    DeLong's test equals delong_test on the columns (to 1e-9: the sums are taken in another order)."""
    truth, scores = _scored(seed, n, m, values, float32)
    buckets = placements.BUCKET_ROWS if rows is None else (rows, rows)
    dense = {None: placements.DENSE, True: 1 << 12, False: 0}[table]  # True: a table wherever it is small
    least = {None: placements.DENSE_LEAST, True: 1 << 16, False: 0}[table]
    keys, least_rows = (3, 1) if pieces else (placements.PIECE_KEYS, placements.PIECE_ROWS)
    with kernels_on(compiled), mock.patch.object(placements, "BUCKET_ROWS", buckets), \
            mock.patch.object(placements, "DENSE", dense), mock.patch.object(placements, "DENSE_LEAST", least), \
            mock.patch.object(placements, "PIECE_KEYS", keys), mock.patch.object(placements, "PIECE_ROWS", least_rows):
        c = compare_batches(_batches(truth, scores, sizes), memory=memory, direction="lower" if lower else "higher")
    ranked = [-s if lower else s for s in scores]
    for test, (i, j) in zip(_delong_pairs(c, m), [(0, 1), (0, 2), (1, 2)][:1 if m == 2 else 3], strict=True):
        _same_delong(test, delong_test(truth == "yes", ranked[i], ranked[j]))


@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("memory", [None, 1])
def test_buckets_of_close_float32_scores_are_counted_a_piece_at_a_time(lower, memory):
    """Float32 scores one float32 apart (as most are at 10^8 rows): the buckets' records are grouped by
    piece and counted in a table a piece at a time (seen to happen), and DeLong's test equals delong_test."""
    truth, scores = _scored(4, 3000, 2, "adjacent", True)
    counted = []
    original = placements.PlacementPass._pieces

    def spied(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        counted.append(result is not None)
        return result

    with kernels_on(True), mock.patch.object(placements, "BUCKET_ROWS", (400, 400)), \
            mock.patch.object(placements, "PIECE_KEYS", 8), mock.patch.object(placements, "PIECE_ROWS", 16), \
            mock.patch.object(placements.PlacementPass, "_pieces", spied):
        c = compare_batches(_batches(truth, scores, [1000, 1000]), memory=memory,
                            direction="lower" if lower else "higher")
    assert counted and all(counted)
    ranked = [-s if lower else s for s in scores]
    _same_delong(c.tests["delong"], delong_test(truth == "yes", *ranked))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 500), values=st.sampled_from([None, 1, 3, 30]),
       rows=st.integers(1, 200), ranges=st.booleans(), view=st.sampled_from(["as read", "negated", "swapped"]))
def test_cuts_bound_the_buckets_and_count_them(seed, n, values, rows, ranges, view):
    """The buckets cover the distinct scores, highest first, each with at most ``rows`` instances or a single
    score, and count its classes and distinct scores exactly: of a summary in memory, and of one kept as its
    ranges of sorted keys (many ranges, each counted when read), as read, negated or its classes swapped."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n).astype(bool)
    s = rng.normal(size=n) if values is None else np.round(rng.normal(size=n) * values)
    if ranges:
        scan = ScoreScan(1, threads=2)
        for a, b in cut(n, [97, 3, 150]):
            scan.add(batch_keys(y[a:b], s[a:b]))
        summary = scan.result(("0", "1"))
    else:
        summary = ScoreCounts.from_arrays(y, s)
    if view == "negated":
        summary = summary.negated()
    elif view == "swapped":
        summary = summary.relabelled(("1", "0"), swap=True)
    tc = threshold_counts(summary)
    c = placements.cuts(summary.scores, tc.tp, tc.fp, rows)
    scores, pos, neg = (np.asarray(a) for a in (summary.scores, summary.positives, summary.negatives))
    assert c.distinct.min() >= 1 and c.distinct.sum() == len(scores)
    ends = np.cumsum(c.distinct)
    assert np.array_equal(c.lowest, scores[ends - 1]) and np.array_equal(c.highest, scores[ends - c.distinct])
    for (a, b), p, q in zip(zip(ends - c.distinct, ends), c.positives, c.negatives, strict=True):
        assert (p, q) == (pos[a:b].sum(), neg[a:b].sum())
        assert p + q <= rows or b - a == 1


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 400), values=st.sampled_from([None, 1, 3, 300]),
       rows=st.integers(1, 100), float32=st.booleans(), lower=st.booleans(), keys=st.sampled_from([1, 5, 1 << 16]))
def test_the_pieces_of_a_bucket_hold_its_keys_and_no_other(seed, n, values, rows, float32, lower, keys):
    """Every instance's key falls in a piece of the bucket its score falls in (the pieces' splitters rise),
    and a bucket of a single score is one piece."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n).astype(bool)
    s = rng.normal(size=n) if values is None else np.round(rng.normal(size=n) * values)
    s = s.astype(np.float32) if float32 else s
    ranked = ScoreCounts.from_arrays(y, (-s if lower else s).astype(np.float64))
    tc = threshold_counts(ranked)
    with mock.patch.object(placements, "PIECE_KEYS", keys), mock.patch.object(placements, "PIECE_ROWS", 1):
        c = placements.cuts(ranked.scores, tc.tp, tc.fp, rows)
        lay = placements.layout(c, wide=not float32, lower=lower)
    assert np.all(np.diff(lay.splitters.astype(object)) > 0) and lay.starts[-1] == len(lay.splitters) + 1
    key = placements.model_keys(np.ones(n, dtype=bool), s, wide=not float32, lower=lower).positive
    piece = np.searchsorted(lay.splitters, key, side="right")
    bucket = np.searchsorted(lay.starts, piece, side="right") - 1  # lowest bucket first
    ends = np.cumsum(c.distinct)  # each score's bucket, highest first, from the summary
    entry = np.searchsorted(-np.asarray(ranked.scores), -(-s if lower else s).astype(np.float64))
    assert np.array_equal(bucket, len(c.distinct) - 1 - np.searchsorted(ends, entry, side="right"))
    assert all(lay.starts[q + 1] - lay.starts[q] == 1 for q in range(len(c.distinct)) if c.distinct[::-1][q] == 1)


@settings(max_examples=80, deadline=None)
@given(positive=st.lists(st.integers(0, 12), max_size=20), negative=st.lists(st.integers(0, 12), max_size=20),
       below=st.integers(0, 5), above=st.integers(0, 5), wide=st.booleans())
def test_ranks_count_what_a_placement_counts(positive, negative, below, above, wide):
    """Twice a placement's numerator: 2 x the other class's instances beyond (below a positive, above a
    negative), the bucket's offsets included, + those tied; sorted (numpy and compiled) or in a table."""
    dtype = np.uint64 if wide else np.uint32
    p, q = np.array(positive, dtype=dtype), np.array(negative, dtype=dtype)
    want_p = [2 * (below + int((q < k).sum())) + int((q == k).sum()) for k in p]
    want_q = [2 * (above + int((p > k).sum())) + int((p == k).sum()) for k in q]
    got = placements.dense_ranks(p, q, below=below, above=above)
    assert got is not None and got[0].tolist() == want_p and got[1].tolist() == want_q
    order_p, order_q = np.argsort(p, kind="stable"), np.argsort(q, kind="stable")
    for kernels in (None, compiled(0)):
        sp, sq = placements.ranks(p[order_p], q[order_q], kernels, below=below, above=above)
        assert sp.tolist() == [want_p[i] for i in order_p] and sq.tolist() == [want_q[i] for i in order_q]


def test_a_model_read_as_float32_that_holds_float64_scores_further_on_is_read_again():
    """Float32 scores are keyed in 4 bytes; a later batch with a value no float32 equals starts the second
    pass again with 8-byte keys for that model (a float64 batch of float32 values needs none)."""
    truth, (a, b) = _data(6, 900, 2, ties=False)
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    exact = b32[600:].astype(np.float64)  # float64 values that float32s equal
    started = []
    original = placements.PlacementPass.__init__

    def counted(self, *args, **kwargs):
        started.append(kwargs["wide"])
        original(self, *args, **kwargs)

    with mock.patch.object(placements.PlacementPass, "__init__", counted):
        for later, passes in ((exact, 1), (b[600:], 2)):
            started.clear()
            parts = [(truth[:300], [a32[:300], b32[:300]]), (truth[300:600], [a32[300:600], b32[300:600]]),
                     (truth[600:], [a32[600:], later])]
            c = compare_batches(parts, memory=1)
            whole = np.concatenate([b32[:600].astype(np.float64), later])
            _same_delong(c.tests["delong"], delong_test(truth == "yes", a32, whole))
            assert len(started) == passes and started[-1] == [False, passes == 2]


def test_the_second_pass_read_beside_the_reports_is_read_again_when_they_plan_otherwise(monkeypatch):
    """With the direction and threshold given, the batches are read again while the reports are made, as the
    options foresee each report's plan; a report that plans otherwise (here: foreseen wrongly on purpose)
    has them read once more, and the comparison is the same as in memory."""
    truth, scores = _data(12, 900, 2, ties=True)
    reads = []

    def start():
        reads.append(1)
        return iter(_batches(truth, scores, [300, 300]))

    options = {"threshold": 0.2, "direction": "higher", "bootstrap": 200}
    whole = assay.compare(truth, *({"y_score": s} for s in scores), names=["a", "b"], **options)
    _same(compare_batches(start, names=["a", "b"], memory=1, **options), whole)
    assert len(reads) == 2
    foreseen = paired._foreseen

    def wrongly(summaries, options):
        return [plan._replace(threshold=0.7) for plan in foreseen(summaries, options)]

    monkeypatch.setattr(paired, "_foreseen", wrongly)
    reads.clear()
    _same(compare_batches(start, names=["a", "b"], memory=1, **options), whole)
    assert len(reads) == 3


def test_data_that_changed_between_the_passes_is_refused():
    truth, (a, b) = _data(2, 600, 2, ties=False)
    changed = b.copy()
    changed[5] = 100.0  # the instance moves to the highest bucket
    reads = []

    def start():
        reads.append(1)
        return iter(_batches(truth, [a, b if len(reads) == 1 else changed], [200]))

    with mock.patch.object(placements, "BUCKET_ROWS", (50, 50)), pytest.raises(InvalidInput, match="changed"):
        compare_batches(start, memory=1)


def _open_files(directory):
    """The files of ``directory`` this process holds open (unlinked ones included)."""
    held = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(directory)):
            held.append(target)
    return held


@pytest.mark.parametrize("error", [KeyboardInterrupt, InvalidInput])
@pytest.mark.parametrize("where", ["reading", "buckets"])
def test_the_second_pass_leaves_no_file_on_an_interruption_or_an_error(tmp_path, monkeypatch, error, where):
    """Raised while the batches are read again, or while a bucket is worked on a thread: the buckets' files
    are closed as the error leaves the pass (unlinked from the start, they are gone); the summaries' go
    with the summaries, once the error is dropped."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    made = []
    original = tempfile.TemporaryFile

    def recorded(*args, **kwargs):
        f = original(*args, **kwargs)
        if kwargs.get("prefix") == "assay-paired-":  # the buckets' (the summaries' are made here too)
            made.append(f)
        return f

    monkeypatch.setattr(placements.tempfile, "TemporaryFile", recorded)
    failure = error("'x' is not a number") if error is InvalidInput else error()
    worked = []
    counted = placements.dense_ranks

    def failing(*args, **kwargs):
        worked.append(1)
        if len(worked) == 3:
            raise failure
        return counted(*args, **kwargs)

    if where == "buckets":
        monkeypatch.setattr(placements, "dense_ranks", failing)
    truth, (a, b) = _data(9, 3000, 2, ties=True)
    reads = []

    def start():
        reads.append(1)
        for k, item in enumerate(_batches(truth, [a, b], [500] * 5)):
            if where == "reading" and len(reads) == 2 and k == 5:
                raise failure
            yield item

    with mock.patch.object(placements, "BUCKET_ROWS", (100, 100)), pytest.raises(error) as raised:
        compare_batches(start, memory=1)
    assert len(reads) == 2 and made and all(f.closed for f in made)
    assert os.listdir(tmp_path) == []
    failure.__traceback__ = None  # the error and its frames (the summaries) dropped
    del raised
    gc.collect()
    if os.path.isdir("/proc/self/fd"):
        assert _open_files(tmp_path) == []


def test_the_html_of_a_spilled_comparison_draws_some_exact_points(monkeypatch):
    from assay.report import html

    drawn = []
    original = html.roc_chart

    def recorded(binary, **kwargs):
        drawn.extend(len(ranking.summary) for _, ranking in binary)
        return original(binary, **kwargs)

    monkeypatch.setattr(html, "roc_chart", recorded)
    rng = np.random.default_rng(8)
    truth = np.array(["no", "yes"])[rng.integers(0, 2, 24_000)]
    scores = [rng.random(24_000), rng.random(24_000)]
    # a budget of 1 MB: each summary (24,000 distinct scores, 40 bytes each) goes to disk
    c = compare_batches(_batches(truth, scores, [12_000]), memory=1 << 20)
    assert all(r.ranking.summary.on_disk and len(r.ranking.summary) == 24_000 for r in c.reports)
    page = html.render_html(c)
    assert "assay compare" in page and len(drawn) >= 2 and max(drawn) <= 20_010, drawn  # not 24,000
