"""Helpers for reflex packages' tests: build contexts and events without a host.

Not used on the hook path.  A reflex package's tests can do::

    from agentreflex.core.testing import make_context, pre_tool
    ctx = make_context(pre_tool("Bash", {"command": "rm -rf ~"}), mode="enforced")
    findings = MyReflex().evaluate(ctx)
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from typing import Any

from agentreflex.core.config.settings import Config, load_config
from agentreflex.core.decision import Mode
from agentreflex.core.events import Event, EventKind, ToolKind, ToolResult, build_tool_call
from agentreflex.core.reflex import Judge, ReflexContext
from agentreflex.core.state.model import SessionState

_CREATED: list[str] = []


def _tempdir(prefix: str) -> str:
    """A temp dir removed when the test process exits (tests make thousands)."""
    path = tempfile.mkdtemp(prefix=prefix)
    _CREATED.append(path)
    return path


@atexit.register
def _cleanup() -> None:
    for path in _CREATED:
        shutil.rmtree(path, ignore_errors=True)


def host_tools(host: str) -> Mapping[str, ToolKind] | None:
    """The host's own tool names, as its adapter classifies them (None: no such host)."""
    from agentreflex.core.hosts import get_adapter

    try:
        tools: Mapping[str, ToolKind] = get_adapter(host).tools
    except (KeyError, ValueError, AttributeError):
        return None
    return tools


def pre_tool(name: str, tool_input: dict[str, Any], cwd: str = "/work/proj", **kw: Any) -> Event:
    host = kw.pop("host", "claude-code")
    return Event(
        kind=EventKind.PRE_TOOL,
        host=host,
        session_id=kw.pop("session_id", "test-session"),
        cwd=cwd,
        tool=build_tool_call(name, tool_input, kw.pop("tool_use_id", "toolu_1"), host_tools(host)),
        **kw,
    )


def post_tool(
    name: str,
    tool_input: dict[str, Any],
    ok: bool | None,
    output: str = "",
    error: str = "",
    cwd: str = "/work/proj",
    **kw: Any,
) -> Event:
    host = kw.pop("host", "claude-code")
    return Event(
        kind=EventKind.POST_TOOL if ok is not False else EventKind.POST_TOOL_FAILURE,
        host=host,
        session_id=kw.pop("session_id", "test-session"),
        cwd=cwd,
        tool=build_tool_call(name, tool_input, kw.pop("tool_use_id", "toolu_1"), host_tools(host)),
        result=ToolResult(ok=ok, output=output, error=error, exit_code=kw.pop("exit_code", None)),
        **kw,
    )


def prompt(text: str, cwd: str = "/work/proj", **kw: Any) -> Event:
    return Event(
        kind=EventKind.USER_PROMPT,
        host=kw.pop("host", "claude-code"),
        session_id=kw.pop("session_id", "test-session"),
        cwd=cwd,
        prompt=text,
        **kw,
    )


def stop(last_message: str = "", stop_hook_active: bool = False, **kw: Any) -> Event:
    return Event(
        kind=EventKind.STOP,
        host=kw.pop("host", "claude-code"),
        session_id=kw.pop("session_id", "test-session"),
        cwd=kw.pop("cwd", "/work/proj"),
        last_message=last_message,
        stop_hook_active=stop_hook_active,
        **kw,
    )


def hook_env(root: str | os.PathLike[str], mode: str = "enforced") -> dict[str, str]:
    """The hook's environment for a project at ``root``: its state beside the project."""
    return {
        "HOME": os.environ["HOME"],
        "REFLEX_MODE": mode,
        "AGENTREFLEX_STATE_DIR": os.path.join(os.path.dirname(os.fspath(root)), "state"),
    }


def shell_hook(
    root: str | os.PathLike[str],
    kind: str,
    command: str,
    env: Mapping[str, str],
    host: str = "claude-code",
    session: str = "test-session",
    call: str = "toolu_1",
    cwd: str | os.PathLike[str] | None = None,
) -> Any:
    """A shell call's ``PreToolUse`` or ``PostToolUse`` through the real hook, in the
    protocol of ``host`` (``claude-code`` or ``gemini``), from ``cwd`` (``root``): what
    the contained-command tests send before and after running the command themselves."""
    from agentreflex.core.hook.runtime import Plugins, run_hook

    payload: dict[str, Any] = {
        "session_id": session,
        "cwd": os.fspath(root if cwd is None else cwd),
        "hook_event_name": kind,
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": call,
    }
    if kind == "PostToolUse":
        payload["tool_response"] = {"stdout": "", "stderr": "", "exit_code": 0}
    if host == "gemini":  # BeforeTool / AfterTool, run_shell_command, no call id
        payload.update(
            hook_event_name={"PreToolUse": "BeforeTool", "PostToolUse": "AfterTool"}[kind],
            tool_name="run_shell_command",
            timestamp="2026-12-05T17:00:00Z",
            transcript_path="",
        )
        del payload["tool_use_id"]
        if kind == "PostToolUse":
            payload["tool_response"] = {"llmContent": "", "returnDisplay": ""}
    return run_hook(host, json.dumps(payload).encode(), dict(env), plugins=Plugins())


def run_contained(root: str | os.PathLike[str], command: str) -> None:
    """``command`` run by bash in ``root`` inside the real boundary, as a host runs the
    line the hook gave back."""
    from agentreflex.core.contain import boundary

    line = boundary.rewrite(command, os.fspath(root))
    subprocess.run(["bash", "-c", line], cwd=root, check=True, capture_output=True, timeout=60)


def make_config(
    mode: str = "enforced", env: dict[str, str] | None = None, **overrides: Any
) -> Config:
    """A config that ignores the user's files (HOME points at an empty dir)."""
    home = _tempdir("agentreflex-test-home-")
    base = {"HOME": home, "XDG_CONFIG_HOME": os.path.join(home, ".config"), "REFLEX_MODE": mode}
    base.update(env or {})
    cfg = load_config(overrides.pop("cwd", home), base)
    for key, value in overrides.items():
        setattr(cfg, key, value)
    return cfg


def make_context(
    event: Event,
    state: SessionState | None = None,
    config: Config | None = None,
    mode: str = "enforced",
    judge: Judge | None = None,
    state_dir: str | None = None,
) -> ReflexContext:
    cfg = config or make_config(mode)
    if config is None:
        cfg.mode = Mode(mode)
    return ReflexContext(
        event=event,
        state=state or SessionState(session_id=event.session_id, host=event.host, cwd=event.cwd),
        config=cfg,
        state_dir=state_dir or _tempdir("agentreflex-test-state-"),
        deadline=time.monotonic() + cfg.floor_budget_ms / 1000.0,
        judge_factory=(lambda: judge) if judge is not None else None,
    )


def hook_process(
    project: str | os.PathLike[str],
    host: str,
    event: str,
    payload: dict[str, Any],
    state_dir: bool = True,
    extra_env: Mapping[str, str] | None = None,
) -> str:
    """The real hook's answer, as a host gets it: a new process, the payload on stdin.

    The home is the project's parent; ``state_dir``: the guard's state beside the project
    (else in the home's default place, where the per-user key is); ``extra_env``: what
    the host adds to the hook's environment."""
    env = dict(os.environ, HOME=os.path.dirname(os.fspath(project)), AGENTREFLEX_DAEMON="off")
    env.update(extra_env or {})
    env.pop("XDG_STATE_HOME", None)
    if state_dir:
        env["AGENTREFLEX_STATE_DIR"] = os.path.join(os.path.dirname(os.fspath(project)), "state")
    done = subprocess.run(
        [sys.executable, "-m", "agentreflex.core.cli", "hook", host, event],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        cwd=project,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def enforced_project(root: str | os.PathLike[str]) -> str:
    """A git work tree at ``root`` whose project config says ``mode = "enforced"``."""
    config = os.path.join(os.fspath(root), ".agentreflex", "config.toml")
    os.makedirs(os.path.dirname(config), exist_ok=True)
    subprocess.run(["git", "init", "-q", os.fspath(root)], check=True)
    with open(config, "w", encoding="utf-8") as fh:
        fh.write('mode = "enforced"\n')
    return os.fspath(root)


def shim_pre_tool(
    project: str | os.PathLike[str], host: str, tool: str, args: dict[str, Any]
) -> str:
    """OpenCode's or pi's shim asking about one tool call in ``project`` (its own event)."""
    event = {"opencode": "tool.execute.before", "pi": "tool_call"}[host]
    payload = {"hook_event_name": event, "session_id": "s", "cwd": os.fspath(project)}
    return hook_process(project, host, event, payload | {"tool": tool, "args": args})


def claude_pre_tool(
    project: str | os.PathLike[str],
    tool: str,
    tool_input: dict[str, Any],
    state_dir: bool = True,
    extra_env: Mapping[str, str] | None = None,
) -> str:
    """Claude Code's PreToolUse for one tool call in ``project``."""
    payload: dict[str, Any] = {
        "hook_event_name": "PreToolUse",
        "session_id": "s",
        "cwd": os.fspath(project),
    }
    payload |= {"tool_name": tool, "tool_input": tool_input}
    return hook_process(project, "claude-code", "PreToolUse", payload, state_dir, extra_env)
