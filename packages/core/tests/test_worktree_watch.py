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
    assert second is not None and "filter.evil.clean=" in second.filters
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
