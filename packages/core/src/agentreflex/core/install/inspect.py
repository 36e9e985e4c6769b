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
from agentreflex.core.install.base import HostInstaller
from agentreflex.core.install.claude_code import EVENTS as CLAUDE_EVENTS
from agentreflex.core.install.codex import codex_home
from agentreflex.core.install.codex_sandbox import BEGIN
from agentreflex.core.install.codex_trust import our_entries, states, status, user_config
from agentreflex.core.install.command import installers
from agentreflex.core.install.copilot import folder_trust as copilot_trust
from agentreflex.core.install.gemini import folder_trust
from agentreflex.core.install.sandbox import missing_tools
from agentreflex.core.install.settingsfile import InstallError, parse_json_object, read_text

EXPECTED = {"claude-code": set(CLAUDE_EVENTS)}


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


def _plugin_enabled(settings: dict[str, Any]) -> bool:
    plugins = settings.get("enabledPlugins")
    return isinstance(plugins, dict) and any(
        str(k).startswith("agentreflex@") and v is True for k, v in plugins.items()
    )


def _sandboxed(settings: dict[str, Any]) -> bool:
    sandbox = settings.get("sandbox")
    return isinstance(sandbox, dict) and sandbox.get("enabled") is True


def _codex_profiles(hook_files: list[str]) -> list[str]:
    found = []
    for hooks in hook_files:
        toml = os.path.join(os.path.dirname(hooks), "config.toml")
        text = read_text(toml) if os.path.isfile(toml) else None
        if text and BEGIN in text:
            found.append(toml)
    return found


def project_trusted(folder: str, config: str) -> bool:
    """Codex loads a project's ``.codex/`` only under a ``trust_level = "trusted"`` entry."""
    import tomllib

    try:
        projects = tomllib.loads(read_text(config) or "").get("projects")
    except tomllib.TOMLDecodeError:
        return False
    if not isinstance(projects, dict):
        return False
    best = ""
    for key, entry in projects.items():
        inside = folder == key or folder.startswith(key.rstrip("/") + "/")
        if inside and len(key) > len(best) and isinstance(entry, dict):
            best = key
    return bool(best) and projects[best].get("trust_level") == "trusted"


def codex_trust(path: str, settings: dict[str, Any], env: Mapping[str, str]) -> tuple[bool, str]:
    """Whether Codex will run each of our hooks in ``path`` (it skips untrusted ones silently)."""
    config = user_config(codex_home(env))
    table = states(read_text(config) or "")
    by_status: dict[str, list[str]] = {}
    for key, digest in our_entries(path, settings, "codex").items():
        event = key.rsplit(":", 3)[1]
        by_status.setdefault(status(key, digest, table), []).append(event)
    bad = {s: e for s, e in by_status.items() if s != "trusted"}
    folder = os.path.dirname(os.path.dirname(path))
    if os.path.dirname(path) != codex_home(env) and not project_trusted(folder, config):
        return False, (
            f"Codex will NOT run them: {folder} is not a trusted project in {config}, so Codex "
            "ignores its .codex/ (trust it when codex asks, or run `codex exec --trust` there)"
        )
    if not bad:
        return True, f"Codex will run all {len(by_status.get('trusted', []))} (trusted in {config})"
    listed = "; ".join(f"{s.upper()}: {', '.join(sorted(e))}" for s, e in sorted(bad.items()))
    return False, f"Codex will NOT run some of them ({listed}; Codex skips them without a message)"


def _binary_state(commands: list[str]) -> tuple[bool, str]:
    binaries = sorted({hookentries.command_words(c)[0] for c in commands})
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
    installer = installer or installers()[host]
    ok = True
    wired: list[str] = []
    details: list[str] = []
    fixes: list[str] = []
    commands: list[str] = []
    sandboxed: list[str] = []
    for path in installer.locations(project, env):
        try:
            settings = parse_json_object(path, read_text(path))
        except InstallError as exc:
            ok = False
            details.append(str(exc).replace("; nothing was written", ""))
            fixes.append(f"fix {path} by hand")
            continue
        custom = getattr(installer, "ours", None)  # Copilot's flat hooks file
        found = custom(settings) if custom else hookentries.ours(settings, host)
        if found:
            events = sorted(found)
            missing = sorted(EXPECTED.get(host, set()) - set(found))
            wired.append(f"{path} ({len(events)} events)")
            commands.extend(c for cs in found.values() for c in cs)
            if missing:
                ok = False
                fixes.append(f"{path} lacks {', '.join(missing)}: run `agentreflex install {host}`")
            if host == "codex":
                trusted, text = codex_trust(path, settings, env)
                details.append(f"{path}: {text}")
                if not trusted:
                    ok = False
                    fixes.append(
                        "run `agentreflex install codex` again (it records the trust), "
                        "or approve agentreflex's hooks with /hooks in codex"
                    )
            if host == "copilot" and path.startswith(os.path.join(project, ".github") + os.sep):
                loads, text = copilot_trust(project, env)
                details.append(f"Copilot CLI {'loads' if loads else 'will NOT load'} them: {text}")
                if not loads:
                    ok = False
                    fixes.append("trust this folder when Copilot CLI asks, if you mean to")
            if host == "gemini":
                folder, text = folder_trust(project, env)
                verdict = {True: "will run them", False: "will NOT run them", None: "waits"}
                details.append(f"Gemini CLI {verdict[folder]} here: {text}")
                if folder is False:
                    ok = False
                    fixes.append("trust this folder in Gemini CLI (/permissions) if you mean to")
        if host in ("hermes", "opencode", "pi", "omp") and isinstance(settings.get("binary"), str):
            wired.append(f"the agentreflex plugin ({os.path.dirname(path)})")
            commands.append(settings["binary"])
        if host == "claude-code" and _plugin_enabled(settings):
            wired.append(f"the agentreflex plugin (enabled in {path})")
        if host == "claude-code" and _sandboxed(settings):
            sandboxed.append(path)
    if host == "codex":
        sandboxed.extend(_codex_profiles(installer.locations(project, env)))
    if not wired:
        details.insert(0, f"not wired (run `agentreflex install {host}` to wire it)")
    else:
        details.insert(0, "wired: " + "; ".join(wired))
    if commands:
        good, text = _binary_state(commands)
        details.append(f"hooks call {text}")
        if not good:
            ok = False
            fixes.append(
                f"the hooks call a missing agentreflex: run `agentreflex install {host}` "
                "again from a working installation"
            )
    if host == "hermes" and commands:
        details.append("Hermes loads it only while enabled (`hermes plugins list`)")
    if sandboxed:
        details.append(
            "OS sandbox keeps agentreflex's files read-only (" + ", ".join(sandboxed) + ")"
        )
        missing = missing_tools() if host == "claude-code" else []  # bwrap + socat: Claude Code
        if missing:
            ok = False
            fixes.append(
                f"the sandbox cannot start without {', '.join(missing)} "
                "(Debian/Ubuntu: sudo apt-get install bubblewrap socat)"
            )
    last = last_hooks(state_dir).get(host)
    if last:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(last[0]))
        latency = "latency unmeasured" if last[1] is None else f"{last[1]:.1f} ms"
        details.append(f"last hook here {when} ({latency})")
    elif wired:
        details.append("no hook seen in this project yet")
    if fixes:
        details.append("to fix: " + "; ".join(fixes))
    return {"check": f"host {host}", "ok": ok, "detail": "; ".join(details)}


def host_checks(
    project: str, state_dir: str, env: Mapping[str, str] | None = None
) -> list[dict[str, Any]]:
    values = os.environ if env is None else env
    return [host_check(h, project, state_dir, values, i) for h, i in installers().items()]
