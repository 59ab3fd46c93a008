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
side by side in *slots* (:func:`record_slots`, one sort of the rows by
record, whatever their order) and both tables are counts over a few passes
of the slots, with no grouping by (record, class). Every sum involves at
most two classifiers, so with more cells than one table holds each pair of
classifiers has its own table, over the cells of the truth and those two.
Many classes or large records take the general path.
"""

import itertools

import numpy as np

from ._codes import encode_groups
from ._counts import (
    FN,
    FP,
    TP,
    CategoryCounts,
    _categories_from_moments,
    _key_feature_map,
    _pooled_from_moments,
)
from ._tables import _joint_codes

__all__ = []

# Cells of one table of pairs of cells, at most: it has (cells + 1)^2
# entries (about 16 MB of counts at this size). Beyond, pairs of classifiers.
_MAX_CELLS = 2**11
# Cells of a row with every classifier: slots hold them in 16 bits.
_MAX_SLOT_CELLS = 2**16
# Counts of the tables of pairs of cells per row at most: each count costs
# about as much as a row (made, summed, turned into features), so with fewer
# rows the general path is faster (10 classes and 3 classifiers: 0.6x of it
# at 10^5 rows, 1.3x at 3 * 10^5, 2.4x at 10^6).
_MAX_TABLE_ROWS = 5
# Pairs of slots times records, in rows: records with many rows (each slot
# pair is one pass over the records) take the general path. At 10^7 rows of
# 2 classifiers the general path takes about 2 s whatever the rows per
# record; pairs take 0.2 s with 5 and 0.25 s with 10. Up to 17 rows a
# record's slots also keep fewer bytes than its (record, class) counts.
_MAX_PAIR_ROWS = 8
# Rows per record at most on this path (what _MAX_PAIR_ROWS allows).
_MAX_SLOTS = 2 * _MAX_PAIR_ROWS + 1
# Rows per block of :func:`record_keys`, records per block of :func:`pair_table`.
_BLOCK_ROWS = 2**16
_PAIR_BLOCK = 2**14


def record_keys(encoded, groups):
    """Each row's ``(record, cell) = (id - smallest id) << bits | cell``, packed.

    The cell is ``((y * V + p_1) * V + ...) * V + p_C`` of the codes of an
    :class:`._codes.EncodedPredictions`. Integer ids are packed as they
    are, less the smallest (cast modulo the key's width, which is exact
    since every key fits), other ids by their codes
    (:func:`._codes.encode_groups`). The keys are computed in blocks of
    rows that stay in the cache: one read of every input.

    Returns
    -------
    keys : ndarray of uint32 or uint64, shape (n_rows,)
    bits : int
        Bits of the cell.
    """
    n_values = len(encoded.values)
    n_cells = n_values ** (1 + len(encoded.preds))
    bits = n_cells.bit_length()
    lo = span = None
    if groups.dtype.kind in "iu":
        lo, hi = int(groups.min()), int(groups.max())
        span = hi - lo + 1
    if span is None or span << bits > 2**64:
        groups, span = encode_groups(groups)
        lo = 0
    key_type = np.uint32 if span << bits <= 2**32 else np.uint64
    bound = 2 ** (8 * np.dtype(key_type).itemsize)
    lo = key_type(lo % bound)
    keys = np.empty(groups.shape[0], dtype=key_type)
    cell = np.empty(min(_BLOCK_ROWS, groups.shape[0]), dtype=key_type)
    for start in range(0, groups.shape[0], _BLOCK_ROWS):
        rows = slice(start, start + _BLOCK_ROWS)
        out = keys[rows]
        out[...] = groups[rows]  # cast modulo the key's width, as is the rest
        if lo:
            out -= lo
        out <<= key_type(bits)
        out |= _joint_codes(encoded, n_values, rows, cell[: out.shape[0]])
    return keys, bits


def record_slots(keys, bits, fill):
    """The cells of each record's rows side by side, records in sorted order of their ids.

    Parameters
    ----------
    keys : ndarray of unsigned int, shape (n_rows,)
        Packed ``(record, cell)`` (:func:`record_keys`), sorted in place.
    bits : int
    fill : int
        The cell of an empty slot (a record with fewer rows than the most).

    Returns
    -------
    slots : ndarray of uint16, shape (n_records, m), or None
        Row ``r`` holds the cells of the ``r``-th record's rows (in
        increasing order), then `fill`. None when the pairs of slots would
        cost more than a few passes over the rows.
    """
    # One sort of the packed keys puts each record's rows together whatever
    # the order of the rows (stacked repeats, shuffled rows, contiguous
    # records): NumPy sorts them with vectorised code (10^7 keys of 32 bits
    # in about 50 ms).
    keys.sort()
    n, key_type = keys.shape[0], keys.dtype.type
    bits, mask = key_type(bits), key_type((1 << bits) - 1)
    # Records of m rows each, m read off the first record: then the first
    # and the last of every m keys are of one record, and of a new one.
    head = keys[: _MAX_SLOTS + 1] >> bits
    m = int(np.argmax(head != head[0])) or head.shape[0]
    if n % m == 0:
        first, last = keys[::m] >> bits, keys[m - 1 :: m] >> bits
        if (first == last).all() and (first[1:] > last[:-1]).all():
            if not _few_pairs(m, n // m, n):
                return None
            slots = np.empty(n, dtype=np.uint16)
            np.bitwise_and(keys, mask, out=slots, casting="unsafe")
            return slots.reshape(-1, m)
    # Records of different sizes: the empty slots are filled.
    record = keys >> bits
    starts = np.flatnonzero(np.concatenate([[True], record[1:] != record[:-1]]))
    lengths = np.diff(np.append(starts, n))
    m, n_records = int(lengths.max()), starts.shape[0]
    if not _few_pairs(m, n_records, n):
        return None
    slots = np.full((n_records, m), fill, dtype=np.uint16)
    record = np.repeat(np.arange(n_records), lengths)
    slots[record, np.arange(n) - starts[record]] = keys & mask
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
    n_records, m = slots.shape
    # Records in blocks whose codes stay in the cache, added into one table
    # (np.add.at: a bincount would make and add a new table each time) of
    # counts in 32 bits while they fit, so that more of it stays in the
    # cache: 1.3x faster than a bincount per pair of slots at 10^7 rows.
    count_type = np.int32 if _MAX_PAIR_ROWS * slots.size < 2**31 else np.int64
    pairs, one = np.zeros(size * size, dtype=count_type), count_type(1)
    first = np.empty((m, _PAIR_BLOCK), dtype=np.intp)
    code = np.empty(_PAIR_BLOCK, dtype=np.intp)
    for start in range(0, n_records, _PAIR_BLOCK):
        block = np.ascontiguousarray(slots[start : start + _PAIR_BLOCK].T)
        k = block.shape[1]
        np.multiply(block, size, out=first[:, :k], dtype=np.intp)
        for a in range(m):
            for b in range(a + 1, m):
                np.add(first[a, :k], block[b], out=code[:k], casting="unsafe")
                np.add.at(pairs, code[:k], one)
    pairs = pairs.astype(np.int64).reshape(size, size)
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
    features = np.ones((labels.shape[1], 1 + n_clf), dtype=np.int64)
    features[:, 1:] = (labels[1:] == labels[0]).T
    return features


def pair_statistics(encoded, groups):
    """The category counts of :func:`._counts.clustered_statistics`, from pairs of rows.

    Parameters
    ----------
    encoded : EncodedPredictions
        The label codes.
    groups : ndarray of shape (n_rows,)
        Record ids.

    Returns
    -------
    categories, pooled : CategoryCounts
    slots : ndarray of shape (n_records, m)
        Each record's cells (:func:`record_slots`; ``n_cells`` fills).

    None when the cells are too many or the records too large: the general
    path then counts them.
    """
    n_values, n_clf = len(encoded.values), len(encoded.preds)
    n_cells = n_values ** (n_clf + 1)
    n_rows = encoded.y_true.shape[0]
    # One table of the cells of every classifier, or one per pair of them.
    table, n_tables = n_cells, 1
    if n_cells > _MAX_CELLS:
        table, n_tables = n_values**3, n_clf * (n_clf - 1) // 2
    if n_cells >= _MAX_SLOT_CELLS or table > _MAX_CELLS or not n_rows:
        return None
    if n_tables * (table + 1) ** 2 > _MAX_TABLE_ROWS * n_rows:
        return None
    slots = record_slots(*record_keys(encoded, groups), n_cells)
    if slots is None:
        return None
    if n_cells <= _MAX_CELLS:
        return (*_pair_sums(slots, n_values, n_clf), slots)
    # Too many cells for one table: every sum involves at most two
    # classifiers, so each pair of classifiers counts the pairs of rows over
    # the cells of the truth and those two (a lookup from the slots' cells);
    # at 10^7 rows of 3 classifiers and 10 classes 6x faster than per
    # (record, class) keys (2.4x at 10^6).
    labels = _cell_labels(n_values, n_clf)
    first = np.empty((n_values, n_clf, 4))
    second = np.empty((n_values, n_clf, n_clf, 4, 4))
    pooled_first, pooled_second = np.empty((1, n_clf, 4)), np.empty((1, n_clf, n_clf, 4, 4))
    for c, d in itertools.combinations(range(n_clf), 2):
        cell = (labels[0] * n_values + labels[1 + c]) * n_values + labels[1 + d]
        lookup = np.append(cell, n_values**3).astype(np.uint16)  # the empty slot too
        both = [c, d]
        for sums, (part_first, part_second) in zip(
            ((first, second), (pooled_first, pooled_second)),
            _pair_sums(np.take(lookup, slots), n_values, 2),
            strict=True,
        ):
            sums[0][:, both] = part_first
            sums[1][:, c, both], sums[1][:, d, both] = part_second[:, 0], part_second[:, 1]
    return CategoryCounts(first, second), CategoryCounts(pooled_first, pooled_second), slots


def _pair_sums(slots, n_values, n_clf):
    """Category counts of every class and of accuracy from the slots of full cells."""
    n_cells = n_values ** (n_clf + 1)
    rows, pairs = pair_table(slots, n_cells)
    # Sums over records of products of sums over rows: the pair table
    # between the features of the two rows (exact in floats: integers below
    # 2**53). On the cells that do not touch class k a row's only feature is
    # its row, so k's Gram matrix reads the pairs of the cells that do, and
    # the pairs of each cell with any row.
    features = cell_features(n_values, n_clf)
    sums = np.einsum("z,zkf->kf", rows, features)
    with_any, exact = pairs.sum(axis=0), pairs.astype(float)
    gram = np.empty(features.shape[1:] + features.shape[2:])
    for k in range(n_values):
        touched = np.flatnonzero(features[:, k, 1:].any(axis=1))
        f = features[touched, k]
        gram[k] = f.T @ exact[np.ix_(touched, touched)] @ f
        gram[k, 0] = gram[k, :, 0] = with_any @ features[:, k]
    categories = _categories_from_moments(sums, gram, _key_feature_map(n_clf), n_clf)
    # Accuracy's sums in integers: NumPy's own loops are faster here than
    # BLAS's product of a thin matrix by the square table.
    pooled = pooled_features(n_values, n_clf)
    pooled = _pooled_from_moments(
        (pooled.T @ rows).astype(float), (pooled.T @ (pairs @ pooled)).astype(float), n_clf
    )
    return categories, pooled
