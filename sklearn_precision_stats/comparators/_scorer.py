"""Scorers that turn a comparator's comparison into one number."""

from __future__ import annotations

import warnings
from collections.abc import Hashable
from typing import Any

import numpy as np
from sklearn.pipeline import Pipeline

from ..exceptions import UndefinedStatisticWarning
from ..metrics._definitions import WHOLE_MATRIX
from ..utils._validation import _check_aligned_indexes
from ._cv_comparator import CVPrecisionComparator
from ._paired_comparator import (
    AVERAGES,
    MEASURES,
    SCORE_METRICS,
    _check_metric_params,
    _is_gee,
)

__all__ = ["make_comparison_scorer"]

_TESTS = ("gs", "wgs", "wald", "ratio")
_OUTPUTS = ("pvalue", "statistic", "ratio", "diff")

# The score of a fold whose comparison is undefined, under
# ``undefined="neutral"``: the value of "no difference" (p = 1, a zero
# statistic or difference, a ratio of one).
_NEUTRAL = {"pvalue": -1.0, "statistic": 0.0, "ratio": 1.0, "diff": 0.0}


class _ComparisonScorer:
    """Callable ``(comparator, X, y) -> float``; picklable for joblib."""

    def __init__(
        self,
        test: str,
        output: str,
        metric: str,
        label: Hashable | None,
        classifier: str | None,
        undefined: float = np.nan,
        average: str | None = None,
        metric_params: dict[str, Any] | None = None,
    ) -> None:
        self.test = test
        self.output = output
        self.metric = metric
        self.label = label
        self.classifier = classifier
        self.undefined = undefined
        self.average = average
        self.metric_params = dict(metric_params or {})

    def __call__(self, comparator: Any, X: Any, y: Any, **kwargs: Any) -> float:
        # Before a pipeline's steps turn a DataFrame into an array.
        _check_aligned_indexes(X=X, y=y)
        comparator, X = _comparator_and_input(comparator, X)
        if self.metric in SCORE_METRICS:
            return self._score_measure(comparator, X, y, scores=True)
        if not _is_gee(self.metric, self.average, self.metric_params):
            return self._score_measure(comparator, X, y)
        # The comparison is made without its warnings: most are about
        # statistics this scorer does not read, and a grid search would
        # repeat them for every split and candidate. If the number scored
        # is undefined, one warning gives the reasons for its class.
        y_preds = comparator.predict_all(X)
        result = comparator._compare_predictions(
            y, y_preds, None, metric=self.metric, diagnostics=[]
        )
        row = self._row(comparator, result.table)
        if row is None:
            return self._absent_label(stacklevel=3)
        value = self._score(row)
        if np.isnan(value):
            reasons: list[str] = []
            labels = None if self.metric == "accuracy" else [self.label]
            comparator._compare_predictions(
                y, y_preds, None, metric=self.metric, labels=labels, diagnostics=reasons
            )
            where = "the pooled classes" if labels is None else f"class {_plain(self.label)!r}"
            warnings.warn(
                f"The scored {self._scored()} of {where} is NaN in this split; the split "
                f"scores {self.undefined}. {' '.join(reasons)}",
                UndefinedStatisticWarning,
                stacklevel=2,
            )
            return self.undefined
        return value

    def _score_measure(self, comparator: Any, X: Any, y: Any, scores: bool = False) -> float:
        """The score of a measure of compare_metric, or a threshold-free one."""
        # As above: one warning, only when the number scored is undefined.
        compare = comparator.compare_scores if scores else comparator.compare
        with warnings.catch_warnings(record=True) as caught:
            result = compare(X, y, metric=self.metric, average=self.average, **self.metric_params)
        row = self._row(comparator, result.table, pooled=True)
        if row is None:
            return self._absent_label(stacklevel=4)
        if self.output == "diff":
            value = float(row["diff"])
        elif self.output == "pvalue":
            value = -float(row["diff_pvalue"])
        else:
            with np.errstate(divide="ignore", invalid="ignore"):
                value = float(row["diff"] / row["diff_se"])
        if np.isnan(value):
            label = row["class"]
            if self.average is not None:
                where = f"the {self.average} average"
            elif self.metric in WHOLE_MATRIX:
                where = "the pooled classes"
            else:
                # A plain value in the message, not np.int64(2).
                where = f"class {_plain(label)!r}"
            reasons = " ".join(str(item.message) for item in caught)
            warnings.warn(
                f"The scored {self.output} of {self.metric} of {where} is NaN in this "
                f"split; the split scores {self.undefined}. {reasons}",
                UndefinedStatisticWarning,
                stacklevel=3,
            )
            return self.undefined
        return value

    def _row(self, comparator: Any, table: Any, pooled: bool = False) -> Any:
        """The scored row, or None when `label` is a class absent from this split."""
        try:
            return _select_row(table, self.metric, self.label, self.classifier, pooled=pooled)
        except _LabelNotInSplit:
            # A class seen in fit that no test record has and no classifier
            # predicts: its comparison is undefined in this split, as when
            # one classifier never predicts it. A label never seen is a typo.
            if self.label not in np.asarray(comparator.classes_).tolist():
                raise
            return None

    def _scored(self) -> str:
        """What is scored, for messages: "ratio", "diff" or the test's output."""
        # A threshold-free measure has no test (""): its output alone.
        if self.output in ("ratio", "diff"):
            return self.output
        return f"{self.test} {self.output}".strip()

    def _absent_label(self, stacklevel: int) -> float:
        warnings.warn(
            f"Class {_plain(self.label)!r} does not occur in this split (no test record "
            f"is of the class or predicted as it), so the scored {self._scored()} of "
            f"{self.metric} is undefined; the split scores {self.undefined}.",
            UndefinedStatisticWarning,
            stacklevel=stacklevel,
        )
        return self.undefined

    def _score(self, row: Any) -> float:
        if self.output == "ratio":
            return float(row["ratio"])
        if self.output == "diff":
            return float(row["diff"])
        if self.test == "ratio":
            if self.output == "pvalue":
                return -float(row["ratio_pvalue"])
            with np.errstate(divide="ignore", invalid="ignore"):
                return float(np.log(row["ratio"]) / row["ratio_se_log"])
        if self.output == "pvalue":
            # Negated, like scikit-learn's neg_* scorers: larger is better.
            return -float(row[f"{self.test}_pvalue"])
        return float(row[f"{self.test}_stat"])

    def __repr__(self) -> str:
        return (
            # A threshold-free measure has no test: None, as make_comparison_scorer takes.
            f"make_comparison_scorer(test={self.test or None!r}, output={self.output!r}, "
            f"metric={self.metric!r}, label={self.label!r}, "
            f"classifier={self.classifier!r}, undefined={self.undefined!r}, "
            f"average={self.average!r}"
            + "".join(f", {k}={v!r}" for k, v in self.metric_params.items())
            + ")"
        )


def _comparator_and_input(estimator: Any, X: Any) -> tuple[Any, Any]:
    """The comparator to score and its input, through a Pipeline that ends in one.

    A Pipeline's own methods do not include ``compare``, so its steps before
    the comparator transform X here, as ``Pipeline.predict`` would.
    """
    if isinstance(estimator, Pipeline):
        X = estimator[:-1].transform(X)
        estimator = estimator[-1]
    if not hasattr(estimator, "predict_all"):
        hint = (
            " A CVPrecisionComparator cross-validates the estimators itself: read "
            "its result_ or call its compare()."
            if isinstance(estimator, CVPrecisionComparator)
            else ""
        )
        raise ValueError(
            "make_comparison_scorer scores a fitted PairedPrecisionComparator (or a "
            "Pipeline that ends in one) on held-out records, got "
            f"{type(estimator).__name__}.{hint}"
        )
    return estimator, X


class _LabelNotInSplit(ValueError):
    """`label` is not a class of a split's comparison."""


def _plain(value: Any) -> Any:
    """A NumPy scalar as the Python value it holds, for messages."""
    return value.item() if isinstance(value, np.generic) else value


def _select_row(
    table: Any,
    metric: str,
    label: Hashable | None,
    classifier: str | None,
    pooled: bool = False,
) -> Any:
    """The table row of `label` and `classifier`.

    `label` is ignored for accuracy, and when it is None with `pooled`
    (the one row of an average or of a whole-matrix measure).
    """
    rows = table
    if classifier is None:
        names = list(dict.fromkeys(table["classifier"].tolist()))
        if len(names) != 1:
            raise ValueError(
                f"classifier is needed: the comparator compares {names} with "
                "the reference; make the scorer with "
                f"make_comparison_scorer(..., classifier={names[0]!r})."
            )
    else:
        rows = rows[rows["classifier"] == classifier]
        if rows.shape[0] == 0:
            names = list(dict.fromkeys(table["classifier"].tolist()))
            raise ValueError(
                f"classifier={classifier!r} is not compared with the reference; "
                f"the compared classifiers are {names}."
            )
    if pooled and label is None and rows.shape[0] > 1:
        classes = list(dict.fromkeys(table["class"].tolist()))
        raise ValueError(
            f"label is needed: the comparison of {metric} has one row per class "
            f"{classes}; make the scorer with make_comparison_scorer(..., label=<class>) "
            "or with an average."
        )
    if metric != "accuracy" and not (pooled and label is None):
        matches = rows["class"].to_numpy() == label
        if not matches.any():
            classes = list(dict.fromkeys(table["class"].tolist()))
            raise _LabelNotInSplit(
                f"label={label!r} is not a class of this comparison; the classes "
                f"of these test records are {classes}."
            )
        rows = rows[matches]
    return rows.iloc[0]


def make_comparison_scorer(
    test: str | None = None,
    output: str = "pvalue",
    metric: str = "precision",
    label: Hashable | None = None,
    classifier: str | None = None,
    undefined: str | float = "neutral",
    *,
    average: str | None = None,
    **metric_params: Any,
) -> _ComparisonScorer:
    """Make a scorer that reports one number of a comparator's comparison.

    The scorer calls ``comparator.compare(X, y, metric=metric,
    average=average)`` on the test fold and returns the chosen output for
    one class (or average) and classifier, so it
    can be passed to :func:`sklearn.model_selection.cross_validate` or
    :class:`~sklearn.model_selection.GridSearchCV` (alone or in a
    ``scoring`` dict) with a :class:`PairedPrecisionComparator`, or a
    :class:`~sklearn.pipeline.Pipeline` that ends in one (its earlier steps
    transform the test fold first).

    scikit-learn maximises scores, so every output is oriented so that
    larger means more in favour of the compared classifier or more evidence
    of a difference:

    - ``"pvalue"`` is returned **negated** (``-p``), like scikit-learn's
      ``neg_*`` scorers (``greater_is_better=False``): grid search then
      picks the smallest p-value. Multiply by -1 to read p-values off
      ``cross_validate``'s ``test_*`` arrays.
    - ``"statistic"`` is returned as is: the chi-square statistics of GS,
      WGS and Wald grow with the evidence of a difference, and the ratio's z
      value ``log(ratio) / se`` grows with the compared classifier's
      advantage.
    - ``"ratio"`` (classifier / reference) and ``"diff"`` (classifier minus
      reference) are returned as is: larger favours the compared
      classifier.

    So ``"ratio"``, ``"diff"`` and the ratio test's ``"statistic"`` select
    the candidate that beats the reference by most, while ``"pvalue"`` and
    the chi-square statistics select the candidate that differs most from
    the reference, in either direction: use them to screen, not to pick
    the better model.

    A fold whose comparison is undefined (the compared classifier or the
    reference never predicts the class in that test fold, the class seen in
    fit does not occur in the fold at all, a zero variance, ...) has no
    value. :class:`~sklearn.model_selection.GridSearchCV` would
    rank a candidate with one NaN fold last whatever its other folds, so by
    default (``undefined="neutral"``) such a fold scores the value of no
    difference: ``-1`` for ``"pvalue"`` (p = 1), ``0`` for ``"statistic"``
    and ``"diff"``, ``1`` for ``"ratio"``. The fold then counts as no
    evidence either way, the mean over folds stays defined, and the
    candidates are ranked on it. One :class:`UndefinedStatisticWarning`
    still says why the fold is undefined. Pass a number to score such folds
    with it (e.g. ``-1.0`` with ``output="diff"`` to count them as the worst
    possible fold), or ``np.nan`` to keep them NaN.

    The threshold-free measures (``"average_precision"``,
    ``"precision_at_recall"``, ``"recall_at_precision"``, ``"roc_auc"``)
    call ``comparator.compare_scores`` instead; their ``"pvalue"`` is that
    of the paired bootstrap (DeLong's test for ROC AUC), their
    ``"statistic"`` ``diff / diff_se``; `label` may be omitted for a binary
    problem. Parameters such as ``recall=0.9``, ``n_resamples`` and
    ``random_state`` go in `metric_params`.

    The measures of :func:`compare_metric` (F1, MCC, kappa, ..., and the
    five GEE measures with an `average`) are compared by the delta method:
    their ``"pvalue"`` is that of its Wald test (``test="wald"``), their
    ``"statistic"`` the z value ``diff / diff_se``, and they have no
    ``"ratio"``.

    Parameters
    ----------
    test : {"gs", "wgs", "wald", "ratio"}, default=None
        The test whose p-value or statistic is reported: generalized score,
        weighted generalized score, empirical Wald, or the ratio of the
        measure (relative precision for precision; its statistic is the z
        value ``log(ratio) / se``). None means ``"gs"``, and ``"wald"``
        (the only one) for the measures of :func:`compare_metric`.
    output : {"pvalue", "statistic", "ratio", "diff"}, default="pvalue"
        What is reported; ``"ratio"`` and ``"diff"`` do not depend on
        `test`.
    metric : str, default="precision"
        The measure compared: ``"precision"``, ``"npv"``, ``"recall"``,
        ``"specificity"``, ``"accuracy"`` (the GEE comparison), or another
        measure of :func:`compare_metric`: ``"f1"``, ``"fbeta"``,
        ``"jaccard"``, ``"informedness"``, ``"markedness"``, ``"mcc"``,
        ``"cohen_kappa"``, ``"balanced_accuracy"``; or a threshold-free
        measure of the classifiers' scores: ``"average_precision"``,
        ``"precision_at_recall"``, ``"recall_at_precision"``,
        ``"roc_auc"``.
    label : hashable, default=None
        The class whose comparison is reported. Required for the per-class
        measures with `average` None; an error for accuracy, MCC, kappa
        and balanced accuracy (one number per classifier) and with an
        `average`.
    classifier : str, default=None
        The compared classifier; may be omitted when the comparator has one
        besides the reference.
    undefined : "neutral" or float, default="neutral"
        The score of a fold whose comparison is undefined (NaN):
        ``"neutral"`` for the value of no difference (see above), or a
        number.
    average : {"binary", "micro", "macro", "weighted"}, default=None
        As in :func:`compare_metric`; one row per class when None.
    **metric_params : dict
        ``beta`` (``"fbeta"``), ``weights`` (``"cohen_kappa"``),
        ``pos_label`` (``average="binary"``); ``recall``, ``precision``,
        ``method``, ``n_resamples``, ``random_state`` for the
        threshold-free measures.

    Returns
    -------
    scorer : callable
        ``scorer(comparator, X, y) -> float``.

    Raises
    ------
    ValueError
        When `test`, `output` or `metric` is not one of the options, or
        `label` is missing (or given for accuracy): at once, not as NaN
        scores inside a grid search.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.model_selection import StratifiedKFold, cross_validate
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from sklearn_precision_stats import (
    ...     PairedPrecisionComparator, make_comparison_scorer)
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> comparator = PairedPrecisionComparator(
    ...     {"tree": DecisionTreeClassifier(random_state=0), "nb": GaussianNB()})
    >>> scores = cross_validate(comparator, X, y, cv=StratifiedKFold(3), scoring={
    ...     "neg_p": make_comparison_scorer("gs", "pvalue", label=1),
    ...     "ratio": make_comparison_scorer(output="ratio", label=1),
    ...     "acc_diff": make_comparison_scorer(output="diff", metric="accuracy")})
    >>> sorted(k for k in scores if k.startswith("test_"))
    ['test_acc_diff', 'test_neg_p', 'test_ratio']
    >>> bool((scores["test_neg_p"] <= 0).all())
    True
    """
    if metric not in MEASURES + SCORE_METRICS:
        raise ValueError(f"metric must be one of {list(MEASURES + SCORE_METRICS)}, got {metric!r}.")
    if average is not None and average not in AVERAGES:
        raise ValueError(f"average must be one of {list(AVERAGES)} or None, got {average!r}.")
    if not isinstance(label, Hashable):
        raise ValueError(
            f"label must be one class label (e.g. 1 or 'spam'), got a "
            f"{type(label).__name__}; a scorer scores one class: make one scorer per "
            "class, in a scoring dict."
        )
    # At once, not in every split of a grid search; a parameter a GEE measure
    # does not take would otherwise turn it into compare_metric's.
    _check_metric_params(metric, average, metric_params)
    if metric == "fbeta" and "beta" not in metric_params:
        raise ValueError("metric='fbeta' needs beta, e.g. make_comparison_scorer(..., beta=2).")
    gee = _is_gee(metric, average, metric_params)
    if output not in _OUTPUTS:
        raise ValueError(f"output must be one of {list(_OUTPUTS)}, got {output!r}.")
    if gee:
        test = "gs" if test is None else test
        if test not in _TESTS:
            raise ValueError(f"test must be one of {list(_TESTS)}, got {test!r}.")
    elif metric in SCORE_METRICS:
        if test is not None:
            raise ValueError(
                f"test={test!r} is a test of the GEE comparison; {metric!r} is compared "
                "by the paired bootstrap (DeLong's test for roc_auc by default): pass "
                "test=None."
            )
        if output == "ratio":
            raise ValueError(
                f"output='ratio' is not available for {metric!r}; pass output='diff', "
                "'pvalue' or 'statistic'."
            )
    else:
        if test not in (None, "wald"):
            raise ValueError(
                f"test={test!r} is a test of the GEE comparison of precision, NPV, "
                f"recall, specificity and accuracy; {metric!r}"
                f"{'' if average is None else f' with average={average!r}'} is "
                "compared by the delta method's Wald test: pass test='wald' or None."
            )
        test = "wald"
        if output == "ratio":
            raise ValueError(
                f"output='ratio' is not available for {metric!r}: compare_metric "
                "reports differences; pass output='diff', 'pvalue' or 'statistic'."
            )
    pooled = metric in WHOLE_MATRIX or average is not None
    if metric in SCORE_METRICS:
        pass  # a binary problem has one row, so label may be None (checked per split)
    elif pooled:
        if label is not None:
            what = (
                f"average={average!r} gives one row"
                if average is not None
                else f"{metric} pools the classes into one number per classifier"
            )
            raise ValueError(
                f"label={label!r} was given, but {what}; pass label=None, or "
                "average=None for the per-class comparison."
            )
    elif label is None:
        raise ValueError(
            f"label is needed: the comparison of {metric} is per class; make the "
            f"scorer with make_comparison_scorer(..., metric={metric!r}, "
            "label=<class>), e.g. label=1 for the positive class of a binary "
            "problem, or pass an average (e.g. average='macro')."
        )
    if isinstance(undefined, str):
        if undefined != "neutral":
            raise ValueError(f"undefined must be 'neutral' or a number, got {undefined!r}.")
        value = _NEUTRAL[output]
    elif isinstance(undefined, (int, float, np.integer, np.floating)) and not isinstance(
        undefined, bool
    ):
        value = float(undefined)
    else:
        raise ValueError(
            f"undefined must be 'neutral' or a number (e.g. -1.0 or np.nan), got "
            f"{type(undefined).__name__}."
        )
    # The threshold-free measures have no test to choose: "" in the repr.
    return _ComparisonScorer(
        test or "", output, metric, label, classifier, value, average, metric_params
    )
