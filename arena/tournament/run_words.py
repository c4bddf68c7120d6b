"""What a tournament run says at its end of what did not go as planned: bots that never started,
games left void (arena/cli/tournament.py words these; the session decides them)."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from arena.tournament.runner import RunSummary
from arena.tournament.session import RunOutcome, TournamentSession
from arena.wording import count
from arena.wording import shell_command as command


def start_failure_words(failures: Sequence[tuple[str, int, str]], session: TournamentSession) -> str | None:
    """Bots that never played: the results stand (each such game is a recorded fault), but a setup
    problem a script must be able to see, as with `arena play`."""
    if not failures:
        return None
    return "\n".join([*(f"{bot} could not start in {count(games, 'game')} ({reason.removeprefix('out of this game: ')}), "
                       f"so its moves there were the referee's. Check it with: {session.check_command(bot)}"
                       for bot, games, reason in failures),
                       "If that was not the bot's doing (your own network down while a service seemed out of reach, "
                       "say), you may play those games again: "
                       f"{session.resume_command()} --replay-faults no_hello"])


def void_words(summary: RunSummary, session: TournamentSession) -> str | None:
    """A run that ended with games it could not play: how many, why, and that the next run plays
    them (first); None when every game was played."""
    if not summary.void:
        return None
    why = "; ".join(f"{bot} ({reason})" for bot, reason in summary.given_up)
    return (f"{count(summary.void, 'game')} void, to be played: run again ({session.resume_command()}), and the "
            f"next run plays them first" + (f". Could not be started or reached: {why}" if why else "")
            + f". They are listed by {command('arena', 'games', session.config_path, '--void')}")


def end_words(outcome: RunOutcome, session: TournamentSession, config_path: Path, final_page: Path | None,
              played_before: int = 0) -> tuple[list[str], list[str]]:
    """A run's last lines, and the problems that make its exit code 1 (void games, bots that never
    started). `final_page`: the --html page, written as the final report; `played_before`: games a
    league's earlier parts of the same command played."""
    summary = outcome.summary
    lines = []
    if outcome.league:
        lines.append(outcome.league)
    elif outcome.test is not None:
        lines.append(f"Early stopping (SPRT): {outcome.test.sentence()}")
    elif summary.played == 0 and not summary.void:
        lines.append(f"nothing to play: all {count(summary.total, 'game')} {'is' if summary.total == 1 else 'are'} "
                     "already stored")
    report = (f"the page {final_page} is the final report" if final_page is not None
              else f"Report: {command('arena', 'standings', config_path, '-o', 'standings.html')}")
    played = played_before + summary.played
    lines.append(f"done: {count(summary.already_done + summary.played, 'game')} stored ({played} played now). {report}")
    problems = [words for words in (void_words(summary, session), session.failed_starts) if words]
    return lines, problems


__all__ = ["end_words", "start_failure_words", "void_words"]
