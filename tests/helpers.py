"""Helpers shared by the tests of data read in batches (test_stream, test_spill)."""

import pytest


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
