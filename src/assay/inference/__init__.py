"""Intervals and tests."""

from assay.inference.binomial import NIRTestResult, accuracy_vs_nir
from assay.inference.bootstrap import BootstrapSettings
from assay.inference.estimate import ConfidenceInterval, Estimate
from assay.inference.kappa import KappaResult, kappa_test
from assay.inference.mcnemar import McNemarResult, mcnemar
from assay.inference.proportion import PROPORTION_METHODS, ProportionInterval, proportion_ci

__all__ = [
    "NIRTestResult",
    "accuracy_vs_nir",
    "BootstrapSettings",
    "ConfidenceInterval",
    "Estimate",
    "KappaResult",
    "kappa_test",
    "McNemarResult",
    "mcnemar",
    "PROPORTION_METHODS",
    "ProportionInterval",
    "proportion_ci",
]
