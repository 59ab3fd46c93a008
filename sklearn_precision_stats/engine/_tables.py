"""Joint tables: the sufficient statistic of one row per record.

With one row per record every statistic of a comparison is a function of
the joint table of (true label, prediction of each classifier): a record
adds one to one cell, so the table is one :func:`numpy.bincount` of each
row's joint code (:func:`joint_table`, from the codes of :mod:`._codes`).

Two kinds of labels are counted straight into a small table, without a
code per row first, because it pays (benchmarks/bench_architecture.py):

* :func:`integer_joint_table`: non-negative integers (or bools), used as
  their own codes; 1.5x faster than encoding then counting at 10^7 rows, and
  what keeps a comparison within 3x of one bincount pass;
* :func:`categorical_joint_table`: pandas categoricals, from their codes;
  2.8x faster than encoding their labels.

Each returns None when it does not apply; the caller then encodes the labels
(:func:`._codes.encode_predictions`) and counts the codes. Integer labels
whose table is too large (many classifiers) are still their own codes,
narrowed in one pass to the one byte per label that the counts read
(:func:`integer_codes`): 1.7x faster than encoding then narrowing them at
10^7 rows, 1.3x on the whole comparison of 5 classifiers, and what keeps the
cost per pair of classifiers clearly lower past the joint table (0.31x of
c = 2's at 10^7 records, against 0.41x without, 0.40x just before).
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
    out : ndarray of intp, default=None
        Buffer of the slice's length to write into.
    """
    arrays = [encoded.y_true[rows], *(p[rows] for p in encoded.preds)]
    # Horner's scheme in place on one intp buffer: a few passes and no
    # temporaries, which is most of the cost at 10^7 rows.
    if out is None:
        code = arrays[0].astype(np.intp, copy=True)
    else:
        code = out
        np.copyto(code, arrays[0], casting="unsafe")
    for arr in arrays[1:]:
        code *= n_values
        np.add(code, arr, out=code, casting="unsafe")
    if encoded.offset:
        code -= encoded.offset * sum(n_values**j for j in range(len(arrays)))
    return code


# Rows encoded per block in `joint_table`: a block's codes stay in the CPU
# cache between the Horner passes and the bincount (about 2x faster than
# whole-array passes at 10^7 rows).
_BLOCK_ROWS = 2**18


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
    if n_cells > _BLOCK_ROWS:
        # A large table would be re-allocated per block: one pass instead.
        table = np.bincount(_joint_codes(encoded, n_values), minlength=n_cells)
        return table.reshape((n_values,) * n_axes)
    table = np.zeros(n_cells, dtype=np.intp)
    buffer = np.empty(min(_BLOCK_ROWS, n_rows), dtype=np.intp)
    for start in range(0, n_rows, _BLOCK_ROWS):
        stop = min(start + _BLOCK_ROWS, n_rows)
        codes = _joint_codes(encoded, n_values, slice(start, stop), buffer[: stop - start])
        table += np.bincount(codes, minlength=n_cells)
    return table.reshape((n_values,) * n_axes)


# Rows per block of `integer_joint_table`: each block's labels are read once
# from memory and stay in cache for the range check, the packing and the
# bincount.
_FUSED_BLOCK_ROWS = 2**17


def integer_joint_table(arrays, max_cells=_MAX_JOINT_CELLS):
    """Joint table of non-negative integer (or bool) labels, in one pass.

    The labels are used as codes, packed ``bits`` bits per axis, with
    ``bits`` the bit length of the bitwise OR of every label: that OR is the
    range check (its sign bit flags a negative label), and computed block by
    block it costs no extra pass over memory, where a minimum and a maximum
    per array would cost two.

    Parameters
    ----------
    arrays : list of ndarray
        Truth, then each classifier's predictions, of one length.
    max_cells : int, default=_MAX_JOINT_CELLS
        The largest table counted.

    Returns
    -------
    table : ndarray of int, shape (K,) * len(arrays), or None
        Records per (truth, pred_1, ..., pred_C) cell with ``K`` the largest
        label plus one; None when some array is not of integers or bools,
        a label is negative, or the table would exceed `max_cells` cells
        (the general path encodes those labels).
    """
    if not all(isinstance(a, np.ndarray) and a.dtype.kind in "biu" for a in arrays):
        return None
    # uint64 labels beyond the int64 range look negative and go the general way.
    raw = [
        a.view(np.uint8) if a.dtype.kind == "b" else a.view(np.int64) if a.dtype == np.uint64 else a
        for a in arrays
    ]
    n_axes, n_rows = len(raw), raw[0].shape[0]
    bits, table = 0, np.zeros(1, dtype=np.intp)
    code = np.empty(min(_FUSED_BLOCK_ROWS, n_rows), dtype=np.intp)
    for start in range(0, n_rows, _FUSED_BLOCK_ROWS):
        parts = [a[start : start + _FUSED_BLOCK_ROWS] for a in raw]
        seen = 0
        for part in parts:
            seen |= int(np.bitwise_or.reduce(part))
        if seen < 0:
            return None
        if seen.bit_length() > bits:
            old = bits
            bits = seen.bit_length()
            if (seen + 1) ** n_axes > max_cells:
                # Too large a table, whether by blocks (a label is at least
                # 2 ** (bits - 1)) or by the whole-array pass (its size is
                # the OR of every label plus one).
                return None
            if (1 << bits) ** n_axes > min(max_cells, 4 * _FUSED_BLOCK_ROWS):
                # A large table: one whole-array pass (or the general path).
                return _integer_joint_table_whole(raw, max_cells)
            grown = np.zeros((1 << bits,) * n_axes, dtype=np.intp)
            grown[(slice(0, 1 << old),) * n_axes] = table.reshape((1 << old,) * n_axes)
            table = grown.reshape(-1)
        out = code[: parts[0].shape[0]]
        # An intp shift, so narrow labels are widened before they are shifted.
        np.left_shift(parts[0], np.intp(bits), out=out, casting="unsafe")
        for j, part in enumerate(parts[1:], start=1):
            np.bitwise_or(out, part, out=out, casting="unsafe")
            if j < n_axes - 1:
                out <<= bits
        table += np.bincount(out, minlength=table.shape[0])
    return _trim_table(table.reshape((1 << bits,) * n_axes))


def integer_codes(arrays):
    """Non-negative integer (or bool) labels below 256 as one-byte codes, in one pass.

    The labels are their own codes, as in :func:`integer_joint_table`. Each
    block of each array is range-checked while it is in the cache and
    narrowed to the uint8 codes that the counts read and the records keep:
    one pass over the labels, where encoding them (a minimum and a maximum)
    and narrowing the codes would take three.

    Parameters
    ----------
    arrays : list of ndarray
        Truth, then each classifier's predictions, of one length.

    Returns
    -------
    codes : list of ndarray of uint8
    n_values : int
        The largest label plus one.

    None when some array is not of integers or bools, or a label is
    negative or above 255 (the general path encodes those labels).
    """
    if not all(isinstance(a, np.ndarray) and a.dtype.kind in "biu" for a in arrays):
        return None
    raw = [a.view(np.uint8) if a.dtype.kind == "b" else a for a in arrays]
    codes = [np.empty(a.shape[0], dtype=np.uint8) for a in raw]
    high = 0
    for start in range(0, raw[0].shape[0], _FUSED_BLOCK_ROWS):
        for a, out in zip(raw, codes, strict=True):
            part = a[start : start + _FUSED_BLOCK_ROWS]
            if not 0 <= int(np.bitwise_or.reduce(part)) < 256:  # the sign bit: negative
                return None
            narrow = out[start : start + part.shape[0]]
            narrow[:] = part
            high = max(high, int(narrow.max()))
    return codes, high + 1


def _integer_joint_table_whole(raw, max_cells):
    seen = 0
    for a in raw:
        seen |= int(np.bitwise_or.reduce(a))
    if seen < 0:
        return None
    size = seen + 1
    if size ** len(raw) > max_cells:
        return None
    encoded = EncodedPredictions(raw[0], raw[1:], np.arange(size), 0)
    return _trim_table(joint_table(encoded))


def _trim_table(table):
    """The table cut to the largest label present plus one."""
    present = np.zeros(table.shape[0], dtype=bool)
    for axis in range(table.ndim):
        others = tuple(ax for ax in range(table.ndim) if ax != axis)
        present |= table.sum(axis=others) > 0
    size = int(np.flatnonzero(present)[-1]) + 1 if present.any() else 1
    return np.ascontiguousarray(table[(slice(0, size),) * table.ndim])


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
    table = integer_joint_table(codes)  # None when a code is -1: a missing label
    if table is None:
        return None
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
