"""The command line on prediction files.

``sklearn-precision-stats compare FILE --truth COL ...`` and the
``compare-scores``, ``global``, ``mcnemar`` and ``delong`` subcommands read
CSV, Parquet or Feather files in record batches (pyarrow, the ``io`` extra)
and print or write the result as text, Markdown, LaTeX, CSV or JSON. Every
failure (a missing column, an unknown classifier, an empty file, missing
labels, a bad option) exits with status 2 and one line on stderr, and writes
nothing; warnings are printed one line each, ``warning: ...``.
"""

from ._commands import add_subcommands, build_parser
from ._io import UsageError
from ._run import run

__all__ = ["UsageError", "add_subcommands", "build_parser", "run"]
