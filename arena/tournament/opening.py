"""Opening a tournament for a command: its config and bots, and its results to write (a run) or
to read (standings, games, replays). Each way that can fail is an ArenaError with its sentence;
what the stored results take from a changed config (more deals, bots added at the end, a
resubmitted or withdrawn bot) is said through `note`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

from arena.errors import ArenaError
from arena.results.database import StoreBusy
from arena.results.rows import StoreError
from arena.results.store import ResultStore
from arena.submission.manifest import BotManifest
from arena.submission.versions import changed_files, content_hash, version_and_files
from arena.tournament.config import TournamentConfig, load_config, load_entries
from arena.tournament.output_files import refuse_unwritable
from arena.tournament.resubmission import plan, stored_versions, updated_fingerprint
from arena.tournament.runner import fingerprint
from arena.wording import count
from arena.wording import shell_command as command

Note = Callable[[str], None]


def load_tournament(config_path: Path) -> tuple[TournamentConfig, dict[str, BotManifest]]:
    """The config and its bots, entries resolved to bot names (ConfigError: its sentence)."""
    return load_entries(load_config(config_file(config_path)))


def own_file(output: Path, config: TournamentConfig) -> str | None:
    """What of the tournament's own files `output` is ("config", "results database"), or None: a
    report written there would destroy it."""
    from arena.results.database import COMPANION_SUFFIXES

    database = config.database
    own = {config.path: "config", database: "results database"}
    own.update({database.with_name(database.name + suffix): "results database" for suffix in COMPANION_SUFFIXES})
    target = output.resolve()
    for path, what in own.items():
        if path.resolve() == target or _same_file(path, output):  # a hard link has another name
            return what
    return None


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet): not the same file
        return False


def config_file(given: Path) -> Path:
    """A bare name (`demo`: no folder, no suffix, no such file here) means the workspace's
    tournaments/demo.toml, as `arena tournament new demo` writes it; anything else is a path."""
    from arena.submission.workspace import TOURNAMENTS, find_workspace

    if len(given.parts) != 1 or given.suffix or given.exists():
        return given
    workspace = find_workspace()
    named = workspace / TOURNAMENTS / f"{given.name}.toml" if workspace is not None else None
    return named if named is not None and named.is_file() else given


def open_results(config: TournamentConfig, manifests: dict[str, BotManifest], versions: dict[str, str], *,
                 create: bool, update: bool = False, files: dict[str, dict[str, str]] | None = None,
                 note: Note = lambda line: None) -> tuple[ResultStore, TournamentConfig]:
    """The results of `config`: to write (`create`: a run, which holds the run lock) or only to
    read (reports, replays). Returns the store and the config, whose game numbering and list of
    entries (withdrawn bots included) are the stored results' own. A run takes resubmitted and
    withdrawn bots with `update` (or the config's on_change = "replay"), else says how. `files`:
    each bot's files' digests, as its prepared version holds them (else read from its folder)."""
    files = files if files is not None else {}
    from dataclasses import replace

    if not create and not config.database.exists():
        raise ArenaError(f"no results yet for {config.path}: {config.database} does not exist (run: "
                         f"{command('arena', 'tournament', 'run', config.path)})")
    if create:  # the results are written: a regular file or a new one, never a device, FIFO or link
        refuse_unwritable(config.database, "the results database")
    store = None
    try:
        store = ResultStore(config.database, read_only=not create)
        if create:
            store.lock_for_run()  # before the fingerprint check: a refused run must not raise the deals
            store.check_whole()  # before anything is written: a damaged file is left as it is
            store.upgrade()  # the totals of a file an earlier arena wrote
        stored = store.fingerprint()
        if create:
            from arena.tournament.league_final import refuse_after_freeze

            refuse_after_freeze(config, stored, versions)  # a frozen league takes no new bot or version
        # Older results keep their table order and game numbers (schedule.numbers.GameNumbers).
        config = replace(config, layout=_stored_layout(stored, config.kind.new_layout), seeds=_stored_seeds(stored))
        changes = None
        if stored is not None:
            changes = plan(stored, config.bots, versions, store.bots_played())
            if create:
                # Whether the tournament, as it will be, fits the stored games, before anything is
                # written: a refused run (a renamed bot) once wrote the versions it had planned.
                after = replace(config, bots=changes.entries, withdrawn=changes.withdrawn)
                store.check_fits(updated_fingerprint(stored, changes), fingerprint(after, manifests, changes.versions))
                _take_bot_changes(store, stored, changes, config, manifests, update, files, note)
                config = replace(config, bots=changes.entries, withdrawn=changes.withdrawn)
                versions = changes.versions
            else:  # the stored games as they are: a withdrawal not yet run is not in them
                config = replace(config, bots=changes.entries, withdrawn=tuple(
                    name for name in changes.withdrawn if name not in changes.newly_withdrawn))
                versions = {**changes.versions, **{name: stored_versions(stored).get(name, "") for name in
                                                   changes.newly_withdrawn}}
        expected = fingerprint(config, manifests, versions)
        if create:
            diff = store.check_fingerprint(expected)
            store.record_versions([(name, versions[name], files.get(name) or _files(manifests[name]))
                                   for name in manifests])
            for line in _growth_notes(diff, config):
                note(line)
            return store, config
        diff = store.diff_from(stored, expected) if stored is not None else None
    except StoreError as exc:
        if store is not None:
            store.close()
        if isinstance(exc, StoreBusy):
            raise
        raise StoreError(f"{exc} (the results file of {config.path}, which its key 'database' can move)") from None
    except BaseException:  # a refusal below, or a Ctrl-C: the file stays as it was, and closed
        if store is not None:
            store.close()
        raise
    _refuse_or_note_for_reading(store, config, diff, changes, note)
    return store, config


def _refuse_or_note_for_reading(store: ResultStore, config: TournamentConfig, diff: Any, changes: Any,
                                note: Note) -> None:
    """Results opened to read: a different tournament's refused (the store closed), else a note
    for each change the next run would carry out (resubmitted, withdrawn or added bots, deals)."""
    changed = dict(diff.changes) if diff is not None else {}
    notes = []
    if "bot_versions" in changed:
        # Bots change after a tournament (their authors go on working): the stored games still
        # are what they are, so reports show them, with a word about it.
        changed.pop("bot_versions")
        notes.append(f"bot files changed since these results were stored ({_resubmitted_words(changes)}); "
                     f"{command('arena', 'tournament', 'run', config.path, '--update')} "
                     + ("takes the new versions" if config.kind.open_ended else "replays their tables"))
    if changes is not None and changes.newly_withdrawn:
        notes.append(f"the config leaves out {', '.join(changes.newly_withdrawn)}: "
                     f"{command('arena', 'tournament', 'run', config.path, '--update')} withdraws them")
    if diff is not None and diff.deals_from is not None and diff.deals_from < config.deals:
        notes.append(f"the config has {config.deals} deals, the results {diff.deals_from}: "
                     f"{command('arena', 'tournament', 'run', config.path)} plays the new ones")
    added = _added_bots(diff, config)
    if added:
        notes.append(f"the config adds {', '.join(added)}: {command('arena', 'tournament', 'run', config.path)} "
                     "plays the new tables")
    if changed:
        store.close()
        raise ArenaError(f"{config.database} holds results of a different tournament ({', '.join(changed)} changed): "
                         + "; ".join(changed.values()) + ". Restore the old settings to read them.")
    for line in notes:
        note(f"{line}; showing the stored games")


def _take_bot_changes(store: ResultStore, stored: dict[str, Any], changes: Any, config: TournamentConfig,
                      manifests: dict[str, BotManifest], update: bool, files: dict[str, dict[str, str]],
                      note: Note) -> None:
    """Carry out what `changes` says of the stored results: with the organiser's word (`--update`,
    or on_change = "replay") when stored games leave the standings, else refuse saying how."""
    if changes.needs_word and not (update or config.on_change == "replay"):
        raise ArenaError(_refusal(store, changes, config, manifests, files))
    new = updated_fingerprint(stored, changes)
    if new == stored:
        return
    moved = store.supersede(changes.whys(), new)
    league = config.kind.open_ended  # a league plays no table again: a new version is seated at new ones
    for bot, (old, now) in changes.resubmitted.items():
        note(f"{bot} resubmitted (version {old}, now {now}): its stored games are kept out of the standings and "
             + ("it starts again, unrated, at new tables" if league else "its tables are played again, with the same cards"))
    for bot in changes.newly_withdrawn:
        note(f"{bot} withdrawn: its stored games are kept out of the standings, and "
             + ("it is seated at no more tables" if league else "its tables are no longer played"))
    for bot in changes.rejoined:
        note(f"{bot} is back: " + ("it is seated at new tables" if league else "its tables are played"))
    if moved:
        note(f"{count(moved, 'stored game')} superseded (kept: arena games {config.path} --superseded only lists them)")


def _refusal(store, changes, config, manifests, files: dict) -> str:
    """Why a run stops where bots changed, which files, and the two ways on."""
    parts = []
    for bot, (old, now) in changes.resubmitted.items():
        before = store.version_files(bot, old)
        now_files = files.get(bot) or _files(manifests[bot])
        words = (changed_files(before, now_files) if before is not None
                 else "the files of the stored version were not recorded (results of an older arena)")
        parts.append(f"{bot}'s files changed since its games were stored (version {old}, now {now}: {words})")
    for bot in changes.newly_withdrawn:
        parts.append(f"{bot} is not in the config's bots any more, and has stored games")
    again = ("a changed bot starts again, unrated, at new tables" if config.kind.open_ended
             else "the tables of a changed bot are played again, with the same cards")
    return (f"{config.database}: " + "; ".join(parts) + ". To keep the stored games but count only those "
            f"of the bots as they are now ({again}; "
            f"a bot taken out is withdrawn), run: {command('arena', 'tournament', 'run', config.path, '--update')}, "
            f"or set on_change = \"replay\" in {config.path} for runs nobody watches (docs/organising.md, Resubmission and withdrawal)")


def _resubmitted_words(changes) -> str:
    if changes is None or not changes.resubmitted:
        return "their versions differ"
    return ", ".join(f"{bot} was {old}, now {now}" for bot, (old, now) in changes.resubmitted.items())


def _files(manifest: BotManifest) -> dict[str, str]:
    return version_and_files(manifest)[1]


def open_to_read(config_path: Path, note: Note = lambda line: None
                 ) -> tuple[ResultStore, TournamentConfig, dict[str, BotManifest]]:
    """A tournament's stored results to read (reports, games, replays), its config as the results
    have it (their numbering, their entries with withdrawn bots), and its bots."""
    config, manifests = load_tournament(config_path)
    store, config = open_results(config, manifests, bot_versions(manifests), create=False, note=note)
    return store, config, manifests


def bot_versions(manifests: dict[str, BotManifest]) -> dict[str, str]:
    """Each bot's version now, from its folder (ManifestError names a file it cannot take)."""
    return {name: content_hash(m) for name, m in manifests.items()}


def _stored_layout(stored: dict | None, new: str) -> str:
    """The layout of stored results: new results are their kind's (`new`: PAIRED, a league's
    BY_TABLE); a fingerprint without the key is from
    the first arenas (BY_TABLE). A value this arena does not know stays PAIRED, so that the
    fingerprint check names it as a change rather than guessing its numbers."""
    from arena.schedule.numbers import BY_TABLE, LAYOUTS, PAIRED

    if stored is None:
        return new
    layout = stored.get("game_numbers", BY_TABLE)
    return layout if layout in LAYOUTS else PAIRED


def _stored_seeds(stored: dict | None) -> str | None:
    """How stored results seed their deals: as their fingerprint says, by their bots when it says
    nothing (every result before paired gauntlets); None for a new tournament (its kind's way).
    A value this arena does not know is not guessed at: the fingerprint check names the change."""
    from arena.schedule.games import SEED_SCHEMES, SEEDS_BY_BOTS

    if stored is None:
        return None
    seeds = stored.get("deal_seeds", SEEDS_BY_BOTS)
    return seeds if seeds in SEED_SCHEMES else None


def _added_bots(diff, config) -> list[str]:
    if diff is None or diff.bots_from is None:
        return []
    return [name for name in config.bots if name not in diff.bots_from]


def _growth_notes(diff, config) -> list[str]:
    """What a run says when the stored results take the config's other deals or bots."""
    if diff is None:
        return []
    notes = []
    if diff.deals_from is not None and diff.deals_from < config.deals:
        notes.append(f"deals raised from {diff.deals_from} to {config.deals}: the stored games stay, "
                     "and the new deals are played")
    elif diff.deals_from is not None:
        notes.append(f"deals lowered from {diff.deals_from} to {config.deals}: no game of the dropped deals was stored")
    added = _added_bots(diff, config)
    if added:
        notes.append(f"{'bot' if len(added) == 1 else 'bots'} added: {', '.join(added)}: the stored games stay, "
                     "and the new tables are played")
    elif diff.bots_from is not None:
        dropped = [name for name in diff.bots_from if name not in config.bots]
        notes.append(f"{'bot' if len(dropped) == 1 else 'bots'} taken out: {', '.join(dropped)}: "
                     "none of their games was stored")
    return notes
