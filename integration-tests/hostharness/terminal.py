"""A person at a terminal: run a host's interactive UI in a pseudo-terminal and talk to it.

Interactive UIs (prompt_toolkit, Ink) only draw and read keys on a real
terminal.  :func:`run_dialogue` gives the host one (80x40, ``TERM=xterm``),
reads what it draws, and each time the screen shows a line's ``expect``
pattern types that line's ``send``, in order, as a person would.  The
screen is matched with its escape codes removed.
"""

from __future__ import annotations

import fcntl
import os
import re
import select
import signal
import struct
import termios
import time
from typing import Any

ANSI = re.compile(
    rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][A-Z0-9]|\x1b[=>78cDEHM]"
)


EXIT_GRACE_S = 15


def screen_text(raw: bytes) -> str:
    """What a person reads: the output without escape codes and carriage returns."""
    return ANSI.sub(b"", raw).replace(b"\r", b"").decode("utf-8", "replace")


def run_dialogue(step: dict[str, Any]) -> dict[str, Any]:
    """Run ``step["argv"]`` in a pty and play ``step["dialogue"]`` against its screen.

    Returns the step's outcome like ``jail.run_step``: ``rc``, ``stdout`` (the
    screen text), ``stderr`` (which dialogue lines were never seen), ``wall_s``.
    """
    started = time.monotonic()
    deadline = started + float(step.get("timeout", 120))
    pid, fd = os.forkpty()
    if pid == 0:  # the child: the host, on the terminal
        try:
            os.chdir(step["cwd"])
            env = {**step["env"], "TERM": "xterm", "COLUMNS": "80", "LINES": "40"}
            os.execvpe(step["argv"][0], step["argv"], env)
        finally:
            os._exit(127)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 80, 0, 0))
    dialogue = list(step.get("dialogue") or [])
    output = b""
    seen_from = 0
    rc: int | None = None
    while time.monotonic() < deadline:
        if not dialogue:  # everything said: the host has a few seconds to finish
            deadline = min(deadline, time.monotonic() + EXIT_GRACE_S)
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                data = os.read(fd, 65536)
            except OSError:  # the host closed the terminal
                data = b""
            if not data:
                break
            output += data
        if dialogue and re.search(dialogue[0]["expect"], screen_text(output[seen_from:])):
            line = dialogue.pop(0)
            time.sleep(float(line.get("pause", 0.3)))  # let the UI finish drawing
            os.write(fd, line["send"].encode())
            seen_from = len(output)
        done_pid, status = os.waitpid(pid, os.WNOHANG)
        if done_pid:
            rc = os.waitstatus_to_exitcode(status)
            break
    if rc is None:  # still running at the deadline
        rc = -999
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                break
            time.sleep(1)
        os.waitpid(pid, 0)
    os.close(fd)
    missing = "; ".join(f"never saw {line['expect']!r}" for line in dialogue)
    return {
        "argv": step["argv"],
        "rc": rc,
        "stdout": screen_text(output),
        "stderr": missing,
        "wall_s": round(time.monotonic() - started, 3),
    }
