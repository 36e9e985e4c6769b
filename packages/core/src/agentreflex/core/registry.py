"""Finding the installed plug-ins: each package's one declaration (entry points).

Each package exports one :class:`agentreflex.core.plugin.Plugin` under the
``agentreflex.plugins`` group.  The scan reads every declaration and flattens
it into a table of plain data: its reflexes (``agentreflex.reflexes``, with
their places in ``agentreflex.order``), commands, status and judge specs, and
the config sections it owns (``agentreflex.sections``).  Callers read that
table by group and never import a package to learn what it adds.

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

from agentreflex.core.util import fastjson
from agentreflex.core.util.digest import sha256_hex

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agentreflex.core.plugin import Plugin, Section

PLUGINS = "agentreflex.plugins"
REFLEXES = "agentreflex.reflexes"
ORDER = "agentreflex.order"  # [[reflex name, order]]
EVENTS = "agentreflex.events"  # [[reflex name, [event kind values]]], when declared
SECTIONS = "agentreflex.sections"  # [[config section key, plugin name]]
CHECKED = "agentreflex.checked"  # [[config section key, declaration spec]]: core validates these
ENV = "agentreflex.env"  # [[environment variable, checked section key]]: a setting's override
STATUSLINE = "agentreflex.statusline"  # [[plugin name, "module:function"]]
SELF_TESTS = "agentreflex.self-tests"  # [[plugin name, command its reflexes must stop]]
FILES = "agentreflex.files"  # [[policy file kind, plugin name]]
UNDOABLE = "agentreflex.undoable"  # [[finding code, [its package's reflex names]]]: discards a snapshot undoes
LOCAL_JUDGES = "agentreflex.local-judges"  # [[plugin name, subcommand words serving a judge]]
# [[reflex name, plugin name]]: stops refused while the session history is lost
NEEDS_HISTORY = "agentreflex.needs-history"
REPORTS = "agentreflex.reports"  # [[plugin name, "module:function"]]: its section of the report
RECAPS = "agentreflex.recaps"  # [[plugin name, "module:function"]]: its parts of the session recap
ERRORS = "agentreflex.errors"  # [[plugin name, why its declaration could not be read]]
CACHE_VERSION = 11


def _cache_path(kind: str = "entry-points") -> str:
    from agentreflex.core.state.userdirs import user_cache_dir

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


def _scan() -> dict[str, list[list[Any]]]:
    from importlib.metadata import entry_points

    seen: dict[str, str] = {}
    for ep in entry_points(group=PLUGINS):
        seen.setdefault(ep.name, ep.value)
    return flatten(sorted(seen.items()))


def flatten(declared: list[tuple[str, str]]) -> dict[str, list[list[Any]]]:
    """The table of every declaration in ``declared`` ([(plugin name, spec)]).

    A declaration that cannot be read is listed under :data:`ERRORS` and as a
    reflex under its own spec, so loading it fails and is reported the way a
    broken reflex is (before a tool call: failing closed).
    """
    table: dict[str, list[list[Any]]] = {
        PLUGINS: [],
        REFLEXES: [],
        ORDER: [],
        EVENTS: [],
        "agentreflex.commands": [],
        "agentreflex.status": [],
        "agentreflex.judges": [],
        SECTIONS: [],
        CHECKED: [],
        ENV: [],
        STATUSLINE: [],
        SELF_TESTS: [],
        FILES: [],
        UNDOABLE: [],
        LOCAL_JUDGES: [],
        NEEDS_HISTORY: [],
        REPORTS: [],
        RECAPS: [],
        ERRORS: [],
    }
    for name, spec in declared:
        table[PLUGINS].append([name, spec])
        try:
            plugin = load_declaration(spec)
        except Exception as exc:  # a broken declaration is reported, never fatal
            table[ERRORS].append([name, f"{type(exc).__name__}: {exc}"])
            table[REFLEXES].append([name, spec])
            continue
        for reflex in plugin.reflexes:
            table[REFLEXES].append([reflex.name, reflex.spec])
            table[ORDER].append([reflex.name, reflex.order])
            if reflex.events:
                table[EVENTS].append([reflex.name, sorted(reflex.events)])
            if reflex.needs_history:
                table[NEEDS_HISTORY].append([reflex.name, plugin.name])
        table["agentreflex.commands"].extend([c.name, c.spec] for c in plugin.commands)
        if plugin.status:
            table["agentreflex.status"].append([plugin.name, plugin.status])
        if plugin.judge:
            table["agentreflex.judges"].append([plugin.name, plugin.judge])
        table[SECTIONS].extend([section.key, plugin.name] for section in plugin.sections)
        for section in plugin.sections:
            if section.checked:
                table[CHECKED].append([section.key, spec])
                table[ENV].extend([s.env, section.key] for _key, s in section.each() if s.env)
        if plugin.statusline:
            table[STATUSLINE].append([plugin.name, plugin.statusline])
        if plugin.self_test:
            table[SELF_TESTS].append([plugin.name, plugin.self_test])
        table[FILES].extend([f.kind, plugin.name] for f in plugin.files)
        own = sorted(reflex.name for reflex in plugin.reflexes)
        table[UNDOABLE].extend([code, own] for code in plugin.undoable)
        if plugin.local_judge:
            table[LOCAL_JUDGES].append([plugin.name, plugin.local_judge])
        if plugin.report:
            table[REPORTS].append([plugin.name, plugin.report])
        if plugin.recap:
            table[RECAPS].append([plugin.name, plugin.recap])
    for rows in table.values():
        rows.sort(key=lambda row: (str(row[0]), str(row[1])))
    return table


def load_declaration(spec: str) -> Plugin:
    """The :class:`Plugin` at ``spec``, or TypeError naming what is there instead."""
    from agentreflex.core.plugin import Plugin

    plugin = load_object(spec)
    if not isinstance(plugin, Plugin):
        raise TypeError(f"{spec} is a {type(plugin).__name__}, not an agentreflex Plugin")
    return plugin


def declarations() -> list[Plugin]:
    """Every installed package's declaration that can be read (cold paths: imports them)."""
    found = []
    for _name, spec in entries(PLUGINS):
        with contextlib.suppress(Exception):
            found.append(load_declaration(spec))
    return found


_MEMO: dict[str, list[list[Any]]] | None = None


def entry_point_table() -> dict[str, list[list[Any]]]:
    """{group: [[name, "module:attr"], ...]} for every group of the flattened declarations."""
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
    return refresh()


def refresh() -> dict[str, list[list[Any]]]:
    """Scan the installed declarations again and rewrite the cache.

    For a table found stale: an editable install can change a declaration
    without moving any folder the cache's key watches.
    """
    global _MEMO
    table = _scan()
    with contextlib.suppress(OSError):
        from agentreflex.core.util.fsutil import atomic_write_json

        atomic_write_json(_cache_path(), {"key": path_key(), "groups": table}, durable=False)
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


def entries(group: str) -> list[tuple[str, Any]]:
    return [(name, value) for name, value in entry_point_table().get(group, [])]


def config_sections() -> tuple[str, ...]:
    """The config sections the installed packages declare (the hook path: no import)."""
    return tuple(key for key, _plugin in entries(SECTIONS))


def checked_sections() -> tuple[str, ...]:
    """The sections core validates and compares setting by setting (the hook path: no import)."""
    return tuple(key for key, _plugin in entries(CHECKED))


def env_overrides() -> list[tuple[str, str]]:
    """``(variable, section key)`` for each checked setting an environment variable overrides."""
    return entries(ENV)


def checked_section(key: str) -> Section:
    """The declaration of checked section ``key``: imports only its package's declaration.

    A cached table that names a declaration which no longer has the section (or
    lacks one that now does) is stale: it is scanned again once.  KeyError when
    no installed package declares ``key`` as a checked section.
    """
    for fresh in (False, True):
        if fresh:
            refresh()
        spec = dict(entries(CHECKED)).get(key)
        if spec is None:
            continue
        for section in load_declaration(spec).sections:
            if section.key == key and section.checked:
                return section
    raise KeyError(f"no installed agentreflex package declares the checked section [{key}]")


def history_reflexes() -> tuple[str, ...]:
    """The reflexes whose stop question needs the session history (the hook path: no import)."""
    return tuple(name for name, _plugin in entries(NEEDS_HISTORY))


def undoable_codes() -> dict[str, frozenset[str]]:
    """{finding code: the reflexes that may raise it} for the codes packages declare undoable.

    A code counts only from a reflex of the package that declared it, so
    another package's finding cannot borrow the gate's codes to be relaxed.
    The hook path: read from the flattened table, no import.
    """
    return {code: frozenset(map(str, reflexes)) for code, reflexes in entries(UNDOABLE)}


def reflexes_for_pre_tool() -> tuple[list[tuple[str, str]], dict[str, Any], dict[str, Any]]:
    """The reflex entries, places and declared events, agentreflex's own read from their metadata.

    Why: the cached table is a file in the user's cache directory; a copy with
    the gate left out must not switch the safety floors off.  Before a tool
    call, the declarations that the installed ``agentreflex*`` distributions
    name (their ``entry_points.txt``, a few small files; each declaration is
    a small stdlib-only module) are read and their reflexes added to the
    table's, so a forged or stale table can add reflexes but never drop or
    reorder one of ours, nor change which events it is imported for.  (Other plug-ins still come from the table, which is
    rebuilt whenever a ``sys.path`` directory changes.)
    """
    own = flatten(sorted(_declared_plugins().items()))
    ours = {name for name, _spec in own[REFLEXES]}
    table = dict(entries(REFLEXES))
    table.update((name, spec) for name, spec in own[REFLEXES])
    order = dict(entries(ORDER))
    order.update((name, place) for name, place in own[ORDER])
    # our reflexes' events come from their declarations only: none = import it
    events = {name: kinds for name, kinds in entries(EVENTS) if name not in ours}
    events.update((name, kinds) for name, kinds in own[EVENTS])
    return sorted(table.items()), order, events


def _declared_plugins() -> dict[str, str]:
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
                found.update(_plugin_section(os.path.join(entry, name, "entry_points.txt")))
    return found


def _plugin_section(path: str) -> dict[str, str]:
    """``name = module:attr`` lines of the ``[agentreflex.plugins]`` section of one file."""
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
    header = f"[{PLUGINS}]"
    if header.encode() not in data:
        return {}
    found: dict[str, str] = {}
    inside = False
    for line in data.decode("utf-8", "replace").splitlines():
        line = line.strip()
        if line.startswith("["):
            inside = line == header
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
    from agentreflex.core.util.fsutil import mtime_ns

    return isinstance(entry.get("file"), str) and mtime_ns(entry["file"]) == entry.get("mtime")


def record_reflex_meta(meta: dict[str, dict[str, Any]]) -> None:
    with contextlib.suppress(OSError):
        from agentreflex.core.util.fsutil import atomic_write_json

        atomic_write_json(
            _cache_path("reflex-meta"), {"key": _meta_key(), "reflexes": meta}, durable=False
        )


def describe(spec: str, reflex: Any) -> dict[str, Any] | None:
    """What to remember of a freshly imported reflex (None if its file is unknown)."""
    module = sys.modules.get(spec.partition(":")[0])
    path = getattr(module, "__file__", None)
    if not path:
        return None
    from agentreflex.core.util.fsutil import mtime_ns

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
