"""The comparators against scikit-learn's estimator checks.

Both comparators pass every check of :func:`check_estimator` with no
expected failure, so none is listed (``expected_failed_checks`` stays empty
and strict: a check that starts failing fails the suite). Their input tags
(sparse input, missing values, ...) follow their members, so the checks
run over several sets of members: naive Bayes and a tree, linear models,
trees, support vector machines, histogram gradient boosting and pipelines.
"""

import pytest
from sklearn.ensemble import ExtraTreesClassifier, HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression, RidgeClassifier
from sklearn.naive_bayes import GaussianNB, MultinomialNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MaxAbsScaler, StandardScaler
from sklearn.svm import SVC, LinearSVC
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils import get_tags
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_precision_stats import CVPrecisionComparator, PairedPrecisionComparator

# The checks feed degenerate data on purpose (constant features, a handful
# of rows), where some statistics are undefined and warn.
pytestmark = pytest.mark.filterwarnings("ignore::sklearn_precision_stats.UndefinedStatisticWarning")

MEMBER_SETS = {
    "nb-tree": lambda: {"nb": GaussianNB(), "tree": DecisionTreeClassifier(random_state=0)},
    # Both accept sparse input: so does the comparator.
    "linear": lambda: {"logistic": LogisticRegression(), "ridge": RidgeClassifier()},
    "linear-tree": lambda: {
        "logistic": LogisticRegression(),
        "tree": DecisionTreeClassifier(random_state=0),
    },
    # Both accept missing values: so does the comparator.
    "trees": lambda: {
        "tree": DecisionTreeClassifier(random_state=0),
        "extra": ExtraTreesClassifier(n_estimators=5, random_state=0),
    },
    "svm": lambda: {"svc": SVC(), "linear_svc": LinearSVC()},
    "hist-gradient-boosting": lambda: {
        "hgb": HistGradientBoostingClassifier(max_iter=5, random_state=0),
        "tree": DecisionTreeClassifier(random_state=0),
    },
    "pipelines": lambda: {
        "scaled_logistic": make_pipeline(StandardScaler(), LogisticRegression()),
        "sparse_svc": make_pipeline(MaxAbsScaler(), LinearSVC()),
    },
    # Multinomial naive Bayes needs non-negative features: so does the comparator.
    "positive": lambda: {
        "multinomial": MultinomialNB(),
        "tree": DecisionTreeClassifier(random_state=0),
    },
}


# Every check is run on the paired comparator with each set of members but
# one (its tags are tested below), and on the cross-validating one, which
# fits every member 3 times per check, with members of each input tag.
CHECKED = [
    *(
        PairedPrecisionComparator(members())
        for name, members in MEMBER_SETS.items()
        if name != "linear-tree"
    ),
    *(CVPrecisionComparator(MEMBER_SETS[name](), cv=3) for name in ("nb-tree", "linear", "trees")),
]


@parametrize_with_checks(
    CHECKED,
    expected_failed_checks=lambda estimator: {},
    xfail_strict=True,
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


@pytest.mark.parametrize("cls", [PairedPrecisionComparator, CVPrecisionComparator])
def test_input_tags_follow_members(cls):
    def tags(members):
        return get_tags(cls(members)).input_tags

    assert tags(MEMBER_SETS["linear"]()).sparse
    assert tags(MEMBER_SETS["linear-tree"]()).sparse
    assert not tags(MEMBER_SETS["nb-tree"]()).sparse
    assert not tags(MEMBER_SETS["linear-tree"]()).allow_nan
    assert tags(MEMBER_SETS["trees"]()).allow_nan
    assert tags(MEMBER_SETS["positive"]()).positive_only
    assert not tags(MEMBER_SETS["linear"]()).positive_only
    # A member set to "drop" does not count.
    dropped = {**MEMBER_SETS["linear"](), "nb": "drop"}
    assert tags(dropped).sparse
    # Invalid estimators are reported by fit, not by the tags.
    assert not tags({"a": object(), "b": LogisticRegression()}).sparse
