"""Inputs scikit-learn users pass: Arrow arrays, DataFrames of predictions,
NumPy scalars, odd chunks; and rejections that name the argument and the fix.
"""

import numpy as np
import pandas as pd
import pytest

import sklearn_precision_stats as sps
from sklearn_precision_stats import (
    ComparisonCounts,
    cochrans_q_test,
    compare_npv,
    compare_precision,
)

pa = pytest.importorskip("pyarrow")

pytestmark = pytest.mark.filterwarnings("ignore::sklearn_precision_stats.UndefinedStatisticWarning")

Y = np.array([0, 1, 0, 1, 0, 1, 0, 0, 2, 2, 1, 2])
A = np.array([0, 1, 1, 1, 0, 0, 0, 0, 2, 1, 1, 2])
B = np.array([0, 0, 0, 1, 1, 1, 0, 1, 2, 2, 2, 2])
GROUPS = np.repeat(np.arange(6), 2)
WORDS = np.array(["cat", "dog", "eel"])


def _arrow_string(values):
    return pa.array(values.tolist(), type=pa.string())


def _arrow_large_string(values):
    return pa.array(values.tolist(), type=pa.large_string())


def _arrow_dictionary(values):
    return pa.array(values.tolist()).dictionary_encode()


def _arrow_dictionary_unused(values):
    # A dictionary holding a value no row uses: it must not become a class.
    dictionary = pa.array(["zebra", *WORDS.tolist()])
    indices = pa.array(np.searchsorted(WORDS, values) + 1, type=pa.int32())
    return pa.DictionaryArray.from_arrays(indices, dictionary)


def _arrow_chunked(values):
    return pa.chunked_array([values[:5].tolist(), values[5:].tolist()], type=pa.string())


def _arrow_chunked_dictionary(values):
    return pa.chunked_array(
        [
            pa.array(values[:7].tolist()).dictionary_encode(),
            pa.array(values[7:].tolist()).dictionary_encode(),
        ]
    )


def _arrow_string_view(values):
    if not hasattr(pa, "string_view"):  # pyarrow < 16
        pytest.skip("string_view needs pyarrow >= 16")
    return pa.array(values.tolist(), type=pa.string_view())


ARROW_STRING_KINDS = [
    _arrow_string,
    _arrow_large_string,
    _arrow_string_view,
    _arrow_dictionary,
    _arrow_dictionary_unused,
    _arrow_chunked,
    _arrow_chunked_dictionary,
]


@pytest.mark.parametrize("to_arrow", ARROW_STRING_KINDS, ids=lambda f: f.__name__[1:])
@pytest.mark.parametrize("clustered", [False, True])
def test_arrow_string_labels_match_numpy(to_arrow, clustered):
    y, a, b = WORDS[Y], WORDS[A], WORDS[B]
    groups = GROUPS if clustered else None
    expected = compare_precision(y, {"a": a, "b": b}, groups=groups).table
    got = compare_precision(to_arrow(y), {"a": to_arrow(a), "b": to_arrow(b)}, groups=groups)
    pd.testing.assert_frame_equal(got.table, expected)
    counts = ComparisonCounts.from_arrays(
        to_arrow(y), {"a": to_arrow(a), "b": to_arrow(b)}, groups=groups
    )
    pd.testing.assert_frame_equal(compare_precision(counts).table, expected)


@pytest.mark.parametrize("arrow_type", [pa.int8(), pa.int64(), pa.float64()])
def test_arrow_numeric_and_dictionary_numeric_labels(arrow_type):
    expected = compare_npv(Y, {"a": A, "b": B}).table
    for convert in (
        lambda v: pa.array(v, type=arrow_type),
        lambda v: pa.array(v, type=arrow_type).dictionary_encode(),
        lambda v: pa.chunked_array([pa.array(v[:3], type=arrow_type), pa.array(v[3:], arrow_type)]),
    ):
        got = compare_npv(convert(Y), {"a": convert(A), "b": convert(B)}).table
        # Float labels 0.0, 1.0, 2.0 are the classes 0, 1, 2 of another dtype.
        pd.testing.assert_frame_equal(got, expected, check_dtype=False)
        np.testing.assert_array_equal(got["class"].to_numpy(), [0, 1, 2])


def test_arrow_labels_in_classic_tests():
    y, a, b = WORDS[Y], WORDS[A], WORDS[B]
    expected = cochrans_q_test(y, {"a": a, "b": b, "c": b})
    got = cochrans_q_test(
        _arrow_dictionary(y),
        {"a": _arrow_string(a), "b": _arrow_chunked(b), "c": _arrow_large_string(b)},
    )
    assert got.statistic == pytest.approx(expected.statistic, rel=1e-12)
    assert got.pvalue == pytest.approx(expected.pvalue, rel=1e-12)


def test_arrow_missing_label_names_argument_and_row():
    y = pa.array(["cat", "dog", None, "cat"])
    preds = {"a": pa.array(["cat"] * 4), "b": pa.array(["dog"] * 4)}
    with pytest.raises(ValueError, match=r"y_true has a missing label .*row 2"):
        compare_precision(y, preds)
    with pytest.raises(ValueError, match=r"y_preds\['b'\] has a missing label .*row 1"):
        compare_precision(
            pa.array(["cat"] * 4), {"a": preds["a"], "b": pa.array(["cat", None, "a", "b"])}
        )


# ----------------------------------------------------------- DataFrames
def test_pandas_dataframe_of_predictions_uses_columns_as_names():
    expected = compare_precision(Y, {"a": A, "b": B}, reference="b")
    frame = pd.DataFrame({"a": A, "b": B})
    got = compare_precision(Y, frame, reference="b")
    pd.testing.assert_frame_equal(got.table, expected.table)
    assert list(got.classifiers) == ["b", "a"]
    counts = ComparisonCounts.from_arrays(Y, frame)
    assert counts.classifiers == ("a", "b")
    counts.update(Y, frame)
    assert counts.n_rows == 2 * len(Y)


@pytest.mark.parametrize(
    "name",
    [
        "cochrans_q_test",
        "diagnostic_accuracy",
        "sensitivity_specificity_difference",
        "generalized_mcnemar",
        "relative_predictive_values",
        "compare_likelihood_ratios",
    ],
)
def test_dataframe_of_predictions_in_other_comparisons(name):
    function = getattr(sps, name)
    y, a, b = (v % 2 for v in (Y, A, B))  # binary: every function applies
    expected = function(y, {"a": a, "b": b})
    assert repr(function(y, pd.DataFrame({"a": a, "b": b}))) == repr(expected)


def test_dataframe_rows_are_paired_by_index():
    frame = pd.DataFrame({"a": A, "b": B}, index=np.arange(len(Y))[::-1])
    with pytest.raises(ValueError, match=r"y_true and y_preds\['a'\] are pandas objects"):
        compare_precision(pd.Series(Y), frame)


def test_polars_dataframe_of_predictions():
    pl = pytest.importorskip("polars")
    expected = compare_precision(WORDS[Y], {"a": WORDS[A], "b": WORDS[B]}).table
    frame = pl.DataFrame({"a": WORDS[A].tolist(), "b": WORDS[B].tolist()})
    got = compare_precision(pl.Series("y", WORDS[Y].tolist()), frame).table
    pd.testing.assert_frame_equal(got, expected)
    counts = ComparisonCounts.from_arrays(WORDS[Y], frame)
    pd.testing.assert_frame_equal(compare_precision(counts).table, expected)


@pytest.mark.parametrize(
    "y_preds, match",
    [
        (pd.DataFrame({"a": A}), r"at least two classifiers.*got 1"),
        (pd.DataFrame(np.c_[A, B, A], columns=["a", "b", "a"]), r"names in y_preds must be unique"),
        (np.c_[A, B], r"y_preds must be a dict.*or a DataFrame.*got ndarray"),
        ({"a", "b"}, r"y_preds must be a dict"),
        ("ab", r"'y_preds' parameter of compare_precision must be"),
    ],
)
def test_bad_prediction_containers_are_named_without_printing_them(y_preds, match):
    with pytest.raises(ValueError, match=match) as info:
        compare_precision(Y, y_preds)
    message = str(info.value)
    assert len(message) < 400
    assert "\n" not in message


@pytest.mark.parametrize(
    "kwargs, match",
    [
        # a DataFrame where a name belongs
        ({"reference": pd.DataFrame({"a": A, "b": B})}, r"'reference' .*Got an object of type"),
        # the arguments swapped
        (
            {"y_true": {"a": A, "b": B}, "y_preds": Y},
            r"y_true must be one array of labels \(one per row\), got a dict",
        ),
        ({"engine": "R"}, r"'engine' .*Got 'R' instead"),  # short values are still shown
    ],
)
def test_wrong_type_message_does_not_print_a_large_object(kwargs, match):
    args = {"y_true": Y, "y_preds": {"a": A, "b": B}, **kwargs}
    with pytest.raises(ValueError, match=match) as info:
        compare_precision(args.pop("y_true"), args.pop("y_preds"), **args)
    assert "\n" not in str(info.value)
    assert len(str(info.value)) < 400


# ------------------------------------------------- validation messages
@pytest.mark.parametrize("level", [np.float32(0.9), np.float16(0.9), np.float64(0.9), 0.9])
def test_numpy_float_scalars_are_accepted(level):
    got = compare_precision(Y, {"a": A, "b": B}, confidence_level=level).table
    expected = compare_precision(Y, {"a": A, "b": B}, confidence_level=float(level)).table
    pd.testing.assert_frame_equal(got, expected)


@pytest.mark.parametrize("level", [0, 1, 1.5, True, "0.9", np.int64(1)])
def test_confidence_level_out_of_range_still_rejected(level):
    with pytest.raises(ValueError, match="confidence_level"):
        compare_precision(Y, {"a": A, "b": B}, confidence_level=level)


@pytest.mark.parametrize(
    "bad",
    [np.c_[B, B], B[None, :], np.c_[B, B].astype(str), np.c_[B, B].tolist()],
    ids=["int", "row", "str", "list"],
)
def test_two_dimensional_prediction_names_the_classifier(bad):
    y_true = Y if np.asarray(bad).dtype.kind != "U" else Y.astype(str)
    a = A if np.asarray(bad).dtype.kind != "U" else A.astype(str)
    with pytest.raises(ValueError, match=r"y_preds\['b'\] must be 1-D .*got an array of shape"):
        compare_precision(y_true, {"a": a, "b": bad})


def test_column_vector_predictions_are_accepted():
    expected = compare_precision(Y, {"a": A, "b": B}).table
    got = compare_precision(Y[:, None], {"a": A[:, None], "b": B}).table
    pd.testing.assert_frame_equal(got, expected)
    one_column = compare_precision(pd.DataFrame({"y": Y}), {"a": A, "b": B}).table
    pd.testing.assert_frame_equal(one_column, expected)


# ------------------------------------------------------------ chunks
@pytest.mark.parametrize(
    "empty",
    [[], np.array([]), np.array([], dtype=np.int8), pa.array([], type=pa.string())],
    ids=["list", "float-array", "int8-array", "arrow"],
)
def test_empty_chunk_changes_nothing(empty):
    counts = ComparisonCounts.from_arrays(Y, {"a": A, "b": B})
    before = compare_precision(counts.copy()).table
    counts.update(empty, {"a": empty, "b": empty})
    assert counts.classes.dtype.kind == "i"
    assert counts.classes.tolist() == [0, 1, 2]
    pd.testing.assert_frame_equal(compare_precision(counts).table, before)
    clustered = ComparisonCounts.from_arrays(Y, {"a": A, "b": B}, groups=GROUPS)
    clustered.update(empty, {"a": empty, "b": empty}, groups=empty)
    assert clustered.classes.tolist() == [0, 1, 2]
    assert clustered.classes.dtype.kind == "i"


def test_empty_chunk_of_mismatched_lengths_is_still_an_error():
    counts = ComparisonCounts.from_arrays(Y, {"a": A, "b": B})
    with pytest.raises(ValueError, match=r"y_preds\['b'\] has 2 rows but y_true has 0"):
        counts.update([], {"a": [], "b": [0, 1]})


def test_arrow_dictionary_chunks_update_counts():
    y, a, b = WORDS[Y], WORDS[A], WORDS[B]
    expected = compare_precision(y, {"a": a, "b": b}).table
    counts = ComparisonCounts.from_arrays(
        _arrow_dictionary(y[:6]), {"a": _arrow_dictionary(a[:6]), "b": _arrow_string(b[:6])}
    )
    counts.update(
        _arrow_dictionary_unused(y[6:]),
        {"a": _arrow_dictionary(a[6:]), "b": _arrow_dictionary_unused(b[6:])},
    )
    pd.testing.assert_frame_equal(compare_precision(counts).table, expected)


def test_integer_and_level_checks_do_not_print_large_objects():
    result = compare_precision(Y, {"a": A, "b": B})
    with pytest.raises(ValueError, match=r"n_resamples must be an integer >= 2, got an object of"):
        result.global_test(n_resamples=np.arange(1000), random_state=0)
    with pytest.raises(ValueError, match=r"n_resamples must be an integer >= 2, got 1;"):
        result.global_test(n_resamples=1, random_state=0)


@pytest.mark.parametrize(
    "call",
    [
        lambda level: sps.compare_metric(Y, {"a": A, "b": B}, confidence_level=level),
        lambda level: sps.compare_accuracy(Y, {"a": A, "b": B}, confidence_level=level),
        lambda level: sps.bayesian_signed_rank_test(
            [0.8, 0.7, 0.9, 0.6],
            [0.7, 0.7, 0.8, 0.5],
            rope=level / 90,
            prior_strength=level,
            n_samples=np.int64(100),
            random_state=0,
        ),
    ],
    ids=["compare_metric", "compare_accuracy", "bayesian_signed_rank_test"],
)
def test_numpy_scalars_pass_every_parameter_check(call):
    # Validated as the Python numbers they hold: float32 is no Python float.
    call(np.float32(0.9))
    with pytest.raises(ValueError):
        call(np.float32(-1.5))
