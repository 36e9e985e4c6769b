"""``agentreflex statusline``: one short line for Claude Code's ``statusLine`` setting.

Claude Code runs the command after each assistant message (at most every
300 ms) with a JSON payload on stdin (``session_id``, ``cwd``,
``transcript_path``, ``workspace.{current_dir,project_dir}``, ``model``...)
and shows the first line of stdout.  The line says what the user most needs
at a glance::

    agentreflex enforced · last BLOCK GATE-RM-HOME · 2 open obligations · Conditional

It reads only this session's files (the tail of its log, the guard's
status), never writes anything, and never fails: whatever goes wrong, it
prints a short line saying so and exits 0, because a status line that shows
a traceback (or nothing) is worse than one that says "unavailable".
"""

from __future__ import annotations

import os
import sys

from agentreflex.core.util import fastjson

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_PAYLOAD = 1 << 20
TAIL_BYTES = 32 * 1024
SEP = " · "
MAX_LEN = 160


def _payload(data: bytes) -> dict[str, Any]:
    try:
        value = fastjson.loads(data[:MAX_PAYLOAD] or b"{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _cwd(payload: dict[str, Any]) -> str:
    workspace = payload.get("workspace")
    for value in (
        workspace.get("project_dir") if isinstance(workspace, dict) else None,
        workspace.get("current_dir") if isinstance(workspace, dict) else None,
        payload.get("cwd"),
    ):
        if isinstance(value, str) and os.path.isabs(value):
            return value
    return os.getcwd()


def last_decision(log_path: str) -> str | None:
    """The last decision in a session log: ``BLOCK GATE-...``, ``allow`` or None if none yet."""
    try:
        with open(log_path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - TAIL_BYTES))
            tail = fh.read()
    except OSError:
        return None
    for line in reversed(tail.splitlines()):
        try:
            rec = fastjson.loads(line)
        except ValueError:
            continue  # a torn last line, or the cut first one
        decision = rec.get("decision") if isinstance(rec, dict) else None
        if not isinstance(decision, dict):
            continue
        verdict = str(decision.get("verdict", ""))
        if verdict in ("", "ALLOW"):
            return "allow"
        codes = [
            str(f.get("code"))
            for f in decision.get("findings") or []
            if isinstance(f, dict) and f.get("verdict") not in (None, "ALLOW")
        ]
        return f"{verdict} {codes[0]}" if codes else verdict
    return None


def last_snapshot(log_path: str) -> int | None:
    """The newest work-tree snapshot noted in a session log's tail (``agentreflex undo N``)."""
    try:
        with open(log_path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - TAIL_BYTES))
            tail = fh.read()
    except OSError:
        return None
    for line in reversed(tail.splitlines()):
        if b"worktree_snapshot" not in line:
            continue
        try:
            rec = fastjson.loads(line)
        except ValueError:
            continue
        for note in rec.get("notes") or [] if isinstance(rec, dict) else []:
            value = note.get("value") if isinstance(note, dict) else None
            if note.get("key") == "worktree_snapshot" and isinstance(value, dict):
                n = value.get("n")
                return n if isinstance(n, int) else None
    return None


def _declared_parts(state_dir: str, session_id: str) -> list[str]:
    """Each installed package's parts of the line (its ``statusline`` declaration)."""
    from agentreflex.core import registry

    parts: list[str] = []
    for name, spec in registry.entries(registry.STATUSLINE):
        try:
            found = registry.load_object(spec)(state_dir, session_id)
        except Exception:  # a sibling's status must not blank the line
            parts.append(f"{name} status unavailable")
            continue
        parts.extend(str(part) for part in found or [])
    return parts


def render(payload: dict[str, Any]) -> str:
    from agentreflex.core.config.settings import ConfigError, load_config
    from agentreflex.core.state.store import SessionStore

    try:
        config = load_config(_cwd(payload))
    except ConfigError as exc:
        return f"agentreflex: config error: {exc}"
    parts = [f"agentreflex {config.mode.value}"]
    session = payload.get("session_id")
    if isinstance(session, str) and session:
        store = SessionStore(config.state_dir, session)
        last = last_decision(store.log_path)
        parts.append(f"last {last}" if last else "no hook seen yet")
        snap = last_snapshot(store.log_path)
        if snap is not None:
            parts.append(f"undo with `agentreflex undo {snap}`")
        parts.extend(_declared_parts(config.state_dir, session))
    return SEP.join(parts)


def main(args: list[str]) -> int:
    try:
        data = b"" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.buffer.read()
        line = render(_payload(data))
    except Exception as exc:  # never a traceback in the user's status bar
        line = f"agentreflex: status unavailable ({type(exc).__name__})"
    line = " ".join(line.split())
    print(line if len(line) <= MAX_LEN else line[: MAX_LEN - 1] + "…")
    return 0
