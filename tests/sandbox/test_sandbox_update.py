"""`pepper bot update NAME --image IMAGE | --dockerfile PATH`: another image id is a new version, the same one is
"unchanged"; a bot in an image keeps its image through other updates. The `pepper` CLI, a real Docker Engine
(the images `make images` builds), a real SQLite file."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.store import Store
from pepper_cli.app import app

HERE = Path(__file__).resolve().parent
pytestmark = [pytest.mark.usefixtures("images"), pytest.mark.xdist_group("sandbox")]


def pepper(*args: str, db: Path) -> str:
    """What `pepper ... --db DB` said, on one line, prefixed by its exit code and a colon (in this process: a dozen commands,
    and a second saved on each; test_sandbox_register.py runs the command itself)."""
    out = CliRunner().invoke(app, [*args, "--db", str(db)], env={"COLUMNS": "200"})
    return f"{out.exit_code}: " + " ".join(out.output.split())


def build(db: Path, name: str):
    st = Store(str(db))
    try:
        return st.bot(name).build
    finally:
        st.close()


def test_bot_update_with_an_image_versions_the_bot_by_the_images_id(tmp_path, docker_client, bot_dockerfile):
    ctx = bot_dockerfile("upd")
    db = tmp_path / "arena.db"
    said = pepper("bot", "register", "upd", "--dockerfile", str(ctx), db=db)   # (the first command may add a note)
    assert said.startswith("0:") and "registered upd (version 1" in said, said
    first = docker_client.images.get("pepper-bot-upd:latest").id

    # The same image, rebuilt or by name: unchanged.
    said = pepper("bot", "update", "upd", "--dockerfile", str(ctx), db=db)
    assert said == f"0: upd: unchanged, still version 1, image {first[:19]}", said
    assert pepper("bot", "update", "upd", "--image", first, db=db).startswith("0: upd: unchanged, still version 1")

    # Another image: a new version, its id recorded as the image and the digest, the command the image's own.
    (ctx / "bot.py").write_text((ctx / "bot.py").read_text() + "\n# changed\n")
    said = pepper("bot", "update", "upd", "--dockerfile", str(ctx / "Dockerfile"), db=db)
    second = docker_client.images.get("pepper-bot-upd:latest").id
    assert second != first and said.startswith(f"0: upd: new version 2, image {second[:19]}"), said
    b = build(db, "upd")
    assert (b.image, b.digest, b.command, b.cwd, b.files) == (second, second, "python3 bot.py", None, ())

    # Back to the first image by id, with a command of its own; then an update of another setting keeps the image.
    said = pepper("bot", "update", "upd", "--image", first, "--command", "python3 /app/bot.py", db=db)
    assert said.startswith("0: upd: new version 3"), said
    assert pepper("bot", "update", "upd", "--deadline-ms", "500", db=db).startswith("0: upd: new version 4")
    b = build(db, "upd")
    assert (b.image, b.digest, b.command, b.cwd, b.deadline_ms) == (first, first, "python3 /app/bot.py", None, 500)

    # A command bot moves into an image; bad combinations say what to do.
    plain = tmp_path / "plain"
    plain.mkdir()
    shutil.copy(HERE / "hostile_bot.py", plain / "bot.py")
    assert pepper("bot", "register", "plain", "--command", "{python} bot.py", "--cwd", str(plain), db=db).startswith("0:")
    assert pepper("bot", "update", "plain", "--image", "pepper-bot-upd:latest", db=db).startswith(
        f"0: plain: new version 2, image {second[:19]}")
    assert (build(db, "plain").command, build(db, "plain").cwd) == ("python3 bot.py", None)
    assert "--cwd and --files do not apply" in pepper("bot", "update", "plain", "--files", "bot.py", db=db)
    assert "give one of --image IMAGE or --dockerfile PATH" in pepper("bot", "update", "upd", "--image", first,
                                                                      "--dockerfile", str(ctx), db=db)
    assert "no such image in the local Docker Engine" in pepper("bot", "update", "upd", "--image", "pepper-no-such:1", db=db)
    assert pepper("bot", "register", "far", "--remote", db=db).startswith("0:")
    assert "is a remote bot" in pepper("bot", "update", "far", "--image", first, db=db)
    assert build(db, "upd").image == first   # nothing changed by the refused updates
