"""The fast label-encoding paths: exact against numpy.unique, and taken.

Fixed-width strings are read as a mixed-radix key of the characters that
vary; object arrays of a few shared objects are hashed by their
addresses. Each test compares codes and values with :func:`numpy.unique`
(an independent, sorting encoder) and, where it matters, checks that the
slow per-object path is not used.
"""

import numpy as np
import pandas as pd
import pytest

from sklearn_precision_stats.engine import _labels, _tables
from sklearn_precision_stats.engine._labels import (
    StreamingLabelEncoder,
    encode_labels,
    encode_sorted,
)


def _check(arrays):
    codes, values = encode_sorted(*arrays)
    expected, inverse = np.unique(
        np.concatenate([np.asarray(a) for a in arrays]), return_inverse=True
    )
    np.testing.assert_array_equal(values, expected)
    np.testing.assert_array_equal(np.concatenate(codes), inverse.ravel())
    for code in codes:
        assert code.dtype == np.intp
    return codes, values


def _no_object_factorize(monkeypatch):
    """Fail when pandas hashes more than a few objects (one per row, say)."""
    real = pd.factorize

    def guarded(values, *args, **kwargs):
        if np.asarray(values).dtype.kind in "OU":
            assert np.shape(values)[0] <= _labels._MAX_SHARED_OBJECTS, "row-wise factorize"
        return real(values, *args, **kwargs)

    monkeypatch.setattr(_labels.pd, "factorize", guarded)


@pytest.mark.parametrize(
    "names",
    [
        [f"class_{k}" for k in range(10)],
        [f"class_{k}" for k in range(12)],  # "class_1" and "class_10": a trailing NUL varies
        ["setosa", "versicolor", "virginica"],
        ["b", "a"],
        ["same"],
        ["\U0001f600x", "\U0001f600y", "z"],  # characters beyond the BMP
    ],
)
def test_fixed_width_strings_match_numpy_unique(names, monkeypatch):
    _no_object_factorize(monkeypatch)
    rng = np.random.default_rng(0)
    labels = np.array(names)
    arrays = [labels[rng.integers(0, len(names), 5000)] for _ in range(3)]
    _check(arrays)


def test_many_varying_characters_use_a_hash_table():
    # 26**6 possible keys, more than rows: pandas' hash table on the keys.
    rng = np.random.default_rng(1)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    words = np.array(["".join(w) for w in letters[rng.integers(0, 26, (300, 6))]])
    _check([words[rng.integers(0, 300, 2000)], words[rng.integers(0, 300, 2000)]])


def test_keys_that_wrap_around_on_the_way_are_exact():
    # Spans 2 * (2**20)**3 ~ 2**61: the partial sums of the raw characters
    # overflow int64 before the offset brings the key back into range.
    import itertools

    top = chr(0x10FFFF)
    labels = np.array(
        [
            first + "".join(rest)
            for first in (chr(0x10FFFE), top)
            for rest in itertools.product(("a", top), repeat=3)
        ]
    )
    rng = np.random.default_rng(5)
    _check([labels[rng.integers(0, 16, 3000)], labels[rng.integers(0, 16, 3000)]])


def test_big_endian_strings():
    labels = np.array(["ab", "b", "ca"]).astype(">U2")
    rng = np.random.default_rng(6)
    (code,), values = _check([labels[rng.integers(0, 3, 1000)]])
    assert values.tolist() == ["ab", "b", "ca"]


def test_too_many_combinations_fall_back_to_pandas(monkeypatch):
    monkeypatch.setattr(_labels, "_MAX_STRING_KEYS", 1)
    rng = np.random.default_rng(2)
    labels = np.array(["alpha", "beta", "gamma", "delta"])
    _check([labels[rng.integers(0, 4, 500)], labels[rng.integers(0, 3, 500)]])
    # Labels that differ in many characters, of many lengths.
    labels = np.array(["cat", "dog", "bird", "émeu", "", "a much longer class name"])
    _check([labels[rng.integers(0, 6, 5000)] for _ in range(3)])


def test_labels_missed_by_the_sample_and_absent_keys():
    n = 100_000
    y = np.full(n, "a")
    y[3] = "c"  # row 3 is not in the sample of every (n // 4096)-th row
    y[n - 1] = "e"  # keys "b" and "d" lie in the range but never occur
    (code,), values = _check([y])
    assert values.tolist() == ["a", "c", "e"]
    assert code[3] == 1 and code[-1] == 2


def test_later_chunks_reuse_and_extend_codes():
    enc = StreamingLabelEncoder()
    first = enc.encode(np.array(["k2", "k4", "k2"]))[0]
    # New labels sort before and between the known ones: known codes stay.
    second = enc.encode(np.array(["k1", "k4", "k3", "k2"] * 3))[0]
    assert first.tolist() == [0, 1, 0]
    np.testing.assert_array_equal(enc.values[second], ["k1", "k4", "k3", "k2"] * 3)
    assert enc.values[:2].tolist() == ["k2", "k4"]
    assert enc.values[enc.order].tolist() == ["k1", "k2", "k3", "k4"]


def test_non_contiguous_and_wide_strings():
    base = np.array(["x1", "x2", "y1"] * 50, dtype="<U40")
    _check([base[::2], base[1::2]])


def test_shared_objects_are_hashed_by_address(monkeypatch):
    _no_object_factorize(monkeypatch)
    rng = np.random.default_rng(3)
    classes = np.array(["no", "yes", "maybe"], dtype=object)
    arrays = [classes[rng.integers(0, 3, 50_000)] for _ in range(2)]
    _check(arrays)
    _check([arrays[0][::-3], arrays[1][1::2]])  # views that are not contiguous


def test_shared_objects_with_rare_new_and_equal_objects():
    rng = np.random.default_rng(4)
    classes = np.array(["no", "yes"], dtype=object)
    y = classes[rng.integers(0, 2, 50_000)]
    # Objects the sample does not see: a new label and an equal copy of "no".
    y[5] = "".join(["ma", "ybe"])
    y[7] = "".join(["n", "o"])
    assert y[7] is not classes[0]
    (code,), values = _check([y])
    assert values.tolist() == ["maybe", "no", "yes"]
    assert code[7] == 1


@pytest.mark.parametrize("missing", [None, np.nan])
@pytest.mark.parametrize("row", [0, 7])
def test_missing_objects_name_the_row(missing, row):
    classes = np.array(["no", "yes"], dtype=object)
    y = classes[np.arange(20_000) % 2]
    y[row] = missing
    with pytest.raises(ValueError, match=f"y_true has a missing label .*at row {row}"):
        encode_labels(y, names=("y_true",))


def test_shared_numbers_and_mixed_objects():
    ints = np.array([3, 1, 2], dtype=object)[np.arange(9000) % 3]
    _check([ints])
    mixed = np.array(["a", 1], dtype=object)[np.arange(9000) % 2]
    with pytest.raises(ValueError, match="y_pred mixes strings and numbers"):
        encode_labels(mixed, names=("y_pred",))
    floats = np.array([1.0, 0.5], dtype=object)[np.arange(9000) % 2]
    with pytest.raises(ValueError, match="y_pred has continuous values"):
        encode_labels(floats, names=("y_pred",))


def _joint_reference(arrays):
    """The joint table by numpy.unique over the concatenated labels."""
    values, inverse = np.unique(np.concatenate(arrays), return_inverse=True)
    codes = np.split(inverse.ravel(), np.cumsum([len(a) for a in arrays])[:-1])
    table = np.zeros((values.shape[0],) * len(arrays), dtype=np.intp)
    np.add.at(table, tuple(codes), 1)
    return table, values


def _encoded_table(arrays):
    """The joint table of the encoder's codes, and its values."""
    codes, values = encode_sorted(*arrays)
    table = np.zeros((values.shape[0],) * len(arrays), dtype=np.intp)
    np.add.at(table, tuple(codes), 1)
    return table, values


@pytest.mark.parametrize(
    "names",
    [
        [f"class_{k}" for k in range(10)],
        ["b", "a"],
        ["same"],
        ["x😀", "y😀", "z😀"],
        # Keys over sparse spans ("class_10" varies in two columns).
        [f"class_{k}" for k in range(12)],
        ["cat", "dog", "bird", "émeu", "", "a much longer class name"],
    ],
)
def test_string_tables_match_numpy_unique(names):
    rng = np.random.default_rng(0)
    labels = np.array(names)
    # Different widths per array, and a class that only some arrays hold.
    wider = f"<U{labels.itemsize // 4 + 3}"
    arrays = [
        labels[rng.integers(0, len(names), 5000)],
        labels[rng.integers(0, max(len(names) - 1, 1), 5000)].astype(wider),
        labels[rng.integers(0, len(names), 5000)][::-1],
    ]
    table, values = _encoded_table(arrays)
    expected_table, expected_values = _joint_reference(arrays)
    np.testing.assert_array_equal(table, expected_table)
    assert values.tolist() == expected_values.tolist()


def test_string_table_when_the_sample_misses_a_character():
    n = 100_000
    y = np.full(n, "class_1")
    a = np.full(n, "class_1")
    y[3] = "class_2"  # not in the sample of every (n // 4096)-th row
    a[5] = "clasz_1"  # varies in a column that is constant in the sample
    a[7] = "class_10"  # a longer label: the trailing NUL varies
    table, values = _encoded_table([y, a])
    expected_table, expected_values = _joint_reference([y, a])
    np.testing.assert_array_equal(table, expected_table)
    assert values.tolist() == expected_values.tolist()


def test_big_endian_string_table():
    rng = np.random.default_rng(3)
    labels = np.array(["k1", "k2", "k3"])
    y, a = labels[rng.integers(0, 3, 300)], labels[rng.integers(0, 3, 300)]
    big_endian = _encoded_table([y.astype(">U2"), a])
    np.testing.assert_array_equal(big_endian[0], _joint_reference([y, a])[0])


def test_compare_precision_of_str_arrays_equals_object_arrays():
    from sklearn_precision_stats import compare_precision

    rng = np.random.default_rng(4)
    labels = np.array(["cat", "dog", "émeu"])
    y, a, b = (labels[rng.integers(0, 3, 400)] for _ in range(3))
    fast = compare_precision(y, {"a": a, "b": b})
    general = compare_precision(y.astype(object), {"a": a.astype(object), "b": b.astype(object)})
    pd.testing.assert_frame_equal(fast.table, general.table)


def _pandas_inputs(kind, arrays):
    if kind == "category":
        return [pd.Series(a, dtype="category") for a in arrays]
    if kind == "unused categories":
        categories = sorted(set(np.concatenate(arrays).tolist()) | {"zebra", "aardvark"})
        return [pd.Categorical(a, categories=categories[::-1]) for a in arrays]
    if kind == "string":
        return [pd.Series(a, dtype="string") for a in arrays]
    if kind == "str":
        return [pd.Series(a, dtype="str") for a in arrays]
    if kind == "mixed":
        return [arrays[0], pd.Series(arrays[1], dtype="category"), pd.array(arrays[2], "string")]
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["category", "unused categories", "string", "str", "mixed"])
@pytest.mark.parametrize("metric", ["precision", "npv", "accuracy"])
def test_pandas_categorical_and_string_labels_give_the_numpy_results(kind, metric):
    import sklearn_precision_stats as sps

    rng = np.random.default_rng(8)
    labels = np.array(["setosa", "versicolor", "virginica", "émeu"])
    arrays = [labels[rng.integers(0, 4, 600)] for _ in range(3)]
    compare = getattr(sps, f"compare_{metric}")
    expected = compare(arrays[0], {"a": arrays[1], "b": arrays[2]})
    y, a, b = _pandas_inputs(kind, arrays)
    result = compare(y, {"a": a, "b": b})
    pd.testing.assert_frame_equal(result.table, expected.table)
    np.testing.assert_array_equal(result.classes, expected.classes)
    # The records kept for resampling are the same, so are the resampled tests.
    if metric != "accuracy":
        tests = [
            res.global_test(method="permutation", n_resamples=50, random_state=0)
            for res in (result, expected)
        ]
        assert tests[0].pvalue == tests[1].pvalue


def test_categorical_joint_table_counts_codes_and_declines_missing_labels():
    y = pd.Categorical(["b", "a", "b", "c"], categories=["c", "b", "a", "unused"])
    a = pd.Categorical(["a", "a", "b", "d"])
    table, values = _tables.categorical_joint_table([y, a], 2**20, ["y_true", "y_preds['a']"])
    expected, expected_values = _joint_reference([np.asarray(y), np.asarray(a, dtype=str)])
    assert values.tolist() == ["a", "b", "c", "d", "unused"]
    np.testing.assert_array_equal(table[:4, :4], expected)
    assert table[4].sum() == table[:, 4].sum() == 0
    missing = pd.Categorical(["a", None, "b", "d"])
    assert _tables.categorical_joint_table([y, missing], 2**20) is None
    assert _tables.categorical_joint_table([y, pd.array(["a", "a", "b", "d"])], 2**20) is None
    assert _tables.categorical_joint_table([y, a], 3) is None


@pytest.mark.parametrize("dtype", ["category", "string", "str"])
def test_missing_pandas_labels_are_named_by_row(dtype):
    from sklearn_precision_stats import compare_precision

    y = pd.Series(["a", "b", "a", "b", "a"], dtype=dtype)
    a = pd.Series(["a", "b", None, "b", "a"], dtype=dtype)
    with pytest.raises(ValueError, match=r"y_preds\['a'\].*missing label.*row 2"):
        compare_precision(y, {"a": a, "b": y})


def test_object_table_matches_numpy_unique():
    rng = np.random.default_rng(9)
    labels = np.array(["cat", "dog", "émeu", "a much longer label"], dtype=object)
    arrays = [labels[rng.integers(0, 4, 70_000)] for _ in range(3)]
    # Equal labels held by different objects (strings made one by one).
    cats = np.array(["".join(["c", "at"]) for _ in range(3)], dtype=object)
    arrays[2][::7] = cats[np.arange(arrays[2][::7].shape[0]) % 3]
    table, values = _encoded_table(arrays)
    expected, expected_values = _joint_reference([a.astype(str) for a in arrays])
    assert values.tolist() == expected_values.tolist()
    np.testing.assert_array_equal(table, expected)


# Class "zz" is predicted once: its warnings are expected, the tables compared.
@pytest.mark.filterwarnings("ignore::sklearn_precision_stats.exceptions.UndefinedStatisticWarning")
def test_rare_and_missing_objects_through_compare():
    from sklearn_precision_stats import compare_precision

    rng = np.random.default_rng(11)
    labels = np.array(["a", "b", "c"], dtype=object)
    y, a, b = (labels[rng.integers(0, 3, 50_000)] for _ in range(3))
    a[12_346] = "".join(["z", "z"])  # not in the sample of rows
    result = compare_precision(y, {"a": a, "b": b})
    expected = compare_precision(y.astype(str), {"a": a.astype(str), "b": b.astype(str)})
    pd.testing.assert_frame_equal(result.table, expected.table)
    b[41_234] = None
    with pytest.raises(ValueError, match=r"y_preds\['b'\].*row 41234"):
        compare_precision(y, {"a": a, "b": b})


@pytest.mark.parametrize("rare", ["z", "Z", "zz"])
def test_string_table_when_a_rare_label_falls_outside_the_guess(rare):
    # The sample guesses one varying character spanning "a" .. "c": a rare
    # label above ("z"), below ("Z") or longer ("zz") makes keys outside
    # that range in the first pass, which the second pass recounts.
    rng = np.random.default_rng(12)
    labels = np.array(["a", "b", "c", rare])
    y = labels[rng.integers(0, 3, 50_000)]
    a = labels[rng.integers(0, 3, 50_000)]
    a[12_346] = rare
    table, values = _encoded_table([y, a])
    expected, expected_values = _joint_reference([y, a])
    assert values.tolist() == expected_values.tolist()
    np.testing.assert_array_equal(table, expected)
