"""Bootstrap intervals for any function of a confusion matrix.

Resampling the instances of each actual class with replacement and counting
them again is the same as drawing each row of the k x k matrix from a
multinomial distribution with that row's observed proportions. So the bootstrap
here draws matrices, not instances: it costs nothing per instance, is
vectorised, and is exactly reproducible from its seed.

It is stratified by actual class (each class keeps its size, as in pROC's
bootstrap for AUC), so recall, specificity and balanced accuracy are defined
in every resample.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from assay.inference.estimate import ConfidenceInterval
from assay.metrics.confusion import MatrixStack

__all__ = ["BootstrapSettings", "BootstrapInterval", "bootstrap_matrix_ci"]

MAX_RESAMPLED_CELLS = 500_000_000
"""The most matrix cells a bootstrap draws (resamples × k²): about 10 s here. Beyond, intervals are skipped
with a note rather than keeping the user waiting for minutes (2,000 resamples reach it at 500 classes)."""

MIN_DEFINED = 0.99
"""An interval is given only when the statistic is defined in this share of resamples."""


@dataclass(frozen=True)
class BootstrapSettings:
    """How many resamples, and the seed that makes them reproducible."""

    resamples: int = 2000
    seed: int = 0

    def to_dict(self) -> dict[str, int]:
        return {"resamples": self.resamples, "seed": self.seed}


@dataclass(frozen=True)
class BootstrapInterval:
    """A percentile interval, or None with the reason it is missing."""

    ci: ConfidenceInterval | None
    defined: float
    note: str | None = None


def bootstrap_matrix_ci(
    counts: np.ndarray,
    statistics: Mapping[str, Callable[[np.ndarray], np.ndarray]],
    *,
    confidence: float,
    settings: BootstrapSettings = BootstrapSettings(),
) -> dict[str, BootstrapInterval]:
    """Stratified percentile bootstrap intervals of several statistics of one matrix.

    Parameters
    ----------
    counts : ndarray of shape (k, k)
        The observed confusion counts (inputs validated, n > 0).
    statistics : mapping of name to function
        Each maps a stack of matrices of shape (B, k, k) to B values (NaN where
        undefined). All statistics see the same resamples.
    confidence : float
    settings : BootstrapSettings

    Returns
    -------
    dict of name to BootstrapInterval
        The interval between the (1 - c)/2 and (1 + c)/2 quantiles of the
        replicates, computed when the statistic is defined in at least 99% of
        them.

    Examples
    --------
    >>> from assay.metrics.confusion import accuracy
    >>> r = bootstrap_matrix_ci(np.array([[40, 10], [10, 40]]), {"acc": accuracy}, confidence=0.95)
    >>> bool(r["acc"].ci.low < 0.8 < r["acc"].ci.high)
    True
    """
    m = np.asarray(counts, dtype=np.int64)
    k = m.shape[0]
    if settings.resamples * k * k > MAX_RESAMPLED_CELLS:
        note = (f"no interval: {settings.resamples:,} bootstrap resamples of a {k:,} x {k:,} matrix exceed "
                f"{MAX_RESAMPLED_CELLS:,} cells; fewer resamples (--bootstrap) make it possible")
        return {name: BootstrapInterval(None, 0.0, note) for name in statistics}
    rng = np.random.default_rng(settings.seed)
    sizes = m.sum(axis=1)
    rows = [i for i in range(k) if sizes[i] > 0]
    per_chunk = max(1, min(settings.resamples, 4_000_000 // max(k * k, 1)))
    names = list(statistics)
    replicates = np.empty((len(names), settings.resamples))  # a row of replicates per statistic
    # each row is drawn over its non-zero cells only: a zero cell stays zero, and numpy's multinomial
    # draws nothing for a zero probability, so the draws (and the intervals) are the same as over
    # the whole row, at a cost that grows with the non-zero cells rather than with k
    cells = {i: np.flatnonzero(m[i]) for i in rows}
    done = 0
    while done < settings.resamples:
        size = min(per_chunk, settings.resamples - done)
        stack = np.zeros((size, k, k), dtype=np.int64).view(MatrixStack)
        for i in rows:
            stack[:, i, cells[i]] = rng.multinomial(int(sizes[i]), m[i, cells[i]] / sizes[i], size=size)
        for j, fn in enumerate(statistics.values()):
            replicates[j, done:done + size] = np.asarray(fn(stack), dtype=np.float64).reshape(size)
        done += size
    alpha = 1.0 - confidence
    levels = [alpha / 2.0, 1.0 - alpha / 2.0]
    finite = np.isfinite(replicates)
    shares = finite.mean(axis=1)
    everywhere = finite.all(axis=1)  # defined in every resample: their quantiles in one call (the same numbers)
    bounds = dict(zip(np.flatnonzero(everywhere).tolist(),
                      np.quantile(replicates[everywhere], levels, axis=1).T.tolist()))
    out: dict[str, BootstrapInterval] = {}
    for j, name in enumerate(names):
        share = float(shares[j])
        if share < MIN_DEFINED:
            out[name] = BootstrapInterval(
                None, share, f"no interval: undefined in {1 - share:.1%} of bootstrap resamples"
            )
            continue
        low, high = bounds[j] if everywhere[j] else np.quantile(replicates[j][finite[j]], levels)
        out[name] = BootstrapInterval(ConfidenceInterval(float(low), float(high)), share)
    return out
