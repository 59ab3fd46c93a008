"""compare_metric with average="samples" on multilabel indicator matrices."""

import warnings

import numpy as np
import pytest
from sklearn import metrics as skm

from sklearn_precision_stats import UndefinedStatisticWarning, compare_metric

MEASURES = [
    ("precision", skm.precision_score, {}),
    ("recall", skm.recall_score, {}),
    ("f1", skm.f1_score, {}),
    ("fbeta", skm.fbeta_score, {"beta": 2.0}),
    ("jaccard", skm.jaccard_score, {}),
]


def _data(n=400, n_labels=5, seed=0):
    """Indicator matrices where every row's value is defined for every measure."""
    rng = np.random.default_rng(seed)
    y = (rng.random((n, n_labels)) < rng.uniform(0.2, 0.6, n_labels)).astype(int)
    bad = rng.random(n) < 0.3
    a = np.where(rng.random((n, n_labels)) < np.where(bad, 0.6, 0.9)[:, None], y, 1 - y)
    b = np.where(rng.random((n, n_labels)) < np.where(bad, 0.5, 0.85)[:, None], y, 1 - y)
    # A label every row has and every classifier predicts: no row is empty.
    y[:, 0] = a[:, 0] = b[:, 0] = 1
    return y, {"a": a, "b": b}


def _row_values(y, pred, func, params):
    """Each row's value from scikit-learn: the samples average of that row alone."""
    return np.array(
        [func(y[i : i + 1], pred[i : i + 1], average="samples", **params) for i in range(len(y))]
    )


@pytest.mark.parametrize("metric, func, params", MEASURES)
def test_values_equal_sklearn(metric, func, params):
    y, preds = _data()
    table = compare_metric(y, preds, metric=metric, average="samples", **params).table
    assert table["class"].tolist() == ["samples"]
    assert abs(table.loc[0, metric] - func(y, preds["b"], average="samples", **params)) < 1e-12
    assert (
        abs(table.loc[0, f"{metric}_reference"] - func(y, preds["a"], average="samples", **params))
        < 1e-12
    )


@pytest.mark.parametrize("metric, func, params", MEASURES)
def test_labels_restrict_the_columns_as_in_sklearn(metric, func, params):
    y, preds = _data()
    table = compare_metric(
        y, preds, metric=metric, average="samples", labels=[0, 3, 1], **params
    ).table
    expected = func(y, preds["b"], average="samples", labels=[0, 3, 1], **params)
    assert abs(table.loc[0, metric] - expected) < 1e-12


@pytest.mark.parametrize("metric, func, params", MEASURES)
def test_delta_method_is_the_paired_mean_of_row_differences(metric, func, params):
    y, preds = _data(n=250)
    d = _row_values(y, preds["b"], func, params) - _row_values(y, preds["a"], func, params)
    va = _row_values(y, preds["a"], func, params)
    row = compare_metric(y, preds, metric=metric, average="samples", **params).table.loc[0]
    n = len(d)
    se = d.std(ddof=0) / np.sqrt(n)
    np.testing.assert_allclose(row["diff"], d.mean(), rtol=1e-12)
    np.testing.assert_allclose(row["diff_se"], se, rtol=1e-10)
    np.testing.assert_allclose(
        row["diff_pvalue"], 2 * __import__("scipy").stats.norm.sf(abs(d.mean() / se)), rtol=1e-9
    )
    ref_se = va.std(ddof=0) / np.sqrt(n)
    np.testing.assert_allclose(
        row[f"{metric}_reference_ci_high"] - row[f"{metric}_reference"], 1.959963984540054 * ref_se
    )


def test_swapping_classifiers_negates_the_difference():
    y, preds = _data()
    ab = compare_metric(y, preds, metric="f1", average="samples").table.loc[0]
    ba = compare_metric(y, preds, metric="f1", average="samples", reference="b").table.loc[0]
    np.testing.assert_allclose(ba["diff"], -ab["diff"], rtol=1e-12)
    np.testing.assert_allclose(ba["diff_se"], ab["diff_se"], rtol=1e-12)
    np.testing.assert_allclose(ba["diff_pvalue"], ab["diff_pvalue"], rtol=1e-12)


def test_repeated_rows_with_groups_change_nothing():
    y, preds = _data(n=150)
    once = compare_metric(y, preds, metric="jaccard", average="samples").table
    idx = np.repeat(np.arange(150), 3)
    thrice = compare_metric(
        y[idx],
        {k: v[idx] for k, v in preds.items()},
        metric="jaccard",
        average="samples",
        groups=idx,
    ).table
    cols = ["jaccard", "jaccard_ci_low", "diff", "diff_se", "diff_ci_low", "diff_pvalue"]
    np.testing.assert_allclose(thrice[cols], once[cols], rtol=1e-10)


def test_repeated_rows_with_groups_bootstrap_records():
    # The records are resampled, so the spread is that of 150 records, not 450 rows.
    y, preds = _data(n=150)
    kwargs = {"metric": "jaccard", "average": "samples", "method": "bootstrap"}
    once = compare_metric(y, preds, n_resamples=3000, random_state=1, **kwargs).table.loc[0]
    idx = np.repeat(np.arange(150), 3)
    thrice = compare_metric(
        y[idx],
        {k: v[idx] for k, v in preds.items()},
        groups=idx,
        n_resamples=3000,
        random_state=2,
        **kwargs,
    ).table.loc[0]
    np.testing.assert_allclose(thrice["diff"], once["diff"], rtol=1e-12)
    assert abs(thrice["diff_se"] / once["diff_se"] - 1) < 0.1


def test_groups_sum_rows_per_record():
    # Two different rows per record (e.g. two folds): the variance is that of
    # the records' sums of row influences, not of the rows.
    y, preds = _data(n=300)
    records = np.arange(300) // 2
    row = compare_metric(y, preds, metric="recall", average="samples", groups=records).table
    d = _row_values(y, preds["b"], skm.recall_score, {}) - _row_values(
        y, preds["a"], skm.recall_score, {}
    )
    per_record = np.bincount(records, weights=d - d.mean())
    np.testing.assert_allclose(row.loc[0, "diff"], d.mean(), rtol=1e-12)
    np.testing.assert_allclose(
        row.loc[0, "diff_se"], np.sqrt((per_record**2).sum()) / len(d), rtol=1e-10
    )


def test_three_classifiers_give_an_omnibus_test():
    y, preds = _data()
    rng = np.random.default_rng(5)
    preds["c"] = np.where(rng.random(y.shape) < 0.8, y, 1 - y)
    preds["c"][:, 0] = 1
    result = compare_metric(y, preds, metric="precision", average="samples")
    assert len(result.table) == 2
    assert result.omnibus.loc[0, "df"] == 2


def test_bootstrap_is_reproducible_and_agrees_with_the_delta_method():
    y, preds = _data(n=3000, seed=3)
    kwargs = {"metric": "f1", "average": "samples"}
    delta = compare_metric(y, preds, **kwargs).table.loc[0]
    boot = compare_metric(y, preds, method="bootstrap", n_resamples=2000, random_state=0, **kwargs)
    again = compare_metric(y, preds, method="bootstrap", n_resamples=2000, random_state=0, **kwargs)
    np.testing.assert_array_equal(boot.replicates["b"], again.replicates["b"])
    row = boot.table.loc[0]
    assert row["diff"] == delta["diff"]
    assert abs(row["diff_se"] / delta["diff_se"] - 1) < 0.08
    assert abs(row["diff_ci_low"] - delta["diff_ci_low"]) < 0.25 * delta["diff_se"]
    assert abs(row["diff_ci_high"] - delta["diff_ci_high"]) < 0.25 * delta["diff_se"]
    # Each replicate is a mean over rows drawn with replacement: within [0, 1].
    assert ((boot.replicates["a"] >= 0) & (boot.replicates["a"] <= 1)).all()


@pytest.mark.parametrize(
    "metric, empty",
    [("precision", "pred"), ("recall", "true"), ("f1", "both"), ("jaccard", "both")],
)
def test_an_undefined_row_makes_the_average_nan_with_one_warning(metric, empty):
    y, preds = _data(n=60)
    if empty in ("true", "both"):
        y[7] = 0
    if empty in ("pred", "both"):
        preds["b"][7] = 0
    with pytest.warns(UndefinedStatisticWarning) as record:
        table = compare_metric(y, preds, metric=metric, average="samples").table
    assert len(record) == 1
    message = str(record[0].message)
    assert "1 of 60 rows" in message and "'b'" in message
    assert record[0].filename == __file__
    assert np.isnan(table.loc[0, metric]) and np.isnan(table.loc[0, "diff"])
    assert np.isnan(table.loc[0, "diff_se"]) and np.isnan(table.loc[0, "diff_pvalue"])


def test_an_undefined_average_has_no_bootstrap_interval():
    # Resamples that miss the undefined row are defined; the estimate is not.
    y, preds = _data(n=60)
    preds["b"][7] = 0
    with pytest.warns(UndefinedStatisticWarning):
        table = compare_metric(
            y,
            preds,
            metric="precision",
            average="samples",
            method="bootstrap",
            n_resamples=200,
            random_state=0,
        ).table
    row = table.loc[0]
    for column in ["precision", "precision_ci_low", "precision_ci_high", "diff", "diff_se"]:
        assert np.isnan(row[column])
    for column in ["diff_ci_low", "diff_ci_high", "diff_pvalue", "diff_bca_low"]:
        assert np.isnan(row[column])
    assert np.isfinite(row["precision_reference_ci_low"])


def test_defined_rows_give_no_warning():
    y, preds = _data(n=60)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compare_metric(
            y,
            preds,
            metric="precision",
            average="samples",
            method="bootstrap",
            n_resamples=50,
            random_state=0,
        )


@pytest.mark.parametrize("metric", ["npv", "specificity", "informedness", "markedness"])
def test_measures_sklearn_does_not_average_over_samples(metric):
    y, preds = _data(n=50)
    with pytest.raises(ValueError, match="average='samples' is defined.*average='macro'"):
        compare_metric(y, preds, metric=metric, average="samples")


def test_samples_needs_indicator_matrices():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 50)
    with pytest.raises(ValueError, match="multilabel indicator inputs only"):
        compare_metric(y, {"a": y, "b": y[::-1]}, metric="f1", average="samples")


def test_inputs_are_not_modified():
    y, preds = _data(n=80)
    copies = {k: v.copy() for k, v in preds.items()}
    y_copy = y.copy()
    compare_metric(y, preds, metric="f1", average="samples", labels=[0, 2])
    np.testing.assert_array_equal(y, y_copy)
    for k in preds:
        np.testing.assert_array_equal(preds[k], copies[k])


def test_row_order_does_not_matter():
    y, preds = _data(n=200)
    order = np.random.default_rng(9).permutation(200)
    cols = ["f1", "diff", "diff_se", "diff_pvalue"]
    for method in ("delta", "bootstrap"):
        kwargs = {"metric": "f1", "average": "samples", "method": method, "n_resamples": 200}
        base = compare_metric(y, preds, random_state=0, **kwargs).table
        shuffled = compare_metric(
            y[order], {k: v[order] for k, v in preds.items()}, random_state=0, **kwargs
        ).table
        np.testing.assert_allclose(shuffled[cols], base[cols], rtol=1e-12)


def _simulated(rng, n, n_labels=5, quality=(0.85, 0.85)):
    """Records whose labels and classifiers share a difficulty (correlated errors)."""
    y = (rng.random((n, n_labels)) < 0.35).astype(np.uint8)
    y[:, 0] = 1
    hard = rng.random(n) < 0.3
    preds = {}
    for name, q in zip("ab", quality, strict=True):
        right = np.where(hard, q - 0.25, q)[:, None]
        pred = np.where(rng.random((n, n_labels)) < right, y, 1 - y)
        pred[:, 0] = 1
        preds[name] = pred
    return y, preds


@pytest.mark.slow
@pytest.mark.parametrize("method, n_reps", [("delta", 4000), ("bootstrap", 1500)])
def test_size_under_exchangeable_classifiers(method, n_reps):
    # Equal quality: a and b are exchangeable, so their samples F1 is equal.
    rng = np.random.default_rng(41)
    rejected = 0
    for i in range(n_reps):
        y, preds = _simulated(rng, 1000)
        table = compare_metric(
            y,
            preds,
            metric="f1",
            average="samples",
            method=method,
            n_resamples=199,
            random_state=i,
        ).table
        rejected += table.loc[0, "diff_pvalue"] < 0.05
    assert 0.035 <= rejected / n_reps <= 0.065


@pytest.mark.slow
def test_coverage_and_power():
    rng = np.random.default_rng(12)
    y, preds = _simulated(rng, 1_000_000, quality=(0.85, 0.8))
    # The difference of the population's means, up to an error of ~4e-4.
    truth = compare_metric(y, preds, metric="f1", average="samples").table.loc[0, "diff"]
    covered, n_reps = 0, 2000
    for _ in range(n_reps):
        y, preds = _simulated(rng, 1000, quality=(0.85, 0.8))
        row = compare_metric(y, preds, metric="f1", average="samples").table.loc[0]
        covered += row["diff_ci_low"] <= truth <= row["diff_ci_high"]
    assert 0.935 <= covered / n_reps <= 0.965
    power = []
    for shift in (0.0, 0.01, 0.03):
        hits = 0
        for _ in range(300):
            y, preds = _simulated(rng, 1000, quality=(0.85, 0.85 - shift))
            table = compare_metric(y, preds, metric="f1", average="samples").table
            hits += table.loc[0, "diff_pvalue"] < 0.05
        power.append(hits / 300)
    assert power[0] < power[1] < power[2]
