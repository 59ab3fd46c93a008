"""Comparators: scikit-learn meta-estimators that fit and compare classifiers."""

from __future__ import annotations

import copy
import inspect
import numbers
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from sklearn import get_config
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.utils import Bunch, get_tags
from sklearn.utils.metadata_routing import (
    MetadataRouter,
    MethodMapping,
    process_routing,
)
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import check_consistent_length, check_is_fitted

from ..engine._roles import ROLES
from ..metrics._definitions import NAMED
from ..paired._compare import _compare
from ..utils._sklearn_compat import (
    Interval,
    StrOptions,
    _get_feature_names,
    _num_features,
    _num_samples,
    validate_parameter_constraints,
)
from ..utils._validation import _as_label_array, _check_aligned_indexes, _named_items

__all__ = ["PairedPrecisionComparator"]

METRICS = tuple(ROLES)
# Every measure compare() takes: the GEE measures (per class, with average
# None) and the measures of compare_metric.
MEASURES = tuple(dict.fromkeys([*METRICS, *NAMED]))
AVERAGES = ("binary", "micro", "macro", "weighted", "samples")


# The threshold-free measures of compare_scores, by their function's name.
SCORE_METRICS = ("average_precision", "precision_at_recall", "recall_at_precision", "roc_auc")


# The arguments of the threshold-free functions that the comparators set
# themselves; the others may be given as metric parameters.
_SET_BY_COMPARATOR = frozenset(
    ["y_true", "y_scores", "reference", "groups", "labels", "average", "confidence_level"]
)


def _check_metric_params(metric: str, average: str | None, metric_params: dict[str, Any]) -> None:
    """A ValueError for a parameter the measure does not take, naming those it takes.

    The rule of :func:`compare_metric` for the measures of predicted labels,
    the signature of the threshold-free function for the others.
    """
    if metric in SCORE_METRICS:
        from .. import threshold_free

        function = getattr(threshold_free, f"compare_{metric}")
        allowed = set(inspect.signature(function).parameters) - _SET_BY_COMPARATOR
    else:
        allowed = {"fbeta": {"beta"}, "cohen_kappa": {"weights"}}.get(metric, set())
        if average == "binary":
            allowed = allowed | {"pos_label"}
    unknown = sorted(set(metric_params) - allowed)
    if unknown:
        with_average = "" if average is None else f" with average={average!r}"
        raise ValueError(
            f"metric={metric!r}{with_average} takes no parameter {unknown}; its "
            f"parameters are {sorted(allowed) or 'none'}."
        )


def _is_gee(metric: str, average: str | None, metric_params: dict[str, Any]) -> bool:
    """Whether the comparison is the GEE one of compare_precision and its siblings."""
    return metric in METRICS and average is None and not metric_params


# The estimators' API pages on the documentation site, linked from the
# notebook (HTML) representation of an estimator.
_DOC_LINK_TEMPLATE = (
    "https://sklearn-precision-stats.readthedocs.io/en/latest/api/generated/"
    "sklearn_precision_stats.{estimator_name}.html"
)


class _BaseComparator(MetaEstimatorMixin, BaseEstimator):
    """Parameter handling shared by the comparators.

    ``estimators`` is a dict name -> estimator or a list of (name, estimator)
    pairs, as in :class:`sklearn.ensemble.VotingClassifier`; nested
    parameters are addressed as ``<name>__<param>`` and an estimator is left
    out with ``set_params(<name>="drop")``.
    """

    estimators: Any
    reference: str | None
    metric: str
    confidence_level: float
    cov_type: str
    n_jobs: int | None

    _doc_link_module = "sklearn_precision_stats"
    _doc_link_template = _DOC_LINK_TEMPLATE

    _parameter_constraints: dict = {
        "estimators": [list, tuple, Mapping],
        "reference": [str, None],
        "metric": [StrOptions(set(METRICS))],
        "confidence_level": [Interval(numbers.Real, 0, 1, closed="neither")],
        "cov_type": [StrOptions({"robust", "bias_reduced"})],
        "n_jobs": [numbers.Integral, None],
    }

    def _items(self) -> list[tuple[str, Any]]:
        """The (name, estimator) pairs of `estimators`, unvalidated."""
        est = self.estimators
        if isinstance(est, Mapping):
            return list(est.items())
        # get_params and set_params must not raise on invalid values: they
        # are validated in fit.
        if not isinstance(est, (list, tuple)):
            return []
        return [item for item in est if isinstance(item, tuple) and len(item) == 2]

    def _named_estimators(self) -> list[tuple[str, Any]]:
        """Validated list of (name, estimator) pairs, ``"drop"`` included."""
        if isinstance(self.estimators, (Mapping, list, tuple)):
            # The count of estimators is checked below, on the kept ones.
            kept = _kept(self._items())
            if len(kept) < 2 and len(kept) < len(self._items()):
                raise ValueError(
                    f"estimators must keep at least two classifiers to compare, "
                    f"got {len(kept)} besides the ones set to 'drop'; keep or add "
                    "an estimator."
                )
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
            if _is_drop(est):
                continue
            if isinstance(est, type):
                raise ValueError(
                    f"estimator {name!r} is the class {est.__name__}, not an estimator; "
                    f"pass an instance, e.g. {est.__name__}()."
                )
            if not (hasattr(est, "fit") and hasattr(est, "predict")):
                raise ValueError(
                    f"estimator {name!r} ({est!r}) must implement fit and predict "
                    "(or be 'drop' to leave it out)."
                )
        names = [name for name, est in items if not _is_drop(est)]
        if self.reference is not None and self.reference not in names:
            dropped = [name for name, est in items if _is_drop(est)]
            why = " (it is set to 'drop')" if self.reference in dropped else ""
            raise ValueError(
                f"reference={self.reference!r} is not one of the estimators "
                f"{names}{why}; pass one of these names or None for the first."
            )
        return items

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Get parameters, including ``<name>__<param>`` of the estimators.

        Parameters
        ----------
        deep : bool, default=True
            Also return the estimators and their parameters.

        Returns
        -------
        params : dict
            Parameter names mapped to their values.
        """
        params = super().get_params(deep=False)
        if not deep:
            return params
        estimators = self.estimators
        if not isinstance(estimators, (Mapping, list, tuple)):
            return params
        for name, est in self._items():
            params[name] = est
            if hasattr(est, "get_params") and not isinstance(est, type):
                for key, value in est.get_params(deep=True).items():
                    params[f"{name}__{key}"] = value
        return params

    def set_params(self, **params: Any) -> _BaseComparator:
        """Set parameters, including ``<name>`` and ``<name>__<param>``.

        ``set_params(<name>="drop")`` leaves an estimator out, as in
        :class:`sklearn.ensemble.VotingClassifier`.

        Parameters
        ----------
        **params : dict
            Parameter names mapped to their new values.

        Returns
        -------
        self : object
            The comparator.
        """
        own_names = self._get_param_names()
        own = {k: v for k, v in params.items() if k in own_names}
        if "estimators" in own:
            super().set_params(estimators=own.pop("estimators"))
        nested = {k: v for k, v in params.items() if k not in own_names}
        names = [item[0] for item in self._items()]
        for key in nested:
            name = key.partition("__")[0]
            if name not in names:
                raise ValueError(
                    f"Invalid parameter {key!r} for {type(self).__name__}: "
                    f"{name!r} is neither a parameter nor an estimator "
                    f"(estimators: {names})."
                )
        # Whole estimators first, then their parameters, as Pipeline does:
        # set_params(nb=GaussianNB(), nb__var_smoothing=1) sets the new one.
        for key, value in nested.items():
            if "__" not in key:
                self._replace_estimator(key, value)
        for key, value in nested.items():
            name, _, sub = key.partition("__")
            if not sub:
                continue
            est = dict(self._items())[name]
            if _is_drop(est) or not hasattr(est, "set_params"):
                raise ValueError(
                    f"Invalid parameter {key!r} for {type(self).__name__}: estimator "
                    f"{name!r} is {est!r}, which has no parameter {sub!r}; set the "
                    f"estimator first, e.g. set_params({name}=GaussianNB())."
                )
            est.set_params(**{sub: value})
        if own:
            super().set_params(**own)
        return self

    def _replace_estimator(self, name: str, value: Any) -> None:
        if isinstance(self.estimators, Mapping):
            new: Any = dict(self.estimators)
            new[name] = value
        else:
            new = [(n, value if n == name else e) for n, e in self.estimators]
        self.estimators = new

    def _ordered_names(self, names: Sequence[str]) -> list[str]:
        """Names with the reference first."""
        ref = self.reference if self.reference is not None else names[0]
        return [ref] + [n for n in names if n != ref]

    def _record_input(self, X: Any, y: Any) -> None:
        """Set the fitted attributes that describe the training input."""
        # As scikit-learn's estimators: string column names only.
        feature_names = _get_feature_names(X)
        if feature_names is not None:
            self.feature_names_in_ = feature_names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        try:
            self.n_features_in_ = _num_features(X)
        except TypeError:
            # Texts, dicts, ...: no feature count, as for a Pipeline that
            # starts with a vectorizer.
            if hasattr(self, "n_features_in_"):
                del self.n_features_in_
        y_arr = np.asarray(y)
        try:
            self.classes_ = np.unique(y_arr)
        except TypeError:
            self.classes_ = np.asarray(sorted(set(y_arr.tolist()), key=str), dtype=object)

    def _routed_fit_params(
        self, items: list[tuple[str, Any]], fit_params: dict[str, Any]
    ) -> dict[str, dict[str, Any]]:
        """The fit parameters of each kept estimator, by name.

        With metadata routing enabled, each estimator receives exactly the
        parameters it requested (``set_fit_request``). Without it, every
        parameter goes to every estimator, as in
        :class:`~sklearn.ensemble.VotingClassifier`; an estimator whose
        ``fit`` cannot take one is a ValueError that names it.
        """
        kept = _kept(items)
        if _routing_enabled():
            routed = process_routing(self, "fit", **fit_params)
            return {name: dict(routed[name].fit) for name, _ in kept}
        for name, est in kept:
            for key in fit_params:
                if not _accepts_fit_param(est, key):
                    raise ValueError(
                        f"estimator {name!r} ({type(est).__name__}) does not accept "
                        f"the fit parameter {key!r}. Without metadata routing, "
                        "every fit parameter goes to every estimator. Enable "
                        "routing with sklearn.set_config(enable_metadata_routing=True) "
                        f"and request {key!r} only where it applies, e.g. "
                        f"GaussianNB().set_fit_request({key}=True), or leave "
                        f"{name!r} out with set_params({name}='drop')."
                    )
        return {name: dict(fit_params) for name, _ in kept}

    def get_metadata_routing(self) -> MetadataRouter:
        """Get the metadata routing of this object.

        Every estimator that is not ``"drop"`` receives, in its ``fit``, the
        fit parameters (such as ``sample_weight``) it requests with
        ``set_fit_request``; see scikit-learn's metadata routing user guide.

        Returns
        -------
        routing : sklearn.utils.metadata_routing.MetadataRouter
            The routing information.
        """
        router = MetadataRouter(owner=self)
        for name, est in self._items():
            if _is_drop(est):
                continue
            router.add(
                **{name: est},
                method_mapping=MethodMapping().add(caller="fit", callee="fit"),
            )
        return router

    def __repr__(self, N_CHAR_MAX: int = 700) -> str:
        # scikit-learn's repr sorts dicts by key, which would show another
        # estimator first, and the first is the default reference: show a
        # dict of estimators as the equivalent list of pairs, in order.
        if not isinstance(self.estimators, Mapping):
            return super().__repr__(N_CHAR_MAX)
        shown = copy.copy(self)
        shown.estimators = list(self.estimators.items())
        return BaseEstimator.__repr__(shown, N_CHAR_MAX)

    def _sk_visual_block_(self) -> Any:
        from sklearn.utils._repr_html.estimator import _VisualBlock

        # One box per estimator, side by side, as for VotingClassifier.
        items = self._items()
        names = [name for name, _ in items]
        estimators = [est for _, est in items]
        return _VisualBlock("parallel", estimators, names=names)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        # The comparators fit classifiers but have no predict of their own,
        # so they are not classifiers: estimator_type stays None. Their
        # integer `cv` is stratified by class all the same (see
        # CVPrecisionComparator); in cross_validate pass a StratifiedKFold.
        tags.target_tags.required = True
        # The comparator passes X to every member: it takes what all of them
        # take (sparse matrices, missing values, strings, ...), and needs
        # what any of them needs (non-negative features), as a Pipeline's
        # tags follow its steps. Invalid members are left to fit to report.
        members = []
        for _, est in _kept(self._items()):
            try:
                members.append(get_tags(est))
            except (AttributeError, TypeError):
                return tags
        if members:
            inputs = tags.input_tags
            for name in ("sparse", "allow_nan", "categorical", "string", "dict"):
                setattr(inputs, name, all(getattr(m.input_tags, name) for m in members))
            inputs.positive_only = any(m.input_tags.positive_only for m in members)
            tags.non_deterministic = any(m.non_deterministic for m in members)
        return tags

    def _validate_metric(self, metric: str | None, average: str | None = None) -> str:
        metric = self.metric if metric is None else metric
        if metric not in MEASURES:
            raise ValueError(f"metric must be one of {list(MEASURES)}, got {metric!r}.")
        if average is not None and average not in AVERAGES:
            raise ValueError(f"average must be one of {list(AVERAGES)} or None, got {average!r}.")
        return metric

    def _level(self, confidence_level: float | None) -> float:
        """The confidence level of a comparison: the one given, else the comparator's.

        Validated here, as the functions validate theirs: a level given to
        ``compare`` (or set after fit) is not checked by ``fit``.
        """
        level = self.confidence_level if confidence_level is None else confidence_level
        validate_parameter_constraints(
            {"confidence_level": self._parameter_constraints["confidence_level"]},
            {"confidence_level": level},
            caller_name=type(self).__name__,
        )
        return float(level)

    def _compare_score_columns(
        self,
        y_true: Any,
        y_scores: dict[str, np.ndarray],
        groups: Any,
        *,
        metric: str,
        average: str | None,
        confidence_level: float | None,
        metric_params: dict[str, Any],
    ) -> Any:
        """The threshold-free comparison of `metric` on the classifiers' scores.

        The score columns follow ``classes_``, which are passed as the
        labels; warnings are re-issued at the caller of the public method.
        """
        from .. import threshold_free

        if metric not in SCORE_METRICS:
            raise ValueError(f"metric must be one of {list(SCORE_METRICS)}, got {metric!r}.")
        _check_metric_params(metric, average, metric_params)
        function = getattr(threshold_free, f"compare_{metric}")
        level = self._level(confidence_level)
        names = self._ordered_names(list(y_scores))
        return _reissued(
            function,
            y_true,
            {name: y_scores[name] for name in names},
            groups=groups,
            labels=self.classes_,
            average=average,
            confidence_level=level,
            **metric_params,
        )

    def _compare_labels(
        self,
        y_true: Any,
        y_preds: Any,
        groups: Any,
        *,
        metric: str,
        average: str | None,
        confidence_level: float | None,
        labels: Any,
        metric_params: dict[str, Any],
    ) -> Any:
        """The comparison of ``compare``: GEE, or :func:`compare_metric`.

        The GEE comparison of :meth:`_compare_predictions` for the measures
        it covers, otherwise :func:`compare_metric` with this comparator's
        reference and level, its warnings re-issued at the line that
        called the public method.
        """
        if _is_gee(metric, average, metric_params):
            # One frame more than from fit: this method.
            return self._compare_predictions(
                y_true,
                y_preds,
                groups,
                metric=metric,
                confidence_level=confidence_level,
                labels=labels,
                stacklevel=6,
            )
        from ..metrics import compare_metric

        level = self._level(confidence_level)
        return _reissued(
            compare_metric,
            y_true,
            y_preds,
            metric=metric,
            average=average,
            reference=self.reference,
            groups=groups,
            labels=labels,
            confidence_level=level,
            **metric_params,
        )

    def _compare_predictions(
        self,
        y_true: Any,
        y_preds: Any,
        groups: Any,
        *,
        metric: str,
        confidence_level: float | None = None,
        labels: Any = None,
        diagnostics: list[str] | None = None,
        stacklevel: int = 5,
    ) -> Any:
        """The comparison of the paired functions, with this comparator's settings.

        Every comparison of the comparators is made here: the reference and
        covariance are the comparator's, and so is the confidence level when
        `confidence_level` is None. Called by the public methods directly,
        so that warnings about undefined statistics point at their caller.
        A `diagnostics` list receives those messages instead of warnings.
        `stacklevel` counts the frames from the engine's warning to the
        user's line: by default two in the paired module, this method, the
        public method and the user's line.
        """
        level = self._level(confidence_level)
        return _compare(
            y_true,
            y_preds,
            self.reference,
            groups,
            labels,
            level,
            "closed-form",
            metric,
            stacklevel,
            cov_type=self.cov_type,
            diagnostics=diagnostics,
        )


def _reissued(function: Any, /, *args: Any, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)``, its warnings re-issued at the user's line.

    Called from a comparator's private method, itself called by the public
    method: the user's line is three frames up from here.
    """
    with warnings.catch_warnings(record=True) as caught:
        result = function(*args, **kwargs)
    for item in caught:
        warnings.warn(item.message, item.category, stacklevel=4)
    return result


def _routing_enabled() -> bool:
    return bool(get_config().get("enable_metadata_routing", False))


def _is_drop(est: Any) -> bool:
    return isinstance(est, str) and est == "drop"


def _kept(items: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """The (name, estimator) pairs that are not ``"drop"``."""
    return [(name, est) for name, est in items if not _is_drop(est)]


def _accepts_fit_param(estimator: Any, key: str) -> bool:
    """Whether ``estimator.fit`` takes `key` (or any keyword: ``**params``)."""
    try:
        parameters = inspect.signature(estimator.fit).parameters
    except (TypeError, ValueError):
        return True
    return key in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()
    )


def _scores(estimator: Any, X: Any, classes: np.ndarray, name: str) -> np.ndarray:
    """An estimator's scores of X, one column per class of `classes`.

    A class the estimator did not see in fit (a cross-validation fold
    without it) gets probability 0, or the lowest float as its decision
    value, as in :func:`~sklearn.model_selection.cross_val_predict`. Two
    classes: the second class's column.
    """
    if hasattr(estimator, "predict_proba"):
        scores = np.asarray(estimator.predict_proba(X), dtype=float)
    elif hasattr(estimator, "decision_function"):
        scores = np.asarray(estimator.decision_function(X), dtype=float)
    else:
        raise ValueError(
            f"estimator {name!r} ({type(estimator).__name__}) has neither predict_proba "
            "nor decision_function, so it gives no scores to compare; use compare() "
            "for its predicted labels."
        )
    own = np.asarray(getattr(estimator, "classes_", classes))
    if scores.ndim == 1:
        if len(own) != 2 or len(classes) != 2:
            # As cross_val_predict, which refuses this case too.
            raise ValueError(
                f"estimator {name!r} was fitted on {len(own)} of the {len(classes)} "
                "classes of y, so its decision_function gives one score per record, "
                "which cannot be aligned with every class. Use folds that hold every "
                "class in training (e.g. StratifiedKFold) or an estimator with "
                "predict_proba."
            )
        return scores
    if scores.ndim != 2 or scores.shape[1] != own.shape[0]:
        # E.g. SVC(decision_function_shape="ovo"): one column per pair of classes.
        raise ValueError(
            f"estimator {name!r} gives scores of shape {scores.shape} for its "
            f"{own.shape[0]} classes; one column per class is needed (for SVC, "
            "decision_function_shape='ovr')."
        )
    if own.tolist() != classes.tolist():
        position = {label: i for i, label in enumerate(classes.tolist())}
        unknown = [label for label in own.tolist() if label not in position]
        if unknown:
            raise ValueError(
                f"estimator {name!r} was fitted on the classes {own.tolist()}, which "
                f"cannot be aligned with the classes {classes.tolist()} of y."
            )
        # As cross_val_predict does: a class the estimator did not see gets
        # probability 0, or the lowest decision value.
        fill = 0.0 if hasattr(estimator, "predict_proba") else np.finfo(float).min
        full = np.full((scores.shape[0], classes.shape[0]), fill)
        full[:, [position[label] for label in own.tolist()]] = scores
        scores = full
    return scores[:, 1] if classes.shape[0] == 2 else scores


def _row_aligned(fit_params: dict[str, Any], X: Any) -> dict[str, Any]:
    """The pandas fit parameters of one value per row of X, by name.

    Such parameters (sample_weight as a Series, ...) are read by position,
    as scikit-learn reads them, so their index must match X's like y's.
    """
    try:
        n_rows = _num_samples(X)
    except TypeError:
        return {}
    return {
        name: value
        for name, value in fit_params.items()
        if isinstance(value, (pd.Series, pd.DataFrame)) and len(value) == n_rows
    }


def _check_training_labels(y: Any, owner: str) -> np.ndarray:
    """The training labels as a 1-D array, or a ValueError that says what is wrong."""
    if y is None:
        raise ValueError(
            f"{owner} requires y to be passed, but the target y is None; the "
            "comparator fits classifiers and needs the training labels: fit(X, y)."
        )
    if np.iscomplexobj(y):
        raise ValueError(
            "Complex data not supported: y has complex values; class labels must "
            "be integers, strings or other hashable values."
        )
    return _as_label_array(y, "y")


def _fit_one(estimator: Any, X: Any, y: Any, fit_params: dict[str, Any]) -> Any:
    # The estimator itself, not what its fit returns (None, for some).
    estimator.fit(X, y, **fit_params)
    return estimator


class PairedPrecisionComparator(_BaseComparator):
    """Fit several classifiers and compare them on a test set, class by class.

    A scikit-learn meta-estimator: :meth:`fit` fits a clone of every
    estimator on the training data (in parallel with `n_jobs`);
    :meth:`compare` predicts the test records with each and returns the
    per-class paired comparison of :func:`compare_precision` (or of the
    function of another `metric`). It works with
    :func:`~sklearn.base.clone`, ``get_params``/``set_params`` (nested as
    ``<name>__<param>``, ``<name>="drop"`` to leave an estimator out),
    pipelines, DataFrames, metadata routing, and
    :func:`sklearn.model_selection.cross_validate` through
    :func:`make_comparison_scorer`.

    The comparator is not a classifier (it has no ``predict``), so
    :func:`~sklearn.model_selection.cross_validate` and
    :class:`~sklearn.model_selection.GridSearchCV` split an integer `cv`
    without stratification: pass ``cv=StratifiedKFold(5)`` for stratified
    folds.

    Parameters
    ----------
    estimators : dict or list of (str, estimator)
        The classifiers to compare, by name (at least two), as in
        :class:`sklearn.ensemble.VotingClassifier`. They may be pipelines.
    reference : str, default=None
        Name of the reference classifier; the first when None.
    metric : {"precision", "npv", "recall", "specificity", "accuracy"}, \
            default="precision"
        The measure :meth:`compare` compares unless told otherwise.
    confidence_level : float, default=0.95
        Confidence level of the intervals.
    cov_type : {"robust", "bias_reduced"}, default="robust"
        Covariance of the Wald test, odds ratio, ratio and difference: the
        robust sandwich, or Mancl and DeRouen's bias-reduced one (better
        with few records); see :func:`compare_precision`.
    n_jobs : int, default=None
        Number of estimators fitted in parallel through joblib; None means 1
        unless in a :func:`joblib.parallel_config` context.

    Attributes
    ----------
    estimators_ : list of estimators
        The fitted clones of the estimators that are not ``"drop"``, in the
        order given.
    named_estimators_ : Bunch
        Every estimator by name: the fitted clone, or ``"drop"``.
    classes_ : ndarray
        Class labels seen in fit.
    n_features_in_ : int
        Number of features seen in fit; absent when X has no columns (a
        list of texts, for a pipeline that starts with a vectorizer).
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
    >>> comparator.compare(X_test, y_test, metric="recall").metric
    'recall'
    """

    def __init__(
        self,
        estimators: Mapping[str, Any] | Sequence[tuple[str, Any]],
        *,
        reference: str | None = None,
        metric: str = "precision",
        confidence_level: float = 0.95,
        cov_type: str = "robust",
        n_jobs: int | None = None,
    ) -> None:
        self.estimators = estimators
        self.reference = reference
        self.metric = metric
        self.confidence_level = confidence_level
        self.cov_type = cov_type
        self.n_jobs = n_jobs

    def fit(self, X: Any, y: Any, **fit_params: Any) -> PairedPrecisionComparator:
        """Fit a clone of every estimator on (X, y).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Training data, passed unchanged to each estimator (so pipelines
            can handle DataFrames, text, ...).
        y : array-like of shape (n_samples,)
            Training labels.
        **fit_params : dict
            Fit parameters such as ``sample_weight``. With metadata routing
            enabled, each estimator receives those it requests
            (``set_fit_request``); otherwise every estimator receives all of
            them, and one whose ``fit`` cannot take them is a ValueError.

        Returns
        -------
        self : PairedPrecisionComparator
            The fitted comparator.
        """
        _check_aligned_indexes(X=X, y=y, **_row_aligned(fit_params, X))
        self._validate_params()
        items = self._named_estimators()
        # One clear error for missing or multi-column labels, rather than
        # each estimator's own; every estimator then fits on the same 1-D y.
        y = _check_training_labels(y, type(self).__name__)
        check_consistent_length(X, y)
        routed = self._routed_fit_params(items, fit_params)
        self._record_input(X, y)
        kept = _kept(items)
        # scikit-learn's Parallel carries its configuration (metadata
        # routing, ...) into the workers, where nested estimators need it.
        fitted = Parallel(n_jobs=self.n_jobs)(
            delayed(_fit_one)(clone(est), X, y, routed[name]) for name, est in kept
        )
        self.estimators_ = list(fitted)
        by_name = dict(zip([name for name, _ in kept], fitted, strict=True))
        self.named_estimators_ = Bunch(**{name: by_name.get(name, est) for name, est in items})
        return self

    def predict_all(self, X: Any) -> dict[str, np.ndarray]:
        """Predictions of every fitted estimator.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            The records to predict.

        Returns
        -------
        dict
            Estimator name -> predicted labels, reference first.
        """
        check_is_fitted(self, "estimators_")
        names = [name for name, est in self.named_estimators_.items() if not _is_drop(est)]
        names = self._ordered_names(names)
        return {name: self.named_estimators_[name].predict(X) for name in names}

    def scores_all(self, X: Any) -> dict[str, np.ndarray]:
        """Scores of every fitted estimator, for the threshold-free comparisons.

        ``predict_proba`` where the estimator has it, else
        ``decision_function``. For two classes, the scores of the second
        class of ``classes_`` (shape ``(n_samples,)``); otherwise one column
        per class of ``classes_``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            The records to score.

        Returns
        -------
        dict
            Estimator name -> scores, reference first.
        """
        check_is_fitted(self, "estimators_")
        names = [name for name, est in self.named_estimators_.items() if not _is_drop(est)]
        return {
            name: _scores(self.named_estimators_[name], X, self.classes_, name)
            for name in self._ordered_names(names)
        }

    def compare_scores(
        self,
        X: Any,
        y: Any,
        *,
        metric: str = "average_precision",
        average: str | None = None,
        confidence_level: float | None = None,
        **metric_params: Any,
    ) -> Any:
        """Score X with every estimator and compare them without a threshold.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Test data, not used in fit.
        y : array-like of shape (n_samples,)
            True labels of X.
        metric : {"average_precision", "precision_at_recall", \
                "recall_at_precision", "roc_auc"}, default="average_precision"
            The measure, compared by :func:`compare_average_precision`,
            :func:`compare_precision_at_recall`,
            :func:`compare_recall_at_precision` or :func:`compare_roc_auc`
            on the scores of :meth:`scores_all`.
        average : {"macro", "micro", "weighted"}, default=None
            As in those functions: None gives one row per class (one row,
            the second class, for a binary problem).
        confidence_level : float, default=None
            Confidence level of the intervals; the comparator's when None.
        **metric_params : dict
            Passed to the function: ``recall``, ``precision``, ``method``
            (ROC AUC), ``n_resamples``, ``random_state``.

        Returns
        -------
        MetricComparison
            As those functions return.
        """
        _check_aligned_indexes(X=X, y=y)
        check_is_fitted(self, "estimators_")
        y = _as_label_array(y, "y")
        # The estimators score the classes of fit only: a test class beyond
        # them has no score column (compare() reports it, never predicted).
        seen = set(self.classes_.tolist())
        unseen = sorted((v for v in pd.unique(y).tolist() if v not in seen), key=str)
        if unseen:
            raise ValueError(
                f"y holds the class(es) {unseen[:5]} that the estimators did not see "
                f"in fit (classes_ = {self.classes_.tolist()}), so they give them no "
                "score. Drop those records, or fit on data that holds them."
            )
        return self._compare_score_columns(
            y,
            self.scores_all(X),
            None,
            metric=metric,
            average=average,
            confidence_level=confidence_level,
            metric_params=metric_params,
        )

    def compare(
        self,
        X: Any,
        y: Any,
        *,
        metric: str | None = None,
        average: str | None = None,
        confidence_level: float | None = None,
        labels: Any = None,
        **metric_params: Any,
    ) -> Any:
        """Predict X with every estimator and compare them, class by class.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Test data, not used in fit.
        y : array-like of shape (n_samples,)
            True labels of X.
        metric : str, default=None
            The measure to compare; the comparator's `metric` when None.
            ``"precision"``, ``"npv"``, ``"recall"``, ``"specificity"`` and
            ``"accuracy"`` (with `average` None) give the GEE comparison of
            :func:`compare_precision` and its siblings; every other measure
            of :func:`compare_metric` (``"f1"``, ``"fbeta"``,
            ``"jaccard"``, ``"mcc"``, ``"cohen_kappa"``,
            ``"balanced_accuracy"``, ``"informedness"``, ``"markedness"``),
            and the five with an `average`, the delta-method comparison of
            :func:`compare_metric`. The fitted estimators are reused:
            another measure needs no refit.
        average : {"binary", "micro", "macro", "weighted"}, default=None
            As in :func:`compare_metric`: None gives one row per class.
        confidence_level : float, default=None
            Confidence level of the intervals; the comparator's when None.
        labels : array-like, default=None
            The classes to report, in this order; every class seen when
            None.
        **metric_params : dict
            ``beta`` (``"fbeta"``), ``weights`` (``"cohen_kappa"``),
            ``pos_label`` (``average="binary"``), passed to
            :func:`compare_metric`.

        Returns
        -------
        PairedComparison or MetricComparison
            As returned by :func:`compare_precision` and its siblings, or
            by :func:`compare_metric`.
        """
        _check_aligned_indexes(X=X, y=y)
        metric = self._validate_metric(metric, average)
        return self._compare_labels(
            y,
            self.predict_all(X),
            None,
            metric=metric,
            average=average,
            confidence_level=confidence_level,
            labels=labels,
            metric_params=metric_params,
        )
