"""Friedman's test and the Iman-Davenport F test on a table of scores.

The table holds one score per data set (row) and classifier (column), such
as the mean cross-validated accuracy of each classifier on each data set.
Scores are ranked within each data set, rank 1 for the best classifier,
and tied scores share their average rank (Demsar 2006, section 3.2.2).
"""

import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats

from ..classic._common import _warn_undefined
from ..results._base import TestResult, copied_on_access
from ..utils._sklearn_compat import validate_params

__all__ = ["FriedmanResult", "friedman_test"]


def _scores_frame(scores):
    """A mapping of classifier names to their scores, as a DataFrame."""
    try:
        return pd.DataFrame(dict(scores))
    except (TypeError, ValueError) as exc:
        raise ValueError(
            "scores given as a dict must map each classifier to its scores on "
            f"the same data sets, all of the same length ({exc})."
        ) from None


def _check_scores_table(scores, lower_is_better):
    """Validate a (n_datasets, n_classifiers) table; return values and names."""
    if not isinstance(lower_is_better, (bool, np.bool_)):
        raise ValueError(
            f"lower_is_better must be True or False, got {lower_is_better!r}; "
            "pass lower_is_better=True when the scores are errors or losses."
        )
    if isinstance(scores, Mapping):
        scores = _scores_frame(scores)
    names = datasets = None
    try:
        if isinstance(scores, pd.DataFrame):
            names = list(scores.columns)
            datasets = list(scores.index)
            # pandas' missing values (pd.NA of the nullable dtypes) become NaN.
            values = scores.to_numpy(dtype=np.float64, na_value=np.nan)
        else:
            values = np.asarray(scores)
            if values.ndim == 2:
                values = values.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            "scores must be a table of numbers, one row per data set and one "
            f"column per classifier, with no missing cells: {exc}"
        ) from None
    if values.ndim != 2:
        raise ValueError(
            f"scores must be 2-D with one row per data set and one column per "
            f"classifier, got an array of shape {values.shape}."
        )
    n_datasets, n_classifiers = values.shape
    if n_classifiers < 2 or n_datasets < 2:
        raise ValueError(
            "scores must have at least 2 rows (data sets) and 2 columns "
            f"(classifiers), got shape {values.shape}; put one classifier per "
            "column (transpose the table if needed)."
        )
    if not np.isfinite(values).all():
        row = int(np.flatnonzero(~np.isfinite(values).all(axis=1))[0])
        raise ValueError(
            f"scores has a missing or infinite value in row {row}; every "
            "classifier needs a score on every data set. Drop that data set "
            "or rerun the missing evaluations."
        )
    if names is None:
        names = list(range(n_classifiers))
        datasets = list(range(n_datasets))
    if len(set(names)) != len(names):
        raise ValueError(f"the classifier names (columns of scores) must be unique, got {names}.")
    return values, names, datasets


def _ranks(values, lower_is_better):
    """Rank 1 for the best classifier on each data set; ties get average ranks."""
    return stats.rankdata(values if lower_is_better else -values, method="average", axis=-1)


def _friedman_statistics(ranks, tie_correction=True):
    """Friedman and Iman-Davenport statistics from ranks of shape (..., N, k).

    Vectorised over the leading axes so that simulations need no loop.

    Returns
    -------
    chi2, f_stat : ndarray of shape ranks.shape[:-2]
        NaN where every data set ties every classifier.
    """
    n, k = ranks.shape[-2:]
    mean_ranks = ranks.mean(axis=-2)
    chi2 = 12.0 * n / (k * (k + 1)) * np.sum((mean_ranks - (k + 1) / 2) ** 2, axis=-1)
    if tie_correction:
        # Within-block variance of the ranks relative to the untied value
        # k(k^2 - 1)/12, as in scipy.stats.friedmanchisquare and R's
        # friedman.test: sum((r - (k+1)/2)^2) = k(k^2-1)/12 - sum(t^3 - t)/12.
        spread = np.sum((ranks - (k + 1) / 2) ** 2, axis=(-2, -1))
        with np.errstate(divide="ignore", invalid="ignore"):
            chi2 = chi2 * (n * k * (k * k - 1) / 12.0) / spread
    room = n * (k - 1) - chi2
    # chi2 reaches its maximum N(k-1) when every data set ranks the
    # classifiers alike: F is then infinite (rounding may leave room < 0).
    with np.errstate(divide="ignore", invalid="ignore"):
        f_stat = np.where(
            room > 1e-12 * n * (k - 1), (n - 1) * chi2 / np.maximum(room, 1e-300), np.inf
        )
    f_stat = np.where(np.isnan(chi2), np.nan, f_stat)
    return chi2, f_stat


@copied_on_access(
    average_ranks="Average rank of each classifier (a new Series on each access).",
    ranks="Rank of each classifier on each data set (a new DataFrame on each access).",
)
@dataclass(frozen=True, repr=False)
class FriedmanResult(TestResult):
    """Result of :func:`friedman_test`.

    Attributes
    ----------
    statistic : float
        Friedman's chi-square statistic (tie-corrected unless
        ``tie_correction=False``).
    pvalue : float
        Its p-value from the chi-square distribution with ``df`` degrees of
        freedom.
    df : int
        ``n_classifiers - 1``.
    iman_davenport_statistic : float
        Iman and Davenport's F statistic,
        ``(N - 1) chi2 / (N (k - 1) - chi2)``.
    iman_davenport_pvalue : float
        Its p-value from the F distribution with ``iman_davenport_df``
        degrees of freedom; Demsar (2006) recommends it over the chi-square.
    iman_davenport_df : tuple of int
        ``(k - 1, (k - 1)(N - 1))``.
    n_datasets, n_classifiers : int
        ``N`` and ``k``.
    average_ranks : pandas.Series
        Average rank of each classifier (1 = best), indexed by classifier
        name.
    ranks : pandas.DataFrame
        The rank of every classifier on every data set.
    """

    statistic: float
    pvalue: float
    df: int
    iman_davenport_statistic: float
    iman_davenport_pvalue: float
    iman_davenport_df: tuple
    n_datasets: int
    n_classifiers: int
    average_ranks: pd.Series = field(repr=False, compare=False)
    ranks: pd.DataFrame = field(repr=False, compare=False)


@validate_params(
    {
        "scores": ["array-like"],
        "lower_is_better": ["boolean"],
        "tie_correction": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def friedman_test(
    scores: ArrayLike | Mapping[Hashable, ArrayLike],
    *,
    lower_is_better: bool = False,
    tie_correction: bool = True,
) -> FriedmanResult:
    """Friedman's test of equal average ranks over data sets, with Iman-Davenport's F.

    Each data set ranks the classifiers (1 = best; ties share their average
    rank). Under the null hypothesis that all classifiers perform alike,
    their average ranks over the ``N`` data sets should be equal.

    Parameters
    ----------
    scores : array-like, pandas.DataFrame or dict of shape (n_datasets, n_classifiers)
        One score per data set (row) and classifier (column), e.g. the mean
        cross-validated accuracy. The columns of a DataFrame, or the keys of
        a dict mapping each classifier to its scores, name the classifiers;
        otherwise they are numbered from 0.
    lower_is_better : bool, default=False
        Set to True when the scores are errors or losses.
    tie_correction : bool, default=True
        Divide the chi-square statistic by the tie correction of
        :func:`scipy.stats.friedmanchisquare` (and R's ``friedman.test``).
        Without ties it changes nothing; False gives the formula of Demsar
        (2006), eq. (1), also when there are ties.

    Returns
    -------
    result : FriedmanResult
        ``statistic`` and ``pvalue`` of the chi-square test, the
        Iman-Davenport F with its p-value and degrees of freedom, and the
        ``average_ranks``.

    Notes
    -----
    With average ranks ``R_j`` over ``N`` data sets and ``k`` classifiers,
    ``chi2 = 12 N / (k (k+1)) * sum_j (R_j - (k+1)/2)^2`` with ``k - 1``
    degrees of freedom, and ``F = (N - 1) chi2 / (N (k - 1) - chi2)`` with
    ``(k - 1, (k - 1)(N - 1))`` degrees of freedom (Iman and Davenport
    1980), which is less conservative. The data sets must be independent;
    the test then needs no assumption on the scores' distribution or
    scale. Follow a rejection with :func:`posthoc_test`. If every data set
    ties every classifier, the statistics are NaN with an
    :class:`~sklearn_precision_stats.exceptions.UndefinedStatisticWarning`.

    References
    ----------
    Friedman, M. (1937). The use of ranks to avoid the assumption of
    normality implicit in the analysis of variance. Journal of the American
    Statistical Association 32, 675-701.

    Iman, R. L. and Davenport, J. M. (1980). Approximations of the critical
    region of the Friedman statistic. Communications in Statistics - Theory
    and Methods 9, 571-595.

    Demsar, J. (2006). Statistical comparisons of classifiers over multiple
    data sets. Journal of Machine Learning Research 7, 1-30.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_precision_stats.several_datasets import friedman_test
    >>> scores = pd.DataFrame(
    ...     {"rf": [0.91, 0.85, 0.78, 0.95, 0.88, 0.82],
    ...      "svm": [0.90, 0.86, 0.75, 0.93, 0.87, 0.80],
    ...      "nb": [0.84, 0.80, 0.74, 0.90, 0.85, 0.79]})
    >>> res = friedman_test(scores)
    >>> res.average_ranks.round(3).to_dict()
    {'rf': 1.167, 'svm': 1.833, 'nb': 3.0}
    >>> round(res.statistic, 4), res.df, round(res.pvalue, 4)
    (10.3333, 2, 0.0057)
    >>> round(res.iman_davenport_statistic, 3), res.iman_davenport_df
    (31.0, (2, 10))
    """
    values, names, datasets = _check_scores_table(scores, lower_is_better)
    return _friedman(values, names, datasets, lower_is_better, tie_correction)


def _friedman(values, names, datasets, lower_is_better, tie_correction):
    """Friedman's test on a checked table, called by a public function.

    Its warning points at the line that called that public function.
    """
    n, k = values.shape
    ranks = _ranks(values, lower_is_better)
    chi2, f_stat = _friedman_statistics(ranks, tie_correction)
    chi2, f_stat = float(chi2), float(f_stat)
    df = k - 1
    id_df = (k - 1, (k - 1) * (n - 1))
    if not math.isfinite(chi2):
        # Frames: _warn_undefined, this function, the public function, its
        # validate_params wrapper, then the user's line.
        _warn_undefined("Friedman's test", "every data set ties every classifier", stacklevel=5)
        chi2 = f_stat = pvalue = id_pvalue = math.nan
    else:
        pvalue = float(stats.chi2.sf(chi2, df))
        id_pvalue = float(stats.f.sf(f_stat, *id_df))
    return FriedmanResult(
        statistic=chi2,
        pvalue=pvalue,
        df=df,
        iman_davenport_statistic=f_stat,
        iman_davenport_pvalue=id_pvalue,
        iman_davenport_df=id_df,
        n_datasets=n,
        n_classifiers=k,
        average_ranks=pd.Series(ranks.mean(axis=0), index=names, name="average_rank"),
        ranks=pd.DataFrame(ranks, index=datasets, columns=names),
    )
