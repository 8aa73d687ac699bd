"""The boundary: what users pass becomes validated arrays, once.

Accepts Python lists and tuples, numpy arrays, pandas and polars series and
pyarrow arrays. Class labels become *canonical strings* so that the truth and
the predictions agree on them whatever their types: ``1``, ``1.0`` and ``"1"``
are the same class ``"1"``; strings stay as written. When every label is a
number they sort numerically, otherwise as text.

Everything after this module trusts its inputs ("inputs validated").

pyarrow is imported where it is first needed (:mod:`assay.lazy_imports`): numpy arrays of
numbers or booleans never need it, and nor does anything that imports this module for its
checks alone (``assay interval``, the inference functions).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from assay.errors import InvalidInput
from assay.limits import MAX_CLASSES

__all__ = [
    "EncodedLabels",
    "encode_labels",
    "canonical_label",
    "sorted_labels",
    "as_scores",
    "as_proba",
    "check_lengths",
    "name_of",
    "label_list",
    "value_codes",
]


@dataclass(frozen=True)
class EncodedLabels:
    """Label arrays of several fields encoded against one shared label list.

    ``codes[field][i]`` is the index in ``labels`` of element ``i`` of that field.
    """

    labels: tuple[str, ...]
    codes: dict[str, np.ndarray]
    values: tuple[Any, ...] = ()  # each label as the data (or the declared labels) held it: 0, 1.5, True, "a"

    def classes(self) -> tuple[Any, ...]:
        """The labels as the data held them (their text where unknown)."""
        return self.values or self.labels


# ----------------------------------------------------------------------------
# conversion of one field


def name_of(values: Any) -> str | None:
    """The name a pandas or polars series carries, if any."""
    name = getattr(values, "name", None)
    return name if isinstance(name, str) else None


def _is_arrow(values: Any) -> bool:
    module = type(values).__module__
    return module.startswith("pyarrow")


def _to_native(values: Any, field: str) -> Any:
    """A 1-d numpy array, or a pyarrow array for text and object data."""
    if values is None:
        raise InvalidInput("no values given", field=field)
    if _is_arrow(values):
        return values
    module = type(values).__module__
    if module.startswith("polars"):
        return values.to_arrow()
    if module.startswith("pandas"):
        if getattr(values, "ndim", 1) != 1:
            raise InvalidInput("expected one column of values", field=field)
        kind = getattr(values.dtype, "kind", "O")
        if kind in "biuf":
            return values.to_numpy()
        import pyarrow as pa

        try:
            return pa.array(values, from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            return values.to_numpy(dtype=object)
    if isinstance(values, (list, tuple)):
        return _list_to_native(values, field)
    array = np.asarray(values)
    if array.ndim == 2 and 1 in array.shape:
        array = array.reshape(-1)
    if array.ndim != 1:
        raise InvalidInput(f"expected a 1-d array of values, got shape {array.shape}", field=field)
    return array


def _list_to_native(values: list[Any] | tuple[Any, ...], field: str) -> Any:
    """A list without numpy's coercions: None and NaN stay missing, mixed types stay mixed."""
    import pyarrow as pa

    try:
        array = pa.array(values, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OverflowError):
        array = None
    if array is not None and not pa.types.is_null(array.type):
        if array.null_count == 0 and (pa.types.is_integer(array.type) or pa.types.is_floating(array.type)
                                      or pa.types.is_boolean(array.type)):
            return array.to_numpy(zero_copy_only=False)
        return array
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


def _py(value: Any) -> Any:
    """A numpy scalar as the plain Python value, for messages."""
    return value.item() if isinstance(value, np.generic) else value


def _first_missing_object(array: np.ndarray) -> int | None:
    for i, v in enumerate(array):
        if v is None or (isinstance(v, float) and math.isnan(v)) or type(v).__name__ in ("NAType", "NaTType"):
            return i
    return None


def _unique_codes(values: Any, field: str) -> tuple[np.ndarray, list[Any]]:
    """Integer codes and the distinct raw values of one label field."""
    native = _to_native(values, field)
    if isinstance(native, np.ndarray):
        if native.size == 0:
            return np.zeros(0, dtype=np.intp), []
        if native.dtype.kind == "f":
            bad = np.flatnonzero(np.isnan(native))
            if bad.size:
                raise InvalidInput("missing value", field=field, row=int(bad[0]))
        if native.dtype.kind in "biu":
            return _small_int_codes(native)
        if native.dtype.kind == "f" and np.array_equal(native, np.trunc(native)) and np.abs(native).max() < 2**31:
            codes, uniques = _small_int_codes(native.astype(np.int64))
            return codes, [float(u) for u in uniques]
        if native.dtype.kind == "f":
            uniques, codes = np.unique(native, return_inverse=True)
            return codes.reshape(-1).astype(np.intp, copy=False), uniques.tolist()
        if native.dtype.kind not in "OSU":
            raise InvalidInput(f"class labels must be text, numbers or booleans, not {native.dtype} values",
                               field=field)
        if native.dtype.kind == "U":
            found = _ascii_codes(native)
            if found is not None:
                return found
        import pyarrow as pa

        try:
            native = pa.array(native, from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
            return _unique_codes_python(native, field)
    return _unique_codes_arrow(native, field)


def _ascii_codes(array: np.ndarray) -> tuple[np.ndarray, list[str]] | None:
    """Codes of a numpy text array (``U`` dtype) whose characters are all ASCII, hashed as the fixed-width bytes
    it holds (a tenth of the time of converting each value to an Arrow string first: 0.05 s, not 0.5 s, for 10^7
    values of a few characters); None for other text. The values come in the order of their first row."""
    import pyarrow as pa
    import pyarrow.compute as pc

    width = array.dtype.itemsize // 4
    if width == 0:  # every value the empty text
        return np.zeros(len(array), dtype=np.intp), [""]
    points = np.ascontiguousarray(array).view(np.uint32).reshape(len(array), width)
    if points.max() > 127:
        return None
    data = points.astype(np.uint8)  # the text's bytes, each value padded with NULs to the width (as numpy pads it)
    fixed = pa.FixedSizeBinaryArray.from_buffers(pa.binary(width), len(array), [None, pa.py_buffer(data)])
    encoded = pc.dictionary_encode(fixed)
    values = [v.rstrip(b"\0").decode("ascii") for v in encoded.dictionary.to_pylist()]
    return encoded.indices.to_numpy(zero_copy_only=False).astype(np.intp, copy=False), values


def value_codes(values: Any, field: str) -> tuple[np.ndarray, list[Any]]:
    """Integer codes and the distinct raw values of a column of labels or groups (text by hashing, whole
    numbers by counting: never a sort of the values); a missing value is refused, naming its row."""
    return _unique_codes(values, field)


def _small_int_codes(array: np.ndarray) -> tuple[np.ndarray, list[Any]]:
    """Codes of integer (or boolean) labels by counting, not sorting, when their range is small."""
    if array.dtype == bool:
        present = [v for v in (False, True) if (array == v).any()]
        codes = array.astype(np.intp) if present == [False, True] else np.zeros(len(array), np.intp)
        return codes, present
    low, high = int(array.min()), int(array.max())
    if high - low <= 1 and low in (0, 1) and array.dtype.kind in "iu":  # 0 and 1, or 1 and 2: no widening first
        return (array - array.dtype.type(low) if low else array).astype(np.intp, copy=False), list(range(low, high + 1))
    if array.dtype.kind == "i" and array.dtype.itemsize < 8:
        array = array.astype(np.int64)  # 100 - (-100) overflows in int8: subtract in 64 bits
    base = array.dtype.type(low)  # in the array's own type: uint64 values above 2**63 stay exact
    if high - low <= 1:  # one or two values, both present: no counting needed
        return (array - base if low else array).astype(np.intp, copy=False), list(range(low, high + 1))
    if high - low > 1 << 20:
        uniques, codes = np.unique(array, return_inverse=True)
        return codes.reshape(-1).astype(np.intp, copy=False), uniques.tolist()
    shifted = array - base if low else array
    present = np.flatnonzero(np.bincount(shifted))
    values = (present.astype(array.dtype) + base).tolist()
    if len(present) == high - low + 1:
        return shifted.astype(np.intp, copy=False), values
    code_of = np.full(high - low + 1, -1, dtype=np.intp)
    code_of[present] = np.arange(len(present))
    return code_of[shifted], values


LABEL_TYPES = (str, bytes, int, float, bool, np.integer, np.floating, np.bool_, np.str_)
"""What a class label may be: text, a number or a boolean (never a container or a complex number)."""


def _unique_codes_python(array: np.ndarray, field: str) -> tuple[np.ndarray, list[Any]]:
    bad = _first_missing_object(array)
    if bad is not None:
        raise InvalidInput("missing value", field=field, row=bad)
    index: dict[Any, int] = {}
    codes = np.empty(len(array), dtype=np.intp)
    for i, v in enumerate(array):
        if not isinstance(v, LABEL_TYPES):
            raise InvalidInput(f"{_py(v)!r} is a {type(v).__name__}, not a class label (text, a number or a boolean)",
                               field=field, row=i)
        key = (type(v).__name__, v) if isinstance(v, (bool, np.bool_)) else v
        codes[i] = index.setdefault(key, len(index))
    uniques = [k[1] if isinstance(k, tuple) and len(k) == 2 and k[0] in ("bool", "bool_") else k for k in index]
    return codes, uniques


def _unique_codes_arrow(array: Any, field: str) -> tuple[np.ndarray, list[Any]]:
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if pa.types.is_dictionary(array.type):
        array = array.cast(array.type.value_type)
    if len(array) == 0:
        return np.zeros(0, dtype=np.intp), []
    if array.null_count:
        row = pc.index(pc.is_null(array), True).as_py()
        raise InvalidInput("missing value", field=field, row=row)
    if not (pa.types.is_string(array.type) or pa.types.is_large_string(array.type) or pa.types.is_integer(array.type)
            or pa.types.is_floating(array.type) or pa.types.is_boolean(array.type) or pa.types.is_binary(array.type)):
        raise InvalidInput(f"class labels must be text, numbers or booleans, not {array.type} values", field=field)
    if pa.types.is_floating(array.type):
        nan = pc.is_nan(array)
        if pc.any(nan).as_py():
            raise InvalidInput("missing value", field=field, row=pc.index(nan, True).as_py())
    if pa.types.is_integer(array.type):  # counted, not hashed (a tenth of the time for two classes)
        return _small_int_codes(array.to_numpy(zero_copy_only=False))
    encoded = pc.dictionary_encode(array)
    codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.intp, copy=False)
    return codes, encoded.dictionary.to_pylist()


# ----------------------------------------------------------------------------
# canonical labels


def _as_number(v: Any) -> int | float | None:
    """The number a label stands for, or None when it is not a number."""
    if isinstance(v, (bool, np.bool_)):
        return None
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if not math.isfinite(f):
            return None
        return int(f) if f.is_integer() and abs(f) < 2**63 else f
    if isinstance(v, bytes):
        v = v.decode("utf-8", "replace")
    if isinstance(v, str):
        s = v.strip()
        if not s:
            return None
        try:
            return int(s)
        except ValueError:
            pass
        try:
            f = float(s)
        except ValueError:
            return None
        if not math.isfinite(f):
            return None
        return int(f) if f.is_integer() and abs(f) < 2**63 else f
    return None


def _number_text(x: int | float) -> str:
    return str(x) if isinstance(x, int) else repr(x)


def _plain_text(v: Any) -> str:
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    number = _as_number(v) if not isinstance(v, str) else None
    if number is not None:
        return _number_text(number)
    if isinstance(v, np.bool_):
        return str(bool(v))
    return str(v)


def _canonical_map(raw: Sequence[Any]) -> tuple[dict[int, str], list[str]]:
    """Canonical text for each raw distinct value, and the sorted labels."""
    numbers = [_as_number(v) for v in raw]
    all_bool = bool(raw) and all(isinstance(v, (bool, np.bool_)) for v in raw)
    if all_bool:
        texts = [str(bool(v)) for v in raw]
        order = sorted(set(texts), key=lambda t: t == "True")
    elif raw and all(
        n is not None or isinstance(v, (bool, np.bool_)) for v, n in zip(raw, numbers, strict=True)
    ):
        numbers = [int(bool(v)) if n is None else n for v, n in zip(raw, numbers, strict=True)]
        texts = [_number_text(n) for n in numbers]
        by_text = dict(zip(texts, numbers, strict=True))
        order = sorted(by_text, key=lambda t: by_text[t])
    else:
        texts = [_plain_text(v) for v in raw]
        order = sorted(set(texts))
    return dict(enumerate(texts)), order


def encode_labels(
    fields: Mapping[str, Any],
    *,
    labels: Sequence[Any] | None = None,
) -> EncodedLabels:
    """Encode several label fields against one shared, sorted label list.

    Parameters
    ----------
    fields : mapping of str to array-like
        Field name (used in error messages) to its labels, e.g.
        ``{"y_true": y_true, "y_pred": y_pred}``. All must have equal length.
    labels : sequence, optional
        The classes, in the order wanted. Every value in the data must be one of
        them; classes absent from the data are kept (as empty rows and columns).

    Raises
    ------
    InvalidInput
        On a missing value, on a label outside ``labels``, or on lengths that differ.

    Examples
    --------
    >>> enc = encode_labels({"y_true": [1, 0, 1], "y_pred": ["1", "1.0", "0"]})
    >>> enc.labels, enc.codes["y_pred"].tolist()
    (('0', '1'), [1, 1, 0])
    """
    raw_codes: dict[str, np.ndarray] = {}
    raw_uniques: dict[str, list[Any]] = {}
    for field, values in fields.items():
        raw_codes[field], raw_uniques[field] = _unique_codes(values, field)
    check_lengths({f: len(c) for f, c in raw_codes.items()})

    pooled: list[Any] = []
    offsets: dict[str, int] = {}
    for field, uniques in raw_uniques.items():
        offsets[field] = len(pooled)
        pooled.extend(uniques)
    declared: list[str] | None = None
    declared_raw: list[Any] = []
    if labels is not None:
        declared_raw = label_list(labels)
        if len(declared_raw) < 2:
            raise InvalidInput("at least two classes are needed", field="labels")
        pooled_all = pooled + declared_raw
        texts, _ = _canonical_map(pooled_all)
        declared = [texts[len(pooled) + i] for i in range(len(declared_raw))]
        if len(set(declared)) != len(declared):
            raise InvalidInput(f"repeated class in {declared}", field="labels")
        order = declared
    else:
        texts, order = _canonical_map(pooled)
    if len(order) > MAX_CLASSES:
        field = max(raw_uniques, key=lambda name: len(raw_uniques[name]))
        raise InvalidInput(f"holds {len(raw_uniques[field]):,} distinct values: assay evaluates at most "
                           f"{MAX_CLASSES:,} classes (is this a column of labels? scores go in y_score)",
                           field=field)
    position = {label: i for i, label in enumerate(order)}

    codes: dict[str, np.ndarray] = {}
    for field, uniques in raw_uniques.items():
        lookup = np.empty(len(uniques), dtype=np.intp)
        for j in range(len(uniques)):
            text = texts[offsets[field] + j]
            if text not in position:
                row = int(np.argmax(raw_codes[field] == j))
                raise InvalidInput(f"{text!r} is not one of the classes {list(order)}", field=field, row=row)
            lookup[j] = position[text]
        identity = len(uniques) == 0 or np.array_equal(lookup, np.arange(len(uniques)))
        codes[field] = raw_codes[field] if identity else lookup[raw_codes[field]]
    held: dict[str, Any] = {}
    for i, raw in enumerate(declared_raw):  # the declared labels first: as the user wrote them
        held.setdefault(texts[len(pooled) + i], raw)
    for i, raw in enumerate(pooled):
        held.setdefault(texts[i], raw)
    values = tuple(_py(held.get(text, text)) for text in order)
    return EncodedLabels(labels=tuple(order), codes=codes, values=values)


def label_list(labels: Any, field: str = "labels") -> list[Any]:
    """The classes a user declared, as a list; a string or a non-sequence is refused."""
    if isinstance(labels, (str, bytes)) or not isinstance(labels, (Sequence, np.ndarray)) \
            and not hasattr(labels, "__array__"):
        raise InvalidInput(f"expected a list of classes, got {labels!r}", field=field)
    values = list(np.asarray(labels).tolist() if hasattr(labels, "__array__") else labels)
    for v in values:
        if not isinstance(v, LABEL_TYPES):
            raise InvalidInput(f"{_py(v)!r} is a {type(v).__name__}, not a class label", field=field)
    return values


def sorted_labels(labels: Sequence[str]) -> tuple[str, ...]:
    """Canonical labels in assay's order: numerically when all are numbers, else as text.

    >>> sorted_labels(["10", "9", "1"])
    ('1', '9', '10')
    """
    return tuple(_canonical_map(list(labels))[1])


def canonical_label(value: Any, labels: Sequence[str], *, field: str = "positive") -> str:
    """The label among ``labels`` that ``value`` names (``1``, ``1.0`` and ``"1"`` alike).

    Examples
    --------
    >>> canonical_label(1.0, ("0", "1"))
    '1'
    >>> canonical_label("pos", ("neg", "pos"))
    'pos'
    """
    candidates = [_plain_text(value)] if not isinstance(value, str) else [value]
    number = _as_number(value)
    if number is not None:
        candidates.append(_number_text(number))
    if isinstance(value, (bool, np.bool_)):
        candidates.append(str(int(bool(value))))
    for c in candidates:
        if c in labels:
            return c
    raise InvalidInput(f"{_py(value)!r} is not one of the classes {list(labels)}", field=field)


def check_lengths(lengths: Mapping[str, int]) -> int:
    """The common length of several fields; InvalidInput when they differ."""
    items = list(lengths.items())
    first_field, n = items[0]
    for field, m in items[1:]:
        if m != n:
            raise InvalidInput(f"has {m} values but {first_field} has {n}", field=field)
    return n


# ----------------------------------------------------------------------------
# scores and probabilities


def _first_bad_number(values: Sequence[Any]) -> tuple[int, Any] | None:
    for i, v in enumerate(values):
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return i, None
        if isinstance(v, (bool, np.bool_)):
            continue
        try:
            float(v)
        except (TypeError, ValueError):
            return i, v
    return None


def _raise_bad_number(values: Sequence[Any], field: str) -> None:
    bad = _first_bad_number(values)
    if bad is None:
        raise InvalidInput("values are not numbers", field=field)
    row, value = bad
    if value is None:
        raise InvalidInput("missing value", field=field, row=row)
    raise InvalidInput(f"{_py(value)!r} is not a number", field=field, row=row)


def as_scores(values: Any, field: str = "y_score") -> np.ndarray:
    """A 1-d float array of finite scores (float32 kept, everything else float64).

    Raises
    ------
    InvalidInput
        Naming the first row that is missing, not a number, or not finite.

    Examples
    --------
    >>> as_scores([0.1, "0.7", 1]).tolist()
    [0.1, 0.7, 1.0]
    >>> as_scores([0.1, "high"])
    Traceback (most recent call last):
    ...
    assay.errors.InvalidInput: y_score[1]: 'high' is not a number
    """
    native = _to_native(values, field)
    if not isinstance(native, np.ndarray):
        import pyarrow as pa
        import pyarrow.compute as pc

        if isinstance(native, pa.ChunkedArray):
            native = native.combine_chunks()
        if pa.types.is_dictionary(native.type):
            native = native.cast(native.type.value_type)
        if native.null_count:
            raise InvalidInput("missing value", field=field, row=pc.index(pc.is_null(native), True).as_py())
        if pa.types.is_floating(native.type) or pa.types.is_integer(native.type) or pa.types.is_boolean(native.type):
            array = native.to_numpy(zero_copy_only=False)
        else:
            try:
                array = pc.cast(native, pa.float64()).to_numpy(zero_copy_only=False)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                _raise_bad_number(native.to_pylist(), field)
    else:
        array = native
    if array.dtype.kind not in "f":
        if array.dtype.kind in "biu":
            array = array.astype(np.float64)
        else:
            try:
                array = array.astype(np.float64)
            except (TypeError, ValueError):
                _raise_bad_number(list(array), field)
    if array.dtype != np.float32:
        array = array.astype(np.float64, copy=False)
    with np.errstate(over="ignore", invalid="ignore"):
        total = array.sum()  # one pass: NaN or an infinity makes the sum non-finite
    if np.isfinite(total):
        return array
    finite = np.isfinite(array)
    if not finite.all():
        row = int(np.argmin(finite))
        if np.isnan(array[row]):
            raise InvalidInput("missing value", field=field, row=row)
        raise InvalidInput(f"{float(array[row])!r} is not a finite number", field=field, row=row)
    return array


def as_proba(
    values: Any,
    *,
    labels: Sequence[Any] | None = None,
    field: str = "y_proba",
) -> tuple[np.ndarray, list[Any]]:
    """An (n, k) array of class probabilities and the class of each column.

    ``values`` is a 2-d array whose columns follow ``labels``, a pandas or polars
    data frame whose column names are the classes, or a mapping of class to
    column.
    """
    columns: list[Any]
    if isinstance(values, Mapping):
        if len(values) < 2:
            raise InvalidInput("at least two probability columns (one per class) are needed", field=field)
        columns = list(values.keys())
        arrays = [as_scores(values[c], field=f"{field}[{c!r}]") for c in columns]
        check_lengths({f"{field}[{c!r}]": len(a) for c, a in zip(columns, arrays, strict=True)})
        matrix = np.column_stack(arrays).astype(np.float64, copy=False) if arrays else np.zeros((0, 0))
    elif hasattr(values, "columns") and not isinstance(values, np.ndarray):
        columns = [str(c) for c in values.columns]
        arrays = [as_scores(values[c], field=f"{field}[{c!r}]") for c in values.columns]
        matrix = np.column_stack(arrays).astype(np.float64, copy=False)
    else:
        try:
            matrix = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            raise InvalidInput("expected an (n, k) array of probabilities", field=field) from None
        if matrix.ndim != 2:
            raise InvalidInput(f"expected an (n, k) array of probabilities, got shape {matrix.shape}", field=field)
        if labels is None:
            raise InvalidInput("name the class of each column with labels=[...]", field=field)
        columns = list(labels)
        if len(columns) != matrix.shape[1]:
            raise InvalidInput(
                f"has {matrix.shape[1]} columns but {len(columns)} labels were given", field=field
            )
    if matrix.shape[1] < 2:
        raise InvalidInput("at least two probability columns (one per class) are needed", field=field)
    finite = np.isfinite(matrix)
    if not finite.all():
        row, col = np.argwhere(~finite)[0]
        value = float(matrix[row, col])
        what = "missing value" if np.isnan(value) else f"{value!r} is not a finite number"
        raise InvalidInput(what, field=f"{field}[{columns[col]!r}]", row=int(row))
    outside = (matrix < 0) | (matrix > 1)
    if outside.any():
        row, col = np.argwhere(outside)[0]
        raise InvalidInput(
            f"{float(matrix[row, col])!r} is not a probability in [0, 1]",
            field=f"{field}[{columns[col]!r}]",
            row=int(row),
        )
    return matrix, columns
