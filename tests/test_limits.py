"""Explicit limits instead of hours of work (reliability audit, item 3), and a k-class bootstrap that is
quadratic, not cubic, in k with the same draws as before."""

import numpy as np
import pytest

import assay
from assay import InvalidInput
from assay.cli import main
from assay.inference.bootstrap import MAX_RESAMPLED_CELLS, BootstrapSettings, bootstrap_matrix_ci
from assay.limits import MAX_CLASSES
from assay.metrics.confusion import accuracy, macro_recall, one_vs_rest


def dense_reference(counts, statistic, confidence, resamples, seed):
    """The bootstrap as it was written first: every row drawn over every cell, plain arrays."""
    m = np.asarray(counts, dtype=np.int64)
    k = m.shape[0]
    rng = np.random.default_rng(seed)
    sizes = m.sum(axis=1)
    per_chunk = max(1, min(resamples, 4_000_000 // (k * k)))
    values, done = [], 0
    while done < resamples:
        size = min(per_chunk, resamples - done)
        stack = np.zeros((size, k, k), dtype=np.int64)
        for i in range(k):
            if sizes[i]:
                stack[:, i, :] = rng.multinomial(int(sizes[i]), m[i] / sizes[i], size=size)
        values.append(np.asarray(statistic(stack), dtype=np.float64))
        done += size
    v = np.concatenate(values)
    return np.quantile(v[np.isfinite(v)], [(1 - confidence) / 2, (1 + confidence) / 2])


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_sparse_draws_equal_the_dense_ones(seed):
    """numpy's multinomial draws nothing for a zero probability before the last category, so drawing over
    the non-zero cells only gives the very same resamples (with a zero last cell the dense draw is
    different but as valid: both are multinomial; the reference tests hold either way)."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 6, (6, 6)) * (rng.random((6, 6)) < 0.5)  # many zero cells
    np.fill_diagonal(counts, 20)
    counts[:, -1] += 1  # the last cell of each row non-zero: the case where the streams coincide
    counts[3] = 0  # an empty row too
    statistics = {"accuracy": accuracy, "macro_recall": macro_recall,
                  "f1_of_2": lambda s: (lambda c: 2 * c.tp / (2 * c.tp + c.fp + c.fn))(one_vs_rest(s, 2))}
    got = bootstrap_matrix_ci(counts, statistics, confidence=0.9, settings=BootstrapSettings(500, seed))
    for name, fn in statistics.items():
        low, high = dense_reference(counts, fn, 0.9, 500, seed)
        assert (got[name].ci.low, got[name].ci.high) == pytest.approx((low, high), abs=1e-12), name


def test_zero_cells_stay_zero_in_every_resample():
    counts = np.array([[10, 0, 5, 0], [0, 0, 0, 0], [3, 0, 9, 0], [0, 4, 0, 6]])
    seen = []
    bootstrap_matrix_ci(counts, {"cells": lambda s: seen.append(np.asarray(s).copy()) or np.zeros(len(s))},
                        confidence=0.95, settings=BootstrapSettings(300, 3))
    stacks = np.concatenate(seen)
    assert (stacks[:, counts == 0] == 0).all()
    assert (stacks.sum(axis=2) == counts.sum(axis=1)).all()  # stratified: each row keeps its size


def test_one_vs_rest_cells_are_computed_once_per_resample_stack():
    from assay.metrics.confusion import MatrixStack

    stack = np.arange(2 * 3 * 3).reshape(2, 3, 3).view(MatrixStack)
    first = one_vs_rest(stack, 0)
    assert one_vs_rest(stack).tp is one_vs_rest(stack).tp  # cached
    plain = one_vs_rest(np.asarray(stack), 0)
    assert np.array_equal(first.tp, plain.tp) and np.array_equal(first.tn, plain.tn)


def test_a_bootstrap_beyond_the_cell_budget_is_left_out_with_a_note():
    resamples = MAX_RESAMPLED_CELLS // 100 + 1
    out = bootstrap_matrix_ci(np.eye(10, dtype=int) * 5, {"accuracy": accuracy}, confidence=0.95,
                              settings=BootstrapSettings(resamples, 0))
    assert out["accuracy"].ci is None and "fewer resamples" in out["accuracy"].note


def test_many_classes_skip_the_per_class_bootstrap_but_not_the_averages():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 120, 6000)
    pred = np.where(rng.random(6000) < 0.7, y, rng.integers(0, 120, 6000))
    r = assay.evaluate(y, y_pred=pred, bootstrap=200)
    entry = next(iter(r.per_class.values()))
    assert entry["f1"].ci is None and "per-class bootstrap is skipped" in entry["f1"].note
    assert entry["recall"].ci is not None  # an exact interval, not the bootstrap's
    assert r.averages["macro"]["f1"].ci is not None


def test_more_classes_than_the_limit_are_refused(tmp_path, capsys):
    y = [f"c{i}" for i in range(MAX_CLASSES + 5)]
    with pytest.raises(InvalidInput, match="at most 1,000 classes"):
        assay.evaluate(y, y_pred=y)
    path = tmp_path / "ids.csv"
    path.write_text("y,yhat\n" + "".join(f"{v},{v}\n" for v in y))
    status = main(["report", str(path), "--truth", "y", "--pred", "yhat"])
    out, err = capsys.readouterr()
    assert status == 2 and err.count("\n") == 1 and "at most 1,000 classes" in err


def test_a_large_confusion_matrix_is_described_not_drawn(capsys):
    k = 80
    counts = np.full((k, k), 1) + np.eye(k, dtype=int) * 30
    r = assay.evaluate_confusion(counts, bootstrap=100)
    from assay.report.text import render_text

    text = render_text(r, color=False, width=100)
    assert "80 × 80 classes: too many to draw" in text
    assert max(len(line) for line in text.splitlines()) <= 100
