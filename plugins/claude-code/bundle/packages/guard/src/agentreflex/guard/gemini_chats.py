"""The trusted Gemini CLI session adapter (the model's visible reply text only).

Gemini CLI records each session as JSON Lines in
``$GEMINI_CLI_HOME/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl``
(``GEMINI_CLI_HOME`` defaults to the home folder; ``<id8>`` is the first
eight characters of the session id) and hands every hook that path as
``transcript_path`` (``ChatRecordingService.getConversationFilePath`` in
google-gemini/gemini-cli 0.61).  The path is trusted only when it resolves
(symlinks followed) to a file named so, for this UUID-shaped session, in a
``chats`` folder two levels below that ``tmp`` tree.  Without a hook path
nothing is searched: Gemini always sends one.

A message is written again each time Gemini adds to it (its token counts,
its tool calls), with the same content; the guard already takes each text
once (by digest).  Of every record only a ``gemini`` message's ``content``
counts: the reply text as a string, or, for a reply recorded as parts, the
plain ``{text}`` parts that are not thoughts.  Thoughts, tool calls, user
prompts and the host's info/warning/error lines are never read.  ``model``
comes from the same record.
"""

from __future__ import annotations

import os

from agentreflex.guard.sanitize import normalize_text
from agentreflex.guard.transcript import Adapter, Batch, inside, uuid_shaped

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

_PREFIX, _SUFFIX = "session-", ".jsonl"


def chats_root(env: Mapping[str, str]) -> str:
    """Gemini CLI's temp tree, where each project's ``chats`` folder lives."""
    home = env.get("GEMINI_CLI_HOME") or env.get("HOME") or "~"
    return os.path.realpath(os.path.join(os.path.expanduser(home), ".gemini", "tmp"))


def resolve(session_id: str, hook_path: str, env: Mapping[str, str]) -> tuple[str, str]:
    """(trusted real path, "") or ("", reason it was rejected)."""
    if not uuid_shaped(session_id or ""):
        return "", "session id is not UUID-shaped"
    if not hook_path:
        return "", "Gemini CLI sent no transcript path"
    real = os.path.realpath(hook_path)
    root = chats_root(env)
    if not inside(real, root):
        return "", "transcript path is outside Gemini CLI's temp tree"
    folder = os.path.dirname(real)
    if os.path.basename(folder) != "chats" or os.path.dirname(os.path.dirname(folder)) != root:
        return "", "transcript is not in a project's chats folder"
    name = os.path.basename(real)
    if not (name.startswith(_PREFIX) and name.endswith(f"-{session_id[:8]}{_SUFFIX}")):
        return "", "transcript name does not match the session id"
    if not os.path.isfile(real):
        return "", "transcript is not a regular file"
    return real, ""


def reply_text(rec: dict[str, Any]) -> str:
    """Visible text of a ``gemini`` message ("" for anything else)."""
    if rec.get("type") != "gemini":
        return ""
    content = rec.get("content")
    if isinstance(content, str):
        return normalize_text(content) if content.strip() else ""
    if not isinstance(content, list):
        return ""
    parts = [
        normalize_text(part["text"])
        for part in content
        if isinstance(part, dict) and set(part) == {"text"} and isinstance(part["text"], str)
    ]
    return "\n".join(p for p in parts if p.strip())


def metadata(rec: dict[str, Any], batch: Batch) -> None:
    """The model a ``gemini`` message names (raw; the engine cleans it)."""
    if rec.get("type") == "gemini" and isinstance(rec.get("model"), str):
        batch.model = rec["model"][:256]


ADAPTER = Adapter("gemini", (b'"gemini"',), resolve, reply_text, metadata)
