"""McNemar's test, its clustered version and Salzberg's sign test.

References: statsmodels ``mcnemar`` and GEE, scipy ``binomtest`` and
hand-worked values (Fagerland et al. 2013).
"""

import dataclasses

import numpy as np
import pytest
import statsmodels.api as sm
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

from sklearn_precision_stats import (
    UndefinedStatisticWarning,
    mcnemar_test,
    sign_test,
)

METHODS = ["exact", "midp", "asymptotic", "corrected"]


def make_pairs(n_both, n_a_only, n_b_only, n_neither, *, labels=(0, 1), seed=0):
    """Rows with the given 2x2 correctness table, shuffled."""
    right, wrong = labels
    a = [right] * n_both + [right] * n_a_only + [wrong] * n_b_only + [wrong] * n_neither
    b = [right] * n_both + [wrong] * n_a_only + [right] * n_b_only + [wrong] * n_neither
    order = np.random.default_rng(seed).permutation(len(a))
    y = np.array([right] * len(a))
    return y, np.array(a)[order], np.array(b)[order]


def stacked_gee(correct_a, correct_b, groups, family):
    """Correctness of both classifiers stacked, clustered by record."""
    endog = np.r_[correct_a, correct_b].astype(float)
    is_a = np.r_[np.ones(correct_a.size), np.zeros(correct_b.size)]
    grp = np.r_[groups, groups]
    kw = dict(groups=grp, family=family, cov_struct=sm.cov_struct.Independence())
    full = sm.GEE(endog, sm.add_constant(is_a), **kw)
    null = sm.GEE(endog, np.ones((endog.size, 1)), **kw).fit()
    return full, null


def repeated_cv_rows(rng, n_records, n_repeats, *, n_classes=3):
    """Repeated-CV-like rows: each record has its own chance of being right."""
    groups = np.tile(np.arange(n_records), n_repeats)
    y = rng.integers(0, n_classes, n_records)[groups]
    q_a = rng.beta(0.5, 0.5, n_records)[groups]
    q_b = rng.beta(0.5, 0.5, n_records)[groups]
    n = groups.size
    a = np.where(rng.random(n) < q_a, y, (y + 1) % n_classes)
    b = np.where(rng.random(n) < q_b, y, (y + 2) % n_classes)
    return y, a, b, groups


# ----------------------------------------------------------- hand-worked


def test_hand_worked_fagerland_example():
    # Fagerland, Lydersen and Laake (2013), 1 vs 7 discordant pairs:
    # exact 2 * (1 + 8) / 2**8, mid-p 2 * (9/256 - 8/512), chi2 6**2 / 8,
    # corrected 5**2 / 8.
    y, a, b = make_pairs(10, 1, 7, 3)
    exact = mcnemar_test(y, a, b, method="exact")
    assert (exact.n_a_only, exact.n_b_only) == (1, 7)
    assert exact.pvalue == pytest.approx(18 / 256, rel=1e-12)
    assert mcnemar_test(y, a, b, method="midp").pvalue == pytest.approx(10 / 256, rel=1e-12)
    asym = mcnemar_test(y, a, b, method="asymptotic")
    assert asym.statistic == pytest.approx(4.5, rel=1e-12)
    assert asym.pvalue == pytest.approx(0.03389485352468927, rel=1e-9)
    assert asym.df == 1
    corr = mcnemar_test(y, a, b, method="corrected")
    assert corr.statistic == pytest.approx(3.125, rel=1e-12)
    assert corr.pvalue == pytest.approx(stats.chi2.sf(3.125, 1), rel=1e-12)


def test_midp_is_one_for_balanced_discordance():
    y, a, b = make_pairs(5, 4, 4, 2)
    assert mcnemar_test(y, a, b, method="midp").pvalue == pytest.approx(1.0)
    assert mcnemar_test(y, a, b, method="exact").pvalue == 1.0
    # As in R's mcnemar.test, no continuity correction when b == c.
    assert mcnemar_test(y, a, b, method="corrected").statistic == 0.0


def test_accuracy_difference_and_interval():
    y, a, b = make_pairs(50, 12, 4, 34)
    res = mcnemar_test(y, a, b)
    assert res.accuracy_a == pytest.approx(0.62)
    assert res.accuracy_b == pytest.approx(0.54)
    # Paired Wald SE of a difference of proportions:
    # sqrt(b + c - (b - c)**2 / n) / n.
    se = np.sqrt(16 - 64 / 100) / 100
    assert res.standard_error == pytest.approx(se, rel=1e-12)
    ci = res.confidence_interval(0.9)
    z = stats.norm.ppf(0.95)
    assert ci.low == pytest.approx(0.08 - z * se, rel=1e-12)
    assert ci.high == pytest.approx(0.08 + z * se, rel=1e-12)


# ------------------------------------------------- independent software


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 30),
    st.integers(0, 40),
    st.integers(0, 40),
    st.integers(0, 30),
)
def test_matches_statsmodels_and_binomtest(n_both, n_a_only, n_b_only, n_neither):
    if n_a_only + n_b_only == 0:
        return
    y, a, b = make_pairs(n_both, n_a_only, n_b_only, n_neither)
    table = [[n_both, n_a_only], [n_b_only, n_neither]]
    exact = mcnemar_test(y, a, b, method="exact")
    assert exact.pvalue == pytest.approx(sm_mcnemar(table, exact=True).pvalue, rel=1e-10)
    # The binomial statistic is statsmodels' min(b, c), for exact and mid-p.
    assert exact.statistic == sm_mcnemar(table, exact=True).statistic
    assert mcnemar_test(y, a, b, method="midp").statistic == min(n_a_only, n_b_only)
    assert exact.pvalue == pytest.approx(
        stats.binomtest(n_a_only, n_a_only + n_b_only).pvalue, rel=1e-10
    )
    asym = mcnemar_test(y, a, b, method="asymptotic")
    ref = sm_mcnemar(table, exact=False, correction=False)
    assert asym.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert asym.pvalue == pytest.approx(ref.pvalue, rel=1e-10)
    if n_a_only != n_b_only:  # statsmodels corrects even when b == c
        corr = mcnemar_test(y, a, b, method="corrected")
        ref = sm_mcnemar(table, exact=False, correction=True)
        assert corr.statistic == pytest.approx(ref.statistic, rel=1e-12)
        assert corr.pvalue == pytest.approx(ref.pvalue, rel=1e-10)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(METHODS))
def test_swapping_a_and_b(seed, method):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, 40)
    a = np.where(rng.random(40) < 0.6, y, (y + 1) % 3)
    b = np.where(rng.random(40) < 0.6, y, (y + 2) % 3)
    if np.array_equal(a == y, b == y):
        return
    ab, ba = mcnemar_test(y, a, b, method=method), mcnemar_test(y, b, a, method=method)
    assert ab.pvalue == pytest.approx(ba.pvalue, rel=1e-12)
    assert ab.statistic == pytest.approx(ba.statistic, rel=1e-12)
    assert (ab.n_a_only, ab.n_b_only) == (ba.n_b_only, ba.n_a_only)
    assert ab.difference == pytest.approx(-ba.difference)
    ci_ab, ci_ba = ab.confidence_interval(), ba.confidence_interval()
    assert ci_ab.low == pytest.approx(-ci_ba.high)
    # "a beats b" is the same one-sided test as "b loses to a".
    greater, less = sign_test(y, a, b), sign_test(y, b, a, alternative="less")
    assert greater.pvalue == pytest.approx(less.pvalue, rel=1e-12)
    assert less.statistic == ab.n_b_only


def test_clustered_equals_gee_robust_score_test():
    rng = np.random.default_rng(3)
    y, a, b, groups = repeated_cv_rows(rng, 60, 4)
    res = mcnemar_test(y, a, b, groups=groups)
    assert res.method == "asymptotic" and res.n_groups == 60
    full, null = stacked_gee(a == y, b == y, groups, sm.families.Binomial())
    ref = full.compare_score_test(null)
    assert res.statistic == pytest.approx(ref["statistic"], rel=1e-9)
    assert res.pvalue == pytest.approx(ref["p-value"], rel=1e-9)
    # The CI's standard error is the robust SE of the identity-link GEE.
    lin, _ = stacked_gee(a == y, b == y, groups, sm.families.Gaussian())
    lin = lin.fit()
    assert res.difference == pytest.approx(lin.params[1], rel=1e-9)
    assert res.standard_error == pytest.approx(lin.bse[1], rel=1e-9)


def test_clustered_with_one_row_per_record_is_mcnemar():
    rng = np.random.default_rng(4)
    y, a, b, _ = repeated_cv_rows(rng, 80, 1)
    plain = mcnemar_test(y, a, b, method="asymptotic")
    clustered = mcnemar_test(y, a, b, groups=np.arange(80))
    assert clustered.statistic == pytest.approx(plain.statistic, rel=1e-12)
    assert clustered.standard_error == pytest.approx(plain.standard_error, rel=1e-12)
    # Relabelling the records does not change anything.
    relabelled = mcnemar_test(y, a, b, groups=[f"r{i}" for i in range(80)][::-1])
    assert relabelled.statistic == pytest.approx(plain.statistic, rel=1e-12)


def test_string_and_multiclass_labels():
    y, a, b = make_pairs(20, 9, 2, 5, labels=("cat", "dog"))
    res = mcnemar_test(y, a, b, method="exact")
    assert (res.n_a_only, res.n_b_only) == (9, 2)
    assert res.pvalue == pytest.approx(stats.binomtest(9, 11).pvalue)
    y = np.array(["a", "b", "c", "a", "b", "c"])
    a = np.array(["a", "b", "c", "a", "c", "c"])
    b = np.array(["b", "b", "a", "a", "b", "a"])
    res = mcnemar_test(y, a, b)
    assert (res.n_a_only, res.n_b_only) == (3, 1)


# -------------------------------------------------------- edge cases


@pytest.mark.parametrize("method", METHODS)
def test_no_discordant_rows_is_nan_with_warning(method):
    y, a, _ = make_pairs(5, 0, 0, 3)
    with pytest.warns(UndefinedStatisticWarning, match="no discordant rows"):
        res = mcnemar_test(y, a, a.copy(), method=method)
    assert np.isnan(res.statistic) and np.isnan(res.pvalue)
    assert res.accuracy_a == res.accuracy_b
    with pytest.warns(UndefinedStatisticWarning):
        assert np.isnan(sign_test(y, a, a.copy()).pvalue)


def test_input_errors():
    y, a, b = make_pairs(5, 2, 1, 1)
    with pytest.raises(ValueError, match="method must be one of"):
        mcnemar_test(y, a, b, method="chi2")
    with pytest.raises(ValueError, match="not available with groups"):
        mcnemar_test(y, a, b, method="exact", groups=np.arange(y.size))
    with pytest.raises(ValueError, match="groups has"):
        mcnemar_test(y, a, b, groups=[1, 2])
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        mcnemar_test(y, a[:-1], b)
    with pytest.raises(ValueError, match="Mix"):
        mcnemar_test(y, a.astype(str), b)
    with pytest.raises(ValueError):
        mcnemar_test(y, np.linspace(0.1, 0.9, y.size), b)  # scores, not labels
    with pytest.raises(ValueError, match="alternative"):
        sign_test(y, a, b, alternative="bigger")


def test_results_are_frozen_and_readable():
    y, a, b = make_pairs(10, 1, 7, 3)
    res = mcnemar_test(y, a, b, method="asymptotic")
    assert repr(res).startswith("McNemarResult(statistic=4.5, pvalue=0.0338949, df=1")
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.pvalue = 0.5
    st_res = sign_test(y, a, b, alternative="less")
    assert st_res.statistic == 1 and st_res.proportion == pytest.approx(1 / 8)
    # Clopper-Pearson from scipy, one-sided like the alternative.
    ci = st_res.confidence_interval(0.95)
    assert ci.low == 0.0
    assert ci.high == pytest.approx(stats.beta.ppf(0.95, 2, 7), rel=1e-9)


def test_sign_test_matches_binomtest():
    y, a, b = make_pairs(30, 14, 5, 10)
    for alternative in ("greater", "less", "two-sided"):
        res = sign_test(y, a, b, alternative=alternative)
        ref = stats.binomtest(14, 19, 0.5, alternative=alternative)
        assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    # Salzberg's p = sum_{s'=s}^{s+f} C(s+f, s') / 2**(s+f), written out.
    tail = sum(stats.binom.pmf(k, 19, 0.5) for k in range(14, 20))
    assert sign_test(y, a, b).pvalue == pytest.approx(tail, rel=1e-12)


# --------------------------------------------------------- simulations


def test_pooling_repeats_inflates_plain_mcnemar_but_not_clustered():
    """Re-using records across cross-validation repeats, by simulation.

    Null: each record has its own chances q_a, q_b of being classified
    correctly, drawn from the same Beta(0.5, 0.5), so the accuracies are
    equal; a cross-validation repeat redraws the outcome of every record.
    (1) One run (each record once): plain McNemar holds its size.
    (2) L = 10 repeats pooled as L * N rows: plain McNemar rejects far too
    often; the clustered test holds its size.
    600 replications give a Monte Carlo SE of 0.009 at a true size of 0.05,
    so [0.02, 0.085] has < 1e-3 chance of failing a correct test, and a
    rate above 0.2 is impossible for a valid one.
    """
    rng = np.random.default_rng(20240501)
    n_sim, n_records, n_repeats = 600, 100, 10
    q_a = rng.beta(0.5, 0.5, (n_sim, n_records, 1))
    q_b = rng.beta(0.5, 0.5, (n_sim, n_records, 1))
    wrong_a = (rng.random((n_sim, n_records, n_repeats)) >= q_a).astype(int)
    wrong_b = (rng.random((n_sim, n_records, n_repeats)) >= q_b).astype(int)
    groups = np.repeat(np.arange(n_records), n_repeats)
    y = np.zeros(n_records * n_repeats, dtype=int)
    rejected = np.zeros((n_sim, 3), dtype=bool)
    for s in range(n_sim):
        a, b = wrong_a[s].ravel(), wrong_b[s].ravel()
        rejected[s, 0] = (
            mcnemar_test(
                y[:n_records], wrong_a[s, :, 0], wrong_b[s, :, 0], method="asymptotic"
            ).pvalue
            < 0.05
        )
        rejected[s, 1] = mcnemar_test(y, a, b, method="asymptotic").pvalue < 0.05
        rejected[s, 2] = mcnemar_test(y, a, b, groups=groups).pvalue < 0.05
    single, pooled, clustered = rejected.mean(axis=0)
    assert 0.02 <= single <= 0.085
    assert pooled > 0.2
    assert 0.02 <= clustered <= 0.085


def test_sign_test_size_and_power_by_simulation():
    """Size and power of Salzberg's (1997) sign test, by simulation.

    10 classes; system I guesses uniformly; system II is forced right with
    probability r, else guesses. The size stays below alpha at r = 0 and,
    for r = 3%, the test rejects in most trials only beyond N = 750.
    400 trials per setting: Monte Carlo SE <= 0.025.
    """
    rng = np.random.default_rng(7)

    def rejection_rate(n, r, n_trials=400):
        y = rng.integers(0, 10, (n_trials, n))
        system_1 = rng.integers(0, 10, (n_trials, n))
        guess = rng.integers(0, 10, (n_trials, n))
        system_2 = np.where(rng.random((n_trials, n)) < r, y, guess)
        return np.mean(
            [sign_test(y[t], system_2[t], system_1[t]).pvalue < 0.05 for t in range(n_trials)]
        )

    assert rejection_rate(300, 0.0) <= 0.05 + 2.5 * 0.011
    power_750, power_1000 = rejection_rate(750, 0.03), rejection_rate(1000, 0.03)
    # Normal approximation: about 0.45 at N = 750 and 0.57 at N = 1000.
    assert 0.3 <= power_750 <= 0.6
    assert power_1000 > power_750
    assert rejection_rate(300, 0.1) > 0.8
