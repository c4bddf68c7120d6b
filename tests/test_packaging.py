"""The arena as an installed tool: the wheel carries every package and the bundled bots' sources (no
build outputs), and installed from it into a fresh venv (not editable) the arena works from an empty
folder: init, a tournament, standings, a new bot and its check, and a match with the C bot, which is
built in the per-user cache (README, "Install as a tool")."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

from arena.submission.versions import bot_files

REPO = Path(__file__).resolve().parents[1]
BOTS = REPO / "bots"


def test_the_package_list_names_every_package_of_arena():
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {"arena"} | {f"arena.{p.parent.name}" for p in (REPO / "arena").glob("*/__init__.py")}
    assert listed == found | {"arena.bundled_bots", "arena.guide", "arena.guide.docs"}  # package data


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # Built from a copy: setuptools leaves a build/ folder in the tree it builds, and takes what an
    # earlier build left there. Build outputs in bots/ (a built c_bot) are copied: they must stay out.
    source = tmp_path_factory.mktemp("source") / "arena"
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(".venv", "build", "dist", ".git", "*.egg-info",
                                                                "__pycache__", ".pytest_cache", "*.sqlite*"))
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(source)],
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stdout + built.stderr
    [found] = out.glob("*.whl")
    return found


def test_the_wheel_carries_the_bundled_bots_sources_and_no_build_outputs(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    bundled = {n.removeprefix("arena/bundled_bots/") for n in names if n.startswith("arena/bundled_bots/")}
    sources = {f"{bot.name}/{rel.as_posix()}" for bot in BOTS.iterdir() if bot.is_dir() for rel in bot_files(bot)}
    assert bundled == sources  # every file a bot's version hashes, and nothing else
    assert not any(n.endswith((".check.json", ".versions.json", ".pyc")) or "/c_bot/c_bot" == n[-12:] for n in names)
    assert "arena/cli/app.py" in names and not any(n.startswith(("tests/", "bots/")) for n in names)
    assert {"arena/guide/protocol.md", "arena/guide/docs/rules.md", "arena/guide/docs/sandbox.md",
            "arena/guide/docs/organising.md", "arena/guide/docs/cluster.md"} <= names
    # The replay page's own script and style, which every page carries or a report's folder shares.
    assert {"arena/report/replay_assets/engine.js", "arena/report/replay_assets/page.js",
            "arena/report/replay_assets/page.css"} <= names


def test_installed_from_the_wheel_the_arena_works_from_an_empty_folder(wheel, tmp_path):
    venv = tmp_path / "venv"
    # Without a pip of its own (ensurepip took 4 to 7 s): this pip installs into it (--python). The
    # wheel alone: its dependencies are seen from the test's own environment through a .pth file, not
    # installed again (12 s of the suite). That file adds the folder only: the editable arena there is
    # never installed in this venv (its .pth files are not read), as the check of arena.__file__ shows.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    installed = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q",
                                "--no-deps", str(wheel)], capture_output=True, text=True, timeout=600)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    site = next(venv.glob("lib/python*/site-packages"))
    (site / "zz_test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    found = subprocess.run([str(venv / "bin" / "python"), "-c", "import arena, typer, zmq; print(arena.__file__)"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert found.returncode == 0 and found.stdout.startswith(str(site)), found.stdout + found.stderr
    arena = str(venv / "bin" / "arena")
    empty = tmp_path / "empty"
    empty.mkdir()
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "COLUMNS": "200"}
    env.pop("VIRTUAL_ENV", None)

    def run(*args: str) -> str:
        done = subprocess.run([arena, *args], cwd=empty, env=env, capture_output=True, text=True, timeout=600)
        output = done.stdout + done.stderr
        assert done.returncode == 0 and "Traceback" not in output, f"arena {' '.join(args)}:\n{output}"
        return output

    assert "arena tournament run tournaments/demo.toml" in run("init")
    assert "96 games stored" in run("tournament", "run", "tournaments/demo.toml")
    standings = run("standings", "tournaments/demo.toml")
    assert all(name in standings for name in ("my_bot", "random_bot", "heuristic_bot", "shell_bot"))
    run("replay", "tournaments/demo.toml", "1", "-o", "game1.html")  # its script from the installed package
    page = (empty / "game1.html").read_text()
    assert "function replaySteps" in page and '<main data-step="0"' in page
    (empty / "game1.html").unlink()
    run("bot", "new", "second")
    assert "all checks passed" in run("bot", "check", "second", "--games", "2")
    assert "Match result after 2 games" in run("play", "random_bot", "heuristic_bot", "c_bot", "--games", "2")
    listing = run("bot", "list")
    assert "my_bot" in listing and "workspace" in listing and "bundled" in listing

    package = next(venv.glob("lib/python*/site-packages/arena/bundled_bots"))
    assert not (package / "c_bot" / "c_bot").exists()  # built in the cache, not in the package
    assert list((tmp_path / "cache" / "skitgubbe-arena" / "builds").glob("c_bot-*/c_bot"))
    assert not list(package.glob("*/.check.json")) and not list(package.glob("*/.versions.json"))
    assert sorted(p.name for p in empty.iterdir()) == [".gitignore", "bots", "protocol.md", "tournaments"]
    assert "How a bot talks" in run("docs", "protocol") or "bot protocol" in run("docs", "protocol")
