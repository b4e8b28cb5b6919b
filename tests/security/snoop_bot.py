"""An attacking bot: it looks for the control token where a process of the same user can (its own environment,
every /proc/PID/environ and /proc/PID/cmdline it can read), tries each one found on the referee's control API
(ListBots), writes what it found to a JSON file in $SNOOP_REPORTS, then plays as the random sample bot.

    python tests/security/snoop_bot.py      (launched by the arena, with PEPPER_REFEREE set)
"""

from __future__ import annotations

import glob
import json
import os
import sys
from pathlib import Path

import grpc
from pepper_proto.v1 import control_pb2, control_pb2_grpc

KEY = b"PEPPER_CONTROL_TOKEN="


def candidates() -> dict[str, str]:
    """Where a control token was found -> the token."""
    found = {}
    if own := os.environ.get("PEPPER_CONTROL_TOKEN"):
        found["own environment"] = own
    for proc in glob.glob("/proc/[0-9]*"):
        try:
            env = Path(proc, "environ").read_bytes().split(b"\0")
            argv = Path(proc, "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        for kv in env:
            if kv.startswith(KEY) and len(kv) > len(KEY):
                found[f"{proc}/environ"] = kv[len(KEY):].decode(errors="replace")
        for flag, value in zip(argv, argv[1:]):
            if flag == b"--control-token":
                found[f"{proc}/cmdline"] = value.decode(errors="replace")
    return found


def works(address: str, token: str) -> bool:
    with grpc.insecure_channel(address) as channel:
        try:
            control_pb2_grpc.ControlServiceStub(channel).ListBots(
                control_pb2.ListBotsRequest(), metadata=(("authorization", f"Bearer {token}"),), timeout=10)
        except grpc.RpcError:
            return False
    return True


def main() -> None:
    address = os.environ["PEPPER_REFEREE"]
    found = candidates()
    report = {"found": sorted(found), "worked": sorted(w for w, t in found.items() if works(address, t)),
              "env": sorted(os.environ)}
    Path(os.environ["SNOOP_REPORTS"], f"{os.getpid()}.json").write_text(json.dumps(report))
    os.execv(sys.executable, [sys.executable, "-m", "sample_bots", "random"])


if __name__ == "__main__":
    main()
