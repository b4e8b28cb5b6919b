"""The report: one PASS/FAIL/SKIP line per check, the summary, and the ``--report`` JSON."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .model import Check, Status
from .verify import Tally

SHOWN_FALLBACKS = 5   # different fallback details printed under a failed run (the JSON report has all the referee kept)


def _clip(line: str, n: int = 300) -> str:
    return line if len(line) <= n else line[:n - 3] + "..."


def check_lines(c: Check, verbose: bool) -> list[str]:
    """``PASS  name  reason``; a failed check also says what it checks; ``verbose`` adds its notes."""
    out = [f"{c.status.value.upper():4}  {c.name:<40} {c.reason}"]
    if c.status == Status.FAIL and c.what:
        out.append(f"      {'':<40} (checks: {c.what})")
    if verbose:
        out += [f"      {'':<40} - {n}" for n in c.notes]
    return out


@dataclass
class Summary:
    """Everything the end of a run reports."""

    command: list[str]
    done: list[Check]
    tally: Tally
    seconds: float
    bot_log: Path
    tail: list[str]                  # the end of the bot's output
    warnings: list[str]              # problems of the checker's own referee or house bot

    @property
    def failed(self) -> list[Check]:
        return [c for c in self.done if c.status == Status.FAIL]

    def lines(self) -> list[str]:
        t = self.tally
        skipped = [c for c in self.done if c.status == Status.SKIP]
        failed = self.failed
        out = [""]
        if t.coverage:
            cov = ", ".join(f"{k} {v}" for k, v in sorted(t.coverage.items()))
            out.append(f"the bot answered {t.decisions} decisions (by kind, fallbacks included: {cov})")
        if self.warnings:
            out.append("warning: the checker's referee reported problems: " + "; ".join(self.warnings))
        out.append(f"{len(self.done)} checks: {len(self.done) - len(failed) - len(skipped)} passed, {len(failed)} failed"
                   + (f", {len(skipped)} skipped" if skipped else "") + f" in {self.seconds:.1f} s")
        if failed:
            out.append(f"the bot's output: {self.bot_log}")
            if t.fallback_details:
                first: dict[str, str] = {}
                for where, what in t.fallback_details:
                    first.setdefault(what, where)
                out.append(f"its fallbacks, as the referee counted them ({t.fallbacks} in all):")
                out += [f"  - {_clip(what)} (first: {where})" for what, where in list(first.items())[:SHOWN_FALLBACKS]]
                out.append("the end of its output:")
            out += [f"  | {line}" for line in self.tail]
        return out

    def to_dict(self) -> dict:
        return {
            "command": self.command, "passed": not self.failed, "seconds": round(self.seconds, 2),
            "bot_log": str(self.bot_log), "decisions": self.tally.decisions, "coverage": dict(self.tally.coverage),
            "fallbacks": self.tally.fallbacks,
            "fallback_details": [f"{where}: {what}" for where, what in self.tally.fallback_details],
            "checks": [{"name": c.name, "status": c.status.value, "reason": c.reason, "what": c.what, "notes": c.notes,
                        "games": [p.spec.game_id for p in c.played], "seconds": round(c.seconds, 2)} for c in self.done],
        }

    def write(self, path: str) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2))
