"""Plots of the paper's figures (needs the ``plot`` extra: matplotlib).

matplotlib is imported inside each function when called, never when the
package is imported.
"""

from ._ellipse import plot_predictive_value_region
from ._precision import plot_power, plot_relative_precision, plot_replicability
from ._precision_recall import plot_precision_recall
from ._several_datasets import plot_critical_difference, plot_posterior

__all__ = [
    "plot_critical_difference",
    "plot_posterior",
    "plot_power",
    "plot_precision_recall",
    "plot_predictive_value_region",
    "plot_relative_precision",
    "plot_replicability",
]
