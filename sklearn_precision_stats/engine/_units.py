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

:class:`StoredRecords` is what a comparison keeps; :meth:`StoredRecords.units`
expands it into :class:`RecordUnits`, the form the resampling code uses.
"""

from typing import NamedTuple

import numpy as np

from ._counts import (
    FN,
    FP,
    POOLED_CLASS,
    TN,
    TP,
    clustered_statistics,
    correct_rows,
    with_true_negatives,
)
from ._row_pairs import rows_of_slots

__all__ = []


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
        self._keys = None  # the per (record, class) counts of slots, once needed

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
    def from_codes(cls, y, preds, n_values):
        """From label codes of one row per record."""
        dtype = _smallest_uint(n_values - 1)
        arrays = {"y": np.asarray(y).astype(dtype)}
        arrays.update({f"pred{c}": np.asarray(p).astype(dtype) for c, p in enumerate(preds)})
        return cls("codes", arrays, n_values, len(preds))

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
        a = self._arrays
        if self._kind == "slots":
            return self._keys_of_slots().units(classifiers)
        if self._kind != "keys":
            codes, counts = self.table_cells(classifiers)
            return units_of_single_rows(codes[0], codes[1:], counts, self.n_values)
        x3 = a["x"].astype(float)
        if classifiers is not None:
            x3 = x3[:, list(classifiers)]
        rows = a["record_rows"].astype(float)
        key_record = a["key_record"].astype(np.intp)
        key_class = a["key_class"].astype(np.intp)
        x = with_true_negatives(x3, rows[key_record])
        if classifiers is not None:
            # Keys of classes that only the dropped classifiers touched.
            touched = x[..., :TN].any(axis=(1, 2))
            key_record, key_class, x = key_record[touched], key_class[touched], x[touched]
        return RecordUnits(
            key_record,
            key_class,
            x,
            rows,
            np.ones(rows.shape[0], dtype=np.int64),
            self.n_values,
        )

    def _keys_of_slots(self):
        if self._keys is None:
            slots = self._arrays["slots"]
            y, preds, record = rows_of_slots(slots, self.n_values, self.n_classifiers)
            *_, keys = clustered_statistics(
                y, preds, record, slots.shape[0], self.n_values, return_keys=True
            )
            x, key_class, key_record, record_rows = keys
            self._keys = StoredRecords.from_keys(
                key_record, key_class, x, record_rows, self.n_values, copy=False
            )
        return self._keys


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
