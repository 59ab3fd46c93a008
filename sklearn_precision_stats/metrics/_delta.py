"""Influence values of measures and the delta method, paired and clustered.

A measure of classifier ``c`` is a function of its confusion matrix, so a
row's influence value on it depends only on the row's (truth, prediction
of ``c``) cell: with ``G = d measure / d cell proportions``,
``IF(row) = G[t, p] - sum(G * P)``. The variance of a difference of
measures is ``sum over units of (IF_c - IF_r)^2 / n^2``, where a unit is a
row (one per record) or a record (its rows' influence values summed: the
cluster-robust version).
"""

from __future__ import annotations

import numpy as np

from ._cells import Cells
from ._definitions import MeasureSpec, measure_and_gradient

__all__ = []


def unit_influence(spec: MeasureSpec, cells: Cells, c: int) -> tuple[np.ndarray, np.ndarray]:
    """Values ``(R,)`` of classifier `c` and its influence sums per unit ``(V, R)``.

    Units are the cells (weights: their counts) or, with clustered rows,
    the distinct record patterns (weights: their multiplicities).
    """
    confusion = cells.confusion(c)
    values, grad = measure_and_gradient(spec, confusion)
    n_out, k = grad.shape[0], cells.n_values
    proportions = confusion / cells.n_rows
    center = (grad * proportions).sum(axis=(1, 2))
    influence = grad.reshape(n_out, k * k)[:, cells.cell_index(c)].T - center
    if cells.patterns is not None:
        influence = cells.patterns @ influence
    return values, np.asarray(influence)


def unit_weights(cells: Cells) -> np.ndarray:
    if cells.multiplicity is None:
        return cells.counts.astype(float)
    return cells.multiplicity.astype(float)


def delta_covariance(differences: np.ndarray, weights: np.ndarray, n_rows: int) -> np.ndarray:
    """Covariances ``(R, D, D)`` of differences from their influence sums ``(V, D, R)``."""
    return np.einsum("v,vdr,ver->rde", weights, differences, differences) / float(n_rows) ** 2


def delta_variance(influence: np.ndarray, weights: np.ndarray, n_rows: int) -> np.ndarray:
    """Variances ``(R,)`` from influence sums ``(V, R)``."""
    return np.einsum("v,vr,vr->r", weights, influence, influence) / float(n_rows) ** 2
