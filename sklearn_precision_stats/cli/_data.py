"""From record batches to label codes: the wide and the long layouts.

Wide layout: one row per record, a column of true labels and one column of
predicted labels per classifier (and optionally a record-id column when a
record has several rows). Long layout: one row per (record, classifier), the
layout of ``CVPrecisionComparator.predictions_`` written to a file.

Labels are encoded batch by batch with one
:class:`~sklearn_precision_stats.engine._labels.StreamingLabelEncoder`, so a
missing or continuous label is reported with its column name as soon as its
batch is read.
"""

import functools
import inspect
import re
import warnings

import numpy as np

from ..engine._accumulator import ComparisonCounts
from ..engine._labels import StreamingLabelEncoder
from ._io import MixedColumnError, UsageError

__all__ = []


class EncodedColumns:
    """Codes of the label columns of a file, concatenated over its batches.

    Attributes
    ----------
    labels : StreamingLabelEncoder
        Encoder of the true and predicted labels.
    y_true : ndarray of intp
    preds : dict of str -> ndarray of intp
        Classifier name -> codes, aligned with `y_true`.
    groups : ndarray of intp or None
        Record codes (clustered rows), or None.
    """

    def __init__(self, labels, y_true, preds, groups):
        self.labels = labels
        self.y_true = y_true
        self.preds = preds
        self.groups = groups

    @property
    def n_rows(self):
        return self.y_true.shape[0]

    def decoded(self):
        """(y_true, {name: y_pred}, groups) as label arrays."""
        values = self.labels.values
        return (
            values[self.y_true],
            {name: values[codes] for name, codes in self.preds.items()},
            self.groups,
        )


def _encode(encoder, column, name):
    try:
        return encoder.encode(column, names=[name])[0]
    except ValueError as exc:
        raise UsageError(str(exc)) from exc


def _concat(parts):
    return np.concatenate(parts) if parts else np.empty(0, dtype=np.intp)


def _check_complete(batch, options, offset, rows=None):
    """UsageError naming the first missing value of `options`' columns in `batch`.

    `options` maps columns to (option text, what they hold); the row is
    reported in the file: `offset` plus its row in the batch, or in
    `rows` (the batch's rows in the file's batch, when it was filtered).
    """
    import pyarrow.compute as pc

    for column, (option, noun) in options.items():
        values = batch.column(column)
        if values.null_count:
            row = int(pc.index(pc.is_null(values), True).as_py())
            row = offset + (row if rows is None else int(rows[row]))
            raise UsageError(
                f"{option} has a missing {noun} at row {row} (data rows counted from 0); "
                "every row needs one. Drop or impute the rows with missing values first."
            )


def _complete_batches(source, columns, options, **kwargs):
    """`source.batches(columns)`, each checked for missing values in `options`.

    `options` maps columns to their option text and what they hold
    ("label", "score", ...), in the order they are reported. A missing
    value is reported with its row in the file (the library's own message
    would count from the start of its batch).
    """
    offset = 0
    for batch in source.batches(columns, **kwargs):
        _check_complete(batch, options, offset)
        offset += batch.num_rows
        yield batch


def _check_not_empty(source, n_rows):
    if n_rows == 0:
        raise UsageError(f"{source.path!r} has no data rows (only a header, or nothing).")


def _labels_as_text_if_mixed(*roles):
    """Read again with the label columns as text when one mixes numbers and text.

    `roles` name the reader's parameters holding label (or record-id)
    columns. pyarrow types a CSV column from its first rows, so a column
    of numbers with text further down fails part-way; its classes are
    then all text, and every other label column must be text too for
    the classes to match ('1' in one column is 1 in another).
    """

    def decorate(read):
        @functools.wraps(read)
        def wrapper(source, *args, **kwargs):
            bound = inspect.signature(read).bind(source, *args, **kwargs).arguments
            columns = []
            for role in roles:
                value = bound.get(role)
                if isinstance(value, str):
                    columns.append(value)
                elif value is not None:
                    columns.extend(value)
            try:
                return read(source, *args, **kwargs)
            except MixedColumnError as exc:
                if source.format != "csv" or source.text_columns or exc.column not in columns:
                    raise
                column = exc.column
            warnings.warn(
                f"column {column!r} of {source.path!r} holds numbers and text: the "
                f"columns {columns} were read as text, so the classes are text "
                "('1', not 1).",
                UserWarning,
                stacklevel=2,
            )
            source.text_columns = tuple(columns)
            return read(source, *args, **kwargs)

        return wrapper

    return decorate


def _wide_options(truth, classifiers, groups):
    options = {truth: (f"--truth column {truth!r}", "label")}
    for name in classifiers:
        options.setdefault(name, (f"column {name!r}", "label"))
    if groups is not None:
        options.setdefault(groups, (f"--groups column {groups!r}", "record id"))
    return options


@_labels_as_text_if_mixed("truth", "classifiers", "groups")
def read_wide(source, truth, classifiers, groups=None):
    """Encode a wide file's truth, prediction and record-id columns.

    Parameters
    ----------
    source : TableSource
    truth : str
    classifiers : list of str
    groups : str or None

    Returns
    -------
    EncodedColumns
    """
    labels = StreamingLabelEncoder()
    records = StreamingLabelEncoder() if groups is not None else None
    truth_parts, group_parts = [], []
    pred_parts = {name: [] for name in classifiers}
    columns = [truth, *classifiers] + ([groups] if groups is not None else [])
    for batch in _complete_batches(source, columns, _wide_options(truth, classifiers, groups)):
        truth_parts.append(_encode(labels, batch.column(truth), f"--truth column {truth!r}"))
        for name in classifiers:
            pred_parts[name].append(_encode(labels, batch.column(name), f"column {name!r}"))
        if records is not None:
            group_parts.append(
                _encode(records, batch.column(groups), f"--groups column {groups!r}")
            )
    y_true = _concat(truth_parts)
    _check_not_empty(source, y_true.shape[0])
    preds = {name: _concat(parts) for name, parts in pred_parts.items()}
    return EncodedColumns(labels, y_true, preds, _concat(group_parts) if records else None)


@_labels_as_text_if_mixed("truth", "classifiers", "groups")
def count_wide(source, truth, classifiers, groups=None):
    """Count a wide file batch by batch, in memory bounded by the batch size.

    Returns
    -------
    ComparisonCounts
        Clustered when `groups` names a record-id column.
    """
    counts = ComparisonCounts(classifiers, clustered=groups is not None)
    names = {"y_true": f"--truth column {truth!r}", "groups": f"--groups column {groups!r}"}
    names.update({name: f"column {name!r}" for name in classifiers})
    columns = [truth, *classifiers] + ([groups] if groups is not None else [])
    for batch in _complete_batches(source, columns, _wide_options(truth, classifiers, groups)):
        try:
            counts.update(
                batch.column(truth),
                {name: batch.column(name) for name in classifiers},
                groups=batch.column(groups) if groups is not None else None,
                names=names,
            )
        except ValueError as exc:
            raise UsageError(str(exc)) from exc
    _check_not_empty(source, counts.n_rows)
    return counts


def read_long(source, truth, classifier_col, prediction_col, record_col, classifiers=None):
    """Encode a long file and align the classifiers' rows record by record.

    Every classifier must have the same number of rows for each record; the
    k-th row of a record for one classifier is paired with the k-th row of
    that record for every other classifier, in file order. The file is read
    batch by batch into a :class:`LongTable`; the rows are then laid out
    record by record, for the methods that need them (resampling, McNemar).

    Returns
    -------
    EncodedColumns
        With ``groups`` the record codes (a record with several rows per
        classifier makes the comparison clustered).
    """
    table, names, columns = pivot_long(
        source, truth, classifier_col, prediction_col, record_col, classifiers
    )
    return table.encoded(names, columns)


# ---------------------------------------------------------------- long layout

# Records per chunk when pivoted codes are handed to the counts.
_CHUNK_RECORDS = 1 << 20


def _arrow_column(column):
    import pyarrow as pa

    return column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column


# Integer record ids spanning at most this many values (or 4 per id seen
# and row of the batch) are coded through a lookup table over their range.
_MAX_DENSE_SPAN = 1 << 24


class RecordIndex:
    """Record ids -> dense codes 0, 1, ..., with no Python object per record.

    Integer ids (or integral floats) over a compact range are coded through
    a lookup table over that range (4 bytes per value of the range, no
    sort); other ids (sparse integers, floats, text) through one sorted
    NumPy array of the ids seen (int64, float64 or fixed-width UTF-8 bytes)
    with the code of each. The first batch of other ids moves the ids of the
    lookup table to the sorted array, which codes every later batch.
    Codes follow no particular order; :meth:`codes_by_id` gives them in
    order of the ids.

    Parameters
    ----------
    option : str
        The option naming the column, for messages.
    """

    def __init__(self, option):
        self.option = option
        self._lut = None  # code of id lo + i, or -1
        self._lo = 0
        self._sorted = None
        self._codes = np.empty(0, dtype=np.int32)
        self.n = 0

    def _values(self, column):
        """The batch's ids as a NumPy array, and the indices into it (or None)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        column = _arrow_column(column)
        if column.null_count:
            raise UsageError(
                f"{self.option} has missing record ids; every row needs the id of its "
                "record. Drop those rows first."
            )
        typ = column.type
        if pa.types.is_integer(typ) or pa.types.is_boolean(typ):
            ids = column.to_numpy(zero_copy_only=False)
            if ids.dtype == np.uint64 and ids.size and int(ids.max()) >= 2**63:
                return ids.astype(np.float64), None  # beyond int64: compared as floats
            return ids.astype(np.int64, copy=False), None
        if pa.types.is_floating(typ):
            ids = column.to_numpy(zero_copy_only=False).astype(np.float64, copy=False)
            if not np.isfinite(ids).all():
                raise UsageError(
                    f"{self.option} has NaN or infinite record ids; every row needs the "
                    "id of its record. Drop those rows first."
                )
            if (ids == np.trunc(ids)).all() and np.abs(ids).max(initial=0) < 2.0**53:
                return ids.astype(np.int64), None
            return ids, None
        if not pa.types.is_dictionary(typ):
            column = column.dictionary_encode()
        indices = column.indices.to_numpy(zero_copy_only=False)
        dictionary = pc.cast(column.dictionary, pa.binary())
        # Only the batch's distinct ids become (transient) Python bytes.
        ids = np.array(dictionary.to_numpy(zero_copy_only=False).tolist() or [b""], dtype="S")
        return ids[: len(dictionary)], indices

    def codes(self, column):
        """Codes (int64) of a batch's record-id column, adding the new ids."""
        ids, indices = self._values(column)
        codes = None
        if ids.dtype.kind == "i" and ids.size and self._sorted is None:
            codes = self._dense_codes(ids)
        if codes is None:
            self._lookup_to_sorted()
            codes = self._sorted_codes(ids)
        return codes if indices is None else codes[indices]

    def _lookup_to_sorted(self):
        """Move the ids of the lookup table, if any, to the sorted arrays."""
        if self._lut is not None:
            known = np.flatnonzero(self._lut >= 0)
            self._sorted, self._codes = known + np.int64(self._lo), self._lut[known]
            self._lut = None

    def _dense_codes(self, ids):
        """Codes through the lookup table, or None (and the sorted arrays) if too sparse."""
        lo, hi = int(ids.min()), int(ids.max())
        if self._lut is None:
            self._lut, self._lo = np.full(0, -1, dtype=np.int32), lo
        top = self._lo + self._lut.shape[0] - 1
        new_lo, new_hi = min(lo, self._lo), max(hi, top)
        if new_hi - new_lo + 1 > max(_MAX_DENSE_SPAN, 4 * (self.n + ids.shape[0])):
            self._lookup_to_sorted()
            return None
        if new_lo < self._lo or new_hi > top:
            # Room above for ids that grow batch by batch.
            new_hi = max(new_hi, new_lo + self._lut.shape[0] * 3 // 2)
            lut = np.full(new_hi - new_lo + 1, -1, dtype=np.int32)
            start = self._lo - new_lo
            lut[start : start + self._lut.shape[0]] = self._lut
            self._lut, self._lo = lut, new_lo
        offset = ids - self._lo
        codes = self._lut[offset]
        unseen = np.flatnonzero(codes < 0)
        if unseen.size:
            # One representative row per new id, without a sort: the last
            # row written for an id reads back its own stamp.
            where = offset[unseen]
            stamp = np.arange(unseen.size, dtype=np.int32)
            self._lut[where] = -2 - stamp
            first = np.flatnonzero(self._lut[where] == -2 - stamp)
            self._lut[where[first]] = np.arange(self.n, self.n + first.size, dtype=np.int32)
            self.n += first.size
            codes[unseen] = self._lut[where]
        return codes.astype(np.int64)

    def _sorted_codes(self, ids):
        if self._sorted is None:
            self._sorted = ids[:0]
        kinds = {ids.dtype.kind, self._sorted.dtype.kind}
        if kinds == {"i", "f"}:
            ids = ids.astype(np.float64)
            self._sorted = self._sorted.astype(np.float64)
        elif len(kinds) > 1:
            raise UsageError(
                f"{self.option} mixes numbers and text; record ids must be of one type."
            )
        elif ids.dtype.kind == "S" and ids.dtype.itemsize != self._sorted.dtype.itemsize:
            width = max(ids.dtype.itemsize, self._sorted.dtype.itemsize)
            ids = ids.astype(f"S{width}")
            self._sorted = self._sorted.astype(f"S{width}")
        uniq, inverse = np.unique(ids, return_inverse=True)
        pos = np.searchsorted(self._sorted, uniq)
        found = pos < self._sorted.shape[0]
        found[found] = self._sorted[pos[found]] == uniq[found]
        codes = np.empty(uniq.shape[0], dtype=np.int64)
        codes[found] = self._codes[pos[found]]
        new = ~found
        n_new = int(np.count_nonzero(new))
        if n_new:
            codes[new] = np.arange(self.n, self.n + n_new)
            self._sorted = np.insert(self._sorted, pos[new], uniq[new])
            self._codes = np.insert(self._codes, pos[new], codes[new].astype(np.int32))
            self.n += n_new
        return codes[inverse.reshape(-1)]

    def codes_by_id(self):
        """Every code, in the order of the record ids."""
        if self._lut is not None:
            return self._lut[self._lut >= 0].astype(np.intp)
        if self._sorted is None:
            return np.empty(0, dtype=np.intp)
        return self._codes.astype(np.intp)

    def label(self, code):
        """The record id of `code` (for messages)."""
        if self._lut is not None:
            return self._lo + int(np.flatnonzero(self._lut == code)[0])
        value = self._sorted[int(np.flatnonzero(self._codes == code)[0])]
        if isinstance(value, bytes):
            return value.decode("utf-8", errors="replace")
        return value.item()


def _code_dtype(n_values):
    """Smallest unsigned dtype holding codes 0..n_values-1 and a sentinel (its max)."""
    for dtype in (np.uint8, np.uint16, np.uint32):
        if n_values < np.iinfo(dtype).max:
            return np.dtype(dtype)
    raise UsageError(f"too many distinct labels ({n_values}).")


class LongTable:
    """A long file's label codes pivoted to one slot per (record, repeat).

    A record's k-th row for one classifier goes to repeat ``k`` of the
    record (rows in file order), so the k-th rows of all classifiers are
    paired, whatever the order of the file's rows. Memory: the record index
    (:class:`RecordIndex`), and per record and repeat one code for the truth
    and one per classifier (a byte each for fewer than 255 labels), plus a
    count of rows per record and classifier.

    Parameters
    ----------
    classifiers : list of str or None
        Classifiers to keep (in this order); None: every one, in order of
        their first row in the file.
    options : dict
        Option text of ``truth``, ``classifier``, ``prediction`` and
        ``record``, for messages.
    """

    def __init__(self, classifiers, options):
        self.labels = StreamingLabelEncoder()
        self._names = StreamingLabelEncoder()
        self._options = options
        self.records = RecordIndex(options["record"])
        self._requested = None if classifiers is None else list(classifiers)
        self._columns = [] if classifiers is None else list(classifiers)
        self._column_of_code = np.empty(0, dtype=np.intp)
        self._dtype = np.dtype(np.uint8)
        self._truth = []  # per repeat: (capacity,) codes
        self._pred = []  # per repeat: (capacity, n_columns) codes
        self._seen = np.zeros((0, len(self._columns)), dtype=np.uint8)
        self._nonzero = 0  # nonzero entries of _seen
        self.n_file_rows = 0

    @property
    def _sentinel(self):
        return np.iinfo(self._dtype).max

    # ------------------------------------------------------------ building
    def _column_codes(self, column):
        codes = _encode(self._names, column, self._options["classifier"])
        n_known, n_names = self._column_of_code.shape[0], self._names.n_values
        if n_known < n_names:
            names = [str(v) for v in self._names.values]
            new = np.full(n_names - n_known, -1, dtype=np.intp)
            # New classifiers take their columns in order of their first row
            # (the encoder numbers a batch's new names in sorted order).
            uniq, first = np.unique(codes, return_index=True)
            fresh = uniq >= n_known
            for code in uniq[fresh][np.argsort(first[fresh], kind="stable")].tolist():
                if self._requested is not None:
                    name = names[code]
                    new[code - n_known] = (
                        self._requested.index(name) if name in self._requested else -1
                    )
                else:
                    new[code - n_known] = len(self._columns)
                    self._columns.append(names[code])
            self._column_of_code = np.concatenate([self._column_of_code, new])
        return self._column_of_code[codes]

    def _grow(self):
        """Room for every record and column seen, in a dtype for every label."""
        n_records, n_columns = self.records.n, len(self._columns)
        dtype = _code_dtype(self.labels.n_values)
        if dtype != self._dtype:
            old = self._sentinel
            self._dtype = dtype
            self._truth = [_widen(t, old, self._sentinel, dtype) for t in self._truth]
            self._pred = [_widen(p, old, self._sentinel, dtype) for p in self._pred]
        capacity, width = self._seen.shape
        if n_records > capacity or n_columns > width:
            # Geometric growth: each record's slots are copied O(1) times.
            new_capacity = (
                max(n_records, capacity + capacity // 2) if n_records > capacity else capacity
            )
            self._seen = _resized(self._seen, (new_capacity, n_columns), 0)
            self._truth = [_resized(t, (new_capacity,), self._sentinel) for t in self._truth]
            self._pred = [
                _resized(p, (new_capacity, n_columns), self._sentinel) for p in self._pred
            ]

    def add(self, batch, truth, classifier_col, prediction_col, record_col):
        """Add a record batch of the long file."""
        import pyarrow as pa

        offset = self.n_file_rows
        self.n_file_rows += batch.num_rows
        names = {classifier_col: (self._options["classifier"], "classifier name")}
        _check_complete(batch, names, offset)
        column = self._column_codes(batch.column(classifier_col))
        keep = column >= 0
        rows = None
        if not keep.all():
            batch = batch.filter(pa.array(keep))
            column = column[keep]
            rows = np.flatnonzero(keep)
        if column.shape[0] == 0:
            return
        # Missing values of the classifiers compared, at their rows in the file.
        options = {
            truth: (self._options["truth"], "label"),
            prediction_col: (self._options["prediction"], "label"),
            record_col: (self._options["record"], "record id"),
        }
        _check_complete(batch, options, offset, rows)
        record = self.records.codes(batch.column(record_col))
        y = _encode(self.labels, batch.column(truth), self._options["truth"])
        pred = _encode(self.labels, batch.column(prediction_col), self._options["prediction"])
        self._grow()
        repeat = self._repeats(record, column)
        for _ in range(len(self._truth), int(repeat.max()) + 1):
            self._truth.append(np.full(self._seen.shape[0], self._sentinel, dtype=self._dtype))
            self._pred.append(np.full(self._seen.shape, self._sentinel, dtype=self._dtype))
        levels = [0] if len(self._truth) == 1 else np.unique(repeat).tolist()
        for k in levels:
            rows = slice(None) if len(levels) == 1 else repeat == k
            r, c, t = record[rows], column[rows], y[rows]
            self._pred[k][r, c] = pred[rows]
            stored = self._truth[k]
            empty = stored[r] == self._sentinel
            stored[r[empty]] = t[empty]
            differs = np.flatnonzero(stored[r] != t)
            if differs.size:
                i = differs[0]
                values = self.labels.values
                raise UsageError(
                    f"record {self.records.label(r[i])!r} has different true labels "
                    f"({values[stored[r[i]]]!r} and {values[t[i]]!r}) in its rows; the "
                    f"{self._options['truth']} must be the same for all rows of a record "
                    "(the k-th rows of every classifier are paired)."
                )

    def _repeats(self, record, column):
        """Each row's repeat: rows of its (record, classifier) before it."""
        n_columns = self._seen.shape[1]
        key = record * n_columns + column
        flat = self._seen.reshape(-1)
        repeat = flat[key].astype(np.int64)
        if not repeat.any():
            # Every (record, classifier) is new: the batch's keys are distinct
            # exactly when they add as many nonzero counts as rows (no sort).
            flat[key] = 1
            nonzero = np.count_nonzero(flat)
            if nonzero - self._nonzero == key.shape[0]:
                self._nonzero = nonzero
                return repeat
            flat[key] = 0
        order = np.argsort(key, kind="stable")
        sorted_key = key[order]
        starts = np.flatnonzero(np.r_[True, sorted_key[1:] != sorted_key[:-1]])
        lengths = np.diff(np.r_[starts, key.shape[0]])
        if starts.shape[0] != key.shape[0]:
            within = np.arange(key.shape[0]) - np.repeat(starts, lengths)
            repeat[order] += within
        total = flat[sorted_key[starts]].astype(np.int64) + lengths
        if total.max() > np.iinfo(self._seen.dtype).max:
            self._seen = self._seen.astype(np.uint32)
            flat = self._seen.reshape(-1)
        flat[sorted_key[starts]] = total
        self._nonzero = np.count_nonzero(flat)
        return repeat

    # ------------------------------------------------------------ finishing
    def check(self, source):
        """Usage errors of the whole file: empty, unknown or unpaired classifiers.

        Returns
        -------
        names : list of str
            The classifiers, in column order of the output.
        columns : list of int
        """
        _check_not_empty(source, self.n_file_rows)
        present = [str(v) for v in self._names.values]
        seen = self._seen[: self.records.n]
        if self._requested is not None:
            if len(set(self._requested)) != len(self._requested):
                raise UsageError(f"--classifiers: names must be unique, got {self._requested}.")
            for name in self._requested:
                if name not in present:
                    raise UsageError(
                        f"--classifiers: classifier {name!r} does not occur in "
                        f"{self._options['classifier']}; the classifiers are {sorted(present)}."
                    )
            names = list(self._requested)
        else:
            names = list(self._columns)  # in order of their first row
        if len(names) < 2:
            raise UsageError(
                f"at least two classifiers are needed, got {names}; pass --classifiers A,B."
            )
        columns = [self._columns.index(name) for name in names]
        seen = seen[:, columns]
        differs = np.flatnonzero((seen != seen[:, :1]).any(axis=1))
        if differs.size:
            r = differs[0]
            j = int(np.flatnonzero(seen[r] != seen[r, 0])[0])
            raise UsageError(
                f"record {self.records.label(r)!r} has {seen[r, j]} rows for classifier "
                f"{names[j]!r} but {seen[r, 0]} for {names[0]!r}; in the long layout every "
                "classifier needs the same rows for each record."
            )
        return names, columns

    def _slots(self):
        """Per repeat: the truth and prediction codes of the records' slots."""
        n = self.records.n
        return [(t[:n], p[:n]) for t, p in zip(self._truth, self._pred, strict=True)]

    def _label_map(self, columns):
        """Codes -> compact codes of the labels in use, and those labels."""
        used = np.zeros(self.labels.n_values + 1, dtype=bool)
        for truth, pred in self._slots():
            filled = truth != self._sentinel
            used[np.minimum(truth[filled], self.labels.n_values)] = True
            for c in columns:
                used[np.minimum(pred[filled, c], self.labels.n_values)] = True
        used = used[:-1]
        compact = np.full(self.labels.n_values, -1, dtype=np.intp)
        compact[used] = np.arange(np.count_nonzero(used))
        return compact, self.labels.values[used]

    def counts(self, names, columns):
        """The comparison's ComparisonCounts, fed a chunk of records at a time."""
        import pandas as pd

        slots = self._slots()
        clustered = len(slots) > 1
        counts = ComparisonCounts(names, clustered=clustered)
        compact, values = self._label_map(columns)
        categories = pd.Index(values)
        report = {"y_true": self._options["truth"], "groups": self._options["record"]}
        report.update({name: self._options["prediction"] for name in names})
        for truth, pred in slots:
            for start in range(0, truth.shape[0], _CHUNK_RECORDS):
                t = truth[start : start + _CHUNK_RECORDS]
                rows = np.flatnonzero(t != self._sentinel)
                if rows.size == 0:
                    continue
                block = pred[start : start + _CHUNK_RECORDS]

                # Categoricals over the labels in use: no per-row hashing.
                def labels(codes):
                    return pd.Categorical.from_codes(compact[codes], categories=categories)

                try:
                    counts.update(
                        labels(t[rows]),
                        {
                            name: labels(block[rows, c])
                            for name, c in zip(names, columns, strict=True)
                        },
                        groups=start + rows if clustered else None,
                        names=report,
                    )
                except ValueError as exc:
                    raise UsageError(str(exc)) from exc
        return counts

    def encoded(self, names, columns):
        """EncodedColumns: rows ordered by record id, then repeat (file order)."""
        slots = self._slots()
        by_id = self.records.codes_by_id()

        def record_major(arrays):
            return np.stack([a[by_id] for a in arrays], axis=1).reshape(-1)

        truth = record_major([t for t, _ in slots])
        filled = truth != self._sentinel
        y_true = truth[filled].astype(np.intp)
        preds = {
            name: record_major([p[:, c] for _, p in slots])[filled].astype(np.intp)
            for name, c in zip(names, columns, strict=True)
        }
        groups = np.repeat(np.arange(by_id.shape[0]), len(slots))[filled]
        return EncodedColumns(self.labels, y_true, preds, groups)


def _widen(array, old_sentinel, sentinel, dtype):
    out = array.astype(dtype)
    out[array == old_sentinel] = sentinel
    return out


def _resized(array, shape, fill):
    out = np.full(shape, fill, dtype=array.dtype)
    out[tuple(slice(0, s) for s in array.shape)] = array
    return out


@_labels_as_text_if_mixed("truth", "classifier_col", "prediction_col", "record_col")
def pivot_long(source, truth, classifier_col, prediction_col, record_col, classifiers=None):
    """Read a long file batch by batch into a :class:`LongTable`.

    Returns
    -------
    table : LongTable
    names : list of str
    columns : list of int
    """
    options = {
        "truth": f"--truth column {truth!r}",
        "classifier": f"--classifier-col {classifier_col!r}",
        "prediction": f"--prediction-col {prediction_col!r}",
        "record": f"--record-col {record_col!r}",
    }
    table = LongTable(classifiers, options)
    columns = [truth, classifier_col, prediction_col, record_col]
    for batch in source.batches(columns, pre_buffer=False):
        table.add(batch, truth, classifier_col, prediction_col, record_col)
    names, columns = table.check(source)
    return table, names, columns


def count_long(source, truth, classifier_col, prediction_col, record_col, classifiers=None):
    """Count a long file in memory of a few bytes per record and classifier.

    A record with several rows per classifier makes the counts clustered.

    Returns
    -------
    ComparisonCounts
    """
    table, names, columns = pivot_long(
        source, truth, classifier_col, prediction_col, record_col, classifiers
    )
    return table.counts(names, columns)


# ---------------------------------------------------------------- scores


class _Growing:
    """A 1-D buffer filled batch by batch: exact size when the rows are known."""

    def __init__(self, dtype, capacity):
        self.array = np.empty(capacity or 0, dtype=dtype)
        self.n = 0

    def append(self, values):
        end = self.n + values.shape[0]
        if end > self.array.shape[0]:
            # Geometric growth when the file does not say its number of rows.
            grown = np.empty(max(end, self.array.shape[0] * 3 // 2), dtype=self.array.dtype)
            grown[: self.n] = self.array[: self.n]
            self.array = grown
        self.array[self.n : end] = values
        self.n = end

    def widen(self, dtype):
        if np.dtype(dtype) != self.array.dtype:
            self.array = self.array.astype(dtype)

    def values(self):
        return self.array[: self.n]


def _not_numeric(name, column):
    """The message for a score column of text, with an example of its values."""
    import pyarrow as pa
    import pyarrow.compute as pc

    message = f"--scores: column {name!r} is not numeric"
    if not (pa.types.is_string(column.type) or pa.types.is_dictionary(column.type)):
        return message + f" (its type is {column.type})."
    example = pc.cast(column.slice(0, 1), pa.string())[0].as_py()
    message += f" (e.g. {example!r})"
    if re.fullmatch(r"[-+]?\d*,\d+", example.strip()):
        return message + "; it has decimal commas: write the scores with decimal points."
    return message + "; pass the column of each classifier's scores (probabilities)."


@_labels_as_text_if_mixed("truth", "groups")
def read_scores(source, truth, names, groups=None):
    """Read the true labels (as codes) and score columns (as float64) of a file.

    DeLong's test ranks every score, so the scores are kept: 8 bytes per row
    and score column, plus the truth's code (a byte for fewer than 255
    labels); no other copy of the file's rows is made.

    Parameters
    ----------
    source : TableSource
    truth : str
    names : list of str
        The score columns.
    groups : str, default=None
        A record-id column, read as codes.

    Returns
    -------
    codes : ndarray of unsigned int
        Codes of the true labels (``labels.values[codes]`` are the labels).
    labels : StreamingLabelEncoder
    scores : dict of str -> ndarray of float64
    group_codes : ndarray of intp or None
        Only when `groups` is given: the record code of each row.
    """
    import pyarrow as pa

    records = StreamingLabelEncoder() if groups is not None else None
    group_parts = []
    labels = StreamingLabelEncoder()
    codes = _Growing(np.uint8, source.num_rows)
    scores = {name: _Growing(np.float64, source.num_rows) for name in names}
    columns = [truth, *names] + ([groups] if groups is not None else [])
    options = {truth: (f"--truth column {truth!r}", "label")}
    for name in names:
        options.setdefault(name, (f"--scores: column {name!r}", "score"))
    if groups is not None:
        options.setdefault(groups, (f"--groups column {groups!r}", "record id"))
    for batch in _complete_batches(source, columns, options, pre_buffer=False):
        batch_codes = _encode(labels, batch.column(truth), f"--truth column {truth!r}")
        if records is not None:
            group_parts.append(
                _encode(records, batch.column(groups), f"--groups column {groups!r}")
            )
        codes.widen(_code_dtype(labels.n_values))
        codes.append(batch_codes)
        for name in names:
            column = _arrow_column(batch.column(name))
            if not (pa.types.is_integer(column.type) or pa.types.is_floating(column.type)):
                raise UsageError(_not_numeric(name, column))
            values = column.to_numpy(zero_copy_only=False).astype(np.float64, copy=False)
            if not np.isfinite(values).all():
                raise UsageError(f"--scores: column {name!r} has NaN or infinite scores.")
            scores[name].append(values)
    _check_not_empty(source, codes.n)
    # Arrow's pool keeps the decoded batches' pages for reuse; the ranking
    # that follows allocates with NumPy, so they would only add to the peak.
    pa.default_memory_pool().release_unused()
    values = {name: buffer.values() for name, buffer in scores.items()}
    if groups is None:
        return codes.values(), labels, values
    return codes.values(), labels, values, _concat(group_parts)
