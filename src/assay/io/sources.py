"""Where a table comes from: a file or standard input, its format and compression known from its name and
first bytes; and what every pyarrow read shares (Python's own Ctrl-C kept, the first line of pyarrow's error).

pyarrow is imported at the top: a source is opened only to be read by it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal, get_args

import pyarrow as pa

from assay.errors import InvalidInput
from assay.io.atomic import register_input

__all__ = ["TableFormat", "TABLE_FORMATS", "Source", "detect_format", "compression_of", "open_source",
           "standard_input_held", "interruptible", "first_line_of"]

TableFormat = Literal["csv", "tsv", "parquet", "jsonl"]
TABLE_FORMATS: tuple[str, ...] = get_args(TableFormat)

_EXTENSIONS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
}
_COMPRESSION = (".gz", ".bz2", ".zst", ".lz4")

_MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bz2"), (b"\x28\xb5\x2f\xfd", "zstd"), (b"\x04\x22\x4d\x18", "lz4"))
"""A compressed file is known by its first bytes, whatever its name says."""


def detect_format(path: str, head: bytes | None = None) -> str:
    """The table format from the file name, else from the first bytes."""
    name = path.lower()
    for ext in _COMPRESSION:
        if name.endswith(ext):
            name = name[: -len(ext)]
    for ext, fmt in _EXTENSIONS.items():
        if name.endswith(ext):
            return fmt
    if head is not None:
        if head.startswith(b"PAR1"):
            return "parquet"
        stripped = head.lstrip()
        if stripped.startswith(b"{"):
            return "jsonl"
        first_line = stripped.split(b"\n", 1)[0]
        if b"\t" in first_line and b"," not in first_line:
            return "tsv"
    return "csv"


@dataclass(frozen=True)
class Source:
    """Where a table comes from: its name for messages, how to open it afresh, and its first bytes.

    pyarrow only ever reads native streams (a path, a buffer, a decompressing stream of a path): a stream
    that calls back into Python from pyarrow's threads (a Python file object, pyarrow's own transcoding)
    can leave a reader that was given up on waiting for the interpreter while the process exits, for ever.
    """

    name: str
    path: str | None
    data: bytes | None
    compression: str | None
    head: bytes
    note: str = ""
    """How its text was read, when it says something an error should repeat (its encoding)."""

    def open(self) -> Any:
        """A fresh readable stream (decompressed), or the path itself for a plain file."""
        if self.data is not None:
            return pa.BufferReader(self.data)
        if self.compression is None:
            return self.path
        return pa.input_stream(self.path, compression=self.compression)

    @property
    def size(self) -> int | None:
        """The bytes its reader sees, when known without reading it (not for a compressed file)."""
        if self.data is not None:
            return len(self.data)
        return os.path.getsize(self.path) if self.compression is None and self.path is not None else None

    def first_bytes(self, n: int) -> bytes:
        """Its first ``n`` bytes (decompressed), or all of it when shorter."""
        if self.data is not None:
            return self.data[:n]
        if self.compression is None:
            with open(self.path, "rb") as f:  # type: ignore[arg-type]
                return f.read(n)
        with self.open() as stream:
            return stream.read(n)

    def read_all(self) -> bytes:
        if self.data is not None:
            return self.data
        if self.compression is None:
            with open(self.path, "rb") as f:  # type: ignore[arg-type]
                return f.read()
        with self.open() as stream:
            return stream.read()


def compression_of(head: bytes) -> str | None:
    return next((name for magic, name in _MAGIC if head.startswith(magic)), None)


_held_stdin: dict[str, bytes] | None = None
"""Standard input once read, while :func:`standard_input_held` keeps it for further reads."""


@contextmanager
def standard_input_held() -> Iterator[None]:
    """Within this block, standard input (``-``) is read once and every further read of ``-`` gets the same
    bytes: several columns of one piped table, read one after another, with no copy on disk."""
    global _held_stdin
    previous, _held_stdin = _held_stdin, {}
    try:
        yield
    finally:
        _held_stdin = previous


def _read_stdin() -> bytes:
    if _held_stdin is not None and "data" in _held_stdin:
        return _held_stdin["data"]
    data = sys.stdin.buffer.read()
    if _held_stdin is not None:
        _held_stdin["data"] = data
    return data


def open_source(path: str) -> Source:
    """The source of ``path`` (``-``: standard input, read whole), compression sniffed from its bytes."""
    if path == "-":
        data = _read_stdin()
        compression = compression_of(data[:4])
        if compression is not None:
            try:
                data = pa.input_stream(pa.BufferReader(data), compression=compression).read()
            except (OSError, pa.ArrowException) as e:
                raise InvalidInput(f"standard input is not valid {compression} data: "
                                   f"{first_line_of(str(e))}") from None
        if not data.strip():
            raise InvalidInput("standard input is empty")
        return Source("standard input", None, data, None, data[:4096])
    if not os.path.exists(path):
        raise InvalidInput(f"{path}: no such file")
    if os.path.isdir(path):
        raise InvalidInput(f"{path} is a directory, not a table")
    register_input(path)
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError as e:
        raise InvalidInput(f"{path}: {e.strerror or e}") from None
    if size == 0:
        raise InvalidInput(f"{path} is empty")
    compression = compression_of(head)
    if compression is not None:
        try:
            with pa.input_stream(path, compression=compression) as stream:
                head = stream.read(4096)
        except (OSError, pa.ArrowException) as e:
            raise InvalidInput(f"{path} is not valid {compression} data: {first_line_of(str(e))}") from None
        if not head.strip():
            raise InvalidInput(f"{path} is empty once decompressed")
    return Source(path, path, None, compression, head)


@contextmanager
def interruptible() -> Iterator[None]:
    """Keep Python's own SIGINT handling during a pyarrow read: pyarrow's may let a Ctrl-C go unnoticed
    (the read finishes and the run goes on), Python's raises KeyboardInterrupt as soon as it returns."""
    pa.enable_signal_handlers(False)
    try:
        yield
    finally:
        pa.enable_signal_handlers(True)


def first_line_of(message: str) -> str:
    """The first line of an error's message (pyarrow's run on), for a one-line error."""
    return str(message).strip().splitlines()[0] if str(message).strip() else "cannot be read"
