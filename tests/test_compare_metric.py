"""compare_metric: point values against scikit-learn, identities, variances, validity."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn import metrics as skm

from sklearn_precision_stats import (
    MetricComparison,
    UndefinedStatisticWarning,
    compare_accuracy,
    compare_metric,
    compare_npv,
    compare_precision,
    compare_recall,
    compare_specificity,
)


def _data(n=400, k=4, seed=0, n_clf=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    preds = {}
    for j, acc in enumerate((0.7, 0.6, 0.65, 0.55)[:n_clf]):
        preds[f"c{j}"] = np.where(rng.random(n) < acc, y, rng.integers(0, k, n))
    return y, preds


PER_CLASS_SKLEARN = [
    ("f1", skm.f1_score, {}),
    ("precision", skm.precision_score, {}),
    ("recall", skm.recall_score, {}),
    ("jaccard", skm.jaccard_score, {}),
    ("fbeta", skm.fbeta_score, {"beta": 2.0}),
    ("fbeta", skm.fbeta_score, {"beta": 0.5}),
]


@pytest.mark.parametrize("metric, func, params", PER_CLASS_SKLEARN)
@pytest.mark.parametrize("average", [None, "macro", "micro", "weighted"])
def test_per_class_values_equal_sklearn(metric, func, params, average):
    y, preds = _data()
    result = compare_metric(y, preds, metric=metric, average=average, **params)
    table = result.table
    for name in ("c1", "c2"):
        ours = table.loc[table["classifier"] == name, metric].to_numpy()
        expected = np.atleast_1d(func(y, preds[name], average=average, **params))
        np.testing.assert_allclose(ours, expected, rtol=1e-12, atol=1e-15)
    ref = table.loc[table["classifier"] == "c1", f"{metric}_reference"].to_numpy()
    expected = np.atleast_1d(func(y, preds["c0"], average=average, **params))
    np.testing.assert_allclose(ref, expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("average", [None, "macro", "micro", "weighted"])
def test_labels_restrict_as_in_sklearn(average):
    y, preds = _data(k=5)
    labels = [0, 2, 3]
    result = compare_metric(y, preds, metric="f1", average=average, labels=labels)
    ours = result.table.loc[lambda t: t["classifier"] == "c1", "f1"].to_numpy()
    expected = skm.f1_score(y, preds["c1"], average=average, labels=labels)
    np.testing.assert_allclose(ours, np.atleast_1d(expected), rtol=1e-12)


def test_binary_average_uses_pos_label():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 300)
    preds = {"a": np.where(rng.random(300) < 0.8, y, 1 - y), "b": rng.integers(0, 2, 300)}
    for pos in (0, 1):
        result = compare_metric(y, preds, metric="f1", average="binary", pos_label=pos)
        assert result.table["class"].tolist() == [pos]
        assert result.table["f1"].iloc[0] == pytest.approx(
            skm.f1_score(y, preds["b"], pos_label=pos), rel=1e-12
        )


def test_per_class_measures_of_the_one_vs_rest_table():
    # specificity, NPV, informedness and markedness from one-vs-rest counts.
    y, preds = _data()
    result = compare_metric(y, preds, metric="informedness")
    mcm = skm.multilabel_confusion_matrix(y, preds["c1"])
    tn, fp, fn, tp = (mcm[:, i, j] for i, j in ((0, 0), (0, 1), (1, 0), (1, 1)))
    ours = result.table.loc[lambda t: t["classifier"] == "c1", "informedness"]
    np.testing.assert_allclose(ours, tp / (tp + fn) + tn / (tn + fp) - 1, rtol=1e-12)
    result = compare_metric(y, preds, metric="markedness", average="macro")
    expected = np.mean(tp / (tp + fp) + tn / (tn + fn) - 1)
    assert result.get("macro", "c1")["markedness"] == pytest.approx(expected, rel=1e-12)
    micro = compare_metric(y, preds, metric="specificity", average="micro").get("micro", "c1")
    assert micro["specificity"] == pytest.approx(tn.sum() / (tn.sum() + fp.sum()), rel=1e-12)


@pytest.mark.parametrize(
    "metric, func, params",
    [
        ("accuracy", skm.accuracy_score, {}),
        ("balanced_accuracy", skm.balanced_accuracy_score, {}),
        ("mcc", skm.matthews_corrcoef, {}),
        ("cohen_kappa", skm.cohen_kappa_score, {}),
        ("cohen_kappa", skm.cohen_kappa_score, {"weights": "linear"}),
        ("cohen_kappa", skm.cohen_kappa_score, {"weights": "quadratic"}),
    ],
)
@pytest.mark.parametrize("k", [2, 4])
def test_whole_matrix_values_equal_sklearn(metric, func, params, k):
    y, preds = _data(k=k)
    table = compare_metric(y, preds, metric=metric, **params).table
    assert table["class"].tolist() == ["all", "all"]
    for name in ("c1", "c2"):
        ours = table.loc[table["classifier"] == name, metric].iloc[0]
        assert ours == pytest.approx(func(y, preds[name], **params), rel=1e-12, abs=1e-15)
    assert table[f"{metric}_reference"].iloc[0] == pytest.approx(
        func(y, preds["c0"], **params), rel=1e-12, abs=1e-15
    )


def test_string_labels_and_sorted_classes():
    y, preds = _data(k=3)
    names = np.array(["cat", "dog", "eel"])
    result = compare_metric(names[y], {k: names[v] for k, v in preds.items()}, metric="f1")
    assert result.table["class"].tolist()[::2] == ["cat", "dog", "eel"]
    np.testing.assert_allclose(
        result.table.loc[lambda t: t["classifier"] == "c1", "f1"],
        skm.f1_score(y, preds["c1"], average=None),
        rtol=1e-12,
    )


# Undefined values --------------------------------------------------------------


def test_undefined_class_is_nan_with_one_warning():
    y = np.array([0, 0, 1, 1, 0, 1, 0, 1])
    preds = {"ref": np.array([0, 0, 1, 1, 0, 1, 2, 1]), "new": np.array([0, 1, 1, 1, 0, 0, 0, 1])}
    # class 2: never true, predicted once by the reference, never by "new".
    with pytest.warns(UndefinedStatisticWarning) as record:
        result = compare_metric(y, preds, metric="f1")
    assert len(record) == 1
    message = str(record[0].message)
    assert "class 2" in message and "'new'" in message and "TP + FP + FN = 0" in message
    row = result.get(2)
    assert np.isnan(row["f1"]) and np.isnan(row["diff"]) and np.isnan(row["diff_pvalue"])
    assert row["f1_reference"] == 0.0


def test_mcc_of_constant_prediction_is_nan():
    y = np.array([0, 1, 0, 1, 1, 0, 1, 0])
    preds = {"a": np.array([0, 1, 0, 1, 0, 0, 1, 1]), "const": np.zeros(8, dtype=int)}
    with pytest.warns(UndefinedStatisticWarning, match="constant") as record:
        result = compare_metric(y, preds, metric="mcc")
    assert len(record) == 1 and "'const'" in str(record[0].message)
    assert np.isnan(result.table["mcc"].iloc[0])


def test_warning_points_at_the_caller():
    y = np.array([0, 1, 0, 1, 1, 0, 1, 0])
    preds = {"a": np.array([0, 1, 0, 1, 0, 0, 1, 1]), "const": np.zeros(8, dtype=int)}
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        compare_metric(y, preds, metric="mcc")
    assert record[0].filename == __file__


# Identities --------------------------------------------------------------------

_SIBLINGS = {
    "precision": compare_precision,
    "recall": compare_recall,
    "npv": compare_npv,
    "specificity": compare_specificity,
    "accuracy": compare_accuracy,
}


@pytest.mark.parametrize("metric", list(_SIBLINGS))
@pytest.mark.parametrize("clustered", [False, True])
def test_delta_difference_equals_compare_measure(metric, clustered):
    y, preds = _data(n=300, k=3)
    groups = None
    if clustered:
        rng = np.random.default_rng(5)
        idx = np.repeat(np.arange(300), rng.integers(1, 4, 300))
        y, groups = y[idx], idx
        preds = {k: v[idx].copy() for k, v in preds.items()}
        flip = rng.random(len(idx)) < 0.1
        preds["c1"][flip] = rng.integers(0, 3, flip.sum())
    ours = compare_metric(y, preds, metric=metric, groups=groups).table
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        theirs = _SIBLINGS[metric](y, preds, groups=groups).table
    np.testing.assert_allclose(ours["diff"], theirs["diff"], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(ours["diff_se"], theirs["diff_se"], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("metric, average", [("f1", "macro"), ("mcc", None), ("f1", None)])
def test_identical_repeats_with_groups_change_nothing(metric, average):
    y, preds = _data(n=200, k=3)
    once = compare_metric(y, preds, metric=metric, average=average).table
    idx = np.repeat(np.arange(200), 3)
    repeated = compare_metric(
        y[idx],
        {k: v[idx] for k, v in preds.items()},
        metric=metric,
        average=average,
        groups=idx,
    )
    assert repeated.n_rows == 600 and repeated.n_records == 200
    cols = [c for c in once.columns if c not in ("class", "classifier")]
    np.testing.assert_allclose(repeated.table[cols], once[cols], rtol=1e-10)


@pytest.mark.parametrize("metric", ["f1", "mcc", "balanced_accuracy", "cohen_kappa"])
def test_swapping_negates_diff_and_keeps_pvalues(metric):
    y, preds = _data(n=300, k=3, n_clf=2)
    forward = compare_metric(y, preds, metric=metric, reference="c0").table
    backward = compare_metric(y, preds, metric=metric, reference="c1").table
    np.testing.assert_allclose(forward["diff"], -backward["diff"], rtol=1e-12)
    np.testing.assert_allclose(forward["diff_se"], backward["diff_se"], rtol=1e-12)
    np.testing.assert_allclose(forward["diff_pvalue"], backward["diff_pvalue"], rtol=1e-10)


def _f1_from_matrix(confusion):
    tp = np.diag(confusion)
    return 2 * tp / (confusion.sum(axis=0) + confusion.sum(axis=1))


@pytest.mark.parametrize("average", [None, "macro", "weighted"])
def test_callable_f1_equals_named_f1(average):
    y, preds = _data(n=500, k=3)
    named = compare_metric(y, preds, metric="f1", average=average).table
    ours = compare_metric(y, preds, metric=_f1_from_matrix, average=average).table
    assert "_f1_from_matrix" in ours.columns
    np.testing.assert_allclose(ours["_f1_from_matrix"], named["f1"], rtol=1e-12)
    for col in ("diff", "diff_se", "diff_pvalue", "diff_ci_low"):
        np.testing.assert_allclose(ours[col], named[col], rtol=1e-6, atol=1e-9)


def test_scalar_callable_equals_mcc():
    y, preds = _data(n=500, k=3)

    def mcc(confusion):
        t, p, n = confusion.sum(axis=1), confusion.sum(axis=0), confusion.sum()
        cov = np.trace(confusion) * n - t @ p
        return cov / np.sqrt((n * n - t @ t) * (n * n - p @ p))

    named = compare_metric(y, preds, metric="mcc").table
    ours = compare_metric(y, preds, metric=mcc).table
    np.testing.assert_allclose(ours["diff_se"], named["diff_se"], rtol=1e-6)


# Delta-method variance against the multinomial of the joint cells ---------------


def _independent_variance(y, a, b, func, **params):
    """Var of func(y, b) - func(y, a): multinomial covariance, numerical gradient."""
    cells, counts = np.unique(np.stack([y, a, b], axis=1), axis=0, return_counts=True)
    n = counts.sum()
    pi = counts / n

    def diff(weights):
        w = np.asarray(weights)
        return func(cells[:, 0], cells[:, 2], sample_weight=w, **params) - func(
            cells[:, 0], cells[:, 1], sample_weight=w, **params
        )

    grad = np.empty(len(pi))
    for i in range(len(pi)):
        h = 1e-6
        up, down = pi.copy(), pi.copy()
        up[i] += h
        down[i] -= h
        grad[i] = (diff(up) - diff(down)) / (2 * h)
    cov = (np.diag(pi) - np.outer(pi, pi)) / n
    return grad @ cov @ grad


@pytest.mark.parametrize(
    "metric, func, params, average",
    [
        ("f1", skm.f1_score, {"average": "macro"}, "macro"),
        ("f1", skm.f1_score, {"average": "weighted"}, "weighted"),
        ("jaccard", skm.jaccard_score, {"average": "micro"}, "micro"),
        ("mcc", skm.matthews_corrcoef, {}, None),
        ("balanced_accuracy", skm.balanced_accuracy_score, {}, None),
        ("cohen_kappa", skm.cohen_kappa_score, {"weights": "quadratic"}, None),
    ],
)
def test_delta_variance_equals_multinomial_computation(metric, func, params, average):
    y, preds = _data(n=400, k=3, n_clf=2)
    kappa = {"weights": params["weights"]} if metric == "cohen_kappa" else {}
    result = compare_metric(y, preds, metric=metric, average=average, **kappa)
    if metric == "cohen_kappa":

        def func(y1, y2, sample_weight=None, **_):  # noqa: F811
            return skm.cohen_kappa_score(y1, y2, weights="quadratic", sample_weight=sample_weight)

        params = {}
    expected = _independent_variance(y, preds["c0"], preds["c1"], func, **params)
    assert result.table["diff_se"].iloc[0] ** 2 == pytest.approx(expected, rel=1e-6)


def test_macro_and_micro_f1_intervals_of_takahashi():
    # Takahashi et al. (2022), eqs. for micro-F1 (= accuracy in multiclass):
    # Var = miF1 (1 - miF1) / n; macro-F1 by their delta method on the
    # multinomial of the confusion matrix, written out independently here.
    y, preds = _data(n=600, k=3, n_clf=2)
    n = len(y)
    pred = preds["c0"]
    micro = compare_metric(y, preds, metric="f1", average="micro").table
    mi = skm.f1_score(y, pred, average="micro")
    se = np.sqrt(mi * (1 - mi) / n)
    z = stats.norm.ppf(0.975)
    assert micro["f1_reference_ci_low"].iloc[0] == pytest.approx(mi - z * se, rel=1e-12)
    assert micro["f1_reference_ci_high"].iloc[0] == pytest.approx(mi + z * se, rel=1e-12)
    # Macro-F1 (their eq. 4-6): F1_i = 2 p_ii / (p_i. + p_.i); gradient over p_jk.
    p = skm.confusion_matrix(y, pred) / n
    k = p.shape[0]
    row, col, diag = p.sum(axis=1), p.sum(axis=0), np.diag(p)
    grad = np.zeros((k, k))
    for i in range(k):
        denom = row[i] + col[i]
        for j in range(k):
            for m in range(k):
                d = (2 * (j == i and m == i)) / denom
                d -= 2 * diag[i] * ((j == i) + (m == i)) / denom**2
                grad[j, m] += d / k
    flat_p, flat_g = p.reshape(-1), grad.reshape(-1)
    var = (flat_g**2 @ flat_p - (flat_g @ flat_p) ** 2) / n
    ma = skm.f1_score(y, pred, average="macro")
    macro = compare_metric(y, preds, metric="f1", average="macro").table
    assert macro["f1_reference_ci_low"].iloc[0] == pytest.approx(ma - z * np.sqrt(var), rel=1e-10)


# Bootstrap -----------------------------------------------------------------------


def test_bootstrap_result_and_reproducibility():
    y, preds = _data(n=500, k=3)
    state = np.random.get_state()  # noqa: NPY002 (the global state must not move)
    one = compare_metric(
        y, preds, metric="f1", average="macro", method="bootstrap", n_resamples=500, random_state=3
    )
    two = compare_metric(
        y, preds, metric="f1", average="macro", method="bootstrap", n_resamples=500, random_state=3
    )
    assert np.all(np.random.get_state()[1] == state[1])  # noqa: NPY002
    assert isinstance(one, MetricComparison) and one.method == "bootstrap"
    np.testing.assert_array_equal(one.table.to_numpy(), two.table.to_numpy())
    assert set(one.replicates) == {"c0", "c1", "c2"}
    assert one.replicates["c0"].shape == (500, 1)
    assert {"diff_bca_low", "diff_bca_high"} <= set(one.table.columns)
    assert list(one.omnibus.columns) == ["class", "df", "wald_stat", "wald_pvalue"]
    delta = compare_metric(y, preds, metric="f1", average="macro").table
    np.testing.assert_allclose(one.table["diff_se"], delta["diff_se"], rtol=0.15)
    # The replicates give the percentile interval.
    d = one.replicates["c1"][:, 0] - one.replicates["c0"][:, 0]
    assert one.table["diff_ci_low"].iloc[0] == pytest.approx(np.quantile(d, 0.025))


def test_bootstrap_with_groups_resamples_records():
    y, preds = _data(n=150, k=3, n_clf=2)
    idx = np.repeat(np.arange(150), 4)
    result = compare_metric(
        y[idx],
        {k: v[idx] for k, v in preds.items()},
        metric="mcc",
        groups=idx,
        method="bootstrap",
        n_resamples=2000,
        random_state=0,
    )
    once = compare_metric(
        y, preds, metric="mcc", method="bootstrap", n_resamples=2000, random_state=0
    )
    # Records drawn as units: the same spread as drawing the records once.
    assert result.table["diff_se"].iloc[0] == pytest.approx(once.table["diff_se"].iloc[0], rel=0.1)


# Result family -------------------------------------------------------------------


def test_table_columns_and_frozen():
    y, preds = _data(n=300, k=3)
    result = compare_metric(y, preds, metric="f1")
    assert list(result.table.columns)[:4] == ["class", "classifier", "f1", "f1_reference"]
    for col in ("f1_ci_low", "f1_ci_high", "diff", "diff_se", "diff_ci_low", "diff_ci_high"):
        assert col in result.table.columns
    assert result.classifiers == ("c0", "c1", "c2") and result.reference == "c0"
    assert result.n_rows == result.n_records == 300
    with pytest.raises(AttributeError):
        result.measure = "mcc"
    t = result.table
    t.loc[0, "diff"] = 99
    assert result.table.loc[0, "diff"] != 99
    adjusted = result.adjusted_pvalues()
    assert (adjusted["diff_pvalue_holm"] >= adjusted["diff_pvalue"] - 1e-15).all()
    assert "f1" in result.to_markdown() and "tabular" in result.to_latex()
    assert "<table" in result._repr_html_()
    wider = result.to_frame(confidence_level=0.99)
    assert (wider["diff_ci_low"] < t["diff_ci_low"]).all()


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"metric": "mcc", "average": "macro"}, "average=None"),
        ({"metric": "fbeta"}, "beta"),
        ({"metric": "f1", "beta": 2}, "takes no parameter"),
        ({"metric": "f1", "labels": [7]}, "does not occur"),
        ({"metric": "f1", "average": "binary"}, "two classes"),
        ({"metric": "cohen_kappa", "weights": "cubic"}, "weights"),
        ({"metric": "f1", "average": "samples"}, "multilabel indicator inputs only"),
        ({"metric": lambda c: np.diag(c).sum(), "average": "macro"}, "average must be None"),
    ],
)
def test_errors_name_the_argument(kwargs, match):
    y, preds = _data(n=100, k=3)
    with pytest.raises(ValueError, match=match):
        compare_metric(y, preds, **kwargs)


# Invariances (hypothesis) ----------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(30, 120))
def test_row_order_and_relabelling_do_not_matter(seed, n):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    y[:3] = [0, 1, 2]
    preds = {"a": np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n))}
    preds["b"] = np.where(rng.random(n) < 0.6, y, rng.integers(0, 3, n))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        base = compare_metric(y, preds, metric="f1", average="macro").table
        perm = rng.permutation(n)
        shuffled = compare_metric(
            y[perm], {k: v[perm] for k, v in preds.items()}, metric="f1", average="macro"
        ).table
        relabel = np.array([2, 0, 1])
        renamed = compare_metric(
            relabel[y], {k: relabel[v] for k, v in preds.items()}, metric="mcc"
        ).table
        mcc = compare_metric(y, preds, metric="mcc").table
    cols = ["diff", "diff_se", "diff_pvalue"]
    np.testing.assert_allclose(shuffled[cols], base[cols], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(renamed[cols], mcc[cols], rtol=1e-10, atol=1e-13)


# ComparisonCounts ----------------------------------------------------------------


@pytest.mark.parametrize(
    "metric, params", [("f1", {"average": "macro"}), ("cohen_kappa", {"weights": "linear"})]
)
def test_comparison_counts_give_the_same_result(metric, params):
    from sklearn_precision_stats import ComparisonCounts

    y, preds = _data(n=500, k=3)
    counts = ComparisonCounts.from_arrays(y[:200], {k: v[:200] for k, v in preds.items()})
    counts = counts.update(y[200:], {k: v[200:] for k, v in preds.items()})
    ours = compare_metric(counts, metric=metric, reference="c2", **params).table
    direct = compare_metric(y, preds, metric=metric, reference="c2", **params).table
    cols = ours.columns[2:]
    np.testing.assert_allclose(ours[cols].to_numpy(float), direct[cols].to_numpy(float), rtol=1e-12)
    assert ours["classifier"].tolist() == direct["classifier"].tolist()


@pytest.mark.parametrize(
    "metric, average",
    [("f1", None), ("f1", "macro"), ("jaccard", "micro"), ("mcc", None), ("cohen_kappa", None)],
)
def test_clustered_comparison_counts_give_the_same_result(metric, average):
    # Clustered counts keep each record's diagonal and margins per class,
    # which these measures (and their influence values) depend on alone.
    from sklearn_precision_stats import ComparisonCounts

    y, preds = _data(n=200, k=3)
    rng = np.random.default_rng(2)
    idx = np.repeat(np.arange(200), rng.integers(1, 4, 200))
    y, preds = y[idx], {k: v[idx].copy() for k, v in preds.items()}
    flip = rng.random(len(idx)) < 0.2
    preds["c1"][flip] = rng.integers(0, 3, flip.sum())
    counts = ComparisonCounts.from_arrays(y, preds, groups=idx)
    ours = compare_metric(counts, metric=metric, average=average, reference="c1")
    direct = compare_metric(y, preds, metric=metric, average=average, groups=idx, reference="c1")
    cols = ours.table.columns[2:]
    np.testing.assert_allclose(
        ours.table[cols].to_numpy(float), direct.table[cols].to_numpy(float), rtol=1e-10
    )
    np.testing.assert_allclose(ours.omnibus["wald_stat"], direct.omnibus["wald_stat"], rtol=1e-10)
    assert ours.n_records == 200
    boot = compare_metric(
        counts,
        metric=metric,
        average=average,
        reference="c1",
        method="bootstrap",
        n_resamples=1000,
        random_state=0,
    )
    np.testing.assert_allclose(boot.table["diff_se"], direct.table["diff_se"], rtol=0.15)


def test_clustered_comparison_counts_refuse_what_margins_do_not_give():
    from sklearn_precision_stats import ComparisonCounts

    y, preds = _data(n=100, k=3)
    groups = np.repeat(np.arange(50), 2)
    counts = ComparisonCounts.from_arrays(y, preds, groups=groups)
    with pytest.raises(ValueError, match="pass the arrays and groups"):
        compare_metric(counts, metric="cohen_kappa", weights="linear")
    with pytest.raises(ValueError, match="pass the arrays and groups"):
        compare_metric(counts, metric=_f1_from_matrix)
    with pytest.raises(ValueError, match="must be None"):
        compare_metric(ComparisonCounts.from_arrays(y, preds), preds, metric="f1")


def test_few_clusters_warn():
    y, preds = _data(n=40, k=2, n_clf=2)
    groups = np.repeat(np.arange(20), 2)
    with pytest.warns(UndefinedStatisticWarning, match="only 20 distinct records"):
        compare_metric(y, preds, metric="mcc", groups=groups)


def _built(**overrides):
    args = dict(
        measure="average_precision",
        classes=[0, 1],
        classifiers=["ref", "x", "y"],
        method="bootstrap",
        average=None,
        confidence_level=0.9,
        n_rows=50,
        n_records=50,
        estimates=np.array([[0.5, 0.6, 0.7], [0.4, 0.45, 0.3]]),
        estimate_ci_low=np.zeros((2, 3)),
        estimate_ci_high=np.ones((2, 3)),
        diff=np.array([[0.1, 0.2], [0.05, -0.1]]),
        diff_se=np.full((2, 2), 0.05),
        diff_ci_low=np.full((2, 2), -0.1),
        diff_ci_high=np.full((2, 2), 0.3),
        diff_pvalue=np.array([[0.04, 0.001], [0.3, 0.05]]),
        omnibus={"df": [2, 2], "wald_stat": [11.0, 4.0], "wald_pvalue": [0.004, 0.135]},
        replicates={
            name: np.random.default_rng(i).random((100, 2))
            for i, name in enumerate(["ref", "x", "y"])
        },
    )
    args.update(overrides)
    return MetricComparison(**args)


def test_result_built_from_arrays():
    result = _built()
    t = result.table
    assert t.shape[0] == 4 and t["classifier"].tolist() == ["x", "y", "x", "y"]
    assert t["average_precision_reference"].tolist() == [0.5, 0.5, 0.4, 0.4]
    assert result.omnibus["df"].tolist() == [2, 2]
    assert result.get(1, "y")["diff"] == -0.1
    assert result[0]["classifier"].tolist() == ["x", "y"]
    assert result.replicates["x"].shape == (100, 2)
    with pytest.raises(ValueError):
        result.replicates["x"][0, 0] = 1.0
    # Another level comes from the replicates' percentiles.
    wider = result.to_frame(0.99)
    d = result.replicates["y"][:, 1] - result.replicates["ref"][:, 1]
    assert wider["diff_ci_low"].iloc[3] == pytest.approx(np.quantile(d, 0.005))
    assert "average_precision" in repr(result) and "P " in str(result.summary())
    with pytest.raises(ValueError, match="shape"):
        _built(diff=np.zeros((3, 2)))
    with pytest.raises(ValueError, match="missing"):
        _built(replicates={"ref": np.zeros((5, 2))})
    with pytest.raises(ValueError, match="own level"):
        _built(replicates=None).to_frame(0.5)


def test_bootstrap_intervals_match_scipy_paired_bootstrap():
    # scipy.stats.bootstrap resamples rows (paired); the cells' multinomial
    # is the same distribution, so the intervals agree up to Monte Carlo error.
    y, preds = _data(n=300, k=3, n_clf=2)

    def macro_f1(t, p):
        scores = []
        for k in range(3):
            tp = ((t == k) & (p == k)).sum(-1)
            wrong = ((t == k) != (p == k)).sum(-1)
            scores.append(2 * tp / (2 * tp + wrong))
        return np.mean(scores, axis=0)

    def statistic(t, a, b, axis=-1):
        return macro_f1(t, b) - macro_f1(t, a)

    data = (y, preds["c0"], preds["c1"])
    kwargs = dict(paired=True, vectorized=True, n_resamples=20000, random_state=1)
    bca = stats.bootstrap(data, statistic, method="BCa", **kwargs)
    pct = stats.bootstrap(data, statistic, method="percentile", **kwargs)
    ours = compare_metric(
        y,
        preds,
        metric="f1",
        average="macro",
        method="bootstrap",
        n_resamples=20000,
        random_state=0,
    ).table.iloc[0]
    tol = 0.005
    assert ours["diff_bca_low"] == pytest.approx(bca.confidence_interval.low, abs=tol)
    assert ours["diff_bca_high"] == pytest.approx(bca.confidence_interval.high, abs=tol)
    assert ours["diff_ci_low"] == pytest.approx(pct.confidence_interval.low, abs=tol)
    assert ours["diff_ci_high"] == pytest.approx(pct.confidence_interval.high, abs=tol)
    assert ours["diff_se"] == pytest.approx(pct.standard_error, rel=0.05)


def test_callable_with_bootstrap_follows_named_measure():
    y, preds = _data(n=300, k=3, n_clf=2)
    kwargs = dict(method="bootstrap", n_resamples=300, random_state=0, average="macro")
    named = compare_metric(y, preds, metric="f1", **kwargs).table
    ours = compare_metric(y, preds, metric=_f1_from_matrix, **kwargs).table
    for col in ("diff", "diff_se", "diff_ci_low", "diff_ci_high", "diff_pvalue"):
        np.testing.assert_allclose(ours[col], named[col], rtol=1e-12)


def test_a_difference_without_variance_from_complete_disagreement_says_why():
    # One classifier right on every row, the other on none: F1 of 1 and 0
    # with no variance across records; the reason must not claim agreement.
    y = np.array([0, 0, 1, 1, 1, 0])
    with pytest.warns(UndefinedStatisticWarning) as caught:
        result = compare_metric(y, {"a": y, "b": 1 - y}, metric="f1")
    assert len(caught) == 1
    assert "each is right on all of them or on none" in str(caught[0].message)
    assert result.table["diff"].tolist() == [-1.0, -1.0]
    assert result.table["diff_pvalue"].isna().all()
