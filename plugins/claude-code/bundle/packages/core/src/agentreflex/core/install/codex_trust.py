"""Codex hook trust: the ``trusted_hash`` Codex records when a user approves a hook.

Codex (0.169) runs a non-managed hook only when the user's ``config.toml``
(``$CODEX_HOME/config.toml``: Codex reads hook state from the user layer only,
so a project cannot trust its own hooks) holds, for that hook's key,
the hash of the hook's current definition::

    [hooks.state."/abs/path/hooks.json:pre_tool_use:0:0"]
    trusted_hash = "sha256:..."

An untrusted or modified hook is skipped **without a message**.  The user
asked for exactly these hooks by running ``agentreflex install codex``, so
install records the same approval ``/hooks`` would, for our handlers only
(never for anyone else's).  How Codex computes it (``codex-rs/hooks/src/
engine/discovery.rs`` ``command_hook_hash`` and ``codex-rs/config/src/
fingerprint.rs`` ``version_for_toml``):

* the key is ``<absolute hooks.json path>:<event in snake_case>:<group>:<handler>``;
* the hashed identity is ``{"event_name": <snake_case>, "matcher": <matcher or
  absent>, "hooks": [<the one handler, normalised>]}``; the handler is
  ``{"type": "command", "command", "timeout": timeout or 600 (at least 1),
  "async": bool, "statusMessage"?}``; ``None`` fields are dropped (the value
  goes through TOML), and ``UserPromptSubmit``/``Stop`` ignore their matcher;
* the hash is ``sha256:`` + hex SHA-256 of that object as compact JSON with
  every object's keys sorted (UTF-8, not ASCII-escaped).

``integration-tests/test_codex_host.py`` checks every hash against the one
the real Codex 0.169.0 reports (``codex app-server``, ``hooks/list``), and
that the installed hooks then run without any bypass flag.

The entries go in a block between marker comments (one block per hooks.json),
so the user's ``config.toml`` keeps its comments and layout and uninstall can
take exactly that block out.  Where the file already holds a state entry for
one of our keys that we did not write (the user's own, maybe ``enabled =
false``), we leave it alone and say so: ``/hooks`` is then the way.
"""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from typing import Any

from agentreflex.core.install import hookentries

BEGIN_PREFIX = "# >>> agentreflex hook trust for "
END = "# <<< agentreflex hook trust"
DEFAULT_TIMEOUT = 600
# Codex's HookEventName labels (``hook_event_key_label``) for the events it knows.
LABELS = {
    "PreToolUse": "pre_tool_use",
    "PermissionRequest": "permission_request",
    "PostToolUse": "post_tool_use",
    "PreCompact": "pre_compact",
    "PostCompact": "post_compact",
    "SessionStart": "session_start",
    "UserPromptSubmit": "user_prompt_submit",
    "SubagentStart": "subagent_start",
    "SubagentStop": "subagent_stop",
    "Stop": "stop",
}
NO_MATCHER = ("UserPromptSubmit", "Stop")


def handler_hash(event: str, matcher: str | None, handler: dict[str, Any]) -> str:
    """The ``currentHash`` Codex computes for one command handler of ``event``."""
    timeout = handler.get("timeout")
    normalised: dict[str, Any] = {
        "type": "command",
        "command": handler.get("command"),
        "timeout": max(1, timeout if isinstance(timeout, int) else DEFAULT_TIMEOUT),
        "async": bool(handler.get("async", False)),
    }
    if isinstance(handler.get("statusMessage"), str):
        normalised["statusMessage"] = handler["statusMessage"]
    identity: dict[str, Any] = {"event_name": LABELS[event], "hooks": [normalised]}
    if matcher is not None and event not in NO_MATCHER:
        identity["matcher"] = matcher
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def our_entries(hooks_path: str, settings: dict[str, Any], host: str) -> dict[str, str]:
    """``{state key: hash}`` for each of our command handlers in a hooks.json object."""
    found: dict[str, str] = {}
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return found
    for event, groups in hooks.items():
        if event not in LABELS or not isinstance(groups, list):
            continue
        for g, group in enumerate(groups):
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                continue
            matcher = group.get("matcher") if isinstance(group.get("matcher"), str) else None
            for h, handler in enumerate(group["hooks"]):
                if (
                    isinstance(handler, dict)
                    and handler.get("type") == "command"
                    and hookentries.is_ours(handler.get("command"), host)
                ):
                    key = f"{hooks_path}:{LABELS[event]}:{g}:{h}"
                    found[key] = handler_hash(event, matcher, handler)
    return found


def begin_marker(hooks_path: str) -> str:
    return f"{BEGIN_PREFIX}{hooks_path} (removed by: agentreflex uninstall codex)"


def strip_block(text: str, hooks_path: str) -> str:
    """``text`` without our trust block for ``hooks_path`` (and the blank line before it)."""
    begin = begin_marker(hooks_path)
    text = text.replace("\n\n" + begin, "\n" + begin)
    out: list[str] = []
    inside = False
    for line in text.splitlines(keepends=True):
        bare = line.rstrip("\r\n")
        if bare == begin:
            inside = True
        elif inside and bare == END:
            inside = False
        elif not inside:
            out.append(line)
    return "".join(out)


def states(text: str) -> dict[str, Any]:
    """``hooks.state`` of a config.toml text (``{}`` when absent or unreadable)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return {}
    hooks = data.get("hooks")
    state = hooks.get("state") if isinstance(hooks, dict) else None
    return state if isinstance(state, dict) else {}


def with_trust(text: str, hooks_path: str, entries: dict[str, str]) -> tuple[str, list[str]]:
    """``text`` with our block trusting ``entries``; also the keys left to ``/hooks``.

    Raises ``ValueError`` when the edited file would not be valid TOML or would
    not hold the entries (then nothing should be written: ``/hooks`` instead).
    """
    base = strip_block(text, hooks_path)
    try:
        tomllib.loads(base)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"is not valid TOML ({exc})") from exc
    existing = states(base)
    left = [k for k, v in entries.items() if k in existing and not _trusts(existing[k], v)]
    wanted = {k: v for k, v in entries.items() if k not in existing}
    if not wanted:
        return base, left
    lines = [begin_marker(hooks_path)]
    for key, digest in sorted(wanted.items()):
        lines += [f"[hooks.state.{json.dumps(key)}]", f"trusted_hash = {json.dumps(digest)}"]
    lines.append(END)
    if base and not base.endswith("\n"):
        base += "\n"
    after = base + ("\n" if base.strip() else "") + "\n".join(lines) + "\n"
    try:
        got = states(after) if tomllib.loads(after) else {}
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"would not stay valid TOML ({exc})") from exc
    if any(not _trusts(got.get(k), v) for k, v in wanted.items()):
        raise ValueError("would not hold the trust entries")
    return after, left


def _trusts(state: Any, digest: str) -> bool:
    return (
        isinstance(state, dict)
        and state.get("trusted_hash") == digest
        and state.get("enabled") is not False
    )


def status(key: str, digest: str, state_table: dict[str, Any]) -> str:
    """What Codex will do with one hook: trusted, untrusted, modified or disabled."""
    state = state_table.get(key)
    if not isinstance(state, dict):
        return "untrusted"
    if state.get("enabled") is False:
        return "disabled"
    recorded = state.get("trusted_hash")
    if recorded is None:
        return "untrusted"
    return "trusted" if recorded == digest else "modified"


def user_config(codex_home: str) -> str:
    return os.path.join(codex_home, "config.toml")
