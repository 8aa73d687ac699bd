"""Predictions read in batches (a directory of parts, a glob, a file beyond --memory) give exactly the
in-memory result: the same summaries, merged, and the same metric code on them."""

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import assay
from assay import InvalidInput
from assay.cli import main
from assay.engines.files import evaluate_file
from assay.evaluation.stream import evaluate_batches
from helpers import close, cut

SKIP = ("probabilistic", "input")


def same(streamed, whole):
    a, b = streamed.to_dict(), whole.to_dict()
    assert set(a) == set(b)
    for key in b:
        if key not in SKIP:
            assert a[key] == b[key], key
    close(a["probabilistic"], b["probabilistic"], "probabilistic")


@st.composite
def scored(draw):
    n = draw(st.integers(4, 300))
    kind = draw(st.sampled_from(["ties", "distinct", "negative", "single"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = rng.random(n) < draw(st.floats(0.1, 0.9))
    y[0], y[1] = True, False  # both classes somewhere
    if kind == "ties":
        s = np.round(rng.random(n) + 0.3 * y, 1)
    elif kind == "distinct":
        s = rng.random(n) + 0.2 * y
    elif kind == "negative":
        s = np.round(rng.normal(size=n) + y, 2)
    else:
        s = np.full(n, 0.5)
    sizes = draw(st.lists(st.integers(0, 80), max_size=6))
    return np.where(y, "yes", "no"), s, sizes


@settings(max_examples=60)
@given(scored())
def test_scores_in_parts_equal_the_whole(case):
    y, s, sizes = case
    threshold = float(np.median(s))
    whole = assay.evaluate(y, y_score=s, threshold=threshold, bootstrap=200, fpr_range=(0, 0.3))
    parts = [(y[a:b], s[a:b]) for a, b in cut(len(y), sizes)]
    same(evaluate_batches(parts, threshold=threshold, bootstrap=200, fpr_range=(0, 0.3)), whole)


@settings(max_examples=40)
@given(st.integers(0, 2**32 - 1), st.lists(st.integers(0, 60), max_size=5))
def test_labels_in_parts_equal_the_whole(seed, sizes):
    rng = np.random.default_rng(seed)
    n = 200
    classes = np.array(["a", "b", "c", "d"])
    y = classes[rng.integers(0, 3, n)]
    y[-5:] = "d"  # a class met only in the last part
    pred = np.where(rng.random(n) < 0.7, y, classes[rng.integers(0, 4, n)])
    whole = assay.evaluate(y, y_pred=pred, bootstrap=200)
    parts = [(y[a:b], pred[a:b]) for a, b in cut(n, sizes)]
    same(evaluate_batches(parts, kind="y_pred", bootstrap=200), whole)


def test_a_part_with_one_class_and_the_positive_chosen_at_the_end():
    parts = [(["no"] * 5, [0.1, 0.2, 0.3, 0.4, 0.5]), (["yes", "no", "yes"], [0.9, 0.35, 0.6])]
    y = sum((list(p[0]) for p in parts), [])
    s = sum((list(p[1]) for p in parts), [])
    same(evaluate_batches(parts, bootstrap=200), assay.evaluate(y, y_score=s, bootstrap=200))


def test_data_frames_and_record_batches_as_batches():
    import pandas as pd

    frames = [pd.DataFrame({"y_true": [1, 0, 1], "y_score": [0.8, 0.3, 0.6]}),
              pa.record_batch({"y_true": [0, 1], "y_score": [0.2, 0.9]})]
    r = evaluate_batches(frames)
    assert r.n == 5 and r.ranking.roc_auc.value == 1.0


def test_three_classes_with_a_score_are_refused():
    with pytest.raises(InvalidInput, match="3 classes"):
        evaluate_batches([(["a", "b"], [0.1, 0.2]), (["c"], [0.3])])


@pytest.fixture
def parts(tmp_path):
    rng = np.random.default_rng(5)
    directory = tmp_path / "preds"
    directory.mkdir()
    ys, ss = [], []
    for i in range(3):
        y = np.where(rng.random(400) < 0.4, "pos", "neg")
        s = np.round(rng.random(400) + 0.3 * (y == "pos"), 3)
        pq.write_table(pa.table({"y": y, "p": s, "extra": [[1]] * 400}), directory / f"part-{i:05d}.parquet")
        ys.append(y)
        ss.append(s)
    (directory / "_SUCCESS").write_text("")
    y, s = np.concatenate(ys), np.concatenate(ss)
    whole = tmp_path / "all.csv"
    whole.write_text("y,p\n" + "".join(f"{a},{float(b)!r}\n" for a, b in zip(y, s)))
    return directory, whole


def _json(argv, capsys):
    status = main(argv + ["--format", "json"])
    out, err = capsys.readouterr()
    assert status == 0, err
    return json.loads(out)


def test_a_directory_a_glob_and_a_file_beyond_the_budget_equal_the_whole_file(parts, capsys):
    directory, whole = parts
    common = ["--truth", "y", "--score", "p", "--threshold", "0.5", "--bootstrap", "200"]
    reference = _json(["report", str(whole), *common], capsys)
    for source, extra in ((str(directory), []), (str(directory / "*.parquet"), []), (str(whole), ["--memory", "1KB"])):
        streamed = _json(["report", source, *common, *extra], capsys)
        if extra:  # a 1KB budget spills the summary to disk, and the report says so
            assert any("was spilled" in note for note in streamed["notes"])
            streamed["notes"] = [note for note in streamed["notes"] if "spilled" not in note]
        for key in reference:
            if key not in SKIP:
                assert streamed[key] == reference[key], (source, key)
        close(streamed["probabilistic"], reference["probabilistic"], source)


def test_an_error_names_the_part_and_its_row(parts, capsys):
    directory, _ = parts
    table = pq.read_table(directory / "part-00001.parquet")
    p = table.column("p").to_pylist()
    p[6] = None
    pq.write_table(table.set_column(1, "p", pa.array(p)), directory / "part-00001.parquet")
    status = main(["report", str(directory), "--truth", "y", "--score", "p"])
    out, err = capsys.readouterr()
    assert status == 2 and err.count("\n") == 1 and out == ""
    assert "part-00001.parquet: column 'p' row 7: missing value" in err


def test_what_is_not_read_in_batches_is_refused(parts, capsys, tmp_path):
    directory, _ = parts
    status = main(["report", str(directory), "--truth", "y", "--task", "regression", "--pred", "p"])
    out, err = capsys.readouterr()
    assert status == 2 and "--task regression needs the whole table" in err
    status = main(["report", str(tmp_path / "nothing" / "*.parquet"), "--truth", "y", "--score", "p"])
    out, err = capsys.readouterr()
    assert status == 2 and "no file matches" in err


def test_evaluate_file_api_with_progress(parts):
    directory, whole = parts
    seen = []
    r = evaluate_file(str(directory), truth="y", score="p", threshold=0.5, bootstrap=200,
                      progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (1200, 1200)  # rows read of rows expected, from the Parquet footers
    assert r.n == 1200


def test_quantile_calibration_from_parts_equals_the_whole(parts, capsys, tmp_path):
    rng = np.random.default_rng(2)
    (tmp_path / "parts").mkdir()
    ys, ps = [], []
    for i in range(3):
        y = (rng.random(300) < 0.3).astype(int)
        p = np.round(np.clip(rng.beta(2, 5, 300) + 0.3 * y, 0, 1), 2)  # ties, so repeated edges too
        pq.write_table(pa.table({"y": y, "p": p}), tmp_path / "parts" / f"{i}.parquet")
        ys.append(y)
        ps.append(p)
    pq.write_table(pa.table({"y": np.concatenate(ys), "p": np.concatenate(ps)}), tmp_path / "all.parquet")
    common = ["--truth", "y", "--score", "p", "--calibration", "quantile", "--bins", "7"]
    streamed = _json(["report", str(tmp_path / "parts"), *common], capsys)
    whole = _json(["report", str(tmp_path / "all.parquet"), *common], capsys)
    assert streamed["probabilistic"]["calibration"]["strategy"] == "quantile"
    close(streamed["probabilistic"], whole["probabilistic"], "probabilistic")


@pytest.mark.parametrize("kind", ["roc", "pr", "lift", "hull", "thresholds"])
def test_curves_from_parts_equal_the_whole_file(parts, capsys, kind):
    directory, whole = parts
    outputs = []
    for source in (str(directory), str(whole)):
        status = main(["curves", source, "--truth", "y", "--score", "p", "--kind", kind])
        out, err = capsys.readouterr()
        assert status == 0, err
        outputs.append(out)
    assert outputs[0] == outputs[1]


# class probabilities of several classes ---------------------------------------------------------

MULTICLASS_SKIP = ("hand_till", "roc_auc_ovr_macro", "roc_auc_ovr_weighted")  # no bootstrap interval in batches


@st.composite
def probabilities(draw):
    n = draw(st.integers(6, 300))
    k = draw(st.integers(3, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)  # every class somewhere
    p = rng.dirichlet(np.ones(k), n)
    p[np.arange(n), y] += draw(st.floats(0, 2))
    p /= p.sum(axis=1, keepdims=True)
    if draw(st.booleans()):  # heavy ties: hundredths, the last column making the sum 1
        p = np.floor(p * 20) / 20
        p[:, -1] = 1 - p[:, :-1].sum(axis=1)
        p = np.clip(np.round(p, 2), 0, 1)
    labels = draw(st.sampled_from([[str(c) for c in "abcde"[:k]], list(range(10, 10 + k))]))
    sizes = draw(st.lists(st.integers(0, 80), max_size=6))
    return np.array(labels)[y], p, labels, sizes


@settings(max_examples=40, deadline=None)
@given(probabilities(), st.sampled_from([None, 1, 10**6]))
def test_probabilities_of_several_classes_in_parts_equal_the_whole(case, memory):
    y, p, labels, sizes = case
    whole = assay.evaluate(y, y_proba=p, labels=labels, bootstrap=200).to_dict()
    parts = [(y[a:b], p[a:b]) for a, b in cut(len(y), sizes)]
    got = evaluate_batches(parts, kind="y_proba", labels=labels, bootstrap=200, memory=memory).to_dict()
    assert set(got) == set(whole)
    for key in whole:
        if key not in ("probabilistic", "input", "ranking"):
            assert got[key] == whole[key], key
    close(got["probabilistic"], whole["probabilistic"], "probabilistic")
    ranking, expected = got["ranking"], whole["ranking"]
    assert ranking["roc_auc_ovr"] == expected["roc_auc_ovr"]  # exactly: the same DeLong on the same counts
    for name in MULTICLASS_SKIP:
        assert ranking[name]["value"] == pytest.approx(expected[name]["value"], rel=1e-12, abs=1e-12), name
        assert ranking[name]["ci"] is None and "no instances to resample" in ranking[name]["note"]


def test_two_class_probabilities_in_parts_are_a_score_column():
    rng = np.random.default_rng(4)
    y = np.where(rng.random(200) < 0.4, "yes", "no")
    p1 = np.round(rng.random(200), 2)
    frame = {"no": 1 - p1, "yes": p1}
    whole = assay.evaluate(y, y_proba=frame, bootstrap=200)
    parts = [(y[a:b], {c: v[a:b] for c, v in frame.items()}) for a, b in cut(200, [50, 0, 70])]
    same(evaluate_batches(parts, kind="y_proba", bootstrap=200), whole)


@pytest.fixture
def proba_parts(tmp_path):
    rng = np.random.default_rng(11)
    n = 900
    y = rng.integers(0, 3, n)
    p = rng.dirichlet(np.ones(3), n)
    p[np.arange(n), y] += 1
    p = np.round(p / p.sum(axis=1, keepdims=True), 3)
    p[:, 2] = np.round(1 - p[:, 0] - p[:, 1], 3)
    names = np.array(["setosa", "versicolor", "virginica"])
    table = pa.table({"species": names[y], **{c: p[:, i] for i, c in enumerate(names)}})
    directory = tmp_path / "preds"
    directory.mkdir()
    for i in range(3):
        pq.write_table(table.slice(300 * i, 300), directory / f"part-{i:05d}.parquet")
    whole = tmp_path / "all.csv"
    table.to_pandas().to_csv(whole, index=False)
    return directory, whole


def test_proba_from_parts_equals_the_whole_file(proba_parts, capsys):
    directory, whole = proba_parts
    common = ["--truth", "species", "--proba", "setosa,versicolor,virginica", "--bootstrap", "200"]
    reference = _json(["report", str(whole), *common], capsys)
    for extra in ([], ["--memory", "1KB"]):
        streamed = _json(["report", str(directory), *common, *extra], capsys)
        assert streamed["confusion"] == reference["confusion"] and streamed["metrics"] == reference["metrics"]
        assert streamed["ranking"]["roc_auc_ovr"] == reference["ranking"]["roc_auc_ovr"]
        assert streamed["ranking"]["hand_till"]["value"] == pytest.approx(reference["ranking"]["hand_till"]["value"],
                                                                          rel=1e-12)
        close(streamed["probabilistic"], reference["probabilistic"], "probabilistic")
    frame = evaluate_file(str(directory), truth="species", proba=["setosa", "versicolor", "virginica"])
    assert frame.ranking.per_class["virginica"].value == reference["ranking"]["roc_auc_ovr"]["virginica"]["value"]


def test_proba_errors_in_parts_name_the_part_and_row(proba_parts, capsys):
    directory, _ = proba_parts
    table = pq.read_table(directory / "part-00002.parquet")
    p = table.column("setosa").to_numpy().copy()
    p[4] += 0.5
    pq.write_table(table.set_column(1, "setosa", pa.array(p)), directory / "part-00002.parquet")
    status = main(["report", str(directory), "--truth", "species", "--proba", "setosa,versicolor,virginica"])
    out, err = capsys.readouterr()
    assert status == 2 and err.count("\n") == 1 and out == ""
    assert "part-00002.parquet" in err and "row 5" in err and "sums to" in err
    with pytest.raises(InvalidInput, match="the first batch had"):
        evaluate_batches([(["a", "b"], {"a": [0.5, 0.5], "b": [0.5, 0.5], "c": [0, 0]}),
                          (["a"], {"a": [1.0], "b": [0.0]})], kind="y_proba")
