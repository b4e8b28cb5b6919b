"""Every suite: at the start, which suites this machine will skip and why (tests/needs.py); at the end, how many
tests were skipped for each reason. A skip is never counted as a pass."""

from __future__ import annotations

from collections import Counter

import needs


def pytest_sessionstart(session) -> None:
    """Printed whatever the verbosity (`make test` runs pytest -q, which shows no report header)."""
    config = session.config
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None or getattr(config, "workerinput", None) is not None:   # an xdist worker: the controller says it
        return
    for line in _needs_lines():
        reporter.write_line(line)


def _needs_lines() -> list[str]:
    absent = [(need, why) for key, need in needs.NEEDS.items() if (why := needs.missing(key)) is not None]
    if not absent:
        return ["needs: everything is here (" + ", ".join(n.name for n in needs.NEEDS.values()) + ")"]
    verdict = "fail (CI=true)" if needs.in_ci() else "be skipped"
    return [f"needs: these tests will {verdict} on this machine:"] + [
        f"  {need.suites}: no {need.name.removeprefix('a ').removeprefix('the ')}: {why}" for need, why in absent]


def _reason(report) -> str:
    longrepr = report.longrepr
    text = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return text.removeprefix("Skipped: ")


def pytest_terminal_summary(terminalreporter) -> None:
    skipped = terminalreporter.stats.get("skipped", [])
    if not skipped:
        return
    by_reason = Counter(_reason(r) for r in skipped)
    terminalreporter.write_sep("=", f"{len(skipped)} skipped, by reason (not passed: they did not run)")
    for reason, n in by_reason.most_common():
        terminalreporter.write_line(f"{n:5d}  {reason}")
