"""Test-only hostile bot: ignores SIGTERM and stdin EOF; only SIGKILL ends it."""

import signal
import sys
import time

signal.signal(signal.SIGTERM, signal.SIG_IGN)
print("ready", flush=True)
sys.stdin.close()
while True:
    time.sleep(1)
