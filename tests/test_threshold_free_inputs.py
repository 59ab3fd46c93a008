"""Threshold-free comparisons on unusual inputs: right answers, clear errors, one warning."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

from sklearn_precision_stats import (
    UndefinedStatisticWarning,
    compare_average_precision,
    compare_precision_at_recall,
    compare_recall_at_precision,
    compare_roc_auc,
)

FUNCTIONS = [
    compare_average_precision,
    compare_precision_at_recall,
    compare_recall_at_precision,
    compare_roc_auc,
]


def _binary(n=120, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(int)
    return y, {"a": np.round(y + rng.normal(size=n), 1), "b": np.round(y + rng.normal(size=n), 1)}


def _undefined_warnings(record):
    return [w for w in record if w.category is UndefinedStatisticWarning]


@pytest.mark.parametrize("as_frame", [False, True])
def test_column_vector_scores_of_the_first_classifier_are_binary_scores(as_frame):
    # scikit-learn reads a (n, 1) column as one score per row; so does the
    # second classifier here, and so must the first.
    y, scores = _binary()
    column = scores["a"][:, None]
    first = pd.DataFrame({"score": scores["a"]}) if as_frame else column
    result = compare_average_precision(y, {"a": first, "b": scores["b"]}, n_resamples=20)
    assert result.table["average_precision_reference"].iloc[0] == pytest.approx(
        average_precision_score(y, scores["a"]), abs=1e-12
    )
    delong = compare_roc_auc(y, {"a": first, "b": scores["b"]})
    assert delong.table["roc_auc_reference"].iloc[0] == pytest.approx(
        roc_auc_score(y, scores["a"]), abs=1e-12
    )


def test_float_multilabel_indicator_is_accepted():
    rng = np.random.default_rng(1)
    y = (rng.random((150, 3)) < [0.2, 0.4, 0.6]).astype(float)
    scores = {"a": y + rng.normal(size=y.shape), "b": y + rng.normal(scale=2, size=y.shape)}
    result = compare_average_precision(y, scores, n_resamples=20, random_state=0)
    np.testing.assert_allclose(
        result.table["average_precision_reference"],
        average_precision_score(y, scores["a"], average=None),
        rtol=1e-12,
    )
    with pytest.raises(ValueError, match="multilabel indicator"):
        compare_average_precision(0.5 * y, scores, n_resamples=20)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"y_true": np.array([1, "a"] * 4, dtype=object)}, "y_true mixes strings and numbers"),
        ({"labels": np.array([0, "a"], dtype=object)}, "labels mixes strings and numbers"),
        ({"labels": ["0", "1"]}, "y_true holds numbers but labels holds strings"),
        ({"y_true": np.array([0.5, 1.5] * 4)}, r"y_true has continuous values \(e.g. 0.5\)"),
        ({"labels": []}, "labels is empty"),
        ({"labels": [0, 2]}, r"class 1 \(row 1\) that is not in labels"),
    ],
)
def test_label_errors_name_the_argument(kwargs, match):
    args = {
        "y_true": np.array([0, 1] * 4),
        "y_scores": {"a": np.arange(8.0), "b": np.arange(8.0)[::-1].copy()},
    }
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        compare_average_precision(**args)


def test_groups_are_record_ids_of_any_hashable_kind():
    # Record ids are only told apart, never ordered: a mix of numbers and
    # strings names records, as in compare_precision and mcnemar_test.
    rng = np.random.default_rng(0)
    y = np.array([0, 1] * 20)
    scores = {"a": y + rng.normal(size=40), "b": y + rng.normal(scale=2, size=40)}
    mixed = np.array([0, "r1", 2, "r3"] * 10, dtype=object)
    numbers = np.array([0, 1, 2, 3] * 10)
    res = compare_roc_auc(y, scores, groups=mixed, n_resamples=50, random_state=0)
    ref = compare_roc_auc(y, scores, groups=numbers, n_resamples=50, random_state=0)
    pd.testing.assert_frame_equal(res.table, ref.table)


@pytest.mark.parametrize(
    "bad",
    [
        np.array(["0.1", "0.7"] * 4),
        np.arange(8.0) + 1j,
        1.0,
        None,
    ],
)
@pytest.mark.parametrize("function", FUNCTIONS)
def test_non_numeric_scores_are_rejected(function, bad):
    y = np.array([0, 1] * 4)
    with pytest.raises(ValueError, match=r"y_scores\['a'\] must hold numeric scores"):
        function(y, {"a": bad, "b": np.arange(8.0)}, n_resamples=20)


# The weighted average leaves out a class without positives (it weighs
# nothing), but not one without negatives, where the AUC is undefined.
@pytest.mark.parametrize(
    "function, kwargs, average",
    [
        (compare_average_precision, {}, "macro"),
        (compare_precision_at_recall, {}, "macro"),
        (compare_recall_at_precision, {}, "macro"),
        (compare_roc_auc, {"method": "bootstrap"}, "macro"),
        (compare_roc_auc, {"method": "delong"}, "macro"),
        (compare_roc_auc, {"method": "bootstrap"}, "weighted"),
        (compare_roc_auc, {"method": "delong"}, "weighted"),
    ],
)
def test_average_over_an_undefined_class_names_that_class(function, kwargs, average):
    rng = np.random.default_rng(2)
    y = (rng.random((100, 3)) < 0.4).astype(int)
    y[:, 1] = 0 if average == "macro" else 1
    scores = {"a": rng.random((100, 3)), "b": rng.random((100, 3))}
    with pytest.warns(UndefinedStatisticWarning) as record:
        result = function(y, scores, average=average, n_resamples=20, random_state=0, **kwargs)
    (warning,) = _undefined_warnings(record)
    lacking = "no positive" if average == "macro" else "no positive or no negative"
    assert f"of the {average} average: class 1 has {lacking}" in str(warning.message)
    assert warning.filename == __file__
    assert np.isnan(result.table[result.measure].iloc[0])


@pytest.mark.parametrize("average", [None, "macro"])
def test_replicates_without_positives_are_counted_and_named(average):
    # Class 2 has two rows; with given weights, the replicates that draw
    # neither are known in advance.
    rng = np.random.default_rng(3)
    y = np.array([0, 1] * 20 + [2, 2])
    scores = {"a": rng.random((42, 3)), "b": rng.random((42, 3))}
    weights = rng.multinomial(42, np.full(42, 1 / 42), size=30)
    expected = int(np.count_nonzero(weights[:, -2:].sum(axis=1) == 0))
    assert 0 < expected < 30
    with pytest.warns(UndefinedStatisticWarning) as record:
        result = compare_average_precision(y, scores, average=average, n_resamples=weights)
    (warning,) = _undefined_warnings(record)
    message = str(warning.message)
    if average is None:
        assert f"of class 2: no positive rows in {expected} of 30 replicates" in message
        assert np.isnan(result.get(2, "b")["diff_ci_low"])
        assert np.isfinite(result.get(0, "b")["diff_ci_low"])
    else:
        assert f"macro average: class 2 has no positive rows in {expected} of 30" in message
        assert np.isnan(result.table["diff_ci_low"].iloc[0])


def test_regular_input_warns_nothing():
    y, scores = _binary()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for function in FUNCTIONS:
            function(y, scores, n_resamples=20, random_state=0)


@pytest.mark.parametrize(
    "function, kwargs",
    [
        (compare_average_precision, {}),
        (compare_precision_at_recall, {}),
        (compare_recall_at_precision, {}),
        (compare_roc_auc, {"method": "bootstrap"}),
    ],
)
@pytest.mark.parametrize("single", ["group", "row per class"])
def test_bootstrap_that_can_only_draw_the_sample_has_no_intervals(function, kwargs, single):
    # One group, or one row per class (drawn within its class): every
    # replicate is the sample, so the intervals would have width zero.
    if single == "group":
        y, scores = _binary()
        groups = np.zeros(y.shape[0])
    else:
        y, scores, groups = np.array([0, 1]), {"a": [0.2, 0.9], "b": [0.8, 0.1]}, None
    with pytest.warns(UndefinedStatisticWarning) as record:
        result = function(y, scores, groups=groups, n_resamples=20, random_state=0, **kwargs)
    (warning,) = _undefined_warnings(record)
    assert "every replicate repeats the sample" in str(warning.message)
    row = result.table.iloc[0]
    reference = {"average_precision": average_precision_score, "roc_auc": roc_auc_score}
    if result.measure in reference:
        expected = reference[result.measure](y, np.asarray(scores["b"]))
        assert row[result.measure] == pytest.approx(expected, abs=1e-12)
    columns = ["diff_se", "diff_ci_low", "diff_ci_high", "diff_pvalue", "diff_bca_low"]
    columns += [f"{result.measure}_ci_low", f"{result.measure}_reference_ci_high"]
    assert np.isnan(row[columns].to_numpy(dtype=float)).all()
    assert np.isfinite(row["diff"])


def test_plot_precision_recall_of_a_delong_comparison_says_how_to_get_curves():
    pytest.importorskip("matplotlib")
    from sklearn_precision_stats import plot_precision_recall

    y, scores = _binary()
    with pytest.raises(ValueError, match="method='bootstrap'"):
        plot_precision_recall(compare_roc_auc(y, scores))


@pytest.mark.parametrize("function", FUNCTIONS)
def test_swapping_the_reference_with_the_same_seed_mirrors_the_comparison(function):
    # The seed draws the same replicates whichever classifier is the
    # reference, so the comparison of b with a is that of a with b, negated.
    y, scores = _binary(n=200)
    kwargs = {"method": "bootstrap"} if function is compare_roc_auc else {}
    a = function(y, scores, n_resamples=200, random_state=0, **kwargs).table.iloc[0]
    b = function(y, scores, reference="b", n_resamples=200, random_state=0, **kwargs)
    b = b.table.iloc[0]
    assert b["diff"] == pytest.approx(-a["diff"], abs=1e-12)
    assert b["diff_se"] == pytest.approx(a["diff_se"], rel=1e-12)
    assert b["diff_pvalue"] == pytest.approx(a["diff_pvalue"], rel=1e-12)
    assert b["diff_ci_low"] == pytest.approx(-a["diff_ci_high"], abs=1e-12)
    assert b["diff_ci_high"] == pytest.approx(-a["diff_ci_low"], abs=1e-12)


@pytest.mark.parametrize(
    "function, kwargs",
    [
        (compare_average_precision, {}),
        (compare_precision_at_recall, {}),
        (compare_recall_at_precision, {}),
        (compare_roc_auc, {"method": "bootstrap"}),
        (compare_roc_auc, {"method": "delong"}),
    ],
)
def test_weighted_average_leaves_out_a_class_without_positives(function, kwargs):
    # scikit-learn weighs each class by its positives: a label without
    # positives weighs nothing, so the weighted average is that of the
    # other labels, replicates and all.
    rng = np.random.default_rng(5)
    y = (rng.random((150, 3)) < [0.3, 0.0, 0.5]).astype(int)
    scores = {"a": y + rng.normal(size=y.shape), "b": y + rng.normal(scale=2, size=y.shape)}
    weights = rng.multinomial(150, np.full(150, 1 / 150), size=40)
    kept = [0, 2]
    args = {"average": "weighted", "n_resamples": weights, "random_state": 0, **kwargs}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        full = function(y, scores, **args).table
    fewer = function(y[:, kept], {k: v[:, kept] for k, v in scores.items()}, **args).table
    numeric = [c for c in full.columns if c not in ("class", "classifier")]
    np.testing.assert_allclose(
        full[numeric].to_numpy(float), fewer[numeric].to_numpy(float), rtol=1e-12, atol=1e-15
    )
    reference = {"average_precision": average_precision_score, "roc_auc": roc_auc_score}
    name = numeric[0]
    if name in reference:
        with warnings.catch_warnings():
            # scikit-learn warns about the label without positives.
            warnings.simplefilter("ignore")
            expected = reference[name](y[:, kept], scores["a"][:, kept], average="weighted")
        assert full[f"{name}_reference"].iloc[0] == pytest.approx(expected, rel=1e-12)


def test_weighted_average_precision_with_a_class_of_labels_absent_from_y_true():
    rng = np.random.default_rng(6)
    y = rng.integers(0, 2, 200)
    scores = {"a": rng.random((200, 3)), "b": rng.random((200, 3))}
    result = compare_average_precision(
        y, scores, labels=[0, 1, 2], average="weighted", n_resamples=20, random_state=0
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = average_precision_score(np.eye(3)[y], scores["a"], average="weighted")
    assert result.table["average_precision_reference"].iloc[0] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    "rows, labels, match",
    [
        (slice(0, 0), None, "y_true is empty"),
        (slice(None), ["x", "x", "y"], "labels must not repeat"),
    ],
)
@pytest.mark.parametrize("function", FUNCTIONS)
def test_multilabel_errors_name_the_argument(function, rows, labels, match):
    rng = np.random.default_rng(7)
    y = (rng.random((30, 3)) < 0.5).astype(int)[rows]
    scores = {"a": rng.random((30, 3))[rows], "b": rng.random((30, 3))[rows]}
    with pytest.raises(ValueError, match=match):
        function(y, scores, labels=labels, n_resamples=20)


def test_sparse_scores_are_named_in_the_error():
    sparse = pytest.importorskip("scipy.sparse")
    y = np.array([0, 1] * 4)
    with pytest.raises(ValueError, match="got a csr_matrix"):
        compare_average_precision(y, {"a": sparse.csr_matrix(np.arange(8.0)), "b": np.arange(8.0)})


# The measures with an `average`, under each of their methods.
_AP_AND_AUC = [
    (compare_average_precision, {}),
    (compare_roc_auc, {"method": "bootstrap"}),
    (compare_roc_auc, {"method": "delong"}),
]


@pytest.mark.parametrize("function, kwargs", _AP_AND_AUC)
def test_average_is_ignored_for_a_binary_problem(function, kwargs):
    # scikit-learn's average_precision_score and roc_auc_score ignore
    # `average` for binary targets: one row, the positive class's value.
    y, scores = _binary()
    result = function(y, scores, average="macro", n_resamples=20, random_state=0, **kwargs)
    assert result.average is None
    assert "macro" not in result.summary().as_text()
    reference = {"average_precision": average_precision_score, "roc_auc": roc_auc_score}
    expected = reference[result.measure](y, scores["a"], average="macro")
    assert result.table[f"{result.measure}_reference"].iloc[0] == pytest.approx(expected, abs=1e-12)


def test_ragged_weights_are_a_value_error_naming_n_resamples():
    y, scores = _binary(n=20)
    with pytest.raises(ValueError, match="n_resamples must be an int"):
        compare_average_precision(y, scores, n_resamples=[[1] * 20, [1] * 19])


@pytest.mark.parametrize("function, kwargs", _AP_AND_AUC)
def test_multilabel_dataframe_columns_name_the_table_rows(function, kwargs):
    rng = np.random.default_rng(8)
    y = pd.DataFrame((rng.random((80, 3)) < 0.4).astype(int), columns=["cat", "dog", "eel"])
    scores = {"a": y.to_numpy() + rng.normal(size=(80, 3)), "b": rng.normal(size=(80, 3))}
    result = function(y, scores, n_resamples=20, random_state=0, **kwargs)
    assert result.table["class"].tolist() == ["cat", "dog", "eel"]
    assert result.get("dog", "b")[f"{result.measure}_reference"] == pytest.approx(
        {"average_precision": average_precision_score, "roc_auc": roc_auc_score}[result.measure](
            y["dog"], scores["a"][:, 1]
        ),
        abs=1e-12,
    )


@pytest.mark.parametrize("dtype", ["Int64", "boolean"])
def test_multilabel_pandas_nullable_indicator_is_accepted(dtype):
    rng = np.random.default_rng(9)
    y = (rng.random((80, 3)) < 0.4).astype(int)
    scores = {"a": y + rng.normal(size=(80, 3)), "b": rng.normal(size=(80, 3))}
    frame = pd.DataFrame(y).astype(dtype)
    result = compare_average_precision(frame, scores, n_resamples=20, random_state=0)
    np.testing.assert_allclose(
        result.table["average_precision_reference"],
        average_precision_score(y, scores["a"], average=None),
        rtol=1e-12,
    )
    frame.iloc[2, 1] = pd.NA
    with pytest.raises(ValueError, match="no missing values"):
        compare_average_precision(frame, scores, n_resamples=20)
