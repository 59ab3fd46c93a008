"""The sufficient statistics of a comparison as a public, additive object.

Every statistic of a paired comparison is a function of counts:

* with one row per record, of the joint table of (true label, prediction of
  each classifier): a record adds one to one cell, so tables of chunks of
  records add up;
* with clustered rows (a record has several rows, e.g. repeated
  cross-validation), of per-record sums: for each record and each class its
  rows touch, the rows of each one-vs-rest category (TP, FN, FP) for each
  classifier, plus the record's number of rows. Sums of chunks are added
  record by record (by record id), so a record's rows may span chunks.

:class:`ComparisonCounts` holds these counts, grows chunk by chunk
(:meth:`~ComparisonCounts.update`), merges with another one
(:meth:`~ComparisonCounts.merge`) and is accepted by the comparison
functions in place of the arrays.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from .._typing import ArrayLike, Predictions
from ..utils._validation import (
    _as_label_array,
    _check_aligned_indexes,
    _check_named,
    _prediction_pairs,
)
from ._codes import EncodedPredictions
from ._counts import (
    TN,
    AgreementCounts,
    agreement_from_joint_table,
    agreement_from_pairs,
    categories_from_keys,
    category_counts,
    pooled_counts_clustered,
    record_class_keys,
)
from ._labels import StreamingLabelEncoder
from ._tables import _MAX_JOINT_CELLS, integer_joint_table, joint_table
from ._units import StoredRecords

__all__ = ["ComparisonCounts", "counts_in_place_of_arrays"]

# Integer labels of a small range are counted in a joint table over their
# one-byte codes (:func:`._tables.integer_codes`), of at most this many cells.
_MAX_RAW_CELLS = 2**20

# Label codes and record codes are packed into one int64 key per
# (record, class) entry of the clustered sums.
_CLASS_BITS = 24


def _named_arrays(y_preds):
    # A dict, a list of (name, predictions) pairs or a DataFrame of columns.
    return _prediction_pairs(y_preds)


def _is_empty(values):
    try:
        return len(values) == 0
    except TypeError:
        return False


def _pad(array, axes, size):
    """`array` zero-padded along `axes` to length `size`."""
    pad = [(0, 0)] * array.ndim
    for axis in axes:
        pad[axis] = (0, size - array.shape[axis])
    return np.pad(array, pad)


class ComparisonCounts:
    """Counts of a paired comparison, built from arrays, chunks or a table.

    Pass it to :func:`compare_precision` (or any ``compare_*`` function)
    in place of ``y_true`` and ``y_preds``; the results are the same as
    from the arrays it counted.

    Parameters
    ----------
    classifiers : sequence of hashable
        Classifier names (str, or e.g. int or tuple, as ``compare_*``
        accepts them), at least two, in the order the chunks give them.
    clustered : bool, default=False
        True when rows carry record ids (``groups``) and a record may have
        several rows.

    Attributes
    ----------
    classifiers : tuple
        The classifier names, as given (str, or e.g. int or tuple).
    classes : ndarray
        The labels seen, sorted.
    n_rows : int
        Rows counted (per classifier).
    n_records : int
        Distinct records (``n_rows`` when not clustered).
    clustered : bool

    See Also
    --------
    compare_precision : Accepts a ComparisonCounts in place of arrays.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_precision_stats import ComparisonCounts
    >>> y = np.array([0, 1, 1, 0, 1, 0])
    >>> a = np.array([0, 1, 0, 0, 1, 1])
    >>> b = np.array([1, 1, 1, 0, 0, 0])
    >>> counts = ComparisonCounts.from_arrays(y[:4], {"a": a[:4], "b": b[:4]})
    >>> counts = counts.update(y[4:], {"a": a[4:], "b": b[4:]})
    >>> counts.n_rows, counts.classes.tolist()
    (6, [0, 1])
    >>> int(counts.joint_table()[1, 1, 0])  # truth 1, a says 1, b says 0
    1
    """

    # State filled by the chunks; its form depends on the rows (a joint
    # table or agreement counts, per-record sums), hence Any.
    _table: Any
    _agreement: Any
    _records: Any
    _record_rows: Any
    _record_correct: Any
    _key_parts: list[Any]
    _key_compact: Any

    def __init__(self, classifiers: Iterable[Hashable], *, clustered: bool = False) -> None:
        if isinstance(classifiers, str):
            raise ValueError(
                f"classifiers must be a list of names, got the string {classifiers!r}; "
                f"pass e.g. [{classifiers!r}, 'other']."
            )
        names = list(classifiers)
        if len(names) < 2:
            raise ValueError(
                f"classifiers must hold at least two names, got {names}; add the "
                "predictions of a reference classifier."
            )
        if len(set(names)) != len(names):
            raise ValueError(f"the classifier names must be unique, got {names}.")
        # Names as given (str, int, tuple), as compare_* reports them.
        self._names = tuple(names)
        if not isinstance(clustered, (bool, np.bool_)):
            raise ValueError(
                f"clustered must be True or False, got {clustered!r} of type "
                f"{type(clustered).__name__}."
            )
        self._clustered = bool(clustered)
        self._labels = StreamingLabelEncoder()
        self._n_rows = 0
        # One row per record: the joint table in code order while it is small
        # enough, else the additive agreement counts.
        self._table = np.zeros((0,) * (len(names) + 1), dtype=np.int64)
        self._agreement = None
        # Clustered rows: per-record sums.
        self._records = StreamingLabelEncoder() if clustered else None
        self._record_rows = np.zeros(0, dtype=np.int64)
        self._record_correct = np.zeros((0, len(names)), dtype=np.int64)
        self._key_parts = []  # (keys int64, x int64 of shape (n, C, 3))
        self._key_compact = 0
        self._key_pending = 0  # entries in _key_parts, kept as a sum (one add per chunk)
        # Rows where classifiers c and d are both right (diagonal: c right).
        self._both_correct = np.zeros((len(names), len(names)), dtype=np.int64)

    # ------------------------------------------------------------ building
    @classmethod
    def from_arrays(
        cls, y_true: ArrayLike, y_preds: Predictions, *, groups: ArrayLike | None = None
    ) -> ComparisonCounts:
        """Count one set of arrays (truth, predictions, optional record ids)."""
        items = _check_named(
            _named_arrays(y_preds), "y_preds", "add the predictions of a reference classifier"
        )
        names = [name for name, _ in items]
        return cls(names, clustered=groups is not None).update(y_true, y_preds, groups=groups)

    @classmethod
    def from_table(
        cls,
        table: ArrayLike | Mapping[str, Any],
        *,
        classifiers: Sequence[str] | None = None,
        labels: ArrayLike | None = None,
    ) -> ComparisonCounts:
        """Counts from a contingency table of one row per record.

        Parameters
        ----------
        table : array-like of shape (K, K, ..., K) or dict
            Records in each (true label, prediction of classifier 1, ...,
            prediction of classifier C) cell. Or R DTComPair's
            ``tab.paired`` object for two binary tests, as a dict with its
            matrices ``"diseased"`` and ``"non.diseased"`` as R prints
            them: rows test 2 positive, negative; columns test 1 positive,
            negative; with or without the ``Total`` row and column. It
            gives labels 1 (diseased, positive) and 0; its
            ``"testnames"``, if any, name the classifiers.
        classifiers : sequence of str, default=None
            Names of the C classifiers; ``"test1", "test2", ...`` (or the
            dict's ``"testnames"``) when None.
        labels : array-like of shape (K,), default=None
            The label of each index; ``0..K-1`` when None.

        Examples
        --------
        DTComPair's example data ``Paired1`` (``tab.paired(d, y1, y2)``):

        >>> from sklearn_precision_stats import ComparisonCounts, compare_precision
        >>> counts = ComparisonCounts.from_table(
        ...     {"diseased": [[319, 22], [78, 32]], "non.diseased": [[31, 22], [53, 155]]}
        ... )
        >>> counts.n_rows, counts.classes.tolist()
        (712, [0, 1])
        >>> result = compare_precision(counts, labels=[1])
        >>> result.table[["precision", "precision_reference"]].round(4)
           precision  precision_reference
        0     0.8655               0.8254
        """
        if isinstance(table, Mapping):
            array, testnames = _dtcompair_table(table)
            labels = [0, 1] if labels is None else labels
            if classifiers is None:
                classifiers = testnames
        else:
            array = np.asarray(table)
        names = (
            [f"test{i + 1}" for i in range(max(array.ndim - 1, 2))]
            if classifiers is None
            else list(classifiers)
        )
        if array.ndim != len(names) + 1 or len(set(array.shape)) != 1:
            raise ValueError(
                f"table must have {len(names) + 1} axes of the same length (truth, then "
                f"one per classifier in {names}), got shape {array.shape}."
            )
        array = _check_counts_table(array)
        n_values = array.shape[0]
        labels = np.arange(n_values) if labels is None else np.asarray(labels)
        if labels.shape != (n_values,):
            raise ValueError(
                f"labels must have one label per index of the table ({n_values}), got "
                f"{labels.shape[0] if labels.ndim == 1 else labels.shape}."
            )
        counts = cls(names)
        codes = counts._labels.encode(labels, names=["labels"])[0]
        if len(set(codes.tolist())) != n_values:
            raise ValueError(f"labels must be distinct, got {labels.tolist()}.")
        counts._table = np.zeros(array.shape, dtype=np.int64)
        counts._table[np.ix_(*[codes] * array.ndim)] = array
        # The int64 sum is exact unless it may pass 2**63 (then Python ints).
        big = array.size and int(array.max()) * array.size > _INT64_MAX
        counts._n_rows = _checked_total(int(array.sum(dtype=object if big else np.int64)))
        return counts

    def update(
        self,
        y_true: ArrayLike,
        y_preds: Predictions,
        *,
        groups: ArrayLike | None = None,
        names: Mapping[Any, str] | None = None,
    ) -> ComparisonCounts:
        """Add a chunk of rows; returns self.

        Parameters
        ----------
        y_true : array-like of shape (n_rows,)
        y_preds : dict, list of (str, array-like) or DataFrame
            The same classifier names as the counts' (a DataFrame: one
            column per classifier).
        groups : array-like of shape (n_rows,), default=None
            Record ids; required exactly when the counts are clustered.
        names : dict, default=None
            What to call ``"y_true"``, ``"groups"`` and each classifier's
            predictions in error messages (e.g. a file's column names).
        """
        if names is not None and not isinstance(names, Mapping):
            raise ValueError(
                "names must be a dict mapping 'y_true', 'groups' or a classifier to the "
                f"name to use in messages, got a {type(names).__name__}."
            )
        items = _named_arrays(y_preds)
        chunk_names = [name for name, _ in items]
        if len(chunk_names) != len(self._names) or set(chunk_names) != set(self._names):
            raise ValueError(
                f"the chunk's classifiers {chunk_names} differ from the counts' "
                f"{list(self._names)}; every chunk needs the same classifiers."
            )
        if (groups is not None) != self._clustered:
            raise ValueError(
                "groups must be given with every chunk of clustered counts and with none "
                "of counts of one row per record; create the counts with "
                "ComparisonCounts.from_arrays(..., groups=...) for clustered rows."
            )
        by_name = dict(items)
        arrays = [y_true] + [by_name[name] for name in self._names]
        # pandas chunks are paired by position, as compare_* pairs them.
        _check_aligned_indexes(
            y_true=y_true, groups=groups, **{f"y_preds[{name!r}]": a for name, a in items}
        )
        if all(_is_empty(a) for a in [*arrays, groups] if a is not None):
            # An empty chunk (e.g. empty lists, read as floats by NumPy)
            # adds nothing and must not change the labels' type.
            return self
        names = {} if names is None else names
        arg_names = [names.get("y_true", "y_true")] + [
            names.get(name, f"y_preds[{name!r}]") for name in self._names
        ]
        # As compare_* reads its arrays: column vectors, pandas and pyarrow.
        arrays = [
            _as_label_array(a, name, for_encoder=True)
            for a, name in zip(arrays, arg_names, strict=True)
        ]
        n = arrays[0].shape[0]
        for array, name in zip(arrays[1:], arg_names[1:], strict=True):
            if array.shape[0] != n:
                raise ValueError(
                    f"{name} has {array.shape[0]} rows but y_true has {n}; every classifier "
                    "must predict every row of y_true, in the same order."
                )
        if self._clustered:
            group_name = names.get("groups", "groups")
            record_ids = _as_label_array(groups, group_name, for_encoder=True)
            if record_ids.shape[0] != n:
                raise ValueError(
                    f"{group_name} has {record_ids.shape[0]} entries but y_true has {n} rows; "
                    "pass one record id per row."
                )
        _checked_total(self._n_rows + n)
        # A chunk that fails part-way (labels of another type, a missing
        # record id) must leave no label behind, or it would be reported
        # as a class of no row.
        encoders = [e for e in (self._labels, self._records) if e is not None]
        states = [e.checkpoint() for e in encoders]
        try:
            if not self._clustered and self._add_integer_table(arrays, arg_names[0]):
                return self
            codes = self._labels.encode(*arrays, names=arg_names)
            if self._clustered:
                record = self._records.encode(record_ids, names=[group_name])[0]
        except Exception:
            for encoder, state in zip(encoders, states, strict=True):
                encoder.restore(state)
            raise
        self._add_paired(codes[0], codes[1:])
        if self._clustered:
            self._add_clustered(codes[0], codes[1:], record)
        self._n_rows += n
        return self

    def _add_integer_table(self, arrays, name):
        """Count integer labels of a small range into the joint table; False when not.

        Their one-byte codes (:func:`._tables.integer_codes`) are counted,
        and only the labels present go through the encoder, not a code per
        row: counts of labels 0..9 and their comparison take 3.2x less time
        than through the encoder at 10^6 rows
        (benchmarks/bench_architecture.py).
        """
        if self._table is None or arrays[0].shape[0] == 0:
            return False
        counted = integer_joint_table(arrays, _MAX_RAW_CELLS)
        if counted is None:
            return False
        table, values = counted
        n_axes = table.ndim
        present = np.zeros(table.shape[0], dtype=bool)
        for axis in range(n_axes):
            present |= table.sum(axis=tuple(ax for ax in range(n_axes) if ax != axis)) > 0
        index = np.flatnonzero(present)
        labels = values[index]
        codes = self._labels.encode(labels, names=[name])[0]
        table = table[np.ix_(*[index] * n_axes)].astype(np.int64)
        n_values = self._labels.n_values
        if n_values**n_axes > _MAX_JOINT_CELLS:
            chunk = agreement_from_joint_table(table, n_axes - 1)
            self._agreement = _add_agreement(
                self._table_agreement(), _relabel_agreement(chunk, codes, n_values)
            )
            self._table = None
        else:
            self._table = _pad(self._table, range(n_axes), n_values)
            self._table[np.ix_(*[codes] * n_axes)] += table
        self._n_rows += arrays[0].shape[0]
        return True

    def _add_paired(self, y, preds):
        n_values = self._labels.n_values
        n_axes = 1 + len(preds)
        if self._agreement is None and n_values**n_axes > _MAX_JOINT_CELLS:
            self._agreement = self._table_agreement()
            self._table = None
        if self._agreement is not None:
            chunk = agreement_from_pairs(y, preds, n_values)
            self._agreement = _add_agreement(self._agreement, chunk)
            return
        if self._table.shape[0] < n_values:
            self._table = _pad(self._table, range(n_axes), n_values)
        encoded = EncodedPredictions(y, list(preds), np.arange(n_values))
        self._table += joint_table(encoded).astype(np.int64, copy=False)

    def _table_agreement(self):
        n_clf = len(self._names)
        if self._table.size == 0:
            return agreement_from_pairs(
                np.empty(0, np.intp), [np.empty(0, np.intp)] * n_clf, self._labels.n_values
            )
        return agreement_from_joint_table(self._table, n_clf)

    def _add_clustered(self, y, preds, record):
        n_records = self._records.n_values
        rows = np.bincount(record, minlength=n_records)
        self._record_rows = _pad(self._record_rows, [0], n_records) + rows
        correct = np.stack(
            [np.bincount(record[p == y], minlength=n_records) for p in preds], axis=-1
        )
        self._record_correct = _pad(self._record_correct, [0], n_records) + correct
        hits = [p == y for p in preds]
        for c in range(len(preds)):
            for d in range(c, len(preds)):
                both = np.count_nonzero(hits[c] & hits[d]) if c != d else np.count_nonzero(hits[c])
                self._both_correct[c, d] += both
                if c != d:
                    self._both_correct[d, c] += both
        keys, x = _keyed_category_sums(y, preds, record, n_records, self._labels.n_values)
        self._key_parts.append((keys, x))
        self._key_pending += keys.shape[0]
        # Combine duplicate (record, class) entries once they double the
        # compacted size: memory stays in proportion to the records.
        if self._key_pending > 2 * max(self._key_compact, 1 << 16):
            self._compact()

    def _compact(self):
        """Concatenate the parts, summing the keys of records that span parts.

        Only a record with keys in several parts (its rows span chunks) can
        have duplicate keys; the other keys are kept as they are, so chunks
        of records in order cost no hashing.
        """
        parts = self._key_parts
        if len(parts) > 1:
            keys = np.concatenate([k for k, _ in parts])
            x = np.concatenate([v for _, v in parts])
            record = keys >> _CLASS_BITS
            part = np.repeat(np.arange(len(parts)), [k.shape[0] for k, _ in parts])
            # One part per record is marked (whichever write NumPy keeps): a
            # record is in several parts exactly when some key's part differs.
            mark = np.empty(self._records.n_values, dtype=np.intp)
            mark[record] = part
            spans = np.zeros(self._records.n_values, dtype=bool)
            spans[record[mark[record] != part]] = True
            shared = spans[record]
            if shared.any():
                grouped_keys, grouped_x = _group_sum(keys[shared], x[shared])
                keys = np.concatenate([keys[~shared], grouped_keys])
                x = np.concatenate([x[~shared], grouped_x])
            self._key_parts = [(keys, x)]
        self._key_compact = self._key_pending = sum(k.shape[0] for k, _ in self._key_parts)

    def _keys(self):
        """Every (record, class) key once, and its TP, FN, FP per classifier."""
        self._compact()
        return self._key_parts[0] if self._key_parts else _empty_keys(len(self._names))

    def merge(self, other: ComparisonCounts) -> ComparisonCounts:
        """Counts of both (e.g. of two parts of a file); a new object."""
        if not isinstance(other, ComparisonCounts):
            raise TypeError(f"can only merge ComparisonCounts, got {type(other).__name__}.")
        if set(other._names) != set(self._names):
            raise ValueError(
                f"cannot merge counts of classifiers {list(other._names)} into counts of "
                f"{list(self._names)}."
            )
        if other._clustered != self._clustered:
            raise ValueError("cannot merge clustered counts with counts of one row per record.")
        _checked_total(self._n_rows + other._n_rows)
        out = self.copy()
        label_map = out._labels.merge(other._labels, name="the other counts' y_true")
        n_values = out._labels.n_values
        order = [other._names.index(name) for name in out._names]
        n_axes = len(out._names) + 1
        # Other's tables, in this object's classifier order and label codes.
        if (
            other._agreement is None
            and out._agreement is None
            and (n_values**n_axes <= _MAX_JOINT_CELLS)
        ):
            table = np.transpose(other._table, [0] + [1 + i for i in order])
            out._table = _pad(out._table, range(n_axes), n_values)
            if table.size:
                out._table[np.ix_(*[label_map] * n_axes)] += table
        else:
            mine = out._agreement if out._agreement is not None else out._table_agreement()
            theirs = other._agreement if other._agreement is not None else other._table_agreement()
            theirs = _reorder_agreement(theirs, order)
            out._agreement = _add_agreement(mine, _relabel_agreement(theirs, label_map, n_values))
            out._table = None
        if out._clustered:
            record_map = out._records.merge(other._records, name="the other counts' groups")
            n_records = out._records.n_values
            out._record_rows = _pad(out._record_rows, [0], n_records)
            out._record_correct = _pad(out._record_correct, [0], n_records)
            if other._record_rows.size:
                out._record_rows[record_map] += other._record_rows
                out._record_correct[record_map] += other._record_correct[:, order]
            for keys, x in other._key_parts:
                record = record_map[keys >> _CLASS_BITS]
                klass = label_map[keys & ((1 << _CLASS_BITS) - 1)]
                out._key_parts.append(((record << _CLASS_BITS) | klass, x[:, order]))
            out._compact()
        out._both_correct += other._both_correct[np.ix_(order, order)]
        out._n_rows += other._n_rows
        return out

    def copy(self) -> ComparisonCounts:
        """A deep copy."""
        import copy

        return copy.deepcopy(self)

    def reordered(self, classifiers: Sequence[str]) -> ComparisonCounts:
        """The same counts with the classifiers in the order of `classifiers`."""
        names = list(classifiers)
        if len(names) != len(self._names) or set(names) != set(self._names):
            raise ValueError(f"classifiers must be a permutation of {list(self._names)}.")
        order = [self._names.index(name) for name in names]
        out = self.copy()
        out._names = tuple(names)
        if out._table is not None:
            out._table = np.transpose(out._table, [0] + [1 + i for i in order])
        if out._agreement is not None:
            out._agreement = _reorder_agreement(out._agreement, order)
        if out._clustered:
            out._record_correct = out._record_correct[:, order]
            out._key_parts = [(k, x[:, order]) for k, x in out._key_parts]
        out._both_correct = out._both_correct[np.ix_(order, order)]
        return out

    # ------------------------------------------------------------- reading
    @property
    def classifiers(self) -> tuple[Any, ...]:
        return self._names

    @property
    def clustered(self) -> bool:
        return self._clustered

    @property
    def n_rows(self) -> int:
        return self._n_rows

    @property
    def n_records(self) -> int:
        if self._clustered:
            return int(np.count_nonzero(self._record_rows))
        return self._n_rows

    @property
    def classes(self) -> np.ndarray:
        return self._labels.values[self._labels.order]

    def joint_table(self) -> np.ndarray | None:
        """Records per (truth, prediction 1, ..., prediction C) cell, labels sorted.

        None when the table would be too large (many classes and
        classifiers); the comparison then uses the agreement counts.
        """
        if self._table is None:
            return None
        order = self._labels.order
        table = self._table
        if table.shape[0] < self._labels.n_values:
            table = _pad(table, range(table.ndim), self._labels.n_values)
        return table[np.ix_(*[order] * table.ndim)].copy()

    def statistics(self) -> tuple[Any, Any, np.ndarray]:
        """The engine's sufficient statistics, classes in sorted label order.

        Returns
        -------
        categories : CategoryCounts
            Per class (every label of :attr:`classes`, sorted).
        pooled : CategoryCounts
            The one pseudo-class of accuracy.
        present : ndarray of bool
            True for the labels some row is of or is predicted as; False
            for a label of no row (an unused category of a categorical
            chunk, a table's label of empty cells), which a comparison of
            the arrays would not report either.
        """
        n_values = self._labels.n_values
        order = self._labels.order
        if self._clustered and self.n_records < self._n_rows:
            keys, x = self._keys()
            categories = categories_from_keys(
                x,
                keys & ((1 << _CLASS_BITS) - 1),
                self._record_rows,
                n_values,
                key_record=keys >> _CLASS_BITS,
            ).take_classes(order)
            pooled = pooled_counts_clustered(self._record_rows, self._record_correct)
        else:
            table = self.joint_table()
            if table is not None:
                agreement = agreement_from_joint_table(table, len(self._names))
            else:
                agreement = _relabel_agreement(self._agreement, np.argsort(order), n_values)
            categories, pooled = category_counts(agreement), category_counts(agreement.pooled())
        # As compare_* finds them: some classifier has a TP, FN or FP.
        present = categories.first[..., :TN].sum(axis=(-2, -1)) > 0
        return categories, pooled, present

    def stored_records(self) -> StoredRecords | None:
        """The records in the compact form a comparison keeps (labels sorted).

        The nonzero cells of the joint table, or per (record, class) counts
        of clustered rows; None when only agreement sums are kept (too many
        classes and classifiers for the table).
        """
        if not self._clustered:
            table = self.joint_table()
            return None if table is None else StoredRecords.from_table(table)
        keys, x = self._keys()
        # Classes and records in sorted order, as compare_* numbers them.
        rank = np.argsort(self._labels.order)
        record_order = self._records.order
        record_rank = np.argsort(record_order)
        return StoredRecords.from_keys(
            record_rank[keys >> _CLASS_BITS],
            rank[keys & ((1 << _CLASS_BITS) - 1)],
            x,
            _pad(self._record_rows, [0], self._records.n_values)[record_order],
            self._labels.n_values,
        )

    def mcnemar_sums(self, a: Hashable, b: Hashable) -> dict[str, Any]:
        """What McNemar's test of classifiers `a` and `b` needs.

        Returns
        -------
        dict
            ``n_a_only``, ``n_b_only`` (discordant rows), ``correct_a``,
            ``correct_b`` (rows right), ``n_rows``; with clustered rows also
            ``per_cluster`` (per record, rows only a gets right minus rows
            only b gets right, which is ``correct_a - correct_b`` of the
            record) and ``sizes`` (rows per record), else None for both.
        """
        for name in (a, b):
            if name not in self._names:
                raise ValueError(f"{name!r} is not one of the classifiers {list(self._names)}.")
        i, j = self._names.index(a), self._names.index(b)
        if self._clustered:
            both_correct = self._both_correct
            both = int(both_correct[i, j])
            correct_a, correct_b = int(both_correct[i, i]), int(both_correct[j, j])
        elif self._table is not None:
            # From the int64 table: exact beyond 2**53 rows, where the
            # discordant counts, differences of large sums, would vanish.
            both, correct_a, correct_b = _correct_of_pair(self._table, i, j)
        else:
            # Many classes: from the agreement counts, summed over classes.
            both_correct = np.asarray(self._agreement.truth_pred_pred).sum(axis=0)
            both = int(both_correct[i, j])
            correct_a, correct_b = int(both_correct[i, i]), int(both_correct[j, j])
        out = {
            "n_a_only": correct_a - both,
            "n_b_only": correct_b - both,
            "correct_a": correct_a,
            "correct_b": correct_b,
            "n_rows": self._n_rows,
            "per_cluster": None,
            "sizes": None,
        }
        if self._clustered:
            keep = self._record_rows > 0
            out["per_cluster"] = (
                self._record_correct[keep, i] - self._record_correct[keep, j]
            ).astype(float)
            out["sizes"] = self._record_rows[keep].astype(float)
        return out

    def __repr__(self) -> str:
        classes = self.classes.tolist()
        shown = classes if len(classes) <= 6 else [*classes[:5], "..."]
        return (
            f"ComparisonCounts(classifiers={list(self._names)!r}, classes={shown!r}, "
            f"n_rows={self._n_rows}, n_records={self.n_records}, clustered={self._clustered})"
        )

    def _repr_html_(self) -> str:
        # Notebook display: what was counted, and each classifier's rows right.
        import html

        names = self._names
        correct = [self.mcnemar_sums(name, names[0])["correct_a"] for name in names]
        classes = self.classes.tolist()
        shown = ", ".join(map(str, classes[:10])) + (", ..." if len(classes) > 10 else "")
        header = {
            "Classifiers": ", ".join(map(str, names)),
            "Classes": f"{len(classes)} ({shown})",
            "Rows per classifier": self._n_rows,
            "Records": f"{self.n_records} ("
            + ("clustered rows" if self._clustered else "one row each")
            + ")",
        }
        rows = "".join(
            f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
            f"<td style='text-align:left'>{html.escape(str(v))}</td></tr>"
            for k, v in header.items()
        )
        right = "".join(
            f"<tr><td>{html.escape(str(name))}</td><td>{n}</td>"
            f"<td>{n / self._n_rows if self._n_rows else float('nan'):.4g}</td></tr>"
            for name, n in zip(names, correct, strict=True)
        )
        return (
            "<div><p><b>ComparisonCounts</b></p>"
            f"<table style='width:auto'>{rows}</table>"
            "<table style='width:auto'><tr><th>classifier</th><th>rows right</th>"
            f"<th>accuracy</th></tr>{right}</table></div>"
        )


def counts_in_place_of_arrays(y_true: Any, y_preds: Any, groups: Any) -> ComparisonCounts | None:
    """The ComparisonCounts passed as `y_true`, or None when arrays are passed.

    Raises when the arguments mix the two forms: counts with `y_preds` or
    `groups`, or arrays without `y_preds`.
    """
    if isinstance(y_true, ComparisonCounts):
        if y_preds is not None or groups is not None:
            raise ValueError(
                "y_preds and groups must be None when y_true is a ComparisonCounts: "
                "the counts already hold the predictions and the records."
            )
        return y_true
    if y_preds is None:
        raise ValueError(
            "y_preds is required: a dict mapping classifier name to predicted labels "
            "(or pass a ComparisonCounts as y_true)."
        )
    return None


# ---------------------------------------------------------------- helpers

_INT64_MAX = int(np.iinfo(np.int64).max)


def _checked_total(n_rows):
    """`n_rows` when int64 counts can hold it, else a ValueError."""
    if n_rows > _INT64_MAX:
        raise ValueError(
            f"the counts would hold {n_rows} rows, more than the 2**63 - 1 that 64-bit "
            "integer counts hold; compare parts of the data separately."
        )
    return n_rows


def _check_counts_table(table):
    """`table` as int64 counts: non-negative, integral and within int64."""
    if table.dtype.kind not in "iuf" or table.size == 0:
        raise ValueError(
            "table must hold non-negative integer counts (a numeric array), got "
            + ("an empty table." if table.size == 0 else f"dtype {table.dtype}.")
        )
    bad = ~np.isfinite(table) if table.dtype.kind == "f" else np.zeros(table.shape, bool)
    bad |= table < 0
    if table.dtype.kind == "f":
        bad |= table != np.round(table)
    if bad.any():
        raise ValueError(
            f"table must hold non-negative integer counts, got {table[bad].ravel()[0].item()!r}."
        )
    if table.max() > _INT64_MAX:
        raise ValueError(
            f"table holds a count of {int(table.max())}, more than the 2**63 - 1 that "
            "64-bit integer counts hold."
        )
    return table.astype(np.int64)


def _dtcompair_table(table):
    """(truth, test 1, test 2) counts and test names of DTComPair's ``tab.paired``.

    R's matrices have test 2 in rows and test 1 in columns, positive first,
    and a ``Total`` row and column, which must add up.
    """
    missing = {"diseased", "non.diseased"} - set(table)
    if missing:
        raise ValueError(
            "a dict table must hold DTComPair's tab.paired matrices 'diseased' and "
            f"'non.diseased'; missing {sorted(missing)}."
        )
    strata = []
    for key in ("non.diseased", "diseased"):
        m = np.asarray(table[key])
        if m.shape == (3, 3):
            cells = m[:2, :2]
            consistent = (
                np.array_equal(m[:2, 2], cells.sum(axis=1))
                and np.array_equal(m[2, :2], cells.sum(axis=0))
                and m[2, 2] == cells.sum()
            )
            if not consistent:
                raise ValueError(
                    f"the {key!r} matrix is 3x3 but its last row and column are not "
                    "its totals; pass the 2x2 cells (rows test 2 positive, negative; "
                    "columns test 1 positive, negative) or DTComPair's matrix with totals."
                )
            m = cells
        if m.shape != (2, 2):
            raise ValueError(
                f"the {key!r} matrix must be 2x2 (rows test 2 positive, negative; columns "
                f"test 1 positive, negative), or 3x3 with totals, got shape {m.shape}."
            )
        # Index 1 is positive here, and test 1 comes first.
        strata.append(m[::-1, ::-1].T)
    names = table.get("testnames")
    names = None if names is None else [str(n) for n in np.asarray(names).ravel()]
    return np.stack(strata), names


def _add_agreement(a, b):
    """Sum of two AgreementCounts, padded to the larger number of classes."""
    n_values = max(np.shape(a.truth)[-1], np.shape(b.truth)[-1])

    def grow(x):
        x = np.asarray(x, dtype=float)
        if x.ndim == 0:
            return x
        return _pad(x, [0], n_values)

    return AgreementCounts(*(grow(x) + grow(y) for x, y in zip(a, b, strict=True)))


def _relabel_agreement(agreement, label_map, n_values):
    """Agreement counts with class index i moved to ``label_map[i]``."""
    out = []
    for x in agreement:
        x = np.asarray(x, dtype=float)
        if x.ndim == 0:
            out.append(x)
            continue
        y = np.zeros((n_values,) + x.shape[1:])
        y[label_map] = x
        out.append(y)
    return AgreementCounts(*out)


def _reorder_agreement(agreement, order):
    n, truth, pred, tp, pp, tpp = agreement
    order = np.asarray(order)
    return AgreementCounts(
        n,
        truth,
        np.asarray(pred)[:, order],
        np.asarray(tp)[:, order],
        np.asarray(pp)[:, order][:, :, order],
        np.asarray(tpp)[:, order][:, :, order],
    )


def _correct_of_pair(table, i, j):
    """Rows both classifiers `i` and `j` get right, and each one, from a joint table."""
    n_axes = table.ndim
    # (truth, prediction of i, prediction of j), the other classifiers summed out.
    others = tuple(ax for ax in range(1, n_axes) if ax not in (i + 1, j + 1))
    pair = table.sum(axis=others, dtype=np.int64)
    k = np.arange(table.shape[0])
    if i == j:
        correct = int(pair[k, k].sum())
        return correct, correct, correct
    if i > j:  # summing keeps the axes in order: the (truth, j, i) table
        pair = pair.transpose(0, 2, 1)
    both = int(pair[k, k, k].sum())
    return both, int(pair[k, k, :].sum()), int(pair[k, :, k].sum())


def _empty_keys(n_clf):
    return np.empty(0, dtype=np.int64), np.empty((0, n_clf, 3), dtype=np.int64)


def _keyed_category_sums(y, preds, record, n_records, n_values):
    """Per (record, class) key of a chunk: rows of each classifier in TP, FN, FP.

    A row touches its true class and every predicted class; each (row,
    class) pair is counted once (:func:`._counts.record_class_keys`, linear
    in the rows, no sort of the keys). True negatives follow from the
    record's rows at the end. Keys are ``record << _CLASS_BITS | class``,
    each once; the counts come in the smallest type that holds them (sums
    over chunks are int64).
    """
    x, key_class, key_record = record_class_keys(y, preds, record, n_records, n_values)
    keys = np.left_shift(key_record, _CLASS_BITS, dtype=np.int64)
    keys |= key_class
    return keys, x


def _factorize(keys):
    import pandas as pd

    # pandas' hash table: linear in the entries, where sorting would not be.
    index, uniq = pd.factorize(keys)
    return index, np.asarray(uniq, dtype=np.int64)


def _group_sum(keys, x):
    index, uniq = _factorize(keys)
    n_keys, width = uniq.shape[0], x.shape[1] * x.shape[2]
    flat = x.reshape(x.shape[0], width)
    out = np.empty((n_keys, width), dtype=np.int64)
    for j in range(width):
        out[:, j] = np.bincount(index, weights=flat[:, j], minlength=n_keys)
    return uniq, out.reshape(n_keys, x.shape[1], x.shape[2])
