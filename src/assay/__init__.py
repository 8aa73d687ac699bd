"""assay: honest numbers for classifiers.

Every figure with its confidence interval, every comparison with a test.

>>> import assay
>>> r = assay.evaluate(["a", "b", "b", "a"], y_pred=["a", "b", "a", "a"], positive="b")
>>> r["recall"].value
0.5
"""

from assay.errors import InvalidInput
from assay.evaluation import Evaluation, evaluate, evaluate_confusion
from assay.evaluation.compatible import average_precision, precision_recall_curve, roc_auc, roc_curve
from assay.evaluation.comparison import Comparison, compare, compare_unpaired
from assay.evaluation.evaluate import rank
from assay.evaluation.validation import Validation, validate
from assay.inference.cochran import cochran_q
from assay.inference.difference import error_difference, error_difference_from_counts
from assay.inference.mcnemar import mcnemar_predictions
from assay.inference.paired_bootstrap import paired_bootstrap
from assay.inference.resampled import corrected_resampled_t, f_test_5x2cv, paired_t_5x2cv
from assay.inference.roc_compare import delong_test
from assay.evaluation.ranking import CombinedHull, Costs, RankingAnalysis, combined_hull
from assay.evaluation.regression import RegressionEvaluation, evaluate_regression
from assay.summaries.scores import ScoreCounts
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
    "cochran_q",
    "Comparison",
    "compare",
    "compare_unpaired",
    "corrected_resampled_t",
    "delong_test",
    "error_difference",
    "error_difference_from_counts",
    "f_test_5x2cv",
    "mcnemar_predictions",
    "paired_bootstrap",
    "paired_t_5x2cv",
    "validate",
    "Validation",
    "average_precision",
    "CombinedHull",
    "combined_hull",
    "Costs",
    "evaluate_regression",
    "precision_recall_curve",
    "rank",
    "RankingAnalysis",
    "RegressionEvaluation",
    "roc_auc",
    "roc_curve",
    "ScoreCounts",
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
