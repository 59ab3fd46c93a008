"""The subcommands on prediction files: compare, global, mcnemar and delong.

Building the parser imports :mod:`argparse` alone; each subcommand imports
NumPy, pyarrow and the library when it runs.
"""

import argparse
import dataclasses
import math

import numpy as np

from ._io import FORMATS, TableSource, UsageError, check_output_path
from ._output import OUTPUT_FORMATS

__all__ = ["build_parser"]

METRICS = ("precision", "npv", "recall", "specificity", "accuracy")
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


def _positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _add_input(parser, scores=False):
    parser.add_argument("file", metavar="FILE", help="CSV, Parquet or Feather file")
    parser.add_argument("--truth", required=True, metavar="COL", help="column of true labels")
    parser.add_argument(
        "--input-format",
        choices=FORMATS,
        default=None,
        help="format of FILE (default: from its suffix)",
    )
    parser.add_argument(
        "--delimiter", default=None, help="CSV field delimiter (default: a tab for .tsv, else ,)"
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


def _add_comparison_options(parser):
    parser.add_argument(
        "--reference",
        default=None,
        metavar="A",
        help="the reference classifier (default: the first classifier, in file order)",
    )
    parser.add_argument(
        "--metric", choices=METRICS, default="precision", help="the measure compared"
    )
    parser.add_argument(
        "--labels",
        nargs="+",
        default=None,
        metavar="LABEL",
        help="classes to report, in this order, space- or comma-separated (default: every class)",
    )
    _add_confidence_level(parser)


def _add_global_options(parser):
    _add_comparison_options(parser)
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
        default=1000,
        metavar="B",
        help="resamples of the dai-cui and permutation methods",
    )
    parser.add_argument(
        "--resampling",
        choices=("permutation", "bootstrap"),
        default="permutation",
        help="how the dai-cui method resamples",
    )
    parser.add_argument(
        "--random-state",
        type=int,
        default=None,
        metavar="SEED",
        help="seed of the resampling (default: fresh entropy)",
    )


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
    """Add compare, global, mcnemar and delong to an argparse subparsers object."""
    _add_subcommand(
        subparsers,
        "compare",
        run_compare,
        _add_comparison_options,
        help="compare classifiers' precision, NPV, recall, specificity or accuracy",
        description="Per-class paired comparison of classifiers from a prediction file.",
    )
    _add_subcommand(
        subparsers,
        "global",
        run_global,
        _add_global_options,
        help="global null test: no difference in any class",
        description="Combine the per-class tests into one test per compared classifier.",
    )
    _add_subcommand(
        subparsers,
        "mcnemar",
        run_mcnemar,
        _add_mcnemar_options,
        help="McNemar's test of equal accuracy of two classifiers",
        description="McNemar's test (clustered by record with --groups or --long).",
    )
    _add_subcommand(
        subparsers,
        "delong",
        run_delong,
        _add_delong_options,
        scores=True,
        help="DeLong's test of equal AUC of two classifiers' scores",
        description="DeLong's test on two score columns.",
    )


# ---------------------------------------------------------------- reading


def _source(args):
    """The input file, once the output path is known to be writable."""
    check_output_path(args.output)
    return TableSource(
        args.file, args.input_format, args.delimiter, args.batch_size, encoding=args.encoding
    )


def _read(args, counts=False):
    """Open the file, check the columns, and encode them.

    With `counts`, the file is counted batch by batch into a
    ComparisonCounts (bounded memory) instead of being kept as codes.
    """
    from ._data import count_long, count_wide, read_long, read_wide

    _warn_suspicious(args)
    source = _source(args)
    if args.long:
        missing = [
            option
            for option in ("classifier_col", "prediction_col", "record_col")
            if getattr(args, option) is None
        ]
        if missing:
            flags = ", ".join("--" + m.replace("_", "-") for m in missing)
            raise UsageError(f"--long needs {flags}.")
        if args.groups is not None:
            raise UsageError(
                "--groups is not used with --long: the records are given by --record-col."
            )
        source.require([args.truth], "--truth")
        source.require([args.classifier_col], "--classifier-col")
        source.require([args.prediction_col], "--prediction-col")
        source.require([args.record_col], "--record-col")
        if args.classifiers is not None and len(set(args.classifiers)) != len(args.classifiers):
            raise UsageError(f"--classifiers: names must be unique, got {args.classifiers}.")
        data = (count_long if counts else read_long)(
            source,
            args.truth,
            args.classifier_col,
            args.prediction_col,
            args.record_col,
            args.classifiers,
        )
        return source, data
    source.require([args.truth], "--truth")
    if args.groups is not None:
        source.require([args.groups], "--groups")
    if args.classifiers is None:
        skip = {args.truth, args.groups}
        classifiers = [c for c in source.columns if c not in skip]
    else:
        classifiers = args.classifiers
        for name in classifiers:
            if name not in source.columns:
                raise UsageError(
                    f"--classifiers: unknown classifier {name!r}: no such column in "
                    f"{source.path!r}; its columns are {source.columns}."
                )
    if len(set(classifiers)) != len(classifiers):
        raise UsageError(f"--classifiers: names must be unique, got {classifiers}.")
    if args.truth in classifiers:
        raise UsageError(f"--classifiers: {args.truth!r} is the --truth column.")
    if len(classifiers) < 2:
        raise UsageError(
            f"at least two classifiers are needed, got {classifiers}; pass --classifiers A,B."
        )
    if counts:
        return source, count_wide(source, args.truth, classifiers, args.groups)
    return source, read_wide(source, args.truth, classifiers, args.groups)


def _warn_suspicious(args):
    """Warn about options that run but are most likely a mistake."""
    import warnings

    def warn(message):
        warnings.warn(message, UserWarning, stacklevel=3)

    if args.long:
        roles = {
            "--truth": args.truth,
            "--classifier-col": args.classifier_col,
            "--prediction-col": args.prediction_col,
            "--record-col": args.record_col,
        }
    else:
        roles = {"--truth": args.truth, "--groups": args.groups}
        for name in args.classifiers or []:
            roles.setdefault(f"--classifiers {name!r}", name)
    seen = {}
    for option, column in roles.items():
        if column is None:
            continue
        if column in seen:
            warn(
                f"{option} and {seen[column]} name the same column {column!r}; each "
                "option should name its own column (e.g. --groups holds record ids, "
                "not classes)."
            )
        seen.setdefault(column, option)


def _resolve_labels(requested, classes):
    """Command-line label strings -> the labels of the file, by their text."""
    if requested is None:
        return None
    texts = [part for item in requested for part in item.split(",") if part]
    by_text = {}
    for value in np.asarray(classes).tolist():
        by_text.setdefault(str(value), value)
        if isinstance(value, float) and value.is_integer():
            by_text.setdefault(str(int(value)), value)
    labels = []
    for text in texts:
        if text not in by_text:
            seen = sorted(str(v) for v in np.asarray(classes).tolist())
            raise UsageError(
                f"--labels: class {text!r} does not occur in the file; its classes are {seen}."
            )
        labels.append(by_text[text])
    return labels


def _check_reference(reference, names, option="--reference"):
    if reference is not None and reference not in names:
        raise UsageError(f"{option}: {reference!r} is not one of the classifiers {list(names)}.")


def _library_call(function, *args, **kwargs):
    """Call the library; its ValueErrors (bad data or options) are usage errors."""
    try:
        return function(*args, **kwargs)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc


def _comparison(args, resampling=False):
    """The comparison the options ask for.

    The file is counted in bounded memory: the resampling methods work on
    the counts' joint table. Only when the counts keep no records (too many
    classes and classifiers for the table) and `resampling` methods will be
    called is the file read again into label codes.
    """
    from .. import paired
    from ..engine._accumulator import ComparisonCounts, comparison_from_counts

    _, data = _read(args, counts=True)
    if resampling and data.stored_records() is None:
        _, data = _read(args, counts=False)
    if isinstance(data, ComparisonCounts):
        _check_reference(args.reference, data.classifiers)
        labels = _resolve_labels(args.labels, data.classes)
        return _library_call(
            comparison_from_counts,
            data,
            args.metric,
            reference=args.reference,
            labels=labels,
            confidence_level=args.confidence_level,
        )
    names = list(data.preds)
    if len(names) < 2:
        raise UsageError(
            f"at least two classifiers are needed, got {names}; pass --classifiers A,B."
        )
    _check_reference(args.reference, names)
    labels = _resolve_labels(args.labels, data.labels.values)
    y_true, preds, groups = data.decoded()
    function = getattr(paired, f"compare_{args.metric}")
    return _library_call(
        function,
        y_true,
        preds,
        reference=args.reference,
        groups=groups,
        labels=labels,
        confidence_level=args.confidence_level,
    )


# ---------------------------------------------------------------- commands


def _emit(args, tables, text, meta, result=None):
    """Write the output; Markdown and LaTeX of a `result` are its own export.

    `text` may be a callable, called only for the text format.
    """
    from ._output import render, write_output

    if callable(text):
        text = text() if args.format == "text" else None
    if result is not None and args.format == "markdown":
        output = result.to_markdown(confidence_level=args.confidence_level)
    elif result is not None and args.format == "latex":
        output = result.to_latex(confidence_level=args.confidence_level)
    else:
        output = render(tables, args.format, text=text, meta=meta)
    write_output(output.rstrip("\n") + "\n", args.output)
    return 0


# Above this many table rows the text output is plain columns: the
# summary's table layout costs about a millisecond per row.
_MAX_SUMMARY_ROWS = 500


def _text(result):
    """The text output of a comparison: its summary, or plain columns when long."""
    from ._output import fixed_width

    table = result.table
    if table.shape[0] <= _MAX_SUMMARY_ROWS:
        return str(result)
    metric = result.metric
    columns = [
        c
        for c in (
            "class",
            "classifier",
            metric,
            f"{metric}_reference",
            "gs_stat",
            "gs_pvalue",
            "wald_stat",
            "wald_pvalue",
            "ratio",
            "ratio_ci_low",
            "ratio_ci_high",
            "diff",
            "diff_ci_low",
            "diff_ci_high",
        )
        if c in table.columns
    ]
    compared = [str(c) for c in result.classifiers if c != result.reference]
    head = (
        f"Paired comparison of {metric}: {', '.join(compared)} vs "
        f"the reference {result.reference!r}, {table.shape[0]} rows "
        f"({result.n_records} records, {100 * result.confidence_level:g}% intervals). "
        "Every column: --format csv or json."
    )
    return head + "\n\n" + fixed_width(table[columns])


def run_compare(args):
    """``compare``: the per-class table of a paired comparison."""
    result = _comparison(args)
    meta = {
        "metric": result.metric,
        "classifiers": list(result.classifiers),
        "reference": result.reference,
        "confidence_level": args.confidence_level,
        "n_rows": int(result.n_rows),
        "n_records": int(result.n_records),
    }
    tables = {"table": result.table, "omnibus": result.omnibus}
    return _emit(args, tables, lambda: _text(result), meta, result=result)


def run_global(args):
    """``global``: the global null test of a comparison."""
    # Fisher's and Simes' combinations need only the per-class p-values.
    result = _comparison(args, resampling=args.method in ("dai-cui", "permutation"))
    test = _library_call(
        result.global_test,
        method=args.method,
        test=args.test,
        n_resamples=args.n_resamples,
        random_state=args.random_state,
        resampling=args.resampling,
    )
    frame = test.to_frame()
    meta = {"metric": result.metric, "reference": result.reference}
    text = f"Global null test of equal {result.metric} in every class\n" + frame.to_string(
        index=False
    )
    return _emit(args, {"global_test": frame}, text, meta)


def _result_frame(result, confidence_level):
    """One-row DataFrame of a test result's fields and its confidence interval."""
    import pandas as pd

    row = {
        f.name: getattr(result, f.name)
        for f in dataclasses.fields(result)
        if np.ndim(getattr(result, f.name)) == 0
    }
    low, high = result.confidence_interval(confidence_level)
    row["ci_low"], row["ci_high"] = low, high
    return pd.DataFrame([row])


def _two_columns(names, option):
    if len(names) != 2:
        raise UsageError(f"{option}: exactly two classifiers are needed, got {names}.")
    return names


def run_mcnemar(args):
    """``mcnemar``: McNemar's test on two classifiers' predictions."""
    from ..classic import mcnemar_test

    _, data = _read(args)
    a, b = _two_columns(list(data.preds), "--classifiers")
    y_true, preds, groups = data.decoded()
    if groups is not None and np.unique(groups).shape[0] == groups.shape[0]:
        groups = None  # one row per record: the plain test
    result = _library_call(
        mcnemar_test, y_true, preds[a], preds[b], method=args.method, groups=groups
    )
    frame = _result_frame(result, args.confidence_level)
    frame.insert(0, "classifier_b", b)
    frame.insert(0, "classifier_a", a)
    text = f"McNemar's test, {a} (a) vs {b} (b)\n" + frame.T.to_string(header=False)
    return _emit(args, {"mcnemar": frame}, text, {"confidence_level": args.confidence_level})


def _binary_truth(codes, values, pos_label):
    """The true labels in a compact array, and the positive label among them.

    Numeric labels are passed as themselves, in the narrowest exact dtype;
    text labels as their codes, with `pos_label` (required) as its code.
    """
    if pos_label is not None:
        matches = [
            code
            for code, value in enumerate(np.asarray(values).tolist())
            if pos_label == str(value)
            or (isinstance(value, float) and value.is_integer() and pos_label == str(int(value)))
        ]
        if not matches:
            seen = sorted(str(v) for v in np.asarray(values).tolist())
            raise UsageError(
                f"--pos-label: {pos_label!r} is not a label of the --truth column; its "
                f"labels are {seen}."
            )
        pos_code = matches[0]
    if values.dtype.kind in "biuf":
        narrow = _narrow(values)
        return narrow[codes], None if pos_label is None else narrow[pos_code].item()
    if pos_label is None:
        seen = sorted(str(v) for v in np.asarray(values).tolist())
        raise UsageError(
            f"--pos-label: the --truth column has labels {seen}; pass --pos-label to say "
            "which one is the positive class."
        )
    return codes, pos_code


def _narrow(values):
    """Numeric labels in the narrowest dtype holding them exactly."""
    if values.dtype.kind == "f":
        if not (values == np.trunc(values)).all() or np.abs(values).max(initial=0) >= 2**53:
            return values
        values = values.astype(np.int64)
    if values.dtype.kind in "iu" and values.size:
        return values.astype(
            np.result_type(np.min_scalar_type(values.min()), np.min_scalar_type(values.max()))
        )
    return values


def run_delong(args):
    """``delong``: DeLong's test on two score columns."""
    from ..classic import delong_test
    from ._data import read_scores

    source = _source(args)
    a, b = _two_columns(args.scores, "--scores")
    source.require([args.truth], "--truth")
    source.require([a, b], "--scores")
    codes, labels, scores = read_scores(source, args.truth, [a, b])
    y_true, pos_label = _binary_truth(codes, labels.values, args.pos_label)
    sa, sb = scores[a], scores[b]
    result = _library_call(
        delong_test, y_true, sa, sb, pos_label=pos_label, alternative=args.alternative
    )
    frame = _result_frame(result, args.confidence_level)
    frame.insert(0, "scores_b", b)
    frame.insert(0, "scores_a", a)
    text = f"DeLong's test of equal AUC, {a} (a) vs {b} (b)\n" + frame.T.to_string(header=False)
    if not math.isfinite(result.statistic):
        text += "\n(the statistic is undefined; see the warning above)"
    return _emit(args, {"delong": frame}, text, {"confidence_level": args.confidence_level})
