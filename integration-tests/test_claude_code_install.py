"""``agentreflex install claude-code --project`` in the real Claude Code, with no plugin.

The hooks the installer writes into ``.claude/settings.json`` are the only thing
that connects Claude Code to agentreflex here, so a blocked ``rm -rf`` proves they
work; uninstall then gives the user back the settings file they had.
"""

from __future__ import annotations

import base64
import json
import subprocess

import pytest
from hostharness.claude import AGENTREFLEX_SCRIPT, ClaudeProject
from hostharness.fakemodel import bash, say
from test_claude_code import assert_denied, make_sentinel_dir

pytestmark = pytest.mark.integration

USER_SETTINGS = {
    "permissions": {"allow": ["Bash(ls:*)"]},
    "env": {"PROJECT_FLAG": "1"},
}


def agentreflex(project: ClaudeProject, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(AGENTREFLEX_SCRIPT), *args, "--project-dir", str(project.project)],
        env=project.env(),
        cwd=project.project,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done


def test_install_wires_claude_code_and_uninstall_restores_the_settings(
    claude_project: ClaudeProject,
) -> None:
    project = claude_project
    project.with_plugin = False  # nothing but the settings install writes
    project.set_mode("enforced")
    settings = project.project / ".claude" / "settings.json"
    original = json.dumps(USER_SETTINGS, indent=2) + "\n"
    project.write(".claude/settings.json", original)

    installed = agentreflex(project, "install", "claude-code", "--project")
    assert f"wired claude-code hooks in {settings}" in installed.stdout
    hooks = json.loads(settings.read_text())["hooks"]
    assert str(AGENTREFLEX_SCRIPT) in hooks["PreToolUse"][0]["hooks"][0]["command"]

    target = make_sentinel_dir(project)
    run = project.run("clean up", [bash(f"rm -rf {target}"), say("Cleaned up.")])
    assert (target / "keep.txt").read_text() == "precious\n", run.describe()
    assert "GATE-RM-" in assert_denied(run, "Bash")
    assert not list((project.config_dir / "plugins").glob("**/agentreflex*")), "no plugin here"

    agentreflex(project, "uninstall", "claude-code", "--project")
    assert settings.read_text() == original


@pytest.mark.parametrize("scope", ["--project", "--user"])
def test_installed_hooks_contain_a_command_that_slips_past_the_gate(
    claude_project: ClaudeProject, scope: str
) -> None:
    """Hooks in the settings files (no plugin), enforced mode, Claude Code's sandbox off:
    PreToolUse's ``updatedInput`` runs the Bash command inside agentreflex's bubblewrap, so
    an interpreter write the gate cannot read fails read-only and ordinary work runs."""
    project = claude_project
    project.with_plugin = False
    project.set_mode("enforced")
    agentreflex(project, "install", "claude-code", *([scope] if scope == "--project" else []))
    config = project.project / ".agentreflex" / "config.toml"
    before = config.read_text()
    (project.project / "w.py").write_text(
        "import base64\nopen(base64.b64decode(open('where.txt').read()).decode(), 'w').write('x')\n"
    )
    (project.project / "where.txt").write_text(
        base64.b64encode(b".agentreflex/config.toml").decode()
    )
    run = project.run("work", [bash("python3 w.py"), bash("echo ok > made.txt"), say("Done.")])
    outputs = json.dumps(run.main_requests[-1])
    assert "Read-only file system" in outputs, run.describe()
    assert config.read_text() == before
    assert (project.project / "made.txt").read_text() == "ok\n", run.describe()
