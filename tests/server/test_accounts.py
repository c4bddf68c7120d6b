"""The league server's accounts and its file (issue 44): secrets stored only as hashes, a sign-up
link that works once, a sign-in limit checked before any hash is computed, tokens that stop when
replaced or when their author is removed, and a file that a kill -9 leaves whole."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import pytest

from arena.server import accounts
from arena.server.store import ServerStore
from tests.cli_support import invoke


@pytest.fixture()
def store(tmp_path, monkeypatch):
    monkeypatch.setenv("ARENA_ARGON2_FAST", "1")
    accounts._hasher.cache_clear()
    opened = ServerStore(tmp_path / "class.server.sqlite")
    yield opened
    opened.close()
    getattr(accounts._hasher, "cache_clear", lambda: None)()  # a test may have put a spy in its place


def test_secrets_are_kept_only_as_hashes(store, tmp_path):
    code, token = accounts.add_author(store, "alice")
    accounts.redeem_signup(store, code, "correct horse battery")
    raw = (tmp_path / "class.server.sqlite").read_bytes() + b"".join(
        p.read_bytes() for p in tmp_path.glob("class.server.sqlite-*"))
    assert b"correct horse battery" not in raw and token.encode() not in raw and code.encode() not in raw
    hashed = store.password_hash("alice")
    assert hashed.startswith("$argon2id$")


def test_a_signup_link_works_once_and_expires(store):
    code, _ = accounts.add_author(store, "alice")
    assert accounts.signup_name(store, code) == "alice"
    with pytest.raises(accounts.AccountError, match="10 to"):
        accounts.redeem_signup(store, code, "short")
    with pytest.raises(accounts.AccountError, match="not be your name"):
        accounts.redeem_signup(store, code, "Alice     ")
    assert accounts.redeem_signup(store, code, "correct horse battery").signed_up
    with pytest.raises(accounts.AccountError, match="used already"):
        accounts.redeem_signup(store, code, "another good password")
    later, _ = accounts.add_author(store, "bob")
    with store._write() as db:
        db.execute("UPDATE authors SET signup_expires = ? WHERE name = 'bob'", (time.time() - 1,))
    assert accounts.signup_name(store, later) is None


def test_signing_in_is_limited_before_any_hash_is_computed(store, monkeypatch):
    code, _ = accounts.add_author(store, "alice")
    accounts.redeem_signup(store, code, "correct horse battery")
    assert accounts.check_password(store, "alice", "correct horse battery", "10.0.0.1").name == "alice"
    for _ in range(accounts.NAME_FAILURES):
        with pytest.raises(accounts.AccountError, match="wrong name or password"):
            accounts.check_password(store, "alice", "guess", "10.0.0.1")
    verified = []

    class Spy:
        def verify(self, *args: object) -> None:
            verified.append(args)

        def hash(self, password: str) -> str:
            return "stand-in"
    monkeypatch.setattr(accounts, "_hasher", Spy)
    with pytest.raises(accounts.AccountError, match="wait 15 minutes"):
        accounts.check_password(store, "alice", "correct horse battery", "10.0.0.2")
    assert verified == []  # refused before argon2 ran
    with pytest.raises(accounts.AccountError, match="wrong name or password"):
        accounts.check_password(store, "nobody", "x" * 12, "10.0.0.3")  # an unknown name reads the same
    assert len(verified) == 1  # and is verified against a stand-in: it takes as long


def test_a_new_token_or_a_removal_stops_the_old_token(store):
    _, token = accounts.add_author(store, "alice")
    assert accounts.author_by_token(store, token).name == "alice"
    fresh = accounts.new_token(store, "alice")
    assert accounts.author_by_token(store, token) is None and accounts.author_by_token(store, fresh).name == "alice"
    accounts.remove_author(store, "alice")
    assert accounts.author_by_token(store, fresh) is None and accounts.author_named(store, "alice") is None
    with pytest.raises(accounts.AccountError, match="no author alice"):
        accounts.new_token(store, "alice")


def test_a_name_like_anothers_is_refused_and_a_removed_one_comes_back_afresh(store):
    _, old = accounts.add_author(store, "Ann")
    with pytest.raises(accounts.AccountError, match="a name too like it"):
        accounts.add_author(store, "ann")
    accounts.remove_author(store, "Ann")
    _, fresh = accounts.add_author(store, "Ann")
    assert accounts.author_by_token(store, old) is None and accounts.author_by_token(store, fresh).name == "Ann"


def test_attempts_sent_together_cannot_pass_the_limit(store, monkeypatch):
    """Each attempt is counted in the transaction that checks the limit, before its slow hash: of
    eight sent at once, five are checked and three refused, however they interleave."""
    import threading

    from argon2.exceptions import VerifyMismatchError

    code, _ = accounts.add_author(store, "alice")
    accounts.redeem_signup(store, code, "correct horse battery")
    checked = []

    class Slow:
        def verify(self, *args: object) -> None:
            checked.append(args)
            time.sleep(0.2)  # every attempt is in flight before the first hash ends
            raise VerifyMismatchError()

        def hash(self, password: str) -> str:
            return "stand-in"
    monkeypatch.setattr(accounts, "_hasher", Slow)
    said: list[str] = []

    def attempt() -> None:
        try:
            accounts.check_password(store, "alice", "guess", "10.0.0.9")
        except accounts.AccountError as exc:
            said.append(str(exc))
    threads = [threading.Thread(target=attempt) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(checked) == accounts.NAME_FAILURES
    assert sum("wait" in line for line in said) == 8 - accounts.NAME_FAILURES


@pytest.mark.parametrize("name", ["", "../x", "a b", "<script>", ".hidden", "x" * 200, "bob\n"])
def test_a_hostile_name_is_refused(store, name):
    with pytest.raises(accounts.AccountError, match="an author's name is"):
        accounts.add_author(store, name)


def test_uploads_keep_their_states_and_owners(store, tmp_path):
    archive = tmp_path / "a.bin"
    archive.write_bytes(b"x")
    first = store.add_upload("alice", "alice_bot", "/nowhere", archive)
    assert first.state == "checking" and not archive.exists() and os.path.exists(first.archive)
    store.set_upload(first.id, "refused", reason="its check failed", check={"checks": [{"name": "play", "passed": False,
                                                                                       "detail": "crashed"}]})
    archive.write_bytes(b"y")
    second = store.add_upload("alice", "alice_bot", "/nowhere", archive)
    assert store.waiting_uploads() == [second.id] and store.latest_upload("alice_bot").id == second.id
    assert store.bot_owners() == {"alice_bot": "alice"}
    shown = store.upload(first.id).as_dict(with_logs=True)
    assert shown["check_text"] == "FAIL play: crashed" and "build_log" not in store.upload(first.id).as_dict()


def test_a_kill_while_writing_leaves_the_file_whole(tmp_path):
    path = tmp_path / "class.server.sqlite"
    writer = subprocess.Popen([sys.executable, "-c", (
        "import sys, time\nfrom pathlib import Path\nfrom arena.server.store import ServerStore\n"
        f"store = ServerStore(Path({str(path)!r}))\nprint('ready', flush=True)\nn = 0\n"
        "while True:\n    n += 1\n    archive = Path(sys.argv[1]) / f'a{n}'\n    archive.write_bytes(b'x')\n"
        "    up = store.add_upload('alice', 'alice_bot', '/x', archive)\n    store.set_upload(up.id, 'entered', version=str(n))\n"),
        str(tmp_path)], stdout=subprocess.PIPE, env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert writer.stdout.readline().strip() == b"ready"
    time.sleep(0.5)
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    store = ServerStore(path)
    try:
        assert store._rows("PRAGMA integrity_check") == [("ok",)]
        uploads = store.uploads()
        assert uploads and all(os.path.exists(up.archive) for up in uploads)
        assert all(up.state == "entered" for up in uploads[1:])  # only the last may have been cut before its state
    finally:
        store.close()


def test_the_author_commands_print_a_link_and_a_token_that_works(tmp_path, monkeypatch):
    monkeypatch.setenv("ARENA_ARGON2_FAST", "1")
    config = tmp_path / "class.toml"
    config.write_text('bots = ["random_bot", "heuristic_bot", "shell_bot"]\nschedule = "league"\n')
    added = invoke("author", "add", str(config), "alice", "--url", "https://arena.example.org")
    assert added.exit_code == 0, added.output
    assert "https://arena.example.org/signup/" in added.output
    token = added.output.strip().splitlines()[-1].removeprefix("token: ")
    store = ServerStore(tmp_path / "class.server.sqlite")
    try:
        assert accounts.author_by_token(store, token).name == "alice"
    finally:
        store.close()
    assert re.search(r"alice\s+author\s+not signed up", invoke("author", "list", str(config)).output)
    again = invoke("author", "add", str(config), "alice")
    assert again.exit_code == 2 and "is an author already" in again.output
    fresh = invoke("author", "token", str(config), "alice").output.strip().splitlines()[-1]
    assert fresh.startswith("token: ") and fresh != f"token: {token}"
    assert invoke("author", "remove", str(config), "alice").exit_code == 0
    assert invoke("author", "remove", str(config), "alice").exit_code == 2
    config.write_text('bots = ["random_bot", "heuristic_bot", "shell_bot"]\n')
    refused = invoke("author", "add", str(config), "bob")
    assert refused.exit_code == 2 and "plays a league" in refused.output
