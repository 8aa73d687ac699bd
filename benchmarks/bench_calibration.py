"""Speed of the calibration hierarchy and the decision curve on 10^7 probabilities, against one np.sort.

    python benchmarks/bench_calibration.py              # 10^7 probabilities, best of 3
    python benchmarks/bench_calibration.py --rows 1e6 --runs 5

Times, from the counts per distinct score of 10^7 probabilities (a ``ScoreCounts``, built once: what a report
has in hand after reading its data; its own build time is printed beside, for scale):

* the mean and weak calibration (``assay.inference.calibration.calibration_hierarchy``: O/E, calibration
  intercept and slope, the unreliability test, Spiegelhalter's z; its first walk, then Newton's steps);
* the decision curve (``assay.evaluation.decision.decision_curve_of`` with ``Options(net_benefit=True)``:
  99 thresholds, the bootstrap band of its default resamples);
* both as a report asks them: each first walk asked of the summary ahead, so that they share one walk.

The peer is one ``np.sort`` of the same 10^7 float64 values, measured in the same run. Two inputs:
float64 probabilities (nearly all distinct) and the same rounded to float32 (many ties). Each time is the best
of ``--runs`` runs; the walks' results kept with a summary are cleared before each run. The machines here are
shared: compare ratios, not seconds. The issue's target (issue 21): calibration and decision curve on 10^7
probabilities within 3x one sort.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from assay.evaluation.decision import ask_decision_curve, decision_curve_of
from assay.evaluation.options import Options
from assay.inference import calibration
from assay.metrics import ranking
from assay.summaries.scores import ScoreCounts

TARGET = 3.0


def best(f: Callable[[], object], runs: int, before: Callable[[], None] = lambda: None) -> float:
    before()
    f()  # warm-up: memory touched for the first time is slow
    times = []
    for _ in range(runs):
        before()
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return min(times)


def line(name: str, value: str, target: str = "", ok: bool | None = None) -> None:
    verdict = "" if ok is None else ("ok" if ok else "MISSED")
    print(f"  {name:<62} {value:>9}   {target:<9} {verdict}")


def walks_of(run: Callable[[], object]) -> int:
    """The walks of the summary that ``run`` takes."""
    count = [0]
    real = ranking.walk

    def counted(*args: object, **kwargs: object) -> object:
        count[0] += 1
        return real(*args, **kwargs)

    ranking.walk = counted
    try:
        run()
    finally:
        ranking.walk = real
    return count[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e7)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    n = int(args.rows)
    rng = np.random.default_rng(0)
    y = (rng.random(n) < 0.1).astype(np.int8)  # as benchmarks/bench_scale.py: a realistic model
    p = 1.0 / (1.0 + np.exp(-(rng.normal(size=n) + 1.5 * y - 2.0)))
    for kind, scores in (("float64", p), ("float32 (ties)", p.astype(np.float32))):
        measure(kind, y, scores, p, args.runs)


def measure(kind: str, y: np.ndarray, scores: np.ndarray, p: np.ndarray, runs: int) -> None:
    """The three times against one np.sort of ``p`` (float64), printed."""
    n = len(p)
    options = Options(net_benefit=True)
    sort = best(lambda: np.sort(p), runs)
    summary = ScoreCounts.from_arrays(y, scores)
    built = best(lambda: ScoreCounts.from_arrays(y, scores), runs)  # warm: the first call loads the kernels
    decided = {"labels": tuple(summary.labels), "positive": summary.labels[1], "low": 0.0, "high": 1.0}

    def fresh() -> None:
        summary.__dict__.pop("_walked", None)
        summary.__dict__.pop("_wanted", None)

    def hierarchy() -> object:
        return calibration.calibration_hierarchy(summary)

    def curve() -> object:
        return decision_curve_of(summary, options, **decided)

    def both() -> object:
        calibration.ask_calibration(summary)
        ask_decision_curve(summary, options, **decided)
        return curve(), hierarchy()

    times = {name: best(run, runs, fresh) for name, run in (("hierarchy", hierarchy), ("curve", curve),
                                                             ("both", both))}
    fresh()
    walks = walks_of(both)
    fresh()
    h = hierarchy()
    print(f"{n:.0e} probabilities, {kind}: {len(summary):,} distinct; one np.sort of the {n:.0e} float64 values "
          f"takes {sort:.3f} s here; best of {runs}:")
    line("calibration hierarchy / np.sort", f"{times['hierarchy'] / sort:.2f}x")
    line("decision curve (99 thresholds, bootstrap band) / np.sort", f"{times['curve'] / sort:.2f}x")
    line(f"both, their first walks shared ({walks} walks) / np.sort", f"{times['both'] / sort:.2f}x",
         f"<= {TARGET:g}x", times["both"] / sort <= TARGET)
    line("(for scale) building the summary, ScoreCounts.from_arrays / np.sort", f"{built / sort:.2f}x")
    print(f"  slope {h.slope.value:.9f}, calibration intercept {h.intercept.value:.9f}, "
          f"Spiegelhalter's z {h.spiegelhalter_z:.4f}")

if __name__ == "__main__":
    main()
