"""Finding the installed reflex, judge and command plug-ins (entry points).

``importlib.metadata`` costs several milliseconds to import and scan, on
every hook call.  The scan result is cached in the user's cache dir, keyed by
the interpreter and the modification times of the ``sys.path`` directories
(installing or removing a distribution touches its site-packages directory),
so a warm hook call reads one small JSON file instead.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import os
import sys
from typing import Any

GROUPS = (
    "agentreflex.reflexes",
    "agentreflex.judges",
    "agentreflex.commands",
    "agentreflex.status",
)
CACHE_VERSION = 1


def _cache_path() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    tag = hashlib.sha256(sys.executable.encode()).hexdigest()[:12]
    return os.path.join(base, "agentreflex", f"entry-points-{tag}.json")


def _path_key() -> list[Any]:
    # sys.path[0] is the script's directory or the cwd: it differs between the hook
    # script, `python -m` and the daemon, and would make the cache miss every time.
    key: list[Any] = [CACHE_VERSION, sys.executable]
    for entry in sys.path[1:]:
        with contextlib.suppress(OSError):
            if entry and os.path.isdir(entry):
                key.append([entry, os.stat(entry).st_mtime_ns])
    return key


def _scan() -> dict[str, list[list[str]]]:
    from importlib.metadata import entry_points

    found: dict[str, list[list[str]]] = {}
    for group in GROUPS:
        seen: dict[str, str] = {}
        for ep in entry_points(group=group):
            seen.setdefault(ep.name, ep.value)
        found[group] = sorted([name, value] for name, value in seen.items())
    return found


_MEMO: dict[str, list[list[str]]] | None = None


def entry_point_table() -> dict[str, list[list[str]]]:
    """{group: [[name, "module:attr"], ...]} for every agentreflex group."""
    global _MEMO
    if _MEMO is not None:
        return _MEMO
    path = _cache_path()
    key = _path_key()
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
        if data["key"] == key:
            _MEMO = data["groups"]
            return _MEMO
    table = _scan()
    with contextlib.suppress(OSError):
        from agentreflex.core.fsutil import atomic_write_json

        atomic_write_json(path, {"key": key, "groups": table})
    _MEMO = table
    return table


def clear_memo() -> None:
    global _MEMO
    _MEMO = None


def load_object(spec: str) -> Any:
    """Import ``module:attr``."""
    module_name, _, attr = spec.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split(".") if attr else []:
        obj = getattr(obj, part)
    return obj


def entries(group: str) -> list[tuple[str, str]]:
    return [(name, value) for name, value in entry_point_table().get(group, [])]
