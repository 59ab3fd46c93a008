"""Precision-recall curves of a threshold-free comparison, with bootstrap bands.

matplotlib is an optional dependency (the ``plot`` extra): it is imported
when the function is called.
"""

from collections.abc import Hashable
from typing import Any

import numpy as np

from ._precision import _get_ax, _legend, _plain

__all__ = ["plot_precision_recall"]


def plot_precision_recall(
    result: Any, label: Hashable | None = None, *, band: bool = True, ax: Any = None
) -> Any:
    """Draw each classifier's precision-recall curve with a pointwise bootstrap band.

    The curve is the interpolated precision: at each recall r, the largest
    precision among thresholds whose recall is at least r (the measure of
    :func:`compare_precision_at_recall`), on a grid of 101 recalls. The band
    is the percentile interval of that precision over the comparison's
    bootstrap replicates, at each recall separately (pointwise, not a
    simultaneous band).

    Parameters
    ----------
    result : MetricComparison
        The result of :func:`compare_average_precision`,
        :func:`compare_precision_at_recall`,
        :func:`compare_recall_at_precision` or :func:`compare_roc_auc`
        (with ``method="bootstrap"``), with ``average=None`` or ``"micro"``
        (one curve per row).
    label : hashable, default=None
        The class to draw; may be omitted when the comparison has one.
    band : bool, default=True
        Draw the bootstrap bands.
    ax : matplotlib.axes.Axes, default=None
        Where to draw; a new figure when None.

    Returns
    -------
    ax : matplotlib.axes.Axes
    """
    curves = getattr(result, "curves", None)
    if curves is None:
        if getattr(result, "method", None) == "delong":
            raise ValueError(
                "result is a DeLong comparison, which keeps no precision-recall curves; "
                "pass the result of compare_roc_auc(..., method='bootstrap') or of "
                "compare_average_precision."
            )
        raise ValueError(
            "result holds no precision-recall curves; pass the result of "
            "compare_average_precision (or another threshold-free comparison) with "
            "average=None or average='micro'."
        )
    classes = np.asarray(result.classes).tolist()
    if label is None:
        if len(classes) > 1:
            raise ValueError(f"label is needed: pass one of the classes {classes}.")
        index = 0
    elif label in classes:
        index = classes.index(label)
    else:
        raise ValueError(f"label={label!r} is not a class of result; use one of {classes}.")
    recall = curves["recall"]
    ax = _get_ax(ax)
    entries = []
    for j, name in enumerate(result.classifiers):
        color = f"C{j % 10}"
        (line,) = ax.step(recall, curves["precision"][j, index], where="pre", color=color)
        entries.append((line, str(name)))
        if band and curves.get("low") is not None:
            ax.fill_between(
                recall,
                curves["low"][j, index],
                curves["high"][j, index],
                step="pre",
                color=color,
                alpha=0.2,
                linewidth=0,
            )
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("recall")
    ax.set_ylabel("precision")
    shown = "" if len(classes) == 1 and label is None else f" (class {classes[index]})"
    level = f", {100 * result.confidence_level:g}% pointwise bootstrap bands" if band else ""
    ax.set_title(_plain(f"Precision-recall{shown}{level}"), fontsize="medium")
    _legend(ax, entries, loc="lower left")
    return ax
