"""Bouckaert's replicability and the repeated-experiment runner."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from joblib import parallel_config
from sklearn.datasets import load_breast_cancer
from sklearn.dummy import DummyClassifier
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

from sklearn_precision_stats import (
    ReplicabilityResult,
    UndefinedStatisticWarning,
    compare_precision,
    replicability,
    replicability_score,
)

# --- the score on known outcomes ----------------------------------------------


@pytest.mark.parametrize(
    "outcomes, expected",
    [
        ([0] * 6 + [1] * 4, (6 * 5 + 4 * 3) / (10 * 9)),  # 42 / 90
        ([True] * 10, 1.0),
        ([False, False], 1.0),
        ([True, False], 0.0),
        ([1, 0, 1, 0], (2 + 2) / 12),
        ([1] * 9 + [0], 72 / 90),
    ],
)
def test_replicability_score_hand_values(outcomes, expected):
    assert replicability_score(outcomes) == pytest.approx(expected, abs=1e-15)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.booleans(), min_size=2, max_size=40))
def test_replicability_score_is_the_share_of_agreeing_pairs(outcomes):
    pairs = list(itertools.combinations(outcomes, 2))
    expected = sum(a == b for a, b in pairs) / len(pairs)
    assert replicability_score(outcomes) == pytest.approx(expected, abs=1e-12)
    # Relabelling accept/reject or reordering does not change it.
    flipped = [not e for e in outcomes]
    assert replicability_score(flipped) == pytest.approx(expected, abs=1e-12)
    assert replicability_score(outcomes[::-1]) == pytest.approx(expected, abs=1e-12)


def test_printed_eq30_without_parentheses_differs():
    # The paper's eq. (30) as printed, p(p-1) + q(q-1)/n(n-1), is not a
    # share: for 6 acceptances and 4 rejections it gives 30.13.
    p, q, n = 6, 4, 10
    assert p * (p - 1) + q * (q - 1) / (n * (n - 1)) > 1
    assert replicability_score([0] * p + [1] * q) < 1


@pytest.mark.parametrize(
    "outcomes, match",
    [
        ([1], "at least two"),
        ([], "at least two"),
        ([[1, 0], [0, 1]], "1-D"),
        ([0, 2, 1], "0/1"),
        (["a", "b"], "0/1"),
        ([0.5, 1.0], "0/1"),
    ],
)
def test_replicability_score_validation(outcomes, match):
    with pytest.raises(ValueError, match=match):
        replicability_score(outcomes)


# --- the experiments ----------------------------------------------------------


@pytest.fixture(scope="module")
def cancer():
    return load_breast_cancer(return_X_y=True)


ESTIMATORS = {"nb": GaussianNB(), "tree": DecisionTreeClassifier(random_state=0)}
SMALL = dict(sample_sizes=(1.0, 200), test_sizes=(0.3, 0.5), n_repeats=4)


@pytest.fixture(scope="module")
def small_run(cancer):
    X, y = cancer
    return replicability(ESTIMATORS, X, y, label=1, reference="tree", random_state=0, **SMALL)


def test_small_run_layout(small_run, cancer):
    _, y = cancer
    res = small_run
    assert isinstance(res, ReplicabilityResult)
    assert (res.test, res.label, res.classifier, res.reference) == ("gs", 1, "nb", "tree")
    t = res.table
    assert list(t[["sample_size", "test_size"]].itertuples(index=False, name=None)) == [
        (569, 0.3),
        (569, 0.5),
        (200, 0.3),
        (200, 0.5),
    ]
    assert (t["n_experiments"] + t["n_undefined"] == 4).all()
    np.testing.assert_allclose(t["sample_fraction"], t["sample_size"] / y.shape[0])
    assert len(res.experiments) == 16
    exp = res.experiments
    np.testing.assert_array_equal(exp["n_train"] + exp["n_test"], exp["sample_size"])
    np.testing.assert_array_equal(exp["rejected"], exp["pvalue"] < 0.05)
    assert exp["pvalue"].between(0, 1).all()


def test_small_run_replicability_equals_formula(small_run):
    # Each setting's replicability is the formula applied to its outcomes.
    for _, row in small_run.table.iterrows():
        exp = small_run.experiments
        group = exp[
            (exp["sample_size"] == row["sample_size"])
            & (exp["test_size"] == row["test_size"])
            & exp["defined"]
        ]
        q = int(group["rejected"].sum())
        n = len(group)
        p = n - q
        assert row["n_rejections"] == q
        assert row["replicability"] == pytest.approx((p * (p - 1) + q * (q - 1)) / (n * (n - 1)))
        assert row["rejection_rate"] == pytest.approx(q / n)


def test_one_experiment_recomputed_by_hand(small_run, cancer):
    # Subsample with the recorded seed, split with it, fit, compare.
    X, y = cancer
    row = small_run.experiments.iloc[-1]  # a subsample of 200 records
    seed = int(row["seed"])
    index, _ = train_test_split(
        np.arange(y.shape[0]), train_size=200, stratify=y, random_state=seed
    )
    train, test = train_test_split(
        index, test_size=row["test_size"], stratify=y[index], random_state=seed
    )
    preds = {
        name: est.fit(X[train], y[train]).predict(X[test])
        for name, est in [("tree", DecisionTreeClassifier(random_state=0)), ("nb", GaussianNB())]
    }
    expected = compare_precision(y[test], preds, reference="tree").get(1)
    assert row["pvalue"] == pytest.approx(expected["gs_pvalue"], rel=1e-12)
    assert row["statistic"] == pytest.approx(expected["gs_stat"], rel=1e-12)
    assert row["precision"] == pytest.approx(expected["precision"])
    assert row["precision_reference"] == pytest.approx(expected["precision_reference"])


def test_deterministic_and_backend_free(small_run, cancer):
    X, y = cancer
    again = replicability(
        ESTIMATORS, X, y, label=1, reference="tree", random_state=0, n_jobs=2, **SMALL
    )
    assert again.experiments.equals(small_run.experiments)
    assert again.table.equals(small_run.table)
    # The caller picks the joblib backend; the result does not depend on it.
    with parallel_config(backend="threading", n_jobs=2):
        threaded = replicability(
            ESTIMATORS, X, y, label=1, reference="tree", random_state=0, **SMALL
        )
    assert threaded.experiments.equals(small_run.experiments)
    other = replicability(ESTIMATORS, X, y, label=1, reference="tree", random_state=1, **SMALL)
    assert not other.experiments["seed"].equals(small_run.experiments["seed"])


def test_rp_outcome_is_ci_excluding_one(cancer):
    X, y = cancer
    res = replicability(
        ESTIMATORS,
        X,
        y,
        label=0,
        test="ratio",
        sample_sizes=(0.5,),
        test_sizes=(0.5,),
        n_repeats=3,
        random_state=0,
        alpha=0.2,
    )
    for _, row in res.experiments.iterrows():
        # A Wald CI at level 1 - alpha excludes 1 exactly when p < alpha.
        z = abs(row["statistic"])
        assert row["rejected"] == (z > 1.2815515655446004)


def test_undefined_experiments_are_counted_not_scored(cancer):
    X, y = cancer
    est = {"never": DummyClassifier(strategy="constant", constant=0), "nb": GaussianNB()}
    with pytest.warns(UndefinedStatisticWarning, match="fewer than two of their experiments"):
        res = replicability(
            est,
            X,
            y,
            label=1,
            reference="nb",
            sample_sizes=(1.0,),
            test_sizes=(0.3,),
            n_repeats=3,
            random_state=0,
        )
    row = res.table.iloc[0]
    assert row["n_undefined"] == 3 and row["n_experiments"] == 0
    assert np.isnan(row["replicability"])
    assert not res.experiments["defined"].any()


def test_string_labels_and_dataframes(cancer):
    pd = pytest.importorskip("pandas")
    X, y = cancer
    X = pd.DataFrame(X[:200])
    y = np.where(y[:200] == 1, "benign", "malignant")
    res = replicability(
        ESTIMATORS,
        X,
        y,
        label="malignant",
        sample_sizes=(1.0,),
        test_sizes=(0.5,),
        n_repeats=2,
        random_state=0,
    )
    assert res.label == "malignant" and res.reference == "nb"
    assert res.table["n_experiments"].iloc[0] == 2


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"label": 7}, "label=7 does not occur"),
        ({"test": "z"}, "test must be"),
        ({"n_repeats": 1}, "n_repeats"),
        ({"sample_sizes": (1.5,)}, "sample_sizes"),
        ({"sample_sizes": (10_000,)}, "sample_sizes"),
        ({"sample_sizes": ()}, "sample_sizes"),
        ({"test_sizes": (0.0,)}, "test_sizes"),
        ({"test_sizes": (1,)}, "test_sizes"),
        ({"alpha": 0}, "alpha"),
        ({"classifier": "nb"}, "non-reference"),
        ({"reference": "svm"}, "reference"),
    ],
)
def test_replicability_validation(cancer, kwargs, match):
    X, y = cancer
    args = {"label": 1, **kwargs}
    with pytest.raises(ValueError, match=match):
        replicability(ESTIMATORS, X, y, **args)


def test_classifier_needed_with_three_estimators(cancer):
    X, y = cancer
    three = {**ESTIMATORS, "stump": DecisionTreeClassifier(max_depth=1)}
    with pytest.raises(ValueError, match="classifier is needed"):
        replicability(three, X, y, label=1)
    res = replicability(
        three,
        X,
        y,
        label=1,
        classifier="stump",
        reference="tree",
        sample_sizes=(1.0,),
        test_sizes=(0.3,),
        n_repeats=2,
        random_state=0,
    )
    assert res.classifier == "stump"
