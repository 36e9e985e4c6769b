"""agentreflex inside the real Codex CLI 0.169.0, offline, installed the user's way.

Each scenario installs ``@openai/codex`` (once, from npm, into ``.hosts/``),
runs ``agentreflex install codex`` into a fresh ``CODEX_HOME`` and drives
``codex exec`` inside ``unshare -n`` against the scripted fake Responses API
(:mod:`hostharness.fake_openai_responses`).  No run passes a hook-trust bypass
flag except the one control that shows what the trust install records changes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.install.codex_trust import our_entries
from hostharness.claude import HostUnavailableError
from hostharness.codex import CodexProject, CodexRun, install_codex
from hostharness.fakemodel import Turn, say, tool

pytestmark = pytest.mark.integration

BLOCKED = "Command blocked by PreToolUse hook"
BYPASS = "--dangerously-bypass-hook-trust"


@pytest.fixture(scope="session")
def codex_binary() -> Path:
    try:
        return install_codex()
    except HostUnavailableError as exc:
        pytest.fail(f"Codex is not available, so the guard cannot be proven in it: {exc}")


@pytest.fixture
def codex_project(tmp_path: Path, codex_binary: Path) -> Iterator[CodexProject]:
    project = CodexProject(tmp_path, codex_binary)
    project.set_mode("enforced")
    yield project
    project.cleanup()


@pytest.fixture
def installed(codex_project: CodexProject) -> CodexProject:
    out = codex_project.install()
    assert "hooks trusted in" in out, out
    return codex_project


def exec_command(cmd: str, text: str | None = None) -> Turn:
    return tool("exec_command", text=text, cmd=cmd)


def apply_patch(patch: str) -> Turn:
    return tool("apply_patch", input=patch)


def wipe(target: Path) -> str:
    """A recursive delete Codex's own command policy lets through (it refuses ``rm -f``)."""
    return f"find {target} -delete"


def make_sentinel_dir(project: CodexProject) -> Path:
    """Work of the user's outside the project, in their home (which the gate protects)."""
    target = project.home / "important-notes"
    target.mkdir()
    (target / "keep.txt").write_text("precious\n")
    return target


def doctor_codex(project: CodexProject) -> dict[str, Any]:
    done = project.agentreflex("doctor", "--json", "--cwd", str(project.project))
    checks = {c["check"]: c for c in json.loads(done.stdout)["checks"]}
    return dict(checks["host codex"])


def assert_blocked(run: CodexRun) -> str:
    """The model's next request shows the call blocked with our reason; returns that output."""
    outputs = run.tool_outputs()
    assert outputs, run.describe()
    assert BLOCKED in outputs[0], run.describe()
    assert len(outputs[0]) > len(BLOCKED) + 20, outputs[0]  # a reason, not just the verdict
    return outputs[0]


# ------------------------------------------------------------ the shell: exec_command


def test_destructive_command_is_blocked_and_the_reason_reaches_the_model(
    installed: CodexProject,
) -> None:
    target = make_sentinel_dir(installed)
    run = installed.run("clean up", [exec_command(wipe(target)), say("Cleaned up.")])
    assert (target / "keep.txt").read_text() == "precious\n", run.describe()
    assert "GATE-RM-" in assert_blocked(run), run.describe()  # the rule that fired, named
    assert "hook: PreToolUse Blocked" in run.stderr, run.describe()
    assert run.rc == 0, run.describe()


def test_benign_command_runs(installed: CodexProject) -> None:
    run = installed.run("make a file", [exec_command("echo hello > made.txt"), say("Made it.")])
    assert (installed.project / "made.txt").read_text() == "hello\n", run.describe()
    assert "hook: PreToolUse Completed" in run.stderr, run.describe()  # the hook ran, allowed
    assert BLOCKED not in "".join(run.tool_outputs()), run.describe()


# ------------------------------------------------------------ trust


def test_untrusted_hooks_are_reported_and_after_install_run_without_bypass(
    codex_project: CodexProject,
) -> None:
    project = codex_project
    project.install()
    config = project.codex_home / "config.toml"
    hooks_path = project.codex_home / "hooks.json"
    # Codex itself agrees with every hash install recorded
    listed = {h["key"]: h for h in project.hooks_list()}
    ours = our_entries(str(hooks_path), json.loads(hooks_path.read_text()), "codex")
    assert len(ours) == 7
    for key, digest in ours.items():
        assert listed[key]["currentHash"] == digest, listed[key]
        assert listed[key]["trustStatus"] == "trusted", listed[key]
    # hooks.json as a hand-wired setup (or an older install) leaves it: nobody trusted them
    trusted_config = config.read_text()
    config.write_text(trusted_config.split("# >>> agentreflex hook trust")[0])
    assert {h["trustStatus"] for h in project.hooks_list() if h["key"] in ours} == {"untrusted"}
    check = doctor_codex(project)
    assert check["ok"] is False and "UNTRUSTED" in check["detail"], check

    target = make_sentinel_dir(project)
    script = [exec_command(wipe(target)), say("Cleaned up.")]
    skipped = project.run("clean up", script)  # Codex skips untrusted hooks, silently
    assert not target.exists(), skipped.describe()
    assert "hook:" not in skipped.stderr, skipped.describe()

    target = make_sentinel_dir(project)
    bypassed = project.run("clean up", script, BYPASS)  # the one run with the bypass flag
    assert target.exists(), bypassed.describe()
    assert_blocked(bypassed)

    out = project.install()  # install again: it records the trust
    assert "hooks trusted in" in out, out
    assert doctor_codex(project)["ok"] is True
    run = project.run("clean up", script)
    assert BYPASS not in " ".join(project.exec_argv("x"))
    assert (target / "keep.txt").read_text() == "precious\n", run.describe()
    assert_blocked(run)
