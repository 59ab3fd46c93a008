"""The paper's Tables 5, 6 and 7 on three of its UCI data sets.

Gondara, "Classifier comparison using precision", section 3: Gaussian naive
Bayes (NB) against a random forest of 1000 trees (RF) on a 70/30 train/test
split, NB as the classifier and RF as the reference ("NB/RF"):

* Table 5: per-class precision of both, with the p-values of the
  generalized score test (P-GS) and of the empirical Wald test (P-GW);
* Table 6: relative precision NB/RF with its 95% confidence interval;
* Table 7: the per-class GS p-values combined into a test of the global
  null with Dai and Cui's method.

Each table is printed next to the paper's numbers. The data are read from
``../shared/data`` (beside the repository); the script says so and exits 0
when they are absent. They are never copied into the repository.

With ``--figures DIR`` it also draws the paper's figures into DIR:
``figure1_power.png`` (Z test vs GS power under correlation, simulated),
``figure2_forest.png`` (the forest plot of Table 6) and
``figure3_replicability.png`` (replicability of GS for class 0 of the
diabetic retinopathy data, 600 records; a few minutes with 1000 trees).

Run: ``python benchmarks/paper_tables.py [--n-estimators 1000]
[--random-state 0] [--n-jobs -1] [--figures doc/images]``.
The paper's split, seed and forest are unknown, so the numbers agree up to
the noise of the split (a few hundred test records for two of the sets).
"""

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.io import arff
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB

from sklearn_precision_stats import (
    PairedPrecisionComparator,
    plot_power,
    plot_relative_precision,
    replicability,
)
from sklearn_precision_stats.simulation import rejection_rates

DATA_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data"

# The paper's Tables 5, 6 and 7 for these data sets: class -> (NB precision,
# RF precision, P-GS, P-GW, RP, RP CI low, RP CI high, RP p-value), and the
# combined p-value per data set. "<0.0001" is stored as 0.
PAPER = {
    "DIAB. RET.": {
        0: (0.54, 0.63, 0.002, 0.0002, 0.85, 0.78, 0.92, 0.0001),
        1: (0.76, 0.67, 0.07, 0.09, 1.13, 0.99, 1.29, 0.06),
    },
    "BANK NOTE": {
        0: (0.83, 0.99, 0.0, 0.0001, 0.83, 0.79, 0.88, 0.0),
        1: (0.85, 0.98, 0.0, 0.0, 0.87, 0.82, 0.92, 0.0),
    },
    "MAGIC": {
        "g": (0.72, 0.88, 0.0, 0.0, 0.82, 0.81, 0.83, 0.0),
        "h": (0.70, 0.87, 0.0, 0.0, 0.80, 0.77, 0.83, 0.0),
    },
}
PAPER_COMBINED = {"DIAB. RET.": 0.002, "BANK NOTE": 0.0, "MAGIC": 0.0}
FILES = {
    "DIAB. RET.": "messidor_features.arff",
    "BANK NOTE": "data_banknote_authentication.txt",
    "MAGIC": "magic04.data",
}


def load_dataset(name, data_dir=DATA_DIR):
    """Features and labels of one data set, as the UCI files give them."""
    path = Path(data_dir) / FILES[name]
    if name == "DIAB. RET.":
        # 19 features, then the class (0/1) as the last attribute.
        records, _ = arff.loadarff(path)
        frame = pd.DataFrame(records)
        return frame.iloc[:, :-1].to_numpy(float), frame.iloc[:, -1].to_numpy().astype(int)
    if name == "BANK NOTE":
        frame = pd.read_csv(path, skipinitialspace=True)  # first line is a header
        return frame.iloc[:, :-1].to_numpy(float), frame.iloc[:, -1].to_numpy(int)
    frame = pd.read_csv(path, header=None)  # 10 features, class g/h, no header
    return frame.iloc[:, :-1].to_numpy(float), frame.iloc[:, -1].to_numpy(str)


def compare_dataset(X, y, *, n_estimators=1000, random_state=0, n_jobs=None):
    """NB vs RF on a 70/30 split: the PairedComparison (RF the reference)."""
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, random_state=random_state
    )
    comparator = PairedPrecisionComparator(
        {
            "NB": GaussianNB(),
            "RF": RandomForestClassifier(
                n_estimators=n_estimators, random_state=random_state, n_jobs=n_jobs
            ),
        },
        reference="RF",
    )
    return comparator.fit(X_train, y_train).compare(X_test, y_test)


def _p(value):
    return "nan" if not np.isfinite(value) else ("<0.0001" if value < 1e-4 else f"{value:.4f}")


def _paper_p(value):
    return "<0.0001" if value == 0 else f"{value:g}"


def _rows(results):
    """(data set, table row, the paper's numbers for that class) triples."""
    for name, res in results.items():
        for _, row in res.table.iterrows():
            yield name, row, PAPER[name][row["class"]]


def table5(results):
    """Precision and GS/Wald p-values per data set and class, with the paper's."""
    return pd.DataFrame(
        {
            "dataset": name,
            "class": r["class"],
            "NB": f"{r['precision']:.2f}",
            "RF": f"{r['precision_reference']:.2f}",
            "P-GS": _p(r["gs_pvalue"]),
            "P-GW": _p(r["wald_pvalue"]),
            "paper NB": f"{paper[0]:.2f}",
            "paper RF": f"{paper[1]:.2f}",
            "paper P-GS": _paper_p(paper[2]),
            "paper P-GW": _paper_p(paper[3]),
        }
        for name, r, paper in _rows(results)
    )


def table6(results):
    """Relative precision NB/RF with its 95% CI and p-value, with the paper's."""
    return pd.DataFrame(
        {
            "dataset": name,
            "class": r["class"],
            "RP (95% CI)": f"{r['ratio']:.2f} ({r['ratio_ci_low']:.2f}, {r['ratio_ci_high']:.2f})",
            "p-value": _p(r["ratio_pvalue"]),
            "paper RP (95% CI)": f"{paper[4]:.2f} ({paper[5]:.2f}, {paper[6]:.2f})",
            "paper p-value": _paper_p(paper[7]),
        }
        for name, r, paper in _rows(results)
    )


def table7(results, *, n_resamples=1000, random_state=0):
    """Per-class GS p-values and their Dai-Cui combination, with the paper's."""
    rows = []
    for name, res in results.items():
        combined = res.global_test(
            method="dai-cui", test="gs", n_resamples=n_resamples, random_state=random_state
        )
        simes = res.global_test(method="simes", test="gs")
        for i, (_, r) in enumerate(res.table.iterrows()):
            rows.append(
                {
                    "dataset": name,
                    "class": r["class"],
                    "P-GS": _p(r["gs_pvalue"]),
                    "combined (Dai-Cui)": _p(float(combined.pvalue)) if i == 0 else "",
                    "Simes": _p(float(simes.pvalue)) if i == 0 else "",
                    "paper combined": _paper_p(PAPER_COMBINED[name]) if i == 0 else "",
                }
            )
    return pd.DataFrame(rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=DATA_DIR)
    parser.add_argument("--n-estimators", type=int, default=1000)
    parser.add_argument("--random-state", type=int, default=0)
    parser.add_argument("--n-jobs", type=int, default=-1)
    parser.add_argument("--n-resamples", type=int, default=1000)
    parser.add_argument("--figures", type=Path, help="draw Figures 1-3 into this folder")
    args = parser.parse_args(argv)

    missing = [f for f in FILES.values() if not (args.data_dir / f).is_file()]
    if missing:
        print(f"Skipping: data files {missing} not found in {args.data_dir}.")
        return 0

    results = {}
    for name in FILES:
        start = time.perf_counter()
        X, y = load_dataset(name, args.data_dir)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a NaN statistic here would be a bug
            results[name] = compare_dataset(
                X,
                y,
                n_estimators=args.n_estimators,
                random_state=args.random_state,
                n_jobs=args.n_jobs,
            )
        res = results[name]
        print(
            f"{name}: {X.shape[0]} records, {X.shape[1]} features, "
            f"{res.n_rows} test records ({time.perf_counter() - start:.1f} s)"
        )

    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print("\nTable 5: precision, GS and Wald p-values (NB vs RF)")
        print(table5(results).to_string(index=False))
        print("\nTable 6: relative precision NB/RF")
        print(table6(results).to_string(index=False))
        t7 = table7(results, n_resamples=args.n_resamples, random_state=args.random_state)
        print("\nTable 7: global null, GS p-values combined")
        print(t7.to_string(index=False))

    if args.figures is not None:
        draw_figures(results, args)
    return 0


def draw_figures(results, args):
    """The paper's Figures 1, 2 and 3 as PNG files in ``args.figures``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = args.figures
    out.mkdir(parents=True, exist_ok=True)

    # Figure 1: power of GS and of the naive Z test when the two
    # classifiers' predictions are correlated (0.4 within each class).
    start = time.perf_counter()
    rates = rejection_rates(
        ("gs", "z"),
        n_samples=[100, 1000],
        precision=[(0.7 * (1 + d / 100), 0.7) for d in range(0, 31, 2)],
        correlation=0.4,
        n_simulations=2000,
        random_state=args.random_state,
    )
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True, layout="constrained")
    for ax, n in zip(axes, [100, 1000], strict=False):
        plot_power(rates[rates["n_samples"] == n], ax=ax)
        ax.set_title(f"n = {n} test records, correlation 0.4", fontsize="medium")
    fig.savefig(out / "figure1_power.png", dpi=80)
    print(f"Figure 1 ({time.perf_counter() - start:.1f} s): {out / 'figure1_power.png'}")

    ax = plot_relative_precision(results)
    ax.set_title("Relative precision NB/RF (paper Figure 2)", fontsize="medium")
    ax.figure.savefig(out / "figure2_forest.png", dpi=80)
    print(f"Figure 2: {out / 'figure2_forest.png'}")

    # Figure 3: GS for class 0 of the diabetic retinopathy data, starting
    # from 600 records as the paper does.
    start = time.perf_counter()
    X, y = load_dataset("DIAB. RET.", args.data_dir)
    keep, _ = train_test_split(
        np.arange(y.shape[0]), train_size=600, stratify=y, random_state=args.random_state
    )
    rep = replicability(
        {
            "NB": GaussianNB(),
            "RF": RandomForestClassifier(
                n_estimators=args.n_estimators, random_state=args.random_state
            ),
        },
        X[keep],
        y[keep],
        label=0,
        reference="RF",
        sample_sizes=(1.0, 0.8, 0.6, 0.4),
        test_sizes=(0.2, 0.3, 0.4, 0.5),
        n_repeats=10,
        random_state=args.random_state,
        n_jobs=args.n_jobs,
    )
    print(rep.table.to_string(index=False))
    ax = rep.plot(rejection_rate=True)
    ax.figure.set_size_inches(6.5, 4.5)
    ax.figure.savefig(out / "figure3_replicability.png", dpi=80)
    print(f"Figure 3 ({time.perf_counter() - start:.1f} s): {out / 'figure3_replicability.png'}")


if __name__ == "__main__":
    sys.exit(main())
