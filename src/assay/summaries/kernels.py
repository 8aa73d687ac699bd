"""Compiled single passes over the sorted keys, for large inputs.

The numpy code in ``scores.py`` and ``metrics/ranking.py`` reads the sorted keys
with several vectorised passes (run boundaries, cumulative counts, gathers),
each of which walks the whole array and allocates a temporary as large as it.
For large inputs these passes, not the sort, dominate. The kernels here do the
same work in one pass each, compiled by numba (``cache=True``: compiled once
per machine and kept on disk).

They are used only above ``MIN_SIZE`` instances, so a small report never pays
numba's import, and only when numba imports; otherwise, or with the
environment variable ``ASSAY_NO_COMPILED`` set, the numpy code runs
(``ASSAY_COMPILED_MIN_SIZE`` moves the threshold, for tests). Both give
the same numbers: the tests run every ranking check both ways.

Every kernel takes the ascending keys of one part (``SortedKeys``: a score's
order-preserving bits shifted left one, the class in bit 0; negatives before
positives among equal scores) and walks it from the top score down.
"""

from __future__ import annotations

import os
from types import ModuleType
from typing import Any

__all__ = ["MIN_SIZE", "compiled"]

MIN_SIZE = int(os.environ.get("ASSAY_COMPILED_MIN_SIZE", 200_000))

_module: ModuleType | None | bool = None  # None: not tried yet; False: numba unavailable


def compiled(n: int) -> Any:
    """The compiled kernels when they pay for ``n`` instances, else None."""
    global _module
    if n < MIN_SIZE or os.environ.get("ASSAY_NO_COMPILED"):
        return None
    if _module is None:
        try:
            from assay.summaries import _kernels

            _module = _kernels
        except ImportError:  # numba missing or broken: the numpy code serves
            _module = False
    return _module or None
