"""--by with probabilities of several classes read in batches (issue 21, item 3: "works in batches"): the same
report as the table read whole, a bad row named by its part, the memory budget said, and on Spark."""

from __future__ import annotations

import json

import numpy as np
import pytest

import assay
from assay.cli import main


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    root = tmp_path_factory.mktemp("proba_by")
    rng = np.random.default_rng(8)
    n = 900
    truth = rng.integers(0, 3, n)
    raw = rng.random((n, 3)) + np.eye(3)[truth] * 0.7
    proba = np.round(raw / raw.sum(axis=1, keepdims=True), 4)
    proba[:, 2] = np.round(1 - proba[:, 0] - proba[:, 1], 4)
    group = rng.choice(["north", "south east", "wést"], n, p=[0.5, 0.3, 0.2])
    lines = [f"{'abc'[t]},{p[0]},{p[1]},{p[2]},{g}" for t, p, g in zip(truth, proba, group)]
    whole = root / "whole.csv"
    whole.write_text("y,a,b,c,g\n" + "\n".join(lines) + "\n")
    parts = root / "parts"
    parts.mkdir()
    for i in range(3):
        (parts / f"part-{i}.csv").write_text("y,a,b,c,g\n" + "\n".join(lines[i * 300:(i + 1) * 300]) + "\n")
    return {"whole": whole, "parts": parts, "truth": truth, "proba": proba, "group": group}


def _without_paths(d):
    if isinstance(d, dict):
        return {k: _without_paths(v) for k, v in d.items() if k not in ("source", "input")}
    if isinstance(d, list):
        return [_without_paths(v) for v in d]
    return d


def _json(args, capsys):
    code = main(["report", *args, "--format", "json", "--bootstrap", "200"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


@pytest.mark.parametrize("extra", [["--memory", "1MB"], []], ids=["budget", "directory"])
def test_in_batches_equals_the_table_read_whole(tables, capsys, extra):
    base = ["--truth", "y", "--proba", "a,b,c", "--by", "g"]
    whole = _json([str(tables["whole"]), *base], capsys)
    batches = _json([str(tables["parts"]), *base, *extra], capsys)
    assert _without_paths(batches) == _without_paths(whole)
    assert set(whole["groups"]) == {"north", "south east", "wést"}
    with_class = _json([str(tables["parts"]), *base, *extra, "--calibration-class", "b"], capsys)
    assert with_class["groups"]["north"]["report"]["probabilistic"]["calibration_class"] == "b"


def test_each_group_is_the_report_of_its_rows(tables, capsys):
    got = _json([str(tables["parts"]), "--truth", "y", "--proba", "a,b,c", "--by", "g", "--memory", "1MB"], capsys)
    rows = tables["group"] == "south east"
    alone = assay.evaluate(np.array(list("abc"))[tables["truth"][rows]],
                           y_proba={c: tables["proba"][rows, j] for j, c in enumerate("abc")}, bootstrap=200)
    group = got["groups"]["south east"]["report"]
    assert group["metrics"]["accuracy"]["value"] == pytest.approx(alone.metrics["accuracy"].value, abs=1e-15)
    assert group["probabilistic"]["log_loss"]["value"] == pytest.approx(
        alone.probabilistic.log_loss.value, rel=1e-12)


def test_a_bad_row_is_named_by_its_part_and_the_budget_is_said(tables, tmp_path, capsys):
    parts = tmp_path / "bad"
    parts.mkdir()
    for path in tables["parts"].iterdir():
        (parts / path.name).write_text(path.read_text())
    lines = (parts / "part-1.csv").read_text().splitlines()
    fields = lines[5].split(",")
    fields[1] = "0.9"  # the row no longer sums to 1
    lines[5] = ",".join(fields)
    (parts / "part-1.csv").write_text("\n".join(lines) + "\n")
    code = main(["report", str(parts), "--truth", "y", "--proba", "a,b,c", "--by", "g", "--memory", "1MB"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "part-1.csv" in err and "row 5" in err, err
    code = main(["report", str(tables["parts"]), "--truth", "y", "--proba", "a,b,c", "--by", "g", "--memory", "1KB"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err


def test_on_spark_equals_the_table_read_whole(tables, spark, capsys):
    """Spark's partitions come to the driver as batches do (within --memory): the same report as the table read
    whole, from the command line and from assay.spark; a bad probability named, a budget too small said."""
    base = ["--truth", "y", "--proba", "a,b,c", "--by", "g"]
    whole = _json([str(tables["whole"]), *base], capsys)
    assert _without_paths(_json([str(tables["whole"]), *base, "--engine", "spark"], capsys)) == _without_paths(whole)
    import pandas as pd

    from assay.spark import evaluate as spark_evaluate

    frame = pd.DataFrame({"y": np.array(list("abc"))[tables["truth"]], "a": tables["proba"][:, 0],
                          "b": tables["proba"][:, 1], "c": tables["proba"][:, 2], "g": tables["group"]})
    got = spark_evaluate(spark.createDataFrame(frame), truth="y", proba=["a", "b", "c"], by="g", bootstrap=200,
                         calibration_class="b")
    alone = assay.evaluate(frame["y"].to_numpy(), y_proba={c: frame[c].to_numpy() for c in "abc"},
                           by={"g": frame["g"].to_numpy()}, bootstrap=200, calibration_class="b")
    assert _without_paths(got.to_dict()) == _without_paths(alone.to_dict())
    frame.loc[7, "b"] = None
    with pytest.raises(assay.InvalidInput, match="column 'b': missing value"):
        spark_evaluate(spark.createDataFrame(frame), truth="y", proba=["a", "b", "c"], by="g")
    code = main(["report", str(tables["whole"]), *base, "--engine", "spark", "--memory", "1KB"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err


def test_auc_tests_of_many_groups_while_the_work_allows_it():
    """Each group's AUC against the rest's was tested for 20 groups at most, whatever the size; now for more
    while groups x distinct scores stays within AUC_TEST_WORK (a note says when they are not)."""
    from assay.evaluation import groups as grouping

    rng = np.random.default_rng(21)
    n = 6000
    p = np.round(rng.random(n), 3)
    y = (rng.random(n) < p).astype(int)
    g = np.array([f"g{k:02d}" for k in rng.integers(0, 30, n)])
    r = assay.evaluate(y, y_score=p, by={"g": g}, bootstrap=100)
    assert len(r.auc_tests) == 30 and all(t["pvalue_holm"] is not None for t in r.auc_tests)
    keep = grouping.AUC_TEST_WORK
    try:
        grouping.AUC_TEST_WORK = 30 * 100  # fewer than 30 groups x 1,001 distinct scores
        r = assay.evaluate(y, y_score=p, by={"g": g}, bootstrap=100)
    finally:
        grouping.AUC_TEST_WORK = keep
    assert not r.auc_tests and any("groups x distinct scores is at most 3,000" in note for note in r.notes)
