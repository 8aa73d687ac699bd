"""``assay.spark``: the Spark engine's public face (see :mod:`assay.engines.spark`).

>>> import assay.spark  # doctest: +SKIP
>>> assay.spark.evaluate(df, truth="y", score="p")  # doctest: +SKIP
"""

from assay.engines.spark import evaluate, rank, read

__all__ = ["evaluate", "rank", "read"]
