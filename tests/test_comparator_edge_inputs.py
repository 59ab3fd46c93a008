"""The comparators and the scorer on the inputs scikit-learn users give them.

Every number is checked against scikit-learn (``cross_val_predict``,
``cross_validate``, metrics) or the library's function-level API applied to
the same predictions.
"""

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.datasets import load_iris, make_classification
from sklearn.exceptions import UnsetMetadataPassedError
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import average_precision_score, f1_score, precision_score
from sklearn.model_selection import (
    GridSearchCV,
    KFold,
    RepeatedStratifiedKFold,
    StratifiedKFold,
    cross_val_predict,
    cross_validate,
)
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler, StandardScaler
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier

from sklearn_precision_stats import (
    CVPrecisionComparator,
    PairedPrecisionComparator,
    compare_precision,
    compare_roc_auc,
    make_comparison_scorer,
)
from sklearn_precision_stats.exceptions import UndefinedStatisticWarning

pytestmark = pytest.mark.filterwarnings("ignore::sklearn_precision_stats.UndefinedStatisticWarning")


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(400, 6, n_informative=4, n_classes=3, random_state=0)
    return X, y


def _estimators():
    return {
        "nb": GaussianNB(),
        "tree": DecisionTreeClassifier(max_depth=3, random_state=0),
    }


@pytest.fixture
def routing():
    with sklearn.config_context(enable_metadata_routing=True):
        yield


def _weighted_pipeline():
    # The pipeline takes sample_weight only through routing: it reaches the
    # logistic regression, not the scaler.
    return make_pipeline(
        StandardScaler().set_fit_request(sample_weight=False),
        LogisticRegression(max_iter=500).set_fit_request(sample_weight=True),
    )


@pytest.mark.parametrize("n_jobs", [None, 2])
def test_paired_routing_reaches_nested_pipeline_in_worker_processes(data, routing, n_jobs):
    # Workers must see the routing configuration: without it, the Pipeline
    # refuses sample_weight in a worker process.
    X, y = data
    w = np.random.default_rng(0).uniform(0.2, 3.0, y.shape[0])
    comparator = PairedPrecisionComparator(
        {"nb": GaussianNB().set_fit_request(sample_weight=True), "lr": _weighted_pipeline()},
        n_jobs=n_jobs,
    ).fit(X, y, sample_weight=w)
    expected = _weighted_pipeline().fit(X, y, sample_weight=w)
    np.testing.assert_allclose(comparator.named_estimators_["lr"][-1].coef_, expected[-1].coef_)
    unweighted = make_pipeline(StandardScaler(), LogisticRegression(max_iter=500)).fit(X, y)
    assert not np.allclose(unweighted[-1].coef_, expected[-1].coef_)


def test_paired_routing_unrequested_weights_are_refused_in_workers(data, routing):
    X, y = data
    comparator = PairedPrecisionComparator(_estimators(), n_jobs=2)
    with pytest.raises(UnsetMetadataPassedError, match="sample_weight"):
        comparator.fit(X, y, sample_weight=np.ones(y.shape[0]))


@pytest.mark.parametrize("cls", [PairedPrecisionComparator, CVPrecisionComparator])
def test_n_features_in_of_a_list_of_rows(data, cls):
    X, y = data
    comparator = cls(_estimators()).fit(X.tolist(), y.tolist())
    assert comparator.n_features_in_ == X.shape[1]


@pytest.mark.parametrize("cls", [PairedPrecisionComparator, CVPrecisionComparator])
def test_no_n_features_in_for_texts(cls):
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.naive_bayes import MultinomialNB

    texts = ["good film", "bad film", "good plot", "bad plot", "fine", "awful"] * 5
    y = [1, 0, 1, 0, 1, 0] * 5
    comparator = cls(
        {
            "nb": make_pipeline(CountVectorizer(), MultinomialNB()),
            "lr": make_pipeline(CountVectorizer(), LogisticRegression()),
        },
        **({"cv": 3} if cls is CVPrecisionComparator else {}),
    ).fit(texts, y)
    # As a Pipeline starting with a vectorizer: texts have no feature count.
    assert not hasattr(comparator, "n_features_in_")
    assert comparator.classes_.tolist() == [0, 1]


@pytest.mark.parametrize(
    "y, match",
    [
        (lambda y: np.where(np.arange(y.shape[0]) == 3, None, y.astype(object)), "row 3"),
        (lambda y: pd.array(np.where(np.arange(y.shape[0]) == 5, None, y), dtype="Int64"), "row 5"),
        (lambda y: np.column_stack([y, y]), "1-D"),
    ],
)
def test_paired_fit_names_bad_labels(data, y, match):
    X, y_ok = data
    with pytest.raises(ValueError, match=match):
        PairedPrecisionComparator(_estimators()).fit(X, y(y_ok))


def test_paired_fit_takes_a_column_vector_once(data, recwarn):
    X, y = data
    comparator = PairedPrecisionComparator(_estimators()).fit(X, y[:, None])
    expected = PairedPrecisionComparator(_estimators()).fit(X, y)
    assert not [w for w in recwarn if "column-vector" in str(w.message)]
    pd.testing.assert_frame_equal(comparator.compare(X, y).table, expected.compare(X, y).table)


@pytest.mark.parametrize("level", [95, 0.0, 1.0, True, "0.95"])
def test_compare_validates_its_confidence_level(data, level):
    X, y = data
    paired = PairedPrecisionComparator(_estimators()).fit(X, y)
    cv = CVPrecisionComparator(_estimators(), cv=3).fit(X, y)
    for call in (
        lambda: paired.compare(X, y, confidence_level=level),
        lambda: paired.compare(X, y, metric="f1", confidence_level=level),
        lambda: cv.compare(confidence_level=level),
        lambda: cv.compare(metric="recall", confidence_level=level),
    ):
        with pytest.raises(ValueError, match="confidence_level"):
            call()


def test_compare_level_set_after_fit_is_validated(data):
    X, y = data
    paired = PairedPrecisionComparator(_estimators()).fit(X, y)
    paired.set_params(confidence_level=95)
    with pytest.raises(ValueError, match="confidence_level"):
        paired.compare(X, y)


def test_compare_level_is_used(data):
    X, y = data
    paired = PairedPrecisionComparator(_estimators()).fit(X, y)
    preds = paired.predict_all(X)
    got = paired.compare(X, y, confidence_level=np.float64(0.9)).table
    expected = compare_precision(y, preds, confidence_level=0.9).table
    pd.testing.assert_frame_equal(got, expected)


def test_repr_keeps_the_order_of_a_dict_of_estimators():
    # The first estimator is the default reference: the repr must not sort.
    comparator = PairedPrecisionComparator(
        {"tree": DecisionTreeClassifier(), "nb": GaussianNB()}, confidence_level=0.9
    )
    text = repr(comparator)
    assert text.index("'tree'") < text.index("'nb'")
    rebuilt = eval(
        text,
        {  # noqa: S307
            "PairedPrecisionComparator": PairedPrecisionComparator,
            "DecisionTreeClassifier": DecisionTreeClassifier,
            "GaussianNB": GaussianNB,
        },
    )
    assert [name for name, _ in rebuilt._items()] == ["tree", "nb"]
    assert rebuilt.confidence_level == 0.9
    # The comparator's own parameter is untouched by repr.
    assert isinstance(comparator.estimators, dict)
    assert "CVPrecisionComparator(estimators=[('tree'" in repr(
        CVPrecisionComparator({"tree": DecisionTreeClassifier(), "nb": GaussianNB()})
    )


def _four_classes_one_in_a_single_fold():
    X, y = load_iris(return_X_y=True)
    order = np.random.default_rng(0).permutation(y.shape[0])
    X, y = X[order], y[order].copy()
    # Class 3 is only in the first of 3 unshuffled folds: the first training
    # set lacks it, and the estimators there see three classes.
    y[:10] = 3
    return X, y, KFold(3)


# scikit-learn's reference warns of the training fold without a class.
@pytest.mark.filterwarnings("ignore:Number of classes in training fold:RuntimeWarning")
def test_cv_scores_of_a_class_missing_from_a_training_fold_match_cross_val_predict():
    X, y, cv = _four_classes_one_in_a_single_fold()
    comparator = CVPrecisionComparator(
        {"nb": GaussianNB(), "svc": LinearSVC()}, cv=cv, store_scores=True
    ).fit(X, y)
    decision = cross_val_predict(LinearSVC(), X, y, cv=cv, method="decision_function")
    proba = cross_val_predict(GaussianNB(), X, y, cv=cv, method="predict_proba")
    assert (decision == np.finfo(float).min).any()
    np.testing.assert_array_equal(comparator.scores_["svc"], decision)
    np.testing.assert_array_equal(comparator.scores_["nb"], proba)
    got = comparator.compare_scores("roc_auc").table
    expected = compare_roc_auc(y, {"nb": proba, "svc": decision}, labels=[0, 1, 2, 3]).table
    pd.testing.assert_frame_equal(got, expected)


def test_cv_binary_decision_function_of_a_fold_missing_a_class_is_a_clear_error():
    X, y = load_iris(return_X_y=True)
    comparator = CVPrecisionComparator(
        {"nb": GaussianNB(), "svc": LinearSVC()}, cv=KFold(3), store_scores=True
    )
    # Unshuffled iris: each training set holds two of the three classes.
    with pytest.raises(ValueError, match="fitted on 2 of the 3 classes"):
        comparator.fit(X, y)


def test_paired_scores_of_an_estimator_fitted_on_fewer_classes(data):
    X, y = data
    comparator = PairedPrecisionComparator(_estimators()).fit(X, y)
    # An estimator refitted on two of the three classes, as after a
    # set_params on the fitted clone: its probabilities are aligned by label.
    keep = y != 1
    comparator.named_estimators_["nb"] = GaussianNB().fit(X[keep], y[keep])
    scores = comparator.scores_all(X)["nb"]
    proba = comparator.named_estimators_["nb"].predict_proba(X)
    np.testing.assert_array_equal(scores[:, [0, 2]], proba)
    np.testing.assert_array_equal(scores[:, 1], 0.0)


@pytest.mark.parametrize("cls", [PairedPrecisionComparator, CVPrecisionComparator])
def test_clone_of_a_fitted_comparator_is_unfitted_and_equal(data, cls):
    X, y = data
    comparator = cls(_estimators(), reference="tree").fit(X, y)
    copy = clone(comparator)
    assert not hasattr(copy, "classes_")
    assert copy.get_params(deep=False).keys() == comparator.get_params(deep=False).keys()
    assert repr(copy) == repr(comparator)


def _binary_frame():
    X, y = make_classification(300, 5, n_informative=3, random_state=1)
    X = pd.DataFrame(X, columns=[f"f{i}" for i in range(5)], index=np.arange(300) * 3 + 7)
    y = pd.Series(np.where(y == 1, "spam", "ham"), index=X.index)
    return X, y


def _binary_comparator():
    return PairedPrecisionComparator(
        {
            "tree": DecisionTreeClassifier(max_depth=2, random_state=0),
            "svc": make_pipeline(StandardScaler(), LinearSVC()),
        }
    )


def test_scorer_through_a_pipeline_that_ends_in_the_comparator():
    X, y = _binary_frame()
    cv = StratifiedKFold(3)
    scoring = {
        "prec": make_comparison_scorer(output="diff", label="spam"),
        "f1": make_comparison_scorer(metric="f1", average="macro", output="diff"),
        "ap": make_comparison_scorer(metric="average_precision", output="diff"),
    }
    pipe = make_pipeline(MinMaxScaler(), _binary_comparator())
    got = cross_validate(
        pipe, X, y, cv=cv, scoring=scoring, return_estimator=True, return_indices=True
    )
    for k, test in enumerate(got["indices"]["test"]):
        fitted = got["estimator"][k]
        X_test = fitted[:-1].transform(X.iloc[test])
        tree = fitted[-1].named_estimators_["tree"]
        svc = fitted[-1].named_estimators_["svc"]
        y_test = y.iloc[test]
        expected = {
            "prec": precision_score(y_test, svc.predict(X_test), pos_label="spam")
            - precision_score(y_test, tree.predict(X_test), pos_label="spam"),
            "f1": f1_score(y_test, svc.predict(X_test), average="macro")
            - f1_score(y_test, tree.predict(X_test), average="macro"),
            "ap": average_precision_score(y_test, svc.decision_function(X_test), pos_label="spam")
            - average_precision_score(y_test, tree.predict_proba(X_test)[:, 1], pos_label="spam"),
        }
        for name, value in expected.items():
            assert got[f"test_{name}"][k] == pytest.approx(value, rel=1e-12, abs=1e-15)


def test_grid_search_over_a_pipeline_that_ends_in_the_comparator():
    X, y = _binary_frame()
    cv = StratifiedKFold(3)
    scorer = make_comparison_scorer(output="diff", label="spam")
    # The scaler changes no split of a tree and the svc scales for itself:
    # the pipeline scores as the bare comparator does.
    pipe = GridSearchCV(
        make_pipeline(MinMaxScaler(), _binary_comparator()),
        {"pairedprecisioncomparator__tree__max_depth": [1, 3]},
        cv=cv,
        scoring=scorer,
    ).fit(X, y)
    bare = GridSearchCV(
        _binary_comparator(), {"tree__max_depth": [1, 3]}, cv=cv, scoring=scorer
    ).fit(X, y)
    np.testing.assert_allclose(
        pipe.cv_results_["mean_test_score"], bare.cv_results_["mean_test_score"], rtol=1e-12
    )


def test_scorer_names_what_it_cannot_score():
    X, y = _binary_frame()
    scorer = make_comparison_scorer(label="spam")
    cv_comparator = CVPrecisionComparator(_binary_comparator().estimators, cv=3).fit(X, y)
    with pytest.raises(ValueError, match="CVPrecisionComparator cross-validates"):
        scorer(cv_comparator, X, y)
    with pytest.raises(ValueError, match="got GaussianNB"):
        scorer(GaussianNB().fit(X, y), X, y)


def test_a_used_up_generator_cv_is_named():
    X, y = _binary_frame()
    comparator = CVPrecisionComparator(_binary_comparator().estimators, cv=KFold(3).split(X)).fit(
        X, y
    )
    assert comparator.n_splits_ == 3
    with pytest.raises(ValueError, match="iterator.*list"):
        comparator.fit(X, y)


def _fitted_and_records_without_class_2(data):
    X, y = data
    comparator = PairedPrecisionComparator(_estimators()).fit(X, y)
    preds = comparator.predict_all(X)
    # Records of classes 0 and 1 that neither classifier predicts as 2.
    rows = (y != 2) & (preds["nb"] != 2) & (preds["tree"] != 2)
    return comparator, X[rows], y[rows]


@pytest.mark.parametrize(
    "kwargs, neutral",
    [
        ({"label": 2}, -1.0),
        ({"label": np.int64(2), "output": "ratio"}, 1.0),
        ({"label": 2, "test": "ratio", "output": "statistic"}, 0.0),
        ({"metric": "f1", "label": 2, "output": "diff"}, 0.0),
        ({"metric": "recall", "label": 2, "output": "pvalue", "undefined": np.nan}, np.nan),
    ],
)
def test_a_class_seen_in_fit_but_absent_from_the_split_scores_undefined(data, kwargs, neutral):
    comparator, X_test, y_test = _fitted_and_records_without_class_2(data)
    scorer = make_comparison_scorer(**kwargs)
    with pytest.warns(UndefinedStatisticWarning) as record:
        score = scorer(comparator, X_test, y_test)
    np.testing.assert_equal(score, neutral)
    messages = [str(w.message) for w in record if w.category is UndefinedStatisticWarning]
    assert len(messages) == 1
    assert messages[0].startswith("Class 2 does not occur in this split")
    assert record[0].filename == __file__


def test_a_label_never_seen_is_an_error_not_an_undefined_split(data):
    comparator, X_test, y_test = _fitted_and_records_without_class_2(data)
    with pytest.raises(ValueError, match="label=5 is not a class"):
        make_comparison_scorer(label=5)(comparator, X_test, y_test)


# scikit-learn's reference F1 of a fold without the class warns.
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning")
def test_cross_validate_folds_without_a_class_score_the_neutral_value():
    X, y = make_classification(300, 5, n_informative=3, n_classes=3, class_sep=3.0, random_state=0)
    # Class 2 only in the first 40 records: KFold's later test folds lack it,
    # and in some of them no classifier predicts it either.
    keep = np.concatenate([np.flatnonzero(y == 2)[:40], np.flatnonzero(y != 2)])
    X, y = X[keep], y[keep]
    n_absent = 0
    comparator = PairedPrecisionComparator(_estimators())
    scorer = make_comparison_scorer(metric="f1", label=2, output="diff")
    got = cross_validate(comparator, X, y, cv=KFold(5), scoring=scorer)["test_score"]
    assert not np.isnan(got).any()
    for k, (train, test) in enumerate(KFold(5).split(X)):
        fitted = clone(comparator).fit(X[train], y[train])
        preds = fitted.predict_all(X[test])
        expected = f1_score(y[test], preds["tree"], labels=[2], average="macro") - f1_score(
            y[test], preds["nb"], labels=[2], average="macro"
        )
        if (y[test] != 2).all() and (preds["tree"] != 2).all() and (preds["nb"] != 2).all():
            expected = 0.0  # undefined F1 of both: the neutral value
            n_absent += 1
        assert got[k] == pytest.approx(expected, abs=1e-12)
    assert n_absent >= 2


@pytest.mark.parametrize(
    "kwargs, where",
    [
        ({"metric": "roc_auc", "label": 2}, "of roc_auc of class 2 is NaN"),
        ({"metric": "f1", "average": "macro", "output": "statistic"}, "of the macro average"),
    ],
)
def test_undefined_split_warning_names_the_class_as_a_plain_value(data, kwargs, where):
    comparator, X_test, y_test = _fitted_and_records_without_class_2(data)
    if "average" in kwargs:
        # Two identical classifiers: zero standard error, no z statistic.
        comparator.named_estimators_["tree"] = comparator.named_estimators_["nb"]
    scorer = make_comparison_scorer(**kwargs)
    with pytest.warns(UndefinedStatisticWarning) as record:
        score = scorer(comparator, X_test, y_test)
    assert score in (0.0, -1.0)
    messages = [str(w.message) for w in record if w.category is UndefinedStatisticWarning]
    assert len(messages) == 1
    assert where in messages[0]
    assert "np.int64" not in messages[0]


@pytest.mark.parametrize("cls", [PairedPrecisionComparator, CVPrecisionComparator])
def test_feature_names_in_as_scikit_learn_sets_them(data, cls):
    X, y = data
    names = [f"x{i}" for i in range(X.shape[1])]
    for frame in (pd.DataFrame(X), pd.DataFrame(X, columns=names)):
        comparator = cls(_estimators()).fit(frame, y)
        member = GaussianNB().fit(frame, y)
        if hasattr(member, "feature_names_in_"):
            np.testing.assert_array_equal(comparator.feature_names_in_, member.feature_names_in_)
            assert comparator.feature_names_in_.dtype == object
        else:  # integer column names are no feature names
            assert not hasattr(comparator, "feature_names_in_")
    # A refit on unnamed columns forgets the names of the earlier fit.
    comparator = cls(_estimators()).fit(pd.DataFrame(X, columns=names), y).fit(X, y)
    assert not hasattr(comparator, "feature_names_in_")


def test_compare_scores_names_a_test_class_unseen_in_fit(data):
    X, y = data
    comparator = PairedPrecisionComparator(_estimators()).fit(X[:300], y[:300])
    y_test = y[300:].copy()
    y_test[:3] = 7
    with pytest.raises(ValueError, match=r"class\(es\) \[7\] that the estimators did not see"):
        comparator.compare_scores(X[300:], y_test, metric="roc_auc")
    with pytest.raises(ValueError, match=r"class\(es\) \['0', '1', '2'\]"):
        comparator.compare_scores(X[300:], y[300:].astype(str))
    # compare() reports the class, which no classifier predicts.
    table = comparator.compare(X[300:], y_test).table
    assert table["class"].tolist() == [0, 1, 2, 7]
    assert table.loc[3, ["precision", "precision_reference"]].isna().all()


class _FitReturnsNothing(ClassifierMixin, BaseEstimator):
    """A classifier whose fit forgets to return self, as some user code does."""

    def fit(self, X, y):
        self.model_ = GaussianNB().fit(X, y)
        self.classes_ = self.model_.classes_

    def predict(self, X):
        return self.model_.predict(X)


def test_paired_fit_keeps_an_estimator_whose_fit_returns_none(data):
    X, y = data
    comparator = PairedPrecisionComparator(
        {"tree": _estimators()["tree"], "odd": _FitReturnsNothing()}
    )
    comparator.fit(X, y)
    assert isinstance(comparator.named_estimators_["odd"], _FitReturnsNothing)
    np.testing.assert_array_equal(
        comparator.predict_all(X)["odd"], GaussianNB().fit(X, y).predict(X)
    )


@pytest.mark.parametrize("cls", [PairedPrecisionComparator, CVPrecisionComparator])
def test_an_estimator_class_instead_of_an_instance_is_named(data, cls):
    X, y = data
    with pytest.raises(ValueError, match=r"'nb' is the class GaussianNB.*GaussianNB\(\)"):
        cls({"nb": GaussianNB, "tree": DecisionTreeClassifier()}).fit(X, y)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"label": 1},
        {"metric": "roc_auc", "output": "diff", "n_resamples": 100, "random_state": 0},
        {"metric": "average_precision", "label": "spam", "undefined": -2.0},
        {"metric": "f1", "average": "macro"},
    ],
)
def test_scorer_repr_rebuilds_the_scorer(kwargs):
    scorer = make_comparison_scorer(**kwargs)
    rebuilt = eval(repr(scorer), {"make_comparison_scorer": make_comparison_scorer})  # noqa: S307
    assert repr(rebuilt) == repr(scorer)


def test_scores_of_one_column_per_pair_of_classes_are_refused():
    from sklearn.svm import SVC

    X, y = make_classification(200, 5, n_informative=4, n_redundant=0, n_classes=4, random_state=0)
    comparator = PairedPrecisionComparator(
        {"nb": GaussianNB(), "svc": SVC(decision_function_shape="ovo")}
    ).fit(X, y)
    with pytest.raises(ValueError, match=r"'svc' gives scores of shape \(200, 6\) for its 4"):
        comparator.compare_scores(X, y)
    comparator.set_params(svc__decision_function_shape="ovr").fit(X, y)
    scores = comparator.scores_all(X)["svc"]
    np.testing.assert_array_equal(scores, comparator.named_estimators_["svc"].decision_function(X))


@pytest.mark.parametrize("cls", [PairedPrecisionComparator, CVPrecisionComparator])
def test_set_params_replaces_an_estimator_before_setting_its_parameters(cls):
    comparator = cls(_estimators())
    old, new = comparator.estimators["nb"], GaussianNB()
    # The nested key comes first, as a grid's parameter dict may order it.
    comparator.set_params(nb__var_smoothing=0.5, nb=new)
    assert comparator.estimators["nb"] is new
    assert new.var_smoothing == 0.5
    assert old.var_smoothing == GaussianNB().var_smoothing
    assert comparator.get_params()["nb__var_smoothing"] == 0.5


def test_set_params_of_a_dropped_estimator_is_a_value_error():
    comparator = PairedPrecisionComparator(_estimators()).set_params(nb="drop")
    with pytest.raises(ValueError, match="'nb' is 'drop', which has no parameter"):
        comparator.set_params(nb__var_smoothing=1.0)


def test_scorer_refuses_misaligned_pandas_rows_before_a_pipeline_drops_the_index():
    X, y = _binary_frame()
    pipe = make_pipeline(MinMaxScaler(), _binary_comparator()).fit(X, y)
    shuffled = y.sample(frac=1.0, random_state=0)
    with pytest.raises(ValueError, match="different indexes"):
        make_comparison_scorer(label="spam")(pipe, X, shuffled)


class _Threshold(ClassifierMixin, BaseEstimator):
    """Predicts class 1 above the midpoint of the class means of one column."""

    def __init__(self, column=0):
        self.column = column

    def fit(self, X, y):
        x = np.asarray(X)[:, self.column]
        self.classes_ = np.unique(y)
        self.threshold_ = (x[y == 0].mean() + x[y == 1].mean()) / 2
        return self

    def predict(self, X):
        return (np.asarray(X)[:, self.column] > self.threshold_).astype(int)


def _repeated_cv_rejections(shift_b, n_datasets, seed):
    """GS rejection rates at 5% of the comparator and of an unclustered analysis."""
    clustered, unclustered = [], []
    for rep in range(n_datasets):
        rng = np.random.default_rng([seed, rep])
        y = rng.integers(0, 2, 200)
        X = rng.normal(size=(200, 2)) + y[:, None] * np.array([1.0, shift_b])
        comparator = CVPrecisionComparator(
            {"a": _Threshold(0), "b": _Threshold(1)},
            cv=RepeatedStratifiedKFold(n_splits=5, n_repeats=3, random_state=rep),
        ).fit(X, y)
        clustered.append(comparator.result_.table["gs_pvalue"].iloc[1] < 0.05)
        rows = comparator.predictions_
        a, b = (rows[rows["classifier"] == name] for name in ("a", "b"))
        naive = compare_precision(
            a["y_true"].to_numpy(), {"a": a["y_pred"].to_numpy(), "b": b["y_pred"].to_numpy()}
        )
        unclustered.append(naive.table["gs_pvalue"].iloc[1] < 0.05)
    return np.mean(clustered), np.mean(unclustered)


@pytest.mark.slow
def test_repeated_cross_validation_keeps_its_size_by_clustering_records():
    # Two columns of one distribution: equal precision of the two classifiers.
    # Each record is tested three times; treated as independent rows its
    # repeats understate the variance.
    size, naive_size = _repeated_cv_rejections(1.0, 400, seed=0)
    assert 0.01 <= size <= 0.08
    assert naive_size >= 0.15
    # Column b separates the classes less well: the power rises.
    power, _ = _repeated_cv_rejections(0.4, 100, seed=1)
    assert power >= 0.5


@pytest.mark.parametrize(
    "kwargs, match",
    [
        # A GEE measure would silently become the delta method's Wald test.
        ({"label": 1, "beta": 2}, r"'precision' takes no parameter \['beta'\]"),
        ({"metric": "f1", "label": 1, "recal": 0.9}, r"'f1' takes no parameter \['recal'\]"),
        ({"metric": "roc_auc", "beta": 2}, r"\['method', 'n_resamples', 'random_state'\]"),
        ({"metric": "average_precision", "reference": "a"}, r"no parameter \['reference'\]"),
        ({"metric": "fbeta", "label": 1}, "needs beta"),
        ({"metric": "f1", "pos_label": 1}, r"no parameter \['pos_label'\]"),
    ],
)
def test_scorer_refuses_metric_parameters_at_once(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_comparison_scorer(**kwargs)


@pytest.mark.parametrize("cls", [PairedPrecisionComparator, CVPrecisionComparator])
def test_compare_scores_names_the_parameters_a_measure_takes(data, cls):
    X, y = data
    comparator = cls(
        _estimators(), **({"store_scores": True} if cls is CVPrecisionComparator else {})
    )
    comparator.fit(X, y)
    args = (X, y) if cls is PairedPrecisionComparator else ()
    with pytest.raises(ValueError, match=r"'precision_at_recall' takes no parameter \['recal'\]"):
        comparator.compare_scores(*args, metric="precision_at_recall", recal=0.8)


@pytest.mark.parametrize("label", [[1], np.array([1, 2]), {1}])
def test_scorer_label_must_be_one_class(label):
    with pytest.raises(ValueError, match="label must be one class label"):
        make_comparison_scorer(label=label)


def test_fitted_comparators_pickle_and_compare_the_same(data):
    import pickle

    X, y = data
    cv = CVPrecisionComparator(_estimators(), cv=3, store_scores=True).fit(X, y)
    paired = PairedPrecisionComparator(_estimators()).fit(X, y)
    cv_back, paired_back = pickle.loads(pickle.dumps((cv, paired)))
    pd.testing.assert_frame_equal(cv_back.result_.table, cv.result_.table)
    pd.testing.assert_frame_equal(cv_back.predictions_, cv.predictions_)
    pd.testing.assert_frame_equal(
        cv_back.compare("f1", average="macro").table, cv.compare("f1", average="macro").table
    )
    pd.testing.assert_frame_equal(
        cv_back.compare_scores("roc_auc").table, cv.compare_scores("roc_auc").table
    )
    pd.testing.assert_frame_equal(paired_back.compare(X, y).table, paired.compare(X, y).table)
    assert repr(cv_back) == repr(cv)
    assert cv_back.result_.summary().as_text() == cv.result_.summary().as_text()


@pytest.mark.parametrize("cls", [PairedPrecisionComparator, CVPrecisionComparator])
def test_pandas_sample_weight_must_align_with_x(data, cls):
    X, y = data
    frame = pd.DataFrame(X, index=np.arange(X.shape[0]) + 100)
    weights = pd.Series(np.linspace(0.5, 2.0, X.shape[0]), index=frame.index)
    comparator = cls(_estimators())
    with pytest.raises(ValueError, match="X and sample_weight are pandas objects"):
        comparator.fit(frame, y, sample_weight=weights.sort_values(ascending=False))
    comparator.fit(frame, y, sample_weight=weights)
    comparator.fit(frame, y, sample_weight=weights.to_numpy()[::-1])  # an array: by position
    # A sparse X has no index to align with.
    from scipy import sparse

    sparse_members = {"tree": DecisionTreeClassifier(max_depth=2), "lr": LogisticRegression()}
    cls(sparse_members).fit(sparse.csr_matrix(X), y, sample_weight=weights)


@pytest.mark.parametrize(
    "metric, function, params",
    [
        ("average_precision", "compare_average_precision", {}),
        ("roc_auc", "compare_roc_auc", {}),
        ("precision_at_recall", "compare_precision_at_recall", {"recall": 0.8}),
        ("recall_at_precision", "compare_recall_at_precision", {"precision": 0.9}),
    ],
)
def test_cv_compare_scores_of_string_labels_and_decision_function(metric, function, params):
    import sklearn_precision_stats

    X, y = _binary_frame()
    svc = make_pipeline(StandardScaler(), LinearSVC())
    comparator = CVPrecisionComparator(
        {"nb": GaussianNB(), "svc": svc}, cv=4, store_scores=True
    ).fit(X, y)
    cv = StratifiedKFold(4)
    # "spam" sorts after "ham": the scores are those of "spam".
    scores = {
        "nb": cross_val_predict(GaussianNB(), X, y, cv=cv, method="predict_proba")[:, 1],
        "svc": cross_val_predict(svc, X, y, cv=cv, method="decision_function"),
    }
    got = comparator.compare_scores(metric, n_resamples=200, random_state=0, **params)
    expected = getattr(sklearn_precision_stats, function)(
        y.to_numpy(), scores, n_resamples=200, random_state=0, **params
    )
    assert got.table["class"].tolist() == ["spam"]
    pd.testing.assert_frame_equal(got.table, expected.table)
