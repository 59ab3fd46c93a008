"""Command line: ``python -m sklearn_precision_stats COMMAND``, see ``--help``.

Only :mod:`argparse` is imported before the arguments are parsed, so that
``--help`` and usage errors answer at once; the library is imported by the
subcommand that runs.
"""

import sys

__all__ = ["main"]


def demo(random_state=0, stream=None):
    """Compare GaussianNB with a random forest on scikit-learn's digits data.

    70/30 split; prints the per-class table and the summary.

    Parameters
    ----------
    random_state : int, default=0
        Seed of the split and of the forest.
    stream : file-like, default=sys.stdout

    Returns
    -------
    PairedComparison
    """
    import time

    import pandas as pd
    from sklearn.datasets import load_digits
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.model_selection import train_test_split
    from sklearn.naive_bayes import GaussianNB

    from .comparators._paired_comparator import PairedPrecisionComparator

    stream = sys.stdout if stream is None else stream
    start = time.perf_counter()
    X, y = load_digits(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, stratify=y, random_state=random_state
    )
    comparator = PairedPrecisionComparator(
        {
            # The Quick start's forest, so that the numbers match the README.
            "rf": RandomForestClassifier(n_estimators=50, random_state=random_state),
            "nb": GaussianNB(),
        },
        reference="rf",
        n_jobs=-1,
    ).fit(X_train, y_train)
    result = comparator.compare(X_test, y_test)
    print(
        f"Digits ({X.shape[0]} images, 10 classes): GaussianNB ('nb') vs a "
        f"random forest ('rf', the reference), trained on {len(y_train)}, "
        f"tested on {len(y_test)} records.\n",
        file=stream,
    )
    columns = [
        "class",
        "precision",
        "precision_reference",
        "gs_pvalue",
        "wald_pvalue",
        "ratio",
        "ratio_ci_low",
        "ratio_ci_high",
    ]
    with pd.option_context("display.width", 120, "display.precision", 4):
        print(result.table[columns].to_string(index=False), file=stream)
    print(file=stream)
    print(result.summary(), file=stream)
    print(f"\n(done in {time.perf_counter() - start:.1f} s)", file=stream)
    return result


def _run_demo(args):
    demo(random_state=args.random_state)
    return 0


def main(argv=None):
    """Entry point of the ``sklearn-precision-stats`` console script.

    Returns the exit status: 0 on success, 2 with a one-line message on
    stderr for any failure.
    """
    from .cli._commands import _seed, build_parser
    from .cli._run import run

    parser, subcommands = build_parser()
    demo_parser = subcommands.add_parser(
        "demo",
        help="compare GaussianNB and a random forest on the digits data",
        description="Compare GaussianNB and a random forest on scikit-learn's digits data.",
    )
    demo_parser.add_argument(
        "--random-state", type=_seed, default=0, help="seed of the split and of the forest"
    )
    demo_parser.set_defaults(func=_run_demo)
    args = parser.parse_args(argv)
    return run(args, parser.prog)


if __name__ == "__main__":
    sys.exit(main())
