"""Reading CSV and TSV text with pyarrow: the text as UTF-8 whatever the file's encoding, the dialect
(delimiter, decimal mark) sniffed from the first bytes, and blocks that grow until a header or a row fits.

Shared by the whole-table reader (:mod:`assay.io.tables`) and the batch reader (:mod:`assay.io.batches`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from pyarrow import csv

from assay.errors import InvalidInput
from assay.io.sources import Source, first_line_of

__all__ = ["MAX_BLOCK", "WINDOWS_1252_NOTE", "windows_1252", "check_utf8_head", "utf8_source", "not_utf8",
           "with_note", "csv_block", "with_growing_blocks", "header_problem", "record_end", "Dialect", "DELIMITERS",
           "sniff_dialect"]

MAX_BLOCK = 1 << 30
"""The longest header or row a CSV may have (1 GiB): longer ones are refused rather than read."""


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


def check_utf8_head(src: Source) -> None:
    """A NUL byte in the first bytes of a CSV read as UTF-8: UTF-16 text, or not text at all."""
    at = src.head.find(b"\x00")
    if at >= 0:
        line = src.head.count(b"\n", 0, at) + 1
        raise InvalidInput(f"{src.name} holds NUL bytes (line {line:,}): it is UTF-16 text or not text at all; "
                           "save it as UTF-8 text")


def utf8_source(src: Source, dialect: Dialect) -> Source:
    """The source as UTF-8 for pyarrow: itself when it is UTF-8, else its Windows-1252 text transcoded here,
    whole, in memory (a table read whole is held in memory anyway)."""
    if dialect.encoding == "utf8":
        check_utf8_head(src)
        return src
    data = windows_1252(src.read_all(), src.name).encode("utf-8")
    return Source(src.name, None, data, None, data[:4096], note=WINDOWS_1252_NOTE.format(name=src.name))


def not_utf8(error: Exception) -> bool:
    """pyarrow's error for text that is not UTF-8 past the first bytes sniffed."""
    return "invalid utf8" in str(error).lower()


def with_note(error: InvalidInput, note: str) -> InvalidInput:
    """An error about a table's header, with how its text was read (a column not found in a header that
    was read as Windows-1252 may be a file in yet another encoding)."""
    if not note or error.field is not None:
        return error
    return InvalidInput(f"{error.problem}; {note}")


def csv_block(src: Source) -> int:
    """A block size that holds the header line (pyarrow needs the header within one block)."""
    newline = src.head.find(b"\n")
    if newline >= 0:
        return max(1 << 20, 4 * newline)
    return 1 << 22  # a header longer than the 4 KiB head: start large, grow if needed


_BLOCK_ERRORS = ("straddling", "Empty CSV file or block", "block size")
"""pyarrow's words when a header or a row did not fit in the block it read."""


def with_growing_blocks(read: Callable[[int], Any], start: int, src: Source, delimiter: str = ",") -> Any:
    """Call ``read(block_size)``, quadrupling the block while pyarrow says a header or a row did not fit.

    Before a larger block is tried, the header is looked at: a quote that is never closed, or no line
    break at all, is said as such (a larger block cannot help); and so is a failure once the block holds
    the whole file."""
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
                raise InvalidInput(f"{src.name} cannot be read as CSV: {first_line_of(text)}") from None
            if block >= MAX_BLOCK:
                raise InvalidInput(f"{src.name} has a header or a row longer than {MAX_BLOCK >> 20} MiB") from None
            block *= 4


def header_problem(src: Source, block: int, delimiter: str = ",") -> str | None:
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
        return csv.ReadOptions(encoding="utf8", **options)

    def parse_options(self) -> Any:
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
