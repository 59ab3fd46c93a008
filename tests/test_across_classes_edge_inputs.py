"""Edge inputs of the across-classes tools: combined p-values, replicability
scores and precision at a prevalence."""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.dummy import DummyClassifier
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier
from statsmodels.stats.multitest import multipletests

from sklearn_precision_stats import (
    combine_pvalues_dependent,
    compare_metric,
    compare_npv,
    compare_precision,
    replicability,
    replicability_score,
)
from sklearn_precision_stats.exceptions import UndefinedStatisticWarning

Y = np.array([1, 1, 1, 0, 0, 0, 1, 0, 1, 0, 0, 1])
A = np.array([1, 1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0])


def _undefined(record):
    return [w for w in record if issubclass(w.category, UndefinedStatisticWarning)]


# ---------------------------------------------------------------------------
# combine_pvalues_dependent
# ---------------------------------------------------------------------------


def test_permutation_combination_of_a_nan_pvalue_is_nan():
    null = [[0.5, 0.5], [0.01, 0.01], [0.3, 0.9]]
    result = combine_pvalues_dependent([np.nan, 0.2], null_pvalues=null, method="permutation")
    assert np.isnan(result.statistic) and np.isnan(result.pvalue)
    # As every other method (and scipy.stats.combine_pvalues) does.
    assert np.isnan(stats.combine_pvalues([np.nan, 0.2]).pvalue)
    assert np.isnan(combine_pvalues_dependent([np.nan, 0.2], method="simes").pvalue)


def test_dai_cui_agrees_with_brown_and_kost_mcdermott_for_correlated_normals():
    # One-sided p-values of equicorrelated normals (rho = 0.5): Kost and
    # McDermott's (2002) polynomial gives cov(-2 log p_i, -2 log p_j) =
    # 3.263 rho + 0.710 rho^2 + 0.027 rho^3; Brown's (1975) method then has
    # E = 2k, Var = 4k + k(k - 1) cov, df = 2 E^2 / Var, c = Var / (2E),
    # p = chi2.sf(T / c, df). Dai-Cui estimates the covariance from the draws.
    rng = np.random.default_rng(0)
    rho, k = 0.5, 3
    corr = np.full((k, k), rho) + (1 - rho) * np.eye(k)
    null = stats.norm.sf(rng.multivariate_normal(np.zeros(k), corr, size=20000))
    p = np.array([0.01, 0.04, 0.3])
    result = combine_pvalues_dependent(p, null_pvalues=null)

    cov = 3.263 * rho + 0.710 * rho**2 + 0.027 * rho**3
    mean, var = 2 * k, 4 * k + k * (k - 1) * cov
    df, scale = 2 * mean**2 / var, var / (2 * mean)
    brown = stats.chi2.sf(-2 * np.log(p).sum() / scale, df)
    assert result.df == pytest.approx(df, rel=0.03)
    assert result.pvalue == pytest.approx(brown, rel=0.05)
    # Positive dependence: more cautious than Fisher's (scipy).
    assert result.pvalue > stats.combine_pvalues(p, method="fisher").pvalue


@pytest.mark.parametrize("method", ["fisher", "dai-cui"])
@pytest.mark.parametrize("p", [[0.5], [0.2, 0.2, 0.2], [1.0, 1.0], [1e-300, 0.5]])
def test_fisher_of_edge_pvalues_equals_scipy(method, p):
    result = combine_pvalues_dependent(p, method=method)
    expected = stats.combine_pvalues(p, method="fisher")
    assert result.statistic == pytest.approx(expected.statistic, rel=1e-12, abs=1e-12)
    assert result.pvalue == pytest.approx(expected.pvalue, rel=1e-12)


@pytest.mark.parametrize("p", [[0.5], [0.2, 0.2, 0.2], [0.01, 0.04, 0.3], [0.0, 0.5]])
def test_simes_is_the_smallest_benjamini_hochberg_pvalue_of_statsmodels(p):
    result = combine_pvalues_dependent(p, method="simes")
    assert result.pvalue == pytest.approx(multipletests(p, method="fdr_bh")[1].min(), rel=1e-12)


# ---------------------------------------------------------------------------
# replicability_score
# ---------------------------------------------------------------------------


def test_replicability_score_refuses_missing_outcomes_with_a_value_error():
    outcomes = pd.array([True, False, None], dtype="boolean")
    with pytest.raises(ValueError, match="without missing values"):
        replicability_score(outcomes)
    with pytest.raises(ValueError, match="without missing values"):
        replicability_score(np.array([1, None, 0], dtype=object))


@pytest.mark.parametrize(
    "outcomes",
    [
        np.array([1, 0, 1], dtype=object),
        np.array([True, False, True], dtype=object),
        pd.array([True, False, True], dtype="boolean"),
        pd.Series([1, 0, 1], dtype="Int64", index=[7, 3, 5]),
    ],
    ids=["object-int", "object-bool", "nullable-bool", "nullable-int"],
)
def test_replicability_score_of_python_objects_and_nullable_dtypes(outcomes):
    # Two rejections and one acceptance: pairs agreeing 1 of 3.
    assert replicability_score(outcomes) == pytest.approx(1 / 3, rel=1e-15)


# ---------------------------------------------------------------------------
# at_prevalence
# ---------------------------------------------------------------------------


def _compare(function, preds):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        return function(Y, preds)


@pytest.mark.parametrize("function", [compare_precision, compare_npv])
def test_at_prevalence_warns_once_for_several_classifiers(function):
    comparison = _compare(function, {"a": Y, "b": Y})  # both perfect
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        comparison.at_prevalence({1: 0.2}, n_resamples=50, random_state=0)
    (warning,) = _undefined(record)
    assert warning.filename == __file__
    message = str(warning.message)
    assert "Classifier 'a'" in message and "Classifier 'b'" in message
    # The analytic interval is undefined; the bootstrap one is no way out
    # (every resample keeps a predictive value of 1), so it is not offered.
    assert "ci='bootstrap' gives one" not in message


@pytest.mark.parametrize("function", [compare_precision, compare_npv])
def test_ratio_interval_of_identical_classifiers_is_nan_with_one_warning(function):
    comparison = _compare(function, {"a": A, "b": A})
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        frame = comparison.at_prevalence({1: 0.2}, n_resamples=100, random_state=0)
    (warning,) = _undefined(record)
    assert "The ratio of the" in str(warning.message)
    row = frame.set_index("classifier").loc["b"]
    assert row["ratio"] == 1.0
    assert np.isnan(row["ratio_ci_low"]) and np.isnan(row["ratio_ci_high"])
    # The predictive value itself has an analytic interval (Simel et al.),
    # closed form: 1 / (1 + (1/pi - 1) / LR+) at the limits of log LR+.
    tp, fp = np.sum((A == 1) & (Y == 1)), np.sum((A == 1) & (Y == 0))
    fn, tn = np.sum((A == 0) & (Y == 1)), np.sum((A == 0) & (Y == 0))
    se, sp = tp / (tp + fn), tn / (tn + fp)
    z = stats.norm.ppf(0.975)
    if function is compare_precision:
        lr, s = se / (1 - sp), np.sqrt((1 - se) / tp + sp / fp)
        low = 1 / (1 + 4 / (lr * np.exp(-z * s)))
    else:
        lr, s = (1 - se) / sp, np.sqrt(se / fn + (1 - sp) / tn)
        low = 1 / (1 + lr * np.exp(z * s) * 0.25)
    assert row["ci_low"] == pytest.approx(low, rel=1e-12)


def test_bootstrap_interval_of_a_value_fixed_in_every_resample_is_nan():
    # b has two true positives and no false positive: its precision is 1 in
    # every bootstrap resample, at any prevalence.
    pred = np.isin(np.arange(12), [0, 1]).astype(int)
    comparison = _compare(compare_precision, {"a": A, "b": pred})
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        frame = comparison.at_prevalence({1: 0.2}, ci="bootstrap", n_resamples=100, random_state=0)
    message = " ".join(str(w.message) for w in _undefined(record))
    assert len(_undefined(record)) == 1
    assert "The precision at prevalence of classifier 'b' is the same on every" in message
    row = frame.set_index("classifier").loc["b"]
    assert row["precision_at_prevalence"] == 1.0
    assert np.isnan(row["ci_low"]) and np.isnan(row["ci_high"])
    # The reference's interval is a real one.
    ref = frame.set_index("classifier").loc["a"]
    assert ref["ci_low"] < ref["precision_at_prevalence"] < ref["ci_high"]


# ---------------------------------------------------------------------------
# replicability: arguments
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"sample_sizes": (True,)}, "sample_sizes entries must be"),
        ({"sample_sizes": (np.nan,)}, "sample_sizes entries must be"),
        ({"test_sizes": ("a",)}, "test_sizes must be"),
        ({"test_sizes": (True,)}, "test_sizes must be"),
        ({"stratify": "yes"}, "stratify must be True or False"),
        ({"n_jobs": "2"}, "n_jobs must be None or a nonzero integer"),
        ({"n_jobs": 0}, "n_jobs must be None or a nonzero integer"),
        ({"verbose": "x"}, "verbose must be an integer >= 0"),
    ],
)
def test_replicability_names_each_bad_argument(kwargs, match):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + rng.normal(size=60) > 0).astype(int)
    estimators = {"nb": GaussianNB(), "tree": DecisionTreeClassifier(max_depth=2)}
    with pytest.raises(ValueError, match=match):
        replicability(estimators, X, y, label=1, n_repeats=2, random_state=0, **kwargs)


@pytest.mark.parametrize("function", [compare_precision, compare_metric])
@pytest.mark.parametrize("method", [None, 5, [], ["holm", None], "Holm", {"holm": 1}])
def test_adjusted_pvalues_name_a_bad_method(function, method):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 200)
    a = np.where(rng.random(200) < 0.8, y, rng.integers(0, 3, 200))
    b = np.where(rng.random(200) < 0.7, y, rng.integers(0, 3, 200))
    comparison = function(y, {"a": a, "b": b})
    with pytest.raises(ValueError, match="method must be one of"):
        comparison.adjusted_pvalues(method=method)
    table = comparison.adjusted_pvalues(method=["holm", "by"])
    column = "gs_pvalue" if function is compare_precision else "diff_pvalue"
    for name, reference in (("holm", "holm"), ("by", "fdr_by")):
        np.testing.assert_allclose(
            table[f"{column}_{name}"],
            multipletests(table[column], method=reference)[1],
            rtol=1e-12,
        )


def test_replicability_without_two_defined_experiments_is_nan_with_one_warning():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] > 0.8).astype(int)
    # The dummy never predicts class 1: its precision, and every test of it,
    # is undefined in every experiment.
    estimators = {"dummy": DummyClassifier(strategy="most_frequent"), "nb": GaussianNB()}
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        result = replicability(
            estimators,
            X,
            y,
            label=1,
            n_repeats=2,
            sample_sizes=(1.0, 0.5),
            test_sizes=(0.3,),
            random_state=0,
        )
    (warning,) = _undefined(record)
    assert warning.filename == __file__
    message = str(warning.message)
    assert "(80, 0.3), (40, 0.3) and the pooled statistic is undefined" in message
    assert np.isnan(result.statistic) and result.table["replicability"].isna().all()


def test_at_prevalence_of_a_single_cluster_gives_one_reason_once():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        comparison = compare_precision(
            [1, 0, 0], {"a": [1, 0, 0], "b": [1, 1, 0]}, groups=[7, 7, 7]
        )
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        frame = comparison.at_prevalence(0.3, ci="bootstrap", n_resamples=20, random_state=0)
    (warning,) = _undefined(record)
    assert str(warning.message).startswith("The comparison has a single record (cluster)")
    assert "every bootstrap resample" not in str(warning.message)
    assert frame[["ci_low", "ci_high", "ratio_ci_low", "ratio_ci_high"]].isna().all().all()
