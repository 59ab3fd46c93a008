"""Dask arrays and DataFrame columns, counted on a real distributed cluster."""

import warnings

import numpy as np
import pandas as pd
import pytest

from sklearn_precision_stats.engine._dask import counts_from_dask, is_dask_collection
from sklearn_precision_stats.paired import compare_accuracy, compare_precision, compare_recall
from sklearn_precision_stats.paired._compare import comparison_from_counts

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


def _quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kwargs)


def _assert_same(result, expected):
    pd.testing.assert_frame_equal(result.table, expected.table, check_exact=True)
    pd.testing.assert_frame_equal(result.omnibus, expected.omnibus, check_exact=True)
    assert (result.n_rows, result.n_records) == (expected.n_rows, expected.n_records)


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
        expected = _quiet(func, y, preds, groups=groups, reference="b")
        _assert_same(_quiet(comparison_from_counts, counts, metric, reference="b"), expected)


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
    expected = _quiet(compare_recall, y, preds, groups=groups)
    _assert_same(_quiet(comparison_from_counts, counts, "recall"), expected)


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
