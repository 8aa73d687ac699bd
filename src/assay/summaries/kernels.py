"""Compiled single passes over the sorted keys, for large inputs.

The numpy code in ``scores.py`` and ``metrics/ranking.py`` reads the sorted keys
with several vectorised passes (run boundaries, cumulative counts, gathers),
each of which walks the whole array and allocates a temporary as large as it.
For large inputs these passes, not the sort, dominate. The kernels here do the
same work in one pass each, compiled by numba (``cache=True``: compiled once
per machine and kept on disk).

They are used only above ``MIN_SIZE`` instances, so a small report never pays
numba's import (the kernels' module, :mod:`assay.summaries.numba_kernels`, is
imported on first use: a deliberate lazy import, :mod:`assay.lazy_imports`), and
only when numba imports; otherwise, or with the environment variable
``ASSAY_NO_COMPILED`` set, the numpy code runs (``ASSAY_COMPILED_MIN_SIZE`` moves
the threshold, for tests). Both give the same numbers: the tests run every
ranking check both ways.

Every kernel takes the ascending keys of one part (``SortedKeys``: a score's
order-preserving bits shifted left one, the class in bit 0; negatives before
positives among equal scores) and walks it from the top score down, but two:
``lowess_resamples`` refits the lowess calibration curve of bootstrap resamples
(and ``count_draws`` counts them), and ``assay.inference.calibration_curve``
asks for them on its own measure, the band's terms (``compiled(1 << 62)`` once
they exceed its ``NUMPY_BUDGET``), whatever the number of instances.
"""

from __future__ import annotations

import glob
import os
import threading
from typing import Any

import numpy as np

__all__ = ["MIN_SIZE", "compiled", "cached", "warm_up"]

MIN_SIZE = int(os.environ.get("ASSAY_COMPILED_MIN_SIZE", 200_000))

_module: Any = None  # None: not tried yet; False: no compiled kernels here
_LOADING = threading.Lock()


def compiled(n: int) -> Any:
    """The compiled kernels when they pay for ``n`` instances, else None."""
    global _module
    if n < MIN_SIZE or os.environ.get("ASSAY_NO_COMPILED"):
        return None
    if _module is None:
        with _LOADING:  # threads summarising batches: one of them loads the kernels
            if _module is None:
                _module = _load()
    return _module or None


def cached() -> bool | None:
    """Whether numba's disk cache holds every kernel already, so that loading them takes about a second
    rather than the several seconds of compiling them (once per installation). None when it cannot tell."""
    if os.environ.get("ASSAY_NO_COMPILED"):
        return None
    try:
        numba_kernels = _kernels_module()
        folder = numba_kernels.build(cache=True).make_keys._cache.cache_path  # builds no code: compiling is lazy
        return len(glob.glob(os.path.join(folder, "numba_kernels.*.nbi"))) >= len(numba_kernels.KERNELS)
    except Exception:  # numba missing, or its cache laid out otherwise
        return None


def _kernels_module() -> Any:
    """:mod:`assay.summaries.numba_kernels`, which imports numba, with numba's error messages plain.

    numba highlights its internal error messages with colorama, whose init()/deinit() replace and then put
    back sys.stdout and sys.stderr from whichever thread compiles: beside a run that writes (or a caller that
    redirects them), the program's output went to the stream put back, and was lost (seen in the tests, whose
    capture swaps the streams, while the kernels compiled in the background)."""
    os.environ.setdefault("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", "1")
    from assay.summaries import numba_kernels

    return numba_kernels


def warm_up() -> None:
    """Load (compiling if need be) every kernel for both key types in a background thread, while the caller
    reads its input: the first large run on a new installation then waits little for the compiler."""
    if not os.environ.get("ASSAY_NO_COMPILED"):
        threading.Thread(target=_warm, name="assay-kernels", daemon=True).start()


def _warm() -> None:
    try:
        kernels = compiled(MIN_SIZE)
        if kernels is not None:
            _probe(kernels)
    except Exception:  # best effort: a kernel that fails here fails in the run too, where it is reported
        pass


def _load() -> Any:
    """The kernels, compiled with numba's disk cache; else compiled in memory; else False.

    numba's cache fails where the package is read-only and no cache directory is writable
    (``RuntimeError: cannot cache function ...: no locator available``), and numba itself
    may be missing or broken: each failure falls back to the next, never to an error.
    """
    try:
        numba_kernels = _kernels_module()
    except Exception:  # numba missing or broken: the numpy code serves
        return False
    for cache in (True, False):
        try:
            kernels = numba_kernels.build(cache=cache)
            _check(kernels)
        except Exception:
            continue
        return kernels
    return False


def _check(kernels: Any) -> None:
    """That numba compiles here (one kernel, one key type: about a second). Each other kernel compiles (or
    loads from the disk cache) when a run first calls it with its key type: a first run compiles only what it
    uses, and ``warm_up`` compiles the rest beside the reading."""
    bits = np.array([1, 2, 2], dtype=np.uint64)
    kernels.make_keys(bits, np.array([1, 0, 1], dtype=np.uint8), np.empty(3, np.uint64), np.uint64(1) << np.uint64(63))


def _probe(kernels: Any) -> None:
    """Compile (or load) every kernel for the key types in use by running it on a tiny input."""
    for uint in (np.uint32, np.uint64):
        bits = np.array([1, 2, 2], dtype=uint)
        keys = np.empty(3, dtype=uint)
        kernels.make_keys(bits, np.array([1, 0, 1], dtype=np.uint8), keys, uint(1) << uint(8 * bits.itemsize - 1))
        keys.sort()
        kernels.auc_twice_u(keys)
        m = kernels.runs(keys)
        tp, fp, out = np.zeros(m, np.int64), np.zeros(m, np.int64), np.zeros(m, uint)
        kernels.run_counts(keys, tp, fp, out, 0, False)
        kernels.keep_turning(tp, fp, out, 0)
        kernels.average_precision(keys, 2, 0, 0)
        kernels.split_keys(bits, np.array([1, 0, 1], dtype=np.uint8), np.empty(0, uint), np.empty(3, uint),
                           uint(1) << uint(8 * bits.itemsize - 1))
        positive, negative = np.empty(2, uint), np.empty(1, uint)
        sign = uint(1) << uint(8 * bits.itemsize - 1)
        kernels.order_keys(bits, np.array([1, 0, 1], dtype=np.uint8), positive, negative, sign)
        out, offsets = np.empty(2, uint), np.zeros(3, np.int64)
        shift = uint(8 * bits.itemsize - 16)
        kernels.scatter(positive, np.array([sign], dtype=uint), np.zeros(1 << 16, np.uint16), shift, out, offsets)
        kernels.count_sorted(out, negative, np.empty(3, uint), np.empty(3, np.int64), np.empty(3, np.int64))
        kernels.dense_counts(np.array([2], uint), np.array([1, 2], uint), uint(1), np.zeros(4, np.uint32),
                             np.empty(3, uint), np.empty(3, np.int64), np.empty(3, np.int64))
    a = np.array([2.0, 1.0])
    c = np.array([1, 1], dtype=np.int64)
    kernels.merge_counts(a, c, c, a, c, c, np.empty(4), np.empty(4, np.int64), np.empty(4, np.int64))
    kernels.score_losses(np.array([0.9, 0.1]), a, a, -1.0, 1e-15, np.empty((4, 2)), np.zeros((2, 4, 3)), np.zeros((2, 3)))
    counts = np.array([[1, 2], [2, 1]], dtype=np.int64)
    kernels.lowess_resamples(a[::-1].copy(), counts, counts - 1, 2.0 / 3.0, a[::-1].copy(), np.empty((2, 2)),
                             np.empty((2, 2)), np.empty((2, 4)))
    kernels.count_draws(np.array([0, 1, 1], dtype=np.int64), counts, np.zeros((2, 2), dtype=np.int64))
