"""The command line's parser: compare, compare-scores, global, mcnemar and delong.

Building the parser imports :mod:`argparse` alone; each subcommand's work
(:mod:`._subcommands`) imports NumPy, pyarrow and the library when it runs.
"""

import argparse

from ._io import FORMATS, OUTPUT_FORMATS

__all__ = ["build_parser"]

# The GEE measures (precision, ..., accuracy, per class) come first; the
# others, and any measure with --average, are compared by compare_metric.
METRICS = (
    "precision",
    "npv",
    "recall",
    "specificity",
    "accuracy",
    "f1",
    "fbeta",
    "jaccard",
    "informedness",
    "markedness",
    "balanced_accuracy",
    "mcc",
    "cohen_kappa",
)
GEE_METRICS = METRICS[:5]
AVERAGES = ("binary", "micro", "macro", "weighted")
PROG = "sklearn-precision-stats"


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (the usage is in ``--help``)."""

    def error(self, message):
        commands = [
            name
            for action in self._actions
            if isinstance(action, argparse._SubParsersAction)
            for name in action.choices
        ]
        if commands and "required: command" in message:
            message = f"a command is needed, one of {', '.join(commands)}"
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


class _HelpFormatter(argparse.HelpFormatter):
    """Help text with each option's default, when it has one."""

    def _get_help_string(self, action):
        text = action.help or ""
        default = action.default
        if (
            "%(default)" not in text
            and action.option_strings
            and default is not None
            and default is not argparse.SUPPRESS
            and not isinstance(default, bool)
        ):
            text += " (default: %(default)s)"
        return text


def _names(text):
    """A comma-separated list of names (empty entries dropped)."""
    return [part.strip() for part in text.split(",") if part.strip()]


def _level(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be strictly between 0 and 1, got {value}")
    return value


def _delimiter(text):
    """One character; ``\\t`` or ``tab`` for a tab (hard to type in a shell)."""
    text = {"\\t": "\t", "tab": "\t"}.get(text, text)
    if len(text) != 1 or text in '\r\n"':
        raise argparse.ArgumentTypeError(
            f"must be one character other than a quote or a line break, e.g. ';', or "
            f"\\t for a tab; got {text!r}"
        )
    return text


def _integer_at_least(low):
    """An argparse type: an integer of at least `low`."""

    def convert(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be an integer >= {low}, got {value}")
        return value

    return convert


_seed = _integer_at_least(0)
_positive_int = _integer_at_least(1)


def _add_input(parser, scores=False):
    parser.add_argument(
        "file",
        metavar="FILE",
        help="CSV (also compressed: .gz, .bz2, .zst, .lz4), Parquet or Feather file",
    )
    parser.add_argument("--truth", required=True, metavar="COL", help="column of true labels")
    parser.add_argument(
        "--input-format",
        choices=FORMATS,
        default=None,
        help="format of FILE (default: from its suffix)",
    )
    parser.add_argument(
        "--delimiter",
        type=_delimiter,
        default=None,
        help="CSV field delimiter, one character; \\t for a tab (default: a tab for .tsv, else ,)",
    )
    parser.add_argument(
        "--encoding",
        default="utf-8",
        metavar="NAME",
        help="text encoding of a CSV file, e.g. latin-1",
    )
    parser.add_argument(
        "--batch-size",
        type=_positive_int,
        default=None,
        metavar="ROWS",
        help="rows per record batch read; the memory of a batch scales with it "
        "(default: 1048576 for Parquet and Feather, 16 MB blocks for CSV)",
    )
    if scores:
        return
    parser.add_argument(
        "--classifiers",
        type=_names,
        default=None,
        metavar="A,B,...",
        help="classifiers to compare (default: every column other than truth and "
        "groups, or every classifier of the long layout, in file order)",
    )
    parser.add_argument(
        "--groups",
        default=None,
        metavar="COL",
        help="column of record ids, when a record has several rows (default: one row per record)",
    )
    layout = parser.add_argument_group("long layout (one row per record and classifier)")
    layout.add_argument("--long", action="store_true", help="the file is in the long layout")
    layout.add_argument(
        "--classifier-col", default=None, metavar="C", help="column of classifier names"
    )
    layout.add_argument(
        "--prediction-col", default=None, metavar="P", help="column of predicted labels"
    )
    layout.add_argument("--record-col", default=None, metavar="R", help="column of record ids")


def _add_output(parser):
    parser.add_argument(
        "--format",
        choices=OUTPUT_FORMATS,
        default="text",
        help="output format; markdown and latex give the tables of the result's "
        "to_markdown() and to_latex(), csv and json every column",
    )
    parser.add_argument(
        "--output",
        default=None,
        metavar="PATH",
        help="file to write, in an existing folder (default: standard output)",
    )


def _add_confidence_level(parser):
    parser.add_argument(
        "--confidence-level",
        type=_level,
        default=0.95,
        metavar="LEVEL",
        help="confidence level of the intervals, in (0, 1)",
    )


def _add_random_state(parser, of):
    parser.add_argument(
        "--random-state",
        type=_seed,
        default=None,
        metavar="SEED",
        help=f"seed of the {of} (default: fresh entropy)",
    )


def _add_comparison_options(parser, metrics=METRICS):
    parser.add_argument(
        "--reference",
        default=None,
        metavar="A",
        help="the reference classifier (default: the first classifier, in file order)",
    )
    parser.add_argument(
        "--metric",
        choices=metrics,
        default="precision",
        help="the measure compared: the GEE comparison of precision, npv, recall, "
        "specificity or accuracy"
        + (
            "; the delta method of compare_metric for the others and with --average"
            if len(metrics) > len(GEE_METRICS)
            else ""
        ),
    )
    parser.add_argument(
        "--labels",
        nargs="+",
        default=None,
        metavar="LABEL",
        help="classes to report, in this order, space- or comma-separated (default: every class)",
    )
    _add_confidence_level(parser)


def _add_compare_options(parser):
    _add_comparison_options(parser)
    measures = parser.add_argument_group(
        "measures of compare_metric (F1, MCC, kappa, ..., or any measure with --average)"
    )
    measures.add_argument(
        "--average",
        choices=AVERAGES,
        default=None,
        help="average over the classes, as in scikit-learn (default: one row per class)",
    )
    measures.add_argument(
        "--beta", type=float, default=None, help="beta of --metric fbeta (default: 1)"
    )
    measures.add_argument(
        "--weights",
        choices=("linear", "quadratic"),
        default=None,
        help="weights of --metric cohen_kappa (default: unweighted)",
    )
    measures.add_argument(
        "--pos-label",
        default=None,
        metavar="LABEL",
        help="the positive class of --average binary (default: 1)",
    )


def _add_global_options(parser):
    _add_comparison_options(parser, GEE_METRICS)
    parser.add_argument(
        "--method",
        choices=("dai-cui", "permutation", "fisher", "simes"),
        default="dai-cui",
        help="how the per-class tests are combined",
    )
    parser.add_argument(
        "--test",
        choices=("gs", "wgs", "wald", "ratio"),
        default="gs",
        help="the per-class test combined",
    )
    parser.add_argument(
        "--n-resamples",
        type=_positive_int,
        default=None,
        metavar="B",
        help="resamples of the dai-cui and permutation methods (default: 1000)",
    )
    parser.add_argument(
        "--resampling",
        choices=("permutation", "bootstrap"),
        default=None,
        help="how the dai-cui method resamples (default: permutation)",
    )
    _add_random_state(parser, "resampling")


def _add_mcnemar_options(parser):
    parser.add_argument(
        "--method",
        choices=("exact", "midp", "asymptotic", "corrected"),
        default=None,
        help="the test's p-value (default: exact, or the clustered asymptotic test "
        "when records have several rows)",
    )
    _add_confidence_level(parser)


def _add_delong_options(parser):
    parser.add_argument(
        "--scores",
        type=_names,
        required=True,
        metavar="A,B",
        help="the two score columns, a and b",
    )
    parser.add_argument(
        "--pos-label",
        default=None,
        help="the positive class (default: 1 of labels in {0, 1} or {-1, 1}; "
        "required for text labels)",
    )
    parser.add_argument(
        "--alternative",
        choices=("two-sided", "less", "greater"),
        default="two-sided",
        help="the alternative hypothesis",
    )
    _add_confidence_level(parser)


def _lazy(name):
    """The runner `name` of :mod:`._subcommands`, imported when it runs."""

    def run(args):
        from . import _subcommands

        return getattr(_subcommands, name)(args)

    run.__name__ = name
    return run


def _score_spec(text):
    """``A:colA,B:colB`` (``A:c0+c1+c2`` for one column per class) -> [(name, columns)]."""
    spec = []
    for item in _names(text):
        name, sep, columns = item.partition(":")
        if not sep:
            name, columns = item, item  # a bare column is its own classifier
        columns = [c.strip() for c in columns.split("+") if c.strip()]
        if not name.strip() or not columns:
            raise argparse.ArgumentTypeError(f"expected NAME:COLUMN, got {item!r}")
        spec.append((name.strip(), columns))
    return spec


def _add_compare_scores_options(parser):
    parser.add_argument(
        "--scores",
        type=_score_spec,
        required=True,
        metavar="A:COL,B:COL",
        help="each classifier's score column (higher: more likely positive), or for "
        "several classes its columns, one per class, joined by + (A:a0+a1+a2) in the "
        "order of --labels or of the sorted classes",
    )
    parser.add_argument(
        "--groups",
        default=None,
        metavar="COL",
        help="column of record ids, when a record has several rows; the bootstrap "
        "then draws records (default: one row per record)",
    )
    parser.add_argument(
        "--metric",
        choices=("average_precision", "precision_at_recall", "recall_at_precision", "roc_auc"),
        default="average_precision",
        help="the measure compared",
    )
    parser.add_argument(
        "--recall",
        type=_level_closed,
        default=None,
        help="the recall of precision_at_recall (default: 0.9)",
    )
    parser.add_argument(
        "--precision",
        type=_level_closed,
        default=None,
        help="the precision of recall_at_precision (default: 0.9)",
    )
    parser.add_argument(
        "--method",
        choices=("delong", "bootstrap"),
        default=None,
        help="how roc_auc is compared: delong (also with --groups and --average) or "
        "bootstrap; the other measures use the bootstrap (default: delong)",
    )
    parser.add_argument(
        "--average",
        choices=("macro", "micro", "weighted"),
        default=None,
        help="average over the classes, as in scikit-learn (default: one row per class)",
    )
    parser.add_argument(
        "--reference",
        default=None,
        metavar="A",
        help="the reference classifier (default: the first of --scores)",
    )
    parser.add_argument(
        "--pos-label",
        default=None,
        metavar="LABEL",
        help="the positive class of two (default: the second of the sorted classes)",
    )
    parser.add_argument(
        "--labels",
        nargs="+",
        default=None,
        metavar="LABEL",
        help="the classes, in the order of each classifier's score columns "
        "(default: the sorted classes)",
    )
    parser.add_argument(
        "--n-resamples", type=_positive_int, default=2000, metavar="B", help="bootstrap replicates"
    )
    _add_random_state(parser, "bootstrap")
    _add_confidence_level(parser)


def _level_closed(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], got {value}")
    return value


def _add_subcommand(subparsers, name, run, add_options, *, scores=False, **texts):
    """One subcommand: the input options, its own, then the output options."""
    parser = subparsers.add_parser(name, formatter_class=_HelpFormatter, **texts)
    _add_input(parser, scores=scores)
    add_options(parser)
    _add_output(parser)
    parser.set_defaults(func=run)


def build_parser():
    """The command line's parser and its subparsers object (for more subcommands)."""
    parser = _Parser(
        prog=PROG,
        description="Per-class statistical comparison of classifiers' precision.",
        formatter_class=_HelpFormatter,
    )
    subparsers = parser.add_subparsers(dest="command", required=True)
    add_subcommands(subparsers)
    return parser, subparsers


def add_subcommands(subparsers):
    """Add the subcommands on prediction files to an argparse subparsers object."""
    _add_subcommand(
        subparsers,
        "compare",
        _lazy("run_compare"),
        _add_compare_options,
        help="compare classifiers' precision, NPV, recall, ..., F1, MCC or kappa",
        description="Per-class paired comparison of classifiers from a prediction file.",
    )
    _add_subcommand(
        subparsers,
        "global",
        _lazy("run_global"),
        _add_global_options,
        help="global null test: no difference in any class",
        description="Combine the per-class tests into one test per compared classifier.",
    )
    _add_subcommand(
        subparsers,
        "mcnemar",
        _lazy("run_mcnemar"),
        _add_mcnemar_options,
        help="McNemar's test of equal accuracy of two classifiers",
        description="McNemar's test (clustered by record with --groups or --long).",
    )
    _add_subcommand(
        subparsers,
        "delong",
        _lazy("run_delong"),
        _add_delong_options,
        scores=True,
        help="DeLong's test of equal AUC of two classifiers' scores",
        description="DeLong's test on two score columns (compare-scores --metric "
        "roc_auc compares any number of classifiers, per class).",
    )
    _add_subcommand(
        subparsers,
        "compare-scores",
        _lazy("run_compare_scores"),
        _add_compare_scores_options,
        scores=True,
        help="compare classifiers' average precision, precision at a recall, recall "
        "at a precision or ROC AUC, from their scores",
        description="Paired threshold-free comparison of classifiers' scores.",
    )
