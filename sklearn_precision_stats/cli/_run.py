"""Running a parsed subcommand: one line per warning, one line per failure."""

import re
import sys
import warnings

from ._io import UsageError

__all__ = ["run"]


def one_line(text, limit=None):
    """`text` on one line: whitespace runs joined, control characters escaped.

    Messages of other libraries can quote raw bytes of a file (a CSV parse
    error shows the offending row); errors are cut to `limit` characters.
    """
    text = re.sub(r"\s+", " ", str(text)).strip()
    text = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)
    if limit is not None and len(text) > limit:
        text = text[: limit - 3].rstrip() + "..."
    return text


def _print_warnings(caught, stream):
    seen = set()
    for item in caught:
        message = one_line(item.message)
        if message not in seen:
            seen.add(message)
            print(f"warning: {message}", file=stream)


def run(args, prog="sklearn-precision-stats"):
    """Run a parsed subcommand and return its exit status.

    Warnings are printed on stderr after the run, one line each
    (``warning: ...``), without the source line Python shows. Any failure
    is one line on stderr and exit status 2: a usage error (a missing
    column, a missing label, ...) with its message, anything else with the
    exception's type and message.
    """
    error = None
    # The active filters still apply (``python -W ignore`` silences them);
    # only the display changes.
    with warnings.catch_warnings(record=True) as caught:
        try:
            status = args.func(args)
        except UsageError as exc:
            error = str(exc)
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
    _print_warnings(caught, sys.stderr)
    if error is None:
        return status
    print(f"{prog} {args.command}: error: {one_line(error, limit=500)}", file=sys.stderr)
    return 2
