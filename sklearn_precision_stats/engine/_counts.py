"""Data stacking: from predictions to the marginal model's sufficient statistics.

The paper's Algorithms 1 and 2 stack one row per (record, classifier) and,
for each class, fit a logistic GEE on the rows that predict the class. The
model is saturated in the classifier indicator, so its fit, sandwich
covariance and score test depend on the data only through, per class ``k``
and classifier ``c``:

* ``successes[k, c]`` -- rows in the class-``k`` subset whose response is 1
  (true positives for precision), and ``failures[k, c]`` (false positives);
* ``cross[k, c, d, a, b]`` -- the sum over records ``i`` of the products of
  record ``i``'s counts of outcome ``a`` for classifier ``c`` and outcome
  ``b`` for classifier ``d`` (``a, b`` index success, failure).

This module computes those sums in O(rows) with :func:`numpy.bincount`.
With one row per record (a plain test set) all of them follow from the joint
table of (true label, prediction of each classifier), which is also what a
paired permutation acts on; with repeated records (stacked cross-validation)
they are summed per (record, class).

For *recall* the subset is the records of true class ``k`` and the response
is "predicted ``k``": the same sums, with the roles of truth and prediction
exchanged.
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

_TARGETS = ("precision", "recall")


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


def _encode_predictions(y_true, preds):
    """Encode truth and predictions into shared integer codes.

    Integer labels over a compact range are used as they are (codes are
    ``label - min``), so large integer inputs are neither sorted nor copied;
    any other labels (strings, objects, floats, sparse integer ranges) are
    encoded by :func:`numpy.unique`, as scikit-learn's label encoders do.
    """
    arrays = [y_true, *preds]
    n = y_true.shape[0]
    if all(a.dtype.kind in "iub" for a in arrays):
        lo = min(int(a.min()) for a in arrays)
        hi = max(int(a.max()) for a in arrays)
        if hi - lo < max(_MAX_DIRECT_RANGE, n):
            dtype = np.result_type(*[a.dtype for a in arrays])
            values = np.arange(lo, hi + 1).astype(dtype)
            return EncodedPredictions(y_true, list(preds), values, lo)
    try:
        values, inverse = np.unique(np.concatenate(arrays), return_inverse=True)
    except TypeError as exc:
        raise ValueError(
            "The labels in y_true and y_preds could not be sorted; mix of "
            f"types? Use labels of one type (all str or all int). ({exc})"
        ) from exc
    inverse = inverse.reshape(len(arrays), n).astype(np.intp, copy=False)
    return EncodedPredictions(inverse[0], list(inverse[1:]), values, 0)


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


def counts_from_joint_table(table, n_classifiers, target="precision"):
    """Marginal-model sums from joint tables of one row per record.

    Parameters
    ----------
    table : ndarray of shape (..., K, K, ..., K)
        Counts over (truth, pred_1, ..., pred_C); leading axes are batch
        axes (resamples, for instance).
    n_classifiers : int
        C, the number of prediction axes.
    target : {"precision", "recall"}

    Returns
    -------
    MarginalCounts
    """
    n_clf = n_classifiers
    table = np.asarray(table, dtype=float)
    batch = table.ndim - (n_clf + 1)
    axes = list(range(batch, table.ndim))

    def marginal(*keep):
        drop = tuple(ax for ax in axes if ax - batch not in keep)
        return table.sum(axis=drop) if drop else table

    n_true = marginal(0)  # (..., K): records of each true class
    n_classes = table.shape[-1]
    shape = table.shape[:batch] + (n_classes, n_clf)
    successes = np.empty(shape)
    failures = np.empty(shape)
    cross = np.zeros(shape + (n_clf, 2, 2))
    for c in range(n_clf):
        yc = marginal(0, c + 1)  # (..., K_true, K_pred)
        hits = np.einsum("...kk->...k", yc)
        successes[..., c] = hits
        if target == "precision":
            failures[..., c] = yc.sum(axis=-2) - hits
        else:
            failures[..., c] = n_true - hits
    for c in range(n_clf):
        for d in range(c, n_clf):
            if c == d:
                _fill_diagonal_cross(cross, c, successes[..., c], failures[..., c])
                continue
            ycd = marginal(0, c + 1, d + 1)  # (..., K_true, K_c, K_d)
            both_hit = np.einsum("...kkk->...k", ycd)
            # Records that both classifiers assign to class k (precision).
            both = np.einsum("...jkk->...k", ycd) if target == "precision" else None
            _fill_pair_cross(cross, c, d, target, both_hit, both, successes, n_true)
    return MarginalCounts(successes, failures, cross)


def _fill_pair_cross(cross, c, d, target, both_hit, both, successes, n_true):
    """Cross sums of classifiers c != d with one row per record.

    A record contributes to both subsets of class k when, for precision,
    both classifiers predict k (`both`, of which `both_hit` are truly k) and,
    for recall, whenever it is truly k (`n_true`).
    """
    if target == "precision":
        block = [[both_hit, 0.0], [0.0, both - both_hit]]
    else:
        hit_c, hit_d = successes[..., c], successes[..., d]
        block = [
            [both_hit, hit_c - both_hit],
            [hit_d - both_hit, n_true - hit_c - hit_d + both_hit],
        ]
    for a in range(2):
        for b in range(2):
            cross[..., c, d, a, b] = block[a][b]
            cross[..., d, c, b, a] = block[a][b]


def _fill_diagonal_cross(cross, c, successes, failures):
    # Within one record a classifier's rows are all successes or all
    # failures when each record has one row, so the products are the counts.
    cross[..., c, c, 0, 0] = successes
    cross[..., c, c, 1, 1] = failures


def counts_pairwise_paired(encoded, target="precision"):
    """Marginal-model sums for one row per record, any number of classes.

    O(C^2 n) passes of :func:`numpy.bincount`; used when the joint table
    would be too large.
    """
    n_values = len(encoded.values)
    off = encoded.offset
    y = encoded.y_true
    preds = encoded.preds
    n_clf = len(preds)

    def count(values, mask=None):
        if mask is not None:
            values = values[mask]
        if off:
            values = values - off
        return np.bincount(values, minlength=n_values).astype(float)

    hit = [y == p for p in preds]
    successes = np.empty((n_values, n_clf))
    failures = np.empty((n_values, n_clf))
    n_true = count(y)
    for c in range(n_clf):
        successes[:, c] = count(y, hit[c])
        if target == "precision":
            failures[:, c] = count(preds[c]) - successes[:, c]
        else:
            failures[:, c] = n_true - successes[:, c]
    cross = np.zeros((n_values, n_clf, n_clf, 2, 2))
    for c in range(n_clf):
        _fill_diagonal_cross(cross, c, successes[:, c], failures[:, c])
        for d in range(c + 1, n_clf):
            both_hit = count(y, hit[c] & hit[d])
            both = count(preds[c], preds[c] == preds[d]) if target == "precision" else None
            _fill_pair_cross(cross, c, d, target, both_hit, both, successes, n_true)
    return MarginalCounts(successes, failures, cross)


def counts_clustered(encoded, record_codes, target="precision"):
    """Marginal-model sums when records contribute several rows.

    Each classifier's rows are summed per (record, class) key; the cross
    products are then accumulated per class. Sorting the keys costs
    O(n log n), the rest is O(C^2 n).
    """
    n_values = len(encoded.values)
    off = encoded.offset
    y = encoded.y_true - off if off else encoded.y_true
    preds = [p - off if off else p for p in encoded.preds]
    n_clf = len(preds)
    base = record_codes.astype(np.int64) * n_values
    keys = [base + p for p in preds] if target == "precision" else [base + y] * n_clf
    uniq, inverse = np.unique(np.concatenate(keys), return_inverse=True)
    inverse = inverse.reshape(n_clf, -1)
    key_class = (uniq % n_values).astype(np.intp)
    n_keys = uniq.shape[0]
    per_key = np.empty((n_clf, 2, n_keys))
    for c in range(n_clf):
        hit = (y == preds[c]).astype(float)
        per_key[c, 0] = np.bincount(inverse[c], weights=hit, minlength=n_keys)
        per_key[c, 1] = np.bincount(inverse[c], minlength=n_keys) - per_key[c, 0]

    def by_class(weights):
        return np.bincount(key_class, weights=weights, minlength=n_values)

    successes = np.stack([by_class(per_key[c, 0]) for c in range(n_clf)], axis=-1)
    failures = np.stack([by_class(per_key[c, 1]) for c in range(n_clf)], axis=-1)
    cross = np.empty((n_values, n_clf, n_clf, 2, 2))
    for c in range(n_clf):
        for d in range(c, n_clf):
            for a in range(2):
                for b in range(2):
                    s = by_class(per_key[c, a] * per_key[d, b])
                    cross[:, c, d, a, b] = s
                    cross[:, d, c, b, a] = s
    return MarginalCounts(successes, failures, cross)


def marginal_counts(encoded, record_codes=None, n_records=None, target="precision"):
    """Dispatch to the fastest exact way of computing the sums.

    Returns
    -------
    counts : MarginalCounts
        Over all codes of ``encoded.values``.
    present : ndarray of bool
        The codes seen as a true label or as a prediction.
    """
    if target not in _TARGETS:
        raise ValueError(f"target must be one of {_TARGETS}, got {target!r}.")
    if record_codes is not None and n_records < encoded.y_true.shape[0]:
        counts = counts_clustered(encoded, record_codes, target)
        return counts, _presence(encoded)
    table = joint_table(encoded)
    if table is not None:
        present = np.zeros(table.shape[0], dtype=bool)
        for axis in range(table.ndim):
            others = tuple(ax for ax in range(table.ndim) if ax != axis)
            present |= table.sum(axis=others) > 0
        return counts_from_joint_table(table, len(encoded.preds), target), present
    return counts_pairwise_paired(encoded, target), _presence(encoded)


def _presence(encoded):
    n_values = len(encoded.values)
    present = np.zeros(n_values, dtype=bool)
    for arr in (encoded.y_true, *encoded.preds):
        arr = arr - encoded.offset if encoded.offset else arr
        present |= np.bincount(arr, minlength=n_values) > 0
    return present


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
