"""Paired comparison of any measure of the confusion matrix (F1, MCC, kappa, ...)."""

from ._compare_metric import compare_metric

__all__ = ["compare_metric"]
