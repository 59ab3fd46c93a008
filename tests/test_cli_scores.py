"""The command line's compare-scores: threshold-free comparisons of score columns."""

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

from sklearn_precision_stats import (
    compare_average_precision,
    compare_precision_at_recall,
    compare_roc_auc,
    delong_test,
)
from sklearn_precision_stats.__main__ import main

from .conftest import cli_csv_table, quiet

pytest.importorskip("pyarrow")


@pytest.fixture
def binary(tmp_path):
    rng = np.random.default_rng(0)
    n = 400
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame(
        {
            "truth": np.where(y == 1, "sick", "well"),
            "a": y + rng.normal(size=n),
            "b": y + rng.normal(scale=2, size=n),
            "c": np.round(y + rng.normal(scale=1.5, size=n), 1),  # ties
            "rec": np.arange(n) // 2,
        }
    )
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    return frame, path


def _assert_same(table, expected):
    assert list(table.columns) == list(expected.columns)
    for column in expected.columns[2:]:
        np.testing.assert_allclose(table[column], expected[column], rtol=1e-12)


def test_average_precision_equals_in_memory(binary, capsys):
    frame, path = binary
    base = ["compare-scores", path, "--truth", "truth", "--scores", "A:a,B:b,C:c"]
    table = cli_csv_table(
        [*base, "--pos-label", "sick", "--n-resamples", 300, "--random-state", 0], capsys
    )
    positive = (frame["truth"] == "sick").to_numpy()
    scores = {"A": frame["a"], "B": frame["b"], "C": frame["c"]}
    np.testing.assert_allclose(
        table["average_precision"],
        [average_precision_score(positive, frame[c]) for c in ("b", "c")],
        rtol=1e-12,
    )
    expected = quiet(
        compare_average_precision,
        frame["truth"].to_numpy(),
        scores,
        labels=["well", "sick"],
        n_resamples=300,
        random_state=0,
    )
    _assert_same(table, expected.table)


def test_roc_auc_subsumes_delong(binary, capsys):
    frame, path = binary
    base = ["compare-scores", path, "--truth", "truth", "--scores", "a:a,b:b", "--pos-label"]
    table = cli_csv_table([*base, "sick", "--metric", "roc_auc"], capsys)
    positive = (frame["truth"] == "sick").to_numpy()
    np.testing.assert_allclose(table["roc_auc"], roc_auc_score(positive, frame["b"]), rtol=1e-12)
    test = delong_test(positive, frame["a"], frame["b"])
    np.testing.assert_allclose(table["diff_pvalue"], test.pvalue, rtol=1e-9)
    # The delong subcommand stays, as before.
    code = main(["delong", str(path), "--truth", "truth", "--scores", "a,b", "--pos-label", "sick"])
    assert code == 0 and "DeLong" in capsys.readouterr().out


def test_clustered_precision_at_recall(binary, capsys):
    frame, path = binary
    argv = ["compare-scores", path, "--truth", "truth", "--scores", "A:a,B:b", "--groups", "rec"]
    argv += ["--pos-label", "sick", "--metric", "precision_at_recall", "--recall", "0.8"]
    table = cli_csv_table([*argv, "--n-resamples", 200, "--random-state", 3], capsys)
    expected = quiet(
        compare_precision_at_recall,
        frame["truth"].to_numpy(),
        {"A": frame["a"], "B": frame["b"]},
        recall=0.8,
        groups=frame["rec"].to_numpy(),
        labels=["well", "sick"],
        n_resamples=200,
        random_state=3,
    )
    _assert_same(table, expected.table)


def test_one_column_per_class(tmp_path, capsys):
    rng = np.random.default_rng(1)
    n = 300
    y = rng.integers(0, 3, n)
    a, b = rng.random((n, 3)) + np.eye(3)[y], rng.random((n, 3))
    frame = pd.DataFrame({"truth": y})
    for k in range(3):
        frame[f"a{k}"], frame[f"b{k}"] = a[:, k], b[:, k]
    path = tmp_path / "multi.parquet"
    frame.to_parquet(path)
    argv = ["compare-scores", path, "--truth", "truth", "--scores", "A:a0+a1+a2,B:b0+b1+b2"]
    table = cli_csv_table([*argv, "--metric", "roc_auc"], capsys)
    np.testing.assert_allclose(
        table["roc_auc"], roc_auc_score(np.eye(3)[y], b, average=None), rtol=1e-12
    )
    expected = quiet(compare_roc_auc, y, {"A": a, "B": b})
    _assert_same(table, expected.table)


@pytest.mark.parametrize(
    ("scores", "extra", "match"),
    [
        ("A:a", [], "at least two classifiers"),
        ("A:a,A:b", [], "names must be unique"),
        ("A:a,B:nope", [], "--scores: column 'nope' is not in"),
        ("A:a+b,B:b+c", [], "has 2 column(s); with 2 classes give one column"),
        ("A:a,B:b", ["--reference", "Z"], "--reference: 'Z' is not one of"),
    ],
)
def test_compare_scores_usage_errors(binary, capsys, scores, extra, match):
    _, path = binary
    code = main(["compare-scores", str(path), "--truth", "truth", "--scores", scores, *extra])
    err = capsys.readouterr().err
    assert code == 2 and match in err and len(err.strip().splitlines()) == 1
