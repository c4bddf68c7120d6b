"""The layout keeps the architecture: imports point down the layers of docs/architecture.md, no two
files import each other (directly or round a circle), outside packages stay in their layers, SQL
stays in arena/results/, and every module says what it owns. The layers are read from the
document's table, so the document and the code cannot drift apart unseen."""

from __future__ import annotations

import ast
import fnmatch
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "arena"
DOC = REPO / "docs" / "architecture.md"
STANDARD = set(sys.stdlib_module_names) | {"__future__"}
# Split by responsibility before 400 lines (the aim is under 300): docs/architecture.md.
MAX_MODULE_LINES = 400
# SQL stays in the results layer: other layers get values from the store or arena/results/queries.py.
RESULTS_LAYER = "arena/results/"
# The league server's own file (its accounts and uploads, not a tournament's results) is SQLite of its
# own, read and written by these two modules alone.
SERVER_FILE_MODULES = ("arena/server/store.py",)  # the server file's own SQL: accounts, uploads, sign-ins
# A store's ways to raw SQL: its read transaction and connection, the readers that once took SQL text,
# and the server store's reader (arena/server/store.py), which takes it still. (Its `_write` is not
# listed: other classes have methods of that name, a bot's pipe among them.)
STORE_SQL_ACCESS = frozenset({"execute_read", "read_many", "reading", "_read", "_db", "_rows"})


def read_layers() -> list[tuple[list[str], list[tuple[str, str]]]]:
    """The rows of the Layers table, top first: (the paths the row covers, [(package, file pattern)])."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    layers = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`arena/"):
            continue
        paths = re.findall(r"`(arena/[^`]*)`", cells[0])
        packages = [(name, pattern or "*") for name, pattern in re.findall(r"`(\w+)`(?: in `([^`]+)`)?", cells[2])]
        layers.append((paths, packages))
    return layers


LAYERS = read_layers()


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def layer_of(name: str) -> int:
    """The row of a module: its folder's, or its file's for the root modules."""
    path = MODULES[name].relative_to(REPO).as_posix()
    for index, (paths, _) in enumerate(LAYERS):
        for covered in paths:
            if path == covered or (covered.endswith("/") and path.startswith(covered)):
                return index
    raise AssertionError(f"{path} is in no layer of docs/architecture.md's table: add its folder there")


def imports_in(source: str, name: str, is_package: bool = False) -> list[tuple[int, str]]:
    """(line, imported name) for every import in the source of module `name`, lazy ones inside
    functions included; `from arena.game import phase2` names the module arena.game.phase2."""
    package = name if is_package else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([node.module] if node.module else []))
            found += [(node.lineno, f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base)
                      for alias in node.names]
    return found


def imports_of(path: Path) -> list[tuple[int, str]]:
    return imports_in(path.read_text(encoding="utf-8"), module_name(path), path.name == "__init__.py")


def project_module(imported: str) -> str | None:
    while imported and imported not in MODULES:
        imported = imported.rpartition(".")[0]
    return imported or None


def graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {name: set() for name in MODULES}
    for name, path in MODULES.items():
        for _, imported in imports_of(path):
            if imported.split(".")[0] == "arena":
                target = project_module(imported)
                if target is not None and target != name:
                    edges[name].add(target)
    return edges


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan), each a circle of imports."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def sql_reached(source: str, name: str, is_package: bool = False) -> list[str]:
    """Where module `name` reaches SQLite itself: an import of sqlite3, or a store's SQL access (any
    attribute of those names: the source does not say which object is a store)."""
    found = [(line, f"imports {imported}") for line, imported in imports_in(source, name, is_package)
             if imported.split(".")[0] == "sqlite3"]
    found += [(node.lineno, f"uses .{node.attr}") for node in ast.walk(ast.parse(source))
              if isinstance(node, ast.Attribute) and node.attr in STORE_SQL_ACCESS]
    return [f"line {line} {what}" for line, what in sorted(found)]


def test_the_layers_table_is_read_and_covers_every_module():
    assert len(LAYERS) >= 10, "docs/architecture.md's Layers table was not found or lost its rows"
    for name in MODULES:
        layer_of(name)  # raises, naming the file, if no row covers it


def test_no_two_modules_import_each_other_even_round_a_circle():
    assert circles(graph()) == []


def test_imports_point_down_the_layers():
    upward = []
    for name, targets in graph().items():
        for target in targets:
            if layer_of(target) < layer_of(name):  # rows are listed top first
                upward.append(f"{name} imports {target}, a layer above it")
    assert upward == []


# The CLI's modules that gather the commands: the app registers each command module, the console
# script runs the app. Every other module of cli/ is a command group, which words what the layers
# below decide and shares only `common`.
CLI_ENTRIES = {"arena.cli.app", "arena.cli.console"}


def cli_imports_breaking_the_rules() -> list[str]:
    """A command module importing another cli module but `common`; anything outside cli/ (but
    `python -m arena`) or a benchmark importing cli/: a report assembled in the CLI cannot be shown
    by a server or a page."""
    found = []
    paths = dict(MODULES)
    paths.update({f"benchmarks.{path.stem}": path for path in sorted((REPO / "benchmarks").glob("*.py"))})
    for name, path in paths.items():
        for line, imported in imports_of(path):
            target = project_module(imported) if imported.startswith("arena") else None
            if target is None or not target.startswith("arena.cli"):
                continue
            in_cli = name.startswith("arena.cli.")
            if in_cli and name not in CLI_ENTRIES and target not in ("arena.cli", "arena.cli.common"):
                found.append(f"{name}:{line} imports {target}")
            elif not in_cli and name != "arena.__main__":
                found.append(f"{name}:{line} imports {target}")
    return found


def test_command_modules_share_only_common_and_nothing_below_imports_the_cli():
    assert cli_imports_breaking_the_rules() == []


def test_outside_packages_stay_in_their_layers():
    stray = []
    for name, path in MODULES.items():
        allowed = LAYERS[layer_of(name)][1]
        for line, imported in imports_of(path):
            top = imported.split(".")[0]
            if top in STANDARD or top == "arena":
                continue
            if not any(top == package and fnmatch.fnmatch(path.name, pattern) for package, pattern in allowed):
                stray.append(f"{path.relative_to(REPO)}:{line} imports {imported}")
    assert stray == []


def test_every_module_says_what_it_owns_and_stays_small():
    unsaid = [str(path.relative_to(REPO)) for path in MODULES.values()
              if not ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))]
    assert unsaid == []
    big = {str(path.relative_to(REPO)): n for path in MODULES.values()
           if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES}
    assert big == {}


MAX_FUNCTION_LINES = 80  # from `def` to its last line, docstring included (issue 41's review)
MAX_CLI_LINES = 1_300  # the CLI words what the layers below decide: its modules together (1,100 until the
# league's commands: freeze, run --until/--games, games --queue; then the server's: serve, submit, author)


def test_every_function_stays_short_and_the_cli_small():
    long = {}
    for path in MODULES.values():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long[f"{path.relative_to(REPO)}:{node.name}"] = lines
    assert long == {}
    cli = sum(len(path.read_text(encoding="utf-8").splitlines()) for path in (REPO / "arena" / "cli").glob("*.py"))
    assert cli < MAX_CLI_LINES, f"arena/cli/ has {cli} lines"


def test_sql_stays_in_the_results_layer():
    leaks = []
    for name, path in MODULES.items():
        where = path.relative_to(REPO).as_posix()
        if where.startswith(RESULTS_LAYER) or where in SERVER_FILE_MODULES:
            continue
        source = path.read_text(encoding="utf-8")
        leaks += [f"{where}: {leak}" for leak in sql_reached(source, name, path.name == "__init__.py")]
    assert leaks == []


def test_sql_outside_the_results_layer_is_caught():
    # A deliberately leaky module: the check must fail on it, not only pass on the real code.
    source = ("import sqlite3\nfrom sqlite3 import connect\n\n"
              "def facts(store):\n"
              "    rows = store.execute_read('SELECT COUNT(*) FROM games')\n"
              "    more = store.read_many([('SELECT 1', ())])\n"
              "    with store.reading() as db:\n"
              "        return db.execute('SELECT 1'), store._read(), store._db, rows, more\n")
    assert sql_reached(source, "arena.report.facts") == [
        "line 1 imports sqlite3", "line 2 imports sqlite3", "line 5 uses .execute_read", "line 6 uses .read_many",
        "line 7 uses .reading", "line 8 uses ._db", "line 8 uses ._read"]
    assert sql_reached("def f(store):\n    return store.done_keys()\n", "arena.report.facts") == []
    assert sql_reached("def f(store):\n    return store._rows('SELECT 1')\n", "arena.server.pages") == ["line 2 uses ._rows"]


BROAD = frozenset({"Exception", "BaseException"})


def swallowed(source: str) -> list[str]:
    """Handlers that catch everything and do nothing (`except:`, `except Exception: pass`): a bug
    there vanishes without a word. A narrow exception may be passed over; a broad one must be
    said (logged) or raised on."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ExceptHandler):
            continue
        caught = node.type
        names = ([caught] if not isinstance(caught, ast.Tuple) else list(caught.elts)) if caught is not None else []
        broad = caught is None or any(isinstance(name, ast.Name) and name.id in BROAD for name in names)
        if broad and all(isinstance(statement, (ast.Pass, ast.Continue)) for statement in node.body):
            found.append(f"line {node.lineno} swallows {'everything' if caught is None else ast.unparse(caught)}")
    return found


def test_no_broad_except_is_passed_over_in_silence():
    silent = [f"{path.relative_to(REPO)}: {line}" for path in MODULES.values()
              for line in swallowed(path.read_text(encoding="utf-8"))]
    assert silent == []


def test_a_silent_broad_except_is_caught():
    source = ("try:\n    f()\nexcept Exception:\n    pass\ntry:\n    g()\nexcept:\n    pass\n"
              "for x in y:\n    try:\n        h()\n    except (OSError, BaseException):\n        continue\n"
              "try:\n    i()\nexcept OSError:\n    pass\ntry:\n    j()\nexcept Exception:\n    log.debug('j')\n")
    assert swallowed(source) == ["line 3 swallows Exception", "line 7 swallows everything",
                                 "line 12 swallows (OSError, BaseException)"]


def test_the_tests_mirror_the_layers():
    folders = {paths[0].removeprefix("arena/").rstrip("/") for paths, _ in LAYERS if paths[0].endswith("/")}
    missing = sorted(folder for folder in folders if not (REPO / "tests" / folder).is_dir())
    assert missing == []


@pytest.mark.parametrize("source, expected", [
    ("from arena.game import phase2\n", "arena.game.phase2"),
    ("from arena.game import Game\n", "arena.game"),
    ("import arena.play.referee as r\n", "arena.play.referee"),
    ("from . import phase1\n", "arena.game.phase1"),
    ("from .cards import SUIT_OF\n", "arena.game.cards"),
])
def test_imports_are_resolved_to_the_module_they_load(source, expected):
    # The checks above are only as good as this reading of an import.
    assert [project_module(imported) for _, imported in imports_in(source, "arena.game.engine")] == [expected]


def test_a_circle_and_an_upward_import_are_caught():
    # Deliberately broken graphs: the checks must fail on them, not only pass on the real one.
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]
    game, cli = layer_of("arena.game.rules"), layer_of("arena.cli.app")
    assert cli < game  # so an import of arena.cli from arena.game would be reported as upward
