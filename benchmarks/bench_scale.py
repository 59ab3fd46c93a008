"""Scale: files, chunks, Dask, memory per record and the slow paths.

Prints, from one run:

1. the command line (``sklearn-precision-stats compare``) on a Parquet file
   of ``--n`` records (truth + 2 classifiers, 10 classes) against
   ``pyarrow.parquet.read_table`` of the same columns, each in a child
   process: wall time inside the process (target at most 1.5x) and peak RSS
   of the process (target at most 500 MB for the command line);
2. the same data as Dask arrays on a 2-worker ``distributed.LocalCluster``
   against the in-memory call (identical numbers; the ratio of times);
3. peak memory per record (tracemalloc) of ``global_test(n_resamples=1000)``
   and ``at_prevalence`` on ``--n-memory`` records of one row each
   (target at most 16 bytes per record);
4. ratios: string against integer labels (``compare_precision`` on 10^6
   rows; target at most 3x), the clustered against the paired path per row
   on ``--n-rows`` rows (target at most 5x), and ``mcnemar_test`` against a
   NumPy 2x2 table plus statsmodels ``mcnemar`` on ``--n-rows`` records
   (target at most 2x).

Run: ``python benchmarks/bench_scale.py [--n 100000000] [--n-memory 10000000]
[--n-rows 10000000] [--only cli,dask,memory,ratios]``.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
import warnings

import numpy as np

MB = 1 << 20


def predictions(n, n_classes=10, seed=0, dtype=np.int8):
    """Truth and two correlated classifiers' predictions."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n, dtype=dtype)
    a = np.where(
        rng.random(n, dtype=np.float32) < 0.8, y, rng.integers(0, n_classes, n, dtype=dtype)
    )
    b = np.where(
        rng.random(n, dtype=np.float32) < 0.75, a, rng.integers(0, n_classes, n, dtype=dtype)
    )
    return y, a.astype(dtype), b.astype(dtype)


def write_parquet(path, n, chunk=10_000_000):
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([("y", pa.int8()), ("a", pa.int8()), ("b", pa.int8())])
    with pq.ParquetWriter(path, schema) as writer:
        for i, start in enumerate(range(0, n, chunk)):
            y, a, b = predictions(min(chunk, n - start), seed=i)
            writer.write_table(
                pa.table({"y": y, "a": a, "b": b}, schema=schema), row_group_size=1 << 20
            )


def best_of(func, repeat=3):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


# ------------------------------------------------------------------ children


def child_cli(path):
    from sklearn_precision_stats.__main__ import main

    start = time.perf_counter()
    code = main(["compare", path, "--truth", "y", "--format", "csv", "--output", os.devnull])
    return {"seconds": time.perf_counter() - start, "exit": code}


def child_read_table(path):
    import pyarrow.parquet as pq

    start = time.perf_counter()
    table = pq.read_table(path, columns=["y", "a", "b"])
    return {"seconds": time.perf_counter() - start, "rows": table.num_rows}


CHILDREN = {"cli": child_cli, "read_table": child_read_table}


def run_child(name, *args):
    """Run a child section; return its JSON output and its peak RSS in MB."""
    proc = subprocess.Popen(
        [sys.executable, __file__, "--child", name, *map(str, args)],
        stdout=subprocess.PIPE,
        text=True,
    )
    out = proc.stdout.read()
    if proc.wait() != 0:
        raise RuntimeError(f"child {name} failed with status {proc.returncode}")
    result = json.loads(out.strip().splitlines()[-1])
    return result, result["peak_kb"] / 1024


def _own_peak_kb():
    """The peak resident memory of this process alone (VmHWM, in kB).

    ``ru_maxrss`` of a child would also count the parent's pages shared
    before exec.
    """
    with open("/proc/self/status") as status:
        line = next(ln for ln in status if ln.startswith("VmHWM"))
    return int(line.split()[1])


# ------------------------------------------------------------------ sections


def section_cli(n):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "preds.parquet")
        start = time.perf_counter()
        write_parquet(path, n)
        print(
            f"  wrote {n:.0e} records in {time.perf_counter() - start:.1f} s "
            f"({os.path.getsize(path) / MB:.0f} MB)"
        )
        cli, cli_rss = run_child("cli", path)
        read, read_rss = run_child("read_table", path)
    print(f"  command line      : {cli['seconds']:8.2f} s, peak RSS {cli_rss:7.0f} MB")
    print(f"  read_table        : {read['seconds']:8.2f} s, peak RSS {read_rss:7.0f} MB")
    print(
        f"  ratio             : {cli['seconds'] / read['seconds']:8.2f}x (target <= 1.5x); "
        f"CLI peak RSS {cli_rss:.0f} MB (target <= 500 MB)"
    )


def section_dask(n):
    import dask.array as da
    from distributed import Client, LocalCluster

    from sklearn_precision_stats import compare_precision
    from sklearn_precision_stats.engine._dask import counts_from_dask
    from sklearn_precision_stats.paired._compare import comparison_from_counts

    y, a, b = predictions(n)
    warnings.simplefilter("ignore")
    in_memory = best_of(lambda: compare_precision(y, {"a": a, "b": b}), 2)
    expected = compare_precision(y, {"a": a, "b": b})
    chunks = max(n // 16, 1)
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        Client(cluster),
    ):
        dy, dx, db = (da.from_array(v, chunks=chunks).persist() for v in (y, a, b))

        def on_dask():
            counts = counts_from_dask(dy, {"a": dx, "b": db})
            return comparison_from_counts(counts, "precision")

        seconds = best_of(on_dask, 2)
        result = on_dask()
    same = expected.table.equals(result.table) and expected.omnibus.equals(result.omnibus)
    print(f"  in memory         : {in_memory:8.3f} s")
    print(
        f"  Dask (2 workers)  : {seconds:8.3f} s  ratio {seconds / in_memory:.2f}x; "
        f"identical tables: {same}"
    )


def section_memory(n):
    from sklearn_precision_stats import compare_precision

    y, a, b = predictions(n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = compare_precision(y, {"a": a, "b": b})
        for name, call in (
            ("global_test(1000)", lambda: result.global_test(n_resamples=1000, random_state=0)),
            ("at_prevalence", lambda: result.at_prevalence({k: 0.1 for k in range(10)})),
        ):
            tracemalloc.start()
            start = time.perf_counter()
            call()
            seconds = time.perf_counter() - start
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            print(
                f"  {name:18s}: {peak / n:8.2f} bytes/record (peak {peak / MB:.0f} MB, "
                f"{seconds:.1f} s; target <= 16)"
            )


def section_ratios(n_rows):
    from statsmodels.stats.contingency_tables import mcnemar

    from sklearn_precision_stats import compare_precision, mcnemar_test
    from sklearn_precision_stats.engine._accumulator import ComparisonCounts
    from sklearn_precision_stats.engine._labels import encode_labels
    from sklearn_precision_stats.paired._compare import comparison_from_counts

    def counted(y_true, y_preds, groups=None):
        counts = ComparisonCounts.from_arrays(y_true, y_preds, groups=groups)
        return comparison_from_counts(counts, "precision")

    warnings.simplefilter("ignore")
    n = 10**6
    y, a, b = (v.astype(np.int64) for v in predictions(n))
    names = np.array([f"class_{k}" for k in range(10)])
    ys, as_, bs = names[y], names[a], names[b]
    t_int = best_of(lambda: compare_precision(y, {"a": a, "b": b}))
    t_str = best_of(lambda: compare_precision(ys, {"a": as_, "b": bs}))
    e_int = best_of(lambda: encode_labels(y, a, b))
    e_str = best_of(lambda: encode_labels(ys, as_, bs))
    shared = names.astype(object)  # labels as a classifier's classes_[indices]
    e_obj = best_of(lambda: encode_labels(shared[y], shared[a], shared[b]))
    e_new = best_of(lambda: encode_labels(ys.astype(object), as_.astype(object), bs.astype(object)))
    yo, ao, bo = shared[y], shared[a], shared[b]
    t_obj = best_of(lambda: compare_precision(yo, {"a": ao, "b": bo}))
    c_int = best_of(lambda: counted(y, {"a": a, "b": b}))
    c_str = best_of(lambda: counted(ys, {"a": as_, "b": bs}))
    print(
        f"  string/int labels : compare_precision {t_str / t_int:6.2f}x "
        f"({t_str:.3f} s vs {t_int:.3f} s per 10^6 rows; target <= 3x)"
    )
    print(f"                      object labels (shared) {t_obj / t_int:6.2f}x ({t_obj:.3f} s)")
    print(
        f"                      through ComparisonCounts {c_str / c_int:6.2f}x "
        f"({c_str:.3f} s vs {c_int:.3f} s)"
    )
    # Other label kinds of the same 10^6 rows: words that differ in many
    # characters, and pandas categorical and string columns.
    import pandas as pd

    words = np.array(["setosa", "versicolor", "virginica", "arctica", "borealis"] * 2)
    w = [words[v] for v in (y, a, b)]
    t_words = best_of(lambda: compare_precision(w[0], {"a": w[1], "b": w[2]}))
    for kind in ("category", "str"):
        p = [pd.Series(v, dtype=kind) for v in w]
        t_kind = best_of(lambda p=p: compare_precision(p[0], {"a": p[1], "b": p[2]}))
        print(f"                      pandas {kind:8s} column {t_kind / t_int:6.2f}x")
    print(f"                      numpy str words {t_words / t_int:6.2f}x")
    print(
        f"                      encoding alone {e_str / e_int:6.2f}x (numpy str), "
        f"{e_obj / e_int:6.2f}x (object, shared), {e_new / e_int:6.2f}x (object, one per row) "
        f"({e_int * 1e3:.1f} ms for ints)"
    )

    y, a, b = predictions(n_rows)
    groups = np.arange(n_rows) // 2  # two rows per record
    t_paired = best_of(lambda: compare_precision(y, {"a": a, "b": b}), 2)
    t_clustered = best_of(lambda: compare_precision(y, {"a": a, "b": b}, groups=groups), 2)
    c_paired = best_of(lambda: counted(y, {"a": a, "b": b}), 2)
    c_clustered = best_of(lambda: counted(y, {"a": a, "b": b}, groups=groups), 2)
    print(
        f"  clustered/paired through ComparisonCounts: {c_clustered / c_paired:6.2f}x per row "
        f"({c_clustered:.2f} s vs {c_paired:.2f} s)"
    )
    print(
        f"  clustered/paired  : {t_clustered / t_paired:6.2f}x per row "
        f"({t_clustered:.2f} s vs {t_paired:.2f} s at {n_rows:.0e} rows; target <= 5x)"
    )
    # Stacked cross-validation does not give contiguous record ids: the same
    # two rows per record, records in random order.
    shuffled = np.random.default_rng(1).permutation(n_rows // 2 + 1)[groups]
    t_shuffled = best_of(lambda: compare_precision(y, {"a": a, "b": b}, groups=shuffled), 2)
    c_shuffled = best_of(lambda: counted(y, {"a": a, "b": b}, groups=shuffled), 2)
    print(
        f"  shuffled records  : {t_shuffled / t_paired:6.2f}x per row "
        f"({t_shuffled:.2f} s); through ComparisonCounts {c_shuffled / c_paired:6.2f}x "
        f"({c_shuffled:.2f} s)"
    )

    # Stacked repeats of cross-validation: every repeat lists the records in
    # its own order, so a record's rows are spread out.
    repeats = 5
    stacked = np.concatenate(
        [np.random.default_rng(r).permutation(n_rows // repeats) for r in range(repeats)]
    )
    t_stacked = best_of(lambda: compare_precision(y, {"a": a, "b": b}, groups=stacked), 2)
    print(f"  stacked repeats ({repeats}): {t_stacked / t_paired:6.2f}x ({t_stacked:.2f} s)")

    def numpy_statsmodels():
        ca, cb = a == y, b == y
        table = np.bincount(2 * ca + cb, minlength=4).reshape(2, 2)[::-1, ::-1]
        return mcnemar(table, exact=True)

    t_mc = best_of(lambda: mcnemar_test(y, a, b), 3)
    t_np = best_of(numpy_statsmodels, 3)
    print(
        f"  mcnemar_test      : {t_mc / t_np:6.2f}x NumPy 2x2 + statsmodels "
        f"({t_mc:.3f} s vs {t_np:.3f} s at {n_rows:.0e} records; target <= 2x)"
    )


def section_cli_long(n):
    """The command line's long layout and ``delong`` on Parquet files of `n` rows.

    Each in a child process against ``pyarrow.parquet.read_table`` of the
    same file and against the in-memory route (read_table, then a pandas
    pivot and ``compare_precision``, or ``delong_test``): wall time inside
    the process and peak RSS.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    # Imports happen before the clock starts; their RSS is printed on its own.
    setup = (
        "import json, time, warnings\nwarnings.simplefilter('ignore')\n"
        "import pandas, pyarrow.parquet as pq\nimport sklearn_precision_stats\n"
        "from sklearn_precision_stats.__main__ import main\n"
    )

    def child(body):
        """Seconds of `body` (after `setup`) and peak RSS (MB) in a fresh interpreter."""
        code = f"{setup}start = time.perf_counter()\n{body}\n"
        code += "seconds = time.perf_counter() - start\n"
        # The peak of the child's own address space (VmHWM): ru_maxrss would
        # also count the parent's pages shared before exec.
        code += "rss = [ln for ln in open('/proc/self/status') if ln.startswith('VmHWM')]\n"
        code += "print(json.dumps({'seconds': seconds, 'kb': int(rss[0].split()[1])}))"
        out = subprocess.run(
            [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, check=True
        ).stdout
        result = json.loads(out.strip().splitlines()[-1])
        return result["seconds"], result["kb"] / 1024

    def compare(path, routes):
        rows = [(label, *child(body)) for label, body in routes]
        print(f"  {'imports only':30s}: peak RSS {child('pass')[1]:6.0f} MB")
        base_seconds, base_rss = rows[0][1], rows[0][2]
        for label, seconds, rss in rows:
            print(
                f"  {label:30s}: {seconds:7.2f} s ({seconds / base_seconds:5.2f}x), "
                f"peak RSS {rss:6.0f} MB ({rss / base_rss:5.2f}x)"
            )

    def cli(argv):
        return f"assert main({argv!r}) == 0"

    def read(path):
        return f"table = pq.read_table({path!r})"

    rng = np.random.default_rng(0)
    n_records = n // 2
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "long.parquet")
        y, a, b = predictions(n_records)
        order = rng.permutation(n)  # records and classifiers interleaved at random
        model = np.repeat(np.arange(2, dtype=np.int8), n_records)[order]
        table = pa.table(
            {
                "record": np.tile(np.arange(n_records, dtype=np.int64), 2)[order],
                "model": pa.DictionaryArray.from_arrays(model, pa.array(["a", "b"])),
                "y_true": np.tile(y, 2)[order],
                "y_pred": np.concatenate([a, b])[order],
            }
        )
        pq.write_table(table, path, row_group_size=1 << 20)
        del table, model, order
        print(
            f"5. command line, long layout: {n:.0e} rows ({n_records:.0e} records x 2 "
            f"classifiers, 10 classes, shuffled; {os.path.getsize(path) / MB:.0f} MB)"
        )
        argv = ["compare", path, "--long", "--truth", "y_true", "--classifier-col", "model"]
        argv += ["--prediction-col", "y_pred", "--record-col", "record"]
        argv += ["--format", "csv", "--output", os.devnull]
        pivot = (
            "from sklearn_precision_stats import compare_precision\n"
            "frame = table.to_pandas()\n"
            "wide = frame.pivot(index='record', columns='model', values='y_pred')\n"
            "truth = frame.groupby('record')['y_true'].first().loc[wide.index]\n"
            "compare_precision(truth.to_numpy(), {m: wide[m].to_numpy() for m in 'ab'})"
        )
        compare(
            path,
            [
                ("read_table", read(path)),
                ("CLI compare --long", cli(argv)),
                ("read_table + pivot + compare", f"{read(path)}\n{pivot}"),
            ],
        )
        os.unlink(path)

        path = os.path.join(tmp, "scores.parquet")
        positive = rng.random(n) < 0.3
        scores = {
            "y": positive.astype(np.int8),
            "s1": positive + rng.normal(0.0, 1.0, n),
            "s2": positive + rng.normal(0.0, 1.5, n),
        }
        pq.write_table(pa.table(scores), path, row_group_size=1 << 20)
        del scores, positive
        print(f"6. command line, delong: {n:.0e} rows (truth + 2 float64 scores)")
        argv = ["delong", path, "--truth", "y", "--scores", "s1,s2"]
        argv += ["--format", "csv", "--output", os.devnull]
        delong = (
            "from sklearn_precision_stats import delong_test\n"
            "columns = [table.column(c).to_numpy() for c in ('y', 's1', 's2')]\n"
            "del table\n"
            "delong_test(*columns)"
        )
        compare(
            path,
            [
                ("read_table", read(path)),
                ("CLI delong", cli(argv)),
                ("read_table + delong_test", f"{read(path)}\n{delong}"),
            ],
        )
        # delong_test's own peak beyond its inputs (truth + 2 float64 scores).
        from sklearn_precision_stats import delong_test

        columns = [column.to_numpy() for column in pq.read_table(path).columns]
        tracemalloc.start()
        delong_test(*columns)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        del columns
        label = "delong_test (tracemalloc)"
        print(f"  {label:30s}: {peak / n:6.1f} bytes/row (peak {peak / MB:.0f} MB)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=float, default=1e8, help="records in the Parquet file")
    parser.add_argument("--n-dask", type=float, default=1e7)
    parser.add_argument("--n-memory", type=float, default=1e7)
    parser.add_argument("--n-rows", type=float, default=1e7)
    parser.add_argument("--only", default="cli,dask,memory,ratios")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("args", nargs="*", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.child:
        result = CHILDREN[opts.child](*opts.args)
        result["peak_kb"] = _own_peak_kb()
        print(json.dumps(result))
        return
    only = set(opts.only.split(","))
    if "cli" in only:
        print(f"1. command line on a Parquet file of {opts.n:.0e} records")
        section_cli(int(opts.n))
    if "dask" in only:
        print(f"2. Dask arrays on a 2-worker LocalCluster, {opts.n_dask:.0e} records")
        section_dask(int(opts.n_dask))
    if "memory" in only:
        print(f"3. memory per record at {opts.n_memory:.0e} records")
        section_memory(int(opts.n_memory))
    if "ratios" in only:
        print("4. speed ratios")
        section_ratios(int(opts.n_rows))
    if only & {"cli", "cli-long"}:
        section_cli_long(int(opts.n_rows))


if __name__ == "__main__":
    main()
