"""Tests that compare the results of real processes run twice must not depend on the machine's load:
they run with time limits no loaded machine reaches, and check that no stored game has a fault
that only load would cause (a move timeout, a bot that did not start in time), so that a
difference load could cause is named as such instead of passing or failing by chance."""

from __future__ import annotations

from pathlib import Path
from tests.db_support import connected

GENEROUS_LIMITS = "[limits]\nmove_timeout_s = 30.0\nstartup_timeout_s = 60.0\n"
GENEROUS_LIMIT_OPTIONS = ("--move-timeout", "30", "--startup-timeout", "60")
LOAD_FAULTS = ("timeout", "no_hello")


def assert_no_load_faults(database: Path) -> None:
    """No game in `database` has a timeout or a failed start: the runs compared were not load's."""
    with connected(database, read_only=True) as db:
        found = db.execute(f"SELECT kind, COUNT(*) FROM faults WHERE kind IN {LOAD_FAULTS} GROUP BY kind").fetchall()
    assert found == [], (f"{database}: faults that load causes ({found}): the results compared here would differ "
                         "for the machine's sake, not the arena's")
