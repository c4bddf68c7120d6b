"""The network of a bot the organiser grants it to (docs/sandbox.md, "Network"): outbound only.

Such a bot had the host's own network: it reached a Dask scheduler on the organiser's loopback
and ran code as uid 0 on the worker. Now it keeps the network namespace of its sandbox, and
Debian's slirp4netns joins that namespace to the world from outside it, as a user-mode network
stack: the bot's connections leave as the arena's own sockets would, but nothing on the host's
loopback is reachable (--disable-host-loopback), nothing reaches the bot from outside, and the
namespace's own loopback is the bot's alone. slirp4netns runs sandboxed itself (its own mount
namespace, under a root arena, and a seccomp filter) and ends with the bot (--exit-fd).

The bot's program starts once the namespace has its default route (`WAIT_FOR_ROUTE`, in the
sandbox before the ready mark): a start whose network never came is the arena's, void.
Where slirp4netns is missing, the grant is refused before any game (`outbound_problem`).
"""

from __future__ import annotations

import fcntl
import logging
import os
import shutil
import subprocess
import threading
import time

from arena.sandbox.counts import children

log = logging.getLogger(__name__)
SLIRP = "slirp4netns"
FIND_SANDBOX_S = 10.0  # how long the sandbox's first process may take to appear
NAMESERVER = "10.0.2.3"
NS_GET_USERNS = 0xB701  # linux/nsfs.h: the user namespace that owns a namespace  # slirp4netns's own, which asks the host's resolver
# Run in the sandbox before the bot: wait (up to 10 s) for the namespace's default route.
WAIT_FOR_ROUTE = ("arena_route() { local iface dest rest; while read -r iface dest rest; do "
                  '[ "$dest" = 00000000 ] && return 0; done < /proc/net/route; return 1; }; arena_try=0; '
                  "until arena_route; do arena_try=$((arena_try + 1)); if [ $arena_try -gt 400 ]; then "
                  "echo 'arena: the network (slirp4netns) did not come up' >&2; exit 126; fi; "
                  "/usr/bin/sleep 0.025; done; unset -f arena_route; unset arena_try")


def outbound_problem() -> str | None:
    """Why a bot cannot be granted the network under isolation here, or None."""
    if shutil.which(SLIRP) is None:
        return (f"the network is granted to an isolated bot through {SLIRP} (outbound only, never the host's "
                f"loopback), which is not installed here: apt-get install {SLIRP}")
    return None


def _namespaces(pid: int, user_namespace: bool) -> tuple[int, ...]:
    """Descriptors of the network namespace of `pid` and, in an ordinary arena's sandbox, of the user
    namespace that owns it: bubblewrap moves its process on into a user namespace nested in that one
    (to map the arena's uid back after mounting /dev/pts), from which that network is out of reach.
    Held by descriptor, so that neither can change under slirp4netns."""
    network = os.open(f"/proc/{pid}/ns/net", os.O_RDONLY | os.O_CLOEXEC)
    if not user_namespace:
        return (network,)
    try:
        return network, fcntl.ioctl(network, NS_GET_USERNS)
    except OSError:
        os.close(network)
        raise


class Outbound:
    """The network of one sandboxed bot: `start(bwrap_pid)` once bubblewrap runs, `close()` after."""

    def __init__(self, user_namespace: bool) -> None:
        self.user_namespace = user_namespace  # an ordinary arena's sandbox: slirp4netns joins its user namespace too
        self.process: subprocess.Popen[bytes] | None = None
        self._exit_w: int | None = None
        self._lock = threading.Lock()
        self._closed = False

    def start(self, bwrap_pid: int) -> None:
        """Join the sandbox's namespace to the world, from a thread of its own (the sandbox's first
        process appears a moment after bubblewrap starts; the bot waits for the route meanwhile)."""
        threading.Thread(target=self._join, args=(bwrap_pid,), name=f"outbound-{bwrap_pid}", daemon=True).start()

    def _join(self, bwrap_pid: int) -> None:
        deadline = time.monotonic() + FIND_SANDBOX_S
        found: set[int] = set()
        while not found and time.monotonic() < deadline and not self._closed:
            found = children(bwrap_pid)
            if not found:
                time.sleep(0.002)
        if not found:
            log.warning("no sandbox process of bubblewrap %d to give the network to", bwrap_pid)
            return
        try:
            held = _namespaces(min(found), self.user_namespace)
        except OSError:
            log.warning("the network namespace of bubblewrap %d could not be opened", bwrap_pid, exc_info=True)
            return
        exit_r, exit_w = os.pipe()
        args = [shutil.which(SLIRP) or SLIRP, "--configure", "--mtu=65520", "--disable-host-loopback",
                "--enable-seccomp", f"--exit-fd={exit_r}", "--netns-type=path"]
        if os.geteuid() == 0:  # its own mount namespace too; as another user it must be root in the bot's, and is not
            args.append("--enable-sandbox")
        if len(held) > 1:
            args.append(f"--userns-path=/proc/self/fd/{held[1]}")
        with self._lock:
            try:
                if not self._closed:
                    self.process = subprocess.Popen([*args, f"/proc/self/fd/{held[0]}", "tap0"], stdin=subprocess.DEVNULL,
                                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                                    pass_fds=(exit_r, *held), start_new_session=True)
                    self._exit_w, exit_w = exit_w, -1
            except OSError:
                log.warning("%s could not be started for bubblewrap %d", SLIRP, bwrap_pid, exc_info=True)
            finally:
                for fd in (exit_r, *held, *([exit_w] if exit_w >= 0 else [])):
                    os.close(fd)

    def close(self) -> None:
        """End slirp4netns (it leaves when its exit pipe closes); killed if it lingers."""
        with self._lock:
            self._closed = True
            if self._exit_w is not None:
                os.close(self._exit_w)
                self._exit_w = None
            process, self.process = self.process, None
        if process is not None:
            try:
                process.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


__all__ = ["SLIRP", "NAMESERVER", "WAIT_FOR_ROUTE", "outbound_problem", "Outbound"]
