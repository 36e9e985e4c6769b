"""The project's AGENTS.md rules, enforced inside the real Claude Code.

An AGENTS.md that says "never edit files under generated/" blocks Claude
Code's Edit of a file there: the file is unchanged, the host lists the denial,
and the model's next request carries the rule's text and ``AGENTS.md:line``.
An edit elsewhere in the same session runs.  A rule "Run `make lint` before
committing" holds a commit until ``make lint`` has run.  The hook is the plugin installed
from this repository's marketplace, running the workspace's ``agentreflex``
(``AGENTREFLEX_BIN``), which has agentreflex-instructions installed.
"""

from __future__ import annotations

import json
import subprocess

import pytest
from hostharness.claude import ClaudeProject
from hostharness.fakemodel import bash, say, tool
from test_claude_code import assert_denied

pytestmark = pytest.mark.integration

RULES = """# Agent rules

- Prefer small, focused changes.
- Never edit files under generated/; they are produced by `make gen`.
"""


def test_agents_md_rule_blocks_an_edit_under_generated_and_allows_one_elsewhere(
    claude_project: ClaudeProject,
) -> None:
    claude_project.set_mode("enforced")
    claude_project.write("AGENTS.md", RULES)
    generated = claude_project.write("generated/api.py", "VERSION = 1\n")
    source = claude_project.write("src/app.py", "VERSION = 1\n")
    script = [
        tool("Read", file_path=str(generated)),
        tool("Edit", file_path=str(generated), old_string="VERSION = 1", new_string="VERSION = 2"),
        tool("Read", file_path=str(source)),
        tool("Edit", file_path=str(source), old_string="VERSION = 1", new_string="VERSION = 2"),
        say("Bumped the version in src/app.py; generated/ is produced by make gen."),
    ]
    run = claude_project.run("bump VERSION to 2", script)
    assert generated.read_text() == "VERSION = 1\n", run.describe()
    assert source.read_text() == "VERSION = 2\n", run.describe()
    reason = assert_denied(run, "Edit")
    assert "AGENTS.md:4" in reason, reason
    assert "Never edit files under generated/" in reason, reason
    assert [d.get("tool_name") for d in run.denials] == ["Edit"], run.describe()


GIT = "git -c user.name=T -c user.email=t@example.invalid -c commit.gpgsign=false"


def test_a_commit_waits_for_the_command_agents_md_requires(claude_project: ClaudeProject) -> None:
    claude_project.set_mode("enforced")
    claude_project.write("AGENTS.md", "# Rules\n\n- Run `make lint` before committing.\n")
    claude_project.write("Makefile", "lint:\n\t@echo lint-ok > lint.log\n")
    source = claude_project.write("src/app.py", "VERSION = 1\n")
    subprocess.run(["git", "add", "-A"], cwd=claude_project.project, check=True)
    subprocess.run([*GIT.split(), "commit", "-qm", "base"], cwd=claude_project.project, check=True)
    commit = f"{GIT} commit -qam bump"
    script = [
        tool("Write", file_path=str(source), content="VERSION = 2\n"),
        bash(commit),
        bash("make lint"),
        bash(commit),
        say("Linted and committed."),
    ]
    run = claude_project.run("bump VERSION and commit", script)
    reason = assert_denied(run, "Bash")
    assert "AGENTS.md:3" in reason and "Run `make lint` before committing." in reason, reason
    assert len(run.denials) == 1, run.describe()
    assert (claude_project.project / "lint.log").read_text() == "lint-ok\n", run.describe()
    log = subprocess.run(
        ["git", "log", "--format=%s"], cwd=claude_project.project, capture_output=True, text=True
    )
    assert log.stdout.split()[:2] == ["bump", "base"], run.describe()


def test_a_nested_agents_md_reaches_the_model_beside_an_edit_in_its_folder(
    claude_project: ClaudeProject,
) -> None:
    """Claude Code reads the root's instruction files itself, not a nested AGENTS.md: its
    rules for the file being edited join the model's next request, once."""
    claude_project.set_mode("enforced")
    claude_project.write("AGENTS.md", RULES)
    claude_project.write(
        "src/api/AGENTS.md", "# API rules\n\n- Every handler validates its input with pydantic.\n"
    )
    handler = claude_project.write("src/api/handler.py", "VERSION = 1\n")
    script = [
        tool("Read", file_path=str(handler)),
        tool("Edit", file_path=str(handler), old_string="VERSION = 1", new_string="VERSION = 2"),
        say("Bumped."),
    ]
    run = claude_project.run("bump VERSION in the API handler", script)
    assert handler.read_text() == "VERSION = 2\n", run.describe()
    after_edit = json.dumps(run.main_requests[-1])
    assert "src/api/AGENTS.md:3" in after_edit, run.describe()
    assert "Every handler validates its input with pydantic." in after_edit, run.describe()
    assert "Never edit files under generated/" not in after_edit.split("src/api/AGENTS.md")[1]
