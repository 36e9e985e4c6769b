"""A prohibition stays in force for the session when a command takes it out unseen.

The real hook path (core, the gate and this reflex) around real commands in a
scratch project: red-team rt101 rewrote AGENTS.md under a spelling no parse
reads, and the next call's forbidden edit was allowed.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.hook.runtime import load_plugins, run_hook

RULES = "# Rules\n- Never edit files under generated/.\n- Prefer small functions.\n"
# rt101's move: the file's name is only known at run time (here read from todo.txt by a
# script already in the project), so no parse of the command sees AGENTS.md.
TIDY = "import pathlib\np = pathlib.Path(open('todo.txt').read().strip())\np.write_text(TEXT)\n"
UNSEEN = "python3 tidy.py"


@pytest.fixture
def root(project: Path) -> Path:
    (project / "AGENTS.md").write_text(RULES)
    (project / "generated").mkdir()
    (project / "generated" / "x.py").write_text("x = 1\n")
    _script(project, "AGENTS.md", "# Rules\n- Prefer small functions.\n")
    return project


def _script(root: Path, target: str, text: str) -> None:
    (root / "todo.txt").write_text(target + "\n")
    (root / "tidy.py").write_text(TIDY.replace("TEXT", repr(text)))


def _hook(root: Path, kind: str, body: dict[str, Any], tool_id: str, session: str) -> Any:
    payload = {
        "session_id": session,
        "cwd": str(root),
        "hook_event_name": kind,
        "tool_use_id": tool_id,
        **body,
    }
    env = {
        "HOME": str(root.parent),
        "REFLEX_MODE": "enforced",
        "AGENTREFLEX_STATE_DIR": str(root.parent / "state"),
    }
    return run_hook("claude-code", json.dumps(payload).encode(), env, plugins=load_plugins())


def _bash(root: Path, command: str, tool_id: str, session: str = "s1") -> Any:
    """PreToolUse, then (unless stopped) the command and its PostToolUse."""
    body = {"tool_name": "Bash", "tool_input": {"command": command}}
    pre = _hook(root, "PreToolUse", body, tool_id, session)
    if pre.decision.verdict.value in ("BLOCK", "ASK_USER"):
        return pre
    subprocess.run(command, shell=True, cwd=root, check=True, capture_output=True)
    post = {**body, "tool_response": {"stdout": "", "stderr": "", "exit_code": 0}}
    _hook(root, "PostToolUse", post, tool_id, session)
    return pre


def _write(
    root: Path, rel: str, text: str, tool_id: str, approve: bool, session: str = "s1"
) -> Any:
    """A Write: PreToolUse, and if allowed or approved by the user, the write and its Post."""
    body = {"tool_name": "Write", "tool_input": {"file_path": str(root / rel), "content": text}}
    pre = _hook(root, "PreToolUse", body, tool_id, session)
    verdict = pre.decision.verdict.value
    if verdict == "BLOCK" or (verdict == "ASK_USER" and not approve):
        return pre
    (root / rel).write_text(text)
    _hook(root, "PostToolUse", {**body, "tool_response": {"success": True}}, tool_id, session)
    return pre


def _codes(outcome: Any) -> list[str]:
    return [f.code for f in outcome.decision.findings]


def _edit_generated(root: Path, tool_id: str, session: str = "s1") -> Any:
    return _write(root, "generated/x.py", "x = 2\n", tool_id, approve=False, session=session)


def test_a_rule_taken_out_unseen_still_blocks_and_says_why(root: Path) -> None:
    assert _bash(root, UNSEEN, "t1").decision.verdict.value == "ALLOW"
    assert "generated/" not in (root / "AGENTS.md").read_text()  # the rule is gone from the file
    out = _edit_generated(root, "t2")
    assert out.decision.verdict.value == "BLOCK"
    finding = next(f for f in out.decision.findings if f.code == "INSTR-RULE")
    assert (
        "AGENTS.md:2" in finding.message and "Never edit files under generated/" in finding.message
    )
    assert "did not approve" in finding.message and "file tool" in finding.message
    assert finding.detail.get("removed_unapproved") is True
    assert (root / "generated" / "x.py").read_text() == "x = 1\n"


def test_a_rule_taken_out_unseen_holds_for_a_command_too(root: Path) -> None:
    _bash(root, UNSEEN, "t1")
    (root / "AGENTS.md").unlink()  # even with no rule file left at all
    out = _bash(root, "rm generated/x.py", "t2")
    assert out.decision.verdict.value == "BLOCK" and "INSTR-RULE" in _codes(out)
    assert (root / "generated" / "x.py").exists()


def test_an_approved_edit_of_the_rule_file_takes_the_rule_out(root: Path) -> None:
    _bash(root, "true", "t0")  # the rules are read, and remembered
    asked = _write(root, "AGENTS.md", "# Rules\n- Prefer small functions.\n", "t1", approve=True)
    assert "INSTR-RULES-EDIT" in _codes(asked)  # the user was asked, and approved
    out = _edit_generated(root, "t2")
    assert "INSTR-RULE" not in _codes(out)


def test_an_edit_the_user_refused_changes_nothing(root: Path) -> None:
    _bash(root, "true", "t0")
    asked = _write(root, "AGENTS.md", "# Rules\n", "t1", approve=False)  # refused: no Post
    assert "INSTR-RULES-EDIT" in _codes(asked)
    _bash(root, UNSEEN, "t2")  # then taken out unseen
    assert "INSTR-RULE" in _codes(_edit_generated(root, "t3"))


def test_a_new_session_follows_the_files_as_they_are(root: Path) -> None:
    _bash(root, UNSEEN, "t1", session="s1")
    assert "INSTR-RULE" in _codes(_edit_generated(root, "t2", session="s1"))
    assert "INSTR-RULE" not in _codes(_edit_generated(root, "t3", session="s2"))


def test_a_rule_added_by_a_command_applies_at_once(root: Path) -> None:
    _bash(root, "true", "t0")
    (root / "docs").mkdir()
    _script(root, "AGENTS.md", RULES + "- Never edit files under docs/.\n")
    _bash(root, UNSEEN, "t1")
    out = _write(root, "docs/a.md", "hi\n", "t2", approve=False)
    assert out.decision.verdict.value == "BLOCK"
    assert any("docs/" in f.message for f in out.decision.findings if f.code == "INSTR-RULE")
