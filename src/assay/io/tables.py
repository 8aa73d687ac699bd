"""Reading prediction tables whole: CSV, TSV, Parquet, JSON lines, or standard input.

Only the columns asked for are read. Label columns are read as text, exactly as
written, so ``--positive yes`` matches the ``yes`` in the file; score columns
are read as numbers. Rows are counted from 1, after the header.

Where the bytes come from is :mod:`assay.io.sources`; the CSV text and dialect,
:mod:`assay.io.csv_reading`; JSON lines, :mod:`assay.io.json_lines`; the checks of
the columns read, :mod:`assay.io.columns` (all shared with the batch reader,
:mod:`assay.io.batches`). pyarrow's Parquet reader is imported only for a Parquet
file (:mod:`assay.lazy_imports`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import pyarrow as pa
from pyarrow import csv
from pyarrow import json as arrow_json

from assay.errors import InvalidInput
from assay.io.columns import as_text, check_names, is_nested, missing_column
from assay.io.csv_reading import (
    Dialect,
    csv_block,
    not_utf8,
    sniff_dialect,
    utf8_source,
    windows_1252,
    with_growing_blocks,
    with_note,
)
from assay.io.json_lines import read_jsonl
from assay.io.sources import (
    TABLE_FORMATS,
    Source,
    TableFormat,
    compression_of,
    detect_format,
    first_line_of,
    interruptible,
    open_source,
    standard_input_held,
)

__all__ = ["compression_of", "TableFormat", "TABLE_FORMATS", "NA_VALUES", "read_columns", "read_table", "detect_format",
           "ColumnData", "standard_input_held", "windows_1252", "Dialect", "sniff_dialect"]

NA_VALUES: tuple[str, ...] = ("", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
                              "1.#QNAN", "N/A", "NA", "NULL", "NaN", "n/a", "nan", "null")
"""The cells of a CSV or TSV file that mean "missing" by default, as in pandas and pyarrow. A class
labelled with one of them ("NA") needs ``na_values`` (``--na-values``) without it, e.g. ``[""]``."""

@dataclass(frozen=True)
class ColumnData:
    """The columns read from one table, as pyarrow arrays, and where they came from."""

    source: str
    columns: dict[str, Any]
    n_rows: int


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
    src = open_source(path)
    fmt = format or detect_format(path if path != "-" else "", src.head)
    if fmt not in TABLE_FORMATS:
        raise InvalidInput(f"{fmt!r} is not one of the formats {list(TABLE_FORMATS)}", field="format")
    wanted = list(dict.fromkeys([*text_columns, *number_columns]))
    nulls = list(NA_VALUES if na_values is None else na_values)
    note = ""
    try:
        with interruptible():
            if fmt in ("csv", "tsv"):
                dialect = sniff_dialect(src.head, fmt, delimiter=delimiter, decimal=decimal)
                text = utf8_source(src, dialect)
                note = text.note
                try:
                    table = _read_csv(text, fmt, wanted, set(text_columns), nulls, dialect)
                except pa.ArrowInvalid as e:
                    if text is not src or not not_utf8(e):
                        raise
                    # UTF-8 in its first bytes, not further on: Windows-1252 text after all
                    text = utf8_source(src, replace(dialect, encoding="cp1252"))
                    note = text.note
                    table = _read_csv(text, fmt, wanted, set(text_columns), nulls, dialect)
            elif fmt == "parquet":
                table = _read_parquet(src, wanted)
            else:
                table = read_jsonl(src, wanted, set(text_columns))
    except InvalidInput as e:
        raise with_note(e, note) from None
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OSError, ValueError) as e:
        raise InvalidInput(f"{src.name} cannot be read as {fmt.upper()}: {first_line_of(str(e))}") from None
    if table.num_rows == 0:
        raise with_note(InvalidInput(f"{src.name} has a header but no rows"), note)
    columns = {}
    for name in wanted:
        column = table.column(name)
        if is_nested(column.type):
            raise InvalidInput(f"column {name!r} holds nested values ({column.type}), not labels or numbers")
        if name in text_columns and not pa.types.is_string(column.type) and not pa.types.is_large_string(column.type):
            column = as_text(column)
        columns[name] = column
    return ColumnData(src.name, columns, table.num_rows)


def _read_csv(src: Source, fmt: str, wanted: list[str], text: set[str], nulls: list[str],
              dialect: Dialect | None = None) -> Any:
    dialect = dialect or sniff_dialect(src.head, fmt)
    parse = dialect.parse_options()

    def names_of(block: int) -> list[str]:
        return csv.open_csv(src.open(), read_options=dialect.read_options(block_size=block),
                            parse_options=parse).schema.names

    try:
        names = with_growing_blocks(names_of, csv_block(src), src, dialect.delimiter)
    except pa.ArrowInvalid as e:
        if not_utf8(e):
            raise
        raise InvalidInput(f"{src.name} cannot be read as {fmt.upper()}: {first_line_of(str(e))}") from None
    check_names(names, wanted, src.name)
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

    return with_growing_blocks(table_of, csv_block(src), src, dialect.delimiter)


def _read_parquet(src: Source, wanted: list[str]) -> Any:
    import pyarrow.parquet as pq  # lazy (assay.lazy_imports): only a Parquet file needs it

    handle = src.open() if src.compression is None else pa.BufferReader(src.open().read())
    schema = pq.read_schema(handle)
    check_names(schema.names, wanted, src.name)
    if hasattr(handle, "seek"):
        handle.seek(0)
    return pq.read_table(handle, columns=wanted)


def read_table(path: str, *, format: str | None = None, required: Sequence[str] = ()) -> ColumnData:
    """Read every column of a table (a data set to learn from), types as the file says.

    ``required`` names columns that must be there (the target), with the usual
    one-line error when one is not.
    """
    src = open_source(path)
    source = src.name
    fmt = format or detect_format(path if path != "-" else "", src.head)
    if fmt not in TABLE_FORMATS:
        raise InvalidInput(f"{fmt!r} is not one of the formats {list(TABLE_FORMATS)}", field="format")
    note = ""
    try:
        with interruptible():
            if fmt in ("csv", "tsv"):
                dialect = sniff_dialect(src.head, fmt)

                def whole(text: Source) -> Any:
                    return with_growing_blocks(lambda block: csv.read_csv(
                        text.open(), read_options=dialect.read_options(block_size=block),
                        parse_options=dialect.parse_options(),
                        convert_options=csv.ConvertOptions(strings_can_be_null=True, decimal_point=dialect.decimal)),
                        csv_block(text), text, dialect.delimiter)

                text = utf8_source(src, dialect)
                note = text.note
                table = whole(text)
                if text is src and any(pa.types.is_binary(kind) for kind in table.schema.types):
                    # a column pyarrow left as bytes: not UTF-8 past the first bytes, Windows-1252 after all
                    text = utf8_source(src, replace(dialect, encoding="cp1252"))
                    note = text.note
                    table = whole(text)
            elif fmt == "parquet":
                import pyarrow.parquet as pq  # lazy (assay.lazy_imports): only a Parquet file needs it

                handle = src.open() if src.compression is None else pa.BufferReader(src.open().read())
                table = pq.read_table(handle)
            else:
                table = arrow_json.read_json(src.open())
    except InvalidInput as e:
        raise with_note(e, note) from None
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OSError, ValueError) as e:
        raise InvalidInput(f"{source} cannot be read as {fmt.upper()}: {first_line_of(str(e))}") from None
    names = table.column_names  # a new list at each access: taken once (5,000 columns took 70 s)
    repeated = sorted({n for n in names if names.count(n) > 1}) if len(set(names)) < len(names) else []
    if repeated:
        check_names(table.column_names, repeated, source)
    for name in required:
        if name not in table.column_names:
            raise missing_column(name, source, table.column_names)
    if table.num_rows == 0:
        raise InvalidInput(f"{source} has a header but no rows")
    return ColumnData(source, {name: table.column(name) for name in table.column_names}, table.num_rows)
