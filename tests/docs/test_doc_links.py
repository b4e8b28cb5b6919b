"""Every doc the repository cites exists: the markdown paths under `docs/` named in code, tests, Makefile, README, docs and web templates,
and the relative links between the docs (with their `#anchor`, when they give one, against the target's headings).

A results table under `docs/results/` is written by `make bench` (each `bench/BENCH.py` writes its own), so a citation of it
is valid when that benchmark exists, before the first `make bench` of a fresh clone.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CITED = re.compile(r"(?<![\w/.-])docs/[\w/.-]*?\.md\b")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+?)\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.M)
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
TEXT_SUFFIXES = {".py", ".pyx", ".pxd", ".md", ".toml", ".cfg", ".txt", ".html", ".js", ".css", ".yaml", ".yml", ".sh",
                 ".go", ".cpp", ".h", ".proto", ".json", ""}


def tracked_files() -> list[Path]:
    """The repository's text files: git's tracked ones plus the untracked ones it does not ignore."""
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    files = [ROOT / p for p in out.splitlines()]
    return [f for f in files if f.is_file() and (f.suffix in TEXT_SUFFIXES or f.name == "Makefile")]


def doc_exists(rel: str, root: Path = ROOT) -> bool:
    """A cited path under docs/ names a file, or a results table that `make bench` writes."""
    if (root / rel).is_file():
        return True
    m = re.fullmatch(r"docs/results/([\w-]+)\.md", rel)
    return bool(m) and (root / "bench" / f"{m[1]}.py").is_file()


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped (but - and _), spaces to hyphens."""
    text = re.sub(r"[`*]|\[([^\]]*)\]\([^)]*\)", lambda m: m[1] or "", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(doc: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for h in HEADING.findall(FENCE.sub("", doc.read_text())):
        s = slug(h)
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else f"{s}-{n}")
    return out


def broken_citations(files: list[Path], root: Path = ROOT) -> list[str]:
    out = []
    for f in files:
        try:
            text = f.read_text()
        except UnicodeDecodeError:
            continue
        for m in CITED.finditer(text):
            if not doc_exists(m[0], root):
                line = text.count("\n", 0, m.start()) + 1
                out.append(f"{f.relative_to(root)}:{line}: {m[0]} does not exist")
    return out


def broken_links(docs: list[Path], root: Path = ROOT) -> list[str]:
    """Relative links from each markdown doc to another file, and to a heading of it when an anchor is given."""
    out = []
    for doc in docs:
        text = FENCE.sub(lambda m: "\n" * m[0].count("\n"), doc.read_text())
        for m in LINK.finditer(text):
            target = m[1]
            if re.match(r"[a-z]+:", target) or target.startswith("/"):
                continue
            path, _, anchor = target.partition("#")
            dest = (doc.parent / path).resolve() if path else doc
            where = f"{doc.relative_to(root)}:{text.count(chr(10), 0, m.start()) + 1}: {target}"
            rel = dest.relative_to(root).as_posix() if dest.is_relative_to(root) else str(dest)
            if not dest.exists() and not doc_exists(rel, root):
                out.append(f"{where}: {rel} does not exist")
            elif anchor and dest.suffix == ".md" and dest.exists() and anchor not in anchors(dest):
                out.append(f"{where}: {rel} has no heading #{anchor}")
    return out


def markdown_docs() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def test_every_cited_doc_path_exists():
    assert broken_citations(tracked_files()) == []


def test_every_link_between_the_docs_resolves():
    assert broken_links(markdown_docs()) == []


def test_the_checks_catch_a_missing_doc_and_anchor(tmp_path):
    (tmp_path / "a.md").write_text("## Two words\n[ok](#two-words) [bad](#none) [gone](gone.md)\n"
                                   "```\n[in a fence](skipped.md)\n```\n")
    bad = tmp_path / "bad.py"
    bad.write_text("see " + "docs/" + "no-such-page.md and " + "docs/" + "results/no-such-bench.md\n")
    links = broken_links([tmp_path / "a.md"], tmp_path)
    cited = broken_citations([bad], tmp_path)
    assert [entry.split(": ", 1)[1] for entry in links] == ["#none: a.md has no heading #none", "gone.md: gone.md does not exist"]
    assert len(cited) == 2 and "no-such-page.md" in cited[0] and "no-such-bench.md" in cited[1]
    results = "docs/" + "results/"
    assert doc_exists(results + "engine.md") and not doc_exists(results + "no-such-bench.md")
    assert slug("`iowa` — Iowa Pepper (the default)") == "iowa--iowa-pepper-the-default"
    assert slug("5. Secrets: the control token") == "5-secrets-the-control-token"
