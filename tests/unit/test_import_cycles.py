"""The project's import graph has no cycle, and arrows between layers point down only.

Every module of the project's packages is parsed (imports at any depth, those under
``if TYPE_CHECKING:`` included, relative imports resolved, ``from pkg import name``
counted as an import of ``pkg.name`` when that is a module) and the strongly
connected components of the module graph are computed (Tarjan). A component of more
than one module is a cycle.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).parents[2]
PACKAGES = ("agents", "tools", "prompts", "schemas", "memory", "bench")


def project_modules(root: Path = ROOT) -> dict[str, Path]:
    """Return every module of the project's packages: dotted name -> file."""
    modules: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> str:
    """The absolute module an ImportFrom names (relative levels resolved)."""
    if node.level == 0:
        return node.module or ""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _owner(name: str, modules: Iterable[str]) -> str | None:
    """The longest project module that `name` is or lies inside."""
    known = set(modules)
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in known:
            return candidate
    return None


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Return module -> the project modules it imports (anywhere in its body)."""
    modules = project_modules(root)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text("utf-8"), str(path))
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(name, path, node)
                for alias in node.names:
                    full = f"{base}.{alias.name}"
                    targets.append(full if full in modules else base)
            for target in targets:
                owner = _owner(target, modules)
                if owner is not None and owner != name:
                    graph[name].add(owner)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Return the strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(start: str) -> None:  # iterative: deep graphs must not hit the recursion limit
        nonlocal counter
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_the_import_graph_has_no_cycle() -> None:
    found = cycles(import_graph())
    assert not found, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_the_generic_memory_never_imports_the_underwriting_domain() -> None:
    graph = import_graph()
    wrong = sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        if _inside(module, "memory") and not _inside(module, "memory.underwriting")
        for target in targets
        if _inside(target, "memory.underwriting")
    )
    assert not wrong, "generic memory imports memory.underwriting: " + ", ".join(wrong)


def test_memory_never_imports_agents_or_tools() -> None:
    graph = import_graph()
    wrong = sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        if _inside(module, "memory")
        for target in targets
        if _inside(target, "agents") or _inside(target, "tools") or _inside(target, "bench")
    )
    assert not wrong, "memory imports agents, tools or bench: " + ", ".join(wrong)


# memory's layers, bottom first (docs/layout.md): an arrow may stay inside its package
# or point to a lower layer, never up or sideways.
LAYERS = (
    ("memory.settings", "memory.model"),
    ("memory.embedders", "memory.backend"),
    ("memory.search",),
    ("memory.graph",),
    ("memory.sessions",),
    ("memory.underwriting",),
)


def _layer(module: str) -> tuple[int, str] | None:
    for rank, packages in enumerate(LAYERS):
        for package in packages:
            if _inside(module, package):
                return rank, package
    return None


def test_memory_arrows_point_down_only() -> None:
    wrong = []
    for module, targets in import_graph().items():
        source = _layer(module)
        if source is None:
            continue  # memory/__init__.py: the public surface sits above every layer
        for target in targets:
            if target == "memory":  # the surface imports the layers, not the reverse
                wrong.append(f"{module} -> {target}")
            lower = _layer(target)
            if lower is None or lower[1] == source[1]:
                continue
            if lower[0] >= source[0]:
                wrong.append(f"{module} -> {target}")
    assert not wrong, "memory arrows that do not point down: " + ", ".join(sorted(wrong))


def test_the_checker_sees_cycles_hidden_behind_type_checking(tmp_path: Path) -> None:
    package = tmp_path / "memory"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from memory import b\n")
    (package / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .c import C\n"
    )
    (package / "c.py").write_text("def f():\n    from memory.a import x\n")
    for other in PACKAGES[:-1]:
        if other != "memory":
            (tmp_path / other).mkdir()
    (tmp_path / "bench").mkdir()
    graph = import_graph(tmp_path)
    assert graph["memory.a"] == {"memory.b"}  # `from pkg import module` is the module
    assert graph["memory.b"] == {"memory.c"}  # relative and TYPE_CHECKING imports count
    assert cycles(graph) == [["memory.a", "memory.b", "memory.c"]]
