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
from pathlib import Path

from arena.submission.manifest import BotManifest, ManifestError
from arena.submission.prepared import PreparedBot
from arena.submission.registry import keep_check, load_kept_check
from arena.submission.versions import content_hash
from arena.submission.workspace import is_bundled
from arena.wording import count, shell_command


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a version does not enter: `why` ends "...", the caller says how to let it in."""

    bot: str
    version: str
    why: str


def needs_check(directory: Path) -> bool:
    """Whether the bot of this folder enters only once checked: every bot but the bundled ones."""
    return not is_bundled(directory)


def refusal(prepared: PreparedBot) -> Refusal | None:
    """None when `prepared` (a bot as a run prepared it) passed its check here, or is a bundled bot;
    else why not."""
    source = prepared.source
    if not needs_check(source.directory):
        return None
    name, version = source.name, prepared.version
    kept = load_kept_check(name, version)
    if kept is None or not kept.get("passed"):
        return _kept_refusal(name, version, kept)
    date = check_date(kept)
    build = kept.get("build")
    if isinstance(build, str) and build and prepared.build and build != prepared.build:
        return Refusal(name, version, f"passed its check of {date} with build {build}, but its build now is "
                                      f"{prepared.build} (a build that writes different files on each run)")
    return None


def source_refusal(source: BotManifest) -> Refusal | None:
    """As `refusal`, before any run has built the bot (`arena tournament new`): by its files'
    version alone, so a build that changes between runs is only found by the run."""
    if not needs_check(source.directory):
        return None
    try:
        version = content_hash(source)
    except ManifestError as exc:  # a file of the folder refused: the run will refuse it too, saying so
        return Refusal(source.name, "", f"cannot be read ({exc})")
    return _kept_refusal(source.name, version, load_kept_check(source.name, version))


def unchecked_words(manifests: dict[str, BotManifest], config_path: Path) -> list[str]:
    """What `arena tournament new` says of the bots its run will refuse as they are now (`source_refusal`),
    a line each with the command that checks it, and how to let one in all the same; [] for none."""
    refused = [found for found in map(source_refusal, manifests.values()) if found is not None]
    if not refused:
        return []
    lines = [f"{count(len(refused), 'bot')} will not play until {'its' if len(refused) == 1 else 'their'} version "
             "passes `arena bot check` on this machine:"]
    lines += [f"  {found.bot}{f' version {found.version}' if found.version else ''} {found.why}: "
              f"{shell_command('arena', 'bot', 'check', manifests[found.bot].directory)}" for found in refused]
    return lines + [f"or let one in without its check: add [grant.{refused[0].bot}] unchecked = true to {config_path} "
                    "(that bot, every run), or run with --unchecked (every bot, that run)"]


def kept_pass(source: BotManifest) -> dict | None:
    """The check kept here of the bot's current version, when it passed (`bot add` registers on it
    rather than checking the same files again); None when there is none, it failed, or the folder
    cannot be hashed (a check says why)."""
    try:
        version = content_hash(source)
    except ManifestError:
        return None
    kept = load_kept_check(source.name, version)
    return kept if kept is not None and kept.get("passed") and kept.get("version") == version else None


def _kept_refusal(name: str, version: str, kept: dict | None) -> Refusal | None:
    """Why the kept check `kept` of this version does not let it in: none, or a failed one."""
    if kept is None:
        return Refusal(name, version, "has not been checked on this machine")
    if kept.get("passed"):
        return None
    failed = [row.get("name") for row in kept.get("checks") or () if isinstance(row, dict) and not row.get("passed")]
    rows = f" ({', '.join(str(row) for row in failed)})" if failed else ""
    return Refusal(name, version, f"failed its check of {check_date(kept)}{rows}")


def check_date(kept: dict) -> str:
    """When a kept check was made, to the minute: "2025-01-01 12:00"."""
    return str(kept.get("date", ""))[:16].replace("T", " ")


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


__all__ = ["Refusal", "needs_check", "refusal", "source_refusal", "unchecked_words", "kept_pass", "check_date", "keep", "registration_refusal", "UNFORCEABLE_ROWS"]
