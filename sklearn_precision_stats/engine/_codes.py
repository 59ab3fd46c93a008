"""Step 1 of a comparison: labels to integer codes.

Every statistic of a comparison is a function of counts over (true label,
prediction, ...) cells, so the rows only need integer *codes*: truth and
predictions share one set of codes ``0..K-1`` in sorted label order
(:func:`encode_predictions`), record ids get codes ``0..n_records-1``
(:func:`encode_groups`).

Integer labels of a small range are one-byte codes in one pass
(:func:`._tables.integer_codes`); any other kind of label is encoded by
:mod:`._labels`, one implementation per kind of input.
"""

from typing import NamedTuple

import numpy as np
import pandas as pd

from ._labels import encode_sorted

__all__ = []


class EncodedPredictions(NamedTuple):
    """Truth and predictions as integer codes ``0..len(values) - 1`` into `values`."""

    y_true: np.ndarray
    preds: list
    values: np.ndarray


def encode_predictions(y_true, preds, names=None):
    """Encode truth and predictions into shared integer codes.

    The labels are hashed, not sorted (only the distinct labels are), with
    codes in sorted label order as scikit-learn's label encoders give;
    continuous values, NaN, inf and mixed types are errors there. `names`
    name the arrays in error messages.
    """
    codes, values = encode_sorted(y_true, *preds, names=names)
    return EncodedPredictions(codes[0], list(codes[1:]), values)


def encode_groups(groups):
    """Integer record codes (in sorted order of the ids) and the number of records.

    The ids are hashed (:func:`pandas.factorize`), and only the distinct ids
    sorted. The codes are a new array, never `groups` itself.
    """
    codes, uniques = pd.factorize(groups, sort=True)
    return codes.astype(np.intp, copy=False), len(uniques)
