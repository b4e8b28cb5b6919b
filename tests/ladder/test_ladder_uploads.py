"""Uploaded bots: the archive refused when it would reach outside its folder (no Docker needed), and on a real
ladder service with a real Docker Engine, a folder uploaded with `pepper ladder enter --upload`, checked by the
conformance checker in the sandbox, entered, run in its container and playing a remote bot; a failing upload
reported and not entered; new versions, one of them built from its Dockerfile; a bot's log for its author alone;
the upload form in Chromium."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest
from ladder_harness import Ladder, http, pepper, wait_for

from ladder import uploads
from ladder.uploads import BadUpload, pack, read_manifest, unpack

HOSTILE = Path(__file__).resolve().parents[1] / "sandbox" / "hostile_bot.py"   # with no $PEPPER_HOSTILE: a random bot


def _tar(members: list[tuple[tarfile.TarInfo, bytes]]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for info, data in members:
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if info.isfile() else None)
    return buf.getvalue()


def _file(name: str) -> tarfile.TarInfo:
    return tarfile.TarInfo(name)


def test_a_folder_packs_and_unpacks_to_the_same_files_without_its_caches(tmp_path):
    src = tmp_path / "bot"
    (src / "lib" / "__pycache__").mkdir(parents=True)
    (src / "pepper-bot.toml").write_text('command = "{python} bot.py"\nprocesses = 2\n')
    (src / "bot.py").write_text("print('hi')\n")
    (src / "lib" / "util.py").write_text("X = 1\n")
    (src / "lib" / "__pycache__" / "util.cpython-311.pyc").write_bytes(b"\0")
    unpack(pack(src), tmp_path / "out")
    got = sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert got == ["bot.py", "lib/util.py", "pepper-bot.toml"]
    assert read_manifest(tmp_path / "out") == uploads.Manifest("{python} bot.py", 2)


@pytest.mark.parametrize("name", ["../escape.py", "/etc/evil", "a/../../escape.py", "C:/evil.py", "a\\..\\evil.py"])
def test_an_archive_member_outside_the_folder_is_refused_and_nothing_is_left(tmp_path, name):
    with pytest.raises(BadUpload, match="outside the bot's folder"):
        unpack(_tar([(_file(name), b"x")]), tmp_path / "out")
    assert not (tmp_path / "out").exists() and not (tmp_path / "escape.py").exists()


def test_links_devices_and_too_much_are_refused(tmp_path, monkeypatch):
    link = _file("link")
    link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
    with pytest.raises(BadUpload, match="a link or a device"):
        unpack(_tar([(link, b"")]), tmp_path / "a")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        info = zipfile.ZipInfo("link")
        info.external_attr = 0o120777 << 16
        z.writestr(info, "/etc/passwd")
    with pytest.raises(BadUpload, match="is a link"):
        unpack(buf.getvalue(), tmp_path / "b")
    monkeypatch.setattr(uploads, "MAX_FILES", 3)
    with pytest.raises(BadUpload, match="more than 3 files"):
        unpack(_tar([(_file(f"f{i}"), b"x") for i in range(4)]), tmp_path / "c")
    monkeypatch.setattr(uploads, "MAX_UNPACKED_BYTES", 1000)
    with pytest.raises(BadUpload, match="unpacks to more than"):
        unpack(_tar([(_file("big"), b"0" * 1001)]), tmp_path / "d")
    with pytest.raises(BadUpload, match="neither a gzipped tar"):
        unpack(b"plain text", tmp_path / "e")
    assert not any((tmp_path / x).exists() for x in "abcde")


def test_a_manifest_says_what_is_wrong_with_it(tmp_path):
    def manifest(text: str | None, dockerfile: bool = False) -> uploads.Manifest:
        d = tmp_path / str(len(list(tmp_path.iterdir())))
        d.mkdir()
        if text is not None:
            (d / "pepper-bot.toml").write_text(text)
        if dockerfile:
            (d / "Dockerfile").write_text("FROM pepper-python\n")
        return read_manifest(d)

    with pytest.raises(BadUpload, match="neither a Dockerfile nor a pepper-bot.toml"):
        manifest(None)
    with pytest.raises(BadUpload, match="unknown key"):
        manifest('command = "x"\nimage = "y"\n')
    with pytest.raises(BadUpload, match="processes = 9"):
        manifest('command = "x"\nprocesses = 9\n')
    with pytest.raises(BadUpload, match="in one place"):
        manifest('command = "x"\n', dockerfile=True)
    assert manifest(None, dockerfile=True) == uploads.Manifest(None, 1, dockerfile=True)


# -- a real ladder, a real sandbox ------------------------------------------------------------------------------------
@pytest.fixture
def ladder(tmp_path, images):
    lad = Ladder(tmp_path, uploads=True)
    yield lad
    lad.close()


def _bot_folder(tmp_path: Path, name: str, command: str = "{python} bot.py") -> Path:
    folder = tmp_path / name
    folder.mkdir()
    shutil.copy(HOSTILE, folder / "bot.py")
    (folder / "pepper-bot.toml").write_text(f"command = {json.dumps(command)}\n")   # a TOML basic string
    return folder


def _enter_upload(ladder: Ladder, key: str, name: str, folder: Path) -> subprocess.CompletedProcess:
    return pepper("ladder", "enter", "--server", ladder.web, name, "--upload", str(folder), check=False,
                  env={"PEPPER_LADDER_KEY": key})


@pytest.mark.xdist_group("sandbox")   # one Docker-heavy test at a time (tests/sandbox)
def test_an_uploaded_bot_is_checked_in_the_sandbox_entered_and_plays_a_remote_bot(ladder, tmp_path, docker_client):
    ladder.serve()
    alice, bob = ladder.invite("alice"), ladder.invite("bob")
    entered = _enter_upload(ladder, alice, "abot", _bot_folder(tmp_path, "abot"))
    assert entered.returncode == 0, entered.stderr
    lines = entered.stdout.strip().splitlines()
    assert lines[-1] == "bot abot entered: version 1"
    assert any("checks:" in line and "0 failed" in line for line in lines), entered.stdout
    assert "checking: running the conformance checker in the sandbox" in entered.stderr
    ladder.run_bot("bbot", ladder.enter(bob, "bbot"), "random")
    wait_for("5 games of the uploaded bot", lambda: ladder.db(
        "SELECT COUNT(*) FROM game_seats WHERE bot = 'abot' AND version = 1")[0][0] >= 5, timeout=90)
    # It runs in its container (as the sandbox's user, on its own socket), not on this machine.
    boxes = docker_client.containers.list(filters={"label": "pepper.bot=abot"})
    assert boxes and all(c.attrs["Config"]["User"] == "65534:65534" for c in boxes)
    # Its log is its author's: alice reads it, bob is refused, and nobody reads it without a key.
    status, log = http("GET", f"{ladder.web}/api/ladder/me/bots/abot/log", alice)
    assert status == 200 and isinstance(log, str)
    assert http("GET", f"{ladder.web}/api/ladder/me/bots/abot/log", bob)[0] == 403
    assert http("GET", f"{ladder.web}/api/ladder/me/bots/abot/log")[0] == 401
    # Nor may bob upload over alice's bot, or read her upload's report.
    assert _enter_upload(ladder, bob, "abot", _bot_folder(tmp_path, "bob-abot")).returncode == 1
    mine = http("GET", f"{ladder.web}/api/ladder/me", alice)[1]
    assert [u["status"] for u in mine["uploads"]] == ["entered"] and "0 failed" in mine["uploads"][0]["report"]
    assert http("GET", f"{ladder.web}/api/ladder/uploads/{mine['uploads'][0]['upload']}", bob)[0] == 404

    # A bot that fails its check is reported and not entered: abot stays at version 1.
    broken = _enter_upload(ladder, alice, "abot", _bot_folder(tmp_path, "broken", "{python} -c 'raise SystemExit(3)'"))
    assert broken.returncode == 1
    assert "FAIL" in broken.stdout and "bot abot was not entered: the conformance checker failed it" in broken.stderr
    assert ladder.db("SELECT MAX(version) FROM bot_versions WHERE bot = 'abot'")[0][0] == 1
    # A changed folder is a new version, which takes over and plays.
    v2 = _bot_folder(tmp_path, "abot2")
    (v2 / "NOTES.txt").write_text("version 2\n")
    assert _enter_upload(ladder, alice, "abot", v2).stdout.strip().splitlines()[-1] == "bot abot entered: version 2"
    wait_for("games of version 2", lambda: ladder.db(
        "SELECT COUNT(*) FROM game_seats WHERE bot = 'abot' AND version = 2")[0][0] >= 3, timeout=90)
    # A folder with a Dockerfile is built by the sandbox's builder (no network), then checked and run as its image.
    v3 = tmp_path / "abot3"
    v3.mkdir()
    shutil.copy(HOSTILE, v3 / "bot.py")
    (v3 / "Dockerfile").write_text('FROM pepper-python:latest\nCOPY bot.py /app/bot.py\nWORKDIR /app\n'
                                   'CMD ["python3", "bot.py"]\n')
    built = _enter_upload(ladder, alice, "abot", v3)
    assert built.stdout.strip().splitlines()[-1] == "bot abot entered: version 3", built.stdout + built.stderr
    assert ladder.db("SELECT image FROM bot_versions WHERE bot = 'abot' AND version = 3")[0][0].startswith("sha256:")
    wait_for("games of version 3", lambda: ladder.db(
        "SELECT COUNT(*) FROM game_seats WHERE bot = 'abot' AND version = 3")[0][0] >= 3, timeout=90)
    assert os.path.isdir(ladder.dir / "uploads")
    assert ladder.stop() == 0
    # The service took its containers with it.
    wait_for("abot's containers gone", lambda: not docker_client.containers.list(
        all=True, filters={"label": "pepper.bot=abot"}), timeout=30)


@pytest.mark.xdist_group("sandbox")
def test_an_author_uploads_a_bot_in_the_browser_and_reads_its_report_and_log(ladder, tmp_path, page):
    ladder.serve()
    alice = ladder.invite("alice")
    page.goto(f"{ladder.web}/ladder/me")
    page.fill("#key", alice)
    page.click("#sign-in button")
    page.wait_for_selector("#signed-in:not([hidden])")
    page.fill("#upload-name", "webup")
    page.set_input_files("#upload-file", files=[{"name": "webup.tar.gz", "mimeType": "application/gzip",
                                                "buffer": pack(_bot_folder(tmp_path, "webup"))}])
    page.click("#upload button")
    # The page follows the upload until it is entered, then lists the bot; its report and its log are a click away.
    page.wait_for_selector("#my-uploads tr[data-status=entered]", timeout=60_000)
    assert len(page.query_selector_all("#my-uploads tbody tr")) == 1   # one click, one upload
    page.click("#my-uploads details summary")
    assert "0 failed" in page.inner_text("#my-uploads details pre")
    page.wait_for_selector("#my-bots tr[data-bot=webup] .show-log")
    page.click("#my-bots tr[data-bot=webup] .show-log")
    page.wait_for_selector("#log:not([hidden])")
    assert page.inner_text("#log-bot") == "webup"
    # A folder that is not a bot's is refused at once, with the reason.
    page.set_input_files("#upload-file", files=[{"name": "x.zip", "mimeType": "application/zip", "buffer": b"not a zip"}])
    page.click("#upload button")
    page.wait_for_selector("#message .error")
    assert "neither a gzipped tar" in page.inner_text("#message")
    assert not [u for u in page.urls if alice in u]
