"""McNemar's test and Salzberg's sign test for the accuracy of two classifiers.

Both tests look only at the discordant records, those that one classifier
gets right and the other gets wrong. With ``groups`` (the record id of each
row when cross-validation is repeated), :func:`mcnemar_test` uses the
clustered statistic of Durkalski et al. (2003), which is the robust GEE score
test of equal accuracy with clusters = records, and reduces to McNemar's
chi-square when every record has one row.
"""

import math
import warnings
from collections.abc import Hashable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats

from ..engine._accumulator import ComparisonCounts
from ..engine._labels import StreamingLabelEncoder, encode_labels
from ..utils._validation import _check_aligned_indexes, _check_groups, _shown
from ._common import (
    ConfidenceInterval,
    IntervalResult,
    _check_alternative,
    _label_array,
    _warn_undefined,
)

__all__ = ["McNemarResult", "SignTestResult", "mcnemar_test", "sign_test"]

_METHODS = ("exact", "midp", "asymptotic", "corrected")
# Below this many records (clusters) the clustered test's size drifts from
# its nominal level, as for any sandwich variance (Mancl and DeRouen 2001).
_FEW_CLUSTERS = 30


@dataclass(frozen=True, repr=False)
class McNemarResult(IntervalResult):
    """Result of :func:`mcnemar_test`.

    Attributes
    ----------
    statistic : float
        For ``method="exact"`` and ``"midp"``, the binomial statistic
        ``min(n_a_only, n_b_only)``, as statsmodels'
        :func:`~statsmodels.stats.contingency_tables.mcnemar` gives it (the
        p-value is symmetric, so is the statistic; the direction is in
        ``n_a_only`` and ``n_b_only``); otherwise the chi-square statistic.
    pvalue : float
        Two-sided p-value.
    df : int or None
        Degrees of freedom of the chi-square statistic (1), or None for the
        binomial methods.
    method : str
        The method used.
    n_a_only, n_b_only : int
        Rows that only classifier a (resp. b) predicts correctly.
    accuracy_a, accuracy_b : float
        Accuracies over all rows.
    n_groups : int or None
        Number of records (clusters) when ``groups`` was given.
    standard_error : float
        Standard error of ``accuracy_a - accuracy_b`` (clustered by record
        when ``groups`` was given); ``confidence_interval()`` is the Wald
        interval for ``accuracy_a - accuracy_b`` with it, NaN with a warning
        when it is 0 (every record differs the same way).
    """

    statistic: float
    pvalue: float
    df: int | None
    method: str
    n_a_only: int
    n_b_only: int
    accuracy_a: float
    accuracy_b: float
    n_groups: int | None = None
    standard_error: float = field(default=math.nan, repr=False)

    @property
    def difference(self) -> float:
        """Difference in accuracy, ``accuracy_a - accuracy_b``."""
        return self.accuracy_a - self.accuracy_b

    def _interval_inputs(self):
        # Wald interval with the paired (record-clustered) sandwich SE,
        # whatever method gave the p-value; undefined when the test is.
        se = self.standard_error if math.isfinite(self.statistic) else math.nan
        if se == 0:
            # Every record differs the same way: the interval would collapse
            # onto the difference. The test itself is defined.
            _warn_undefined(
                "The confidence interval of the accuracy difference",
                "the difference is the same on every record (e.g. every row "
                "favours the same classifier), so its standard error is 0",
                stacklevel=5,  # the caller of confidence_interval()
            )
            se = math.nan
        return self.difference, se, "two-sided", stats.norm


@dataclass(frozen=True, repr=False)
class SignTestResult(IntervalResult):
    """Result of :func:`sign_test`.

    Attributes
    ----------
    statistic : int
        ``n_a_only``, the number of rows classifier a gets right and
        classifier b gets wrong.
    pvalue : float
        Binomial p-value for the chosen ``alternative``.
    n_a_only, n_b_only : int
        Discordant rows won by a and by b.
    alternative : str
        The alternative hypothesis.

    ``confidence_interval()`` is the Clopper-Pearson interval for the share
    of discordant rows won by a, one-sided when ``alternative`` is.
    """

    statistic: int
    pvalue: float
    n_a_only: int
    n_b_only: int
    alternative: str

    @property
    def proportion(self) -> float:
        """Share of the discordant rows won by classifier a."""
        n = self.n_a_only + self.n_b_only
        return self.n_a_only / n if n else math.nan

    def _interval(self, level):
        # Clopper-Pearson, one-sided like the alternative (scipy's binomtest).
        n = self.n_a_only + self.n_b_only
        if n == 0:
            return ConfidenceInterval(math.nan, math.nan)
        ci = stats.binomtest(self.n_a_only, n, 0.5, alternative=self.alternative).proportion_ci(
            confidence_level=level, method="exact"
        )
        return ConfidenceInterval(float(ci.low), float(ci.high))


_LABEL_ARGUMENTS = ("y_true", "y_pred_a", "y_pred_b")


def _correctness(y_true, y_pred_a, y_pred_b, groups=None):
    """Validate the three label arrays and return who got each row right."""
    _check_aligned_indexes(y_true=y_true, y_pred_a=y_pred_a, y_pred_b=y_pred_b, groups=groups)
    y_true = _label_array(y_true, "y_true", "truth")
    y_pred_a = _label_array(y_pred_a, "y_pred_a")
    y_pred_b = _label_array(y_pred_b, "y_pred_b")
    for name, pred in (("y_pred_a", y_pred_a), ("y_pred_b", y_pred_b)):
        if pred.shape[0] != y_true.shape[0]:
            raise ValueError(
                f"y_true and {name} have inconsistent numbers of samples "
                f"({y_true.shape[0]} and {pred.shape[0]}); both classifiers must "
                "predict every row of y_true, in the same order."
            )
    if y_true.shape[0] == 0:
        raise ValueError("y_true is empty; at least one row is needed.")
    # Rejects a mix of string and numeric labels and continuous scores passed
    # by mistake instead of predicted labels.
    try:
        return _compare_labels((y_true, y_pred_a, y_pred_b))
    except ValueError as exc:
        raise ValueError(
            "y_true, y_pred_a and y_pred_b must hold class labels of one kind "
            f"(all numbers or all strings, no continuous scores); {exc} Pass "
            "the predicted labels, estimator.predict(X), for both classifiers."
        ) from exc


def _compare_labels(arrays):
    """``(y_pred_a == y_true, y_pred_b == y_true)`` after checking the label kinds.

    Integer and bool labels need no check at all, and integral floats only
    a finiteness and integrality check; only other labels (objects, bytes)
    go through the label encoder, whose integer codes are then compared.
    """
    kinds = [arr.dtype.kind for arr in arrays]
    numeric = [name for name, kind in zip(_LABEL_ARGUMENTS, kinds, strict=True) if kind in "biuf"]
    if len(numeric) == 3:
        for arr, name in zip(arrays, _LABEL_ARGUMENTS, strict=True):
            if arr.dtype.kind == "f":
                StreamingLabelEncoder._check_floats(arr, name)
    elif all(kind == "U" for kind in kinds):
        pass
    elif numeric and any(kind == "U" for kind in kinds):
        strings = [name for name in _LABEL_ARGUMENTS if name not in numeric]

        def hold(names):
            return " and ".join(names) + (" hold" if len(names) > 1 else " holds")

        raise ValueError(
            f"Mix of label types: {hold(strings)} strings but {hold(numeric)} numbers."
        )
    else:
        (y_true, y_pred_a, y_pred_b), _ = encode_labels(*arrays, names=_LABEL_ARGUMENTS)
        return y_pred_a == y_true, y_pred_b == y_true
    y_true, y_pred_a, y_pred_b = arrays
    return y_pred_a == y_true, y_pred_b == y_true


def _sums_from_arrays(y_true, y_pred_a, y_pred_b, groups):
    """The counts McNemar's test needs, from the label arrays."""
    correct_a, correct_b = _correctness(y_true, y_pred_a, y_pred_b, groups)
    n_rows = correct_a.shape[0]
    if groups is not None:
        groups = _check_groups(_label_array(groups, "groups", "groups"), n_rows)
    right_a = int(np.count_nonzero(correct_a))
    right_b = int(np.count_nonzero(correct_b))
    # Rows only a gets right; those only b gets right follow from the totals.
    n_a_only = int(np.count_nonzero(correct_a > correct_b))
    sums = {
        "n_a_only": n_a_only,
        "n_b_only": n_a_only - right_a + right_b,
        "correct_a": right_a,
        "correct_b": right_b,
        "n_rows": n_rows,
        "per_cluster": None,
        "sizes": None,
    }
    if groups is not None:
        # Records are hashed, not sorted: only the per-record sums matter.
        record, _ = pd.factorize(groups)
        diff = correct_a.view(np.int8) - correct_b.view(np.int8)
        sums["per_cluster"] = np.bincount(record, weights=diff)
        sums["sizes"] = np.bincount(record)
    return sums


def _sums_from_counts(counts, y_pred_a, y_pred_b, groups):
    """The counts McNemar's test needs, from a ComparisonCounts."""
    if groups is not None:
        raise ValueError(
            "groups must be None when y_true is a ComparisonCounts: the counts "
            "already hold the record of each row (build them with groups=...)."
        )
    for name, value in (("y_pred_a", y_pred_a), ("y_pred_b", y_pred_b)):
        # A name (arrays and lists are not hashable); names may be str, int, tuple.
        known = isinstance(value, Hashable) and value in counts.classifiers
        if not known:
            raise ValueError(
                f"{name} must name a classifier of the counts when y_true is a "
                f"ComparisonCounts, got {_shown(value)}; the classifiers are "
                f"{list(counts.classifiers)}."
            )
    if counts.n_rows == 0:
        raise ValueError("y_true is empty (the counts hold no rows); at least one row is needed.")
    return counts.mcnemar_sums(y_pred_a, y_pred_b)


def _squared_error_sum(n_rows, n_a_only, n_b_only, per_cluster, sizes):
    """``sum_i (d_i - s_i * delta)**2`` over records, from exact integer sums.

    ``d_i`` is record i's rows won by a minus rows won by b, ``s_i`` its
    rows and ``delta = (n_a_only - n_b_only) / n_rows``. Expanded into
    ``sum d_i**2``, ``sum d_i s_i`` and ``sum s_i**2``, which are integers
    summed exactly in any order, it is the same number from arrays and from
    counts, and free of the rounding of a long floating-point sum.
    """
    if per_cluster is None:
        s_dd, s_ds, s_ss = n_a_only + n_b_only, n_a_only - n_b_only, n_rows
    else:
        s_dd = int(per_cluster @ per_cluster)
        s_ds, s_ss = int(per_cluster @ sizes), int(sizes @ sizes)
    difference = n_a_only - n_b_only
    # n_rows**2 times the sum, an integer (Python ints do not overflow).
    scaled = n_rows**2 * s_dd - 2 * n_rows * difference * s_ds + difference**2 * s_ss
    return scaled / n_rows**2


def mcnemar_test(
    y_true: ArrayLike | ComparisonCounts,
    y_pred_a: ArrayLike | str,
    y_pred_b: ArrayLike | str,
    *,
    method: str | None = None,
    groups: ArrayLike | None = None,
) -> McNemarResult:
    """McNemar's test of equal accuracy of two classifiers on the same rows.

    Only the discordant rows count: ``n_a_only`` rows that classifier a gets
    right and b gets wrong, and ``n_b_only`` the other way round. Under the
    null hypothesis of equal accuracy both are equally likely.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,) or ComparisonCounts
        True labels (any hashable values; multiclass is fine, a prediction
        is correct when it equals the true label). Or the
        :class:`~sklearn_precision_stats.ComparisonCounts` of the rows
        (built from arrays, chunks or files), with `y_pred_a` and
        `y_pred_b` the names of two of its classifiers: the result is the
        same as from the arrays it counted, clustered when the counts are.
    y_pred_a, y_pred_b : array-like of shape (n_rows,) or str
        Predicted labels of the two classifiers, row by row; classifier
        names when `y_true` is a ComparisonCounts.
    method : {"exact", "midp", "asymptotic", "corrected"}, default=None
        ``"exact"``: two-sided binomial test of ``n_a_only`` out of the
        discordant rows. ``"midp"``: its mid-p version, which is less
        conservative and recommended by Fagerland et al. (2013).
        ``"asymptotic"``: the chi-square statistic
        ``(n_a_only - n_b_only)**2 / (n_a_only + n_b_only)``.
        ``"corrected"``: the same with Edwards' continuity correction, the
        square of McNemar's continuity-corrected ``Z``.
        None means ``"exact"``, or ``"asymptotic"`` when ``groups`` is given.
    groups : array-like of shape (n_rows,), default=None
        Record id of each row when records repeat, e.g. the out-of-fold
        predictions of L repetitions of K-fold cross-validation stacked
        together. The test is then the clustered McNemar test (Durkalski et
        al. 2003), and only ``method="asymptotic"`` is available. Must be
        None with a ComparisonCounts, which holds the records itself.

    Returns
    -------
    result : McNemarResult
        ``statistic``, ``pvalue``, ``df``, the discordant counts, both
        accuracies and ``confidence_interval()`` for their difference.

    Notes
    -----
    With ``groups``, let ``d_i`` be the number of rows of record ``i`` that
    only a gets right minus the number that only b gets right. The statistic
    is ``(sum_i d_i)**2 / sum_i d_i**2``, chi-square with 1 df. It is the
    robust score test of a logistic GEE of correctness on the classifier
    (independence working correlation, clusters = records), and equals the
    ``"asymptotic"`` statistic when each record has a single row.

    Pooling L repetitions of cross-validation as ``L * n`` independent rows
    multiplies the discordant counts by about L but not their variance, so
    the plain test rejects far too often; the clustered test holds its size.
    Either way the test conditions on the data set: it does not include the
    variance due to the choice of training sets.

    When no row is discordant, the statistic, p-value and confidence
    interval are NaN and an
    :class:`~sklearn_precision_stats.exceptions.UndefinedStatisticWarning`
    is issued. With ``groups``, the same happens when there is a single
    record (the sandwich variance needs at least as many records as the
    model's 2 parameters) or when the discordant rows cancel within every
    record; fewer than 30 records give a ``UserWarning``, as the sandwich
    variance is then too small and the test liberal. Pandas inputs whose
    indexes differ are an error: rows are paired by position. The continuity
    correction is not applied when the discordant counts are equal (as in
    R's ``mcnemar.test``), so the statistic is then 0.

    References
    ----------
    McNemar, Q. (1947). Note on the sampling error of the difference between
    correlated proportions or percentages. Psychometrika 12, 153-157.

    Edwards, A. L. (1948). Note on the "correction for continuity" in testing
    the significance of the difference between correlated proportions.
    Psychometrika 13, 185-187.

    Durkalski, V. L., Palesch, Y. Y., Lipsitz, S. R. and Rust, P. F. (2003).
    Analysis of clustered matched-pair data. Statistics in Medicine 22,
    2417-2428.

    Fagerland, M. W., Lydersen, S. and Laake, P. (2013). The McNemar test for
    binary matched-pairs data: mid-p and asymptotic are better than exact
    conditional. BMC Medical Research Methodology 13, 91.

    Mancl, L. A. and DeRouen, T. A. (2001). A covariance estimator for GEE
    with improved small-sample properties. Biometrics 57, 126-134.

    Examples
    --------
    >>> from sklearn_precision_stats import mcnemar_test
    >>> y_true = [0, 1, 1, 0, 1, 1, 0, 1, 0, 1]
    >>> y_a    = [0, 1, 1, 0, 1, 1, 0, 1, 1, 1]
    >>> y_b    = [1, 0, 1, 0, 0, 1, 1, 0, 1, 1]
    >>> res = mcnemar_test(y_true, y_a, y_b)
    >>> res.n_a_only, res.n_b_only
    (5, 0)
    >>> round(res.pvalue, 4)
    0.0625
    >>> res = mcnemar_test(y_true, y_a, y_b, method="midp")
    >>> print(f"{res.pvalue:.5f}")
    0.03125

    The same test from counts accumulated chunk by chunk:

    >>> from sklearn_precision_stats import ComparisonCounts
    >>> counts = ComparisonCounts.from_arrays(y_true[:6], {"a": y_a[:6], "b": y_b[:6]})
    >>> counts = counts.update(y_true[6:], {"a": y_a[6:], "b": y_b[6:]})
    >>> res = mcnemar_test(counts, "a", "b", method="midp")
    >>> res.n_a_only, res.n_b_only, f"{res.pvalue:.5f}"
    (5, 0, '0.03125')
    """
    result, few_clusters, undefined = _mcnemar(y_true, y_pred_a, y_pred_b, method, groups)
    if few_clusters is not None:
        warnings.warn(few_clusters, UserWarning, stacklevel=2)
    if undefined is not None:
        _warn_undefined(*undefined)
    return result


def _mcnemar(y_true, y_pred_a, y_pred_b, method, groups):
    """:func:`mcnemar_test` without its warnings, which it returns instead.

    Returns the result, the ``UserWarning`` message on too few records (or
    None) and, when the test is undefined, ``(what, reason)`` for
    :func:`_warn_undefined` (or None). :func:`mcnemar_test` says them at
    its caller's line; :func:`cochrans_q_test` gathers those of all its
    pairs into one warning each, without touching the warning filters.
    """
    from_counts = isinstance(y_true, ComparisonCounts)
    clustered = y_true.clustered if isinstance(y_true, ComparisonCounts) else groups is not None
    if method is None:
        method = "asymptotic" if clustered else "exact"
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}.")
    if from_counts:
        sums = _sums_from_counts(y_true, y_pred_a, y_pred_b, groups)
    else:
        sums = _sums_from_arrays(y_true, y_pred_a, y_pred_b, groups)
    if clustered and method != "asymptotic":
        raise ValueError(
            f"method={method!r} is not available with groups: the discordant "
            "rows of one record are not independent, so only the clustered "
            "chi-square test applies. Use method='asymptotic' (or None)."
        )
    n_rows, n_a_only, n_b_only = sums["n_rows"], sums["n_a_only"], sums["n_b_only"]
    per_cluster, sizes = sums["per_cluster"], sums["sizes"]
    if per_cluster is not None:
        # Integers (counts of rows), held exactly.
        per_cluster = np.asarray(per_cluster).astype(np.int64)
        sizes = np.asarray(sizes).astype(np.int64)
    n_discordant = n_a_only + n_b_only
    accuracy_a = sums["correct_a"] / n_rows
    accuracy_b = sums["correct_b"] / n_rows

    n_groups = few_clusters = None
    if per_cluster is not None:
        n_groups = int(per_cluster.shape[0])
        if 2 <= n_groups < _FEW_CLUSTERS:
            few_clusters = (
                f"groups holds only {n_groups} records (clusters); the clustered "
                f"McNemar test's size is unreliable with fewer than {_FEW_CLUSTERS} "
                "(it rejects too often). groups must be the record id of each row, "
                "not the fold or repetition."
            )
    # Sandwich SE of the accuracy difference, residuals summed per record.
    squares = _squared_error_sum(n_rows, n_a_only, n_b_only, per_cluster, sizes)
    standard_error = math.sqrt(max(squares, 0.0)) / n_rows

    common = dict(
        method=method,
        n_a_only=n_a_only,
        n_b_only=n_b_only,
        accuracy_a=accuracy_a,
        accuracy_b=accuracy_b,
        n_groups=n_groups,
        standard_error=standard_error,
    )
    df = None if method in ("exact", "midp") else 1
    if n_discordant == 0:
        undefined = (
            "McNemar's test",
            "no discordant rows: the two classifiers are right and wrong on exactly the same rows",
        )
        return McNemarResult(math.nan, math.nan, df, **common), few_clusters, undefined

    if method in ("exact", "midp"):
        k = min(n_a_only, n_b_only)
        tail = stats.binom.cdf(k, n_discordant, 0.5)
        if method == "midp":
            # Half the probability of the observed count; equals 1 at k = n/2.
            pvalue = 2.0 * (tail - 0.5 * stats.binom.pmf(k, n_discordant, 0.5))
        else:
            pvalue = 2.0 * tail
        return McNemarResult(float(k), float(min(1.0, pvalue)), df, **common), few_clusters, None

    if per_cluster is None:
        numerator = float(n_a_only - n_b_only)
        denominator = float(n_discordant)
        if method == "corrected" and numerator != 0:
            numerator = abs(numerator) - 1.0
    else:
        if n_groups is None or n_groups < 2:
            undefined = (
                "The clustered McNemar test",
                "groups holds a single record (cluster), fewer than the 2 "
                "parameters of the model, so the clustered variance cannot be "
                "estimated; groups must be the record id of each row, not the "
                "fold or repetition",
            )
            return McNemarResult(math.nan, math.nan, df, **common), few_clusters, undefined
        numerator = float(n_a_only - n_b_only)
        denominator = float(per_cluster @ per_cluster)
        if denominator == 0:
            undefined = (
                "The clustered McNemar test",
                "the discordant rows cancel within every record (each record has "
                "as many rows won by a as by b), so the clustered variance is zero",
            )
            return McNemarResult(math.nan, math.nan, df, **common), few_clusters, undefined
    statistic = numerator**2 / denominator
    result = McNemarResult(float(statistic), float(stats.chi2.sf(statistic, 1)), df, **common)
    return result, few_clusters, None


def sign_test(
    y_true: ArrayLike | ComparisonCounts,
    y_pred_a: ArrayLike | str,
    y_pred_b: ArrayLike | str,
    *,
    alternative: str = "greater",
) -> SignTestResult:
    """Salzberg's sign test: is classifier a more accurate than classifier b?

    Among the discordant rows, count the ``n_a_only`` that a gets right and b
    gets wrong. Under the null hypothesis that the two are equally accurate
    on this data, it is binomial with ``n_a_only + n_b_only`` trials and
    probability 1/2 (Salzberg 1997).

    Parameters
    ----------
    y_true : array-like of shape (n_rows,) or ComparisonCounts
        True labels, or the
        :class:`~sklearn_precision_stats.ComparisonCounts` of the rows with
        `y_pred_a` and `y_pred_b` the names of two of its classifiers.
    y_pred_a, y_pred_b : array-like of shape (n_rows,) or str
        Predicted labels of the two classifiers, row by row; classifier
        names when `y_true` is a ComparisonCounts.
    alternative : {"greater", "less", "two-sided"}, default="greater"
        ``"greater"``: a is more accurate than b, the one-sided test of the
        test of Salzberg (1997) with a = system II and b = system I.
        ``"two-sided"`` gives the exact McNemar test.

    Returns
    -------
    result : SignTestResult
        ``statistic`` (``n_a_only``), ``pvalue``, the discordant counts and
        ``confidence_interval()`` for the share of discordant rows a wins.

    Notes
    -----
    The p-value for ``"greater"`` is ``P[S >= n_a_only]`` for
    ``S ~ Binomial(n_a_only + n_b_only, 1/2)``, computed by
    :func:`scipy.stats.binomtest`. The rows must be independent: for
    repeated cross-validation use :func:`mcnemar_test` with ``groups``.
    When no row is discordant the p-value is NaN, with an
    :class:`~sklearn_precision_stats.exceptions.UndefinedStatisticWarning`.

    References
    ----------
    Salzberg, S. L. (1997). On comparing classifiers: pitfalls to avoid and a
    recommended approach. Data Mining and Knowledge Discovery 1, 317-328.

    Examples
    --------
    >>> from sklearn_precision_stats import sign_test
    >>> y_true = [0, 1, 1, 0, 1, 1, 0, 1, 0, 1]
    >>> y_a    = [0, 1, 1, 0, 1, 1, 0, 1, 1, 1]
    >>> y_b    = [1, 0, 1, 0, 0, 1, 1, 0, 1, 1]
    >>> res = sign_test(y_true, y_a, y_b)
    >>> res.statistic, round(res.pvalue, 5)
    (5, 0.03125)
    """
    _check_alternative(alternative)
    if isinstance(y_true, ComparisonCounts):
        sums = _sums_from_counts(y_true, y_pred_a, y_pred_b, None)
    else:
        sums = _sums_from_arrays(y_true, y_pred_a, y_pred_b, None)
    n_a_only, n_b_only = sums["n_a_only"], sums["n_b_only"]
    n = n_a_only + n_b_only
    if n == 0:
        _warn_undefined("The sign test", "no discordant rows: nothing to count")
        pvalue = math.nan
    else:
        pvalue = float(stats.binomtest(n_a_only, n, 0.5, alternative=alternative).pvalue)
    return SignTestResult(n_a_only, pvalue, n_a_only, n_b_only, alternative)
