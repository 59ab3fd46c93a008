"""Precision-recall and ROC curves under integer resampling weights, from one sort.

A curve is one classifier's scores of one class (one-vs-rest), sorted once
in decreasing order with ties grouped as :func:`sklearn.metrics.precision_recall_curve`
groups them: one threshold per distinct score. Every entry of the curve
belongs to a resampling unit (a record, or a cluster of rows). Under unit
weights ``w`` (how often each unit is drawn), the true and false positives
above each threshold are cumulative sums of the weights of the positive and
negative entries in the sorted order, read at the ends of the tie groups.
So a replicate costs a gather and a cumulative sum per curve, with no sort,
and a block of replicates is done at once as a 2-d array.

With all weights 1 the counts are scikit-learn's; with the weights of a
replicate they are scikit-learn's with ``sample_weight`` equal to those
weights: entries of weight 0 only repeat a point of the curve, which
changes none of the measures.
"""

import sys

import numpy as np

__all__ = []


class SortedCurve:
    """One classifier's scores of one class, sorted once.

    Only the thresholds whose tie group holds a positive entry are kept:
    every measure here is attained there. Between two of them the true
    positives do not change while the false positives grow, so the recall
    is the same and the precision lower; the area under the ROC curve only
    grows where the true positives do.

    Parameters
    ----------
    scores : ndarray of float64, shape (n_entries,)
    positive : ndarray of bool, shape (n_entries,)
    unit : ndarray of int, shape (n_entries,)
        Resampling unit of each entry (its record or cluster), in
        ``0 .. n_units - 1``.

    Attributes
    ----------
    unit_pos, unit_neg : ndarray of int32
        Units of the positive and of the negative entries, in decreasing
        order of score (stable, as scikit-learn sorts).
    pos_upto, neg_upto, neg_before : ndarray of intp, shape (n_kept,)
        At each kept threshold: the positive and negative entries scored at
        least that high, and the negative entries scored strictly higher.
    thresholds : ndarray of float64, shape (n_kept,)
        The kept distinct scores, decreasing.
    """

    def __init__(self, scores, positive, unit):
        # scikit-learn sorts with a stable descending argsort; the order
        # within a tie group changes no count, so any order works.
        order = np.argsort(-scores, kind="stable")
        sorted_scores = scores[order]
        sorted_pos = positive[order]
        ends = np.flatnonzero(sorted_scores[1:] != sorted_scores[:-1])
        ends = np.append(ends, scores.shape[0] - 1)
        pos_cum = np.cumsum(sorted_pos, dtype=np.intp)
        pos_upto = pos_cum[ends]
        neg_upto = ends + 1 - pos_upto
        kept = np.diff(pos_upto, prepend=0) > 0
        self.pos_upto = pos_upto[kept]
        self.neg_upto = neg_upto[kept]
        self.neg_before = np.concatenate(([0], neg_upto[:-1]))[kept]
        self.thresholds = sorted_scores[ends[kept]]
        sorted_unit = unit[order].astype(np.int32, copy=False)
        self.unit_pos = sorted_unit[sorted_pos]
        self.unit_neg = sorted_unit[~sorted_pos]
        self.pos_start = _contiguous_start(self.unit_pos)
        self.neg_start = _contiguous_start(self.unit_neg)

    @property
    def size(self):
        """Entries of the curve (the longest array a replicate needs)."""
        return self.unit_pos.shape[0] + self.unit_neg.shape[0]

    def counts(self, weights, workspace=None, packed=False):
        """Weighted counts at the kept thresholds, per replicate.

        Parameters
        ----------
        weights : ndarray of int, shape (n_replicates, n_units)
        workspace : dict, default=None
            Buffers reused between calls (fresh large arrays cost page
            faults at every replicate).
        packed : bool, default=False
            The weights are uint8 and at most ``PACKED_MAX_WEIGHT``: they
            are then summed 8 at a time.

        Returns
        -------
        Counts
        """
        workspace = {} if workspace is None else workspace
        (tp,), n_pos = _cumulative_at(
            weights, self.unit_pos, self.pos_start, (self.pos_upto,), workspace, packed
        )
        (fp, fp_before), n_neg = _cumulative_at(
            weights,
            self.unit_neg,
            self.neg_start,
            (self.neg_upto, self.neg_before),
            workspace,
            packed,
        )
        return Counts(tp, fp, fp_before, n_pos, n_neg)


class Counts:
    """Weighted counts of one curve at its kept thresholds.

    Attributes
    ----------
    tp, fp, fp_before : ndarray of float64, shape (n_replicates, n_kept)
        True and false positives at least as high as each kept threshold,
        and false positives strictly higher.
    n_pos, n_neg : ndarray of float64, shape (n_replicates,)
        Weighted positives and negatives.
    """

    def __init__(self, tp, fp, fp_before, n_pos, n_neg):
        self.tp, self.fp, self.fp_before = tp, fp, fp_before
        self.n_pos, self.n_neg = n_pos, n_neg


def _contiguous_start(units):
    """The first unit when `units` is a run ``start, start + 1, ...``, else None."""
    n = units.shape[0]
    # The cheap test first; the full one only for a likely run.
    if n and units[-1] - units[0] == n - 1 and np.array_equal(units, units[0] + np.arange(n)):
        return int(units[0])
    return None


def _buffer(workspace, shape, dtype):
    # Fresh large arrays cost page faults at every replicate: reuse them.
    key = (shape, np.dtype(dtype).str)
    buffer = workspace.get(key)
    if buffer is None:
        buffer = workspace.setdefault(key, np.empty(shape, dtype=dtype))
    return buffer


# Sums of the 8 bytes of a word land in its top byte when multiplied by
# this (SWAR), as long as the sum stays below 256.
_BYTE_ONES = np.uint64(0x0101010101010101)
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(8)], dtype=np.uint64)
# Weights up to 31 keep every sum of 8 below 256.
PACKED_MAX_WEIGHT = 31
_LITTLE_ENDIAN = sys.byteorder == "little"


def _cumulative_at(weights, units, start, positions, workspace, packed=False):
    """Sums of ``weights[:, units[:k]]`` for every ``k`` of each of `positions`.

    `start`: the first unit when `units` is a contiguous run (the weights
    are then read in place, with no gather). `packed`: the weights are
    uint8 and at most ``PACKED_MAX_WEIGHT``, so that they can be summed 8 at
    a time.

    Returns
    -------
    sums : tuple of ndarray of float64, shape (n_replicates, len(position))
    total : ndarray of float64, shape (n_replicates,)
    """
    n_rep, n = weights.shape[0], units.shape[0]
    if n == 0:
        zeros = np.zeros((n_rep, positions[0].shape[0]))
        return tuple(zeros for _ in positions), np.zeros(n_rep)
    if packed and _LITTLE_ENDIAN and weights.dtype == np.uint8:
        return _packed_sums_at(weights, units, start, positions, workspace)
    # Integer sums are exact in a type that holds the total weight; small
    # weights (uint8) are gathered in their own type, which is faster.
    total = n * int(np.iinfo(weights.dtype).max) if weights.dtype.itemsize < 4 else 2**63
    accumulator = np.int32 if total < 2**31 or weights.dtype == np.int32 else np.int64
    cum = _buffer(workspace, (n_rep, n), accumulator)
    if start is not None:
        source = weights[:, start : start + n]
    elif weights.dtype == accumulator:
        np.take(weights, units, axis=1, out=cum, mode="clip")
        source = cum
    else:
        source = _buffer(workspace, (n_rep, n), weights.dtype)
        np.take(weights, units, axis=1, out=source, mode="clip")
    np.cumsum(source, axis=1, dtype=accumulator, out=cum)
    out = []
    for upto in positions:
        values = np.take(cum, np.maximum(upto - 1, 0), axis=1).astype(np.float64)
        # Positions are nondecreasing: the zeros are a prefix.
        values[:, : np.searchsorted(upto, 0, side="right")] = 0.0
        out.append(values)
    return tuple(out), cum[:, -1].astype(np.float64)


def _packed_sums_at(weights, units, start, positions, workspace):
    """`_cumulative_at` for small one-byte weights, 8 weights a word.

    The cumulative sum runs over the words' sums (an eighth of the
    entries); the sum up to a position adds the bytes of its word below it.
    """
    n_rep, n = weights.shape[0], units.shape[0]
    # One spare word: position n reads a word of zeros when n % 8 == 0.
    n_words = n // 8 + 1
    packed = _buffer(workspace, (n_rep, 8 * n_words), np.uint8)
    if start is not None:
        packed[:, :n] = weights[:, start : start + n]
    else:
        np.take(weights, units, axis=1, out=packed[:, :n], mode="clip")
    packed[:, n:] = 0
    words = packed.view(np.uint64)
    word_sums = _buffer(workspace, (n_rep, n_words), np.uint64)
    np.multiply(words, _BYTE_ONES, out=word_sums)
    np.right_shift(word_sums, np.uint64(56), out=word_sums)
    # before[:, j]: the sum of the words before word j.
    before = _buffer(workspace, (n_rep, n_words + 1), np.int64)
    before[:, 0] = 0
    np.cumsum(word_sums.view(np.int64), axis=1, out=before[:, 1:])
    out = []
    for upto in positions:
        word = upto >> 3
        partial = np.take(words, word, axis=1) & _LOW_BYTES[upto & 7]
        partial *= _BYTE_ONES
        partial >>= np.uint64(56)
        sums = np.take(before, word, axis=1) + partial.view(np.int64)
        out.append(sums.astype(np.float64))
    return tuple(out), before[:, -1].astype(np.float64)


# The measures, from a curve's Counts. Each returns the values and a
# boolean mask of undefined replicates.


def average_precision(counts):
    """scikit-learn's ``average_precision_score``: sum of precision times recall steps."""
    tp, n_pos = counts.tp, counts.n_pos
    undefined = n_pos == 0
    steps = np.diff(tp, axis=1, prepend=0.0)
    steps *= tp
    # A kept threshold of weight 0 adds nothing (and is 0/0).
    total = tp + counts.fp
    np.divide(steps, total, out=steps, where=total != 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.sum(steps, axis=1) / n_pos
    values[undefined] = np.nan
    return values, undefined


def _precision(counts):
    # Every kept threshold has a positive, so tp + fp > 0 unless its
    # weight is 0; such a point repeats the previous one.
    total = counts.tp + counts.fp
    precision = np.zeros_like(total)
    np.divide(counts.tp, total, out=precision, where=total != 0)
    return precision


def _recall(counts):
    with np.errstate(invalid="ignore", divide="ignore"):
        return counts.tp / counts.n_pos[:, None]


def precision_at_recall(counts, recall):
    """Largest precision among thresholds whose recall is at least `recall`."""
    undefined = counts.n_pos == 0
    reached = _recall(counts) >= recall
    values = np.max(np.where(reached, _precision(counts), -np.inf), axis=1, initial=-np.inf)
    values[undefined | ~np.isfinite(values)] = np.nan
    return values, undefined


def recall_at_precision(counts, precision):
    """Largest recall among the points of the curve whose precision is at least `precision`.

    The curve ends in scikit-learn's point (recall 0, precision 1), so the
    value is 0 when no threshold reaches the precision.
    """
    undefined = counts.n_pos == 0
    reached = _precision(counts) >= precision
    values = np.max(np.where(reached, _recall(counts), 0.0), axis=1, initial=0.0)
    values[undefined] = np.nan
    return values, undefined


def roc_auc(counts):
    """scikit-learn's ``roc_auc_score``: the trapezoidal area under the ROC curve."""
    undefined = (counts.n_pos == 0) | (counts.n_neg == 0)
    # A positive scores above the negatives of lower thresholds and ties
    # the negatives of its own threshold, which count 1/2 (trapezoids).
    below = counts.n_neg[:, None] - (counts.fp + counts.fp_before) / 2.0
    steps = np.diff(counts.tp, axis=1, prepend=0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.sum(steps * below, axis=1) / (counts.n_pos * counts.n_neg)
    values[undefined] = np.nan
    return values, undefined


def interpolated_precision(counts, recall_grid):
    """Largest precision at a recall at least r, for r on the grid (the PR envelope)."""
    precision = _precision(counts)
    recall = _recall(counts)
    # Running maxima from the lowest threshold back: the envelope.
    envelope = np.maximum.accumulate(precision[:, ::-1], axis=1)[:, ::-1]
    n_rep, n_kept = precision.shape
    out = np.full((n_rep, recall_grid.shape[0]), np.nan)
    if n_kept == 0:
        return out
    # first[r, j]: thresholds whose recall is below grid point j. Each
    # threshold counts for the grid points above its recall, found in the
    # short grid; one bincount over all replicates gives the counts.
    n_grid = recall_grid.shape[0]
    above = np.searchsorted(recall_grid, recall, side="right")
    above += (n_grid + 1) * np.arange(n_rep)[:, None]
    counts_below = np.bincount(above.ravel(), minlength=n_rep * (n_grid + 1))
    first = np.cumsum(counts_below.reshape(n_rep, n_grid + 1)[:, :n_grid], axis=1)
    inside = (first < n_kept) & (counts.n_pos > 0)[:, None]
    rows = np.broadcast_to(np.arange(n_rep)[:, None], first.shape)
    out[inside] = envelope[rows[inside], first[inside]]
    # scikit-learn's curve starts at (recall 0, precision 1).
    out[np.ix_(counts.n_pos > 0, recall_grid <= 0)] = 1.0
    return out
