"""Joint tables: the sufficient statistic of one row per record.

With one row per record every statistic of a comparison is a function of
the joint table of (true label, prediction of each classifier): a record
adds one to one cell, so the table is one :func:`numpy.bincount` of each
row's joint code (:func:`joint_table`, from the codes of :mod:`._codes`).

Integer labels spanning at most 256 values (bools, classes 0..9, -1/1)
become one-byte codes (the label itself when every label is in 0..255,
else the label less the smallest), narrowed and range-checked in one pass
over the labels (:func:`integer_codes`), not hashed: 3.8x faster than
encoding them on the whole comparison of 10^6 rows, 3.7x with 5
classifiers, 1.5x with clustered rows; the paired path at 10^7 rows needs
it to stay near 3x one bincount pass (2.7-3.5x across runs)
(benchmarks/bench_architecture.py, benchmarks/bench_engine.py). Pandas
categoricals are counted from their codes (:func:`categorical_joint_table`):
3.5x faster than encoding their labels.
"""

import math

import numpy as np
import pandas as pd

from ._codes import EncodedPredictions
from ._labels import encode_sorted

__all__ = []

# Largest joint (truth, predictions) table built in one bincount.
_MAX_JOINT_CELLS = 2**24
# Largest joint table a comparison of one row per record counts (fewer
# cells with few rows: :func:`._pipeline.table_cells`); beyond it the
# agreement counts come from the tables of small groups of classifiers
# (:func:`._counts.agreement_from_pairs`). At 10 classes the table of 4
# classifiers (10^5 cells) costs about what 3 groups of 3 cost; larger
# tables fall out of the cache and cost more per pair (measured in
# benchmarks/bench_architecture.py).
_MAX_TABLE_CELLS = 2**17


def _joint_codes(encoded, n_values, rows=slice(None), out=None):
    """Flat index of each row's (truth, pred_1, ..., pred_C) cell.

    Parameters
    ----------
    encoded : EncodedPredictions
    n_values : int
        Length of ``encoded.values`` (the base of the flat index).
    rows : slice, default=slice(None)
        The rows to encode.
    out : ndarray of unsigned int or intp, default=None
        Buffer of the slice's length to write into, of a type holding
        every cell's index.
    """
    arrays = [encoded.y_true[rows], *(p[rows] for p in encoded.preds)]
    # Horner's scheme in place on one buffer: a few passes and no
    # temporaries, which is most of the cost at 10^7 rows.
    if out is None:
        code = arrays[0].astype(np.intp, copy=True)
    else:
        code = out
        np.copyto(code, arrays[0], casting="unsafe")
    base = code.dtype.type(n_values)
    for arr in arrays[1:]:
        code *= base
        np.add(code, arr, out=code, casting="unsafe")
    return code


# Rows encoded per block in `joint_table`: a block's codes stay in the CPU
# cache between the Horner passes and the bincount (about 2x faster than
# whole-array passes at 10^7 rows).
_BLOCK_ROWS = 2**16
# Cells of the largest table counted block by block (a larger one would
# be re-allocated per block).
_BLOCK_CELLS = 2**18


def joint_table(encoded):
    """Counts of records in each (truth, pred_1, ..., pred_C) cell.

    Returns None when the table would have more than ``_MAX_JOINT_CELLS``
    cells.
    """
    n_values = len(encoded.values)
    n_axes = 1 + len(encoded.preds)
    n_cells = n_values**n_axes
    if n_cells > _MAX_JOINT_CELLS:
        return None
    n_rows = encoded.y_true.shape[0]
    if n_cells > _BLOCK_CELLS:
        table = np.bincount(_joint_codes(encoded, n_values), minlength=n_cells)
        return table.reshape((n_values,) * n_axes)
    table = np.zeros(n_cells, dtype=np.intp)
    # Cell indices in 16 bits where they fit: the Horner passes over a block
    # take 0.6x the time of 64-bit ones (10^7 rows, 10 classes).
    index_type = np.uint16 if n_cells <= 2**16 else np.uint32
    buffer = np.empty(min(_BLOCK_ROWS, n_rows), dtype=index_type)
    for start in range(0, n_rows, _BLOCK_ROWS):
        stop = min(start + _BLOCK_ROWS, n_rows)
        codes = _joint_codes(encoded, n_values, slice(start, stop), buffer[: stop - start])
        table += np.bincount(codes, minlength=n_cells)
    return table.reshape((n_values,) * n_axes)


# Rows per block of `integer_codes`: each block's labels are read once from
# memory and stay in cache for the range check and the narrowing.
_CODE_BLOCK_ROWS = 2**16


def integer_codes(arrays):
    """Integer (or bool) labels spanning at most 256 values as one-byte codes, in one pass.

    A label's code is the label less the smallest label ``low``, or the
    label itself when every label is in 0..255. Each block of each array is
    narrowed to the uint8 codes that the tables count and the records keep
    (the label modulo 256, which is exact once ``low`` modulo 256 is taken
    off, as every code is in 0..255) and range-checked while it is in the
    cache: by the maximum of its labels read as unsigned integers of their
    width, where a negative label is above 255, and past the first negative
    or large label by its minimum and maximum. One pass over the labels,
    where encoding them (a minimum and a maximum) and narrowing the codes
    would take three.

    Parameters
    ----------
    arrays : list of ndarray
        Truth, then each classifier's predictions, of one length.

    Returns
    -------
    codes : list of ndarray of uint8
    values : ndarray
        The label of each code, in the arrays' common type.

    None when some array is not of integers or bools, the labels span more
    than 256 values, or their common type is not an integer one (int64
    with uint64): the general path encodes those labels.
    """
    if not all(isinstance(a, np.ndarray) and a.dtype.kind in "biu" for a in arrays):
        return None
    dtype = np.result_type(*[a.dtype for a in arrays])
    if dtype.kind not in "biu":
        return None
    raw = [a.view(np.uint8) if a.dtype.kind == "b" else a for a in arrays]
    # int8's negative labels read as 128..255 unsigned, above any it holds.
    limits = [127 if a.dtype == np.int8 else 255 for a in raw]
    codes = [np.empty(a.shape[0], dtype=np.uint8) for a in raw]
    high, low, read = 0, None, False  # low: None while every label is in 0..255
    for start in range(0, raw[0].shape[0], _CODE_BLOCK_ROWS):
        for a, limit, out in zip(raw, limits, codes, strict=True):
            part = a[start : start + _CODE_BLOCK_ROWS]
            out[start : start + part.shape[0]] = part  # the labels modulo 256
            if low is None:
                top = int(part.view(f"u{part.dtype.itemsize}").max())
                if top <= limit:
                    high, read = max(high, top), True
                    continue
                # Labels read so far are in 0..high: the smallest is at most 0.
                low, high = (0, high) if read else (int(part.min()), int(part.max()))
            low, high = min(low, int(part.min())), max(high, int(part.max()))
            if high - low > 255:
                return None
    low = 0 if low is None else low
    if low % 256:
        for out in codes:
            out -= np.uint8(low % 256)
    # Built modulo 2**64 and cast, so that labels near the ends of int64 or
    # uint64 keep their exact values.
    span = np.arange(high - low + 1, dtype=np.uint64) + np.uint64(low % 2**64)
    return codes, span.astype(dtype)


def integer_joint_table(arrays, max_cells=_MAX_JOINT_CELLS):
    """Joint table of integer (or bool) labels spanning at most 256 values.

    The labels' one-byte codes (:func:`integer_codes`) counted by
    :func:`joint_table`.

    Returns
    -------
    table : ndarray of intp, shape (K,) * len(arrays)
        Records per (truth, pred_1, ..., pred_C) cell.
    values : ndarray of shape (K,)
        The label of each code.

    None when :func:`integer_codes` does not apply or the table would
    exceed `max_cells` cells.
    """
    narrow = integer_codes(arrays)
    if narrow is None or len(narrow[1]) ** len(arrays) > max_cells:
        return None
    codes, values = narrow
    return joint_table(EncodedPredictions(codes[0], codes[1:], values)), values


def categorical_joint_table(arrays, max_cells, names=None):
    """Joint table of pandas categorical labels, from their codes.

    The codes are counted as integer labels (:func:`integer_joint_table`),
    and only the table's axes are mapped to the sorted labels.

    Parameters
    ----------
    arrays : list
        Truth, then each classifier's predictions, of one length.
    max_cells : int
        The largest table (in categories per array) counted this way.
    names : list of str, default=None
        Argument names for the encoder's messages.

    Returns
    -------
    table : ndarray of intp, shape (K,) * len(arrays)
        Records per (truth, pred_1, ..., pred_C) cell, labels sorted.
    values : ndarray of shape (K,)
        The labels, sorted, as :func:`._labels.encode_sorted` gives them.

    None when some array is not a :class:`pandas.Categorical`, a label is
    missing (the encoder then names its row) or the table would be too
    large.
    """
    if not all(isinstance(arr, pd.Categorical) for arr in arrays):
        return None
    codes = [np.asarray(arr.codes) for arr in arrays]
    uniques = [arr.categories.to_numpy() for arr in arrays]
    if math.prod(max(u.shape[0], 1) for u in uniques) > max_cells:
        return None
    counted = integer_joint_table(codes)
    if counted is None or counted[1][0] != 0:  # a code of -1: a missing label
        return None
    table = counted[0]
    # Every category is a label, used or not, as the encoder has it.
    full = np.zeros([u.shape[0] for u in uniques], dtype=table.dtype)
    kept = tuple(slice(0, min(table.shape[0], u.shape[0])) for u in uniques)
    full[kept] = table[kept]
    return _table_over_labels(full, uniques, names)


def _table_over_labels(table, axis_labels, names=None):
    """A table over each axis's own labels, re-indexed by their sorted union.

    The labels are encoded as :func:`encode_sorted` encodes label arrays,
    so the values (and their checks and type) are the encoder's.
    """
    codes, values = encode_sorted(*axis_labels, names=names)
    out = np.zeros((values.shape[0],) * table.ndim, dtype=np.intp)
    if all(np.unique(c).shape[0] == c.shape[0] for c in codes):
        out[np.ix_(*codes)] = table
    else:  # equal labels held by different objects share a code
        np.add.at(out, np.ix_(*codes), table)
    return out, values
