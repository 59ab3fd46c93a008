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
from ._cross_validation import CVPrecisionComparator  # noqa: E402

__all__ += ["CVPrecisionComparator"]
# --- end cross-validation ---

# --- global null, prevalence, replicability, simulation (issue 4) ---
# global null and prevalence
from ._global_null import GlobalTestResult, combine_pvalues_dependent  # noqa: E402

__all__ += ["GlobalTestResult", "combine_pvalues_dependent"]
# replicability, simulation, plots (matplotlib is imported inside the plot
# functions, never here)
from . import plotting, simulation  # noqa: E402
from ._replicability import (  # noqa: E402
    ReplicabilityResult,
    replicability,
    replicability_score,
)
from .plotting import (  # noqa: E402
    plot_power,
    plot_relative_precision,
    plot_replicability,
)
from .simulation import make_paired_predictions, rejection_rates  # noqa: E402

__all__ += [
    "ReplicabilityResult",
    "replicability",
    "replicability_score",
    "plot_power",
    "plot_relative_precision",
    "plot_replicability",
    "make_paired_predictions",
    "rejection_rates",
]
# --- end global null ---

# --- classic tests (issue 5) ---
from ._calibration import (  # noqa: E402
    HosmerLemeshowResult,
    calibration_points,
    hosmer_lemeshow_test,
)
from ._classic_common import ConfidenceInterval  # noqa: E402
from ._mcnemar import (  # noqa: E402
    McNemarResult,
    SignTestResult,
    mcnemar_test,
    sign_test,
)
from ._resampled_ttests import (  # noqa: E402
    FTestResult,
    RMAnovaResult,
    TTestResult,
    WilcoxonResult,
    combined_ftest_5x2cv,
    corrected_repeated_kfold_ttest,
    corrected_resampled_ttest,
    corrected_rm_anova,
    paired_ttest_5x2cv,
    paired_ttest_kfold_cv,
    paired_ttest_resampled,
    wilcoxon,
)
from ._roc import DeLongResult, delong_test, hanley_mcneil_se  # noqa: E402

__all__ += [
    "mcnemar_test",
    "sign_test",
    "paired_ttest_5x2cv",
    "combined_ftest_5x2cv",
    "paired_ttest_kfold_cv",
    "paired_ttest_resampled",
    "corrected_resampled_ttest",
    "corrected_repeated_kfold_ttest",
    "corrected_rm_anova",
    "wilcoxon",
    "delong_test",
    "hanley_mcneil_se",
    "hosmer_lemeshow_test",
    "calibration_points",
    "ConfidenceInterval",
    "McNemarResult",
    "SignTestResult",
    "TTestResult",
    "FTestResult",
    "RMAnovaResult",
    "WilcoxonResult",
    "DeLongResult",
    "HosmerLemeshowResult",
]
# --- end classic tests ---
