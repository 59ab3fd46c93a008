"""Per-class paired comparisons of classifiers tested on the same records."""

from ._compare import compare_precision, compare_recall

__all__ = ["compare_precision", "compare_recall"]
