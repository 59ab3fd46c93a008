"""DeLong's test for two correlated AUCs and Hanley-McNeil's standard error."""

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

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
    def difference(self):
        """``auc_a - auc_b``."""
        return self.auc_a - self.auc_b

    @property
    def covariance(self):
        """DeLong covariance matrix of ``(auc_a, auc_b)``, shape (2, 2)."""
        return np.array([[self.var_a, self.cov_ab], [self.cov_ab, self.var_b]])

    def _interval_inputs(self):
        # Undefined (NaN) whenever the test is, e.g. identical scores.
        se = self.standard_error if math.isfinite(self.statistic) else math.nan
        return self.difference, se, self.alternative, stats.norm


def _check_scores(scores, name, n_rows, classes):
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


def _delong_components(positive, scores):
    """AUCs and DeLong covariance of several score vectors, O(n log n).

    Sun and Xu (2014) write DeLong's structural components with midranks:
    ``V10 = (T_z - T_x) / n`` on the positives and
    ``V01 = 1 - (T_z - T_y) / m`` on the negatives, where ``T_z``, ``T_x``
    and ``T_y`` are midranks among all rows, the positives and the
    negatives. ``T_z - T_x`` is the number of negatives scored below a
    positive plus half the tied ones, so all three midranks are read off a
    single sort of each score vector.

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
    n_scores, n_rows = len(scores), positive.shape[0]
    m = int(np.count_nonzero(positive))
    n = n_rows - m
    placements = np.empty((n_scores, n_rows))
    # One loop step per classifier; each step is vectorised over the rows.
    for r in range(n_scores):
        order = np.argsort(scores[r])
        sorted_scores = scores[r][order]
        is_pos = positive[order]
        new_tie_group = np.empty(n_rows, dtype=bool)
        new_tie_group[0] = True
        np.not_equal(sorted_scores[1:], sorted_scores[:-1], out=new_tie_group[1:])
        group = np.cumsum(new_tie_group) - 1
        pos_in = np.bincount(group, weights=is_pos)
        neg_in = np.bincount(group) - pos_in
        pos_below = np.cumsum(pos_in) - pos_in
        neg_below = np.cumsum(neg_in) - neg_in
        placements[r, order] = np.where(
            is_pos,
            (neg_below + 0.5 * neg_in)[group] / n,  # V10 = (T_z - T_x) / n
            1.0 - (pos_below + 0.5 * pos_in)[group] / m,  # V01
        )
    v10, v01 = placements[:, positive], placements[:, ~positive]
    auc = v10.mean(axis=1)
    if m < 2 or n < 2:
        covariance = np.full((n_scores, n_scores), np.nan)
    else:
        covariance = np.atleast_2d(np.cov(v10)) / m + np.atleast_2d(np.cov(v01)) / n
    return auc, covariance


def delong_test(y_true, scores_a, scores_b, *, pos_label=None, alternative="two-sided"):
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


def hanley_mcneil_se(auc, n_pos, n_neg):
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
    if np.any(~np.isfinite(auc)) or np.any((auc < 0) | (auc > 1)):
        raise ValueError(f"auc must lie between 0 and 1, got {auc!r}.")
    for name, count in (("n_pos", n_pos), ("n_neg", n_neg)):
        if count.dtype.kind not in "iuf" or np.any(count < 1) or np.any(count != np.floor(count)):
            raise ValueError(f"{name} must be a positive whole number of rows, got {count!r}.")
    q1 = auc / (2.0 - auc)
    q2 = 2.0 * auc**2 / (1.0 + auc)
    variance = (auc * (1.0 - auc) + (n_pos - 1) * (q1 - auc**2) + (n_neg - 1) * (q2 - auc**2)) / (
        n_pos * n_neg
    )
    se = np.sqrt(variance)
    return float(se) if se.ndim == 0 else se
