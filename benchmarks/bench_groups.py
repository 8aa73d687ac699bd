"""A report by group against one report: ``assay.evaluate(..., by=groups)`` with 100 groups against
``assay.evaluate`` of the same predictions (issue 21's target: within 2x).

Generates ``--rows`` instances (a label, a float64 probability from a realistic model, a group of
``--groups``), then times in this process, best of ``--runs``:

* one report: ``assay.evaluate(y, y_score=p, threshold=0.5)`` (every metric with its interval, the ranking
  analysis with DeLong's interval, the probabilistic losses and calibration);
* the report by group: ``assay.evaluate(y, y_score=p, threshold=0.5, by=g)`` (that report of all the
  instances, and of every group, and the gaps between the groups);
* with ``--net-benefit`` both with the decision curve.

Prints the times and their ratio. The machines here are shared: compare ratios, not seconds.

    python benchmarks/bench_groups.py --rows 10000000 --groups 100
    python benchmarks/bench_groups.py --rows 1000000 --groups 100 --runs 3
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import assay


def data(rows: int, groups: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    g = rng.integers(0, groups, rows)
    y = (rng.random(rows) < 0.3).astype(np.int8)
    logit = -1.0 + 2.0 * y + rng.normal(0.0, 1.2, rows) + 0.3 * (g % 5 == 0)
    return y, 1.0 / (1.0 + np.exp(-logit)), np.char.add("g", g.astype(str))


def best(runs: int, work) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e7)
    parser.add_argument("--groups", type=int, default=100)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--net-benefit", action="store_true")
    args = parser.parse_args()
    y, p, g = data(int(args.rows), args.groups)
    extra = {"net_benefit": True} if args.net_benefit else {}
    one = best(args.runs, lambda: assay.evaluate(y, y_score=p, threshold=0.5, **extra))
    by = best(args.runs, lambda: assay.evaluate(y, y_score=p, threshold=0.5, by=g, **extra))
    print(f"rows {int(args.rows):,} · groups {args.groups} · best of {args.runs}")
    print(f"one report:          {one:8.2f} s")
    print(f"report by group:     {by:8.2f} s")
    print(f"ratio (target <= 2): {by / one:8.2f}x")


if __name__ == "__main__":
    main()
