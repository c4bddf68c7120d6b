"""Uploads checked and entered, in the child process `python -m arena.server.check_upload`
(arena/server/uploads.py says the whole way): each built and checked in the sandbox under the
league config's ceilings and grants, as `arena bot check` does; a failing one refused with its
reason; then the passing ones entered together: each bot's folder registered in place of its old
version (one rename), its check kept where the league's gate finds it, the new bots added to the
config's `bots` in one write (a running league takes them in one change, not one each), and the
uploads marked entered, in that order, each step one that a second run of it leaves as the first did."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.server.paths import ServerPaths

if TYPE_CHECKING:
    from arena.check.verdicts import CheckReport

BUILD_LOG_CHARS = 20_000


@dataclass(frozen=True)
class Passed:
    """An upload whose check passed, to enter."""

    upload_id: int
    bot: str
    folder: Path
    check: dict[str, Any]
    build_log: str


def check_uploads(paths: ServerPaths, store: Any, upload_ids: list[int]) -> dict[int, str]:
    """Check the uploads (those still waiting), then enter the passing ones; each one's state after."""
    states: dict[int, str] = {}
    passed: list[Passed] = []
    for upload_id in upload_ids:
        found = _check(paths, store, upload_id)
        if isinstance(found, Passed):
            passed.append(found)
        else:
            states[upload_id] = found
    versions = enter(paths, [(item.folder, item.bot, item.check) for item in passed])
    for item, version in zip(passed, versions):
        store.set_upload(item.upload_id, "entered", version=version, check=item.check, build_log=item.build_log,
                         reason="passed its check; it plays in the league")
        shutil.rmtree(item.folder, ignore_errors=True)
        states[item.upload_id] = "entered"
    return states


def _check(paths: ServerPaths, store: Any, upload_id: int) -> Passed | str:
    """The upload checked: Passed, or its state (refused; or as it was, if it no longer waits)."""
    upload = store.upload(upload_id)
    if upload is None or upload.state != "checking":
        return upload.state if upload is not None else "gone"
    folder = _staged(paths, upload)
    report = check_folder(paths, folder)
    check = report.to_dict()
    build_log = next((r.detail for r in report.results if r.name == "build"), "")[:BUILD_LOG_CHARS]
    if report.passed:
        return Passed(upload_id, upload.bot, folder, check, build_log)
    failed = [r for r in report.results if not r.passed]
    reason = "; ".join(f"{r.name}: {r.detail.splitlines()[0] if r.detail else 'failed'}" for r in failed)[:2000]
    store.set_upload(upload_id, "refused", reason=f"its check failed ({reason})", check=check, build_log=build_log)
    return "refused"


def check_folder(paths: ServerPaths, folder: Path) -> CheckReport:
    """The bot in `folder` checked as `arena bot check` does, under the league config's ceilings,
    grants and time limits: its CheckReport."""
    from arena.check.runner import check_bot
    from arena.tournament.config import load_config

    config = load_config(paths.config)
    return check_bot(folder, sandbox_limits=config.sandbox or None, grants=config.grants,
                     move_timeout_s=config.move_timeout_s, startup_timeout_s=config.startup_timeout_s)


def enter(paths: ServerPaths, bots: list[tuple[Path, str, dict[str, Any]]]) -> list[str]:
    """Register each checked folder as its bot's version (in order: a bot's later upload last), keep
    its check, and name the new bots in the config in one write; the versions registered."""
    from arena.check.admission import keep
    from arena.submission.manifest import read_manifest
    from arena.submission.registry import register, save_check
    from arena.tournament.config_write import add_bot_entry

    versions = []
    for folder, _, check in bots:
        registered = register(read_manifest(folder / "bot.toml"), paths.bots, replace=True)
        keep({**check, "version": registered.version})  # what lets this version past the league's check gate
        save_check(registered.directory, {**check, "version": registered.version})
        versions.append(registered.version)
    if bots:
        add_bot_entry(paths.config, *(paths.bot_entry(name) for _, name, _ in bots))
    return versions


def let_in(paths: ServerPaths, store: Any, upload_id: int) -> None:
    """The organiser lets a refused upload in anyway: entered as it is, with `[grant.NAME] unchecked
    = true` in the config (its faults are charged to it; docs/organising.md)."""
    from arena.errors import ArenaError
    from arena.tournament.config_write import grant_unchecked

    upload = store.upload(upload_id)
    if upload is None or upload.state != "refused":
        raise ArenaError(f"upload {upload_id} is not a refused one")
    folder = _staged(paths, upload)
    grant_unchecked(paths.config, upload.bot)
    (version,) = enter(paths, [(folder, upload.bot, upload.check or {})])
    store.set_upload(upload_id, "forced", version=version, reason="let in by the organiser although its check failed")
    shutil.rmtree(folder, ignore_errors=True)


def _staged(paths: ServerPaths, upload: Any) -> Path:
    """The upload's unpacked folder, unpacked again from its archive if it is gone (a server stopped)."""
    from arena.submission.intake import unpack_archive

    folder = Path(upload.folder)
    if (folder / "bot.toml").is_file():
        return folder
    target = paths.staging / f"upload-{upload.id}"
    shutil.rmtree(target, ignore_errors=True)
    return unpack_archive(Path(upload.archive), target).folder


__all__ = ["Passed", "check_folder", "check_uploads", "enter", "let_in"]
