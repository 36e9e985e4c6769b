"""Fixtures for the real-host integration tests.

The first run installs the pinned host CLI from its registry into ``.hosts/``; later
runs reuse it. A host that cannot be installed is a test failure with the reason,
never a skip: these tests are the proof that the plugin blocks in the real host.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostharness.claude import (
    AGENTREFLEX_SCRIPT,
    ClaudeProject,
    HostUnavailableError,
    install_claude,
)


@pytest.fixture(scope="session")
def claude_binary() -> Path:
    try:
        return install_claude()
    except HostUnavailableError as exc:
        pytest.fail(f"Claude Code is not available, so the plugin cannot be proven: {exc}")


@pytest.fixture
def agentreflex_script() -> Path:
    if not AGENTREFLEX_SCRIPT.is_file():
        pytest.fail(
            f"{AGENTREFLEX_SCRIPT} does not exist: the test environment has no agentreflex "
            "console script (install the workspace: uv sync)."
        )
    return AGENTREFLEX_SCRIPT


@pytest.fixture
def claude_project(tmp_path: Path, claude_binary: Path, agentreflex_script: Path) -> ClaudeProject:
    return ClaudeProject(tmp_path, claude_binary)


@pytest.fixture(autouse=True)
def no_git_left_in_the_shared_temp_dir() -> Iterator[None]:
    """Codex's workspace sandbox keeps ``.git`` read-only in each writable root, /tmp
    among them, and bubblewrap leaves an empty ``/tmp/.git`` as the mount point when
    there was none.  Left there it makes every later scratch folder under /tmp look
    like part of a git project; a test that caused it takes it away again."""
    import tempfile

    marker = Path(tempfile.gettempdir()) / ".git"
    existed = marker.exists()
    yield
    if not existed and marker.is_dir() and not any(marker.iterdir()):
        marker.rmdir()
