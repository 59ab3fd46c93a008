"""Metadata routing: fit parameters reach exactly the estimators that ask.

With routing enabled (``sklearn.config_context(enable_metadata_routing=
True)``), each estimator receives the fit parameters it requests through
``set_fit_request``; without it, every estimator receives every fit
parameter, as in :class:`~sklearn.ensemble.VotingClassifier`, and one that
cannot take a parameter is a ValueError that names it.
"""

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.exceptions import UnsetMetadataPassedError
from sklearn.model_selection import StratifiedKFold, cross_val_predict, cross_validate
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.tree import DecisionTreeClassifier

from sklearn_precision_stats import (
    CVPrecisionComparator,
    PairedPrecisionComparator,
    compare_precision,
    make_comparison_scorer,
)

pytestmark = pytest.mark.filterwarnings("ignore::sklearn_precision_stats.UndefinedStatisticWarning")


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(300, 5, n_informative=3, flip_y=0.1, random_state=0)
    # Weights that change every weight-sensitive fit: heavy on one class.
    weights = np.where(y == 1, 5.0, 0.2) * np.random.default_rng(0).uniform(0.5, 1.5, y.size)
    return X, y, weights


def _routing():
    return sklearn.config_context(enable_metadata_routing=True)


def _tree():
    return DecisionTreeClassifier(max_depth=3, random_state=0)


def test_weights_change_the_fits_used_below(data):
    # Otherwise the tests below could not tell weighted from unweighted fits.
    X, y, w = data
    assert not np.allclose(GaussianNB().fit(X, y).theta_, GaussianNB().fit(X, y, w).theta_)
    assert not np.array_equal(
        _tree().fit(X, y).predict(X), _tree().fit(X, y, sample_weight=w).predict(X)
    )


def test_paired_routing_on_reaches_exactly_the_requesting_estimators(data):
    X, y, w = data
    with _routing():
        comp = PairedPrecisionComparator(
            {
                # Weight-sensitive but opts out: must see no weights.
                "nb": GaussianNB().set_fit_request(sample_weight=False),
                "tree": _tree().set_fit_request(sample_weight=True),
                # Takes no weights at all, and needs no request.
                "knn": KNeighborsClassifier(),
            }
        ).fit(X, y, sample_weight=w)
    fitted = comp.named_estimators_
    np.testing.assert_array_equal(fitted["nb"].theta_, GaussianNB().fit(X, y).theta_)
    np.testing.assert_array_equal(fitted["nb"].var_, GaussianNB().fit(X, y).var_)
    weighted_tree = _tree().fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(fitted["tree"].tree_.value, weighted_tree.tree_.value)


def test_paired_routing_on_unrequested_weights_are_an_error(data):
    X, y, w = data
    with _routing(), pytest.raises(UnsetMetadataPassedError, match="sample_weight"):
        PairedPrecisionComparator({"nb": GaussianNB(), "tree": _tree()}).fit(X, y, sample_weight=w)


def test_paired_routing_off_broadcasts_and_names_an_estimator_that_cannot_take_it(data):
    X, y, w = data
    comp = PairedPrecisionComparator({"nb": GaussianNB(), "tree": _tree()}).fit(
        X, y, sample_weight=w
    )
    np.testing.assert_array_equal(
        comp.named_estimators_["nb"].theta_, GaussianNB().fit(X, y, w).theta_
    )
    with pytest.raises(ValueError, match=r"'knn' \(KNeighborsClassifier\) does not accept"):
        PairedPrecisionComparator({"nb": GaussianNB(), "knn": KNeighborsClassifier()}).fit(
            X, y, sample_weight=w
        )
    # A dropped estimator is not asked.
    PairedPrecisionComparator(
        {"nb": GaussianNB(), "tree": _tree(), "knn": KNeighborsClassifier()}
    ).set_params(knn="drop").fit(X, y, sample_weight=w)


@pytest.mark.parametrize("routing", [True, False])
def test_cv_comparator_routes_weights_sliced_to_training_rows(data, routing):
    X, y, w = data
    cv = StratifiedKFold(4)
    if routing:
        with _routing():
            estimators = {
                "nb": GaussianNB().set_fit_request(sample_weight=False),
                "tree": _tree().set_fit_request(sample_weight=True),
            }
            comp = CVPrecisionComparator(estimators, cv=cv).fit(X, y, sample_weight=w)
        nb_params = {}
    else:
        comp = CVPrecisionComparator({"nb": GaussianNB(), "tree": _tree()}, cv=cv).fit(
            X, y, sample_weight=w
        )
        nb_params = {"sample_weight": w}
    expected = {
        "nb": cross_val_predict(GaussianNB(), X, y, cv=cv, params=nb_params),
        "tree": cross_val_predict(_tree(), X, y, cv=cv, params={"sample_weight": w}),
    }
    pred = comp.predictions_
    for name, values in expected.items():
        np.testing.assert_array_equal(pred.loc[pred["classifier"] == name, "y_pred"], values)


def test_cv_comparator_routing_off_names_an_estimator_that_cannot_take_it(data):
    X, y, w = data
    with pytest.raises(ValueError, match=r"'knn' \(KNeighborsClassifier\) does not accept"):
        CVPrecisionComparator({"nb": GaussianNB(), "knn": KNeighborsClassifier()}, cv=3).fit(
            X, y, sample_weight=w
        )


@pytest.mark.parametrize("routing", [True, False])
def test_cross_validate_params_reach_the_requesting_estimators(data, routing):
    X, y, w = data
    cv = StratifiedKFold(3)
    scoring = {"ratio": make_comparison_scorer(output="ratio", label=1)}
    if routing:
        with _routing():
            comp = PairedPrecisionComparator(
                {
                    "nb": GaussianNB().set_fit_request(sample_weight=False),
                    "tree": _tree().set_fit_request(sample_weight=True),
                },
                reference="nb",
            )
            scores = cross_validate(
                comp, X, y, cv=cv, scoring=scoring, params={"sample_weight": w}
            )["test_ratio"]
    else:
        comp = PairedPrecisionComparator({"nb": GaussianNB(), "tree": _tree()}, reference="nb")
        scores = cross_validate(comp, X, y, cv=cv, scoring=scoring, params={"sample_weight": w})[
            "test_ratio"
        ]
    # Each fold by hand: the weights of the training rows, only where asked.
    expected = []
    for train, test in cv.split(X, y):
        nb_params = {} if routing else {"sample_weight": w[train]}
        preds = {
            "nb": GaussianNB().fit(X[train], y[train], **nb_params).predict(X[test]),
            "tree": _tree().fit(X[train], y[train], sample_weight=w[train]).predict(X[test]),
        }
        table = compare_precision(y[test], preds).table
        expected.append(table.loc[table["class"] == 1, "ratio"].iloc[0])
    np.testing.assert_allclose(scores, expected, rtol=1e-12)


def test_routing_metadata_of_comparators_lists_the_requests():
    with _routing():
        comp = PairedPrecisionComparator(
            {
                "nb": GaussianNB().set_fit_request(sample_weight=False),
                "tree": _tree().set_fit_request(sample_weight=True),
                "knn": KNeighborsClassifier(),
            }
        ).set_params(knn="drop")
        routing = comp.get_metadata_routing()
        assert routing.consumes("fit", ["sample_weight"]) == {"sample_weight"}
        # A clone keeps the requests.
        assert clone(comp).get_metadata_routing().consumes("fit", ["sample_weight"]) == {
            "sample_weight"
        }
