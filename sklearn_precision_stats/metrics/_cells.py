"""The units of a paired comparison of measures: joint cells or record patterns.

The one place where the comparison of measures reads the library's label
engine. Everything downstream works on *units*: the nonzero cells of the
joint (truth, prediction_1, ..., prediction_C) table with one row per
record, or the distinct per-record patterns of cells with clustered rows
or multilabel records. A unit maps to the counts it adds to each
classifier's confusion matrices; units are never rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import sparse

from ..engine._codes import encode_groups, encode_predictions
from ..engine._tables import integer_joint_table
from ._definitions import MeasureSpec, row_values

__all__ = []


@dataclass(frozen=True)
class Units:
    """Sufficient statistics of a paired comparison of measures.

    Attributes
    ----------
    values : ndarray
        The classes (multiclass: labels of codes ``0..K-1``, sorted) or the
        label indices (multilabel: ``0..L-1``).
    shape : tuple of int
        Shape of one classifier's confusion counts: ``(K, K)`` (rows truth,
        columns predictions) or ``(L, 2, 2)`` (one 2 x 2 table per label).
    maps : list of scipy.sparse.csr_array of shape (V, prod(shape))
        For each classifier (reference first), the counts each unit adds.
    weights : ndarray of shape (V,)
        How many times each unit occurs.
    unit_rows : ndarray of shape (V,)
        Rows of each unit, per 2 x 2 table for multilabel records.
    n_draws : int
        Units drawn per bootstrap resample (rows or records).
    n_rows, n_records : int
    lift : ndarray of shape (3 * K, 3 * K) or None
        When the maps give each unit's (diagonal, row sums, column sums) of
        the confusion matrix rather than its cells (clustered counts keep
        no more), ``pinv(A A')`` for the map ``A`` of cells to those sums:
        every measure that depends on no more gets its gradient in those
        sums through it (in O(K^2), never a K^2 x 3K matrix), and its value
        from a confusion matrix with those margins and diagonal
        (:func:`_lift_margins`).
    """

    values: np.ndarray
    shape: tuple[int, ...]
    maps: list[sparse.csr_array]
    weights: np.ndarray
    unit_rows: np.ndarray
    n_draws: int
    n_rows: int
    n_records: int
    lift: np.ndarray | None = None

    @property
    def n_values(self) -> int:
        return len(self.values)

    @property
    def multilabel(self) -> bool:
        return len(self.shape) == 3

    def confusion(self, c: int) -> np.ndarray:
        """Counts of classifier `c` (0 = reference), of shape :attr:`shape`."""
        return self.to_confusion(np.asarray(self.maps[c].T @ self.weights, dtype=float))

    def to_confusion(self, sums: np.ndarray) -> np.ndarray:
        """Confusion counts ``(..., *shape)`` from sums of unit maps ``(..., D)``."""
        if self.lift is not None:
            return _lift_margins(sums, self.shape[0])
        return sums.reshape(*sums.shape[:-1], *self.shape)

    def local_map(self, c: int) -> tuple[np.ndarray, sparse.csr_array]:
        """The cells classifier `c`'s units add to, and its map restricted to them ``(V, S)``.

        Every cell when the units' entries outnumber the cells (multilabel
        records, which add to all their labels): nothing to gain then.
        """
        full = self.maps[c]
        if full.nnz >= full.shape[1]:
            return np.arange(full.shape[1]), full
        cells, local = np.unique(full.indices, return_inverse=True)
        return cells, sparse.csr_array(
            (full.data, local.reshape(-1), full.indptr), shape=(full.shape[0], len(cells))
        )

    def map_gradient(self, grad: np.ndarray) -> np.ndarray:
        """A gradient in the cells ``(R, *shape)`` as one in the maps' space ``(R, D)``."""
        if self.lift is None:
            return grad.reshape(grad.shape[0], -1)
        # (A grad) pinv(A A'): the gradient's diagonal, row and column sums.
        margins = [np.diagonal(grad, axis1=-2, axis2=-1), grad.sum(axis=-1), grad.sum(axis=-2)]
        return np.concatenate(margins, axis=-1) @ self.lift


def _lift_margins(sums: np.ndarray, k: int) -> np.ndarray:
    """A confusion matrix ``(..., k, k)`` with the diagonal, row and column sums in `sums`.

    Off the diagonal, the least-norm matrix among those that are zero in
    every row and column whose off-diagonal count is zero, as every real
    confusion matrix is; its entries are ``u_i + v_j`` on that support.
    Spreading the least-norm matrix over every cell instead (``A'
    pinv(A A') y``) put entries of either sign, and rounding, in the row
    and column of a class without rows or predictions, whose 0/0 measures
    then came out finite. The measures read only the diagonal and margins,
    which are the same either way.
    """
    lead = sums.shape[:-1]
    flat = sums.reshape(-1, 3 * k)
    diag = flat[:, :k]
    # Off-diagonal row and column sums; exact (sums of integer counts).
    a, b = flat[:, k : 2 * k] - diag, flat[:, 2 * k :] - diag
    rows, cols = a != 0, b != 0
    m = rows.sum(axis=1, keepdims=True).astype(float)
    q = cols.sum(axis=1, keepdims=True).astype(float)
    both, row_only, col_only = rows & cols, rows & ~cols, cols & ~rows
    # Row i and column i of a class in both: (q-1) u_i - v_i = a_i - V and
    # -u_i + (m-1) v_i = b_i - U, with U, V the sums of u and v; u + c,
    # v - c give the same matrix, so V = 0 and U follows from U = sum(u).
    with np.errstate(divide="ignore", invalid="ignore"):
        det = q * m - q - m
        total = np.where(both, (m - 1) * a + b, 0.0).sum(axis=1, keepdims=True) / det
        total += np.where(row_only, a, 0.0).sum(axis=1, keepdims=True) / q
        u_sum = total / (1 + both.sum(axis=1, keepdims=True) / det)
        u = np.where(both, ((m - 1) * a + b - u_sum) / det, np.where(row_only, a / q, 0.0))
        v = np.where(
            both,
            (a + (q - 1) * b - (q - 1) * u_sum) / det,
            np.where(col_only, (b - u_sum) / m, 0.0),
        )
    out = (u[:, :, None] + v[:, None, :]) * (rows[:, :, None] & cols[:, None, :])
    # Fewer than three rows or columns with off-diagonal counts (det <= 0):
    # a small least-squares solve per support pattern.
    small = np.flatnonzero(((m < 3) | (q < 3)).reshape(-1))
    if small.size:
        support = np.concatenate([rows[small], cols[small]], axis=1)
        off = np.concatenate([a[small], b[small]], axis=1)
        patterns, inverse = np.unique(support, axis=0, return_inverse=True)
        for p, pattern in enumerate(patterns):
            r, c = np.flatnonzero(pattern[:k]), np.flatnonzero(pattern[k:])
            members = np.flatnonzero(inverse.reshape(-1) == p)
            out[small[members]] = 0.0
            if not (r.size and c.size):
                continue
            allowed = (r[:, None] != c[None, :]).astype(float)
            gram = np.block(
                [[np.diag(allowed.sum(axis=1)), allowed], [allowed.T, np.diag(allowed.sum(axis=0))]]
            )
            x = off[np.ix_(members, np.concatenate([r, k + c]))] @ np.linalg.pinv(
                gram, hermitian=True
            )
            block = (x[:, : r.size, None] + x[:, None, r.size :]) * allowed
            out[np.ix_(small[members], r, c)] = block
    out[:, np.arange(k), np.arange(k)] = diag
    return out.reshape(*lead, k, k)


def _compact(codes: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Drop label codes that no cell uses (scikit-learn's label sets)."""
    present = np.zeros(len(values), dtype=bool)
    present[codes.reshape(-1)] = True
    if present.all():
        return codes, values
    remap = np.cumsum(present) - 1
    return remap[codes], values[present]


def _unique_rows(codes: list[np.ndarray], n_values: int) -> tuple[np.ndarray, np.ndarray]:
    """Distinct code rows, and each row's index among them."""
    shape = (n_values,) * len(codes)
    if n_values ** len(codes) < 2**62:  # one integer key per row
        unique, inverse = np.unique(np.ravel_multi_index(codes, shape), return_inverse=True)
        return np.stack(np.unravel_index(unique, shape), axis=1), inverse.reshape(-1)
    stacked = np.stack(codes, axis=1)
    cells, inverse = np.unique(stacked, axis=0, return_inverse=True)
    return cells.astype(np.intp), inverse.reshape(-1)


def _distinct_patterns(matrix: sparse.csr_array) -> tuple[sparse.csr_array, np.ndarray]:
    """Distinct rows of a sparse count matrix and how often each occurs.

    Rows are compared through two random projections (a private Generator,
    never the global one): distinct integer rows collide only if both
    projections are equal to the last bit.
    """
    rng = np.random.default_rng(0x5EED)
    proj = matrix @ rng.random((matrix.shape[1], 2))
    _, first, multiplicity = np.unique(proj, axis=0, return_index=True, return_counts=True)
    return sparse.csr_array(matrix[first]), multiplicity.astype(np.int64)


def _group_units(
    unit_maps: list[sparse.csr_array],
    unit_rows: np.ndarray,
    row_unit: np.ndarray,
    groups: np.ndarray,
    n_rows: int,
    values: np.ndarray,
    shape: tuple[int, ...],
) -> Units:
    """Units of records: the distinct patterns of the row units per record."""
    record_codes, n_records = encode_groups(groups)
    matrix = sparse.csr_array(
        (np.ones(len(row_unit)), (record_codes, row_unit)),
        shape=(n_records, unit_maps[0].shape[0]),
    )
    matrix.sum_duplicates()
    patterns, multiplicity = _distinct_patterns(matrix)
    maps = [sparse.csr_array(patterns @ m) for m in unit_maps]
    rows = np.asarray(patterns @ unit_rows, dtype=float)
    return Units(
        values, shape, maps, multiplicity.astype(float), rows, int(n_records), n_rows, n_records
    )


def _onehot(index: np.ndarray, width: int) -> sparse.csr_array:
    n = len(index)
    return sparse.csr_array((np.ones(n), (np.arange(n), index)), shape=(n, width))


def _from_table(table: np.ndarray, values: np.ndarray, n_rows: int) -> Units:
    index = np.nonzero(table)
    cells, values = _compact(np.stack(index, axis=1).astype(np.intp), values)
    k = len(values)
    maps = [_onehot(cells[:, 0] * k + cells[:, c], k * k) for c in range(1, cells.shape[1])]
    counts = table[index].astype(float)
    return Units(values, (k, k), maps, counts, np.ones(len(counts)), n_rows, n_rows, n_rows)


def _margin_lift(k: int) -> np.ndarray:
    """``pinv(A A')`` for ``A``: cells -> (diagonal, row sums, column sums), ``(3K, 3K)``.

    ``pinv(A) = A' pinv(A A')`` maps margins of a real confusion matrix to
    a matrix with those margins and diagonal (not necessarily that matrix,
    nor non-negative). ``A A'`` has a closed form: a diagonal cell is in
    its row and its column, a row meets each column in one cell.
    """
    eye, ones = np.eye(k), np.ones((k, k))
    gram = np.block([[eye, eye, eye], [eye, k * eye, ones], [eye, ones, k * eye]])
    return np.linalg.pinv(gram, hermitian=True)


def units_from_counts(counts: Any, names: list[str]) -> Units:
    """Units of a :class:`ComparisonCounts`; `names` orders the classifiers.

    With one row per record its joint table is all a measure needs. With
    clustered rows the counts keep, per (record, class), each classifier's
    TP, FN and FP: each record's confusion diagonal and margins, through
    :func:`_margin_lift`.
    """
    order = [list(counts.classifiers).index(name) for name in names]
    values = np.asarray(counts.classes)
    if counts.clustered and counts.n_records < counts.n_rows:
        records = counts.stored_records().units()
        k = len(values)
        n_units = len(records.unit_rows)
        maps = []
        for c in order:
            x = records.x[:, c]  # TP, FN, FP, TN per key
            cols = np.concatenate(
                [records.key_class, k + records.key_class, 2 * k + records.key_class]
            )
            data = np.concatenate([x[:, 0], x[:, 0] + x[:, 1], x[:, 0] + x[:, 2]])
            rows = np.tile(records.key_unit, 3)
            maps.append(sparse.csr_array((data, (rows, cols)), shape=(n_units, 3 * k)))
        return Units(
            values,
            (k, k),
            maps,
            np.asarray(records.multiplicity, dtype=float),
            np.asarray(records.unit_rows, dtype=float),
            int(counts.n_records),
            int(counts.n_rows),
            int(counts.n_records),
            _margin_lift(k),
        )
    table = counts.joint_table()
    if table is None:
        raise ValueError(
            "these ComparisonCounts keep only agreement sums (too many classes and "
            "classifiers for their joint table); pass the arrays instead."
        )
    table = np.transpose(table, [0] + [1 + i for i in order])
    return _from_table(table, values, int(counts.n_rows))


def tabulate(y_true: np.ndarray, preds: list[np.ndarray], groups: np.ndarray | None) -> Units:
    """Units of validated 1-D label arrays."""
    n_rows = y_true.shape[0]
    arrays = [y_true, *preds]
    counted = integer_joint_table(arrays) if groups is None else None
    if counted is not None:
        table, values = counted
        return _from_table(table, values, n_rows)
    encoded = encode_predictions(y_true, preds)
    row_codes = [encoded.y_true, *encoded.preds]
    cells, inverse = _unique_rows(row_codes, len(encoded.values))
    counts = np.bincount(inverse, minlength=len(cells)).astype(float)
    values = np.asarray(encoded.values)
    cells, values = _compact(cells, values)
    k = len(values)
    maps = [_onehot(cells[:, 0] * k + cells[:, c], k * k) for c in range(1, cells.shape[1])]
    shape = (k, k)
    if groups is None:
        ones = np.ones(len(counts))
        return Units(values, shape, maps, counts, ones, n_rows, n_rows, n_rows)
    return _group_units(maps, np.ones(len(cells)), inverse, groups, n_rows, values, shape)


def _label_cells(y_true: np.ndarray, preds: list[np.ndarray]) -> Units:
    """Units of the (label, truth, predictions) cells, from one bincount."""
    n_rows, n_labels = y_true.shape
    n_clf = len(preds)
    width = 2 ** (n_clf + 1)
    # (truth, predictions) bits of each (row, label) in the narrowest type.
    dtype = np.uint8 if n_clf < 8 else np.uint64
    code = y_true.astype(dtype) << dtype(n_clf)
    for c, pred in enumerate(preds):
        code |= pred.astype(dtype) << dtype(n_clf - 1 - c)
    table = np.concatenate([np.bincount(code[:, j], minlength=width) for j in range(n_labels)])
    (keys,) = np.nonzero(table)
    label, cell = keys // width, keys % width
    truth = cell >> n_clf
    maps = []
    for c in range(n_clf):
        pred = (cell >> (n_clf - 1 - c)) & 1
        maps.append(_onehot(4 * label + 2 * truth + pred, 4 * n_labels))
    ones = np.ones(len(keys))
    shape = (n_labels, 2, 2)
    return Units(
        np.arange(n_labels), shape, maps, table[keys].astype(float), ones, n_rows, n_rows, n_rows
    )


def _distinct_records(bits: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """First row, row -> distinct index, and count of each distinct row of 0/1 bits."""
    packed = np.packbits(bits.astype(np.uint8, copy=False), axis=1)
    n_bytes = packed.shape[1]
    if n_bytes <= 8:
        # One 64-bit key per row, hashed (no sort of the rows).
        import pandas as pd

        wide = np.zeros((packed.shape[0], 8), dtype=np.uint8)
        wide[:, :n_bytes] = packed
        keys = wide.view(np.uint64).reshape(-1)
        inverse, uniques = pd.factorize(keys)
        inverse = inverse.astype(np.intp, copy=False)
        first = np.empty(len(uniques), dtype=np.intp)
        first[inverse[::-1]] = np.arange(len(inverse) - 1, -1, -1)
        counts = np.bincount(inverse, minlength=len(uniques))
        return first, inverse, counts
    rows = np.ascontiguousarray(packed).view(np.dtype((np.void, n_bytes))).reshape(-1)
    _, first, inverse, counts = np.unique(
        rows, return_index=True, return_inverse=True, return_counts=True
    )
    return first, inverse.reshape(-1), counts


def tabulate_multilabel(
    y_true: np.ndarray, preds: list[np.ndarray], groups: np.ndarray | None, by_label: bool = False
) -> Units:
    """Units of multilabel indicator matrices: distinct records' label patterns.

    A record adds, for each label ``j``, one row to that label's 2 x 2
    table of (truth, prediction); its units are the distinct patterns of
    all its labels' (truth, predictions) bits, so that every variance and
    every resample treats the record, all its labels together, as the unit.

    With `by_label` (one value per label, delta method, one row per
    record), a label's value and variance depend on that label's joint
    (truth, predictions) table alone, so the units are the nonzero cells of
    the labels' joint tables, counted in one pass.
    """
    n_rows, n_labels = y_true.shape
    if by_label and groups is None:
        return _label_cells(y_true, preds)
    first, inverse, counts = _distinct_records(np.concatenate([y_true, *preds], axis=1))
    label_base = np.arange(n_labels) * 4
    truth = y_true[first].astype(np.intp)
    n_units = len(first)
    maps = []
    for pred in preds:
        cell = label_base + 2 * truth + pred[first].astype(np.intp)  # (V, L)
        # Each unit has one cell per label, in label order: the CSR arrays directly.
        indptr = np.arange(0, cell.size + 1, n_labels)
        maps.append(
            sparse.csr_array(
                (np.ones(cell.size), cell.reshape(-1), indptr), shape=(n_units, 4 * n_labels)
            )
        )
    values = np.arange(n_labels)
    shape = (n_labels, 2, 2)
    if groups is None:
        ones = np.ones(n_units)
        return Units(values, shape, maps, counts.astype(float), ones, n_rows, n_rows, n_rows)
    return _group_units(maps, np.ones(n_units), inverse, groups, n_rows, values, shape)


def tabulate_samples(
    y_true: np.ndarray, preds: list[np.ndarray], groups: np.ndarray | None, spec: MeasureSpec
) -> Units:
    """Units of a measure averaged over multilabel rows (``average="samples"``).

    Such a measure is the mean over rows of each row's value, a function of
    the row's (TP, FP, FN) over the chosen labels. A unit adds, for each
    classifier, ``(sum of its rows' values, its undefined rows, its
    rows)``: linear sums, so the delta method and the bootstrap are exact
    on them. The units are the distinct (TP, FP, FN) triples of all
    classifiers, or with `groups` the records' distinct patterns of them.
    """
    n_rows = y_true.shape[0]
    columns = spec.class_codes
    if len(columns) < y_true.shape[1]:
        y_true = y_true[:, columns]
        preds = [pred[:, columns] for pred in preds]
    n_labels = y_true.shape[1]
    truth = y_true.astype(bool)
    n_true = truth.sum(axis=1)
    codes = []
    for pred in preds:
        tp = (truth & pred.astype(bool)).sum(axis=1)
        codes += [tp, pred.sum(axis=1, dtype=np.intp) - tp, n_true - tp]
    cells, inverse = _unique_rows([np.asarray(c, dtype=np.intp) for c in codes], n_labels + 1)
    counts = np.bincount(inverse, minlength=len(cells)).astype(float)
    maps = []
    for c in range(len(preds)):
        tp, fp, fn = cells[:, 3 * c], cells[:, 3 * c + 1], cells[:, 3 * c + 2]
        value = row_values(tp, fp, fn, spec.metric, spec.beta)
        undefined = np.isnan(value)
        sums = np.stack([np.where(undefined, 0.0, value), undefined, np.ones(len(value))], axis=1)
        maps.append(sparse.csr_array(sums))
    values = np.arange(n_labels)
    ones = np.ones(len(cells))
    if groups is None:
        return Units(values, (3,), maps, counts, ones, n_rows, n_rows, n_rows)
    return _group_units(maps, ones, inverse, groups, n_rows, values, (3,))
