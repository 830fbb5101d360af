"""Import structure, read from the source (function-level imports included): the engine never
imports training, and training's modules import each other without a cycle."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def imports_of(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}  # "from training import x"
    return found


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_the_engine_imports_nothing_from_training():
    offenders = {
        module_name(path): sorted(m for m in imports_of(path) if m == "training" or m.startswith("training."))
        for path in (ROOT / "engine").rglob("*.py")
    }
    assert {name: found for name, found in offenders.items() if found} == {}


def test_training_modules_import_each_other_without_a_cycle():
    modules = {module_name(p): p for p in (ROOT / "training").glob("*.py")}
    graph = {
        name: {m for m in imports_of(path) if m in modules and m != name} for name, path in modules.items()
    }
    assert "training.prune" in graph and "training.export" in graph
    assert "training.prune" in graph["training.export"]  # the export prunes the model it writes
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, f"import cycle: {' -> '.join(path + (name,))}"
        if name not in done:
            for dependency in sorted(graph[name]):
                visit(dependency, path + (name,))
            done.add(name)

    for name in sorted(graph):
        visit(name, ())
