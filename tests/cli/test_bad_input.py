"""Bad input to the commands (issue 39): every number a command takes has a range, and a report,
page or config is written only as a regular file or a new one; anything else named as output (a
device, a FIFO, a link, a folder) is refused with a message and exit code 2, and left as it was."""

from __future__ import annotations

import os
import stat

import pytest
import typer

from arena.cli.app import app
from arena.tournament.output_files import output_problem, write_output
from arena.errors import ArenaError
from tests.cli_support import invoke

HUGE = "1" + "0" * 30  # a 31-digit number: a traceback from `arena games --limit` once


def _commands(command, path: tuple[str, ...] = ()):
    if hasattr(command, "commands"):  # a group
        for name, sub in command.commands.items():
            yield from _commands(sub, (*path, name))
    else:
        yield path, command


COMMANDS = list(_commands(typer.main.get_command(app)))
NUMERIC = [(path, param) for path, command in COMMANDS for param in command.params
           if param.param_type_name == "option" and param.bare_type() in ("int", "float")]
# What each command needs besides the option, so that only the option can be refused.
REQUIRED = {("play",): ["random_bot", "random_bot"], ("bot", "check"): ["random_bot"], ("games",): ["t.toml"],
            ("standings",): ["t.toml"], ("replay",): ["t.toml", "1"], ("tournament", "run"): ["t.toml"],
            ("tournament", "new"): ["t.toml", "-b", "random_bot"]}


# Bounded by the session, in the config's words for the same key ("expected a whole number from 1 to 256").
CHECKED_BY_THE_SESSION = {(("tournament", "run"), "workers")}


def test_every_numeric_option_has_a_range_or_a_check():
    assert len(NUMERIC) >= 15, NUMERIC  # the test sees the commands' options at all
    for path, param in NUMERIC:
        if (path, param.name) in CHECKED_BY_THE_SESSION:
            continue
        assert (param.min is not None and param.max is not None) or param.callback is not None, (path, param.name)


@pytest.mark.parametrize("path, option", [(path, param.opts[0]) for path, param in NUMERIC],
                         ids=lambda value: " ".join(value) if isinstance(value, tuple) else value)
def test_a_huge_number_is_refused_with_exit_code_2_naming_the_option(path, option, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for value in (HUGE, "-" + HUGE):
        result = invoke(*path, *REQUIRED.get(path, []), option, value)
        assert result.exit_code == 2, (path, option, value, result.output)
        assert option in result.output, result.output


def _config(tmp_path):
    config = tmp_path / "t.toml"
    config.write_text('seed = 3\nbots = ["random_bot", "heuristic_bot", "shell_bot"]\ndeals = 1\n')
    return config


def _outputs(tmp_path):
    """A FIFO, a link to a file, a dangling link, a folder and (as root) a copy of /dev/null: each
    as an output name, with how to tell it was left alone."""
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    linked, dangling, folder = tmp_path / "linked.html", tmp_path / "dangling.html", tmp_path / "folder"
    linked.symlink_to(victim)
    dangling.symlink_to(tmp_path / "elsewhere.html")
    folder.mkdir()
    names = {"a FIFO": fifo, "a symbolic link": linked, "a dangling link": dangling, "a folder": folder}
    if os.getuid() == 0:
        device = tmp_path / "null"
        os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        names["a character device"] = device
    return names, victim


def _unchanged(names, victim, tmp_path):
    assert stat.S_ISFIFO(os.lstat(names["a FIFO"]).st_mode)
    assert os.path.islink(names["a symbolic link"]) and victim.read_text() == "keep me"
    assert os.path.islink(names["a dangling link"]) and not (tmp_path / "elsewhere.html").exists()
    assert names["a folder"].is_dir() and not list(names["a folder"].iterdir())
    if "a character device" in names:
        assert stat.S_ISCHR(os.lstat(names["a character device"]).st_mode)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]


def test_standings_output_that_is_not_a_regular_file_is_refused_and_left_alone(tmp_path):
    config = _config(tmp_path)
    names, victim = _outputs(tmp_path)
    for kind, path in names.items():
        result = invoke("standings", str(config), "-o", str(path), "--format", "html")
        said = " ".join(result.output.split())
        assert result.exit_code == 2 and f"-o {path}" in said, (kind, said)
        assert "regular file" in said, (kind, said)
    _unchanged(names, victim, tmp_path)


def test_a_live_page_that_is_not_a_regular_file_is_refused_before_the_run(tmp_path):
    config = _config(tmp_path)
    names, victim = _outputs(tmp_path)
    for kind, path in names.items():
        result = invoke("tournament", "run", str(config), "--html", str(path), "--workers", "1")
        said = " ".join(result.output.split())
        assert result.exit_code == 2 and f"--html {path}" in said and "regular file" in said, (kind, said)
    _unchanged(names, victim, tmp_path)
    assert not config.with_suffix(".sqlite").exists()  # refused before anything was stored


def test_a_config_written_with_force_never_replaces_a_link_or_a_fifo(tmp_path):
    names, victim = _outputs(tmp_path)
    for kind in ("a FIFO", "a symbolic link", "a dangling link"):
        result = invoke("tournament", "new", str(names[kind]), "-b", "random_bot", "-b", "heuristic_bot",
                        "-b", "shell_bot", "--force")
        said = " ".join(result.output.split())
        assert result.exit_code == 2 and "regular file" in said, (kind, said)
    _unchanged(names, victim, tmp_path)


def test_a_results_database_that_is_not_a_regular_file_is_refused(tmp_path):
    config = _config(tmp_path)
    os.mkfifo(tmp_path / "t.sqlite")
    result = invoke("tournament", "run", str(config), "--workers", "1")
    said = " ".join(result.output.split())
    assert result.exit_code == 2 and "the results database" in said and "FIFO" in said, said
    assert stat.S_ISFIFO(os.lstat(tmp_path / "t.sqlite").st_mode)


def test_a_page_swapped_for_a_link_while_it_is_written_is_refused(tmp_path):
    page = tmp_path / "page.html"
    write_output(page, "first", "--html")
    assert page.read_text() == "first" and oct(page.stat().st_mode & 0o044) == oct(0o044)
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    page.unlink()
    page.symlink_to(victim)
    with pytest.raises(ArenaError, match="symbolic link"):
        write_output(page, "second", "--html")
    assert victim.read_text() == "keep me"
    assert output_problem(tmp_path / "new.html") is None
