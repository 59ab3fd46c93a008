"""The subcommands' work: read the file, call the library, write the output."""

import dataclasses
import math

import numpy as np

# The GEE measures, one per role, as the parser lists them first.
from ..engine._roles import METRICS as GEE_METRICS
from ._io import TableSource, UsageError, check_output_path

# compare_metric's measures that are one number per classifier.
WHOLE_MATRIX = ("accuracy", "balanced_accuracy", "mcc", "cohen_kappa")

__all__ = []


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
        # The library is imported once the options and columns are checked.
        from ._data import count_long, read_long

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
        source.require(classifiers, "--classifiers (default: every other column)")
    else:
        classifiers = args.classifiers
        for name in classifiers:
            if name not in source.columns:
                raise UsageError(
                    f"--classifiers: unknown classifier {name!r}: no such column in "
                    f"{source.path!r}; its columns are {source.columns}."
                )
        source.require(classifiers, "--classifiers")
    if len(set(classifiers)) != len(classifiers):
        raise UsageError(f"--classifiers: names must be unique, got {classifiers}.")
    if args.truth in classifiers:
        raise UsageError(f"--classifiers: {args.truth!r} is the --truth column.")
    if len(classifiers) < 2:
        raise UsageError(
            f"at least two classifiers are needed, got {classifiers}; pass --classifiers A,B."
        )
    from ._data import count_wide, read_wide

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


def _resolve_labels(requested, classes, option="--labels"):
    """Command-line label strings -> the labels of the file, by their text."""
    if requested is None:
        return None
    texts = [part for item in requested for part in item.split(",") if part]
    if not texts:
        raise UsageError(f"{option}: no class given; name one or more, e.g. {option} A B.")
    repeated = sorted({text for text in texts if texts.count(text) > 1})
    if repeated:
        raise UsageError(f"{option}: class(es) {repeated} given more than once.")
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
                f"{option}: class {text!r} does not occur in the file; its classes are {seen}."
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
    if not _is_gee(args):
        # compare_metric needs each record's cells, which clustered counts
        # do not keep: records with several rows are read as label codes.
        clustered = args.long or args.groups is not None
        data = _read(args, counts=not clustered)[1]
        if not clustered and data.joint_table() is None:
            raise UsageError(
                f"--metric {args.metric}: {len(data.classes)} classes make the joint table "
                "of the classifiers' labels, which compare_metric needs, too large; "
                "compare precision, npv, recall, specificity or accuracy per class instead."
            )
        return _metric_comparison(args, data)
    # The measure options of compare_metric would be silently ignored here.
    for option, value, metric in (
        ("--beta", getattr(args, "beta", None), "fbeta"),
        ("--weights", getattr(args, "weights", None), "cohen_kappa"),
    ):
        if value is not None:
            raise UsageError(f"{option} is for --metric {metric}, not {args.metric}.")
    if getattr(args, "pos_label", None) is not None:
        raise UsageError("--pos-label is for --average binary.")
    _, data = _read(args, counts=True)
    if resampling and data.stored_records() is None:
        _, data = _read(args, counts=False)
    from .. import paired
    from ..engine._accumulator import ComparisonCounts
    from ..paired._compare import comparison_from_counts

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


def _is_gee(args):
    """Whether the options ask for the GEE comparison (else compare_metric)."""
    return args.metric in GEE_METRICS and getattr(args, "average", None) is None


def _metric_params(args, classes):
    """The measure's parameters given on the command line."""
    params = {}
    if args.beta is not None:
        if args.metric != "fbeta":
            raise UsageError(f"--beta is for --metric fbeta, not {args.metric}.")
        params["beta"] = args.beta
    elif args.metric == "fbeta":
        params["beta"] = 1.0
    if args.weights is not None:
        if args.metric != "cohen_kappa":
            raise UsageError(f"--weights is for --metric cohen_kappa, not {args.metric}.")
        params["weights"] = args.weights
    if args.pos_label is not None:
        if args.average != "binary":
            raise UsageError("--pos-label is for --average binary.")
        (params["pos_label"],) = _resolve_labels([args.pos_label], classes, "--pos-label")
    return params


def _metric_comparison(args, data):
    """compare_metric on the counts (or the label codes) of the file."""
    from ..engine._accumulator import ComparisonCounts
    from ..metrics import compare_metric

    if args.metric in WHOLE_MATRIX and args.labels is not None:
        raise UsageError(f"--labels: {args.metric} is one number per classifier, over every class.")
    if isinstance(data, ComparisonCounts):
        _check_reference(args.reference, data.classifiers)
        classes = data.classes
        arrays = (data,)
        groups = None
    else:
        _check_reference(args.reference, list(data.preds))
        classes = data.labels.values
        y_true, preds, groups = data.decoded()
        arrays = (y_true, preds)
    return _library_call(
        compare_metric,
        *arrays,
        metric=args.metric,
        average=args.average,
        reference=args.reference,
        groups=groups,
        labels=_resolve_labels(args.labels, classes),
        confidence_level=args.confidence_level,
        **_metric_params(args, classes),
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
    metric = getattr(result, "metric", None) or result.measure
    columns = [
        c
        for c in (
            "class",
            "classifier",
            metric,
            f"{metric}_reference",
            f"{metric}_ci_low",
            f"{metric}_ci_high",
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
            "diff_pvalue",
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
    return _emit_comparison(args, result)


def _emit_comparison(args, result):
    """Write a comparison's table (and omnibus test), with its settings as metadata."""
    meta = {
        "metric": args.metric,
        "average": getattr(args, "average", None),
        "classifiers": list(result.classifiers),
        "reference": result.reference,
        "confidence_level": args.confidence_level,
        "n_rows": int(result.n_rows),
        "n_records": int(result.n_records),
    }
    tables = {"table": result.table}
    if result.omnibus is not None:
        tables["omnibus"] = result.omnibus
    return _emit(args, tables, lambda: _text(result), meta, result=result)


def run_global(args):
    """``global``: the global null test of a comparison."""
    import warnings

    # Fisher's and Simes' combinations need only the per-class p-values.
    # The resampling options of other methods are ignored, with a warning
    # (as scikit-learn does for an unused parameter), so that one command
    # line can be run with every --method.
    resampled = args.method in ("dai-cui", "permutation")
    for option, value, methods in (
        ("--n-resamples", args.n_resamples, "dai-cui and permutation"),
        ("--random-state", args.random_state, "dai-cui and permutation"),
        ("--resampling", args.resampling, "dai-cui"),
    ):
        if value is not None and args.method not in methods.split(" and "):
            warnings.warn(
                f"{option} is used by --method {methods} only; it is ignored with "
                f"--method {args.method}.",
                UserWarning,
                stacklevel=2,
            )
    result = _comparison(args, resampling=resampled)
    test = _library_call(
        result.global_test,
        method=args.method,
        test=args.test,
        n_resamples=1000 if args.n_resamples is None else args.n_resamples,
        random_state=args.random_state,
        resampling=args.resampling or "permutation",
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
    for name in (a, b):
        if ":" in name and name not in source.columns:
            raise UsageError(
                f"--scores: column {name!r} is not in {source.path!r}; delong takes two "
                "column names, --scores COL_A,COL_B (NAME:COLUMN is the syntax of "
                "compare-scores)."
            )
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


def run_compare_scores(args):
    """``compare-scores``: a threshold-free comparison of score columns."""
    from .. import threshold_free
    from ._data import read_scores

    source = _source(args)
    names = [name for name, _ in args.scores]
    if len(set(names)) != len(names):
        raise UsageError(f"--scores: classifier names must be unique, got {names}.")
    if len(names) < 2:
        raise UsageError(f"--scores: at least two classifiers are needed, got {names}.")
    _check_reference(args.reference, names)
    columns = list(dict.fromkeys(c for _, cols in args.scores for c in cols))
    source.require([args.truth], "--truth")
    source.require(columns, "--scores")
    if args.groups is not None:
        source.require([args.groups], "--groups")
    read = read_scores(source, args.truth, columns, groups=args.groups)
    codes, encoder, values = read[:3]
    groups = read[3] if args.groups is not None else None
    classes = encoder.values  # noqa: PD011 (a label encoder's labels)
    y_true = classes[codes]
    if args.labels is not None:
        order = _resolve_labels(args.labels, classes)
    else:
        order = np.sort(classes).tolist()
    if args.pos_label is not None:
        if len(classes) != 2:
            raise UsageError(
                f"--pos-label is for two classes; the --truth column has {len(classes)}."
            )
        (positive,) = _resolve_labels([args.pos_label], classes, "--pos-label")
        order = [c for c in order if c != positive] + [positive]
    width = 1 if len(order) == 2 else len(order)
    y_scores = {}
    for name, cols in args.scores:
        if len(cols) != width:
            raise UsageError(
                f"--scores: {name!r} has {len(cols)} column(s); with {len(order)} classes "
                f"give {'one column' if width == 1 else f'{width} columns joined by +'}."
            )
        y_scores[name] = (
            values[cols[0]] if width == 1 else np.column_stack([values[c] for c in cols])
        )
    # An option of another measure would be silently ignored.
    for option, value, metric in (
        ("--recall", args.recall, "precision_at_recall"),
        ("--precision", args.precision, "recall_at_precision"),
        ("--method", args.method, "roc_auc"),
    ):
        if value is not None and args.metric != metric:
            raise UsageError(f"{option} is for --metric {metric}, not {args.metric}.")
    params = {
        "average_precision": {},
        "precision_at_recall": {"recall": 0.9 if args.recall is None else args.recall},
        "recall_at_precision": {"precision": 0.9 if args.precision is None else args.precision},
        "roc_auc": {"method": args.method or "delong"},
    }[args.metric]
    result = _library_call(
        getattr(threshold_free, f"compare_{args.metric}"),
        y_true,
        y_scores,
        reference=args.reference,
        groups=groups,
        labels=order,
        average=args.average,
        n_resamples=args.n_resamples,
        confidence_level=args.confidence_level,
        random_state=args.random_state,
        **params,
    )
    return _emit_comparison(args, result)
