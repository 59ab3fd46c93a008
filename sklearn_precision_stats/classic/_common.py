"""Result types and helpers shared by the classic tests (McNemar, t, F, DeLong).

Every classic test returns a small frozen dataclass in the style of
:mod:`scipy.stats` results: ``statistic`` and ``pvalue`` first, then the
degrees of freedom and the estimates that apply, and a
``confidence_interval(confidence_level=0.95)`` method where an interval for
the compared quantity exists.
"""

import warnings

import numpy as np

from ..exceptions import UndefinedStatisticWarning
from ..results._base import (  # noqa: F401  (re-exported for the classic tests)
    ConfidenceInterval,
    IntervalResult,
    TestResult,
    _check_confidence_level,
)
from ..utils._validation import _as_label_array

__all__ = []

_ALTERNATIVES = ("two-sided", "less", "greater")


def _check_alternative(alternative):
    if alternative not in _ALTERNATIVES:
        raise ValueError(f"alternative must be one of {_ALTERNATIVES}, got {alternative!r}.")
    return alternative


def _pvalue(statistic, alternative, distribution):
    """p-value of a statistic whose null distribution is symmetric about 0."""
    if alternative == "greater":
        return float(distribution.sf(statistic))
    if alternative == "less":
        return float(distribution.cdf(statistic))
    return float(min(1.0, 2.0 * distribution.sf(abs(statistic))))


def _warn_undefined(what, reason):
    warnings.warn(
        f"{what} is undefined ({reason}); it is reported as NaN.",
        UndefinedStatisticWarning,
        stacklevel=3,
    )


def _check_binary_target(y_true, pos_label):
    """Return a boolean array, True where ``y_true`` is the positive class."""
    y_true = _as_label_array(y_true, "y_true")
    classes = np.unique(y_true)
    if classes.size > 2:
        raise ValueError(
            f"y_true must be binary, got {classes.size} classes; for a "
            "multiclass problem test one class against the rest, e.g. "
            "y_true == k with the scores of class k."
        )
    if pos_label is None:
        if classes.dtype.kind not in "biu" or not (
            set(classes.tolist()) <= {0, 1} or set(classes.tolist()) <= {-1, 1}
        ):
            raise ValueError(
                f"y_true has labels {classes.tolist()}; pass pos_label to say "
                "which one is the positive class (None only works for labels "
                "in {0, 1} or {-1, 1})."
            )
        pos_label = 1
    elif classes.size == 2 and pos_label not in classes.tolist():
        raise ValueError(
            f"pos_label={pos_label!r} is not one of the labels {classes.tolist()} in y_true."
        )
    return y_true == pos_label
