"""The classic tests: McNemar, sign, resampled and 5x2cv t tests, DeLong, calibration."""

from ..results._base import ConfidenceInterval
from ._calibration import HosmerLemeshowResult, calibration_points, hosmer_lemeshow_test
from ._cochran import CochranQResult, cochrans_q_test
from ._mcnemar import McNemarResult, SignTestResult, mcnemar_test, sign_test
from ._resampled_ttests import (
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
from ._roc import DeLongResult, delong_test, hanley_mcneil_se

__all__ = [
    "CochranQResult",
    "ConfidenceInterval",
    "DeLongResult",
    "FTestResult",
    "HosmerLemeshowResult",
    "McNemarResult",
    "RMAnovaResult",
    "SignTestResult",
    "TTestResult",
    "WilcoxonResult",
    "calibration_points",
    "cochrans_q_test",
    "combined_ftest_5x2cv",
    "corrected_repeated_kfold_ttest",
    "corrected_resampled_ttest",
    "corrected_rm_anova",
    "delong_test",
    "hanley_mcneil_se",
    "hosmer_lemeshow_test",
    "mcnemar_test",
    "paired_ttest_5x2cv",
    "paired_ttest_kfold_cv",
    "paired_ttest_resampled",
    "sign_test",
    "wilcoxon",
]
