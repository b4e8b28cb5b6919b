"""Generate the Python code of the pepper.v1 protocol into referee/gen/ (never edit it by hand).

    python tools/genproto.py           # regenerate referee/gen/
    python tools/genproto.py --check   # regenerate into a temp dir; fail on any difference

Uses grpc_tools.protoc (the version pinned in pyproject.toml). protoc writes
``from pepper.v1 import ...``; the imports are rewritten to
``from referee.gen.pepper.v1 import ...`` so the code lives inside the
``referee`` package. The descriptors keep their proto file names
("pepper/v1/bot.proto"), which is what server reflection serves.
"""

from __future__ import annotations

import argparse
import difflib
import filecmp
import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "proto"
OUT = ROOT / "referee" / "gen"
HEADER = '"""Generated from proto/ by tools/genproto.py. Do not edit by hand: run `make proto`."""\n'
_IMPORT = re.compile(r"^from pepper\.v1 import ", re.M)


def generate(out: Path) -> None:
    from grpc_tools import protoc

    protos = sorted(str(p.relative_to(PROTO_ROOT)) for p in PROTO_ROOT.glob("pepper/v1/*.proto"))
    if not protos:
        sys.exit(f"no .proto files under {PROTO_ROOT}/pepper/v1")
    out.mkdir(parents=True, exist_ok=True)
    include = str(Path(protoc.__file__).parent / "_proto")
    args = ["protoc", f"-I{PROTO_ROOT}", f"-I{include}", f"--python_out={out}", f"--pyi_out={out}",
            f"--grpc_python_out={out}", *protos]
    if protoc.main(args) != 0:
        sys.exit("protoc failed")
    for f in sorted((out / "pepper").rglob("*.py*")):
        text = f.read_text(encoding="utf-8")
        f.write_text(_IMPORT.sub("from referee.gen.pepper.v1 import ", text), encoding="utf-8")
    for d in (out, out / "pepper", out / "pepper" / "v1"):
        (d / "__init__.py").write_text(HEADER, encoding="utf-8")


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


def check() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "gen"
        generate(fresh)
        want, have = _files(fresh), _files(OUT)
        problems = [f"missing from referee/gen: {f}" for f in sorted(want - have)]
        problems += [f"not generated (stale?): referee/gen/{f}" for f in sorted(have - want)]
        for f in sorted(want & have):
            if not filecmp.cmp(fresh / f, OUT / f, shallow=False):
                diff = difflib.unified_diff((OUT / f).read_text().splitlines(), (fresh / f).read_text().splitlines(),
                                            f"referee/gen/{f}", f"generated/{f}", lineterm="", n=1)
                problems.append("\n".join(list(diff)[:40]))
    if problems:
        print("referee/gen is out of date with proto/ (run `make proto`):", *problems, sep="\n", file=sys.stderr)
        return 1
    print("referee/gen matches proto/")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail if referee/gen differs from freshly generated code")
    a = ap.parse_args()
    if a.check:
        return check()
    if OUT.exists():
        shutil.rmtree(OUT)
    generate(OUT)
    print(f"generated {len(_files(OUT))} files in {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
