"""Frozen results stay as computed: their mappings, frames and series cannot be edited.

Every result's arrays are read-only; its mappings of arrays are read-only
views, and its pandas attributes are new copies on each access, so editing
what a user gets back changes nothing. Pickle and copy.deepcopy give an
equal result that is just as read-only.
"""

import copy
import pickle
from collections.abc import Mapping, MutableMapping

import numpy as np
import pandas as pd
import pytest

from sklearn_precision_stats import (
    CochranQResult,
    MetricComparison,
    RMAnovaResult,
    bayesian_signed_rank_test,
    cochrans_q_test,
    compare_average_precision,
    compare_metric,
    corrected_rm_anova,
    friedman_test,
    posthoc_test,
    relative_predictive_values,
)

from .conftest import make_scores

CLONES = pytest.mark.parametrize(
    "clone",
    [copy.deepcopy, copy.copy, lambda r: pickle.loads(pickle.dumps(r))],
    ids=["deepcopy", "copy", "pickle"],
)


def _labels(n, n_classes, seed):
    """Truth and three classifiers' labels, right with probability 0.8, 0.7, 0.6."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, size=n)
    preds = {
        name: np.where(rng.random(n) < accuracy, y, rng.integers(0, n_classes, size=n))
        for name, accuracy in zip("abc", (0.8, 0.7, 0.6), strict=True)
    }
    return y, preds


@pytest.fixture(scope="module")
def bootstrap_f1():
    y, preds = _labels(150, 3, seed=0)
    return compare_metric(y, preds, metric="f1", method="bootstrap", n_resamples=30, random_state=0)


@pytest.fixture(scope="module")
def average_precision():
    y, scores = make_scores(120)
    return compare_average_precision(y, scores, n_resamples=20, random_state=0)


def _snapshot(mapping):
    return {name: np.array(value, copy=True) for name, value in mapping.items()}


def _assert_same(mapping, snapshot):
    assert list(mapping) == list(snapshot)
    for name, value in snapshot.items():
        np.testing.assert_array_equal(mapping[name], value)


def _assert_read_only(mapping):
    assert isinstance(mapping, Mapping)
    assert not isinstance(mapping, MutableMapping)
    assert all(not np.asarray(value).flags.writeable for value in mapping.values())


# MetricComparison ------------------------------------------------------------


@pytest.mark.parametrize("attribute", ["replicates", "curves"])
def test_metric_comparison_mappings_cannot_be_edited(bootstrap_f1, average_precision, attribute):
    result = bootstrap_f1 if attribute == "replicates" else average_precision
    mapping = getattr(result, attribute)
    before = _snapshot(mapping)
    first = next(iter(mapping))
    table = result.table
    _assert_read_only(mapping)
    with pytest.raises(TypeError):
        del mapping[first]
    with pytest.raises(TypeError):
        mapping[first] = np.zeros_like(mapping[first])
    with pytest.raises(TypeError):
        mapping["new"] = np.zeros(3)
    for method in ("pop", "clear", "update", "setdefault", "popitem"):
        assert not hasattr(mapping, method)
    with pytest.raises(ValueError, match="read-only"):
        mapping[first][...] = 0.0
    _assert_same(getattr(result, attribute), before)
    pd.testing.assert_frame_equal(result.table, table)


def test_metric_comparison_keeps_its_own_mappings():
    # Editing the caller's dicts after construction changes nothing.
    replicates = {"a": np.full((4, 1), 0.7), "b": np.full((4, 1), 0.75)}
    curves = {"recall": np.linspace(0, 1, 3), "precision": np.ones((2, 1, 3))}
    result = MetricComparison(
        measure="f1",
        classes=["macro"],
        classifiers=["a", "b"],
        method="bootstrap",
        average="macro",
        confidence_level=0.95,
        n_rows=100,
        n_records=100,
        estimates=[[0.70, 0.75]],
        estimate_ci_low=[[0.6, 0.66]],
        estimate_ci_high=[[0.8, 0.84]],
        diff=[[0.05]],
        diff_se=[[0.02]],
        diff_ci_low=[[0.0108]],
        diff_ci_high=[[0.0892]],
        diff_pvalue=[[0.0124]],
        replicates=replicates,
        curves=curves,
    )
    del replicates["a"]
    curves["recall"][:] = 5.0
    curves["low"] = np.zeros((2, 1, 3))
    assert list(result.replicates) == ["a", "b"]
    assert list(result.curves) == ["recall", "precision"]
    np.testing.assert_array_equal(result.curves["recall"], [0.0, 0.5, 1.0])
    _assert_read_only(result.replicates)
    _assert_read_only(result.curves)


@CLONES
@pytest.mark.parametrize("attribute", ["replicates", "curves"])
def test_metric_comparison_round_trip_is_equal_and_read_only(
    bootstrap_f1, average_precision, attribute, clone
):
    result = bootstrap_f1 if attribute == "replicates" else average_precision
    copied = clone(result)
    pd.testing.assert_frame_equal(copied.table, result.table)
    pd.testing.assert_frame_equal(copied.omnibus, result.omnibus)
    pd.testing.assert_frame_equal(copied.to_frame(0.9), result.to_frame(0.9))
    assert copied.classifiers == result.classifiers
    np.testing.assert_array_equal(copied.classes, result.classes)
    assert not copied.classes.flags.writeable
    mapping = getattr(copied, attribute)
    _assert_read_only(mapping)
    _assert_same(mapping, _snapshot(getattr(result, attribute)))
    with pytest.raises(TypeError):
        del mapping[next(iter(mapping))]
    with pytest.raises(AttributeError, match="frozen"):
        copied.replicates = None


def test_metric_comparison_without_resamples_round_trips():
    y, preds = _labels(80, 2, seed=1)
    result = compare_metric(y, preds, metric="mcc")
    assert result.replicates is None
    assert result.curves is None
    copied = pickle.loads(pickle.dumps(result))
    assert copied.replicates is None
    assert copied.curves is None
    pd.testing.assert_frame_equal(copied.table, result.table)


# CochranQResult -------------------------------------------------------------


@pytest.fixture
def cochran():
    y, preds = _labels(200, 2, seed=2)
    return cochrans_q_test(y, preds)


def test_cochran_posthoc_and_accuracies_cannot_be_edited(cochran):
    # Snapshots that share nothing with the result.
    posthoc, accuracies = cochran.posthoc.copy(deep=True), cochran.accuracies.copy(deep=True)
    frame = cochran.posthoc
    frame.loc[0, "pvalue"] = -1.0
    del frame["pvalue_holm"]
    series = cochran.accuracies
    series.iloc[0] = 5.0
    series.index = ["x"] * len(series)
    pd.testing.assert_frame_equal(cochran.posthoc, posthoc)
    pd.testing.assert_series_equal(cochran.accuracies, accuracies)
    assert cochran.posthoc is not cochran.posthoc
    with pytest.raises(AttributeError):
        cochran.posthoc = frame


def test_cochran_keeps_its_own_frames():
    posthoc = pd.DataFrame({"pvalue": [0.5]})
    accuracies = pd.Series([0.7, 0.8], index=["a", "b"], name="accuracy")
    result = CochranQResult(
        statistic=1.0,
        pvalue=0.3,
        df=1,
        method="cochran",
        n_rows=10,
        n_groups=None,
        accuracies=accuracies,
        posthoc=posthoc,
    )
    posthoc.loc[0, "pvalue"] = 0.0
    accuracies.iloc[0] = 0.0
    assert result.posthoc["pvalue"].tolist() == [0.5]
    assert result.accuracies.tolist() == [0.7, 0.8]


@CLONES
def test_cochran_round_trip_is_equal_and_copies_on_access(cochran, clone):
    expected = cochran.posthoc.copy(deep=True)
    copied = clone(cochran)
    assert copied == cochran
    pd.testing.assert_frame_equal(copied.posthoc, cochran.posthoc)
    pd.testing.assert_series_equal(copied.accuracies, cochran.accuracies)
    frame = copied.posthoc
    frame.loc[0, "pvalue"] = -1.0
    pd.testing.assert_frame_equal(copied.posthoc, expected)
    pd.testing.assert_frame_equal(cochran.posthoc, expected)


# RMAnovaResult --------------------------------------------------------------


def _anova(posthoc):
    rng = np.random.default_rng(3)
    scores = 0.8 + 0.02 * rng.standard_normal((10, 3)) + np.array([0.0, 0.01, 0.03])
    return corrected_rm_anova(scores, n_train=90, n_test=10, posthoc=posthoc)


def test_rm_anova_posthoc_cannot_be_edited():
    result = _anova(True)
    posthoc = result.posthoc.copy(deep=True)
    frame = result.posthoc
    frame.loc[0, "pvalue"] = -1.0
    del frame["model_a"]
    pd.testing.assert_frame_equal(result.posthoc, posthoc)
    assert result.posthoc is not result.posthoc
    with pytest.raises(AttributeError):
        result.posthoc = None


def test_rm_anova_without_posthoc_and_round_trip():
    result = _anova(False)
    assert result.posthoc is None
    assert RMAnovaResult(1.0, 0.5, (2, 18), 2.0, 0.2).posthoc is None
    with_posthoc = _anova(True)
    for clone in (copy.deepcopy, lambda r: pickle.loads(pickle.dumps(r))):
        assert clone(result).posthoc is None
        copied = clone(with_posthoc)
        assert copied == with_posthoc
        pd.testing.assert_frame_equal(copied.posthoc, with_posthoc.posthoc)
        frame = copied.posthoc
        frame.loc[0, "pvalue"] = -1.0
        pd.testing.assert_frame_equal(copied.posthoc, with_posthoc.posthoc)


# FriedmanResult and PosthocResult -------------------------------------------


def _dataset_scores():
    rng = np.random.default_rng(4)
    values = 0.8 + 0.03 * rng.standard_normal((12, 4)) + np.array([0.0, 0.01, 0.02, 0.04])
    return pd.DataFrame(values, columns=["a", "b", "c", "d"])


@pytest.mark.parametrize(
    "make, attributes",
    [
        (lambda s: friedman_test(s), ["average_ranks", "ranks"]),
        (
            lambda s: posthoc_test(s),
            ["statistic", "pvalue", "average_ranks", "unadjusted_pvalue"],
        ),
    ],
    ids=["friedman", "posthoc"],
)
def test_several_datasets_frames_cannot_be_edited(make, attributes):
    result = make(_dataset_scores())
    for name in attributes:
        expected = getattr(result, name).copy(deep=True)
        edited = getattr(result, name)
        edited.iloc[0] = -1.0
        assert getattr(result, name).equals(expected), name
        for clone in (copy.deepcopy, lambda r: pickle.loads(pickle.dumps(r))):
            assert getattr(clone(result), name).equals(expected), name
    # Unpacking like a tuple hands out copies too.
    statistic, _ = result
    assert statistic is not result.statistic or np.isscalar(statistic)


# Bayesian results -------------------------------------------------------------


def test_bayesian_posterior_draws_are_read_only():
    rng = np.random.default_rng(5)
    x = rng.normal(0.8, 0.02, 20)
    y = x + rng.normal(0.01, 0.01, 20)
    result = bayesian_signed_rank_test(x, y, rope=0.01, random_state=0)
    expected = result.samples.copy()
    for copied in (result, copy.deepcopy(result), pickle.loads(pickle.dumps(result))):
        with pytest.raises(ValueError, match="read-only"):
            copied.samples[0, 0] = 5.0
        np.testing.assert_array_equal(copied.samples, expected)


def test_diagnostic_results_stay_read_only_after_pickle_and_deepcopy():
    y, preds = _labels(300, 2, seed=6)
    result = relative_predictive_values(y, {"a": preds["a"], "b": preds["b"]})
    for copied in (copy.deepcopy(result), pickle.loads(pickle.dumps(result))):
        arrays = [v for v in vars(copied).values() if isinstance(v, np.ndarray)]
        assert arrays
        assert not any(a.flags.writeable for a in arrays)
