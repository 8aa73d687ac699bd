"""Reading JSON lines with pyarrow: only the wanted fields, typed from the first lines, and the line and
value named when pyarrow's reader stops."""

from __future__ import annotations

import io
import json
from typing import Any

import pyarrow as pa
from pyarrow import json as arrow_json

from assay.errors import InvalidInput
from assay.io.columns import check_names
from assay.io.sources import Source, first_line_of

__all__ = ["read_jsonl"]


def read_jsonl(src: Source, wanted: list[str], text: set[str]) -> Any:
    """Only the wanted columns, typed from the first lines: other fields are ignored, whatever they hold."""
    fields = [pa.field(name, kind) for name, kind in _json_types(src, wanted, text).items()]
    options = arrow_json.ParseOptions(explicit_schema=pa.schema(fields), unexpected_field_behavior="ignore")
    try:
        return arrow_json.read_json(src.open(), parse_options=options)
    except pa.ArrowInvalid as e:
        raise _json_value_error(src, wanted, text, str(e)) from None


def _json_types(src: Source, wanted: list[str], text: set[str]) -> dict[str, Any]:
    """The arrow type of each wanted field, from the values on the first lines (up to 1 MiB)."""
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
            record = json.loads(line)
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
    check_names(keys, wanted, src.name)
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


def _json_value_error(src: Source, wanted: list[str], text: set[str], message: str) -> InvalidInput:
    """Name the line and the value that pyarrow's JSON reader stopped at (its own row numbers count from 0,
    within a block): found by reading the lines again, which only a bad file pays for."""
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
                    value = json.loads(line).get(column)
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
    return InvalidInput(f"{src.name} cannot be read as JSONL: {first_line_of(message)}")
