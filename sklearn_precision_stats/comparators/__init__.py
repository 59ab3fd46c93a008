"""The scikit-learn layer: comparator meta-estimators and the scorer."""

from ._cv_comparator import CVPrecisionComparator
from ._paired_comparator import PairedPrecisionComparator
from ._scorer import make_comparison_scorer

__all__ = ["CVPrecisionComparator", "PairedPrecisionComparator", "make_comparison_scorer"]
