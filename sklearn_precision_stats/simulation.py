"""Simulated paired predictions with known precisions, and test power.

Two classifiers are "tested on the same records": their predictions are
correlated through the records they share. This module draws such
predictions from a small generative model in which every quantity that
matters for a precision comparison is set exactly:

* the true class ``D`` has the distribution `prevalence`;
* each classifier's joint distribution of (truth, prediction) has exactly
  the requested per-class `precision`. With two classes the precisions and
  the prevalence fix it. With three or more, the predicted labels follow
  the prevalence (so a class's recall equals its precision) and the errors
  are spread over the other classes as evenly as the margins allow;
* given the true class, the two classifiers' correct/incorrect indicators
  have Pearson (phi) correlation `correlation`. When both are wrong (only
  possible with three or more classes) their wrong labels are drawn
  independently.

For two classes "correct given the true class" is the prediction itself, so
`correlation` is then exactly the correlation between the two classifiers'
predictions within each true class: the conditional dependence that makes
paired tests of precision more powerful than tests for independent
proportions (the paper's Figure 1).

The joint distribution of (truth, prediction 1, prediction 2) is a table of
``n_classes ** 3`` cell probabilities, so a whole simulated test set is one
multinomial draw of that table: :func:`rejection_rates` simulates thousands
of data sets in one vectorised call of the engine.
"""

import itertools
import numbers
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

from ._typing import ArrayLike
from .engine._counts import counts_from_joint_table
from .engine._marginal_model import pairwise_statistics
from .engine._roles import ROLES
from .utils._random_state import check_random_state_any
from .utils._validation import _check_alpha, _check_integer

__all__ = ["make_paired_predictions", "rejection_rates"]

_TESTS = ("gs", "wgs", "wald", "ratio", "z")

# Tolerance for probabilities that should be in [0, 1] but come out of a
# linear solve a few ulps outside it.
_PROB_TOL = 1e-12


def _check_prevalence(prevalence, n_classes):
    """Class probabilities of shape (n_classes,)."""
    if prevalence is None:
        return np.full(n_classes, 1.0 / n_classes)
    if isinstance(prevalence, str) or (
        np.ndim(prevalence) == 0 and not isinstance(prevalence, numbers.Real)
    ):
        raise ValueError(
            f"prevalence must be a number, an array of one probability per class or None, "
            f"got {prevalence!r} of type {type(prevalence).__name__}."
        )
    if np.ndim(prevalence) == 0:
        if n_classes != 2:
            raise ValueError(
                f"prevalence={prevalence!r} is a single number, which only "
                f"defines a binary problem; with n_classes={n_classes} pass "
                "one probability per class (summing to 1) or None for uniform."
            )
        p = float(prevalence)
        if not 0 < p < 1:
            raise ValueError(
                f"prevalence must be strictly between 0 and 1 (the share of "
                f"class 1), got {prevalence!r}."
            )
        return np.array([1.0 - p, p])
    pi = _as_floats(prevalence, "prevalence")
    if pi.shape != (n_classes,):
        raise ValueError(
            f"prevalence must have one entry per class, shape ({n_classes},), got shape {pi.shape}."
        )
    if not np.all(pi > 0) or not np.isclose(pi.sum(), 1.0, rtol=0, atol=1e-9):
        raise ValueError(
            f"prevalence must be positive and sum to 1, got {pi.tolist()} (sum {pi.sum():.6g})."
        )
    return pi / pi.sum()


def _as_floats(values, name):
    """`values` as a float array, or a ValueError naming the argument."""
    try:
        out = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        out = None
    if out is None or isinstance(values, str):
        raise ValueError(
            f"{name} must hold numbers (probabilities), got {type(values).__name__} "
            f"{str(values)[:80]}."
        )
    return out


def _check_precision(precision, n_classes):
    """Precisions of shape (2, n_classes): classifier 1 then classifier 2."""
    prec = _as_floats(precision, "precision")
    if prec.shape == (2,):
        prec = np.repeat(prec[:, None], n_classes, axis=1)
    if prec.shape != (2, n_classes):
        raise ValueError(
            "precision must hold the two classifiers' precisions, as a pair "
            f"(p1, p2) used for every class or an array of shape (2, "
            f"{n_classes}) with one per class, got shape {prec.shape}."
        )
    if not np.all((prec > 0) & (prec < 1)):
        raise ValueError(f"precision values must be strictly between 0 and 1, got {prec.tolist()}.")
    return prec


def _check_correlation(correlation):
    if not isinstance(correlation, numbers.Real) or not -1 <= correlation <= 1:
        raise ValueError(f"correlation must be a number in [-1, 1], got {correlation!r}.")
    return float(correlation)


def _confusion(precision, prevalence):
    """Joint distribution of (truth, prediction) with the given precisions.

    Returns the (K, K) matrix ``M[j, k] = Pr(D = j, x = k)`` whose row sums
    are the prevalence and whose column ``k`` has precision
    ``M[k, k] / sum_j M[j, k] = precision[k]``.

    With two classes these constraints fix ``M``: the share of predictions
    of class 0 is ``q0 = (pi1 - P1) / (1 - P0 - P1)``. With more classes the
    predictions are taken to follow the prevalence (``q = pi``), so
    ``M[k, k] = pi_k P_k`` and the errors, with row and column sums
    ``pi_k (1 - P_k)``, are spread over the off-diagonal cells as evenly as
    those sums allow (iterative proportional fitting from a uniform start).
    """
    K, P, pi = prevalence.shape[0], precision, prevalence
    if K == 2:
        den = 1.0 - P[0] - P[1]
        if abs(den) > 1e-12:
            q0 = (pi[1] - P[1]) / den
        elif abs(pi[1] - P[1]) < 1e-12:
            q0 = pi[0]  # any q0 fits; predictions follow the prevalence
        else:
            q0 = np.nan
        q = np.array([q0, 1.0 - q0])
        M = np.array([[q[0] * P[0], q[1] * (1 - P[1])], [q[0] * (1 - P[0]), q[1] * P[1]]])
        ok = np.isfinite(q0) and 0 < q0 < 1
    else:
        errors = pi * (1 - P)
        # A zero-diagonal table with these row and column sums exists only
        # if no class holds more than half of all errors.
        ok = np.all(errors < errors.sum() - errors)
        E = 1.0 - np.eye(K)
        for _ in range(10_000 if ok else 0):
            E *= (errors / np.maximum(E.sum(axis=1), 1e-300))[:, None]
            E *= (errors / np.maximum(E.sum(axis=0), 1e-300))[None, :]
            if np.allclose(E.sum(axis=1), errors, rtol=1e-12, atol=1e-15):
                break
        ok = ok and np.allclose(E.sum(axis=1), errors, rtol=1e-9, atol=1e-12)
        M = E + np.diag(pi * P)
    # Every class needs true positives, or its precision is 0/0 or 0.
    correct = np.diag(M) / pi
    if not ok or np.any(correct <= _PROB_TOL) or np.any(correct > 1 + _PROB_TOL):
        hint = (
            "with two classes the prevalence of class 1 must lie between "
            "1 - P0 and P1 (so equal precisions of both classes need a "
            "prevalence of 1/2); give one precision per class, e.g. "
            "precision=[[0.9, 0.7], [0.9, 0.6]]"
            if K == 2
            else "no class may hold more than half of the errors prevalence * (1 - precision)"
        )
        raise ValueError(
            f"Precisions {P.tolist()} are not reachable at prevalence "
            f"{pi.tolist()}: {hint}. Change the precisions or the prevalence."
        )
    return np.clip(M, 0.0, None)


def _cell_probabilities(precision, prevalence, correlation):
    """Joint probabilities of (truth, prediction 1, prediction 2).

    Parameters are validated arrays: ``precision`` (2, K), ``prevalence``
    (K,), ``correlation`` a float.

    Returns
    -------
    ndarray of shape (K, K, K)
    """
    pi = prevalence
    M1, M2 = _confusion(precision[0], pi), _confusion(precision[1], pi)
    a1, a2 = np.diag(M1) / pi, np.diag(M2) / pi
    # Where a classifier errs on a record of class k: row k of its errors.
    with np.errstate(divide="ignore", invalid="ignore"):
        e1 = (M1 - np.diag(np.diag(M1))) / (pi - np.diag(M1))[:, None]
        e2 = (M2 - np.diag(np.diag(M2))) / (pi - np.diag(M2))[:, None]
    e1, e2 = np.nan_to_num(e1), np.nan_to_num(e2)
    sd = np.sqrt(a1 * (1 - a1) * a2 * (1 - a2))
    both = a1 * a2 + correlation * sd
    # Frechet bounds of a 2x2 table with margins a1, a2.
    low, high = np.maximum(0.0, a1 + a2 - 1.0), np.minimum(a1, a2)
    bad = (both < low - _PROB_TOL) | (both > high + _PROB_TOL)
    if bad.any():
        with np.errstate(divide="ignore", invalid="ignore"):
            rho_low = np.max(np.where(sd > 0, (low - a1 * a2) / sd, -1.0))
            rho_high = np.min(np.where(sd > 0, (high - a1 * a2) / sd, 1.0))
        raise ValueError(
            f"correlation={correlation} is not possible for these precisions: "
            "given the true class, two classifiers correct with probabilities "
            f"{np.round(a1, 4).tolist()} and {np.round(a2, 4).tolist()} can "
            f"have correlations from {rho_low:.4f} to {rho_high:.4f} only."
        )
    both = np.clip(both, low, high)
    only1, only2 = a1 - both, a2 - both
    neither = 1.0 - a1 - a2 + both
    eye = np.eye(pi.shape[0])
    # cell[k, i, j]: true class k, classifier 1 says i, classifier 2 says j.
    # When both err, their wrong labels are drawn independently.
    cell = (
        both[:, None, None] * eye[:, :, None] * eye[:, None, :]
        + only1[:, None, None] * eye[:, :, None] * e2[:, None, :]
        + only2[:, None, None] * e1[:, :, None] * eye[:, None, :]
        + neither[:, None, None] * e1[:, :, None] * e2[:, None, :]
    )
    cell = np.clip(cell, 0.0, None) * pi[:, None, None]
    return cell / cell.sum()


def make_paired_predictions(
    n_samples: int = 1000,
    *,
    precision: ArrayLike = (0.8, 0.8),
    prevalence: float | ArrayLike | None = None,
    correlation: float = 0.0,
    n_classes: int = 2,
    random_state: int | np.random.Generator | np.random.RandomState | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Generate true labels and two classifiers' correlated predictions.

    The records are independent draws of (true class, prediction 1,
    prediction 2) from a model in which each classifier has exactly the
    requested per-class `precision` and, given the true class, the two
    classifiers' correct/incorrect indicators have Pearson correlation
    `correlation` (see the module docstring).

    Parameters
    ----------
    n_samples : int, default=1000
        Number of records.
    precision : array-like of shape (2,) or (2, n_classes), default=(0.8, 0.8)
        Population precision of classifier 1 and classifier 2: one value per
        classifier used for every class, or one per class.
    prevalence : float or array-like of shape (n_classes,), default=None
        Distribution of the true class; None means uniform. For two classes
        a number is the prevalence of class 1.
    correlation : float, default=0.0
        Pearson (phi) correlation, within each true class, between the
        indicators "classifier 1 is correct" and "classifier 2 is correct".
        For two classes it is the correlation of the two predictions within
        each true class. Its feasible range depends on the precisions; a
        ValueError gives it when the value is out of range.
    n_classes : int, default=2
        Number of classes; labels are ``0, ..., n_classes - 1``.
    random_state : int, Generator, RandomState instance or None, default=None
        Controls the draws. Pass an int for reproducible output.

    Returns
    -------
    y_true : ndarray of shape (n_samples,)
        True labels.
    y_pred_1 : ndarray of shape (n_samples,)
        Predictions of classifier 1.
    y_pred_2 : ndarray of shape (n_samples,)
        Predictions of classifier 2.

    See Also
    --------
    rejection_rates : Size and power of the tests on data from this model.

    Notes
    -----
    With two classes, precisions ``P0, P1`` and prevalence ``pi1`` fix the
    share of records predicted as class 0, ``q0 = (pi1 - P1) / (1 - P0 -
    P1)``, hence the whole confusion matrix; it exists when ``0 < q0 < 1``
    and each class has true positives. With ``K >= 3`` classes the
    predictions follow the prevalence, ``Pr(D = k, x = k) = pi_k P_k``, and
    the errors ``pi_k (1 - P_k)`` are placed off the diagonal by iterative
    proportional fitting; that needs every class's share of the errors to
    be at most one half. A ValueError says when a combination is not
    reachable.

    Examples
    --------
    >>> from sklearn_precision_stats import compare_precision
    >>> from sklearn_precision_stats.simulation import make_paired_predictions
    >>> y, a, b = make_paired_predictions(
    ...     20000, precision=(0.8, 0.7), correlation=0.4, random_state=0)
    >>> result = compare_precision(y, {"b": b, "a": a}, reference="b")
    >>> result.table[["class", "precision", "precision_reference"]].round(2)
       class  precision  precision_reference
    0      0        0.8                  0.7
    1      1        0.8                  0.7
    """
    n_samples = _check_integer(n_samples, "n_samples", 1)
    K = _check_integer(n_classes, "n_classes", 2)
    probs = _cell_probabilities(
        _check_precision(precision, K),
        _check_prevalence(prevalence, K),
        _check_correlation(correlation),
    )
    rng = check_random_state_any(random_state)
    cells = rng.choice(probs.size, size=n_samples, p=probs.ravel())
    y_true, y_pred_1, y_pred_2 = np.unravel_index(cells, probs.shape)
    return y_true, y_pred_1, y_pred_2


def _naive_ztest(successes, totals):
    """Two-proportion z test that treats the two precisions as independent.

    The pooled-variance test of ``statsmodels.stats.proportion.
    proportions_ztest``: ``z = (p1 - p2) / sqrt(p (1 - p) (1/M1 + 1/M2))``
    with ``p`` pooled. Broadcasts over leading axes; the last axis holds the
    two classifiers. NaN where a proportion is undefined or the pooled
    variance is zero.

    Returns
    -------
    stat, pvalue : ndarray
        ``z`` and its two-sided p-value.
    """
    s, m = np.asarray(successes, float), np.asarray(totals, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = s / m
        pooled = s.sum(axis=-1) / m.sum(axis=-1)
        var = pooled * (1 - pooled) * (1 / m[..., 0] + 1 / m[..., 1])
        z = (p[..., 0] - p[..., 1]) / np.where(var > 0, np.sqrt(var), np.nan)
    return z, 2 * stats.norm.sf(np.abs(z))


def _simulated_pvalues(tables, tests, alpha):
    """P-values of `tests` on joint tables of shape (R, K, K, K).

    The tables' axes are (truth, reference, classifier), so every
    statistic compares classifier with reference as in the engine.

    Returns
    -------
    dict test -> ndarray of shape (R, K)
    """
    counts = counts_from_joint_table(tables, 2, ROLES["precision"])
    out = {}
    if set(tests) - {"z"}:
        stats_ = pairwise_statistics(counts)
        for test in tests:
            if test != "z":
                out[test] = stats_[f"{test}_pvalue"][..., 0]
    if "z" in tests:
        # Last axis ordered (classifier, reference), matching the sign of the ratio.
        order = [1, 0]
        totals = counts.successes + counts.failures
        out["z"] = _naive_ztest(counts.successes[..., order], totals[..., order])[1]
    return out


def _as_settings(values, name, check):
    """A scalar or a sequence of settings as a list of checked values."""
    arr = np.asarray(values)
    items = [values] if arr.ndim == 0 else list(values)
    if not items:
        raise ValueError(f"{name} must not be empty.")
    return [check(v) for v in items]


def rejection_rates(
    tests: Sequence[str] = ("gs", "wald", "ratio", "z"),
    *,
    n_samples: int | Sequence[int],
    precision: ArrayLike,
    prevalence: float | ArrayLike | None = None,
    correlation: float | Sequence[float] = 0.0,
    n_classes: int = 2,
    n_simulations: int = 1000,
    alpha: float = 0.05,
    random_state: int | np.random.Generator | np.random.RandomState | None = None,
) -> pd.DataFrame:
    """Rejection rates of precision tests over simulated paired test sets.

    For every combination of `n_samples`, `precision` and `correlation`,
    draws `n_simulations` test sets of the model of
    :func:`make_paired_predictions` and counts, per class, how often each
    test rejects equal precision at level `alpha`: the size under the null
    (equal precisions) and the power under an alternative. A test set is a
    multinomial draw of the joint (truth, prediction 1, prediction 2)
    table, and all draws of a setting go through the engine at once, so
    thousands of simulations take well under a second.

    Parameters
    ----------
    tests : sequence of {"gs", "wgs", "wald", "ratio", "z"}, \
            default=("gs", "wald", "ratio", "z")
        The tests: generalized score (GS), weighted GS, empirical Wald,
        relative precision, and the naive two-proportion z test that
        treats the two precisions as independent (statsmodels'
        ``proportions_ztest`` with pooled variance).
    n_samples : int or sequence of int
        Records per simulated test set.
    precision : array-like of shape (2,), (n_settings, 2) or \
            (n_settings, 2, n_classes)
        Precisions of classifier 1 and classifier 2 (the reference): one
        pair, a list of pairs, or a list of per-class arrays.
    prevalence : float or array-like of shape (n_classes,), default=None
        Distribution of the true class; None means uniform.
    correlation : float or sequence of float, default=0.0
        Correlation between the classifiers' correctness within each true
        class (see :func:`make_paired_predictions`).
    n_classes : int, default=2
        Number of classes.
    n_simulations : int, default=1000
        Simulated test sets per setting.
    alpha : float, default=0.05
        Significance level.
    random_state : int, Generator, RandomState instance or None, default=None
        Controls the draws. Pass an int for reproducible output.

    Returns
    -------
    pandas.DataFrame
        One row per setting, class and test: ``n_samples, correlation,
        class, precision_1, precision_2, percent_difference`` (``100 *
        (precision_1 / precision_2 - 1)``, the paper's Figure 1 x-axis),
        ``test, alpha, n_simulations, n_defined`` (simulations where the
        test is defined), ``n_rejections``, ``rejection_rate``
        (``n_rejections / n_defined``) and ``mc_se``, its binomial
        Monte Carlo standard error.

    See Also
    --------
    make_paired_predictions : Draw one such test set record by record.
    plot_power : Plot the rates against the difference in precision.

    Notes
    -----
    Under positive correlation the paired tests (GS, Wald, RP) account for
    the covariance of the two precisions, which shrinks the variance of
    their difference; the z test ignores it, so it is conservative under
    the null and loses power, as the paper's Figure 1 shows.

    Examples
    --------
    >>> from sklearn_precision_stats.simulation import rejection_rates
    >>> rates = rejection_rates(
    ...     ("gs", "z"), n_samples=500, precision=(0.8, 0.72),
    ...     correlation=0.5, n_simulations=2000, random_state=0)
    >>> power = rates[rates["class"] == 1].set_index("test")["rejection_rate"]
    >>> bool(power["gs"] > power["z"])
    True
    """
    if isinstance(tests, str):
        tests = (tests,)
    tests = tuple(tests)
    unknown = [t for t in tests if t not in _TESTS]
    if unknown or not tests:
        raise ValueError(f"tests must be a non-empty subset of {_TESTS}, got {tests!r}.")
    alpha = _check_alpha(alpha)
    n_simulations = _check_integer(n_simulations, "n_simulations", 1)
    K = _check_integer(n_classes, "n_classes", 2)
    pi = _check_prevalence(prevalence, K)
    sizes = _as_settings(n_samples, "n_samples", lambda n: _check_integer(n, "n_samples", 1))
    correlations = _as_settings(correlation, "correlation", _check_correlation)
    prec = _as_floats(precision, "precision")
    # One pair (2,) or per-class (2, K) would be ambiguous with a list of
    # two pairs, so a single setting is only the 1-D form.
    settings = [prec] if prec.ndim == 1 else list(prec)
    settings = [_check_precision(p, K) for p in settings]

    rng = check_random_state_any(random_state)
    rows = []
    for n, p, rho in itertools.product(sizes, settings, correlations):
        probs = _cell_probabilities(p, pi, rho)
        # Axes (truth, reference = classifier 2, classifier 1) for the engine.
        probs = probs.transpose(0, 2, 1)
        draws = rng.multinomial(n, probs.ravel(), size=n_simulations)
        pvalues = _simulated_pvalues(draws.reshape((n_simulations,) + probs.shape), tests, alpha)
        for test in tests:
            pv = pvalues[test]
            defined = np.isfinite(pv).sum(axis=0)
            rejected = (pv < alpha).sum(axis=0)
            with np.errstate(divide="ignore", invalid="ignore"):
                rate = rejected / defined
            for k in range(K):
                rows.append(
                    {
                        "n_samples": n,
                        "correlation": rho,
                        "class": k,
                        "precision_1": p[0, k],
                        "precision_2": p[1, k],
                        "percent_difference": 100 * (p[0, k] / p[1, k] - 1),
                        "test": test,
                        "alpha": alpha,
                        "n_simulations": n_simulations,
                        "n_defined": int(defined[k]),
                        "n_rejections": int(rejected[k]),
                        "rejection_rate": rate[k],
                        "mc_se": np.sqrt(rate[k] * (1 - rate[k]) / defined[k])
                        if defined[k]
                        else np.nan,
                    }
                )
    return pd.DataFrame(rows)
