"""Fixtures of the web tests: a results database made by a real small tournament, `pepper web` serving it,
and Debian's Chromium driven by Playwright (never a browser Playwright downloads: `.ci/run` installs
/usr/bin/chromium). Without Chromium the browser tests skip on a developer's machine and fail under CI=true."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import needs
import pytest
from web_harness import CHROMIUM, Server, copy_db, match, tournament


@pytest.fixture(scope="session")
def arena_db(tmp_path_factory) -> Path:
    return tournament(tmp_path_factory.mktemp("web-arena"))


@pytest.fixture(scope="session")
def server(arena_db) -> Iterator[Server]:
    s = Server(arena_db)
    yield s
    s.stop()


@pytest.fixture(scope="session")
def match_db(arena_db, tmp_path_factory) -> tuple[Path, str]:
    """The tournament's database with a `pepper arena match heuristic random` added (run 2), and what it printed."""
    db = copy_db(arena_db, tmp_path_factory.mktemp("web-match"))
    return db, match(db.parent)


@pytest.fixture(scope="session")
def match_server(match_db) -> Iterator[Server]:
    s = Server(match_db[0])
    yield s
    s.stop()


# Per module, not per session: Playwright's sync API keeps an event loop running in the worker's thread while it is
# open, and a later test on the same xdist worker that calls asyncio.run (tests/arena's) would fail on it.
@pytest.fixture(scope="module")
def browser():
    needs.require("chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium"))
        yield b
        b.close()


def _page(browser, width: int, height: int):
    ctx = browser.new_context(viewport={"width": width, "height": height})
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    yield pg
    ctx.close()
    assert not errors, errors


@pytest.fixture
def page(browser, request):
    """A fresh page that fails the test on any script error; 1280x900, or the viewport a test is parametrized
    with as ``viewport`` (the phone's: 390x844)."""
    yield from _page(browser, *getattr(request, "param", (1280, 900)))


@pytest.fixture
def phone(browser):
    """A fresh page on a phone's screen (390 x 844 CSS pixels) that fails the test on any script error."""
    yield from _page(browser, 390, 844)
