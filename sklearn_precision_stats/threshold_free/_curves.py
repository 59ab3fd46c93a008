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

import numpy as np

__all__ = []


class SortedCurve:
    """One classifier's scores of one class, sorted once.

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
    pos_upto, neg_upto : ndarray of intp, shape (n_thresholds,)
        Positive and negative entries with a score at least each distinct
        score, highest score first.
    thresholds : ndarray of float64, shape (n_thresholds,)
        The distinct scores, decreasing.
    """

    def __init__(self, scores, positive, unit):
        # scikit-learn sorts with a stable descending argsort; the order
        # within a tie group does not change any count, so any order works.
        order = np.argsort(-scores, kind="stable")
        sorted_scores = scores[order]
        sorted_pos = positive[order]
        ends = np.flatnonzero(sorted_scores[1:] != sorted_scores[:-1])
        ends = np.append(ends, scores.shape[0] - 1)
        pos_cum = np.cumsum(sorted_pos, dtype=np.intp)
        self.pos_upto = pos_cum[ends]
        self.neg_upto = ends + 1 - self.pos_upto
        self.thresholds = sorted_scores[ends]
        sorted_unit = unit[order].astype(np.int32, copy=False)
        self.unit_pos = sorted_unit[sorted_pos]
        self.unit_neg = sorted_unit[~sorted_pos]

    @property
    def n_thresholds(self):
        return self.thresholds.shape[0]

    def counts(self, weights):
        """True and false positives at every threshold, per replicate.

        Parameters
        ----------
        weights : ndarray of int, shape (n_replicates, n_units)

        Returns
        -------
        tp, fp : ndarray of float64, shape (n_replicates, n_thresholds)
        """
        return (
            _cumulative_at(weights, self.unit_pos, self.pos_upto),
            _cumulative_at(weights, self.unit_neg, self.neg_upto),
        )


def _cumulative_at(weights, units, upto):
    """Sums of ``weights[:, units[:k]]`` for every ``k`` in `upto`."""
    n_rep = weights.shape[0]
    if units.shape[0] == 0:
        return np.zeros((n_rep, upto.shape[0]))
    # The caller's weight type holds every replicate's total weight, so the
    # integer sums are exact and done in place.
    cum = np.take(weights, units, axis=1)
    np.cumsum(cum, axis=1, out=cum)
    out = np.take(cum, np.maximum(upto - 1, 0), axis=1).astype(np.float64)
    out[:, upto == 0] = 0.0
    return out


# The measures, from cumulative counts of shape (n_replicates, n_thresholds).
# Each returns the values and a boolean mask of undefined replicates.


def _precision(tp, fp):
    total = tp + fp
    precision = np.zeros_like(tp)
    np.divide(tp, total, out=precision, where=total != 0)
    return precision


def average_precision(tp, fp):
    """scikit-learn's ``average_precision_score``: sum of precision times recall steps."""
    n_pos = tp[:, -1]
    undefined = n_pos == 0
    steps = np.diff(tp, axis=1, prepend=0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        recall_steps = steps / n_pos[:, None]
    values = np.sum(recall_steps * _precision(tp, fp), axis=1)
    values = np.maximum(values, 0.0)
    values[undefined] = np.nan
    return values, undefined


def precision_at_recall(tp, fp, recall):
    """Largest precision among thresholds whose recall is at least `recall`."""
    n_pos = tp[:, -1]
    undefined = n_pos == 0
    with np.errstate(invalid="ignore", divide="ignore"):
        reached = tp / n_pos[:, None] >= recall
    values = np.max(np.where(reached, _precision(tp, fp), -np.inf), axis=1)
    values[undefined | ~np.isfinite(values)] = np.nan
    return values, undefined


def recall_at_precision(tp, fp, precision):
    """Largest recall among the points of the curve whose precision is at least `precision`.

    The curve ends in scikit-learn's point (recall 0, precision 1), so the
    value is 0 when no threshold reaches the precision.
    """
    n_pos = tp[:, -1]
    undefined = n_pos == 0
    with np.errstate(invalid="ignore", divide="ignore"):
        recall = tp / n_pos[:, None]
    values = np.max(np.where(_precision(tp, fp) >= precision, recall, 0.0), axis=1)
    values[undefined] = np.nan
    return values, undefined


def roc_auc(tp, fp):
    """scikit-learn's ``roc_auc_score``: the trapezoidal area under the ROC curve."""
    n_pos = tp[:, -1]
    n_neg = fp[:, -1]
    undefined = (n_pos == 0) | (n_neg == 0)
    # Trapezoids between consecutive thresholds, from the point (0, 0);
    # a tie of positives and negatives counts 1/2, as the Mann-Whitney U.
    d_fp = np.diff(fp, axis=1, prepend=0.0)
    tp_prev = tp - np.diff(tp, axis=1, prepend=0.0)
    area = np.sum(d_fp * (tp + tp_prev), axis=1) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        values = area / (n_pos * n_neg)
    values[undefined] = np.nan
    return values, undefined
