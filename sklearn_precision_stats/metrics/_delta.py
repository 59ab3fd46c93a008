"""Influence values of measures and the delta method, paired and clustered.

A measure of classifier ``c`` is a function of its confusion counts, so a
row's influence value on it depends only on the row's (truth, prediction
of ``c``) cell: with ``G = d measure / d cell proportions``,
``IF(row) = G[t, p] - sum(G * P)``. The variance of a difference of
measures is ``sum over units of (IF_c - IF_r)^2 / n^2``, where a unit's
influence is the sum over its rows: a row (one per record) or a record
(the cluster-robust version; for multilabel records, all its labels).
"""

from __future__ import annotations

import numpy as np

from ._cells import Units
from ._definitions import MeasureSpec

__all__ = []


def unit_influence(spec: MeasureSpec, units: Units, c: int) -> tuple[np.ndarray, np.ndarray]:
    """Values ``(R,)`` of classifier `c` and the influence sums of its units ``(V, R)``."""
    confusion = units.confusion(c)
    values = spec.values(confusion)
    # Gradient in the proportions P = counts / n of each table's rows.
    grad = spec.gradient(confusion) * units.n_rows
    proportions = confusion / units.n_rows
    n_out = grad.shape[0]
    center = (grad * proportions).reshape(n_out, -1).sum(axis=1)
    influence = units.maps[c] @ units.map_gradient(grad).T
    influence = np.asarray(influence) - units.unit_rows[:, None] * center
    return values, influence


def delta_covariance(differences: np.ndarray, weights: np.ndarray, n_rows: int) -> np.ndarray:
    """Covariances ``(R, D, D)`` of differences from their influence sums ``(V, D, R)``."""
    return np.einsum("v,vdr,ver->rde", weights, differences, differences) / float(n_rows) ** 2


def delta_variance(influence: np.ndarray, weights: np.ndarray, n_rows: int) -> np.ndarray:
    """Variances ``(R,)`` from influence sums ``(V, R)``."""
    return np.einsum("v,vr,vr->r", weights, influence, influence) / float(n_rows) ** 2
