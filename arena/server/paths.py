"""Where a served league keeps what is the server's, beside its config (`tournaments/class.toml`):
`class.server.sqlite` (accounts and uploads: arena/server/store.py), and the folder
`class.uploads/` with each upload's archive as received, the bots' folders as entered, and the
logs of the league's run and of each check."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ServerPaths:
    config: Path

    @property
    def server_file(self) -> Path:
        return self.config.with_name(f"{self.config.stem}.server.sqlite")

    @property
    def folder(self) -> Path:
        return self.config.with_name(f"{self.config.stem}.uploads")

    @property
    def archives(self) -> Path:
        return self.folder / "archives"

    @property
    def bots(self) -> Path:
        """The entered bots' folders, one per bot name; the config names each as ./<stem>.uploads/bots/NAME."""
        return self.folder / "bots"

    @property
    def staging(self) -> Path:
        return self.folder / "staging"

    @property
    def logs(self) -> Path:
        return self.folder / "logs"

    @property
    def league_log(self) -> Path:
        return self.logs / "league.log"

    def bot_entry(self, name: str) -> str:
        """How the config's `bots` names an entered bot: relative to the config's folder."""
        return f"./{self.folder.name}/bots/{name}"

    def make(self) -> None:
        for folder in (self.archives, self.bots, self.staging, self.logs):
            folder.mkdir(parents=True, exist_ok=True)


__all__ = ["ServerPaths"]
