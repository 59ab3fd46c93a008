"""Counts of Dask arrays and Dask DataFrame columns, without materialising them.

Each block (partition) is counted where it lives into a
:class:`~._accumulator.ComparisonCounts`; the counts are then merged pairwise
in a tree (``dask.delayed``), on whatever scheduler is active, including a
``distributed.Client``. Only the counts travel: a joint table with one row
per record, per-record sums with clustered rows, which the merge combines by
record id, so a record's rows may span blocks.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping

from ..utils._validation import _as_label_array, _check_named
from ._accumulator import ComparisonCounts

__all__ = ["counts_from_dask", "is_dask_collection"]


def is_dask_collection(obj) -> bool:
    """True for Dask arrays, Series and other Dask collections (no Dask import)."""
    if "dask" not in type(obj).__module__:
        return False
    from dask import is_dask_collection as check

    return check(obj)


def _blocks(obj, name):
    """The delayed 1-D blocks of a Dask Series, or the 1-D Dask array."""
    import dask.array as da
    import dask.dataframe as dd

    if isinstance(obj, (dd.Series, dd.Index)):
        return list(obj.to_delayed()), None
    if isinstance(obj, dd.DataFrame):
        raise ValueError(f"{name} is a Dask DataFrame; pass one of its columns (e.g. frame['y']).")
    if isinstance(obj, da.Array):
        if obj.ndim == 2 and obj.shape[1] == 1:
            # A column vector, as scikit-learn's column_or_1d accepts.
            obj = obj[:, 0]
        if obj.ndim != 1:
            raise ValueError(
                f"{name} must be 1-D (one label per row), got a Dask array of shape {obj.shape}."
            )
        return None, obj
    if is_dask_collection(obj):
        raise ValueError(f"{name} is a {type(obj).__name__}; pass a Dask array or Series.")
    # An in-memory array beside Dask ones: split like them.
    return _blocks(da.from_array(_as_label_array(obj, name)), name)


def _has_known_chunks(arr):
    return not any(math.isnan(size) for size in arr.chunks[0])


def _aligned_blocks(named):
    """Delayed blocks of each input, aligned block by block, and where each block starts.

    Dask arrays are rechunked to the chunks of the first one; arrays of
    unknown chunk sizes (a boolean mask, ``frame.values``) are paired block
    by block when they have as many blocks, else their sizes are computed
    first. Series are repartitioned to the divisions of the first one;
    their blocks' indexes are then checked as pandas Series' are.

    Returns
    -------
    blocks : dict of name -> list of Delayed
    starts : list of int or None
        The first row of each block, None where unknown.
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
        return _aligned_series({name: named[name] for name in series}), None
    first = next(iter(arrays.values()))
    n_blocks = {arr.numblocks[0] for arr in arrays.values()}
    if not all(_has_known_chunks(arr) for arr in arrays.values()) and len(n_blocks) > 1:
        arrays = {
            name: arr if _has_known_chunks(arr) else arr.compute_chunk_sizes()
            for name, arr in arrays.items()
        }
        first = next(iter(arrays.values()))
    if all(_has_known_chunks(arr) for arr in arrays.values()):
        if any(arr.shape != first.shape for arr in arrays.values()):
            shapes = {name: arr.shape for name, arr in arrays.items()}
            raise ValueError(f"the Dask arrays have different lengths: {shapes}.")
        arrays = {
            name: arr if arr.chunks == first.chunks else arr.rechunk(first.chunks)
            for name, arr in arrays.items()
        }
        starts = [0, *itertools.accumulate(first.chunks[0])][:-1]
    else:  # as many blocks of unknown sizes: each block's lengths are checked
        starts = None
    return {name: list(da.Array.to_delayed(arr).ravel()) for name, arr in arrays.items()}, starts


def _aligned_series(named):
    """Delayed partitions of Dask Series, on the divisions of the first one."""
    first = next(iter(named.values()))
    out = {}
    for name, obj in named.items():
        if obj.divisions != first.divisions:
            if not (first.known_divisions and obj.known_divisions):
                raise ValueError(
                    f"{name} is partitioned unlike y_true and their divisions are unknown; "
                    "pass columns of one DataFrame, or set an index (frame.set_index) "
                    "or call frame.reset_index() on both."
                )
            ends = (obj.divisions[0], obj.divisions[-1])
            if ends != (first.divisions[0], first.divisions[-1]):
                raise ValueError(
                    f"y_true and {name} are Dask Series with different indexes (from "
                    f"{first.divisions[0]!r} to {first.divisions[-1]!r} and from {ends[0]!r} "
                    f"to {ends[1]!r}); their rows are paired by index within partitions, as "
                    "pandas Series' are. Pass columns of one DataFrame."
                )
            obj = obj.repartition(divisions=first.divisions)
        out[name] = list(obj.to_delayed())
    return out


def _count_block(names, clustered, where, y, *rest):
    preds = dict(zip(names, rest[: len(names)], strict=True))
    groups = rest[len(names)] if clustered else None
    counts = ComparisonCounts(names, clustered=clustered)
    try:
        return counts.update(y, preds, groups=groups)
    except ValueError as exc:
        # The rows of a message are the block's; say which block.
        raise ValueError(f"{exc} (In {where}.)") from exc


def _merge(a, b):
    return a.merge(b)


def counts_from_dask(y_true, y_preds, *, groups=None, split_every=8) -> ComparisonCounts:
    """Count Dask inputs block by block and merge the counts in a tree.

    Parameters
    ----------
    y_true : dask.array.Array or dask.dataframe.Series
    y_preds : dict of str -> Dask array or Series, or Dask DataFrame
        A DataFrame holds one column per classifier.
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
    import dask.dataframe as dd

    if isinstance(y_preds, dd.DataFrame):
        items = [(name, y_preds[name]) for name in y_preds.columns]
    else:
        items = list(y_preds.items()) if isinstance(y_preds, Mapping) else list(y_preds)
    _check_named(items, "y_preds", "add the predictions of a reference classifier")
    names = [str(name) for name, _ in items]
    named = {"y_true": y_true}
    named.update({f"y_preds[{name!r}]": arr for name, arr in items})
    if groups is not None:
        named["groups"] = groups
    blocks, starts = _aligned_blocks(named)
    columns = list(blocks.values())
    clustered = groups is not None
    count = dask.delayed(_count_block, pure=True)
    merge = dask.delayed(_merge, pure=True)
    level = [
        count(
            names,
            clustered,
            f"block {i} of the Dask inputs"
            + (
                ", whose chunk sizes are unknown: blocks are paired in order "
                "(call .compute_chunk_sizes() on arrays cut differently)"
                if starts is None
                else f", which starts at row {starts[i]}"
            ),
            *(column[i] for column in columns),
        )
        for i in range(len(columns[0]))
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
