"""The registry of live transports: `close_all()` (at exit, or on the CLI's Ctrl-C/SIGTERM) reaches
every bot the arena still has, so none is left behind."""

from __future__ import annotations

import atexit
import logging
import threading
from typing import Protocol


class _Closable(Protocol):
    def close(self) -> None: ...


log = logging.getLogger(__name__)
_live: dict[int, _Closable] = {}
_live_lock = threading.Lock()


def register(obj: _Closable) -> None:
    """Remember a live transport so close_all() can reach it."""
    with _live_lock:
        _live[id(obj)] = obj


def unregister(obj: _Closable) -> None:
    with _live_lock:
        _live.pop(id(obj), None)


def close_all() -> None:
    """Close every live transport, in parallel so N stubborn bots cost one grace, not N."""
    with _live_lock:
        objs = list(_live.values())
    threads = [threading.Thread(target=_quiet_close, args=(o,), daemon=True) for o in objs]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10.0)


def _quiet_close(obj: _Closable) -> None:
    try:
        obj.close()
    except Exception:  # noqa: BLE001 - at exit, whatever one close() met must not stop the others
        log.warning("closing %r at exit", obj, exc_info=True)


atexit.register(close_all)
