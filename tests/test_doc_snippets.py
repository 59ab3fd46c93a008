"""The Python snippets of the README and the documentation run.

Every ``python`` code block of ``README.md``, ``doc/*.md`` and the
reStructuredText pages of ``doc/`` is executed, the blocks of one file in
order and in one namespace (a page's later blocks use what its earlier ones
defined), so an example that stops working fails the suite. A block that
cannot run here (it needs a cluster's address, say) starts with a comment
line ``# not run: <why>`` and is skipped.
"""

import os
import re
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "doc"

_MD_BLOCK = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)
_RST_DIRECTIVE = re.compile(r"^(\s*)\.\. code-block:: python[ \t]*\n", re.M)


def _markdown_blocks(text):
    return [m.group(1) for m in _MD_BLOCK.finditer(text)]


def _rst_blocks(text):
    """The bodies of ``.. code-block:: python`` directives, dedented."""
    blocks = []
    lines = text.splitlines()
    for match in _RST_DIRECTIVE.finditer(text):
        directive_indent = len(match.group(1))
        start = text.count("\n", 0, match.end())
        body = []
        for line in lines[start:]:
            if line.strip() and not line.startswith(" " * (directive_indent + 1)):
                break
            body.append(line)
        # Options of the directive (":caption: ...") come first.
        while body and body[0].strip().startswith(":"):
            body.pop(0)
        indent = min((len(line) - len(line.lstrip()) for line in body if line.strip()), default=0)
        blocks.append("\n".join(line[indent:] for line in body).strip("\n") + "\n")
    return blocks


def _documents():
    files = [ROOT / "README.md", *sorted(DOC.glob("*.md"))]
    files += sorted(p for p in DOC.rglob("*.rst") if "_build" not in p.parts)
    files = [p for p in files if "_templates" not in p.parts and "auto_examples" not in p.parts]
    out = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        blocks = _markdown_blocks(text) if path.suffix == ".md" else _rst_blocks(text)
        if blocks:
            out.append((path, blocks))
    return out


DOCUMENTS = _documents()

_NOT_RUN = re.compile(r"^\s*# not run:")

# Pages whose snippets fail today, with the reason; strict, so that the
# mark must go when a page is fixed.
KNOWN_FAILURES: dict[str, str] = {}
# Not run at all while they fail: minutes of fits before the failure.
SLOW_FAILURES: set[str] = set()


def _params():
    for path, blocks in DOCUMENTS:
        name = path.relative_to(ROOT).as_posix()
        marks = []
        if name in KNOWN_FAILURES:
            marks.append(
                pytest.mark.xfail(
                    reason=KNOWN_FAILURES[name], strict=True, run=name not in SLOW_FAILURES
                )
            )
        yield pytest.param(path, blocks, id=name, marks=marks)


def test_the_extraction_finds_the_snippets():
    # Guards the test below: the snippet parsers must see the blocks.
    sample_md = "text\n```python\nx = 1\n```\n\n```bash\nls\n```\n"
    assert _markdown_blocks(sample_md) == ["x = 1\n"]
    assert _NOT_RUN.match("# not run: needs a Dask scheduler\nClient(address)\n")
    sample_rst = (
        "Title\n\n.. code-block:: python\n\n   a = 1\n\n   b = a + 1\n\nAfter.\n\n"
        ".. code-block:: bash\n\n   ls\n"
    )
    assert _rst_blocks(sample_rst) == ["a = 1\n\nb = a + 1\n"]
    names = {path.relative_to(ROOT).as_posix() for path, _ in DOCUMENTS}
    assert {"README.md", "doc/getting_started.rst", "doc/user_guide/sklearn.rst"} <= names


@pytest.mark.parametrize("path, blocks", list(_params()))
def test_snippets_run(path, blocks, tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # Snippets that write files write them in a temporary folder.
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    namespace = {"__name__": "__doc_snippet__"}
    try:
        for i, code in enumerate(blocks):
            if _NOT_RUN.match(code):
                continue
            with warnings.catch_warnings():
                # Snippets may show undefined statistics on purpose.
                warnings.simplefilter("ignore")
                try:
                    exec(compile(code, f"{path.name} block {i + 1}", "exec"), namespace)
                except Exception as exc:
                    raise AssertionError(
                        f"{path.relative_to(ROOT)}, python block {i + 1} of {len(blocks)} "
                        f"failed with {type(exc).__name__}: {exc}\n--- block ---\n{code}"
                    ) from exc
    finally:
        plt.close("all")
    assert os.getcwd() == str(tmp_path)
