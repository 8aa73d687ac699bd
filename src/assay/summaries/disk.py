"""Arrays on disk: room in the temporary directory, and arrays mapped from files read a chunk at a time.

A summary larger than the memory budget is written to the system's temporary directory
(``TMPDIR``) and mapped from there (:mod:`assay.summaries.spill`). A directory too full for it
is said in one line, with about how much room the run needs there (:func:`room_for`), never as
a bare ``OSError``. Every walk over a mapped array reads it ``CHUNK`` entries at a time and calls
:func:`release` after each, so that the pages it has read go back to the system.
"""

from __future__ import annotations

import errno
import mmap
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from assay.errors import InvalidInput

__all__ = ["CHUNK", "is_full", "spill_amount", "temporary_full", "check_room", "room_for", "is_on_disk", "release",
           "gather"]

CHUNK = 1 << 17
"""Distinct scores (curve points) handled at a time by the chunked walks."""


# room in the temporary directory ------------------------------------------------------------------


def is_full(error: OSError) -> bool:
    """Whether a write failed for want of room: no space left, a quota exceeded, or numpy's short write
    ("N requested and M written", which carries no errno)."""
    if error.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        return True
    text = str(error)
    return error.errno is None and "requested and" in text and "written" in text


def spill_amount(size: float) -> str:
    """Bytes as people say them: "1.4 GB", "300 MB" (powers of 1024, as --memory reads them)."""
    for unit, scale in (("TB", 1 << 40), ("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if size >= scale:
            value = size / scale
            return f"{value:.1f} {unit}" if value < 10 else f"{value:,.0f} {unit}"
    return f"{int(size)} bytes"


def temporary_full(directory: str | None, need: int | None, least: int | None = None) -> InvalidInput:
    """The one-line error for a temporary directory without the room a run needs: about ``least`` bytes
    (float32 scores' keys) and ``need`` for float64 scores' (or about ``need``), when known."""
    where = os.path.abspath(directory or tempfile.gettempdir())
    try:
        free = f" (it has {spill_amount(shutil.disk_usage(where).free)} free)"
    except OSError:
        free = ""
    if need and least and least < need:
        needs = f": this run needs about {spill_amount(least)} there, {spill_amount(need)} for float64 scores{free}"
    elif need:
        needs = f": this run needs about {spill_amount(need)} there{free}"
    else:
        needs = free
    return InvalidInput(f"the temporary directory {where} is full{needs}; set TMPDIR to a directory with room, "
                        "or give a larger memory budget (--memory), which keeps more in memory")


def check_room(directory: str | None, sure: int, need: int | None = None, least: int | None = None) -> None:
    """Refuse before anything is written when the temporary directory has less room than ``sure`` bytes,
    which are sure to be written; the error says ``least`` and ``need`` (:func:`temporary_full`)."""
    where = directory or tempfile.gettempdir()
    try:
        free = shutil.disk_usage(where).free
    except OSError:
        return  # nothing known: the writes will say
    if free < sure:
        raise temporary_full(where, need or sure, least)


@contextmanager
def room_for(need: int | None = None, directory: str | None = None, least: int | None = None) -> Iterator[None]:
    """Writes to the temporary directory within: a want of room becomes :func:`temporary_full`'s
    one-line error, naming about what the run needs there when known."""
    try:
        yield
    except OSError as e:
        if is_full(e):
            raise temporary_full(directory, need, least) from None
        raise


def _mapping(array: Any) -> Any:
    """The ``mmap`` behind a (view of a) memory-mapped array, else None."""
    while array is not None:
        if isinstance(array, np.memmap) and getattr(array, "_mmap", None) is not None:
            return array._mmap
        array = getattr(array, "base", None)
        if isinstance(array, mmap.mmap):
            return array
    return None


def is_on_disk(array: Any) -> bool:
    """Whether an array is mapped from a file (a spilled summary's), or read from one on demand (a column of
    a summary kept as its sorted keys, :mod:`assay.summaries.ranges`): either is walked a chunk at a time."""
    return getattr(array, "on_disk", False) is True or _mapping(array) is not None


def release(*arrays: Any) -> None:
    """Give back the pages of disk-mapped arrays that a walk has read (nothing for arrays in memory).

    The pages stay in the system's file cache; they only stop counting in this process's memory.
    """
    for array in arrays:
        mapping = _mapping(array)
        if mapping is not None and hasattr(mapping, "madvise"):
            mapping.madvise(mmap.MADV_DONTNEED)


def gather(array: Any, index: np.ndarray, step: int = 256) -> np.ndarray:
    """``array[index]``; from an array on disk, ``step`` entries at a time, each group's pages given back
    (a few hundred scattered reads map a few megabytes, not the whole file)."""
    if not is_on_disk(array):
        return np.asarray(array)[index]
    out = np.empty(len(index), dtype=array.dtype)
    for start in range(0, len(index), step):
        out[start:start + step] = array[index[start:start + step]]
        release(array)
    return out
