"""Run inside a sandbox's container by the tests: what can this process see and do? Prints one JSON object."""

import json
import os
import socket


def attempt(f):
    try:
        return f()
    except OSError as e:
        return f"{type(e).__name__}: {e.strerror or e}"


def status(field):
    with open("/proc/self/status") as f:
        return next(line.split(":", 1)[1].strip() for line in f if line.startswith(field + ":"))


def write(path):
    with open(path, "w") as f:
        f.write("x")
    return "written"


def tcp(address):
    host, port = address.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=2):
        return "connected"


def environs():
    seen = {}
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            seen[pid] = attempt(lambda p=pid: open(f"/proc/{p}/environ", "rb").read().decode(errors="replace"))
    return seen


def forks(n=500):
    made = 0
    for _ in range(n):
        try:
            if os.fork() == 0:
                import time
                time.sleep(5)
                os._exit(0)
            made += 1
        except OSError:
            break
    return made


out = {
    "uid": os.getuid(), "gid": os.getgid(), "cap_eff": status("CapEff"), "no_new_privs": status("NoNewPrivs"),
    "interfaces": [name for _, name in socket.if_nameindex()],
    "write_root": attempt(lambda: write("/probe")), "write_bot": attempt(lambda: write("/bot/probe")),
    "write_tmp": attempt(lambda: write("/tmp/probe")),
    "tcp": {a: attempt(lambda a=a: tcp(a)) for a in os.environ.get("PROBE_TCP", "").split(",") if a},
    "files": {p: attempt(lambda p=p: len(open(p, "rb").read())) for p in os.environ.get("PROBE_FILES", "").split(",") if p},
    "environs": environs(),
    "forks": forks() if os.environ.get("PROBE_FORK") else None,
}
print(json.dumps(out), flush=True)
