"""Result objects: frozen, scipy-style test results and the per-class comparison."""

from ._paired_comparison import PairedComparison

__all__ = ["PairedComparison"]
