"""arena/submission/ (manifest, lookup, versions): loading the bundled manifests, argv, builds, and every error message."""

from __future__ import annotations

import os
import re
import sys
import time
import uuid
from pathlib import Path

import pytest

from arena.submission.prepared import prepare_bot
from arena.submission.manifest import ALLOWED_KEYS, BotManifest, ManifestError
from arena.submission.workspace import BUNDLED_BOTS_DIR
from arena.submission.lookup import list_bots, load_manifest

BUNDLED = ["random_bot", "heuristic_bot", "c_bot", "js_bot", "shell_bot", "zmq_bot"]


def write(tmp_path: Path, text: str, folder: str = "mybot") -> Path:
    d = tmp_path / folder
    d.mkdir(parents=True, exist_ok=True)
    p = d / "bot.toml"
    p.write_text(text, encoding="utf-8")
    return p


# ---- the bundled bots ------------------------------------------------------------------------

@pytest.mark.parametrize("name", BUNDLED)
def test_bundled_manifest_loads(name: str) -> None:
    m = load_manifest(name)
    assert isinstance(m, BotManifest)
    assert m.name == name
    assert m.directory == BUNDLED_BOTS_DIR / name
    assert m.path == BUNDLED_BOTS_DIR / name / "bot.toml"
    assert m.command and m.transport in ("pipe", "zmq")
    assert m.language and m.description
    # the three ways to name a bot agree
    assert load_manifest(BUNDLED_BOTS_DIR / name) == m
    assert load_manifest(str(BUNDLED_BOTS_DIR / name / "bot.toml")) == m


def test_list_bots_finds_all_bundled_sorted() -> None:
    names = [m.name for m in list_bots()]
    assert set(BUNDLED) <= set(names)
    assert names == sorted(names)


def test_python_bots_use_the_arena_interpreter() -> None:
    for name in ("random_bot", "heuristic_bot"):
        argv = load_manifest(name).argv()
        assert argv[0] == sys.executable
        assert argv[1] == "bot.py"


def test_relative_program_resolves_against_bot_folder() -> None:
    m = load_manifest("c_bot")
    assert m.build == ("make", "-s")
    assert m.argv() == [str(BUNDLED_BOTS_DIR / "c_bot" / "c_bot")]
    # a program name without a slash is looked up on PATH, unchanged
    assert load_manifest("js_bot").argv() == ["node", "bot.js"]


def test_zmq_bot_manifest() -> None:
    m = load_manifest("zmq_bot")
    assert m.transport == "zmq" and m.zmq_endpoint_kind == "ipc" and m.endpoint is None
    assert "{endpoint}" in m.argv()
    assert not m.is_service


def test_zmq_service_example_manifests() -> None:
    m = load_manifest(BUNDLED_BOTS_DIR / "zmq_bot" / "service.toml")
    assert m.is_service and m.command == () and m.endpoint == "tcp://127.0.0.1:5555"
    assert m.argv() == []
    c = load_manifest(BUNDLED_BOTS_DIR / "zmq_bot" / "service_curve.toml")
    assert c.server_public_key == BUNDLED_BOTS_DIR / "zmq_bot" / "keys" / "server.key"
    assert c.client_secret_key == BUNDLED_BOTS_DIR / "zmq_bot" / "keys" / "client.key_secret"


def test_bots_dir_argument(tmp_path: Path) -> None:
    write(tmp_path, 'name = "mine"\ncommand = ["{python}", "bot.py"]\n', folder="mine")
    m = load_manifest("mine", bots_dir=tmp_path)
    assert m.transport == "pipe" and m.language == "" and m.build == ()
    assert [b.name for b in list_bots(tmp_path)] == ["mine"]
    assert list_bots(tmp_path / "nowhere") == []


# ---- errors ------------------------------------------------------------------------------------

def test_missing_bot_name_lists_known_bots(tmp_path: Path) -> None:
    write(tmp_path, 'name = "mine"\ncommand = ["x"]\n', folder="mine")
    with pytest.raises(ManifestError) as e:
        load_manifest("nobody", bots_dir=tmp_path)
    msg = str(e.value)
    assert "nobody" in msg and "bot.toml" in msg and "mine" in msg


def test_missing_file_and_folder_without_manifest(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match="no such manifest"):
        load_manifest(tmp_path / "nowhere" / "bot.toml")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ManifestError, match=r"empty.*bot\.toml|bot\.toml.*empty"):
        load_manifest(tmp_path / "empty")


def test_bad_toml_names_file_and_line(tmp_path: Path) -> None:
    p = write(tmp_path, 'name = "x"\ncommand = ["a"\ntransport = "pipe"\n')
    with pytest.raises(ManifestError) as e:
        load_manifest(p)
    msg = str(e.value)
    assert str(p) in msg and "invalid TOML" in msg and "line" in msg


def test_not_utf8(tmp_path: Path) -> None:
    p = tmp_path / "bot.toml"
    p.write_bytes(b'name = "\xff"\n')
    with pytest.raises(ManifestError, match="UTF-8"):
        load_manifest(p)
    p.write_bytes(b'# bot\nname = "caf\xe9"\n')  # Latin-1: the message says where, in lines and columns
    with pytest.raises(ManifestError, match="byte 0xe9 at line 2, column 12; save the file as UTF-8"):
        load_manifest(p)


def test_a_byte_order_mark_is_not_a_toml_error(tmp_path: Path) -> None:
    """Some Windows editors start UTF-8 files with a BOM; TOML parsers call it an invalid statement."""
    p = write(tmp_path, 'name = "x"\ncommand = ["a"]\n')
    p.write_bytes(b"\xef\xbb\xbf" + p.read_bytes())
    assert load_manifest(p).name == "x"
    p.write_bytes(b"\xef\xbb\xbfname = \"caf\xe9\"\n")  # a BOM, then Latin-1: placed as without the BOM
    with pytest.raises(ManifestError, match="byte 0xe9 at line 1, column 12"):
        load_manifest(p)


def test_unknown_key_lists_allowed(tmp_path: Path) -> None:
    p = write(tmp_path, 'name = "x"\ncommand = ["a"]\ncomand = ["typo"]\n')
    with pytest.raises(ManifestError) as e:
        load_manifest(p)
    msg = str(e.value)
    assert str(p) in msg and "'comand'" in msg
    for key in ALLOWED_KEYS:
        assert key in msg


@pytest.mark.parametrize("text, key, expected", [
    ('name = 3\ncommand = ["a"]\n', "name", "expected a string"),
    ('name = "x"\ncommand = "python bot.py"\n', "command", "not a shell string"),
    ('name = "x"\ncommand = ["a", 1]\n', "command", "list of strings"),
    ('name = "x"\ncommand = []\n', "command", "non-empty"),
    ('name = "x"\ncommand = ["a"]\nbuild = "make"\n', "build", "list of strings"),
    ('name = "x"\ncommand = ["a"]\ntransport = "tcp"\n', "transport", "pipe, zmq"),
    ('name = "x"\ncommand = ["a"]\nlanguage = ["c"]\n', "language", "expected a string"),
    ('name = "x"\ncommand = ["a"]\ndescription = 1.5\n', "description", "expected a string"),
    ('name = "has space"\ncommand = ["a"]\n', "name", "not a valid bot name"),
    ('name = ""\ncommand = ["a"]\n', "name", "not a valid bot name"),
    (f'name = "{"n" * 33}"\ncommand = ["a"]\n', "name", "1-32 characters"),
    ('command = ["a"]\n', "name", "missing"),
    ('name = "x"\n', "command", "pipe bot needs a command"),
    ('name = "x"\ncommand = ["a"]\nendpoint = "tcp://h:1"\n', "endpoint", "only for transport"),
    ('name = "x"\ntransport = "zmq"\n', "endpoint", "needs a command"),
    ('name = "x"\ntransport = "zmq"\ncommand = ["a"]\nendpoint = "tcp://h:1"\n', "endpoint", "not both"),
    ('name = "x"\ntransport = "zmq"\nendpoint = "tcp://127.0.0.1:9"\nbuild = "make"\n', "build", "list of strings"),
    ('name = "x"\ntransport = "zmq"\nendpoint = "h:1"\n', "endpoint", "ZeroMQ endpoint"),
    ('name = "x"\ntransport = "zmq"\ncommand = ["a"]\nzmq_endpoint_kind = "udp"\n', "zmq_endpoint_kind", "ipc, tcp"),
    ('name = "x"\ntransport = "zmq"\nendpoint = "tcp://h:1"\nserver_public_key = "s.key"\n',
     "client_secret_key", "needs both"),
    ('name = "x"\ntransport = "zmq"\nendpoint = "tcp://10.0.0.5:5555"\n', "server_public_key", "CurveZMQ is required"),
])
def test_invalid_values_name_file_and_key(tmp_path: Path, text: str, key: str, expected: str) -> None:
    p = write(tmp_path, text)
    with pytest.raises(ManifestError) as e:
        load_manifest(p)
    msg = str(e.value)
    assert str(p) in msg, msg
    assert f"'{key}'" in msg, msg
    assert expected in msg, msg


def test_list_bots_reports_a_broken_manifest(tmp_path: Path) -> None:
    write(tmp_path, 'name = "ok"\ncommand = ["a"]\n', folder="ok")
    write(tmp_path, 'name = "bad"\n', folder="bad")
    with pytest.raises(ManifestError, match="bad"):
        list_bots(tmp_path)


# ---- build -----------------------------------------------------------------------------------
# A build runs in the bot's prepared copy (arena/submission/prepared.py), never in its folder.

@pytest.fixture
def build_bot(tmp_path: Path):
    def build(manifest, **options):
        return prepare_bot(manifest, cache=tmp_path / "cache", **options)
    return build


def test_build_runs_in_the_prepared_copy_and_leaves_the_bot_folder_as_it_was(tmp_path: Path, build_bot) -> None:
    p = write(tmp_path, 'name = "x"\ncommand = ["./out"]\n'
                        'build = ["{python}", "-c", "open(\'built\', \'w\').write(\'ok\')"]\n')
    prepared = build_bot(load_manifest(p))
    assert (prepared.manifest.directory / "built").read_text() == "ok"
    assert not (p.parent / "built").exists()
    assert prepared.manifest.directory != p.parent and prepared.built_now
    again = build_bot(load_manifest(p))  # once per version
    assert not again.built_now and again.build == prepared.build and again.version == prepared.version


def test_build_without_step_is_a_copy(tmp_path: Path, build_bot) -> None:
    prepared = build_bot(load_manifest(write(tmp_path, 'name = "x"\ncommand = ["a"]\n')))
    assert (prepared.manifest.directory / "bot.toml").is_file() and prepared.build


def test_build_failure_shows_output_tail(tmp_path: Path, build_bot) -> None:
    p = write(tmp_path, 'name = "x"\ncommand = ["a"]\n'
                        'build = ["{python}", "-c", "import sys; print(\'compiler says no\'); sys.exit(2)"]\n')
    with pytest.raises(ManifestError) as e:
        build_bot(load_manifest(p))
    msg = str(e.value)
    assert str(p) in msg and "'build'" in msg and "exit code 2" in msg and "compiler says no" in msg


def test_a_build_leaves_no_set_id_or_writable_file_in_what_runs(tmp_path: Path, build_bot) -> None:
    """A root arena ran the build as the folder's owner: a hostile build made a set-uid-root copy
    of a program there, a way to root on the organiser's machine."""
    script = ("import os, shutil, sys; shutil.copy(sys.executable, 'suid'); os.chmod('suid', 0o6755); "
              "os.makedirs('sub', exist_ok=True); shutil.copy(sys.executable, 'sub/sgid'); os.chmod('sub/sgid', 0o2777); "
              "print('x' * 300000)")  # more output than the tail it quotes
    p = write(tmp_path, f'name = "x"\ncommand = ["a"]\nbuild = ["{{python}}", "-c", "{script}"]\n')
    folder = build_bot(load_manifest(p)).manifest.directory
    for name in ("suid", "sub/sgid"):
        info = (folder / name).stat()
        assert info.st_mode & 0o7777 == 0o555, (name, oct(info.st_mode))
        assert info.st_uid == os.getuid(), name  # the arena's, whoever the build ran as


def test_build_program_missing(tmp_path: Path, build_bot) -> None:
    p = write(tmp_path, 'name = "x"\ncommand = ["a"]\nbuild = ["no-such-compiler-xyz"]\n')
    with pytest.raises(ManifestError, match="not found"):
        build_bot(load_manifest(p))


def test_build_timeout(tmp_path: Path, build_bot) -> None:
    p = write(tmp_path, 'name = "x"\ncommand = ["a"]\nbuild = ["{python}", "-c", "import time; time.sleep(5)"]\n')
    with pytest.raises(ManifestError, match="more than"):
        build_bot(load_manifest(p), timeout_s=0.5)


def _sleepers(tag: str, within_s: float = 5.0) -> list[str]:
    """Processes whose command line ends with tag, once they had within_s to die (SIGKILL of a
    process that is not our child is asynchronous: it can linger a moment on a busy machine)."""
    deadline = time.monotonic() + within_s
    while True:
        found = [p for p in os.listdir("/proc") if p.isdigit() and _cmdline(p).endswith(tag)]
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def _cmdline(pid: str) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def test_build_that_leaves_a_background_process_ends_with_the_build(tmp_path: Path, build_bot) -> None:
    # It held the output pipe open, so the build "took more than 120 s" and its child lived on.
    tag = f"{uuid.uuid4().int % 10**6 + 1000}"
    p = write(tmp_path, f'name = "x"\ncommand = ["a"]\nbuild = ["sh", "-c", "sleep {tag} & echo built"]\n')
    started = time.monotonic()
    build_bot(load_manifest(p), timeout_s=20)
    assert time.monotonic() - started < 10
    assert _sleepers(f"sleep {tag}") == []


def test_build_that_leaves_a_process_in_a_session_of_its_own_ends_with_the_build(tmp_path: Path, build_bot) -> None:
    # setsid leaves the build's process group: killing the group alone left it running. The
    # step waits until its child is in the new session, so the test does not race the kill.
    tag = f"{uuid.uuid4().int % 10**6 + 1000}"
    step = ("import os; r, w = os.pipe(); pid = os.fork(); pid or (os.setsid(), os.write(w, b'x'), "
            f"os.execvp('sleep', ['sleep', '{tag}'])); os.read(r, 1)")
    p = write(tmp_path, f'name = "x"\ncommand = ["a"]\nbuild = ["{{python}}", "-c", "{step}"]\n')
    build_bot(load_manifest(p), timeout_s=20)
    assert _sleepers(f"sleep {tag}") == []


def test_build_timeout_ends_the_whole_build(tmp_path: Path, build_bot) -> None:
    tag = f"{uuid.uuid4().int % 10**6 + 1000}"
    p = write(tmp_path, f'name = "x"\ncommand = ["a"]\nbuild = ["sh", "-c", "sleep {tag} & sleep {tag}"]\n')
    with pytest.raises(ManifestError, match="more than 0.5 s"):
        build_bot(load_manifest(p), timeout_s=0.5)
    assert _sleepers(f"sleep {tag}") == []


def test_a_program_given_for_a_manifest_is_named_as_such(tmp_path: Path) -> None:
    """`arena play mybot/bot.py ...` got "invalid TOML: Expected '=' after a key"."""
    program = write(tmp_path, 'name = "x"\ncommand = ["a"]\n').parent / "bot.py"
    program.write_text("import sys\nprint('hello name=x')\n")
    with pytest.raises(ManifestError, match=f"not a bot manifest .*; its folder has one: {re.escape(str(program.parent))}$"):
        load_manifest(program)
    lone = tmp_path / "elsewhere" / "bot.py"
    lone.parent.mkdir()
    lone.write_text("")
    with pytest.raises(ManifestError, match="a bot.toml beside the program says how to run it"):
        load_manifest(lone)


def test_a_path_is_a_path_even_when_a_registered_bot_has_its_name(tmp_path: Path, monkeypatch) -> None:
    """`bot add NAME` from the folder holding NAME passes a Path: it once meant the registered
    copy of that name, which was then re-registered without the edits."""
    registry, work = tmp_path / "registry", tmp_path / "work"
    write(registry, 'name = "mybot"\ncommand = ["registered"]\n')
    write(work, 'name = "mybot"\ncommand = ["edited"]\n')
    monkeypatch.chdir(work)
    assert load_manifest("mybot", bots_dir=registry).command[0] == "registered"  # a name: the registry first
    assert load_manifest(Path("mybot"), bots_dir=registry).command[0] == "edited"
