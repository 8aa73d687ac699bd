"""The demo: real learners on a real data set, estimated and compared honestly."""

from __future__ import annotations

from typing import Any

from assay.evaluation.validation import validate

__all__ = ["run_demo", "DEMO_MODELS"]

DEMO_MODELS = ("decision-tree", "naive-bayes", "adaboost")


def run_demo(*, seed: int = 0, jobs: int = 1, progress: Any = None) -> Any:
    """Decision tree, naive Bayes and AdaBoost on the Wisconsin breast cancer data.
    Stratified 10-fold cross-validation on the same folds for the three, the
    out-of-fold reports with intervals, and the paired tests between them.
    """
    return validate(dataset="breast-cancer", models=DEMO_MODELS, method="cv", folds=10, seed=seed, jobs=jobs,
                    progress=progress)
