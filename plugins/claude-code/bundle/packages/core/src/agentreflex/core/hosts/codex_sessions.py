"""Codex's rollout files: where they are, which the hook may trust, and a command's exit.

Codex's PostToolUse hands on a shell command's output alone, a plain string with
no exit status (seen in the real Codex 0.169), so a failing test run looked like
any other output and the third identical failing attempt was never a repeat.
Codex writes the status into the session's rollout before that hook runs (the
``event_msg`` ``item_completed`` record of the ``CommandExecution`` whose ``id``
is the hook's ``tool_use_id``, with ``exit_code``), in
``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl``.

Trust: the folder is Codex's, under the user's home, which a contained command
can't write; a path is read only when it resolves below that folder and is named
like a rollout.  A forged record could at most turn a success into a failure.
An ephemeral run (``codex exec --ephemeral``) writes no rollout and its hook
sends ``transcript_path: null``: the status then stays unknown, as before.
The Reasoning Guard reads the same files (``agentreflex.guard.codex_rollout``) and
takes the folder and the name rule from here.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

_ZST = ".zst"  # newer Codex may compress a rollout (zstd): the hook does not read those
_SUFFIXES = (".jsonl", ".jsonl" + _ZST)
# The record is written just before the hook runs: it is near the end of the file.
_TAIL = 1 << 20


def sessions_root(env: Mapping[str, str]) -> str:
    """The real path of Codex's sessions folder (``$CODEX_HOME/sessions``, ``~/.codex``)."""
    base = env.get("CODEX_HOME") or os.path.join(env.get("HOME") or "~", ".codex")
    return os.path.realpath(os.path.join(os.path.expanduser(base), "sessions"))


def rollout_name(name: str) -> bool:
    """A rollout file's name (plain or zstd-compressed)."""
    return name.startswith("rollout-") and name.endswith(_SUFFIXES)


def trusted_rollout(path: str, env: Mapping[str, str]) -> tuple[str, str]:
    """(real path, "") for a rollout below Codex's sessions folder, else ("", why not)."""
    from agentreflex.core.util.fsutil import inside

    real, root = os.path.realpath(path), sessions_root(env)
    if real == root or not inside(real, root):
        return "", "rollout path is outside the trusted sessions tree"
    if not rollout_name(os.path.basename(real)):
        return "", "rollout name is not rollout-*.jsonl"
    if not os.path.isfile(real):
        return "", "rollout is not a regular file"
    return real, ""


def command_exit_code(transcript_path: str, call_id: str, env: Mapping[str, str]) -> int | None:
    """The exit code Codex recorded for the command ``call_id``; None when unknown.

    Unknown is the safe answer (the result stays as the hook gave it): no path, an
    untrusted or compressed file, no record yet (a command still running), a
    record whose shape this Codex does not write."""
    if not transcript_path or not call_id:
        return None
    real, _ = trusted_rollout(transcript_path, env)
    if not real or real.endswith(_ZST):
        return None
    try:
        with open(real, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            handle.seek(max(0, size - _TAIL))
            tail = handle.read(_TAIL)
    except OSError:
        return None
    return _exit_in(tail, call_id)


def _exit_in(tail: bytes, call_id: str) -> int | None:
    """The last ``item_completed`` ``CommandExecution`` record for ``call_id`` in ``tail``."""
    from agentreflex.core.util import fastjson

    needle = call_id.encode("utf-8", "replace")
    for line in reversed(tail.splitlines()):
        if needle not in line or b"item_completed" not in line:
            continue
        try:
            record = fastjson.loads(line)
        except ValueError:
            continue
        payload = record.get("payload") if isinstance(record, dict) else None
        if not isinstance(payload, dict) or payload.get("type") != "item_completed":
            continue
        item = payload.get("item")
        if not isinstance(item, dict):
            continue
        if item.get("type") != "CommandExecution" or item.get("id") != call_id:
            continue
        code = item.get("exit_code")
        return code if isinstance(code, int) and not isinstance(code, bool) else None
    return None
