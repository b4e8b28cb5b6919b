"""An uploaded bot: the archive an author sends (``pepper ladder enter --upload PATH``, or the author page's form),
unpacked into the ladder folder, and what its manifest says.

The folder holds either a ``Dockerfile`` (built in the sandbox's builder; its ENTRYPOINT and CMD are the bot's
command) or ``pepper-bot.toml``::

    command = "{python} bot.py"   # run in /bot, the folder, in the project's base image ({python}: its python3)
    processes = 1                 # optional: processes to run (each holds its seats of many games)

An archive is a gzipped tar or a zip file. Nothing in it may lie outside the folder: absolute paths, ``..``, links
and device files are refused, as are more than MAX_FILES files or MAX_UNPACKED_BYTES in all (a small archive that
unpacks to the disk's size). The limit on the archive itself is the ladder's ``upload_max_mb``.
"""

from __future__ import annotations

import io
import os
import shutil
import stat
import tarfile
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .errors import LadderError

MANIFEST = "pepper-bot.toml"
MAX_FILES = 2000
MAX_UNPACKED_BYTES = 256 << 20
MAX_PROCESSES = 4
SKIPPED = {".git", "__pycache__", ".venv", ".mypy_cache", ".pytest_cache"}   # never packed by `enter --upload`


class BadUpload(LadderError):
    """An archive or manifest the ladder will not take; the message says which file and why."""


@dataclass(frozen=True)
class Manifest:
    """How an uploaded bot runs: ``command`` in the base image, or its Dockerfile's (``dockerfile``)."""

    command: str | None
    processes: int = 1
    dockerfile: bool = False


def pack(folder: Path) -> bytes:
    """``folder`` as a gzipped tar (the author's side), without the caches and virtual environments of SKIPPED;
    BadUpload when it is not a folder or has neither a Dockerfile nor a manifest."""
    if not folder.is_dir():
        raise BadUpload(f"--upload {folder}: not a folder (give the bot's folder, with its {MANIFEST} or Dockerfile)")
    read_manifest(folder)   # refused here rather than after the upload
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for path in sorted(folder.rglob("*")):
            rel = path.relative_to(folder)
            if SKIPPED & set(rel.parts):
                continue
            if path.is_symlink():
                raise BadUpload(f"--upload {folder}: {rel} is a link; the ladder takes plain files (copy what it "
                                "points to into the folder)")
            if path.is_file():
                tar.add(path, arcname=rel.as_posix(), recursive=False)
    return buf.getvalue()


def unpack(data: bytes, dest: Path) -> None:
    """Unpack ``data`` (a gzipped tar or a zip) into the new folder ``dest``; BadUpload saying what it refused (and
    ``dest`` removed)."""
    dest.mkdir(parents=True)
    try:
        if data[:2] == b"\x1f\x8b":
            _untar(data, dest)
        elif data[:4] == b"PK\x03\x04":
            _unzip(data, dest)
        else:
            raise BadUpload("the upload is neither a gzipped tar (.tar.gz) nor a zip file")
    except BaseException:
        shutil.rmtree(dest, ignore_errors=True)
        raise


def _member(name: str) -> PurePosixPath:
    p = PurePosixPath(name)
    if p.is_absolute() or ".." in p.parts or "\\" in name or (p.parts and ":" in p.parts[0]):
        raise BadUpload(f"the archive's {name!r} lies outside the bot's folder; archive the folder's contents only")
    return p


class _Budget:
    def __init__(self):
        self.files = self.bytes = 0

    def take(self, name: str, size: int) -> None:
        self.files += 1
        self.bytes += size
        if self.files > MAX_FILES:
            raise BadUpload(f"the archive has more than {MAX_FILES} files, the most a bot may have")
        if self.bytes > MAX_UNPACKED_BYTES:
            raise BadUpload(f"the archive unpacks to more than {MAX_UNPACKED_BYTES >> 20} MiB (at {name}), the most a "
                            "bot may have")


def _untar(data: bytes, dest: Path) -> None:
    budget = _Budget()
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            for m in tar:
                rel = _member(m.name)
                if m.isdir():
                    (dest / rel).mkdir(parents=True, exist_ok=True)
                    continue
                if not m.isfile():
                    raise BadUpload(f"the archive's {m.name!r} is a link or a device; the ladder takes plain files")
                budget.take(m.name, m.size)
                _write(dest / rel, tar.extractfile(m), m.mode)
    except (tarfile.TarError, EOFError, OSError) as e:
        raise BadUpload(f"the archive cannot be read ({e}); make it with `tar czf bot.tar.gz -C FOLDER .`") from None


def _unzip(data: bytes, dest: Path) -> None:
    budget = _Budget()
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            for info in z.infolist():
                rel = _member(info.filename)
                if info.is_dir():
                    (dest / rel).mkdir(parents=True, exist_ok=True)
                    continue
                if stat.S_ISLNK(info.external_attr >> 16):
                    raise BadUpload(f"the archive's {info.filename!r} is a link; the ladder takes plain files")
                budget.take(info.filename, info.file_size)
                with z.open(info) as src:
                    _write(dest / rel, src, (info.external_attr >> 16) & 0o777 or 0o644)
    except (zipfile.BadZipFile, OSError, EOFError) as e:
        raise BadUpload(f"the zip file cannot be read ({e})") from None


def _write(path: Path, src, mode: int) -> None:
    """Copy ``src`` to ``path``, never more than MAX_UNPACKED_BYTES (a header may lie about a member's size)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with open(path, "xb") as out:
        while chunk := src.read(1 << 16):
            written += len(chunk)
            if written > MAX_UNPACKED_BYTES:
                raise BadUpload(f"the archive's {path.name} unpacks to more than {MAX_UNPACKED_BYTES >> 20} MiB")
            out.write(chunk)
    # Readable by the sandbox's user (nobody); executable where it was.
    os.chmod(path, 0o755 if mode & 0o111 else 0o644)


def read_manifest(folder: Path) -> Manifest:
    """What ``folder`` says about how its bot runs; BadUpload when it says nothing usable."""
    file = folder / MANIFEST
    data: dict = {}
    if file.is_file():
        try:
            data = tomllib.loads(file.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            raise BadUpload(f"{MANIFEST}: not valid TOML ({e})") from None
        if unknown := sorted(set(data) - {"command", "processes"}):
            raise BadUpload(f"{MANIFEST}: unknown key(s) {', '.join(unknown)}; the keys are command and processes")
    processes = data.get("processes", 1)
    if not isinstance(processes, int) or not 1 <= processes <= MAX_PROCESSES:
        raise BadUpload(f"{MANIFEST}: processes = {processes!r}: a whole number from 1 to {MAX_PROCESSES}")
    command = data.get("command")
    if command is not None and (not isinstance(command, str) or not command.strip()):
        raise BadUpload(f"{MANIFEST}: command must be the bot's command line, for example \"{{python}} bot.py\"")
    if (folder / "Dockerfile").is_file():
        if command is not None:
            raise BadUpload(f"{MANIFEST}: command, beside a Dockerfile, whose ENTRYPOINT and CMD are the bot's command: "
                            "give the command in one place")
        return Manifest(None, processes, dockerfile=True)
    if command is None:
        raise BadUpload(f"the bot's folder has neither a Dockerfile nor a {MANIFEST} with its command, for example "
                        "command = \"{python} bot.py\"")
    return Manifest(command, processes)


__all__ = ["MANIFEST", "BadUpload", "Manifest", "pack", "read_manifest", "unpack"]
