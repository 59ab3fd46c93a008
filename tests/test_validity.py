"""Size and power of the tests by simulation.

Two classifiers with the same sensitivity and specificity (so the same
precision) share part of their predictions: the correlated null of the
paper's section 2. The generalized score test must hold its size; under an
alternative its power must rise with n.
"""

import warnings

import numpy as np
import pytest

from sklearn_precision_stats import compare_precision


def _simulate(rng, n, *, prevalence=0.4, se=(0.8, 0.8), sp=(0.85, 0.85), agreement=0.5):
    y = rng.random(n) < prevalence

    def predict(sens, spec):
        return np.where(y, rng.random(n) < sens, rng.random(n) >= spec)

    shared = predict(se[0], sp[0])
    # Copying the shared prediction keeps each classifier's Se and Sp only
    # when the shared one has them too, so sharing is used under H0 only.
    a = np.where(rng.random(n) < agreement, shared, predict(se[0], sp[0]))
    b = np.where(rng.random(n) < agreement, shared, predict(se[1], sp[1]))
    if se[0] != se[1] or sp[0] != sp[1]:
        b = np.where(rng.random(n) < agreement, predict(se[1], sp[1]), b)
    return y.astype(int), {"a": a.astype(int), "b": b.astype(int)}


def _rejection_rates(n, n_sim, seed, alpha=0.05, **kwargs):
    rng = np.random.default_rng(seed)
    tests = ["gs_pvalue", "wgs_pvalue", "wald_pvalue", "ratio_pvalue"]
    rejected = {t: 0 for t in tests}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(n_sim):
            y, preds = _simulate(rng, n, **kwargs)
            row = compare_precision(y, preds).get(1)
            for t in tests:
                rejected[t] += row[t] < alpha
    return {t: r / n_sim for t, r in rejected.items()}


@pytest.mark.slow
def test_size_under_correlated_null():
    # 2000 simulations: the binomial s.e. of a 0.05 rate is 0.0049, so the
    # band 0.035..0.065 is about +-3 s.e.
    rates = _rejection_rates(1000, 2000, seed=20261121)
    print("rejection rates under H0 (n=1000, 2000 sims):", rates)
    assert 0.035 <= rates["gs_pvalue"] <= 0.065
    for test in ("wgs_pvalue", "wald_pvalue", "ratio_pvalue"):
        assert 0.03 <= rates[test] <= 0.07, (test, rates[test])


def test_power_rises_with_n():
    kwargs = dict(se=(0.8, 0.8), sp=(0.80, 0.90))
    small = _rejection_rates(150, 300, seed=1, **kwargs)
    large = _rejection_rates(600, 300, seed=2, **kwargs)
    print("power n=150:", small, "n=600:", large)
    assert large["gs_pvalue"] > small["gs_pvalue"] + 0.2
    assert large["gs_pvalue"] > 0.6
