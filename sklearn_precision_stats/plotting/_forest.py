"""Forest plot of the differences of a :class:`MetricComparison`, per class.

matplotlib is an optional dependency (the ``plot`` extra): it is imported
when the function is called.
"""

from typing import Any

import numpy as np

from ._precision import _get_ax, _legend, _plain

__all__ = ["plot_metric_differences"]


def plot_metric_differences(
    result: Any, *, confidence_level: float | None = None, ax: Any = None
) -> Any:
    """Draw each class's difference from the reference with its interval.

    One row per class (or average) and compared classifier: the difference
    (classifier minus reference) as a point and its confidence interval as
    a line, with a vertical line at 0 (no difference).

    Parameters
    ----------
    result : MetricComparison
        A comparison, e.g. from :func:`compare_average_precision` or
        :func:`compare_metric`.
    confidence_level : float, default=None
        Level of the intervals; the comparison's own when None.
    ax : matplotlib.axes.Axes, default=None
        Where to draw; a new figure when None.

    Returns
    -------
    ax : matplotlib.axes.Axes
    """
    table = result.to_frame(confidence_level)
    level = result.confidence_level if confidence_level is None else confidence_level
    others = list(result.classifiers[1:])
    n_rows = table.shape[0]
    ax = _get_ax(ax, figsize=(6.4, 1.2 + 0.32 * n_rows))
    # Rows from the top, the classifiers of a class next to each other.
    y = np.arange(n_rows)[::-1].astype(float)
    colors = [f"C{i % 10}" for i in range(len(others))]
    entries = []
    for j, name in enumerate(others):
        rows = (table["classifier"] == name).to_numpy()
        diff = table["diff"].to_numpy()[rows]
        low = table["diff_ci_low"].to_numpy()[rows]
        high = table["diff_ci_high"].to_numpy()[rows]
        ax.hlines(y[rows], low, high, color=colors[j], linewidth=2)
        (points,) = ax.plot(diff, y[rows], "o", color=colors[j])
        entries.append((points, f"{name} - {result.reference}"))
    ax.axvline(0.0, color="0.4", linestyle="--", linewidth=1)
    labels = [
        _plain(c if len(others) == 1 else f"{c}: {k}")
        for c, k in zip(table["class"], table["classifier"], strict=True)
    ]
    ax.set_yticks(y, labels)
    ax.set_ylim(-0.7, n_rows - 0.3)
    ax.set_xlabel(f"difference in {result.measure} ({100 * level:g}% CI)")
    ax.set_ylabel("class")
    if len(others) > 1:
        _legend(ax, entries, loc="best", fontsize="small")
    return ax
