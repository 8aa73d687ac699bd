"""The limits assay works within, stated once: every check and every message reads them from here.

Each is chosen so that a report finishes in seconds on a laptop and every count stays exact; past a
limit, assay refuses with a message that names it (or, where a cheaper answer exists, gives that and
says so), instead of running for hours or returning a rounded count.
"""

from __future__ import annotations

__all__ = ["DEFAULT_MEMORY", "MAX_CLASSES", "MAX_BOOTSTRAP_RESAMPLES", "MAX_COUNT", "MAX_MODELS"]

MAX_CLASSES = 1_000
"""The most classes one evaluation takes (labels in the data or rows of a confusion matrix). A column
with more distinct values is rarely a column of labels (a score passed as --pred, an id); a 1,000-class
report takes about 10 s here."""

MAX_MODELS = 500
"""The most models one Friedman/Nemenyi comparison takes (``assay friedman``): the Nemenyi test reports every
pair, k(k-1)/2 of them (124,750 at the limit). 500 models over 20 data sets take about 3 s as text, 4 s as
JSON and 30 s with the diagram drawn (``--plots``, a figure 500 models tall) here."""

MAX_BOOTSTRAP_RESAMPLES = 1_000_000
"""The most bootstrap resamples asked for; 2,000 (the default) gives intervals stable to about 0.1
percentage point. See also ``inference.bootstrap.MAX_RESAMPLED_CELLS`` for large matrices."""

MAX_COUNT = 2**53
"""The largest count, and total of counts, assay takes: every integer up to it is exact in float64,
which every rate and interval is computed in."""

DEFAULT_MEMORY = 2 * 1024**3
"""The memory budget (bytes) of data read in batches when none is given (``--memory``): past it, the score
summary is kept as its sorted keys, in temporary files (:mod:`assay.summaries.ranges`)."""
