"""Export a comparison's tables for a paper: LaTeX and Markdown.

The tables are the ones :meth:`PairedComparison.summary` prints, with the
same rounding and the same intervals ``(low, high)``; p-values can carry
significance marks. LaTeX goes through pandas' :class:`~pandas.io.formats.style.Styler`
(which needs jinja2), Markdown through :meth:`pandas.DataFrame.to_markdown`
(which needs tabulate); both are dependencies of the package, also
listed as the ``export`` extra.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..utils._optional import import_optional

__all__ = ["to_latex", "to_markdown"]

# The summary's tables, in the order summary() prints them.
TABLE_NAMES = ("tests", "effects", "omnibus")

# The summary's p-value columns and the result's columns holding the exact
# p-values behind them (marks are set from the exact values, not the
# rounded text).
_PVALUE_SOURCES = {
    "tests": {"P>GS": "gs_pvalue", "P>WGS": "wgs_pvalue", "P>Wald": "wald_pvalue"},
    "effects": {"P>|z|": "ratio_pvalue"},
    "omnibus": {"gs_pvalue": "gs_pvalue", "wald_pvalue": "wald_pvalue"},
}

DEFAULT_MARKS = (0.05, 0.01, 0.001)


def _check_marks(marks: Sequence[float] | None) -> tuple[float, ...]:
    if marks is None:
        return ()
    try:
        levels = tuple(float(m) for m in marks)
    except (TypeError, ValueError):
        levels = ()  # not a sequence of numbers: the message below says what is
    decreasing = all(a > b for a, b in zip(levels[:-1], levels[1:], strict=True))
    if not levels or any(not 0 < m < 1 for m in levels) or not decreasing:
        raise ValueError(
            "marks must be decreasing significance levels strictly between 0 and "
            f"1, e.g. (0.05, 0.01, 0.001), or None for no marks; got {marks!r}."
        )
    return levels


def _check_tables(tables: str | Sequence[str] | None, available: list[str]) -> list[str]:
    if tables is None:
        return available
    try:
        names = [tables] if isinstance(tables, str) else list(tables)
    except TypeError:
        names = []  # not a name or a sequence of them: the message below says what is
    if not names:
        raise ValueError(
            f"tables must name one or more of {available} (a str or a list), or be None "
            f"for all of them; got {tables!r}."
        )
    for name in names:
        if name not in TABLE_NAMES:
            raise ValueError(f"tables must name some of {list(TABLE_NAMES)}, got {name!r}.")
        if name not in available:
            raise ValueError(
                f"table {name!r} is not part of this comparison (the omnibus tests "
                "need three or more classifiers); choose among "
                f"{available}."
            )
    return names


def _mark(pvalue: float, levels: tuple[float, ...]) -> str:
    if not np.isfinite(pvalue):
        return ""
    return "*" * sum(pvalue < level for level in levels)


def summary_frames(
    result: Any,
    *,
    tables: str | Sequence[str] | None = None,
    digits: int = 4,
    confidence_level: float | None = None,
    marks: Sequence[float] | None = DEFAULT_MARKS,
) -> dict[str, pd.DataFrame]:
    """The summary's tables as DataFrames of text, p-values marked.

    Returns
    -------
    dict of str to DataFrame
        ``"tests"``, ``"effects"`` and (three or more classifiers)
        ``"omnibus"``, as printed by ``result.summary()``.
    """
    levels = _check_marks(marks)
    summary = result.summary(digits=digits, confidence_level=confidence_level)
    # The first table of the summary is its header (metric, reference, ...).
    frames = [frame.copy() for frame in summary.tables[1:]]
    available = list(TABLE_NAMES[: len(frames)])
    names = _check_tables(tables, available)
    exact = {"tests": result.table, "effects": result.table, "omnibus": result.omnibus}
    out = {}
    for name, frame in zip(available, frames, strict=True):
        if name not in names:
            continue
        frame = frame.reset_index(drop=True)
        # summary() pads a header to align its text tables; not needed here.
        frame.columns = [str(c).rstrip() for c in frame.columns]
        if levels:
            for column, source in _PVALUE_SOURCES[name].items():
                if column in frame.columns:
                    values = np.asarray(exact[name][source], dtype=float)
                    frame[column] = [
                        f"{text}{_mark(p, levels)}"
                        for text, p in zip(frame[column], values, strict=True)
                    ]
        out[name] = frame
    return {name: out[name] for name in names}


# LaTeX's special characters, and the ones that text fonts without T1
# encoding print as other glyphs (<, >, |).
_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"$<$",
    ">": r"$>$",
    "|": r"$|$",
    # A cell opening with [ right after \\ would be read as the row's
    # optional spacing argument, \\[...] (a class named "[0, 10)").
    "[": "{[}",
    "]": "{]}",
    # A line break in a name would end the table row (a blank line, the
    # paragraph, is an error inside a tabular).
    "\n": " ",
    "\r": " ",
}


def _latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIALS.get(char, char) for char in text)


# Characters Markdown (CommonMark and GitHub) would read as markup in a
# table cell: backslash escapes, emphasis, code, links, strikethrough,
# math, the cell separator, an HTML tag or entity, and an underscore that
# is not inside a word (inside one, as in gs_stat, it is text).
_MARKDOWN_SPECIALS = re.compile(
    r"[\\`*\[\]~|$]|_(?![^\W_])|(?<![^\W_])_|<(?=[A-Za-z/!?])|&(?=#?\w+;)"
)


def _markdown_escape(text: str) -> str:
    """`text` shown as itself in a Markdown table cell (on one line)."""
    text = re.sub(r"\r\n|\r|\n", " ", text)
    return _MARKDOWN_SPECIALS.sub(lambda match: "\\" + match.group(0), text)


def _legend(levels: tuple[float, ...]) -> str:
    return ", ".join(f"{'*' * (i + 1)} p < {level:g}" for i, level in enumerate(levels))


def to_latex(
    result: Any,
    *,
    tables: str | Sequence[str] | None = None,
    digits: int = 4,
    confidence_level: float | None = None,
    marks: Sequence[float] | None = DEFAULT_MARKS,
    caption: str | None = None,
    label: str | None = None,
) -> str:
    """The comparison's tables as LaTeX ``tabular`` environments.

    The tables are those of ``result.summary()`` (per-class tests, effect
    sizes with their intervals and, for three or more classifiers, the
    omnibus tests), rounded as printed there, with significance marks on
    the p-values. Written by pandas' Styler (needs jinja2) with booktabs
    rules (``\\toprule``, ``\\midrule``, ``\\bottomrule``: add
    ``\\usepackage{booktabs}`` to the preamble).

    Parameters
    ----------
    result : PairedComparison
        The comparison to export.
    tables : {"tests", "effects", "omnibus"} or list of them, default=None
        The tables to export; all of them when None.
    digits : int, default=4
        Significant digits of the estimates, as in ``summary()``.
    confidence_level : float, default=None
        Level of the intervals; the comparison's own when None.
    marks : sequence of float or None, default=(0.05, 0.01, 0.001)
        Decreasing significance levels: a p-value below the i-th level gets
        i + 1 stars. None for no marks.
    caption : str, default=None
        Caption of each table, as text: LaTeX's special characters are
        escaped, so "30% test split" prints as such. The table's name and
        the marks' legend are appended. Tables are wrapped in ``table`` environments when a
        caption or label is given.
    label : str, default=None
        LaTeX label prefix; each table gets ``<label>-<table name>``.

    Returns
    -------
    str
        The tables, separated by blank lines.

    See Also
    --------
    to_markdown : The same tables in Markdown.

    Examples
    --------
    >>> from sklearn_precision_stats import compare_precision
    >>> from sklearn_precision_stats.results._export import to_latex
    >>> y  = [0, 0, 1, 1, 1, 1, 0, 1, 0, 1, 0, 1]
    >>> nb = [0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 0]
    >>> rf = [0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1]
    >>> result = compare_precision(y, {"rf": rf, "nb": nb}, reference="rf")
    >>> print(to_latex(result, tables="effects").splitlines()[0])
    \\begin{tabular}{lllllllll}
    """
    import_optional("jinja2", "to_latex()", "export")
    levels = _check_marks(marks)
    frames = summary_frames(
        result, tables=tables, digits=digits, confidence_level=confidence_level, marks=marks
    )
    blocks = [
        _latex_table(
            frame,
            f"{result.metric}: {name}",
            name,
            caption=caption,
            label=label,
            levels=levels if name in _PVALUE_SOURCES else (),
        )
        for name, frame in frames.items()
    ]
    return "\n".join(blocks)


def _latex_table(
    frame: Any,
    title: str,
    name: str,
    *,
    caption: str | None,
    label: str | None,
    levels: tuple[float, ...],
) -> str:
    """One table as a booktabs ``tabular``, in a ``table`` when captioned or labelled.

    The caption is `caption`, `title` and the legend of the marks `levels`
    (none when empty); the label is ``<label>-<name>``.
    """
    for option, value in (("caption", caption), ("label", label)):
        if value is not None and not isinstance(value, str):
            raise ValueError(
                f"{option} must be a str or None, got {type(value).__name__}; e.g. "
                f"{option}={'Precision per class' if option == 'caption' else 'tab:precision'!r}."
            )
    escaped = frame.astype(str).map(_latex_escape)
    escaped.columns = [_latex_escape(str(c)) for c in escaped.columns]
    styler = escaped.style.hide(axis="index")
    wrap = caption is not None or label is not None
    full_caption = None
    if wrap:
        # Text, as names are: a % would comment out the rest of the caption.
        parts = [_latex_escape(p) for p in (caption, title) if p]
        if levels:
            parts.append(_latex_escape(_legend(levels)))
        full_caption = ". ".join(parts)
    return str(
        styler.to_latex(
            hrules=True,
            caption=full_caption,
            label=f"{label}-{name}" if label else None,
            position_float="centering" if wrap else None,
        )
    )


def to_markdown(
    result: Any,
    *,
    tables: str | Sequence[str] | None = None,
    digits: int = 4,
    confidence_level: float | None = None,
    marks: Sequence[float] | None = DEFAULT_MARKS,
) -> str:
    """The comparison's tables as Markdown (GitHub pipe tables).

    The same tables, rounding, intervals and marks as :func:`to_latex`,
    written by :meth:`pandas.DataFrame.to_markdown` (needs tabulate). The
    stars are escaped (``\\*``) so that Markdown shows them as such, and a
    legend of the marks follows the tables.

    Parameters
    ----------
    result : PairedComparison
        The comparison to export.
    tables : {"tests", "effects", "omnibus"} or list of them, default=None
        The tables to export; all of them when None.
    digits : int, default=4
        Significant digits of the estimates, as in ``summary()``.
    confidence_level : float, default=None
        Level of the intervals; the comparison's own when None.
    marks : sequence of float or None, default=(0.05, 0.01, 0.001)
        Decreasing significance levels for the stars; None for no marks.

    Returns
    -------
    str
        The tables, separated by blank lines.

    See Also
    --------
    to_latex : The same tables in LaTeX.

    Examples
    --------
    >>> from sklearn_precision_stats import compare_precision
    >>> from sklearn_precision_stats.results._export import to_markdown
    >>> y  = [0, 0, 1, 1, 1, 1, 0, 1, 0, 1, 0, 1]
    >>> nb = [0, 1, 1, 1, 0, 1, 0, 1, 1, 1, 1, 0]
    >>> rf = [0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1]
    >>> result = compare_precision(y, {"rf": rf, "nb": nb}, reference="rf")
    >>> lines = to_markdown(result, tables="effects").splitlines()
    >>> print(" ".join(lines[0].split()))
    | class | classifier | OR | OR 95% CI | RP | RP 95% CI | P>\\|z\\| | Diff | Diff 95% CI |
    >>> print(" ".join(lines[2].split()))
    | 0 | nb | 0.25 | (0.0156, 4) | 0.625 | (0.224, 1.75) | 0.3701 | -0.3 | (-0.87, 0.27) |
    >>> print(lines[-1])
    \\* p < 0.05, \\*\\* p < 0.01, \\*\\*\\* p < 0.001
    """
    import_optional("tabulate", "to_markdown()", "export")
    levels = _check_marks(marks)
    frames = summary_frames(
        result, tables=tables, digits=digits, confidence_level=confidence_level, marks=marks
    )
    blocks = [_markdown_table(frame) for frame in frames.values()]
    if levels and any(name in _PVALUE_SOURCES for name in frames):
        blocks.append(_legend(levels).replace("*", r"\*"))
    return "\n\n".join(blocks)


def _markdown_table(frame: Any) -> str:
    """One table as a Markdown pipe table, its markup characters escaped."""
    escaped = frame.astype(str).map(_markdown_escape)
    escaped.columns = [_markdown_escape(str(c)) for c in escaped.columns]
    # disable_numparse keeps the numbers exactly as summary() prints them.
    return str(escaped.to_markdown(index=False, disable_numparse=True))
