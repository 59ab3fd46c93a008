"""Plots of precision comparisons: the paper's Figures 1, 2 and 3.

matplotlib is an optional dependency (``pip install
sklearn-precision-stats[plot]``): it is imported by each function when
called, never when the package is imported.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..results._base import name_array

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from ..across_classes._replicability import ReplicabilityResult
    from ..results._paired_comparison import PairedComparison

__all__ = ["plot_relative_precision", "plot_replicability", "plot_power"]

_TEST_NAMES = {"gs": "GS", "wgs": "WGS", "wald": "Wald", "ratio": "RP", "z": "Z test"}

# The ratio and its interval, the same columns for every measure.
_CI_COLUMNS = ("ratio", "ratio_ci_low", "ratio_ci_high")
_MEASURES = ("precision", "npv", "recall", "specificity", "accuracy")


def _get_ax(ax, figsize=None):
    """`ax`, or the Axes of a new figure when None (as scikit-learn's displays)."""
    if ax is not None:
        return ax
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ImportError(
            "Plotting needs matplotlib: pip install 'sklearn-precision-stats[plot]'."
        ) from exc
    _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def _plain(value):
    """`value` as text matplotlib shows as such: ``$`` would start mathtext.

    A class named "$0-$50" would otherwise print as math (or fail to draw).
    """
    return str(value).replace("$", r"\$")


def _legend(ax, entries, **kwargs):
    """A legend of the artists already labelled on `ax`, then `entries` in order.

    `entries` are (artist, text) pairs; their texts may start with an
    underscore (a classifier "_baseline"), which ``ax.legend()`` would leave
    out as matplotlib's mark of an artist kept out of legends.
    """
    ours = [artist for artist, _ in entries]
    handles, labels = [], []
    for handle, text in zip(*ax.get_legend_handles_labels(), strict=True):
        if handle not in ours:
            handles.append(handle)
            labels.append(text)
    handles += ours
    labels += [_plain(text) for _, text in entries]
    return ax.legend(handles, labels, **kwargs)


def _forest_frame(comparison):
    """Rows of a forest plot from a comparison, a mapping of them, or a table."""
    if isinstance(comparison, Mapping):
        if not comparison:
            raise ValueError("comparison is an empty mapping; pass at least one result.")
        frames, metrics = [], set()
        for name, item in comparison.items():
            frame, metric = _forest_frame(item)
            frames.append(frame.assign(dataset=str(name)))
            metrics.add(metric)
        if len(metrics) > 1:
            raise ValueError(f"comparison mixes measures ({sorted(metrics)}); plot them apart.")
        return pd.concat(frames, ignore_index=True), metrics.pop()
    if hasattr(comparison, "table") and hasattr(comparison, "metric"):
        return comparison.table.copy(), comparison.metric
    if isinstance(comparison, pd.DataFrame) and set(_CI_COLUMNS) <= set(comparison.columns):
        metric = next((m for m in _MEASURES if m in comparison.columns), "precision")
        return comparison.copy(), metric
    raise ValueError(
        "comparison must be a PairedComparison, a dict name -> "
        "PairedComparison, or its .table (a DataFrame with columns ratio, "
        f"ratio_ci_low and ratio_ci_high); got {type(comparison).__name__}."
    )


def _log_ticks(ax, low, high, n_ticks=6):
    """Readable ticks (0.8, 0.9, 1, 1.1, ...) on a log axis spanning [low, high].

    Ticks are taken from round numbers, outward from 1, each at least a
    sixth of the axis (in log) from the previous, so they look evenly spaced.
    """
    from matplotlib.ticker import FixedLocator, NullFormatter, NullLocator

    rounds = np.array(
        [
            0.01,
            0.02,
            0.05,
            0.1,
            0.2,
            0.3,
            0.4,
            0.5,
            0.6,
            0.7,
            0.75,
            0.8,
            0.85,
            0.9,
            0.95,
            1.0,
            1.05,
            1.1,
            1.2,
            1.3,
            1.4,
            1.5,
            1.75,
            2.0,
            3.0,
            4.0,
            5.0,
            10.0,
            20.0,
            50.0,
            100.0,
        ]
    )
    # Decades beyond, for very wide intervals.
    rounds = np.union1d(rounds, 10.0 ** np.arange(-8, 9))
    gap = (np.log(high) - np.log(low)) / n_ticks
    ticks = [1.0] if low <= 1.0 <= high else []
    for side in (rounds[rounds > 1.0], rounds[rounds < 1.0][::-1]):
        last = 1.0
        for value in side:
            if low <= value <= high and abs(np.log(value) - np.log(last)) >= gap * 0.8:
                ticks.append(value)
                last = value
    if len(ticks) < 3:
        # A narrow axis (all intervals near 1): three evenly spaced ticks,
        # with the significant digits that tell them apart.
        inner = np.exp(np.linspace(np.log(low), np.log(high), 5)[1:-1])
        for digits in range(3, 16):
            ticks = np.unique([float(f"{v:.{digits}g}") for v in inner])
            if len(ticks) == 3:
                break
    ax.xaxis.set_major_locator(FixedLocator(sorted(ticks)))
    ax.xaxis.set_major_formatter(lambda x, _: f"{x:g}")
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())


def plot_relative_precision(
    comparison: PairedComparison | Mapping[str, PairedComparison] | pd.DataFrame,
    *,
    classifier: Hashable | Sequence[Hashable] | None = None,
    ax: Axes | None = None,
    log_scale: bool = True,
    annotate: bool = True,
    color: str = "C0",
    marker: str = "s",
) -> Axes:
    """Forest plot of relative precision with confidence intervals.

    One row per class (and compared classifier, and data set): a marker at
    the relative precision ``classifier / reference``, a horizontal line for
    its confidence interval, and a dashed reference line at 1. Intervals
    that do not cross the line are significant at the comparison's level;
    their markers are filled, the others hollow. This is the paper's
    Figure 2.

    Parameters
    ----------
    comparison : PairedComparison, dict of str -> PairedComparison, \
            or DataFrame
        A result of :func:`compare_precision` (or :func:`compare_recall`,
        which plots the relative recall), several of them by data set name
        (grouped top to bottom in the dict's order), or a ``.table`` with
        the columns ``class, ratio, ratio_ci_low, ratio_ci_high`` (and optionally
        ``classifier``, ``reference``, ``dataset``).
    classifier : hashable or list of hashable, default=None
        Keep only this compared classifier (a name: a str, or a tuple for
        a DataFrame's MultiIndex columns) or the ones in this list; all
        when None.
    ax : matplotlib Axes, default=None
        Axes to draw on; a new figure when None.
    log_scale : bool, default=True
        Log x-axis, on which a ratio and its inverse are equally far from 1
        and the Wald intervals (built on the log scale) are symmetric.
    annotate : bool, default=True
        Write "RP (low, high)" at the right of each row.
    color : color, default="C0"
        Colour of markers and intervals.
    marker : str, default="s"
        Marker of the point estimates (the paper's boxes).

    Returns
    -------
    matplotlib.axes.Axes

    See Also
    --------
    compare_precision : Compute the relative precision and its interval.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn_precision_stats import compare_precision, plot_relative_precision
    >>> from sklearn_precision_stats.simulation import make_paired_predictions
    >>> y, a, b = make_paired_predictions(
    ...     2000, precision=[[0.7, 0.75, 0.8], [0.75, 0.75, 0.75]], n_classes=3,
    ...     random_state=0)
    >>> result = compare_precision(y, {"rf": b, "nb": a}, reference="rf")
    >>> ax = plot_relative_precision(result)
    >>> len(ax.get_yticks())
    3
    >>> ax.figure.savefig("forest.png")  # doctest: +SKIP
    """
    frame, metric = _forest_frame(comparison)
    ratio, low_col, high_col = _CI_COLUMNS
    name = metric if metric != "npv" else "NPV"
    if classifier is not None and "classifier" in frame:
        # One name is any hashable, a tuple too (a DataFrame's MultiIndex
        # column), as in pandas' indexing; a list holds several.
        keep = [classifier] if isinstance(classifier, Hashable) else list(classifier)
        names = list(dict.fromkeys(frame["classifier"]))
        missing = [k for k in keep if k not in names]
        if missing:
            raise ValueError(
                f"classifier {', '.join(map(repr, missing))} not in the comparison; "
                f"pass one of its compared classifiers ({', '.join(map(repr, names))}) "
                "or a list of them."
            )
        frame = frame[frame["classifier"].isin(name_array(keep))]
    if frame.empty:
        raise ValueError("Nothing to plot: the comparison has no rows.")
    ax = _get_ax(ax, figsize=(7.5, 1.2 + 0.38 * len(frame)))

    labels = []
    several = "classifier" in frame and frame["classifier"].nunique() > 1  # noqa: PD101 (object columns)
    for _, row in frame.iterrows():
        label = f"class {row['class']}"
        if several:
            label += f": {row['classifier']}"
        if "dataset" in frame:
            label = f"{row['dataset']}, {label}"
        labels.append(_plain(label))
    est = frame[ratio].to_numpy(float)
    low = frame[low_col].to_numpy(float)
    high = frame[high_col].to_numpy(float)
    y = np.arange(len(frame))[::-1].astype(float)  # first row on top

    ax.hlines(y, low, high, color=color, linewidth=1.6, zorder=2)
    significant = (low > 1) | (high < 1)
    ax.plot(
        est,
        y,
        linestyle="none",
        marker=marker,
        markersize=7,
        color=color,
        markerfacecolor="none",
        markeredgewidth=1.4,
        zorder=3,
        label="_estimates",
    )
    # Significant estimates are filled in over the hollow markers.
    ax.plot(
        est[significant],
        y[significant],
        linestyle="none",
        marker=marker,
        markersize=7,
        color=color,
        zorder=4,
        label="_significant",
    )
    ax.axvline(1.0, color="0.15", linestyle="--", linewidth=1.2, zorder=1)
    if "dataset" in frame:
        # Thin separators between data sets.
        change = np.flatnonzero(frame["dataset"].to_numpy()[1:] != frame["dataset"].to_numpy()[:-1])
        for i in change:
            ax.axhline(y[i] - 0.5, color="0.85", linewidth=0.8, zorder=0)

    ax.set_yticks(y)
    ax.set_yticklabels(labels)
    ax.set_ylim(-0.7, len(frame) - 0.3)
    bounds = np.concatenate([low, high])
    # A bound of 0 (a precision of 0) has no place on a log axis.
    shown = np.isfinite(bounds) & (bounds > 0 if log_scale else True)
    finite = np.concatenate([bounds[shown], [1.0]])
    lo, hi = finite.min(), finite.max()
    if log_scale:
        ax.set_xscale("log")
        pad = (np.log(hi) - np.log(lo)) * 0.08 or 0.05
        ax.set_xlim(np.exp(np.log(lo) - pad), np.exp(np.log(hi) + pad))
        _log_ticks(ax, *ax.get_xlim())
    else:
        pad = (hi - lo) * 0.08 or 0.05
        ax.set_xlim(lo - pad, hi + pad)
    ref = frame["reference"].iloc[0] if "reference" in frame else "reference"
    clf = frame["classifier"].iloc[0] if "classifier" in frame and not several else "classifier"
    first = next(iter(comparison.values())) if isinstance(comparison, Mapping) else comparison
    level = getattr(first, "confidence_level", None)
    ci = f"{100 * level:g}% CI" if level is not None else "CI"
    ax.set_xlabel(_plain(f"Relative {name}, {clf} / {ref} ({ci})"))
    if annotate:
        from matplotlib.transforms import blended_transform_factory

        trans = blended_transform_factory(ax.transAxes, ax.transData)
        for yi, e, lo_i, hi_i in zip(y, est, low, high, strict=False):
            text = f"{e:.2f} ({lo_i:.2f}, {hi_i:.2f})" if np.isfinite(e) else "undefined"
            ax.text(1.02, yi, text, transform=trans, va="center", ha="left", fontsize="small")
        ax.text(
            1.02,
            1.0,
            f"{ratio.upper()} ({ci})",
            transform=ax.transAxes,
            va="bottom",
            ha="left",
            fontsize="small",
            fontweight="bold",
        )
    ax.grid(axis="x", color="0.93", zorder=0)
    ax.set_axisbelow(True)
    return ax


def _replicability_table(result):
    if hasattr(result, "table") and hasattr(result, "experiments"):
        return result.table, result
    if isinstance(result, pd.DataFrame) and {"sample_size", "test_size", "replicability"} <= set(
        result.columns
    ):
        return result, None
    raise ValueError(
        "result must be a ReplicabilityResult or its .table (columns "
        f"sample_size, test_size, replicability); got {type(result).__name__}."
    )


def plot_replicability(
    result: ReplicabilityResult | pd.DataFrame,
    *,
    ax: Axes | None = None,
    rejection_rate: bool = False,
) -> Axes:
    """Replicability against the test proportion, one line per sample size.

    The paper's Figure 3: how often two repetitions of the same experiment
    (other random subsample and split) reach the same conclusion.

    Parameters
    ----------
    result : ReplicabilityResult or DataFrame
        The output of :func:`replicability` or its ``.table``.
    ax : matplotlib Axes, default=None
        Axes to draw on; a new figure when None.
    rejection_rate : bool, default=False
        Also draw each setting's share of rejections (dotted, same colour):
        replicability is high both when nearly all experiments reject and
        when nearly none do, and this tells the two apart.

    Returns
    -------
    matplotlib.axes.Axes

    See Also
    --------
    replicability : Run the experiments.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pandas as pd
    >>> from sklearn_precision_stats import plot_replicability
    >>> table = pd.DataFrame({
    ...     "sample_size": [600, 600, 300, 300], "test_size": [0.2, 0.4] * 2,
    ...     "replicability": [0.8, 1.0, 0.5, 0.6]})
    >>> ax = plot_replicability(table)
    >>> len(ax.get_lines())
    2
    """
    table, res = _replicability_table(result)
    if table.empty:
        raise ValueError("Nothing to plot: the replicability table is empty.")
    if rejection_rate and "rejection_rate" not in table:
        raise ValueError("rejection_rate=True needs a table with a rejection_rate column.")
    ax = _get_ax(ax)
    n_max = table["sample_size"].max()
    sizes = sorted(table["sample_size"].unique(), reverse=True)
    markers = "osD^v<>p"
    for i, size in enumerate(sizes):
        rows = table[table["sample_size"] == size].sort_values("test_size")
        x = 100 * rows["test_size"].to_numpy(float)
        share = f" ({100 * size / n_max:.0f}%)" if len(sizes) > 1 else ""
        (line,) = ax.plot(
            x,
            rows["replicability"],
            marker=markers[i % len(markers)],
            label=f"n = {size}{share}",
        )
        if rejection_rate:
            ax.plot(
                x,
                rows["rejection_rate"],
                linestyle=":",
                color=line.get_color(),
                label="_rejection_rate",
            )
    # Replicability is at least about 0.5 (half the experiments rejecting);
    # rejection rates span [0, 1].
    floor = 0.45 if table["replicability"].min() >= 0.45 and not rejection_rate else -0.02
    ax.set_ylim(floor, 1.03)
    ax.set_xlabel("Test set proportion (%)")
    ylabel = "Replicability"
    if rejection_rate:
        ylabel += " (solid), rejection rate (dotted)"
    ax.set_ylabel(ylabel)
    title = "Replicability"
    if res is not None:
        test = _TEST_NAMES.get(res.test, res.test)
        title += f" of {test}, class {res.label} ({res.classifier} vs {res.reference})"
    ax.set_title(_plain(title), fontsize="medium")
    ax.legend(title="Total sample size", fontsize="small", title_fontsize="small")
    ax.grid(color="0.92")
    return ax


def plot_power(
    rates: pd.DataFrame,
    *,
    ax: Axes | None = None,
    label: Hashable | None = None,
    x: str = "percent_difference",
) -> Axes:
    """Rejection rate of each test against the difference in precision.

    The paper's Figure 1: one line per test (colour) and sample size (line
    style), with the nominal level as a dotted line. Under the null
    (difference 0) a rate is the test's size, elsewhere its power.

    Parameters
    ----------
    rates : DataFrame
        The output of :func:`~sklearn_precision_stats.simulation.rejection_rates`.
    ax : matplotlib Axes, default=None
        Axes to draw on; a new figure when None.
    label : hashable, default=None
        The class to plot; with two classes, class 1 when None. Needed with
        more classes unless `rates` holds a single one.
    x : str, default="percent_difference"
        Column on the x-axis, e.g. ``"correlation"`` or ``"n_samples"``.

    Returns
    -------
    matplotlib.axes.Axes

    See Also
    --------
    sklearn_precision_stats.simulation.rejection_rates : Compute the rates.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn_precision_stats import plot_power
    >>> from sklearn_precision_stats.simulation import rejection_rates
    >>> rates = rejection_rates(
    ...     ("gs", "z"), n_samples=[100, 1000],
    ...     precision=[(0.7 * (1 + d / 100), 0.7) for d in range(0, 25, 5)],
    ...     correlation=0.5, n_simulations=500, random_state=0)
    >>> ax = plot_power(rates)
    >>> len(ax.get_lines())  # 2 tests x 2 sizes, and the level
    5
    """
    needed = {"test", "n_samples", "class", "rejection_rate", x}
    if not isinstance(rates, pd.DataFrame) or not needed <= set(rates.columns):
        raise ValueError(
            "rates must be the DataFrame returned by rejection_rates, with "
            f"columns {sorted(needed)}."
        )
    classes = list(pd.unique(rates["class"]))
    if label is None:
        if len(classes) == 1:
            label = classes[0]
        elif len(classes) == 2 and 1 in classes:
            label = 1
        else:
            raise ValueError(f"label is needed: rates holds classes {classes}; pass one.")
    elif label not in classes:
        raise ValueError(f"label={label!r} is not in rates; its classes are {classes}.")
    data = rates[rates["class"] == label]
    ax = _get_ax(ax)
    groups = ["test", "n_samples"]
    # Any other setting that varies (correlation, say) gets its own lines too.
    for col in ("correlation", "percent_difference"):
        if col != x and data[col].nunique() > 1:  # noqa: PD101 (object columns)
            groups.append(col)
    tests = list(pd.unique(data["test"]))
    sizes = sorted(pd.unique(data["n_samples"]))
    styles = ["-", "--", "-.", ":"]
    markers = "os^Dv"
    for key, rows in data.groupby(groups, sort=False):
        setting = dict(zip(groups, key, strict=False))
        rows = rows.sort_values(x)
        ti, si = tests.index(setting["test"]), sizes.index(setting["n_samples"])
        text = f"{_TEST_NAMES.get(setting['test'], setting['test'])}, n = {setting['n_samples']}"
        text += "".join(f", {c} = {setting[c]:g}" for c in groups[2:])
        ax.plot(
            rows[x],
            rows["rejection_rate"],
            color=f"C{ti}",
            linestyle=styles[si % 4],
            marker=markers[si % len(markers)],
            markersize=4,
            label=text,
        )
    if "alpha" in data:
        level = float(data["alpha"].iloc[0])
        ax.axhline(level, color="0.4", linestyle=":", linewidth=1, label=f"alpha = {level:g}")
    ax.set_ylim(-0.02, 1.02)
    xlabels = {
        "percent_difference": "Difference in precision (%)",
        "correlation": "Correlation between the classifiers",
        "n_samples": "Test set size",
    }
    ax.set_xlabel(xlabels.get(x, x))
    ax.set_ylabel("Rejection rate")
    ax.legend(fontsize="small")
    ax.grid(color="0.92")
    return ax
