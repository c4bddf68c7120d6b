"""`arena bot check` of a running ZeroMQ service: its conversations must stay apart (protocol.md
appendix A). A DEALER service passes every one-conversation check and then mixes the games of two
tables (found by a bot-author audit: illegal and stale faults with two `arena play` runs at once)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.check.runner import check_bot

REPO = Path(__file__).resolve().parents[2]

# A service on a DEALER socket: fine for one conversation, wrong for several. It plays the first
# legal move.
DEALER_SERVICE = """import sys, zmq
s = zmq.Context().socket(zmq.DEALER)
s.bind(sys.argv[1])
while True:
    t = s.recv().decode().split()
    if t[0] == 'hello':
        s.send(b'hello name=dealer')
    elif t[0] == 'request':
        s.send(f'move {t[1]} {t[3]}'.encode())
"""


def _free_endpoint() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"tcp://127.0.0.1:{s.getsockname()[1]}"


def _check_service(tmp_path: Path, argv: list[str], endpoint: str):
    service = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.5)  # bound before the check connects
        (tmp_path / "bot.toml").write_text(f'name = "svc"\ntransport = "zmq"\nendpoint = "{endpoint}"\n')
        report = check_bot(tmp_path, games=2, move_timeout_s=1.0, startup_timeout_s=2.0)
        assert service.poll() is None, "the check must not end the service"
        return {r.name: r for r in report.results}
    finally:
        service.kill()
        service.wait()


@pytest.mark.slow
def test_a_router_service_keeps_conversations_apart(tmp_path):
    endpoint = _free_endpoint()
    rows = _check_service(tmp_path, [sys.executable, str(REPO / "bots" / "zmq_bot" / "bot.py"), "--serve", endpoint],
                          endpoint)
    assert rows["conversations apart"].passed, rows["conversations apart"].detail
    assert all(r.passed for r in rows.values()), {n: r.detail for n, r in rows.items() if not r.passed}


@pytest.mark.slow
def test_a_dealer_service_is_caught_mixing_conversations(tmp_path):
    endpoint = _free_endpoint()
    (tmp_path / "svc.py").write_text(DEALER_SERVICE)
    rows = _check_service(tmp_path, [sys.executable, str(tmp_path / "svc.py"), endpoint], endpoint)
    assert rows["games"].passed  # one conversation at a time: nothing to see
    apart = rows["conversations apart"]
    assert not apart.passed
    assert "(3 open): a DEALER socket? Only a ROUTER" in apart.detail, apart.detail
