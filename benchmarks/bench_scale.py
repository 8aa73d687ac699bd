"""Exact evaluation of predictions larger than memory: assay's streamed report against DuckDB's exact AUC.

Generates a directory of Parquet parts (int8 label, float32 score from a realistic model: millions of
distinct scores; ``--float64`` for nearly all distinct), then times, each in its own process so that peak
memory (RSS) is the process's own:

* ``assay report DIR --truth y --score p`` (read in batches: exact AUC with DeLong's interval, average
  precision, the ROC hull, the best thresholds, costs, the probabilistic losses);
* DuckDB computing the exact AUC alone with SQL on the same files (GROUP BY score, window prefix sums):
  the reference, not a dependency of assay (``pip install duckdb``).

With ``--paired`` the parts hold a second model's scores of the same rows, ``q`` (the same logit plus
independent noise: correlated with ``p``, a little less accurate), and the benchmark times instead:

* ``assay report DIR --truth y --score p`` (one model's report: the reference);
* ``assay compare DIR --truth y --score p --score q --threshold 0.5`` (read in batches, two passes: each
  model's report, then DeLong's paired test, McNemar's test and the paired bootstrap of the accuracy
  difference).

Prints the best of ``--runs`` runs, the ratio of the times and both peaks. The machines here are shared:
compare ratios, not seconds. A temporary directory made for the parts is removed at the end.

    python benchmarks/bench_scale.py --rows 10000000
    python benchmarks/bench_scale.py --rows 100000000 --float64
    python benchmarks/bench_scale.py --rows 100000000 --paired --runs 1
    python benchmarks/bench_scale.py --rows 50000000 --one-file
    python benchmarks/bench_scale.py --rows 100000000 --float64 --tmpfs 1200M --runs 1

``--tmpfs SIZE`` puts assay's ``TMPDIR`` on a tmpfs of that size (root) and prints its peak use.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np


def generate(directory: str, rows: int, float64: bool, paired: bool = False, parts: int = 20) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(0)
    noise = np.random.default_rng(1)  # q's own generator: y and p are the same with or without --paired
    per = rows // parts
    for i in range(parts):
        n = per if i < parts - 1 else rows - per * (parts - 1)
        y = (rng.random(n) < 0.1).astype(np.int8)
        logit = rng.normal(size=n) + 1.5 * y - 2.0
        p = 1.0 / (1.0 + np.exp(-logit))
        p = p if float64 else p.astype(np.float32)
        columns = {"y": y, "p": p}
        if paired:
            q = 1.0 / (1.0 + np.exp(-(logit + noise.normal(scale=0.3, size=n))))
            columns["q"] = q if float64 else q.astype(np.float32)
        pq.write_table(pa.table(columns), os.path.join(directory, f"part-{i:05d}.parquet"))


PEAK_DISK = {"bytes": 0}
TMPDIR: dict[str, str | None] = {"path": None}


def measure(command: list[str], tmpdir: str | None = None) -> tuple[float, float, str]:
    """Wall time (s), peak RSS (GiB) of the child, and its output. With ``tmpdir`` (a file system of its own),
    the child's TMPDIR, whose peak use is polled into ``PEAK_DISK`` (unlinked files count while open)."""
    script = ("import resource, subprocess, sys, time, json\n"
              "t = time.perf_counter()\n"
              "out = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
              "elapsed = time.perf_counter() - t\n"
              "rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20\n"
              "print(json.dumps({'t': elapsed, 'rss': rss, 'out': out.stdout, 'err': out.stderr, 'rc': out.returncode}))")
    done_flag = threading.Event()
    if tmpdir is not None:
        base = shutil.disk_usage(tmpdir).used

        def poll() -> None:
            while not done_flag.is_set():
                PEAK_DISK["bytes"] = max(PEAK_DISK["bytes"], shutil.disk_usage(tmpdir).used - base)
                time.sleep(0.1)

        threading.Thread(target=poll, daemon=True).start()
    try:
        done = subprocess.run([sys.executable, "-c", script, *command], capture_output=True, text=True, check=True,
                              env={**os.environ, **({"TMPDIR": tmpdir} if tmpdir else {})})
    finally:
        done_flag.set()
    result = json.loads(done.stdout)
    if result["rc"] != 0:
        raise SystemExit(f"{command[0]} failed: {result['err'][-500:]}")
    return result["t"], result["rss"], result["out"]


DUCKDB = """
import duckdb, sys
duckdb.sql("SET enable_progress_bar = false")
sql = '''
WITH g AS (SELECT p, SUM(y)::DOUBLE AS pos, (COUNT(*) - SUM(y))::DOUBLE AS neg
           FROM read_parquet('{glob}') GROUP BY p),
c AS (SELECT pos, neg, COALESCE(SUM(neg) OVER (ORDER BY p ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)
      AS below FROM g)
SELECT SUM(pos * (below + 0.5 * neg)) / (SUM(pos) * SUM(neg)) FROM c
'''
print(duckdb.sql(sql.format(glob=sys.argv[1])).fetchall()[0][0])
"""


def single(directory: str, args: argparse.Namespace, rows: int) -> None:
    """assay's report against DuckDB's exact AUC alone, each in its own process."""
    assay_cmd = [sys.executable, "-m", "assay", "report", directory, "--truth", "y", "--score", "p",
                 "--threshold", "0.5", "--bootstrap", "100", "--format", "json"] + \
        (["--memory", args.memory] if args.memory else [])
    duck_cmd = [sys.executable, "-c", DUCKDB, directory if os.path.isfile(directory) else
                os.path.join(directory, "*.parquet")]
    best = {}
    for name, command in (("assay", assay_cmd), ("duckdb", duck_cmd)):
        runs = [measure(command, TMPDIR["path"] if name == "assay" else None) for _ in range(args.runs)]
        best[name] = min(runs, key=lambda r: r[0])
    assay_auc = json.loads(best["assay"][2])["ranking"]["roc_auc"]["value"]
    duck_auc = float(best["duckdb"][2].split()[-1])  # after DuckDB's own progress bar
    kind = "float64" if args.float64 else "float32"
    print(f"{rows:,} rows, {kind} scores; best of {args.runs} runs; assay --memory {args.memory or '2GB (default)'}")
    print(f"  assay report (exact AUC + DeLong, AP, hull, thresholds, losses): {best['assay'][0]:7.1f} s, "
          f"peak RSS {best['assay'][1]:.2f} GiB, AUC {assay_auc:.12f}")
    print(f"  DuckDB exact AUC alone (SQL):                                   {best['duckdb'][0]:7.1f} s, "
          f"peak RSS {best['duckdb'][1]:.2f} GiB, AUC {duck_auc:.12f}")
    print(f"  time ratio assay / DuckDB: {best['assay'][0] / best['duckdb'][0]:.2f}x; "
          f"AUCs differ by {abs(assay_auc - duck_auc):.1e}")
    if TMPDIR["path"]:
        print(f"  assay's temporary disk at its peak: {PEAK_DISK['bytes'] / 2**20:,.0f} MiB, "
              f"{PEAK_DISK['bytes'] / rows:.1f} bytes a row (TMPDIR a tmpfs of {args.tmpfs})")


def paired(directory: str, args: argparse.Namespace, rows: int) -> None:
    """One model's report against the paired comparison of p and q, each in its own process."""
    memory = ["--memory", args.memory] if args.memory else []
    report_cmd = [sys.executable, "-m", "assay", "report", directory, "--truth", "y", "--score", "p",
                  "--format", "json"] + memory
    compare_cmd = [sys.executable, "-m", "assay", "compare", directory, "--truth", "y", "--score", "p",
                   "--score", "q", "--threshold", "0.5", "--format", "json"] + memory
    best = {}
    for name, command in (("report", report_cmd), ("compare", compare_cmd)):
        runs = [measure(command) for _ in range(args.runs)]
        best[name] = min(runs, key=lambda r: r[0])
    report_auc = json.loads(best["report"][2])["ranking"]["roc_auc"]["value"]
    compared = json.loads(best["compare"][2])
    auc_p, auc_q = (model["roc_auc"]["value"] for model in compared["models"])
    delong, mcnemar = compared["tests"]["delong"], compared["tests"]["mcnemar"]
    kind = "float64" if args.float64 else "float32"
    print(f"{rows:,} rows, two {kind} score columns (p, q); best of {args.runs} runs; "
          f"assay --memory {args.memory or '2GB (default)'}")
    print(f"  assay report, one model (p):                                    {best['report'][0]:7.1f} s, "
          f"peak RSS {best['report'][1]:.2f} GiB, AUC {report_auc:.12f}")
    print(f"  assay compare p q (DeLong paired, McNemar, paired bootstrap):   {best['compare'][0]:7.1f} s, "
          f"peak RSS {best['compare'][1]:.2f} GiB, AUCs {auc_p:.12f} {auc_q:.12f}")
    print(f"  time ratio compare / report: {best['compare'][0] / best['report'][0]:.2f}x; "
          f"compare's AUC of p differs from the report's by {abs(auc_p - report_auc):.1e}")
    print(f"  DeLong: difference {delong['difference']:.6f}, z {delong['statistic']:.3f}, "
          f"p-value {delong['pvalue']:.3g}, correlation {delong['correlation']:.4f}; "
          f"McNemar: b {mcnemar['b']:,}, c {mcnemar['c']:,}, statistic {mcnemar['statistic']:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e7)
    parser.add_argument("--float64", action="store_true")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--paired", action="store_true",
                        help="two score columns (p, q): one model's report against assay compare p q")
    parser.add_argument("--one-file", action="store_true",
                        help="all the rows in one Parquet file (the commonest case), given to assay as a FILE")
    parser.add_argument("--memory", default=None, help="assay's --memory (default: its own, 2GB)")
    parser.add_argument("--dir", default=None, help="where the Parquet parts go (default: a temporary directory)")
    parser.add_argument("--tmpfs", default=None, metavar="SIZE",
                        help="assay's TMPDIR on a tmpfs of this size (such as 1200M; needs root): its peak use is "
                             "measured, and a run that needs more fails")
    args = parser.parse_args()
    rows = int(args.rows)
    directory = args.dir or tempfile.mkdtemp(prefix="assay-bench-")
    if args.tmpfs:
        TMPDIR["path"] = tempfile.mkdtemp(prefix="assay-bench-tmpfs-")
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={args.tmpfs}", "tmpfs", TMPDIR["path"]], check=True)
    try:
        os.makedirs(directory, exist_ok=True)
        parts = sorted(f for f in os.listdir(directory) if f.endswith(".parquet"))
        if not parts:
            t = time.perf_counter()
            generate(directory, rows, args.float64, args.paired, parts=1 if args.one_file else 20)
            print(f"generated {rows:,} rows in {time.perf_counter() - t:.1f} s into {directory}")
        elif args.paired:
            import pyarrow.parquet as pq

            if "q" not in pq.read_schema(os.path.join(directory, parts[0])).names:
                raise SystemExit(f"{directory} holds parts without a column q: generate them with --paired")
        if args.paired:
            paired(directory, args, rows)
        elif args.one_file:
            single(os.path.join(directory, sorted(os.listdir(directory))[0]), args, rows)
        else:
            single(directory, args, rows)
    finally:
        if args.dir is None:
            shutil.rmtree(directory, ignore_errors=True)
        if TMPDIR["path"]:
            subprocess.run(["umount", TMPDIR["path"]], check=False)
            os.rmdir(TMPDIR["path"])


if __name__ == "__main__":
    main()
