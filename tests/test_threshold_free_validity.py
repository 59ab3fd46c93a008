"""Size and coverage of the threshold-free bootstrap, by simulation (slow).

Binormal scores of two classifiers with correlated errors and the same
separation: their average precision, precision at a recall and AUC are
equal, so the null hypothesis holds and the true difference is 0. A
rejection rate near 0.05 over N data sets has a Monte Carlo standard error
of sqrt(0.05 * 0.95 / N), 0.0077 at N = 800, and the bands 0.035-0.065
(rejection) and 0.93-0.97 (coverage) are about two of them wide on each
side. Each data set gets 400 replicates for average precision, 200 for
precision at a recall (the documentation reports 2000 to 8000 data sets
with 500 replicates, with their standard errors). The seeds are fixed, so
a run repeats exactly.
"""

import warnings

import numpy as np
import pytest

from sklearn_precision_stats import (
    compare_average_precision,
    compare_precision_at_recall,
    compare_roc_auc,
)

pytestmark = pytest.mark.slow


def binormal(rng, n, prevalence, separation=1.0, correlation=0.5):
    """Two classifiers' scores: same separation, correlated errors."""
    y = (rng.random(n) < prevalence).astype(int)
    common = rng.standard_normal(n)
    scores = {
        name: separation * y
        + np.sqrt(correlation) * common
        + np.sqrt(1 - correlation) * rng.standard_normal(n)
        for name in ("a", "b")
    }
    return y, scores


def _size_and_coverage(function, n_datasets, n, prevalence, n_resamples, seed, **kwargs):
    rng = np.random.default_rng(seed)
    rejected = covered = 0
    for i in range(n_datasets):
        y, scores = binormal(rng, n, prevalence)
        with warnings.catch_warnings():
            # A rare class may tie the two classifiers' values in every
            # replicate of some data set; its NaN p-value counts as kept.
            warnings.simplefilter("ignore")
            row = function(y, scores, n_resamples=n_resamples, random_state=i, **kwargs).table
        rejected += bool(row["diff_pvalue"].iloc[0] < 0.05)
        covered += bool(row["diff_ci_low"].iloc[0] <= 0 <= row["diff_ci_high"].iloc[0])
    return rejected / n_datasets, covered / n_datasets


@pytest.mark.parametrize("prevalence", [0.05, 0.2, 0.5])
def test_average_precision_holds_its_size_and_coverage(prevalence):
    # The percentile interval needs enough replicates to reach its level:
    # with 200, these data sets' intervals covered 0.928 at prevalence
    # 0.05 and 0.930 at 0.5 (500 replicates: 0.947 and 0.947).
    rejection, coverage = _size_and_coverage(
        compare_average_precision, 800, 1000, prevalence, 400, seed=10
    )
    assert 0.035 <= rejection <= 0.065
    assert 0.93 <= coverage <= 0.97


@pytest.mark.parametrize("prevalence", [0.05, 0.2, 0.5])
def test_precision_at_recall_holds_its_size_and_coverage(prevalence):
    rejection, coverage = _size_and_coverage(
        compare_precision_at_recall, 800, 1000, prevalence, 200, seed=20, recall=0.9
    )
    if prevalence == 0.05:
        # About 50 positives: the 90% recall threshold sits at the 45th, an
        # order statistic, whose bootstrap variance is too large by a
        # factor of about 1 + 1/sqrt(pi * 50 * 0.1 * 0.9) (the user guide
        # derives it), so the test is conservative: rejection 0.036 and coverage 0.969 over
        # 8000 data sets x 500 replicates (standard errors 0.002), 0.033
        # and 0.975 with 2000 replicates. That sits on the edges of
        # 0.035-0.065 and 0.93-0.97, closer than 800 data sets can tell
        # apart. It must not be liberal, nor more conservative than that.
        assert 0.02 <= rejection <= 0.065
        assert 0.93 <= coverage <= 0.985
    else:
        assert 0.035 <= rejection <= 0.065
        assert 0.93 <= coverage <= 0.97


def test_delong_and_bootstrap_agree_on_roc_auc():
    rng = np.random.default_rng(30)
    p_delong, p_boot = [], []
    for i in range(300):
        y, scores = binormal(rng, 1000, 0.2)
        p_delong.append(compare_roc_auc(y, scores).table["diff_pvalue"].iloc[0])
        boot = compare_roc_auc(y, scores, method="bootstrap", n_resamples=250, random_state=i)
        p_boot.append(boot.table["diff_pvalue"].iloc[0])
    p_delong, p_boot = np.array(p_delong), np.array(p_boot)
    # Both estimate the same standard error: the p-values of one data set
    # differ by the bootstrap's noise only (its standard error is estimated
    # from 250 replicates, about 4.5% relative error).
    assert np.corrcoef(p_delong, p_boot)[0, 1] > 0.95
    assert np.median(np.abs(p_delong - p_boot)) < 0.03
    # And their rejection rates agree within the simulation's error.
    assert abs(np.mean(p_delong < 0.05) - np.mean(p_boot < 0.05)) <= 0.03
