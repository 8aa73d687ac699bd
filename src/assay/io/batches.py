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
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from assay.errors import InvalidInput
from assay.io.tables import (
    NA_VALUES,
    TABLE_FORMATS,
    _as_text,
    _check_names,
    _csv_block,
    _first_line,
    _interruptible,
    _is_nested,
    _open_source,
    _read_jsonl,
    detect_format,
    sniff_dialect,
)

__all__ = ["Batch", "Scan", "scan", "parts_of"]

BATCH_ROWS = 1 << 20
"""Rows per batch read from a Parquet part (a CSV part is read in blocks of about as many bytes)."""

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

    def __iter__(self) -> Iterator[Batch]:
        wanted = list(dict.fromkeys([*self.text_columns, *self.number_columns]))
        for part in self.parts:
            yield from _batches(part, wanted, set(self.text_columns), self.format, self.na_values,
                                (self.delimiter, self.decimal))


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
         decimal: str | None = None) -> Scan:
    """The batches of a file, a directory of parts or a glob (iterate the result; it can be read again).
    CSV parts' delimiter and decimal mark are sniffed from each part unless given."""
    if format is not None and format not in TABLE_FORMATS:
        raise InvalidInput(f"{format!r} is not one of the formats {list(TABLE_FORMATS)}", field="format")
    parts = parts_of(source)
    return Scan(parts, _rows_expected(parts), tuple(text_columns), tuple(number_columns), format,
                None if na_values is None else tuple(na_values), delimiter, decimal)


def _rows_expected(parts: Sequence[str]) -> int | None:
    """The total row count from the Parquet footers, when every part is a plain Parquet file."""
    import pyarrow.parquet as pq

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
             na_values: Sequence[str] | None, dialect: tuple[str | None, str | None] = (None, None)) -> Iterator[Batch]:
    import pyarrow as pa

    src = _open_source(part)
    fmt = format or detect_format(part, src.head)
    row = 1
    try:
        with _interruptible():
            for record_batch in _record_batches(src, fmt, wanted, text, na_values, dialect):
                columns = {}
                for name in wanted:
                    column = record_batch.column(name)
                    if _is_nested(column.type):
                        raise InvalidInput(f"{part}: column {name!r} holds nested values ({column.type}), "
                                           "not labels or numbers")
                    # integers stay integers: their labels read as the text would ("0", "1"), faster
                    if name in text and not (pa.types.is_string(column.type) or pa.types.is_integer(column.type)
                                             or pa.types.is_large_string(column.type)):
                        column = _as_text(column)
                    columns[name] = column
                batch = Batch(part, row, columns)
                row += batch.n_rows
                if batch.n_rows:
                    yield batch
    except InvalidInput:
        raise
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OSError, ValueError) as e:
        raise InvalidInput(f"{part} cannot be read as {fmt.upper()} (near row {row:,}): "
                           f"{_first_line(str(e))}") from None


def _record_batches(src: Any, fmt: str, wanted: list[str], text: set[str],
                    na_values: Sequence[str] | None,
                    dialect: tuple[str | None, str | None] = (None, None)) -> Iterator[Any]:
    import pyarrow as pa

    if fmt in ("csv", "tsv"):
        from pyarrow import csv

        dialect = sniff_dialect(src.head, fmt, delimiter=dialect[0], decimal=dialect[1])
        parse = dialect.parse_options()
        block = max(_csv_block(src), 1 << 22)
        names = csv.open_csv(src.open(), read_options=dialect.read_options(block_size=block),
                             parse_options=parse).schema.names
        _check_names(names, wanted, src.name)
        reader = csv.open_csv(src.open(), read_options=dialect.read_options(block_size=block), parse_options=parse,
                              convert_options=csv.ConvertOptions(
                                  include_columns=wanted,
                                  column_types={name: pa.string() for name in wanted if name in text},
                                  null_values=list(NA_VALUES if na_values is None else na_values),
                                  strings_can_be_null=True, decimal_point=dialect.decimal))
        yield from reader
    elif fmt == "parquet":
        import io

        import pyarrow.parquet as pq

        handle = src.open() if src.compression is None else io.BytesIO(src.open().read())
        file = pq.ParquetFile(handle)
        _check_names(file.schema_arrow.names, wanted, src.name)
        yield from file.iter_batches(batch_size=BATCH_ROWS, columns=wanted)
    else:
        yield from _read_jsonl(src, wanted, text).to_batches(max_chunksize=BATCH_ROWS)
