"""Threshold-free comparisons: average precision, precision at a recall,
recall at a precision and ROC AUC, paired by the bootstrap (and DeLong)."""

from ._compare import (
    compare_average_precision,
    compare_precision_at_recall,
    compare_recall_at_precision,
    compare_roc_auc,
)

__all__ = [
    "compare_average_precision",
    "compare_precision_at_recall",
    "compare_recall_at_precision",
    "compare_roc_auc",
]
