"""Step 1 of a comparison: labels to integer codes.

Every statistic of a comparison is a function of counts over (true label,
prediction, ...) cells, so the rows only need integer *codes*: truth and
predictions share one set of codes ``0..K-1`` in sorted label order
(:func:`encode_predictions`), record ids get codes ``0..n_records-1``
(:func:`encode_groups`).

Integer labels over a compact range need no encoding: their codes are the
labels less their minimum, kept as an offset so that large integer arrays
are not copied. Any other kind of label is encoded by
:mod:`._labels`, one implementation per kind of input.
"""

from typing import NamedTuple

import numpy as np
import pandas as pd

from ._labels import encode_sorted

__all__ = []

# Integer labels spanning at most this many values (or the number of rows)
# are encoded by offset, without sorting.
_MAX_DIRECT_RANGE = 2**16


class EncodedPredictions(NamedTuple):
    """Predictions encoded as integer codes into `values`.

    ``y_true`` and every array in ``preds`` hold ``code + offset``: the raw
    integer labels when ``offset`` is their minimum (no copy is made of
    large integer inputs), otherwise plain codes with ``offset == 0``.
    """

    y_true: np.ndarray
    preds: list
    values: np.ndarray
    offset: int


def encode_predictions(y_true, preds, names=None):
    """Encode truth and predictions into shared integer codes.

    Integer labels over a compact range are used as they are (codes are
    ``label - min``), so large integer inputs are neither sorted nor copied;
    any other labels (strings, objects, floats, sparse integer ranges) are
    encoded by hashing, with codes in sorted label order as scikit-learn's
    label encoders give. `names` name the arrays in error messages.
    """
    arrays = [y_true, *preds]
    n = y_true.shape[0]
    # The labels as codes: compare_precision of 10^7 rows of labels 0..9 is
    # 2.3x faster than with the labels encoded, clustered (5 rows per
    # record) or of 10 classifiers (benchmarks/bench_architecture.py).
    if all(a.dtype.kind in "iub" for a in arrays):
        lo = min(int(a.min()) for a in arrays)
        hi = max(int(a.max()) for a in arrays)
        if hi - lo < max(_MAX_DIRECT_RANGE, n):
            dtype = np.result_type(*[a.dtype for a in arrays])
            # Built modulo 2**64 and cast, so that labels near the ends of
            # int64 or uint64 keep their exact values.
            span = np.arange(hi - lo + 1, dtype=np.uint64) + np.uint64(lo % 2**64)
            values = span.astype(dtype) if dtype.kind != "b" else span.astype(bool)
            return EncodedPredictions(y_true, list(preds), values, lo)
    # Any other labels are hashed, not sorted (only the distinct labels
    # are); continuous values, NaN, inf and mixed types are errors there.
    codes, values = encode_sorted(*arrays, names=names)
    return EncodedPredictions(codes[0], list(codes[1:]), values, 0)


def label_codes(array, offset):
    """Codes ``label - offset`` of integer or bool labels, as intp, exactly.

    The subtraction is done in intp, never in the labels' own narrow type
    (int8 labels {-100, 100} or uint8 truth against a prediction of -1
    would overflow there); uint64 labels beyond the intp range are shifted
    modulo 2**64, which is exact because every code lies in [0, 2**63).
    """
    if array.dtype.kind == "b":
        array = array.view(np.uint8)
    if array.dtype.kind == "u" and array.dtype.itemsize == 8:
        return (array - np.uint64(int(offset) % 2**64)).astype(np.intp)
    if not offset:
        return array.astype(np.intp, copy=False)
    return np.subtract(array, int(offset), dtype=np.intp)


def encode_groups(groups):
    """Integer record codes (in sorted order of the ids) and the number of records.

    Integer ids over a compact range are coded by offset, without sorting:
    a record's code is its id less the smallest id when every id in the
    range is used (the common case, e.g. ``np.arange(n) // m`` or a
    permutation of it), else its rank among the ids present. Other ids are
    hashed (:func:`pandas.factorize`), and only the distinct ids sorted.
    The codes are a new array, never `groups` itself.
    """
    if groups.dtype.kind in "iub" and groups.size:
        lo, hi = int(groups.min()), int(groups.max())
        if hi - lo < max(_MAX_DIRECT_RANGE, 2 * groups.shape[0]):
            codes = label_codes(groups, lo)
            if np.shares_memory(codes, groups):
                codes = codes.copy()
            # Flags of one byte, not counts of eight: the writes stay in the
            # cache for ids in any order (half the time of a bincount).
            # What keeps stacked cross-validation rows (5 per record, 10^7
            # rows) within 5x the paired path: 4.7x, against 6.9x with
            # pandas.factorize(sort=True) of the ids (1.4x end to end,
            # benchmarks/bench_architecture.py).
            present = np.zeros(hi - lo + 1, dtype=bool)
            present[codes] = True
            n_records = int(np.count_nonzero(present))
            if n_records < present.shape[0]:
                codes = (np.cumsum(present) - 1)[codes]
            return codes, n_records
    codes, uniques = pd.factorize(groups, sort=True)
    return codes.astype(np.intp, copy=False), len(uniques)
