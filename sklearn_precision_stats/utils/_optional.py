"""Optional dependencies, imported when a feature needs them.

A missing one is an ImportError that names the feature and the extra that
installs it, rather than Python's bare ``No module named ...``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__: list[str] = []


def import_optional(module: str, feature: str, extra: str) -> ModuleType:
    """Import `module` for `feature`, or say which extra of the package installs it.

    Parameters
    ----------
    module : str
        The module to import, e.g. ``"tabulate"``.
    feature : str
        What needs it, as the user called it, e.g. ``"to_markdown()"``.
    extra : str
        The extra of sklearn-precision-stats that installs it.

    Examples
    --------
    >>> from sklearn_precision_stats.utils._optional import import_optional
    >>> import_optional("json", "reading JSON", "io").__name__
    'json'
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        package = module.split(".")[0]
        raise ImportError(
            f"{feature} needs {package}, which is not installed; install it with "
            f'pip install "sklearn-precision-stats[{extra}]" (or pip install {package}).',
            name=package,
        ) from exc
