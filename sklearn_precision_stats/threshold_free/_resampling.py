"""Integer resampling weights of the paired bootstrap, a block of replicates at a time.

A replicate is a vector of integer weights over the resampling units
(records, or clusters of rows): how often each unit is drawn. All
classifiers of a comparison share it, which makes the bootstrap paired.
Units are numbered so that every stratum (true class) is a contiguous
range, and a stratum of ``m`` units is resampled by ``m`` uniform draws
among them, as pROC's stratified bootstrap does.
"""

import numbers

import numpy as np

__all__ = []

# Elements of one block of replicates (replicates x units or thresholds):
# 2**20 keeps each block's arrays at a few MB while still amortising the
# Python overhead at small sizes.
_BLOCK_ELEMENTS = 2**20


def block_size(n_elements, n_replicates):
    """Replicates per block for curves of at most `n_elements` entries."""
    return int(max(1, min(n_replicates, _BLOCK_ELEMENTS // max(n_elements, 1))))


def check_n_resamples(n_resamples, n_units, unit_name):
    """An int of replicates, or a validated integer array of weights.

    Returns
    -------
    n_replicates : int
    weights : ndarray of shape (n_replicates, n_units) or None
    """
    if isinstance(n_resamples, numbers.Integral) and not isinstance(n_resamples, bool):
        if n_resamples < 2:
            raise ValueError(
                f"n_resamples must be at least 2 (e.g. n_resamples=2000), got {n_resamples}."
            )
        return int(n_resamples), None
    expected = (
        "n_resamples must be an int (the number of bootstrap replicates) or an "
        f"integer array of shape (n_resamples, {n_units}) of resampling weights "
        f"(how often each {unit_name} is drawn); got "
    )
    try:
        weights = np.asarray(n_resamples)
    except ValueError as exc:  # rows of different lengths
        raise ValueError(f"{expected}rows that do not form an array ({exc}).") from exc
    if weights.ndim != 2 or weights.dtype.kind not in "iub":
        raise ValueError(f"{expected}an array of shape {weights.shape} and dtype {weights.dtype}.")
    if weights.shape[1] != n_units:
        raise ValueError(
            f"n_resamples as an array of weights needs one column per {unit_name} "
            f"({n_units}), got shape {weights.shape}."
        )
    if weights.shape[0] < 2:
        raise ValueError("n_resamples as an array of weights needs at least 2 rows (replicates).")
    if weights.dtype.kind == "i" and weights.min(initial=0) < 0:
        raise ValueError("n_resamples as an array of weights must not hold negative weights.")
    return weights.shape[0], weights


def _weight_dtype(max_weight, max_total):
    # Weights below 256 are kept in one byte each: gathering them in the
    # sorted orders of the classifiers is then cheaper. Larger ones are in
    # a type that holds the cumulative sums.
    if max_weight <= np.iinfo(np.uint8).max:
        return np.uint8
    return np.int32 if max_total < 2**31 else np.int64


def weight_blocks(n_replicates, strata_sizes, rng, block, given=None, unit_of_column=None):
    """Yield ``(start, weights)`` with weights of shape (replicates, n_units).

    Parameters
    ----------
    n_replicates : int
    strata_sizes : sequence of int
        Sizes of the contiguous strata of units; their sum is the number of
        units.
    rng : numpy.random.Generator
    block : int
        Replicates per block.
    given : ndarray of shape (n_replicates, n_columns), default=None
        Weights given by the user, one column per record in the user's
        order; then nothing is drawn.
    unit_of_column : ndarray of int, default=None
        For `given`: the unit of each column.
    """
    n_units = int(np.sum(strata_sizes))
    if given is not None:
        totals = given.sum(axis=1, dtype=np.float64)
        dtype = _weight_dtype(given.max(initial=0), totals.max(initial=0))
        for start in range(0, n_replicates, block):
            chunk = given[start : start + block]
            weights = np.zeros((chunk.shape[0], n_units), dtype=dtype)
            weights[:, unit_of_column] = chunk
            yield start, weights
        return
    offsets = np.cumsum([0, *strata_sizes])
    for start in range(0, n_replicates, block):
        n_rep = min(block, n_replicates - start)
        weights = np.empty((n_rep, n_units), dtype=np.uint8)
        for size, offset in zip(strata_sizes, offsets[:-1], strict=False):
            size, offset = int(size), int(offset)
            if size == 0:
                continue
            if size <= _CHUNK:
                counts = _small_stratum(rng, n_rep, size)
            else:
                counts = np.vstack([_large_stratum(rng, size) for _ in range(n_rep)])
            if weights.dtype == np.uint8 and counts.dtype != np.uint8 and counts.max() > 255:
                weights = weights.astype(_weight_dtype(n_units, n_units))
            weights[:, offset : offset + size] = counts
        yield start, weights


# Units per chunk of a large stratum: a chunk's counts stay in the cache
# while its draws are counted.
_CHUNK = 2**16


def _small_stratum(rng, n_rep, size):
    """Counts of `size` uniform draws among `size` units, for `n_rep` replicates."""
    # Draws in the narrowest type are generated several times faster.
    draws = rng.integers(0, size, size=(n_rep, size), dtype=_draw_type(size)).astype(np.intp)
    # One bincount for the whole block: replicate r's draws land in bins
    # r * size ... (r + 1) * size - 1.
    draws += (np.arange(n_rep) * size)[:, None]
    return np.bincount(draws.reshape(-1), minlength=n_rep * size).reshape(n_rep, size)


def _draw_type(size):
    return np.uint16 if size <= 2**16 else np.uint32 if size <= 2**32 else np.int64


def _large_stratum(rng, size):
    """Counts of `size` uniform draws among `size` units, chunk by chunk.

    The draws are first split among chunks of units (a multinomial with the
    chunks' shares), then drawn uniformly within each chunk: the same
    distribution as drawing among all units at once, with the counting of
    each chunk done in the cache.
    """
    n_chunks = -(-size // _CHUNK)
    sizes = np.full(n_chunks, _CHUNK)
    sizes[-1] = size - _CHUNK * (n_chunks - 1)
    per_chunk = rng.multinomial(size, sizes / size)
    counts = np.empty(size, dtype=np.uint8)
    for c in range(n_chunks):
        draws = rng.integers(0, sizes[c], size=per_chunk[c], dtype=np.uint16)
        chunk = np.bincount(draws.astype(np.intp), minlength=sizes[c])
        if chunk.max(initial=0) > np.iinfo(np.uint8).max:
            # Practically never (a unit drawn 256 times): recount wide.
            counts = counts.astype(np.int64)
        counts[c * _CHUNK : c * _CHUNK + sizes[c]] = chunk
    return counts[None, :]


def jackknife_blocks(n_units, n_groups, rng, block):
    """Yield delete-a-group jackknife weights, `n_groups` replicates in all.

    Units are split at random into `n_groups` groups of nearly equal size
    (each unit its own group when ``n_groups == n_units``); replicate ``g``
    gives weight 0 to group ``g`` and 1 to every other unit.
    """
    group = np.arange(n_units) % n_groups
    if n_groups < n_units:
        group = rng.permutation(group)
    for start in range(0, n_groups, block):
        ids = np.arange(start, min(start + block, n_groups))
        yield start, (group[None, :] != ids[:, None]).astype(np.uint8)
