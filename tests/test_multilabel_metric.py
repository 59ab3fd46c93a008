"""compare_metric on multilabel indicator matrices: scikit-learn values, records as units."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

from sklearn_precision_stats import UndefinedStatisticWarning, compare_metric


def _data(n=400, n_labels=5, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.random((n, n_labels)) < rng.uniform(0.2, 0.6, n_labels)).astype(int)
    # Errors shared across a record's labels, so its labels are correlated.
    bad = rng.random(n) < 0.3
    a = np.where(rng.random((n, n_labels)) < np.where(bad, 0.6, 0.9)[:, None], y, 1 - y)
    b = np.where(rng.random((n, n_labels)) < np.where(bad, 0.5, 0.85)[:, None], y, 1 - y)
    return y, {"a": a, "b": b}


@pytest.mark.parametrize(
    "metric, func, params",
    [
        ("f1", skm.f1_score, {}),
        ("precision", skm.precision_score, {}),
        ("recall", skm.recall_score, {}),
        ("jaccard", skm.jaccard_score, {}),
        ("fbeta", skm.fbeta_score, {"beta": 2.0}),
    ],
)
@pytest.mark.parametrize("average", [None, "micro", "macro", "weighted"])
def test_values_equal_sklearn(metric, func, params, average):
    y, preds = _data()
    table = compare_metric(y, preds, metric=metric, average=average, **params).table
    np.testing.assert_allclose(
        table[metric], np.atleast_1d(func(y, preds["b"], average=average, **params)), rtol=1e-12
    )
    np.testing.assert_allclose(
        table[f"{metric}_reference"],
        np.atleast_1d(func(y, preds["a"], average=average, **params)),
        rtol=1e-12,
    )


def test_one_row_per_label_equals_the_binary_problem():
    y, preds = _data()
    table = compare_metric(y, preds, metric="f1").table
    assert table["class"].tolist() == list(range(y.shape[1]))
    for j in range(y.shape[1]):
        binary = compare_metric(
            y[:, j], {k: v[:, j] for k, v in preds.items()}, metric="f1", average="binary"
        ).table
        np.testing.assert_allclose(
            table.loc[j, ["diff", "diff_se", "diff_pvalue"]].to_numpy(float),
            binary.loc[0, ["diff", "diff_se", "diff_pvalue"]].to_numpy(float),
            rtol=1e-12,
        )


@pytest.mark.parametrize("average", ["macro", "micro", "weighted"])
def test_averaged_variance_treats_the_record_as_the_unit(average):
    # Independent: records as multinomial cells, numerical gradient of
    # scikit-learn's averaged F1 through sample_weight.
    y, preds = _data(n=300, n_labels=4)
    a, b = preds["a"], preds["b"]
    rows = np.concatenate([y, a, b], axis=1)
    distinct, counts = np.unique(rows, axis=0, return_counts=True)
    n_labels = y.shape[1]
    yy, aa, bb = np.split(distinct, [n_labels, 2 * n_labels], axis=1)
    pi = counts / counts.sum()

    def diff(w):
        return skm.f1_score(yy, bb, average=average, sample_weight=w) - skm.f1_score(
            yy, aa, average=average, sample_weight=w
        )

    grad = np.empty(len(pi))
    for i in range(len(pi)):
        up, down = pi.copy(), pi.copy()
        up[i] += 1e-6
        down[i] -= 1e-6
        grad[i] = (diff(up) - diff(down)) / 2e-6
    expected = grad @ ((np.diag(pi) - np.outer(pi, pi)) / counts.sum()) @ grad
    table = compare_metric(y, preds, metric="f1", average=average).table
    assert table["diff_se"].iloc[0] ** 2 == pytest.approx(expected, rel=1e-6)


def test_bootstrap_resamples_records():
    y, preds = _data()
    delta = compare_metric(y, preds, metric="f1", average="macro").table
    boot = compare_metric(
        y, preds, metric="f1", average="macro", method="bootstrap", n_resamples=2000, random_state=0
    )
    assert boot.table["diff_se"].iloc[0] == pytest.approx(delta["diff_se"].iloc[0], rel=0.1)
    assert boot.replicates["a"].shape == (2000, 1)


def test_repeated_records_with_groups_change_nothing():
    y, preds = _data(n=150)
    once = compare_metric(y, preds, metric="f1", average="macro").table
    idx = np.repeat(np.arange(150), 2)
    twice = compare_metric(
        y[idx], {k: v[idx] for k, v in preds.items()}, metric="f1", average="macro", groups=idx
    ).table
    cols = ["f1", "diff", "diff_se", "diff_pvalue"]
    np.testing.assert_allclose(twice[cols], once[cols], rtol=1e-10)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"metric": "mcc"}, "not available for multilabel"),
        ({"metric": "npv", "average": "samples"}, "samples"),
        ({"metric": "f1", "average": "binary"}, "binary"),
    ],
)
def test_unavailable_options(kwargs, match):
    y, preds = _data(n=50)
    with pytest.raises(ValueError, match=match):
        compare_metric(y, preds, **kwargs)


def test_non_indicator_values_are_an_error():
    y, preds = _data(n=50)
    preds["b"] = preds["b"] * 2
    with pytest.raises(ValueError, match="only 0 and 1"):
        compare_metric(y, preds, metric="f1")


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(40, 150))
def test_label_and_row_order_do_not_matter(seed, n):
    y, preds = _data(n=n, n_labels=4, seed=seed)
    y[:2] = [[1, 1, 1, 1], [0, 0, 0, 0]]
    rng = np.random.default_rng(seed)
    cols, rows = rng.permutation(4), rng.permutation(n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        base = compare_metric(y, preds, metric="f1").table
        moved = compare_metric(
            y[rows][:, cols], {k: v[rows][:, cols] for k, v in preds.items()}, metric="f1"
        ).table
        macro = compare_metric(y, preds, metric="jaccard", average="macro").table
        macro_moved = compare_metric(
            y[rows][:, cols],
            {k: v[rows][:, cols] for k, v in preds.items()},
            metric="jaccard",
            average="macro",
        ).table
    cols_ = ["diff", "diff_se", "diff_pvalue"]
    np.testing.assert_allclose(moved[cols_], base.loc[cols, cols_], rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(macro_moved[cols_], macro[cols_], rtol=1e-10, atol=1e-14)
