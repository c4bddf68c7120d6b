"""`arena bot new/check/add/list` through the CLI, the scaffolds, and the check's failure reasons."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from arena.check.runner import check_bot
from arena.cli.app import app
from arena.submission.versions import content_hash
from arena.submission.lookup import load_manifest
from tests.bots_support import HOSTILE_BOTS, hostile_bot

runner = CliRunner()
# Numbered from 1: the hostile bots that crash or hang in even or odd games count on it.
FAST = dict(games=2, move_timeout_s=0.3, startup_timeout_s=1.5, quit_wait_s=0.5, first_number=1)


def run(*args: str):
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    # Rich wraps at the terminal width: compare on single-spaced text
    return SimpleNamespace(exit_code=result.exit_code, output=" ".join(result.output.split()), raw=result.output)


@pytest.mark.parametrize("lang,needs", [("python", None), ("c", "cc"), ("js", "node"), ("shell", "awk"), ("java", "javac")])
def test_scaffold_passes_check(tmp_path, lang, needs):
    if needs and shutil.which(needs) is None:
        pytest.skip(f"{needs} is not installed: cannot run a {lang} bot")
    result = run("bot", "new", f"my_{lang}", "--lang", lang, "--dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert (tmp_path / f"my_{lang}" / "bot.toml").is_file()
    result = run("bot", "check", f"my_{lang}", "--dir", str(tmp_path), "--games", "2")
    assert result.exit_code == 0, result.output
    assert "FAIL" not in result.output and "all checks passed" in result.output
    stored = json.loads((tmp_path / f"my_{lang}" / ".check.json").read_text())
    assert stored["passed"] is True and stored["date"]


def test_check_says_when_the_hello_name_is_not_the_manifests(tmp_path):
    assert run("bot", "new", "mine", "--dir", str(tmp_path)).exit_code == 0
    manifest = tmp_path / "mine" / "bot.toml"
    manifest.write_text(manifest.read_text().replace('name = "mine"', 'name = "renamed"'))
    report = check_bot(manifest, **FAST)
    handshake = next(r for r in report.results if r.name == "handshake")
    assert handshake.passed and "hello name=mine" in handshake.detail
    assert "results use the manifest's name, renamed" in handshake.detail


def test_new_rejects_bad_input(tmp_path):
    assert run("bot", "new", "ok", "--dir", str(tmp_path)).exit_code == 0
    again = run("bot", "new", "ok", "--dir", str(tmp_path))
    assert again.exit_code != 0 and "already exists" in again.output
    bad = run("bot", "new", "no way", "--dir", str(tmp_path))
    assert bad.exit_code != 0 and "not a valid bot name" in bad.output
    long = run("bot", "new", "x" * 33, "--dir", str(tmp_path))
    assert long.exit_code != 0 and "not a valid bot name" in long.output
    lang = run("bot", "new", "other", "--lang", "cobol", "--dir", str(tmp_path))
    assert lang.exit_code != 0 and "'cobol' is not one of 'python', 'c', 'js', 'shell', 'java'" in lang.output
    assert not (tmp_path / "other").exists()


def test_check_missing_bot_is_a_clear_error(tmp_path):
    result = run("bot", "check", "nosuch", "--dir", str(tmp_path))
    assert result.exit_code == 2 and "no bot named 'nosuch'" in result.output
    result = run("bot", "add", str(tmp_path / "nowhere"), "--dir", str(tmp_path))
    assert result.exit_code == 2 and "no such bot folder" in result.output


def failed(report) -> dict[str, str]:
    return {r.name: r.detail for r in report.results if not r.passed}


def python_bot(tmp_path: Path, name: str, source: str) -> Path:
    """A bot folder in tmp_path: bot.py holding `source`, run by the arena's Python."""
    folder = tmp_path / name
    folder.mkdir()
    (folder / "bot.py").write_text(source)
    (folder / "bot.toml").write_text(f'name = "{name}"\ncommand = ["{{python}}", "bot.py"]\n')
    return folder


def test_check_fails_slow_start():
    report = check_bot(hostile_bot("slow_start"), **FAST)
    assert not report.passed and "handshake" in failed(report)
    assert "no hello within 1.5 s" in failed(report)["handshake"]
    assert any("> hello protocol=1" in line for r in report.results for line in r.evidence_lines)


def test_check_says_why_a_hello_ending_in_cr_alone_never_arrives():
    """It was reported as a bot that sent nothing at all ("is stdout flushed?")."""
    report = check_bot(hostile_bot("cr_lines"), **FAST)
    assert "no hello within 1.5 s (it sent 28 bytes with lines ended by \\r alone; a line must end in \\n)" \
        in failed(report)["handshake"]


def test_check_shows_what_a_bot_wrote_after_a_bad_hello():
    """A runtime that cannot start prints its reason after its first line; only the first was shown."""
    report = check_bot(hostile_bot("runtime_refused"), **FAST)
    assert "got 'Error occurred during initialization of VM'; then on stdout: Could not create G1ServiceThread; " \
           "stderr ends: pthread_create failed (EAGAIN); it runs with address_space_mb = 1024 per process: a JVM " \
           "needs [limits] address_space_mb = 4096 in its bot.toml" in failed(report)["handshake"]


def test_check_of_a_bot_always_slower_than_the_limit_stops_early_and_says_how_slow(tmp_path):
    folder = python_bot(tmp_path, "slow", (
        "import sys, time\n"
        "for line in sys.stdin:\n"
        "    t = line.split()\n"
        "    if t[0] == 'hello': print('hello name=slow', flush=True)\n"
        "    elif t[0] == 'request':\n"
        "        time.sleep(0.2)  # the check's limit here is 0.1 s\n"
        "        print(f'move {t[1]} {t[3]}', flush=True)\n"
        "    elif t[0] == 'quit': break\n"
    ))
    # A limit shorter than FAST's: each of its two games (the check's first, the later protocol's)
    # costs the limit at every one of ~30 requests, and the bot is never in time at any limit.
    report = check_bot(folder, **{**FAST, "games": 6, "move_timeout_s": 0.1})
    games = failed(report)["games"]
    assert "(stopped after 1 game of 6: 10 timeouts or more say enough)" in games, games
    in_time = failed(report)["answers in time"]
    assert in_time.startswith("think time p50 100.0 ms, p99 100.0 ms (limit 100 ms, timeouts counted at the limit)")
    assert "stale" not in games  # its late answers, however far behind, are dropped


def test_what_a_failed_start_printed_is_quoted_without_its_control_characters(tmp_path):
    folder = python_bot(tmp_path, "ansi", (
        "import sys\n"
        "sys.stdin.readline()\n"
        "print('\\x1b[2J\\x1b[Hcleared your screen', flush=True)\n"
        "print('\\x1b[31mred\\x1b[0m second line', flush=True)\n"
        "sys.stderr.write('\\x1b]0;title\\x07 on stderr\\n')\n"
    ))
    detail = failed(check_bot(folder, **FAST))["handshake"]
    assert "\x1b" not in detail and "\x07" not in detail
    assert "then on stdout: \\x1b[31mred\\x1b[0m second line" in detail and "stderr ends: \\x1b]0;title\\x07 on stderr" in detail


def test_the_stderr_line_quoted_for_a_crash_is_escaped(tmp_path):
    folder = python_bot(tmp_path, "crash", (
        "import sys\n"
        "for line in sys.stdin:\n"
        "    if line.startswith('hello'): print('hello name=crash', flush=True)\n"
        "    elif line.startswith('request'):\n"
        "        sys.stderr.write('\\x1b[31mBoom\\x1b[0m\\n')\n"
        "        sys.exit(3)\n"
    ))
    detail = failed(check_bot(folder, **{**FAST, "games": 1}))["stays up"]
    assert "(exit code 3); its stderr says: \\x1b[31mBoom\\x1b[0m" in detail and "\x1b" not in detail


def test_the_version_a_check_reports_is_the_one_every_command_records(tmp_path):
    # `cargo build` writes a Cargo.lock on its first run: the check reported a version no
    # tournament ever saw (Rust bot-author audit). A build now writes only in the bot's prepared
    # copy: the version is the hash of the folder handed in, for the check as for a tournament.
    folder = python_bot(tmp_path, "lock", (
        "import sys\n"
        "for line in sys.stdin:\n"
        "    t = line.split()\n"
        "    if t[0] == 'hello': print('hello name=lock', flush=True)\n"
        "    elif t[0] == 'request': print(f'move {t[1]} {t[3]}', flush=True)\n"
        "    elif t[0] == 'quit': break\n"
    ))
    (folder / "bot.toml").write_text((folder / "bot.toml").read_text() + 'build = ["sh", "-c", "test -f made.lock || echo 1 > made.lock"]\n')
    first = check_bot(folder, **{**FAST, "games": 1})
    assert first.passed and not (folder / "made.lock").exists()
    assert first.version == content_hash(folder) == check_bot(folder, **{**FAST, "games": 1}).version


def test_check_fails_late_answers():
    report = check_bot(hostile_bot("late"), **FAST)
    assert "answers in time" in failed(report) and "timeout" in failed(report)["answers in time"]
    ev = next(r for r in report.results if r.name == "answers in time").evidence_lines
    assert any(line.startswith("> fault") and "timeout" in line for line in ev)


def test_check_fails_illegal_move():
    report = check_bot(hostile_bot("illegal"), **FAST)
    assert set(failed(report)) == {"games", "legal moves"}
    assert failed(report)["legal moves"].startswith("illegal:")


def test_check_fails_stdout_noise():
    report = check_bot(hostile_bot("noise"), **FAST)
    assert set(failed(report)) == {"games", "well-formed lines"}
    ev = next(r for r in report.results if r.name == "well-formed lines").evidence_lines
    assert "< debug: thinking about" in "\n".join(ev)


def test_check_fails_no_exit_on_quit_but_leaves_nothing():
    report = check_bot(hostile_bot("no_exit"), **FAST)
    assert set(failed(report)) == {"exit on quit"}
    assert "still running" in failed(report)["exit on quit"]


def test_check_fails_bad_exit_code():
    report = check_bot(hostile_bot("bad_exit"), **FAST)
    assert failed(report) == {"exit on quit": "exited after quit with exit code 3"}


def test_check_starts_a_lost_bot_afresh_for_its_next_game():
    """As a match does: without it, every game after a crash was the referee's and each was
    charged another `exited`, for a crash that happened once."""
    report = check_bot(hostile_bot("crash_even_games"), **{**FAST, "games": 3})  # it crashes in game 2 only
    games = failed(report)["games"]
    assert "exited x1," in games and "exited x2" not in games, games
    assert "then started afresh 1 time for later games" in failed(report)["stays up"]
    assert "no leftover processes" not in failed(report)


def test_check_skips_exit_on_quit_for_a_bot_already_gone():
    # It crashed in the last game (game 2), so no fresh process was started; the crash is the
    # "stays up" failure, and "exit on quit" cannot be tested rather than failed a second time.
    report = check_bot(hostile_bot("crash_even_games"), **{**FAST, "games": 2})
    quit_row = next(r for r in report.results if r.name == "exit on quit")
    assert quit_row.skipped and quit_row.passed and quit_row.evidence_lines == ()
    assert "stays up" in failed(report) and not report.passed
    assert {"name": "exit on quit", "passed": True, "skipped": True, "detail": quit_row.detail} in report.to_dict()["checks"]


def test_check_does_not_pass_legal_moves_when_no_answer_was_a_move(tmp_path):
    folder = python_bot(tmp_path, "verb", (
        "import sys\n"
        "for line in sys.stdin:\n"
        "    t = line.split()\n"
        "    if t[0] == 'hello': print('hello name=verb', flush=True)\n"
        "    elif t[0] == 'request': print(f'play {t[3]}', flush=True)  # the verb is 'move'\n"
        "    elif t[0] == 'quit': break\n"
    ))
    report = check_bot(folder, **{**FAST, "games": 1})
    assert failed(report)["legal moves"] == "no answer was a well-formed move, so no move could be checked"
    assert failed(report)["well-formed lines"].startswith("malformed: ")


def test_legal_moves_passed_beside_malformed_replies_says_they_were_not_moves(tmp_path):
    # A teacher's trial read "PASS legal moves" beside 208 malformed replies as "my moves were fine".
    folder = python_bot(tmp_path, "halfway", (
        "import sys\n"
        "for n, line in enumerate(sys.stdin):\n"
        "    t = line.split()\n"
        "    if t[0] == 'hello': print('hello name=halfway', flush=True)\n"
        "    elif t[0] == 'request': print(f'move {t[1]} Zz' if n % 2 else f'move {t[1]} {t[3]}', flush=True)\n"
        "    elif t[0] == 'quit': break\n"
    ))
    report = check_bot(folder, **{**FAST, "games": 1})
    legal = next(r for r in report.results if r.name == "legal moves")
    assert legal.passed and legal.detail.startswith("every well-formed move was one of the legal moves ("), legal.detail
    assert "malformed replies are not moves: see well-formed lines" in legal.detail
    assert failed(report)["well-formed lines"].startswith("malformed: ")


def test_a_bot_that_flushes_its_hello_but_not_its_moves_is_asked_about_flushing(tmp_path):
    """The likeliest C mistake (an author's trial): the hello arrives, no move ever does. The
    rows about answers were passed ("every move was one of the legal moves") for a bot that
    never moved, and nothing pointed at the missing flush."""
    folder = python_bot(tmp_path, "unflushed", (
        "import sys\n"
        "out = open(1, 'w', buffering=1 << 20)  # a block buffer, as C's stdout on a pipe\n"
        "for line in sys.stdin:\n"
        "    t = line.split()\n"
        "    if t[0] == 'hello': print('hello name=unflushed', file=out, flush=True)\n"
        "    elif t[0] == 'request': print(f'move {t[1]} {t[3]}', file=out)\n"
        "    elif t[0] == 'quit': break\n"
    ))
    report = check_bot(folder, **{**FAST, "games": 1})
    rows = {r.name: r for r in report.results}
    assert rows["handshake"].passed and not report.passed
    assert "is stdout flushed after every line, not only after hello?" in rows["answers in time"].detail
    assert not rows["answers in time"].passed
    for name in ("legal moves", "well-formed lines"):
        assert rows[name].skipped and rows[name].detail.startswith("not tested: no answer came"), rows[name]


STRICT_BOT = """import sys
KNOWN = {'hello', 'match', 'game', 'event', 'request', 'fault', 'gameover', 'matchover', 'quit'}
for line in sys.stdin:
    t = line.split()
    if t[0] not in KNOWN:
        sys.exit(f'unknown message {t[0]}')  # what protocol.md section 2 says not to do
    if t[0] == 'hello': print('hello name=strict', flush=True)
    elif t[0] == 'request':
        fields = dict(x.split('=', 1) for x in t[3 + int(t[2]):])
        if fields['phase'] == '1':
            int(fields['opponent'])  # a seat number in phase 1 under phase1_mode=pair only
        print(f'move {t[1]} {t[3]}', flush=True)
    elif t[0] == 'quit': break
"""


def strict_bot(tmp_path) -> Path:
    return python_bot(tmp_path, "strict", STRICT_BOT)


def test_check_sends_what_a_later_protocol_may_add_and_a_bot_must_ignore(tmp_path):
    report = check_bot(strict_bot(tmp_path), **{**FAST, "games": 1})
    assert set(failed(report)) == {"later protocol"}, failed(report)  # its own games speak as a tournament's
    assert "from a later protocol version (protocol.md section 2)" in failed(report)["later protocol"]
    evidence = next(r for r in report.results if r.name == "later protocol").evidence_lines
    assert any("x-unknown" in line for line in evidence) and any("unknown message x-unknown" in line for line in evidence)
    tolerant = tmp_path / "strict" / "bot.py"
    tolerant.write_text(STRICT_BOT.replace("sys.exit(f'unknown message {t[0]}')", "continue"))
    assert check_bot(tmp_path / "strict", **{**FAST, "games": 1}).passed


def test_check_plays_under_the_rule_options_given(tmp_path):
    folder = strict_bot(tmp_path)
    (folder / "bot.py").write_text(STRICT_BOT.replace("sys.exit(f'unknown message {t[0]}')", "continue"))
    assert run("bot", "check", str(folder), "--games", "1").exit_code == 0
    widened = runner.invoke(app, ["bot", "check", str(folder), "--games", "1", "--rule", "phase1_mode=all"])
    output = " ".join(widened.output.split())  # the bot's own traceback is shown: no run()
    assert widened.exit_code == 1 and "under phase1_mode=all" in output
    assert check_bot(folder, **{**FAST, "games": 1}, rule_options={"phase1_mode": "all"}).to_dict()["rules"] == \
        {"phase1_mode": "all"}
    assert "FAIL stays up" in output and "its stderr says: ValueError: invalid literal for int()" in output
    bad = run("bot", "check", str(folder), "--rule", "phase1_mode=most")
    assert bad.exit_code == 2 and "phase1_mode cannot be 'most'" in bad.output
    size = run("bot", "check", str(folder), "--rule", "num_players=4")
    assert size.exit_code == 2 and "the check plays at a table of 3" in size.output


def test_check_keeps_its_logs_where_asked(tmp_path):
    logs = tmp_path / "logs"
    result = run("bot", "check", "random_bot", "--games", "1", "--log", str(logs))
    assert result.exit_code == 0 and f"logs kept in {logs}" in result.output
    protocol_log = (logs / "seat0-random_bot.protocol.log").read_text()
    assert protocol_log.startswith("> hello protocol=1") and "< move 1 " in protocol_log
    assert "x-unknown" not in protocol_log and "x_unknown" not in protocol_log  # the games speak as a tournament's
    assert "> x-unknown " in (logs / "later0-random_bot.protocol.log").read_text()
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    refused = run("bot", "check", "random_bot", "--games", "1", "--log", str(not_a_folder))
    assert refused.exit_code == 2 and "not a folder" in refused.output


def test_the_check_plays_every_seat_so_a_bot_wrong_away_from_seat_0_fails():
    result = run("bot", "check", str(hostile_bot("illegal_off_seat_0")), "--games", "3")
    text = " ".join(result.output.split())
    assert result.exit_code == 1, text
    assert "at seats 0, 1 and 2;" in text and "FAIL legal moves" in text, text


def test_check_cli_shows_failure_and_exit_code_1():
    result = run("bot", "check", str(hostile_bot("noise")), "--games", "1", "--move-timeout", "0.5")
    assert result.exit_code == 1
    assert "FAIL well-formed lines" in result.output and "< debug: thinking about" in result.output
    assert not (HOSTILE_BOTS / ".check.json").exists()  # only bots in the bots dir get a record


def test_add_registers_with_version_and_list_shows_it(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # no check of these files kept by an earlier run
    src = tmp_path / "src"
    assert run("bot", "new", "addme", "--dir", str(src)).exit_code == 0
    reg = tmp_path / "registry"
    result = run("bot", "add", str(src / "addme"), "--dir", str(reg), "--games", "1")
    assert result.exit_code == 0, result.output
    manifest = load_manifest(reg / "addme")
    assert len(manifest.version) == 12 and manifest.version == content_hash(manifest)
    assert content_hash(src / "addme") == manifest.version  # the same files hash the same
    missing = run("bot", "list", "--dir", str(tmp_path / "no-such-folder"))  # was "no bots", exit 0
    assert missing.exit_code == 2 and "no such folder" in missing.output
    listing = run("bot", "list", "--dir", str(reg))
    assert listing.exit_code == 0 and "addme" in listing.output and manifest.version in listing.output
    assert "pass" in listing.output
    # a check under other rule options says so in the list
    assert run("bot", "check", "addme", "--dir", str(reg), "--games", "1", "--rule", "phase1_mode=all").exit_code == 0
    wide = runner.invoke(app, ["bot", "list", "--dir", str(reg)], env={"COLUMNS": "200"})
    assert "under phase1_mode=all" in wide.output

    # a changed bot is a new version; re-adding needs --replace
    (src / "addme" / "bot.py").write_text((src / "addme" / "bot.py").read_text() + "\n# tweak\n")
    again = run("bot", "add", str(src / "addme"), "--dir", str(reg), "--games", "1")
    assert again.exit_code == 2 and "--replace" in again.output
    assert "PASS" not in again.output  # the name taken is said first, without the check's seconds
    replaced = run("bot", "add", str(src / "addme"), "--dir", str(reg), "--games", "1", "--replace")
    assert replaced.exit_code == 0 and "new version" in replaced.output and "PASS" in replaced.output
    assert load_manifest(reg / "addme").version != manifest.version
    # The same files again: the check just run is the one it registers on, not run twice.
    same = run("bot", "add", str(src / "addme"), "--dir", str(reg), "--games", "1", "--replace")
    said = " ".join(same.output.split())
    assert same.exit_code == 0 and "(unchanged)" in said and "PASS" not in said, said
    assert f"passed its check of" in said and f"not checked again (arena bot check {src / 'addme'}" in said, said


def test_add_refuses_a_failing_bot(tmp_path):
    (tmp_path / "noise").mkdir()
    shutil.copy(hostile_bot("noise"), tmp_path / "noise" / "bot.toml")
    shutil.copy(HOSTILE_BOTS / "hostile.py", tmp_path / "noise" / "hostile.py")
    result = run("bot", "add", str(tmp_path / "noise"), "--dir", str(tmp_path / "reg"), "--games", "1")
    assert result.exit_code == 1 and "not registered" in result.output
    assert not (tmp_path / "reg" / "hostile_noise").exists()


def test_content_hash_ignores_build_outputs_and_check_record(tmp_path):
    assert run("bot", "new", "hashme", "--lang", "c", "--dir", str(tmp_path)).exit_code == 0
    folder = tmp_path / "hashme"
    before = content_hash(folder)
    (folder / "hashme").write_bytes(b"\x7fELF binary")  # listed in .gitignore
    (folder / ".check.json").write_text("{}")
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "x.pyc").write_bytes(b"x")
    assert content_hash(folder) == before
    (folder / "play.log").write_text("a bot's own log, written while it plays\n")  # would block every resume
    assert content_hash(folder) == before
    (folder / "hashme.c").write_text((folder / "hashme.c").read_text() + "/* changed */\n")
    assert content_hash(folder) != before


def test_a_bot_cannot_hide_its_code_from_its_version(tmp_path):
    """A hostile trial changed two bots mid-tournament unnoticed: one kept its code in main.log
    (logs are not hashed), the other's .gitignore said `*`. The files the command names, and
    bot.toml, are always in the hash."""
    folder = tmp_path / "sneak"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "sneak"\nlanguage = "python"\ncommand = ["{python}", "main.log"]\n')
    (folder / "main.log").write_text("print('hello')\n")
    (folder / ".gitignore").write_text("*\n")
    before = content_hash(folder)
    (folder / "main.log").write_text("import os; os._exit(9)\n")
    assert content_hash(folder) != before
    (folder / "bot.toml").write_text('name = "sneak"\nlanguage = "python"\ncommand = ["{python}", "main.log"]\n# x\n')
    assert content_hash(folder) != before
    from arena.submission.versions import bot_files

    assert [p.as_posix() for p in bot_files(folder)] == ["bot.toml", "main.log"]  # what `bot add` copies too


def test_a_file_name_that_is_not_utf8_and_a_huge_file_are_said_not_raised(tmp_path):
    import os

    from arena.submission.manifest import ManifestError
    from arena.submission.folder import MAX_FILE_BYTES as MAX_BOT_FILE_BYTES

    assert run("bot", "new", "odd", "--lang", "python", "--dir", str(tmp_path)).exit_code == 0
    folder = tmp_path / "odd"
    before = content_hash(folder)
    with open(os.path.join(os.fsencode(folder), b"notes-\xff.txt"), "wb") as f:
        f.write(b"x")
    assert content_hash(folder) != before  # hashed by the name's bytes, not a UnicodeEncodeError
    with open(folder / "data.bin", "wb") as f:
        f.truncate(MAX_BOT_FILE_BYTES + 1)  # sparse: nothing on disk, 1 GiB and a byte to read
    with pytest.raises(ManifestError, match=r"data.bin: 1.0 GiB; a bot's files may be at most 1 GiB each"):
        content_hash(folder)
    listed = run("bot", "list", "--dir", str(tmp_path))  # the bot's row names the file; the exit says so
    cells = "".join(ch for ch in listed.output if ch.isalnum() or ch in ".:")  # the table wraps its cells
    assert listed.exit_code == 1 and "data.bin:1.0GiB" in cells, listed.output


def test_manifest_limits_and_version_keys(tmp_path):
    from arena.submission.manifest import ManifestError
    from arena.sandbox.limits import LimitRefused, ceilings_from, grant

    folder = tmp_path / "lim"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "lim"\ncommand = ["x"]\nversion = "abc123"\n\n[limits]\naddress_space_mb = 2048\n')
    m = load_manifest(folder)
    assert m.version == "abc123" and dict(m.limits) == {"address_space_mb": 2048}
    assert grant(dict(m.limits), ceilings_from(None)).limits.address_space_mb == 2048  # asked, within the ceiling
    with pytest.raises(LimitRefused, match="asks for 2048, above the ceiling of 512"):  # the organiser grants
        grant(dict(m.limits), ceilings_from({"address_space_mb": 512}))
    (folder / "bot.toml").write_text('name = "lim"\ncommand = ["x"]\n[limits]\nwhatever = 1\n')
    with pytest.raises(ManifestError, match="unknown limit"):
        load_manifest(folder)


def test_an_unreadable_bot_file_is_named_not_a_traceback(tmp_path, monkeypatch):
    # The version hash reads every file; one unreadable file crashed `tournament run`, `standings`
    # and `replay` with a PermissionError traceback, and `bot check` passed with an empty version.
    # (Tests may run as root, who reads anything: the denial is simulated.)
    assert run("bot", "new", "locked", "--dir", str(tmp_path)).exit_code == 0
    notes = tmp_path / "locked" / "notes.txt"
    notes.write_text("secret")
    config = tmp_path / "t.toml"
    config.write_text(f'bots = ["random_bot", "heuristic_bot", "{tmp_path / "locked"}"]\ndeals = 1\n')
    assert run("tournament", "run", str(config), "--workers", "1", "--unchecked").exit_code == 0  # results to report on
    import os

    import arena.submission.folder

    real_open = os.open

    def denying_open(path, *args, **kwargs):
        if Path(path) == notes:
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(arena.submission.folder.os, "open", denying_open)  # what the folder's reader opens
    checked = run("bot", "check", str(tmp_path / "locked"))
    assert checked.exit_code != 0 and "notes.txt: cannot read (Permission denied)" in checked.output
    for args in (["tournament", "run", str(config)], ["standings", str(config)], ["replay", str(config), "1"]):
        result = run(*args)
        assert result.exit_code == 2, result.output
        assert "notes.txt: cannot read (Permission denied)" in result.output, args


TOURNAMENT_MESSAGES = {"hello", "match", "game", "request", "event", "fault", "gameover", "matchover", "quit"}


def test_a_bot_cannot_tell_its_check_from_a_tournament_by_numbers_lines_or_deals(tmp_path):
    """An audit's bot told them apart: the check's games were always numbered from 1, dealt the same
    hands, and came with a message type and a field of a later protocol. Now its games speak as a
    tournament table's do; the later protocol is probed in a game of its own, in a process of its own."""
    seen = []
    for n in range(2):
        logs = tmp_path / f"logs{n}"
        assert run("bot", "check", "random_bot", "--games", "2", "--log", str(logs)).exit_code == 0
        lines = [line[2:] for line in (logs / "seat0-random_bot.protocol.log").read_text().splitlines()
                 if line.startswith("> ")]
        assert {line.split()[0] for line in lines} <= TOURNAMENT_MESSAGES, lines
        assert not [line for line in lines if "x_unknown" in line or "x-unknown" in line]
        # Its match line names the options a tournament table's does: no next_dealer, which a
        # tournament's leaves out since the arena names each game's dealer (protocol.md section 4).
        match_keys = {field.split("=")[0] for line in lines if line.startswith("match ") for field in line.split()[1:]}
        assert match_keys and "next_dealer" not in match_keys, lines
        numbers = [int(line.split()[1]) for line in lines if line.startswith("game ")]
        assert numbers == [numbers[0], numbers[0] + 1] and (numbers[0] - 1) % 2 == 0, numbers
        seen.append((numbers[0], next(line for line in lines if line.startswith("request "))))
    assert seen[0] != seen[1]  # a new deal (and, almost always, new numbers) each check
