"""compare_* on multilabel indicator matrices: one binary problem per label."""

import warnings

import numpy as np
import pytest

from sklearn_precision_stats import (
    UndefinedStatisticWarning,
    compare_accuracy,
    compare_npv,
    compare_precision,
    compare_recall,
    compare_specificity,
)

FUNCS = [compare_precision, compare_npv, compare_recall, compare_specificity, compare_accuracy]


def _data(n=300, n_labels=4, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.random((n, n_labels)) < 0.4).astype(int)
    bad = rng.random(n) < 0.3
    a = np.where(rng.random((n, n_labels)) < np.where(bad, 0.6, 0.9)[:, None], y, 1 - y)
    b = np.where(rng.random((n, n_labels)) < np.where(bad, 0.5, 0.85)[:, None], y, 1 - y)
    return y, {"a": a, "b": b}


def _binary(func, y, preds, j, **kwargs):
    labels = {} if func is compare_accuracy else {"labels": [1]}
    return func(y[:, j], {k: v[:, j] for k, v in preds.items()}, **labels, **kwargs).table


@pytest.mark.parametrize("func", FUNCS)
def test_each_label_is_its_binary_problem(func):
    y, preds = _data()
    table = func(y, preds).table
    assert table["class"].tolist() == [0, 1, 2, 3]
    numeric = table.columns[3:]
    for j in range(4):
        expected = _binary(func, y, preds, j)
        np.testing.assert_allclose(
            table.loc[j, numeric].to_numpy(float),
            expected.loc[0, numeric].to_numpy(float),
            rtol=1e-12,
            equal_nan=True,
        )


@pytest.mark.parametrize("func", FUNCS)
def test_groups_pass_through(func):
    y, preds = _data(n=120)
    idx = np.repeat(np.arange(120), 2)
    table = func(y[idx], {k: v[idx] for k, v in preds.items()}, groups=idx).table
    for j in (0, 3):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedStatisticWarning)
            expected = _binary(func, y[idx], {k: v[idx] for k, v in preds.items()}, j, groups=idx)
        np.testing.assert_allclose(
            table.loc[j, ["diff", "diff_se", "gs_pvalue"]].to_numpy(float),
            expected.loc[0, ["diff", "diff_se", "gs_pvalue"]].to_numpy(float),
            rtol=1e-12,
        )


@pytest.mark.parametrize(
    "func, role, bit",
    [
        (compare_precision, compare_precision, 1),
        (compare_recall, compare_recall, 1),
        (compare_npv, compare_precision, 0),
        (compare_specificity, compare_recall, 0),
    ],
)
def test_global_test_resamples_records(func, role, bit):
    # The record, all its labels together, is the unit: the same as the
    # stacked (label, bit) classes clustered by record.
    y, preds = _data()
    n, n_labels = y.shape
    offsets = 2 * np.arange(n_labels)
    stacked = role(
        (offsets + y).reshape(-1),
        {k: (offsets + v).reshape(-1) for k, v in preds.items()},
        groups=np.repeat(np.arange(n), n_labels),
        labels=(offsets + bit).tolist(),
    )
    multilabel = func(y, preds)
    np.testing.assert_allclose(
        multilabel.table["gs_pvalue"], stacked.table["gs_pvalue"], rtol=1e-12
    )
    for method in ("dai-cui", "permutation"):
        ours = multilabel.global_test(method=method, n_resamples=300, random_state=0)
        theirs = stacked.global_test(method=method, n_resamples=300, random_state=0)
        assert ours.pvalue == pytest.approx(theirs.pvalue, rel=1e-12)


def test_labels_select_columns_and_warnings_name_the_label():
    y, preds = _data()
    preds["b"][:, 2] = 0  # "b" never predicts label 2
    with pytest.warns(UndefinedStatisticWarning, match="label 2") as record:
        result = compare_precision(y, preds, labels=[2, 0])
    assert result.table["class"].tolist() == [2, 0]
    assert all("label 2" in str(w.message) for w in record)
    assert np.isnan(result.table.loc[0, "precision"])


def test_label_without_positives_is_an_error():
    y, preds = _data()
    y[:, 1] = 0
    for v in preds.values():
        v[:, 1] = 0
    with pytest.raises(ValueError, match="label 1 has no positive"):
        compare_precision(y, preds)
    assert compare_precision(y, preds, labels=[0, 2]).table.shape[0] == 2


def test_shapes_must_agree():
    y, preds = _data()
    preds["b"] = preds["b"][:, :2]
    with pytest.raises(ValueError, match="shape"):
        compare_precision(y, preds)


def test_label_warnings_point_at_the_caller():
    y, preds = _data()
    preds["b"][:, 2] = 0
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        compare_precision(y, preds)
    assert record and all(w.filename == __file__ for w in record)
