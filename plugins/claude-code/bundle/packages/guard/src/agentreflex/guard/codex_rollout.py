"""The trusted Codex rollout adapter (visible reasoning summaries only).

Codex hooks identify the session but may send ``transcript_path`` as null;
the visible reasoning summaries live in the session's rollout file,
``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`` (or the
compressed ``.jsonl.zst`` newer Codex writes).  A hook path is trusted only
when it resolves (symlinks followed) to such a file below the sessions
directory; without one, exactly one rollout named for the UUID-shaped
``session_id`` may be used.  Ambiguous, invalid, out-of-tree or
symlink-escaped matches fail closed: nothing is read and the reason is kept.

Of every record only ``response_item`` -> ``reasoning`` -> ``summary`` ->
``summary_text.text`` is taken: encrypted reasoning, raw reasoning content,
messages and tool calls are never read.  ``session_meta.originator`` gives
the surface and the latest ``turn_context`` (or applied thread settings) the
model and effort.
"""

from __future__ import annotations

import os

from agentreflex.core.hosts.codex_sessions import sessions_root, trusted_rollout
from agentreflex.guard.sanitize import excerpt, normalize_text
from agentreflex.guard.transcript import ZST, Adapter, Batch, uuid_shaped

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

_MAX_SUMMARY_PARTS = 64


def resolve(session_id: str, hook_path: str, env: Mapping[str, str]) -> tuple[str, str]:
    """(trusted real path, "") or ("", reason it was rejected)."""
    if hook_path:
        return trusted_rollout(hook_path, env)
    if not uuid_shaped(session_id or ""):
        return "", "no rollout path and the session id is not UUID-shaped"
    import glob  # lazy: only a hook without a path searches

    root = sessions_root(env)
    pattern = os.path.join(glob.escape(root), "*", "*", "*", "rollout-*-" + glob.escape(session_id))
    matches = sorted(glob.glob(pattern + ".jsonl") + glob.glob(pattern + ".jsonl" + ZST))
    if len(matches) != 1:
        return "", "no rollout found" if not matches else "ambiguous rollout candidates"
    return trusted_rollout(matches[0], env)


def summary_text(rec: dict[str, Any]) -> str:
    """The visible summary of a ``reasoning`` response item ("" for anything else)."""
    if rec.get("type") != "response_item":
        return ""
    payload = rec.get("payload")
    if not isinstance(payload, dict) or payload.get("type") != "reasoning":
        return ""
    summary = payload.get("summary")
    if not isinstance(summary, list):
        return ""
    parts = [
        normalize_text(part["text"])
        for part in summary[:_MAX_SUMMARY_PARTS]
        if isinstance(part, dict)
        and part.get("type") == "summary_text"
        and isinstance(part.get("text"), str)
    ]
    return "\n\n".join(p for p in parts if p.strip())


def metadata(rec: dict[str, Any], batch: Batch) -> None:
    """Originator (``session_meta``), model and effort (``turn_context`` or applied
    thread settings), raw: the engine cleans them."""
    kind = rec.get("type")
    payload = rec.get("payload")
    if not isinstance(payload, dict):
        return
    if kind == "session_meta" and isinstance(payload.get("originator"), str):
        batch.entrypoint = excerpt(payload["originator"], 32)
    elif kind == "turn_context":
        _settings(payload, batch)
    elif kind == "event_msg" and payload.get("type") == "thread_settings_applied":
        settings = payload.get("thread_settings")
        if isinstance(settings, dict):
            _settings(settings, batch)


def _settings(payload: dict[str, Any], batch: Batch) -> None:
    """``model`` and ``effort`` (or the collaboration mode's ``reasoning_effort``)."""
    if isinstance(payload.get("model"), str):
        batch.model = payload["model"][:256]
    effort = payload.get("effort")
    mode = payload.get("collaboration_mode")
    settings = mode.get("settings") if isinstance(mode, dict) else None
    if not isinstance(effort, str) and isinstance(settings, dict):
        effort = settings.get("reasoning_effort")
    if isinstance(effort, str):
        batch.effort = effort[:32]


ADAPTER = Adapter(
    "codex",
    (b'"reasoning"', b'"session_meta"', b'"turn_context"', b'"thread_settings_applied"'),
    resolve,
    summary_text,
    metadata,
)
