"""The resampling methods on results built from counts, and their memory.

``global_test`` and ``at_prevalence`` resample the joint table's cells (one
row per record) or per-record sums (clustered rows): a comparison of
:class:`ComparisonCounts` gives the same answers as one of the arrays, and
a comparison keeps memory in proportion to the distinct cells.
"""

import tracemalloc
import warnings

import numpy as np
import pandas as pd
import pytest

from sklearn_precision_stats import compare_npv, compare_precision, compare_specificity
from sklearn_precision_stats.engine._accumulator import ComparisonCounts
from sklearn_precision_stats.exceptions import UndefinedStatisticWarning


def _data(n=600, n_classes=3, seed=0, repeats=1, labels=None):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    a = np.where(rng.random(n) < 0.7, y, rng.integers(0, n_classes, n))
    b = np.where(rng.random(n) < 0.6, y, rng.integers(0, n_classes, n))
    c = np.where(rng.random(n) < 0.5, a, rng.integers(0, n_classes, n))
    groups = None
    if repeats > 1:
        # Each record predicted `repeats` times (stacked repeated CV), rows shuffled.
        y, a, b, c = (np.tile(v, repeats) for v in (y, a, b, c))
        a = np.where(rng.random(y.shape[0]) < 0.2, rng.integers(0, n_classes, y.shape[0]), a)
        groups = np.tile(np.arange(n) * 7 + 3, repeats)
        order = rng.permutation(y.shape[0])
        y, a, b, c, groups = (v[order] for v in (y, a, b, c, groups))
    if labels is not None:
        y, a, b, c = (np.asarray(labels)[v] for v in (y, a, b, c))
    return y, {"ref": a, "b": b, "c": c}, groups


def _chunked(y, preds, groups, n_chunks=4):
    bounds = np.linspace(0, y.shape[0], n_chunks + 1).astype(int)
    counts = None
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        chunk = {name: p[lo:hi] for name, p in preds.items()}
        g = None if groups is None else groups[lo:hi]
        if counts is None:
            counts = ComparisonCounts.from_arrays(y[lo:hi], chunk, groups=g)
        else:
            counts.update(y[lo:hi], chunk, groups=g)
    return counts


def _quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        return func(*args, **kwargs)


@pytest.mark.parametrize("repeats", [1, 3])
@pytest.mark.parametrize("labels", [None, ["cat", "dog", "emu"]])
@pytest.mark.parametrize("compare", [compare_precision, compare_npv, compare_specificity])
@pytest.mark.parametrize("resampling", ["permutation", "bootstrap"])
def test_global_test_from_counts_equals_arrays(repeats, labels, compare, resampling):
    y, preds, groups = _data(repeats=repeats, labels=labels)
    from_arrays = _quiet(compare, y, preds, groups=groups)
    from_counts = _quiet(compare, _chunked(y, preds, groups))
    assert from_counts.table.equals(from_arrays.table) or np.allclose(
        from_counts.table.select_dtypes("number"),
        from_arrays.table.select_dtypes("number"),
        rtol=1e-12,
        equal_nan=True,
    )
    kwargs = dict(n_resamples=200, random_state=4, resampling=resampling)
    expected = _quiet(from_arrays.global_test, **kwargs)
    got = _quiet(from_counts.global_test, **kwargs)
    np.testing.assert_allclose(got.pvalue, expected.pvalue, rtol=1e-12)
    np.testing.assert_allclose(got.statistic, expected.statistic, rtol=1e-12)
    np.testing.assert_allclose(got.df, expected.df, rtol=1e-12)


@pytest.mark.parametrize("repeats", [1, 3])
@pytest.mark.parametrize("compare", [compare_precision, compare_npv])
def test_at_prevalence_from_counts_equals_arrays(repeats, compare):
    y, preds, groups = _data(repeats=repeats, seed=3)
    prevalence = {0: 0.2, 1: 0.5, 2: 0.3}
    from_arrays = _quiet(compare, y, preds, groups=groups)
    from_counts = _quiet(compare, _chunked(y, preds, groups))
    for ci in ("analytic", "bootstrap"):
        expected = _quiet(from_arrays.at_prevalence, prevalence, ci=ci, random_state=1)
        got = _quiet(from_counts.at_prevalence, prevalence, ci=ci, random_state=1)
        numeric = expected.select_dtypes("number").columns
        np.testing.assert_allclose(
            got[numeric].to_numpy(float), expected[numeric].to_numpy(float), rtol=1e-12
        )


def test_bias_reduced_from_clustered_counts_equals_arrays():
    y, preds, groups = _data(n=40, repeats=3, seed=5)
    from_arrays = _quiet(compare_precision, y, preds, groups=groups, cov_type="bias_reduced")
    from_counts = _quiet(compare_precision, _chunked(y, preds, groups), cov_type="bias_reduced")
    for column in ("wald_stat", "log_or_se", "ratio_se_log", "diff_se"):
        np.testing.assert_allclose(from_counts.table[column], from_arrays.table[column], rtol=1e-12)


def test_dtcompair_table_supports_every_method():
    counts = ComparisonCounts.from_table(
        {"diseased": [[50, 10], [5, 35]], "non.diseased": [[3, 12], [7, 78]]}
    )
    result = compare_precision(counts)
    y = np.repeat([1, 1, 1, 1, 0, 0, 0, 0], [50, 10, 5, 35, 3, 12, 7, 78])
    t1 = np.repeat([1, 0, 1, 0, 1, 0, 1, 0], [50, 10, 5, 35, 3, 12, 7, 78])
    t2 = np.repeat([1, 1, 0, 0, 1, 1, 0, 0], [50, 10, 5, 35, 3, 12, 7, 78])
    expected = compare_precision(y, {"test1": t1, "test2": t2})
    a = result.global_test(n_resamples=100, random_state=0)
    b = expected.global_test(n_resamples=100, random_state=0)
    assert a.pvalue == pytest.approx(b.pvalue, rel=1e-12)
    got = result.at_prevalence(0.1)
    np.testing.assert_allclose(got["ci_low"], expected.at_prevalence(0.1)["ci_low"], rtol=1e-12)


def _peak_of_resampling(n):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 4, n).astype(np.int8)
    a = np.where(rng.random(n) < 0.8, y, rng.integers(0, 4, n)).astype(np.int8)
    b = np.where(rng.random(n) < 0.7, y, rng.integers(0, 4, n)).astype(np.int8)
    result = compare_precision(y, {"a": a, "b": b})
    # At most 4^3 cells, a few bytes each.
    assert result._data.records.nbytes <= 4**3 * 8
    tracemalloc.start()
    result.global_test(n_resamples=300, random_state=0)
    result.at_prevalence({0: 0.1, 1: 0.2, 2: 0.3, 3: 0.4}, ci="bootstrap", n_resamples=300)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def test_resampling_memory_does_not_grow_with_the_records():
    small, large = _peak_of_resampling(20_000), _peak_of_resampling(1_000_000)
    # 50 times the records, the same memory: it is in the cells.
    assert large < 1.2 * small + 50_000
    assert large < 1_000_000  # under one byte per record


def test_clustered_comparison_keeps_bytes_per_record_not_per_row():
    sizes = {}
    for repeats in (2, 8, 20, 50):
        y, preds, groups = _data(n=2000, repeats=repeats, seed=2)
        result = _quiet(compare_precision, y, preds, groups=groups)
        sizes[repeats] = result._data.records.nbytes / result.n_records
    # Records of a few rows keep their rows' cells (two bytes a row, and at
    # most nine rows); larger ones per (record, class) counts in small
    # integer types: bounded bytes per record, whatever the rows per record.
    assert all(size < 40 for size in sizes.values())
    assert sizes[8] <= 2 * 8 and sizes[50] < 1.5 * sizes[20]


def test_records_kept_as_codes_when_the_table_is_too_large(monkeypatch):
    """Beyond the joint table's size the comparison keeps one-byte label codes;
    its distinct rows are the table's cells, so the answers are the same."""
    y, preds, _ = _data(n=500, seed=8, labels=["a", "b", "c"])
    table_based = _quiet(compare_precision, y, preds)
    from sklearn_precision_stats.engine import _pipeline

    monkeypatch.setattr(_pipeline, "_MAX_TABLE_CELLS", 8)
    code_based = _quiet(compare_precision, y, preds)
    assert code_based._data.records.nbytes == 4 * 500  # truth and 3 predictions, 1 byte each
    pd.testing.assert_frame_equal(code_based.table, table_based.table, rtol=1e-12)
    for resampling in ("permutation", "bootstrap"):
        kwargs = dict(n_resamples=100, random_state=2, resampling=resampling)
        a = _quiet(code_based.global_test, **kwargs)
        b = _quiet(table_based.global_test, **kwargs)
        np.testing.assert_allclose(a.pvalue, b.pvalue, rtol=1e-12)
    got = _quiet(code_based.at_prevalence, {"a": 0.3}, ci="bootstrap", random_state=0)
    expected = _quiet(table_based.at_prevalence, {"a": 0.3}, ci="bootstrap", random_state=0)
    np.testing.assert_allclose(got["ci_low"], expected["ci_low"], rtol=1e-12)
