"""Classic tests on degenerate inputs: one warning per undefined result, clear errors."""

import warnings

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.contingency_tables import cochrans_q

from sklearn_precision_stats import (
    UndefinedStatisticWarning,
    cochrans_q_test,
    corrected_resampled_ttest,
    corrected_rm_anova,
    hanley_mcneil_se,
    mcnemar_test,
    paired_ttest_kfold_cv,
    paired_ttest_resampled,
)


def _caught(func, *args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = func(*args, **kwargs)
    return result, caught


@pytest.mark.parametrize("groups", [None, np.arange(60) // 2])
def test_cochran_undefined_with_undefined_pairs_warns_once(groups):
    # Three classifiers right and wrong on the same rows: Q and every
    # pairwise McNemar test are undefined, said in one warning.
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 60)
    pred = np.where(rng.random(60) < 0.7, y, 1 - y)
    result, caught = _caught(
        cochrans_q_test, y, {"a": pred, "b": pred, "c": pred.copy()}, groups=groups
    )
    undefined = [w for w in caught if w.category is UndefinedStatisticWarning]
    assert len(undefined) == 1, [str(w.message) for w in caught]
    message = str(undefined[0].message)
    assert "Cochran's Q test is undefined" in message
    assert "'a'-'b', 'a'-'c', 'b'-'c'" in message
    assert undefined[0].filename == __file__
    assert np.isnan(result.statistic) and np.isnan(result.pvalue)
    assert result.posthoc["pvalue"].isna().all()


def test_cochran_defined_with_one_undefined_pair_names_the_pair():
    # Q is defined (statsmodels agrees); only the pair a-b has no
    # discordant rows: its McNemar warning is the one warning.
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 80)
    a = np.where(rng.random(80) < 0.8, y, 1 - y)
    c = np.where(rng.random(80) < 0.5, y, 1 - y)
    result, caught = _caught(cochrans_q_test, y, {"a": a, "b": a, "c": c})
    assert [w.category for w in caught] == [UndefinedStatisticWarning]
    assert "McNemar" in str(caught[0].message)
    correct = np.column_stack([a == y, a == y, c == y]).astype(int)
    reference = cochrans_q(correct)
    assert result.statistic == pytest.approx(reference.statistic, rel=1e-12)
    assert result.pvalue == pytest.approx(reference.pvalue, rel=1e-12)


@pytest.mark.parametrize(
    "args, match",
    [
        ((0.8, np.inf, 30), "n_pos must be a positive whole number of rows, got inf"),
        ((0.8, 30, [30, np.inf]), "n_neg must be a positive whole number of rows, got inf"),
        ((np.r_[0.5, np.nan], 30, 30), "auc must lie between 0 and 1, got nan"),
        ((np.r_[np.linspace(0, 1, 5000), 1.5], 30, 30), "auc must lie between 0 and 1, got 1.5"),
        ((0.8, "30", 30), "n_pos must be a positive whole number of rows, got values of dtype"),
    ],
)
def test_hanley_mcneil_se_rejects_what_is_no_count_or_auc(args, match):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=match) as info:
            hanley_mcneil_se(*args)
    # The offending value, never the whole array.
    assert len(str(info.value)) < 120


@pytest.fixture(scope="module")
def two_models():
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB

    X, y = make_classification(100, random_state=0)
    return LogisticRegression(), GaussianNB(), X, y


@pytest.mark.parametrize("test", [paired_ttest_kfold_cv, paired_ttest_resampled])
def test_refitted_t_tests_need_two_splits(test, two_models):
    # One split has no spread of score differences: an error naming cv, not
    # NumPy's "Degrees of freedom <= 0" and an undefined statistic.
    a, b, X, y = two_models
    one_split = [(np.arange(50), np.arange(50, 100))]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="cv must yield at least two train/test splits, got 1"):
            test(a, b, X, y, cv=one_split)


@pytest.mark.parametrize("corrected", ["yes", 1, None])
def test_corrected_must_be_a_bool(corrected, two_models):
    a, b, X, y = two_models
    with pytest.raises(ValueError, match="corrected must be True or False"):
        paired_ttest_resampled(a, b, X, y, cv=3, corrected=corrected)


def _scores(seed=0):
    return np.random.default_rng(seed).random((10, 3))


def test_rm_anova_posthoc_undefined_pair_warns_once_at_the_caller():
    scores = _scores()
    scores[:, 1] = scores[:, 0]
    result, caught = _caught(corrected_rm_anova, scores, n_train=90, n_test=10, posthoc=True)
    assert [w.category for w in caught] == [UndefinedStatisticWarning]
    assert "pair 0-1" in str(caught[0].message)
    assert caught[0].filename == __file__
    assert np.isfinite(result.statistic)
    # The pairwise tests are corrected_resampled_ttest's.
    for (i, j), row in zip([(0, 1), (0, 2), (1, 2)], result.posthoc.itertuples(), strict=True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedStatisticWarning)
            expected = corrected_resampled_ttest(scores[:, i], scores[:, j], n_train=90, n_test=10)
        np.testing.assert_equal([row.statistic, row.pvalue], [expected.statistic, expected.pvalue])


def test_rm_anova_undefined_with_undefined_pairs_warns_once():
    base = _scores()[:, 0]
    scores = np.c_[base, base, base + 0.1]
    result, caught = _caught(corrected_rm_anova, scores, n_train=90, n_test=10, posthoc=True)
    assert [w.category for w in caught] == [UndefinedStatisticWarning]
    message = str(caught[0].message)
    assert "repeated-measures ANOVA is undefined" in message
    assert "pairs 0-1, 0-2, 1-2" in message
    assert caught[0].filename == __file__
    assert np.isnan(result.statistic) and result.posthoc["pvalue"].isna().all()


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_rm_anova_names_the_missing_score(bad):
    scores = _scores()
    scores[3, 2] = bad
    with pytest.raises(
        ValueError, match="scores contains NaN or infinity .first at split 3, model 2"
    ):
        corrected_rm_anova(scores, n_train=90, n_test=10)


@pytest.mark.parametrize(
    "y_true, y_pred_a, y_pred_b",
    [([1], [1], [0]), ([1, 0, 1], [1, 0, 1], [0, 1, 0])],
)
def test_mcnemar_interval_is_nan_when_every_row_differs_the_same_way(y_true, y_pred_a, y_pred_b):
    # The Wald interval of the accuracy difference would be [1, 1]: its
    # standard error is 0. The test itself stays defined (exact p-value),
    # without a warning; asking for the interval gives NaN and one warning.
    result, caught = _caught(mcnemar_test, y_true, y_pred_a, y_pred_b)
    assert not caught
    expected = stats.binomtest(0, len(y_true), 0.5).pvalue
    assert result.pvalue == pytest.approx(expected, rel=1e-12)
    with pytest.warns(UndefinedStatisticWarning, match="standard error is 0") as warned:
        interval = result.confidence_interval()
    assert len(warned) == 1 and warned[0].filename == __file__
    assert np.isnan(interval).all()
