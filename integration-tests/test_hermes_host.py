"""agentreflex inside the real Hermes Agent (0.19.0 from PyPI), offline.

Each scenario installs the plugin the user's way (``agentreflex install hermes``,
which copies it into ``$HERMES_HOME/plugins`` and runs ``hermes plugins enable``),
then runs ``hermes -z`` against the scripted fake chat-completions model inside
``unshare -n``.  What is checked is what happened on disk and what Hermes sent the
model next (the block reason arrives as the tool result).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hostharness.claude import HostUnavailableError
from hostharness.fakemodel import Turn, say, tool
from hostharness.hermes import HermesProject, HermesRun, install_hermes

pytestmark = pytest.mark.integration


@pytest.fixture(scope="session")
def hermes_binary() -> Path:
    try:
        return install_hermes()
    except HostUnavailableError as exc:
        pytest.fail(f"Hermes Agent is not available, so the plugin cannot be proven: {exc}")


@pytest.fixture
def hermes(tmp_path: Path, hermes_binary: Path, agentreflex_script: Path) -> HermesProject:
    project = HermesProject(tmp_path, hermes_binary)
    project.set_mode("enforced")
    return project


def terminal(command: str) -> Turn:
    return tool("terminal", command=command)


def make_sentinel_dir(project: HermesProject) -> Path:
    """Work of the user's in their home, which the gate protects."""
    target = project.home / "important-notes"
    target.mkdir()
    (target / "keep.txt").write_text("precious\n")
    return target


def blocked_reason(run: HermesRun, tool_name: str) -> str:
    """The tool result the model got for a blocked ``tool_name`` call."""
    results = run.tool_messages(tool_name)
    assert results, run.describe()
    return results[0]


def test_destructive_terminal_command_is_blocked(hermes: HermesProject) -> None:
    target = make_sentinel_dir(hermes)
    run = hermes.run("clean up", [terminal(f"rm -rf {target}"), say("Cleaned up.")])
    assert (target / "keep.txt").read_text() == "precious\n", run.describe()
    reason = blocked_reason(run, "terminal")
    assert "GATE-RM-" in reason, run.describe()  # our reason reached the model's next request
    assert run.rc == 0 and "Cleaned up." in run.stdout, run.describe()


def test_benign_terminal_command_runs(hermes: HermesProject) -> None:
    made = hermes.project / "made-by-hermes.txt"
    run = hermes.run("make a file", [terminal(f"echo hello > {made}"), say("Made it.")])
    assert made.read_text() == "hello\n", run.describe()
    assert "agentreflex" not in blocked_reason(run, "terminal"), run.describe()
