"""Per-class paired comparisons of classifiers tested on the same records."""

from ._compare import (
    compare_accuracy,
    compare_npv,
    compare_precision,
    compare_recall,
    compare_specificity,
)

__all__ = [
    "compare_accuracy",
    "compare_npv",
    "compare_precision",
    "compare_recall",
    "compare_specificity",
]
