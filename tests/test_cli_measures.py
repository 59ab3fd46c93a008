"""The command line's compare on the measures of compare_metric."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import f1_score

from sklearn_precision_stats import compare_metric
from sklearn_precision_stats.__main__ import main
from sklearn_precision_stats.cli._commands import METRICS
from sklearn_precision_stats.comparators._paired_comparator import MEASURES

from .conftest import cli_csv_table

pytest.importorskip("pyarrow")


@pytest.fixture
def frame():
    rng = np.random.default_rng(3)
    n_records = 250
    y = np.repeat(rng.integers(0, 3, n_records), 2)
    n = y.shape[0]

    def noisy(p):
        return np.where(rng.random(n) < p, y, rng.integers(0, 3, n))

    return pd.DataFrame(
        {"truth": y, "a": noisy(0.8), "b": noisy(0.7), "rec": np.repeat(np.arange(n_records), 2)}
    )


def _expected(frame, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        preds = {"a": frame["a"].to_numpy(), "b": frame["b"].to_numpy()}
        return compare_metric(frame["truth"].to_numpy(), preds, **kwargs).table


def test_every_measure_is_offered():
    assert set(METRICS) == set(MEASURES)


@pytest.mark.parametrize(
    ("options", "kwargs"),
    [
        (["--metric", "f1", "--average", "macro"], {"metric": "f1", "average": "macro"}),
        (["--metric", "mcc"], {"metric": "mcc"}),
        (["--metric", "f1"], {"metric": "f1"}),
        (["--metric", "fbeta", "--beta", "2"], {"metric": "fbeta", "beta": 2.0}),
        (
            ["--metric", "cohen_kappa", "--weights", "linear"],
            {"metric": "cohen_kappa", "weights": "linear"},
        ),
        (["--metric", "recall", "--average", "micro"], {"metric": "recall", "average": "micro"}),
    ],
)
@pytest.mark.parametrize("clustered", [False, True])
def test_compare_measure_equals_in_memory(tmp_path, frame, capsys, options, kwargs, clustered):
    path = tmp_path / "preds.csv"
    frame.to_csv(path, index=False)
    argv = ["compare", path, "--truth", "truth", "--classifiers", "a,b", *options]
    if clustered:
        argv += ["--groups", "rec"]
        kwargs = {**kwargs, "groups": frame["rec"].to_numpy()}
    table = cli_csv_table(argv, capsys)
    expected = _expected(frame, **kwargs)
    assert list(table.columns) == list(expected.columns)
    assert [str(c) for c in table["class"]] == [str(c) for c in expected["class"]]
    for column in expected.columns[2:]:
        np.testing.assert_allclose(table[column], expected[column], rtol=1e-12)


def test_macro_f1_point_value_is_scikit_learns(tmp_path, frame, capsys):
    path = tmp_path / "preds.parquet"
    frame.to_parquet(path)
    argv = ["compare", path, "--truth", "truth", "--classifiers", "a,b"]
    table = cli_csv_table([*argv, "--metric", "f1", "--average", "macro"], capsys)
    np.testing.assert_allclose(
        table["f1"], f1_score(frame["truth"], frame["b"], average="macro"), rtol=1e-12
    )
    np.testing.assert_allclose(
        table["f1_reference"], f1_score(frame["truth"], frame["a"], average="macro"), rtol=1e-12
    )


@pytest.mark.parametrize(
    ("options", "match"),
    [
        (["--metric", "f1", "--beta", "2"], "--beta is for --metric fbeta"),
        (["--metric", "mcc", "--labels", "1"], "--labels: mcc is one number"),
        (["--metric", "f1", "--pos-label", "1"], "--pos-label is for --average binary"),
        (["--metric", "f1", "--average", "binary"], "needs two classes"),
    ],
)
def test_measure_option_errors(tmp_path, frame, capsys, options, match):
    path = tmp_path / "preds.csv"
    frame.to_csv(path, index=False)
    code = main(["compare", str(path), "--truth", "truth", "--classifiers", "a,b", *options])
    err = capsys.readouterr().err
    assert code == 2 and match in err and len(err.strip().splitlines()) == 1


def test_global_takes_the_gee_measures_only(tmp_path, frame, capsys):
    path = tmp_path / "preds.csv"
    frame.to_csv(path, index=False)
    with pytest.raises(SystemExit) as exc:
        main(["global", str(path), "--truth", "truth", "--metric", "f1"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "invalid choice: 'f1'" in err


def test_too_many_classes_for_the_joint_table(tmp_path, frame, capsys, monkeypatch):
    from sklearn_precision_stats import ComparisonCounts

    # As with thousands of classes: the counts keep agreement sums alone.
    monkeypatch.setattr(ComparisonCounts, "joint_table", lambda self: None)
    path = tmp_path / "preds.csv"
    frame.to_csv(path, index=False)
    code = main(["compare", str(path), "--truth", "truth", "--metric", "mcc"])
    err = capsys.readouterr().err
    assert code == 2 and "too large" in err and len(err.strip().splitlines()) == 1
