"""Sphinx configuration of the sklearn-precision-stats documentation.

Build (warnings are errors), from the repository root::

    python -m sphinx -W --keep-going -b html doc doc/_build/html

The API reference lists every name of the package's top-level ``__all__``
(see ``_api_listing``). The build never changes a tracked file: when
``api.rst`` does not list ``__all__`` it stops with an error; regenerate the
listing with ``python doc/conf.py`` and commit it.

Links to scikit-learn, NumPy, SciPy, pandas and statsmodels go through
intersphinx with inventories written into ``doc/_build/intersphinx`` from
the installed packages (see ``_write_inventories``), because the build runs
without network access.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
import warnings
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import sklearn_precision_stats  # noqa: E402

# -- Project -----------------------------------------------------------------

project = "sklearn-precision-stats"
author = "sklearn-precision-stats developers"
copyright = "sklearn-precision-stats developers"
release = sklearn_precision_stats.__version__
version = release

# -- General -----------------------------------------------------------------

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.intersphinx",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "myst_parser",
    "sphinx_design",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = [
    "_build",
    "_templates",
    "Thumbs.db",
    ".DS_Store",
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.md5",
    "examples/README.rst",
    "**/sg_execution_times.rst",
    "sg_execution_times.rst",
]
templates_path = ["_templates"]

autosummary_generate = True
autodoc_default_options = {"members": True}
autodoc_typehints = "none"  # numpydoc's Parameters sections carry the types

numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
# Types in the Parameters sections link to the other projects' pages (through
# the offline inventories below); only the names listed here are linked.
numpydoc_xref_param_type = True
numpydoc_xref_ignore = "all"
numpydoc_xref_aliases = {
    "ndarray": "numpy.ndarray",
    "numpy.ndarray": "numpy.ndarray",
    "DataFrame": "pandas.DataFrame",
    "pandas.DataFrame": "pandas.DataFrame",
    "pandas.Series": "pandas.Series",
    "numpy.random.Generator": "numpy.random.Generator",
}

myst_enable_extensions = ["colon_fence", "dollarmath"]
myst_heading_anchors = 3

# -- HTML --------------------------------------------------------------------

html_theme = "pydata_sphinx_theme"
html_title = f"sklearn-precision-stats {release}"
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version", "theme-version"],
}
html_static_path: list[str] = []
html_show_sourcelink = False

# -- Gallery -----------------------------------------------------------------

sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "remove_config_comments": True,
    "image_scrapers": ("matplotlib",),
    "matplotlib_animations": False,
    "show_memory": False,
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "reset_modules": ("matplotlib",),
    "write_computation_times": False,
}
os.environ.setdefault("MPLBACKEND", "Agg")


def _warning_without_path(message, category, filename, lineno, line=None):
    # The gallery pages show the warnings their examples emit; Python's
    # default format would print the building machine's absolute path and
    # the source line.
    return f"{category.__name__}: {message}\n"


warnings.formatwarning = _warning_without_path

# -- Intersphinx, offline ------------------------------------------------------

# The docs build has no network (CI reaches package registries only), so the
# five projects' inventories cannot be downloaded. They are written into the
# build folder instead, from the installed packages: every public name of the
# modules below, at the address each project's API reference gives it (its
# autosummary page, ``<prefix>/<full name>.html``). Only names read from the
# installed version are listed, so a link never points at a page that its
# version does not have; nothing is stored in the repository.
_INVENTORY_DIR = HERE / "_build" / "intersphinx"

# project: (documentation root, page prefix, modules whose public names get
# a page of their own); module pages are not listed (their places vary).
_INVENTORIES = {
    "sklearn": (
        "https://scikit-learn.org/stable/",
        "modules/generated",
        ["sklearn", *(f"sklearn.{m}" for m in ("base", "utils", "utils.validation"))],
    ),
    "numpy": ("https://numpy.org/doc/stable/", "reference/generated", ["numpy"]),
    "scipy": (
        "https://docs.scipy.org/doc/scipy/",
        "reference/generated",
        [f"scipy.{m}" for m in ("stats", "optimize", "special", "linalg", "sparse", "integrate")],
    ),
    "pandas": ("https://pandas.pydata.org/docs/", "reference/api", ["pandas"]),
    "python": ("https://docs.python.org/3/", "", []),
    "statsmodels": (
        "https://www.statsmodels.org/stable/",
        "generated",
        [
            "statsmodels.stats.proportion",
            "statsmodels.stats.contingency_tables",
            "statsmodels.stats.multitest",
            "statsmodels.stats.weightstats",
            "statsmodels.genmod.generalized_estimating_equations",
            "statsmodels.genmod.generalized_linear_model",
            "statsmodels.iolib.summary2",
        ],
    ),
}
# Classes whose public methods and properties have pages of their own.
_MEMBER_PAGES = {
    "pandas": ["pandas.DataFrame", "pandas.Series", "pandas.Index", "pandas.Categorical"],
    "numpy": ["numpy.ndarray"],
}

# Entries whose pages do not follow the project's pattern, and the few
# glossary terms and labels of NumPy and Python that numpydoc links types to
# (``array_like``, ``sequence``, ``bool``, ...).
_EXTRA_ENTRIES = {
    "numpy": {
        "numpy.random.Generator": (
            "py:class",
            "reference/random/generator.html#numpy.random.Generator",
        ),
        "numpy.random.default_rng": (
            "py:function",
            "reference/random/generator.html#numpy.random.default_rng",
        ),
        "numpy.random.RandomState": (
            "py:class",
            "reference/random/legacy.html#numpy.random.RandomState",
        ),
        "array_like": ("std:term", "glossary.html#term-array_like"),
    },
    "python": {
        "bltin-boolean-values": ("std:label", "library/stdtypes.html#bltin-boolean-values"),
        "sequence": ("std:term", "glossary.html#term-sequence"),
        "iterable": ("std:term", "glossary.html#term-iterable"),
        "generator": ("std:term", "glossary.html#term-generator"),
    },
}


def _public_names(module_name, subpackages=False):
    """(full name, role) of the public functions and classes of a module.

    Its ``__all__`` when it has one, else the public names it defines
    itself; with `subpackages`, the modules named in ``__all__`` are walked
    too (scikit-learn's ``__all__`` lists its sub-packages).
    """
    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None)
    if names is None:
        names = [
            n
            for n, obj in vars(module).items()
            if not n.startswith("_") and getattr(obj, "__module__", None) == module_name
        ]
    out = []
    for name in names:
        if name.startswith("_"):
            continue
        try:
            if subpackages and importlib.util.find_spec(f"{module_name}.{name}") is not None:
                out += _public_names(f"{module_name}.{name}")
                continue
            obj = getattr(module, name, None)
        except ImportError:  # e.g. scikit-learn's experimental names
            continue
        if obj is None or inspect.ismodule(obj):
            continue
        if inspect.isclass(obj):
            out.append((f"{module_name}.{name}", "class"))
        elif callable(obj):
            out.append((f"{module_name}.{name}", "function"))
    return out


def _has_own_numpy_page(name):
    import numpy

    obj = getattr(numpy, name.rpartition(".")[2])
    if inspect.isclass(obj) and issubclass(obj, numpy.generic):
        return False
    return getattr(obj, "__name__", None) == name.rpartition(".")[2]


def _write_inventories():
    """Write one Sphinx inventory (objects.inv format 2) per project."""
    _INVENTORY_DIR.mkdir(parents=True, exist_ok=True)
    mapping = {}
    for project, (root, prefix, modules) in _INVENTORIES.items():
        entries = {}
        for module_name in modules:
            try:
                with warnings.catch_warnings():
                    # Deprecated aliases warn when read; they are not listed.
                    warnings.simplefilter("ignore")
                    names = _public_names(module_name, subpackages=module_name == "sklearn")
            except ImportError:
                continue
            if project == "numpy":
                # Aliases (abs of absolute) and scalar types (int8) have no
                # page of their own under reference/generated.
                names = [(n, r) for n, r in names if _has_own_numpy_page(n)]
            lower = [name.lower() for name, _ in names]
            for name, role in names:
                page = name
                if project == "sklearn" and role == "function" and lower.count(name.lower()) > 1:
                    # A function named as a class (dbscan, DBSCAN) has a
                    # page of its own name: modules/generated/dbscan-function.html.
                    page = name.rsplit(".", 1)[1] + "-function"
                entries.setdefault(name, (f"py:{role}", f"{prefix}/{page}.html#{name}"))
        entries.update(_EXTRA_ENTRIES.get(project, {}))
        for class_name in _MEMBER_PAGES.get(project, []):
            module_name, _, attr = class_name.rpartition(".")
            cls = getattr(importlib.import_module(module_name), attr)
            entries[class_name] = ("py:class", f"{prefix}/{class_name}.html#{class_name}")
            for member, value in vars(cls).items():
                if member.startswith("_"):
                    continue
                role = "py:attribute" if isinstance(value, property) else "py:method"
                full = f"{class_name}.{member}"
                entries[full] = (role, f"{prefix}/{full}.html#{full}")
        if project == "python":
            version = ".".join(map(str, sys.version_info[:2]))
        else:
            version = importlib.import_module(project).__version__
        lines = [f"{name} {role} 1 {uri} -" for name, (role, uri) in sorted(entries.items())]
        header = (
            "# Sphinx inventory version 2\n"
            f"# Project: {project}\n"
            f"# Version: {version}\n"
            "# The remainder of this file is compressed using zlib.\n"
        )
        path = _INVENTORY_DIR / f"{project}.inv"
        data = header.encode() + zlib.compress(("\n".join(lines) + "\n").encode())
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)
        mapping[project] = (root, str(path))
    return mapping


intersphinx_mapping = _write_inventories()


# -- API listing from __all__ ------------------------------------------------

# Section titles of the API reference, by the sub-package that defines a
# name; a sub-package missing here gets its own name as title.
_SECTIONS = {
    "paired": "Paired comparisons",
    "results": "Results",
    "exceptions": "Results",
    "comparators": "The scikit-learn layer",
    "across_classes": "Across classes: global null, multiplicity, replicability",
    "several_datasets": "Several data sets",
    "classic": "The classic tests",
    "diagnostic": "Diagnostic accuracy",
    "plotting": "Plots",
    "simulation": "Simulation",
}


def _section(obj: object) -> str:
    module = getattr(obj, "__module__", "") or ""
    parts = module.split(".")
    key = parts[1] if len(parts) > 1 else "package"
    return _SECTIONS.get(key, key.replace("_", " ").capitalize())


_API_MARKER = ".. The listing below is written by conf.py from __all__; do not edit it."


def _api_listing() -> tuple[str, str]:
    """The text ``api.rst`` should have, and the text it has.

    Everything after the marker line of ``api.rst`` is generated from the
    package's ``__all__``: one autosummary table per section.
    """
    sections: dict[str, list[tuple[str, str]]] = {}
    for name in sklearn_precision_stats.__all__:
        obj = getattr(sklearn_precision_stats, name)
        if inspect.ismodule(obj):
            continue  # its public functions are listed by name
        template = "class.rst" if inspect.isclass(obj) else "function.rst"
        sections.setdefault(_section(obj), []).append((name, template))
    order = list(dict.fromkeys(_SECTIONS.values()))
    titles = sorted(sections, key=lambda t: (order.index(t) if t in order else len(order), t))
    lines = [_API_MARKER, ""]
    for title in titles:
        lines += [title, "-" * len(title), ""]
        for template in ("class.rst", "function.rst"):
            names = [n for n, t in sections[title] if t == template]
            if not names:
                continue
            lines += [
                ".. autosummary::",
                "   :toctree: api/generated",
                f"   :template: {template}",
                "   :nosignatures:",
                "",
            ]
            lines += [f"   {n}" for n in names]
            lines.append("")
    current = (HERE / "api.rst").read_text()
    head = current.split(_API_MARKER)[0]
    return head + "\n".join(lines).rstrip("\n") + "\n", current


def _check_api_listing() -> None:
    """Stop the build when ``api.rst`` does not list ``__all__``.

    The build does not rewrite the tracked file itself (a build must leave
    the working tree as it found it); ``python doc/conf.py`` does.
    """
    expected, current = _api_listing()
    if expected != current:
        listed = {line.strip() for line in current.splitlines() if line.startswith("   ")}
        wanted = {line.strip() for line in expected.splitlines() if line.startswith("   ")}
        missing = sorted(wanted - listed)
        extra = sorted(n for n in listed - wanted if not n.startswith(":"))
        raise RuntimeError(
            "doc/api.rst does not list the package's __all__"
            + (f" (missing: {', '.join(missing)})" if missing else "")
            + (f" (no longer public: {', '.join(extra)})" if extra else "")
            + "; regenerate it with `python doc/conf.py` and commit it."
        )


# The Markdown pages at the top of doc/ (written next to the code, also
# read on GitHub) join the user guide in this order; pages not named here
# follow in alphabetical order, so a new page needs no edit here.
_GUIDE_ORDER = [
    "precision_comparison",
    "which_test",
    "cross_validation",
    "several_datasets",
    "figures",
    "command_line",
    "dtcompair_parity",
]


def _write_guide_listing() -> None:
    """Write ``user_guide/markdown_pages.inc``: a toctree of doc/*.md."""
    pages = sorted(p.stem for p in HERE.glob("*.md"))
    ordered = [p for p in _GUIDE_ORDER if p in pages] + [p for p in pages if p not in _GUIDE_ORDER]
    lines = [
        ".. This file is written by conf.py from doc/*.md; do not edit.",
        "",
        ".. toctree::",
        "   :maxdepth: 2",
        "",
        *[f"   ../{page}" for page in ordered],
    ]
    target = HERE / "user_guide" / "markdown_pages.inc"
    text = "\n".join(lines) + "\n"
    if not target.exists() or target.read_text() != text:
        target.write_text(text)


if __name__ == "__main__":
    # python doc/conf.py: rewrite the listing of api.rst from __all__.
    text, _ = _api_listing()
    (HERE / "api.rst").write_text(text)
    print("doc/api.rst written from sklearn_precision_stats.__all__")
else:
    _check_api_listing()
    _write_guide_listing()
