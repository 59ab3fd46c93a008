"""The Bayesian hierarchical test (Corani et al. 2017).

The sampler's output is random, so the checks are facts that hold within
Monte Carlo error: with one data set the posterior of its mean difference
is the closed-form Student posterior of the correlated t test with a
uniform prior on sigma; consistent gains give P(right) near 1; swapping
the classifiers swaps left and right; the posterior of delta0 covers a
simulated population mean. The analytic integration over sigma_i is
checked against numerical quadrature of the multivariate normal
likelihood, and the priors' reference probabilities against baycomp's
Stan implementation (values computed offline with pystan).
"""

import dataclasses
import logging
import math
import sys
import warnings

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

# Short chains keep the tests fast; R-hat can then pass 1.01 by chance, and
# the tolerances below use the effective sample sizes instead.
pytestmark = pytest.mark.filterwarnings(
    "ignore:The posterior sampler may not have converged:sklearn.exceptions.ConvergenceWarning"
)

# Sampler settings of the quick checks: two chains of 500 draws. Each call
# costs a few seconds of graph compilation plus the sampling.
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


def _baycomp_case():
    """Eight data sets x 10 folds: gains from 0 to 3 points, none dominant."""
    rng = np.random.default_rng(20170)
    q, n = 8, 10
    gains = np.array([0.03, 0.025, 0.01, 0.005, 0.0, 0.015, -0.005, 0.02])
    b = rng.uniform(0.7, 0.9, q)[:, None] + rng.normal(0, 0.02, (q, n))
    a = b + gains[:, None] + rng.normal(0, 0.015, (q, n))
    return a, b


# baycomp 1.0.3's HierarchicalTest(b, a, rope, runs=1, nsamples=10000,
# chains=4) on _baycomp_case() (pystan 3.10, 40 000 draws): the shares of
# draws in which each region is the most probable, and the mean thetas.
BAYCOMP = {
    0.01: ((0.007275, 0.122225, 0.8705), (0.058937, 0.312473, 0.628589)),
    0.0: ((0.0112, 0.0, 0.9888), (0.151372, 0.0, 0.848628)),
}


@pytest.fixture(scope="module")
def mixed():
    """A case where no region dominates, and its mirror image, same seed."""
    a, b = _baycomp_case()
    kwargs = dict(n_train=9, n_test=1, rope=0.01, n_samples=600, n_tune=300, random_state=1)
    import pymc  # noqa: F401  (sets up its loggers on import)

    levels = {name: logging.getLogger(name).level for name in ("pymc", "pytensor", "arviz")}
    filters = list(warnings.filters)
    ab = bayesian_hierarchical_test(a, b, **kwargs)
    ba = bayesian_hierarchical_test(b, a, **kwargs)
    # The backend's logs and warnings are quieted only during the call.
    assert {name: logging.getLogger(name).level for name in levels} == levels
    assert list(warnings.filters) == filters
    return a, b, ab, ba


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
        n_samples=1000,
        n_tune=300,
        chains=2,
        random_state=0,
    )
    assert res.r_hat < 1.01
    delta = res.delta[:, 0]
    for q in (0.05, 0.25, 0.5, 0.75, 0.95):
        point = student.ppf(q)
        p_hat = float(np.mean(delta <= point))
        mcse = math.sqrt(q * (1 - q) / res.ess)
        assert abs(p_hat - q) < 4.5 * mcse, (q, p_hat, mcse)


def test_matches_baycomp_stan_within_monte_carlo_error(mixed):
    """baycomp's Stan model and this PyMC one give the same probabilities.

    The tolerance is 4.5 combined Monte Carlo standard errors: ours from
    the effective sample size of our draws, baycomp's assuming an effective
    sample size of 10 000 of its 40 000 draws. rope=0 reuses the same draws
    (the rope enters only after sampling).
    """
    _, _, res, _ = mixed
    for rope, (ref_p, ref_theta) in BAYCOMP.items():
        thetas = _region_thetas(rope, res.nu, res.delta0, res.std0)
        shares = np.bincount(np.argmax(thetas, axis=1), minlength=3) / thetas.shape[0]
        ref_p, ref_theta = np.array(ref_p), np.array(ref_theta)
        se_p = np.sqrt(ref_p * (1 - ref_p) * (1 / res.ess + 1 / 10000))
        se_theta = thetas.std(axis=0) * math.sqrt(1 / res.ess + 1 / 10000)
        np.testing.assert_array_less(np.abs(shares - ref_p), 4.5 * se_p + 1e-12)
        np.testing.assert_array_less(
            np.abs(thetas.mean(axis=0) - ref_theta), 4.5 * se_theta + 1e-12
        )
        if rope == res.rope:
            np.testing.assert_array_equal(shares, res.probabilities)
            np.testing.assert_array_equal(thetas, res.samples)


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
def test_consistent_gains_without_rope_and_delta0_recovery():
    """Gains drawn from N(0.02, 0.01^2) on eight data sets, rope=0.

    Without a rope, P(rope) is exactly 0, and the right region wins in every
    draw where delta0 > 0: P(right) must be near 1. The posterior of delta0
    must cover the simulated population mean (0.02): its posterior mean
    within 3 posterior standard deviations of it, and within a quarter of
    a posterior sd plus 4 Monte Carlo standard errors of the mean of the
    data sets' mean differences, which estimates the same quantity here
    (balanced data). A DataFrame's index names the data sets.
    """
    pd = pytest.importorskip("pandas")
    a, b, _ = _simulate(100, n_datasets=8, population=(0.02, 0.01))
    names = [f"set{i}" for i in range(8)]
    res = bayesian_hierarchical_test(
        pd.DataFrame(a, index=names),
        pd.DataFrame(b, index=names),
        n_train=9,
        n_test=1,
        rope=0.0,
        random_state=0,
        **FAST,
    )
    assert list(res.per_dataset().index) == names
    assert res.p_rope == 0.0 and (res.samples[:, 1] == 0).all()
    assert res.p_right > 0.99 and res.population_probabilities[2] > 0.99
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
    assert res.samples.shape == (1200, 3) and res.delta.shape == (1200, 8)
    assert res.n_samples == 1200 and res.chains == 2 and res.n_scores == 10
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.p_left = 0.5
    assert repr(res).startswith("BayesianHierarchicalResult(p_left=")
    assert "<table" in res._repr_html_()
    text = res.summary()
    assert "8 data sets x 10 scores" in text and "R-hat" in text
    table = res.per_dataset()
    assert list(table.columns) == ["mean", "p_left", "p_rope", "p_right"]
    np.testing.assert_allclose(table[["p_left", "p_rope", "p_right"]].sum(axis=1), 1.0)
    np.testing.assert_allclose(res.posterior_mean, res.samples.mean(axis=0))


def test_plot_posterior_draws_the_simplex(mixed, tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sklearn_precision_stats.plotting import plot_posterior

    _, _, res, _ = mixed
    ax = plot_posterior(res, names=("forest", "tree"))
    assert ax.get_title().startswith("Bayesian hierarchical test, 8 data sets")
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
