"""Shared pieces of the diagnostic results: read-only arrays, long tables, warnings."""

import math
import warnings
from dataclasses import fields

import numpy as np
import pandas as pd
from scipy import stats

from ..exceptions import UndefinedStatisticWarning
from ..results._base import ConfidenceInterval, _check_confidence_level

__all__ = []


def freeze(result):
    """Make every ndarray field of a frozen dataclass read-only."""
    for f in fields(result):
        value = getattr(result, f.name)
        if isinstance(value, np.ndarray):
            value = value.copy()
            value.flags.writeable = False
            object.__setattr__(result, f.name, value)


def long_table(classes, classifiers, reference, measures, columns):
    """One row per (class, classifier, measure) from arrays of shape (K, J, M).

    `reference` None leaves out the reference column (results of single
    classifiers); `measures` None leaves out the measure column (arrays of
    shape (K, J)).
    """
    n_classes, n_clf = len(classes), len(classifiers)
    n_measures = 1 if measures is None else len(measures)
    shape = (n_classes, n_clf, n_measures)
    data = {
        "class": np.repeat(np.asarray(classes, dtype=object), n_clf * n_measures),
        "classifier": np.tile(
            np.repeat(np.asarray(classifiers, dtype=object), n_measures), n_classes
        ),
    }
    if reference is not None:
        data["reference"] = reference
    if measures is not None:
        data["measure"] = np.tile(np.asarray(measures, dtype=object), n_classes * n_clf)
    for name, values in columns.items():
        values = np.asarray(values)
        if measures is None:
            values = values[..., None]
        data[name] = np.broadcast_to(values, shape).reshape(-1)
    return pd.DataFrame(data)


def quantile(confidence_level):
    """Two-sided normal quantile of a confidence level."""
    return stats.norm.ppf(0.5 + _check_confidence_level(confidence_level) / 2)


def log_interval(ratio, se_log, confidence_level):
    """``exp(log r -/+ z se)`` as a ConfidenceInterval of arrays."""
    z = quantile(confidence_level)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        log_r = np.log(ratio)
        ok = np.isfinite(log_r) & np.isfinite(se_log)
        low = np.where(ok, np.exp(log_r - z * se_log), np.nan)
        high = np.where(ok, np.exp(log_r + z * se_log), np.nan)
    return ConfidenceInterval(low, high)


def normal_pvalue(z):
    """Two-sided p-value of a standard normal statistic (NaN stays NaN)."""
    return 2.0 * stats.norm.sf(np.abs(z))


def warn_undefined(mask, classes, names, what, reason, stacklevel=3):
    """One UndefinedStatisticWarning listing the (class, classifier) pairs in `mask`.

    Parameters
    ----------
    mask : ndarray of bool, shape (n_classes, n_classifiers)
    classes, names : sequences indexing the two axes
    what : str
        The statistic, e.g. ``"the sensitivity"``.
    reason : str
    """
    mask = np.asarray(mask, dtype=bool)
    if not mask.any():
        return
    classes = np.asarray(classes).tolist()
    rows, cols = np.nonzero(mask)
    pairs = [f"class {classes[k]!r} / {names[c]!r}" for k, c in zip(rows, cols, strict=True)]
    shown = ", ".join(pairs[:6]) + (f" and {len(pairs) - 6} more" if len(pairs) > 6 else "")
    warnings.warn(
        f"{what} is undefined for {shown} ({reason}); it is reported as NaN.",
        UndefinedStatisticWarning,
        stacklevel=stacklevel,
    )


def ratio(num, den):
    """num / den with 0/0 and x/0 as NaN and no floating-point warnings."""
    num, den = np.broadcast_arrays(np.asarray(num, float), np.asarray(den, float))
    out = np.full(num.shape, math.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out
