"""The documents keep up with the code: docs/organising.md's table of config keys lists exactly the
keys the config parser accepts (read from the parser's own tables: the keys' table of
arena/tournament/config_keys.py, whose rows the document's are word for word, the sandbox limits,
the grant keys, the rule options), each default is the parser's, each list of allowed words is
what the parser takes, and its example config loads. Every `arena ...` command the README and
the organiser's documents show is one the CLI accepts, and every link of theirs leads to a file and
heading that exist. As tests/test_architecture.py reads its layers, this reads the documents
themselves, so that they and the code cannot drift apart unseen."""

from __future__ import annotations

import dataclasses
import re
import shlex
import tomllib
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
import typer

from arena.cli.app import app
from arena.game import Rules
from arena.sandbox.isolation import ISOLATION_MODES
from arena.sandbox.limits import GRANT_KEYS, LIMIT_KEYS as SANDBOX_KEYS, ceilings_from
from arena.schedule.kinds import NAMES as SCHEDULES
from arena.tournament.config import MATCH_ONLY_OPTIONS, ConfigError, config_from_dict, default_workers
from arena.tournament.config_keys import KEYS, LIMIT_KEYS, TOP_KEYS
from arena.tournament.resubmission import ON_CHANGE_MODES

REPO = Path(__file__).resolve().parents[1]
ORGANISING = REPO / "docs" / "organising.md"
DOCUMENTS = [REPO / "README.md", ORGANISING, REPO / "docs" / "cluster.md"]
KEY_SECTION = "## Every config key"
EXAMPLE_SECTION = "## An annotated example"
BOT = "NAME"  # the table's stand-in for a bot's name in [grant.NAME]

# The keys of each table of a config, as the parser's own tables list them.
NESTED = {
    "limits": tuple(LIMIT_KEYS),
    "sandbox": tuple(SANDBOX_KEYS),
    f"grant.{BOT}": tuple(GRANT_KEYS),
    "rules": tuple(f.name for f in dataclasses.fields(Rules) if f.name not in MATCH_ONLY_OPTIONS),
}
# The words a config key may take where the code lists them (the rule options' come from their enums).
WORDS = {"schedule": SCHEDULES, "isolation": ISOLATION_MODES, "on_change": ON_CHANGE_MODES}


def section(path: Path, heading: str) -> str:
    text = path.read_text(encoding="utf-8")
    assert f"\n{heading}\n" in text, f"{path.name} has no section {heading!r}"
    return text.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]


def read_key_table() -> dict[str, dict[str, str]]:
    """The rows of the key table: key -> its cells (type, default, allowed, what)."""
    rows: dict[str, dict[str, str]] = {}
    for line in section(ORGANISING, KEY_SECTION).splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 5 or not re.fullmatch(r"`[\w.]+`", cells[0]):
            continue
        key = cells[0].strip("`")
        assert key not in rows, f"{key} is in the table twice"
        rows[key] = dict(zip(("type", "default", "allowed", "what"), cells[1:]))
    return rows


ROWS = read_key_table()


def literal(span: str) -> tuple[bool, Any]:
    """(True, value) for a TOML value written in backticks, (False, None) for anything else."""
    try:
        return True, tomllib.loads(f"v = {span}")["v"]
    except tomllib.TOMLDecodeError:
        return False, None


def literals(cell: str) -> list[Any]:
    return [value for ok, value in (literal(span) for span in re.findall(r"`([^`]+)`", cell)) if ok]


def documented_default(key: str) -> tuple[str, Any]:
    """("none", None) for "—", ("value", V) for a cell that opens with a TOML value, ("words", cell) else."""
    cell = ROWS[key]["default"]
    if cell.startswith("—"):
        return "none", None
    match = re.match(r"`([^`]+)`", cell)
    if match and literal(match.group(1))[0]:
        return "value", literal(match.group(1))[1]
    return "words", cell


# Configs to try a key in: the smallest each kind of key is accepted in.
PROBE_PATH = Path("/nowhere/tournaments/probe.toml")
BOTS = ["a_bot", "b_bot", "c_bot", "d_bot", "e_bot"]
PROBES = [
    {"bots": BOTS},
    {"bots": BOTS, "schedule": "gauntlet"},
    {"bots": BOTS, "schedule": "gauntlet", "stop": "sprt", "sprt_delta1": 0.1, "deals": 20},
    {"bots": BOTS, "schedule": "balanced", "tables": 5},
    {"bots": BOTS, "schedule": "league"},
]


def with_key(data: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    data = {k: (dict(v) if isinstance(v, dict) else v) for k, v in data.items()}
    *tables, last = key.replace(f"grant.{BOT}", f"grant.{BOTS[0]}").split(".")
    place = data
    for table in tables:
        place = place.setdefault(table, {})
    place[last] = value
    return data


def without_key(data: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k != key}


def parse(data: dict[str, Any]):
    return config_from_dict(data, PROBE_PATH)


def effective(config) -> tuple:
    """A config as a run uses it: its sandbox and grants as the ceilings and tcp grant of a bot."""
    own = config.grants.get(BOTS[0], {})
    return (dataclasses.replace(config, sandbox={}, grants={}), ceilings_from(config.sandbox, own),
            bool(own.get("zmq_tcp")))


def accepted(key: str, value: Any) -> dict[str, Any] | None:
    """The first probe that takes `key = value`, or None if none does."""
    for probe in PROBES:
        try:
            parse(with_key(probe, key, value))
        except ConfigError:
            continue
        return probe
    return None


def test_the_key_table_is_read():
    assert len(ROWS) >= 50, f"{ORGANISING.name}'s key table was not found or lost its rows ({len(ROWS)} read)"


def test_the_key_table_lists_every_key_the_parser_accepts_and_no_other():
    expected = set(TOP_KEYS) | {f"{table}.{key}" for table, keys in NESTED.items() for key in keys}
    documented = set(ROWS)
    assert sorted(expected - documented) == [], "accepted by the config parser but missing from docs/organising.md"
    assert sorted(documented - expected) == [], "in docs/organising.md's key table but not accepted by the parser"


@pytest.mark.parametrize("key", KEYS, ids=lambda key: key.name)
def test_the_documents_row_of_each_key_is_the_keys_table_own(key):
    """The table in the code is the one source: a key's row there is its row in the document."""
    rows = {line.split("|")[1].strip(): line.strip() for line in section(ORGANISING, KEY_SECTION).splitlines()
            if line.startswith("| `")}
    assert rows.get(f"`{key.name}`") == key.doc_row(), f"write this row in {ORGANISING.name}:\n{key.doc_row()}"


@pytest.mark.parametrize("table", sorted(NESTED))
def test_each_table_of_the_key_table_is_one_the_parser_reads_and_checks(table):
    """The tables above are the parser's: a documented key is taken there, an unknown one refused."""
    keys = NESTED[table]
    assert table.split(".")[0] in TOP_KEYS
    assert any(accepted(f"{table}.{key}", value) for key in keys for value in literals(ROWS[f"{table}.{key}"]["default"]) or [None])
    assert accepted(f"{table}.no_such_key", 1) is None


@pytest.mark.parametrize("key", sorted(ROWS))
def test_each_documented_default_is_the_parsers(key):
    kind, value = documented_default(key)
    if kind == "none":
        # No default: a table of keys of its own, or a key some config cannot do without.
        if key in TOP_KEYS and any(name.startswith(f"{key}.") for name in ROWS):
            return
        needed = [probe for probe in PROBES if key in probe]
        assert needed, f"{key}: documented with no default, but no probe config names it"
        with pytest.raises(ConfigError):
            parse(without_key(needed[-1], key))
        return
    if kind == "words":
        config = parse(PROBES[0])
        if key.startswith(f"grant.{BOT}."):
            limit = key.rsplit(".", 1)[1]
            assert "[sandbox]" in value, f"{key}: a grant's default is the [sandbox] ceiling"
            assert getattr(ceilings_from({limit: 7}, {}), limit) == 7
        elif key == "name":
            assert "file's name" in value and config.name == PROBE_PATH.stem
        elif key == "database":
            assert ".sqlite" in value and "beside" in value
            assert config.database == PROBE_PATH.parent / f"{PROBE_PATH.stem}.sqlite"
        elif key == "workers":
            assert "cores" in value and config.workers == default_workers()
        else:
            pytest.fail(f"{key}: its default is words ({value!r}), not a TOML value in backticks")
        return
    probe = accepted(key, value)
    assert probe is not None, f"{key}: the parser refuses its documented default {value!r}"
    assert effective(parse(with_key(probe, key, value))) == effective(parse(probe)), (
        f"{key}: documented default {value!r} is not what the parser takes when the key is left out")


def allowed_words(key: str) -> tuple[Any, ...] | None:
    """What the code says a key may be, where it lists it: an enum's words, true/false, a tuple."""
    name = key.rsplit(".", 1)[-1]
    if key in WORDS:
        return tuple(WORDS[key])
    rule_fields = {f.name: f.default for f in dataclasses.fields(Rules)}
    if (key.startswith("rules.") or key in TOP_KEYS) and isinstance(rule_fields.get(name), Enum):
        return tuple(member.value for member in type(rule_fields[name]))
    kind, default = documented_default(key)
    if kind == "value" and isinstance(default, bool):
        return (True, False)
    return None


@pytest.mark.parametrize("key", sorted(ROWS))
def test_each_documented_choice_is_what_the_parser_takes(key):
    candidates = allowed_words(key)
    documented = literals(ROWS[key]["allowed"])
    for value in documented:
        assert accepted(key, value) is not None, f"{key}: the parser refuses the documented value {value!r}"
    if candidates is not None:
        taken = {value for value in candidates if accepted(key, value) is not None}
        assert set(documented) == taken, f"{key}: the parser takes {sorted(map(str, taken))}"


def example_config() -> str:
    blocks = re.findall(r"```toml\n(.*?)```", section(ORGANISING, EXAMPLE_SECTION), re.S)
    assert blocks, "docs/organising.md's annotated example config is missing"
    return blocks[0]


def test_the_annotated_example_loads_and_shows_every_key():
    text = example_config()
    parse(tomllib.loads(text))  # raises ConfigError, naming the key, if it does not
    for key in TOP_KEYS:
        assert re.search(rf"^(# )?{key} =|^\[{key}[\].]", text, re.M), f"the example config does not show {key}"


def commands_in(path: Path) -> list[tuple[str, bool]]:
    """Every `arena ...` command shown, and whether it is whole: the lines of code blocks are, the
    inline code spans of the prose may name a command with only some of its arguments."""
    text = path.read_text(encoding="utf-8")
    shown, fence = [], None
    for line in text.splitlines():
        if line.startswith("```"):
            fence = line[3:].strip() if fence is None else None
        elif fence in ("", "sh"):
            shown.append((line, True))
    prose = re.sub(r"```.*?```", "", text, flags=re.S).replace("\n", " ")  # a code span may break a line
    shown += [(span, False) for span in re.findall(r"`([^`]+)`", prose)]
    commands = []
    for line, whole in shown:
        for part in re.split(r"&&|;", line.split(" #", 1)[0]):
            words = part.split()
            if words and (words[0] == "arena" or words[0].endswith("/bin/arena")):
                commands.append((" ".join(["arena", *words[1:]]), whole))
    return commands


def as_arguments(command: str) -> list[str]:
    """A command's arguments, a synopsis read as one of its uses: [optional] parts given, the first
    of a|b|c, N a number."""
    command = command.replace("\\|", "|").replace("[", "").replace("]", "").replace("...", "")
    words = [word.split("|", 1)[0] for word in shlex.split(command)[1:]]
    return ["2" if word == "N" else word for word in words]


def is_click(exc: BaseException, name: str) -> bool:
    return any(cls.__name__ == name for cls in type(exc).__mro__)


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda path: path.name)
def test_every_arena_command_shown_is_one_the_cli_accepts(path, capsys):
    commands = commands_in(path)
    assert commands, f"{path.name} shows no arena command"
    root = typer.main.get_command(app)
    refused = []
    for command, whole in commands:
        args, cmd, names = as_arguments(command), root, ["arena"]
        while hasattr(cmd, "commands") and args and not args[0].startswith("-"):
            if args[0] not in cmd.commands:
                refused.append(f"{command}: no command {args[0]!r} in {' '.join(names)}")
                args = []
                break
            names.append(args[0])
            cmd = cmd.commands[args.pop(0)]
        if not args:  # a command named in passing (`arena tournament new` writes ...): it exists
            continue
        try:
            cmd.make_context(" ".join(names), args)
        except Exception as exc:  # Typer's own copy of Click's errors: told apart by name
            if is_click(exc, "Exit"):  # --version and --help end the parse early
                continue
            if not is_click(exc, "UsageError"):
                raise
            if not whole and is_click(exc, "MissingParameter"):  # `arena tournament new NAME` in a sentence
                continue
            refused.append(f"{command}: {exc}")
    capsys.readouterr()
    assert refused == [], f"{path.name} shows commands the CLI refuses"


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, no punctuation but - and _, spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", ""))
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    seen: dict[str, int] = {}
    found = set()
    for heading in re.findall(r"^#{1,6} +(.+)$", text, re.M):
        base = slug(heading)
        found.add(base if base not in seen else f"{base}-{seen[base]}")
        seen[base] = seen.get(base, 0) + 1
    return found


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda path: path.name)
def test_every_link_leads_to_a_file_and_heading_that_exist(path):
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+://", target):
            continue
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        if not linked.exists():
            broken.append(f"{target}: no file {linked}")
        elif anchor and anchor not in anchors(linked):
            broken.append(f"{target}: no heading #{anchor} in {linked.name}")
    assert broken == [], f"{path.name} has broken links"
