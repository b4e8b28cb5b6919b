"""`pepper web` against what a stranger's browser or script may send: the API docs page works with no internet
(nothing from a CDN: every request the browser makes goes to the server itself), ids too large for the database
are answered 422 and never 500, and a request addressed to another host name is refused (DNS rebinding)."""

from __future__ import annotations

import http.client
import json

import pytest
from web_harness import Server

pytestmark = pytest.mark.xdist_group("web")
HUGE = "99999999999999999999"   # 20 digits: more than a SQLite integer holds


def get(server: Server, path: str, host: str | None = None) -> tuple[int, str]:
    c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        c.request("GET", path, headers={"Host": host} if host else {})
        r = c.getresponse()
        return r.status, r.read().decode(errors="replace")
    finally:
        c.close()


def test_the_api_docs_page_renders_from_the_servers_own_files(server, page):
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    page.goto(server.url + "/api/docs")
    page.locator(".swagger-ui .opblock").first.wait_for(timeout=15_000)
    assert page.locator(".swagger-ui .opblock").count() >= 8      # every API route, rendered by Swagger UI
    assert asked and all(u.startswith(server.url + "/") for u in asked), [u for u in asked if server.url not in u]
    page.goto(server.url + "/")
    assert page.locator("nav a", has_text="API").get_attribute("href") == "/api/docs"


@pytest.mark.parametrize("path", [f"/api/games/{HUGE}", f"/api/games/{HUGE}/replay", f"/games/{HUGE}",
                                  f"/api/games?before={HUGE}", f"/api/games?run={HUGE}", f"/api/games?version={HUGE}",
                                  f"/api/games/1/replay?seat={HUGE}", f"/api/history?pool=p&bot=b&version={HUGE}",
                                  f"/charts/history.svg?pool=p&bot=b&version={HUGE}"])
def test_an_id_too_large_for_the_database_is_a_clear_422(server, path):
    status, body = get(server, path)
    assert status == 422, (status, body[:300])
    assert "less than or equal to 9223372036854775807" in json.loads(body)["detail"][0]["msg"], body


def test_a_request_for_another_host_name_is_refused(server):
    assert get(server, "/api/pools", host=f"evil.example:{server.port}")[0] == 400
    assert get(server, "/api/pools", host="evil.example")[0] == 400
    for host in (f"127.0.0.1:{server.port}", f"localhost:{server.port}"):
        assert get(server, "/api/pools", host=host)[0] == 200, host


def test_allowed_host_names_another_name_the_pages_answer_to(arena_db):
    server = Server(arena_db, "--allowed-host", "arena.lan")
    try:
        assert get(server, "/api/pools", host=f"arena.lan:{server.port}")[0] == 200
        assert get(server, "/api/pools", host="other.lan")[0] == 400
    finally:
        server.stop()
