"""The ladder's pages in Debian's Chromium (Playwright, as tests/web): an author signs in with their key once (kept in
the browser's storage, never in a URL), enters a bot and sees its token, and the public ladder page lists it."""

from __future__ import annotations

import pytest
from ladder_harness import Ladder, http


@pytest.fixture
def ladder(tmp_path):
    lad = Ladder(tmp_path)
    lad.serve()
    yield lad
    lad.close()


def test_an_author_signs_in_once_enters_a_bot_and_sees_it_on_the_ladder(ladder, page):
    alice = ladder.invite("alice")
    ladder.enter(ladder.invite("bob"), "bobs-bot")
    page.goto(f"{ladder.web}/ladder/me")
    page.fill("#key", "not.a-key")
    page.click("#sign-in button")
    page.wait_for_selector("#message .error")
    assert "no valid author key" in page.inner_text("#message")
    page.fill("#key", alice)
    page.click("#sign-in button")
    page.wait_for_selector("#signed-in:not([hidden])")
    assert page.inner_text("#author") == "alice"
    page.fill("#bot-name", "webbot")
    page.click("#enter-remote button")
    page.wait_for_selector("#token:not([hidden])")
    token = page.inner_text("#token-value")
    assert len(token) >= 32 and "webbot version 1" in page.inner_text("#token-bot")
    page.wait_for_selector("#my-bots tr[data-bot=webbot]")
    # The key is asked once: a reload is still signed in, and bob's bot is not alice's to see here.
    page.reload()
    page.wait_for_selector("#my-bots tr[data-bot=webbot]")
    assert "bobs-bot" not in page.inner_text("#my-bots")
    assert page.evaluate("localStorage.getItem('pepper-ladder-key')") == alice
    assert not [u for u in page.urls if alice in u or token in u]
    # Another author's bot name is refused in the form, with the server's reason.
    page.fill("#bot-name", "bobs-bot")
    page.click("#enter-remote button")
    page.wait_for_selector("#message .error")
    assert "belongs to another author" in page.inner_text("#message")
    page.goto(f"{ladder.web}/ladder")
    page.wait_for_selector("#ladder-bots tbody tr")
    rows = page.inner_text("#ladder-bots")
    assert "webbot" in rows and "alice" in rows and "bobs-bot" in rows
    page.click("#ladder-bots a[href='/ladder/authors/bob']")
    page.wait_for_selector("#author-bots tr[data-bot=bobs-bot]")
    assert "webbot" not in page.inner_text("#author-bots")
    page.goto(f"{ladder.web}/ladder/me")
    page.click("#sign-out")
    page.wait_for_selector("#sign-in:not([hidden])")
    assert page.evaluate("localStorage.getItem('pepper-ladder-key')") is None
    assert http("GET", f"{ladder.web}/api/ladder/me", token)[0] == 401   # a bot token is no author key
