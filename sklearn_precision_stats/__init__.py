"""Statistical comparison of classifiers, class by class, with the correlation
that testing on the same records creates taken into account.

Paired comparisons on one test set (or stacked cross-validation rows)
    :func:`compare_precision`, :func:`compare_npv`, :func:`compare_recall`,
    :func:`compare_specificity`, :func:`compare_accuracy` and their frozen
    result :class:`PairedComparison`; :func:`compare_metric` for F1, MCC,
    Cohen's kappa, balanced accuracy or any function of the confusion
    matrix, with its result :class:`MetricComparison`.
    :class:`ComparisonCounts` holds their sufficient statistics, built
    chunk by chunk, merged, or from a contingency table, for data larger
    than memory.

The scikit-learn layer
    :class:`PairedPrecisionComparator` (a train/test split),
    :class:`CVPrecisionComparator` (cross-validation),
    :func:`make_comparison_scorer` (``cross_validate``, ``GridSearchCV``).

Across classes
    :func:`combine_pvalues_dependent`, :class:`GlobalTestResult`,
    :func:`replicability`, :func:`replicability_score`,
    :class:`ReplicabilityResult`; the global null, multiplicity and
    prevalence are methods of the comparison result.

The classic tests
    Accuracy: :func:`mcnemar_test`, :func:`sign_test`. Scores over
    resamples: :func:`paired_ttest_5x2cv`, :func:`combined_ftest_5x2cv`,
    :func:`paired_ttest_kfold_cv`, :func:`paired_ttest_resampled`,
    :func:`corrected_resampled_ttest`, :func:`corrected_repeated_kfold_ttest`,
    :func:`corrected_rm_anova`, :func:`wilcoxon`. ROC:
    :func:`delong_test`, :func:`hanley_mcneil_se`. Calibration:
    :func:`hosmer_lemeshow_test`, :func:`calibration_points`.

Several data sets and Bayesian comparisons
    :func:`friedman_test`, :func:`posthoc_test`,
    :func:`plot_critical_difference`; :func:`bayesian_correlated_ttest`,
    :func:`bayesian_signed_rank_test`, :func:`bayesian_hierarchical_test`
    (with PyMC), :func:`plot_posterior`. Accuracy of
    three or more classifiers on one test set: :func:`cochrans_q_test`.

Diagnostic-test measures (everything R's DTComPair does, per class)
    :func:`diagnostic_accuracy`, :func:`paired_table`,
    :func:`exact_binomial_test`, :func:`sensitivity_specificity_difference`,
    :func:`relative_sensitivity_specificity`, :func:`generalized_mcnemar`,
    :func:`relative_tpf_fpf`, :func:`relative_predictive_values`,
    :func:`compare_likelihood_ratios`, :func:`likelihood_ratio_regression`,
    sample size and power (:func:`sample_size_predictive_values`, ...).

Plots and simulation
    :func:`plot_relative_precision`, :func:`plot_replicability`,
    :func:`plot_power` (the ``plot`` extra); :func:`make_paired_predictions`,
    :func:`rejection_rates`.
"""

import ast as _ast
from typing import TYPE_CHECKING

# The public names are imported on first use (PEP 562), so that importing
# the package, and the command line's --help, stay fast. The imports below
# are the single list of them: type checkers read them, and __getattr__
# reads the same lines to know which module holds each name.
if TYPE_CHECKING:
    from . import diagnostic, plotting, simulation
    from .across_classes import (
        GlobalTestResult,
        ReplicabilityResult,
        combine_pvalues_dependent,
        replicability,
        replicability_score,
    )
    from .bayesian import (
        BayesianCorrelatedTTestResult,
        BayesianHierarchicalResult,
        BayesianSignedRankResult,
        bayesian_correlated_ttest,
        bayesian_hierarchical_test,
        bayesian_signed_rank_test,
    )
    from .classic import (
        CochranQResult,
        ConfidenceInterval,
        DeLongResult,
        FTestResult,
        HosmerLemeshowResult,
        McNemarResult,
        RMAnovaResult,
        SignTestResult,
        TTestResult,
        WilcoxonResult,
        calibration_points,
        cochrans_q_test,
        combined_ftest_5x2cv,
        corrected_repeated_kfold_ttest,
        corrected_resampled_ttest,
        corrected_rm_anova,
        delong_test,
        hanley_mcneil_se,
        hosmer_lemeshow_test,
        mcnemar_test,
        paired_ttest_5x2cv,
        paired_ttest_kfold_cv,
        paired_ttest_resampled,
        sign_test,
        wilcoxon,
    )
    from .comparators import (
        CVPrecisionComparator,
        PairedPrecisionComparator,
        make_comparison_scorer,
    )
    from .diagnostic import (
        DiagnosticAccuracy,
        DLRRegressionResult,
        ExactBinomialResult,
        GeneralizedMcNemarResult,
        LikelihoodRatioComparison,
        RelativeAccuracyResult,
        RelativePredictiveValuesResult,
        SampleSize,
        SeSpDifference,
        compare_likelihood_ratios,
        diagnostic_accuracy,
        exact_binomial_test,
        generalized_mcnemar,
        likelihood_ratio_regression,
        paired_cell_probabilities,
        paired_table,
        power_predictive_values,
        power_sensitivity_specificity,
        relative_predictive_values,
        relative_sensitivity_specificity,
        relative_tpf_fpf,
        sample_size_predictive_values,
        sample_size_sensitivity_specificity,
        sensitivity_specificity_difference,
    )
    from .engine._accumulator import ComparisonCounts
    from .exceptions import UndefinedStatisticWarning
    from .metrics import compare_metric
    from .paired import (
        compare_accuracy,
        compare_npv,
        compare_precision,
        compare_recall,
        compare_specificity,
    )
    from .plotting import (
        plot_critical_difference,
        plot_posterior,
        plot_power,
        plot_precision_recall,
        plot_predictive_value_region,
        plot_relative_precision,
        plot_replicability,
    )
    from .results import PairedComparison
    from .results._metric_comparison import MetricComparison
    from .several_datasets import (
        FriedmanResult,
        PosthocResult,
        friedman_test,
        posthoc_test,
    )
    from .simulation import make_paired_predictions, rejection_rates
    from .threshold_free import (
        compare_average_precision,
        compare_precision_at_recall,
        compare_recall_at_precision,
        compare_roc_auc,
    )

__version__ = "0.1.0"

__all__ = [
    # paired comparisons
    "compare_precision",
    "compare_npv",
    "compare_recall",
    "compare_specificity",
    "compare_accuracy",
    "compare_metric",
    "PairedComparison",
    "MetricComparison",
    # threshold-free comparisons
    "compare_average_precision",
    "compare_precision_at_recall",
    "compare_recall_at_precision",
    "compare_roc_auc",
    "plot_precision_recall",
    "ComparisonCounts",
    "UndefinedStatisticWarning",
    # scikit-learn layer
    "PairedPrecisionComparator",
    "CVPrecisionComparator",
    "make_comparison_scorer",
    # across classes
    "combine_pvalues_dependent",
    "GlobalTestResult",
    "replicability",
    "replicability_score",
    "ReplicabilityResult",
    # classic tests
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
    "cochrans_q_test",
    "CochranQResult",
    # several data sets and Bayesian comparisons
    "friedman_test",
    "posthoc_test",
    "FriedmanResult",
    "PosthocResult",
    "bayesian_correlated_ttest",
    "bayesian_signed_rank_test",
    "bayesian_hierarchical_test",
    "BayesianCorrelatedTTestResult",
    "BayesianHierarchicalResult",
    "BayesianSignedRankResult",
    # diagnostic-test measures (R DTComPair)
    "diagnostic_accuracy",
    "paired_table",
    "exact_binomial_test",
    "sensitivity_specificity_difference",
    "relative_sensitivity_specificity",
    "generalized_mcnemar",
    "relative_tpf_fpf",
    "relative_predictive_values",
    "compare_likelihood_ratios",
    "likelihood_ratio_regression",
    "sample_size_predictive_values",
    "power_predictive_values",
    "sample_size_sensitivity_specificity",
    "power_sensitivity_specificity",
    "paired_cell_probabilities",
    "DiagnosticAccuracy",
    "ExactBinomialResult",
    "SeSpDifference",
    "GeneralizedMcNemarResult",
    "RelativeAccuracyResult",
    "RelativePredictiveValuesResult",
    "LikelihoodRatioComparison",
    "DLRRegressionResult",
    "SampleSize",
    "diagnostic",
    # plots and simulation
    "plot_critical_difference",
    "plot_posterior",
    "plot_predictive_value_region",
    "plot_relative_precision",
    "plot_replicability",
    "plot_power",
    "make_paired_predictions",
    "rejection_rates",
    "plotting",
    "simulation",
]


def _lazy_names() -> dict[str, tuple[str, str | None]]:
    """Public name -> (module, attribute or None for a submodule), read off
    the imports under ``if TYPE_CHECKING`` above."""
    with open(__file__, encoding="utf-8") as handle:
        tree = _ast.parse(handle.read())
    names: dict[str, tuple[str, str | None]] = {}
    for node in tree.body:
        if isinstance(node, _ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for statement in node.body:
                if isinstance(statement, _ast.ImportFrom) and statement.level == 1:
                    for alias in statement.names:
                        if statement.module is None:
                            names[alias.name] = ("." + alias.name, None)
                        else:
                            names[alias.asname or alias.name] = (
                                "." + statement.module,
                                alias.name,
                            )
    return names


_LAZY = _lazy_names()


def __getattr__(name: str) -> object:
    import importlib
    import importlib.util

    if name not in _LAZY:
        # Sub-packages (paired, engine, ...) were attributes of the package
        # when it imported everything; they still are.
        if not name.startswith("__") and importlib.util.find_spec(f"{__name__}.{name}"):
            return importlib.import_module(f".{name}", __name__)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attribute = _LAZY[name]
    value = importlib.import_module(module, __name__)
    if attribute is not None:
        value = getattr(value, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
