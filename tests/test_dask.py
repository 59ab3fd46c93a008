"""Dask arrays and DataFrame columns, counted on a real distributed cluster."""

import numpy as np
import pandas as pd
import pytest

from sklearn_precision_stats.engine._dask import counts_from_dask, is_dask_collection
from sklearn_precision_stats.paired import compare_accuracy, compare_precision, compare_recall
from sklearn_precision_stats.paired._compare import comparison_from_counts

from .conftest import assert_same_comparison, quiet

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def _data(n=3000, n_classes=4, seed=0, strings=False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    preds = {
        name: np.where(rng.random(n) < p, y, rng.integers(0, n_classes, n))
        for name, p in (("a", 0.8), ("b", 0.7), ("c", 0.6))
    }
    if strings:
        names = np.array(["north", "south", "east", "west"])
        y, preds = names[y], {k: names[v] for k, v in preds.items()}
    # Records of 1 to 3 consecutive rows, and some far apart: spans partitions.
    groups = np.cumsum(rng.random(n) < 0.5)
    groups[::97] = groups[-1] + 1
    return y, preds, groups


@pytest.mark.parametrize("strings", [False, True])
@pytest.mark.parametrize("clustered", [False, True])
def test_dask_arrays_equal_in_memory(client, strings, clustered):
    y, preds, groups = _data(strings=strings)
    groups = groups if clustered else None
    # Different chunks per array: they are aligned on the first one's.
    dy = da.from_array(y, chunks=700)
    dpreds = {k: da.from_array(v, chunks=500 + 100 * i) for i, (k, v) in enumerate(preds.items())}
    dgroups = None if groups is None else da.from_array(groups, chunks=900)
    counts = counts_from_dask(dy, dpreds, groups=dgroups, split_every=2)
    assert counts.clustered is clustered
    for metric, func in (("precision", compare_precision), ("accuracy", compare_accuracy)):
        expected = quiet(func, y, preds, groups=groups, reference="b")
        assert_same_comparison(
            quiet(comparison_from_counts, counts, metric, reference="b"), expected
        )


def test_dask_dataframe_columns_with_records_across_partitions(client):
    y, preds, groups = _data(seed=1)
    frame = pd.DataFrame({"y": y, **preds, "record": groups})
    ddf = dd.from_pandas(frame, npartitions=6)
    assert is_dask_collection(ddf["y"]) and not is_dask_collection(y)
    counts = counts_from_dask(
        ddf["y"], {k: ddf[k] for k in preds}, groups=ddf["record"], split_every=3
    )
    # The records split across partitions are counted once each.
    assert counts.n_records == np.unique(groups).shape[0] < counts.n_rows
    expected = quiet(compare_recall, y, preds, groups=groups)
    assert_same_comparison(quiet(comparison_from_counts, counts, "recall"), expected)


def test_dask_input_errors(client):
    y, preds, _ = _data(n=100)
    dy = da.from_array(y, chunks=30)
    with pytest.raises(ValueError, match="different lengths"):
        counts_from_dask(dy, {"a": da.from_array(preds["a"][:90], chunks=30), "b": dy})
    frame = dd.from_pandas(pd.DataFrame({"y": y, **preds}), npartitions=2)
    with pytest.raises(ValueError, match="mix of Dask arrays and Dask Series"):
        counts_from_dask(dy, {"a": frame["a"], "b": frame["b"]})
    with pytest.raises(ValueError, match="pass one of its columns"):
        counts_from_dask(frame, {"a": frame["a"], "b": frame["b"]})
    bad = da.from_array(np.where(np.arange(100) == 42, 0.5, preds["a"]), chunks=30)
    with pytest.raises(ValueError, match=r"y_preds\['a'\] has continuous values"):
        counts_from_dask(dy, {"a": bad, "b": da.from_array(preds["b"], chunks=30)})


def test_unknown_chunk_sizes_equal_in_memory(client):
    y, preds, groups = _data(n=2000, seed=2)
    keep = np.arange(2000) % 7 != 3
    mask = da.from_array(keep, chunks=300)
    # A boolean mask leaves chunks of unknown size; the columns of a frame's
    # .values too. The same mask: blocks pair up; other chunks: sizes computed.
    dy = da.from_array(y, chunks=300)[mask]
    dpreds = {k: da.from_array(v, chunks=300)[mask] for k, v in preds.items()}
    dpreds["c"] = da.from_array(preds["c"], chunks=450)[da.from_array(keep, chunks=450)]
    dgroups = da.from_array(groups, chunks=300)[mask]
    assert np.isnan(dy.chunks[0][0])
    kept = {k: v[keep] for k, v in preds.items()}
    expected = quiet(compare_precision, y[keep], kept, groups=groups[keep])
    assert_same_comparison(quiet(compare_precision, dy, dpreds, groups=dgroups), expected)
    frame = dd.from_pandas(pd.DataFrame({"y": y, **preds}), npartitions=4)
    values = {k: frame[k].values for k in preds}
    assert_same_comparison(
        quiet(compare_recall, frame["y"].values, values), quiet(compare_recall, y, preds)
    )


def test_frame_of_predictions_and_differently_partitioned_columns(client):
    y, preds, groups = _data(n=1500, seed=3)
    frame = pd.DataFrame({"y": y, **preds, "record": groups})
    one = dd.from_pandas(frame, npartitions=4)
    other = dd.from_pandas(frame, chunksize=200)  # other divisions, same index
    assert one.divisions != other.divisions
    expected = quiet(compare_precision, frame["y"], frame[list(preds)], groups=frame["record"])
    got = quiet(compare_precision, one["y"], other[list(preds)], groups=one["record"])
    assert_same_comparison(got, expected)
    # As with pandas Series, rows are paired by index: another index is an error.
    moved = dd.from_pandas(frame.set_index(frame.index * 2), npartitions=4)
    with pytest.raises(ValueError, match="different indexes"):
        compare_precision(one["y"], {"a": moved["a"], "b": one["b"]})
    inside = dd.from_pandas(frame.set_index(np.r_[0:1000, 1001:1500, 1499]), npartitions=3)
    with pytest.raises(ValueError, match="different indexes"):
        compare_precision(one["y"], {"a": inside["a"], "b": one["b"]})


def test_column_vectors_and_in_memory_predictions_beside_dask(client):
    y, preds, _ = _data(n=900, seed=4)
    dy = da.from_array(y[:, None], chunks=(200, 1))
    mixed = {"a": da.from_array(preds["a"], chunks=250), "b": preds["b"], "c": list(preds["c"])}
    assert_same_comparison(quiet(compare_precision, dy, mixed), quiet(compare_precision, y, preds))


def test_errors_in_a_block_name_the_block_and_its_first_row(client):
    y, preds, _ = _data(n=1000, seed=5)
    bad = np.where(np.arange(1000) == 730, np.nan, preds["a"])
    dpreds = {"a": da.from_array(bad, chunks=100), "b": da.from_array(preds["b"], chunks=100)}
    with pytest.raises(ValueError, match=r"NaN at row 30.*block 7 of the Dask inputs, which st"):
        compare_precision(da.from_array(y, chunks=100), dpreds)
    with pytest.raises(ValueError, match="y_preds must hold at least two classifiers"):
        compare_precision(da.from_array(y, chunks=100), {"a": dpreds["a"]})


def test_blocks_of_unknown_sizes_that_differ_say_so(client):
    y, preds, _ = _data(n=1000, seed=6)
    dy = da.from_array(y, chunks=100)
    a = da.from_array(preds["a"], chunks=100)
    # As many blocks, cut by different masks: different lengths.
    with pytest.raises(ValueError, match=r"rows but y_true has .*compute_chunk_sizes"):
        compare_precision(dy[dy >= 0], {"a": a[a > 0], "b": dy[dy >= 0]})
