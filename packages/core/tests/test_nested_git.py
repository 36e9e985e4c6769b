"""The git settings of a repository inside the project: what a command added that runs a program is undone.

A folder of several repositories opened as one project, or a vendored checkout:
each inside repository's ``.git/config`` and ``.git/hooks`` are written
freely inside the boundary (only the project's own are read-only), and what
they name runs outside it the next time git runs there (a shell prompt runs
``git status`` on ``cd``).  The hook looks before and after each command.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.contain import nestedgit, planted
from agentreflex.core.decision import Verdict
from agentreflex.core.testing import hook_env, run_contained, shell_hook


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout


TOKEN = "sentinel-3f9a0c"  # a credential in the settings: never written anywhere


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A folder holding two repositories (no repository of its own), one with the user's pager."""
    root = tmp_path / "work"
    for name in ("api", "web"):
        (root / name).mkdir(parents=True)
        _git(root / name, "init", "-q")
    _git(root / "api", "config", "core.pager", "less -R")  # the user's own: stays
    _git(root / "api", "config", "http.extraHeader", f"Authorization: Bearer {TOKEN}")
    (root / "api" / ".git" / "hooks" / "pre-push").write_text("#!/bin/sh\nexit 0\n")
    return root


def _hook(root: Path, kind: str, command: str, call: str = "toolu_nested") -> Any:
    return shell_hook(root, kind, command, hook_env(root), session="nested", call=call)


def _run_as_the_host(root: Path, command: str) -> None:
    """In the real boundary: it holds the project's own git settings, not these."""
    run_contained(root, command)


ATTACK = (
    "git -C api config core.fsmonitor 'touch /tmp/x' && "
    "python3 -c \"open('web/.git/config', 'a').write('[alias]\\n  st = !touch /tmp/y\\n')\" && "
    "printf '#!/bin/sh\\ntouch /tmp/z\\n' > api/.git/hooks/post-checkout && "
    "chmod +x api/.git/hooks/post-checkout"
)


def test_what_a_command_added_is_taken_out_and_the_users_own_stays(workspace: Path) -> None:
    _hook(workspace, "PreToolUse", ATTACK)
    _run_as_the_host(workspace, ATTACK)
    assert "fsmonitor" in _git(workspace / "api", "config", "--list")  # the boundary let it
    outcome = _hook(workspace, "PostToolUse", ATTACK)
    api = _git(workspace / "api", "config", "--list")
    assert "core.fsmonitor" not in api and "core.pager=less -R" in api
    assert "alias.st" not in _git(workspace / "web", "config", "--list")
    hooks = workspace / "api" / ".git" / "hooks"
    assert not (hooks / "post-checkout").exists() and (hooks / "pre-push").exists()
    finding = next(f for f in outcome.decision.findings if f.code == planted.NESTED_CODE)
    assert finding.verdict is Verdict.WARN
    assert "core.fsmonitor" in finding.message and "alias.st" in finding.message
    assert "post-checkout" in finding.message
    moved = list((workspace.parent / "state" / "planted").rglob("post-checkout"))
    assert [p.read_text() for p in moved] == ["#!/bin/sh\ntouch /tmp/z\n"]  # nothing lost
    assert TOKEN in api  # the user's own: stays, and its value is written nowhere of ours
    for path in (workspace.parent / "state").rglob("*"):
        assert not path.is_file() or TOKEN.encode() not in path.read_bytes(), path


def test_everyday_git_work_in_an_inside_repository_is_left_alone(workspace: Path) -> None:
    command = (
        "git -C api remote add origin https://example.invalid/api.git && "
        "git -C api config branch.main.remote origin && git -C api config user.email a@b.c && "
        "git clone -q api copy"
    )
    _hook(workspace, "PreToolUse", command)
    _run_as_the_host(workspace, command)
    outcome = _hook(workspace, "PostToolUse", command)
    assert not [f for f in outcome.decision.findings if f.code == planted.NESTED_CODE]
    api = _git(workspace / "api", "config", "--list")
    assert "remote.origin.url=https://example.invalid/api.git" in api and "a@b.c" in api
    assert (workspace / "copy" / ".git").is_dir()


def test_a_repository_the_command_made_is_looked_at_too(workspace: Path) -> None:
    command = "git init -q fresh && git -C fresh config core.sshCommand 'sh -c id'"
    _hook(workspace, "PreToolUse", command)
    _run_as_the_host(workspace, command)
    outcome = _hook(workspace, "PostToolUse", command)
    assert "sshcommand" not in _git(workspace / "fresh", "config", "--list").lower()
    assert any(f.code == planted.NESTED_CODE for f in outcome.decision.findings)


def test_a_repository_two_folders_down_is_looked_at_and_its_everyday_work_stays(
    workspace: Path,
) -> None:
    """A monorepo's ``packages/web``: everyday settings stay, a program setting goes; one
    in ``node_modules`` (git dependencies npm cloned) is passed over."""
    command = (
        "git init -q packages/web && git -C packages/web remote add origin https://e.x/w.git"
        " && git -C packages/web config user.name u"
        " && git -C packages/web config core.pager 'sh -c id'"
        " && git init -q node_modules/dep && git -C node_modules/dep config core.pager less"
    )
    _hook(workspace, "PreToolUse", command)
    _run_as_the_host(workspace, command)
    _hook(workspace, "PostToolUse", command)
    settings = _git(workspace / "packages" / "web", "config", "--list").lower()
    assert "core.pager" not in settings
    assert "remote.origin.url" in settings and "user.name=u" in settings
    assert "core.pager=less" in _git(workspace / "node_modules" / "dep", "config", "--list")


SECRET_SCAN = '#!/bin/sh\ngit secrets --pre_commit_hook -- "$@"\n'


@pytest.fixture
def template(workspace: Path) -> Path:
    """The user's git template, as awslabs/git-secrets' README sets one up
    (``git secrets --install ~/.git-templates/git-secrets`` and
    ``git config --global init.templateDir``); pre-commit's ``init-templatedir``
    makes the same kind."""
    folder = Path(os.environ["HOME"]) / ".git-templates" / "git-secrets"
    (folder / "hooks").mkdir(parents=True)
    for name in ("pre-commit", "commit-msg"):
        (folder / "hooks" / name).write_text(SECRET_SCAN)
        (folder / "hooks" / name).chmod(0o755)
    _git(workspace, "config", "--global", "init.templateDir", "~/.git-templates/git-secrets")
    return folder


def test_the_users_template_hooks_in_a_repository_the_command_made_stay(
    workspace: Path, template: Path
) -> None:
    """``git clone`` and ``git init`` copy the user's template hooks: a secret scan, kept."""
    command = "git init -q fresh && git clone -q api copy"
    _hook(workspace, "PreToolUse", command)
    _run_as_the_host(workspace, command)
    outcome = _hook(workspace, "PostToolUse", command)
    assert not [f for f in outcome.decision.findings if f.code == planted.NESTED_CODE]
    for repo in ("fresh", "copy"):
        assert (workspace / repo / ".git" / "hooks" / "pre-commit").read_text() == SECRET_SCAN
    # and not named before the next command either
    nxt = _hook(workspace, "PreToolUse", "make", call="next")
    assert not [f for f in nxt.decision.findings if f.code == planted.NESTED_CODE]


def test_a_hook_that_differs_from_the_template_is_moved_aside(
    workspace: Path, template: Path, tmp_path: Path
) -> None:
    """The command's own ``--template`` (or a changed copy) is not the user's template."""
    other = tmp_path / "tpl"
    (other / "hooks").mkdir(parents=True)
    (other / "hooks" / "pre-commit").write_text("#!/bin/sh\ntouch /tmp/owned\n")
    command = (
        f"git init -q --template={other} fresh && git init -q two && "
        "printf 'touch /tmp/owned\\n' >> two/.git/hooks/commit-msg"
    )
    _hook(workspace, "PreToolUse", command)
    _run_as_the_host(workspace, command)
    outcome = _hook(workspace, "PostToolUse", command)
    assert not (workspace / "fresh" / ".git" / "hooks" / "pre-commit").exists()
    assert not (workspace / "two" / ".git" / "hooks" / "commit-msg").exists()
    assert (workspace / "two" / ".git" / "hooks" / "pre-commit").read_text() == SECRET_SCAN
    assert any(f.code == planted.NESTED_CODE for f in outcome.decision.findings)


def test_a_template_the_agent_can_write_is_not_taken_at_its_word(
    workspace: Path, tmp_path: Path
) -> None:
    """A template in a temp folder: a command wrote its hooks before the one that copies them."""
    folder = tmp_path / "shared-template"
    (folder / "hooks").mkdir(parents=True)
    _git(workspace, "config", "--global", "init.templateDir", str(folder))
    plant = f"printf '#!/bin/sh\\ntouch /tmp/owned\\n' > {folder}/hooks/post-checkout"
    _hook(workspace, "PreToolUse", plant, call="plant")
    _run_as_the_host(workspace, plant)
    _hook(workspace, "PostToolUse", plant, call="plant")
    assert (folder / "hooks" / "post-checkout").exists()  # the temp folders are writable
    command = "git init -q fresh"
    _hook(workspace, "PreToolUse", command)
    _run_as_the_host(workspace, command)
    outcome = _hook(workspace, "PostToolUse", command)
    assert not (workspace / "fresh" / ".git" / "hooks" / "post-checkout").exists()
    assert any(f.code == planted.NESTED_CODE for f in outcome.decision.findings)


def test_unchanged_settings_are_not_read_again(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Most commands change no settings: git is started only when a file's stamp moved."""
    _hook(workspace, "PreToolUse", "make", call="one")
    _hook(workspace, "PostToolUse", "make", call="one")
    started: list[list[str]] = []
    real = nestedgit._entries
    monkeypatch.setattr(nestedgit, "_entries", lambda c: started.append([c]) or real(c))
    _hook(workspace, "PreToolUse", "make", call="two")
    _hook(workspace, "PostToolUse", "make", call="two")
    assert started == []
    _git(workspace / "web", "config", "user.name", "someone")  # the user, between commands
    _hook(workspace, "PreToolUse", "make", call="three")
    # read for what changed since the last command, and for this one's record: web's alone
    assert {Path(c[0]).parent.parent.name for c in started} == {"web"}
    _hook(workspace, "PostToolUse", "make", call="three")
    started.clear()
    _hook(workspace, "PreToolUse", "make", call="four")  # the records caught up: no reading
    _hook(workspace, "PostToolUse", "make", call="four")
    assert started == []


def test_links_are_moved_aside_never_followed(workspace: Path, tmp_path: Path) -> None:
    """A hooks folder linked to ~/.ssh must not have ~/.ssh's files moved as "hooks", and
    settings linked to the user's ~/.gitconfig must not have its entries taken out."""
    elsewhere = tmp_path / "dotssh"
    elsewhere.mkdir()
    (elsewhere / "id_ed25519").write_text("KEY")
    gitconfig = tmp_path / "gitconfig"
    gitconfig.write_text("[core]\n\tpager = less\n[alias]\n\tst = status\n")
    command = (
        f"rm -rf web/.git/hooks && ln -s {elsewhere} web/.git/hooks && "
        f"mv api/.git/config api/.git/config.old && ln -s {gitconfig} api/.git/config"
    )
    _hook(workspace, "PreToolUse", command)
    subprocess.run(["bash", "-c", command], cwd=workspace, check=True)  # (no boundary here)
    outcome = _hook(workspace, "PostToolUse", command)
    assert (elsewhere / "id_ed25519").read_text() == "KEY"
    assert gitconfig.read_text() == "[core]\n\tpager = less\n[alias]\n\tst = status\n"
    assert not (workspace / "web" / ".git" / "hooks").is_symlink()
    assert not (workspace / "api" / ".git" / "config").is_symlink()
    finding = next(f for f in outcome.decision.findings if f.code == planted.NESTED_CODE)
    assert "web/.git/hooks" in finding.message and "api/.git/config" in finding.message


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """A project that is a repository with a commit, and its user's own pager setting."""
    root = _repository_with_a_commit(tmp_path / "proj")
    _git(root, "config", "core.pager", "less -R")
    return root


def _repository_with_a_commit(root: Path) -> Path:
    root.mkdir()
    _git(root, "init", "-q")
    _git(
        root,
        "-c",
        "user.name=u",
        "-c",
        "user.email=u@u",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "x",
    )
    return root


def test_worktrees_and_submodules_are_left_alone(repository: Path, tmp_path: Path) -> None:
    """``git worktree add`` (one and two folders down) and ``git submodule add`` make ``.git``
    files and linked worktrees' folders; what they lead to is the project's own settings,
    which the boundary holds, so nothing is moved."""
    source = _repository_with_a_commit(tmp_path / "lib")
    command = (
        "git worktree add -q wt && git worktree add -q .worktrees/feat && "
        f"git -c protocol.file.allow=always submodule add -q {source} lib && git -C wt status"
    )
    _hook(repository, "PreToolUse", command)
    _run_as_the_host(repository, command)
    outcome = _hook(repository, "PostToolUse", command)
    assert not [f for f in outcome.decision.findings if f.code == planted.NESTED_CODE]
    for linked in ("wt", ".worktrees/feat", "lib"):
        assert (repository / linked / ".git").is_file(), linked
        _git(repository / linked, "status")
    assert sorted(p.name for p in (repository / ".git" / "worktrees").iterdir()) == ["feat", "wt"]


POINTED = (
    "git worktree add -q wt && git init -q --bare /tmp/ar-nested-evil && "
    "git --git-dir=/tmp/ar-nested-evil config core.fsmonitor 'touch /tmp/ar-nested-pwned' && "
    "echo /tmp/ar-nested-evil > .git/worktrees/wt/commondir && "
    "mkdir sub && echo 'gitdir: /tmp/ar-nested-evil' > sub/.git"
)


def test_a_pointer_to_settings_the_command_wrote_is_moved_aside(repository: Path) -> None:
    """A ``.git`` file and a linked worktree's ``commondir`` pointed at settings the command
    wrote in /tmp: the pointers are moved (nothing lost), the settings are not edited."""
    try:
        _hook(repository, "PreToolUse", POINTED)
        _run_as_the_host(repository, POINTED)
        outcome = _hook(repository, "PostToolUse", POINTED)
        finding = next(f for f in outcome.decision.findings if f.code == planted.NESTED_CODE)
        assert "sub/.git" in finding.message and ".git/worktrees/wt" in finding.message
        assert not (repository / "sub" / ".git").exists()
        assert not (repository / ".git" / "worktrees" / "wt").exists()
        for folder in (repository / "sub", repository / "wt", repository):
            subprocess.run(["git", "status"], cwd=folder, capture_output=True, check=False)
        assert not Path("/tmp/ar-nested-pwned").exists()
        kept = repository.parent / "state" / "planted"
        assert [p.read_text() for p in kept.rglob("commondir")] == ["/tmp/ar-nested-evil\n"]
        evil = _git(repository, "config", "--file", "/tmp/ar-nested-evil/config", "--list")
        assert "core.fsmonitor" in evil  # another folder's settings: never edited
    finally:
        subprocess.run(["rm", "-rf", "/tmp/ar-nested-evil", "/tmp/ar-nested-pwned"], check=False)


def test_a_pointer_git_cannot_read_is_left_and_the_look_goes_on(repository: Path) -> None:
    """A ``.git`` file with a NUL or no ``gitdir:`` leads git nowhere; the look does not stop
    there, and still moves the next pointer aside."""
    command = (
        "mkdir a b c && printf 'gitdir: /tmp/x\\000y' > a/.git && echo junk > b/.git && "
        "git init -q --bare /tmp/ar-nested-evil2 && "
        "git --git-dir=/tmp/ar-nested-evil2 config core.fsmonitor 'touch /tmp/ar-nested-pwned' && "
        "echo 'gitdir: /tmp/ar-nested-evil2' > c/.git"
    )
    try:
        _hook(repository, "PreToolUse", command)
        _run_as_the_host(repository, command)
        outcome = _hook(repository, "PostToolUse", command)
        assert (repository / "a" / ".git").exists() and (repository / "b" / ".git").exists()
        assert not (repository / "c" / ".git").exists()
        assert any(f.code == planted.NESTED_CODE for f in outcome.decision.findings)
    finally:
        subprocess.run(["rm", "-rf", "/tmp/ar-nested-evil2"], check=False)


@pytest.mark.parametrize(
    ("key", "everyday"),
    [
        ("remote.origin.url", True),
        ("branch.feature/x.merge", True),
        ("submodule.lib.url", True),
        ("core.filemode", True),
        ("core.worktree", True),  # git submodule add writes it
        ("core.fsmonitor", False),
        ("core.hookspath", False),
        ("core.pager", False),
        ("remote.origin.uploadpack", False),
        ("submodule.lib.update", False),
        ("filter.lfs.clean", False),
        ("include.path", False),
        ("includeif.gitdir:/x/.path", False),
        ("alias.st", False),
    ],
)
def test_what_counts_as_everyday(key: str, everyday: bool) -> None:
    assert nestedgit.everyday(key) is everyday


def test_a_folder_name_that_is_not_utf8_is_said_not_crashed_on(workspace: Path) -> None:
    """A repository in a folder named ``b"\\xff"``: its path reaches the finding, the
    panels and the reply as it is, escaped, and the hook still undoes the setting."""
    command = (
        "mkdir -p $'\\xff' && git -C $'\\xff' init -q && "
        "git -C $'\\xff' config core.fsmonitor 'touch /tmp/x'"
    )
    _hook(workspace, "PreToolUse", command)
    _run_as_the_host(workspace, command)
    outcome = _hook(workspace, "PostToolUse", command)
    assert "internal error" not in outcome.reply.stdout + outcome.reply.stderr
    assert any(f.code == planted.NESTED_CODE for f in outcome.decision.findings)
    folder = os.path.join(os.fsencode(workspace), b"\xff")
    config = os.path.join(folder, b".git", b"config")
    assert b"fsmonitor" not in Path(os.fsdecode(config)).read_bytes()
