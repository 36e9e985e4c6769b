"""Parsed rules kept between hook processes, sealed so a forged copy is never believed.

Why: without the daemon every tool call is a new process, and parsing a
repository's rule files there costs about ten milliseconds, mostly compiling
the patterns.  The rules (not the advice) of each file are kept in the user's
state folder, outside every project, keyed by the file's device, inode, size,
modification and change times (the change time cannot be set back by the
agent), and the whole cache file is sealed with the per-user key
(:class:`agentreflex.core.state.auth.FileSeal`, the seal of the guard's
ledger).  A cache file without a seal, with a seal that does not match, or
that does not parse is ignored and the files are parsed again: a forged or
damaged cache can cost time, never remove a rule.
"""

from __future__ import annotations

import contextlib
import os

from agentreflex.core.state.userdirs import user_state_dir
from agentreflex.core.util import fastjson
from agentreflex.core.util.digest import sha256_hex
from agentreflex.instructions.parse import Rule
from agentreflex.instructions.sources import Diagnostic

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agentreflex.core.state.auth import FileSeal

VERSION = 1
MAX_BYTES = 4 * 1024 * 1024
_FIELDS = (
    "file",
    "start",
    "end",
    "text",
    "kind",
    "scope",
    "globs",
    "action",
    "target",
    "command",
    "when",
)

Entry = tuple[list[int], list[Rule], list[Diagnostic]]


def cache_path(project: str) -> str:
    name = sha256_hex(os.path.realpath(project), 24) + ".json"
    return os.path.join(user_state_dir(), "instructions", name)


def _seal(path: str) -> FileSeal | None:
    try:
        from agentreflex.core.state.auth import FileSeal, load_key

        return FileSeal(load_key(), "instructions-cache", path)
    except (OSError, ValueError):
        return None


def load(project: str) -> dict[str, Entry]:
    """{file path: (key, rules, diagnostics)} from a sealed cache, or {} when in doubt."""
    path = cache_path(project)
    seal = _seal(path)
    if seal is None or not os.path.exists(seal.anchor_path):
        return {}  # no seal: written by something other than agentreflex
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except OSError:
        return {}
    if len(data) > MAX_BYTES or seal.problem(data):
        return {}
    try:
        raw = fastjson.loads(data)
        if raw.get("v") != VERSION:
            return {}
        return {str(k): _entry(v) for k, v in raw["files"].items()}
    except (ValueError, TypeError, KeyError, AttributeError):
        return {}


def _entry(v: dict[str, Any]) -> Entry:
    key = [int(k) for k in v["key"]]
    rules = [Rule(**{f: r[f] for f in _FIELDS}) for r in v["rules"]]
    for r in rules:
        if not isinstance(r.text, str) or not isinstance(r.start, int):
            raise TypeError("bad rule")
    diags = [Diagnostic(str(d[0]), str(d[1]), int(d[2])) for d in v["diags"]]
    return key, rules, diags


def store(project: str, entries: dict[str, Entry]) -> None:
    """Write and seal the cache (best effort: a cache that cannot be written is skipped)."""
    files = {
        p: {
            "key": key,
            "rules": [{f: getattr(r, f) for f in _FIELDS} for r in rules],
            "diags": [[d.file, d.message, d.line] for d in diags],
        }
        for p, (key, rules, diags) in entries.items()
    }
    data = fastjson.dump_state({"v": VERSION, "files": files}).encode()
    if len(data) > MAX_BYTES:
        return
    path = cache_path(project)
    seal = _seal(path)
    if seal is None:
        return
    with contextlib.suppress(OSError):
        from agentreflex.core.util.fsutil import atomic_write_bytes

        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        atomic_write_bytes(path, data, durable=False)
        seal.write(data)
