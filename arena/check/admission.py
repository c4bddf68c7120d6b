"""Which versions enter a tournament: those that passed `arena bot check` on this machine, unless the
organiser lets one in without (docs/organising.md, "Checked bots").

A check is kept where no author writes (the per-user cache, `kept_check_path` of
arena/submission/registry.py), keyed by the bot's name and version and holding the digest of the
copy that played (its build). The `.check.json` in a bot's folder is the author's to write, and is
never asked: a record the author could forge must not let a bot in. The bundled bots are the
arena's own, and enter as they are.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.submission.prepared import PreparedBot
from arena.submission.registry import keep_check, load_kept_check
from arena.submission.workspace import is_bundled


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a version does not enter: `why` ends "...", the caller says how to let it in."""

    bot: str
    version: str
    why: str


def refusal(prepared: PreparedBot) -> Refusal | None:
    """None when `prepared` (a bot as a run prepared it) passed its check here, or is a bundled bot;
    else why not."""
    source = prepared.source
    if is_bundled(source.directory):
        return None
    name, version = source.name, prepared.version
    kept = load_kept_check(name, version)
    if kept is None:
        return Refusal(name, version, "has not been checked on this machine")
    date = str(kept.get("date", ""))[:16].replace("T", " ")
    if not kept.get("passed"):
        failed = [row.get("name") for row in kept.get("checks") or () if isinstance(row, dict) and not row.get("passed")]
        rows = f" ({', '.join(str(row) for row in failed)})" if failed else ""
        return Refusal(name, version, f"failed its check of {date}{rows}")
    build = kept.get("build")
    if isinstance(build, str) and build and prepared.build and build != prepared.build:
        return Refusal(name, version, f"passed its check of {date} with build {build}, but its build now is "
                                      f"{prepared.build} (a build that writes different files on each run)")
    return None


# Rows a forced bot may not fail: without a manifest or a build no tournament could start it at all.
UNFORCEABLE_ROWS = ("manifest", "build")


def registration_refusal(failed: list[str], force: bool) -> str | None:
    """Why `arena bot add` does not register a bot whose check failed the rows `failed` (None: it
    does): `force` registers a bot that plays badly (a student's broken bot, to lose by its
    faults), never one that could not be started."""
    if not failed:
        return None
    unplayable = [name for name in failed if name in UNFORCEABLE_ROWS]
    if not force:
        return "fix the failing checks first, or add --force to register it all the same (each fault is then charged to it)"
    if unplayable:
        return (f"--force registers a bot that plays badly, not one whose {' and '.join(unplayable)} failed: a "
                "tournament could not start it")
    return None


def keep(report_dict: dict) -> None:
    """Keep a check (CheckReport.to_dict()) as the record its version is admitted by; OSError when
    the cache cannot be written."""
    if report_dict.get("version"):
        keep_check(str(report_dict.get("bot")), report_dict)


__all__ = ["Refusal", "refusal", "keep", "registration_refusal", "UNFORCEABLE_ROWS"]
