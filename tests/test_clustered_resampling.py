"""Resampling clustered records through groups of equal (record, class) keys.

Every record is a unit of the resampling: swapped with probability 1/2
(paired permutation) or drawn a multinomial number of times (bootstrap).
The weights are checked against their distributions, the grouping's
fallbacks against its table path, the permutation null against swapping
the records' rows, and the accuracy's bias-reduced covariance against
statsmodels GEE.
"""

import tracemalloc
import warnings

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import stats

from sklearn_precision_stats import (
    UndefinedStatisticWarning,
    compare_accuracy,
    compare_npv,
    compare_precision,
)
from sklearn_precision_stats.across_classes import _global_null as gn
from sklearn_precision_stats.engine import _units
from sklearn_precision_stats.engine._units import KeyGroups, resampled_group_sums

from .conftest import make_correlated_predictions


def _quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        return func(*args, **kwargs)


def _stacked(n_records, repeats, n_classes=4, seed=0):
    rng = np.random.default_rng(seed)
    n = n_records * repeats
    y = np.tile(rng.integers(0, n_classes, n_records), repeats)
    a = np.where(rng.random(n) < 0.7, y, rng.integers(0, n_classes, n))
    b = np.where(rng.random(n) < 0.6, a, rng.integers(0, n_classes, n))
    groups = np.tile(np.arange(n_records), repeats)
    return y, {"ref": a, "b": b}, groups


def _record_weights(n_records, resampling, n_resamples, seed):
    """The weights themselves: every record one key of its own group, features one-hot."""
    groups = KeyGroups(
        np.arange(n_records + 1),
        np.arange(n_records, dtype=np.int32),
        np.zeros(n_records, dtype=np.intp),
        np.eye(n_records),
        1,
    )
    rng = np.random.default_rng(seed)
    return resampled_group_sums(groups, resampling, n_resamples, rng)[:, 0]


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of 64 records and 48 resamples, so that every block boundary is crossed."""
    monkeypatch.setattr(_units, "BLOCK_RECORDS", 64)
    monkeypatch.setattr(_units, "BLOCK_RESAMPLES", 48)


@pytest.mark.parametrize("many_groups", [False, True])
def test_weights_have_the_resampling_distributions(many_groups, small_blocks, monkeypatch):
    if many_groups:
        monkeypatch.setattr(_units, "_MAX_GROUPS", 1)  # each block's groups on their own
    n, n_resamples = 300, 2000
    # Permutation: independent fair coins.
    w = _record_weights(n, "permutation", n_resamples, seed=1)
    assert set(np.unique(w)) == {0.0, 1.0}
    assert abs(w.mean() - 0.5) < 4 * np.sqrt(0.25 / w.size)
    corr = np.corrcoef(w[:, :50], rowvar=False)[np.triu_indices(50, 1)]
    assert np.abs(corr).max() < 5 / np.sqrt(n_resamples)
    # Bootstrap: n records drawn with replacement, uniformly.
    w = _record_weights(n, "bootstrap", n_resamples, seed=2)
    np.testing.assert_array_equal(w.sum(axis=1), n)
    assert np.all(w >= 0) and np.all(w == np.round(w))
    assert abs(w.mean() - 1) < 1e-12
    expected_var = 1 - 1 / n  # Binomial(n, 1/n)
    assert abs(w.var(axis=0).mean() - expected_var) < 0.03
    # One record's counts against Binomial(n, 1/n), pooled over records.
    observed = np.bincount(w[:, :100].astype(int).ravel(), minlength=6)[:6]
    probs = stats.binom.pmf(np.arange(6), n, 1 / n)
    probs[-1] += stats.binom.sf(5, n, 1 / n)
    observed[-1] += int((w[:, :100] > 5).sum())
    assert stats.chisquare(observed, probs / probs.sum() * observed.sum()).pvalue > 1e-3


def test_weights_follow_the_random_state():
    for resampling in ("permutation", "bootstrap"):
        a = _record_weights(200, resampling, 50, seed=3)
        b = _record_weights(200, resampling, 50, seed=3)
        c = _record_weights(200, resampling, 50, seed=4)
        np.testing.assert_array_equal(a, b)
        assert not np.array_equal(a, c)


def _all_methods(result):
    out = []
    for resampling in ("permutation", "bootstrap"):
        res = result.global_test(n_resamples=120, random_state=5, resampling=resampling)
        out += [res.pvalue, res.statistic, res.df]
    if result.metric in ("precision", "npv"):
        frame = result.at_prevalence(
            {1: 0.2, 2: 0.3}, ci="bootstrap", n_resamples=120, random_state=5
        )
        out += list(frame[["ci_low", "ci_high", "ratio_ci_low"]].to_numpy(float).ravel())
        frame = result.at_prevalence(
            {1: 0.2, 2: 0.3}, ci="analytic", n_resamples=20, random_state=5
        )
        out += list(frame[["ci_low", "ci_high"]].to_numpy(float).ravel())
    return np.array(out, dtype=float)


@pytest.mark.parametrize("compare", [compare_precision, compare_npv])
@pytest.mark.parametrize(
    "setting",
    [
        # codes looked up through np.unique and a dict
        [("_MAX_TABLE_CODES", 0), ("_TABLE_CODES_PER_RECORD", 0)],
        [("_MAX_GROUPS", 1)],  # each block's groups summed on their own
        # every digit in a word of its own: codes as rows of words
        [("key_words", lambda n_keys, base, n_digits: [[j] for j in range(n_digits)])],
    ],
)
@pytest.mark.parametrize("layout", ["slots", "keys"])
def test_every_grouping_path_gives_the_same_answers(
    compare, setting, layout, small_blocks, monkeypatch
):
    if layout == "keys":
        from sklearn_precision_stats.engine import _row_pairs

        monkeypatch.setattr(_row_pairs, "_MAX_CELLS", 0)
    y, preds, groups = _stacked(400, 3, seed=1)
    result = _quiet(compare, y, preds, groups=groups)
    assert result._data.records._kind == layout
    expected = _quiet(_all_methods, result)
    reduced = _quiet(compare, y, preds, groups=groups, cov_type="bias_reduced").table
    for name, value in setting:
        monkeypatch.setattr(_units, name, value)
    got = _quiet(_all_methods, result)
    np.testing.assert_allclose(got, expected, rtol=1e-12, equal_nan=True)
    again = _quiet(compare, y, preds, groups=groups, cov_type="bias_reduced").table
    for column in ("wald_stat", "log_or_se", "diff_se"):
        np.testing.assert_allclose(again[column], reduced[column], rtol=1e-12, equal_nan=True)


def test_clustered_permutation_null_is_that_of_swapping_records():
    """The p-values on the permutations have the distribution of those of the
    comparisons with every record's (reference, other) rows swapped with
    probability 1/2, recomputed from the rows."""
    y, preds, groups = make_correlated_predictions(120, 3, 2, repeats=3, seed=4, agreement=0.3)
    result = _quiet(compare_precision, y, preds, groups=groups)
    plan = gn._pair_plan(result._data, 1, "permutation")
    by_groups = gn.resampled_pvalues(plan, "gs_pvalue", 4000, np.random.default_rng(1))
    record = np.unique(groups, return_inverse=True)[1].ravel()
    ref, other = preds["clf0"], preds["clf1"]
    rng = np.random.default_rng(2)
    by_rows = []
    for _ in range(400):
        swap = (rng.random(result.n_records) < 0.5)[record]
        swapped = _quiet(
            compare_precision,
            y,
            {"r": np.where(swap, other, ref), "o": np.where(swap, ref, other)},
            groups=groups,
        )
        by_rows.append(swapped.table["gs_pvalue"].to_numpy())
    by_rows = np.array(by_rows)
    for k in range(3):
        assert stats.ks_2samp(by_groups[:, k], by_rows[:, k]).pvalue > 0.001
    # The dependence between classes is kept, not only the margins (rank
    # correlations: those of the chi-square transforms are ruled by a few
    # extreme resamples).
    x_groups = stats.spearmanr(by_groups).statistic
    x_rows = stats.spearmanr(by_rows).statistic
    np.testing.assert_allclose(x_groups, x_rows, atol=0.2)


def test_accuracy_bias_reduced_matches_statsmodels():
    y, preds, groups = make_correlated_predictions(30, 3, 2, repeats=3, seed=9)
    keep = np.ones(y.size, dtype=bool)
    keep[::5] = False  # records with different numbers of rows
    y, groups = y[keep], groups[keep]
    preds = {k: v[keep] for k, v in preds.items()}
    result = _quiet(compare_accuracy, y, preds, groups=groups, cov_type="bias_reduced")
    names = list(preds)
    endog = np.concatenate([(preds[n] == y).astype(float) for n in names])
    exog = np.column_stack([np.ones(endog.size), np.repeat([0.0, 1.0], y.size)])
    fit = sm.GEE(
        endog,
        exog,
        groups=np.tile(groups, 2),
        family=sm.families.Binomial(),
        cov_struct=sm.cov_struct.Independence(),
    ).fit(cov_type="bias_reduced")
    row = result.table.iloc[0]
    np.testing.assert_allclose(row["log_or"], fit.params[1], rtol=1e-9)
    np.testing.assert_allclose(row["log_or_se"], fit.bse[1], rtol=1e-9)


def test_clustered_resampling_memory_is_per_block_not_per_record():
    """Ten times the records, about the same memory: the weights and keys
    live one block at a time, never records x resamples."""

    def peak(n_records):
        y, preds, groups = _stacked(n_records, 3, n_classes=5, seed=3)
        result = _quiet(compare_precision, y, preds, groups=groups)
        tracemalloc.start()
        base, _ = tracemalloc.get_traced_memory()
        _quiet(result.global_test, n_resamples=200, random_state=0)
        _quiet(result.at_prevalence, {1: 0.2}, ci="bootstrap", n_resamples=200, random_state=0)
        _, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return top - base

    small, large = peak(20_000), peak(200_000)
    # The blocks and the groups' sums (at most 5 classes x 4**4 counts
    # here) take the same room at both sizes, whereas 200 resamples of
    # 200,000 records would take 80 MB as int16 alone.
    assert large < 1.5 * small + 8e6, (small, large)
    assert large < 0.5 * 200_000 * 200 * 2, large


def _exchangeable_records(rng, n_records, repeats, n_classes):
    """Stacked repeats of records with their own difficulty, two exchangeable classifiers."""
    y = np.tile(rng.integers(0, n_classes, n_records), repeats)
    hard = np.tile(rng.uniform(0.1, 0.6, n_records), repeats)
    common = (y + rng.choice([-1, 1], y.size)) % n_classes
    shared = rng.random(y.size) < 0.5
    preds = {}
    for name in ("a", "b"):
        wrong = (y + rng.choice([-1, 1], y.size)) % n_classes
        error = rng.random(y.size) < hard
        preds[name] = np.where(error, np.where(shared, common, wrong), y)
    return y, preds


@pytest.mark.slow
def test_clustered_global_test_holds_its_size():
    """Two exchangeable classifiers on 150 records of 3 rows (stacked
    repeats: the truth repeats, each record has its own difficulty shared by
    both classifiers), 4 classes, 400 simulations: the permutation test is
    exact and Dai-Cui close to its level."""
    rng = np.random.default_rng(7)
    n_sim, n_records, repeats, n_classes = 400, 150, 3, 4
    rejections = {"dai-cui": 0, "permutation": 0}
    groups = np.tile(np.arange(n_records), repeats)
    with warnings.catch_warnings():
        # Some simulated data sets have classes with few predictions, for
        # which Dai-Cui's calibration check rightly warns.
        warnings.filterwarnings("ignore", "Under the permutation null", UserWarning)
        for _ in range(n_sim):
            y, preds = _exchangeable_records(rng, n_records, repeats, n_classes)
            result = _quiet(compare_precision, y, preds, groups=groups)
            for method in rejections:
                res = _quiet(result.global_test, method=method, n_resamples=200, random_state=rng)
                rejections[method] += bool(res.pvalue < 0.05)
    rates = {m: r / n_sim for m, r in rejections.items()}
    print(f"\nClustered rejection rates at alpha = 0.05 under the global null: {rates}")
    assert 0.025 <= rates["permutation"] <= 0.08
    assert 0.02 <= rates["dai-cui"] <= 0.08
