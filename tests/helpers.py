"""Helpers shared by the tests of data read in batches (test_stream, test_spill, test_partition) and of the
compiled kernels."""

import os
from contextlib import contextmanager

import pytest

from assay.summaries import kernels


def close(a, b, where="", rel=1e-9):
    """Equal, floats to ``rel`` (relative) and 1e-12 (absolute): streamed sums are taken in another order."""
    if isinstance(b, dict):
        assert isinstance(a, dict) and set(a) == set(b), where
        for k in b:
            close(a[k], b[k], f"{where}.{k}", rel)
    elif isinstance(b, (list, tuple)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            close(x, y, f"{where}[{i}]", rel)
    elif isinstance(b, float) and isinstance(a, float):
        assert a == pytest.approx(b, rel=rel, abs=1e-12), where
    else:
        assert a == b, where


def cut(n, sizes):
    """Part boundaries from a list of sizes (empty parts included), the last part taking the rest."""
    edges, at = [0], 0
    for size in sizes:
        at = min(n, at + size)
        edges.append(at)
    edges.append(n)
    return list(zip(edges[:-1], edges[1:]))


@contextmanager
def kernels_on(on: bool):
    """Every input compiled (the threshold at 0), or the kernels off."""
    saved_size, saved_env = kernels.MIN_SIZE, os.environ.get("ASSAY_NO_COMPILED")
    kernels.MIN_SIZE = 0
    if on:
        os.environ.pop("ASSAY_NO_COMPILED", None)
    else:
        os.environ["ASSAY_NO_COMPILED"] = "1"
    try:
        yield
    finally:
        kernels.MIN_SIZE = saved_size
        if saved_env is None:
            os.environ.pop("ASSAY_NO_COMPILED", None)
        else:
            os.environ["ASSAY_NO_COMPILED"] = saved_env


def run_cli(argv, capsys):
    """The command line in this process: (exit status, standard output, standard error)."""
    from assay.cli import main

    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def run_cli_json(argv, capsys):
    """The command line's JSON (it must succeed)."""
    import json

    status, out, err = run_cli([*argv, "--format", "json"], capsys)
    assert status == 0, err
    return json.loads(out)


def without_notes(result):
    """An evaluation's JSON without its notes and its input (which say where and how it was computed)."""
    out = result.to_dict()
    out.pop("notes")
    out.pop("input", None)
    return out


def same_hierarchy(beyond: dict, held: dict, rel: float = 1e-9) -> None:
    """Check that the calibration intercept, slope and tests of two reports' JSON, one of a summary kept beyond
    memory (on disk or on Spark's executors), one held in memory, are equal to ``rel`` (relative; 1e-12
    absolute): Newton's method from the same start, its sums taken in another order. Then drop them (the rest
    is compared to a tighter tolerance)."""
    mine, theirs = ((d.get("probabilistic") or {}).pop("calibration_hierarchy", None) for d in (beyond, held))
    assert (mine is None) == (theirs is None)
    if theirs is not None:
        close(mine, theirs, "calibration_hierarchy", rel=rel)
    # the smooth ECE is a fold of the walk: the same beyond memory, its grid's sums taken in another order
    beyond_p, held_p = (beyond.get("probabilistic") or {}), (held.get("probabilistic") or {})
    mine, theirs = beyond_p.pop("smooth_ece", None), held_p.pop("smooth_ece", None)
    assert (mine is None) == (theirs is None)
    if theirs is not None:
        close(mine, theirs, "smooth_ece", rel=rel)
    # the lowess calibration curve needs the summary in memory: beyond it, null with the reason
    for kept in (beyond_p.pop("calibration_curve", None),
                 (beyond_p.get("calibration") or {}).pop("ece_interval", None)):
        assert kept is None or kept["note"].startswith("not computed: the summary is kept on disk"), kept
    held_p.pop("calibration_curve", None)
    (held_p.get("calibration") or {}).pop("ece_interval", None)


def without_threshold_interval(beyond: dict, held: dict) -> None:
    """Drop the chosen threshold's bootstrap interval from two reports' JSON, one of a summary kept beyond memory
    (which says it is not computed there), one held in memory."""
    kept = beyond.pop("threshold_interval", None)
    assert kept is None or kept["note"].startswith("not computed beyond memory"), kept
    held.pop("threshold_interval", None)
