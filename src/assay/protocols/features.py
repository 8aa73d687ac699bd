"""A table becomes model inputs, without leaking the test part into training.

Nothing here *learns* from the data: columns are only classified (numeric or
categorical), converted (numbers to float64 with NaN for missing, text to
strings with NaN for missing) and dropped when they cannot help any model
(all missing, constant, or an identifier). Everything that is estimated from
values (medians, most frequent categories, the one-hot vocabulary, means and
standard deviations for scaling) is done by ``preprocessor``, which is the
first step of every model's pipeline and so is fitted on each training part
only.

pyarrow and scikit-learn are imported where they are first needed (:mod:`assay.lazy_imports`):
a bundled data set needs no pyarrow, and describing a table's columns no scikit-learn.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from assay.errors import InvalidInput
from assay.inputs import encode_labels
from assay.io.datasets import load_dataset

__all__ = [
    "Features",
    "REGRESSION_DATASETS",
    "numeric_target",
    "holds_fractions",
    "features_from_columns",
    "features_from_dataset",
    "encode_target",
    "preprocessor",
]


@dataclass(frozen=True, eq=False)
class Features:
    """Model inputs of one table: a 2-d array and what was done to its columns.

    Attributes
    ----------
    X : ndarray of shape (n, p)
        float64 when every feature is numeric; otherwise an object array whose
        numeric columns hold floats (NaN for missing) and whose categorical
        columns hold strings (``np.nan`` for missing). Columns follow ``names``.
    names : tuple of str
        The feature columns, in the order of ``X``'s columns.
    numeric, categorical : tuple of str
        The numeric and the categorical feature columns (each in table order).
    categories : dict of str to int
        Number of distinct present values of each categorical column.
    dropped : tuple of (str, str)
        Columns left out, each with the reason.
    missing : dict of str to int
        Number of missing values of each feature column that has any.
    """

    X: np.ndarray
    names: tuple[str, ...]
    numeric: tuple[str, ...]
    categorical: tuple[str, ...]
    categories: dict[str, int] = field(default_factory=dict)
    dropped: tuple[tuple[str, str], ...] = ()
    missing: dict[str, int] = field(default_factory=dict)

    @property
    def n_rows(self) -> int:
        return int(self.X.shape[0])

    @property
    def numeric_index(self) -> list[int]:
        """Positions of the numeric columns in ``X``."""
        return [self.names.index(name) for name in self.numeric]

    @property
    def categorical_index(self) -> list[int]:
        """Positions of the categorical columns in ``X``."""
        return [self.names.index(name) for name in self.categorical]

    def describe(self) -> list[str]:
        """What was done to the columns, as plain sentences.

        Examples
        --------
        >>> import numpy as np
        >>> f, y = features_from_columns({
        ...     "id": np.array(["a", "b", "c", "d"]),
        ...     "age": np.array([30.0, np.nan, 41.0, 52.0]),
        ...     "colour": np.array(["red", "blue", "red", None], dtype=object),
        ...     "y": np.array(["no", "yes", "no", "yes"])}, target="y")
        >>> for line in f.describe():
        ...     print(line)
        4 rows; 2 features: 1 numeric, 1 categorical
        encoded one-hot: colour (2 categories)
        imputed inside each training part: age (median, 1 missing), colour (most frequent, 1 missing)
        dropped: id (every value distinct: an identifier)
        """
        lines = [
            f"{self.n_rows} rows; {len(self.names)} feature{'s' if len(self.names) != 1 else ''}: "
            f"{len(self.numeric)} numeric, {len(self.categorical)} categorical"
        ]
        if self.categorical:
            parts = []
            for i, name in enumerate(self.categorical):
                count = self.categories.get(name, 0)
                parts.append(f"{name} ({count} categor{'y' if count == 1 else 'ies'})" if i == 0
                             else f"{name} ({count})")
            lines.append("encoded one-hot: " + ", ".join(parts))
        if self.missing:
            parts = []
            for name in self.names:
                if name in self.missing:
                    how = "median" if name in self.numeric else "most frequent"
                    parts.append(f"{name} ({how}, {self.missing[name]} missing)")
            lines.append("imputed inside each training part: " + ", ".join(parts))
        for name, reason in self.dropped:
            lines.append(f"dropped: {name} ({reason})")
        return lines


# ----------------------------------------------------------------------------
# one column


@dataclass(frozen=True)
class _Column:
    kind: str  # "numeric", "categorical" or "unsupported"
    values: np.ndarray | None  # float64 (NaN missing) or object (str, np.nan missing)
    missing: int
    reason: str | None = None


def _is_missing_object(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v)) or type(v).__name__ in ("NAType", "NaTType")


def _text_values(strings: list[Any]) -> np.ndarray:
    out = np.empty(len(strings), dtype=object)
    out[:] = [np.nan if s is None else s for s in strings]
    return out


def _numbers_from_text(values: np.ndarray) -> np.ndarray | None:
    """float64 when every present string reads as a number, else None."""
    out = np.full(len(values), np.nan)
    any_present = False
    for i, v in enumerate(values):
        if isinstance(v, float) and math.isnan(v):
            continue
        s = str(v).strip()
        if not s:
            return None
        try:
            x = float(s)
        except ValueError:
            return None
        if math.isnan(x):
            return None
        out[i] = x  # an infinity stays one, and is refused as a feature (_check_magnitude)
        any_present = True
    return out if any_present else None


def _arrow_column(array: Any) -> _Column:
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    kind = array.type
    if pa.types.is_dictionary(kind):
        array = array.cast(kind.value_type)
        kind = array.type
    if pa.types.is_null(kind):
        return _Column("numeric", np.full(len(array), np.nan), len(array))
    if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        values = pc.cast(array, pa.float64()).to_numpy(zero_copy_only=False).astype(np.float64, copy=True)
        return _numeric(values)
    if pa.types.is_boolean(kind):
        return _categorical(_text_values([None if v is None else str(v) for v in array.to_pylist()]))
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return _from_text(_text_values(array.to_pylist()))
    return _Column("unsupported", None, 0, f"its type {kind} is neither a number nor text")


def _numpy_column(values: Any) -> _Column:
    array = np.asarray(values)
    if array.ndim != 1:
        array = array.reshape(-1) if array.ndim == 2 and 1 in array.shape else array
    if array.ndim != 1:
        return _Column("unsupported", None, 0, f"it has shape {array.shape}, not one value per row")
    if array.dtype.kind == "b":
        return _categorical(_text_values([str(bool(v)) for v in array]))
    if array.dtype.kind in "iuf":
        return _numeric(array.astype(np.float64))
    if array.dtype.kind in "US":
        texts = [v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v) for v in array.tolist()]
        return _from_text(_text_values(texts))
    if array.dtype.kind == "O":
        items = array.tolist()
        present = [v for v in items if not _is_missing_object(v)]
        if present and all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
                           for v in present):
            return _numeric(np.array([np.nan if _is_missing_object(v) else float(v) for v in items]))
        texts = [None if _is_missing_object(v) else
                 (v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)) for v in items]
        return _from_text(_text_values(texts))
    return _Column("unsupported", None, 0, f"its type {array.dtype} is neither a number nor text")


def _numeric(values: np.ndarray) -> _Column:
    values = values.astype(np.float64, copy=False)
    return _Column("numeric", values, int(np.isnan(values).sum()))


def _categorical(values: np.ndarray) -> _Column:
    missing = sum(1 for v in values if isinstance(v, float))
    return _Column("categorical", values, missing)


def _from_text(values: np.ndarray) -> _Column:
    """Text that reads as numbers everywhere is numeric (a CSV read as text); else categorical."""
    numbers = _numbers_from_text(values)
    if numbers is not None:
        return _numeric(numbers)
    return _categorical(values)


def _native(values: Any, name: str) -> _Column:
    module = type(values).__module__
    if module.startswith("pyarrow"):
        return _arrow_column(values)
    if module.startswith("polars"):
        return _arrow_column(values.to_arrow())
    if module.startswith("pandas"):
        import pyarrow as pa

        try:
            return _arrow_column(pa.array(values, from_pandas=True))
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            return _numpy_column(values.to_numpy(dtype=object))
    if isinstance(values, (list, tuple)):
        array = np.empty(len(values), dtype=object)
        array[:] = list(values)
        return _numpy_column(array)
    return _numpy_column(values)


MIN_ID_ROWS = 20
"""Rows from which a numeric column holding each whole number of a sequence once (1..n in any order) is
taken for an identifier (a row number), not a feature."""


def _drop_reason(column: _Column, n: int) -> tuple[str | None, int]:
    """Why a column cannot help any model (or None), and its number of distinct present values."""
    if column.kind == "unsupported":
        return column.reason, 0
    if column.missing == n:
        return "all missing", 0
    values = column.values
    assert values is not None
    if column.kind == "numeric":
        present = values[~np.isnan(values)]
        distinct = np.unique(present)
        if len(distinct) == 1:
            shown = f"{distinct[0]:g}"
            return f"constant: every {'present ' if column.missing else ''}value is {shown}", 1
        if len(distinct) == n >= MIN_ID_ROWS and np.all(distinct == np.round(distinct)) and \
                distinct[-1] - distinct[0] == n - 1:
            return "whole numbers in sequence, every one distinct: an identifier", len(distinct)
        return None, len(distinct)
    present_text = [v for v in values if isinstance(v, str)]
    distinct_text = set(present_text)
    if len(distinct_text) == 1:
        value = next(iter(distinct_text))
        return f"constant: every {'present ' if column.missing else ''}value is {value!r}", 1
    if len(distinct_text) == len(present_text) and len(present_text) > 2:
        return "every value distinct: an identifier", len(distinct_text)
    return None, len(distinct_text)


# ----------------------------------------------------------------------------
# tables


MAX_FEATURE_MAGNITUDE = 1e30
"""The largest absolute value a numeric feature may hold. scikit-learn's trees compute in float32 (largest
3.4e38) and its scalers and distances square and sum values, so much larger values become infinite or NaN
inside a model, far from where the user could see why. Rescale such a column first."""


def _check_magnitude(values: np.ndarray, name: str) -> None:
    """Refuse a value beyond ``MAX_FEATURE_MAGNITUDE``, an infinity included (a missing value is an empty
    cell, never an infinity read as one), naming its row."""
    with np.errstate(invalid="ignore"):
        large = np.abs(values) > MAX_FEATURE_MAGNITUDE
    if large.any():
        row = int(np.argmax(large))
        if np.isinf(values[row]):
            raise InvalidInput(f"{values[row]:g} is not a finite number: features must be finite numbers within "
                               f"±{MAX_FEATURE_MAGNITUDE:g} (leave the cell empty for a missing value)",
                               field=name, row=row)
        raise InvalidInput(f"{values[row]:g} is too large for the models: features must lie within "
                           f"±{MAX_FEATURE_MAGNITUDE:g} (rescale the column)", field=name, row=row)


def encode_target(y: Any, *, field: str = "y") -> tuple[tuple[str, ...], np.ndarray]:
    """Class labels (sorted as assay sorts them) and the integer code of each row.

    Raises
    ------
    InvalidInput
        On a missing value (naming its row) or when there is only one class.

    Examples
    --------
    >>> labels, codes = encode_target(["yes", "no", "yes"])
    >>> labels, codes.tolist()
    (('no', 'yes'), [1, 0, 1])
    """
    encoded = encode_labels({field: y})
    labels = encoded.labels
    if len(labels) < 2:
        what = f"a single class {labels[0]!r}" if labels else "no values"
        raise InvalidInput(f"has {what}; at least two classes are needed", field=field)
    return labels, encoded.codes[field].astype(np.intp, copy=False)


def numeric_target(values: Any, *, field: str = "y") -> np.ndarray:
    """A numeric target as float64: every value a finite number.

    Raises
    ------
    InvalidInput
        Naming the first row that is text, missing or not finite, or when there are fewer than 2 values.

    Examples
    --------
    >>> numeric_target(["1.5", "2", "3.25"]).tolist()
    [1.5, 2.0, 3.25]
    """
    column = _native(values, field)
    if column.kind != "numeric":
        items = list(column.values) if column.values is not None else []
        for row, v in enumerate(items):
            try:
                float(v)
            except (TypeError, ValueError):
                raise InvalidInput(f"{v!r} is not a number: a numeric target (regression) needs numbers",
                                   field=field, row=row) from None
        raise InvalidInput(f"is not numeric ({column.reason or 'not numbers'}): a numeric target (regression) "
                           "needs numbers", field=field)
    y = np.asarray(column.values, dtype=np.float64)
    bad = ~np.isfinite(y)
    if bad.any():
        raise InvalidInput("is missing or not a finite number: a numeric target needs a number on every row",
                           field=field, row=int(np.argmax(bad)))
    if len(y) < 2:
        raise InvalidInput(f"has {len(y)} value{'s' if len(y) != 1 else ''}; at least 2 are needed", field=field)
    return y


def numeric_values(values: Any) -> np.ndarray | None:
    """The values as float64 (NaN where missing) when every present value is a number (text that reads as
    one included), else None.

    Examples
    --------
    >>> numeric_values(["1", "2.5", None]).tolist(), numeric_values(["a", "1"])
    ([1.0, 2.5, nan], None)
    """
    column = _native(values, "y")
    if column.kind != "numeric" or column.values is None:
        return None
    return np.asarray(column.values, dtype=np.float64)


def holds_fractions(values: Any) -> bool:
    """Whether a target holds numbers, some of them not whole: then it is read as numeric (regression).

    Examples
    --------
    >>> holds_fractions([1.5, 2.0]), holds_fractions([1, 2]), holds_fractions(["a", "b"])
    (True, False, False)
    """
    column = _native(values, "y")
    if column.kind != "numeric" or column.values is None:
        return False
    v = np.asarray(column.values, dtype=np.float64)
    v = v[np.isfinite(v)]
    return bool(v.size) and not bool(np.all(v == np.floor(v)))


def features_from_columns(columns: Mapping[str, Any], *, target: str,
                          task: str = "classification") -> tuple[Features, np.ndarray]:
    """Model inputs and class labels from a table's columns.

    Parameters
    ----------
    columns : mapping of str to array
        Column name to its values: pyarrow arrays (as ``io.tables.read_columns``
        gives), numpy arrays, lists, or pandas / polars series.
    target : str
        The column holding the class.
    task : {"classification", "regression"}, default "classification"
        With "regression" the target is numeric (``numeric_target``) and ``y`` is float64.

    Returns
    -------
    features : Features
        Numeric columns as float64 (NaN for missing; text columns whose every
        value reads as a number count as numeric); text and boolean columns as
        categorical (strings, ``np.nan`` for missing). Columns that are all
        missing, constant, or identifiers (text with every value distinct, or, from
        ``MIN_ID_ROWS`` rows, whole numbers in sequence, each once: 1, 2, ..., n in any
        order) are dropped, with the reason.
    y : ndarray of str
        The class of each row, as text (see ``encode_target`` for the codes).

    Raises
    ------
    InvalidInput
        When the target is not a column, has a missing value (naming the first
        row) or a single class; when columns differ in length; when no feature
        column is left.
    """
    if target not in columns:
        shown = ", ".join(repr(c) for c in list(columns)[:20])
        raise InvalidInput(f"{target!r} is not a column (the columns: {shown})", field="target")
    if task == "regression":
        y = numeric_target(columns[target], field=target)
    else:
        labels, codes = encode_target(columns[target], field=target)
        y = np.asarray(labels, dtype=object)[codes]
    n = len(y)

    kept: list[tuple[str, _Column, int]] = []
    dropped: list[tuple[str, str]] = []
    for name, values in columns.items():
        if name == target:
            continue
        column = _native(values, name)
        length = len(column.values) if column.values is not None else len(values)
        if length != n:
            raise InvalidInput(f"has {length} values but the target {target!r} has {n}", field=str(name))
        if column.kind == "numeric":
            _check_magnitude(column.values, str(name))
        reason, distinct = _drop_reason(column, n)
        if reason is not None:
            dropped.append((str(name), reason))
        else:
            kept.append((str(name), column, distinct))
    if not kept:
        if not dropped:
            raise InvalidInput(f"the table has no column besides the target {target!r}", field="target")
        why = "; ".join(f"{name} ({reason})" for name, reason in dropped)
        raise InvalidInput(f"no feature column is left: {why}", field="columns")

    names = tuple(name for name, _, _ in kept)
    numeric = tuple(name for name, c, _ in kept if c.kind == "numeric")
    categorical = tuple(name for name, c, _ in kept if c.kind == "categorical")
    if categorical:
        X = np.empty((n, len(kept)), dtype=object)
        for j, (_, column, _) in enumerate(kept):
            X[:, j] = column.values
    else:
        X = np.column_stack([column.values for _, column, _ in kept]).astype(np.float64, copy=False)
    features = Features(
        X=X,
        names=names,
        numeric=numeric,
        categorical=categorical,
        categories={name: distinct for name, c, distinct in kept if c.kind == "categorical"},
        dropped=tuple(dropped),
        missing={name: c.missing for name, c, _ in kept if c.missing},
    )
    return features, y


REGRESSION_DATASETS: dict[str, str] = {
    "diabetes": "Diabetes (Efron et al. 2004): 442 patients, 10 standardised features, the disease's progression "
                "a year later (a number from 25 to 346)",
}
"""The bundled data sets with a numeric target (scikit-learn's ``load_diabetes``)."""


def features_from_dataset(name: str) -> tuple[Features, np.ndarray]:
    """Model inputs and class labels of a bundled data set (``io.datasets.load_dataset``); for a data set of
    ``REGRESSION_DATASETS``, the numeric target (float64).

    Examples
    --------
    >>> features, y = features_from_dataset("iris")
    >>> features.X.shape, features.numeric[0], sorted(set(y))[0]
    ((150, 4), 'sepal length (cm)', 'setosa')
    """
    if name in REGRESSION_DATASETS:
        from sklearn.datasets import load_diabetes

        bunch = load_diabetes()
        columns = {str(f): np.asarray(bunch.data[:, j], dtype=np.float64) for j, f in enumerate(bunch.feature_names)}
        columns["progression"] = np.asarray(bunch.target, dtype=np.float64)
        return features_from_columns(columns, target="progression", task="regression")
    data = load_dataset(name)
    X = np.asarray(data.X, dtype=np.float64)
    columns: dict[str, Any] = {feature: X[:, j] for j, feature in enumerate(data.feature_names)}
    target = "class"
    while target in columns:
        target = "_" + target
    columns[target] = data.y
    return features_from_columns(columns, target=target)


def preprocessor(features: Features, *, scale: bool) -> Any:
    """The column transformer every model's pipeline starts with.

    Numeric columns: median imputation (then standard scaling when ``scale``);
    categorical columns: most-frequent imputation then one-hot encoding that
    ignores categories unseen in training. Because it is a pipeline step, it
    is fitted on each training part only: the medians, modes, categories,
    means and standard deviations never see a test row.

    Returns
    -------
    sklearn.compose.ColumnTransformer
        Unfitted; dense output.
    """
    from sklearn.compose import ColumnTransformer
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    transformers = []
    if features.numeric:
        steps: list[tuple[str, Any]] = [("impute", SimpleImputer(strategy="median", keep_empty_features=True))]
        if scale:
            steps.append(("scale", StandardScaler()))
        transformers.append(("numeric", Pipeline(steps), features.numeric_index))
    if features.categorical:
        transformers.append((
            "categorical",
            Pipeline([
                ("impute", SimpleImputer(strategy="most_frequent", keep_empty_features=True)),
                ("encode", OneHotEncoder(handle_unknown="ignore", sparse_output=False)),
            ]),
            features.categorical_index,
        ))
    return ColumnTransformer(transformers, remainder="drop", sparse_threshold=0.0)
