"""Edge inputs of the comparisons over several data sets and the Bayesian tests.

Tables given as dicts, nullable pandas dtypes, tuple (MultiIndex) names,
controls named by equal values of other types, warnings pointing at the
caller's line. Each answer is checked against an independent reference:
scipy.stats.friedmanchisquare, scikit-posthocs, baycomp or a closed form.
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from sklearn_precision_stats.exceptions import UndefinedStatisticWarning
from sklearn_precision_stats.several_datasets import friedman_test, posthoc_test

RTOL = 1e-9


def _table(seed, n=12, k=4):
    rng = np.random.default_rng(seed)
    return rng.random((n, k)) * 0.1 + np.linspace(0.06, 0.0, k) + 0.7


# ------------------------------------------------- tables of scores


def test_dict_of_scores_is_a_table_with_its_keys_as_classifiers():
    scores = _table(0)
    as_dict = {"rf": scores[:, 0], "svm": list(scores[:, 1]), "nb": tuple(scores[:, 2])}
    res = friedman_test(as_dict)
    ref = stats.friedmanchisquare(*scores[:, :3].T)
    assert res.statistic == pytest.approx(ref.statistic, rel=RTOL)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=RTOL)
    assert list(res.average_ranks.index) == ["rf", "svm", "nb"]
    post = posthoc_test(as_dict, method="holm", control="nb")
    assert list(post.pvalue.columns) == ["rf", "svm", "nb"]


def test_dict_of_unequal_lengths_names_the_problem():
    with pytest.raises(ValueError, match="dict must map each classifier.*same length"):
        friedman_test({"rf": [0.9, 0.8, 0.7], "svm": [0.8, 0.7]})


def test_nullable_missing_score_is_reported_as_missing():
    frame = pd.DataFrame(_table(1)).astype("Float64")
    frame.iloc[3, 1] = pd.NA
    with pytest.raises(ValueError, match="missing or infinite value in row 3"):
        friedman_test(frame)
    # Without missing values the nullable dtype gives scipy's answer.
    full = pd.DataFrame(_table(1)).astype("Float64")
    ref = stats.friedmanchisquare(*_table(1).T)
    assert friedman_test(full).statistic == pytest.approx(ref.statistic, rel=RTOL)


# ------------------------------------------------- names of classifiers


def test_posthoc_keeps_the_classifier_names_in_its_friedman_result():
    frame = pd.DataFrame(_table(2), columns=["rf", "svm", "knn", "nb"])
    res = posthoc_test(frame)
    assert list(res.friedman.average_ranks.index) == ["rf", "svm", "knn", "nb"]
    assert list(res.friedman.ranks.columns) == ["rf", "svm", "knn", "nb"]
    pd.testing.assert_series_equal(res.friedman.average_ranks, friedman_test(frame).average_ranks)


@pytest.mark.parametrize("control", [True, np.True_, False])
def test_bool_control_does_not_pick_the_classifier_numbered_one(control):
    # True == 1 in Python: the classifier numbered 1 must not be chosen.
    with pytest.raises(ValueError, match="control=.* is not one of the classifiers"):
        posthoc_test(_table(3), method="holm", control=control)


@pytest.mark.parametrize("control", [2, 2.0, np.int64(2), np.float32(2.0)])
def test_control_is_reported_as_the_table_names_it(control):
    sp = pytest.importorskip("scikit_posthocs")
    res = posthoc_test(_table(4), method="holm", control=control)
    assert res.control == 2 and type(res.control) is int
    # Holm over the 3 comparisons with the control, from the raw p-values.
    raw = sp.posthoc_siegel_friedman(_table(4)).to_numpy()[2, [0, 1, 3]]
    holm = np.minimum(1, np.maximum.accumulate(np.sort(raw) * [3, 2, 1]))
    expected = np.empty(3)
    expected[np.argsort(raw)] = holm
    np.testing.assert_allclose(res.pvalue.to_numpy()[2, [0, 1, 3]], expected, rtol=RTOL)


def _tuple_named_table():
    columns = pd.MultiIndex.from_tuples([("tree", 1), ("tree", 2), ("svm", 1), ("svm", 2)])
    scores = _table(5, n=20) + np.array([0.0, 0.0, 0.0, -0.08])
    return pd.DataFrame(scores, columns=columns)


def test_summary_with_tuple_names():
    frame = _tuple_named_table()
    res = posthoc_test(frame)
    text = res.summary()
    # ('svm', 2) is clearly worse than the other three.
    assert "better than ('svm', 2)" in text
    control = posthoc_test(frame, method="holm", control=("tree", 1))
    text = control.summary()
    assert "against control ('tree', 1)" in text
    assert "('tree', 1) better than ('svm', 2)" in text


def test_critical_difference_diagram_with_tuple_names_and_control():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sklearn_precision_stats.plotting import plot_critical_difference

    res = posthoc_test(_tuple_named_table(), method="bonferroni-dunn", control=("tree", 1))
    ax = plot_critical_difference(res)
    # The control's CD interval is centred on its average rank.
    centre = res.average_ranks.to_numpy()[0]
    segments = [line.get_xdata() for line in ax.get_lines()]
    cd = res.critical_difference
    assert any(len(x) == 2 and np.allclose(x, [centre - cd, centre + cd]) for x in segments)
    plt.close(ax.figure)


# ------------------------------------------------- warnings


def test_undefined_friedman_warns_once_at_the_callers_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = friedman_test(np.ones((5, 3)))
        post = posthoc_test(np.full((4, 3), 0.5))
    undefined = [w for w in caught if issubclass(w.category, UndefinedStatisticWarning)]
    assert len(undefined) == 2
    assert all(w.filename == __file__ for w in undefined), [w.filename for w in undefined]
    assert math.isnan(res.statistic) and math.isnan(post.friedman.statistic)
    # Equal average ranks: every pair has z = 0 and p = 1, as scikit-posthocs.
    np.testing.assert_array_equal(post.pvalue.to_numpy(), np.ones((3, 3)))
