"""Tests of CVPrecisionComparator (cross-validation, the paper's Algorithm 2)."""

import re
import sys
import threading

import joblib
import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy import special, stats
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.compose import ColumnTransformer
from sklearn.datasets import make_classification
from sklearn.exceptions import FitFailedWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import (
    GroupKFold,
    KFold,
    LeaveOneOut,
    RepeatedStratifiedKFold,
    ShuffleSplit,
    StratifiedKFold,
    cross_val_predict,
)
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

from sklearn_precision_stats import CVPrecisionComparator, compare_precision
from sklearn_precision_stats.exceptions import UndefinedStatisticWarning
from sklearn_precision_stats.results._registry import TEST_COLUMNS

COLUMNS = ["record_id", "repeat", "fold", "classifier", "y_true", "y_pred"]
# The table's test statistics (the measure's own columns hold Wilson or
# cluster-robust intervals, which differ between pooled and clustered rows).
# WGS is defined for one row per record only: NaN with repeated records.
STAT_COLUMNS = [c for c in TEST_COLUMNS if not c.startswith("wgs_")]


@pytest.fixture(scope="module")
def data3():
    """Three noisy classes: every precision is strictly between 0 and 1."""
    return make_classification(
        n_samples=300,
        n_features=6,
        n_informative=3,
        n_classes=3,
        n_clusters_per_class=1,
        flip_y=0.1,
        random_state=0,
    )


@pytest.fixture(scope="module")
def data2():
    return make_classification(n_samples=200, n_features=5, flip_y=0.15, random_state=1)


def _three():
    return {
        "nb": GaussianNB(),
        "lr": LogisticRegression(),
        "dt": DecisionTreeClassifier(max_depth=3, random_state=0),
    }


def _rskf(n_splits=3, n_repeats=2):
    return RepeatedStratifiedKFold(n_splits=n_splits, n_repeats=n_repeats, random_state=0)


class FailOnRecord(ClassifierMixin, BaseEstimator):
    """GaussianNB that fails when `record` (X[:, 0] holds record ids) is tested.

    ``stage="fit"`` fails in fit (the record is not among the training rows);
    ``stage="predict"`` fails in predict (the record is among the test rows).
    """

    def __init__(self, record=0, stage="fit"):
        self.record = record
        self.stage = stage

    def fit(self, X, y):
        if self.stage == "fit" and self.record not in X[:, 0]:
            raise ZeroDivisionError("planned failure")
        self.model_ = GaussianNB().fit(X[:, 1:], y)
        self.classes_ = self.model_.classes_
        return self

    def predict(self, X):
        if self.stage == "predict" and self.record in X[:, 0]:
            raise ZeroDivisionError("planned failure")
        return self.model_.predict(X[:, 1:])


class WeightChecker(ClassifierMixin, BaseEstimator):
    """A classifier that checks that sample_weight is X[:, 0] of its own rows."""

    def fit(self, X, y, sample_weight):
        np.testing.assert_array_equal(sample_weight, X[:, 0])
        self.model_ = LogisticRegression().fit(X, y, sample_weight=sample_weight)
        self.classes_ = self.model_.classes_
        return self

    def predict(self, X):
        return self.model_.predict(X)


# Where the fits of RecordingNB ran; threads of an in-process Dask cluster
# share this list.
_FIT_WORKERS = []
_FIT_LOCK = threading.Lock()


class RecordingNB(GaussianNB):
    """GaussianNB that records the Dask worker (or None) that fitted it."""

    def fit(self, X, y, sample_weight=None):
        from distributed import get_worker

        try:
            where = get_worker().address
        except ValueError:
            where = None
        with _FIT_LOCK:
            _FIT_WORKERS.append(where)
        return super().fit(X, y, sample_weight=sample_weight)


# --- Stacking ---------------------------------------------------------------


def test_predictions_one_row_per_record_repeat_classifier(data3):
    X, y = data3
    cv = _rskf(n_splits=3, n_repeats=2)
    comp = CVPrecisionComparator(_three(), cv=cv).fit(X, y)
    pred = comp.predictions_
    assert list(pred.columns) == COLUMNS
    assert len(pred) == 3 * 2 * len(y)
    assert not pred.duplicated(["record_id", "repeat", "classifier"]).any()
    assert list(pred["classifier"].unique()) == ["nb", "lr", "dt"]
    assert sorted(pred["repeat"].unique()) == [0, 1]
    np.testing.assert_array_equal(pred["y_true"], y[pred["record_id"]])
    # Every classifier predicts each (record, repeat) from the same split,
    # whose test set holds the record.
    folds = pred.pivot(index=["record_id", "repeat"], columns="classifier", values="fold")
    assert (folds.nunique(axis=1) == 1).all()
    splits = list(cv.split(X, y))
    for (record, repeat), fold in folds["nb"].items():
        assert record in splits[fold][1]
        assert repeat == (fold >= 3)  # first pass: splits 0-2, second: 3-5
    assert comp.n_splits_ == 6
    assert comp.result_.n_records == len(y)
    assert comp.result_.n_rows == 2 * len(y)


def test_single_kfold_matches_cross_val_predict(data3):
    X, y = data3
    cv = StratifiedKFold(4, shuffle=True, random_state=3)
    comp = CVPrecisionComparator(_three(), cv=cv, reference="lr").fit(X, y)
    for name, est in _three().items():
        rows = comp.predictions_[comp.predictions_["classifier"] == name]
        np.testing.assert_array_equal(rows["record_id"], np.arange(len(y)))
        np.testing.assert_array_equal(rows["y_pred"], cross_val_predict(est, X, y, cv=cv))
    preds = {n: cross_val_predict(e, X, y, cv=cv) for n, e in _three().items()}
    expected = compare_precision(y, preds, reference="lr")
    pd.testing.assert_frame_equal(comp.result_.table, expected.table)
    pd.testing.assert_frame_equal(comp.result_.omnibus, expected.omnibus)


# --- Agreement with statsmodels GEE on predictions_ --------------------------


def _gee(rows, k, names):
    """statsmodels GEE of paper Algorithm 2 on the rows of `names` predicting k."""
    sub = rows[rows["classifier"].isin(names) & (rows["y_pred"] == k)]
    endog = (sub["y_true"] == k).to_numpy(dtype=float)
    exog = np.column_stack(
        [np.ones(len(sub))] + [(sub["classifier"] == n).to_numpy(float) for n in names[1:]]
    )
    groups = sub["record_id"].to_numpy()

    def gee(design):
        return sm.GEE(
            endog,
            design,
            groups=groups,
            family=sm.families.Binomial(),
            cov_struct=sm.cov_struct.Independence(),
        )

    model = gee(exog)
    fit = model.fit()
    score = model.compare_score_test(gee(exog[:, :1]).fit())["statistic"]
    return fit, score


@pytest.mark.parametrize("names", [["nb", "lr"], ["nb", "lr", "dt"]])
def test_result_equals_statsmodels_gee_on_predictions(data3, names):
    X, y = data3
    estimators = {n: _three()[n] for n in names}
    comp = CVPrecisionComparator(estimators, cv=_rskf()).fit(X, y)
    rows, table = comp.predictions_, comp.result_.table
    assert len(table) == 3 * (len(names) - 1)
    for _, row in table.iterrows():
        fit, score = _gee(rows, row["class"], ["nb", row["classifier"]])
        b, se = fit.params[1], fit.bse[1]
        np.testing.assert_allclose(row["log_or"], b, rtol=1e-9)
        np.testing.assert_allclose(row["log_or_se"], se, rtol=1e-9)
        np.testing.assert_allclose(row["wald_stat"], b**2 / se**2, rtol=1e-9)
        np.testing.assert_allclose(row["gs_stat"], score, rtol=1e-9)
    for _, row in comp.result_.omnibus.iterrows():
        fit, score = _gee(rows, row["class"], names)
        b, cov = fit.params[1:], fit.cov_params()[1:, 1:]
        assert row["df"] == len(names) - 1
        np.testing.assert_allclose(row["wald_stat"], b @ np.linalg.solve(cov, b), rtol=1e-9)
        np.testing.assert_allclose(row["gs_stat"], score, rtol=1e-9)


def test_repeated_identical_splits_give_single_pass_statistics(data3):
    # The paper's Table 11: identical repeats change no statistic, because
    # the sandwich is clustered by record.
    X, y = data3
    splits = list(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))
    once = CVPrecisionComparator(_three(), cv=splits).fit(X, y)
    thrice = CVPrecisionComparator(_three(), cv=splits * 3).fit(X, y)
    assert sorted(thrice.predictions_["repeat"].unique()) == [0, 1, 2]
    assert thrice.result_.n_rows == 3 * once.result_.n_rows
    t1, t3 = once.result_.table, thrice.result_.table
    np.testing.assert_allclose(t3[STAT_COLUMNS], t1[STAT_COLUMNS], rtol=1e-12)
    assert np.isfinite(t1["wgs_stat"]).all() and np.isnan(t3["wgs_stat"]).all()
    np.testing.assert_array_equal(t3["n"], 3 * t1["n"])
    cols = ["gs_stat", "gs_pvalue", "wald_stat", "wald_pvalue"]
    np.testing.assert_allclose(thrice.result_.omnibus[cols], once.result_.omnibus[cols], rtol=1e-12)
    # Pooling the 3N rows as independent (no clusters) would not preserve them.
    rows = thrice.predictions_
    pooled = compare_precision(
        rows.loc[rows.classifier == "nb", "y_true"].to_numpy(),
        {n: rows.loc[rows.classifier == n, "y_pred"].to_numpy() for n in ["nb", "lr", "dt"]},
    )
    assert not np.allclose(pooled.table["wald_stat"], t1["wald_stat"])


def test_odds_ratio_sentence_with_several_classifiers(data3):
    # Paper Table 9: "RF has 52% (95% CI 34%, 73%) higher odds than NB".
    X, y = data3
    comp = CVPrecisionComparator(_three(), cv=_rskf(), confidence_level=0.95).fit(X, y)
    gee = comp.result_["wald"]
    row = gee[(gee["class"] == 1) & (gee["classifier"] == "dt")].iloc[0]
    pct = [100 * (v - 1) for v in (row["odds_ratio"], row["ci_low"], row["ci_high"])]
    sentence = (
        f"DT has {pct[0]:.0f}% (95% CI {pct[1]:.0f}%, {pct[2]:.0f}%) "
        f"{'higher' if pct[0] > 0 else 'lower'} odds than NB"
    )
    # The same numbers from the stacked predictions and statsmodels GEE.
    fit, _ = _gee(comp.predictions_, 1, ["nb", "dt"])
    rows = comp.predictions_[comp.predictions_["y_pred"] == 1]
    prec = rows.assign(hit=rows["y_true"] == 1).groupby("classifier")["hit"].mean()
    log_or = special.logit(prec["dt"]) - special.logit(prec["nb"])
    z = stats.norm.isf(0.025)
    expected = [100 * (np.exp(log_or + s * z * fit.bse[1]) - 1) for s in (0, -1, 1)]
    assert sentence == (
        f"DT has {expected[0]:.0f}% (95% CI {expected[1]:.0f}%, {expected[2]:.0f}%) "
        f"{'higher' if expected[0] > 0 else 'lower'} odds than NB"
    )
    np.testing.assert_allclose(pct, expected, rtol=1e-9)
    omnibus = comp.result_.omnibus
    assert list(omnibus["df"]) == [2, 2, 2]
    assert "omnibus robust score" in comp.result_.summary().as_text()


# --- Parallelism --------------------------------------------------------------


def test_identical_results_for_n_jobs_and_dask(data2):
    distributed = pytest.importorskip("distributed")
    from sklearn.ensemble import RandomForestClassifier

    X, y = data2

    def run(estimator, **kwargs):
        estimators = {"nb": estimator, "rf": RandomForestClassifier(10, random_state=0)}
        return CVPrecisionComparator(estimators, cv=_rskf(), **kwargs).fit(X, y)

    serial = run(GaussianNB(), n_jobs=1)
    processes = run(GaussianNB(), n_jobs=2)
    _FIT_WORKERS.clear()
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster),
    ):
        with joblib.parallel_config(backend="dask"):
            on_dask = run(RecordingNB())
        workers = set(cluster.workers[i].address for i in cluster.workers)
    # Every fit ran on a worker of the cluster.
    assert len(_FIT_WORKERS) == 6 and set(_FIT_WORKERS) <= workers
    for other in (processes, on_dask):
        pd.testing.assert_frame_equal(other.predictions_, serial.predictions_)
        pd.testing.assert_frame_equal(other.result_.table, serial.result_.table)
        pd.testing.assert_frame_equal(other.result_.omnibus, serial.result_.omnibus)


# --- Splitters ---------------------------------------------------------------


def test_group_kfold_uses_groups(data2):
    X, y = data2
    groups = np.arange(len(y)) % 17
    comp = CVPrecisionComparator(
        {"nb": GaussianNB(), "lr": LogisticRegression()}, cv=GroupKFold(4)
    ).fit(X, y, groups=groups)
    pred = comp.predictions_
    assert comp.n_splits_ == 4
    assert (pred["repeat"] == 0).all() and len(pred) == 2 * len(y)
    # All records of a group are tested in the same fold.
    fold_of = pred.groupby(groups[pred["record_id"]])["fold"].nunique()
    assert (fold_of == 1).all()
    with pytest.raises(ValueError, match="groups=") as info:
        CVPrecisionComparator(
            {"nb": GaussianNB(), "lr": LogisticRegression()}, cv=GroupKFold(4)
        ).fit(X, y)
    assert "cv=GroupKFold" in str(info.value)


def test_shuffle_split_records_tested_several_times_or_never(data2):
    X, y = data2
    cv = ShuffleSplit(n_splits=4, test_size=0.3, random_state=0)
    comp = CVPrecisionComparator({"nb": GaussianNB(), "lr": LogisticRegression()}, cv=cv).fit(X, y)
    tests = np.concatenate([test for _, test in cv.split(X)])
    times = np.bincount(tests, minlength=len(y))
    assert times.max() >= 2 and (times == 0).any()
    nb = comp.predictions_[comp.predictions_["classifier"] == "nb"]
    counts = nb["record_id"].value_counts().reindex(np.arange(len(y)), fill_value=0)
    np.testing.assert_array_equal(counts.to_numpy(), times)
    # repeat numbers 0, 1, ... the occurrences of each record.
    assert (nb.groupby("record_id")["repeat"].max() + 1 == counts[counts > 0]).all()
    assert comp.result_.n_records == (times > 0).sum()
    assert comp.result_.n_rows == times.sum()
    expected = compare_precision(
        nb["y_true"].to_numpy(),
        {
            n: comp.predictions_.loc[comp.predictions_.classifier == n, "y_pred"].to_numpy()
            for n in ["nb", "lr"]
        },
        groups=nb["record_id"].to_numpy(),
    )
    pd.testing.assert_frame_equal(comp.result_.table, expected.table)


@pytest.mark.filterwarnings("ignore::sklearn_precision_stats.UndefinedStatisticWarning")
def test_leave_one_out_on_small_data():
    X, y = make_classification(n_samples=40, n_features=4, flip_y=0.2, random_state=2)
    estimators = {"nb": GaussianNB(), "dt": DecisionTreeClassifier(random_state=0)}
    comp = CVPrecisionComparator(estimators, cv=LeaveOneOut()).fit(X, y)
    assert comp.n_splits_ == 40
    assert len(comp.predictions_) == 80
    preds = {n: cross_val_predict(e, X, y, cv=LeaveOneOut()) for n, e in estimators.items()}
    pd.testing.assert_frame_equal(comp.result_.table, compare_precision(y, preds).table)


def test_int_cv_is_stratified_k_fold(data3):
    X, y = data3
    comp = CVPrecisionComparator(_three(), cv=4).fit(X, y)
    nb = comp.predictions_[comp.predictions_["classifier"] == "nb"]
    folds = np.empty(len(y), dtype=int)
    for i, (_, test) in enumerate(StratifiedKFold(4).split(X, y)):
        folds[test] = i
    np.testing.assert_array_equal(nb["fold"], folds)
    assert comp.n_splits_ == 4


def test_cv_as_iterable_of_masks_and_negative_indices(data2):
    X, y = data2
    n = len(y)
    mask = np.arange(n) < n // 2
    splits = [(~mask, mask), (np.flatnonzero(mask), np.flatnonzero(~mask) - n)]
    comp = CVPrecisionComparator({"nb": GaussianNB(), "lr": LogisticRegression()}, cv=splits).fit(
        X, y
    )
    nb = comp.predictions_[comp.predictions_["classifier"] == "nb"]
    np.testing.assert_array_equal(nb["record_id"], np.arange(n))
    np.testing.assert_array_equal(nb["fold"], (~mask).astype(int))


# --- Inputs --------------------------------------------------------------------


def test_string_labels_dataframe_and_pipeline(data3):
    X, y = data3
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    labels = np.array(["ant", "bee", "cat"], dtype=object)[y]
    # The column transformer selects by name, so it needs the DataFrame.
    lr = make_pipeline(
        ColumnTransformer([("num", StandardScaler(), ["f0", "f1", "f2", "f3"])]),
        LogisticRegression(),
    )
    estimators = [("nb", GaussianNB()), ("lr", lr)]
    cv = StratifiedKFold(3)
    comp = CVPrecisionComparator(estimators, cv=cv, reference="lr").fit(frame, labels)
    assert list(comp.classes_) == ["ant", "bee", "cat"]
    assert list(comp.feature_names_in_) == list(frame.columns)
    assert comp.n_features_in_ == 6
    assert list(comp.result_.table["class"]) == ["ant", "bee", "cat"]
    assert comp.result_.reference == "lr"
    rows = comp.predictions_[comp.predictions_["classifier"] == "lr"]
    np.testing.assert_array_equal(
        rows["y_pred"], cross_val_predict(clone(lr), frame, labels, cv=cv)
    )
    # A refit on an array forgets the feature names.
    comp.set_params(lr=LogisticRegression()).fit(X, labels)
    assert not hasattr(comp, "feature_names_in_")


def test_fit_params_are_sliced_to_training_rows(data2):
    X, y = data2
    X = X.copy()
    X[:, 0] = np.linspace(0.5, 2.0, len(y))  # the weights, visible in X
    weights = X[:, 0].copy()
    cv = _rskf()
    comp = CVPrecisionComparator({"check": WeightChecker(), "nb": GaussianNB()}, cv=cv).fit(
        X, y, sample_weight=weights
    )
    nb = comp.predictions_[comp.predictions_["classifier"] == "nb"]
    splits = list(cv.split(X, y))
    for repeat in (0, 1):
        expected = cross_val_predict(
            GaussianNB(),
            X,
            y,
            cv=splits[3 * repeat : 3 * repeat + 3],
            params={"sample_weight": weights},
        )
        np.testing.assert_array_equal(nb.loc[nb["repeat"] == repeat, "y_pred"], expected)


def test_cv_results_timings(data3):
    X, y = data3
    comp = CVPrecisionComparator(_three(), cv=_rskf()).fit(X, y)
    res = comp.cv_results_
    assert set(res) == {
        "classifier",
        "split",
        "fit_time",
        "predict_time",
        "n_train",
        "n_test",
        "failed",
    }
    assert all(len(v) == 18 for v in res.values())
    assert list(res["classifier"][:3]) == ["nb", "lr", "dt"]
    np.testing.assert_array_equal(res["split"], np.repeat(np.arange(6), 3))
    assert (res["fit_time"] > 0).all() and (res["predict_time"] > 0).all()
    assert (res["n_train"] + res["n_test"] == len(y)).all()
    assert not res["failed"].any()
    assert len(pd.DataFrame(res)) == 18


# --- error_score -------------------------------------------------------------


def _failing_setup(stage="fit"):
    X, y = make_classification(n_samples=120, n_features=4, flip_y=0.15, random_state=0)
    X = np.column_stack([np.arange(len(y)), X])  # X[:, 0]: the record id
    estimators = {"nb": GaussianNB(), "bad": FailOnRecord(record=50, stage=stage)}
    return X, y, estimators, KFold(4)  # record 50 is tested in split 1


def _notes(exc):
    return "\n".join(getattr(exc, "__notes__", []))


def test_error_score_raise_keeps_the_estimators_exception():
    # The estimator's own exception, of its own type, with a note naming the
    # classifier and the split: code that catches it keeps working.
    X, y, estimators, cv = _failing_setup()
    with pytest.raises(ZeroDivisionError) as info:
        CVPrecisionComparator(estimators, cv=cv).fit(X, y)
    assert re.search(r"classifier 'bad' on split 1 \(0-based, of 4\)", _notes(info.value))
    assert "error_score=np.nan" in _notes(info.value)


def test_error_score_raise_from_worker_processes(data2):
    # The exception comes back pickled from a loky process, notes included.
    X, y = data2
    estimators = {"nb": GaussianNB(), "lr": LogisticRegression(C=-1.0)}
    with pytest.raises(ValueError, match=r"'C' parameter") as info:
        CVPrecisionComparator(estimators, cv=3, n_jobs=2).fit(X, y)
    assert re.search(r"classifier 'lr' on split \d", _notes(info.value))


@pytest.mark.parametrize("stage", ["fit", "predict"])
def test_error_score_number_drops_failed_split_for_every_classifier(stage):
    X, y, estimators, cv = _failing_setup(stage)
    comp = CVPrecisionComparator(estimators, cv=cv, error_score=np.nan)
    with pytest.warns(
        FitFailedWarning,
        match=r"1 of 8 fits failed .*'bad' on split 1.* "
        r"The 30 \(record, repeat\) rows .* dropped for every classifier",
    ):
        comp.fit(X, y)
    pred = comp.predictions_
    assert set(pred["fold"]) == {0, 2, 3}
    assert len(pred) == 2 * 90 and not pred["record_id"].between(30, 59).any()
    assert comp.result_.n_records == 90
    res = pd.DataFrame(comp.cv_results_)
    failed = res[res["failed"]]
    assert list(zip(failed["classifier"], failed["split"], strict=False)) == [("bad", 1)]
    assert np.isnan(failed["fit_time"]).all()
    # The comparison is the one on the records of the other splits.
    keep = ~np.isin(np.arange(len(y)), np.arange(30, 60))
    working = {"nb": GaussianNB(), "bad": FailOnRecord(record=-1, stage="never")}
    preds = {n: cross_val_predict(e, X, y, cv=cv)[keep] for n, e in working.items()}
    expected = compare_precision(y[keep], preds)
    pd.testing.assert_frame_equal(comp.result_.table, expected.table)


def test_all_fits_failing_raises():
    X, y, _, cv = _failing_setup()
    estimators = {"a": FailOnRecord(record=-1), "b": FailOnRecord(record=-2)}
    with pytest.raises(ValueError, match="All 8 fits failed"):
        CVPrecisionComparator(estimators, cv=cv, error_score=0).fit(X, y)
    # One failure in every split leaves nothing to compare either.
    estimators = {"a": GaussianNB(), "b": FailOnRecord(record=-1)}
    with pytest.raises(ValueError, match="Every one of the 4 splits has a failed fit"):
        CVPrecisionComparator(estimators, cv=cv, error_score=0).fit(X, y)


# --- Progress --------------------------------------------------------------------


def test_verbose_shows_tqdm_progress(data2, capsys):
    pytest.importorskip("tqdm")
    X, y = data2
    CVPrecisionComparator({"nb": GaussianNB(), "lr": LogisticRegression()}, cv=3, verbose=1).fit(
        X, y
    )
    err = capsys.readouterr().err
    assert "CVPrecisionComparator" in err and "6/6" in err


def test_verbose_without_tqdm_uses_joblib_messages(data2, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    X, y = data2
    CVPrecisionComparator({"nb": GaussianNB(), "lr": LogisticRegression()}, cv=3, verbose=1).fit(
        X, y
    )
    err = capsys.readouterr().err
    assert "[Parallel(n_jobs=1)]: Done   6 out of   6" in err
    CVPrecisionComparator({"nb": GaussianNB(), "lr": LogisticRegression()}, cv=3).fit(X, y)
    assert capsys.readouterr().err == ""


# --- Parameters ------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, fit_kwargs, match",
    [
        ({"cv": "five"}, {}, r"The 'cv' parameter of CVPrecisionComparator must be"),
        ({"cv": 1}, {}, r"The 'cv' parameter of CVPrecisionComparator must be"),
        ({"cv": True}, {}, r"The 'cv' parameter"),
        ({"cv": [(np.arange(3), np.arange(3, 6), 0)]}, {}, r"could not split .*int >= 2"),
        ({"cv": []}, {}, r"produced no split"),
        ({"cv": [(np.arange(5),)]}, {}, r"could not split .* list of \(train, test\)"),
        (
            {"cv": [(np.arange(10, 200), np.arange(10))] + [(np.arange(5), np.array([], int))]},
            {},
            r"split 1 of cv has an empty test set",
        ),
        ({"cv": [(np.arange(10, 300), np.arange(10))]}, {}, r"out of range for 200"),
        ({"cv": [(np.arange(10, 200) * 0.5, np.arange(10))]}, {}, r"integer positions"),
        ({"error_score": "ignore"}, {}, r"The 'error_score' parameter .* must be"),
        ({"error_score": True}, {}, r"error_score must be 'raise' or a number"),
        ({"reference": "svm"}, {}, r"reference='svm' is not one of the estimators"),
        ({"estimators": {"nb": GaussianNB()}}, {}, r"at least two classifiers"),
        (
            {"estimators": [GaussianNB(), LogisticRegression()]},
            {},
            r"dict name -> estimator",
        ),
        ({"confidence_level": 1.5}, {}, r"The 'confidence_level' parameter"),
        ({"metric": "f1"}, {}, r"The 'metric' parameter .* \{.*'npv'"),
        ({"verbose": -1}, {}, r"The 'verbose' parameter"),
        ({}, {"y": np.zeros(150, int)}, r"X has 200 samples but y has 150"),
        ({}, {"groups": np.zeros(3)}, r"groups has 3 entries but X has 200"),
        ({}, {"y": np.zeros((200, 3))}, r"y must be 1-D"),
    ],
)
def test_bad_arguments_raise_clear_errors(data2, kwargs, fit_kwargs, match):
    X, y = data2
    params = {"estimators": {"nb": GaussianNB(), "lr": LogisticRegression()}, **kwargs}
    fit_args = {"y": y, **fit_kwargs}
    with pytest.raises(ValueError, match=match):
        CVPrecisionComparator(**params).fit(X, **fit_args)


def test_clone_and_nested_params(data2):
    X, y = data2
    comp = CVPrecisionComparator(
        {
            "nb": GaussianNB(),
            "lr": make_pipeline(StandardScaler(), LogisticRegression()),
        },
        cv=3,
        reference="lr",
        error_score=np.nan,
    )
    params = comp.get_params()
    assert params["cv"] == 3 and params["reference"] == "lr"
    assert params["lr__logisticregression__C"] == 1.0
    comp.set_params(nb__var_smoothing=1e-3, lr__logisticregression__C=0.1, cv=4, verbose=0)
    cloned = clone(comp)
    assert cloned is not comp
    assert cloned.get_params()["nb__var_smoothing"] == 1e-3
    assert cloned.get_params()["lr__logisticregression__C"] == 0.1
    assert cloned.get_params()["cv"] == 4
    assert cloned.estimators["nb"] is not comp.estimators["nb"]
    cloned.set_params(nb=DecisionTreeClassifier(max_depth=2, random_state=0))
    assert isinstance(cloned.estimators["nb"], DecisionTreeClassifier)
    assert isinstance(comp.estimators["nb"], GaussianNB)
    cloned.fit(X, y)
    assert not hasattr(comp, "result_")
    assert cloned.n_splits_ == 4
    assert list(cloned.result_.classifiers) == ["lr", "nb"]
    with pytest.raises(ValueError, match="'svm' is neither a parameter nor an estimator"):
        cloned.set_params(svm__C=1.0)


def test_unused_classes_warn_not_crash():
    # A class that one classifier never predicts gives NaN statistics and
    # the engine's warning, not an error.
    X, y = make_classification(
        n_samples=90,
        n_features=4,
        n_classes=3,
        n_informative=3,
        n_redundant=0,
        random_state=0,
    )
    estimators = {
        "nb": GaussianNB(),
        "dt": DecisionTreeClassifier(max_depth=1, random_state=0),
    }
    with pytest.warns(UndefinedStatisticWarning):
        comp = CVPrecisionComparator(estimators, cv=3).fit(X, y)
    assert comp.result_.table["wald_stat"].isna().any()
