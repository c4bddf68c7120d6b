"""ZeroMQ endpoints and CurveZMQ keys: which endpoints are local (no keys needed), making a key pair,
and reading a key given as Z85 text or as a zmq.auth certificate file."""

from __future__ import annotations

import ipaddress
import os

import zmq.auth  # absolute import: pyzmq, not the transport's zmq module

from arena.transport.base import BotUnreachable


def is_local_endpoint(endpoint: str) -> bool:
    """True for ipc://, inproc://, and tcp:// to localhost / 127.x / ::1."""
    scheme, _, rest = endpoint.partition("://")
    if scheme in ("ipc", "inproc"):
        return True
    if scheme != "tcp":
        return False
    host = rest.rsplit(";", 1)[-1].rsplit(":", 1)[0].strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def generate_keypair(directory: str, name: str) -> tuple[str, str]:
    """Write <name>.key (public) and <name>.key_secret in zmq.auth format; return both paths."""
    os.makedirs(directory, exist_ok=True)
    public, secret = zmq.auth.create_certificates(directory, name)
    return str(public), str(secret)


def as_key(value: str | bytes, what: str) -> bytes:
    """A Z85 key given as text, or the path of a zmq.auth certificate file."""
    if isinstance(value, bytes):
        value = value.decode("ascii")
    if len(value) == 40 and not os.path.exists(value):
        return value.encode("ascii")
    try:
        public, secret = zmq.auth.load_certificate(value)
    except (OSError, ValueError) as e:
        raise BotUnreachable(f"cannot load {what} from {value!r}: {e}") from e
    key = secret if what == "client secret key" else public
    if key is None:
        raise BotUnreachable(f"{value!r} holds no {what} (need the *.key_secret file)")
    return key
