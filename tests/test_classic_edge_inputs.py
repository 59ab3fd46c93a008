"""Classic tests on labels of odd kinds, and the p-value of a NaN statistic.

The expected errors are those of the library's label encoder, which every
comparison shares; the defined cases are checked against scikit-learn and
scipy's t distribution.
"""

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import roc_auc_score

from sklearn_precision_stats import calibration_points, delong_test, hosmer_lemeshow_test
from sklearn_precision_stats.classic._common import _pvalue

PROB = np.linspace(0.05, 0.95, 10)


@pytest.mark.parametrize(
    "call",
    [
        lambda y: hosmer_lemeshow_test(y, PROB, n_groups=3, pos_label="a"),
        lambda y: calibration_points(y, PROB, n_groups=3, pos_label="a"),
        lambda y: delong_test(y, PROB, PROB[::-1].copy(), pos_label="a"),
    ],
    ids=["hosmer_lemeshow_test", "calibration_points", "delong_test"],
)
def test_true_labels_mixing_strings_and_numbers_are_named(call):
    # A TypeError of np.unique before ('<' between str and int).
    with pytest.raises(ValueError, match="y_true mixes strings and numbers"):
        call(np.array([0, "a"] * 5, dtype=object))


def test_continuous_true_labels_are_refused_as_scikit_learn_does():
    y = np.array([0.5, 1.5] * 5)
    with pytest.raises(ValueError, match="continuous"):
        roc_auc_score(y, PROB)
    with pytest.raises(ValueError, match=r"y_true has continuous values \(e.g. 0.5\)"):
        delong_test(y, PROB, PROB[::-1].copy(), pos_label=1.5)


@pytest.mark.parametrize(
    "labels, pos_label, positive",
    [
        (np.array([True, False] * 5), None, np.array([True, False] * 5)),
        (np.array([-1, 1] * 5), None, np.array([False, True] * 5)),
        (np.array([0.0, 1.0] * 5), None, np.array([False, True] * 5)),
        (np.array(["no", "yes"] * 5, dtype=object), "yes", np.array([False, True] * 5)),
    ],
)
def test_true_labels_of_every_usual_kind_give_scikit_learns_auc(labels, pos_label, positive):
    other = np.array([0.3, 0.1, 0.9, 0.2, 0.5, 0.8, 0.4, 0.7, 0.6, 0.35])
    res = delong_test(labels, PROB, other, pos_label=pos_label)
    assert res.auc_a == pytest.approx(roc_auc_score(positive, PROB), rel=1e-12)
    assert res.auc_b == pytest.approx(roc_auc_score(positive, other), rel=1e-12)


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_a_nan_statistic_has_a_nan_pvalue(alternative):
    # min(1.0, nan) is 1.0 in Python: a NaN t statistic read as p = 1.
    assert np.isnan(_pvalue(float("nan"), alternative, stats.t(5)))
    assert _pvalue(2.0, alternative, stats.t(5)) == pytest.approx(
        {"two-sided": 2 * stats.t(5).sf(2.0), "less": stats.t(5).cdf(2.0)}.get(
            alternative, stats.t(5).sf(2.0)
        ),
        rel=1e-12,
    )
