"""The comparison scorer when a test fold's comparison is undefined."""

import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import GridSearchCV, PredefinedSplit

from sklearn_precision_stats import (
    PairedPrecisionComparator,
    UndefinedStatisticWarning,
    compare_precision,
    make_comparison_scorer,
)


class ColumnClassifier(ClassifierMixin, BaseEstimator):
    """Predicts column `k` of X: the test fixes every candidate's predictions."""

    def __init__(self, k=0):
        self.k = k

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.asarray(X)[:, self.k].astype(int)


def _data(seed=0):
    """Three folds of 60 records; column 0 is the reference's predictions.

    Column 1 beats the reference's precision of class 1 a little in every
    fold; column 2 beats it by far in folds 0 and 1 but never predicts class
    1 in fold 2, where its precision (and so the difference) is undefined.
    """
    rng = np.random.default_rng(seed)
    n_fold = 60
    fold = np.repeat(np.arange(3), n_fold)
    y = np.tile(np.r_[np.ones(30, int), np.zeros(30, int)], 3)

    def noisy(flip):
        return np.where(rng.random(y.shape[0]) < flip, 1 - y, y)

    X = np.column_stack([noisy(0.4), noisy(0.3), noisy(0.02)])
    X[fold == 2, 2] = 0
    return X, y, fold


@pytest.mark.parametrize(
    ("output", "test", "neutral"),
    [("diff", "gs", 0.0), ("ratio", "gs", 1.0), ("pvalue", "gs", -1.0), ("statistic", "wald", 0.0)],
)
def test_undefined_fold_scores_the_neutral_value(output, test, neutral):
    X, y, fold = _data()
    comparator = PairedPrecisionComparator(
        {"ref": ColumnClassifier(0), "clf": ColumnClassifier(2)}, reference="ref"
    ).fit(X, y)
    scorer = make_comparison_scorer(test, output, label=1)
    test_rows = fold == 2
    # Independent check: the comparison of this fold is undefined.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = compare_precision(y[test_rows], {"ref": X[test_rows, 0], "clf": X[test_rows, 2]})
    assert np.isnan(table.table.loc[table.table["class"] == 1, "diff"]).all()
    with pytest.warns(UndefinedStatisticWarning, match="class 1"):
        assert scorer(comparator, X[test_rows], y[test_rows]) == neutral
    kept = make_comparison_scorer(test, output, label=1, undefined=np.nan)
    with pytest.warns(UndefinedStatisticWarning):
        assert np.isnan(kept(comparator, X[test_rows], y[test_rows]))
    worst = make_comparison_scorer(test, output, label=1, undefined=-5)
    with pytest.warns(UndefinedStatisticWarning):
        assert worst(comparator, X[test_rows], y[test_rows]) == -5.0


def test_grid_search_ranks_a_candidate_with_an_undefined_fold():
    X, y, fold = _data()
    comparator = PairedPrecisionComparator(
        {"ref": ColumnClassifier(0), "clf": ColumnClassifier(1)}, reference="ref"
    )
    search = GridSearchCV(
        comparator,
        {"clf__k": [1, 2]},
        scoring=make_comparison_scorer(output="diff", label=1),
        cv=PredefinedSplit(fold),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        search.fit(X, y)
    means = search.cv_results_["mean_test_score"]
    assert np.isfinite(means).all()
    # The expected means, fold by fold, from compare_precision itself.
    expected = []
    for k in (1, 2):
        diffs = []
        for f in range(3):
            rows = fold == f
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                table = compare_precision(y[rows], {"ref": X[rows, 0], "clf": X[rows, k]}).table
            diff = float(table.loc[table["class"] == 1, "diff"].iloc[0])
            diffs.append(0.0 if np.isnan(diff) else diff)
        expected.append(np.mean(diffs))
    np.testing.assert_allclose(means, expected, rtol=1e-12)
    # Candidate 2 wins on its two defined folds by more than candidate 1 on
    # three: with NaN for its undefined fold it would have been ranked last.
    assert expected[1] > expected[0]
    assert search.best_params_ == {"clf__k": 2}
    assert search.cv_results_["rank_test_score"].tolist() == [2, 1]


def test_undefined_must_be_neutral_or_a_number():
    with pytest.raises(ValueError, match="undefined must be 'neutral' or a number"):
        make_comparison_scorer(label=1, undefined="worst")
    with pytest.raises(ValueError, match="undefined must be 'neutral' or a number"):
        make_comparison_scorer(label=1, undefined=True)
