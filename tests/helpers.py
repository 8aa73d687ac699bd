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


def without_hierarchy(beyond: dict, held: dict) -> None:
    """Drop the calibration intercept, slope and tests from two reports' JSON, one of a summary kept beyond
    memory (which says they are not computed yet), one held in memory."""
    for d in (beyond, held):
        d = d.get("probabilistic") or {}
        if d is beyond.get("probabilistic"):
            assert d.get("calibration_hierarchy", {}).get("note", "not computed").startswith("not computed")
        d.pop("calibration_hierarchy", None)
