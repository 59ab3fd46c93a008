"""Joint confidence region of the relative PPV and relative NPV.

matplotlib is imported inside the function when called, never when the
package is imported.
"""

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # matplotlib is optional: only for the annotations
    from matplotlib.axes import Axes

    from ..diagnostic import RelativePredictiveValuesResult

__all__ = ["plot_predictive_value_region"]


def plot_predictive_value_region(
    result: "RelativePredictiveValuesResult",
    cls: Hashable,
    classifier: str | None = None,
    *,
    confidence_level: float = 0.95,
    n_points: int = 200,
    ax: "Axes | None" = None,
    **line_kwargs: Any,
) -> "Axes":
    """Plot the joint confidence region of (rPPV, rNPV) of one class.

    The ellipse of the log ratios at the chi-square (2 df) quantile, drawn
    on the ratio scale, with the estimate, the lines rPPV = 1 and rNPV = 1
    and log axes (Moskowitz and Pepe [1]_; R's ``ellipse.pv.rpv``). A
    region that excludes (1, 1) rejects equal PPV and equal NPV jointly.

    Parameters
    ----------
    result : RelativePredictiveValuesResult
        The result of
        :func:`~sklearn_precision_stats.diagnostic.relative_predictive_values`.
    cls : label
        The class.
    classifier : str, default=None
        The compared classifier; the first non-reference one when None.
    confidence_level : float, default=0.95
    n_points : int, default=200
        Points on the boundary.
    ax : matplotlib Axes, default=None
        Axes to draw on; a new figure's when None.
    **line_kwargs
        Passed to ``ax.plot`` for the boundary.

    Returns
    -------
    matplotlib.axes.Axes

    References
    ----------
    .. [1] Moskowitz and Pepe (2006). Comparing the predictive values of
       diagnostic tests: sample size and analysis for paired study designs.
       Clinical Trials 3(3), 272-279.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn_precision_stats.diagnostic import relative_predictive_values
    >>> from sklearn_precision_stats.plotting import plot_predictive_value_region
    >>> y  = [1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0] * 5
    >>> rf = [1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 1] * 5
    >>> nb = [1, 1, 0, 0, 1, 1, 0, 1, 0, 1, 1, 1] * 5
    >>> res = relative_predictive_values(y, {"rf": rf, "nb": nb})
    >>> ax = plot_predictive_value_region(res, 1)
    >>> ax.get_xlabel()
    'relative PPV (nb / rf)'
    """
    if not hasattr(result, "region"):
        raise ValueError(
            "result must be a RelativePredictiveValuesResult (from "
            f"relative_predictive_values); got {type(result).__name__}."
        )
    points = result.region(cls, classifier, confidence_level, n_points)
    j = 0 if classifier is None else list(result.classifiers).index(classifier)
    k = list(result.classes).index(cls)
    name = result.classifiers[j]
    if ax is None:
        try:
            import matplotlib.pyplot as plt
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise ImportError(
                "Plotting needs matplotlib: pip install 'sklearn-precision-stats[plot]'."
            ) from exc
        _, ax = plt.subplots(layout="constrained")
    line_kwargs.setdefault("color", "C0")
    ax.plot(points[:, 0], points[:, 1], label=f"{confidence_level:.0%} region", **line_kwargs)
    ax.plot(
        [result.ratio[k, j, 0]],
        [result.ratio[k, j, 1]],
        "o",
        color=line_kwargs["color"],
        label="estimate",
    )
    ax.axvline(1.0, color="0.6", lw=0.8, ls="--")
    ax.axhline(1.0, color="0.6", lw=0.8, ls="--")
    ax.set_xscale("log")
    ax.set_yscale("log")
    from ._precision import _plain

    ax.set_xlabel(_plain(f"relative PPV ({name} / {result.reference})"))
    ax.set_ylabel(_plain(f"relative NPV ({name} / {result.reference})"))
    # The label as the tables print it (np.int64(1) would show its repr).
    shown = cls.item() if hasattr(cls, "item") else cls
    ax.set_title(_plain(f"class {shown!r}"))
    ax.legend(loc="best", frameon=False)
    return ax
