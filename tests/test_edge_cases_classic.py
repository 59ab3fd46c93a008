"""Edge cases of the classic tests: ties, certain groups, scale, clusters,
pandas indexes, hard labels, random states and error messages.

Every expected value is written out by hand here (Pearson's chi-square over
distinct values, the t statistic of rescaled scores, NumPy's ``linspace``
bins) or comes from scikit-learn; none from this library's earlier output.
"""

import time
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.calibration import calibration_curve
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

from sklearn_precision_stats.classic import (
    calibration_points,
    combined_ftest_5x2cv,
    corrected_repeated_kfold_ttest,
    corrected_resampled_ttest,
    delong_test,
    hosmer_lemeshow_test,
    mcnemar_test,
    paired_ttest_5x2cv,
    paired_ttest_kfold_cv,
    paired_ttest_resampled,
    sign_test,
    wilcoxon,
)
from sklearn_precision_stats.exceptions import UndefinedStatisticWarning
from sklearn_precision_stats.utils._random_state import check_random_state_any


def undefined_warnings(record):
    return [w for w in record if issubclass(w.category, UndefinedStatisticWarning)]


# ------------------------------------------------------------------------- ties


def calibrated_ties(n=1000, seed=0):
    rng = np.random.default_rng(seed)
    prob = rng.choice([0.1, 0.3, 0.5, 0.7, 0.9], n)
    y = (rng.random(n) < prob).astype(int)
    return y, prob


def test_hosmer_lemeshow_with_ties_does_not_depend_on_row_order():
    y, prob = calibrated_ties()
    # By hand: every distinct probability is its own group (the cuts fall
    # on distinct values), Pearson's chi-square over the 2 x 5 table.
    values = np.unique(prob)
    n = np.array([(prob == v).sum() for v in values])
    observed = np.array([y[prob == v].sum() for v in values])
    expected = n * values
    by_hand = np.sum((observed - expected) ** 2 / (expected * (1 - values)))
    reference = hosmer_lemeshow_test(y, prob)
    assert reference.n_groups == 5 and reference.df == 3
    assert reference.statistic == pytest.approx(by_hand, rel=1e-12)
    assert reference.pvalue == pytest.approx(stats.chi2.sf(by_hand, 3), rel=1e-12)
    points = calibration_points(y, prob)
    rng = np.random.default_rng(1)
    orders = [rng.permutation(y.size) for _ in range(50)]
    orders.append(np.argsort(y, kind="stable"))  # sorted by label
    orders.append(np.argsort(-y, kind="stable"))
    for order in orders:
        res = hosmer_lemeshow_test(y[order], prob[order])
        assert (res.statistic, res.pvalue, res.df) == (
            reference.statistic,
            reference.pvalue,
            reference.df,
        )
        pd.testing.assert_frame_equal(calibration_points(y[order], prob[order]), points)


def test_tied_runs_go_to_one_group_and_untied_data_keep_the_rank_groups():
    # 10 rows, 3 groups: ranks 0-2, 3-5, 6-9 without ties. A run of ties
    # over ranks 2-4 crosses the first cut and goes wholly to group 1.
    prob = np.array([0.1, 0.2, 0.3, 0.3, 0.3, 0.6, 0.7, 0.8, 0.9, 0.95])
    y = np.array([0, 0, 1, 0, 0, 1, 1, 0, 1, 1])
    points = calibration_points(y, prob, n_groups=3)
    assert points["n"].tolist() == [5, 1, 4]
    assert points["observed"].tolist() == [1, 1, 3]


def test_certain_groups_add_zero_or_make_the_statistic_infinite():
    rng = np.random.default_rng(2)
    middle = rng.uniform(0.2, 0.8, 160)
    prob = np.r_[np.zeros(40), middle]
    y = np.r_[np.zeros(40, dtype=int), (rng.random(160) < middle).astype(int)]
    res = hosmer_lemeshow_test(y, prob, n_groups=5)
    # The zero group adds 0: the statistic is the other four groups' sum.
    order = np.argsort(middle)
    groups = np.array_split(order, 4)
    by_hand = sum(
        (y[40:][g].sum() - middle[g].sum()) ** 2
        / (middle[g].sum() * (1 - middle[g].sum() / g.size))
        for g in groups
    )
    assert res.n_groups == 5 and res.statistic == pytest.approx(by_hand, rel=1e-12)
    y_bad = y.copy()
    y_bad[0] = 1  # an outcome the model called impossible
    res = hosmer_lemeshow_test(y_bad, prob, n_groups=5)
    assert res.statistic == np.inf and res.pvalue == 0.0
    # The same with probabilities of exactly 1.
    res = hosmer_lemeshow_test(1 - y, 1 - prob, n_groups=5)
    assert np.isfinite(res.statistic)
    res = hosmer_lemeshow_test(1 - y_bad, 1 - prob, n_groups=5)
    assert res.statistic == np.inf and res.pvalue == 0.0


# ---------------------------------------------------------------- scale of zero


def test_t_tests_check_variation_relative_to_the_scores_scale():
    rng = np.random.default_rng(3)
    a = 0.8 + 0.02 * rng.standard_normal(20)
    b = a - 0.01 + 0.01 * rng.standard_normal(20)
    for scale in (1e-14, 1e-100, 1e100):
        with warnings.catch_warnings():
            warnings.simplefilter("error", UndefinedStatisticWarning)
            tiny = corrected_resampled_ttest(a * scale, b * scale, n_train=90, n_test=10)
            kfold = corrected_repeated_kfold_ttest(a * scale, b * scale, n_splits=10)
        d = a - b
        t = d.mean() / np.sqrt(d.var(ddof=1) * (1 / 20 + 10 / 90))
        assert tiny.statistic == pytest.approx(t, rel=1e-9)
        t = d.mean() / np.sqrt(d.var(ddof=1) * (1 / 20 + 1 / 9))
        assert kfold.statistic == pytest.approx(t, rel=1e-9)
    # Constant differences that only rounding makes unequal do not vary.
    a = 1e6 + rng.random(20)
    with pytest.warns(UndefinedStatisticWarning, match="do not vary"):
        res = corrected_resampled_ttest(a, a - 0.1, n_train=90, n_test=10)
    assert np.isnan(res.statistic) and np.isnan(res.confidence_interval().low)


def test_5x2cv_tests_check_variation_relative_to_the_scores_scale():
    X, y = make_classification(200, 5, random_state=0)

    def tiny_accuracy(estimator, X, y):
        return 1e-14 * float(np.mean(estimator.predict(X) == y))

    def accuracy(estimator, X, y):
        return float(np.mean(estimator.predict(X) == y))

    lr = DecisionTreeClassifier(max_depth=2, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UndefinedStatisticWarning)
        small = paired_ttest_5x2cv(lr, GaussianNB(), X, y, scoring=tiny_accuracy, random_state=0)
        small_f = combined_ftest_5x2cv(
            lr, GaussianNB(), X, y, scoring=tiny_accuracy, random_state=0
        )
    plain = paired_ttest_5x2cv(lr, GaussianNB(), X, y, scoring=accuracy, random_state=0)
    plain_f = combined_ftest_5x2cv(lr, GaussianNB(), X, y, scoring=accuracy, random_state=0)
    assert small.statistic == pytest.approx(plain.statistic, rel=1e-9)
    assert small_f.statistic == pytest.approx(plain_f.statistic, rel=1e-9)


# ---------------------------------------------------------------- undefined CIs


def test_undefined_intervals_are_nan():
    y = [0, 1, 1, 0, 1]
    with pytest.warns(UndefinedStatisticWarning, match="no discordant rows"):
        res = mcnemar_test(y, [0, 1, 0, 0, 1], [0, 1, 0, 0, 1])
    assert np.isnan(res.statistic)
    assert all(np.isnan(res.confidence_interval()))
    y = np.array([0, 1, 0, 1, 1, 0, 1, 0])
    scores = np.array([0.1, 0.7, 0.3, 0.9, 0.4, 0.5, 0.8, 0.2])
    with pytest.warns(UndefinedStatisticWarning, match="variance of the AUC difference"):
        res = delong_test(y, scores, scores)
    assert np.isnan(res.statistic)
    assert all(np.isnan(res.confidence_interval()))


# --------------------------------------------------------------------- clusters


def test_clustered_mcnemar_with_one_cluster_is_nan_not_a_crash():
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        res = mcnemar_test([1, 0], [0, 0], [1, 1], groups=[0, 0])
    undefined = undefined_warnings(record)
    assert len(undefined) == 1 and "single record" in str(undefined[0].message)
    assert np.isnan(res.statistic) and np.isnan(res.pvalue)
    assert all(np.isnan(res.confidence_interval()))
    # More rows, still one cluster: not the statistic 1 it used to be.
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 50)
    with pytest.warns(UndefinedStatisticWarning, match="single record"):
        res = mcnemar_test(y, rng.integers(0, 2, 50), rng.integers(0, 2, 50), groups=np.zeros(50))
    assert np.isnan(res.statistic)


def test_clustered_mcnemar_with_cancelling_records_is_nan():
    # Each record has one row won by a and one by b: zero clustered variance.
    y = [1, 0, 1, 0]
    a = [0, 0, 0, 0]
    b = [1, 1, 1, 1]
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        res = mcnemar_test(y, a, b, groups=[0, 0, 1, 1])
    undefined = undefined_warnings(record)
    assert len(undefined) == 1 and "cancel within every record" in str(undefined[0].message)
    assert any("only 2 records" in str(w.message) for w in record)
    assert np.isnan(res.pvalue)


def test_clustered_mcnemar_warns_with_few_clusters():
    rng = np.random.default_rng(5)
    for n_records, warned in ((10, True), (29, True), (30, False)):
        groups = np.repeat(np.arange(n_records), 5)
        y = rng.integers(0, 2, groups.size)
        a = np.where(rng.random(groups.size) < 0.8, y, 1 - y)
        b = np.where(rng.random(groups.size) < 0.6, y, 1 - y)
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            mcnemar_test(y, a, b, groups=groups)
        messages = [str(w.message) for w in record if w.category is UserWarning]
        assert bool(messages) == warned
        if warned:
            assert f"only {n_records} records" in messages[0]


# --------------------------------------------------------------- pandas indexes


def shuffled_series(values, seed=0):
    index = np.random.default_rng(seed).permutation(len(values))
    return pd.Series(np.asarray(values)[index], index=index)


@pytest.mark.parametrize(
    "call, names",
    [
        (lambda y, s, p: mcnemar_test(y, p, p[::-1].to_numpy()), ("y_true", "y_pred_a")),
        (lambda y, s, p: sign_test(y, y.to_numpy(), p), ("y_true", "y_pred_b")),
        (lambda y, s, p: delong_test(y, s, s.to_numpy() ** 2), ("y_true", "scores_a")),
        (lambda y, s, p: hosmer_lemeshow_test(y, s, n_groups=3), ("y_true", "y_prob")),
        (lambda y, s, p: calibration_points(y, s, n_groups=3), ("y_true", "y_prob")),
        (
            lambda y, s, p: corrected_resampled_ttest(s.sort_index(), s, n_train=9, n_test=1),
            ("scores_a", "scores_b"),
        ),
        (
            lambda y, s, p: corrected_repeated_kfold_ttest(s.sort_index(), s, n_splits=2),
            ("scores_a", "scores_b"),
        ),
        (lambda y, s, p: wilcoxon(s.sort_index(), s), ("scores_a", "scores_b")),
    ],
)
def test_pandas_inputs_with_different_indexes_are_an_error(call, names):
    rng = np.random.default_rng(6)
    y = pd.Series(rng.integers(0, 2, 40))
    y.iloc[:2] = [0, 1]
    scores = shuffled_series(rng.random(40))
    preds = shuffled_series(rng.integers(0, 2, 40), seed=1)
    with pytest.raises(ValueError, match="different indexes") as info:
        call(y, scores, preds)
    for name in names:
        assert name in str(info.value)


def test_pandas_inputs_with_the_same_index_are_accepted():
    rng = np.random.default_rng(7)
    index = rng.permutation(60) + 1000
    y = pd.Series(rng.integers(0, 2, 60), index=index)
    a = pd.Series(np.where(rng.random(60) < 0.8, y, 1 - y), index=index)
    b = pd.Series(np.where(rng.random(60) < 0.6, y, 1 - y), index=index)
    assert mcnemar_test(y, a, b).pvalue == mcnemar_test(y.values, a.values, b.values).pvalue
    scores = pd.Series(y + rng.random(60), index=index)
    other = rng.random(60)
    assert (
        delong_test(y, scores, other).statistic
        == delong_test(y.values, scores.values, other).statistic
    )


def test_refit_t_tests_reject_misaligned_x_and_y_before_fitting():
    X, y = make_classification(60, 5, random_state=0)
    X = pd.DataFrame(X)
    y = shuffled_series(y)
    with pytest.raises(ValueError, match="X and y are pandas objects with different indexes"):
        paired_ttest_kfold_cv(LogisticRegression(), GaussianNB(), X, y, cv=3)


# ------------------------------------------------------------- scores vs labels


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda y, s: delong_test(y, y.copy(), s), "scores_a"),
        (lambda y, s: delong_test(y, s, y.astype(float)), "scores_b"),
        (lambda y, s: hosmer_lemeshow_test(y, y.astype(float)), "y_prob"),
        (lambda y, s: calibration_points(y, y), "y_prob"),
        (lambda y, s: delong_test(2 * y - 1, s, 2 * y - 1), "scores_b"),
    ],
)
def test_hard_labels_as_scores_are_an_error(call, name):
    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, 50)
    scores = rng.random(50)
    with pytest.raises(ValueError, match=r"predict_proba\(X\)\[:, 1\]") as info:
        call(y, scores)
    assert name in str(info.value) and "hard predictions" in str(info.value)


def test_float_labels_0_1_are_accepted_as_in_scikit_learn():
    rng = np.random.default_rng(9)
    y = rng.integers(0, 2, 200)
    prob = np.clip(0.3 + 0.4 * y + 0.2 * rng.standard_normal(200), 0.01, 0.99)
    other = rng.random(200)
    assert delong_test(y.astype(float), prob, other).statistic == pytest.approx(
        delong_test(y, prob, other).statistic, rel=1e-15
    )
    assert hosmer_lemeshow_test(y.astype(float), prob).statistic == pytest.approx(
        hosmer_lemeshow_test(y, prob).statistic, rel=1e-15
    )
    assert calibration_points(y.astype(bool), prob).equals(calibration_points(y, prob))


@pytest.mark.parametrize(
    "call",
    [
        lambda: delong_test([], [], []),
        lambda: hosmer_lemeshow_test([], []),
        lambda: calibration_points([], []),
        lambda: mcnemar_test([], [], []),
    ],
)
def test_empty_input_says_it_is_empty(call):
    with pytest.raises(ValueError, match="y_true is empty") as info:
        call()
    assert "pos_label" not in str(info.value)


def test_uniform_bins_scale_with_the_records_not_the_bins():
    rng = np.random.default_rng(10)
    prob = rng.random(300)
    prob[:4] = [0.0, 1.0, 0.5, 0.25]
    y = (rng.random(300) < prob).astype(int)
    for n_bins in (7, 10, 1000, 10**5):
        prob_true, prob_pred = calibration_curve(y, prob, n_bins=n_bins, strategy="uniform")
        points = calibration_points(y, prob, n_groups=n_bins, strategy="uniform")
        np.testing.assert_allclose(points["prob_true"], prob_true, rtol=1e-12)
        np.testing.assert_allclose(points["prob_pred"], prob_pred, rtol=1e-12)
    start = time.perf_counter()
    points = calibration_points(y, prob, n_groups=10**9, strategy="uniform")
    res = hosmer_lemeshow_test(y, prob, n_groups=10**12, strategy="uniform")
    assert time.perf_counter() - start < 2.0
    # 300 distinct probabilities in 10^9 bins: one bin each.
    assert points.shape[0] == 300 and res.n_groups == 300


# ----------------------------------------------------------------- random_state


@pytest.mark.parametrize("bad", [-1, 1.5, "0", True, [0], 2**40])
def test_bad_random_state_is_a_clear_error(bad):
    X, y = make_classification(40, 5, random_state=0)
    for function in (paired_ttest_5x2cv, combined_ftest_5x2cv, paired_ttest_resampled):
        with pytest.raises(ValueError, match="random_state must be") as info:
            function(LogisticRegression(), GaussianNB(), X, y, random_state=bad)
        assert "Generator" in str(info.value)


def test_random_state_accepts_generators_and_random_states():
    X, y = make_classification(80, 5, random_state=0)
    lr = DecisionTreeClassifier(max_depth=2, random_state=0)
    first = paired_ttest_5x2cv(lr, GaussianNB(), X, y, random_state=np.random.default_rng(3))
    again = paired_ttest_5x2cv(lr, GaussianNB(), X, y, random_state=np.random.default_rng(3))
    assert first.statistic == again.statistic
    seeded = paired_ttest_5x2cv(lr, GaussianNB(), X, y, random_state=np.random.RandomState(3))
    assert np.isfinite(seeded.statistic)
    # Ints keep scikit-learn's meaning: the same splits as cv seeded with it.
    from sklearn.model_selection import RepeatedStratifiedKFold

    cv = RepeatedStratifiedKFold(n_splits=2, n_repeats=5, random_state=4)
    assert (
        paired_ttest_5x2cv(lr, GaussianNB(), X, y, random_state=4).statistic
        == paired_ttest_5x2cv(lr, GaussianNB(), X, y, cv=cv).statistic
    )


def test_check_random_state_any_rules():
    gen = np.random.default_rng(0)
    assert check_random_state_any(gen) is gen
    a = check_random_state_any(5).random(3)
    assert np.array_equal(a, np.random.default_rng(5).random(3))
    # A RandomState is consumed: the same seed repeats, the next call differs.
    rs = np.random.RandomState(1)
    first = check_random_state_any(rs).random(3)
    second = check_random_state_any(rs).random(3)
    assert not np.array_equal(first, second)
    assert np.array_equal(first, check_random_state_any(np.random.RandomState(1)).random(3))
    # None draws from NumPy's global state, so np.random.seed repeats a run.
    saved = np.random.get_state()  # noqa: NPY002 (the global state is the subject)
    try:
        np.random.seed(2)  # noqa: NPY002
        first = check_random_state_any(None).random(3)
        np.random.seed(2)  # noqa: NPY002
        assert np.array_equal(first, check_random_state_any(None).random(3))
    finally:
        np.random.set_state(saved)  # noqa: NPY002
    for bad in (-1, 1.5, "0", None.__class__, np.float64(1.0)):
        with pytest.raises(ValueError, match="seed must be None, an int >= 0"):
            check_random_state_any(bad, name="seed")


# --------------------------------------------------------------------- messages


@pytest.mark.parametrize(
    "call, name, fix",
    [
        (
            lambda: mcnemar_test(np.array([[0, 1, 1, 0]]), [0, 1, 0, 0], [1, 1, 0, 0]),
            "y_true",
            r"np\.ravel\(y_true\)",
        ),
        (
            lambda: mcnemar_test([0, 1, 1, 0], np.array([[0, 1, 0, 0]]), [1, 1, 0, 0]),
            "y_pred_a",
            r"np\.ravel\(y_pred_a\)",
        ),
        (
            lambda: delong_test([0, 1, 0, 1], np.array([[0.1, 0.8, 0.3, 0.9]]), [0.2] * 4),
            "scores_a",
            r"np\.ravel\(scores_a\)",
        ),
        (
            lambda: hosmer_lemeshow_test([0, 1, 0, 1], np.array([[0.1, 0.8, 0.3, 0.9]])),
            "y_prob",
            r"np\.ravel\(y_prob\)",
        ),
        (
            lambda: mcnemar_test([(0, 1), (1, 0)], [0, 1], [1, 1]),
            "y_true",
            "holds sequences",
        ),
        (
            lambda: sign_test([0, 1], [(0, 1), (1, 0)], [1, 1]),
            "y_pred_a",
            "holds sequences",
        ),
        (
            lambda: delong_test(np.eye(4, 2), [0.1, 0.8, 0.3, 0.9], [0.2] * 4),
            "y_true",
            r"argmax\(axis=1\)",
        ),
        (
            lambda: delong_test([0, 1, 0, 1], np.ones((4, 2)) / 2, [0.2] * 4),
            "scores_a",
            r"predict_proba\(X\)\[:, 1\]",
        ),
        (
            lambda: mcnemar_test([0, 1, 1], [0, 1, 0], [1, 1, 0], groups=[0.0, np.nan, 1.0]),
            "groups",
            "id of the record",
        ),
        (
            lambda: corrected_resampled_ttest([0.8, np.nan], [0.7, 0.6], n_train=9, n_test=1),
            "scores_a",
            "finite score",
        ),
        (
            lambda: mcnemar_test([0, 1, 1], [0.2, 0.7, 0.9], [0, 1, 1]),
            "y_true, y_pred_a and y_pred_b",
            r"estimator\.predict\(X\)",
        ),
    ],
)
def test_messages_name_the_argument_and_the_fix(call, name, fix):
    with pytest.raises(ValueError, match=fix) as info:
        call()
    message = str(info.value)
    assert message.startswith(name) and "probabilities" not in message.split(";")[0]
