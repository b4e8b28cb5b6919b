"""Fixtures for the referee tests (the harness itself is in referee_harness.py)."""

from __future__ import annotations

import pytest
from referee_harness import Server


@pytest.fixture
def server_factory(tmp_path):
    servers: list[Server] = []

    def make(*args, **kw) -> Server:
        s = Server(tmp_path, *args, **kw)
        servers.append(s)
        return s

    yield make
    for s in servers:
        s.close()
