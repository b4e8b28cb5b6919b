"""Fixtures for the SDK tests (the harness itself is in sdk_harness.py)."""

from __future__ import annotations

import pytest
from sdk_harness import Procs, Referee


@pytest.fixture
def procs(tmp_path):
    ps = Procs(tmp_path)
    yield ps
    ps.close()


@pytest.fixture
def referee_factory(tmp_path):
    refs: list[Referee] = []

    def make(bots: dict[str, str], port: int = 0, *args: str) -> Referee:
        r = Referee(tmp_path, bots, port, *args)
        refs.append(r)
        return r

    yield make
    for r in refs:
        r.close()
