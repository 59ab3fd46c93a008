"""The paired bootstrap of measures over cells or record patterns.

A resample of ``n`` rows with replacement draws the counts of the joint
table's cells from a multinomial with the observed proportions; with
clustered rows, a resample of records draws the numbers of each distinct
per-record pattern of cells. Either costs O(cells) or O(patterns) per
replicate, whatever the number of rows, and every classifier's confusion
matrix follows from the same draws, so the replicates are paired.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse, special

from ._cells import Units
from ._definitions import MeasureSpec

__all__ = []

# Replicates are drawn in chunks of at most this many floats of draws and
# confusion counts (32 MB), whatever the units and classes.
_CHUNK_DRAWS = 2**22
# Rounding of a sum, relative to max(1, |value|): see rounding_level.
_ROUNDING = 1e-12


def rounding_level(value: np.ndarray | float) -> np.ndarray:
    """How far rounding alone may take a sum from `value`, 1e-12 relative.

    The estimate and its replicates are sums taken in different orders:
    within this of the estimate, a replicate ties with it; a standard
    error within this of the difference is zero.
    """
    return _ROUNDING * np.maximum(1.0, np.abs(value))


def bootstrap_replicates(
    specs: list[MeasureSpec], units: Units, n_resamples: int, rng: np.random.Generator
) -> np.ndarray:
    """Measures of every classifier on each resample: ``(B, C, R)``."""
    n_clf = len(units.maps)
    pvals = units.weights / units.weights.sum()
    n_out = specs[0].n_outputs
    out = np.empty((n_resamples, n_clf, n_out))
    # Per-class measures need each class's counts alone: O(units + K) per
    # replicate rather than a K x K matrix.
    count_maps = [
        _class_count_map(units, c) if specs[c].from_class_counts and units.lift is None else None
        for c in range(n_clf)
    ]
    width = max(int(np.prod(units.shape)) if m is None else 4 * units.n_values for m in count_maps)
    chunk = max(1, _CHUNK_DRAWS // (len(pvals) + 2 * width))
    for start in range(0, n_resamples, chunk):
        size = min(chunk, n_resamples - start)
        draws = rng.multinomial(units.n_draws, pvals, size=size).astype(float)
        for c in range(n_clf):
            count_map = count_maps[c]
            if count_map is None:
                confusion = units.to_confusion(np.asarray(units.maps[c].T @ draws.T).T)
                out[start : start + size, c] = specs[c].values(confusion)
                continue
            k = units.n_values
            sums = np.asarray(count_map.T @ draws.T).T  # (size, 3K + 1)
            tp, t, p, n = sums[:, :k], sums[:, k : 2 * k], sums[:, 2 * k : 3 * k], sums[:, 3 * k :]
            counts = np.stack([tp, p - tp, t - tp, n - tp - (p - tp) - (t - tp)], axis=-1)
            out[start : start + size, c] = specs[c].class_count_values(counts)
    return out


def _class_count_map(units: Units, c: int) -> sparse.csr_array:
    """What each unit adds to the classes' TP, true rows and predicted rows, and to all rows.

    Of shape ``(V, 3K + 1)``, from classifier `c`'s map of units to the
    cells of its K x K confusion matrix.
    """
    full, k = units.maps[c], units.n_values
    rows = np.repeat(np.arange(full.shape[0]), np.diff(full.indptr))
    t, p = np.divmod(full.indices.astype(np.intp), k)
    diag = t == p
    return sparse.csr_array(
        (
            np.concatenate([full.data[diag], full.data, full.data, full.data]),
            (
                np.concatenate([rows[diag], rows, rows, rows]),
                np.concatenate([t[diag], k + t, 2 * k + p, np.full(len(t), 3 * k)]),
            ),
        ),
        shape=(full.shape[0], 3 * k + 1),
    )


def _enough_finite(replicates: np.ndarray, min_count: int) -> np.ndarray:
    """Columns (all axes but the first) with at least `min_count` finite replicates.

    NumPy's nan-functions warn on the others, which an undefined estimate
    (all of its replicates undefined) always has: they are NaN instead.
    """
    return np.asarray(np.isfinite(replicates).sum(axis=0) >= min_count)


def nan_mean(replicates: np.ndarray) -> np.ndarray:
    """Mean of the finite replicates, column by column; NaN for a column with none."""
    out = np.full(replicates.shape[1:], np.nan)
    enough = _enough_finite(replicates, 1)
    if enough.any():
        out[enough] = np.nanmean(replicates[:, enough], axis=0)
    return out


def nan_std(replicates: np.ndarray) -> np.ndarray:
    """Standard deviation (ddof=1) of the finite replicates; NaN with fewer than two."""
    out = np.full(replicates.shape[1:], np.nan)
    enough = _enough_finite(replicates, 2)
    if enough.any():
        out[enough] = np.nanstd(replicates[:, enough], axis=0, ddof=1)
    return out


def bca_interval(
    replicates: np.ndarray, estimate: np.ndarray, acceleration: np.ndarray, level: float
) -> tuple[np.ndarray, np.ndarray]:
    """Efron's bias-corrected and accelerated interval, column by column."""
    alpha = (1 - level) / 2
    valid = np.isfinite(replicates)
    n_valid = valid.sum(axis=0)
    # Ties with the estimate count one half, ties up to rounding included: the
    # estimate and the replicates are sums taken in different orders.
    tied = np.abs(replicates - estimate) <= rounding_level(estimate)
    below = ((replicates < estimate) & ~tied).sum(axis=0) + 0.5 * tied.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        z0 = special.ndtri(below / n_valid)
        lows, highs = np.full(estimate.shape, np.nan), np.full(estimate.shape, np.nan)
        for i, z_a in enumerate((special.ndtri(alpha), special.ndtri(1 - alpha))):
            shift = z0 + z_a
            q = special.ndtr(z0 + shift / (1 - acceleration * shift))
            target = lows if i == 0 else highs
            for j in np.ndindex(estimate.shape):
                col = replicates[(slice(None),) + j]
                col = col[np.isfinite(col)]
                if col.size and np.isfinite(q[j]):
                    target[j] = np.quantile(col, q[j])
    return lows, highs


def bootstrap_pvalue(replicates: np.ndarray, estimate: np.ndarray) -> np.ndarray:
    """Two-sided p-value of a zero difference: the centred replicates as the null.

    ``(1 + #{|d* - d| >= |d|}) / (1 + B)`` (Hall and Wilson, 1991).
    """
    valid = np.isfinite(replicates)
    with np.errstate(invalid="ignore"):
        # A tie up to rounding is as extreme (the same sums in another order).
        slack = rounding_level(estimate)
        extreme = (np.abs(replicates - estimate) >= np.abs(estimate) - slack) & valid
        p = (1.0 + extreme.sum(axis=0)) / (1.0 + valid.sum(axis=0))
    return np.where(np.isfinite(estimate), p, np.nan)


def acceleration(influence: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """BCa acceleration from the units' influence values ``(V, ...)``."""
    w = weights.reshape((-1,) + (1,) * (influence.ndim - 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return (w * influence**3).sum(axis=0) / (6.0 * ((w * influence**2).sum(axis=0)) ** 1.5)
