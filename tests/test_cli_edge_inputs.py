"""The command line on awkward files and options: compressed CSV files,
duplicate column names, a label column that turns from numbers to text
part-way, mistyped delimiters, seeds and positive labels."""

import bz2
import gzip
import json
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import precision_score

from sklearn_precision_stats.__main__ import main
from sklearn_precision_stats.cli import _io
from sklearn_precision_stats.paired import compare_precision

from .conftest import run_cli

pytest.importorskip("pyarrow")


def _error(err, code):
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "error:" in lines[0] and "Traceback" not in err
    return lines[0]


def _frame(n=300, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.choice(["bird", "cat", "dog"], n)
    frame = {"truth": y}
    for name, p in (("a", 0.8), ("b", 0.6)):
        frame[name] = np.where(rng.random(n) < p, y, rng.choice(["bird", "cat", "dog"], n))
    return pd.DataFrame(frame)


def _table(argv, capsys):
    code, out, err = run_cli([*argv, "--format", "json"], capsys)
    assert code == 0, err
    return pd.DataFrame(json.loads(out)["table"])


@pytest.mark.parametrize("opener", [gzip.open, bz2.open], ids=["gz", "bz2"])
def test_compressed_csv_gives_the_numbers_of_the_plain_file(tmp_path, capsys, opener):
    frame = _frame()
    suffix = ".gz" if opener is gzip.open else ".bz2"
    path = tmp_path / f"preds.csv{suffix}"
    with opener(path, "wt") as handle:
        frame.to_csv(handle, index=False)
    table = _table(["compare", path, "--truth", "truth", "--reference", "a"], capsys)
    expected = compare_precision(
        frame["truth"].to_numpy(), {"a": frame["a"], "b": frame["b"]}, reference="a"
    ).table
    np.testing.assert_allclose(table["gs_pvalue"], expected["gs_pvalue"], rtol=1e-12)
    # The precision itself, against scikit-learn.
    np.testing.assert_allclose(
        table["precision"],
        precision_score(frame["truth"], frame["b"], average=None, labels=["bird", "cat", "dog"]),
        rtol=1e-12,
    )


def test_an_empty_compressed_csv_and_a_corrupt_one_are_one_line_errors(tmp_path, capsys):
    empty = tmp_path / "empty.csv.gz"
    with gzip.open(empty, "wt"):
        pass
    code, _, err = run_cli(["compare", empty, "--truth", "truth"], capsys)
    assert "is empty" in _error(err, code)
    fake = tmp_path / "plain.csv.gz"
    fake.write_text(_frame().to_csv(index=False))  # not compressed
    code, _, err = run_cli(["compare", fake, "--truth", "truth"], capsys)
    line = _error(err, code)
    assert "cannot decompress" in line and "'.gz'" in line


def test_duplicate_column_names_are_refused_not_read_silently(tmp_path, capsys):
    frame = _frame()
    path = tmp_path / "dup.csv"
    with open(path, "w") as handle:
        handle.write("truth,a,b,a\n")
        for row in zip(frame["truth"], frame["a"], frame["b"], frame["b"], strict=True):
            handle.write(",".join(row) + "\n")
    for extra in (["--classifiers", "a,b"], []):
        code, out, err = run_cli(["compare", path, "--truth", "truth", *extra], capsys)
        line = _error(err, code)
        assert "2 columns named 'a'" in line and "unique names" in line
        assert out == ""
    # A duplicated column the command does not read is no problem.
    other = tmp_path / "dup_unused.csv"
    with open(other, "w") as handle:
        handle.write("truth,a,b,a,c\n")
        for row in zip(*(frame[c] for c in ("truth", "a", "b", "a", "a")), strict=True):
            handle.write(",".join(row) + "\n")
    table = _table(["compare", other, "--truth", "truth", "--classifiers", "b,c"], capsys)
    assert set(table["classifier"]) == {"c"}


def test_label_column_of_numbers_then_text_is_read_as_text(tmp_path, capsys, monkeypatch):
    # pyarrow types a CSV column from its first block; small blocks put the
    # text label in a later block, as a long file does with the default size.
    monkeypatch.setattr(_io, "CSV_BLOCK_BYTES", 256)
    rng = np.random.default_rng(1)
    n = 400
    y = rng.integers(0, 2, n).astype(object)
    a = np.where(rng.random(n) < 0.8, y, 1 - y).astype(object)
    b = np.where(rng.random(n) < 0.6, y, 1 - y).astype(object)
    y[-5:], a[-5:], b[-3:] = "cat", "cat", "cat"
    path = tmp_path / "mixed.csv"
    pd.DataFrame({"truth": y, "a": a, "b": b}).to_csv(path, index=False)
    code, out, err = run_cli(["compare", path, "--truth", "truth", "--format", "json"], capsys)
    assert code == 0, err
    assert "holds numbers and text" in err and "'truth'" in err
    table = pd.DataFrame(json.loads(out)["table"])
    texts = {"truth": y.astype(str), "a": a.astype(str), "b": b.astype(str)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = compare_precision(texts["truth"], {"a": texts["a"], "b": texts["b"]}).table
    assert table["class"].tolist() == ["0", "1", "cat"]
    np.testing.assert_allclose(table["precision"], expected["precision"], rtol=1e-12)
    np.testing.assert_allclose(
        table["precision"],
        precision_score(texts["truth"], texts["b"], average=None, labels=["0", "1", "cat"]),
        rtol=1e-12,
    )


def test_score_column_with_text_part_way_names_the_column_and_the_value(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.setattr(_io, "CSV_BLOCK_BYTES", 256)
    rng = np.random.default_rng(2)
    n = 300
    frame = pd.DataFrame(
        {"y": rng.integers(0, 2, n), "sa": rng.random(n), "sb": rng.random(n).astype(object)}
    )
    frame.loc[n - 1, "sb"] = "oops"
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    code, _, err = run_cli(["delong", path, "--truth", "y", "--scores", "sa,sb"], capsys)
    line = _error(err, code)
    assert "'sb'" in line and "'oops'" in line and "correct or drop that row" in line


@pytest.mark.parametrize(
    ("option", "value", "expected"),
    [
        ("--delimiter", "ab", "argument --delimiter: must be one character"),
        ("--delimiter", '"', "argument --delimiter: must be one character"),
        ("--random-state", "-1", "argument --random-state: must be an integer >= 0"),
        ("--random-state", "1.5", "argument --random-state: not an integer"),
    ],
)
def test_bad_options_name_the_option(tmp_path, capsys, option, value, expected):
    path = tmp_path / "preds.csv"
    _frame().to_csv(path, index=False)
    command = "global" if option == "--random-state" else "compare"
    with pytest.raises(SystemExit) as exit_info:
        main([command, str(path), "--truth", "truth", option, value])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert expected in err and "Traceback" not in err


@pytest.mark.parametrize("spelling", ["\\t", "tab"])
def test_tab_delimiter_can_be_typed(tmp_path, capsys, spelling):
    frame = _frame()
    path = tmp_path / "preds.txt"
    frame.to_csv(path, index=False, sep="\t")
    table = _table(["compare", path, "--truth", "truth", "--delimiter", spelling], capsys)
    expected = compare_precision(frame["truth"].to_numpy(), {"a": frame["a"], "b": frame["b"]})
    np.testing.assert_allclose(table["gs_pvalue"], expected.table["gs_pvalue"], rtol=1e-12)


def test_wrong_delimiter_hints_at_the_option(tmp_path, capsys):
    path = tmp_path / "preds.csv"
    _frame().to_csv(path, index=False)
    code, _, err = run_cli(["compare", path, "--truth", "truth", "--delimiter", ";"], capsys)
    line = _error(err, code)
    assert "--truth" in line and "see --delimiter" in line


def test_unknown_pos_label_of_compare_scores_names_pos_label(tmp_path, capsys):
    rng = np.random.default_rng(3)
    n = 200
    path = tmp_path / "scores.csv"
    pd.DataFrame({"y": rng.integers(0, 2, n), "sa": rng.random(n), "sb": rng.random(n)}).to_csv(
        path, index=False
    )
    code, _, err = run_cli(
        ["compare-scores", path, "--truth", "y", "--scores", "A:sa,B:sb", "--pos-label", "3"],
        capsys,
    )
    line = _error(err, code)
    assert "--pos-label: class '3'" in line and "--labels" not in line


def test_utf16_csv_is_named_and_read_with_its_encoding(tmp_path, capsys):
    frame = _frame()
    path = tmp_path / "unicode.csv"
    frame.to_csv(path, index=False, encoding="utf-16")  # Excel's "Unicode text"
    code, _, err = run_cli(["compare", path, "--truth", "truth"], capsys)
    assert "is UTF-16 text; pass --encoding utf-16" in _error(err, code)
    table = _table(["compare", path, "--truth", "truth", "--encoding", "utf-16"], capsys)
    expected = compare_precision(frame["truth"].to_numpy(), {"a": frame["a"], "b": frame["b"]})
    np.testing.assert_allclose(table["gs_pvalue"], expected.table["gs_pvalue"], rtol=1e-12)


def test_utf8_csv_with_a_byte_order_mark_finds_its_first_column(tmp_path, capsys):
    frame = _frame()
    path = tmp_path / "excel.csv"
    frame.to_csv(path, index=False, encoding="utf-8-sig")
    table = _table(["compare", path, "--truth", "truth"], capsys)
    expected = compare_precision(frame["truth"].to_numpy(), {"a": frame["a"], "b": frame["b"]})
    np.testing.assert_allclose(table["gs_pvalue"], expected.table["gs_pvalue"], rtol=1e-12)


@pytest.mark.parametrize("command", ["delong", "compare-scores"])
def test_missing_score_names_the_scores_option(tmp_path, capsys, command):
    path = tmp_path / "scores.csv"
    path.write_text("y,sa,sb\n1,0.5,0.3\n0,,0.2\n1,0.7,0.9\n0,0.1,0.2\n")
    scores = "sa,sb" if command == "delong" else "A:sa,B:sb"
    code, _, err = run_cli([command, path, "--truth", "y", "--scores", scores], capsys)
    line = _error(err, code)
    assert "--scores: column 'sa' has a missing score at row 1" in line


def test_long_layout_label_column_of_numbers_then_text(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(_io, "CSV_BLOCK_BYTES", 256)
    rng = np.random.default_rng(4)
    n = 200
    y = rng.integers(0, 2, n).astype(object)
    y[-1] = "cat"
    rows = []
    for i in range(n):
        for name, p in (("a", 0.8), ("b", 0.6)):
            wrong = 0 if y[i] == "cat" else 1 - y[i]
            rows.append((i, name, y[i], y[i] if rng.random() < p else wrong))
    frame = pd.DataFrame(rows, columns=["rec", "clf", "truth", "pred"])
    path = tmp_path / "long.csv"
    frame.to_csv(path, index=False)
    code, out, err = run_cli(
        [
            "compare",
            path,
            "--truth",
            "truth",
            "--long",
            "--classifier-col",
            "clf",
            "--prediction-col",
            "pred",
            "--record-col",
            "rec",
            "--format",
            "json",
        ],
        capsys,
    )
    assert code == 0, err
    assert "holds numbers and text" in err
    table = pd.DataFrame(json.loads(out)["table"])
    wide = frame.pivot(index="rec", columns="clf", values="pred").astype(str)
    truth = frame.groupby("rec")["truth"].first().astype(str)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = compare_precision(truth.to_numpy(), {"a": wide["a"], "b": wide["b"]}).table
    assert table["class"].tolist() == ["0", "1", "cat"]
    np.testing.assert_allclose(table["gs_pvalue"], expected["gs_pvalue"], rtol=1e-12)


def test_precision_interval_stays_within_0_and_1(tmp_path, capsys):
    # Precision 0 and 1 on 27 and 16 predictions: Wilson's bounds are 0 and
    # 1 exactly (statsmodels), not -1e-17 or 1 + 2e-16 from rounding.
    from statsmodels.stats.proportion import proportion_confint

    y = np.r_[np.zeros(27, int), np.ones(16, int)]
    a = y.copy()
    b = 1 - y
    path = tmp_path / "edges.csv"
    pd.DataFrame({"truth": y, "a": a, "b": b}).to_csv(path, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = _table(["compare", path, "--truth", "truth", "--reference", "a"], capsys)
    for column in ("precision", "precision_reference"):
        for row in table.itertuples():
            n = getattr(row, "n" if column == "precision" else "n_reference")
            value = getattr(row, column)
            low, high = proportion_confint(round(value * n), n, method="wilson")
            # abs=0: a bound of exactly 0 or 1 must be exact.
            assert getattr(row, f"{column}_ci_low") == pytest.approx(low, rel=1e-12, abs=0)
            assert getattr(row, f"{column}_ci_high") == pytest.approx(high, rel=1e-12, abs=0)
    assert (table["precision_ci_low"] >= 0).all() and (
        table["precision_reference_ci_high"] <= 1
    ).all()


def test_delong_with_the_compare_scores_syntax_says_which_syntax(tmp_path, capsys):
    rng = np.random.default_rng(5)
    path = tmp_path / "scores.csv"
    pd.DataFrame({"y": rng.integers(0, 2, 50), "sa": rng.random(50), "sb": rng.random(50)}).to_csv(
        path, index=False
    )
    code, _, err = run_cli(["delong", path, "--truth", "y", "--scores", "A:sa,B:sb"], capsys)
    line = _error(err, code)
    assert "--scores COL_A,COL_B" in line and "compare-scores" in line


def test_scores_with_decimal_commas_are_named(tmp_path, capsys):
    path = tmp_path / "euro.csv"
    path.write_text("y;sa;sb\n1;0,5;0,3\n0;0,1;0,2\n1;0,7;0,9\n")
    code, _, err = run_cli(
        ["delong", path, "--truth", "y", "--scores", "sa,sb", "--delimiter", ";"], capsys
    )
    line = _error(err, code)
    assert "--scores: column 'sa' is not numeric (e.g. '0,5')" in line
    assert "decimal commas" in line


def test_missing_label_in_a_later_batch_gives_its_row_in_the_file(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(_io, "CSV_BLOCK_BYTES", 64)
    path = tmp_path / "late.csv"
    path.write_text("truth,a,b\n" + "0,0,1\n1,1,1\n" * 20 + "1,1,\n")
    for argv in (["compare"], ["compare", "--metric", "f1"], ["mcnemar", "--batch-size", "7"]):
        code, _, err = run_cli([argv[0], path, "--truth", "truth", *argv[1:]], capsys)
        line = _error(err, code)
        assert "column 'b' has a missing label at row 40" in line


def test_long_layout_missing_prediction_row_in_the_file(tmp_path, capsys):
    rng = np.random.default_rng(6)
    rows = []
    for i in range(60):
        for name in ("a", "b", "c"):
            rows.append((i, name, i % 2, i % 2 if rng.random() < 0.8 else 1 - i % 2))
    frame = pd.DataFrame(rows, columns=["rec", "clf", "truth", "pred"]).astype({"pred": float})
    long = ["--truth", "truth", "--long", "--classifier-col", "clf", "--prediction-col", "pred"]
    long += ["--record-col", "rec", "--batch-size", "7"]
    path = tmp_path / "long.csv"
    # Row 151 is classifier b's; row 152 classifier c's, which --classifiers a,b leaves out.
    assert frame.loc[151, "clf"] == "b" and frame.loc[152, "clf"] == "c"
    frame.loc[[151, 152], "pred"] = np.nan
    frame.to_csv(path, index=False)
    code, _, err = run_cli(["compare", path, *long, "--classifiers", "a,b"], capsys)
    assert "--prediction-col 'pred' has a missing label at row 151" in _error(err, code)
    frame.loc[151, "pred"] = 1.0
    frame.to_csv(path, index=False)
    code, _, err = run_cli(["compare", path, *long, "--classifiers", "a,b"], capsys)
    assert code == 0, err


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (["--weights", "linear"], "--weights is for --metric cohen_kappa, not precision"),
        (["--beta", "2"], "--beta is for --metric fbeta, not precision"),
        (["--metric", "recall", "--pos-label", "cat"], "--pos-label is for --average binary"),
        (["--labels", "cat", "cat"], "--labels: class(es) ['cat'] given more than once"),
        (["--labels", ","], "--labels: no class given"),
    ],
)
def test_options_the_comparison_would_ignore_are_refused(tmp_path, capsys, extra, expected):
    path = tmp_path / "preds.csv"
    _frame().to_csv(path, index=False)
    code, out, err = run_cli(["compare", path, "--truth", "truth", *extra], capsys)
    assert expected in _error(err, code)
    assert out == ""


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (
            ["--recall", "0.8"],
            "--recall is for --metric precision_at_recall, not average_precision",
        ),
        (["--precision", "0.8"], "--precision is for --metric recall_at_precision"),
        (["--method", "bootstrap"], "--method is for --metric roc_auc, not average_precision"),
        (
            ["--metric", "roc_auc", "--recall", "0.5"],
            "--recall is for --metric precision_at_recall, not roc_auc",
        ),
    ],
)
def test_compare_scores_refuses_options_of_another_measure(tmp_path, capsys, extra, expected):
    rng = np.random.default_rng(7)
    path = tmp_path / "scores.csv"
    pd.DataFrame({"y": rng.integers(0, 2, 80), "sa": rng.random(80), "sb": rng.random(80)}).to_csv(
        path, index=False
    )
    code, out, err = run_cli(
        ["compare-scores", path, "--truth", "y", "--scores", "A:sa,B:sb", *extra], capsys
    )
    assert expected in _error(err, code)
    assert out == ""


def test_global_warns_of_resampling_options_it_ignores(tmp_path, capsys):
    frame = _frame()
    path = tmp_path / "preds.csv"
    frame.to_csv(path, index=False)
    base = ["global", path, "--truth", "truth", "--method", "fisher", "--format", "json"]
    code, out, err = run_cli([*base, "--resampling", "bootstrap", "--n-resamples", "5"], capsys)
    assert code == 0, err
    assert (
        "--resampling is used by --method dai-cui only; it is ignored with --method fisher" in err
    )
    assert "--n-resamples is used by --method dai-cui and permutation only" in err
    result = compare_precision(frame["truth"].to_numpy(), {"a": frame["a"], "b": frame["b"]})
    expected = result.global_test(method="fisher").to_frame()
    got = pd.DataFrame(json.loads(out)["global_test"])
    np.testing.assert_allclose(got["pvalue"], expected["pvalue"], rtol=1e-12)
    code, out, err = run_cli(base, capsys)
    assert code == 0 and "warning" not in err


def test_demo_names_a_negative_seed(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["demo", "--random-state", "-3"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "argument --random-state: must be an integer >= 0, got -3" in err


def test_compressed_tsv_is_read_with_tabs(tmp_path, capsys):
    frame = _frame()
    path = tmp_path / "preds.tsv.gz"
    with gzip.open(path, "wt") as handle:
        frame.to_csv(handle, index=False, sep="\t")
    table = _table(["compare", path, "--truth", "truth"], capsys)
    expected = compare_precision(frame["truth"].to_numpy(), {"a": frame["a"], "b": frame["b"]})
    np.testing.assert_allclose(table["gs_pvalue"], expected.table["gs_pvalue"], rtol=1e-12)
