"""Paired comparison of any measure of the confusion matrix: the public function."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import replace
from numbers import Integral, Real
from typing import Any

import numpy as np
from scipy import special, stats

from ..engine._accumulator import ComparisonCounts, counts_in_place_of_arrays
from ..exceptions import UndefinedStatisticWarning
from ..results._metric_comparison import MetricComparison, percentile_interval
from ..utils._random_state import check_random_state_any
from ..utils._sklearn_compat import Interval, RealNotInt, StrOptions, validate_params
from ..utils._validation import (
    _check_aligned_indexes,
    _check_groups,
    _check_predictions,
    reference_order,
)
from ._bootstrap import (
    bca_interval,
    bootstrap_pvalue,
    bootstrap_replicates,
    nan_mean,
    nan_std,
    rounding_level,
)
from ._cells import Units, tabulate, tabulate_multilabel, tabulate_samples, units_from_counts
from ._definitions import NAMED, PER_CLASS, SAMPLES, WHOLE_MATRIX, MeasureSpec
from ._delta import delta_moments
from ._multilabel import check_multilabel, is_indicator_matrix

__all__ = ["compare_metric"]

# Relative size of the part of the differences outside their covariance's
# range above which the omnibus test is undefined (rounding stays far below).
_RANGE_TOLERANCE = 1e-8
_AVERAGES = ("binary", "micro", "macro", "weighted", "samples")
_METHODS = ("delta", "bootstrap")
_KAPPA_WEIGHTS = (None, "linear", "quadratic")
# A callable's name heads the table's columns of its values, unless it would
# overwrite another column (``diff`` would give ``diff_ci_low``) or says nothing.
_NOT_A_NAME = frozenset(
    ("<lambda>", "class", "classifier", "diff", "diff_se", "diff_ci_low", "diff_ci_high")
    + ("diff_pvalue", "diff_bca_low", "diff_bca_high")
)
# Below this many clusters the cluster-robust variance is noticeably biased.
_FEW_CLUSTERS = 30
# Frames from this module's warnings.warn to the caller: _warn, compare_metric,
# scikit-learn's validate_params wrapper.
_STACKLEVEL = 4


@validate_params(
    {
        "y_true": ["array-like", ComparisonCounts],
        "y_preds": [dict, list, tuple, None],
        "metric": [StrOptions(set(NAMED)), callable],
        "average": [StrOptions(set(_AVERAGES)), None],
        "reference": [Hashable, None],
        "groups": ["array-like", None],
        "labels": ["array-like", None],
        "method": [StrOptions(set(_METHODS))],
        "n_resamples": [Interval(Integral, 2, None, closed="left")],
        "confidence_level": [Interval(RealNotInt, 0, 1, closed="neither")],
        "random_state": ["random_state", np.random.Generator],
    },
    prefer_skip_nested_validation=True,
)
def compare_metric(
    y_true: Any,
    y_preds: Mapping[str, Any] | Sequence[tuple[str, Any]] | None = None,
    *,
    metric: str | Callable[[np.ndarray], Any] = "f1",
    average: str | None = None,
    reference: str | None = None,
    groups: Any = None,
    labels: Any = None,
    method: str = "delta",
    n_resamples: int = 9999,
    confidence_level: float = 0.95,
    random_state: Any = None,
    **metric_params: Any,
) -> MetricComparison:
    """Compare F1, MCC, kappa or any measure of the confusion matrix on the same records.

    For each classifier, the measure and its interval, and the difference
    from the reference (classifier minus reference) with its standard
    error, interval and two-sided p-value; with three or more classifiers
    a Wald test that all are equal. Every number comes from the joint
    (truth, reference prediction, classifier predictions) table, or from
    each record's cells with `groups`, never from the rows again.

    Parameters
    ----------
    y_true : array-like of shape (n_rows,) or (n_rows, n_labels), or ComparisonCounts
        True labels; a multilabel indicator matrix (one binary problem per
        label, one row per label in the table); or a
        :class:`ComparisonCounts`, with `y_preds` and `groups` None: its
        joint table, or with clustered rows each record's confusion
        diagonal and margins, is all a measure needs (clustered counts do
        not give weighted kappa or a callable measure).
    y_preds : dict or list of (name, array-like) pairs, default=None
        Each classifier's predicted labels (or indicator matrices) for the
        same rows.
    metric : str or callable, default="f1"
        ``"precision"``, ``"recall"``, ``"specificity"``, ``"npv"``,
        ``"f1"``, ``"fbeta"`` (pass ``beta=``), ``"jaccard"``,
        ``"informedness"`` (recall + specificity - 1), ``"markedness"``
        (precision + NPV - 1): one value per class (one-vs-rest);
        ``"accuracy"``, ``"balanced_accuracy"``, ``"mcc"``, ``"cohen_kappa"``
        (pass ``weights=None|"linear"|"quadratic"``): one value per
        classifier. A callable maps a K x K confusion matrix of counts
        (floats; rows truth, columns predictions, classes in sorted order)
        to a float or to a length-K array of per-class values; its gradient
        is taken by central differences: two calls per occupied cell of the
        classifier's confusion matrix (up to ``2 K^2`` calls, each on a
        K x K matrix, so minutes for hundreds of classes) and
        ``outputs x cells`` floats. Its ``__name__`` heads the table's
        columns, or ``metric`` for a lambda or a name that is a column
        already (``diff``, ``class``, ...).
    average : {"binary", "micro", "macro", "weighted", "samples"} or None, default=None
        As in scikit-learn, for the per-class measures: None gives one row
        per class (per label for multilabel inputs); ``"binary"`` the row
        of ``pos_label`` (default 1, two classes); ``"micro"`` pools the
        classes' counts; ``"macro"`` and ``"weighted"`` average the
        classes' values (weights: true rows); ``"samples"`` (multilabel
        inputs; precision, recall, f1, fbeta and jaccard, as in
        scikit-learn) averages each row's value over its labels (`labels`
        chooses them). The table's ``class`` is then the average's name.
        Must be None for the whole-matrix measures, whose ``class`` is
        ``"all"``. A row whose value is undefined (for precision, no
        predicted label; recall, no true label; f1, fbeta and jaccard,
        neither) makes the ``"samples"`` average NaN, with a warning,
        where scikit-learn would count it as ``zero_division``.
    reference : str, default=None
        The reference classifier; the first one when None.
    groups : array-like of shape (n_rows,), default=None
        Record id of each row, when rows repeat records (stacked
        cross-validation); records are the units of every variance and of
        the bootstrap.
    labels : array-like, default=None
        The classes reported and averaged over; every class present in the
        truth or some prediction when None. Not for whole-matrix measures.
    method : {"delta", "bootstrap"}, default="delta"
        ``"delta"``: the delta method on the multinomial of the joint cells
        (cluster-robust with `groups`), Wald intervals and p-values;
        ``"bootstrap"``: the paired bootstrap, percentile intervals (BCa
        limits in extra columns) and a bootstrap p-value.
    n_resamples : int, default=9999
        Bootstrap replicates.
    confidence_level : float, default=0.95
        Level of the intervals.
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        Seed of the bootstrap (the global RNG is never used directly).
    **metric_params
        ``beta`` (``"fbeta"``), ``weights`` (``"cohen_kappa"``),
        ``pos_label`` (``average="binary"``).

    Returns
    -------
    MetricComparison
        ``table`` columns ``class, classifier, <metric>,
        <metric>_reference, <metric>_ci_low, <metric>_ci_high, ...,
        diff, diff_se, diff_ci_low, diff_ci_high, diff_pvalue`` (the
        bootstrap adds ``diff_bca_low, diff_bca_high``); ``omnibus`` with
        three or more classifiers; ``replicates`` for the bootstrap.

    Warns
    -----
    UndefinedStatisticWarning
        Once, naming each class and classifier whose measure is undefined
        (reported as NaN, never replaced as scikit-learn's
        ``zero_division`` does) and why, and the differences that have no
        variance. A single record (one row, or `groups` with one id) has
        no standard errors: they, the intervals and the p-values are NaN.

    See Also
    --------
    compare_precision : Exact score tests (GS, WGS) and relative precision.

    Notes
    -----
    With ``G`` the gradient of the measure with respect to the cell
    proportions ``P`` of the classifier's confusion matrix, a row in cell
    ``(t, p)`` has influence ``G[t, p] - sum(G * P)`` on it, and
    ``Var(m_c - m_r) = sum_rows (IF_c - IF_r)^2 / n^2`` (records' sums of
    influence values with `groups`). Gradients are exact for the named
    measures. For precision, NPV, recall, specificity and accuracy this is
    the sandwich variance of the difference that :func:`compare_precision`
    and its siblings report. Wald intervals of a measure are not clipped
    to its range. With multilabel inputs a record's influence value sums
    over all its labels, so averaged measures treat the record, not the
    (record, label) pair, as the unit; so does the bootstrap. The
    ``"samples"`` average is the mean of the rows' values ``v_i``, so a
    row's influence is ``v_i - mean`` and the variance of a difference is
    ``sum_i (d_i - mean(d))^2 / n^2`` over the rows' differences ``d_i``
    (with `groups`, over records, each the sum of its rows' influences).

    Memory is in proportion to the units (cells or record patterns) and the
    K x K confusion cells, whatever the number of classes: gradients are
    taken only at the cells that rows fall in, per-class outputs are
    processed in blocks of a fixed budget (32 MB), and so are bootstrap
    replicates. A replicate of a per-class measure costs O(cells + K); one
    of a whole-matrix measure (MCC, kappa, balanced accuracy, accuracy) or
    a callable evaluates K x K matrices, about 30 ms at 1,000 classes. The
    bootstrap's ``replicates`` hold ``n_resamples x classifiers x outputs``
    floats.

    The bootstrap draws the joint cells' counts from a multinomial (the
    distinct per-record patterns of cells with `groups`), so a replicate
    costs O(cells), not O(rows). Its p-value is ``(1 + #{|d* - d| >= |d|})
    / (1 + B)`` over the replicates' differences ``d*`` [1]_, ``diff_se``
    their standard deviation, and the BCa acceleration comes from the
    influence values [2]_.

    References
    ----------
    .. [1] Hall and Wilson (1991). Two guidelines for bootstrap hypothesis
       testing. Biometrics 47(2), 757-762.
    .. [2] Efron (1987). Better bootstrap confidence intervals. JASA 82,
       171-185.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_precision_stats import compare_metric
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 500)
    >>> a = np.where(rng.random(500) < 0.8, y, rng.integers(0, 3, 500))
    >>> b = np.where(rng.random(500) < 0.6, y, rng.integers(0, 3, 500))
    >>> result = compare_metric(y, {"a": a, "b": b}, metric="f1", average="macro")
    >>> row = result.get("macro")
    >>> print(f"{row['f1_reference']:.4f} {row['diff']:.4f} {row['diff_pvalue'] < 0.05}")
    0.8667 -0.1069 True
    >>> compare_metric(y, {"a": a, "b": b}, metric="mcc").table.loc[0, "class"]
    'all'
    """
    counts = counts_in_place_of_arrays(y_true, y_preds, groups)
    if counts is not None:
        names = list(counts.classifiers)
        units, names = _reference_first(units_from_counts(counts, names), names, reference)
    elif is_indicator_matrix(y_true):
        _check_aligned_indexes(y_true=y_true, groups=groups)
        y, names, preds = check_multilabel(y_true, y_preds, None)
        groups = _check_groups(groups, y.shape[0])
        if average == "samples":
            # Each row's value depends on its chosen labels: the spec first.
            spec, classes, name = measure_spec(
                metric, average, labels, np.arange(y.shape[1]), metric_params, True
            )
            units, names = _reference_first(
                tabulate_samples(y, preds, groups, spec), names, reference
            )
            return compare_cells(
                units,
                names,
                spec,
                classes,
                name,
                method,
                n_resamples,
                confidence_level,
                check_random_state_any(random_state) if method == "bootstrap" else None,
            )
        by_label = average is None and method == "delta"
        units, names = _reference_first(
            tabulate_multilabel(y, preds, groups, by_label), names, reference
        )
    else:
        y, names, preds = _check_predictions(y_true, y_preds, None, for_encoder=True, groups=groups)
        groups = _check_groups(groups, y.shape[0])
        units, names = _reference_first(tabulate(y, preds, groups), names, reference)
    rng = check_random_state_any(random_state) if method == "bootstrap" else None
    spec, classes, name = measure_spec(
        metric, average, labels, units.values, metric_params, units.multilabel
    )
    if units.lift is not None and (spec.func is not None or spec.weights is not None):
        raise ValueError(
            "clustered ComparisonCounts keep each record's confusion diagonal and "
            f"margins only, which do not determine metric={metric!r}"
            + (f" with weights={spec.weights!r}" if spec.weights is not None else "")
            + "; pass the arrays and groups instead."
        )
    return compare_cells(
        units, names, spec, classes, name, method, n_resamples, confidence_level, rng
    )


def _reference_first(
    units: Units, names: list[str], reference: Hashable | None
) -> tuple[Units, list[str]]:
    """Units tabulated in the caller's order of classifiers, the reference's map first.

    The units (cells or record patterns) then come in an order that does not
    depend on which classifier is the reference, so a seeded bootstrap draws
    the same resamples whichever it is and swapping the two mirrors the result.
    """
    order = reference_order(list(names), reference)
    return replace(units, maps=[units.maps[i] for i in order]), [names[i] for i in order]


def measure_spec(
    metric: str | Callable[[np.ndarray], Any],
    average: str | None,
    labels: Any,
    values: np.ndarray,
    params: Mapping[str, Any],
    multilabel: bool = False,
) -> tuple[MeasureSpec, np.ndarray, str]:
    """The measure's specification, the table's class labels and column name."""
    if multilabel:
        if callable(metric) or metric in WHOLE_MATRIX:
            raise ValueError(
                f"metric={metric!r} is not available for multilabel indicator inputs; "
                f"use one of the per-label measures {list(PER_CLASS)}."
            )
        if average == "binary":
            raise ValueError(
                "average='binary' is not available for multilabel indicator inputs; "
                "use None (one row per label), 'micro', 'macro', 'weighted' or 'samples'."
            )
        if average == "samples" and metric not in SAMPLES:
            raise ValueError(
                f"average='samples' is defined, as in scikit-learn, for {list(SAMPLES)}, "
                f"not for metric={metric!r}; use average='macro', 'micro' or 'weighted'."
            )
    if average == "samples" and not multilabel:
        raise ValueError(
            "average='samples' applies to multilabel indicator inputs only; use None, "
            "'micro', 'macro' or 'weighted'."
        )
    allowed = {"fbeta": {"beta"}, "cohen_kappa": {"weights"}}.get(str(metric), set())
    if average == "binary":
        allowed = allowed | {"pos_label"}
    unknown = set(params) - allowed
    if unknown:
        raise ValueError(
            f"metric={metric!r} with average={average!r} takes no parameter "
            f"{sorted(unknown)}; allowed: {sorted(allowed) or 'none'} (beta for 'fbeta', "
            "weights for 'cohen_kappa', pos_label for average='binary')."
        )
    beta = params.get("beta", 1.0)
    if metric == "fbeta" and (
        "beta" not in params
        or not isinstance(beta, Real)
        or isinstance(beta, bool)
        or not 0 < float(beta) < np.inf
    ):
        got = f", got {beta!r}" if "beta" in params else ""
        raise ValueError(f"metric='fbeta' needs a finite beta > 0, e.g. beta=2{got}.")
    beta = float(beta)
    weights = params.get("weights")
    if weights not in _KAPPA_WEIGHTS:
        raise ValueError(f"weights must be None, 'linear' or 'quadratic', got {weights!r}.")
    n_values = len(values)
    whole = callable(metric) is False and metric in WHOLE_MATRIX
    if whole and average is not None:
        raise ValueError(
            f"metric={metric!r} is one number per classifier; pass average=None "
            "(average applies to per-class measures such as 'f1')."
        )
    if whole and labels is not None:
        raise ValueError(
            f"labels does not apply to metric={metric!r}, which uses every class; pass labels=None."
        )
    codes = _label_codes(values, labels)
    pos_code = None
    if average == "binary":
        if n_values > 2:
            raise ValueError(
                f"average='binary' needs two classes, got {n_values} "
                f"({values.tolist()}); choose average=None, 'micro', 'macro' or 'weighted'."
            )
        pos_label = params.get("pos_label", 1)
        matches = np.flatnonzero(values == pos_label)
        if len(matches) == 0:
            raise ValueError(
                f"pos_label={pos_label!r} is not a class; the classes are {values.tolist()}."
            )
        pos_code = int(matches[0])
    if callable(metric):
        if average not in (None, "macro", "weighted"):
            raise ValueError(
                "a callable metric is averaged with average=None, 'macro' or "
                f"'weighted', got {average!r}."
            )
        spec = MeasureSpec("callable", average, codes, n_values, func=metric)
        name = getattr(metric, "__name__", "metric")
        name = name if name.isidentifier() and name not in _NOT_A_NAME else "metric"
        if name.startswith("diff_pvalue_"):  # the adjusted p-values' columns
            name = "metric"
        # Every cell occupied, so the probe of the output's shape divides by
        # no zero count.
        returned = np.asarray(metric(np.ones((n_values, n_values))))
        expected = f"a float or an array of {n_values} per-class values (one per class)"
        if returned.dtype.kind not in "biuf":
            raise ValueError(
                f"metric must return {expected} of a confusion matrix, got "
                f"{returned.ravel()[:3].tolist()!r} (dtype {returned.dtype})."
            )
        probe = returned.astype(float)
        if probe.ndim == 0:
            if average is not None:
                raise ValueError("average must be None for a callable that returns one number.")
            spec = MeasureSpec("callable", None, np.arange(1), n_values, func=_scalar(metric))
            return spec, np.array(["all"], dtype=object), name
        if probe.shape != (n_values,):
            raise ValueError(f"metric must return {expected}, got shape {probe.shape}.")
    else:
        name = str(metric)
        spec = MeasureSpec(
            name,
            average,
            codes,
            n_values,
            beta=beta,
            weights=weights,
            pos_code=pos_code,
            multilabel=multilabel,
        )
    if whole:
        classes = np.array(["all"], dtype=object)
    elif average is None:
        classes = values[codes]
    elif average == "binary":
        classes = values[np.array([pos_code], dtype=np.intp)]
    else:
        classes = np.array([average], dtype=object)
    return spec, classes, name


def _scalar(func: Callable[[np.ndarray], Any]) -> Callable[[np.ndarray], Any]:
    def scalar(matrix: np.ndarray) -> Any:
        return np.asarray(func(matrix), dtype=float).reshape(1)

    return scalar


def _label_codes(values: np.ndarray, labels: Any) -> np.ndarray:
    if labels is None:
        return np.arange(len(values), dtype=np.intp)
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.size == 0:
        raise ValueError(
            "labels must be a non-empty 1-D list of classes, e.g. labels=[0, 1]; "
            "pass None to use every class."
        )
    lookup = {v: i for i, v in enumerate(values.tolist())}
    codes = []
    for label in labels.tolist():
        if label not in lookup:
            raise ValueError(
                f"label {label!r} in labels does not occur in y_true or in any "
                f"prediction; the classes present are {values.tolist()}."
            )
        codes.append(lookup[label])
    if len(set(codes)) != len(codes):
        raise ValueError(f"labels contains duplicates: {labels.tolist()}.")
    return np.asarray(codes, dtype=np.intp)


def _warn(messages: list[str]) -> None:
    if messages:
        warnings.warn(
            "; ".join(messages) + ".", UndefinedStatisticWarning, stacklevel=_STACKLEVEL + 1
        )


def compare_cells(
    units: Units,
    names: Sequence[str],
    spec: MeasureSpec | list[MeasureSpec],
    classes: np.ndarray,
    measure: str,
    method: str,
    n_resamples: int,
    confidence_level: float,
    rng: np.random.Generator | None,
    n_records: int | None = None,
) -> MetricComparison:
    """Inference on prepared cells: the shared core of every input kind."""
    n_clf = len(names)
    specs = spec if isinstance(spec, list) else [spec] * n_clf
    z = special.ndtri(0.5 + confidence_level / 2)
    messages = []
    for c in range(n_clf):
        for label, reason in zip(
            classes.tolist(), specs[c].undefined_reasons(units.confusion(c)), strict=True
        ):
            if reason is not None:
                messages.append(f"{measure} of class {label!r} for {names[c]!r} is NaN: {reason}")
    # est (R, C), est_se (R, C), cov (R, C-1, C-1), accel (R, C-1)
    est, est_se, cov, accel = delta_moments(specs, units, accelerate=method == "bootstrap")
    diff = est[:, 1:] - est[:, :1]
    extra: dict[str, np.ndarray] = {}
    replicates = None
    if method == "delta":
        diff_se = np.sqrt(np.einsum("rdd->rd", cov))
        with np.errstate(invalid="ignore", divide="ignore"):
            zstat = diff / diff_se
        pvalue = np.where(diff_se > 0, 2 * special.ndtr(-np.abs(zstat)), np.nan)
        ci = (est - z * est_se, est + z * est_se)
        dci = (diff - z * diff_se, diff + z * diff_se)
        omni_cov = cov
    else:
        assert rng is not None and accel is not None
        reps = bootstrap_replicates(specs, units, n_resamples, rng)  # (B, C, R)
        rdiff = reps[:, 1:] - reps[:, :1]  # (B, C-1, R)
        rdiff = np.moveaxis(rdiff, 2, 1)  # (B, R, C-1)
        # Only the differences defined on the data: an undefined estimate
        # makes its replicates undefined too, which says nothing of resamples.
        n_bad = int((~np.isfinite(rdiff[:, np.isfinite(diff)])).any(axis=1).sum())
        if n_bad:
            messages.append(
                f"{n_bad} of {n_resamples} bootstrap replicates have an undefined "
                f"{measure} (a class absent from the resample) and are left out"
            )
        diff_se = nan_std(rdiff)
        pvalue = bootstrap_pvalue(rdiff, diff)
        # Resamples may leave out what makes an estimate undefined (a row
        # with no samples value): an undefined estimate has no interval.
        defined = np.isfinite(diff)
        dci = percentile_interval(rdiff, confidence_level, defined)
        ci = percentile_interval(np.moveaxis(reps, 2, 1), confidence_level, np.isfinite(est))
        diff_se = np.where(defined, diff_se, np.nan)
        extra["diff_bca_low"], extra["diff_bca_high"] = bca_interval(
            rdiff, diff, accel, confidence_level
        )
        replicates = {names[c]: reps[:, c, :] for c in range(n_clf)}
        centred = rdiff - nan_mean(rdiff)
        with np.errstate(invalid="ignore"):
            omni_cov = np.einsum("brd,bre->rde", centred, centred) / (n_resamples - 1)
    if units.n_records < 2:
        # One record (unit): its influence sum is zero by construction, so any
        # spread is rounding and every standard error, interval and p-value is
        # undefined.
        messages.append(
            "there is only one record (unit), so no standard error, interval or "
            "p-value can be estimated and they are NaN; pass more rows, or with "
            "groups more than one record id"
        )
        nan = np.full_like(diff, np.nan)
        diff_se, pvalue, dci, omni_cov = nan, nan, (nan, nan), np.full_like(omni_cov, np.nan)
        est_se = np.full_like(est, np.nan)
        ci = (np.full_like(est, np.nan), np.full_like(est, np.nan))
        extra = {key: nan for key in extra}
    # A standard error at the rounding level of the difference is zero (the
    # margins' pseudo-inverse of clustered counts leaves 1e-15, not 0).
    no_variance = np.isfinite(diff) & ~(diff_se > rounding_level(diff)) & (units.n_records > 1)
    for r, c in zip(*np.nonzero(no_variance), strict=True):
        why = (
            "no variance across records (e.g. the two agree on every row that matters, "
            "or each is right on all of them or on none)"
            if np.isfinite(diff_se[r, c])
            else "no standard error (the measure's gradient or replicates are not finite)"
        )
        messages.append(
            f"the difference in {measure} of class {classes.tolist()[r]!r} between "
            f"{names[c + 1]!r} and the reference has {why}, so its p-value is NaN"
        )
    pvalue = np.where(no_variance, np.nan, pvalue)
    omnibus = _omnibus(diff, omni_cov) if n_clf > 2 else None
    if omnibus is not None:
        for r in np.flatnonzero(np.isnan(omnibus["wald_stat"]) & ~no_variance.any(axis=1)):
            if np.isfinite(diff[r]).all() and np.isfinite(omni_cov[r]).all():
                messages.append(
                    f"the omnibus test of {measure} of class {classes.tolist()[r]!r} is NaN: "
                    "a difference between the classifiers has no variance but is not zero"
                )
    if 1 < units.n_records < units.n_rows and units.n_records < _FEW_CLUSTERS:
        messages.append(
            f"groups has only {units.n_records} distinct records (clusters): "
            "cluster-robust standard errors are too small with fewer than about 30, "
            "so the intervals are too narrow and the p-values too small"
        )
    _warn(messages)
    return MetricComparison(
        measure=measure,
        classes=classes,
        classifiers=list(names),
        method=method,
        average=specs[0].average,
        confidence_level=confidence_level,
        n_rows=units.n_rows,
        n_records=units.n_records if n_records is None else n_records,
        estimates=est,
        estimate_ci_low=ci[0],
        estimate_ci_high=ci[1],
        estimate_se=est_se if method == "delta" else None,
        diff=diff,
        diff_se=diff_se,
        diff_ci_low=dci[0],
        diff_ci_high=dci[1],
        diff_pvalue=pvalue,
        omnibus=omnibus,
        extra_columns=extra,
        replicates=replicates,
    )


def _omnibus(diff: np.ndarray, cov: np.ndarray) -> dict[str, np.ndarray]:
    """Wald tests that every difference of a row is zero.

    The pseudo-inverse and rank allow differences that are exactly collinear
    (two identical classifiers). A combination of the differences with no
    variance that is not zero (outside the covariance's range) leaves the
    test undefined: NaN, as the pairwise p-value of a difference with no
    variance, rather than a statistic that depends on the reference.
    """
    n_rows = diff.shape[0]
    stat, df = np.full(n_rows, np.nan), np.full(n_rows, np.nan)
    for r in range(n_rows):
        d, v = diff[r], cov[r]
        if not (np.isfinite(d).all() and np.isfinite(v).all()):
            continue
        rank = np.linalg.matrix_rank(v)
        if rank == 0:
            continue
        pinv = np.linalg.pinv(v)
        if np.abs(d - v @ (pinv @ d)).max() > _RANGE_TOLERANCE * np.abs(d).max():
            continue
        stat[r] = float(d @ pinv @ d)
        df[r] = rank
    with np.errstate(invalid="ignore"):
        pvalue = stats.chi2.sf(stat, df)
    return {"df": df, "wald_stat": stat, "wald_pvalue": pvalue}
