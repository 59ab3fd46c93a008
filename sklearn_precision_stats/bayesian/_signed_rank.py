"""Bayesian signed-rank test of two classifiers over several data sets.

Benavoli, Corani, Mangili, Zaffalon and Ruggeri (2014): the distribution of
the score differences over data sets gets a Dirichlet-process posterior,
with a prior pseudo-observation at zero difference. For each posterior draw
of that distribution, ``theta_right`` is the probability that the average of
two differences drawn from it exceeds ``rope`` (the Walsh averages on which
the Wilcoxon signed-rank statistic rests), ``theta_left`` that it is below
``-rope``, and ``theta_rope`` the rest. The draws are made by Monte Carlo.
"""

from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils import check_random_state

from ..classic._resampled_ttests import _check_paired_scores
from ..utils._sklearn_compat import Interval, validate_params
from ._base import BayesianResult, _check_rope, _most_probable_region, _reject_bools

__all__ = ["BayesianSignedRankResult", "bayesian_signed_rank_test"]

# Rows of posterior draws processed at once: at most _CHUNK, and at most
# _CHUNK_CELLS / (n + 1), so that the (rows, n + 1) temporaries stay near
# 16 MB each whatever n_samples and the number n of data sets are.
_CHUNK = 20000
_CHUNK_CELLS = 2**21


def _heaviside(values, threshold):
    """1 above the threshold, 1/2 at it, 0 below (baycomp's convention)."""
    return (values > threshold) + 0.5 * (values == threshold)


def _check_generator(random_state):
    """A NumPy Generator as is; None, an int or a RandomState via scikit-learn."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    return check_random_state(random_state)


def _sample_posterior(differences, rope, prior_strength, n_samples, rng):
    """Posterior draws of (theta_left, theta_rope, theta_right), shape (n_samples, 3)."""
    z = np.concatenate(([0.0], differences))  # the prior pseudo-observation first
    weights = np.ones(z.shape[0])
    weights[0] = prior_strength
    walsh = z[:, None] + z[None, :]  # twice the Walsh averages
    above = _heaviside(walsh, 2.0 * rope)
    below = _heaviside(-walsh, 2.0 * rope)
    samples = np.empty((n_samples, 3))
    chunk = max(1, min(_CHUNK, _CHUNK_CELLS // z.shape[0]))
    for start in range(0, n_samples, chunk):
        stop = min(start + chunk, n_samples)
        w = rng.dirichlet(weights, stop - start)
        # theta = w' H w for each draw w of the Dirichlet weights.
        samples[start:stop, 0] = np.einsum("si,si->s", w @ below, w)
        samples[start:stop, 2] = np.einsum("si,si->s", w @ above, w)
    samples[:, 1] = 1.0 - samples[:, 0] - samples[:, 2]
    return samples


@dataclass(frozen=True, repr=False)
class BayesianSignedRankResult(BayesianResult):
    """Result of :func:`bayesian_signed_rank_test`.

    Attributes
    ----------
    p_left : float
        Posterior probability that the left region (``a - b < -rope``, b
        practically better) is the most probable of the three.
    p_rope : float
        Posterior probability that the rope region is the most probable.
    p_right : float
        Posterior probability that the right region (a practically better)
        is the most probable.
    rope : float
        Half-width of the region of practical equivalence.
    n_datasets : int
        Number of paired scores (data sets).
    n_samples : int
        Number of Monte Carlo draws.
    prior_strength : float
        Weight of the prior pseudo-observation at zero difference.
    samples : ndarray of shape (n_samples, 3)
        The posterior draws of ``(theta_left, theta_rope, theta_right)``,
        points of the probability simplex.
    """

    n_datasets: int
    n_samples: int
    prior_strength: float
    samples: np.ndarray = field(repr=False, compare=False)

    @property
    def monte_carlo_standard_error(self) -> tuple[float, ...]:
        """Monte Carlo standard errors of ``(p_left, p_rope, p_right)``.

        ``sqrt(p (1 - p) / n_samples)`` each: the draws are independent.
        """
        p = np.asarray(self.probabilities)
        return tuple(float(v) for v in np.sqrt(p * (1.0 - p) / self.n_samples))

    @property
    def posterior_mean(self) -> tuple[float, ...]:
        """Posterior means of ``(theta_left, theta_rope, theta_right)``."""
        return tuple(float(v) for v in self.samples.mean(axis=0))


@validate_params(
    {
        "scores_a": ["array-like"],
        "scores_b": ["array-like"],
        "rope": [Interval(Real, 0, None, closed="left")],
        "prior_strength": [Interval(Real, 0, None, closed="neither")],
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state", np.random.Generator],
    },
    prefer_skip_nested_validation=True,
)
def bayesian_signed_rank_test(
    scores_a: ArrayLike,
    scores_b: ArrayLike,
    *,
    rope: float = 0.01,
    prior_strength: float = 0.5,
    n_samples: int = 50000,
    random_state: int | np.random.RandomState | np.random.Generator | None = None,
) -> BayesianSignedRankResult:
    """Bayesian signed-rank test of two classifiers over several data sets.

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (n_datasets,)
        One score per data set for each classifier (e.g. the mean
        cross-validated accuracy), the same data sets in the same order.
        Differences are ``scores_a - scores_b``.
    rope : float, default=0.01
        Half-width of the region of practical equivalence, in the units of
        the scores. 0 gives no rope.
    prior_strength : float, default=0.5
        Weight ``s`` of the Dirichlet process's prior pseudo-observation at
        zero difference (Benavoli et al. 2017 and baycomp use 0.5).
    n_samples : int, default=50000
        Number of Monte Carlo draws from the posterior.
    random_state : None, int, numpy.random.RandomState or numpy.random.Generator, default=None
        Seed or generator of the draws. An int seeds a
        :class:`numpy.random.RandomState` as
        :func:`sklearn.utils.check_random_state` does (the draws are then
        those of baycomp with the same seed).

    Returns
    -------
    result : BayesianSignedRankResult
        ``p_left``, ``p_rope``, ``p_right`` (unpacks as these three), the
        posterior ``samples`` and their ``monte_carlo_standard_error``.

    Notes
    -----
    Let ``z_0 = 0`` (the prior pseudo-observation, weight ``s``) and ``z_i``
    the ``n`` differences (weight 1 each). Each draw ``w ~ Dirichlet(s, 1,
    ..., 1)`` gives ``theta_right = sum_ij w_i w_j H(z_i + z_j - 2 rope)``
    and ``theta_left = sum_ij w_i w_j H(-z_i - z_j - 2 rope)``, with the
    Heaviside function ``H`` (1/2 at 0), and ``theta_rope = 1 - theta_left -
    theta_right``. As in Benavoli et al. (2017) and baycomp, ``p_left``,
    ``p_rope`` and ``p_right`` are the shares of draws in which the left,
    rope or right region has the largest ``theta`` (their Monte Carlo
    standard error is at most ``0.5 / sqrt(n_samples)``, 0.0022 for 50 000
    draws); a draw where two regions tie counts half for each (baycomp
    gives it to the first), so that identical scores without a rope give
    ``p_left = p_right = 0.5``. The posterior draws themselves are in ``samples``; their
    triangle is drawn by
    :func:`~sklearn_precision_stats.plotting.plot_posterior`.

    The data sets are the independent units: the scores of one data set
    must be summarised first (e.g. averaged over cross-validation folds).
    Unlike the Friedman-based post-hoc tests, the comparison of two
    classifiers does not depend on the other classifiers compared.

    References
    ----------
    Benavoli, A., Corani, G., Mangili, F., Zaffalon, M. and Ruggeri, F.
    (2014). A Bayesian Wilcoxon signed-rank test based on the Dirichlet
    process. Proceedings of the 31st International Conference on Machine
    Learning, PMLR 32, 1026-1034.

    Benavoli, A., Corani, G., Demsar, J. and Zaffalon, M. (2017). Time for a
    change: a tutorial for comparing multiple classifiers through Bayesian
    analysis. Journal of Machine Learning Research 18, 1-36.

    Examples
    --------
    >>> from sklearn_precision_stats.bayesian import bayesian_signed_rank_test
    >>> a = [0.91, 0.85, 0.78, 0.95, 0.88, 0.82, 0.90, 0.87, 0.93, 0.76]
    >>> b = [0.88, 0.86, 0.75, 0.93, 0.87, 0.80, 0.87, 0.84, 0.93, 0.74]
    >>> res = bayesian_signed_rank_test(a, b, rope=0.01, random_state=0)
    >>> p_left, p_rope, p_right = res
    >>> round(p_left, 3), round(p_rope, 3), round(p_right, 3)
    (0.0, 0.023, 0.977)
    >>> res.samples.shape
    (50000, 3)
    """
    scores_a, scores_b = _check_paired_scores(scores_a, scores_b)
    _reject_bools(prior_strength=prior_strength, n_samples=n_samples)
    rng = _check_generator(random_state)
    rope, prior_strength = _check_rope(rope), float(prior_strength)
    samples = _sample_posterior(scores_a - scores_b, rope, prior_strength, n_samples, rng)
    _, p = _most_probable_region(samples)
    return BayesianSignedRankResult(
        p_left=float(p[0]),
        p_rope=float(p[1]),
        p_right=float(p[2]),
        rope=rope,
        n_datasets=int(scores_a.shape[0]),
        n_samples=int(n_samples),
        prior_strength=prior_strength,
        samples=samples,
    )
