"""Errors that describe a user's mistake precisely enough to fix it.

Every error names *what* is wrong, *where* (the field, and the row when there is
one) and the *value* found. The command line renders the same error with column
names and 1-based row numbers; Python shows the argument name and the 0-based
index.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["InvalidInput"]


class InvalidInput(ValueError):
    """An input that assay cannot evaluate.

    Parameters
    ----------
    problem : str
        What is wrong, as a phrase that reads after the location, e.g.
        ``"'high' is not a number"``.
    field : str, optional
        The argument the problem is in (``"y_true"``, ``"y_score"``, ...).
    row : int, optional
        0-based position of the first offending element.

    Examples
    --------
    >>> err = InvalidInput("'high' is not a number", field="y_score", row=16)
    >>> str(err)
    "y_score[16]: 'high' is not a number"
    >>> err.describe(names={"y_score": "column 'p'"}, one_based=True)
    "column 'p' row 17: 'high' is not a number"

    An option named in the problem as ``{option:NAME}`` reads ``NAME=`` in Python and as the
    command line's option where ``names`` maps ``"NAME="`` to it:

    >>> err = InvalidInput("holds scores: give them as {option:y_score}", field="y_pred")
    >>> str(err), err.describe(names={"y_score=": "--score"})
    ('y_pred: holds scores: give them as y_score=', 'y_pred: holds scores: give them as --score')
    """

    def __init__(self, problem: str, *, field: str | None = None, row: int | None = None):
        self.problem = problem
        self.field = field
        self.row = row
        super().__init__(self.describe())

    def describe(self, *, names: Mapping[str, str] | None = None, one_based: bool = False) -> str:
        """The message, with fields renamed through ``names`` (e.g. to column names)."""
        field = self.field
        if field is not None and names:
            field = names.get(field, field)
        problem = re.sub(r"\{option:([\w=]+)\}", lambda m: _option(m.group(1), names), self.problem)
        if field is None:
            return problem
        if self.row is None:
            return f"{field}: {problem}"
        if one_based:
            return f"{field} row {self.row + 1}: {problem}"
        return f"{field}[{self.row}]: {problem}"


def _option(token: str, names: Mapping[str, str] | None) -> str:
    """``NAME`` as Python's ``NAME=`` (a token with its value, ``NAME=True``, as it is), or as ``names``
    renames that."""
    python = token if "=" in token else f"{token}="
    return (names or {}).get(python, python)
