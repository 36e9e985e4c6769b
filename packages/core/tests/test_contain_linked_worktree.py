"""Containment in a project that is a linked work tree (issue #28, red-team rt83).

``git worktree add ../app-feat`` (and ``claude --worktree``'s ``.claude/worktrees/NAME``,
Codex's app, Conductor, claude-squad) makes a project whose ``.git`` is a file naming
``<main>/.git/worktrees/NAME``: what a commit writes is outside the project.  Real git
and real bubblewrap, the line run as a host runs it: everyday git works as without the
boundary, while the repository's settings and hooks, the main work tree's files and
whatever a forged pointer names stay as they were.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest
from agentreflex.core.contain import boundary as contain
from agentreflex.core.contain import linkedgit, mounts
from agentreflex.core.contain.policy import load_policy
from agentreflex.core.state import userdirs

ID = ["-c", "user.name=t", "-c", "user.email=t@e"]


def _git(folder: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *ID, "-C", str(folder), *args], capture_output=True, text=True, check=True
    )
    return done.stdout


def run(command: str, project: Path) -> subprocess.CompletedProcess[str]:
    if contain.engine_path() is None:
        pytest.fail("bubblewrap is not installed: `apt-get install -y bubblewrap`")
    line = contain.rewrite(command, str(project))
    return subprocess.run(
        ["bash", "-c", line], cwd=project, capture_output=True, text=True, timeout=120
    )


def _home() -> Path:
    home = Path(os.environ["HOME"])
    Path(userdirs.user_state_dir()).mkdir(parents=True, exist_ok=True)
    Path(userdirs.key_path()).write_text("per-user-key\n")
    return home


def _main(home: Path) -> Path:
    """The user's checkout in home (read-only in the boundary), with a first commit."""
    main = home / "src" / "app"
    main.mkdir(parents=True)
    _git(main, "init", "-q", "-b", "main")
    (main / "a.txt").write_text("one\n")
    _git(main, "add", "a.txt")
    _git(main, "commit", "-qm", "first")
    return main


@pytest.fixture(params=["sibling", "claude"])
def linked(request: pytest.FixtureRequest) -> tuple[Path, Path]:
    """(main checkout, linked work tree): ``git worktree add ../app-feat``, or the folder
    ``claude --worktree feat`` makes in the main checkout."""
    main = _main(_home())
    where = (
        main.parent / "app-feat" if request.param == "sibling" else main / ".claude/worktrees/feat"
    )
    _git(main, "worktree", "add", "-q", "-b", "feat", str(where))
    return main, where


def _snapshot(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` by its content's hash (links by their target)."""
    found: dict[str, str] = {}
    for root, _dirs, files in os.walk(folder):
        for name in files:
            path = os.path.join(root, name)
            found[path] = (
                "-> " + os.readlink(path)
                if os.path.islink(path)
                else hashlib.sha256(Path(path).read_bytes()).hexdigest()
            )
    return found


def test_everyday_git_works_in_a_linked_work_tree(linked: tuple[Path, Path]) -> None:
    main, project = linked
    (project / "b.txt").write_text("two\n")
    done = run(
        "git add b.txt && git -c user.name=t -c user.email=t@e commit -qm second && "
        "echo three >> a.txt && git stash -q && git checkout -q -b x && git stash pop -q && "
        "git worktree list && git log --oneline",
        project,
    )
    assert done.returncode == 0, done.stderr
    assert "second" in done.stdout and str(project) in done.stdout
    # the commit is in the shared repository, as without the boundary
    assert "second" in _git(main, "log", "--oneline", "feat")
    assert _git(project, "branch", "--show-current").strip() == "x"
    assert (project / "a.txt").read_text() == "one\nthree\n"


def test_settings_hooks_and_the_main_checkout_stay_as_they_were(
    linked: tuple[Path, Path],
) -> None:
    main, project = linked
    common = main / ".git"
    _git(main, "config", "extensions.worktreeConfig", "true")
    _git(project, "config", "--worktree", "core.sparseCheckout", "false")
    own = Path((project / ".git").read_text()[len("gitdir: ") :].strip()) / "config.worktree"
    assert own.exists()
    before = {
        p: v
        for p, v in _snapshot(main).items()
        if not p.startswith(str(project)) and "/.git/" not in p
    }
    held = (common / "config", own, own.parent / "commondir")
    before |= {str(p): p.read_text() for p in held}
    for command in (
        "git config user.name x",
        "git config --worktree core.fsmonitor 'touch ~/fsmonitor-ran'",
        f"echo 'touch ~/hook-ran' > {common}/hooks/pre-commit && chmod +x {common}/hooks/pre-commit",
        f"printf '[core]\\n\\tpager = touch ~/pager-ran\\n' >> {common}/config",
        f"printf '[core]\\n\\tpager = touch ~/pager-ran\\n' >> {own}",
        f"echo changed > {main}/a.txt",
        f"echo new > {main}/new.txt",
        f"echo x > {project}/.git",
        # another common folder would have git read settings of the command's making
        f"echo /tmp > {own.parent}/commondir",
    ):
        done = run(command, project)
        assert done.returncode != 0, command
    after = {
        p: v
        for p, v in _snapshot(main).items()
        if not p.startswith(str(project)) and "/.git/" not in p
    }
    after |= {str(p): p.read_text() for p in held}
    assert after == before
    assert not (common / "hooks" / "pre-commit").exists()
    assert (project / ".git").read_text().startswith("gitdir: ")


def test_a_hooks_folder_git_did_not_make_cannot_be_made(linked: tuple[Path, Path]) -> None:
    main, project = linked
    hooks = main / ".git" / "hooks"
    for hook in hooks.iterdir():
        hook.unlink()
    hooks.rmdir()
    done = run(f"mkdir -p {hooks} && echo 'touch ~/x' > {hooks}/post-checkout", project)
    assert done.returncode != 0
    assert not (hooks / "post-checkout").exists()
    work = run("git -c user.name=t -c user.email=t@e commit -q --allow-empty -m next", project)
    assert work.returncode == 0, work.stderr


def _forge(project: Path, target: str) -> None:
    project.mkdir(parents=True, exist_ok=True)
    (project / ".git").write_text(f"gitdir: {target}\n")


def _writable(project: Path, path: Path) -> bool:
    return mounts.writable(mounts.plan(str(project), load_policy()), str(path))


def test_a_forged_pointer_opens_nothing(tmp_path: Path) -> None:
    """A ``.git`` file at ``~/.ssh``, or at a folder in /tmp laid out as git's whose
    ``commondir`` names home (or a real repository there that does not know this work
    tree), makes nothing there writable."""
    home = _home()
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("key\n")
    project = tmp_path / "proj"
    _forge(project, str(home / ".ssh"))
    assert linkedgit.linked(str(project), str(home)) is None
    assert not _writable(project, home / ".ssh" / "id_ed25519")
    # a fake git folder in /tmp whose commondir names home, home made to look like a repository
    for name in ("objects", "refs"):
        (home / name).mkdir()
    (home / "HEAD").write_text("ref: refs/heads/main\n")
    fake = tmp_path / "fake" / "worktrees" / "w"
    fake.mkdir(parents=True)
    (fake / "commondir").write_text(f"{home}\n")
    (fake / "gitdir").write_text(f"{project}/.git\n")
    _forge(project, str(fake))
    assert linkedgit.linked(str(project), str(home)) is None
    assert not _writable(project, home / "HEAD")
    # the same inside home: home's own repository (~/.git, a dotfiles checkout of home)
    dot = home / ".git" / "worktrees" / "w"
    dot.mkdir(parents=True)
    for name in ("objects", "refs"):
        (home / ".git" / name).mkdir()
    (home / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (dot / "commondir").write_text("../..\n")
    (dot / "gitdir").write_text(f"{project}/.git\n")
    _forge(project, str(dot))
    assert linkedgit.linked(str(project), str(home)) is None
    assert not _writable(project, home / ".git" / "HEAD")
    # a real repository's work tree that is not this project's
    main = _main(home)
    _git(main, "worktree", "add", "-q", str(main.parent / "other"))
    _forge(project, str(main / ".git" / "worktrees" / "other"))
    assert linkedgit.linked(str(project), str(home)) is None
    assert not _writable(project, main / ".git" / "HEAD")
    done = run(f"echo x > {main}/.git/HEAD", project)
    assert done.returncode != 0 and "ref:" in (main / ".git" / "HEAD").read_text()


def test_a_link_on_the_way_opens_nothing(tmp_path: Path) -> None:
    """The work tree's folder reached through a link (one a command made in /tmp to the
    real one) is not taken: the paths as spelled must be the paths resolved."""
    main = _main(_home())
    project = main.parent / "app-feat"
    _git(main, "worktree", "add", "-q", str(project))
    link = tmp_path / "via"
    link.symlink_to(main / ".git")
    (project / ".git").write_text(f"gitdir: {link}/worktrees/app-feat\n")
    assert linkedgit.linked(str(project), os.environ["HOME"]) is None
    assert not _writable(project, main / ".git" / "HEAD")


def test_a_repository_in_a_guarded_path_is_not_opened(linked: tuple[Path, Path]) -> None:
    """A real work tree of a repository the guard holds (a plugin's checkout in a host's
    settings folder, say) is not taken: the held path stays read-only."""
    main, project = linked
    home = os.environ["HOME"]
    assert linkedgit.linked(str(project), home) == linkedgit.Linked(
        str(main / ".git"), (project / ".git").read_text()[len("gitdir: ") :].strip()
    )
    assert linkedgit.linked(str(project), home, [str(main)]) is None


def test_the_held_entries_of_the_common_folder_cannot_be_renamed_away(
    linked: tuple[Path, Path],
) -> None:
    """The settings and hooks held read-only in the common folder, a writable one, are held
    where they are: renamed aside (``mv hooks h2; mkdir hooks``) or replaced by a link, the
    main checkout's git would read the command's (red-team rt87)."""
    main, project = linked
    common = main / ".git"
    before = {str(p): v for p, v in _snapshot(common / "hooks").items()}
    before[str(common / "config")] = (common / "config").read_text()
    for command in (
        f"mv {common}/hooks {common}/h2 && mkdir {common}/hooks && "
        f"printf '#!/bin/sh\\ntouch ~/hook-ran\\n' > {common}/hooks/post-checkout",
        f"mv {common}/hooks {common}/h2 && ln -s {project} {common}/hooks",
        f"mv {common}/config {common}/c2 && cp {common}/c2 {common}/config && "
        f"printf '[core]\\n\\tpager = touch ~/pager-ran\\n' >> {common}/config",
        f"rm -rf {common}/hooks",
        f"mv {common} {common}.x && mkdir {common}",
    ):
        run(command, project)
    after = {str(p): v for p, v in _snapshot(common / "hooks").items()}
    after[str(common / "config")] = (common / "config").read_text()
    assert after == before
    assert (common / "hooks").is_dir() and not (common / "hooks").is_symlink()
    assert not (common / "h2").exists() and not (common / "c2").exists()


def test_the_git_folders_are_read_once_per_plan_and_per_look(
    linked: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plan and a look each read the project's git folders once (rt91: six reads per look
    before, about 0.1 ms each), and only within it: the next one sees a pointer changed
    meanwhile, and a held path still refuses a common folder read before."""
    from agentreflex.core.contain import planted, policy

    main, project = linked
    home, reads = os.environ["HOME"], []
    real = linkedgit._found

    def counted(where: str, home_dir: str) -> linkedgit.Linked | None:
        reads.append(where)
        return real(where, home_dir)

    monkeypatch.setattr(linkedgit, "_found", counted)
    policy._READ.clear()
    contain.plan(str(project), load_policy())
    assert len(reads) == 1
    reads.clear()
    planted._look([str(project)], "claude-code")
    assert len(reads) == 1
    with linkedgit.remembered():
        assert linkedgit.linked(str(project), home) is not None
        assert linkedgit.linked(str(project), home, [str(main)]) is None
        pointer = (project / ".git").read_text()
        (project / ".git").write_text("gitdir: /nowhere\n")
        assert linkedgit.linked(str(project), home) is not None  # within it: read once
    assert linkedgit.linked(str(project), home) is None  # the next plan sees the change
    (project / ".git").write_text(pointer)
    assert linkedgit.linked(str(project), home) is not None


def test_what_one_thread_remembers_is_its_own(linked: tuple[Path, Path]) -> None:
    """The daemon answers several hook calls at once, each in its thread: one call's
    remembered answer is never another's (a look after a command must read the folders
    as the command left them)."""
    import threading

    _main_folder, project = linked
    home, seen = os.environ["HOME"], []
    with linkedgit.remembered():
        assert linkedgit.linked(str(project), home) is not None
        pointer = (project / ".git").read_text()
        (project / ".git").write_text("gitdir: /nowhere\n")
        other = threading.Thread(target=lambda: seen.append(linkedgit.linked(str(project), home)))
        other.start()
        other.join()
        (project / ".git").write_text(pointer)
    assert seen == [None]


def test_the_branches_the_other_work_trees_have_checked_out_hold(
    linked: tuple[Path, Path],
) -> None:
    """A command in a linked work tree can't move the branch the main checkout (or another
    work tree) has checked out: the user's next ``git reset --hard`` or ``git status``
    there would take the command's commit (rt91).  Its loose ref is read-only, while the
    project's own branch, new branches and tags, their deletion, ``git fetch``, ``git
    pack-refs`` and ``git gc`` keep working."""
    main, project = linked
    _git(main, "worktree", "add", "-q", "-b", "topic/other", str(main.parent / "other"))
    _git(project, "commit", "-q", "--allow-empty", "-m", "feat")
    common = main / ".git"
    held = {b: _git(main, "rev-parse", b).strip() for b in ("main", "topic/other")}
    for move in (
        "git update-ref refs/heads/main feat",
        "git update-ref refs/heads/topic/other feat",
        f"git rev-parse feat > {common}/refs/heads/main.lock && "
        f"mv -f {common}/refs/heads/main.lock {common}/refs/heads/main",
        f"rm -f {common}/refs/heads/main && git update-ref refs/heads/main feat",
        f"cd {common}/refs && mv heads h && mkdir heads && cp -a h/. heads/ && "
        "git -C $OLDPWD update-ref refs/heads/main feat",
        f"cd {common} && mv refs r && mkdir -p refs/heads && git rev-parse feat > refs/heads/main",
    ):
        run(move, project)
        assert {b: _git(main, "rev-parse", b).strip() for b in held} == held, move
    (common / "refs" / "heads" / "main.lock").unlink(missing_ok=True)
    upstream = main.parent / "upstream"
    _git(main.parent, "clone", "-q", "--bare", str(main), str(upstream))
    _git(project, "remote", "add", "origin", str(upstream))
    everyday = (
        "git -c user.name=t -c user.email=t@e commit -q --allow-empty -m two && "
        "git branch nb && git tag t1 && git tag -d t1 && git branch -D nb && "
        "git fetch -q origin && git pack-refs --all && git gc -q && git log -1 --format=%s"
    )
    done = run(everyday, project)
    assert done.returncode == 0 and done.stdout.split()[-1:] == ["two"], done.stderr
    assert {b: _git(main, "rev-parse", b).strip() for b in held} == held
    assert _git(main, "status", "--short", "--untracked-files=no") == ""
