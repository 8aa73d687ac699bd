"""The numba kernels behind ``assay.summaries.kernels`` (imported only through it, lazily: it imports numba).

Each walks the ascending keys of one part once, from the highest score down;
counts are int64 and areas are accumulated as exact integers where they can be
(twice the Mann-Whitney U), so the results equal the numpy code's. Two are of
another kind: ``count_draws`` counts bootstrap resamples' instances, and
``lowess_resamples`` refits their lowess calibration curves
(``assay.inference.calibration_curve``), equal to its numpy code to 1e-12.
"""

from __future__ import annotations

from types import SimpleNamespace

import numba
import numpy as np

__all__ = ["KERNELS", "build"]

KERNELS = ("make_keys", "auc_twice_u", "runs", "run_counts", "keep_turning", "average_precision", "merge_counts",
           "split_keys", "order_keys", "scatter", "count_sorted", "score_losses",
           "dense_counts", "lowess_resamples", "count_draws")

FAST = {"lowess_resamples": {"fastmath": {"reassoc"}}}
"""Kernels whose floating-point sums may be reordered, so that their loops over an array are vectorised: 3.3
times as fast for lowess_resamples, whose sums then differ from the numpy code's in the last bits. No other
fast-math liberty: no fused multiply-adds (every value that clowess compares is computed as numpy computes it,
bit for bit), no assumption of no NaN or no infinity."""


def build(*, cache: bool) -> SimpleNamespace:
    """The kernels compiled by numba, with numba's on-disk cache or without it (compiled in memory)."""
    options = {"cache": cache, "nogil": True, "boundscheck": False}
    return SimpleNamespace(**{name: numba.njit(**options, **FAST.get(name, {}))(globals()[name]) for name in KERNELS})


def make_keys(bits, is_positive, keys, sign):  # pragma: no cover - compiled
    """keys[i] = (bits of score i) << 1 | class, -0.0 read as 0.0; False (keys unfinished) at a negative score.

    ``bits`` is the scores' unsigned view, ``sign`` its top bit.
    """
    one = keys.dtype.type(1)
    zero = bits.dtype.type(0)  # typed: numba would unify an int literal with uint64 as a float
    for i in range(bits.shape[0]):
        b = bits[i]
        if b == sign:  # -0.0
            b = zero
        elif b & sign:
            return False
        keys[i] = (b << one) | keys.dtype.type(is_positive[i])
    return True


def auc_twice_u(keys):  # pragma: no cover - compiled
    """(2 U, positives, negatives), U counting each (positive, negative) pair the positive ranks above,
    a tie one half.

    Going up, a positive's negatives at or below are all negatives so far (tied negatives come first),
    and its tied ones are those since its run began: 2 U = sum over positives of (so far + at run start).
    Branch-free (selects, not jumps), so unpredictable runs cost nothing.
    """
    n = keys.shape[0]
    twice_u = np.int64(0)
    negatives = np.int64(0)
    at_run_start = np.int64(0)
    previous = keys.dtype.type(0)
    if n:
        previous = keys[0] >> keys.dtype.type(1)
    one = keys.dtype.type(1)
    for i in range(n):
        k = keys[i]
        v = k >> one
        at_run_start = negatives if v != previous else at_run_start
        previous = v
        b = np.int64(k & one)
        twice_u += b * (negatives + at_run_start)
        negatives += 1 - b
    return twice_u, n - negatives, negatives


def runs(keys):  # pragma: no cover - compiled
    """The number of distinct scores (runs of equal keys but for the class bit)."""
    n = keys.shape[0]
    if n == 0:
        return 0
    one = keys.dtype.type(1)
    count = 1
    for i in range(1, n):
        count += (keys[i] ^ keys[i - 1]) > one
    return count


def run_counts(keys, tp, fp, bits, first, inverted):  # pragma: no cover - compiled
    """Going down the runs, write each one's cumulative (tp, fp) and its score's bits, from slot ``first``.

    Every instance writes its run's slot and the slot moves on where the run ends, so there is no
    data-dependent jump; the arrays hold ``first`` + the number of runs.
    """
    n = keys.shape[0]
    one = keys.dtype.type(1)
    slot = first
    positives = np.int64(0)
    for i in range(n - 1, 0, -1):
        k = keys[i]
        positives += np.int64(k & one)
        tp[slot] = positives
        fp[slot] = (n - i) - positives
        b = k >> one
        bits[slot] = ~b if inverted else b
        slot += (k ^ keys[i - 1]) > one
    if n:
        k = keys[0]
        positives += np.int64(k & one)
        tp[slot] = positives
        fp[slot] = n - positives
        b = k >> one
        bits[slot] = ~b if inverted else b
        slot += 1
    return slot


def keep_turning(tp, fp, bits, first):  # pragma: no cover - compiled
    """Keep, in place, the points from ``first`` on that scikit-learn's drop_intermediate keeps: the
    ends and every point where the curve turns (a second difference of tp or fp is not zero).
    Returns the new length. Branch-free: every point is copied down, and the slot moves on if it stays."""
    m = tp.shape[0]
    if m - first <= 2:
        return m
    slot = first + 1
    t_before = tp[first]
    f_before = fp[first]
    for j in range(first + 1, m - 1):
        t = tp[j]
        f = fp[j]
        tp[slot] = t  # slot <= j: only points already read are overwritten
        fp[slot] = f
        bits[slot] = bits[j]
        slot += ((tp[j + 1] - t) != (t - t_before)) | ((fp[j + 1] - f) != (f - f_before))
        t_before = t
        f_before = f
    tp[slot] = tp[m - 1]
    fp[slot] = fp[m - 1]
    bits[slot] = bits[m - 1]
    return slot + 1


def average_precision(keys, positives_total, positives_before, instances_before):  # pragma: no cover - compiled
    """Sum over the distinct thresholds, going down, of the recall gained times the precision there
    (divided by ``positives_total``); ``positives_before`` and ``instances_before`` count what scores above
    this part (0 for a single part).

    Branch-free: a run adds its term where it ends (a zero term when it holds no positive).
    """
    n = keys.shape[0]
    one = keys.dtype.type(1)
    area = 0.0
    positives = np.int64(positives_before)
    run_pos = np.int64(0)
    for i in range(n - 1, -1, -1):
        k = keys[i]
        b = np.int64(k & one)
        positives += b
        run_pos += b
        end = np.int64(1) if i == 0 else np.int64((k ^ keys[i - 1]) > one)
        area += (run_pos * end) * (positives / (instances_before + n - i))
        run_pos *= 1 - end
    return area / positives_total




def merge_counts(scores_a, pos_a, neg_a, scores_b, pos_b, neg_b, scores, pos, neg):  # pragma: no cover - compiled
    """Merge two summaries (scores strictly decreasing) into the output arrays, equal scores adding their
    counts; returns the number of distinct scores written. One pass, no temporaries."""
    i = 0
    j = 0
    k = 0
    na = scores_a.shape[0]
    nb = scores_b.shape[0]
    while i < na and j < nb:
        a = scores_a[i]
        b = scores_b[j]
        if a > b:
            scores[k] = a
            pos[k] = pos_a[i]
            neg[k] = neg_a[i]
            i += 1
        elif b > a:
            scores[k] = b
            pos[k] = pos_b[j]
            neg[k] = neg_b[j]
            j += 1
        else:
            scores[k] = a
            pos[k] = pos_a[i] + pos_b[j]
            neg[k] = neg_a[i] + neg_b[j]
            i += 1
            j += 1
        k += 1
    while i < na:
        scores[k] = scores_a[i]
        pos[k] = pos_a[i]
        neg[k] = neg_a[i]
        i += 1
        k += 1
    while j < nb:
        scores[k] = scores_b[j]
        pos[k] = pos_b[j]
        neg[k] = neg_b[j]
        j += 1
        k += 1
    return k


def split_keys(bits, is_positive, negative_keys, positive_keys, sign):  # pragma: no cover - compiled
    """Keys of scores of both signs, in two parts: a negative score's bits inverted (which orders the
    negatives and frees the top bit), a non-negative one's as they are (-0.0 read as 0.0), each shifted
    left one with the class in bit 0. The parts are sized by the caller (the count of negative scores)."""
    one = positive_keys.dtype.type(1)
    zero = bits.dtype.type(0)
    j = 0
    k = 0
    for i in range(bits.shape[0]):
        b = bits[i]
        c = positive_keys.dtype.type(is_positive[i])
        if b == sign:  # -0.0
            b = zero
        if b & sign:
            negative_keys[j] = ((~b) << one) | c
            j += 1
        else:
            positive_keys[k] = (b << one) | c
            k += 1


def order_keys(bits, is_positive, positive_keys, negative_keys, sign):  # pragma: no cover - compiled
    """Order-preserving keys of scores of any sign, the positives' and the negatives' apart (the arrays
    sized by the caller): a negative score's bits inverted, a non-negative one's with the top bit set
    (-0.0 read as 0.0), so that the keys compare as the scores do."""
    zero = bits.dtype.type(0)
    j = 0
    k = 0
    for i in range(bits.shape[0]):
        b = bits[i]
        if b == sign:  # -0.0
            b = zero
        key = ~b if b & sign else b | sign
        if is_positive[i]:
            positive_keys[j] = key
            j += 1
        else:
            negative_keys[k] = key
            k += 1


def scatter(keys, splitters, table, shift, out, offsets):  # pragma: no cover - compiled
    """Keys grouped by range into ``out``: range p holds the keys from ``splitters[p - 1]`` up to (not
    including) ``splitters[p]``, in their order; ``offsets`` (zeros, one more than the ranges) receives
    where each range starts. ``table[key >> shift]`` is the range of the smallest key with the same top
    bits, so that a key's range is found in a step or two, not a binary search."""
    n = keys.shape[0]
    m = splitters.shape[0]
    bucket = np.empty(n, np.uint16)
    for i in range(n):
        key = keys[i]
        b = table[key >> shift]
        while b < m and splitters[b] <= key:
            b += 1
        bucket[i] = b
        offsets[b + 1] += 1
    for p in range(m + 1):
        offsets[p + 1] += offsets[p]
    place = offsets[:m + 1].copy()
    for i in range(n):
        b = bucket[i]
        out[place[b]] = keys[i]
        place[b] += 1


def count_sorted(positive_keys, negative_keys, keys, positives, negatives):  # pragma: no cover - compiled
    """The distinct keys of two ascending arrays (the positives' and the negatives'), decreasing, with how
    many of each class hold each; returns how many were written."""
    i = positive_keys.shape[0] - 1
    j = negative_keys.shape[0] - 1
    m = 0
    while i >= 0 or j >= 0:
        if j < 0 or (i >= 0 and positive_keys[i] >= negative_keys[j]):
            key = positive_keys[i]
        else:
            key = negative_keys[j]
        p = 0
        while i >= 0 and positive_keys[i] == key:
            p += 1
            i -= 1
        q = 0
        while j >= 0 and negative_keys[j] == key:
            q += 1
            j -= 1
        keys[m] = key
        positives[m] = p
        negatives[m] = q
        m += 1
    return m


INVERSE_LN2 = 1.0 / np.log(2.0)


def score_losses(scores, negatives, positives, clip, eps, losses, sums, flagged):  # pragma: no cover - compiled
    """The losses of two-class scores given per distinct score (``ProbabilitySummary.from_score_counts``'s,
    term by term the same expressions): for each class c (0: ``negatives``, 1: ``positives``, float weights)
    and each loss (quadratic, absolute, information, log loss), ``sums[c, loss]`` receives the weight of the
    finite values, their weighted sum and their weighted centred sum of squares (about the mean over the
    count, an integer, as the numpy code takes it); ``flagged[c]`` the weight at a probability of 0, below
    ``clip`` (when ``clip`` > 0) and below ``eps``. ``losses`` (4 by the number of scores) is scratch space.

    Branch-free: a score without instances of the class weighs 0 (its losses are finite but for the
    information loss at 0, which is selected away), and the sums are kept in local variables. Within the
    log loss's clipping, the information loss is its logarithm in bits (one call; within an ulp of log2's).
    """
    n = scores.shape[0]
    for c in range(2):
        weights = positives if c == 1 else negatives
        counted = 0.0
        finite_counted = 0.0
        t0 = 0.0
        t1 = 0.0
        t2 = 0.0
        t3 = 0.0
        zero = 0.0
        below_clip = 0.0
        below_eps = 0.0
        for i in range(n):
            w = weights[i]
            p1 = scores[i]
            p0 = 1.0 - p1
            pc = p1 if c == 1 else p0
            quadratic = p0 * p0 + p1 * p1 - 2.0 * pc + 1.0
            x0 = quadratic if quadratic > 0.0 else 0.0
            x1 = (p0 + p1) - 2.0 * pc + 1.0
            logarithm = np.log(min(max(pc, eps), 1.0 - eps))
            x3 = -logarithm
            if pc >= eps and pc <= 1.0 - eps and pc >= clip:  # the same logarithm: one call, not two
                x2 = -logarithm * INVERSE_LN2
            else:
                x2 = -np.log2(min(max(pc, clip), 1.0) if clip > 0.0 else pc)
            losses[0, i] = x0
            losses[1, i] = x1
            losses[2, i] = x2
            losses[3, i] = x3
            finite = np.isfinite(x2)
            counted += w
            t0 += w * x0
            t1 += w * x1
            finite_counted += w if finite else 0.0
            t2 += w * x2 if finite else 0.0
            t3 += w * x3
            zero += w if pc == 0.0 else 0.0
            below_clip += w if pc < clip else 0.0
            below_eps += w if pc < eps else 0.0
        flagged[c, 0] = zero
        flagged[c, 1] = below_clip
        flagged[c, 2] = below_eps
        for k in range(4):
            weight = finite_counted if k == 2 else counted
            total = t0 if k == 0 else t1 if k == 1 else t2 if k == 2 else t3
            mean = total / max(np.floor(weight), 1.0)
            m2 = 0.0
            for i in range(n):
                d = losses[k, i] - mean
                term = weights[i] * (d * d)
                m2 += term if np.isfinite(d) else 0.0
            sums[c, k, 0] = weight
            sums[c, k, 1] = total
            sums[c, k, 2] = m2


def dense_counts(positive_keys, negative_keys, low, hist, keys, positives, negatives):  # pragma: no cover - compiled
    """``count_sorted``'s result without sorting, for keys within a span small enough to count each value in
    place: ``hist`` (zeros, two counts a value from ``low``: the negatives', then the positives') receives
    the counts, read back from the highest value down; returns how many distinct keys were written."""
    for i in range(positive_keys.shape[0]):
        hist[2 * np.int64(positive_keys[i] - low) + 1] += 1
    for i in range(negative_keys.shape[0]):
        hist[2 * np.int64(negative_keys[i] - low)] += 1
    m = 0
    for j in range(hist.shape[0] // 2 - 1, -1, -1):
        p = hist[2 * j + 1]
        q = hist[2 * j]
        if p or q:
            keys[m] = low + keys.dtype.type(j)
            positives[m] = p
            negatives[m] = q
            m += 1
    return m


def lowess_resamples(x, count, events, f, grid, fitted, curves, estats):  # pragma: no cover - compiled
    """For each row r of ``count`` and ``events`` (resamples x distinct x: one resample's instances and
    positives at each ``x``, strictly increasing; every row the same number of instances, at least 2): R's
    ``lowess(x, y, f, iter = 0)`` at each x the row has (``fitted[r]``, NaN elsewhere; ``fitted`` may be empty,
    0 x 0, when only the band is wanted), as
    ``assay.inference.calibration_curve.lowess_counts`` computes it from the row's present x; that curve at
    ``grid`` (ascending, linear interpolation, NaN beyond the row's extreme x: ``curves[r]``); and its Eavg,
    E50, E90, Emax over the instances (``estats[r]``; given 6 columns, also the local fits and the sum of their
    windows' lengths in distinct x, as ``LowessFit.fits`` and ``.work``).

    Each local fit is one loop over its window of distinct x, which takes the weighted sums about the fit's x
    (a second loop takes them about their mean, as the numpy code does, where the first would lose more than
    100 ulps of the variance to cancellation); the window is found by moving clowess's left end from one
    breakpoint to the next (where its left or right end enters another distinct x). No temporaries but a few
    arrays of one row's length; the quantiles are found by selection (quickselect), not by sorting. Inputs
    validated: ``x``, ``grid`` float64, ``count``, ``events`` int64, the outputs float64, all C-contiguous.
    """
    rows = count.shape[0]
    m = count.shape[1]
    xr = np.empty(m)
    cr = np.empty(m)
    er = np.empty(m)
    at = np.empty(m, np.int64)
    starts = np.empty(m + 1, np.int64)
    places = np.empty(m, np.int64)
    values = np.empty(m)
    fr = np.empty(m)
    gaps = np.empty(m)
    scratch_v = np.empty(m)
    scratch_c = np.empty(m)
    for r in range(rows):
        k = 0
        n = np.int64(0)
        for j in range(m):  # the x present, branch-free: each written, kept if present (k <= j)
            c = count[r, j]
            xr[k] = x[j]
            cr[k] = c
            er[k] = events[r, j]
            at[k] = j
            starts[k] = n
            n += c
            k += np.int64(c > 0)
        starts[k] = n
        fits = 1
        work = k
        if k == 1 or n < 2:
            for j in range(k):
                fr[j] = er[j] / cr[j]
        else:
            work = 0
            span = xr[k - 1] - xr[0]
            delta = 0.01 * span
            ns = max(np.int64(2), min(n, np.int64(f * n + 1e-7)))
            # where clowess fits: x[0], then max(the next x, the farthest x within delta)
            fits = 1
            places[0] = 0
            g = 0
            while g < k - 1:
                cut = xr[g] + delta
                q = g + 1
                while q + 1 < k and xr[q + 1] <= cut:
                    q += 1
                g = q
                places[fits] = g
                fits += 1
            left = np.int64(0)
            gl = 0  # the distinct x of instance left
            gb = 0  # ... of instance left + ns (the first beyond the window)
            gr = 0  # ... of instance left + ns - 1 (the window's last)
            for i in range(fits):
                xs = xr[places[i]]
                while True:  # clowess moves its window right while x[i] - x[left] > x[right + 1] - x[i]
                    if left + ns > n - 1:
                        break
                    while starts[gl + 1] <= left:
                        gl += 1
                    while starts[gb + 1] <= left + ns:
                        gb += 1
                    if not (xs - xr[gl] > xr[gb] - xs):
                        break
                    left = min(starts[gl + 1], starts[gb + 1] - ns, n - ns)
                while starts[gl + 1] <= left:
                    gl += 1
                while starts[gr + 1] <= left + ns - 1:  # and every instance tied with the rightmost
                    gr += 1
                work += gr - gl + 1
                h = max(xs - xr[gl], xr[gr] - xs)
                near = 0.001 * h
                far = 0.999 * h
                inverse = 1.0 / h if h > 0.0 else 0.0
                # the window's weighted sums about xs, of the instances and of the events: sum(w), sum(w d),
                # sum(w d^2), sum(w e), sum(w e d), the distinct x in a row (views: no index can be negative,
                # so that the loop is vectorised). Instances tied with the leftmost but left of the window need
                # no cutting out: the leftmost x is then at the full radius (weight 0), or the window is wholly
                # in one tie, whose mean it gives whatever the share (the numpy code's ``cut``)
                xw = xr[gl:gr + 1]
                cw = cr[gl:gr + 1]
                ew = er[gl:gr + 1]
                a = 0.0
                s1 = 0.0
                s2 = 0.0
                e0 = 0.0
                e1 = 0.0
                for j in range(xw.shape[0]):
                    d = xw[j] - xs
                    rad = abs(d)
                    t = rad * inverse
                    u = 1.0 - t * t * t
                    w = u * u * u
                    w = 1.0 if rad <= near else w
                    w = 0.0 if rad > far else w
                    cww = cw[j] * w
                    eww = ew[j] * w
                    a += cww
                    s1 += cww * d
                    s2 += cww * d * d
                    e0 += eww
                    e1 += eww * d
                mean = s1 / a
                c2 = s2 / a - mean * mean
                e1 -= mean * e0
                if not c2 > 0.01 * (s2 / a):
                    # the sums about xs lose more than 100 ulps to cancellation: again, about the mean
                    c2 = 0.0
                    e1 = 0.0
                    for j in range(xw.shape[0]):
                        d = xw[j] - xs
                        rad = abs(d)
                        t = rad * inverse
                        u = 1.0 - t * t * t
                        w = u * u * u
                        w = 1.0 if rad <= near else w
                        w = 0.0 if rad > far else w
                        d -= mean
                        c2 += cw[j] * w * d * d
                        e1 += ew[j] * w * d
                    c2 /= a
                slope = -mean / c2 if h > 0.0 and np.sqrt(c2) > 0.001 * span else 0.0
                values[i] = (e0 + slope * e1) / a
            # clowess's linear interpolation between the fits
            for i in range(fits - 1):
                g0 = places[i]
                g1 = places[i + 1]
                fr[g0] = values[i]
                step = (values[i + 1] - values[i]) / (xr[g1] - xr[g0])
                for j in range(g0 + 1, g1):
                    fr[j] = values[i] + step * (xr[j] - xr[g0])
            fr[places[fits - 1]] = values[fits - 1]
        # the curve's row, at the grid, and the E-statistics over the instances
        if fitted.shape[0]:
            for j in range(m):
                fitted[r, j] = np.nan
            for j in range(k):
                fitted[r, at[j]] = fr[j]
        q = 0
        for i in range(grid.shape[0]):
            p = grid[i]
            if p < xr[0] or p > xr[k - 1]:
                curves[r, i] = np.nan
                continue
            while q + 1 < k and xr[q + 1] <= p:
                q += 1
            if q == k - 1 or xr[q] == p:
                curves[r, i] = fr[q]
            else:
                curves[r, i] = fr[q] + (fr[q + 1] - fr[q]) / (xr[q + 1] - xr[q]) * (p - xr[q])
        total = 0.0
        largest = 0.0
        for j in range(k):
            gaps[j] = abs(xr[j] - fr[j])
            total += cr[j] * gaps[j]
            largest = max(largest, gaps[j])
        estats[r, 0] = total / n
        if estats.shape[1] >= 6:
            estats[r, 4] = fits
            estats[r, 5] = work
        for j in range(k):
            scratch_v[j] = gaps[j]
            scratch_c[j] = cr[j]
        start = 0  # the median's search leaves the least values before start: the 90th percentile's starts there
        seed = np.int64(r)
        before = np.int64(0)  # their instances
        for column in range(1, 3):  # R's quantile (type 7) of the instances' gaps at 0.5 and 0.9: by selection
            virtual = (n - 1) * (0.5 if column == 1 else 0.9)
            below = np.int64(np.floor(virtual))
            gamma = virtual - below
            lo = start
            hi = k
            rank = below - before  # among the instances of scratch[lo:hi]
            above = np.inf  # the least value right of hi
            rounds = 0
            while hi - lo > 16 and rounds < 64:
                rounds += 1
                # the median of three at pseudo-random places (C's rand(), below 2^31): the gaps follow the x,
                # and three fixed places made a pivot so bad that 64 rounds did not find the rank at 20,000 x
                seed = (seed * 1103515245 + 12345) % 2147483648
                v0 = scratch_v[lo + seed % (hi - lo)]
                seed = (seed * 1103515245 + 12345) % 2147483648
                v1 = scratch_v[lo + seed % (hi - lo)]
                seed = (seed * 1103515245 + 12345) % 2147483648
                v2 = scratch_v[lo + seed % (hi - lo)]
                pivot = max(min(v0, v1), min(max(v0, v1), v2))
                lt = lo
                i = lo
                gt = hi
                less = 0.0
                equal = 0.0
                while i < gt:  # three ways: below the pivot, equal, above
                    v = scratch_v[i]
                    c = scratch_c[i]
                    if v < pivot:
                        scratch_v[i] = scratch_v[lt]
                        scratch_c[i] = scratch_c[lt]
                        scratch_v[lt] = v
                        scratch_c[lt] = c
                        less += c
                        lt += 1
                        i += 1
                    elif v > pivot:
                        gt -= 1
                        scratch_v[i] = scratch_v[gt]
                        scratch_c[i] = scratch_c[gt]
                        scratch_v[gt] = v
                        scratch_c[gt] = c
                    else:
                        equal += c
                        i += 1
                if rank < less:
                    hi = lt
                    above = pivot
                elif rank < less + equal:
                    for j in range(gt, hi):
                        above = min(above, scratch_v[j])
                    lo = lt
                    hi = gt
                    rank -= np.int64(less)
                    break
                else:
                    lo = gt
                    rank -= np.int64(less + equal)
            start = lo
            before = below - rank
            # the rest in order (few, or an input that selection handles badly), then counted up to the rank
            order = np.argsort(scratch_v[lo:hi], kind="mergesort")
            seen = 0.0
            low_value = np.inf
            high_value = above
            for o in range(order.shape[0]):
                v = scratch_v[lo + order[o]]
                seen += scratch_c[lo + order[o]]
                if low_value == np.inf and rank < seen:
                    low_value = v
                if rank + 1 < seen:
                    high_value = v
                    break
            if gamma:
                estats[r, column] = low_value + (high_value - low_value) * gamma
            else:
                estats[r, column] = low_value
        estats[r, 3] = largest


def count_draws(of_instance, drawn, counts):  # pragma: no cover - compiled
    """``counts[r, of_instance[i]] += 1`` for each instance ``i`` drawn in row r (``drawn``: rows x draws, each
    within ``of_instance``; ``counts`` zeros, rows x distinct x): the bootstrap's redrawn instances counted at
    their x in one pass (numpy: a gather, an offset and a bincount)."""
    for r in range(drawn.shape[0]):
        for i in range(drawn.shape[1]):
            counts[r, of_instance[drawn[r, i]]] += 1
