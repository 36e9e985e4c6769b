"""What ``install`` added to a settings file besides hook handlers, so that
``uninstall`` can take exactly that back out.

Hook handlers are recognised by their command; a sandbox flag or a deny rule
is not (the user may have set the same value).  So each value install sets
and each list item it adds is recorded, with what was there before, in
``installs.json`` in the user's state dir (outside any project, beside the
trust record).  Uninstall restores a value only while it still holds what
install put there, and removes only the items install added.
"""

from __future__ import annotations

import json
import os
from typing import Any

from agentreflex.core.install.settingsfile import InstallError
from agentreflex.core.state import userdirs
from agentreflex.core.util.fsutil import atomic_write_json, locked

Record = dict[str, Any]


def manifest_path() -> str:
    return os.path.join(userdirs.user_state_dir(), "installs.json")


def _load() -> dict[str, list[Record]]:
    try:
        with open(manifest_path(), encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def records_for(settings_path: str) -> list[Record]:
    found = _load().get(os.path.realpath(settings_path), [])
    return [r for r in found if isinstance(r, dict)] if isinstance(found, list) else []


def save(settings_path: str, records: list[Record]) -> None:
    """Replace the records kept for ``settings_path`` (none: forget the file)."""
    path = manifest_path()
    with locked(path):
        data = _load()
        key = os.path.realpath(settings_path)
        if records:
            data[key] = records
        else:
            data.pop(key, None)
        atomic_write_json(path, data)


def _parent(obj: dict[str, Any], keys: list[str], created: list[list[str]]) -> dict[str, Any]:
    node = obj
    for i, key in enumerate(keys):
        child = node.get(key)
        if child is None:
            child = node[key] = {}
            created.append(keys[: i + 1])
        elif not isinstance(child, dict):
            raise InstallError(f'"{".".join(keys[: i + 1])}" is not an object; nothing was written')
        node = child
    return node


def set_value(obj: dict[str, Any], keys: list[str], value: Any, log: list[Record]) -> None:
    """Set ``obj[k1][k2]...`` to ``value``, recording the change (no-op when already so)."""
    created: list[list[str]] = []
    parent = _parent(obj, keys[:-1], created)
    had = keys[-1] in parent
    if had and parent[keys[-1]] == value:
        return
    log.append(
        {
            "keys": keys,
            "had": had,
            "before": parent.get(keys[-1]),
            "after": value,
            "created": created,
        }
    )
    parent[keys[-1]] = value


def add_items(obj: dict[str, Any], keys: list[str], items: list[Any], log: list[Record]) -> None:
    """Append the ``items`` not yet in the list at ``keys``, recording which were added."""
    created: list[list[str]] = []
    parent = _parent(obj, keys[:-1], created)
    had = keys[-1] in parent
    current = parent.get(keys[-1], [])
    if not isinstance(current, list):
        raise InstallError(f'"{".".join(keys)}" is not a list; nothing was written')
    new = [item for item in dict.fromkeys(items) if item not in current]
    if not new:  # nothing to add: the objects made on the way go too (no "filesystem": {})
        _prune(obj, created)
        return
    parent[keys[-1]] = [*current, *new]
    log.append({"keys": keys, "had": had, "added": new, "created": created})


def _get_parent(obj: dict[str, Any], keys: list[str]) -> dict[str, Any] | None:
    node: Any = obj
    for key in keys:
        node = node.get(key) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else None


def _prune(obj: dict[str, Any], created: list[list[str]]) -> None:
    for keys in sorted(created, key=len, reverse=True):
        parent = _get_parent(obj, keys[:-1])
        if parent is not None and parent.get(keys[-1]) == {}:
            del parent[keys[-1]]


def undo(obj: dict[str, Any], log: list[Record]) -> None:
    """Take back, newest first, what ``log`` says install added (when still there)."""
    for rec in reversed(log):
        keys = [str(k) for k in rec.get("keys", [])]
        parent = _get_parent(obj, keys[:-1]) if keys else None
        if parent is None or keys[-1] not in parent:
            continue
        if "added" in rec:
            current = parent[keys[-1]]
            if isinstance(current, list):
                added = rec["added"]
                left = [item for item in current if item not in added]
                if left or rec.get("had"):
                    parent[keys[-1]] = left
                else:
                    del parent[keys[-1]]
        elif parent[keys[-1]] == rec.get("after"):
            if rec.get("had"):
                parent[keys[-1]] = rec.get("before")
            else:
                del parent[keys[-1]]
        _prune(obj, rec.get("created") or [])
