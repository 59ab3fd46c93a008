"""Joint tables: the sufficient statistic of one row per record.

With one row per record every statistic of a comparison is a function of
the joint table of (true label, prediction of each classifier): a record
adds one to one cell. When the table is small it is counted straight from
the labels, without writing a code per row first:

* :func:`integer_joint_table`: non-negative integer (or bool) labels, used
  as their own codes;
* :func:`string_joint_table`: fixed-width NumPy strings, through the
  mixed-radix keys of :class:`._labels._StringScan`;
* :func:`object_joint_table`: object arrays of a few shared objects
  (a classifier's ``classes_[indices]``), through
  :class:`._labels._SharedObjects`;
* :func:`factorized_joint_table`: pandas categoricals and string arrays,
  from their codes;
* :func:`joint_table`: label codes from :mod:`._codes`, any kind.

Each returns None when it does not apply; the caller then encodes the labels
(:func:`._codes.encode_predictions`) and counts the codes.
"""

import math

import numpy as np
import pandas as pd

from ._codes import EncodedPredictions
from ._labels import (
    _OBJECT_ROWS,
    _confirmed_scan,
    _guessed_scan,
    _SharedObjects,
    encode_sorted,
)

__all__ = []

# Largest joint (truth, predictions) table built in one bincount.
_MAX_JOINT_CELLS = 2**24
# Largest joint table a comparison of one row per record counts; beyond it
# the agreement counts are counted pair of classifiers by pair
# (:func:`._counts.agreement_from_pairs`). At 10 classes the table of 4
# classifiers (10^5 cells) costs about what their 6 pairs cost; larger
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
            if ((1 << (bits - 1)) + 1) ** n_axes > max_cells:
                # Some label is at least 2 ** (bits - 1): too large a table.
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


def object_joint_table(arrays, max_cells, names=None):
    """Joint table of object labels of a few shared objects, counted while they are read.

    The object counterpart of :func:`string_joint_table`: each array's
    codes (:class:`_SharedObjects`) are computed slice by slice, the slices'
    joint codes counted at once, and only the table's axes mapped to the
    sorted labels.

    Returns
    -------
    (table, values) as :func:`string_joint_table`, or None when some array
    is not a 1-D object array of a few shared objects, an object is missing
    from the sample of rows or a label is missing (the general path then
    encodes them), or the table would exceed `max_cells` cells.
    """
    if not all(isinstance(a, np.ndarray) and a.ndim == 1 and a.dtype == object for a in arrays):
        return None
    tables = []
    for arr in arrays:
        shared = _SharedObjects.of(arr)
        if shared is None:
            return None
        tables.append(shared)
    sizes = [t.objects.shape[0] for t in tables]
    n_cells = math.prod(sizes)
    if n_cells > max_cells:
        return None
    n = arrays[0].shape[0]
    code = np.empty(min(n, _OBJECT_ROWS), dtype=np.intp)
    joint = np.empty(min(n, _OBJECT_ROWS), dtype=np.intp)
    table = np.zeros(n_cells, dtype=np.intp)
    for start in range(0, n, _OBJECT_ROWS):
        stop = min(start + _OBJECT_ROWS, n)
        out = joint[: stop - start]
        for i, (shared, size) in enumerate(zip(tables, sizes, strict=True)):
            if i:
                out *= size
            if shared.codes(start, stop, out if i == 0 else code[: stop - start]).size:
                return None  # an object the sample missed: the general path
            if i:
                out += code[: stop - start]
        table += np.bincount(out, minlength=n_cells)
    return _table_over_labels(table.reshape(sizes), [t.objects for t in tables], names)


def string_joint_table(arrays, max_cells, names=None):
    """Joint table of fixed-width string labels, counted while they are read.

    The string counterpart of :func:`._counts.integer_joint_table`: every
    array's mixed-radix key (:class:`_StringScan`) is computed slice by
    slice, the slices' joint keys counted at once, and only the table's
    axes are mapped to the sorted labels, so no per-row code array is
    written. A sample that misses a varying character costs one more pass.

    Parameters
    ----------
    arrays : list of ndarray
        Truth, then each classifier's predictions, of one length.
    max_cells : int
        The largest table (in keys) counted this way.
    names : list of str, default=None
        Argument names for the encoder's messages.

    Returns
    -------
    table : ndarray of intp, shape (K,) * len(arrays)
        Records per (truth, pred_1, ..., pred_C) cell, labels sorted.
    values : ndarray of str, shape (K,)
        The labels, sorted, as :func:`encode_sorted` gives them.

    None when some array is not a non-empty 1-D NumPy ``str`` array or the
    keys allow more than `max_cells` cells (the general path encodes those).
    """
    if not all(
        isinstance(a, np.ndarray) and a.ndim == 1 and a.dtype.kind == "U" and a.dtype.itemsize
        for a in arrays
    ):
        return None
    n = arrays[0].shape[0]
    if n == 0:
        return None
    # Native byte order: swapped characters would make the spans huge.
    arrays = [np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("=")) for a in arrays]
    scans = [_guessed_scan(a.view(np.uint32).reshape(n, -1)) for a in arrays]
    while True:
        sizes = [s.n_keys for s in scans]
        n_cells = math.prod(sizes)
        if n_cells > max_cells:
            return None
        table = _count_string_keys(scans, n, n_cells)
        retry = [_confirmed_scan(s) for s in scans]
        if all(r is None for r in retry):
            if table is None:  # keys out of range under confirmed columns: cannot happen
                return None
            break
        scans = [s if r is None else r for s, r in zip(scans, retry, strict=True)]
    table = table.reshape(sizes)
    # Each axis's present keys and their labels.
    present, labels = [], []
    for axis, (scan, arr) in enumerate(zip(scans, arrays, strict=True)):
        others = tuple(a for a in range(table.ndim) if a != axis)
        keys = np.flatnonzero(table.sum(axis=others))
        present.append(keys)
        labels.append(scan.labels_of(keys, scan.ranges()[0], arr.dtype))
    return _table_over_labels(table[np.ix_(*present)], labels, names)


def factorized_joint_table(arrays, max_cells, names=None):
    """Joint table of pandas categorical or string labels, from their codes.

    A categorical brings its codes; a pandas string array (Arrow-backed by
    default) is factorised by pandas' hash table, which is far cheaper than
    turning it into Python strings. The codes are counted as integer labels
    (:func:`._counts.integer_joint_table`), and only the table's axes are
    mapped to the sorted labels.

    Parameters
    ----------
    arrays : list
        Truth, then each classifier's predictions, of one length.
    max_cells : int
        The largest table (in distinct labels per array) counted this way.
    names : list of str, default=None
        Argument names for the encoder's messages.

    Returns
    -------
    (table, values) as :func:`string_joint_table`, or None when some array
    is neither a :class:`pandas.Categorical` nor a pandas string array,
    a label is missing (the encoder then names its row) or the table
    would be too large.
    """
    codes, uniques = [], []
    for arr in arrays:
        if isinstance(arr, pd.Categorical):
            codes.append(np.asarray(arr.codes))
            uniques.append(arr.categories.to_numpy())
        elif isinstance(arr, pd.api.extensions.ExtensionArray) and isinstance(
            arr.dtype, pd.StringDtype
        ):
            code, unique = pd.factorize(arr, use_na_sentinel=True)
            codes.append(code)
            uniques.append(np.asarray(unique, dtype=object))
        else:
            return None
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


def _count_string_keys(scans, n, n_cells):
    """Rows per joint key of the scans' arrays, slice by slice.

    None when a key falls outside the table, which only a wrong guess of
    the varying columns does (the scans' ranges then refute it).
    """
    rows = min(s.rows for s in scans)
    joint = np.empty(min(rows, n), dtype=np.intp)
    # The joint key is one mixed-radix number over every array's columns,
    # built in place (Horner's scheme); the arrays' offsets are combined
    # into one, subtracted once per slice (int64 wrap-around keeps it exact).
    offset = 0
    for scan in scans:
        offset = offset * scan.n_keys + int(scan.offset)
    offset = np.int64((offset + 2**63) % 2**64 - 2**63)
    table = np.zeros(n_cells, dtype=np.intp)
    for start in range(0, n, rows):
        stop = min(start + rows, n)
        out = joint[: stop - start]
        for i, scan in enumerate(scans):
            scan.scan(start, stop, out, subtract=False, horner=i > 0)
        if table is None:
            continue  # a wrong guess: the scan goes on for the true ranges only
        out -= offset
        # Under a wrong guess of the columns a key may fall outside the table.
        try:
            counts = np.bincount(out, minlength=n_cells)
        except ValueError:  # a negative key
            counts = None
        if counts is None or counts.shape[0] != n_cells:
            table = None
        else:
            table += counts
    return table
