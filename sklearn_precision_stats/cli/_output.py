"""Rendering results as text, Markdown, LaTeX, CSV or JSON, written atomically."""

import json
import math
import os
import stat
import sys
import uuid

import numpy as np

__all__ = []


def _cell(value, digits=6):
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if math.isnan(value):
            return "NaN"
        return f"{value:.{digits}g}"
    return str(value)


def to_markdown(frame):
    """A GitHub-flavoured Markdown table (numbers right-aligned)."""
    from ..results._export import _markdown_escape

    header = "| " + " | ".join(_markdown_escape(str(c)) for c in frame.columns) + " |"
    align = "|" + "|".join(
        "---:" if frame[c].dtype.kind in "iufb" else ":---" for c in frame.columns
    )
    rows = [
        "| " + " | ".join(_markdown_escape(_cell(v)) for v in row) + " |"
        for row in frame.itertuples(index=False, name=None)
    ]
    return "\n".join([header, align + "|", *rows]) + "\n"


def fixed_width(frame, digits=4):
    """Right-aligned plain-text columns, fast on long tables (no per-row layout)."""
    columns = []
    for name in frame.columns:
        values = frame[name].to_numpy()
        if values.dtype.kind == "f":
            cells = [_cell(v, digits) for v in values.tolist()]
        else:
            cells = [str(v) for v in values.tolist()]
        width = max(len(str(name)), max(map(len, cells), default=0))
        columns.append([str(name).rjust(width)] + [c.rjust(width) for c in cells])
    return "\n".join("  ".join(row) for row in zip(*columns, strict=True)) + "\n"


def to_latex(frame):
    """A booktabs ``tabular`` (needs ``\\usepackage{booktabs}``)."""
    from ..results._export import _latex_escape

    spec = "".join("r" if frame[c].dtype.kind in "iufb" else "l" for c in frame.columns)
    lines = [
        f"\\begin{{tabular}}{{{spec}}}",
        "\\toprule",
        " & ".join(_latex_escape(str(c)) for c in frame.columns) + " \\\\",
        "\\midrule",
    ]
    for row in frame.itertuples(index=False, name=None):
        lines.append(" & ".join(_latex_escape(_cell(v)) for v in row) + " \\\\")
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines) + "\n"


def _json_value(value):
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return value if math.isfinite(value) else None
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_json_value(v) for v in value]
    return value


def frame_records(frame):
    """Rows of `frame` as JSON-ready dicts (NaN and infinities become null)."""
    columns = list(frame.columns)
    return [
        {c: _json_value(v) for c, v in zip(columns, row, strict=True)}
        for row in frame.itertuples(index=False, name=None)
    ]


def render(tables, fmt, text=None, meta=None):
    """The output text.

    Parameters
    ----------
    tables : dict of str -> DataFrame
        The first table is the main one (the only one written as CSV); the
        others follow it in the text, Markdown and LaTeX outputs.
    fmt : {"text", "markdown", "latex", "csv", "json"}
    text : str, default=None
        The plain-text rendering; by default the tables as text.
    meta : dict, default=None
        Extra JSON fields.
    """
    names = list(tables)
    main = tables[names[0]]
    if fmt == "csv":
        return main.to_csv(index=False, lineterminator="\n")
    if fmt == "json":
        payload = dict(meta or {})
        for name in names:
            payload[name] = frame_records(tables[name])
        return json.dumps(payload, indent=2, allow_nan=False) + "\n"
    if fmt == "text":
        if text is not None:
            return text.rstrip("\n") + "\n"
        return "\n\n".join(tables[n].to_string(index=False) for n in names) + "\n"
    render_one = to_markdown if fmt == "markdown" else to_latex
    parts = [render_one(main)]
    for name in names[1:]:
        if tables[name].shape[0]:
            title = f"**{name}**\n\n" if fmt == "markdown" else f"% {name}\n"
            parts.append(title + render_one(tables[name]))
    return "\n".join(parts)


def write_output(text, path=None):
    """Write `text` to `path` through a temporary file and a rename, or to stdout.

    A failure part-way leaves no partial file at `path`. The file gets the
    mode any tool gives a new file (``0o666`` less the umask); a file
    replaced keeps its mode.
    """
    if path is None or os.fspath(path) == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(directory, f".tmp-{uuid.uuid4().hex[:12]}-{os.path.basename(path)}")
    # os.open applies the umask to 0o666; tempfile.mkstemp would give 0o600.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        if os.path.exists(path):  # a file replaced keeps its mode, as with `>`
            os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
