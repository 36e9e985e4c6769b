"""MCP and unknown tools are judged by what their input does, whatever they are called."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.decision import Verdict
from agentreflex.core.events import ToolKind
from agentreflex.core.state.model import SessionState
from agentreflex.core.testing import make_context, pre_tool, prompt
from agentreflex.gate.reflex import GateReflex
from agentreflex.gate.tool_input import implied_calls

from .conftest import proposed_verdict as _verdict


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    proj = home / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / "tests").mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    monkeypatch.delenv("TMPDIR", raising=False)
    return proj


def _run(name: str, data: dict[str, Any], project: Path, state: SessionState | None = None) -> Any:
    findings = GateReflex().evaluate(
        make_context(pre_tool(name, data, cwd=str(project)), state=state)
    )
    return _verdict(findings), findings


# --- what the input amounts to --------------------------------------------------


def test_a_command_field_is_a_shell_command_whatever_the_tool_is_called() -> None:
    for name in ("mcp__hostlab__run_command", "mcp__x__execute", "terminal_exec", "doIt"):
        calls = implied_calls(name, {"command": "rm -rf ~"})
        assert [(c.kind, c.command) for c in calls] == [(ToolKind.SHELL, "rm -rf ~")]


def test_an_argv_list_is_joined_into_one_command() -> None:
    (call,) = implied_calls("mcp__x__exec", {"cmd": ["git", "push", "--force"]})
    assert call.command == "git push --force"


def test_code_runs_through_its_interpreters_one_liner() -> None:
    (py,) = implied_calls("mcp__x__run", {"code": "import os; os.system('rm -rf /')"})
    assert py.command.startswith("python3 -c '")
    (js,) = implied_calls("mcp__x__run", {"code": "x()", "language": "JavaScript"})
    assert js.command == "node -e 'x()'"
    (sh,) = implied_calls("mcp__x__run", {"code": "rm -rf /", "lang": "bash"})
    assert sh.command == "rm -rf /"
    (other,) = implied_calls("mcp__x__run", {"code": "x", "language": "cobol"})
    assert other.command.startswith("python3 -c")  # no scan for it: the widest net


def test_a_path_with_content_is_a_write_and_verbs_decide_a_bare_path() -> None:
    (write,) = implied_calls("mcp__fs__save", {"path": "a.txt", "content": "x"})
    assert (write.kind, write.path, write.content) == (ToolKind.WRITE, "a.txt", "x")
    (read,) = implied_calls("mcp__fs__read_text_file", {"path": "a.txt"})
    assert read.kind is ToolKind.READ
    (gone,) = implied_calls("mcp__fs__delete_file", {"paths": ["a.txt", "b.txt"]})
    assert gone.kind is ToolKind.PATCH and gone.paths == ["a.txt", "b.txt"]
    (touch,) = implied_calls("mcp__fs__move_file", {"destination": "c.txt"})
    assert touch.kind is ToolKind.WRITE and touch.path == "c.txt"


def test_nested_arguments_are_read_to_a_bounded_depth() -> None:
    (call,) = implied_calls("mcp__x__call", {"arguments": {"params": {"command": "ls"}}})
    assert call.command == "ls"
    deep: dict[str, Any] = {"command": "ls"}
    for _ in range(5):
        deep = {"input": deep}
    assert implied_calls("mcp__x__call", deep) == []


@pytest.mark.parametrize(
    "data",
    [None, "rm -rf /", 42, [], {}, {"command": 3}, {"command": ""}, {"path": ["x", 1]}],
)
def test_odd_inputs_amount_to_nothing_and_never_raise(data: Any) -> None:
    assert implied_calls("mcp__x__y", data) == []


def test_inputs_with_no_command_code_or_path_amount_to_nothing() -> None:
    assert implied_calls("TodoWrite", {"todos": [{"content": "x"}]}) == []
    assert implied_calls("mcp__search__web", {"query": "rm -rf /"}) == []  # data, not a command


# --- the gate's verdicts ------------------------------------------------------------


def test_a_destructive_command_through_an_mcp_shell_blocks(project: Path) -> None:
    verdict, findings = _run("mcp__hostlab__run_command", {"command": "rm -rf ~"}, project)
    assert verdict is Verdict.BLOCK
    assert findings[0].detail["rule"] == "GATE-RM-ROOT"


def test_a_benign_command_through_an_mcp_shell_is_allowed(project: Path) -> None:
    verdict, _ = _run("mcp__hostlab__run_command", {"command": "ls -la && pytest -q"}, project)
    assert verdict is Verdict.ALLOW


def test_an_unknown_tool_with_a_command_is_judged_too(project: Path) -> None:
    verdict, _ = _run("RunShell", {"cmd": "git push --force origin main"}, project)
    assert verdict is not Verdict.ALLOW


def test_interpreter_code_through_an_mcp_tool_is_scanned(project: Path) -> None:
    code = "import shutil, os; shutil.rmtree(os.path.expanduser('~'))"
    verdict, _ = _run("mcp__sandbox__execute_python", {"code": code}, project)
    assert verdict is Verdict.BLOCK


def test_the_users_constraint_holds_for_an_mcp_file_writer(project: Path) -> None:
    ctx = make_context(prompt("Fix the bug. Do not modify tests.", cwd=str(project)))
    GateReflex().evaluate(ctx)
    state = SessionState()
    for note in ctx.notes:
        state.notes.setdefault(note.key, []).append(note.value)
    target = str(project / "tests" / "test_app.py")
    verdict, _ = _run("mcp__hostlab__write_file", {"path": target, "content": "x"}, project, state)
    assert verdict is Verdict.BLOCK
    elsewhere = str(project / "app.py")
    verdict, _ = _run(
        "mcp__hostlab__write_file", {"path": elsewhere, "content": "x"}, project, state
    )
    assert verdict is Verdict.ALLOW


def test_a_secret_written_through_an_mcp_tool_is_caught(project: Path) -> None:
    key = "AKIA" + "QWERTYUIOPASDFGH"
    verdict, _ = _run(
        "mcp__fs__save",
        {"path": str(project / "deploy.sh"), "content": f"export AWS_ACCESS_KEY_ID={key}\n"},
        project,
    )
    assert verdict is not Verdict.ALLOW
