"""An uploaded archive is hostile input (issue 44): every attack is refused with its reason, before
anything of it is written outside a fresh folder, and the folder is gone after a refusal; a bot's
folder packed as authors pack it is taken."""

from __future__ import annotations

import io
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from arena.submission.intake import ArchiveRefused, IntakeLimits, unpack_archive

MANIFEST = b'name = "up_bot"\nlanguage = "python"\ncommand = ["python3", "bot.py"]\n'


def tar_of(members: list[tuple[tarfile.TarInfo, bytes | None]], compression: str = "gz") -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=f"w:{compression}") as tar:
        for info, data in members:
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


def file_(name: str, data: bytes = b"x", mode: int = 0o644) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.mode = mode
    return info, data


def special(name: str, kind: bytes, link: str = "") -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, link
    return info, None


def unpack(tmp_path: Path, data: bytes, limits: IntakeLimits = IntakeLimits()):
    archive = tmp_path / "upload.bin"
    archive.write_bytes(data)
    return unpack_archive(archive, tmp_path / "out", limits)


def refused(tmp_path: Path, data: bytes, limits: IntakeLimits = IntakeLimits()) -> str:
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(ArchiveRefused) as caught:
        unpack(tmp_path, data, limits)
    assert not (tmp_path / "out").exists(), "a refusal leaves nothing"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted({*before, "upload.bin"})
    return caught.value.reason


GOOD = [file_("bot.toml", MANIFEST), file_("bot.py", b"print()\n", 0o755)]


def test_a_folder_with_bot_toml_at_the_top_is_taken_and_the_exec_bit_kept(tmp_path):
    unpacked = unpack(tmp_path, tar_of(GOOD))
    assert unpacked.name == "up_bot" and unpacked.folder == tmp_path / "out" and unpacked.files == 2
    assert (unpacked.folder / "bot.py").stat().st_mode & 0o777 == 0o755
    assert (unpacked.folder / "bot.toml").stat().st_mode & 0o777 == 0o644


def test_bot_toml_inside_one_top_folder_is_taken_and_a_zip_too(tmp_path):
    inside = unpack(tmp_path, tar_of([file_("up_bot/bot.toml", MANIFEST), file_("up_bot/bot.py", b"")]))
    assert inside.folder == tmp_path / "out" / "up_bot"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("bot.toml", MANIFEST)
    (tmp_path / "z").mkdir()
    assert unpack(tmp_path / "z", buffer.getvalue()).name == "up_bot"


def test_setuid_bits_are_dropped(tmp_path):
    unpacked = unpack(tmp_path, tar_of([file_("bot.toml", MANIFEST), file_("run", b"", 0o6755 | stat.S_ISVTX)]))
    assert (unpacked.folder / "run").stat().st_mode & 0o7777 == 0o755


@pytest.mark.parametrize("member, words", [
    (special("passwd", tarfile.SYMTYPE, "/etc/passwd"), "a link"),
    (special("hard", tarfile.LNKTYPE, "bot.toml"), "a link"),
    (special("tty", tarfile.CHRTYPE), "a device"),
    (special("pipe", tarfile.FIFOTYPE), "a FIFO"),
    (file_("../evil", b"out"), "'..'"),
    (file_("/tmp/evil", b"out"), "absolute"),
    (file_("a/../../evil", b"out"), "'..'"),
    (file_("back\\slash", b"x"), "backslash"),
    (file_("new\nline", b"x"), "control character"),
])
def test_an_entry_that_could_reach_out_or_plant_something_is_refused(tmp_path, member, words):
    reason = refused(tmp_path, tar_of([*GOOD, member]))
    assert words in reason
    assert not (tmp_path.parent / "evil").exists() and not Path("/tmp/evil").exists()


def test_a_zip_slip_and_a_zip_symlink_are_refused(tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("bot.toml", MANIFEST)
        z.writestr("a/../../escaped", "out")
    assert "'..'" in refused(tmp_path, buffer.getvalue())
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("bot.toml", MANIFEST)
        link = zipfile.ZipInfo("passwd")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        z.writestr(link, "/etc/passwd")
    assert "a link" in refused(tmp_path, buffer.getvalue())


def test_a_compression_bomb_is_stopped_while_it_is_read(tmp_path):
    """A gzip'd tar of 50 MB of zeros is about 50 KB: refused long before 50 MB are written."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        info, data = file_("bot.toml", MANIFEST)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
        zeros = tarfile.TarInfo("zeros")
        zeros.size = 50 * 1024 * 1024

        class Zeros(io.RawIOBase):
            left = zeros.size

            def readable(self) -> bool:
                return True

            def readinto(self, b):  # type: ignore[override]
                n = min(len(b), self.left)
                b[:n] = bytes(n)
                self.left -= n
                return n
        tar.addfile(zeros, io.BufferedReader(Zeros()))
    data = buffer.getvalue()
    assert len(data) < 1024 * 1024
    reason = refused(tmp_path, data, IntakeLimits(file_bytes=500 * 1024 * 1024, total_bytes=500 * 1024 * 1024))
    assert "compression bomb" in reason


def test_the_limits_on_entries_sizes_and_duplicates_hold(tmp_path):
    many = [file_(f"f{i}", b"") for i in range(30)]
    assert "more than 20 entries" in refused(tmp_path, tar_of([*GOOD, *many]), IntakeLimits(entries=20))
    assert "one file may have" in refused(tmp_path, tar_of([*GOOD, file_("big", b"x" * 2000)]), IntakeLimits(file_bytes=1000))
    assert "twice" in refused(tmp_path, tar_of([*GOOD, file_("bot.py", b"again")]))
    deep = "/".join(["d"] * 25) + "/f"
    assert "deeper than" in refused(tmp_path, tar_of([*GOOD, file_(deep)]))


@pytest.mark.parametrize("data, words", [
    (b"just some text, not an archive", "not a .tar.gz"),
    (b"", "not a .tar.gz"),
    (tar_of(GOOD)[:60], "not a whole archive"),
    (tar_of([file_("bot.py", b"")]), "no bot.toml"),
    (tar_of([file_("a/bot.toml", MANIFEST), file_("b/bot.toml", MANIFEST)]), "no bot.toml"),
    (tar_of([file_("bot.toml", b'name = "../x"\nlanguage = "python"\ncommand = ["x"]\n')]), "its bot.toml"),
])
def test_what_is_no_bot_folder_is_refused(tmp_path, data, words):
    assert words in refused(tmp_path, data)


def test_an_archive_over_its_size_is_refused_unread(tmp_path):
    assert "at most 10" in refused(tmp_path, tar_of(GOOD, "") + bytes(100), IntakeLimits(archive_bytes=10))
