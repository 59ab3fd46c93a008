"""Warnings a user can act on, and only those.

WGS is NaN by design with repeated records: the docs and the summary's
notes say so, not a warning on every clustered comparison. A scorer in a
grid search warns only about the number it scores.
"""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_iris, make_classification
from sklearn.model_selection import GridSearchCV, RepeatedStratifiedKFold, StratifiedKFold
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

from sklearn_precision_stats import (
    CVPrecisionComparator,
    PairedPrecisionComparator,
    compare_npv,
    compare_precision,
    make_comparison_scorer,
)
from sklearn_precision_stats.exceptions import UndefinedStatisticWarning

from .conftest import make_correlated_predictions


def _no_warning(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return function(*args, **kwargs)


@pytest.mark.parametrize("function", [compare_precision, compare_npv])
def test_groups_comparison_does_not_warn_about_wgs(function):
    y, preds, groups = make_correlated_predictions(120, 3, 3, repeats=3, seed=1)
    result = _no_warning(function, y, preds, groups=groups)
    assert result.table["wgs_stat"].isna().all()
    assert result.table["gs_stat"].notna().all()
    notes = result.summary().as_text()
    assert "WGS is NaN by design with repeated records" in notes
    # One row per record: WGS is defined and the note is not printed.
    paired = function(y[:120], {k: v[:120] for k, v in preds.items()})
    assert paired.table["wgs_stat"].notna().all()
    assert "WGS is NaN by design" not in paired.summary().as_text()


def test_cv_comparator_fit_with_defaults_does_not_warn():
    X, y = make_classification(300, 6, n_informative=4, n_classes=3, flip_y=0.1, random_state=0)
    comparator = CVPrecisionComparator(
        {"nb": GaussianNB(), "tree": DecisionTreeClassifier(max_depth=3, random_state=0)},
        cv=RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=0),
    )
    _no_warning(comparator.fit, X, y)
    assert comparator.result_.table["wgs_stat"].isna().all()


def test_grid_search_warns_only_about_nan_scores():
    # Iris with small test folds: precisions of 1 and identical predictions
    # of class 0 make many statistics undefined in every fold, but the
    # scorer reads one: the GS p-value of class 1.
    X, y = load_iris(return_X_y=True)
    search = GridSearchCV(
        PairedPrecisionComparator(
            {"nb": GaussianNB(), "tree": DecisionTreeClassifier(random_state=0)}
        ),
        {"nb__var_smoothing": [1e-9, 1e-3, 1e-1, 1], "tree__max_depth": [1, 2, 3, 4, 5]},
        # NaN for an undefined split, so that cv_results_ counts them.
        scoring=make_comparison_scorer(label=1, undefined=np.nan),
        cv=StratifiedKFold(5, shuffle=True, random_state=0),
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        search.fit(X, y)
    ours = [w for w in caught if issubclass(w.category, UndefinedStatisticWarning)]
    n_nan = int(sum(np.isnan(search.cv_results_[f"split{i}_test_score"]).sum() for i in range(5)))
    # At most one warning per split whose score is undefined, naming the
    # class (not one per undefined statistic of every class: 327 here).
    assert 0 < len(ours) <= n_nan
    assert all("class 1" in str(w.message) for w in ours)
