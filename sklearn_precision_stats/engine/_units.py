"""Records as resampling units, kept in proportion to what is distinct.

The resampling methods (the global null's permutations and bootstrap, the
bootstrap of precision at a prevalence) and the bias-reduced covariance of
clustered rows need more than the additive counts: they need each record's
category counts per class. They never need the rows themselves.

* With one row per record, records with the same truth and predictions are
  interchangeable: each nonzero cell of the joint (truth, pred_1, ...,
  pred_C) table is one *unit* of ``multiplicity`` identical records. A
  comparison keeps the table's nonzero cells, so its memory is in
  proportion to the distinct cells, not to the records; when the table
  would be too large (many classifiers), the rows' label codes.
* With clustered rows each record is a unit; the comparison keeps, per
  touched (record, class) pair, the record's rows in each category, or the
  cells of each record's few rows.

:class:`StoredRecords` is what a comparison keeps. With one row per record
:meth:`StoredRecords.units` expands it into :class:`RecordUnits`, the form
the resampling code uses. For clustered records what a (record, class) key
adds to a statistic depends only on its class and a few counts of the
record's rows (its *digits*), so :func:`key_groups` reads every key once as
a code of these, gives equal codes one group and computes the features once
per group. :func:`group_sums` then counts keys per group, and
:func:`resampled_group_sums` draws one weight per record (a random bit for
a paired permutation, a multinomial count for the bootstrap) and sums them
per group with one sparse product per block of records and resamples.
Memory is in proportion to the keys, time to keys x resamples in compiled
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

# Records per block: a block's sums of 0/1 weights stay below 2**15.
BLOCK_RECORDS = 2**14
# A digit counts the rows of a record of one classifier in some categories
# for the key's class: (classifier, categories). ROWS counts all its rows.
ROWS = (0, (TP, FN, FP, TN))


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


class KeyBlock(NamedTuple):
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
    x : ndarray of int, shape (n_keys, n_classifiers, 3)
        Rows of the key's record in TP, FN and FP for the key's class
        (true negatives are the record's other rows).
    """

    start: int
    key_record: np.ndarray
    key_class: np.ndarray
    record_rows: np.ndarray
    x: np.ndarray


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
        size = BLOCK_RECORDS if size is None else int(size)
        chosen = list(range(self.n_classifiers)) if classifiers is None else list(classifiers)
        digits = [(c, (category,)) for c in chosen for category in (TP, FN, FP)]
        classes = np.arange(self.n_values)
        rows = self.record_rows()
        for start, key_record, codes in self.code_blocks(classes, digits, size=size):
            base = self.max_rows + 1
            k, x = decode_codes(codes, key_words(self.n_values, base, len(digits)), base)
            touched = np.flatnonzero(x.any(axis=1))
            key_record = touched // self.n_values if key_record is None else key_record[touched]
            x = x[touched].reshape(-1, len(chosen), 3)
            block_rows = rows[start : start + size]
            yield KeyBlock(start, key_record, k[touched], block_rows, x)

    def code_blocks(self, classes, digits, with_rows=False, size=None):
        """Every (record, class) key of the clustered records as a code, block by block.

        A key's code holds its class and its digits (:func:`key_words`),
        each digit one count of the record's rows.

        Parameters
        ----------
        classes : ndarray of int
            Codes of the classes to read; a key's class is its index here.
        digits : list of (int, tuple of int)
            Each digit counts the record's rows of a classifier (index) in
            some categories (TP, FN, FP, TN) for the key's class (ROWS:
            all the record's rows).
        with_rows : bool, default=False
            Also one key per record of class ``len(classes)``, whose first
            digit is the record's rows and the others 0.
        size : int, default=None
            Records per block (``BLOCK_RECORDS`` when None).

        Yields
        ------
        start : int
            The block's first record.
        key_record : ndarray of intp or None
            Record of each code, counted from `start`, in increasing
            order; None when every record of the block has a code for
            every class, record after record (``n_keys`` codes per record).
        codes : ndarray of int, shape (n_codes,) or (n_codes, n_words)
            Keys untouched by the classifiers may be among them, with the
            digits they have (e.g. their true negatives).
        """
        if not self.clustered:
            raise ValueError("only clustered records come in blocks of keys.")
        size = BLOCK_RECORDS if size is None else int(size)
        classes = np.asarray(classes, dtype=np.intp)
        base = self.max_rows + 1
        words = key_words(classes.shape[0] + with_rows, base, len(digits))
        if self._kind == "slots":
            yield from self._slot_codes(classes, digits, words, with_rows, size)
            return
        a = self._arrays
        key_record = a["key_record"]
        order = None
        if key_record.size and (np.diff(key_record.astype(np.int64)) < 0).any():
            order = np.argsort(key_record, kind="stable")
            key_record = key_record[order]
        lookup = np.full(self.n_values, -1, dtype=np.intp)
        lookup[classes] = np.arange(classes.shape[0])
        record_rows = a["record_rows"]
        n_records = record_rows.shape[0]
        bounds = np.searchsorted(key_record, np.arange(0, n_records + size, size))
        for b, start in enumerate(range(0, n_records, size)):
            keys = np.arange(bounds[b], bounds[b + 1])
            if order is not None:
                keys = order[keys]
            k = lookup[a["key_class"][keys]]
            keys = keys[k >= 0]
            k, x = k[k >= 0], a["x"][keys].astype(np.int64)
            record = a["key_record"][keys].astype(np.intp) - start
            rows = record_rows[record].astype(np.int64)
            counts = []
            for c, categories in digits:
                count = sum((x[:, c, u] for u in categories if u != TN), np.zeros_like(rows))
                if TN in categories:
                    count += rows - x[:, c].sum(axis=-1)
                counts.append(count)
            if with_rows:
                # The extra key goes after its record's keys (a merge of two
                # sorted runs).
                n = min(size, n_records - start)
                own = np.arange(n)
                rows_n = record_rows[start : start + n].astype(np.int64)
                merged = np.argsort(np.concatenate([record, own]), kind="stable")
                record = np.concatenate([record, own])[merged]
                k = np.concatenate([k, np.full(n, classes.shape[0])])[merged]
                counts = [
                    np.concatenate([count, rows_n if j == 0 else np.zeros(n, np.int64)])[merged]
                    for j, count in enumerate(counts)
                ]
            yield start, record, encode_codes(k, counts, words, base)

    def _slot_codes(self, classes, digits, words, with_rows, size):
        # A record's digits for every class are sums over its slots of what
        # each slot's cell adds (a digit counts at most the record's rows,
        # so the sum never carries): one table lookup per slot gives a code
        # per class; the first slot's table also adds the class.
        slots = self._arrays["slots"]
        n_cells = self.n_values ** (self.n_classifiers + 1)
        base = self.max_rows + 1
        labels = np.unravel_index(np.arange(n_cells), (self.n_values,) * (self.n_classifiers + 1))
        truth = labels[0][:, None] == classes
        n_keys = classes.shape[0] + with_rows
        tables, firsts = [], []
        for w, word in enumerate(words):
            dtype = _smallest_uint(word_space(words, w, n_keys, base) - 1)
            table = np.zeros((n_cells + 1, n_keys), dtype=np.int64)  # last row: empty slot
            for j in word:
                c, categories = digits[j]
                said = labels[1 + c][:, None] == classes
                hit = np.zeros(truth.shape, dtype=np.int64)
                for u in categories:
                    hit += (truth if u in (TP, FN) else ~truth) & (said if u in (TP, FP) else ~said)
                table *= base
                table[:n_cells, : classes.shape[0]] += hit
                if with_rows:
                    table[:n_cells, -1] += j == 0
            first = table.copy()
            if w == 0:
                first += np.arange(n_keys) * base ** len(word)
            tables.append(table.astype(dtype))
            firsts.append(first.astype(dtype))
        for start in range(0, slots.shape[0], size):
            block = slots[start : start + size]
            codes = []
            for table, first in zip(tables, firsts, strict=True):
                code = np.take(first, block[:, 0], axis=0)
                for j in range(1, block.shape[1]):
                    code += np.take(table, block[:, j], axis=0)
                codes.append(code.reshape(-1))
            yield start, None, codes[0] if len(codes) == 1 else np.stack(codes, axis=1)


def _distinct_rows(labels, n_values, weights=None):
    """Distinct (truth, pred_1, ...) rows of label codes, and their counts.

    The joint code is used when it fits in 63 bits (a sort of the codes);
    otherwise every row is its own unit. `weights` are the rows' counts
    (1 each when None).
    """
    if weights is None:
        weights = np.ones(labels[0].shape[0], dtype=np.int64)
    shape = (n_values,) * len(labels)
    if n_values ** len(labels) >= 2**62:
        return [np.asarray(a, dtype=np.intp) for a in labels], weights
    cells, inverse = np.unique(np.ravel_multi_index(labels, shape), return_inverse=True)
    counts = np.bincount(inverse.ravel(), weights=weights, minlength=cells.shape[0])
    return list(np.unravel_index(cells, shape)), counts.astype(np.int64)


# ---------------------------------------------------------------------------
# Resampling clustered records through groups of equal keys
# ---------------------------------------------------------------------------

# Resamples drawn in one pass over the records: a block of weights holds
# BLOCK_RECORDS x BLOCK_RESAMPLES small integers (8 MB of int16).
BLOCK_RESAMPLES = 256
# Codes are looked up in a table (4 bytes a code) when there are at most
# this many, or 4 a record (16 bytes a record); larger code spaces through
# np.unique and a dict.
_MAX_TABLE_CODES = 2**20
_TABLE_CODES_PER_RECORD = 4
# Groups whose counts are summed over every block at once (groups x
# resamples integers); beyond, each block's groups are summed on their own.
_MAX_GROUPS = 2**14


def key_words(n_keys, base, n_digits):
    """Which digits each 62-bit word of a code holds; the first word also holds the class."""
    words, space = [[]], n_keys
    for j in range(n_digits):
        if space * base >= 2**62 and words[-1]:
            words.append([])
            space = 1
        words[-1].append(j)
        space *= base
    return words


def word_space(words, w, n_keys, base):
    """Number of values of word `w` of a code."""
    return (n_keys if w == 0 else 1) * base ** len(words[w])


def encode_codes(k, counts, words, base):
    """Codes of keys of classes `k` with digits `counts` (list of arrays), per :func:`key_words`."""
    codes = []
    for w, word in enumerate(words):
        code = np.asarray(k, dtype=np.int64) if w == 0 else np.zeros(len(k), dtype=np.int64)
        for j in word:
            code = code * base + counts[j]
        codes.append(code)
    return codes[0] if len(codes) == 1 else np.stack(codes, axis=1)


def decode_codes(codes, words, base):
    """The class and digits (n, n_digits) of codes of :meth:`StoredRecords.code_blocks`."""
    codes = np.asarray(codes).reshape(len(codes), -1)
    digits = []
    for w, word in enumerate(words):
        code = codes[:, w].astype(np.int64)
        part = []
        for _ in word:
            code, digit = np.divmod(code, base)
            part.append(digit)
        digits += part[::-1]
        if w == 0:
            k = code
    return k, np.stack(digits, axis=1)


class KeyGroups(NamedTuple):
    """The keys of clustered records as groups of equal codes.

    Attributes
    ----------
    indptr : ndarray of int64, shape (n_records + 1,)
        The keys of record ``r`` are ``ids[indptr[r]:indptr[r + 1]]``.
    ids : ndarray of int16 or int32, shape (n_keys,)
        Group of each key whose features are not all 0.
    group_class : ndarray of intp, shape (n_groups,)
    features : ndarray of float, shape (n_groups, n_features)
        What one key of the group adds to its class.
    n_classes : int
        Classes of the sums (with ``with_rows``, the records' own class last).
    """

    indptr: np.ndarray
    ids: np.ndarray
    group_class: np.ndarray
    features: np.ndarray
    n_classes: int


class _Lookup:
    """Group ids of codes, a group made (and its features computed) when first seen.

    Keys whose features are all 0 get -1.
    """

    def __init__(self, words, base, n_keys, features, n_records):
        self.words, self.base, self.features = words, base, features
        space = word_space(words, 0, n_keys, base)
        most = max(_MAX_TABLE_CODES, _TABLE_CODES_PER_RECORD * n_records)
        small = len(words) == 1 and space <= most
        self.table = np.full(space, -2, dtype=np.int32) if small else None
        self.known = {}
        self.classes, self.rows = [], []
        self.n = 0

    def _add(self, codes):
        k, digits = decode_codes(codes, self.words, self.base)
        features = np.asarray(self.features(k, digits), dtype=float)
        nonzero = features.any(axis=1)
        ids = np.full(k.shape[0], -1, dtype=np.int32)
        ids[nonzero] = np.arange(self.n, self.n + int(nonzero.sum()))
        self.n += int(nonzero.sum())
        self.classes.append(k[nonzero])
        self.rows.append(features[nonzero])
        return ids

    def ids(self, codes):
        if self.table is not None:
            ids = np.take(self.table, codes)
            if ids.min(initial=0) == -2:
                fresh = np.unique(codes[ids == -2])
                self.table[fresh] = self._add(fresh)
                ids = np.take(self.table, codes)
            return ids
        distinct, inverse = np.unique(codes, return_inverse=True, axis=0)
        listed = [tuple(c) if codes.ndim == 2 else c for c in distinct.tolist()]
        unseen = [i for i, c in enumerate(listed) if c not in self.known]
        if unseen:
            fresh = self._add(distinct[unseen])
            self.known.update(zip([listed[i] for i in unseen], fresh.tolist(), strict=True))
        lookup = np.array([self.known[c] for c in listed], dtype=np.int32)
        return lookup[inverse.ravel()]


def key_groups(records, classes, digits, features, n_features, with_rows=False, size=None):
    """Every key of clustered records as the id of its group of equal codes.

    Parameters
    ----------
    records : StoredRecords
        Clustered records.
    classes, digits, with_rows, size
        As for :meth:`StoredRecords.code_blocks`.
    features : callable
        ``features(k, digits)`` gives what keys of classes `k` (index in
        `classes`) with `digits` (n, n_digits) add to their class, shape
        (n, n_features). Keys whose features are all 0 are left out (e.g.
        untouched keys, whose net features must then be 0).
    n_features : int

    Returns
    -------
    KeyGroups
    """
    size = BLOCK_RECORDS if size is None else int(size)
    n_keys = len(classes) + with_rows
    base = records.max_rows + 1
    words = key_words(n_keys, base, len(digits))
    lookup = _Lookup(words, base, n_keys, features, records.n_records)
    ids, counts = [], []
    for start, key_record, codes in records.code_blocks(classes, digits, with_rows, size):
        group = lookup.ids(codes)
        keys = np.flatnonzero(group >= 0)
        ids.append(group[keys])
        record = keys // n_keys if key_record is None else key_record[keys]
        counts.append(np.bincount(record, minlength=min(size, records.n_records - start)))
    indptr = np.zeros(records.n_records + 1, dtype=np.int64)
    np.cumsum(np.concatenate([np.zeros(0, np.int64), *counts]), out=indptr[1:])
    # The ids in the smallest type (int16 for up to 2**15 groups).
    dtype = np.int16 if lookup.n < 2**15 else np.int32
    return KeyGroups(
        indptr,
        np.concatenate([np.zeros(0, dtype), *ids], dtype=dtype),
        np.concatenate([np.zeros(0, np.intp), *lookup.classes]).astype(np.intp),
        np.concatenate([np.zeros((0, n_features)), *lookup.rows]),
        n_keys,
    )


def _by_class(counts, groups, which=slice(None)):
    """Sums ``(n_resamples, n_classes, n_features)`` from counts per group (groups x resamples)."""
    k, f = groups.group_class[which], groups.features[which]
    n_groups, n_features = f.shape
    columns = k[:, None] * n_features + np.arange(n_features)
    matrix = sparse.csr_array(
        (f.ravel(), (np.repeat(np.arange(n_groups), n_features), columns.ravel())),
        shape=(n_groups, groups.n_classes * n_features),
    )
    return (matrix.T @ counts).T.reshape(-1, groups.n_classes, n_features)


def group_sums(groups):
    """Sums over every key of its features: shape (n_classes, n_features)."""
    counts = np.bincount(groups.ids, minlength=groups.features.shape[0])
    return _by_class(counts[:, None].astype(float), groups)[0]


def _bernoulli_weights(rng, n_records, n_resamples):
    """0/1 weights with probability 1/2, shape (n_records, n_resamples), int16.

    One random bit each: the bits of full-range 64-bit integers, unpacked
    (many times cheaper than a binomial draw per record).
    """
    n_bytes = -(-n_resamples // 8)
    words = rng.integers(0, 2**64, size=-(-n_records * n_bytes // 8), dtype=np.uint64)
    bits = np.unpackbits(words.view(np.uint8)[: n_records * n_bytes])
    return bits.reshape(n_records, 8 * n_bytes)[:, :n_resamples].astype(np.int16)


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
    # Full blocks have 2**14 records: for a power of two a pick is the low
    # bits of 16 random ones (uniform, no rejection), about 6x cheaper than
    # integers().
    power_of_two = n_records & (n_records - 1) == 0 and n_records <= 2**16
    for r, size in enumerate(drawn.tolist()):
        if power_of_two:
            words = rng.integers(0, 2**64, size=-(-size // 4), dtype=np.uint64)
            picks = words.view(np.uint16)[:size] & np.uint16(n_records - 1)
        else:
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
def resampled_group_sums(groups, resampling, n_resamples, rng, draws=None):
    """Sums over resampled clustered records of their keys' features.

    Every record is a unit of the resampling: it is swapped (permutation,
    weight 0 or 1 with probability 1/2) or drawn a multinomial number of
    times (bootstrap, weight ``w_r``). A key adds the features of its
    group, so the sums are ``sum_g f(g) sum_{keys in g} w_{record}``: per
    block of records one sparse product of (group x record) ones and the
    weights, in small integers, and the features once per group. Time is
    O(keys x resamples) in compiled loops, memory O(block x resamples +
    groups x resamples) beyond the keys.

    Parameters
    ----------
    groups : KeyGroups
    resampling : {"permutation", "bootstrap"}
    n_resamples : int
    rng : numpy.random.Generator
    draws : ndarray of shape (n_resamples, n_records), default=None
        The weights themselves, instead of drawing them.

    Returns
    -------
    ndarray of shape (n_resamples, n_classes, n_features)
    """
    indptr, ids = groups.indptr, groups.ids
    n_records, n_groups = indptr.shape[0] - 1, groups.features.shape[0]
    sums = np.zeros((n_resamples, groups.n_classes, groups.features.shape[1]))
    units, ptr = np.arange(n_records), indptr
    if resampling == "permutation":
        # Only records with a key need a weight.
        units = np.flatnonzero(np.diff(indptr))
        ptr = np.append(indptr[units], indptr[-1])
    starts = np.arange(0, units.shape[0], BLOCK_RECORDS)
    sizes = np.diff(np.append(starts, units.shape[0]))
    whole = n_groups <= _MAX_GROUPS
    for first in range(0, n_resamples, BLOCK_RESAMPLES):
        n_block = min(BLOCK_RESAMPLES, n_resamples - first)
        out = slice(first, first + n_block)
        if resampling == "bootstrap" and draws is None:
            # How many of each resample's n draws fall in each block of records.
            per_block = rng.multinomial(n_records, sizes / n_records, size=n_block)
        counts = np.zeros((n_groups, n_block), dtype=np.int64)
        for b, start in enumerate(starts.tolist()):
            block = ptr[start : start + sizes[b] + 1]
            if draws is not None:
                weights = draws[out, units[start : start + sizes[b]]].T
                weights = np.ascontiguousarray(weights, dtype=np.int64)
            elif resampling == "permutation":
                weights = _bernoulli_weights(rng, sizes[b], n_block)
            else:
                weights = _bootstrap_weights(rng, sizes[b], per_block[:, b])
            keys = ids[block[0] : block[-1]]
            which = slice(None) if whole else np.unique(keys, return_inverse=True)
            if not whole:
                which, keys = which[0], which[1].ravel()
            matrix = sparse.csc_array(
                (
                    np.ones(keys.shape[0], dtype=weights.dtype),
                    keys.astype(np.int32),
                    block - block[0],
                ),
                shape=(n_groups if whole else which.shape[0], sizes[b]),
            )
            if whole:
                counts += matrix @ weights
            else:
                sums[out] += _by_class((matrix @ weights).astype(float), groups, which)
        if whole:
            sums[out] += _by_class(counts.astype(float), groups)
    return sums
