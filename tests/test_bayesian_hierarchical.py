"""The Bayesian hierarchical test (Corani et al. 2017).

The sampler's output is random, so the checks are facts that hold within
Monte Carlo error: with one data set the posterior of its mean difference
is the closed-form Student posterior of the correlated t test with a
uniform prior on sigma; strong differences give P(right) near 1; swapping
the classifiers swaps left and right; the posterior of delta0 covers a
simulated population mean. The analytic integration over sigma_i is
checked against numerical quadrature of the multivariate normal
likelihood, and the priors' reference probabilities against baycomp's
Stan implementation (values computed offline with pystan).
"""

import dataclasses
import math
import sys

import numpy as np
import pytest
from scipy import integrate, special, stats

pytest.importorskip("pymc")

from sklearn_precision_stats.bayesian import (  # noqa: E402
    BayesianHierarchicalResult,
    bayesian_correlated_ttest,
    bayesian_hierarchical_test,
)
from sklearn_precision_stats.bayesian._hierarchical import (  # noqa: E402
    _jitter_constant_rows,
    _marginal_loglik,
    _region_thetas,
)

# Sampler settings of the quick checks: two chains of 500 draws.
FAST = {"n_samples": 500, "n_tune": 300, "chains": 2}


def _simulate(seed, n_datasets=8, n_splits=10, population=(0.02, 0.01), noise=0.02):
    """k-fold-like scores: per-data-set gains from a normal population, correlated folds."""
    rng = np.random.default_rng(seed)
    gains = rng.normal(population[0], population[1], n_datasets)
    b = rng.uniform(0.7, 0.9, (n_datasets, 1)) + rng.normal(0, 0.02, (n_datasets, n_splits))
    # A shared term per data set gives the folds' differences a positive
    # correlation, as overlapping training sets do.
    shared = rng.normal(0, noise / 3, (n_datasets, 1))
    a = b + gains[:, None] + shared + rng.normal(0, noise, (n_datasets, n_splits))
    return a, b, gains


@pytest.fixture(scope="module")
def mixed():
    """A case where no region dominates, and its mirror image, same seed."""
    a, b, _ = _simulate(3, n_datasets=6, population=(0.008, 0.01))
    kwargs = dict(n_train=9, n_test=1, rope=0.01, random_state=1, **FAST)
    return (
        a,
        b,
        bayesian_hierarchical_test(a, b, **kwargs),
        bayesian_hierarchical_test(b, a, **kwargs),
    )


# ------------------------------------------------------- exact pieces


@pytest.mark.parametrize("n, rho", [(10, 0.1), (5, 0.2), (2, 0.5), (30, 1 / 3)])
def test_marginal_likelihood_matches_quadrature(n, rho):
    """sigma_i integrated out analytically equals quadrature of the MVN density."""
    rng = np.random.default_rng(n)
    x = 0.3 + rng.normal(0, 1.0, n)
    upper = 5.0  # a tight bound so that the incomplete-gamma term matters
    corr = (1 - rho) * np.eye(n) + rho * np.ones((n, n))

    def by_quadrature(delta):
        def integrand(sigma):
            return stats.multivariate_normal.pdf(x, np.full(n, delta), sigma**2 * corr) / upper

        value, _ = integrate.quad(integrand, 0, upper, epsabs=0, epsrel=1e-12, limit=200)
        return math.log(value)

    class numpy_ops:
        log = staticmethod(np.log)
        gammaincc = staticmethod(special.gammaincc)

    mean = x.mean()
    ss = ((x - mean) ** 2).sum()
    # The closed form drops terms free of delta: compare differences.
    deltas = [-0.5, 0.3, 1.7]
    closed = [float(_marginal_loglik(numpy_ops, d, mean, ss, n, rho, upper)) for d in deltas]
    quad = [by_quadrature(d) for d in deltas]
    np.testing.assert_allclose(np.diff(closed), np.diff(quad), rtol=1e-8, atol=1e-10)


def test_region_thetas():
    """theta of the next data set: Student probabilities; rope=0 leaves no mass in the rope."""
    nu, loc, scale = np.array([3.0, 30.0]), np.array([0.01, -0.02]), np.array([0.02, 0.005])
    thetas = _region_thetas(0.01, nu, loc, scale)
    expected_left = stats.t.cdf((-0.01 - loc) / scale, nu)
    expected_right = stats.t.sf((0.01 - loc) / scale, nu)
    np.testing.assert_allclose(thetas[:, 0], expected_left, rtol=1e-12)
    np.testing.assert_allclose(thetas[:, 2], expected_right, rtol=1e-12)
    np.testing.assert_allclose(thetas.sum(axis=1), 1.0, rtol=1e-12)
    no_rope = _region_thetas(0.0, nu, loc, scale)
    assert (no_rope[:, 1] == 0).all()


def test_constant_rows_are_spread_around_their_value():
    d = np.array([[0.02] * 10, [0.0, 0.01, -0.01, 0.02, 0.0, 0.01, 0.03, -0.02, 0.0, 0.01]])
    out, n_constant = _jitter_constant_rows(d, 0.01, np.random.default_rng(0))
    assert n_constant == 1
    assert out[0].var() > 0
    assert out[0].mean() == pytest.approx(0.02, abs=1e-15)
    assert np.abs(out[0] - 0.02).max() < 0.01
    np.testing.assert_array_equal(out[1], d[1])


# ------------------------------------------------------- posterior facts


@pytest.mark.slow
def test_one_dataset_matches_closed_form_student():
    """One data set, vague hierarchy: delta_1's posterior is the Student posterior.

    With the uniform prior on sigma (baycomp's) and a flat prior on delta,
    the posterior of the mean difference is Student with n - 2 degrees of
    freedom, location mean(d) and scale ``s_ct sqrt((n - 1) / (n - 2))``,
    where ``s_ct`` is the scale of the correlated t test (whose prior
    ``1 / sigma^2`` gives n - 1 degrees of freedom). The hierarchy's prior
    on delta_1 is nearly flat around the data (its density varies by well
    under 1% there), so the tail probabilities at five points must agree
    within 4.5 Monte Carlo standard errors (computed from the effective
    sample size).
    """
    rng = np.random.default_rng(11)
    n = 10
    b = 0.8 + rng.normal(0, 0.02, n)
    a = b + rng.normal(0, 0.02, n)
    a = a - (a - b).mean() + 0.004  # centre the data in the prior's range
    ct = bayesian_correlated_ttest(a, b, n_train=9, n_test=1, rope=0.01)
    student = stats.t(n - 2, loc=ct.mean, scale=ct.scale * math.sqrt((n - 1) / (n - 2)))
    res = bayesian_hierarchical_test(
        a[None, :],
        b[None, :],
        n_train=9,
        n_test=1,
        rope=0.01,
        n_samples=3000,
        n_tune=500,
        chains=2,
        random_state=0,
    )
    assert res.r_hat < 1.01 and res.n_divergences == 0
    delta = res.delta[:, 0]
    for q in (0.05, 0.25, 0.5, 0.75, 0.95):
        point = student.ppf(q)
        p_hat = float(np.mean(delta <= point))
        mcse = math.sqrt(q * (1 - q) / res.ess)
        assert abs(p_hat - q) < 4.5 * mcse, (q, p_hat, mcse)


def test_strong_consistent_difference_gives_right():
    a, b, _ = _simulate(5, n_datasets=5, population=(0.06, 0.005), noise=0.01)
    res = bayesian_hierarchical_test(a, b, n_train=9, n_test=1, rope=0.01, random_state=0, **FAST)
    assert res.p_right > 0.99
    assert res.p_left == 0.0
    assert res.population_probabilities[2] > 0.99
    assert (res.per_dataset()["p_right"] > 0.99).all()
    # Without a rope nothing can be practically equivalent; the draws are
    # the same because the rope enters only after sampling.
    res0 = bayesian_hierarchical_test(a, b, n_train=9, n_test=1, rope=0.0, random_state=0, **FAST)
    assert res0.p_rope == 0.0 and (res0.samples[:, 1] == 0).all()
    np.testing.assert_array_equal(res0.delta0, res.delta0)


def test_swapping_classifiers_swaps_left_and_right(mixed):
    _, _, ab, ba = mixed
    assert 0.05 < ab.p_right < 0.95 or 0.05 < ab.p_rope < 0.95  # not a trivial case
    for (p, mc_p), (q, mc_q) in [
        (
            (ab.p_left, ab.monte_carlo_standard_error[0]),
            (ba.p_right, ba.monte_carlo_standard_error[2]),
        ),
        (
            (ab.p_rope, ab.monte_carlo_standard_error[1]),
            (ba.p_rope, ba.monte_carlo_standard_error[1]),
        ),
        (
            (ab.p_right, ab.monte_carlo_standard_error[2]),
            (ba.p_left, ba.monte_carlo_standard_error[0]),
        ),
    ]:
        assert abs(p - q) < 4.5 * math.hypot(mc_p, mc_q) + 1e-12, (p, q)
    sd = ab.delta0.std()
    se = sd * math.sqrt(2 / ab.ess)
    assert ab.delta0.mean() == pytest.approx(-ba.delta0.mean(), abs=4.5 * se)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
def test_delta0_recovers_population_mean(seed):
    """The posterior of delta0 covers the simulated population mean of the gains.

    Eight data sets; the posterior mean must lie within 3 posterior standard
    deviations of the true population mean (0.02), and within a quarter of
    a posterior sd plus Monte Carlo error of the mean of the data sets'
    mean differences, which estimates the same quantity for balanced data.
    """
    a, b, _ = _simulate(100 + seed, n_datasets=8, population=(0.02, 0.01))
    res = bayesian_hierarchical_test(
        a, b, n_train=9, n_test=1, rope=0.01, random_state=seed, **FAST
    )
    post_mean, post_sd = res.delta0.mean(), res.delta0.std()
    assert abs(post_mean - 0.02) < 3 * post_sd
    grand_mean = (a - b).mean()
    assert abs(post_mean - grand_mean) < 0.25 * post_sd + 4 * post_sd / math.sqrt(res.ess)
    low, high = res.credible_interval(0.95)
    assert low < 0.02 < high


# ------------------------------------------------------- the result


def test_result_conventions(mixed):
    _, _, res, _ = mixed
    assert isinstance(res, BayesianHierarchicalResult)
    p_left, p_rope, p_right = res
    assert (p_left, p_rope, p_right) == res.probabilities
    assert p_left + p_rope + p_right == pytest.approx(1.0)
    assert res.samples.shape == (1000, 3) and res.delta.shape == (1000, 6)
    assert res.n_samples == 1000 and res.chains == 2 and res.n_scores == 10
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.p_left = 0.5
    assert repr(res).startswith("BayesianHierarchicalResult(p_left=")
    assert "<table" in res._repr_html_()
    text = res.summary()
    assert "6 data sets x 10 scores" in text and "R-hat" in text
    table = res.per_dataset()
    assert list(table.columns) == ["mean", "p_left", "p_rope", "p_right"]
    np.testing.assert_allclose(table[["p_left", "p_rope", "p_right"]].sum(axis=1), 1.0)
    np.testing.assert_allclose(res.posterior_mean, res.samples.mean(axis=0))


def test_dataframe_keeps_dataset_names():
    pd = pytest.importorskip("pandas")
    a, b, _ = _simulate(5, n_datasets=3, population=(0.06, 0.005), noise=0.01)
    names = ["iris", "wine", "digits"]
    res = bayesian_hierarchical_test(
        pd.DataFrame(a, index=names),
        pd.DataFrame(b, index=names),
        n_train=9,
        n_test=1,
        random_state=0,
        n_samples=200,
        n_tune=200,
        chains=2,
    )
    assert list(res.per_dataset().index) == names


def test_plot_posterior_draws_the_simplex(mixed, tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sklearn_precision_stats.plotting import plot_posterior

    _, _, res, _ = mixed
    ax = plot_posterior(res, names=("forest", "tree"))
    assert ax.get_title().startswith("Bayesian hierarchical test, 6 data sets")
    path = tmp_path / "hierarchical.png"
    ax.figure.savefig(path)
    plt.close(ax.figure)
    assert plt.imread(path).shape[2] in (3, 4)


# ------------------------------------------------------- input validation


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(scores_a=np.ones(10)), "scores_a"),
        (dict(scores_b=np.ones((3, 9))), "scores_b"),
        (dict(scores_a=np.full((3, 10), np.nan)), "scores_a"),
        (dict(scores_a=np.ones((3, 1)), scores_b=np.ones((3, 1))), "scores_a"),
        (dict(n_train=-1), "n_train"),
        (dict(n_test=[1, 1]), "n_test"),
        (dict(rope=-0.1), "rope"),
        (dict(chains=0), "chains"),
        (dict(random_state="seed"), "random_state"),
    ],
)
def test_input_validation_names_the_argument(kwargs, name):
    args = dict(scores_a=np.ones((3, 10)), scores_b=np.zeros((3, 10)), n_train=9, n_test=1)
    args.update(kwargs)
    a, b = args.pop("scores_a"), args.pop("scores_b")
    with pytest.raises(ValueError, match=name):
        bayesian_hierarchical_test(a, b, **args)


def test_missing_pymc_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pymc", None)
    with pytest.raises(ImportError, match=r"pip install sklearn-precision-stats\[bayes\]"):
        bayesian_hierarchical_test(np.ones((2, 5)), np.zeros((2, 5)), n_train=4, n_test=1)
