"""DeLong's test of compare_roc_auc with groups (Obuchowski's clustered
covariance) and averaged over classes.

References: R's pROC (through the values of tests/test_roc.py), Obuchowski's
(1997) formulas computed from the pairwise kernel, scikit-learn's
roc_auc_score for the point values, and a large paired bootstrap for the
covariances, including the covariance of different classes' AUCs.
"""

import io
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import roc_auc_score

from sklearn_precision_stats import UndefinedStatisticWarning, compare_roc_auc
from sklearn_precision_stats.__main__ import main
from sklearn_precision_stats.threshold_free._compare import _check_problem
from sklearn_precision_stats.threshold_free._delong import (
    _ClusterPlacements,
    _obuchowski_covariance,
)

from .test_roc import PROC_VALUES

Z = stats.norm.ppf(0.975)


def _clustered(rng, n_records=120, n_classes=2, sizes=(1, 6), noise=(1.0, 1.3, 1.3), ties=True):
    """Records of 1 to 5 rows whose classes and scores are correlated within the record."""
    size = rng.integers(*sizes, n_records)
    groups = np.repeat(np.arange(n_records), size)
    n = groups.shape[0]
    preferred = rng.integers(0, n_classes, n_records)[groups]
    y = np.where(rng.random(n) < 0.6, preferred, rng.integers(0, n_classes, n))
    scores = {}
    for name, scale in zip("abc", noise, strict=False):
        effect = rng.normal(size=(n_records, n_classes))[groups]
        values = np.eye(n_classes)[y] + 0.7 * effect + rng.normal(scale=scale, size=(n, n_classes))
        if ties:
            values = np.round(values, 1)
        if n_classes == 2:
            scores[name] = values[:, 1]
        else:
            # Probabilities, as scikit-learn's multiclass AUC requires.
            values = np.exp(values)
            scores[name] = values / values.sum(axis=1, keepdims=True)
    return y, scores, groups


def _obuchowski_by_hand(y, scores, groups):
    """AUCs and covariance from the pairwise kernel, as Obuchowski (1997) writes them."""
    positive = y == 1
    clusters = np.unique(groups)
    m = np.array([np.sum(positive & (groups == c)) for c in clusters])
    n = np.array([np.sum(~positive & (groups == c)) for c in clusters])
    big_m, big_n = m.sum(), n.sum()
    i10, i01, i_all = np.count_nonzero(m), np.count_nonzero(n), clusters.shape[0]
    theta, x_comps, y_comps = [], [], []
    for s in scores:
        x, z = s[positive], s[~positive]
        psi = (x[:, None] > z[None, :]) + 0.5 * (x[:, None] == z[None, :])
        theta.append(psi.mean())
        v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
        x_comps.append([v10[groups[positive] == c].sum() for c in clusters])
        y_comps.append([v01[groups[~positive] == c].sum() for c in clusters])
    theta = np.array(theta)
    dx = np.array(x_comps) - m[None, :] * theta[:, None]
    dy = np.array(y_comps) - n[None, :] * theta[:, None]
    s10 = i10 / ((i10 - 1) * big_m) * dx @ dx.T
    s01 = i01 / ((i01 - 1) * big_n) * dy @ dy.T
    s11 = i_all / (i_all - 1) * dx @ dy.T
    covariance = s10 / big_m + s01 / big_n + (s11 + s11.T) / (big_m * big_n)
    return theta, covariance


def _table_covariance(result, classifier):
    """Variances of the reference's and the classifier's AUCs and of their difference."""
    row = result.get(result.classes[0], classifier)
    var_clf = ((row["roc_auc_ci_high"] - row["roc_auc_ci_low"]) / (2 * Z)) ** 2
    var_ref = ((row["roc_auc_reference_ci_high"] - row["roc_auc_reference_ci_low"]) / (2 * Z)) ** 2
    return var_ref, var_clf, row["diff_se"] ** 2


# Reduction to DeLong ------------------------------------------------------


@pytest.mark.parametrize("case", sorted(PROC_VALUES))
def test_one_row_per_record_is_procs_delong(case):
    make_data, expected = PROC_VALUES[case]
    y, a, b = make_data()
    auc_a, auc_b, z, p, ci_low, ci_high, var_a, var_b, cov_ab = expected
    result = compare_roc_auc(y, {"b": b, "a": a}, groups=np.arange(y.shape[0]) * 7 + 3)
    row = result.get(1, "a")
    assert row["roc_auc"] == pytest.approx(auc_a, rel=1e-12)
    assert row["roc_auc_reference"] == pytest.approx(auc_b, rel=1e-12)
    assert row["diff_pvalue"] == pytest.approx(p, rel=1e-12)
    assert (row["diff_ci_low"], row["diff_ci_high"]) == pytest.approx((ci_low, ci_high), rel=1e-12)
    # The covariance matrix itself: pROC's var(ra), var(rb) and cov(ra, rb).
    part = _ClusterPlacements(
        y == 1, [a.astype(float), b.astype(float)], np.arange(y.shape[0]), y.shape[0]
    )
    _, cov, _ = _obuchowski_covariance([part], [1.0], y.shape[0])
    np.testing.assert_allclose(cov, [[var_a, cov_ab], [cov_ab, var_b]], rtol=1e-12)


@pytest.mark.parametrize("kind", ["binary", "multiclass"])
def test_groups_of_single_rows_change_nothing(kind):
    rng = np.random.default_rng(3)
    y, scores, _ = _clustered(rng, n_classes=2 if kind == "binary" else 4, sizes=(1, 2))
    plain = compare_roc_auc(y, scores)
    grouped = compare_roc_auc(y, scores, groups=rng.permutation(y.shape[0]))
    columns = ["roc_auc", "roc_auc_reference", "diff", "diff_se", "diff_pvalue", "diff_ci_low"]
    np.testing.assert_allclose(grouped.table[columns], plain.table[columns], rtol=1e-12)
    np.testing.assert_allclose(grouped.omnibus["wald_stat"], plain.omnibus["wald_stat"], rtol=1e-10)


# Obuchowski's covariance ----------------------------------------------------


def _r_cluster_data():
    # Integer scores (ties) from the legacy RandomState, whose stream is
    # frozen: 30 records of 1 to 4 rows, mixing positives and negatives.
    rs = np.random.RandomState(1997)
    size = rs.randint(1, 5, 30)
    groups = np.repeat(np.arange(30), size)
    n = groups.shape[0]
    prevalence = rs.uniform(0.1, 0.9, 30)[groups]
    y = (rs.uniform(size=n) < prevalence).astype(int)
    shared = rs.randint(0, 4, 30)[groups]
    a = 2 * y + shared + rs.randint(0, 6, n)
    b = y + shared + rs.randint(0, 6, n)
    return y, a, b, groups


# R 4.2.2, doAUCcluster (the Cleveland Clinic's implementation of Obuchowski
# 1997, as distributed in DIDSR/mitoticFigureCounts, R/doAUCcluster.R),
# printed with %.15g:
#   r <- doAUCcluster(predictor1 = a, predictor2 = b, response = y, clusterID = g)
#   r$auc.A, r$auc.var.A, r$auc.B, r$auc.var.B, r$auc.var.AminusB, r$p.value
R_DOAUCCLUSTER = [
    0.716450216450216,
    0.00249035192470401,
    0.506060606060606,
    0.00423382258461203,
    0.00514419430339691,
    0.00335313077238863,
]


def test_clustered_values_match_r_doauccluster():
    y, a, b, groups = _r_cluster_data()
    auc_a, var_a, auc_b, var_b, var_diff, pvalue = R_DOAUCCLUSTER
    result = compare_roc_auc(y, {"b": b, "a": a}, groups=groups)
    row = result.get(1, "a")
    assert row["roc_auc"] == pytest.approx(auc_a, rel=1e-12)
    assert row["roc_auc_reference"] == pytest.approx(auc_b, rel=1e-12)
    var_ref, var_clf, got_var_diff = _table_covariance(result, "a")
    assert (var_clf, var_ref) == pytest.approx((var_a, var_b), rel=1e-10)
    assert got_var_diff == pytest.approx(var_diff, rel=1e-12)
    # R rounds the variance to 15 decimals before its square root.
    assert row["diff_pvalue"] == pytest.approx(pvalue, rel=1e-9)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_clustered_covariance_is_obuchowskis_formula(seed):
    rng = np.random.default_rng(seed)
    y, scores, groups = _clustered(rng, n_records=40)
    # Labels of groups need not be integers or sorted.
    names = np.array([f"patient-{g:03d}" for g in groups])
    theta, cov = _obuchowski_by_hand(y, [scores["a"], scores["b"], scores["c"]], groups)
    result = compare_roc_auc(y, scores, groups=names)
    assert result.n_records == 40
    for j, other in ((1, "b"), (2, "c")):
        var_ref, var_clf, var_diff = _table_covariance(result, other)
        row = result.get(1, other)
        assert row["roc_auc"] == pytest.approx(theta[j], rel=1e-12)
        assert row["roc_auc"] == pytest.approx(roc_auc_score(y, scores[other]), rel=1e-12)
        assert var_ref == pytest.approx(cov[0, 0], rel=1e-9)
        assert var_clf == pytest.approx(cov[j, j], rel=1e-9)
        expected = cov[0, 0] + cov[j, j] - 2 * cov[0, j]
        assert var_diff == pytest.approx(expected, rel=1e-12)
        assert row["diff_pvalue"] == pytest.approx(
            2 * stats.norm.sf(abs(theta[j] - theta[0]) / np.sqrt(expected)), rel=1e-9
        )


def test_per_class_groups_follow_obuchowski_for_every_class():
    rng = np.random.default_rng(4)
    y, scores, groups = _clustered(rng, n_records=50, n_classes=3)
    result = compare_roc_auc(y, scores, groups=groups)
    for k in range(3):
        columns = [scores[name][:, k] for name in "abc"]
        _, cov = _obuchowski_by_hand((y == k).astype(int), columns, groups)
        row = result.get(k, "c")
        assert row["diff_se"] ** 2 == pytest.approx(
            cov[0, 0] + cov[2, 2] - 2 * cov[0, 2], rel=1e-12
        )


@pytest.mark.parametrize("average", [None, "macro", "weighted", "micro"])
@pytest.mark.parametrize("repeats", [2, 5])
def test_identical_repeats_with_groups_change_nothing(average, repeats):
    # Each record's rows repeated r times in one cluster: every cluster sum
    # of placement values is r times the record's, over r times as many
    # rows, with the same numbers of clusters I10, I01 and I, so the
    # covariance is unchanged exactly (its factor is 1).
    rng = np.random.default_rng(5)
    y, scores, _ = _clustered(rng, n_records=150, n_classes=3, sizes=(1, 2))
    plain = compare_roc_auc(y, scores, average=average)
    index = np.repeat(np.arange(y.shape[0]), repeats)
    repeated = compare_roc_auc(
        y[index], {k: v[index] for k, v in scores.items()}, groups=index, average=average
    )
    columns = ["roc_auc", "roc_auc_reference", "diff", "diff_se", "diff_ci_high", "diff_pvalue"]
    np.testing.assert_allclose(repeated.table[columns], plain.table[columns], rtol=1e-12)
    # Without groups the repeats are taken for independent records.
    naive = compare_roc_auc(y[index], {k: v[index] for k, v in scores.items()}, average=average)
    ratio = naive.table["diff_se"].to_numpy() / plain.table["diff_se"].to_numpy()
    np.testing.assert_allclose(ratio, 1 / np.sqrt(repeats), rtol=0.02)


# Averages ---------------------------------------------------------------


def _sklearn_average(y, s, average, multilabel):
    if multilabel:
        return roc_auc_score(y, s, average=average)
    return roc_auc_score(y, s, average=average, multi_class="ovr")


@pytest.mark.parametrize("multilabel", [False, True])
@pytest.mark.parametrize("average", ["macro", "weighted", "micro"])
@pytest.mark.parametrize("grouped", [False, True])
def test_averaged_point_values_are_sklearns(multilabel, average, grouped):
    rng = np.random.default_rng(6)
    y, scores, groups = _clustered(rng, n_records=100, n_classes=4)
    if multilabel:
        y = (np.eye(4)[y] + (rng.random((y.shape[0], 4)) < 0.2) > 0).astype(int)
    result = compare_roc_auc(y, scores, average=average, groups=groups if grouped else None)
    assert list(result.classes) == [average]
    table = result.table
    assert table["roc_auc_reference"].iloc[0] == pytest.approx(
        _sklearn_average(y, scores["a"], average, multilabel), rel=1e-12
    )
    for other in ("b", "c"):
        assert result.get(average, other)["roc_auc"] == pytest.approx(
            _sklearn_average(y, scores[other], average, multilabel), rel=1e-12
        )
    assert np.isfinite(table["diff_se"]).all()
    assert np.isfinite(result.omnibus["wald_pvalue"]).all()


def test_micro_average_is_the_clustered_auc_of_the_flattened_entries():
    rng = np.random.default_rng(7)
    y, scores, _ = _clustered(rng, n_records=60, n_classes=3, sizes=(1, 2))
    result = compare_roc_auc(y, scores, average="micro")
    n, k = scores["a"].shape
    flat_y = (y[:, None] == np.arange(k)[None, :]).astype(int).ravel()
    flat = [scores[name].ravel() for name in "abc"]
    theta, cov = _obuchowski_by_hand(flat_y, flat, np.repeat(np.arange(n), k))
    row = result.get("micro", "b")
    assert row["roc_auc"] == pytest.approx(theta[1], rel=1e-12)
    assert row["diff_se"] ** 2 == pytest.approx(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1], rel=1e-12)


def test_binary_problems_ignore_the_average():
    rng = np.random.default_rng(8)
    y, scores, groups = _clustered(rng)
    plain = compare_roc_auc(y, scores, groups=groups)
    averaged = compare_roc_auc(y, scores, groups=groups, average="macro")
    np.testing.assert_array_equal(averaged.table["diff_se"], plain.table["diff_se"])


# Against the paired bootstrap -------------------------------------------


def _bootstrap_check(y, scores, groups, average, n_resamples=20000):
    delong = compare_roc_auc(y, scores, groups=groups, average=average)
    boot = compare_roc_auc(
        y,
        scores,
        groups=groups,
        average=average,
        method="bootstrap",
        n_resamples=n_resamples,
        random_state=0,
    )
    ratio = delong.table["diff_se"].to_numpy() / boot.table["diff_se"].to_numpy()
    np.testing.assert_allclose(ratio, 1.0, atol=0.04)
    # The reference's standard error, once per class (the table repeats it
    # for each compared classifier), against its replicates' deviation.
    table = delong.table.iloc[:: len(scores) - 1]
    se_ref = (table["roc_auc_reference_ci_high"] - table["roc_auc_reference_ci_low"]) / (2 * Z)
    reps = boot.replicates["a"]
    np.testing.assert_allclose(se_ref.to_numpy() / reps.std(axis=0, ddof=1), 1.0, atol=0.04)
    return delong, boot


@pytest.mark.slow
@pytest.mark.parametrize("average", [None, "macro", "weighted", "micro"])
def test_covariance_agrees_with_a_large_cluster_bootstrap(average):
    rng = np.random.default_rng(9)
    y, scores, groups = _clustered(rng, n_records=200, n_classes=3)
    _bootstrap_check(y, scores, groups, average)


@pytest.mark.slow
def test_multilabel_covariance_agrees_with_a_large_cluster_bootstrap():
    # A record may be a positive of several labels. (The micro average
    # agreed within 1% too, but its bootstrap of pooled entries is slow.)
    rng = np.random.default_rng(21)
    y, scores, groups = _clustered(rng, n_records=250, n_classes=4)
    y = (np.eye(4)[y] + (rng.random((y.shape[0], 4)) < 0.25) > 0).astype(int)
    _bootstrap_check(y, scores, groups, "macro")


@pytest.mark.slow
@pytest.mark.parametrize("average", ["macro", "weighted"])
def test_covariance_agrees_with_a_large_bootstrap_without_groups(average):
    rng = np.random.default_rng(10)
    y, scores, _ = _clustered(rng, n_records=500, n_classes=4, sizes=(1, 2))
    _bootstrap_check(y, scores, None, average)


@pytest.mark.slow
def test_cross_class_covariance_agrees_with_the_bootstrap():
    # cov(A_k, A_l) of different classes of one classifier, read off the
    # variances of A_k + A_l, A_k and A_l, against the covariance of the
    # per-class bootstrap replicates.
    rng = np.random.default_rng(11)
    y, scores, groups = _clustered(rng, n_records=300, n_classes=3)
    problem = _check_problem(y, scores, None, groups, None)
    n_clusters = int(problem.unit.max()) + 1
    parts = [
        _ClusterPlacements(
            np.ascontiguousarray(problem.positive[:, k]),
            [np.ascontiguousarray(problem.scores[0][:, k])],
            problem.unit,
            n_clusters,
        )
        for k in range(3)
    ]
    boot = compare_roc_auc(
        y, scores, groups=groups, method="bootstrap", n_resamples=20000, random_state=1
    )
    empirical = np.cov(boot.replicates["a"], rowvar=False)
    for k, j in ((0, 1), (0, 2), (1, 2)):
        var_k = _obuchowski_covariance([parts[k]], [1.0], n_clusters)[1][0, 0]
        var_j = _obuchowski_covariance([parts[j]], [1.0], n_clusters)[1][0, 0]
        var_sum = _obuchowski_covariance([parts[k], parts[j]], [1.0, 1.0], n_clusters)[1][0, 0]
        covariance = (var_sum - var_k - var_j) / 2
        # The classes' AUCs are correlated (0.24 to 0.39 here, through the
        # records' shared effects), so the cross terms matter.
        scale = np.sqrt(var_k * var_j)
        assert abs(covariance / scale) > 0.1
        assert covariance / scale == pytest.approx(empirical[k, j] / scale, abs=0.04)


# Undefined cases ----------------------------------------------------------


def test_class_without_positives_is_nan_with_one_warning_naming_it():
    rng = np.random.default_rng(12)
    y, scores, groups = _clustered(rng, n_classes=3)
    extended = {k: np.column_stack([v, v[:, :1]]) for k, v in scores.items()}
    with pytest.warns(UndefinedStatisticWarning, match="class 3") as record:
        result = compare_roc_auc(y, extended, labels=[0, 1, 2, 3], groups=groups)
    assert len(record) == 1
    assert record[0].filename == __file__
    assert np.isnan(result.get(3, "b")["roc_auc"])
    assert np.isfinite(result.get(2, "b")["diff_pvalue"])
    with pytest.warns(UndefinedStatisticWarning, match="class 3 has no positive") as record:
        macro = compare_roc_auc(y, extended, labels=[0, 1, 2, 3], average="macro")
    assert len(record) == 1
    assert np.isnan(macro.table["diff_pvalue"]).all()
    assert np.isnan(macro.table["roc_auc"]).all()


def test_positives_in_one_cluster_leave_the_variance_undefined():
    rng = np.random.default_rng(13)
    y = np.zeros(60, dtype=int)
    groups = np.repeat(np.arange(20), 3)
    y[:3] = 1  # every positive in the first record
    scores = {"a": y + rng.normal(size=60), "b": y + rng.normal(size=60)}
    with pytest.warns(UndefinedStatisticWarning, match="fewer than two records") as record:
        result = compare_roc_auc(y, scores, groups=groups)
    assert len(record) == 1
    assert "class 1" in str(record[0].message)
    row = result.table.iloc[0]
    assert row["roc_auc"] == pytest.approx(roc_auc_score(y, scores["b"]), rel=1e-12)
    assert np.isnan(row["diff_se"]) and np.isnan(row["diff_pvalue"])
    assert np.isnan(row["roc_auc_ci_low"])
    with pytest.warns(UndefinedStatisticWarning, match="class 1 has fewer than two records"):
        multi = np.where(np.arange(60) % 2 == 0, 2, 0)
        multi[:3] = 1
        scores3 = {k: rng.normal(size=(60, 3)) for k in "ab"}
        compare_roc_auc(multi, scores3, groups=groups, average="macro")


def test_one_cluster_is_undefined():
    y = np.array([0, 1, 0, 1, 1, 0])
    scores = {"a": np.arange(6.0), "b": np.arange(6.0)[::-1]}
    with pytest.warns(UndefinedStatisticWarning, match="fewer than two records"):
        result = compare_roc_auc(y, scores, groups=np.zeros(6))
    assert np.isnan(result.table["diff_se"].iloc[0])


def test_regular_input_gives_no_warning():
    rng = np.random.default_rng(14)
    y, scores, groups = _clustered(rng, n_classes=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for average in (None, "macro", "weighted", "micro"):
            compare_roc_auc(y, scores, groups=groups, average=average)
            compare_roc_auc(y, scores, average=average)


def test_inputs_are_not_modified():
    rng = np.random.default_rng(15)
    y, scores, groups = _clustered(rng, n_classes=3)
    copies = (y.copy(), {k: v.copy() for k, v in scores.items()}, groups.copy())
    compare_roc_auc(y, scores, groups=groups, average="macro")
    np.testing.assert_array_equal(y, copies[0])
    np.testing.assert_array_equal(groups, copies[2])
    for k in scores:
        np.testing.assert_array_equal(scores[k], copies[1][k])


def test_swapping_the_reference_negates_the_difference():
    rng = np.random.default_rng(16)
    y, scores, groups = _clustered(rng, n_classes=3)
    ab = compare_roc_auc(y, {"a": scores["a"], "b": scores["b"]}, groups=groups, average="macro")
    ba = compare_roc_auc(y, {"b": scores["b"], "a": scores["a"]}, groups=groups, average="macro")
    assert ba.table["diff"].iloc[0] == pytest.approx(-ab.table["diff"].iloc[0], rel=1e-12)
    assert ba.table["diff_se"].iloc[0] == pytest.approx(ab.table["diff_se"].iloc[0], rel=1e-12)
    assert ba.table["diff_pvalue"].iloc[0] == pytest.approx(
        ab.table["diff_pvalue"].iloc[0], rel=1e-9
    )


# Validity by simulation ---------------------------------------------------


def _simulated_clustered_rows(rng, n_records, scale_b=1.0):
    """Binary records of 1 to 5 rows; each classifier has its own record effect."""
    size = rng.integers(1, 6, n_records)
    groups = np.repeat(np.arange(n_records), size)
    n = groups.shape[0]
    logit = rng.normal(size=n_records)[groups] - 0.5
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    effect = rng.normal(size=(2, n_records))[:, groups]
    shared = rng.normal(size=n)
    a = y + effect[0] + 0.6 * shared + rng.normal(scale=0.5, size=n)
    b = y + effect[1] + 0.6 * shared + rng.normal(scale=0.5 * scale_b, size=n)
    return y, {"a": a, "b": b}, groups


def _simulated_multiclass(rng, n_records, scale_b=1.0, n_classes=3):
    """One row per record, three classes, correlated classifiers."""
    y = rng.integers(0, n_classes, n_records)
    base = 0.8 * np.eye(n_classes)[y] + 0.7 * rng.normal(size=(n_records, n_classes))
    a = base + rng.normal(scale=0.7, size=(n_records, n_classes))
    b = base + rng.normal(scale=0.7 * scale_b, size=(n_records, n_classes))
    return y, {"a": a, "b": b}, None


def _simulated_multiclass_rows(rng, n_records, scale_b=1.0, n_classes=3):
    """Records of 1 to 4 rows of three classes, with record effects."""
    size = rng.integers(1, 5, n_records)
    groups = np.repeat(np.arange(n_records), size)
    n = groups.shape[0]
    preferred = rng.integers(0, n_classes, n_records)[groups]
    y = np.where(rng.random(n) < 0.5, preferred, rng.integers(0, n_classes, n))
    effect = rng.normal(size=(2, n_records, n_classes))[:, groups]
    base = 0.8 * np.eye(n_classes)[y] + 0.5 * rng.normal(size=(n, n_classes))
    a = base + 0.7 * effect[0] + rng.normal(scale=0.5, size=(n, n_classes))
    b = base + 0.7 * effect[1] + rng.normal(scale=0.5 * scale_b, size=(n, n_classes))
    return y, {"a": a, "b": b}, groups


@pytest.mark.slow
@pytest.mark.parametrize(
    "simulate, n_records, average",
    [
        (_simulated_clustered_rows, 150, None),
        (_simulated_multiclass, 300, "macro"),
        (_simulated_multiclass_rows, 150, "macro"),
    ],
)
def test_size_and_coverage_by_simulation(simulate, n_records, average):
    # Size: the classifiers are exchangeable, so their AUCs are equal.
    # Coverage: b is noisier; the true difference is the estimate on
    # 300000 records.
    rng = np.random.default_rng(2024)
    y, scores, groups = simulate(rng, 300_000, scale_b=1.6)
    truth = compare_roc_auc(y, scores, groups=groups, average=average).table["diff"].iloc[0]
    n_sim = 2000
    rejected = covered = 0
    for _ in range(n_sim):
        y, scores, groups = simulate(rng, n_records)
        row = compare_roc_auc(y, scores, groups=groups, average=average).table.iloc[0]
        rejected += row["diff_pvalue"] < 0.05
        y, scores, groups = simulate(rng, n_records, scale_b=1.6)
        row = compare_roc_auc(y, scores, groups=groups, average=average).table.iloc[0]
        covered += row["diff_ci_low"] <= truth <= row["diff_ci_high"]
    assert 0.035 <= rejected / n_sim <= 0.065
    assert 0.93 <= covered / n_sim <= 0.97


# Command line -------------------------------------------------------------


@pytest.mark.parametrize("average", [None, "macro"])
def test_command_line_compares_roc_auc_by_delong_with_groups(tmp_path, capsys, average):
    rng = np.random.default_rng(17)
    y, scores, groups = _clustered(rng, n_classes=3)
    frame = pd.DataFrame({"truth": y, "rec": groups})
    for name in ("a", "b"):
        for k in range(3):
            frame[f"{name}{k}"] = scores[name][:, k]
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    argv = ["compare-scores", str(path), "--truth", "truth", "--scores", "A:a0+a1+a2,B:b0+b1+b2"]
    argv += ["--metric", "roc_auc", "--groups", "rec", "--format", "csv"]
    if average is not None:
        argv += ["--average", average]
    assert main(argv) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out))
    expected = compare_roc_auc(
        y, {"A": scores["a"], "B": scores["b"]}, groups=groups, average=average
    ).table
    for column in ("roc_auc", "roc_auc_reference", "diff", "diff_se", "diff_pvalue"):
        np.testing.assert_allclose(table[column], expected[column], rtol=1e-9)


# Properties ---------------------------------------------------------------


@st.composite
def _small_clustered(draw):
    """A few records of 1 to 4 rows, heavily tied scores, both classes present."""
    n_records = draw(st.integers(4, 12))
    sizes = draw(st.lists(st.integers(1, 4), min_size=n_records, max_size=n_records))
    groups = np.repeat(np.arange(n_records), sizes)
    n = groups.shape[0]
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    # Positive and negative rows in at least two records each.
    y[groups == 0] = 1
    y[groups == 1] = 0
    y[np.flatnonzero(groups == 2)[0]] = 1
    y[np.flatnonzero(groups == 3)[0]] = 0
    levels = st.integers(0, 3)
    scores = [np.array(draw(st.lists(levels, min_size=n, max_size=n)), dtype=float) for _ in "ab"]
    return y, scores, groups


@settings(max_examples=60, deadline=None)
@given(_small_clustered(), st.randoms(use_true_random=False))
def test_any_clustered_ties_follow_obuchowski_and_ignore_row_order(data, random):
    y, (a, b), groups = data
    theta, cov = _obuchowski_by_hand(y, [a, b], groups)
    var_diff = cov[0, 0] + cov[1, 1] - 2 * cov[0, 1]
    with warnings.catch_warnings():
        # Identical rankings leave the variance of the difference zero.
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        result = compare_roc_auc(y, {"a": a, "b": b}, groups=groups)
        order = np.array(random.sample(range(y.shape[0]), y.shape[0]))
        relabelled = 100 - 3 * groups  # other names, other order
        permuted = compare_roc_auc(
            y[order], {"a": a[order], "b": 2 * b[order] + 5}, groups=relabelled[order]
        )
    row, other = result.table.iloc[0], permuted.table.iloc[0]
    assert row["roc_auc"] == pytest.approx(theta[1], rel=1e-12, abs=1e-15)
    assert row["roc_auc_reference"] == pytest.approx(theta[0], rel=1e-12, abs=1e-15)
    if var_diff > 1e-12 * (cov[0, 0] + cov[1, 1]):
        assert row["diff_se"] ** 2 == pytest.approx(var_diff, rel=1e-9)
        assert other["diff_se"] == pytest.approx(row["diff_se"], rel=1e-9)
    else:
        assert np.isnan(row["diff_se"])
    assert other["diff"] == pytest.approx(row["diff"], rel=1e-12, abs=1e-15)
