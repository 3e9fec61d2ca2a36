"""xhip's modules import each other without knots, and no pass imports another pass.

The graph is built from the source with `ast`: every `import` and `from ... import`
of an xhip module, at the top of a module and inside functions alike, so a cycle
cannot hide behind a deferred import. Importing `a.b.c` also runs the packages
`a` and `a.b`, so those are edges too, except the importer's own enclosing
packages (they are already being initialised when it runs).

A function-level import that would close a cycle is allowed only where it keeps
the command lines' start-up fast, and only when it is listed in
`LAZY_CLI_IMPORTS` with the reason; today none is needed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PASSES_PACKAGE = "xhip.passes"
SHARED_PASS_MODULES = {"xhip.passes", "xhip.passes.contracts"}
"""What a pass module may import from its own package: the shared contracts (and the registry)."""

LAZY_CLI_IMPORTS: dict[tuple[str, str], str] = {}
"""(importer, imported) -> why: function-level imports in xhip/tools/ that may close a cycle."""

Graph = dict[str, dict[str, set[int]]]
"""module -> imported module -> the lines importing it."""


def _modules(root: Path) -> dict[str, Path]:
    found = {}
    for path in sorted((root / "xhip").rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _package(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def _imported_names(node: ast.Import | ast.ImportFrom, package: str, modules: dict[str, Path]) -> Iterator[tuple[str, bool]]:
    """(dotted name, whether the import reads that package's namespace rather than running a module)."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield alias.name, False
        return
    if node.level:
        base = package.split(".")[: len(package.split(".")) - node.level + 1]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    for alias in node.names:
        submodule = f"{source}.{alias.name}"
        # `from pkg import sub` runs the module pkg.sub; `from pkg import name` reads pkg's namespace.
        yield (submodule, False) if submodule in modules else (source, True)


def _targets(name: str, from_namespace: bool, importer: str, modules: dict[str, Path]) -> set[str]:
    """The xhip modules that importing `name` runs, as seen from `importer`."""
    parts = name.split(".")
    prefixes = {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    own_packages = {importer.rsplit(".", i)[0] for i in range(1, importer.count(".") + 1)}
    targets = set()
    for prefix in prefixes & modules.keys():
        # Reading an enclosing package's namespace is a real dependency on its __init__.
        if prefix in own_packages and not (from_namespace and prefix == name):
            continue
        targets.add(prefix)
    return targets - {importer}


def import_graph(root: Path) -> Graph:
    modules = _modules(root)
    graph: Graph = {module: {} for module in modules}
    for module, path in modules.items():
        package = _package(module, path)
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            for name, from_namespace in _imported_names(node, package, modules):
                for target in _targets(name, from_namespace, module, modules):
                    graph[module].setdefault(target, set()).add(node.lineno)
    return graph


def cycles(graph: Graph, allowed: set[tuple[str, str]] = frozenset()) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in graph[module]:
            if (module, target) in allowed:
                continue
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def _describe(graph: Graph, component: list[str]) -> str:
    members = set(component)
    arrows = [
        f"  {module} -> {target} (line {', '.join(map(str, sorted(lines)))})"
        for module in component
        for target, lines in sorted(graph[module].items())
        if target in members
    ]
    return "\n".join(["import cycle:", *arrows])


@pytest.fixture(scope="module")
def graph() -> Graph:
    return import_graph(ROOT)


def test_the_graph_sees_function_level_imports(graph):
    # xhip-run imports the runtime inside main() only; the graph must still hold the arrow.
    assert "xhip.runtime.executable" in graph["xhip.tools.run"]


def _tree(root: Path, files: dict[str, str]) -> Path:
    """A source tree under `root`: relative path -> text."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_a_cycle_through_a_deferred_import_is_found(tmp_path):
    root = _tree(tmp_path, {
        "xhip/__init__.py": "",
        "xhip/dialects/__init__.py": "",
        "xhip/dialects/dps.py": "def reify():\n    from xhip.dialects.reify import rule\n",
        "xhip/dialects/reify.py": "from xhip.dialects.dps import reify\n",
    })  # fmt: skip
    assert cycles(import_graph(root)) == [["xhip.dialects.dps", "xhip.dialects.reify"]]


def test_importing_through_the_own_package_namespace_is_an_edge(tmp_path):
    root = _tree(tmp_path, {
        "xhip/__init__.py": "",
        "xhip/hip/__init__.py": "from xhip.hip.ops import Op\n",
        "xhip/hip/ops.py": "from xhip.hip import Op\n",
    })  # fmt: skip
    assert cycles(import_graph(root)) == [["xhip.hip", "xhip.hip.ops"]]


def test_lazy_cli_imports_are_function_level_imports_of_the_tools(graph):
    for importer, imported in LAZY_CLI_IMPORTS:
        assert importer.startswith("xhip.tools.") and imported in graph[importer]


def test_xhip_has_no_import_cycle(graph):
    found = cycles(graph, set(LAZY_CLI_IMPORTS))
    assert not found, "\n".join(_describe(graph, component) for component in found)


def _pass_modules(graph: Graph) -> list[str]:
    return sorted(m for m in graph if m.startswith(PASSES_PACKAGE + ".") and m not in SHARED_PASS_MODULES)


def test_there_are_pass_modules(graph):
    assert "xhip.passes.pool_allocs" in _pass_modules(graph)


@pytest.mark.parametrize("module", _pass_modules(import_graph(ROOT)))
def test_no_pass_module_imports_another_pass_module(graph, module):
    other_passes = {t for t in graph[module] if t.startswith(PASSES_PACKAGE) and t != "xhip.passes.contracts"}
    assert not other_passes, f"{module} imports {sorted(other_passes)}; shared code belongs in xhip.passes.contracts"


def test_the_shared_contracts_import_no_pass(graph):
    assert not {t for t in graph["xhip.passes.contracts"] if t.startswith(PASSES_PACKAGE)}


def _xhip_imports(graph: Graph, package: str) -> set[str]:
    return {t for m in graph if m == package or m.startswith(package + ".") for t in graph[m]}


def test_index_arithmetic_sits_below_the_shape_rules(graph):
    # shapes.py builds on xhip.index; nothing there may reach up to the analyses or the dialects.
    assert _xhip_imports(graph, "xhip.index") <= {"xhip.index", "xhip.index.emitter", "xhip.index.facts", "xhip.index.host_eval", "xhip.diagnostics"}
    assert {t for t in graph["xhip.shapes"] if not t.startswith("xhip.index")} <= {"xhip.diagnostics"}


@pytest.mark.parametrize("package", ["xhip.passes", "xhip.analysis", "xhip.rewrite_rules", "xhip.dialects", "xhip.kernels", "xhip.memory"])
def test_the_compiler_and_the_kernel_families_never_import_the_runtime(graph, package):
    """The runtime binds IR and runs it; what it reads (dialects, analyses, kernel families)
    knows nothing of it, and a pass never needs it (element types come from xhip.dtypes)."""
    assert not {t for t in _xhip_imports(graph, package) if t.startswith("xhip.runtime")}


RUN_TIME_MODULES = [
    "xhip.runtime.steps", "xhip.runtime.program", "xhip.runtime.signature", "xhip.runtime.replay",
    "xhip.runtime.backends.base", "xhip.runtime.backends.gpu.backend", "xhip.runtime.backends.gpu.kernels",
    "xhip.runtime.backends.reference.backend",
]  # fmt: skip


@pytest.mark.parametrize("module", RUN_TIME_MODULES)
def test_what_a_run_executes_reads_no_ir(graph, module):
    """bind (the final IR), bind_tensor (the stages before it) and contracts (shape rules,
    proved at bind) read IR; the steps a run executes, the program, the signature and the
    backends work on the plain values bind handed them: they import no dialect, no analysis
    and none of those readers."""
    readers = ("xhip.dialects", "xhip.analysis", "xhip.runtime.bind", "xhip.runtime.contracts")
    assert not {t for t in graph[module] if t.startswith(readers)}, module
