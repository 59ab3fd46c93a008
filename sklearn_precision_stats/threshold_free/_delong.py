"""DeLong's covariance of correlated ROC AUCs, per class, for compare_roc_auc."""

import warnings

import numpy as np
from scipy import stats

from ..classic._roc import _delong_components
from ..exceptions import UndefinedStatisticWarning
from ..results._metric_comparison import MetricComparison
from ._inference import _STACKLEVEL, _class_name, _omnibus


def _run_delong(problem, average, groups, level):
    if average is not None and not problem.binary:
        raise ValueError(
            f"average={average!r} needs method='bootstrap': DeLong's covariance is "
            "computed one class at a time; use average=None for one row per class."
        )
    if groups is not None:
        raise ValueError(
            "groups needs method='bootstrap': DeLong's test assumes one row per record; "
            "the bootstrap resamples the records (clusters) instead."
        )
    n_classes = problem.positive.shape[1]
    n_clf = len(problem.names)
    estimates = np.full((n_classes, n_clf), np.nan)
    estimate_se = np.full((n_classes, n_clf), np.nan)
    diff = np.full((n_classes, n_clf - 1), np.nan)
    diff_se = np.full((n_classes, n_clf - 1), np.nan)
    covariances = []
    reasons = []
    for k in range(n_classes):
        positive = np.ascontiguousarray(problem.positive[:, k])
        n_pos = int(np.count_nonzero(positive))
        what = f"class {_class_name(problem.classes[k])}"
        if n_pos == 0 or n_pos == problem.n_rows:
            reasons.append(f"roc_auc of {what}: y_true has no positive or no negative rows")
            covariances.append(np.full((n_clf - 1, n_clf - 1), np.nan))
            continue
        auc, cov = _delong_components(
            positive, [np.ascontiguousarray(s[:, k]) for s in problem.scores]
        )
        estimates[k] = auc
        estimate_se[k] = np.sqrt(np.maximum(np.diag(cov), 0.0))
        contrast = np.hstack([-np.ones((n_clf - 1, 1)), np.eye(n_clf - 1)])
        cov_diff = contrast @ cov @ contrast.T
        diff[k] = auc[1:] - auc[0]
        variance = np.diag(cov_diff)
        scale = cov[0, 0] + np.diag(cov)[1:]
        if not np.isfinite(variance).all():
            reasons.append(
                f"DeLong's variance of {what}: fewer than two positive or two negative rows"
            )
            covariances.append(np.full_like(cov_diff, np.nan))
            continue
        flat = variance <= 1e-12 * scale
        if flat.any():
            others = [problem.names[j + 1] for j in np.flatnonzero(flat)]
            reasons.append(
                f"DeLong's test of {what}: the variance of the AUC difference of "
                f"{', '.join(map(repr, others))} from {problem.names[0]!r} is zero "
                "(e.g. identical rankings)"
            )
        diff_se[k] = np.where(flat, np.nan, np.sqrt(np.maximum(variance, 0.0)))
        covariances.append(cov_diff)
    if reasons:
        warnings.warn(
            "; ".join(reasons) + "; these values are reported as NaN.",
            UndefinedStatisticWarning,
            stacklevel=_STACKLEVEL + 1,
        )
    zq = stats.norm.ppf(0.5 + level / 2)
    with np.errstate(invalid="ignore"):
        pvalue = 2 * stats.norm.sf(np.abs(diff / diff_se))
    omnibus = _omnibus(diff, covariances) if n_clf >= 3 else None
    return MetricComparison(
        measure="roc_auc",
        classes=problem.classes,
        classifiers=problem.names,
        method="delong",
        average=average,
        confidence_level=level,
        n_rows=problem.n_rows,
        n_records=problem.n_units,
        estimates=estimates,
        estimate_se=estimate_se,
        estimate_ci_low=estimates - zq * estimate_se,
        estimate_ci_high=estimates + zq * estimate_se,
        diff=diff,
        diff_se=diff_se,
        diff_ci_low=diff - zq * diff_se,
        diff_ci_high=diff + zq * diff_se,
        diff_pvalue=pvalue,
        omnibus=omnibus,
    )
