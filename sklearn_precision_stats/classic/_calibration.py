"""Calibration plot points and the Hosmer-Lemeshow goodness-of-fit test."""

import math
from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .._typing import ArrayLike
from ..utils._validation import _check_aligned_indexes, _check_integer
from ._common import (
    TestResult,
    _check_binary_target,
    _check_not_hard_labels,
    _score_array,
    _warn_undefined,
)

__all__ = ["HosmerLemeshowResult", "calibration_points", "hosmer_lemeshow_test"]

_STRATEGIES = ("equal-count", "uniform")


@dataclass(frozen=True, repr=False)
class HosmerLemeshowResult(TestResult):
    """Result of :func:`hosmer_lemeshow_test`.

    Attributes
    ----------
    statistic : float
        The Hosmer-Lemeshow chi-square statistic.
    pvalue : float
        ``chi2.sf(statistic, df)``.
    df : int
        Number of non-empty groups minus 2; 0 when fewer than three groups
        leave the test undefined (``statistic`` and ``pvalue`` NaN).
    n_groups : int
        Number of non-empty groups.
    """

    statistic: float
    pvalue: float
    df: int
    n_groups: int


def _uniform_bins(values, n_groups):
    """Bin of each value among ``n_groups`` equal-width bins on [0, 1].

    The same bins as ``np.searchsorted(np.linspace(0, 1, n_groups + 1)[1:-1],
    values)`` (scikit-learn's ``calibration_curve``), computed from the
    edges ``i * (1 / n_groups)`` that ``linspace`` produces without building
    them, so the work is proportional to the number of values, not of bins.
    """
    step = 1.0 / n_groups
    # floor(p * g) is off by at most one from the count of interior edges
    # below p; two correction passes each way make it exact.
    k = np.clip(np.floor(values * n_groups), 0, n_groups - 1).astype(np.int64)
    for _ in range(2):
        k = np.where((k >= 1) & (k * step >= values), k - 1, k)
        k = np.where((k + 1 <= n_groups - 1) & ((k + 1) * step < values), k + 1, k)
    return k


def _group_sums(y_true, y_prob, n_groups, strategy, pos_label):
    """Per-group sizes, summed probabilities, summed outcomes and summed 1 - p.

    Rows are grouped through their distinct probabilities, so tied rows
    always share a group and the sums do not depend on the row order.
    """
    if strategy not in _STRATEGIES:
        raise ValueError(f"strategy must be one of {_STRATEGIES}, got {strategy!r}.")
    _check_aligned_indexes(y_true=y_true, y_prob=y_prob)
    positive, classes = _check_binary_target(y_true, pos_label, return_classes=True)
    y_prob = _score_array(y_prob, "y_prob")
    n_rows = positive.shape[0]
    if y_prob.shape[0] != n_rows:
        raise ValueError(
            "y_true and y_prob have inconsistent numbers of samples "
            f"({n_rows} and {y_prob.shape[0]}); pass one probability per row of y_true."
        )
    if y_prob.min() < 0 or y_prob.max() > 1:
        raise ValueError(
            "y_prob must hold probabilities in [0, 1], got values from "
            f"{y_prob.min():g} to {y_prob.max():g}; pass predict_proba(X)[:, 1], "
            "not decision_function(X)."
        )
    _check_not_hard_labels(
        y_prob, "y_prob", classes, "the predicted probabilities, predict_proba(X)[:, 1]"
    )
    values, inverse, counts = np.unique(y_prob, return_inverse=True, return_counts=True)
    positives = np.bincount(inverse.ravel(), weights=positive, minlength=values.shape[0])
    if strategy == "equal-count":
        if n_groups > n_rows:
            raise ValueError(
                f"n_groups={n_groups} is larger than the number of rows "
                f"({n_rows}); use fewer groups."
            )
        # Group j starts at rank floor(j * n / g): 10 rows in 3 groups give
        # sizes 3, 3, 4 (Hosmer and Lemeshow's deciles of risk). A run of tied
        # probabilities goes wholly to the group of its lowest rank (the
        # cut falls on a distinct value, like R's quantile breaks).
        first_rank = np.cumsum(counts) - counts
        group = ((first_rank + 1) * n_groups - 1) // n_rows
    else:
        group = _uniform_bins(values, n_groups)
    # `group` never decreases along the sorted values: runs are the groups,
    # and the sums run over sorted values, whatever the input order.
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    size = np.add.reduceat(counts, starts)
    expected = np.add.reduceat(values * counts, starts)
    observed = np.add.reduceat(positives, starts)
    expected_negative = np.add.reduceat((1.0 - values) * counts, starts)
    return size, expected, observed, expected_negative


def calibration_points(
    y_true: ArrayLike,
    y_prob: ArrayLike,
    *,
    n_groups: int = 10,
    strategy: str = "equal-count",
    pos_label: Hashable | None = None,
) -> pd.DataFrame:
    """Points of a calibration plot: mean outcome vs mean predicted probability.

    The rows are sorted by ``y_prob`` and cut into ``n_groups`` groups; each
    group gives one point, the average outcome against the average
    predicted probability (Hosmer and Lemeshow's "deciles of risk"). A well
    calibrated classifier has its points near the diagonal.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,)
        Binary true labels.
    y_prob : array-like of shape (n_rows,)
        Predicted probabilities of the positive class.
    n_groups : int, default=10
        Number of groups.
    strategy : {"equal-count", "uniform"}, default="equal-count"
        ``"equal-count"``: groups of as equal size as possible after sorting
        (Hosmer and Lemeshow's "deciles of risk"): group ``j``
        starts at rank ``floor(j * n_rows / n_groups)``. Tied probabilities
        are never split: a run of ties that crosses a cut goes wholly to the
        group of its lowest rank, so the cuts fall on distinct values (as
        the quantile breaks of R's ``ResourceSelection::hoslem.test`` do),
        the result does not depend on the row order, and there may be fewer
        than ``n_groups`` groups. ``"uniform"``: equal-width bins on [0, 1],
        as in :func:`sklearn.calibration.calibration_curve`; empty bins are
        dropped, and the work grows with the number of rows, not of bins.
    pos_label : int, float, bool or str, default=None
        The positive class. None works for labels in {0, 1} or {-1, 1}.

    Returns
    -------
    points : pandas.DataFrame
        One row per non-empty group, with columns ``group`` (1-based),
        ``n``, ``prob_pred`` (mean predicted probability), ``prob_true``
        (fraction of positives), ``expected`` (sum of the probabilities) and
        ``observed`` (number of positives). ``prob_true`` and ``prob_pred``
        are what :func:`sklearn.calibration.calibration_curve` returns.

    See Also
    --------
    hosmer_lemeshow_test : Test of the points' distance from the diagonal.
    sklearn.calibration.CalibrationDisplay : Plot calibration curves.

    References
    ----------
    Hosmer, D. W. and Lemeshow, S. (1980). Goodness of fit tests for the
    multiple logistic regression model. Communications in Statistics -
    Theory and Methods 9, 1043-1069.

    Examples
    --------
    Ten predicted probabilities in three groups:

    >>> from sklearn_precision_stats import calibration_points
    >>> d = [0, 0, 0, 1, 0, 0, 1, 1, 1, 1]
    >>> phi = [0.04, 0.21, 0.41, 0.46, 0.51, 0.59, 0.61, 0.75, 0.80, 0.92]
    >>> points = calibration_points(d, phi, n_groups=3)
    >>> points[["n", "prob_true", "prob_pred"]].round(2)
       n  prob_true  prob_pred
    0  3       0.00       0.22
    1  3       0.33       0.52
    2  4       1.00       0.77
    """
    n_groups = _check_integer(n_groups, "n_groups", 1, "; the usual choice is n_groups=10")
    size, expected, observed, _ = _group_sums(y_true, y_prob, n_groups, strategy, pos_label)
    return pd.DataFrame(
        {
            "group": np.arange(1, size.shape[0] + 1),
            "n": size,
            "prob_pred": expected / size,
            "prob_true": observed / size,
            "expected": expected,
            "observed": observed.astype(np.int64),
        }
    )


def hosmer_lemeshow_test(
    y_true: ArrayLike,
    y_prob: ArrayLike,
    *,
    n_groups: int = 10,
    strategy: str = "equal-count",
    pos_label: Hashable | None = None,
) -> HosmerLemeshowResult:
    """Hosmer-Lemeshow goodness-of-fit test of predicted probabilities.

    Compares, group by group, the observed number of positives ``O_g`` with
    the expected number ``E_g`` (the sum of the predicted probabilities) in
    the groups of :func:`calibration_points` (tied probabilities always
    share a group):
    ``H = sum_g (O_g - E_g)**2 / (E_g * (1 - E_g / n_g))``, referred to a
    chi-square distribution with ``n_groups - 2`` degrees of freedom.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,)
        Binary true labels.
    y_prob : array-like of shape (n_rows,)
        Predicted probabilities of the positive class.
    n_groups : int, default=10
        Number of groups, at least 3.
    strategy : {"equal-count", "uniform"}, default="equal-count"
        How rows are grouped; see :func:`calibration_points`.
    pos_label : int, float, bool or str, default=None
        The positive class. None works for labels in {0, 1} or {-1, 1}.

    Returns
    -------
    result : HosmerLemeshowResult
        ``statistic``, ``pvalue``, ``df`` and the number of groups used.

    Notes
    -----
    ``H`` is Pearson's chi-square over the ``2 * n_groups`` cells (positives
    and negatives per group). The ``n_groups - 2`` degrees of freedom are
    those of a logistic regression fitted to the same rows; for a model
    assessed on independent data Hosmer and Lemeshow suggest ``n_groups``
    degrees of freedom, i.e. ``scipy.stats.chi2.sf(result.statistic,
    result.n_groups)``. The usual chi-square caveats apply: groups should
    hold more than 5 rows, and probabilities close to 0 or 1 call for
    caution. A group whose probabilities are all exactly 0 (or all exactly
    1) adds 0 when none (all) of its rows are positive, and an infinite
    amount otherwise: the statistic is then infinite and the p-value 0, as
    the model called an outcome impossible that occurred. With fewer than
    three groups (e.g. fewer than three distinct probabilities) the test
    has no degrees of freedom; it is NaN, with an
    :class:`~sklearn_precision_stats.exceptions.UndefinedStatisticWarning`.

    The probabilities must be scores, not hard labels: ``y_prob`` holding
    only the values 0 and 1 (``predict(X)`` passed by mistake) is an error.

    References
    ----------
    Hosmer, D. W. and Lemeshow, S. (1980). Goodness of fit tests for the
    multiple logistic regression model. Communications in Statistics -
    Theory and Methods 9, 1043-1069.

    Hosmer, D. W., Lemeshow, S. and Sturdivant, R. X. (2013). Applied
    Logistic Regression, 3rd ed., section 5.2.2. Wiley.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_precision_stats import hosmer_lemeshow_test
    >>> rng = np.random.default_rng(0)
    >>> prob = rng.uniform(0.05, 0.95, size=2000)
    >>> y = rng.random(2000) < prob          # calibrated by construction
    >>> res = hosmer_lemeshow_test(y.astype(int), prob)
    >>> res.df, bool(res.pvalue > 0.01)
    (8, True)
    >>> res = hosmer_lemeshow_test(y.astype(int), prob**2)   # too low
    >>> bool(res.pvalue < 1e-6)
    True
    """
    n_groups = _check_integer(n_groups, "n_groups", 3, "; the usual choice is n_groups=10")
    size, expected, observed, expected_negative = _group_sums(
        y_true, y_prob, n_groups, strategy, pos_label
    )
    used = int(size.shape[0])
    if used < 3:
        # n_groups - 2 <= 0: no degrees of freedom, so no test (df 0, not negative).
        _warn_undefined(
            "The Hosmer-Lemeshow test",
            f"only {used} group{'s' if used > 1 else ''} of distinct probabilities, "
            "so it has no degrees of freedom; use more groups or probabilities "
            "that take more values",
        )
        return HosmerLemeshowResult(math.nan, math.nan, 0, used)
    df = used - 2
    # Pearson's (O - E)^2 / E over positives and negatives of each group:
    # (O - E)^2 * n / (E (n - E)), with n - E summed as 1 - p for accuracy.
    # A group whose probabilities are all 0 (E = 0) or all 1 (n - E = 0)
    # adds 0 when its outcomes agree and an infinite amount otherwise.
    certain = (expected == 0) | (expected_negative == 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = (observed - expected) ** 2 * size / (expected * expected_negative)
    agree = np.where(expected == 0, observed == 0, observed == size)
    terms = np.where(certain, np.where(agree, 0.0, math.inf), terms)
    statistic = float(np.sum(terms))
    return HosmerLemeshowResult(statistic, float(stats.chi2.sf(statistic, df)), df, used)
