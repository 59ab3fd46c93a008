"""global_test of multilabel compare_* results: the labels' tests, records as units."""

import numpy as np
import pytest
from scipy import stats

from sklearn_precision_stats import compare_accuracy, compare_precision


def _data(n=300, n_labels=4, seed=0, shift=0.05):
    rng = np.random.default_rng(seed)
    y = (rng.random((n, n_labels)) < 0.4).astype(int)
    bad = rng.random(n) < 0.3  # errors shared by a record's labels
    a = np.where(rng.random((n, n_labels)) < np.where(bad, 0.7, 0.9)[:, None], y, 1 - y)
    b = np.where(rng.random((n, n_labels)) < np.where(bad, 0.7 - shift, 0.9)[:, None], y, 1 - y)
    return y, {"a": a, "b": b}


def test_accuracy_fisher_and_simes_combine_the_labels_tests():
    y, preds = _data()
    result = compare_accuracy(y, preds)
    p = result.table["gs_pvalue"].to_numpy(float)
    assert len(p) == y.shape[1]
    fisher = result.global_test(method="fisher")
    np.testing.assert_allclose(fisher.pvalue, stats.combine_pvalues(p, method="fisher").pvalue)
    simes = result.global_test(method="simes")
    m = len(p)
    np.testing.assert_allclose(simes.pvalue, min(1.0, (np.sort(p) * m / np.arange(1, m + 1)).min()))


@pytest.mark.parametrize("resampling", ["permutation", "bootstrap"])
def test_accuracy_dai_cui_resamples_records(resampling):
    y, preds = _data()
    result = compare_accuracy(y, preds)
    res = result.global_test(n_resamples=300, random_state=0, resampling=resampling)
    again = result.global_test(n_resamples=300, random_state=0, resampling=resampling)
    assert res.method == "dai-cui" and res.n_tests == y.shape[1]
    assert 0 < res.pvalue <= 1 and res.pvalue == again.pvalue


def test_accuracy_permutation_test_equals_swapping_whole_records():
    # The library's permutation test against a brute-force one: swap the two
    # classifiers' predictions of whole records (all labels) and recompute
    # the labels' accuracy tests from the arrays.
    y, preds = _data(n=200, seed=4)
    result = compare_accuracy(y, preds)
    p_obs = result.table["gs_pvalue"].to_numpy(float)
    observed = stats.chi2.isf(p_obs, 2).sum()
    rng = np.random.default_rng(1)
    n_perm = 150
    null = np.empty(n_perm)
    for i in range(n_perm):
        swap = rng.random(len(y)) < 0.5
        a = np.where(swap[:, None], preds["b"], preds["a"])
        b = np.where(swap[:, None], preds["a"], preds["b"])
        p = compare_accuracy(y, {"a": a, "b": b}).table["gs_pvalue"].to_numpy(float)
        null[i] = stats.chi2.isf(p, 2).sum()
    brute = (1 + np.count_nonzero(null >= observed)) / (1 + n_perm)
    res = result.global_test(method="permutation", n_resamples=1000, random_state=0)
    np.testing.assert_allclose(res.statistic, observed, rtol=1e-12)
    # Monte Carlo error of both p-values.
    assert abs(res.pvalue - brute) < 4 * np.sqrt(brute * (1 - brute) / n_perm) + 0.01


def test_accuracy_global_test_with_groups():
    y, preds = _data(n=150)
    idx = np.repeat(np.arange(150), 2)
    result = compare_accuracy(y[idx], {k: v[idx] for k, v in preds.items()}, groups=idx)
    once = compare_accuracy(y, preds)
    np.testing.assert_allclose(
        result.global_test(method="fisher").pvalue, once.global_test(method="fisher").pvalue
    )
    res = result.global_test(n_resamples=200, random_state=0)
    assert res.n_tests == y.shape[1] and 0 < res.pvalue <= 1


def test_summary_says_per_label_tests():
    y, preds = _data(n=100)
    assert "pooled" not in compare_accuracy(y, preds).summary().as_text()


def test_precision_global_test_still_works():
    y, preds = _data()
    res = compare_precision(y, preds).global_test(n_resamples=200, random_state=0)
    assert res.n_tests == y.shape[1] and 0 < res.pvalue <= 1
