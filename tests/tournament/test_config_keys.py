"""The config's keys are one table (arena/tournament/config_keys.py): every key written by
`write_config` loads back as written, a bad value of any key is refused naming that key and the
file (or the option, for `arena tournament new`), and the command's options are the table's."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest
import typer.main

from arena.cli.app import app
from arena.tournament.config import ConfigError, config_from_dict, load_config
from arena.tournament.config_keys import BY_NAME, KEYS, OptionWords
from arena.tournament.config_write import write_config

BOTS = ["random_bot", "heuristic_bot", "shell_bot"]
SPRT = {"schedule": "gauntlet", "deals": 20, "stop": "sprt", "sprt_delta1": 0.2}

# For each key: what is given to write_config besides the bots, and what the loaded config shows of it.
SAMPLES: dict[str, tuple[dict[str, Any], Callable[[Any], bool]]] = {
    "name": ({"name": "cup"}, lambda c: c.name == "cup"),
    "seed": ({"seed": -77}, lambda c: c.seed == -77),
    "bots": ({"bots": BOTS[::-1]}, lambda c: c.bots == tuple(BOTS[::-1])),
    "table_size": ({"table_size": 2}, lambda c: c.table_size == 2 and c.rules.num_players == 2),
    "deals": ({"deals": 3}, lambda c: c.deals == 3),
    "scoring": ({"scoring": "pot"}, lambda c: c.rules.scoring.value == "pot"),
    "fault_policy": ({"fault_policy": "forfeit"}, lambda c: c.rules.fault_policy.value == "forfeit"),
    "workers": ({"workers": 3}, lambda c: c.workers == 3),
    "schedule": ({"schedule": "gauntlet"}, lambda c: c.schedule == "gauntlet" and c.challengers == 1),
    "tables": ({"tables": 2}, lambda c: c.schedule == "balanced" and c.tables == 2),
    "challengers": ({"challengers": 1}, lambda c: c.schedule == "gauntlet" and c.challengers == 1),
    "focus_ranks": ({"schedule": "league", "focus_ranks": 3}, lambda c: c.focus_ranks == 3),
    "frozen": ({"schedule": "league", "frozen": True}, lambda c: c.frozen is True and c.kind.open_ended),
    "database": ({"database": "/tmp/elsewhere/r.sqlite"}, lambda c: c.database == Path("/tmp/elsewhere/r.sqlite")),
    "rules": ({"rules": ["ace_high=true", "pickup=top_card"]},
              lambda c: c.rules.ace_high is True and c.rules.pickup.value == "top_card"),
    "limits": ({"limits": {"start_retry_s": 5.0}}, lambda c: c.start_retry_s == 5.0),
    "sandbox": ({"sandbox": {"processes": 100}}, lambda c: c.sandbox == {"processes": 100}),
    "grant": ({"grant": {"shell_bot": {"zmq_tcp": True}}}, lambda c: c.grants == {"shell_bot": {"zmq_tcp": True}}),
    "isolation": ({"isolation": "off"}, lambda c: c.isolation == "off"),
    "cluster": ({"cluster": "tcp://127.0.0.1:8786"}, lambda c: c.cluster == "tcp://127.0.0.1:8786"),
    "on_change": ({"on_change": "replay"}, lambda c: c.on_change == "replay"),
    "stop": (SPRT, lambda c: c.sprt is not None),
    "sprt_delta1": (SPRT, lambda c: c.sprt.delta1 == 0.2),
    "sprt_delta0": ({**SPRT, "sprt_delta0": 0.1}, lambda c: c.sprt.delta0 == 0.1),
    "sprt_alpha": ({**SPRT, "sprt_alpha": 0.1}, lambda c: c.sprt.alpha == 0.1),
    "sprt_beta": ({**SPRT, "sprt_beta": 0.2}, lambda c: c.sprt.beta == 0.2),
    "limits.move_timeout_s": ({"limits.move_timeout_s": 1.5}, lambda c: c.move_timeout_s == 1.5),
    "limits.startup_timeout_s": ({"limits.startup_timeout_s": 3.0}, lambda c: c.startup_timeout_s == 3.0),
    "limits.start_retry_s": ({"limits.start_retry_s": 7.0}, lambda c: c.start_retry_s == 7.0),
}


def test_every_key_of_the_table_has_a_sample():
    assert sorted(SAMPLES) == sorted(BY_NAME)


@pytest.mark.parametrize("key", sorted(SAMPLES))
def test_each_key_written_by_write_config_loads_back_as_given(tmp_path, key):
    given, shows = SAMPLES[key]
    path = tmp_path / "t.toml"
    write_config(path, {"bots": BOTS, **given})
    assert shows(load_config(path)), path.read_text()


def with_value(key: str, value: Any) -> dict[str, Any]:
    """A config that would load, but for `key = value`."""
    data: dict[str, Any] = {"bots": ["a", "b", "c"], **(SPRT if key.startswith(("sprt", "stop")) else {})}
    table, _, leaf = key.rpartition(".")
    (data.setdefault(table, {}) if table else data)[leaf] = value
    return data


@pytest.mark.parametrize("key", [key.name for key in KEYS])
def test_a_bad_value_of_each_key_names_the_key_and_the_file(key):
    path = Path("tournaments/t.toml")
    with pytest.raises(ConfigError) as refused:
        config_from_dict(with_value(key, [[]]), path)
    assert str(refused.value).startswith(f"{path}: key {key!r}: "), str(refused.value)


@pytest.mark.parametrize("key", [key.name for key in KEYS if key.option])
def test_a_bad_value_given_as_an_option_names_the_option(key):
    path = Path("tournaments/t.toml")
    with pytest.raises(ConfigError) as refused:
        config_from_dict(with_value(key, [[]]), path, OptionWords(path))
    assert str(refused.value).startswith(f"{BY_NAME[key].option.flags[0]}: "), str(refused.value)


def test_the_options_of_tournament_new_are_the_tables():
    group = typer.main.get_command(app).commands["tournament"]  # type: ignore[attr-defined]
    command = group.commands["new"]
    options = {tuple(param.opts): param for param in command.params if param.opts[0].startswith("-")}
    expected = {key.option.flags: key for key in KEYS if key.option}
    assert set(options) - {("--force",)} == set(expected)
    for flags, key in expected.items():
        assert options[flags].help == key.option.help
        assert options[flags].required == key.required
