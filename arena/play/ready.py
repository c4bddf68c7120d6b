"""A bot made ready to play, for the commands that play (`play`, `tournament run`): what its
manifest asks checked against what the organiser grants (arena/play/startup.py `granted`), then
its copy prepared and built once per version (arena/submission/prepared.py). Each refusal is an
ArenaError with its sentence."""

from __future__ import annotations

from pathlib import Path

from arena.errors import ArenaError
from arena.play.isolation_mode import network_problem
from arena.play.startup import BotSettings, granted, refused_words
from arena.sandbox.folder_copy import copy_refused
from arena.sandbox.isolation import Isolation
from arena.sandbox.limits import Granted, LimitRefused
from arena.submission.manifest import BotManifest
from arena.submission.prepared import PreparedBot, prepare_bot


def ready_bot(manifest: BotManifest, settings: BotSettings, isolation: Isolation | None = None,
              config_path: Path | None = None) -> tuple[PreparedBot, Granted]:
    """The bot prepared, and what it was granted. `config_path`: the tournament's config, which a
    refusal names as where to grant more (else the --grant flag)."""
    try:
        given = granted(manifest, settings)
    except LimitRefused as exc:
        raise ArenaError(refused_words(manifest, exc, config_path)) from None
    refused = network_problem(manifest, given.limits, isolation)
    if refused:
        raise ArenaError(refused)
    try:
        prepared = prepare_bot(manifest, isolation=isolation, limits=given.limits)
    except KeyboardInterrupt:
        # Its processes are killed by then; without this the command ended with exit code 130 and no word.
        raise ArenaError(f"interrupted during the build of {manifest.name} ({' '.join(manifest.build)}): the build "
                         "was stopped, and no game was played", exit_code=130) from None
    refused = copy_refused(prepared.manifest.directory, given.limits) if prepared.manifest.writable_folder else None
    if refused is not None:  # each start would be charged: said once, before any game
        raise ArenaError(f"{manifest.path}: key 'writable_folder': {refused} (docs/sandbox.md)")
    return prepared, given


__all__ = ["ready_bot"]
