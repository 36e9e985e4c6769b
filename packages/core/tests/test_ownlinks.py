"""The hook's own code shares its bytes with no other path (issue #28).

uv installs by hard-linking its cache's files into the environment, and the
caches are writable in the boundary: a file of the hook's code with a second
name there could be written from inside.  ``tests/test_wheels.py`` shows it
with a real ``uv pip install``; these cases pin the copying itself.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from agentreflex.core.contain import ownlinks


@pytest.fixture
def install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """An installed package whose files are hard links into a cache, as uv leaves them."""
    cache, site = tmp_path / "cache" / "archive-v0" / "ID", tmp_path / "site-packages"
    for name, text in {"pkg/__init__.py": "x = 1\n", "pkg/__pycache__/m.pyc": "pyc"}.items():
        (cache / name).parent.mkdir(parents=True, exist_ok=True)
        (cache / name).write_text(text)
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        os.link(cache / name, site / name)
    (cache / "pkg" / "__init__.py").chmod(0o640)
    os.utime(cache / "pkg" / "__init__.py", ns=(1_000_000_000, 1_000_000_000))
    (site / "own.pth").write_text("import os\n")  # a file with one link: left as it is
    (site / "link.pth").symlink_to(site / "own.pth")
    monkeypatch.setattr(ownlinks, "roots", lambda: [str(site)])
    # the stamp in the test's state folder only, never beside the test's own environment
    monkeypatch.setattr(ownlinks, "_records", lambda state: [os.path.join(state, "stamp.json")])
    return cache, site


def test_a_linked_file_gets_a_copy_of_its_own(install: tuple[Path, Path], tmp_path: Path) -> None:
    cache, site = install
    own_inode = (site / "own.pth").stat().st_ino
    done = ownlinks.separate(str(tmp_path / "state"))
    assert sorted(done) == sorted(
        str(site / n) for n in ("pkg/__init__.py", "pkg/__pycache__/m.pyc")
    )
    installed = site / "pkg" / "__init__.py"
    info = installed.stat()
    assert info.st_nlink == 1 and installed.read_text() == "x = 1\n"
    assert oct(info.st_mode & 0o777) == oct(0o640) and info.st_mtime_ns == 1_000_000_000
    (cache / "pkg" / "__init__.py").write_text("import os; os._exit(0)\n")  # the other door
    assert installed.read_text() == "x = 1\n"
    assert (site / "own.pth").stat().st_ino == own_inode and (site / "link.pth").is_symlink()
    assert not list(site.rglob("*.tmp-*"))


def test_nothing_is_walked_again_until_the_installation_changes(
    install: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache, site = install
    state = str(tmp_path / "state")
    ownlinks.separate(state)
    walked: list[str] = []
    real = ownlinks._linked_files
    monkeypatch.setattr(ownlinks, "_linked_files", lambda f: walked.append(f) or real(f))
    assert ownlinks.separate(state) == []
    assert walked == []
    os.link(cache / "pkg" / "__init__.py", site / "again.py")  # an upgrade links anew
    assert ownlinks.separate(state) == [str(site / "again.py")]
    assert walked == [str(site)]


def test_a_file_it_cannot_replace_is_tried_again(
    install: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, site = install
    state = tmp_path / "state"

    def refused(source: str, target: str) -> None:
        raise PermissionError(13, "Permission denied")

    with monkeypatch.context() as refusing:
        refusing.setattr(ownlinks.os, "replace", refused)
        assert ownlinks.separate(str(state)) == []
    assert not (state / "stamp.json").exists()  # not recorded as done
    assert not list(site.rglob("*.tmp-*"))  # no temporary left behind
    assert len(ownlinks.separate(str(state))) == 2


def test_the_stamp_is_kept_beside_the_environment_else_in_the_state(tmp_path: Path) -> None:
    import sys

    records = ownlinks._records(str(tmp_path))
    assert records == [
        os.path.join(sys.prefix, ".agentreflex-ownlinks.json"),
        os.path.join(str(tmp_path), ".agentreflex-ownlinks.json"),
    ]


def test_the_roots_are_the_hooks_own() -> None:
    import sysconfig

    from agentreflex.core.state import userdirs

    found = ownlinks.roots()
    assert os.path.realpath(sysconfig.get_paths()["purelib"]) in found
    namespace = [p for p in userdirs.installed_paths() if os.path.isdir(p)]
    assert all(os.path.realpath(p) in found for p in namespace)
