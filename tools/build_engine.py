"""Build the compiled engine in place (``make compiled``; every target that runs the referee depends on it).

Runs ``setup.py build_ext --inplace`` with the Makefile's interpreter and keeps its whole output in
``build/engine-build.log``. The build counts only when setup.py wrote its marker (every module compiled) and a
fresh interpreter then imports the extension modules. Otherwise this prints one line, the reason and the fix,
writes that line to ``referee/rules/_compiled_build.failed`` (what ``pepper --version`` and ``pepper arena run``
report), and exits 1 so that the Makefile writes no stamp and the next ``make`` tries again.

    python tools/build_engine.py          # build; exit 0 when the compiled engine is what imports
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARKER = ROOT / "referee" / "rules" / "_compiled_build.txt"
FAILED = ROOT / "referee" / "rules" / "_compiled_build.failed"
LOG = ROOT / "build" / "engine-build.log"

#: Imported by a fresh interpreter after the build: each package's COMPILED flag must be True.
_PROBE = "import referee.rules as r, referee.wire as w, referee.service as s; print(r.COMPILED, w.COMPILED, s.COMPILED)"


def _missing_toolchain() -> str | None:
    """Why nothing can compile here, found without running the build: no C compiler, or no Python headers."""
    cc = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]   # CC overrides, as in setup.py
    if shutil.which(cc) is None:
        return f"no C compiler ({cc} is not on PATH); install one (Debian: apt-get install gcc)"
    include = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not include.exists():
        return f"no Python headers ({include} is missing); install them (Debian: apt-get install python3-dev)"
    return None


def _last_error(output: str) -> str:
    """The line of a failed build's output that names what went wrong (the last error-looking line)."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for line in reversed(lines):
        if any(word in line.lower() for word in ("error", "exception", "not found", "invalid", "no module")):
            return line[:200]
    return lines[-1][:200] if lines else "setup.py printed nothing"


def build() -> str | None:
    """Build in place; None when the compiled engine now imports, else the one-line reason."""
    LOG.parent.mkdir(exist_ok=True)
    FAILED.unlink(missing_ok=True)
    why = _missing_toolchain()
    if why is None:
        run = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=ROOT,
                             capture_output=True, text=True)
        output = run.stdout + run.stderr
        LOG.write_text(output)
        if run.returncode != 0:
            why = f"setup.py build_ext failed: {_last_error(output)}"
        elif not MARKER.exists():
            why = f"setup.py compiled nothing: {_last_error(output)}"
    if why is None:
        probe = subprocess.run([sys.executable, "-c", _PROBE], cwd=ROOT, capture_output=True, text=True)
        if probe.returncode != 0 or probe.stdout.split() != ["True", "True", "True"]:
            why = f"the built modules do not import: {_last_error(probe.stdout + probe.stderr)}"
    if why is not None:
        FAILED.write_text(why + "\n")
    return why


def main() -> int:
    why = build()
    if why is None:
        print("the compiled engine is built (referee.rules, referee.wire, referee.service)")
        return 0
    print(f"note: the engine stays pure Python (slower): {why}. Full output: {LOG.relative_to(ROOT)}; "
          "`make compiled` tries again.", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
