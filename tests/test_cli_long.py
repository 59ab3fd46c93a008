"""The command line's bounded-memory readers: the long layout and DeLong's scores.

The long layout (one row per record and classifier) is read batch by batch
into per-record label codes; the results must equal the in-memory functions
on the arrays pivoted by pandas, whatever the batch size and row order.
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from sklearn_precision_stats.classic import delong_test, mcnemar_test
from sklearn_precision_stats.exceptions import UndefinedStatisticWarning
from sklearn_precision_stats.paired import compare_accuracy, compare_precision, compare_recall

from .conftest import run_cli
from .test_cli import _assert_same_table, _csv_table, _usage_error, _write

pa = pytest.importorskip("pyarrow")

LONG = [
    "--long",
    "--truth",
    "y_true",
    "--classifier-col",
    "model",
    "--prediction-col",
    "y_pred",
    "--record-col",
    "record",
]


def _long_frame(n_records=300, n_repeats=1, n_classes=3, names=("b", "a", "c"), seed=0, kind="int"):
    """Long rows of `names` on `n_records` records, repeated, in shuffled order.

    Repeat ``k`` of a record comes before repeat ``k + 1`` in the file (the
    k-th rows of the classifiers are paired), but the records, classifiers
    and repeats are otherwise interleaved at random.
    """
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n_records)
    blocks = []
    for repeat in range(n_repeats):
        for i, name in enumerate(names):
            right = rng.random(n_records) < 0.55 + 0.1 * i
            pred = np.where(right, y, rng.integers(0, n_classes, n_records))
            blocks.append(
                pd.DataFrame(
                    {
                        "record": np.arange(n_records) * 7 + 1000,
                        "repeat": repeat,
                        "model": name,
                        "y_true": y,
                        "y_pred": pred,
                    }
                )
            )
    frame = pd.concat(blocks, ignore_index=True)
    frame = frame.iloc[rng.permutation(frame.shape[0])]
    frame = frame.sort_values("repeat", kind="stable").reset_index(drop=True)
    if kind == "str":
        words = np.array([f"class-{k:03d}" for k in range(n_classes)])
        frame["y_true"] = words[frame["y_true"].to_numpy()]
        frame["y_pred"] = words[frame["y_pred"].to_numpy()]
        frame["record"] = "rec-" + frame["record"].astype(str)
    return frame


def _pivoted(frame, names):
    """In-memory arrays: one row per (record, repeat), by pandas."""
    wide = frame.pivot_table(
        index=["record", "repeat"], columns="model", values="y_pred", aggfunc="first"
    )
    truth = frame.groupby(["record", "repeat"])["y_true"].first()
    wide = wide.loc[truth.index]
    preds = {name: wide[name].to_numpy() for name in names}
    return truth.to_numpy(), preds, truth.index.get_level_values("record").to_numpy()


def _compare(argv, capsys):
    code, out, err = run_cli(argv, capsys)
    assert code == 0, err
    return _csv_table(out)


@pytest.mark.parametrize("kind", ["int", "str"])
@pytest.mark.parametrize("suffix", ["csv", "parquet", "feather"])
def test_long_one_row_per_record_equals_pivoted(tmp_path, capsys, kind, suffix):
    frame = _long_frame(kind=kind)
    path = _write(frame, tmp_path / f"long.{suffix}")
    # The classifiers in order of their first row: the first is the reference.
    y, preds, _ = _pivoted(frame, list(dict.fromkeys(frame["model"])))
    expected = compare_precision(y, preds)
    for batch_size in (7, 100, None):
        extra = [] if batch_size is None else ["--batch-size", batch_size]
        table = _compare(["compare", path, *LONG, *extra, "--format", "csv"], capsys)
        _assert_same_table(table, expected.table)


@pytest.mark.parametrize("kind", ["int", "str"])
def test_long_repeated_records_equal_pivoted_with_groups(tmp_path, capsys, kind):
    frame = _long_frame(n_records=200, n_repeats=3, kind=kind, seed=1)
    path = _write(frame, tmp_path / "long.parquet")
    y, preds, groups = _pivoted(frame, ["c", "a"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedStatisticWarning)
        expected = compare_recall(y, preds, groups=groups)
        for batch_size in (5, 64, 10_000):
            table = _compare(
                [
                    "compare",
                    path,
                    *LONG,
                    "--classifiers",
                    "c,a",
                    "--metric",
                    "recall",
                    "--batch-size",
                    batch_size,
                    "--format",
                    "csv",
                ],
                capsys,
            )
            _assert_same_table(table, expected.table)
    assert expected.n_records == 200 < expected.n_rows


def test_long_reading_is_batched(tmp_path, capsys, monkeypatch):
    from sklearn_precision_stats.cli import _data

    frame = _long_frame(n_records=100)
    path = _write(frame, tmp_path / "long.feather")
    calls = []
    add = _data.LongTable.add

    def counting_add(self, batch, *args):
        calls.append(batch.num_rows)
        return add(self, batch, *args)

    monkeypatch.setattr(_data.LongTable, "add", counting_add)
    _compare(["compare", path, *LONG, "--batch-size", "16", "--format", "csv"], capsys)
    assert len(calls) == math.ceil(frame.shape[0] / 16) and max(calls) == 16
    assert sum(calls) == frame.shape[0]


def test_long_many_labels_and_accuracy(tmp_path, capsys):
    # Over 255 labels: the codes move from one byte to two while reading.
    frame = _long_frame(n_records=1500, n_classes=300, names=("a", "b"), seed=3)
    path = _write(frame, tmp_path / "long.parquet")
    y, preds, _ = _pivoted(frame, ["a", "b"])
    for metric, function in (("precision", compare_precision), ("accuracy", compare_accuracy)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedStatisticWarning)
            expected = function(y, preds)
            table = _compare(
                [
                    "compare",
                    path,
                    *LONG,
                    "--metric",
                    metric,
                    "--batch-size",
                    "50",
                    "--format",
                    "csv",
                ],
                capsys,
            )
        _assert_same_table(table, expected.table)


def test_long_unselected_classifier_rows_are_ignored(tmp_path, capsys):
    frame = _long_frame(n_records=150, seed=4)
    # Rows of a classifier not compared may miss records or hold other labels.
    extra = pd.DataFrame(
        {"record": [1000, 1007], "repeat": 0, "model": "z", "y_true": 9, "y_pred": 8}
    )
    path = _write(pd.concat([frame, extra], ignore_index=True), tmp_path / "long.csv")
    y, preds, _ = _pivoted(frame, ["b", "a"])
    expected = compare_precision(y, preds, reference="b")
    table = _compare(
        ["compare", path, *LONG, "--classifiers", "b,a", "--batch-size", "9", "--format", "csv"],
        capsys,
    )
    _assert_same_table(table, expected.table)


def test_long_mcnemar_and_global_equal_pivoted(tmp_path, capsys):
    frame = _long_frame(n_records=250, names=("a", "b"), seed=5)
    path = _write(frame, tmp_path / "long.parquet")
    y, preds, _ = _pivoted(frame, ["a", "b"])
    code, out, err = run_cli(
        ["mcnemar", path, *LONG, "--batch-size", "11", "--format", "csv"], capsys
    )
    assert code == 0, err
    expected = mcnemar_test(y, preds["a"], preds["b"])
    row = _csv_table(out).iloc[0]
    assert row["statistic"] == expected.statistic and row["pvalue"] == expected.pvalue
    result = compare_precision(y, preds)
    for method in ("fisher", "dai-cui"):
        table = _compare(
            ["global", path, *LONG, "--method", method, "--n-resamples", "40"]
            + ["--random-state", "2", "--batch-size", "11", "--format", "csv"],
            capsys,
        )
        # Rows in record-id order, as the pivot: the same resamples.
        expected = result.global_test(method=method, n_resamples=40, random_state=2)
        _assert_same_table(table, expected.to_frame())


def test_long_usage_errors(tmp_path, capsys):
    out = str(tmp_path / "result.csv")
    frame = _long_frame(n_records=60, seed=6)
    missing = _write(frame.drop(index=frame.index[frame["model"] == "a"][3]), tmp_path / "m.csv")
    _usage_error(
        ["compare", missing, *LONG, "--batch-size", "10"],
        capsys,
        out,
        "rows for classifier",
    )
    clash = frame.copy()
    row = clash.index[clash["model"] == "c"][0]
    clash.loc[row, "y_true"] = (clash.loc[row, "y_true"] + 1) % 3
    clash_path = _write(clash, tmp_path / "clash.parquet")
    _usage_error(["compare", clash_path, *LONG], capsys, out, "different true labels")
    no_id = frame.astype({"record": float})
    no_id.loc[5, "record"] = np.nan
    no_id_path = _write(no_id, tmp_path / "noid.parquet")
    _usage_error(["compare", no_id_path, *LONG], capsys, out, "--record-col 'record'")
    nan_pred = frame.astype({"y_pred": float})
    nan_pred.loc[7, "y_pred"] = np.nan
    nan_path = _write(nan_pred, tmp_path / "nan.feather")
    _usage_error(["compare", nan_path, *LONG], capsys, out, "--prediction-col 'y_pred'")
    one = _write(frame[frame["model"] == "a"], tmp_path / "one.csv")
    _usage_error(["compare", one, *LONG], capsys, out, "at least two classifiers")
    header = tmp_path / "header.csv"
    header.write_text("record,model,y_true,y_pred\n")
    _usage_error(["compare", header, *LONG], capsys, out, "no data rows")
    with pytest.raises(SystemExit) as info:
        run_cli(["compare", _write(frame, tmp_path / "x.csv"), *LONG, "--batch-size", "0"], capsys)
    assert info.value.code == 2
    assert "--batch-size: must be an integer >= 1" in capsys.readouterr().err


@pytest.mark.parametrize(
    "ids",
    [
        np.random.default_rng(7).integers(-50, 900, 3000),  # a lookup table over the range
        np.random.default_rng(7).integers(-50, 10**12, 3000),  # sparse: sorted ids
        np.r_[np.arange(300), np.random.default_rng(7).integers(0, 10**12, 2700)],  # switches
        np.random.default_rng(7).integers(0, 900, 3000) + 0.5,
        np.array([f"r{k}" for k in np.random.default_rng(7).integers(0, 900, 3000)]),
        np.array(
            [f"é{'x' * (k % 13)}{k}" for k in np.random.default_rng(7).integers(0, 900, 3000)]
        ),
    ],
)
def test_record_index_is_a_bijection(ids):
    from sklearn_precision_stats.cli._data import RecordIndex

    index = RecordIndex("--record-col 'r'")
    codes = np.concatenate(
        [index.codes(pa.array(ids[start : start + 250].tolist())) for start in range(0, 3000, 250)]
    )
    distinct, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
    # One code per distinct id, the same in every batch, 0..n-1.
    assert index.n == distinct.shape[0]
    np.testing.assert_array_equal(np.sort(codes[first]), np.arange(index.n))
    np.testing.assert_array_equal(codes, codes[first][inverse])
    # Codes in the order of the ids, and each code's id.
    np.testing.assert_array_equal(index.codes_by_id(), codes[first])
    for code in (0, index.n - 1):
        assert index.label(code) == ids[np.flatnonzero(codes == code)[0]].item()


def test_record_index_keeps_the_lookup_tables_ids_when_a_batch_is_not_of_integers():
    from sklearn_precision_stats.cli._data import RecordIndex
    from sklearn_precision_stats.cli._io import UsageError

    # Integral float ids are coded through the lookup table; a later batch
    # of other floats must still meet the ids already coded.
    index = RecordIndex("--record-col 'r'")
    first = index.codes(pa.array([1.0, 2.0]))
    index.codes(pa.array([1.5]))
    again = index.codes(pa.array([2.0, 1.0]))
    np.testing.assert_array_equal(again, first[::-1])
    assert index.n == 3
    assert [index.label(c) for c in index.codes_by_id()] == [1, 1.5, 2]
    # Text after numbers is refused, whichever path coded the numbers.
    index = RecordIndex("--record-col 'r'")
    index.codes(pa.array([1, 2]))
    with pytest.raises(UsageError, match="mixes numbers and text"):
        index.codes(pa.array(["x"]))


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_delong_batched_equals_in_memory(tmp_path, capsys, suffix):
    rng = np.random.default_rng(8)
    n = 700
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame(
        {
            "y": np.where(y == 1, "sick", "well"),
            "s1": y + rng.normal(0, 1, n),
            "s2": np.round(10 * (y + rng.normal(0, 1.5, n))).astype(int),  # ties, integers
        }
    )
    path = _write(frame, tmp_path / f"scores.{suffix}")
    expected = delong_test(frame["y"], frame["s1"], frame["s2"], pos_label="sick")
    for batch_size in ("13", "1000"):
        code, out, err = run_cli(
            [
                "delong",
                path,
                "--truth",
                "y",
                "--scores",
                "s1,s2",
                "--pos-label",
                "sick",
                "--batch-size",
                batch_size,
                "--format",
                "csv",
            ],
            capsys,
        )
        assert code == 0, err
        row = _csv_table(out).iloc[0]
        for field in ("statistic", "pvalue", "auc_a", "auc_b", "var_a", "cov_ab"):
            assert row[field] == getattr(expected, field), field
    out = str(tmp_path / "result.csv")
    base = ["delong", path, "--truth", "y", "--scores", "s1,s2"]
    _usage_error(base, capsys, out, "--pos-label")
    _usage_error([*base, "--pos-label", "ill"], capsys, out, "'ill' is not a label")


def test_delong_numeric_labels_narrowed(tmp_path, capsys):
    rng = np.random.default_rng(9)
    n = 400
    y = rng.choice([-1.0, 1.0], n)
    frame = pd.DataFrame({"y": y, "s1": y + rng.normal(0, 1, n), "s2": rng.normal(0, 1, n)})
    path = _write(frame, tmp_path / "scores.feather")
    expected = delong_test(y, frame["s1"], frame["s2"], alternative="greater")
    for extra in ([], ["--pos-label", "1"], ["--pos-label", "1.0"]):
        code, out, err = run_cli(
            ["delong", path, "--truth", "y", "--scores", "s1,s2", "--alternative", "greater"]
            + extra
            + ["--batch-size", "64", "--format", "csv"],
            capsys,
        )
        assert code == 0, err
        row = _csv_table(out).iloc[0]
        assert row["statistic"] == expected.statistic and row["auc_a"] == expected.auc_a
