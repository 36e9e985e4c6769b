"""GateReflex through core's contract: findings, notes, hosts' tool names, allow-list."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.config import trust
from agentreflex.core.decision import Verdict
from agentreflex.core.events import EventKind
from agentreflex.core.reflex import JudgeAnswer, ReflexContext
from agentreflex.core.state.model import SessionState
from agentreflex.core.testing import make_context, pre_tool, prompt
from agentreflex.gate.reflex import GateReflex
from agentreflex.gate.shell import walker

from .conftest import proposed_verdict as _verdict


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    proj = home / "proj"
    (proj / ".git").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)  # the trust record: in this HOME
    monkeypatch.delenv("TMPDIR", raising=False)
    return proj


def _run(event: Any, state: SessionState | None = None, judge: Any = None) -> list[Any]:
    return GateReflex().evaluate(make_context(event, state=state, judge=judge))


def test_protocol_attributes() -> None:
    gate = GateReflex()
    assert gate.name == "gate" and gate.floor is True
    assert gate.events == frozenset({EventKind.USER_PROMPT, EventKind.PRE_TOOL})


def test_destructive_command_blocks_with_panel_and_detail(project: Path) -> None:
    findings = _run(pre_tool("Bash", {"command": "timeout 5 rm -rf ~"}, cwd=str(project)))
    top = findings[0]
    assert top.verdict is Verdict.BLOCK
    assert top.title == "DESTRUCTIVE ACTION REFLEX FIRED"
    assert top.detail["rule"] == top.code == "GATE-RM-ROOT"
    assert "rm -rf" in top.detail["segment"]
    assert top.signals["destructive_irreversible"] >= 0.75 and top.threshold == 0.75


def test_ordinary_work_is_allowed(project: Path) -> None:
    for cmd in ("rm -rf build dist", "git status", "pytest -q", "git push origin feature"):
        assert _verdict(_run(pre_tool("Bash", {"command": cmd}, cwd=str(project)))) is Verdict.ALLOW


def _state_with(text: str, project: Path) -> SessionState:
    ctx = make_context(prompt(text, cwd=str(project)))
    assert GateReflex().evaluate(ctx) == []
    state = SessionState()
    for note in ctx.notes:
        assert note.reflex == "gate"
        state.notes.setdefault(note.key, []).append(note.value)
    return state


@pytest.mark.parametrize(
    ("name", "tool_input"),
    [
        ("Edit", {"file_path": "tests/test_auth.py", "old_string": "a", "new_string": "b"}),
        ("Write", {"file_path": "tests/test_new.py", "content": "x = 1\n"}),
        ("MultiEdit", {"file_path": "tests/test_auth.py", "edits": [{"new_string": "b"}]}),
        (
            "apply_patch",
            {
                "input": "*** Begin Patch\n*** Update File: tests/test_auth.py\n@@\n-a\n+b\n*** End Patch"
            },
        ),
        ("edit", {"filePath": "tests/test_auth.py", "oldString": "a", "newString": "b"}),
        ("write", {"path": "tests/test_auth.py", "content": "b"}),
        ("hermes:write_file", {"path": "tests/test_auth.py", "content": "b"}),
        (
            "hermes:patch",
            {"patch": "--- a/tests/test_auth.py\n+++ b/tests/test_auth.py\n@@\n-a\n+b\n"},
        ),
        ("Bash", {"command": "sed -i 's/a/b/' tests/test_auth.py"}),
        ("Bash", {"command": "echo x > tests/test_auth.py"}),
    ],
)
def test_constraint_blocks_every_hosts_edit_tools(
    project: Path, name: str, tool_input: dict[str, Any]
) -> None:
    state = _state_with("Fix the login bug. Do not modify tests.", project)
    host, _, name = name.rpartition(":")  # a host's own tool name: that host's event
    event = pre_tool(name, tool_input, cwd=str(project), host=host or "claude-code")
    findings = _run(event, state)
    top = findings[0]
    assert top.verdict is Verdict.BLOCK and top.title == "CONSTRAINT REFLEX"
    assert top.code == "GATE-CONSTRAINT" and "Do not modify tests" in top.message


CODEX_PATCHES = {
    "update": "*** Update File: tests/test_auth.py\n@@\n-a\n+b\n",
    "add": "*** Add File: tests/test_new.py\n+x = 1\n",
    "delete": "*** Delete File: tests/test_auth.py\n",
    "move in": "*** Update File: src/helpers.py\n*** Move to: tests/helpers.py\n@@\n-a\n+b\n",
    "move out": "*** Update File: tests/test_auth.py\n*** Move to: src/old_test.py\n@@\n-a\n+b\n",
    "second file": "*** Update File: src/auth.py\n@@\n-a\n+b\n"
    "*** Delete File: tests/test_auth.py\n",
}


@pytest.mark.parametrize("kind", sorted(CODEX_PATCHES))
def test_constraint_sees_every_file_a_codex_patch_touches(project: Path, kind: str) -> None:
    """Codex sends apply_patch's body in ``tool_input.command``: add/update/delete/move."""
    state = _state_with("Fix the login bug. Do not modify tests.", project)
    body = f"*** Begin Patch\n{CODEX_PATCHES[kind]}*** End Patch\n"
    findings = _run(pre_tool("apply_patch", {"command": body}, cwd=str(project)), state)
    assert findings and findings[0].verdict is Verdict.BLOCK, kind
    assert findings[0].code == "GATE-CONSTRAINT"


@pytest.mark.parametrize(
    ("name", "tool_input"),
    [
        ("Edit", {"file_path": "t/fixtures.py", "old_string": "4", "new_string": "0"}),
        ("Write", {"file_path": "t/data.py", "content": "x = 1\n"}),
        ("Bash", {"command": "sed -i s/4/0/ t/fixtures.py"}),
    ],
)
def test_constraint_follows_a_link_made_earlier(
    project: Path, name: str, tool_input: dict[str, Any]
) -> None:
    """A constraint names what the user sees: ``ln -s tests t`` in one call and a write
    through ``t/`` in the next changes ``tests`` all the same (red-team rt38: matched on
    the path as written, it passed and was caught only after the fact)."""
    (project / "tests").mkdir()
    (project / "tests" / "fixtures.py").write_text("VALUE = 4\n")
    (project / "t").symlink_to("tests")
    state = _state_with("Fix the login bug. Do not modify tests.", project)
    findings = _run(pre_tool(name, tool_input, cwd=str(project)), state)
    assert findings and findings[0].code == "GATE-CONSTRAINT", findings
    assert "tests/" in findings[0].message
    (project / "t").unlink()
    (project / "t").mkdir()  # a folder of its own named t: nothing the user named
    assert _verdict(_run(pre_tool(name, tool_input, cwd=str(project)), state)) is Verdict.ALLOW


def test_constraint_lets_a_codex_patch_elsewhere_run(project: Path) -> None:
    state = _state_with("Fix the login bug. Do not modify tests.", project)
    body = "*** Begin Patch\n*** Update File: src/auth.py\n@@\n-a\n+b\n*** End Patch\n"
    ok = _run(pre_tool("apply_patch", {"command": body}, cwd=str(project)), state)
    assert _verdict(ok) is Verdict.ALLOW


def test_constraint_leaves_other_files_alone(project: Path) -> None:
    state = _state_with("Fix it. Don't touch the migrations.", project)
    ok = _run(
        pre_tool("Edit", {"file_path": "src/auth.py", "new_string": "x"}, cwd=str(project)), state
    )
    assert _verdict(ok) is Verdict.ALLOW
    bad = _run(
        pre_tool("Write", {"file_path": "db/migrations/0002.py", "content": "x"}, cwd=str(project)),
        state,
    )
    assert _verdict(bad) is Verdict.BLOCK


def test_never_push_and_no_new_dependencies(project: Path) -> None:
    state = _state_with("Never push. No new dependencies, please.", project)
    push = _run(pre_tool("Bash", {"command": "git push origin feature"}, cwd=str(project)), state)
    assert _verdict(push) is Verdict.BLOCK
    dep = _run(pre_tool("Bash", {"command": "npm install lodash"}, cwd=str(project)), state)
    assert _verdict(dep) is Verdict.BLOCK
    manifest = _run(
        pre_tool(
            "Edit",
            {
                "file_path": "package.json",
                "old_string": "{",
                "new_string": '{\n  "lodash": "^4.17.21",',
            },
            cwd=str(project),
        ),
        state,
    )
    assert _verdict(manifest) is Verdict.BLOCK
    ok = _run(pre_tool("Bash", {"command": "npm install"}, cwd=str(project)), state)
    assert _verdict(ok) is Verdict.ALLOW


def test_secret_reads_and_writes(project: Path) -> None:
    read = _run(pre_tool("Read", {"file_path": ".env"}, cwd=str(project)))
    assert read[0].verdict is Verdict.BLOCK and read[0].title == "SECRET EXPOSURE REFLEX"
    assert (
        _verdict(_run(pre_tool("Read", {"file_path": ".env.example"}, cwd=str(project))))
        is Verdict.ALLOW
    )
    key = "AKIA" + "IOSFODNN7EXAMPLE"
    write = _run(
        pre_tool(
            "Write", {"file_path": "src/config.py", "content": f"KEY = '{key}'\n"}, cwd=str(project)
        )
    )
    assert _verdict(write) is Verdict.BLOCK
    assert any(f.code == "GATE-SECRET-WRITE" for f in write)


def test_policy_files_need_the_user(project: Path) -> None:
    edit = _run(
        pre_tool(
            "Write", {"file_path": ".agentreflex/allow.toml", "content": "x"}, cwd=str(project)
        )
    )
    assert _verdict(edit) is Verdict.ASK_USER and edit[0].code == "GATE-SELF-PROTECT"
    shell = _run(
        pre_tool(
            "Bash", {"command": "echo '[[allow]]' >> .agentreflex/allow.toml"}, cwd=str(project)
        )
    )
    assert _verdict(shell) is Verdict.ASK_USER


def test_agentreflex_caches_need_the_user(project: Path) -> None:
    """A forged cache note (which reflex handles PreToolUse) could switch the gate off."""
    home = os.path.expanduser("~")
    forged = f"{home}/.cache/agentreflex/reflex-meta-0123456789ab.json"
    edit = _run(pre_tool("Write", {"file_path": forged, "content": "{}"}, cwd=str(project)))
    assert _verdict(edit) is Verdict.ASK_USER and edit[0].code == "GATE-SELF-PROTECT"
    for command in (f"echo '{{}}' > {forged}", "cp /tmp/x.json ~/.cache/agentreflex/toml-ab.json"):
        shell = _run(pre_tool("Bash", {"command": command}, cwd=str(project)))
        assert _verdict(shell) is Verdict.ASK_USER, command
    other = _run(pre_tool("Write", {"file_path": f"{home}/.cache/pip/x", "content": ""}))
    assert all(f.code != "GATE-SELF-PROTECT" for f in other)


def _allow(project: Path, expires: str, rule: str = "GATE-GIT-RESET-HARD") -> None:
    (project / ".agentreflex").mkdir(exist_ok=True)
    (project / ".agentreflex" / "allow.toml").write_text(
        f'[[allow]]\nrule = "{rule}"\nexpires = "{expires}"\nreason = "scratch"\n'
    )


def test_allow_list_with_expiry(project: Path) -> None:
    event = pre_tool("Bash", {"command": "git reset --hard"}, cwd=str(project))
    assert _verdict(_run(event)) is Verdict.BLOCK
    _allow(project, "2999-01-01")
    # written into the project (by the agent, or a cloned repo): not approved, no effect
    unapproved = _run(event)
    assert _verdict(unapproved) is Verdict.BLOCK
    assert "GATE-ALLOW-LIST-UNAPPROVED" in [f.code for f in unapproved]
    trust.approve(str(project / ".agentreflex" / "allow.toml"))
    allowed = _run(event)
    assert _verdict(allowed) is Verdict.ALLOW and allowed[0].code == "GATE-ALLOWED"
    # other rules stay armed
    assert (
        _verdict(_run(pre_tool("Bash", {"command": "rm -rf ~"}, cwd=str(project)))) is Verdict.BLOCK
    )
    _allow(project, "2001-01-01")
    os.utime(project / ".agentreflex" / "allow.toml", (time.time() + 5, time.time() + 5))
    trust.approve(str(project / ".agentreflex" / "allow.toml"))
    assert _verdict(_run(event)) is Verdict.BLOCK


def test_policy_edit_cannot_be_allowed(project: Path) -> None:
    _allow(project, "2999-01-01", rule="GATE-SELF-PROTECT")
    trust.approve(str(project / ".agentreflex" / "allow.toml"))
    edit = _run(
        pre_tool(
            "Edit", {"file_path": ".agentreflex/config.toml", "new_string": "x"}, cwd=str(project)
        )
    )
    assert _verdict(edit) is Verdict.ASK_USER


def test_user_rules_add_blocks(project: Path) -> None:
    (project / ".agentreflex").mkdir()
    (project / ".agentreflex" / "gate-rules.toml").write_text(
        '[[rule]]\nid = "USER-NO-PROD"\ncommand = "psql"\ncontains = "prod"\nverdict = "block"\n'
        'message = "Never touch prod."\n'
    )
    hit = _run(pre_tool("Bash", {"command": "psql -h prod.db -c 'select 1'"}, cwd=str(project)))
    assert _verdict(hit) is Verdict.BLOCK and hit[0].code == "USER-NO-PROD"
    assert (
        _verdict(
            _run(pre_tool("Bash", {"command": "psql -h localhost -c 'select 1'"}, cwd=str(project)))
        )
        is Verdict.ALLOW
    )


class _Judge:
    name = "fake"

    def __init__(self, probs: dict[str, float], may_block: frozenset[str] = frozenset()) -> None:
        self.probs = probs
        self.may_block = may_block

    def ask(self, battery: str, ctx: ReflexContext) -> JudgeAnswer:
        return JudgeAnswer(probabilities=self.probs, backend="fake", may_block=self.may_block)


def test_judge_raises_but_never_lowers_floors(project: Path) -> None:
    low = _Judge({"destructive_irreversible": 0.0, "goal_alignment": 0.9})
    floor = _run(pre_tool("Bash", {"command": "rm -rf /"}, cwd=str(project)), judge=low)
    assert _verdict(floor) is Verdict.BLOCK
    high = _Judge(
        {"destructive_irreversible": 0.8, "goal_alignment": 0.9},
        may_block=frozenset({"destructive_irreversible"}),
    )
    raised = _run(pre_tool("Bash", {"command": "ls"}, cwd=str(project)), judge=high)
    assert _verdict(raised) is Verdict.BLOCK and raised[0].code == "GATE-JUDGE-DESTRUCTIVE"
    warn = _Judge({"destructive_irreversible": 0.6, "goal_alignment": 0.9})
    assert (
        _verdict(_run(pre_tool("Bash", {"command": "ls"}, cwd=str(project)), judge=warn))
        is Verdict.WARN
    )


def test_a_judge_below_the_precision_bar_can_only_warn(project: Path) -> None:
    # 0.99 is over every block threshold, but this signal's judge-only blocks were not shown
    # right 90% of the time on held-out data: the judge alone can only WARN
    unproven = _Judge(
        {"destructive_irreversible": 0.99, "secret_exposure": 0.99, "constraint_violation": 0.99}
    )
    findings = _run(pre_tool("Bash", {"command": "ls"}, cwd=str(project)), judge=unproven)
    assert findings and {f.verdict for f in findings} == {Verdict.WARN}
    codes = {f.code for f in findings}
    assert codes >= {"GATE-JUDGE-DESTRUCTIVE", "GATE-JUDGE-SECRET", "GATE-JUDGE-CONSTRAINT"}
    # each family is gated on its own: a map that shows only secret exposure at 0.9
    # precision lets that one BLOCK alone, and the others stay WARNs
    proven = _Judge(dict(unproven.probs), may_block=frozenset({"secret_exposure"}))
    mixed = _run(pre_tool("Bash", {"command": "ls"}, cwd=str(project)), judge=proven)
    by_code = {f.code: f.verdict for f in mixed}
    assert by_code["GATE-JUDGE-SECRET"] is Verdict.BLOCK
    assert by_code["GATE-JUDGE-CONSTRAINT"] is Verdict.WARN
    assert by_code["GATE-JUDGE-DESTRUCTIVE"] is Verdict.WARN
    # the floors are never weakened: a floor BLOCK stays a BLOCK with the same judge
    floor = _run(pre_tool("Bash", {"command": "rm -rf /"}, cwd=str(project)), judge=unproven)
    assert _verdict(floor) is Verdict.BLOCK


def test_pathological_input_answers_within_budget(project: Path) -> None:
    start = time.monotonic()
    findings = _run(pre_tool("Bash", {"command": "echo " + "$(" * 100_000}, cwd=str(project)))
    assert time.monotonic() - start < 5  # generous: must not hang
    assert _verdict(findings) in (Verdict.ASK_USER, Verdict.BLOCK)


def test_floor_out_of_time_fails_closed(project: Path) -> None:
    event = pre_tool("Bash", {"command": "ls | grep x && echo ok; git log -1"}, cwd=str(project))
    ctx = make_context(event)
    ctx.deadline = time.monotonic() - 1
    walker_steps = walker.Walker
    assert walker_steps is not None
    findings = GateReflex().evaluate(ctx)
    assert _verdict(findings) in (Verdict.BLOCK, Verdict.ALLOW)
    long_cmd = "; ".join(f"echo {i} | cat" for i in range(400))
    ctx = make_context(pre_tool("Bash", {"command": long_cmd}, cwd=str(project)))
    ctx.deadline = time.monotonic() - 1
    late = GateReflex().evaluate(ctx)
    assert _verdict(late) is Verdict.BLOCK and late[0].code == "GATE-PARSE-BUDGET"


def test_internal_error_fails_closed(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*_: Any, **__: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr("agentreflex.gate.analyze.analyse", boom)
    findings = _run(pre_tool("Bash", {"command": "ls"}, cwd=str(project)))
    assert findings[0].verdict is Verdict.BLOCK and findings[0].code == "GATE-INTERNAL-ERROR"


def test_bad_tool_input_gets_a_safe_answer(project: Path) -> None:
    for tool_input in ({"command": None}, {"command": ["rm", "-rf", "/"]}, {}):
        findings = _run(pre_tool("Bash", tool_input, cwd=str(project)))
        assert all(f.verdict in Verdict for f in findings)
    listed = _run(pre_tool("Bash", {"command": ["rm", "-rf", "/"]}, cwd=str(project)))
    assert _verdict(listed) is Verdict.BLOCK


@pytest.mark.parametrize(
    "command",
    [
        "bash",
        "/bin/bash -l",
        "python3",
        "python3 -i",
        "sh -i",
        "node",
        "cd src && zsh",
        "busybox ash",
        "busybox sh -i",
    ],
)
def test_codex_interactive_session_is_blocked(project: Path, command: str) -> None:
    """Codex runs no hook for write_stdin: what is typed into an open shell is unchecked."""
    findings = _run(pre_tool("Bash", {"command": command}, cwd=str(project), host="codex"))
    assert findings and findings[0].verdict is Verdict.BLOCK, command
    assert findings[0].code == "GATE-CODEX-STDIN" and "write_stdin" in findings[0].message


@pytest.mark.parametrize(
    "command",
    [
        "bash -c 'ls'",
        "bash build.sh",
        "python3 -m pytest -q",
        "python3 script.py",
        "python3 <<'EOF'\nprint(1)\nEOF",
        "python3 < input.py",
        "echo 'print(1)' | python3",
        "node -e 'console.log(1)'",
        "ls -la",
    ],
)
def test_codex_non_interactive_commands_are_not_the_stdin_rule(project: Path, command: str) -> None:
    findings = _run(pre_tool("Bash", {"command": command}, cwd=str(project), host="codex"))
    assert all(f.code != "GATE-CODEX-STDIN" for f in findings), (command, findings)


def test_interactive_shell_is_left_alone_outside_codex(project: Path) -> None:
    findings = _run(pre_tool("Bash", {"command": "bash"}, cwd=str(project)))
    assert all(f.code != "GATE-CODEX-STDIN" for f in findings)


@pytest.mark.parametrize(
    ("profile", "scoped", "wide"),
    [
        ("lean", Verdict.WARN, Verdict.BLOCK),
        ("balanced", Verdict.ASK_USER, Verdict.BLOCK),
        ("thorough", Verdict.ASK_USER, Verdict.BLOCK),
    ],
)
def test_the_configured_profile_decides_a_graded_finding(
    project: Path, profile: str, scoped: Verdict, wide: Verdict
) -> None:
    """A medium (scoped) pack hit warns in lean and asks elsewhere; a high one always blocks."""
    from agentreflex.core.testing import make_config

    cfg = make_config("enforced")
    cfg.profile = profile
    for command, want in (
        ("kubectl delete deploy web -n dev", scoped),
        ("kubectl delete namespace prod", wide),
    ):
        event = pre_tool("Bash", {"command": command}, cwd=str(project))
        findings = GateReflex().evaluate(make_context(event, config=cfg))
        assert _verdict(findings) is want, (profile, command)
        assert {f.code for f in findings} == {"GATE-PACK-CLOUD"}


def test_the_stdin_rule_follows_the_hosts_trait_not_its_name(project: Path) -> None:
    """Any host whose adapter declares UNCHECKED_STDIN gets the rule; one that does not, not."""
    from types import MappingProxyType

    from agentreflex.core.hosts import UNCHECKED_STDIN, register_host, unregister_host

    class Unhooked:
        name = "unhooked"
        events = MappingProxyType({})  # no events of its own: only its trait matters
        unknown_event = None
        traits = frozenset({UNCHECKED_STDIN})

    register_host("unhooked", Unhooked)
    try:
        opened = _run(pre_tool("Bash", {"command": "bash"}, cwd=str(project), host="unhooked"))
    finally:
        unregister_host("unhooked")
    assert opened and opened[0].code == "GATE-CODEX-STDIN"
    plain = _run(pre_tool("Bash", {"command": "bash"}, cwd=str(project), host="claude-code"))
    assert not [f for f in plain if f.code == "GATE-CODEX-STDIN"]
