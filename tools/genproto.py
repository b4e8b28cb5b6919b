"""Generate the Python code of the pepper.v1 protocol into the SDK's ``pepper_proto`` (never edit it by hand).

    python tools/genproto.py           # regenerate sdk/python/pepper_proto/
    python tools/genproto.py --check   # regenerate into a temp dir; fail on any difference

Uses grpc_tools.protoc (the version pinned in pyproject.toml's ``dev`` extra).
protoc writes ``pepper/v1/*_pb2.py`` with ``from pepper.v1 import ...``; they
are moved to ``pepper_proto/v1/`` and the imports rewritten to
``from pepper_proto.v1 import ...``, so the bot SDK and the referee import one
copy. The descriptors keep their proto file names ("pepper/v1/bot.proto"),
which is what server reflection serves. ``pepper_proto.PROTOCOL_VERSION`` comes
from ``proto/VERSION``: the protocol version this code speaks.
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
OUT = ROOT / "sdk" / "python" / "pepper_proto"
VERSION_FILE = PROTO_ROOT / "VERSION"
OUT_REL = OUT.relative_to(ROOT).as_posix()
HEADER = '"""Generated from proto/ by tools/genproto.py. Do not edit by hand: run `make proto`."""\n'
_IMPORT = re.compile(r"^from pepper\.v1 import ", re.M)
_VERSION = re.compile(r"^\d+\.\d+$")


def protocol_version() -> str:
    text = VERSION_FILE.read_text(encoding="utf-8").strip()
    if not _VERSION.match(text):
        sys.exit(f"{VERSION_FILE}: expected MAJOR.MINOR (e.g. 1.1), found {text!r}")
    return text


def generate(out: Path) -> None:
    from grpc_tools import protoc

    protos = sorted(str(p.relative_to(PROTO_ROOT)) for p in PROTO_ROOT.glob("pepper/v1/*.proto"))
    if not protos:
        sys.exit(f"no .proto files under {PROTO_ROOT}/pepper/v1")
    version = protocol_version()
    with tempfile.TemporaryDirectory() as tmp:
        include = str(Path(protoc.__file__).parent / "_proto")
        args = ["protoc", f"-I{PROTO_ROOT}", f"-I{include}", f"--python_out={tmp}", f"--pyi_out={tmp}",
                f"--grpc_python_out={tmp}", *protos]
        if protoc.main(args) != 0:
            sys.exit("protoc failed")
        (out / "v1").mkdir(parents=True, exist_ok=True)
        for f in sorted((Path(tmp) / "pepper" / "v1").glob("*.py*")):
            text = f.read_text(encoding="utf-8")
            (out / "v1" / f.name).write_text(_IMPORT.sub("from pepper_proto.v1 import ", text), encoding="utf-8")
    (out / "v1" / "__init__.py").write_text(HEADER, encoding="utf-8")
    (out / "__init__.py").write_text(
        HEADER + f'\n# The pepper.v1 version this code was generated for (proto/VERSION); docs/protocol.md, Versioning.\n'
        f'PROTOCOL_VERSION = "{version}"\n', encoding="utf-8")
    (out / "py.typed").write_text("", encoding="utf-8")


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


def check() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "gen"
        generate(fresh)
        want, have = _files(fresh), _files(OUT)
        problems = [f"missing from {OUT_REL}: {f}" for f in sorted(want - have)]
        problems += [f"not generated (stale?): {OUT_REL}/{f}" for f in sorted(have - want)]
        for f in sorted(want & have):
            if not filecmp.cmp(fresh / f, OUT / f, shallow=False):
                diff = difflib.unified_diff((OUT / f).read_text().splitlines(), (fresh / f).read_text().splitlines(),
                                            f"{OUT_REL}/{f}", f"generated/{f}", lineterm="", n=1)
                problems.append("\n".join(list(diff)[:40]))
    if problems:
        print(f"{OUT_REL} is out of date with proto/ (run `make proto`):", *problems, sep="\n", file=sys.stderr)
        return 1
    print(f"{OUT_REL} matches proto/")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail if pepper_proto differs from freshly generated code")
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
