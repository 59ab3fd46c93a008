"""The sequence of steps every comparison of arrays goes through.

:func:`prepare_comparison` reads top down:

1. **labels to codes** (:mod:`._codes`, :mod:`._labels`): truth and
   predictions to shared integer codes, record ids to record codes.
   Integers of a small range are one-byte codes in one pass
   (:func:`._tables.integer_codes`); pandas categoricals of one row per
   record are counted from their codes straight into the joint table;
2. **codes to sufficient statistics**, by layout of the rows:

   * one row per record (:func:`paired_statistics`): the joint table, or for
     many classifiers the tables of groups of classifiers that hold every
     pair (:func:`._counts.agreement_from_pairs`);
   * several rows per record (:func:`clustered_statistics_of`): sums over
     pairs of a record's rows (:mod:`._row_pairs`) or per (record, class)
     sums (:func:`._counts.clustered_statistics`);

   each gives the same :class:`Statistics`: the category counts of every
   class and of accuracy's pooled class, and the records in the compact
   form the resampling methods read (:class:`._units.StoredRecords`);
3. **statistics of the reported classes** (:func:`reported_counts`): the
   measure's role (:mod:`._roles`) picks its two categories.

The statistics themselves (:mod:`._marginal_model`) and the result object
are the next steps, taken by the public functions of
:mod:`sklearn_precision_stats.paired`. Counts built chunk by chunk
(:class:`._accumulator.ComparisonCounts`) join at step 3
(:func:`data_from_counts`).
"""

from typing import NamedTuple

import numpy as np

from ..utils._validation import reference_order
from ._accumulator import ComparisonCounts
from ._codes import EncodedPredictions, encode_groups, encode_predictions
from ._counts import (
    TN,
    _narrow_codes,
    agreement_from_joint_table,
    agreement_from_pairs,
    category_counts,
    clustered_statistics,
)
from ._roles import get_role
from ._row_pairs import pair_statistics
from ._tables import (
    _MAX_TABLE_CELLS,
    categorical_joint_table,
    integer_codes,
    joint_table,
)
from ._units import StoredRecords

__all__ = []


class ComparisonData(NamedTuple):
    """What a comparison was computed from, kept for its resampling methods.

    Attributes
    ----------
    values : ndarray
        The labels of the class codes ``0..len(values) - 1``.
    class_codes : ndarray of int
        Codes of the reported classes.
    counts : MarginalCounts
        The role's sufficient statistics of the reported classes.
    role : Role
    n_rows, n_records : int
    records : StoredRecords or None
        The records in compact, read-only form (the nonzero cells of the
        joint table or the rows' label codes; the cells of each record's
        rows or per (record, class) counts of clustered rows); None when
        they were not kept.
    rows : tuple or None
        ``(EncodedPredictions, record_codes)`` of every row, only while the
        statsmodels engine refits; never kept in a result.
    """

    values: np.ndarray
    class_codes: np.ndarray
    counts: object
    role: object
    n_rows: int
    n_records: int
    records: object = None
    rows: object = None


class Statistics(NamedTuple):
    """The sufficient statistics of step 2, whatever the layout of the rows.

    Attributes
    ----------
    categories : CategoryCounts
        Per class code (``0..n_values - 1``).
    pooled : CategoryCounts
        Accuracy's one pseudo-class.
    records : StoredRecords
    """

    categories: object
    pooled: object
    records: object


def prepare_comparison(y_true, preds, groups, labels, role, names=None, keep_rows=False):
    """Encode validated inputs and compute the role's sufficient statistics.

    Parameters
    ----------
    y_true : ndarray of shape (n_rows,)
    preds : list of ndarray
        Each classifier's predictions.
    groups : ndarray of shape (n_rows,) or None
        Record ids; None for one row per record.
    labels : array-like or None
        The classes to report.
    role : Role
    names : list of str, default=None
        Argument names of `y_true` and each prediction, for messages.
    keep_rows : bool, default=False
        Also keep the rows' label codes (``ComparisonData.rows``), which the
        statsmodels engine refits on.

    Returns
    -------
    ComparisonData
    """
    n_rows = y_true.shape[0]
    arrays = [y_true, *preds]
    # Step 1: labels to codes. Integers of a small range are one-byte codes
    # in one pass; pandas categoricals of one row per record are counted
    # from their codes straight into the joint table.
    narrow = integer_codes(arrays)
    table = encoded = None
    if narrow is not None:
        codes, values = narrow
        encoded = EncodedPredictions(codes[0], codes[1:], values)
    elif groups is None and not keep_rows:
        fused = categorical_joint_table(arrays, table_cells(len(preds), n_rows), names)
        if fused is not None:
            table, values = fused
    if table is None and encoded is None:
        encoded = encode_predictions(y_true, preds, names)
        values = encoded.values
    # Step 2: codes to sufficient statistics, by layout.
    stats, n_records, rows = None, n_rows, None
    if groups is not None:
        stats, n_records, rows = clustered_statistics_of(encoded, groups, keep_rows)
    elif table is not None:
        stats = statistics_of_table(table)
    if stats is None:  # one row per record, from the codes
        stats = paired_statistics(encoded.y_true, encoded.preds, len(values))
        if keep_rows and rows is None:
            rows = encoded, None
    # Step 3: the role's sums over the reported classes.
    categories, pooled, records = stats
    # A class is present when some row is of it or predicted as it: some
    # classifier has a TP, FN or FP for it (no pass over the rows needed).
    present = categories.first[..., :TN].sum(axis=(-2, -1)) > 0
    class_codes, counts = reported_counts(role, categories, pooled, values, present, labels)
    return ComparisonData(values, class_codes, counts, role, n_rows, n_records, records, rows)


def table_cells(n_clf, n_rows):
    """The largest joint table counted for one row per record.

    Each pair of classifiers is read from the joint table in a pass over
    its cells: once the cells times the pairs pass 4 times the rows
    (measured with 2, 5 and 10 classes), the tables of small groups of
    classifiers (:func:`._counts.agreement_from_pairs`) cost less (binary
    labels of 15 and 16 classifiers at 10^6 records: 1.6x and 2.7x faster
    than their joint tables).
    """
    pairs = n_clf * (n_clf - 1) // 2
    return _MAX_TABLE_CELLS if pairs <= 1 else min(_MAX_TABLE_CELLS, 4 * n_rows // pairs)


def codes_of(encoded):
    """Truth and prediction codes ``0..n_values - 1`` as intp arrays."""
    return encoded.y_true.astype(np.intp, copy=False), [
        p.astype(np.intp, copy=False) for p in encoded.preds
    ]


def statistics_of_table(table):
    """:class:`Statistics` of one row per record, from the joint table."""
    agreement = agreement_from_joint_table(table, table.ndim - 1)
    return Statistics(
        category_counts(agreement),
        category_counts(agreement.pooled()),
        StoredRecords.from_table(table),
    )


def paired_statistics(y, codes, n_values):
    """:class:`Statistics` of one row per record, from label codes.

    A small joint table is counted in one pass; beyond :func:`table_cells`
    cells (many classifiers or classes) the agreement counts come from the
    small tables of groups of classifiers that hold every pair
    (:func:`._counts.agreement_from_pairs`), at a cost per pair below that
    of the joint table.
    """
    n_clf = len(codes)
    if n_values ** (n_clf + 1) <= table_cells(n_clf, y.shape[0]):
        values = np.arange(n_values)
        return statistics_of_table(joint_table(EncodedPredictions(y, codes, values)))
    # One pass narrows the codes (one byte each for up to 256 classes), which
    # the counts then read in the cache and the records keep.
    y, *codes = [_narrow_codes(a, n_values) for a in (y, *codes)]
    agreement = agreement_from_pairs(y, codes, n_values)
    return Statistics(
        category_counts(agreement),
        category_counts(agreement.pooled()),
        StoredRecords.from_codes(y, codes, n_values, copy=False),
    )


def clustered_statistics_of(encoded, groups, keep_rows=False):
    """:class:`Statistics` of rows grouped by record, the number of records, the rows if kept.

    Records of a few rows and few cells: sums over pairs of a record's rows
    (:func:`._row_pairs.pair_statistics`); otherwise per (record, class)
    sums (:func:`._counts.clustered_statistics`). The statistics are None
    when every record has one row: the paired path counts them.
    """
    n_rows, n_values, n_clf = encoded.y_true.shape[0], len(encoded.values), len(encoded.preds)
    by_pairs = pair_statistics(encoded, groups)
    record_codes = y = codes = rows = None
    if by_pairs is None or keep_rows:
        record_codes, n_records = encode_groups(groups)
        y, codes = codes_of(encoded)
    else:
        n_records = by_pairs[2].shape[0]
    if keep_rows:
        rows = EncodedPredictions(y, codes, encoded.values), record_codes
    if n_records == n_rows:
        return None, n_records, rows
    if by_pairs is not None:
        categories, pooled, slots = by_pairs
        records = StoredRecords.from_slots(slots, n_values, n_clf)
        return Statistics(categories, pooled, records), n_records, rows
    categories, pooled, keys = clustered_statistics(
        y, codes, record_codes, n_records, n_values, return_keys=True
    )
    x, key_class, key_record, record_rows = keys
    records = StoredRecords.from_keys(key_record, key_class, x, record_rows, n_values, copy=False)
    return Statistics(categories, pooled, records), n_records, rows


def reported_counts(role, categories, pooled, values, present, labels):
    """The codes of the classes to report and the role's sums over them.

    Accuracy pools every class into one pseudo-class (code 0 of one).

    Returns
    -------
    class_codes : ndarray of intp
    counts : MarginalCounts
    """
    if role.pooled:
        if labels is not None:
            raise ValueError(
                "labels does not apply to accuracy, which pools every class; pass labels=None."
            )
        return np.zeros(1, dtype=np.intp), role.marginal_counts(pooled)
    class_codes = _class_codes(values, present, labels)
    return class_codes, role.marginal_counts(categories.take_classes(class_codes))


def data_from_counts(counts, metric, reference=None, labels=None):
    """Step 3 for counts built chunk by chunk: the classifiers' names and the data.

    Parameters
    ----------
    counts : ComparisonCounts
    metric : str
    reference : str, default=None
        Put first; the first of ``counts.classifiers`` when None.
    labels : array-like, default=None

    Returns
    -------
    names : list of str
    data : ComparisonData
    """
    if not isinstance(counts, ComparisonCounts):
        raise TypeError(f"counts must be a ComparisonCounts, got {type(counts).__name__}.")
    role = get_role(metric)
    names = list(counts.classifiers)
    if reference is not None:
        names = [names[i] for i in reference_order(names, reference)]
        counts = counts.reordered(names)
    if counts.n_rows == 0:
        raise ValueError("the counts are empty; at least one row is needed.")
    categories, pooled, present = counts.statistics()
    values = counts.classes
    class_codes, marginal = reported_counts(role, categories, pooled, values, present, labels)
    n_records = counts.n_records if counts.clustered else counts.n_rows
    data = ComparisonData(
        values, class_codes, marginal, role, counts.n_rows, n_records, counts.stored_records()
    )
    return names, data


def _class_codes(values, present, labels):
    if labels is None:
        return np.flatnonzero(present)
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.size == 0:
        raise ValueError(
            "labels must be a non-empty 1-D list of classes, e.g. labels=[0, 1]; "
            "pass None to compare every class."
        )
    if len(set(labels.tolist())) != labels.size:
        raise ValueError(f"labels contains duplicates: {labels.tolist()}.")
    lookup = {v: i for i, v in enumerate(values.tolist())}
    codes = []
    for label in labels.tolist():
        code = lookup.get(label)
        if code is None or not present[code]:
            seen = values[present].tolist()
            raise ValueError(
                f"label {label!r} in labels does not occur in y_true or in any "
                f"prediction; the classes present are {seen}. Remove it from "
                "labels."
            )
        codes.append(code)
    return np.asarray(codes, dtype=np.intp)
