"""The trusted Claude Code transcript adapter (visible assistant text only).

An ``Evidence-Check`` marker or a ``Resolved:`` line the assistant wrote in
visible text must reach the guard on the next hook event, and Claude only
hands hooks a path.  The path is trusted only when it resolves below
``$CLAUDE_CONFIG_DIR/projects`` (or ``~/.claude/projects``), is a ``.jsonl``
file and its stem is the UUID-shaped session id; without a hook path exactly
one matching file below that tree may be used.  Only top-level ``assistant``
records whose message role is ``assistant`` count, and of those only exact
``{type: "text", text}`` blocks: thinking, signatures, tool blocks and user
text are never read.  The text is normalised to NFC and recognisable
CP1252/Latin-1 mojibake is reversed.  Surface comes from ``entrypoint``,
model and effort from the assistant record's metadata.  How much is read and
when is the shared engine's business (:mod:`agentreflex.guard.transcript`).
"""

from __future__ import annotations

import os

from agentreflex.guard.sanitize import excerpt, normalize_text
from agentreflex.guard.transcript import Adapter, Batch, inside, uuid_shaped

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


def claude_root(env: Mapping[str, str]) -> str:
    base = env.get("CLAUDE_CONFIG_DIR") or os.path.join(env.get("HOME") or "~", ".claude")
    return os.path.realpath(os.path.join(os.path.expanduser(base), "projects"))


def resolve(session_id: str, hook_path: str, env: Mapping[str, str]) -> tuple[str, str]:
    """(trusted real path, "") or ("", reason it was rejected)."""
    if not uuid_shaped(session_id or ""):
        return "", "session id is not UUID-shaped"
    root = claude_root(env)
    if hook_path:
        return _trusted(hook_path, root, session_id)
    import glob  # lazy: Claude Code always passes the path, so this is the rare case

    matches = glob.glob(os.path.join(glob.escape(root), "*", glob.escape(session_id) + ".jsonl"))
    if len(matches) != 1:
        return "", "no transcript found" if not matches else "ambiguous transcript candidates"
    return _trusted(matches[0], root, session_id)


def _trusted(path: str, root: str, session_id: str) -> tuple[str, str]:
    real = os.path.realpath(path)
    if not inside(real, root):
        return "", "transcript path is outside the trusted projects tree"
    name = os.path.basename(real)
    if not name.endswith(".jsonl") or name[: -len(".jsonl")] != session_id:
        return "", "transcript name does not match the session id"
    if not os.path.isfile(real):
        return "", "transcript is not a regular file"
    return real, ""


def assistant_text(rec: dict[str, Any]) -> str:
    """Visible text of an allowlisted assistant record ("" for anything else)."""
    if rec.get("type") != "assistant" or rec.get("isSidechain") is True:
        return ""
    message = rec.get("message")
    if not isinstance(message, dict) or message.get("role") != "assistant":
        return ""
    content = message.get("content")
    if not isinstance(content, list):
        return ""
    parts = [
        normalize_text(block["text"])
        for block in content
        if isinstance(block, dict)
        and set(block) == {"type", "text"}
        and block["type"] == "text"
        and isinstance(block["text"], str)
    ]
    return "\n".join(p for p in parts if p.strip())


def metadata(rec: dict[str, Any], batch: Batch) -> None:
    """Model, effort and entrypoint of an assistant record (raw; the engine cleans them)."""
    if rec.get("type") != "assistant":
        return
    message = rec.get("message")
    if isinstance(message, dict):
        if isinstance(message.get("model"), str):
            batch.model = message["model"][:256]
        effort = message.get("effort")
        if isinstance(effort, (str, dict)):
            batch.effort = _effort_text(effort)
    for key in ("effort", "perTurnEffort"):  # Claude Code 2.1 writes both; the turn's wins
        if isinstance(rec.get(key), (str, dict)):
            batch.effort = _effort_text(rec[key])
    if isinstance(rec.get("entrypoint"), str):
        batch.entrypoint = excerpt(rec["entrypoint"], 32)


def _effort_text(value: Any) -> str:
    level = value.get("level") if isinstance(value, dict) else value
    return level[:32] if isinstance(level, str) else ""


ADAPTER = Adapter("claude", (b'"assistant"',), resolve, assistant_text, metadata)
