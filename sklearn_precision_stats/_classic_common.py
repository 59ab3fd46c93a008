"""Result types and helpers shared by the classic tests (McNemar, t, F, DeLong).

Every classic test returns a small frozen dataclass in the style of
:mod:`scipy.stats` results: ``statistic`` and ``pvalue`` first, then the
degrees of freedom and the estimates that apply, and a
``confidence_interval(confidence_level=0.95)`` method where an interval for
the compared quantity exists.
"""

import math
import warnings
from dataclasses import dataclass, fields
from typing import NamedTuple

import numpy as np

from ._validation import _as_label_array
from .exceptions import UndefinedStatisticWarning

__all__ = ["ConfidenceInterval"]

_ALTERNATIVES = ("two-sided", "less", "greater")


class ConfidenceInterval(NamedTuple):
    """Lower and upper bound of a confidence interval."""

    low: float
    high: float


def _format_value(value):
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, tuple):
        return "(" + ", ".join(_format_value(v) for v in value) + ")"
    return repr(value)


@dataclass(frozen=True, repr=False)
class _TestResult:
    """Base class: a short repr with six significant digits per number."""

    def __repr__(self):
        parts = [
            f"{f.name}={_format_value(getattr(self, f.name))}"
            for f in fields(self)
            if f.repr
        ]
        return f"{type(self).__name__}({', '.join(parts)})"


@dataclass(frozen=True, repr=False)
class _IntervalResult(_TestResult):
    """Base class for results with a confidence interval.

    Subclasses give the estimate, standard error, alternative and null
    distribution of a Wald-type interval in ``_interval_inputs``, or
    override ``_interval(level)`` for another kind of interval.
    """

    def _interval_inputs(self):
        raise NotImplementedError

    def _interval(self, level):
        estimate, standard_error, alternative, distribution = self._interval_inputs()
        if not (np.isfinite(estimate) and np.isfinite(standard_error)):
            return ConfidenceInterval(math.nan, math.nan)
        if alternative == "two-sided":
            half = distribution.ppf(0.5 + level / 2) * standard_error
            return ConfidenceInterval(float(estimate - half), float(estimate + half))
        half = distribution.ppf(level) * standard_error
        if alternative == "greater":
            return ConfidenceInterval(float(estimate - half), math.inf)
        return ConfidenceInterval(-math.inf, float(estimate + half))

    def confidence_interval(self, confidence_level=0.95):
        """Confidence interval for the estimate named in the class docstring.

        Unless the class docstring says otherwise, ``estimate -/+ q *
        standard_error`` with ``q`` a quantile of the test's null
        distribution (normal or t). As in :func:`scipy.stats.ttest_rel`, a
        one-sided ``alternative`` gives a one-sided interval with an infinite
        bound.

        Parameters
        ----------
        confidence_level : float, default=0.95
            Confidence level of the interval.

        Returns
        -------
        ci : ConfidenceInterval
            Named tuple with fields ``low`` and ``high`` (NaN when the
            statistic is undefined).
        """
        return self._interval(_check_confidence_level(confidence_level))


def _check_alternative(alternative):
    if alternative not in _ALTERNATIVES:
        raise ValueError(
            f"alternative must be one of {_ALTERNATIVES}, got {alternative!r}."
        )
    return alternative


def _check_confidence_level(confidence_level):
    if not isinstance(confidence_level, (int, float, np.floating)) or not (
        0 < confidence_level < 1
    ):
        raise ValueError(
            "confidence_level must be a number strictly between 0 and 1, got "
            f"{confidence_level!r}; use e.g. confidence_level=0.95."
        )
    return float(confidence_level)


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
            f"pos_label={pos_label!r} is not one of the labels "
            f"{classes.tolist()} in y_true."
        )
    return y_true == pos_label
