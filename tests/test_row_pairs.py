"""Clustered statistics from pairs of rows, against a per-record brute force.

Records of a few rows and few cells take the pair path, in any order of the
rows; every sum it gives must equal, to the last bit, the per-record brute
force and the general (record, class) path, and a comparison must not
depend on which path counted it nor on the order of the rows.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_precision_stats.engine import _row_pairs
from sklearn_precision_stats.engine._codes import EncodedPredictions
from sklearn_precision_stats.engine._counts import clustered_statistics
from sklearn_precision_stats.engine._units import StoredRecords
from sklearn_precision_stats.paired import compare_accuracy, compare_npv, compare_precision

from .test_clustered_speedpath import _brute_force, _brute_pooled


@pytest.fixture(autouse=True, scope="module")
def _tables_of_any_size():
    # These tests check the sums of the pair path on small inputs, which by
    # default the general path counts (its tables would outweigh the rows).
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_row_pairs, "_MAX_TABLE_ROWS", np.inf)
        yield


def _encoded(y, preds, n_values):
    return EncodedPredictions(y, list(preds), np.arange(n_values))


def _rows_of_slots(slots, n_values, n_clf):
    """The rows (truth, predictions, record codes) behind `slots`."""
    n_cells = n_values ** (n_clf + 1)
    record, _ = np.nonzero(slots < n_cells)
    labels = np.unravel_index(slots[slots < n_cells].astype(np.intp), (n_values,) * (n_clf + 1))
    return labels[0], list(labels[1:]), record


@st.composite
def _runs(draw):
    """Labels of records in runs (in any order of the records) or spread out."""
    n_values = draw(st.integers(1, 5))
    n_clf = draw(st.integers(1, 3))
    sizes = draw(st.lists(st.integers(1, 30), min_size=1, max_size=30))
    if draw(st.booleans()):
        sizes = [sizes[0]] * len(sizes)  # every record with the same rows
    order = draw(st.permutations(range(len(sizes))))
    records = np.repeat(np.array(order, dtype=np.intp), np.array(sizes)[list(order)])
    n = records.shape[0]
    if draw(st.booleans()):  # rows spread out, as stacked repeats give them
        records = records[np.array(draw(st.permutations(range(n))), dtype=np.intp)]
    labels = st.lists(st.integers(0, n_values - 1), min_size=n, max_size=n)
    y = np.array(draw(labels))
    preds = [np.array(draw(labels)) for _ in range(n_clf)]
    return y, preds, records, len(sizes), n_values


@settings(max_examples=150, deadline=None)
@given(_runs())
def test_pair_sums_equal_the_brute_force_and_the_general_path(case):
    y, preds, records, n_records, n_values = case
    out = _row_pairs.pair_statistics(_encoded(y, preds, n_values), records)
    most = np.bincount(records).max()
    if not _row_pairs._few_pairs(most, n_records, records.shape[0]):
        assert out is None  # a large record among small ones: the general path
        return
    assert out is not None
    categories, pooled, slots = out
    first, second, _ = _brute_force(y, preds, records, n_values)
    np.testing.assert_array_equal(categories.first, first)
    np.testing.assert_array_equal(categories.second, second)
    pooled_first, pooled_second = _brute_pooled(y, preds, records)
    np.testing.assert_array_equal(pooled.first, pooled_first)
    np.testing.assert_array_equal(pooled.second, pooled_second)
    general = clustered_statistics(y, preds, records, n_records, n_values)
    for ours, theirs in zip((categories, pooled), general, strict=True):
        for a, b in zip(ours, theirs, strict=True):
            np.testing.assert_array_equal(a, b)
    # The slots hold each record's rows: the same sums from them.
    y_slots, preds_slots, records_slots = _rows_of_slots(slots, n_values, len(preds))
    again = clustered_statistics(y_slots, preds_slots, records_slots, n_records, n_values)
    for a, b in zip(again[0], general[0], strict=True):
        np.testing.assert_array_equal(a, b)


def test_declines_what_it_does_not_count():
    rng = np.random.default_rng(1)
    y, a, b = (rng.integers(0, 3, 40) for _ in range(3))
    encoded = _encoded(y, [a, b], 3)
    many = _encoded(y, [a, b] * 5, 3)  # 3**11 cells: more than slots hold
    assert _row_pairs.pair_statistics(many, np.repeat(np.arange(20), 2)) is None
    wide = _encoded(np.arange(40) % 13, [a, b], 13)  # 13**3 cells of a pair table
    assert _row_pairs.pair_statistics(wide, np.repeat(np.arange(20), 2)) is None
    big = np.zeros(40, dtype=np.intp)  # one record of 40 rows: 780 pairs of slots
    assert _row_pairs.pair_statistics(encoded, big) is None


def test_slots_give_the_units_of_the_keys():
    rng = np.random.default_rng(2)
    records = np.repeat(rng.permutation(30), 2)
    y, a, b = (rng.integers(0, 4, 60) for _ in range(3))
    _, _, slots = _row_pairs.pair_statistics(_encoded(y, [a, b], 4), records)
    stored = StoredRecords.from_slots(slots, 4, 2)
    *_, keys = clustered_statistics(y, [a, b], records, 30, 4, return_keys=True)
    x, key_class, key_record, rows = keys
    expected = StoredRecords.from_keys(key_record, key_class, x, rows, 4)
    assert stored.clustered
    for classifiers in (None, [1], [1, 0]):
        ours, theirs = stored.units(classifiers), expected.units(classifiers)
        order = np.lexsort((ours.key_class, ours.key_unit))
        their_order = np.lexsort((theirs.key_class, theirs.key_unit))
        np.testing.assert_array_equal(ours.key_unit[order], theirs.key_unit[their_order])
        np.testing.assert_array_equal(ours.x[order], theirs.x[their_order])
        np.testing.assert_array_equal(ours.unit_rows, theirs.unit_rows)
    with pytest.raises(ValueError, match="no table of cells"):
        stored.table_cells()


@pytest.mark.parametrize("compare", [compare_precision, compare_npv, compare_accuracy])
@pytest.mark.parametrize("layout", ["in order", "runs in any order", "uneven runs", "spread"])
def test_a_comparison_does_not_depend_on_the_path(compare, layout, monkeypatch):
    rng = np.random.default_rng(3)
    sizes = {"in order": np.full(300, 2), "runs in any order": np.full(300, 3)}.get(
        layout, rng.integers(1, 5, 300)
    )
    ids = np.arange(300) if layout == "in order" else rng.permutation(300)
    groups = np.repeat(ids * 7 + 11, sizes[ids])  # sparse ids, coded by rank
    if layout == "spread":
        groups = rng.permutation(groups)
    n = groups.shape[0]
    labels = np.array(["cat", "dog", "emu"])
    y = labels[rng.integers(0, 3, n)]
    preds = {name: labels[rng.integers(0, 3, n)] for name in ("a", "b")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast = compare(y, preds, groups=groups)
        monkeypatch.setattr(_row_pairs, "_MAX_CELLS", 0)
        general = compare(y, preds, groups=groups)
    assert fast._data.records._kind == "slots"
    assert general._data.records._kind == "keys"
    pd.testing.assert_frame_equal(fast.table, general.table)
    if compare is not compare_accuracy:
        tests = [
            r.global_test(method="dai-cui", n_resamples=40, random_state=0, resampling="bootstrap")
            for r in (fast, general)
        ]
        np.testing.assert_allclose(tests[0].pvalue, tests[1].pvalue, rtol=1e-12)
        np.testing.assert_allclose(tests[0].statistic, tests[1].statistic, rtol=1e-12)
    if compare is compare_precision:
        # The other users of the records: precision at a prevalence, by the
        # bootstrap, and the bias-reduced covariance.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            updated = [
                r.at_prevalence({"emu": 0.2}, ci="bootstrap", n_resamples=40, random_state=0)
                for r in (fast, general)
            ]
            reduced = [compare(y, preds, groups=groups, cov_type="bias_reduced")]
            monkeypatch.undo()
            reduced.append(compare(y, preds, groups=groups, cov_type="bias_reduced"))
        np.testing.assert_allclose(updated[0]["ci_low"], updated[1]["ci_low"], rtol=1e-12)
        np.testing.assert_allclose(updated[0]["ci_high"], updated[1]["ci_high"], rtol=1e-12)
        for column in ("wald_stat", "log_or_se", "ratio_se_log", "diff_se"):
            ours, theirs = (r.table[column] for r in reduced)
            np.testing.assert_allclose(ours, theirs, rtol=1e-12)


@pytest.mark.parametrize("repeats", [4, 10, 17])
@pytest.mark.parametrize("layout", ["repeats", "blocks that miss a record"])
def test_stacked_repeats_of_the_records(layout, repeats):
    # Repeated cross-validation lists every record once per repeat, each
    # repeat in its own order; the rows of a record are spread out.
    rng = np.random.default_rng(4)
    n_records = 50
    records = np.concatenate([rng.permutation(n_records) for _ in range(repeats)])
    if layout != "repeats":
        records[[3, 60]] = records[[60, 3]]  # two blocks each miss a record
    y, a, b = (rng.integers(0, 3, records.shape[0]) for _ in range(3))
    categories, pooled, _ = _row_pairs.pair_statistics(_encoded(y, [a, b], 3), records)
    general = clustered_statistics(y, [a, b], records, n_records, 3)
    for ours, theirs in zip((categories, pooled), general, strict=True):
        for x, z in zip(ours, theirs, strict=True):
            np.testing.assert_array_equal(x, z)


@pytest.mark.parametrize(
    "kind",
    ["negative", "near the top of uint64", "int64 ends", "sparse", "str", "float"],
)
@pytest.mark.parametrize("layout", ["contiguous", "stacked", "shuffled", "uneven"])
def test_slots_of_any_ids_in_any_order(kind, layout):
    # Record r's id is ids[r] (increasing), so the slots' records are in
    # order of r whatever the kind of id; each record's cells are sorted.
    rng = np.random.default_rng(6)
    n_records = 40
    ids = {
        "negative": np.arange(n_records) * 3 - 50,
        "near the top of uint64": np.arange(n_records, dtype=np.uint64) + np.uint64(2**64 - 100),
        "int64 ends": np.linspace(-(2**62), 2**62, n_records).astype(np.int64),
        "sparse": np.arange(n_records) * 10**9,
        "str": np.array([f"id{r:03d}" for r in range(n_records)]),
        "float": np.arange(n_records) / 4 - 1.5,
    }[kind]
    sizes = rng.integers(1, 4, n_records) if layout == "uneven" else np.full(n_records, 3)
    record = np.repeat(np.arange(n_records), sizes)
    if layout == "stacked":
        record = np.concatenate([rng.permutation(n_records) for _ in range(3)])
    elif layout in ("shuffled", "uneven"):
        record = rng.permutation(record)
    y, a, b = (rng.integers(0, 3, record.shape[0]) for _ in range(3))
    encoded = _encoded(y, [a, b], 3)
    slots = _row_pairs.record_slots(*_row_pairs.record_keys(encoded, ids[record]), 27)
    cells = (y * 3 + a) * 3 + b
    expected = np.full((n_records, sizes.max()), 27)
    for r in range(n_records):
        own = np.sort(cells[record == r])
        expected[r, : own.shape[0]] = own
    np.testing.assert_array_equal(slots, expected)


def test_a_record_of_many_rows_among_records_of_one():
    # Its pairs of slots would be many passes over the rows: the general path.
    records = np.concatenate([np.zeros(12, dtype=np.intp), np.arange(1, 41)])
    y = np.zeros(52, dtype=np.intp)
    assert _row_pairs.pair_statistics(_encoded(y, [y, y], 2), records) is None


def test_statsmodels_engine_with_contiguous_records():
    rng = np.random.default_rng(5)
    groups = np.repeat(np.arange(60), 2)
    y, a, b = (rng.integers(0, 2, 120) for _ in range(3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = compare_precision(y, {"a": a, "b": b}, groups=groups)
        fitted = compare_precision(y, {"a": a, "b": b}, groups=groups, engine="statsmodels")
    for column in ("gs_stat", "wald_stat"):
        np.testing.assert_allclose(ours.table[column], fitted.table[column], rtol=1e-6)


@pytest.mark.parametrize("engine", ["closed-form", "statsmodels"])
def test_ids_of_one_row_each_give_the_paired_comparison(engine):
    rng = np.random.default_rng(7)
    y, a, b = (rng.integers(0, 3, 200) for _ in range(3))
    preds = {"a": a, "b": b}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        paired = compare_precision(y, preds, engine=engine)
        grouped = compare_precision(y, preds, groups=rng.permutation(200) * 3, engine=engine)
    assert grouped._data.n_records == 200
    pd.testing.assert_frame_equal(grouped.table, paired.table, check_exact=False, rtol=1e-9)


def test_the_kind_of_label_does_not_change_a_clustered_comparison():
    # Small non-negative integers (one-byte codes), negative integers and
    # strings (encoded) of the same classes, stacked repeats.
    rng = np.random.default_rng(8)
    records = np.concatenate([rng.permutation(100) for _ in range(4)])
    y, a, b = (rng.integers(0, 3, 400) for _ in range(3))
    names = np.array(["cat", "dog", "emu"])
    tables = []
    for kind in (lambda v: v, lambda v: v - 7, lambda v: names[v]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = compare_precision(kind(y), {"a": kind(a), "b": kind(b)}, groups=records)
        assert result._data.records._kind == "slots"
        tables.append(result.table.drop(columns="class").reset_index(drop=True))
    for table in tables[1:]:
        pd.testing.assert_frame_equal(table, tables[0])


@pytest.mark.parametrize("n_clf", [3, 4])
def test_pairs_of_classifiers_equal_the_brute_force(n_clf, monkeypatch):
    # Too many cells for one table: each pair of classifiers has its own.
    rng = np.random.default_rng(9)
    records = np.concatenate([rng.permutation(60) for _ in range(3)])
    y = rng.integers(0, 3, records.shape[0])
    preds = [np.where(rng.random(y.shape[0]) < 0.5, y, rng.integers(0, 3, y.shape[0]))]
    preds += [rng.integers(0, 3, y.shape[0]) for _ in range(n_clf - 1)]
    monkeypatch.setattr(_row_pairs, "_MAX_CELLS", 27)
    categories, pooled, _ = _row_pairs.pair_statistics(_encoded(y, preds, 3), records)
    first, second, _ = _brute_force(y, preds, records, 3)
    np.testing.assert_array_equal(categories.first, first)
    np.testing.assert_array_equal(categories.second, second)
    pooled_first, pooled_second = _brute_pooled(y, preds, records)
    np.testing.assert_array_equal(pooled.first, pooled_first)
    np.testing.assert_array_equal(pooled.second, pooled_second)


def test_three_classifiers_of_ten_classes_do_not_depend_on_the_path(monkeypatch):
    rng = np.random.default_rng(10)
    groups = np.concatenate([rng.permutation(300) for _ in range(4)])
    y = rng.integers(0, 10, groups.shape[0])
    preds = {
        name: np.where(rng.random(y.shape[0]) < 0.6, y, rng.integers(0, 10, y.shape[0]))
        for name in ("a", "b", "c")
    }
    results = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for max_cells in (_row_pairs._MAX_CELLS, 0):
            monkeypatch.setattr(_row_pairs, "_MAX_CELLS", max_cells)
            result = compare_precision(y, preds, groups=groups)
            test = result.global_test(n_resamples=40, random_state=0, resampling="bootstrap")
            results.append((result, test))
    (fast, fast_test), (general, general_test) = results
    assert fast._data.records._kind == "slots" and general._data.records._kind == "keys"
    pd.testing.assert_frame_equal(fast.table, general.table)
    np.testing.assert_allclose(fast_test.statistic, general_test.statistic, rtol=1e-12)
    np.testing.assert_allclose(fast_test.pvalue, general_test.pvalue, rtol=1e-12)


def test_small_inputs_of_many_cells_take_the_general_path(monkeypatch):
    # 3 classifiers of 10 classes: three tables of 1001^2 counts for 1200 rows.
    monkeypatch.setattr(_row_pairs, "_MAX_TABLE_ROWS", 5)
    rng = np.random.default_rng(11)
    records = np.concatenate([rng.permutation(300) for _ in range(4)])
    y, a, b, c = (rng.integers(0, 10, 1200) for _ in range(4))
    assert _row_pairs.pair_statistics(_encoded(y, [a, b, c], 10), records) is None
    assert _row_pairs.pair_statistics(_encoded(y % 3, [a % 3, b % 3], 3), records) is not None
