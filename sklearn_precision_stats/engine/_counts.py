"""Sufficient statistics: from labels to the marginal models' sums.

The paper's Algorithms 1 and 2 stack one row per (record, classifier) and,
for each class, fit a logistic GEE on a subset of the rows. The model is
saturated in the classifier indicator, so its fit, sandwich covariance and
score test depend on the data only through, per class ``k`` and classifier
``c``, the rows whose response is a success or a failure and the sums over
records of products of a record's counts (:class:`MarginalCounts`).

Which rows enter and what the response is depends on the measure (its
*role*, :mod:`._roles`), but every role reads two of the four categories of
the one-vs-rest confusion matrix (TP, FN, FP, TN). So this module computes
one statistic for all of them, :class:`CategoryCounts`: per class and
classifier the rows of each category and the per-record cross sums. With
one row per record these follow from a few additive agreement counts
(:class:`AgreementCounts`, also what a chunked or streamed count adds up);
with repeated records (stacked cross-validation) they are summed per
(record, class). Everything is O(rows) with :func:`numpy.bincount`.
"""

from typing import NamedTuple

import numpy as np

__all__ = []

# Largest joint (truth, predictions) table built in one bincount; beyond it
# the pairwise path (O(C^2 n), any number of classes) is used instead.
_MAX_JOINT_CELLS = 2**24
# Integer labels spanning at most this many values (or the number of rows)
# are encoded by offset, without sorting.
_MAX_DIRECT_RANGE = 2**16

# Categories of the one-vs-rest confusion matrix, in CategoryCounts order.
TP, FN, FP, TN = 0, 1, 2, 3


class MarginalCounts(NamedTuple):
    """Sufficient statistics of the per-class marginal models.

    Arrays may carry leading batch axes (e.g. resamples) before the class
    axis.

    Attributes
    ----------
    successes : ndarray of shape (..., n_classes, n_classifiers)
    failures : ndarray of shape (..., n_classes, n_classifiers)
    cross : ndarray of shape (..., n_classes, n_classifiers, n_classifiers, 2, 2)
    """

    successes: np.ndarray
    failures: np.ndarray
    cross: np.ndarray

    def take_classes(self, index):
        """Keep the classes at `index` (an integer array) along the class axis."""
        return MarginalCounts(
            np.take(self.successes, index, axis=-2),
            np.take(self.failures, index, axis=-2),
            np.take(self.cross, index, axis=-5),
        )

    def take_classifiers(self, index):
        """Keep the classifiers at `index` (an integer array), in that order."""
        index = np.asarray(index)
        cross = np.take(self.cross, index, axis=-4)
        cross = np.take(cross, index, axis=-3)
        return MarginalCounts(
            np.take(self.successes, index, axis=-1),
            np.take(self.failures, index, axis=-1),
            cross,
        )


class EncodedPredictions(NamedTuple):
    """Predictions encoded as integer codes into `values`.

    ``y_true`` and every array in ``preds`` hold ``code + offset``: the raw
    integer labels when ``offset`` is their minimum (no copy is made of
    large integer inputs), otherwise plain codes with ``offset == 0``.
    """

    y_true: np.ndarray
    preds: list
    values: np.ndarray
    offset: int


def _encode_predictions(y_true, preds, names=None):
    """Encode truth and predictions into shared integer codes.

    Integer labels over a compact range are used as they are (codes are
    ``label - min``), so large integer inputs are neither sorted nor copied;
    any other labels (strings, objects, floats, sparse integer ranges) are
    encoded by hashing, with codes in sorted label order as scikit-learn's
    label encoders give. `names` name the arrays in error messages.
    """
    arrays = [y_true, *preds]
    n = y_true.shape[0]
    if all(a.dtype.kind in "iub" for a in arrays):
        lo = min(int(a.min()) for a in arrays)
        hi = max(int(a.max()) for a in arrays)
        if hi - lo < max(_MAX_DIRECT_RANGE, n):
            dtype = np.result_type(*[a.dtype for a in arrays])
            # Built modulo 2**64 and cast, so that labels near the ends of
            # int64 or uint64 keep their exact values.
            span = np.arange(hi - lo + 1, dtype=np.uint64) + np.uint64(lo % 2**64)
            values = span.astype(dtype) if dtype.kind != "b" else span.astype(bool)
            return EncodedPredictions(y_true, list(preds), values, lo)
    # Any other labels are hashed, not sorted (only the distinct labels
    # are); continuous values, NaN, inf and mixed types are errors there.
    from ._labels import encode_sorted

    codes, values = encode_sorted(*arrays, names=names)
    return EncodedPredictions(codes[0], list(codes[1:]), values, 0)


def label_codes(array, offset):
    """Codes ``label - offset`` of integer or bool labels, as intp, exactly.

    The subtraction is done in intp, never in the labels' own narrow type
    (int8 labels {-100, 100} or uint8 truth against a prediction of -1
    would overflow there); uint64 labels beyond the intp range are shifted
    modulo 2**64, which is exact because every code lies in [0, 2**63).
    """
    if array.dtype.kind == "b":
        array = array.view(np.uint8)
    if array.dtype.kind == "u" and array.dtype.itemsize == 8:
        return (array - np.uint64(int(offset) % 2**64)).astype(np.intp)
    if not offset:
        return array.astype(np.intp, copy=False)
    return np.subtract(array, int(offset), dtype=np.intp)


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


# ---------------------------------------------------------------------------
# Category counts: one additive statistic for every role
# ---------------------------------------------------------------------------


class CategoryCounts(NamedTuple):
    """Per-class counts of the four categories and their record cross sums.

    For class ``k`` and classifier ``c`` every row is a true positive, false
    negative, false positive or true negative (indices ``TP, FN, FP, TN``).
    A role (:mod:`._roles`) picks two of them as its response's values.
    Arrays may carry leading batch axes before the class axis.

    Attributes
    ----------
    first : ndarray of shape (..., n_classes, n_classifiers, 4)
        Rows of each category.
    second : ndarray of shape (..., n_classes, n_classifiers, n_classifiers, 4, 4)
        ``sum_i x_icu x_idv`` over records ``i``, with ``x_icu`` the rows of
        record ``i`` in category ``u`` for classifier ``c``.
    """

    first: np.ndarray
    second: np.ndarray

    def take_classes(self, index):
        """Keep the classes at `index` (an integer array) along the class axis."""
        return CategoryCounts(
            np.take(self.first, index, axis=-3), np.take(self.second, index, axis=-5)
        )


class AgreementCounts(NamedTuple):
    """Records on which labels agree on class ``k``, for one row per record.

    Additive over records, so chunks of records can be counted apart and
    summed. Leading batch axes are allowed.

    Attributes
    ----------
    n : ndarray of shape (...)
        Records.
    truth : ndarray of shape (..., n_classes)
        Records whose true label is ``k``.
    pred : ndarray of shape (..., n_classes, n_classifiers)
        Records that classifier ``c`` assigns to ``k``.
    truth_pred : ndarray of shape (..., n_classes, n_classifiers)
        Records of class ``k`` that ``c`` assigns to ``k``.
    pred_pred : ndarray of shape (..., n_classes, n_classifiers, n_classifiers)
        Records that both ``c`` and ``d`` assign to ``k``.
    truth_pred_pred : ndarray of shape (..., n_classes, n_classifiers, n_classifiers)
        Records of class ``k`` that both ``c`` and ``d`` assign to ``k``.
    """

    n: np.ndarray
    truth: np.ndarray
    pred: np.ndarray
    truth_pred: np.ndarray
    pred_pred: np.ndarray
    truth_pred_pred: np.ndarray

    def pooled(self):
        """The counts of accuracy: one pseudo-class, "predicted" = correct.

        Every record is truly positive, and classifier ``c`` predicts
        positive when it is right, so recall of the pseudo-class is accuracy.
        """
        correct = self.truth_pred.sum(axis=-2, keepdims=True)
        both = self.truth_pred_pred.sum(axis=-3, keepdims=True)
        n = np.asarray(self.n, dtype=float)
        return AgreementCounts(n, n[..., None], correct, correct, both, both)


def category_counts(agreement):
    """Category counts from agreement counts (one row per record).

    With one row per record a record is in exactly one cell of the
    (truth is k, c predicts k, d predicts k) table; the eight cells follow
    from the agreement counts by inclusion-exclusion, and each cell is one
    (category of c, category of d) pair.
    """
    a = AgreementCounts(*(np.asarray(x, dtype=float) for x in agreement))
    n = a.n[..., None, None]
    t = a.truth[..., :, None]
    tp = a.truth_pred
    first = np.stack([tp, t - tp, a.pred - tp, n - t - a.pred + tp], axis=-1)

    nt = a.truth[..., :, None, None]
    nc, nd = a.pred[..., :, :, None], a.pred[..., :, None, :]
    ntc, ntd = tp[..., :, :, None], tp[..., :, None, :]
    ncd, ntcd = a.pred_pred, a.truth_pred_pred
    second = np.zeros(ncd.shape + (4, 4))
    # Cell (truth is k, c says k, d says k) -> (category of c, category of d).
    second[..., TP, TP] = ntcd
    second[..., TP, FN] = ntc - ntcd
    second[..., FN, TP] = ntd - ntcd
    second[..., FN, FN] = nt - ntc - ntd + ntcd
    second[..., FP, FP] = ncd - ntcd
    second[..., FP, TN] = nc - ntc - ncd + ntcd
    second[..., TN, FP] = nd - ntd - ncd + ntcd
    second[..., TN, TN] = n[..., None] - nt - nc - nd + ntc + ntd + ncd - ntcd
    return CategoryCounts(first, second)


def agreement_from_joint_table(table, n_classifiers):
    """Agreement counts from joint tables of (truth, pred_1, ..., pred_C).

    Leading axes of `table` beyond the ``C + 1`` label axes are batch axes
    (resamples, for instance).
    """
    n_clf = n_classifiers
    table = np.asarray(table, dtype=float)
    batch = table.ndim - (n_clf + 1)
    axes = list(range(batch, table.ndim))

    def marginal(*keep):
        drop = tuple(ax for ax in axes if ax - batch not in keep)
        return table.sum(axis=drop) if drop else table

    n_classes = table.shape[-1]
    shape = table.shape[:batch]
    pred = np.empty(shape + (n_classes, n_clf))
    truth_pred = np.empty_like(pred)
    pred_pred = np.empty(shape + (n_classes, n_clf, n_clf))
    truth_pred_pred = np.empty_like(pred_pred)
    for c in range(n_clf):
        yc = marginal(0, c + 1)
        pred[..., c] = yc.sum(axis=-2)
        truth_pred[..., c] = np.einsum("...kk->...k", yc)
        pred_pred[..., c, c] = pred[..., c]
        truth_pred_pred[..., c, c] = truth_pred[..., c]
        for d in range(c + 1, n_clf):
            ycd = marginal(0, c + 1, d + 1)
            both = np.einsum("...jkk->...k", ycd)
            both_hit = np.einsum("...kkk->...k", ycd)
            pred_pred[..., c, d] = pred_pred[..., d, c] = both
            truth_pred_pred[..., c, d] = truth_pred_pred[..., d, c] = both_hit
    truth = marginal(0)
    n = truth.sum(axis=-1)
    return AgreementCounts(n, truth, pred, truth_pred, pred_pred, truth_pred_pred)


def agreement_from_codes(y, preds, n_values):
    """Agreement counts from label codes ``0..n_values - 1``, any number of classes.

    O(C^2 n) passes of :func:`numpy.bincount`; used when the joint table
    would be too large.
    """
    n_clf = len(preds)

    def count(values, mask=None):
        if mask is not None:
            values = values[mask]
        return np.bincount(values, minlength=n_values).astype(float)

    hit = [y == p for p in preds]
    pred = np.stack([count(p) for p in preds], axis=-1)
    truth_pred = np.stack([count(y, h) for h in hit], axis=-1)
    pred_pred = np.empty((n_values, n_clf, n_clf))
    truth_pred_pred = np.empty_like(pred_pred)
    for c in range(n_clf):
        pred_pred[:, c, c] = pred[:, c]
        truth_pred_pred[:, c, c] = truth_pred[:, c]
        for d in range(c + 1, n_clf):
            pred_pred[:, c, d] = pred_pred[:, d, c] = count(preds[c], preds[c] == preds[d])
            truth_pred_pred[:, c, d] = truth_pred_pred[:, d, c] = count(y, hit[c] & hit[d])
    return AgreementCounts(
        float(y.shape[0]), count(y), pred, truth_pred, pred_pred, truth_pred_pred
    )


def record_class_counts(y, preds, record_codes, n_records, n_values):
    """Rows of each category per touched (record, class) key.

    A record touches class ``k`` when one of its rows has truth or a
    prediction ``k``. Records that do not touch ``k`` have all their rows
    true negatives for it.

    Returns
    -------
    x : ndarray of shape (n_keys, n_classifiers, 4)
        Rows of the key's record in each category (TP, FN, FP, TN) for the
        key's class, per classifier.
    key_class, key_record : ndarray of int, shape (n_keys,)
        The keys, sorted by class.
    rows_per_record : ndarray of shape (n_records,)
    """
    n_clf = len(preds)
    labels = [y, *preds]
    rows_per_record = np.bincount(record_codes, minlength=n_records).astype(float)
    # One entry per (row, class the row touches), each class once per row.
    entries, entry_class = [], []
    for j, a in enumerate(labels):
        new = np.ones(a.shape[0], dtype=bool)
        for m in range(j):
            new &= a != labels[m]
        rows = np.flatnonzero(new) if j else np.arange(a.shape[0])
        entries.append(rows)
        entry_class.append(a[rows])
    rows = np.concatenate(entries)
    cls = np.concatenate(entry_class).astype(np.int64)
    key_index, key_record, key_class = _class_major_keys(cls, record_codes[rows], n_records)
    n_keys = key_record.shape[0]
    truth_is_k = y[rows] == cls
    x = np.empty((n_keys, n_clf, 4))
    for c, p in enumerate(preds):
        category = np.where(truth_is_k, TP, FP) + (p[rows] != cls)  # TP->FN, FP->TN
        x[:, c] = np.bincount(key_index * 4 + category, minlength=n_keys * 4).reshape(n_keys, 4)
    x[..., TN] = rows_per_record[key_record][:, None] - x[..., :TN].sum(axis=-1)
    return x, key_class, key_record, rows_per_record


def category_counts_clustered(y, preds, record_codes, n_records, n_values):
    """Category counts when records contribute several rows.

    For every touched (record, class) key the rows of each category are
    summed (:func:`record_class_counts`), and the products are summed per
    class. Records that do not touch ``k`` are all true negatives for it,
    which only adds to the (TN, TN) sums, through ``sum_i rows_i^2``.
    O(C^2 rows).

    Parameters
    ----------
    y : ndarray of intp, shape (n_rows,)
        True label codes ``0..n_values - 1``.
    preds : list of ndarray of intp
        Prediction codes of each classifier.
    record_codes : ndarray of intp, shape (n_rows,)
        Record code ``0..n_records - 1`` of each row.
    n_records, n_values : int
    """
    n_clf = len(preds)
    x, key_class, key_record, rows_per_record = record_class_counts(
        y, preds, record_codes, n_records, n_values
    )
    n_keys = key_record.shape[0]
    first = np.empty((n_values, n_clf, 4))
    second = np.empty((n_values, n_clf, n_clf, 4, 4))
    # key_class is sorted (class-major keys), so each class is one slice.
    bounds = np.searchsorted(key_class, np.arange(n_values + 1))
    flat = x.reshape(n_keys, n_clf * 4)
    for k in range(n_values):
        seg = flat[bounds[k] : bounds[k + 1]]
        first[k] = seg.sum(axis=0).reshape(n_clf, 4)
        second[k] = (seg.T @ seg).reshape(n_clf, 4, n_clf, 4).transpose(0, 2, 1, 3)
    # Records that do not touch a class: all their rows are true negatives.
    record_rows = rows_per_record[key_record]
    total_rows = float(record_codes.shape[0])
    touched_rows = np.bincount(key_class, weights=record_rows, minlength=n_values)
    touched_sq = np.bincount(key_class, weights=record_rows**2, minlength=n_values)
    first[..., TN] += (total_rows - touched_rows)[:, None]
    second[..., TN, TN] += (np.dot(rows_per_record, rows_per_record) - touched_sq)[:, None, None]
    return CategoryCounts(first, second)


# Keys (class, record) are compacted through a dense presence table up to
# this size; beyond it through a hash table (pandas.factorize), which keeps
# the cost linear in the rows where sorting the keys would not be.
_MAX_DENSE_KEYS = 2**27


def _class_major_keys(cls, records, n_records):
    """Index of each entry's (class, record) key, and the keys sorted by class."""
    keys = cls * n_records + records
    size = (int(cls.max()) + 1 if cls.size else 1) * n_records
    if size <= _MAX_DENSE_KEYS:
        present = np.bincount(keys, minlength=size) > 0
        uniq = np.flatnonzero(present)
        index = (np.cumsum(present) - 1)[keys]
    else:
        import pandas as pd

        index, uniq = pd.factorize(keys, sort=True)
    return index, uniq % n_records, uniq // n_records


# The code of accuracy's one pseudo-class in :func:`pooled_codes`.
POOLED_CLASS = 1


def pooled_codes(y, preds):
    """Labels of accuracy's pseudo-class: every row truly of it, predicted when right.

    Recall of class ``POOLED_CLASS`` on these codes is accuracy (the same
    reduction :meth:`AgreementCounts.pooled` makes on counts).
    """
    correct = [(p == y).astype(np.intp) for p in preds]
    return np.full(y.shape, POOLED_CLASS, dtype=np.intp), correct


def statistics_from_codes(y, preds, n_values, record_codes=None, n_records=None):
    """Category counts of every class, and the classes present.

    Parameters
    ----------
    y, preds : ndarray of intp
        Label codes ``0..n_values - 1``.
    n_values : int
    record_codes : ndarray of intp, default=None
        Record of each row; None for one row per record.
    n_records : int, default=None

    Returns
    -------
    categories : CategoryCounts
        Per class (all ``n_values`` codes).
    pooled : CategoryCounts
        The one pseudo-class of accuracy.
    present : ndarray of bool
        Codes seen as a true label or as a prediction.
    """
    if record_codes is not None and n_records < y.shape[0]:
        categories = category_counts_clustered(y, preds, record_codes, n_records, n_values)
        pooled = category_counts_clustered(*pooled_codes(y, preds), record_codes, n_records, 2)
        pooled = pooled.take_classes([POOLED_CLASS])
    else:
        n_axes = 1 + len(preds)
        if n_values**n_axes <= _MAX_JOINT_CELLS:
            encoded = EncodedPredictions(y, list(preds), np.arange(n_values), 0)
            agreement = agreement_from_joint_table(joint_table(encoded), len(preds))
        else:
            agreement = agreement_from_codes(y, preds, n_values)
        categories, pooled = category_counts(agreement), category_counts(agreement.pooled())
    # A class is present when some row is of it or predicted as it: some
    # classifier has a TP, FN or FP for it (no pass over the rows needed).
    present = categories.first[..., :TN].sum(axis=(-2, -1)) > 0
    return categories, pooled, present


def counts_from_joint_table(table, n_classifiers, role):
    """A role's marginal-model sums from joint tables (batch axes allowed)."""
    agreement = agreement_from_joint_table(table, n_classifiers)
    if role.pooled:
        agreement = agreement.pooled()
    return role.marginal_counts(category_counts(agreement))


def encode_groups(groups):
    """Integer record codes and the number of records."""
    if groups.dtype.kind in "iu" and groups.size:
        lo, hi = int(groups.min()), int(groups.max())
        if hi - lo < max(_MAX_DIRECT_RANGE, 2 * groups.shape[0]):
            present = np.bincount(groups - lo, minlength=hi - lo + 1) > 0
            lut = np.cumsum(present) - 1
            return lut[groups - lo], int(present.sum())
    uniq, inverse = np.unique(groups, return_inverse=True)
    return inverse.ravel(), uniq.shape[0]
