"""compare_metric on degenerate inputs: one record, undefined estimates, bad parameters.

Each input gets a right answer, a ValueError naming the argument, or NaN
with exactly one UndefinedStatisticWarning and no other warning.
"""

import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics as skm

from sklearn_precision_stats import UndefinedStatisticWarning, compare_metric, compare_precision
from sklearn_precision_stats.simulation import make_paired_predictions


def _data(n=60, k=3, seed=0):
    return make_paired_predictions(n, precision=(0.8, 0.65), n_classes=k, random_state=seed)


def _call(*args, **kwargs):
    """The result and every warning raised, whatever the caller's filters."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = compare_metric(*args, **kwargs)
    return result, caught


def _only_undefined_warning(caught, *words):
    assert [w.category for w in caught] == [UndefinedStatisticWarning], [
        str(w.message) for w in caught
    ]
    for word in words:
        assert word in str(caught[0].message)
    assert caught[0].filename == __file__


@pytest.mark.parametrize("method", ["delta", "bootstrap"])
@pytest.mark.parametrize(
    "metric, average", [("mcc", None), ("f1", "macro"), ("f1", None), ("accuracy", None)]
)
def test_a_single_record_has_no_standard_error(method, metric, average):
    # Every row belongs to one record: the cluster-robust variance is zero
    # by construction, never a rounding residue with a p-value of 0.
    y, a, b = _data()
    result, caught = _call(
        y,
        {"a": a, "b": b},
        metric=metric,
        average=average,
        groups=np.zeros(len(y)),
        method=method,
        n_resamples=200,
        random_state=0,
    )
    _only_undefined_warning(caught, "only one record")
    table = result.table
    np.testing.assert_allclose(
        table["diff"],
        np.atleast_1d(_sklearn(metric, average, y, b) - _sklearn(metric, average, y, a)),
    )
    for column in ("diff_se", "diff_ci_low", "diff_ci_high", "diff_pvalue"):
        assert table[column].isna().all(), column
    for column in (f"{metric}_ci_low", f"{metric}_reference_ci_high"):
        assert table[column].isna().all(), column
    # Nor at another confidence level.
    other = result.to_frame(confidence_level=0.8)
    assert other[["diff_ci_low", "diff_ci_high", f"{metric}_ci_low"]].isna().all().all()


def _sklearn(metric, average, y, pred):
    if metric == "mcc":
        return skm.matthews_corrcoef(y, pred)
    if metric == "accuracy":
        return skm.accuracy_score(y, pred)
    return skm.f1_score(y, pred, average=average)


def test_a_single_row_has_no_standard_error():
    result, caught = _call([1], {"a": [1], "b": [0]}, metric="accuracy")
    _only_undefined_warning(caught, "only one record")
    row = result.table.iloc[0]
    assert row["diff"] == -1.0
    assert np.isnan(row["diff_se"]) and np.isnan(row["diff_ci_low"])


@pytest.mark.parametrize("n_clf", [2, 3])
def test_bootstrap_of_an_undefined_estimate_warns_once(n_clf):
    # A constant prediction has no MCC: one UndefinedStatisticWarning, no
    # RuntimeWarning from NumPy's nan-functions, and no claim that the
    # resamples of the defined comparisons were undefined.
    y, a, b = _data()
    preds = (
        {"a": a, "b": np.zeros_like(y)} if n_clf == 2 else {"a": a, "b": b, "c": np.zeros_like(y)}
    )
    result, caught = _call(
        y, preds, metric="mcc", method="bootstrap", n_resamples=300, random_state=0
    )
    _only_undefined_warning(caught, "prediction is constant")
    assert "replicates" not in str(caught[0].message)
    table = result.table.set_index("classifier")
    undefined = "b" if n_clf == 2 else "c"
    assert table.loc[undefined, ["mcc", "diff", "diff_se", "diff_ci_low"]].isna().all()
    if n_clf == 3:
        assert table.loc["b", "mcc"] == pytest.approx(skm.matthews_corrcoef(y, b), rel=1e-12)
        assert table.loc["b", "diff_se"] > 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        other = result.to_frame(confidence_level=0.8).set_index("classifier")
    assert other.loc[undefined, ["mcc_ci_low", "diff_ci_low"]].isna().all()


@pytest.mark.parametrize("beta", [0, -1, np.nan, np.inf, "2", True, None])
def test_fbeta_needs_a_finite_positive_beta(beta):
    y, a, b = _data()
    with pytest.raises(ValueError, match="beta > 0"):
        compare_metric(y, {"a": a, "b": b}, metric="fbeta", beta=beta)


def test_fbeta_accepts_numpy_beta():
    y, a, b = _data()
    table = compare_metric(
        y, {"a": a, "b": b}, metric="fbeta", beta=np.float32(2), average="macro"
    ).table
    assert table["fbeta"].iloc[0] == pytest.approx(
        skm.fbeta_score(y, b, beta=2, average="macro"), rel=1e-12
    )


def test_callable_returning_infinity_is_undefined():
    y, a, b = _data()

    def odd(matrix):
        return np.inf if matrix[0, 0] == 0 or matrix.sum() > 0 else 1.0

    result, caught = _call(y, {"a": a, "b": b}, metric=odd)
    _only_undefined_warning(caught, "infinity")
    assert result.table[["odd", "odd_reference", "diff", "diff_se"]].isna().all().all()


@pytest.mark.parametrize(
    "returned",
    [None, "0.5", 0.5 + 1j, [0.1, "a", 0.3], np.array([True, 0.5], dtype=object)],
    ids=["none", "string", "complex", "mixed-list", "objects"],
)
def test_callable_returning_no_number_is_an_error_naming_metric(returned):
    # None would be a NaN estimate everywhere, without a word; strings and
    # complex numbers a TypeError or a message that names nothing.
    y, a, b = _data()
    with pytest.raises(ValueError, match="metric must return a float or an array of 3"):
        compare_metric(y, {"a": a, "b": b}, metric=lambda matrix: returned)


@pytest.mark.parametrize("name", ["diff", "class", "classifier", "diff_pvalue", "diff_pvalue_holm"])
def test_callable_named_like_a_column_keeps_the_table_intact(name):
    # A callable called ``diff`` would head ``diff``, ``diff_ci_low``, ...
    # and overwrite the difference's columns.
    y, a, b = _data()

    def accuracy(matrix):
        return np.trace(matrix) / matrix.sum()

    accuracy.__name__ = name
    result = compare_metric(y, {"a": a, "b": b}, metric=accuracy)
    row = result.table.iloc[0]
    assert result.measure == "metric"
    assert row["classifier"] == "b" and row["class"] == "all"
    assert row["metric"] == pytest.approx(skm.accuracy_score(y, b), rel=1e-12)
    assert row["diff"] == pytest.approx(
        skm.accuracy_score(y, b) - skm.accuracy_score(y, a), rel=1e-12
    )
    assert row["diff_ci_low"] < row["diff"] < row["diff_ci_high"]
    assert "diff_pvalue_holm" in result.adjusted_pvalues("holm").columns


def test_callable_name_heads_the_columns():
    y, a, b = _data()

    def diffuse(matrix):
        return np.trace(matrix) / matrix.sum()

    assert "diffuse_reference" in compare_metric(y, {"a": a, "b": b}, metric=diffuse).table


def test_callable_gradient_at_a_rare_cell():
    # A classifier with a single false negative among many rows: the
    # numerical gradient must not push that count below zero, where the log
    # diagnostic odds ratio is undefined (that gave a NaN standard error
    # and a false "no variance" warning).
    rng = np.random.default_rng(0)
    n = 40_000
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.8, y, 1 - y)
    b = np.where(rng.random(n) < 0.7, y, 1 - y)
    false_negatives = np.flatnonzero((y == 1) & (b == 0))
    b[false_negatives[1:]] = 1

    def log_dor(matrix):
        return np.log(matrix[1, 1] * matrix[0, 0] / (matrix[0, 1] * matrix[1, 0]))

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        row = compare_metric(y, {"a": a, "b": b}, metric=log_dor).table.iloc[0]

    # The delta method by hand: d log DOR / d count = +-1 / count.
    def influence(pred):
        cell = 2 * y + pred
        counts = np.bincount(cell, minlength=4).astype(float)
        grad = np.array([1.0, -1.0, -1.0, 1.0]) / counts
        return n * (grad[cell] - grad @ counts / n)

    expected = np.sqrt(np.sum((influence(b) - influence(a)) ** 2)) / n
    assert row["diff_se"] == pytest.approx(expected, rel=1e-8)


def test_groups_indexed_unlike_the_predictions_is_an_error():
    # y_true has no index; groups and the predictions do, differently: their
    # rows would be paired by position with other records.
    y, a, b = _data()
    index = pd.RangeIndex(len(y))
    preds = {"a": pd.Series(a, index=index), "b": pd.Series(b, index=index)}
    groups = pd.Series(np.arange(len(y)) // 2, index=index[::-1])
    with pytest.raises(ValueError, match=r"groups and y_preds\['a'\] are pandas objects"):
        compare_metric(y, preds, metric="f1", groups=groups)


def test_multilabel_undefined_labels_in_one_warning_without_touching_the_filters(monkeypatch):
    # Two labels that "b" never predicts: one warning names both, and the
    # library never swaps the process-wide warning filters to gather them.
    rng = np.random.default_rng(0)
    y = (rng.random((200, 4)) < 0.4).astype(int)
    a = np.where(rng.random((200, 4)) < 0.85, y, 1 - y)
    b = np.where(rng.random((200, 4)) < 0.75, y, 1 - y)
    b[:, [1, 3]] = 0

    def forbidden(function):
        def guarded(*args, **kwargs):
            caller = sys._getframe(1).f_globals.get("__name__", "")
            assert not caller.startswith("sklearn_precision_stats"), function.__name__
            return function(*args, **kwargs)

        return guarded

    with pytest.warns(UndefinedStatisticWarning) as record, monkeypatch.context() as patch:
        for name in ("catch_warnings", "simplefilter", "filterwarnings"):
            patch.setattr(warnings, name, forbidden(getattr(warnings, name)))
        result = compare_precision(y, {"a": a, "b": b})
    assert len(record) == 1, [str(w.message) for w in record]
    message = str(record[0].message)
    assert "label 1:" in message and "label 3:" in message and "label 0:" not in message
    assert record[0].filename == __file__
    assert result.table["precision"].isna().tolist() == [False, True, False, True]
    # Each row is that label's own binary comparison.
    for j in range(4):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedStatisticWarning)
            alone = compare_precision(y[:, j], {"a": a[:, j], "b": b[:, j]}, labels=[1])
        np.testing.assert_allclose(
            result.table.loc[j, ["precision", "precision_reference"]].to_numpy(float),
            alone.table.loc[0, ["precision", "precision_reference"]].to_numpy(float),
            rtol=1e-12,
        )
