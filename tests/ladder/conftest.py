"""The ladder's tests: a page of Debian's Chromium (Playwright, as tests/web) for the pages' tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import needs
import pytest


@pytest.fixture
def page():
    needs.require("chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=needs.CHROMIUM if Path(needs.CHROMIUM).exists() else shutil.which("chromium"))
        ctx = b.new_context(viewport={"width": 1280, "height": 900})
        pg = ctx.new_page()
        errors: list[str] = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        urls: list[str] = []
        pg.on("request", lambda r: urls.append(r.url))
        pg.urls = urls
        yield pg
        b.close()
        assert not errors, errors
