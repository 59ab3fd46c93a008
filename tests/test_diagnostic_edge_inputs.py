"""Edge inputs of the diagnostic-test functions: every input gets a right
answer, a ValueError naming the argument, or NaN with one warning."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

from sklearn_precision_stats.diagnostic import (
    compare_likelihood_ratios,
    diagnostic_accuracy,
    exact_binomial_test,
    generalized_mcnemar,
    likelihood_ratio_regression,
    paired_cell_probabilities,
    power_predictive_values,
    power_sensitivity_specificity,
    relative_predictive_values,
    relative_sensitivity_specificity,
    relative_tpf_fpf,
    sample_size_predictive_values,
    sample_size_sensitivity_specificity,
    sensitivity_specificity_difference,
)
from sklearn_precision_stats.exceptions import UndefinedStatisticWarning

from .conftest import make_correlated_predictions

Y = np.array([1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0])
RF = np.array([1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 1])
NB = np.array([1, 1, 0, 0, 1, 1, 0, 1, 0, 1, 1, 1])

DESIGN = {"prevalence": 0.3, "sensitivity": (0.8, 0.8), "specificity": (0.85, 0.92)}


def _one_warning(record):
    undefined = [w for w in record if issubclass(w.category, UndefinedStatisticWarning)]
    assert len(undefined) == 1, [str(w.message) for w in undefined]
    assert undefined[0].filename == __file__
    return str(undefined[0].message)


# ---------------------------------------------------------------------------
# Forms of y_preds, pandas indexes
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "y_preds",
    [RF, list(RF), pd.Series(RF), pd.DataFrame({"classifier": RF}), [("classifier", RF)]],
    ids=["array", "list", "series", "dataframe", "pairs"],
)
def test_likelihood_ratio_regression_accepts_one_classifier_in_any_form(y_preds):
    expected = likelihood_ratio_regression(Y, {"classifier": RF}, labels=[1])
    result = likelihood_ratio_regression(Y, y_preds, labels=[1])
    assert result.classifier == "classifier"
    np.testing.assert_array_equal(result.dlr, expected.dlr)
    # Closed form without `given`: DLR(Y=1|X=1) is the PDLR, TP/n1 / (FP/n0).
    assert result.dlr[0, 0, 0] == pytest.approx((5 / 6) / (2 / 6), rel=1e-12)


def test_likelihood_ratio_regression_reads_a_dataframe_of_classifiers():
    y, preds, _ = make_correlated_predictions(200, 2, 2, seed=3)
    frame = pd.DataFrame(preds)
    result = likelihood_ratio_regression(y, frame, classifier="clf1", given="clf0")
    expected = likelihood_ratio_regression(y, preds, classifier="clf1", given="clf0")
    assert np.isfinite(result.log_dlr).all()
    np.testing.assert_array_equal(result.log_dlr, expected.log_dlr)


@pytest.mark.parametrize("function", [likelihood_ratio_regression, diagnostic_accuracy])
def test_no_classifier_is_a_value_error(function):
    with pytest.raises(ValueError, match="y_preds holds no classifier"):
        function(Y, {})


@pytest.mark.parametrize("function", [likelihood_ratio_regression, diagnostic_accuracy])
@pytest.mark.parametrize("as_dict", [True, False])
def test_one_classifier_with_another_pandas_index_is_refused(function, as_dict):
    y = pd.Series(Y, index=np.arange(12)[::-1])
    pred = pd.Series(RF)
    with pytest.raises(ValueError, match="different indexes"):
        function(y, {"rf": pred} if as_dict else pred)


def test_groups_with_another_pandas_index_is_refused():
    y = pd.Series(Y, index=np.arange(12)[::-1])
    pred = pd.Series(RF, index=y.index)
    groups = pd.Series(np.arange(12) // 2)
    with pytest.raises(ValueError, match="y_true and groups"):
        diagnostic_accuracy(y, pred, groups=groups)
    # Same index: accepted, and equal to the positional arrays.
    same = diagnostic_accuracy(y, pred, groups=groups.set_axis(y.index))
    plain = diagnostic_accuracy(Y, RF, groups=np.arange(12) // 2)
    np.testing.assert_array_equal(same.se, plain.se)


# ---------------------------------------------------------------------------
# Sample size and power: arguments
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("function", [power_predictive_values, power_sensitivity_specificity])
@pytest.mark.parametrize("n_records", [0, -5, 2.5, "10", True, math.nan, None])
def test_power_rejects_a_number_of_records_that_is_not_a_positive_integer(function, n_records):
    with pytest.raises(ValueError, match="n_records must be an integer >= 1"):
        function(n_records, **DESIGN)


@pytest.mark.parametrize("function", [power_predictive_values, power_sensitivity_specificity])
def test_power_accepts_numpy_integers(function):
    assert function(np.int64(400), **DESIGN) == function(400, **DESIGN)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("alpha", 0),
        ("alpha", 1),
        ("alpha", "0.05"),
        ("alpha", None),
        ("alpha", math.nan),
        ("alpha", True),
        ("power", 0),
        ("power", 1.0),
        ("power", "0.8"),
        ("power", math.nan),
    ],
)
@pytest.mark.parametrize(
    "function", [sample_size_predictive_values, sample_size_sensitivity_specificity]
)
def test_sample_size_rejects_levels_outside_0_1_naming_them(function, name, value):
    with pytest.raises(ValueError, match=f"{name} must be a number strictly between 0 and 1"):
        function(**DESIGN, **{name: value})


@pytest.mark.parametrize("prevalence", [0, 1, -0.1, 1.5, math.nan, "0.3", None, True])
def test_cell_probabilities_reject_a_prevalence_outside_0_1(prevalence):
    with pytest.raises(ValueError, match="prevalence must be a number strictly between 0 and 1"):
        paired_cell_probabilities(prevalence, (0.8, 0.8), (0.9, 0.9))


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("sensitivity", "ab"),
        ("sensitivity", (0.8, 1.0)),
        ("specificity", (0.8, 0.9, 0.9)),
        ("specificity", None),
        ("correlation", "x"),
        ("correlation", (math.nan, 0.0)),
        ("correlation", (1.5, 0.0)),
    ],
)
def test_cell_probabilities_reject_bad_pairs_naming_them(name, value):
    design = {"sensitivity": (0.8, 0.8), "specificity": (0.9, 0.9), "correlation": (0.0, 0.0)}
    design[name] = value
    with pytest.raises(ValueError, match=f"{name} must be a pair"):
        paired_cell_probabilities(0.3, **design)


@pytest.mark.parametrize(
    ("function", "measure"),
    [
        (power_predictive_values, "ppv"),
        (power_predictive_values, "npv"),
        (power_sensitivity_specificity, "sensitivity"),
        (power_sensitivity_specificity, "specificity"),
    ],
)
def test_power_of_classifiers_that_always_agree_is_nan_with_one_warning(function, measure):
    # Correlation 1 and equal accuracy: the two classifiers give the same
    # result on every record, so the test statistic has no distribution.
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        power = function(100, 0.3, (0.8, 0.8), (0.9, 0.9), correlation=(1.0, 1.0), measure=measure)
    assert math.isnan(power)
    assert "same result on every record" in _one_warning(record)
    assert not [w for w in record if issubclass(w.category, RuntimeWarning)]


@pytest.mark.parametrize("function", [power_predictive_values, power_sensitivity_specificity])
def test_power_without_a_difference_is_the_level(function):
    # Equal accuracies, independent results: the alternative is the null.
    measure = "ppv" if function is power_predictive_values else "sensitivity"
    power = function(300, 0.3, (0.8, 0.8), (0.9, 0.9), measure=measure, alpha=0.1)
    assert power == pytest.approx(0.1, rel=1e-12)


# ---------------------------------------------------------------------------
# One warning per call; degenerate intervals
# ---------------------------------------------------------------------------

COMPARISONS = [
    exact_binomial_test,
    sensitivity_specificity_difference,
    relative_sensitivity_specificity,
    generalized_mcnemar,
    relative_tpf_fpf,
    relative_predictive_values,
    compare_likelihood_ratios,
]


@pytest.mark.parametrize("function", COMPARISONS)
@pytest.mark.parametrize("case", ["identical", "perfect"])
def test_comparison_of_agreeing_classifiers_gives_one_warning_with_every_reason(function, case):
    pred = RF if case == "identical" else Y
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        function(Y, {"rf": pred, "nb": pred}, labels=[1])
    message = _one_warning(record)
    # Both measures of the pair are undefined, and both are named.
    measures = {
        exact_binomial_test: ("sensitivity", "specificity"),
        sensitivity_specificity_difference: ("sensitivity", "specificity"),
        relative_sensitivity_specificity: ("sensitivity", "specificity"),
        generalized_mcnemar: ("McNemar",),
        relative_tpf_fpf: ("tpf", "fpf"),
        relative_predictive_values: ("PPV", "NPV"),
        compare_likelihood_ratios: ("pdlr", "ndlr"),
    }[function]
    for measure in measures:
        assert measure in message
    assert "class 1 / 'nb'" in message


def test_accuracy_of_a_perfect_classifier_gives_one_warning_naming_each_undefined_value():
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        result = diagnostic_accuracy(Y, Y, labels=[1])
    message = _one_warning(record)
    for what in ("The PDLR is", "The NDLR interval", "wald interval of the sensitivity"):
        assert what in message
    assert np.isnan(result.ci_low[0, 0, :4]).all()


def test_warnings_of_two_calls_stay_apart():
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        exact_binomial_test(Y, {"rf": RF, "nb": RF}, labels=[1])
        relative_tpf_fpf(Y, {"rf": RF, "nb": RF}, labels=[1])
    messages = [str(w.message) for w in record]
    assert len(messages) == 2
    assert "exact test" in messages[0] and "tpf" not in messages[0]
    assert "tpf" in messages[1] and "exact test" not in messages[1]


def test_no_warning_is_left_pending_after_an_error():
    with pytest.raises(ValueError, match="method must be one of"):
        sensitivity_specificity_difference(Y, {"rf": RF, "nb": RF}, method="Wald")
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        exact_binomial_test(Y, {"rf": RF, "nb": RF}, labels=[1])
    assert len(record) == 1


@pytest.mark.parametrize("groups", [None, np.arange(10)])
def test_wald_difference_with_zero_standard_error_is_nan_with_one_warning(groups):
    # Sensitivity: nb is right on the three records rf misses and wrong on
    # none (u = 3, v = 0 out of n = 6), so SE = sqrt(3 - 9/6)/6 > 0; on the
    # non-diseased both agree everywhere: u = v = 0, SE = 0.
    y = np.array([1, 1, 1, 1, 1, 1, 0, 0, 0, 0])
    rf = np.array([1, 1, 1, 0, 0, 0, 0, 0, 0, 1])
    nb = np.array([1, 1, 1, 1, 1, 1, 0, 0, 0, 1])
    preds = {"rf": rf, "nb": nb}
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        result = sensitivity_specificity_difference(y, preds, labels=[1], groups=groups)
    message = _one_warning(record)
    assert "Wald interval of the specificity difference" in message
    assert "sensitivity difference" not in message
    z = stats.norm.ppf(0.975)
    se = math.sqrt(3 - 9 / 6) / 6
    np.testing.assert_allclose(result.diff[0, 0], [0.5, 0.0], rtol=1e-12)
    np.testing.assert_allclose(result.se[0, 0], [se, 0.0], rtol=1e-12, atol=1e-15)
    assert result.ci_low[0, 0, 0] == pytest.approx(0.5 - z * se, rel=1e-12)
    assert np.isnan([result.ci_low[0, 0, 1], result.ci_high[0, 0, 1]]).all()


def test_wald_difference_with_zero_standard_error_keeps_r_point_with_dtcompair():
    # Every diseased record favours nb: u = n = 6, SE = 0; R reports [1, 1].
    y = np.array([1, 1, 1, 1, 1, 1, 0, 0, 0, 0])
    rf = np.array([0, 0, 0, 0, 0, 0, 0, 0, 1, 1])
    nb = np.array([1, 1, 1, 1, 1, 1, 0, 0, 0, 1])
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        result = sensitivity_specificity_difference(
            y, {"rf": rf, "nb": nb}, labels=[1], convention="dtcompair"
        )
    assert not record
    assert result.ci_low[0, 0, 0] == result.ci_high[0, 0, 0] == 1.0


@pytest.mark.parametrize(
    ("pred", "m", "reason"),
    [
        (np.ones(12, int), 4, "predicted for every record"),
        (np.zeros(12, int), 5, "never predicted"),
    ],
)
def test_likelihood_ratio_of_one_by_construction_has_no_interval(pred, m, reason):
    # A class predicted for every record has PDLR = Se / (1 - Sp) = 1/1 and
    # se(log PDLR) = sqrt((1 - Se)/TP + Sp/FP) = 0; never predicted, the
    # same for the NDLR.
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        result = diagnostic_accuracy(Y, pred, labels=[1])
    assert reason in _one_warning(record)
    assert result.estimate[0, 0, m] == 1.0
    assert result.se[0, 0, m] == 0.0
    assert np.isnan([result.ci_low[0, 0, m], result.ci_high[0, 0, m]]).all()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        r = diagnostic_accuracy(Y, pred, labels=[1], convention="dtcompair")
    assert r.ci_low[0, 0, m] == r.ci_high[0, 0, m] == 1.0


# ---------------------------------------------------------------------------
# Results: the joint region, reprs
# ---------------------------------------------------------------------------


def test_region_lies_on_the_chi_square_ellipse_of_the_log_ratios():
    y, preds, _ = make_correlated_predictions(400, 3, 2, seed=5)
    result = relative_predictive_values(y, preds)
    points = result.region(1, confidence_level=0.9, n_points=50)
    centre = np.log(result.ratio[1, 0])
    inverse = np.linalg.inv(result.covariance[1, 0])
    t = np.log(points) - centre
    distance = np.einsum("pi,ij,pj->p", t, inverse, t)
    np.testing.assert_allclose(distance, stats.chi2.ppf(0.9, 2), rtol=1e-9)


@pytest.mark.parametrize("n_points", [0, 2, 2.5, "200", None, True])
def test_region_rejects_a_number_of_points_that_is_not_an_integer_of_3_or_more(n_points):
    y, preds, _ = make_correlated_predictions(200, 2, 2, seed=5)
    result = relative_predictive_values(y, preds)
    with pytest.raises(ValueError, match="n_points must be an integer >= 3"):
        result.region(1, n_points=n_points)


def test_reprs_show_numpy_classes_as_plain_values():
    y = np.array([0, 1, 2, 0, 1, 2, 0, 1, 2])
    a = np.array([0, 1, 2, 0, 1, 1, 0, 2, 2])
    b = np.array([0, 1, 1, 0, 2, 2, 1, 1, 2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        results = [
            diagnostic_accuracy(y, a),
            exact_binomial_test(y, {"a": a, "b": b}),
            relative_predictive_values(y, {"a": a, "b": b}),
            likelihood_ratio_regression(y, {"a": a}),
        ]
    for result in results:
        assert "classes=[0, 1, 2]" in repr(result)
    with pytest.raises(ValueError, match=r"is not one of \[0, 1, 2\]"):
        results[2].region(5)


# ---------------------------------------------------------------------------
# Independent implementations
# ---------------------------------------------------------------------------


def test_joint_covariances_equal_the_multinomial_delta_method_by_complex_step():
    # Cov of (log rPDLR, log rNDLR) and of (log rPPV, log rNPV): J (diag p -
    # p p') J' / N over the eight paired cells, J by complex-step
    # differentiation of the log ratios as functions of the cell shares.
    y, preds, _ = make_correlated_predictions(500, 3, 2, seed=11)
    lrs = compare_likelihood_ratios(y, preds)
    pvs = relative_predictive_values(y, preds)
    ref, other = preds["clf0"], preds["clf1"]
    for k in range(3):
        d, a, b = (y == k).astype(int), (ref == k).astype(int), (other == k).astype(int)
        cells = np.zeros((2, 2, 2))
        np.add.at(cells, (d, a, b), 1)
        n = cells.sum()
        p = cells.ravel() / n

        def log_ratios(share):
            c = share.reshape(2, 2, 2)
            tp_r, tp_o = c[1, 1, :].sum(), c[1, :, 1].sum()
            fp_r, fp_o = c[0, 1, :].sum(), c[0, :, 1].sum()
            fn_r, fn_o = c[1, 0, :].sum(), c[1, :, 0].sum()
            tn_r, tn_o = c[0, 0, :].sum(), c[0, :, 0].sum()
            return np.array(
                [
                    np.log(tp_o * fp_r / (tp_r * fp_o)),
                    np.log(fn_o * tn_r / (fn_r * tn_o)),
                    np.log(tp_o / (tp_o + fp_o) * (tp_r + fp_r) / tp_r),
                    np.log(tn_o / (tn_o + fn_o) * (tn_r + fn_r) / tn_r),
                ]
            )

        h = 1e-30
        jac = np.array([log_ratios(p + 1j * h * e).imag / h for e in np.eye(8)]).T
        cov = jac @ (np.diag(p) - np.outer(p, p)) @ jac.T / n
        np.testing.assert_allclose(lrs.covariance[k, 0], cov[:2, :2], rtol=1e-12)
        np.testing.assert_allclose(pvs.covariance[k, 0], cov[2:, 2:], rtol=1e-12)
        t = log_ratios(p).real[:2]
        joint = t @ np.linalg.solve(cov[:2, :2], t)
        assert lrs.joint_statistic[k, 0] == pytest.approx(joint, rel=1e-12)
        assert lrs.joint_pvalue[k, 0] == pytest.approx(stats.chi2.sf(joint, 2), rel=1e-12)


@pytest.mark.parametrize("given", [None, "clf0"])
@pytest.mark.parametrize("repeats", [1, 3])
def test_likelihood_ratio_regression_equals_statsmodels_stacked_gee(given, repeats):
    # Gu and Pepe's fit: the records stacked twice, design (0, V) then
    # (X, 0), one logistic GEE with independence working correlation and
    # records (groups) as clusters; log DLR = A beta with its robust
    # covariance.
    sm = pytest.importorskip("statsmodels.api")
    y, preds, groups = make_correlated_predictions(150, 2, 2, seed=4, repeats=repeats)
    d = (y == 1).astype(float)
    x = (preds["clf0"] == 1).astype(float)
    v = (preds["clf1"] == 1).astype(float)
    n = d.shape[0]
    if given is None:
        pre, post = np.ones((n, 1)), np.column_stack([np.ones(n), v])
    else:
        pre = np.column_stack([np.ones(n), x])
        post = np.column_stack([np.ones(n), x, v, x * v])
    r, q = pre.shape[1], post.shape[1]
    design = np.vstack([np.hstack([np.zeros((n, r)), post]), np.hstack([pre, np.zeros((n, q))])])
    fit = sm.GEE(
        np.concatenate([d, d]),
        design,
        groups=np.tile(groups, 2),
        family=sm.families.Binomial(),
        cov_struct=sm.cov_struct.Independence(),
    ).fit(ctol=1e-12, maxiter=200)
    a = np.zeros((q, r + q))
    a[:, r:] = np.eye(q)
    a[:r, :r] -= np.eye(r)
    theta = a @ fit.params
    se = np.sqrt(np.diag(a @ fit.cov_robust @ a.T))
    result = likelihood_ratio_regression(
        y,
        preds,
        classifier="clf1",
        given=given,
        labels=[1],
        groups=groups if repeats > 1 else None,
    )
    np.testing.assert_allclose(result.log_dlr[0, :, 0], theta, rtol=1e-9)
    np.testing.assert_allclose(result.log_dlr[0, :, 1], se, rtol=1e-9)


def test_clustered_standard_errors_equal_statsmodels_gee_of_the_rows():
    # With groups, the SE of a proportion (a difference of paired
    # proportions) is the sandwich of an intercept-only GEE on the rows of
    # its denominator, clustered by record.
    sm = pytest.importorskip("statsmodels.api")
    y, preds, groups = make_correlated_predictions(150, 3, 2, seed=7, repeats=3)
    d, ref, other = y == 2, preds["clf0"] == 2, preds["clf1"] == 2

    def gee_se(endog, mask):
        fit = sm.GEE(endog[mask].astype(float), np.ones((mask.sum(), 1)), groups=groups[mask]).fit()
        return math.sqrt(fit.cov_robust[0, 0])

    accuracy = diagnostic_accuracy(y, preds["clf0"], labels=[2], groups=groups)
    assert accuracy.se[0, 0, 0] == pytest.approx(gee_se(ref, d), rel=1e-9)
    assert accuracy.se[0, 0, 1] == pytest.approx(gee_se(~ref, ~d), rel=1e-9)
    assert accuracy.se[0, 0, 2] == pytest.approx(gee_se(d, ref), rel=1e-9)
    assert accuracy.se[0, 0, 3] == pytest.approx(gee_se(~d, ~ref), rel=1e-9)
    difference = sensitivity_specificity_difference(y, preds, labels=[2], groups=groups)
    change = other.astype(int) - ref.astype(int)
    assert difference.se[0, 0, 0] == pytest.approx(gee_se(change, d), rel=1e-9)
    assert difference.se[0, 0, 1] == pytest.approx(gee_se(-change, ~d), rel=1e-9)


@pytest.mark.parametrize(
    ("function", "measure"),
    [
        (sample_size_predictive_values, "ppv"),
        (sample_size_predictive_values, "npv"),
        (sample_size_sensitivity_specificity, "sensitivity"),
        (sample_size_sensitivity_specificity, "specificity"),
    ],
)
def test_sample_size_without_a_difference_says_no_size_is_enough(function, measure):
    with pytest.raises(ValueError, match="no number of records detects a difference"):
        function(0.3, (0.8, 0.8), (0.9, 0.9), measure=measure)


ALL_FUNCTIONS = [*COMPARISONS, diagnostic_accuracy, likelihood_ratio_regression]


@pytest.mark.parametrize("function", ALL_FUNCTIONS)
def test_row_order_and_label_names_do_not_change_the_numbers(function):
    y, preds, _ = make_correlated_predictions(300, 3, 2, seed=2)
    names = np.array(["cat", "dog", "emu"])  # sorted as 0, 1, 2
    order = np.random.default_rng(0).permutation(y.shape[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        base = function(y, preds)
        moved = function(names[y[order]], {k: names[v[order]] for k, v in preds.items()})
    assert np.asarray(moved.classes).tolist() == names.tolist()
    for field in ("estimate", "se", "statistic", "pvalue", "ratio", "se_log", "diff", "log_dlr"):
        if hasattr(base, field):
            np.testing.assert_allclose(
                getattr(moved, field), getattr(base, field), rtol=1e-12, atol=1e-15
            )


@pytest.mark.parametrize(
    "function", [sample_size_predictive_values, sample_size_sensitivity_specificity]
)
@pytest.mark.parametrize(("alpha", "power"), [(0.05, 0.01), (0.05, 0.05), (0.5, 0.4)])
def test_sample_size_for_a_power_not_above_alpha_is_refused(function, alpha, power):
    design = {"prevalence": 0.3, "sensitivity": (0.8, 0.9), "specificity": (0.85, 0.92)}
    with pytest.raises(ValueError, match=f"power={power!r} must exceed alpha"):
        function(**design, alpha=alpha, power=power)
    # Just above alpha the size is small and its power reaches the target.
    result = function(**design, alpha=alpha, power=alpha + 0.02)
    assert result.n_records >= 1 and result.power >= alpha + 0.02 - 1e-9


def test_likelihood_ratio_regression_of_integer_column_names_and_repeated_names():
    frame = pd.DataFrame(np.column_stack([RF, NB]))  # columns 0 and 1
    result = likelihood_ratio_regression(Y, frame, labels=[1])
    assert result.classifier == 0
    expected = likelihood_ratio_regression(Y, {"rf": RF}, labels=[1])
    np.testing.assert_array_equal(result.dlr, expected.dlr)
    with pytest.raises(ValueError, match="names in y_preds must be unique"):
        likelihood_ratio_regression(Y, [("rf", RF), ("rf", NB)])


@pytest.mark.parametrize(("u", "v", "n"), [(0, 0, 10), (3, 0, 10), (0, 7, 20), (10, 8, 100)])
def test_tango_interval_equals_an_independent_restricted_likelihood_score_interval(u, v, n):
    # Tango's score statistic for a paired difference delta: the observed
    # difference over its variance (pu + pv - delta^2)/n at the discordance
    # probabilities that maximise the multinomial likelihood under delta
    # (found numerically here, not by Tango's closed form).
    def score(delta):
        def minus_loglik(pv):
            return -(
                u * np.log(pv + delta) + v * np.log(pv) + (n - u - v) * np.log(1 - 2 * pv - delta)
            )

        low, high = max(0.0, -delta) + 1e-15, (1 - delta) / 2 - 1e-15
        pv = optimize.minimize_scalar(
            minus_loglik, bounds=(low, high), method="bounded", options={"xatol": 1e-15}
        ).x
        return ((u - v) / n - delta) / math.sqrt((2 * pv + delta - delta**2) / n)

    z = stats.norm.ppf(0.975)
    est = (u - v) / n
    expected = (
        optimize.brentq(lambda d: score(d) - z, -1 + 1e-9, est, xtol=1e-13),
        optimize.brentq(lambda d: score(d) + z, est, 1 - 1e-9, xtol=1e-13),
    )
    # Sensitivity stratum: u records only the classifier gets right, v only
    # the reference, n - u - v both; one non-diseased record.
    y = np.r_[np.ones(n, int), 0]
    ref = np.r_[np.zeros(u, int), np.ones(v, int), np.ones(n - u - v, int), 0]
    clf = np.r_[np.ones(u, int), np.zeros(v, int), np.ones(n - u - v, int), 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        result = sensitivity_specificity_difference(
            y, {"ref": ref, "clf": clf}, labels=[1], method="tango"
        )
    np.testing.assert_allclose(
        [result.ci_low[0, 0, 0], result.ci_high[0, 0, 0]], expected, atol=1e-7
    )


def _simulated_rejections(sensitivity, specificity, n_sim=800, n=300, seed=0):
    """Rejection rates at 5% (coverage of 0 for Tango's interval) of the
    comparisons on tables drawn from a paired design."""
    probs = paired_cell_probabilities(0.3, sensitivity, specificity, (0.3, 0.3)).ravel()
    cell = np.array(np.unravel_index(np.arange(8), (2, 2, 2))).T  # (d, ref, other)
    rng = np.random.default_rng(seed)
    hits = np.zeros(6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        for _ in range(n_sim):
            rows = np.repeat(cell, rng.multinomial(n, probs), axis=0)
            y, preds = rows[:, 0], {"ref": rows[:, 1], "other": rows[:, 2]}
            tango = sensitivity_specificity_difference(y, preds, labels=[1], method="tango")
            hits += [
                exact_binomial_test(y, preds, labels=[1]).pvalue[0, 0, 0] < 0.05,
                generalized_mcnemar(y, preds, labels=[1]).pvalue[0, 0] < 0.05,
                relative_sensitivity_specificity(y, preds, labels=[1]).pvalue[0, 0, 0] < 0.05,
                relative_predictive_values(y, preds, labels=[1]).pvalue[0, 0, 0] < 0.05,
                compare_likelihood_ratios(y, preds, labels=[1]).joint_pvalue[0, 0] < 0.05,
                not tango.ci_low[0, 0, 0] <= 0 <= tango.ci_high[0, 0, 0],
            ]
    return hits / n_sim


@pytest.mark.slow
def test_comparisons_hold_their_size_and_gain_power():
    # Exchangeable classifiers (equal sensitivity, specificity, hence equal
    # predictive values and likelihood ratios): every test rejects about 5%
    # (the exact test at most that); with a sensitivity of 0.9 against 0.8
    # and a specificity of 0.93 against 0.85 every one rejects more often.
    null = _simulated_rejections((0.8, 0.8), (0.85, 0.85))
    assert null[0] <= 0.05 + 0.02, null
    assert np.all((null[1:] > 0.02) & (null[1:] < 0.08)), null
    alternative = _simulated_rejections((0.8, 0.9), (0.85, 0.93), n_sim=300, seed=1)
    assert np.all(alternative > 0.3), alternative
