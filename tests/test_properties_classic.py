"""Properties every classic test must have, on generated inputs.

* p-values lie in [0, 1];
* statistics are finite and non-negative where they are chi-square, F or
  counts (or infinite for Hosmer-Lemeshow's certain groups), or NaN with
  exactly one UndefinedStatisticWarning naming the reason;
* swapping the two classifiers mirrors the result;
* the result does not depend on the order of the rows (or splits);
* the result does not change when the caller mutates its inputs afterwards.
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_precision_stats.classic import (
    corrected_repeated_kfold_ttest,
    corrected_resampled_ttest,
    delong_test,
    hosmer_lemeshow_test,
    mcnemar_test,
    sign_test,
    wilcoxon,
)
from sklearn_precision_stats.exceptions import UndefinedStatisticWarning

SETTINGS = settings(max_examples=50, deadline=None)


def run(function, *args, **kwargs):
    """Call and return (result, UndefinedStatisticWarnings raised)."""
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        result = function(*args, **kwargs)
    return result, [w for w in record if issubclass(w.category, UndefinedStatisticWarning)]


def check_defined_or_one_warning(result, undefined, nonnegative=True):
    if math.isnan(result.pvalue):
        assert len(undefined) == 1
        assert "undefined (" in str(undefined[0].message)
        return
    assert not undefined
    assert 0.0 <= result.pvalue <= 1.0
    if nonnegative:
        assert result.statistic >= 0


def same(a, b, rel=1e-9):
    if math.isnan(a):
        return math.isnan(b)
    if math.isinf(a):
        return a == b
    return b == pytest.approx(a, rel=rel, abs=1e-12)


@st.composite
def paired_labels(draw, n_classes=3, min_size=1, max_size=40):
    n = draw(st.integers(min_size, max_size))
    labels = st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n)
    y, a, b = (np.array(draw(labels)) for _ in range(3))
    n_groups = draw(st.integers(1, n))
    groups = np.array(draw(st.lists(st.integers(0, n_groups - 1), min_size=n, max_size=n)))
    order = np.array(draw(st.permutations(range(n))))
    return y, a, b, groups, order


@st.composite
def binary_scores(draw, max_size=40, n_values=6):
    """Binary truth with both classes and scores with many ties."""
    n = draw(st.integers(4, max_size))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    y[:2] = [0, 1]
    grid = st.integers(0, n_values).map(lambda k: k / n_values)
    a = np.array(draw(st.lists(grid, min_size=n, max_size=n)))
    b = np.array(draw(st.lists(grid, min_size=n, max_size=n)))
    order = np.array(draw(st.permutations(range(n))))
    return y, a, b, order


@st.composite
def split_scores(draw):
    n = draw(st.sampled_from([4, 6, 10, 20]))
    score = st.floats(0, 1, allow_nan=False).map(lambda x: round(x, 3))
    a = np.array(draw(st.lists(score, min_size=n, max_size=n)))
    b = np.array(draw(st.lists(score, min_size=n, max_size=n)))
    order = np.array(draw(st.permutations(range(n))))
    return a, b, order


@given(paired_labels())
@SETTINGS
def test_mcnemar_properties(data):
    y, a, b, groups, order = data
    for method in ("exact", "midp", "asymptotic", "corrected"):
        res, undefined = run(mcnemar_test, y, a, b, method=method)
        check_defined_or_one_warning(res, undefined)
        swapped, _ = run(mcnemar_test, y, b, a, method=method)
        assert same(res.pvalue, swapped.pvalue)
        assert (swapped.n_a_only, swapped.n_b_only) == (res.n_a_only, res.n_b_only)[::-1]
        shuffled, _ = run(mcnemar_test, y[order], a[order], b[order], method=method)
        assert same(res.pvalue, shuffled.pvalue) and same(res.statistic, shuffled.statistic)
    res, undefined = run(mcnemar_test, y, a, b, groups=groups)
    check_defined_or_one_warning(res, undefined)
    if np.unique(groups).size == 1:
        assert math.isnan(res.pvalue)
    shuffled, _ = run(mcnemar_test, y[order], a[order], b[order], groups=groups[order])
    assert same(res.pvalue, shuffled.pvalue)
    (low, high), _ = run(res.confidence_interval)
    # The Wald interval is undefined with the test, and when every record
    # differs the same way (a standard error of 0 would collapse it).
    assert math.isnan(low) == (math.isnan(res.pvalue) or res.standard_error == 0)
    swapped, _ = run(mcnemar_test, y, b, a, groups=groups)
    assert same(res.pvalue, swapped.pvalue)
    # Mutating the inputs afterwards changes nothing.
    before = repr(res)
    y[:] = 0
    a[:] = 1
    groups[:] = 0
    assert repr(res) == before


@given(paired_labels())
@SETTINGS
def test_sign_test_properties(data):
    y, a, b, _, order = data
    res, undefined = run(sign_test, y, a, b, alternative="two-sided")
    check_defined_or_one_warning(res, undefined)
    swapped, _ = run(sign_test, y, b, a, alternative="two-sided")
    assert same(res.pvalue, swapped.pvalue)
    # P[S >= n_a_only] for (a, b) is P[S <= n_b_only] for (b, a).
    greater, _ = run(sign_test, y, a, b, alternative="greater")
    less, _ = run(sign_test, y, b, a, alternative="less")
    assert same(greater.pvalue, less.pvalue)
    shuffled, _ = run(sign_test, y[order], a[order], b[order], alternative="two-sided")
    assert same(res.pvalue, shuffled.pvalue)


@given(binary_scores())
@SETTINGS
def test_delong_properties(data):
    y, a, b, order = data
    hard = [set(np.unique(s).tolist()) == {0.0, 1.0} for s in (a, b)]
    if any(hard):
        with pytest.raises(ValueError, match="hard predictions"):
            delong_test(y, a, b)
        return
    res, undefined = run(delong_test, y, a, b)
    check_defined_or_one_warning(res, undefined, nonnegative=False)
    swapped, _ = run(delong_test, y, b, a)
    assert same(res.pvalue, swapped.pvalue)
    assert same(res.statistic, -swapped.statistic)
    shuffled, _ = run(delong_test, y[order], a[order], b[order])
    assert same(res.pvalue, shuffled.pvalue) and same(res.auc_a, shuffled.auc_a)
    low, high = res.confidence_interval()
    assert math.isnan(low) == math.isnan(res.statistic)
    before = repr(res)
    a[:] = 0.5
    y[:] = 1
    assert repr(res) == before


@given(binary_scores(max_size=60, n_values=8), st.integers(3, 12))
@SETTINGS
def test_hosmer_lemeshow_properties(data, n_groups):
    y, prob, _, order = data
    if set(np.unique(prob).tolist()) == {0.0, 1.0}:
        with pytest.raises(ValueError, match="hard predictions"):
            hosmer_lemeshow_test(y, prob, n_groups=n_groups)
        return
    n_groups = min(n_groups, y.size)
    for strategy in ("equal-count", "uniform"):
        res, undefined = run(hosmer_lemeshow_test, y, prob, n_groups=n_groups, strategy=strategy)
        check_defined_or_one_warning(res, undefined)
        # Ties make this the hard case: any row order, exactly the same.
        shuffled, _ = run(
            hosmer_lemeshow_test, y[order], prob[order], n_groups=n_groups, strategy=strategy
        )
        assert repr(shuffled) == repr(res)
        if math.isinf(res.statistic):
            assert res.pvalue == 0.0
    before = repr(res)
    prob[:] = 0.5
    assert repr(res) == before


@given(split_scores())
@SETTINGS
def test_score_t_tests_properties(data):
    a, b, order = data
    calls = [
        lambda x, z: corrected_resampled_ttest(x, z, n_train=90, n_test=10),
        lambda x, z: corrected_repeated_kfold_ttest(x, z, n_splits=2),
    ]
    for call in calls:
        res, undefined = run(call, a, b)
        check_defined_or_one_warning(res, undefined, nonnegative=False)
        swapped, _ = run(call, b, a)
        assert same(res.pvalue, swapped.pvalue) and same(res.statistic, -swapped.statistic)
        shuffled, _ = run(call, a[order], b[order])
        assert same(res.pvalue, shuffled.pvalue, rel=1e-7)
        # Rescaling the scores changes neither the verdict nor the statistic.
        scaled, _ = run(call, a * 1e-14, b * 1e-14)
        assert same(res.statistic, scaled.statistic, rel=1e-6)
    res, undefined = run(wilcoxon, a, b)
    check_defined_or_one_warning(res, undefined)
    before = repr(res)
    a[:] = 0
    assert repr(res) == before
