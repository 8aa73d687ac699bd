"""The numba kernels behind ``assay.summaries.kernels`` (imported only through it, lazily: it imports numba).

Each walks the ascending keys of one part once, from the highest score down;
counts are int64 and areas are accumulated as exact integers where they can be
(twice the Mann-Whitney U), so the results equal the numpy code's.
"""

from __future__ import annotations

from types import SimpleNamespace

import numba
import numpy as np

__all__ = ["KERNELS", "build"]

KERNELS = ("make_keys", "auc_twice_u", "runs", "run_counts", "keep_turning", "average_precision", "merge_counts",
           "split_keys", "order_keys", "scatter", "count_sorted", "score_losses",
           "dense_counts")


def build(*, cache: bool) -> SimpleNamespace:
    """The kernels compiled by numba, with numba's on-disk cache or without it (compiled in memory)."""
    options = {"cache": cache, "nogil": True, "boundscheck": False}
    return SimpleNamespace(**{name: numba.njit(**options)(globals()[name]) for name in KERNELS})


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
