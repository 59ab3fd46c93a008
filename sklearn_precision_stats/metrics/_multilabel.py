"""Multilabel indicator inputs: validation, shared by every comparison."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

from ..utils._validation import _named_items, reference_order

__all__ = []


def is_indicator_matrix(y: Any) -> bool:
    """Whether `y` is 2-D (scikit-learn's multilabel indicator format)."""
    # A column vector (n, 1) is one label array, as in scikit-learn.
    if hasattr(y, "ndim") and hasattr(y, "shape"):
        return int(y.ndim) == 2 and int(y.shape[1]) > 1
    return bool(isinstance(y, (list, tuple)) and y and isinstance(y[0], (list, tuple, np.ndarray)))


def _indicator(y: Any, name: str) -> np.ndarray:
    if hasattr(y, "toarray"):  # scipy.sparse
        y = y.toarray()
    array = np.asarray(y)
    if array.ndim != 2 or array.shape[0] == 0 or array.shape[1] == 0:
        raise ValueError(
            f"{name} must be a non-empty multilabel indicator matrix of shape "
            f"(n_rows, n_labels), got shape {array.shape}."
        )
    if array.dtype.kind == "b":
        return array.astype(np.uint8)
    if array.dtype.kind not in "iuf" or not _zeros_and_ones(array):
        raise ValueError(
            f"{name} must hold only 0 and 1 (a multilabel indicator matrix); "
            "binarize the labels, e.g. with sklearn.preprocessing.MultiLabelBinarizer."
        )
    return array.astype(np.uint8)


def _zeros_and_ones(array: np.ndarray) -> bool:
    if array.dtype.kind in "iu":
        return bool(array.min() >= 0 and array.max() <= 1)
    return bool(((array == 0) | (array == 1)).all())


def check_multilabel(
    y_true: Any, y_preds: Any, reference: Hashable | None
) -> tuple[np.ndarray, list[str], list[np.ndarray]]:
    """Validate indicator matrices: truth, names (reference first), predictions."""
    y = _indicator(y_true, "y_true")
    items = _named_items(
        y_preds,
        "y_preds",
        "a dict mapping classifier name to predicted indicator matrices",
        "add the predictions of a reference classifier",
    )
    names = [name for name, _ in items]
    preds = []
    for name, pred in items:
        shape = np.shape(pred)
        if len(shape) != 2:
            raise ValueError(
                f"y_preds[{name!r}] has shape {shape} but y_true has shape {y.shape}: "
                "y_true must be 1-D like the predictions, or every prediction a "
                "multilabel indicator matrix of y_true's shape."
            )
        pred = _indicator(pred, f"y_preds[{name!r}]")
        if pred.shape != y.shape:
            raise ValueError(
                f"y_preds[{name!r}] has shape {pred.shape} but y_true has {y.shape}; "
                "every classifier must predict every label of every row."
            )
        preds.append(pred)
    order = reference_order(names, reference)
    return y, [names[i] for i in order], [preds[i] for i in order]


# Roles of the stacked (label, bit) classes whose one-vs-rest measure is the
# label's measure: a row of label j is coded 2 j + bit, so label j's
# precision and recall are those of class 2 j + 1, its NPV the precision of
# class 2 j and its specificity the recall of class 2 j.
_STACKED = {
    "precision": ("precision", 1),
    "recall": ("recall", 1),
    "npv": ("precision", 0),
    "specificity": ("recall", 0),
}


def _label_indices(labels: Any, n_labels: int) -> np.ndarray:
    if labels is None:
        return np.arange(n_labels)
    chosen = np.asarray(labels)
    if (
        chosen.ndim != 1
        or chosen.size == 0
        or chosen.dtype.kind not in "iu"
        or chosen.min() < 0
        or chosen.max() >= n_labels
        or len(set(chosen.tolist())) != chosen.size
    ):
        raise ValueError(
            f"labels must list distinct label indices (columns) in 0..{n_labels - 1} for "
            f"multilabel indicator inputs, got {np.asarray(labels).tolist()}."
        )
    return chosen


def compare_multilabel(
    y_true: Any,
    y_preds: Any,
    reference: Hashable | None,
    groups: Any,
    labels: Any,
    confidence_level: float,
    engine: str,
    metric: str,
    stacklevel: int,
    cov_type: str,
    compare: Any,
) -> Any:
    """A paired comparison of multilabel indicator matrices: one row per label.

    Each label (column) is the binary problem of its positive class, on the
    same records, so each row equals the comparison of that column alone.
    The records stay the units of the across-label methods
    (``global_test``): the comparison keeps the records of the stacked
    (label, bit) classes, all of a record's labels together (for accuracy,
    of the stacked (label, right or wrong) classes, so that each label's
    accuracy test is combined with the others' rather than pooled).
    `compare` compares one binary problem (``paired._compare._compare``):
    passed in, so that this module does not import the module that calls it.
    """
    import warnings

    from ..exceptions import UndefinedStatisticWarning
    from ..results._paired_comparison import PairedComparison
    from ..utils._validation import _check_groups

    y, names, preds = check_multilabel(y_true, y_preds, reference)
    n_rows, n_labels = y.shape
    groups = _check_groups(groups, n_rows)
    chosen = _label_indices(labels, n_labels)
    pooled = metric == "accuracy"
    results, messages = [], []
    for j in chosen.tolist():
        column = {name: pred[:, j] for name, pred in zip(names, preds, strict=True)}
        if not pooled and not (y[:, j].any() or any(p[:, j].any() for p in preds)):
            raise ValueError(
                f"label {j} has no positive row and no positive prediction; its "
                f"{metric} is not defined. Leave it out with labels=..."
            )
        # The label's reasons come back in a list, to be said in one warning
        # for all labels (never under warnings.catch_warnings, which is
        # process-wide state).
        found: list[str] = []
        result = compare(
            y[:, j],
            column,
            names[0],
            groups,
            None if pooled else [1],
            confidence_level,
            engine,
            metric,
            stacklevel,
            cov_type,
            diagnostics=found,
        )
        if found:
            messages.append(f"label {j}: {' '.join(found)}")
        results.append(result)
    if messages:
        warnings.warn(" ".join(messages), UndefinedStatisticWarning, stacklevel=stacklevel)
    first = results[0]
    statistics = {
        key: np.concatenate([np.asarray(r._statistics[key]) for r in results], axis=0)
        for key in first._statistics
    }
    omnibus = {
        key: np.concatenate([np.asarray(r._omnibus[key]) for r in results], axis=0)
        for key in first._omnibus
    }
    records = np.repeat(np.arange(n_rows) if groups is None else groups, n_labels)
    if pooled:
        # Label j's accuracy is the recall of class j when each of its rows is
        # coded j in the truth and j (right) or L + j (wrong) in a prediction:
        # the same per-label tests, on records that keep all their labels.
        columns = np.arange(n_labels)
        truth = np.broadcast_to(columns, y.shape).reshape(-1)
        stacked = {
            name: np.where(pred == y, columns, n_labels + columns).reshape(-1)
            for name, pred in zip(names, preds, strict=True)
        }
        role_metric, reported = "recall", chosen
        # Each row of the table is one label's own test, not classes pooled.
        role = first._role._replace(pooled=False)
    else:
        role_metric, bit = _STACKED[metric]
        offsets = 2 * np.arange(n_labels)
        truth = (offsets + y).reshape(-1)
        stacked = {
            name: (offsets + pred).reshape(-1) for name, pred in zip(names, preds, strict=True)
        }
        reported, role = 2 * chosen + bit, first._role
    # Only the stacked data is kept: its reasons, the labels', are said above.
    data = compare(
        truth,
        stacked,
        names[0],
        records,
        reported.tolist(),
        confidence_level,
        "closed-form",
        role_metric,
        stacklevel,
        cov_type,
        diagnostics=[],
    )._data
    return PairedComparison(
        statistics,
        omnibus,
        classes=chosen,
        classifiers=first.classifiers,
        role=role,
        confidence_level=first.confidence_level,
        engine=first.engine,
        n_rows=first.n_rows,
        n_records=first.n_records,
        cov_type=first.cov_type,
        data=data,
    )
