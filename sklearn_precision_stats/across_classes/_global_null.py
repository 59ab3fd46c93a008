"""The global null across classes: combined and adjusted p-values.

A per-class comparison gives one p-value per class; the global null says the
classifiers are equally precise for *every* class. The classes' p-values
come from the same records, so they are dependent: Fisher's combination
assumes independence and can be far off. Dai and Cui's (2014) modification
of Lancaster's statistic matches the first two moments of the combined
statistic with a scaled chi-square, the covariances being estimated from
p-values recomputed on resamples of the data. Simes' test and the Holm and
Benjamini-Hochberg adjustments need no resampling.

Resampling draws *units* with multiplicities, never rows: with one row per
record, the records with the same truth and predictions form one unit (a
nonzero cell of the joint table), so a resample costs O(distinct cells)
whatever the number of records; with clustered rows each record is a unit.
See :mod:`sklearn_precision_stats.engine._units` and :func:`resampled_sums`.
"""

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from scipy import sparse, stats

from .._typing import ArrayLike
from ..engine._counts import TN, MarginalCounts
from ..engine._marginal_model import pairwise_statistics
from ..engine._units import ROWS, key_groups, resampled_group_sums
from ..exceptions import UndefinedStatisticWarning
from ..results._base import TestResult
from ..results._registry import PVALUE_TESTS, TESTS, check_test
from ..utils._random_state import check_random_state_any
from ..utils._validation import _check_integer

__all__ = ["GlobalTestResult", "combine_pvalues_dependent"]

_COMBINE_METHODS = ("dai-cui", "permutation", "fisher", "simes")
_ADJUST_METHODS = ("holm", "bh", "by")
_RESAMPLINGS = ("permutation", "bootstrap")

# Resamples are drawn in chunks of at most this many (resample, unit) draws,
# which bounds the memory at a few tens of MB whatever the data size.
_CHUNK_DRAWS = 2**22


# ---------------------------------------------------------------------------
# Result type
# ---------------------------------------------------------------------------


def _format_number(value):
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.6g}"
    return str(value)


def _format_field(value):
    if isinstance(value, np.ndarray):
        return "[" + ", ".join(_format_number(v) for v in value.tolist()) + "]"
    if isinstance(value, str):
        return repr(value)
    return _format_number(value)


@dataclass(frozen=True, repr=False)
class GlobalTestResult(TestResult):
    """Result of a test of the global null across classes.

    Returned by :func:`combine_pvalues_dependent` and
    :meth:`PrecisionComparison.global_test`. With more than one compared
    classifier (``global_test`` on three or more classifiers) each numeric
    attribute is an array with one entry per compared classifier, in the
    order of ``classifiers``; otherwise it is a scalar.

    Attributes
    ----------
    statistic : float or ndarray
        The statistic referred to ``chi2(df)``: ``scale * T`` with Lancaster's
        ``T = sum_i chi2.isf(p_i, w_i)`` for ``"dai-cui"`` and ``"fisher"``
        (``scale = 1``); the Simes p-value ``min_i L p_(i) / i`` for
        ``"simes"``.
    pvalue : float or ndarray
        The global p-value; ``chi2.sf(statistic, df)`` for the Lancaster
        family.
    df : float or ndarray
        Degrees of freedom ``nu`` (Satterthwaite for ``"dai-cui"``, ``sum w``
        for ``"fisher"``); NaN for ``"simes"``.
    scale : float or ndarray
        Dai and Cui's ``c = nu / E(T)``; 1 for ``"fisher"``, NaN for
        ``"simes"``.
    method : str
        ``"dai-cui"``, ``"fisher"`` or ``"simes"``.
    n_tests : int or ndarray
        Number of p-values combined (classes with a defined p-value).
    n_resamples : int or ndarray
        Null p-value vectors the covariances were estimated from (0 when
        none were used).
    classifiers : tuple of str or None
        The compared classifiers (``global_test`` only).
    test : str or None
        The per-class test whose p-values were combined (``global_test``
        only).
    resampling : str or None
        ``"permutation"`` or ``"bootstrap"`` when resamples were drawn.
    """

    statistic: float | np.ndarray
    pvalue: float | np.ndarray
    df: float | np.ndarray
    scale: float | np.ndarray
    method: str
    n_tests: int | np.ndarray
    n_resamples: int | np.ndarray = 0
    classifiers: tuple[str, ...] | None = None
    test: str | None = None
    resampling: str | None = None

    def __repr__(self):
        names = [
            "method",
            "test",
            "resampling",
            "classifiers",
            "statistic",
            "pvalue",
            "df",
            "scale",
            "n_tests",
            "n_resamples",
        ]
        parts = []
        for name in names:
            value = getattr(self, name)
            if value is None:
                continue
            if name == "classifiers":
                value = list(value)
                parts.append(f"{name}={value!r}")
                continue
            parts.append(f"{name}={_format_field(value)}")
        return f"{type(self).__name__}({', '.join(parts)})"

    def to_frame(self) -> pd.DataFrame:
        """The result as a DataFrame, one row per compared classifier.

        Returns
        -------
        pandas.DataFrame
            Columns ``classifier`` (when known), ``statistic``, ``pvalue``,
            ``df``, ``scale``, ``n_tests``, ``n_resamples``.
        """
        columns = ["statistic", "pvalue", "df", "scale", "n_tests", "n_resamples"]
        frame = pd.DataFrame({c: np.atleast_1d(getattr(self, c)) for c in columns})
        if self.classifiers is not None:
            frame.insert(0, "classifier", list(self.classifiers))
        frame["method"] = self.method
        return frame


# ---------------------------------------------------------------------------
# Combining p-values
# ---------------------------------------------------------------------------


def combine_pvalues_dependent(
    pvalues: ArrayLike,
    null_pvalues: ArrayLike | None = None,
    weights: ArrayLike | None = None,
    method: str = "dai-cui",
) -> GlobalTestResult:
    """Combine dependent p-values into one test of the global null.

    Parameters
    ----------
    pvalues : array-like of shape (n_tests,)
        The p-values to combine, each in [0, 1]. A NaN makes the result NaN
        (as ``scipy.stats.combine_pvalues`` with its default
        ``nan_policy="propagate"``); drop undefined tests first.
    null_pvalues : array-like of shape (n_resamples, n_tests), default=None
        The same tests' p-values recomputed on resamples of the data (each
        row one resample, columns in the order of `pvalues`), for instance
        under permutations that make the null true. Only ``"dai-cui"`` uses
        them, to estimate the covariances of the transformed p-values; rows
        with a NaN are left out. Without them the covariances are taken as
        zero, which gives Lancaster's (Fisher's) test for independent
        p-values. ``"permutation"`` requires them: it compares the observed
        statistic with its values on the resamples. For ``"dai-cui"`` the
        null p-values are bounded to ``[1 / (B + 1), 1 - 1 / (B + 1)]``, the
        resolution of ``B`` resamples, so that a few p-values of exactly 0
        cannot make the combination anti-conservative.
    weights : array-like of shape (n_tests,), default=None
        Lancaster's degrees of freedom ``w_i > 0``, one per test (larger
        weight, more influence); 2 for every test when None, which is
        Fisher's method. Not used by ``"simes"``.
    method : {"dai-cui", "permutation", "fisher", "simes"}, default="dai-cui"
        ``"dai-cui"``: Lancaster's statistic with Dai and Cui's Satterthwaite
        correction for dependence; ``"permutation"``: Lancaster's statistic
        against its resampling distribution, ``(1 + #{T_b >= T}) / (1 + B)``,
        exact when `null_pvalues` come from permutations that make the null
        true (``df`` and ``scale`` are then NaN); ``"fisher"``: Lancaster's (with default
        weights, Fisher's) test assuming independent p-values;
        ``"simes"``: Simes' test, valid for independent and positively
        dependent p-values.

    Returns
    -------
    GlobalTestResult
        ``statistic``, ``pvalue``, ``df``, ``scale``, ``method``,
        ``n_tests`` and ``n_resamples``.

    See Also
    --------
    scipy.stats.combine_pvalues : Combinations of independent p-values.
    PrecisionComparison.global_test : The global null of a comparison, with
        null p-values from paired permutations.

    Notes
    -----
    Lancaster's statistic is ``T = sum_i chi2.isf(p_i, w_i)``, a sum of
    ``chi2(w_i)`` variables under the null. With dependent p-values Dai and
    Cui [1]_ approximate its distribution by ``T / c ~ chi2(nu)`` with
    ``E(T) = sum_i w_i``, ``Var(T) = 2 sum_i w_i + 2 sum_{i<j} cov_ij``,
    ``nu = 2 E(T)^2 / Var(T)`` and ``c = nu / E(T)``; the global p-value is
    ``chi2.sf(c T, nu)``. ``cov_ij`` is the sample covariance of
    ``chi2.isf(p_i, w_i)`` and ``chi2.isf(p_j, w_j)`` over `null_pvalues`;
    the variances keep their null values ``2 w_i``. Positive dependence
    inflates ``Var(T)`` and so lowers ``nu``, which makes the test more
    conservative than Fisher's.

    Simes' global p-value [2]_ is ``min_i L p_(i) / i`` over the sorted
    p-values, the smallest Benjamini-Hochberg adjusted p-value, computed
    with :func:`scipy.stats.false_discovery_control`.

    References
    ----------
    .. [1] Dai, Leeder and Cui (2014). A modified generalized Fisher method
       for combining probabilities from dependent tests. Frontiers in
       Genetics 5, 32.
    .. [2] Simes (1986). An improved Bonferroni procedure for multiple tests
       of significance. Biometrika 73(3), 751-754.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from sklearn_precision_stats import combine_pvalues_dependent
    >>> p = [0.01, 0.04, 0.30]
    >>> res = combine_pvalues_dependent(p, method="fisher")
    >>> round(float(res.pvalue), 5)
    0.00609

    Positively correlated null p-values make the combination more cautious:

    >>> rng = np.random.default_rng(0)
    >>> z = rng.standard_normal((2000, 1)) + 0.5 * rng.standard_normal((2000, 3))
    >>> null = 2 * np.minimum(stats.norm.cdf(z), stats.norm.sf(z))
    >>> res = combine_pvalues_dependent(p, null_pvalues=null)
    >>> bool(res.pvalue > 0.00609), bool(res.df < 6)
    (True, True)
    >>> round(float(combine_pvalues_dependent(p, method="simes").pvalue), 4)
    0.03
    """
    if method not in _COMBINE_METHODS:
        raise ValueError(f"method must be one of {_COMBINE_METHODS}, got {method!r}.")
    pvalues = _check_pvalues(pvalues)
    n_tests = pvalues.shape[0]
    if method == "simes":
        if weights is not None:
            raise ValueError(
                "weights are not used by method='simes'; drop them or use "
                "method='dai-cui' (weighted Lancaster)."
            )
        if null_pvalues is not None:
            raise ValueError(
                "null_pvalues are not used by method='simes' (Simes' test needs "
                "no resampling); drop them or use method='dai-cui'."
            )
        return _simes(pvalues)
    weights = _check_weights(weights, n_tests)
    if null_pvalues is None:
        cov_sum = 0.0
        n_resamples = 0
    elif method == "fisher":
        raise ValueError(
            "null_pvalues are not used by method='fisher', which assumes "
            "independent p-values; use method='dai-cui' to account for the "
            "dependence they describe."
        )
    else:
        null_pvalues = _check_null_pvalues(null_pvalues, n_tests)
        complete = ~np.isnan(null_pvalues).any(axis=1)
        if complete.sum() < 2:
            raise ValueError(
                "null_pvalues needs at least two rows without NaN to estimate "
                f"covariances, got {int(complete.sum())} of {null_pvalues.shape[0]}."
            )
        if method == "permutation":
            return _lancaster_permutation(pvalues, weights, null_pvalues[complete])
        cov_sum = _offdiagonal_covariance_sum(null_pvalues[complete], weights)
        n_resamples = int(complete.sum())
    if method == "permutation":
        raise ValueError(
            "method='permutation' needs null_pvalues: the same tests' p-values "
            "on resamples under the null (e.g. paired permutations)."
        )
    return _lancaster(pvalues, weights, cov_sum, method, n_resamples)


def _lancaster_statistic(pvalues, weights):
    # Null p-values of exactly 0 are raised to the smallest positive float so
    # that the transform stays finite.
    tiny = np.finfo(float).tiny
    return stats.chi2.isf(np.maximum(pvalues, tiny), weights).sum(axis=-1)


def _lancaster_permutation(pvalues, weights, null_pvalues):
    """Lancaster's statistic with its permutation p-value.

    Unlike the Dai-Cui approximation this does not assume each p-value is
    uniform under the null, so it stays exact when many sparse classes make
    the asymptotic per-class p-values non-uniform.
    """
    n_tests = pvalues.shape[0]
    if np.isnan(pvalues).any():
        # A NaN p-value makes the result NaN, as for the other methods.
        return GlobalTestResult(
            math.nan, math.nan, math.nan, math.nan, "permutation", n_tests, null_pvalues.shape[0]
        )
    observed = float(_lancaster_statistic(pvalues, weights))
    null = _lancaster_statistic(null_pvalues, weights)
    # (1 + count) / (1 + B): the observed data are one of the permutations.
    pvalue = (1.0 + np.count_nonzero(null >= observed * (1 - 1e-12))) / (1.0 + null.shape[0])
    return GlobalTestResult(
        observed, float(pvalue), math.nan, math.nan, "permutation", n_tests, null.shape[0]
    )


def _lancaster(pvalues, weights, cov_sum, method, n_resamples, stacklevel=3):
    """Lancaster's statistic with Dai and Cui's moment matching.

    ``cov_sum`` is ``sum_{i != j} cov_ij`` (both triangles), so that
    ``Var(T) = 2 sum w + cov_sum``.
    """
    n_tests = pvalues.shape[0]
    if np.isnan(pvalues).any():
        return GlobalTestResult(
            math.nan, math.nan, math.nan, math.nan, method, n_tests, n_resamples
        )
    lancaster = float(stats.chi2.isf(pvalues, weights).sum())
    mean = float(weights.sum())
    var = 2 * mean + cov_sum
    if not var > 0:
        warnings.warn(
            f"The estimated variance of Lancaster's statistic is {var:.3g} <= 0 "
            "(strongly negative covariances among the null p-values); the "
            "Dai-Cui test is undefined and reported as NaN.",
            UndefinedStatisticWarning,
            stacklevel=stacklevel,
        )
        return GlobalTestResult(
            math.nan, math.nan, math.nan, math.nan, method, n_tests, n_resamples
        )
    df = 2 * mean**2 / var
    scale = df / mean
    statistic = scale * lancaster
    pvalue = float(stats.chi2.sf(statistic, df))
    return GlobalTestResult(statistic, pvalue, df, scale, method, n_tests, n_resamples)


def _offdiagonal_covariance_sum(null_pvalues, weights):
    """``sum_{i != j} cov(chi2.isf(p_i, w_i), chi2.isf(p_j, w_j))``.

    The variances (diagonal) are left out: Dai and Cui keep their null
    values ``2 w_i``.
    """
    # B resampled p-values resolve probabilities no finer than 1 / (B + 1):
    # bounding them there keeps one row of exact zeros (chi2.isf(0) is
    # infinite) from dominating the covariances and collapsing the df.
    resolution = 1.0 / (null_pvalues.shape[0] + 1)
    bounded = np.clip(null_pvalues, resolution, 1.0 - resolution)
    transformed = stats.chi2.isf(bounded, weights)
    if transformed.shape[1] < 2:
        return 0.0
    cov = np.atleast_2d(np.cov(transformed, rowvar=False))
    return float(cov.sum() - np.trace(cov))


def _simes(pvalues):
    n_tests = pvalues.shape[0]
    if np.isnan(pvalues).any():
        value = math.nan
    else:
        # Simes' p-value is the smallest BH-adjusted p-value: the adjusted
        # p_(i) is min_{j >= i} L p_(j) / j.
        value = float(stats.false_discovery_control(pvalues, method="bh").min())
    return GlobalTestResult(value, value, math.nan, math.nan, "simes", n_tests, 0)


def _as_floats(values: Any, name: str) -> np.ndarray:
    """`values` as a float array, or a ValueError naming the argument."""
    try:
        return np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(
            f"{name} must be an array of numbers, got {type(values).__name__}."
        ) from None


def _check_pvalues(pvalues: Any) -> np.ndarray:
    arr = _as_floats(pvalues, "pvalues")
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(
            f"pvalues must be a non-empty 1-D array of p-values, got shape {arr.shape}."
        )
    finite = arr[~np.isnan(arr)]
    if ((finite < 0) | (finite > 1)).any():
        raise ValueError(
            "pvalues must lie in [0, 1]; got values outside it, e.g. "
            f"{finite[(finite < 0) | (finite > 1)][0]!r}."
        )
    return arr


def _check_null_pvalues(null_pvalues: Any, n_tests: int) -> np.ndarray:
    arr = _as_floats(null_pvalues, "null_pvalues")
    if arr.ndim != 2 or arr.shape[1] != n_tests:
        raise ValueError(
            f"null_pvalues must have shape (n_resamples, {n_tests}) (one column "
            f"per p-value in pvalues), got shape {arr.shape}."
        )
    finite = arr[~np.isnan(arr)]
    if ((finite < 0) | (finite > 1)).any():
        raise ValueError("null_pvalues must lie in [0, 1] (NaN marks an undefined test).")
    return arr


def _check_weights(weights: Any, n_tests: int) -> np.ndarray:
    if weights is None:
        return np.full(n_tests, 2.0)
    arr = _as_floats(weights, "weights")
    if arr.shape != (n_tests,):
        raise ValueError(
            f"weights must have one entry per p-value ({n_tests}), got shape {arr.shape}."
        )
    if not (np.isfinite(arr) & (arr > 0)).all():
        raise ValueError(
            "weights must be finite and > 0 (Lancaster's degrees of freedom; "
            "2 gives Fisher's method)."
        )
    return arr


# ---------------------------------------------------------------------------
# Adjusted p-values
# ---------------------------------------------------------------------------


def _holm(pvalues):
    """Holm's step-down adjusted p-values of a 1-D array without NaN."""
    n = pvalues.shape[0]
    order = np.argsort(pvalues, kind="stable")
    stepped = (n - np.arange(n)) * pvalues[order]
    adjusted = np.empty(n)
    adjusted[order] = np.minimum(np.maximum.accumulate(stepped), 1.0)
    return adjusted


def _adjust(pvalues, method):
    """Adjusted p-values; NaN entries stay NaN and do not count as tests."""
    out = np.full(pvalues.shape, np.nan)
    defined = ~np.isnan(pvalues)
    if defined.any():
        p = pvalues[defined]
        if method == "holm":
            out[defined] = _holm(p)
        else:
            out[defined] = stats.false_discovery_control(p, method=method)
    return out


def _adjust_methods(method):
    """The adjustment methods asked for: a name or a list of names."""
    if isinstance(method, str):
        methods = [method]
    elif isinstance(method, (list, tuple)):
        methods = list(method)
    else:
        methods = []  # refused below
    if not methods or any(not isinstance(m, str) or m not in _ADJUST_METHODS for m in methods):
        raise ValueError(
            f"method must be one of {_ADJUST_METHODS} or a list of them, got {method!r}."
        )
    return methods


def adjusted_pvalues(comparison, test="gs", method=("holm", "bh")):
    """The comparison table with per-class adjusted p-values added.

    See :meth:`PairedComparison.adjusted_pvalues`.
    """
    column = _test_column(comparison, test)
    methods = _adjust_methods(method)
    table = comparison.table.copy()
    n_others = len(comparison.classifiers) - 1
    pvalues = table[column].to_numpy(dtype=float).reshape(-1, n_others)
    for m in methods:
        adjusted = np.column_stack([_adjust(pvalues[:, j], m) for j in range(n_others)])
        table[f"{column}_{m}"] = adjusted.reshape(-1)
    return table


def _test_column(comparison, test):
    test = check_test(test, PVALUE_TESTS)
    if test == "wgs" and comparison._clustered:
        raise ValueError(
            "test='wgs' is undefined with repeated records (groups): WGS is NaN "
            "by design there. Use test='gs', which holds its level with clustered rows."
        )
    return TESTS[test].pvalue


# ---------------------------------------------------------------------------
# Resampling units
# ---------------------------------------------------------------------------


def unit_matrix(key_unit, key_class, key_features, n_units, n_classes):
    """Sparse (n_units, n_classes * n_features) matrix of unit features."""
    n_features = key_features.shape[1]
    rows = np.repeat(key_unit, n_features)
    cols = (key_class[:, None] * n_features + np.arange(n_features)).ravel()
    matrix = sparse.csr_array(
        (key_features.ravel(), (rows, cols)), shape=(n_units, n_classes * n_features)
    )
    matrix.eliminate_zeros()
    return matrix


def resampled_sums(matrix, base, multiplicity, resampling, n_resamples, rng, draws=None):
    """Sums of unit features over resamples, in chunks.

    Under ``"permutation"`` each record of a unit is swapped with
    probability 1/2, so the number swapped is Binomial(multiplicity, 1/2),
    independently across units, and the sums are ``base + draws @ matrix``
    with `matrix` holding the change one swap makes. Under ``"bootstrap"``
    the draws are the multinomial counts of each unit among ``n`` records
    drawn with replacement, and `matrix` holds the per-record features.
    `draws` (n_resamples, n_units) may be given instead of drawing them.

    Yields
    ------
    ndarray of shape (chunk, n_columns)
    """
    # Units that no swap changes need no draws (ties a == b in the pair).
    if resampling == "permutation":
        active = np.flatnonzero(np.diff(matrix.indptr))
        matrix, multiplicity = matrix[active], multiplicity[active]
        if draws is not None:
            draws = draws[:, active]
    n_units = multiplicity.shape[0]
    transposed = matrix.T.tocsr()
    total = int(multiplicity.sum())
    chunk = max(1, min(n_resamples, _CHUNK_DRAWS // max(n_units, 1)))
    for start in range(0, n_resamples, chunk):
        size = min(chunk, n_resamples - start)
        if draws is not None:
            block = draws[start : start + size]
        elif resampling == "permutation":
            block = rng.binomial(multiplicity, 0.5, size=(size, n_units))
        else:
            block = rng.multinomial(total, multiplicity / total, size=size)
        yield base + (transposed @ block.T.astype(float)).T


# ---------------------------------------------------------------------------
# Null p-values of one comparison
# ---------------------------------------------------------------------------

# Per-key features of a pair (reference, other): the per-record (success,
# failure) counts ``u[clf, outcome]`` (4) and their products
# ``u[c, a] * u[d, b]`` in the layout of MarginalCounts.cross (16).
_N_PAIR_FEATURES = 20


def _pair_features(u):
    outer = np.einsum("nca,ndb->ncdab", u, u)
    return np.concatenate([u.reshape(-1, 4), outer.reshape(-1, 16)], axis=1)


class _PairPlan(NamedTuple):
    """What resampling one comparison needs.

    The resampled sums have one block of ``_N_PAIR_FEATURES`` columns per
    class; with a `baseline` two more columns follow, the drawn records'
    rows and squared rows, which every class receives times ``baseline[0]``
    and ``baseline[1]`` (the features of a record that does not touch the
    class, per row and per squared row).
    """

    matrix: object  # sparse (n_units, n_columns)
    base: np.ndarray  # (n_columns,)
    multiplicity: np.ndarray
    n_classes: int
    resampling: str
    clustered: bool = False
    baseline: np.ndarray | None = None


def _pair_plan(data, other, resampling):
    """Units and features for resampling the comparison of `other` with the reference.

    With one row per record the units are the cells of the pair's own joint
    table (truth, reference, other); clustered records are resampled by
    groups of identical keys (:class:`_ClusteredPair`).
    """
    if data.records.clustered:
        return _ClusteredPair(data, other, resampling)
    units = data.records.units([0, other])
    role = data.role
    n_classes = data.class_codes.shape[0]
    lookup = np.full(units.n_values, -1, dtype=np.intp)
    lookup[data.class_codes] = np.arange(n_classes)
    key_class = lookup[units.key_class]
    keep = key_class >= 0
    key_class, key_unit = key_class[keep], units.key_unit[keep]
    u = units.x[keep][..., [role.success, role.failure]]
    multiplicity = units.multiplicity
    n_units = multiplicity.shape[0]
    raw = _pair_features(u)
    baseline = _baseline(role)
    unit_rows = units.unit_rows
    if baseline is not None:
        rows = unit_rows[key_unit][:, None]
        raw = raw - rows * baseline[0] - rows**2 * baseline[1]
    columns = n_classes * _N_PAIR_FEATURES
    base = np.zeros(columns)
    if resampling == "permutation":
        # Observed sums plus, per swapped record, the change that swapping
        # its (reference, other) counts makes (none for untouched records).
        features = _pair_features(u[:, ::-1]) - _pair_features(u)
        np.add.at(
            base.reshape(n_classes, _N_PAIR_FEATURES),
            key_class,
            raw * multiplicity[key_unit][:, None],
        )
        if baseline is not None:
            base += np.tile(
                multiplicity @ unit_rows * baseline[0] + multiplicity @ unit_rows**2 * baseline[1],
                n_classes,
            )
        matrix = unit_matrix(key_unit, key_class, features, n_units, n_classes)
        plan_baseline = None
    else:
        # Each drawn record adds its own features.
        matrix = unit_matrix(key_unit, key_class, raw, n_units, n_classes)
        if baseline is not None:
            extra = sparse.csr_array(np.column_stack([unit_rows, unit_rows**2]))
            matrix = sparse.hstack([matrix, extra], format="csr")
            base = np.zeros(columns + 2)
        plan_baseline = baseline
    return _PairPlan(matrix, base, multiplicity, n_classes, resampling, False, plan_baseline)


def _baseline(role):
    """Features of one row that does not touch a class, per row and per squared row.

    Only NPV and specificity model true negatives; for them a record that
    does not touch a class has all its ``R`` rows there, each a true
    negative for both classifiers: it adds ``R * baseline[0] + R**2 *
    baseline[1]``. None for the other measures.
    """
    e = np.array([role.success == TN, role.failure == TN], dtype=float)
    if not e.any():
        return None
    per_row = _pair_features(np.broadcast_to(e, (1, 2, 2)))[0]
    linear = np.where(np.arange(_N_PAIR_FEATURES) < 4, per_row, 0.0)
    return np.stack([linear, per_row - linear])


class _ClusteredPair:
    """Resampling the comparison of `other` with the reference over clustered records.

    A key's features depend only on its class and its record's counts of
    the two categories for both classifiers (and, for the bootstrap with
    true negatives, its record's rows), so keys are grouped by these
    (:func:`..engine._units.key_groups`). Under a permutation a swapped
    record adds the change that swapping its (reference, other) counts
    makes, which is zero for keys where both classifiers agree; the sums
    are the observed ones plus these changes. Under the bootstrap each
    drawn record adds its own features.
    """

    clustered = True
    baseline = None  # the sums come with the untouched records' features

    def __init__(self, data, other, resampling):
        role = data.role
        self.resampling = resampling
        self.n_classes = data.class_codes.shape[0]
        self.row_baseline = _baseline(role) if resampling == "bootstrap" else None
        with_rows = self.row_baseline is not None
        digits = [(c, (u,)) for c in (0, other) for u in (role.success, role.failure)]
        self.groups = key_groups(
            data.records,
            data.class_codes,
            digits + [ROWS] * with_rows,
            self.features,
            _N_PAIR_FEATURES,
            with_rows=with_rows,
        )
        observed = data.counts.take_classifiers([0, other])
        self.observed = np.concatenate(
            [
                np.stack([observed.successes, observed.failures], axis=-1).reshape(-1, 4),
                observed.cross.reshape(-1, 16),
            ],
            axis=1,
        ).reshape(-1)

    def features(self, k, digits):
        digits = digits.astype(float)
        u = digits[:, :4].reshape(-1, 2, 2)
        if self.resampling == "permutation":
            return _pair_features(u[:, ::-1]) - _pair_features(u)
        f = _pair_features(u)
        if self.row_baseline is not None:
            # Net of what the key's rows would add untouched (the baseline,
            # which every record adds to every class); each record's own
            # key carries its rows R (first digit) and R**2.
            rows = digits[:, 4:5]
            f -= rows * self.row_baseline[0] + rows**2 * self.row_baseline[1]
            own = k == self.n_classes
            f[own] = 0.0
            f[own, 0], f[own, 1] = digits[own, 0], digits[own, 0] ** 2
        return f

    def sums(self, n_resamples, rng, draws=None):
        """The pair's features on resamples, shape (n_resamples, n_classes * 20)."""
        sums = resampled_group_sums(self.groups, self.resampling, n_resamples, rng, draws)
        if self.row_baseline is not None:
            rows = sums[:, -1, :2]
            sums = sums[:, :-1] + rows[:, :1, None] * self.row_baseline[0]
            sums += rows[:, 1:, None] * self.row_baseline[1]
        sums = sums.reshape(n_resamples, -1)
        return sums + self.observed if self.resampling == "permutation" else sums


def _counts_from_sums(sums, plan):
    """The pair's MarginalCounts from resampled sums (see :class:`_PairPlan`)."""
    n_classes = plan.n_classes
    s = sums[..., : n_classes * _N_PAIR_FEATURES]
    s = s.reshape(sums.shape[:-1] + (n_classes, _N_PAIR_FEATURES))
    if plan.baseline is not None:
        s = (
            s
            + sums[..., -2, None, None] * plan.baseline[0]
            + sums[..., -1, None, None] * plan.baseline[1]
        )
    return MarginalCounts(
        s[..., [0, 2]], s[..., [1, 3]], s[..., 4:].reshape(s.shape[:-1] + (2, 2, 2, 2))
    )


def resampled_pvalues(plan, column, n_resamples, rng, draws=None):
    """P-values of one comparison on resamples, shape (n_resamples, n_classes).

    `draws` (n_resamples, n_units) are the resamples themselves: records
    swapped per unit (permutation) or times each unit is drawn (bootstrap).
    """
    if isinstance(plan, _ClusteredPair):
        blocks = [plan.sums(n_resamples, rng, draws)]
    else:
        blocks = resampled_sums(
            plan.matrix, plan.base, plan.multiplicity, plan.resampling, n_resamples, rng, draws
        )
    out = []
    for sums in blocks:
        counts = _counts_from_sums(sums, plan)
        stats_ = pairwise_statistics(counts, clustered=plan.clustered)
        out.append(stats_[column][..., 0])
    return np.concatenate(out, axis=0)


# ---------------------------------------------------------------------------
# The global test of a comparison
# ---------------------------------------------------------------------------


def _check_n_resamples(n_resamples):
    return _check_integer(n_resamples, "n_resamples", 2, "; 1000 or more is usual")


def _check_data(comparison, what):
    data = comparison._data
    if data is None or data.records is None:
        raise ValueError(
            f"{what} needs the comparison's records, which were not kept: with "
            "many classes and classifiers, counts keep only their agreement sums. "
            "Compare the arrays instead (compare_precision(y_true, y_preds))."
        )
    return data


def _class_weights(weights, classes):
    if weights is None:
        return np.full(len(classes), 2.0)
    if isinstance(weights, Mapping):
        missing = [c for c in classes if c not in weights]
        if missing:
            raise ValueError(
                f"weights has no entry for class(es) {missing}; give a weight to "
                "every class of the comparison."
            )
        weights = [weights[c] for c in classes]
    return _check_weights(weights, len(classes))


def global_test(
    comparison,
    method="dai-cui",
    test="gs",
    n_resamples=1000,
    random_state=None,
    weights=None,
    resampling="permutation",
):
    """Global null test of a comparison; see :meth:`PairedComparison.global_test`."""
    if method not in _COMBINE_METHODS:
        raise ValueError(f"method must be one of {_COMBINE_METHODS}, got {method!r}.")
    if resampling not in _RESAMPLINGS:
        raise ValueError(f"resampling must be one of {_RESAMPLINGS}, got {resampling!r}.")
    column = _test_column(comparison, test)
    if comparison._role.pooled:
        raise ValueError(
            f"global_test combines per-class tests, but {comparison.metric} pools the "
            "classes into one test: read its p-value from the table instead."
        )
    classes = np.asarray(comparison.classes).tolist()
    if method == "simes":
        if weights is not None:
            raise ValueError("weights are not used by method='simes'; drop them.")
    else:
        weights = _class_weights(weights, classes)
    if method == "permutation" and resampling != "permutation":
        raise ValueError(
            "method='permutation' needs resampling='permutation': a bootstrap "
            "does not make the null true; use method='dai-cui' with it."
        )
    if method in ("dai-cui", "permutation"):
        n_resamples = _check_n_resamples(n_resamples)
        data = _check_data(comparison, f"global_test(method={method!r})")
        rng = check_random_state_any(random_state)
    others = comparison.classifiers[1:]
    pvalues = comparison.table[column].to_numpy(dtype=float).reshape(len(classes), -1)
    if method == "permutation" and comparison.cov_type != "robust":
        # The permuted p-values use the robust covariance; an exact test
        # refers the same statistic on the observed data to them.
        robust = pairwise_statistics(data.counts, clustered=data.records.clustered)[column]
        pvalues = np.where(np.isnan(pvalues), np.nan, robust)
    results = []
    for j, name in enumerate(others):
        p = pvalues[:, j]
        defined = ~np.isnan(p)
        if not defined.all():
            rest = (
                "the global test combines the other classes only."
                if defined.any()
                else "no class is left to combine, so the global test is NaN."
            )
            warnings.warn(
                f"The {test} p-value of {name!r} vs {comparison.reference!r} is NaN "
                f"for class(es) {[c for c, d in zip(classes, defined, strict=False) if not d]}; "
                + rest,
                UndefinedStatisticWarning,
                stacklevel=3,
            )
        if not defined.any():
            results.append(GlobalTestResult(math.nan, math.nan, math.nan, math.nan, method, 0))
            continue
        if method == "simes":
            results.append(_simes(p[defined]))
            continue
        w = weights[defined]
        if method == "fisher":
            results.append(_lancaster(p[defined], w, 0.0, method, 0))
            continue
        plan = _pair_plan(data, j + 1, resampling)
        null = resampled_pvalues(plan, column, n_resamples, rng)[:, defined]
        complete = ~np.isnan(null).any(axis=1)
        if not complete.all():
            warnings.warn(
                f"{int((~complete).sum())} of {n_resamples} resamples of {name!r} "
                f"vs {comparison.reference!r} gave an undefined {test} p-value for "
                "some class and were left out of the covariance estimate.",
                UndefinedStatisticWarning,
                stacklevel=3,
            )
        if complete.sum() < 2:
            results.append(
                GlobalTestResult(
                    math.nan,
                    math.nan,
                    math.nan,
                    math.nan,
                    method,
                    int(defined.sum()),
                    int(complete.sum()),
                )
            )
            continue
        if method == "permutation":
            results.append(_lancaster_permutation(p[defined], w, null[complete]))
            continue
        cov_sum = _offdiagonal_covariance_sum(null[complete], w)
        if resampling == "permutation":
            _check_null_mean(null[complete], w, name, comparison.reference, test)
        results.append(
            _lancaster(p[defined], w, cov_sum, method, int(complete.sum()), stacklevel=4)
        )
    resampled = method in ("dai-cui", "permutation")
    return _stack_results(results, others, test, resampling if resampled else None)


def _check_null_mean(null, weights, name, reference, test):
    """Warn when the per-class p-values are clearly not uniform under the null.

    Dai and Cui take ``E(T) = sum w``, which holds when each p-value is
    uniform. Asymptotic p-values of sparse classes (few predictions) are
    not, and over many classes the excess adds up: the permutation
    distribution of ``T`` shows it. Warn when its mean exceeds ``sum w`` by
    more than a quarter of its standard deviation, beyond Monte Carlo error.
    """
    lancaster = _lancaster_statistic(null, weights)
    sd = lancaster.std(ddof=1)
    if not sd > 0:
        return
    shift = (lancaster.mean() - weights.sum()) / sd
    if shift > max(0.25, 3 / np.sqrt(lancaster.shape[0])):
        warnings.warn(
            f"Under the permutation null, Lancaster's statistic of {name!r} vs "
            f"{reference!r} averages {lancaster.mean():.4g} instead of "
            f"{weights.sum():.4g} ({shift:.2f} standard deviations more): the "
            f"per-class {test} p-values are not uniform, as happens when many "
            "classes have few predictions, and the Dai-Cui p-value may be too "
            "small. Use method='permutation' (exact), or compare fewer, "
            "better-populated classes (labels=...).",
            UserWarning,
            stacklevel=4,
        )


def _stack_results(results, classifiers, test, resampling):
    """One result whose numbers are arrays over compared classifiers (scalars for one)."""

    def field(name, dtype):
        values = np.array([getattr(r, name) for r in results], dtype=dtype)
        return values[0].item() if len(results) == 1 else values

    return GlobalTestResult(
        statistic=field("statistic", float),
        pvalue=field("pvalue", float),
        df=field("df", float),
        scale=field("scale", float),
        method=results[0].method,
        n_tests=field("n_tests", np.int64),
        n_resamples=field("n_resamples", np.int64),
        classifiers=tuple(classifiers),
        test=test,
        resampling=resampling,
    )
