"""The project's AGENTS.md rules, enforced inside the real Claude Code.

An AGENTS.md that says "never edit files under generated/" blocks Claude
Code's Edit of a file there: the file is unchanged, the host lists the denial,
and the model's next request carries the rule's text and ``AGENTS.md:line``.
An edit elsewhere in the same session runs.  The hook is the plugin installed
from this repository's marketplace, running the workspace's ``agentreflex``
(``AGENTREFLEX_BIN``), which has agentreflex-instructions installed.
"""

from __future__ import annotations

import pytest
from hostharness.claude import ClaudeProject
from hostharness.fakemodel import say, tool
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
