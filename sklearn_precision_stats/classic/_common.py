"""Result types and helpers shared by the classic tests (McNemar, t, F, DeLong).

Every classic test returns a small frozen dataclass in the style of
:mod:`scipy.stats` results: ``statistic`` and ``pvalue`` first, then the
degrees of freedom and the estimates that apply, and a
``confidence_interval(confidence_level=0.95)`` method where an interval for
the compared quantity exists.
"""

import warnings

import numpy as np
import pandas as pd

from ..engine._labels import encode_sorted
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
    # np.minimum, not min(): a NaN statistic gives a NaN p-value, not 1.
    return float(np.minimum(1.0, 2.0 * distribution.sf(abs(statistic))))


def _posthoc_pairs(test, pairs):
    """``"<test> of the pair(s) 'a'-'b', ... in posthoc"``: the undefined pairwise tests."""
    listed = ", ".join(f"{a!r}-{b!r}" for a, b in pairs)
    return f"{test} of the pair{'s' if len(pairs) > 1 else ''} {listed} in posthoc"


def _warn_undefined(what, reason, stacklevel=3):
    """Warn that `what` is NaN because of `reason`, pointing `stacklevel` frames up."""
    warnings.warn(
        f"{what} is undefined ({reason}); it is reported as NaN.",
        UndefinedStatisticWarning,
        stacklevel=stacklevel,
    )


_ROLE_FIXES = {
    "label": (
        "one label per row",
        "for probabilities or one-hot scores pass the predicted labels "
        "instead (e.g. estimator.predict(X))",
    ),
    "truth": (
        "one true label per row",
        "for a one-hot target pass one class label per row (e.g. Y.argmax(axis=1))",
    ),
    "score": (
        "one score per row",
        "for predict_proba output pass the positive class's column, predict_proba(X)[:, 1]",
    ),
    "groups": (
        "one record id per row",
        "pass the id of the record each row predicts",
    ),
}


def _check_shape(values, name, role):
    """Reject inputs that are not one value per row, with a message that fits.

    ``role`` is ``"label"`` (predicted labels), ``"truth"`` or ``"score"``
    (probabilities, decision values or per-split scores).
    """
    if values is None:
        raise ValueError(f"{name} is None; pass an array-like with {_ROLE_FIXES[role][0]}.")
    if isinstance(values, (list, tuple)) and values and isinstance(values[0], (tuple, list)):
        raise ValueError(
            f"{name} holds sequences such as {tuple(values[0])!r} in each row; "
            f"it must hold {_ROLE_FIXES[role][0]}. Map each sequence to a "
            f"single value first (e.g. [str(t) for t in {name}])."
        )
    if hasattr(values, "to_numpy"):
        values = values.to_numpy()
    try:
        shape = np.shape(values)
    except ValueError as exc:  # ragged nested sequences
        raise ValueError(f"{name} could not be converted to an array: {exc}") from exc
    if len(shape) == 2 and shape[0] == 1 and shape[1] > 1:
        raise ValueError(
            f"{name} has shape {shape}, a single row of {shape[1]} values; it "
            f"must be 1-D with {_ROLE_FIXES[role][0]}. Pass np.ravel({name})."
        )
    if len(shape) > 1 and not (len(shape) == 2 and shape[1] == 1):
        what, fix = _ROLE_FIXES[role]
        raise ValueError(f"{name} must be 1-D ({what}), got shape {shape}; {fix}.")


def _label_array(values, name, role="label"):
    """1-D array of labels with messages that name the argument and the fix."""
    _check_shape(values, name, role)
    if role == "groups":
        arr = np.asarray(values.to_numpy() if hasattr(values, "to_numpy") else values)
        missing = pd.isna(arr.reshape(-1)) if arr.dtype.kind in "fO" else None
        if missing is not None and missing.any():
            raise ValueError(
                f"{name} contains NaN or None at row {int(np.argmax(missing))}; "
                "every row needs the id of the record it predicts. Drop those "
                "rows or give them their record ids."
            )
    return _as_label_array(values, name)


def _score_array(values, name):
    """1-D float64 array of finite scores, with a clear error otherwise."""
    _check_shape(values, name, "score")
    if hasattr(values, "to_numpy"):
        values = values.to_numpy()
    arr = np.asarray(values)
    if arr.dtype.kind not in "biuf":
        raise ValueError(
            f"{name} must hold numbers (one score per row), got dtype "
            f"{arr.dtype}; pass predicted probabilities or scores, not labels."
        )
    # A copy: the result never shares memory with the caller's array.
    arr = np.array(arr, dtype=np.float64).reshape(-1)
    if not np.isfinite(arr).all():
        bad = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise ValueError(
            f"{name} contains NaN or infinity (first at row {bad}); every row "
            "needs a finite score. Drop or impute those rows first."
        )
    return arr


def _check_not_hard_labels(scores, name, labels, fix):
    """Reject scores that are the class labels themselves.

    Scores with exactly two distinct values that are 0 and 1 or the labels
    of ``y_true`` are almost surely ``predict(X)`` passed by mistake: the
    AUC or the calibration of such "scores" says nothing about the model's
    probabilities.
    """
    # Two passes, no sort: a million scores cost a few milliseconds.
    low, high = float(scores.min()), float(scores.max())
    if low == high or np.any((scores != low) & (scores != high)):
        return
    distinct = np.array([low, high])
    candidates = [{0.0, 1.0}]
    if labels.dtype.kind in "biuf":
        candidates.append({float(v) for v in labels.tolist()})
    if set(distinct.tolist()) in candidates:
        raise ValueError(
            f"{name} holds only the values {distinct.tolist()}, the class "
            "labels: these look like hard predictions (estimator.predict(X)), "
            f"not scores. Pass {fix}."
        )


def _check_binary_target(y_true, pos_label, return_classes=False):
    """Return a boolean array, True where ``y_true`` is the positive class."""
    y_true = _label_array(y_true, "y_true", "truth")
    if y_true.shape[0] == 0:
        raise ValueError("y_true is empty; at least one row with a true label is needed.")
    # The engine's encoder: mixed strings and numbers, or continuous values,
    # are a ValueError that names y_true, not a TypeError of np.unique.
    _, classes = encode_sorted(y_true, names=["y_true"])
    if classes.size > 2:
        raise ValueError(
            f"y_true must be binary, got {classes.size} classes; for a "
            "multiclass problem test one class against the rest, e.g. "
            "y_true == k with the scores of class k."
        )
    if pos_label is None:
        # As scikit-learn: labels in {0, 1} or {-1, 1}, as ints, floats or bools.
        if classes.dtype.kind not in "biuf" or not (
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
    positive = y_true == pos_label
    return (positive, classes) if return_classes else positive
