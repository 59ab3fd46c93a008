"""The comparators and the scorer on every measure of compare_metric."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.metrics import cohen_kappa_score, f1_score, matthews_corrcoef, precision_score
from sklearn.model_selection import KFold, RepeatedStratifiedKFold, cross_validate
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

from sklearn_precision_stats import (
    CVPrecisionComparator,
    MetricComparison,
    PairedComparison,
    PairedPrecisionComparator,
    compare_metric,
    compare_precision,
    make_comparison_scorer,
)


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    order = np.random.default_rng(0).permutation(y.shape[0])
    return X[order], y[order]


def _estimators():
    return {"nb": GaussianNB(), "tree": DecisionTreeClassifier(max_depth=2, random_state=0)}


@pytest.fixture(scope="module")
def paired(iris):
    X, y = iris
    comparator = PairedPrecisionComparator(_estimators()).fit(X[:75], y[:75])
    return comparator, X[75:], y[75:]


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


@pytest.mark.parametrize(
    ("metric", "average", "params", "sklearn_value"),
    [
        ("f1", "macro", {}, lambda y, p: f1_score(y, p, average="macro")),
        ("f1", "micro", {}, lambda y, p: f1_score(y, p, average="micro")),
        ("precision", "weighted", {}, lambda y, p: precision_score(y, p, average="weighted")),
        ("mcc", None, {}, matthews_corrcoef),
        (
            "cohen_kappa",
            None,
            {"weights": "quadratic"},
            lambda y, p: cohen_kappa_score(y, p, weights="quadratic"),
        ),
    ],
)
def test_paired_compare_takes_every_measure(paired, metric, average, params, sklearn_value):
    comparator, X_test, y_test = paired
    result = _quiet(comparator.compare, X_test, y_test, metric=metric, average=average, **params)
    assert isinstance(result, MetricComparison)
    preds = comparator.predict_all(X_test)
    row = result.table.iloc[0]
    assert row["classifier"] == "tree" and row["class"] == (average or "all")
    np.testing.assert_allclose(row[metric], sklearn_value(y_test, preds["tree"]), rtol=1e-12)
    np.testing.assert_allclose(
        row[f"{metric}_reference"], sklearn_value(y_test, preds["nb"]), rtol=1e-12
    )
    expected = _quiet(compare_metric, y_test, preds, metric=metric, average=average, **params)
    for column in ("diff", "diff_se", "diff_pvalue", "diff_ci_low"):
        np.testing.assert_array_equal(result.table[column], expected.table[column])


def test_per_class_f1_and_the_gee_measures_unchanged(paired):
    comparator, X_test, y_test = paired
    preds = comparator.predict_all(X_test)
    f1 = _quiet(comparator.compare, X_test, y_test, metric="f1")
    np.testing.assert_allclose(
        f1.table["f1"], f1_score(y_test, preds["tree"], average=None), rtol=1e-12
    )
    gee = _quiet(comparator.compare, X_test, y_test, metric="precision")
    assert isinstance(gee, PairedComparison)
    expected = _quiet(compare_precision, y_test, preds)
    np.testing.assert_array_equal(gee.table["gs_pvalue"], expected.table["gs_pvalue"])
    with pytest.raises(ValueError, match="metric must be one of"):
        comparator.compare(X_test, y_test, metric="f2")
    with pytest.raises(ValueError, match="average must be one of"):
        comparator.compare(X_test, y_test, metric="f1", average="mean")


def test_cv_compare_is_clustered_by_record(iris):
    X, y = iris
    cv = RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=0)
    comparator = _quiet(CVPrecisionComparator(_estimators(), cv=cv).fit, X, y)
    result = _quiet(comparator.compare, "f1", average="macro")
    frame = comparator.predictions_
    nb, tree = frame[frame.classifier == "nb"], frame[frame.classifier == "tree"]
    np.testing.assert_allclose(
        result.table["f1"], f1_score(tree["y_true"], tree["y_pred"], average="macro"), rtol=1e-12
    )
    expected = _quiet(
        compare_metric,
        nb["y_true"].to_numpy(),
        {"nb": nb["y_pred"].to_numpy(), "tree": tree["y_pred"].to_numpy()},
        metric="f1",
        average="macro",
        groups=nb["record_id"].to_numpy(),
    )
    np.testing.assert_array_equal(result.table["diff_se"], expected.table["diff_se"])
    assert result.n_records == y.shape[0] < result.n_rows
    assert isinstance(_quiet(comparator.compare, "recall"), PairedComparison)


def test_measure_warnings_point_at_the_caller(paired):
    _, X_test, y_test = paired
    # Two identical classifiers: the difference has no variance.
    identical = PairedPrecisionComparator({"a": GaussianNB(), "b": GaussianNB()}).fit(
        X_test, y_test
    )
    with pytest.warns(Warning) as record:
        identical.compare(X_test, y_test, metric="mcc")
    assert record and all(item.filename == __file__ for item in record)


def test_scorer_on_compare_metric_measures(iris):
    X, y = iris
    comparator = PairedPrecisionComparator(_estimators())
    cv = KFold(3)
    scoring = {
        "diff": make_comparison_scorer(output="diff", metric="f1", average="macro"),
        "neg_p": make_comparison_scorer(metric="mcc"),
        "z": make_comparison_scorer(output="statistic", metric="f1", label=2),
    }
    scores = _quiet(cross_validate, comparator, X, y, cv=cv, scoring=scoring)
    for i, (train, test) in enumerate(cv.split(X)):
        fitted = {name: est.fit(X[train], y[train]) for name, est in _estimators().items()}
        preds = {name: est.predict(X[test]) for name, est in fitted.items()}
        diff = f1_score(y[test], preds["tree"], average="macro") - f1_score(
            y[test], preds["nb"], average="macro"
        )
        np.testing.assert_allclose(scores["test_diff"][i], diff, rtol=1e-12, atol=1e-15)
        mcc = _quiet(compare_metric, y[test], preds, metric="mcc").table.iloc[0]
        p = mcc["diff_pvalue"]
        assert scores["test_neg_p"][i] == (-1.0 if np.isnan(p) else -p)
        per_class = _quiet(compare_metric, y[test], preds, metric="f1").table
        row = per_class[per_class["class"] == 2].iloc[0]
        with np.errstate(invalid="ignore"):  # 0/0 when the class's difference is undefined
            z = row["diff"] / row["diff_se"]
        assert scores["test_z"][i] == pytest.approx(0.0 if np.isnan(z) else z, rel=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"metric": "f1", "average": "macro", "output": "ratio"}, "output='ratio'"),
        ({"metric": "f1", "average": "macro", "label": 1}, "label=1 was given"),
        ({"metric": "mcc", "label": 1}, "mcc pools the classes"),
        ({"metric": "f1"}, "label is needed"),
        ({"metric": "f1", "average": "macro", "test": "gs"}, "delta method's Wald test"),
        ({"metric": "f1", "average": "mean"}, "average must be one of"),
        ({"metric": "f3", "label": 1}, "metric must be one of"),
    ],
)
def test_scorer_rejects_what_a_measure_does_not_have(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_comparison_scorer(**kwargs)
