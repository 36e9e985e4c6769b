"""The user's approvals of project configuration files (``agentreflex trust``).

Why: the agent runs as the user and writes the project, so a project's
``.agentreflex/config.toml`` is not a trusted source of policy.  It may
tighten protection freely; whatever it weakens applies only once the user has
approved that exact content, the way direnv's ``allow`` and git's
``safe.directory`` work.  An approval is keyed by the file's absolute real
path and the SHA-256 of its exact bytes, and kept outside every project, in
the user's state dir (``userdirs.trust_record_path()``, the directory 0700,
the file 0600).  A copy of each approved content is kept beside it
(``approved/<sha256>.toml``) so the approved settings can be rebuilt after the
file changes: until the new content is approved, the stricter of the two
applies (see ``config.load_config``).

Fail safe: a record that is missing, unreadable or corrupt means nothing is
approved (with a diagnostic saying why), never a crash; writing one entry
never loses the others (read-modify-write under ``fsutil.locked``, written
with ``fsutil.atomic_write_json``).

Hot path: read only when a project file would weaken something; stdlib and
core's toolkit only.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Mapping

from agentreflex.core.state.userdirs import trust_record_path, user_state_dir
from agentreflex.core.util import fastjson
from agentreflex.core.util.digest import sha256_hex
from agentreflex.core.util.record import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "Approval",
    "ContentChanged",
    "Lookup",
    "approve",
    "approved_copy_path",
    "config_key",
    "list_approvals",
    "lookup",
    "read_record",
    "revoke",
]

VERSION = 1
COPIES = "approved"  # folder beside the record holding the approved contents


@record
class Approval:
    """One approved content of one configuration file."""

    path: str  # the file's absolute real path (the record's key)
    sha256: str  # of the exact bytes approved
    approved_at: float = 0.0


@record
class Lookup:
    """What the trust record says about one file's current content.

    ``approved``: these exact bytes were approved.  ``previous``: the bytes of
    the last approved content of this path (checked against its hash), when
    the current content is not the approved one.  ``problem``: why the record
    or the copy could not be used (then nothing counts as approved).
    """

    approved: bool = False
    previous: bytes | None = None
    previous_sha256: str = ""
    problem: str = ""


def config_key(path: str) -> str:
    """The record's key for a file: its absolute real path (symlinks resolved)."""
    return os.path.realpath(os.path.abspath(path))


def approved_copy_path(sha256: str, env: Mapping[str, str] | None = None) -> str:
    return os.path.join(user_state_dir(env), COPIES, f"{sha256}.toml")


def _is_sha(text: object) -> bool:
    return isinstance(text, str) and len(text) == 64 and all(c in "0123456789abcdef" for c in text)


def read_record(env: Mapping[str, str] | None = None) -> tuple[dict[str, Approval], str]:
    """Every approval in the record, and a problem ("" when none).

    A missing record is no approval and no problem; an unreadable or corrupt
    one is no approval and a problem naming the file (never an exception).
    Malformed entries are dropped one by one, said so in the problem.
    """
    path = trust_record_path(env)
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except FileNotFoundError:
        return {}, ""
    except OSError as exc:
        return {}, f"trust record {path} is unreadable ({exc.strerror}): nothing counts as approved"
    try:
        data = fastjson.loads(raw)
    except (ValueError, RecursionError):
        return {}, f"trust record {path} is corrupt (not JSON): nothing counts as approved"
    if not isinstance(data, dict) or not isinstance(data.get("approvals"), dict):
        return (
            {},
            f"trust record {path} is corrupt (no approvals table): nothing counts as approved",
        )
    approvals: dict[str, Approval] = {}
    bad = 0
    for key, entry in data["approvals"].items():
        if not (isinstance(entry, dict) and _is_sha(entry.get("sha256")) and os.path.isabs(key)):
            bad += 1
            continue
        when = entry.get("approved_at")
        stamp = float(when) if isinstance(when, (int, float)) and not isinstance(when, bool) else 0
        approvals[key] = Approval(path=key, sha256=entry["sha256"], approved_at=stamp)
    problem = f"trust record {path}: {bad} malformed entries ignored" if bad else ""
    return approvals, problem


def lookup(path: str, raw: bytes, env: Mapping[str, str] | None = None) -> Lookup:
    """Whether ``raw`` (the current bytes of ``path``) is approved, and the last approved bytes."""
    approvals, problem = read_record(env)
    entry = approvals.get(config_key(path))
    if entry is None:
        return Lookup(problem=problem)
    if entry.sha256 == sha256_hex(raw):
        return Lookup(approved=True, problem=problem)
    copy = approved_copy_path(entry.sha256, env)
    try:
        with open(copy, "rb") as fh:
            previous = fh.read()
    except OSError as exc:
        why = f"the approved copy {copy} is unreadable ({exc.strerror})"
        return Lookup(problem=_join(problem, why))
    if sha256_hex(previous) != entry.sha256:
        why = f"the approved copy {copy} does not match its recorded hash"
        return Lookup(problem=_join(problem, why))
    return Lookup(previous=previous, previous_sha256=entry.sha256, problem=problem)


def _join(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


def _private_dir(path: str) -> None:
    from agentreflex.core.util.fsutil import private_dirs, tighten

    private_dirs(path)
    tighten(path, 0o700)


def _raw_table(path: str) -> dict[str, Any] | None:
    """The record's approvals table as stored (malformed entries kept), or None if corrupt."""
    try:
        with open(path, "rb") as fh:
            data = fastjson.loads(fh.read())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("approvals"), dict):
        return None
    return dict(data["approvals"])


def _update(env: Mapping[str, str] | None, change: Any) -> Any:
    """Read-modify-write the record under its lock.

    Only the entry being changed is touched: every other entry, even one this
    version cannot read, is written back as it was.  A corrupt record is moved
    aside (``trust.json.corrupt-<time>``) for the user to look at, not lost.
    """
    from agentreflex.core.util.fsutil import atomic_write_json, locked

    path = trust_record_path(env)
    _private_dir(os.path.dirname(path))
    with locked(path):
        table = _raw_table(path)
        if table is None:
            with contextlib.suppress(OSError):
                os.replace(path, f"{path}.corrupt-{int(time.time())}")
            table = {}
        result = change(table)
        atomic_write_json(path, {"version": VERSION, "approvals": table})
    return result


class ContentChanged(Exception):
    """The file is no longer the content the user was shown."""


def approve(path: str, env: Mapping[str, str] | None = None, expected_sha256: str = "") -> Approval:
    """Approve the current exact content of ``path``; keep a copy of it.

    ``expected_sha256``: the hash of the content the user was shown; a file
    changed since (by an agent racing the user) is not approved
    (:class:`ContentChanged`).  Raises ``OSError`` when the file cannot be
    read or the record written.
    """
    from agentreflex.core.util.fsutil import atomic_write_bytes

    key = config_key(path)
    with open(key, "rb") as fh:
        raw = fh.read()
    sha = sha256_hex(raw)
    if expected_sha256 and sha != expected_sha256:
        raise ContentChanged(f"{key} changed while it was being shown; nothing was approved")
    copy = approved_copy_path(sha, env)
    _private_dir(os.path.dirname(copy))
    atomic_write_bytes(copy, raw)
    approval = Approval(path=key, sha256=sha, approved_at=round(time.time(), 3))

    def change(table: dict[str, Any]) -> None:
        old = table.get(key)
        table[key] = {"sha256": sha, "approved_at": approval.approved_at}
        if isinstance(old, dict) and old.get("sha256") != sha:
            _drop_copy(old.get("sha256"), table, env)

    _update(env, change)
    return approval


def revoke(path: str, env: Mapping[str, str] | None = None) -> str | None:
    """Remove the approval of ``path`` (whatever its content); the removed hash, or None."""
    key = config_key(path)

    def change(table: dict[str, Any]) -> str | None:
        old = table.pop(key, None)
        if old is None:
            return None
        sha = old.get("sha256") if isinstance(old, dict) else None
        _drop_copy(sha, table, env)
        return sha if isinstance(sha, str) else ""

    removed: str | None = _update(env, change)
    return removed


def _drop_copy(sha: object, table: dict[str, Any], env: Mapping[str, str] | None) -> None:
    """Delete an approved copy no remaining approval refers to."""
    if not _is_sha(sha) or any(
        isinstance(e, dict) and e.get("sha256") == sha for e in table.values()
    ):
        return
    with contextlib.suppress(OSError):
        os.unlink(approved_copy_path(str(sha), env))


def list_approvals(env: Mapping[str, str] | None = None) -> tuple[list[Approval], str]:
    approvals, problem = read_record(env)
    return sorted(approvals.values(), key=lambda a: a.path), problem


def current_sha(path: str) -> str:
    """SHA-256 of the file's bytes now, or "" when it cannot be read."""
    try:
        with open(path, "rb") as fh:
            return sha256_hex(fh.read())
    except OSError:
        return ""
