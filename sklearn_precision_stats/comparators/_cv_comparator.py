"""Cross-validated comparison of classifiers, class by class (paper Algorithm 2).

Every (classifier, split) pair is one task of a single :class:`joblib.Parallel`
call, so the fits run on whatever backend is active (``loky`` processes,
threads, or a Dask cluster through ``joblib.parallel_config(backend="dask")``).
The out-of-fold predictions are stacked with one row per (record, repeat,
classifier) and compared by :func:`compare_precision` (or the function of
another measure) with the record as the GEE cluster.
"""

from __future__ import annotations

import numbers
import time
import warnings
from collections.abc import Iterator, Mapping, Sequence
from traceback import format_exc
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.exceptions import FitFailedWarning
from sklearn.model_selection import check_cv
from sklearn.utils import indexable
from sklearn.utils.metaestimators import _safe_split
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import check_is_fitted

from ..utils._sklearn_compat import StrOptions, _check_method_params, _num_samples
from ..utils._validation import _as_label_array, _check_aligned_indexes
from ._paired_comparator import (
    _BaseComparator,
    _check_training_labels,
    _kept,
    _row_aligned,
    _scores,
)

__all__ = ["CVPrecisionComparator"]

PREDICTION_COLUMNS = ["record_id", "repeat", "fold", "classifier", "y_true", "y_pred"]


class CVPrecisionComparator(_BaseComparator):
    """Compare classifiers class by class by cross-validation.

    For every split of `cv`, a clone of every estimator is fitted on the
    training records and predicts the test records. The out-of-fold
    predictions are stacked, one row per (record, repeat, classifier), where
    ``repeat`` counts how often the record was tested before (0 the first
    time). All classifiers predict each (record, repeat) from the same split,
    so the comparison is paired; a record tested several times (repeated
    cross-validation, :class:`~sklearn.model_selection.ShuffleSplit`) is one
    cluster of the GEE marginal model, whose robust variance accounts for
    its repeated rows (the paper's Algorithm 2). The result is the
    comparison of :func:`compare_precision` (or of the function of another
    `metric`) with ``groups`` = record ids; :meth:`compare` answers another
    measure from the stored predictions, without refitting.

    The (classifier, split) fits are the tasks of a single
    :class:`joblib.Parallel` call with no fixed backend: `n_jobs` runs them
    in processes, and ``joblib.parallel_config(backend="dask")`` runs them on
    a Dask cluster. The splits are computed once, before any fit, and every
    task fits its own clone, so the results do not depend on `n_jobs` or on
    the backend (given estimators with a fixed ``random_state``).

    The tests condition on the data set: their variance is that of the
    predictions of these records, not the variance due to the choice of
    training sets (Nadeau and Bengio, 2003).

    Parameters
    ----------
    estimators : dict or list of (str, estimator)
        The classifiers to compare, by name (at least two), as in
        :class:`sklearn.ensemble.VotingClassifier`. They may be pipelines.
    cv : int, cross-validation generator or iterable, default=5
        What :func:`~sklearn.model_selection.cross_validate` accepts: an int
        for :class:`~sklearn.model_selection.StratifiedKFold` with that many
        folds (stratified by class, as for a classifier, although the
        comparator itself is not one), a splitter (e.g.
        :class:`~sklearn.model_selection.RepeatedStratifiedKFold`,
        :class:`~sklearn.model_selection.GroupKFold` with `groups` in
        :meth:`fit`, :class:`~sklearn.model_selection.ShuffleSplit`,
        :class:`~sklearn.model_selection.LeaveOneOut`) or an iterable of
        (train, test) index arrays.
    reference : str, default=None
        Name of the reference classifier; the first when None. Every
        comparison is "classifier vs reference".
    metric : {"precision", "npv", "recall", "specificity", "accuracy"}, \
            default="precision"
        The measure compared in `result_`.
    confidence_level : float, default=0.95
        Confidence level of the intervals.
    cov_type : {"robust", "bias_reduced"}, default="robust"
        Covariance of the Wald test, odds ratio, ratio and difference: the
        robust sandwich, or Mancl and DeRouen's bias-reduced one (better
        with few records); see :func:`compare_precision`.
    n_jobs : int, default=None
        Number of (classifier, split) fits run in parallel. None means 1
        unless in a :func:`joblib.parallel_config` context; -1 means all
        processors.
    verbose : int, default=0
        With ``verbose > 0`` a progress bar over the fits is shown (tqdm when
        it is installed, otherwise joblib's progress messages at this
        verbosity).
    error_score : "raise" or numeric, default="raise"
        What to do when an estimator fails to fit or predict on a split.
        ``"raise"`` raises the estimator's own exception, of its own type,
        with a note naming the classifier and the split. A number (e.g.
        ``np.nan``) instead records the failure in `cv_results_`, warns
        with a :class:`~sklearn.exceptions.FitFailedWarning` and drops the
        records tested in that split, for every classifier, so that the
        comparison stays paired. There is no per-split score here, so the
        value itself is not used; it is accepted for compatibility with
        :func:`~sklearn.model_selection.cross_validate`.
    store_scores : bool, default=False
        Also keep each classifier's out-of-fold scores (``predict_proba``,
        else ``decision_function``) in `scores_`, for
        :meth:`compare_scores`.

    Attributes
    ----------
    result_ : PairedComparison
        The per-class comparison of `metric` on the stacked out-of-fold
        predictions, clustered by record.
    predictions_ : pandas.DataFrame
        The stacked predictions, one row per (record, repeat, classifier),
        with columns ``record_id`` (position of the record in `X`),
        ``repeat`` (how many earlier splits tested the record), ``fold``
        (index of the split that predicted the row, in the order of
        ``cv.split``), ``classifier`` (name), ``y_true`` and ``y_pred``.
        Rows are sorted by classifier (in the order given), then repeat, then
        record id, so that with a single K-fold pass each classifier's
        ``y_pred`` is aligned with `y`, like
        :func:`~sklearn.model_selection.cross_val_predict`. Records that no
        test set holds are absent.
    cv_results_ : dict of ndarray
        One entry per (split, classifier) task, split by split and, within a
        split, classifier by classifier, in the style of
        :func:`~sklearn.model_selection.cross_validate` (``pd.DataFrame(
        cv_results_)`` gives a table): ``"classifier"`` (name), ``"split"``
        (index), ``"fit_time"`` and ``"predict_time"`` (seconds; NaN where
        the task failed), ``"n_train"``, ``"n_test"`` and ``"failed"``
        (bool).
    scores_ : dict of str -> ndarray
        With ``store_scores=True``: each classifier's out-of-fold scores,
        shape ``(n_rows,)`` for two classes (the second class's) or
        ``(n_rows, n_classes)`` (columns in the order of `classes_`), rows
        aligned with that classifier's rows of `predictions_`. A class
        missing from a split's training records scores 0 there (the lowest
        float for a ``decision_function``), as in
        :func:`~sklearn.model_selection.cross_val_predict`.
    n_splits_ : int
        Number of splits of `cv`.
    classes_ : ndarray
        Class labels seen in `y`.
    n_features_in_ : int
        Number of features seen in fit; absent when X has no columns (a
        list of texts, for a pipeline that starts with a vectorizer).
    feature_names_in_ : ndarray of str
        Feature names seen in fit, when `X` is a DataFrame.

    See Also
    --------
    compare_precision : The comparison on predictions you already have.
    PairedPrecisionComparator : The same comparison on a train/test split.
    sklearn.model_selection.cross_val_predict : Out-of-fold predictions of
        one estimator.

    Notes
    -----
    Fit parameters such as ``sample_weight`` reach the estimators that
    request them when metadata routing is enabled
    (``sklearn.set_config(enable_metadata_routing=True)`` and
    ``set_fit_request``), and every estimator otherwise; they are restricted
    to the training records of each split. An estimator set to ``"drop"``
    (``set_params(name="drop")``) is left out.

    The fitted fold models are not kept: with repeated cross-validation
    they can be hundreds of estimators, and the comparison needs only their
    predictions. Fit :class:`PairedPrecisionComparator` or the estimators
    themselves on all the data for a model to use.

    References
    ----------
    .. [1] Gondara. Classifier comparison using precision. arXiv:1609.09471,
       section 3.7 and Algorithm 2.
    .. [2] Nadeau and Bengio (2003). Inference for the generalization error.
       Machine Learning 52(3), 239-281.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import RepeatedStratifiedKFold
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_precision_stats import CVPrecisionComparator
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> comparator = CVPrecisionComparator(
    ...     {"nb": GaussianNB(),
    ...      "lr": make_pipeline(StandardScaler(), LogisticRegression())},
    ...     cv=RepeatedStratifiedKFold(n_splits=5, n_repeats=2, random_state=0),
    ... ).fit(X, y)
    >>> comparator.n_splits_
    10
    >>> comparator.predictions_.shape
    (2276, 6)
    >>> comparator.predictions_.groupby("classifier", sort=False).size()
    classifier
    nb    1138
    lr    1138
    dtype: int64
    >>> comparator.result_.table[["class", "classifier", "reference"]]
       class classifier reference
    0      0         lr        nb
    1      1         lr        nb
    >>> comparator.result_.n_records
    569
    >>> comparator.compare(metric="recall").metric
    'recall'
    """

    _parameter_constraints: dict = {
        **_BaseComparator._parameter_constraints,
        "cv": ["cv_object"],
        "verbose": ["verbose"],
        "error_score": [StrOptions({"raise"}), numbers.Real],
        "store_scores": ["boolean"],
    }

    def __init__(
        self,
        estimators: Mapping[str, Any] | Sequence[tuple[str, Any]],
        *,
        cv: Any = 5,
        reference: str | None = None,
        metric: str = "precision",
        confidence_level: float = 0.95,
        cov_type: str = "robust",
        n_jobs: int | None = None,
        verbose: int = 0,
        error_score: str | float = "raise",
        store_scores: bool = False,
    ) -> None:
        self.estimators = estimators
        self.cv = cv
        self.reference = reference
        self.metric = metric
        self.confidence_level = confidence_level
        self.cov_type = cov_type
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.error_score = error_score
        self.store_scores = store_scores

    def fit(self, X: Any, y: Any, groups: Any = None, **fit_params: Any) -> CVPrecisionComparator:
        """Cross-validate every estimator and compare them.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            The records, indexed per split as
            :func:`~sklearn.model_selection.cross_validate` does (so
            DataFrames, lists of texts and sparse matrices reach the
            estimators as such).
        y : array-like of shape (n_samples,)
            Class labels (ints, strings, ...).
        groups : array-like of shape (n_samples,), default=None
            Group labels for the splitter (e.g.
            :class:`~sklearn.model_selection.GroupKFold`). They only steer
            the splits; the clusters of the comparison are the records.
        **fit_params : dict
            Fit parameters such as ``sample_weight``: with metadata routing
            enabled, each estimator receives those it requests
            (``set_fit_request``); otherwise every estimator receives all of
            them, and one whose ``fit`` cannot take them is a ValueError.
            Arrays of length ``n_samples`` are restricted to the training
            records of each split.

        Returns
        -------
        self : CVPrecisionComparator
            Fitted, with `result_`, `predictions_` and `cv_results_`.
        """
        _check_aligned_indexes(X=X, y=y, groups=groups, **_row_aligned(fit_params, X))
        self._validate_params()
        if isinstance(self.error_score, bool):
            # bool is a number to Python, but True is no score.
            raise ValueError(
                "error_score must be 'raise' or a number (e.g. np.nan, to drop "
                f"the records of failed splits and warn), got {self.error_score!r}."
            )
        all_items = self._named_estimators()
        routed = self._routed_fit_params(all_items, fit_params)
        items = _kept(all_items)
        X, y, groups = _check_inputs(X, y, groups)
        splits = _check_splits(self.cv, X, y, groups)
        self._record_input(X, y)
        self.n_splits_ = len(splits)

        names = [name for name, _ in items]
        tasks = [
            (name, estimator, split_idx, train, test)
            for split_idx, (train, test) in enumerate(splits)
            for name, estimator in items
        ]
        outputs = self._run_tasks(X, y, tasks, routed)
        self.cv_results_ = _cv_results(tasks, outputs)

        failed = self.cv_results_["failed"].reshape(len(splits), len(names))
        # A failed fit drops its split's records for every classifier, so
        # that each (record, repeat) keeps one prediction per classifier.
        kept_splits = ~failed.any(axis=1)
        rows = _stack_rows([test for _, test in splits], kept_splits)
        if rows["record_id"].size == 0:
            what = (
                f"All {len(tasks)} fits failed"
                if failed.all()
                else f"Every one of the {len(splits)} splits has a failed fit"
            )
            raise ValueError(
                f"{what}, so no record is left to compare. Fix the estimators "
                "or pass error_score='raise' to see the errors. First error:\n"
                f"{_first_error(outputs)}"
            )
        if not kept_splits.all():
            _warn_fit_failures(tasks, outputs, rows, len(names))

        # Task outputs are split-major: classifier j's are every len(names)-th.
        y_pred = {
            name: _gather_predictions(outputs[j :: len(names)], kept_splits, rows)
            for j, name in enumerate(names)
        }
        y_true = y[rows["record_id"]]
        self.predictions_ = _predictions_frame(rows, y_true, y_pred)
        if self.store_scores:
            self.scores_ = {
                name: _gather_predictions(outputs[j :: len(names)], kept_splits, rows, "scores")
                for j, name in enumerate(names)
            }
        elif hasattr(self, "scores_"):
            del self.scores_
        # Warnings about undefined statistics point at the caller of fit.
        self.result_ = self._compare_predictions(
            y_true, y_pred, rows["record_id"], metric=self.metric
        )
        return self

    def compare(
        self,
        metric: str | None = None,
        *,
        average: str | None = None,
        confidence_level: float | None = None,
        labels: Any = None,
        **metric_params: Any,
    ) -> Any:
        """Compare the stored out-of-fold predictions, for any measure.

        No estimator is refitted: the comparison is computed from
        `predictions_`, clustered by record, like `result_`.

        Parameters
        ----------
        metric : str, default=None
            The measure to compare; the comparator's `metric` when None.
            ``"precision"``, ``"npv"``, ``"recall"``, ``"specificity"`` and
            ``"accuracy"`` (with `average` None) give the GEE comparison of
            :func:`compare_precision` and its siblings; every other measure
            of :func:`compare_metric` (``"f1"``, ``"fbeta"``,
            ``"jaccard"``, ``"mcc"``, ``"cohen_kappa"``,
            ``"balanced_accuracy"``, ``"informedness"``, ``"markedness"``),
            and the five with an `average`, the delta-method comparison of
            :func:`compare_metric` with the records as clusters.
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
            As `result_`, or as :func:`compare_metric` returns, for the
            measure asked.
        """
        check_is_fitted(self, "predictions_")
        metric = self._validate_metric(metric, average)
        y_true, y_pred, records = self._stored_predictions()
        return self._compare_labels(
            y_true,
            y_pred,
            records,
            metric=metric,
            average=average,
            confidence_level=confidence_level,
            labels=labels,
            metric_params=metric_params,
        )

    def compare_scores(
        self,
        metric: str = "average_precision",
        *,
        average: str | None = None,
        confidence_level: float | None = None,
        **metric_params: Any,
    ) -> Any:
        """Compare the stored out-of-fold scores without a threshold.

        Needs ``store_scores=True``. No estimator is refitted; the
        bootstrap draws records (clusters), so a record tested in several
        repeats keeps its rows together.

        Parameters
        ----------
        metric : {"average_precision", "precision_at_recall", \
                "recall_at_precision", "roc_auc"}, default="average_precision"
            The measure, compared by :func:`compare_average_precision`,
            :func:`compare_precision_at_recall`,
            :func:`compare_recall_at_precision` or :func:`compare_roc_auc`
            (DeLong's test by default, with Obuchowski's clustered
            covariance when records repeat).
        average : {"macro", "micro", "weighted"}, default=None
            None gives one row per class (one row, the second class, for a
            binary problem).
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
        check_is_fitted(self, "predictions_")
        if not hasattr(self, "scores_"):
            raise ValueError(
                "compare_scores needs the out-of-fold scores: fit the comparator with "
                "store_scores=True."
            )
        y_true, _, stored_records = self._stored_predictions()
        records: np.ndarray | None = stored_records
        if np.unique(stored_records).shape[0] == stored_records.shape[0]:
            records = None  # every record once: no clusters
        return self._compare_score_columns(
            y_true,
            self.scores_,
            records,
            metric=metric,
            average=average,
            confidence_level=confidence_level,
            metric_params=metric_params,
        )

    def _stored_predictions(self) -> tuple[np.ndarray, dict[str, np.ndarray], np.ndarray]:
        """(y_true, {name: y_pred}, record ids) of the stacked rows."""
        frame = self.predictions_
        # predictions_ holds one block of rows per classifier, in the same
        # (repeat, record) order, so the blocks are aligned row by row.
        names = list(dict.fromkeys(frame["classifier"].tolist()))
        n_rows = frame.shape[0] // len(names)
        y_pred = {
            name: frame["y_pred"].to_numpy()[i * n_rows : (i + 1) * n_rows]
            for i, name in enumerate(names)
        }
        first = slice(0, n_rows)
        return frame["y_true"].to_numpy()[first], y_pred, frame["record_id"].to_numpy()[first]

    def _run_tasks(self, X, y, tasks, routed):
        """Run every (classifier, split) fit in one joblib.Parallel call."""
        progress = _progress_bar(len(tasks)) if self.verbose > 0 else None
        parallel = Parallel(
            n_jobs=self.n_jobs,
            # Without tqdm, joblib's own messages are the progress report.
            verbose=self.verbose if progress is None else 0,
            # A generator lets the bar advance as fits finish; it still
            # yields the outputs in task order.
            return_as="list" if progress is None else "generator",
        )
        jobs = (
            delayed(_fit_and_predict)(
                clone(estimator),
                X,
                y,
                train,
                test,
                routed[name],
                self.error_score,
                (name, split_idx, len(tasks) // len(routed)),
                self.classes_ if self.store_scores else None,
            )
            for name, estimator, split_idx, train, test in tasks
        )
        if progress is None:
            return parallel(jobs)
        with progress:
            outputs = []
            for output in parallel(jobs):
                outputs.append(output)
                progress.update(1)
            return outputs


def _check_inputs(X, y, groups):
    """Make X, y and groups indexable and of one length; y as 1-D labels."""
    y = _check_training_labels(y, "CVPrecisionComparator")
    n_x = _num_samples(X)
    if n_x != y.shape[0]:
        raise ValueError(
            f"X has {n_x} samples but y has {y.shape[0]}; pass one label per row of X."
        )
    if groups is not None:
        groups = _as_label_array(groups, "groups")
        if groups.shape[0] != n_x:
            raise ValueError(
                f"groups has {groups.shape[0]} entries but X has {n_x} "
                "samples; pass one group label per row of X."
            )
    X, y, groups = indexable(X, y, groups)
    return X, y, groups


def _check_splits(cv, X, y, groups):
    """The splits of `cv` as a list of (train, test) integer index arrays."""
    fix = (
        "Pass an int >= 2 (stratified K-fold), a splitter such as "
        "RepeatedStratifiedKFold(n_splits=10, n_repeats=10), or a list of "
        "(train, test) index arrays."
    )
    if isinstance(cv, bool) or (isinstance(cv, numbers.Integral) and cv < 2):
        raise ValueError(f"cv={cv!r} is not a valid cross-validation: {fix}")
    try:
        splitter = check_cv(cv, y, classifier=True)
        splits = list(splitter.split(X, y, groups))
    except (TypeError, ValueError) as exc:
        hint = ""
        if groups is None and "groups" in str(exc):
            hint = " This splitter needs groups: call fit(X, y, groups=...)."
        reason = str(exc).rstrip(".")
        raise ValueError(f"cv={cv!r} could not split the data: {reason}.{hint} {fix}") from exc
    n_samples = _num_samples(X)
    checked = []
    for i, (train, test) in enumerate(splits):
        train = _as_indices(train, n_samples, i, "train")
        test = _as_indices(test, n_samples, i, "test")
        if train.size == 0 or test.size == 0:
            empty = "train" if train.size == 0 else "test"
            raise ValueError(f"split {i} of cv has an empty {empty} set. {fix}")
        checked.append((train, test))
    if not checked:
        used_up = ""
        if isinstance(cv, Iterator):
            # A generator (e.g. KFold().split(X)) yields its splits once.
            used_up = (
                " cv is an iterator, which an earlier fit may have used up; pass "
                "list(...) of its splits to fit more than once."
            )
        raise ValueError(f"cv={cv!r} produced no split.{used_up} {fix}")
    return checked


def _as_indices(indices, n_samples, split_idx, part):
    """Integer indices from an index array or a boolean mask."""
    indices = np.asarray(indices)
    if indices.dtype == bool and indices.shape == (n_samples,):
        return np.flatnonzero(indices)
    if indices.ndim != 1 or (indices.size and indices.dtype.kind not in "iu"):
        raise ValueError(
            f"the {part} indices of split {split_idx} must be a 1-D array of "
            f"integer positions (or a boolean mask), got dtype {indices.dtype} "
            f"and shape {indices.shape}."
        )
    if indices.size and (indices.min() < -n_samples or indices.max() >= n_samples):
        raise ValueError(
            f"the {part} indices of split {split_idx} are out of range for {n_samples} samples."
        )
    return np.where(indices < 0, indices + n_samples, indices).astype(np.intp)


def _fit_and_predict(estimator, X, y, train, test, fit_params, error_score, task, classes=None):
    """Fit on the training records, predict the test records, time both.

    With `classes` (all the classes of y), the test records' scores are
    kept too, one column per class (see ``_scores``).

    Returns
    -------
    dict
        ``y_pred`` (None when the task failed), ``scores`` (None unless
        asked), ``fit_time``, ``predict_time`` and ``error`` (the
        traceback, or None).
    """
    # Restrict sample-aligned fit parameters to the training records, as
    # cross_validate does.
    fit_params = _check_method_params(X, params=fit_params, indices=train)
    X_train, y_train = _safe_split(estimator, X, y, train)
    X_test, _ = _safe_split(estimator, X, y, test, train)
    try:
        start = time.perf_counter()
        estimator.fit(X_train, y_train, **fit_params)
        fit_time = time.perf_counter() - start
        start = time.perf_counter()
        y_pred = _as_label_array(estimator.predict(X_test), "predictions")
        predict_time = time.perf_counter() - start
        scores = None if classes is None else _scores(estimator, X_test, classes, task[0])
        if y_pred.shape[0] != test.shape[0]:
            raise ValueError(
                f"predict returned {y_pred.shape[0]} labels for {test.shape[0]} test records."
            )
    except Exception as exc:
        if error_score == "raise":
            # The estimator's exception keeps its type, so that callers (and
            # scikit-learn's checks) can catch it; a note names the task.
            # Notes travel with the exception from worker processes.
            name, split_idx, n_splits = task
            _add_note(
                exc,
                f"Raised while fitting or predicting with classifier {name!r} on "
                f"split {split_idx} (0-based, of {n_splits}) of "
                "CVPrecisionComparator. Pass error_score=np.nan to drop the "
                "records of failed splits and go on with a warning.",
            )
            raise
        return {
            "y_pred": None,
            "scores": None,
            "fit_time": np.nan,
            "predict_time": np.nan,
            "error": format_exc(),
        }
    return {
        "y_pred": y_pred,
        "scores": scores,
        "fit_time": fit_time,
        "predict_time": predict_time,
        "error": None,
    }


def _add_note(exc: BaseException, note: str) -> None:
    if hasattr(exc, "add_note"):
        exc.add_note(note)
    else:  # Python 3.10 has no notes; keep the context in an attribute.
        setattr(exc, "__notes__", [*getattr(exc, "__notes__", []), note])  # noqa: B010


def _progress_bar(total):
    """A tqdm bar over the fits, or None when tqdm is not installed."""
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc="CVPrecisionComparator", unit="fit")


def _cv_results(tasks, outputs):
    return {
        "classifier": np.array([task[0] for task in tasks], dtype=object),
        "split": np.array([task[2] for task in tasks], dtype=np.intp),
        "fit_time": np.array([out["fit_time"] for out in outputs], dtype=float),
        "predict_time": np.array([out["predict_time"] for out in outputs], dtype=float),
        "n_train": np.array([task[3].shape[0] for task in tasks], dtype=np.intp),
        "n_test": np.array([task[4].shape[0] for task in tasks], dtype=np.intp),
        "failed": np.array([out["error"] is not None for out in outputs], dtype=bool),
    }


def _occurrence_number(values):
    """For each entry, how many earlier entries hold the same value."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    position = np.arange(values.shape[0])
    is_first = np.ones(values.shape[0], dtype=bool)
    is_first[1:] = ordered[1:] != ordered[:-1]
    # Position of the first entry of each run of equal values.
    run_start = np.maximum.accumulate(np.where(is_first, position, 0))
    occurrence = np.empty_like(position)
    occurrence[order] = position - run_start
    return occurrence


def _stack_rows(tests, kept_splits):
    """Record, repeat and fold of the stacked rows, sorted by (repeat, record).

    ``repeat`` numbers a record's test sets in split order over all splits;
    the rows of the splits not in `kept_splits` (a boolean mask) are then
    dropped. ``order`` maps the sorted rows to their positions in the
    split-order concatenation of the kept splits' test sets (the order of the
    predictions).
    """
    record = np.concatenate(tests)
    fold = np.repeat(np.arange(len(tests)), [t.shape[0] for t in tests])
    repeat = _occurrence_number(record)
    keep = kept_splits[fold]
    record, repeat, fold = record[keep], repeat[keep], fold[keep]
    order = np.lexsort((record, repeat))
    return {
        "record_id": record[order],
        "repeat": repeat[order],
        "fold": fold[order],
        "order": order,
        "n_dropped": int((~keep).sum()),
    }


def _gather_predictions(outputs, kept_splits, rows, key="y_pred"):
    """One classifier's predictions (or scores) of the stacked rows, in row order.

    `outputs` holds the classifier's task outputs, one per split.
    """
    kept = [out[key] for out, keep in zip(outputs, kept_splits, strict=False) if keep]
    return np.concatenate(kept)[rows["order"]]


def _predictions_frame(rows, y_true, y_pred):
    n_clf, n_rows = len(y_pred), rows["record_id"].shape[0]
    names = np.array(list(y_pred), dtype=object)
    return pd.DataFrame(
        {
            "record_id": np.tile(rows["record_id"], n_clf),
            "repeat": np.tile(rows["repeat"], n_clf),
            "fold": np.tile(rows["fold"], n_clf),
            "classifier": np.repeat(names, n_rows),
            "y_true": np.tile(y_true, n_clf),
            "y_pred": np.concatenate(list(y_pred.values())),
        },
        columns=PREDICTION_COLUMNS,
    )


def _first_error(outputs):
    errors = [out["error"] for out in outputs if out["error"] is not None]
    return errors[0] if errors else ""


def _warn_fit_failures(tasks, outputs, rows, n_classifiers):
    failures = [task for task, out in zip(tasks, outputs, strict=False) if out["error"] is not None]
    where = ", ".join(f"{task[0]!r} on split {task[2]}" for task in failures)
    n_splits = len({task[2] for task in failures})
    warnings.warn(
        f"{len(failures)} of {len(tasks)} fits failed ({where}). The "
        f"{rows['n_dropped']} (record, repeat) rows tested in the "
        f"{n_splits} affected split(s) were dropped for every "
        f"classifier ({rows['n_dropped'] * n_classifiers} predictions), so "
        "that the comparison stays paired. Pass error_score='raise' to see "
        f"the error. First error:\n{_first_error(outputs)}",
        FitFailedWarning,
        stacklevel=3,
    )
