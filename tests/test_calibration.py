"""Calibration plot points and the Hosmer-Lemeshow test.

References: a ten-row example worked by hand, scikit-learn's ``calibration_curve``,
Pearson's chi-square over the 2 x g table written out here, statsmodels'
logistic regression for the size simulation.
"""

import dataclasses
import warnings

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import stats
from sklearn.calibration import calibration_curve

from sklearn_precision_stats import (
    UndefinedStatisticWarning,
    calibration_points,
    hosmer_lemeshow_test,
)

TEN_ROWS_D = [0, 0, 0, 1, 0, 0, 1, 1, 1, 1]
TEN_ROWS_PHI = [0.04, 0.21, 0.41, 0.46, 0.51, 0.59, 0.61, 0.75, 0.80, 0.92]


def pearson_over_cells(y, prob, n_groups):
    """Pearson chi-square over positives and negatives in each group.

    Groups are consecutive runs of the sorted rows, group j starting at
    floor(j * n / g), written with plain slicing.
    """
    order = np.argsort(prob, kind="stable")
    y, prob = np.asarray(y)[order], np.asarray(prob)[order]
    n = len(y)
    bounds = [j * n // n_groups for j in range(n_groups + 1)]
    total = 0.0
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=False):
        observed = np.array([y[lo:hi].sum(), (1 - y[lo:hi]).sum()])
        expected = np.array([prob[lo:hi].sum(), (1 - prob[lo:hi]).sum()])
        total += ((observed - expected) ** 2 / expected).sum()
    return total


def test_ten_rows_points():
    # Groups of 3, 3 and 4 rows; points (0.00, 0.22), (0.33, 0.52), (1.00, 0.77).
    points = calibration_points(TEN_ROWS_D, TEN_ROWS_PHI, n_groups=3)
    assert list(points.columns) == ["group", "n", "prob_pred", "prob_true", "expected", "observed"]
    assert points["n"].tolist() == [3, 3, 4]
    np.testing.assert_allclose(points["prob_true"], [0, 1 / 3, 1], rtol=1e-12)
    np.testing.assert_allclose(points["prob_pred"], [0.22, 0.52, 0.77], rtol=1e-12)
    np.testing.assert_allclose(points["prob_pred"].round(2), [0.22, 0.52, 0.77])
    assert points["observed"].tolist() == [0, 1, 4]
    # The input order does not matter.
    perm = np.random.default_rng(0).permutation(10)
    shuffled = calibration_points(
        np.array(TEN_ROWS_D)[perm], np.array(TEN_ROWS_PHI)[perm], n_groups=3
    )
    np.testing.assert_allclose(shuffled["prob_pred"], points["prob_pred"])


def test_ten_rows_hosmer_lemeshow_by_hand():
    # (0 - 0.66)^2 / (0.66 * 0.78) + (1 - 1.56)^2 / (1.56 * 0.48)
    #   + (4 - 3.08)^2 / (3.08 * 0.23), chi-square with 3 - 2 = 1 df.
    by_hand = 0.66**2 / (0.66 * 0.78) + 0.56**2 / (1.56 * 0.48) + 0.92**2 / (3.08 * 0.23)
    res = hosmer_lemeshow_test(TEN_ROWS_D, TEN_ROWS_PHI, n_groups=3)
    assert res.statistic == pytest.approx(by_hand, rel=1e-12)
    assert res.df == 1 and res.n_groups == 3
    assert res.pvalue == pytest.approx(stats.chi2.sf(by_hand, 1), rel=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_equals_pearson_chi_square_over_cells(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(50, 500))
    prob = rng.beta(2, 3, n)
    y = (rng.random(n) < prob**1.2).astype(int)
    for g in (3, 7, 10):
        res = hosmer_lemeshow_test(y, prob, n_groups=g)
        assert res.statistic == pytest.approx(pearson_over_cells(y, prob, g), rel=1e-10)
        assert res.df == g - 2


def test_uniform_strategy_matches_sklearn_calibration_curve():
    rng = np.random.default_rng(3)
    prob = rng.random(400)
    prob[:3] = [0.0, 1.0, 0.5]  # the ends go in the first and last bins
    y = (rng.random(400) < prob).astype(int)
    prob_true, prob_pred = calibration_curve(y, prob, n_bins=8, strategy="uniform")
    points = calibration_points(y, prob, n_groups=8, strategy="uniform")
    np.testing.assert_allclose(points["prob_true"], prob_true, rtol=1e-12)
    np.testing.assert_allclose(points["prob_pred"], prob_pred, rtol=1e-12)
    # Empty bins are dropped, as sklearn does, and the test uses the rest.
    sparse = np.r_[rng.uniform(0, 0.2, 50), rng.uniform(0.8, 1.0, 50)]
    y = (rng.random(100) < sparse).astype(int)
    points = calibration_points(y, sparse, n_groups=10, strategy="uniform")
    assert points.shape[0] == 4
    res = hosmer_lemeshow_test(y, sparse, n_groups=10, strategy="uniform")
    assert res.n_groups == 4 and res.df == 2


def test_labels_and_pos_label():
    labels = np.where(np.array(TEN_ROWS_D) == 1, "yes", "no")
    res = hosmer_lemeshow_test(labels, TEN_ROWS_PHI, n_groups=3, pos_label="yes")
    ref = hosmer_lemeshow_test(TEN_ROWS_D, TEN_ROWS_PHI, n_groups=3)
    assert res.statistic == pytest.approx(ref.statistic)
    with pytest.raises(ValueError, match="pass pos_label"):
        hosmer_lemeshow_test(labels, TEN_ROWS_PHI, n_groups=3)


def test_size_for_a_fitted_logistic_model():
    """Hosmer-Lemeshow's setting: a logistic model fitted to the same rows.

    The statistic is then approximately chi-square with g - 2 df, so the
    test rejects about 5% of the time. 400 replications: Monte Carlo SE
    0.011 at 0.05; band [0.02, 0.09]. For probabilities known in advance
    (no fit), the statistic has about g degrees of freedom instead: its
    mean over the same replications is close to g = 10, not 8 (SE of the
    mean about 0.25).
    """
    rng = np.random.default_rng(17)
    n, n_sim = 500, 400
    fitted_rejects, known_stats = [], []
    for _ in range(n_sim):
        x = rng.standard_normal(n)
        true_prob = 1 / (1 + np.exp(-(-0.5 + 1.2 * x)))
        y = (rng.random(n) < true_prob).astype(int)
        fit = sm.Logit(y, sm.add_constant(x)).fit(disp=0)
        fitted_rejects.append(hosmer_lemeshow_test(y, fit.predict()).pvalue < 0.05)
        known_stats.append(hosmer_lemeshow_test(y, true_prob).statistic)
    assert 0.02 <= np.mean(fitted_rejects) <= 0.09
    assert np.mean(known_stats) == pytest.approx(10, abs=1.0)


def test_detects_miscalibration():
    rng = np.random.default_rng(0)
    prob = rng.uniform(0.05, 0.95, 1000)
    y = (rng.random(1000) < prob).astype(int)
    assert hosmer_lemeshow_test(y, prob).pvalue > 1e-3
    assert hosmer_lemeshow_test(y, prob**2).pvalue < 1e-6
    assert hosmer_lemeshow_test(y, np.sqrt(prob)).pvalue < 1e-6


def test_certain_groups_add_their_honest_contribution():
    # The first group holds the four probabilities of exactly 0: outcomes
    # that agree add 0 (the other groups' Pearson terms are the statistic);
    # a positive among them makes the statistic infinite and p = 0.
    y = np.array([0, 0, 0, 0, 1, 0, 1, 1, 0, 1, 1, 1])
    prob = np.r_[np.zeros(4), np.linspace(0.2, 0.8, 8)]
    res = hosmer_lemeshow_test(y, prob, n_groups=3)
    rest = pearson_over_cells(y[4:], prob[4:], 2)
    assert res.n_groups == 3 and res.statistic == pytest.approx(rest, rel=1e-12)
    y_bad = y.copy()
    y_bad[0] = 1
    res = hosmer_lemeshow_test(y_bad, prob, n_groups=3)
    assert res.statistic == np.inf and res.pvalue == 0.0


def test_undefined_is_nan_with_warning():
    y = np.array([0, 0, 0, 0, 1, 0, 1, 1, 0, 1, 1, 1])
    with pytest.warns(UndefinedStatisticWarning, match="no degrees of freedom"):
        res = hosmer_lemeshow_test(y, np.full(12, 0.5), n_groups=3, strategy="uniform")
    assert res.n_groups == 1 and np.isnan(res.pvalue)


def test_tied_probabilities_defined_at_three_groups_undefined_below():
    # Ten groups asked for, three distinct probabilities: ties never split,
    # so three groups remain (two empty cuts): H by hand, chi-square 1 df.
    y = np.array([0, 0, 1, 0, 0, 1, 1, 0, 1, 1, 1, 1])
    prob = np.repeat([0.2, 0.5, 0.8], 4)
    expected = np.array([0.8, 2.0, 3.2])
    observed = np.array([1, 2, 4])
    by_hand = np.sum((observed - expected) ** 2 / (expected * (1 - expected / 4)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = hosmer_lemeshow_test(y, prob, n_groups=10)
    assert (res.n_groups, res.df) == (3, 1)
    assert res.statistic == pytest.approx(by_hand, rel=1e-12)
    assert res.pvalue == pytest.approx(stats.chi2.sf(by_hand, 1), rel=1e-12)
    # Two or one group(s) left: no degrees of freedom, so no test. NaN, df 0
    # (never -1), one warning that says why.
    for values, used, why in [
        ([0.2, 0.8], 2, "only 2 groups of distinct"),
        ([0.3], 1, "only 1 group of distinct"),
    ]:
        prob = np.repeat(values, 12 // len(values))
        for strategy in ("equal-count", "uniform"):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                res = hosmer_lemeshow_test(y, prob, n_groups=10, strategy=strategy)
            assert [w.category for w in caught] == [UndefinedStatisticWarning]
            assert why in str(caught[0].message) and "no degrees of freedom" in str(
                caught[0].message
            )
            assert caught[0].filename == __file__
            assert np.isnan(res.statistic) and np.isnan(res.pvalue)
            assert (res.n_groups, res.df) == (used, 0)


def test_input_errors():
    with pytest.raises(ValueError, match=r"probabilities in \[0, 1\]"):
        hosmer_lemeshow_test([0, 1, 1], [0.2, 1.5, 0.3])
    with pytest.raises(ValueError, match="n_groups must be an integer >= 3"):
        hosmer_lemeshow_test(TEN_ROWS_D, TEN_ROWS_PHI, n_groups=2)
    with pytest.raises(ValueError, match="larger than the number of rows"):
        calibration_points(TEN_ROWS_D, TEN_ROWS_PHI, n_groups=11)
    with pytest.raises(ValueError, match="strategy must be one of"):
        calibration_points(TEN_ROWS_D, TEN_ROWS_PHI, strategy="quantile")
    with pytest.raises(ValueError, match="binary"):
        calibration_points([0, 1, 2], [0.1, 0.2, 0.3], n_groups=2)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        calibration_points([0, 1, 1], [0.1, 0.2], n_groups=2)


def test_result_is_frozen_and_readable():
    res = hosmer_lemeshow_test(TEN_ROWS_D, TEN_ROWS_PHI, n_groups=3)
    assert repr(res) == (
        "HosmerLemeshowResult(statistic=2.45976, pvalue=0.116796, df=1, n_groups=3)"
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.df = 2
