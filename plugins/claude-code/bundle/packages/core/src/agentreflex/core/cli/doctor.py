"""``agentreflex doctor``: what is installed and wired, and what is broken.

Silent no-ops are the failure users of other guards hate most (a hook that
cannot import its package and exits 0).  Doctor makes each state visible:
which reflex packages loaded, whether the configuration is valid, whether
the state dir is writable, whether a daemon is running, a live self-test
of one destructive command through the real pipeline, and per host whether
its hooks are wired, which binary they call, and the last hook seen.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from typing import Any

from agentreflex.core import registry
from agentreflex.core.config.settings import ConfigError, load_config


def diagnose(cwd: str) -> dict[str, Any]:
    from agentreflex.core.hook.runtime import load_plugins

    checks: list[dict[str, Any]] = []
    project_dir = state_dir = ""
    enforced = False

    def add(name: str, ok: bool, detail: str) -> None:
        checks.append({"check": name, "ok": ok, "detail": detail})

    add("interpreter", True, sys.executable)
    from agentreflex.core.cli import versions

    add("packages", True, ", ".join(f"{n} {v}" for n, v in versions.installed()) or "none")
    plugins = load_plugins(refresh=True)
    names = [r.name for r in plugins.reflexes]
    add(
        "reflexes",
        True,
        ", ".join(names)
        if names
        else "none installed: every hook answers ALLOW (install agentreflex, the recommended set)",
    )
    for err in plugins.errors:
        add("plugin load", False, err)
    try:
        config = load_config(cwd)
        project_dir, state_dir = config.project_dir, config.state_dir
        enforced = config.enforced
        add("judge", True, _judge_line([n for n, _ in plugins.judges], config))
        if plugins.judges:
            _local_backend_check(config, add)
        add(
            "config",
            True,
            f"mode {config.mode.value}, profile {config.profile}; files: "
            + (", ".join(config.sources) or "none (defaults)"),
        )
        _trust_check(config, checks)
        try:
            os.makedirs(config.state_dir, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=config.state_dir):
                pass
            add("state dir", True, config.state_dir)
        except OSError as exc:
            add("state dir", False, f"{config.state_dir}: {exc.strerror}")
        _state_checks(config.state_dir, add)
        from agentreflex.core.worktree.status import worktree_line

        line = worktree_line(cwd, config.worktree_observe, config.worktree_allow_undoable)
        add("work tree", True, line)
    except ConfigError as exc:
        add("config", False, str(exc))
    add_schema_check(add, cwd)
    _self_tests(add, cwd)
    from agentreflex.core.hook import daemon
    from agentreflex.core.hook.client import socket_path

    pid = daemon.is_running()
    add(
        "daemon",
        True,
        f"running (pid {pid})"
        if pid
        else f"not running (hooks evaluate in-process; `agentreflex serve --detach` on {socket_path()})",
    )
    from agentreflex.core.install.inspect import host_checks

    for check in host_checks(project_dir or cwd, state_dir or os.path.join(cwd, ".agentreflex")):
        checks.append(check)
    _containment_checks(project_dir or cwd, enforced, add)
    from agentreflex.core.install.pluginsetup import describe_network, setup_state_path

    setup_json = setup_state_path()
    if setup_json:
        add("plugin setup", True, describe_network(setup_json))
    commands = [n for n, _ in registry.entries("agentreflex.commands")]
    add("commands", True, ", ".join(commands) or "none")
    return {"ok": all(c["ok"] for c in checks), "checks": checks}


def _self_tests(add: Any, cwd: str) -> None:
    """Each command a package declares its reflexes must stop, checked (``self_test``)."""
    from agentreflex.core.hook.runtime import check_command

    tests = registry.entries(registry.SELF_TESTS)
    if not tests:
        add(
            "self-test",
            True,
            "skipped: no installed package declares one",
        )
    for _name, command in tests:
        try:
            decision, _ = check_command(command, cwd)
        except ConfigError:
            add("self-test", False, "not run: the config is invalid (see above)")
            continue
        verdict = decision.proposed.value
        add("self-test", verdict in ("BLOCK", "ASK_USER"), f"`{command}` -> {verdict}")


def _containment_checks(project: str, enforced: bool, add: Any) -> None:
    """Per host: contained or not (said, not failed: it depends on the host), and the hook's reach."""
    from agentreflex.core.contain.boundary import UNCONTAINED_RISKS
    from agentreflex.core.contain.check import (
        host_containment,
        interpreter_writable,
        terminal_injection,
    )

    rows = host_containment(project, enforced)
    for host, _contained, detail in rows:
        add(f"containment {host}", True, detail)
    if not all(contained for _host, contained, _detail in rows):
        add("containment risk", True, f"where a host is not contained, {UNCONTAINED_RISKS}")
    if enforced:
        from agentreflex.core.contain.pidns import fallback

        alone = fallback(project)
        if alone:
            add("containment pid namespace", True, alone)
    from agentreflex.core.contain.policy import temp_refused

    refused = temp_refused(os.environ, [project]) if enforced else ""
    if refused:  # (in shadow mode commands run as written: no boundary to say it of)
        add(
            "containment temp folder",
            True,
            f"{refused}: not writable in the boundary (the system's temp folders are); set "
            "TMPDIR to a folder of its own",
        )
    typed = terminal_injection()
    if typed:
        add("containment terminal", True, typed)
    writable = interpreter_writable()
    if writable:
        add(
            "hook interpreter",
            True,
            "writable by this user outside containment: "
            + ", ".join(writable)
            + " (a .pth or sitecustomize.py there runs in every hook; contained commands can't write it)",
        )


def add_schema_check(add: Any, cwd: str) -> None:
    """Every problem in the config and policy files, with its line (``config check``)."""
    from agentreflex.core.cli.configcheck import check_paths, default_files

    files = default_files(cwd)
    problems = [p.render() for found in check_paths(files).values() for p in found]
    add("config files", not problems, "; ".join(problems) or f"{len(files)} valid")


def _trust_check(config: Any, checks: list[dict[str, Any]]) -> None:
    """A project config waiting for approval: not broken, but the user should know."""
    if not config.untrusted:
        return
    prefix = f"{config.pending_config}: "
    lines = "; ".join(line.removeprefix(prefix) for line in config.untrusted)
    detail = (
        f"{config.pending_config} is not approved; withheld until you run "
        f"`agentreflex trust`: {lines}"
        if config.pending_config
        else lines
    )
    checks.append({"check": "trust", "ok": True, "warn": True, "detail": detail})


def _state_checks(state_dir: str, add: Any) -> None:
    """The per-user key, and any session whose records were tampered with or lost."""
    from agentreflex.core.state.auth import load_key
    from agentreflex.core.state.integrity import LOST_NOTE, TAMPER_NOTE
    from agentreflex.core.state.store import list_sessions, log_problem

    try:
        load_key(create=False)  # doctor looks; the first hook creates it
        add("state key", True, "per-user key readable (records are authenticated)")
    except FileNotFoundError:
        add("state key", True, "no per-user key yet (the first hook creates it)")
    except OSError as exc:
        add("state key", False, str(exc))
    problems: list[str] = []
    lost = False
    for path in list_sessions(state_dir)[:50]:
        try:
            with open(path, encoding="utf-8") as fh:
                notes = json.load(fh)["state"].get("notes", {})
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue
        name = os.path.basename(path).removesuffix(".state.json")
        unreadable = log_problem(path.removesuffix(".state.json") + ".jsonl")
        if unreadable:
            notes.setdefault(LOST_NOTE, []).append(unreadable)
        problems += [f"{name}: {t}" for t in notes.get(TAMPER_NOTE, [])[-3:]]
        for reason in notes.get(LOST_NOTE, []):
            lost = True
            problems.append(
                f"{name}: HISTORY LOST: {reason} (after checking, "
                f"`agentreflex state acknowledge --session {name}`)"
            )
    # a past forgery stays listed (it was ignored); a lost history is a failure until acknowledged
    add("state integrity", not lost, "; ".join(problems)[:1500] or "no tampering detected")


def _judge_line(judges: list[str], config: Any) -> str:
    if not judges or config.judge.mode == "off":
        return "none (deterministic floors only)"
    if config.judge.offline:
        return (
            f"{judges[0]}, offline heuristic: its numbers are shown, never acted on "
            "(set JEV_API_KEY for the calibrated Jev API)"
        )
    return (
        f"{judges[0]}, {config.judge.model} at {config.judge.base_url} "
        f"(from {config.judge.base_url_source})"
    )


def _local_backend_check(config: Any, add: Any) -> None:
    """A loopback judge (a local server): which engine answers, and how fast.

    Only loopback is probed (doctor sends nothing off the machine); a local
    backend that does not answer is a problem, since every judgment then
    falls back to the permissive defaults.
    """
    import time
    import urllib.request

    j = config.judge
    if j.mode == "off" or j.offline or not j.local:
        return
    url = j.base_url.rstrip("/").removesuffix("/v1/systemone") + "/healthz"
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    started = time.perf_counter()
    try:
        with opener.open(url, timeout=1.0) as resp:
            info = json.loads(resp.read(4096))
        engine, model = str(info["engine"]), str(info["model"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        from agentreflex.core.hook.localjudge import declared

        words = declared()  # the installed package that serves a local judge says how
        hint = f"start it with `agentreflex {' '.join(words)}`" if words else "start it"
        add("judge backend", False, f"no answer from {url} ({type(exc).__name__}); {hint}")
        return
    ms = (time.perf_counter() - started) * 1000.0
    add("judge backend", True, f"local {engine} engine ({model}) at {url}, answered in {ms:.1f} ms")


def render(report: dict[str, Any]) -> str:
    lines = []
    for c in report["checks"]:
        mark = "!! " if c.get("warn") and c["ok"] else "ok " if c["ok"] else "BAD"
        lines.append(f"[{mark}] {c['check']:<12} {c['detail']}")
    lines.append("all good" if report["ok"] else "problems found")
    return "\n".join(lines)
