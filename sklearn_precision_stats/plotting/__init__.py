"""Plots of the paper's figures (needs the ``plot`` extra: matplotlib).

matplotlib is imported inside each function when called, never when the
package is imported.
"""

from ._precision import plot_power, plot_relative_precision, plot_replicability

__all__ = ["plot_power", "plot_relative_precision", "plot_replicability"]
