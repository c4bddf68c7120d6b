"""A bot's folder as hostile input (docs/sandbox.md, issue 30): every command that reads one, given
a folder holding a link to /dev/zero, a FIFO, a link out of the folder or a link with a
300-character target, or a .gitignore, .versions.json or .check.json that is such a thing, ends
in one sentence naming the file and a non-zero exit (or, for what it can take, goes on): never a
traceback, never a hang, and `bot add` copies nothing from outside the folder.

Each command runs in this process, under a watchdog that ends the test run if one of them hangs
(a FIFO opened for reading waits for a writer for ever)."""

from __future__ import annotations

import faulthandler
import os
import shutil
from pathlib import Path

import pytest

from arena.submission.folder import FolderError
from arena.submission.versions import content_hash
from tests.bots_support import BOTS_DIR
from tests.cli_support import invoke

HANG_S = 60


@pytest.fixture(autouse=True)
def no_hang():
    faulthandler.dump_traceback_later(HANG_S, exit=True)  # a hang ends the run, saying where
    yield
    faulthandler.cancel_dump_traceback_later()


def make_bot(folder: Path, name: str = "mine") -> Path:
    shutil.copytree(BOTS_DIR / "random_bot", folder, ignore=shutil.ignore_patterns(".check.json", ".versions.json",
                                                                                   "__pycache__"))
    manifest = folder / "bot.toml"
    manifest.write_text(manifest.read_text().replace('name = "random_bot"', f'name = "{name}"'))
    return folder


def plant(folder: Path, kind: str, outside: Path) -> str:
    """Put one hostile thing into a bot folder; returns the name a refusal must give."""
    if kind == "link to /dev/zero":
        os.symlink("/dev/zero", folder / "notes.txt")
        return "notes.txt"
    if kind == "FIFO":
        os.mkfifo(folder / "pipe")
        return "pipe"
    if kind == "link out":
        os.symlink(outside, folder / "secret")
        return "secret"
    if kind == "link with a 300-character target":
        os.symlink("x" * 300, folder / "long")
        return "long"
    if kind == ".gitignore linked to /dev/zero":
        os.symlink("/dev/zero", folder / ".gitignore")
        return ".gitignore"
    if kind == "FIFO .gitignore":
        os.mkfifo(folder / ".gitignore")
        return ".gitignore"
    if kind == ".versions.json linked to /dev/zero":
        os.symlink("/dev/zero", folder / ".versions.json")
        return ".versions.json"
    if kind == "FIFO .check.json":
        os.mkfifo(folder / ".check.json")
        return ".check.json"
    raise AssertionError(kind)


KINDS = ["link to /dev/zero", "FIFO", "link out", "link with a 300-character target", ".gitignore linked to /dev/zero",
         "FIFO .gitignore", ".versions.json linked to /dev/zero", "FIFO .check.json"]
# What the version hash reads: the arena's own records (.check.json, .versions.json) are not hashed.
HASHED = KINDS[:6]


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    secret = tmp_path / "organisers-secret.txt"
    secret.write_text("the organiser's own: never copied, never read for a bot")
    return secret


def refused(result, name: str) -> bool:
    text = " ".join(result.output.split())
    return result.exit_code != 0 and name in text and "Traceback" not in text


@pytest.mark.parametrize("kind", KINDS)
def test_the_version_hash_refuses_or_takes_each_hostile_thing_in_a_sentence(tmp_path, kind, outside):
    folder = make_bot(tmp_path / "mine")
    name = plant(folder, kind, outside)
    if kind not in HASHED:
        assert content_hash(folder)  # the arena's records are not the bot's files
    elif kind == "link with a 300-character target":
        assert content_hash(folder)  # a link inside the folder, hashed as what it says, never followed
    else:
        with pytest.raises(FolderError, match=name):
            content_hash(folder)


@pytest.mark.parametrize("kind", KINDS)
def test_bot_check_and_bot_add_refuse_a_hostile_folder_and_copy_nothing_from_outside(tmp_path, kind, outside,
                                                                                       monkeypatch):
    folder = make_bot(tmp_path / "mine")
    name = plant(folder, kind, outside)
    bots = tmp_path / "ws" / "bots"
    bots.mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "ws")
    checked = invoke("bot", "check", str(folder), "--games", "1")
    added = invoke("bot", "add", str(folder), "--games", "1")
    if kind == "link with a 300-character target":  # a link of its own, which it may hold
        assert checked.exit_code == 0 and added.exit_code == 0, checked.output + added.output
        assert os.readlink(bots / "mine" / "long") == "x" * 300
        return
    if kind in HASHED:
        assert refused(checked, name), checked.output
    else:  # the arena's records of a folder outside the workspace: the check neither reads nor writes them
        assert checked.exit_code == 0, checked.output
    assert refused(added, name), added.output  # which carries them into the workspace
    copied = [p for p in bots.rglob("*")]
    assert not any(p.is_file() and not p.is_symlink() and outside.read_text() in p.read_text(errors="replace")
                   for p in copied), copied


@pytest.mark.parametrize("kind", KINDS)
def test_bot_list_names_the_file_in_the_bots_row_and_exits_non_zero(tmp_path, kind, outside):
    folder = make_bot(tmp_path / "bots" / "mine")
    make_bot(tmp_path / "bots" / "fine", "fine")
    name = plant(folder, kind, outside)
    listed = invoke("bot", "list", "--dir", str(tmp_path / "bots"))
    cells = "".join(ch for ch in listed.output if not ch.isspace() and ch not in "│")
    if kind == "link with a 300-character target":
        assert listed.exit_code == 0, listed.output
        return
    assert listed.exit_code == 1 and name in cells and "fine" in cells, listed.output


@pytest.mark.parametrize("kind", HASHED)
def test_tournament_run_standings_games_and_play_refuse_a_hostile_folder_in_a_sentence(tmp_path, kind, outside):
    folder = make_bot(tmp_path / "mine")
    config = tmp_path / "t.toml"
    config.write_text(f'bots = ["random_bot", "heuristic_bot", "{folder}"]\ndeals = 1\nseed = 5\n')
    # Let in unchecked: this test's own bot, never checked here unless another test happened to
    # check the same files first (in one process it had; in two, it had not).
    assert invoke("tournament", "run", str(config), "--workers", "1", "--unchecked").exit_code == 0  # results to read
    name = plant(folder, kind, outside)
    commands = [["tournament", "run", str(config), "--workers", "1", "--unchecked"], ["standings", str(config)],
                ["games", str(config)], ["play", str(folder), "random_bot", "--games", "1"]]
    for command in commands:
        result = invoke(*command)
        if kind == "link with a 300-character target":
            # Taken: a link of the bot's own. Its version changed, which the run and the reports say.
            assert "Traceback" not in result.output, command
            continue
        assert refused(result, name), (command, result.output)


def test_a_link_inside_the_folder_is_copied_and_hashed_as_a_link(tmp_path):
    folder = make_bot(tmp_path / "mine")
    os.symlink("bot.py", folder / "alias.py")
    before = content_hash(folder)
    (folder / "bot.py").write_text((folder / "bot.py").read_text() + "\n# changed\n")
    after = content_hash(folder)
    assert before != after  # bot.py changed; the link is the same words
    bots = tmp_path / "bots"
    bots.mkdir()
    added = invoke("bot", "add", str(folder), "--games", "1", "--dir", str(bots))
    assert added.exit_code == 0, added.output
    assert os.readlink(bots / "mine" / "alias.py") == "bot.py"


NON_ROOT = """
import json, sys
sys.path.insert(0, {root!r})
from tests.cli_support import invoke
results = {{}}
for name, command in (("check", ["bot", "check", {folder!r}, "--games", "1"]), ("list", ["bot", "list", "--dir", {bots!r}])):
    result = invoke(*command)
    results[name] = [result.exit_code, result.output]
print(json.dumps(results))
"""


@pytest.mark.skipif(os.getuid() != 0 or shutil.which("bwrap") is None,
                    reason="runs the arena as another user in a user namespace: needs root and bubblewrap")
def test_a_folder_an_ordinary_arena_cannot_read_is_named_not_a_traceback(tmp_path):
    """Under an arena that is not root, a bot folder holding a folder it may not enter, or a link
    into one, gave tracebacks in six commands."""
    import json
    import subprocess
    import sys

    from tests.bots_support import ROOT

    bots = tmp_path / "bots"
    folder = make_bot(bots / "mine")
    closed = folder / "closed"
    closed.mkdir()
    (closed / "x.py").write_text("x = 1\n")
    os.chown(closed, 65534, 65534)  # another user's, mode 0700: the arena (uid 1000 below) cannot enter
    os.chmod(closed, 0o700)
    os.chmod(tmp_path, 0o755)
    code = NON_ROOT.format(root=str(ROOT), folder=str(folder), bots=str(bots))
    done = subprocess.run([shutil.which("bwrap"), "--unshare-user", "--uid", "1000", "--gid", "1000", "--dev-bind", "/",
                           "/", "--", sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(done.stdout.strip().splitlines()[-1])
    for name, (code_, output) in results.items():
        text = "".join(output.split())
        assert code_ != 0 and "closed:cannotread(Permissiondenied)" in text.replace("│", ""), (name, output)
        assert "Traceback" not in output


# ---------------------------------------------------------------- from a hostile author's trial


def test_a_bot_named_dot_or_dot_dot_is_refused_and_bot_add_writes_only_inside_bots(tmp_path, monkeypatch):
    """`name = ".."` with `bot add --replace` removed the whole workspace: the name is a folder's."""
    ws = tmp_path / "ws"
    (ws / "bots").mkdir(parents=True)
    (ws / "tournaments").mkdir()
    keep = ws / "tournaments" / "keep.txt"
    keep.write_text("the organiser's")
    monkeypatch.chdir(ws)
    for name in ("..", ".", "...", ".hidden"):
        folder = make_bot(tmp_path / f"sub-{len(name)}-{name.strip('.') or 'dots'}", name)
        added = invoke("bot", "add", str(folder), "--replace", "--games", "1")
        said = " ".join(added.output.split())
        assert added.exit_code == 2 and "is not a valid bot name" in said, said
    assert keep.read_text() == "the organiser's" and (ws / "bots").is_dir()


def test_a_gitignore_of_too_many_patterns_is_refused_at_once(tmp_path):
    folder = make_bot(tmp_path / "mine")
    (folder / ".gitignore").write_text("\n".join(f"**/x{i:06d}*y*z?[ab]q" for i in range(40_000)) + "\n")
    with pytest.raises(FolderError, match=r"\.gitignore: 40,000 patterns; a bot's \.gitignore may hold at most 1,000"):
        content_hash(folder)


def test_nesting_too_deep_for_the_parser_is_a_sentence_not_a_traceback(tmp_path):
    folder = make_bot(tmp_path / "bots" / "mine")
    deep = "[" * 100_000 + "]" * 100_000
    (folder / ".check.json").write_text(deep)
    (folder / ".versions.json").write_text(deep)
    listed = invoke("bot", "list", "--dir", str(tmp_path / "bots"))
    assert listed.exit_code == 0 and "mine" in listed.output  # the arena's records, unreadable: as if none
    (folder / ".check.json").write_text('{"version": {"x": 1}, "passed": true}')  # a hand-made record
    assert invoke("bot", "list", "--dir", str(tmp_path / "bots")).exit_code == 0
    (folder / "bot.toml").write_text(f'name = "mine"\ncommand = ["x"]\nx = {deep}\n')
    checked = invoke("bot", "check", str(folder))
    assert checked.exit_code == 2 and "nested too deeply" in checked.output, checked.output


def test_escape_sequences_in_a_file_name_never_reach_the_terminal(tmp_path):
    folder = make_bot(tmp_path / "mine")
    os.mkfifo(folder / "\x1b]2;HACKED\x07\x1b[31mred")
    checked = invoke("bot", "check", str(folder))
    assert checked.exit_code != 0 and "\x1b" not in checked.output and "\\x1b]2;HACKED" in checked.output


def test_a_hard_link_to_a_file_outside_the_folder_is_refused(tmp_path, outside):
    folder = make_bot(tmp_path / "mine")
    os.link(outside, folder / "copy.txt")
    with pytest.raises(FolderError, match="copy.txt: a hard link to a file outside the bot's folder"):
        content_hash(folder)
    os.unlink(folder / "copy.txt")
    os.link(folder / "bot.py", folder / "alias.py")  # one of its own files: taken
    assert content_hash(folder)


def test_a_sparse_file_stays_sparse_in_the_prepared_copy(tmp_path):
    from arena.submission.lookup import load_manifest
    from arena.submission.prepared import prepare_bot

    folder = make_bot(tmp_path / "mine")
    with open(folder / "weights.bin", "wb") as f:
        f.truncate(256 << 20)  # 256 MB, nothing on disk
    copy = prepare_bot(load_manifest(folder), cache=tmp_path / "cache").manifest.directory / "weights.bin"
    assert copy.stat().st_size == 256 << 20 and copy.stat().st_blocks * 512 < 1 << 20


def test_bot_add_says_when_a_name_now_hides_a_bundled_bot(tmp_path):
    folder = make_bot(tmp_path / "mine", "heuristic_bot")
    added = invoke("bot", "add", str(folder), "--games", "1", "--dir", str(tmp_path / "bots"))
    assert added.exit_code == 0 and "heuristic_bot is also a bundled bot" in " ".join(added.output.split())
