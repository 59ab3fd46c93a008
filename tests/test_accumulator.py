"""Counts as an object: chunked, merged and tabled counts give the in-memory results."""

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.contingency_tables import mcnemar

from sklearn_precision_stats.engine._accumulator import ComparisonCounts
from sklearn_precision_stats.paired import (
    compare_accuracy,
    compare_npv,
    compare_precision,
    compare_recall,
    compare_specificity,
)
from sklearn_precision_stats.paired._compare import comparison_from_counts

from .conftest import assert_same_comparison, quiet

COMPARE = {
    "precision": compare_precision,
    "npv": compare_npv,
    "recall": compare_recall,
    "specificity": compare_specificity,
    "accuracy": compare_accuracy,
}


def _data(n=600, n_classes=4, n_clf=3, seed=0, strings=False, n_records=None):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    preds = {}
    for c in range(n_clf):
        preds[f"m{c}"] = np.where(rng.random(n) < 0.75 - 0.1 * c, y, rng.integers(0, n_classes, n))
    if strings:
        names = np.array(["ant", "bee", "cow", "dog", "eel", "fox"])
        y = names[y]
        preds = {k: names[v] for k, v in preds.items()}
    groups = None if n_records is None else rng.integers(0, n_records, n)
    return y, preds, groups


def _chunked(y, preds, groups, bounds):
    """Counts of the rows between consecutive `bounds`, built chunk by chunk."""
    counts = ComparisonCounts(list(preds), clustered=groups is not None)
    for start, stop in zip(bounds[:-1], bounds[1:], strict=True):
        rows = slice(start, stop)
        counts.update(
            y[rows],
            {k: v[rows] for k, v in reversed(preds.items())},  # any classifier order
            groups=None if groups is None else groups[rows],
        )
    return counts


@pytest.mark.parametrize("metric", list(COMPARE))
@pytest.mark.parametrize(
    ("n_clf", "strings", "n_records"),
    [(2, False, None), (3, True, None), (2, True, 150), (3, False, 200)],
)
def test_chunked_and_merged_equal_in_memory(metric, n_clf, strings, n_records):
    y, preds, groups = _data(n_clf=n_clf, strings=strings, n_records=n_records)
    expected = quiet(COMPARE[metric], y, preds, groups=groups, reference="m1")
    n = y.shape[0]
    # Chunks of uneven sizes; with groups, a record's rows span chunks.
    chunked = _chunked(y, preds, groups, [0, 7, 250, 251, 480, n])
    left = _chunked(y, preds, groups, [0, 100, 300])
    right = _chunked(
        y[300:],
        {k: v[300:] for k, v in preds.items()},
        None if groups is None else groups[300:],
        [0, 150, n - 300],
    )
    for counts in (
        chunked,
        left.merge(right),
        right.merge(left),
        ComparisonCounts.from_arrays(y, preds, groups=groups),
    ):
        result = quiet(comparison_from_counts, counts, metric, reference="m1")
        assert_same_comparison(result, expected)


def test_labels_and_confidence_level():
    y, preds, _ = _data(strings=True)
    expected = compare_recall(y, preds, labels=["dog", "ant"], confidence_level=0.9)
    counts = ComparisonCounts.from_arrays(y, preds)
    result = comparison_from_counts(counts, "recall", labels=["dog", "ant"], confidence_level=0.9)
    assert_same_comparison(result, expected)
    with pytest.raises(ValueError, match="label 'yak' in labels does not occur"):
        comparison_from_counts(counts, labels=["yak"])
    with pytest.raises(ValueError, match="reference='zz' is not one of the classifiers"):
        comparison_from_counts(counts, reference="zz")


def test_new_classes_in_later_chunks_and_merges():
    y, preds, _ = _data(n=400, n_classes=5)
    order = np.argsort(y, kind="stable")  # class 4 only appears in the last chunk
    y = y[order]
    preds = {k: v[order] for k, v in preds.items()}
    expected = quiet(compare_specificity, y, preds)
    counts = _chunked(y, preds, None, [0, 50, 200, 400])
    assert_same_comparison(quiet(comparison_from_counts, counts, "specificity"), expected)
    merged = _chunked(y[200:], {k: v[200:] for k, v in preds.items()}, None, [0, 200]).merge(
        _chunked(y[:200], {k: v[:200] for k, v in preds.items()}, None, [0, 200])
    )
    assert_same_comparison(quiet(comparison_from_counts, merged, "specificity"), expected)


def test_many_classes_use_agreement_counts():
    # 300 classes and 3 classifiers: 300^4 cells, too many for a joint table.
    y, preds, _ = _data(n=3000, n_classes=300, n_clf=3, seed=3)
    counts = _chunked(y, preds, None, [0, 1000, 3000])
    assert counts.joint_table() is None
    expected = quiet(compare_precision, y, preds)
    assert_same_comparison(quiet(comparison_from_counts, counts, "precision"), expected)
    merged = _chunked(y, preds, None, [0, 1500]).merge(
        ComparisonCounts.from_arrays(y[1500:], {k: v[1500:] for k, v in preds.items()})
    )
    assert_same_comparison(quiet(comparison_from_counts, merged, "precision"), expected)


def test_joint_table_is_a_crosstab():
    y, preds, _ = _data(n=500, n_classes=3, n_clf=2)
    table = ComparisonCounts.from_arrays(y, preds).joint_table()
    expected = pd.crosstab(y, [preds["m0"], preds["m1"]], dropna=False).to_numpy()
    np.testing.assert_array_equal(table.reshape(3, 9), expected)


def test_from_table_equals_arrays_and_dtcompair_layout():
    y, preds, _ = _data(n=500, n_classes=3, n_clf=2, strings=True)
    counts = ComparisonCounts.from_arrays(y, preds)
    table = counts.joint_table()
    rebuilt = ComparisonCounts.from_table(table, classifiers=["m0", "m1"], labels=counts.classes)
    assert_same_comparison(
        quiet(comparison_from_counts, rebuilt, "npv"), quiet(compare_npv, y, preds)
    )
    # DTComPair's tab.paired: rows test 2, columns test 1, positive first.
    diseased = [[50, 10], [5, 35]]
    healthy = [[3, 12], [7, 78]]
    counts = ComparisonCounts.from_table({"diseased": diseased, "non.diseased": healthy})
    y = np.repeat([1, 1, 1, 1, 0, 0, 0, 0], [50, 10, 5, 35, 3, 12, 7, 78])
    t1 = np.repeat([1, 0, 1, 0, 1, 0, 1, 0], [50, 10, 5, 35, 3, 12, 7, 78])
    t2 = np.repeat([1, 1, 0, 0, 1, 1, 0, 0], [50, 10, 5, 35, 3, 12, 7, 78])
    expected = compare_precision(y, {"test1": t1, "test2": t2})
    assert_same_comparison(comparison_from_counts(counts), expected)
    with pytest.raises(ValueError, match="'non.diseased'"):
        ComparisonCounts.from_table({"diseased": diseased})
    with pytest.raises(ValueError, match="non-negative integer counts"):
        ComparisonCounts.from_table(np.full((2, 2, 2), -1))
    with pytest.raises(ValueError, match="3 axes of the same length"):
        ComparisonCounts.from_table(np.ones((2, 3, 2)))


def test_mcnemar_sums_match_statsmodels_and_clustered_definition():
    y, preds, groups = _data(n=800, n_clf=2, n_records=300)
    a, b = preds["m0"], preds["m1"]
    counts = ComparisonCounts.from_arrays(y, preds)
    sums = counts.mcnemar_sums("m0", "m1")
    ca, cb = a == y, b == y
    table = [[np.sum(ca & cb), np.sum(ca & ~cb)], [np.sum(~ca & cb), np.sum(~ca & ~cb)]]
    assert (sums["n_a_only"], sums["n_b_only"]) == (table[0][1], table[1][0])
    statistic = (sums["n_a_only"] - sums["n_b_only"]) ** 2 / (sums["n_a_only"] + sums["n_b_only"])
    ref = mcnemar(table, exact=False, correction=False)
    assert statistic == pytest.approx(ref.statistic, rel=1e-12)
    clustered = _chunked(y, preds, groups, [0, 333, 800]).mcnemar_sums("m0", "m1")
    assert clustered["n_a_only"] == sums["n_a_only"]
    d = ca.astype(int) - cb.astype(int)
    per_record = pd.Series(d).groupby(groups).sum().to_numpy()
    np.testing.assert_array_equal(np.sort(clustered["per_cluster"]), np.sort(per_record))
    assert clustered["sizes"].sum() == 800


def test_chunk_validation():
    y, preds, groups = _data(n=50, n_records=10)
    counts = ComparisonCounts(["m0", "m1", "m2"])
    with pytest.raises(ValueError, match="differ from the counts'"):
        counts.update(y, {"m0": preds["m0"], "zz": preds["m1"], "m2": preds["m2"]})
    with pytest.raises(ValueError, match="groups must be given with every chunk"):
        counts.update(y, preds, groups=groups)
    with pytest.raises(ValueError, match="has 49 rows but y_true has 50"):
        counts.update(y, {**preds, "m2": preds["m2"][1:]})
    with pytest.raises(ValueError, match="y_true contains NaN"):
        counts.update(np.full(50, np.nan), preds)
    with pytest.raises(ValueError, match="cannot merge clustered counts"):
        counts.merge(ComparisonCounts.from_arrays(y, preds, groups=groups))
    with pytest.raises(ValueError, match="the counts are empty"):
        comparison_from_counts(counts)
    with pytest.raises(ValueError, match="at least two names"):
        ComparisonCounts(["m0"])


def test_small_integer_and_bool_labels_of_any_dtype():
    rng = np.random.default_rng(7)
    y = rng.integers(-1, 3, 500).astype(np.int8)
    a = np.where(rng.random(500) < 0.7, y, 2).astype(np.int8)
    b = np.where(rng.random(500) < 0.6, y, 0).astype(np.int16)
    expected = quiet(compare_precision, y, {"a": a, "b": b})
    counts = _chunked(y, {"a": a, "b": b}, None, [0, 100, 500])
    result = quiet(comparison_from_counts, counts)
    assert_same_comparison(result, expected)
    assert result.classes.dtype == np.int16
    yb, ab, bb = y > 0, a > 0, b > 0
    expected = quiet(compare_recall, yb, {"a": ab, "b": bb})
    counts = _chunked(yb, {"a": ab, "b": bb}, None, [0, 250, 500])
    assert_same_comparison(quiet(comparison_from_counts, counts, "recall"), expected)
    with pytest.raises(
        ValueError, match="y_true holds strings but an earlier chunk.s y_true holds numbers"
    ):
        counts.update(np.array(["x"]), {"a": np.array(["x"]), "b": np.array(["x"])})


@pytest.mark.parametrize("strings", [False, True])
def test_column_vectors_are_read_as_scikit_learn_reads_them(strings):
    # scikit-learn's metrics take (n_rows, 1) columns of labels (column_or_1d).
    y, preds, groups = _data(n=300, n_clf=2, strings=strings, n_records=100)
    columns = {name: pred.reshape(-1, 1) for name, pred in preds.items()}
    counts = ComparisonCounts.from_arrays(y.reshape(-1, 1), columns)
    expected = pd.crosstab(y, [preds["m0"], preds["m1"]], dropna=False).to_numpy()
    np.testing.assert_array_equal(counts.joint_table().reshape(expected.shape), expected)
    clustered = ComparisonCounts.from_arrays(y[:, None], columns, groups=groups[:, None])
    expected = quiet(compare_precision, y, preds, groups=groups)
    assert_same_comparison(quiet(comparison_from_counts, clustered), expected)
    with pytest.raises(ValueError, match=r"y_preds\['m0'\] must be 1-D"):
        counts.update(y, {"m0": np.stack([y, y], axis=1), "m1": preds["m1"]})
