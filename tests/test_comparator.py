"""PairedPrecisionComparator as a scikit-learn meta-estimator, and the scorer."""

import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.datasets import load_iris, make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import (
    GridSearchCV,
    StratifiedKFold,
    cross_validate,
    train_test_split,
)
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

from sklearn_precision_stats import (
    PairedPrecisionComparator,
    compare_accuracy,
    compare_npv,
    compare_precision,
    compare_recall,
    compare_specificity,
    make_comparison_scorer,
)

_COMPARE = {
    "precision": compare_precision,
    "npv": compare_npv,
    "recall": compare_recall,
    "specificity": compare_specificity,
    "accuracy": compare_accuracy,
}

# Perfectly separated classes (iris setosa, digits) make some Wald tests
# undefined: expected here, and tested in test_undefined.py.
pytestmark = pytest.mark.filterwarnings("ignore::sklearn_precision_stats.UndefinedStatisticWarning")


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(600, 8, n_informative=5, n_classes=3, random_state=0)
    return train_test_split(X, y, test_size=0.4, random_state=0)


def _estimators():
    return {
        "nb": GaussianNB(),
        "tree": DecisionTreeClassifier(max_depth=4, random_state=0),
        "lr": make_pipeline(StandardScaler(), LogisticRegression(max_iter=500)),
    }


def test_compare_equals_compare_precision_on_predictions(data):
    X_train, X_test, y_train, y_test = data
    comp = PairedPrecisionComparator(_estimators(), reference="tree").fit(X_train, y_train)
    result = comp.compare(X_test, y_test)
    preds = {name: est.fit(X_train, y_train).predict(X_test) for name, est in _estimators().items()}
    expected = compare_precision(y_test, preds, reference="tree")
    pd.testing.assert_frame_equal(result.table, expected.table)
    pd.testing.assert_frame_equal(result.omnibus, expected.omnibus)
    assert result.reference == "tree"
    assert list(comp.named_estimators_) == ["nb", "tree", "lr"]
    np.testing.assert_array_equal(comp.classes_, [0, 1, 2])
    assert comp.n_features_in_ == 8


def test_parallel_fit_gives_identical_results(data):
    X_train, X_test, y_train, y_test = data
    one = PairedPrecisionComparator(_estimators(), n_jobs=1).fit(X_train, y_train)
    two = PairedPrecisionComparator(_estimators(), n_jobs=2).fit(X_train, y_train)
    pd.testing.assert_frame_equal(
        one.compare(X_test, y_test).table, two.compare(X_test, y_test).table
    )


def test_get_set_params_and_clone():
    comp = PairedPrecisionComparator(_estimators(), reference="nb", confidence_level=0.9)
    params = comp.get_params()
    assert params["reference"] == "nb" and params["confidence_level"] == 0.9
    assert params["tree__max_depth"] == 4
    assert params["lr__logisticregression__max_iter"] == 500
    comp.set_params(tree__max_depth=2, confidence_level=0.99, lr__logisticregression__C=0.5)
    assert comp.estimators["tree"].max_depth == 2 and comp.confidence_level == 0.99
    comp.set_params(nb=LogisticRegression())
    assert isinstance(comp.estimators["nb"], LogisticRegression)
    cloned = clone(comp)
    assert cloned.get_params()["tree__max_depth"] == 2
    assert cloned.estimators["tree"] is not comp.estimators["tree"]
    with pytest.raises(ValueError, match="'zzz' is neither a parameter nor an estimator"):
        comp.set_params(zzz__a=1)
    # List-of-pairs form, as in VotingClassifier.
    as_list = PairedPrecisionComparator(list(_estimators().items()))
    as_list.set_params(tree__max_depth=3)
    assert dict(as_list.estimators)["tree"].max_depth == 3
    assert clone(as_list).get_params()["tree__max_depth"] == 3


def test_grid_search_over_nested_params(data):
    X_train, _, y_train, _ = data
    comp = PairedPrecisionComparator({"nb": GaussianNB(), "tree": DecisionTreeClassifier()})
    search = GridSearchCV(
        comp,
        {"tree__max_depth": [2, 4]},
        cv=StratifiedKFold(2),
        scoring=make_comparison_scorer(output="diff", label=1),
    )
    search.fit(X_train, y_train)
    assert search.best_params_["tree__max_depth"] in (2, 4)


def test_dataframe_input_and_pipelines():
    X, y = load_iris(return_X_y=True, as_frame=True)
    names = np.array(["setosa", "versicolor", "virginica"])
    y = pd.Series(names[y], index=X.index)
    comp = PairedPrecisionComparator(
        [
            ("rf", RandomForestClassifier(n_estimators=20, random_state=0)),
            ("lr", make_pipeline(StandardScaler(), LogisticRegression())),
        ]
    ).fit(X.iloc[::2], y.iloc[::2])
    result = comp.compare(X.iloc[1::2], y.iloc[1::2])
    assert list(result.classes) == list(names)
    np.testing.assert_array_equal(comp.feature_names_in_, X.columns)


def test_bad_estimators():
    with pytest.raises(ValueError, match="at least two classifiers"):
        PairedPrecisionComparator({"nb": GaussianNB()}).fit([[0], [1]], [0, 1])
    with pytest.raises(ValueError, match="reference='x' is not one of the estimators"):
        PairedPrecisionComparator(_estimators(), reference="x").fit([[0], [1]], [0, 1])
    with pytest.raises(ValueError, match="must implement fit and predict"):
        PairedPrecisionComparator({"a": GaussianNB(), "b": "svm"}).fit([[0], [1]], [0, 1])
    with pytest.raises(ValueError, match="without '__'"):
        PairedPrecisionComparator({"a__b": GaussianNB(), "b": GaussianNB()}).fit([[0]], [0])
    with pytest.raises(ValueError, match="dict name -> estimator"):
        PairedPrecisionComparator([GaussianNB(), GaussianNB()]).fit([[0], [1]], [0, 1])


def test_compare_before_fit():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        PairedPrecisionComparator(_estimators()).compare([[0] * 8], [0])


@pytest.mark.parametrize("test", ["gs", "wgs", "wald", "ratio"])
@pytest.mark.parametrize("output", ["pvalue", "statistic", "ratio", "diff"])
@pytest.mark.parametrize("metric", ["precision", "npv", "accuracy"])
def test_scorer_in_cross_validate(test, output, metric):
    X, y = make_classification(600, 6, flip_y=0.2, random_state=1)
    comp = PairedPrecisionComparator(
        {"tree": DecisionTreeClassifier(max_depth=5, random_state=0), "nb": GaussianNB()}
    )
    label = None if metric == "accuracy" else 1
    scorer = make_comparison_scorer(test, output, metric=metric, label=label)
    cv = StratifiedKFold(3)
    scores = cross_validate(comp, X, y, cv=cv, scoring={"s": scorer})["test_s"]
    assert scores.shape == (3,) and np.isfinite(scores).all()
    # The last fold by hand, from the public comparison functions.
    train, test_idx = list(cv.split(X, y))[-1]
    preds = {
        name: clone(est).fit(X[train], y[train]).predict(X[test_idx])
        for name, est in comp.estimators.items()
    }
    compare = {
        "precision": compare_precision,
        "npv": compare_npv,
        "accuracy": compare_accuracy,
    }[metric]
    table = compare(y[test_idx], preds).table
    row = table.iloc[0] if metric == "accuracy" else table[table["class"] == 1].iloc[0]
    expected = {
        "ratio": row["ratio"],
        "diff": row[metric] - row[f"{metric}_reference"],
        # p-values are negated so that grid search maximises -p.
        "pvalue": -row["ratio_pvalue" if test == "ratio" else f"{test}_pvalue"],
        "statistic": (
            np.log(row["ratio"]) / row["ratio_se_log"] if test == "ratio" else row[f"{test}_stat"]
        ),
    }[output]
    assert scores[-1] == pytest.approx(expected, rel=1e-12)
    if output == "pvalue":
        assert (scores <= 0).all()


def test_scorer_errors_and_pickle():
    X, y = make_classification(200, 5, random_state=2)
    comp = PairedPrecisionComparator(
        {"a": GaussianNB(), "b": DecisionTreeClassifier(), "c": LogisticRegression()}
    ).fit(X, y)
    # A missing label is an error when the scorer is made, not NaN scores
    # inside a grid search.
    with pytest.raises(ValueError, match="label is needed.*label=<class>"):
        make_comparison_scorer()
    with pytest.raises(ValueError, match="label is needed.*metric='recall'"):
        make_comparison_scorer(metric="recall")
    with pytest.raises(ValueError, match="accuracy pools the classes"):
        make_comparison_scorer(metric="accuracy", label=1)
    with pytest.raises(ValueError, match="classifier is needed"):
        make_comparison_scorer(label=1)(comp, X, y)
    with pytest.raises(ValueError, match="label=7 is not a class"):
        make_comparison_scorer(label=7, classifier="c")(comp, X, y)
    with pytest.raises(ValueError, match="classifier='z' is not compared"):
        make_comparison_scorer(label=1, classifier="z")(comp, X, y)
    assert np.isfinite(make_comparison_scorer(label=1, classifier="c")(comp, X, y))
    assert np.isfinite(make_comparison_scorer(metric="accuracy", classifier="c")(comp, X, y))
    with pytest.raises(ValueError, match="test must be one of"):
        make_comparison_scorer("auc", label=1)
    with pytest.raises(ValueError, match="output must be one of"):
        make_comparison_scorer(output="f1", label=1)
    with pytest.raises(ValueError, match="metric must be one of"):
        make_comparison_scorer(metric="f2", label=1)
    scorer = pickle.loads(pickle.dumps(make_comparison_scorer(label=1, classifier="c")))
    assert "label=1" in repr(scorer) and "metric='precision'" in repr(scorer)


@pytest.mark.parametrize("metric", ["precision", "npv", "recall", "specificity", "accuracy"])
def test_compare_other_metric_without_refit(data, metric):
    X_train, X_test, y_train, y_test = data
    comp = PairedPrecisionComparator(_estimators(), reference="tree").fit(X_train, y_train)
    fitted = comp.estimators_
    result = comp.compare(X_test, y_test, metric=metric, confidence_level=0.9)
    assert comp.estimators_ is fitted and result.metric == metric
    preds = comp.predict_all(X_test)
    expected = _COMPARE[metric](y_test, preds, reference="tree", confidence_level=0.9)
    pd.testing.assert_frame_equal(result.table, expected.table)
    # The comparator's own metric is the default.
    comp.set_params(metric=metric)
    pd.testing.assert_frame_equal(
        comp.compare(X_test, y_test, confidence_level=0.9).table, expected.table
    )


def test_drop_an_estimator_as_in_voting_classifier(data):
    X_train, X_test, y_train, y_test = data
    comp = PairedPrecisionComparator(_estimators(), reference="tree")
    comp.set_params(nb="drop")
    assert comp.get_params()["nb"] == "drop"
    comp.fit(X_train, y_train)
    assert len(comp.estimators_) == 2 and comp.named_estimators_["nb"] == "drop"
    result = comp.compare(X_test, y_test)
    assert list(result.classifiers) == ["tree", "lr"]
    preds = {n: e.fit(X_train, y_train).predict(X_test) for n, e in _estimators().items()}
    del preds["nb"]
    expected = compare_precision(y_test, preds, reference="tree")
    pd.testing.assert_frame_equal(result.table, expected.table)
    # Back in with set_params, and clone keeps the "drop".
    assert clone(comp).get_params()["nb"] == "drop"
    with pytest.raises(ValueError, match="reference='tree' .* set to 'drop'"):
        PairedPrecisionComparator(_estimators(), reference="tree").set_params(tree="drop").fit(
            X_train, y_train
        )
    with pytest.raises(ValueError, match="at least two classifiers .* 'drop'"):
        clone(comp).set_params(lr="drop", reference=None).fit(X_train, y_train)


def test_is_not_a_classifier_and_html_repr_shows_estimators():
    from sklearn.base import is_classifier
    from sklearn.utils import estimator_html_repr

    comp = PairedPrecisionComparator(_estimators())
    # No predict of its own: not a classifier (so scorers like "precision"
    # are not silently NaN), and stratified splits are asked for explicitly.
    assert not is_classifier(comp) and not hasattr(comp, "predict")
    X, y = make_classification(120, 4, random_state=0)
    with pytest.raises(AttributeError, match="predict"):
        cross_validate(comp, X, y, cv=StratifiedKFold(2), scoring="precision", error_score="raise")
    html = estimator_html_repr(comp)
    for name in ("nb", "tree", "lr", "GaussianNB", "DecisionTreeClassifier", "StandardScaler"):
        assert name in html, name
    assert (
        "https://sklearn-precision-stats.readthedocs.io/en/latest/api/generated/"
        "sklearn_precision_stats.PairedPrecisionComparator.html"
    ) in html
    # A sub-estimator's own link still points at scikit-learn's pages.
    assert "scikit-learn.org" in html


def test_summary_and_repr():
    rng = np.random.default_rng(0)
    y = rng.choice(["cat", "dog", "eel"], 400)
    preds = {
        k: np.where(rng.random(400) < acc, y, rng.choice(["cat", "dog", "eel"], 400))
        for k, acc in (("rf", 0.8), ("nb", 0.6), ("svm", 0.7))
    }
    result = compare_precision(y, preds)
    text = result.summary().as_text()
    for needle in (
        "Paired comparison of precision",
        "Reference:",
        "rf",
        "nb",
        "svm",
        "GS",
        "Wald",
        "RP 95% CI",
        "omnibus robust score",
        "dog",
    ):
        assert needle in text, needle
    assert str(result) == text
    r = repr(result)
    assert r.startswith("PairedComparison(metric='precision'") and "'svm'" in r
    wald = result["wald"]
    np.testing.assert_allclose(wald["odds_ratio"], np.exp(result.table["log_or"]))
    assert list(result["gs"].columns) == [
        "class",
        "classifier",
        "reference",
        "statistic",
        "pvalue",
    ]
