"""The demo: a real classifier on a real data set, evaluated honestly."""

from __future__ import annotations

from assay.evaluation import Evaluation, evaluate
from assay.io.datasets import load_dataset

__all__ = ["run_demo"]


def run_demo(*, seed: int = 0) -> Evaluation:
    """Logistic regression on breast cancer: stratified holdout (2/3 train, 1/3 test).

    The model is fitted on the training part only (scaling included, inside a
    pipeline) and scored on the untouched test part; the report is on the
    held-out predictions, with 'malignant' as the positive class.
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    data = load_dataset("breast-cancer")
    X_train, X_test, y_train, y_test = train_test_split(
        data.X, data.y, test_size=1 / 3, stratify=data.y, random_state=seed
    )
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    model.fit(X_train, y_train)
    classes = list(model.classes_)
    scores = model.predict_proba(X_test)[:, classes.index("malignant")]
    return evaluate(y_test, y_score=scores, positive="malignant", threshold=0.5, seed=seed)
