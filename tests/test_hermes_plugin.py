"""The Hermes plugin (plugins/hermes/agentreflex), loaded the way Hermes loads it.

Real agentreflex underneath, in-process: each callback is called with the keyword
arguments Hermes 0.19 passes.  The plugin inside the real Hermes is proven in
integration-tests/test_hermes_host.py.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
PLUGIN_DIR = REPO / "plugins" / "hermes" / "agentreflex"
HERMES_KWARGS = {
    "task_id": "",
    "tool_call_id": "c1",
    "turn_id": "t1",
    "api_request_id": "",
    "middleware_trace": [],
    "telemetry_schema_version": "hermes.observer.v1",
}


def load_plugin(folder: Path, name: str) -> types.ModuleType:
    """What hermes_cli.plugins does: a ``hermes_plugins.<name>`` module from the folder."""
    parent = sys.modules.setdefault("hermes_plugins", types.ModuleType("hermes_plugins"))
    parent.__path__ = []
    spec = importlib.util.spec_from_file_location(
        f"hermes_plugins.{name}", folder / "__init__.py", submodule_search_locations=[str(folder)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class Ctx:
    def __init__(self) -> None:
        self.hooks: dict[str, Callable[..., Any]] = {}

    def register_hook(self, name: str, cb: Callable[..., Any]) -> None:
        self.hooks[name] = cb


def plugin_hooks(folder: Path = PLUGIN_DIR, name: str = "agentreflex") -> dict[str, Any]:
    ctx = Ctx()
    load_plugin(folder, name).register(ctx)
    return ctx.hooks


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = tmp_path / "proj"
    (root / ".agentreflex").mkdir(parents=True)
    (root / ".agentreflex" / "config.toml").write_text('mode = "enforced"\n')
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    monkeypatch.chdir(root)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("AGENTREFLEX_DAEMON", "off")
    monkeypatch.delenv("HERMES_YOLO_MODE", raising=False)
    (tmp_path / "home").mkdir()
    yield root


def test_registers_every_hook() -> None:
    assert set(plugin_hooks()) == {
        "pre_tool_call",
        "post_tool_call",
        "pre_llm_call",
        "pre_verify",
        "on_session_start",
        "on_session_end",
    }


def test_destructive_terminal_and_execute_code_are_blocked(project: Path) -> None:
    hooks = plugin_hooks()
    pre = hooks["pre_tool_call"]
    assert hooks["on_session_start"](session_id="s1", model="m", platform="cli") is None
    got = pre(
        tool_name="terminal", args={"command": "rm -rf .git"}, session_id="s1", **HERMES_KWARGS
    )
    assert got["action"] == "block" and "GATE-RM-GIT-DIR" in got["message"]
    code = "import subprocess\nsubprocess.run('rm -rf .git', shell=True)\n"
    got = pre(tool_name="execute_code", args={"code": code}, session_id="s1", **HERMES_KWARGS)
    assert got is not None and got["action"] == "block", got
    assert (
        pre(tool_name="terminal", args={"command": "ls -la"}, session_id="s1", **HERMES_KWARGS)
        is None
    )


def test_post_tool_and_session_end_answer_nothing(project: Path) -> None:
    hooks = plugin_hooks()
    result = json.dumps({"output": "ok", "exit_code": 0, "error": None})
    post = hooks["post_tool_call"](
        tool_name="terminal",
        args={"command": "ls"},
        result=result,
        session_id="s1",
        duration_ms=3,
        status="ok",
        error_type=None,
        error_message=None,
        **HERMES_KWARGS,
    )
    assert post is None
    assert hooks["pre_llm_call"](session_id="s1", user_message="hi", is_first_turn=True) is None
    assert hooks["on_session_end"](session_id="s1", completed=True, interrupted=False) is None


def test_done_reflex_keeps_the_turn_going_after_edits_without_tests(project: Path) -> None:
    hooks = plugin_hooks()
    (project / "tests").mkdir()
    (project / "tests" / "test_ok.py").write_text("def test_ok():\n    assert True\n")
    hooks["on_session_start"](session_id="s2", model="m", platform="cli")
    args = {"path": str(project / "feature.py"), "content": "X = 1\n"}
    assert (
        hooks["pre_tool_call"](tool_name="write_file", args=args, session_id="s2", **HERMES_KWARGS)
        is None
    )
    hooks["post_tool_call"](
        tool_name="write_file",
        args=args,
        result='{"bytes_written": 6}',
        session_id="s2",
        status="ok",
        **HERMES_KWARGS,
    )
    got = hooks["pre_verify"](
        session_id="s2",
        platform="cli",
        model="m",
        coding=True,
        attempt=0,
        final_response="Done: implemented.",
        changed_paths=[args["path"]],
    )
    assert got is not None and got["action"] == "continue" and "test" in got["message"].lower()


def test_a_floor_that_cannot_run_blocks_and_nothing_raises(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No importable agentreflex and no script: pre_tool_call blocks; the others stay quiet."""
    broken = tmp_path / "broken-plugin"
    broken.mkdir()
    for name in ("plugin.yaml", "__init__.py"):
        (broken / name).write_text((PLUGIN_DIR / name).read_text())
    (broken / "agentreflex.json").write_text(
        json.dumps({"python": "2.7", "binary": str(tmp_path / "missing" / "agentreflex")})
    )
    monkeypatch.setenv("PATH", "/nonexistent")
    hooks = plugin_hooks(broken, "broken_agentreflex")
    got = hooks["pre_tool_call"](
        tool_name="terminal", args={"command": "ls"}, session_id="s", **HERMES_KWARGS
    )
    assert got["action"] == "block" and "failing closed" in got["message"]
    assert hooks["pre_verify"](session_id="s", attempt=0, final_response="done") is None
    assert hooks["on_session_start"](session_id="s") is None


def test_an_agentreflex_on_path_is_never_run_in_the_recorded_ones_place(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A config naming no program (hand-made, or from an old install) once fell back to
    ``agentreflex`` on Hermes' PATH, where an activated project ``.venv/bin`` comes first:
    one the agent wrote there would answer "allow" to everything."""
    plugin = tmp_path / "no-binary-plugin"
    plugin.mkdir()
    for name in ("plugin.yaml", "__init__.py"):
        (plugin / name).write_text((PLUGIN_DIR / name).read_text())
    (plugin / "agentreflex.json").write_text(json.dumps({"python": "2.7"}))
    planted = project / ".venv" / "bin"
    planted.mkdir(parents=True)
    (planted / "agentreflex").write_text("#!/bin/sh\ntouch \"$0.ran\"\necho '{}'\n")
    (planted / "agentreflex").chmod(0o755)
    monkeypatch.setenv("PATH", f"{planted}:{os.environ['PATH']}")
    hooks = plugin_hooks(plugin, "no_binary_agentreflex")
    got = hooks["pre_tool_call"](
        tool_name="terminal", args={"command": "rm -rf ~"}, session_id="s", **HERMES_KWARGS
    )
    assert got["action"] == "block" and "install hermes" in got["message"]
    assert not (planted / "agentreflex.ran").exists()


def test_subprocess_form_when_the_python_differs(project: Path, tmp_path: Path) -> None:
    """Hermes on another Python: the plugin runs ``agentreflex hook hermes`` instead."""
    other = tmp_path / "other-python-plugin"
    other.mkdir()
    for name in ("plugin.yaml", "__init__.py"):
        (other / name).write_text((PLUGIN_DIR / name).read_text())
    script = Path(sys.prefix) / "bin" / "agentreflex"
    (other / "agentreflex.json").write_text(json.dumps({"python": "2.7", "binary": str(script)}))
    hooks = plugin_hooks(other, "other_agentreflex")
    got = hooks["pre_tool_call"](
        tool_name="terminal", args={"command": "rm -rf .git"}, session_id="s3", **HERMES_KWARGS
    )
    assert got["action"] == "block" and "GATE-RM-GIT-DIR" in got["message"]
    assert (
        hooks["pre_tool_call"](
            tool_name="terminal", args={"command": "ls"}, session_id="s3", **HERMES_KWARGS
        )
        is None
    )


def test_the_subprocess_form_runs_through_the_recorded_launch(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``launch`` (install's, with -E -P): a PYTHONPATH in Hermes' environment that reaches
    into the project, where a contained command wrote a ``sitecustomize.py``, runs nothing."""
    from agentreflex.core.install.launcher import launch_argv

    other = tmp_path / "launch-plugin"
    other.mkdir()
    for name in ("plugin.yaml", "__init__.py"):
        (other / name).write_text((PLUGIN_DIR / name).read_text())
    script = str(Path(sys.prefix) / "bin" / "agentreflex")
    record = {"python": "2.7", "binary": script, "launch": launch_argv(script)}
    (other / "agentreflex.json").write_text(json.dumps(record))
    mark = tmp_path / "sitecustomize-ran"
    (project / "src").mkdir()
    (project / "src" / "sitecustomize.py").write_text(f"open({str(mark)!r}, 'w').close()\n")
    monkeypatch.setenv("PYTHONPATH", str(project / "src"))
    hooks = plugin_hooks(other, "launch_agentreflex")
    got = hooks["pre_tool_call"](
        tool_name="terminal", args={"command": "rm -rf .git"}, session_id="s4", **HERMES_KWARGS
    )
    assert got["action"] == "block" and "GATE-RM-GIT-DIR" in got["message"]
    assert not mark.exists()


def test_ask_user_without_a_human_gate_is_a_block(monkeypatch: pytest.MonkeyPatch) -> None:
    module = load_plugin(PLUGIN_DIR, "agentreflex_ask")
    reply = {"decision": "block", "reason": "ask the user first"}
    monkeypatch.setenv("HERMES_YOLO_MODE", "1")  # --yolo would approve it unasked
    got = module.translate("pre_tool_call", reply, "ASK_USER", {"tool_name": "terminal"})
    assert got == {"action": "block", "message": "ask the user first"}
    monkeypatch.delenv("HERMES_YOLO_MODE")
    monkeypatch.delitem(sys.modules, "tools.approval", raising=False)  # no Hermes gate here
    got = module.translate("pre_tool_call", reply, "ASK_USER", {"tool_name": "terminal"})
    assert got["action"] == "block"


def test_plugin_import_is_cheap() -> None:
    """Hermes imports every enabled plugin at start: ours imports nothing beyond os and sys."""
    code = (
        "import sys, importlib.util, types;"
        "sys.modules['hermes_plugins'] = types.ModuleType('hermes_plugins');"
        "sys.modules['hermes_plugins'].__path__ = [];"
        "before = set(sys.modules);"
        f"spec = importlib.util.spec_from_file_location('hermes_plugins.a', {str(PLUGIN_DIR / '__init__.py')!r});"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m);"
        "print(sorted(set(sys.modules) - before))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert done.stdout.strip() in ("[]", "['__future__']"), done.stdout  # Hermes has it too


def test_the_plugins_own_folder_is_protected(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agent removing the guard from $HERMES_HOME is stopped by the self-protection floor."""
    home = tmp_path / "hermes-home"
    (home / "plugins" / "agentreflex").mkdir(parents=True)
    monkeypatch.setenv("HERMES_HOME", str(home))
    pre = plugin_hooks()["pre_tool_call"]
    command = f"rm -rf {home / 'plugins' / 'agentreflex'}"
    got = pre(tool_name="terminal", args={"command": command}, session_id="s4", **HERMES_KWARGS)
    assert got is not None and got["action"] in ("block", "approve"), got


class MiddlewareCtx(Ctx):
    """A Hermes 0.19 context: hooks and middleware (``hermes_cli/middleware.py``)."""

    def __init__(self) -> None:
        super().__init__()
        self.middleware: dict[str, Callable[..., Any]] = {}

    def register_middleware(self, kind: str, cb: Callable[..., Any]) -> None:
        self.middleware[kind] = cb


def test_a_contained_terminal_command_runs_in_the_boundary_via_the_middleware(
    project: Path,
) -> None:
    """pre_tool_call gets the contained line from agentreflex; the tool_execution
    middleware runs it in the agent's command's place, for that call only."""
    ctx = MiddlewareCtx()
    plugin = load_plugin(PLUGIN_DIR, "agentreflex")
    plugin.register(ctx)
    contain = ctx.middleware["tool_execution"]
    ran: list[Any] = []

    def next_call(args: Any = None) -> str:
        ran.append(args)
        return '{"output": "ok"}'

    args = {"command": "make", "background": False}
    got = ctx.hooks["pre_tool_call"](
        tool_name="terminal", args=args, session_id="s1", **HERMES_KWARGS
    )
    assert got is None  # allowed: nothing for Hermes' hook to do
    contain(tool_name="terminal", args=args, next_call=next_call, tool_call_id="c1")
    line = ran[-1]["command"]
    assert line.split()[0].endswith("bwrap") and "make" in line, line
    assert ran[-1]["background"] is False  # the tool's other arguments kept
    # the same call id again, or a call the hook never contained: the arguments as given
    contain(tool_name="terminal", args=args, next_call=next_call, tool_call_id="c1")
    assert ran[-1] is None
    code = {"code": "print(1)"}
    ctx.hooks["pre_tool_call"](
        tool_name="execute_code", args=code, session_id="s1", **HERMES_KWARGS
    )
    contain(tool_name="execute_code", args=code, next_call=next_call, tool_call_id="c1")
    assert ran[-1] is None  # Python code is not a shell line


def test_the_middleware_never_falls_back_to_the_bare_command(project: Path) -> None:
    """Hermes runs the original call when a middleware raises before calling on."""
    ctx = MiddlewareCtx()
    plugin = load_plugin(PLUGIN_DIR, "agentreflex")
    plugin.register(ctx)
    plugin._contained["c9"] = "bwrap --args 9 -- bash -c make 9< f"
    ran: list[Any] = []

    class Unreadable:
        def __str__(self) -> str:  # reading the call's id fails
            raise RuntimeError("unreadable call id")

    out = ctx.middleware["tool_execution"](
        tool_name="terminal",
        args={"command": "make"},
        next_call=ran.append,
        tool_call_id=Unreadable(),
    )
    assert ran == [] and "could not contain" in json.loads(out)["error"]


def test_contained_commands_the_middleware_never_takes_are_bounded(project: Path) -> None:
    """A call another hook or plugin stops never reaches the middleware: its entry goes
    once newer ones push it out (such a call, should it come after all, is refused, not
    run bare), and the newest still runs in the boundary."""
    ctx = MiddlewareCtx()
    plugin = load_plugin(PLUGIN_DIR, "agentreflex")
    plugin.register(ctx)
    extra = {k: v for k, v in HERMES_KWARGS.items() if k != "tool_call_id"}
    total = plugin.MAX_CONTAINED + 3
    for i in range(total):
        ctx.hooks["pre_tool_call"](
            tool_name="terminal",
            args={"command": f"make t{i}"},
            session_id="s1",
            tool_call_id=f"c{i}",
            **extra,
        )
    assert len(plugin._contained) == plugin.MAX_CONTAINED
    assert "c0" not in plugin._contained and f"c{total - 1}" in plugin._contained
    ran: list[Any] = []
    contain = ctx.middleware["tool_execution"]
    out = contain(
        tool_name="terminal", args={"command": "make t0"}, next_call=ran.append, tool_call_id="c0"
    )
    assert "could not contain" in json.loads(out)["error"]
    assert ran == []  # pushed out: refused, never run bare
    last = f"c{total - 1}"
    contain(tool_name="terminal", args={"command": "x"}, next_call=ran.append, tool_call_id=last)
    assert f"make t{total - 1}" in ran[-1]["command"] and "bwrap" in ran[-1]["command"]


def test_arguments_that_are_not_an_object_fail_closed(project: Path) -> None:
    """The plugin sent ``{}`` for arguments that were not an object, which the hook read as
    a terminal call with no command, and let through (red-team rt36): they reach the hook
    as Hermes gave them, which refuses a proposed call whose input it can't read."""
    from agentreflex.core.hosts.hermes import HermesAdapter
    from agentreflex.core.install.hermes_plugin import answer

    for args in ("rm -rf ~", ["rm", "-rf", "~"], None):
        got = answer(
            "pre_tool_call",
            {"tool_name": "terminal", "args": args, "session_id": "s1", **HERMES_KWARGS},
        )
        assert got is not None and got["action"] == "block", (args, got)
    verify = {"hook_event_name": "pre_verify", "session_id": "s", "extra": {}}
    for value in ("false", 1, {"x": 1}):
        verify["extra"] = {"stop_hook_active": value}
        assert HermesAdapter().parse(verify).stop_hook_active is False  # only JSON true


@pytest.mark.parametrize("workdir", [".claude", "PROJECT/.claude", "sub/../.claude"])
def test_a_terminal_call_is_judged_in_its_workdir_once(project: Path, workdir: str) -> None:
    """Hermes runs ``terminal`` as ``cd -- WORKDIR`` from the session's folder.  The hook
    now resolves a relative ``workdir`` itself (a shell hook's payload has only Hermes'
    folder: red-team rt41), so the plugin sends the session's folder as ``cwd``: joined
    there too, the folder would be resolved twice."""
    (project / ".claude").mkdir()
    (project / "sub").mkdir()
    folder = workdir.replace("PROJECT", str(project))
    pre = plugin_hooks()["pre_tool_call"]
    args = {"command": "echo '{}' > settings.json", "workdir": folder}
    got = pre(tool_name="terminal", args=args, session_id="s1", **HERMES_KWARGS)
    assert got is not None and got["action"] == "block" and "settings.json" in got["message"]
    args = {"command": "echo x > notes.txt", "workdir": folder.replace(".claude", "sub")}
    assert pre(tool_name="terminal", args=args, session_id="s1", **HERMES_KWARGS) is None


# A token of the shape GitHub issues (https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/about-authentication-to-github#githubs-token-formats).
_TOKEN = "ghp_" + "aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0zaB3dE"


@pytest.mark.parametrize("pad", [0, 360])
def test_a_failure_never_shows_a_secret_from_the_exception(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], pad: int
) -> None:
    """A callback that raises (a hook's internals, Hermes' own arguments in the message)
    answered the exception's text, cut to 400 characters, to Hermes and its stderr: a
    secret in it was kept whole, or its head where the cut divided it."""
    module = load_plugin(PLUGIN_DIR, f"agentreflex_failure_{pad}")
    ctx = Ctx()
    module.register(ctx)

    def boom(event: str, kwargs: dict[str, Any]) -> Any:
        raise RuntimeError("x" * pad + f" GITHUB_TOKEN={_TOKEN} in the arguments")

    monkeypatch.setattr(module, "answer", boom)
    got = ctx.hooks["pre_tool_call"](
        tool_name="terminal", args={"command": "ls"}, session_id="s", **HERMES_KWARGS
    )
    assert got["action"] == "block" and "failing closed" in got["message"]
    shown = got["message"] + capsys.readouterr().err
    assert "ghp_" not in shown and _TOKEN[8:20] not in shown


def test_output_that_is_not_json_is_shown_redacted(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """agentreflex answering something that is not JSON: its first 200 characters were
    shown as they were, a token across the cut keeping its head."""
    module = load_plugin(PLUGIN_DIR, "agentreflex_not_json")

    class Reply:
        stdout = "y" * 180 + f" token={_TOKEN}"
        stderr = ""

    class Outcome:
        reply = Reply()
        decision = None

    monkeypatch.setitem(module._state, "run_hook", lambda *a: Outcome())
    got = module.answer("pre_tool_call", {"tool_name": "terminal", "args": {"command": "ls"}})
    assert got["action"] == "block"
    shown = got["message"] + capsys.readouterr().err
    assert "ghp_" not in shown and _TOKEN[8:20] not in shown
