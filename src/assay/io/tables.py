"""Reading prediction tables: CSV, TSV, Parquet, JSON lines, or standard input.

Only the columns asked for are read. Label columns are read as text, exactly as
written, so ``--positive yes`` matches the ``yes`` in the file; score columns
are read as numbers. Rows are counted from 1, after the header.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO, Literal, get_args

from assay.errors import InvalidInput

__all__ = ["TableFormat", "TABLE_FORMATS", "read_columns", "read_table", "detect_format", "ColumnData"]

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


def _open_source(path: str) -> tuple[str, BinaryIO | str, bytes | None]:
    """(display name, path or buffer, first bytes)."""
    if path == "-":
        data = sys.stdin.buffer.read()
        if not data.strip():
            raise InvalidInput("standard input is empty")
        return "standard input", io.BytesIO(data), data[:4096]
    if not os.path.exists(path):
        raise InvalidInput(f"{path}: no such file")
    if os.path.isdir(path):
        raise InvalidInput(f"{path} is a directory, not a table")
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError as e:
        raise InvalidInput(f"{path}: {e.strerror or e}") from None
    if size == 0:
        raise InvalidInput(f"{path} is empty")
    return path, path, head


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

    Raises
    ------
    InvalidInput
        When the file does not exist, is empty, cannot be parsed, or lacks a column.
    """
    import pyarrow as pa

    source, handle, head = _open_source(path)
    fmt = format or detect_format(path if path != "-" else "", head)
    if fmt not in TABLE_FORMATS:
        raise InvalidInput(f"{fmt!r} is not one of the formats {list(TABLE_FORMATS)}", field="format")
    wanted = list(dict.fromkeys([*text_columns, *number_columns]))
    try:
        if fmt in ("csv", "tsv"):
            table = _read_csv(handle, source, fmt, wanted, set(text_columns))
        elif fmt == "parquet":
            table = _read_parquet(handle, source, wanted)
        else:
            table = _read_jsonl(handle, source, wanted)
    except InvalidInput:
        raise
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OSError, ValueError) as e:
        raise InvalidInput(f"{source} cannot be read as {fmt.upper()}: {_first_line(str(e))}") from None
    if table.num_rows == 0:
        raise InvalidInput(f"{source} has a header but no rows")
    columns = {}
    for name in wanted:
        column = table.column(name)
        if name in text_columns and not pa.types.is_string(column.type) and not pa.types.is_large_string(column.type):
            column = _as_text(column)
        columns[name] = column
    return ColumnData(source, columns, table.num_rows)


def _as_text(column: Any) -> Any:
    """A non-text column (from Parquet or JSON) as text, numbers kept as numbers would print."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_dictionary(column.type):
        return column.cast(pa.string()) if pa.types.is_string(column.type.value_type) else column
    if pa.types.is_integer(column.type) or pa.types.is_boolean(column.type):
        return pc.cast(column, pa.string())
    return column  # floats stay numbers: 1.0 and 1 are one class either way


def _read_csv(handle: Any, source: str, fmt: str, wanted: list[str], text: set[str]) -> Any:
    import pyarrow as pa
    from pyarrow import csv

    delimiter = "\t" if fmt == "tsv" else ","
    parse = csv.ParseOptions(delimiter=delimiter)
    header_opts = csv.ReadOptions(block_size=1 << 16)
    # read the header first to name missing columns clearly
    try:
        reader = csv.open_csv(handle, read_options=header_opts, parse_options=parse)
        names = reader.schema.names
    except pa.ArrowInvalid as e:
        raise InvalidInput(f"{source} cannot be read as {fmt.upper()}: {_first_line(str(e))}") from None
    for name in wanted:
        if name not in names:
            raise _missing_column(name, source, names)
    if hasattr(handle, "seek"):
        handle.seek(0)
    convert = csv.ConvertOptions(
        include_columns=wanted,
        column_types={name: pa.string() for name in wanted if name in text},
        strings_can_be_null=True,
    )
    return csv.read_csv(handle, read_options=csv.ReadOptions(use_threads=True), parse_options=parse,
                        convert_options=convert)


def _read_parquet(handle: Any, source: str, wanted: list[str]) -> Any:
    import pyarrow.parquet as pq

    schema = pq.read_schema(handle)
    for name in wanted:
        if name not in schema.names:
            raise _missing_column(name, source, schema.names)
    if hasattr(handle, "seek"):
        handle.seek(0)
    return pq.read_table(handle, columns=wanted)


def _read_jsonl(handle: Any, source: str, wanted: list[str]) -> Any:
    from pyarrow import json

    table = json.read_json(handle)
    for name in wanted:
        if name not in table.column_names:
            raise _missing_column(name, source, table.column_names)
    return table.select(wanted)


def read_table(path: str, *, format: str | None = None, required: Sequence[str] = ()) -> ColumnData:
    """Read every column of a table (a data set to learn from), types as the file says.

    ``required`` names columns that must be there (the target), with the usual
    one-line error when one is not.
    """
    import pyarrow as pa
    from pyarrow import csv

    source, handle, head = _open_source(path)
    fmt = format or detect_format(path if path != "-" else "", head)
    if fmt not in TABLE_FORMATS:
        raise InvalidInput(f"{fmt!r} is not one of the formats {list(TABLE_FORMATS)}", field="format")
    try:
        if fmt in ("csv", "tsv"):
            parse = csv.ParseOptions(delimiter="\t" if fmt == "tsv" else ",")
            table = csv.read_csv(handle, parse_options=parse, convert_options=csv.ConvertOptions(
                strings_can_be_null=True))
        elif fmt == "parquet":
            import pyarrow.parquet as pq

            table = pq.read_table(handle)
        else:
            from pyarrow import json

            table = json.read_json(handle)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OSError, ValueError) as e:
        raise InvalidInput(f"{source} cannot be read as {fmt.upper()}: {_first_line(str(e))}") from None
    for name in required:
        if name not in table.column_names:
            raise _missing_column(name, source, table.column_names)
    if table.num_rows == 0:
        raise InvalidInput(f"{source} has a header but no rows")
    return ColumnData(source, {name: table.column(name) for name in table.column_names}, table.num_rows)
