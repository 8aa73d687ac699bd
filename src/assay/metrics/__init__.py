"""Summary -> number: metrics as pure functions of the counts."""

from assay.metrics.confusion import BINARY_METRICS, MATRIX_METRICS, Cells, expected_random, one_vs_rest

__all__ = ["BINARY_METRICS", "MATRIX_METRICS", "Cells", "expected_random", "one_vs_rest"]
