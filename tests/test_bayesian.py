"""The Bayesian correlated t and signed-rank tests.

Checked against baycomp (the correlated t test to 1e-9; the signed-rank
test draw for draw with the same seed, and within Monte Carlo error with
other seeds), against the corrected resampled t test, and for calibration
on simulated repeated cross-validation.
"""

import dataclasses
import math

import numpy as np
import pytest
from scipy import stats

from sklearn_precision_stats.bayesian import (
    BayesianCorrelatedTTestResult,
    BayesianSignedRankResult,
    bayesian_correlated_ttest,
    bayesian_signed_rank_test,
)
from sklearn_precision_stats.bayesian._correlated_ttest import (
    _region_probabilities,
    _student_posterior,
)
from sklearn_precision_stats.classic import corrected_resampled_ttest

RTOL = 1e-9


def _cv_scores(seed, n_repeats=10, n_splits=10, shift=0.01):
    rng = np.random.default_rng(seed)
    n = n_repeats * n_splits
    b = 0.80 + 0.02 * rng.standard_normal(n)
    a = b + shift + 0.015 * rng.standard_normal(n) + 0.01 * rng.standard_normal()
    return a, b


# --------------------------------------------------------- correlated t


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("rope", [0.0, 0.005, 0.01, 0.05])
@pytest.mark.parametrize("n_repeats, n_splits", [(1, 10), (10, 10), (5, 5)])
def test_correlated_ttest_matches_baycomp(seed, rope, n_repeats, n_splits):
    baycomp = pytest.importorskip("baycomp")
    a, b = _cv_scores(seed, n_repeats, n_splits, shift=0.004 * seed)
    # k-fold: n_test / n_train = 1 / (k - 1); baycomp's difference is y - x.
    res = bayesian_correlated_ttest(a, b, n_train=n_splits - 1, n_test=1, rope=rope)
    ref = baycomp.two_on_single(b, a, rope, runs=n_repeats)
    if rope == 0:
        assert res.p_rope == 0.0
        ref = (ref[0], 0.0, ref[1])
    np.testing.assert_allclose(res.probabilities, ref, rtol=RTOL, atol=1e-15)
    mean, var, df = baycomp.CorrelatedTTest.compute_statistics(b, a, n_repeats)
    assert res.mean == pytest.approx(mean, rel=RTOL)
    assert res.scale == pytest.approx(math.sqrt(var), rel=RTOL)
    assert res.df == df


def test_correlated_ttest_agrees_with_corrected_resampled_ttest():
    a, b = _cv_scores(5, shift=0.003)
    res = bayesian_correlated_ttest(a, b, n_train=900, n_test=100, rope=0.0)
    freq = corrected_resampled_ttest(a, b, n_train=900, n_test=100, alternative="greater")
    # Flat prior: P(mu > 0 | data) is one minus the one-sided p-value.
    assert res.p_right == pytest.approx(1.0 - freq.pvalue, rel=RTOL)
    assert res.scale == pytest.approx(freq.standard_error, rel=RTOL)
    two_sided = corrected_resampled_ttest(a, b, n_train=900, n_test=100)
    np.testing.assert_allclose(
        res.credible_interval(0.9), two_sided.confidence_interval(0.9), rtol=RTOL
    )
    assert res.posterior().cdf(0.0) == pytest.approx(res.p_left, rel=RTOL)


def test_correlated_ttest_degenerate_posterior_is_a_point_mass():
    baycomp = pytest.importorskip("baycomp")
    b = np.linspace(0.7, 0.8, 10)
    for shift, rope in [(0.02, 0.01), (0.005, 0.01), (-0.02, 0.01), (0.0, 0.0)]:
        res = bayesian_correlated_ttest(b + shift, b, n_train=9, n_test=1, rope=rope)
        ref = baycomp.two_on_single(b, b + shift, rope)
        if rope == 0:
            ref = (ref[0], 0.0, ref[1])
        np.testing.assert_allclose(res.probabilities, ref, atol=1e-12)


def test_correlated_ttest_is_calibrated_on_simulated_repeated_cv():
    # 10 x 10-fold cross-validation: the fold differences are normal with
    # mean mu and correlation rho = n_test / (n_train + n_test) = 1/10
    # (Nadeau and Bengio's model). mu is drawn from a uniform prior much
    # wider than the posterior, so the flat-prior posterior is (nearly) the
    # exact posterior and must be calibrated.
    rng = np.random.default_rng(2015)
    n_sim, n_splits, n_repeats, sigma, rope = 4000, 10, 10, 0.02, 0.005
    n, rho = n_splits * n_repeats, 1.0 / n_splits
    mu = rng.uniform(-0.03, 0.03, n_sim)
    noise = np.sqrt(1 - rho) * rng.standard_normal((n_sim, n))
    shared = np.sqrt(rho) * rng.standard_normal((n_sim, 1))
    d = mu[:, None] + sigma * (noise + shared)

    def check(ratio):
        mean, scale, df = _student_posterior(d, ratio)
        # Posterior probability below the true mean: uniform when calibrated.
        pit = stats.t.cdf((mu - mean) / scale, df)
        ks = stats.kstest(pit, "uniform").pvalue
        # Expected calibration error of P(right) over ten bins.
        p_right = _region_probabilities(mean, scale, df, rope)[2]
        truth = mu > rope
        bins = np.minimum((p_right * 10).astype(int), 9)
        ece = (
            sum(
                np.sum(bins == b) * abs(p_right[bins == b].mean() - truth[bins == b].mean())
                for b in range(10)
                if np.any(bins == b)
            )
            / n_sim
        )
        return ks, ece

    ks, ece = check(1.0 / (n_splits - 1))
    assert ks > 0.001 and ece < 0.03, (ks, ece)
    # Without Nadeau and Bengio's correction the posterior is overconfident.
    ks_naive, ece_naive = check(0.0)
    assert ks_naive < 1e-10 and ece_naive > 0.04, (ks_naive, ece_naive)
    # The vectorised core is the public function.
    res = bayesian_correlated_ttest(d[0], np.zeros(n), n_train=9, n_test=1, rope=rope)
    mean, scale, df = _student_posterior(d[:1], 1.0 / 9)
    assert res.p_right == pytest.approx(
        _region_probabilities(mean, scale, df, rope)[2][0], rel=RTOL
    )


def test_correlated_ttest_result_conventions_and_errors():
    a, b = _cv_scores(0)
    res = bayesian_correlated_ttest(a, b, n_train=9, n_test=1)
    assert isinstance(res, BayesianCorrelatedTTestResult)
    p_left, p_rope, p_right = res
    assert (p_left, p_rope, p_right) == res.probabilities == tuple(res[i] for i in range(3))
    assert len(res) == 3 and p_left + p_rope + p_right == pytest.approx(1.0)
    assert res.rope == 0.01
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.p_left = 0.5
    assert repr(res).startswith("BayesianCorrelatedTTestResult(p_left=")
    assert "<caption>BayesianCorrelatedTTestResult</caption>" in res._repr_html_()
    with pytest.raises(ValueError, match="rope"):
        bayesian_correlated_ttest(a, b, n_train=9, n_test=1, rope=-0.1)
    with pytest.raises(ValueError, match="n_train"):
        bayesian_correlated_ttest(a, b, n_train=0, n_test=1)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        bayesian_correlated_ttest(a, b[:-1], n_train=9, n_test=1)
    with pytest.raises(ValueError, match="at least two"):
        bayesian_correlated_ttest(a[:1], b[:1], n_train=9, n_test=1)


# ----------------------------------------------------------- signed rank


def _dataset_scores(seed, n=12, shift=0.01):
    rng = np.random.default_rng(seed)
    b = rng.uniform(0.6, 0.95, n)
    return b + shift + 0.015 * rng.standard_normal(n), b


@pytest.mark.parametrize("rope", [0.0, 0.01])
@pytest.mark.parametrize("seed", [0, 1])
def test_signed_rank_same_draws_as_baycomp_with_the_same_seed(rope, seed):
    baycomp = pytest.importorskip("baycomp")
    a, b = _dataset_scores(seed, shift=0.005 * seed)
    res = bayesian_signed_rank_test(a, b, rope=rope, n_samples=20000, random_state=seed)
    ref_samples = baycomp.SignedRankTest.sample(b, a, rope, nsamples=20000, random_state=seed)
    np.testing.assert_allclose(res.samples, ref_samples, rtol=1e-9, atol=1e-12)
    ref = baycomp.SignedRankTest.probs(b, a, rope, nsamples=20000, random_state=seed)
    if rope == 0:
        # baycomp drops the empty rope and renormalises.
        assert res.p_rope == 0.0
        ref = (ref[0], 0.0, ref[1])
    np.testing.assert_allclose(res.probabilities, ref, rtol=1e-12)


@pytest.mark.parametrize("shift", [0.0, 0.008, 0.02])
def test_signed_rank_within_monte_carlo_error_of_baycomp(shift):
    baycomp = pytest.importorskip("baycomp")
    a, b = _dataset_scores(3, n=15, shift=shift)
    n_samples = 50000
    rng = np.random.default_rng(11)  # a Generator: other draws than baycomp's
    res = bayesian_signed_rank_test(a, b, rope=0.01, n_samples=n_samples, random_state=rng)
    ref = np.array(baycomp.SignedRankTest.probs(b, a, 0.01, nsamples=n_samples, random_state=12345))
    # Two independent estimates of each probability p, each with variance
    # p (1 - p) / n_samples: their difference is within 5 standard errors,
    # at most 5 * sqrt(2 * 0.25 / 50000) = 0.016.
    tolerance = 5 * np.sqrt(2 * ref * (1 - ref) / n_samples) + 1e-4
    assert np.all(np.abs(np.array(res.probabilities) - ref) <= tolerance)
    np.testing.assert_allclose(
        res.monte_carlo_standard_error,
        np.sqrt(np.array(res.probabilities) * (1 - np.array(res.probabilities)) / n_samples),
    )


def test_signed_rank_samples_lie_on_the_simplex_and_decide_the_winner():
    a, b = _dataset_scores(4)
    res = bayesian_signed_rank_test(a, b, rope=0.01, n_samples=3000, random_state=0)
    assert isinstance(res, BayesianSignedRankResult)
    assert res.samples.shape == (3000, 3)
    assert np.all(res.samples >= -1e-12)
    np.testing.assert_allclose(res.samples.sum(axis=1), 1.0)
    shares = np.bincount(res.samples.argmax(axis=1), minlength=3) / 3000
    np.testing.assert_allclose(res.probabilities, shares)
    np.testing.assert_allclose(res.posterior_mean, res.samples.mean(axis=0))
    # A clear winner: a beats b by 0.05 on every data set.
    clear = bayesian_signed_rank_test(b + 0.05, b, rope=0.01, n_samples=2000, random_state=0)
    assert clear.p_right == 1.0
    # Swapping a and b mirrors left and right.
    swapped = bayesian_signed_rank_test(b, a, rope=0.01, n_samples=3000, random_state=0)
    np.testing.assert_allclose(swapped.samples, res.samples[:, ::-1], atol=1e-12)


def test_signed_rank_random_state_forms():
    a, b = _dataset_scores(5)
    kwargs = dict(rope=0.01, n_samples=500)
    by_int = bayesian_signed_rank_test(a, b, random_state=3, **kwargs)
    by_rs = bayesian_signed_rank_test(a, b, random_state=np.random.RandomState(3), **kwargs)
    np.testing.assert_array_equal(by_int.samples, by_rs.samples)
    gen1 = bayesian_signed_rank_test(a, b, random_state=np.random.default_rng(3), **kwargs)
    gen2 = bayesian_signed_rank_test(a, b, random_state=np.random.default_rng(3), **kwargs)
    np.testing.assert_array_equal(gen1.samples, gen2.samples)
    assert bayesian_signed_rank_test(a, b, random_state=None, **kwargs).n_samples == 500
    with pytest.raises(ValueError, match="random_state"):
        bayesian_signed_rank_test(a, b, random_state="seed", **kwargs)
    with pytest.raises(ValueError, match="n_samples"):
        bayesian_signed_rank_test(a, b, n_samples=0)
    with pytest.raises(ValueError, match="prior_strength"):
        bayesian_signed_rank_test(a, b, prior_strength=0)


def test_signed_rank_chunks_do_not_change_the_draws(monkeypatch):
    import sklearn_precision_stats.bayesian._signed_rank as module

    a, b = _dataset_scores(6)
    whole = bayesian_signed_rank_test(a, b, n_samples=1000, random_state=1)
    monkeypatch.setattr(module, "_CHUNK", 300)
    chunked = bayesian_signed_rank_test(a, b, n_samples=1000, random_state=1)
    np.testing.assert_allclose(chunked.samples, whole.samples, rtol=1e-12)


# ------------------------------------------------------------------ plots


def test_posterior_plots_render(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.image as mpimg
    import matplotlib.pyplot as plt

    from sklearn_precision_stats.plotting import plot_posterior

    a, b = _cv_scores(1)
    ttest = bayesian_correlated_ttest(a, b, n_train=9, n_test=1, rope=0.01)
    sr = bayesian_signed_rank_test(*_dataset_scores(2), rope=0.01, random_state=0)
    try:
        for res, name in ((ttest, "t"), (sr, "simplex")):
            ax = plot_posterior(res, names=("svm", "tree"))
            path = tmp_path / f"{name}.png"
            ax.figure.savefig(path)
            img = mpimg.imread(path)
            assert img.shape[0] > 200 and img.shape[1] > 200
            ink = (img[..., :3].mean(axis=-1) < 0.9).mean()
            assert 0.01 < ink < 0.6, ink
        texts = " ".join(t.get_text() for t in ax.texts)
        assert "tree better" in texts and "svm better" in texts and "rope" in texts
        fig, ax = plt.subplots()
        assert plot_posterior(ttest, ax=ax) is ax
        assert ax.get_xlabel() == "mean difference of scores, a - b"
        # The rope's edges are drawn.
        edges = sorted(line.get_xdata()[0] for line in ax.lines if line.get_linestyle() == "--")
        assert edges == pytest.approx([-0.01, 0.01])
        with pytest.raises(ValueError, match="bayesian_correlated_ttest"):
            plot_posterior(object())
    finally:
        plt.close("all")
