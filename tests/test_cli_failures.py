"""The command line as a newcomer meets it: one-line failures and warnings,
help text, file order, encodings, output files and many labels."""

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from sklearn_precision_stats.__main__ import main
from sklearn_precision_stats.cli._commands import build_parser
from sklearn_precision_stats.paired import compare_precision

from .conftest import run_cli

pytest.importorskip("pyarrow")


def _frame(n=300, seed=0, names=("a", "b")):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    frame = {"truth": y}
    for i, name in enumerate(names):
        frame[name] = np.where(rng.random(n) < 0.8 - 0.1 * i, y, rng.integers(0, 3, n))
    return pd.DataFrame(frame)


@pytest.fixture
def csv_file(tmp_path):
    path = tmp_path / "preds.csv"
    _frame().to_csv(path, index=False)
    return path


def _one_error_line(err, code):
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "error:" in lines[0] and "usage:" not in err and "Traceback" not in err
    return lines[0]


def test_without_pyarrow_the_io_extra_is_named(csv_file, capsys, monkeypatch):
    # A None entry in sys.modules makes `import pyarrow` raise ImportError.
    for name in [m for m in sys.modules if m == "pyarrow" or m.startswith("pyarrow.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    code, out, err = run_cli(["compare", csv_file, "--truth", "truth"], capsys)
    line = _one_error_line(err, code)
    assert "sklearn-precision-stats[io]" in line and "No module named" not in line
    assert out == ""


def test_warnings_are_one_line_without_source(tmp_path):
    # 'b' never predicts class 2: its precision there is undefined.
    frame = _frame()
    frame.loc[frame["b"] == 2, "b"] = 0
    path = tmp_path / "undefined.csv"
    frame.to_csv(path, index=False)
    proc = subprocess.run(
        [sys.executable, "-m", "sklearn_precision_stats", "compare", str(path), "--truth", "truth"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert lines and all(line.startswith("warning: ") for line in lines), proc.stderr
    assert any("never predicts" in line for line in lines)
    assert ".py:" not in proc.stderr and "UndefinedStatisticWarning" not in proc.stderr
    assert "return " not in proc.stderr


def test_missing_output_folder_and_folder_as_output(csv_file, tmp_path, capsys):
    base = ["compare", csv_file, "--truth", "truth", "--format", "csv"]
    code, out, err = run_cli([*base, "--output", tmp_path / "nowhere" / "out.csv"], capsys)
    line = _one_error_line(err, code)
    assert "--output" in line and "does not exist" in line
    assert not (tmp_path / "nowhere").exists()
    code, out, err = run_cli([*base, "--output", tmp_path], capsys)
    assert "--output" in _one_error_line(err, code) and "folder" in err


def test_folder_as_input(tmp_path, capsys):
    code, out, err = run_cli(["compare", tmp_path, "--truth", "t", "--input-format", "csv"], capsys)
    line = _one_error_line(err, code)
    assert "is a folder" in line and "no such file" not in line


@pytest.mark.parametrize("missing", ["", "NA"])
@pytest.mark.parametrize("text", [False, True])
def test_empty_and_na_cells_are_missing_labels(tmp_path, capsys, missing, text):
    base = _frame().astype(str) if text else _frame().astype(object)
    if text:
        base = "c" + base
    for column, row in (("b", 7), ("truth", 9)):
        frame = base.copy()
        frame.loc[row, column] = missing
        path = tmp_path / "missing.csv"
        frame.to_csv(path, index=False, na_rep="")
        code, out, err = run_cli(["compare", path, "--truth", "truth"], capsys)
        line = _one_error_line(err, code)
        assert f"'{column}'" in line and f"row {row}" in line and "missing" in line
        assert out == ""


def test_long_layout_missing_label_names_column_and_row(tmp_path, capsys):
    long = pd.DataFrame(
        {
            "record": np.repeat(np.arange(50), 2),
            "model": np.tile(["m1", "m2"], 50),
            "y": np.repeat(np.arange(50) % 2, 2).astype(str),
            "pred": (np.arange(100) % 2).astype(str),
        }
    )
    long.loc[13, "pred"] = "NA"
    path = tmp_path / "long.csv"
    long.to_csv(path, index=False)
    argv = ["compare", path, "--long", "--truth", "y", "--classifier-col", "model"]
    argv += ["--prediction-col", "pred", "--record-col", "record"]
    code, out, err = run_cli(argv, capsys)
    line = _one_error_line(err, code)
    assert "'pred'" in line and "missing" in line and "13" in line


def test_every_option_has_help_and_its_default(capsys):
    parser, subparsers = build_parser()
    for name, sub in subparsers.choices.items():
        text = sub.format_help()
        for action in sub._actions:
            if not action.option_strings or action.dest == "help":
                continue
            assert action.help, f"{name} {action.option_strings} has no help text"
            if action.default is not None and not isinstance(action.default, bool):
                flag = action.option_strings[-1]
                body = text[text.index("options:") :]
                after = body[body.index(flag) :]
                entry = after[: after.index("\n  -") if "\n  -" in after else len(after)]
                # Wrapped help may break a default at a hyphen: compare without spaces.
                assert f"(default:{action.default})" in "".join(entry.split()), (name, flag)
    for flag in ("--method", "--test", "--n-resamples", "--random-state", "--format"):
        assert flag in subparsers.choices["global"].format_help()


def test_default_reference_is_first_in_file_order(tmp_path, capsys):
    wide = _frame(names=("zeta", "alpha"))
    path = tmp_path / "wide.csv"
    wide.to_csv(path, index=False)
    code, out, err = run_cli(["compare", path, "--truth", "truth", "--format", "json"], capsys)
    assert code == 0, err
    assert '"reference": "zeta"' in out
    long = pd.DataFrame(
        {
            "record": np.repeat(np.arange(len(wide)), 2),
            "model": np.tile(["zeta", "alpha"], len(wide)),
            "y": np.repeat(wide["truth"].to_numpy(), 2),
            "pred": np.column_stack([wide["zeta"], wide["alpha"]]).reshape(-1),
        }
    )
    for suffix in ("csv", "parquet"):
        path = tmp_path / f"long.{suffix}"
        long.to_csv(path, index=False) if suffix == "csv" else long.to_parquet(path)
        argv = ["compare", path, "--long", "--truth", "y", "--classifier-col", "model"]
        argv += ["--prediction-col", "pred", "--record-col", "record", "--format", "csv"]
        code, out, err = run_cli(argv, capsys)
        assert code == 0, err
        table = pd.read_csv(__import__("io").StringIO(out))
        assert set(table["reference"]) == {"zeta"} and set(table["classifier"]) == {"alpha"}


def _heavy_imports(argv):
    """The heavy libraries imported by running the command line on `argv`."""
    code = (
        "import sys\n"
        "from sklearn_precision_stats.__main__ import main\n"
        "try:\n"
        f"    main({[str(a) for a in argv]!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & "
        "{'pandas', 'scipy', 'sklearn', 'statsmodels', 'pyarrow'})\n"
        "print(heavy)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    return proc.stdout.strip().splitlines()[-1]


def test_help_and_usage_errors_import_no_heavy_library(csv_file):
    assert _heavy_imports(["compare", "--help"]) == "[]"
    assert _heavy_imports(["compare", csv_file, "--truth", "t", "--bogus"]) == "[]"
    # A column missing from the file: pyarrow reads the header, nothing more.
    assert _heavy_imports(["compare", csv_file, "--truth", "nope"]) == "['pyarrow']"


def test_latin1_csv(tmp_path, capsys):
    frame = _frame()
    words = np.array(["café", "crème", "naïve"])
    frame = frame.apply(lambda col: words[col.to_numpy()])
    path = tmp_path / "latin.csv"
    frame.to_csv(path, index=False, encoding="latin-1")
    code, out, err = run_cli(["compare", path, "--truth", "truth"], capsys)
    line = _one_error_line(err, code)
    assert "--encoding latin-1" in line
    code, out, err = run_cli(
        ["compare", path, "--truth", "truth", "--encoding", "latin-1", "--format", "csv"],
        capsys,
    )
    assert code == 0, err
    expected = compare_precision(frame["truth"], {"a": frame["a"], "b": frame["b"]})
    table = pd.read_csv(__import__("io").StringIO(out))
    assert table["class"].tolist() == expected.table["class"].tolist()
    np.testing.assert_allclose(table["gs_pvalue"], expected.table["gs_pvalue"], rtol=1e-6)


def test_wrong_format_is_one_line_without_raw_bytes(tmp_path, capsys):
    binary = tmp_path / "binary.csv"
    binary.write_bytes(bytes(range(256)) * 8)
    code, out, err = run_cli(["compare", binary, "--truth", "truth"], capsys)
    assert "binary" in _one_error_line(err, code)
    parquet = tmp_path / "really_parquet.csv"
    _frame().to_parquet(parquet)
    code, out, err = run_cli(["compare", parquet, "--truth", "truth"], capsys)
    assert "--input-format parquet" in _one_error_line(err, code)
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("truth,a,b\n0,1,0\n1,1,0,1,secret-row-content\n")
    code, out, err = run_cli(["compare", ragged, "--truth", "truth"], capsys)
    line = _one_error_line(err, code)
    assert "secret-row-content" not in line and "columns" in line


@pytest.mark.parametrize(
    "argv",
    [
        ["compare", "f.csv", "--truth", "t", "--bogus"],
        ["compare", "f.csv"],
        ["compare", "f.csv", "--truth", "t", "--metric", "nope"],
        ["global", "f.csv", "--truth", "t", "--n-resamples", "0"],
        [],
    ],
)
def test_argparse_errors_are_one_line(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    _one_error_line(capsys.readouterr().err, exc.value.code)


def test_unexpected_failure_is_one_line_exit_2(csv_file, capsys, monkeypatch):
    from sklearn_precision_stats.paired import _compare

    def broken(*args, **kwargs):
        raise RuntimeError("something\nbroke")

    monkeypatch.setattr(_compare, "comparison_from_counts", broken)
    code, out, err = run_cli(["compare", csv_file, "--truth", "truth"], capsys)
    assert "RuntimeError: something broke" in _one_error_line(err, code)


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")
@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077])
def test_written_files_honour_the_umask(csv_file, tmp_path, capsys, umask):
    out = tmp_path / "out.csv"
    old = os.umask(umask)
    try:
        code, _, err = run_cli(
            ["compare", csv_file, "--truth", "truth", "--format", "csv", "--output", out], capsys
        )
    finally:
        os.umask(old)
    assert code == 0, err
    assert os.stat(out).st_mode & 0o777 == 0o666 & ~umask


def test_many_classes_print_plain_columns(tmp_path, capsys, monkeypatch):
    from sklearn_precision_stats.cli import _subcommands
    from sklearn_precision_stats.results import PairedComparison

    monkeypatch.setattr(_subcommands, "_MAX_SUMMARY_ROWS", 2)

    def no_summary(self, *args, **kwargs):
        raise AssertionError("the summary is not rendered for long tables")

    monkeypatch.setattr(PairedComparison, "summary", no_summary)
    frame = _frame()
    path = tmp_path / "preds.csv"
    frame.to_csv(path, index=False)
    code, out, err = run_cli(["compare", path, "--truth", "truth"], capsys)
    assert code == 0, err
    lines = out.strip().splitlines()
    assert lines[2].split()[:4] == ["class", "classifier", "precision", "precision_reference"]
    assert len(lines) == 3 + 3  # header, blank, column names, one row per class
    # Formats other than text never render the text.
    code, out, err = run_cli(["compare", path, "--truth", "truth", "--format", "json"], capsys)
    assert code == 0, err


def test_truth_as_groups_warns(csv_file, capsys):
    code, out, err = run_cli(["compare", csv_file, "--truth", "truth", "--groups", "truth"], capsys)
    assert code == 0
    assert any(
        line.startswith("warning: --groups and --truth name the same column")
        for line in err.splitlines()
    )


def test_lazy_package_attributes():
    import sklearn_precision_stats as package

    for name in package.__all__:
        assert getattr(package, name) is not None, name
    assert package.paired.compare_precision is package.compare_precision
    assert "compare_metric" in dir(package)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        package.nope  # noqa: B018
