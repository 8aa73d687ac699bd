"""Speed of assay's score metrics against scikit-learn and against one np.sort, in one run.

    python benchmarks/bench_scores.py            # the full run (10^7 scores; a few minutes)
    python benchmarks/bench_scores.py --quick    # 10^6 scores, fewer repetitions

Prints ratios, not absolute times: these machines are shared and noisy, so
every comparison is measured in the same process, back to back, best of a few
repetitions after a warm-up (memory touched for the first time is slow).
Targets (issue 3; logits from issue 9): roc_auc at least 10x faster than scikit-learn and within 2x
one np.sort, for probabilities and for logits alike; roc_curve and average_precision at least 8x
faster and within 3x;
evaluate() with scores at 10^6 within 25x one np.sort; a 2000-replicate
bootstrap interval of the AUC on 10^5 scores at least 20x faster than a loop of
scikit-learn calls; a whole `assay report` process on a 1,000-row CSV with
scores under 1.5 s (median of 5 after one warm-up); peak memory within a few
copies of the input.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc

import numpy as np
from sklearn import metrics as skm

import assay
from assay.inference.bootstrap import BootstrapSettings
from assay.inference.roc import bootstrap_auc_ci
from assay.summaries.scores import ScoreCounts


def best(f, reps: int) -> float:
    f()  # warm-up
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return min(times)


def line(name: str, value: str, target: str, ok: bool) -> None:
    print(f"  {name:<58} {value:>10}   target {target:<10} {'ok' if ok else 'MISSED'}")


def probabilities(rng: np.random.Generator, y: np.ndarray) -> np.ndarray:
    """Continuous probabilities in (0, 1) that carry some signal: logistic(normal + y)."""
    return 1.0 / (1.0 + np.exp(-(rng.normal(size=len(y)) + 1.2 * y - 0.5)))


def curves(n: int, reps: int) -> None:
    rng = np.random.default_rng(0)
    y = (rng.random(n) < 0.3).astype(np.int64)
    base = probabilities(rng, y)
    for kind, scores in (("float64", base), ("float32", base.astype(np.float32)),
                         ("heavily tied (2 decimals)", np.round(base, 2)),
                         ("logits (both signs: keyed in two parts)", np.log(base / (1.0 - base)))):
        sort = best(lambda: np.sort(scores), reps)
        print(f"{n:.0e} scores, 30% positives, {kind}; one np.sort takes {sort:.3f} s here:")
        for ours, theirs, speedup, within in (
            (assay.roc_auc, skm.roc_auc_score, 10, 2),
            (assay.roc_curve, skm.roc_curve, 8, 3),
            (assay.average_precision, skm.average_precision_score, 8, 3),
        ):
            t_ours = best(lambda: ours(y, scores), reps)
            t_sk = best(lambda: theirs(y, scores), max(1, reps // 3))
            line(f"{ours.__name__}: scikit-learn / assay", f"{t_sk / t_ours:.1f}x", f">= {speedup}x",
                 t_sk / t_ours >= speedup)
            line(f"{ours.__name__}: assay / np.sort", f"{t_ours / sort:.2f}x", f"<= {within}x",
                 t_ours / sort <= within)


def evaluate_at(n: int, reps: int) -> None:
    rng = np.random.default_rng(1)
    y = (rng.random(n) < 0.3).astype(np.int64)
    scores = probabilities(rng, y)
    sort = best(lambda: np.sort(scores), reps)
    t = best(lambda: assay.evaluate(y, y_score=scores), reps)
    print(f"evaluate() with {n:.0e} scores (everything, DeLong included):")
    line("evaluate / np.sort", f"{t / sort:.1f}x", "<= 25x", t / sort <= 25)
    tracemalloc.start()
    assay.evaluate(y, y_score=scores)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    ratio = peak / (scores.nbytes + y.nbytes)
    line("peak memory / input size (scores and labels)", f"{ratio:.1f}x", "<= 4x", ratio <= 4)


def bootstrap(n: int, resamples: int) -> None:
    rng = np.random.default_rng(2)
    y = rng.random(n) < 0.3
    scores = rng.normal(size=n) + y
    sc = ScoreCounts.from_arrays(y, scores)
    settings = BootstrapSettings(resamples, 0)
    t_ours = best(lambda: bootstrap_auc_ci(sc, settings=settings), 2)
    pos, neg = np.flatnonzero(y), np.flatnonzero(~y)
    loop = 40

    def sklearn_loop() -> None:
        for _ in range(loop):
            idx = np.concatenate([rng.choice(pos, len(pos)), rng.choice(neg, len(neg))])
            skm.roc_auc_score(y[idx], scores[idx])

    t_loop = best(sklearn_loop, 1) * resamples / loop
    print(f"bootstrap interval of the AUC, {resamples} resamples of {n:.0e} scores:")
    line("loop of scikit-learn calls / assay", f"{t_loop / t_ours:.1f}x", ">= 20x", t_loop / t_ours >= 20)


def startup(rows: int = 1000) -> None:
    rng = np.random.default_rng(3)
    y = rng.random(rows) < 0.4
    p = np.clip(rng.random(rows) * 0.6 + 0.3 * y, 0, 1)
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
        f.write("y,p\n" + "".join(f"{int(a)},{b:.6f}\n" for a, b in zip(y, p)))
        path = f.name
    command = [sys.executable, "-m", "assay", "report", path, "--truth", "y", "--score", "p"]
    subprocess.run(command, capture_output=True, check=True)
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True)
        times.append(time.perf_counter() - t0)
    os.unlink(path)
    median = statistics.median(times)
    print(f"a whole `assay report` process on a {rows:,}-row CSV with scores:")
    line("median of 5 (seconds)", f"{median:.2f}s", "< 1.5s", median < 1.5)


def _cpu() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            return next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        return "an unknown CPU"


def _simd() -> str:
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:
        return "unknown"
    found = [name for name in ("AVX512_SKX", "AVX2") if features.get(name)]
    return found[0] if found else "none"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10^6 scores and fewer repetitions")
    args = parser.parse_args()
    n = 10**6 if args.quick else 10**7
    reps = 2 if args.quick else 3
    print(f"{_cpu()}; numpy {np.__version__} (SIMD sort: {_simd()}), scikit-learn {skm.__name__ and __import__('sklearn').__version__}, "
          f"assay {assay.__version__}, {os.cpu_count()} cores")
    curves(n, reps)
    evaluate_at(10**6, 3)
    bootstrap(10**5, 2000)
    startup()


if __name__ == "__main__":
    main()
