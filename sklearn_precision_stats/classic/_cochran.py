"""Cochran's Q test of equal accuracy of three or more classifiers on one test set.

Each row is a test record and each classifier gets it right or wrong;
Cochran's Q tests whether the classifiers' accuracies are equal, and its
pairwise follow-ups are McNemar's tests with Holm's adjustment. With
``groups`` (the record id of each row of stacked cross-validation
predictions), the test is the cluster-robust score test of the same
hypothesis, clustered by record.
"""

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats

from ..engine._codes import encode_groups
from ..results._base import copied_on_access
from ..utils._validation import _check_groups, _check_predictions
from ._common import TestResult, _posthoc_pairs, _warn_undefined
from ._mcnemar import _METHODS as _MCNEMAR_METHODS
from ._mcnemar import _mcnemar

__all__ = ["CochranQResult", "cochrans_q_test"]


@copied_on_access(
    accuracies="Accuracy of each classifier over all rows (a new Series on each access).",
    posthoc="The pairwise McNemar tests (a new DataFrame on each access).",
)
@dataclass(frozen=True, repr=False)
class CochranQResult(TestResult):
    """Result of :func:`cochrans_q_test`.

    Attributes
    ----------
    statistic : float
        Cochran's Q, or with ``groups`` the clustered score statistic.
    pvalue : float
        p-value from the chi-square distribution with ``df`` degrees of
        freedom.
    df : int
        ``n_classifiers - 1``.
    method : str
        ``"cochran"`` or ``"clustered score"``.
    n_rows : int
        Number of rows.
    n_groups : int or None
        Number of records (clusters) when ``groups`` was given.
    accuracies : pandas.Series
        Accuracy of each classifier over all rows (a new Series on each
        access: editing it leaves the result unchanged).
    posthoc : pandas.DataFrame
        One row per pair of classifiers: ``classifier_a, classifier_b,
        accuracy_a, accuracy_b, n_a_only, n_b_only, statistic, pvalue,
        pvalue_holm`` (McNemar's test of the pair and its Holm-adjusted
        p-value); a new DataFrame on each access.
    """

    statistic: float
    pvalue: float
    df: int
    method: str
    n_rows: int
    n_groups: int | None
    accuracies: pd.Series = field(repr=False, compare=False)
    posthoc: pd.DataFrame = field(repr=False, compare=False)


def _holm(pvalues):
    """Holm's step-down adjusted p-values; NaN entries stay NaN and do not count.

    The same numbers as ``statsmodels.stats.multitest.multipletests(p,
    method="holm")``, without its per-call garbage collection, which costs
    a fifth of a second.
    """
    pvalues = np.asarray(pvalues, dtype=np.float64)
    adjusted = np.full(pvalues.shape, np.nan)
    defined = np.flatnonzero(np.isfinite(pvalues))
    m = defined.size
    if m:
        order = defined[np.argsort(pvalues[defined], kind="stable")]
        steps = np.minimum(1.0, (m - np.arange(m)) * pvalues[order])
        adjusted[order] = np.maximum.accumulate(steps)
    return adjusted


def _cochran_q(correct):
    """Cochran's Q from the (n_rows, c) 0/1 matrix; NaN if undefined."""
    c = correct.shape[1]
    col = correct.sum(axis=0)
    row = correct.sum(axis=1)
    total = col.sum()
    denominator = c * total - np.sum(row**2)
    if denominator <= 0:
        return math.nan
    return float((c - 1) * (c * np.sum(col**2) - total**2) / denominator)


def _score_and_variance(correct, groups):
    """Score vector U and clustered variance V of the GEE score test.

    For the logistic GEE of correctness on classifier indicators, at the
    null fit (one common accuracy), the score of classifier ``j`` with the
    intercept projected out is ``sum_rows (y_rj - ybar_r)``, ``ybar_r`` the
    row's mean over classifiers; record ``i`` contributes ``s_ij``, the sum
    over its rows, and ``V = sum_i s_i s_i'``.
    """
    residual = correct - correct.mean(axis=1, keepdims=True)
    # Record ids of any hashable kind, told apart but never ordered.
    inverse, n_groups = encode_groups(groups)
    per_record = np.zeros((n_groups, correct.shape[1]))
    np.add.at(per_record, inverse, residual)
    return per_record.sum(axis=0), per_record.T @ per_record, n_groups


def _clustered_score_statistic(score, variance):
    """U' V^- U on the contrasts (c - 1 df); NaN when V is singular there."""
    # The scores sum to zero, so drop one classifier: V[1:, 1:] is then
    # invertible exactly when the statistic has c - 1 degrees of freedom.
    sub = variance[1:, 1:]
    eig = np.linalg.eigvalsh(sub)
    scale = max(float(np.trace(variance)), 1e-300)
    if eig[0] <= 1e-10 * scale:
        return math.nan
    return float(score[1:] @ np.linalg.solve(sub, score[1:]))


def cochrans_q_test(
    y_true: ArrayLike,
    y_preds: Mapping[object, ArrayLike] | Sequence[tuple[object, ArrayLike]],
    *,
    groups: ArrayLike | None = None,
    mcnemar_method: str | None = None,
) -> CochranQResult:
    """Cochran's Q test of equal accuracy of several classifiers on the same rows.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,)
        True labels (any hashable values; a prediction is correct when it
        equals the true label).
    y_preds : dict or list of (name, array-like) pairs
        Predicted labels of each classifier, row by row, e.g. ``{"nb":
        nb.predict(X), "rf": rf.predict(X), "svm": svm.predict(X)}``;
        usually three or more (with two, Q is McNemar's chi-square).
    groups : array-like of shape (n_rows,), default=None
        Record id of each row when records repeat, e.g. the out-of-fold
        predictions of L repetitions of K-fold cross-validation stacked
        together. The omnibus statistic is then the cluster-robust score
        test described below, and the pairwise McNemar tests are clustered
        (Durkalski et al. 2003).
    mcnemar_method : {"exact", "midp", "asymptotic", "corrected"}, default=None
        ``method`` of the pairwise
        :func:`~sklearn_precision_stats.classic.mcnemar_test`; None means
        its default (``"exact"``, or ``"asymptotic"`` with ``groups``).

    Returns
    -------
    result : CochranQResult
        ``statistic``, ``pvalue``, ``df``, the ``accuracies`` and the
        ``posthoc`` table of pairwise McNemar tests with Holm-adjusted
        p-values.

    Notes
    -----
    Let ``y_rj`` be 1 when classifier ``j`` of ``c`` is right on row ``r``,
    ``C_j`` the column totals, ``R_r`` the row totals and ``T`` the grand
    total. Cochran's Q is ``(c - 1) (c sum_j C_j^2 - T^2) / (c T - sum_r
    R_r^2)``, chi-square with ``c - 1`` degrees of freedom under the null
    hypothesis of equal accuracies; rows where every classifier is right
    (or every one wrong) do not count.

    With ``groups``, let ``s_ij = sum over the rows of record i of (y_rj -
    R_r / c)``, ``U = sum_i s_i`` and ``V = sum_i s_i s_i'``. The statistic
    is ``U' V^- U`` with ``c - 1`` degrees of freedom: the robust (sandwich)
    score test of equal marginal accuracies in the logistic GEE of
    correctness on the classifier, with independence working correlation
    and clusters = records (statsmodels' ``GEE.compare_score_test`` gives
    the same number).

    How they relate: on one row per record, ``U_j = C_j - T / c`` and
    ``Q = (c - 1) |U|^2 / trace(V)``, which is ``U' W^- U`` for ``W =
    trace(V) / (c - 1) (I - J / c)``, the average of ``V`` over all
    permutations of the classifiers. Q is thus the score test with the
    variance that assumes the classifiers exchangeable within a record
    (their permutation distribution), while the robust test estimates the
    covariance of every pair of classifiers. The two agree when ``V`` is
    already of that form, always when ``c = 2`` (both are then McNemar's
    chi-square), but not in general for ``c >= 3``; the robust test stays
    valid when the classifiers' errors are unequally correlated, and also
    when records repeat.

    The pairwise tests are McNemar's (``mcnemar_test``) for every pair,
    with Holm's step-down adjustment over the pairs whose test is defined.
    If the omnibus statistic is undefined (no row on which the classifiers
    disagree, or with ``groups`` a singular ``V``, e.g. two classifiers right
    on exactly the same rows), it is NaN with an
    :class:`~sklearn_precision_stats.exceptions.UndefinedStatisticWarning`.

    References
    ----------
    Cochran, W. G. (1950). The comparison of percentages in matched
    samples. Biometrika 37, 256-266.

    Durkalski, V. L., Palesch, Y. Y., Lipsitz, S. R. and Rust, P. F. (2003).
    Analysis of clustered matched-pair data. Statistics in Medicine 22,
    2417-2428.

    Boos, D. D. (1992). On generalized score tests. The American
    Statistician 46, 327-333.

    Holm, S. (1979). A simple sequentially rejective multiple test
    procedure. Scandinavian Journal of Statistics 6, 65-70.

    Examples
    --------
    >>> from sklearn_precision_stats.classic import cochrans_q_test
    >>> y_true = [0, 1, 1, 0, 1, 1, 0, 1, 0, 1, 1, 0]
    >>> preds = {
    ...     "a": [0, 1, 1, 0, 1, 1, 0, 1, 1, 1, 1, 0],
    ...     "b": [1, 0, 1, 0, 0, 1, 1, 0, 1, 1, 0, 0],
    ...     "c": [0, 1, 0, 0, 1, 1, 1, 1, 0, 1, 0, 1],
    ... }
    >>> res = cochrans_q_test(y_true, preds)
    >>> round(res.statistic, 4), res.df, round(res.pvalue, 4)
    (6.0, 2, 0.0498)
    >>> res.accuracies.round(3).to_dict()
    {'a': 0.917, 'b': 0.417, 'c': 0.667}
    >>> res.posthoc[["classifier_a", "classifier_b", "pvalue", "pvalue_holm"]]
      classifier_a classifier_b    pvalue  pvalue_holm
    0            a            b  0.031250      0.09375
    1            a            c  0.375000      0.75000
    2            b            c  0.453125      0.75000
    """
    y_true, names, preds = _check_predictions(y_true, y_preds, None)
    if mcnemar_method is not None and mcnemar_method not in _MCNEMAR_METHODS:
        raise ValueError(
            f"mcnemar_method must be None or one of {_MCNEMAR_METHODS}, got {mcnemar_method!r}."
        )
    correct = np.column_stack([pred == y_true for pred in preds]).astype(np.float64)
    n_rows, c = correct.shape
    groups = _check_groups(groups, n_rows)
    if groups is not None and mcnemar_method not in (None, "asymptotic"):
        raise ValueError(
            f"mcnemar_method={mcnemar_method!r} is not available with groups: the "
            "discordant rows of one record are not independent, so only the clustered "
            "chi-square test applies. Use mcnemar_method='asymptotic' (or None)."
        )

    if groups is None:
        method, n_groups = "cochran", None
        statistic = _cochran_q(correct)
        reason = "every classifier is right, or every one wrong, on each row"
    else:
        method = "clustered score"
        score, variance, n_groups = _score_and_variance(correct, groups)
        statistic = _clustered_score_statistic(score, variance)
        reason = (
            "the clustered covariance of the classifiers' scores is singular "
            "(e.g. no disagreement, or two classifiers right on the same rows)"
        )
    df = c - 1
    rows = []
    # The pairs' warnings are gathered here and said once each, at the
    # caller's line; no warnings.catch_warnings, which is process-wide state.
    pairs = []
    few_clusters: dict[str, None] = {}  # an ordered set of messages
    undefined: dict[tuple[str, str], list[tuple[object, object]]] = {}
    for i, j in combinations(range(c), 2):
        res, few, why = _mcnemar(y_true, preds[i], preds[j], mcnemar_method, groups)
        pairs.append((i, j, res))
        if few is not None:
            few_clusters[few] = None
        if why is not None:
            undefined.setdefault(why, []).append((names[i], names[j]))
    if math.isnan(statistic):
        # One warning for the omnibus test and the pairs it leaves undefined.
        listed = [(names[i], names[j]) for i, j, res in pairs if math.isnan(res.pvalue)]
        if listed:
            reason += "; so is " + _posthoc_pairs("McNemar's test", listed)
        _warn_undefined("Cochran's Q test", reason)
        pvalue = math.nan
    else:
        pvalue = float(stats.chi2.sf(statistic, df))
        for (what, why), listed in undefined.items():
            _warn_undefined(_posthoc_pairs(what, listed), why)
    for message in few_clusters:
        warnings.warn(message, UserWarning, stacklevel=2)
    for i, j, res in pairs:
        rows.append(
            {
                "classifier_a": names[i],
                "classifier_b": names[j],
                "accuracy_a": res.accuracy_a,
                "accuracy_b": res.accuracy_b,
                "n_a_only": res.n_a_only,
                "n_b_only": res.n_b_only,
                "statistic": res.statistic,
                "pvalue": res.pvalue,
            }
        )
    posthoc = pd.DataFrame(rows)
    posthoc["pvalue_holm"] = _holm(posthoc["pvalue"].to_numpy())

    return CochranQResult(
        statistic=float(statistic),
        pvalue=pvalue,
        df=df,
        method=method,
        n_rows=n_rows,
        n_groups=n_groups,
        accuracies=pd.Series(correct.mean(axis=0), index=names, name="accuracy"),
        posthoc=posthoc,
    )
