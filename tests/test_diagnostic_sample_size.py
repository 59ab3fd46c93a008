"""Sample size and power formulas against simulated rejection rates.

The simulation draws paired tables from the design's cell probabilities and
applies the tests with formulas written out here independently of the
library: Moskowitz and Pepe's variance of log rPPV (their closed form in the
eight cell proportions) and McNemar's uncorrected statistic.
"""

import numpy as np
import pytest
from scipy import stats

from sklearn_precision_stats.diagnostic import (
    paired_cell_probabilities,
    power_predictive_values,
    power_sensitivity_specificity,
    sample_size_predictive_values,
    sample_size_sensitivity_specificity,
)

N_SIM = 20000


def _rppv_rejections(cells, n, rng, alpha=0.05):
    # Multinomial tables; p1..p4 = non-diseased (a, b) = (1,1), (0,1), (1,0),
    # (0,0) and p5..p8 the same for the diseased (Moskowitz and Pepe 2006).
    probs = np.array(
        [
            cells[0, 1, 1],
            cells[0, 0, 1],
            cells[0, 1, 0],
            cells[0, 0, 0],
            cells[1, 1, 1],
            cells[1, 0, 1],
            cells[1, 1, 0],
            cells[1, 0, 0],
        ]
    )
    counts = rng.multinomial(n, probs, size=N_SIM) / n
    p1, p2, p3, p4, p5, p6, p7, p8 = counts.T
    with np.errstate(divide="ignore", invalid="ignore"):
        ppv1 = (p5 + p7) / (p5 + p7 + p1 + p3)
        ppv2 = (p5 + p6) / (p5 + p6 + p1 + p2)
        var = (
            p6 * (1 - ppv1) + p5 * (ppv1 - ppv2) + 2 * (p7 + p3) * ppv1 * ppv2 + p7 * (1 - 3 * ppv2)
        ) / ((p5 + p7) * (p5 + p6))
        z = np.log(ppv2 / ppv1) / np.sqrt(var / n)
    return np.mean(np.abs(z) > stats.norm.ppf(1 - alpha / 2))


DESIGNS = [
    # prevalence, (Se_ref, Se), (Sp_ref, Sp), correlation
    (0.3, (0.8, 0.8), (0.85, 0.89), (0.0, 0.0)),
    (0.5, (0.7, 0.72), (0.8, 0.86), (0.3, 0.2)),
    (0.2, (0.9, 0.87), (0.9, 0.93), (0.5, 0.4)),
]


@pytest.mark.parametrize("design", DESIGNS)
def test_ppv_power_matches_simulation(design):
    prevalence, se, sp, rho = design
    rng = np.random.default_rng(20061)
    size = sample_size_predictive_values(prevalence, se, sp, correlation=rho, power=0.8)
    assert size.power == pytest.approx(0.8, abs=0.01)
    cells = paired_cell_probabilities(prevalence, se, sp, rho)
    for n in (size.n_records, size.n_records // 2):
        predicted = power_predictive_values(n, prevalence, se, sp, correlation=rho)
        simulated = _rppv_rejections(cells, n, rng)
        mc_se = np.sqrt(predicted * (1 - predicted) / N_SIM)
        assert abs(simulated - predicted) < 4 * mc_se, (n, simulated, predicted)


@pytest.mark.parametrize("design", [(0.4, (0.8, 0.85), (0.9, 0.9), (0.2, 0.0)), *DESIGNS[1:]])
def test_sensitivity_power_matches_simulation(design):
    prevalence, se, sp, rho = design
    rng = np.random.default_rng(19870)
    size = sample_size_sensitivity_specificity(prevalence, se, sp, correlation=rho)
    cells = paired_cell_probabilities(prevalence, se, sp, rho)
    n = size.n_records
    diseased = rng.binomial(n, prevalence, N_SIM)
    stratum = (cells[1] / prevalence).ravel()
    tables = rng.multinomial(diseased, stratum)
    u, v = tables[:, 1], tables[:, 2]  # (a, b) = (0, 1) and (1, 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        chi2 = np.where(u + v > 0, (u - v) ** 2 / (u + v), 0.0)
    simulated = np.mean(chi2 > stats.chi2.ppf(0.95, 1))
    predicted = power_sensitivity_specificity(n, prevalence, se, sp, correlation=rho)
    mc_se = np.sqrt(predicted * (1 - predicted) / N_SIM)
    assert abs(simulated - predicted) < 4 * mc_se, (simulated, predicted)


def test_cell_probabilities_and_validation():
    cells = paired_cell_probabilities(0.4, (0.8, 0.7), (0.9, 0.85), (0.3, 0.1))
    assert cells.sum() == pytest.approx(1.0, rel=1e-15)
    assert cells[1, 1, :].sum() / 0.4 == pytest.approx(0.8)
    assert cells[1, :, 1].sum() / 0.4 == pytest.approx(0.7)
    assert cells[0, 0, :].sum() / 0.6 == pytest.approx(0.9)
    with pytest.raises(ValueError, match="correlation"):
        paired_cell_probabilities(0.4, (0.99, 0.5), (0.9, 0.85), (-1.0, 0.0))
    with pytest.raises(ValueError, match="same ppv"):
        sample_size_predictive_values(0.3, (0.8, 0.8), (0.9, 0.9))
    with pytest.raises(ValueError, match="measure"):
        power_predictive_values(100, 0.3, (0.8, 0.8), (0.9, 0.95), measure="recall")


@pytest.mark.slow
def test_ppv_power_with_the_library_generator():
    # Design of make_paired_predictions (binary, precision 0.75 vs 0.85),
    # read off one large draw; the rPPV test of relative_predictive_values
    # on repeated small draws rejects at the predicted rate.
    from sklearn_precision_stats.diagnostic import relative_predictive_values
    from sklearn_precision_stats.simulation import make_paired_predictions

    kwargs = {"precision": (0.75, 0.85), "prevalence": 0.5, "correlation": 0.3}
    y, a, b = make_paired_predictions(500_000, random_state=0, **kwargs)
    d = y == 1
    pa, pb = a == 1, b == 1
    se = (pa[d].mean(), pb[d].mean())
    sp = ((~pa[~d]).mean(), (~pb[~d]).mean())
    rho = (np.corrcoef(pa[d], pb[d])[0, 1], np.corrcoef(pa[~d], pb[~d])[0, 1])
    n, n_sim = 300, 400
    predicted = power_predictive_values(n, d.mean(), se, sp, correlation=rho)
    rejections = 0
    for seed in range(n_sim):
        y, a, b = make_paired_predictions(n, random_state=seed + 1, **kwargs)
        res = relative_predictive_values(y, {"a": a, "b": b}, labels=[1])
        rejections += res.pvalue[0, 0, 0] < 0.05
    simulated = rejections / n_sim
    mc_se = np.sqrt(predicted * (1 - predicted) / n_sim)
    assert 0.3 < predicted < 0.9
    assert abs(simulated - predicted) < 4 * mc_se + 0.01, (simulated, predicted)
