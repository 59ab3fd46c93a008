"""The joint cells of truth and predictions, and the records that hold them.

The one place where the comparison of measures reads the library's label
engine: everything downstream works on the nonzero cells of the joint
(truth, prediction_1, ..., prediction_C) table and, with clustered rows, on
the distinct per-record patterns of cells, never on the rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from ..engine._counts import (
    _encode_predictions,
    encode_groups,
    integer_joint_table,
    label_codes,
)

__all__ = []


@dataclass(frozen=True)
class Cells:
    """Sufficient statistics of a paired comparison of measures.

    Attributes
    ----------
    values : ndarray of shape (K,)
        The labels of codes ``0..K-1`` (classes present in the truth or in
        some prediction, sorted).
    codes : ndarray of shape (U, C + 1)
        The nonzero cells: truth code, then each classifier's code.
    counts : ndarray of shape (U,)
        Rows per cell.
    patterns : scipy.sparse.csr_array of shape (V, U) or None
        With clustered rows: rows per (distinct record pattern, cell).
    multiplicity : ndarray of shape (V,) or None
        Records per distinct pattern.
    n_rows, n_records : int
    """

    values: np.ndarray
    codes: np.ndarray
    counts: np.ndarray
    patterns: sparse.csr_array | None
    multiplicity: np.ndarray | None
    n_rows: int
    n_records: int

    @property
    def n_values(self) -> int:
        return len(self.values)

    def confusion(self, c: int, weights: np.ndarray | None = None) -> np.ndarray:
        """Confusion matrix (K, K) of classifier `c` (0 = reference)."""
        k = self.n_values
        flat = self.codes[:, 0] * k + self.codes[:, c + 1]
        w = self.counts if weights is None else weights
        return np.bincount(flat, weights=w, minlength=k * k).reshape(k, k).astype(float)

    def cell_index(self, c: int) -> np.ndarray:
        """Flat (truth, prediction) index of each cell for classifier `c`."""
        return self.codes[:, 0] * self.n_values + self.codes[:, c + 1]


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
    n_axes = len(codes)
    if n_values**n_axes < 2**62:
        key = np.zeros(codes[0].shape[0], dtype=np.int64)
        for a in codes:
            key *= n_values
            key += a
        unique, inverse = np.unique(key, return_inverse=True)
        cells = np.empty((len(unique), n_axes), dtype=np.intp)
        rest = unique.copy()
        for j in range(n_axes - 1, -1, -1):
            cells[:, j] = rest % n_values
            rest //= n_values
        return cells, inverse.reshape(-1)
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


def tabulate(y_true: np.ndarray, preds: list[np.ndarray], groups: np.ndarray | None) -> Cells:
    """Cells (and record patterns) of validated label arrays."""
    n_rows = y_true.shape[0]
    arrays = [y_true, *preds]
    if groups is None:
        table = integer_joint_table(arrays)
        if table is not None:
            index = np.nonzero(table)
            codes = np.stack(index, axis=1).astype(np.intp)
            counts = table[index].astype(np.int64)
            dtype = np.result_type(*[a.dtype for a in arrays])
            values = np.arange(table.shape[0]).astype(dtype)
            codes, values = _compact(codes, values)
            return Cells(values, codes, counts, None, None, n_rows, n_rows)
    encoded = _encode_predictions(y_true, preds)
    row_codes = [label_codes(encoded.y_true, encoded.offset)]
    row_codes += [label_codes(p, encoded.offset) for p in encoded.preds]
    cells, inverse = _unique_rows(row_codes, len(encoded.values))
    counts = np.bincount(inverse, minlength=len(cells)).astype(np.int64)
    codes, values = _compact(cells, np.asarray(encoded.values))
    if groups is None:
        return Cells(values, codes, counts, None, None, n_rows, n_rows)
    record_codes, n_records = encode_groups(groups)
    matrix = sparse.csr_array(
        (np.ones(n_rows), (record_codes, inverse)), shape=(n_records, len(cells))
    )
    matrix.sum_duplicates()
    patterns, multiplicity = _distinct_patterns(matrix)
    return Cells(values, codes, counts, patterns, multiplicity, n_rows, int(n_records))
