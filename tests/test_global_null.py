"""The global null across classes: Dai-Cui, Fisher, Simes, Holm, BH, and the
resampling behind them."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.multitest import multipletests

from sklearn_precision_stats import (
    GlobalTestResult,
    UndefinedStatisticWarning,
    combine_pvalues_dependent,
    compare_npv,
    compare_precision,
    compare_recall,
)
from sklearn_precision_stats.across_classes import _global_null as gn

from .conftest import make_correlated_predictions

pvalue_lists = st.lists(
    st.floats(min_value=1e-12, max_value=1.0, allow_nan=False), min_size=1, max_size=8
)


def _quiet_compare(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        return compare_precision(*args, **kwargs)


def _exchangeable(rng, n, n_classes, accuracy=0.7, shared=0.9, shift=0.0):
    """Two classifiers; exchangeable when shift == 0.

    Errors go to a neighbouring class and a share of them is common to both
    classifiers, which makes the classes' p-values positively dependent.
    """
    y = rng.integers(0, n_classes, n)
    hard = rng.random(n) < shared * (1 - accuracy)

    def wrong():
        return (y + rng.choice([-1, 1], n)) % n_classes

    common = wrong()

    def classifier(acc):
        return np.where(hard, common, np.where(rng.random(n) < acc, y, wrong()))

    return y, classifier(accuracy), classifier(accuracy + shift)


# ---------------------------------------------------------------------------
# combine_pvalues_dependent
# ---------------------------------------------------------------------------


def test_dai_cui_equals_hand_formula():
    p = np.array([0.02, 0.3, 0.07, 0.5])
    rng = np.random.default_rng(1)
    z = rng.standard_normal((400, 1)) + rng.standard_normal((400, 4))
    null = 2 * stats.norm.sf(np.abs(z))
    # By hand, with w = 2: chi2.isf(p, 2) = -2 log p; the null p-values are
    # bounded to [1/(B+1), 1 - 1/(B+1)], the resolution of B = 400 rows.
    t = -2 * np.log(p).sum()
    x = -2 * np.log(np.clip(null, 1 / 401, 1 - 1 / 401))
    xc = x - x.mean(axis=0)
    cov = xc.T @ xc / (x.shape[0] - 1)
    var = 2 * 8 + 2 * sum(cov[i, j] for i in range(4) for j in range(i + 1, 4))
    nu = 2 * 8**2 / var
    c = nu / 8
    res = combine_pvalues_dependent(p, null_pvalues=null)
    assert res.method == "dai-cui"
    assert res.df == pytest.approx(nu, rel=1e-12)
    assert res.scale == pytest.approx(c, rel=1e-12)
    assert res.statistic == pytest.approx(c * t, rel=1e-12)
    assert res.pvalue == pytest.approx(stats.chi2.sf(c * t, nu), rel=1e-12)
    assert res.n_tests == 4 and res.n_resamples == 400
    # Positively dependent null p-values: fewer degrees of freedom, larger p.
    assert nu < 8
    assert res.pvalue > combine_pvalues_dependent(p, method="fisher").pvalue


def test_dai_cui_weighted_equals_hand_formula():
    p = np.array([0.01, 0.2, 0.6])
    w = np.array([1.0, 4.0, 2.5])
    rng = np.random.default_rng(2)
    null = rng.uniform(size=(300, 3))
    null[:, 1] = null[:, 0] ** 0.5  # strongly dependent on the first
    # Null p-values are bounded to the resolution of B = 300 rows.
    x = stats.chi2.isf(np.clip(null, 1 / 301, 1 - 1 / 301), w)
    cov = np.cov(x, rowvar=False)
    var = 2 * w.sum() + 2 * (cov[0, 1] + cov[0, 2] + cov[1, 2])
    nu = 2 * w.sum() ** 2 / var
    t = stats.chi2.isf(p, w).sum()
    res = combine_pvalues_dependent(p, null_pvalues=null, weights=w)
    assert res.df == pytest.approx(nu, rel=1e-12)
    assert res.pvalue == pytest.approx(stats.chi2.sf(nu / w.sum() * t, nu), rel=1e-12)


def test_without_null_pvalues_is_fisher_and_scipy():
    p = [0.01, 0.04, 0.3, 0.9]
    dai = combine_pvalues_dependent(p)
    fisher = combine_pvalues_dependent(p, method="fisher")
    expected = stats.combine_pvalues(p, method="fisher")
    for res in (dai, fisher):
        assert res.pvalue == pytest.approx(expected.pvalue, rel=1e-12)
        assert res.statistic == pytest.approx(expected.statistic, rel=1e-12)
        assert res.df == 8 and res.scale == 1 and res.n_resamples == 0


def test_independent_null_pvalues_give_about_fisher():
    p = [0.01, 0.04, 0.3]
    null = np.random.default_rng(3).uniform(size=(20000, 3))
    res = combine_pvalues_dependent(p, null_pvalues=null)
    assert res.df == pytest.approx(6, rel=0.05)
    fisher = combine_pvalues_dependent(p, method="fisher")
    assert res.pvalue == pytest.approx(fisher.pvalue, rel=0.1)


def test_simes_equals_hand_formula():
    p = np.array([0.04, 0.01, 0.03, 0.5, 0.2])
    ps = np.sort(p)
    expected = min(len(p) * ps[i] / (i + 1) for i in range(len(p)))
    res = combine_pvalues_dependent(p, method="simes")
    assert res.pvalue == pytest.approx(expected) and res.statistic == res.pvalue
    assert np.isnan(res.df) and res.n_tests == 5


@given(pvalue_lists, st.randoms(use_true_random=False))
@settings(max_examples=60, deadline=None)
def test_combinations_do_not_depend_on_order(pvalues, random):
    p = np.array(pvalues)
    order = np.arange(p.size)
    random.shuffle(order)
    rng = np.random.default_rng(random.randint(0, 2**32 - 1))
    null = rng.uniform(size=(50, p.size)) ** rng.uniform(0.5, 2, size=p.size)
    w = rng.uniform(0.5, 4, size=p.size)
    for method in ("simes", "fisher"):
        a = combine_pvalues_dependent(p, method=method)
        b = combine_pvalues_dependent(p[order], method=method)
        assert a.pvalue == pytest.approx(b.pvalue, rel=1e-9, abs=1e-300)
    with warnings.catch_warnings():
        # 50 rows of independent null p-values can estimate Var(T) <= 0.
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        a = combine_pvalues_dependent(p, null_pvalues=null, weights=w)
        b = combine_pvalues_dependent(p[order], null_pvalues=null[:, order], weights=w[order])
    assert a.pvalue == pytest.approx(b.pvalue, rel=1e-9, abs=1e-300, nan_ok=True)
    assert a.df == pytest.approx(b.df, rel=1e-9, nan_ok=True)


@given(pvalue_lists)
@settings(max_examples=60, deadline=None)
def test_simes_between_min_and_bonferroni(pvalues):
    p = np.array(pvalues)
    simes = combine_pvalues_dependent(p, method="simes").pvalue
    assert p.min() - 1e-15 <= simes <= min(1.0, p.size * p.min()) + 1e-15
    assert simes <= p.max() + 1e-15


def test_nan_pvalue_propagates_and_nan_null_rows_are_dropped():
    assert np.isnan(combine_pvalues_dependent([0.1, np.nan]).pvalue)
    assert np.isnan(combine_pvalues_dependent([0.1, np.nan], method="simes").pvalue)
    null = np.random.default_rng(0).uniform(size=(100, 2))
    with_nan = np.vstack([null, [[np.nan, 0.5]]])
    a = combine_pvalues_dependent([0.1, 0.2], null_pvalues=null)
    b = combine_pvalues_dependent([0.1, 0.2], null_pvalues=with_nan)
    assert a.pvalue == b.pvalue and b.n_resamples == 100


def test_zero_pvalues():
    assert combine_pvalues_dependent([0.0, 0.5]).pvalue == 0
    null = np.random.default_rng(0).uniform(size=(50, 2))
    null[0, 0] = 0.0  # bounded at 1 / 51, so the covariance is finite
    res = combine_pvalues_dependent([0.1, 0.5], null_pvalues=null)
    assert np.isfinite(res.df)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(pvalues=[]), "non-empty"),
        (dict(pvalues=[[0.1]]), "1-D"),
        (dict(pvalues=[0.1, 1.5]), r"\[0, 1\]"),
        (dict(pvalues=[0.1], method="stouffer"), "method must be one of"),
        (dict(pvalues=[0.1, 0.2], weights=[1.0]), "one entry per p-value"),
        (dict(pvalues=[0.1, 0.2], weights=[1.0, -1.0]), "> 0"),
        (dict(pvalues=[0.1, 0.2], weights=[1, 2], method="simes"), "not used by method='simes'"),
        (dict(pvalues=[0.1, 0.2], null_pvalues=np.ones((5, 2)), method="simes"), "null_pvalues"),
        (dict(pvalues=[0.1, 0.2], null_pvalues=np.ones((5, 2)), method="fisher"), "null_pvalues"),
        (dict(pvalues=[0.1, 0.2], null_pvalues=np.ones((5, 3))), r"shape \(n_resamples, 2\)"),
        (dict(pvalues=[0.1, 0.2], null_pvalues=np.full((5, 2), 2.0)), r"\[0, 1\]"),
        (dict(pvalues=[0.1, 0.2], null_pvalues=[[0.1, np.nan], [0.2, 0.3]]), "at least two rows"),
    ],
)
def test_combine_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        combine_pvalues_dependent(**kwargs)


def test_negative_variance_is_nan_with_warning():
    # Perfectly negatively related transformed p-values, -2 log p uniform on
    # [0, 10] and 10 minus it: the covariance -100/12 outweighs the diagonal's
    # null value 2 w = 4, so the Var(T) estimate is < 0.
    x = np.random.default_rng(0).uniform(0, 10, size=200)
    null = np.exp(-np.column_stack([x, 10 - x]) / 2)
    with pytest.warns(UndefinedStatisticWarning, match="variance"):
        res = combine_pvalues_dependent([0.1, 0.2], null_pvalues=null)
    assert np.isnan(res.pvalue)


def test_result_repr_and_frame():
    res = combine_pvalues_dependent([0.01, 0.2], method="fisher")
    text = repr(res)
    assert text.startswith("GlobalTestResult(method='fisher'")
    assert "pvalue=0.0" in text and "classifiers" not in text
    frame = res.to_frame()
    assert list(frame.columns) == [
        "statistic",
        "pvalue",
        "df",
        "scale",
        "n_tests",
        "n_resamples",
        "method",
    ]
    with pytest.raises(AttributeError):
        res.pvalue = 0.5  # immutable


# ---------------------------------------------------------------------------
# Holm and Benjamini-Hochberg
# ---------------------------------------------------------------------------


@given(st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=12))
@settings(max_examples=80, deadline=None)
def test_holm_equals_its_definition(pvalues):
    # Holm: adjusted p_(i) = max_{j <= i} min(1, (L - j + 1) p_(j)), by rank.
    p = np.array(pvalues)
    n = p.size
    rank = np.empty(n, dtype=int)
    rank[np.argsort(p, kind="stable")] = np.arange(1, n + 1)
    expected = [
        min(1.0, max((n - rank[j] + 1) * p[j] for j in range(n) if rank[j] <= rank[i]))
        for i in range(n)
    ]
    np.testing.assert_allclose(gn._holm(p), expected, rtol=1e-12, atol=1e-15)


def test_holm_equals_statsmodels():
    # statsmodels' multipletests runs gc.collect() on every call, so a few
    # fixed cases (with ties, zeros and ones) rather than a property test.
    rng = np.random.default_rng(0)
    cases = [rng.uniform(size=n) ** 3 for n in (1, 2, 5, 12)]
    cases.append(np.array([0.01, 0.01, 0.2, 0.0, 1.0, 0.2]))
    for p in cases:
        np.testing.assert_allclose(gn._holm(p), multipletests(p, method="holm")[1], rtol=1e-12)


def test_holm_hand_values():
    # Sorted: 0.01 * 4, max(0.04, 0.02 * 3), max(.., 0.03 * 2), 0.5.
    adjusted = gn._holm(np.array([0.03, 0.01, 0.5, 0.02]))
    np.testing.assert_allclose(adjusted, [0.06, 0.04, 0.5, 0.06])


def test_adjusted_pvalues_of_a_comparison():
    y, preds, _ = make_correlated_predictions(400, 5, 3, seed=4)
    result = _quiet_compare(y, preds)
    table = result.adjusted_pvalues(test="wald", method=["holm", "bh", "by"])
    assert {"wald_pvalue_holm", "wald_pvalue_bh", "wald_pvalue_by"} <= set(table.columns)
    assert "wald_pvalue_holm" not in result.table.columns  # a copy
    for name in result.classifiers[1:]:
        rows = table[table["classifier"] == name]
        p = rows["wald_pvalue"].to_numpy()
        np.testing.assert_allclose(rows["wald_pvalue_holm"], multipletests(p, method="holm")[1])
        np.testing.assert_allclose(rows["wald_pvalue_bh"], stats.false_discovery_control(p))
        np.testing.assert_allclose(
            rows["wald_pvalue_by"], stats.false_discovery_control(p, method="by")
        )
    default = result.adjusted_pvalues()
    assert list(default.columns[-2:]) == ["gs_pvalue_holm", "gs_pvalue_bh"]


def test_adjusted_pvalues_keep_nan_out_of_the_family():
    y = np.array([0, 0, 1, 1, 2, 2] * 20)
    a = y.copy()
    a[:6] = [1, 0, 0, 1, 2, 1]
    b = a.copy()  # identical predictions for class 2 -> NaN score p-value
    b[:4] = [0, 1, 1, 0]
    result = _quiet_compare(y, {"a": a, "b": b})
    p = result.table["gs_pvalue"].to_numpy()
    assert np.isnan(p).any() and (~np.isnan(p)).sum() >= 1
    adjusted = result.adjusted_pvalues(method="holm")["gs_pvalue_holm"].to_numpy()
    defined = ~np.isnan(p)
    assert np.isnan(adjusted[~defined]).all()
    np.testing.assert_allclose(adjusted[defined], multipletests(p[defined], method="holm")[1])


def test_adjusted_pvalues_validation():
    y, preds, _ = make_correlated_predictions(100, 3, 2, seed=0)
    result = _quiet_compare(y, preds)
    with pytest.raises(ValueError, match="method must be one of"):
        result.adjusted_pvalues(method="hommel")
    with pytest.raises(ValueError, match="test must be one of"):
        result.adjusted_pvalues(test="auc")


# ---------------------------------------------------------------------------
# global_test of a comparison
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def three_classes():
    y, preds, groups = make_correlated_predictions(500, 3, 2, seed=11)
    return _quiet_compare(y, preds)


def test_fisher_and_simes_of_a_comparison(three_classes):
    p = three_classes.table["gs_pvalue"].to_numpy()
    fisher = three_classes.global_test(method="fisher")
    assert fisher.pvalue == pytest.approx(stats.combine_pvalues(p).pvalue, rel=1e-12)
    simes = three_classes.global_test(method="simes", test="wald")
    expected = combine_pvalues_dependent(three_classes.table["wald_pvalue"], method="simes")
    assert simes.pvalue == expected.pvalue
    assert simes.classifiers == ("clf1",) and simes.test == "wald"


def test_global_test_is_reproducible(three_classes):
    for resampling in ("permutation", "bootstrap"):
        a = three_classes.global_test(random_state=5, n_resamples=300, resampling=resampling)
        b = three_classes.global_test(random_state=5, n_resamples=300, resampling=resampling)
        c = three_classes.global_test(random_state=6, n_resamples=300, resampling=resampling)
        assert a == b
        assert a.pvalue != c.pvalue
        assert a.resampling == resampling and a.n_resamples == 300
    gen = three_classes.global_test(random_state=np.random.default_rng(5), n_resamples=300)
    assert gen.pvalue == three_classes.global_test(random_state=5, n_resamples=300).pvalue


def test_global_test_equals_combination_of_its_null_pvalues(three_classes):
    data = three_classes._data
    plan = gn._pair_plan(data, 1, "permutation")
    null = gn.resampled_pvalues(plan, "gs_pvalue", 400, np.random.default_rng(9))
    expected = combine_pvalues_dependent(three_classes.table["gs_pvalue"], null_pvalues=null)
    res = three_classes.global_test(n_resamples=400, random_state=9)
    assert res.pvalue == pytest.approx(expected.pvalue, rel=1e-12)
    assert res.df == pytest.approx(expected.df, rel=1e-12)


def test_permutation_pvalue_equals_hand_formula():
    p = np.array([0.01, 0.20, 0.03])
    null = np.random.default_rng(0).uniform(size=(99, 3))
    w = np.array([2.0, 4.0, 2.0])
    observed = stats.chi2.isf(p, w).sum()
    exceed = (stats.chi2.isf(null, w).sum(axis=1) >= observed).sum()
    res = combine_pvalues_dependent(p, null_pvalues=null, weights=w, method="permutation")
    assert res.statistic == pytest.approx(observed, rel=1e-12)
    assert res.pvalue == (1 + exceed) / 100
    assert np.isnan(res.df) and res.method == "permutation" and res.n_resamples == 99
    with pytest.raises(ValueError, match="method='permutation' needs null_pvalues"):
        combine_pvalues_dependent(p, method="permutation")


def test_global_permutation_test_uses_the_paired_permutations(three_classes):
    data = three_classes._data
    plan = gn._pair_plan(data, 1, "permutation")
    null = gn.resampled_pvalues(plan, "gs_pvalue", 400, np.random.default_rng(9))
    expected = combine_pvalues_dependent(
        three_classes.table["gs_pvalue"], null_pvalues=null, method="permutation"
    )
    res = three_classes.global_test(method="permutation", n_resamples=400, random_state=9)
    assert res.pvalue == expected.pvalue and res.statistic == expected.statistic
    assert res.resampling == "permutation"
    with pytest.raises(ValueError, match="needs resampling='permutation'"):
        three_classes.global_test(method="permutation", resampling="bootstrap")


def test_weights(three_classes):
    w = {c: float(c) + 1.0 for c in three_classes.classes}
    a = three_classes.global_test(method="fisher", weights=w)
    p = three_classes.table["gs_pvalue"].to_numpy()
    wv = np.array(list(w.values()))
    assert a.df == pytest.approx(wv.sum())
    assert a.pvalue == pytest.approx(stats.chi2.sf(stats.chi2.isf(p, wv).sum(), wv.sum()))
    b = three_classes.global_test(method="fisher", weights=wv)
    assert a == b
    with pytest.raises(ValueError, match="no entry for class"):
        three_classes.global_test(weights={0: 1.0})
    with pytest.raises(ValueError, match="one entry per p-value"):
        three_classes.global_test(weights=[1.0, 2.0])
    with pytest.raises(ValueError, match="not used by method='simes'"):
        three_classes.global_test(method="simes", weights=[1.0, 2.0, 3.0])


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(method="tippett"), "method must be one of"),
        (dict(test="auc"), "test must be one of"),
        (dict(resampling="jackknife"), "resampling must be one of"),
        (dict(n_resamples=1), "n_resamples must be an integer >= 2"),
        (dict(n_resamples=10.5), "n_resamples must be an integer"),
    ],
)
def test_global_test_validation(three_classes, kwargs, match):
    with pytest.raises(ValueError, match=match):
        three_classes.global_test(**kwargs)


def test_several_classifiers_give_one_result_each():
    y, preds, _ = make_correlated_predictions(400, 4, 3, seed=2)
    result = _quiet_compare(y, preds)
    res = result.global_test(n_resamples=200, random_state=3)
    assert res.classifiers == ("clf1", "clf2")
    assert res.pvalue.shape == (2,) and res.df.shape == (2,)
    assert "classifiers=['clf1', 'clf2']" in repr(res)
    frame = res.to_frame()
    assert list(frame["classifier"]) == ["clf1", "clf2"] and len(frame) == 2
    # The first comparison draws first from the generator: it equals the
    # two-classifier comparison with the same seed.
    pair = _quiet_compare(y, {"clf0": preds["clf0"], "clf1": preds["clf1"]})
    single = pair.global_test(n_resamples=200, random_state=3)
    assert res.pvalue[0] == pytest.approx(single.pvalue, rel=1e-12)
    assert isinstance(single.pvalue, float)


def test_undefined_class_is_left_out_with_warning():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 300)
    a = np.where(rng.random(300) < 0.7, y, rng.integers(0, 3, 300))
    b = np.where(rng.random(300) < 0.7, y, rng.integers(0, 3, 300))
    b[a == 2] = 2  # identical predictions of class 2...
    b[(b == 2) & (a != 2)] = 0  # ...both ways
    result = _quiet_compare(y, {"a": a, "b": b})
    assert np.isnan(result.table["gs_pvalue"].iloc[2])
    with pytest.warns(UndefinedStatisticWarning, match=r"class\(es\) \[2\]"):
        res = result.global_test(n_resamples=100, random_state=0)
    assert res.n_tests == 2
    with pytest.warns(UndefinedStatisticWarning):
        fisher = result.global_test(method="fisher")
    p = result.table["gs_pvalue"].to_numpy()[:2]
    assert fisher.pvalue == pytest.approx(stats.combine_pvalues(p).pvalue)


def test_warns_when_sparse_classes_bias_the_null_mean():
    """Many classes with ~20 records each: asymptotic per-class p-values are
    not uniform, E(T) = sum w fails and the permutations show it."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 100, 2000)
    hard = rng.random(2000) < 0.05
    common = rng.integers(0, 100, 2000)

    def classifier():
        own = np.where(rng.random(2000) < 0.9, y, rng.integers(0, 100, 2000))
        return np.where(hard, common, own)

    result = _quiet_compare(y, {"a": classifier(), "b": classifier()})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        with pytest.warns(UserWarning, match="not uniform"):
            result.global_test(n_resamples=300, random_state=0)


def test_no_uniformity_warning_on_well_populated_classes(three_classes):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        three_classes.global_test(n_resamples=1000, random_state=0)


def test_recall_comparison():
    y, preds, _ = make_correlated_predictions(300, 3, 2, seed=8)
    result = compare_recall(y, preds)
    res = result.global_test(test="ratio", n_resamples=100, random_state=0)
    assert 0 <= res.pvalue <= 1 and res.n_tests == 3


# ---------------------------------------------------------------------------
# The resampling: cells and records instead of rows
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("repeats", [1, 3])
@pytest.mark.parametrize("compare", [compare_precision, compare_recall, compare_npv])
def test_observed_counts_are_reproduced_from_units(repeats, compare):
    y, preds, groups = make_correlated_predictions(300, 4, 3, repeats=repeats, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        result = compare(y, preds, groups=groups if repeats > 1 else None)
    data = result._data
    for other in (1, 2):
        plan = gn._pair_plan(data, other, "bootstrap")
        # Drawing every unit exactly as often as it occurs is the sample.
        if repeats > 1:
            sums = plan.sums(1, None, draws=np.ones((1, data.n_records), dtype=np.int64))
        else:
            draws = plan.multiplicity[None, :]
            sums = next(
                gn.resampled_sums(
                    plan.matrix, plan.base, plan.multiplicity, "bootstrap", 1, None, draws=draws
                )
            )
        counts = gn._counts_from_sums(sums[0], plan)
        expected = data.counts.take_classifiers([0, other])
        np.testing.assert_allclose(counts.successes, expected.successes)
        np.testing.assert_allclose(counts.failures, expected.failures)
        np.testing.assert_allclose(counts.cross, expected.cross)


@pytest.mark.parametrize("repeats", [1, 3])
def test_cell_permutation_equals_row_level_swapping(repeats):
    """A fixed swap of records gives the same p-values by cells as by rows."""
    y, preds, groups = make_correlated_predictions(400, 4, 2, repeats=repeats, seed=6)
    groups = groups if repeats > 1 else None
    result = _quiet_compare(y, preds, groups=groups)
    data = result._data
    plan = gn._pair_plan(data, 1, "permutation")
    if groups is None:
        # The unit of each record: its cell of the (truth, reference, other) table.
        codes, multiplicity = data.records.table_cells([0, 1])
        cells = np.ravel_multi_index(codes, (data.values.shape[0],) * 3)
        unit = np.searchsorted(
            cells,
            np.ravel_multi_index((y, preds["clf0"], preds["clf1"]), (data.values.shape[0],) * 3),
        )
    else:
        record_codes = np.unique(groups, return_inverse=True)[1].ravel()
        multiplicity = np.ones(data.n_records, dtype=np.int64)
    rng = np.random.default_rng(0)
    ref, other = preds["clf0"], preds["clf1"]
    for _ in range(5):
        swap_record = rng.random(data.n_records) < 0.5
        swap = swap_record if groups is None else swap_record[record_codes]
        swapped = _quiet_compare(
            y, {"r": np.where(swap, other, ref), "o": np.where(swap, ref, other)}, groups=groups
        )
        # Records swapped per unit (cell or record).
        if groups is None:
            draws = np.bincount(unit[swap], minlength=multiplicity.shape[0])
        else:
            draws = swap_record.astype(int)
        for test in ("gs", "wald", "wgs", "ratio"):
            column = f"{test}_pvalue"
            got = gn.resampled_pvalues(plan, column, 1, None, draws=draws[None, :])[0]
            np.testing.assert_allclose(got, swapped.table[column], rtol=1e-9, equal_nan=True)


def test_cell_permutation_has_the_row_level_null_distribution():
    y, preds, _ = make_correlated_predictions(200, 3, 2, seed=3, agreement=0.3)
    result = _quiet_compare(y, preds)
    plan = gn._pair_plan(result._data, 1, "permutation")
    rng = np.random.default_rng(1)
    by_cells = gn.resampled_pvalues(plan, "gs_pvalue", 400, rng)
    ref, other = preds["clf0"], preds["clf1"]
    by_rows = []
    for _ in range(400):
        swap = rng.random(y.shape[0]) < 0.5
        swapped = _quiet_compare(
            y, {"r": np.where(swap, other, ref), "o": np.where(swap, ref, other)}
        )
        by_rows.append(swapped.table["gs_pvalue"].to_numpy())
    by_rows = np.array(by_rows)
    for k in range(3):
        assert stats.ks_2samp(by_cells[:, k], by_rows[:, k]).pvalue > 0.001
    # The correlation between classes is kept, not only the margins.
    x_cells = np.corrcoef(stats.chi2.isf(by_cells, 2), rowvar=False)
    x_rows = np.corrcoef(stats.chi2.isf(by_rows, 2), rowvar=False)
    np.testing.assert_allclose(x_cells, x_rows, atol=0.2)


def test_units_do_not_grow_with_records():
    rng = np.random.default_rng(0)
    y, a, b = _exchangeable(rng, 100_000, 5)
    result = _quiet_compare(y, {"a": a, "b": b})
    records = result._data.records
    _, multiplicity = records.table_cells()
    assert multiplicity.shape[0] <= 5**3 and multiplicity.sum() == 100_000
    # The comparison keeps bytes per distinct cell, not per record.
    assert records.nbytes <= 4 * 5**3


# ---------------------------------------------------------------------------
# Validity
# ---------------------------------------------------------------------------


@pytest.mark.slow
def test_dai_cui_holds_its_size_under_the_global_null():
    """Two exchangeable classifiers, 5 classes, n = 400, 600 simulations.

    200 permutations per simulation estimate the covariances: their Monte
    Carlo error is averaged over the simulations, and 200 already pins each
    correlation to about +-0.07. Plain Fisher ignores the positive
    dependence between classes; it is reported and must reject *more* often.
    """
    rng = np.random.default_rng(2024)
    n_sim = 600
    rejections = {"dai-cui": 0, "permutation": 0, "fisher": 0, "simes": 0}
    dfs = []
    for _ in range(n_sim):
        y, a, b = _exchangeable(rng, 400, 5)
        result = _quiet_compare(y, {"a": a, "b": b})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedStatisticWarning)
            for method in rejections:
                res = result.global_test(method=method, n_resamples=200, random_state=rng)
                rejections[method] += bool(res.pvalue < 0.05)
                if method == "dai-cui":
                    dfs.append(res.df)
    rates = {m: r / n_sim for m, r in rejections.items()}
    print(
        f"\nRejection rates at alpha = 0.05 under the global null: {rates}; "
        f"mean Dai-Cui df {np.mean(dfs):.2f} (Fisher: 10)"
    )
    assert 0.03 <= rates["dai-cui"] <= 0.07
    assert 0.03 <= rates["permutation"] <= 0.07
    assert 0.02 <= rates["simes"] <= 0.07
    # The dependence is found (fewer degrees of freedom than Fisher's 2L)
    # and Fisher, which ignores it, rejects more often.
    assert np.mean(dfs) < 9.5
    assert rates["fisher"] > rates["dai-cui"]


@pytest.mark.slow
def test_dai_cui_power_rises_with_n():
    rng = np.random.default_rng(7)
    power = []
    for n in (100, 300, 900):
        hits = 0
        for _ in range(80):
            y, a, b = _exchangeable(rng, n, 4, accuracy=0.65, shift=0.1)
            result = _quiet_compare(y, {"a": a, "b": b})
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UndefinedStatisticWarning)
                # At n = 100 (25 records a class) the null-mean check may
                # rightly warn; power is what is measured here.
                warnings.filterwarnings("ignore", "Under the permutation null")
                res = result.global_test(n_resamples=100, random_state=rng)
            hits += bool(res.pvalue < 0.05)
        power.append(hits / 80)
    print(f"\nDai-Cui power at n = 100, 300, 900: {power}")
    assert power[0] < power[1] < power[2]
    assert power[2] > 0.8


def test_result_type():
    y, preds, _ = make_correlated_predictions(200, 3, 2, seed=0)
    res = _quiet_compare(y, preds).global_test(method="fisher")
    assert isinstance(res, GlobalTestResult)
    assert isinstance(res.pvalue, float) and isinstance(res.n_tests, int)
