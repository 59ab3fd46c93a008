"""Cross-validated t and F tests, the corrected tests, ANOVA and Wilcoxon.

References: mlxtend (``paired_ttest_5x2cv``, ``combined_ftest_5x2cv``,
``paired_ttest_kfold_cv``, ``paired_ttest_resampled``) on the same seeds and
splits, scipy (``ttest_rel``, ``wilcoxon``, t and F distributions),
statsmodels ``AnovaRM``, scikit-learn's ``cross_validate``.
"""

import dataclasses
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mlxtend.evaluate import (
    combined_ftest_5x2cv as mlx_combined_ftest_5x2cv,
)
from mlxtend.evaluate import (
    paired_ttest_5x2cv as mlx_paired_ttest_5x2cv,
)
from mlxtend.evaluate import (
    paired_ttest_kfold_cv as mlx_paired_ttest_kfold_cv,
)
from mlxtend.evaluate import (
    paired_ttest_resampled as mlx_paired_ttest_resampled,
)
from scipy import stats
from sklearn.datasets import make_classification, make_regression
from sklearn.linear_model import LinearRegression, Ridge
from sklearn.model_selection import (
    KFold,
    RepeatedStratifiedKFold,
    ShuffleSplit,
    cross_validate,
)
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier
from statsmodels.stats.anova import AnovaRM

from sklearn_precision_stats import (
    UndefinedStatisticWarning,
    combined_ftest_5x2cv,
    corrected_repeated_kfold_ttest,
    corrected_resampled_ttest,
    corrected_rm_anova,
    paired_ttest_5x2cv,
    paired_ttest_kfold_cv,
    paired_ttest_resampled,
    wilcoxon,
)


@pytest.fixture(scope="module")
def data():
    return make_classification(n_samples=240, n_features=8, n_informative=4, random_state=0)


def estimators():
    return DecisionTreeClassifier(max_depth=3, random_state=0), GaussianNB()


def mlxtend_splits(n_samples, seed, n_rounds, test_size):
    """The splits mlxtend draws: one train_test_split seed per round."""
    rng = np.random.RandomState(seed)
    splits = []
    for _ in range(n_rounds):
        cv = ShuffleSplit(n_splits=1, test_size=test_size, random_state=rng.randint(0, 32767))
        splits.append(next(cv.split(np.zeros(n_samples))))
    return splits


def mlxtend_5x2_splits(n_samples, seed):
    splits = []
    for train, test in mlxtend_splits(n_samples, seed, 5, 0.5):
        splits += [(train, test), (test, train)]
    return splits


# ------------------------------------------------------ against mlxtend


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("scoring", [None, "f1"])
def test_5x2cv_t_and_f_match_mlxtend(data, seed, scoring):
    X, y = data
    splits = mlxtend_5x2_splits(len(y), seed)
    t_ref, p_ref = mlx_paired_ttest_5x2cv(*estimators(), X, y, scoring=scoring, random_seed=seed)
    res = paired_ttest_5x2cv(*estimators(), X, y, scoring=scoring, cv=splits)
    assert res.statistic == pytest.approx(t_ref, rel=1e-12)
    assert res.pvalue == pytest.approx(p_ref, rel=1e-10)
    assert res.df == 5
    f_ref, pf_ref = mlx_combined_ftest_5x2cv(*estimators(), X, y, scoring=scoring, random_seed=seed)
    res = combined_ftest_5x2cv(*estimators(), X, y, scoring=scoring, cv=splits)
    assert res.statistic == pytest.approx(f_ref, rel=1e-12)
    assert res.pvalue == pytest.approx(pf_ref, rel=1e-10)
    assert res.df == (10, 5)


def test_kfold_t_matches_mlxtend(data):
    X, y = data
    t_ref, p_ref = mlx_paired_ttest_kfold_cv(*estimators(), X, y, cv=10)
    res = paired_ttest_kfold_cv(*estimators(), X, y, cv=KFold(10))
    assert res.statistic == pytest.approx(t_ref, rel=1e-12)
    assert res.pvalue == pytest.approx(p_ref, rel=1e-10)
    assert res.df == 9


@pytest.mark.parametrize("seed", [0, 3])
def test_resampled_t_matches_mlxtend(data, seed):
    X, y = data
    t_ref, p_ref = mlx_paired_ttest_resampled(
        *estimators(), X, y, num_rounds=15, test_size=0.3, random_seed=seed
    )
    splits = mlxtend_splits(len(y), seed, 15, 0.3)
    res = paired_ttest_resampled(*estimators(), X, y, cv=splits)
    assert res.statistic == pytest.approx(t_ref, rel=1e-12)
    assert res.pvalue == pytest.approx(p_ref, rel=1e-10)
    assert res.df == 14


def test_regressors_use_r2_like_mlxtend():
    X, y = make_regression(n_samples=120, n_features=5, noise=20.0, random_state=0)
    t_ref, p_ref = mlx_paired_ttest_5x2cv(
        LinearRegression(), Ridge(alpha=50.0), X, y, random_seed=4
    )
    res = paired_ttest_5x2cv(
        LinearRegression(), Ridge(alpha=50.0), X, y, cv=mlxtend_5x2_splits(len(y), 4)
    )
    assert res.statistic == pytest.approx(t_ref, rel=1e-10)
    assert res.pvalue == pytest.approx(p_ref, rel=1e-9)


# --------------------------------------- against scipy and scikit-learn


def test_corrected_refitting_tests_equal_scores_route(data):
    """corrected=True equals corrected_resampled_ttest on cross_validate scores."""
    X, y = data
    cv = ShuffleSplit(n_splits=12, test_size=0.25, random_state=0)
    a = cross_validate(estimators()[0], X, y, cv=cv)["test_score"]
    b = cross_validate(estimators()[1], X, y, cv=cv)["test_score"]
    res = paired_ttest_resampled(*estimators(), X, y, cv=cv, corrected=True)
    ref = corrected_resampled_ttest(a, b, n_train=180, n_test=60)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.method == "corrected resampled paired t"
    cv = RepeatedStratifiedKFold(n_splits=4, n_repeats=3, random_state=0)
    a = cross_validate(estimators()[0], X, y, cv=cv)["test_score"]
    b = cross_validate(estimators()[1], X, y, cv=cv)["test_score"]
    res = paired_ttest_kfold_cv(*estimators(), X, y, cv=cv, corrected=True)
    ref = corrected_repeated_kfold_ttest(a, b, n_splits=4)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    plain = paired_ttest_kfold_cv(*estimators(), X, y, cv=cv)
    assert plain.statistic == pytest.approx(stats.ttest_rel(a, b).statistic, rel=1e-12)
    assert abs(res.statistic) < abs(plain.statistic)


def test_default_splitters_are_reproducible(data):
    X, y = data
    one = paired_ttest_5x2cv(*estimators(), X, y, random_state=0)
    two = paired_ttest_5x2cv(*estimators(), X, y, random_state=0)
    assert one.statistic == two.statistic
    other = paired_ttest_5x2cv(*estimators(), X, y, random_state=1)
    assert other.statistic != one.statistic
    res = paired_ttest_resampled(*estimators(), X, y, random_state=0)
    assert res.df == 29 and res.method == "resampled paired t"


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.floats(0.5, 1.0), min_size=3, max_size=40),
    st.floats(-0.05, 0.05),
    st.integers(0, 2**32 - 1),
)
def test_corrected_t_against_scipy_ttest_rel(scores_a, shift, seed):
    rng = np.random.default_rng(seed)
    scores_a = np.array(scores_a)
    scores_b = scores_a + shift + 0.02 * rng.standard_normal(scores_a.size)
    n_iter = scores_a.size
    ref = stats.ttest_rel(scores_a, scores_b)
    # Nadeau-Bengio: scale the plain t by sqrt((1/J) / (1/J + n_test/n_train)).
    t_corr = ref.statistic * np.sqrt((1 / n_iter) / (1 / n_iter + 20 / 80))
    res = corrected_resampled_ttest(scores_a, scores_b, n_train=80, n_test=20)
    assert res.statistic == pytest.approx(t_corr, rel=1e-9)
    assert res.pvalue == pytest.approx(2 * stats.t.sf(abs(t_corr), n_iter - 1), rel=1e-9)
    assert res.difference == pytest.approx(np.mean(scores_a - scores_b), rel=1e-9, abs=1e-15)
    # Swapping the models flips t and leaves the two-sided p-value alone.
    swapped = corrected_resampled_ttest(scores_b, scores_a, n_train=80, n_test=20)
    assert swapped.statistic == pytest.approx(-res.statistic, rel=1e-12)
    assert swapped.pvalue == pytest.approx(res.pvalue, rel=1e-12)
    greater = corrected_resampled_ttest(
        scores_a, scores_b, n_train=80, n_test=20, alternative="greater"
    )
    assert greater.pvalue == pytest.approx(stats.t.sf(t_corr, n_iter - 1), rel=1e-9)
    # Corrected repeated k-fold with k folds is n_test / n_train = 1 / (k - 1).
    if n_iter % 5 == 0:
        kfold = corrected_repeated_kfold_ttest(scores_a, scores_b, n_splits=5)
        ref = corrected_resampled_ttest(scores_a, scores_b, n_train=4, n_test=1)
        assert kfold.statistic == pytest.approx(ref.statistic, rel=1e-12)
        assert kfold.df == n_iter - 1


def test_confidence_interval_inverts_the_test():
    rng = np.random.default_rng(0)
    a = 0.8 + 0.02 * rng.standard_normal(25)
    b = a - 0.01 + 0.01 * rng.standard_normal(25)
    res = corrected_resampled_ttest(a, b, n_train=900, n_test=100)
    ci = res.confidence_interval(0.95)
    # At the bounds, the shifted differences give p = 0.05 exactly.
    for bound in ci:
        shifted = corrected_resampled_ttest(a - bound, b, n_train=900, n_test=100)
        assert shifted.pvalue == pytest.approx(0.05, rel=1e-8)
    one_sided = corrected_resampled_ttest(
        a, b, n_train=900, n_test=100, alternative="greater"
    ).confidence_interval()
    assert one_sided.high == np.inf and one_sided.low > ci.low


def test_corrected_resampled_ttest_by_hand():
    # Nadeau and Bengio (2003) on ten splits of 900 + 100 records: d = a - b
    # has mean 0.017 and variance 0.00141 / 9; t = mean / sqrt(var * (1/10 + 100/900)).
    a = [0.81, 0.84, 0.79, 0.83, 0.85, 0.80, 0.82, 0.84, 0.83, 0.81]
    b = [0.79, 0.82, 0.80, 0.80, 0.82, 0.79, 0.80, 0.81, 0.82, 0.80]
    d = np.array([2, 2, -1, 3, 3, 1, 2, 3, 1, 1]) / 100
    var = ((d - 0.017) ** 2).sum() / 9
    t = 0.017 / np.sqrt(var * (1 / 10 + 100 / 900))
    res = corrected_resampled_ttest(a, b, n_train=900, n_test=100)
    assert res.statistic == pytest.approx(t, rel=1e-9)
    assert res.pvalue == pytest.approx((1 - stats.t.cdf(abs(t), 9)) * 2, rel=1e-9)


def test_rm_anova_against_statsmodels():
    rng = np.random.default_rng(1)
    n_iter, n_models = 20, 4
    scores = (
        0.8
        + np.array([0.0, 0.005, 0.01, 0.02])
        + 0.02 * rng.standard_normal((n_iter, 1))
        + 0.01 * rng.standard_normal((n_iter, n_models))
    )
    long = pd.DataFrame(
        {
            "score": scores.ravel(),
            "split": np.repeat(np.arange(n_iter), n_models),
            "model": np.tile(np.arange(n_models), n_iter),
        }
    )
    table = AnovaRM(long, "score", "split", within=["model"]).fit().anova_table
    f_ref = table["F Value"].iloc[0]
    res = corrected_rm_anova(pd.DataFrame(scores), n_train=90, n_test=10)
    assert res.uncorrected_statistic == pytest.approx(f_ref, rel=1e-10)
    assert res.df == (table["Num DF"].iloc[0], table["Den DF"].iloc[0])
    assert res.uncorrected_pvalue == pytest.approx(table["Pr > F"].iloc[0], rel=1e-8)
    corrected = f_ref / (1 + n_iter * 10 / 90)
    assert res.statistic == pytest.approx(corrected, rel=1e-10)
    assert res.pvalue == pytest.approx(stats.f.sf(corrected, 3, 57), rel=1e-10)


def test_rm_anova_with_two_models_is_the_squared_corrected_t():
    rng = np.random.default_rng(2)
    scores = 0.8 + 0.02 * rng.standard_normal((15, 2)) + [0.0, 0.01]
    anova = corrected_rm_anova(scores, n_train=80, n_test=20)
    t = corrected_resampled_ttest(scores[:, 0], scores[:, 1], n_train=80, n_test=20)
    assert anova.statistic == pytest.approx(t.statistic**2, rel=1e-10)
    assert anova.pvalue == pytest.approx(t.pvalue, rel=1e-9)


def test_wilcoxon_matches_scipy():
    rng = np.random.default_rng(3)
    a = rng.normal(0.8, 0.02, 30)
    b = a - rng.normal(0.005, 0.01, 30)
    for alternative in ("two-sided", "greater", "less"):
        res = wilcoxon(a, b, alternative=alternative)
        ref = stats.wilcoxon(a, b, alternative=alternative)
        assert res.statistic == pytest.approx(ref.statistic)
        assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    res = wilcoxon(a, b, method="approx", correction=True)
    ref = stats.wilcoxon(a, b, method="approx", correction=True)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert res.median_difference == pytest.approx(np.median(a - b))
    assert res.n_iter == 30


# ------------------------------------------------ scale invariance


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 1000), min_size=4, max_size=30),
    st.integers(0, 2**32 - 1),
    st.integers(-1000, 1000),
    st.booleans(),
)
def test_t_tests_on_scores_are_scale_invariant(scores_a, seed, exponent, opposite):
    """t and signed-rank statistics are unchanged when every score is rescaled.

    Scores in [0, 1] are multiplied by ``2**exponent``, from about 1e-301
    to 1e301 (exactly, so the ranks of the differences are those of the
    unscaled scores). Near 1e300 the squared differences overflow and near
    1e-300 they underflow; the answer must still be that of scipy on the
    unscaled scores. ``opposite`` puts the models' scores on opposite
    signs, so that at the top of the range the differences overflow too.
    """
    rng = np.random.default_rng(seed)
    a = np.array(scores_a) / 1000
    b = np.clip(a - 0.01 + 0.03 * rng.standard_normal(a.size), 0.0, 1.0)
    if opposite:
        b = -b
    if np.ptp(a - b) < 1e-6:
        return  # constant differences: undefined, tested elsewhere
    scale = 2.0**exponent
    n_iter = a.size
    ref = stats.ttest_rel(a, b)
    t_corr = ref.statistic * np.sqrt((1 / n_iter) / (1 / n_iter + 1 / 9))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow, no undefined statistic
        res = corrected_resampled_ttest(a * scale, b * scale, n_train=90, n_test=10)
        signed = wilcoxon(a * scale, b * scale)
    assert res.statistic == pytest.approx(t_corr, rel=1e-9)
    assert res.pvalue == pytest.approx(2 * stats.t.sf(abs(t_corr), n_iter - 1), rel=1e-9)
    assert res.difference == pytest.approx(np.mean(a - b) * scale, rel=1e-9)
    ci = res.confidence_interval()
    assert ci.low < res.difference < ci.high
    assert signed.pvalue == pytest.approx(stats.wilcoxon(a, b).pvalue, rel=1e-9)
    if n_iter % 2 == 0:
        kfold = corrected_repeated_kfold_ttest(a * scale, b * scale, n_splits=2)
        t_kfold = ref.statistic * np.sqrt((1 / n_iter) / (1 / n_iter + 1))
        assert kfold.statistic == pytest.approx(t_kfold, rel=1e-9)


def test_t_test_at_the_float_limit_matches_ttest_1samp():
    # Scores of 1e308 and -1e308: t and p are those of the unscaled differences.
    rng = np.random.default_rng(5)
    a, b = 0.5 + 0.4 * rng.random(12), 0.5 + 0.4 * rng.random(12)
    ref = stats.ttest_1samp(a + b, 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = corrected_repeated_kfold_ttest(a * 1e308, -b * 1e308, n_splits=3)
    t = ref.statistic * np.sqrt((1 / 12) / (1 / 12 + 1 / 2))
    assert res.statistic == pytest.approx(t, rel=1e-12)
    assert res.pvalue == pytest.approx(2 * stats.t.sf(t, 11), rel=1e-10)
    # Differences at or beyond the float range; their mean is within it.
    assert res.difference == pytest.approx(np.mean(a + b) * 1e308, rel=1e-12)


def test_rm_anova_is_scale_invariant():
    rng = np.random.default_rng(4)
    scores = 0.8 + 0.02 * rng.standard_normal((15, 3)) + [0.0, 0.01, 0.02]
    ref = corrected_rm_anova(scores, n_train=80, n_test=20, posthoc=True)
    for scale in (1e300, 1e-300):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            res = corrected_rm_anova(scores * scale, n_train=80, n_test=20, posthoc=True)
        assert res.statistic == pytest.approx(ref.statistic, rel=1e-9)
        assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-9)
        np.testing.assert_allclose(res.posthoc["pvalue"], ref.posthoc["pvalue"], rtol=1e-9)
        np.testing.assert_allclose(
            res.posthoc["difference"], ref.posthoc["difference"] * scale, rtol=1e-9
        )


@pytest.mark.parametrize("scale", [1e300, 1e-300])
def test_refitting_tests_are_scale_invariant_against_mlxtend(data, scale):
    """A scorer that multiplies accuracy by 1e300 (or 1e-300) changes nothing.

    mlxtend runs on the plain accuracy, on the same splits.
    """
    X, y = data

    def accuracy(estimator, X, y):
        return float(np.mean(estimator.predict(X) == y))

    def scaled(estimator, X, y):
        return scale * accuracy(estimator, X, y)

    splits = mlxtend_5x2_splits(len(y), 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t5 = paired_ttest_5x2cv(*estimators(), X, y, scoring=scaled, cv=splits)
        f5 = combined_ftest_5x2cv(*estimators(), X, y, scoring=scaled, cv=splits)
        kfold = paired_ttest_kfold_cv(*estimators(), X, y, scoring=scaled, cv=KFold(10))
        resampled = paired_ttest_resampled(
            *estimators(), X, y, scoring=scaled, cv=mlxtend_splits(len(y), 0, 15, 0.3)
        )
    references = [
        (t5, mlx_paired_ttest_5x2cv(*estimators(), X, y, scoring=accuracy, random_seed=1)),
        (f5, mlx_combined_ftest_5x2cv(*estimators(), X, y, scoring=accuracy, random_seed=1)),
        (kfold, mlx_paired_ttest_kfold_cv(*estimators(), X, y, scoring=accuracy, shuffle=False)),
        (
            resampled,
            mlx_paired_ttest_resampled(
                *estimators(), X, y, scoring=accuracy, num_rounds=15, test_size=0.3, random_seed=0
            ),
        ),
    ]
    for res, (statistic, pvalue) in references:
        assert res.statistic == pytest.approx(statistic, rel=1e-9)
        assert res.pvalue == pytest.approx(pvalue, rel=1e-9)


# ---------------------------------------------------------- validity


def test_corrected_resampled_t_holds_size_where_plain_t_does_not():
    """Nadeau-Bengio's point, by simulation.

    Two nearest-centroid classifiers, one on each of two equally informative
    features, so their expected accuracies are equal. Each of 500 data sets
    of 100 records is split 30 times at random (80 train / 20 test). The
    plain paired t test over the 30 splits rejects in about half of the data
    sets; the corrected test about 5%. Monte Carlo SE at 0.05 is 0.0097:
    the band [0.025, 0.085] fails a correct test with probability < 1e-3.
    """
    rng = np.random.default_rng(0)
    n_sim, n, n_iter, n_test = 500, 100, 30, 20
    y = rng.integers(0, 2, (n_sim, 1, n))
    sign = 2 * y - 1
    x_a = 0.5 * sign + rng.standard_normal((n_sim, 1, n))
    x_b = 0.5 * sign + rng.standard_normal((n_sim, 1, n))
    # Random splits: the n - n_test lowest of n uniforms are the training set.
    train = np.argsort(np.argsort(rng.random((n_sim, n_iter, n)), axis=2), axis=2)
    train = train < n - n_test

    def test_accuracy(x):
        mean_1 = (x * train * y).sum(2, keepdims=True) / (train * y).sum(2, keepdims=True)
        mean_0 = (x * train * (1 - y)).sum(2, keepdims=True) / (train * (1 - y)).sum(
            2, keepdims=True
        )
        predicted = (x > (mean_0 + mean_1) / 2) == (mean_1 > mean_0)
        return ((predicted == y) & ~train).sum(2) / n_test

    acc_a, acc_b = test_accuracy(x_a), test_accuracy(x_b)
    plain = stats.ttest_rel(acc_a, acc_b, axis=1).pvalue
    corrected = np.array(
        [
            corrected_resampled_ttest(acc_a[s], acc_b[s], n_train=n - n_test, n_test=n_test).pvalue
            for s in range(n_sim)
        ]
    )
    assert np.mean(plain < 0.05) > 0.3
    assert 0.025 <= np.mean(corrected < 0.05) <= 0.085


# ------------------------------------------------------ undefined, errors


def test_identical_models_give_nan_with_warning(data):
    X, y = data
    with pytest.warns(UndefinedStatisticWarning, match="5x2cv paired t"):
        res = paired_ttest_5x2cv(GaussianNB(), GaussianNB(), X, y, random_state=0)
    assert np.isnan(res.statistic) and np.isnan(res.pvalue)
    with pytest.warns(UndefinedStatisticWarning, match="combined F"):
        assert np.isnan(
            combined_ftest_5x2cv(GaussianNB(), GaussianNB(), X, y, random_state=0).pvalue
        )
    with pytest.warns(UndefinedStatisticWarning, match="do not vary"):
        res = corrected_resampled_ttest([0.8, 0.9, 0.7], [0.7, 0.8, 0.6], n_train=9, n_test=1)
    assert np.isnan(res.pvalue) and res.difference == pytest.approx(0.1)
    assert np.isnan(res.confidence_interval().low)
    with pytest.warns(UndefinedStatisticWarning, match="every score difference is zero"):
        assert np.isnan(wilcoxon([0.8, 0.9, 0.7], [0.8, 0.9, 0.7]).pvalue)
    with pytest.warns(UndefinedStatisticWarning, match="zero error variance"):
        assert np.isnan(
            corrected_rm_anova([[0.8, 0.9], [0.7, 0.8], [0.6, 0.7]], n_train=9, n_test=1).pvalue
        )


def test_a_scorer_returning_nan_is_named_as_the_reason(data):
    # A metric undefined on a fold (here: on the folds holding row 0) leaves
    # the test undefined; the warning names those splits, not "the
    # differences do not vary", which they did.
    X, y = data

    def accuracy_unless_row_0(estimator, X_test, y_test):
        if (X_test == X[0]).all(axis=1).any():
            return float("nan")
        return float(np.mean(estimator.predict(X_test) == y_test))

    splits = mlxtend_5x2_splits(len(y), 0)
    with_row_0 = [i for i, (_, test) in enumerate(splits) if 0 in test]
    calls = {
        "split 0 (counted from 0)": lambda: paired_ttest_kfold_cv(
            *estimators(), X, y, cv=KFold(5), scoring=accuracy_unless_row_0
        ),
        f"splits {', '.join(map(str, with_row_0))} (counted": lambda: paired_ttest_5x2cv(
            *estimators(), X, y, cv=splits, scoring=accuracy_unless_row_0
        ),
        "scorer returned NaN": lambda: combined_ftest_5x2cv(
            *estimators(), X, y, cv=splits, scoring=accuracy_unless_row_0
        ),
    }
    for match, call in calls.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = call()
        assert [w.category for w in caught] == [UndefinedStatisticWarning]
        assert match in str(caught[0].message) and "do not vary" not in str(caught[0].message)
        assert "identical" not in str(caught[0].message)
        assert np.isnan(res.statistic) and np.isnan(res.pvalue)


def test_undefined_warnings_point_at_the_callers_line(data):
    X, y = data
    same = GaussianNB(), GaussianNB()
    scores = [0.8, 0.9, 0.7], [0.7, 0.8, 0.6]
    calls = {
        "5x2cv paired t": lambda: paired_ttest_5x2cv(*same, X, y, random_state=0),
        "combined F": lambda: combined_ftest_5x2cv(*same, X, y, random_state=0),
        "k-fold paired t": lambda: paired_ttest_kfold_cv(*same, X, y, cv=3),
        "corrected resampled paired t": lambda: paired_ttest_resampled(
            *same, X, y, cv=ShuffleSplit(n_splits=3, random_state=0), corrected=True
        ),
        "resampled paired t": lambda: corrected_resampled_ttest(*scores, n_train=9, n_test=1),
        "repeated k-fold paired t": lambda: corrected_repeated_kfold_ttest(*scores, n_splits=3),
    }
    for match, call in calls.items():
        with pytest.warns(UndefinedStatisticWarning, match=match) as record:
            call()
        assert {w.filename for w in record} == {__file__}, match


def test_input_errors(data):
    X, y = data
    with pytest.raises(ValueError, match="exactly 10 train/test splits"):
        paired_ttest_5x2cv(*estimators(), X, y, cv=KFold(5))
    with pytest.raises(ValueError, match="one metric at a time"):
        paired_ttest_kfold_cv(*estimators(), X, y, scoring=["accuracy", "f1"])
    with pytest.raises(ValueError, match="alternative"):
        paired_ttest_resampled(*estimators(), X, y, alternative="bigger")
    with pytest.raises(ValueError, match="n_train must be a positive number"):
        corrected_resampled_ttest([1, 2], [2, 3], n_train=0, n_test=1)
    with pytest.raises(ValueError, match="n_test must be a positive number"):
        corrected_resampled_ttest([1, 2], [2, 3], n_train=10, n_test="5")
    with pytest.raises(ValueError, match="at least two paired scores"):
        corrected_resampled_ttest([1.0], [2.0], n_train=10, n_test=1)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        corrected_resampled_ttest([1, 2, 3], [2, 3], n_train=10, n_test=1)
    with pytest.raises(ValueError, match="NaN"):
        wilcoxon([1, np.nan, 3], [2, 3, 4])
    with pytest.raises(ValueError, match="n_splits must be an integer"):
        corrected_repeated_kfold_ttest([1, 2, 3, 4], [2, 3, 4, 4], n_splits=1)
    with pytest.raises(ValueError, match="not a multiple of n_splits"):
        corrected_repeated_kfold_ttest([1, 2, 3], [2, 3, 5], n_splits=2)
    with pytest.raises(ValueError, match="at least 2 splits and 2 models"):
        corrected_rm_anova([[0.8], [0.9]], n_train=9, n_test=1)
    with pytest.raises(ValueError, match=r"scores must be 2-D, of shape \(n_iter, n_models\)"):
        corrected_rm_anova([0.8, 0.9, 0.85], n_train=9, n_test=1)
    scores = [[0.8, 0.9, 0.85], [0.7, 0.75, 0.8], [0.6, 0.7, 0.62]]
    for returned in (0.5, (1.0,), None):
        with pytest.raises(ValueError, match=r"posthoc must return \(statistic, pvalue\)"):
            corrected_rm_anova(
                scores, n_train=9, n_test=1, posthoc=lambda a, b, returned=returned: returned
            )
    with pytest.raises(ValueError, match="scores must hold numbers"):
        corrected_rm_anova([["0.8", "0.9"], ["0.7", "0.8"]], n_train=9, n_test=1)
    missing = pd.DataFrame({"a": [0.8, 0.7, 0.6], "b": pd.array([0.9, None, 0.7], "Float64")})
    with pytest.raises(ValueError, match="NaN or infinity \\(first at split 1, model 1\\)"):
        corrected_rm_anova(missing, n_train=9, n_test=1)


def test_results_are_frozen_and_readable():
    res = corrected_resampled_ttest([0.81, 0.84, 0.79], [0.79, 0.82, 0.80], n_train=90, n_test=10)
    text = repr(res)
    assert text.startswith("TTestResult(statistic=") and "method='corrected" in text
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.statistic = 0.0
    anova = corrected_rm_anova(
        [[0.8, 0.9, 0.85], [0.7, 0.75, 0.8], [0.6, 0.7, 0.62]], n_train=9, n_test=1
    )
    assert repr(anova).startswith("RMAnovaResult(statistic=")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # valid input: no warning at all
        wilcoxon([0.8, 0.9, 0.7, 0.6], [0.7, 0.8, 0.75, 0.5])
