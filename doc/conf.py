"""Sphinx configuration of the sklearn-precision-stats documentation.

Build (warnings are errors), from the repository root::

    python -m sphinx -W --keep-going -b html doc doc/_build/html

The API reference lists every name of the package's top-level ``__all__``,
read here at build time (see ``_write_api_listing``), so a new public name
gets its page without editing the docs.
"""

from __future__ import annotations

import inspect
import os
import sys
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
# Cross-references to other projects would need their inventories from the
# network, which the docs build does not use.
numpydoc_xref_param_type = False

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


def _write_api_listing() -> None:
    """Rewrite the listing of ``api.rst``: one autosummary table per section.

    Everything after the marker line of ``api.rst`` is generated from the
    package's ``__all__``; the file is only written when the listing
    changed (a new or removed public name).
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
    target = HERE / "api.rst"
    current = target.read_text()
    head = current.split(_API_MARKER)[0]
    text = head + "\n".join(lines).rstrip("\n") + "\n"
    # Rewriting an unchanged file would make Sphinx rebuild every page.
    if text != current:
        target.write_text(text)


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


_write_api_listing()
_write_guide_listing()
