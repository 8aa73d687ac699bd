"""Thinning a curve for display, with a bound on the drawing error.

A million-point ROC curve is drawn with a few thousand points that stay within
``tolerance`` of it: every dropped point lies within that distance of the drawn
polyline (Ramer-Douglas-Peucker). The numbers in the report stay exact; only the
picture is thinned.
"""

from __future__ import annotations

import numpy as np

__all__ = ["max_deviation", "thin"]


def _segment_distances(x: np.ndarray, y: np.ndarray, i: int, j: int) -> np.ndarray:
    """Distances of the points strictly between i and j to the segment from i to j."""
    px, py = x[i + 1:j], y[i + 1:j]
    dx, dy = x[j] - x[i], y[j] - y[i]
    length2 = dx * dx + dy * dy
    if length2 == 0:
        return np.hypot(px - x[i], py - y[i])
    t = np.clip(((px - x[i]) * dx + (py - y[i]) * dy) / length2, 0.0, 1.0)
    return np.hypot(px - (x[i] + t * dx), py - (y[i] + t * dy))


def thin(x: np.ndarray, y: np.ndarray, tolerance: float) -> np.ndarray:
    """Indices of the points to draw: the ends, and every point needed to stay within ``tolerance``.

    Examples
    --------
    >>> x = np.linspace(0, 1, 101); thin(x, x, 1e-9).tolist()
    [0, 100]
    >>> thin(np.array([0, 0.5, 1.0]), np.array([0, 1.0, 1.0]), 0.01).tolist()
    [0, 1, 2]
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n = len(x)
    if n <= 2:
        return np.arange(n)
    keep = np.zeros(n, dtype=bool)
    keep[0] = keep[-1] = True
    stack = [(0, n - 1)]
    while stack:
        i, j = stack.pop()
        if j - i < 2:
            continue
        d = _segment_distances(x, y, i, j)
        k = int(np.argmax(d))
        if d[k] > tolerance:
            m = i + 1 + k
            keep[m] = True
            stack.append((i, m))
            stack.append((m, j))
    return np.flatnonzero(keep)


def max_deviation(x: np.ndarray, y: np.ndarray, kept: np.ndarray) -> float:
    """The largest distance from a point of the curve to the thinned polyline through ``kept``."""
    worst = 0.0
    for a, b in zip(kept[:-1], kept[1:], strict=True):
        if b - a > 1:
            worst = max(worst, float(_segment_distances(np.asarray(x, float), np.asarray(y, float), a, b).max()))
    return worst
