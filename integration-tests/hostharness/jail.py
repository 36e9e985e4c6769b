"""Run host commands inside a network namespace that has only loopback.

``python -m hostharness.jail SPEC.json`` is started under ``unshare -n`` by
:func:`hostharness.claude.run_in_jail`. It brings ``lo`` up, starts the fake model
on 127.0.0.1, runs each step of the spec in order (each gets ``ANTHROPIC_BASE_URL``
pointing at the fake model), stops the server and writes every step's outcome and
every request the model received to the spec's ``result`` path.
"""

from __future__ import annotations

import fcntl
import json
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from hostharness.fakemodel import FakeAnthropic, Script, Turn

SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1


def bring_loopback_up() -> None:
    """A fresh network namespace starts with ``lo`` down; raise it (needs CAP_NET_ADMIN)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH", b"lo", 0)
        flags = struct.unpack("16sH", fcntl.ioctl(sock.fileno(), SIOCGIFFLAGS, request))[1]
        if not flags & IFF_UP:
            fcntl.ioctl(sock.fileno(), SIOCSIFFLAGS, struct.pack("16sH", b"lo", flags | IFF_UP))


def run_step(step: dict[str, Any], base_url: str) -> dict[str, Any]:
    env = dict(step["env"])
    env["ANTHROPIC_BASE_URL"] = base_url
    started = time.monotonic()
    try:
        done = subprocess.run(
            step["argv"],
            cwd=step["cwd"],
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=step.get("timeout", 120),
            check=False,
        )
        rc, stdout, stderr = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as exc:
        rc = -999
        stdout = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        stderr = f"timed out after {exc.timeout} s"
    return {
        "argv": step["argv"],
        "rc": rc,
        "stdout": stdout,
        "stderr": stderr,
        "wall_s": round(time.monotonic() - started, 3),
    }


def main(argv: list[str]) -> int:
    spec = json.loads(Path(argv[1]).read_text())
    bring_loopback_up()
    fake = FakeAnthropic(Script([Turn.from_json(t) for t in spec["script"]]))
    fake.start()
    results: list[dict[str, Any]] = []
    try:
        for step in spec["steps"]:
            outcome = run_step(step, fake.base_url)
            results.append(outcome)
            if outcome["rc"] != 0 and step.get("must_succeed", False):
                break
    finally:
        fake.stop()
    Path(spec["result"]).write_text(json.dumps({"steps": results, "requests": fake.requests}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
