"""The tournament's facts as the reports write them (terminal, Markdown, HTML, JSON, CSV), under the
names arena/tournament/facts.py gives them: a value as text, the empty ones left out for people,
one column each for a CSV."""

from __future__ import annotations


def fact_text(value: object) -> str:
    """A fact as one line of text: a dict as "key=value, ..." (rules, bots)."""
    if isinstance(value, dict):
        return ", ".join(f"{k}={_plain(v)}" for k, v in value.items())
    return _plain(value)


def shown_facts(facts: dict[str, object]) -> dict[str, object]:
    """The facts a report for people lists: those with a value ("challengers" of a round robin,
    the `sprt_*` of a run without early stopping are empty; the CSV keeps them, as columns)."""
    return {key: value for key, value in facts.items() if fact_text(value) != ""}


def _plain(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def flat_facts(facts: dict[str, object]) -> dict[str, str]:
    """One value per name, for a CSV's columns: rules as rule_<option>, bots left out (each row has its version)."""
    flat: dict[str, str] = {}
    for key, value in facts.items():
        if key == "bots":
            continue
        if isinstance(value, dict):
            flat.update({f"rule_{k}": _plain(v) for k, v in value.items()})
        else:
            flat[key] = _plain(value)
    return flat


__all__ = ["fact_text", "flat_facts", "shown_facts"]
