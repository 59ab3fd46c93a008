"""DeLong's test for two correlated AUCs and Hanley-McNeil's standard error."""

import math
from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np
from scipy import stats

from .._typing import ArrayLike
from ..utils._validation import _check_aligned_indexes
from ._common import (
    IntervalResult,
    _check_alternative,
    _check_binary_target,
    _check_not_hard_labels,
    _pvalue,
    _score_array,
    _warn_undefined,
)

__all__ = ["DeLongResult", "delong_test", "hanley_mcneil_se"]


@dataclass(frozen=True, repr=False)
class DeLongResult(IntervalResult):
    """Result of :func:`delong_test`.

    Attributes
    ----------
    statistic : float
        ``z = (auc_a - auc_b) / standard_error``.
    pvalue : float
        p-value from the standard normal distribution.
    auc_a, auc_b : float
        Empirical (Mann-Whitney) AUCs, ties counted as 1/2.
    var_a, var_b, cov_ab : float
        DeLong's variances of the two AUCs and their covariance.
    standard_error : float
        ``sqrt(var_a + var_b - 2 * cov_ab)``; ``confidence_interval()`` is
        the normal interval for ``auc_a - auc_b`` with it.
    alternative : str
        The alternative hypothesis.
    """

    statistic: float
    pvalue: float
    auc_a: float
    auc_b: float
    var_a: float
    var_b: float
    cov_ab: float
    standard_error: float
    alternative: str

    @property
    def difference(self) -> float:
        """``auc_a - auc_b``."""
        return self.auc_a - self.auc_b

    @property
    def covariance(self) -> np.ndarray:
        """DeLong covariance matrix of ``(auc_a, auc_b)``, shape (2, 2)."""
        return np.array([[self.var_a, self.cov_ab], [self.cov_ab, self.var_b]])

    def _interval_inputs(self):
        # Undefined (NaN) whenever the test is, e.g. identical scores.
        se = self.standard_error if math.isfinite(self.statistic) else math.nan
        return self.difference, se, self.alternative, stats.norm


def _check_scores(scores, name, n_rows, classes):
    values = scores.to_numpy() if hasattr(scores, "to_numpy") else scores
    if isinstance(values, np.ndarray) and values.dtype == np.float64 and values.ndim == 1:
        # The scores are only read here, so float64 input is used as it is:
        # the defensive copy of _score_array would cost 8 bytes a row.
        if not np.isfinite(values).all():
            _score_array(values, name)  # raises, naming the first bad row
        scores = values
    else:
        scores = _score_array(scores, name)
    if scores.shape[0] != n_rows:
        raise ValueError(
            f"y_true and {name} have inconsistent numbers of samples ({n_rows} "
            f"and {scores.shape[0]}); pass one score per row of y_true, in the same order."
        )
    _check_not_hard_labels(
        scores, name, classes, "scores such as predict_proba(X)[:, 1] or decision_function(X)"
    )
    return scores


def _centred_placements(scores, positive, n_pos, n_neg, scaled=True):
    """One classifier's AUC and its centred, scaled placement values.

    Sun and Xu (2014) write DeLong's structural components with midranks:
    ``V10 = (T_z - T_x) / n`` on the positives and
    ``V01 = 1 - (T_z - T_y) / m`` on the negatives, where ``T_z``, ``T_x``
    and ``T_y`` are midranks among all rows, the positives and the
    negatives. ``T_z - T_x`` is the number of negatives scored below a
    positive plus half the tied ones, so all three are read off one sort.

    Parameters
    ----------
    scores : ndarray of float64, shape (n_rows,)
    positive : ndarray of bool, shape (n_rows,)
    n_pos, n_neg : int
        Numbers of positive (m) and negative (n) rows, both at least 1.
    scaled : bool, default=True
        False: the weights are the centred placement values themselves,
        ``V10 - auc`` and ``V01 - auc``, for sums over clusters of rows.

    Returns
    -------
    auc : float
    weights : ndarray of float64, shape (n_rows,)
        In row order: ``(V10 - auc) / sqrt(m (m - 1))`` on the positives and
        ``(V01 - auc) / sqrt(n (n - 1))`` on the negatives, so that the dot
        product of two classifiers' weights is DeLong's covariance of their
        AUCs. NaN when ``m < 2`` or ``n < 2``.
    """
    n_rows = scores.shape[0]
    # Positions and counts fit in int32 below 2**31 rows: half the memory.
    index = np.int32 if n_rows < 2**31 - 1 else np.intp
    order = np.argsort(scores).astype(index, copy=False)
    is_pos = positive[order]
    # starts[k]: sorted position k opens a run of tied scores; ends[k]: it
    # closes one. One array holds both, shifted by one.
    bounds = np.empty(n_rows + 1, dtype=bool)
    bounds[0] = bounds[n_rows] = True
    sorted_scores = scores[order]
    np.not_equal(sorted_scores[1:], sorted_scores[:-1], out=bounds[1:-1])
    del sorted_scores
    starts, ends = bounds[:-1], bounds[1:]

    # below[k]: negatives before sorted position k; below[n_rows] = n.
    below = np.zeros(n_rows + 1, dtype=index)
    np.logical_not(is_pos, out=below[1:])
    np.cumsum(below, out=below)
    # twice[k] = below[first of k's run] + below[one past its end]: twice the
    # negatives below row k plus the tied ones, each counted 1/2. A run's
    # end is carried back and its start forward by running extremes, which
    # hold because `below` never decreases.
    twice = np.full(n_rows, np.inf)
    np.copyto(twice, below[1:], where=ends)
    np.minimum.accumulate(twice[::-1], out=twice[::-1])
    np.multiply(below[:-1], starts, out=below[:-1])
    np.maximum.accumulate(below[:-1], out=below[:-1])
    twice += below[:-1]
    # Whole numbers up to 2 m n: the sum is exact below 2**53.
    auc_numerator = float(np.sum(twice, where=is_pos))
    denominator = 2.0 * n_pos * n_neg
    auc = auc_numerator / denominator

    # The positives below a negative, doubled, are (start + end) - twice
    # over its run; `below` becomes the positions, then the runs' starts.
    below[0], below[1:] = 0, 1
    np.cumsum(below, out=below)
    run_end = np.full(n_rows, n_rows, dtype=index)
    np.copyto(run_end, below[1:], where=ends)
    np.minimum.accumulate(run_end[::-1], out=run_end[::-1])
    np.multiply(below[:-1], starts, out=below[:-1])
    np.maximum.accumulate(below[:-1], out=below[:-1])
    del bounds, starts, ends
    is_neg = np.logical_not(is_pos, out=is_pos)  # in is_pos's memory
    np.subtract(twice, below[:-1], out=twice, where=is_neg)
    np.subtract(twice, run_end, out=twice, where=is_neg)
    del below, run_end

    # Centred in whole numbers, exact below 2**53, then scaled once:
    # 2 m n (V10 - auc) = m twice - 2 m n auc on the positives and
    # 2 m n (V01 - auc) = n (2 m - twice positives below) - 2 m n auc.
    if not scaled:
        pos_scale = neg_scale = 1.0 / denominator
    elif n_pos < 2 or n_neg < 2:
        pos_scale = neg_scale = math.nan
    else:
        pos_scale = 1.0 / (denominator * math.sqrt(n_pos * (n_pos - 1.0)))
        neg_scale = 1.0 / (denominator * math.sqrt(n_neg * (n_neg - 1.0)))
    np.multiply(twice, float(n_neg), out=twice, where=is_neg)
    np.add(twice, denominator - auc_numerator, out=twice, where=is_neg)
    np.multiply(twice, neg_scale, out=twice, where=is_neg)
    is_pos = np.logical_not(is_neg, out=is_neg)  # and back
    np.multiply(twice, float(n_pos), out=twice, where=is_pos)
    np.subtract(twice, auc_numerator, out=twice, where=is_pos)
    np.multiply(twice, pos_scale, out=twice, where=is_pos)
    del is_pos, is_neg

    weights = np.empty(n_rows)
    weights[order] = twice
    return auc, weights


def _dot(a, b, block=1 << 16):
    """``a @ b``, to a few units in the last place on any length."""
    # A BLAS dot keeps a few running sums over 10**7 products and can lose
    # three or four digits; NumPy's pairwise sums of short blocks, added by
    # fsum, do not.
    products = np.empty(min(block, a.size))
    partial_sums = []
    for start in range(0, a.size, block):
        chunk = np.multiply(
            a[start : start + block],
            b[start : start + block],
            out=products[: min(block, a.size - start)],
        )
        partial_sums.append(float(chunk.sum()))
    return math.fsum(partial_sums)


def _delong_components(positive, scores):
    """AUCs and DeLong covariance of several score vectors, O(n log n).

    Parameters
    ----------
    positive : ndarray of bool, shape (n_rows,)
    scores : sequence of ndarray of shape (n_rows,)
        One score vector per classifier (not stacked: a stacked copy would
        double the memory of large inputs).

    Returns
    -------
    auc : ndarray of shape (n_scores,)
    covariance : ndarray of shape (n_scores, n_scores)
    """
    n_pos = int(np.count_nonzero(positive))
    n_neg = positive.shape[0] - n_pos
    # One classifier at a time: besides its sort, each keeps only its
    # weights, 8 bytes a row.
    aucs, weights = [], []
    for values in scores:
        auc, w = _centred_placements(values, positive, n_pos, n_neg)
        aucs.append(auc)
        weights.append(w)
    covariance = np.array([[_dot(wa, wb) for wb in weights] for wa in weights])
    return np.array(aucs), covariance


def delong_test(
    y_true: ArrayLike,
    scores_a: ArrayLike,
    scores_b: ArrayLike,
    *,
    pos_label: Hashable | None = None,
    alternative: str = "two-sided",
) -> DeLongResult:
    """DeLong's test of equal AUC for two classifiers scored on the same rows.

    The two AUCs are correlated because they come from the same records;
    DeLong, DeLong and Clarke-Pearson (1988) estimate their covariance from
    the placement values, without any distributional assumption. This uses
    the O(n log n) midrank algorithm of Sun and Xu (2014), so a million rows
    take well under a second.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,)
        Binary true labels.
    scores_a, scores_b : array-like of shape (n_rows,)
        Scores of the two classifiers, higher meaning more likely positive
        (e.g. ``predict_proba(X)[:, 1]`` or ``decision_function(X)``).
    pos_label : int, float, bool or str, default=None
        The positive class. None works for labels in {0, 1} or {-1, 1}.
    alternative : {"two-sided", "less", "greater"}, default="two-sided"
        ``"greater"``: the AUC of a is larger than the AUC of b.

    Returns
    -------
    result : DeLongResult
        ``statistic`` (z), ``pvalue``, both AUCs, their covariance, the
        standard error of the difference and ``confidence_interval()``.

    Notes
    -----
    Ties between a positive and a negative score count 1/2, as in
    :func:`sklearn.metrics.roc_auc_score` and R's pROC. The components are
    averaged with ``n - 1`` denominators, as in DeLong et al. and pROC.
    Float64 scores are read in place; the test needs about 31 bytes per
    row beyond its inputs (one sort at a time), e.g. 0.3 GB for 10**7 rows.
    If there is only one positive or one negative row, or the variance of
    the difference is zero (e.g. identical rankings), the statistic,
    p-value and confidence interval are NaN, with an
    :class:`~sklearn_precision_stats.exceptions.UndefinedStatisticWarning`.
    Hard labels passed as scores (only the values of the labels, e.g.
    ``predict(X)``) are an error, as are pandas inputs whose indexes differ
    (rows are paired by position).

    A p-value computed as ``2 * (1 - normcdf(z))`` exceeds 1 for negative
    ``z``; the two-sided p-value is ``2 * (1 - normcdf(|z|))``, as here.

    References
    ----------
    DeLong, E. R., DeLong, D. M. and Clarke-Pearson, D. L. (1988). Comparing
    the areas under two or more correlated receiver operating characteristic
    curves: a nonparametric approach. Biometrics 44, 837-845.

    Sun, X. and Xu, W. (2014). Fast implementation of DeLong's algorithm for
    comparing the areas under correlated receiver operating characteristic
    curves. IEEE Signal Processing Letters 21, 1389-1393.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_precision_stats import delong_test
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, size=300)
    >>> scores_a = y + rng.normal(scale=1.0, size=300)
    >>> scores_b = y + rng.normal(scale=2.0, size=300)
    >>> res = delong_test(y, scores_a, scores_b)
    >>> bool(res.auc_a > res.auc_b), bool(res.pvalue < 0.05)
    (True, True)
    >>> ci = res.confidence_interval()
    >>> bool(ci.low < res.auc_a - res.auc_b < ci.high)
    True
    """
    _check_alternative(alternative)
    _check_aligned_indexes(y_true=y_true, scores_a=scores_a, scores_b=scores_b)
    positive, classes = _check_binary_target(y_true, pos_label, return_classes=True)
    scores_a = _check_scores(scores_a, "scores_a", positive.shape[0], classes)
    scores_b = _check_scores(scores_b, "scores_b", positive.shape[0], classes)
    if positive.all() or not positive.any():
        raise ValueError(
            "y_true holds only one class; the AUC needs both positive and negative rows."
        )
    auc, cov = _delong_components(positive, [scores_a, scores_b])
    variance = cov[0, 0] + cov[1, 1] - 2.0 * cov[0, 1]
    # Relative threshold: identical rankings leave only rounding error.
    scale = cov[0, 0] + cov[1, 1]
    if not np.isfinite(variance):
        _warn_undefined(
            "DeLong's test",
            "fewer than two positive or two negative rows, so the AUC "
            "variances cannot be estimated",
        )
        statistic = math.nan
    elif variance <= 1e-12 * scale or variance <= 0:
        _warn_undefined(
            "DeLong's test",
            "the variance of the AUC difference is zero, e.g. the two "
            "classifiers rank the rows identically",
        )
        statistic = math.nan
    else:
        statistic = float((auc[0] - auc[1]) / np.sqrt(variance))
    pvalue = math.nan if math.isnan(statistic) else _pvalue(statistic, alternative, stats.norm)
    return DeLongResult(
        statistic=statistic,
        pvalue=pvalue,
        auc_a=float(auc[0]),
        auc_b=float(auc[1]),
        var_a=float(cov[0, 0]),
        var_b=float(cov[1, 1]),
        cov_ab=float(cov[0, 1]),
        standard_error=float(np.sqrt(variance)) if variance >= 0 else math.nan,
        alternative=alternative,
    )


def hanley_mcneil_se(auc: ArrayLike, n_pos: ArrayLike, n_neg: ArrayLike) -> float | np.ndarray:
    """Hanley and McNeil's (1982) standard error of an AUC.

    Parameters
    ----------
    auc : float or array-like
        Area under the ROC curve, between 0 and 1.
    n_pos, n_neg : int or array-like
        Numbers of positive and negative rows (at least 1 each).

    Returns
    -------
    se : float or ndarray
        ``sqrt((A (1 - A) + (n_pos - 1)(Q1 - A^2) + (n_neg - 1)(Q2 - A^2))
        / (n_pos * n_neg))`` with ``Q1 = A / (2 - A)`` and
        ``Q2 = 2 A^2 / (1 + A)``; arrays broadcast.

    Notes
    -----
    ``Q1`` and ``Q2`` are the probabilities that two random positives both
    outscore a negative, and that a positive outscores two negatives; the
    approximations are exact when the scores are exponentially distributed
    and, according to Hanley and McNeil, close for other shapes. Some
    textbook statements of this standard error print an extra ``/2`` under
    the square root that is not in Hanley and McNeil (1982); this follows
    the original paper.
    For a comparison of two AUCs on the same rows use :func:`delong_test`,
    which needs no distributional assumption.

    References
    ----------
    Hanley, J. A. and McNeil, B. J. (1982). The meaning and use of the area
    under a receiver operating characteristic (ROC) curve. Radiology 143,
    29-36.

    Examples
    --------
    >>> from sklearn_precision_stats import hanley_mcneil_se
    >>> round(float(hanley_mcneil_se(0.8, 50, 50)), 5)
    0.0445
    """
    auc = np.asarray(auc, dtype=np.float64)
    n_pos = np.asarray(n_pos)
    n_neg = np.asarray(n_neg)
    bad = ~((auc >= 0) & (auc <= 1))
    if bad.any():
        raise ValueError(f"auc must lie between 0 and 1, got {auc[bad].flat[0]}.")
    for name, count in (("n_pos", n_pos), ("n_neg", n_neg)):
        if count.dtype.kind not in "iuf":
            raise ValueError(
                f"{name} must be a positive whole number of rows, got values of "
                f"dtype {count.dtype}."
            )
        # An infinite count is no number of rows (and gives a NaN standard error).
        bad = ~(np.isfinite(count) & (count >= 1) & (count == np.floor(count)))
        if bad.any():
            raise ValueError(
                f"{name} must be a positive whole number of rows, got {count[bad].flat[0]}."
            )
    q1 = auc / (2.0 - auc)
    q2 = 2.0 * auc**2 / (1.0 + auc)
    variance = (auc * (1.0 - auc) + (n_pos - 1) * (q1 - auc**2) + (n_neg - 1) * (q2 - auc**2)) / (
        n_pos * n_neg
    )
    se = np.sqrt(variance)
    return float(se) if se.ndim == 0 else se
