"""The README as a new user runs it, in a fresh interpreter.

Every Python snippet of the README runs in a subprocess, statement by
statement, in the README's order; then again with the optional packages'
imports blocked (tabulate, jinja2, pyarrow, matplotlib), where every
statement must work or fail with an ImportError that names the extra to
install. The demo (``python -m sklearn_precision_stats demo``, the README's
first command) must show the Quick start's numbers.
"""

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"

# Optional packages and the extra of the package that installs each.
EXTRAS = {"tabulate": "export", "jinja2": "export", "pyarrow": "io", "matplotlib": "plot"}

# Run in the subprocess: block the named packages, then run each statement of
# each snippet, and report as JSON what failed and what was warned.
DRIVER = textwrap.dedent(
    """
    import ast, importlib.abc, io, json, sys, warnings

    blocked = set(sys.argv[1].split(",")) - {""}

    class _Blocker(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in blocked:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, _Blocker())
    snippets = json.loads(sys.stdin.read())
    namespace = {"__name__": "__main__"}
    errors, caught = [], []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for snippet in snippets:
            for statement in ast.parse(snippet).body:
                source = ast.get_source_segment(snippet, statement)
                code = compile(ast.Module([statement], []), "README.md", "exec")
                try:
                    exec(code, namespace)
                except Exception as exc:
                    errors.append([source, type(exc).__name__, str(exc)])
        from sklearn_precision_stats.__main__ import demo

        demo_table = demo(stream=io.StringIO()).table
        quick_start = namespace["result"].table
        same_numbers = bool(demo_table.equals(quick_start))
    report = {
        "errors": errors,
        "warnings": [f"{w.category.__name__}: {w.message}" for w in caught],
        "demo_matches_quick_start": same_numbers,
        "imported": sorted(m for m in sys.modules if m.split(".")[0] in blocked),
    }
    print(json.dumps(report))
    """
)


def _readme_snippets():
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


# Beyond the README's statements: the LaTeX export its Quick start mentions
# (jinja2) and the plot of its comparison (matplotlib).
TO_LATEX = "latex = result.to_latex()"
PLOT = "figure_axes = result.plot()"


def _run_readme(blocked=()):
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER, ",".join(blocked)],
        input=json.dumps([*_readme_snippets(), TO_LATEX, PLOT]),
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "MPLBACKEND": "Agg"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def readme_run():
    return _run_readme()


def test_readme_has_the_snippets_this_test_expects():
    snippets = _readme_snippets()
    assert len(snippets) >= 5
    joined = "\n".join(snippets)
    for call in ("to_markdown()", "CVPrecisionComparator(", "ComparisonCounts.from_arrays("):
        assert call in joined


def test_readme_snippets_run(readme_run):
    assert readme_run["errors"] == []


def test_readme_snippets_do_not_warn_about_wgs(readme_run):
    # WGS is NaN by design with repeated records (the cross-validation
    # snippet): the docs and the summary say so, not a warning.
    assert readme_run["warnings"]  # the recording works: digits has perfect classes
    assert not [w for w in readme_run["warnings"] if "one row per record" in w]


def test_demo_shows_the_quick_start_numbers(readme_run):
    assert readme_run["demo_matches_quick_start"]


def test_readme_without_optional_packages_names_the_extras():
    report = _run_readme(blocked=tuple(EXTRAS))
    assert report["imported"] == []
    failed = {source: (kind, message) for source, kind, message in report["errors"]}
    # Markdown needs tabulate, LaTeX jinja2 and the plot matplotlib: each
    # fails with an ImportError naming the extra to install.
    expected = {"print(result.to_markdown())": "export", TO_LATEX: "export", PLOT: "plot"}
    assert set(failed) == set(expected), failed
    for source, extra in expected.items():
        kind, message = failed[source]
        assert kind in ("ImportError", "ModuleNotFoundError"), (source, kind, message)
        assert "pip install" in message and f"sklearn-precision-stats[{extra}]" in message
