"""Is the accuracy better than the no-information rate?"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from assay.inference.distributions import binom_sf_at_least
from assay.inference.estimate import finite_or_none

__all__ = ["NIRTestResult", "accuracy_vs_nir"]


@dataclass(frozen=True)
class NIRTestResult:
    """One-sided exact binomial test of accuracy > no-information rate.

    ``statistic`` is the number of correct predictions; ``nir`` is the share of
    the largest actual class, i.e. the accuracy of always predicting it.
    """

    correct: int
    n: int
    nir: float
    pvalue: float
    method: str = "exact binomial, one-sided (accuracy > NIR)"

    @property
    def statistic(self) -> int:
        return self.correct

    def significant(self, confidence: float) -> bool:
        return self.pvalue < 1.0 - confidence

    def verdict(self, confidence: float) -> str:
        level = f"{confidence:.0%}"
        accuracy = self.correct / self.n
        if self.significant(confidence):
            return (
                f"at {level}, the accuracy ({accuracy:.1%}) is significantly better than always "
                f"predicting the largest class ({self.nir:.1%})"
            )
        return (
            f"at {level}, the accuracy ({accuracy:.1%}) is not significantly better than always "
            f"predicting the largest class ({self.nir:.1%})"
        )

    def to_dict(self, confidence: float) -> dict[str, Any]:
        return {
            "statistic": self.correct,
            "pvalue": finite_or_none(self.pvalue),
            "ci": None,
            "method": self.method,
            "verdict": self.verdict(confidence),
            "nir": self.nir,
            "n": self.n,
            "significant": self.significant(confidence),
        }


def accuracy_vs_nir(correct: int, n: int, nir: float) -> NIRTestResult:
    """P(X >= correct) for X ~ Binomial(n, nir): caret's "Acc > NIR" test.

    Examples
    --------
    >>> r = accuracy_vs_nir(140, 200, 0.5)
    >>> r.pvalue < 1e-7
    True
    """
    return NIRTestResult(int(correct), int(n), float(nir), binom_sf_at_least(int(correct), int(n), float(nir)))
