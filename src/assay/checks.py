"""One place where every number a user gives is checked: finite, in range, of the right kind.

Each check returns the value as the type the code after it needs (a float, an
int, a pair) or raises :class:`~assay.errors.InvalidInput` naming the argument,
what was expected and what was received. The command line maps the argument
names to its options (``confidence`` to ``--confidence``), so a check written
here serves the API and the CLI alike.

>>> check_number(0.3, "threshold")
0.3
>>> check_number(float("nan"), "threshold")
Traceback (most recent call last):
...
assay.errors.InvalidInput: threshold: must be a finite number, got nan
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from assay.errors import InvalidInput
from assay.limits import MAX_BOOTSTRAP_RESAMPLES, MAX_CLASSES, MAX_COUNT

__all__ = ["check_text", 
    "CONFIDENCE_MAX",
    "SEED_MAX",
    "check_number",
    "check_integer",
    "check_confidence",
    "check_seed",
    "check_resamples",
    "check_range",
    "check_count",
    "check_count_table",
    "check_choice",
]

CONFIDENCE_MAX = 1.0 - 1e-12
"""The highest confidence level: beyond it the normal quantile of (1 + c)/2 is no longer accurate in
double precision (at 1 − 1e-16 it is infinite), so an interval would read "nan – 100%"."""

SEED_MAX = 2**32 - 1
"""Seeds are whole numbers from 0 to 2**32 − 1, as scikit-learn's ``random_state``."""


def check_text(value: Any) -> str:
    """A value as a message shows it: a numpy scalar as a plain number, anything long cut short."""
    if isinstance(value, np.generic):
        value = value.item()
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _as_real(value: Any, field: str) -> float:
    """A real number as a float, refusing booleans, strings, complex numbers and containers."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        raise InvalidInput(f"must be a number, got {value!r}", field=field)
    if isinstance(value, numbers.Integral):
        try:
            return float(value)
        except OverflowError:
            return math.inf if value > 0 else -math.inf
    if isinstance(value, numbers.Real):
        return float(value)
    if hasattr(value, "shape") and getattr(value, "shape", None) == () and hasattr(value, "item"):
        return _as_real(value.item(), field)
    if isinstance(value, str):  # "0.9", as read from a configuration file
        try:
            return float(value)
        except ValueError:
            pass
    raise InvalidInput(f"must be a number, got {check_text(value)}", field=field)


def check_number(
    value: Any,
    field: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    what: str | None = None,
) -> float:
    """A finite real number within [low, high] (an end excluded when ``*_open``).

    ``what`` words the expectation in the message ("a positive number"); by
    default it is the interval, e.g. "a number in (0, 1]".

    >>> check_number(0, "prevalence", low=0, high=1, low_open=True)
    Traceback (most recent call last):
    ...
    assay.errors.InvalidInput: prevalence: must be a number in (0, 1], got 0
    """
    x = _as_real(value, field)
    below = low is not None and (x <= low if low_open else x < low)
    above = high is not None and (x >= high if high_open else x > high)
    if not math.isfinite(x) or below or above:
        if what is None:
            if low is not None and high is not None:
                what = f"a number in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
            elif low is not None:
                what = f"a number {'greater than' if low_open else 'at least'} {low:g}"
            elif high is not None:
                what = f"a number {'less than' if high_open else 'at most'} {high:g}"
            else:
                what = "a finite number"
        raise InvalidInput(f"must be {what}, got {check_text(value)}", field=field)
    return x


def check_integer(value: Any, field: str, *, low: int | None = None, high: int | None = None,
                  what: str = "a whole number") -> int:
    """A whole number within [low, high]; 3.0 is accepted as 3, 3.5 is not.

    >>> check_integer(10**30, "folds", low=2, high=1000)
    Traceback (most recent call last):
    ...
    assay.errors.InvalidInput: folds: must be a whole number of at least 2 and at most 1,000, got 1000000000000000000000000000000
    """
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and type(value).__name__ != "bool_":
        n = int(value)
    else:
        x = _as_real(value, field)
        if not (math.isfinite(x) and x.is_integer()):
            raise InvalidInput(f"must be {what}, got {check_text(value)}", field=field)
        n = int(x)
    if (low is not None and n < low) or (high is not None and n > high):
        bounds = " and".join(part for part in (f" of at least {low:,}" if low is not None else "",
                                               f" at most {high:,}" if high is not None else "") if part)
        raise InvalidInput(f"must be {what}{bounds}, got {n}", field=field)
    return n


def check_confidence(value: Any, field: str = "confidence") -> float:
    """A confidence level strictly between 0 and 1 (at most :data:`CONFIDENCE_MAX`).

    >>> check_confidence(0.95)
    0.95
    >>> check_confidence(1.5)
    Traceback (most recent call last):
    ...
    assay.errors.InvalidInput: confidence: must be between 0 and 1 (exclusive), e.g. 0.95, got 1.5
    """
    try:
        c = _as_real(value, field)
    except InvalidInput:
        raise InvalidInput(f"must be between 0 and 1 (exclusive), e.g. 0.95, got {check_text(value)}",
                           field=field) from None
    if not (0.0 < c < 1.0):
        raise InvalidInput(f"must be between 0 and 1 (exclusive), e.g. 0.95, got {check_text(value)}", field=field)
    if c > CONFIDENCE_MAX:
        raise InvalidInput(f"must be at most 1 − 1e-12: higher levels cannot be computed "
                           f"accurately in double precision, got {check_text(value)}", field=field)
    return c


def check_seed(value: Any, field: str = "seed") -> int:
    """A random seed: a whole number from 0 to 2**32 − 1, as scikit-learn's ``random_state``."""
    return check_integer(value, field, low=0, high=SEED_MAX)


def check_resamples(value: Any, field: str = "bootstrap", *, minimum: int = 100) -> int:
    """A number of bootstrap resamples, from ``minimum`` to the documented limit."""
    return check_integer(value, field, low=minimum, high=MAX_BOOTSTRAP_RESAMPLES)


def check_range(value: Any, field: str, *, low: float = 0.0, high: float = 1.0) -> tuple[float, float]:
    """A pair (a, b) with low <= a < b <= high.

    >>> check_range((0, 0.2), "fpr_range")
    (0.0, 0.2)
    >>> check_range((0.1,), "fpr_range")
    Traceback (most recent call last):
    ...
    assay.errors.InvalidInput: fpr_range: must be two numbers (low, high), got (0.1,)
    """
    try:
        a, b = value
    except (TypeError, ValueError):
        raise InvalidInput(f"must be two numbers (low, high), got {check_text(value)}", field=field) from None
    wanted = f"must satisfy {low:g} <= low < high <= {high:g}, got {check_text(value)}"
    try:
        a, b = check_number(a, field), check_number(b, field)
    except InvalidInput:
        raise InvalidInput(wanted, field=field) from None
    if not low <= a < b <= high:
        raise InvalidInput(wanted, field=field)
    return a, b


def check_count(value: Any, field: str) -> int:
    """A count: a whole number from 0 to the largest count assay handles exactly (``limits.MAX_COUNT``).

    >>> check_count(3.0, "successes")
    3
    >>> check_count(-1, "n")
    Traceback (most recent call last):
    ...
    assay.errors.InvalidInput: n: must be a count (a whole number >= 0) of at most 9,007,199,254,740,992, got -1
    """
    n = check_integer(value, field, what=f"a count (a whole number >= 0) of at most {MAX_COUNT:,}")
    if not 0 <= n <= MAX_COUNT:
        raise InvalidInput(f"must be a count (a whole number >= 0) of at most {MAX_COUNT:,}, got {n}", field=field)
    return n


def check_count_table(value: Any, field: str = "matrix", *, shape: tuple[int, int] | None = None,
                      min_size: int = 2) -> np.ndarray:
    """A square table of counts (or one of ``shape``) as an int64 array.

    Every cell is a whole number >= 0 and the total is at most ``limits.MAX_COUNT``,
    so every sum is exact in int64 and in float64.

    >>> check_count_table([[5, 3], [2, 7]]).tolist()
    [[5, 3], [2, 7]]
    >>> check_count_table([[5, -3], [2, 7]])
    Traceback (most recent call last):
    ...
    assay.errors.InvalidInput: matrix: cell (0, 1) is -3, not a whole count >= 0
    """
    wanted = "a square table of counts (k x k, k >= 2)" if shape is None else \
        f"a {shape[0]} x {shape[1]} table of counts"
    try:
        cells = np.asarray(value, dtype=object)
    except (TypeError, ValueError):
        raise InvalidInput(f"expected {wanted}", field=field) from None
    if cells.ndim != 2 or (shape is None and (cells.shape[0] != cells.shape[1] or cells.shape[0] < min_size)) \
            or (shape is not None and cells.shape != shape):
        got = f"shape {cells.shape}" if cells.ndim else repr(value)
        raise InvalidInput(f"expected {wanted}, got {got}", field=field)
    if shape is None and cells.shape[0] > MAX_CLASSES:
        raise InvalidInput(f"has {cells.shape[0]:,} classes; assay takes at most {MAX_CLASSES:,}", field=field)
    numeric = _numeric_counts(value)
    if numeric is not None:
        if int(numeric.sum(dtype=np.float64)) <= MAX_COUNT:  # float sum: no overflow; exact below 2**53
            return numeric
    out = np.empty(cells.shape, dtype=np.int64)
    total = 0
    for (i, j), cell in np.ndenumerate(cells):
        try:
            count = check_count(cell, field)
        except InvalidInput:
            shown = cell.item() if isinstance(cell, np.generic) else cell
            raise InvalidInput(f"cell ({i}, {j}) is {shown!r}, not a whole count >= 0"
                               + (f" of at most {MAX_COUNT:,}" if _is_large(cell) else ""), field=field) from None
        total += count
        out[i, j] = count
    if total > MAX_COUNT:
        raise InvalidInput(f"the counts add up to {total:,}; assay counts exactly up to {MAX_COUNT:,}", field=field)
    return out


def _is_large(cell: Any) -> bool:
    try:
        return abs(float(cell)) > 2**53
    except (TypeError, ValueError, OverflowError):
        return True


def _numeric_counts(value: Any) -> np.ndarray | None:
    """The table as int64 when it is a numeric array of valid counts (the fast path), else None."""
    try:
        a = np.asarray(value)
    except (TypeError, ValueError):
        return None
    if a.dtype.kind in "iu":
        if a.size and (a.min() < 0 or a.max() > MAX_COUNT):
            return None
        return a.astype(np.int64)
    if a.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            ok = np.isfinite(a).all() and (a >= 0).all() and (a <= MAX_COUNT).all() and (np.floor(a) == a).all()
        return a.astype(np.int64) if ok else None
    return None


def check_choice(value: Any, choices: Any, field: str) -> str:
    """One of the option strings ``choices`` (a tuple, often ``get_args`` of a ``Literal``).

    >>> check_choice("exact", ("exact", "chi2"), "method")
    'exact'
    >>> check_choice(["exact"], ("exact", "chi2"), "method")
    Traceback (most recent call last):
    ...
    assay.errors.InvalidInput: method: ['exact'] is not one of ['exact', 'chi2']
    """
    if not isinstance(value, str) or value not in choices:
        raise InvalidInput(f"{value!r} is not one of {list(choices)}", field=field)
    return value
