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
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentreflex.core.config.settings import Config, ConfigError, field_value, load_config
from agentreflex.core.decision import Mode
from agentreflex.core.events import Event, EventKind, ToolKind, ToolResult, build_tool_call
from agentreflex.core.reflex import Judge, ReflexContext
from agentreflex.core.state.model import SessionState

if TYPE_CHECKING:
    import pytest

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


# ---------------------------------------------------------------- shared by core's tests
# and tests/core_with_reflexes (the same tests with the sibling packages installed)

_TEST_ENV_PREFIXES = ("REFLEX_", "JEV_", "AGENTREFLEX_")


def isolated_test_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A conftest's autouse fixture body (``yield from`` it): no REFLEX_* / JEV_* /
    AGENTREFLEX_* variables from the developer's shell, HOME and the XDG folders in the
    test's tmp dir, the daemon off; afterwards the process namespaces the test's contained
    commands made are stopped."""
    for key in list(os.environ):
        if key.startswith(_TEST_ENV_PREFIXES):
            monkeypatch.delenv(key)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("AGENTREFLEX_DAEMON", "off")
    monkeypatch.setenv("AGENTREFLEX_SOCKET", str(tmp_path / "no-daemon.sock"))
    yield
    from agentreflex.core.contain import pidns

    pidns.stop()


def user_dirs_env(home: Path, **extra: str) -> dict[str, str]:
    """An environment whose HOME and XDG config, cache and state folders are under ``home``."""
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".state"),
        **extra,
    }


def project_config(project: Path, text: str) -> Path:
    """``text`` written as the project's ``.agentreflex/config.toml``."""
    path = project / ".agentreflex" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def user_config_path(env: Mapping[str, str]) -> Path:
    """The user's config file in ``env``."""
    return Path(env["XDG_CONFIG_HOME"]) / "agentreflex" / "config.toml"


def user_config(env: Mapping[str, str], text: str) -> None:
    """``text`` written as the user's config file in ``env``."""
    path = user_config_path(env)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def config_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """HOME and XDG_CONFIG_HOME under ``tmp_path/home``, plus ``extra``."""
    home = tmp_path / "home"
    return {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), **extra}


def approved_project_config(project: Path, tmp_path: Path, text: str) -> Path:
    """A project config the user (of ``config_env(tmp_path)``) approved, through the real
    trust record."""
    from agentreflex.core.config import trust

    path = project_config(project, text)
    trust.approve(str(path), config_env(tmp_path))
    return path


def load_project_config(project: Path, tmp_path: Path, **env: str) -> Config:
    """The config in ``project`` for the user of ``config_env(tmp_path, **env)``."""
    return load_config(str(project), config_env(tmp_path, **env))


def check_withheld_until_approved(
    project: Path, env: Mapping[str, str], text: str, field: str, expected: Any
) -> None:
    """A project file's weakening ``text`` of ``field`` is withheld until the user (of
    ``env``, whose own config says enforced) approves the file; ``expected``: the value
    while withheld (None: the value without the project file)."""
    from agentreflex.core.config import trust

    user_config(env, 'mode = "enforced"\n')
    if expected is None:  # "same" fields: the value without the project file stays
        expected = field_value(load_config(str(project), env), field)
    conf = project_config(project, text)
    cfg = load_config(str(project), env)
    assert field_value(cfg, field) == expected
    assert cfg.pending_config == str(conf) and len(cfg.pending_sha256) == 64
    assert cfg.untrusted and all(line.startswith(str(conf)) for line in cfg.untrusted)
    trust.approve(str(conf), env)
    approved = load_config(str(project), env)
    assert field_value(approved, field) != expected
    assert approved.untrusted == [] and approved.pending_config == ""


def check_bad_value_named(project: Path, tmp_path: Path, text: str, key: str, allowed: str) -> None:
    """A project file ``text`` fails to load with one line naming the file, ``key`` and
    ``allowed`` (what is allowed instead)."""
    import pytest

    path = project_config(project, text)
    with pytest.raises(ConfigError) as info:
        load_project_config(project, tmp_path)
    msg = str(info.value)
    assert str(path) in msg
    assert key in msg
    assert allowed in msg
    assert "\n" not in msg.strip()


def cache_env(tmp_path: Path) -> dict[str, str]:
    """HOME and the XDG config and cache folders under ``tmp_path/home``."""
    home = tmp_path / "home"
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
    }


def cached_toml_copies(tmp_path: Path) -> list[Path]:
    """The parsed-TOML cache's copies for the user of ``cache_env(tmp_path)``."""
    return sorted((tmp_path / "home" / ".cache" / "agentreflex").glob("toml-*.json"))


def config_check_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``agentreflex config check ARGS`` run in a new process from ``cwd``."""
    return subprocess.run(
        [sys.executable, "-m", "agentreflex.core.cli", "config", "check", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=dict(os.environ),
        timeout=120,
        check=False,
    )


def project_hook(tmp_path: Path, event: str, **fields: object) -> tuple[str, str]:
    """Claude Code's ``event`` through the in-process hook, enforced, in ``tmp_path/proj``:
    the reply's stdout and stderr."""
    from agentreflex.core.hook.runtime import run_hook

    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True, exist_ok=True)
    payload = {"session_id": "s-hook", "cwd": str(proj), "hook_event_name": event, **fields}
    env = {**os.environ, "REFLEX_MODE": "enforced"}
    out = run_hook("claude-code", json.dumps(payload).encode(), env)
    return out.reply.stdout, out.reply.stderr


def install_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home for the installer tests (no COPILOT_HOME, no Gemini workspace trust)."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("COPILOT_HOME", raising=False)
    monkeypatch.delenv("GEMINI_CLI_TRUST_WORKSPACE", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    return home


def git_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A new git work tree ``tmp_path/proj``, the current directory."""
    root = tmp_path / "proj"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    monkeypatch.chdir(root)
    return root


def gemini_payload(event: str, **fields: Any) -> dict[str, Any]:
    """A Gemini CLI hook payload for ``event``, with ``fields``."""
    base: dict[str, Any] = {
        "session_id": "g-1",
        "transcript_path": "/home/u/.gemini/tmp/abc/chats/session-1.json",
        "cwd": "/work/p",
        "hook_event_name": event,
        "timestamp": "2026-01-15T10:00:00.000Z",
    }
    base.update(fields)
    return base


def copilot_payload(event: str, **fields: Any) -> dict[str, Any]:
    """A Copilot CLI hook payload for ``event``, with ``fields``."""
    base: dict[str, Any] = {"timestamp": 1704614600000, "cwd": "/work/p", "hook_event_name": event}
    base.update(fields)
    return base


# ---------------------------------------------------------------- the warm daemon

AGENTREFLEX_BIN = str(Path(sys.executable).with_name("agentreflex"))

DAEMON_PROBE = r"""
import json, sys, time
from agentreflex.core.hook.client import try_daemon
start = time.monotonic()
answer = try_daemon("claude-code", "PreToolUse", sys.stdin.buffer.read(), float(sys.argv[1]))
said = [part.decode(errors="replace") for part in answer[1:]] if answer else [None, None]
print(json.dumps({"answered": answer is not None, "seconds": time.monotonic() - start,
                  "out": said[0], "err": said[1]}))
"""


def hook_code_separated() -> None:
    """Give the hook's hard-linked code its own copies now, once, as the first enforced
    shell command after an install would (:mod:`agentreflex.core.contain.ownlinks`).

    Why, for tests: that first walk takes seconds and changes the installation's folders,
    so a test whose daemon met it first waited past its client's bound, and a daemon
    started before it was another installation to the clients after it; which test met
    it depended on the order and load of the run.  A session-wide fixture calls this."""
    from agentreflex.core.contain import ownlinks

    ownlinks.separate(_tempdir("agentreflex-test-state-"))


def daemon_env(tmp: Path) -> dict[str, str]:
    """An enforced environment with the daemon on, its socket and all state under ``tmp``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REFLEX_", "AGENTREFLEX_"))}
    env.update(
        HOME=str(tmp / "home"),
        XDG_CACHE_HOME=str(tmp / "cache"),
        XDG_CONFIG_HOME=str(tmp / "config"),
        REFLEX_MODE="enforced",
        JEV_MODE="off",
        AGENTREFLEX_STATE_DIR=str(tmp / "state"),
        AGENTREFLEX_SOCKET=str(tmp / "run" / "daemon.sock"),
        AGENTREFLEX_DAEMON="on",
    )
    return env


def serve_daemon(tmp: Path) -> Iterator[Path]:
    """A fixture's body (``yield from`` it): a real ``agentreflex serve`` in
    ``daemon_env(tmp)``; yields its socket, then stops it and checks its log is clean."""
    log = tmp / "daemon.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [AGENTREFLEX_BIN, "serve", "--idle", "60"], env=daemon_env(tmp), stdout=out, stderr=out
        )
    sock = tmp / "run" / "daemon.sock"
    deadline = time.monotonic() + 60
    while not sock.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert sock.exists(), log.read_text()
    yield sock
    proc.terminate()
    proc.wait(10)
    assert "Traceback" not in log.read_text()


def daemon_payload(tmp: Path, tool_use_id: str, command: str = "ls -la") -> bytes:
    """A Bash ``PreToolUse`` in the git project ``tmp/project``."""
    project = tmp / "project"
    (project / ".git").mkdir(parents=True, exist_ok=True)
    body = {
        "session_id": "trust",
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": tool_use_id,
    }
    return json.dumps(body).encode()


def daemon_probe(
    tmp: Path, data: bytes, timeout: float = 5.0, env: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The real thin client, in a fresh interpreter, asking the daemon about ``data``:
    whether it was answered, how long it took, and the answer's stdout and stderr
    (``out``, ``err``; None when the daemon did not answer).  ``env``: the hook's
    environment, :func:`daemon_env` by default (the client forwards its variables)."""
    done = subprocess.run(
        [sys.executable, "-c", DAEMON_PROBE, str(timeout)],
        input=data,
        env=daemon_env(tmp) if env is None else dict(env),
        capture_output=True,
        timeout=120,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def daemon_recorded(tmp: Path, tool_use_id: str) -> bool:
    """Is the event in the session store (the log the reflexes fold their history from)?"""
    state = tmp / "state" / "sessions"
    return any(
        tool_use_id in path.read_text(errors="replace")
        for path in state.rglob("*")
        if path.is_file()
    )


def daemon_hook(payload: dict[str, Any], env: Mapping[str, str]) -> tuple[int, dict[str, Any], str]:
    """``agentreflex hook claude-code`` as a new process in ``env`` (the daemon answers
    it where ``env`` turns the daemon on): its exit status, JSON answer and stderr."""
    done = subprocess.run(
        [AGENTREFLEX_BIN, "hook", "claude-code"],
        input=json.dumps(payload).encode(),
        env=dict(env),
        capture_output=True,
        timeout=60,
        check=False,
    )
    out = done.stdout.decode()
    return done.returncode, (json.loads(out) if out.strip() else {}), done.stderr.decode()


def daemon_shell_call(
    root: Path, command: str, env: Mapping[str, str], call: str, session: str = "rt33"
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A contained Bash call as Claude Code makes it: pre-tool, the line the hook gave
    back run by bash in ``root``, post-tool; both answers."""
    body = {
        "session_id": session,
        "cwd": str(root),
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": call,
        "permission_mode": "bypassPermissions",
    }
    code, pre, err = daemon_hook({**body, "hook_event_name": "PreToolUse"}, env)
    assert code == 0, (code, pre, err)
    spec = pre.get("hookSpecificOutput", {})
    assert spec.get("permissionDecision") in (None, "allow"), pre
    line = spec.get("updatedInput", {}).get("command")
    assert line and line != command, pre  # contained: the hook rewrote it
    subprocess.run(["bash", "-c", line], cwd=root, env=dict(env), capture_output=True, timeout=60)
    post = {
        **body,
        "hook_event_name": "PostToolUse",
        "tool_response": {"stdout": "", "stderr": "", "exit_code": 0},
    }
    code, after, err = daemon_hook(post, env)
    return pre, after


def committed_repository(root: Path, files: Mapping[str, str]) -> Path:
    """A git repository at ``root`` with ``files`` (relative name: text) in one commit."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t.invalid"}
    env.update(GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t.invalid")
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "i"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    return root
