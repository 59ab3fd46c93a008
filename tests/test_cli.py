"""The command line on prediction files: formats, subcommands, layouts, usage errors."""

import io
import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from sklearn_precision_stats.__main__ import main
from sklearn_precision_stats.classic import delong_test, mcnemar_test
from sklearn_precision_stats.paired import (
    compare_accuracy,
    compare_npv,
    compare_precision,
    compare_recall,
    compare_specificity,
)

from .conftest import run_cli

pa = pytest.importorskip("pyarrow")

COMPARE = {
    "precision": compare_precision,
    "npv": compare_npv,
    "recall": compare_recall,
    "specificity": compare_specificity,
    "accuracy": compare_accuracy,
}


def _wide(n=400, n_classes=3, seed=0, strings=False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)

    def noisy(p):
        return np.where(rng.random(n) < p, y, rng.integers(0, n_classes, n))

    frame = pd.DataFrame({"truth": y, "a": noisy(0.8), "b": noisy(0.7), "c": noisy(0.6)})
    if strings:
        names = np.array(["cat", "dog", "emu", "fox"])
        frame = frame.apply(lambda col: names[col.to_numpy()])
    return frame


def _write(frame, path):
    suffix = os.path.splitext(str(path))[1]
    if suffix == ".csv":
        frame.to_csv(path, index=False)
    elif suffix == ".parquet":
        frame.to_parquet(path, index=False)
    else:
        frame.reset_index(drop=True).to_feather(path)
    return str(path)


def _csv_table(text):
    return pd.read_csv(io.StringIO(text), keep_default_na=True)


def _assert_same_table(cli, expected):
    assert list(cli.columns) == list(expected.columns)
    assert cli.shape == expected.shape
    for column in expected.columns:
        left, right = cli[column].to_numpy(), expected[column].to_numpy()
        if right.dtype.kind == "f":
            np.testing.assert_array_equal(left.astype(float), right)
        else:
            assert [str(v) for v in left] == [str(v) for v in right]


@pytest.fixture(scope="module")
def wide_frame():
    return _wide()


@pytest.fixture
def wide_files(tmp_path, wide_frame):
    return {
        suffix: _write(wide_frame, tmp_path / f"preds.{suffix}")
        for suffix in ("csv", "parquet", "feather")
    }


@pytest.mark.parametrize("suffix", ["csv", "parquet", "feather"])
@pytest.mark.parametrize("metric", list(COMPARE))
def test_compare_csv_equals_in_memory(wide_files, wide_frame, capsys, suffix, metric):
    code, out, _ = run_cli(
        ["compare", wide_files[suffix], "--truth", "truth", "--metric", metric, "--format", "csv"],
        capsys,
    )
    assert code == 0
    preds = {name: wide_frame[name].to_numpy() for name in ("a", "b", "c")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = COMPARE[metric](wide_frame["truth"].to_numpy(), preds).table
    _assert_same_table(_csv_table(out), expected)


def test_every_output_format(wide_files, wide_frame, capsys, tmp_path):
    preds = {name: wide_frame[name].to_numpy() for name in ("a", "b", "c")}
    result = compare_precision(wide_frame["truth"].to_numpy(), preds, confidence_level=0.9)
    base = ["compare", wide_files["parquet"], "--truth", "truth", "--confidence-level", "0.9"]
    outputs = {}
    for fmt in ("text", "markdown", "latex", "csv", "json"):
        path = tmp_path / f"out.{fmt}"
        code, out, err = run_cli([*base, "--format", fmt, "--output", path], capsys)
        assert code == 0, err
        assert out == ""
        outputs[fmt] = path.read_text()
    assert outputs["text"].strip() == str(result).strip()
    # Markdown and LaTeX are the result's own compact exports.
    assert outputs["markdown"].strip() == result.to_markdown().strip()
    assert outputs["latex"].strip() == result.to_latex().strip()
    _assert_same_table(_csv_table(outputs["csv"]), result.table)
    payload = json.loads(outputs["json"])
    assert payload["metric"] == "precision" and payload["reference"] == "a"
    assert payload["confidence_level"] == 0.9
    table = pd.DataFrame(payload["table"])
    _assert_same_table(table, result.table)
    omnibus = pd.DataFrame(payload["omnibus"])
    np.testing.assert_array_equal(omnibus["gs_pvalue"], result.omnibus["gs_pvalue"])
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".tmp-")]


def test_classifiers_reference_and_labels(wide_files, wide_frame, capsys):
    code, out, _ = run_cli(
        [
            "compare",
            wide_files["csv"],
            "--truth",
            "truth",
            "--classifiers",
            "c,b",
            "--reference",
            "b",
            "--labels",
            "2",
            "0",
            "--format",
            "csv",
        ],
        capsys,
    )
    assert code == 0
    expected = compare_precision(
        wide_frame["truth"],
        {"c": wide_frame["c"], "b": wide_frame["b"]},
        reference="b",
        labels=[2, 0],
    ).table
    _assert_same_table(_csv_table(out), expected)


def test_string_labels_and_groups(tmp_path, capsys):
    frame = _wide(strings=True)
    frame["record"] = np.arange(frame.shape[0]) // 2  # two rows per record
    expected = _check_grouped_compare(frame, tmp_path / "s.parquet", capsys)
    assert expected.n_records < expected.n_rows


def _check_grouped_compare(frame, path, capsys):
    """``compare --groups record`` on `frame` saved at `path` gives the in-memory table."""
    path = _write(frame, path)
    code, out, _ = run_cli(
        ["compare", path, "--truth", "truth", "--groups", "record", "--format", "csv"], capsys
    )
    assert code == 0
    expected = compare_precision(
        frame["truth"].to_numpy(),
        {k: frame[k].to_numpy() for k in ("a", "b", "c")},
        groups=frame["record"].to_numpy(),
    )
    _assert_same_table(_csv_table(out), expected.table)
    return expected


def _long(frame, n_repeats=2, seed=1):
    """The long layout of repeated predictions, rows shuffled."""
    rng = np.random.default_rng(seed)
    blocks = []
    for repeat in range(n_repeats):
        for name in ("a", "b", "c"):
            noisy = np.where(
                rng.random(frame.shape[0]) < 0.7, frame["truth"], frame[name].to_numpy()
            )
            blocks.append(
                pd.DataFrame(
                    {
                        "record_id": np.arange(frame.shape[0]),
                        "repeat": repeat,
                        "classifier": name,
                        "y_true": frame["truth"].to_numpy(),
                        "y_pred": noisy,
                    }
                )
            )
    long = pd.concat(blocks, ignore_index=True)
    return long.iloc[rng.permutation(long.shape[0])].reset_index(drop=True)


def _long_arrays(long):
    """Aligned in-memory arrays of a long frame: sorted by (record, repeat)."""
    ordered = long.sort_values(["classifier", "record_id", "repeat"], kind="stable")
    preds = {
        name: block["y_pred"].to_numpy() for name, block in ordered.groupby("classifier", sort=True)
    }
    first = ordered[ordered["classifier"] == "a"]
    return first["y_true"].to_numpy(), preds, first["record_id"].to_numpy()


LONG_ARGS = [
    "--long",
    "--truth",
    "y_true",
    "--classifier-col",
    "classifier",
    "--prediction-col",
    "y_pred",
    "--record-col",
    "record_id",
]


def test_long_layout_clustered(tmp_path, wide_frame, capsys):
    long = _long(wide_frame)
    # Within a record the repeats must pair in file order: sort them so.
    long = long.sort_values("repeat", kind="stable").reset_index(drop=True)
    path = _write(long, tmp_path / "long.feather")
    code, out, err = run_cli(["compare", path, *LONG_ARGS, "--format", "csv"], capsys)
    assert code == 0, err
    y, preds, groups = _long_arrays(long)
    # The default reference is the classifier of the file's first row.
    preds = {name: preds[name] for name in dict.fromkeys(long["classifier"])}
    expected = compare_precision(y, preds, groups=groups)
    assert expected.n_records == wide_frame.shape[0] < expected.n_rows
    _assert_same_table(_csv_table(out), expected.table)


def test_long_layout_from_cv_comparator(tmp_path, capsys):
    from sklearn.datasets import load_iris
    from sklearn.dummy import DummyClassifier
    from sklearn.model_selection import RepeatedStratifiedKFold
    from sklearn.naive_bayes import GaussianNB
    from sklearn.tree import DecisionTreeClassifier

    from sklearn_precision_stats.comparators import CVPrecisionComparator

    X, y = load_iris(return_X_y=True)
    comparator = CVPrecisionComparator(
        {
            "nb": GaussianNB(),
            "tree": DecisionTreeClassifier(max_depth=2, random_state=0),
            "dummy": DummyClassifier(strategy="stratified", random_state=0),
        },
        cv=RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=0),
        reference="nb",
    )
    path = tmp_path / "cv.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comparator.fit(X, y)
        _write(comparator.predictions_, path)
        code, out, err = run_cli(
            ["compare", path, *LONG_ARGS, "--classifiers", "nb,tree,dummy", "--format", "csv"],
            capsys,
        )
    assert code == 0, err
    _assert_same_table(_csv_table(out), comparator.result_.table)


def test_global_subcommand(wide_files, wide_frame, capsys):
    preds = {name: wide_frame[name].to_numpy() for name in ("a", "b", "c")}
    result = compare_precision(wide_frame["truth"].to_numpy(), preds)
    for method in ("fisher", "dai-cui"):
        code, out, _ = run_cli(
            [
                "global",
                wide_files["parquet"],
                "--truth",
                "truth",
                "--method",
                method,
                "--n-resamples",
                "50",
                "--random-state",
                "3",
                "--format",
                "csv",
            ],
            capsys,
        )
        assert code == 0
        expected = result.global_test(method=method, n_resamples=50, random_state=3).to_frame()
        _assert_same_table(_csv_table(out), expected)
    code, out, _ = run_cli(
        ["global", wide_files["csv"], "--truth", "truth", "--method", "simes"], capsys
    )
    assert code == 0 and "Global null test" in out


def test_mcnemar_subcommand(wide_files, wide_frame, capsys, tmp_path):
    code, out, _ = run_cli(
        [
            "mcnemar",
            wide_files["csv"],
            "--truth",
            "truth",
            "--classifiers",
            "a,b",
            "--method",
            "midp",
            "--format",
            "json",
        ],
        capsys,
    )
    assert code == 0
    row = json.loads(out)["mcnemar"][0]
    expected = mcnemar_test(wide_frame["truth"], wide_frame["a"], wide_frame["b"], method="midp")
    assert row["statistic"] == expected.statistic and row["pvalue"] == expected.pvalue
    assert (row["ci_low"], row["ci_high"]) == tuple(expected.confidence_interval())
    # Long layout with repeated records: the clustered test.
    long = _long(wide_frame).sort_values("repeat", kind="stable")
    path = _write(long[long["classifier"] != "c"], tmp_path / "long.parquet")
    code, out, _ = run_cli(["mcnemar", path, *LONG_ARGS, "--format", "csv"], capsys)
    assert code == 0
    y, preds, groups = _long_arrays(long[long["classifier"] != "c"])
    expected = mcnemar_test(y, preds["a"], preds["b"], groups=groups)
    frame = _csv_table(out)
    assert frame.loc[0, "statistic"] == expected.statistic
    assert frame.loc[0, "n_groups"] == expected.n_groups
    code, out, _ = run_cli(["mcnemar", wide_files["csv"], "--truth", "truth"], capsys)
    assert code == 2


def test_delong_subcommand(tmp_path, capsys):
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 300)
    frame = pd.DataFrame(
        {"y": y, "s1": y + rng.normal(0, 1, 300), "s2": y + rng.normal(0, 1.5, 300)}
    )
    path = _write(frame, tmp_path / "scores.csv")
    code, out, _ = run_cli(
        ["delong", path, "--truth", "y", "--scores", "s1,s2", "--format", "csv"], capsys
    )
    assert code == 0
    expected = delong_test(frame["y"], frame["s1"], frame["s2"])
    row = _csv_table(out).iloc[0]
    assert row["statistic"] == expected.statistic and row["auc_a"] == expected.auc_a
    code, out, _ = run_cli(["delong", path, "--truth", "y", "--scores", "s1,zz"], capsys)
    assert code == 2


def _usage_error(argv, capsys, output, match):
    code, out, err = run_cli([*argv, "--output", output], capsys)
    assert code == 2
    assert match in err, err
    assert out == ""
    assert not os.path.exists(output)
    assert not [p for p in os.listdir(os.path.dirname(output)) if p.startswith(".tmp-")]


def test_usage_errors(tmp_path, wide_files, wide_frame, capsys):
    out = str(tmp_path / "result.csv")
    csv = wide_files["csv"]
    _usage_error(["compare", csv, "--truth", "label"], capsys, out, "column 'label' is not in")
    _usage_error(
        ["compare", csv, "--truth", "truth", "--groups", "rec"], capsys, out, "--groups: column"
    )
    _usage_error(
        ["compare", csv, "--truth", "truth", "--classifiers", "a,zz"],
        capsys,
        out,
        "unknown classifier 'zz'",
    )
    _usage_error(
        ["compare", csv, "--truth", "truth", "--reference", "zz"], capsys, out, "--reference"
    )
    _usage_error(
        ["compare", csv, "--truth", "truth", "--labels", "7"], capsys, out, "class '7' does not"
    )
    _usage_error(
        ["compare", csv, "--truth", "truth", "--classifiers", "a"],
        capsys,
        out,
        "at least two classifiers",
    )
    _usage_error(["compare", csv, "--long", "--truth", "truth"], capsys, out, "--long needs")
    long_path = _write(_long(wide_frame), tmp_path / "long.csv")
    bad_col = [("model" if a == "classifier" else a) for a in LONG_ARGS]
    _usage_error(["compare", long_path, *bad_col], capsys, out, "--classifier-col: column 'model'")
    _usage_error(
        ["compare", long_path, *LONG_ARGS, "--classifiers", "a,q"],
        capsys,
        out,
        "classifier 'q' does not occur",
    )
    header_only = tmp_path / "header.csv"
    header_only.write_text("truth,a,b\n")
    _usage_error(["compare", header_only, "--truth", "truth"], capsys, out, "no data rows")
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    _usage_error(["compare", empty, "--truth", "truth"], capsys, out, "is empty")
    empty_parquet = _write(wide_frame.iloc[:0], tmp_path / "empty.parquet")
    _usage_error(["compare", empty_parquet, "--truth", "truth"], capsys, out, "no data rows")
    nan = tmp_path / "nan.csv"
    nan.write_text("truth,a,b\n0,1,1\n1,,0\n1,1,1\n")
    _usage_error(["compare", nan, "--truth", "truth"], capsys, out, "column 'a' has a missing")
    nan_truth = _write(
        pd.DataFrame({"truth": [0.0, np.nan, 1.0], "a": [0, 1, 1], "b": [1, 1, 0]}),
        tmp_path / "nan.parquet",
    )
    _usage_error(
        ["compare", nan_truth, "--truth", "truth"], capsys, out, "--truth column 'truth' has"
    )
    proba = _write(
        pd.DataFrame({"truth": [0, 1, 1], "a": [0.2, 0.7, 0.9], "b": [1, 1, 0]}),
        tmp_path / "proba.feather",
    )
    _usage_error(["compare", proba, "--truth", "truth"], capsys, out, "continuous values")
    _usage_error(["compare", tmp_path / "nope.csv", "--truth", "t"], capsys, out, "no such file")
    odd = tmp_path / "preds.xlsx"
    odd.write_text("x")
    _usage_error(["compare", odd, "--truth", "t"], capsys, out, "--input-format")


def test_failure_keeps_an_existing_output(tmp_path, wide_files, capsys):
    out = tmp_path / "result.csv"
    out.write_text("previous\n")
    code, _, _ = run_cli(
        ["compare", wide_files["csv"], "--truth", "missing", "--output", out], capsys
    )
    assert code == 2 and out.read_text() == "previous\n"


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        (["--truth", "truth", "--metric", "f2"], "--metric: invalid choice: 'f2'"),
        (["--truth", "truth", "--confidence-level", "95"], "strictly between 0 and 1"),
        (["--truth", "truth", "--format", "xml"], "--format: invalid choice: 'xml'"),
        ([], "the following arguments are required: --truth"),
    ],
)
def test_bad_option_values_exit_2(wide_files, capsys, extra, match):
    with pytest.raises(SystemExit) as info:
        main(["compare", wide_files["csv"], *extra])
    assert info.value.code == 2
    assert match in capsys.readouterr().err


def test_console_entry_point_exit_status(wide_files):
    bad = subprocess.run(
        [
            sys.executable,
            "-m",
            "sklearn_precision_stats",
            "compare",
            wide_files["csv"],
            "--truth",
            "x",
        ],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2
    assert "compare: error: --truth: column 'x' is not in" in bad.stderr
    assert bad.stdout == ""


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_only_on_a_terminal(wide_files, capsys, monkeypatch):
    pytest.importorskip("tqdm")
    from sklearn_precision_stats.cli import _io

    terminal = _Terminal()
    monkeypatch.setattr(_io.sys, "stderr", terminal)
    code = main(["compare", wide_files["parquet"], "--truth", "truth", "--format", "csv"])
    assert code == 0
    assert "rows" in terminal.getvalue()  # tqdm's bar, unit " rows"
    monkeypatch.undo()
    _, _, err = run_cli(["compare", wide_files["parquet"], "--truth", "truth"], capsys)
    assert "rows/s" not in err and "it/s" not in err


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_many_small_batches_equal_in_memory(tmp_path, capsys, monkeypatch, suffix):
    from sklearn_precision_stats.cli import _io

    monkeypatch.setattr(_io, "BATCH_ROWS", 64)
    monkeypatch.setattr(_io, "CSV_BLOCK_BYTES", 1024)
    frame = _wide(n=1000, strings=True)
    # Records of three rows, shuffled so that their rows fall in different batches.
    frame["record"] = np.random.default_rng(2).permutation(np.arange(1000) // 3)
    _check_grouped_compare(frame, tmp_path / f"batches.{suffix}", capsys)
