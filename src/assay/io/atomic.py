"""Writing output files whole or not at all."""

from __future__ import annotations

import os
import tempfile

__all__ = ["write_atomic", "register_input"]

_INPUTS: set[tuple[int, int]] = set()
"""(device, inode) of every file this process has read as input."""


def register_input(path: str) -> None:
    """Remember that ``path`` is an input, so that no output is ever written over it."""
    try:
        st = os.stat(path)
    except OSError:
        return
    _INPUTS.add((st.st_dev, st.st_ino))


def write_atomic(path: str, data: str | bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename.

    A reader never sees a half-written file, and an existing file is replaced
    only once the new one is complete.
    """
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".assay-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
