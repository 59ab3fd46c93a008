"""Undefined statistics: NaN, a warning naming class and reason, no crash."""

import warnings

import numpy as np
import pytest

from sklearn_precision_stats import UndefinedStatisticWarning, compare_precision


@pytest.mark.filterwarnings("ignore:The precision of 'a' is 1")
def test_classifier_never_predicts_a_class():
    y = np.array([0, 1, 2, 2, 1, 0, 2, 1])
    preds = {"a": np.array([0, 1, 2, 2, 1, 0, 1, 1]), "b": np.array([0, 1, 1, 1, 1, 0, 1, 0])}
    with pytest.warns(UndefinedStatisticWarning, match=r"'b' never predicts class\(es\) 2"):
        result = compare_precision(y, preds)
    row = result.get(2)
    assert np.isfinite(row["precision_reference"])  # 'a', the reference, predicts 2
    assert np.isnan(row["precision"])
    for col in ("gs_stat", "wgs_stat", "wald_stat", "ratio", "ratio_pvalue"):
        assert np.isnan(row[col]), col
    # Other classes are still reported.
    assert np.isfinite(result.get(1)["gs_stat"])


def test_class_only_in_truth_is_reported_as_undefined():
    y = np.array([0, 1, 2, 0, 1, 2])
    preds = {"a": np.array([0, 1, 1, 0, 1, 0]), "b": np.array([0, 0, 1, 0, 1, 1])}
    with pytest.warns(UndefinedStatisticWarning, match="never predicts"):
        result = compare_precision(y, preds)
    assert 2 in result.table["class"].tolist()
    assert np.isnan(result.get(2)["precision"])


def test_precision_of_one_makes_wald_nan_but_keeps_score_and_rp():
    y = np.array([1, 1, 1, 0, 0, 1, 0, 1, 1, 0])
    preds = {
        "a": np.array([1, 1, 1, 0, 0, 1, 0, 0, 1, 0]),  # precision 1 for class 1
        "b": np.array([1, 1, 0, 1, 0, 1, 1, 1, 1, 0]),
    }
    with pytest.warns(UndefinedStatisticWarning, match="precision of 'a' is 1 for class"):
        result = compare_precision(y, preds)
    row = result.get(1)
    assert np.isnan(row["wald_stat"]) and np.isnan(row["log_or"])
    assert np.isfinite(row["gs_stat"]) and np.isfinite(row["ratio"])
    assert np.isfinite(row["ratio_ci_low"])


def test_identical_predictions():
    y = np.array([0, 1, 1, 0, 1, 0, 1, 1])
    p = np.array([0, 1, 0, 0, 1, 1, 1, 1])
    with pytest.warns(UndefinedStatisticWarning, match="variance estimate is zero"):
        result = compare_precision(y, {"a": p, "b": p.copy()})
    row = result.get(1)
    assert row["ratio"] == 1.0 and row["log_or"] == 0.0
    for col in ("gs_stat", "wgs_stat", "wald_stat", "ratio_pvalue", "ratio_se_log"):
        assert np.isnan(row[col]), col


def test_omnibus_nan_with_message_when_one_classifier_is_degenerate():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 80)
    preds = {
        "a": np.where(rng.random(80) < 0.8, y, 1 - y),
        "b": np.where(rng.random(80) < 0.7, y, 1 - y),
        "c": np.zeros(80, dtype=int),
    }  # never predicts class 1
    with pytest.warns(UndefinedStatisticWarning, match="'c' never predicts"):
        result = compare_precision(y, preds)
    omni = result.omnibus.set_index("class")
    assert np.isnan(omni.loc[1, "gs_stat"]) and np.isnan(omni.loc[1, "wald_stat"])
    assert np.isfinite(result.get(1, "b")["gs_stat"])


def test_no_warning_when_everything_is_defined():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 300)
    preds = {
        k: np.where(rng.random(300) < acc, y, rng.integers(0, 3, 300))
        for k, acc in (("a", 0.7), ("b", 0.6))
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = compare_precision(y, preds)
    assert np.isfinite(result.table.select_dtypes("number").to_numpy()).all()


def test_warnings_point_at_the_callers_line():
    from sklearn.naive_bayes import GaussianNB
    from sklearn.tree import DecisionTreeClassifier

    from sklearn_precision_stats import CVPrecisionComparator, PairedPrecisionComparator

    y = np.array([0, 1, 1, 0, 1, 0, 1, 1])
    p = np.array([0, 1, 0, 0, 1, 1, 1, 1])
    with pytest.warns(UndefinedStatisticWarning) as record:
        compare_precision(y, {"a": p, "b": p.copy()})
    assert {w.filename for w in record} == {__file__}
    X = np.arange(40.0).reshape(-1, 1)
    y = np.tile([0, 1], 20)
    comparator = PairedPrecisionComparator(
        {"a": DecisionTreeClassifier(random_state=0), "b": DecisionTreeClassifier(random_state=0)}
    ).fit(X, y)
    with pytest.warns(UndefinedStatisticWarning) as record:
        comparator.compare(X, y)
    assert {w.filename for w in record} == {__file__}
    with pytest.warns(UndefinedStatisticWarning) as record:
        CVPrecisionComparator({"a": GaussianNB(), "b": GaussianNB()}, cv=2).fit(X, y)
    assert {w.filename for w in record} == {__file__}


def test_precision_of_zero_gives_a_ratio_of_zero_one_way_and_nan_the_other():
    # 'b' predicts class 1 three times, wrongly each time; 'a' has precision 0.6.
    y = np.array([1, 1, 1, 0, 0, 1, 0, 0, 0, 0])
    a = np.array([1, 1, 1, 1, 1, 0, 0, 0, 0, 0])
    b = np.array([0, 0, 0, 1, 1, 0, 1, 0, 0, 0])
    with pytest.warns(UndefinedStatisticWarning) as record:
        ab = compare_precision(y, {"a": a, "b": b}).get(1)
    messages = [str(w.message) for w in record]
    assert any("relative precision is 0, without an interval or test" in m for m in messages)
    # The one policy of the library's ratios: exactly 0 is 0 (as scikit-learn's
    # class_likelihood_ratios), its log-scale interval and test are NaN.
    assert ab["ratio"] == 0.0
    for col in ("ratio_ci_low", "ratio_ci_high", "ratio_pvalue", "ratio_se_log"):
        assert np.isnan(ab[col]), col
    with pytest.warns(UndefinedStatisticWarning, match="and the relative precision against it"):
        ba = compare_precision(y, {"b": b, "a": a}).get(1)
    assert np.isnan(ba["ratio"])  # 0.6 / 0 is infinite
