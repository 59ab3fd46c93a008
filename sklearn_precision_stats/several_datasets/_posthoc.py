"""Post-hoc tests after Friedman's test: which classifiers' average ranks differ.

All the tests here compare average ranks over data sets with the statistic
``z = (R_i - R_j) / sqrt(k (k + 1) / (6 N))`` (Demsar 2006, section 3.2.2)
and differ in how they control the family-wise error rate: the studentized
range for all pairs (Nemenyi), Bonferroni's correction (Bonferroni-Dunn
against a control), Holm's step-down procedure, or Shaffer's static
procedure, which uses the logical dependence between all-pairs hypotheses
(Garcia and Herrera 2008).
"""

import math
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations
from numbers import Real
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats

from ..results._base import TestResult, copied_on_access
from ..utils._sklearn_compat import Interval, StrOptions, validate_params
from ._friedman import FriedmanResult, _check_scores_table, _friedman

__all__ = ["PosthocResult", "posthoc_test"]

_METHODS = ("nemenyi", "holm", "bonferroni-dunn", "shaffer")
_METHOD_NAMES = {
    "nemenyi": "Nemenyi",
    "holm": "Holm",
    "bonferroni-dunn": "Bonferroni-Dunn",
    "shaffer": "Shaffer (static)",
}


def _rank_standard_error(n_datasets, n_classifiers):
    """Standard error of a difference of two average ranks under the null."""
    k = n_classifiers
    return math.sqrt(k * (k + 1) / (6.0 * n_datasets))


def _nemenyi_pvalues(z, n_classifiers):
    """All-pairs p-values of the studentized range with infinite df.

    The range of ``k`` average ranks divided by their standard deviation
    ``sqrt(k (k + 1) / (12 N))`` is asymptotically the studentized range, so
    ``|z| * sqrt(2)`` is compared with it. Broadcasts over ``z``.
    """
    return stats.studentized_range.sf(np.abs(z) * math.sqrt(2.0), n_classifiers, np.inf)


def _normal_pvalues(z):
    return np.minimum(1.0, 2.0 * stats.norm.sf(np.abs(z)))


@lru_cache(maxsize=64)
def _shaffer_true_counts(k):
    """Possible numbers of true hypotheses among all pairs of ``k`` classifiers.

    Shaffer (1986): S(k) is the union over j = 1..k of C(j, 2) + S(k - j),
    with S(0) = S(1) = {0}; a partition of the classifiers into groups of
    equal performance makes exactly the within-group pairs true.
    """
    sets = [frozenset({0}), frozenset({0})]
    for n in range(2, k + 1):
        sets.append(frozenset(j * (j - 1) // 2 + x for j in range(1, n + 1) for x in sets[n - j]))
    return tuple(sorted(sets[k]))


def _shaffer_multipliers(k):
    """Shaffer's static multipliers t_i, i = 1..m, for the ordered p-values."""
    m = k * (k - 1) // 2
    possible = np.asarray(_shaffer_true_counts(k))
    # t_i: most hypotheses that can still be true once i - 1 are false.
    bounds = m - np.arange(m)
    return np.array([possible[possible <= b].max() for b in bounds], dtype=np.float64)


def _step_down(pvalues, multipliers):
    """Step-down adjusted p-values: running max of min(1, t_i p_(i))."""
    order = np.argsort(pvalues, kind="stable")
    adjusted_sorted = np.maximum.accumulate(np.minimum(1.0, multipliers * pvalues[order]))
    adjusted = np.empty_like(adjusted_sorted)
    adjusted[order] = adjusted_sorted
    return adjusted


def _adjust(raw, method, n_classifiers, with_control):
    """Adjusted p-values of the ``m`` compared pairs."""
    m = raw.shape[0]
    if method == "nemenyi":
        return raw  # the studentized range already controls the FWER
    if method == "bonferroni-dunn":
        return np.minimum(1.0, m * raw)
    if method == "shaffer" and not with_control:
        return _step_down(raw, _shaffer_multipliers(n_classifiers))
    # Holm; also Shaffer against a control, where any subset of the k - 1
    # hypotheses can be true and Shaffer's multipliers are Holm's.
    return _step_down(raw, m - np.arange(m, dtype=np.float64))


def _critical_difference(method, alpha, n_datasets, n_classifiers, n_pairs):
    """Smallest difference of average ranks declared significant, or NaN."""
    se = _rank_standard_error(n_datasets, n_classifiers)
    if method == "nemenyi":
        q = stats.studentized_range.ppf(1.0 - alpha, n_classifiers, np.inf) / math.sqrt(2.0)
    elif method == "bonferroni-dunn":
        q = stats.norm.isf(alpha / (2.0 * n_pairs))
    else:
        return math.nan  # step-down procedures have no single critical value
    return float(q * se)


def _control_position(control, names):
    """Position of ``control`` among the classifier names, or a ValueError.

    Names match by equality, as in a pandas index (``1.0`` finds ``1``),
    except that a bool finds only a bool: ``True == 1`` would otherwise
    pick the classifier numbered 1.
    """
    is_bool = isinstance(control, (bool, np.bool_))
    for position, name in enumerate(names):
        try:
            same = bool(name == control)
        except (TypeError, ValueError):  # e.g. an array compared with a name
            same = False
        if same and isinstance(name, (bool, np.bool_)) == is_bool:
            return position
    raise ValueError(
        f"control={control!r} is not one of the classifiers {names}; pass "
        "a column name of scores (a column number for an array) or None."
    )


def _groups_not_differing(order, rejected):
    """Maximal runs of classifiers, in rank order, with no rejected pair.

    Parameters
    ----------
    order : list of int
        Classifier indices from the best to the worst average rank.
    rejected : ndarray of bool of shape (k, k)
    """
    k = len(order)
    groups, last_end = [], -1
    for i in range(k):
        j = i
        while j + 1 < k and not rejected[np.ix_(order[i : j + 2], order[i : j + 2])].any():
            j += 1
        if j > i and j > last_end:
            groups.append(tuple(order[i : j + 1]))
            last_end = j
    return groups


@copied_on_access(
    statistic="Pairwise statistics (a new DataFrame on each access).",
    pvalue="Adjusted pairwise p-values (a new DataFrame on each access).",
    average_ranks="Average rank of each classifier (a new Series on each access).",
    unadjusted_pvalue="Unadjusted pairwise p-values (a new DataFrame on each access).",
)
@dataclass(frozen=True, repr=False)
class PosthocResult(TestResult):
    """Result of :func:`posthoc_test`.

    Like :func:`scipy.stats.tukey_hsd`'s result, ``statistic`` and
    ``pvalue`` are matrices over the classifiers (so ``z, p = result``
    works).

    Attributes
    ----------
    statistic : pandas.DataFrame of shape (k, k)
        ``z = (R_row - R_column) / sqrt(k (k + 1) / (6 N))`` for the average
        ranks ``R`` (rank 1 = best): negative when the row classifier ranks
        better.
    pvalue : pandas.DataFrame of shape (k, k)
        Adjusted p-values, 1 on the diagonal. With a ``control``, only its
        row and column are filled and the other entries are NaN.
    method : str
        The post-hoc procedure.
    alpha : float
        Family-wise error rate used for ``critical_difference``, ``groups``
        and ``significant``.
    control : object or None
        The control classifier, if any.
    critical_difference : float
        For ``"nemenyi"`` and ``"bonferroni-dunn"``, the difference of
        average ranks beyond which two classifiers differ at level
        ``alpha``; NaN for the step-down procedures.
    groups : tuple of tuple
        Without a control: the maximal sets of classifiers, consecutive in
        rank order, among which no pair differs significantly (the bars of
        the critical-difference diagram), best first; empty with a control.
    n_datasets, n_classifiers : int
        ``N`` and ``k``.
    average_ranks : pandas.Series
        Average rank of each classifier.
    unadjusted_pvalue : pandas.DataFrame
        Two-sided normal p-values of ``statistic`` before the multiplicity
        adjustment (for ``"nemenyi"``, the studentized-range p-values).
    friedman : FriedmanResult
        The omnibus test on the same table.
    """

    statistic: pd.DataFrame = field(repr=False, compare=False)
    pvalue: pd.DataFrame = field(repr=False, compare=False)
    method: str
    alpha: float
    control: Any
    critical_difference: float
    groups: tuple
    n_datasets: int
    n_classifiers: int
    average_ranks: pd.Series = field(repr=False, compare=False)
    unadjusted_pvalue: pd.DataFrame = field(repr=False, compare=False)
    friedman: FriedmanResult = field(repr=False, compare=False)

    @property
    def significant(self) -> pd.DataFrame:
        """Boolean DataFrame: True where the pair differs at level ``alpha``."""
        return self.pvalue < self.alpha

    def summary(self) -> str:
        """A plain-text summary: ranks, critical difference, groups, differences.

        Returns
        -------
        text : str
        """
        # Positions, not labels: tuple names (MultiIndex columns) would be
        # read by .loc as a row and a column level.
        names = list(self.pvalue.columns)
        pvalue = self.pvalue.to_numpy()
        mean_ranks = self.average_ranks.to_numpy()
        order = np.argsort(mean_ranks, kind="stable")
        lines = [
            f"Post-hoc test: {_METHOD_NAMES[self.method]}"
            + (f" against control {self.control!r}" if self.control is not None else ", all pairs")
            + f"; alpha = {self.alpha:g}; {self.n_datasets} data sets, "
            f"{self.n_classifiers} classifiers",
            f"Friedman chi2 = {self.friedman.statistic:.4g}, p = {self.friedman.pvalue:.4g}; "
            f"Iman-Davenport F = {self.friedman.iman_davenport_statistic:.4g}, "
            f"p = {self.friedman.iman_davenport_pvalue:.4g}",
            "Average ranks (1 = best): "
            + ", ".join(f"{names[i]} {mean_ranks[i]:.3f}" for i in order),
        ]
        if math.isfinite(self.critical_difference):
            lines.append(f"Critical difference: {self.critical_difference:.4f}")
        significant = pvalue < self.alpha
        if self.control is None:
            in_group = {name for group in self.groups for name in group}
            lines.append("Groups that do not differ significantly:")
            lines.extend("  " + ", ".join(str(name) for name in group) for group in self.groups)
            alone = [str(names[i]) for i in order if names[i] not in in_group]
            if alone:
                lines.append("  differs from every other classifier: " + ", ".join(alone))
            if not self.groups and not alone:
                lines.append("  (none)")
            pairs = [(i, j) for i, j in combinations(order, 2) if significant[i, j]]
        else:
            c = _control_position(self.control, names)
            others = [j for j in range(len(names)) if j != c]
            pairs = [(c, j) for j in others if significant[c, j]]
            same = [str(names[j]) for j in others if not significant[c, j]]
            lines.append(
                f"Not significantly different from {self.control!r}: "
                + (", ".join(same) if same else "(none)")
            )
        lines.append("Significantly different pairs:" + ("" if pairs else " (none)"))
        for i, j in pairs:
            better, worse = (i, j) if mean_ranks[i] <= mean_ranks[j] else (j, i)
            lines.append(
                f"  {names[better]} better than {names[worse]} (adjusted p = {pvalue[i, j]:.4g})"
            )
        return "\n".join(lines)


@validate_params(
    {
        "scores": ["array-like"],
        "method": [StrOptions(set(_METHODS))],
        "control": "no_validation",
        "alpha": [Interval(Real, 0, 1, closed="neither")],
        "lower_is_better": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def posthoc_test(
    scores: ArrayLike | Mapping[Hashable, ArrayLike],
    *,
    method: str = "nemenyi",
    control: Hashable | None = None,
    alpha: float = 0.05,
    lower_is_better: bool = False,
) -> PosthocResult:
    """Post-hoc comparisons of average ranks over data sets, after Friedman's test.

    Parameters
    ----------
    scores : array-like, pandas.DataFrame or dict of shape (n_datasets, n_classifiers)
        One score per data set (row) and classifier (column). The columns of
        a DataFrame, or the keys of a dict mapping each classifier to its
        scores, name the classifiers; otherwise they are numbered from 0.
    method : {"nemenyi", "holm", "bonferroni-dunn", "shaffer"}, default="nemenyi"
        ``"nemenyi"``: all pairs, with the studentized range (Demsar 2006).
        ``"holm"``: Holm's step-down adjustment of the normal p-values of
        ``z``. ``"bonferroni-dunn"``: Bonferroni's adjustment, meant for
        comparisons with a ``control`` (Demsar 2006); over all pairs it is
        the Bonferroni correction for ``k (k - 1) / 2`` tests.
        ``"shaffer"``: Shaffer's static procedure over all pairs, uniformly
        more powerful than Holm's (Garcia and Herrera 2008); against a
        control it coincides with Holm's.
    control : object, default=None
        Name (column) of a control classifier, e.g. a newly proposed one:
        only the ``k - 1`` comparisons with it are made, which gives more
        power than all pairs. Not available with ``"nemenyi"``.
    alpha : float, default=0.05
        Family-wise error rate for the critical difference, the groups and
        the summary (the adjusted p-values do not depend on it).
    lower_is_better : bool, default=False
        Set to True when the scores are errors or losses.

    Returns
    -------
    result : PosthocResult
        ``statistic`` (z) and ``pvalue`` (adjusted) as DataFrames, the
        ``critical_difference`` where defined, the ``groups`` that do not
        differ, the Friedman test and a ``summary()``.

    Notes
    -----
    The standard error of a difference of average ranks is
    ``sqrt(k (k + 1) / (6 N))``. Nemenyi's test declares two classifiers
    different when their average ranks differ by more than the critical
    difference ``CD = q_alpha sqrt(k (k + 1) / (6 N))``, with ``q_alpha``
    the studentized range quantile divided by ``sqrt(2)`` (Demsar's Table
    5a); Bonferroni-Dunn's uses the normal quantile at ``alpha / (2 m)`` for
    ``m`` comparisons (Table 5b). Holm's procedure multiplies the ``i``-th
    smallest of the ``m`` p-values by ``m - i + 1``; Shaffer's static
    procedure multiplies it instead by the largest number of hypotheses
    that can still be true when ``i - 1`` are false (e.g. once one pair of
    three classifiers differs, at most one other pair can be equal), and
    both take running maxima. Because all pairs share one standard error,
    adjusted p-values grow with the distance of the ranks, and the
    classifiers that do not differ form runs in rank order: these runs are
    ``groups``, the bars of :func:`~sklearn_precision_stats.plotting.
    plot_critical_difference`. Comparing ranks (not scores) needs no
    assumption on the scores' scale, but the rank-based comparison of two
    classifiers depends on the other classifiers in the table (Benavoli,
    Corani and Mangili 2016); the Wilcoxon signed-rank test with Holm's
    adjustment avoids this.

    References
    ----------
    Demsar, J. (2006). Statistical comparisons of classifiers over multiple
    data sets. Journal of Machine Learning Research 7, 1-30.

    Nemenyi, P. (1963). Distribution-free multiple comparisons. PhD thesis,
    Princeton University.

    Holm, S. (1979). A simple sequentially rejective multiple test
    procedure. Scandinavian Journal of Statistics 6, 65-70.

    Shaffer, J. P. (1986). Modified sequentially rejective multiple test
    procedures. Journal of the American Statistical Association 81,
    826-831.

    Garcia, S. and Herrera, F. (2008). An extension on "Statistical
    comparisons of classifiers over multiple data sets" for all pairwise
    comparisons. Journal of Machine Learning Research 9, 2677-2694.

    Benavoli, A., Corani, G. and Mangili, F. (2016). Should we really use
    post-hoc tests based on mean-ranks? Journal of Machine Learning
    Research 17, 1-10.

    Examples
    --------
    >>> import pandas as pd
    >>> from sklearn_precision_stats.several_datasets import posthoc_test
    >>> scores = pd.DataFrame(
    ...     {"rf": [0.91, 0.85, 0.78, 0.95, 0.88, 0.82, 0.90, 0.87],
    ...      "svm": [0.90, 0.86, 0.75, 0.93, 0.87, 0.80, 0.91, 0.84],
    ...      "knn": [0.86, 0.83, 0.77, 0.91, 0.86, 0.81, 0.88, 0.85],
    ...      "nb": [0.84, 0.80, 0.74, 0.90, 0.85, 0.79, 0.86, 0.83]})
    >>> res = posthoc_test(scores, method="nemenyi")
    >>> round(res.critical_difference, 4)
    1.6583
    >>> res.groups
    (('rf', 'svm', 'knn'), ('knn', 'nb'))
    >>> res.average_ranks.to_dict()
    {'rf': 1.25, 'svm': 2.125, 'knn': 2.625, 'nb': 4.0}
    >>> print(res.summary())  # doctest: +ELLIPSIS
    Post-hoc test: Nemenyi, all pairs; alpha = 0.05; 8 data sets, 4 classifiers
    ...
    Groups that do not differ significantly:
      rf, svm, knn
      knn, nb
    Significantly different pairs:
      rf better than nb (adjusted p = 0.0001201)
      svm better than nb (adjusted p = 0.01925)
    >>> holm = posthoc_test(scores, method="holm", control="nb")
    >>> holm.pvalue["nb"].round(4).to_dict()
    {'rf': 0.0001, 'svm': 0.0074, 'knn': 0.0332, 'nb': 1.0}
    """
    values, names, datasets = _check_scores_table(scores, lower_is_better)
    if control is not None:
        c = _control_position(control, names)
        control = names[c]  # as the table names it: 1 for 1.0 or np.int64(1)
    if method == "nemenyi" and control is not None:
        raise ValueError(
            "method='nemenyi' compares all pairs; to compare with a control "
            "use method='bonferroni-dunn' or method='holm' (more powerful)."
        )
    friedman = _friedman(values, names, datasets, lower_is_better, tie_correction=True)
    n, k = values.shape
    mean_ranks = friedman.average_ranks.to_numpy()
    z = (mean_ranks[:, None] - mean_ranks[None, :]) / _rank_standard_error(n, k)

    if control is None:
        rows, cols = np.triu_indices(k, 1)
    else:
        cols = np.array([j for j in range(k) if j != c])
        rows = np.full(cols.shape, c)
    pair_z = z[rows, cols]
    raw = _nemenyi_pvalues(pair_z, k) if method == "nemenyi" else _normal_pvalues(pair_z)
    adjusted = _adjust(raw, method, k, control is not None)

    def matrix(values_of_pairs):
        out = np.full((k, k), np.nan)
        out[rows, cols] = values_of_pairs
        out[cols, rows] = values_of_pairs
        np.fill_diagonal(out, 1.0)
        return pd.DataFrame(out, index=names, columns=names)

    pvalue = matrix(adjusted)
    groups: tuple[tuple, ...] = ()
    if control is None:
        order = [int(i) for i in np.argsort(mean_ranks, kind="stable")]
        rejected = (pvalue < alpha).to_numpy()
        groups = tuple(
            tuple(names[i] for i in group) for group in _groups_not_differing(order, rejected)
        )
    return PosthocResult(
        statistic=pd.DataFrame(z, index=names, columns=names),
        pvalue=pvalue,
        method=method,
        alpha=float(alpha),
        control=control,
        critical_difference=_critical_difference(method, alpha, n, k, rows.shape[0]),
        groups=groups,
        n_datasets=n,
        n_classifiers=k,
        average_ranks=pd.Series(mean_ranks, index=names, name="average_rank"),
        unadjusted_pvalue=matrix(raw),
        friedman=friedman,
    )
