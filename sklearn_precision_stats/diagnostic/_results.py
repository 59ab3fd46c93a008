"""Shared pieces of the diagnostic results: read-only arrays, long tables, options, warnings."""

import math
import warnings
from contextvars import ContextVar
from typing import ClassVar

import numpy as np
import pandas as pd
from scipy import stats

from ..exceptions import UndefinedStatisticWarning
from ..results._base import (
    ConfidenceInterval,
    FrozenArrays,
    _check_confidence_level,
    name_array,
)

__all__ = []


class ReferenceComparisonMixin(FrozenArrays):
    """Mixin of the results comparing classifiers with a reference, class by class.

    The dataclass has the fields ``classes``, ``classifiers`` (the compared
    ones) and ``reference``; ``_repr_fields`` names the fields shown in the
    repr before them.
    """

    _repr_fields: ClassVar[tuple[str, ...]] = ()

    def _table(self, measures, columns):
        return long_table(self.classes, self.classifiers, self.reference, measures, columns)

    def __repr__(self):
        shown = ""
        for name in self._repr_fields:
            value = getattr(self, name)
            shown += f"{name}={list(value) if isinstance(value, tuple) else value!r}, "
        return (
            f"{type(self).__name__}({shown}classes={np.asarray(self.classes).tolist()}, "
            f"classifiers={list(self.classifiers)})"
        )


CONVENTIONS = ("paper", "dtcompair")

# Why the sensitivity (index 0) or the specificity (1) of a class has no
# record to be computed on.
EMPTY_STRATUM = ("the class does not occur in y_true", "every record is of this class")


def check_option(value, options, name):
    """ValueError naming the argument `name` unless `value` is one of `options`."""
    if value not in options:
        raise ValueError(f"{name} must be one of {options}, got {value!r}.")
    return value


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
        "classifier": np.tile(np.repeat(name_array(classifiers), n_measures), n_classes),
    }
    if reference is not None:
        data["reference"] = name_array([reference] * (n_classes * n_clf * n_measures))
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


# The messages of the public call in progress, gathered into one warning
# (None outside such a call). A context variable keeps threads apart.
_MESSAGES: ContextVar[list[str] | None] = ContextVar("undefined_messages", default=None)


class one_warning:  # noqa: N801 (used as a context manager, like contextlib's)
    """Gather the undefined statistics of one public call into one warning.

    A public function runs its body in ``with one_warning():``; every
    :func:`warn_undefined` inside adds its sentence, and one
    UndefinedStatisticWarning with all of them points at the function's
    caller when the block ends. Nested blocks (a public function calling
    another) add to the outermost one.
    """

    def __enter__(self):
        self._token = _MESSAGES.set([]) if _MESSAGES.get() is None else None
        return self

    def __exit__(self, exc_type, exc, traceback):
        if self._token is None:
            return False
        messages = _MESSAGES.get()
        _MESSAGES.reset(self._token)
        if exc_type is None and messages:
            # Frames: this method, the public function, its caller.
            warnings.warn(" ".join(messages), UndefinedStatisticWarning, stacklevel=3)
        return False


def warn_undefined(mask, classes, names, what, reason):
    """Add a sentence listing the (class, classifier) pairs in `mask` to the warning.

    Called inside ``with one_warning():``, which says every sentence in
    one UndefinedStatisticWarning at the public function's caller.

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
    message = (
        f"{what[0].upper()}{what[1:]} is undefined for {shown} ({reason}); it is reported as NaN."
    )
    messages = _MESSAGES.get()
    assert messages is not None, "warn_undefined is called inside `with one_warning():`"
    if message not in messages:
        messages.append(message)


def ratio(num, den):
    """num / den with 0/0 and x/0 as NaN and no floating-point warnings."""
    num, den = np.broadcast_arrays(np.asarray(num, float), np.asarray(den, float))
    out = np.full(num.shape, math.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out
