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

import numpy as np

from ..engine._accumulator import ComparisonCounts
from ..engine._labels import StreamingLabelEncoder
from ._io import UsageError

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


def _check_not_empty(source, n_rows):
    if n_rows == 0:
        raise UsageError(f"{source.path!r} has no data rows (only a header, or nothing).")


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
    for batch in source.batches(columns):
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
    for batch in source.batches(columns):
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
    that record for every other classifier, in file order.

    Returns
    -------
    EncodedColumns
        With ``groups`` the record codes (a record with several rows per
        classifier makes the comparison clustered).
    """
    labels = StreamingLabelEncoder()
    names = StreamingLabelEncoder()
    records = StreamingLabelEncoder()
    parts = {"truth": [], "clf": [], "pred": [], "record": []}
    columns = [truth, classifier_col, prediction_col, record_col]
    for batch in source.batches(columns):
        parts["truth"].append(_encode(labels, batch.column(truth), f"--truth column {truth!r}"))
        parts["pred"].append(
            _encode(labels, batch.column(prediction_col), f"--prediction-col {prediction_col!r}")
        )
        parts["clf"].append(
            _encode(names, batch.column(classifier_col), f"--classifier-col {classifier_col!r}")
        )
        parts["record"].append(
            _encode(records, batch.column(record_col), f"--record-col {record_col!r}")
        )
    y_all, clf, pred, record = (_concat(parts[k]) for k in ("truth", "clf", "pred", "record"))
    _check_not_empty(source, y_all.shape[0])
    present = [str(v) for v in names.values]
    if classifiers is None:
        chosen = sorted(range(len(present)), key=lambda code: present[code])
        chosen_names = [present[code] for code in chosen]
    else:
        for name in classifiers:
            if name not in present:
                raise UsageError(
                    f"--classifiers: classifier {name!r} does not occur in --classifier-col "
                    f"{classifier_col!r}; the classifiers are {sorted(present)}."
                )
        chosen_names = list(classifiers)
        chosen = [present.index(name) for name in classifiers]
    n_records = records.n_values
    y_true = None
    preds = {}
    groups = None
    first_counts = None
    for name, code in zip(chosen_names, chosen, strict=True):
        rows = np.flatnonzero(clf == code)
        # Stable sort by record: a record's rows stay in file order.
        rows = rows[np.argsort(record[rows], kind="stable")]
        counts = np.bincount(record[rows], minlength=n_records)
        if first_counts is None:
            first_counts = counts
            y_true = y_all[rows]
            groups = record[rows]
        else:
            differs = np.flatnonzero(counts != first_counts)
            if differs.size:
                bad = records.values[differs[0]]
                raise UsageError(
                    f"record {bad!r} has {counts[differs[0]]} rows for classifier {name!r} "
                    f"but {first_counts[differs[0]]} for {chosen_names[0]!r}; in the long "
                    "layout every classifier needs the same rows for each record."
                )
            mismatch = np.flatnonzero(y_all[rows] != y_true)
            if mismatch.size:
                bad = records.values[groups[mismatch[0]]]
                raise UsageError(
                    f"record {bad!r} has different true labels in the rows of {name!r} "
                    f"and {chosen_names[0]!r}; the --truth column must be the same for "
                    "all rows of a record."
                )
        preds[name] = pred[rows]
    return EncodedColumns(labels, y_true, preds, groups)
