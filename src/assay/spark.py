"""``assay.spark``: the Spark engine's public face (the code is in :mod:`assay.engines.spark` and
:mod:`assay.engines.spark_compare`)::

    import assay.spark
    r = assay.spark.evaluate(df, truth="y", score="p")
    c = assay.spark.compare(df, truth="y", scores=["p_new", "p_old"], threshold=0.5)
"""

from assay.engines.spark import evaluate, rank, read
from assay.engines.spark_compare import compare

__all__ = ["compare", "evaluate", "rank", "read"]
