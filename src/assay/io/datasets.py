"""Real data sets that ship with scikit-learn, by short name (no network)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args

import numpy as np

from assay.errors import InvalidInput

__all__ = ["DatasetName", "DATASETS", "Dataset", "load_dataset"]

DatasetName = Literal["breast-cancer", "iris", "wine", "digits"]
DATASETS: tuple[str, ...] = get_args(DatasetName)


@dataclass(frozen=True)
class Dataset:
    """Features, class labels (as text) and a one-line description."""

    name: str
    X: Any
    y: np.ndarray
    feature_names: tuple[str, ...]
    description: str


def load_dataset(name: str) -> Dataset:
    """Load a bundled data set: ``breast-cancer``, ``iris``, ``wine`` or ``digits``.

    Class labels are the data set's class names (e.g. ``malignant`` and
    ``benign``), so reports read in words.
    """
    from sklearn import datasets

    loaders = {
        "breast-cancer": (datasets.load_breast_cancer,
                          "Wisconsin diagnostic breast cancer: 569 tumours, 30 features, malignant or benign"),
        "iris": (datasets.load_iris, "Fisher's iris: 150 flowers, 4 features, 3 species"),
        "wine": (datasets.load_wine, "Wine recognition: 178 wines, 13 features, 3 cultivars"),
        "digits": (datasets.load_digits, "Handwritten digits: 1,797 8x8 images, 10 classes"),
    }
    if name not in loaders:
        raise InvalidInput(f"{name!r} is not one of the bundled data sets {list(DATASETS)}", field="dataset")
    loader, description = loaders[name]
    bunch = loader()
    names = np.asarray([str(t) for t in bunch.target_names])
    y = names[bunch.target]
    features = tuple(str(f) for f in getattr(bunch, "feature_names", [f"x{i}" for i in range(bunch.data.shape[1])]))
    return Dataset(name, bunch.data, y, features, description)
