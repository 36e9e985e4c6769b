"""``agentreflex doctor``: what is installed and wired, and what is broken.

Silent no-ops are the failure users of other guards hate most (a hook that
cannot import its package and exits 0).  Doctor makes each state visible:
which reflex packages loaded, whether the configuration is valid, whether
the state dir is writable, whether a daemon is running, and a live self-test
of one destructive command through the real pipeline.
"""

from __future__ import annotations

import os
import sys
import tempfile
from typing import Any

from agentreflex.core import registry
from agentreflex.core.config import ConfigError, load_config


def diagnose(cwd: str) -> dict[str, Any]:
    from agentreflex.core.runtime import check_command, load_plugins

    checks: list[dict[str, Any]] = []

    def add(name: str, ok: bool, detail: str) -> None:
        checks.append({"check": name, "ok": ok, "detail": detail})

    add("interpreter", True, sys.executable)
    plugins = load_plugins(refresh=True)
    names = [r.name for r in plugins.reflexes]
    add(
        "reflexes",
        True,
        ", ".join(names)
        if names
        else "none installed: every hook answers ALLOW (install agentreflex-gate and friends)",
    )
    for err in plugins.errors:
        add("plugin load", False, err)
    try:
        config = load_config(cwd)
        add("judge", True, _judge_line([n for n, _ in plugins.judges], config))
        add(
            "config",
            True,
            f"mode {config.mode.value}, profile {config.profile}; files: "
            + (", ".join(config.sources) or "none (defaults)"),
        )
        try:
            os.makedirs(config.state_dir, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=config.state_dir):
                pass
            add("state dir", True, config.state_dir)
        except OSError as exc:
            add("state dir", False, f"{config.state_dir}: {exc.strerror}")
    except ConfigError as exc:
        add("config", False, str(exc))
    if names:
        decision, _ = check_command("rm -rf ~/", cwd)
        add(
            "self-test",
            decision.proposed.value in ("BLOCK", "ASK_USER"),
            f"`rm -rf ~/` -> {decision.proposed.value}",
        )
    from agentreflex.core import daemon
    from agentreflex.core.client import socket_path

    pid = daemon.is_running()
    add(
        "daemon",
        True,
        f"running (pid {pid})"
        if pid
        else f"not running (hooks evaluate in-process; `agentreflex serve --detach` on {socket_path()})",
    )
    commands = [n for n, _ in registry.entries("agentreflex.commands")]
    add("commands", True, ", ".join(commands) or "none")
    return {"ok": all(c["ok"] for c in checks), "checks": checks}


def _judge_line(judges: list[str], config: Any) -> str:
    if not judges or config.judge.mode == "off":
        return "none (deterministic floors only)"
    if config.judge.offline:
        return (
            f"{judges[0]}, offline heuristic: its numbers are shown, never acted on "
            "(set JEV_API_KEY for the calibrated Jev API)"
        )
    return f"{judges[0]}, {config.judge.model} at {config.judge.base_url}"


def render(report: dict[str, Any]) -> str:
    lines = []
    for c in report["checks"]:
        mark = "ok " if c["ok"] else "BAD"
        lines.append(f"[{mark}] {c['check']:<12} {c['detail']}")
    lines.append("all good" if report["ok"] else "problems found")
    return "\n".join(lines)
