"""An upload checked and entered, in the child process `python -m arena.server.check_upload`
(arena/server/uploads.py says the whole way): built and checked in the sandbox under the league
config's ceilings and grants, as `arena bot check` does; then, passing, entered: the bot's folder
registered in place of its old version (one rename), the check kept where the league's gate
finds it, the bot added to the config's `bots` when new, and the upload marked entered, in that
order, each step one that a second run of it leaves as the first did."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from arena.server.paths import ServerPaths

BUILD_LOG_CHARS = 20_000


def check_upload(paths: ServerPaths, store: Any, upload_id: int) -> str:
    """Check the upload (if it still waits) and enter it or refuse it; its state after."""
    from arena.check.runner import check_bot
    from arena.tournament.config import load_config

    upload = store.upload(upload_id)
    if upload is None or upload.state != "checking":
        return upload.state if upload is not None else "gone"
    folder = _staged(paths, upload)
    config = load_config(paths.config)
    report = check_bot(folder, sandbox_limits=config.sandbox or None, grants=config.grants,
                       move_timeout_s=config.move_timeout_s, startup_timeout_s=config.startup_timeout_s)
    check = report.to_dict()
    build_log = next((r.detail for r in report.results if r.name == "build"), "")[:BUILD_LOG_CHARS]
    if not report.passed:
        failed = [r for r in report.results if not r.passed]
        reason = "; ".join(f"{r.name}: {r.detail.splitlines()[0] if r.detail else 'failed'}" for r in failed)[:2000]
        store.set_upload(upload_id, "refused", reason=f"its check failed ({reason})", check=check, build_log=build_log)
        return "refused"
    version = enter(paths, folder, upload.bot, check)
    store.set_upload(upload_id, "entered", version=version, check=check, build_log=build_log,
                     reason="passed its check; it plays in the league")
    shutil.rmtree(folder, ignore_errors=True)
    return "entered"


def enter(paths: ServerPaths, folder: Path, name: str, check: dict[str, Any]) -> str:
    """Register the checked folder as the bot's version, keep its check, and name it in the config."""
    from arena.check.admission import keep
    from arena.submission.manifest import read_manifest
    from arena.submission.registry import register, save_check
    from arena.tournament.config_write import add_bot_entry

    registered = register(read_manifest(folder / "bot.toml"), paths.bots, replace=True)
    keep({**check, "version": registered.version})  # what lets this version past the league's check gate
    save_check(registered.directory, {**check, "version": registered.version})
    add_bot_entry(paths.config, paths.bot_entry(name))
    return registered.version


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
    version = enter(paths, folder, upload.bot, upload.check or {})
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


__all__ = ["check_upload", "enter", "let_in"]
