"""Statistical comparison of classifiers, class by class, with the correlation
that testing on the same records creates taken into account.

The main entry points are :func:`compare_precision` (predictions you already
have), :class:`PairedPrecisionComparator` (a train/test split) and
:class:`CVPrecisionComparator` (cross-validation).
"""

from .exceptions import UndefinedStatisticWarning

__version__ = "0.1.0"

__all__ = ["UndefinedStatisticWarning"]

# --- core engine (issue 2) ---
from ._results import PrecisionComparison  # noqa: E402
from ._compare import compare_precision, compare_recall  # noqa: E402
from ._comparators import PairedPrecisionComparator  # noqa: E402
from ._scorer import make_comparison_scorer  # noqa: E402

__all__ += [
    "PrecisionComparison",
    "compare_precision",
    "compare_recall",
    "PairedPrecisionComparator",
    "make_comparison_scorer",
]
# --- end core engine ---

# --- cross-validation (issue 3) ---
# --- end cross-validation ---

# --- global null, prevalence, replicability, simulation (issue 4) ---
# --- end global null ---

# --- classic tests (issue 5) ---
# --- end classic tests ---
