"""Classifier names that are tuples (a DataFrame's MultiIndex columns) stay one name each."""

import warnings

import numpy as np
import pandas as pd
import pytest

import sklearn_precision_stats as sps

rng = np.random.default_rng(0)
Y = rng.integers(0, 3, 300)
A = np.where(rng.random(300) < 0.7, Y, rng.integers(0, 3, 300))
B = np.where(rng.random(300) < 0.6, Y, rng.integers(0, 3, 300))
NAMES = [("rf", 1), ("rf", 2)]


@pytest.mark.parametrize(
    "function",
    [
        lambda y, p: sps.compare_metric(y, p, metric="f1"),
        sps.exact_binomial_test,
        sps.relative_predictive_values,
        sps.sensitivity_specificity_difference,
        sps.compare_likelihood_ratios,
    ],
)
def test_tables_keep_tuple_names_whole(function):
    preds = pd.DataFrame({NAMES[0]: A, NAMES[1]: B})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = function(Y, dict(preds.items())).table
    # Rows per class (and measure), each naming the compared classifier as
    # the tuple.
    assert len(table) in (3, 6)
    assert table["classifier"].tolist() == [NAMES[1]] * len(table)
    if "reference" in table:
        assert table["reference"].tolist() == [NAMES[0]] * len(table)


@pytest.mark.parametrize("marks", [False, "x", [0.05, "a"]])
def test_export_marks_of_wrong_type_name_the_argument(marks):
    result = sps.compare_precision(Y, {"a": A, "b": B})
    with pytest.raises(ValueError, match="marks must be decreasing significance levels"):
        result.to_markdown(marks=marks)
