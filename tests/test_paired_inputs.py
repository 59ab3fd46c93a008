"""Inputs of the paired comparison and of its result's methods that a
demanding user passes (classifier names of any hashable type, pandas
indexes, options and degenerate cases of the across-class methods): each
gets a right answer, a ValueError naming the argument, or NaN with a
warning that names the class and the reason; and the result stays frozen.
"""

import copy
import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import precision_score, recall_score

from sklearn_precision_stats import (
    ComparisonCounts,
    combine_pvalues_dependent,
    compare_npv,
    compare_precision,
)
from sklearn_precision_stats.exceptions import UndefinedStatisticWarning
from sklearn_precision_stats.simulation import make_paired_predictions

pytestmark = pytest.mark.filterwarnings("ignore::sklearn_precision_stats.UndefinedStatisticWarning")


def _data(n=120, n_classes=2, seed=0):
    return make_paired_predictions(n, precision=(0.8, 0.65), n_classes=n_classes, random_state=seed)


def test_tuple_classifier_names_from_multiindex_columns():
    # A DataFrame with MultiIndex columns names its classifiers by tuples.
    y, a, b = _data()
    preds = pd.DataFrame({("rf", 1): a, ("rf", 2): b})
    result = compare_precision(y, preds)
    table = result.table
    assert table["classifier"].tolist() == [("rf", 2)] * 2
    assert table["reference"].tolist() == [("rf", 1)] * 2
    np.testing.assert_allclose(table["precision"], precision_score(y, b, average=None), rtol=1e-12)
    np.testing.assert_allclose(
        table["precision_reference"], precision_score(y, a, average=None), rtol=1e-12
    )
    assert result.get(1, ("rf", 2))["precision"] == pytest.approx(precision_score(y, b), rel=1e-12)
    out = result.at_prevalence({1: 0.2}, n_resamples=20, random_state=0)
    assert out["classifier"].tolist() == [("rf", 1), ("rf", 2)]
    assert "('rf', 2)" in result.summary().as_text()


@pytest.mark.parametrize("test", ["wald", "ratio"])
@pytest.mark.parametrize("clustered", [False, True])
def test_permutation_global_test_same_statistic_on_data_and_permutations(test, clustered):
    # The permuted p-values use the robust covariance, so an exact
    # permutation test must combine the data's robust p-values too, not the
    # bias-reduced ones of the table (larger, so the test was conservative).
    y, a, b = _data(n=90, n_classes=3, seed=1)
    groups = np.repeat(np.arange(15), 6) if clustered else None
    kwargs = dict(method="permutation", test=test, n_resamples=200, random_state=0)
    preds = {"a": a, "b": b}
    robust = compare_precision(y, preds, groups=groups)
    reduced = compare_precision(y, preds, groups=groups, cov_type="bias_reduced")
    column = f"{test}_pvalue"
    assert (reduced.table[column] > robust.table[column]).any()
    expected = robust.global_test(**kwargs)
    result = reduced.global_test(**kwargs)
    assert result.statistic == pytest.approx(expected.statistic, rel=1e-12)
    assert result.pvalue == expected.pvalue


def test_few_clusters_warning_advises_bias_reduced_only_when_not_used():
    y, a, b = _data(n=60, n_classes=2)
    groups = np.repeat(np.arange(20), 3)
    with pytest.warns(UndefinedStatisticWarning, match="liberal") as record:
        compare_precision(y, {"a": a, "b": b}, groups=groups, cov_type="bias_reduced")
    assert not any("cov_type='bias_reduced'" in str(w.message) for w in record)
    with pytest.warns(UndefinedStatisticWarning, match="cov_type='bias_reduced' helps"):
        compare_precision(y, {"a": a, "b": b}, groups=groups)


# Binary records where "never" never predicts class 1 and "always" always does.
_Y = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0])
_A = np.array([1, 1, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0])
_NEVER = np.zeros(12, dtype=int)
_ALWAYS = np.ones(12, dtype=int)


def _at_prevalence(compare, preds, prevalence):
    result = compare(_Y, preds)
    with pytest.warns(UndefinedStatisticWarning) as record:
        out = result.at_prevalence(prevalence, n_resamples=50, random_state=0)
    return out.set_index(["class", "classifier"]), [str(w.message) for w in record]


def test_npv_at_prevalence_of_a_classifier_that_never_predicts_the_class():
    # Se = 0 and Sp = 1, so Bayes' rule gives NPV = 1 - pi: defined, but its
    # LR- is 1 with zero variance, so the analytic interval is not.
    out, messages = _at_prevalence(compare_npv, {"a": _A, "never": _NEVER}, {1: 0.3})
    row = out.loc[(1, "never")]
    assert row["npv_at_prevalence"] == pytest.approx(0.7, rel=1e-12)
    assert np.isnan(row["ci_low"]) and np.isnan(row["ci_high"])
    assert len(messages) == 1
    assert "'never' never predicts class(es) [1]" in messages[0]
    assert "npv at prevalence" in messages[0] and "(0/0)" not in messages[0]


def test_npv_at_prevalence_undefined_for_a_classifier_that_always_predicts_the_class():
    out, messages = _at_prevalence(compare_npv, {"a": _A, "always": _ALWAYS}, {1: 0.3})
    assert np.isnan(out.loc[(1, "always"), "npv_at_prevalence"])
    assert any("'always' always predicts class(es) [1]" in m for m in messages)


def test_npv_at_prevalence_without_false_negatives_has_no_analytic_interval():
    # Every row "b" does not assign to class 1 is of class 0: NPV 1, LR- = 0.
    b = np.array([1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 1, 0])
    out, messages = _at_prevalence(compare_npv, {"a": _A, "b": b}, {1: 0.4})
    row = out.loc[(1, "b")]
    assert row["npv_at_prevalence"] == 1.0
    assert np.isnan(row["ci_low"]) and np.isnan(row["ci_high"])
    assert any("'b' has no false negatives (LR- = 0) for class(es) [1]" in m for m in messages)
    assert not any("positives" in m for m in messages)


def test_precision_at_prevalence_of_a_classifier_that_always_predicts_the_class():
    # Se = 1 and Sp = 0: the precision at prevalence is pi, but LR+ = 1 has
    # zero variance, so the analytic interval is undefined (not [pi, pi]).
    out, messages = _at_prevalence(compare_precision, {"a": _A, "always": _ALWAYS}, {1: 0.3})
    row = out.loc[(1, "always")]
    assert row["precision_at_prevalence"] == pytest.approx(0.3, rel=1e-12)
    assert np.isnan(row["ci_low"]) and np.isnan(row["ci_high"])
    assert messages == [
        "Classifier 'always' predicts class(es) [1] for every row: its LR+ is 1 with a "
        "variance of zero, so the analytic confidence interval of its precision at "
        "prevalence is undefined and reported as NaN."
    ]


@pytest.mark.parametrize("as_frame", [True, False])
def test_groups_index_checked_against_predictions_when_y_true_has_none(as_frame):
    # y_true is a plain array, so only the predictions' index can tell that
    # groups (a Series in another row order) would pair the wrong records.
    y, a, b = _data(n=60)
    order = np.random.default_rng(0).permutation(60)
    groups = pd.Series(np.arange(60) // 2, index=order)
    preds = pd.DataFrame({"a": a, "b": b})
    preds = preds if as_frame else {"a": preds["a"], "b": preds["b"]}
    with pytest.raises(ValueError, match=r"groups and y_preds\['a'\] are pandas objects"):
        compare_precision(y, preds, groups=groups)
    aligned = groups.sort_index()
    np.testing.assert_array_equal(
        compare_precision(y, preds, groups=aligned).table["gs_pvalue"],
        compare_precision(y, {"a": a, "b": b}, groups=aligned.to_numpy()).table["gs_pvalue"],
    )


@pytest.mark.parametrize(
    "clone", [copy.deepcopy, lambda r: pickle.loads(pickle.dumps(r))], ids=["deepcopy", "pickle"]
)
def test_copied_comparison_stays_read_only(clone):
    y, a, b = _data(n=60, n_classes=3)
    result = compare_precision(y, {"a": a, "b": b})
    copied = clone(result)
    pd.testing.assert_frame_equal(copied.table, result.table)
    with pytest.raises(ValueError, match="read-only"):
        copied.classes[0] = 7
    with pytest.raises(ValueError, match="read-only"):
        copied._statistics["value"][0, 0] = 0.0
    with pytest.raises(AttributeError, match="frozen"):
        copied.metric = "recall"


def test_wgs_across_classes_with_groups_is_rejected():
    # WGS is NaN by design with repeated records: combining or adjusting it
    # can only give NaN, so asking for it is an error that names the fix.
    y, a, b = _data(n=120, n_classes=3)
    result = compare_precision(y, {"a": a, "b": b}, groups=np.arange(120) // 2)
    assert result.table["wgs_pvalue"].isna().all()
    with pytest.raises(ValueError, match="test='wgs' is undefined with repeated records"):
        result.global_test(test="wgs", method="simes")
    with pytest.raises(ValueError, match="Use test='gs'"):
        result.adjusted_pvalues(test="wgs")


def test_global_test_warning_when_no_class_is_defined():
    y, a, _ = _data(n=120, n_classes=3)
    result = compare_precision(y, {"a": a, "b": a.copy()})
    with pytest.warns(UndefinedStatisticWarning) as record:
        out = result.global_test(method="simes")
    assert np.isnan(out.pvalue) and out.n_tests == 0
    assert len(record) == 1
    assert "no class is left to combine, so the global test is NaN" in str(record[0].message)


@pytest.mark.parametrize("ci", ["analytic", "bootstrap"])
def test_at_prevalence_of_a_single_cluster_has_no_intervals(ci):
    # One record: the sandwich variance is zero and every bootstrap resample
    # is the data again, so the intervals would collapse onto the estimate.
    y, a, b = _data(n=60)
    result = compare_precision(y, {"a": a, "b": b}, groups=np.zeros(60))
    with pytest.warns(UndefinedStatisticWarning, match="single record") as record:
        out = result.at_prevalence(0.2, ci=ci, n_resamples=50, random_state=0)
    assert len(record) == 1
    assert out[["ci_low", "ci_high", "ratio_ci_low", "ratio_ci_high"]].isna().all().all()
    # The point estimates stay: Bayes' rule on sensitivity and specificity.
    for (k, name), value in out.set_index(["class", "classifier"])[
        "precision_at_prevalence"
    ].items():
        pred = {"a": a, "b": b}[name] == k
        se = recall_score(y == k, pred)
        fpr = 1 - recall_score(y != k, ~pred)
        pi = 0.2 if k == 1 else 0.8
        assert value == pytest.approx(se * pi / (se * pi + fpr * (1 - pi)), rel=1e-12)


def test_statsmodels_engine_with_counts_is_rejected_not_ignored():
    y, a, b = _data(n=60)
    counts = ComparisonCounts.from_arrays(y, {"a": a, "b": b})
    with pytest.raises(ValueError, match="engine='statsmodels' refits the GEE on every row"):
        compare_precision(counts, engine="statsmodels")
    assert compare_precision(counts).engine == "closed-form"


def test_non_numeric_weights_and_pvalues_name_the_argument():
    with pytest.raises(ValueError, match="weights must be an array of numbers, got dict"):
        combine_pvalues_dependent([0.1, 0.2], weights={0: 1.0, 1: 2.0})
    with pytest.raises(ValueError, match="pvalues must be an array of numbers"):
        combine_pvalues_dependent([0.1, "low"])
    with pytest.raises(ValueError, match="null_pvalues must be an array of numbers"):
        combine_pvalues_dependent([0.1, 0.2], null_pvalues=[[0.5, None], [0.1]])
    y, a, b = _data(n=60, n_classes=3)
    result = compare_precision(y, {"a": a, "b": b})
    with pytest.raises(ValueError, match="weights must be an array of numbers"):
        result.global_test(method="fisher", weights=["one", "two", "three"])
