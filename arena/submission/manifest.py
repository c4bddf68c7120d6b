"""Bot manifests: `bots/<name>/bot.toml` says how to build, start and reach a bot. Finding a bot's
manifest is arena/submission/lookup.py; its version, arena/submission/versions.py.

```toml
name = "random_bot"                # 1-32 characters of A-Z a-z 0-9 _ . -, not first a dot
language = "python"                # free text, for people
command = ["{python}", "bot.py"]   # argv (never a shell string); {python} = the arena's Python
transport = "pipe"                 # "pipe" (stdin/stdout) or "zmq"
zmq_endpoint_kind = "ipc"          # zmq, arena-started: "ipc" or "tcp" (loopback)
endpoint = "tcp://host:port"       # zmq: a running service (then no command)
server_public_key = "keys/server.key"           # CurveZMQ: the service's public key file
client_secret_key = "keys/client.key_secret"    # CurveZMQ: the arena's secret key file
build = ["make", "-s"]             # optional: run once in the bot folder before use
description = "..."                # optional
version = "3f2a9c0b1d4e"           # optional: content hash written by `arena bot add` (see content_hash)
writable_folder = false            # optional: true gives the bot a private writable copy of its folder

[limits]                           # optional sandbox limits (arena/sandbox/); the organiser's win
address_space_mb = 2048
```

A relative program path in `command` (like `./c_bot`) and the key files resolve against the
bot's folder, which is also the bot's working directory. Stdlib only (tomllib).
"""

from __future__ import annotations

import codecs
import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.protocol.messages import NAME_RE  # the hello's name rule is the manifest's (protocol.md §3)
from arena.sandbox.limits import first_limit_problem  # the optional [limits] table
from arena.submission.folder import FolderError, ManifestError, inside, read_small

MANIFEST_NAME = "bot.toml"
TRANSPORTS = ("pipe", "zmq")
ENDPOINT_KINDS = ("ipc", "tcp")
PYTHON_PLACEHOLDER = "{python}"
ALLOWED_KEYS = (
    "name", "language", "command", "transport", "zmq_endpoint_kind", "endpoint",
    "server_public_key", "client_secret_key", "build", "description", "version", "limits", "writable_folder",
)
VERSION_RE = re.compile(r"^[A-Za-z0-9_.+-]{1,64}$")


@dataclass(frozen=True, slots=True)
class BotManifest:
    name: str
    directory: Path
    command: tuple[str, ...]
    transport: str  # "pipe" | "zmq"
    language: str = ""
    endpoint: str | None = None
    zmq_endpoint_kind: str = "ipc"
    build: tuple[str, ...] = ()
    server_public_key: Path | None = None
    client_secret_key: Path | None = None
    description: str = ""
    path: Path | None = None  # the manifest file
    version: str = ""  # content hash recorded by `arena bot add` ("" when not registered)
    limits: tuple[tuple[str, Any], ...] = ()  # the [limits] table as (key, value) pairs
    # Under isolation a bot's folder is read-only; true gives it a private copy it may write in,
    # thrown away when the bot ends (docs/sandbox.md).
    writable_folder: bool = False

    @property
    def is_service(self) -> bool:
        """A running ZeroMQ service the arena connects to (no process to start)."""
        return self.transport == "zmq" and not self.command

    def argv(self) -> list[str]:
        """The command with `{python}` -> sys.executable and a relative program path made absolute
        against the bot folder. Other arguments are passed as written (the bot runs in its folder)."""
        if not self.command:
            return []
        args = [arg.replace(PYTHON_PLACEHOLDER, sys.executable) for arg in self.command]
        program = args[0]
        if ("/" in program or "\\" in program) and not Path(program).is_absolute():
            args[0] = str((self.directory / program).resolve())
        return args


def _where(path: Path, key: str | None = None) -> str:
    return f"{path}: key {key!r}" if key else str(path)


def toml_text(raw: bytes) -> str:
    """A TOML file's bytes as text. TOML is UTF-8; a leading byte-order mark (which some Windows
    editors write) is dropped rather than refused as an 'invalid statement'. ValueError says where
    a file saved in another encoding stops being UTF-8."""
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8):]  # here, not by "utf-8-sig": its error offsets skip the mark
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = raw[:exc.start]
        line = before.count(b"\n") + 1
        column = len(before[before.rfind(b"\n") + 1:].decode("utf-8", errors="replace")) + 1
        raise ValueError(f"not UTF-8 text: byte 0x{raw[exc.start]:02x} at line {line}, column {column}; "
                         "save the file as UTF-8") from None


def read_manifest(path: Path) -> BotManifest:
    """Read and validate the manifest file at `path`; ManifestError names the file, the key and
    what was expected. The folder may be reached through a link (the organiser's), the manifest
    itself must be a file of it: a bot's bot.toml linked to /dev/zero or /etc/shadow is refused."""
    path = Path(path)
    try:
        path = path.parent.resolve() / path.name
        raw = read_small(path)
    except FolderError:
        raise
    except OSError as exc:
        raise ManifestError(f"{path}: cannot read the manifest: {exc.strerror or exc}") from None
    try:
        data = tomllib.loads(toml_text(raw))
    except tomllib.TOMLDecodeError as exc:  # a ValueError too: caught first
        raise ManifestError(f"{path}: invalid TOML: {exc}") from None
    except ValueError as exc:
        raise ManifestError(f"{path}: {exc}") from None
    except RecursionError:
        raise ManifestError(f"{path}: invalid TOML: nested too deeply") from None
    return manifest_from_dict(data, path)


def manifest_from_dict(data: dict[str, Any], path: Path) -> BotManifest:
    """Validate parsed TOML; `path` is the manifest file (its folder is the bot's folder)."""
    path = Path(path).resolve()
    unknown = [key for key in data if key not in ALLOWED_KEYS]
    if unknown:
        raise ManifestError(f"{_where(path, unknown[0])}: unknown key; allowed keys: {', '.join(ALLOWED_KEYS)}")
    name = _text(data, path, "name", required=True) or ""
    if not NAME_RE.match(name):
        raise ManifestError(f"{_where(path, 'name')}: {name!r} is not a valid bot name; expected 1-32 characters "
                            f"of A-Z a-z 0-9 _ . -, not starting with a dot")
    transport = _one_of(data, path, "transport", TRANSPORTS)
    command, build, endpoint = _argv(data, path, "command"), _argv(data, path, "build"), _text(data, path, "endpoint")
    kind = _one_of(data, path, "zmq_endpoint_kind", ENDPOINT_KINDS)
    _check_transport(data, path, transport, command, endpoint)
    version = _text(data, path, "version") or ""
    if version and not VERSION_RE.match(version):
        raise ManifestError(f"{_where(path, 'version')}: {version!r}; expected 1-64 characters of A-Z a-z 0-9 _ . + -")
    limits = _limits(data.get("limits"), path)
    writable_folder = data.get("writable_folder", False)
    if not isinstance(writable_folder, bool):
        raise ManifestError(f"{_where(path, 'writable_folder')}: expected true or false, got {_describe(writable_folder)}")
    server_key, client_key = _key_files(data, path, endpoint)
    return BotManifest(
        name=name, directory=path.parent, command=command, transport=transport,
        language=_text(data, path, "language") or "", endpoint=endpoint, zmq_endpoint_kind=kind,
        build=build, server_public_key=server_key, client_secret_key=client_key,
        description=_text(data, path, "description") or "", path=path, version=version,
        limits=limits, writable_folder=writable_folder,
    )


def _text(data: dict[str, Any], path: Path, key: str, required: bool = False) -> str | None:
    if key not in data:
        if required:
            raise ManifestError(f"{_where(path, key)}: missing; expected a string")
        return None
    value = data[key]
    if not isinstance(value, str):
        raise ManifestError(f"{_where(path, key)}: expected a string, got {_describe(value)}")
    return value


def _one_of(data: dict[str, Any], path: Path, key: str, words: tuple[str, ...]) -> str:
    """A word of `words`, the first by default."""
    value = _text(data, path, key) or words[0]
    if value not in words:
        raise ManifestError(f"{_where(path, key)}: {value!r}; expected one of: {', '.join(words)}")
    return value


def _argv(data: dict[str, Any], path: Path, key: str) -> tuple[str, ...]:
    if key not in data:
        return ()
    value = data[key]
    if isinstance(value, str):
        raise ManifestError(f"{_where(path, key)}: expected a list of strings (an argv such as "
                            f'["{{python}}", "bot.py"]), not a shell string')
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ManifestError(f"{_where(path, key)}: expected a list of strings, got {_describe(value)}")
    if not value or not value[0]:
        raise ManifestError(f"{_where(path, key)}: expected a non-empty list whose first item is the program")
    return tuple(value)


def _check_transport(data: dict[str, Any], path: Path, transport: str, command: tuple[str, ...],
                     endpoint: str | None) -> None:
    """A pipe bot has a command and no zmq keys; a zmq bot a command or an endpoint, not both."""
    if transport == "pipe":
        if not command:
            raise ManifestError(f"{_where(path, 'command')}: missing; a pipe bot needs a command (a list of strings)")
        for key in ("endpoint", "zmq_endpoint_kind", "server_public_key", "client_secret_key"):
            if key in data:
                raise ManifestError(f"{_where(path, key)}: only for transport = \"zmq\"; this bot uses \"pipe\"")
        return
    if command and endpoint is not None:
        raise ManifestError(f"{_where(path, 'endpoint')}: give either a command (the arena starts the bot) or an "
                            f"endpoint (a running service), not both")
    if not command and endpoint is None:
        raise ManifestError(f"{_where(path, 'endpoint')}: missing; a zmq bot needs a command (arena-started) or an "
                            f"endpoint such as \"tcp://127.0.0.1:5555\" (a running service)")
    if endpoint is not None and not re.match(r"^(tcp|ipc|inproc)://\S+$", endpoint):
        raise ManifestError(f"{_where(path, 'endpoint')}: {endpoint!r}; expected a ZeroMQ endpoint such as "
                            f"\"tcp://host:port\" or \"ipc:///path\"")


def _key_files(data: dict[str, Any], path: Path, endpoint: str | None) -> tuple[Path | None, Path | None]:
    """CurveZMQ's key files (server_public_key, client_secret_key): both or neither, files of the
    bot's folder, and required for an endpoint beyond this machine."""
    directory = path.parent
    keys = {}
    for key in ("server_public_key", "client_secret_key"):
        value = _text(data, path, key)
        if value is not None and (Path(value).is_absolute() or value.startswith("~")
                                  or not inside(directory, directory / value)):
            # The arena reads these files itself: a manifest must not point it at the organiser's.
            raise ManifestError(f"{_where(path, key)}: {value!r} is not a file of the bot's folder; give a path "
                                "relative to it, such as \"keys/server.key\"")
        keys[key] = None if value is None else (directory / value).resolve()
    if (keys["server_public_key"] is None) != (keys["client_secret_key"] is None):
        missing = "client_secret_key" if keys["client_secret_key"] is None else "server_public_key"
        raise ManifestError(f"{_where(path, missing)}: missing; CurveZMQ needs both server_public_key and "
                            "client_secret_key")
    if endpoint is not None and not _is_local_endpoint(endpoint) and keys["server_public_key"] is None:
        raise ManifestError(f"{_where(path, 'server_public_key')}: missing; {endpoint} is not a loopback or ipc "
                            "endpoint, so CurveZMQ is required: give server_public_key and client_secret_key")
    return keys["server_public_key"], keys["client_secret_key"]


def _limits(value: Any, path: Path) -> tuple[tuple[str, Any], ...]:
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise ManifestError(f"{_where(path, 'limits')}: expected a table [limits], got {_describe(value)}")
    bad = first_limit_problem(value)
    if bad:
        raise ManifestError(f"{_where(path, 'limits.' + bad[0])}: {bad[1]}")
    return tuple(value.items())


def _is_local_endpoint(endpoint: str) -> bool:
    """ipc://, inproc://, and tcp:// to localhost, 127.x.x.x or ::1."""
    scheme, _, rest = endpoint.partition("://")
    if scheme in ("ipc", "inproc"):
        return True
    host = rest.rsplit(":", 1)[0].strip("[]").lower()
    return host in ("localhost", "::1") or host.startswith("127.")


def _describe(value: Any) -> str:
    kind = {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list",
            dict: "a table"}.get(type(value), type(value).__name__)
    return f"{kind} ({value!r})"
