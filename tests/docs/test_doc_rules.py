"""The docs are manuals: short enough to read, and free of the project's bookkeeping.

Every markdown file under docs/ and README.md is at most 500 lines, and none cites an issue, item, session or
work-log number, a branch, a merge or a commit as the place a thing came from: a reader cannot look those up.
The generated results tables (docs/results/, written by `make bench`) are held to the length and to the numbers,
not to the dates and commits a benchmark may stamp on its own table.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MAX_LINES = 500

# What a work log says and a manual does not; each pattern is named for the failure message.
BOOKKEEPING = {
    "an issue, item, session or work-log number": re.compile(
        r"\b(?:issues?|items?|sessions?|stops?|work[- ]?logs?|tickets?|PRs?|pull requests?)\s?#?\d+\b", re.I),
    "a numbered pass or round of work": re.compile(r"\b(?:first|second|third|\d+(?:st|nd|rd|th)) pass\b|\bround \d+\b", re.I),
    "a branch": re.compile(r"\b(?:this|that|the|a|on|from|of)\s+branch(?:es)?\b|\bbranch(?:es)?\s+`?[\w./-]*[\d/-][\w./-]*`?"
                           r"|\bon `[a-z]+\d+[\w.-]*`", re.I),
    "a merge": re.compile(r"^\s*Merge\b|\bmerged\b|\bafter\s+\w+\s+(?:passes\s+)?merged\b", re.I | re.M),
    "main's build or code as a baseline": re.compile(r"\bmain(?:'s)? (?:at|build|code|tree|worktree)\b|\bmain at [0-9a-f]{7}"),
}
DATED = {
    "a dated measurement": re.compile(r"\b20\d\d-\d\d-\d\d\b"),
    "a commit id": re.compile(r"\b(?:commit|at|on|of|with|against)\s+`?[0-9a-f]{7,40}`?(?![\w.])"),
}


def user_docs() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def generated(doc: Path) -> bool:
    return (ROOT / "docs" / "results") in doc.parents


def findings(text: str, rules: dict[str, re.Pattern[str]]) -> list[str]:
    out = []
    for what, pattern in rules.items():
        for m in pattern.finditer(text):
            out.append(f"line {text.count(chr(10), 0, m.start()) + 1}: {m[0]!r} ({what})")
    return out


def test_no_doc_is_over_500_lines():
    long = {str(d.relative_to(ROOT)): n for d in user_docs() if (n := len(d.read_text().splitlines())) > MAX_LINES}
    assert long == {}, f"split these by what a reader comes for (docs/README.md): {long}"


def test_no_doc_cites_bookkeeping():
    found = {}
    for doc in user_docs():
        rules = BOOKKEEPING if generated(doc) else BOOKKEEPING | DATED
        if hits := findings(doc.read_text(), rules):
            found[str(doc.relative_to(ROOT))] = hits
    assert found == {}, f"write what the thing is instead: {found}"


@pytest.mark.parametrize("text", [
    "the target (issue 17: at most 30 KB)", "issue 13, item 5", "Where item 5 stands", "at session 8's end",
    "work-log 3", "Stop #4 said", "branch `s7-engine`", "measured on this branch", "each a commit on `s7-engine2`",
    "Merge branch 'docs'", "Second pass (the contract shared)", "Session 8, round 2: trimmed", "main's build",
    "on 2026-11-25", "interleaved with 0931881's", "after both passes merged",
])
def test_bookkeeping_is_flagged(text):
    assert findings(text, BOOKKEEPING | DATED), text


@pytest.mark.parametrize("text", [
    "protocol 1.6", "since 1.3", "`bid 3`, `pass`", "a round of 32 games at a time", "rounds of 8 games",
    "the first 64 planned games", "seat 0 and seat 2", "`--deal-cap 4`", "a deal's story", "main(MyBot())",
    "stops the run with exit status 2", "an item of a Batch", "[security.md](security.md#5-secrets-the-control-token)",
    "merges the results", "on `--listen`", "bind on `127.0.0.1:0`", "one pass over the log", "`git clone` the repository", "the dealer's branch of the tree",
    "ls -l sha256:0123abcd", "a Go module on GitHub",
])
def test_plain_text_is_not_flagged(text):
    assert findings(text, BOOKKEEPING | DATED) == [], text


#: What code, tests and configuration may not cite either: the numbers of the project's bookkeeping.
CODE_SUFFIXES = {".py", ".pxd", ".js", ".html", ".css", ".go", ".cc", ".h", ".proto", ".toml", ".yaml", ".yml", ".sh",
                 ".cfg", ".txt", ""}


def code_files() -> list[Path]:
    import subprocess

    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    return [ROOT / f for f in listed if Path(f).suffix in CODE_SUFFIXES and not f.startswith("docs/")
            and f != "tests/docs/test_doc_rules.py" and (ROOT / f).is_file()]


def test_no_code_or_test_cites_an_issue_item_or_session_number():
    """Code, tests and configuration say what a thing is, never which issue, item or work session it came from."""
    rule = {"an issue, item, session or work-log number": BOOKKEEPING["an issue, item, session or work-log number"]}
    found = {}
    for f in code_files():
        try:
            text = f.read_text()
        except UnicodeDecodeError:
            continue
        if hits := findings(text, rule):
            found[str(f.relative_to(ROOT))] = hits
    assert code_files() and found == {}, f"write what the thing is instead: {found}"
