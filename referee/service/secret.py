"""Secrets in the referee's process (and the arena's): read from a file or a pipe, hashed, hidden from /proc.

Any process of the same user can read another's ``/proc/PID/environ`` and ``/proc/PID/cmdline``: a token in the
environment or on the command line is readable by every bot that user runs. So the control token is best read
from a pipe (``--control-token-file -``: stdin, read at start, then closed) or a file of mode 0600; one that came
from the environment or argv anyway is removed from ``os.environ`` and overwritten in the process's original
argv and environment block (what /proc shows). This narrows what a same-user process can read; it does not
close it (it can still ptrace the process or read ``/proc/PID/mem``): docs/security.md, case 5.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import stat
import sys
from pathlib import Path


class SecretError(ValueError):
    """A token that cannot be read; the message says where and what to do."""


def digest(token: str) -> bytes:
    """A bot token's SHA-256 (what the referee keeps and compares): the tokens are random (24 bytes from
    ``secrets``), so no slow hash is needed; nothing can be guessed from the digest."""
    return hashlib.sha256(token.encode()).digest()


def read_token(path: str, what: str = "--control-token-file") -> str:
    """The first line of ``path``; ``-`` reads it from stdin, which is then replaced by /dev/null (nothing is
    left to read there). A regular file that other users can read is refused."""
    if path == "-":
        line = sys.stdin.buffer.readline()
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        source = "stdin"
    else:
        try:
            st = os.stat(path)
            if stat.S_ISREG(st.st_mode) and st.st_mode & 0o077:
                raise SecretError(f"{what} {path}: its mode {stat.filemode(st.st_mode)} lets other users read it; "
                                  f"chmod 600 {path}")
            line = Path(path).read_bytes().split(b"\n", 1)[0]
        except OSError as e:
            raise SecretError(f"{what} {path}: {e.strerror}") from None
        source = path
    token = line.decode(errors="replace").strip()
    if not token:
        raise SecretError(f"{what}: no token in {source} (expected the token on its first line)")
    return token


def _proc_blocks() -> list[tuple[int, int, str]]:
    """This process's original argv and environment blocks: (start, end, the /proc file that shows it)."""
    with open("/proc/self/stat", "rb") as f:
        fields = f.read().rpartition(b")")[2].split()   # fields[0] is field 3 (state): see proc(5)
    arg_start, arg_end, env_start, env_end = (int(x) for x in fields[45:49])
    return [(arg_start, arg_end, "/proc/self/cmdline"), (env_start, env_end, "/proc/self/environ")]


def hide_from_proc(secret: str, envvar: str | None = None) -> None:
    """Remove ``envvar`` from this process's environment, and overwrite every copy of ``secret`` in its original
    argv and environment blocks with ``*`` (Python copied both at start: sys.argv and os.environ keep working).
    Where /proc is missing or does not show those blocks as expected, nothing is overwritten."""
    if envvar:
        os.environ.pop(envvar, None)
    needle = secret.encode()
    if not needle:
        return
    try:
        blocks = _proc_blocks()
    except (OSError, ValueError, IndexError):
        return
    for start, end, shown in blocks:
        try:
            seen = Path(shown).read_bytes()
        except OSError:
            continue
        if end <= start or ctypes.string_at(start, end - start) != seen:
            continue  # not the block /proc shows (setproctitle, say): leave it alone
        at = seen.find(needle)
        while at >= 0:
            ctypes.memset(start + at, ord("*"), len(needle))
            at = seen.find(needle, at + len(needle))
