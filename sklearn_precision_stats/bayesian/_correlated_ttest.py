"""Bayesian correlated t test on cross-validation scores of one data set.

Corani and Benavoli (2015): the differences of the fold scores of two
classifiers are modelled as normal with a common mean ``mu`` and the
correlation ``rho = n_test / (n_train + n_test)`` that overlapping training
sets induce (Nadeau and Bengio 2003). With the non-informative prior, the
posterior of ``mu`` is a Student distribution, and the posterior
probabilities of ``mu < -rope``, ``|mu| <= rope`` and ``mu > rope`` say how
probable it is that one classifier is practically better.
"""

from dataclasses import dataclass
from numbers import Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from ..classic._resampled_ttests import (
    _check_paired_scores,
    _check_positive,
    _in_score_units,
    _no_variation,
    _rescaled,
)
from ..results._base import ConfidenceInterval, _check_confidence_level
from ..utils._sklearn_compat import Interval, validate_params
from ._base import BayesianResult, _check_rope

__all__ = ["BayesianCorrelatedTTestResult", "bayesian_correlated_ttest"]


def _student_posterior(differences, ratio):
    """Location, scale and df of the posterior of the mean difference.

    Vectorised over the leading axes of ``differences`` (..., n_scores), so
    that calibration simulations need no loop.
    """
    n = differences.shape[-1]
    mean = differences.mean(axis=-1)
    variance = differences.var(axis=-1, ddof=1) * (1.0 / n + ratio)
    return mean, np.sqrt(variance), n - 1


def _region_probabilities(mean, scale, df, rope, degenerate=None):
    """P(mu < -rope), P(|mu| <= rope), P(mu > rope) under the Student posterior.

    Where ``degenerate`` (by default, where the scale is 0), the differences
    do not vary and the posterior is a point mass at ``mean``, as in
    baycomp.
    """
    mean, scale = np.asarray(mean, dtype=float), np.asarray(scale, dtype=float)
    degenerate = scale == 0 if degenerate is None else np.asarray(degenerate)
    safe = np.where(degenerate, 1.0, scale)
    p_left = stats.t.cdf((-rope - mean) / safe, df)
    p_right = stats.t.sf((rope - mean) / safe, df)
    p_left = np.where(degenerate, (mean < -rope).astype(float), p_left)
    p_right = np.where(degenerate, (mean > rope).astype(float), p_right)
    if rope == 0:
        # Without a rope, a point mass at 0 is split evenly, as in baycomp,
        # and the rope has probability exactly 0.
        half = degenerate & (mean == 0)
        p_left = np.where(half, 0.5, p_left)
        return p_left, np.zeros_like(p_left), 1.0 - p_left
    return p_left, 1.0 - p_left - p_right, p_right


@dataclass(frozen=True, repr=False)
class BayesianCorrelatedTTestResult(BayesianResult):
    """Result of :func:`bayesian_correlated_ttest`.

    Attributes
    ----------
    p_left : float
        Posterior probability that ``mean(a - b) < -rope``: b is
        practically better.
    p_rope : float
        Posterior probability that ``|mean(a - b)| <= rope``: practically
        equivalent.
    p_right : float
        Posterior probability that ``mean(a - b) > rope``: a is practically
        better.
    rope : float
        Half-width of the region of practical equivalence.
    mean : float
        Posterior location: the mean of ``scores_a - scores_b``.
    scale : float
        Posterior scale: ``sqrt(var(d) (1/n + n_test/n_train))``, the
        corrected standard error of the mean difference.
    df : int
        Degrees of freedom of the Student posterior, ``n - 1``.
    n_scores : int
        Number of paired scores.
    """

    mean: float
    scale: float
    df: int
    n_scores: int

    def posterior(self) -> Any:
        """The posterior of the mean difference, a frozen :data:`scipy.stats.t`.

        Returns
        -------
        distribution : scipy.stats frozen distribution
            Student with ``df`` degrees of freedom, location ``mean`` and
            scale ``scale`` (a zero scale is degenerate: use ``mean``).
        """
        return stats.t(self.df, loc=self.mean, scale=self.scale)

    def credible_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """Equal-tailed credible interval for the mean difference ``a - b``.

        With the non-informative prior it coincides with the confidence
        interval of :func:`~sklearn_precision_stats.classic.corrected_resampled_ttest`.

        Parameters
        ----------
        confidence_level : float, default=0.95
            Posterior probability of the interval.

        Returns
        -------
        ci : ConfidenceInterval
            Named tuple with fields ``low`` and ``high``.
        """
        level = _check_confidence_level(confidence_level)
        half = stats.t.ppf(0.5 + level / 2, self.df) * self.scale
        return ConfidenceInterval(float(self.mean - half), float(self.mean + half))


@validate_params(
    {
        "scores_a": ["array-like"],
        "scores_b": ["array-like"],
        "n_train": [Interval(Real, 0, None, closed="neither")],
        "n_test": [Interval(Real, 0, None, closed="neither")],
        "rope": [Interval(Real, 0, None, closed="left")],
    },
    prefer_skip_nested_validation=True,
)
def bayesian_correlated_ttest(
    scores_a: ArrayLike, scores_b: ArrayLike, *, n_train: float, n_test: float, rope: float = 0.01
) -> BayesianCorrelatedTTestResult:
    """Bayesian correlated t test of two classifiers' cross-validation scores.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (n_scores,)
        Scores of the two classifiers on the same splits of one data set,
        e.g. the ``test_score`` of
        :func:`~sklearn.model_selection.cross_validate` run with the same
        ``cv`` (all ``n_repeats * n_splits`` folds of repeated k-fold
        cross-validation). Differences are ``scores_a - scores_b``.
    n_train, n_test : float
        Number of training and test records per split (means if they vary);
        for k-fold cross-validation ``n_test / n_train = 1 / (k - 1)``.
    rope : float, default=0.01
        Half-width of the region of practical equivalence, in the units of
        the scores: differences in ``[-rope, rope]`` do not matter in
        practice (0.01 is one point of accuracy). 0 gives no rope.

    Returns
    -------
    result : BayesianCorrelatedTTestResult
        ``p_left``, ``p_rope``, ``p_right`` (unpacks as these three), the
        Student posterior's ``mean``, ``scale`` and ``df``, and
        ``credible_interval()``.

    Notes
    -----
    The ``n`` differences ``d`` are modelled as normal with mean ``mu``,
    variance ``sigma^2`` and correlation ``rho = n_test / (n_train +
    n_test)`` between any two of them. With the prior ``p(mu, sigma^2)
    propto 1 / sigma^2``, the posterior of ``mu`` is Student with ``n - 1``
    degrees of freedom, location ``mean(d)`` and scale ``sqrt(var(d) (1/n +
    rho / (1 - rho)))``; ``rho / (1 - rho) = n_test / n_train`` is Nadeau
    and Bengio's correction (Corani and Benavoli 2015). The probabilities
    are computed from the Student distribution, not by sampling.

    ``p_right`` is one minus the one-sided p-value of
    :func:`~sklearn_precision_stats.classic.corrected_resampled_ttest` when
    ``rope=0``; the rope and the three probabilities say what the p-value
    cannot: whether the difference is large enough to matter, and how
    probable practical equivalence is. A common decision rule declares a
    region when its probability exceeds 0.95. The correlation is
    heuristic, and the test is about one data set: for several data sets
    use :func:`bayesian_signed_rank_test` on one score per data set. If the
    differences do not vary, the posterior is a point mass at their mean
    (as in baycomp).

    The probabilities equal baycomp's ``two_on_single(scores_b, scores_a,
    rope, runs)`` (baycomp takes ``y - x``) when ``n_test / n_train = runs
    / (n_scores - runs)``, i.e. ``1 / (k - 1)`` for ``k`` folds.

    References
    ----------
    Corani, G. and Benavoli, A. (2015). A Bayesian approach for comparing
    cross-validated algorithms on multiple data sets. Machine Learning 100,
    285-304.

    Benavoli, A., Corani, G., Demsar, J. and Zaffalon, M. (2017). Time for a
    change: a tutorial for comparing multiple classifiers through Bayesian
    analysis. Journal of Machine Learning Research 18, 1-36.

    Nadeau, C. and Bengio, Y. (2003). Inference for the generalization
    error. Machine Learning 52, 239-281.

    Examples
    --------
    >>> from sklearn_precision_stats.bayesian import bayesian_correlated_ttest
    >>> a = [0.81, 0.84, 0.79, 0.83, 0.85, 0.80, 0.82, 0.84, 0.83, 0.81]
    >>> b = [0.79, 0.82, 0.80, 0.80, 0.82, 0.79, 0.80, 0.81, 0.82, 0.80]
    >>> res = bayesian_correlated_ttest(a, b, n_train=900, n_test=100, rope=0.01)
    >>> p_left, p_rope, p_right = res
    >>> round(p_left, 4), round(p_rope, 4), round(p_right, 4)
    (0.0006, 0.1267, 0.8728)
    >>> res.credible_interval(0.95)  # doctest: +ELLIPSIS
    ConfidenceInterval(low=0.0039..., high=0.0300...)
    """
    scores_a, scores_b = _check_paired_scores(scores_a, scores_b)
    ratio = _check_positive(n_test, "n_test") / _check_positive(n_train, "n_train")
    rope = _check_rope(rope)
    # In units of 2**exponent: squares of scores near 1e300 would overflow
    # and those near 1e-300 underflow; the probabilities are scale free.
    (scores_a, scores_b), largest, exponent = _rescaled(scores_a, scores_b)
    differences = scores_a - scores_b
    mean, scale, df = _student_posterior(differences, ratio)
    # Differences that vary only by rounding errors of the scores do not vary.
    degenerate = _no_variation(float(differences.std(ddof=1)), largest)
    scaled_rope = _in_score_units(rope, -exponent)
    p_left, p_rope, p_right = _region_probabilities(mean, scale, df, scaled_rope, degenerate)
    return BayesianCorrelatedTTestResult(
        p_left=float(p_left),
        p_rope=float(p_rope),
        p_right=float(p_right),
        rope=rope,
        mean=_in_score_units(mean, exponent),
        scale=0.0 if degenerate else _in_score_units(scale, exponent),
        df=int(df),
        n_scores=int(scores_a.shape[0]),
    )
