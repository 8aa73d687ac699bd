"""Models compared on the same rows read in batches (assay.compare_batches, compare_file, `assay compare DIR`)
equal the in-memory comparison: random data with ties, string labels, two and three models, thresholds,
directions, any batch cuts, summaries in memory and spilled. Floats to 1e-9 relative (sums taken in another
order); counts, verdicts and the bootstrap's replicates exactly."""

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
from assay.evaluation.paired import compare_batches
from assay.inference.roc_compare import delong_test
from assay.summaries import paired as paired_summaries
from assay.summaries.disk import CHUNK
from helpers import close, cut


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
       chunk=st.sampled_from([CHUNK, 1, 7]))
def test_scores_in_batches_equal_the_whole(seed, n, m, ties, threshold, direction, sizes, memory, chunk):
    truth, scores = _data(seed, n, m, ties)
    names = [f"m{j}" for j in range(m)]
    options = {"threshold": threshold, "direction": direction, "bootstrap": 200}
    with mock.patch.object(paired_summaries, "CHUNK", chunk):  # the summaries looked up a chunk at a time
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
