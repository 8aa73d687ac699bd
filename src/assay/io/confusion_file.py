"""Reading a confusion matrix given directly as a small CSV (or TSV) file.

The first row holds the predicted class labels (after a corner cell that is
ignored); the first column holds the actual class labels; rows are actual::

    actual\\predicted,neg,pos
    neg,90,10
    pos,20,80
"""

from __future__ import annotations

import csv
import io
import math
import os
import sys
from typing import Any

import numpy as np

from assay.checks import check_count, check_count_table
from assay.errors import InvalidInput
from assay.limits import MAX_COUNT
from assay.io.atomic import register_input
from assay.summaries.confusion import ConfusionCounts

__all__ = ["read_confusion", "parse_confusion", "read_cost_matrix", "parse_cost_matrix"]


def read_confusion(path: str) -> ConfusionCounts:
    """Read a confusion matrix file (``-`` for standard input)."""
    text, source, delimiter = _read(path)
    return parse_confusion(text, source=source, delimiter=delimiter)


class CostMatrixFile(tuple):
    """(classes, costs) as :func:`read_cost_matrix` reads them, with ``source``, the file's name, by which
    messages about the matrix (a class of the data it lacks, a class the data lack) name it."""

    source: str

    def __new__(cls, classes: tuple[str, ...], costs: np.ndarray, source: str) -> CostMatrixFile:
        self = super().__new__(cls, (classes, costs))
        self.source = source
        return self

    def __getnewargs__(self) -> tuple[Any, ...]:  # pickled to Spark's executors as it is
        return (self[0], self[1], self.source)


def read_cost_matrix(path: str) -> tuple[tuple[str, ...], np.ndarray]:
    """Read a cost matrix file, laid out as a confusion matrix file (first row: predicted classes; first
    column: actual classes); each cell the cost of that outcome, any finite number. The pair (classes, costs)
    keeps the file's name as ``.source`` for messages."""
    text, source, delimiter = _read(path)
    return CostMatrixFile(*parse_cost_matrix(text, source=source, delimiter=delimiter), source)


def parse_cost_matrix(text: str, *, source: str = "the cost matrix",
                      delimiter: str | None = None) -> tuple[tuple[str, ...], np.ndarray]:
    """The classes (in the rows' order) and the k x k costs, rows actual and columns predicted.

    >>> parse_cost_matrix("actual,a,b\\na,0,5\\nb,1,0\\n")[1].tolist()
    [[0.0, 5.0], [1.0, 0.0]]
    """
    def cell(value: str) -> float:
        number = _number(value)
        if isinstance(number, str) or not math.isfinite(float(number)):
            raise ValueError(value)
        return float(number)

    labels, square = _parse_square(text, source, delimiter, cell, "a cost (a finite number)")
    return tuple(labels), np.array(square, dtype=np.float64)


def _read(path: str) -> tuple[str, str, str | None]:
    if path == "-":
        text = sys.stdin.read()
        source = "standard input"
    else:
        if not os.path.exists(path):
            raise InvalidInput(f"{path}: no such file")
        register_input(path)
        try:
            with open(path, encoding="utf-8-sig", newline="") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as e:
            raise InvalidInput(f"{path} cannot be read: {e}") from None
        source = path
    delimiter = "\t" if path.lower().endswith((".tsv", ".tab")) else None
    return text, source, delimiter


def parse_confusion(text: str, *, source: str = "the matrix", delimiter: str | None = None) -> ConfusionCounts:
    """Parse the text of a confusion matrix file.

    Examples
    --------
    >>> parse_confusion("actual,neg,pos\\nneg,90,10\\npos,20,80\\n").counts.tolist()
    [[90, 10], [20, 80]]
    """
    def cell(value: str) -> int:
        return check_count(_number(value), "cell")

    actual, square = _parse_square(text, source, delimiter, cell, f"a whole count >= 0 of at most {MAX_COUNT:,}")
    try:
        return ConfusionCounts(tuple(actual), check_count_table(square, "matrix"))
    except InvalidInput as e:
        raise InvalidInput(f"{source}: {e.problem}") from None


def _number(cell: str) -> int | float | str:
    """A cell as an exact integer when it is one (beyond float precision too), else a float, else as is."""
    try:
        return int(cell)
    except ValueError:
        pass
    try:
        return float(cell)
    except ValueError:
        return cell


def _parse_square(text: str, source: str, delimiter: str | None, convert: Any, what: str) -> tuple[list[str], list[list[Any]]]:
    """The actual classes and the square of cells, columns put in the rows' order; ``convert`` converts a cell
    (``convert`` raises on a bad one, named as ``what``)."""
    if not text.strip():
        raise InvalidInput(f"{source} is empty")
    if delimiter is None:
        first = text.strip().splitlines()[0]
        delimiter = "\t" if "\t" in first and "," not in first else ";" if ";" in first and "," not in first else ","
    rows = [r for r in csv.reader(io.StringIO(text), delimiter=delimiter) if any(c.strip() for c in r)]
    header = [c.strip() for c in rows[0]]
    predicted = header[1:]
    if len(predicted) < 2:
        raise InvalidInput(f"{source}: the first row must name at least two predicted classes after a corner cell")
    if len(set(predicted)) != len(predicted):
        raise InvalidInput(f"{source}: a predicted class repeats in the first row: {predicted}")
    actual: list[str] = []
    counts: list[list[Any]] = []
    for line_no, row in enumerate(rows[1:], start=2):
        cells = [c.strip() for c in row]
        if len(cells) != len(header):
            raise InvalidInput(f"{source} row {line_no}: {len(cells)} cells, but the first row has {len(header)}")
        label = cells[0]
        if label in actual:
            raise InvalidInput(f"{source} row {line_no}: actual class {label!r} repeats")
        actual.append(label)
        values = []
        for col, value in zip(predicted, cells[1:], strict=True):
            try:
                values.append(convert(value))
            except (InvalidInput, ValueError):
                raise InvalidInput(f"{source} row {line_no} (actual {label!r}), column {col!r}: {value!r} is not "
                                   f"{what}") from None
        counts.append(values)
    if set(actual) != set(predicted):
        only_rows = [a for a in actual if a not in predicted]
        only_cols = [p for p in predicted if p not in actual]
        parts = []
        if only_rows:
            parts.append(f"actual classes {only_rows} have no column")
        if only_cols:
            parts.append(f"predicted classes {only_cols} have no row")
        raise InvalidInput(f"{source}: rows and columns must name the same classes; " + "; ".join(parts))
    order = [predicted.index(a) for a in actual]
    square = [[row[j] for j in order] for row in counts]
    return actual, square
