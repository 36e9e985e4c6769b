"""The work-tree paths a project's own git settings run or read are found (issue #28)."""

from __future__ import annotations

from pathlib import Path

import pytest
from agentreflex.core.contain import gitruns


def _project(tmp_path: Path, config: str, *paths: str) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "config").write_text(config)
    for path in paths:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("x")
    return root


@pytest.mark.parametrize(
    ("config", "held"),
    [
        ("[core]\n\thooksPath = .githooks\n", ".githooks"),
        ('[CORE]\n\tHOOKSPATH = ".githooks" ; the team\'s\n', ".githooks"),
        ("[core] hooksPath=.githooks\n", ".githooks"),
        # husky v9: its hooks in .husky/_ run .husky/NAME
        ("[core]\n\thooksPath = .husky/_\n", ".husky"),
        ("[include]\n\tpath = ../.gitconfig\n", ".gitconfig"),
        ('[includeIf "gitdir:~/work/"]\n\tpath = ../.gitconfig # shared\n', ".gitconfig"),
    ],
)
def test_what_the_projects_settings_point_into_the_work_tree(
    tmp_path: Path, config: str, held: str
) -> None:
    root = _project(tmp_path, config, ".githooks/pre-commit", ".husky/_/h", ".gitconfig")
    assert gitruns.named_paths(str(root), str(tmp_path / "home")) == [str(root / held)]


def test_a_relative_hooks_path_of_the_users_own_is_the_projects(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".config" / "git").mkdir(parents=True)
    (home / ".config" / "git" / "config").write_text("[core]\n\thooksPath = .hooks\n")
    (home / ".gitconfig").write_text("[include]\n\tpath = ../proj/.gitconfig\n")
    root = _project(tmp_path, "", ".hooks/pre-push", ".gitconfig")
    # (the user's own include is the user's: not read from their settings)
    assert gitruns.named_paths(str(root), str(home)) == [str(root / ".hooks")]


@pytest.mark.parametrize(
    "config",
    [
        "[core]\n\thooksPath = /usr/share/git-hooks\n",  # outside the project
        "[core]\n\thooksPath = missing\n",
        "[core]\n# hooksPath = .githooks\n",
        "[alias]\n\tpath = .githooks\n",
        "\x00\xff not a config",
    ],
)
def test_nothing_else_is_held(tmp_path: Path, config: str) -> None:
    root = _project(tmp_path, config, ".githooks/pre-commit")
    assert gitruns.named_paths(str(root), str(tmp_path / "home")) == []


def test_a_linked_work_trees_settings_are_read_in_the_common_folder(tmp_path: Path) -> None:
    """A linked work tree's ``.git`` is a file: git reads ``<main>/.git/config`` and its own
    ``config.worktree``, and a file an include names in the common folder (writable in the
    boundary for commits) is held as the project's own are."""
    import subprocess

    home, main = tmp_path / "home", tmp_path / "home" / "app"
    main.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(main)], check=True)
    ident = ["-c", "user.name=t", "-c", "user.email=t@e"]
    subprocess.run(["git", *ident, "-C", str(main), "commit", "-q", "--allow-empty", "-m", "a"])
    project = home / "app-feat"
    subprocess.run(["git", "-C", str(main), "worktree", "add", "-q", str(project)], check=True)
    with (main / ".git" / "config").open("a") as fh:
        fh.write("[core]\n\thooksPath = .githooks\n[include]\n\tpath = extra.config\n")
    (main / ".git" / "extra.config").write_text("")
    (project / ".githooks").mkdir()
    found = gitruns.named_paths(str(project), str(home))
    assert found == [str(project / ".githooks"), str(main / ".git" / "extra.config")]
