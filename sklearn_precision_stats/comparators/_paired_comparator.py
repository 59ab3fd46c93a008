"""Comparators: scikit-learn meta-estimators that fit and compare classifiers."""

from collections.abc import Mapping

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.utils import Bunch
from sklearn.utils.validation import check_consistent_length, check_is_fitted

from ..paired._compare import _compare
from ..utils._validation import _check_alpha, _named_items

__all__ = ["PairedPrecisionComparator"]


class _BaseComparator(MetaEstimatorMixin, BaseEstimator):
    """Parameter handling shared by the comparators.

    ``estimators`` is a dict name -> estimator or a list of (name, estimator)
    pairs, as in :class:`sklearn.ensemble.VotingClassifier`; nested
    parameters are addressed as ``<name>__<param>``.
    """

    def _named_estimators(self):
        """Validated list of (name, estimator) pairs."""
        items = _named_items(
            self.estimators,
            "estimators",
            "a dict name -> estimator or a list of (name, estimator) pairs, "
            "e.g. {'nb': GaussianNB(), 'rf': RandomForestClassifier()}",
            "add a reference estimator",
        )
        for name, est in items:
            if not isinstance(name, str) or "__" in name or not name:
                raise ValueError(
                    f"estimator name {name!r} must be a non-empty string "
                    "without '__' (it prefixes nested parameters)."
                )
            if name in self._get_param_names():
                raise ValueError(
                    f"estimator name {name!r} conflicts with a parameter of "
                    f"{type(self).__name__}; rename the estimator."
                )
            if not (hasattr(est, "fit") and hasattr(est, "predict")):
                raise ValueError(f"estimator {name!r} ({est!r}) must implement fit and predict.")
        names = [name for name, _ in items]
        if self.reference is not None and self.reference not in names:
            raise ValueError(
                f"reference={self.reference!r} is not one of the estimators "
                f"{names}; pass one of these names or None for the first."
            )
        return items

    def get_params(self, deep=True):
        """Get parameters, including ``<name>__<param>`` of the estimators.

        Parameters
        ----------
        deep : bool, default=True
            Also return the estimators and their parameters.

        Returns
        -------
        params : dict
        """
        params = super().get_params(deep=False)
        if not deep:
            return params
        estimators = self.estimators
        items = estimators.items() if isinstance(estimators, Mapping) else estimators
        for name, est in items:
            params[name] = est
            if hasattr(est, "get_params"):
                for key, value in est.get_params(deep=True).items():
                    params[f"{name}__{key}"] = value
        return params

    def set_params(self, **params):
        """Set parameters, including ``<name>`` and ``<name>__<param>``.

        Parameters
        ----------
        **params : dict

        Returns
        -------
        self
        """
        own = {k: v for k, v in params.items() if k in self._get_param_names()}
        if "estimators" in own:
            super().set_params(estimators=own.pop("estimators"))
        nested = {k: v for k, v in params.items() if k not in self._get_param_names()}
        names = [name for name, _ in self._items()]
        for key, value in nested.items():
            name, _, sub = key.partition("__")
            if name not in names:
                raise ValueError(
                    f"Invalid parameter {key!r} for {type(self).__name__}: "
                    f"{name!r} is neither a parameter nor an estimator "
                    f"(estimators: {names})."
                )
            if sub:
                dict(self._items())[name].set_params(**{sub: value})
            else:
                self._replace_estimator(name, value)
        if own:
            super().set_params(**own)
        return self

    def _items(self):
        est = self.estimators
        return list(est.items()) if isinstance(est, Mapping) else list(est)

    def _replace_estimator(self, name, value):
        if isinstance(self.estimators, Mapping):
            new = dict(self.estimators)
            new[name] = value
        else:
            new = [(n, value if n == name else e) for n, e in self.estimators]
        self.estimators = new

    def _ordered_names(self, names):
        """Names with the reference first."""
        ref = self.reference if self.reference is not None else names[0]
        return [ref] + [n for n in names if n != ref]

    def _record_input(self, X, y):
        """Set the fitted attributes that describe the training input."""
        if hasattr(X, "columns"):
            self.feature_names_in_ = np.asarray(X.columns, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        shape = getattr(X, "shape", None)
        self.n_features_in_ = shape[1] if shape is not None and len(shape) > 1 else 1
        y_arr = np.asarray(y)
        try:
            self.classes_ = np.unique(y_arr)
        except TypeError:
            self.classes_ = np.asarray(sorted(set(y_arr.tolist()), key=str), dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # Declared a classifier so that cross_validate, GridSearchCV and
        # check_cv stratify integer `cv` by class, as for the estimators.
        tags.estimator_type = "classifier"
        return tags


def _fit_one(estimator, X, y, fit_params):
    return estimator.fit(X, y, **fit_params)


class PairedPrecisionComparator(_BaseComparator):
    """Fit several classifiers and compare their precision on a test set.

    A scikit-learn meta-estimator: :meth:`fit` fits a clone of every
    estimator on the training data (in parallel with `n_jobs`);
    :meth:`compare` predicts the test records with each and returns the
    per-class paired comparison of :func:`compare_precision`. It works with
    :func:`~sklearn.base.clone`, ``get_params``/``set_params`` (nested as
    ``<name>__<param>``), pipelines and DataFrames, and with
    :func:`sklearn.model_selection.cross_validate` through
    :func:`make_comparison_scorer`.

    Parameters
    ----------
    estimators : dict or list of (str, estimator)
        The classifiers to compare, by name (at least two). They may be
        pipelines.
    reference : str, default=None
        Name of the reference classifier; the first when None.
    alpha : float, default=0.05
        Confidence intervals have level ``1 - alpha``.
    n_jobs : int, default=None
        Number of estimators fitted in parallel through joblib; None means 1
        unless in a :func:`joblib.parallel_config` context.

    Attributes
    ----------
    estimators_ : list of estimators
        The fitted clones, in the order given.
    named_estimators_ : Bunch
        The fitted clones by name.
    classes_ : ndarray
        Class labels seen in fit.
    n_features_in_ : int
        Number of features seen in fit.
    feature_names_in_ : ndarray of str
        Feature names seen in fit, when X is a DataFrame.

    See Also
    --------
    compare_precision : The comparison on predictions you already have.
    CVPrecisionComparator : The same comparison by cross-validation.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.ensemble import RandomForestClassifier
    >>> from sklearn.model_selection import train_test_split
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn_precision_stats import PairedPrecisionComparator
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X_train, X_test, y_train, y_test = train_test_split(
    ...     X, y, test_size=0.3, random_state=0)
    >>> comparator = PairedPrecisionComparator(
    ...     {"nb": GaussianNB(), "rf": RandomForestClassifier(random_state=0)},
    ...     reference="rf").fit(X_train, y_train)
    >>> result = comparator.compare(X_test, y_test)
    >>> result.table[["class", "classifier", "reference"]]
       class classifier reference
    0      0         nb        rf
    1      1         nb        rf
    """

    def __init__(self, estimators, *, reference=None, alpha=0.05, n_jobs=None):
        self.estimators = estimators
        self.reference = reference
        self.alpha = alpha
        self.n_jobs = n_jobs

    def fit(self, X, y, **fit_params):
        """Fit a clone of every estimator on (X, y).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Training data, passed unchanged to each estimator (so pipelines
            can handle DataFrames, text, ...).
        y : array-like of shape (n_samples,)
            Training labels.
        **fit_params : dict
            Passed to every estimator's ``fit`` (e.g. ``sample_weight``).

        Returns
        -------
        self : PairedPrecisionComparator
        """
        items = self._named_estimators()
        _check_alpha(self.alpha)
        check_consistent_length(X, y)
        self._record_input(X, y)
        fitted = Parallel(n_jobs=self.n_jobs)(
            delayed(_fit_one)(clone(est), X, y, fit_params) for _, est in items
        )
        self.estimators_ = fitted
        self.named_estimators_ = Bunch(
            **{name: est for (name, _), est in zip(items, fitted, strict=True)}
        )
        return self

    def predict_all(self, X):
        """Predictions of every fitted estimator.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        dict
            Estimator name -> predicted labels, reference first.
        """
        check_is_fitted(self, "estimators_")
        names = self._ordered_names(list(self.named_estimators_))
        return {name: self.named_estimators_[name].predict(X) for name in names}

    def compare(self, X, y):
        """Predict X with every estimator and compare their precision.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Test data, not used in fit.
        y : array-like of shape (n_samples,)
            True labels of X.

        Returns
        -------
        PrecisionComparison
        """
        preds = self.predict_all(X)
        return _compare(
            y, preds, self.reference, None, None, self.alpha, "closed-form", "precision"
        )
