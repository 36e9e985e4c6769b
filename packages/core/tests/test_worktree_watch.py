"""The daemon's fingerprint cache (worktree/watch.py) answers exactly what git answers.

Every step runs a real command in a scratch repository, then compares the
cached listing with a fresh ``git status`` (git's own view).  The hook tests
of test_worktree.py are run again with the cache on, as the daemon runs them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from agentreflex.core.worktree import observe, watch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import test_worktree as tw

repo = tw.repo  # the fixture
sh = tw.sh
# test_worktree.py's hook tests, run again with the daemon's cache on
test_a_discard_is_undone_byte_for_byte = tw.test_a_discard_is_undone_byte_for_byte
test_an_edit_by_any_program_is_seen = tw.test_an_edit_by_any_program_is_seen
test_git_apply_and_patch_are_seen = tw.test_git_apply_and_patch_are_seen
test_nothing_the_repository_configures_runs = tw.test_nothing_the_repository_configures_runs
test_stash_drop_undone = tw.test_stash_drop_of_a_stash_made_in_the_session_is_undone

pytestmark = pytest.mark.skipif(os.uname().sysname != "Linux", reason="inotify is Linux's")


@pytest.fixture(autouse=True)
def cached() -> Iterator[None]:
    watch.enable()
    yield
    watch.enable(False)


STEPS = [
    "echo 'x = 1' > src/b.py",  # size changed: answered from the index
    "echo \"print('b')\" > src/b.py",  # same size, back to the committed bytes
    "echo \"print('c')\" > src/b.py",  # same size, other bytes
    "touch src/pkg/a.py",
    "chmod +x src/b.py",
    "chmod -x src/b.py",
    "git add -A",
    "echo more >> README",
    "git update-index --index-version 4",
    "echo again >> README && echo 'x = 9' > src/b.py",
    "git update-index --index-version 2",
    "mkdir -p deep/er/est && echo n > deep/er/est/n.txt",
    "echo m > deep/er/est/m.txt",
    "mv deep moved",
    "rm -rf moved/er",
    "echo '*.txt' >> .gitignore",
    "echo t > src/t.txt",
    "git stash -u -q",
    "git stash pop -q",
    "ln -s README link && git add link && git commit -qm link",
    "ln -sf run.sh link",
    "ln -sf README link",
    "rm link && echo file > link",
    "git commit -qam all",
    "printf 'x\\r\\n' > src/b.py",
    "echo '*.py text eol=crlf' > .gitattributes",
    "echo \"print('z')\" > src/pkg/a.py",
    "git reset -q --hard HEAD~1",
    "git clean -fdq",
    "rm -rf src",
    "git checkout -q -- .",
    "echo u > 'sp ace*.py'",
    "rm 'sp ace*.py'",
    "git checkout -q -b other && git rm -q README && git commit -qm gone",
    "git checkout -q -",
]


def _same(repo_path: Path, label: str) -> None:
    found = observe.find_repo(str(repo_path))
    assert found is not None
    cached_view = watch.status_entries(found, "")
    git_view = observe.status_entries(found)
    assert cached_view == git_view, label


def test_the_cached_listing_is_gits_after_every_step(repo: Path) -> None:
    _same(repo, "start")
    for step in STEPS:
        sh(repo, step)
        _same(repo, step)
        _same(repo, step + " (unchanged)")


def test_an_unchanged_work_tree_runs_no_git(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = observe.find_repo(str(repo))
    assert found is not None
    assert observe.fingerprint(found) is not None
    (repo / "src" / "b.py").write_text("longer than before\n")  # answered from the index

    def no_git(*args: object, **kwargs: object) -> None:
        raise AssertionError("git ran")

    monkeypatch.setattr(subprocess, "run", no_git)
    fp = observe.fingerprint(found)
    assert fp is not None and fp["src/b.py"][0] == ".M"
    assert observe.find_repo(str(repo)) is found


def test_a_new_filter_in_the_config_is_seen(repo: Path) -> None:
    first = observe.find_repo(str(repo))
    assert first is not None and not any("evil" in f for f in first.filters)
    sh(repo, "git config filter.evil.clean 'touch ran'")
    second = observe.find_repo(str(repo))
    assert second is not None
    assert "--config-env=filter.evil.clean=AGENTREFLEX_GIT_EMPTY" in second.filters
    sh(repo, "git config include.path other.cfg")
    assert observe.find_repo(str(repo)) is not observe.find_repo(str(repo))  # never cached


def test_a_nested_repository_below_is_found(repo: Path) -> None:
    sub = repo / "src" / "pkg"
    outer = observe.find_repo(str(sub))
    assert outer is not None and outer.top == str(repo)
    sh(sub, "git init -q")
    inner = observe.find_repo(str(sub))
    assert inner is not None and inner.top == str(sub)


def test_past_the_watch_cap_every_call_is_gits_full_status(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(watch, "_dir_cap", lambda: 1)  # the repository has more directories
    _same(repo, "start")
    cache = watch._caches[str(repo)]
    assert cache.broken and cache.notify is None  # no watch kept
    rebuilt: list[str] = []
    real = watch._Cache._rebuild
    monkeypatch.setattr(
        watch._Cache, "_rebuild", lambda self, *a: rebuilt.append("x") or real(self, *a)
    )
    for step in STEPS[:6]:  # no index change: not tried again
        sh(repo, step)
        _same(repo, step)
    assert not rebuilt
    sh(repo, "git add -A")  # the index moved: tried again (and given up again)
    _same(repo, "git add -A")
    assert rebuilt == ["x"]


def test_a_change_before_a_new_directorys_watch_is_still_seen(repo: Path) -> None:
    """Directories holding only untracked files are watched after the status that
    listed them: the next call asks git about them again, events or not."""
    sh(repo, "mkdir -p only/untracked && echo 1 > only/untracked/one.txt")
    _same(repo, "first")
    cache = watch._caches[str(repo)]
    assert cache.pending == {"only", "only/untracked"}
    (repo / "only" / "untracked" / "two.txt").write_text("2\n")
    assert cache.notify is not None
    cache.notify.read()  # as if it happened before the watch: no event left
    _same(repo, "second")
    assert not cache.pending


# What git's own machinery does differently, each answered by the cache exactly as git:
# an index the cache does not parse (split), entries it leaves to git (a conflict, a
# submodule, an empty file grown to the same size), conversions (autocrlf), a symlink
# turned into a file in a watched directory.
EDGE_STEPS = [
    "git update-index --split-index && echo split >> README",
    "echo 'x = 2' > src/b.py",
    "git update-index --no-split-index",
    ": > empty && git add empty && git commit -qm empty",
    "echo e > empty",  # an entry recorded with size 0: git compares
    "git config core.autocrlf true && echo \"print('w')\" > src/b.py",
    "git config --unset core.autocrlf",
    "git checkout -q -b side && echo side > README && git commit -qam side",
    "git checkout -q - && echo main > README && git commit -qam main",
    "git merge -q side || true",  # a conflict: stage entries git answers for
    "echo resolved > README && git add README && git commit -qm merged",
    "mkdir -p w/x && echo 1 > w/x/f && mv w/x w/y",  # a new directory renamed
    "rm -rf w",
]


def test_the_cache_is_gits_where_git_compares_itself(repo: Path, tmp_path: Path) -> None:
    _same(repo, "start")
    for step in EDGE_STEPS:
        sh(repo, step)
        _same(repo, step)
        _same(repo, step + " (unchanged)")
    other = tmp_path / "other"
    other.mkdir()
    sh(other, "git init -q && echo o > o.txt && git add -A && git commit -qm o")
    sh(repo, f"git -c protocol.file.allow=always submodule add -q {other} mod")
    _same(repo, "submodule added")
    sh(repo / "mod", "echo changed > o.txt")
    _same(repo, "inside the submodule")


def test_a_corrupt_index_gets_gits_answer(repo: Path) -> None:
    _same(repo, "start")
    index = repo / ".git" / "index"
    index.write_bytes(b"DIRC" + index.read_bytes()[4:40])  # torn short
    found = observe.find_repo(str(repo))
    assert found is not None
    assert watch.status_entries(found, "") == observe.status_entries(found)
    index.write_bytes(b"not an index at all")
    assert watch.status_entries(found, "") == observe.status_entries(found)


def test_a_parser_refusal_leaves_the_answer_to_git() -> None:
    assert watch._read_index("/nonexistent/index") is None
    assert watch._blob_id("/nonexistent/file", link=False) is None


def test_no_inotify_means_gits_full_status_every_call(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(self: object) -> None:
        raise OSError(24, "inotify_init1")  # EMFILE: the user's instances are used up

    monkeypatch.setattr(watch._Inotify, "__init__", refuse)
    for step in ["true", *STEPS[:4]]:
        sh(repo, step)
        _same(repo, step)
    cache = watch._caches[str(repo)]
    assert cache.broken and cache.notify is None


def test_an_event_queue_overflow_rescans(repo: Path) -> None:
    _same(repo, "start")
    limit = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
    many = repo / "many"
    many.mkdir()
    _same(repo, "a directory")
    for i in range(limit + 100):  # more events than the kernel queues: IN_Q_OVERFLOW
        (many / f"f{i}").write_bytes(b"")
    _same(repo, "after the overflow")


def test_a_worktree_found_through_its_git_file_is_cached_until_that_file_moves(
    repo: Path, tmp_path: Path
) -> None:
    sh(repo, "git commit -qm wip")
    linked = tmp_path / "linked"
    sh(repo, f"git worktree add -q {linked}")
    first = watch.find_repo(str(linked))
    assert first is not None and first.top == str(linked)
    assert watch.find_repo(str(linked)) is first  # the key held
    (linked / "README").write_text("in the worktree\n")
    _same(linked, "an edit in the worktree")
    (linked / ".git").write_text((linked / ".git").read_text() + "\n")  # the file moved
    assert watch.find_repo(str(linked)) is not first
    (linked / ".git").write_text("gitdir:\n")  # names nothing: no repository, as git says
    assert watch.find_repo(str(linked)) is None


def test_a_folder_that_is_no_repository_is_not_cached(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    assert watch.find_repo(str(plain)) is None
    assert str(plain) not in watch._repos
    assert watch.find_repo(str(tmp_path / "gone")) is None


def test_the_least_recently_used_repository_is_dropped(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(watch, "MAX_REPOS", 2)
    tops = []
    for name in ("r1", "r2", "r3"):
        root = tmp_path / name
        root.mkdir()
        sh(root, "git init -q && echo x > x && git add -A && git commit -qm x")
        _same(root, name)
        tops.append(str(root))
    assert list(watch._caches) == tops[1:]


def test_off_the_daemon_every_call_is_git() -> None:
    watch.enable(False)
    assert not watch.enabled() and not watch._caches


def test_a_fifo_where_a_tracked_file_was_is_never_opened(tmp_path: Path) -> None:
    """red-team rt31: the daemon lstat()s a changed tracked file, then opened it with a plain
    ``open``; a process the agent left running that swaps it for a FIFO in between held the
    daemon (and every hook waiting on its lock) for ever."""
    import threading

    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    done: list[object] = []
    worker = threading.Thread(target=lambda: done.append(watch._blob_id(str(fifo), False)))
    worker.daemon = True
    worker.start()
    worker.join(10)
    hung = worker.is_alive()
    if hung:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    assert not hung and done == [None]
