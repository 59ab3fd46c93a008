"""Friedman, Iman-Davenport and the post-hoc tests over data sets.

Checked against scipy.stats.friedmanchisquare, Demsar's (2006) formulas and
critical values, scikit-posthocs and autorank, by brute force for Shaffer's
sets, and by simulation under the null hypothesis. Also the ANOVA-then-
post-hoc option of corrected_rm_anova, and the critical-difference diagram.
"""

import dataclasses
import functools
import itertools
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from sklearn_precision_stats.classic import (
    corrected_repeated_kfold_ttest,
    corrected_resampled_ttest,
    corrected_rm_anova,
)
from sklearn_precision_stats.exceptions import UndefinedStatisticWarning
from sklearn_precision_stats.several_datasets import (
    FriedmanResult,
    PosthocResult,
    friedman_test,
    posthoc_test,
)
from sklearn_precision_stats.several_datasets._friedman import _friedman_statistics
from sklearn_precision_stats.several_datasets._posthoc import (
    _nemenyi_pvalues,
    _shaffer_multipliers,
    _shaffer_true_counts,
)

RTOL = 1e-9


def _table(seed, n=15, k=5, ties=False):
    rng = np.random.default_rng(seed)
    if ties:
        # Scores on a coarse grid: many ties within data sets.
        return rng.integers(0, 4, size=(n, k)) / 10.0 + 0.5
    return rng.random((n, k)) * 0.1 + np.linspace(0.05, 0.0, k) + 0.7


TABLES = [
    pytest.param(_table(0), id="continuous"),
    pytest.param(_table(1, ties=True), id="ties"),
    pytest.param(_table(2, n=8, k=3), id="small"),
    pytest.param(_table(3, n=30, k=8, ties=True), id="k8-ties"),
]


# ------------------------------------------------------------- Friedman


@pytest.mark.parametrize("scores", TABLES)
def test_friedman_matches_scipy(scores):
    res = friedman_test(scores)
    ref = stats.friedmanchisquare(*scores.T)
    assert res.statistic == pytest.approx(ref.statistic, rel=RTOL)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=RTOL)
    assert res.df == scores.shape[1] - 1


@pytest.mark.parametrize("scores", TABLES)
def test_iman_davenport_and_demsar_formula_by_hand(scores):
    n, k = scores.shape
    ranks = stats.rankdata(-scores, axis=1)
    mean_ranks = ranks.mean(axis=0)
    # Demsar (2006), eq. (1), without the tie correction.
    chi2 = 12 * n / (k * (k + 1)) * (np.sum(mean_ranks**2) - k * (k + 1) ** 2 / 4)
    res = friedman_test(scores, tie_correction=False)
    assert res.statistic == pytest.approx(chi2, rel=RTOL)
    f_stat = (n - 1) * chi2 / (n * (k - 1) - chi2)
    assert res.iman_davenport_statistic == pytest.approx(f_stat, rel=RTOL)
    assert res.iman_davenport_df == (k - 1, (k - 1) * (n - 1))
    assert res.iman_davenport_pvalue == pytest.approx(
        stats.f.sf(f_stat, k - 1, (k - 1) * (n - 1)), rel=RTOL
    )
    # The default F is built on the tie-corrected chi-square.
    corrected = friedman_test(scores)
    chi2_c = corrected.statistic
    assert corrected.iman_davenport_statistic == pytest.approx(
        (n - 1) * chi2_c / (n * (k - 1) - chi2_c), rel=RTOL
    )
    np.testing.assert_allclose(corrected.average_ranks.to_numpy(), mean_ranks, rtol=RTOL)


def test_ties_get_average_ranks_and_lower_is_better():
    scores = np.array([[0.9, 0.9, 0.8], [0.7, 0.8, 0.8], [0.6, 0.5, 0.6]])
    res = friedman_test(scores)
    np.testing.assert_allclose(res.ranks.to_numpy(), [[1.5, 1.5, 3], [3, 1.5, 1.5], [1.5, 3, 1.5]])
    errors = 1.0 - scores
    low = friedman_test(errors, lower_is_better=True)
    np.testing.assert_allclose(low.average_ranks, res.average_ranks, rtol=RTOL)
    assert low.statistic == pytest.approx(res.statistic, rel=RTOL)
    # Treated as higher-is-better, the errors reverse the ranking.
    np.testing.assert_allclose(
        friedman_test(errors).average_ranks.to_numpy(), 4 - res.average_ranks.to_numpy()
    )


def test_dataframe_names_and_result_conventions():
    frame = pd.DataFrame(_table(4, n=6, k=3), columns=["rf", "svm", "nb"])
    frame.index = [f"data{i}" for i in range(6)]
    res = friedman_test(frame)
    assert isinstance(res, FriedmanResult)
    assert list(res.average_ranks.index) == ["rf", "svm", "nb"]
    assert list(res.ranks.index) == list(frame.index)
    stat, p = res
    assert (stat, p) == (res.statistic, res.pvalue)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.statistic = 0.0
    assert repr(res).startswith("FriedmanResult(statistic=")
    assert "<table>" in res._repr_html_()


def test_degenerate_tables():
    with pytest.warns(UndefinedStatisticWarning, match="ties every classifier"):
        res = friedman_test(np.ones((5, 3)))
    assert math.isnan(res.statistic) and math.isnan(res.pvalue)
    # The same order on every data set: chi2 at its maximum N (k - 1).
    same = np.tile([0.9, 0.8, 0.7], (6, 1)) + np.arange(6)[:, None] * 0.01
    res = friedman_test(same)
    assert res.statistic == pytest.approx(6 * 2, rel=RTOL)
    assert res.iman_davenport_statistic == math.inf
    assert res.iman_davenport_pvalue == 0.0


@pytest.mark.parametrize(
    "scores, match",
    [
        (np.ones(5), "2-D"),
        (np.ones((5, 1)), "at least 2 rows"),
        (np.array([[0.1, np.nan], [0.2, 0.3]]), "missing or infinite value in row 0"),
        (pd.DataFrame([[1.0, 2.0], [3.0, 4.0]], columns=["a", "a"]), "unique"),
        (np.array([["a", "b"], ["c", "d"]]), "numbers"),
    ],
)
def test_friedman_input_errors(scores, match):
    with pytest.raises(ValueError, match=match):
        friedman_test(scores)


# ------------------------------------------------------------- post-hoc


@pytest.mark.parametrize("scores", TABLES)
def test_nemenyi_matches_scikit_posthocs(scores):
    sp = pytest.importorskip("scikit_posthocs")
    ref = sp.posthoc_nemenyi_friedman(scores)
    res = posthoc_test(scores, method="nemenyi")
    np.testing.assert_allclose(res.pvalue.to_numpy(), ref.to_numpy(), rtol=RTOL, atol=1e-15)


@pytest.mark.parametrize("scores", TABLES)
@pytest.mark.parametrize("method, p_adjust", [("holm", "holm"), ("bonferroni-dunn", "bonferroni")])
def test_all_pairs_adjustments_match_scikit_posthocs(scores, method, p_adjust):
    sp = pytest.importorskip("scikit_posthocs")
    # Siegel and Castellan's all-pairs test is the normal test of z.
    ref = sp.posthoc_siegel_friedman(scores, p_adjust=p_adjust)
    res = posthoc_test(scores, method=method)
    np.testing.assert_allclose(res.pvalue.to_numpy(), ref.to_numpy(), rtol=RTOL, atol=1e-15)
    raw = sp.posthoc_siegel_friedman(scores)
    np.testing.assert_allclose(res.unadjusted_pvalue.to_numpy(), raw.to_numpy(), rtol=RTOL)


@pytest.mark.parametrize("scores", TABLES)
@pytest.mark.parametrize(
    "method, p_adjust",
    [("holm", "holm"), ("bonferroni-dunn", "bonferroni"), ("shaffer", "holm")],
)
def test_control_matches_scikit_posthocs_demsar(scores, method, p_adjust):
    sp = pytest.importorskip("scikit_posthocs")
    k = scores.shape[1]
    ref = sp.posthoc_demsar(scores, control=1, p_adjust=p_adjust)
    res = posthoc_test(scores, method=method, control=1)
    np.testing.assert_allclose(
        res.pvalue.to_numpy(), ref.to_numpy(dtype=float), rtol=RTOL, equal_nan=True
    )
    assert np.isnan(res.pvalue.to_numpy()).sum() == (k - 1) * (k - 2)
    assert res.groups == ()


@pytest.mark.parametrize("scores", TABLES)
def test_autorank_ranks_pvalue_and_critical_difference(scores):
    autorank = pytest.importorskip("autorank")
    from autorank._util import get_sorted_rank_groups

    frame = pd.DataFrame(scores, columns=[f"c{j}" for j in range(scores.shape[1])])
    if frame.shape[0] < 5:
        pytest.skip("autorank needs at least 5 data sets")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = autorank.autorank(
            frame, alpha=0.05, order="descending", force_mode="nonparametric", verbose=False
        )
    res = posthoc_test(frame, method="nemenyi")
    np.testing.assert_allclose(
        res.average_ranks[ref.rankdf.index].to_numpy(),
        ref.rankdf["meanrank"].to_numpy(dtype=float),
        rtol=RTOL,
    )
    assert res.friedman.pvalue == pytest.approx(ref.pvalue, rel=RTOL)
    # autorank takes the studentized range quantile from statsmodels'
    # qsturng, an interpolated table good to about 1e-5; ours is SciPy's
    # exact quantile.
    assert res.critical_difference == pytest.approx(ref.cd, rel=1e-4)
    # autorank's grouping of the CD diagram, with our critical difference.
    patched = ref._replace(cd=res.critical_difference)
    ranks, names, groups = get_sorted_rank_groups(patched, reverse=True)
    # Classifiers with equal average ranks may come in either order.
    expected = [frozenset(names[i : j + 1]) for i, j in groups]
    assert [frozenset(group) for group in res.groups] == expected


# Demsar (2006), Table 5a: Nemenyi's critical values q_alpha, k = 2..10.
DEMSAR_NEMENYI = {
    0.05: [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164],
    0.10: [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920],
}


@pytest.mark.parametrize("alpha", [0.05, 0.10])
def test_critical_differences_reproduce_demsar_table_5(alpha):
    # The table prints three decimals.
    n = 14
    for k in range(2, 11):
        scores = _table(k, n=n, k=k)
        se = math.sqrt(k * (k + 1) / (6 * n))
        nem = posthoc_test(scores, method="nemenyi", alpha=alpha)
        assert nem.critical_difference / se == pytest.approx(DEMSAR_NEMENYI[alpha][k - 2], abs=1e-3)
        bd = posthoc_test(scores, method="bonferroni-dunn", control=0, alpha=alpha)
        # Bonferroni-Dunn: the normal quantile at alpha / (2 (k - 1)).
        assert bd.critical_difference / se == pytest.approx(
            stats.norm.isf(alpha / (2 * (k - 1))), rel=RTOL
        )


def test_nemenyi_pvalue_is_alpha_at_the_critical_difference():
    scores = _table(5, n=20, k=6)
    res = posthoc_test(scores, alpha=0.05)
    z_cd = res.critical_difference / math.sqrt(6 * 7 / (6 * 20))
    assert _nemenyi_pvalues(z_cd, 6) == pytest.approx(0.05, rel=1e-9)


def _set_partitions(items):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for partition in _set_partitions(rest):
        yield [[first], *partition]
        for i in range(len(partition)):
            yield [*partition[:i], [first, *partition[i]], *partition[i + 1 :]]


@pytest.mark.parametrize("k", range(2, 8))
def test_shaffer_sets_by_brute_force(k):
    # A set of true all-pairs hypotheses is the within-block pairs of a
    # partition of the classifiers: enumerate every partition.
    counts = {
        sum(len(b) * (len(b) - 1) // 2 for b in partition)
        for partition in _set_partitions(list(range(k)))
    }
    assert _shaffer_true_counts(k) == tuple(sorted(counts))


def test_shaffer_multipliers_published_values():
    # Shaffer (1986); Garcia and Herrera (2008), section 3.2.
    assert _shaffer_true_counts(4) == (0, 1, 2, 3, 6)
    np.testing.assert_array_equal(_shaffer_multipliers(3), [3, 1, 1])
    np.testing.assert_array_equal(_shaffer_multipliers(4), [6, 3, 3, 3, 2, 1])
    np.testing.assert_array_equal(_shaffer_multipliers(5), [10, 6, 6, 6, 6, 4, 4, 3, 2, 1])


@pytest.mark.parametrize("scores", TABLES)
def test_shaffer_by_hand_and_between_raw_and_holm(scores):
    k = scores.shape[1]
    res = posthoc_test(scores, method="shaffer")
    holm = posthoc_test(scores, method="holm")
    iu = np.triu_indices(k, 1)
    raw = res.unadjusted_pvalue.to_numpy()[iu]
    order = np.argsort(raw, kind="stable")
    t = _shaffer_multipliers(k)
    expected_sorted = np.maximum.accumulate(np.minimum(1, t * raw[order]))
    got = res.pvalue.to_numpy()[iu][order]
    np.testing.assert_allclose(got, expected_sorted, rtol=RTOL)
    assert np.all(got >= raw[order] - 1e-15)
    assert np.all(res.pvalue.to_numpy() <= holm.pvalue.to_numpy() + 1e-15)


def test_groups_are_maximal_runs_without_significant_pairs():
    for seed in range(20):
        scores = _table(seed, n=12, k=6) + np.linspace(0, 0.08, 6)[::-1] * (seed % 3)
        for method in ("nemenyi", "holm", "shaffer", "bonferroni-dunn"):
            res = posthoc_test(scores, method=method)
            order = list(res.average_ranks.sort_values(kind="stable").index)
            sig = res.significant
            for group in res.groups:
                idx = [order.index(g) for g in group]
                assert idx == list(range(idx[0], idx[-1] + 1))
                assert not sig.loc[list(group), list(group)].to_numpy().any()
                # Maximal: extending either end adds a significant pair.
                for extra in (idx[0] - 1, idx[-1] + 1):
                    if 0 <= extra < len(order):
                        bigger = [*group, order[extra]]
                        assert sig.loc[bigger, bigger].to_numpy().any()


def test_posthoc_result_summary_and_conventions():
    frame = pd.DataFrame(
        {
            "rf": [0.91, 0.85, 0.78, 0.95, 0.88, 0.82, 0.90, 0.87],
            "svm": [0.90, 0.86, 0.75, 0.93, 0.87, 0.80, 0.91, 0.84],
            "knn": [0.86, 0.83, 0.77, 0.91, 0.86, 0.81, 0.88, 0.85],
            "nb": [0.84, 0.80, 0.74, 0.90, 0.85, 0.79, 0.86, 0.83],
        }
    )
    res = posthoc_test(frame, method="holm")
    assert isinstance(res, PosthocResult)
    z, p = res
    assert list(z.columns) == ["rf", "svm", "knn", "nb"]
    se = math.sqrt(4 * 5 / (6 * 8))
    assert z.loc["rf", "nb"] == pytest.approx((1.25 - 4.0) / se, rel=RTOL)
    assert p.loc["rf", "nb"] == p.loc["nb", "rf"]
    np.testing.assert_array_equal(np.diag(p.to_numpy()), 1.0)
    assert math.isnan(res.critical_difference)
    text = res.summary()
    assert "Holm, all pairs" in text
    assert "  rf, svm, knn\n  knn, nb" in text
    assert "rf better than nb" in text
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.method = "nemenyi"
    assert repr(res).startswith("PosthocResult(method='holm'")
    control = posthoc_test(frame, method="holm", control="nb")
    assert "Not significantly different from 'nb': (none)" in control.summary()


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"method": "tukey"}, "method"),
        ({"control": "zz"}, "control='zz' is not one of"),
        ({"method": "nemenyi", "control": 0}, "bonferroni-dunn"),
        ({"alpha": 1.5}, "alpha"),
    ],
)
def test_posthoc_input_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        posthoc_test(_table(0), **kwargs)


# ------------------------------------------------- validity under the null


def test_friedman_and_nemenyi_hold_their_size_under_the_null():
    # 20 data sets, 5 classifiers with the same expected rank: each data
    # set's ranking is a uniformly random permutation.
    n_sim, n, k, alpha = 4000, 20, 5, 0.05
    rng = np.random.default_rng(20240611)
    ranks = rng.random((n_sim, n, k)).argsort(axis=-1).argsort(axis=-1) + 1.0
    chi2, f_stat = _friedman_statistics(ranks)
    friedman_rate = np.mean(stats.chi2.sf(chi2, k - 1) < alpha)
    iman_rate = np.mean(stats.f.sf(f_stat, k - 1, (k - 1) * (n - 1)) < alpha)
    mean_ranks = ranks.mean(axis=1)
    z = (mean_ranks[:, :, None] - mean_ranks[:, None, :]) / math.sqrt(k * (k + 1) / (6 * n))
    iu = np.triu_indices(k, 1)
    nemenyi_fwer = np.mean((_nemenyi_pvalues(z[:, iu[0], iu[1]], k) < alpha).any(axis=1))
    assert 0.03 <= friedman_rate <= 0.07, friedman_rate
    assert 0.03 <= iman_rate <= 0.07, iman_rate
    assert 0.03 <= nemenyi_fwer <= 0.07, nemenyi_fwer
    # The vectorised core is what the public functions compute.
    for s in range(3):
        table = -ranks[s]  # higher score = better rank
        res = posthoc_test(table)
        assert res.friedman.statistic == pytest.approx(chi2[s], rel=RTOL)
        assert res.friedman.iman_davenport_statistic == pytest.approx(f_stat[s], rel=RTOL)
        np.testing.assert_allclose(
            res.pvalue.to_numpy()[iu], _nemenyi_pvalues(z[s][iu], k), rtol=RTOL
        )


# ----------------------------------------------- ANOVA, then post-hoc tests


def test_rm_anova_posthoc_is_holm_adjusted_corrected_t_tests():
    rng = np.random.default_rng(7)
    split_effect = 0.03 * rng.standard_normal((30, 1))
    scores = 0.8 + np.array([0.0, 0.01, 0.02, 0.02]) + split_effect
    frame = pd.DataFrame(scores + 0.01 * rng.standard_normal((30, 4)), columns=list("wxyz"))
    res = corrected_rm_anova(frame, n_train=90, n_test=10, posthoc=True)
    assert corrected_rm_anova(frame, n_train=90, n_test=10).posthoc is None
    table = res.posthoc
    assert list(zip(table.model_a, table.model_b, strict=True)) == list(
        itertools.combinations("wxyz", 2)
    )
    raw = []
    for row in table.itertuples():
        ref = corrected_resampled_ttest(
            frame[row.model_a], frame[row.model_b], n_train=90, n_test=10
        )
        assert row.statistic == pytest.approx(ref.statistic, rel=RTOL)
        assert row.pvalue == pytest.approx(ref.pvalue, rel=RTOL)
        assert row.difference == pytest.approx(ref.difference, rel=RTOL)
        raw.append(ref.pvalue)
    # Holm by hand.
    raw = np.array(raw)
    order = np.argsort(raw)
    holm = np.maximum.accumulate(np.minimum(1, (raw.size - np.arange(raw.size)) * raw[order]))
    np.testing.assert_allclose(table.pvalue_holm.to_numpy()[order], holm, rtol=RTOL)
    # Another pairwise test as a callable.
    kfold = functools.partial(corrected_repeated_kfold_ttest, n_splits=10)
    other = corrected_rm_anova(frame.to_numpy(), n_train=90, n_test=10, posthoc=kfold)
    assert list(other.posthoc.model_a[:3]) == [0, 0, 0]
    ref = corrected_repeated_kfold_ttest(frame["w"], frame["x"], n_splits=10)
    assert other.posthoc.pvalue[0] == pytest.approx(ref.pvalue, rel=RTOL)
    with pytest.raises(ValueError, match="posthoc must be True, False or a callable"):
        corrected_rm_anova(frame, n_train=90, n_test=10, posthoc="holm")


# ------------------------------------------------------------------ plots


def test_critical_difference_diagram_renders(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.image as mpimg
    import matplotlib.pyplot as plt

    from sklearn_precision_stats.plotting import plot_critical_difference

    frame = pd.DataFrame(
        _table(11, n=10, k=5) + np.array([0.06, 0.04, 0.03, 0.0, -0.02]),
        columns=["forest", "svm", "knn", "bayes", "tree"],
    )
    try:
        for kwargs in ({"method": "nemenyi"}, {"method": "bonferroni-dunn", "control": "svm"}):
            res = posthoc_test(frame, **kwargs)
            ax = plot_critical_difference(res)
            texts = [t.get_text() for t in ax.texts]
            assert any(t.startswith("CD = ") for t in texts)
            assert any("forest" in t for t in texts)
            path = tmp_path / "cd.png"
            ax.figure.savefig(path)
            img = mpimg.imread(path)
            assert img.shape[0] > 100 and img.shape[1] > 300
            ink = (img[..., :3].mean(axis=-1) < 0.5).mean()
            assert 0.005 < ink < 0.3
        # Holm has no critical difference: bars but no CD label.
        fig, ax = plt.subplots()
        assert plot_critical_difference(posthoc_test(frame, method="holm"), ax=ax) is ax
        assert not any(t.get_text().startswith("CD") for t in ax.texts)
        with pytest.raises(ValueError, match="PosthocResult"):
            plot_critical_difference(friedman_test(frame))
    finally:
        plt.close("all")


def test_posthoc_lower_is_better_ranks_errors():
    scores = _table(12, n=10, k=4)
    for method in ("nemenyi", "shaffer"):
        res = posthoc_test(scores, method=method)
        errors = posthoc_test(1.0 - scores, method=method, lower_is_better=True)
        np.testing.assert_allclose(errors.pvalue, res.pvalue, rtol=RTOL)
        np.testing.assert_allclose(errors.average_ranks, res.average_ranks, rtol=RTOL)
        assert errors.groups == res.groups
