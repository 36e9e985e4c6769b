"""Finding the installed reflex, judge and command plug-ins (entry points).

``importlib.metadata`` costs several milliseconds to import and scan, on
every hook call.  The scan result is cached in the user's cache dir, keyed by
the interpreter and the modification times of the ``sys.path`` directories
(installing or removing a distribution touches its site-packages directory),
so a warm hook call reads one small JSON file instead.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys

from agentreflex.core import fastjson
from agentreflex.core.digest import sha256_hex

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

GROUPS = (
    "agentreflex.reflexes",
    "agentreflex.judges",
    "agentreflex.commands",
    "agentreflex.status",
)
CACHE_VERSION = 1


def _cache_path(kind: str = "entry-points") -> str:
    from agentreflex.core.userdirs import user_cache_dir

    return os.path.join(user_cache_dir(), f"{kind}-{sha256_hex(sys.executable, 12)}.json")


def path_key() -> list[Any]:
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
    key = path_key()
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        with open(path, encoding="utf-8") as fh:
            data = fastjson.loads(fh.read())
        if data["key"] == key:
            _MEMO = data["groups"]
            return _MEMO
    table = _scan()
    with contextlib.suppress(OSError):
        from agentreflex.core.fsutil import atomic_write_json

        atomic_write_json(path, {"key": key, "groups": table}, durable=False)
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


def reflexes_for_pre_tool() -> list[tuple[str, str]]:
    """The reflex entry points, with agentreflex's own read from their metadata.

    Why: the cached table is a file in the user's cache directory; a copy with
    the gate left out must not switch the safety floors off.  Before a tool
    call, the reflexes that the installed ``agentreflex*`` distributions
    declare (their ``entry_points.txt``, a few small files) are added to the
    table's, so a forged or stale table can add reflexes but never drop one
    of ours.  (Other plug-ins still come from the table, which is rebuilt
    whenever a ``sys.path`` directory changes.)
    """
    table = dict(entries("agentreflex.reflexes"))
    table.update(_declared_reflexes())
    return sorted(table.items())


def _declared_reflexes() -> dict[str, str]:
    found: dict[str, str] = {}
    for entry in sys.path[1:]:
        if entry.startswith(sys.base_prefix) and "-packages" not in entry:
            continue  # the standard library: no distributions there
        try:
            names = os.listdir(entry)
        except OSError:
            continue
        for name in names:
            if name[:11].lower() == "agentreflex" and name.endswith(".dist-info"):
                found.update(_reflex_section(os.path.join(entry, name, "entry_points.txt")))
    return found


def _reflex_section(path: str) -> dict[str, str]:
    """``name = module:attr`` lines of the ``[agentreflex.reflexes]`` section of one file."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return {}
    try:
        data = os.read(fd, 1 << 16)
    except OSError:
        return {}
    finally:
        os.close(fd)
    if b"[agentreflex.reflexes]" not in data:
        return {}
    found: dict[str, str] = {}
    inside = False
    for line in data.decode("utf-8", "replace").splitlines():
        line = line.strip()
        if line.startswith("["):
            inside = line == "[agentreflex.reflexes]"
        elif inside and "=" in line:
            name, _, value = line.partition("=")
            found.setdefault(name.strip(), value.strip())
    return found


# --- which events each reflex handles, without importing it ---------------
#
# A hook process only needs the reflexes that handle its event: a Stop need
# not import the shell parser.  What each reflex handles is remembered from the
# last time it was imported, with the modification time of the file that
# defines it, so an edited or upgraded reflex is always imported again.


def _meta_key() -> list[Any]:
    return [CACHE_VERSION, path_key()]


def reflex_meta() -> dict[str, dict[str, Any]]:
    """{spec: {"file", "mtime", "events", "floor"}} as last recorded (may be empty)."""
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        with open(_cache_path("reflex-meta"), encoding="utf-8") as fh:
            data = fastjson.loads(fh.read())
        if data["key"] == _meta_key():
            meta: dict[str, dict[str, Any]] = data["reflexes"]
            return meta
    return {}


def still_current(entry: dict[str, Any]) -> bool:
    """Is the recorded file unchanged since its events were recorded?"""
    from agentreflex.core.fsutil import mtime_ns

    return isinstance(entry.get("file"), str) and mtime_ns(entry["file"]) == entry.get("mtime")


def record_reflex_meta(meta: dict[str, dict[str, Any]]) -> None:
    with contextlib.suppress(OSError):
        from agentreflex.core.fsutil import atomic_write_json

        atomic_write_json(
            _cache_path("reflex-meta"), {"key": _meta_key(), "reflexes": meta}, durable=False
        )


def describe(spec: str, reflex: Any) -> dict[str, Any] | None:
    """What to remember of a freshly imported reflex (None if its file is unknown)."""
    module = sys.modules.get(spec.partition(":")[0])
    path = getattr(module, "__file__", None)
    if not path:
        return None
    from agentreflex.core.fsutil import mtime_ns

    mtime = mtime_ns(path)
    if mtime < 0:
        return None
    events = sorted(getattr(e, "value", str(e)) for e in getattr(reflex, "events", ()))
    return {
        "file": path,
        "mtime": mtime,
        "events": events,
        "floor": bool(getattr(reflex, "floor", False)),
        "name": str(getattr(reflex, "name", "")),
    }
