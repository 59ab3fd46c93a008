"""The comparators and the scorer on the threshold-free measures of scores."""

import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import average_precision_score, roc_auc_score
from sklearn.model_selection import (
    KFold,
    RepeatedStratifiedKFold,
    StratifiedKFold,
    cross_val_predict,
    cross_validate,
)
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from sklearn_precision_stats import (
    CVPrecisionComparator,
    PairedPrecisionComparator,
    compare_average_precision,
    compare_roc_auc,
    make_comparison_scorer,
)


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def _shuffled(load):
    X, y = load(return_X_y=True)
    order = np.random.default_rng(0).permutation(y.shape[0])
    return X[order], y[order]


def _estimators():
    return {
        "nb": GaussianNB(),
        "svc": make_pipeline(StandardScaler(), LinearSVC(C=0.01)),  # decision_function
    }


@pytest.mark.parametrize("load", [load_iris, load_breast_cancer])
def test_paired_compare_scores_point_values_are_scikit_learns(load):
    X, y = _shuffled(load)
    half = y.shape[0] // 2
    comparator = PairedPrecisionComparator(_estimators()).fit(X[:half], y[:half])
    X_test, y_test = X[half:], y[half:]
    nb = comparator.named_estimators_["nb"].predict_proba(X_test)
    svc = comparator.named_estimators_["svc"].decision_function(X_test)
    ap = _quiet(comparator.compare_scores, X_test, y_test, n_resamples=200, random_state=0)
    auc = _quiet(comparator.compare_scores, X_test, y_test, metric="roc_auc")
    if nb.shape[1] == 2:
        expected_ap = [average_precision_score(y_test, svc)]
        expected_ref = [average_precision_score(y_test, nb[:, 1])]
        expected_auc = [roc_auc_score(y_test, svc)]
        scores = {"nb": nb[:, 1], "svc": svc}
    else:
        onehot = y_test[:, None] == np.arange(3)
        expected_ap = average_precision_score(onehot, svc, average=None)
        expected_ref = average_precision_score(onehot, nb, average=None)
        expected_auc = roc_auc_score(onehot, svc, average=None)
        scores = {"nb": nb, "svc": svc}
    np.testing.assert_allclose(ap.table["average_precision"], expected_ap, rtol=1e-12)
    np.testing.assert_allclose(ap.table["average_precision_reference"], expected_ref, rtol=1e-12)
    np.testing.assert_allclose(auc.table["roc_auc"], expected_auc, rtol=1e-12)
    direct = _quiet(compare_average_precision, y_test, scores, n_resamples=200, random_state=0)
    for column in ("diff", "diff_se", "diff_pvalue", "diff_ci_low"):
        np.testing.assert_array_equal(ap.table[column], direct.table[column])


class LabelsOnly(ClassifierMixin, BaseEstimator):
    """A classifier with predict alone: no scores."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.classes_[0])


def test_compare_scores_needs_scores():
    X, y = _shuffled(load_iris)
    comparator = PairedPrecisionComparator({"nb": GaussianNB(), "labels": LabelsOnly()}).fit(X, y)
    with pytest.raises(ValueError, match="neither predict_proba nor decision_function"):
        comparator.compare_scores(X, y)
    with pytest.raises(ValueError, match="metric must be one of"):
        PairedPrecisionComparator(_estimators()).fit(X, y).compare_scores(X, y, metric="f1")


def test_cv_stores_out_of_fold_scores():
    X, y = _shuffled(load_iris)
    cv = StratifiedKFold(3)
    comparator = _quiet(
        CVPrecisionComparator(
            {"nb": GaussianNB(), "lr": LogisticRegression()}, cv=cv, store_scores=True
        ).fit,
        X,
        y,
    )
    for name, estimator in (("nb", GaussianNB()), ("lr", LogisticRegression())):
        expected = cross_val_predict(estimator, X, y, cv=cv, method="predict_proba")
        np.testing.assert_allclose(comparator.scores_[name], expected, rtol=1e-12)
    without = _quiet(CVPrecisionComparator(_estimators(), cv=cv).fit, X, y)
    with pytest.raises(ValueError, match="store_scores=True"):
        without.compare_scores()


def test_cv_compare_scores_is_clustered_by_record():
    X, y = _shuffled(load_breast_cancer)
    cv = RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=0)
    comparator = _quiet(CVPrecisionComparator(_estimators(), cv=cv, store_scores=True).fit, X, y)
    result = _quiet(comparator.compare_scores, n_resamples=300, random_state=1)
    frame = comparator.predictions_
    first = frame[frame.classifier == "nb"]
    records = first["record_id"].to_numpy()
    expected = _quiet(
        compare_average_precision,
        first["y_true"].to_numpy(),
        comparator.scores_,
        groups=records,
        n_resamples=300,
        random_state=1,
    )
    np.testing.assert_array_equal(result.table["diff_se"], expected.table["diff_se"])
    assert result.n_records == y.shape[0] < result.n_rows
    # ROC AUC by DeLong's test with the records as clusters (Obuchowski).
    auc = _quiet(comparator.compare_scores, "roc_auc")
    assert auc.method == "delong"
    expected_auc = _quiet(
        compare_roc_auc, first["y_true"].to_numpy(), comparator.scores_, groups=records
    )
    np.testing.assert_array_equal(auc.table["diff_se"], expected_auc.table["diff_se"])
    assert auc.n_records == y.shape[0] < auc.n_rows
    np.testing.assert_allclose(
        auc.table["roc_auc"], roc_auc_score(first["y_true"], comparator.scores_["svc"]), rtol=1e-12
    )


def test_scorer_on_threshold_free_measures():
    X, y = _shuffled(load_breast_cancer)
    cv = KFold(3)
    scoring = {
        "ap": make_comparison_scorer(
            metric="average_precision", output="diff", n_resamples=100, random_state=0
        ),
        "auc_p": make_comparison_scorer(metric="roc_auc"),
    }
    scores = _quiet(
        cross_validate, PairedPrecisionComparator(_estimators()), X, y, cv=cv, scoring=scoring
    )
    for i, (train, test) in enumerate(cv.split(X)):
        fitted = {name: est.fit(X[train], y[train]) for name, est in _estimators().items()}
        nb = fitted["nb"].predict_proba(X[test])[:, 1]
        svc = fitted["svc"].decision_function(X[test])
        diff = average_precision_score(y[test], svc) - average_precision_score(y[test], nb)
        np.testing.assert_allclose(scores["test_ap"][i], diff, rtol=1e-12)
        p = _quiet(compare_roc_auc, y[test], {"nb": nb, "svc": svc}).table["diff_pvalue"].iloc[0]
        np.testing.assert_allclose(scores["test_auc_p"][i], -p, rtol=1e-12)
    with pytest.raises(ValueError, match="pass test=None"):
        make_comparison_scorer("gs", metric="average_precision")
    with pytest.raises(ValueError, match="output='ratio' is not available"):
        make_comparison_scorer(output="ratio", metric="roc_auc")


def test_scorer_needs_a_label_for_several_classes():
    X, y = _shuffled(load_iris)
    comparator = PairedPrecisionComparator(_estimators()).fit(X, y)
    with pytest.raises(ValueError, match="label is needed"):
        _quiet(make_comparison_scorer(metric="roc_auc"), comparator, X, y)
    value = _quiet(
        make_comparison_scorer(metric="roc_auc", output="diff", label=2), comparator, X, y
    )
    assert np.isfinite(value)
