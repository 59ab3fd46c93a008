"""ComparisonCounts on the inputs users give it: DTComPair tables, failing or
empty chunks, pandas chunks, huge counts, updates after a comparison.

The references are scikit-learn's metrics on the concatenated rows, the
comparison of the arrays themselves and R DTComPair's outputs on its example
data Paired1 (tests/data/dtcompair_reference.json).
"""

import json
import pickle

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import confusion_matrix, precision_score

from sklearn_precision_stats import (
    ComparisonCounts,
    compare_accuracy,
    compare_npv,
    compare_precision,
    mcnemar_test,
)

from .conftest import REFERENCE, assert_same_comparison, quiet

PAIRED1 = json.loads((REFERENCE / "dtcompair_reference.json").read_text())["datasets"]["Paired1"]


def _paired1_matrices(totals):
    """DTComPair's tab.paired(d, y1, y2) of Paired1, as R prints it."""
    c = PAIRED1["counts"]
    out = {}
    for key, prefix in (("diseased", "d"), ("non.diseased", "nd")):
        # Rows test 2 positive, negative; columns test 1 positive, negative.
        m = np.array([[c[f"{prefix}.a"], c[f"{prefix}.b"]], [c[f"{prefix}.c"], c[f"{prefix}.d"]]])
        if totals:
            m = np.vstack([np.column_stack([m, m.sum(axis=1)]), np.append(m.sum(axis=0), m.sum())])
        out[key] = m
    return out


@pytest.mark.parametrize("totals", [False, True])
def test_dtcompair_tab_paired_gives_r_predictive_values(totals):
    counts = ComparisonCounts.from_table(_paired1_matrices(totals))
    assert counts.classifiers == ("test1", "test2") and counts.n_rows == PAIRED1["n"]
    ref = PAIRED1["results"]
    for compare, measure in ((compare_precision, "ppv"), (compare_npv, "npv")):
        row = compare(counts, labels=[1]).table.iloc[0]
        r = ref["pv.gs"][measure]
        name = {"ppv": "precision", "npv": "npv"}[measure]
        # DTComPair's test 1 is the reference.
        assert row[f"{name}_reference"] == pytest.approx(r["test1"], rel=1e-12)
        assert row[name] == pytest.approx(r["test2"], rel=1e-12)
        assert row["gs_stat"] == pytest.approx(r["test.statistic"], rel=1e-9)
        assert row["gs_pvalue"] == pytest.approx(r["p.value"], rel=1e-9)
        assert row["wgs_stat"] == pytest.approx(ref["pv.wgs"][measure]["test.statistic"], rel=1e-9)
    # The same as the comparison of the records themselves.
    data = PAIRED1["data"]
    expected = compare_precision(data["d"], {"test1": data["y1"], "test2": data["y2"]})
    assert_same_comparison(compare_precision(counts), expected)


def test_dtcompair_testnames_and_bad_totals():
    tables = {**_paired1_matrices(True), "testnames": ["y1", "y2"]}
    assert ComparisonCounts.from_table(tables).classifiers == ("y1", "y2")
    named = ComparisonCounts.from_table(tables, classifiers=["a", "b"])
    assert named.classifiers == ("a", "b")
    bad = _paired1_matrices(True)
    bad["diseased"][2, 2] += 1
    with pytest.raises(ValueError, match="'diseased' matrix is 3x3 but its last row"):
        ComparisonCounts.from_table(bad)
    with pytest.raises(ValueError, match=r"must be 2x2 .* got shape \(2, 3\)"):
        ComparisonCounts.from_table({**bad, "diseased": np.ones((2, 3))})


@pytest.mark.parametrize(
    ("table", "match"),
    [
        (np.array([[[np.inf, 1.0], [1, 1]], [[1, 1], [1, 1]]]), "got inf"),
        (np.array([[[1e20, 1.0], [1, 1]], [[1, 1], [1, 1]]]), "more than the 2..63 - 1"),
        (np.full((2, 2, 2), 2**63, dtype=np.uint64), "more than the 2..63 - 1"),
        (np.full((2, 2, 2), 2**61, dtype=np.int64), "would hold 18446744073709551616 rows"),
        (np.zeros((0, 0, 0)), "got an empty table"),
    ],
)
def test_table_counts_beyond_int64_are_refused(table, match):
    with pytest.raises(ValueError, match=match):
        ComparisonCounts.from_table(table)


def test_merge_beyond_int64_is_refused_and_large_counts_are_exact():
    base = np.array([[[50, 10], [5, 35]], [[3, 12], [7, 78]]])
    big = ComparisonCounts.from_table(base * 2**54)
    assert big.merge(big).n_rows == 400 * 2**54 < 2**63
    with pytest.raises(ValueError, match="more than the 2..63 - 1"):
        big.merge(big).merge(big)
    # Beyond 2**53 rows: the same precisions as the small table, exactly.
    small = compare_precision(ComparisonCounts.from_table(base)).table
    large = quiet(compare_precision, ComparisonCounts.from_table(base * 2**54)).table
    for column in ("precision", "precision_reference"):
        np.testing.assert_array_equal(large[column], small[column])
    # The score statistic grows in proportion to the records.
    np.testing.assert_allclose(large["gs_stat"] / 2**54, small["gs_stat"], rtol=1e-9)


def test_failed_chunk_adds_no_class():
    y, a, b = [0, 1, 1, 0], [0, 1, 0, 0], [1, 1, 1, 0]
    counts = ComparisonCounts.from_arrays(y, {"a": a, "b": b})
    with pytest.raises(ValueError, match=r"y_preds\['b'\] holds strings"):
        counts.update([5, 6], {"a": [5, 6], "b": ["x", "y"]})
    assert counts.classes.tolist() == [0, 1] and counts.n_rows == 4
    assert_same_comparison(
        quiet(compare_precision, counts), quiet(compare_precision, y, {"a": a, "b": b})
    )
    # Clustered: a chunk whose record ids change type leaves nothing either.
    counts = ComparisonCounts.from_arrays(y, {"a": a, "b": b}, groups=[1, 1, 2, 2])
    with pytest.raises(ValueError, match="groups holds strings but an earlier chunk's groups"):
        counts.update([7, 1], {"a": [7, 1], "b": [1, 1]}, groups=["u", "v"])
    assert counts.classes.tolist() == [0, 1] and counts.n_records == 2
    counts.update([7, 1], {"a": [7, 1], "b": [1, 1]}, groups=[3, 3])
    expected = quiet(compare_precision, [*y, 7, 1], {"a": [*a, 7, 1], "b": [*b, 1, 1]},
                      groups=[1, 1, 2, 2, 3, 3])  # fmt: skip
    assert_same_comparison(quiet(compare_precision, counts), expected)


def test_merging_labels_of_another_type_names_both():
    numbers = ComparisonCounts.from_arrays([0, 1], {"a": [0, 1], "b": [1, 1]})
    strings = ComparisonCounts.from_arrays(["x"], {"a": ["x"], "b": ["y"]})
    with pytest.raises(ValueError, match="the other counts' y_true holds strings but y_true"):
        numbers.merge(strings)
    assert numbers.classes.tolist() == [0, 1]


def test_pandas_chunks_are_paired_as_compare_pairs_them():
    y = pd.Series([0, 1, 1, 0])
    a = pd.Series([0, 1, 0, 0], index=[3, 2, 1, 0])
    b = pd.Series([1, 1, 1, 0])
    with pytest.raises(ValueError, match="different indexes"):
        compare_precision(y, {"a": a, "b": b})
    counts = ComparisonCounts(["a", "b"])
    with pytest.raises(ValueError, match=r"y_true and y_preds\['a'\] are pandas objects"):
        counts.update(y, {"a": a, "b": b})
    assert counts.n_rows == 0 and counts.classes.size == 0
    # Chunks of a frame read in pieces keep their index: fine.
    frame = pd.DataFrame({"y": y, "a": a.to_numpy(), "b": b})
    for start in (0, 2):
        part = frame.iloc[start : start + 2]
        counts.update(part["y"], part[["a", "b"]])
    expected = quiet(compare_precision, frame["y"], frame[["a", "b"]])
    assert_same_comparison(quiet(compare_precision, counts), expected)


def test_late_classes_and_empty_chunks_match_scikit_learn():
    rng = np.random.default_rng(4)
    n = 900
    y = np.sort(rng.integers(0, 5, n))  # class 4 only in the last chunk
    a = np.where(rng.random(n) < 0.7, y, rng.integers(0, 4, n))
    b = np.where(rng.random(n) < 0.6, y, rng.integers(0, 4, n))
    counts = ComparisonCounts(["a", "b"])
    for lo, hi in ((0, 0), (0, 300), (300, 300), (300, 600), (600, n)):
        counts.update(y[lo:hi], {"a": a[lo:hi], "b": b[lo:hi]})
        counts.update([], {"a": [], "b": []})
    labels = np.arange(5)
    table = counts.joint_table()
    np.testing.assert_array_equal(table.sum(axis=2), confusion_matrix(y, a, labels=labels))
    np.testing.assert_array_equal(table.sum(axis=1), confusion_matrix(y, b, labels=labels))
    result = quiet(compare_precision, counts, reference="a")
    ref = quiet(precision_score, y, a, average=None, labels=labels, zero_division=np.nan)
    np.testing.assert_allclose(result.table["precision_reference"], ref, rtol=1e-12)
    ref = quiet(precision_score, y, b, average=None, labels=labels, zero_division=np.nan)
    np.testing.assert_allclose(result.table["precision"], ref, rtol=1e-12)
    assert_same_comparison(result, quiet(compare_precision, y, {"a": a, "b": b}))


@pytest.mark.parametrize("layout", ["table", "agreement", "clustered"])
def test_updates_after_a_comparison_leave_it_unchanged(layout):
    rng = np.random.default_rng(5)
    n, n_classes = 600, 300 if layout == "agreement" else 3
    y = rng.integers(0, n_classes, n)
    preds = {c: np.where(rng.random(n) < 0.7, y, rng.integers(0, n_classes, n)) for c in "abc"}
    groups = rng.integers(0, 150, n) if layout == "clustered" else None
    half = {k: v[:300] for k, v in preds.items()}
    counts = ComparisonCounts.from_arrays(
        y[:300], half, groups=None if groups is None else groups[:300]
    )
    result = quiet(compare_precision, counts)
    kept = pickle.loads(pickle.dumps(result))
    before = kept.table.copy()
    if layout != "agreement":
        tested = quiet(result.global_test, n_resamples=50, random_state=0)
    rest = {k: v[300:] for k, v in preds.items()}
    for _ in range(3):
        counts.update(y[300:], rest, groups=None if groups is None else groups[300:])
    pd.testing.assert_frame_equal(result.table, before)
    if layout != "agreement":
        again = quiet(result.global_test, n_resamples=50, random_state=0)
        np.testing.assert_array_equal(again.pvalue, tested.pvalue)
        pd.testing.assert_frame_equal(
            quiet(result.at_prevalence, {0: 0.3}, random_state=0),
            quiet(kept.at_prevalence, {0: 0.3}, random_state=0),
        )


def test_pickled_counts_grow_independently():
    rng = np.random.default_rng(6)
    y = rng.integers(0, 3, 400)
    a, b = (np.where(rng.random(400) < p, y, rng.integers(0, 3, 400)) for p in (0.8, 0.6))
    groups = rng.integers(0, 100, 400)
    counts = ComparisonCounts.from_arrays(
        y[:200], {"a": a[:200], "b": b[:200]}, groups=groups[:200]
    )
    copy = pickle.loads(pickle.dumps(counts))
    copy.update(y[200:], {"a": a[200:], "b": b[200:]}, groups=groups[200:])
    assert counts.n_rows == 200 and copy.n_rows == 400
    expected = quiet(compare_accuracy, y, {"a": a, "b": b}, groups=groups)
    assert_same_comparison(quiet(compare_accuracy, copy), expected)
    got, ref = mcnemar_test(copy, "a", "b"), mcnemar_test(y, a, b, groups=groups)
    assert (got.statistic, got.pvalue) == (ref.statistic, ref.pvalue)


@pytest.mark.parametrize("names", [(0, 1), (("rf", 1), ("rf", 2)), ("nb", "rf")])
def test_classifier_names_are_kept_as_compare_keeps_them(names):
    y, a, b = [0, 1, 1, 0, 1, 0, 1, 1], [0, 1, 0, 0, 1, 1, 1, 0], [1, 1, 1, 0, 0, 0, 1, 0]
    preds = dict(zip(names, (a, b), strict=True))
    counts = ComparisonCounts.from_arrays(y[:3], {k: v[:3] for k, v in preds.items()})
    counts.update(y[3:], {k: v[3:] for k, v in reversed(preds.items())})
    assert counts.classifiers == names
    for compare in (compare_precision, compare_accuracy):
        expected = quiet(compare, y, preds, reference=names[1])
        assert_same_comparison(quiet(compare, counts, reference=names[1]), expected)
        assert quiet(compare, counts).classifiers == names
    got, ref = mcnemar_test(counts, *names), mcnemar_test(y, a, b)
    assert (got.n_a_only, got.n_b_only, got.pvalue) == (ref.n_a_only, ref.n_b_only, ref.pvalue)


def test_names_that_are_not_a_list_of_classifiers():
    with pytest.raises(ValueError, match="got the string 'ab'"):
        ComparisonCounts("ab")
    with pytest.raises(ValueError, match="y_preds must hold at least two classifiers"):
        ComparisonCounts.from_arrays([0, 1], {"a": [0, 1]})
    # 1 and "1" are two classifiers, as in compare_*.
    counts = ComparisonCounts.from_arrays([0, 1], {1: [0, 1], "1": [1, 1]})
    assert counts.classifiers == (1, "1")


def test_labels_of_no_row_are_not_reported():
    # A categorical chunk's unused categories and a table's empty label.
    names = np.array(["x", "y", "z", "w"])
    y, a, b = [0, 1, 1, 0, 2, 2], [0, 1, 0, 0, 2, 1], [1, 1, 1, 0, 2, 2]
    first = {k: pd.Categorical(names[v[:3]], categories=names) for k, v in (("a", a), ("b", b))}
    counts = ComparisonCounts.from_arrays(pd.Categorical(names[y[:3]], categories=names), first)
    counts.update(names[y[3:]], {"a": names[a[3:]], "b": names[b[3:]]})
    expected = quiet(compare_precision, names[y], {"a": names[a], "b": names[b]})
    assert_same_comparison(quiet(compare_precision, counts), expected)
    assert expected.classes.tolist() == ["x", "y", "z"]
    table = np.zeros((3, 3, 3), dtype=int)
    table[0, 0, 1], table[1, 1, 1], table[0, 0, 0], table[1, 1, 0] = 5, 7, 3, 4
    result = quiet(compare_precision, ComparisonCounts.from_table(table, labels=["p", "q", "r"]))
    assert result.classes.tolist() == ["p", "q"]


def test_mcnemar_of_counts_beyond_2_53_rows_is_exact():
    # Discordant pairs are differences of sums of 2**54 rows: float sums
    # would lose them. Test 1 alone right in 3 rows, test 2 alone in 1.
    big = 2**53 + 1
    table = np.array([[[big, 2], [1, 5]], [[1, 0], [1, big]]], dtype=np.int64)
    counts = ComparisonCounts.from_table(table)
    result = mcnemar_test(counts, "test1", "test2")
    assert (result.n_a_only, result.n_b_only) == (3, 1)
    assert result.pvalue == pytest.approx(stats.binomtest(1, 4).pvalue, rel=1e-12)
    sums = counts.mcnemar_sums("test2", "test1")
    assert (sums["correct_a"], sums["correct_b"]) == (2 * big + 1, 2 * big + 3)


def test_options_of_the_wrong_type():
    with pytest.raises(ValueError, match="clustered must be True or False, got 'no'"):
        ComparisonCounts(["a", "b"], clustered="no")
    counts = ComparisonCounts(["a", "b"], clustered=np.bool_(False))
    with pytest.raises(ValueError, match="names must be a dict"):
        counts.update([0, 1], {"a": [0, 1], "b": [1, 1]}, names=["truth"])
    with pytest.raises(ValueError, match="column 'nb' contains NaN at row 1"):
        counts.update([0, 1], {"a": [0, 1], "b": [1, np.nan]}, names={"b": "column 'nb'"})


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    n=st.integers(1, 120),
    n_classes=st.integers(1, 4),
    clustered=st.booleans(),
    cuts=st.lists(st.floats(0, 1), max_size=5),
    merge_at=st.floats(0, 1),
)
def test_any_chunking_and_merge_order_gives_the_arrays_comparison(
    seed, n, n_classes, clustered, cuts, merge_at
):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    preds = {c: np.where(rng.random(n) < 0.6, y, rng.integers(0, n_classes, n)) for c in "ab"}
    groups = rng.integers(0, max(1, n // 3), n) if clustered else None
    bounds = sorted({0, n, *(int(c * n) for c in cuts)})
    split = int(merge_at * n)

    def count(lo, hi):
        counts = ComparisonCounts(["b", "a"], clustered=clustered)
        for start, stop in zip(bounds[:-1], bounds[1:], strict=True):
            start, stop = max(start, lo), min(stop, hi)
            counts.update(
                y[start:stop],
                {k: v[start:stop] for k, v in preds.items()},
                groups=None if groups is None else groups[start:stop],
            )
        return counts

    whole = count(0, n)
    merged = count(split, n).merge(count(0, split))
    expected = quiet(compare_precision, y, preds, groups=groups, reference="b")
    for counts in (whole, merged):
        assert counts.n_rows == n
        assert_same_comparison(quiet(compare_precision, counts, reference="b"), expected)


def test_mcnemar_of_counts_given_arrays_describes_them_briefly():
    counts = ComparisonCounts.from_arrays([0, 1] * 50, {"a": [0, 1] * 50, "b": [1, 1] * 50})
    with pytest.raises(ValueError, match="got an object of type ndarray; the classifiers") as info:
        mcnemar_test(counts, np.array([0, 1] * 50), "b")
    assert "0, 1, 0" not in str(info.value)
