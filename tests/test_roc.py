"""DeLong's test and Hanley-McNeil's standard error.

DeLong is checked against a brute-force O(n^2) implementation of DeLong et
al. (1988) written here from the placement values, against scikit-learn's
AUC, and against R pROC values computed separately; Hanley-McNeil against a
hand-worked value and a simulation under the exponential model for which
its Q1 and Q2 are exact. The test suite does not need R.
"""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import roc_auc_score

from sklearn_precision_stats import (
    UndefinedStatisticWarning,
    delong_test,
    hanley_mcneil_se,
)


def brute_force_delong(y, scores_a, scores_b):
    """DeLong et al. (1988) straight from the definition, O(m n) memory."""
    pos = np.asarray(y) == 1
    v10, v01, aucs = [], [], []
    for s in (np.asarray(scores_a, float), np.asarray(scores_b, float)):
        x, z = s[pos][:, None], s[~pos][None, :]
        psi = (x > z) + 0.5 * (x == z)
        aucs.append(psi.mean())
        v10.append(psi.mean(axis=1))
        v01.append(psi.mean(axis=0))
    cov = np.cov(np.array(v10)) / pos.sum() + np.cov(np.array(v01)) / (~pos).sum()
    z = (aucs[0] - aucs[1]) / np.sqrt(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])
    return aucs, cov, z, 2 * stats.norm.sf(abs(z))


def correlated_scores(rng, n, *, shift_a=1.0, shift_b=1.0, rho=0.5, decimals=None):
    y = rng.integers(0, 2, n)
    common = rng.standard_normal(n)
    a = shift_a * y + np.sqrt(rho) * common + np.sqrt(1 - rho) * rng.standard_normal(n)
    b = shift_b * y + np.sqrt(rho) * common + np.sqrt(1 - rho) * rng.standard_normal(n)
    if decimals is not None:  # many ties, within and across classes
        a, b = np.round(a, decimals), np.round(b, decimals)
    return y, a, b


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("decimals", [None, 1, 0])
def test_matches_brute_force(seed, decimals):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 400))
    y, a, b = correlated_scores(rng, n, shift_a=1.2, shift_b=0.8, decimals=decimals)
    res = delong_test(y, a, b)
    aucs, cov, z, p = brute_force_delong(y, a, b)
    assert res.auc_a == pytest.approx(aucs[0], rel=1e-12)
    assert res.auc_b == pytest.approx(aucs[1], rel=1e-12)
    assert res.auc_a == pytest.approx(roc_auc_score(y, a), rel=1e-12)
    np.testing.assert_allclose(res.covariance, cov, rtol=1e-10)
    assert res.statistic == pytest.approx(z, rel=1e-9)
    assert res.pvalue == pytest.approx(p, rel=1e-9)
    ci = res.confidence_interval(0.95)
    half = stats.norm.ppf(0.975) * np.sqrt(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])
    assert ci.low == pytest.approx(aucs[0] - aucs[1] - half, rel=1e-9, abs=1e-12)
    assert ci.high == pytest.approx(aucs[0] - aucs[1] + half, rel=1e-9, abs=1e-12)


def _proc_big_data():
    # Integer scores (many ties) from the legacy RandomState, whose stream is
    # frozen, so the data are the same as when the pROC values were made.
    rs = np.random.RandomState(2024)
    y = rs.randint(0, 2, 300)
    common = rs.randint(0, 10, 300)
    a = 3 * y + common + rs.randint(0, 10, 300)
    b = 2 * y + common + rs.randint(0, 10, 300)
    return y, a, b


def _proc_small_data():
    y = np.array([0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1, 0])
    a = np.array(
        [
            0.1,
            0.3,
            0.2,
            0.45,
            0.5,
            0.05,
            0.6,
            0.7,
            0.4,
            0.8,
            0.9,
            0.65,
            0.55,
            0.3,
            0.95,
            0.35,
            0.5,
            0.15,
            0.85,
            0.25,
        ]
    )
    b = np.array(
        [
            0.2,
            0.1,
            0.4,
            0.3,
            0.6,
            0.2,
            0.3,
            0.5,
            0.6,
            0.4,
            0.7,
            0.5,
            0.3,
            0.2,
            0.8,
            0.5,
            0.6,
            0.4,
            0.45,
            0.1,
        ]
    )
    return y, a, b


# R 4.2.2, pROC 1.18.0 (Debian r-cran-proc), printed with %.15g:
#   ra <- roc(y, a, direction = "<", levels = c(0, 1))   (rb likewise)
#   t <- roc.test(ra, rb, method = "delong", paired = TRUE)
#   auc(ra), auc(rb), t$statistic, t$p.value, t$conf.int,
#   var(ra, method = "delong"), var(rb, ...), cov(ra, rb, method = "delong")
PROC_VALUES = {
    "small": (
        _proc_small_data,
        [
            0.9,
            0.79,
            1.17557632480051,
            0.239764220857583,
            -0.0733960362684165,
            0.293396036268416,
            0.00444444444444444,
            0.0105888888888889,
            0.00313888888888889,
        ],
    ),
    "big": (
        _proc_big_data,
        [
            0.687897381174692,
            0.605642256902761,
            2.60994359585973,
            0.00905571524697593,
            0.0204847927702858,
            0.144025455773576,
            0.000914557029927589,
            0.00105673545293577,
            0.000489015399878929,
        ],
    ),
}


@pytest.mark.parametrize("case", sorted(PROC_VALUES))
def test_matches_r_proc(case):
    make_data, expected = PROC_VALUES[case]
    res = delong_test(*make_data())
    ci = res.confidence_interval(0.95)
    got = [
        res.auc_a,
        res.auc_b,
        res.statistic,
        res.pvalue,
        ci.low,
        ci.high,
        res.var_a,
        res.var_b,
        res.cov_ab,
    ]
    np.testing.assert_allclose(got, expected, rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([None, 1]))
def test_invariances(seed, decimals):
    rng = np.random.default_rng(seed)
    y, a, b = correlated_scores(rng, 60, shift_a=1.0, shift_b=0.5, decimals=decimals)
    if y.sum() < 2 or (1 - y).sum() < 2:
        return
    res = delong_test(y, a, b)
    # Swapping a and b flips z and the difference; the p-value stays.
    swapped = delong_test(y, b, a)
    assert swapped.statistic == pytest.approx(-res.statistic, rel=1e-9)
    assert swapped.pvalue == pytest.approx(res.pvalue, rel=1e-9)
    assert swapped.cov_ab == pytest.approx(res.cov_ab, rel=1e-9, abs=1e-15)
    # Only the ranks matter: a strictly increasing transform changes nothing.
    transformed = delong_test(y, np.exp(a), 3 * b - 7)
    assert transformed.statistic == pytest.approx(res.statistic, rel=1e-9)
    # Nor does the order of the rows.
    perm = rng.permutation(y.size)
    permuted = delong_test(y[perm], a[perm], b[perm])
    assert permuted.statistic == pytest.approx(res.statistic, rel=1e-9)
    # One-sided p-values add up to 1 and the two-sided one is twice the min.
    greater = delong_test(y, a, b, alternative="greater").pvalue
    less = delong_test(y, a, b, alternative="less").pvalue
    assert greater + less == pytest.approx(1.0)
    assert res.pvalue == pytest.approx(2 * min(greater, less))


def test_labels_and_pos_label():
    rng = np.random.default_rng(1)
    y, a, b = correlated_scores(rng, 120, shift_b=0.3)
    ref = delong_test(y, a, b)
    words = np.where(y == 1, "sick", "healthy")
    res = delong_test(words, a, b, pos_label="sick")
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    res = delong_test(2 * y - 1, a, b)  # {-1, 1}
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    # The other class as positive reverses both AUCs.
    res = delong_test(y, a, b, pos_label=0)
    assert res.auc_a == pytest.approx(1 - ref.auc_a, rel=1e-12)
    with pytest.raises(ValueError, match="pass pos_label"):
        delong_test(words, a, b)
    with pytest.raises(ValueError, match="not one of the labels"):
        delong_test(words, a, b, pos_label="cat")


def test_input_errors():
    y = np.array([0, 1, 0, 1, 1])
    a = np.array([0.1, 0.9, 0.3, 0.7, 0.6])
    with pytest.raises(ValueError, match="only one class"):
        delong_test(np.ones(5, int), a, a[::-1])
    with pytest.raises(ValueError, match="binary"):
        delong_test([0, 1, 2, 1, 0], a, a[::-1])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        delong_test(y, a[:4], a)
    with pytest.raises(ValueError, match="NaN"):
        delong_test(y, np.r_[a[:4], np.nan], a)
    with pytest.raises(ValueError, match="alternative"):
        delong_test(y, a, a[::-1], alternative="bigger")
    res = delong_test(y, a, np.array([0.2, 0.8, 0.7, 0.5, 0.1]))
    with pytest.raises(ValueError, match="confidence_level must be a number"):
        res.confidence_interval(95)


def test_undefined_cases_are_nan_with_warning():
    rng = np.random.default_rng(2)
    y, a, _ = correlated_scores(rng, 50)
    with pytest.warns(UndefinedStatisticWarning, match="variance of the AUC difference is zero"):
        res = delong_test(y, a, 2 * a + 1)  # same ranking
    assert np.isnan(res.statistic) and np.isnan(res.pvalue)
    assert res.auc_a == res.auc_b
    y = np.array([1, 0, 0, 0, 0, 0])
    with pytest.warns(UndefinedStatisticWarning, match="fewer than two positive"):
        res = delong_test(y, np.arange(6.0), np.arange(6.0)[::-1])
    assert np.isnan(res.pvalue) and np.isnan(res.confidence_interval().low)
    assert res.auc_a == 0.0


def test_size_under_the_null():
    """Two equally good, correlated scores: DeLong rejects about 5% of the time.

    500 replications: Monte Carlo SE 0.0097 at 0.05, band [0.025, 0.085].
    """
    rng = np.random.default_rng(11)
    pvalues = []
    for _ in range(500):
        y, a, b = correlated_scores(rng, 150, rho=0.6)
        pvalues.append(delong_test(y, a, b).pvalue)
    assert 0.025 <= np.mean(np.array(pvalues) < 0.05) <= 0.085


def test_float64_scores_are_read_in_place():
    """Float64 scores are used without a copy: strided, read-only and pandas
    inputs give the brute-force values and are left as they were."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(4)
    y, a, b = correlated_scores(rng, 300, shift_b=0.4, decimals=1)
    proba = np.column_stack([1 - a, a])  # a[i] at stride 16 bytes, as predict_proba(X)[:, 1]
    column = proba[:, 1]
    column.flags.writeable = False
    before = column.copy()
    _, cov, z, p = brute_force_delong(y, a, b)
    for scores_a, scores_b in (
        (column, b),
        (pd.Series(a), pd.Series(b)),
        (a.astype(np.float32), b),
    ):
        res = delong_test(y, scores_a, scores_b)
        expected_z = z if scores_a.dtype == np.float64 else brute_force_delong(y, scores_a, b)[2]
        assert res.statistic == pytest.approx(expected_z, rel=1e-9)
    np.testing.assert_allclose(delong_test(y, column, b).covariance, cov, rtol=1e-10)
    assert delong_test(y, column, b).pvalue == pytest.approx(p, rel=1e-9)
    np.testing.assert_array_equal(column, before)
    bad = proba.copy()
    bad[7, 1] = np.inf
    with pytest.raises(ValueError, match="first at row 7"):
        delong_test(y, bad[:, 1], b)


def test_memory_per_row():
    """Two float64 score vectors need about 31 bytes a row at the peak (one
    classifier's sort, run bounds and the other's placements), not counting
    the inputs."""
    import tracemalloc

    rng = np.random.default_rng(6)
    n = 200_000
    y, a, b = correlated_scores(rng, n, decimals=2)
    tracemalloc.start()
    try:
        delong_test(y, a, b)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak / n < 40


def test_result_is_frozen_and_readable():
    rng = np.random.default_rng(3)
    res = delong_test(*correlated_scores(rng, 80))
    assert repr(res).startswith("DeLongResult(statistic=")
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.auc_a = 1.0


# ------------------------------------------------------------ Hanley-McNeil


def test_hanley_mcneil_hand_worked():
    # A = 0.8, 50 and 50: Q1 = 2/3, Q2 = 1.28/1.8,
    # var = (0.16 + 49 (2/3 - 0.64) + 49 (1.28/1.8 - 0.64)) / 2500.
    var = (0.16 + 49 * (2 / 3 - 0.64) + 49 * (1.28 / 1.8 - 0.64)) / 2500
    assert hanley_mcneil_se(0.8, 50, 50) == pytest.approx(np.sqrt(var), rel=1e-12)
    # One positive and one negative: var = A (1 - A).
    assert hanley_mcneil_se(0.5, 1, 1) == pytest.approx(0.5)
    out = hanley_mcneil_se([0.6, 0.9], [30, 40], 50)
    assert out.shape == (2,)
    assert out[1] == pytest.approx(hanley_mcneil_se(0.9, 40, 50))


def test_hanley_mcneil_exact_for_exponential_scores():
    """Q1 = A/(2-A) and Q2 = 2A^2/(1+A) hold exactly for exponential scores.

    Negatives ~ Exp(1), positives ~ Exp(mean mu): A = mu / (1 + mu). The SD of
    the empirical AUC over 3000 data sets estimates the true SE to about
    1.3% (SE of an SD ~ 1/sqrt(2 * 3000)); a 6% band leaves room for that
    and nothing else.
    """
    rng = np.random.default_rng(5)
    n_pos, n_neg, mu, n_sim = 40, 60, 3.0, 3000
    auc_true = mu / (1 + mu)
    pos = rng.exponential(mu, (n_sim, n_pos))
    neg = rng.exponential(1.0, (n_sim, n_neg))
    ranks = stats.rankdata(np.hstack([pos, neg]), axis=1)[:, :n_pos]
    aucs = (ranks.sum(axis=1) - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)
    assert aucs.mean() == pytest.approx(auc_true, abs=0.005)
    assert aucs.std(ddof=1) == pytest.approx(hanley_mcneil_se(auc_true, n_pos, n_neg), rel=0.06)


def test_hanley_mcneil_errors():
    with pytest.raises(ValueError, match="auc must lie between 0 and 1"):
        hanley_mcneil_se(1.2, 10, 10)
    with pytest.raises(ValueError, match="n_pos must be a positive whole number"):
        hanley_mcneil_se(0.7, 0, 10)
    with pytest.raises(ValueError, match="n_neg must be a positive whole number"):
        hanley_mcneil_se(0.7, 10, 2.5)
