"""Reading predictions a batch at a time: one file, a directory of parts, or a glob.

The streaming counterpart of :func:`assay.io.tables.read_columns`: the same formats,
the same checks (columns present and named once, nested values refused when used,
compression recognised by its first bytes, the same missing-value strings), but the
rows arrive in record batches, so that memory holds one batch and the summaries, never
the whole table. Every batch says which part it comes from and the row of that part
its first row is (counted from 1), so that an error names ``part-00017.parquet row
734,512``.

CSV and TSV parts are read by pyarrow's streaming CSV reader and Parquet parts a row
group at a time; a JSON-lines part is read whole (pyarrow has no streaming JSON
reader), so a single JSON-lines file larger than memory is not supported: split it or
convert it to Parquet.
"""

from __future__ import annotations

import glob
import os
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from pyarrow import csv

from assay.errors import InvalidInput
from assay.io.columns import as_text, check_names, is_nested
from assay.io.csv_reading import (
    WINDOWS_1252_NOTE,
    Dialect,
    check_utf8_head,
    csv_block,
    not_utf8,
    record_end,
    sniff_dialect,
    windows_1252,
    with_growing_blocks,
    with_note,
)
from assay.io.json_lines import read_jsonl
from assay.io.sources import TABLE_FORMATS, Source, detect_format, first_line_of, interruptible, open_source
from assay.io.tables import NA_VALUES
from assay.summaries.disk import check_room, room_for

__all__ = ["Batch", "Scan", "scan", "parts_of"]

BATCH_ROWS = 1 << 20
"""The most rows per batch read from a Parquet part."""

BLOCK = 4 << 20
"""Bytes of a CSV part read at a time, unless the scan is given its own ``block`` (a memory budget's share:
:func:`assay.engines.files.read_block`); a Parquet part's batches hold about a third as many rows."""

_HIDDEN = (".", "_")  # Spark's and Hadoop's markers (_SUCCESS, .crc files) are not parts


@dataclass(frozen=True)
class Batch:
    """Some rows of one part: the wanted columns (pyarrow arrays), where they come from."""

    part: str
    first_row: int  # 1-based row of the part that the batch's first row is
    columns: dict[str, Any]

    @property
    def n_rows(self) -> int:
        return len(next(iter(self.columns.values()))) if self.columns else 0


@dataclass(frozen=True)
class Scan:
    """The parts of a source and, where their metadata says, how many rows they hold in all."""

    parts: tuple[str, ...]
    rows_expected: int | None
    text_columns: tuple[str, ...]
    number_columns: tuple[str, ...]
    format: str | None
    na_values: tuple[str, ...] | None
    delimiter: str | None = None
    decimal: str | None = None
    block: int = BLOCK

    def __iter__(self) -> Iterator[Batch]:
        wanted = list(dict.fromkeys([*self.text_columns, *self.number_columns]))
        for part in self.parts:
            yield from _batches(part, wanted, set(self.text_columns), self.format, self.na_values,
                                (self.delimiter, self.decimal), self.block)

    @property
    def size(self) -> int:
        """The bytes of its parts on disk (compressed ones as they are stored)."""
        total = 0
        for part in self.parts:
            try:
                total += os.path.getsize(part)
            except OSError:
                pass
        return total


def parts_of(source: str) -> tuple[str, ...]:
    """The files a source names: itself, the table files of a directory (recursively), or a glob's matches.

    >>> parts_of("no/such/*.parquet")
    Traceback (most recent call last):
    ...
    assay.errors.InvalidInput: no/such/*.parquet: no file matches
    """
    if any(c in source for c in "*?["):
        found = sorted(p for p in glob.glob(source, recursive=True) if os.path.isfile(p))
        if not found:
            raise InvalidInput(f"{source}: no file matches")
        return tuple(found)
    if os.path.isdir(source):
        found = []
        for root, dirs, files in os.walk(source):
            dirs[:] = sorted(d for d in dirs if not d.startswith(_HIDDEN))
            found.extend(os.path.join(root, f) for f in sorted(files) if not f.startswith(_HIDDEN))
        if not found:
            raise InvalidInput(f"{source} is a directory with no table files")
        return tuple(found)
    if not os.path.exists(source):
        raise InvalidInput(f"{source}: no such file")
    return (source,)


def scan(source: str, *, text_columns: Sequence[str] = (), number_columns: Sequence[str] = (),
         format: str | None = None, na_values: Sequence[str] | None = None, delimiter: str | None = None,
         decimal: str | None = None, block: int = BLOCK) -> Scan:
    """The batches of a file, a directory of parts or a glob (iterate the result; it can be read again).
    CSV parts' delimiter and decimal mark are sniffed from each part unless given; ``block`` is the bytes of
    a CSV part read at a time (a Parquet part's batches hold about a third as many rows)."""
    if format is not None and format not in TABLE_FORMATS:
        raise InvalidInput(f"{format!r} is not one of the formats {list(TABLE_FORMATS)}", field="format")
    parts = parts_of(source)
    return Scan(parts, _rows_expected(parts), tuple(text_columns), tuple(number_columns), format,
                None if na_values is None else tuple(na_values), delimiter, decimal, int(block))


def _rows_expected(parts: Sequence[str]) -> int | None:
    """The total row count from the Parquet footers, when every part is a plain Parquet file."""
    import pyarrow.parquet as pq  # lazy (assay.lazy_imports): only Parquet parts need it

    total = 0
    for part in parts:
        if detect_format(part) != "parquet":
            return None
        try:
            total += pq.ParquetFile(part).metadata.num_rows
        except Exception:  # a compressed or corrupt part: its rows are counted when it is read
            return None
    return total


def _batches(part: str, wanted: list[str], text: set[str], format: str | None,
             na_values: Sequence[str] | None, dialect: tuple[str | None, str | None] = (None, None),
             block: int = BLOCK) -> Iterator[Batch]:
    src = open_source(part)
    fmt = format or detect_format(part, src.head)
    row = 1
    note: list[str] = []
    try:
        with interruptible():
            for record_batch in _record_batches(src, fmt, wanted, text, na_values, dialect, block, note):
                columns = {}
                for name in wanted:
                    column = record_batch.column(name)
                    if is_nested(column.type):
                        raise InvalidInput(f"{part}: column {name!r} holds nested values ({column.type}), "
                                           "not labels or numbers")
                    # integers stay integers: their labels read as the text would ("0", "1"), faster
                    if name in text and not (pa.types.is_string(column.type) or pa.types.is_integer(column.type)
                                             or pa.types.is_large_string(column.type)):
                        column = as_text(column)
                    columns[name] = column
                batch = Batch(part, row, columns)
                row += batch.n_rows
                if batch.n_rows:
                    yield batch
    except InvalidInput as e:
        raise with_note(e, note[0] if note else "") from None
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OSError, ValueError) as e:
        if not_utf8(e):
            raise InvalidInput(f"{part} is not UTF-8 text near row {row:,}, though its first bytes are: save it as "
                               "UTF-8 (or as Windows-1252 throughout)") from None
        if _unended_row(e):
            where = f"a row after row {row - 1:,}" if row > 1 else "a row near the start"
            raise InvalidInput(f"{part}: {where} does not end within {_mib(block)}: a quote that is never closed, "
                               "or a cell that long (a larger memory budget reads larger blocks)") from None
        raise InvalidInput(f"{part} cannot be read as {fmt.upper()} (near row {row:,}): "
                           f"{first_line_of(str(e))}") from None


def _unended_row(error: Exception) -> bool:
    """pyarrow's errors for a row that did not end within a block (a quote left open, a cell that long)."""
    return "straddling" in str(error) or "out of sync with chunker" in str(error)


def _mib(size: int) -> str:
    return f"{size / (1 << 20):.3g} MiB"


def _record_batches(src: Any, fmt: str, wanted: list[str], text: set[str],
                    na_values: Sequence[str] | None,
                    dialect: tuple[str | None, str | None] = (None, None), block: int = BLOCK,
                    note: list[str] | None = None) -> Iterator[Any]:
    if fmt in ("csv", "tsv"):
        sniffed = sniff_dialect(src.head, fmt, delimiter=dialect[0], decimal=dialect[1])
        parse = sniffed.parse_options()
        with _utf8_part(src, sniffed, block) as utf8:
            if note is not None and utf8.note:
                note.append(utf8.note)
            start = max(csv_block(utf8), block) if utf8.head.find(b"\n") < 0 else block

            def names_of(size: int) -> tuple[list[str], int]:
                reader = csv.open_csv(utf8.open(), read_options=sniffed.read_options(block_size=size),
                                      parse_options=parse)
                return reader.schema.names, size

            names, size = with_growing_blocks(names_of, start, utf8, sniffed.delimiter)
            check_names(names, wanted, utf8.name)
            reader = csv.open_csv(utf8.open(), read_options=sniffed.read_options(block_size=size),
                                  parse_options=parse,
                                  convert_options=csv.ConvertOptions(
                                      include_columns=wanted,
                                      column_types={name: pa.string() for name in wanted if name in text},
                                      null_values=list(NA_VALUES if na_values is None else na_values),
                                      strings_can_be_null=True, decimal_point=sniffed.decimal))
            rows = 0
            try:
                for batch in reader:
                    rows += batch.num_rows
                    yield batch
            except pa.ArrowInvalid as e:
                if not _unended_row(e):
                    raise
                problem = _open_quote_after(utf8, rows, size, sniffed.delimiter)
                if problem is None:
                    raise
                raise InvalidInput(problem) from None
    elif fmt == "parquet":
        import pyarrow.parquet as pq  # lazy (assay.lazy_imports): only Parquet parts need it

        handle = src.open() if src.compression is None else pa.BufferReader(src.open().read())
        # column chunks read a buffer at a time, not whole row groups ahead (190 MiB for 2 columns of 2·10^7
        # rows in row groups of 2^20, against 30 MiB)
        file = pq.ParquetFile(handle, pre_buffer=False, buffer_size=block)
        check_names(file.schema_arrow.names, wanted, src.name)
        yield from file.iter_batches(batch_size=max(4096, min(BATCH_ROWS, block // 3)), columns=wanted)
    else:
        yield from read_jsonl(src, wanted, text).to_batches(max_chunksize=BATCH_ROWS)


def _open_quote_after(src: Source, rows: int, block: int, delimiter: str) -> str | None:
    """The quote left open that made a CSV part's row run on past a block, after its first ``rows`` rows:
    the records from there are followed, their quoted line breaks included, over two blocks; the first
    that does not end within them is named by its line. None when none is found (a cell that long)."""
    line, skip, carry = 1, rows + 1, b""  # the header and the rows read are skipped, line by line
    stream = src.open()
    stream = open(stream, "rb") if isinstance(stream, str) else stream
    with stream:
        while skip:
            chunk = stream.read(1 << 20)
            if not chunk:
                return None
            at = 0
            while skip:
                found = chunk.find(b"\n", at)
                if found < 0:
                    break
                at, skip, line = found + 1, skip - 1, line + 1
            carry = chunk[at:] if not skip else b""
        window = carry + stream.read(2 * block)
        complete = len(window) < len(carry) + 2 * block
    text = window.decode("utf-8", errors="replace")
    start = 0
    while start < len(text):
        end, quote = record_end(text, start, delimiter)
        if end is None:
            if quote is None:
                return None
            field, at = quote
            where = line + text.count("\n", 0, at)
            shown = text[at:at + 24].split("\n")[0].split("\r")[0]
            reach = "" if complete else f" within {_mib(2 * block)}"
            return (f"{src.name} line {where:,}: the quote that opens field {field} ({shown}...) is not closed"
                    f"{reach}, so the rest of the file would be one cell; close the quote or remove it")
        line += text.count("\n", start, end)
        start = end
    return None


TRANSCODE_CHUNK = 1 << 24
"""Bytes of a Windows-1252 part transcoded to UTF-8 at a time."""


@contextmanager
def _utf8_part(src: Source, dialect: Dialect, block: int) -> Iterator[Source]:
    """A CSV part as UTF-8 for pyarrow: itself when it is UTF-8; Windows-1252 text transcoded here, in memory
    when it is no larger than a block, else into a temporary file (``TMPDIR``) removed when the part is read."""
    if dialect.encoding == "utf8":
        check_utf8_head(src)
        yield src
        return
    note = WINDOWS_1252_NOTE.format(name=src.name)
    size = src.size
    if src.data is not None or (size is not None and size <= block):
        data = windows_1252(src.read_all(), src.name).encode("utf-8")
        yield Source(src.name, None, data, None, data[:4096], note=note)
        return
    directory = tempfile.gettempdir()
    # about as many bytes as the part, and one more for each character beyond ASCII (two for the euro sign)
    grown = len(src.head.decode("cp1252", errors="replace").encode("utf-8")) / max(len(src.head), 1)
    need = int((size or 4 * os.path.getsize(src.path or "")) * grown * 1.01) + (1 << 16)
    check_room(directory, need)
    with room_for(need, directory):
        handle = tempfile.NamedTemporaryFile(prefix="assay-text-", suffix=".csv", dir=directory, delete=False)
    try:
        with handle, room_for(need, directory):
            stream = src.open()
            stream = open(stream, "rb") if isinstance(stream, str) else stream
            with stream:
                line = 1
                while True:
                    chunk = stream.read(TRANSCODE_CHUNK)
                    if not chunk:
                        break
                    handle.write(windows_1252(chunk, src.name, first_line=line).encode("utf-8"))
                    line += chunk.count(b"\n")
        with open(handle.name, "rb") as f:
            head = f.read(4096)
        yield Source(src.name, handle.name, None, None, head, note=note)
    finally:
        os.unlink(handle.name)
