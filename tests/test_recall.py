"""compare_recall against statsmodels GEE and McNemar's test, live.

For class k, the rows whose true label is k are stacked for the classifier
and the reference, the response is "predicted k", and a logistic GEE with
independence working correlation is fitted with clusters = records: its
coefficient and robust SE give the log odds ratio, its robust score test
against the intercept-only GEE gives the GS statistic, and the log-link GEE
gives the relative recall. On one row per record the GS statistic is
McNemar's chi-square on the class's records.
"""

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

from sklearn_precision_stats import UndefinedStatisticWarning, compare_recall

RTOL = 1e-9

# The log-link binomial GEE is only used for the saturated model's relative
# recall, whose fitted probabilities stay inside (0, 1).
pytestmark = pytest.mark.filterwarnings("ignore:The Log link function does not respect the domain")


def gee_recall_reference(y, pred, pred_ref, k, groups):
    """Wald, score, log OR and log RR of classifier vs reference for class k."""
    rows = y == k
    endog = np.r_[pred[rows] == k, pred_ref[rows] == k].astype(float)
    is_clf = np.r_[np.ones(rows.sum()), np.zeros(rows.sum())]
    grp = np.r_[groups[rows], groups[rows]]
    X = sm.add_constant(is_clf)

    def gee(exog, link=None):
        family = sm.families.Binomial() if link is None else sm.families.Binomial(link)
        return sm.GEE(
            endog, exog, groups=grp, family=family, cov_struct=sm.cov_struct.Independence()
        )

    full = gee(X).fit()
    null = gee(np.ones((endog.size, 1))).fit()
    score = gee(X).compare_score_test(null)
    log_link = gee(X, sm.families.links.Log()).fit()
    return {
        "recall": endog[is_clf == 1].mean(),
        "recall_reference": endog[is_clf == 0].mean(),
        "n": int(rows.sum()),
        "log_or": full.params[1],
        "log_or_se": full.bse[1],
        "wald_stat": (full.params[1] / full.bse[1]) ** 2,
        "wald_pvalue": full.pvalues[1],
        "gs_stat": score["statistic"],
        "gs_pvalue": score["p-value"],
        "ratio": np.exp(log_link.params[1]),
        "ratio_se_log": log_link.bse[1],
    }


def check_against_gee(table, y, preds, reference, groups):
    assert len(table) > 0
    for _, row in table.iterrows():
        assert row["reference"] == reference
        ref = gee_recall_reference(
            y, preds[row["classifier"]], preds[reference], row["class"], groups
        )
        for column, expected in ref.items():
            assert row[column] == pytest.approx(expected, rel=RTOL, abs=1e-300), column
        assert row["n_reference"] == ref["n"]
        z = 1.959963984540054
        assert row["or_ci_low"] == pytest.approx(
            np.exp(ref["log_or"] - z * ref["log_or_se"]), rel=1e-8
        )
        assert row["ratio_ci_high"] == pytest.approx(
            ref["ratio"] * np.exp(z * ref["ratio_se_log"]), rel=1e-8
        )


def noisy_predictions(rng, y, n_classes, accuracy, shared=None, agreement=0.0):
    own = np.where(
        rng.random(y.size) < accuracy, y, (y + rng.integers(1, n_classes, y.size)) % n_classes
    )
    if shared is None:
        return own
    return np.where(rng.random(y.size) < agreement, shared, own)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_paired_rows_match_gee_and_mcnemar(seed):
    rng = np.random.default_rng(seed)
    n, n_classes = 400, 3
    y = rng.integers(0, n_classes, n)
    shared = noisy_predictions(rng, y, n_classes, 0.7)
    preds = {
        "rf": noisy_predictions(rng, y, n_classes, 0.75, shared, 0.5),
        "nb": noisy_predictions(rng, y, n_classes, 0.65, shared, 0.5),
        "lr": noisy_predictions(rng, y, n_classes, 0.70, shared, 0.3),
    }
    result = compare_recall(y, preds, reference="rf")
    table = result.table
    assert set(table["classifier"]) == {"nb", "lr"}
    assert len(table) == 2 * n_classes
    check_against_gee(table, y, preds, "rf", np.arange(n))
    # The GS statistic for recall is McNemar's chi-square on class k's records.
    for _, row in table.iterrows():
        rows = y == row["class"]
        hit = preds[row["classifier"]][rows] == row["class"]
        hit_ref = preds["rf"][rows] == row["class"]
        mc = sm_mcnemar(
            pd.crosstab(hit, hit_ref)
            .reindex(index=[False, True], columns=[False, True], fill_value=0)
            .to_numpy(),
            exact=False,
            correction=False,
        )
        assert row["gs_stat"] == pytest.approx(mc.statistic, rel=RTOL)
        assert row["gs_pvalue"] == pytest.approx(mc.pvalue, rel=RTOL)


@pytest.mark.parametrize("seed", [3, 4])
def test_repeated_rows_with_groups_match_clustered_gee(seed):
    # L = 4 repeats of 150 records, predictions redrawn per repeat but
    # correlated within a record through a per-record "difficulty".
    rng = np.random.default_rng(seed)
    n_records, n_repeats, n_classes = 150, 4, 3
    groups = np.tile(np.arange(n_records), n_repeats)
    y = rng.integers(0, n_classes, n_records)[groups]
    easy = rng.beta(2, 1, n_records)[groups]
    preds = {
        "a": noisy_predictions(rng, y, n_classes, 0.9 * easy),
        "b": noisy_predictions(rng, y, n_classes, 0.8 * easy),
    }
    table = compare_recall(y, preds, groups=groups).table
    check_against_gee(table, y, preds, "a", groups)
    # Ignoring the clusters changes the score statistic: the test is not
    # silently treating the 600 rows as independent.
    naive = compare_recall(y, preds).table
    assert not np.allclose(naive["gs_stat"], table["gs_stat"], rtol=1e-3)


def test_string_labels_and_record_ids():
    rng = np.random.default_rng(5)
    n_records, n_repeats = 120, 3
    names = np.array(["cat", "dog", "emu"])
    groups = np.tile(np.array([f"rec{i:03d}" for i in range(n_records)]), n_repeats)
    y_int = rng.integers(0, 3, n_records)[np.tile(np.arange(n_records), n_repeats)]
    preds_int = {
        "svm": noisy_predictions(rng, y_int, 3, 0.8),
        "knn": noisy_predictions(rng, y_int, 3, 0.7),
    }
    y = names[y_int]
    preds = {key: names[value] for key, value in preds_int.items()}
    table = compare_recall(y, preds, reference="knn", groups=groups).table
    assert sorted(table["class"]) == ["cat", "dog", "emu"]
    check_against_gee(table, y, preds, "knn", groups)
    # Integer and string encodings of the same data agree.
    as_int = compare_recall(y_int, preds_int, reference="knn", groups=groups).table
    np.testing.assert_allclose(as_int["gs_stat"], table["gs_stat"], rtol=1e-12)


def test_identical_predictions_are_undefined_not_crashing():
    rng = np.random.default_rng(6)
    y = rng.integers(0, 2, 100)
    pred = noisy_predictions(rng, y, 2, 0.8)
    with pytest.warns(UndefinedStatisticWarning):
        table = compare_recall(y, {"a": pred, "b": pred.copy()}).table
    assert table["gs_stat"].isna().all()
    assert (table["recall"] == table["recall_reference"]).all()
