"""Records as resampling units, kept in proportion to what is distinct.

The resampling methods (the global null's permutations and bootstrap, the
bootstrap of precision at a prevalence) and the bias-reduced covariance of
clustered rows need more than the additive counts: they need each record's
category counts per class. They never need the rows themselves.

* With one row per record, records with the same truth and predictions are
  interchangeable: each nonzero cell of the joint (truth, pred_1, ...,
  pred_C) table is one *unit* of ``multiplicity`` identical records. A
  comparison keeps the table's nonzero cells only, so its memory is in
  proportion to the distinct cells, not to the records.
* With clustered rows each record is a unit; the comparison keeps, per
  touched (record, class) pair, the record's rows in each category, in the
  smallest integer types that hold them.

:class:`StoredRecords` is what a comparison keeps. With one row per record
:meth:`StoredRecords.units` expands it into :class:`RecordUnits`, the form
the resampling code uses. Clustered records are read block by block
(:meth:`StoredRecords.key_blocks`): for every touched (record, class) key
its counts, packed in one number. What a key adds to a statistic depends
only on its class and counts, so :func:`resampled_group_sums` and
:func:`group_sums` count keys by groups of equal digits and compute the
features once per group; a resample draws one weight per record (a random
bit for a paired permutation, a multinomial count for the bootstrap) and
sums them per group with one sparse product per block of records. Memory
stays in proportion to a block, time to keys x resamples in compiled
loops.
"""

from typing import NamedTuple

import numpy as np
from scipy import sparse

from ._counts import (
    FN,
    FP,
    POOLED_CLASS,
    TN,
    TP,
    correct_rows,
    with_true_negatives,
)

__all__ = []

# Records per block of keys: a block's sums of 0/1 weights stay below 2**15.
BLOCK_RECORDS = 2**14


class RecordUnits(NamedTuple):
    """Per (unit, class) category counts of one record of each unit.

    A unit is ``multiplicity`` records with the same rows. A record that
    does not touch class ``k`` (no row truly of ``k`` and no prediction
    ``k``) has all its ``unit_rows`` rows true negatives for ``k``; only the
    touched (unit, class) pairs are listed.

    Attributes
    ----------
    key_unit, key_class : ndarray of intp, shape (n_keys,)
        The touched (unit, class code) pairs, each once.
    x : ndarray of float, shape (n_keys, n_classifiers, 4)
        Rows of one record of the unit in each category (TP, FN, FP, TN)
        for the key's class.
    unit_rows : ndarray of float, shape (n_units,)
        Rows of one record of the unit.
    multiplicity : ndarray of int64, shape (n_units,)
        Records in the unit.
    n_values : int
        Class codes are ``0..n_values - 1``.
    """

    key_unit: np.ndarray
    key_class: np.ndarray
    x: np.ndarray
    unit_rows: np.ndarray
    multiplicity: np.ndarray
    n_values: int

    @property
    def n_units(self):
        return self.multiplicity.shape[0]

    def pooled(self):
        """The units of accuracy's pseudo-class (class ``POOLED_CLASS`` of 2).

        Every row is truly of the pseudo-class and "predicted" as it when
        the classifier is right; a row is right for its true class only, so
        a record's correct rows are its true positives summed over classes.
        """
        n_clf = self.x.shape[1]
        correct = correct_rows(self.x, self.key_unit, self.n_units)
        x = np.zeros((self.n_units, n_clf, 4))
        x[..., TP] = correct
        x[..., FN] = self.unit_rows[:, None] - correct
        units = np.arange(self.n_units)
        return RecordUnits(
            units,
            np.full(self.n_units, POOLED_CLASS, dtype=np.intp),
            x,
            self.unit_rows,
            self.multiplicity,
            2,
        )


def units_of_single_rows(y, preds, multiplicity, n_values):
    """Units of one row each (the cells of a joint table).

    Parameters
    ----------
    y : ndarray of int, shape (n_units,)
        True label code of each unit's row.
    preds : list of ndarray of int
        Each classifier's prediction code of the unit's row.
    multiplicity : ndarray, shape (n_units,)
        Records in each unit.
    n_values : int
    """
    labels = [np.asarray(y, dtype=np.intp), *(np.asarray(p, dtype=np.intp) for p in preds)]
    n_units = labels[0].shape[0]
    # A row touches its true class and each predicted class, each once.
    key_unit, key_class = [], []
    for j, a in enumerate(labels):
        new = np.ones(n_units, dtype=bool)
        for m in range(j):
            new &= a != labels[m]
        units = np.flatnonzero(new)
        key_unit.append(units)
        key_class.append(a[units])
    key_unit = np.concatenate(key_unit)
    key_class = np.concatenate(key_class)
    truth_is_k = labels[0][key_unit] == key_class
    x = np.zeros((key_unit.shape[0], len(preds), 4))
    for c, p in enumerate(labels[1:]):
        category = np.where(truth_is_k, TP, FP) + (p[key_unit] != key_class)  # TP->FN, FP->TN
        x[np.arange(key_unit.shape[0]), c, category] = 1.0
    return RecordUnits(
        key_unit,
        key_class,
        x,
        np.ones(n_units),
        np.asarray(multiplicity, dtype=np.int64),
        int(n_values),
    )


def _smallest_uint(high):
    return np.min_scalar_type(max(int(high), 0))


def _frozen(array, copy=True):
    out = np.array(array, copy=True) if copy else array
    out.flags.writeable = False
    return out


def packed_space(base, n_classifiers):
    """Values of :attr:`KeyBlock.packed`, or None when they would not fit in 62 bits."""
    space = base ** (3 * n_classifiers)
    return space if space < 2**62 else None


class KeyBlock:
    """The touched (record, class) keys of a block of consecutive records.

    Attributes
    ----------
    start : int
        Code of the block's first record.
    key_record : ndarray of intp, shape (n_keys,)
        Record of each key, counted from `start`, in increasing order.
    key_class : ndarray of intp, shape (n_keys,)
    record_rows : ndarray of int, shape (n_block,)
        Rows of each record of the block.
    base : int
        One more than the rows of the largest record.
    x : ndarray of int, shape (n_keys, n_classifiers, 3)
        Rows of the key's record in TP, FN and FP for the key's class
        (true negatives are the record's other rows).
    packed : ndarray of int64, shape (n_keys,), or None
        The same counts as one number, ``sum x[c, u] * base**(3 c + u)``
        (:func:`packed_space`), or None when it would not fit. Either form
        is made from the other when first read.
    """

    def __init__(
        self, start, key_record, key_class, record_rows, base, x=None, packed=None, table=None
    ):
        self.start, self.key_record, self.key_class = start, key_record, key_class
        self.record_rows, self.base = record_rows, base
        self._x, self._packed = x, packed
        self._table = table  # (packed_space, n_classifiers, 3) counts of every packed value

    @property
    def x(self):
        if self._x is None:
            self._x = self._table[self._packed]
        return self._x

    @property
    def packed(self):
        if self._packed is None:
            x = self._x
            if packed_space(self.base, x.shape[1]) is None:
                return None
            packed = np.zeros(x.shape[0], dtype=np.int64)
            for digit in x.reshape(x.shape[0], -1).T[::-1]:
                packed *= self.base
                packed += digit
            self._packed = packed
        return self._packed


def kept(mask):
    """Indices of the True entries of `mask`, or a slice of all when every entry is True."""
    return slice(None) if mask.all() else np.flatnonzero(mask)


def count_radices(base, n_classifiers):
    """Radices of :func:`count_digits`: one packed number, or a digit per count."""
    space = packed_space(base, n_classifiers)
    return [base] * (3 * n_classifiers) if space is None else [space]


def count_digits(block, keys):
    """The counts of the keys at `keys` as digits of a group code (:func:`count_radices`)."""
    if block.packed is not None:
        return [block.packed[keys]]
    x = block.x[keys]
    n_classifiers = x.shape[1]
    return [x[:, c, u] for c in range(n_classifiers) for u in range(3)]


def counts_of_digits(digits, base, n_classifiers):
    """The (n, n_classifiers, 3) counts of the digits :func:`count_digits` gave."""
    if packed_space(base, n_classifiers) is None:
        return digits.reshape(-1, n_classifiers, 3)
    return unpack_counts(digits[:, 0], base, n_classifiers)


def unpack_counts(packed, base, n_classifiers):
    """The (n, n_classifiers, 3) counts of :attr:`KeyBlock.packed` values."""
    packed = np.asarray(packed, dtype=np.int64)
    x = np.empty((packed.shape[0], 3 * n_classifiers), dtype=np.int64)
    for j in range(3 * n_classifiers):
        packed, x[:, j] = np.divmod(packed, base)
    return x.reshape(-1, n_classifiers, 3)


class StoredRecords:
    """The records of a comparison, kept compactly for the resampling methods.

    Built by :meth:`from_table` (one row per record: the nonzero cells of
    the joint table), :meth:`from_codes` (one row per record when the joint
    table would be too large: the label codes, in one byte each for up to
    256 labels), :meth:`from_keys` (clustered rows: per (record, class)
    category counts) or :meth:`from_slots` (clustered rows: the cells of
    each record's few rows, two bytes each). Read-only.
    """

    def __init__(self, kind, arrays, n_values, n_classifiers, copy=True):
        self._kind = kind
        self._arrays = {name: _frozen(a, copy) for name, a in arrays.items()}
        self.n_values = int(n_values)
        self.n_classifiers = int(n_classifiers)

    @classmethod
    def from_table(cls, table):
        """From a joint (truth, pred_1, ..., pred_C) table of records."""
        table = np.asarray(table)
        flat = table.reshape(-1)
        cells = np.flatnonzero(flat)
        counts = flat[cells]
        arrays = {
            "cells": cells.astype(_smallest_uint(flat.shape[0] - 1)),
            "counts": counts.astype(_smallest_uint(counts.max() if counts.size else 0)),
        }
        return cls("cells", arrays, table.shape[0], table.ndim - 1)

    @classmethod
    def from_codes(cls, y, preds, n_values, copy=True):
        """From label codes of one row per record.

        With `copy` False the arrays are the caller's to give away: those
        already in the smallest unsigned type are kept as they are.
        """
        dtype = _smallest_uint(n_values - 1)
        arrays = {"y": np.asarray(y).astype(dtype, copy=copy)}
        arrays.update(
            {f"pred{c}": np.asarray(p).astype(dtype, copy=copy) for c, p in enumerate(preds)}
        )
        return cls("codes", arrays, n_values, len(preds), copy=False)

    @classmethod
    def from_keys(cls, key_record, key_class, x, record_rows, n_values, copy=True):
        """From clustered rows' per (record, class) counts.

        Parameters
        ----------
        key_record, key_class : ndarray of int, shape (n_keys,)
        x : ndarray, shape (n_keys, n_classifiers, >= 3)
            Rows of the record in TP, FN and FP for the key's class (a
            fourth, TN, column is ignored: it follows from the rows).
        record_rows : ndarray, shape (n_records,)
            Rows of each record; records without rows are dropped.
        n_values : int
        copy : bool, default=True
            False when the arrays are the caller's to give away (already
            in small integer types): they are then kept as they are.
        """
        record_rows = np.asarray(record_rows)
        kept = record_rows > 0
        if not kept.all():
            key_record = (np.cumsum(kept) - 1)[key_record]
            record_rows = record_rows[kept]
        n_records = record_rows.shape[0]
        x = np.asarray(x)[..., :TN]

        def small(a, high):
            dtype = _smallest_uint(high)
            return a if (not copy and a.dtype == dtype) else a.astype(dtype)

        arrays = {
            "key_record": small(np.asarray(key_record), n_records - 1),
            "key_class": small(np.asarray(key_class), n_values - 1),
            "x": small(x, record_rows.max() if n_records else 0),
            "record_rows": small(record_rows, record_rows.max() if n_records else 0),
        }
        return cls("keys", arrays, n_values, x.shape[1], copy=copy)

    @classmethod
    def from_slots(cls, slots, n_values, n_classifiers):
        """From the cells of each record's rows (see :func:`._row_pairs.record_slots`).

        The per (record, class) counts that the resampling methods use are
        computed from them when first needed.
        """
        return cls("slots", {"slots": slots}, n_values, n_classifiers, copy=False)

    @property
    def clustered(self):
        return self._kind in ("keys", "slots")

    @property
    def nbytes(self):
        """Bytes held."""
        return sum(a.nbytes for a in self._arrays.values())

    def table_cells(self, classifiers=None):
        """The nonzero cells' (truth, pred_1, ..., pred_C) codes and record counts.

        Only for one row per record. With `classifiers` (indices), the cells
        of the table of the truth and those classifiers' predictions.
        """
        a = self._arrays
        if self.clustered:
            raise ValueError("clustered records have no table of cells.")
        if self._kind == "cells":
            shape = (self.n_values,) * (self.n_classifiers + 1)
            codes = list(np.unravel_index(a["cells"].astype(np.intp), shape))
            counts = a["counts"].astype(np.int64)
        else:
            codes = [a["y"]] + [a[f"pred{c}"] for c in range(self.n_classifiers)]
            counts = None
        if classifiers is not None:
            codes = [codes[0]] + [codes[1 + c] for c in classifiers]
        if counts is None or classifiers is not None:
            return _distinct_rows(codes, self.n_values, counts)
        return codes, counts

    def units(self, classifiers=None):
        """The records as :class:`RecordUnits`.

        Parameters
        ----------
        classifiers : list of int, default=None
            Keep these classifiers only (indices, in this order); records
            that no longer differ then share a unit.
        """
        if not self.clustered:
            codes, counts = self.table_cells(classifiers)
            return units_of_single_rows(codes[0], codes[1:], counts, self.n_values)
        # Every key at once: the resampling methods read them block by
        # block (:meth:`key_blocks`) instead.
        blocks = list(self.key_blocks(classifiers))
        n_clf = self.n_classifiers if classifiers is None else len(classifiers)
        x3 = np.concatenate([np.empty((0, n_clf, 3))] + [b.x for b in blocks]).astype(float)
        key_record = np.concatenate(
            [np.empty(0, dtype=np.intp)] + [b.start + b.key_record for b in blocks]
        )
        key_class = np.concatenate([np.empty(0, dtype=np.intp)] + [b.key_class for b in blocks])
        rows = self.record_rows().astype(float)
        x = with_true_negatives(x3, rows[key_record])
        return RecordUnits(
            key_record,
            key_class,
            x,
            rows,
            np.ones(rows.shape[0], dtype=np.int64),
            self.n_values,
        )

    @property
    def n_records(self):
        """Records kept (clustered records only)."""
        a = self._arrays
        if self._kind == "slots":
            return a["slots"].shape[0]
        return a["record_rows"].shape[0]

    @property
    def max_rows(self):
        """Rows of the largest record (clustered records only)."""
        a = self._arrays
        if self._kind == "slots":
            return a["slots"].shape[1]
        return int(a["record_rows"].max()) if a["record_rows"].size else 0

    def record_rows(self):
        """Rows of each record (clustered records only), in a small integer type."""
        a = self._arrays
        if self._kind != "slots":
            return a["record_rows"]
        slots = a["slots"]
        n_cells = self.n_values ** (self.n_classifiers + 1)
        rows = np.zeros(slots.shape[0], dtype=_smallest_uint(slots.shape[1]))
        for column in slots.T:  # a column at a time: no (records x slots) temporary
            rows += column < n_cells
        return rows

    def record_sizes(self):
        """Records per number of rows: ``sizes[r]`` records have ``r`` rows."""
        return np.bincount(self.record_rows())

    def key_blocks(self, classifiers=None, size=None):
        """The clustered records' touched (record, class) keys, block by block.

        The per (record, class) counts are made from the stored form one
        block of `size` records at a time, so that their memory stays in
        proportion to the block whatever the number of records.

        Parameters
        ----------
        classifiers : list of int, default=None
            Keep these classifiers only (indices, in this order); keys that
            only the other classifiers touch are dropped.
        size : int, default=None
            Records per block (``BLOCK_RECORDS`` when None).

        Yields
        ------
        KeyBlock
        """
        if not self.clustered:
            raise ValueError("only clustered records come in blocks of keys.")
        size = BLOCK_RECORDS if size is None else int(size)
        chosen = list(range(self.n_classifiers)) if classifiers is None else list(classifiers)
        if self._kind == "slots":
            yield from self._slot_blocks(chosen, size)
            return
        a = self._arrays
        key_record = a["key_record"]
        order = None
        if key_record.size and (np.diff(key_record.astype(np.int64)) < 0).any():
            order = np.argsort(key_record, kind="stable")
            key_record = key_record[order]
        record_rows = a["record_rows"]
        n_records = record_rows.shape[0]
        base = self.max_rows + 1
        bounds = np.searchsorted(key_record, np.arange(0, n_records + size, size))
        for b, start in enumerate(range(0, n_records, size)):
            keys = slice(bounds[b], bounds[b + 1])
            if order is None:
                x, k = a["x"][keys], a["key_class"][keys]
            else:
                x, k = a["x"][order[keys]], a["key_class"][order[keys]]
            x = x[:, chosen]
            record = key_record[keys].astype(np.intp) - start
            touched = x.any(axis=(1, 2))
            if not touched.all():
                x, k, record = x[touched], k[touched], record[touched]
            rows = record_rows[start : start + size]
            yield KeyBlock(start, record, k.astype(np.intp), rows, base, x=x)

    def _slot_blocks(self, chosen, size):
        # A record's TP, FN and FP for every class are sums over its slots
        # of what each slot's cell adds; the three counts of each chosen
        # classifier are packed as digits in base (rows + 1), which the sum
        # cannot carry over, so one lookup per slot adds them all.
        slots = self._arrays["slots"]
        n_values, m = self.n_values, slots.shape[1]
        n_cells = n_values ** (self.n_classifiers + 1)
        base = m + 1
        n_digits = 3 * len(chosen)
        if packed_space(base, len(chosen)) is not None:
            groups = [chosen]
            dtype = _smallest_uint(base**n_digits - 1)
        else:  # too many digits for one word: one classifier at a time
            groups = [[c] for c in chosen]
            dtype = _smallest_uint(base**3 - 1)
        labels = np.unravel_index(np.arange(n_cells), (n_values,) * (self.n_classifiers + 1))
        classes = np.arange(n_values)
        truth = labels[0][:, None] == classes
        tables = []
        for group in groups:
            table = np.zeros((n_cells + 1, n_values), dtype=dtype)  # last row: empty slot
            for j, c in enumerate(group):
                said = labels[1 + c][:, None] == classes
                for category, hit in ((TP, truth & said), (FN, truth & ~said), (FP, ~truth & said)):
                    table[:n_cells] += hit.astype(dtype) * dtype.type(base ** (3 * j + category))
            tables.append(table)
        # The counts of every packed value, when they are few enough to list.
        space = base ** (3 * len(groups[0]))
        counts_of = None
        if space <= 2**16:
            counts_of = unpack_counts(np.arange(space), base, len(groups[0]))
            counts_of = counts_of.astype(_smallest_uint(m))
        # Whether every record has m rows (a column at a time: no temporary
        # of records x slots).
        full = not any((column == n_cells).any() for column in slots.T)
        for start in range(0, slots.shape[0], size):
            block = slots[start : start + size]
            codes = []
            for table in tables:
                code = np.take(table, block[:, 0], axis=0)
                for j in range(1, m):
                    code += np.take(table, block[:, j], axis=0)
                codes.append(code.reshape(-1))
            touched = codes[0] != 0
            for code in codes[1:]:
                touched |= code != 0
            flat = np.flatnonzero(touched)
            record, k = np.divmod(flat, n_values)
            if full:
                rows = np.full(block.shape[0], m, dtype=_smallest_uint(m))
            else:
                rows = np.add.reduce(block < n_cells, axis=1, dtype=_smallest_uint(m))
            if len(groups) == 1:
                packed = codes[0][flat]
                if counts_of is not None:
                    yield KeyBlock(start, record, k, rows, base, packed=packed, table=counts_of)
                else:
                    x = unpack_counts(packed, base, len(chosen))
                    yield KeyBlock(start, record, k, rows, base, x=x, packed=packed)
                continue
            x = np.empty((flat.shape[0], len(chosen), 3), dtype=_smallest_uint(m))
            for c, code in enumerate(codes):
                x[:, c] = unpack_counts(code[flat], base, 1)[:, 0]
            yield KeyBlock(start, record, k, rows, base, x=x)


def _distinct_rows(labels, n_values, weights=None):
    """Distinct (truth, pred_1, ...) rows of label codes, and their counts.

    The joint code is used when it fits in 63 bits (a sort of the codes);
    otherwise every row is its own unit. `weights` are the rows' counts
    (1 each when None).
    """
    n_axes = len(labels)
    n_rows = labels[0].shape[0]
    if weights is None:
        weights = np.ones(n_rows, dtype=np.int64)
    if n_values**n_axes >= 2**62:
        return [np.asarray(a, dtype=np.intp) for a in labels], weights
    code = np.zeros(n_rows, dtype=np.int64)
    for a in labels:
        code *= n_values
        code += a
    cells, inverse = np.unique(code, return_inverse=True)
    counts = np.bincount(inverse.ravel(), weights=weights, minlength=cells.shape[0])
    counts = counts.astype(np.int64)
    out = []
    for _ in range(n_axes):
        out.append((cells % n_values).astype(np.intp))
        cells = cells // n_values
    return out[::-1], counts.astype(np.int64)


# ---------------------------------------------------------------------------
# Resampling clustered records through groups of identical keys
# ---------------------------------------------------------------------------

# Resamples drawn in one pass over the records: a block of weights holds
# BLOCK_RECORDS x BLOCK_RESAMPLES small integers (8 MB of int16).
BLOCK_RESAMPLES = 256
# Group codes below this are looked up in a table (4 bytes a code);
# larger code spaces are sorted block by block.
_MAX_TABLE_CODES = 2**20
# Groups kept at once: beyond, their counts are turned into features and
# the groups start afresh, so that memory never reaches records x resamples.
_MAX_GROUPS = 2**12


class Grouping(NamedTuple):
    """How keys are grouped: what :func:`resampled_group_sums` and :func:`group_sums` read.

    Attributes
    ----------
    radices : list of int
        The range of each digit of a group code (:func:`group_codes`).
    codes : callable
        ``codes(block)`` for a :class:`KeyBlock` returns ``(keys, codes)``:
        the indices of the keys that count and their group codes.
    features : callable
        ``features(codes)`` returns the features of groups, shape
        ``(n_groups, n_features)``.
    """

    radices: list
    codes: object
    features: object


def group_codes(digits, radices):
    """One code per key from its small-integer digits.

    Parameters
    ----------
    digits : list of ndarray of int, each of shape (n_keys,)
        Digit ``j`` lies in ``0..radices[j] - 1``.
    radices : list of int

    Returns
    -------
    codes : ndarray of int64, shape (n_keys,), or (n_keys, n_digits)
        The mixed-radix number of the digits when it fits in 62 bits, the
        digits themselves otherwise (read back by :func:`group_digits`).
    """
    if _code_space(radices) is None:
        return np.stack([np.asarray(d, dtype=np.int64) for d in digits], axis=1)
    code = np.asarray(digits[0], dtype=np.int64)
    for digit, radix in zip(digits[1:], radices[1:], strict=True):
        code = code * radix + digit
    return code


def group_digits(codes, radices):
    """The digits of :func:`group_codes`, shape (n_keys, n_digits)."""
    if codes.ndim == 2:
        return codes
    digits = []
    for radix in radices[:0:-1]:
        codes, digit = np.divmod(codes, radix)
        digits.append(digit)
    digits.append(codes)
    return np.stack(digits[::-1], axis=1)


def _code_space(radices):
    space = 1
    for radix in radices:
        space *= int(radix)
    return space if space < 2**62 else None


class _GroupCounts:
    """Weights summed per group of keys; groups get ids in order of first sight."""

    def __init__(self, radices, n_resamples):
        space = _code_space(radices)
        small = space is not None and space <= _MAX_TABLE_CODES
        self._table = np.full(space, -1, dtype=np.int32) if small else None
        self._known = {}
        self.codes = []
        # Integers below 2**53: exact in floating point.
        self.counts = np.zeros((64, n_resamples))

    @property
    def n(self):
        return len(self.codes)

    def ids(self, codes):
        """Ids of the groups of `codes` (from :func:`group_codes`), new groups added."""
        if self._table is not None:
            ids = self._table[codes]
            new = ids < 0
            if new.any():
                fresh = np.unique(codes[new])
                self._table[fresh] = np.arange(self.n, self.n + fresh.shape[0])
                self.codes.extend(fresh.tolist())
                ids = self._table[codes]
        else:
            distinct, inverse = np.unique(codes, return_inverse=True, axis=0)
            distinct = [tuple(c) if codes.ndim == 2 else c for c in distinct.tolist()]
            for code in distinct:
                if code not in self._known:
                    self._known[code] = len(self.codes)
                    self.codes.append(code)
            lookup = np.array([self._known[c] for c in distinct], dtype=np.int32)
            ids = lookup[inverse.ravel()]
        if self.n > self.counts.shape[0]:
            grown = np.zeros((2 * self.n, self.counts.shape[1]))
            grown[: self.counts.shape[0]] = self.counts
            self.counts = grown
        return ids

    def add(self, ids, key_record, weights):
        """Add each key's record's weights to the key's group (records in order)."""
        n = weights.shape[0]
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(key_record, minlength=n), out=indptr[1:])
        ones = np.ones(ids.shape[0], dtype=weights.dtype)
        matrix = sparse.csc_array((ones, ids, indptr), shape=(self.n, n))
        self.counts[: self.n] += matrix @ weights

    def pop(self):
        """The groups' codes and summed weights (n_groups, n_resamples); start afresh."""
        codes = np.asarray(self.codes, dtype=np.int64)
        counts = self.counts[: self.n].copy()
        if self._table is not None:
            self._table[codes] = -1
        self.counts[: self.n] = 0
        self._known = {}
        self.codes = []
        return codes, counts


def group_sums(records, grouping, n_features, classifiers=None):
    """Sums over every key of per-key features, counted by groups of keys.

    What :func:`resampled_group_sums` gives for the sample itself (every
    record once), without resampling: one count per group and the
    features once per group.

    Returns
    -------
    ndarray of shape (n_features,)
    """
    sums = np.zeros(n_features)
    groups = _GroupCounts(grouping.radices, 1)
    for block in records.key_blocks(classifiers):
        keys, codes = grouping.codes(block)
        groups.add(
            groups.ids(codes), block.key_record[keys], np.ones((block.record_rows.shape[0], 1))
        )
        if groups.n > _MAX_GROUPS:
            codes, counts = groups.pop()
            sums += counts[:, 0] @ grouping.features(codes)
    codes, counts = groups.pop()
    if codes.shape[0]:
        sums += counts[:, 0] @ grouping.features(codes)
    return sums


def _bernoulli_weights(rng, n_records, n_resamples):
    """0/1 weights with probability 1/2, shape (n_records, n_resamples), int16.

    One random bit each (the bytes of the generator, unpacked), which is
    many times cheaper than a binomial draw per record.
    """
    n_bytes = -(-n_resamples // 8)
    bits = np.frombuffer(rng.bytes(n_records * n_bytes), dtype=np.uint8)
    bits = np.unpackbits(bits.reshape(n_records, n_bytes), axis=1, count=n_resamples)
    weights = np.empty((n_records, n_resamples), dtype=np.int16)
    weights[...] = bits
    return weights


def _bootstrap_weights(rng, n_records, drawn):
    """Times each of `n_records` records is drawn, shape (n_records, n_resamples).

    ``drawn[r]`` draws fall among these records in resample ``r``; each is
    one of them uniformly (the rest of a multinomial over all records,
    given how many fall in this block). One resample at a time: a
    bincount of its draws into a table that stays in cache, in the index
    type bincount reads without a copy, then one transposition; this is
    about 1.5x faster than offsetting several resamples into one count.
    """
    n_resamples = drawn.shape[0]
    dtype = np.int16 if drawn.max(initial=0) < 2**15 else np.int32
    weights = np.empty((n_resamples, n_records), dtype=dtype)
    for r, size in enumerate(drawn.tolist()):
        picks = rng.integers(0, n_records, size=size, dtype=np.intp)
        weights[r] = np.bincount(picks, minlength=n_records)
    return np.ascontiguousarray(weights.T)


# Why a weight per record rather than a draw per pattern of records (records
# with the same keys, whose n_g weights could be drawn as one
# Binomial(n_g, 1/2) or one multinomial count): on stacked repeated
# cross-validation rows (5 rows a record, 10 classes, 2 * 10^6 records) 6% to
# 10% of the records are distinct patterns for the permutation and 9% to 19%
# for the bootstrap, and NumPy's binomial and multinomial draws cost 40 to 60
# ns each against about 0.5 ns for a random bit: a draw per pattern was 15x
# slower for the permutation and no faster for the bootstrap.
def resampled_group_sums(
    records,
    grouping,
    n_features,
    resampling,
    n_resamples,
    rng,
    classifiers=None,
    draws=None,
    row_sums=False,
):
    """Sums over resampled clustered records of per-key features.

    Every record is a unit of the resampling: it is swapped (permutation,
    weight 0 or 1 with probability 1/2) or drawn a multinomial number of
    times (bootstrap, weight ``w_r``). What a key adds depends only on its
    *group* (the class and the counts that the caller's features read), so
    the sums are ``sum_g f(g) sum_{keys in g} w_{record}``: for every block
    of records one sparse product of (group x record) ones and the
    weights, in small integers, and the features once per group at the
    end. Time is O(keys x resamples) in compiled loops, memory O(block x
    resamples + groups x resamples), whatever the number of records.

    Parameters
    ----------
    records : StoredRecords
        Clustered records.
    grouping : object
        ``grouping.codes(block)`` returns ``(keys, codes)`` for a
        :class:`KeyBlock`: the indices of the keys that count and their
        group codes, made by :func:`group_codes` with the radices
        ``grouping.radices``; ``grouping.features(codes)`` returns the
        features of groups, shape ``(n_groups, n_features)``.
    n_features : int
    resampling : {"permutation", "bootstrap"}
    n_resamples : int
    rng : numpy.random.Generator
    classifiers : list of int, default=None
        Passed to :meth:`StoredRecords.key_blocks`.
    draws : ndarray of shape (n_resamples, n_records), default=None
        The weights themselves, instead of drawing them.
    row_sums : bool, default=False
        Also sum the records' rows and squared rows.

    Returns
    -------
    sums : ndarray of shape (n_resamples, n_features)
    rows : ndarray of shape (n_resamples, 2), only with `row_sums`
        ``sum_i w_i R_i`` and ``sum_i w_i R_i^2`` over records of ``R_i``
        rows (what the records add to the classes they do not touch).
    """
    n_records = records.n_records
    sums = np.zeros((n_resamples, n_features))
    rows = np.zeros((n_resamples, 2))
    starts = np.arange(0, n_records, BLOCK_RECORDS)
    sizes = np.diff(np.append(starts, n_records))
    for first in range(0, n_resamples, BLOCK_RESAMPLES):
        n_block = min(BLOCK_RESAMPLES, n_resamples - first)
        out = slice(first, first + n_block)
        if resampling == "bootstrap" and draws is None:
            # How many of each resample's n draws fall in each block of records.
            per_block = rng.multinomial(n_records, sizes / n_records, size=n_block)
        groups = _GroupCounts(grouping.radices, n_block)
        for b, block in enumerate(records.key_blocks(classifiers)):
            keys, codes = grouping.codes(block)
            key_record = block.key_record[keys]
            records_drawn = np.arange(block.record_rows.shape[0])
            if resampling == "permutation":
                # Only records with a key that counts need a weight.
                first = np.ones(key_record.shape[0], dtype=bool)
                np.not_equal(key_record[1:], key_record[:-1], out=first[1:])
                records_drawn = key_record[first]
                key_record = np.cumsum(first) - 1
            n = records_drawn.shape[0]
            if draws is not None:
                weights = draws[out, block.start + records_drawn].T
                weights = np.ascontiguousarray(weights, dtype=np.int64)
            elif resampling == "permutation":
                weights = _bernoulli_weights(rng, n, n_block)
            else:
                weights = _bootstrap_weights(rng, n, per_block[:, b])
            if row_sums:
                # The weights summed by the records' numbers of rows R, times R and R**2.
                size = block.record_rows[records_drawn].astype(np.int64)
                by_size = sparse.csc_array(
                    (np.ones(n, dtype=weights.dtype), size, np.arange(n + 1)),
                    shape=(records.max_rows + 1, n),
                )
                drawn_by_size = (by_size @ weights).astype(float)
                record_sizes = np.arange(records.max_rows + 1, dtype=float)
                rows[out, 0] += record_sizes @ drawn_by_size
                rows[out, 1] += record_sizes**2 @ drawn_by_size
            groups.add(groups.ids(codes), key_record, weights)
            if groups.n > _MAX_GROUPS or b == len(starts) - 1:
                codes, counts = groups.pop()
                if codes.shape[0]:
                    sums[out] += counts.T @ grouping.features(codes)
    return (sums, rows) if row_sums else sums
