"""Plots for comparisons over several data sets and for the Bayesian tests.

The critical-difference diagram of Demsar (2006) and the posteriors of the
Bayesian correlated t and signed-rank tests (Benavoli et al. 2017).
matplotlib is imported by each function when called.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ._precision import _get_ax, _plain

if TYPE_CHECKING:  # pragma: no cover - for annotations only
    from matplotlib.axes import Axes

    from ..bayesian import (
        BayesianCorrelatedTTestResult,
        BayesianHierarchicalResult,
        BayesianSignedRankResult,
    )
    from ..several_datasets import PosthocResult

__all__ = ["plot_critical_difference", "plot_posterior"]

_LEFT, _ROPE, _RIGHT = "#d95f02", "#9e9e9e", "#1b9e77"


def _control_bars(result, ranks):
    """Bars joining the control to each classifier that does not differ from it."""
    # Positions, not labels: .loc would read a tuple name (MultiIndex
    # columns) as a row and a column level.
    names = list(result.pvalue.columns)
    control = names.index(result.control)
    pvalue = result.pvalue.to_numpy()
    return [
        (result.control, name)
        for name in ranks.index
        if name != result.control and not pvalue[control, names.index(name)] < result.alpha
    ]


def plot_critical_difference(result: PosthocResult, ax: Axes | None = None) -> Axes:
    """Critical-difference diagram of a post-hoc test over data sets.

    The average ranks lie on an axis (rank 1, the best, on the left); each
    classifier's name hangs from its rank, the better half on the left, the
    worse on the right. Thick bars join the classifiers that do not differ
    significantly (``result.groups``). With a ``control``, bars join the
    control to each classifier that does not differ from it. When the
    method has a critical difference (Nemenyi, Bonferroni-Dunn), its length
    is drawn above the axis, as in Demsar (2006), Figures 1 and 2.

    Parameters
    ----------
    result : PosthocResult
        The result of
        :func:`~sklearn_precision_stats.several_datasets.posthoc_test`.
    ax : matplotlib.axes.Axes, default=None
        Axes to draw on; a new figure when None.

    Returns
    -------
    ax : matplotlib.axes.Axes

    References
    ----------
    Demsar, J. (2006). Statistical comparisons of classifiers over multiple
    data sets. Journal of Machine Learning Research 7, 1-30.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from sklearn_precision_stats.several_datasets import posthoc_test
    >>> from sklearn_precision_stats.plotting import plot_critical_difference
    >>> rng = np.random.default_rng(0)
    >>> scores = rng.random((12, 4)) + [0.3, 0.2, 0.1, 0.0]
    >>> ax = plot_critical_difference(posthoc_test(scores))
    >>> ax.get_title()
    'Nemenyi, alpha = 0.05, 12 data sets'
    """
    if not all(hasattr(result, a) for a in ("average_ranks", "groups", "pvalue", "alpha")):
        raise ValueError(
            "result must be the PosthocResult of posthoc_test, got "
            f"{type(result).__name__}; run posthoc_test(scores) first."
        )
    ranks = result.average_ranks.sort_values(kind="stable")
    k = ranks.shape[0]
    n_left = math.ceil(k / 2)
    bars = (
        [(group[0], group[-1]) for group in result.groups]
        if result.control is None
        else _control_bars(result, ranks)
    )
    row = 0.22  # vertical spacing, in axis units below the rank axis
    first_label = 0.35 + row * max(len(bars), 1)
    height = first_label + row * n_left + 0.2
    ax = _get_ax(ax, figsize=(max(6.0, 1.2 * k), 1.3 + 0.55 * height))

    span = k - 1
    x_left, x_right = 1 - 0.12 * span - 0.15, k + 0.12 * span + 0.15

    # The rank axis, with ticks at every integer and half.
    ax.plot([1, k], [0, 0], color="black", lw=1.2)
    for tick in np.arange(1, k + 0.01, 0.5):
        size = 0.1 if tick == int(tick) else 0.05
        ax.plot([tick, tick], [0, -size], color="black", lw=1.2)
        if tick == int(tick):
            ax.text(tick, -0.14, f"{int(tick)}", ha="center", va="bottom", fontsize=10)

    # Critical difference above the axis.
    cd = result.critical_difference
    if np.isfinite(cd):
        y_cd = -0.55
        if result.control is not None:
            # Demsar's Figure 2: the interval of one CD around the control.
            centre = ranks.iloc[list(ranks.index).index(result.control)]
            ax.plot([centre - cd, centre + cd], [y_cd, y_cd], color="black", lw=2.5)
            ax.plot([centre, centre], [y_cd - 0.05, y_cd + 0.05], color="black")
        else:
            centre = 1.0 + cd / 2
            for x in (1.0, 1.0 + cd):
                ax.plot([x, x], [y_cd - 0.05, y_cd + 0.05], color="black", lw=1.2)
            ax.plot([1.0, 1.0 + cd], [y_cd, y_cd], color="black", lw=1.2)
        ax.text(centre, y_cd - 0.08, f"CD = {cd:.3f}", ha="center", va="bottom", fontsize=10)

    # Names: the better half to the left, the worse half to the right.
    for i, (name, rank) in enumerate(ranks.items()):
        if i < n_left:
            y, x_end, ha = first_label + row * i, x_left, "right"
        else:
            y, x_end, ha = first_label + row * (k - 1 - i), x_right, "left"
        ax.plot([rank, rank, x_end], [0, y, y], color="black", lw=0.9)
        text = _plain(name)
        label = f"{text} ({rank:.2f})" if ha == "left" else f"({rank:.2f}) {text}"
        ax.text(x_end + (0.05 if ha == "left" else -0.05), y, label, ha=ha, va="center")

    # Bars joining classifiers that do not differ.
    position = {name: i for i, name in enumerate(ranks.index)}
    for j, (a, b) in enumerate(bars):
        low, high = sorted((ranks.iloc[position[a]], ranks.iloc[position[b]]))
        y = 0.25 + row * j
        ax.plot([low - 0.04, high + 0.04], [y, y], color="black", lw=4, solid_capstyle="butt")

    top = -0.8 if np.isfinite(cd) else -0.45
    ax.set_xlim(x_left - 0.3 * span - 0.8, x_right + 0.3 * span + 0.8)
    ax.set_ylim(height, top)
    ax.axis("off")
    method = {"nemenyi": "Nemenyi", "holm": "Holm", "bonferroni-dunn": "Bonferroni-Dunn"}.get(
        result.method, "Shaffer"
    )
    ax.set_title(f"{method}, alpha = {result.alpha:g}, {result.n_datasets} data sets")
    return ax


def _plot_student(result, ax, names):
    posterior = result.posterior()
    rope = result.rope
    if result.scale > 0:
        low = min(posterior.ppf(0.0005), -1.6 * rope) if rope > 0 else posterior.ppf(0.0005)
        high = max(posterior.ppf(0.9995), 1.6 * rope) if rope > 0 else posterior.ppf(0.9995)
        x = np.linspace(low, high, 600)
        y = posterior.pdf(x)
        ax.plot(x, y, color="black", lw=1.5)
        for mask, color in (
            (x < -rope, _LEFT),
            ((x >= -rope) & (x <= rope), _ROPE),
            (x > rope, _RIGHT),
        ):
            ax.fill_between(x, 0, y, where=mask, color=color, alpha=0.6, lw=0)
    else:
        ax.axvline(result.mean, color="black", lw=2)
    if rope > 0:
        for edge in (-rope, rope):
            ax.axvline(edge, color="black", ls="--", lw=1)
    ax.set_xlabel(f"mean difference of scores, {names[0]} - {names[1]}")
    ax.set_ylabel("posterior density")
    ax.set_title(
        f"P({names[1]} better) = {result.p_left:.3f}, P(rope) = {result.p_rope:.3f}, "
        f"P({names[0]} better) = {result.p_right:.3f}",
        fontsize=10,
    )
    ax.set_ylim(bottom=0)
    return ax


def _plot_simplex(result, ax, names, max_points=5000):
    samples = result.samples
    if samples.shape[0] > max_points:
        # An evenly spaced subsample keeps the picture and the file light.
        samples = samples[np.linspace(0, samples.shape[0] - 1, max_points).astype(int)]
    # Barycentric coordinates: left region bottom left, right region bottom
    # right, rope at the top.
    h = math.sqrt(3) / 2
    x = samples[:, 2] + 0.5 * samples[:, 1]
    y = h * samples[:, 1]
    winner = np.argmax(samples, axis=1)
    colors = np.array([_LEFT, _ROPE, _RIGHT])[winner]
    ax.scatter(x, y, s=3, c=colors, alpha=0.35, lw=0)
    ax.plot([0, 1, 0.5, 0], [0, 0, h, 0], color="black", lw=1.2)
    # Borders of the regions where each theta is the largest.
    centre = (0.5, h / 3)
    for mid in ((0.5, 0.0), (0.75, h / 2), (0.25, h / 2)):
        ax.plot([centre[0], mid[0]], [centre[1], mid[1]], color="black", lw=0.8, ls="--")
    ax.text(0, -0.04, f"{names[1]} better\np = {result.p_left:.3f}", ha="center", va="top")
    ax.text(1, -0.04, f"{names[0]} better\np = {result.p_right:.3f}", ha="center", va="top")
    ax.text(0.5, h + 0.03, f"rope\np = {result.p_rope:.3f}", ha="center", va="bottom")
    ax.set_xlim(-0.2, 1.2)
    ax.set_ylim(-0.2, h + 0.18)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(
        f"{getattr(result, '_plot_method', 'Bayesian signed-rank test')}, "
        f"{result.n_datasets} data sets, rope = {result.rope:g}",
        fontsize=10,
    )
    return ax


def plot_posterior(
    result: BayesianCorrelatedTTestResult | BayesianSignedRankResult | BayesianHierarchicalResult,
    ax: Axes | None = None,
    *,
    names: tuple[str, str] = ("a", "b"),
) -> Axes:
    """Plot the posterior of a Bayesian comparison with its rope.

    For :func:`~sklearn_precision_stats.bayesian.bayesian_correlated_ttest`,
    the Student density of the mean difference, shaded by region, with the
    rope's edges dashed. For
    :func:`~sklearn_precision_stats.bayesian.bayesian_signed_rank_test` and
    :func:`~sklearn_precision_stats.bayesian.bayesian_hierarchical_test`, the
    posterior draws of ``(theta_left, theta_rope, theta_right)`` in the
    probability simplex (a triangle whose corners are the three regions),
    coloured by the region with the largest ``theta``; the dashed lines
    bound those regions (Benavoli et al. 2017, Figure 6).

    Parameters
    ----------
    result : BayesianCorrelatedTTestResult, BayesianSignedRankResult or BayesianHierarchicalResult
        The result to plot.
    ax : matplotlib.axes.Axes, default=None
        Axes to draw on; a new figure when None.
    names : tuple of str, default=("a", "b")
        Names of the classifiers whose scores were ``scores_a`` and
        ``scores_b``.

    Returns
    -------
    ax : matplotlib.axes.Axes

    References
    ----------
    Benavoli, A., Corani, G., Demsar, J. and Zaffalon, M. (2017). Time for a
    change: a tutorial for comparing multiple classifiers through Bayesian
    analysis. Journal of Machine Learning Research 18, 1-36.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn_precision_stats.bayesian import bayesian_correlated_ttest
    >>> from sklearn_precision_stats.plotting import plot_posterior
    >>> a = [0.81, 0.84, 0.79, 0.83, 0.85, 0.80, 0.82, 0.84, 0.83, 0.81]
    >>> b = [0.79, 0.82, 0.80, 0.80, 0.82, 0.79, 0.80, 0.81, 0.82, 0.80]
    >>> res = bayesian_correlated_ttest(a, b, n_train=9, n_test=1)
    >>> ax = plot_posterior(res, names=("svm", "tree"))
    >>> ax.get_xlabel()
    'mean difference of scores, svm - tree'
    """
    try:
        pair = not isinstance(names, str) and len(names) == 2
    except TypeError:  # no len(): a number, None, ...
        pair = False
    if not pair:
        raise ValueError(f"names must hold two names, such as ('svm', 'tree'), got {names!r}.")
    names = (_plain(names[0]), _plain(names[1]))  # a "$" would start mathtext
    if hasattr(result, "samples") and hasattr(result, "p_rope"):
        return _plot_simplex(result, _get_ax(ax, (5.5, 5.0)), names)
    if hasattr(result, "posterior") and hasattr(result, "p_rope"):
        return _plot_student(result, _get_ax(ax, (6.5, 4.0)), names)
    raise ValueError(
        "result must come from bayesian_correlated_ttest, bayesian_signed_rank_test "
        f"or bayesian_hierarchical_test, got {type(result).__name__}."
    )
