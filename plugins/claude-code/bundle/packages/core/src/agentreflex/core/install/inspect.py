"""``doctor``'s view of each host: wired or not and where, which binary the hooks
call and whether it exists, the last hook seen and its latency, and what to do.

The last hook is read from the project's session snapshots (each records its
host, the time of its last event and the latency of recent hook calls), so
the hot path pays nothing extra for it.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from typing import Any

from agentreflex.core.install import hookentries
from agentreflex.core.install.base import HostInstaller, HostView, SettingsFile
from agentreflex.core.install.command import installers
from agentreflex.core.install.launcher import programs, unisolated, writable_by_commands
from agentreflex.core.install.settingsfile import InstallError, parse_json_object, read_text


def last_hooks(state_dir: str) -> dict[str, tuple[float, float | None]]:
    """For each host: (time of its last hook in this project, that session's last latency)."""
    from agentreflex.core.state.store import list_sessions

    seen: dict[str, tuple[float, float | None]] = {}
    for path in list_sessions(state_dir)[:50]:
        try:
            with open(path, encoding="utf-8") as fh:
                state = json.load(fh)["state"]
            host = str(state.get("host", ""))
            when = float(state.get("counters", {}).get("last_event_at") or 0)
            latencies = state.get("notes", {}).get("latency_ms") or [None]
            latency = None if latencies[-1] is None else float(latencies[-1])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue
        if host and when > seen.get(host, (0.0, None))[0]:
            seen[host] = (when, latency)
    return seen


def _binary_state(commands: list[str]) -> tuple[bool, str]:
    binaries = sorted({program for c in commands for program in programs(c)})
    broken = [b for b in binaries if not (os.path.isfile(b) and os.access(b, os.X_OK))]
    text = ", ".join(f"{b} ({'MISSING' if b in broken else 'ok'})" for b in binaries)
    return not broken, text


def host_check(
    host: str,
    project: str,
    state_dir: str,
    env: Mapping[str, str],
    installer: HostInstaller | None = None,
) -> dict[str, Any]:
    """One host's line in ``doctor``: what every host shares, then what its installer adds."""
    installer = installer or installers()[host]
    view = HostView(project, env)
    for path in installer.locations(project, env):
        try:
            # a host that reads its settings with comments (Gemini CLI) is read as it does
            jsonc = bool(getattr(installer, "comments", False))
            settings = parse_json_object(path, read_text(path), comments=jsonc)
        except InstallError as exc:
            view.details.append(str(exc).replace("; nothing was written", ""))
            view.problem(f"fix {path} by hand")
            continue
        custom = getattr(installer, "ours", None)  # a settings shape of the host's own
        found = custom(settings) if custom else hookentries.ours(settings, host)
        if found:
            missing = sorted(set(getattr(installer, "expected_events", ())) - set(found))
            view.wired.append(f"{path} ({len(found)} events)")
            view.commands.extend(c for cs in found.values() for c in cs)
            if missing:
                view.problem(f"{path} lacks {', '.join(missing)}: run `agentreflex install {host}`")
            if any(unisolated(c) for cs in found.values() for c in cs):
                view.problem(
                    f"{path}: the hooks start agentreflex's Python without -E -P, so a "
                    f"PYTHONPATH into the project would run code there: run "
                    f"`agentreflex install {host}` again"
                )
        inspect_file = getattr(installer, "inspect_file", None)
        if inspect_file is not None:
            inspect_file(SettingsFile(path, settings, bool(found)), view)
    inspect_host = getattr(installer, "inspect_host", None)
    if inspect_host is not None:
        inspect_host(view)
    detail = "; ".join(_detail(host, view, state_dir))  # may add a problem: before ok
    return {"check": f"host {host}", "ok": view.ok, "detail": detail}


def _detail(host: str, view: HostView, state_dir: str) -> list[str]:
    details = list(view.details)
    if not view.wired:
        details.insert(0, f"not wired (run `agentreflex install {host}` to wire it)")
    else:
        details.insert(0, "wired: " + "; ".join(view.wired))
    if view.commands:
        good, text = _binary_state(view.commands)
        details.append(f"hooks call {text}")
        if not good:
            view.problem(
                f"the hooks call a missing agentreflex: run `agentreflex install {host}` "
                "again from a working installation"
            )
        started = sorted({p for c in view.commands for p in programs(c)})
        for program in writable_by_commands(started, view.project):
            view.problem(
                f"{program} can be rewritten by the agent's contained commands, and the "
                f"hooks run it outside any boundary: install agentreflex outside the "
                f"project and run `agentreflex install {host} --bin` with it"
            )
    details.extend(view.notes)
    if view.sandboxed:
        details.append(
            "OS sandbox keeps agentreflex's files read-only (" + ", ".join(view.sandboxed) + ")"
        )
    last = last_hooks(state_dir).get(host)
    if last:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(last[0]))
        latency = "latency unmeasured" if last[1] is None else f"{last[1]:.1f} ms"
        details.append(f"last hook here {when} ({latency})")
    elif view.wired:
        details.append("no hook seen in this project yet")
    if view.fixes:
        details.append("to fix: " + "; ".join(view.fixes))
    return details


def host_checks(
    project: str, state_dir: str, env: Mapping[str, str] | None = None
) -> list[dict[str, Any]]:
    values = os.environ if env is None else env
    return [host_check(h, project, state_dir, values, i) for h, i in installers().items()]
