"""ZmqTransport: arena-started bots over ipc/tcp, a shared service, CurveZMQ auth."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import zmq

from arena.transport import BotExited, BotTimeout, BotUnreachable, LineTooLong, Transport
from arena.transport.process_tree import pid_alive
from arena.transport.zmq import ZmqTransport
from arena.transport.zmq_keys import generate_keypair, is_local_endpoint

BOT = str(Path(__file__).parent / "bots" / "zmq_echo_bot.py")


def free_tcp_endpoint() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"tcp://127.0.0.1:{s.getsockname()[1]}"


@pytest.mark.parametrize("kind", ["ipc", "tcp"])
def test_arena_started_round_trip(kind: str, tmp_path: Path) -> None:
    t = ZmqTransport.start([sys.executable, BOT], endpoint_kind=kind,
                           stderr_log_path=str(tmp_path / "err.log"))
    try:
        assert isinstance(t, Transport)
        assert t.endpoint.startswith(kind + "://")
        for i in range(1, 21):
            t.send(f"move {i} ♠")
            assert t.receive(10.0) == f"{i} move {i} ♠"
    finally:
        t.close()
    assert not pid_alive(t.pid)  # type: ignore[arg-type]
    assert "listening on" in (tmp_path / "err.log").read_text()


def test_send_many_sends_each_line_as_its_own_message_in_order(tmp_path: Path) -> None:
    """protocol.md: one line per message, so a request and the events queued before it are
    several messages, whichever way the referee sends them."""
    t = ZmqTransport.start([sys.executable, BOT], stderr_log_path=str(tmp_path / "err.log"))
    try:
        t.send_many(["event play 1 Kd", "event play 2 Qd", "request 1 1 pickup"])
        assert [t.receive(10.0) for _ in range(3)] == ["1 event play 1 Kd", "2 event play 2 Qd", "3 request 1 1 pickup"]
    finally:
        t.close()


class _FullOnce:
    """A socket whose queue is full for one send: the rest of the lines must still go, in order."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []
        self.refused = False

    def send(self, data: bytes, flags: int = 0) -> None:
        if len(self.sent) == 1 and not self.refused:
            self.refused = True
            raise zmq.Again()
        self.sent.append(data)

    def poll(self, timeout_ms: float, flags: int = 0) -> int:
        return flags


def test_send_many_waits_for_room_and_keeps_the_order(tmp_path: Path) -> None:
    t = ZmqTransport.start([sys.executable, BOT], stderr_log_path=str(tmp_path / "err.log"))
    real, fake = t._sock, _FullOnce()
    try:
        t._sock = fake
        t.send_many(["a", "b", "c"])
    finally:
        t._sock = real
        t.close()
    assert fake.refused and fake.sent == [b"a", b"b", b"c"]


def test_endpoint_token_substituted_in_argv() -> None:
    t = ZmqTransport.start([sys.executable, BOT, "{endpoint}"], env={"PATH": "/usr/bin"})
    try:
        t.send("hi")
        assert t.receive(10.0) == "1 hi"
    finally:
        t.close()


def assert_crash_seen_quickly(t: ZmqTransport, message: str) -> None:
    """Make the echo bot exit mid-conversation: BotExited well before the 30 s deadline."""
    try:
        t.send("warmup")
        assert t.receive(10.0) == "1 warmup"
        t.send("crash")
        t0 = time.monotonic()
        with pytest.raises(BotExited, match=message):
            t.receive(30.0)
        assert time.monotonic() - t0 < 5.0
    finally:
        t.close()


def test_an_overlong_message_is_overlong_and_the_connection_stays() -> None:
    # libzmq dropped the connection at 8194 bytes: the fault read "exited", and the referee's
    # fault line then waited 5 s for a send that could not go.
    t = ZmqTransport.start([sys.executable, BOT], max_line_bytes=8192)
    try:
        t.send("big 20000")
        with pytest.raises(LineTooLong, match="20000-byte message"):
            t.receive(10.0)
        t.send("hello")
        assert t.receive(10.0) == "1 hello"
    finally:
        t.close()


def test_bot_crash_detected_quickly() -> None:
    # the reason on its stderr is in the message, as for a pipe bot
    assert_crash_seen_quickly(ZmqTransport.start([sys.executable, BOT]),
                              r"exit code 3\); its stderr says: RuntimeError: asked to crash")


def test_silent_bot_times_out() -> None:
    t = ZmqTransport.start([sys.executable, BOT])
    try:
        t.send("hello")
        assert t.receive(10.0) == "1 hello"
        t.send("silent")
        with pytest.raises(BotTimeout):
            t.receive(0.3)
    finally:
        t.close()


def test_missing_executable() -> None:
    with pytest.raises(BotUnreachable, match="no-such-zmq-bot"):
        ZmqTransport.start(["/nonexistent/no-such-zmq-bot"])


@pytest.fixture
def service(request: pytest.FixtureRequest) -> Iterator[str]:
    endpoint = free_tcp_endpoint()
    extra = getattr(request, "param", [])
    p = subprocess.Popen([sys.executable, BOT, endpoint, *extra], stdin=subprocess.PIPE)
    yield endpoint
    p.stdin.close()  # type: ignore[union-attr]
    try:
        p.wait(5)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def test_service_two_concurrent_conversations(service: str) -> None:
    a = ZmqTransport.connect(service)
    b = ZmqTransport.connect(service)
    try:
        a.send("a1")
        b.send("b1")
        a.send("a2")
        assert b.receive(10.0) == "1 b1"
        assert a.receive(10.0) == "1 a1"
        assert a.receive(10.0) == "2 a2"
        b.send("b2")
        assert b.receive(10.0) == "2 b2"
    finally:
        a.close()
        b.close()
        a.close()


def test_service_that_goes_away_mid_game_is_seen_at_once(service: str) -> None:
    """No process to watch: the connection monitor ends the wait, not the move limit."""
    assert_crash_seen_quickly(ZmqTransport.connect(service), "dropped the connection")


def test_non_loopback_requires_curve() -> None:
    with pytest.raises(BotUnreachable, match="CurveZMQ"):
        ZmqTransport.connect("tcp://192.0.2.10:5555")
    with pytest.raises(BotUnreachable, match="incomplete"):
        ZmqTransport.connect("tcp://192.0.2.10:5555", server_public_key="x" * 40)


def test_is_local_endpoint() -> None:
    assert is_local_endpoint("ipc:///tmp/x.sock")
    assert is_local_endpoint("tcp://127.0.0.1:5")
    assert is_local_endpoint("tcp://127.8.0.1:5")
    assert is_local_endpoint("tcp://localhost:5")
    assert is_local_endpoint("tcp://[::1]:5")
    assert not is_local_endpoint("tcp://10.0.0.1:5")
    assert not is_local_endpoint("tcp://example.org:5")
    assert not is_local_endpoint("tcp://[2001:db8::1]:5")


@pytest.fixture
def curve_service(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    keys = tmp_path / "keys"
    allowed = tmp_path / "allowed"
    generate_keypair(str(keys), "server")
    generate_keypair(str(keys), "good")
    generate_keypair(str(keys), "bad")
    allowed.mkdir()
    (allowed / "good.key").write_bytes((keys / "good.key").read_bytes())
    endpoint = free_tcp_endpoint()
    p = subprocess.Popen([sys.executable, BOT, endpoint, "--curve", str(keys / "server.key_secret"),
                          "--allow", str(allowed)], stdin=subprocess.PIPE)
    yield endpoint, keys
    p.stdin.close()  # type: ignore[union-attr]
    try:
        p.wait(5)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def test_curve_authorised_client_accepted(curve_service: tuple[str, Path]) -> None:
    endpoint, keys = curve_service
    t = ZmqTransport.connect(endpoint, server_public_key=str(keys / "server.key"),
                             client_cert_path=str(keys / "good.key_secret"))
    try:
        t.send("secret hello")
        assert t.receive(10.0) == "1 secret hello"
    finally:
        t.close()


def test_curve_z85_text_keys(curve_service: tuple[str, Path]) -> None:
    endpoint, keys = curve_service
    server_pub, _ = zmq.auth.load_certificate(keys / "server.key")
    pub, sec = zmq.auth.load_certificate(keys / "good.key_secret")
    t = ZmqTransport.connect(endpoint, server_public_key=server_pub.decode(),
                             client_public_key=pub.decode(), client_secret_key=sec)
    try:
        t.send("z85")
        assert t.receive(10.0) == "1 z85"
    finally:
        t.close()


def test_curve_unknown_client_refused(curve_service: tuple[str, Path]) -> None:
    endpoint, keys = curve_service
    t = ZmqTransport.connect(endpoint, server_public_key=str(keys / "server.key"),
                             client_cert_path=str(keys / "bad.key_secret"))
    try:
        t.send("let me in")
        started = time.monotonic()
        with pytest.raises(BotUnreachable, match="authentication"):
            t.receive(20.0)
        # told at once, not after the whole wait: libzmq retries refused keys forever
        assert time.monotonic() - started < 10.0
    finally:
        t.close()


def test_plain_client_to_curve_service_never_answered(curve_service: tuple[str, Path]) -> None:
    endpoint, _ = curve_service
    t = ZmqTransport.connect(endpoint)  # loopback, so no keys needed client-side
    try:
        t.send("hello?")
        with pytest.raises((BotUnreachable, BotTimeout)):
            t.receive(1.0)
    finally:
        t.close()


def test_connect_to_nothing_is_unreachable() -> None:
    t = ZmqTransport.connect(free_tcp_endpoint())
    try:
        t.send("anyone?")
        with pytest.raises(BotUnreachable, match="never connected"):
            t.receive(0.5)
    finally:
        t.close()


def test_ipc_folders_of_a_killed_arena_are_removed_by_the_next(tmp_path):
    """An arena killed with SIGKILL never ran its clean-up: its ipc folders (with the socket
    files in them) piled up in /tmp. A folder is an arena's while it holds the folder's lock, in
    whatever PID namespace it runs."""
    import fcntl

    from arena.transport.ipc_folders import IPC_FOLDER_PREFIX, IPC_LOCK_NAME, remove_stale_ipc_folders

    stale, live = tmp_path / f"{IPC_FOLDER_PREFIX}stale", tmp_path / f"{IPC_FOLDER_PREFIX}live"
    unlocked_old, unlocked_new = tmp_path / f"{IPC_FOLDER_PREFIX}old", tmp_path / f"{IPC_FOLDER_PREFIX}new"
    other = tmp_path / "someone-else"
    for folder in (stale, live, unlocked_old, unlocked_new, other):
        folder.mkdir()
        (folder / "bot.sock").write_text("")
    (stale / IPC_LOCK_NAME).write_text("")  # its arena is gone: nobody holds the lock
    held = os.open(live / IPC_LOCK_NAME, os.O_RDWR | os.O_CREAT)
    fcntl.flock(held, fcntl.LOCK_EX)  # a running arena's
    os.utime(unlocked_old, (time.time() - 3600, time.time() - 3600))  # an older arena's, without a lock
    try:
        remove_stale_ipc_folders(str(tmp_path))
    finally:
        os.close(held)
    assert not stale.exists() and not unlocked_old.exists()
    assert live.exists() and unlocked_new.exists() and other.exists()
    transport = ZmqTransport.start([sys.executable, "-c", "import sys; sys.stdin.read()"], endpoint_kind="ipc")
    folder = Path(transport.endpoint.removeprefix("ipc://")).parent
    try:  # the folder of a new endpoint is locked while it is in use, and goes with the transport
        remove_stale_ipc_folders(str(folder.parent))
        assert folder.is_dir()
    finally:
        transport.close(grace_s=0.2)
    assert not folder.exists()


# A newcomer's ZeroMQ bots (from an audit): each used to be told to flush stdout, or to check that
# a service is running, although the arena had started it and never reads its stdout.
REP_BOT = """import os, zmq
s = zmq.Context().socket(zmq.REP)  # the usual first ZeroMQ program: it cannot answer a DEALER
s.bind(os.environ["ARENA_ZMQ_ENDPOINT"])
while True:
    s.send(b"hello name=rep", copy=True) if s.recv() else None
"""
ELSEWHERE_BOT = """import time, zmq
s = zmq.Context().socket(zmq.ROUTER)
s.bind("tcp://127.0.0.1:*")  # not the endpoint it was given
time.sleep(30)
"""


def test_an_arena_started_bot_that_binds_elsewhere_is_told_where_to_bind(tmp_path: Path) -> None:
    bot = tmp_path / "elsewhere.py"
    bot.write_text(ELSEWHERE_BOT)
    t = ZmqTransport.start([sys.executable, str(bot)])
    try:
        t.send("hello protocol=1")
        with pytest.raises(BotUnreachable, match=r"does it bind a ROUTER socket on exactly ipc://.*ARENA_ZMQ_ENDPOINT"):
            t.receive(1.0)
    finally:
        t.close()


def test_no_hello_from_a_rep_socket_bot_names_the_socket_type(tmp_path: Path) -> None:
    from arena.submission.lookup import load_manifest
    from arena.play.startup import BotSettings, connect_bot
    from arena.play.records import TimeLimits
    from arena.play.seat import close_transport

    (tmp_path / "bot.py").write_text(REP_BOT)
    (tmp_path / "bot.toml").write_text('name = "rep"\ncommand = ["{python}", "bot.py"]\ntransport = "zmq"\n')
    seat, name = connect_bot(load_manifest(tmp_path), BotSettings(limits=TimeLimits(startup_timeout_s=1.0)), "rep")
    try:
        assert name == "" and not seat.alive
        assert "does it reply on a ROUTER socket with two frames, [routing id, line]?" in seat.dead_reason
        assert "flushed" not in seat.dead_reason
    finally:
        close_transport(seat.transport, 0.5)
