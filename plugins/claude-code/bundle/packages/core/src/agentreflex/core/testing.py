"""Helpers for reflex packages' tests: build contexts and events without a host.

Not used on the hook path.  A reflex package's tests can do::

    from agentreflex.core.testing import make_context, pre_tool
    ctx = make_context(pre_tool("Bash", {"command": "rm -rf ~"}), mode="enforced")
    findings = MyReflex().evaluate(ctx)
"""

from __future__ import annotations

import atexit
import os
import shutil
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
