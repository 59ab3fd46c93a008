"""The documentation build: reproducible, offline, and leaving tracked files alone.

These run the configuration's own functions (not Sphinx), so they are fast
and need no docs extra.
"""

import runpy
import sys
import warnings
import zlib
from pathlib import Path

import pytest

import sklearn_precision_stats

ROOT = Path(__file__).resolve().parents[1]
CONF = ROOT / "doc" / "conf.py"


@pytest.fixture(scope="module")
def conf():
    # conf.py sets warnings.formatwarning for the gallery: restore it.
    saved = warnings.formatwarning
    try:
        yield runpy.run_path(str(CONF), run_name="conf")
    finally:
        warnings.formatwarning = saved


def test_api_page_lists_every_public_name(conf):
    expected, current = conf["_api_listing"]()
    assert expected == current, "doc/api.rst is out of step: run python doc/conf.py"
    listed = {line.strip() for line in current.splitlines() if line.startswith("   ")}
    for name in sklearn_precision_stats.__all__:
        obj = getattr(sklearn_precision_stats, name)
        if not isinstance(obj, type(sys)):
            assert name in listed


def test_configuration_does_not_write_tracked_files(conf, tmp_path, monkeypatch):
    # A stale api.rst stops the build with a message instead of being rewritten.
    api = CONF.parent / "api.rst"
    before = api.read_text()
    stale = tmp_path / "api.rst"
    stale.write_text(before.replace("   compare_precision\n", ""))
    monkeypatch.setitem(conf["_check_api_listing"].__globals__, "HERE", tmp_path)
    with pytest.raises(RuntimeError, match=r"missing: compare_precision.*python doc/conf.py"):
        conf["_check_api_listing"]()
    assert stale.read_text() == before.replace("   compare_precision\n", "")
    assert api.read_text() == before


def _inventory(path):
    data = path.read_bytes()
    header, _, body = data.partition(b"compressed using zlib.\n")
    assert header.startswith(b"# Sphinx inventory version 2\n")
    return dict(
        (line.split(" ")[0], line.split(" ")[3])
        for line in zlib.decompress(body).decode().splitlines()
    )


def test_intersphinx_inventories_are_written_offline(conf):
    mapping = conf["intersphinx_mapping"]
    assert {"sklearn", "numpy", "scipy", "pandas", "statsmodels"} <= set(mapping)
    assert "sphinx.ext.intersphinx" in conf["extensions"]
    # Names the docs link to, at their projects' addresses.
    expected = {
        "sklearn": (
            "sklearn.model_selection.cross_validate",
            "modules/generated/sklearn.model_selection.cross_validate.html",
        ),
        "numpy": ("numpy.bincount", "reference/generated/numpy.bincount.html"),
        "scipy": ("scipy.stats.wilcoxon", "reference/generated/scipy.stats.wilcoxon.html"),
        "pandas": (
            "pandas.DataFrame.to_markdown",
            "reference/api/pandas.DataFrame.to_markdown.html",
        ),
        "statsmodels": (
            "statsmodels.stats.proportion.proportion_confint",
            "generated/statsmodels.stats.proportion.proportion_confint.html",
        ),
    }
    for project, (root, location) in mapping.items():
        assert root.startswith("https://")
        path = Path(location)
        assert path.is_file() and "_build" in path.parts  # never in the sources
        entries = _inventory(path)
        if project in expected:
            name, uri = expected[project]
            assert entries[name].startswith(uri)
    # The glossary terms numpydoc links parameter types to.
    assert _inventory(Path(mapping["numpy"][1]))["array_like"].startswith("glossary.html")


def test_gallery_warnings_show_no_path(conf):
    text = warnings.formatwarning("undefined", UserWarning, "/some/abs/path/x.py", 3, "line")
    assert text == "UserWarning: undefined\n"
    for example in (ROOT / "doc" / "examples").glob("plot_*.py"):
        source = example.read_text()
        assert "{DATA_DIR}" not in source and "{REPO}" not in source, example.name
