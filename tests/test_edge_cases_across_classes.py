"""Edge cases of the tests across classes: heavy-tailed null p-values,
bool and narrow integer labels, process-wide warning state, random states.
"""

import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.datasets import make_classification
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

from sklearn_precision_stats.across_classes import (
    _prevalence,
    combine_pvalues_dependent,
    replicability,
)
from sklearn_precision_stats.exceptions import UndefinedStatisticWarning
from sklearn_precision_stats.paired import compare_precision


def two_classifiers(n=400, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.8, y, 1 - y)
    b = np.where(rng.random(n) < 0.7, y, 1 - y)
    return y, a, b


# ------------------------------------------------- Dai-Cui, zero null p-values


def test_a_null_row_of_zeros_does_not_collapse_the_dai_cui_df():
    rng = np.random.default_rng(0)
    null = rng.uniform(size=(100, 4))
    null[0] = 0.0  # one resample whose p-values all underflowed
    p = np.array([0.05, 0.3, 0.2, 0.4])
    fisher = combine_pvalues_dependent(p, method="fisher")
    res = combine_pvalues_dependent(p, null_pvalues=null)
    # Without the bound: df 0.0005 and p = 0.0019 against Fisher's 0.097.
    assert res.df > 4 and res.pvalue > fisher.pvalue
    # By hand: the p-values bounded to [1/101, 100/101], then Dai-Cui.
    x = -2 * np.log(np.clip(null, 1 / 101, 100 / 101))
    cov = np.cov(x, rowvar=False)
    nu = 2 * 8**2 / (16 + cov.sum() - np.trace(cov))
    assert res.df == pytest.approx(nu, rel=1e-12)
    t = -2 * np.log(p).sum()
    assert res.pvalue == pytest.approx(stats.chi2.sf(nu / 8 * t, nu), rel=1e-12)


# ------------------------------------------------------------- label dtypes


def test_bool_labels_work_in_global_test_and_at_prevalence():
    y, a, b = two_classifiers()
    ints = compare_precision(y, {"a": a, "b": b})
    bools = compare_precision(y.astype(bool), {"a": a.astype(bool), "b": b.astype(bool)})
    for method in ("dai-cui", "permutation"):
        expected = ints.global_test(method=method, n_resamples=200, random_state=0)
        got = bools.global_test(method=method, n_resamples=200, random_state=0)
        assert got.pvalue == pytest.approx(expected.pvalue, rel=1e-12)
    expected = ints.at_prevalence({1: 0.2}, ci="bootstrap", n_resamples=200, random_state=0)
    got = bools.at_prevalence({True: 0.2}, ci="bootstrap", n_resamples=200, random_state=0)
    np.testing.assert_allclose(
        got["precision_at_prevalence"], expected["precision_at_prevalence"], rtol=1e-12
    )
    np.testing.assert_allclose(got["ci_low"], expected["ci_low"], rtol=1e-12)


def narrow_labels(kind):
    """(y, a, b) in a narrow or unsigned dtype, and the same labels as objects."""
    y, a, b = two_classifiers()
    if kind == "int8":
        arrays = [(v * 200 - 100).astype(np.int8) for v in (y, a, b)]
    elif kind == "uint8-and-minus-1":
        b = b.copy()
        b[0] = -1  # a prediction outside the truth's unsigned range
        arrays = [y.astype(np.uint8), a.astype(np.uint8), b]
    else:
        arrays = [v.astype(np.uint64) + np.uint64(2**64 - 3) for v in (y, a, b)]
    wide = [np.array([int(v) for v in arr.tolist()], dtype=object) for arr in arrays]
    return arrays, wide


# Class -1 is predicted by b alone: its warnings are expected, the values compared.
@pytest.mark.filterwarnings("ignore::sklearn_precision_stats.exceptions.UndefinedStatisticWarning")
@pytest.mark.parametrize("kind", ["int8", "uint8-and-minus-1", "uint64-near-2**64"])
def test_narrow_and_unsigned_labels_give_the_results_of_python_ints(kind):
    (y, a, b), (y_w, a_w, b_w) = narrow_labels(kind)
    narrow = compare_precision(y, {"a": a, "b": b})
    wide = compare_precision(y_w, {"a": a_w, "b": b_w})
    assert [int(c) for c in narrow.table["class"]] == [int(c) for c in wide.table["class"]]
    np.testing.assert_allclose(narrow.table["precision"], wide.table["precision"], rtol=1e-12)
    got = narrow.global_test(n_resamples=200, random_state=0)
    expected = wide.global_test(n_resamples=200, random_state=0)
    assert got.pvalue == pytest.approx(expected.pvalue, rel=1e-12)


# ----------------------------------------------------- process-wide warnings


def test_at_prevalence_leaves_the_warning_filters_alone(monkeypatch):
    # Classifier b never predicts class 2, so bootstrap slices are all NaN.
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 300)
    a = np.where(rng.random(300) < 0.7, y, (y + 1) % 3)
    b = np.where(a == 2, 0, a)
    with pytest.warns(UndefinedStatisticWarning) as caught:
        comparison = compare_precision(y, {"a": a, "b": b})
    assert any("never predicts" in str(w.message) for w in caught)

    class NoGlobalSwitches:
        """The warnings module, without its process-wide switches."""

        warn = staticmethod(warnings.warn)

        def __getattr__(self, name):
            raise AssertionError(f"at_prevalence used warnings.{name}")

    monkeypatch.setattr(_prevalence, "warnings", NoGlobalSwitches())
    before = list(warnings.filters)
    for ci in ("analytic", "bootstrap"):
        with pytest.warns() as record:
            comparison.at_prevalence({0: 0.3, 2: 0.2}, ci=ci, n_resamples=200, random_state=0)
        assert not [w for w in record if issubclass(w.category, RuntimeWarning)]
    assert warnings.filters == before


# ------------------------------------------------------------- random_state


@pytest.mark.parametrize("bad", [-1, 1.5, "0", True])
def test_bad_random_state_is_a_clear_error(bad):
    y, a, b = two_classifiers()
    comparison = compare_precision(y, {"a": a, "b": b})
    match = "random_state must be None, an int >= 0"
    with pytest.raises(ValueError, match=match):
        comparison.global_test(n_resamples=50, random_state=bad)
    with pytest.raises(ValueError, match=match):
        comparison.at_prevalence({1: 0.2}, n_resamples=50, random_state=bad)


def test_replicability_accepts_what_global_test_accepts():
    X, y = make_classification(300, 5, random_state=0)
    estimators = {"nb": GaussianNB(), "tree": DecisionTreeClassifier(random_state=0)}
    kwargs = dict(label=1, reference="tree", sample_sizes=(1.0,), test_sizes=(0.3,), n_repeats=2)
    first = replicability(estimators, X, y, random_state=np.random.default_rng(5), **kwargs)
    again = replicability(estimators, X, y, random_state=np.random.default_rng(5), **kwargs)
    assert first.experiments["seed"].tolist() == again.experiments["seed"].tolist()
    replicability(estimators, X, y, random_state=np.random.RandomState(5), **kwargs)
    with pytest.raises(ValueError, match="random_state must be None, an int >= 0"):
        replicability(estimators, X, y, random_state=-1, **kwargs)
