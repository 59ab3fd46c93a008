"""The subcommands on prediction files: compare, global, mcnemar and delong."""

import argparse
import dataclasses
import math

import numpy as np

from ..engine._accumulator import ComparisonCounts
from ._data import count_long, count_wide, read_long, read_scores, read_wide
from ._io import FORMATS, TableSource, UsageError
from ._output import OUTPUT_FORMATS, render, write_output

__all__ = []

METRICS = ("precision", "npv", "recall", "specificity", "accuracy")


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
        "--input-format", choices=FORMATS, default=None, help="default: from the suffix"
    )
    parser.add_argument("--delimiter", default=None, help="CSV delimiter (default: comma)")
    parser.add_argument(
        "--batch-size",
        type=_positive_int,
        default=None,
        metavar="ROWS",
        help="rows per record batch read (the memory of a batch scales with it)",
    )
    if scores:
        return
    parser.add_argument(
        "--classifiers",
        type=_names,
        default=None,
        metavar="A,B,...",
        help="classifiers to compare; default: every column other than truth and groups",
    )
    parser.add_argument(
        "--groups", default=None, metavar="COL", help="record-id column (clustered rows)"
    )
    layout = parser.add_argument_group("long layout (one row per record and classifier)")
    layout.add_argument("--long", action="store_true", help="the file is in the long layout")
    layout.add_argument("--classifier-col", default=None, metavar="C")
    layout.add_argument("--prediction-col", default=None, metavar="P")
    layout.add_argument("--record-col", default=None, metavar="R")


def _add_output(parser):
    parser.add_argument("--format", choices=OUTPUT_FORMATS, default="text")
    parser.add_argument(
        "--output", default=None, metavar="PATH", help="write here instead of stdout"
    )


def _add_confidence_level(parser):
    parser.add_argument("--confidence-level", type=_level, default=0.95)


def _add_comparison_options(parser):
    parser.add_argument("--reference", default=None, metavar="A", help="default: the first")
    parser.add_argument("--metric", choices=METRICS, default="precision")
    parser.add_argument(
        "--labels",
        nargs="+",
        default=None,
        metavar="LABEL",
        help="classes to report, in this order (space- or comma-separated)",
    )
    _add_confidence_level(parser)


def _add_global_options(parser):
    _add_comparison_options(parser)
    parser.add_argument(
        "--method", choices=("dai-cui", "permutation", "fisher", "simes"), default="dai-cui"
    )
    parser.add_argument("--test", choices=("gs", "wgs", "wald", "ratio"), default="gs")
    parser.add_argument("--n-resamples", type=_positive_int, default=1000)
    parser.add_argument("--resampling", choices=("permutation", "bootstrap"), default="permutation")
    parser.add_argument("--random-state", type=int, default=None)


def _add_mcnemar_options(parser):
    parser.add_argument(
        "--method", choices=("exact", "midp", "asymptotic", "corrected"), default=None
    )
    _add_confidence_level(parser)


def _add_delong_options(parser):
    parser.add_argument("--scores", type=_names, required=True, metavar="A,B")
    parser.add_argument("--pos-label", default=None)
    parser.add_argument(
        "--alternative", choices=("two-sided", "less", "greater"), default="two-sided"
    )
    _add_confidence_level(parser)


def _add_subcommand(subparsers, name, run, add_options, *, scores=False, **texts):
    """One subcommand: the input options, its own, then the output options."""
    parser = subparsers.add_parser(name, **texts)
    _add_input(parser, scores=scores)
    add_options(parser)
    _add_output(parser)
    parser.set_defaults(func=run)


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


def _read(args, counts=False):
    """Open the file, check the columns, and encode them.

    With `counts`, the file is counted batch by batch into a
    ComparisonCounts (bounded memory) instead of being kept as codes.
    """
    source = TableSource(args.file, args.input_format, args.delimiter, args.batch_size)
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
    from ..paired._compare import comparison_from_counts

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


def _emit(args, tables, text, meta):
    write_output(render(tables, args.format, text=text, meta=meta), args.output)
    return 0


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
    return _emit(args, tables, str(result), meta)


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

    source = TableSource(args.file, args.input_format, args.delimiter, args.batch_size)
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
