"""Pure, mergeable summaries of predictions: numpy only, no I/O."""

from assay.summaries.confusion import ConfusionCounts, confusion_counts

__all__ = ["ConfusionCounts", "confusion_counts"]
