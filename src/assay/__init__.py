"""assay: honest numbers for classifiers.

Every figure with its confidence interval, every comparison with a test.

>>> import assay
>>> r = assay.evaluate(["a", "b", "b", "a"], y_pred=["a", "b", "a", "a"], positive="b")
>>> r["recall"].value
0.5
"""

from assay.errors import InvalidInput
from assay.evaluation import Evaluation, evaluate, evaluate_confusion
from assay.inference import (
    PROPORTION_METHODS,
    BootstrapSettings,
    ConfidenceInterval,
    Estimate,
    KappaResult,
    McNemarResult,
    ProportionInterval,
    kappa_test,
    mcnemar,
    proportion_ci,
)
from assay.summaries import ConfusionCounts, confusion_counts

__version__ = "0.1.0"

__all__ = [
    "BootstrapSettings",
    "ConfidenceInterval",
    "ConfusionCounts",
    "Estimate",
    "Evaluation",
    "InvalidInput",
    "KappaResult",
    "McNemarResult",
    "PROPORTION_METHODS",
    "ProportionInterval",
    "confusion_counts",
    "evaluate",
    "evaluate_confusion",
    "kappa_test",
    "mcnemar",
    "proportion_ci",
]
