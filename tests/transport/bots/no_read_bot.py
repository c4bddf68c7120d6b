"""Test-only hostile bot: never reads stdin (the arena's writes must time out)."""

import time

time.sleep(60)
