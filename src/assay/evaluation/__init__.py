"""Predictions in, the whole analysis out."""

from assay.evaluation.evaluate import evaluate, evaluate_confusion
from assay.evaluation.result import Evaluation

__all__ = ["Evaluation", "evaluate", "evaluate_confusion"]
