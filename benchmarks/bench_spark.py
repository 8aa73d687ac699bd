"""The Spark engine against Spark's own exact AUC, on the same DataFrame, in one local session.

Writes Parquet parts (as ``bench_scale.py``: int8 label, float32 score of a logistic model; ``--float64``
for nearly all distinct, as the issue's target asks), reads them into one DataFrame and times, best of
``--runs``:

* ``assay.spark.evaluate(df, truth="y", score="p")``: the whole report (exact AUC with DeLong's
  interval, average precision, the ROC hull, the best thresholds, the losses), the score summary
  counted on the executors and range-partitioned to the driver;
* ``pyspark.mllib.evaluation.BinaryClassificationMetrics``: Spark's exact area under the ROC curve
  alone, on the same DataFrame's (score, label) pairs (the Python wrapper takes no ``numBins`` and
  builds the Scala class with its default, ``numBins=0``: no binning).

Prints the ratio of the times and both AUCs, the bytes that reached the driver during assay's run (every
``collect``, ``toLocalIterator``, ``toArrow``, ``toPandas`` and ``runJob`` is wrapped and its result's pickled
or Arrow size counted) and the driver's peak memory (the Python process; in local mode the JVM holds the
executors too). A local session on a shared machine: compare ratios.

    python benchmarks/bench_spark.py --rows 10000000
    python benchmarks/bench_spark.py --rows 2e7 --float64            # nearly every score distinct
    python benchmarks/bench_spark.py --rows 1e8 --float64 --runs 1 --no-peer   # the driver's memory alone
"""

from __future__ import annotations

import argparse
import os
import pickle
import resource
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))

from bench_scale import generate  # noqa: E402


def best(f, runs: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(runs):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return min(times), out


DRIVER_BYTES = [0]


def size(out: object) -> int:
    """The bytes a result brought to the driver: an Arrow table's buffers, else its pickle."""
    if hasattr(out, "nbytes") and hasattr(out, "schema"):
        return int(out.nbytes)
    try:
        return len(pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL))
    except Exception:  # noqa: BLE001 - a pandas frame of objects, say: its memory
        return int(out.memory_usage(deep=True).sum()) if hasattr(out, "memory_usage") else 0


def count_driver_bytes() -> None:
    """Wrap what brings results to the driver so that :data:`DRIVER_BYTES` counts their sizes."""
    from pyspark import RDD, SparkContext
    from pyspark.sql import DataFrame

    def counted(cls: type, name: str) -> None:
        real = getattr(cls, name)

        def wrapper(*args, **kwargs):
            out = real(*args, **kwargs)
            if name == "toLocalIterator":
                return (DRIVER_BYTES.__setitem__(0, DRIVER_BYTES[0] + size(x)) or x for x in out)
            DRIVER_BYTES[0] += size(out)
            return out

        setattr(cls, name, wrapper)

    counted(SparkContext, "runJob")
    counted(RDD, "collect")
    for name in ("collect", "toLocalIterator", "toArrow", "toPandas"):
        if hasattr(DataFrame, name):
            counted(DataFrame, name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e7)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--float64", action="store_true", help="float64 scores: nearly every score distinct")
    parser.add_argument("--dir", default=None, help="where the Parquet parts go (default: a temporary directory)")
    parser.add_argument("--no-peer", action="store_true",
                        help="skip Spark's own AUC (to measure assay's bytes and memory at sizes where it takes hours)")
    args = parser.parse_args()
    rows = int(args.rows)
    directory = args.dir or tempfile.mkdtemp(prefix="assay-bench-spark-")
    os.makedirs(directory, exist_ok=True)
    if not any(f.endswith(".parquet") for f in os.listdir(directory)):
        generate(directory, rows, float64=args.float64)

    from pyspark.mllib.evaluation import BinaryClassificationMetrics
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F

    import assay.spark

    spark = (SparkSession.builder.master("local[2]").appName("assay-bench")
             .config("spark.ui.enabled", "false").config("spark.driver.memory", "4g").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    df = spark.read.parquet(directory)

    def ours() -> float:
        return assay.spark.evaluate(df, truth="y", score="p", threshold=0.5, bootstrap=100).ranking.roc_auc.value

    def theirs() -> float:
        pairs = df.select(F.col("p").cast("double"), F.col("y").cast("double")).rdd.map(tuple)
        return BinaryClassificationMetrics(pairs).areaUnderROC  # pyspark's wrapper: numBins=0, exact

    count_driver_bytes()
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    t_ours, auc_ours = best(ours, args.runs)
    driver_bytes = DRIVER_BYTES[0] / args.runs
    rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    distinct = df.select("p").distinct().count()
    print(f"{rows:,} rows, {'float64' if args.float64 else 'float32'} scores ({distinct:,} distinct), Spark "
          f"{spark.version} local[2]; best of {args.runs} runs")
    print(f"  assay.spark.evaluate (exact AUC + DeLong, AP, hull, thresholds, losses): {t_ours:7.1f} s, "
          f"AUC {auc_ours:.12f}")
    if not args.no_peer:
        t_theirs, auc_theirs = best(theirs, args.runs)
        print(f"  BinaryClassificationMetrics(numBins=0).areaUnderROC alone:              {t_theirs:7.1f} s, "
              f"AUC {auc_theirs:.12f}")
        print(f"  time ratio assay / Spark: {t_ours / t_theirs:.2f}x; AUCs differ by "
              f"{abs(auc_ours - auc_theirs):.1e}")
    print(f"  assay's run: {driver_bytes / 2**20:,.1f} MiB reached the driver; the driver's (Python's) peak "
          f"RSS {rss_after:.2f} GiB ({rss_before:.2f} GiB before assay's run)")
    spark.stop()


if __name__ == "__main__":
    main()
