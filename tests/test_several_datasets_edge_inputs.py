"""Edge inputs of the comparisons over several data sets and the Bayesian tests.

Tables given as dicts, nullable pandas dtypes, tuple (MultiIndex) names,
controls named by equal values of other types, warnings pointing at the
caller's line. Each answer is checked against an independent reference:
scipy.stats.friedmanchisquare, scikit-posthocs, baycomp or a closed form.
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from sklearn_precision_stats.bayesian import (
    bayesian_correlated_ttest,
    bayesian_hierarchical_test,
    bayesian_signed_rank_test,
)
from sklearn_precision_stats.bayesian._hierarchical import _check_inputs, _jitter_constant_rows
from sklearn_precision_stats.exceptions import UndefinedStatisticWarning
from sklearn_precision_stats.several_datasets import friedman_test, posthoc_test

RTOL = 1e-9


def _table(seed, n=12, k=4):
    rng = np.random.default_rng(seed)
    return rng.random((n, k)) * 0.1 + np.linspace(0.06, 0.0, k) + 0.7


# ------------------------------------------------- tables of scores


def test_dict_of_scores_is_a_table_with_its_keys_as_classifiers():
    scores = _table(0)
    as_dict = {"rf": scores[:, 0], "svm": list(scores[:, 1]), "nb": tuple(scores[:, 2])}
    res = friedman_test(as_dict)
    ref = stats.friedmanchisquare(*scores[:, :3].T)
    assert res.statistic == pytest.approx(ref.statistic, rel=RTOL)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=RTOL)
    assert list(res.average_ranks.index) == ["rf", "svm", "nb"]
    post = posthoc_test(as_dict, method="holm", control="nb")
    assert list(post.pvalue.columns) == ["rf", "svm", "nb"]


def test_dict_of_unequal_lengths_names_the_problem():
    with pytest.raises(ValueError, match="dict must map each classifier.*same length"):
        friedman_test({"rf": [0.9, 0.8, 0.7], "svm": [0.8, 0.7]})


def test_ragged_table_names_the_argument():
    with pytest.raises(ValueError, match="scores must be a table of numbers, one row per data"):
        friedman_test([[0.9, 0.8], [0.7, 0.6, 0.5]])


def test_nullable_missing_score_is_reported_as_missing():
    frame = pd.DataFrame(_table(1)).astype("Float64")
    frame.iloc[3, 1] = pd.NA
    with pytest.raises(ValueError, match="missing or infinite value in row 3"):
        friedman_test(frame)
    # Without missing values the nullable dtype gives scipy's answer.
    full = pd.DataFrame(_table(1)).astype("Float64")
    ref = stats.friedmanchisquare(*_table(1).T)
    assert friedman_test(full).statistic == pytest.approx(ref.statistic, rel=RTOL)


# ------------------------------------------------- names of classifiers


def test_posthoc_keeps_the_classifier_names_in_its_friedman_result():
    frame = pd.DataFrame(_table(2), columns=["rf", "svm", "knn", "nb"])
    res = posthoc_test(frame)
    assert list(res.friedman.average_ranks.index) == ["rf", "svm", "knn", "nb"]
    assert list(res.friedman.ranks.columns) == ["rf", "svm", "knn", "nb"]
    pd.testing.assert_series_equal(res.friedman.average_ranks, friedman_test(frame).average_ranks)


@pytest.mark.parametrize("control", [True, np.True_, False])
def test_bool_control_does_not_pick_the_classifier_numbered_one(control):
    # True == 1 in Python: the classifier numbered 1 must not be chosen.
    with pytest.raises(ValueError, match="control=.* is not one of the classifiers"):
        posthoc_test(_table(3), method="holm", control=control)


@pytest.mark.parametrize("control", [2, 2.0, np.int64(2), np.float32(2.0)])
def test_control_is_reported_as_the_table_names_it(control):
    sp = pytest.importorskip("scikit_posthocs")
    res = posthoc_test(_table(4), method="holm", control=control)
    assert res.control == 2 and type(res.control) is int
    # Holm over the 3 comparisons with the control, from the raw p-values.
    raw = sp.posthoc_siegel_friedman(_table(4)).to_numpy()[2, [0, 1, 3]]
    holm = np.minimum(1, np.maximum.accumulate(np.sort(raw) * [3, 2, 1]))
    expected = np.empty(3)
    expected[np.argsort(raw)] = holm
    np.testing.assert_allclose(res.pvalue.to_numpy()[2, [0, 1, 3]], expected, rtol=RTOL)


def _tuple_named_table():
    columns = pd.MultiIndex.from_tuples([("tree", 1), ("tree", 2), ("svm", 1), ("svm", 2)])
    scores = _table(5, n=20) + np.array([0.0, 0.0, 0.0, -0.08])
    return pd.DataFrame(scores, columns=columns)


def test_summary_with_tuple_names():
    frame = _tuple_named_table()
    res = posthoc_test(frame)
    text = res.summary()
    # ('svm', 2) is clearly worse than the other three.
    assert "better than ('svm', 2)" in text
    control = posthoc_test(frame, method="holm", control=("tree", 1))
    text = control.summary()
    assert "against control ('tree', 1)" in text
    assert "('tree', 1) better than ('svm', 2)" in text


def test_critical_difference_diagram_with_tuple_names_and_control():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sklearn_precision_stats.plotting import plot_critical_difference

    res = posthoc_test(_tuple_named_table(), method="bonferroni-dunn", control=("tree", 1))
    ax = plot_critical_difference(res)
    # The control's CD interval is centred on its average rank.
    centre = res.average_ranks.to_numpy()[0]
    segments = [line.get_xdata() for line in ax.get_lines()]
    cd = res.critical_difference
    assert any(len(x) == 2 and np.allclose(x, [centre - cd, centre + cd]) for x in segments)
    plt.close(ax.figure)


# ------------------------------------------------- warnings


def test_undefined_friedman_warns_once_at_the_callers_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = friedman_test(np.ones((5, 3)))
        post = posthoc_test(np.full((4, 3), 0.5))
    undefined = [w for w in caught if issubclass(w.category, UndefinedStatisticWarning)]
    assert len(undefined) == 2
    assert all(w.filename == __file__ for w in undefined), [w.filename for w in undefined]
    assert math.isnan(res.statistic) and math.isnan(post.friedman.statistic)
    # Equal average ranks: every pair has z = 0 and p = 1, as scikit-posthocs.
    np.testing.assert_array_equal(post.pvalue.to_numpy(), np.ones((3, 3)))
    # NaN in the reprs; one group of all three, written as a one-element tuple.
    assert "statistic=nan, pvalue=nan" in repr(res)
    assert "groups=((0, 1, 2),)" in repr(post)
    assert "Friedman chi2 = nan, p = nan" in post.summary()


# ------------------------------------------------- Bayesian correlated t test


def _cv_pair(seed, n=30):
    rng = np.random.default_rng(seed)
    b = rng.uniform(0.7, 0.9) + rng.normal(0, 0.02, n)
    return b + 0.01 + rng.normal(0, 0.01, n), b


@pytest.mark.parametrize("exponent", [-1000, -40, 0, 1000])
def test_correlated_ttest_is_scale_free_and_matches_baycomp(exponent):
    """Scores near 1e-300 or 1e300 give baycomp's answer on the unscaled scores.

    Multiplying scores and rope by a power of two is exact, and the
    probabilities do not depend on the unit of the scores; unscaled,
    baycomp's closed form is the reference.
    """
    baycomp = pytest.importorskip("baycomp")
    a, b = _cv_pair(0)
    ref = baycomp.two_on_single(b, a, rope=0.005, runs=3)  # rho = 1/10
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow or underflow warning
        res = bayesian_correlated_ttest(
            np.ldexp(a, exponent),
            np.ldexp(b, exponent),
            n_train=9,
            n_test=1,
            rope=float(np.ldexp(0.005, exponent)),
        )
    np.testing.assert_allclose(res.probabilities, ref, rtol=1e-9, atol=1e-15)
    unscaled = bayesian_correlated_ttest(a, b, n_train=9, n_test=1, rope=0.005)
    assert res.mean == pytest.approx(math.ldexp(unscaled.mean, exponent), rel=1e-12)
    assert res.scale == pytest.approx(math.ldexp(unscaled.scale, exponent), rel=1e-12)


def test_correlated_ttest_on_tiny_scores_is_not_a_point_mass():
    # Scores of order 1e-13 that vary: the posterior is Student, as in baycomp.
    baycomp = pytest.importorskip("baycomp")
    a, b = _cv_pair(1)
    a, b = a * 1e-13, b * 1e-13
    res = bayesian_correlated_ttest(a, b, n_train=9, n_test=1, rope=0.0)
    ref = baycomp.two_on_single(b, a, rope=0, runs=3)
    assert res.scale > 0
    np.testing.assert_allclose((res.p_left, res.p_right), ref, rtol=1e-9)


def test_correlated_ttest_differences_constant_up_to_rounding_are_a_point_mass():
    # a - (a - 0.02) is 0.02 up to rounding errors of the scores.
    a, _ = _cv_pair(2)
    res = bayesian_correlated_ttest(a, a - 0.02, n_train=9, n_test=1, rope=0.01)
    assert res.probabilities == (0.0, 0.0, 1.0)
    assert res.scale == 0.0
    assert res.mean == pytest.approx(0.02, rel=1e-12)


# ------------------------------------------------- Bayesian signed-rank test


def test_signed_rank_identical_scores_without_rope_split_evenly():
    """Every posterior draw has theta_left = theta_right = 1/2: a tie, not "b better"."""
    scores = _table(6)[:, 0]
    res = bayesian_signed_rank_test(scores, scores.copy(), rope=0.0, random_state=0)
    np.testing.assert_allclose(res.samples[:, [0, 2]], 0.5, rtol=1e-12)
    assert res.probabilities == (0.5, 0.0, 0.5)
    # The correlated t test's point mass at 0 is split alike.
    t_res = bayesian_correlated_ttest(scores, scores.copy(), n_train=9, n_test=1, rope=0.0)
    assert t_res.probabilities == (0.5, 0.0, 0.5)


def test_signed_rank_still_matches_baycomp_draw_for_draw():
    baycomp = pytest.importorskip("baycomp")
    from baycomp.multiple import SignedRankTest

    rng = np.random.default_rng(7)
    x = rng.normal(0.8, 0.05, 20)
    y = x - 0.01 + rng.normal(0, 0.02, 20)
    for rope in (0.0, 0.01):
        res = bayesian_signed_rank_test(x, y, rope=rope, n_samples=20000, random_state=42)
        ref = SignedRankTest.sample(y, x, rope=rope, nsamples=20000, random_state=42)
        np.testing.assert_allclose(res.samples, ref, rtol=0, atol=1e-12)
        probs = SignedRankTest.probs(y, x, rope=rope, nsamples=20000, random_state=42)
        expected = probs if len(probs) == 3 else (probs[0], 0.0, probs[1])
        np.testing.assert_allclose(res.probabilities, expected, rtol=0, atol=1e-12)
    assert baycomp is not None


def test_signed_rank_int_seed_leaves_the_global_rng_untouched():
    x = _table(8)[:, 0]
    before = np.random.get_state()  # noqa: NPY002 (the global state is the subject)
    first = bayesian_signed_rank_test(x, x - 0.005, n_samples=500, random_state=3)
    after = np.random.get_state()  # noqa: NPY002
    assert before[0] == after[0] and np.array_equal(before[1], after[1])
    assert before[2:] == after[2:]
    again = bayesian_signed_rank_test(x, x - 0.005, n_samples=500, random_state=3)
    np.testing.assert_array_equal(first.samples, again.samples)


# ------------------------------------------------- wrong types


@pytest.mark.parametrize("value", [True, np.True_])
def test_a_bool_is_not_a_rope(value):
    a, b = _cv_pair(3)
    with pytest.raises(ValueError, match="rope must be a number, got the bool"):
        bayesian_correlated_ttest(a, b, n_train=9, n_test=1, rope=value)
    with pytest.raises(ValueError, match="rope must be a number, got the bool"):
        bayesian_signed_rank_test(a, b, rope=value)


@pytest.mark.parametrize("name", ["n_samples", "prior_strength"])
def test_signed_rank_rejects_bool_counts(name):
    a, b = _cv_pair(4)
    with pytest.raises(ValueError, match=f"{name} must be a number, got the bool True"):
        bayesian_signed_rank_test(a, b, **{name: True})


@pytest.mark.parametrize(
    "names", [5, None, "ab", ("a", "b", "c")], ids=["int", "None", "str", "three"]
)
def test_plot_posterior_names_must_be_a_pair(names):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from sklearn_precision_stats.plotting import plot_posterior

    a, b = _cv_pair(5)
    res = bayesian_correlated_ttest(a, b, n_train=9, n_test=1)
    with pytest.raises(ValueError, match="names must hold two names"):
        plot_posterior(res, names=names)


# ------------------------------------------------- hierarchical test inputs


def _cv_table(seed, n_datasets=3, n_scores=10):
    rng = np.random.default_rng(seed)
    return rng.uniform(0.7, 0.9, (n_datasets, 1)) + rng.normal(0, 0.02, (n_datasets, n_scores))


@pytest.mark.parametrize("name", ["n_samples", "n_tune", "chains", "cores", "rope"])
def test_hierarchical_rejects_bools_before_sampling(name):
    pytest.importorskip("pymc")
    a = _cv_table(0)
    with pytest.raises(ValueError, match=f"{name} must be a number, got the bool True"):
        bayesian_hierarchical_test(a, a - 0.01, n_train=9, n_test=1, **{name: True})


@pytest.mark.parametrize(
    "scores_a, name",
    [
        ({"d1": [0.8, 0.9]}, "scores_a"),
        (np.array([["a", "b"], ["c", "d"]]), "scores_a"),
    ],
    ids=["dict", "strings"],
)
def test_hierarchical_non_numeric_scores_name_the_argument(scores_a, name):
    with pytest.raises(ValueError, match=f"{name} must hold numbers"):
        bayesian_hierarchical_test(scores_a, np.ones((2, 2)), n_train=9, n_test=1)


def test_hierarchical_nullable_missing_score_is_reported_as_missing():
    a = pd.DataFrame(_cv_table(1)).astype("Float64")
    a.iloc[1, 2] = pd.NA
    with pytest.raises(ValueError, match="scores_a contains NaN or infinite scores"):
        bayesian_hierarchical_test(a, _cv_table(1), n_train=9, n_test=1)


def test_hierarchical_differences_constant_up_to_rounding_are_spread():
    """a and a - 0.01 differ by 0.01 up to rounding: each such row is spread.

    Left unspread, the rounding noise (about 1e-17) makes the within-data-set
    standard deviation nearly 0 and the sampler fails at its starting point.
    """
    # Scores across [0, 1): a - 0.01 rounds differently in each binade.
    a = np.random.default_rng(2).random((3, 10))
    b = a - 0.01
    b[0] = a[0] - 0.02 + np.linspace(-0.01, 0.01, a.shape[1])  # a row that varies
    differences, _, _, magnitude = _check_inputs(a, b, 9, 1)
    assert np.ptp(differences[1:], axis=1).max() > 0  # not exactly constant
    spread, n_constant = _jitter_constant_rows(
        differences, 0.01, np.random.default_rng(0), magnitude
    )
    assert n_constant == 2
    np.testing.assert_array_equal(spread[0], differences[0])
    np.testing.assert_allclose(spread[1:].mean(axis=1), 0.01, rtol=1e-12)
    assert np.ptp(spread[1:], axis=1).min() > 1e-6


@pytest.mark.slow
def test_hierarchical_runs_on_differences_constant_up_to_rounding():
    """Also with data sets named by a MultiIndex: per_dataset() keeps the tuples."""
    pytest.importorskip("pymc")
    index = pd.MultiIndex.from_tuples([("uci", "iris"), ("uci", "wine"), ("openml", "adult")])
    a = pd.DataFrame(np.random.default_rng(3).random((3, 10)), index=index)
    res = bayesian_hierarchical_test(
        a, a - 0.02, n_train=9, n_test=1, rope=0.01, n_samples=500, n_tune=500, random_state=0
    )
    assert res.n_constant == 3
    assert res.datasets == tuple(index)
    table = res.per_dataset()
    assert list(table.index) == list(index)
    # Every data set gains 0.02, twice the rope: a practically better.
    assert table["mean"].to_numpy() == pytest.approx(0.02, abs=0.01)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_hierarchical_is_scale_free():
    """Scores near 1e-211 or 1e301 give the draws of the unscaled scores, rescaled.

    Multiplying scores and rope by a power of two is exact, and the model's
    priors scale with the data: with the same seed, the sampler sees the
    same unit-scale problem. Before, the within-data-set spread underflowed
    to 0 (ZeroDivisionError) or overflowed (the sampler failed to start).
    """
    pytest.importorskip("pymc")
    rng = np.random.default_rng(0)
    b = rng.uniform(0.7, 0.9, (4, 1)) + rng.normal(0, 0.02, (4, 10))
    a = b + 0.01 + rng.normal(0, 0.01, (4, 10))
    kwargs = dict(n_train=9, n_test=1, n_samples=200, n_tune=200, random_state=0)
    ref = bayesian_hierarchical_test(a, b, rope=0.01, **kwargs)
    for exponent in (-700, 1000):
        res = bayesian_hierarchical_test(
            np.ldexp(a, exponent),
            np.ldexp(b, exponent),
            rope=math.ldexp(0.01, exponent),
            **kwargs,
        )
        assert res.probabilities == ref.probabilities
        np.testing.assert_allclose(res.delta0, np.ldexp(ref.delta0, exponent), rtol=1e-12)
        np.testing.assert_allclose(res.samples, ref.samples, rtol=1e-9, atol=1e-12)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_hierarchical_with_one_chain_prints_nothing(capfd):
    """ArviZ's shape notice for one chain (R-hat needs two) stays quiet; R-hat is NaN."""
    pytest.importorskip("pymc")
    import arviz

    a = _cv_table(4, n_datasets=2)
    capfd.readouterr()
    level = arviz._log.level
    res = bayesian_hierarchical_test(
        a, a - 0.01 + _cv_table(5, n_datasets=2) * 0.01, n_train=9, n_test=1,
        chains=1, n_samples=50, n_tune=50, random_state=0,
    )  # fmt: skip
    assert "Shape validation" not in capfd.readouterr().err
    assert math.isnan(res.r_hat)
    assert arviz._log.level == level


def test_hierarchical_frames_with_different_splits_are_not_paired():
    """The columns are the splits: fold order differing between the frames is an error."""
    folds = [f"fold{i}" for i in range(10)]
    a = pd.DataFrame(_cv_table(6), columns=folds)
    b = pd.DataFrame(_cv_table(7), columns=folds[::-1])
    with pytest.raises(ValueError, match="different columns; the columns are the splits"):
        bayesian_hierarchical_test(a, b, n_train=9, n_test=1)


# ------------------------------------------------- family-wise error rates


@pytest.mark.slow
def test_step_down_and_bonferroni_control_the_familywise_error_rate():
    """Simulated tables: rejections of true equalities stay within alpha.

    Complete null (5 exchangeable classifiers) and a partial null (two
    groups far apart: only the 4 within-group pairs are true), where
    Shaffer's multipliers are smaller than Holm's. The bound is alpha plus
    three binomial standard errors of 600 simulations.
    """
    rng = np.random.default_rng(1986)
    n_sim, alpha = 600, 0.05
    bound = alpha + 3 * math.sqrt(alpha * (1 - alpha) / n_sim)
    offsets = {
        "complete": np.zeros(5),
        "partial": np.array([0.0, 0.0, 0.6, 0.6, 0.6]),
    }
    for case, offset in offsets.items():
        true = np.equal.outer(offset, offset) & ~np.eye(5, dtype=bool)
        errors = dict.fromkeys(["holm", "shaffer", "bonferroni-dunn", "holm-control"], 0)
        for _ in range(n_sim):
            scores = rng.random((20, 5)) + offset
            for method in ("holm", "shaffer", "bonferroni-dunn"):
                pvalue = posthoc_test(scores, method=method).pvalue.to_numpy()
                errors[method] += bool((pvalue[true] < alpha).any())
            pvalue = posthoc_test(scores, method="holm", control=0).pvalue.to_numpy()
            errors["holm-control"] += bool((pvalue[0][true[0]] < alpha).any())
        rates = {method: count / n_sim for method, count in errors.items()}
        assert max(rates.values()) <= bound, (case, rates)
        if case == "complete":
            # Not vacuous: the tests do reject sometimes under the null.
            assert min(rates.values()) > 0.005, rates


def test_signed_rank_draws_do_not_depend_on_the_memory_bound(monkeypatch):
    """Many data sets shrink the chunks of draws; the draws stay baycomp's."""
    pytest.importorskip("baycomp")
    from baycomp.multiple import SignedRankTest

    import sklearn_precision_stats.bayesian._signed_rank as module

    rng = np.random.default_rng(11)
    x = rng.normal(0.8, 0.05, 20)
    y = x - 0.01 + rng.normal(0, 0.02, 20)
    monkeypatch.setattr(module, "_CHUNK_CELLS", 50)  # 2 draws per chunk for 21 weights
    res = bayesian_signed_rank_test(x, y, rope=0.01, n_samples=301, random_state=5)
    ref = SignedRankTest.sample(y, x, rope=0.01, nsamples=301, random_state=5)
    np.testing.assert_allclose(res.samples, ref, rtol=0, atol=1e-12)


def test_hierarchical_records_per_dataset_are_checked_and_aligned():
    """One n_train per data set: numbers, in the order of the data sets."""
    index = ["iris", "wine", "adult"]
    a = pd.DataFrame(_cv_table(8), index=index)
    b = a - 0.01
    shuffled = pd.Series([90.0, 160.0, 30000.0], index=["adult", "iris", "wine"])
    with pytest.raises(ValueError, match="n_train is a Series indexed unlike the rows"):
        bayesian_hierarchical_test(a, b, n_train=shuffled, n_test=10)
    with pytest.raises(ValueError, match="n_test must be a positive number of records"):
        bayesian_hierarchical_test(a, b, n_train=9, n_test=["10", "10", "10"])
    # A long wrong value is described, not printed.
    with pytest.raises(ValueError, match=r"got a ndarray value of shape \(500,\)\.$"):
        bayesian_hierarchical_test(a, b, n_train=np.arange(1.0, 501.0), n_test=1)


# ------------------------------------------------- invariances


@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(3, 15),
    st.integers(2, 7),
    st.sampled_from(["nemenyi", "holm", "bonferroni-dunn", "shaffer"]),
    st.booleans(),
)
def test_friedman_and_posthoc_invariances(seed, n, k, method, coarse):
    """Permuting data sets changes nothing; permuting classifiers permutes the answer.

    Scores on a coarse grid give ties. Also: the Friedman statistic equals
    scipy's, and a monotone transformation of the scores changes nothing.
    """
    rng = np.random.default_rng(seed)
    scores = rng.random((n, k))
    if coarse:
        scores = np.round(scores * 3) / 3
    if k >= 3 and np.ptp(scores, axis=1).max() > 0:
        ref = stats.friedmanchisquare(*scores.T)
        assert friedman_test(scores).statistic == pytest.approx(ref.statistic, rel=1e-9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        res = posthoc_test(scores, method=method)
        rows = rng.permutation(n)
        cols = rng.permutation(k)
        by_rows = posthoc_test(scores[rows], method=method)
        by_cols = posthoc_test(scores[:, cols], method=method)
        monotone = posthoc_test(np.exp(3 * scores), method=method)
    p = res.pvalue.to_numpy()
    np.testing.assert_allclose(by_rows.pvalue.to_numpy(), p, rtol=1e-12)
    np.testing.assert_allclose(by_cols.pvalue.to_numpy(), p[np.ix_(cols, cols)], rtol=1e-12)
    np.testing.assert_allclose(monotone.pvalue.to_numpy(), p, rtol=1e-12)
    np.testing.assert_allclose(
        by_cols.statistic.to_numpy(), res.statistic.to_numpy()[np.ix_(cols, cols)], atol=1e-12
    )


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 30), st.sampled_from([0.0, 0.005, 0.02]))
def test_bayesian_swap_and_permutation_invariances(seed, n, rope):
    """Swapping a and b mirrors left and right; the order of the pairs does not matter."""
    rng = np.random.default_rng(seed)
    b = rng.uniform(0.6, 0.9, n)
    a = b + rng.normal(0.005, 0.01, n)
    order = rng.permutation(n)
    t_ab = bayesian_correlated_ttest(a, b, n_train=9, n_test=1, rope=rope)
    t_ba = bayesian_correlated_ttest(b, a, n_train=9, n_test=1, rope=rope)
    t_perm = bayesian_correlated_ttest(a[order], b[order], n_train=9, n_test=1, rope=rope)
    np.testing.assert_allclose(t_ba.probabilities, t_ab.probabilities[::-1], atol=1e-12)
    np.testing.assert_allclose(t_perm.probabilities, t_ab.probabilities, atol=1e-12)
    s_ab = bayesian_signed_rank_test(a, b, rope=rope, n_samples=400, random_state=seed)
    s_ba = bayesian_signed_rank_test(b, a, rope=rope, n_samples=400, random_state=seed)
    np.testing.assert_allclose(s_ba.samples, s_ab.samples[:, ::-1], atol=1e-12)
    assert s_ba.probabilities == s_ab.probabilities[::-1]
