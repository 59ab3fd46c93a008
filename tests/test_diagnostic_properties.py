"""Properties of the diagnostic statistics: symmetry, one-vs-rest duality, edge cases."""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sklearn_precision_stats.diagnostic import (
    compare_likelihood_ratios,
    diagnostic_accuracy,
    exact_binomial_test,
    generalized_mcnemar,
    likelihood_ratio_regression,
    relative_predictive_values,
    relative_sensitivity_specificity,
    relative_tpf_fpf,
    sensitivity_specificity_difference,
)
from sklearn_precision_stats.exceptions import UndefinedStatisticWarning


@st.composite
def paired_predictions(draw, n_classes=3):
    n = draw(st.integers(20, 80))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    a = np.where(rng.random(n) < 0.7, y, rng.integers(0, n_classes, n))
    b = np.where(
        rng.random(n) < 0.5, a, np.where(rng.random(n) < 0.6, y, rng.integers(0, n_classes, n))
    )
    return y, a, b


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        return function(*args, **kwargs)


SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(paired_predictions())
def test_swapping_classifiers_inverts_ratios(data):
    y, a, b = data
    for function in (
        relative_sensitivity_specificity,
        relative_tpf_fpf,
        relative_predictive_values,
        compare_likelihood_ratios,
    ):
        ab = _quiet(function, y, {"a": a, "b": b})
        ba = _quiet(function, y, {"b": b, "a": a})
        positive = ab.ratio > 0
        np.testing.assert_allclose(ab.ratio[positive] * ba.ratio[positive], 1.0, rtol=1e-12)
        # A ratio of 0 is infinite the other way round, reported as NaN.
        assert np.isnan(ba.ratio[ab.ratio == 0]).all()
        np.testing.assert_array_equal(positive, ba.ratio > 0)
        np.testing.assert_allclose(ab.se_log, ba.se_log, rtol=1e-12)
        np.testing.assert_allclose(ab.statistic, -ba.statistic, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(ab.pvalue, ba.pvalue, rtol=1e-12)
        np.testing.assert_array_equal(ab.value, ba.value_reference)
        low_ab, high_ab = ab.confidence_interval(0.9)
        low_ba, high_ba = ba.confidence_interval(0.9)
        np.testing.assert_allclose(
            low_ab * high_ba, np.where(np.isnan(low_ab), np.nan, 1.0), rtol=1e-12
        )


@SETTINGS
@given(paired_predictions())
def test_swapping_classifiers_flips_differences(data):
    y, a, b = data
    for method in ("wald", "wald-cc", "tango"):
        for convention in ("paper", "dtcompair"):
            ab = _quiet(
                sensitivity_specificity_difference,
                y,
                {"a": a, "b": b},
                method=method,
                convention=convention,
            )
            ba = _quiet(
                sensitivity_specificity_difference,
                y,
                {"b": b, "a": a},
                method=method,
                convention=convention,
            )
            np.testing.assert_allclose(ab.diff, -ba.diff, atol=1e-15)
            # PropCIs' halving search stops within about 1e-7 of the root.
            atol = 1e-6 if (method, convention) == ("tango", "dtcompair") else 1e-9
            np.testing.assert_allclose(ab.ci_low, -ba.ci_high, atol=atol)
            np.testing.assert_allclose(ab.ci_high, -ba.ci_low, atol=atol)
    gm_ab = _quiet(generalized_mcnemar, y, {"a": a, "b": b})
    gm_ba = _quiet(generalized_mcnemar, y, {"b": b, "a": a})
    np.testing.assert_allclose(gm_ab.statistic, gm_ba.statistic, rtol=1e-15)
    eb_ab = _quiet(exact_binomial_test, y, {"a": a, "b": b})
    eb_ba = _quiet(exact_binomial_test, y, {"b": b, "a": a})
    np.testing.assert_allclose(eb_ab.pvalue, eb_ba.pvalue, rtol=1e-15)


@SETTINGS
@given(paired_predictions(n_classes=2))
def test_binary_one_vs_rest_duality(data):
    # Class 0's sensitivity is class 1's specificity, its PPV class 1's NPV,
    # and its PDLR the reciprocal of class 1's NDLR.
    y, a, b = data
    acc = _quiet(diagnostic_accuracy, y, {"a": a, "b": b}, labels=[0, 1])
    e = acc.estimate
    np.testing.assert_allclose(e[0, :, 0], e[1, :, 1])
    np.testing.assert_allclose(e[0, :, 2], e[1, :, 3])
    np.testing.assert_allclose(
        e[0, :, 4] * e[1, :, 5], np.where(np.isnan(e[0, :, 4]), np.nan, 1.0), rtol=1e-12
    )
    np.testing.assert_allclose(acc.ci_low[0, :, 0], acc.ci_low[1, :, 1])
    rel = _quiet(relative_sensitivity_specificity, y, {"a": a, "b": b}, labels=[0, 1])
    np.testing.assert_allclose(rel.ratio[0, :, 0], rel.ratio[1, :, 1])
    np.testing.assert_allclose(rel.pvalue[0, :, 0], rel.pvalue[1, :, 1])
    diff = _quiet(
        sensitivity_specificity_difference, y, {"a": a, "b": b}, labels=[0, 1], method="tango"
    )
    np.testing.assert_allclose(diff.ci_low[0, :, 0], diff.ci_low[1, :, 1], atol=1e-9)
    rpv = _quiet(relative_predictive_values, y, {"a": a, "b": b}, labels=[0, 1])
    np.testing.assert_allclose(rpv.ratio[0, :, 0], rpv.ratio[1, :, 1])
    np.testing.assert_allclose(rpv.covariance[0, :, 0, 0], rpv.covariance[1, :, 1, 1], rtol=1e-12)


def test_several_classifiers_match_pairwise_calls():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 4, 300)
    preds = {
        f"c{i}": np.where(rng.random(300) < 0.6 + 0.1 * i, y, rng.integers(0, 4, 300))
        for i in range(3)
    }
    together = relative_sensitivity_specificity(y, preds, reference="c1")
    assert together.classifiers == ("c0", "c2")
    for j, name in enumerate(together.classifiers):
        alone = relative_sensitivity_specificity(y, {"c1": preds["c1"], name: preds[name]})
        np.testing.assert_allclose(together.ratio[:, j], alone.ratio[:, 0])
        np.testing.assert_allclose(together.se_log[:, j], alone.se_log[:, 0])
    assert len(together.table) == 4 * 2 * 2


def test_hand_computed_paper_conventions():
    # Discordant pairs u = 10 (only the compared classifier right) and
    # v = 4 among n = 40 diseased records.
    y = np.r_[np.ones(40, int), np.zeros(10, int)]
    ref = np.r_[np.ones(20), np.zeros(10), np.ones(4), np.zeros(6), np.zeros(10)].astype(int)
    other = np.r_[np.ones(20), np.ones(10), np.zeros(4), np.zeros(6), np.zeros(10)].astype(int)
    u, v, n, z = 10.0, 4.0, 40.0, 1.959963984540054
    res = _quiet(
        sensitivity_specificity_difference,
        y,
        {"r": ref, "o": other},
        labels=[1],
        method="agresti-min",
    )
    ua, va, na = u + 0.5, v + 0.5, n + 2
    se = np.sqrt((ua + va) - (ua - va) ** 2 / na) / na
    centre = (u - v) / (n + 2)
    assert res.ci_low[0, 0, 0] == pytest.approx(centre - z * se, rel=1e-12)
    assert res.ci_high[0, 0, 0] == pytest.approx(centre + z * se, rel=1e-12)
    cc = _quiet(
        sensitivity_specificity_difference, y, {"r": ref, "o": other}, labels=[1], method="wald-cc"
    )
    se = np.sqrt((u + v) - (u - v) ** 2 / n) / n
    assert cc.ci_high[0, 0, 0] == pytest.approx((u - v) / n + z * se + 1 / n, rel=1e-12)
    exact = _quiet(exact_binomial_test, y, {"r": ref, "o": other}, labels=[1])
    assert exact.pvalue[0, 0, 0] == pytest.approx(
        2 * sum(__import__("math").comb(14, j) for j in range(5)) / 2**14, rel=1e-12
    )


def test_tango_sensitivity_interval_is_not_mirrored():
    # d.a=60, d.b=10, d.c=8, d.d=22: the score interval of +0.02 is
    # [-0.0674, 0.1087]; DTComPair reports its mirror image [-0.1087,
    # 0.0674], a defect that neither convention reproduces.
    cells = [(1, 1, 60), (0, 1, 10), (1, 0, 8), (0, 0, 22)]
    ref = np.concatenate([np.full(k, a) for a, _, k in cells] + [np.zeros(50)]).astype(int)
    other = np.concatenate([np.full(k, b) for _, b, k in cells] + [np.zeros(50)]).astype(int)
    y = np.r_[np.ones(100, int), np.zeros(50, int)]
    for convention in ("paper", "dtcompair"):
        res = _quiet(
            sensitivity_specificity_difference,
            y,
            {"r": ref, "o": other},
            labels=[1],
            method="tango",
            convention=convention,
        )
        assert res.diff[0, 0, 0] == pytest.approx(0.02, rel=1e-12)
        assert res.ci_low[0, 0, 0] == pytest.approx(-0.0674, abs=5e-5)
        assert res.ci_high[0, 0, 0] == pytest.approx(0.1087, abs=5e-5)


@pytest.mark.parametrize("convention", ["paper", "dtcompair"])
@pytest.mark.parametrize("n", [1, 7, 59, 400])
def test_midp_limits_at_zero_and_n(convention, n):
    # PropCIs' midPci: lower limit alpha^(1/n) at x = n and upper limit
    # 1 - alpha^(1/n) at x = 0 (R: x = n = 59 gives 0.9504924), which are
    # also the exact roots of the one remaining mid-p tail.
    y = np.r_[np.ones(n, int), np.zeros(n, int)]
    res = _quiet(diagnostic_accuracy, y, y, labels=[1], ci_method="mid-p", convention=convention)
    for m in range(4):  # sensitivity, specificity, PPV, NPV: all x = n
        assert res.ci_low[0, 0, m] == pytest.approx(0.05 ** (1 / n), rel=1e-12)
        assert res.ci_high[0, 0, m] == 1.0
    res = _quiet(
        diagnostic_accuracy, y, 1 - y, labels=[1], ci_method="mid-p", convention=convention
    )
    for m in range(4):  # all x = 0
        assert res.ci_low[0, 0, m] == 0.0
        assert res.ci_high[0, 0, m] == pytest.approx(1 - 0.05 ** (1 / n), rel=1e-12)
    if n == 59:
        y = np.r_[np.ones(n, int), np.zeros(3, int)]
        res = _quiet(
            diagnostic_accuracy, y, y, labels=[1], ci_method="mid-p", convention=convention
        )
        assert res.ci_low[0, 0, 0] == pytest.approx(0.9504924, abs=5e-8)


def test_zero_and_infinite_ratios_follow_scikit_learn():
    # scikit-learn's class_likelihood_ratios: a ratio with a zero
    # denominator is NaN with a warning, a zero numerator gives 0.
    from sklearn.metrics import class_likelihood_ratios

    y = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0, 0])
    no_fn = np.array([1, 1, 1, 1, 1, 0, 0, 0, 0, 0])  # LR- = 0
    no_fp = np.array([1, 1, 0, 0, 0, 0, 0, 0, 0, 0])  # LR+ infinite
    other = np.array([1, 1, 1, 0, 1, 1, 0, 0, 0, 0])
    for pred in (no_fn, no_fp):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = class_likelihood_ratios(y, pred)
        acc = _quiet(diagnostic_accuracy, y, pred, labels=[1])
        np.testing.assert_allclose(acc.estimate[0, 0, 4:], expected, rtol=1e-12)
    # Relative measures: classifier over reference.
    with pytest.warns(UndefinedStatisticWarning, match="the ratio is 0"):
        lr = compare_likelihood_ratios(y, {"ref": other, "clf": no_fn}, labels=[1])
    assert lr.ratio[0, 0, 1] == 0.0
    assert np.isnan(lr.se_log[0, 0, 1]) and np.isnan(lr.pvalue[0, 0, 1])
    assert np.isnan(lr.confidence_interval().low[0, 0, 1])
    with pytest.warns(UndefinedStatisticWarning, match="infinite"):
        lr = compare_likelihood_ratios(y, {"clf": no_fn, "ref": other}, labels=[1])
    assert np.isnan(lr.ratio[0, 0, 1])
    # R's orientation (reference over classifier) exchanges 0 and infinite.
    r_like = _quiet(
        compare_likelihood_ratios,
        y,
        {"ref": other, "clf": no_fn},
        labels=[1],
        convention="dtcompair",
    )
    assert np.isnan(r_like.ratio[0, 0, 1])
    r_like = _quiet(
        compare_likelihood_ratios,
        y,
        {"clf": no_fn, "ref": other},
        labels=[1],
        convention="dtcompair",
    )
    assert r_like.ratio[0, 0, 1] == 0.0
    never = np.zeros(10, int)  # no true positive: relative sensitivity 0
    rel = _quiet(relative_sensitivity_specificity, y, {"ref": other, "clf": never}, labels=[1])
    assert rel.ratio[0, 0, 0] == 0.0 and np.isnan(rel.statistic[0, 0, 0])
    rel = _quiet(relative_sensitivity_specificity, y, {"clf": never, "ref": other}, labels=[1])
    assert np.isnan(rel.ratio[0, 0, 0])


def test_groups_singletons_and_duplicated_records():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 3, 200)
    a = np.where(rng.random(200) < 0.7, y, rng.integers(0, 3, 200))
    b = np.where(rng.random(200) < 0.6, y, rng.integers(0, 3, 200))
    ids = np.arange(200)
    for function in (
        relative_sensitivity_specificity,
        relative_tpf_fpf,
        relative_predictive_values,
        compare_likelihood_ratios,
    ):
        plain = function(y, {"a": a, "b": b})
        single = function(y, {"a": a, "b": b}, groups=ids)
        np.testing.assert_allclose(single.se_log, plain.se_log, rtol=1e-12)
        # Every record twice: the clustered SE is unchanged, the naive one
        # shrinks by sqrt(2).
        twice = function(
            np.tile(y, 2), {"a": np.tile(a, 2), "b": np.tile(b, 2)}, groups=np.tile(ids, 2)
        )
        naive = function(np.tile(y, 2), {"a": np.tile(a, 2), "b": np.tile(b, 2)})
        np.testing.assert_allclose(twice.se_log, plain.se_log, rtol=1e-12)
        np.testing.assert_allclose(naive.se_log * np.sqrt(2), plain.se_log, rtol=1e-12)
    acc = diagnostic_accuracy(np.tile(y, 2), {"a": np.tile(a, 2)}, groups=np.tile(ids, 2))
    np.testing.assert_allclose(acc.se, diagnostic_accuracy(y, {"a": a}).se, rtol=1e-12)
    reg = likelihood_ratio_regression(np.tile(y, 2), {"a": np.tile(a, 2)}, groups=np.tile(ids, 2))
    np.testing.assert_allclose(
        reg.log_dlr[..., 1], likelihood_ratio_regression(y, {"a": a}).log_dlr[..., 1], rtol=1e-10
    )
    diff = sensitivity_specificity_difference(
        np.tile(y, 2), {"a": np.tile(a, 2), "b": np.tile(b, 2)}, groups=np.tile(ids, 2)
    )
    np.testing.assert_allclose(
        diff.se, sensitivity_specificity_difference(y, {"a": a, "b": b}).se, rtol=1e-12
    )


@pytest.mark.parametrize(
    "call",
    [
        lambda y, p, g: exact_binomial_test(y, p, groups=g),
        lambda y, p, g: generalized_mcnemar(y, p, groups=g),
        lambda y, p, g: sensitivity_specificity_difference(y, p, method="tango", groups=g),
        lambda y, p, g: diagnostic_accuracy(y, p, ci_method="wilson", groups=g),
    ],
)
def test_unsupported_groups_raise(call):
    y = np.array([0, 1, 1, 0])
    with pytest.raises(ValueError, match="groups"):
        call(y, {"a": y, "b": 1 - y}, np.arange(4))


def test_undefined_cases_are_nan_with_a_warning():
    y = np.array([0, 0, 1, 1, 1, 2, 2])
    a = np.array([0, 0, 1, 1, 0, 0, 0])  # never predicts class 2
    b = a.copy()
    with pytest.warns(UndefinedStatisticWarning, match="class 2"):
        acc = diagnostic_accuracy(y, {"a": a}, labels=[2])
    assert np.isnan(acc.estimate[0, 0, 2])  # PPV 0/0
    with pytest.warns(UndefinedStatisticWarning, match="no discordant"):
        gm = generalized_mcnemar(y, {"a": a, "b": b})
    assert np.all(np.isnan(gm.statistic))
    with pytest.warns(UndefinedStatisticWarning, match="no discordant"):
        eb = exact_binomial_test(y, {"a": a, "b": b})
    assert np.all(np.isnan(eb.pvalue))
    # R returns 2 here; the option reproduces it.
    eb_r = _quiet(exact_binomial_test, y, {"a": a, "b": b}, convention="dtcompair")
    assert np.all(eb_r.pvalue == 2.0)
    with pytest.warns(UndefinedStatisticWarning, match="agree on every record"):
        rel = relative_sensitivity_specificity(y, {"a": a, "b": b}, labels=[0])
    assert np.all(np.isnan(rel.statistic)) and np.all(np.isnan(rel.se_log))
    assert np.all(np.isnan(rel.confidence_interval().low))
    assert np.all(rel.ratio == 1.0)
    with pytest.warns(UndefinedStatisticWarning, match="logistic fit does not exist"):
        reg = likelihood_ratio_regression(y, {"a": a}, labels=[2])
    assert np.all(np.isnan(reg.log_dlr))


@pytest.mark.parametrize(
    ("function", "kwargs"),
    [
        (diagnostic_accuracy, {}),
        (diagnostic_accuracy, {"groups": [0, 0, 1, 1, 2, 2, 3]}),
        (exact_binomial_test, {}),
        (sensitivity_specificity_difference, {}),
        (sensitivity_specificity_difference, {"groups": [0, 0, 1, 1, 2, 2, 3]}),
        (generalized_mcnemar, {}),
        (relative_sensitivity_specificity, {}),
        (relative_tpf_fpf, {"groups": [0, 0, 1, 1, 2, 2, 3]}),
        (relative_predictive_values, {}),
        (compare_likelihood_ratios, {"convention": "dtcompair"}),
        (likelihood_ratio_regression, {}),
        (likelihood_ratio_regression, {"given": "a", "classifier": "b"}),
    ],
)
def test_warnings_point_at_the_callers_line(function, kwargs):
    y = np.array([0, 0, 1, 1, 1, 2, 2])
    a = np.array([0, 0, 1, 1, 0, 0, 0])  # never predicts class 2
    b = np.array([0, 0, 1, 1, 0, 0, 3])  # class 3 never occurs in y
    with pytest.warns(UndefinedStatisticWarning) as record:
        function(y, {"a": a, "b": b}, **kwargs)
    assert {w.filename for w in record} == {__file__}


def test_results_are_frozen_and_unpack():
    y = np.array([0, 1, 1, 0, 1, 0, 1, 1])
    res = relative_sensitivity_specificity(y, {"a": y, "b": np.r_[y[:4], 1 - y[4:]]})
    stat, p = res
    assert stat is res.statistic and p is res.pvalue
    with pytest.raises(ValueError):
        res.ratio[0, 0, 0] = 2.0
    with pytest.raises(AttributeError):
        res.ratio = None
    assert "ratio" in res._repr_html_()


def test_region_is_the_chi_square_ellipse():
    from scipy import stats

    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 400)
    a = np.where(rng.random(400) < 0.8, y, 1 - y)
    b = np.where(rng.random(400) < 0.75, y, 1 - y)
    res = relative_predictive_values(y, {"a": a, "b": b})
    points = res.region(1, confidence_level=0.9, n_points=50)
    delta = np.log(points) - np.log(res.ratio[1, 0])
    quad = np.einsum("pi,ij,pj->p", delta, np.linalg.inv(res.covariance[1, 0]), delta)
    np.testing.assert_allclose(quad, stats.chi2.ppf(0.9, 2), rtol=1e-9)


def test_plot_predictive_value_region():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from sklearn_precision_stats.plotting import plot_predictive_value_region

    rng = np.random.default_rng(2)
    y = rng.integers(0, 3, 300)
    preds = {
        "a": np.where(rng.random(300) < 0.8, y, rng.integers(0, 3, 300)),
        "b": np.where(rng.random(300) < 0.7, y, rng.integers(0, 3, 300)),
    }
    res = relative_predictive_values(y, preds)
    ax = plot_predictive_value_region(res, 2, "b")
    line = ax.get_lines()[0]
    np.testing.assert_allclose(line.get_xydata(), res.region(2, "b"))
    assert ax.get_xscale() == "log"
    with pytest.raises(ValueError, match="RelativePredictiveValuesResult"):
        plot_predictive_value_region(object(), 1)


def test_accuracy_interval_conventions():
    from scipy import stats
    from statsmodels.stats.proportion import proportion_confint

    # Class 2 is always right when predicted (PPV = 1) and never missed.
    y = np.array([0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 0, 1])
    pred = np.array([0, 1, 0, 1, 1, 0, 1, 2, 2, 2, 0, 0])
    with pytest.warns(UndefinedStatisticWarning) as record:
        paper = diagnostic_accuracy(y, pred, labels=[2])
    messages = " ".join(str(w.message) for w in record)
    assert "wald interval of the sensitivity" in messages and "no false positive" in messages
    assert np.isnan(paper.ci_low[0, 0, 0]) and np.isnan(paper.ci_high[0, 0, 2])
    r_like = _quiet(diagnostic_accuracy, y, pred, labels=[2], convention="dtcompair")
    assert r_like.ci_low[0, 0, 0] == pytest.approx(1 + np.log(0.05) / 3, rel=1e-14)
    assert r_like.ci_high[0, 0, 0] == 1.0
    wilson = diagnostic_accuracy(y, pred, labels=[1], ci_method="wilson")
    low, high = proportion_confint(3, 5, alpha=0.05, method="wilson")
    assert wilson.ci_low[0, 0, 0] == pytest.approx(low, rel=1e-14)
    assert wilson.ci_high[0, 0, 0] == pytest.approx(high, rel=1e-14)
    midp = diagnostic_accuracy(y, pred, labels=[1], ci_method="mid-p")
    x, n = 3, 5

    def mid_cdf(p):
        return stats.binom.cdf(x - 1, n, p) + 0.5 * stats.binom.pmf(x, n, p)

    assert mid_cdf(midp.ci_high[0, 0, 0]) == pytest.approx(0.025, abs=1e-12)
    assert mid_cdf(midp.ci_low[0, 0, 0]) == pytest.approx(0.975, abs=1e-12)
    blaker = diagnostic_accuracy(y, pred, labels=[1], ci_method="blaker")
    cp = diagnostic_accuracy(y, pred, labels=[1], ci_method="clopper-pearson")
    # Blaker's interval lies within Clopper-Pearson's (Blaker 2000, Thm 1).
    assert cp.ci_low[0, 0, 0] <= blaker.ci_low[0, 0, 0] < blaker.ci_high[0, 0, 0]
    assert blaker.ci_high[0, 0, 0] <= cp.ci_high[0, 0, 0]
    with pytest.raises(ValueError, match="convention"):
        diagnostic_accuracy(y, pred, convention="R")


def test_clustered_se_matches_groupby_influences():
    # Cluster-robust variance of log rSe written row by row with pandas:
    # influence D (b / TP_b - a / TP_a), summed per group, squared, summed.
    import pandas as pd

    rng = np.random.default_rng(11)
    n = 600
    groups = rng.integers(0, 150, n)
    y = rng.integers(0, 4, n)
    a = np.where(rng.random(n) < 0.7, y, rng.integers(0, 4, n))
    b = np.where(rng.random(n) < 0.6, a, rng.integers(0, 4, n))
    res = relative_sensitivity_specificity(y, {"a": a, "b": b}, labels=[3, 1], groups=groups)
    for i, k in enumerate((3, 1)):
        d, pa, pb = y == k, a == k, b == k
        tp_a, tp_b = (d & pa).sum(), (d & pb).sum()
        influence = d * (pb / tp_b - pa / tp_a)
        sums = pd.Series(influence).groupby(groups).sum()
        assert res.se_log[i, 0, 0] == pytest.approx(np.sqrt((sums**2).sum()), rel=1e-12)
        tn_a, tn_b = (~d & ~pa).sum(), (~d & ~pb).sum()
        influence = ~d * (~pb / tn_b - ~pa / tn_a)
        sums = pd.Series(influence).groupby(groups).sum()
        assert res.se_log[i, 0, 1] == pytest.approx(np.sqrt((sums**2).sum()), rel=1e-12)


def test_joint_likelihood_ratio_test_from_row_influences():
    rng = np.random.default_rng(8)
    n = 500
    y = rng.integers(0, 3, n)
    a = np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n))
    b = np.where(rng.random(n) < 0.65, y, rng.integers(0, 3, n))
    res = compare_likelihood_ratios(y, {"a": a, "b": b})
    for i, k in enumerate(res.classes):
        d, pa, pb = y == k, a == k, b == k

        def influence(xa, xb, mask):
            return mask * (xb / (mask & xb).sum() - xa / (mask & xa).sum())

        u_pos = influence(pa, pb, d) - influence(pa, pb, ~d)
        u_neg = influence(~pa, ~pb, d) - influence(~pa, ~pb, ~d)
        cov = np.cov(np.stack([u_pos, u_neg]), bias=True) * n
        t = np.log(res.ratio[i, 0])
        np.testing.assert_allclose(res.covariance[i, 0], cov, rtol=1e-10)
        expected = t @ np.linalg.solve(cov, t)
        assert res.joint_statistic[i, 0] == pytest.approx(expected, rel=1e-10)
        assert res.joint_pvalue[i, 0] == pytest.approx(np.exp(-expected / 2), rel=1e-10)


@pytest.mark.parametrize("clustered", [False, True])
def test_relative_predictive_values_agree_with_the_gee_comparisons(clustered):
    # The delta method on the records' influences here and the GEE sandwich
    # of compare_precision / compare_npv are two derivations of one variance.
    import sklearn_precision_stats as sps

    rng = np.random.default_rng(4)
    n = 900
    groups = rng.integers(0, 300, n) if clustered else None
    y = rng.integers(0, 3, n)
    preds = {
        name: np.where(rng.random(n) < acc, y, rng.integers(0, 3, n))
        for name, acc in (("a", 0.7), ("b", 0.6), ("c", 0.8))
    }
    res = relative_predictive_values(y, preds, reference="b", groups=groups)
    for i, function in enumerate((sps.compare_precision, sps.compare_npv)):
        # With groups the GEE comparisons warn that WGS is not reported.
        table = _quiet(function, y, preds, reference="b", groups=groups).table
        np.testing.assert_allclose(res.ratio[..., i].ravel(), table["ratio"].to_numpy(), rtol=1e-10)
        np.testing.assert_allclose(
            res.se_log[..., i].ravel(), table["ratio_se_log"].to_numpy(), rtol=1e-8
        )
