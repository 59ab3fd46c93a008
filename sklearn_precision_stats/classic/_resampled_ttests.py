"""Paired t, F and signed-rank tests on scores from repeated train/test splits.

Two families live here:

* tests that refit two estimators on the same splits, taking
  ``(estimator_a, estimator_b, X, y)`` like
  :func:`sklearn.model_selection.cross_validate`: the 5x2cv paired t test
  (Dietterich 1998), the 5x2cv combined F test (Alpaydin 1999), and the
  k-fold and resampled paired t tests;
* tests on scores already computed split by split: the corrected resampled
  t test (Nadeau and Bengio 2003), the corrected repeated k-fold t test
  (Bouckaert and Frank 2004), the corrected repeated-measures ANOVA for
  three or more models, and the Wilcoxon signed-rank test.

Scores follow scikit-learn's convention that higher is better, and every
difference is ``score_a - score_b``.
"""

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.base import is_classifier
from sklearn.metrics import check_scoring
from sklearn.model_selection import (
    RepeatedKFold,
    RepeatedStratifiedKFold,
    ShuffleSplit,
    StratifiedShuffleSplit,
    check_cv,
    cross_validate,
)
from sklearn.utils import indexable
from sklearn.utils.multiclass import type_of_target

from .._typing import ArrayLike
from ..results._base import copied_on_access
from ..utils._random_state import _sklearn_random_state
from ..utils._validation import _check_aligned_indexes, _check_integer
from ._common import (
    IntervalResult,
    TestResult,
    _check_alternative,
    _posthoc_pairs,
    _pvalue,
    _score_array,
    _warn_undefined,
)

__all__ = [
    "FTestResult",
    "RMAnovaResult",
    "TTestResult",
    "WilcoxonResult",
    "combined_ftest_5x2cv",
    "corrected_repeated_kfold_ttest",
    "corrected_resampled_ttest",
    "corrected_rm_anova",
    "paired_ttest_5x2cv",
    "paired_ttest_kfold_cv",
    "paired_ttest_resampled",
    "wilcoxon",
]


# ---------------------------------------------------------------- results


# A scorer name, a scorer callable ``scorer(estimator, X, y)``, or None for
# the estimator's default score.
Scoring = str | Callable[..., float] | None


@dataclass(frozen=True, repr=False)
class TTestResult(IntervalResult):
    """Result of the paired t tests.

    Attributes
    ----------
    statistic : float
        The t statistic.
    pvalue : float
        p-value from Student's t distribution with ``df`` degrees of freedom.
    df : int
        Degrees of freedom.
    difference : float
        The estimate of ``score_a - score_b`` in the numerator: the mean
        difference over splits, or for the 5x2cv test the difference on the
        first fold of the first replication (Dietterich 1998).
    standard_error : float
        The denominator of the t statistic; ``confidence_interval()`` is
        ``difference -/+ t * standard_error``.
    alternative : str
        The alternative hypothesis.
    method : str
        Which test was run.
    """

    statistic: float
    pvalue: float
    df: int
    difference: float
    standard_error: float
    alternative: str
    method: str

    def _interval_inputs(self):
        return self.difference, self.standard_error, self.alternative, stats.t(self.df)


@dataclass(frozen=True, repr=False)
class FTestResult(TestResult):
    """Result of :func:`combined_ftest_5x2cv`.

    Attributes
    ----------
    statistic : float
        The F statistic.
    pvalue : float
        Upper-tail p-value of the F distribution.
    df : tuple of int
        Numerator and denominator degrees of freedom.
    method : str
        Which test was run.
    """

    statistic: float
    pvalue: float
    df: tuple
    method: str


@copied_on_access(posthoc="The pairwise tests, or None (a new DataFrame on each access).")
@dataclass(frozen=True, repr=False)
class RMAnovaResult(TestResult):
    """Result of :func:`corrected_rm_anova`.

    Attributes
    ----------
    statistic : float
        The corrected F statistic, ``F / (1 + n_iter * n_test / n_train)``.
    pvalue : float
        Upper-tail p-value of the corrected F statistic.
    df : tuple of int
        ``(n_models - 1, (n_models - 1) * (n_iter - 1))``.
    uncorrected_statistic : float
        The usual repeated-measures ANOVA F statistic.
    uncorrected_pvalue : float
        Its p-value, which ignores the overlap between training sets.
    posthoc : pandas.DataFrame or None
        With ``posthoc``, one row per pair of models: ``model_a, model_b,
        difference`` (mean of ``a - b``), ``statistic, pvalue`` of the
        pairwise test and ``pvalue_holm``, Holm-adjusted over the pairs; a
        new DataFrame on each access.
    """

    statistic: float
    pvalue: float
    df: tuple
    uncorrected_statistic: float
    uncorrected_pvalue: float
    posthoc: pd.DataFrame | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, repr=False)
class WilcoxonResult(TestResult):
    """Result of :func:`wilcoxon`.

    Attributes
    ----------
    statistic : float
        The statistic of :func:`scipy.stats.wilcoxon` (the smaller rank sum
        for a two-sided test, the sum of the positive ranks otherwise).
    pvalue : float
        p-value from :func:`scipy.stats.wilcoxon`.
    median_difference : float
        Median of ``scores_a - scores_b``.
    n_iter : int
        Number of paired scores.
    alternative : str
        The alternative hypothesis.
    """

    statistic: float
    pvalue: float
    median_difference: float
    n_iter: int
    alternative: str


# ------------------------------------------------------ input validation


def _check_paired_scores(scores_a: Any, scores_b: Any) -> tuple[np.ndarray, np.ndarray]:
    _check_aligned_indexes(scores_a=scores_a, scores_b=scores_b)
    scores_a = _score_array(scores_a, "scores_a")
    scores_b = _score_array(scores_b, "scores_b")
    if scores_a.shape[0] != scores_b.shape[0]:
        raise ValueError(
            f"scores_a and scores_b have inconsistent numbers of samples "
            f"({scores_a.shape[0]} and {scores_b.shape[0]}); pass one score per "
            "split for each model, on the same splits."
        )
    if scores_a.shape[0] < 2:
        raise ValueError(
            f"at least two paired scores are needed, got {scores_a.shape[0]}; "
            "pass one score per split for each model."
        )
    return scores_a, scores_b


def _check_positive(value, name):
    if (
        not isinstance(value, (numbers.Real, np.floating, np.integer))
        or isinstance(value, bool)
        or not value > 0
        or not math.isfinite(value)
    ):
        raise ValueError(f"{name} must be a positive number of records, got {value!r}.")
    return float(value)


def _check_scoring(estimator, scoring):
    if not (scoring is None or isinstance(scoring, str) or callable(scoring)):
        raise ValueError(
            "scoring must be None, a metric name such as 'accuracy' or a "
            f"scorer callable, got {type(scoring).__name__}; these tests "
            "compare one metric at a time."
        )
    return check_scoring(estimator, scoring=scoring)


# ------------------------------------------------------- test statistics


# Differences whose spread is within a few rounding errors of the scores
# themselves do not vary: the threshold is relative to the scores' own
# magnitude, so rescaling the scores never changes the verdict.
_ROUNDING = 64 * np.finfo(np.float64).eps


def _no_variation(spread, scale):
    return not spread > _ROUNDING * scale


def _rescaled(*scores: np.ndarray) -> tuple[list[np.ndarray], float, int]:
    """The scores divided by the power of two ``2**exponent`` that brings the largest to [1, 2).

    The t and F statistics are ratios that a common rescaling of the scores
    leaves unchanged, but their squares and sums overflow for scores near
    1e300 and underflow near 1e-300. Dividing by a power of two is exact,
    so the statistics equal, bit for bit, those of the unscaled scores
    wherever those do not overflow or underflow. Returns the rescaled
    arrays, the largest rescaled magnitude and ``exponent``; estimates in
    score units are ``np.ldexp(value, exponent)``.
    """
    largest = max(float(np.max(np.abs(s))) for s in scores)
    exponent = int(np.frexp(largest)[1]) - 1
    rescaled = [np.ldexp(s, -exponent) for s in scores]
    return rescaled, float(np.ldexp(largest, -exponent)), exponent


def _in_score_units(value, exponent):
    """``value * 2**exponent``: infinite when the true value exceeds the float range."""
    with np.errstate(over="ignore"):
        return float(np.ldexp(value, exponent))


def _t_test(
    difference,
    standard_error,
    spread,
    scale,
    exponent,
    df,
    *,
    alternative,
    method,
    reason,
    stacklevel,
    warn=True,
):
    """The t test of ``difference / standard_error`` with ``df`` degrees of freedom.

    Every t test of this module ends here, with the scores rescaled by
    :func:`_rescaled`: ``difference``, ``standard_error``, ``spread`` (the
    spread of the score differences behind ``standard_error``) and
    ``scale`` (the largest absolute score) are in units of
    ``2**exponent``. When the differences do not vary beyond rounding, the
    statistic is NaN with an ``UndefinedStatisticWarning`` giving
    ``reason``, which points ``stacklevel`` frames above the caller (1: the
    caller's caller).
    """
    if _no_variation(spread, scale):
        if warn:
            # Beyond the caller's count: this function's frame and _warn_undefined's.
            _warn_undefined(f"The {method} test", reason, stacklevel=stacklevel + 3)
        statistic = pvalue = standard_error = math.nan
    else:
        statistic = difference / standard_error
        pvalue = _pvalue(statistic, alternative, stats.t(df))
    return TTestResult(
        statistic=float(statistic),
        pvalue=float(pvalue),
        df=df,
        difference=_in_score_units(difference, exponent),
        standard_error=_in_score_units(standard_error, exponent),
        alternative=alternative,
        method=method,
    )


def _paired_t(scores_a, scores_b, ratio, alternative, method, stacklevel, warn=True, reason=None):
    """t test of mean(scores_a - scores_b) = 0 with variance factor 1/J + ratio.

    ``ratio = 0`` is the ordinary paired t test; ``ratio = n_test / n_train``
    is Nadeau and Bengio's correction for overlapping training sets.
    Warnings point ``stacklevel`` frames above the caller; none with
    ``warn=False`` (the caller says it). ``reason``: why the test is
    undefined, if it is, when not because the differences do not vary.
    """
    (scores_a, scores_b), scale, exponent = _rescaled(scores_a, scores_b)
    differences = scores_a - scores_b
    n_iter = differences.shape[0]
    variance = float(differences.var(ddof=1))
    return _t_test(
        float(differences.mean()),
        math.sqrt(variance * (1.0 / n_iter + ratio)),
        math.sqrt(variance),
        scale,
        exponent,
        n_iter - 1,
        alternative=alternative,
        method=method,
        reason=reason or _CONSTANT_DIFFERENCES,
        stacklevel=stacklevel + 1,
        warn=warn,
    )


_CONSTANT_DIFFERENCES = "the score differences do not vary across splits"
_CORRECTED_RESAMPLED = "corrected resampled paired t"

# Why the 5x2cv statistics are undefined: their variance estimate pools the
# spread of the two fold differences within each replication.
_FIVE_BY_TWO_CONSTANT = "the score differences are identical within every replication"


def _missing_scores(scores_a, scores_b):
    """Why refitted scores leave a test undefined (None when every score is finite).

    A scorer may return NaN, e.g. a metric undefined on a test fold without
    positive rows; the test is then NaN, and the warning names the splits.
    """
    bad = np.flatnonzero(~(np.isfinite(scores_a) & np.isfinite(scores_b)))
    if bad.size == 0:
        return None
    listed = ", ".join(str(i) for i in bad[:5].tolist()) + (", ..." if bad.size > 5 else "")
    return (
        f"the scorer returned NaN or infinity on split{'s' if bad.size > 1 else ''} "
        f"{listed} (counted from 0), e.g. a metric undefined on a test fold"
    )


def _five_by_two_differences(differences):
    """Reshape the 10 fold differences to (5 replications, 2 folds), with their spreads."""
    p = differences.reshape(5, 2)
    s2 = ((p - p.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
    return p, s2


# ---------------------------------------------------------- refitting


def _default_cv(stratified_splitter, splitter, random_state, **params):
    """The ``default_cv`` of ``_refit_scores``: a splitter seeded by ``random_state``.

    ``random_state`` is checked here, at once, even when ``cv`` is given.
    """
    random_state = _sklearn_random_state(random_state)

    def default_cv(stratified):
        chosen = stratified_splitter if stratified else splitter
        return chosen(**params, random_state=random_state)

    return default_cv


def _refit_scores(
    estimator_a,
    estimator_b,
    X,
    y,
    *,
    cv,
    groups,
    scoring,
    n_jobs,
    default_cv=None,
    n_expected=None,
):
    """Refit both estimators on exactly the same splits and score them.

    When ``cv`` is None, ``default_cv(stratified)`` builds the splitter,
    stratified for classifiers on class labels as ``check_cv`` does. The
    splits are listed once so that both estimators get the same ones even
    when the splitter holds a RandomState instance.

    Returns
    -------
    scores_a, scores_b : ndarray of shape (n_splits,)
    n_train, n_test : float
        Mean training and test set sizes.
    """
    _check_aligned_indexes(X=X, y=y, groups=groups)
    X, y, groups = indexable(X, y, groups)
    classifier = is_classifier(estimator_a)
    if cv is None:
        cv = default_cv(classifier and type_of_target(y) in ("binary", "multiclass"))
    else:
        cv = check_cv(cv, y, classifier=classifier)
    splits = list(cv.split(X, y, groups))
    if n_expected is not None and len(splits) != n_expected:
        raise ValueError(
            f"cv must yield exactly {n_expected} train/test splits, got "
            f"{len(splits)}; for 5x2cv use e.g. RepeatedStratifiedKFold("
            "n_splits=2, n_repeats=5)."
        )
    if len(splits) < 2:
        # The t tests estimate the variance of the score differences across splits.
        raise ValueError(
            f"cv must yield at least two train/test splits, got {len(splits)}; "
            "e.g. cv=10 or ShuffleSplit(n_splits=30, test_size=0.3)."
        )
    scorer = _check_scoring(estimator_a, scoring)
    scores_a, scores_b = (
        cross_validate(
            estimator,
            X,
            y,
            scoring=scorer,
            cv=splits,
            n_jobs=n_jobs,
            error_score="raise",
        )["test_score"]
        for estimator in (estimator_a, estimator_b)
    )
    n_train = float(np.mean([len(train) for train, _ in splits]))
    n_test = float(np.mean([len(test) for _, test in splits]))
    return scores_a, scores_b, n_train, n_test


def _five_by_two(estimator_a, estimator_b, X, y, scoring, cv, random_state, groups, n_jobs):
    """Fold differences ``p`` (5, 2), per-replication variances ``s2``, score scale.

    All in units of ``2**exponent`` (see :func:`_rescaled`), returned after
    them, and last the reason the tests are undefined (see
    :func:`_missing_scores`) or :data:`_FIVE_BY_TWO_CONSTANT`.
    """
    default_cv = _default_cv(
        RepeatedStratifiedKFold, RepeatedKFold, random_state, n_splits=2, n_repeats=5
    )

    scores_a, scores_b, _, _ = _refit_scores(
        estimator_a,
        estimator_b,
        X,
        y,
        cv=cv,
        groups=groups,
        scoring=scoring,
        n_jobs=n_jobs,
        default_cv=default_cv,
        n_expected=10,
    )
    reason = _missing_scores(scores_a, scores_b) or _FIVE_BY_TWO_CONSTANT
    (scores_a, scores_b), scale, exponent = _rescaled(scores_a, scores_b)
    return (*_five_by_two_differences(scores_a - scores_b), scale, exponent, reason)


def _refit_paired_t(estimator_a, estimator_b, X, y, *, corrected, alternative, name, **kwargs):
    """Paired t test over refitted splits, Nadeau-Bengio corrected if asked.

    Called by the public functions directly: warnings point at their caller.
    """
    _check_alternative(alternative)
    if not isinstance(corrected, (bool, np.bool_)):
        raise ValueError(f"corrected must be True or False, got {corrected!r}.")
    scores_a, scores_b, n_train, n_test = _refit_scores(estimator_a, estimator_b, X, y, **kwargs)
    ratio = n_test / n_train if corrected else 0.0
    method = f"corrected {name}" if corrected else name
    reason = _missing_scores(scores_a, scores_b)
    return _paired_t(scores_a, scores_b, ratio, alternative, method, stacklevel=2, reason=reason)


# Parameter descriptions shared by the docstrings below.
_DOC_PARAMS = {
    "estimator_params": """\
estimator_a, estimator_b : estimator objects
        The two models to compare, unfitted; clones are fitted on every
        training set.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The data.
    y : array-like of shape (n_samples,)
        The target.
    scoring : str or callable, default=None
        A single metric name or scorer, as accepted by
        :func:`sklearn.metrics.check_scoring`; None uses the estimator's
        ``score`` method (accuracy for classifiers, R^2 for regressors).
        Higher must be better.""",
    "random_state": """\
random_state : int, Generator, RandomState instance or None, default=None
        Seeds the default splitter; ignored when ``cv`` is given (but still
        checked). A ``Generator`` gives the splitter an int seed drawn from
        it; any other value than these is a ValueError.""",
    "groups": """\
groups : array-like of shape (n_samples,), default=None
        Group labels passed to ``cv.split`` for group-aware splitters.""",
    "alternative": """\
alternative : {"two-sided", "less", "greater"}, default="two-sided"
        ``"greater"``: model a scores higher than model b.""",
    "n_jobs": """\
n_jobs : int, default=None
        Number of jobs to run in parallel for the fits, as in
        :func:`~sklearn.model_selection.cross_validate`.""",
    "ttest_returns": """\
result : TTestResult
        ``statistic``, ``pvalue``, ``df``, mean ``difference``,
        ``standard_error`` and ``confidence_interval()``.""",
}


def paired_ttest_5x2cv(
    estimator_a: Any,
    estimator_b: Any,
    X: ArrayLike,
    y: ArrayLike,
    *,
    scoring: Scoring = None,
    cv: Any = None,
    random_state: int | np.random.RandomState | None = None,
    groups: ArrayLike | None = None,
    alternative: str = "two-sided",
    n_jobs: int | None = None,
) -> TTestResult:
    """Dietterich's 5x2cv paired t test.

    Five replications of 2-fold cross-validation; in replication ``i`` the
    score differences ``p_i1, p_i2`` of the two folds give the variance
    estimate ``s_i^2 = (p_i1 - pbar_i)^2 + (p_i2 - pbar_i)^2``, and
    ``t = p_11 / sqrt(sum_i s_i^2 / 5)`` has a t distribution with 5 df.

    Parameters
    ----------
    {estimator_params}
    cv : cross-validation generator or iterable, default=None
        None: ``RepeatedStratifiedKFold(n_splits=2, n_repeats=5,
        random_state=random_state)`` for classifiers,
        ``RepeatedKFold`` otherwise. Otherwise a splitter or iterable that
        yields exactly 10 (train, test) splits, replication by replication,
        the two folds of a replication being consecutive.
    {random_state}
    {groups}
    {alternative}
    {n_jobs}

    Returns
    -------
    result : TTestResult
        ``statistic``, ``pvalue``, ``df=5``, ``difference`` (``p_11``),
        ``standard_error`` and ``confidence_interval()``.

    Notes
    -----
    Dietterich (1998) found this test's type I error acceptable where the
    resampled and k-fold t tests are far too liberal; the combined F test
    (:func:`combined_ftest_5x2cv`) uses all ten differences and is more
    stable. If every difference is the same the statistic is NaN, with an
    :class:`~sklearn_precision_stats.exceptions.UndefinedStatisticWarning`.

    References
    ----------
    Dietterich, T. G. (1998). Approximate statistical tests for comparing
    supervised classification learning algorithms. Neural Computation 10,
    1895-1923.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_precision_stats import paired_ttest_5x2cv
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> lr = make_pipeline(StandardScaler(), LogisticRegression())
    >>> res = paired_ttest_5x2cv(lr, GaussianNB(), X, y, random_state=0)
    >>> res.df
    5
    >>> bool(res.difference > 0)
    True
    """
    _check_alternative(alternative)
    p, s2, scale, exponent, reason = _five_by_two(
        estimator_a, estimator_b, X, y, scoring, cv, random_state, groups, n_jobs
    )
    standard_error = math.sqrt(s2.sum() / 5.0)
    return _t_test(
        float(p[0, 0]),
        standard_error,
        standard_error,
        scale,
        exponent,
        5,
        alternative=alternative,
        method="5x2cv paired t",
        reason=reason,
        stacklevel=1,
    )


def combined_ftest_5x2cv(
    estimator_a: Any,
    estimator_b: Any,
    X: ArrayLike,
    y: ArrayLike,
    *,
    scoring: Scoring = None,
    cv: Any = None,
    random_state: int | np.random.RandomState | None = None,
    groups: ArrayLike | None = None,
    n_jobs: int | None = None,
) -> FTestResult:
    """Alpaydin's 5x2cv combined F test.

    With the ten score differences ``p_ij`` of five replications of 2-fold
    cross-validation and ``s_i^2`` as in :func:`paired_ttest_5x2cv`,
    ``F = sum_ij p_ij^2 / (2 * sum_i s_i^2)`` has approximately an F
    distribution with 10 and 5 degrees of freedom.

    Parameters
    ----------
    {estimator_params}
    cv : cross-validation generator or iterable, default=None
        As in :func:`paired_ttest_5x2cv`: exactly 10 splits, the two folds
        of each replication consecutive.
    {random_state}
    {groups}
    {n_jobs}

    Returns
    -------
    result : FTestResult
        ``statistic``, ``pvalue`` and ``df=(10, 5)``. The test is two-sided
        by construction: it does not say which model is better.

    Notes
    -----
    Combining all ten differences instead of the first one makes the
    result less dependent on the order of the folds, with lower type I
    error and higher power than the 5x2cv t test (Alpaydin 1999).

    References
    ----------
    Alpaydin, E. (1999). Combined 5x2 cv F test for comparing supervised
    classification learning algorithms. Neural Computation 11, 1885-1892.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from sklearn_precision_stats import combined_ftest_5x2cv
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> tree = DecisionTreeClassifier(max_depth=3, random_state=0)
    >>> res = combined_ftest_5x2cv(tree, GaussianNB(), X, y, random_state=0)
    >>> res.df
    (10, 5)
    >>> 0 <= res.pvalue <= 1
    True
    """
    p, s2, scale, _, reason = _five_by_two(
        estimator_a, estimator_b, X, y, scoring, cv, random_state, groups, n_jobs
    )
    denominator = 2.0 * s2.sum()
    if _no_variation(math.sqrt(s2.sum() / 5.0), scale):
        _warn_undefined("The 5x2cv combined F test", reason)
        statistic = pvalue = math.nan
    else:
        statistic = float((p**2).sum() / denominator)
        pvalue = float(stats.f.sf(statistic, 10, 5))
    return FTestResult(statistic, pvalue, (10, 5), "5x2cv combined F")


def paired_ttest_kfold_cv(
    estimator_a: Any,
    estimator_b: Any,
    X: ArrayLike,
    y: ArrayLike,
    *,
    cv: Any = 10,
    scoring: Scoring = None,
    groups: ArrayLike | None = None,
    corrected: bool = False,
    alternative: str = "two-sided",
    n_jobs: int | None = None,
) -> TTestResult:
    """Paired t test over the folds of a cross-validation.

    Both models are refitted on the same training folds, and
    ``t = mean(d) / sqrt(var(d) / J)`` over the ``J`` fold differences
    ``d = score_a - score_b``, with ``J - 1`` degrees of freedom.

    Parameters
    ----------
    {estimator_params}
    cv : int, cross-validation generator or iterable, default=10
        As in :func:`~sklearn.model_selection.cross_validate`: an int gives
        (Stratified)KFold. Pass ``RepeatedStratifiedKFold(n_splits=10,
        n_repeats=10)`` with ``corrected=True`` for Bouckaert and Frank's
        corrected repeated k-fold test.
    {groups}
    corrected : bool, default=False
        Apply Nadeau and Bengio's correction, the variance factor
        ``1/J + n_test/n_train`` with the mean fold sizes. Strongly
        recommended whenever the training sets overlap, which they always
        do in k-fold cross-validation with ``k > 2``.
    {alternative}
    {n_jobs}

    Returns
    -------
    {ttest_returns}

    Notes
    -----
    The uncorrected test treats the fold scores as independent; they are
    not (the training sets share most of their records), so its type I
    error exceeds the nominal level (Dietterich 1998). It is provided
    because it is widely used, and matches ``mlxtend``'s
    ``paired_ttest_kfold_cv`` on the same folds.

    References
    ----------
    Dietterich, T. G. (1998). Approximate statistical tests for comparing
    supervised classification learning algorithms. Neural Computation 10,
    1895-1923.

    Nadeau, C. and Bengio, Y. (2003). Inference for the generalization
    error. Machine Learning 52, 239-281.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.model_selection import RepeatedStratifiedKFold
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from sklearn_precision_stats import paired_ttest_kfold_cv
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> tree = DecisionTreeClassifier(max_depth=3, random_state=0)
    >>> cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=4, random_state=0)
    >>> res = paired_ttest_kfold_cv(tree, GaussianNB(), X, y, cv=cv,
    ...                             corrected=True)
    >>> res.df, res.method
    (19, 'corrected k-fold paired t')
    """
    return _refit_paired_t(
        estimator_a,
        estimator_b,
        X,
        y,
        corrected=corrected,
        alternative=alternative,
        name="k-fold paired t",
        cv=cv,
        groups=groups,
        scoring=scoring,
        n_jobs=n_jobs,
    )


def paired_ttest_resampled(
    estimator_a: Any,
    estimator_b: Any,
    X: ArrayLike,
    y: ArrayLike,
    *,
    cv: Any = None,
    scoring: Scoring = None,
    random_state: int | np.random.RandomState | None = None,
    groups: ArrayLike | None = None,
    corrected: bool = False,
    alternative: str = "two-sided",
    n_jobs: int | None = None,
) -> TTestResult:
    """Resampled paired t test (k-hold-out), optionally Nadeau-Bengio corrected.

    Both models are refitted on each of ``J`` random training sets and
    scored on the matching test sets; ``t = mean(d) / sqrt(var(d) / J)``
    with ``J - 1`` degrees of freedom, or with ``corrected=True`` the
    corrected resampled t test, ``mean(d) / sqrt(var(d) (1/J + n_test /
    n_train))``.

    Parameters
    ----------
    {estimator_params}
    cv : cross-validation generator or iterable, default=None
        None: 30 random splits with 30% test rows,
        ``StratifiedShuffleSplit(n_splits=30, test_size=0.3,
        random_state=random_state)`` for classifiers, ``ShuffleSplit``
        otherwise. A common choice is 100 random splits,
        ``ShuffleSplit(n_splits=100, test_size=0.1)``, with
        ``corrected=True``.
    {random_state}
    {groups}
    corrected : bool, default=False
        Apply Nadeau and Bengio's correction with the mean split sizes.
    {alternative}
    {n_jobs}

    Returns
    -------
    {ttest_returns}

    Notes
    -----
    Without the correction the test is very liberal: random training sets
    overlap, the scores are positively correlated, and adding splits only
    shrinks the p-value (Dietterich 1998; Nadeau and Bengio 2003). The
    uncorrected version matches ``mlxtend``'s ``paired_ttest_resampled`` on
    the same splits. See also :func:`corrected_resampled_ttest` for scores
    you already have.

    References
    ----------
    Nadeau, C. and Bengio, Y. (2003). Inference for the generalization
    error. Machine Learning 52, 239-281.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.model_selection import ShuffleSplit
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from sklearn_precision_stats import paired_ttest_resampled
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> tree = DecisionTreeClassifier(max_depth=3, random_state=0)
    >>> cv = ShuffleSplit(n_splits=20, test_size=0.1, random_state=0)
    >>> plain = paired_ttest_resampled(tree, GaussianNB(), X, y, cv=cv)
    >>> fixed = paired_ttest_resampled(tree, GaussianNB(), X, y, cv=cv,
    ...                                corrected=True)
    >>> bool(fixed.pvalue > plain.pvalue)
    True
    """
    default_cv = _default_cv(
        StratifiedShuffleSplit, ShuffleSplit, random_state, n_splits=30, test_size=0.3
    )

    return _refit_paired_t(
        estimator_a,
        estimator_b,
        X,
        y,
        corrected=corrected,
        alternative=alternative,
        name="resampled paired t",
        cv=cv,
        groups=groups,
        scoring=scoring,
        n_jobs=n_jobs,
        default_cv=default_cv,
    )


# ---------------------------------------------------- tests on scores


def corrected_resampled_ttest(
    scores_a: ArrayLike,
    scores_b: ArrayLike,
    *,
    n_train: int,
    n_test: int,
    alternative: str = "two-sided",
) -> TTestResult:
    """Nadeau and Bengio's corrected resampled t test on per-split scores.

    For ``J`` paired scores from random train/test splits, with differences
    ``d = scores_a - scores_b``,
    ``t = mean(d) / sqrt(var(d) * (1/J + n_test/n_train))`` with ``J - 1``
    degrees of freedom. The extra ``n_test/n_train`` term accounts for the
    correlation between splits whose training sets overlap.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (n_iter,)
        Scores of the two models on the same splits (e.g. the
        ``test_score`` of :func:`~sklearn.model_selection.cross_validate`
        run with the same ``cv`` for both).
    n_train, n_test : float
        Number of training and test records per split (means if they vary).
    {alternative}

    Returns
    -------
    {ttest_returns}

    Notes
    -----
    The plain paired t test divides ``var(d)`` by ``J``, so its p-value can
    be made as small as one likes by adding splits: the variance of the
    mean difference does not shrink like ``1/J`` because the splits share
    records. Nadeau and Bengio's heuristic correction keeps the size near
    the nominal level; it still conditions on one data set of ``n_train +
    n_test`` records. If the differences do not vary, the statistic is NaN
    with an
    :class:`~sklearn_precision_stats.exceptions.UndefinedStatisticWarning`.

    References
    ----------
    Nadeau, C. and Bengio, Y. (2003). Inference for the generalization
    error. Machine Learning 52, 239-281.

    Bouckaert, R. R. and Frank, E. (2004). Evaluating the replicability of
    significance tests for comparing learning algorithms. PAKDD 2004,
    LNCS 3056, 3-12.

    Examples
    --------
    >>> from sklearn_precision_stats import corrected_resampled_ttest
    >>> a = [0.81, 0.84, 0.79, 0.83, 0.85, 0.80, 0.82, 0.84, 0.83, 0.81]
    >>> b = [0.79, 0.82, 0.80, 0.80, 0.82, 0.79, 0.80, 0.81, 0.82, 0.80]
    >>> res = corrected_resampled_ttest(a, b, n_train=900, n_test=100)
    >>> round(res.statistic, 3), res.df
    (2.956, 9)
    """
    _check_alternative(alternative)
    scores_a, scores_b = _check_paired_scores(scores_a, scores_b)
    ratio = _check_positive(n_test, "n_test") / _check_positive(n_train, "n_train")
    return _paired_t(scores_a, scores_b, ratio, alternative, _CORRECTED_RESAMPLED, stacklevel=1)


def corrected_repeated_kfold_ttest(
    scores_a: ArrayLike, scores_b: ArrayLike, *, n_splits: int, alternative: str = "two-sided"
) -> TTestResult:
    """Bouckaert and Frank's corrected repeated k-fold cross-validation t test.

    The corrected resampled t test applied to the ``r * k`` fold scores of
    ``r`` repetitions of ``k``-fold cross-validation: each training set has
    ``k - 1`` folds and each test set one, so ``n_test / n_train = 1 / (k -
    1)`` and ``t = mean(d) / sqrt(var(d) * (1/(k r) + 1/(k - 1)))`` with
    ``k r - 1`` degrees of freedom.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (n_repeats * n_splits,)
        Fold scores of the two models on the same folds, e.g. the
        ``test_score`` of :func:`~sklearn.model_selection.cross_validate`
        with ``cv=RepeatedStratifiedKFold(n_splits=10, n_repeats=10)``.
    n_splits : int
        Number of folds ``k`` per repetition, at least 2.
    {alternative}

    Returns
    -------
    {ttest_returns}

    Notes
    -----
    Bouckaert and Frank (2004) found 10 repetitions of 10-fold
    cross-validation with this correction both well calibrated and the most
    replicable of the tests they compared.

    References
    ----------
    Bouckaert, R. R. and Frank, E. (2004). Evaluating the replicability of
    significance tests for comparing learning algorithms. PAKDD 2004,
    LNCS 3056, 3-12.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_precision_stats import corrected_repeated_kfold_ttest
    >>> rng = np.random.default_rng(0)
    >>> a = 0.80 + 0.03 * rng.standard_normal(100)
    >>> b = a - 0.01 + 0.02 * rng.standard_normal(100)
    >>> res = corrected_repeated_kfold_ttest(a, b, n_splits=10)
    >>> res.df
    99
    """
    _check_alternative(alternative)
    scores_a, scores_b = _check_paired_scores(scores_a, scores_b)
    n_splits = _check_integer(n_splits, "n_splits", 2)
    if scores_a.shape[0] % n_splits:
        raise ValueError(
            f"the number of scores ({scores_a.shape[0]}) is not a multiple of "
            f"n_splits={n_splits}; pass all n_repeats * n_splits fold scores."
        )
    return _paired_t(
        scores_a,
        scores_b,
        1.0 / (n_splits - 1),
        alternative,
        "corrected repeated k-fold paired t",
        stacklevel=1,
    )


def corrected_rm_anova(
    scores: ArrayLike,
    *,
    n_train: int,
    n_test: int,
    posthoc: bool | Callable[..., Any] = False,
) -> RMAnovaResult:
    """Repeated-measures ANOVA of three or more models with Nadeau-Bengio's correction.

    ``scores[j, c]`` is the score of model ``c`` on split ``j``. The usual
    one-way repeated-measures F statistic (splits as subjects) is divided by
    ``1 + n_iter * n_test / n_train``, the square of the corrected t
    test's variance inflation:
    ``F_corrected = F / (1 + n_iter * n_test / n_train)``. Because
    ``F = t^2`` for two models, this carries Nadeau and Bengio's (2003)
    correction over to the F test; it is a heuristic extension, not a test
    derived in their paper.

    Parameters
    ----------
    scores : array-like of shape (n_iter, n_models)
        One row per split, one column per model (a DataFrame works).
    n_train, n_test : float
        Number of training and test records per split.
    posthoc : bool or callable, default=False
        True: also compare every pair of models with
        :func:`corrected_resampled_ttest` (same ``n_train`` and ``n_test``)
        and adjust the p-values with Holm's step-down procedure, so the
        ANOVA-then-pairwise procedure is one call. A callable
        ``posthoc(scores_a, scores_b)`` returning ``(statistic, pvalue)`` or
        a result that unpacks so (e.g. ``functools.partial(
        corrected_repeated_kfold_ttest, n_splits=10)``) replaces the
        pairwise test. The table is in ``result.posthoc``.

    Returns
    -------
    result : RMAnovaResult
        Corrected ``statistic`` and ``pvalue``, ``df = (n_models - 1,
        (n_models - 1) * (n_iter - 1))``, and the uncorrected F and
        p-value.

    Notes
    -----
    With two models, ``F`` is the square of the paired t statistic and the
    corrected F is the square of :func:`corrected_resampled_ttest`'s
    statistic. As with any omnibus test, follow a significant result with
    pairwise corrected t tests and a multiplicity adjustment. The
    correction does not address sphericity; the usual Greenhouse-Geisser
    adjustment can be applied to the degrees of freedom if needed. Zero
    error variance gives NaN, with an
    :class:`~sklearn_precision_stats.exceptions.UndefinedStatisticWarning`;
    the same warning names the pairs of ``posthoc=True`` whose score
    differences do not vary (NaN in the table).

    References
    ----------
    Nadeau, C. and Bengio, Y. (2003). Inference for the generalization
    error. Machine Learning 52, 239-281.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_precision_stats import corrected_rm_anova
    >>> rng = np.random.default_rng(0)
    >>> split_effect = 0.03 * rng.standard_normal((30, 1))
    >>> scores = 0.8 + np.array([0.0, 0.01, 0.02]) + split_effect
    >>> scores = scores + 0.01 * rng.standard_normal((30, 3))
    >>> res = corrected_rm_anova(scores, n_train=90, n_test=10)
    >>> res.df
    (2, 58)
    >>> bool(res.statistic < res.uncorrected_statistic)
    True
    >>> res = corrected_rm_anova(scores, n_train=90, n_test=10, posthoc=True)
    >>> list(res.posthoc.columns)
    ['model_a', 'model_b', 'difference', 'statistic', 'pvalue', 'pvalue_holm']
    """
    names = list(scores.columns) if hasattr(scores, "columns") else None
    raw = np.asarray(scores.to_numpy() if hasattr(scores, "to_numpy") else scores)
    if raw.ndim != 2:
        raise ValueError(
            f"scores must be 2-D, of shape (n_iter, n_models), got shape {raw.shape}; "
            "put one row per split and one column per model (e.g. np.column_stack of "
            "the models' scores)."
        )
    numbers_only = (
        f"scores must hold numbers (one score per split and model), got dtype {raw.dtype}"
    )
    if raw.dtype.kind in "USc":
        raise ValueError(f"{numbers_only}; pass the scores as floats.")
    if raw.dtype.kind == "O":
        # Object columns (a DataFrame of mixed dtypes) may still hold numbers;
        # missing ones (None, pd.NA) become NaN, reported below by position.
        try:
            raw = np.where(pd.isna(raw), np.nan, raw).astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{numbers_only} ({exc}); pass the scores as floats.") from exc
    # A copy: the caller's array is never changed.
    scores = np.array(raw, dtype=np.float64)
    n_iter, n_models = scores.shape
    if n_models < 2 or n_iter < 2:
        raise ValueError(
            f"scores must have shape (n_iter, n_models) with at least 2 splits "
            f"and 2 models, got {scores.shape}; put one model per column."
        )
    if not np.isfinite(scores).all():
        row, column = np.argwhere(~np.isfinite(scores))[0]
        raise ValueError(
            f"scores contains NaN or infinity (first at split {row}, model {column}); "
            "every split needs a finite score of every model. Drop those splits first."
        )
    ratio = _check_positive(n_test, "n_test") / _check_positive(n_train, "n_train")
    table = _rm_anova_posthoc(scores, names, ratio, posthoc)
    # One warning for the ANOVA and the pairwise tests it leaves undefined.
    undefined = (
        []
        if table is None or posthoc is not True
        else [
            (a, b)
            for a, b, p in zip(
                table["model_a"].tolist(),
                table["model_b"].tolist(),
                table["pvalue"].tolist(),
                strict=True,
            )
            if math.isnan(p)
        ]
    )
    pairs = _posthoc_pairs("the corrected resampled t test", undefined)
    # F is scale free; its sums of squares are not, near 1e300 or 1e-300.
    (scores,), _, _ = _rescaled(scores)
    grand = scores.mean()
    ss_models = n_iter * np.sum((scores.mean(axis=0) - grand) ** 2)
    ss_splits = n_models * np.sum((scores.mean(axis=1) - grand) ** 2)
    ss_error = np.sum((scores - grand) ** 2) - ss_models - ss_splits
    df = (n_models - 1, (n_models - 1) * (n_iter - 1))
    if ss_error <= 1e-12 * max(np.sum((scores - grand) ** 2), 1e-300):
        _warn_undefined(
            "The repeated-measures ANOVA",
            "the models' differences are the same on every split (zero error variance)"
            + (f"; so is {pairs}" if undefined else ""),
        )
        return RMAnovaResult(math.nan, math.nan, df, math.nan, math.nan, posthoc=table)
    if undefined:
        _warn_undefined(pairs[0].upper() + pairs[1:], _CONSTANT_DIFFERENCES)
    f_stat = float((ss_models / df[0]) / (ss_error / df[1]))
    corrected = f_stat / (1.0 + n_iter * ratio)
    return RMAnovaResult(
        statistic=corrected,
        pvalue=float(stats.f.sf(corrected, *df)),
        df=df,
        uncorrected_statistic=f_stat,
        uncorrected_pvalue=float(stats.f.sf(f_stat, *df)),
        posthoc=table,
    )


def _mean_difference(scores_a, scores_b):
    """``mean(scores_a - scores_b)`` without overflow for scores near the float limit."""
    (scores_a, scores_b), _, exponent = _rescaled(scores_a, scores_b)
    return _in_score_units(float(np.mean(scores_a - scores_b)), exponent)


def _rm_anova_posthoc(scores, names, ratio, posthoc):
    """Pairwise tests of every two models after the ANOVA, Holm-adjusted."""
    # Imported here: only this optional step needs them.
    from itertools import combinations

    import pandas as pd

    from ._cochran import _holm

    if posthoc is False or posthoc is None:
        return None
    if posthoc is True:

        def posthoc(scores_a, scores_b):
            # corrected_resampled_ttest, whose undefined pairs the ANOVA
            # reports in its one warning.
            result = _paired_t(
                scores_a, scores_b, ratio, "two-sided", _CORRECTED_RESAMPLED, 1, warn=False
            )
            return result.statistic, result.pvalue

    elif not callable(posthoc):
        raise ValueError(
            f"posthoc must be True, False or a callable posthoc(scores_a, "
            f"scores_b) returning (statistic, pvalue), got {posthoc!r}."
        )
    names = names if names is not None else list(range(scores.shape[1]))
    rows = []
    for i, j in combinations(range(scores.shape[1]), 2):
        returned = posthoc(scores[:, i], scores[:, j])
        try:
            statistic, pvalue = (float(v) for v in tuple(returned)[:2])
        except (TypeError, ValueError) as exc:
            raise ValueError(
                "posthoc must return (statistic, pvalue), or a result that unpacks "
                f"so (e.g. scipy.stats.ttest_rel's), got a {type(returned).__name__}: {exc}."
            ) from exc
        rows.append(
            {
                "model_a": names[i],
                "model_b": names[j],
                "difference": _mean_difference(scores[:, i], scores[:, j]),
                "statistic": float(statistic),
                "pvalue": float(pvalue),
            }
        )
    table = pd.DataFrame(rows)
    table["pvalue_holm"] = _holm(table["pvalue"].to_numpy())
    return table


def wilcoxon(
    scores_a: ArrayLike, scores_b: ArrayLike, *, alternative: str = "two-sided", **kwargs: Any
) -> WilcoxonResult:
    """Wilcoxon signed-rank test on paired scores (a thin wrapper of SciPy's).

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (n_iter,)
        Scores of the two models on the same splits (or data sets).
    {alternative}
    **kwargs
        Passed to :func:`scipy.stats.wilcoxon` (``zero_method``,
        ``correction``, ``method``).

    Returns
    -------
    result : WilcoxonResult
        ``statistic`` and ``pvalue`` from :func:`scipy.stats.wilcoxon`,
        the ``median_difference`` and the number of pairs.

    Notes
    -----
    The signed-rank test drops the normality assumption of the t test, not
    the independence assumption: on scores from overlapping training sets
    it is as liberal as the uncorrected t test. It suits scores from
    independent test sets, or one score per data set across several data
    sets (Demsar 2006). If every difference is zero the statistic is NaN
    with an
    :class:`~sklearn_precision_stats.exceptions.UndefinedStatisticWarning`.

    References
    ----------
    Demsar, J. (2006). Statistical comparisons of classifiers over multiple
    data sets. Journal of Machine Learning Research 7, 1-30.

    Examples
    --------
    >>> from sklearn_precision_stats import wilcoxon
    >>> a = [0.81, 0.84, 0.79, 0.83, 0.85, 0.80, 0.82, 0.84, 0.83, 0.81]
    >>> b = [0.79, 0.82, 0.80, 0.80, 0.82, 0.79, 0.80, 0.81, 0.82, 0.80]
    >>> res = wilcoxon(a, b)
    >>> round(res.median_difference, 3), bool(res.pvalue < 0.05)
    (0.02, True)
    """
    _check_alternative(alternative)
    scores_a, scores_b = _check_paired_scores(scores_a, scores_b)
    # Ranks are scale free: rescaled scores keep the differences finite.
    (scores_a, scores_b), _, exponent = _rescaled(scores_a, scores_b)
    differences = scores_a - scores_b
    median = _in_score_units(float(np.median(differences)), exponent)
    if not np.any(differences):
        _warn_undefined("The Wilcoxon signed-rank test", "every score difference is zero")
        return WilcoxonResult(math.nan, math.nan, median, differences.shape[0], alternative)
    res = stats.wilcoxon(differences, alternative=alternative, **kwargs)
    return WilcoxonResult(
        float(res.statistic),
        float(res.pvalue),
        median,
        differences.shape[0],
        alternative,
    )


for _function in (
    paired_ttest_5x2cv,
    combined_ftest_5x2cv,
    paired_ttest_kfold_cv,
    paired_ttest_resampled,
    corrected_resampled_ttest,
    corrected_repeated_kfold_ttest,
    wilcoxon,
):
    _function.__doc__ = (_function.__doc__ or "").format(**_DOC_PARAMS)
del _function
