"""Per-class paired comparisons: the public functions, one per measure.

Every function is a thin layer over one engine: validate, encode the labels,
compute the category counts once, let the measure's role pick its two
categories, and wrap the closed-form statistics in a frozen
:class:`~sklearn_precision_stats.results.PairedComparison`.
"""

import warnings
from collections.abc import Hashable
from numbers import Real

import numpy as np

from .._typing import ArrayLike, Predictions
from ..engine._accumulator import ComparisonCounts, counts_in_place_of_arrays
from ..engine._bias_reduced import bias_reduced_meat
from ..engine._dask import counts_from_dask, is_dask_collection
from ..engine._diagnostics import diagnose
from ..engine._marginal_model import omnibus_statistics, pairwise_statistics
from ..engine._pipeline import data_from_counts, prepare_comparison
from ..engine._roles import get_role
from ..exceptions import UndefinedStatisticWarning
from ..metrics._multilabel import compare_multilabel, is_indicator_matrix
from ..results._paired_comparison import PairedComparison
from ..utils._sklearn_compat import Interval, StrOptions, validate_params
from ..utils._validation import (
    _check_groups,
    _check_predictions,
)

__all__ = [
    "compare_accuracy",
    "compare_npv",
    "compare_precision",
    "compare_recall",
    "compare_specificity",
]

_ENGINES = ("closed-form", "statsmodels")
_COV_TYPES = ("robust", "bias_reduced")
# Below this many clusters the robust covariance is noticeably biased.
_FEW_CLUSTERS = 30

# One declaration of the parameters every compare_* function shares.
_PARAMETERS = {
    "y_true": ["array-like", ComparisonCounts],
    "y_preds": [dict, list, tuple, "array-like", None],  # array-like: a DataFrame
    "reference": [Hashable, None],
    "groups": ["array-like", None],
    "labels": ["array-like", None],
    "confidence_level": [Interval(Real, 0, 1, closed="neither")],
    "engine": [StrOptions(set(_ENGINES))],
    "cov_type": [StrOptions(set(_COV_TYPES))],
}

# Frames between the engine's warnings.warn and the user's call: this
# module's comparison_from_data and _compare, the public function and
# scikit-learn's validate_params wrapper.
_STACKLEVEL = 5


@validate_params(_PARAMETERS, prefer_skip_nested_validation=True)
def compare_precision(
    y_true: ArrayLike | ComparisonCounts,
    y_preds: Predictions | None = None,
    *,
    reference: Hashable | None = None,
    groups: ArrayLike | None = None,
    labels: ArrayLike | None = None,
    confidence_level: float = 0.95,
    engine: str = "closed-form",
    cov_type: str = "robust",
) -> PairedComparison:
    """Compare classifiers' precision class by class, on the same records.

    For every class (one-vs-rest) and every classifier other than the
    reference, tests whether the classifier's precision (positive predictive
    value) differs from the reference's, taking into account that both were
    tested on the same records: the generalized score test (GS), the
    weighted generalized score test (WGS), the empirical Wald test of the
    GEE marginal model with its odds ratio, and the relative precision (RP)
    with its confidence interval. With three or more classifiers,
    ``.omnibus`` also tests all of them at once per class. The difference of
    precisions comes with a sandwich confidence interval.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,), Dask array or ComparisonCounts
        True labels (any hashable values: ints, strings, ...). A Dask array
        or Dask DataFrame column is counted chunk by chunk on the active
        scheduler, without materialising it; a :class:`ComparisonCounts`
        (the sufficient statistics, built chunk by chunk or from a
        contingency table) replaces `y_true`, `y_preds` and `groups`.
    y_preds : dict, list of (str, array-like) or DataFrame, default=None
        Classifier name -> predicted labels, each aligned with `y_true` row
        by row; or a DataFrame (pandas, polars) with one column of
        predictions per classifier, named by its column. At least two
        classifiers. None only with counts.
    reference : str, default=None
        Name of the reference classifier; the first one when None. Every
        comparison is "classifier vs reference": ``rp = P / P_ref`` and the
        odds ratio is ``odds(P) / odds(P_ref)``.
    groups : array-like of shape (n_rows,), default=None
        Record id of each row, when records contribute several rows (stacked
        predictions from repeated cross-validation). Every statistic is then
        cluster-robust, clustered by record. None means one row per record.
    labels : array-like, default=None
        The classes to report, in this order. Each must occur in `y_true` or
        in a prediction. By default every class seen, sorted.
    confidence_level : float, default=0.95
        Level of the confidence intervals.
    engine : {"closed-form", "statsmodels"}, default="closed-form"
        ``"closed-form"`` computes the GEE results exactly from sufficient
        statistics in O(n) time; ``"statsmodels"`` runs the paper's
        Algorithms 1 and 2 literally through statsmodels GEE (slow; for
        checking; it needs the arrays, not counts or a Dask collection).
        Relative precision and WGS always use their closed forms.
    cov_type : {"robust", "bias_reduced"}, default="robust"
        Covariance of the Wald test, odds ratio, ratio and difference:
        the robust sandwich, or Mancl and DeRouen's bias-reduced sandwich,
        which holds the level better with few clusters (records) under
        `groups`. The score tests use the robust one.

    Returns
    -------
    PairedComparison
        Frozen: ``.table`` (one row per class and compared classifier),
        ``.omnibus`` (one row per class), ``.summary()`` and access by test:
        ``result["gs"]``, ``result["wgs"]``, ``result["wald"]``,
        ``result["ratio"]`` (the relative precision, RP) and
        ``result["diff"]``.

    Warns
    -----
    UndefinedStatisticWarning
        When a statistic is undefined (a classifier never predicts a class,
        a precision of 0 or 1, identical predictions); it is then NaN, and
        one warning per call names every such class, classifier and reason.

    See Also
    --------
    compare_npv, compare_recall, compare_specificity, compare_accuracy :
        The same comparison for the other measures.
    PairedPrecisionComparator : Fit and compare estimators on a test set.
    CVPrecisionComparator : Compare estimators by cross-validation.

    Notes
    -----
    For class ``k`` the rows whose prediction is ``k`` are modelled as
    ``logit Pr(y = k) = a + b_c`` (``b_ref = 0``) by GEE with an independence
    working correlation and robust (sandwich) covariance, clustered by record
    [1]_ [2]_. The model is saturated, so its estimates, sandwich and robust
    score test have closed forms in per-record counts; they equal
    statsmodels' and R geepack's GEE fits. GS (Leisenring et al. [1]_) is
    the robust score test, WGS is Kosinski's [3]_ weighted variant, and RP
    (Moskowitz and Pepe [4]_) uses the delta method on the same sandwich.
    The tests condition on the test records: they do not include the
    variance due to the choice of training set.

    WGS is defined for paired rows (one row per record and classifier). With
    `groups` that repeat records its null variance makes it conservative
    (about 1% rejections at the 5% level in simulations), so it is NaN by
    design; use GS, which holds its level with clustered rows. The summary's
    notes say so, rather than a warning on every call.

    References
    ----------
    .. [1] Leisenring, Alonzo and Pepe (2000). Comparisons of predictive
       values of binary medical diagnostic tests for paired designs.
       Biometrics 56(2), 345-351.
    .. [2] Gondara. Classifier comparison using precision. arXiv:1609.09471.
    .. [3] Kosinski (2013). A weighted generalized score statistic for
       comparison of predictive values of diagnostic tests. Statistics in
       Medicine 32(6), 964-977.
    .. [4] Moskowitz and Pepe (2006). Comparing the predictive values of
       diagnostic tests: sample size and analysis for paired study designs.
       Clinical Trials 3(3), 272-279.

    Examples
    --------
    >>> from sklearn_precision_stats import compare_precision
    >>> y  = [0, 0, 1, 1, 1, 1, 0, 1, 0, 1, 0, 1]
    >>> nb = [0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 0]
    >>> rf = [0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1]
    >>> result = compare_precision(y, {"rf": rf, "nb": nb}, reference="rf")
    >>> result.table[["class", "classifier", "precision", "precision_reference"]]
       class classifier  precision  precision_reference
    0      0         nb      0.500             0.800000
    1      1         nb      0.625             0.857143
    >>> print(f"{result.get(1)['ratio']:.4f}")
    0.7292
    >>> stat, p = result["gs"][["statistic", "pvalue"]].iloc[1]
    """
    return _compare(
        y_true,
        y_preds,
        reference,
        groups,
        labels,
        confidence_level,
        engine,
        "precision",
        cov_type=cov_type,
    )


def _measure_doc(measure, rows, response, example, notes=""):
    """The docstring of a compare_* function other than compare_precision."""
    return f"""Compare classifiers' {measure} class by class, on the same records.

    The counterpart of :func:`compare_precision` for {measure}: for class
    ``k`` (one-vs-rest) the marginal model is fitted on {rows}, with
    response "{response}". Everything else is the same: the generalized
    score test (GS), the weighted GS (WGS), the empirical Wald test with its
    odds ratio, the ratio of the two classifiers' {measure} with a log-scale
    interval, the difference with a sandwich interval, omnibus tests for
    three or more classifiers, and cluster-robust statistics with `groups`.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,), Dask array or ComparisonCounts
        True labels (any hashable values: ints, strings, ...). A Dask array
        or Dask DataFrame column is counted chunk by chunk on the active
        scheduler, without materialising it; a :class:`ComparisonCounts`
        (the sufficient statistics, built chunk by chunk or from a
        contingency table) replaces `y_true`, `y_preds` and `groups`.
    y_preds : dict, list of (str, array-like) or DataFrame, default=None
        Classifier name -> predicted labels, each aligned with `y_true` row
        by row; or a DataFrame (pandas, polars) with one column of
        predictions per classifier, named by its column. At least two
        classifiers. None only with counts.
    reference : str, default=None
        Name of the reference classifier; the first one when None.
    groups : array-like of shape (n_rows,), default=None
        Record id of each row when records contribute several rows; every
        statistic is then cluster-robust, clustered by record.
    labels : array-like, default=None
        The classes to report, in this order; every class seen when None.
    confidence_level : float, default=0.95
        Level of the confidence intervals.
    engine : {{"closed-form", "statsmodels"}}, default="closed-form"
        As in :func:`compare_precision`.
    cov_type : {{"robust", "bias_reduced"}}, default="robust"
        As in :func:`compare_precision`.

    Returns
    -------
    PairedComparison
        With ``metric="{example[0]}"``: the measure's columns are
        ``{example[0]}``, ``{example[0]}_reference`` (with their intervals),
        ``n`` and ``n_reference`` count {rows}; the test columns are those of
        every measure.

    Warns
    -----
    UndefinedStatisticWarning
        When a statistic is undefined; it is NaN, and one warning per call
        names every such class, classifier and reason.

    See Also
    --------
    compare_precision : The same comparison for precision, with the details.
{notes}
    Examples
    --------
    >>> from sklearn_precision_stats import {example[1]}
    >>> y  = [0, 0, 1, 1, 1, 1, 0, 1, 0, 1, 0, 1]
    >>> nb = [0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 0]
    >>> rf = [0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1]
    >>> result = {example[1]}(y, {{"rf": rf, "nb": nb}}, reference="rf")
    >>> result.table[["class", "{example[0]}", "{example[0]}_reference", "gs_pvalue"]]
{example[2]}
    """


@validate_params(_PARAMETERS, prefer_skip_nested_validation=True)
def compare_npv(
    y_true: ArrayLike | ComparisonCounts,
    y_preds: Predictions | None = None,
    *,
    reference: Hashable | None = None,
    groups: ArrayLike | None = None,
    labels: ArrayLike | None = None,
    confidence_level: float = 0.95,
    engine: str = "closed-form",
    cov_type: str = "robust",
) -> PairedComparison:
    return _compare(
        y_true,
        y_preds,
        reference,
        groups,
        labels,
        confidence_level,
        engine,
        "npv",
        cov_type=cov_type,
    )


@validate_params(_PARAMETERS, prefer_skip_nested_validation=True)
def compare_recall(
    y_true: ArrayLike | ComparisonCounts,
    y_preds: Predictions | None = None,
    *,
    reference: Hashable | None = None,
    groups: ArrayLike | None = None,
    labels: ArrayLike | None = None,
    confidence_level: float = 0.95,
    engine: str = "closed-form",
    cov_type: str = "robust",
) -> PairedComparison:
    return _compare(
        y_true,
        y_preds,
        reference,
        groups,
        labels,
        confidence_level,
        engine,
        "recall",
        cov_type=cov_type,
    )


@validate_params(_PARAMETERS, prefer_skip_nested_validation=True)
def compare_specificity(
    y_true: ArrayLike | ComparisonCounts,
    y_preds: Predictions | None = None,
    *,
    reference: Hashable | None = None,
    groups: ArrayLike | None = None,
    labels: ArrayLike | None = None,
    confidence_level: float = 0.95,
    engine: str = "closed-form",
    cov_type: str = "robust",
) -> PairedComparison:
    return _compare(
        y_true,
        y_preds,
        reference,
        groups,
        labels,
        confidence_level,
        engine,
        "specificity",
        cov_type=cov_type,
    )


@validate_params(_PARAMETERS, prefer_skip_nested_validation=True)
def compare_accuracy(
    y_true: ArrayLike | ComparisonCounts,
    y_preds: Predictions | None = None,
    *,
    reference: Hashable | None = None,
    groups: ArrayLike | None = None,
    labels: ArrayLike | None = None,
    confidence_level: float = 0.95,
    engine: str = "closed-form",
    cov_type: str = "robust",
) -> PairedComparison:
    return _compare(
        y_true,
        y_preds,
        reference,
        groups,
        labels,
        confidence_level,
        engine,
        "accuracy",
        cov_type=cov_type,
    )


compare_npv.__doc__ = _measure_doc(
    "negative predictive value (NPV)",
    "the rows the classifier does not assign to the class",
    "the truth is not k",
    (
        "npv",
        "compare_npv",
        """       class    npv  npv_reference  gs_pvalue
    0      0  0.625       0.857143   0.247451
    1      1  0.500       0.800000   0.327545""",
    ),
)
compare_recall.__doc__ = _measure_doc(
    "recall (sensitivity)",
    "the rows of the class",
    "the classifier predicts k",
    (
        "recall",
        "compare_recall",
        """       class    recall  recall_reference  gs_pvalue
    0      0  0.400000          0.800000   0.317311
    1      1  0.714286          0.857143   0.563703""",
    ),
)
compare_specificity.__doc__ = _measure_doc(
    "specificity",
    "the rows not of the class",
    "the classifier does not predict k",
    (
        "specificity",
        "compare_specificity",
        """       class  specificity  specificity_reference  gs_pvalue
    0      0     0.714286               0.857143   0.563703
    1      1     0.400000               0.800000   0.317311""",
    ),
)
compare_accuracy.__doc__ = _measure_doc(
    "accuracy",
    "all rows, classes pooled into one row of the table (class ``'all'``)",
    "the prediction is correct",
    (
        "accuracy",
        "compare_accuracy",
        """      class  accuracy  accuracy_reference  gs_pvalue
    0   all  0.583333            0.833333   0.256839""",
    ),
    notes="""
    Notes
    -----
    On one row per record the generalized score test of two classifiers is
    McNemar's test without continuity correction
    (``statsmodels.stats.contingency_tables.mcnemar(exact=False,
    correction=False)``), and so is Cochran's Q. With three or more
    classifiers the omnibus score test is ``U' V^-1 U``, where ``U`` holds
    each classifier's correct predictions minus their mean over classifiers
    and ``V = sum_i d_i d_i'`` sums the within-record deviations ``d_i`` of
    the correctness indicators from the record's mean. Cochran's Q
    (``statsmodels.stats.contingency_tables.cochrans_q``) is the same form
    with ``V`` replaced by its exchangeable version ``S / (C - 1) (I - J /
    C)``, ``S = trace V``: it assumes every pair of classifiers is equally
    correlated, while the score test estimates each pair's correlation (and
    allows clustered rows through `groups`).
""",
)


def _compare(
    y_true,
    y_preds,
    reference,
    groups,
    labels,
    confidence_level,
    engine,
    metric,
    stacklevel=_STACKLEVEL,
    cov_type="robust",
    diagnostics=None,
):
    """Validate, compute and wrap.

    `stacklevel` counts the frames from the engine's warning to the user's
    call (the default suits the public functions). `diagnostics`: see
    :func:`comparison_from_data`.
    """
    if is_indicator_matrix(y_true):
        # Multilabel indicator matrices: one binary problem per label.
        return compare_multilabel(
            y_true, y_preds, reference, groups, labels, confidence_level, engine, metric,
            stacklevel, cov_type, _compare,
        )  # fmt: skip
    role = get_role(metric)
    counts = counts_in_place_of_arrays(y_true, y_preds, groups)
    if counts is None and is_dask_collection(y_true):
        counts = counts_from_dask(y_true, y_preds, groups=groups)
    if counts is not None:
        if engine == "statsmodels":
            raise ValueError(
                "engine='statsmodels' refits the GEE on every row, which counts (and "
                "Dask collections, counted chunk by chunk) do not keep; use "
                "engine='closed-form', which gives the same results, or pass the arrays."
            )
        return comparison_from_counts(
            counts,
            metric,
            reference=reference,
            labels=labels,
            confidence_level=confidence_level,
            stacklevel=stacklevel,
            cov_type=cov_type,
        )
    # The engine's label encoder finds missing labels among objects and
    # reads pandas categoricals and string arrays without Python objects.
    y_true, names, preds = _check_predictions(
        y_true, y_preds, reference, for_encoder=True, groups=groups
    )
    groups = _check_groups(groups, y_true.shape[0])
    data = prepare_comparison(
        y_true,
        preds,
        groups,
        labels,
        role,
        ["y_true", *(f"y_preds[{n!r}]" for n in names)],
        keep_rows=engine == "statsmodels",
    )
    return comparison_from_data(
        data, names, confidence_level, engine, stacklevel, cov_type, diagnostics
    )


def comparison_from_data(
    data,
    names,
    confidence_level=0.95,
    engine="closed-form",
    stacklevel=2,
    cov_type="robust",
    diagnostics=None,
):
    """Statistics, warnings and the result, from prepared data.

    Shared by the comparison of arrays and of counts. `data` (a
    ComparisonData) carries the role's sums and the records that the
    resampling methods and the clustered bias-reduced covariance need; its
    rows, if any, are for the statsmodels engine and are not kept in the
    result. When `diagnostics` is a list, the messages about undefined
    statistics are appended to it instead of being warned (the scorer
    reads one statistic and speaks only of that one).
    """
    role, counts, n_rows, n_records = data.role, data.counts, data.n_rows, data.n_records
    classes = np.array(["all"], dtype=object) if role.pooled else data.values[data.class_codes]
    clustered = n_records < n_rows
    meat = None
    if cov_type == "bias_reduced":
        if clustered and data.records is None:
            raise ValueError(
                "cov_type='bias_reduced' with clustered rows needs each record's counts, "
                "which these counts do not keep; pass the arrays (and groups) instead."
            )
        meat = bias_reduced_meat(counts, data if clustered else None)
    pairwise = pairwise_statistics(counts, meat, clustered=clustered)
    omnibus = omnibus_statistics(counts, meat)
    if engine == "statsmodels":
        from ..engine._statsmodels_engine import gee_statistics

        pairwise = {key: np.array(value, dtype=float) for key, value in pairwise.items()}
        pairwise, omnibus = gee_statistics(data, pairwise, omnibus, cov_type)
    messages = []
    if clustered:
        messages += _few_clusters(pairwise, omnibus, n_records, n_rows, len(names), cov_type)
    if not (clustered and n_records < 2):  # else _few_clusters said it all
        messages += diagnose(counts, pairwise, omnibus, names, classes.tolist(), role, clustered)
    if diagnostics is not None:
        diagnostics.extend(messages)
        messages = []
    if messages:  # one warning per call, with every reason
        warnings.warn(" ".join(messages), UndefinedStatisticWarning, stacklevel=stacklevel)
    return PairedComparison(
        pairwise,
        omnibus,
        classes=classes,
        classifiers=names,
        role=role,
        confidence_level=float(confidence_level),
        engine=engine,
        n_rows=n_rows,
        n_records=n_records,
        cov_type=cov_type,
        data=data._replace(rows=None),
    )


def _few_clusters(pairwise, omnibus, n_clusters, n_rows, n_classifiers, cov_type="robust"):
    """Blank what too few clusters cannot support; say why, and warn when few.

    A sandwich needs more clusters than the model has parameters (two per
    pairwise comparison, one per classifier for the omnibus tests); below
    that its meat is singular and every test would come out as a confident
    p-value of 0 or a score of exactly 1. With fewer than about 30 clusters
    the robust covariance is biased downwards: in simulations the Wald test
    rejected 15% at 5% with 5 clusters.
    """
    messages = []
    if n_clusters < 2:
        for key in pairwise:
            if key.endswith(("_stat", "_pvalue", "_se", "_se_log")) or key in ("log_or", "ratio"):
                pairwise[key] = np.full_like(np.asarray(pairwise[key], dtype=float), np.nan)
    if n_clusters < max(n_classifiers, 2):
        for key in ("gs_stat", "gs_pvalue", "wald_stat", "wald_pvalue"):
            omnibus[key] = np.full_like(np.asarray(omnibus[key], dtype=float), np.nan)
        messages.append(
            f"groups has {n_clusters} distinct record(s): a cluster-robust covariance "
            f"needs more clusters than parameters ({n_classifiers} for the omnibus "
            f"tests{', 2 per comparison' if n_clusters < 2 else ''}), so those "
            "statistics are NaN. groups must hold the record id of each row."
        )
    elif n_clusters < _FEW_CLUSTERS:
        looks_like_folds = n_rows / n_clusters >= 10
        messages.append(
            f"groups has only {n_clusters} distinct records (clusters): cluster-robust "
            "tests are liberal with fewer than about 30 (the Wald test rejected about "
            "15% at 5% with 5 clusters)"
            + ("; cov_type='bias_reduced' helps." if cov_type == "robust" else ".")
            + (
                f" Each holds {n_rows / n_clusters:.0f} rows on average: groups looks "
                "like fold or repeat ids, but it must hold the record id of each row."
                if looks_like_folds
                else ""
            )
        )
    return messages


def comparison_from_counts(
    counts,
    metric="precision",
    *,
    reference=None,
    labels=None,
    confidence_level=0.95,
    stacklevel=2,
    cov_type="robust",
):
    """A :class:`PairedComparison` from counts, as ``compare_<metric>`` gives from arrays.

    Parameters
    ----------
    counts : ComparisonCounts
    metric : {"precision", "npv", "recall", "specificity", "accuracy"}
    reference : str, default=None
        The reference classifier; the first of ``counts.classifiers`` when None.
    labels : array-like, default=None
        The classes to report, in this order.
    confidence_level : float, default=0.95
    stacklevel : int, default=2
        Of the warnings on undefined statistics.
    cov_type : {"robust", "bias_reduced"}, default="robust"

    Returns
    -------
    PairedComparison
        The same as from the arrays, ``global_test`` and ``at_prevalence``
        included: they resample the counts' joint table (or, for clustered
        rows, their per-record sums), never the rows.

    Examples
    --------
    >>> from sklearn_precision_stats import ComparisonCounts
    >>> from sklearn_precision_stats.paired._compare import comparison_from_counts
    >>> y  = [0, 0, 1, 1, 1, 1, 0, 1, 0, 1, 0, 1]
    >>> nb = [0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 0]
    >>> rf = [0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1]
    >>> counts = ComparisonCounts.from_arrays(y, {"rf": rf, "nb": nb})
    >>> result = comparison_from_counts(counts, "precision", reference="rf")
    >>> result.table[["class", "classifier", "precision", "precision_reference"]]
       class classifier  precision  precision_reference
    0      0         nb      0.500             0.800000
    1      1         nb      0.625             0.857143
    """
    names, data = data_from_counts(counts, metric, reference, labels)
    # One frame more than comparison_from_data counts: this function's.
    return comparison_from_data(
        data, names, confidence_level, stacklevel=stacklevel + 1, cov_type=cov_type
    )
