"""Calibration plot points and the Hosmer-Lemeshow goodness-of-fit test."""

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.utils import assert_all_finite, check_consistent_length
from sklearn.utils.validation import column_or_1d

from ..utils._validation import _check_integer
from ._common import TestResult, _check_binary_target, _warn_undefined

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
        Number of non-empty groups minus 2.
    n_groups : int
        Number of non-empty groups.
    """

    statistic: float
    pvalue: float
    df: int
    n_groups: int


def _group_sums(y_true, y_prob, n_groups, strategy, pos_label):
    """Per-group sizes, summed probabilities and summed outcomes."""
    if strategy not in _STRATEGIES:
        raise ValueError(f"strategy must be one of {_STRATEGIES}, got {strategy!r}.")
    positive = _check_binary_target(y_true, pos_label)
    y_prob = column_or_1d(np.asarray(y_prob), dtype=np.float64, warn=False)
    assert_all_finite(y_prob, input_name="y_prob")
    check_consistent_length(positive, y_prob)
    if y_prob.size == 0:
        raise ValueError("y_true is empty; at least one row is needed.")
    if y_prob.min() < 0 or y_prob.max() > 1:
        raise ValueError(
            "y_prob must hold probabilities in [0, 1], got values from "
            f"{y_prob.min():g} to {y_prob.max():g}; pass predict_proba(X)[:, 1], "
            "not decision_function(X)."
        )
    n_rows = y_prob.shape[0]
    if strategy == "equal-count":
        if n_groups > n_rows:
            raise ValueError(
                f"n_groups={n_groups} is larger than the number of rows "
                f"({n_rows}); use fewer groups."
            )
        # Stable sort, then group j starts at rank floor(j * n / g): 10 rows
        # in 3 groups give sizes 3, 3, 4, as in the chapter's Table 7.2.
        order = np.argsort(y_prob, kind="stable")
        group = np.empty(n_rows, dtype=np.intp)
        group[order] = ((np.arange(n_rows) + 1) * n_groups - 1) // n_rows
    else:
        # Equal-width bins on [0, 1], closed on the right except the first,
        # exactly as in sklearn.calibration.calibration_curve.
        edges = np.linspace(0.0, 1.0, n_groups + 1)
        group = np.searchsorted(edges[1:-1], y_prob)
    size = np.bincount(group, minlength=n_groups)
    expected = np.bincount(group, weights=y_prob, minlength=n_groups)
    observed = np.bincount(group, weights=positive, minlength=n_groups)
    keep = size > 0
    return size[keep], expected[keep], observed[keep]


def calibration_points(y_true, y_prob, *, n_groups=10, strategy="equal-count", pos_label=None):
    """Points of a calibration plot: mean outcome vs mean predicted probability.

    The rows are sorted by ``y_prob`` and cut into ``n_groups`` groups; each
    group gives one point, the average outcome against the average
    predicted probability, as in Table 7.2 of the evaluation chapter. A well
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
        (Table 7.2; Hosmer and Lemeshow's "deciles of risk"). Tied
        probabilities may fall in neighbouring groups, in input order.
        ``"uniform"``: equal-width bins on [0, 1], as in
        :func:`sklearn.calibration.calibration_curve`; empty bins are dropped.
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
    Table 7.2 of the evaluation chapter:

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
    size, expected, observed = _group_sums(y_true, y_prob, n_groups, strategy, pos_label)
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


def hosmer_lemeshow_test(y_true, y_prob, *, n_groups=10, strategy="equal-count", pos_label=None):
    """Hosmer-Lemeshow goodness-of-fit test of predicted probabilities.

    Compares, group by group, the observed number of positives ``O_g`` with
    the expected number ``E_g`` (the sum of the predicted probabilities) in
    the groups of :func:`calibration_points`:
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
    result.n_groups)``. The evaluation chapter's caveats apply: groups should
    hold more than 5 rows, and probabilities close to 0 or 1 call for
    caution. A group whose probabilities are all 0 or all 1 makes the
    statistic undefined: it is NaN, with an
    :class:`~sklearn_precision_stats.exceptions.UndefinedStatisticWarning`.

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
    size, expected, observed = _group_sums(y_true, y_prob, n_groups, strategy, pos_label)
    used = int(size.shape[0])
    df = used - 2
    variance = expected * (1.0 - expected / size)
    if df < 1:
        _warn_undefined(
            "The Hosmer-Lemeshow test",
            f"only {used} non-empty groups, so it has no degrees of freedom",
        )
        return HosmerLemeshowResult(math.nan, math.nan, df, used)
    if np.any(variance <= 0):
        _warn_undefined(
            "The Hosmer-Lemeshow test",
            "a group's predicted probabilities are all 0 or all 1",
        )
        return HosmerLemeshowResult(math.nan, math.nan, df, used)
    statistic = float(np.sum((observed - expected) ** 2 / variance))
    return HosmerLemeshowResult(statistic, float(stats.chi2.sf(statistic, df)), df, used)
