"""Counts of Dask arrays and Dask DataFrame columns, without materialising them.

Each block (partition) is counted where it lives into a
:class:`~._accumulator.ComparisonCounts`; the counts are then merged pairwise
in a tree (``dask.delayed``), on whatever scheduler is active, including a
``distributed.Client``. Only the counts travel: a joint table with one row
per record, per-record sums with clustered rows, which the merge combines by
record id, so a record's rows may span blocks.
"""

from __future__ import annotations

from collections.abc import Mapping

from ._accumulator import ComparisonCounts

__all__ = ["counts_from_dask", "is_dask_collection"]


def is_dask_collection(obj) -> bool:
    """True for Dask arrays, Series and other Dask collections (no Dask import)."""
    if "dask" not in type(obj).__module__:
        return False
    from dask import is_dask_collection as check

    return check(obj)


def _blocks(obj, name):
    """The delayed 1-D blocks of a Dask array or Series."""
    import dask.array as da
    import dask.dataframe as dd

    if isinstance(obj, (dd.Series, dd.Index)):
        return list(obj.to_delayed()), None
    if isinstance(obj, dd.DataFrame):
        raise ValueError(f"{name} is a Dask DataFrame; pass one of its columns (e.g. frame['y']).")
    if isinstance(obj, da.Array):
        if obj.ndim != 1:
            raise ValueError(
                f"{name} must be 1-D (one label per row), got a Dask array of shape {obj.shape}."
            )
        return None, obj
    raise ValueError(f"{name} is a {type(obj).__name__}; pass a Dask array or Series.")


def _aligned_blocks(named):
    """Delayed blocks of each input, aligned block by block.

    Dask arrays are rechunked to the chunks of the first one; Series must
    come from the same DataFrame (the same partitions).
    """
    import dask.array as da

    kinds = {name: _blocks(obj, name) for name, obj in named.items()}
    arrays = {name: arr for name, (_, arr) in kinds.items() if arr is not None}
    series = {name: parts for name, (parts, arr) in kinds.items() if arr is None}
    if arrays and series:
        raise ValueError(
            "mix of Dask arrays and Dask Series: convert the Series with "
            "series.to_dask_array(lengths=True), or pass columns of one DataFrame."
        )
    if series:
        counts = {len(parts) for parts in series.values()}
        if len(counts) != 1:
            raise ValueError(
                "the Dask Series have different numbers of partitions; pass columns of "
                "one DataFrame."
            )
        return series
    first = next(iter(arrays.values()))
    if any(arr.shape != first.shape for arr in arrays.values()):
        shapes = {name: arr.shape for name, arr in arrays.items()}
        raise ValueError(f"the Dask arrays have different lengths: {shapes}.")
    out = {}
    for name, arr in arrays.items():
        if arr.chunks != first.chunks:
            arr = arr.rechunk(first.chunks)
        out[name] = list(da.Array.to_delayed(arr).ravel())
    return out


def _count_block(names, clustered, y, *rest):
    preds = dict(zip(names, rest[: len(names)], strict=True))
    groups = rest[len(names)] if clustered else None
    counts = ComparisonCounts(names, clustered=clustered)
    return counts.update(y, preds, groups=groups)


def _merge(a, b):
    return a.merge(b)


def counts_from_dask(y_true, y_preds, *, groups=None, split_every=8) -> ComparisonCounts:
    """Count Dask inputs block by block and merge the counts in a tree.

    Parameters
    ----------
    y_true : dask.array.Array or dask.dataframe.Series
    y_preds : dict of str -> Dask array or Series
    groups : Dask array or Series, default=None
        Record ids (clustered rows); a record's rows may span blocks.
    split_every : int, default=8
        Counts merged per node of the reduction tree.

    Returns
    -------
    ComparisonCounts

    Examples
    --------
    >>> import dask.array as da
    >>> from sklearn_precision_stats.engine._dask import counts_from_dask
    >>> y = da.from_array([0, 1, 1, 0, 1, 0], chunks=2)
    >>> a = da.from_array([0, 1, 0, 0, 1, 1], chunks=3)
    >>> b = da.from_array([1, 1, 1, 0, 0, 0], chunks=2)
    >>> counts_from_dask(y, {"a": a, "b": b}, split_every=2).n_rows
    6
    """
    import dask

    items = list(y_preds.items()) if isinstance(y_preds, Mapping) else list(y_preds)
    names = [str(name) for name, _ in items]
    named = {"y_true": y_true}
    named.update({f"y_preds[{name!r}]": arr for name, arr in items})
    if groups is not None:
        named["groups"] = groups
    blocks = _aligned_blocks(named)
    columns = list(blocks.values())
    clustered = groups is not None
    count = dask.delayed(_count_block, pure=True)
    merge = dask.delayed(_merge, pure=True)
    level = [
        count(names, clustered, *(column[i] for column in columns)) for i in range(len(columns[0]))
    ]
    split_every = max(int(split_every), 2)
    while len(level) > 1:
        level = [
            _tree_node(merge, level[i : i + split_every]) for i in range(0, len(level), split_every)
        ]
    (result,) = dask.compute(level[0])
    return result


def _tree_node(merge, parts):
    node = parts[0]
    for part in parts[1:]:
        node = merge(node, part)
    return node
