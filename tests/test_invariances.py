"""Invariances of every comparison family (property-based, with hypothesis).

For each public family: swapping the two classifiers (differences negate,
ratios invert, p-values stay, intervals mirror), permuting the rows,
relabelling the classes by a bijection, identical repeats of each record
grouped by record, the order of the rows within groups and, for the
threshold-free measures, strictly increasing transforms of the scores.
"""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sklearn_precision_stats import (
    compare_accuracy,
    compare_average_precision,
    compare_metric,
    compare_npv,
    compare_precision,
    compare_precision_at_recall,
    compare_recall,
    compare_recall_at_precision,
    compare_roc_auc,
    compare_specificity,
    delong_test,
    mcnemar_test,
)
from sklearn_precision_stats.diagnostic import (
    compare_likelihood_ratios,
    diagnostic_accuracy,
    relative_predictive_values,
    sensitivity_specificity_difference,
)
from sklearn_precision_stats.exceptions import UndefinedStatisticWarning

SETTINGS = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
NAMES = np.array(["ant", "bee", "cow", "dog"])
GEE = {
    "precision": compare_precision,
    "npv": compare_npv,
    "recall": compare_recall,
    "specificity": compare_specificity,
    "accuracy": compare_accuracy,
}
PVALUES = ["gs_pvalue", "wgs_pvalue", "wald_pvalue", "ratio_pvalue"]
COV_TYPES = ["robust", "bias_reduced"]


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def close(a, b, rtol=1e-9, atol=1e-12):
    np.testing.assert_allclose(
        np.asarray(a, float), np.asarray(b, float), rtol=rtol, atol=atol, equal_nan=True
    )


def same_columns(a, b, columns, rtol=1e-9, atol=1e-12):
    for column in columns:
        close(a[column], b[column], rtol=rtol, atol=atol)


def numeric(table):
    return [c for c in table.columns if c not in ("class", "classifier", "reference")]


@st.composite
def labelled(draw, n_classes=3, min_n=12, max_n=60):
    """Truth and two correlated classifiers' labels, every class in the truth."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if draw(st.booleans()):
        # Small and degenerate: classes missing from the truth or never
        # predicted, classifiers that agree everywhere.
        n = draw(st.integers(min(4, min_n), 10))
        codes = st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n)
        y, a, b = (np.array(draw(codes)) for _ in range(3))
        if draw(st.booleans()):
            b = a.copy()
    else:
        n = draw(st.integers(min_n, max_n))
        y = rng.integers(0, n_classes, n)
        y[:n_classes] = np.arange(n_classes)
        a = np.where(rng.random(n) < 0.7, y, rng.integers(0, n_classes, n))
        other = np.where(rng.random(n) < 0.6, y, rng.integers(0, n_classes, n))
        b = np.where(rng.random(n) < 0.5, a, other)
    groups = rng.integers(0, max(2, n // 3), n)
    return y, a, b, groups, rng


def mirrored_interval(low_ab, high_ab, low_ba, high_ba, *, ratio, rtol=1e-9, atol=1e-12):
    if ratio:
        close(low_ab, 1 / np.asarray(high_ba, float), rtol=rtol)
        close(high_ab, 1 / np.asarray(low_ba, float), rtol=rtol)
    else:
        close(low_ab, -np.asarray(high_ba, float), rtol=rtol, atol=atol)
        close(high_ab, -np.asarray(low_ba, float), rtol=rtol, atol=atol)


# compare_precision / npv / recall / specificity / accuracy ----------------------


@SETTINGS
@given(labelled(), st.sampled_from(sorted(GEE)), st.sampled_from(COV_TYPES), st.booleans())
def test_gee_swapping_the_classifiers(data, measure, cov_type, grouped):
    y, a, b, groups, _ = data
    kwargs = {"cov_type": cov_type, "groups": groups if grouped else None}
    ab = quiet(GEE[measure], y, {"a": a, "b": b}, reference="a", **kwargs).table
    ba = quiet(GEE[measure], y, {"a": a, "b": b}, reference="b", **kwargs).table
    same_columns(ab, ba, PVALUES + ["gs_stat", "wgs_stat", "wald_stat", "log_or_se"])
    same_columns(ab, ba, ["ratio_se_log", "diff_se"])
    close(ab["log_or"], -ba["log_or"])
    close(ab["diff"], -ba["diff"])
    close(ab[measure], ba[f"{measure}_reference"])
    close(ab[f"{measure}_ci_low"], ba[f"{measure}_reference_ci_low"])
    close(ab["n"], ba["n_reference"], rtol=0, atol=0)
    finite = np.isfinite(ab["ratio"].to_numpy(float)) & (ab["ratio"].to_numpy(float) > 0)
    close(ab["ratio"][finite], 1 / ba["ratio"][finite].to_numpy(float))
    mirrored_interval(
        ab["ratio_ci_low"], ab["ratio_ci_high"], ba["ratio_ci_low"], ba["ratio_ci_high"], ratio=True
    )
    mirrored_interval(
        ab["or_ci_low"], ab["or_ci_high"], ba["or_ci_low"], ba["or_ci_high"], ratio=True
    )
    mirrored_interval(
        ab["diff_ci_low"], ab["diff_ci_high"], ba["diff_ci_low"], ba["diff_ci_high"], ratio=False
    )


@SETTINGS
@given(labelled(), st.sampled_from(sorted(GEE)), st.booleans(), st.sampled_from(COV_TYPES))
def test_gee_permuting_rows_and_order_within_groups(data, measure, grouped, cov_type):
    y, a, b, groups, rng = data
    kwargs = {"groups": groups, "cov_type": cov_type} if grouped else {"cov_type": cov_type}
    base = quiet(GEE[measure], y, {"a": a, "b": b}, **kwargs)
    order = rng.permutation(y.size)
    kwargs["groups"] = groups[order] if grouped else None
    perm = quiet(GEE[measure], y[order], {"a": a[order], "b": b[order]}, **kwargs)
    same_columns(base.table, perm.table, numeric(base.table))
    if base.omnibus is not None:
        same_columns(base.omnibus, perm.omnibus, numeric(base.omnibus))


@SETTINGS
@given(
    labelled(), st.sampled_from(sorted(GEE)), st.permutations(range(4)), st.sampled_from(COV_TYPES)
)
def test_gee_relabelling_the_classes(data, measure, perm, cov_type):
    y, a, b, _, _ = data
    names = NAMES[list(perm)]
    base = quiet(GEE[measure], y, {"a": a, "b": b}, cov_type=cov_type).table
    renamed = quiet(GEE[measure], names[y], {"a": names[a], "b": names[b]}, cov_type=cov_type).table
    if measure == "accuracy":
        same_columns(base, renamed, numeric(base))
        return
    # Per-class rows follow their labels, whatever the names sort to.
    renamed = renamed.set_index("class").loc[names[base["class"].to_numpy(int)]]
    same_columns(base, renamed, numeric(base))


@SETTINGS
@given(labelled(), st.sampled_from(sorted(GEE)), st.integers(2, 3))
def test_gee_identical_repeats_grouped_by_record(data, measure, repeats):
    # Each record repeated identically (rows shuffled) and grouped by record:
    # the point values and the clustered tests equal one pass; the measure's
    # own interval is the sandwich Wald interval with repeated records
    # (Wilson's with one row per record), the same for any number of repeats.
    y, a, b, _, rng = data
    n = y.size
    single = quiet(GEE[measure], y, {"a": a, "b": b}).table

    def stacked(times):
        tile = np.tile(np.arange(n), times)[rng.permutation(times * n)]
        return quiet(GEE[measure], y[tile], {"a": a[tile], "b": b[tile]}, groups=tile).table

    twice, more = stacked(2), stacked(repeats + 1)
    own_ci = [f"{measure}{s}_ci_{e}" for s in ("", "_reference") for e in ("low", "high")]
    keep = [
        c
        for c in numeric(single)
        if c not in ["n", "n_reference", *own_ci] and not c.startswith("wgs")
    ]
    same_columns(single, twice, keep)
    assert twice["wgs_stat"].isna().all()  # undefined with repeated records, by design
    close(twice["n"], 2 * single["n"].to_numpy(float), rtol=0, atol=0)
    same_columns(twice, more, [c for c in numeric(single) if c not in ("n", "n_reference")])


# compare_metric -------------------------------------------------------------------


def trace_share(confusion):
    return np.trace(confusion) / confusion.sum()


def recall_per_class(confusion):
    return np.diag(confusion) / confusion.sum(axis=1)


METRICS = {
    "f1": ({"metric": "f1"}, "f1", True),
    "macro-f1": ({"metric": "f1", "average": "macro"}, "f1", False),
    "mcc": ({"metric": "mcc"}, "mcc", False),
    "kappa": ({"metric": "cohen_kappa"}, "cohen_kappa", False),
    "balanced_accuracy": ({"metric": "balanced_accuracy"}, "balanced_accuracy", False),
    "callable": ({"metric": trace_share}, "trace_share", False),
    "callable-per-class": ({"metric": recall_per_class}, "recall_per_class", True),
}
# Callables are differentiated by central differences.
METRIC_RTOL = {"callable": 1e-6, "callable-per-class": 1e-6}


@SETTINGS
@given(labelled(), st.sampled_from(sorted(METRICS)), st.booleans())
def test_metric_swapping_the_classifiers(data, name, grouped):
    y, a, b, groups, _ = data
    kwargs, column, _ = METRICS[name]
    kwargs = dict(kwargs, groups=groups if grouped else None)
    rtol = METRIC_RTOL.get(name, 1e-9)
    ab = quiet(compare_metric, y, {"a": a, "b": b}, reference="a", **kwargs).table
    ba = quiet(compare_metric, y, {"a": a, "b": b}, reference="b", **kwargs).table
    close(ab["diff"], -ba["diff"], rtol=rtol, atol=1e-12)
    same_columns(ab, ba, ["diff_se", "diff_pvalue"], rtol=rtol, atol=1e-10)
    close(ab[column], ba[f"{column}_reference"], rtol=rtol)
    close(ab[f"{column}_ci_low"], ba[f"{column}_reference_ci_low"], rtol=rtol)
    mirrored_interval(
        ab["diff_ci_low"],
        ab["diff_ci_high"],
        ba["diff_ci_low"],
        ba["diff_ci_high"],
        ratio=False,
        rtol=rtol,
        atol=1e-10,
    )


@SETTINGS
@given(labelled(), st.sampled_from(sorted(METRICS)), st.booleans())
def test_metric_permuting_rows_and_order_within_groups(data, name, grouped):
    y, a, b, groups, rng = data
    kwargs, _, _ = METRICS[name]
    base = quiet(compare_metric, y, {"a": a, "b": b}, groups=groups if grouped else None, **kwargs)
    order = rng.permutation(y.size)
    perm = quiet(
        compare_metric,
        y[order],
        {"a": a[order], "b": b[order]},
        groups=groups[order] if grouped else None,
        **kwargs,
    )
    same_columns(base.table, perm.table, numeric(base.table), rtol=METRIC_RTOL.get(name, 1e-9))


@SETTINGS
@given(labelled(), st.sampled_from(sorted(METRICS)), st.permutations(range(3)))
def test_metric_relabelling_the_classes(data, name, perm):
    y, a, b, _, _ = data
    kwargs, _, per_class = METRICS[name]
    codes = np.array(perm)
    base = quiet(compare_metric, y, {"a": a, "b": b}, **kwargs).table
    renamed = quiet(compare_metric, codes[y], {"a": codes[a], "b": codes[b]}, **kwargs).table
    if per_class:
        # Class k's row becomes class codes[k]'s row.
        renamed = renamed.set_index("class").loc[codes[base["class"].to_numpy(int)]]
    same_columns(base, renamed, numeric(base), rtol=METRIC_RTOL.get(name, 1e-9), atol=1e-10)


@SETTINGS
@given(labelled(), st.sampled_from(sorted(METRICS)), st.integers(2, 3))
def test_metric_identical_repeats_grouped_by_record(data, name, repeats):
    # The cluster-robust delta method on records repeated identically equals
    # the delta method on one pass: every column.
    y, a, b, _, rng = data
    kwargs, _, _ = METRICS[name]
    single = quiet(compare_metric, y, {"a": a, "b": b}, **kwargs).table
    tile = np.tile(np.arange(y.size), repeats)[rng.permutation(repeats * y.size)]
    stacked = quiet(
        compare_metric, y[tile], {"a": a[tile], "b": b[tile]}, groups=tile, **kwargs
    ).table
    same_columns(single, stacked, numeric(single), rtol=METRIC_RTOL.get(name, 1e-9), atol=1e-10)


@SETTINGS
@given(labelled(), st.sampled_from(["f1", "macro-f1", "mcc", "callable"]), st.booleans())
def test_metric_bootstrap_with_a_fixed_seed(data, name, grouped):
    # The bootstrap draws the joint cells (or the record patterns) from a
    # multinomial: with a fixed seed, swapping the classifiers mirrors every
    # column, any row order gives the same replicates, and identical repeats
    # grouped by record equal one pass with each record its own group.
    y, a, b, groups, rng = data
    kwargs = dict(METRICS[name][0], method="bootstrap", n_resamples=99, random_state=0)
    if grouped:
        kwargs["groups"] = groups
    column, rtol = METRICS[name][1], METRIC_RTOL.get(name, 1e-9)
    ab = quiet(compare_metric, y, {"a": a, "b": b}, reference="a", **kwargs).table
    ba = quiet(compare_metric, y, {"a": a, "b": b}, reference="b", **kwargs).table
    close(ab["diff"], -ba["diff"], rtol=rtol)
    close(ab[column], ba[f"{column}_reference"], rtol=rtol)
    same_columns(ab, ba, ["diff_se", "diff_pvalue"], rtol=rtol)
    for kind in ("ci", "bca"):
        low, high = f"diff_{kind}_low", f"diff_{kind}_high"
        mirrored_interval(ab[low], ab[high], ba[low], ba[high], ratio=False, rtol=rtol)
    order = rng.permutation(y.size)
    if grouped:
        kwargs["groups"] = groups[order]
    perm = quiet(compare_metric, y[order], {"a": a[order], "b": b[order]}, reference="a", **kwargs)
    same_columns(ab, perm.table, numeric(ab), rtol=rtol)
    kwargs["groups"] = np.arange(y.size)
    own = quiet(compare_metric, y, {"a": a, "b": b}, **kwargs).table
    kwargs["groups"] = tile = np.tile(np.arange(y.size), 2)[rng.permutation(2 * y.size)]
    stacked = quiet(compare_metric, y[tile], {"a": a[tile], "b": b[tile]}, **kwargs).table
    same_columns(own, stacked, numeric(own), rtol=rtol)


def test_metric_bootstrap_does_not_depend_on_which_classifier_is_the_reference():
    # The joint cells were tabulated with the reference first, so the same
    # seed drew other resamples when the reference changed: the p-value of
    # the same pair was 0.07 one way round and 0.12 the other.
    rng = np.random.default_rng(53)
    n = int(rng.integers(12, 40))
    y = rng.integers(0, 3, n)
    y[:3] = [0, 1, 2]
    a = np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n))
    b = np.where(rng.random(n) < 0.5, a, rng.integers(0, 3, n))
    kwargs = {"metric": "mcc", "method": "bootstrap", "n_resamples": 99, "random_state": 0}
    ab = quiet(compare_metric, y, {"a": a, "b": b}, reference="a", **kwargs).table
    ba = quiet(compare_metric, y, {"a": a, "b": b}, reference="b", **kwargs).table
    close(ab["diff_pvalue"], ba["diff_pvalue"])
    mirrored_interval(
        ab["diff_bca_low"],
        ab["diff_bca_high"],
        ba["diff_bca_low"],
        ba["diff_bca_high"],
        ratio=False,
    )


# Threshold-free measures ------------------------------------------------------------

THRESHOLD_FREE = {
    "average_precision": (compare_average_precision, {}),
    "precision_at_recall": (compare_precision_at_recall, {"recall": 0.5}),
    "recall_at_precision": (compare_recall_at_precision, {"precision": 0.5}),
    "roc_auc_delong": (compare_roc_auc, {}),
    "roc_auc_bootstrap": (compare_roc_auc, {"method": "bootstrap"}),
    "average_precision_macro": (compare_average_precision, {"average": "macro"}),
    "average_precision_micro": (compare_average_precision, {"average": "micro"}),
    "roc_auc_delong_weighted": (compare_roc_auc, {"average": "weighted"}),
}


@st.composite
def scored(draw, n_classes=3, min_n=15, max_n=45):
    """Truth, two classifiers' score matrices (ties when rounded) and groups."""
    n = draw(st.integers(min_n, max_n))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = rng.integers(0, n_classes, n)
    y[:n_classes] = np.arange(n_classes)
    signal = np.eye(n_classes)[y]
    a = rng.random((n, n_classes)) + 0.6 * signal
    b = 0.5 * a + rng.random((n, n_classes)) + 0.2 * signal
    if draw(st.booleans()):
        a, b = np.round(a, 1), np.round(b, 1)
    groups = rng.integers(0, max(2, n // 3), n)
    return y, a, b, groups, rng


def threshold_free(name, y, scores, **kwargs):
    function, params = THRESHOLD_FREE[name]
    return quiet(function, y, scores, n_resamples=99, random_state=0, **params, **kwargs)


def measure_columns(table):
    """The point values: the measure of the classifier and of the reference, the difference."""
    return [c for c in numeric(table) if not c.startswith("diff")][:2] + ["diff"]


@SETTINGS
@given(scored(), st.sampled_from(sorted(THRESHOLD_FREE)), st.booleans())
def test_threshold_free_swapping_the_classifiers(data, name, grouped):
    # A seed draws the same replicates whichever classifier is the reference,
    # so the bootstrap differences negate exactly.
    y, a, b, groups, _ = data
    kwargs = {"groups": groups} if grouped else {}
    ab = threshold_free(name, y, {"a": a, "b": b}, reference="a", **kwargs).table
    ba = threshold_free(name, y, {"a": a, "b": b}, reference="b", **kwargs).table
    column = measure_columns(ab)[0]
    close(ab[column], ba[f"{column}_reference"])
    close(ab[f"{column}_ci_low"], ba[f"{column}_reference_ci_low"])
    close(ab["diff"], -ba["diff"])
    same_columns(ab, ba, ["diff_se", "diff_pvalue"])
    mirrored_interval(
        ab["diff_ci_low"], ab["diff_ci_high"], ba["diff_ci_low"], ba["diff_ci_high"], ratio=False
    )
    if "diff_bca_low" in ab:
        mirrored_interval(
            ab["diff_bca_low"],
            ab["diff_bca_high"],
            ba["diff_bca_low"],
            ba["diff_bca_high"],
            ratio=False,
        )


@SETTINGS
@given(scored(), st.sampled_from(sorted(THRESHOLD_FREE)), st.booleans())
def test_threshold_free_permuting_rows(data, name, grouped):
    # DeLong: everything. The bootstrap with a fixed seed: the records are
    # drawn by class, then by the first classifier's score of that class, so
    # any row order gives the same replicates when those scores have no ties
    # within a class; with groups the clusters are drawn in the order of
    # their labels, so any row order gives the same replicates. Otherwise
    # (ties, no groups) only the point values are the same.
    y, a, b, groups, rng = data
    kwargs = {"groups": groups} if grouped else {}
    base = threshold_free(name, y, {"a": a, "b": b}, **kwargs).table
    order = rng.permutation(y.size)
    kwargs = {"groups": groups[order]} if grouped else {}
    perm = threshold_free(name, y[order], {"a": a[order], "b": b[order]}, **kwargs).table
    own = a[np.arange(y.size), y]
    untied = all(np.unique(own[y == k]).size == np.sum(y == k) for k in range(3))
    if name.startswith("roc_auc_delong") or grouped or untied:
        same_columns(base, perm, numeric(base))
    else:
        same_columns(base, perm, measure_columns(base))


@SETTINGS
@given(scored(), st.sampled_from(sorted(THRESHOLD_FREE)), st.permutations(range(3)))
def test_threshold_free_relabelling_the_classes(data, name, perm):
    # Class k's score column follows its label. With groups (drawn without
    # strata) and for DeLong everything follows; the stratified bootstrap
    # draws the classes in the order of their labels, so without groups only
    # the point values do.
    y, a, b, groups, _ = data
    codes = np.array(perm)
    columns = np.argsort(codes)  # new class j is old class columns[j]
    for kwargs in ({}, {"groups": groups}):
        base = threshold_free(name, y, {"a": a, "b": b}, **kwargs).table
        renamed = threshold_free(
            name, codes[y], {"a": a[:, columns], "b": b[:, columns]}, **kwargs
        ).table
        if "average" not in THRESHOLD_FREE[name][1]:
            renamed = renamed.set_index("class").loc[codes[base["class"].to_numpy(int)]]
        every = name.startswith("roc_auc_delong") or kwargs
        same_columns(base, renamed, numeric(base) if every else measure_columns(base))


@SETTINGS
@given(scored(), st.sampled_from(sorted(THRESHOLD_FREE)), st.booleans())
def test_threshold_free_monotone_transforms_of_the_scores(data, name, grouped):
    # Only the order of the scores counts: strictly increasing transforms
    # (a different one per classifier) change nothing, replicates included.
    y, a, b, groups, _ = data
    kwargs = {"groups": groups} if grouped else {}
    base = threshold_free(name, y, {"a": a, "b": b}, **kwargs).table
    moved = threshold_free(name, y, {"a": np.exp(3 * a) - 5, "b": b**3 / 7 + 100}, **kwargs).table
    same_columns(base, moved, numeric(base))


@SETTINGS
@given(scored(), st.sampled_from(sorted(THRESHOLD_FREE)), st.integers(2, 3))
def test_threshold_free_identical_repeats_grouped_by_record(data, name, repeats):
    # Records repeated identically and grouped by record: the clustered
    # analysis equals that of one pass with each record its own group
    # (replicates included), and DeLong's clustered variance (Obuchowski)
    # equals DeLong's on one pass.
    y, a, b, _, rng = data
    n = y.size
    own = threshold_free(name, y, {"a": a, "b": b}, groups=np.arange(n)).table
    plain = threshold_free(name, y, {"a": a, "b": b}).table
    tile = np.tile(np.arange(n), repeats)[rng.permutation(repeats * n)]
    stacked = threshold_free(name, y[tile], {"a": a[tile], "b": b[tile]}, groups=tile).table
    same_columns(own, stacked, numeric(own))
    same_columns(
        plain,
        stacked,
        numeric(plain) if name.startswith("roc_auc_delong") else measure_columns(plain),
    )


def test_bca_ties_with_the_estimate_do_not_depend_on_rounding():
    # Three identical repeats per record: a replicate difference equal to
    # the estimate came out 1e-16 away from it (the replicates sum weights,
    # the estimate rows), was counted below rather than tied, and moved the
    # BCa limits by 2 % of the one-pass limits.
    y = np.array([0, 1, 2, 1, 0, 1, 0, 1, 0, 1, 2, 0, 2, 1, 0, 0])
    a = np.array(
        [[1.1, 0.6, 0.8], [0.8, 1.1, 0.5], [0.4, 0.4, 1.2], [0.3, 0.9, 0.3], [1.5, 0.8, 1.0]]
        + [[0.8, 0.9, 1.0], [0.6, 0.7, 0.8], [0.2, 1.4, 0.7], [1.3, 0.4, 0.6], [0.0, 1.3, 0.3]]
        + [[0.7, 0.5, 1.5], [1.0, 0.7, 0.5], [0.8, 0.6, 0.7], [0.6, 1.4, 0.8], [1.2, 0.7, 0.7]]
        + [[1.5, 0.9, 0.5]]
    )
    b = np.array(
        [[0.9, 0.7, 0.9], [1.4, 1.6, 1.3], [0.3, 0.6, 1.6], [0.5, 0.9, 0.2], [1.7, 0.8, 0.9]]
        + [[1.3, 1.5, 0.8], [0.7, 0.4, 1.4], [0.7, 1.1, 0.6], [0.9, 0.8, 0.9], [0.3, 1.6, 0.3]]
        + [[0.7, 0.5, 1.8], [1.2, 0.8, 0.3], [0.4, 0.9, 1.3], [0.3, 1.2, 1.1], [1.6, 0.8, 0.8]]
        + [[1.9, 0.5, 1.2]]
    )
    own = threshold_free("average_precision", y, {"a": a, "b": b}, groups=np.arange(16)).table
    tile = np.tile(np.arange(16), 3)
    stacked = threshold_free(
        "average_precision", y[tile], {"a": a[tile], "b": b[tile]}, groups=tile
    ).table
    same_columns(own, stacked, ["diff_bca_low", "diff_bca_high"])


OMNIBUS = {
    **{f"gee-{k}": (v, {}) for k, v in GEE.items()},
    "mcc-delta": (compare_metric, {"metric": "mcc"}),
    "f1-delta": (compare_metric, {"metric": "f1"}),
    "f1-bootstrap": (
        compare_metric,
        {"metric": "f1", "method": "bootstrap", "n_resamples": 99, "random_state": 0},
    ),
}


@SETTINGS
@given(labelled(), scored(), st.sampled_from(sorted(OMNIBUS) + sorted(THRESHOLD_FREE)))
def test_omnibus_does_not_depend_on_the_reference(data, scores, name):
    # The test that all three classifiers are equal is one hypothesis,
    # whichever classifier the differences are taken from.
    if name in OMNIBUS:
        y, a, b, _, _ = data
        function, kwargs = OMNIBUS[name]
        preds = {"a": a, "b": b, "c": np.roll(a, 1)}
        results = [quiet(function, y, preds, reference=r, **kwargs) for r in preds]
    else:
        y, a, b, _, _ = scores
        preds = {"a": a, "b": b, "c": np.roll(b, 1, axis=0)}
        results = [threshold_free(name, y, preds, reference=r) for r in preds]
    first = results[0].omnibus
    for other in results[1:]:
        same_columns(first, other.omnibus, numeric(first), rtol=1e-9, atol=1e-10)


def test_omnibus_with_a_difference_without_variance_is_undefined():
    # Class 2: 'a' has F1 1 and 'c' F1 0, both without variance, 'b' 0.75.
    # The pseudo-inverse ignored the difference of 'c' from 'a' (taken from
    # 'a': statistic 2.13) but not that of 'b' from 'c' (taken from 'c':
    # 19.2); undefined whichever the reference, with one warning.
    y = np.array([0, 1, 2, 0, 0, 0, 0, 0, 0, 2, 1, 2])
    a = np.array([0, 0, 2, 1, 1, 0, 0, 0, 0, 2, 1, 2])
    b = np.array([1, 0, 2, 2, 1, 2, 0, 0, 0, 2, 1, 2])
    preds = {"a": a, "b": b, "c": np.roll(a, 1)}
    for reference in preds:
        with pytest.warns(UndefinedStatisticWarning) as record:
            result = compare_metric(y, preds, metric="f1", reference=reference)
        assert len(record) == 1
        stat = result.omnibus["wald_stat"].to_numpy()
        assert np.isnan(stat[2]) and np.isfinite(stat[:2]).all()
        assert np.isnan(result.omnibus["wald_pvalue"].to_numpy()[2])
    with pytest.warns(UndefinedStatisticWarning, match="omnibus test of f1 of class 2"):
        compare_metric(y, preds, metric="f1", reference="b")


# mcnemar_test and delong_test ------------------------------------------------------

MCNEMAR_METHODS = ["exact", "midp", "asymptotic", "corrected"]


def mcnemar_numbers(result):
    low, high = quiet(result.confidence_interval)
    return [
        result.statistic,
        result.pvalue,
        result.accuracy_a,
        result.accuracy_b,
        result.difference,
        result.standard_error,
        low,
        high,
    ]


@SETTINGS
@given(labelled(min_n=4), st.permutations(range(4)), st.booleans())
def test_mcnemar_relabelling_the_classes(data, perm, grouped):
    y, a, b, groups, _ = data
    names = NAMES[list(perm)]
    for method in ["asymptotic"] if grouped else MCNEMAR_METHODS:
        kwargs = {"method": method, "groups": groups if grouped else None}
        base = quiet(mcnemar_test, y, a, b, **kwargs)
        renamed = quiet(mcnemar_test, names[y], names[a], names[b], **kwargs)
        close(mcnemar_numbers(base), mcnemar_numbers(renamed))
        assert (base.n_a_only, base.n_b_only) == (renamed.n_a_only, renamed.n_b_only)


@SETTINGS
@given(labelled(min_n=4), st.booleans())
def test_mcnemar_swapping_mirrors_the_interval(data, grouped):
    y, a, b, groups, _ = data
    kwargs = {"method": "asymptotic", "groups": groups if grouped else None}
    ab, ba = quiet(mcnemar_test, y, a, b, **kwargs), quiet(mcnemar_test, y, b, a, **kwargs)
    close(ab.difference, -ba.difference)
    close(ab.standard_error, ba.standard_error)
    (low_ab, high_ab), (low_ba, high_ba) = (quiet(r.confidence_interval) for r in (ab, ba))
    mirrored_interval(low_ab, high_ab, low_ba, high_ba, ratio=False)


@SETTINGS
@given(labelled(min_n=4), st.integers(2, 4))
def test_mcnemar_identical_repeats_grouped_by_record(data, repeats):
    # Durkalski's statistic (sum d_i)^2 / sum d_i^2 is unchanged when every
    # d_i is multiplied by L: the clustered test on L identical repeats is
    # the asymptotic test on one pass, interval included.
    y, a, b, _, rng = data
    single = quiet(mcnemar_test, y, a, b, method="asymptotic")
    tile = np.tile(np.arange(y.size), repeats)[rng.permutation(repeats * y.size)]
    stacked = quiet(mcnemar_test, y[tile], a[tile], b[tile], groups=tile)
    close(mcnemar_numbers(single), mcnemar_numbers(stacked))
    assert (stacked.n_a_only, stacked.n_b_only) == (
        repeats * single.n_a_only,
        repeats * single.n_b_only,
    )
    assert stacked.n_groups == y.size


@st.composite
def binary_scored(draw):
    n = draw(st.integers(8, 50))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    # Rounded for ties; offset so that the scores are never only the labels
    # 0 and 1, which delong_test refuses as hard predictions.
    a = np.round(y + rng.normal(size=n), draw(st.sampled_from([0, 1, 6]))) + 0.25
    b = np.round(0.5 * a + y + rng.normal(size=n), 1)
    return y, a, b, rng


@SETTINGS
@given(binary_scored(), st.sampled_from([("no", "yes"), ("sick", "healthy"), (-1, 7)]))
def test_delong_relabelling_and_swapping(data, names):
    # Naming the classes otherwise (the positive one given as pos_label)
    # changes nothing; swapping the classifiers mirrors the interval.
    y, a, b, _ = data
    names = np.array(names, dtype=object)
    base = quiet(delong_test, y, a, b)
    renamed = quiet(delong_test, names[y], a, b, pos_label=names[1])
    close(
        [base.statistic, base.pvalue, base.auc_a, base.auc_b],
        [renamed.statistic, renamed.pvalue, renamed.auc_a, renamed.auc_b],
    )
    # The other class as positive with the scores reversed: the same AUCs.
    flipped = quiet(delong_test, names[y], -a, -b, pos_label=names[0])
    close(
        [base.statistic, base.pvalue, base.auc_a],
        [flipped.statistic, flipped.pvalue, flipped.auc_a],
    )
    swapped = quiet(delong_test, y, b, a)
    mirrored_interval(*base.confidence_interval(), *swapped.confidence_interval(), ratio=False)


# The diagnostic family ---------------------------------------------------------------

DIAGNOSTIC = {
    "diagnostic_accuracy": (diagnostic_accuracy, {}),
    "diagnostic_accuracy_wilson": (diagnostic_accuracy, {"ci_method": "wilson"}),
    "diagnostic_accuracy_dtcompair": (diagnostic_accuracy, {"convention": "dtcompair"}),
    "sesp_wald_dtcompair": (sensitivity_specificity_difference, {"convention": "dtcompair"}),
    "likelihood_ratios_dtcompair": (compare_likelihood_ratios, {"convention": "dtcompair"}),
    "sesp_wald": (sensitivity_specificity_difference, {}),
    "sesp_tango": (sensitivity_specificity_difference, {"method": "tango"}),
    "relative_predictive_values": (relative_predictive_values, {}),
    "compare_likelihood_ratios": (compare_likelihood_ratios, {}),
}


def arrays_of(result):
    """Every numeric array of a diagnostic result, by name."""
    return {
        name: value
        for name, value in vars(result).items()
        if isinstance(value, np.ndarray) and value.dtype.kind in "fiu"
    }


def diagnostic(name, y, preds, **kwargs):
    function, params = DIAGNOSTIC[name]
    return quiet(function, y, preds, **params, **kwargs)


def supports_groups(name, y, a, b, groups):
    function, params = DIAGNOSTIC[name]
    try:
        quiet(function, y, {"a": a, "b": b}, groups=groups, **params)
    except ValueError as error:
        assert "groups" in str(error)
        return False
    return True


def same_arrays(a, b, rtol=1e-9, atol=1e-12):
    assert a.keys() == b.keys()
    for name in a:
        close(a[name], b[name], rtol=rtol, atol=atol)


@SETTINGS
@given(labelled(), st.sampled_from(sorted(DIAGNOSTIC)), st.booleans())
def test_diagnostic_permuting_rows_and_order_within_groups(data, name, grouped):
    y, a, b, groups, rng = data
    if grouped and not supports_groups(name, y, a, b, groups):
        return
    kwargs = {"groups": groups} if grouped else {}
    base = diagnostic(name, y, {"a": a, "b": b}, **kwargs)
    order = rng.permutation(y.size)
    kwargs = {"groups": groups[order]} if grouped else {}
    perm = diagnostic(name, y[order], {"a": a[order], "b": b[order]}, **kwargs)
    same_arrays(arrays_of(base), arrays_of(perm))


@SETTINGS
@given(labelled(), st.sampled_from(sorted(DIAGNOSTIC)), st.permutations(range(4)))
def test_diagnostic_relabelling_the_classes(data, name, perm):
    # Every per-class array follows its class along the first axis.
    y, a, b, _, _ = data
    names = NAMES[list(perm)]
    base = diagnostic(name, y, {"a": a, "b": b})
    renamed = diagnostic(name, names[y], {"a": names[a], "b": names[b]})
    where = {label: i for i, label in enumerate(renamed.classes)}
    rows = [where[label] for label in names[base.classes.astype(int)]]
    got = {k: v[rows] if k != "classes" else v for k, v in arrays_of(renamed).items()}
    expected = arrays_of(base)
    expected.pop("classes", None)
    got.pop("classes", None)
    same_arrays(expected, got)


@SETTINGS
@given(labelled(), st.sampled_from(sorted(DIAGNOSTIC)))
def test_diagnostic_swapping_the_classifiers(data, name):
    # Complements the ratio and difference symmetries tested elsewhere:
    # each classifier's own values travel with it.
    y, a, b, _, _ = data
    ab = diagnostic(name, y, {"a": a, "b": b})
    ba = diagnostic(name, y, {"b": b, "a": a})
    if name.startswith("diagnostic_accuracy"):
        for field in ("estimate", "se", "ci_low", "ci_high", "counts"):
            close(getattr(ab, field), getattr(ba, field)[:, ::-1])
        return
    close(ab.value, ba.value_reference)
    close(ab.value_reference, ba.value)


@SETTINGS
@given(labelled(), st.sampled_from(sorted(DIAGNOSTIC)), st.integers(2, 3))
def test_diagnostic_identical_repeats_grouped_by_record(data, name, repeats):
    # Records repeated identically and grouped by record: every value equals
    # that of one pass with each record its own group (the clustered
    # influence sums scale with the repeats, the totals too); the point
    # values equal those of one pass without groups.
    y, a, b, _, rng = data
    n = y.size
    tile = np.tile(np.arange(n), repeats)[rng.permutation(repeats * n)]
    if not supports_groups(name, y, a, b, np.arange(n)):
        return
    own = arrays_of(diagnostic(name, y, {"a": a, "b": b}, groups=np.arange(n)))
    stacked = arrays_of(diagnostic(name, y[tile], {"a": a[tile], "b": b[tile]}, groups=tile))
    plain = arrays_of(diagnostic(name, y, {"a": a, "b": b}))
    if "counts" in own:
        close(stacked.pop("counts"), repeats * own.pop("counts"), rtol=0, atol=0)
    same_arrays(own, stacked)
    points = [k for k in ("estimate", "diff", "ratio", "value", "value_reference") if k in plain]
    same_arrays({k: plain[k] for k in points}, {k: stacked[k] for k in points})


# global_test (the deterministic combinations) ------------------------------------------

PER_CLASS = {k: GEE[k] for k in ("precision", "npv", "recall", "specificity")}


def global_numbers(result, method, test):
    res = quiet(result.global_test, method=method, test=test)
    return [res.statistic, res.pvalue, res.df, res.n_tests]


@SETTINGS
@given(
    labelled(n_classes=4),
    st.sampled_from(sorted(PER_CLASS)),
    st.sampled_from(["fisher", "simes"]),
    st.sampled_from(["gs", "wald", "ratio"]),
    st.permutations(range(4)),
)
def test_global_test_invariances(data, measure, method, test, perm):
    # Fisher's and Simes' combinations depend on the per-class p-values
    # alone, which none of these changes: swapping the classifiers,
    # permuting the rows, naming the classes otherwise, repeating each
    # record identically with groups.
    y, a, b, _, rng = data
    function = PER_CLASS[measure]
    base = global_numbers(quiet(function, y, {"a": a, "b": b}, reference="a"), method, test)
    swapped = quiet(function, y, {"a": a, "b": b}, reference="b")
    close(base, global_numbers(swapped, method, test))
    order = rng.permutation(y.size)
    permuted = quiet(function, y[order], {"a": a[order], "b": b[order]}, reference="a")
    close(base, global_numbers(permuted, method, test))
    names = NAMES[list(perm)]
    renamed = quiet(function, names[y], {"a": names[a], "b": names[b]}, reference="a")
    close(base, global_numbers(renamed, method, test))
    tile = np.tile(np.arange(y.size), 2)[rng.permutation(2 * y.size)]
    stacked = quiet(function, y[tile], {"a": a[tile], "b": b[tile]}, reference="a", groups=tile)
    close(base, global_numbers(stacked, method, test))


@SETTINGS
@given(
    labelled(),
    st.sampled_from(sorted(PER_CLASS)),
    st.sampled_from([("dai-cui", "permutation"), ("dai-cui", "bootstrap"), ("permutation",) * 2]),
    st.booleans(),
)
def test_resampled_global_test_ignores_row_order(data, measure, method, grouped):
    # The resamples draw the cells of the joint table (or, with groups, the
    # records' patterns), not rows: with a fixed seed any order of the rows
    # gives the same p-value. (Swapping the classifiers or renaming the
    # classes reorders the cells, so the p-value then changes only by
    # Monte Carlo error.)
    y, a, b, groups, rng = data
    function = PER_CLASS[measure]
    kwargs = {"method": method[0], "resampling": method[1], "n_resamples": 60, "random_state": 0}
    base = quiet(function, y, {"a": a, "b": b}, groups=groups if grouped else None)
    order = rng.permutation(y.size)
    perm = quiet(
        function,
        y[order],
        {"a": a[order], "b": b[order]},
        groups=groups[order] if grouped else None,
    )
    first, second = (quiet(r.global_test, **kwargs) for r in (base, perm))
    close(
        [first.statistic, first.pvalue, first.df, first.n_resamples],
        [second.statistic, second.pvalue, second.df, second.n_resamples],
    )


# ComparisonCounts: rows fed in chunks, in any order ------------------------------------


@SETTINGS
@given(labelled(), st.booleans(), st.data())
def test_counts_fed_in_any_chunks_and_order(data, grouped, draw):
    # Accumulating the rows chunk by chunk, the chunks in any order (and
    # merged from two halves), gives the comparison of the whole arrays.
    from sklearn_precision_stats import ComparisonCounts

    y, a, b, groups, rng = data
    n = y.size
    order = rng.permutation(n)
    cuts = sorted(draw.draw(st.lists(st.integers(1, n - 1), max_size=3, unique=True)))
    chunks = np.split(order, cuts)

    def chunk_kwargs(rows):
        return {"groups": groups[rows]} if grouped else {}

    counts = ComparisonCounts.from_arrays(
        y[chunks[0]], {"a": a[chunks[0]], "b": b[chunks[0]]}, **chunk_kwargs(chunks[0])
    )
    for rows in chunks[1:]:
        counts = counts.update(y[rows], {"a": a[rows], "b": b[rows]}, **chunk_kwargs(rows))
    kwargs = {"groups": groups} if grouped else {}
    for function in (compare_precision, compare_specificity):
        direct = quiet(function, y, {"a": a, "b": b}, **kwargs).table
        counted = quiet(function, counts).table
        same_columns(direct, counted, numeric(direct))
    for metric in ("f1", "mcc"):
        direct = quiet(compare_metric, y, {"a": a, "b": b}, metric=metric, **kwargs).table
        counted = quiet(compare_metric, counts, metric=metric).table
        same_columns(direct, counted, numeric(direct))
    direct = quiet(mcnemar_test, y, a, b, method="asymptotic", **kwargs)
    counted = quiet(mcnemar_test, counts, "a", "b", method="asymptotic")
    close(mcnemar_numbers(direct), mcnemar_numbers(counted))


def test_clustered_counts_of_two_classes_leave_an_absent_class_undefined():
    # Class 1 is neither in the truth nor predicted by 'a': its F1 is 0/0.
    # The margins' pseudo-inverse left 1e-15 where the cells are 0, and the
    # F1 came out as -2.0, with a finite p-value, instead of NaN.
    from sklearn_precision_stats import ComparisonCounts

    y, a, b = np.zeros(4, int), np.zeros(4, int), np.array([0, 0, 0, 1])
    groups = np.array([1, 1, 1, 0])
    counts = ComparisonCounts.from_arrays(y, {"a": a, "b": b}, groups=groups)
    direct = quiet(compare_metric, y, {"a": a, "b": b}, metric="f1", groups=groups).table
    counted = quiet(compare_metric, counts, metric="f1").table
    assert np.isnan(counted["f1_reference"][1]) and np.isnan(counted["diff_pvalue"][1])
    same_columns(direct, counted, numeric(direct))
    # Class 1 wrongly predicted once by each, in different records: both
    # F1 are 0 in every record, no variance, so no p-value (the standard
    # error was 2e-15 and the p-value 1).
    a, b = np.array([0, 0, 0, 1]), np.array([0, 0, 1, 0])
    counts = ComparisonCounts.from_arrays(y, {"a": a, "b": b}, groups=groups)
    direct = quiet(compare_metric, y, {"a": a, "b": b}, metric="f1", groups=groups).table
    counted = quiet(compare_metric, counts, metric="f1").table
    assert np.isnan(counted["diff_pvalue"][1])
    same_columns(direct, counted, numeric(direct))


def test_clustered_counts_of_three_classes_leave_an_absent_class_undefined():
    # With three classes the least-norm matrix lifted from the margins put
    # entries of +-1/6 in the row and column of class 1 (no row of it, and
    # only 'a' predicts it once): 'b''s F1 of class 1 was 0 with an interval
    # of +-1.77 and a p-value of 1 instead of NaN.
    from sklearn_precision_stats import ComparisonCounts

    y, a, b = np.zeros(4, int), np.array([0, 0, 0, 1]), np.array([0, 0, 0, 2])
    groups = np.array([1, 1, 1, 0])
    counts = ComparisonCounts.from_arrays(y, {"a": a, "b": b}, groups=groups)
    direct = quiet(compare_metric, y, {"a": a, "b": b}, metric="f1", groups=groups).table
    counted = quiet(compare_metric, counts, metric="f1").table
    assert np.isnan(counted["f1"][1]) and np.isnan(counted["f1_reference"][2])
    same_columns(direct, counted, numeric(direct))


def _least_norm_off_diagonal(matrix):
    """Brute force: the least-norm off-diagonal cells, zero in empty rows and columns."""
    k = matrix.shape[0]
    off = matrix * (1 - np.eye(k))
    a, b = off.sum(axis=1), off.sum(axis=0)
    cells = [(i, j) for i in np.flatnonzero(a) for j in np.flatnonzero(b) if i != j]
    out = np.diag(np.diag(matrix)).astype(float)
    if cells:
        constraints = np.zeros((2 * k, len(cells)))
        for t, (i, j) in enumerate(cells):
            constraints[i, t] = constraints[k + j, t] = 1
        x = np.linalg.lstsq(constraints, np.r_[a, b], rcond=None)[0]
        for t, (i, j) in enumerate(cells):
            out[i, j] = x[t]
    return out


@SETTINGS
@given(st.integers(2, 7), st.integers(0, 2**32 - 1))
def test_confusion_lifted_from_margins_is_the_least_norm_one(k, seed):
    # Clustered counts keep each confusion matrix's diagonal and margins; the
    # lifted matrix has them exactly, zeros in rows and columns without
    # off-diagonal counts, and is least-norm off the diagonal.
    from sklearn_precision_stats.metrics._cells import _lift_margins

    rng = np.random.default_rng(seed)
    matrices = rng.integers(0, 4, (6, k, k)) * (rng.random((6, k, k)) < 0.5)
    for matrix in matrices:
        for i in range(k):
            if rng.random() < 0.35:
                matrix[i, np.arange(k) != i] = 0
            if rng.random() < 0.35:
                matrix[np.arange(k) != i, i] = 0
    sums = np.concatenate(
        [np.diagonal(matrices, axis1=1, axis2=2), matrices.sum(axis=2), matrices.sum(axis=1)],
        axis=1,
    ).astype(float)
    lifted = _lift_margins(sums, k)
    for matrix, got in zip(matrices, lifted, strict=True):
        close(got, _least_norm_off_diagonal(matrix), rtol=1e-9, atol=1e-12)
        np.testing.assert_array_equal(got.sum(axis=1) == 0, matrix.sum(axis=1) == 0)
