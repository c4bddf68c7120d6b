"""An uploaded bot archive as hostile input (issue 44, docs/sandbox.md "Uploaded archives"): each
attack is built here, byte by byte where the tools would not write it, and each refusal must say
which entry and why, and leave nothing behind (the folder it was to fill is gone, and nothing
appeared beside it). The good cases: bot.toml at the top, inside one top folder, in a zip, with
the execute bit kept and the setuid bit dropped."""

from __future__ import annotations

import gzip
import io
import os
import stat
import struct
import tarfile
import zipfile
import zlib
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from arena.submission import intake
from arena.submission.intake import ArchiveRefused, IntakeLimits, unpack_archive

MIB = 1 << 20
MANIFEST = b'name = "upload_bot"\nlanguage = "python"\ncommand = ["{python}", "bot.py"]\n'
BOT = b"import sys\nfor line in sys.stdin:\n    pass\n"


def member(name: str, data: bytes = b"", **fields: Any) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o644
    for key, value in fields.items():
        setattr(info, key, value)
    return info, data


def bot_files(top: str = "") -> list[tuple[tarfile.TarInfo, bytes]]:
    return [member(f"{top}bot.toml", MANIFEST), member(f"{top}bot.py", BOT)]


def make_tar(path: Path, members: list[tuple[tarfile.TarInfo, bytes]], mode: str = "w:gz") -> Path:
    with tarfile.open(path, mode, format=tarfile.GNU_FORMAT, encoding="utf-8", errors="surrogateescape") as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return path


def make_zip(path: Path, entries: list[tuple[str | zipfile.ZipInfo, bytes]]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            archive.writestr(name, data)
    return path


def listing(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


def refusal(archive: Path, limits: IntakeLimits = IntakeLimits()) -> str:
    """The reason the archive is refused, once it is checked that nothing of it was left."""
    before = listing(archive.parent)
    dest = archive.parent / "unpacked"
    with pytest.raises(ArchiveRefused) as caught:
        unpack_archive(archive, dest, limits)
    assert not dest.exists()
    assert listing(archive.parent) == before
    return caught.value.reason


# --- Links, devices and paths out -------------------------------------------------------------


def test_a_symlink_to_etc_passwd_is_refused(tmp_path):
    archive = make_tar(tmp_path / "bot.tar.gz", bot_files() + [member("notes", type=tarfile.SYMTYPE,
                                                                      linkname="/etc/passwd")])
    assert refusal(archive) == ("entry 'notes': a symbolic link (to '/etc/passwd'); an upload may hold only plain "
                                "files and folders")


def test_a_hard_link_is_refused_even_to_a_file_of_the_archive(tmp_path):
    archive = make_tar(tmp_path / "bot.tar.gz", bot_files() + [member("again.py", type=tarfile.LNKTYPE,
                                                                      linkname="bot.py")])
    assert refusal(archive).startswith("entry 'again.py': a hard link (to 'bot.py')")


@pytest.mark.parametrize("kind, words", [(tarfile.CHRTYPE, "a character device"), (tarfile.FIFOTYPE, "a FIFO"),
                                         (tarfile.BLKTYPE, "a block device")])
def test_devices_and_fifos_are_refused(tmp_path, kind, words):
    archive = make_tar(tmp_path / "bot.tar.gz", bot_files() + [member("zero", type=kind, devmajor=1, devminor=5)])
    assert refusal(archive) == f"entry 'zero': {words}; an upload may hold only plain files and folders"


def test_a_dot_dot_path_is_refused_and_nothing_lands_beside_the_folder(tmp_path):
    archive = make_tar(tmp_path / "bot.tar.gz", bot_files() + [member("../evil", b"gotcha")])
    assert refusal(archive) == "entry '../evil': a '..' in its path would lead out of the bot's folder"
    assert not (tmp_path / "evil").exists()


def test_an_absolute_path_is_refused(tmp_path):
    target = tmp_path / "x"
    archive = make_tar(tmp_path / "bot.tar.gz", bot_files() + [member(str(target), b"gotcha")])
    assert refusal(archive) == (f"entry '{target}': an absolute path; names must be relative to the bot's folder")
    assert not target.exists()


def test_a_zip_slip_is_refused(tmp_path):
    archive = make_zip(tmp_path / "bot.zip", [("bot.toml", MANIFEST), ("a/../../x", b"gotcha")])
    assert refusal(archive) == "entry 'a/../../x': a '..' in its path would lead out of the bot's folder"


def test_a_backslash_path_is_refused(tmp_path):
    archive = make_zip(tmp_path / "bot.zip", [("bot.toml", MANIFEST), ("..\\..\\x", b"gotcha")])
    assert refusal(archive).startswith("entry '..\\..\\x': a backslash in its name")


def test_a_zip_symlink_entry_is_refused(tmp_path):
    link = zipfile.ZipInfo("notes")
    link.create_system = 3
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    archive = make_zip(tmp_path / "bot.zip", [("bot.toml", MANIFEST), (link, b"/etc/passwd")])
    assert refusal(archive) == "entry 'notes': a symbolic link; an upload may hold only plain files and folders"


# --- Names ------------------------------------------------------------------------------------


def test_a_duplicate_entry_is_refused(tmp_path):
    archive = make_tar(tmp_path / "bot.tar.gz", bot_files() + [member("bot.py", b"print('second')")])
    assert refusal(archive) == "entry 'bot.py': the archive holds it twice"


def test_a_control_character_in_a_name_is_refused_and_shown_escaped(tmp_path):
    archive = make_tar(tmp_path / "bot.tar.gz", bot_files() + [member("red\x1b[31m.txt", b"x")])
    assert refusal(archive) == "entry 'red\\x1b[31m.txt': its name holds a control character"


def test_a_name_that_is_not_utf8_is_refused(tmp_path):
    archive = make_tar(tmp_path / "bot.tar.gz", bot_files() + [member("caf\udce9.txt", b"x")])  # Latin-1 e-acute
    assert refusal(archive) == "entry 'caf\\udce9.txt': its name is not UTF-8 text"


def test_too_deep_and_too_long_names_are_refused(tmp_path):
    deep = make_tar(tmp_path / "deep.tar.gz", bot_files() + [member("a/" * 20 + "x", b"x")])
    assert "21 levels deep; an upload may go at most 20 deep" in refusal(deep)
    long = make_tar(tmp_path / "long.tar.gz", bot_files() + [member("n" * 256, b"x")])
    assert "a name of 256 bytes; each part of a path may have at most 255" in refusal(long)


# --- Sizes, counts and bombs ------------------------------------------------------------------


def zeros_bomb(path: Path, files: int, file_mib: int) -> Path:
    """A gzip'd tar of `files` files of `file_mib` MiB of zeros each, each under the limits the
    archive declares, a few hundred KiB per 200 MiB: one MiB of zeros is deflated once, and its
    block (full-flushed, so it stands alone) written again and again. Never held whole."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = deflate.compress(b"\0" * MIB) + deflate.flush(zlib.Z_FULL_FLUSH)
    crc = length = 0

    def body() -> Iterator[tuple[bytes, bytes]]:  # (what it unpacks to, or b"" for a run of zeros; deflated)
        for n in range(files):
            header = member(f"bot/table{n}.bin", size=file_mib * MIB)[0].tobuf(tarfile.GNU_FORMAT)
            yield header, deflate.compress(header) + deflate.flush(zlib.Z_FULL_FLUSH)
            for _ in range(file_mib):
                yield b"", block
        end = b"\0" * 1024
        yield end, deflate.compress(end) + deflate.flush()

    with open(path, "wb") as out:
        out.write(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff")  # gzip: deflate, no name, no time
        for plain, deflated in body():
            crc = zlib.crc32(plain or b"\0" * MIB, crc)
            length += len(plain) or MIB
            out.write(deflated)
        out.write(struct.pack("<II", crc, length & 0xFFFFFFFF))
    return path


def test_a_compression_bomb_is_stopped_early_with_little_written(tmp_path, monkeypatch):
    archive = zeros_bomb(tmp_path / "bomb.tar.gz", files=5, file_mib=40)  # 200 MiB
    assert archive.stat().st_size < 400 * 1024
    written: list[int] = []
    remove: Callable[[Path], None] = intake._remove

    def measured(dest: Path) -> None:
        written.append(sum(path.stat().st_size for path in dest.rglob("*") if path.is_file()))
        remove(dest)

    monkeypatch.setattr(intake, "_remove", measured)
    reason = refusal(archive)
    assert reason.startswith("entry 'bot/table0.bin': ") and "stopped as a compression bomb" in reason
    assert written and written[0] < 8 * MIB


def test_a_zip_bomb_is_stopped_by_the_ratio_of_its_entry(tmp_path):
    archive = make_zip(tmp_path / "bomb.zip", [("bot.toml", MANIFEST), ("table.bin", bytes(20 * MIB))])
    assert archive.stat().st_size < 64 * 1024
    reason = refusal(archive)
    assert reason.startswith("entry 'table.bin': ") and "stopped as a compression bomb" in reason


def test_a_huge_pax_header_is_refused_before_it_is_read_whole(tmp_path):
    info, data = member("bot.py", BOT)
    info.pax_headers = {"comment": "x" * MIB}
    archive = tmp_path / "bot.tar.gz"
    with tarfile.open(archive, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        tar.addfile(member("bot.toml", MANIFEST)[0], io.BytesIO(MANIFEST))
        tar.addfile(info, io.BytesIO(data))
    assert refusal(archive) == ("the archive, after entry 'bot.toml': the next entry's headers (its name, a long name "
                                "or pax records) take more than 64 KiB")


def test_too_many_entries_are_refused_at_the_first_past_the_limit(tmp_path):
    archive = make_tar(tmp_path / "bot.tar.gz", bot_files() + [member(f"f{n}", b"") for n in range(200)])
    assert refusal(archive, IntakeLimits(max_entries=100)) == (
        "entry 'f98': more than 100 entries; an upload may hold at most that many files and folders")


def test_a_zip_with_too_many_entries_is_refused_before_it_is_read(tmp_path):
    archive = make_zip(tmp_path / "bot.zip", [("bot.toml", MANIFEST)] + [(f"f{n}", b"") for n in range(20)])
    assert refusal(archive, IntakeLimits(max_entries=10)) == "the archive holds 21 entries; an upload may hold at most 10"


def test_a_file_over_its_limit_and_an_archive_over_its_size_are_refused(tmp_path):
    archive = make_tar(tmp_path / "bot.tar.gz", bot_files() + [member("data.bin", os.urandom(3000))])
    assert refusal(archive, IntakeLimits(max_file_bytes=2048)) == "entry 'data.bin': 2.9 KiB; a file may be at most 2 KiB"
    assert refusal(archive, IntakeLimits(max_archive_bytes=1024)).startswith("the archive is 3.")


def test_files_over_the_total_are_refused(tmp_path):
    archive = make_tar(tmp_path / "bot.tar.gz", bot_files() + [member(f"d{n}", os.urandom(1500)) for n in range(3)])
    assert refusal(archive, IntakeLimits(max_unpacked_bytes=4096)) == (
        "entry 'd2': the files would unpack to more than 4 KiB; an upload may hold at most that")


# --- What is not an archive of a bot ----------------------------------------------------------


def test_a_file_that_is_no_archive_is_refused_whatever_its_name(tmp_path):
    archive = tmp_path / "bot.tar.gz"
    archive.write_bytes(b"#!/bin/sh\nrm -rf /\n" * 40)
    assert refusal(archive).startswith("the upload is not a .tar.gz, .tar or .zip archive")
    (tmp_path / "empty.zip").write_bytes(b"")
    assert refusal(tmp_path / "empty.zip").startswith("the upload is empty (0 bytes)")
    (tmp_path / "text.gz").write_bytes(gzip.compress(b"hello\n" * 200))
    assert refusal(tmp_path / "text.gz").startswith("the gzip holds no tar archive")


def test_empty_archives_are_refused(tmp_path):
    assert refusal(make_tar(tmp_path / "bot.tar.gz", [])) == "the archive is empty: it holds no files"
    assert refusal(make_zip(tmp_path / "bot.zip", [])).startswith("the archive holds no files")
    folders = make_tar(tmp_path / "dirs.tar.gz", [member("bot", type=tarfile.DIRTYPE)])
    assert refusal(folders).startswith("the archive holds no files")


def test_a_truncated_gzip_is_refused(tmp_path):
    whole = make_tar(tmp_path / "whole.tar.gz", bot_files() + [member("data.bin", os.urandom(200_000))])
    cut = tmp_path / "cut.tar.gz"
    cut.write_bytes(whole.read_bytes()[:120_000])
    reason = refusal(cut)
    assert reason.startswith("entry 'data.bin': cannot read the archive (") and reason.endswith("cut short")


def test_an_archive_without_bot_toml_is_refused(tmp_path):
    archive = make_tar(tmp_path / "bot.tar.gz", [member("src/bot.py", BOT), member("README", b"hi")])
    assert refusal(archive) == ("the archive has no bot.toml at its top nor inside one top folder (its top holds "
                                "README, src/); archive the bot's folder, which holds its bot.toml")


def test_two_top_folders_are_refused(tmp_path):
    archive = make_tar(tmp_path / "bot.tar.gz", bot_files("one/") + bot_files("two/"))
    assert refusal(archive).startswith("the archive has no bot.toml at its top nor inside one top folder (its top "
                                       "holds one/, two/)")


def test_a_bad_bot_name_is_refused_as_bot_add_refuses_it(tmp_path):
    manifest = MANIFEST.replace(b'"upload_bot"', b'"../../etc"')
    archive = make_tar(tmp_path / "bot.tar.gz", [member("mine/bot.toml", manifest), member("mine/bot.py", BOT)])
    assert refusal(archive).startswith("mine/bot.toml: key 'name': '../../etc' is not a valid bot name")


def test_a_manifest_that_does_not_load_is_refused_by_its_path_in_the_archive(tmp_path):
    archive = make_tar(tmp_path / "bot.tar.gz", [member("bot.toml", b"name = \n"), member("bot.py", BOT)])
    assert refusal(archive).startswith("bot.toml: invalid TOML")


# --- Good uploads -----------------------------------------------------------------------------


def test_bot_toml_at_the_top_unpacks_into_dest(tmp_path):
    archive = make_tar(tmp_path / "bot.tar.gz", [member(".", type=tarfile.DIRTYPE, mode=0o755)] +
                       bot_files("./"))
    unpacked = unpack_archive(archive, tmp_path / "out")
    assert (unpacked.name, unpacked.folder, unpacked.files) == ("upload_bot", tmp_path / "out", 2)
    assert unpacked.bytes == len(MANIFEST) + len(BOT)
    assert (unpacked.folder / "bot.py").read_bytes() == BOT


def test_bot_toml_inside_one_top_folder_unpacks_into_it(tmp_path):
    archive = make_tar(tmp_path / "bot.tar", [member("mine", type=tarfile.DIRTYPE, mode=0o777)] + bot_files("mine/")
                       + [member("mine/lib/util.py", b"X = 1\n")], mode="w")
    unpacked = unpack_archive(archive, tmp_path / "out")
    assert unpacked.folder == tmp_path / "out" / "mine" and unpacked.files == 3
    assert stat.S_IMODE((unpacked.folder).stat().st_mode) == 0o755
    assert (unpacked.folder / "lib" / "util.py").read_bytes() == b"X = 1\n"


def test_a_zip_unpacks_and_macos_resource_forks_are_left_out(tmp_path):
    archive = make_zip(tmp_path / "upload.bin", [("mine/bot.toml", MANIFEST), ("mine/bot.py", BOT),
                                                 ("__MACOSX/mine/._bot.py", b"\0\5\26\7")])
    unpacked = unpack_archive(archive, tmp_path / "out")
    assert unpacked.folder == tmp_path / "out" / "mine" and listing(tmp_path / "out") == ["mine"]


def test_a_macos_tar_with_resource_forks_beside_the_folder_unpacks_into_the_folder(tmp_path):
    archive = make_tar(tmp_path / "bot.tar.gz", [member("._mine", b"\0\5\26\7")] + bot_files("mine/")
                       + [member("mine/._bot.py", b"\0\5\26\7")])
    unpacked = unpack_archive(archive, tmp_path / "out")
    assert unpacked.folder == tmp_path / "out" / "mine" and listing(tmp_path / "out") == ["mine"]
    assert listing(unpacked.folder) == ["._bot.py", "bot.py", "bot.toml"]  # inside the folder, kept as sent


def test_the_execute_bit_is_kept_and_setuid_dropped(tmp_path):
    archive = make_tar(tmp_path / "bot.tar.gz", [member("bot.toml", MANIFEST, mode=0o6666),
                                                 member("run.sh", b"#!/bin/sh\n", mode=0o4755)])
    folder = unpack_archive(archive, tmp_path / "out").folder
    assert stat.S_IMODE((folder / "run.sh").stat().st_mode) == 0o755
    assert stat.S_IMODE((folder / "bot.toml").stat().st_mode) == 0o644
    runner = zipfile.ZipInfo("run.sh")
    runner.external_attr = (stat.S_IFREG | 0o755) << 16
    zipped = make_zip(tmp_path / "bot.zip", [("bot.toml", MANIFEST), (runner, b"#!/bin/sh\n")])
    assert stat.S_IMODE((unpack_archive(zipped, tmp_path / "zout").folder / "run.sh").stat().st_mode) == 0o755


def test_dest_must_not_exist_and_is_left_as_it_was(tmp_path):
    archive = make_tar(tmp_path / "bot.tar.gz", bot_files())
    (tmp_path / "out").mkdir()
    with pytest.raises(FileExistsError):
        unpack_archive(archive, tmp_path / "out")
    assert listing(tmp_path / "out") == []


def test_a_bot_name_with_a_trailing_newline_is_refused(tmp_path):
    """`$` matches before a final newline: NAME_RE ends in \\Z, so "x\\n" is no bot's name anywhere."""
    from arena.protocol.messages import NAME_RE

    assert NAME_RE.match("mybot") and not NAME_RE.match("mybot\n")
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "mybot\\n"\nlanguage = "python"\ncommand = ["python3", "bot.py"]\n')
    from arena.submission.manifest import ManifestError, read_manifest

    with pytest.raises(ManifestError, match="not a valid bot name"):
        read_manifest(folder / "bot.toml")
