"""assay: honest numbers for classifiers.

Every figure with its confidence interval, every comparison with a test.

>>> import assay
>>> r = assay.evaluate(["a", "b", "b", "a"], y_pred=["a", "b", "a", "a"], positive="b")
>>> r["recall"].value
0.5
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "InvalidInput": "assay.errors",
    "Evaluation": "assay.evaluation",
    "evaluate": "assay.evaluation",
    "evaluate_confusion": "assay.evaluation",
    "evaluate_batches": "assay.evaluation.stream",
    "evaluate_file": "assay.engines.files",
    "rank_file": "assay.engines.files",
    "compare_file": "assay.engines.files",
    "compare_batches": "assay.evaluation.paired",
    "average_precision": "assay.evaluation.compatible",
    "precision_recall_curve": "assay.evaluation.compatible",
    "roc_auc": "assay.evaluation.compatible",
    "roc_curve": "assay.evaluation.compatible",
    "Comparison": "assay.evaluation.comparison",
    "compare": "assay.evaluation.comparison",
    "compare_unpaired": "assay.evaluation.comparison",
    "rank": "assay.evaluation.evaluate",
    "Validation": "assay.evaluation.validation",
    "validate": "assay.evaluation.validation",
    "validate_over_datasets": "assay.evaluation.validation",
    "cochran_q": "assay.inference.cochran",
    "FriedmanResult": "assay.inference.friedman",
    "friedman": "assay.inference.friedman",
    "plot_critical_difference": "assay.report.cd_plot",
    "error_difference": "assay.inference.difference",
    "error_difference_from_counts": "assay.inference.difference",
    "mcnemar_predictions": "assay.inference.mcnemar",
    "paired_bootstrap": "assay.inference.paired_bootstrap",
    "corrected_resampled_t": "assay.inference.resampled",
    "f_test_5x2cv": "assay.inference.resampled",
    "paired_t_5x2cv": "assay.inference.resampled",
    "delong_test": "assay.inference.roc_compare",
    "CombinedHull": "assay.evaluation.hull",
    "Costs": "assay.evaluation.costs",
    "Options": "assay.evaluation.options",
    "RankingAnalysis": "assay.evaluation.ranking",
    "combined_hull": "assay.evaluation.hull",
    "RegressionEvaluation": "assay.evaluation.regression",
    "evaluate_regression": "assay.evaluation.regression",
    "ScoreCounts": "assay.summaries.scores",
    "PROPORTION_METHODS": "assay.inference",
    "BootstrapSettings": "assay.inference",
    "ConfidenceInterval": "assay.inference",
    "Estimate": "assay.inference",
    "KappaResult": "assay.inference",
    "McNemarResult": "assay.inference",
    "ProportionInterval": "assay.inference",
    "kappa_test": "assay.inference",
    "mcnemar": "assay.inference",
    "proportion_ci": "assay.inference",
    "critical_z": "assay.inference.distributions",
    "z_confidence": "assay.inference.distributions",
    "normal_table": "assay.inference.distributions",
    "NormalTableEntry": "assay.inference.distributions",
    "mix": "assay.metrics.roc_space",
    "roc_region": "assay.metrics.roc_space",
    "weighted_kappa_test": "assay.inference.kappa",
    "ConfusionCounts": "assay.summaries",
    "confusion_counts": "assay.summaries",
}
"""Each public name and the module it comes from: imported on first use, so that ``import assay``
(and the command line's start) costs nothing until a name is needed."""


_SUBMODULES = ("spark", "plan")
"""Modules of their own, imported on first use: assay.spark.evaluate(df, ...) (the Spark engine),
assay.plan.proportion_n(...) (power and sample size)."""


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"assay.{name}")
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'assay' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


__all__ = [
    "cochran_q",
    "friedman",
    "FriedmanResult",
    "plot_critical_difference",
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
    "Options",
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
    "evaluate_batches",
    "evaluate_file",
    "rank_file",
    "compare_file",
    "compare_batches",
    "kappa_test",
    "mcnemar",
    "proportion_ci",
    "critical_z",
    "z_confidence",
    "normal_table",
    "NormalTableEntry",
    "plan",
    "mix",
    "roc_region",
    "weighted_kappa_test",
    "validate_over_datasets",
]
