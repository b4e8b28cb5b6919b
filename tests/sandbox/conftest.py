"""Fixtures for the sandbox's tests (with ``docker_client`` and ``images`` of tests/conftest.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest


@pytest.fixture
def bot_dockerfile(tmp_path):
    """Makes ``tmp_path/NAME``: a build context whose Dockerfile puts hostile_bot.py (with no $PEPPER_HOSTILE: a
    random bot) on pepper-python as /app/bot.py, run by its CMD; returns its path."""
    def make(name: str) -> Path:
        ctx = tmp_path / name
        ctx.mkdir()
        shutil.copy(Path(__file__).resolve().parent / "hostile_bot.py", ctx / "bot.py")
        (ctx / "Dockerfile").write_text('FROM pepper-python:latest\nCOPY bot.py /app/bot.py\nWORKDIR /app\n'
                                        'CMD ["python3", "bot.py"]\n')
        return ctx
    return make
