"""The trusted GitHub Copilot CLI session adapter (the model's visible reply text only).

Copilot CLI records each session as JSON Lines in
``~/.copilot/session-state/<session id>/events.jsonl`` (the root moves with
``COPILOT_HOME``; see GitHub's "Copilot CLI configuration directory"
reference).  Its ``agentStop`` hook names that file as ``transcriptPath``;
its other hooks carry only ``sessionId``, so the file is then found from the
id.  Either way it is trusted only when it resolves (symlinks followed) to
exactly that name for this UUID-shaped session below that tree.

Copilot writes the file in batches, about a second behind the session
(1.0.102: a session shorter than that has no file at any hook, its stop hook
included).  The guard reads what is on disk; a reply not yet written is read
on a later event, and until the file exists the session's coverage says
"no visible reasoning summary observed".

Of every record only an ``assistant.message``'s ``data.content`` counts (the
reply text the user sees); tool requests, hook records, user and system
messages are never read.  ``data.model`` gives the model.
"""

from __future__ import annotations

import os

from agentreflex.guard.sanitize import normalize_text
from agentreflex.guard.transcript import Adapter, Batch, uuid_shaped

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

EVENTS = "events.jsonl"


def sessions_root(env: Mapping[str, str]) -> str:
    """Copilot CLI's session-state tree."""
    base = env.get("COPILOT_HOME") or os.path.join(env.get("HOME") or "~", ".copilot")
    return os.path.realpath(os.path.join(os.path.expanduser(base), "session-state"))


def resolve(session_id: str, hook_path: str, env: Mapping[str, str]) -> tuple[str, str]:
    """(trusted real path, "") or ("", reason it was rejected)."""
    if not uuid_shaped(session_id or ""):
        return "", "session id is not UUID-shaped"
    expected = os.path.join(sessions_root(env), session_id, EVENTS)
    real = os.path.realpath(hook_path or expected)
    if real != expected:
        return "", "session file is not this session's events.jsonl in Copilot's tree"
    if not os.path.isfile(real):
        return "", "session file is not a regular file"
    return real, ""


def _data(rec: dict[str, Any]) -> dict[str, Any]:
    if rec.get("type") != "assistant.message" or not isinstance(rec.get("data"), dict):
        return {}
    data: dict[str, Any] = rec["data"]
    return data


def reply_text(rec: dict[str, Any]) -> str:
    """Visible text of an ``assistant.message`` ("" for anything else)."""
    content = _data(rec).get("content")
    return normalize_text(content) if isinstance(content, str) and content.strip() else ""


def metadata(rec: dict[str, Any], batch: Batch) -> None:
    """The model an ``assistant.message`` names (raw; the engine cleans it)."""
    model = _data(rec).get("model")
    if isinstance(model, str):
        batch.model = model[:256]


ADAPTER = Adapter("copilot", (b'"assistant.message"',), resolve, reply_text, metadata)
