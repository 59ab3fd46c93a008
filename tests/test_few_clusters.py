"""Clusters, small samples and exact zeros in the marginal model.

Mancl and DeRouen's bias-reduced sandwich is checked against statsmodels GEE
``fit(cov_type="bias_reduced")``; too few clusters give NaN with one
warning; a tiny but real difference is never taken for "identical".
"""

import warnings

import numpy as np
import pytest
import statsmodels.api as sm

from sklearn_precision_stats import (
    UndefinedStatisticWarning,
    compare_npv,
    compare_precision,
    compare_specificity,
    mcnemar_test,
)

from .conftest import make_correlated_predictions

RTOL = 1e-9
FUNCTIONS = {"precision": compare_precision, "npv": compare_npv, "specificity": compare_specificity}


def _rows(metric, y, pred, label):
    if metric == "precision":
        return pred == label, y == label
    if metric == "npv":
        return pred != label, y != label
    return y != label, pred != label


def _bias_reduced_fit(metric, y, preds, groups, label, names):
    endog, clf, grp = [], [], []
    for j, name in enumerate(names):
        rows, response = _rows(metric, y, preds[name], label)
        endog.append(response[rows].astype(float))
        clf.append(np.full(rows.sum(), j))
        grp.append(groups[rows])
    endog, clf, grp = map(np.concatenate, (endog, clf, grp))
    exog = np.column_stack([np.ones_like(endog)] + [clf == j for j in range(1, len(names))])
    model = sm.GEE(
        endog,
        exog.astype(float),
        groups=grp,
        family=sm.families.Binomial(),
        cov_struct=sm.cov_struct.Independence(),
    )
    return model.fit(cov_type="bias_reduced")


@pytest.mark.parametrize("metric", ["precision", "npv", "specificity"])
@pytest.mark.parametrize("n_classifiers", [2, 3])
@pytest.mark.parametrize("repeats", [1, 3])
def test_bias_reduced_matches_statsmodels(metric, n_classifiers, repeats):
    y, preds, groups = make_correlated_predictions(
        40, 3, n_classifiers, repeats=repeats, seed=repeats + 5 * n_classifiers
    )
    # Records with different numbers of rows, so the correction varies.
    if repeats > 1:
        keep = np.ones(y.size, dtype=bool)
        keep[::7] = False
        y, groups = y[keep], groups[keep]
        preds = {k: v[keep] for k, v in preds.items()}
    names = list(preds)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        result = FUNCTIONS[metric](
            y, preds, groups=groups if repeats > 1 else None, cov_type="bias_reduced"
        )
    assert result.cov_type == "bias_reduced"
    if repeats == 1:
        groups = np.arange(y.size)
    for label in result.classes:
        for other in names[1:]:
            row = result.get(label, other)
            if not np.isfinite(row["log_or"]):
                # A proportion of 0 or 1: NaN here, an unconverged fit there.
                continue
            fit = _bias_reduced_fit(metric, y, preds, groups, label, [names[0], other])
            wald = (fit.params[1] / fit.bse[1]) ** 2
            # An exact 0 is a few 1e-31 after statsmodels' iterations.
            np.testing.assert_allclose(row["wald_stat"], wald, rtol=RTOL, atol=1e-20)
            np.testing.assert_allclose(row["log_or"], fit.params[1], rtol=RTOL, atol=1e-14)
            np.testing.assert_allclose(row["log_or_se"], fit.bse[1], rtol=RTOL)
        omni = result.omnibus.set_index("class").loc[label]
        if not np.isfinite(omni["wald_stat"]):
            continue
        fit = _bias_reduced_fit(metric, y, preds, groups, label, names)
        b, cov = fit.params[1:], fit.cov_params()[1:, 1:]
        np.testing.assert_allclose(
            omni["wald_stat"], b @ np.linalg.solve(cov, b), rtol=RTOL, atol=1e-20
        )


def test_bias_reduced_statsmodels_engine_agrees():
    y, preds, groups = make_correlated_predictions(30, 2, 2, repeats=2, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        closed = compare_precision(y, preds, groups=groups, cov_type="bias_reduced")
        literal = compare_precision(
            y, preds, groups=groups, cov_type="bias_reduced", engine="statsmodels"
        )
    for col in ("wald_stat", "log_or_se"):
        np.testing.assert_allclose(literal.table[col], closed.table[col], rtol=1e-8)


def _null_clustered(n_clusters, rng, rows_per_cluster=10):
    """Two exchangeable classifiers on records predicted several times."""
    y = np.repeat(rng.integers(0, 2, n_clusters), rows_per_cluster)
    skill = np.repeat(rng.uniform(0.5, 0.95, n_clusters), rows_per_cluster)
    n = y.size
    preds = {name: np.where(rng.random(n) < skill, y, 1 - y) for name in ("a", "b")}
    return y, preds, np.repeat(np.arange(n_clusters), rows_per_cluster)


@pytest.mark.slow
def test_size_with_few_clusters():
    # Rejection rates at alpha = 0.05 of the Wald test for class 1 under
    # the null, by number of clusters: the bias-reduced covariance holds
    # the level from 20 clusters on; the robust one is liberal below that.
    rng = np.random.default_rng(0)
    n_sim = 400
    rates = {}
    for n_clusters in (5, 10, 20, 50):
        rejected = {"robust": 0, "bias_reduced": 0}
        defined = {"robust": 0, "bias_reduced": 0}
        for _ in range(n_sim):
            y, preds, groups = _null_clustered(n_clusters, rng)
            for cov_type in rejected:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UndefinedStatisticWarning)
                    p = compare_precision(y, preds, groups=groups, cov_type=cov_type).get(1)[
                        "wald_pvalue"
                    ]
                if np.isfinite(p):
                    defined[cov_type] += 1
                    rejected[cov_type] += p < 0.05
        rates[n_clusters] = {k: rejected[k] / defined[k] for k in rejected}
    print("\nWald size at 0.05 by clusters (robust, bias_reduced):", rates)
    for n_clusters in (20, 50):
        assert 0.03 <= rates[n_clusters]["bias_reduced"] <= 0.07, rates
    assert rates[5]["robust"] > rates[5]["bias_reduced"], rates


def test_single_cluster_is_nan_with_one_warning():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 60)
    preds = {
        "a": np.where(rng.random(60) < 0.7, y, 1 - y),
        "b": np.where(rng.random(60) < 0.6, y, 1 - y),
    }
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = compare_precision(y, preds, groups=np.zeros(60))
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1, messages
    assert "1 distinct record" in messages[0] and "record id" in messages[0]
    assert result.table[["gs_stat", "wald_pvalue", "ratio_pvalue", "diff_se"]].isna().all().all()


def test_few_clusters_warn_and_fold_ids_are_named():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 200)
    preds = {
        "a": np.where(rng.random(200) < 0.7, y, 1 - y),
        "b": np.where(rng.random(200) < 0.6, y, 1 - y),
    }
    with pytest.warns(UndefinedStatisticWarning, match="only 5 distinct records") as caught:
        compare_precision(y, preds, groups=np.arange(200) % 5)
    assert any("fold or repeat ids" in str(w.message) for w in caught)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compare_precision(y, preds, groups=np.arange(200) // 2)
    assert not any("distinct records" in str(w.message) for w in caught)


def test_clustered_wgs_is_nan_pointing_to_gs():
    y, preds, groups = make_correlated_predictions(100, 2, 2, repeats=2, seed=0)
    # NaN by design, said in the docs and the summary's notes, not warned.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = compare_precision(y, preds, groups=groups)
    assert "WGS is NaN by design with repeated records" in result.summary().as_text()
    assert result.table["wgs_stat"].isna().all()
    assert result.table["gs_stat"].notna().all()
    # Groups that do not repeat a record leave WGS defined.
    paired = compare_precision(y[:100], {k: v[:100] for k, v in preds.items()}, groups=groups[:100])
    assert paired.table["wgs_stat"].notna().all()


def test_tiny_precision_difference_is_not_identical():
    # Precision about 1e-6: one true positive among 10^6 predictions of the
    # class, and one classifier drops two false positives. The variance is
    # small against the shared cell but not zero; GS is exactly 2/3 (to
    # O(1e-6)), as it is at 10^5 records.
    for n in (10**5, 10**6):
        y = np.zeros(n, dtype=np.int8)
        y[0] = 1
        a = np.ones(n, dtype=np.int8)
        b = a.copy()
        b[1:3] = 0
        row = compare_precision(y, {"a": a, "b": b}, labels=[1]).get(1)
        np.testing.assert_allclose(row["gs_stat"], 2 / 3, rtol=1e-4)
        assert np.isfinite(row["wald_stat"]) and np.isfinite(row["diff_se"])


def test_mcnemar_single_cluster_does_not_crash():
    # The minimal case of a crash: one cluster holding both rows.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = mcnemar_test([1, 0], [0, 0], [1, 1], groups=[0, 0])
    assert np.isnan(res.statistic) and np.isnan(res.pvalue)


def test_comparators_take_cov_type():
    from sklearn.datasets import load_breast_cancer
    from sklearn.naive_bayes import GaussianNB
    from sklearn.tree import DecisionTreeClassifier

    from sklearn_precision_stats import CVPrecisionComparator

    X, y = load_breast_cancer(return_X_y=True)
    estimators = {"nb": GaussianNB(), "tree": DecisionTreeClassifier(random_state=0)}
    cv = CVPrecisionComparator(estimators, cv=3, cov_type="bias_reduced").fit(X, y)
    p = cv.predictions_
    names = ["nb", "tree"]
    expected = compare_precision(
        p.loc[p.classifier == "nb", "y_true"].to_numpy(),
        {n: p.loc[p.classifier == n, "y_pred"].to_numpy() for n in names},
        groups=p.loc[p.classifier == "nb", "record_id"].to_numpy(),
        cov_type="bias_reduced",
    )
    assert cv.result_.cov_type == "bias_reduced"
    np.testing.assert_allclose(cv.result_.table["wald_stat"], expected.table["wald_stat"])
    with pytest.raises(ValueError, match="cov_type"):
        CVPrecisionComparator(estimators, cov_type="hc3").fit(X, y)


def test_nan_in_groups_names_the_record_ids():
    y = np.array([0, 1, 1, 0])
    with pytest.raises(ValueError, match="groups contains NaN.*record id"):
        compare_precision(y, {"a": y, "b": y[::-1]}, groups=np.array([0, 1, np.nan, 3]))
