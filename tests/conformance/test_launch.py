"""The checker's bot process on the supervisor's runtime, with real subprocesses: environment, echo, stop."""

from __future__ import annotations

import asyncio
import sys

import pytest

from conformance.launch import BotProcess, launch_hint
from supervisor import LocalRuntime, ProcessSpec, StartError


class RecordingRuntime(LocalRuntime):
    """Local processes, remembering their specs: the runtime is the checker's to be given (a container one later)."""

    def __init__(self):
        self.specs: list[ProcessSpec] = []

    def start(self, spec: ProcessSpec):
        self.specs.append(spec)
        return super().start(spec)


def test_the_bot_runs_on_the_given_runtime_with_the_environment_and_echoes_its_output(tmp_path):
    code = ("import os, sys, time\n"
            "print('referee at', os.environ['PEPPER_REFEREE'], 'unbuffered', os.environ['PYTHONUNBUFFERED'])\n"
            "print('on stderr', file=sys.stderr)\n"
            "time.sleep(60)")
    runtime, seen = RecordingRuntime(), []

    async def run() -> BotProcess:
        bot = BotProcess([sys.executable, "-c", code], tmp_path / "bot.log", echo=seen.append, runtime=runtime)
        await bot.start({"PEPPER_REFEREE": "127.0.0.1:9"})
        for _ in range(500):
            if len(seen) == 2:
                break
            await asyncio.sleep(0.02)
        assert not bot.exited()
        assert await bot.terminate(10)
        bot.drain()
        await bot.stop()
        return bot

    bot = asyncio.run(run())
    assert [s.argv for s in runtime.specs] == [(sys.executable, "-c", code)]
    assert seen == ["referee at 127.0.0.1:9 unbuffered 1", "on stderr"]
    assert bot.tail() == seen                                   # the log has every line too
    assert bot.exit_code == -15 and bot.crash_reason() == "crash: the bot killed by signal 15"


def test_stop_kills_a_bot_that_ignores_sigterm(tmp_path):
    code = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('up', flush=True); time.sleep(60)"

    async def run() -> BotProcess:
        bot = BotProcess([sys.executable, "-c", code], tmp_path / "bot.log")
        await bot.start({})
        for _ in range(500):
            if bot.tail() == ["up"]:
                break
            await asyncio.sleep(0.02)
        assert not await bot.terminate(0.3)
        await bot.stop()
        return bot

    bot = asyncio.run(run())
    assert bot.exited() and bot.exit_code == -9


@pytest.mark.parametrize("command,hint", [
    (["/no/such/bot-binary"], ""),
    (["no-such-bot-binary"], " (is no-such-bot-binary installed and on PATH?)"),
    (["python9.9", "bot.py"], f" (use {{python}}, the checker's own interpreter {sys.executable}, or .venv/bin/python)"),
])
def test_a_bot_that_cannot_start_raises_start_error_with_the_os_error_for_the_hint(tmp_path, command, hint):
    bot = BotProcess(command, tmp_path / "bot.log")
    with pytest.raises(StartError) as e:
        asyncio.run(bot.start({}))
    assert isinstance(e.value.error, FileNotFoundError) and "No such file or directory" in e.value.reason
    assert launch_hint(command, e.value.error) == hint
    assert not bot.exited()


def test_a_python_file_given_as_the_command_gets_the_interpreter_hint(tmp_path):
    script = tmp_path / "mybot.py"
    script.write_text("print('hi')\n")
    with pytest.raises(StartError) as e:
        asyncio.run(BotProcess([str(script)], tmp_path / "bot.log").start({}))
    assert isinstance(e.value.error, PermissionError)
    assert launch_hint([str(script)], e.value.error) == f" (run a Python file with an interpreter: pepper bot check -- {{python}} {script})"
