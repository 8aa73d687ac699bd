"""Reading prediction tables: CSV, TSV, Parquet, JSON lines, or standard input.

Only the columns asked for are read. Label columns are read as text, exactly as
written, so ``--positive yes`` matches the ``yes`` in the file; score columns
are read as numbers. Rows are counted from 1, after the header.
"""

from __future__ import annotations

import io
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any, Literal, get_args

from assay.errors import InvalidInput
from assay.io.atomic import register_input

__all__ = ["compression_of", "TableFormat", "TABLE_FORMATS", "NA_VALUES", "read_columns", "read_table", "detect_format", "ColumnData",
           "standard_input_held", "windows_1252"]

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

NA_VALUES: tuple[str, ...] = ("", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
                              "1.#QNAN", "N/A", "NA", "NULL", "NaN", "n/a", "nan", "null")
"""The cells of a CSV or TSV file that mean "missing" by default, as in pandas and pyarrow. A class
labelled with one of them ("NA") needs ``na_values`` (``--na-values``) without it, e.g. ``[""]``."""

MAX_BLOCK = 1 << 30
"""The longest header or row a CSV may have (1 GiB): longer ones are refused rather than read."""


@dataclass(frozen=True)
class ColumnData:
    """The columns read from one table, as pyarrow arrays, and where they came from."""

    source: str
    columns: dict[str, Any]
    n_rows: int


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
class _Source:
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
        import pyarrow as pa

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


def _open_source(path: str) -> _Source:
    """The source of ``path`` (``-``: standard input, read whole), compression sniffed from its bytes."""
    import pyarrow as pa

    if path == "-":
        data = _read_stdin()
        compression = compression_of(data[:4])
        if compression is not None:
            try:
                data = pa.input_stream(pa.BufferReader(data), compression=compression).read()
            except (OSError, pa.ArrowException) as e:
                raise InvalidInput(f"standard input is not valid {compression} data: {_first_line(str(e))}") from None
        if not data.strip():
            raise InvalidInput("standard input is empty")
        return _Source("standard input", None, data, None, data[:4096])
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
            raise InvalidInput(f"{path} is not valid {compression} data: {_first_line(str(e))}") from None
        if not head.strip():
            raise InvalidInput(f"{path} is empty once decompressed")
    return _Source(path, path, None, compression, head)


# text: UTF-8 for pyarrow, whatever the file's encoding -----------------------------------------------

WINDOWS_1252_NOTE = "{name} is not UTF-8: it was read as Windows-1252 text"
"""Added to the errors about a header read as Windows-1252, which may be why a column is not found."""

_CONTROL = re.compile("[\x00-\x08\x0e-\x19\x1b-\x1f\x7f]")
"""Characters no text table holds (tab, line breaks, form feed and the old end-of-file mark aside)."""

_UTF16_BOM = (b"\xff\xfe", b"\xfe\xff")


def _not_text(name: str, byte: int, line: int, why: str) -> InvalidInput:
    return InvalidInput(f"{name} is neither UTF-8 nor Windows-1252 text: byte 0x{byte:02x} on line {line:,} {why} "
                        "(is it a table? save it as UTF-8 text)")


def windows_1252(data: bytes, name: str, *, first_line: int = 1) -> str:
    """The text of bytes that are not UTF-8, as Windows-1252 (what spreadsheets write in Western Europe);
    bytes that no text holds (control characters, bytes Windows-1252 leaves undefined) are refused,
    naming the byte and its line (counted from ``first_line``)."""
    if first_line == 1 and data.startswith(_UTF16_BOM):
        raise InvalidInput(f"{name} is UTF-16 text (it starts with a UTF-16 byte-order mark): save it as UTF-8")
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError as e:
        line = first_line + data.count(b"\n", 0, e.start)
        raise _not_text(name, data[e.start], line, "is not a character of Windows-1252") from None
    bad = _CONTROL.search(text)
    if bad is not None:
        line = first_line + text.count("\n", 0, bad.start())
        raise _not_text(name, ord(bad.group()), line, "is a control character")
    return text


def _check_utf8_head(src: _Source) -> None:
    """A NUL byte in the first bytes of a CSV read as UTF-8: UTF-16 text, or not text at all."""
    at = src.head.find(b"\x00")
    if at >= 0:
        line = src.head.count(b"\n", 0, at) + 1
        raise InvalidInput(f"{src.name} holds NUL bytes (line {line:,}): it is UTF-16 text or not text at all; "
                           "save it as UTF-8 text")


def _utf8_source(src: _Source, dialect: Dialect) -> _Source:
    """The source as UTF-8 for pyarrow: itself when it is UTF-8, else its Windows-1252 text transcoded here,
    whole, in memory (a table read whole is held in memory anyway)."""
    if dialect.encoding == "utf8":
        _check_utf8_head(src)
        return src
    data = windows_1252(src.read_all(), src.name).encode("utf-8")
    return _Source(src.name, None, data, None, data[:4096], note=WINDOWS_1252_NOTE.format(name=src.name))


def _not_utf8(error: Exception) -> bool:
    """pyarrow's error for text that is not UTF-8 past the first bytes sniffed."""
    return "invalid utf8" in str(error).lower()


def _with_note(error: InvalidInput, note: str) -> InvalidInput:
    """An error about a table's header, with how its text was read (a column not found in a header that
    was read as Windows-1252 may be a file in yet another encoding)."""
    if not note or error.field is not None:
        return error
    return InvalidInput(f"{error.problem}; {note}")


@contextmanager
def _interruptible() -> Iterator[None]:
    """Keep Python's own SIGINT handling during a pyarrow read: pyarrow's may let a Ctrl-C go unnoticed
    (the read finishes and the run goes on), Python's raises KeyboardInterrupt as soon as it returns."""
    import pyarrow as pa

    pa.enable_signal_handlers(False)
    try:
        yield
    finally:
        pa.enable_signal_handlers(True)


def _missing_column(name: str, source: str, available: Sequence[str]) -> InvalidInput:
    shown = ", ".join(repr(c) for c in list(available)[:20])
    more = f" and {len(available) - 20} more" if len(available) > 20 else ""
    return InvalidInput(f"column {name!r} is not in {source} (its columns: {shown}{more})")


def _first_line(message: str) -> str:
    return str(message).strip().splitlines()[0] if str(message).strip() else "cannot be read"


def read_columns(
    path: str,
    *,
    text_columns: Sequence[str] = (),
    number_columns: Sequence[str] = (),
    format: str | None = None,
    na_values: Sequence[str] | None = None,
    delimiter: str | None = None,
    decimal: str | None = None,
) -> ColumnData:
    """Read the named columns of a table.

    Parameters
    ----------
    path : str
        A file, or ``-`` for standard input.
    text_columns : sequence of str
        Columns read as text exactly as written (class labels).
    number_columns : sequence of str
        Columns read as numbers; a cell that is not a number is reported later,
        with its row, by the code that needs numbers.
    format : {"csv", "tsv", "parquet", "jsonl"}, optional
        By default from the file name's extension, else from its first bytes.
        Compressed files (gzip, bz2, zstd, lz4) are recognised by their first
        bytes, whatever their name.
    na_values : sequence of str, optional
        The CSV and TSV cells that mean a missing value (default :data:`NA_VALUES`:
        the empty cell, "NA", "null", "nan", ...). ``[""]`` lets a class be
        called "NA".
    delimiter, decimal : str, optional
        For CSV: the delimiter and the decimal mark, sniffed by default (:func:`sniff_dialect`:
        a semicolon-separated file with decimal commas, a byte-order mark, Windows-1252 text).

    Raises
    ------
    InvalidInput
        When the file does not exist, is empty, cannot be parsed, lacks a column
        or holds it twice.
    """
    import pyarrow as pa

    src = _open_source(path)
    fmt = format or detect_format(path if path != "-" else "", src.head)
    if fmt not in TABLE_FORMATS:
        raise InvalidInput(f"{fmt!r} is not one of the formats {list(TABLE_FORMATS)}", field="format")
    wanted = list(dict.fromkeys([*text_columns, *number_columns]))
    nulls = list(NA_VALUES if na_values is None else na_values)
    note = ""
    try:
        with _interruptible():
            if fmt in ("csv", "tsv"):
                dialect = sniff_dialect(src.head, fmt, delimiter=delimiter, decimal=decimal)
                text = _utf8_source(src, dialect)
                note = text.note
                try:
                    table = _read_csv(text, fmt, wanted, set(text_columns), nulls, dialect)
                except pa.ArrowInvalid as e:
                    if text is not src or not _not_utf8(e):
                        raise
                    # UTF-8 in its first bytes, not further on: Windows-1252 text after all
                    text = _utf8_source(src, replace(dialect, encoding="cp1252"))
                    note = text.note
                    table = _read_csv(text, fmt, wanted, set(text_columns), nulls, dialect)
            elif fmt == "parquet":
                table = _read_parquet(src, wanted)
            else:
                table = _read_jsonl(src, wanted, set(text_columns))
    except InvalidInput as e:
        raise _with_note(e, note) from None
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OSError, ValueError) as e:
        raise InvalidInput(f"{src.name} cannot be read as {fmt.upper()}: {_first_line(str(e))}") from None
    if table.num_rows == 0:
        raise _with_note(InvalidInput(f"{src.name} has a header but no rows"), note)
    columns = {}
    for name in wanted:
        column = table.column(name)
        if _is_nested(column.type):
            raise InvalidInput(f"column {name!r} holds nested values ({column.type}), not labels or numbers")
        if name in text_columns and not pa.types.is_string(column.type) and not pa.types.is_large_string(column.type):
            column = _as_text(column)
        columns[name] = column
    return ColumnData(src.name, columns, table.num_rows)


def _is_nested(kind: Any) -> bool:
    import pyarrow as pa

    return pa.types.is_nested(kind) or (pa.types.is_dictionary(kind) and pa.types.is_nested(kind.value_type))


def _check_names(names: Sequence[str], wanted: Sequence[str], source: str) -> None:
    """Every wanted column present, and present once."""
    for name in wanted:
        if name not in names:
            raise _missing_column(name, source, names)
        positions = [i + 1 for i, n in enumerate(names) if n == name]
        if len(positions) > 1:
            raise InvalidInput(f"column {name!r} appears {len(positions)} times in {source} (columns "
                               f"{', '.join(map(str, positions))}); rename all but one")


def _as_text(column: Any) -> Any:
    """A non-text column (from Parquet or JSON) as text, numbers kept as numbers would print."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_dictionary(column.type):
        return column.cast(pa.string()) if pa.types.is_string(column.type.value_type) else column
    if pa.types.is_integer(column.type) or pa.types.is_boolean(column.type):
        return pc.cast(column, pa.string())
    return column  # floats stay numbers: 1.0 and 1 are one class either way


def _csv_block(src: _Source) -> int:
    """A block size that holds the header line (pyarrow needs the header within one block)."""
    newline = src.head.find(b"\n")
    if newline >= 0:
        return max(1 << 20, 4 * newline)
    return 1 << 22  # a header longer than the 4 KiB head: start large, grow if needed


_BLOCK_ERRORS = ("straddling", "Empty CSV file or block", "block size")
"""pyarrow's words when a header or a row did not fit in the block it read."""


def _with_growing_blocks(read: Callable[[int], Any], start: int, src: _Source, delimiter: str = ",") -> Any:
    """Call ``read(block_size)``, quadrupling the block while pyarrow says a header or a row did not fit.

    Before a larger block is tried, the header is looked at: a quote that is never closed, or no line
    break at all, is said as such (a larger block cannot help); and so is a failure once the block holds
    the whole file."""
    import pyarrow as pa

    block = start
    while True:
        try:
            return read(block)
        except pa.ArrowInvalid as e:
            text = str(e)
            if not any(words in text for words in _BLOCK_ERRORS):
                raise
            problem = header_problem(src, block, delimiter)
            if problem is not None:
                raise InvalidInput(problem) from None
            size = src.size
            if size is not None and block > size:  # the whole file was one block: no row is too long for it
                raise InvalidInput(f"{src.name} cannot be read as CSV: {_first_line(text)}") from None
            if block >= MAX_BLOCK:
                raise InvalidInput(f"{src.name} has a header or a row longer than {MAX_BLOCK >> 20} MiB") from None
            block *= 4


def header_problem(src: _Source, block: int, delimiter: str = ",") -> str | None:
    """Why the header of a CSV source does not end within its first ``block`` bytes, when that is known:
    the data end first, inside a quote that is never closed, or with no line break at all. None when the
    header ends within them, or may end past them."""
    data = src.first_bytes(block + 1)
    if len(data) > block:
        return None  # the header ends within the block (a row did not fit), or may end past it
    text = data.decode("utf-8", errors="replace").lstrip("\ufeff")
    end, quote = record_end(text, 0, delimiter)
    if end is not None:
        return None
    if quote is not None:
        field, at = quote
        shown = text[at:at + 24].split("\n")[0].split("\r")[0]
        return (f"{src.name}: the quote that opens field {field} of the header ({shown}...) is never closed, so "
                "the rest of the file would be one cell; close the quote or remove it")
    return f"{src.name} has a header but no rows (it holds no line break)"


_FIELD_ENDS: dict[str, re.Pattern[str]] = {}


def record_end(text: str, start: int, delimiter: str) -> tuple[int | None, tuple[int, int] | None]:
    """Where the record (a CSV line, with the line breaks inside its quoted fields) that begins at ``start``
    ends: the offset after its line break; or None when the text ends first, and then the field (counted
    from 1) and the offset of a quote left open. A quote opens a quoted field only where the field begins,
    as pyarrow reads them (``x"y`` is text); ``""`` inside a quoted field is a quote."""
    ends = _FIELD_ENDS.get(delimiter)
    if ends is None:
        ends = _FIELD_ENDS[delimiter] = re.compile("[" + re.escape(delimiter) + "\r\n]")
    field, i, n = 1, start, len(text)
    while True:
        if i < n and text[i] == '"':
            at, j = i, i + 1
            while True:
                k = text.find('"', j)
                if k < 0:
                    return None, (field, at)
                if k + 1 < n and text[k + 1] == '"':
                    j = k + 2
                    continue
                i = k + 1
                break
        m = ends.search(text, i)
        if m is None:
            return None, None
        if m.group() == delimiter:
            field += 1
            i = m.end()
            continue
        end = m.end()
        if m.group() == "\r" and end < n and text[end] == "\n":
            end += 1
        return end, None


@dataclass(frozen=True)
class Dialect:
    """How a CSV file is written: its delimiter, its decimal mark and its text encoding."""

    delimiter: str = ","
    decimal: str = "."
    encoding: str = "utf8"

    def read_options(self, **options: Any) -> Any:
        """pyarrow's options for the text as pyarrow reads it: UTF-8, which Windows-1252 text is transcoded
        to first (:func:`windows_1252`), never by pyarrow's own transcoding, which calls back into Python
        from its threads and can keep the process from exiting after an error."""
        from pyarrow import csv

        return csv.ReadOptions(encoding="utf8", **options)

    def parse_options(self) -> Any:
        from pyarrow import csv

        return csv.ParseOptions(delimiter=self.delimiter)


DELIMITERS = (",", ";", "\t", "|")
"""Delimiters sniffed in a CSV file's header: the most frequent outside quotes (a comma on ties)."""


def sniff_dialect(head: bytes, fmt: str, *, delimiter: str | None = None, decimal: str | None = None) -> Dialect:
    """The dialect of a CSV or TSV file from its first bytes, unless given.

    The encoding is UTF-8 (a byte-order mark skipped) unless the bytes are not UTF-8, then
    Windows-1252 (a superset of Latin-1, what spreadsheets write in Western Europe). The delimiter is
    the most frequent of comma, semicolon, tab and bar in the header line, outside quotes (TSV: a tab).
    The decimal mark is a comma when the delimiter is not and the lines below the header hold numbers
    written with a decimal comma (``0,93``), as European spreadsheets write them.
    """
    try:
        text = head.decode("utf-8")
        encoding = "utf8"
    except UnicodeDecodeError as e:
        if e.reason == "unexpected end of data":  # a character cut by the end of the head
            text, encoding = head[:e.start].decode("utf-8"), "utf8"
        else:
            text, encoding = head.decode("cp1252", errors="replace"), "cp1252"
    text = text.lstrip("\ufeff")
    lines = text.splitlines()
    if delimiter is None:
        if fmt == "tsv":
            delimiter = "\t"
        else:
            header = re.sub(r'"[^"]*"', "", lines[0] if lines else "")
            counts = {d: header.count(d) for d in DELIMITERS}
            delimiter = max(DELIMITERS, key=lambda d: (counts[d], d == ","))
            if counts[delimiter] == 0:
                delimiter = ","
    if decimal is None:
        decimal = "."
        if delimiter != ",":
            cells = [c.strip().strip('"') for line in lines[1:20] for c in line.split(delimiter)]
            if any(re.fullmatch(r"[-+]?\d+,\d+", c) for c in cells) and \
                    not any(re.fullmatch(r"[-+]?\d*\.\d+", c) for c in cells):
                decimal = ","
    return Dialect(delimiter, decimal, encoding)


def _read_csv(src: _Source, fmt: str, wanted: list[str], text: set[str], nulls: list[str],
              dialect: Dialect | None = None) -> Any:
    import pyarrow as pa
    from pyarrow import csv

    dialect = dialect or sniff_dialect(src.head, fmt)
    parse = dialect.parse_options()

    def names_of(block: int) -> list[str]:
        return csv.open_csv(src.open(), read_options=dialect.read_options(block_size=block),
                            parse_options=parse).schema.names

    try:
        names = _with_growing_blocks(names_of, _csv_block(src), src, dialect.delimiter)
    except pa.ArrowInvalid as e:
        if _not_utf8(e):
            raise
        raise InvalidInput(f"{src.name} cannot be read as {fmt.upper()}: {_first_line(str(e))}") from None
    _check_names(names, wanted, src.name)
    convert = csv.ConvertOptions(
        include_columns=wanted,
        column_types={name: pa.string() for name in wanted if name in text},
        null_values=nulls,
        strings_can_be_null=True,
        decimal_point=dialect.decimal,
    )

    def table_of(block: int) -> Any:
        return csv.read_csv(src.open(), read_options=dialect.read_options(use_threads=True, block_size=block),
                            parse_options=parse, convert_options=convert)

    return _with_growing_blocks(table_of, _csv_block(src), src, dialect.delimiter)


def _read_parquet(src: _Source, wanted: list[str]) -> Any:
    import pyarrow as pa
    import pyarrow.parquet as pq

    handle = src.open() if src.compression is None else pa.BufferReader(src.open().read())
    schema = pq.read_schema(handle)
    _check_names(schema.names, wanted, src.name)
    if hasattr(handle, "seek"):
        handle.seek(0)
    return pq.read_table(handle, columns=wanted)


def _read_jsonl(src: _Source, wanted: list[str], text: set[str]) -> Any:
    """Only the wanted columns, typed from the first lines: other fields are ignored, whatever they hold."""
    import pyarrow as pa
    from pyarrow import json

    fields = [pa.field(name, kind) for name, kind in _json_types(src, wanted, text).items()]
    options = json.ParseOptions(explicit_schema=pa.schema(fields), unexpected_field_behavior="ignore")
    try:
        return json.read_json(src.open(), parse_options=options)
    except pa.ArrowInvalid as e:
        raise _json_value_error(src, wanted, text, str(e)) from None


def _json_types(src: _Source, wanted: list[str], text: set[str]) -> dict[str, Any]:
    """The arrow type of each wanted field, from the values on the first lines (up to 1 MiB)."""
    import json as pyjson

    import pyarrow as pa

    stream = src.open()
    if isinstance(stream, str):
        with open(stream, "rb") as f:
            chunk = f.read(1 << 20)
    else:
        chunk = stream.read(1 << 20)
    seen: dict[str, set[str]] = {name: set() for name in wanted}
    keys: list[str] = []
    lines = chunk.split(b"\n")
    if len(chunk) == 1 << 20 and len(lines) > 1:
        lines = lines[:-1]  # the last line may be cut short
    for number, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            record = pyjson.loads(line)
        except ValueError:
            raise InvalidInput(f"{src.name} cannot be read as JSONL: line {number + 1} is not valid JSON") from None
        if not isinstance(record, dict):
            raise InvalidInput(f"{src.name} cannot be read as JSONL: line {number + 1} is not a JSON object")
        keys.extend(k for k in record if k not in keys)
        for name in wanted:
            value = record.get(name)
            kind = ("null" if value is None else "bool" if isinstance(value, bool) else
                    "number" if isinstance(value, (int, float)) else "text" if isinstance(value, str) else "nested")
            if kind == "nested":
                raise InvalidInput(f"column {name!r} holds nested values ({type(value).__name__}), "
                                   "not labels or numbers")
            seen[name].add(kind)
    _check_names(keys, wanted, src.name)
    types = {}
    for name in wanted:
        kinds = seen[name] - {"null"}
        if name in text:
            types[name] = pa.bool_() if kinds == {"bool"} else pa.float64() if kinds == {"number"} else pa.string()
        else:
            types[name] = pa.string() if kinds == {"text"} else pa.float64()
    return types


class _Readable(io.RawIOBase):
    """A pyarrow stream (a decompressing one has no readline) as a Python raw stream, to read lines from."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self._stream.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def _json_value_error(src: _Source, wanted: list[str], text: set[str], message: str) -> InvalidInput:
    """Name the line and the value that pyarrow's JSON reader stopped at (its own row numbers count from 0,
    within a block): found by reading the lines again, which only a bad file pays for."""
    import json as pyjson

    column = next((name for name in wanted if f"/{name})" in message), None)
    if column is not None:
        stream = src.open()
        raw = open(stream, "rb") if isinstance(stream, str) else stream
        lines = raw if isinstance(raw, (io.BytesIO, io.BufferedReader)) else io.BufferedReader(_Readable(raw))
        try:
            kinds: set[type] = set()
            for number, line in enumerate(lines):
                if not line.strip():
                    continue
                try:
                    value = pyjson.loads(line).get(column)
                except (ValueError, AttributeError):
                    return InvalidInput(f"{src.name} line {number + 1} is not a JSON object")
                kind = type(value) if value is not None else type(None)
                kind = float if kind is int else kind
                if column not in text and kind is not float and kind is not type(None):
                    return InvalidInput(f"{value!r} is not a number", field=f"column {column!r}", row=number)
                if kinds and kind not in kinds and kind is not type(None):
                    return InvalidInput(f"{value!r} is not of the type of the column's earlier values",
                                        field=f"column {column!r}", row=number)
                if kind is not type(None):
                    kinds.add(kind)
        finally:
            if hasattr(lines, "close"):
                lines.close()
    return InvalidInput(f"{src.name} cannot be read as JSONL: {_first_line(message)}")


def read_table(path: str, *, format: str | None = None, required: Sequence[str] = ()) -> ColumnData:
    """Read every column of a table (a data set to learn from), types as the file says.

    ``required`` names columns that must be there (the target), with the usual
    one-line error when one is not.
    """
    import pyarrow as pa
    from pyarrow import csv

    src = _open_source(path)
    source = src.name
    fmt = format or detect_format(path if path != "-" else "", src.head)
    if fmt not in TABLE_FORMATS:
        raise InvalidInput(f"{fmt!r} is not one of the formats {list(TABLE_FORMATS)}", field="format")
    note = ""
    try:
        with _interruptible():
            if fmt in ("csv", "tsv"):
                dialect = sniff_dialect(src.head, fmt)

                def whole(text: _Source) -> Any:
                    return _with_growing_blocks(lambda block: csv.read_csv(
                        text.open(), read_options=dialect.read_options(block_size=block),
                        parse_options=dialect.parse_options(),
                        convert_options=csv.ConvertOptions(strings_can_be_null=True, decimal_point=dialect.decimal)),
                        _csv_block(text), text, dialect.delimiter)

                text = _utf8_source(src, dialect)
                note = text.note
                table = whole(text)
                if text is src and any(pa.types.is_binary(kind) for kind in table.schema.types):
                    # a column pyarrow left as bytes: not UTF-8 past the first bytes, Windows-1252 after all
                    text = _utf8_source(src, replace(dialect, encoding="cp1252"))
                    note = text.note
                    table = whole(text)
            elif fmt == "parquet":
                import pyarrow.parquet as pq

                handle = src.open() if src.compression is None else pa.BufferReader(src.open().read())
                table = pq.read_table(handle)
            else:
                from pyarrow import json

                table = json.read_json(src.open())
    except InvalidInput as e:
        raise _with_note(e, note) from None
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OSError, ValueError) as e:
        raise InvalidInput(f"{source} cannot be read as {fmt.upper()}: {_first_line(str(e))}") from None
    names = table.column_names  # a new list at each access: taken once (5,000 columns took 70 s)
    repeated = sorted({n for n in names if names.count(n) > 1}) if len(set(names)) < len(names) else []
    if repeated:
        _check_names(table.column_names, repeated, source)
    for name in required:
        if name not in table.column_names:
            raise _missing_column(name, source, table.column_names)
    if table.num_rows == 0:
        raise InvalidInput(f"{source} has a header but no rows")
    return ColumnData(source, {name: table.column(name) for name in table.column_names}, table.num_rows)
