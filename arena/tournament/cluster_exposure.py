"""Who else could reach a plain (tcp://) Dask cluster (docs/cluster.md): whoever reaches a scheduler
or a worker runs code on the workers, outside any sandbox. The arena reaches the scheduler on this
machine's loopback, but `dask scheduler` without --host listens on every interface (it reported
tcp://192.0.2.2:8786 to a run that asked for 127.0.0.1), and a worker without --host does too: a
run says so, naming the command that keeps each to the loopback. A tls:// cluster is its own guard."""

from __future__ import annotations

import ipaddress
from typing import Any, Mapping


def _host(address: str) -> str:
    return address.split("://", 1)[-1].rsplit(":", 1)[0].strip("[]")


def _beyond_loopback(address: str) -> bool:
    host = _host(address)
    if host == "localhost":
        return False
    try:
        return not ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:  # a host name: not the loopback's
        return True


def exposure_warnings(address: str, scheduler_info: Mapping[str, Any]) -> list[str]:
    """Notes for a run on the plain cluster at `address` whose scheduler says `scheduler_info`
    (distributed's Client.scheduler_info()): the scheduler and the workers that listen beyond the
    loopback, each with the way to keep it there; none for a tls:// cluster."""
    if not address.startswith("tcp://"):
        return []
    notes = []
    listening = str(scheduler_info.get("address") or "")
    if listening and _beyond_loopback(listening):
        notes.append(f"the Dask scheduler at {address} listens beyond this machine's loopback (it says {listening}): "
                     "whoever reaches that address can run code on its workers, outside any sandbox. Start it with "
                     "`dask scheduler --host 127.0.0.1`, or use TLS (docs/cluster.md)")
    exposed = sorted(worker for worker in scheduler_info.get("workers") or {} if _beyond_loopback(str(worker)))
    if exposed:
        shown = ", ".join(exposed[:3]) + (f" and {len(exposed) - 3} more" if len(exposed) > 3 else "")
        notes.append(f"Dask workers listen beyond this machine's loopback ({shown}): whoever reaches one can run "
                     f"code on it. Start each with `dask worker {address} --host 127.0.0.1 --nthreads 1`, or use "
                     "TLS (docs/cluster.md)")
    return notes


__all__ = ["exposure_warnings"]
