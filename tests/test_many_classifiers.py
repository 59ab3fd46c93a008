"""Many classifiers: counted through small groups, never the joint table of all.

The per-class statistics need only agreement counts of single classifiers and
of pairs of classifiers with the truth, so the comparison of many
classifiers counts one small table per group of classifiers, the groups
holding every pair. The pairwise and omnibus tests are checked against
statsmodels GEE fitted live, and the counts against the joint table counted
directly.
"""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

from sklearn_precision_stats import compare_accuracy, compare_precision
from sklearn_precision_stats.engine import _counts, _pipeline, _tables
from sklearn_precision_stats.engine._counts import (
    agreement_from_joint_table,
    agreement_from_pairs,
)

from .conftest import make_correlated_predictions
from .test_gee_agreement import _gee_tests

RTOL = 1e-9


def _joint_table(y, preds, n_values):
    """Records per (truth, pred_1, ..., pred_C) cell, with np.unique and a reshape."""
    cells, counts = np.unique(np.stack([y, *preds], axis=1), axis=0, return_counts=True)
    table = np.zeros((n_values,) * (1 + len(preds)), dtype=np.int64)
    table[tuple(cells.T)] = counts
    return table


# Largest group table: the default; 3 classifiers of 3 classes (2 of 4, 5 of
# 2); none, so that every pair counts agreement codes.
MAX_PAIR_CELLS = pytest.mark.parametrize(
    "max_pair_cells", [2**16, 81, 0], ids=["groups", "small-groups", "agreement-codes"]
)


@MAX_PAIR_CELLS
@pytest.mark.parametrize(
    ("n_values", "n_clf", "n"),
    [
        (3, 2, 500),
        (3, 4, 2000),
        (5, 3, 70_000),
        (2, 6, 300),
        (1, 3, 10),
        (4, 2, 1),
        (3, 7, 3000),
        (2, 9, 500),
        (10, 6, 140_000),
        (2, 12, 2000),
    ],
)
def test_pairs_give_the_agreement_counts_of_the_joint_table(
    monkeypatch, max_pair_cells, n_values, n_clf, n
):
    monkeypatch.setattr(_counts, "_MAX_PAIR_CELLS", max_pair_cells)
    rng = np.random.default_rng(n_values * 100 + n_clf)
    y = rng.integers(0, n_values, n)
    preds = [np.where(rng.random(n) < 0.6, y, rng.integers(0, n_values, n)) for _ in range(n_clf)]
    expected = agreement_from_joint_table(_joint_table(y, preds, n_values), n_clf)
    got = agreement_from_pairs(y, preds, n_values)
    for name, a, b in zip(expected._fields, got, expected, strict=True):
        np.testing.assert_array_equal(np.asarray(a, dtype=float), b, err_msg=name)


@pytest.mark.parametrize("n_clf", range(1, 26))
@pytest.mark.parametrize("size", [2, 3, 4, 6])
def test_groups_hold_every_pair_of_classifiers(n_clf, size):
    groups = _counts._pair_cover(n_clf, size)
    assert all(list(g) == sorted(set(g)) and len(g) == min(size, n_clf) for g in groups)
    held = {pair for g in groups for pair in itertools.combinations(g, 2)}
    assert held == set(itertools.combinations(range(n_clf), 2))
    assert set().union(*groups) == set(range(n_clf))


@MAX_PAIR_CELLS
def test_no_rows_and_no_classes_give_empty_counts(monkeypatch, max_pair_cells):
    monkeypatch.setattr(_counts, "_MAX_PAIR_CELLS", max_pair_cells)
    empty = np.empty(0, dtype=np.intp)
    got = agreement_from_pairs(empty, [empty] * 3, 0)
    assert got.n == 0
    assert got.truth.shape == (0,) and got.pred.shape == got.truth_pred.shape == (0, 3)
    assert got.pred_pred.shape == got.truth_pred_pred.shape == (0, 3, 3)


@MAX_PAIR_CELLS
def test_many_classifiers_match_statsmodels_gee(monkeypatch, max_pair_cells):
    # 5 classifiers of 8 classes: a joint table of 8^6 cells, beyond the
    # table a comparison counts, so the pairs are counted.
    monkeypatch.setattr(_counts, "_MAX_PAIR_CELLS", max_pair_cells)
    y, preds, _ = make_correlated_predictions(400, 8, 5, seed=3)
    assert _pipeline._MAX_TABLE_CELLS < 8**6
    names = list(preds)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = compare_precision(y, preds)
    assert result._data.records.nbytes == 6 * 400  # one byte per label: codes, not a table
    groups = np.arange(y.size)
    for label in result.classes[:3]:
        for other in names[1:]:
            ref = _gee_tests(y, preds, groups, label, [names[0], other])
            row = result.get(label, other)
            np.testing.assert_allclose(row["wald_stat"], ref["wald"], rtol=RTOL)
            np.testing.assert_allclose(row["gs_stat"], ref["gs"], rtol=RTOL)
        omni = result.omnibus.set_index("class").loc[label]
        ref = _gee_tests(y, preds, groups, label, names)
        np.testing.assert_allclose(omni["wald_stat"], ref["wald"], rtol=RTOL)
        np.testing.assert_allclose(omni["gs_stat"], ref["gs"], rtol=RTOL)


@pytest.mark.parametrize("func", [compare_precision, compare_accuracy])
@pytest.mark.parametrize("labels", [None, ["ant", "bee", "cat", "dog", "eel"]])
def test_pairs_and_joint_table_give_identical_results(monkeypatch, func, labels):
    y, preds, _ = make_correlated_predictions(3000, 5, 7, seed=5, labels=labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        by_pairs = func(y, preds)
        monkeypatch.setattr(_pipeline, "table_cells", lambda n_clf, n_rows: 5**8)
        by_table = func(y, preds)
    assert by_table._data.records.nbytes < by_pairs._data.records.nbytes
    pd.testing.assert_frame_equal(by_pairs.table, by_table.table, check_exact=True)
    pd.testing.assert_frame_equal(by_pairs.omnibus, by_table.omnibus, check_exact=True)


def test_inputs_stay_the_callers():
    # The codes the records keep are the engine's own, never the inputs.
    y, preds, _ = make_correlated_predictions(2000, 10, 5, seed=7)
    before = {name: p.copy() for name, p in preds.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = compare_precision(y, preds)
    stored = result._data.records
    assert stored.nbytes == 6 * 2000
    for name, p in preds.items():
        np.testing.assert_array_equal(p, before[name])
        assert p.flags.writeable
    assert y.flags.writeable
    inputs = [y, *preds.values()]
    assert not any(np.shares_memory(a, b) for a in stored._arrays.values() for b in inputs)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.int64, np.uint64])
def test_small_integer_labels_are_their_own_one_byte_codes(dtype):
    rng = np.random.default_rng(11)
    arrays = [rng.integers(1, 12, 300_000).astype(dtype) for _ in range(4)]
    codes, values = _tables.integer_codes(arrays)
    assert values.tolist() == list(range(max(int(a.max()) for a in arrays) + 1))
    for code, a in zip(codes, arrays, strict=True):
        assert code.dtype == np.uint8
        np.testing.assert_array_equal(code, a)
    flags = [rng.random(10) < 0.5 for _ in range(3)]
    codes, values = _tables.integer_codes(flags)
    assert values.dtype == bool and len(values) <= 2
    np.testing.assert_array_equal(codes[1], flags[1])


@pytest.mark.parametrize(
    "labels",
    [
        np.array([0, 1, -1]),
        np.array([-100, 100, 27], dtype=np.int8),
        np.array([2**64 - 1, 2**64 - 256], dtype=np.uint64),
        np.array([-(2**63), -(2**63) + 255]),
        np.array([1000, 1001, 1255]),
    ],
)
def test_integer_labels_of_a_small_range_are_codes_from_their_minimum(labels):
    # The range is found in the last block of rows too.
    rows = 300_000
    arrays = [np.full(rows, labels[0]) for _ in range(3)]
    arrays[2][-labels.shape[0] :] = labels
    codes, values = _tables.integer_codes(arrays)
    assert values.dtype == labels.dtype
    for code, a in zip(codes, arrays, strict=True):
        assert [int(v) for v in values[code[-3:]]] == [int(v) for v in a[-3:]]
    assert int(values[0]) == min(labels.tolist())


@pytest.mark.parametrize(
    "bad",
    [
        np.array([0, 1, 256]),
        np.array([-1, 255]),
        np.array([0, 2**63], dtype=np.uint64),
        np.array([0.0, 1.0]),
        np.array(["a", "b", "a"]),
    ],
)
def test_other_labels_are_left_to_the_encoder(bad):
    # A label outside a range of 256 values in the last block of rows is found too.
    rows = 300_000
    arrays = [np.zeros(rows, dtype=bad.dtype) for _ in range(3)]
    arrays[2][-bad.shape[0] :] = bad
    assert _tables.integer_codes(arrays) is None


@pytest.mark.parametrize("n_clf", [4, 5])
def test_integer_and_string_labels_give_identical_results(n_clf):
    # Integer labels are their own codes (the class 0 unused here), strings
    # are encoded; the joint table (4 classifiers) or the groups' tables
    # (5) give the same numbers either way.
    y, preds, _ = make_correlated_predictions(5000, 10, n_clf, seed=13)
    names = np.array([f"class {k:02d}" for k in range(1, 11)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        by_integers = compare_precision(y + 1, {k: p + 1 for k, p in preds.items()})
        by_strings = compare_precision(names[y], {k: names[p] for k, p in preds.items()})
    for frame in ("table", "omnibus"):
        a, b = getattr(by_integers, frame), getattr(by_strings, frame)
        np.testing.assert_array_equal(np.unique(a["class"]), np.arange(1, 11))
        pd.testing.assert_frame_equal(
            a.drop(columns="class"), b.drop(columns="class"), check_exact=True
        )
    # The records kept for resampling give the same global test.
    a = by_integers.global_test(n_resamples=100, random_state=0)
    b = by_strings.global_test(n_resamples=100, random_state=0)
    np.testing.assert_array_equal(a.statistic, b.statistic)
    np.testing.assert_array_equal(a.pvalue, b.pvalue)
