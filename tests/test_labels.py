"""Label encoding: stable codes across chunks, exact for every label dtype."""

import numpy as np
import pandas as pd
import pytest

from sklearn_precision_stats.engine import _labels
from sklearn_precision_stats.engine._labels import StreamingLabelEncoder, encode_labels


def _decoded(codes, encoder):
    return [encoder.values[c] for c in codes]


def _check_against_unique(arrays):
    """Codes decode to the input, and the sorted values equal numpy.unique."""
    codes, enc = encode_labels(*arrays)
    for arr, code in zip(arrays, codes, strict=True):
        assert code.dtype == np.intp
        np.testing.assert_array_equal(enc.values[code], np.asarray(arr))
    expected = np.unique(np.concatenate([np.asarray(a) for a in arrays]))
    np.testing.assert_array_equal(enc.values[enc.order], expected)
    return codes, enc


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int64, np.uint8, np.uint32, np.uint64])
def test_integers_match_numpy_unique(dtype):
    rng = np.random.default_rng(0)
    info = np.iinfo(dtype)
    lo = max(int(info.min), -50)
    arrays = [rng.integers(lo, lo + 20, 500).astype(dtype) for _ in range(3)]
    _, enc = _check_against_unique(arrays)
    assert enc.values.dtype == dtype


def test_int8_extremes_do_not_overflow():
    a = np.array([-100, 100, -100], dtype=np.int8)
    b = np.array([100, 0, -128], dtype=np.int8)
    c = np.array([127, -128, 0], dtype=np.int8)
    (ca, cb, cc), enc = _check_against_unique([a, b, c])
    assert enc.values.dtype == np.int8
    assert ca[0] == ca[2] != ca[1]
    assert enc.values[cc[0]] == 127


def test_uint8_with_negative_in_other_array():
    a = np.array([0, 255, 254], dtype=np.uint8)
    b = np.array([-1, 0, 127], dtype=np.int8)
    _, enc = _check_against_unique([a, b])
    assert enc.values.dtype == np.int16
    assert sorted(enc.values.tolist()) == [-1, 0, 127, 254, 255]


def test_uint64_near_two_to_the_64():
    top = np.iinfo(np.uint64).max
    a = np.array([top, top - 1, top - 2], dtype=np.uint64)
    b = np.array([top - 1, top, top], dtype=np.uint64)
    (ca, cb), enc = _check_against_unique([a, b])
    assert enc.values.dtype == np.uint64
    assert int(enc.values[ca[0]]) == 2**64 - 1
    assert ca[0] == cb[1]


def test_int64_and_uint64_mix_keeps_every_value_exactly():
    a = np.array([2**64 - 1, 0], dtype=np.uint64)
    b = np.array([-1, 2**63 - 1], dtype=np.int64)
    codes, enc = encode_labels(a, b)
    assert enc.values.dtype == object
    assert [int(v) for v in enc.values[codes[0]]] == [2**64 - 1, 0]
    assert [int(v) for v in enc.values[codes[1]]] == [-1, 2**63 - 1]
    assert enc.values[enc.order].tolist() == [-1, 0, 2**63 - 1, 2**64 - 1]


def test_sparse_integers():
    a = np.array([0, 10**12, 5, 10**12], dtype=np.int64)
    b = np.array([5, 5, -(10**12), 0], dtype=np.int64)
    (ca, _), enc = _check_against_unique([a, b])
    assert ca[1] == ca[3]
    assert enc.values.dtype == np.int64


def test_bool_labels():
    a = np.array([True, False, True])
    b = np.array([False, False, True])
    (ca, cb), enc = _check_against_unique([a, b])
    assert enc.values.dtype == bool
    assert enc.values[enc.order].tolist() == [False, True]


def test_integral_floats_are_labels():
    a = np.array([1.0, 2.0, -3.0])
    b = np.array([2, 2, 1])
    (ca, cb), enc = encode_labels(a, b)
    assert enc.values.dtype == np.float64
    np.testing.assert_array_equal(enc.values[ca], a)
    np.testing.assert_array_equal(enc.values[cb], b)


@pytest.mark.parametrize(
    "kind", ["numpy", "object", "category", "arrow", "arrow-dictionary", "pandas-str"]
)
def test_string_containers_agree(kind):
    pa = pytest.importorskip("pyarrow")
    rng = np.random.default_rng(1)
    names = np.array(["cat", "dog", "émeu", "a much longer class name", ""])
    y = names[rng.integers(0, 5, 300)]
    p = names[rng.integers(0, 4, 300)]
    wrap = {
        "numpy": lambda a: a,
        "object": lambda a: a.astype(object),
        "category": lambda a: pd.Series(a, dtype="category"),
        "arrow": pa.array,
        "arrow-dictionary": lambda a: pa.array(a).dictionary_encode(),
        "pandas-str": lambda a: pd.Series(a, dtype="string"),
    }[kind]
    codes, enc = encode_labels(wrap(y), wrap(p))
    np.testing.assert_array_equal(enc.values[codes[0]].astype(str), y)
    np.testing.assert_array_equal(enc.values[codes[1]].astype(str), p)
    assert enc.values[enc.order].astype(str).tolist() == sorted(set(y) | set(p))


def test_codes_are_stable_across_chunks():
    rng = np.random.default_rng(2)
    full = rng.integers(0, 6, 1000)
    full[:500] = np.minimum(full[:500], 2)  # new labels only in later chunks
    enc = StreamingLabelEncoder()
    first = enc.encode(full[:500])[0].copy()
    values_before = enc.values.copy()
    rest = enc.encode(full[500:])[0]
    np.testing.assert_array_equal(enc.values[: len(values_before)], values_before)
    np.testing.assert_array_equal(enc.values[np.concatenate([first, rest])], full)
    np.testing.assert_array_equal(enc.values[enc.order], np.arange(6))


def test_chunks_that_extend_the_integer_range_downwards():
    enc = StreamingLabelEncoder()
    a = enc.encode(np.array([10, 11, 10]))[0]
    b = enc.encode(np.array([3, 10, 50000]))[0]
    c = enc.encode(np.array([-(10**9), 11]))[0]  # far below the others
    assert a.tolist() == [0, 1, 0]
    assert b[1] == 0 and c[1] == 1
    labels = enc.values[np.concatenate([a, b, c])].tolist()
    assert labels == [10, 11, 10, 3, 10, 50000, -(10**9), 11]


def test_string_chunks_and_merge():
    left, right = StreamingLabelEncoder(), StreamingLabelEncoder()
    ca = left.encode(np.array(["x", "y"]))[0]
    cb = right.encode(np.array(["z", "x", "x"]))[0]
    mapping = left.merge(right)
    np.testing.assert_array_equal(left.values[mapping[cb]], ["z", "x", "x"])
    np.testing.assert_array_equal(left.values[ca], ["x", "y"])


def test_codes_of_known_and_unknown_labels():
    (_,), enc = encode_labels(np.array([3, 1, 2]))
    np.testing.assert_array_equal(enc.values[enc.codes_of([1, 3])], [1, 3])
    with pytest.raises(ValueError, match="label 7 in labels does not occur"):
        enc.codes_of([7])


@pytest.mark.parametrize(
    ("bad", "match"),
    [
        (np.array([0.2, 0.9, 0.4]), r"y_pred has continuous values .*predict"),
        (np.array([1.0, np.nan, 0.0]), "y_pred contains NaN"),
        (np.array([1.0, np.inf, 0.0]), "y_pred contains inf"),
        (np.array(["a", None, "b"], dtype=object), "y_pred has a missing label"),
        (np.array(["a", 1, "b"], dtype=object), "y_pred mixes strings and numbers"),
        (np.array([1, 0.5, 1], dtype=object), "y_pred has continuous values"),
        (np.array([[0, 1], [1, 0]]), "y_pred must be 1-D"),
        (np.array([1 + 1j, 0]), "y_pred has complex values"),
    ],
)
def test_invalid_labels_name_the_argument(bad, match):
    with pytest.raises(ValueError, match=match):
        encode_labels(np.array([0, 1, 1]), bad, names=("y_true", "y_pred"))


def test_arrow_nulls_are_rejected():
    pa = pytest.importorskip("pyarrow")
    with pytest.raises(ValueError, match="y_true has a missing label at row 1"):
        encode_labels(pa.array(["a", None]), names=("y_true",))


def test_strings_and_numbers_across_arrays():
    with pytest.raises(ValueError, match="y_pred holds strings but y_true holds numbers"):
        encode_labels(np.array([0, 1]), np.array(["0", "1"]), names=("y_true", "y_pred"))
    enc = StreamingLabelEncoder()
    enc.encode(np.array(["a"]), names=["chunk 1"])
    with pytest.raises(ValueError, match="chunk 2 holds numbers"):
        enc.encode(np.array([1]), names=["chunk 2"])


def test_empty_arrays():
    codes, enc = encode_labels(np.array([], dtype=np.int64), np.array([], dtype=np.int64))
    assert [c.size for c in codes] == [0, 0]
    assert enc.n_values == 0


def test_object_labels_shared_or_distinct_objects():
    rng = np.random.default_rng(4)
    index = rng.integers(0, 3, 20000)
    shared = np.array(["lab0", "lab1", "lab2"], dtype=object)[index]
    # One new (equal) string object per row: beyond the identity fast path.
    distinct = np.empty(index.shape[0], dtype=object)
    distinct[:] = [f"lab{i}" for i in index]
    assert len({id(v) for v in distinct}) > 10000
    for arr in (shared, distinct):
        (code,), enc = encode_labels(arr)
        np.testing.assert_array_equal(enc.values[code], arr)
        assert enc.values[enc.order].tolist() == ["lab0", "lab1", "lab2"]


@pytest.mark.parametrize("strings", [False, True])
def test_encode_sorted_equals_numpy_unique(strings):
    rng = np.random.default_rng(6)
    arrays = [rng.integers(0, 8, 300), rng.integers(-3, 5, 300), rng.integers(2, 12, 300)]
    if strings:
        arrays = [np.array([f"k{v:+d}" for v in a]) for a in arrays]
    codes, values = _labels.encode_sorted(*arrays)
    expected_values, inverse = np.unique(np.concatenate(arrays), return_inverse=True)
    np.testing.assert_array_equal(values, expected_values)
    np.testing.assert_array_equal(np.concatenate(codes), inverse.ravel())
