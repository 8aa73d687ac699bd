"""Writing output files: whole or not at all, and never over something that is not ours to replace.

One writer serves every output (``-o``, ``--html``, ``--plots``, ``--predictions``):

* a regular file, or a path that does not exist yet, is written to a hidden
  temporary file beside it (``.assay-*.tmp``), flushed to disk and renamed over
  the path: a reader sees the old file or the new one, never half of one;
* a symbolic link is followed: its target is written (as above), the link stays;
* anything else (a terminal, ``/dev/stdout``, ``/dev/null``, a pipe or FIFO, a
  socket) is opened and written through, never renamed over or removed;
* a path that is an input of the same run (the same file, also through a link
  or a hard link) is refused, and so is a second output of the run to one file.

The temporary file is removed on any exception, KeyboardInterrupt included (the
command line turns SIGTERM into an exception too), and by :func:`abandon` when the
command line must end the process at once after a signal (:mod:`assay.cli.ending`).
Only SIGKILL, which no program can catch, may leave one behind.
"""

from __future__ import annotations

import os
import stat
import tempfile
import threading
from collections.abc import Iterable, Iterator

__all__ = ["OutputRefused", "abandon", "begin_run", "end_run", "register_input", "write_atomic"]

_INPUTS: set[tuple[int, int]] = set()
"""(device, inode) of every regular file this run has read as input."""

_OUTPUTS: set[tuple[int, int]] = set()
"""(device, inode) of every regular file this run has written."""


class OutputRefused(OSError):
    """An output path that must not be written: an input of the run, or an output already written."""


_PENDING: set[str] = set()
"""Temporary files being written now (removed by :func:`abandon` when the process must end at once)."""

_RENAMING = threading.Lock()
"""Held while a temporary file is renamed over its target, and by :func:`abandon`: an output is either
renamed whole before the process ends, or removed."""

_abandoned = False

_active = False
"""Whether a run of the command line is under way: only then are inputs and outputs remembered (a
notebook that reads a file and later writes it on purpose is not refused)."""


def begin_run() -> None:
    """A run starts: inputs and outputs are remembered from now on (the command line calls this first)."""
    global _active
    _INPUTS.clear()
    _OUTPUTS.clear()
    _active = True


def end_run() -> None:
    """The run is over: forget its inputs and outputs."""
    global _active
    _INPUTS.clear()
    _OUTPUTS.clear()
    _active = False


def _identity(path: str) -> tuple[int, int] | None:
    """(device, inode) of a regular file at ``path`` (links followed), else None."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISREG(st.st_mode) else None


def register_input(path: str) -> None:
    """Remember that ``path`` is an input, so that no output is ever written over it."""
    identity = _identity(path)
    if identity is not None and _active:
        _INPUTS.add(identity)


def write_atomic(path: str, data: str | bytes | Iterable[str | bytes]) -> None:
    """Write ``data`` (or its pieces, one after another) to ``path``: atomically for a regular file,
    through for a device or a pipe.

    Raises
    ------
    OutputRefused
        When ``path`` is an input of this run or was already written by it.
    OSError
        When it cannot be written (no such directory, no permission, a directory, ...).
    """
    payload = _pieces(data)
    target = os.path.realpath(path)  # a link is followed: its target is what gets written
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        raise IsADirectoryError(21, "it is a directory")
    if mode is not None and not stat.S_ISREG(mode):
        _write_through(target, payload)
        return
    identity = _identity(target)
    if identity in _INPUTS:
        raise OutputRefused("it is an input of this run; choose another output path")
    if identity in _OUTPUTS:
        raise OutputRefused("another output of this run went there; give each output its own path")
    _replace(target, payload, None if mode is None else stat.S_IMODE(mode))
    written = _identity(target)
    if written is not None and _active:
        _OUTPUTS.add(written)


def _pieces(data: str | bytes | Iterable[str | bytes]) -> Iterator[bytes]:
    for piece in [data] if isinstance(data, (str, bytes)) else data:
        yield piece.encode("utf-8") if isinstance(piece, str) else piece


def _write_through(target: str, payload: Iterable[bytes]) -> None:
    """A device, a FIFO or a socket: written in place, never replaced."""
    with open(target, "wb") as f:
        for piece in payload:
            f.write(piece)
        f.flush()


def _replace(target: str, payload: Iterable[bytes], mode: int | None) -> None:
    """A temporary file beside ``target``, synced, then renamed over it."""
    directory = os.path.dirname(target) or "."
    fd, tmp = tempfile.mkstemp(prefix=".assay-", suffix=".tmp", dir=directory)
    _PENDING.add(tmp)
    try:
        with os.fdopen(fd, "wb") as f:
            for piece in payload:
                f.write(piece)
            f.flush()
            os.fsync(f.fileno())
        if mode is None:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        with _RENAMING:
            if _abandoned:
                raise KeyboardInterrupt
            os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    finally:
        _PENDING.discard(tmp)


def abandon(timeout: float = 2.0) -> None:
    """The process is about to end at once (a signal that the run did not finish handling in time): remove
    every temporary file being written, and rename nothing from now on. Called from a thread other than
    the writer's; waits at most ``timeout`` seconds for a rename under way."""
    global _abandoned
    held = _RENAMING.acquire(timeout=timeout)
    try:
        _abandoned = True
        for tmp in list(_PENDING):
            try:
                os.unlink(tmp)
            except OSError:
                pass
    finally:
        if held:
            _RENAMING.release()
