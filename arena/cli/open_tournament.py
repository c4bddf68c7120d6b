"""Opening a tournament for a command: its config and bots, and its results to write (a run) or
to read (standings, games, replays), with a clean message for each way that can fail and a note
for what the stored results take from a changed config (more deals, bots added at the end)."""

from __future__ import annotations

from pathlib import Path

from rich.markup import escape

from arena.cli.common import command, err_console, fail
from arena.submission.versions import changed_files
from arena.tournament.resubmission import plan, stored_versions, updated_fingerprint
from arena.wording import count


def prepare(config_path: Path):
    """Load the config and the bots; resolve entries to bot names. Clean errors only."""
    from arena.tournament.config import ConfigError, load_config, load_entries

    try:
        return load_entries(load_config(config_file(config_path)))
    except ConfigError as exc:
        fail(str(exc))


def config_file(given: Path) -> Path:
    """A bare name (`demo`: no folder, no suffix, no such file here) means the workspace's
    tournaments/demo.toml, as `arena tournament new demo` writes it; anything else is a path."""
    from arena.submission.workspace import TOURNAMENTS, find_workspace

    if len(given.parts) != 1 or given.suffix or given.exists():
        return given
    workspace = find_workspace()
    named = workspace / TOURNAMENTS / f"{given.name}.toml" if workspace is not None else None
    return named if named is not None and named.is_file() else given


def open_store(config, manifests, versions: dict[str, str], *, create: bool, update: bool = False,
               files: dict[str, dict[str, str]] | None = None):
    """The results of `config`: to write (`create`: a run, which holds the run lock) or only to
    read (reports, replays). Returns the store and the config, whose game numbering and list of
    entries (withdrawn bots included) are the stored results' own. A run takes resubmitted and
    withdrawn bots with `update` (or the config's on_change = "replay"), else says how. `files`:
    each bot's files' digests, as its prepared version holds them (else read from its folder)."""
    files = files if files is not None else {}
    from dataclasses import replace

    from arena.results.store import ResultStore
    from arena.results.database import StoreBusy
    from arena.results.rows import StoreError
    from arena.tournament.runner import fingerprint

    if not create and not config.database.exists():
        fail(f"no results yet for {config.path}: {config.database} does not exist (run: {command('arena', 'tournament', 'run', config.path)})")
    store = None
    try:
        store = ResultStore(config.database, read_only=not create)
        if create:
            store.lock_for_run()  # before the fingerprint check: a refused run must not raise the deals
            store.check_whole()  # before anything is written: a damaged file is left as it is
        stored = store.fingerprint()
        # Older results keep their table order and game numbers (schedule.numbers.GameNumbers).
        config = replace(config, layout=_stored_layout(stored))
        changes = None
        if stored is not None:
            changes = plan(stored, config.bots, versions, store.bots_played())
            if create:
                # Whether the tournament, as it will be, fits the stored games, before anything is
                # written: a refused run (a renamed bot) once wrote the versions it had planned.
                after = replace(config, bots=changes.entries, withdrawn=changes.withdrawn)
                store.check_fits(updated_fingerprint(stored, changes), fingerprint(after, manifests, changes.versions))
                _take_bot_changes(store, stored, changes, config, manifests, update, files)
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
            for note in _growth_notes(diff, config):
                err_console.print(escape(f"note: {note}"), highlight=False)
            return store, config
        diff = store.diff_from(stored, expected) if stored is not None else None
    except StoreError as exc:
        if store is not None:
            store.close()
        if isinstance(exc, StoreBusy):
            fail(str(exc), code=1)
        fail(f"{exc} (the results file of {config.path}, which its key 'database' can move)")
    changed = dict(diff.changes) if diff is not None else {}
    notes = []
    if "bot_versions" in changed:
        # Bots change after a tournament (their authors go on working): the stored games still
        # are what they are, so reports show them, with a word about it.
        changed.pop("bot_versions")
        notes.append(f"bot files changed since these results were stored ({_resubmitted_words(changes)}); "
                     f"{command('arena', 'tournament', 'run', config.path, '--update')} replays their tables")
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
        fail(f"{config.database} holds results of a different tournament ({', '.join(changed)} changed): "
             + "; ".join(changed.values()) + ". Restore the old settings to read them.")
    for note in notes:
        err_console.print(escape(f"note: {note}; showing the stored games"), highlight=False)
    return store, config


def _take_bot_changes(store, stored: dict, changes, config, manifests, update: bool, files: dict) -> None:
    """Carry out what `changes` says of the stored results: with the organiser's word (`--update`,
    or on_change = "replay") when stored games leave the standings, else fail saying how."""
    if changes.needs_word and not (update or config.on_change == "replay"):
        text = _refusal(store, changes, config, manifests, files)
        store.close()
        fail(text)
    new = updated_fingerprint(stored, changes)
    if new == stored:
        return
    moved = store.supersede(changes.whys(), new)
    for bot, (old, now) in changes.resubmitted.items():
        err_console.print(escape(f"note: {bot} resubmitted (version {old}, now {now}): its stored games are kept "
                                 "out of the standings and its tables are played again, with the same cards"),
                          highlight=False)
    for bot in changes.newly_withdrawn:
        err_console.print(escape(f"note: {bot} withdrawn: its stored games are kept out of the standings, and "
                                 "its tables are no longer played"), highlight=False)
    for bot in changes.rejoined:
        err_console.print(escape(f"note: {bot} is back: its tables are played"), highlight=False)
    if moved:
        err_console.print(escape(f"note: {count(moved, 'stored game')} superseded (kept: arena games "
                                 f"{config.path} --superseded only lists them)"), highlight=False)


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
    return (f"{config.database}: " + "; ".join(parts) + ". To keep the stored games but count only those "
            f"of the bots as they are now (the tables of a changed bot are played again, with the same cards; "
            f"a bot taken out is withdrawn), run: {command('arena', 'tournament', 'run', config.path, '--update')}, "
            f"or set on_change = \"replay\" in {config.path} for runs nobody watches (docs: README, Resubmission)")


def _resubmitted_words(changes) -> str:
    if changes is None or not changes.resubmitted:
        return "their versions differ"
    return ", ".join(f"{bot} was {old}, now {now}" for bot, (old, now) in changes.resubmitted.items())


def _files(manifest) -> dict[str, str]:
    from arena.submission.versions import version_and_files

    return version_and_files(manifest)[1]


def bot_versions(manifests) -> dict[str, str]:
    from arena.submission.manifest import ManifestError
    from arena.submission.versions import content_hash

    try:
        return {name: content_hash(m) for name, m in manifests.items()}
    except ManifestError as exc:
        fail(str(exc))


def _stored_layout(stored: dict | None) -> str:
    """The layout of stored results: new results are PAIRED; a fingerprint without the key is from
    the first arenas (BY_TABLE). A value this arena does not know stays PAIRED, so that the
    fingerprint check names it as a change rather than guessing its numbers."""
    from arena.schedule.numbers import BY_TABLE, LAYOUTS, PAIRED

    if stored is None:
        return PAIRED
    layout = stored.get("game_numbers", BY_TABLE)
    return layout if layout in LAYOUTS else PAIRED


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
