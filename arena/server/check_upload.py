"""`python -m arena.server.check_upload CONFIG UPLOAD_ID...`: the league server's child process that
checks the uploads waiting and enters or refuses each (arena/server/entering.py). A process of its
own, so that a bot's build and its games are ended with it, and a crash of either leaves the server
up; one for the uploads waiting together, so that they enter the league in one change.""" 

from __future__ import annotations

import sys
from pathlib import Path


def _stop(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)  # unwinds: the check's build and bots are ended on the way out


def main(argv: list[str]) -> int:
    import signal

    from arena.server.entering import check_uploads
    from arena.server.paths import ServerPaths
    from arena.server.store import ServerStore

    config, uploads = Path(argv[0]), [int(given) for given in argv[1:]]
    signal.signal(signal.SIGTERM, _stop)  # a stopped server ends the check, its build and its bots
    paths = ServerPaths(config)
    store = ServerStore(paths.server_file)
    try:
        for upload, state in sorted(check_uploads(paths, store, uploads).items()):
            print(f"upload {upload}: {state}", flush=True)
    finally:
        store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
