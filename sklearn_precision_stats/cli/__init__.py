"""The command line on prediction files.

``sklearn-precision-stats compare FILE --truth COL ...`` and the ``global``,
``mcnemar`` and ``delong`` subcommands read CSV, Parquet or Feather files in
record batches (pyarrow, the ``io`` extra) and print or write the result as
text, Markdown, LaTeX, CSV or JSON. Usage errors (a missing column, an
unknown classifier, an empty file, missing labels) exit with status 2 and a
message, and write nothing.
"""

from ._commands import add_subcommands
from ._io import UsageError

__all__ = ["UsageError", "add_subcommands", "run"]


def run(args, prog="sklearn-precision-stats"):
    """Run a parsed subcommand; 2 and a message on stderr for a usage error."""
    import sys

    try:
        return args.func(args)
    except UsageError as exc:
        print(f"{prog} {args.command}: error: {exc}", file=sys.stderr)
        return 2
