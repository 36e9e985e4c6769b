"""``[worktree] allow_undoable``'s rules, core alone (the real gate's answers: tests/test_worktree_relax.py).

Which commands a snapshot can undo (one plain git or rm command whose paths
stay in the work tree), which gate codes may be relaxed, and the setting.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from agentreflex.core.config.settings import ConfigError, load_config
from agentreflex.core.worktree import observe, relax

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_worktree import repo  # noqa: F401  (fixture)


def test_command_confinement_rules(repo: Path) -> None:  # noqa: F811
    found = observe.find_repo(str(repo))
    assert found is not None
    ok = [
        "git reset --hard",
        "git reset -q --hard HEAD",
        "git restore src",
        "git clean -fd src",
        "git checkout src/b.py",
        "rm -rf src",
        "rm src/b.py",
    ]
    for command in ok:
        assert relax.command_confined(command, str(repo), found), command
    bad = [
        "git clean -ffd",
        "git clean -fX",
        "git checkout main",
        "git checkout -f -- .",
        "git checkout main -- .",
        "git restore --source=HEAD~3 .",
        "git reset --hard --recurse-submodules",
        "rm -rf .",
        "rm -rf /tmp/x",
        "rm -rf .git",
        "rm *.py",
        "rm 'unclosed",
        "ls",
        "git",
        "git clean -f --dry-run",
    ]
    for command in bad:
        assert not relax.command_confined(command, str(repo), found), command
    assert not relax.command_confined("rm -rf -- -/../../x", str(repo), found)
    assert not relax.command_confined("git clean -f -- -/../../x", str(repo), found)
    assert relax.command_confined("rm -rf -- src", str(repo), found)
    os.symlink(str(repo.parent), repo / "out")
    assert not relax.command_confined("rm -rf out/", str(repo), found)


def test_the_profile_sets_the_default_and_config_checks_it(tmp_path: Path) -> None:
    home_cfg = Path(os.environ["XDG_CONFIG_HOME"]) / "agentreflex"
    home_cfg.mkdir(parents=True, exist_ok=True)
    assert load_config(str(tmp_path)).worktree_allow_undoable == "asks"  # balanced
    (home_cfg / "config.toml").write_text('profile = "lean"\n')
    assert load_config(str(tmp_path)).worktree_allow_undoable == "discards"
    (home_cfg / "config.toml").write_text('profile = "thorough"\n')
    assert load_config(str(tmp_path)).worktree_allow_undoable == "off"
    (home_cfg / "config.toml").write_text(
        'profile = "thorough"\n[worktree]\nallow_undoable = "discards"\n'
    )
    assert load_config(str(tmp_path)).worktree_allow_undoable == "discards"
    (home_cfg / "config.toml").write_text('[worktree]\nallow_undoable = "always"\n')
    with pytest.raises(ConfigError, match="allow_undoable"):
        load_config(str(tmp_path))


def test_a_project_config_cannot_relax_more_without_approval(tmp_path: Path) -> None:
    """``allow_undoable`` weakens the guard: a project file's "discards" waits for `trust`."""
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".agentreflex").mkdir()
    (project / ".agentreflex" / "config.toml").write_text(
        '[worktree]\nallow_undoable = "discards"\n'
    )
    config = load_config(str(project))
    assert config.worktree_allow_undoable == "asks"
    assert any("allow_undoable" in line for line in config.untrusted), config.untrusted
    (project / ".agentreflex" / "config.toml").write_text('[worktree]\nallow_undoable = "off"\n')
    assert load_config(str(project)).worktree_allow_undoable == "off"  # stricter: applies
