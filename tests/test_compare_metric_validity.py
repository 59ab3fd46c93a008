"""compare_metric by simulation: size, coverage, power, clustered rows (slow)."""

import numpy as np
import pytest
from scipy import special

from sklearn_precision_stats import compare_metric

MEASURES = [
    ("f1", "macro"),
    ("f1", "micro"),
    ("mcc", None),
    ("cohen_kappa", None),
    ("balanced_accuracy", None),
]


def correlated_predictions(rng, n, acc=(0.75, 0.75), rho=0.5, k=3, record_effect=None):
    """Truth and two classifiers whose correctness shares a normal effect.

    With equal accuracies the two classifiers are exchangeable, so every
    measure is equal for both (the null). Errors go to the next class, or
    to the one after with probability 0.3, so classes differ.
    """
    y = rng.choice(k, size=n, p=(0.5, 0.3, 0.2)) if record_effect is None else record_effect[0]
    z = rng.standard_normal(n) if record_effect is None else record_effect[1]
    preds = []
    for a in acc:
        latent = np.sqrt(rho) * z + np.sqrt(1 - rho) * rng.standard_normal(n)
        wrong = (y + 1 + (rng.random(n) < 0.3)) % k
        preds.append(np.where(latent < special.ndtri(a), y, wrong))
    return y, preds


def _rejections(n, n_reps, method, seed, acc=(0.75, 0.75), n_resamples=199):
    rng = np.random.default_rng(seed)
    rejected = np.zeros(len(MEASURES))
    for i in range(n_reps):
        y, (a, b) = correlated_predictions(rng, n, acc)
        for j, (metric, average) in enumerate(MEASURES):
            table = compare_metric(
                y,
                {"a": a, "b": b},
                metric=metric,
                average=average,
                method=method,
                n_resamples=n_resamples,
                random_state=i,
            ).table
            rejected[j] += table["diff_pvalue"].iloc[0] < 0.05
    return rejected / n_reps


@pytest.mark.slow
def test_delta_size_at_n_1000():
    # 1500 replications (7500 comparisons, about 20 s): Monte Carlo standard
    # error 0.0056 around 0.05.
    rates = _rejections(1000, 1500, "delta", seed=1)
    assert np.all((rates > 0.035) & (rates < 0.065)), rates


@pytest.mark.slow
def test_bootstrap_size_at_n_1000():
    # 500 replications of 199 resamples (Monte Carlo standard error 0.01), so
    # the band is widened to about 2.5 standard errors.
    rates = _rejections(1000, 500, "bootstrap", seed=2)
    assert np.all((rates > 0.025) & (rates < 0.075)), rates
    assert 0.035 < rates.mean() < 0.065


def _population_difference(metric, average, acc):
    rng = np.random.default_rng(99)
    y, (a, b) = correlated_predictions(rng, 2_000_000, acc)
    return compare_metric(y, {"a": a, "b": b}, metric=metric, average=average).table["diff"][0]


@pytest.mark.slow
@pytest.mark.parametrize("metric, average", [("f1", "macro"), ("mcc", None)])
def test_delta_coverage_of_the_difference(metric, average):
    acc = (0.78, 0.72)
    truth = _population_difference(metric, average, acc)
    rng = np.random.default_rng(3)
    covered = 0
    n_reps = 1500
    for _ in range(n_reps):
        y, (a, b) = correlated_predictions(rng, 1000, acc)
        t = compare_metric(y, {"a": a, "b": b}, metric=metric, average=average).table
        covered += t["diff_ci_low"][0] <= truth <= t["diff_ci_high"][0]
    assert 0.935 < covered / n_reps < 0.965


@pytest.mark.slow
def test_power_rises_with_the_effect():
    rng = np.random.default_rng(4)
    power = []
    for gap in (0.0, 0.03, 0.06):
        rejected = 0
        for _ in range(300):
            y, (a, b) = correlated_predictions(rng, 1000, (0.75, 0.75 - gap))
            t = compare_metric(y, {"a": a, "b": b}, metric="f1", average="macro").table
            rejected += t["diff_pvalue"][0] < 0.05
        power.append(rejected / 300)
    assert power[0] < power[1] < power[2]
    assert power[2] > 0.8


@pytest.mark.slow
def test_clustered_size_for_stacked_5x2_cv_rows():
    # Each record is predicted once per repetition of 2-fold CV, 5 times in
    # all; each classifier's difficulty of a record is shared by the
    # repetitions, so its rows are correlated.
    rng = np.random.default_rng(5)
    n_records, n_reps = 300, 1000
    groups = np.tile(np.arange(n_records), 5)
    rejected = np.zeros(2)
    naive = 0
    for _ in range(n_reps):
        y = rng.choice(3, size=n_records, p=(0.5, 0.3, 0.2))[groups]
        shared = rng.standard_normal(n_records)
        preds = []
        for _ in range(2):
            own = 0.6 * shared + 0.6 * rng.standard_normal(n_records)
            latent = own[groups] + np.sqrt(1 - 0.72) * rng.standard_normal(len(groups))
            wrong = (y + 1 + (rng.random(len(groups)) < 0.3)) % 3
            preds.append(np.where(latent < special.ndtri(0.75), y, wrong))
        both = {"a": preds[0], "b": preds[1]}
        for j, (metric, average) in enumerate([("f1", "macro"), ("mcc", None)]):
            t = compare_metric(y, both, metric=metric, average=average, groups=groups).table
            rejected[j] += t["diff_pvalue"][0] < 0.05
        naive += compare_metric(y, both, metric="mcc").table["diff_pvalue"][0] < 0.05
    rates = rejected / n_reps
    assert np.all((rates > 0.035) & (rates < 0.065)), rates
    # Ignoring the records is liberal.
    assert naive / n_reps > 0.1
