"""arena.game is pure: no imports from the rest of the project, no I/O or randomness at import."""

from __future__ import annotations

import ast
import pathlib

import arena.game

PACKAGE = pathlib.Path(arena.game.__file__).parent
MODULES = sorted(PACKAGE.glob("*.py"))
FORBIDDEN_IMPORTS = {"subprocess", "socket", "zmq", "rich", "typer", "sqlite3", "logging", "time", "os", "sys",
                     "threading", "asyncio", "pathlib", "io", "tomllib", "tomli_w", "json"}
FORBIDDEN_CALLS = {"open", "print", "input", "exec", "eval", "__import__"}


def _imports(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "relative imports are not used in arena.game"
            yield node.module or ""


def test_modules_found():
    names = {p.stem for p in MODULES}
    assert {"cards", "rules", "moves", "state", "phase1", "phase2", "view", "events", "outcome",
            "transcript", "scoring", "seeds"} <= names


def test_imports_only_stdlib_and_arena_game():
    for path in MODULES:
        for name in _imports(ast.parse(path.read_text(), str(path))):
            top = name.split(".")[0]
            if top == "arena":
                assert name == "arena.game" or name.startswith("arena.game."), f"{path.name} imports {name}"
            else:
                assert top not in FORBIDDEN_IMPORTS, f"{path.name} imports {name}"
                assert top in {"__future__", "random", "dataclasses", "enum", "typing", "hashlib"}, \
                    f"{path.name} imports {name}"


def _module_level_calls(tree: ast.Module):
    """Calls that run at import: in module-level statements, not inside function bodies."""
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for deco in stmt.decorator_list:
                yield from (n for n in ast.walk(deco) if isinstance(n, ast.Call))
            continue
        if isinstance(stmt, ast.ClassDef):
            for sub in stmt.body:
                if not isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    yield from (n for n in ast.walk(sub) if isinstance(n, ast.Call))
            continue
        yield from (n for n in ast.walk(stmt) if isinstance(n, ast.Call))


def test_no_io_or_randomness_at_import():
    for path in MODULES:
        tree = ast.parse(path.read_text(), str(path))
        for call in _module_level_calls(tree):
            func = call.func
            if isinstance(func, ast.Name):
                assert func.id not in FORBIDDEN_CALLS, f"{path.name}:{call.lineno} calls {func.id}"
            elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                assert func.value.id != "random", f"{path.name}:{call.lineno} calls random.{func.attr}"


def test_randomness_only_from_seeded_instances():
    """R7: every random draw comes from random.Random(seed), never the global generator."""
    for path in MODULES:
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "random":
                assert node.attr == "Random", f"{path.name}:{node.lineno} uses random.{node.attr}"
