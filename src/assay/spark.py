"""``assay.spark``: the Spark engine's public face (the code is in :mod:`assay.engines.spark`)::

    import assay.spark
    r = assay.spark.evaluate(df, truth="y", score="p")
"""

from assay.engines.spark import evaluate, rank, read

__all__ = ["evaluate", "rank", "read"]
