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

from typing import Any

import numpy as np

from ._bootstrap import acceleration
from ._cells import Units
from ._definitions import MeasureSpec

__all__ = []


# Floats that one block of outputs may hold in gradients and influence sums
# (32 MB), so that K per-class values of K classes never need K^3 or
# units x K floats at once.
_BLOCK_FLOATS = 2**22


def unit_influence(
    spec: MeasureSpec,
    units: Units,
    c: int,
    confusion: np.ndarray | None = None,
    local_map: tuple[np.ndarray, Any] | None = None,
    grad: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Values ``(R,)`` of classifier `c` and the influence sums of its units ``(V, R)``.

    `confusion`, `local_map` (:meth:`Units.local_map`) and the gradient at
    its cells, `grad`, may be passed when already computed.
    """
    if confusion is None:
        confusion = units.confusion(c)
    values = spec.values(confusion)
    if units.lift is not None:
        # Gradient in the proportions P = counts / n of each table's rows.
        grad = spec.gradient(confusion) * units.n_rows
        proportions = confusion / units.n_rows
        n_out = grad.shape[0]
        center = (grad * proportions).reshape(n_out, -1).sum(axis=1)
        influence = units.maps[c] @ units.map_gradient(grad).T
        return values, np.asarray(influence) - units.unit_rows[:, None] * center
    # Only the cells that the units add to carry rows (and proportions): the
    # gradient is needed there alone.
    cells, local = units.local_map(c) if local_map is None else local_map
    if grad is None:
        grad = spec.gradient_at(confusion, cells)
    grad = grad * units.n_rows
    proportions = confusion.reshape(-1)[cells] / units.n_rows
    center = (grad * proportions).sum(axis=1)
    influence = np.asarray(local @ grad.T) - units.unit_rows[:, None] * center
    return values, influence


def output_blocks(n_outputs: int, units: Units, n_clf: int, n_cells: int) -> list[slice]:
    """Blocks of outputs whose gradients (at `n_cells` cells) and influence sums fit the budget."""
    per_output = (4 * n_clf + 2) * len(units.weights) + n_clf * n_cells
    if units.lift is not None:
        per_output += n_clf * int(np.prod(units.shape))
    size = max(1, _BLOCK_FLOATS // max(per_output, 1))
    return [slice(s, min(s + size, n_outputs)) for s in range(0, n_outputs, size)]


def delta_moments(
    specs: list[MeasureSpec], units: Units, accelerate: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """Every classifier's values and the delta method's moments, block by block of outputs.

    Returns the values ``(R, C)``, their standard errors ``(R, C)``, the
    covariances of the differences from the reference ``(R, C-1, C-1)`` and,
    with `accelerate`, the BCa acceleration of the differences ``(R, C-1)``.
    Memory is bounded by the units and the cells, whatever the number of
    outputs (classes).
    """
    n_clf, weights = len(specs), units.weights
    confusions = [units.confusion(c) for c in range(n_clf)]
    local_maps = [None if units.lift is not None else units.local_map(c) for c in range(n_clf)]
    # A callable's numerical gradient costs two calls per cell: taken once for
    # every output (R x cells floats), then sliced by block.
    grads: list[np.ndarray | None] = []
    for c in range(n_clf):
        local = local_maps[c]
        grads.append(
            specs[c].gradient_at(confusions[c], local[0])
            if specs[c].func is not None and local is not None
            else None
        )
    est, se, cov, accel = [], [], [], []
    n_cells = max((len(local[0]) for local in local_maps if local is not None), default=0)
    for rows in output_blocks(specs[0].n_outputs, units, n_clf, n_cells):
        parts = []
        for c in range(n_clf):
            grad = grads[c]
            parts.append(
                unit_influence(
                    specs[c].outputs(rows),
                    units,
                    c,
                    confusions[c],
                    local_maps[c],
                    None if grad is None else grad[rows],
                )
            )
        values, influence = zip(*parts, strict=True)
        inf = np.stack(influence, axis=1)  # (V, C, R)
        est.append(np.stack(values, axis=1))
        var = delta_variance(inf.reshape(len(weights), -1), weights, units.n_rows)
        se.append(np.sqrt(var).reshape(n_clf, -1).T)
        diffs_if = inf[:, 1:] - inf[:, :1]
        del inf
        cov.append(delta_covariance(diffs_if, weights, units.n_rows))
        if accelerate:
            accel.append(acceleration(np.moveaxis(diffs_if, 2, 1), weights))
    return (
        np.concatenate(est),
        np.concatenate(se),
        np.concatenate(cov),
        np.concatenate(accel) if accelerate else None,
    )


def delta_covariance(differences: np.ndarray, weights: np.ndarray, n_rows: int) -> np.ndarray:
    """Covariances ``(R, D, D)`` of differences from their influence sums ``(V, D, R)``."""
    return np.einsum("v,vdr,ver->rde", weights, differences, differences) / float(n_rows) ** 2


def delta_variance(influence: np.ndarray, weights: np.ndarray, n_rows: int) -> np.ndarray:
    """Variances ``(R,)`` from influence sums ``(V, R)``."""
    return np.einsum("v,vr,vr->r", weights, influence, influence) / float(n_rows) ** 2
