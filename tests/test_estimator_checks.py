"""The comparators against scikit-learn's estimator checks.

Both comparators pass every check of :func:`check_estimator` with no
expected failure, so none is listed (``expected_failed_checks`` stays empty
and strict: a check that starts failing fails the suite).
"""

import pytest
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_precision_stats import CVPrecisionComparator, PairedPrecisionComparator

# The checks feed degenerate data on purpose (constant features, a handful
# of rows), where some statistics are undefined and warn.
pytestmark = pytest.mark.filterwarnings("ignore::sklearn_precision_stats.UndefinedStatisticWarning")


def _estimators():
    return {"nb": GaussianNB(), "tree": DecisionTreeClassifier(random_state=0)}


@parametrize_with_checks(
    [
        PairedPrecisionComparator(_estimators()),
        CVPrecisionComparator(_estimators(), cv=3),
    ],
    expected_failed_checks=lambda estimator: {},
    xfail_strict=True,
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
