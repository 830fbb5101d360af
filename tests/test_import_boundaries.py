"""Import boundaries and import cycles, read from the source with ``ast``: nothing is imported, so a
forbidden import is found even where it sits in a function that no test calls.

The rules: the runtime (``engine/``, ``app/``) never imports torch or ``training/``; ``engine/`` never
imports Qt or ``app/``; ``app/`` reaches the engine only through its public API (``from engine import
X``); the engine's stages import only the stages before their own (``ENGINE_STAGES``); and no
module of ``engine/``, ``app/`` or ``training/`` takes part in an import cycle. Imports
inside functions count (they run when the function does), and so does a module named in a string
handed to a call (``importlib.import_module("engine.cli.listen")``, or a lazy loader such as the
CLI's ``_lazy``). Imports under ``if TYPE_CHECKING:`` count for the boundaries but not for cycles:
they never run.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "app", "training")
QT = ("PySide6", "shiboken6", "PyQt5", "PyQt6", "PySide2", "shiboken2")


@dataclass(frozen=True)
class ImportSite:
    """One import statement (or dynamic import call) and the modules it may load."""

    module: str  # the importing module, dotted
    path: Path  # relative to the scanned root
    line: int
    statement: str
    targets: tuple[str, ...]  # absolute dotted names
    type_only: bool  # under `if TYPE_CHECKING:`

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.statement}"


def module_files(root: Path, packages=PACKAGES) -> dict[str, Path]:
    """Dotted module name -> file, for every .py file of the packages (a package is its __init__)."""
    modules = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = path
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


class _ImportCollector(ast.NodeVisitor):
    def __init__(self, module: str, is_package: bool, known: set[str]):
        self.module, self.is_package, self.known = module, is_package, known
        self.found: list[tuple[ast.AST, tuple[str, ...], bool]] = []
        self.type_only = False

    def visit_If(self, node: ast.If):
        if _is_type_checking(node.test):
            outer, self.type_only = self.type_only, True
            for child in node.body:
                self.visit(child)
            self.type_only = outer
            for child in node.orelse:
                self.visit(child)
        else:
            self.generic_visit(node)

    def visit_Import(self, node: ast.Import):
        self.found.append((node, tuple(alias.name for alias in node.names), self.type_only))

    def visit_ImportFrom(self, node: ast.ImportFrom):
        if node.level:
            package = self.module.split(".") if self.is_package else self.module.split(".")[:-1]
            package = package[: len(package) - (node.level - 1)]
            base = ".".join([*package, *([node.module] if node.module else [])])
        else:
            base = node.module
        # `from pkg import name` loads pkg.name where that is a module, else pkg itself.
        targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in self.known else base for a in node.names]
        self.found.append((node, tuple(dict.fromkeys(targets)), self.type_only))

    def visit_Call(self, node: ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        named = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if name in ("import_module", "__import__"):
            targets = named[:1]
        else:
            # A dotted module name handed to a lazy loader (``_lazy("engine.cli.recover", ...)``);
            # a bare word such as "app" is data (a source kind), not a package being loaded.
            targets = [s for s in named if s in self.known and "." in s]
        if targets:
            self.found.append((node, tuple(targets), self.type_only))
        self.generic_visit(node)


def scan(root: Path = ROOT, packages=PACKAGES) -> list[ImportSite]:
    """Every import site of every module of ``packages`` under ``root``."""
    modules = module_files(root, packages)
    sites = []
    for module, path in modules.items():
        collector = _ImportCollector(module, path.name == "__init__.py", set(modules))
        collector.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        for node, targets, type_only in collector.found:
            statement = " ".join(ast.unparse(node).split())
            rel = path.relative_to(root)
            sites.append(ImportSite(module, rel, node.lineno, statement, targets, type_only))
    return sites


def module_graph(sites: list[ImportSite], known) -> dict[str, dict[str, list[ImportSite]]]:
    """importer -> imported -> the sites, between known modules only; a target ``a.b.c`` that is no
    module (``import a.b.c`` of a name) resolves to its longest known prefix."""
    graph: dict[str, dict[str, list[ImportSite]]] = defaultdict(lambda: defaultdict(list))
    for site in sites:
        if site.type_only:
            continue
        for target in site.targets:
            parts = target.split(".")
            while parts and ".".join(parts) not in known:
                parts.pop()
            imported = ".".join(parts)
            if imported and imported != site.module:
                graph[site.module][imported].append(site)
    return graph


def import_cycles(graph) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index, low, stack, on_stack, components = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, {}):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(components)


def describe_cycles(graph, cycles) -> str:
    lines = []
    for cycle in cycles:
        lines.append("cycle among " + ", ".join(cycle) + ":")
        members = set(cycle)
        for importer in cycle:
            for imported, sites in sorted(graph[importer].items()):
                if imported in members:
                    lines += [f"    {site}  (-> {imported})" for site in sites]
    return "\n".join(lines)


def violations(sites, importer_packages, forbidden) -> list[ImportSite]:
    """Sites in ``importer_packages`` with a target whose top-level name is one of ``forbidden``."""
    return [
        site
        for site in sites
        if site.module.split(".")[0] in importer_packages
        and any(target.split(".")[0] in forbidden for target in site.targets)
    ]


# The engine's stages, from the bottom up: audio is recognized, the words punctuated, the punctuated
# text kept (and indexed), a session wires them, the front ends and measuring tools use sessions.
# A stage imports only from itself and from the rows before its own; the stages of one row stand
# beside each other and import none of each other. A new stage takes its place here.
ENGINE_STAGES = (
    ("words", "files", "fanout", "onnx_runtime", "machine", "version", "elapsed"),  # what every stage shares
    ("events",),
    # The user's terms: read by the recognizers (a phrase list, a prompt), the transcript and the
    # session (words matched after recognition); it needs only the words and the files.
    ("vocabulary",),
    ("audio", "vosk_models"),
    ("recognizers", "prosody", "speakers"),
    ("punctuation",),
    ("transcript", "dictation"),
    ("share",),  # the caption page: reads the captions' events, as the transcript folds them
    ("history",),
    ("session",),
    ("cli", "about"),
    ("evaluation",),
)


def engine_stage(module: str) -> str | None:
    """The stage of an engine module (``engine.punctuation.model`` -> ``punctuation``); None for
    the package itself (the public API, above every stage) and for anything outside the engine."""
    parts = module.split(".")
    return parts[1] if parts[0] == "engine" and len(parts) > 1 else None


def upward_imports(sites: list[ImportSite], stages=ENGINE_STAGES) -> list[str]:
    """Each import of an engine module from a later stage, or from a stage beside its own."""
    row = {stage: n for n, names in enumerate(stages) for stage in names}
    found = []
    for site in sites:
        own = engine_stage(site.module)
        for target in site.targets:
            other = engine_stage(target)
            if own in row and other in row and other != own and row[other] >= row[own]:
                found.append(f"{site}  ({own} -> {other})")
    return found


def check(found: list[ImportSite], rule: str):
    if found:
        pytest.fail(f"{rule}:\n" + "\n".join(f"    {site}" for site in found), pytrace=False)


@pytest.fixture(scope="module")
def sites() -> list[ImportSite]:
    return scan()


# ---- the scanner itself ------------------------------------------------------------------------------


def test_the_scanner_resolves_every_kind_of_import(tmp_path):
    files = {
        "pkg/__init__.py": "from . import a\n",
        "pkg/a.py": "import os\nfrom .sub import b\n",
        "pkg/sub/__init__.py": "",
        "pkg/sub/b.py": "from ..a import helper\n"
        "def later():\n    from pkg.c import thing\n    return thing\n",
        "pkg/c.py": "import importlib\nfrom typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from pkg.sub.b import later\n"
        "def run(name):\n    return importlib.import_module('pkg.sub')\n"
        "COMMANDS = {'b': load('pkg.sub.b', 'later'), 'text': print('not.a.module')}\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)

    found = scan(tmp_path, ("pkg",))
    by_line = {(str(s.path), s.line): s for s in found}
    assert by_line[("pkg/__init__.py", 1)].targets == ("pkg.a",)  # a submodule, not the package
    assert by_line[("pkg/a.py", 2)].targets == ("pkg.sub.b",)
    assert by_line[("pkg/sub/b.py", 1)].targets == ("pkg.a",)  # two levels up, then a name in pkg.a
    assert by_line[("pkg/sub/b.py", 3)].targets == ("pkg.c",)  # lazy, inside a function
    assert by_line[("pkg/c.py", 4)].type_only
    assert by_line[("pkg/c.py", 6)].targets == ("pkg.sub",)  # importlib with a constant name
    assert by_line[("pkg/c.py", 7)].targets == ("pkg.sub.b",)  # a module named to a lazy loader
    assert not any("not.a.module" in s.targets for s in found)
    assert str(by_line[("pkg/a.py", 2)]) == "pkg/a.py:2: from .sub import b"

    graph = module_graph(found, module_files(tmp_path, ("pkg",)))
    assert [s.line for s in graph["pkg.c"]["pkg.sub.b"]] == [7]  # the TYPE_CHECKING import is no edge
    # pkg.a -> pkg.sub.b -> pkg.a, and pkg.sub.b -> pkg.c -> pkg.sub.b (lazy on one side, a string on the
    # other); pkg only imports into the cycle and pkg.sub is only imported from it.
    assert import_cycles(graph) == [["pkg.a", "pkg.c", "pkg.sub.b"]]
    assert "pkg/sub/b.py:3: from pkg.c import thing  (-> pkg.c)" in describe_cycles(
        graph, import_cycles(graph)
    )


def test_the_scan_sees_the_whole_runtime(sites):
    modules = module_files(ROOT)
    assert {"engine.session.live", "app.main_window.window", "training.train"} <= set(modules)
    assert {s.module for s in sites} >= {"engine.session.live", "app.main_window.window"}
    assert any(s.targets == ("PySide6.QtWidgets",) for s in sites)  # a Qt import is seen at all


# ---- the boundaries ----------------------------------------------------------------------------------


def test_the_runtime_never_imports_torch(sites):
    found = violations(sites, ("engine", "app"), ("torch",))
    check(found, "torch imported by the runtime (only training/ may)")


def test_the_runtime_never_imports_training(sites):
    found = violations(sites, ("engine", "app"), ("training",))
    check(found, "training/ imported by the runtime")


def test_the_engine_never_imports_qt(sites):
    found = violations(sites, ("engine",), QT)
    check(found, "Qt imported by engine/ (the engine is headless)")


def test_the_engine_never_imports_the_app(sites):
    found = violations(sites, ("engine",), ("app",))
    check(found, "app/ imported by engine/")


def test_nothing_in_the_runtime_imports_the_measuring_tools(sites):
    """``engine/evaluation`` stays in the engine as its last stage (docs/ARCHITECTURE.md): it may
    import every stage, and only ``training/`` and the tests import it. No other engine module and
    no app module does, and no public name of the engine loads from it, so the shipped app never
    runs it (the frozen build leaves it out)."""
    import engine

    def measuring(name: str) -> bool:
        return name.split(".")[:2] == ["engine", "evaluation"]

    found = [
        site
        for site in sites
        if site.module.split(".")[0] in ("engine", "app")
        and not measuring(site.module)
        and any(measuring(target) for target in site.targets)
    ]
    check(found, "engine/evaluation imported by the runtime (only training/ and the tests may)")
    public = sorted(name for name, (module, _) in engine._PUBLIC.items() if measuring(module))
    assert not public, f"public names of the engine load from engine/evaluation: {public}"


def test_the_app_uses_only_the_engines_public_api(sites):
    found = [
        site
        for site in sites
        if site.module.split(".")[0] == "app" and any(t.startswith("engine.") for t in site.targets)
    ]
    check(found, "app/ imports engine internals (use `from engine import X`)")


# ---- the app's windows -------------------------------------------------------------------------------

# The app's packages that are windows, and the ones that hold what windows share. A window imports no
# other window: what two windows share (how captions look, exporting, a button, the overlay's limits)
# lives beside them, in a top-level module of app/ or a shared package, and those import no window.
# Opening a window is the one exception: the opener imports the module that defines the window it
# opens (WINDOW_OPENINGS), and app/gui.py opens the first one.
APP_WINDOWS = ("main_window", "history", "overlay", "dialogs")
APP_SHARED = ("captions", "workers")
WINDOW_OPENINGS = {
    "main_window": (
        "app.overlay.caption_overlay",
        "app.history.window",
        "app.dialogs.settings_dialog",
        "app.dialogs.recovery",
        "app.dialogs.download_progress",
        "app.dialogs.share_dialog",
        "app.dialogs.vocabulary_entry",  # a caption word's "Add to vocabulary…"
    ),
    "app.gui": ("app.main_window.window",),  # the launcher opens the captions window
}


def app_window(module: str) -> str | None:
    """The window package of an app module (``app.history.session_view`` -> ``history``); None for
    a top-level module of app/, a shared package, and anything outside the app."""
    parts = module.split(".")
    return parts[1] if parts[0] == "app" and len(parts) > 1 and parts[1] in APP_WINDOWS else None


def window_imports(sites: list[ImportSite], openings=WINDOW_OPENINGS) -> list[str]:
    """Each import of one window's module from another window, or from what the windows share,
    that is not the opening of a window (``openings``: by the opening window, or by the opening
    module where that is no window)."""
    found = []
    for site in sites:
        if site.module.split(".")[0] != "app":
            continue
        own = app_window(site.module)
        for target in site.targets:
            other = app_window(target)
            if other is None or other == own:
                continue
            if target not in openings.get(own or site.module, ()):
                found.append(f"{site}  ({own or 'shared'} -> {other})")
    return found


def test_the_window_rule_finds_imports_across_windows_and_lets_openings_pass():
    def site(module, target):
        return ImportSite(
            module, Path(module.replace(".", "/") + ".py"), 1, f"import {target}", (target,), False
        )

    sites = [
        site("app.history.session_page", "app.main_window.exporting"),  # across: found
        site("app.main_window.companions", "app.history.window"),  # opening the History window
        site("app.main_window.actions", "app.overlay.options"),  # across, not an opening: found
        site("app.tray", "app.overlay.caption_overlay"),  # shared -> a window: found
        site("app.gui", "app.main_window.window"),  # the launcher opens the captions window
        site("app.history.window", "app.history.rows"),  # within its own window
        site("app.history.rows", "app.captions.style"),  # a window -> what windows share
        site("engine.cli.main", "app.main_window.window"),  # not the app: its own test
    ]
    assert window_imports(sites) == [
        "app/history/session_page.py:1: import app.main_window.exporting  (history -> main_window)",
        "app/main_window/actions.py:1: import app.overlay.options  (main_window -> overlay)",
        "app/tray.py:1: import app.overlay.caption_overlay  (shared -> overlay)",
    ]


def test_every_app_package_is_a_window_or_shared():
    packages = {m.split(".")[1] for m in module_files(ROOT, ("app",)) if m.count(".") >= 2}
    assert not set(APP_WINDOWS) & set(APP_SHARED)
    unplaced = sorted(packages - set(APP_WINDOWS) - set(APP_SHARED))
    gone = sorted((set(APP_WINDOWS) | set(APP_SHARED)) - packages)
    assert not unplaced, f"name these app/ packages in APP_WINDOWS or APP_SHARED: {unplaced}"
    assert not gone, f"APP_WINDOWS or APP_SHARED name packages app/ no longer has: {gone}"


def test_no_window_imports_another(sites):
    found = window_imports(sites)
    if found:
        pytest.fail(
            "app/ windows import each other (move what they share beside them in app/, or declare an"
            " opening in WINDOW_OPENINGS):\n" + "\n".join(f"    {line}" for line in found),
            pytrace=False,
        )


# ---- cycles ------------------------------------------------------------------------------------------


def test_no_import_cycles(sites):
    graph = module_graph(sites, module_files(ROOT))
    cycles = import_cycles(graph)
    described = describe_cycles(graph, cycles)
    print(described)  # shown with -s; `--runxfail` shows the failure while the mark is on
    if cycles:
        pytest.fail(f"{len(cycles)} import cycle(s):\n{described}", pytrace=False)


def test_no_engine_module_imports_back_up_through_the_public_api(sites):
    """``engine/__init__`` is the top of the engine's layers, the front ends' door: it loads the
    modules below it (lazily), so one of them importing it back runs the graph upwards, a cycle
    that laziness only hides."""
    found = [s for s in sites if s.module.startswith("engine.") and "engine" in s.targets]
    check(
        found, "engine/ modules import the `engine` package itself (import the module that defines the name)"
    )


# ---- the engine's stages ---------------------------------------------------------------------------


def test_the_stage_rule_finds_imports_up_and_across_and_lets_imports_down_pass():
    def site(module, target):
        return ImportSite(
            module, Path(module.replace(".", "/") + ".py"), 1, f"import {target}", (target,), False
        )

    sites = [
        site("engine.punctuation.model", "engine.recognizers.kinds"),  # down: allowed
        site("engine.speakers.embedding", "engine.punctuation.scoring"),  # up
        site("engine.recognizers.vad", "engine.speakers.labels"),  # across one row
        site("engine.transcript.journal", "engine.transcript.export"),  # within its own stage
        site("engine.cli.main", "engine"),  # the public API: its own test
        site("engine.words", "numpy"),
    ]
    assert upward_imports(sites) == [
        "engine/speakers/embedding.py:1: import engine.punctuation.scoring  (speakers -> punctuation)",
        "engine/recognizers/vad.py:1: import engine.speakers.labels  (recognizers -> speakers)",
    ]


def test_every_engine_stage_has_its_place():
    stages = {engine_stage(module) for module in module_files(ROOT, ("engine",))} - {None}
    listed = [stage for row in ENGINE_STAGES for stage in row]
    assert len(listed) == len(set(listed)), "a stage listed twice in ENGINE_STAGES"
    unplaced, gone = sorted(stages - set(listed)), sorted(set(listed) - stages)
    assert not unplaced, f"give these engine stages their place in ENGINE_STAGES: {unplaced}"
    assert not gone, f"ENGINE_STAGES lists stages the engine no longer has: {gone}"


def test_no_engine_stage_imports_a_later_one_or_one_beside_it(sites):
    found = upward_imports(sites)
    if found:
        pytest.fail(
            "engine/ imports against the stage order (ENGINE_STAGES; move the shared thing down):\n"
            + "\n".join(f"    {line}" for line in found),
            pytrace=False,
        )
