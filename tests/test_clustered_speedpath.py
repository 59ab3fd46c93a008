"""Clustered sums (records with several rows) against a per-record brute force.

The engine sums, per (record, class), the rows of each one-vs-rest category
without sorting the keys; these tests recompute every sum record by record
with plain loops and check any order of the rows, very large records,
records touching every class, single-row records and the chunked layouts.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

from sklearn_precision_stats.engine import _counts
from sklearn_precision_stats.engine._accumulator import ComparisonCounts
from sklearn_precision_stats.engine._codes import encode_groups
from sklearn_precision_stats.engine._counts import (
    TN,
    categories_from_keys,
    clustered_statistics,
    correct_rows,
    pooled_counts_clustered,
    with_true_negatives,
)
from sklearn_precision_stats.paired import compare_accuracy, compare_npv, compare_precision
from sklearn_precision_stats.paired._compare import comparison_from_counts


def _brute_force(y, preds, records, n_values):
    """Per class: rows of each category per record, their sums and cross sums."""
    n_clf = len(preds)
    first = np.zeros((n_values, n_clf, 4))
    second = np.zeros((n_values, n_clf, n_clf, 4, 4))
    keys = {}
    for r in np.unique(records):
        rows = records == r
        for k in range(n_values):
            x = np.zeros((n_clf, 4))
            for c, p in enumerate(preds):
                truth, said = y[rows] == k, p[rows] == k
                x[c] = [
                    np.sum(truth & said),
                    np.sum(truth & ~said),
                    np.sum(~truth & said),
                    np.sum(~truth & ~said),
                ]
            first[k] += x
            second[k] += np.einsum("cu,dv->cduv", x, x)
            if x[:, :TN].any():
                keys[(int(r), k)] = x
    return first, second, keys


def _brute_pooled(y, preds, records):
    n_clf = len(preds)
    first = np.zeros((1, n_clf, 4))
    second = np.zeros((1, n_clf, n_clf, 4, 4))
    for r in np.unique(records):
        rows = records == r
        x = np.zeros((n_clf, 4))
        for c, p in enumerate(preds):
            right = np.sum(p[rows] == y[rows])
            x[c, 0], x[c, 1] = right, rows.sum() - right
        first[0] += x
        second[0] += np.einsum("cu,dv->cduv", x, x)
    return first, second


def _layouts(seed):
    """Labels and record ids: shuffled, large and single-row records mixed."""
    rng = np.random.default_rng(seed)
    n_values = 5
    # 60 records of 1 to 6 rows, one of 1000 rows, one touching every class
    # through its truth and predictions, and 40 single-row records.
    sizes = np.concatenate([rng.integers(1, 7, 60), [1000, 12], np.ones(40, dtype=int)])
    records = np.repeat(np.arange(sizes.shape[0]), sizes)
    n = records.shape[0]
    y = rng.integers(0, n_values, n)
    preds = [np.where(rng.random(n) < 0.7, y, rng.integers(0, n_values, n)) for _ in range(3)]
    every = records == 61
    y[every] = np.arange(12) % n_values
    preds[0][every] = (np.arange(12) + 1) % n_values
    # Rows in random order, and record ids that are neither compact nor sorted.
    order = rng.permutation(n)
    ids = rng.permutation(10 * sizes.shape[0])[: sizes.shape[0]] - 50
    return y[order], [p[order] for p in preds], ids[records[order]], n_values


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("small_blocks", [False, True])
def test_category_counts_match_per_record_brute_force(seed, small_blocks, monkeypatch):
    if small_blocks:
        # Many record blocks and row chunks, so records span chunks.
        monkeypatch.setattr(_counts, "_RECORD_BLOCK", 8)
        monkeypatch.setattr(_counts, "_ENTRY_CHUNK_ROWS", 64)
    y, preds, groups, n_values = _layouts(seed)
    codes, n_records = encode_groups(groups)
    assert n_records == np.unique(groups).shape[0]
    first, second, keys = _brute_force(y, preds, codes, n_values)

    counts, pooled, keys_out = clustered_statistics(
        y, preds, codes, n_records, n_values, return_keys=True
    )
    np.testing.assert_allclose(counts.first, first, rtol=1e-9, atol=0)
    np.testing.assert_allclose(counts.second, second, rtol=1e-9, atol=0)
    pooled_first, pooled_second = _brute_pooled(y, preds, codes)
    np.testing.assert_allclose(pooled.first, pooled_first, rtol=1e-9, atol=0)
    np.testing.assert_allclose(pooled.second, pooled_second, rtol=1e-9, atol=0)
    same, _ = clustered_statistics(y, preds, codes, n_records, n_values)
    np.testing.assert_array_equal(same.second, counts.second)

    x3, key_class, key_record, rows = keys_out
    x = with_true_negatives(x3, rows[key_record])
    got = {(int(r), int(k)): v for r, k, v in zip(key_record, key_class, x, strict=True)}
    assert len(got) == x.shape[0]  # every key once
    assert got.keys() == keys.keys()
    for key, value in keys.items():
        np.testing.assert_array_equal(got[key], value)
    np.testing.assert_array_equal(rows, np.bincount(codes))
    # The keys in any order give the same counts without a pass over the rows.
    shuffle = np.random.default_rng(seed).permutation(x.shape[0])
    again = categories_from_keys(x[shuffle], key_class[shuffle], rows, n_values)
    np.testing.assert_allclose(again.first, first, rtol=1e-9, atol=0)
    np.testing.assert_allclose(again.second, second, rtol=1e-9, atol=0)
    from_keys = pooled_counts_clustered(rows, correct_rows(x, key_record, n_records))
    np.testing.assert_allclose(from_keys.second, pooled_second, rtol=1e-9, atol=0)


def test_more_classifiers_than_bits_of_a_word():
    # 70 classifiers: the per-entry flags take two 64-bit words.
    rng = np.random.default_rng(5)
    n, n_values = 150, 3
    y = rng.integers(0, n_values, n)
    preds = [np.where(rng.random(n) < 0.6, y, rng.integers(0, n_values, n)) for _ in range(70)]
    codes, n_records = encode_groups(rng.integers(0, 40, n))
    first, second, _ = _brute_force(y, preds, codes, n_values)
    counts, _ = clustered_statistics(y, preds, codes, n_records, n_values)
    np.testing.assert_allclose(counts.first, first, rtol=1e-9, atol=0)
    np.testing.assert_allclose(counts.second, second, rtol=1e-9, atol=0)


@pytest.mark.parametrize(
    "groups",
    [
        np.array([3, 3, 7, 5, 7, 3]),  # gaps in the range
        np.array([2, 0, 1, 1, 0, 2]),  # every id of the range
        np.array([2**63 + 5, 2**63 + 1, 2**63 + 5, 7, 7, 2**63 + 1], dtype=np.uint64),
        np.array(["b", "a", "c", "a", "b", "b"]),
        np.array([1.5, -2.0, 1.5, 0.0, 0.0, 3.0]),
        np.array([-(2**62), 2**62, 0, 0, 2**62, -(2**62)]),
    ],
)
def test_encode_groups_codes_in_sorted_order_of_the_ids(groups):
    codes, n_records = encode_groups(groups)
    expected_values, expected = np.unique(groups, return_inverse=True)
    assert n_records == expected_values.shape[0]
    np.testing.assert_array_equal(codes, expected.ravel())
    assert not np.shares_memory(codes, groups)


def test_encode_groups_never_returns_the_callers_array():
    groups = np.array([0, 1, 1, 2], dtype=np.intp)
    codes, n_records = encode_groups(groups)
    assert n_records == 3 and not np.shares_memory(codes, groups)


def _quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kwargs)


@pytest.mark.parametrize("compare", [compare_precision, compare_npv, compare_accuracy])
def test_row_order_and_counts_path_do_not_change_the_comparison(compare):
    y, preds, groups, _ = _layouts(3)
    named = {f"m{c}": p for c, p in enumerate(preds)}
    expected = _quiet(compare, y, named, groups=groups)
    order = np.argsort(groups, kind="stable")  # the same rows, records contiguous
    contiguous = _quiet(
        compare, y[order], {k: v[order] for k, v in named.items()}, groups=groups[order]
    )
    pd.testing.assert_frame_equal(contiguous.table, expected.table, check_exact=False, rtol=1e-12)
    counts = ComparisonCounts.from_arrays(y, named, groups=groups)
    metric = compare.__name__.removeprefix("compare_")
    counted = _quiet(comparison_from_counts, counts, metric)
    pd.testing.assert_frame_equal(counted.table, expected.table, check_exact=False, rtol=1e-12)
