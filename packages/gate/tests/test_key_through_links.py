"""The per-user key read through a folder link the agent made earlier (red-team rt35).

``ln -s ~/.local/state st`` (or ``ln -s ~ h``) is an ordinary link in the project, made
by a contained command: its target is no file of the guard's.  A host's Read tool
then opens ``st/agentreflex/key`` in the host's own process, outside the boundary,
and the OS follows the link.  The key's check looked for a link only in the last part
of the path, so a linked folder on the way passed.  Through the real hook entry point.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from agentreflex.core.testing import claude_pre_tool, enforced_project


def _read(project: Path, path: str) -> str:
    return claude_pre_tool(project, "Read", {"file_path": path}, state_dir=False)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    root = home / "proj"
    enforced_project(root)
    state = home / ".local" / "state" / "agentreflex"
    state.mkdir(parents=True)
    (state / "key").write_bytes(os.urandom(32))
    (root / "st").symlink_to(home / ".local" / "state")
    (root / "h").symlink_to(home)
    return root


@pytest.mark.parametrize("path", ["st/agentreflex/key", "h/.local/state/agentreflex/key"])
def test_the_key_through_a_linked_folder_is_asked_about(project: Path, path: str) -> None:
    answer = _read(project, str(project / path))
    assert "GATE-SELF-KEY" in answer, (path, answer)
    assert '"ask"' in answer or '"deny"' in answer, (path, answer)


def test_other_files_through_the_links_stay_allowed(project: Path) -> None:
    (project.parent / "notes.md").write_text("notes\n")
    answer = _read(project, str(project / "h" / "notes.md"))
    assert "GATE-SELF-KEY" not in answer, answer
