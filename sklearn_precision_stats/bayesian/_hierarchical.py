"""Bayesian hierarchical comparison of two classifiers over several data sets.

Corani, Benavoli, Demsar, Mangili and Zaffalon (2017): the cross-validation
score differences of every data set are modelled at once. Within a data set
they are correlated normal, as in the correlated t test, with their own mean
``delta_i`` and standard deviation ``sigma_i``; the means ``delta_i`` are
drawn from a Student distribution whose location ``delta0``, scale ``std0``
and degrees of freedom ``nu`` are learnt. The posterior is sampled with
PyMC's NUTS sampler; PyMC is an optional dependency, imported when the test
runs.
"""

from __future__ import annotations

import contextlib
import logging
import math
import sys
import warnings
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import stats
from sklearn.exceptions import ConvergenceWarning

from ..classic._resampled_ttests import _ROUNDING, _in_score_units, _rescaled
from ..results._base import ConfidenceInterval, _check_confidence_level
from ..utils._random_state import check_random_state_any
from ..utils._sklearn_compat import Interval, validate_params
from ._base import BayesianResult, _check_rope, _most_probable_region, _reject_bools

__all__ = ["BayesianHierarchicalResult", "bayesian_hierarchical_test"]

_INSTALL_HINT = "pip install sklearn-precision-stats[bayes]"

# Loggers whose INFO messages (sampler set-up, timing) and BLAS notices
# would otherwise reach the user's console on every call.
_QUIET_LOGGERS = ("pymc", "pytensor", "arviz")


@contextlib.contextmanager
def _quiet_backend():
    """Silence PyMC's, PyTensor's and ArviZ's logs and warnings; restore them after."""
    loggers = [logging.getLogger(name) for name in _QUIET_LOGGERS]
    # ArviZ logs through its own ``arviz._log``, a Logger made directly and
    # so not the one logging.getLogger("arviz") returns.
    arviz = sys.modules.get("arviz")
    if isinstance(getattr(arviz, "_log", None), logging.Logger):
        loggers.append(arviz._log)
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            for module in ("pymc", "pytensor", "arviz", "numba"):
                warnings.filterwarnings("ignore", module=module)
            yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def _import_backend():
    try:
        with _quiet_backend():
            import arviz
            import pymc  # type: ignore[import-untyped]
            import pytensor.tensor as pt
    except ImportError as exc:
        raise ImportError(
            "bayesian_hierarchical_test samples its posterior with PyMC, which is "
            f"not installed; install it with `{_INSTALL_HINT}` (or `pip install pymc`)."
        ) from exc
    return pymc, pt, arviz


def _check_score_table(scores, name):
    """A finite 2-D float array (data sets x scores) and the data sets' names."""
    names = None
    try:
        if isinstance(scores, pd.DataFrame):
            names = tuple(scores.index)
            # pandas' missing values (pd.NA of the nullable dtypes) become NaN.
            array = scores.to_numpy(dtype=float, na_value=np.nan)
        else:
            array = np.asarray(scores, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"{name} must hold numbers, one row of cross-validation scores per data "
            f"set (n_datasets, n_scores): {exc}"
        ) from None
    if array.ndim != 2:
        raise ValueError(
            f"{name} must be 2-D, one row of cross-validation scores per data set "
            f"(n_datasets, n_scores), got an array of shape {array.shape}; for one "
            "data set pass a single row, e.g. np.atleast_2d(scores)."
        )
    if not np.isfinite(array).all():
        raise ValueError(f"{name} contains NaN or infinite scores; remove or impute them.")
    return array, names


def _check_records(value, name, n_datasets, datasets=None):
    """n_train or n_test: a positive number, or one per data set.

    A pandas Series must be indexed like the DataFrame of scores (its
    ``datasets``): it would otherwise be paired with the data sets by
    position.
    """
    if (
        isinstance(value, pd.Series)
        and datasets is not None
        and list(value.index) != list(datasets)
    ):
        raise ValueError(
            f"{name} is a Series indexed unlike the rows of the scores; align it "
            f"first, e.g. {name}.loc[scores_a.index]."
        )
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):  # e.g. ragged lists
        raw = np.asarray(None)
    # Bools, strings and objects are not numbers of records.
    array = None if isinstance(value, bool) or raw.dtype.kind not in "iuf" else raw.astype(float)
    if (
        array is None
        or array.ndim > 1
        or (array.ndim == 1 and array.shape[0] != n_datasets)
        or not np.all(np.isfinite(array))
        or not np.all(array > 0)
    ):
        # The value itself when it is one number, else its kind and shape.
        shown = (
            repr(value) if raw.ndim == 0 else f"a {type(value).__name__} value of shape {raw.shape}"
        )
        raise ValueError(
            f"{name} must be a positive number of records, or one such number per "
            f"data set (shape ({n_datasets},)), got {shown}."
        )
    return np.broadcast_to(array, (n_datasets,))


def _check_inputs(scores_a, scores_b, n_train, n_test):
    """Differences ``a - b``, rho per data set, names, and the scores' magnitude."""
    a, names_a = _check_score_table(scores_a, "scores_a")
    b, names_b = _check_score_table(scores_b, "scores_b")
    if a.shape != b.shape:
        raise ValueError(
            f"scores_a and scores_b must have the same shape (n_datasets, n_scores), "
            f"got {a.shape} and {b.shape}; pass the scores of both classifiers on the "
            "same splits of the same data sets."
        )
    if names_a is not None and names_b is not None and names_a != names_b:
        raise ValueError(
            "scores_a and scores_b are DataFrames with different indexes; align their "
            "rows (data sets) first, e.g. scores_b.loc[scores_a.index]."
        )
    if (
        isinstance(scores_a, pd.DataFrame)
        and isinstance(scores_b, pd.DataFrame)
        and not scores_a.columns.equals(scores_b.columns)
    ):
        # The columns are the splits: pairing them by position would pair
        # different splits.
        raise ValueError(
            "scores_a and scores_b are DataFrames with different columns; the columns "
            "are the splits and must match, e.g. scores_b[scores_a.columns]."
        )
    n_datasets, n_scores = a.shape
    if n_datasets < 1 or n_scores < 2:
        raise ValueError(
            f"scores_a and scores_b need at least one data set and two scores per "
            f"data set, got shape {a.shape}."
        )
    n_train = _check_records(n_train, "n_train", n_datasets, names_a or names_b)
    n_test = _check_records(n_test, "n_test", n_datasets, names_a or names_b)
    rho = n_test / (n_train + n_test)
    names = names_a if names_a is not None else names_b
    if names is None:
        names = tuple(range(n_datasets))
    # The largest absolute score of each data set: differences that vary by
    # less than its rounding errors do not vary.
    magnitude = np.maximum(np.abs(a).max(axis=1), np.abs(b).max(axis=1))
    return a - b, rho, names, magnitude


def _jitter_constant_rows(differences, rope, rng, magnitude=None):
    """Spread the differences of data sets where they do not vary.

    A row does not vary when its range is within a few rounding errors of
    ``magnitude`` (the largest absolute score of the data set, by default
    that of the differences): ``a - (a - 0.01)`` is not exactly constant.

    A data set whose differences are all equal has a likelihood that grows
    without bound as ``sigma_i -> 0``. As baycomp does, half of its
    differences are moved by ``+u`` and the other half by ``-u``, with ``u``
    uniform in ``(-rope, rope)`` (a thousandth of the largest absolute
    difference when ``rope`` is 0); unlike baycomp, the spread is centred
    on the data set's common difference rather than on 0, so that a
    constant non-zero gain is kept.
    """
    if magnitude is None:
        magnitude = np.abs(differences).max(axis=1)
    constant = ~(np.ptp(differences, axis=1) > _ROUNDING * np.asarray(magnitude))
    if not constant.any():
        return differences, 0
    differences = differences.copy()
    width = rope if rope > 0 else 1e-3 * max(float(np.abs(differences).max()), 1e-12)
    half = differences.shape[1] // 2
    u = rng.uniform(-width, width, size=(int(constant.sum()), half))
    differences[constant, :half] += u
    differences[constant, half : 2 * half] -= u
    return differences, int(constant.sum())


def _marginal_loglik(pt, delta, mean, ss, n, rho, upper):
    """Log-likelihood of each data set with ``sigma_i ~ U(0, upper)`` integrated out.

    With the correlation matrix ``M = (1 - rho) I + rho 11'`` the quadratic
    form of the differences ``x_i`` is ``Q_i = SS_i / (1 - rho) + n (mean_i
    - delta_i)^2 / (1 + (n - 1) rho)``, and ``int_0^upper sigma^-n exp(-Q /
    (2 sigma^2)) dsigma = (Q/2)^-(n-1)/2 Gamma((n-1)/2) Q((n-1)/2, Q / (2
    upper^2)) / 2`` with ``Q(., .)`` the regularised upper incomplete gamma
    function; terms free of ``delta`` are dropped.
    """
    k = (n - 1) / 2.0
    q = ss / (1.0 - rho) + n * (mean - delta) ** 2 / (1.0 + (n - 1) * rho)
    return -k * pt.log(q) + pt.log(pt.gammaincc(k, q / (2.0 * upper**2)))


def _region_thetas(rope, nu, loc, scale):
    """P(next delta < -rope), P(|.| <= rope), P(> rope) per posterior draw."""
    left = stats.t.cdf(-rope, nu, loc, scale)
    right = stats.t.sf(rope, nu, loc, scale)
    if rope == 0:
        return np.column_stack([left, np.zeros_like(left), 1.0 - left])
    return np.column_stack([left, 1.0 - left - right, right])


@dataclass(frozen=True, repr=False)
class BayesianHierarchicalResult(BayesianResult):
    """Result of :func:`bayesian_hierarchical_test`.

    Attributes
    ----------
    p_left : float
        Posterior probability that the left region (``a - b < -rope``: b
        practically better) is the most probable of the three for the mean
        difference ``delta`` of a new data set (as in baycomp).
    p_rope : float
        The same for the rope region (practically equivalent).
    p_right : float
        The same for the right region (a practically better).
    rope : float
        Half-width of the region of practical equivalence.
    n_datasets : int
        Number of data sets.
    n_scores : int
        Number of scores (splits) per data set.
    n_samples : int
        Number of posterior draws kept, over all chains.
    chains : int
        Number of Markov chains.
    r_hat : float
        Largest rank-normalised split R-hat of the sampled parameters
        ``delta0``, ``std0``, ``nu`` and the ``delta_i`` (or their
        standardised ``z_i``); values above 1.01 signal that the chains
        have not mixed.
    ess : float
        Smallest bulk effective sample size of the same parameters.
    n_divergences : int
        Number of divergent transitions after tuning (should be 0).
    n_constant : int
        Number of data sets whose differences did not vary and were spread
        (see Notes of :func:`bayesian_hierarchical_test`).
    monte_carlo_standard_error : tuple of float
        Monte Carlo standard errors of ``(p_left, p_rope, p_right)``,
        from the effective sample size of each region's indicator.
    datasets : tuple
        Names of the data sets (the DataFrame index, else 0, 1, ...).
    samples : ndarray of shape (n_samples, 3)
        For each posterior draw, ``(theta_left, theta_rope, theta_right)``:
        the probabilities that a new data set's mean difference lies in
        each region, points of the probability simplex.
    delta0, std0, nu : ndarray of shape (n_samples,)
        Posterior draws of the location, scale and degrees of freedom of
        the Student distribution of the data sets' mean differences, in
        the units of the scores.
    delta : ndarray of shape (n_samples, n_datasets)
        Posterior draws of each data set's mean difference ``delta_i``.
    """

    n_datasets: int
    n_scores: int
    n_samples: int
    chains: int
    r_hat: float
    ess: float
    n_divergences: int
    n_constant: int
    monte_carlo_standard_error: tuple = field(repr=False)
    datasets: tuple = field(repr=False, compare=False)
    samples: np.ndarray = field(repr=False, compare=False)
    delta0: np.ndarray = field(repr=False, compare=False)
    std0: np.ndarray = field(repr=False, compare=False)
    nu: np.ndarray = field(repr=False, compare=False)
    delta: np.ndarray = field(repr=False, compare=False)

    # Title of the simplex drawn by plot_posterior.
    _plot_method = "Bayesian hierarchical test"

    @property
    def posterior_mean(self) -> tuple[float, ...]:
        """Posterior means of ``(theta_left, theta_rope, theta_right)``.

        The posterior predictive probabilities that a new data set's mean
        difference lies in each region.
        """
        return tuple(float(v) for v in self.samples.mean(axis=0))

    @property
    def population_probabilities(self) -> tuple[float, float, float]:
        """Posterior probabilities that ``delta0`` is below, within, above the rope.

        ``delta0`` is the location of the data sets' mean differences (the
        population mean difference when ``nu`` is large).
        """
        left = float(np.mean(self.delta0 < -self.rope))
        right = float(np.mean(self.delta0 > self.rope))
        return (left, 1.0 - left - right, right)

    def credible_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """Equal-tailed credible interval of ``delta0`` from the posterior draws.

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
        low, high = np.quantile(self.delta0, [0.5 - level / 2, 0.5 + level / 2])
        return ConfidenceInterval(float(low), float(high))

    def per_dataset(self) -> pd.DataFrame:
        """Posterior of each data set's mean difference ``delta_i``.

        The hierarchical model shrinks each data set's estimate towards the
        others: compare ``mean`` with the plain mean of the differences.

        Returns
        -------
        table : pandas.DataFrame
            One row per data set: the posterior ``mean`` of ``delta_i`` and
            the posterior probabilities ``p_left``, ``p_rope``, ``p_right``
            that ``delta_i`` is below, within or above the rope.
        """
        left = (self.delta < -self.rope).mean(axis=0)
        right = (self.delta > self.rope).mean(axis=0)
        return pd.DataFrame(
            {
                "mean": self.delta.mean(axis=0),
                "p_left": left,
                "p_rope": 1.0 - left - right,
                "p_right": right,
            },
            # tupleize_cols=False: tuple names (a MultiIndex of data sets) stay whole.
            index=pd.Index(list(self.datasets), name="dataset", tupleize_cols=False),
        )

    def summary(self) -> str:
        """A plain-text summary: the three probabilities, ``delta0``, diagnostics.

        Returns
        -------
        text : str
        """
        low, high = self.credible_interval(0.95)
        mcse = max(self.monte_carlo_standard_error)
        lines = [
            f"Bayesian hierarchical test: {self.n_datasets} data sets x "
            f"{self.n_scores} scores, rope = {self.rope:g}",
            f"Next data set (most probable region): P(left) = {self.p_left:.3f}, "
            f"P(rope) = {self.p_rope:.3f}, P(right) = {self.p_right:.3f} "
            f"(Monte Carlo s.e. <= {mcse:.3f})",
            "Next data set (posterior predictive): "
            + ", ".join(
                f"P({name}) = {value:.3f}"
                for name, value in zip(("left", "rope", "right"), self.posterior_mean, strict=True)
            ),
            f"delta0: posterior mean {float(np.mean(self.delta0)):.4g}, "
            f"95% credible interval [{low:.4g}, {high:.4g}]",
            f"Sampling: {self.chains} chains, {self.n_samples} draws, max R-hat = "
            f"{self.r_hat:.3f}, min ESS = {self.ess:.0f}, divergences = {self.n_divergences}",
        ]
        return "\n".join(lines)


@validate_params(
    {
        "scores_a": ["array-like"],
        "scores_b": ["array-like"],
        "n_train": [Interval(Real, 0, None, closed="neither"), "array-like"],
        "n_test": [Interval(Real, 0, None, closed="neither"), "array-like"],
        "rope": [Interval(Real, 0, None, closed="left")],
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "n_tune": [Interval(Integral, 0, None, closed="left")],
        "chains": [Interval(Integral, 1, None, closed="left")],
        "cores": [Interval(Integral, 1, None, closed="left")],
        "target_accept": [Interval(Real, 0, 1, closed="neither")],
        "upper_sigma": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state", np.random.Generator],
    },
    prefer_skip_nested_validation=True,
)
def bayesian_hierarchical_test(
    scores_a: ArrayLike,
    scores_b: ArrayLike,
    *,
    n_train: ArrayLike,
    n_test: ArrayLike,
    rope: float = 0.01,
    n_samples: int = 1000,
    n_tune: int = 500,
    chains: int = 2,
    cores: int = 1,
    target_accept: float = 0.9,
    upper_sigma: float = 1000.0,
    random_state: int | np.random.RandomState | np.random.Generator | None = None,
) -> BayesianHierarchicalResult:
    """Bayesian hierarchical test of two classifiers' cross-validation scores over data sets.

    Requires PyMC (``pip install sklearn-precision-stats[bayes]``).

    Parameters
    ----------
    scores_a, scores_b : array-like of shape (n_datasets, n_scores)
        Scores of the two classifiers, one row per data set and one column
        per split of (repeated) cross-validation, on the same splits for
        both (e.g. the ``test_score`` of
        :func:`~sklearn.model_selection.cross_validate` with the same
        ``cv``). Every data set has the same number of scores. A DataFrame
        keeps its index as the data sets' names; two DataFrames must have
        the same index and the same columns (splits). Differences are
        ``scores_a - scores_b``; to pass differences ``d``, use
        ``bayesian_hierarchical_test(d, np.zeros_like(d), ...)``.
    n_train, n_test : float or array-like of shape (n_datasets,)
        Number of training and test records per split (means if they
        vary), one number for all data sets or one per data set; only
        ``n_test / (n_train + n_test)`` matters (``1 / k`` for ``k``-fold
        cross-validation, so ``n_train=k - 1, n_test=1`` will do).
    rope : float, default=0.01
        Half-width of the region of practical equivalence, in the units of
        the scores. 0 gives no rope.
    n_samples : int, default=1000
        Posterior draws kept per chain.
    n_tune : int, default=500
        Tuning (warm-up) iterations per chain, discarded.
    chains : int, default=2
        Number of Markov chains (at least 2 for a meaningful ``r_hat``).
    cores : int, default=1
        Number of processes that run the chains.
    target_accept : float, default=0.9
        Target acceptance rate of NUTS; raise it (e.g. to 0.99) if there
        are divergences.
    upper_sigma : float, default=1000
        The uniform priors of ``sigma_i`` and ``std0`` end at
        ``upper_sigma`` times the mean within-data-set standard deviation
        and the standard deviation of the data sets' means (baycomp's
        ``upper_sigma``).
    random_state : None, int, numpy.random.RandomState or numpy.random.Generator, default=None
        Seed or generator of the chains' seeds (and of the spread of
        constant rows). An int gives the same draws on the same machine
        and versions.

    Returns
    -------
    result : BayesianHierarchicalResult
        ``p_left``, ``p_rope``, ``p_right`` (unpacks as these three) for a
        new data set, the posterior draws (``samples``, ``delta0``,
        ``std0``, ``nu``, ``delta``), ``per_dataset()``,
        ``population_probabilities``, ``credible_interval()``,
        ``summary()`` and the sampler's diagnostics.

    Warns
    -----
    ConvergenceWarning
        When R-hat exceeds 1.01 or some transitions diverged: draw more
        samples, tune longer or raise ``target_accept``.

    Notes
    -----
    The model is that of Corani et al. (2017), with baycomp's priors
    (baycomp's ``HierarchicalTest``). For data set ``i``, the ``n``
    differences ``x_i`` are ``MVN(delta_i 1, sigma_i^2 M)`` with ``M = (1 -
    rho) I + rho 11'`` and ``rho = n_test / (n_train + n_test)``;

    * ``delta_i ~ Student(nu, delta0, std0)``,
    * ``delta0 ~ Uniform(-max|x|, max|x|)``,
    * ``std0 ~ Uniform(0, upper_sigma * sd(mean(x_i)))`` (with one data
      set, the mean within-data-set standard deviation replaces the
      standard deviation of the means),
    * ``sigma_i ~ Uniform(0, upper_sigma * mean(sd(x_i)))``,
    * ``nu - 1 ~ Gamma(alpha, beta)`` (shape, rate) with ``alpha ~
      Uniform(1, 2)`` and ``beta ~ Uniform(0.01, 0.1)``,

    standard deviations with divisor ``n``. ``sigma_i`` is integrated out
    analytically (the likelihood depends on ``x_i`` through its mean and
    sum of squares only), and ``delta_i = delta0 + std0 z_i`` with ``z_i ~
    Student(nu, 0, 1)`` when there are several data sets, an equivalent
    parameterisation that NUTS samples without divergences; the posterior
    is the same as baycomp's. With a single data set the hierarchy is
    vague, and the posterior of ``delta_1`` is Student with ``n - 2``
    degrees of freedom, location ``mean(x_1)`` and the scale of
    :func:`bayesian_correlated_ttest` times ``sqrt((n - 1) / (n - 2))``
    (the uniform prior on ``sigma`` costs one degree of freedom against
    the correlated t test's ``1 / sigma^2``).

    As in baycomp, each posterior draw of ``(delta0, std0, nu)`` gives the
    probabilities ``theta`` that the mean difference ``delta`` of a **new
    data set** (drawn from the fitted Student) lies below, within or above
    the rope; ``p_left``, ``p_rope``, ``p_right`` are the shares of draws in
    which each region has the largest ``theta``. ``posterior_mean`` holds
    the average ``theta`` (the posterior predictive probabilities),
    ``population_probabilities`` the probabilities of ``delta0`` itself,
    and ``per_dataset()`` those of each ``delta_i``, shrunk towards each
    other.

    If a data set's differences do not vary, its likelihood is unbounded
    in ``sigma_i``: as baycomp does, half of them are moved by ``+u`` and
    half by ``-u`` (``u`` uniform in ``(-rope, rope)``; a thousandth of the
    largest difference when ``rope=0``), around their common value (baycomp
    centres them at 0).

    The test needs the fold scores of every data set; with one mean score
    per data set use :func:`bayesian_signed_rank_test`, and with one data
    set, :func:`bayesian_correlated_ttest`. Compared with them, the
    hierarchical model estimates each data set's difference with the
    uncertainty of its cross-validation and shrinks it towards the others,
    which makes fewer false claims on noisy data sets (Corani et al. 2017).
    Its probabilities are Monte Carlo estimates: see
    ``monte_carlo_standard_error`` and raise ``n_samples`` or ``chains``
    for more precision.

    References
    ----------
    Corani, G., Benavoli, A., Demsar, J., Mangili, F. and Zaffalon, M.
    (2017). Statistical comparison of classifiers through Bayesian
    hierarchical modelling. Machine Learning 106, 1817-1837.

    Benavoli, A., Corani, G., Demsar, J. and Zaffalon, M. (2017). Time for a
    change: a tutorial for comparing multiple classifiers through Bayesian
    analysis. Journal of Machine Learning Research 18, 1-36.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_precision_stats.bayesian import bayesian_hierarchical_test
    >>> rng = np.random.default_rng(0)
    >>> b = rng.uniform(0.7, 0.9, size=(6, 1)) + rng.normal(0, 0.02, size=(6, 10))
    >>> a = b + 0.03 + rng.normal(0, 0.01, size=(6, 10))
    >>> res = bayesian_hierarchical_test(
    ...     a, b, n_train=9, n_test=1, rope=0.01, chains=4, random_state=2
    ... )
    >>> p_left, p_rope, p_right = res
    >>> p_right > 0.95
    True

    Four chains of 1000 draws make R-hat reliable; below 1.01 and without
    divergences the sampler has converged (else a ConvergenceWarning says so):

    >>> bool(res.r_hat < 1.01), res.n_divergences
    (True, 0)
    >>> res.samples.shape, res.delta.shape
    ((4000, 3), (4000, 6))
    >>> low, high = res.credible_interval(0.95)
    >>> bool(low < 0.03 < high)
    True
    """
    differences, rho, names, magnitude = _check_inputs(scores_a, scores_b, n_train, n_test)
    _reject_bools(
        n_samples=n_samples,
        n_tune=n_tune,
        chains=chains,
        cores=cores,
        target_accept=target_accept,
        upper_sigma=upper_sigma,
    )
    rope = _check_rope(rope)
    pm, pt, az = _import_backend()
    rng = check_random_state_any(random_state)
    # In units of 2**exponent (exact): the squares of differences near 1e300
    # would overflow and those near 1e-300 underflow.
    (differences,), _, exponent = _rescaled(differences)
    differences, n_constant = _jitter_constant_rows(
        differences, _in_score_units(rope, -exponent), rng, np.ldexp(magnitude, -exponent)
    )
    n_datasets, n = differences.shape

    # Sampled on a unit scale (mean within-data-set sd = 1) for NUTS's step
    # size; the priors scale with the data, so the posterior does not change.
    means = differences.mean(axis=1)
    within = float(differences.std(axis=1).mean())
    x_means = means / within
    ss = ((differences - means[:, None]) ** 2).sum(axis=1) / within**2
    max_diff = float(np.abs(differences).max()) / within
    # baycomp's spread of the means; the within spread (1) when it is undefined.
    among = float(x_means.std()) if n_datasets > 1 else 0.0
    among = among if among > 0 else 1.0

    with _quiet_backend():
        with pm.Model() as model:
            delta0 = pm.Uniform("delta0", -max_diff, max_diff)
            std0 = pm.Uniform("std0", 0.0, upper_sigma * among)
            alpha = pm.Uniform("alpha", 1.0, 2.0)
            beta = pm.Uniform("beta", 0.01, 0.1)
            # nu and the delta_i are computed from the draws after sampling:
            # a Deterministic would cost one more compiled function per call.
            nu = pm.Gamma("nu_minus_one", alpha=alpha, beta=beta) + 1.0
            if n_datasets > 1:
                # Non-centred: without it NUTS diverges in the funnel of
                # std0 near 0 that a few data sets leave in the posterior.
                z = pm.StudentT("z", nu=nu, mu=0.0, sigma=1.0, shape=n_datasets)
                delta = delta0 + std0 * z
            else:
                # One data set leaves std0 to its prior, mostly far above the
                # data's spread: there the centred form mixes and the other
                # does not.
                delta = pm.StudentT("delta", nu=nu, mu=delta0, sigma=std0, shape=1)
            pm.Potential(
                "likelihood",
                _marginal_loglik(pt, delta, x_means, ss, n, rho, upper_sigma * 1.0).sum(),
            )
        seeds = [int(s) for s in rng.integers(0, 2**31 - 1, size=chains)]
        with model:
            idata = pm.sample(
                draws=n_samples,
                tune=n_tune,
                chains=chains,
                cores=cores,
                target_accept=target_accept,
                random_seed=seeds,
                progressbar=False,
                compute_convergence_checks=False,
            )
        checked = ["delta0", "std0", "nu_minus_one", "z" if n_datasets > 1 else "delta"]
        r_hat = float(az.rhat(idata, var_names=checked).to_array().max())
        ess = float(az.ess(idata, var_names=checked).to_array().min())
    posterior = idata.posterior
    n_divergences = int(idata.sample_stats["diverging"].sum())

    def draws(name):
        values = posterior[name].to_numpy()
        return values.reshape(chains * n_samples, *values.shape[2:])

    within = _in_score_units(within, exponent)  # back to the units of the scores
    delta0_draws = draws("delta0") * within
    std0_draws = draws("std0") * within
    nu_draws = draws("nu_minus_one") + 1.0
    if n_datasets > 1:
        delta_draws = delta0_draws[:, None] + std0_draws[:, None] * draws("z")
    else:
        delta_draws = draws("delta") * within
    samples = _region_thetas(rope, nu_draws, delta0_draws, std0_draws)
    winners, p = _most_probable_region(samples)
    # Monte Carlo error of each share from the autocorrelation of its indicator.
    indicators = (winners[None, :] == np.arange(3)[:, None]).reshape(3, chains, n_samples)
    mcse = []
    for region in range(3):
        if p[region] in (0.0, 1.0):
            mcse.append(0.0)
            continue
        with _quiet_backend():
            ess_region = float(az.ess(indicators[region].astype(float)))
        mcse.append(math.sqrt(p[region] * (1.0 - p[region]) / ess_region))

    if r_hat > 1.01 or n_divergences > 0:
        warnings.warn(
            f"The posterior sampler may not have converged (max R-hat = {r_hat:.3f}, "
            f"{n_divergences} divergent transitions); increase n_samples and n_tune, "
            "or target_accept (e.g. 0.99).",
            ConvergenceWarning,
            stacklevel=3,
        )

    return BayesianHierarchicalResult(
        p_left=float(p[0]),
        p_rope=float(p[1]),
        p_right=float(p[2]),
        rope=rope,
        n_datasets=int(n_datasets),
        n_scores=int(n),
        n_samples=int(chains * n_samples),
        chains=int(chains),
        r_hat=r_hat,
        ess=ess,
        n_divergences=n_divergences,
        n_constant=n_constant,
        monte_carlo_standard_error=tuple(mcse),
        datasets=tuple(names),
        samples=samples,
        delta0=delta0_draws,
        std0=std0_draws,
        nu=nu_draws,
        delta=delta_draws,
    )
