"""The league server refuses what it must, each with a clear status and nothing written (issue 44):
pages and API without a session or token, forms without their CSRF token, forged and expired
cookies, another author's bot, hostile archives, path parameters that try to reach a file, and
text from bots shown only as text."""

from __future__ import annotations

import time

import pytest
from itsdangerous import URLSafeTimedSerializer

from arena.server.auth import COOKIE
from arena.server.paths import ServerPaths
from arena.server.store import ServerStore
from tests.server.support import add_author, bot_folder, csrf_of, serve, sign_up, tar_gz, write_league, zip_slip


@pytest.fixture()
def league(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("ARENA_ARGON2_FAST", "1")
    return write_league(tmp_path)


def files_under(folder) -> set[str]:
    return {str(path.relative_to(folder)) for path in folder.rglob("*")}


def uploads_of(config) -> list:
    store = ServerStore(ServerPaths(config).server_file)
    try:
        return store.uploads()
    finally:
        store.close()


def test_nothing_is_shown_to_someone_not_signed_in(league):
    with serve(league) as client:
        assert client.get("/", follow_redirects=False).status_code == 303
        for path in ("/api/standings", "/api/bots", "/api/bots/random_bot", "/api/games", "/api/games/1",
                     "/api/events"):
            answer = client.get(path)
            assert answer.status_code == 401 and "sign in" in answer.json()["error"], path
        assert client.get("/organiser").status_code == 401


def test_a_public_league_shows_its_board_to_anyone_but_not_the_organisers_page(league):
    with serve(league, public=True) as client:
        assert client.get("/").status_code == 200
        assert client.get("/api/standings").status_code == 200
        assert client.get("/organiser").status_code == 401


def test_a_form_without_its_csrf_token_is_refused_and_changes_nothing(league, tmp_path):
    code, _ = add_author(league, "alice")
    with serve(league) as client:
        client.get(f"/signup/{code}")  # the anonymous session is made
        refused = client.post(f"/signup/{code}", data={"password": "correct horse battery"})
        assert refused.status_code == 403 and "another site" in refused.text
        sign_up(client, code)  # the link still works: the refused post did not use it
        archive = tar_gz(bot_folder(tmp_path, "alice_bot"))
        before = files_under(ServerPaths(league).folder)
        posted = client.post("/upload", files={"archive": ("a.tar.gz", archive, "application/gzip")})
        assert posted.status_code == 403
        assert files_under(ServerPaths(league).folder) == before and uploads_of(league) == []


def test_a_forged_or_expired_cookie_is_no_session(league):
    code, _ = add_author(league, "alice")
    with serve(league) as client:
        sign_up(client, code)
        assert client.get("/upload").status_code == 200
        good = client.cookies.get(COOKIE)
        client.cookies.set(COOKIE, good[:-4] + ("AAAA" if not good.endswith("AAAA") else "BBBB"))
        assert client.get("/upload", follow_redirects=False).status_code == 303  # to the sign-in page
        forged = URLSafeTimedSerializer("not the server's key", salt="arena-session").dumps(
            {"name": "alice", "csrf": "x"})
        client.cookies.set(COOKIE, forged)
        assert client.get("/upload", follow_redirects=False).status_code == 303
        store = ServerStore(ServerPaths(league).server_file)
        key = store.secret_key()
        store.close()
        serializer = URLSafeTimedSerializer(key, salt="arena-session")
        real_time = time.time
        try:  # a cookie signed 15 days ago: past the 14 days a session lasts
            time.time = lambda: real_time() - 15 * 86400  # type: ignore[assignment]
            old = serializer.dumps({"name": "alice", "csrf": "x"})
        finally:
            time.time = real_time  # type: ignore[assignment]
        client.cookies.set(COOKIE, old)
        assert client.get("/upload", follow_redirects=False).status_code == 303


def test_a_token_cannot_upload_another_authors_bot_or_a_house_bot(league, tmp_path):
    _, alice = add_author(league, "alice")
    _, bob = add_author(league, "bob")
    with serve(league) as client:
        first = client.post("/api/bots", headers={"Authorization": f"Bearer {alice}"},
                            files={"archive": ("a.tar.gz", tar_gz(bot_folder(tmp_path, "alice_bot")))})
        assert first.status_code == 202, first.text
        stolen = client.post("/api/bots", headers={"Authorization": f"Bearer {bob}"},
                             files={"archive": ("a.tar.gz", tar_gz(bot_folder(tmp_path / "b", "alice_bot")))})
        assert stolen.status_code == 403 and "another author's bot" in stolen.json()["error"]
        house = client.post("/api/bots", headers={"Authorization": f"Bearer {bob}"},
                            files={"archive": ("h.tar.gz", tar_gz(bot_folder(tmp_path / "h", "random_bot")))})
        assert house.status_code == 403 and "league's own bots" in house.json()["error"]
        wrong = client.post("/api/bots", headers={"Authorization": "Bearer not-a-token"},
                            files={"archive": ("a.tar.gz", b"x")})
        assert wrong.status_code == 401
    assert [up.bot for up in uploads_of(league)] == ["alice_bot"]


def test_a_hostile_archive_gets_its_reason_and_leaves_nothing(league):
    _, token = add_author(league, "alice")
    with serve(league) as client:
        before = files_under(league.parent)
        slip = client.post("/api/bots", headers={"Authorization": f"Bearer {token}"},
                           files={"archive": ("bot.zip", zip_slip(), "application/zip")})
        assert slip.status_code == 422 and "archive refused" in slip.json()["error"]
        junk = client.post("/api/bots", headers={"Authorization": f"Bearer {token}"},
                           files={"archive": ("bot.tar.gz", b"not an archive at all", "application/gzip")})
        assert junk.status_code == 422
        huge = client.post("/api/bots", headers={"Authorization": f"Bearer {token}",
                                                 "Content-Length": str(30 * 1024 * 1024)}, content=b"x" * 10)
        assert huge.status_code == 413
        assert files_under(league.parent) - before <= {"class.uploads/logs/league.log"}
        assert not (league.parent.parent / "escaped.txt").exists()
    assert uploads_of(league) == []


@pytest.mark.parametrize("path", ["/bots/..%2F..%2Fetc%2Fpasswd", "/bots/../../etc/passwd", "/games/..%2Fclass.toml",
                                  "/games/1e3", "/api/bots/..%2Fclass", "/api/games/-1", "/signup/..%2F..%2Fx",
                                  "/static/..%2F..%2Fapp.py", "/static/../server/app.py"])
def test_a_path_parameter_never_reaches_a_file(league, path):
    code, _ = add_author(league, "alice")
    with serve(league) as client:
        sign_up(client, code)
        answer = client.get(path)
        assert answer.status_code in (400, 404), (path, answer.status_code)
        assert "tournament" not in answer.text and "import " not in answer.text


def test_bot_given_text_is_shown_as_text(league):
    """A refused upload's reason quotes its check, which quotes the bot: escaped on every page."""
    _, token = add_author(league, "alice")
    code, _ = add_author(league, "teacher", organiser=True)
    store = ServerStore(ServerPaths(league).server_file)
    try:
        archive = league.parent / "x.archive"
        archive.write_bytes(b"x")
        upload = store.add_upload("alice", "alice_bot", str(league.parent / "none"), archive)
        store.set_upload(upload.id, "refused", reason='its check failed (play: said "<script>alert(1)</script>")',
                         build_log="<img src=x onerror=alert(2)>")
    finally:
        store.close()
    with serve(league) as client:
        sign_up(client, code)
        for path in ("/organiser", "/bots/alice_bot"):
            page = client.get(path)
            assert page.status_code == 200, path
            assert "<script>alert(1)" not in page.text and "&lt;script&gt;alert(1)" in page.text
            assert "<img src=x" not in page.text
            assert "script-src 'self'" in page.headers["content-security-policy"]


def test_an_author_cannot_read_another_authors_logs(league):
    code_a, _ = add_author(league, "alice")
    code_b, _ = add_author(league, "bob")
    store = ServerStore(ServerPaths(league).server_file)
    try:
        archive = league.parent / "x.archive"
        archive.write_bytes(b"x")
        upload = store.add_upload("alice", "alice_bot", str(league.parent / "none"), archive)
        store.set_upload(upload.id, "refused", reason="its check failed", build_log="SECRET BUILD OUTPUT")
    finally:
        store.close()
    with serve(league) as client:
        sign_up(client, code_b)
        assert "SECRET BUILD OUTPUT" not in client.get("/bots/alice_bot").text
        assert "SECRET BUILD OUTPUT" not in client.get("/api/bots/alice_bot").text
    with serve(league) as client:
        sign_up(client, code_a)
        assert "SECRET BUILD OUTPUT" in client.get("/bots/alice_bot").text
        assert "SECRET BUILD OUTPUT" in client.get("/api/bots/alice_bot").text


def test_signing_in_is_rate_limited_and_says_when_to_try_again(league):
    code, _ = add_author(league, "alice")
    with serve(league) as client:
        sign_up(client, code)
        client.cookies.clear()
        statuses = []
        for _ in range(7):
            page = client.get("/signin")
            answer = client.post("/signin", data={"csrf": csrf_of(page.text), "name": "alice", "password": "wrong one!!"})
            statuses.append(answer.status_code)
        assert statuses[0] == 401 and statuses[-1] == 429, statuses
        assert "wait" in answer.text


def test_the_stderr_of_another_authors_bot_is_taken_out_of_a_replay():
    """A replay's fault keeps its stderr tail for the bot's author and the organiser only."""
    from types import SimpleNamespace

    from arena.server.views import game_data

    data = {"bots": [{"seat": 0, "name": "alice_bot"}, {"seat": 1, "name": "bob_bot"}],
            "faults": [{"seat": 0, "kind": "crash", "stderr": "alice's secret debug"},
                       {"seat": 1, "kind": "timeout", "stderr": "<script>bob</script>"}]}
    replay = SimpleNamespace(data=lambda tournament: json_copy(data))
    results = SimpleNamespace(replay=lambda number: replay, config=SimpleNamespace(name="class"))
    as_bob = game_data(results, "1", {"bob_bot"})
    assert as_bob["faults"][0]["stderr"] is None and as_bob["faults"][0]["stderr_hidden"]
    assert as_bob["faults"][1]["stderr"] == "<script>bob</script>"  # his own, as text in the page
    as_stranger = game_data(results, "1", set())
    assert all(fault["stderr"] is None for fault in as_stranger["faults"])
    assert game_data(results, "1", None)["faults"][0]["stderr"] == "alice's secret debug"  # the organiser


def json_copy(value):
    import json

    return json.loads(json.dumps(value))
