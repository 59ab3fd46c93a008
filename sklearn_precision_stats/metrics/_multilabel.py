"""Multilabel indicator inputs: validation, shared by every comparison."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np

from ..utils._validation import _named_items

__all__ = []


def is_indicator_matrix(y: Any) -> bool:
    """Whether `y` is 2-D (scikit-learn's multilabel indicator format)."""
    if hasattr(y, "ndim"):
        return int(y.ndim) == 2
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
        pred = _indicator(pred, f"y_preds[{name!r}]")
        if pred.shape != y.shape:
            raise ValueError(
                f"y_preds[{name!r}] has shape {pred.shape} but y_true has {y.shape}; "
                "every classifier must predict every label of every row."
            )
        preds.append(pred)
    if reference is None:
        ref = 0
    elif reference in names:
        ref = names.index(reference)
    else:
        raise ValueError(
            f"reference={reference!r} is not one of the classifiers {names}; pass one "
            "of these names or None for the first."
        )
    order = [ref] + [i for i in range(len(names)) if i != ref]
    return y, [names[i] for i in order], [preds[i] for i in order]
