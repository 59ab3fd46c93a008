"""Clustered statistics from the pairs of rows of each record.

With clustered rows every statistic is a sum over records of products of
the record's per-class counts (:func:`._counts.clustered_statistics`). A
record's count is a sum over its rows, so a product of two counts is a sum
over the ordered pairs of the record's rows (each row paired with itself
included) of what each row adds; and what a row adds depends only on its
*cell*, its (truth, prediction 1, ..., prediction C) labels. Two tables
therefore hold every statistic: the rows per cell, and the ordered pairs
of rows of one record per pair of cells.

With few cells and records of a few rows, each record's rows are laid
side by side in *slots* (:func:`record_slots`) and both tables are
bincounts: a few passes over the rows with no grouping by (record, class).
The slots are a reshape of the rows when the records come in order with
the same rows each (predictions stored record by record, e.g. test-time
augmentation); in any other order (stacked repeats of cross-validation,
shuffled rows) one sort of packed (record, cell) keys brings each record's
rows together. Many cells (classes and classifiers) or large records take
the general path.
"""

import numpy as np

from ._counts import (
    FN,
    FP,
    TP,
    _categories_from_moments,
    _key_feature_map,
    _pooled_from_moments,
)

__all__ = []

# Cells per row at most: the table of pairs of cells has (cells + 1)^2
# entries (about 32 MB of counts at this size).
_MAX_CELLS = 2**11
# Pairs of slots times records, in rows: records with many rows (each slot
# pair is one pass over the records) take the general path.
_MAX_PAIR_ROWS = 4


def cell_codes(encoded):
    """Each row's cell, ``((y * V + p_1) * V + ...) * V + p_C``, as uint16.

    From the codes plus offset of an :class:`._counts.EncodedPredictions`
    (raw integer labels are not copied to codes first): the arithmetic
    wraps around modulo 2**16, which is exact since every cell is below
    ``_MAX_CELLS``.
    """
    n_values = len(encoded.values)
    cells = encoded.y_true.astype(np.uint16)
    for p in encoded.preds:
        cells *= np.uint16(n_values)
        np.add(cells, p, out=cells, casting="unsafe")
    if encoded.offset:
        shift = encoded.offset * sum(n_values**j for j in range(1 + len(encoded.preds)))
        cells -= np.uint16(shift % 2**16)
    return cells


def records_in_order(groups):
    """Rows per record when the records come one after another in increasing id order.

    Every record must have the same number ``m`` of rows, together: the
    ids are then ``m`` copies of an increasing sequence, and the record
    codes (ranks of the ids) are ``row // m`` without encoding the ids.
    Integer ids only; None for any other layout (or ``m`` of more than a
    few thousand rows, which the pair path does not take anyway).
    """
    # A special path: 1.6x faster than encoding the ids and sorting the
    # rows at 10^7 rows of 5 per record, which is what keeps contiguous
    # records within 5x of the paired path (benchmarks/bench_architecture.py).
    n = groups.shape[0]
    if groups.dtype.kind not in "iu" or n < 2:
        return None
    changes = np.flatnonzero(groups[: min(n, 4096)] != groups[0])
    if not changes.shape[0] or n % changes[0]:
        return None
    m = int(changes[0])
    step = max(1, 2**16 // m)  # records per block, so the blocks stay in cache
    runs = groups.reshape(-1, m)
    for start in range(0, runs.shape[0], step):
        block = runs[start : start + step + 1]  # one record more: the next first id
        if not (block == block[:, :1]).all() or not (block[1:, 0] > block[:-1, 0]).all():
            return None
    return m


def record_slots(cells, record_codes, n_records, fill):
    """The cells of each record's rows side by side.

    Parameters
    ----------
    cells : ndarray of shape (n_rows,)
    record_codes : ndarray of int, shape (n_rows,), or None
        Record code ``0..n_records - 1`` of each row; every code has rows.
        None when the records come in order with the same rows each
        (:func:`records_in_order`).
    n_records : int
    fill : int
        The cell of an empty slot (a record with fewer rows than the most).

    Returns
    -------
    slots : ndarray of shape (n_records, m), or None
        Row ``r`` holds the cells of record ``r``'s rows, then `fill`. None
        when the pairs of slots would cost more than a few passes over the
        rows.
    """
    n = cells.shape[0]
    m = n // n_records
    # `cells` is the caller's own new array: its views are kept, not copied.
    # Codes 0, 1, ... in order, m rows each, are exactly the ids that
    # records_in_order accepts (n_records increasing codes below n_records).
    if m * n_records == n and (record_codes is None or records_in_order(record_codes) == m):
        return cells.reshape(n_records, m) if _few_pairs(m, n_records, n) else None
    # Any other order (stacked repeats, shuffled rows, runs out of order):
    # one sort of (record, cell) keys packed in an unsigned integer puts
    # each record's rows together. The order of a record's rows does not
    # matter to the sums over its pairs, and NumPy sorts such keys with
    # vectorised code (10^7 keys of 32 bits in about 0.1 s).
    bits = int(fill).bit_length()
    key_type = np.uint32 if (n_records << bits) <= 2**32 else np.uint64
    keys = record_codes.astype(key_type)
    keys <<= key_type(bits)
    np.bitwise_or(keys, cells, out=keys, casting="unsafe")
    keys.sort()
    record = keys >> key_type(bits)
    starts = np.flatnonzero(np.concatenate([[True], record[1:] != record[:-1]]))
    lengths = np.diff(np.append(starts, n))
    m = int(lengths.max())
    if not _few_pairs(m, n_records, n):
        return None
    ordered = np.bitwise_and(keys, key_type((1 << bits) - 1), out=keys).astype(cells.dtype)
    if lengths.min() == m:
        return ordered.reshape(n_records, m)
    slots = np.full((n_records, m), fill, dtype=cells.dtype)
    record = record.astype(np.intp)
    slots[record, np.arange(n) - starts[record]] = ordered
    return slots


def _few_pairs(m, n_records, n):
    """Whether the pairs of `m` slots of every record cost a few passes over `n` rows."""
    return m * (m - 1) // 2 * n_records <= _MAX_PAIR_ROWS * n


def pair_table(slots, n_cells):
    """Rows per cell, and ordered pairs of rows of one record per pair of cells.

    Returns
    -------
    rows_per_cell : ndarray of int, shape (n_cells,)
    pairs : ndarray of int, shape (n_cells, n_cells)
        A row paired with itself included (on the diagonal).
    """
    size = n_cells + 1  # the last cell fills empty slots
    pairs = np.zeros(size * size, dtype=np.int64)
    m = slots.shape[1]
    for a in range(m):
        first = slots[:, a].astype(np.intp) * size
        for b in range(a + 1, m):
            pairs += np.bincount(first + slots[:, b], minlength=size * size)
    pairs = pairs.reshape(size, size)
    if m == 1:
        rows_per_cell = np.bincount(slots[:, 0], minlength=size)[:n_cells]
    else:
        # Every row of a record takes part in m - 1 pairs of slots (as the
        # first or the second), so the margins count the rows of each cell.
        rows_per_cell = (pairs.sum(axis=1) + pairs.sum(axis=0))[:n_cells] // (m - 1)
    pairs = pairs[:n_cells, :n_cells]
    table = pairs + pairs.T
    table[np.diag_indices(n_cells)] += rows_per_cell
    return rows_per_cell, table


def _cell_labels(n_values, n_clf):
    """Truth and each prediction of every cell, shape (1 + n_clf, n_cells)."""
    return np.array(np.unravel_index(np.arange(n_values ** (n_clf + 1)), (n_values,) * (n_clf + 1)))


def cell_features(n_values, n_clf):
    """What a row of each cell adds to a (record, class) key's features.

    Shape ``(n_cells, n_values, 1 + 3 n_clf)``: for class ``k``, one row,
    then one TP, FN or FP per classifier (the features of
    :func:`._counts.clustered_statistics`).
    """
    labels = _cell_labels(n_values, n_clf)
    k = np.arange(n_values)[None, :]
    truth = labels[0][:, None] == k
    features = np.zeros((labels.shape[1], n_values, 1 + 3 * n_clf))
    features[..., 0] = 1
    for c in range(n_clf):
        said = labels[1 + c][:, None] == k
        features[..., 1 + 3 * c + TP] = truth & said
        features[..., 1 + 3 * c + FN] = truth & ~said
        features[..., 1 + 3 * c + FP] = ~truth & said
    return features


def pooled_features(n_values, n_clf):
    """What a row of each cell adds to accuracy's features: one row, then correct per classifier."""
    labels = _cell_labels(n_values, n_clf)
    features = np.ones((labels.shape[1], 1 + n_clf))
    features[:, 1:] = (labels[1:] == labels[0]).T
    return features


def pair_statistics(encoded, record_codes, n_records):
    """The category counts of :func:`._counts.clustered_statistics`, from pairs of rows.

    Parameters
    ----------
    encoded : EncodedPredictions
        The labels (codes plus an offset).
    record_codes : ndarray of int, shape (n_rows,), or None
        As in :func:`record_slots`.
    n_records : int

    Returns
    -------
    categories, pooled : CategoryCounts
    slots : ndarray of shape (n_records, m)
        Each record's cells (:func:`record_slots`; ``n_cells`` fills).

    None when the cells are too many or the records' rows are not
    contiguous: the general path then counts them.
    """
    n_values, n_clf = len(encoded.values), len(encoded.preds)
    n_cells = n_values ** (n_clf + 1)
    if n_cells > _MAX_CELLS or not encoded.y_true.shape[0]:
        return None
    cells = cell_codes(encoded)
    slots = record_slots(cells, record_codes, n_records, n_cells)
    if slots is None:
        return None
    rows, pairs = (a.astype(float) for a in pair_table(slots, n_cells))
    # Sums over records of products of sums over rows: the pair table
    # between the features of the two rows (exact: integers below 2**53).
    features = cell_features(n_values, n_clf)
    sums = np.einsum("z,zkf->kf", rows, features)
    paired = (pairs @ features.reshape(n_cells, -1)).reshape(features.shape)
    gram = np.einsum("zkf,zkg->kfg", features, paired)
    categories = _categories_from_moments(sums, gram, _key_feature_map(n_clf), n_clf)
    pooled = pooled_features(n_values, n_clf)
    pooled = _pooled_from_moments(pooled.T @ rows, pooled.T @ pairs @ pooled, n_clf)
    return categories, pooled, slots


def rows_of_slots(slots, n_values, n_clf):
    """The rows (truth, predictions, record codes) behind `slots`."""
    n_cells = n_values ** (n_clf + 1)
    record, _ = np.nonzero(slots < n_cells)
    cells = slots[slots < n_cells]
    labels = np.unravel_index(cells.astype(np.intp), (n_values,) * (n_clf + 1))
    return labels[0], list(labels[1:]), record
