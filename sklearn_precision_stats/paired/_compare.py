"""Per-class paired comparison of precision and recall: the public functions."""

import warnings

import numpy as np

from ..engine._counts import _encode_predictions, encode_groups, marginal_counts
from ..engine._marginal_model import diagnose, omnibus_statistics, pairwise_statistics
from ..exceptions import UndefinedStatisticWarning
from ..results._paired_comparison import ComparisonData, PrecisionComparison, build_tables
from ..utils._validation import _check_alpha, _check_groups, _check_predictions

__all__ = ["compare_precision", "compare_recall"]

_ENGINES = ("closed-form", "statsmodels")


def compare_precision(
    y_true,
    y_preds,
    *,
    reference=None,
    groups=None,
    labels=None,
    alpha=0.05,
    engine="closed-form",
):
    """Compare classifiers' precision class by class, on the same records.

    For every class (one-vs-rest) and every classifier other than the
    reference, tests whether the classifier's precision (positive predictive
    value) differs from the reference's, taking into account that both were
    tested on the same records: the generalized score test (GS), the
    weighted generalized score test (WGS), the empirical Wald test of the
    GEE marginal model with its odds ratio, and the relative precision (RP)
    with its confidence interval. With three or more classifiers,
    ``.omnibus`` also tests all of them at once per class.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,)
        True labels (any hashable values: ints, strings, ...).
    y_preds : dict or list of (str, array-like)
        Classifier name -> predicted labels, each aligned with `y_true` row
        by row. At least two classifiers.
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
    alpha : float, default=0.05
        Confidence intervals have level ``1 - alpha``.
    engine : {"closed-form", "statsmodels"}, default="closed-form"
        ``"closed-form"`` computes the GEE results exactly from sufficient
        statistics in O(n) time; ``"statsmodels"`` runs the paper's
        Algorithms 1 and 2 literally through statsmodels GEE (slow; for
        checking). Relative precision and WGS always use their closed forms.

    Returns
    -------
    PrecisionComparison
        ``.table`` (one row per class and compared classifier), ``.omnibus``
        (one row per class), ``.summary()`` and scorer-like access
        ``result["score"]``, ``result["wald"]``, ``result["wgs"]``,
        ``result["rp"]`` and ``result["gee"]``.

    Warns
    -----
    UndefinedStatisticWarning
        When a statistic is undefined (a classifier never predicts a class,
        a precision of 0 or 1, identical predictions); it is then NaN and the
        warning names the class, the classifier and the reason.

    See Also
    --------
    compare_recall : The same comparison for recall (sensitivity).
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
    `groups`, each classifier's own score variance is replaced by its null
    model value ``P (1 - P) sum_i m_i^2`` (``m_i`` = the record's rows in the
    class's subset, ``P`` the pooled precision), which treats a record's
    repeated rows as fully correlated. It reduces to Kosinski's statistic on
    paired rows and, like every other statistic here, is unchanged when each
    record's rows are repeated identically.

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
    >>> print(f"{result.get(1)['rp']:.4f}")
    0.7292
    """
    return _compare(y_true, y_preds, reference, groups, labels, alpha, engine, target="precision")


def compare_recall(
    y_true,
    y_preds,
    *,
    reference=None,
    groups=None,
    labels=None,
    alpha=0.05,
    engine="closed-form",
):
    """Compare classifiers' recall (sensitivity) class by class.

    The counterpart of :func:`compare_precision`: for class ``k`` the
    marginal model conditions on the true class (the records of class
    ``k``) instead of the prediction, so the response is "predicted
    ``k``". On one row per record the generalized score test is McNemar's
    test on the class's records; with `groups` every statistic is
    cluster-robust.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,)
        True labels.
    y_preds : dict or list of (str, array-like)
        Classifier name -> predicted labels aligned with `y_true`.
    reference : str, default=None
        Reference classifier; the first when None.
    groups : array-like of shape (n_rows,), default=None
        Record id of each row when records repeat.
    labels : array-like, default=None
        Classes to report, in this order.
    alpha : float, default=0.05
        Confidence intervals have level ``1 - alpha``.
    engine : {"closed-form", "statsmodels"}, default="closed-form"
        As in :func:`compare_precision`.

    Returns
    -------
    PrecisionComparison
        With ``metric="recall"``: the table columns are named ``recall``,
        ``recall_reference``, ``n_true``, ``n_true_reference`` and ``rr*``
        (relative recall) instead of ``precision``, ..., ``rp*``.

    See Also
    --------
    compare_precision : The same comparison for precision.
    mcnemar_test : McNemar's test for accuracy.

    Examples
    --------
    >>> from sklearn_precision_stats import compare_recall
    >>> y  = [0, 0, 1, 1, 1, 1, 0, 1, 0, 1, 0, 1]
    >>> nb = [0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 0]
    >>> rf = [0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1]
    >>> result = compare_recall(y, {"rf": rf, "nb": nb}, reference="rf")
    >>> result.table[["class", "recall", "recall_reference", "score_pvalue"]]
       class    recall  recall_reference  score_pvalue
    0      0  0.400000          0.800000      0.317311
    1      1  0.714286          0.857143      0.563703
    """
    return _compare(y_true, y_preds, reference, groups, labels, alpha, engine, target="recall")


def _compare(y_true, y_preds, reference, groups, labels, alpha, engine, target, stacklevel=4):
    """Validate, compute and wrap; `stacklevel` makes warnings point at the
    caller of the public function (the default: compare_precision's caller)."""
    alpha = _check_alpha(alpha)
    if engine not in _ENGINES:
        raise ValueError(f"engine must be one of {_ENGINES}, got {engine!r}.")
    y_true, names, preds = _check_predictions(y_true, y_preds, reference)
    groups = _check_groups(groups, y_true.shape[0])
    data = prepare_comparison(y_true, preds, groups, labels, target)
    return comparison_from_data(data, names, alpha, engine, stacklevel)


def prepare_comparison(y_true, preds, groups, labels, target):
    """Encode validated inputs and compute the sufficient statistics.

    Returns
    -------
    ComparisonData
    """
    encoded = _encode_predictions(y_true, preds)
    if groups is None:
        record_codes, n_records = None, y_true.shape[0]
    else:
        record_codes, n_records = encode_groups(groups)
    counts, present = marginal_counts(encoded, record_codes, n_records, target)
    class_codes = _class_codes(encoded.values, present, labels)
    return ComparisonData(
        encoded, record_codes, n_records, class_codes, counts.take_classes(class_codes), target
    )


def comparison_from_data(data, names, alpha, engine="closed-form", stacklevel=2):
    """Run the engine on prepared data and wrap the result."""
    counts = data.counts
    pairwise = pairwise_statistics(counts, alpha)
    omnibus = omnibus_statistics(counts)
    pairwise = {key: np.array(value, dtype=float) for key, value in pairwise.items()}
    if engine == "statsmodels":
        from ..engine._statsmodels_engine import gee_statistics

        pairwise, omnibus = gee_statistics(data, pairwise, omnibus, alpha)
    classes = data.encoded.values[data.class_codes]
    class_list = classes.tolist()
    for message in diagnose(counts, pairwise, omnibus, names, class_list, data.target):
        warnings.warn(message, UndefinedStatisticWarning, stacklevel=stacklevel)
    table, omni = build_tables(pairwise, omnibus, classes, names, data.target)
    return PrecisionComparison(
        table,
        omni,
        classes=classes,
        classifiers=names,
        alpha=alpha,
        metric=data.target,
        engine=engine,
        n_rows=data.encoded.y_true.shape[0],
        n_records=data.n_records,
        data=data,
    )


def _class_codes(values, present, labels):
    if labels is None:
        return np.flatnonzero(present)
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.size == 0:
        raise ValueError(
            "labels must be a non-empty 1-D list of classes, e.g. labels=[0, 1]; "
            "pass None to compare every class."
        )
    if len(set(labels.tolist())) != labels.size:
        raise ValueError(f"labels contains duplicates: {labels.tolist()}.")
    lookup = {v: i for i, v in enumerate(values.tolist())}
    codes = []
    for label in labels.tolist():
        code = lookup.get(label)
        if code is None or not present[code]:
            seen = values[present].tolist()
            raise ValueError(
                f"label {label!r} in labels does not occur in y_true or in any "
                f"prediction; the classes present are {seen}. Remove it from "
                "labels."
            )
        codes.append(code)
    return np.asarray(codes, dtype=np.intp)
