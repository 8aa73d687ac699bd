"""``assay.spark``: the Spark engine's public face (the code is in :mod:`assay.engines.spark`,
:mod:`assay.engines.spark_compare` and :mod:`assay.engines.spark_curves`)::

    import assay.spark
    r = assay.spark.evaluate(df, truth="y", score="p")
    c = assay.spark.compare(df, truth="y", scores=["p_new", "p_old"], threshold=0.5)
    assay.spark.curve(df, truth="y", score="p", kind="roc").write.csv("roc/", header=True)
"""

from assay.engines.spark import evaluate, rank, read
from assay.engines.spark_compare import compare
from assay.engines.spark_curves import curve

__all__ = ["compare", "curve", "evaluate", "rank", "read"]
