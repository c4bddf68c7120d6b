"""Bots over ZeroMQ: the bot binds a ROUTER, the arena connects one DEALER per conversation.

One line = one single-frame message (UTF-8, no newline). Two ways in:
  * ZmqTransport.start(argv, ...)  - the arena starts the bot (same process handling as
    PipeTransport, via BotProcess) and gives it a fresh endpoint;
  * ZmqTransport.connect(endpoint, ...) - a running service; CurveZMQ is mandatory unless
    the endpoint is loopback/ipc. Several connects to one service = several conversations.
"""

from __future__ import annotations

import logging
import math
import os
import random
import socket
import time
from collections.abc import Callable
from typing import Any

import zmq  # absolute import: pyzmq, not this module
from zmq.utils.monitor import recv_monitor_message

from arena.transport.bot_process import BotProcess, SandboxArgv, unplayable_exit
from arena.transport.live_transports import register, unregister
from arena.transport.base import (
    MAX_BUFFERED_LINE_BYTES,
    BadMessage,
    BotExited,
    BotTimeout,
    BotUnreachable,
    LineTooLong,
    ServiceOut,
    describe_returncode,
)
from arena.transport.ipc_folders import SocketAdopter, new_ipc_folder, release_ipc_folder, socket_folder
from arena.transport.zmq_keys import as_key, is_local_endpoint

log = logging.getLogger(__name__)
ENDPOINT_ENV = "ARENA_ZMQ_ENDPOINT"

_EXIT_CHECK_S = 0.05  # arena-started bots: how often receive() checks the process
_FAIL_EVENTS = {
    getattr(zmq, "EVENT_HANDSHAKE_FAILED_AUTH", 0x4000): "authentication refused by the service",
    getattr(zmq, "EVENT_HANDSHAKE_FAILED_PROTOCOL", 0x2000): "handshake protocol error "
    "(CURVE on one side only, or wrong server key?)",
    getattr(zmq, "EVENT_HANDSHAKE_FAILED_NO_DETAIL", 0x800): "handshake failed "
    "(wrong server public key?)",
}
_OK_EVENT = getattr(zmq, "EVENT_HANDSHAKE_SUCCEEDED", 0x1000)
_MONITOR_EVENTS = _OK_EVENT | zmq.EVENT_DISCONNECTED | sum(_FAIL_EVENTS)

_ctx: zmq.Context[Any] | None = None


def _context() -> zmq.Context[Any]:
    global _ctx
    if _ctx is None:
        _ctx = zmq.Context()
    return _ctx


def _drop_above(max_line_bytes: int) -> int:
    """Message size beyond which libzmq drops the peer (a bot's line may take two more: CR LF)."""
    return max(max_line_bytes + 2, MAX_BUFFERED_LINE_BYTES)


class ZmqTransport:
    """One conversation with a bot over a DEALER socket."""

    def __init__(self, sock: zmq.Socket[Any], endpoint: str, *, proc: BotProcess | None = None,
                 tmpdir: str | None = None, max_line_bytes: int = MAX_BUFFERED_LINE_BYTES,
                 send_timeout_s: float = 5.0, name: str | None = None) -> None:
        self._sock = sock
        self.endpoint = endpoint
        self._proc = proc
        self._tmpdir = tmpdir
        self.max_line_bytes = max_line_bytes
        self.send_timeout_s = send_timeout_s
        self.name = name or (f"bot pid {proc.pid}" if proc else f"service {endpoint}")
        self._closed = False
        self._adopter: SocketAdopter | None = None  # moves a sandboxed bot's socket out of its reach
        self._ever_connected = False
        self._connected = False
        self._failure: str | None = None
        self._monitor = sock.get_monitor_socket(_MONITOR_EVENTS)
        # A long-lived Poller: Socket.poll() would build a new one on every call.
        self._inpoll = zmq.Poller()
        self._inpoll.register(sock, zmq.POLLIN)
        if proc is None:
            # A service has no process to watch, so its monitor is polled with the socket: a
            # service that goes away mid-game ends the wait at once, not at the move limit.
            # (An arena-started bot's death is seen through its process; its monitor is read
            # only to explain a timeout.)
            self._inpoll.register(self._monitor, zmq.POLLIN)
        register(self)

    @staticmethod
    def _dealer(endpoint: str, max_line_bytes: int, curve: tuple[bytes, bytes, bytes] | None
                ) -> zmq.Socket[Any]:
        sock: zmq.Socket[Any] = _context().socket(zmq.DEALER)
        sock.linger = 0
        sock.setsockopt(zmq.RECONNECT_IVL, 20)  # bots bind a moment after we connect
        sock.setsockopt(zmq.RECONNECT_IVL_MAX, 1000)
        # Bound memory: libzmq drops a peer that sends a bigger message instead of buffering it,
        # and queues at most RCVHWM messages. Up to MAX_BUFFERED_LINE_BYTES a message is still taken in,
        # so that an overlong line is reported as `overlong`, not as a lost connection.
        sock.setsockopt(zmq.MAXMSGSIZE, _drop_above(max_line_bytes))
        sock.setsockopt(zmq.RCVHWM, 100)
        if curve is not None:
            sock.curve_serverkey, sock.curve_publickey, sock.curve_secretkey = curve
        return sock

    @classmethod
    def start(cls, argv: list[str], *, endpoint_kind: str = "ipc", cwd: str | None = None,
              env: dict[str, str] | None = None, stderr_log_path: str | None = None,
              stderr_log_cap_bytes: int = 1_000_000, max_line_bytes: int = MAX_BUFFERED_LINE_BYTES,
              preexec: Callable[[], Any] | None = None, send_timeout_s: float = 5.0,
              name: str | None = None, sandbox_argv: SandboxArgv | None = None) -> ZmqTransport:
        """Pick a fresh endpoint, start the bot with it ($ARENA_ZMQ_ENDPOINT, "{endpoint}"
        in argv), and connect a DEALER. The bot's stdout joins its stderr log. `sandbox_argv`
        runs it in its sandbox (arena/sandbox/), with the ipc endpoint's folder writable."""
        tmpdir = None
        relay = None
        if endpoint_kind not in ("ipc", "tcp"):
            raise ValueError(f"endpoint_kind must be 'ipc' or 'tcp', not {endpoint_kind!r}")
        if endpoint_kind == "ipc" or sandbox_argv is not None:
            tmpdir = new_ipc_folder()
            sockets = socket_folder(tmpdir)
        adopter = None
        if endpoint_kind == "ipc":
            endpoint = arena_end = f"ipc://{sockets}/bot.sock"
            if sandbox_argv is not None and tmpdir is not None:  # bound where the bot may write; connected where it may not
                adopter, arena_end = SocketAdopter(tmpdir, "bot.sock"), f"ipc://{tmpdir}/bot.sock"
        elif sandbox_argv is not None and tmpdir is not None:
            # A sandboxed tcp bot binds in a network of its own; the relay joins it to a socket of
            # its ipc folder (arena/sandbox/relay.py), which the arena connects to.
            port = random.randrange(20000, 60000)
            endpoint = f"tcp://127.0.0.1:{port}"
            relay = (f"{sockets}/relay.sock", port)
            adopter, arena_end = SocketAdopter(tmpdir, "relay.sock"), f"ipc://{tmpdir}/relay.sock"
        else:
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                s.bind(("127.0.0.1", 0))  # small race until the bot binds; acceptable locally
                endpoint = arena_end = f"tcp://127.0.0.1:{s.getsockname()[1]}"
        full_env = dict(os.environ if env is None else env)
        full_env[ENDPOINT_ENV] = endpoint
        command = [a.replace("{endpoint}", endpoint) for a in argv]
        try:
            if sandbox_argv is not None:
                command = sandbox_argv(command, (sockets,) if tmpdir else (), relay=relay)
            proc = BotProcess.start(
                command, cwd=cwd, env=full_env,
                stderr_log_path=stderr_log_path, stderr_log_cap_bytes=stderr_log_cap_bytes,
                preexec=preexec, stdout_pipe=False, stdio_in_env=sandbox_argv is not None)
        except BaseException:
            if tmpdir:
                release_ipc_folder(tmpdir)
            raise
        if adopter is not None:
            adopter.start()
        sock = cls._dealer(arena_end, max_line_bytes, None)
        sock.connect(arena_end)
        transport = cls(sock, endpoint, proc=proc, tmpdir=tmpdir, max_line_bytes=max_line_bytes,
                        send_timeout_s=send_timeout_s, name=name)
        transport._adopter = adopter
        return transport

    @classmethod
    def connect(cls, endpoint: str, *, server_public_key: str | bytes | None = None,
                client_public_key: str | bytes | None = None,
                client_secret_key: str | bytes | None = None, client_cert_path: str | None = None,
                max_line_bytes: int = MAX_BUFFERED_LINE_BYTES, send_timeout_s: float = 5.0,
                name: str | None = None) -> ZmqTransport:
        """Connect to a running bot service. Keys are Z85 text or zmq.auth certificate file
        paths; client_cert_path (a *.key_secret file) supplies both client keys at once."""
        if client_cert_path is not None:
            client_public_key = as_key(client_cert_path, "client public key")
            client_secret_key = as_key(client_cert_path, "client secret key")
        given = [k is not None for k in (server_public_key, client_public_key, client_secret_key)]
        curve = None
        if all(given):
            if not zmq.has("curve"):
                raise BotUnreachable("this libzmq was built without CurveZMQ support")
            curve = (as_key(server_public_key, "server public key"),  # type: ignore[arg-type]
                     as_key(client_public_key, "client public key"),  # type: ignore[arg-type]
                     as_key(client_secret_key, "client secret key"))  # type: ignore[arg-type]
        elif any(given):
            raise BotUnreachable(f"incomplete CurveZMQ keys for {endpoint}: need the server "
                                 "public key and the client public + secret keys")
        elif not is_local_endpoint(endpoint):
            raise BotUnreachable(
                f"{endpoint} is not a loopback/ipc endpoint, so CurveZMQ encryption is "
                "required: give server_public_key and client keys (see generate_keypair)")
        try:
            sock = cls._dealer(endpoint, max_line_bytes, curve)
            sock.connect(endpoint)
        except zmq.ZMQError as e:
            raise BotUnreachable(f"cannot connect to {endpoint}: {e}") from e
        return cls(sock, endpoint, max_line_bytes=max_line_bytes,
                   send_timeout_s=send_timeout_s, name=name)

    @property
    def process(self) -> BotProcess | None:
        return self._proc

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    @property
    def returncode(self) -> int | None:
        return self._proc.returncode if self._proc else None

    def stderr_tail(self, n_bytes: int = 2000) -> str:
        return self._proc.stderr_tail(n_bytes) if self._proc else ""

    def _check_alive(self) -> None:
        if self._closed:
            raise BotExited(f"{self.name}: transport already closed")
        if self._proc is not None:
            rc = self._proc.returncode
            if rc is not None and self._proc.reached_bot() is False:
                raise unplayable_exit(self.name, rc, self._proc)
            if rc is not None:
                raise BotExited(f"{self.name} exited ({describe_returncode(rc)}){self._proc.stderr_reason()}",
                                returncode=rc)

    def _read_monitor(self) -> None:
        while self._monitor.poll(0):
            ev = recv_monitor_message(self._monitor)["event"]
            if ev == _OK_EVENT:
                self._connected = self._ever_connected = True
                self._failure = None
            elif ev == zmq.EVENT_DISCONNECTED:
                self._connected = False
            elif ev in _FAIL_EVENTS:
                self._failure = _FAIL_EVENTS[ev]

    # What to suspect when a connected bot never answers hello (protocol.md appendix A): the
    # usual ZeroMQ first bot uses REP, which cannot answer the arena's DEALER, or a ROUTER that
    # replies without the routing-id frame; both look like silence from here.
    no_hello_hint = ("does it reply on a ROUTER socket with two frames, [routing id, line]? REQ, REP "
                     "and PAIR sockets cannot talk to the arena's DEALER")

    def _stalled(self, what: str) -> Exception:
        """Turn 'nothing happened before the deadline' into the most precise error."""
        try:
            self._read_monitor()
        except zmq.ZMQError:
            pass
        # A service that cannot be reached, or refuses the connection, is retried, then charged
        # (protocol.md section 9): ServiceOut. An arena-started bot was to bind, and to accept.
        unreachable = BotUnreachable if self._proc is not None else ServiceOut
        if self._failure and not self._connected:
            return unreachable(f"{self.name}: {self._failure}; {what}")
        if not self._ever_connected:
            if self._proc is not None:  # the arena started it: it was to bind where it was told
                return BotUnreachable(f"{self.name}: never connected ({what}); does it bind a ROUTER socket "
                                      f"on exactly {self.endpoint} (given in $ARENA_ZMQ_ENDPOINT)?")
            return ServiceOut(f"{self.name}: never connected ({what}); is it running, "
                              "and if CurveZMQ is used, do the keys match?")
        if not self._connected:
            return BotExited(f"{self.name} dropped the connection ({what}): it closed its socket, or "
                             f"sent a message over {_drop_above(self.max_line_bytes)} bytes, which ends it")
        return BotTimeout(f"{self.name}: {what}")

    def send(self, line: str) -> None:
        # No process check here: a send to a dead bot just queues; receive() reports it.
        if self._closed:
            raise BotExited(f"{self.name}: transport already closed")
        data = line.encode("utf-8")
        sock = self._sock
        try:
            sock.send(data, zmq.NOBLOCK)
            return
        except zmq.Again:
            pass
        except zmq.ZMQError as e:
            raise BotExited(f"{self.name}: send failed: {e}") from e
        deadline = time.monotonic() + self.send_timeout_s
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._stalled(f"could not send within {self.send_timeout_s:.3g} s")
            if sock.poll(math.ceil(remaining * 1000.0), zmq.POLLOUT):
                try:
                    sock.send(data, zmq.NOBLOCK)
                    return
                except zmq.Again:
                    continue

    def send_many(self, lines: list[str]) -> None:
        """Each line its own message, as protocol.md has it, sent in one loop: a request and the
        events queued before it. A line that cannot go at once goes by `send`, which waits."""
        if self._closed:
            raise BotExited(f"{self.name}: transport already closed")
        send = self._sock.send
        for i, line in enumerate(lines):
            try:
                send(line.encode("utf-8"), zmq.NOBLOCK)
            except zmq.Again:
                for rest in lines[i:]:
                    self.send(rest)
                return
            except zmq.ZMQError as e:
                raise BotExited(f"{self.name}: send failed: {e}") from e

    def receive(self, timeout_s: float) -> str:
        if self._closed:
            raise BotExited(f"{self.name}: transport already closed")
        sock = self._sock
        proc = self._proc
        poll = self._inpoll.poll
        deadline = time.monotonic() + timeout_s
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._stalled(f"no reply within {timeout_s:.3g} s")
            wait = remaining if proc is None else min(remaining, _EXIT_CHECK_S)
            ready = poll(math.ceil(wait * 1000.0))
            if ready:
                if len(ready) == 1 and ready[0][0] is sock:
                    break  # the common case: a reply, and nothing from the monitor
                if any(s is sock for s, _ in ready):
                    break  # a reply that arrived before the peer left is still read
                self._read_monitor()
                if self._failure is not None and not self._connected:
                    # Refused keys: libzmq retries the handshake forever, and no retry can mend it.
                    raise ServiceOut(f"{self.name}: {self._failure}")
                if self._ever_connected and not self._connected:
                    raise BotExited(f"{self.name} dropped the connection (the service stopped, "
                                    f"or its network went away)")
                continue
            if proc is not None and proc.returncode is not None and not poll(0):
                self._check_alive()
        msg = sock.recv(zmq.NOBLOCK)
        if sock.rcvmore:
            while sock.rcvmore:
                sock.recv(zmq.NOBLOCK)
            raise BadMessage(f"{self.name} sent a multi-frame message; one frame per line")
        if msg.endswith(b"\n"):
            msg = msg[:-2] if msg.endswith(b"\r\n") else msg[:-1]
        if len(msg) > self.max_line_bytes:
            raise LineTooLong(f"{self.name} sent a {len(msg)}-byte message "
                              f"(limit {self.max_line_bytes})")
        return msg.decode("utf-8", errors="replace")

    def close(self, grace_s: float = 1.0) -> None:
        """Close the socket (LINGER=0); for arena-started bots also end the process tree."""
        if self._closed:
            return
        self._closed = True
        if self._adopter is not None:
            self._adopter.stop()
        try:
            self._sock.disable_monitor()
        except zmq.ZMQError:
            log.debug("%s: its monitor was gone", self.name)
        try:
            self._monitor.close(linger=0)
            self._sock.close(linger=0)
        except zmq.ZMQError:
            log.debug("%s: closing its sockets", self.name, exc_info=True)
        if self._proc is not None:
            self._proc.close(grace_s)  # never raises: it logs what it met
        if self._tmpdir:
            release_ipc_folder(self._tmpdir)
        unregister(self)
