"""The package's layers, read from its source with ``ast``.

Every ``import`` and ``from ... import`` statement counts, at module level
or inside a function: a deferred import is still a dependency. Imports under
``if TYPE_CHECKING:`` do not: they never run, and annotations may name any
layer. Importing a package runs its ``__init__``, so ``from ..results import
X`` depends on ``results/__init__.py``; the implicit import of a module's
parent packages does not count (every module would otherwise depend on the
top level).
"""

import ast
from pathlib import Path

import pytest

import sklearn_precision_stats

PACKAGE = "sklearn_precision_stats"
ROOT = Path(sklearn_precision_stats.__file__).parent
# The sub-packages the engine must never import: it is the bottom layer.
ABOVE_ENGINE = ("paired", "results", "comparators", "classic", "across_classes")


def _modules(root=ROOT):
    """Dotted module name -> (path, whether it is a package's ``__init__``)."""
    modules = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        modules[".".join(parts)] = (path, is_package)
    return modules


def _targets(module, is_package, node, modules):
    """The package modules an import statement names."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name.split(".")[0] == PACKAGE]
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    if target.split(".")[0] != PACKAGE:
        return []
    # ``from pkg import name``: the submodule when `name` is one.
    return [
        f"{target}.{alias.name}" if f"{target}.{alias.name}" in modules else target
        for alias in node.names
    ]


def _is_type_checking(node):
    """Whether `node` is ``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``)."""
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _run_time_nodes(tree):
    """Every node of `tree` except the bodies of ``if TYPE_CHECKING:`` blocks."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if _is_type_checking(child):
                stack.extend(child.orelse)
            else:
                stack.append(child)


def import_graph(root=ROOT):
    """Module -> the set of package modules it imports when it runs (anywhere in its body)."""
    modules = _modules(root)
    graph = {}
    for module, (path, is_package) in modules.items():
        deps = set()
        for node in _run_time_nodes(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _targets(module, is_package, node, modules):
                    while target not in modules and "." in target:
                        target = target.rsplit(".", 1)[0]
                    if target != module:
                        deps.add(target)
        graph[module] = deps
    return graph


def cycles(graph):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        # Iterative depth-first search: (node, iterator over its successors).
        work = [(v, iter(sorted(graph[v])))]
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        while work:
            node, successors = work[-1]
            for w in successors:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[node] = min(low[node], index[w])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_package_has_no_import_cycle():
    found = cycles(import_graph())
    assert not found, f"import cycles: {found}"


def test_the_engine_imports_no_higher_layer():
    graph = import_graph()
    upward = {
        module: sorted(t for t in deps if t.split(".")[1] in ABOVE_ENGINE)
        for module, deps in graph.items()
        if module.startswith(f"{PACKAGE}.engine")
    }
    upward = {module: deps for module, deps in upward.items() if deps}
    assert not upward, f"the engine imports from higher layers: {upward}"


def test_the_graph_reads_imports_at_every_level(tmp_path):
    # A package with a deferred import inside a function closing a cycle,
    # a relative import of a package's name, an engine module importing the
    # results layer and a cycle closed only under TYPE_CHECKING: the checks
    # above must see the first three and not the last.
    pkg = tmp_path / PACKAGE
    for sub in ("engine", "results"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "engine" / "_a.py").write_text("from ._b import f\n")
    (pkg / "engine" / "_b.py").write_text("def f():\n    from . import _a\n    return _a\n")
    (pkg / "engine" / "_c.py").write_text(
        "import numpy\n\ndef g():\n    from ..results import R\n    return R\n"
    )
    (pkg / "results" / "_r.py").write_text(
        "from typing import TYPE_CHECKING\n\nfrom sklearn_precision_stats.engine import _c\n\n"
        "if TYPE_CHECKING:\n    from . import _s\n"
        "else:\n    import sklearn_precision_stats.engine._b\n"
    )
    (pkg / "results" / "_s.py").write_text("from . import _r\n")
    graph = import_graph(pkg)
    assert graph[f"{PACKAGE}.engine._c"] == {f"{PACKAGE}.results"}
    # The type-checking import is left out, its else branch is not.
    assert graph[f"{PACKAGE}.results._r"] == {f"{PACKAGE}.engine._c", f"{PACKAGE}.engine._b"}
    assert cycles(graph) == [[f"{PACKAGE}.engine._a", f"{PACKAGE}.engine._b"]]


@pytest.mark.parametrize("layer", ABOVE_ENGINE)
def test_every_layer_the_engine_must_not_import_exists(layer):
    # A renamed sub-package would make the layering check vacuous.
    assert (ROOT / layer / "__init__.py").is_file()
