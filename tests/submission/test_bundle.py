"""A bot's bundle (arena/submission/bundle.py), the form its files take to a cluster's workers:
packed from the files its version hashes, unpacked once per version, checked against it, and
nothing but files of its own folder ever written, on every Python 3.11 (tarfile's `filter`
argument came with 3.11.4; Debian 12's Python is 3.11.2)."""

from __future__ import annotations

import io
import tarfile
from dataclasses import replace
from pathlib import Path

import pytest

from arena.submission.bundle import Bundle, pack, unpack
from arena.submission.manifest import ManifestError, read_manifest

BOT_TOML = 'name = "packed"\nlanguage = "python"\ncommand = ["{python}", "bot.py"]\n'


def a_bot(folder: Path) -> Path:
    folder.mkdir()
    (folder / "bot.toml").write_text(BOT_TOML)
    (folder / "bot.py").write_text("print('hello')\n")
    (folder / "data").mkdir()
    (folder / "data" / "weights.bin").write_bytes(bytes(range(256)) * 100)
    return folder / "bot.toml"


def tar_of(*members: tuple[tarfile.TarInfo, bytes | None]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return out.getvalue()


@pytest.fixture(params=["this Python's tarfile", "a tarfile without filter (Python < 3.11.4)"])
def tarfile_kind(request, monkeypatch):
    if request.param.startswith("a tarfile without"):
        monkeypatch.delattr(tarfile, "data_filter", raising=False)
    return request.param


def test_a_bundle_unpacks_to_the_same_files_and_version(tmp_path, tarfile_kind):
    manifest = read_manifest(a_bot(tmp_path / "bot"))
    bundle = pack(manifest)
    unpacked = unpack(bundle, root=tmp_path / "cache")
    assert unpacked.name == "packed"
    assert (unpacked.directory / "data" / "weights.bin").read_bytes() == bytes(range(256)) * 100
    # Once per version: a second unpack finds it in place.
    assert unpack(bundle, root=tmp_path / "cache").directory == unpacked.directory
    assert [p.name for p in (tmp_path / "cache").iterdir() if not p.name.endswith(".lock")] == [unpacked.directory.name]


@pytest.mark.parametrize("evil", ["../outside.txt", "/tmp/absolute.txt", "link"])
def test_a_bundle_with_anything_but_files_of_its_folder_is_refused_and_leaves_nothing(tmp_path, tarfile_kind, evil):
    info = tarfile.TarInfo(evil)
    data: bytes | None = b"x"
    if evil == "link":
        info.type, info.linkname, data = tarfile.SYMTYPE, "/etc/passwd", None
    else:
        info.size = 1
    toml = tarfile.TarInfo("bot.toml")
    toml.size = len(BOT_TOML)
    forged = Bundle("packed", "0" * 12, "bot.toml", tar_of((toml, BOT_TOML.encode()), (info, data)))
    with pytest.raises(ManifestError, match="no file of a bot's folder|a link 'link' out of the bot's folder"):
        unpack(forged, root=tmp_path / "cache")
    assert not (tmp_path / "outside.txt").exists()
    assert [p.name for p in (tmp_path / "cache").iterdir() if not p.name.endswith(".lock")] == []


def test_files_that_do_not_hash_to_the_version_are_refused_and_leave_nothing(tmp_path, tarfile_kind):
    bundle = replace(pack(read_manifest(a_bot(tmp_path / "bot"))), version="0" * 12)
    with pytest.raises(ManifestError, match="hash to"):
        unpack(bundle, root=tmp_path / "cache")
    assert [p.name for p in (tmp_path / "cache").iterdir() if not p.name.endswith(".lock")] == []


def test_set_id_bits_do_not_survive_unpacking(tmp_path, tarfile_kind):
    manifest = read_manifest(a_bot(tmp_path / "bot"))
    (manifest.directory / "bot.py").chmod(0o4777)
    unpacked = unpack(pack(manifest), root=tmp_path / "cache")
    assert (unpacked.directory / "bot.py").stat().st_mode & 0o7777 == 0o755

